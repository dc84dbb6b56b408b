/* validator.c - validates the packages judge-api staged (store.h, "staged
 * uploads"). judge-api links no runner and has no sandbox, so it cannot
 * compile a custom checker; a judged host can. One thread per host takes a
 * pending upload, fetches its files from the manifest the upload carries
 * (every hash verified) into STATE_DIR/uploads/, borrows a free job slot of
 * one of its pools (counted held, so the dispatcher claims one job less and
 * a reload does not replace the runner under it), runs runner_problem_check
 * - exactly `judgectl problem check` - and then pushes the package with
 * store_push (the same atomic commit as `judgectl problem push`), its
 * runner_problem_summary recorded with the version, or records
 * every error as FILE:LINE: KEY: message. An upload a stopping host cannot
 * finish goes back to the queue for another host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

/* Any pool's free slot, lent (pool_try_lend_slot); NULL when stopping. */
static struct pool *borrow_slot(struct runner **runner)
{
    while (!atomic_load(&judged.stopping)) {
        pthread_mutex_lock(&judged.pools_mu);
        struct pool *got = NULL;
        for (struct pool *p = judged.pools; p && !got; p = p->next)
            if ((*runner = pool_try_lend_slot(p)))
                got = p;
        pthread_mutex_unlock(&judged.pools_mu);
        if (got)
            return got;
        jd_sleep_ms(100);
    }
    return NULL;
}

/* The runner's error lines as a JSON array, with dir's prefix removed so
 * they name files as they are in the package. */
static char *errors_json(const char *errors, const char *dir)
{
    json_t *arr = json_array();
    size_t dl = strlen(dir);
    for (const char *p = errors; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = strndup(p, len);
        for (char *s; (s = strstr(line, dir)) && s[dl] == '/';)
            memmove(s, s + dl + 1, strlen(s + dl + 1) + 1);
        if (*line)
            json_array_append_new(arr, json_string(line));
        free(line);
        p += len + (nl ? 1 : 0);
    }
    char *s = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    return s;
}

static char *one_error(const char *msg)
{
    json_t *arr = json_pack("[s]", msg);
    char *s = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    return s;
}

/* Validates and pushes dir; fills state/result/errors. false: the host is
 * stopping and could not get a slot (give the upload back). */
static bool check_and_push(struct queue_conn *k, const struct store_upload *u, const char *dir,
                           const struct store_manifest *m, const char **state, struct store_push_reply *pr,
                           char **errors)
{
    struct runner *runner = NULL;
    struct pool *p = borrow_slot(&runner);
    if (!p)
        return false;
    char *lines = NULL, *line = NULL, *summary = NULL, err[1024];
    int n = runner_problem_check(runner, dir, &lines, &line);
    /* what GET /v1/problems shows of the version, recorded with it */
    if (n == 0 && runner_problem_summary(runner, dir, &summary, err, sizeof err))
        logmsg("upload %s (%s): no summary: %s", u->id, u->name, err);
    pool_return_slot(p);
    free(line);
    if (n > 0) {
        *state = "refused";
        *errors = errors_json(lines, dir);
        free(lines);
        return true;
    }
    free(lines);
    struct snapshot *s = snapshot_get();
    int rc = store_push(k, u->name, dir, m, (uint64_t)s->cfg.store_quota, summary, pr, err, sizeof err);
    snapshot_put(s);
    free(summary);
    *state = rc == 0 ? "stored" : rc == STORE_IO ? "failed" : "refused";
    if (rc)
        *errors = one_error(err);
    return true;
}

static void validate(struct queue_conn *k, const struct store_upload *u)
{
    struct snapshot *s = snapshot_get();
    char base[4200], tmp[4300], dir[4300], err[1024];
    snprintf(base, sizeof base, "%s/uploads", s->cfg.state_dir);
    snapshot_put(s);
    common_mkdir_p(base, 0755);
    snprintf(tmp, sizeof tmp, "%s/%s.tmp", base, u->id);
    snprintf(dir, sizeof dir, "%s/%s", base, u->id);
    store_remove_tree(tmp);
    store_remove_tree(dir);
    const char *state = "failed";
    char *errors = NULL;
    struct store_push_reply pr = {0};
    struct store_manifest m;
    if (store_manifest_parse(u->manifest, strlen(u->manifest), u->version, &m, err, sizeof err)) {
        errors = one_error(err);
    } else {
        if (store_fetch_manifest(k, &m, tmp, dir, NULL, err, sizeof err))
            errors = one_error(err);
        else if (!check_and_push(k, u, dir, &m, &state, &pr, &errors)) {
            if (store_upload_release(k, judged.host, u->id, err, sizeof err))
                logmsg("upload %s (%s): stopping; cannot give it back (%s): it goes back when this host "
                       "starts again", u->id, u->name, err);
            else
                logmsg("upload %s (%s): stopping; given back", u->id, u->name);
            store_manifest_free(&m);
            store_remove_tree(dir);
            return;
        }
        store_manifest_free(&m);
    }
    store_remove_tree(dir);
    const char *result = strcmp(state, "stored")            ? NULL
                         : pr.result == STORE_PUSH_NEW      ? "new"
                         : pr.result == STORE_PUSH_CURRENT ? "unchanged"
                                                            : "current again";
    if (store_upload_settle(k, judged.host, u->id, state, result, pr.previous, errors, err, sizeof err))
        logmsg("upload %s (%s): cannot record the outcome: %s", u->id, u->name, err);
    else
        logmsg("upload %s (%s): %s%s%s", u->id, u->name, state, result ? " " : "", result ? result : "");
    free(errors);
}

void *validator(void *arg)
{
    (void)arg;
    struct queue_conn k;
    queue_conn_init(&k, judged.redis_url, 5000);
    char err[512];
    int n = 0;
    /* what this host took before it died goes back to the queue */
    while (!atomic_load(&judged.stopping) && store_upload_recover(&k, judged.host, &n, err, sizeof err))
        queue_conn_backoff(&k);
    if (n > 0)
        logmsg("%d upload(s) this host was validating when it stopped: queued again", n);
    while (!atomic_load(&judged.stopping)) {
        struct store_upload u;
        bool got;
        if (store_upload_take(&k, 1, judged.host, &u, &got, err, sizeof err)) {
            queue_conn_backoff(&k);
            continue;
        }
        if (got)
            validate(&k, &u);
        store_upload_free(&u);
    }
    queue_conn_close(&k);
    return NULL;
}
