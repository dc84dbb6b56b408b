/* heartbeat.c - the host's heartbeat thread: every `heartbeat` it renews
 * the lease of every entry the host holds (an entry another host took over
 * marks its job lost: the runner stops before the next test and nothing is
 * published), writes the pools' metrics counters (queue_stats), registers
 * the host (queue_host_register: its registration and a liveness key with
 * a TTL of 3 heartbeats), and every `lease`, when it is the one host whose
 * turn it is (queue_reaper_turn), it reaps the consumers of hosts whose
 * liveness key expired. A clean stop deregisters the host. Every Redis
 * command is the queue library's (queue.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"

/* Caller holds p->mu: drops queued (not started) jobs that were lost. */
static void drop_lost_queued(struct pool *p)
{
    for (struct job **pp = &p->qhead; *pp;) {
        struct job *j = *pp;
        if (atomic_load(&j->lost)) {
            *pp = j->next;
            pool_unhold(p, j);
            job_free(j);
        } else {
            pp = &j->next;
        }
    }
    p->qtail = NULL;
    for (struct job *j = p->qhead; j; j = j->next)
        p->qtail = j;
}

static void renew(struct queue_conn *k, struct pool *p)
{
    pthread_mutex_lock(&p->mu);
    int n = p->nheld;
    if (n == 0) {
        pthread_mutex_unlock(&p->mu);
        return;
    }
    struct queue_ref *refs = calloc((size_t)n, sizeof *refs);
    char(*ids)[64] = calloc((size_t)n, sizeof *ids);
    int i = 0;
    for (struct job *j = p->held; j && i < n; j = j->hnext, i++) {
        snprintf(ids[i], sizeof ids[i], "%s", j->q.entry);
        refs[i] = (struct queue_ref){j->q.queue, ids[i]};
    }
    pthread_mutex_unlock(&p->mu);
    struct queue_renew_reply r;
    char err[512];
    enum queue_rc rc = queue_renew(k, p->name, judged.host, refs, i, &r, err, sizeof err);
    if (rc == QUEUE_OK && r.nlost > 0) {
        pthread_mutex_lock(&p->mu);
        for (int e = 0; e < r.nlost; e++)
            for (struct job *j = p->held; j; j = j->hnext)
                if (!strcmp(j->q.entry, r.lost[e]) && !atomic_load(&j->lost)) {
                    atomic_store(&j->lost, true);
                    logmsg("job %s: lease lost to another host; abandoning it", j->q.id);
                }
        drop_lost_queued(p);
        pthread_mutex_unlock(&p->mu);
    } else if (rc == QUEUE_ERROR) {
        logmsg("pool %s: %s", p->name, err);
    }
    if (rc == QUEUE_OK)
        queue_renew_reply_free(&r);
    free(refs);
    free(ids);
}

/* Writes the pool's metrics counters (published verdicts, queue wait and
 * judging histograms) to the pool's statistics: once per heartbeat, not once per
 * job. What Redis did not take is kept for the next heartbeat; a host
 * killed with SIGKILL loses at most one heartbeat's counts. */
static void flush_stats(struct queue_conn *k, struct pool *p)
{
    pthread_mutex_lock(&p->mu);
    struct queue_stats s = p->stats;
    memset(&p->stats, 0, sizeof p->stats);
    pthread_mutex_unlock(&p->mu);
    char err[512];
    enum queue_rc rc = queue_stats_flush(k, p->name, &s, err, sizeof err);
    if (rc == QUEUE_OK)
        return;
    if (rc == QUEUE_ERROR)
        logmsg("pool %s: metrics: %s", p->name, err);
    pthread_mutex_lock(&p->mu);
    queue_stats_merge(&p->stats, &s);
    pthread_mutex_unlock(&p->mu);
}

/* The pool's history sample of this 10 s bucket, after this host's
 * counters went in; a bucket another host sampled costs one XREVRANGE. */
static void sample_history(struct queue_conn *k, struct pool *p)
{
    char err[512];
    if (queue_history_sample(k, p->name, err, sizeof err) == QUEUE_ERROR)
        logmsg("pool %s: history: %s", p->name, err);
}

static void register_host(struct queue_conn *k, const struct jd_config *cfg)
{
    json_t *o = json_object();
    json_t *pl = json_array();
    int busy = 0, slots = 0;
    json_object_set_new(o, "host", json_string(judged.host));
    json_object_set_new(o, "pid", json_integer(getpid()));
    pthread_mutex_lock(&judged.pools_mu);
    for (struct pool *p = judged.pools; p; p = p->next) {
        if (atomic_load(&p->stop))
            continue;
        pthread_mutex_lock(&p->mu);
        json_t *po = json_object();
        json_object_set_new(po, "name", json_string(p->name));
        json_object_set_new(po, "slots", json_integer(p->slots));
        json_object_set_new(po, "first_slot", json_integer(p->first_slot));
        json_object_set_new(po, "busy", json_integer(p->running));
        json_array_append_new(pl, po);
        busy += p->running;
        slots += p->slots;
        pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_unlock(&judged.pools_mu);
    json_object_set_new(o, "pools", pl);
    json_object_set_new(o, "busy", json_integer(busy));
    json_object_set_new(o, "slots", json_integer(slots));
    int cpus[JD_MAX_CPUS];
    json_object_set_new(o, "cpus", json_integer(jd_config_cpus(cfg, cpus, JD_MAX_CPUS)));
    json_object_set_new(o, "version", json_string(JUDGED_VERSION));
    json_object_set_new(o, "state", json_string(atomic_load(&judged.stopping) ? "stopping" : "running"));
    json_object_set_new(o, "warming", json_integer(atomic_load(&judged.warming)));   /* warm.c */
    json_object_set_new(o, "time", json_integer(jd_now_ms()));
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    char err[512];
    queue_host_register(k, judged.host, s, cfg->heartbeat_ms * 3, err, sizeof err);   /* next beat retries */
    free(s);
}

/* Whether this host reaps in this lease period: the first host to take
 * the reaper's key (NX, expiring after a lease) does, the others skip. Every
 * host reading every other host's liveness key each lease would cost
 * hosts^2 round trips per lease (bench_fleet, 50 hosts: ~830 EXISTS/s). A
 * reaper that dies just lets its key expire: another host reaps a lease
 * later. */
static bool reaper_turn(struct queue_conn *k, const struct jd_config *cfg)
{
    bool mine = false;
    char err[512];
    queue_reaper_turn(k, judged.host, cfg->lease_ms, &mine, err, sizeof err);
    return mine;
}

/* Consumers of hosts whose heartbeat key expired are removed, but only
 * when nothing is pending for them (their entries get reclaimed first). */
static void reap_dead(struct queue_conn *k)
{
    char **dead, err[512];
    size_t n;
    if (queue_hosts_dead(k, judged.host, &dead, &n, err, sizeof err))
        return;
    for (size_t i = 0; i < n; i++) {
        bool all = true;
        pthread_mutex_lock(&judged.pools_mu);
        for (struct pool *p = judged.pools; p; p = p->next) {
            bool gone = false;
            if (queue_reap(k, p->name, dead[i], &gone, err, sizeof err) || !gone)
                all = false;
        }
        pthread_mutex_unlock(&judged.pools_mu);
        if (all) {
            logmsg("forgot dead host %s (no entries pending for it)", dead[i]);
            queue_host_forget(k, dead[i], err, sizeof err);
        }
    }
    queue_names_free(dead, n);
}

/* A clean stop: the host leaves the registry at once (`judgectl hosts`
 * would call it dead until another host reaps it), unless entries are
 * still pending for it (a give-back that did not reach Redis): then it
 * stays listed, and the reaper takes over as for a crashed host. */
static void deregister(struct queue_conn *k)
{
    bool all = true;
    pthread_mutex_lock(&judged.pools_mu);
    for (struct pool *p = judged.pools; p; p = p->next) {
        bool gone = false;
        char err[512];
        if (queue_reap(k, p->name, judged.host, &gone, err, sizeof err) || !gone)
            all = false;
    }
    pthread_mutex_unlock(&judged.pools_mu);
    if (!all) {
        logmsg("entries are still pending for this host: it stays registered until reaped");
        return;
    }
    char err[512];
    queue_host_forget(k, judged.host, err, sizeof err);
}

void *heartbeat(void *arg)
{
    (void)arg;
    struct snapshot *s = snapshot_get();
    struct queue_conn k;
    queue_conn_init(&k, judged.redis_url, s->cfg.heartbeat_ms + 2000);
    int64_t next_reap = jd_now_ms() + s->cfg.lease_ms;
    snapshot_put(s);
    while (!atomic_load(&judged.hb_stop)) {
        s = snapshot_get();
        int64_t t0 = jd_now_ms();
        bool up = queue_conn_ensure(&k) == 0;
        if (up) {
            pthread_mutex_lock(&judged.pools_mu);
            for (struct pool *p = judged.pools; p; p = p->next) {
                renew(&k, p);
                flush_stats(&k, p);
                sample_history(&k, p);
            }
            pthread_mutex_unlock(&judged.pools_mu);
            register_host(&k, &s->cfg);
            if (jd_now_ms() >= next_reap) {
                if (reaper_turn(&k, &s->cfg))
                    reap_dead(&k);
                next_reap = jd_now_ms() + s->cfg.lease_ms;
            }
            up = k.c != NULL;   /* an I/O error or timeout in the round dropped it */
        }
        metrics_redis(&judged.metrics, up);
        long wait = s->cfg.heartbeat_ms - (long)(jd_now_ms() - t0);
        snapshot_put(s);
        for (long w = 0; w < wait && !atomic_load(&judged.hb_stop); w += 20)
            jd_sleep_ms(wait - w < 20 ? wait - w : 20);
    }
    /* the workers are done (pools_shutdown came first): their last counts */
    pthread_mutex_lock(&judged.pools_mu);
    for (struct pool *p = judged.pools; p; p = p->next)
        flush_stats(&k, p);
    pthread_mutex_unlock(&judged.pools_mu);
    char err[512];
    queue_host_expire(&k, judged.host, err, sizeof err);
    deregister(&k);
    queue_conn_close(&k);
    return NULL;
}
