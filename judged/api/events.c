/* events.c - GET /v1/events: Server-Sent Events, one per finished
 * submission of any pool, `id:` = the results stream entry id; and GET
 * /v1/submissions/ID/events, one submission's progress.
 *
 * Resuming with one id over several streams (one results stream per pool)
 * loses nothing only if every event sent before has a smaller id than every
 * event not sent yet. So all pools are read by ONE XREAD (on a single Redis
 * one command is one instant: an entry added later has a later id than
 * everything it returned), never by one read per pool; events are sent in id
 * order, and only up to the last id read from any pool whose read was cut
 * short by COUNT (the rest waits for the next read). Per pool the cursor
 * advances only over what was sent, so nothing is repeated either. With
 * nothing new, a blocking XREAD (1 s slices) waits, and its answer only
 * triggers the next snapshot read: per event a stream costs two round
 * trips. (A Redis Cluster, pools on several nodes, would need a time bound
 * instead: send only ids below the TIME taken before the reads.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "common.h"

#define SSE_COUNT 500

struct sse {
    struct api *a;
    struct queue_conn k;
    const char **pools;
    int np;
    char (*last)[64];
    char *out;
    size_t len, off, cap;
    double next_heartbeat;   /* monotonic seconds */
};

static int cmp_id(const char *x, const char *y)
{
    unsigned long long xm = 0, xs = 0, ym = 0, ys = 0;
    sscanf(x, "%llu-%llu", &xm, &xs);
    sscanf(y, "%llu-%llu", &ym, &ys);
    return xm != ym ? (xm < ym ? -1 : 1) : xs != ys ? (xs < ys ? -1 : 1) : 0;
}

static bool valid_id(const char *s)
{
    unsigned long long m, q;
    char end;
    return sscanf(s, "%llu-%llu%c", &m, &q, &end) == 2 || sscanf(s, "%llu%c", &m, &end) == 1;
}

static void append(struct sse *s, const char *data, size_t n)
{
    if (s->len + n > s->cap) {
        s->cap = (s->len + n) * 2;
        s->out = realloc(s->out, s->cap);
    }
    memcpy(s->out + s->len, data, n);
    s->len += n;
}

static void send_event(struct sse *s, const struct queue_event *e)
{
    json_t *d = json_pack("{s:s, s:s, s:s, s:f, s:s, s:I}", "event", e->event, "id", e->id,
                          "verdict", e->verdict, "score", e->score, "pool", e->pool,
                          "time", (json_int_t)e->time);
    json_object_set_new(d, "problem_version",
                        e->problem_version[0] ? json_string(e->problem_version) : json_null());
    if (e->rejudge) {   /* a new event for an already judged submission */
        json_object_set_new(d, "rejudge", json_true());
        json_object_set_new(d, "rejudge_id", json_string(e->rejudge_id));
        json_object_set_new(d, "previous_verdict", json_string(e->previous_verdict));
        json_object_set_new(d, "previous_score", json_real(e->previous_score));
    }
    char *js = json_dumps(d, JSON_COMPACT | JSON_REAL_PRECISION(6));
    json_decref(d);
    char head[128];
    int n = snprintf(head, sizeof head, "id: %s\nevent: verdict\ndata: ", e->event);
    append(s, head, (size_t)n);
    append(s, js, strlen(js));
    append(s, "\n\n", 2);
    free(js);
}

static int cmp_event(const void *a, const void *b)
{
    return cmp_id(((const struct queue_event *)a)->event, ((const struct queue_event *)b)->event);
}

/* XREAD [BLOCK ms] COUNT n STREAMS results-of-every-pool last...; NULL on I/O trouble. */
static redisReply *xread(struct sse *s, long block_ms)
{
    const char **argv = calloc((size_t)(2 * s->np + 8), sizeof *argv);
    char(*keys)[200] = calloc((size_t)s->np + 1, sizeof *keys);
    char blk[32], cnt[32];
    int a = 0;
    argv[a++] = "XREAD";
    if (block_ms > 0) {
        snprintf(blk, sizeof blk, "%ld", block_ms);
        argv[a++] = "BLOCK";
        argv[a++] = blk;
    }
    snprintf(cnt, sizeof cnt, "%d", SSE_COUNT);
    argv[a++] = "COUNT";
    argv[a++] = cnt;
    argv[a++] = "STREAMS";
    for (int i = 0; i < s->np; i++) {
        queue_key(keys[i], sizeof keys[i], s->pools[i], "results");
        argv[a++] = keys[i];
    }
    for (int i = 0; i < s->np; i++)
        argv[a++] = s->last[i];
    redisReply *r = queue_cmdv(&s->k, a, argv, NULL);
    free(argv);
    free(keys);
    return r;
}

static int pool_index(struct sse *s, const char *stream)
{
    char key[200];
    for (int i = 0; i < s->np; i++) {
        queue_key(key, sizeof key, s->pools[i], "results");
        if (!strcmp(key, stream))
            return i;
    }
    return -1;
}

/* One snapshot read of every pool: sends what it may; how many it sent. */
static int snapshot(struct sse *s, bool *io)
{
    redisReply *r = xread(s, 0);
    *io = !r;
    if (!r || r->type != REDIS_REPLY_ARRAY) {
        if (r)
            freeReplyObject(r);
        return 0;
    }
    struct queue_event *ev = NULL;
    int n = 0;
    char bound[64] = "";
    for (size_t i = 0; i < r->elements; i++) {
        int p = pool_index(s, r->element[i]->element[0]->str);
        redisReply *ents = r->element[i]->element[1];
        if (p < 0 || ents->elements == 0)
            continue;
        ev = realloc(ev, sizeof *ev * ((size_t)n + ents->elements));
        for (size_t e = 0; e < ents->elements; e++) {
            redisReply *en = ents->element[e], *f = en->element[1];
            struct queue_event *q = &ev[n++];
            memset(q, 0, sizeof *q);
            snprintf(q->event, sizeof q->event, "%s", en->element[0]->str);
            snprintf(q->pool, sizeof q->pool, "%s", s->pools[p]);
            for (size_t j = 0; j + 1 < f->elements; j += 2) {
                const char *k = queue_rstr(f->element[j]), *v = queue_rstr(f->element[j + 1]);
                if (!k || !v)
                    continue;
                if (!strcmp(k, "id"))
                    snprintf(q->id, sizeof q->id, "%s", v);
                else if (!strcmp(k, "verdict"))
                    snprintf(q->verdict, sizeof q->verdict, "%s", v);
                else if (!strcmp(k, "score"))
                    q->score = atof(v);
                else if (!strcmp(k, "time"))
                    q->time = atoll(v);
            }
        }
        /* cut short by COUNT: nothing of any pool after its last entry yet */
        const char *lastread = ents->element[ents->elements - 1]->element[0]->str;
        if ((int)ents->elements == SSE_COUNT && (!bound[0] || cmp_id(lastread, bound) < 0))
            snprintf(bound, sizeof bound, "%s", lastread);
    }
    freeReplyObject(r);
    if (n > 1)
        qsort(ev, (size_t)n, sizeof *ev, cmp_event);
    int sent = 0;
    for (int i = 0; i < n; i++) {
        if (bound[0] && cmp_id(ev[i].event, bound) > 0)
            break;
        send_event(s, &ev[i]);
        for (int p = 0; p < s->np; p++)
            if (!strcmp(ev[i].pool, s->pools[p]))
                snprintf(s->last[p], 64, "%s", ev[i].event);
        sent++;
    }
    free(ev);
    return sent;
}

/* One round: events, or a wait of up to 1 s and then events or a heartbeat. */
static void fill(struct sse *s)
{
    bool io;
    if (snapshot(s, &io) == 0 && !io) {
        redisReply *r = xread(s, 1000);   /* its answer only says: read again */
        io = !r;
        if (r) {
            bool got = r->type == REDIS_REPLY_ARRAY;
            freeReplyObject(r);
            if (got)
                snapshot(s, &io);
        }
    }
    if (io)
        queue_conn_backoff(&s->k);
    double now = common_monotonic();
    if (s->len > s->off)
        s->next_heartbeat = now + s->a->cfg.api.sse_heartbeat_ms / 1000.0;
    else if (now >= s->next_heartbeat) {
        append(s, ": heartbeat\n\n", 13);
        s->next_heartbeat = now + s->a->cfg.api.sse_heartbeat_ms / 1000.0;
    }
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct sse *s = cls;
    while (s->off == s->len) {
        if (atomic_load(&s->a->stopping))
            return MHD_CONTENT_READER_END_OF_STREAM;
        s->off = s->len = 0;
        fill(s);
    }
    size_t n = s->len - s->off < max ? s->len - s->off : max;
    memcpy(buf, s->out + s->off, n);
    s->off += n;
    return (ssize_t)n;
}

static void sse_free(void *cls)
{
    struct sse *s = cls;
    queue_conn_close(&s->k);
    free(s->pools);
    free(s->last);
    free(s->out);
    free(s);
}

enum MHD_Result api_events(struct req *r)
{
    struct api *a = r->api;
    const char *since = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Last-Event-ID");
    if (!since)
        since = api_arg(r, "since");
    if (since && !valid_id(since))
        return api_error(r, 400, "since", "expected a stream entry id like 1700000000000-0");
    struct sse *s = calloc(1, sizeof *s);
    s->a = a;
    queue_conn_init(&s->k, a->redis_url, 5000);
    s->np = a->cfg.npools;
    s->pools = calloc((size_t)s->np, sizeof *s->pools);
    s->last = calloc((size_t)s->np, 64);
    for (int i = 0; i < s->np; i++) {
        s->pools[i] = a->cfg.pools[i].name;
        if (since) {
            snprintf(s->last[i], 64, "%s", since);
            continue;
        }
        /* from now on: each pool's current tail */
        char key[200];
        queue_key(key, sizeof key, s->pools[i], "results");
        redisReply *x = queue_cmd(&s->k, "XREVRANGE %s + - COUNT 1", key);
        if (!x) {
            sse_free(s);
            return api_error_retry(r, 503, 1, "the queue is unavailable");
        }
        snprintf(s->last[i], 64, "%s",
                 x->type == REDIS_REPLY_ARRAY && x->elements == 1 ? x->element[0]->element[0]->str : "0-0");
        freeReplyObject(x);
    }
    append(s, ": connected\n\n", 13);
    s->next_heartbeat = common_monotonic() + a->cfg.api.sse_heartbeat_ms / 1000.0;
    struct MHD_Response *resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, sse_read, s, sse_free);
    if (!resp) {
        sse_free(s);
        return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type", "text/event-stream");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Accel-Buffering", "no");
    enum MHD_Result ret = MHD_queue_response(r->conn, 200, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* ---------------------------------------- GET /v1/submissions/ID/events */

/* The progress of one submission: its progress stream from the start
 * ("compiling", then one event per test), then one "verdict" event once the
 * submission is done, and the end of the stream. */
struct progress {
    struct api *a;
    struct queue_conn k;
    char id[200], pool[80], key[300], sub[300], last[64];
    char *out;
    size_t len, off, cap;
    bool finished;
    double next_heartbeat;
};

static void p_append(struct progress *s, const char *d, size_t n)
{
    if (s->len + n > s->cap) {
        s->cap = (s->len + n) * 2;
        s->out = realloc(s->out, s->cap);
    }
    memcpy(s->out + s->len, d, n);
    s->len += n;
}

static void p_event(struct progress *s, const char *type, const char *eid, json_t *d)
{
    char *js = json_dumps(d, JSON_COMPACT | JSON_REAL_PRECISION(6));
    json_decref(d);
    char head[160];
    int n = eid ? snprintf(head, sizeof head, "id: %s\nevent: %s\ndata: ", eid, type)
                : snprintf(head, sizeof head, "event: %s\ndata: ", type);
    p_append(s, head, (size_t)n);
    p_append(s, js, strlen(js));
    p_append(s, "\n\n", 2);
    free(js);
}

static void p_fill(struct progress *s)
{
    /* the state first: progress written before "done" is then read below */
    redisReply *st = queue_cmd(&s->k, "HMGET %s state verdict score", s->sub);
    bool done = st && st->type == REDIS_REPLY_ARRAY && st->elements == 3 && queue_rstr(st->element[0]) &&
                !strcmp(st->element[0]->str, "done");
    redisReply *x = queue_cmd(&s->k, "XREAD COUNT 100 BLOCK %s STREAMS %s %s", done ? "1" : "1000",
                              s->key, s->last);
    size_t got = 0;
    if (x && x->type == REDIS_REPLY_ARRAY && x->elements == 1) {
        redisReply *ents = x->element[0]->element[1];
        for (size_t e = 0; e < ents->elements; e++) {
            redisReply *en = ents->element[e], *f = en->element[1];
            json_t *d = json_object();
            for (size_t i = 0; i + 1 < f->elements; i += 2) {
                const char *n = queue_rstr(f->element[i]), *v = queue_rstr(f->element[i + 1]);
                if (!n || !v)
                    continue;
                if (!strcmp(n, "test") || !strcmp(n, "count"))
                    json_object_set_new(d, !strcmp(n, "count") ? "tests" : n, json_integer(atoi(v)));
                else if (*v)
                    json_object_set_new(d, n, json_string(v));
            }
            const char *stage = json_string_value(json_object_get(d, "stage"));
            char text[200];
            if (stage && !strcmp(stage, "test"))
                snprintf(text, sizeof text, "test %lld of %lld: %s",
                         (long long)json_integer_value(json_object_get(d, "test")),
                         (long long)json_integer_value(json_object_get(d, "tests")),
                         json_string_value(json_object_get(d, "verdict")) ?: "?");
            else
                snprintf(text, sizeof text, "%s", stage ? stage : "?");
            json_object_set_new(d, "text", json_string(text));
            snprintf(s->last, sizeof s->last, "%s", en->element[0]->str);
            p_event(s, "progress", s->last, d);
            got++;
        }
    }
    if (done && got == 0) {
        p_event(s, "verdict", NULL,
                json_pack("{s:s, s:s, s:f}", "id", s->id, "verdict", queue_rstr(st->element[1]) ?: "",
                          "score", queue_rstr(st->element[2]) ? atof(st->element[2]->str) : 0.0));
        s->finished = true;
    }
    if (!x || !st)
        queue_conn_backoff(&s->k);
    if (x)
        freeReplyObject(x);
    if (st)
        freeReplyObject(st);
    double now = common_monotonic();
    if (s->len > s->off)
        s->next_heartbeat = now + s->a->cfg.api.sse_heartbeat_ms / 1000.0;
    else if (now >= s->next_heartbeat) {
        p_append(s, ": heartbeat\n\n", 13);
        s->next_heartbeat = now + s->a->cfg.api.sse_heartbeat_ms / 1000.0;
    }
}

static ssize_t progress_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct progress *s = cls;
    while (s->off == s->len) {
        if (s->finished || atomic_load(&s->a->stopping))
            return MHD_CONTENT_READER_END_OF_STREAM;
        s->off = s->len = 0;
        p_fill(s);
    }
    size_t n = s->len - s->off < max ? s->len - s->off : max;
    memcpy(buf, s->out + s->off, n);
    s->off += n;
    return (ssize_t)n;
}

static void progress_free(void *cls)
{
    struct progress *s = cls;
    queue_conn_close(&s->k);
    free(s->out);
    free(s);
}

enum MHD_Result api_submission_events(struct req *r, const char *id)
{
    struct api *a = r->api;
    char pool[80];
    if (!queue_id_pool(id, pool, sizeof pool) || !jd_pool_by_name(&a->cfg, pool))
        return api_error(r, 404, NULL, "no submission '%.200s'", id);
    struct progress *s = calloc(1, sizeof *s);
    s->a = a;
    queue_conn_init(&s->k, a->redis_url, 5000);
    snprintf(s->id, sizeof s->id, "%s", id);
    snprintf(s->pool, sizeof s->pool, "%s", pool);
    char suffix[260];
    snprintf(suffix, sizeof suffix, "progress:%s", id);
    queue_key(s->key, sizeof s->key, pool, suffix);
    snprintf(suffix, sizeof suffix, "sub:%s", id);
    queue_key(s->sub, sizeof s->sub, pool, suffix);
    snprintf(s->last, sizeof s->last, "0-0");
    const char *since = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Last-Event-ID");
    if (since && valid_id(since))
        snprintf(s->last, sizeof s->last, "%s", since);
    redisReply *o = queue_cmd(&s->k, "HGET %s owner", s->sub);
    redisReply *e = o ? queue_cmd(&s->k, "EXISTS %s", s->sub) : NULL;
    if (!o || !e) {
        if (o)
            freeReplyObject(o);
        progress_free(s);
        return api_error_retry(r, 503, 1, "the queue is unavailable");
    }
    bool exists = e->type == REDIS_REPLY_INTEGER && e->integer == 1;
    bool mine = queue_rstr(o) && !strcmp(o->str, r->tok_name);
    freeReplyObject(o);
    freeReplyObject(e);
    if (!exists) {
        progress_free(s);
        return api_error(r, 404, NULL, "no submission '%.200s'", id);
    }
    if (!mine && !api_has_role(r, ROLE_READ)) {
        progress_free(s);
        return api_error(r, 403, NULL, "submission %s belongs to another token", id);
    }
    s->next_heartbeat = common_monotonic() + a->cfg.api.sse_heartbeat_ms / 1000.0;
    struct MHD_Response *resp =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, progress_read, s, progress_free);
    if (!resp) {
        progress_free(s);
        return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type", "text/event-stream");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    enum MHD_Result ret = MHD_queue_response(r->conn, 200, resp);
    MHD_destroy_response(resp);
    return ret;
}
