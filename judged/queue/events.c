/*
 * events.c - the results streams read (queue.h, "reads"): the newest
 * events of many pools merged in order, each event's submission read in
 * one round trip, a pool's events backwards.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

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
    snprintf(ev->id, sizeof ev->id, "%s", queue_reply_str(f, "id"));
    snprintf(ev->verdict, sizeof ev->verdict, "%s", queue_reply_str(f, "verdict"));
    snprintf(ev->pool, sizeof ev->pool, "%s", queue_reply_str(f, "pool"));
    ev->score = atof(queue_reply_str(f, "score"));
    ev->time = atoll(queue_reply_str(f, "time"));
    snprintf(ev->problem_version, sizeof ev->problem_version, "%s", queue_reply_str(f, "problem_version"));
    ev->rejudge = !strcmp(queue_reply_str(f, "rejudge"), "true");
    snprintf(ev->rejudge_id, sizeof ev->rejudge_id, "%s", queue_reply_str(f, "rejudge_id"));
    snprintf(ev->previous_verdict, sizeof ev->previous_verdict, "%s", queue_reply_str(f, "previous_verdict"));
    ev->previous_score = atof(queue_reply_str(f, "previous_score"));
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

/* The events of one XREAD reply appended to out; bound: the smallest
 * last id of a stream that COUNT cut short (*more then set). */
static void take_streams(const redisReply *r, const char *const *pools, int np, int count,
                         struct queue_event **out, int *nout, bool *more, char *bound)
{
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
                snprintf(bound, 64, "%s", cut.event);
            *more = true;
        }
    }
}

/*
 * One snapshot of every pool, in ONE XREAD: on a single Redis one command
 * is one instant, so an event added later has a later id than everything
 * it returned. Events are kept in id order, and only up to the smallest
 * "last id read" of the pools whose read COUNT cut short (what follows in
 * such a pool may be older than what another pool returned); the cursor
 * of each pool advances over what is kept. So a caller that resumes from
 * the last event it got, with that one id for every pool, loses nothing
 * and repeats nothing. Under redis-cluster:// the pools live on several
 * nodes: one XREAD per pool, merged the same way; the ids are the nodes'
 * clocks, so one resume id holds only as far as those clocks agree
 * (README.md, "Redis Cluster").
 */
static enum queue_rc read_pools(struct queue_conn *k, const char *const *pools, int np, char (*last)[64],
                                int count, struct queue_event **out, int *nout, bool *more, char *err,
                                size_t errlen)
{
    char bound[64] = "";
    bool cluster = queue_url_is_cluster(k->url);
    int reads = cluster ? np : 1;
    for (int i = 0; i < reads; i++) {
        redisReply *r = cluster ? xread_pools(k, &pools[i], 1, &last[i], count, 0)
                                   : xread_pools(k, pools, np, last, count, 0);
        enum queue_rc rc = queue_check(k, r, -1, "XREAD", err, errlen);
        if (rc)
            return rc;
        take_streams(r, pools, np, count, out, nout, more, bound);
        freeReplyObject(r);
    }
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

/* Under redis-cluster:// one XREAD cannot wait on several nodes: a follow
 * waits on the first pool at most this long, then reads every pool again. */
#define CLUSTER_FOLLOW_POLL_MS 100

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
        redisReply *r = xread_pools(k, pools, queue_url_is_cluster(k->url) ? 1 : np, last, 0,
                                    queue_url_is_cluster(k->url) && block_ms > CLUSTER_FOLLOW_POLL_MS ? CLUSTER_FOLLOW_POLL_MS
                                                                                    : block_ms);
        if (!r) {
            snprintf(err, errlen, "XREAD: redis: %s", k->err);
            return QUEUE_IO;
        }
        freeReplyObject(r);
        rc = read_pools(k, pools, np, last, count, out, nout, more, err, errlen);
    }
    return rc;
}

#define ABOUT_FIELDS "problem owner metadata lang host"

/* One HMGET per event, pipelined: one round trip for the batch. */
static enum queue_rc about_pipelined(struct queue_conn *k, const struct queue_event *ev, int n,
                                     redisReply **replies)
{
    if (queue_conn_ensure(k))
        return QUEUE_IO;
    for (int i = 0; i < n; i++) {
        char key[400];
        queue_submission_key(key, sizeof key, ev[i].pool, ev[i].id);
        redisAppendCommand(k->c, "HMGET %s " ABOUT_FIELDS, key);
    }
    return queue_pipeline_replies(k, n, replies);
}

/* Under redis-cluster:// the events' pools may live on several nodes: one
 * HMGET each, on its pool's node. */
static enum queue_rc about_one_by_one(struct queue_conn *k, const struct queue_event *ev, int n,
                                      redisReply **replies)
{
    for (int i = 0; i < n; i++) {
        char key[400];
        queue_submission_key(key, sizeof key, ev[i].pool, ev[i].id);
        replies[i] = queue_cmd(k, "HMGET %s " ABOUT_FIELDS, key);
        if (!replies[i] || replies[i]->type == REDIS_REPLY_ERROR) {
            for (int j = 0; j <= i; j++)
                if (replies[j])
                    freeReplyObject(replies[j]);
            return QUEUE_IO;
        }
    }
    return QUEUE_OK;
}

/* The submission of each event: its problem, owner... */
enum queue_rc queue_events_about(struct queue_conn *k, const struct queue_event *ev, int n,
                                 struct queue_event_about *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out * (size_t)(n > 0 ? n : 0));
    if (n <= 0)
        return QUEUE_OK;
    redisReply **replies = calloc((size_t)n, sizeof *replies);
    enum queue_rc rc = replies ? (queue_url_is_cluster(k->url) ? about_one_by_one(k, ev, n, replies) : about_pipelined(k, ev, n, replies))
                               : QUEUE_IO;
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
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "XREVRANGE", err, errlen);
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
