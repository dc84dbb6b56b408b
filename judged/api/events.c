/* events.c - GET /v1/events: Server-Sent Events, one per finished
 * submission of any pool, `id:` = the results stream entry id; and GET
 * /v1/submissions/ID/events, one submission's progress.
 *
 * Theory of operation (GET /v1/events)
 * ------------------------------------
 * One thread per judge-api process, the hub, reads the results streams of
 * every pool (queue_events: one XREAD BLOCK of them all, events in id
 * order, none sent while an older one may be unread) and keeps the newest
 * api.sse_buffer events in a ring, each already formatted as its SSE
 * frame: one Redis read per event for the whole process, however many
 * clients listen (a read per client made 1,000 clients wait ~180 ms at
 * p99 here; see bench_sse). An open event stream holds no thread
 * (libmicrohttpd runs a few threads for every connection): when it has
 * nothing to send, its content reader suspends the connection and leaves
 * it on the hub's list of waiters; the hub's waker, woken by the hub's
 * futex word after each batch, resumes the waiters the new frames are
 * for (and those whose heartbeat or deadline is due, whose client hung
 * up, all of them at shutdown), and their readers copy the frames after
 * their positions. (A thread per stream, 1,000 streams woken per event,
 * made 1,000 clients wait 243-256 ms at p99 and admissions beside them
 * 32-657 ms.) Long polls (GET /v1/submissions/ID?wait=S) and progress
 * streams wait on the same list.
 *
 * A stream's position is one entry id T: it has been sent every event
 * with an id <= T and none after (the property queue_events keeps). The
 * hub holds every event after its floor (the tails of the streams when it
 * started, later the last event it dropped from the ring). A stream that
 * resumes (Last-Event-ID or ?since=) from T >= floor starts in the ring at
 * the first event after T; one from further back, or one too slow to keep
 * up with the ring, reads Redis itself (its own connection, queue_events
 * from T) until it has caught up, then joins the ring again. A stream
 * without a position starts at the ring's end: from now on.
 */
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "common.h"

#define SSE_COUNT 500

/* What a stream has to send and has not yet handed to libmicrohttpd. */
struct outbuf {
    char *data;
    size_t len, off, cap;
};

static void out_append(struct outbuf *b, const char *d, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->data = realloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, d, n);
    b->len += n;
}

static bool out_pending(const struct outbuf *b)
{
    return b->len > b->off;
}

/* After a fill: something to send pushes the next heartbeat back; an idle
 * stream past its time gets the comment line (proxies and clients see it
 * alive). */
static void heartbeat(struct outbuf *b, double *next, long every_ms)
{
    double now = common_monotonic();
    if (out_pending(b))
        *next = now + every_ms / 1000.0;
    else if (now >= *next) {
        out_append(b, ": heartbeat\n\n", 13);
        *next = now + every_ms / 1000.0;
    }
}

/* Hands up to max bytes to libmicrohttpd; 0 when there is nothing left
 * (the buffer is then emptied for the next fill). */
static size_t out_take(struct outbuf *b, char *buf, size_t max)
{
    if (b->off == b->len) {
        b->off = b->len = 0;
        return 0;
    }
    size_t n = b->len - b->off < max ? b->len - b->off : max;
    memcpy(buf, b->data + b->off, n);
    b->off += n;
    return n;
}

struct hub_frame {
    struct api_entry_id id;   /* the results stream entry id */
    char *sub;                  /* the submission's id: a long poll waits for it */
    char *text;                 /* "id: ...\nevent: verdict\ndata: {...}\n\n" */
    size_t len;
    char owner[130];            /* who admitted it: a ?mine=1 stream sends only its own */
};

struct sse_hub {
    struct api *a;
    /* Readers share the ring (a read lock never waits for another reader)
     * and sleep on `bell`, a futex word the hub bumps after each batch: a
     * condition variable would wake 1,000 streams into one mutex, to take
     * it one after another (that convoy was most of bench_sse's p99). */
    pthread_rwlock_t mu;
    _Atomic unsigned bell;
    struct hub_frame *ring;
    long cap;
    unsigned long long start, end;  /* the frames held: sequence numbers [start, end) */
    struct api_entry_id floor;    /* every event after it is in the ring or still to come */
    bool ready;                     /* floor known (Redis answered once) */
    pthread_t thread;
    /* The suspended connections (api_hub_suspend); taken before mu */
    pthread_mutex_t wmu;
    struct api_waiter waiters;      /* the list's head (a circle through it) */
    pthread_t waker;
};

/* ------------------------------------------------------------- event ids */

/* A stream entry id as Redis takes one: MS or MS-SEQ, decimal digits only,
 * each part within 64 bits. (sscanf's %llu also took a sign, spaces and
 * overflow: "+1-0" passed here, Redis refused it, and a stream that read
 * from it asked again at once, ~31,000 commands a second.) */
bool api_entry_id_parse(const char *s, struct api_entry_id *out)
{
    unsigned long long part[2] = {0, 0};
    for (int n = 0;; n++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned long long v = 0;
        for (; *s >= '0' && *s <= '9'; s++) {
            unsigned d = (unsigned)(*s - '0');
            if (v > (ULLONG_MAX - d) / 10)
                return false;
            v = v * 10 + d;
        }
        part[n] = v;
        if (!*s)
            break;
        if (*s != '-' || n == 1)
            return false;
        s++;
    }
    out->ms = part[0];
    out->seq = part[1];
    return true;
}

int api_entry_id_cmp(struct api_entry_id x, struct api_entry_id y)
{
    return x.ms != y.ms ? (x.ms < y.ms ? -1 : 1) : x.seq != y.seq ? (x.seq < y.seq ? -1 : 1) : 0;
}

static void id_str(struct api_entry_id id, char out[64])
{
    snprintf(out, 64, "%llu-%llu", id.ms, id.seq);
}

static json_t *text_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

json_t *api_event_json(const struct queue_event *e, const struct queue_event_about *about)
{
    json_t *d = json_pack("{s:s, s:s, s:s, s:f, s:s, s:I}", "event", e->event, "id", e->id,
                          "verdict", e->verdict, "score", e->score, "pool", e->pool,
                          "time", (json_int_t)e->time);
    json_object_set_new(d, "problem_version", text_or_null(e->problem_version));
    json_object_set_new(d, "problem", text_or_null(about->problem));
    json_object_set_new(d, "owner", text_or_null(about->owner));
    json_object_set_new(d, "language", text_or_null(about->language));
    json_object_set_new(d, "host", text_or_null(about->host));
    json_t *md = about->metadata ? json_loads(about->metadata, JSON_DECODE_ANY, NULL) : NULL;
    json_object_set_new(d, "metadata", md ? md : json_null());
    if (e->rejudge) {   /* a new event for an already judged submission */
        json_object_set_new(d, "rejudge", json_true());
        json_object_set_new(d, "rejudge_id", json_string(e->rejudge_id));
        json_object_set_new(d, "previous_verdict", json_string(e->previous_verdict));
        json_object_set_new(d, "previous_score", json_real(e->previous_score));
    }
    return d;
}

/* the SSE frame of one verdict event, with what its submission says of it
 * (problem, owner, metadata: null once the submission has expired) */
static char *frame_of(const struct queue_event *e, const struct queue_event_about *about, size_t *len)
{
    json_t *d = api_event_json(e, about);
    char *js = json_dumps(d, JSON_COMPACT | JSON_REAL_PRECISION(6));
    json_decref(d);
    char *text = NULL;
    int n = asprintf(&text, "id: %s\nevent: verdict\ndata: %s\n\n", e->event, js ? js : "{}");
    free(js);
    if (n < 0)
        return NULL;
    *len = (size_t)n;
    return text;
}

/* ------------------------------------------------------------------- hub */

/* The hub's place in each followed pool's results stream (api_followed_pools:
 * the same names in the same order, only ever more of them). */
struct hub_cursors {
    int n;
    const char **pools;
    char (*last)[64];
};

/* Follows the pools not followed yet: at start every pool, later one a
 * reload added. A new pool's stream is read after the later of its own
 * tail and the newest event the hub has read: nothing of its past is
 * announced as new, and the ring stays in id order. -1: Redis did not
 * answer (nothing changed). */
static int follow_new_pools(struct sse_hub *h, struct queue_conn *k, struct hub_cursors *c)
{
    const char **pools;
    int n = api_followed_pools(h->a, &pools);
    if (n == c->n) {
        free(pools);
        return 0;
    }
    char(*last)[64] = calloc((size_t)n + 1, 64);
    if (!last)
        abort();
    memcpy(last, c->last, (size_t)c->n * 64);
    struct api_entry_id newest = {0, 0}, t;
    for (int i = 0; i < c->n; i++)
        if (api_entry_id_parse(last[i], &t) && api_entry_id_cmp(t, newest) > 0)
            newest = t;
    for (int i = c->n; i < n; i++) {
        char err[512];
        if (queue_events_tail(k, pools[i], last[i], err, sizeof err) == QUEUE_IO) {
            free(last);   /* an error reply reads as an empty stream, "0-0" */
            free(pools);
            return -1;
        }
        if (!api_entry_id_parse(last[i], &t) || api_entry_id_cmp(t, newest) < 0)
            id_str(newest, last[i]);
        if (c->n)
            fprintf(stderr, "judge-api: events: pool %s added by a reload; its verdicts are announced\n", pools[i]);
    }
    free(c->pools);
    free(c->last);
    *c = (struct hub_cursors){n, pools, last};
    return 0;
}

/* Where "from now on" starts: the newest of the pools' tails. */
static int read_tails(struct sse_hub *h, struct queue_conn *k, struct hub_cursors *c)
{
    if (follow_new_pools(h, k, c))
        return -1;
    struct api_entry_id max = {0, 0}, t;
    for (int i = 0; i < c->n; i++)
        if (api_entry_id_parse(c->last[i], &t) && api_entry_id_cmp(t, max) > 0)
            max = t;
    pthread_rwlock_wrlock(&h->mu);
    h->floor = max;
    h->ready = true;
    pthread_rwlock_unlock(&h->mu);
    return 0;
}

static void ring_bell(struct sse_hub *h)
{
    atomic_fetch_add(&h->bell, 1);
    syscall(SYS_futex, &h->bell, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Sleeps until the bell moves from `seen`, or for at most `secs`. */
static void wait_bell(struct sse_hub *h, unsigned seen, double secs)
{
    struct timespec ts = {.tv_sec = (time_t)secs, .tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9)};
    syscall(SYS_futex, &h->bell, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
}

static void hub_append(struct sse_hub *h, const struct queue_event *ev, const struct queue_event_about *about,
                       int n)
{
    pthread_rwlock_wrlock(&h->mu);
    for (int i = 0; i < n; i++) {
        struct hub_frame f = {0};
        if (!api_entry_id_parse(ev[i].event, &f.id) || !(f.text = frame_of(&ev[i], &about[i], &f.len)))
            continue;
        snprintf(f.owner, sizeof f.owner, "%s", about[i].owner);
        f.sub = strdup(ev[i].id);
        if (h->end - h->start == (unsigned long long)h->cap) {   /* full: drop the oldest */
            struct hub_frame *old = &h->ring[h->start % (unsigned long long)h->cap];
            h->floor = old->id;
            free(old->text);
            free(old->sub);
            h->start++;
        }
        h->ring[h->end % (unsigned long long)h->cap] = f;
        h->end++;
    }
    pthread_rwlock_unlock(&h->mu);
    ring_bell(h);
}

/* A batch of events after last[] with their submissions' details; on
 * failure nothing was taken (last[] as before: the batch is read again). */
static int read_events(struct queue_conn *k, const char **pools, int np, char (*last)[64], long block_ms,
                       struct queue_event **ev, struct queue_event_about **about, int *n, bool *more)
{
    char err[512];
    char(*before)[64] = malloc(((size_t)np + 1) * 64);
    if (np)   /* no pool yet: last may be NULL */
        memcpy(before, last, (size_t)np * 64);
    *ev = NULL;
    *about = NULL;
    int rc = queue_events(k, pools, np, last, SSE_COUNT, block_ms, ev, n, more, err, sizeof err) ? -1 : 0;
    if (rc == 0) {
        *about = calloc((size_t)*n + 1, sizeof **about);
        rc = queue_events_about(k, *ev, *n, *about, err, sizeof err) ? -1 : 0;
    }
    if (rc) {
        if (np)
            memcpy(last, before, (size_t)np * 64);
        free(*ev);
        free(*about);
        *ev = NULL;
        *about = NULL;
        *n = 0;
    }
    free(before);
    return rc;
}

static void *hub_main(void *p)
{
    struct sse_hub *h = p;
    struct api *a = h->a;
    struct hub_cursors c = {0};
    struct queue_conn k;
    queue_conn_init(&k, a->redis_url, 5000);
    bool started = false, more = false;
    while (!atomic_load(&a->stopping)) {
        if (!started) {
            if (read_tails(h, &k, &c)) {
                queue_conn_backoff(&k);
                continue;
            }
            started = true;
            ring_bell(h);   /* streams from now on waited for the hub to know where now is */
        } else if (follow_new_pools(h, &k, &c)) {
            queue_conn_backoff(&k);
            continue;
        }
        struct queue_event *ev = NULL;
        struct queue_event_about *about = NULL;
        int n = 0;
        /* 1 s slices: a stop (or a reload's new pool) is noticed within one */
        if (read_events(&k, c.pools, c.n, c.last, more ? 0 : 1000, &ev, &about, &n, &more)) {
            more = false;
            queue_conn_backoff(&k);
            continue;
        }
        if (n)
            hub_append(h, ev, about, n);
        queue_events_about_free(about, n);
        free(about);
        free(ev);
    }
    queue_conn_close(&k);
    free(c.pools);
    free(c.last);
    return NULL;
}

/* ---------------------------------------------------------------- waiters */

/* Whether the ring holds a frame w waits for (mu held); w->seq moves past
 * what was looked at. A waiter the ring dropped frames of wakes: its
 * reader goes back to Redis. */
static bool ring_has_for(struct sse_hub *h, struct api_waiter *w)
{
    if (w->seq < h->start)
        return true;
    for (; w->seq < h->end; w->seq++) {
        const struct hub_frame *f = &h->ring[w->seq % (unsigned long long)h->cap];
        if (w->any || (w->owner && !strcmp(w->owner, f->owner)) || (w->sub && f->sub && !strcmp(w->sub, f->sub)))
            return true;
    }
    return false;
}

static void waiter_unlink(struct api_waiter *w)
{
    w->prev->next = w->next;
    w->next->prev = w->prev;
    w->prev = w->next = NULL;
}

bool api_hub_suspend(struct api *a, struct api_waiter *w)
{
    struct sse_hub *h = a->hub;
    bool suspended = false;
    pthread_mutex_lock(&h->wmu);
    /* a->stopping is set before the shutdown's resume-all takes wmu: a
     * connection suspended after that would never be resumed */
    if (!atomic_load(&a->stopping)) {
        pthread_rwlock_rdlock(&h->mu);
        bool now = ring_has_for(h, w);
        pthread_rwlock_unlock(&h->mu);
        if (!now) {
            w->prev = h->waiters.prev;
            w->next = &h->waiters;
            w->prev->next = w;
            h->waiters.prev = w;
            MHD_suspend_connection(w->conn);   /* under wmu: the waker resumes only what is suspended */
            suspended = true;
        }
    }
    pthread_mutex_unlock(&h->wmu);
    return suspended;
}

unsigned long long api_hub_end(struct api *a)
{
    struct sse_hub *h = a->hub;
    pthread_rwlock_rdlock(&h->mu);
    unsigned long long end = h->end;
    pthread_rwlock_unlock(&h->mu);
    return end;
}

/* Resumes the waiters that have something now: an event they wait for,
 * their due time, a client that hung up (looked at when peers is true:
 * once a second), or everyone (all: shutdown). */
static void resume_waiters(struct sse_hub *h, bool peers, bool all)
{
    double now = common_monotonic();
    pthread_mutex_lock(&h->wmu);
    pthread_rwlock_rdlock(&h->mu);
    for (struct api_waiter *w = h->waiters.next, *next; w != &h->waiters; w = next) {
        next = w->next;
        if (all || w->due <= now || ring_has_for(h, w) || (peers && api_peer_gone(w->fd))) {
            waiter_unlink(w);
            MHD_resume_connection(w->conn);
        }
    }
    pthread_rwlock_unlock(&h->mu);
    pthread_mutex_unlock(&h->wmu);
}

/* The waker: after each batch the hub appends (the bell), and every 50 ms
 * for due times (heartbeats, long polls' deadlines, progress polls). */
static void *waker_main(void *p)
{
    struct sse_hub *h = p;
    double next_peers = 0;
    while (!atomic_load(&h->a->stopping)) {
        unsigned seen = atomic_load(&h->bell);
        resume_waiters(h, common_monotonic() >= next_peers, false);
        if (common_monotonic() >= next_peers)
            next_peers = common_monotonic() + 1;
        wait_bell(h, seen, 0.05);
    }
    return NULL;
}

int api_hub_start(struct api *a, char *err, size_t errlen)
{
    struct sse_hub *h = calloc(1, sizeof *h);
    h->a = a;
    h->cap = a->start->api.sse_buffer > 0 ? a->start->api.sse_buffer : 10000;
    h->ring = calloc((size_t)h->cap, sizeof *h->ring);
    pthread_rwlock_init(&h->mu, NULL);
    pthread_mutex_init(&h->wmu, NULL);
    h->waiters.next = h->waiters.prev = &h->waiters;
    int e = pthread_create(&h->thread, NULL, hub_main, h);
    if (!e && (e = pthread_create(&h->waker, NULL, waker_main, h))) {
        atomic_store(&a->stopping, true);
        pthread_join(h->thread, NULL);
    }
    if (e) {
        snprintf(err, errlen, "cannot start the events thread: %s", strerror(e));
        free(h->ring);
        free(h);
        return -1;
    }
    a->hub = h;
    return 0;
}

/* Resumes every suspended connection (a->stopping is set, so none is
 * suspended again: they answer or end): before MHD_stop_daemon, which must
 * not find a suspended connection. */
void api_hub_wake(struct api *a)
{
    if (!a->hub)
        return;
    ring_bell(a->hub);
    resume_waiters(a->hub, false, true);
}

void api_hub_stop(struct api *a)
{
    struct sse_hub *h = a->hub;
    if (!h)
        return;
    pthread_join(h->thread, NULL);
    pthread_join(h->waker, NULL);
    for (unsigned long long i = h->start; i < h->end; i++) {
        free(h->ring[i % (unsigned long long)h->cap].text);
        free(h->ring[i % (unsigned long long)h->cap].sub);
    }
    free(h->ring);
    pthread_rwlock_destroy(&h->mu);
    pthread_mutex_destroy(&h->wmu);
    free(h);
    a->hub = NULL;
}

/* ---------------------------------------------------------- one stream */

struct sse {
    struct api *a;
    struct sse_hub *h;
    bool in_ring;                   /* else catching up from Redis */
    bool from_now;                  /* no position yet: starts at the ring's end */
    unsigned long long next;        /* in the ring: the next frame to send */
    struct api_entry_id pos;            /* every event <= pos has been sent, none after */
    struct queue_conn k;            /* catching up only (connected on first use) */
    struct outbuf o;
    double next_heartbeat;          /* monotonic seconds */
    int fd;                         /* the client's socket: gone? */
    char token[65];                 /* counted against api.max_streams_per_token */
    char mine[130];                 /* ?mine=1: only this owner's events ("" = all) */
    bool waited_redis;              /* catching up: Redis had nothing more, or failed */
    struct api_waiter w;            /* suspended until the hub has something */
};

/* Is the event for this stream? (?mine=1: its token's own submissions) */
static bool for_stream(const struct sse *s, const char *owner)
{
    return !s->mine[0] || !strcmp(s->mine, owner);
}

/* The first frame after pos, or h->end; h->mu held. The ring is in id order. */
static unsigned long long ring_after(struct sse_hub *h, struct api_entry_id pos)
{
    unsigned long long lo = h->start, hi = h->end;
    while (lo < hi) {
        unsigned long long mid = lo + (hi - lo) / 2;
        if (api_entry_id_cmp(h->ring[mid % (unsigned long long)h->cap].id, pos) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One batch from Redis after pos (catching up); joins the ring once Redis
 * has nothing after pos that the ring does not hold. */
static void catch_up(struct sse *s)
{
    const char **pools;
    int np = api_followed_pools(s->a, &pools);
    char(*last)[64] = calloc((size_t)np + 1, 64);
    for (int i = 0; i < np; i++)
        id_str(s->pos, last[i]);
    struct queue_event *ev = NULL;
    struct queue_event_about *about = NULL;
    int n = 0;
    bool more = false;
    /* never blocking (a pool thread serves other connections): a stream
     * that cannot join the ring yet (the hub not started) waits suspended */
    s->waited_redis = false;
    if (read_events(&s->k, pools, np, last, 0, &ev, &about, &n, &more)) {
        s->waited_redis = true;   /* Redis away: looked at again after a pause, heartbeats go on */
    } else {
        s->waited_redis = n == 0;
        for (int i = 0; i < n; i++) {
            struct api_entry_id id;
            if (!api_entry_id_parse(ev[i].event, &id))
                continue;
            s->pos = id;
            if (!for_stream(s, about[i].owner))
                continue;
            size_t len;
            char *f = frame_of(&ev[i], &about[i], &len);
            if (f)
                out_append(&s->o, f, len);
            free(f);
        }
        queue_events_about_free(about, n);
        pthread_rwlock_rdlock(&s->h->mu);
        /* caught up: at or past the ring's floor, or Redis had nothing more
         * (what the ring holds after pos is then all there is) */
        if (s->h->ready && (api_entry_id_cmp(s->pos, s->h->floor) >= 0 || (n == 0 && !more))) {
            s->in_ring = true;
            s->next = ring_after(s->h, s->pos);
        }
        pthread_rwlock_unlock(&s->h->mu);
    }
    free(ev);
    free(about);
    free(pools);
    free(last);
}

/* A stream without a position takes the ring's end once the hub knows it. */
static void start_now(struct sse *s)
{
    struct sse_hub *h = s->h;
    if (s->from_now && h->ready) {
        s->from_now = false;
        s->next = h->end;
        s->pos = h->end > h->start ? h->ring[(h->end - 1) % (unsigned long long)h->cap].id : h->floor;
    }
}

/* Copies what the ring holds after the stream's position; false: nothing
 * new (true also when the stream fell behind the ring: back to Redis). */
static bool copy_frames(struct sse *s)
{
    struct sse_hub *h = s->h;
    bool got = false;
    pthread_rwlock_rdlock(&h->mu);
    start_now(s);
    if (!s->from_now && s->next < h->start) {
        s->in_ring = false;   /* too slow: the ring dropped frames it had not sent */
        got = true;
    } else {
        for (; !s->from_now && s->next < h->end && s->o.len < 65536; s->next++) {   /* ~64 KiB a round */
            const struct hub_frame *f = &h->ring[s->next % (unsigned long long)h->cap];
            s->pos = f->id;
            if (!for_stream(s, f->owner))
                continue;
            out_append(&s->o, f->text, f->len);
            got = true;
        }
    }
    pthread_rwlock_unlock(&h->mu);
    return got;
}

/* What there is to send now, without waiting: frames from the ring, or a
 * batch from Redis while catching up; a heartbeat when one is due. */
static void fill(struct sse *s)
{
    if (s->in_ring)
        copy_frames(s);
    else
        catch_up(s);
    heartbeat(&s->o, &s->next_heartbeat, s->a->start->api.sse_heartbeat_ms);
}

/* Suspends the stream until the ring holds a frame for it, its heartbeat
 * is due or its client hangs up; false: there may be something already. */
static bool sse_wait(struct sse *s)
{
    struct api_waiter *w = &s->w;
    w->any = !s->mine[0];
    w->owner = s->mine[0] ? s->mine : NULL;
    w->sub = NULL;
    w->due = s->next_heartbeat;
    if (s->in_ring && !s->from_now)
        w->seq = s->next;
    else {   /* no place in the ring yet (the hub not started, or catching up): look again soon */
        w->seq = api_hub_end(s->a);
        double soon = common_monotonic() + 0.1;
        w->due = w->due < soon ? w->due : soon;
    }
    return api_hub_suspend(s->a, w);
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct sse *s = cls;
    size_t n;
    while (!(n = out_take(&s->o, buf, max))) {
        if (atomic_load(&s->a->stopping))
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (api_peer_gone(s->fd))
            return MHD_CONTENT_READER_END_WITH_ERROR;   /* its slot is free now, not at the next write */
        fill(s);
        if (!out_pending(&s->o) && (s->in_ring || s->waited_redis) && sse_wait(s))
            return 0;   /* resumed when there is something (libmicrohttpd calls again) */
    }
    return (ssize_t)n;
}

static void sse_free(void *cls)
{
    struct sse *s = cls;
    if (s->token[0])
        api_stream_close(s->a, s->token);
    queue_conn_close(&s->k);
    free(s->o.data);
    free(s);
}

/* What a stream's client has not taken yet is bounded: ~64 KiB of frames
 * here and the socket's send buffer, fixed at STREAM_SNDBUF (the kernel's
 * autotuning would let it grow to tcp_wmem's 4 MiB per client); after
 * that the stream falls behind the ring. A stream whose client has taken
 * nothing for three heartbeats is closed: a client that never reads holds
 * its place no longer than that. A live client takes a heartbeat at least
 * every sse_heartbeat; a suspended stream's clock restarts when it is
 * resumed (libmicrohttpd). */
#define STREAM_SNDBUF (256 * 1024)   /* ~600 verdict frames; Linux doubles it */

static void stream_timeout(struct req *r)
{
    int fd = api_conn_fd(r->conn), sndbuf = STREAM_SNDBUF;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
    long hb = r->api->start->api.sse_heartbeat_ms;
    if (hb > 0)
        MHD_set_connection_option(r->conn, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned)((3 * hb + 999) / 1000));
}

static enum MHD_Result too_many_streams(struct req *r)
{
    return api_error_retry(r, 429, 1, "token '%s' has %d event streams open, its limit (api.max_streams_per_token)",
                           r->tok_name, r->api->start->api.max_streams_per_token);
}

enum MHD_Result api_events(struct req *r)
{
    struct api *a = r->api;
    const char *since = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Last-Event-ID");
    if (!since)
        since = api_arg(r, "since");
    struct api_entry_id pos = {0, 0};
    if (since && !api_entry_id_parse(since, &pos))
        return api_error(r, 400, "since", "expected a stream entry id like 1700000000000-0");
    const char *mine = api_arg(r, "mine");
    if (mine && strcmp(mine, "1") && strcmp(mine, "true"))
        return api_error(r, 400, "mine", "mine must be 1 (or true): only the token's own submissions");
    /* a submit token follows its own submissions only; read sees them all */
    if (!mine && !api_has_role(r, ROLES_READ_ALL))
        return api_error(r, 403, "mine", "token '%s' may follow only its own submissions: GET /v1/events?mine=1 "
                                         "(every submission's events need the role read)", r->tok_name);
    if (!api_stream_open(a, r->tok_name))
        return too_many_streams(r);
    struct sse *s = calloc(1, sizeof *s);
    s->a = a;
    s->h = a->hub;
    s->fd = api_conn_fd(r->conn);
    s->w.conn = r->conn;
    s->w.fd = s->fd;
    snprintf(s->token, sizeof s->token, "%s", r->tok_name);
    if (mine)
        snprintf(s->mine, sizeof s->mine, "%s", r->tok_name);
    queue_conn_init(&s->k, a->redis_url, 5000);
    if (since) {
        s->pos = pos;
        pthread_rwlock_rdlock(&s->h->mu);
        if (s->h->ready && api_entry_id_cmp(pos, s->h->floor) >= 0) {
            s->in_ring = true;
            s->next = ring_after(s->h, pos);
        }
        pthread_rwlock_unlock(&s->h->mu);
    } else {
        /* "from now" is from this request, not from the first read after
         * the answer's headers: a client that submits once the stream
         * answered must not miss a fast verdict */
        s->in_ring = s->from_now = true;
        pthread_rwlock_rdlock(&s->h->mu);
        start_now(s);
        pthread_rwlock_unlock(&s->h->mu);
    }
    out_append(&s->o, ": connected\n\n", 13);
    s->next_heartbeat = common_monotonic() + a->start->api.sse_heartbeat_ms / 1000.0;
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
    stream_timeout(r);
    return ret;
}

/* ---------------------------------------- GET /v1/submissions/ID/events */

/* The progress of one submission: "compiling" once a host has claimed it,
 * then its progress stream from the start (one event per test, written by
 * the host's worker), then one "verdict" event once the submission is
 * done, and the end of the stream. "compiling" is not in the stream: it is
 * the submission's state (no longer queued), so a claim writes nothing
 * for it; it is sent with the id 0-1, before every entry of any stream, so
 * that a resume from it reads the whole stream. */
struct progress {
    struct api *a;
    struct queue_conn k;
    char id[200], pool[80], last[64];
    struct outbuf o;
    bool finished;
    double next_heartbeat;
    int fd;                  /* the client's socket: gone? */
    char token[65];          /* counted against api.max_streams_per_token */
    bool failed;             /* Redis did not answer the last look */
    bool looked;             /* looked since the last resume: wait before the next */
    unsigned long long seq;  /* the ring's end before the last look */
    struct api_waiter w;     /* suspended between looks */
};

/* A progress stream looks at its submission's progress this often: a
 * worker writes it to a stream of its own, which the hub does not follow
 * (the verdict, which the hub reads, wakes it at once). */
#define PROGRESS_POLL_S 0.2

/* Suspends the stream until its submission's verdict, the next look or
 * heartbeat, or its client hangs up; false: not suspended (look again). */
static bool progress_wait(struct progress *s)
{
    struct api_waiter *w = &s->w;
    double next = common_monotonic() + (s->failed ? 1 : PROGRESS_POLL_S);
    w->any = false;
    w->owner = NULL;
    w->sub = s->id;
    w->seq = s->seq;
    w->due = next < s->next_heartbeat ? next : s->next_heartbeat;
    return api_hub_suspend(s->a, w);
}

static void p_event(struct progress *s, const char *type, const char *eid, json_t *d)
{
    char *js = json_dumps(d, JSON_COMPACT | JSON_REAL_PRECISION(6));
    json_decref(d);
    char head[160];
    int n = eid ? snprintf(head, sizeof head, "id: %s\nevent: %s\ndata: ", eid, type)
                : snprintf(head, sizeof head, "event: %s\ndata: ", type);
    out_append(&s->o, head, (size_t)n);
    out_append(&s->o, js, strlen(js));
    out_append(&s->o, "\n\n", 2);
    free(js);
}

/* "compiling", once: the first event of a claimed submission */
static void p_compiling(struct progress *s)
{
    if (strcmp(s->last, "0-0"))
        return;
    snprintf(s->last, sizeof s->last, "0-1");
    p_event(s, "progress", s->last,
            json_pack("{s:s, s:i, s:i, s:s}", "stage", "compiling", "test", 0, "tests", 0, "text", "compiling"));
}

/* One step of progress as its event's JSON. */
static json_t *step_json(const struct queue_fields *f)
{
    json_t *d = json_object();
    for (size_t i = 0; i < f->n; i++) {
        const char *n = f->kv[2 * i], *v = f->kv[2 * i + 1];
        if (!strcmp(n, "test") || !strcmp(n, "count"))
            json_object_set_new(d, !strcmp(n, "count") ? "tests" : n, json_integer(atoi(v)));
        else if (*v)
            json_object_set_new(d, n, json_string(v));
    }
    const char *stage = json_string_value(json_object_get(d, "stage"));
    char text[200];
    if (stage && !strcmp(stage, "test"))
        snprintf(text, sizeof text, "test %lld of %lld: %s", (long long)json_integer_value(json_object_get(d, "test")),
                 (long long)json_integer_value(json_object_get(d, "tests")),
                 json_string_value(json_object_get(d, "verdict")) ?: "?");
    else
        snprintf(text, sizeof text, "%s", stage ? stage : "?");
    json_object_set_new(d, "text", json_string(text));
    return d;
}

static void p_fill(struct progress *s)
{
    /* the state first: progress written before "done" is then read below */
    struct queue_state st;
    char err[512];
    enum queue_rc src = queue_submission_state(&s->k, s->id, &st, err, sizeof err);
    bool done = src == QUEUE_OK && !strcmp(st.state, "done");
    if (src == QUEUE_OK && st.state[0] && strcmp(st.state, "queued"))
        p_compiling(s);
    /* never blocking (1 ms, XREAD's least): a pool thread serves other
     * connections; the stream waits suspended between looks */
    struct queue_entries es;
    enum queue_rc xrc = queue_progress_read(&s->k, s->id, s->last, 100, 1, &es, err, sizeof err);
    size_t got = 0;
    for (size_t e = 0; xrc == QUEUE_OK && e < es.n; e++) {
        p_compiling(s);   /* claimed since the state was read */
        json_t *d = step_json(&es.e[e]);
        snprintf(s->last, sizeof s->last, "%s", es.e[e].entry);
        p_event(s, "progress", s->last, d);
        got++;
    }
    if (xrc == QUEUE_OK)
        queue_entries_free(&es);
    if (done && got == 0) {
        p_event(s, "verdict", NULL, json_pack("{s:s, s:s, s:f}", "id", s->id, "verdict", st.verdict, "score", st.score));
        s->finished = true;
    }
    /* an error reply is no answer either: asking again at once would spin */
    s->failed = src || xrc;
    heartbeat(&s->o, &s->next_heartbeat, s->a->start->api.sse_heartbeat_ms);
}

static ssize_t progress_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct progress *s = cls;
    size_t n;
    while (!(n = out_take(&s->o, buf, max))) {
        if (s->finished || atomic_load(&s->a->stopping))
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (api_peer_gone(s->fd))
            return MHD_CONTENT_READER_END_WITH_ERROR;
        if (s->looked) {
            s->looked = false;
            if (progress_wait(s))
                return 0;   /* resumed for the next look (libmicrohttpd calls again) */
        }
        s->seq = api_hub_end(s->a);   /* before the look: a verdict after it wakes the stream */
        p_fill(s);
        s->looked = true;
    }
    return (ssize_t)n;
}

static void progress_free(void *cls)
{
    struct progress *s = cls;
    if (s->token[0])
        api_stream_close(s->a, s->token);
    queue_conn_close(&s->k);
    free(s->o.data);
    free(s);
}

enum MHD_Result api_submission_events(struct req *r, const char *id)
{
    struct api *a = r->api;
    char pool[80];
    if (!queue_id_pool(id, pool, sizeof pool) || !jd_pool_by_name(r->cfg, pool))
        return api_error(r, 404, NULL, "no submission '%.200s'", id);
    struct progress *s = calloc(1, sizeof *s);
    s->a = a;
    queue_conn_init(&s->k, a->redis_url, 5000);
    snprintf(s->id, sizeof s->id, "%s", id);
    snprintf(s->pool, sizeof s->pool, "%s", pool);
    snprintf(s->last, sizeof s->last, "0-0");
    const char *since = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Last-Event-ID");
    struct api_entry_id sid;
    if (since && !api_entry_id_parse(since, &sid)) {
        progress_free(s);
        return api_error(r, 400, "Last-Event-ID", "expected a stream entry id like 1700000000000-0");
    }
    if (since)
        id_str(sid, s->last);   /* Redis's own spelling, never the client's */
    char owner[200], err[512];
    bool exists;
    if (queue_submission_owner(&s->k, id, owner, sizeof owner, &exists, err, sizeof err)) {
        progress_free(s);
        return api_error_retry(r, 503, 1, "the queue is unavailable");
    }
    bool mine = owner[0] && !strcmp(owner, r->tok_name);
    if (!exists || (!mine && !api_has_role(r, ROLES_READ_ALL))) {   /* as GET /v1/submissions/ID: no 403 */
        progress_free(s);
        return api_error(r, 404, NULL, "no submission '%.200s'", id);
    }
    if (!api_stream_open(a, r->tok_name)) {
        progress_free(s);
        return too_many_streams(r);
    }
    snprintf(s->token, sizeof s->token, "%s", r->tok_name);
    s->fd = api_conn_fd(r->conn);
    s->w.conn = r->conn;
    s->w.fd = s->fd;
    s->next_heartbeat = common_monotonic() + a->start->api.sse_heartbeat_ms / 1000.0;
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
    stream_timeout(r);
    return ret;
}
