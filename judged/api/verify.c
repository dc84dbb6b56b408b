/*
 * verify.c - POST /v1/problems/NAME/verify and GET .../verify/ID: `judgectl
 * problem verify NAME` over HTTP. judge-api runs no submission (it links
 * no runner), so it admits each submission the package ships as an
 * job of its language's pool, pinned to the version it read them from
 * (owned by the caller's token), and keeps the ids with what each must
 * earn (store_verify_save, judge:verify:ID); the GET reads their results
 * and gives judgectl's table once all are in.
 * Verification must never cost a contest (issue 40: ten requests filled a
 * pool to max_queue and a contest submission got 503): its jobs have the
 * priority verify (the rejudge lane, taken only when contest and normal
 * work leave a slot; max_queue bounds the lane on its own); one verify of
 * a problem's version runs at a time (a second POST answers the running
 * one: store_verify_claim); DELETE .../verify/ID takes its waiting jobs
 * off the lane.
 * The expectations are read by the store's one reader (store/verify.c).
 * A time limit is not derived here: the stored version's is used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "common.h"
#include "store.h"

static const char *str(json_t *v)
{
    return json_string_value(v) ? json_string_value(v) : "";
}

/* Every pool's published languages as one object: id -> {source, ...}. */
static json_t *languages(struct queue_conn *k, const struct jd_config *cfg)
{
    json_t *all = json_object();
    for (int i = 0; i < cfg->npools; i++) {
        json_t *published = NULL;
        char err[256];
        if (queue_languages(k, cfg->pools[i].name, &published, err, sizeof err) == QUEUE_OK)
            json_object_update_missing(all, published);
        json_decref(published);
    }
    return all;
}

/* Whether a published language is the default for the ending want: its
 * default_for lists it; a host older than default_for published only its
 * source, whose suffix then counts (as it did). */
static bool default_for(json_t *info, const char *want)
{
    json_t *list = json_object_get(info, "default_for"), *e;
    size_t i;
    if (!list) {
        const char *src = json_string_value(json_object_get(info, "source"));
        const char *ext = src ? strrchr(src, '.') : NULL;
        return ext && !strcmp(ext, want);
    }
    json_array_foreach(list, i, e)
        if (json_string_value(e) && !strcmp(json_string_value(e), want))
            return true;
    return false;
}

/* The language of path by its extension, as judgectl's verify finds it:
 * the one the hosts published as the default for it (default_for). */
static const char *language_of(json_t *langs, const char *path)
{
    const char *want = store_source_ending(path), *id;
    json_t *info;
    if (!want)
        return NULL;
    json_object_foreach(langs, id, info)
        if (default_for(info, want))
            return id;
    return NULL;
}

/* Admits one program; its item in the record (submission id, or why not). */
static json_t *admit_one(struct req *r, struct queue_conn *k, json_t *langs, const char *pkg, const char *name,
                         const char *version, const struct store_expected *x)
{
    char path[4400], err[512], note[600] = "", ending[16] = "", why[300];
    size_t len = 0;
    char *source = NULL;
    /* a directory is one submission of several files (its files' ending
     * picks the language, as a file's does) */
    if (x->program_dir && store_program_files(pkg, x->path, (size_t)r->cfg->max_source, &source, &len, ending, why,
                                              sizeof why) < 0)
        snprintf(note, sizeof note, "a program of several files: %.400s", why);
    const char *lang = x->language[0] ? x->language : language_of(langs, x->program_dir ? ending : x->path);
    json_t *item = json_pack("{s:s?, s:o}", "language", lang, "expect", store_expected_json(x));
    const struct jd_pool_cfg *pool = lang ? jd_pool_for_language(r->cfg, lang) : NULL;
    snprintf(path, sizeof path, "%s/%s", pkg, x->path);
    if (!note[0] && !pool)
        snprintf(note, sizeof note, "no pool serves a language for '%.200s'", lang ? lang : x->path);
    else if (!note[0] && !source && !(source = common_read_file(path, (size_t)r->cfg->max_source + 1, &len, NULL)))
        snprintf(note, sizeof note, "cannot read the source");
    if (note[0]) {
        json_object_set_new(item, "note", json_string(note));
        free(source);
        return item;
    }
    struct queue_admit_args args = {.pool = pool->name, .lang = lang, .problem = name, .source = source,
                                    .source_len = len, .priority = "verify", .max_queue = pool->max_queue,
                                    .max_source = r->cfg->max_source, .version = version, .owner = r->tok_name};
    struct queue_admit_reply q;
    enum queue_rc rc = queue_admit(k, &args, &q, err, sizeof err);
    free(source);
    if (rc == QUEUE_OK && q.result == QUEUE_ADMITTED)
        json_object_set_new(item, "submission", json_string(q.id));
    else
        json_object_set_new(item, "note", json_string(rc != QUEUE_OK ? err : q.result == QUEUE_BUSY
                                                                              ? "not admitted: the pool's "
                                                                                "verify lane is full (max_queue)"
                                                                              : "not admitted"));
    return item;
}

/* What the 202 shows of the record: path, language, expected, submission, note. */
static json_t *admitted_view(json_t *items)
{
    json_t *out = json_array(), *it;
    size_t i;
    json_array_foreach(items, i, it) {
        json_t *e = json_object_get(it, "expect");
        json_array_append_new(out, json_pack("{s:O, s:O?, s:O, s:O?, s:O?}", "path", json_object_get(e, "path"),
                                             "language", json_object_get(it, "language"), "expected",
                                             json_object_get(e, "expected"), "submission",
                                             json_object_get(it, "submission"), "note",
                                             json_object_get(it, "note")));
    }
    return out;
}

/* Whether the client that asked has left: the expectations' matching
 * stops then (a POST whose patterns take long is not left running). */
static bool client_left(void *arg)
{
    const struct req *r = arg;
    return api_peer_gone(api_conn_fd(r->conn));
}

/* A verify that has not recorded its submissions yet ("starting") counts
 * as running this long; one that died while starting is then stale. */
#define VERIFY_STARTING_MS (10 * 60 * 1000)

/* The record judge:verify:ID (NULL: none, or unreadable). */
static json_t *load(struct queue_conn *k, const char *id)
{
    char *text = NULL, err[256];
    bool found = false;
    if (!id[0] || store_verify_load(k, id, &text, &found, err, sizeof err) || !found)
        return NULL;
    json_t *rec = json_loads(text, 0, NULL);
    free(text);
    return rec;
}

static int save(struct queue_conn *k, json_t *rec, char *err, size_t errlen)
{
    char *text = json_dumps(rec, JSON_COMPACT);
    int rc = text ? store_verify_save(k, str(json_object_get(rec, "id")), text, err, errlen) : STORE_ERR;
    if (!text)
        snprintf(err, errlen, "out of memory");
    free(text);
    return rc;
}

/* Whether the verify recorded as rec still has a submission to judge. */
static bool running(struct queue_conn *k, json_t *rec)
{
    if (json_is_true(json_object_get(rec, "cancelled")))
        return false;
    if (json_is_true(json_object_get(rec, "starting")))
        return common_wall_ms() - (long long)json_integer_value(json_object_get(rec, "created")) <
               VERIFY_STARTING_MS;
    json_t *item;
    size_t i;
    json_array_foreach(json_object_get(rec, "items"), i, item) {
        const char *sub = json_string_value(json_object_get(item, "submission"));
        struct queue_result q;
        bool found = false;
        char err[256];
        if (!sub || queue_result(k, sub, &q, &found, err, sizeof err) != QUEUE_OK || !found)
            continue;
        bool done = !strcmp(q.state, "done");
        queue_result_free(&q);
        if (!done)
            return true;
    }
    return false;
}

/* Makes id (recorded as starting) the one running verify of name's
 * version: 0, or 1 when another one runs (*other: its record), or -1 with
 * a 503 queued. */
static int claim(struct req *r, struct queue_conn *k, const char *name, const char *version, const char *id,
                 json_t **other, enum MHD_Result *ret)
{
    char holder[33], expected[33] = "", err[512];
    for (int tries = 0; tries < 4; tries++) {
        if (store_verify_claim(k, name, version, id, expected, holder, err, sizeof err)) {
            *ret = api_error_retry(r, 503, 1, "the problem store is unavailable: %s", err);
            return -1;
        }
        if (!strcmp(holder, id))
            return 0;
        json_t *rec = load(k, holder);
        if (rec && running(k, rec)) {
            *other = rec;
            return 1;
        }
        json_decref(rec);
        snprintf(expected, sizeof expected, "%s", holder);   /* finished, cancelled or stale: replace it */
    }
    *ret = api_error_retry(r, 503, 1, "verifies of '%.200s' are starting at the same time: retry", name);
    return -1;
}

/* The running verify a second POST gets: 200, its id and submissions. */
static enum MHD_Result running_reply(struct req *r, json_t *rec)
{
    char loc[300];
    snprintf(loc, sizeof loc, "/v1/problems/%s/verify/%s", str(json_object_get(rec, "problem")),
             str(json_object_get(rec, "id")));
    json_t *body = json_pack("{s:O, s:O, s:O, s:b, s:o}", "id", json_object_get(rec, "id"), "problem",
                             json_object_get(rec, "problem"), "version", json_object_get(rec, "version"),
                             "running", 1, "submissions", admitted_view(json_object_get(rec, "items")));
    json_decref(rec);
    return api_json_h(r, 200, body, "Location", loc, NULL);
}

/* Fetches NAME's current version into work/pkg and admits its submissions. */
static enum MHD_Result start(struct req *r, struct queue_conn *k, const char *name, const char *work)
{
    char version[65], err[1024], staging[200], pkg[200], id[33];
    bool found = false;
    int rc = store_current(k, name, version, &found, err, sizeof err);
    if (rc)
        return api_error_retry(r, 503, 1, "the problem store is unavailable: %s", err);
    if (!found)
        return api_error(r, 404, NULL, "no problem '%.200s' in the store", name);
    snprintf(staging, sizeof staging, "%s/fetch", work);
    snprintf(pkg, sizeof pkg, "%s/pkg", work);
    if ((rc = store_fetch(k, version, staging, pkg, NULL, err, sizeof err)))
        return api_error_retry(r, 503, 1, "the problem store is unavailable: %s", err);
    struct store_expected *xs;
    size_t n;
    char *errors = NULL;
    int bad = store_expected_results_until(pkg, client_left, r, &xs, &n, &errors);
    if (bad || n == 0) {
        json_t *lines = json_array();
        for (char *l = errors, *next; l && *l; l = next) {
            next = strchr(l, '\n');
            json_array_append_new(lines, json_stringn(l, next ? (size_t)(next - l) : strlen(l)));
            next = next ? next + 1 : l + strlen(l);
        }
        free(errors);
        store_expected_free(xs, n);
        json_t *body = json_pack("{s:s, s:o}", "error",
                                 bad ? "the package's expectations of its submissions are bad"
                                     : "the package ships no submissions (submissions/<verdict>/...)",
                                 "errors", lines);
        return api_json(r, 422, body);
    }
    free(errors);
    /* recorded as starting before it is claimed: a second POST meanwhile
     * finds it running, not missing */
    store_random_hex(id, 16);
    json_t *record = json_pack("{s:s, s:s, s:s, s:I, s:[], s:b}", "id", id, "problem", name, "version", version,
                               "created", (json_int_t)common_wall_ms(), "items", "starting", 1);
    json_t *other = NULL;
    enum MHD_Result ret = MHD_NO;
    int claimed = save(k, record, err, sizeof err) ? -2 : claim(r, k, name, version, id, &other, &ret);
    if (claimed) {
        store_expected_free(xs, n);
        json_decref(record);
        if (claimed == -2)
            return api_error_retry(r, 503, 1, "the verify could not be recorded: %s", err);
        return claimed == 1 ? running_reply(r, other) : ret;
    }
    json_t *langs = languages(k, r->cfg), *items = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(items, admit_one(r, k, langs, pkg, name, version, &xs[i]));
    json_decref(langs);
    store_expected_free(xs, n);
    json_object_set(record, "items", items);
    json_object_del(record, "starting");
    rc = save(k, record, err, sizeof err);
    json_decref(record);
    if (rc) {
        json_decref(items);
        return api_error_retry(r, 503, 1, "the verify could not be recorded: %s", err);
    }
    char loc[300];
    snprintf(loc, sizeof loc, "/v1/problems/%s/verify/%s", name, id);
    json_t *body = json_pack("{s:s, s:s, s:s, s:o}", "id", id, "problem", name, "version", version, "submissions",
                             admitted_view(items));
    json_decref(items);
    return api_json_h(r, 202, body, "Location", loc, NULL);
}

enum MHD_Result api_problem_verify(struct req *r, const char *name)
{
    char work[] = "/tmp/judge-api-verify-XXXXXX";
    if (!queue_valid_name(name))
        return api_error(r, 404, NULL, "no problem '%.200s' in the store", name);
    if (!mkdtemp(work))
        return api_error(r, 500, NULL, "a temporary directory: %s", strerror(errno));
    struct queue_conn *k = api_conn_get(r->api);
    enum MHD_Result ret = start(r, k, name, work);
    api_conn_put(r->api, k);
    store_remove_tree(work);
    return ret;
}

/* One item of the record as a row of the table; *pending when its
 * verdict is not in yet. */
static json_t *row_of(struct queue_conn *k, json_t *item, bool cancelled, bool *pending)
{
    struct store_expected x;
    struct store_verify_outcome o = {0};
    const char *sub = json_string_value(json_object_get(item, "submission"));
    const char *lang = json_string_value(json_object_get(item, "language"));
    if (store_expected_from_json(json_object_get(item, "expect"), &x))
        return NULL;
    snprintf(o.note, sizeof o.note, "%s", str(json_object_get(item, "note")));
    struct queue_result q;
    bool found = false;
    char err[256];
    if (sub && queue_result(k, sub, &q, &found, err, sizeof err) == QUEUE_OK && found) {
        if (!strcmp(q.state, "done") && q.report)
            store_verify_read_report(q.report, &o);
        else if (!strcmp(q.state, "done"))
            snprintf(o.note, sizeof o.note, "no report (%s)", q.dead ? "dead-lettered" : q.verdict);
        else
            *pending = true;
        queue_result_free(&q);
    } else if (sub && cancelled) {
        snprintf(o.note, sizeof o.note, "cancelled before it was judged");
    } else if (sub) {
        snprintf(o.note, sizeof o.note, "submission %.200s: no result (expired?)", sub);
    }
    json_t *row = store_verify_row(&x, lang, &o);
    json_object_set_new(row, "submission", sub ? json_string(sub) : json_null());
    store_verify_outcome_free(&o);
    store_expected_release(&x);
    return row;
}

/* The record of verify id of problem name: 0, or -1 with a 404 or 503
 * queued (k is then given back). */
static int find(struct req *r, struct queue_conn *k, const char *name, const char *id, json_t **out,
                enum MHD_Result *ret)
{
    char *text = NULL, err[512];
    bool found = false;
    *out = NULL;
    if (strlen(id) != 32 || strspn(id, "0123456789abcdef") != 32) {
        api_conn_put(r->api, k);
        *ret = api_error(r, 404, NULL, "no verify '%.100s' of problem '%.200s'", id, name);
        return -1;
    }
    int rc = store_verify_load(k, id, &text, &found, err, sizeof err);
    json_t *rec = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    if (rc || !found || !rec || strcmp(str(json_object_get(rec, "problem")), name)) {
        api_conn_put(r->api, k);
        json_decref(rec);
        *ret = rc ? api_error_retry(r, 503, 1, "the problem store is unavailable: %s", err)
                  : api_error(r, 404, NULL, "no verify '%.100s' of problem '%.200s' (unknown, or expired)", id,
                              name);
        return -1;
    }
    *out = rec;
    return 0;
}

enum MHD_Result api_problem_verify_cancel(struct req *r, const char *name, const char *id)
{
    struct queue_conn *k = api_conn_get(r->api);
    json_t *rec;
    enum MHD_Result ret;
    if (find(r, k, name, id, &rec, &ret))
        return ret;
    json_t *item;
    size_t i;
    int cancelled = 0, left = 0;
    char result[32], err[512];
    json_array_foreach(json_object_get(rec, "items"), i, item) {
        const char *sub = json_string_value(json_object_get(item, "submission"));
        if (!sub)
            continue;
        if (queue_cancel(k, sub, result, sizeof result, err, sizeof err) == QUEUE_IO) {
            api_conn_put(r->api, k);
            json_decref(rec);
            return api_error_retry(r, 503, 1, "the queue is unavailable: %s", err);
        }
        cancelled += !strcmp(result, "cancelled");
        left += !strcmp(result, "running");
    }
    /* a new POST may start over at once: running() is false from now */
    json_object_set_new(rec, "cancelled", json_true());
    int rc = save(k, rec, err, sizeof err);
    api_conn_put(r->api, k);
    json_t *body = json_pack("{s:O, s:O, s:O, s:i, s:i}", "id", json_object_get(rec, "id"), "problem",
                             json_object_get(rec, "problem"), "version", json_object_get(rec, "version"),
                             "cancelled", cancelled, "running", left);
    json_decref(rec);
    if (rc) {
        json_decref(body);
        return api_error_retry(r, 503, 1, "the verify could not be recorded: %s", err);
    }
    return api_json(r, 200, body);
}

enum MHD_Result api_problem_verify_get(struct req *r, const char *name, const char *id)
{
    struct queue_conn *k = api_conn_get(r->api);
    json_t *rec;
    enum MHD_Result ret;
    if (find(r, k, name, id, &rec, &ret))
        return ret;
    json_t *rows = json_array(), *item;
    size_t i;
    bool cancelled = json_is_true(json_object_get(rec, "cancelled"));
    bool pending = json_is_true(json_object_get(rec, "starting"));
    int mismatches = 0, not_judged = 0;
    json_array_foreach(json_object_get(rec, "items"), i, item) {
        bool p = false;
        json_t *row = row_of(k, item, cancelled, &p);
        if (!row)
            continue;
        pending = pending || p;
        bool judged = json_is_true(json_object_get(row, "judged"));
        not_judged += !judged && !p;
        mismatches += judged && !json_is_true(json_object_get(row, "ok"));
        json_array_append_new(rows, row);
    }
    api_conn_put(r->api, k);
    json_t *body = json_pack("{s:s, s:s, s:O, s:s, s:o, s:i, s:i, s:o}", "id", id, "problem", name, "version",
                             json_object_get(rec, "version"), "state",
                             cancelled ? "cancelled" : pending ? "judging" : "done", "ok",
                             pending || cancelled ? json_null() : json_boolean(mismatches == 0), "mismatches", mismatches,
                             "not_judged", not_judged, "submissions", rows);
    json_decref(rec);
    return api_json(r, 200, body);
}
