/* webhook.c - durable, at-least-once delivery of results to callback_url.
 *
 * Every judge-api process runs a reader thread, which records new events
 * and takes over what dead processes left, and api.webhook_workers
 * delivery threads (8). All processes share the consumer group
 * "webhooks" on each pool's results stream, so each event is read by one
 * process. Reading an event of a submission with a callback
 * records the delivery in Redis first (a hash per delivery with the
 * submission id, URL, attempts, first try; a zset of deliveries scored by
 * their due time: queue/webhooks.c) and only then XACKs it;
 * an event read by a process that died before that stays pending and is
 * taken over by XAUTOCLAIM after a minute. The zset is the durable queue of
 * deliveries: a process claims a due member by pushing its score a lease
 * ahead (ZADD XX GT CH; two processes racing may both deliver - the
 * receiver dedups with X-Judged-Event-Id), delivers, and then removes it
 * (2xx) or schedules the next attempt (exponential backoff from 1 s, x0.5..1
 * jitter, at most 5 min apart) until webhook_retry_for has passed since the
 * first attempt; then the delivery goes to the pool's webhook dead-letter
 * stream, which an admin lists and replays over the API. Every Redis
 * command of it is the queue library's (queue.h, queue/webhooks.c).
 *
 * One tenant's slow receivers must not hold everyone's webhooks (ten
 * callbacks that never answered delayed another tenant's by 26 s when one
 * thread delivered in turn): a worker claims a due delivery only while its
 * destination (host:port) has fewer than api.webhook_per_destination (2)
 * in flight in this process and its tenant (the submitting token) fewer
 * than half the workers; otherwise it leaves it due for later. Within a
 * process a delivery is in one worker's hands at a time, and a worker
 * claims only what is still due (ZSCORE under that hold): between
 * processes the lease race above remains.
 *
 * The request: POST of the submission's JSON (as GET /v1/submissions/ID)
 * with X-Judged-Event-Id (the results entry id), X-Judged-Timestamp (unix
 * seconds) and X-Judged-Signature: sha256=HEX, the HMAC-SHA256 with
 * api.webhook_secret of "TIMESTAMP.BODY". The callback's host is resolved
 * here and refused when any address is not a public address of another
 * host (ssrf.c: special-purpose blocks of IPv4 and IPv6, this host's own
 * addresses), unless webhook_allow_private; the
 * request then goes to the address checked (no second lookup, no
 * redirects). */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "api.h"
#include "common.h"

#define LEASE_MS 60000         /* at least; longer than a delivery may take (lease_ms) */
#define IDLE_POLL_MS 200       /* a worker with nothing due looks again after this */

static long long now_ms(void)
{
    return common_wall_ms();
}

/* A claim outlives the longest delivery: no second worker takes it meanwhile. */
static long long lease_ms(const struct api *a)
{
    long long l = 2 * a->start->api.webhook_timeout_ms + 10000;
    return l > LEASE_MS ? l : LEASE_MS;
}

/* ---------------------------------------------------------------- SSRF */

/* Resolves the URL's host; refuses any address that is not deliverable
 * (ssrf.c) unless private ones are allowed. On success *pin is the
 * "HOST:PORT:ADDR" for CURLOPT_RESOLVE (the checked address is the one
 * connected to, whatever DNS says next), or "" for an address literal,
 * which curl connects to as it is. */
static int check_url(const char *url, bool allow_private, char *pin, size_t pinlen, char *err,
                     size_t errlen)
{
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL, *scheme = NULL;
    int rc = -1;
    if (curl_url_set(u, CURLUPART_URL, url, 0) || curl_url_get(u, CURLUPART_HOST, &host, 0) ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT)) {
        snprintf(err, errlen, "refused: not a valid URL");
        goto out;
    }
    if (strcmp(scheme, "http") && strcmp(scheme, "https")) {
        snprintf(err, errlen, "refused: scheme %s", scheme);
        goto out;
    }
    char h[300];
    snprintf(h, sizeof h, "%s", host);
    if (h[0] == '[') {   /* [v6] */
        memmove(h, h + 1, strlen(h));
        h[strcspn(h, "]")] = 0;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai;
    int g = getaddrinfo(h, port, &hints, &ai);
    if (g) {   /* a name that does not exist is refused; a DNS hiccup is retried */
        snprintf(err, errlen, "%s%s: %s", g == EAI_NONAME ? "refused: cannot resolve " : "cannot resolve ",
                 h, gai_strerror(g));
        goto out;
    }
    char addr[INET6_ADDRSTRLEN] = "", badaddr[INET6_ADDRSTRLEN] = "";
    for (struct addrinfo *p = ai; p; p = p->ai_next) {
        char a[INET6_ADDRSTRLEN] = "";
        inet_ntop(p->ai_family,
                  p->ai_family == AF_INET ? (void *)&((struct sockaddr_in *)p->ai_addr)->sin_addr
                                          : (void *)&((struct sockaddr_in6 *)p->ai_addr)->sin6_addr,
                  a, sizeof a);
        if (!badaddr[0] && !api_addr_deliverable(p->ai_addr))
            snprintf(badaddr, sizeof badaddr, "%s", a);
        if (!addr[0])
            snprintf(addr, sizeof addr, "%s", a);
    }
    freeaddrinfo(ai);
    if (badaddr[0] && !allow_private) {
        snprintf(err, errlen, "refused: %s resolves to %s, not a public address of another host (private or "
                              "loopback, reserved, or this host's own; api.webhook_allow_private is false)",
                 h, badaddr);
        goto out;
    }
    unsigned char lit[16];
    if (inet_pton(AF_INET, h, lit) == 1 || inet_pton(AF_INET6, h, lit) == 1)
        pin[0] = 0;   /* a literal: nothing to pin (an IPv6 one made a resolve entry curl refused) */
    else
        snprintf(pin, pinlen, strchr(addr, ':') ? "%s:%s:[%s]" : "%s:%s:%s", host, port, addr);
    rc = 0;
out:
    curl_free(host);
    curl_free(port);
    curl_free(scheme);
    curl_url_cleanup(u);
    return rc;
}

int api_callback_refused(const struct api *a, const char *url, char *why, size_t whylen)
{
    char pin[400], err[600];
    if (!a->start->api.webhook_secret) {
        snprintf(why, whylen, "this judge-api sends no webhooks (api.webhook_secret is not set)");
        return 1;
    }
    if (check_url(url, a->start->api.webhook_allow_private, pin, sizeof pin, err, sizeof err) &&
        !strncmp(err, "refused: ", 9)) {
        snprintf(why, whylen, "callback_url %s", err + 9);
        return 1;
    }
    return 0;   /* deliverable now, or DNS did not answer: delivery decides */
}

/* ------------------------------------------------------------ delivery */

static size_t discard(char *p, size_t sz, size_t n, void *ud)
{
    (void)p;
    (void)ud;
    return sz * n;
}

/* POSTs body; 0 on a 2xx answer, else -1 with err. */
static int post(struct api *a, const char *url, const char *pin, const char *event, const char *body,
                char *err, size_t errlen)
{
    char ts[32], sig[200], h1[200], h2[64], h3[300];
    snprintf(ts, sizeof ts, "%lld", now_ms() / 1000);
    size_t tl = strlen(ts), bl = strlen(body);
    char *msg = malloc(tl + 1 + bl);
    memcpy(msg, ts, tl);
    msg[tl] = '.';
    memcpy(msg + tl + 1, body, bl);
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned maclen = 0;
    const char *secret = a->start->api.webhook_secret;
    HMAC(EVP_sha256(), secret, (int)strlen(secret), (unsigned char *)msg, tl + 1 + bl, mac, &maclen);
    free(msg);
    int n = snprintf(sig, sizeof sig, "sha256=");
    for (unsigned i = 0; i < maclen; i++)
        n += snprintf(sig + n, sizeof sig - (size_t)n, "%02x", mac[i]);
    snprintf(h1, sizeof h1, "X-Judged-Event-Id: %s", event);
    snprintf(h2, sizeof h2, "X-Judged-Timestamp: %s", ts);
    snprintf(h3, sizeof h3, "X-Judged-Signature: %s", sig);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    h = curl_slist_append(h, h1);
    h = curl_slist_append(h, h2);
    h = curl_slist_append(h, h3);
    struct curl_slist *res = pin[0] ? curl_slist_append(NULL, pin) : NULL;
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_RESOLVE, res);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, a->start->api.webhook_timeout_ms);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "judged-webhook/" JUDGED_VERSION);
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(c);
    curl_slist_free_all(h);
    curl_slist_free_all(res);
    if (rc != CURLE_OK) {
        snprintf(err, errlen, "%s", curl_easy_strerror(rc));
        return -1;
    }
    if (status < 200 || status > 299) {
        snprintf(err, errlen, "HTTP %ld", status);
        return -1;
    }
    return 0;
}

/* 1 s doubled per attempt, at most 5 minutes apart, with jitter */
static long backoff_ms(int attempts)
{
    return common_backoff_ms(1000, attempts - 1, 300000);
}

/* ------------------------------------------------------ fair share */

/* In flight for key (0: not in the table); a->webhook_lock held. */
static int flight_count(const struct api *a, const char *key)
{
    for (int i = 0; i < a->webhook_nflights; i++)
        if (a->webhook_flights[i].n && !strcmp(a->webhook_flights[i].key, key))
            return a->webhook_flights[i].n;
    return 0;
}

/* Adds delta to key's count, taking a slot whose count is 0 for a new key
 * (so a slot is reused only once nothing of its key is in flight); lock
 * held. */
static void flight_add(struct api *a, const char *key, int delta)
{
    struct webhook_flight *slot = NULL;
    for (int i = 0; i < a->webhook_nflights; i++) {
        struct webhook_flight *f = &a->webhook_flights[i];
        if (f->n && !strcmp(f->key, key)) {
            f->n += delta;
            return;
        }
        if (!f->n && !slot)
            slot = f;
    }
    if (delta <= 0)
        return;
    if (!slot) {
        if (a->webhook_nflights == a->webhook_capflights) {
            a->webhook_capflights = a->webhook_capflights ? 2 * a->webhook_capflights : 32;
            a->webhook_flights = realloc(a->webhook_flights,
                                         (size_t)a->webhook_capflights * sizeof *a->webhook_flights);
        }
        slot = &a->webhook_flights[a->webhook_nflights++];
    }
    snprintf(slot->key, sizeof slot->key, "%s", key);
    slot->n = delta;
}

/* Takes a place for the delivery `entry` ("e:POOL:ENTRY") to dest for
 * tenant; false: another worker of this process has the entry, or dest or
 * the tenant is at its share now. */
static bool flight_take(struct api *a, const char *entry, const char *dest, const char *tenant)
{
    int tenant_share = (a->start->api.webhook_workers + 1) / 2;
    pthread_mutex_lock(&a->webhook_lock);
    bool ok = flight_count(a, entry) == 0 && flight_count(a, dest) < a->start->api.webhook_per_destination &&
              flight_count(a, tenant) < tenant_share;
    if (ok) {
        flight_add(a, entry, 1);
        flight_add(a, dest, 1);
        flight_add(a, tenant, 1);
    }
    pthread_mutex_unlock(&a->webhook_lock);
    return ok;
}

static void flight_give(struct api *a, const char *entry, const char *dest, const char *tenant)
{
    pthread_mutex_lock(&a->webhook_lock);
    flight_add(a, entry, -1);
    flight_add(a, dest, -1);
    flight_add(a, tenant, -1);
    pthread_mutex_unlock(&a->webhook_lock);
}

/* "d:HOST:PORT" of a callback URL ("d:?" when it does not parse: one
 * destination for all such, refused later anyway). */
static void destination_of(const char *url, char *out, size_t len)
{
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL;
    if (!curl_url_set(u, CURLUPART_URL, url, 0) && !curl_url_get(u, CURLUPART_HOST, &host, 0) &&
        !curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT))
        snprintf(out, len, "d:%s:%s", host, port);
    else
        snprintf(out, len, "d:?");
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
}

/* ------------------------------------------------------------ delivery */

/* The body of ENTRY's delivery to id: the submission's JSON as GET
 * /v1/submissions/ID answers it, plus "event"; NULL with err. */
static char *body_of(struct queue_conn *k, const char *id, const char *entry, char *err, size_t errlen)
{
    struct queue_result q;
    bool found;
    char qerr[256];
    if (queue_result(k, id, &q, &found, qerr, sizeof qerr) != QUEUE_OK || !found) {
        snprintf(err, errlen, "cannot read the submission: %s", found ? qerr : "gone");
        return NULL;
    }
    json_t *o = jd_result_json(id, &q);
    json_object_set_new(o, "event", json_string(entry));
    char *body = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6));
    json_decref(o);
    queue_result_free(&q);
    return body;
}

/* One attempt of the delivery ENTRY of pool (already claimed). */
static void deliver(struct api *a, struct queue_conn *k, const char *pool, const char *entry)
{
    char err[512] = "", pin[600];
    struct queue_webhook w;
    if (!queue_webhook_get(k, pool, entry, &w)) {
        queue_webhook_done(k, pool, entry, false);   /* nothing to deliver */
        return;
    }
    int attempts = w.attempts + 1;
    long long first = w.first >= 0 ? w.first : now_ms();
    if (check_url(w.url, a->start->api.webhook_allow_private, pin, sizeof pin, err, sizeof err)) {
        bool refused = !strncmp(err, "refused", 7);
        atomic_fetch_add(&a->webhooks[refused ? WEBHOOK_REFUSED : WEBHOOK_FAILED], 1);
        if (refused) {   /* the configuration will not change its mind: no retries */
            fprintf(stderr, "judge-api: webhook of %s to %s refused: %s\n", w.id, w.url, err + 9);
            queue_webhook_bury(k, pool, entry, &w, attempts, err, now_ms());
            return;
        }
    } else {
        char *body = body_of(k, w.id, entry, err, sizeof err);
        int rc = body ? post(a, w.url, pin, entry, body, err, sizeof err) : -1;
        free(body);
        if (rc == 0) {
            atomic_fetch_add(&a->webhooks[WEBHOOK_DELIVERED], 1);
            queue_webhook_done(k, pool, entry, true);
            return;
        }
        atomic_fetch_add(&a->webhooks[WEBHOOK_FAILED], 1);
    }
    /* every failed attempt is one line (and judged_api_webhooks_total): a
     * platform whose receiver is down learns it from the log, not from
     * the dead letters a day later (issue 28) */
    if (now_ms() - first >= a->start->api.webhook_retry_for_ms) {
        atomic_fetch_add(&a->webhooks[WEBHOOK_DEAD], 1);
        fprintf(stderr, "judge-api: webhook of %s to %s failed (attempt %d): %s; given up, in the webhook "
                        "dead letters\n", w.id, w.url, attempts, err);
        queue_webhook_bury(k, pool, entry, &w, attempts, err, now_ms());
        return;
    }
    long delay = backoff_ms(attempts);
    fprintf(stderr, "judge-api: webhook of %s to %s failed (attempt %d): %s; again in %.1f s\n", w.id, w.url,
            attempts, err, delay / 1000.0);
    queue_webhook_later(k, pool, entry, attempts, err, now_ms() + delay);
}

/* Due deliveries of pool: one whose destination and tenant have room is
 * claimed (its due time pushed a lease ahead) and tried; the number tried. */
static int run_due(struct api *a, struct queue_conn *k, const char *pool)
{
    long long now = now_ms();
    char **due, err[512];
    size_t n;
    if (queue_webhook_due(k, pool, now, 32, &due, &n, err, sizeof err))
        return 0;
    int tried = 0;
    for (size_t i = 0; i < n && !atomic_load(&a->stopping); i++) {
        char url[2100], owner[200], dest[320] = "d:?", tenant[320] = "t:", held[300];
        snprintf(held, sizeof held, "e:%s:%s", pool, due[i]);
        /* read before the claim, for the fair share only; deliver() reads
         * the delivery again once it is this worker's, since another
         * process may have changed it (attempts) until then */
        queue_webhook_peek(k, pool, due[i], url, sizeof url, owner, sizeof owner);
        if (url[0])
            destination_of(url, dest, sizeof dest);
        snprintf(tenant, sizeof tenant, "t:%s", owner);
        if (!flight_take(a, held, dest, tenant))
            continue;   /* stays due: another worker, or this one later */
        if (queue_webhook_claim(k, pool, due[i], now, now_ms() + lease_ms(a))) {
            deliver(a, k, pool, due[i]);
            tried++;
        }
        flight_give(a, held, dest, tenant);
    }
    queue_names_free(due, n);
    return tried;
}

/* New results events: each delivery recorded, then acked. */
static void read_new(struct api *a, struct queue_conn *k, const char **pools, int npools)
{
    struct queue_webhook_event *ev = NULL;
    size_t n = 0;
    char err[512];
    if (!queue_webhook_read(k, a->consumer, pools, npools, 500, &ev, &n, err, sizeof err))
        for (size_t e = 0; e < n; e++)
            queue_webhook_record(k, pools[ev[e].pool], &ev[e], now_ms(), err, sizeof err);
    free(ev);
}

/* Entries another (dead) process read and never recorded. */
static void take_over(struct api *a, struct queue_conn *k, const char **pools, int npools)
{
    for (int i = 0; i < npools; i++) {
        const char *pool = pools[i];
        struct queue_webhook_event *ev = NULL;
        size_t n = 0;
        char err[512];
        if (!queue_webhook_takeover(k, a->consumer, pool, i, LEASE_MS, &ev, &n, err, sizeof err))
            for (size_t e = 0; e < n; e++)
                queue_webhook_record(k, pool, &ev[e], now_ms(), err, sizeof err);
        free(ev);
    }
}

struct worker_arg {
    struct api *a;
    bool reader;   /* records new events and takes over; delivers nothing */
};

/* The webhook consumer groups of pools[from..n); -1 with err (k->refused:
 * Redis refused us, which waiting will not mend). */
static int ensure_groups(struct queue_conn *k, const char **pools, int from, int n, char *err, size_t errlen)
{
    for (int i = from; i < n; i++)
        if (queue_webhook_group(k, pools[i], err, errlen))
            return -1;
    return 0;
}

/* The reader's turn: makes the groups of pools it has not grouped yet (all
 * of them when judge-api started while Redis was away; one a reload added),
 * takes over what dead readers left, records new events. -1: Redis is away. */
static int reader_turn(struct api *a, struct queue_conn *k, int *grouped, long long *next_takeover)
{
    const char **pools;
    int n = api_followed_pools(a, &pools);
    char err[512];
    if (*grouped < n) {
        if (ensure_groups(k, pools, *grouped, n, err, sizeof err)) {
            free(pools);
            return -1;
        }
        for (int i = *grouped > a->start->npools ? *grouped : a->start->npools; i < n; i++)
            fprintf(stderr, "judge-api: webhooks: pool %s added by a reload; delivering its callbacks\n", pools[i]);
        if (*grouped == 0)
            fprintf(stderr, "judge-api: webhooks: Redis answers; delivering\n");
        *grouped = n;
    }
    if (now_ms() >= *next_takeover) {
        take_over(a, k, pools, n);
        *next_takeover = now_ms() + LEASE_MS / 4;
    }
    read_new(a, k, pools, n);   /* blocks up to half a second */
    free(pools);
    return 0;
}

static void *webhook_main(void *p)
{
    struct worker_arg *w = p;
    struct api *a = w->a;
    bool reader = w->reader;
    int grouped = atomic_load(&a->webhook_groups_ready) ? a->start->npools : 0;   /* the reader's */
    free(w);
    struct queue_conn k;
    queue_conn_init(&k, a->redis_url, 5000);
    long long next_takeover = 0;
    while (!atomic_load(&a->stopping)) {
        if (queue_conn_ensure(&k)) {
            queue_conn_backoff(&k);
            continue;
        }
        /* the reader only reads: stuck in a slow delivery, it would leave
         * every new event unrecorded for as long */
        if (reader) {
            if (reader_turn(a, &k, &grouped, &next_takeover))
                queue_conn_backoff(&k);
            continue;
        }
        const char **pools;
        int n = api_followed_pools(a, &pools), tried = 0;
        for (int i = 0; i < n; i++)
            tried += run_due(a, &k, pools[i]);
        free(pools);
        if (!tried)
            common_sleep_ms(IDLE_POLL_MS);
    }
    queue_conn_close(&k);
    return NULL;
}

int api_webhooks_start(struct api *a, char *err, size_t errlen)
{
    if (!a->start->api.webhook_secret)
        return 0;   /* no secret, no webhooks (callback_url is still stored) */
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    snprintf(a->consumer, sizeof a->consumer, "api-%s-%d", host, (int)getpid());
    /* Redis away at start is not a reason to stay down (judge-api answers
     * 503 until it is back; the reader makes the groups then); Redis that
     * refuses us is a configuration error, said at once */
    struct queue_conn k;
    queue_conn_init(&k, a->redis_url, 5000);
    char gerr[512];
    const char **pools;
    int npools = api_followed_pools(a, &pools);
    int made = ensure_groups(&k, pools, 0, npools, gerr, sizeof gerr);
    free(pools);
    if (made == 0)
        atomic_store(&a->webhook_groups_ready, true);
    else if (k.refused || k.c) {
        snprintf(err, errlen, "webhooks: %s", gerr);
        queue_conn_close(&k);
        return -1;
    } else
        fprintf(stderr, "judge-api: webhooks: %s; delivering once Redis answers\n", gerr);
    queue_conn_close(&k);
    pthread_mutex_init(&a->webhook_lock, NULL);
    int threads = a->start->api.webhook_workers + 1;   /* the reader, then the workers */
    a->webhook_threads = calloc((size_t)threads, sizeof *a->webhook_threads);
    for (int i = 0; i < threads; i++) {
        struct worker_arg *w = malloc(sizeof *w);
        *w = (struct worker_arg){a, i == 0};
        if (pthread_create(&a->webhook_threads[i], NULL, webhook_main, w)) {
            free(w);
            snprintf(err, errlen, "webhooks: cannot start delivery thread %d", i + 1);
            api_webhooks_stop(a);
            return -1;
        }
        a->webhook_nthreads++;
    }
    return 0;
}

void api_webhooks_stop(struct api *a)
{
    atomic_store(&a->stopping, true);
    for (int i = 0; i < a->webhook_nthreads; i++)
        pthread_join(a->webhook_threads[i], NULL);
    if (a->webhook_threads) {
        pthread_mutex_destroy(&a->webhook_lock);
        free(a->webhook_threads);
        free(a->webhook_flights);
    }
    a->webhook_threads = NULL;
    a->webhook_flights = NULL;
    a->webhook_nthreads = a->webhook_nflights = a->webhook_capflights = 0;
}

/* ------------------------------------------------------------- admin */

enum MHD_Result api_webhook_dlq(struct req *r)
{
    struct api *a = r->api;
    struct queue_conn *k = api_conn_get(a);
    json_t *list = json_array();
    for (int i = 0; i < a->start->npools; i++) {
        const char *pool = a->start->pools[i].name;
        struct queue_entries es;
        char err[512];
        if (queue_webhook_dlq(k, pool, 1000, &es, err, sizeof err))
            continue;   /* a pool Redis did not answer for lists nothing */
        for (size_t e = 0; e < es.n; e++) {
            char did[200];
            snprintf(did, sizeof did, "%s:%s", pool, es.e[e].entry);
            json_t *o = json_pack("{s:s, s:s}", "dlq_id", did, "pool", pool);
            for (size_t j = 0; j < es.e[e].n; j++) {
                const char *f = es.e[e].kv[2 * j], *v = es.e[e].kv[2 * j + 1];
                json_object_set_new(o, f, !strcmp(f, "attempts") || !strcmp(f, "time") ? json_integer(atoll(v))
                                                                                         : json_string(v));
            }
            json_array_append_new(list, o);
        }
        queue_entries_free(&es);
    }
    api_conn_put(a, k);
    return api_json(r, 200, json_pack("{s:o}", "dead_letters", list));
}

/* POOL:ENTRY of the webhook DLQ: deliver again from now (a fresh retry period). */
enum MHD_Result api_webhook_replay(struct req *r, const char *dlq_id)
{
    struct api *a = r->api;
    char pool[80], entry[64];
    const char *colon = strchr(dlq_id, ':');
    if (!colon || colon - dlq_id >= (long)sizeof pool || strlen(colon + 1) >= sizeof entry)
        return api_error(r, 404, NULL, "no webhook dead letter '%.100s'", dlq_id);
    snprintf(pool, sizeof pool, "%.*s", (int)(colon - dlq_id), dlq_id);
    snprintf(entry, sizeof entry, "%s", colon + 1);
    if (!jd_pool_by_name(a->start, pool))
        return api_error(r, 404, NULL, "no pool '%.100s'", pool);
    struct queue_conn *k = api_conn_get(a);
    char id[200];
    bool found = queue_webhook_replay(k, pool, entry, now_ms(), id, sizeof id);
    api_conn_put(a, k);
    if (!found)
        return api_error(r, 404, NULL, "no webhook dead letter '%.100s'", dlq_id);
    json_t *o = json_pack("{s:s, s:s}", "replayed", dlq_id, "id", id);
    return api_json(r, 200, o);
}
