/*
 * stats.c - a host's per-pool statistics: verdict counts and wait/judging
 * histograms gathered in memory and flushed to judge:{P}:stats (queue.h,
 * "claim side").
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

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
    char key[200], f[64];
    queue_key(key, sizeof key, pool, SUFFIX_STATS);
    if (queue_conn_route(k, key, strlen(key))) {   /* the pool's node */
        snprintf(err, errlen, "redis: %s", k->err);
        return QUEUE_IO;
    }
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
