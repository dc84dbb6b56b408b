/* handlers.c - submissions: admission (POST /v1/submissions, through the
 * queue library's queue_admit, the same function as `judgectl submit`) and
 * results (GET /v1/submissions/ID, with an optional long-poll). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api.h"
#include "fileset.h"
#include "store.h"
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

/* A problem the store holds (it is judged with the current version,
 * recorded at admission), as judgectl submit accepts it. */
static bool in_store(void *arg, const char *name)
{
    struct api *a = arg;
    struct queue_conn *k = api_conn_get(a);
    char v[65], err[256];
    bool found = false;
    store_current(k, name, v, &found, err, sizeof err);
    api_conn_put(a, k);
    return found;
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

static const char *const known_fields[] = {"problem", "language", "source", "files", "priority",
                                           "callback_url", "metadata", NULL};

/* -1 with the field and the message set (the message formatted like
 * printf); for api_submission_parse's checks */
static int bad(char *field, size_t fieldlen, const char *name, char *msg, size_t msglen,
               const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int bad(char *field, size_t fieldlen, const char *name, char *msg, size_t msglen,
               const char *fmt, ...)
{
    va_list ap;
    snprintf(field, fieldlen, "%s", name);
    va_start(ap, fmt);
    vsnprintf(msg, msglen, fmt, ap);
    va_end(ap);
    common_utf8_repair(field);   /* both may end inside a character the client sent */
    common_utf8_repair(msg);
    return -1;
}

/* A string field's value, or NULL when it is not a string or holds a NUL:
 * bodies are read with JSON_ALLOW_NUL for the sake of sources, and a name
 * or URL cut at a NUL would silently be another one ("aplusb\u0000x"). */
static const char *text(json_t *v)
{
    const char *s = json_string_value(v);
    return s && strlen(s) == json_string_length(v) ? s : NULL;
}

/* `files`: [{name, content}, ...] packed into one source (fileset.h),
 * each name checked there; the packed size within max_source */
static int pack_files(struct api_submission *s, json_t *files, const struct jd_config *cfg, char *field,
                      size_t fieldlen, char *msg, size_t msglen)
{
    if (!json_is_array(files) || json_array_size(files) == 0)
        return bad(field, fieldlen, "files", msg, msglen, "must be a non-empty array of {name, content}");
    struct fileset fs = {0};
    char why[300], at[40];
    size_t i;
    json_t *f;
    int rc = 0;
    json_array_foreach(files, i, f)
    {
        const char *name = text(json_object_get(f, "name"));
        json_t *content = json_object_get(f, "content");
        snprintf(at, sizeof at, "files[%zu]", i);
        if (!json_is_object(f) || json_object_size(f) != 2 || !name || !json_is_string(content))
            rc = bad(field, fieldlen, at, msg, msglen, "must be an object {name, content} of two strings "
                     "(name without NUL)");
        else if (fileset_add(&fs, name, json_string_value(content), json_string_length(content), why,
                             sizeof why) < 0)
            rc = bad(field, fieldlen, at, msg, msglen, "%s", why);
        if (rc < 0)
            break;
    }
    size_t len = 0;
    if (rc == 0 && fileset_pack(&fs, &s->packed, &len, why, sizeof why) < 0)
        rc = bad(field, fieldlen, "files", msg, msglen, "%s", why);
    fileset_free(&fs);
    if (rc == 0 && (long)len > cfg->max_source)
        rc = bad(field, fieldlen, "files", msg, msglen, "the files packed are larger than max_source (%ld "
                 "bytes)", cfg->max_source);
    s->source = s->packed;
    s->source_len = len;
    return rc;
}

/* source (one file) or files (several), not both */
static int check_source(struct api_submission *s, json_t *src, json_t *files, const struct jd_config *cfg,
                        char *field, size_t fieldlen, char *msg, size_t msglen)
{
    if (src && files)
        return bad(field, fieldlen, "files", msg, msglen, "give source (one file) or files, not both");
    if (files)
        return pack_files(s, files, cfg, field, fieldlen, msg, msglen);
    if (!json_is_string(src))
        return bad(field, fieldlen, "source", msg, msglen, "missing or not a string (or give files)");
    if (json_string_length(src) == 0)
        return bad(field, fieldlen, "source", msg, msglen, "empty source");
    if ((long)json_string_length(src) > cfg->max_source)
        return bad(field, fieldlen, "source", msg, msglen,
                   "source is larger than max_source (%ld bytes)", cfg->max_source);
    /* what the runner would read as several files: never one file */
    if (fileset_is(json_string_value(src), json_string_length(src)))
        return bad(field, fieldlen, "source", msg, msglen, "begins with a file set's mark (a NUL byte, "
                   "then judged-files/1): send several files as files");
    s->source = json_string_value(src);
    s->source_len = json_string_length(src);
    return 0;
}

/* The body's checks, in this order, each failure naming its field. */
static int check_body(struct api_submission *s, const char *also, const struct jd_config *cfg,
                      bool (*problem_in_store)(void *, const char *), void *arg, char *field,
                      size_t fieldlen, char *msg, size_t msglen)
{
    json_t *b = s->json;
    const char *k;
    json_t *v;
    json_object_foreach(b, k, v)
    {
        bool known = also && !strcmp(k, also);
        for (int i = 0; known_fields[i]; i++)
            known |= !strcmp(k, known_fields[i]);
        if (!known)   /* a field named "" cannot be named: the body is at fault */
            return bad(field, fieldlen, *k ? k : "body", msg, msglen,
                       "unknown field '%.200s' (expected problem, language, source or files, "
                       "priority, callback_url, metadata)", k);
    }
    const char *problem = text(json_object_get(b, "problem"));
    const char *lang = text(json_object_get(b, "language"));
    json_t *src = json_object_get(b, "source");
    json_t *pr = json_object_get(b, "priority");
    json_t *cb = json_object_get(b, "callback_url");
    json_t *md = json_object_get(b, "metadata");
    if (!problem)
        return bad(field, fieldlen, "problem", msg, msglen, "missing or not a string (without NUL)");
    if (!queue_valid_name(problem) ||
        (!is_dir(cfg->problems, problem) && !(problem_in_store && problem_in_store(arg, problem))))
        return bad(field, fieldlen, "problem", msg, msglen, "unknown problem '%.200s'", problem);
    if (!lang)
        return bad(field, fieldlen, "language", msg, msglen, "missing or not a string (without NUL)");
    if (!(s->pool = language_pool(cfg, lang)))
        return bad(field, fieldlen, "language", msg, msglen,
                   "unknown language '%.200s' (GET /v1/languages lists them)", lang);
    if (check_source(s, src, json_object_get(b, "files"), cfg, field, fieldlen, msg, msglen) < 0)
        return -1;
    if (pr && (!text(pr) || (strcmp(text(pr), "contest") && strcmp(text(pr), "normal"))))
        return bad(field, fieldlen, "priority", msg, msglen,
                   "priority must be \"contest\" or \"normal\"");
    if (cb && (!text(cb) || json_string_length(cb) > 2000 ||
               (strncmp(text(cb), "http://", 7) && strncmp(text(cb), "https://", 8))))
        return bad(field, fieldlen, "callback_url", msg, msglen,
                   "callback_url must be an http:// or https:// URL");
    if (md && (!(s->metadata = json_dumps(md, JSON_COMPACT | JSON_ENCODE_ANY)) ||
               strlen(s->metadata) > MAX_METADATA))
        return bad(field, fieldlen, "metadata", msg, msglen,
                   "metadata must be JSON of at most %d bytes", MAX_METADATA);
    s->problem = problem;
    s->language = lang;
    s->priority = pr ? json_string_value(pr) : "normal";
    s->callback = json_string_value(cb);
    return 0;
}

int api_submission_parse(struct api_submission *s, const char *body, size_t len,
                         const struct jd_config *cfg,
                         bool (*problem_in_store)(void *arg, const char *name), void *arg,
                         char *field, size_t fieldlen, char *msg, size_t msglen)
{
    memset(s, 0, sizeof *s);
    json_error_t je;
    s->json = body ? json_loadb(body, len, JSON_ALLOW_NUL, &je) : NULL;
    if (!json_is_object(s->json))
        return bad(field, fieldlen, "body", msg, msglen,
                   "expected a JSON object {problem, language, source, ...}");
    return check_body(s, NULL, cfg, problem_in_store, arg, field, fieldlen, msg, msglen);
}

int api_submission_check(struct api_submission *s, json_t *item, const char *also, const struct jd_config *cfg,
                         bool (*problem_in_store)(void *arg, const char *name), void *arg, char *field,
                         size_t fieldlen, char *msg, size_t msglen)
{
    memset(s, 0, sizeof *s);
    s->json = json_incref(item);
    if (!json_is_object(item))
        return bad(field, fieldlen, "submissions", msg, msglen,
                   "each submission must be a JSON object {problem, language, source, ...}");
    return check_body(s, also, cfg, problem_in_store, arg, field, fieldlen, msg, msglen);
}

void api_submission_free(struct api_submission *s)
{
    free(s->metadata);
    free(s->packed);
    json_decref(s->json);
    memset(s, 0, sizeof *s);
}

/* What one admission answered: the HTTP status, its JSON body, and for a
 * 503 the seconds to wait. The same for POST /v1/submissions (the
 * answer) and each item of a batch (one element of its answer). */
struct admission {
    unsigned status;
    json_t *body;
    long retry_after;
};

static void outcome(struct admission *o, unsigned status, json_t *body, long retry_after)
{
    o->status = status;
    o->body = body;
    o->retry_after = retry_after;
}

static void refused(struct api *a, struct admission *o, unsigned status, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void refused(struct api *a, struct admission *o, unsigned status, const char *field, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (status == 400 || status == 422)
        atomic_fetch_add(&a->admissions[ADMIT_REJECTED], 1);
    outcome(o, status, json_pack("{s:s, s:s*}", "error", msg, "field", field), 0);
}

/* What queue_admit answered (OK), counted per outcome. */
static void admitted(struct req *r, struct admission *o, const struct queue_admit_reply *q, const char *key,
                     const struct jd_pool_cfg *pool)
{
    struct api *a = r->api;
    switch (q->result) {
    case QUEUE_ADMITTED:
        atomic_fetch_add(&a->admissions[ADMIT_ACCEPTED], 1);
        outcome(o, 202, json_pack("{s:s, s:s}", "id", q->id, "state", "queued"), 0);
        return;
    case QUEUE_DUPLICATE:
        atomic_fetch_add(&a->admissions[ADMIT_DUPLICATE], 1);
        outcome(o, 200, json_pack("{s:s, s:s, s:b}", "id", q->id, "state", "queued", "duplicate", 1), 0);
        return;
    case QUEUE_CONFLICT:
        refused(a, o, 422, "Idempotency-Key",
                "Idempotency-Key '%s' was already used with a different request body (submission %s)", key, q->id);
        return;
    case QUEUE_NOT_DURABLE:
        /* written on the primary, confirmed by no replica in time: a
         * failover now could lose it, so it is not acknowledged; the retry
         * (the same Idempotency-Key) is a duplicate, or admits anew on a
         * primary that lost it */
        atomic_fetch_add(&a->admissions[ADMIT_NOT_DURABLE], 1);
        refused(a, o, 503, NULL,
                "not durable, retry: submission %s reached the primary but no replica confirmed it within %ld ms "
                "(admission_durability: replicated); retry with the same Idempotency-Key",
                q->id, r->cfg->admission_wait_ms);
        o->retry_after = 1;
        return;
    case QUEUE_BUSY:
    default:
        atomic_fetch_add(&a->admissions[ADMIT_BUSY], 1);
        refused(a, o, 503, NULL, "pool '%s' is full: %lld submissions waiting (max_queue %ld)", pool->name,
                q->waiting, pool->max_queue);
        o->retry_after = q->waiting / 1000 + 1;
        return;
    }
}

/* One admission of a checked submission s: its callback, its key (per
 * token: two platforms may both use "42"), then queue_admit. hash tells a
 * retry from a different request under the same key. */
static void admit(struct req *r, struct api_submission *s, const char *key, const char *hash, struct admission *o)
{
    struct api *a = r->api;
    char msg[512];
    /* a callback no delivery could reach is refused now, not dead-lettered
     * in silence after the verdict */
    if (s->callback && api_callback_refused(a, s->callback, msg, sizeof msg)) {
        refused(a, o, 400, "callback_url", "%s", msg);
        return;
    }
    if (key && !valid_key(key)) {
        refused(a, o, 400, "Idempotency-Key", "Idempotency-Key must be 1 to 128 printable ASCII characters");
        return;
    }
    char scoped[200];
    if (key)
        snprintf(scoped, sizeof scoped, "%s:%s", r->tok_name, key);
    struct queue_admit_args args = {
        .pool = s->pool->name,
        .lang = s->language,
        .problem = s->problem,
        .source = s->source,
        .source_len = s->source_len,
        .key = key ? scoped : NULL,
        .priority = s->priority,
        .max_queue = s->pool->max_queue,
        .max_source = r->cfg->max_source,
        .owner = r->tok_name,
        .hash = hash,
        .callback = s->callback,
        .metadata = s->metadata,
        .replicas = r->cfg->admission_durability == JD_DURABLE_REPLICATED ? 1 : 0,
        .wait_ms = r->cfg->admission_wait_ms,
    };
    struct queue_admit_reply q;
    char err[512], version[65];
    struct queue_conn *k = api_conn_get(a);
    enum queue_rc rc = QUEUE_OK;
    if (r->cfg->redis && queue_url_is_cluster(r->cfg->redis)) {
        /* the store's keys are in other slots than the pool's: judged_admit
         * may not read the current version there, so it is read first */
        bool stored;
        rc = store_current(k, s->problem, version, &stored, err, sizeof err);
        args.version = version;   /* '': not in the store, the hosts' directories */
    }
    if (rc == QUEUE_OK)
        rc = queue_admit(k, &args, &q, err, sizeof err);
    api_conn_put(a, k);
    if (rc == QUEUE_IO) {
        refused(a, o, 503, NULL, "the queue is unavailable: %s", err);
        o->retry_after = 1;
    } else if (rc != QUEUE_OK) {
        refused(a, o, 500, NULL, "admission failed: %s", err);
    } else {
        admitted(r, o, &q, key, s->pool);
    }
}

enum MHD_Result api_submit(struct req *r)
{
    struct api_submission s;
    struct admission o;
    char field[256], msg[512];
    if (api_submission_parse(&s, r->body, r->len, r->cfg, in_store, r->api, field, sizeof field, msg,
                             sizeof msg)) {
        refused(r->api, &o, 400, field, "%s", msg);
    } else {
        char hash[65];
        api_sha256_hex(r->body, r->len, hash);
        admit(r, &s, MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Idempotency-Key"), hash, &o);
    }
    api_submission_free(&s);
    const char *id = json_string_value(json_object_get(o.body, "id"));
    char loc[256], ra[32];
    snprintf(loc, sizeof loc, "/v1/submissions/%s", id ? id : "");
    snprintf(ra, sizeof ra, "%ld", o.retry_after);
    if (id)
        return api_json_h(r, o.status, o.body, "Location", loc, NULL);
    if (o.retry_after > 0)
        return api_json_h(r, o.status, o.body, "Retry-After", ra, NULL);
    return api_json(r, o.status, o.body);
}

/* POST /v1/submissions/batch: {"submissions": [ITEM, ...]}, up to
 * API_MAX_BATCH items, each a submission's body plus an optional
 * "idempotency_key", each admitted or refused on its own, in order: 200
 * {"submissions": [{"status", and the answer its own POST would get}]}.
 * Each item counts as one request against the token's rate: an item past
 * it is refused with status 429 and retry_after (a batch of 20 is not one
 * request: it would pass 20 times the rate). 
 * An item's hash (for its key) is its compact JSON with sorted keys. */
enum MHD_Result api_submit_batch(struct req *r)
{
    json_error_t je;
    json_t *body = r->len ? json_loadb(r->body, r->len, JSON_ALLOW_NUL, &je) : NULL;
    json_t *items = json_object_get(body, "submissions");
    if (!json_is_object(body) || json_object_size(body) != 1 || !json_is_array(items) ||
        !json_array_size(items) || json_array_size(items) > API_MAX_BATCH) {
        json_decref(body);
        atomic_fetch_add(&r->api->admissions[ADMIT_REJECTED], 1);
        return api_error(r, 400, "submissions", "expected {\"submissions\": [...]} with 1 to %d submissions",
                         API_MAX_BATCH);
    }
    json_t *answers = json_array();
    size_t i;
    json_t *item;
    json_array_foreach(items, i, item) {
        struct api_submission s;
        struct admission o;
        char field[256], msg[512];
        json_t *key = json_object_get(item, "idempotency_key");
        double wait = i ? api_charge(r) : 0;   /* the first item was charged as the request */
        if (wait > 0) {
            refused(r->api, &o, 429, NULL, "token '%s' is over its rate of %g requests/s (each item of a batch "
                                           "counts as one request)", r->tok_name, r->cfg->api.rate);
            o.retry_after = (long)ceil(wait);
            memset(&s, 0, sizeof s);
        } else if (key && !json_is_string(key)) {
            refused(r->api, &o, 400, "idempotency_key", "idempotency_key must be a string");
            memset(&s, 0, sizeof s);
        } else if (api_submission_check(&s, item, "idempotency_key", r->cfg, in_store, r->api, field,
                                        sizeof field, msg, sizeof msg)) {
            refused(r->api, &o, 400, field, "%s", msg);
        } else {
            char *canon = json_dumps(item, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY), hash[65];
            api_sha256_hex(canon ? canon : "", canon ? strlen(canon) : 0, hash);
            free(canon);
            admit(r, &s, json_string_value(key), hash, &o);
        }
        api_submission_free(&s);
        json_object_set_new(o.body, "status", json_integer(o.status));
        if (o.retry_after > 0)
            json_object_set_new(o.body, "retry_after", json_integer(o.retry_after));
        json_array_append_new(answers, o.body);
    }
    json_decref(body);
    return api_json(r, 200, json_pack("{s:o}", "submissions", answers));
}

/* ----------------------------------------------------------------- results */

/* A long poll whose submission is not done: its connection is suspended
 * until the events hub reads that submission's event (or the deadline,
 * or a shutdown), then the handler runs again (api_get_submission_again).
 * It holds no thread and no Redis connection while it waits. */
static enum MHD_Result get_submission_again(struct req *r)
{
    return api_get_submission(r, r->wait_id);
}

static bool wait_for_event(struct req *r, const char *id, unsigned long long seq)
{
    snprintf(r->wait_id, sizeof r->wait_id, "%s", id);
    r->resume = get_submission_again;
    r->wait.conn = r->conn;
    r->wait.fd = api_conn_fd(r->conn);
    r->wait.any = false;
    r->wait.owner = NULL;
    r->wait.sub = r->wait_id;
    r->wait.seq = seq;
    r->wait.due = r->wait_deadline;
    return api_hub_suspend(r->api, &r->wait);
}

enum MHD_Result api_get_submission(struct req *r, const char *id)
{
    struct api *a = r->api;
    char pool[80];
    if (!queue_id_pool(id, pool, sizeof pool) || !jd_pool_by_name(r->cfg, pool))
        return api_error(r, 404, NULL, "no submission '%.200s' (unknown, or expired: finished "
                                       "submissions are kept for %lds)", id, r->cfg->retention_ms / 1000);
    double wait = 0;
    const char *w = api_arg(r, "wait");
    if (w) {
        char *end;
        wait = strtod(w, &end);
        if (!*w || *end || !(wait >= 0 && wait <= MAX_WAIT_S))
            return api_error(r, 400, "wait", "wait must be a number of seconds from 0 to %d", MAX_WAIT_S);
    }
    if (!r->wait_deadline)   /* the first look (a resumed one keeps it) */
        r->wait_deadline = common_monotonic() + wait;
    struct queue_conn *k = api_conn_get(a);
    char err[512];
    struct queue_result q;
    bool found;
    enum queue_rc rc;
    for (;;) {
        /* the ring's end before the look: an event read after it wakes the wait */
        unsigned long long seq = wait > 0 ? api_hub_end(a) : 0;
        rc = queue_result(k, id, &q, &found, err, sizeof err);
        if (rc != QUEUE_OK || !found || !strcmp(q.state, "done") || wait <= 0)
            break;
        if (!api_has_role(r, ROLES_READ_ALL) && strcmp(q.owner, r->tok_name))
            break;   /* not the caller's: answered (404) at once, not after the wait */
        if (common_monotonic() >= r->wait_deadline || atomic_load(&a->stopping))
            break;   /* as it is now */
        queue_result_free(&q);
        if (wait_for_event(r, id, seq)) {
            api_conn_put(a, k);
            return MHD_YES;   /* answered when resumed */
        }
    }
    api_conn_put(a, k);
    if (rc == QUEUE_IO)
        return api_error_retry(r, 503, 1, "the queue is unavailable: %s", err);
    if (rc != QUEUE_OK)
        return api_error(r, 500, NULL, "%s", err);
    if (!found)
        return api_error(r, 404, NULL, "no submission '%.200s' (unknown, or expired: finished "
                                       "submissions are kept for %lds)", id, r->cfg->retention_ms / 1000);
    /* a submitter reads only what it submitted (read and admin read all);
     * another's answers as an unknown id does: ids are sequential, so a 403
     * would tell which exist */
    if (!api_has_role(r, ROLES_READ_ALL) && strcmp(q.owner, r->tok_name)) {
        queue_result_free(&q);
        return api_error(r, 404, NULL, "no submission '%.200s' (unknown, or expired: finished "
                                       "submissions are kept for %lds)", id, r->cfg->retention_ms / 1000);
    }
    json_t *o = jd_result_json(id, &q);   /* result.c: judgectl prints the same */
    queue_result_free(&q);
    return api_json(r, 200, o);
}
