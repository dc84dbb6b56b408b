/*
 * reads.c - the protocol's reads (queue.h, "reads"): a submission's
 * result, a pool's status, Redis's clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

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
    enum queue_rc rc = queue_check(k, res, REDIS_REPLY_ARRAY, "result", err, errlen);
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
    rc = queue_check(k, r, REDIS_REPLY_ARRAY, "result", err, errlen);
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
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_INTEGER, cmd, err, errlen);
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
        if (strcmp(queue_reply_str(e, "name"), QUEUE_GROUP))
            continue;
        g->pending = queue_reply_int(e, "pending");
        const redisReply *lag = queue_reply_field(e, "lag");
        g->lag = lag && lag->type == REDIS_REPLY_INTEGER ? lag->integer : -1;
        if (*queue_reply_str(e, "last-delivered-id"))
            snprintf(g->last, sizeof g->last, "%s", queue_reply_str(e, "last-delivered-id"));
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
    enum queue_rc rc = queue_check(k, r, -1, "GET", err, errlen);
    if (rc)
        return rc;
    snprintf(out->state, sizeof out->state, "%s", queue_rstr(r) ? r->str : "active");
    freeReplyObject(r);
    queue_conn_node(k, key, strlen(key), out->node, sizeof out->node);   /* the GET just went there */
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
