/* metrics.c - judged's own per-host metrics (`metrics_listen:`), served as
 * Prometheus text (exposition format 0.0.4) by a small libmicrohttpd server.
 *
 * judge-api's GET /metrics is the cluster's view, read from Redis. This is
 * what only the host knows: how long its compiles and test runs take, what
 * it ended jobs with, its infrastructure failures, its slots and how many
 * are busy now, and whether it reaches Redis. Prometheus scrapes every host.
 *
 * State. The counters live in the daemon's state (judged.metrics), guarded by
 * one mutex that a worker takes once per job (two or three additions; a
 * scrape copies them out under it). They are kept by pool *name*, copied
 * into this module, never pointing at a configuration snapshot, so a
 * SIGHUP that removes a pool frees nothing a scrape reads; a removed pool's
 * counters stay (counters do not go back), its gauges go. The gauges are read at
 * scrape time from the live pools (judged.pools_mu, then each pool's mu: the
 * order the heartbeat takes them in); pools are never freed while judged
 * runs. Nothing is counted when metrics_listen is off.
 *
 * The server: one listening socket bound here (so a refusal can say why:
 * "Address already in use"), close-on-exec (the embedded redis-server and
 * the boxes must not inherit it: a redis-server that outlives judged would
 * keep the port), handed to libmicrohttpd with one internal polling thread.
 * GET /metrics, GET /healthz ("ok"); anything else 404.
 */
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "daemon.h"

/* seconds; cumulative in the output, counted per bucket here */
#define METRICS_BUCKETS 13   /* 10 ms .. 60 s, and +Inf: judge-api's judging histogram's */
static const double BUCKETS[METRICS_BUCKETS - 1] = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                                     2.5,  5,     10,   30,  60};

struct metrics_hist {
    long long n[METRICS_BUCKETS];   /* the last is +Inf */
    long long sum_ms, count;
};

struct metrics_lang {
    char name[64];
    struct metrics_hist compile, run;
    struct metrics_lang *next;
};

#define METRICS_VERDICTS 24
struct metrics_pool {
    char name[64];
    long long infra;
    int nverdicts;
    char verdict[METRICS_VERDICTS][16];
    long long jobs[METRICS_VERDICTS];
    struct metrics_lang *langs;
    struct metrics_pool *next;
};

/* ------------------------------------------------------------ counting */

/* Caller holds m->mu. */
static struct metrics_pool *pool_of(struct metrics *m, const char *name)
{
    struct metrics_pool *p;
    for (p = m->pools; p; p = p->next)
        if (!strcmp(p->name, name))
            return p;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->next = m->pools;
    m->pools = p;
    return p;
}

static struct metrics_lang *lang_of(struct metrics_pool *p, const char *name)
{
    struct metrics_lang *l;
    for (l = p->langs; l; l = l->next)
        if (!strcmp(l->name, name))
            return l;
    l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    snprintf(l->name, sizeof l->name, "%s", name);
    l->next = p->langs;
    p->langs = l;
    return l;
}

static void observe(struct metrics_hist *h, long ms)
{
    int b = 0;
    while (b < METRICS_BUCKETS - 1 && ms > BUCKETS[b] * 1000)
        b++;
    h->n[b]++;
    h->sum_ms += ms;
    h->count++;
}

void metrics_job(struct metrics *m, const struct job *j)
{
    if (!m->on || !j->outcome)
        return;
    /* a verdict this host ended the job with: its own published one, or the
     * IE of a dead letter (poison, or infrastructure failures exhausted) */
    const char *verdict = !strcmp(j->outcome, "published") && j->verdict[0] ? j->verdict
                          : !strcmp(j->outcome, "dead")                     ? "IE"
                                                                            : NULL;
    pthread_mutex_lock(&m->mu);
    struct metrics_pool *p = pool_of(m, j->pool->name);
    if (p && verdict) {
        int i;
        for (i = 0; i < p->nverdicts && strcmp(p->verdict[i], verdict); i++)
            ;
        if (i == p->nverdicts && i < METRICS_VERDICTS)
            snprintf(p->verdict[p->nverdicts++], sizeof p->verdict[0], "%s", verdict);
        if (i < METRICS_VERDICTS)
            p->jobs[i]++;
    }
    /* times only of a judgment that produced a report on this host (as its
     * log line's compile_ms and run_ms): -1 is "did not happen" */
    struct metrics_lang *l = p && j->q.lang && (j->compile_ms >= 0 || j->run_ms >= 0)
                                 ? lang_of(p, j->q.lang) : NULL;
    if (l && j->compile_ms >= 0)
        observe(&l->compile, j->compile_ms);
    if (l && j->run_ms >= 0 && strcmp(j->verdict, "CE"))   /* no test ran */
        observe(&l->run, j->run_ms);
    pthread_mutex_unlock(&m->mu);
}

void metrics_infra_failure(struct metrics *m, const char *pool)
{
    if (!m->on)
        return;
    pthread_mutex_lock(&m->mu);
    struct metrics_pool *p = pool_of(m, pool);
    if (p)
        p->infra++;
    pthread_mutex_unlock(&m->mu);
}

void metrics_pcache_refetch(struct metrics *m, enum pcache_reason reason)
{
    if (!m->on)
        return;
    pthread_mutex_lock(&m->mu);
    m->refetch[reason]++;
    pthread_mutex_unlock(&m->mu);
}

void metrics_redis(struct metrics *m, bool up)
{
    atomic_store(&m->redis_up, up ? 1 : 0);
}

/* ----------------------------------------------------------- rendering */

struct buf {
    char *s;
    size_t len, cap;
    bool oom;
};

static void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(struct buf *b, const char *fmt, ...)
{
    while (!b->oom) {
        va_list ap;
        va_start(ap, fmt);
        int n = b->s ? vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap) : -1;
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap * 2 + (n > 0 ? (size_t)n : 0) + 4096;
        char *s = realloc(b->s, cap);
        if (!s)
            b->oom = true;
        else {
            b->s = s;
            b->cap = cap;
        }
    }
}

/* A label value as the exposition format wants it: \ " and newline escaped. */
static const char *esc(const char *s, char *out, size_t len)
{
    size_t o = 0;
    for (; *s && o + 3 < len; s++) {
        if (*s == '\\' || *s == '"' || *s == '\n')
            out[o++] = '\\';
        out[o++] = *s == '\n' ? 'n' : *s;
    }
    out[o] = '\0';
    return out;
}

static void head(struct buf *b, const char *name, const char *type, const char *help)
{
    bprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void histogram(struct buf *b, const char *name, const char *pool, const char *lang,
                      const struct metrics_hist *h)
{
    long long cum = 0;
    for (int i = 0; i < METRICS_BUCKETS; i++) {
        cum += h->n[i];
        char le[32];
        if (i == METRICS_BUCKETS - 1)
            snprintf(le, sizeof le, "+Inf");
        else
            snprintf(le, sizeof le, "%g", BUCKETS[i]);
        bprintf(b, "%s_bucket{pool=\"%s\",language=\"%s\",le=\"%s\"} %lld\n", name, pool, lang, le, cum);
    }
    bprintf(b, "%s_sum{pool=\"%s\",language=\"%s\"} %.3f\n", name, pool, lang, (double)h->sum_ms / 1000);
    bprintf(b, "%s_count{pool=\"%s\",language=\"%s\"} %lld\n", name, pool, lang, h->count);
}

/* The counters (under m->mu: a scrape sees every job whole). */
static void render_counters(struct metrics *m, struct buf *b)
{
    char pool[160], lang[160], v[64];
    pthread_mutex_lock(&m->mu);
    head(b, "judged_jobs_total", "counter",
         "Jobs this host ended, by pool and verdict (its published verdicts, and IE for its dead letters).");
    for (struct metrics_pool *p = m->pools; p; p = p->next)
        for (int i = 0; i < p->nverdicts; i++)
            bprintf(b, "judged_jobs_total{pool=\"%s\",verdict=\"%s\"} %lld\n", esc(p->name, pool, sizeof pool),
                    esc(p->verdict[i], v, sizeof v), p->jobs[i]);
    head(b, "judged_infrastructure_failures_total", "counter",
         "Infrastructure failures of jobs on this host (each one retried later or dead-lettered).");
    for (struct metrics_pool *p = m->pools; p; p = p->next)
        bprintf(b, "judged_infrastructure_failures_total{pool=\"%s\"} %lld\n", esc(p->name, pool, sizeof pool),
                p->infra);
    head(b, "judged_problem_cache_refetch_total", "counter",
         "Problem versions this host fetched again because its cached copy differed from the manifest, by "
         "when that was found (restart: first use after a start; changed: a use saw its metadata change; "
         "rehash: the scheduled hash).");
    for (int r = 0; r < PCACHE_NREASONS; r++)
        bprintf(b, "judged_problem_cache_refetch_total{reason=\"%s\"} %lld\n", pcache_reason_name((enum pcache_reason)r),
                m->refetch[r]);
    head(b, "judged_compile_seconds", "histogram",
         "Compiler CPU time per job (0 when the compile cache answered), by pool and language.");
    for (struct metrics_pool *p = m->pools; p; p = p->next)
        for (struct metrics_lang *l = p->langs; l; l = l->next)
            if (l->compile.count)
                histogram(b, "judged_compile_seconds", esc(p->name, pool, sizeof pool),
                          esc(l->name, lang, sizeof lang), &l->compile);
    head(b, "judged_run_seconds", "histogram",
         "Wall time of a job's test runs, summed over its tests, by pool and language.");
    for (struct metrics_pool *p = m->pools; p; p = p->next)
        for (struct metrics_lang *l = p->langs; l; l = l->next)
            if (l->run.count)
                histogram(b, "judged_run_seconds", esc(p->name, pool, sizeof pool),
                          esc(l->name, lang, sizeof lang), &l->run);
    pthread_mutex_unlock(&m->mu);
}

/* The gauges, from the live pools (a pool a reload removed is stopped). */
static void render_gauges(struct metrics *m, struct buf *b)
{
    char pool[160], host[600];
    struct buf busy = {0};
    head(b, "judged_slots", "gauge", "Job slots of the pool on this host (configured).");
    pthread_mutex_lock(&judged.pools_mu);
    for (struct pool *p = judged.pools; p; p = p->next) {
        if (atomic_load(&p->stop))
            continue;
        pthread_mutex_lock(&p->mu);
        int slots = p->slots, running = p->running;
        pthread_mutex_unlock(&p->mu);
        bprintf(b, "judged_slots{pool=\"%s\"} %d\n", esc(p->name, pool, sizeof pool), slots);
        bprintf(&busy, "judged_slots_busy{pool=\"%s\"} %d\n", pool, running);
    }
    pthread_mutex_unlock(&judged.pools_mu);
    head(b, "judged_slots_busy", "gauge", "Job slots of the pool judging a job now.");
    if (busy.len)
        bprintf(b, "%s", busy.s);
    b->oom |= busy.oom;
    free(busy.s);
    head(b, "judged_redis_up", "gauge", "1 if Redis answered this host's last heartbeat, else 0.");
    bprintf(b, "judged_redis_up %d\n", atomic_load(&m->redis_up));
    head(b, "judged_info", "gauge", "This judged: its host (consumer) name and version.");
    bprintf(b, "judged_info{host=\"%s\",version=\"%s\"} 1\n", esc(judged.host, host, sizeof host), JUDGED_VERSION);
}

/* ---------------------------------------------------------------- HTTP */

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *type, char *body,
                             size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
    if (!r) {
        if (mode == MHD_RESPMEM_MUST_FREE)
            free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size,
                                  void **con_cls)
{
    (void)version;
    (void)upload;
    struct metrics *m = cls;
    if (!*con_cls) {   /* first call: headers only; answer on the next */
        *con_cls = m;
        return MHD_YES;
    }
    if (*upload_size) {   /* a body is not for us: drop it */
        *upload_size = 0;
        return MHD_YES;
    }
    static const char text[] = "text/plain; charset=utf-8";
    bool get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    bool known = !strcmp(url, "/metrics") || !strcmp(url, "/healthz");
    if (!known)
        return reply(conn, MHD_HTTP_NOT_FOUND, text, "not found\n", 10, MHD_RESPMEM_PERSISTENT);
    if (!get)
        return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, text, "GET only\n", 9, MHD_RESPMEM_PERSISTENT);
    if (!strcmp(url, "/healthz"))
        return reply(conn, MHD_HTTP_OK, text, "ok\n", 3, MHD_RESPMEM_PERSISTENT);
    struct buf b = {0};
    render_counters(m, &b);
    render_gauges(m, &b);
    if (b.oom) {
        free(b.s);
        return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, text, "out of memory\n", 14,
                     MHD_RESPMEM_PERSISTENT);
    }
    return reply(conn, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", b.s, b.len,
                 MHD_RESPMEM_MUST_FREE);
}

/* libmicrohttpd's own complaints go to judged's log, in its format */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = '\0';
    logwarn("metrics server: %s", msg);
}

/* The listening socket, bound here so that a refusal says why. */
static int listen_on(const struct jd_config *cfg, char *why, size_t whylen)
{
    struct addrinfo *ai;
    if (jd_listen_addr(cfg->metrics_listen, &ai, why, whylen))
        return -1;
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 16)) {
        snprintf(why, whylen, "cannot listen on %s: %s", cfg->metrics_listen, strerror(errno));
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    return fd;
}

int metrics_start(struct metrics *m, const struct jd_config *cfg, char *err, size_t errlen)
{
    if (!cfg->metrics_listen)
        return 0;
    char why[512];
    int fd = listen_on(cfg, why, sizeof why);
    if (fd >= 0) {
        /* one thread for every connection: a scrape every few seconds */
        m->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ERROR_LOG, 0, NULL,
                                NULL, on_request, m, MHD_OPTION_LISTEN_SOCKET, fd,
                                MHD_OPTION_CONNECTION_LIMIT, 16u, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
                                MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
        if (!m->d) {
            close(fd);
            snprintf(why, sizeof why, "cannot start the HTTP server on %s", cfg->metrics_listen);
        }
    }
    if (!m->d) {
        snprintf(err, errlen, "%s:%d: key 'metrics_listen': %s", cfg->path, cfg->metrics_listen_line, why);
        return -1;
    }
    m->on = true;
    const union MHD_DaemonInfo *i = MHD_get_daemon_info(m->d, MHD_DAEMON_INFO_BIND_PORT);
    logmsg("metrics: GET /metrics on %s (port %d)", cfg->metrics_listen, i ? (int)i->port : -1);
    return 0;
}

void metrics_stop(struct metrics *m)
{
    if (m->d)
        MHD_stop_daemon(m->d);   /* joins its thread: no scrape runs after this */
    m->d = NULL;
}
