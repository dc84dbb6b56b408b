/* admin.c - what an operator sees and does: pools (and drain, pause,
 * resume), hosts, the dead-letter queues, languages, Prometheus metrics and
 * the dashboard's files. Reads Redis with plain commands (the key layout of
 * judged/DESIGN.md); writes go through the queue library. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api.h"
#include "common.h"

/* {name: {registration..., alive}}: queue_hosts as JSON; NULL when Redis
 * could not be read (an outage must not read as "no host"). */
static json_t *load_hosts(struct queue_conn *k)
{
    struct queue_hosts hs;
    char err[512];
    if (queue_hosts(k, &hs, err, sizeof err) != QUEUE_OK)
        return NULL;
    json_t *hosts = queue_hosts_json(&hs);
    queue_hosts_free(&hs);
    return hosts;
}

struct pool_stats {
    char state[16];
    long long waiting[2], lag[2], running, delayed, dlq, slots, busy, oldest_ms, expected_wait_ms;
    double verdicts_per_min;
    int live_hosts;
    char node[300];          /* redis-cluster://: the pool's primary; else "" */
};

/* The pool's counts and state from the queue library (the same as
 * judgectl pools and health), its slots from the live hosts; -1 when Redis
 * could not be read: then there are no figures, never zeros. */
static int pool_stats(struct queue_conn *k, const struct jd_pool_cfg *pc, json_t *hosts,
                      struct pool_stats *s)
{
    memset(s, 0, sizeof *s);
    struct queue_pool_status q;
    char err[512];
    if (!hosts || queue_pool_status(k, pc->name, &q, err, sizeof err) != QUEUE_OK)
        return -1;
    snprintf(s->state, sizeof s->state, "%s", q.state);
    s->waiting[0] = q.waiting[0];
    s->waiting[1] = q.waiting[1];
    s->lag[0] = q.lag[0];
    s->lag[1] = q.lag[1];
    s->running = q.running;
    s->delayed = q.delayed;
    s->dlq = q.dlq;
    s->oldest_ms = q.oldest_ms;
    s->expected_wait_ms = q.expected_wait_ms;
    s->verdicts_per_min = q.verdicts_per_min;
    snprintf(s->node, sizeof s->node, "%s", q.node);
    s->live_hosts = queue_hosts_capacity(hosts, pc->name, &s->slots, &s->busy);
    return 0;
}

/* Every pool's figures (npools of them, caller frees), or NULL when Redis
 * could not be read; with hosts_out, the hosts read for them too (the
 * caller's, NULL with the figures). */
static struct pool_stats *all_pool_stats(const struct jd_config *cfg, struct queue_conn *k, json_t **hosts_out)
{
    json_t *hosts = load_hosts(k);
    struct pool_stats *ps = hosts ? calloc((size_t)cfg->npools + 1, sizeof *ps) : NULL;
    for (int i = 0; ps && i < cfg->npools; i++)
        if (pool_stats(k, &cfg->pools[i], hosts, &ps[i])) {
            free(ps);
            ps = NULL;
        }
    if (hosts_out && ps)
        *hosts_out = hosts;
    else
        json_decref(hosts);
    return ps;
}

bool api_pools_unserved(struct api *a, const struct jd_config *cfg, char *pool, size_t len)
{
    struct queue_conn *k = api_conn_get(a);
    struct pool_stats *ps = all_pool_stats(cfg, k, NULL);
    api_conn_put(a, k);
    bool found = false;
    for (int i = 0; ps && i < cfg->npools && !found; i++)
        if (ps[i].waiting[0] + ps[i].waiting[1] > 0 && ps[i].live_hosts == 0) {
            snprintf(pool, len, "%s", cfg->pools[i].name);
            found = true;
        }
    free(ps);
    return found;
}

enum MHD_Result api_pools(struct req *r)
{
    struct api *a = r->api;
    const struct jd_config *cfg = r->cfg;
    struct queue_conn *k = api_conn_get(a);
    struct pool_stats *ps = all_pool_stats(cfg, k, NULL);
    api_conn_put(a, k);
    if (!ps)   /* an outage is not a quiet queue */
        return api_error_retry(r, 503, 1, "the queue (Redis) cannot be read");
    json_t *list = json_array();
    for (int i = 0; i < cfg->npools; i++) {
        const struct jd_pool_cfg *pc = &cfg->pools[i];
        struct pool_stats s = ps[i];
        json_t *langs = json_array();
        for (int j = 0; j < pc->nlanguages; j++)
            json_array_append_new(langs, json_string(pc->languages[j]));
        json_t *o = json_pack("{s:s, s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i}", "name",
                              pc->name, "state", s.state, "languages", langs, "depth",
                              (json_int_t)(s.waiting[0] + s.waiting[1] + s.delayed), "depth_contest",
                              (json_int_t)s.waiting[0], "depth_normal", (json_int_t)s.waiting[1],
                              "running", (json_int_t)s.running, "delayed", (json_int_t)s.delayed,
                              "dlq", (json_int_t)s.dlq, "slots", (json_int_t)s.slots,
                              "oldest_ms", (json_int_t)s.oldest_ms, "hosts", s.live_hosts);
        json_object_set_new(o, "max_queue", pc->max_queue ? json_integer(pc->max_queue) : json_null());
        /* "about depth submissions ahead of yours, about this long": the
         * recent pace; null when the pool judged nothing lately */
        json_object_set_new(o, "verdicts_per_min",
                            s.verdicts_per_min >= 0 ? json_real(s.verdicts_per_min) : json_null());
        json_object_set_new(o, "expected_wait_ms",
                            s.expected_wait_ms >= 0 ? json_integer(s.expected_wait_ms) : json_null());
        /* the lag KEDA reads, both queues; null where Redis cannot tell it */
        json_object_set_new(o, "lag", s.lag[0] >= 0 && s.lag[1] >= 0 ? json_integer(s.lag[0] + s.lag[1])
                                                                     : json_null());
        json_array_append_new(list, o);
    }
    free(ps);
    return api_json(r, 200, json_pack("{s:o}", "pools", list));
}

enum MHD_Result api_pool_action(struct req *r, const char *pool, const char *action)
{
    struct api *a = r->api;
    const struct jd_config *cfg = r->cfg;
    if (!jd_pool_by_name(cfg, pool))
        return api_error(r, 404, NULL, "no pool '%.100s'", pool);
    const char *state = !strcmp(action, "drain")    ? "draining"
                        : !strcmp(action, "pause")  ? "paused"
                        : !strcmp(action, "resume") ? "active"
                                                    : NULL;
    if (!state)
        return api_error(r, 404, NULL, "no action '%.100s' (drain, pause, resume)", action);
    char err[512];
    struct queue_conn *k = api_conn_get(a);
    enum queue_rc rc = queue_set_state(k, pool, state, err, sizeof err);
    api_conn_put(a, k);
    if (rc == QUEUE_IO)
        return api_error_retry(r, 503, 1, "the queue is unavailable: %s", err);
    if (rc)
        return api_error(r, 500, NULL, "%s", err);
    return api_json(r, 200, json_pack("{s:s, s:s}", "pool", pool, "state", state));
}

enum MHD_Result api_hosts(struct req *r)
{
    struct queue_conn *k = api_conn_get(r->api);
    json_t *hosts = load_hosts(k), *list = json_array();
    api_conn_put(r->api, k);
    if (!hosts) {
        json_decref(list);
        return api_error_retry(r, 503, 1, "the queue (Redis) cannot be read");
    }
    const char *n;
    json_t *h;
    json_object_foreach(hosts, n, h)
    {
        json_object_set_new(h, "name", json_string(n));
        json_array_append(list, h);
    }
    json_decref(hosts);
    return api_json(r, 200, json_pack("{s:o}", "hosts", list));
}

/* --------------------------------------------------------------- history */

/* GET /v1/pools/NAME/history?since=MS: the pool's 10 s samples (queue
 * history.c) from since on, the last hour when not given; the last 24 h
 * are kept. */
enum MHD_Result api_pool_history(struct req *r, const char *pool)
{
    if (!jd_pool_by_name(r->cfg, pool))
        return api_error(r, 404, NULL, "no pool '%.100s'", pool);
    const char *since = api_arg(r, "since");
    char *end = NULL;
    long long from = since ? strtoll(since, &end, 10) : 0;
    if (since && (!*since || *end || from < 0))
        return api_error(r, 400, "since", "since must be a time in ms since the epoch");
    struct queue_conn *k = api_conn_get(r->api);
    json_t *buckets = NULL;
    char err[512];
    if (!since) {
        long long now = queue_redis_now(k);
        from = now > API_HISTORY_DEFAULT_MS ? now - API_HISTORY_DEFAULT_MS : 0;
    }
    enum queue_rc rc = queue_history(k, pool, from, &buckets, err, sizeof err);
    api_conn_put(r->api, k);
    if (rc)
        return api_error_retry(r, 503, 1, "the queue (Redis) cannot be read: %s", err);
    return api_json(r, 200, json_pack("{s:s, s:I, s:o}", "pool", pool, "bucket_ms",
                                      (json_int_t)QUEUE_HISTORY_BUCKET_MS, "buckets", buckets));
}

/* ------------------------------------------------------------------- dlq */

static json_t *entry_json(const char *pool, const struct queue_fields *e)
{
    char id[160];
    snprintf(id, sizeof id, "%s:%s", pool, e->entry);
    json_t *o = json_pack("{s:s, s:s, s:s}", "dlq_id", id, "pool", pool, "entry", e->entry);
    for (size_t i = 0; i < e->n; i++) {
        const char *n = e->kv[2 * i], *v = e->kv[2 * i + 1];
        if (!strcmp(n, "entry") || !strcmp(n, "fields"))
            continue;
        if (!strcmp(n, "attempts") || !strcmp(n, "time"))
            json_object_set_new(o, n, json_integer(atoll(v)));
        else if (!strcmp(n, "history")) {
            json_t *hv = json_loads(v, 0, NULL);
            json_object_set_new(o, n, hv ? hv : json_string(v));
        }
        else
            json_object_set_new(o, n, json_string(v));
    }
    return o;
}

enum MHD_Result api_dlq(struct req *r)
{
    struct api *a = r->api;
    const struct jd_config *cfg = r->cfg;
    struct queue_conn *k = api_conn_get(a);
    json_t *list = json_array();
    for (int i = 0; i < cfg->npools; i++) {
        struct queue_entries es;
        char err[512];
        if (queue_dlq_list(k, cfg->pools[i].name, 1000, &es, err, sizeof err))
            continue;   /* a pool Redis did not answer for lists nothing */
        for (size_t e = 0; e < es.n; e++)
            json_array_append_new(list, entry_json(cfg->pools[i].name, &es.e[e]));
        queue_entries_free(&es);
    }
    api_conn_put(a, k);
    return api_json(r, 200, json_pack("{s:o}", "dead_letters", list));
}

/* ID is "POOL:ENTRY" (dlq_id in the list). */
enum MHD_Result api_dlq_action(struct req *r, const char *dlq_id, const char *action)
{
    struct api *a = r->api;
    const struct jd_config *cfg = r->cfg;
    char pool[80], entry[64];
    const char *colon = strchr(dlq_id, ':');
    if (!colon || colon - dlq_id >= (long)sizeof pool || strlen(colon + 1) >= sizeof entry)
        return api_error(r, 404, NULL, "no dead letter '%.100s' (expected POOL:ENTRY)", dlq_id);
    snprintf(pool, sizeof pool, "%.*s", (int)(colon - dlq_id), dlq_id);
    snprintf(entry, sizeof entry, "%s", colon + 1);
    if (!jd_pool_by_name(cfg, pool))
        return api_error(r, 404, NULL, "no pool '%.100s'", pool);
    if (strcmp(action, "requeue") && strcmp(action, "drop"))
        return api_error(r, 404, NULL, "no action '%.100s' (requeue, drop)", action);
    struct queue_conn *k = api_conn_get(a);
    char err[512], id[200] = "";
    struct queue_fields e;
    bool exists = false;
    queue_dlq_entry(k, pool, entry, &e, &exists, err, sizeof err);   /* unanswered: 404 as before */
    queue_fields_free(&e);
    enum queue_rc rc = QUEUE_OK;
    if (exists && !strcmp(action, "requeue"))
        rc = queue_requeue(k, pool, entry, id, sizeof id, err, sizeof err);
    if (exists && !strcmp(action, "drop"))
        rc = queue_dlq_drop(k, pool, entry, err, sizeof err);
    api_conn_put(a, k);
    if (!exists)
        return api_error(r, 404, NULL, "no dead letter '%.100s'", dlq_id);
    if (rc == QUEUE_IO)
        return api_error_retry(r, 503, 1, "the queue is unavailable: %s", err);
    if (rc)
        return api_error(r, 500, NULL, "%s", err);
    if (!strcmp(action, "drop"))
        return api_json(r, 200, json_pack("{s:s}", "dropped", dlq_id));
    return api_json(r, 200, json_pack("{s:s, s:s}", "requeued", dlq_id, "id", id));
}

/* ------------------------------------------------------------- languages */

/* The languages a pool serves whose file LANGUAGES/ID.yaml exists (a
 * language's id is its file name), with what the pool's hosts published of
 * each (name, source, extensions, limits: judge-api reads no language
 * file); only id and pool while no host has published it. */
enum MHD_Result api_languages(struct req *r)
{
    const struct jd_config *cfg = r->cfg;
    json_t *list = json_array();
    struct queue_conn *k = api_conn_get(r->api);
    for (int i = 0; i < cfg->npools; i++) {
        json_t *published = NULL;
        char err[512];
        if (queue_languages(k, cfg->pools[i].name, &published, err, sizeof err) == QUEUE_IO) {
            json_decref(published);
            json_decref(list);
            api_conn_put(r->api, k);
            return api_error_retry(r, 503, 1, "the queue is unavailable: %s", err);
        }
        for (int j = 0; j < cfg->pools[i].nlanguages; j++) {
            const char *id = cfg->pools[i].languages[j];
            char path[4400];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s.yaml", cfg->languages, id);
            if (stat(path, &st) || !S_ISREG(st.st_mode))
                continue;
            json_t *o = json_pack("{s:s, s:s}", "id", id, "pool", cfg->pools[i].name);
            json_object_update(o, json_object_get(published, id));
            json_array_append_new(list, o);
        }
        json_decref(published);
    }
    api_conn_put(r->api, k);
    return api_json(r, 200, json_pack("{s:o}", "languages", list));
}

/* --------------------------------------------------------------- metrics */

struct buf {
    char *s;
    size_t len, cap;
};

static void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bprintf(struct buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (size_t)n + 256;
        b->s = realloc(b->s, b->cap);
    }
}

static const char *const BUCKETS[] = {"10", "25", "50", "100", "250", "500", "1000", "2500",
                                      "5000", "10000", "30000", "60000", "+Inf"};

/* A histogram from the pool's counters (queue_stats_read) (non-cumulative buckets in ms, as the
 * judged.lua functions count them) in Prometheus' cumulative seconds. */
static void histogram(struct buf *b, const char *metric, const char *pool, json_t *stats,
                      const char *name)
{
    long long cum = 0;
    char f[64];
    for (size_t i = 0; i < sizeof BUCKETS / sizeof *BUCKETS; i++) {
        snprintf(f, sizeof f, "%s:le:%s", name, BUCKETS[i]);
        cum += atoll(json_string_value(json_object_get(stats, f)) ?: "0");
        if (!strcmp(BUCKETS[i], "+Inf"))
            bprintf(b, "%s_bucket{pool=\"%s\",le=\"+Inf\"} %lld\n", metric, pool, cum);
        else
            bprintf(b, "%s_bucket{pool=\"%s\",le=\"%g\"} %lld\n", metric, pool, atof(BUCKETS[i]) / 1000,
                    cum);
    }
    snprintf(f, sizeof f, "%s:sum", name);
    bprintf(b, "%s_sum{pool=\"%s\"} %g\n", metric, pool,
            atof(json_string_value(json_object_get(stats, f)) ?: "0") / 1000);
    /* the count is the +Inf bucket: judged.lua keeps no ':count' field */
    bprintf(b, "%s_count{pool=\"%s\"} %lld\n", metric, pool, cum);
}

/* The pool's counters as a JSON object of strings ({} when unanswered). */
static json_t *stats_json(struct queue_conn *k, const char *pool)
{
    json_t *o = json_object();
    struct queue_fields f;
    char err[512];
    if (queue_stats_read(k, pool, &f, err, sizeof err))
        return o;
    for (size_t i = 0; i < f.n; i++)
        json_object_set_new(o, f.kv[2 * i], json_string(f.kv[2 * i + 1]));
    queue_fields_free(&f);
    return o;
}

/* The queue's gauges by pool, and the live hosts: none of them when Redis
 * cannot be read (judged_redis_up 0), so that an outage never reads as an
 * empty queue (an autoscaler would scale the judges down). -1 then. */
static int metrics_queues(const struct jd_config *cfg, struct queue_conn *k, struct buf *b)
{
    json_t *hosts = NULL;
    struct pool_stats *ps = all_pool_stats(cfg, k, &hosts);
    bprintf(b, "# HELP judged_redis_up Whether judge-api could read the queue (Redis) for this scrape.\n"
               "# TYPE judged_redis_up gauge\njudged_redis_up %d\n", ps ? 1 : 0);
    if (!ps)
        return -1;
    int live = 0;
    const char *hn;
    json_t *h;
    json_object_foreach(hosts, hn, h) live += json_is_true(json_object_get(h, "alive"));
    bprintf(b, "# HELP judged_queue_depth Submissions waiting (not yet claimed), by pool and priority.\n"
               "# TYPE judged_queue_depth gauge\n");
    for (int i = 0; i < cfg->npools; i++) {
        bprintf(b, "judged_queue_depth{pool=\"%s\",priority=\"contest\"} %lld\n", cfg->pools[i].name, ps[i].waiting[0]);
        bprintf(b, "judged_queue_depth{pool=\"%s\",priority=\"normal\"} %lld\n", cfg->pools[i].name, ps[i].waiting[1]);
        bprintf(b, "judged_queue_depth{pool=\"%s\",priority=\"retry\"} %lld\n", cfg->pools[i].name, ps[i].delayed);
    }
    /* what KEDA's redis-streams scaler reads (XINFO GROUPS lag); no series
     * where Redis cannot tell it, never a guess */
    bprintf(b, "# HELP judged_queue_lag The consumer group's lag (entries no host has read), by pool and priority.\n"
               "# TYPE judged_queue_lag gauge\n");
    for (int i = 0; i < cfg->npools; i++)
        for (int q = 0; q < 2; q++)
            if (ps[i].lag[q] >= 0)
                bprintf(b, "judged_queue_lag{pool=\"%s\",priority=\"%s\"} %lld\n", cfg->pools[i].name,
                        q == QUEUE_CONTEST ? "contest" : "normal", ps[i].lag[q]);
    const struct {
        const char *name, *help;
        int which;
    } gauges[] = {
        {"judged_queue_oldest_seconds", "Age of the oldest submission not yet claimed.", 0},
        {"judged_running", "Submissions being judged.", 1},
        {"judged_free_slots", "Free slots of the pool's live hosts.", 2},
        {"judged_slots", "Slots of the pool's live hosts.", 4},
        {"judged_dlq_size", "Dead letters of the pool.", 3},
    };
    for (size_t g = 0; g < sizeof gauges / sizeof *gauges; g++) {
        bprintf(b, "# HELP %s %s\n# TYPE %s gauge\n", gauges[g].name, gauges[g].help, gauges[g].name);
        for (int i = 0; i < cfg->npools; i++) {
            const char *p = cfg->pools[i].name;
            if (gauges[g].which == 0)
                bprintf(b, "%s{pool=\"%s\"} %g\n", gauges[g].name, p, ps[i].oldest_ms / 1000.0);
            else
                bprintf(b, "%s{pool=\"%s\"} %lld\n", gauges[g].name, p,
                        gauges[g].which == 1   ? ps[i].running
                        : gauges[g].which == 2 ? (ps[i].slots - ps[i].busy > 0 ? ps[i].slots - ps[i].busy : 0)
                        : gauges[g].which == 4 ? ps[i].slots
                                               : ps[i].dlq);
        }
    }
    /* what /v1/pools says a submission admitted now waits; no series
     * while the pool has judged nothing lately (unknown, never a guess) */
    bprintf(b, "# HELP judged_queue_expected_wait_seconds The backlog at the pace of the pool's recent "
               "verdicts.\n# TYPE judged_queue_expected_wait_seconds gauge\n");
    for (int i = 0; i < cfg->npools; i++)
        if (ps[i].expected_wait_ms >= 0)
            bprintf(b, "judged_queue_expected_wait_seconds{pool=\"%s\"} %g\n", cfg->pools[i].name,
                    ps[i].expected_wait_ms / 1000.0);
    /* under redis-cluster:// the primary that holds each pool (an info
     * metric: 1, the node in a label); none on one Redis */
    bool clustered = false;
    for (int i = 0; i < cfg->npools; i++)
        clustered |= ps[i].node[0] != 0;
    if (clustered)
        bprintf(b, "# HELP judged_pool_node The Redis Cluster primary that holds the pool's slot.\n"
                   "# TYPE judged_pool_node gauge\n");
    for (int i = 0; i < cfg->npools; i++)
        if (ps[i].node[0])
            bprintf(b, "judged_pool_node{pool=\"%s\",node=\"%s\"} 1\n", cfg->pools[i].name, ps[i].node);
    bprintf(b, "# HELP judged_live_hosts Hosts whose liveness key exists.\n# TYPE judged_live_hosts gauge\n"
               "judged_live_hosts %d\n", live);
    static const char *const states[] = {"active", "draining", "drained", "held", "paused"};
    bprintf(b, "# HELP judged_pool_state The pool's admin state (1 for the current one).\n"
               "# TYPE judged_pool_state gauge\n");
    for (int i = 0; i < cfg->npools; i++)
        for (size_t s = 0; s < sizeof states / sizeof *states; s++)
            bprintf(b, "judged_pool_state{pool=\"%s\",state=\"%s\"} %d\n", cfg->pools[i].name, states[s],
                    !strcmp(ps[i].state, states[s]));
    free(ps);
    json_decref(hosts);
    return 0;
}

/* This judge-api process's own counters. */
static void metrics_process(struct api *a, struct buf *b)
{
    static const char *const outcomes[] = {"accepted", "duplicate", "busy", "rejected", "not_durable"};
    bprintf(b, "# HELP judged_api_admissions_total Admissions by this judge-api process, by outcome.\n"
               "# TYPE judged_api_admissions_total counter\n");
    for (int i = 0; i < ADMIT_NOUTCOMES; i++)
        bprintf(b, "judged_api_admissions_total{outcome=\"%s\"} %lu\n", outcomes[i],
                atomic_load(&a->admissions[i]));
    static const char *const wh[] = {"delivered", "failed", "dead", "refused"};
    bprintf(b, "# HELP judged_api_webhooks_total Webhook delivery attempts by this judge-api process, "
               "by outcome.\n# TYPE judged_api_webhooks_total counter\n");
    for (int i = 0; i < WEBHOOK_NOUTCOMES; i++)
        bprintf(b, "judged_api_webhooks_total{outcome=\"%s\"} %lu\n", wh[i], atomic_load(&a->webhooks[i]));
}

/* Verdicts and the two latency histograms, from each pool's counters. */
static void metrics_verdicts(const struct jd_config *cfg, struct queue_conn *k, struct buf *b)
{
    bprintf(b, "# HELP judged_verdicts_total Verdicts published, by pool and verdict.\n"
               "# TYPE judged_verdicts_total counter\n");
    json_t **stats = calloc((size_t)cfg->npools, sizeof *stats);
    for (int i = 0; i < cfg->npools; i++) {
        stats[i] = stats_json(k, cfg->pools[i].name);
        const char *f;
        json_t *v;
        json_object_foreach(stats[i], f, v) if (!strncmp(f, "verdict:", 8)) bprintf(
            b, "judged_verdicts_total{pool=\"%s\",verdict=\"%s\"} %s\n", cfg->pools[i].name, f + 8,
            json_string_value(v));
    }
    bprintf(b, "# HELP judged_queue_wait_seconds Time from admission to the start of judging.\n"
               "# TYPE judged_queue_wait_seconds histogram\n");
    for (int i = 0; i < cfg->npools; i++)
        histogram(b, "judged_queue_wait_seconds", cfg->pools[i].name, stats[i], "wait");
    bprintf(b, "# HELP judged_judging_seconds Time from the start of judging to the verdict.\n"
               "# TYPE judged_judging_seconds histogram\n");
    for (int i = 0; i < cfg->npools; i++) {
        histogram(b, "judged_judging_seconds", cfg->pools[i].name, stats[i], "judging");
        json_decref(stats[i]);
    }
    free(stats);
}

enum MHD_Result api_metrics(struct req *r)
{
    struct api *a = r->api;
    struct queue_conn *k = api_conn_get(a);
    struct buf b = {0};
    bool up = metrics_queues(r->cfg, k, &b) == 0;
    metrics_process(a, &b);
    if (up)
        metrics_verdicts(r->cfg, k, &b);
    api_conn_put(a, k);
    enum MHD_Result ret = api_text(r, 200, "text/plain; version=0.0.4", b.s, b.len);
    free(b.s);
    return ret;
}

/* ------------------------------------------------------------ dashboard */

enum MHD_Result api_static(struct req *r, const char *file)
{
    const char *dot = strrchr(file, '.');
    if (!queue_valid_name(file) || !dot)
        return api_error(r, 404, NULL, "no such file");
    const char *type = !strcmp(dot, ".html") ? "text/html; charset=utf-8"
                       : !strcmp(dot, ".js") ? "text/javascript"
                       : !strcmp(dot, ".css") ? "text/css"
                                              : "application/octet-stream";
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", r->cfg->api.dashboard, file);
    size_t len;
    bool more;
    char *s = common_read_file(path, 1 << 20, &len, &more);
    if (!s)
        return api_error(r, 404, NULL, "no such file");
    /* The dashboard runs with an admin token: nothing but its own files may
     * run, load or be connected to, and no other site may frame it. */
    enum MHD_Result ret =
        api_text_h(r, 200, type, s, len, "Content-Security-Policy",
                   "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                   "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
                   "Referrer-Policy", "no-referrer", "X-Frame-Options", "DENY", NULL);
    free(s);
    return ret;
}
