/*
 * rejudge.c - queue judged submissions again with a problem version
 * (store.h, "rejudge"): the one implementation behind `judgectl rejudge`
 * and judge-api's POST /v1/rejudges. The submissions are those of a problem
 * in the given pools (optionally by verdict and admission time), or a list
 * of ids; each is queued with queue_rejudge (the rejudge priority: only
 * what contest and normal work leave over). A rejudge is recorded as
 * judge:rejudge:ID (problem, version, filters, time, count), its
 * submissions in judge:rejudge:ID:ids, its id in the zset judge:rejudges.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "keys.h"
#include "store_internal.h"
#include "store.h"

static int io(struct queue_conn *k, char *err, size_t errlen)
{
    snprintf(err, errlen, "rejudge: redis: %s", k->err[0] ? k->err : "connection lost");
    return STORE_IO;
}

static bool verdict_listed(const char *list, const char *v)
{
    if (!list || !*list)
        return true;
    size_t n = strlen(v);
    for (const char *p = list; *p;) {
        const char *c = strchr(p, ',');
        size_t l = c ? (size_t)(c - p) : strlen(p);
        if (l == n && !strncasecmp(p, v, n))
            return true;
        p += l + (c ? 1 : 0);
    }
    return false;
}

static void add(struct store_rejudge_reply *out, size_t *cap, const char *id, const char *problem,
                const char *verdict, const char *result)
{
    if (out->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        out->items = realloc(out->items, *cap * sizeof *out->items);
    }
    struct store_rejudge_item *it = &out->items[out->n++];
    memset(it, 0, sizeof *it);
    snprintf(it->id, sizeof it->id, "%s", id);
    snprintf(it->problem, sizeof it->problem, "%s", problem ? problem : "");
    snprintf(it->verdict, sizeof it->verdict, "%s", verdict ? verdict : "");
    snprintf(it->result, sizeof it->result, "%s", result);
}

/* A submission as the rejudge reads it: id problem created from its hash,
 * its verdict from its result hash (only judged writes a verdict: issue
 * 25), done when it has one. The replies stay the caller's to free. */
struct sub_read {
    redisReply *h, *res;
    const char *id, *problem, *created, *verdict;
    bool done;
};

static bool sub_read(struct queue_conn *k, const char *pool, const char *id_or_key, bool is_key,
                     struct sub_read *s)
{
    char key[400], kres[400];
    memset(s, 0, sizeof *s);
    const char *id = id_or_key;
    if (is_key) {   /* judge:{POOL}:sub:ID */
        const char *p = strstr(id_or_key, "}:sub:");
        if (!p)
            return true;   /* not a submission: nothing to read */
        id = p + 6;
    }
    queue_submission_key(key, sizeof key, pool, id);
    queue_result_key(kres, sizeof kres, pool, id);
    s->h = queue_cmd(k, "HMGET %s id problem created", key);
    s->res = queue_cmd(k, "HGET %s verdict", kres);
    if (!s->h || s->h->type != REDIS_REPLY_ARRAY || s->h->elements != 3 || !s->res ||
        (s->res->type != REDIS_REPLY_STRING && s->res->type != REDIS_REPLY_NIL))
        return false;
    s->id = queue_rstr(s->h->element[0]);
    s->problem = queue_rstr(s->h->element[1]);
    s->created = queue_rstr(s->h->element[2]);
    s->verdict = queue_rstr(s->res);
    s->done = s->verdict != NULL;
    return true;
}

static void sub_read_free(struct sub_read *s)
{
    if (s->h)
        freeReplyObject(s->h);
    if (s->res)
        freeReplyObject(s->res);
}

/* Does the submission match? */
static bool matches(const struct store_rejudge_args *a, const struct sub_read *s)
{
    return s->id && s->problem && s->done && (!a->problem || !strcmp(s->problem, a->problem)) &&
           verdict_listed(a->verdicts, s->verdict) && (a->since < 0 || (s->created && atoll(s->created) >= a->since));
}

static int scan_pool(struct queue_conn *k, const struct store_rejudge_args *a, const char *pool,
                     struct store_rejudge_reply *out, size_t *cap, char *err, size_t errlen)
{
    char pattern[300], cursor[64] = "0";
    queue_submission_key(pattern, sizeof pattern, pool, "*");
    do {
        /* on the pool's node (redis-cluster://: all of the pool is there) */
        if (queue_conn_route(k, pattern, strlen(pattern)))
            return io(k, err, errlen);
        redisReply *r = queue_cmd(k, "SCAN %s MATCH %s COUNT 1000", cursor, pattern);
        if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
            if (r)
                freeReplyObject(r);
            return io(k, err, errlen);
        }
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        redisReply *keys = r->element[1];
        for (size_t i = 0; i < keys->elements; i++) {
            struct sub_read s;
            if (!sub_read(k, pool, keys->element[i]->str, true, &s)) {
                sub_read_free(&s);
                freeReplyObject(r);
                return io(k, err, errlen);
            }
            if (matches(a, &s))
                add(out, cap, s.id, s.problem, s.verdict, "matched");
            sub_read_free(&s);
        }
        freeReplyObject(r);
    } while (strcmp(cursor, "0"));
    return 0;
}

/* The listed ids: each must exist and be done (and be of a->problem). */
static int pick_ids(struct queue_conn *k, const struct store_rejudge_args *a, struct store_rejudge_reply *out,
                    size_t *cap, char *err, size_t errlen)
{
    for (size_t i = 0; i < a->nids; i++) {
        char pool[80];
        if (!queue_id_pool(a->ids[i], pool, sizeof pool)) {
            add(out, cap, a->ids[i], NULL, NULL, "unknown");
            continue;
        }
        struct sub_read s;
        if (!sub_read(k, pool, a->ids[i], false, &s)) {
            sub_read_free(&s);
            return io(k, err, errlen);
        }
        if (!s.id)
            add(out, cap, a->ids[i], NULL, NULL, "unknown");
        else if (matches(a, &s))
            add(out, cap, a->ids[i], s.problem, s.verdict, "matched");
        else
            add(out, cap, a->ids[i], s.problem, s.verdict, !s.done ? "not judged yet" : "not matched");
        sub_read_free(&s);
    }
    return 0;
}

static int cmp_item(const void *a, const void *b)
{
    return strcmp(((const struct store_rejudge_item *)a)->id, ((const struct store_rejudge_item *)b)->id);
}

/* The version an item is judged with: a->version, else its problem's
 * current one ('' = the hosts' problems directory). */
static int version_for(struct queue_conn *k, const struct store_rejudge_args *a, const char *problem,
                       char ver[65], char *err, size_t errlen)
{
    bool found;
    if (a->version) {
        snprintf(ver, 65, "%s", strcmp(a->version, "local") ? a->version : "");
        return 0;
    }
    return store_current(k, problem, ver, &found, err, errlen);
}

static int record(struct queue_conn *k, const struct store_rejudge_args *a, struct store_rejudge_reply *out,
                  size_t matched)
{
    long long now = (long long)common_wall_ms();
    redisReply *r = queue_cmd(k, "HSET " KEY_REJUDGE "%s problem %s version %s created %lld count %lld verdicts %s "
                                 "since %lld",
                              out->id, a->problem ? a->problem : "", out->version, now, (long long)matched,
                              a->verdicts ? a->verdicts : "", a->since);
    if (!r)
        return -1;
    freeReplyObject(r);
    r = queue_cmd(k, "ZADD " KEY_REJUDGES " %lld %s", now, out->id);
    if (!r)
        return -1;
    freeReplyObject(r);
    return 0;
}

/* A pinned version must be one of the problem's own (version:V:names
 * lists the problems that hold it): another problem's package would judge
 * the submission against other tests. 0, or STORE_ERR naming the item. */
static int version_of_problem(struct queue_conn *k, const char *version, const char *problem, const char *id,
                              char *err, size_t errlen)
{
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_VERSION "%s:names", version);
    redisReply *r = queue_cmd(k, "SISMEMBER %s %s", key, problem);
    if (!r || r->type != REDIS_REPLY_INTEGER) {
        if (r)
            freeReplyObject(r);
        return io(k, err, errlen);
    }
    bool listed = r->integer == 1;
    freeReplyObject(r);
    if (listed)
        return 0;
    snprintf(err, errlen, "version %.64s is not a version of problem '%.200s'%s%.200s%s", version, problem,
             id ? " (submission " : "", id ? id : "", id ? ")" : "");
    return STORE_ERR;
}

int store_rejudge(struct queue_conn *k, const struct store_rejudge_args *a, struct store_rejudge_reply *out,
                  char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0;
    int rc = 0;
    if (a->version && strcmp(a->version, "local")) {
        struct store_manifest m;
        if ((rc = store_get_manifest(k, a->version, &m, err, errlen)))
            return rc;
        store_manifest_free(&m);
    }
    if (a->nids)
        rc = pick_ids(k, a, out, &cap, err, errlen);
    for (size_t i = 0; rc == 0 && !a->nids && i < a->npools; i++)
        rc = scan_pool(k, a, a->pools[i], out, &cap, err, errlen);
    if (rc)
        return rc;
    qsort(out->items, out->n, sizeof *out->items, cmp_item);
    size_t matched = 0;
    for (size_t i = 0; i < out->n; i++)
        matched += !strcmp(out->items[i].result, "matched");
    out->matched = matched;
    bool pinned = a->version && strcmp(a->version, "local");
    if (pinned && a->problem && (rc = version_of_problem(k, a->version, a->problem, NULL, err, errlen)))
        return rc;
    for (size_t i = 0; pinned && i < out->n; i++)
        if (!strcmp(out->items[i].result, "matched") &&
            (rc = version_of_problem(k, a->version, out->items[i].problem, out->items[i].id, err, errlen)))
            return rc;
    if (a->problem && (rc = version_for(k, a, a->problem, out->version, err, errlen)))
        return rc;
    if (a->dry || !matched)
        return 0;
    snprintf(out->id, sizeof out->id, "rj-%llx", (unsigned long long)common_wall_ms());
    if (record(k, a, out, matched))
        return io(k, err, errlen);
    for (size_t i = 0; i < out->n; i++) {
        struct store_rejudge_item *it = &out->items[i];
        char pool[80], ver[65];
        if (strcmp(it->result, "matched") || !queue_id_pool(it->id, pool, sizeof pool))
            continue;
        if ((rc = version_for(k, a, it->problem, ver, err, errlen)))
            return rc;
        redisReply *r = queue_cmd(k, "RPUSH " KEY_REJUDGE "%s:ids %s", out->id, it->id);
        if (r)
            freeReplyObject(r);
        enum queue_rc q = queue_rejudge(k, pool, it->id, ver, out->id, it->result, sizeof it->result, err, errlen);
        if (q != QUEUE_OK)
            return q == QUEUE_IO ? STORE_IO : STORE_ERR;
        out->queued += !strcmp(it->result, "queued");
    }
    return 0;
}

void store_rejudge_free(struct store_rejudge_reply *r)
{
    free(r->items);
    r->items = NULL;
    r->n = 0;
}

/* ------------------------------------------------------------ status */

int store_rejudge_ids(struct queue_conn *k, size_t max, char ***ids, size_t *n, char *err, size_t errlen)
{
    *ids = NULL;
    *n = 0;
    redisReply *r = queue_cmd(k, "ZREVRANGE " KEY_REJUDGES " 0 %lld", (long long)max - 1);
    if (!r)
        return io(k, err, errlen);
    if (r->type != REDIS_REPLY_ARRAY) {
        snprintf(err, errlen, "ZREVRANGE: %s", r->type == REDIS_REPLY_ERROR ? r->str : "unexpected reply");
        freeReplyObject(r);
        return STORE_ERR;
    }
    *ids = calloc(r->elements + 1, sizeof **ids);
    for (size_t i = 0; *ids && i < r->elements; i++)
        if (queue_rstr(r->element[i]) && ((*ids)[*n] = strdup(r->element[i]->str)))
            (*n)++;
    freeReplyObject(r);
    if (!*ids) {
        snprintf(err, errlen, "ZREVRANGE: out of memory");
        return STORE_ERR;
    }
    return STORE_OK;
}

/* Counts one submission of rejudge rid: done (and changed) or waiting. */
static void count_item(struct queue_conn *k, const char *rid, const char *id, struct store_rejudge_status *st)
{
    char pool[80], key[400];
    if (!queue_id_pool(id, pool, sizeof pool))
        return;
    /* the result hash holds the rejudge's bookkeeping and the new verdict */
    queue_result_key(key, sizeof key, pool, id);
    redisReply *s = queue_cmd(k, "HMGET %s verdict rejudge verdict previous_verdict", key);
    if (s && s->type == REDIS_REPLY_ARRAY && s->elements == 4 && queue_rstr(s->element[1])) {
        bool mine = !strcmp(s->element[1]->str, rid);
        bool isdone = queue_rstr(s->element[0]) != NULL;
        if (mine && isdone) {
            st->done++;
            st->changed += queue_rstr(s->element[2]) && queue_rstr(s->element[3]) &&
                           strcmp(s->element[2]->str, s->element[3]->str);
        } else if (mine) {
            st->waiting++;
        }
    }
    if (s)
        freeReplyObject(s);
}

int store_rejudge_status(struct queue_conn *k, const char *rid, struct store_rejudge_status *out, bool *found,
                         char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    *found = false;
    redisReply *h = queue_cmd(k, "HMGET " KEY_REJUDGE "%s problem version created count", rid);
    if (!h)
        return io(k, err, errlen);
    if (h->type != REDIS_REPLY_ARRAY || h->elements != 4) {
        snprintf(err, errlen, "HMGET: %s", h->type == REDIS_REPLY_ERROR ? h->str : "unexpected reply");
        freeReplyObject(h);
        return STORE_ERR;
    }
    *found = queue_rstr(h->element[0]) != NULL;
    if (*found) {
        snprintf(out->id, sizeof out->id, "%s", rid);
        snprintf(out->problem, sizeof out->problem, "%s", h->element[0]->str);
        snprintf(out->version, sizeof out->version, "%s", queue_rstr(h->element[1]) ?: "");
        out->created = queue_rstr(h->element[2]) ? atoll(h->element[2]->str) : 0;
        out->total = queue_rstr(h->element[3]) ? atol(h->element[3]->str) : 0;
    }
    freeReplyObject(h);
    if (!*found)
        return STORE_OK;
    /* the submissions' own hashes say how far it got: a failed read of one
     * counts it as neither done nor waiting, as judgectl always did */
    redisReply *l = queue_cmd(k, "LRANGE " KEY_REJUDGE "%s:ids 0 -1", rid);
    for (size_t j = 0; l && l->type == REDIS_REPLY_ARRAY && j < l->elements; j++)
        if (queue_rstr(l->element[j]))
            count_item(k, rid, l->element[j]->str, out);
    if (l)
        freeReplyObject(l);
    return STORE_OK;
}
