/* events.c - GET /v1/events: Server-Sent Events, one per finished
 * submission of any pool, `id:` = the results stream entry id.
 *
 * Resuming with one id over several streams (one results stream per pool)
 * loses nothing only if every event sent before has a smaller id than every
 * event not sent yet. Reads of the pools are separate commands, so an event
 * of pool A may be added after A was read but before B was: its id is then
 * at least the Redis time at which the round began. So each round first
 * asks Redis its TIME t0 and sends only events with ids below t0-0 (later
 * ones wait for the next round, which starts at once), and below the last id
 * read from any pool whose read was cut short by COUNT. Per pool the cursor
 * advances only over what was sent, so nothing is repeated either. */
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

static long long redis_time_ms(struct queue_conn *k)
{
    redisReply *t = queue_cmd(k, "TIME");
    long long ms = -1;
    if (t && t->type == REDIS_REPLY_ARRAY && t->elements == 2)
        ms = atoll(t->element[0]->str) * 1000 + atoll(t->element[1]->str) / 1000;
    if (t)
        freeReplyObject(t);
    return ms;
}

static void send_event(struct sse *s, const struct queue_event *e)
{
    json_t *d = json_pack("{s:s, s:s, s:s, s:f, s:s, s:I}", "event", e->event, "id", e->id,
                          "verdict", e->verdict, "score", e->score, "pool", e->pool,
                          "time", (json_int_t)e->time);
    char *js = json_dumps(d, JSON_COMPACT | JSON_REAL_PRECISION(6));
    json_decref(d);
    char head[128];
    int n = snprintf(head, sizeof head, "id: %s\nevent: verdict\ndata: ", e->event);
    append(s, head, (size_t)n);
    append(s, js, strlen(js));
    append(s, "\n\n", 2);
    free(js);
}

/* One round: events (maybe after blocking up to 1 s) or a heartbeat. */
static void fill(struct sse *s)
{
    long long t0 = redis_time_ms(&s->k);
    if (t0 < 0) {
        queue_conn_backoff(&s->k);
    } else {
        char(*prev)[64] = malloc((size_t)s->np * 64);
        memcpy(prev, s->last, (size_t)s->np * 64);
        struct queue_event *ev = NULL;
        int n = 0;
        bool more;
        char err[256], bound[64];
        snprintf(bound, sizeof bound, "%lld-0", t0);
        enum queue_rc rc = queue_events(&s->k, s->pools, s->np, s->last, SSE_COUNT, 1000, &ev, &n,
                                        &more, err, sizeof err);
        if (rc != QUEUE_OK)
            n = 0;
        /* a pool cut short by COUNT: nothing after its last read entry yet */
        bool inclusive = false;
        for (int p = 0; p < s->np && rc == QUEUE_OK; p++) {
            int c = 0;
            for (int i = 0; i < n; i++)
                c += !strcmp(ev[i].pool, s->pools[p]);
            if (c == SSE_COUNT && cmp_id(s->last[p], bound) < 0) {
                snprintf(bound, sizeof bound, "%s", s->last[p]);
                inclusive = true;
            }
        }
        memcpy(s->last, prev, (size_t)s->np * 64);
        for (int i = 0; i < n; i++) {
            int c = cmp_id(ev[i].event, bound);
            if (c > 0 || (c == 0 && !inclusive))
                continue;
            send_event(s, &ev[i]);
            for (int p = 0; p < s->np; p++)
                if (!strcmp(ev[i].pool, s->pools[p]))
                    snprintf(s->last[p], 64, "%s", ev[i].event);
        }
        free(ev);
        free(prev);
        if (rc != QUEUE_OK)
            queue_conn_backoff(&s->k);
    }
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
