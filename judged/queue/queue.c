/*
 * queue.c - the typed queue library: each operation builds the named
 * arguments of one function of judged.lua, calls it with FCALL and turns the
 * field/value reply into its struct. Theory: judged/DESIGN.md ("Protocol").
 *
 * The library is loaded lazily: a "Function not found" reply (Redis
 * restarted without its data, FUNCTION FLUSH) loads judged.lua and repeats
 * the call once. Argument strings are built on the caller's stack; nothing
 * here keeps state between calls except the connection itself.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

#define MAXARGS 40

/* ------------------------------------------------------------- names */

bool queue_valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 128 || s[0] == '.' || s[0] == '-')
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-')
            return false;
    return true;
}

void queue_key(char *buf, size_t len, const char *pool, const char *suffix)
{
    snprintf(buf, len, "judge:{%s}:%s", pool, suffix);
}

void queue_submission_key(char *buf, size_t len, const char *pool, const char *id)
{
    char suffix[300];
    snprintf(suffix, sizeof suffix, SUFFIX_SUB "%s", id);
    queue_key(buf, len, pool, suffix);
}

void queue_result_key(char *buf, size_t len, const char *pool, const char *id)
{
    char suffix[300];
    snprintf(suffix, sizeof suffix, SUFFIX_RES "%s", id);
    queue_key(buf, len, pool, suffix);
}

bool queue_id_pool(const char *id, char *pool, size_t len)
{
    if (strchr(id, '{') || strchr(id, '}') || strchr(id, ':'))
        return false;
    const char *dash = strrchr(id, '-');
    if (!dash || dash == id)
        return false;
    /* ids are POOL-TIME-SEQ: the pool is everything before the second-to-last dash */
    const char *p = dash - 1;
    while (p > id && *p != '-')
        p--;
    if (p == id || (size_t)(p - id) >= len)
        return false;
    memcpy(pool, id, (size_t)(p - id));
    pool[p - id] = 0;
    return true;
}

const char *queue_name(int queue)
{
    return queue == QUEUE_CONTEST ? "contest" : "normal";
}

static int queue_index(const char *name)
{
    return name && !strcmp(name, "contest") ? QUEUE_CONTEST : QUEUE_NORMAL;
}

/* ----------------------------------------------------------- arguments */

/* A named argument list: FCALL FN 1 judge:{POOL}:q:normal field value ... */
struct args {
    const char *v[MAXARGS];
    size_t len[MAXARGS];
    char num[MAXARGS][32];   /* storage for formatted numbers */
    char key[200];
    int n;
};

static void args_start(struct args *a, const char *fn, const char *pool)
{
    a->n = 0;
    queue_key(a->key, sizeof a->key, pool, SUFFIX_QUEUE(QUEUE_NORMAL));
    const char *head[] = {"FCALL", fn, "1", a->key, "pool", pool};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++) {
        a->v[a->n] = head[i];
        a->len[a->n++] = strlen(head[i]);
    }
}

static void add_bin(struct args *a, const char *field, const char *val, size_t len)
{
    if (a->n + 2 > MAXARGS)
        return;
    a->v[a->n] = field;
    a->len[a->n++] = strlen(field);
    a->v[a->n] = val ? val : "";
    a->len[a->n++] = val ? len : 0;
}

static void add(struct args *a, const char *field, const char *val)
{
    add_bin(a, field, val, val ? strlen(val) : 0);
}

static void add_num(struct args *a, const char *field, long long v)
{
    char *s = a->num[a->n];
    snprintf(s, sizeof a->num[0], "%lld", v);
    add(a, field, s);
}

/* --------------------------------------------------------------- calls */

static bool is_missing_library(const redisReply *r)
{
    return r && r->type == REDIS_REPLY_ERROR && strstr(r->str, "Function not found");
}

static redisReply *call_argv(struct queue_conn *k, int argc, const char **argv, const size_t *lens)
{
    redisReply *r = queue_cmdv(k, argc, argv, lens);
    if (is_missing_library(r)) {
        char err[256];
        freeReplyObject(r);
        if (queue_library_ensure(k, err, sizeof err)) {
            snprintf(k->err, sizeof k->err, "%s", err);
            return queue_cmdv(k, argc, argv, lens); /* the error reply, for the caller */
        }
        r = queue_cmdv(k, argc, argv, lens);
    }
    return r;
}

static redisReply *call(struct queue_conn *k, struct args *a)
{
    return call_argv(k, a->n, a->v, a->len);
}

/* The value of field NAME of a flat field/value reply, or NULL. */
static const redisReply *field(const redisReply *r, const char *name)
{
    if (!r || r->type != REDIS_REPLY_ARRAY)
        return NULL;
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
        const char *f = queue_rstr(r->element[i]);
        if (f && !strcmp(f, name))
            return r->element[i + 1];
    }
    return NULL;
}

static const char *sfield(const redisReply *r, const char *name)
{
    const char *s = queue_rstr(field(r, name));
    return s ? s : "";
}

static long long ifield(const redisReply *r, const char *name)
{
    const redisReply *v = field(r, name);
    if (!v)
        return 0;
    if (v->type == REDIS_REPLY_INTEGER)
        return v->integer;
    return queue_rstr(v) ? atoll(queue_rstr(v)) : 0;
}

/* Sorts a reply into QUEUE_OK / QUEUE_NOGROUP / QUEUE_ERROR (with err) and
 * frees it unless it is usable. */
static enum queue_rc check(struct queue_conn *k, redisReply *r, int want_type, const char *what,
                           char *err, size_t errlen)
{
    if (!r) {
        queue_io_err(k, what, err, errlen);   /* a queue_finish_reply's err is 160 bytes */
        return QUEUE_IO;
    }
    if (r->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "%s: %s", what, r->str);
        enum queue_rc rc = strstr(r->str, "NOGROUP") ? QUEUE_NOGROUP : QUEUE_ERROR;
        freeReplyObject(r);
        return rc;
    }
    if (want_type >= 0 && r->type != want_type) {
        snprintf(err, errlen, "%s: unexpected reply", what);
        freeReplyObject(r);
        return QUEUE_ERROR;
    }
    return QUEUE_OK;
}

/* ------------------------------------------------------------- library */

const struct queue_library queue_judged_library = {
    .lua = queue_library_lua,
    .version = &queue_library_version,
    .file = "judged.lua",
    .title = "the judged function library",
    .version_fn = "judged_version",
};

/* The loaded version of lib (0: none); QUEUE_OK, or a refusal in err. */
static enum queue_rc loaded_version(struct queue_conn *k, const struct queue_library *lib, long long *have,
                                    char *err, size_t errlen)
{
    redisReply *r = queue_cmd(k, "FCALL %s 0", lib->version_fn);
    if (!r) {
        snprintf(err, errlen, "redis: %s", k->err);
        return QUEUE_IO;
    }
    if (r->type == REDIS_REPLY_ERROR && !is_missing_library(r)) {
        /* NOAUTH, WRONGPASS, NOPERM: say so, not "cannot load the library" */
        snprintf(err, errlen, "redis: %s%s", r->str,
                 strstr(r->str, "NOAUTH") ? " (give the password in the redis URL, in "
                                            "redis_password_file or in $JUDGED_REDIS_PASSWORD)" : "");
        freeReplyObject(r);
        return QUEUE_ERROR;
    }
    *have = r->type == REDIS_REPLY_INTEGER ? r->integer : 0;
    freeReplyObject(r);
    return QUEUE_OK;
}

/* The one loader of both Functions libraries (judged.lua here, store.lua in
 * the store): the same version check and refusal for each, so a host can
 * never load one library by a rule the other does not follow. */
enum queue_rc queue_library_load(struct queue_conn *k, const struct queue_library *lib, char *err, size_t errlen)
{
    int version = *lib->version;
    long long have = 0;
    enum queue_rc rc = loaded_version(k, lib, &have, err, errlen);
    if (rc || have == version)
        return rc;
    if (have > version) {
        snprintf(err, errlen, "redis holds version %lld of %s, this program speaks version %d: upgrade it",
                 have, lib->title, version);
        return QUEUE_ERROR;
    }
    redisReply *r = queue_cmd(k, "FUNCTION LOAD REPLACE %s", lib->lua);
    if (!r) {
        snprintf(err, errlen, "FUNCTION LOAD: redis: %s", k->err);
        return QUEUE_IO;
    }
    rc = r->type == REDIS_REPLY_ERROR ? QUEUE_ERROR : QUEUE_OK;
    if (rc)
        snprintf(err, errlen, "FUNCTION LOAD of %s (needs Redis >= 7.0): %s", lib->file, r->str);
    freeReplyObject(r);
    return rc;
}

/* Library version 13 moved results out of the submission hashes into
 * judge:{P}:res:ID (issue 25). Loaded over an older version, the results
 * of submissions finished before are moved too, one FCALL per submission
 * (judged_migrate_result: idempotent, so two hosts upgrading at once do no
 * harm). Once: a host that loses Redis in the middle leaves the rest
 * unmoved (they read as not judged; DESIGN.md says how to finish it). */
#define RESULTS_KEY_SINCE 13
static enum queue_rc results_migrate(struct queue_conn *k, char *err, size_t errlen)
{
    char cursor[64] = "0";
    do {
        redisReply *r = queue_cmd(k, "SCAN %s MATCH judge:{*}:" SUFFIX_SUB "* COUNT 1000", cursor);
        enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "SCAN", err, errlen);
        if (rc)
            return rc;
        if (r->elements != 2 || !queue_rstr(r->element[0]) || r->element[1]->type != REDIS_REPLY_ARRAY) {
            snprintf(err, errlen, "SCAN: unexpected reply");
            freeReplyObject(r);
            return QUEUE_ERROR;
        }
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        for (size_t i = 0; i < r->element[1]->elements; i++) {
            const char *key = queue_rstr(r->element[1]->element[i]);
            const char *close = key ? strstr(key, "}:" SUFFIX_SUB) : NULL;
            if (!close || strncmp(key, "judge:{", 7))
                continue;
            char pool[160], qkey[400];
            snprintf(pool, sizeof pool, "%.*s", (int)(close - key - 7), key + 7);
            queue_key(qkey, sizeof qkey, pool, SUFFIX_QUEUE(QUEUE_NORMAL));
            const char *argv[] = {"FCALL", "judged_migrate_result", "1", qkey, "pool", pool, "id",
                                  close + 2 + strlen(SUFFIX_SUB)};
            redisReply *m = queue_cmdv(k, 8, argv, NULL);
            rc = check(k, m, -1, "judged_migrate_result", err, errlen);
            if (rc == QUEUE_IO) {
                freeReplyObject(r);
                return rc;
            }
            /* an error reply (a key of no valid pool name, which the
             * platform's user could write) skips that key: it must not
             * stop a host from starting */
            if (rc == QUEUE_OK)
                freeReplyObject(m);
        }
        freeReplyObject(r);
    } while (strcmp(cursor, "0"));
    return QUEUE_OK;
}

enum queue_rc queue_library_ensure(struct queue_conn *k, char *err, size_t errlen)
{
    long long have = 0;
    enum queue_rc rc = loaded_version(k, &queue_judged_library, &have, err, errlen);
    if (rc == QUEUE_OK)
        rc = queue_library_load(k, &queue_judged_library, err, errlen);
    if (rc == QUEUE_OK && have > 0 && have < RESULTS_KEY_SINCE)
        rc = results_migrate(k, err, errlen);
    return rc;
}

redisReply *queue_fcall(struct queue_conn *k, const struct queue_library *lib, int argc, const char **argv,
                        const size_t *lens, char *err, size_t errlen)
{
    bool known = lib == &queue_judged_library;
    for (int i = 0; i < k->nlibs; i++)
        known |= k->libs[i] == lib;
    if (!known && k->nlibs < (int)(sizeof k->libs / sizeof k->libs[0]))
        k->libs[k->nlibs++] = lib;   /* checked again on a new primary (conn.c) */
    redisReply *r = queue_cmdv(k, argc, argv, lens);
    if (is_missing_library(r)) {
        freeReplyObject(r);
        if (queue_library_load(k, lib, err, errlen))
            return NULL;
        r = queue_cmdv(k, argc, argv, lens);
    }
    if (!r)
        snprintf(err, errlen, "redis: %s", k->err);
    return r;
}

enum queue_rc queue_ensure_groups(struct queue_conn *k, const char *pool, char *err, size_t errlen)
{
    for (int i = 0; i < 2; i++) {
        char key[200];
        queue_key(key, sizeof key, pool, SUFFIX_QUEUE(i));
        redisReply *r = queue_cmd(k, "XGROUP CREATE %s %s 0 MKSTREAM", key, QUEUE_GROUP);
        if (!r) {
            snprintf(err, errlen, "XGROUP CREATE: redis: %s", k->err);
            return QUEUE_IO;
        }
        bool ok = r->type != REDIS_REPLY_ERROR || strstr(r->str, "BUSYGROUP");
        if (!ok)
            snprintf(err, errlen, "XGROUP CREATE %s: %s", key, r->str);
        freeReplyObject(r);
        if (!ok)
            return QUEUE_ERROR;
    }
    return QUEUE_OK;
}

/* --------------------------------------------------------------- admit */

enum queue_rc queue_admit(struct queue_conn *k, const struct queue_admit_args *in,
                          struct queue_admit_reply *out, char *err, size_t errlen)
{
    struct args a;
    args_start(&a, "judged_admit", in->pool);
    add(&a, "lang", in->lang);
    add(&a, "problem", in->problem);
    add_bin(&a, "source", in->source, in->source_len);
    if (in->key)
        add(&a, "key", in->key);
    add(&a, "priority", in->priority ? in->priority : "normal");
    if (in->max_queue >= 0)
        add_num(&a, "max_queue", in->max_queue);
    if (in->max_source >= 0)
        add_num(&a, "max_source", in->max_source);
    if (in->version)
        add(&a, "version", in->version);
    if (in->owner)
        add(&a, "owner", in->owner);
    if (in->hash)
        add(&a, "hash", in->hash);
    if (in->callback)
        add(&a, "callback", in->callback);
    if (in->metadata)
        add(&a, "metadata", in->metadata);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "admission", err, errlen);
    if (rc)
        return rc;
    const char *res = sfield(r, "result");
    memset(out, 0, sizeof *out);
    if (!strcmp(res, "busy")) {
        out->result = QUEUE_BUSY;
        out->waiting = ifield(r, "waiting");
    } else if (!strcmp(res, "admitted") || !strcmp(res, "duplicate") || !strcmp(res, "conflict")) {
        out->result = !strcmp(res, "admitted")    ? QUEUE_ADMITTED
                      : !strcmp(res, "duplicate") ? QUEUE_DUPLICATE
                                                  : QUEUE_CONFLICT;
        snprintf(out->id, sizeof out->id, "%s", sfield(r, "id"));
    } else {
        snprintf(err, errlen, "admission: unexpected reply");
        rc = QUEUE_ERROR;
    }
    freeReplyObject(r);
    if (rc || in->replicas <= 0 || (out->result != QUEUE_ADMITTED && out->result != QUEUE_DUPLICATE))
        return rc;
    /* WAIT counts the replicas that acknowledged this connection's last
     * write: the admission's, or on a duplicate judged_admit's rewrite of
     * the key, which follows the original admission in the replication
     * stream, wherever that came from */
    r = queue_cmd(k, "WAIT %d %ld", in->replicas, in->wait_ms);
    rc = check(k, r, REDIS_REPLY_INTEGER, "admission: WAIT", err, errlen);
    if (rc)
        return rc;
    out->replicas = (int)r->integer;
    freeReplyObject(r);
    if (out->replicas < in->replicas)
        out->result = QUEUE_NOT_DURABLE;
    return QUEUE_OK;
}

enum queue_rc queue_publish_pool(struct queue_conn *k, const char *pool, const char *const *languages,
                                 int nlanguages, long max_queue, long max_source,
                                 long idempotency_ttl_ms, char *err, size_t errlen)
{
    char langs[2048] = "";
    for (int i = 0; i < nlanguages; i++) {
        if (i)
            strncat(langs, " ", sizeof langs - strlen(langs) - 1);
        strncat(langs, languages[i], sizeof langs - strlen(langs) - 1);
    }
    struct args a;
    args_start(&a, "judged_publish_pool", pool);
    add(&a, "languages", langs);
    add_num(&a, "max_queue", max_queue);
    add_num(&a, "max_source", max_source);
    add_num(&a, "idempotency_ttl", idempotency_ttl_ms);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, -1, "publish pool", err, errlen);
    if (rc == QUEUE_OK)
        freeReplyObject(r);
    return rc;
}

/* ---------------------------------------------------------------- jobs */

void queue_job_clear(struct queue_job *j)
{
    free(j->poison);
    free(j->lang);
    free(j->problem);
    free(j->source);
    memset(j, 0, sizeof *j);
}

static void parse_job(const redisReply *e, struct queue_job *j)
{
    memset(j, 0, sizeof *j);
    j->wait_ms = -1;
    j->queue = queue_index(sfield(e, "queue"));
    snprintf(j->entry, sizeof j->entry, "%s", sfield(e, "entry"));
    snprintf(j->id, sizeof j->id, "%s", sfield(e, "id"));
    const char *poison = sfield(e, "poison");
    if (*poison) {
        j->poison = strdup(poison);
        return;
    }
    const redisReply *s = field(e, "source");
    if (!field(e, "lang") || !s || s->type != REDIS_REPLY_STRING) {
        j->poison = strdup("poison: malformed claim reply");
        return;
    }
    j->lang = strdup(sfield(e, "lang"));
    j->problem = strdup(sfield(e, "problem"));
    j->source_len = s->len;
    j->source = malloc(s->len + 1);
    memcpy(j->source, s->str, s->len);
    j->source[s->len] = 0;
    j->attempts = (int)ifield(e, "attempts");
    snprintf(j->version, sizeof j->version, "%s", sfield(e, "version"));
    j->wait_ms = field(e, "wait") ? ifield(e, "wait") : -1;
    /* the admission checked these names; an entry written by hand may not be */
    if (!queue_valid_name(j->problem))
        j->poison = strdup("poison: bad problem name");
    else if (!queue_valid_name(j->lang))
        j->poison = strdup("poison: bad language name");
}

/* ------------------------------------------------------------- stats */

static const char *const STATS_LE[QUEUE_STATS_BUCKETS] = {"10", "25", "50", "100", "250", "500", "1000",
                                                          "2500", "5000", "10000", "30000", "60000", "+Inf"};

static int stats_bucket(long long ms)
{
    for (int i = 0; i < QUEUE_STATS_BUCKETS - 1; i++)
        if (ms <= atoll(STATS_LE[i]))
            return i;
    return QUEUE_STATS_BUCKETS - 1;
}

static void stats_verdict(struct queue_stats *s, const char *verdict, long long n)
{
    for (int i = 0; i < s->nverdicts; i++)
        if (!strcmp(s->verdict[i], verdict)) {
            s->vcount[i] += n;
            return;
        }
    if (s->nverdicts < QUEUE_STATS_VERDICTS) {
        snprintf(s->verdict[s->nverdicts], sizeof s->verdict[0], "%s", verdict);
        s->vcount[s->nverdicts++] = n;
    }
}

void queue_stats_observe(struct queue_stats *s, const char *verdict, long long wait_ms, long long judging_ms)
{
    stats_verdict(s, verdict, 1);
    if (wait_ms >= 0) {
        s->wait[stats_bucket(wait_ms)]++;
        s->wait_sum += wait_ms;
    }
    if (judging_ms < 0)
        judging_ms = 0;
    s->judging[stats_bucket(judging_ms)]++;
    s->judging_sum += judging_ms;
}

void queue_stats_merge(struct queue_stats *into, const struct queue_stats *from)
{
    for (int i = 0; i < from->nverdicts; i++)
        stats_verdict(into, from->verdict[i], from->vcount[i]);
    for (int i = 0; i < QUEUE_STATS_BUCKETS; i++) {
        into->wait[i] += from->wait[i];
        into->judging[i] += from->judging[i];
    }
    into->wait_sum += from->wait_sum;
    into->judging_sum += from->judging_sum;
}

/* appends one HINCRBY when n != 0; returns how many were appended */
static int stats_append(struct queue_conn *k, const char *key, const char *field, long long n)
{
    if (!n)
        return 0;
    redisAppendCommand(k->c, "HINCRBY %s %s %lld", key, field, n);
    return 1;
}

enum queue_rc queue_stats_flush(struct queue_conn *k, const char *pool, const struct queue_stats *s, char *err,
                                size_t errlen)
{
    if (queue_conn_ensure(k)) {
        snprintf(err, errlen, "redis: %s", k->err);
        return QUEUE_IO;
    }
    char key[200], f[64];
    queue_key(key, sizeof key, pool, SUFFIX_STATS);
    int n = 0;
    for (int i = 0; i < s->nverdicts; i++) {
        snprintf(f, sizeof f, "verdict:%s", s->verdict[i]);
        n += stats_append(k, key, f, s->vcount[i]);
    }
    for (int i = 0; i < QUEUE_STATS_BUCKETS; i++) {
        snprintf(f, sizeof f, "wait:le:%s", STATS_LE[i]);
        n += stats_append(k, key, f, s->wait[i]);
        snprintf(f, sizeof f, "judging:le:%s", STATS_LE[i]);
        n += stats_append(k, key, f, s->judging[i]);
    }
    n += stats_append(k, key, "wait:sum", s->wait_sum);
    n += stats_append(k, key, "judging:sum", s->judging_sum);
    if (n == 0)
        return QUEUE_OK;
    atomic_fetch_add(&queue_round_trips, 1);
    enum queue_rc rc = QUEUE_OK;
    for (int i = 0; i < n; i++) {
        redisReply *r = NULL;
        if (redisGetReply(k->c, (void **)&r) != REDIS_OK) {
            snprintf(err, errlen, "redis: %s", k->c->errstr);
            queue_conn_drop(k);
            return QUEUE_IO;
        }
        if (queue_conn_stale(k, r)) {   /* READONLY, LOADING: reconnect, flush again */
            snprintf(err, errlen, "redis: %s", k->err);
            freeReplyObject(r);
            return QUEUE_IO;
        }
        if (r->type == REDIS_REPLY_ERROR) {
            rc = QUEUE_ERROR;
        }
        freeReplyObject(r);
    }
    return rc;
}

static void parse_jobs(const redisReply *arr, struct queue_job **jobs, int *n)
{
    *jobs = NULL;
    *n = 0;
    if (!arr || arr->type != REDIS_REPLY_ARRAY || arr->elements == 0)
        return;
    *jobs = calloc(arr->elements, sizeof **jobs);
    for (size_t i = 0; i < arr->elements; i++)
        parse_job(arr->element[i], &(*jobs)[(*n)++]);
}

/* --------------------------------------------------------------- claim */

/* Where a claim reads each queue from; ">" (new entries), the functions'
 * default, is not sent: every argument costs Redis a conversion or two. */
static void claim_from(struct args *a, const char *const from[2])
{
    if (from[0] && strcmp(from[0], ">"))
        add(a, "contest_from", from[0]);
    if (from[1] && strcmp(from[1], ">"))
        add(a, "normal_from", from[1]);
}

static void claim_args(struct args *a, const struct queue_claim_args *in)
{
    args_start(a, "judged_claim", in->pool);
    add(a, "host", in->host);
    add_num(a, "count", in->count);
    claim_from(a, in->from);
}

static enum queue_rc claim_parse(struct queue_conn *k, redisReply *r, struct queue_claim_reply *out,
                                 char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "claim", err, errlen);
    if (rc)
        return rc;
    snprintf(out->state, sizeof out->state, "%s", sfield(r, "state"));
    snprintf(out->delivered[0], 64, "%s", sfield(r, "contest_delivered"));
    snprintf(out->delivered[1], 64, "%s", sfield(r, "normal_delivered"));
    snprintf(out->last[0], 64, "%s", sfield(r, "contest_last"));
    snprintf(out->last[1], 64, "%s", sfield(r, "normal_last"));
    parse_jobs(field(r, "jobs"), &out->jobs, &out->njobs);
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_claim(struct queue_conn *k, const struct queue_claim_args *in,
                          struct queue_claim_reply *out, char *err, size_t errlen)
{
    struct args a;
    claim_args(&a, in);
    return claim_parse(k, call(k, &a), out, err, errlen);
}

void queue_claim_reply_free(struct queue_claim_reply *r)
{
    for (int i = 0; i < r->njobs; i++)
        queue_job_clear(&r->jobs[i]);
    free(r->jobs);
    r->jobs = NULL;
    r->njobs = 0;
}

enum queue_rc queue_wait_new(struct queue_conn *k, const char *pool, char (*delivered)[64],
                             long block_ms)
{
    char kq[2][200];
    queue_key(kq[0], sizeof kq[0], pool, SUFFIX_QUEUE(QUEUE_CONTEST));
    queue_key(kq[1], sizeof kq[1], pool, SUFFIX_QUEUE(QUEUE_NORMAL));
    redisReply *r = queue_cmd(k, "XREAD COUNT 1 BLOCK %ld STREAMS %s %s %s %s", block_ms, kq[0], kq[1],
                              delivered[0], delivered[1]);
    if (!r)
        return QUEUE_IO;
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_reclaim(struct queue_conn *k, const struct queue_reclaim_args *in,
                            struct queue_reclaim_reply *out, char *err, size_t errlen)
{
    struct args a;
    args_start(&a, "judged_reclaim", in->pool);
    add(&a, "host", in->host);
    add(&a, "queue", queue_name(in->queue));
    add_num(&a, "min_idle", in->min_idle_ms);
    add_num(&a, "count", in->count);
    add(&a, "cursor", in->cursor);
    add_num(&a, "max_deliveries", in->max_deliveries);
    memset(out, 0, sizeof *out);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "reclaim", err, errlen);
    if (rc)
        return rc;
    snprintf(out->state, sizeof out->state, "%s", sfield(r, "state"));
    snprintf(out->cursor, sizeof out->cursor, "%s", *sfield(r, "cursor") ? sfield(r, "cursor") : "0-0");
    parse_jobs(field(r, "jobs"), &out->jobs, &out->njobs);
    for (int i = 0; i < out->njobs; i++)
        out->jobs[i].reclaimed = true;
    freeReplyObject(r);
    return QUEUE_OK;
}

void queue_reclaim_reply_free(struct queue_reclaim_reply *r)
{
    for (int i = 0; i < r->njobs; i++)
        queue_job_clear(&r->jobs[i]);
    free(r->jobs);
    r->jobs = NULL;
    r->njobs = 0;
}

enum queue_rc queue_promote(struct queue_conn *k, const char *pool, int limit, int *moved)
{
    struct args a;
    char err[256];
    args_start(&a, "judged_promote", pool);
    add_num(&a, "limit", limit);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, REDIS_REPLY_INTEGER, "promote", err, sizeof err);
    if (rc)
        return rc;
    if (moved)
        *moved = (int)r->integer;
    freeReplyObject(r);
    return QUEUE_OK;
}

/* -------------------------------------------------------------- leases */

/* pool, host, [extra], then (queue, entry) pairs: argument lists of any length */
static const char **ref_argv(const char *fn, const char *pool, const char *host, const char *extra_f,
                             const char *extra_v, const struct queue_ref *refs, int n, char *key,
                             size_t keylen, int *argc)
{
    const char **v = calloc((size_t)(12 + 2 * n), sizeof *v);
    int a = 0;
    queue_key(key, keylen, pool, SUFFIX_QUEUE(QUEUE_NORMAL));
    v[a++] = "FCALL";
    v[a++] = fn;
    v[a++] = "1";
    v[a++] = key;
    v[a++] = "pool";
    v[a++] = pool;
    v[a++] = "host";
    v[a++] = host;
    if (extra_f) {
        v[a++] = extra_f;
        v[a++] = extra_v;
    }
    for (int i = 0; i < n; i++) {
        v[a++] = queue_name(refs[i].queue);
        v[a++] = refs[i].entry;
    }
    *argc = a;
    return v;
}

enum queue_rc queue_renew(struct queue_conn *k, const char *pool, const char *host,
                          const struct queue_ref *refs, int n, struct queue_renew_reply *out,
                          char *err, size_t errlen)
{
    char key[200];
    int argc;
    memset(out, 0, sizeof *out);
    const char **v = ref_argv("judged_renew", pool, host, NULL, NULL, refs, n, key, sizeof key, &argc);
    redisReply *r = call_argv(k, argc, v, NULL);
    free(v);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "renew", err, errlen);
    if (rc)
        return rc;
    out->lost = calloc(r->elements + 1, sizeof *out->lost);
    for (size_t i = 0; i < r->elements; i++)
        if (queue_rstr(r->element[i]))
            snprintf(out->lost[out->nlost++], 64, "%s", queue_rstr(r->element[i]));
    freeReplyObject(r);
    return QUEUE_OK;
}

void queue_renew_reply_free(struct queue_renew_reply *r)
{
    free(r->lost);
    r->lost = NULL;
    r->nlost = 0;
}

enum queue_rc queue_give_back(struct queue_conn *k, const char *pool, const char *host, long idle_ms,
                              const struct queue_ref *refs, int n, int *given, char *err,
                              size_t errlen)
{
    char key[200], idle[32];
    int argc;
    snprintf(idle, sizeof idle, "%ld", idle_ms);
    const char **v = ref_argv("judged_give_back", pool, host, "idle", idle, refs, n, key, sizeof key,
                              &argc);
    redisReply *r = call_argv(k, argc, v, NULL);
    free(v);
    enum queue_rc rc = check(k, r, REDIS_REPLY_INTEGER, "give back", err, errlen);
    if (rc)
        return rc;
    if (given)
        *given = (int)r->integer;
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_reap(struct queue_conn *k, const char *pool, const char *consumer, bool *gone,
                         char *err, size_t errlen)
{
    struct args a;
    args_start(&a, "judged_reap", pool);
    add(&a, "consumer", consumer);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "reap", err, errlen);
    if (rc)
        return rc;
    *gone = !strcmp(sfield(r, "result"), "gone");
    freeReplyObject(r);
    return QUEUE_OK;
}

/* ------------------------------------------------------------ outcomes */

static void finish_args(struct args *a, const struct queue_finish_args *in)
{
    args_start(a, "judged_finish", in->pool);
    add(a, "host", in->host);
    add(a, "queue", queue_name(in->queue));
    add(a, "entry", in->entry);
    add(a, "id", in->id);
    add(a, "verdict", in->verdict);
    char *s = a->num[a->n];
    snprintf(s, sizeof a->num[0], "%g", in->score);
    add(a, "score", s);
    add(a, "report", in->report ? in->report : "{}");
    add_num(a, "results_max", in->results_max);
    if (in->retention_ms > 0)
        add_num(a, "retention", in->retention_ms);
    if (in->checkpointed)
        add(a, "ckpt", "1");
}

static void finish_parse(struct queue_conn *k, redisReply *r, struct queue_finish_reply *out)
{
    memset(out, 0, sizeof *out);
    out->rc = check(k, r, REDIS_REPLY_ARRAY, "finish", out->err, sizeof out->err);
    if (out->rc)
        return;
    const char *res = sfield(r, "result");
    out->result = !strcmp(res, "published")      ? QUEUE_FINISH_PUBLISHED
                  : !strcmp(res, "already_done") ? QUEUE_FINISH_ALREADY_DONE
                                                 : QUEUE_FINISH_LOST;
    freeReplyObject(r);
}

enum queue_rc queue_finish(struct queue_conn *k, const struct queue_finish_args *in,
                           struct queue_finish_reply *out, char *err, size_t errlen)
{
    struct args a;
    finish_args(&a, in);
    finish_parse(k, call(k, &a), out);
    if (out->rc)
        snprintf(err, errlen, "%s", out->err);
    return out->rc;
}

/* The replies of n commands appended to k's buffer, sent in one write. */
static enum queue_rc pipeline_replies(struct queue_conn *k, int n, redisReply **replies)
{
    atomic_fetch_add(&queue_round_trips, 1);
    for (int i = 0; i < n; i++) {
        if (redisGetReply(k->c, (void **)&replies[i]) != REDIS_OK) {
            for (int j = 0; j < i; j++)
                freeReplyObject(replies[j]);
            queue_conn_drop(k);
            return QUEUE_IO;
        }
    }
    for (int i = 0; i < n; i++)
        if (queue_conn_stale(k, replies[i])) {   /* READONLY, LOADING: reconnect */
            for (int j = 0; j < n; j++)
                freeReplyObject(replies[j]);
            return QUEUE_IO;
        }
    return QUEUE_OK;
}

/* Sends every command of the batch in one write and reads the replies. */
static enum queue_rc pipeline(struct queue_conn *k, struct args *cmds, int n, redisReply **replies)
{
    if (queue_conn_ensure(k))
        return QUEUE_IO;
    for (int i = 0; i < n; i++)
        redisAppendCommandArgv(k->c, cmds[i].n, cmds[i].v, cmds[i].len);
    return pipeline_replies(k, n, replies);
}

/* One finish and the claim after it: judged_finish_claim, one function
 * call. Its reply holds the two replies; each is taken out of it and parsed
 * as if it had come alone. */
static enum queue_rc finish_claim(struct queue_conn *k, const struct queue_finish_args *fin,
                                  struct queue_finish_reply *fout, const struct queue_claim_args *claim,
                                  struct queue_claim_reply *cout, enum queue_rc *claim_rc, char *err,
                                  size_t errlen)
{
    struct args a;
    finish_args(&a, fin);
    a.v[1] = "judged_finish_claim";
    a.len[1] = strlen(a.v[1]);
    add_num(&a, "count", claim->count);
    claim_from(&a, claim->from);
    redisReply *r = call(k, &a);
    if (!r) {
        snprintf(err, errlen, "redis: %s", k->err);
        return QUEUE_IO;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 4) {   /* an error: it is both answers */
        memset(cout, 0, sizeof *cout);
        finish_parse(k, r, fout);   /* frees r */
        snprintf(err, errlen, "%s", fout->err);
        *claim_rc = fout->rc ? fout->rc : QUEUE_ERROR;
        return QUEUE_OK;
    }
    redisReply *f = r->element[1], *c = r->element[3];
    r->element[1] = r->element[3] = NULL;
    freeReplyObject(r);
    finish_parse(k, f, fout);
    *claim_rc = claim_parse(k, c, cout, err, errlen);
    return QUEUE_OK;
}

enum queue_rc queue_finish_then_claim(struct queue_conn *k, const struct queue_finish_args *fin,
                                      int n, struct queue_finish_reply *fout,
                                      const struct queue_claim_args *claim,
                                      struct queue_claim_reply *cout, enum queue_rc *claim_rc,
                                      char *err, size_t errlen)
{
    if (n == 1 && claim)
        return finish_claim(k, fin, fout, claim, cout, claim_rc, err, errlen);
    int total = n + (claim ? 1 : 0);
    struct args *cmds = calloc((size_t)total + 1, sizeof *cmds);
    redisReply **rep = calloc((size_t)total + 1, sizeof *rep);
    for (int i = 0; i < n; i++)
        finish_args(&cmds[i], &fin[i]);
    if (claim)
        claim_args(&cmds[n], claim);
    enum queue_rc rc = pipeline(k, cmds, total, rep);
    if (rc == QUEUE_OK && total > 0 && is_missing_library(rep[0])) {
        /* all of the batch failed alike: load the library, send it again */
        for (int i = 0; i < total; i++)
            freeReplyObject(rep[i]);
        rc = queue_library_ensure(k, err, errlen) ? QUEUE_ERROR : pipeline(k, cmds, total, rep);
    }
    if (rc == QUEUE_OK) {
        for (int i = 0; i < n; i++)
            finish_parse(k, rep[i], &fout[i]);
        if (claim)
            *claim_rc = claim_parse(k, rep[n], cout, err, errlen);
    } else if (rc == QUEUE_IO) {
        snprintf(err, errlen, "redis: %s", k->err);
    }
    free(cmds);
    free(rep);
    return rc;
}

enum queue_rc queue_retry(struct queue_conn *k, const struct queue_retry_args *in,
                          struct queue_retry_reply *out, char *err, size_t errlen)
{
    struct args a;
    args_start(&a, "judged_retry", in->pool);
    add(&a, "host", in->host);
    add(&a, "queue", queue_name(in->queue));
    add(&a, "entry", in->entry);
    add(&a, "id", in->id);
    add(&a, "reason", in->reason);
    add_num(&a, "max_attempts", in->max_attempts);
    add_num(&a, "delay", in->delay_ms);
    add_num(&a, "results_max", in->results_max);
    add_num(&a, "retention", in->retention_ms);
    add_num(&a, "dlq_retention", in->dlq_retention_ms);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "retry", err, errlen);
    if (rc)
        return rc;
    const char *res = sfield(r, "result");
    out->result = !strcmp(res, "scheduled") ? QUEUE_RETRY_SCHEDULED
                  : !strcmp(res, "dead")    ? QUEUE_RETRY_DEAD
                                            : QUEUE_RETRY_LOST;
    out->attempts = (int)ifield(r, "attempts");
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_dead_letter(struct queue_conn *k, const struct queue_dead_args *in, bool *dead,
                                char *err, size_t errlen)
{
    struct args a;
    args_start(&a, "judged_dead_letter", in->pool);
    add(&a, "host", in->host);
    add(&a, "queue", queue_name(in->queue));
    add(&a, "entry", in->entry);
    add(&a, "id", in->id ? in->id : "");
    add(&a, "reason", in->reason);
    add_num(&a, "results_max", in->results_max);
    add_num(&a, "retention", in->retention_ms);
    add_num(&a, "dlq_retention", in->dlq_retention_ms);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "dead letter", err, errlen);
    if (rc)
        return rc;
    *dead = !strcmp(sfield(r, "result"), "dead");
    freeReplyObject(r);
    return QUEUE_OK;
}

/* --------------------------------------------------------------- admin */

enum queue_rc queue_requeue(struct queue_conn *k, const char *pool, const char *entry, char *id,
                            size_t idlen, char *err, size_t errlen)
{
    struct args a;
    args_start(&a, "judged_requeue", pool);
    add(&a, "entry", entry);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "requeue", err, errlen);
    if (rc)
        return rc;
    snprintf(id, idlen, "%s", sfield(r, "id"));
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_set_state(struct queue_conn *k, const char *pool, const char *state, char *err,
                              size_t errlen)
{
    struct args a;
    args_start(&a, "judged_set_state", pool);
    add(&a, "state", state);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "set state", err, errlen);
    if (rc == QUEUE_OK)
        freeReplyObject(r);
    return rc;
}

enum queue_rc queue_rejudge(struct queue_conn *k, const char *pool, const char *id, const char *version,
                            const char *rejudge_id, char *result, size_t resultlen, char *err, size_t errlen)
{
    struct args a;
    args_start(&a, "judged_rejudge", pool);
    add(&a, "id", id);
    add(&a, "version", version);
    add(&a, "rejudge_id", rejudge_id);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "rejudge", err, errlen);
    if (rc)
        return rc;
    snprintf(result, resultlen, "%s", sfield(r, "result"));
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_cancel(struct queue_conn *k, const char *id, char *result, size_t resultlen, char *err,
                           size_t errlen)
{
    char pool[80];
    if (!queue_id_pool(id, pool, sizeof pool)) {
        snprintf(result, resultlen, "missing");
        return QUEUE_OK;
    }
    struct args a;
    args_start(&a, "judged_cancel", pool);
    add(&a, "id", id);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "cancel", err, errlen);
    if (rc)
        return rc;
    snprintf(result, resultlen, "%s", sfield(r, "result"));
    freeReplyObject(r);
    return QUEUE_OK;
}

/* --------------------------------------------------------------- reads */

enum queue_rc queue_progress(struct queue_conn *k, const char *pool, const char *id,
                             const char *stage, int test, int count, const char *verdict,
                             char *err, size_t errlen)
{
    struct args a;
    args_start(&a, "judged_progress", pool);
    add(&a, "id", id);
    add(&a, "stage", stage);
    add_num(&a, "test", test);
    add_num(&a, "count", count);
    add(&a, "verdict", verdict ? verdict : "");
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, -1, "progress", err, errlen);
    if (rc == QUEUE_OK)
        freeReplyObject(r);
    return rc;
}

enum queue_rc queue_progress_test(struct queue_conn *k, const struct queue_test_done *t, char *err,
                                  size_t errlen)
{
    struct args a;
    args_start(&a, "judged_progress", t->pool);
    add(&a, "id", t->id);
    add(&a, "stage", "test");
    add_num(&a, "test", t->test);
    add_num(&a, "count", t->count);
    add(&a, "verdict", t->verdict ? t->verdict : "");
    add(&a, "host", t->host);
    if (t->record) {
        add(&a, "identity", t->identity);
        add(&a, "record", t->record);
    }
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, -1, "progress", err, errlen);
    if (rc == QUEUE_OK)
        freeReplyObject(r);
    return rc;
}

void queue_checkpoint_free(struct queue_checkpoint *c)
{
    for (size_t i = 0; c->records && i < c->count; i++)
        free(c->records[i]);
    free(c->records);
    free(c->identity);
    memset(c, 0, sizeof *c);
}

enum queue_rc queue_checkpoint_read(struct queue_conn *k, const char *pool, const char *id, size_t max_tests,
                                    struct queue_checkpoint *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct args a;
    args_start(&a, "judged_checkpoint", pool);
    add(&a, "id", id);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "checkpoint", err, errlen);
    if (rc)
        return rc;
    const char *ident = queue_rstr(field(r, "identity"));
    out->identity = strdup(ident ? ident : "");
    /* fields t1, t2, ...: the highest sizes the array */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i + 1 < r->elements; i += 2) {
            const char *f = queue_rstr(r->element[i]), *v = queue_rstr(r->element[i + 1]);
            char *end = NULL;
            unsigned long test = f && f[0] == 't' ? strtoul(f + 1, &end, 10) : 0;
            if (test < 1 || test > max_tests || *end || !v)
                continue;
            if (pass == 0 && test > out->count)
                out->count = test;
            else if (pass == 1 && out->records && !out->records[test - 1])
                out->records[test - 1] = strdup(v);
        }
        if (pass == 0)
            out->records = calloc(out->count ? out->count : 1, sizeof *out->records);
    }
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_note(struct queue_conn *k, const char *pool, const char *host, int queue, const char *entry,
                         const char *id, const char *note, char *err, size_t errlen)
{
    struct args a;
    args_start(&a, "judged_note", pool);
    add(&a, "host", host);
    add(&a, "queue", queue_name(queue));
    add(&a, "entry", entry);
    add(&a, "id", id);
    add(&a, "note", note);
    redisReply *r = call(k, &a);
    enum queue_rc rc = check(k, r, -1, "note", err, errlen);
    if (rc == QUEUE_OK)
        freeReplyObject(r);
    return rc;
}

enum queue_rc queue_result(struct queue_conn *k, const char *id, struct queue_result *out,
                           bool *found, char *err, size_t errlen)
{
    char pool[80], ksub[400], kres[400];
    memset(out, 0, sizeof *out);
    *found = false;
    if (!queue_id_pool(id, pool, sizeof pool))
        return QUEUE_OK;
    queue_submission_key(ksub, sizeof ksub, pool, id);
    queue_result_key(kres, sizeof kres, pool, id);
    /* the result hash first: a submission finishing between the two reads
     * is then read as running, never as done without its verdict */
    redisReply *res = queue_cmd(k, "HMGET %s verdict score report finished dead", kres);
    enum queue_rc rc = check(k, res, REDIS_REPLY_ARRAY, "result", err, errlen);
    if (rc)
        return rc;
    static const char *names[] = {"state", "verdict", "score", "report", "lang", "problem",
                                  "priority", "attempts", "created", "started", "finished", "host",
                                  "version", "owner", "metadata"};
    enum { NF = sizeof names / sizeof names[0] };
    /* verdict, score, report and finished come from the result hash alone
     * (below): fields of those names in a submission hash (one of library
     * version 12 or older, or planted by the platform's ACL user, which may write
     * submission hashes) are ignored */
    const char *argv[NF + 2] = {"HMGET", ksub};
    for (int i = 0; i < NF; i++)
        argv[2 + i] = names[i];
    redisReply *r = queue_cmdv(k, NF + 2, argv, NULL);
    rc = check(k, r, REDIS_REPLY_ARRAY, "result", err, errlen);
    if (rc) {
        freeReplyObject(res);
        return rc;
    }
    const char *v[NF];
    for (int i = 0; i < NF; i++)
        v[i] = i < (int)r->elements ? queue_rstr(r->element[i]) : NULL;
    const char *rv[5];
    for (int i = 0; i < 5; i++)
        rv[i] = i < (int)res->elements ? queue_rstr(res->element[i]) : NULL;
    v[1] = rv[0], v[2] = rv[1], v[3] = rv[2], v[10] = rv[3];
    if (v[0]) {
        *found = true;
        bool done = rv[0] != NULL;
        snprintf(out->state, sizeof out->state, "%s", done ? "done" : !strcmp(v[0], "running") ? "running" : "queued");
        snprintf(out->verdict, sizeof out->verdict, "%s", done && v[1] ? v[1] : "");
        out->score = done && v[2] ? atof(v[2]) : 0;
        out->report = done && v[3] ? strdup(v[3]) : NULL;
        snprintf(out->lang, sizeof out->lang, "%s", v[4] ? v[4] : "");
        snprintf(out->problem, sizeof out->problem, "%s", v[5] ? v[5] : "");
        snprintf(out->priority, sizeof out->priority, "%s", v[6] ? v[6] : "");
        out->attempts = v[7] ? atoi(v[7]) : 0;
        out->dead = done && rv[4] && !strcmp(rv[4], "1");
        out->created = v[8] ? atoll(v[8]) : 0;
        out->started = v[9] ? atoll(v[9]) : 0;
        out->finished = v[10] ? atoll(v[10]) : 0;
        snprintf(out->host, sizeof out->host, "%s", v[11] ? v[11] : "");
        snprintf(out->version, sizeof out->version, "%s", v[12] ? v[12] : "");
        snprintf(out->owner, sizeof out->owner, "%s", v[13] ? v[13] : "");
        out->metadata = v[14] ? strdup(v[14]) : NULL;
    }
    freeReplyObject(r);
    freeReplyObject(res);
    return QUEUE_OK;
}

void queue_result_free(struct queue_result *r)
{
    free(r->report);
    free(r->metadata);
    r->report = NULL;
    r->metadata = NULL;
}

/* One integer reply (XLEN, ZCARD, LLEN...) into *v. */
static enum queue_rc count_of(struct queue_conn *k, const char *cmd, const char *key, long long *v,
                              char *err, size_t errlen)
{
    redisReply *r = queue_cmd(k, "%s %s", cmd, key);
    enum queue_rc rc = check(k, r, REDIS_REPLY_INTEGER, cmd, err, errlen);
    if (rc == QUEUE_OK) {
        *v = r->integer;
        freeReplyObject(r);
    }
    return rc;
}

/* What XINFO GROUPS says of judged's group on one work queue. */
struct group_view {
    long long pending;       /* delivered, not acknowledged: running */
    long long lag;           /* entries no host has read; -1: Redis cannot tell */
    char last[64];           /* last-delivered id */
};

/* The group's view of queue key: no stream yet, nothing waits (lag 0); no
 * group on a stream, nothing pending and the lag unknown; last "0-0". */
static enum queue_rc group_of(struct queue_conn *k, const char *key, struct group_view *g, char *err,
                              size_t errlen)
{
    *g = (struct group_view){.lag = -1, .last = "0-0"};
    redisReply *r = queue_cmd(k, "XINFO GROUPS %s", key);
    if (!r) {
        snprintf(err, errlen, "XINFO GROUPS: redis: %s", k->err);
        return QUEUE_IO;
    }
    if (r->type == REDIS_REPLY_ERROR && strstr(r->str, "no such key"))
        g->lag = 0;
    for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        const redisReply *e = r->element[i];
        if (strcmp(sfield(e, "name"), QUEUE_GROUP))
            continue;
        g->pending = ifield(e, "pending");
        const redisReply *lag = field(e, "lag");
        g->lag = lag && lag->type == REDIS_REPLY_INTEGER ? lag->integer : -1;
        if (*sfield(e, "last-delivered-id"))
            snprintf(g->last, sizeof g->last, "%s", sfield(e, "last-delivered-id"));
    }
    freeReplyObject(r);
    return QUEUE_OK;
}

/* The stream id time (ms) of the oldest entry after the last-delivered id:
 * the oldest job no host has claimed; 0 if none. */
static long long oldest_unclaimed(struct queue_conn *k, const char *key, const char *last)
{
    redisReply *x = queue_cmd(k, "XRANGE %s (%s + COUNT 1", key, last);
    long long t = 0;
    if (x && x->type == REDIS_REPLY_ARRAY && x->elements == 1 && queue_rstr(x->element[0]->element[0]))
        t = atoll(x->element[0]->element[0]->str);
    if (x)
        freeReplyObject(x);
    return t;
}

long long queue_redis_now(struct queue_conn *k)
{
    redisReply *r = queue_cmd(k, "TIME");
    long long t = 0;
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2)
        t = atoll(queue_rstr(r->element[0]) ? r->element[0]->str : "0") * 1000 +
            atoll(queue_rstr(r->element[1]) ? r->element[1]->str : "0") / 1000;
    if (r)
        freeReplyObject(r);
    return t;
}

/* Verdicts per minute, from the pool's newest results events (the results
 * stream's ids are Redis' ms clock): at most QUEUE_RATE_SAMPLE of them, none
 * older than QUEUE_RATE_WINDOW_MS before now, the pace between the first
 * and the last. -1 with fewer than two: a pool that judged nothing lately
 * has no pace to tell. A counter of our own would cost a write per verdict;
 * the stream is already there, trimmed to results_max. */
static double recent_rate(struct queue_conn *k, const char *pool, long long now)
{
    char key[200];
    queue_key(key, sizeof key, pool, SUFFIX_RESULTS);
    redisReply *r = queue_cmd(k, "XREVRANGE %s + %lld COUNT %d", key, now - QUEUE_RATE_WINDOW_MS,
                              QUEUE_RATE_SAMPLE);
    double rate = -1;
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements >= 2) {
        const redisReply *newest = r->element[0], *oldest = r->element[r->elements - 1];
        long long t1 = newest->type == REDIS_REPLY_ARRAY && newest->elements ? atoll(queue_rstr(newest->element[0]) ?: "0") : 0;
        long long t0 = oldest->type == REDIS_REPLY_ARRAY && oldest->elements ? atoll(queue_rstr(oldest->element[0]) ?: "0") : 0;
        if (t0 > 0 && t1 >= t0)   /* several in one ms: a span of 1 ms */
            rate = (double)(r->elements - 1) * 60000.0 / (double)(t1 > t0 ? t1 - t0 : 1);
    }
    if (r)
        freeReplyObject(r);
    return rate;
}

enum queue_rc queue_pool_status(struct queue_conn *k, const char *pool, struct queue_pool_status *out,
                                char *err, size_t errlen)
{
    char key[200];
    memset(out, 0, sizeof *out);
    queue_key(key, sizeof key, pool, SUFFIX_STATE);
    redisReply *r = queue_cmd(k, "GET %s", key);
    enum queue_rc rc = check(k, r, -1, "GET", err, errlen);
    if (rc)
        return rc;
    snprintf(out->state, sizeof out->state, "%s", queue_rstr(r) ? r->str : "active");
    freeReplyObject(r);
    long long oldest = 0;
    for (int q = 0; q < 2; q++) {
        queue_key(key, sizeof key, pool, SUFFIX_QUEUE(q));
        struct group_view g;
        if ((rc = group_of(k, key, &g, err, errlen)))
            return rc;
        out->lag[q] = g.lag;
        out->running += g.pending;
        if (g.lag >= 0) {
            out->waiting[q] = g.lag;
        } else {
            /* an older library's XDEL left tombstones: finished entries are
             * gone from the stream, so its length less the pending ones */
            long long len;
            if ((rc = count_of(k, "XLEN", key, &len, err, errlen)))
                return rc;
            out->waiting[q] = len - g.pending > 0 ? len - g.pending : 0;
        }
        long long t = out->waiting[q] ? oldest_unclaimed(k, key, g.last) : 0;
        if (t && (!oldest || t < oldest))
            oldest = t;
    }
    const char *more[][2] = {{"ZCARD", SUFFIX_DELAYED}, {"LLEN", SUFFIX_REJUDGE}, {"XLEN", SUFFIX_DLQ}};
    long long *dst[] = {&out->delayed, &out->rejudge, &out->dlq};
    for (int i = 0; i < 3; i++) {
        queue_key(key, sizeof key, pool, more[i][1]);
        if ((rc = count_of(k, more[i][0], key, dst[i], err, errlen)))
            return rc;
    }
    long long now = queue_redis_now(k);
    if (oldest)
        out->oldest_ms = now > oldest ? now - oldest : 0;
    long long ahead = out->waiting[0] + out->waiting[1] + out->delayed;
    out->verdicts_per_min = now ? recent_rate(k, pool, now) : -1;
    out->expected_wait_ms = !ahead                       ? 0
                            : out->verdicts_per_min > 0 ? (long long)((double)ahead * 60000.0 / out->verdicts_per_min)
                                                        : -1;
    if (!strcmp(out->state, "draining") && out->running == 0) {
        bool backlog = out->waiting[0] || out->waiting[1] || out->delayed || out->rejudge;
        snprintf(out->state, sizeof out->state, "%s", backlog ? "held" : "drained");
    }
    return QUEUE_OK;
}

static int cmp_event(const void *a, const void *b)
{
    const struct queue_event *x = a, *y = b;
    unsigned long long xm = strtoull(x->event, NULL, 10), ym = strtoull(y->event, NULL, 10);
    if (xm != ym)
        return xm < ym ? -1 : 1;
    const char *xd = strchr(x->event, '-'), *yd = strchr(y->event, '-');
    unsigned long long xs = xd ? strtoull(xd + 1, NULL, 10) : 0, ys = yd ? strtoull(yd + 1, NULL, 10) : 0;
    return xs < ys ? -1 : xs > ys;
}

static void parse_event(const redisReply *e, struct queue_event *ev)
{
    memset(ev, 0, sizeof *ev);
    if (e->type != REDIS_REPLY_ARRAY || e->elements < 2)
        return;
    snprintf(ev->event, sizeof ev->event, "%s", queue_rstr(e->element[0]) ? queue_rstr(e->element[0]) : "");
    const redisReply *f = e->element[1];
    snprintf(ev->id, sizeof ev->id, "%s", sfield(f, "id"));
    snprintf(ev->verdict, sizeof ev->verdict, "%s", sfield(f, "verdict"));
    snprintf(ev->pool, sizeof ev->pool, "%s", sfield(f, "pool"));
    ev->score = atof(sfield(f, "score"));
    ev->time = atoll(sfield(f, "time"));
    snprintf(ev->problem_version, sizeof ev->problem_version, "%s", sfield(f, "problem_version"));
    ev->rejudge = !strcmp(sfield(f, "rejudge"), "true");
    snprintf(ev->rejudge_id, sizeof ev->rejudge_id, "%s", sfield(f, "rejudge_id"));
    snprintf(ev->previous_verdict, sizeof ev->previous_verdict, "%s", sfield(f, "previous_verdict"));
    ev->previous_score = atof(sfield(f, "previous_score"));
}

/* XREAD [BLOCK ms] [COUNT n] STREAMS results-of-every-pool last...; NULL on I/O trouble. */
static redisReply *xread_pools(struct queue_conn *k, const char *const *pools, int np, char (*last)[64],
                               int count, long block_ms)
{
    const char **argv = calloc((size_t)(2 * np + 8), sizeof *argv);
    char(*keys)[200] = calloc((size_t)np + 1, sizeof *keys);
    char blk[32], cnt[32];
    int a = 0;
    argv[a++] = "XREAD";
    if (block_ms > 0) {
        snprintf(blk, sizeof blk, "%ld", block_ms);
        argv[a++] = "BLOCK";
        argv[a++] = blk;
    }
    if (count > 0) {
        snprintf(cnt, sizeof cnt, "%d", count);
        argv[a++] = "COUNT";
        argv[a++] = cnt;
    }
    argv[a++] = "STREAMS";
    for (int i = 0; i < np; i++) {
        queue_key(keys[i], sizeof keys[i], pools[i], SUFFIX_RESULTS);
        argv[a++] = keys[i];
    }
    for (int i = 0; i < np; i++)
        argv[a++] = last[i];
    redisReply *r = queue_cmdv(k, a, argv, NULL);
    free(argv);
    free(keys);
    return r;
}

static int pool_of_stream(const char *const *pools, int np, const redisReply *name)
{
    char key[200];
    for (int i = 0; i < np && queue_rstr(name); i++) {
        queue_key(key, sizeof key, pools[i], SUFFIX_RESULTS);
        if (!strcmp(key, name->str))
            return i;
    }
    return -1;
}

/*
 * One snapshot of every pool, in ONE XREAD: on a single Redis one command
 * is one instant, so an event added later has a later id than everything
 * it returned. Events are kept in id order, and only up to the smallest
 * "last id read" of the pools whose read COUNT cut short (what follows in
 * such a pool may be older than what another pool returned); the cursor
 * of each pool advances over what is kept. So a caller that resumes from
 * the last event it got, with that one id for every pool, loses nothing
 * and repeats nothing. (A Redis Cluster, pools on several nodes, would need
 * one read per node and a time bound instead.)
 */
static enum queue_rc read_pools(struct queue_conn *k, const char *const *pools, int np, char (*last)[64],
                                int count, struct queue_event **out, int *nout, bool *more, char *err,
                                size_t errlen)
{
    redisReply *r = xread_pools(k, pools, np, last, count, 0);
    enum queue_rc rc = check(k, r, -1, "XREAD", err, errlen);
    if (rc)
        return rc;
    char bound[64] = "";
    struct queue_event cut = {0};
    for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        const redisReply *ents = r->element[i]->element[1];
        if (ents->elements == 0)
            continue;
        *out = realloc(*out, sizeof **out * ((size_t)*nout + ents->elements + 1));
        int p = pool_of_stream(pools, np, r->element[i]->element[0]);
        for (size_t e = 0; e < ents->elements; e++) {
            struct queue_event *ev = &(*out)[(*nout)++];
            parse_event(ents->element[e], ev);
            if (p >= 0)   /* the stream says which pool, whatever the entry holds */
                snprintf(ev->pool, sizeof ev->pool, "%s", pools[p]);
        }
        snprintf(cut.event, sizeof cut.event, "%s", ents->element[ents->elements - 1]->element[0]->str);
        if ((int)ents->elements == count) {
            struct queue_event b = {0};
            snprintf(b.event, sizeof b.event, "%s", bound);
            if (!bound[0] || cmp_event(&cut, &b) < 0)
                snprintf(bound, sizeof bound, "%s", cut.event);
            *more = true;
        }
    }
    freeReplyObject(r);
    if (*nout > 1)
        qsort(*out, (size_t)*nout, sizeof **out, cmp_event);
    if (bound[0]) {
        struct queue_event b = {0};
        snprintf(b.event, sizeof b.event, "%s", bound);
        while (*nout > 0 && cmp_event(&(*out)[*nout - 1], &b) > 0)
            (*nout)--;
    }
    /* each pool's cursor: its last event kept (the event's pool field names it) */
    for (int e = 0; e < *nout; e++)
        for (int i = 0; i < np; i++)
            if (!strcmp((*out)[e].pool, pools[i]))
                snprintf(last[i], 64, "%s", (*out)[e].event);
    return QUEUE_OK;
}

enum queue_rc queue_events(struct queue_conn *k, const char *const *pools, int np, char (*last)[64],
                           int count, long block_ms, struct queue_event **out, int *nout, bool *more,
                           char *err, size_t errlen)
{
    *out = NULL;
    *nout = 0;
    *more = false;
    enum queue_rc rc = read_pools(k, pools, np, last, count, out, nout, more, err, errlen);
    if (rc == QUEUE_OK && *nout == 0 && block_ms > 0 && np > 0) {
        /* block until any pool has something new (one XREAD on a single Redis) */
        redisReply *r = xread_pools(k, pools, np, last, 0, block_ms);
        if (!r) {
            snprintf(err, errlen, "XREAD: redis: %s", k->err);
            return QUEUE_IO;
        }
        freeReplyObject(r);
        rc = read_pools(k, pools, np, last, count, out, nout, more, err, errlen);
    }
    return rc;
}

/* One HMGET per event, pipelined: one round trip for the batch. */
enum queue_rc queue_events_about(struct queue_conn *k, const struct queue_event *ev, int n,
                                 struct queue_event_about *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out * (size_t)(n > 0 ? n : 0));
    if (n <= 0)
        return QUEUE_OK;
    if (queue_conn_ensure(k)) {
        queue_io_err(k, "HMGET", err, errlen);
        return QUEUE_IO;
    }
    for (int i = 0; i < n; i++) {
        char key[400];
        queue_submission_key(key, sizeof key, ev[i].pool, ev[i].id);
        redisAppendCommand(k->c, "HMGET %s problem owner metadata lang host", key);
    }
    redisReply **replies = calloc((size_t)n, sizeof *replies);
    enum queue_rc rc = pipeline_replies(k, n, replies);
    if (rc) {
        queue_io_err(k, "HMGET", err, errlen);
        free(replies);
        return rc;
    }
    for (int i = 0; i < n; i++) {
        const redisReply *r = replies[i];
        const char *f[5] = {NULL, NULL, NULL, NULL, NULL};
        for (size_t j = 0; r->type == REDIS_REPLY_ARRAY && j < r->elements && j < 5; j++)
            f[j] = queue_rstr(r->element[j]);
        snprintf(out[i].problem, sizeof out[i].problem, "%s", f[0] ? f[0] : "");
        snprintf(out[i].owner, sizeof out[i].owner, "%s", f[1] ? f[1] : "");
        out[i].metadata = f[2] ? strdup(f[2]) : NULL;
        snprintf(out[i].language, sizeof out[i].language, "%s", f[3] ? f[3] : "");
        snprintf(out[i].host, sizeof out[i].host, "%s", f[4] ? f[4] : "");
        freeReplyObject(replies[i]);
    }
    free(replies);
    return QUEUE_OK;
}

void queue_events_about_free(struct queue_event_about *about, int n)
{
    for (int i = 0; i < n; i++)
        free(about[i].metadata);
}

enum queue_rc queue_events_back(struct queue_conn *k, const char *pool, const char *before, int count,
                                struct queue_event **out, int *nout, char *err, size_t errlen)
{
    char key[200], start[80], cnt[32];
    queue_key(key, sizeof key, pool, SUFFIX_RESULTS);
    if (before && *before)
        snprintf(start, sizeof start, "(%s", before);   /* exclusive (Redis >= 6.2) */
    else
        snprintf(start, sizeof start, "+");
    snprintf(cnt, sizeof cnt, "%d", count);
    const char *argv[] = {"XREVRANGE", key, start, "-", "COUNT", cnt};
    *out = NULL;
    *nout = 0;
    redisReply *r = queue_cmdv(k, 6, argv, NULL);
    enum queue_rc rc = check(k, r, REDIS_REPLY_ARRAY, "XREVRANGE", err, errlen);
    if (rc)
        return rc;
    *out = calloc(r->elements + 1, sizeof **out);
    for (size_t i = 0; i < r->elements; i++) {
        struct queue_event *ev = &(*out)[(*nout)++];
        parse_event(r->element[i], ev);
        snprintf(ev->pool, sizeof ev->pool, "%s", pool);   /* the stream says which pool */
    }
    freeReplyObject(r);
    return QUEUE_OK;
}
