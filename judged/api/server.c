/*
 * server.c - judge-api's HTTP server: authentication, rate limits, framing,
 * responses (the routes: routes.c).
 *
 * Theory of operation
 * -------------------
 * judge-api is a stateless front of the Redis queue: everything it knows
 * lives in Redis (submissions, results streams, pool states, hosts) or in
 * judged's configuration file (pools, languages, problems, limits), so any
 * number of replicas can run side by side behind a load balancer. It admits
 * through the queue library's queue_admit (the same function as `judgectl
 * submit`, over the judged_admit Redis function), reads results with
 * queue_result and events with queue_events; it links neither runner/ nor
 * sandbox/.
 *
 * libmicrohttpd runs a pool of api.threads threads (default: 2 x the
 * host's CPUs), each serving any number of connections with poll()
 * (bounded by api.max_connections, more wait in the listen backlog; and by
 * api.max_connections_per_address from one client address, more are closed
 * at once, so that one client cannot hold them all). A thread per
 * connection made 1,000 open event streams 1,000 threads, all woken by
 * each event: admissions beside them waited 32-657 ms at p99 (bench_api
 * --streams 1000). So nothing that waits for an event holds a thread: a
 * long-poll (GET /v1/submissions/ID?wait=S) and an event stream with
 * nothing to send suspend their connection (MHD_suspend_connection), and
 * the events hub (events.c: one reader of every results stream for all)
 * resumes it when its event has come, its time is up, or judge-api
 * stops. Handlers still wait for Redis's answers (a round trip, well
 * under a millisecond on one machine), holding no lock meanwhile: each
 * borrows a Redis connection from a small pool (hiredis contexts are not
 * thread-safe) and gives it back before it returns.
 * Connections are HTTP/1.1 keep-alive.
 *
 * A request's body is collected up to api's body limit (2 x max_source, a
 * JSON-escaped source, plus 16 KiB for the other fields); a bigger one gets
 * 413 at once and is not read further. Then the route table (routes.c: one
 * line per endpoint, its method, pattern, role and handler): public routes
 * (/healthz, /readyz, /v1/openapi.yaml, the dashboard's files), else the
 * bearer token: its SHA-256 is looked up in the tokens file (only hashes
 * are stored) -> 401; the token's bucket (api.rate per second, api.burst
 * deep) -> 429 with Retry-After; the route -> 404 or 405; its role -> 403.
 * A package upload (PUT /v1/problems/NAME, up to max_package) has its token
 * and role checked when its headers arrive, before any of its body, which
 * goes to a private file as it arrives, never into memory. A
 * submitter's token name is recorded with each submission (owner), and it
 * reads only its own submissions.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "api.h"
#include "common.h"
#include "store.h"

/* ---------------------------------------------------------- connections */

struct queue_conn *api_conn_get(struct api *a)
{
    struct queue_conn *k = NULL;
    pthread_mutex_lock(&a->lock);
    if (a->nidle > 0)
        k = a->idle[--a->nidle];
    pthread_mutex_unlock(&a->lock);
    if (!k) {
        k = malloc(sizeof *k);
        /* 5 s: above the 1 s slices that blocking reads use */
        queue_conn_init(k, a->redis_url, 5000);
    }
    return k;
}

void api_conn_put(struct api *a, struct queue_conn *k)
{
    pthread_mutex_lock(&a->lock);
    if (a->nidle < a->cap_idle) {
        a->idle[a->nidle++] = k;
        k = NULL;
    }
    pthread_mutex_unlock(&a->lock);
    if (k) {
        queue_conn_close(k);
        free(k);
    }
}

/* ------------------------------------------------------------ responses */

static enum MHD_Result respond(struct req *r, unsigned status, const char *type, const char *body,
                               size_t len, va_list hdrs)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, "Content-Type", type);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    const char *h;
    while ((h = va_arg(hdrs, const char *))) {
        const char *v = va_arg(hdrs, const char *);
        MHD_add_response_header(resp, h, v);
    }
    if (r->detached) {   /* queued by the access handler once resumed */
        if (r->answer)
            MHD_destroy_response(r->answer);
        r->answer = resp;
        r->answer_status = status;
        return MHD_YES;
    }
    enum MHD_Result ret = MHD_queue_response(r->conn, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

enum MHD_Result api_text_h(struct req *r, unsigned status, const char *type, const char *body, size_t len,
                           ...)
{
    va_list ap;
    va_start(ap, len);
    enum MHD_Result ret = respond(r, status, type, body, len, ap);
    va_end(ap);
    return ret;
}

/* JSON with extra headers: name, value, ..., NULL */
enum MHD_Result api_json_h(struct req *r, unsigned status, json_t *body, ...)
{
    char *s = json_dumps(body, JSON_COMPACT | JSON_REAL_PRECISION(6));
    json_decref(body);
    if (!s)
        return MHD_NO;
    size_t n = strlen(s);
    s = realloc(s, n + 2);
    s[n++] = '\n';
    va_list ap;
    va_start(ap, body);
    enum MHD_Result ret = respond(r, status, "application/json", s, n, ap);
    va_end(ap);
    free(s);
    return ret;
}

enum MHD_Result api_json(struct req *r, unsigned status, json_t *body)
{
    return api_json_h(r, status, body, NULL);
}

/* An error document {"error": MSG, "field": F}. The message may quote what
 * the client sent, cut to a length (possibly inside a character): it is
 * repaired to UTF-8 first, or jansson refuses it and the client would get
 * no answer at all. */
static enum MHD_Result verror(struct req *r, unsigned status, const char *field, const char *fmt,
                              va_list ap, const char *h, const char *hv)
{
    char msg[1024], f[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    common_utf8_repair(msg);
    json_t *o = json_pack("{s:s}", "error", msg);
    if (field) {
        snprintf(f, sizeof f, "%s", field);
        common_utf8_repair(f);
        json_object_set_new(o, "field", json_string(f));
    }
    if (status == 401)
        return api_json_h(r, status, o, "WWW-Authenticate", "Bearer realm=\"judged\"", NULL);
    return api_json_h(r, status, o, h, hv, NULL);
}

/* 400 for a request that cannot be framed, with Connection: close. */
static enum MHD_Result verror_close(struct req *r, const char *why)
{
    json_t *o = json_pack("{s:s, s:s}", "error", why, "field", "headers");
    return api_json_h(r, 400, o, MHD_HTTP_HEADER_CONNECTION, "close", NULL);
}

enum MHD_Result api_error(struct req *r, unsigned status, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    enum MHD_Result ret = verror(r, status, field, fmt, ap, NULL, NULL);
    va_end(ap);
    return ret;
}

enum MHD_Result api_error_retry(struct req *r, unsigned status, long retry_after, const char *fmt, ...)
{
    char ra[32];
    snprintf(ra, sizeof ra, "%ld", retry_after < 1 ? 1 : retry_after);
    va_list ap;
    va_start(ap, fmt);
    enum MHD_Result ret = verror(r, status, NULL, fmt, ap, "Retry-After", ra);
    va_end(ap);
    return ret;
}

enum MHD_Result api_text(struct req *r, unsigned status, const char *type, const char *body, size_t len)
{
    return api_text_h(r, status, type, body, len, NULL);
}

const char *api_arg(struct req *r, const char *name)
{
    return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

bool api_has_role(const struct req *r, unsigned roles)
{
    return (r->roles & (roles | ROLE_ADMIN)) != 0;
}

/* --------------------------------------------------------------- access */

/* Takes one request from t's bucket (api.rate per second, api.burst
 * deep): 0, or the seconds until one is there (nothing taken). Called with
 * the api's lock held. */
static double take(struct api_token *t, const struct jd_config *cfg)
{
    if (cfg->api.rate <= 0)
        return 0;
    double now = common_monotonic();
    double burst = (double)cfg->api.burst;
    t->bucket += (now - t->refilled) * cfg->api.rate;
    if (t->bucket > burst)
        t->bucket = burst;
    t->refilled = now;
    if (t->bucket < 1)
        return (1 - t->bucket) / cfg->api.rate;
    t->bucket -= 1;
    return 0;
}

double api_charge(struct req *r)
{
    struct api *a = r->api;
    double wait = 0;
    pthread_mutex_lock(&a->lock);
    for (int i = 0; i < a->tokens.n; i++)
        if (!strcmp(a->tokens.v[i].name, r->tok_name)) {
            wait = take(&a->tokens.v[i], r->cfg);
            break;
        }
    pthread_mutex_unlock(&a->lock);
    return wait;
}

int api_authenticate(struct req *r, enum MHD_Result *ret)
{
    const char *h = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Authorization");
    if (!h || strncasecmp(h, "Bearer ", 7)) {
        *ret = api_error(r, 401, NULL, "missing bearer token (Authorization: Bearer TOKEN)");
        return -1;
    }
    unsigned char hash[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)h + 7, strlen(h + 7), hash);
    struct api *a = r->api;
    double wait = 0;
    bool found = false;
    pthread_mutex_lock(&a->lock);
    for (int i = 0; i < a->tokens.n; i++) {
        struct api_token *t = &a->tokens.v[i];
        if (CRYPTO_memcmp(t->hash, hash, sizeof hash))
            continue;
        found = true;
        snprintf(r->tok_name, sizeof r->tok_name, "%s", t->name);
        r->roles = t->roles;
        wait = take(t, r->cfg);
        break;
    }
    pthread_mutex_unlock(&a->lock);
    if (!found) {
        *ret = api_error(r, 401, NULL, "unknown token");
        return -1;
    }
    if (wait > 0) {
        *ret = api_error_retry(r, 429, (long)ceil(wait), "token '%s' is over its rate of %g requests/s",
                               r->tok_name, r->cfg->api.rate);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ framing */

struct header_count {
    const char *name;
    int n;
};

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    (void)value;
    struct header_count *c = cls;
    c->n += !strcasecmp(key, c->name);
    return MHD_YES;
}

static int header_count(struct MHD_Connection *conn, const char *name)
{
    struct header_count c = {name, 0};
    MHD_get_connection_values(conn, MHD_HEADER_KIND, count_header, &c);
    return c.n;
}

/* A request whose length or target a proxy in front could read another way
 * than libmicrohttpd does (RFC 9112 3.2, 6.1, 6.3): two Content-Lengths (the
 * first won here; a proxy taking the last smuggles a second request into
 * the body), Content-Length beside Transfer-Encoding, chunked HTTP/1.0,
 * HTTP/1.1 without exactly one Host. NULL: none of these. */
static const char *framing_error(struct MHD_Connection *conn, const char *version)
{
    int cl = header_count(conn, MHD_HTTP_HEADER_CONTENT_LENGTH);
    int te = header_count(conn, MHD_HTTP_HEADER_TRANSFER_ENCODING);
    bool http11 = !strcmp(version, MHD_HTTP_VERSION_1_1);
    if (cl > 1)
        return "more than one Content-Length header";
    if (cl && te)
        return "both Content-Length and Transfer-Encoding";
    if (te && !http11)
        return "Transfer-Encoding in an HTTP/1.0 request";
    if (http11 && header_count(conn, MHD_HTTP_HEADER_HOST) != 1)
        return "an HTTP/1.1 request needs exactly one Host header";
    return NULL;
}

/* An upload's body goes to a file as it arrives, never into memory: a
 * package may be max_package bytes (default 256 MiB) and every upload in
 * flight would hold that much (bench_upload: judge-api's peak RSS was the
 * body's size plus ~25 MiB). The directory is private to judge-api (0700)
 * and removed when the request ends, answered or not. */
static int upload_open(struct req *r)
{
    snprintf(r->upload_dir, sizeof r->upload_dir, "/tmp/judge-api-upload-XXXXXX");
    if (!mkdtemp(r->upload_dir)) {
        r->upload_errno = errno;
        r->upload_dir[0] = '\0';
        return -1;
    }
    char file[64];
    snprintf(file, sizeof file, "%s/upload", r->upload_dir);
    r->upload_fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (r->upload_fd < 0) {
        r->upload_errno = errno;
        return -1;
    }
    return 0;
}

/* One chunk of an upload's body into its file; a failed write (a full
 * disk) is kept for the handler's answer, and the rest is only counted. */
static void upload_write(struct req *r, const char *data, size_t n)
{
    r->len += n;
    while (n && !r->upload_errno) {
        ssize_t w = write(r->upload_fd, data, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            r->upload_errno = w < 0 ? errno : EIO;
        else
            data += w, n -= (size_t)w;
    }
}

static void upload_close(struct req *r)
{
    if (r->upload_fd >= 0)
        close(r->upload_fd);
    r->upload_fd = -1;
    if (r->upload_dir[0])
        store_remove_tree(r->upload_dir);
    r->upload_dir[0] = '\0';
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    struct api *a = cls;
    struct req *r = *con_cls;
    if (!r) {
        r = calloc(1, sizeof *r);
        r->api = a;
        r->upload_fd = -1;   /* before any early answer: on_completed closes it */
        r->conf = api_conf_get(a);   /* a SIGHUP from now on is for the next request */
        r->cfg = &r->conf->cfg;
        *con_cls = r;
        atomic_fetch_add(&a->requests, 1);
        const char *bad = framing_error(conn, version);
        if (bad) {
            /* answered before any body is read, and the connection closed:
             * what follows on it is not a request */
            r->conn = conn;
            r->url = url;
            r->method = method;
            return verror_close(r, bad);
        }
        /* a package upload may be as big as max_package; anything else is JSON */
        const struct api_route *upload = api_route_upload(method, url);
        const struct api_route *rt = upload ? NULL : api_route_find(method, url);
        r->limit = upload ? r->cfg->max_package
                   : rt && (rt->flags & ROUTE_BATCH) ? a->body_limit * API_MAX_BATCH : a->body_limit;
        if (upload) {
            /* the token and role first: an anonymous client must not make a
             * root process write max_package bytes */
            r->conn = conn;
            r->url = url;
            r->method = method;
            enum MHD_Result ret;
            if (api_authenticate(r, &ret))
                return ret;
            r->authed = true;
            if (!api_has_role(r, upload->roles))
                return api_forbidden(r, upload);
            if (upload_open(r))
                return api_error(r, 500, NULL, "cannot keep the upload: %s", strerror(r->upload_errno));
        }
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
        if (cl && strtoll(cl, NULL, 10) > r->limit)
            r->too_big = true;   /* answered now: the body is not read */
        else
            return MHD_YES;
    }
    if (*upload_size && !r->too_big) {
        if (r->len + *upload_size > (size_t)r->limit)
            r->too_big = true;
        else if (r->upload_fd >= 0)
            upload_write(r, upload, *upload_size);
        else {
            r->body = realloc(r->body, r->len + *upload_size + 1);
            memcpy(r->body + r->len, upload, *upload_size);
            r->len += *upload_size;
            r->body[r->len] = '\0';
        }
        *upload_size = 0;
        return MHD_YES;
    }
    *upload_size = 0;
    r->conn = conn;
    r->url = url;
    r->method = method;
    if (r->resume)   /* a suspended request, resumed: its handler's next step */
        return r->resume(r);
    if (r->too_big)
        return api_error(r, 413, "body", "the request body is larger than %ld bytes", r->limit);
    return api_route(r);
}

/* ---------------------------------------------- handlers on own threads */

struct detached_call {
    struct req *r;
    enum MHD_Result (*fn)(struct req *r);
    char *path;
};

/* The resumed connection's answer: what the handler kept (none: the
 * handler failed, and the connection is closed as it would have been). */
static enum MHD_Result deliver_answer(struct req *r)
{
    r->resume = NULL;
    r->detached = false;
    if (!r->answer)
        return MHD_NO;
    enum MHD_Result ret = MHD_queue_response(r->conn, r->answer_status, r->answer);
    MHD_destroy_response(r->answer);
    r->answer = NULL;
    return ret;
}

static void *detached_main(void *p)
{
    struct detached_call *c = p;
    struct req *r = c->r;
    struct api *a = r->api;
    if (c->fn(r) != MHD_YES && r->answer) {   /* as MHD_NO from the access handler: no answer */
        MHD_destroy_response(r->answer);
        r->answer = NULL;
    }
    memset(r->param, 0, sizeof r->param);
    free(c->path);
    free(c);
    MHD_resume_connection(r->conn);
    pthread_mutex_lock(&a->detached_lock);
    if (--a->ndetached == 0)
        pthread_cond_broadcast(&a->detached_done);
    pthread_mutex_unlock(&a->detached_lock);
    return NULL;
}

enum MHD_Result api_call_detached(struct req *r, enum MHD_Result (*fn)(struct req *r), char *path)
{
    struct api *a = r->api;
    struct detached_call *c = malloc(sizeof *c);
    if (!c) {
        free(path);
        return MHD_NO;
    }
    *c = (struct detached_call){r, fn, path};
    r->detached = true;
    r->resume = deliver_answer;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_mutex_lock(&a->detached_lock);
    a->ndetached++;
    MHD_suspend_connection(r->conn);   /* before the thread may resume it */
    pthread_t t;
    int e = pthread_create(&t, &at, detached_main, c);
    if (e) {
        a->ndetached--;
        MHD_resume_connection(r->conn);
    }
    pthread_mutex_unlock(&a->detached_lock);
    pthread_attr_destroy(&at);
    if (e) {   /* no thread: run it here, as before */
        r->detached = false;
        r->resume = NULL;
        enum MHD_Result ret = fn(r);
        memset(r->param, 0, sizeof r->param);
        free(path);
        free(c);
        return ret;
    }
    return MHD_YES;
}

/* ------------------------------------------------------ stream limits */

bool api_stream_open(struct api *a, const char *token)
{
    bool ok = true;
    pthread_mutex_lock(&a->lock);
    struct stream_count *c = NULL, *free_slot = NULL;
    for (int i = 0; i < a->nstreams && !c; i++) {
        if (!strcmp(a->streams[i].token, token))
            c = &a->streams[i];
        else if (!a->streams[i].open && !free_slot)
            free_slot = &a->streams[i];
    }
    if (!c && !free_slot) {
        if (a->nstreams == a->cap_streams) {
            a->cap_streams = a->cap_streams ? 2 * a->cap_streams : 16;
            a->streams = realloc(a->streams, (size_t)a->cap_streams * sizeof *a->streams);
        }
        free_slot = &a->streams[a->nstreams++];
        free_slot->open = 0;
    }
    if (!c) {
        c = free_slot;
        snprintf(c->token, sizeof c->token, "%s", token);
    }
    if (c->open >= a->start->api.max_streams_per_token)
        ok = false;
    else
        c->open++;
    pthread_mutex_unlock(&a->lock);
    return ok;
}

void api_stream_close(struct api *a, const char *token)
{
    pthread_mutex_lock(&a->lock);
    for (int i = 0; i < a->nstreams; i++)
        if (!strcmp(a->streams[i].token, token) && a->streams[i].open > 0) {
            a->streams[i].open--;
            break;
        }
    pthread_mutex_unlock(&a->lock);
}

int api_conn_fd(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    return ci ? ci->connect_fd : -1;
}

/* A poll that reads nothing: safe beside libmicrohttpd's thread (a
 * connection the hub's waker looks at is suspended: nobody reads it). */
bool api_peer_gone(int fd)
{
    if (fd < 0)
        return false;
    struct pollfd p = {.fd = fd, .events = POLLRDHUP};
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* A new connection: no Nagle delay on what it is sent (an event stream's
 * small frames would otherwise wait for the client's delayed ACK). */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_ctx,
                          enum MHD_ConnectionNotificationCode code)
{
    (void)cls;
    (void)socket_ctx;
    if (code != MHD_CONNECTION_NOTIFY_STARTED)
        return;
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
    int one = 1;
    if (ci)
        setsockopt(ci->connect_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode why)
{
    (void)cls;
    (void)conn;
    (void)why;
    struct req *r = *con_cls;
    if (r) {
        if (r->answer)   /* a detached handler's, never queued (the connection closed at shutdown) */
            MHD_destroy_response(r->answer);
        upload_close(r);
        api_conf_put(r->conf);
        free(r->body);
        free(r);
    }
    *con_cls = NULL;
}

/* ------------------------------------------------------------ lifecycle */

int api_start(struct api *a, char *err, size_t errlen)
{
    struct addrinfo *ai;
    char why[512];
    if (jd_listen_addr(a->start->api.listen, &ai, why, sizeof why)) {   /* config.c: the one grammar */
        snprintf(err, errlen, "api.listen '%s': %s", a->start->api.listen, why);
        return -1;
    }
    /* poll(), not select(): every connection costs a fd, and an event
     * stream catching up from Redis a second one: past FD_SETSIZE soon.
     * Not epoll: libmicrohttpd 0.9.75's epoll mode (edge-triggered) misses
     * the end of input that came with the bytes it read (a client that
     * sends a request, or a part of one, and shuts its side), and holds the
     * connection until the idle timeout: fuzz_http's half-close check. A
     * suspended connection is out of its thread's poll set, so a thread
     * polls only the connections it serves. */
    unsigned flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG |
                     (ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = a->start->api.threads > 0 ? (unsigned)a->start->api.threads
                                                 : cpus > 0 ? 2 * (unsigned)cpus : 2;
    if (threads > (unsigned)a->start->api.max_connections)   /* each thread takes a share of them */
        threads = (unsigned)a->start->api.max_connections;
    a->body_limit = 2 * a->start->max_source + 16384;
    a->cap_idle = 64;
    a->idle = calloc((size_t)a->cap_idle, sizeof *a->idle);
    pthread_mutex_init(&a->lock, NULL);
    pthread_mutex_init(&a->detached_lock, NULL);
    pthread_cond_init(&a->detached_done, NULL);
    if (api_hub_start(a, err, errlen)) {
        freeaddrinfo(ai);
        return -1;
    }
    a->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, a, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)a->start->api.max_connections,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                            (unsigned)a->start->api.max_connections_per_address,
                            MHD_OPTION_CONNECTION_TIMEOUT, 120u, MHD_OPTION_NOTIFY_COMPLETED,
                            on_completed, a, MHD_OPTION_NOTIFY_CONNECTION, on_connection, a,
                            MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!a->d) {
        snprintf(err, errlen, "cannot listen on %s (in use? see the log above)", a->start->api.listen);
        atomic_store(&a->stopping, true);
        api_hub_stop(a);
        return -1;
    }
    return 0;
}

int api_port(struct api *a)
{
    const union MHD_DaemonInfo *i = MHD_get_daemon_info(a->d, MHD_DAEMON_INFO_BIND_PORT);
    return i ? i->port : -1;
}

void api_stop(struct api *a)
{
    atomic_store(&a->stopping, true);
    api_hub_wake(a);   /* suspended streams and long polls resumed: they end or answer now */
    /* MHD_stop_daemon must find no connection suspended: handlers on their
     * own threads end first (an upload waits for its validator's answer) */
    pthread_mutex_lock(&a->detached_lock);
    while (a->ndetached > 0)
        pthread_cond_wait(&a->detached_done, &a->detached_lock);
    pthread_mutex_unlock(&a->detached_lock);
    if (a->d)
        MHD_stop_daemon(a->d);
    a->d = NULL;
    api_hub_stop(a);
    for (int i = 0; i < a->nidle; i++) {
        queue_conn_close(a->idle[i]);
        free(a->idle[i]);
    }
    free(a->idle);
    a->idle = NULL;
    a->nidle = 0;
    free(a->streams);
    a->streams = NULL;
    a->nstreams = a->cap_streams = 0;
    pthread_mutex_destroy(&a->lock);
    pthread_mutex_destroy(&a->detached_lock);
    pthread_cond_destroy(&a->detached_done);
}
