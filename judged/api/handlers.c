/* handlers.c - submissions: admission (POST /v1/submissions, through the
 * queue library's queue_admit, the same function as `judgectl submit`) and
 * results (GET /v1/submissions/ID, with an optional long-poll). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api.h"
#include "common.h"

#define MAX_WAIT_S 30
#define MAX_METADATA 4096

/* ------------------------------------------------------------- admission */

static bool is_dir(const char *dir, const char *name)
{
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* What judgectl submit checks too: a pool serves the language and its file
 * LANGUAGES/ID.yaml exists (a language's id is its file name). */
static const struct jd_pool_cfg *language_pool(const struct jd_config *cfg, const char *lang)
{
    char path[4400];
    struct stat st;
    const struct jd_pool_cfg *p = jd_pool_for_language(cfg, lang);
    snprintf(path, sizeof path, "%s/%s.yaml", cfg->languages, lang);
    return p && queue_valid_name(lang) && stat(path, &st) == 0 && S_ISREG(st.st_mode) ? p : NULL;
}

static bool valid_key(const char *k)
{
    size_t n = strlen(k);
    if (n < 1 || n > 128)
        return false;
    for (; *k; k++)
        if (*k < 0x21 || *k > 0x7e)
            return false;
    return true;
}

static enum MHD_Result reject(struct req *r, const char *field, const char *fmt, const char *arg)
{
    atomic_fetch_add(&r->api->admissions[ADMIT_REJECTED], 1);
    return api_error(r, 400, field, fmt, arg);
}

static const char *const known_fields[] = {"problem", "language", "source", "priority",
                                           "callback_url", "metadata", NULL};

/* The body's checks, each error naming its field; NULL when all is well. */
static enum MHD_Result check_body(struct req *r, json_t *b, const struct jd_pool_cfg **pool,
                                  bool *bad)
{
    const struct jd_config *cfg = &r->api->cfg;
    *bad = true;
    const char *k;
    json_t *v;
    json_object_foreach(b, k, v)
    {
        bool known = false;
        for (int i = 0; known_fields[i]; i++)
            known |= !strcmp(k, known_fields[i]);
        if (!known)
            return reject(r, k, "unknown field '%s' (expected problem, language, source, priority, "
                                "callback_url, metadata)", k);
    }
    const char *problem = json_string_value(json_object_get(b, "problem"));
    const char *lang = json_string_value(json_object_get(b, "language"));
    json_t *src = json_object_get(b, "source");
    json_t *pr = json_object_get(b, "priority");
    json_t *cb = json_object_get(b, "callback_url");
    if (!problem)
        return reject(r, "problem", "missing or not a string%s", "");
    if (!queue_valid_name(problem) || !is_dir(cfg->problems, problem))
        return reject(r, "problem", "unknown problem '%.200s'", problem);
    if (!lang)
        return reject(r, "language", "missing or not a string%s", "");
    if (!(*pool = language_pool(cfg, lang)))
        return reject(r, "language", "unknown language '%.200s' (GET /v1/languages lists them)", lang);
    if (!json_is_string(src))
        return reject(r, "source", "missing or not a string%s", "");
    if (json_string_length(src) == 0)
        return reject(r, "source", "empty source%s", "");
    if ((long)json_string_length(src) > cfg->max_source) {
        char lim[64];
        snprintf(lim, sizeof lim, "%ld", cfg->max_source);
        return reject(r, "source", "source is larger than max_source (%s bytes)", lim);
    }
    if (pr && (!json_is_string(pr) ||
               (strcmp(json_string_value(pr), "contest") && strcmp(json_string_value(pr), "normal"))))
        return reject(r, "priority", "priority must be \"contest\" or \"normal\"%s", "");
    if (cb && (!json_is_string(cb) || json_string_length(cb) > 2000 ||
               (strncmp(json_string_value(cb), "http://", 7) &&
                strncmp(json_string_value(cb), "https://", 8))))
        return reject(r, "callback_url", "callback_url must be an http:// or https:// URL%s", "");
    *bad = false;
    return MHD_YES;
}

enum MHD_Result api_submit(struct req *r)
{
    struct api *a = r->api;
    json_error_t je;
    json_t *b = r->body ? json_loadb(r->body, r->len, JSON_ALLOW_NUL, &je) : NULL;
    if (!json_is_object(b)) {
        json_decref(b);
        return reject(r, "body", "expected a JSON object {problem, language, source, ...}%s", "");
    }
    const struct jd_pool_cfg *pool = NULL;
    bool bad;
    enum MHD_Result ret = check_body(r, b, &pool, &bad);
    if (bad) {
        json_decref(b);
        return ret;
    }
    const char *key = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Idempotency-Key");
    if (key && !valid_key(key)) {
        json_decref(b);
        return reject(r, "Idempotency-Key", "Idempotency-Key must be 1 to 128 printable ASCII "
                                            "characters%s", "");
    }
    char *metadata = NULL;
    json_t *md = json_object_get(b, "metadata");
    if (md && (!(metadata = json_dumps(md, JSON_COMPACT | JSON_ENCODE_ANY)) ||
               strlen(metadata) > MAX_METADATA)) {
        free(metadata);
        json_decref(b);
        return reject(r, "metadata", "metadata must be JSON of at most 4096 bytes%s", "");
    }
    /* keys are per token (two platforms may both use "42"); the request's
     * hash tells a retry from a different request under the same key */
    char scoped[200], hash[65];
    if (key)
        snprintf(scoped, sizeof scoped, "%s:%s", r->tok_name, key);
    api_sha256_hex(r->body, r->len, hash);
    json_t *src = json_object_get(b, "source");
    json_t *pr = json_object_get(b, "priority");
    struct queue_admit_args args = {
        .pool = pool->name,
        .lang = json_string_value(json_object_get(b, "language")),
        .problem = json_string_value(json_object_get(b, "problem")),
        .source = json_string_value(src),
        .source_len = json_string_length(src),
        .key = key ? scoped : NULL,
        .priority = pr ? json_string_value(pr) : "normal",
        .max_queue = pool->max_queue,
        .max_source = a->cfg.max_source,
        .owner = r->tok_name,
        .hash = hash,
        .callback = json_string_value(json_object_get(b, "callback_url")),
        .metadata = metadata,
    };
    struct queue_admit_reply out;
    char err[512];
    struct queue_conn *k = api_conn_get(a);
    enum queue_rc rc = queue_admit(k, &args, &out, err, sizeof err);
    api_conn_put(a, k);
    free(metadata);
    json_decref(b);
    if (rc == QUEUE_IO)
        return api_error_retry(r, 503, 1, "the queue is unavailable: %s", err);
    if (rc != QUEUE_OK)
        return api_error(r, 500, NULL, "admission failed: %s", err);
    char loc[256];
    snprintf(loc, sizeof loc, "/v1/submissions/%s", out.id);
    switch (out.result) {
    case QUEUE_ADMITTED:
        atomic_fetch_add(&a->admissions[ADMIT_ACCEPTED], 1);
        return api_json_h(r, 202, json_pack("{s:s, s:s}", "id", out.id, "state", "queued"),
                          "Location", loc, NULL);
    case QUEUE_DUPLICATE:
        atomic_fetch_add(&a->admissions[ADMIT_DUPLICATE], 1);
        return api_json_h(r, 200, json_pack("{s:s, s:s, s:b}", "id", out.id, "state", "queued",
                                             "duplicate", 1),
                          "Location", loc, NULL);
    case QUEUE_CONFLICT:
        atomic_fetch_add(&a->admissions[ADMIT_REJECTED], 1);
        return api_error(r, 422, "Idempotency-Key",
                         "Idempotency-Key '%s' was already used with a different request body "
                         "(submission %s)", key, out.id);
    case QUEUE_BUSY:
    default:
        atomic_fetch_add(&a->admissions[ADMIT_BUSY], 1);
        return api_error_retry(r, 503, out.waiting / 1000 + 1,
                               "pool '%s' is full: %lld submissions waiting (max_queue %ld)",
                               pool->name, out.waiting, pool->max_queue);
    }
}

/* ----------------------------------------------------------------- results */

/* The results stream's last entry id ("0-0" when empty): a long-poll waits
 * for events after it, so a verdict published between this read and the
 * state check is not missed. */
static void results_tail(struct queue_conn *k, const char *pool, char last[64])
{
    char key[200];
    queue_key(key, sizeof key, pool, "results");
    snprintf(last, 64, "0-0");
    redisReply *x = queue_cmd(k, "XREVRANGE %s + - COUNT 1", key);
    if (x && x->type == REDIS_REPLY_ARRAY && x->elements == 1)
        snprintf(last, 64, "%s", x->element[0]->element[0]->str);
    if (x)
        freeReplyObject(x);
}

/* Blocks up to ms for an event of id after last; true when one came. */
static bool wait_event(struct api *a, struct queue_conn *k, const char *pool, const char *id,
                       char last[64], long long deadline)
{
    const char *pools[1] = {pool};
    char(*cursor)[64] = (char(*)[64])last;
    while (!atomic_load(&a->stopping)) {
        long long left = deadline - common_wall_ms();
        if (left <= 0)
            return false;
        struct queue_event *ev;
        int n;
        bool more;
        char err[256];
        enum queue_rc rc = queue_events(k, pools, 1, cursor, 100, left > 1000 ? 1000 : left, &ev, &n,
                                        &more, err, sizeof err);
        if (rc != QUEUE_OK) {
            free(ev);
            return false;
        }
        bool hit = false;
        for (int i = 0; i < n; i++)
            hit |= !strcmp(ev[i].id, id);
        free(ev);
        if (hit)
            return true;
    }
    return false;
}

enum MHD_Result api_get_submission(struct req *r, const char *id)
{
    struct api *a = r->api;
    char pool[80];
    if (!queue_id_pool(id, pool, sizeof pool) || !jd_pool_by_name(&a->cfg, pool))
        return api_error(r, 404, NULL, "no submission '%.200s'", id);
    double wait = 0;
    const char *w = api_arg(r, "wait");
    if (w) {
        char *end;
        wait = strtod(w, &end);
        if (!*w || *end || !(wait >= 0 && wait <= MAX_WAIT_S))
            return api_error(r, 400, "wait", "wait must be a number of seconds from 0 to %d", MAX_WAIT_S);
    }
    long long deadline = common_wall_ms() + (long long)(wait * 1000);
    struct queue_conn *k = api_conn_get(a);
    char last[64] = "0-0", err[512];
    if (wait > 0)
        results_tail(k, pool, last);
    struct queue_result q;
    bool found;
    enum queue_rc rc;
    for (;;) {
        rc = queue_result(k, id, &q, &found, err, sizeof err);
        if (rc != QUEUE_OK || !found || !strcmp(q.state, "done") || wait <= 0)
            break;
        if (!api_has_role(r, ROLE_READ) && strcmp(q.owner, r->tok_name))
            break;   /* not the caller's: answered (403) at once, not after the wait */
        if (!wait_event(a, k, pool, id, last, deadline)) {
            queue_result_free(&q);
            rc = queue_result(k, id, &q, &found, err, sizeof err);
            break;
        }
        queue_result_free(&q);
    }
    api_conn_put(a, k);
    if (rc == QUEUE_IO)
        return api_error_retry(r, 503, 1, "the queue is unavailable: %s", err);
    if (rc != QUEUE_OK)
        return api_error(r, 500, NULL, "%s", err);
    if (!found)
        return api_error(r, 404, NULL, "no submission '%.200s'", id);
    /* a submitter reads only what it submitted (read and admin read all) */
    if (!api_has_role(r, ROLE_READ) && strcmp(q.owner, r->tok_name)) {
        queue_result_free(&q);
        return api_error(r, 403, NULL, "submission %s belongs to another token", id);
    }
    json_t *o = jd_result_json(id, &q);   /* result.c: judgectl prints the same */
    queue_result_free(&q);
    return api_json(r, 200, o);
}
