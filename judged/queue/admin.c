/*
 * admin.c - what judgectl and judge-api read and remove besides the
 * protocol's functions: a pool's dead letters (list, one, the newest of a
 * submission, drop), its consumers, its statistics, a results stream's
 * newest event, a liveness ping. Plain commands, not functions of
 * judged.lua: the admin and platform users' ACLs (README.md, "Roles") are
 * written for exactly these commands on these keys, and a read needs no
 * atomicity. Each is one C function here so that no front spells a
 * command or a key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

/* ------------------------------------------------------------ replies */

/* Sorts a reply: QUEUE_OK when it is of type want (kept for the caller),
 * else QUEUE_IO or QUEUE_ERROR with err (and the reply freed). */
static enum queue_rc expect(struct queue_conn *k, redisReply *r, int want, const char *what, char *err,
                            size_t errlen)
{
    if (!r) {
        snprintf(err, errlen, "%s: redis: %s", what, k->err);
        return QUEUE_IO;
    }
    if (r->type == want)
        return QUEUE_OK;
    if (r->type == REDIS_REPLY_ERROR)
        snprintf(err, errlen, "%s: %s", what, r->str);
    else
        snprintf(err, errlen, "%s: unexpected reply", what);
    freeReplyObject(r);
    return QUEUE_ERROR;
}

void queue_fields_free(struct queue_fields *f)
{
    for (size_t i = 0; i < 2 * f->n; i++)
        free(f->kv[i]);
    free(f->kv);
    memset(f, 0, sizeof *f);
}

/* A flat [field, value, ...] reply (a hash, a stream entry's fields):
 * values that are not strings are left out, as the fronts always did. -1
 * when out of memory. */
static int pairs_parse(const redisReply *f, struct queue_fields *out)
{
    size_t n = f->type == REDIS_REPLY_ARRAY ? f->elements / 2 : 0;
    out->kv = calloc(2 * n + 1, sizeof *out->kv);
    if (!out->kv)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const char *fk = queue_rstr(f->element[2 * i]), *fv = queue_rstr(f->element[2 * i + 1]);
        if (!fk || !fv)
            continue;
        out->kv[2 * out->n] = strdup(fk);
        out->kv[2 * out->n + 1] = strdup(fv);
        out->n++;
        if (!out->kv[2 * out->n - 2] || !out->kv[2 * out->n - 1])
            return -1;
    }
    return 0;
}

/* A stream entry [id, [field, value, ...]]. */
static int entry_parse(const redisReply *e, struct queue_fields *out)
{
    memset(out, 0, sizeof *out);
    if (e->type != REDIS_REPLY_ARRAY || e->elements < 2 || !queue_rstr(e->element[0]))
        return 0;
    snprintf(out->entry, sizeof out->entry, "%s", e->element[0]->str);
    return pairs_parse(e->element[1], out);
}

const char *queue_field(const struct queue_fields *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->kv[2 * i], name))
            return f->kv[2 * i + 1];
    return NULL;
}

void queue_entries_free(struct queue_entries *es)
{
    for (size_t i = 0; i < es->n; i++)
        queue_fields_free(&es->e[i]);
    free(es->e);
    memset(es, 0, sizeof *es);
}

enum queue_rc queue_entries_parse(const redisReply *r, struct queue_entries *out, const char *what, char *err,
                                  size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->e = calloc(r->elements + 1, sizeof *out->e);
    bool oom = !out->e;
    for (size_t i = 0; !oom && i < r->elements; i++)
        oom = entry_parse(r->element[i], &out->e[out->n++]) != 0;
    if (oom) {
        queue_entries_free(out);
        snprintf(err, errlen, "%s: out of memory", what);
        return QUEUE_ERROR;
    }
    return QUEUE_OK;
}

/* --------------------------------------------------------- dead letters */

enum queue_rc queue_dlq_list(struct queue_conn *k, const char *pool, long count, struct queue_entries *out,
                             char *err, size_t errlen)
{
    char key[200];
    memset(out, 0, sizeof *out);
    queue_key(key, sizeof key, pool, SUFFIX_DLQ);
    redisReply *r = count > 0 ? queue_cmd(k, "XRANGE %s - + COUNT %ld", key, count)
                              : queue_cmd(k, "XRANGE %s - +", key);
    enum queue_rc rc = expect(k, r, REDIS_REPLY_ARRAY, "XRANGE", err, errlen);
    if (rc == QUEUE_OK) {
        rc = queue_entries_parse(r, out, "XRANGE", err, errlen);
        freeReplyObject(r);
    }
    return rc;
}

/* The entries from, to of the pool's DLQ (one when from = to), or all
 * newest first when rev. */
static enum queue_rc dlq_range(struct queue_conn *k, const char *pool, const char *entry, bool rev,
                               struct queue_entries *out, char *err, size_t errlen)
{
    char key[200];
    memset(out, 0, sizeof *out);
    queue_key(key, sizeof key, pool, SUFFIX_DLQ);
    redisReply *r = rev ? queue_cmd(k, "XREVRANGE %s + -", key) : queue_cmd(k, "XRANGE %s %s %s", key, entry, entry);
    enum queue_rc rc = expect(k, r, REDIS_REPLY_ARRAY, "XRANGE", err, errlen);
    if (rc == QUEUE_OK) {
        rc = queue_entries_parse(r, out, "XRANGE", err, errlen);
        freeReplyObject(r);
    }
    return rc;
}

/* Moves es->e[i] into out (the rest is freed). */
static void take_entry(struct queue_entries *es, size_t i, struct queue_fields *out)
{
    *out = es->e[i];
    memset(&es->e[i], 0, sizeof es->e[i]);
    queue_entries_free(es);
}

enum queue_rc queue_dlq_entry(struct queue_conn *k, const char *pool, const char *entry, struct queue_fields *out,
                              bool *found, char *err, size_t errlen)
{
    struct queue_entries es;
    memset(out, 0, sizeof *out);
    *found = false;
    enum queue_rc rc = dlq_range(k, pool, entry, false, &es, err, errlen);
    if (rc)
        return rc;
    *found = es.n == 1;
    if (*found)
        take_entry(&es, 0, out);
    queue_entries_free(&es);
    return QUEUE_OK;
}

enum queue_rc queue_dlq_find(struct queue_conn *k, const char *pool, const char *id, struct queue_fields *out,
                             bool *found, char *err, size_t errlen)
{
    struct queue_entries es;
    memset(out, 0, sizeof *out);
    *found = false;
    enum queue_rc rc = dlq_range(k, pool, NULL, true, &es, err, errlen);
    if (rc)
        return rc;
    for (size_t i = 0; i < es.n && !*found; i++) {
        const char *sid = queue_field(&es.e[i], "id");
        if (sid && !strcmp(sid, id)) {
            *found = true;
            take_entry(&es, i, out);
        }
    }
    queue_entries_free(&es);
    return QUEUE_OK;
}

enum queue_rc queue_dlq_drop(struct queue_conn *k, const char *pool, const char *entry, char *err, size_t errlen)
{
    char key[200];
    queue_key(key, sizeof key, pool, SUFFIX_DLQ);
    redisReply *r = queue_cmd(k, "XDEL %s %s", key, entry);
    enum queue_rc rc = expect(k, r, REDIS_REPLY_INTEGER, "XDEL", err, errlen);
    if (rc == QUEUE_OK)
        freeReplyObject(r);
    return rc;
}

/* ------------------------------------------------------------- others */

/* Appends v to names unless it is there; -1 when out of memory. */
static int add_name(char ***names, size_t *n, const char *v)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*names)[i], v))
            return 0;
    char **grown = realloc(*names, (*n + 1) * sizeof **names);
    if (!grown)
        return -1;
    *names = grown;
    if (!(grown[*n] = strdup(v)))
        return -1;
    (*n)++;
    return 0;
}

enum queue_rc queue_consumers(struct queue_conn *k, const char *pool, char ***names, size_t *n, char *err,
                              size_t errlen)
{
    *n = 0;
    *names = NULL;
    int oom = 0;
    for (int q = 0; !oom && q < 2; q++) {
        char key[200];
        queue_key(key, sizeof key, pool, SUFFIX_QUEUE(q));
        redisReply *r = queue_cmd(k, "XINFO CONSUMERS %s %s", key, QUEUE_GROUP);
        for (size_t e = 0; r && r->type == REDIS_REPLY_ARRAY && e < r->elements; e++) {
            const redisReply *ci = r->element[e];
            for (size_t f = 0; !oom && ci->type == REDIS_REPLY_ARRAY && f + 1 < ci->elements; f += 2) {
                const char *fn = queue_rstr(ci->element[f]), *v = queue_rstr(ci->element[f + 1]);
                if (fn && v && !strcmp(fn, "name"))
                    oom = add_name(names, n, v);
            }
        }
        if (r)
            freeReplyObject(r);   /* a missing stream has no consumers: not an error */
    }
    if (oom) {
        queue_names_free(*names, *n);
        *names = NULL;
        *n = 0;
        snprintf(err, errlen, "XINFO CONSUMERS: out of memory");
        return QUEUE_ERROR;
    }
    return QUEUE_OK;
}

void queue_stream_key(char *buf, size_t len, const char *pool, int queue)
{
    queue_key(buf, len, pool, SUFFIX_QUEUE(queue));
}

enum queue_rc queue_ping(struct queue_conn *k, char *err, size_t errlen)
{
    redisReply *r = queue_cmd(k, "PING");
    enum queue_rc rc = expect(k, r, REDIS_REPLY_STATUS, "PING", err, errlen);
    if (rc == QUEUE_OK)
        freeReplyObject(r);
    return rc;
}

enum queue_rc queue_stats_read(struct queue_conn *k, const char *pool, struct queue_fields *out, char *err,
                               size_t errlen)
{
    char key[200];
    memset(out, 0, sizeof *out);
    queue_key(key, sizeof key, pool, SUFFIX_STATS);
    redisReply *r = queue_cmd(k, "HGETALL %s", key);
    enum queue_rc rc = expect(k, r, REDIS_REPLY_ARRAY, "HGETALL", err, errlen);
    if (rc)
        return rc;
    int bad = pairs_parse(r, out);
    freeReplyObject(r);
    if (bad) {
        queue_fields_free(out);
        snprintf(err, errlen, "HGETALL: out of memory");
        return QUEUE_ERROR;
    }
    return QUEUE_OK;
}

/* ------------------------------------------------ results and progress */

enum queue_rc queue_events_tail(struct queue_conn *k, const char *pool, char last[64], char *err, size_t errlen)
{
    char key[200];
    snprintf(last, 64, "0-0");
    queue_key(key, sizeof key, pool, SUFFIX_RESULTS);
    redisReply *r = queue_cmd(k, "XREVRANGE %s + - COUNT 1", key);
    enum queue_rc rc = expect(k, r, REDIS_REPLY_ARRAY, "XREVRANGE", err, errlen);
    if (rc)
        return rc;
    const redisReply *e = r->elements == 1 ? r->element[0] : NULL;
    if (e && e->type == REDIS_REPLY_ARRAY && e->elements >= 1 && queue_rstr(e->element[0]))
        snprintf(last, 64, "%s", e->element[0]->str);
    freeReplyObject(r);
    return QUEUE_OK;
}

/* judge:{POOL}:sub:ID, or false when id names no pool. */
static bool sub_key(char *buf, size_t len, const char *id)
{
    char pool[130], suffix[260];
    if (!queue_id_pool(id, pool, sizeof pool))
        return false;
    snprintf(suffix, sizeof suffix, SUFFIX_SUB "%s", id);
    queue_key(buf, len, pool, suffix);
    return true;
}

enum queue_rc queue_submission_owner(struct queue_conn *k, const char *id, char *owner, size_t ownerlen,
                                     bool *exists, char *err, size_t errlen)
{
    char key[400];
    owner[0] = 0;
    *exists = false;
    if (!sub_key(key, sizeof key, id))
        return QUEUE_OK;
    redisReply *o = queue_cmd(k, "HGET %s owner", key);
    redisReply *e = o ? queue_cmd(k, "EXISTS %s", key) : NULL;
    if (!o || !e) {
        if (o)
            freeReplyObject(o);
        snprintf(err, errlen, "HGET: redis: %s", k->err);
        return QUEUE_IO;
    }
    *exists = e->type == REDIS_REPLY_INTEGER && e->integer == 1;
    if (queue_rstr(o))
        snprintf(owner, ownerlen, "%s", o->str);
    freeReplyObject(o);
    freeReplyObject(e);
    return QUEUE_OK;
}

enum queue_rc queue_submission_state(struct queue_conn *k, const char *id, struct queue_state *out, char *err,
                                     size_t errlen)
{
    char key[400], kres[400], pool[130];
    memset(out, 0, sizeof *out);
    if (!sub_key(key, sizeof key, id) || !queue_id_pool(id, pool, sizeof pool))
        return QUEUE_OK;
    queue_result_key(kres, sizeof kres, pool, id);
    /* the verdict from the result hash, which only judged writes (issue
     * 25); read first, so that a verdict published between the reads
     * shows as running, not as done without it */
    redisReply *v = queue_cmd(k, "HMGET %s verdict score", kres);
    enum queue_rc rc = expect(k, v, REDIS_REPLY_ARRAY, "HMGET", err, errlen);
    if (rc)
        return rc;
    redisReply *r = queue_cmd(k, "HGET %s state", key);
    rc = expect(k, r, r && r->type == REDIS_REPLY_NIL ? REDIS_REPLY_NIL : REDIS_REPLY_STRING, "HGET", err, errlen);
    if (rc) {
        freeReplyObject(v);
        return rc;
    }
    const char *st = queue_rstr(r);
    if (st && v->elements == 2 && queue_rstr(v->element[0])) {
        snprintf(out->state, sizeof out->state, "done");
        snprintf(out->verdict, sizeof out->verdict, "%s", v->element[0]->str);
        out->score = queue_rstr(v->element[1]) ? atof(v->element[1]->str) : 0.0;
    } else if (st) {
        snprintf(out->state, sizeof out->state, "%s", !strcmp(st, "running") ? "running" : "queued");
    }
    freeReplyObject(r);
    freeReplyObject(v);
    return QUEUE_OK;
}

enum queue_rc queue_progress_read(struct queue_conn *k, const char *id, const char *after, int count,
                                  long block_ms, struct queue_entries *out, char *err, size_t errlen)
{
    char pool[130], suffix[260], key[400];
    memset(out, 0, sizeof *out);
    if (!queue_id_pool(id, pool, sizeof pool))
        return QUEUE_OK;
    snprintf(suffix, sizeof suffix, SUFFIX_PROGRESS "%s", id);
    queue_key(key, sizeof key, pool, suffix);
    redisReply *r = queue_cmd(k, "XREAD COUNT %d BLOCK %ld STREAMS %s %s", count, block_ms, key, after);
    if (r && r->type == REDIS_REPLY_NIL) {   /* nothing came within block_ms */
        freeReplyObject(r);
        return QUEUE_OK;
    }
    enum queue_rc rc = expect(k, r, REDIS_REPLY_ARRAY, "XREAD", err, errlen);
    if (rc)
        return rc;
    const redisReply *s = r->elements == 1 ? r->element[0] : NULL;
    if (s && s->type == REDIS_REPLY_ARRAY && s->elements >= 2 && s->element[1]->type == REDIS_REPLY_ARRAY)
        rc = queue_entries_parse(s->element[1], out, "XREAD", err, errlen);
    freeReplyObject(r);
    return rc;
}
