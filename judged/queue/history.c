/* history.c - a pool's history for the dashboard: one sample per 10 s
 * bucket of Redis' clock, kept 24 h, in the stream judge:{P}:history.
 *
 * A sample is what judged already keeps, read once per bucket, not a write
 * per admission or verdict: the admission counter judge:{P}:seq (every
 * admission INCRs it for the id), the verdict counters of judge:{P}:stats
 * (hosts flush theirs every heartbeat) and the gauges of queue_pool_status
 * (depth, oldest wait, running, state). Hosts take it in their heartbeat;
 * the entry's id is the bucket's start, so the first host in a bucket
 * writes it and the others' XADDs are refused (an id not above the top),
 * which is no error. Counters are stored as they stand (cumulative):
 * readers take the difference from the sample before, so a missed bucket
 * or a second writer loses or doubles nothing. A bucket no heartbeat fell
 * in (no host up, or a heartbeat longer than the bucket) has no sample;
 * the next one's differences cover it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>
#include <jansson.h>

#include "queue.h"
#include "queue_internal.h"

#define VERDICT_PREFIX "verdict:"   /* judge:{P}:stats' verdict counters (judged.lua's count_verdict) */
#define SAMPLE_VERDICT "v:"         /* a sample's verdict counters: v:AC, ... */

/* The start ms of the newest sample, 0 if none. */
static enum queue_rc newest_sample(struct queue_conn *k, const char *key, long long *ms, char *err, size_t errlen)
{
    *ms = 0;
    redisReply *r = queue_cmd(k, "XREVRANGE %s + - COUNT 1", key);
    if (!r || r->type != REDIS_REPLY_ARRAY) {
        snprintf(err, errlen, "XREVRANGE %s: %s", key, r && r->type == REDIS_REPLY_ERROR ? r->str : k->err);
        if (r)
            freeReplyObject(r);
        return r ? QUEUE_ERROR : QUEUE_IO;
    }
    if (r->elements == 1 && r->element[0]->type == REDIS_REPLY_ARRAY && r->element[0]->elements >= 1 &&
        queue_rstr(r->element[0]->element[0]))
        *ms = atoll(r->element[0]->element[0]->str);
    freeReplyObject(r);
    return QUEUE_OK;
}

/* argv of the XADD: the fixed fields, then v:VERDICT COUNT pairs */
struct sample {
    const char *argv[64 + 2 * QUEUE_STATS_VERDICTS];
    char num[16][32], key[200], minid[32], id[32];
    int argc, nnum;
};

static void add(struct sample *s, const char *field, const char *value)
{
    if (s->argc + 2 > (int)(sizeof s->argv / sizeof *s->argv))
        return;
    s->argv[s->argc++] = field;
    s->argv[s->argc++] = value;
}

static void add_num(struct sample *s, const char *field, long long v)
{
    snprintf(s->num[s->nnum], sizeof s->num[0], "%lld", v);
    add(s, field, s->num[s->nnum++]);
}

enum queue_rc queue_history_sample(struct queue_conn *k, const char *pool, char *err, size_t errlen)
{
    struct sample s = {.argc = 0};
    queue_key(s.key, sizeof s.key, pool, SUFFIX_HISTORY);
    long long now = queue_redis_now(k), newest;
    if (!now) {
        snprintf(err, errlen, "TIME: redis: %s", k->err);
        return QUEUE_IO;
    }
    long long bucket = now - now % QUEUE_HISTORY_BUCKET_MS;
    enum queue_rc rc = newest_sample(k, s.key, &newest, err, errlen);
    if (rc || newest >= bucket)
        return rc;   /* another host sampled this bucket */
    struct queue_pool_status st;
    if ((rc = queue_pool_status(k, pool, &st, err, errlen)))
        return rc;
    struct queue_fields stats;
    if ((rc = queue_stats_read(k, pool, &stats, err, errlen)))
        return rc;
    char seqkey[200];
    queue_key(seqkey, sizeof seqkey, pool, SUFFIX_SEQ);
    redisReply *seq = queue_cmd(k, "GET %s", seqkey);
    if (!seq) {
        queue_fields_free(&stats);
        snprintf(err, errlen, "GET %s: redis: %s", seqkey, k->err);
        return QUEUE_IO;
    }
    snprintf(s.minid, sizeof s.minid, "%lld", bucket - QUEUE_HISTORY_KEEP_MS);
    snprintf(s.id, sizeof s.id, "%lld-0", bucket);
    const char *head[] = {"XADD", s.key, "MINID", "~", s.minid, s.id};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        s.argv[s.argc++] = head[i];
    add_num(&s, "admitted", queue_rstr(seq) ? atoll(seq->str) : 0);
    add_num(&s, "depth", st.waiting[0] + st.waiting[1] + st.delayed);
    add_num(&s, "oldest_ms", st.oldest_ms);
    add_num(&s, "running", st.running);
    add_num(&s, "dlq", st.dlq);
    add(&s, "state", st.state);
    char names[QUEUE_STATS_VERDICTS][48];
    int nv = 0;
    for (size_t i = 0; i < stats.n && nv < QUEUE_STATS_VERDICTS; i++)
        if (!strncmp(stats.kv[2 * i], VERDICT_PREFIX, strlen(VERDICT_PREFIX))) {
            snprintf(names[nv], sizeof names[nv], SAMPLE_VERDICT "%.40s", stats.kv[2 * i] + strlen(VERDICT_PREFIX));
            add(&s, names[nv++], stats.kv[2 * i + 1]);
        }
    redisReply *r = queue_cmdv(k, s.argc, s.argv, NULL);
    freeReplyObject(seq);
    queue_fields_free(&stats);
    /* a host of another bucket's clock got there first: its sample stands */
    if (r && r->type == REDIS_REPLY_ERROR && strstr(r->str, "equal or smaller")) {
        freeReplyObject(r);
        return QUEUE_OK;
    }
    return queue_reply_done(k, r, "XADD history", err, errlen);
}

/* ------------------------------------------------------------- reading */

static long long field_ll(const struct queue_fields *f, const char *name)
{
    const char *v = queue_field(f, name);
    return v ? atoll(v) : 0;
}

/* The difference of a counter from the sample before (none: 0; a counter
 * that went down was reset: its value). */
static long long delta(const struct queue_fields *prev, const struct queue_fields *cur, const char *name)
{
    long long c = field_ll(cur, name), p = prev ? field_ll(prev, name) : c;
    return c >= p ? c - p : c;
}

static json_t *bucket_json(const struct queue_fields *prev, const struct queue_fields *cur)
{
    json_t *judged = json_object();
    for (size_t i = 0; i < cur->n; i++) {
        const char *f = cur->kv[2 * i];
        long long d = strncmp(f, SAMPLE_VERDICT, strlen(SAMPLE_VERDICT)) ? 0 : delta(prev, cur, f);
        if (d > 0)
            json_object_set_new(judged, f + strlen(SAMPLE_VERDICT), json_integer(d));
    }
    const char *state = queue_field(cur, "state");
    return json_pack("{s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:s}", "time", (json_int_t)atoll(cur->entry),
                     "admitted", (json_int_t)delta(prev, cur, "admitted"), "judged", judged, "depth",
                     (json_int_t)field_ll(cur, "depth"), "oldest_ms", (json_int_t)field_ll(cur, "oldest_ms"),
                     "running", (json_int_t)field_ll(cur, "running"), "dlq", (json_int_t)field_ll(cur, "dlq"),
                     "state", state ? state : "active");
}

enum queue_rc queue_history(struct queue_conn *k, const char *pool, long long since_ms, struct json_t **out, char *err,
                            size_t errlen)
{
    char key[200];
    *out = NULL;
    queue_key(key, sizeof key, pool, SUFFIX_HISTORY);
    /* the sample before since too: the first bucket's differences */
    redisReply *before = queue_cmd(k, "XREVRANGE %s (%lld - COUNT 1", key, since_ms > 0 ? since_ms : 1);
    redisReply *r = before ? queue_cmd(k, "XRANGE %s %lld +", key, since_ms > 0 ? since_ms : 0) : NULL;
    struct queue_entries b = {0}, es = {0};
    enum queue_rc rc = !before || !r ? QUEUE_IO
                       : before->type != REDIS_REPLY_ARRAY || r->type != REDIS_REPLY_ARRAY ? QUEUE_ERROR
                                                                                            : QUEUE_OK;
    if (rc)
        snprintf(err, errlen, "XRANGE %s: %s", key,
                 rc == QUEUE_IO ? k->err : before->type == REDIS_REPLY_ERROR ? before->str
                                         : r->type == REDIS_REPLY_ERROR      ? r->str
                                                                             : "unexpected reply");
    if (!rc)
        rc = queue_entries_parse(before, &b, "XREVRANGE", err, errlen);
    if (!rc && (rc = queue_entries_parse(r, &es, "XRANGE", err, errlen)))
        queue_entries_free(&b);
    if (before)
        freeReplyObject(before);
    if (r)
        freeReplyObject(r);
    if (rc)
        return rc;
    json_t *list = json_array();
    const struct queue_fields *prev = b.n ? &b.e[0] : NULL;
    for (size_t i = 0; i < es.n; prev = &es.e[i++])
        json_array_append_new(list, bucket_json(prev, &es.e[i]));
    queue_entries_free(&b);
    queue_entries_free(&es);
    *out = list;
    return QUEUE_OK;
}
