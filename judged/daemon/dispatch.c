/* dispatch.c - claiming: the pool's dispatcher thread, and the claim
 * policy a finishing worker follows.
 *
 * Each round of the dispatcher thread: promote retries whose backoff
 * expired; re-read this host's own pending entries after a restart;
 * reclaim entries idle longer than the lease while slots are free; claim
 * as many new entries as there are free slots; when there are none, block
 * (no claim) until an entry after the group's last-delivered ids appears.
 *
 * A loaded pool must cost one Redis round trip per job, and a hand-off of
 * every verdict to this thread and of every claimed job back would cost
 * two thread wake-ups per job (measured: ~45% of the throughput on a busy
 * 2-core host). So a worker that finishes a job sends its finish and, when
 * dispatch_refill_claim says so, a claim of one entry for itself, in one
 * call (judged_finish_claim): the claim is the same judged_claim body the
 * dispatcher uses, and the policy (only when nothing waits in the run
 * queue, the pool is active here and the slot is certain) lives here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon.h"

struct disp {
    struct pool *p;
    struct queue_conn k;
    struct snapshot *s;      /* this round's configuration */
    int hq;                  /* queue whose history is being re-read; 2 = done */
    char hist[2][64];
    char laststate[16];
    bool down, groups_ok;
};

static void log_state(struct disp *d, const char *state)
{
    if (strcmp(state, d->laststate)) {
        logmsg("pool %s: now %s", d->p->name, state);
        snprintf(d->laststate, sizeof d->laststate, "%s", state);
    }
}

/* Claimed or reclaimed jobs join the held set and the run queue. */
static int take(struct disp *d, struct queue_job *jobs, int n)
{
    return pool_enqueue(d->p, jobs, n, NULL);
}

bool dispatch_refill_claim(struct pool *p, struct queue_claim_args *a)
{
    pthread_mutex_lock(&p->mu);
    /* nheld counts the finishing job: its slot is the one the claim fills */
    bool more = !p->qhead && !p->hold && p->nheld <= p->slots && !atomic_load(&p->stop) &&
                !atomic_load(&judged.stopping);
    pthread_mutex_unlock(&p->mu);
    *a = (struct queue_claim_args){.pool = p->name, .host = judged.host, .count = 1, .from = {">", ">"}};
    return more;
}

/* XAUTOCLAIM over both queues, never taking more than our free slots. */
static enum queue_rc reclaim(struct disp *d)
{
    struct pool *p = d->p;
    const struct jd_config *cfg = &d->s->cfg;
    for (int q = 0; q < 2; q++) {
        char cursor[64] = "0-0";
        for (int rounds = 0; rounds < 1000; rounds++) {
            int free = pool_free_slots(p);
            if (free <= 0 || atomic_load(&p->stop))
                return QUEUE_OK;
            /* first delivery + max_attempts takeovers + slack for give-backs */
            struct queue_reclaim_args a = {.pool = p->name, .host = judged.host, .queue = q,
                                           .min_idle_ms = cfg->lease_ms, .count = free,
                                           .cursor = cursor, .max_deliveries = cfg->max_attempts + 2};
            struct queue_reclaim_reply r;
            char err[512];
            enum queue_rc rc = queue_reclaim(&d->k, &a, &r, err, sizeof err);
            if (rc) {
                if (rc == QUEUE_ERROR)
                    logmsg("pool %s: %s", p->name, err);
                return rc;
            }
            int n = take(d, r.jobs, r.njobs);
            if (n > 0)
                logmsg("pool %s: reclaimed %d stale job(s)", p->name, n);
            snprintf(cursor, sizeof cursor, "%s", r.cursor);
            queue_reclaim_reply_free(&r);
            if (!strcmp(cursor, "0-0"))
                break;
        }
    }
    return QUEUE_OK;
}

/* A restarted host re-reads its own pending entries, one queue at a time,
 * from after the last one it saw. */
static enum queue_rc resume_history(struct disp *d, int free)
{
    struct queue_claim_args a = {.pool = d->p->name, .host = judged.host, .count = free, .from = {"", ""}};
    a.from[d->hq] = d->hist[d->hq];
    struct queue_claim_reply r;
    char err[512];
    enum queue_rc rc = queue_claim(&d->k, &a, &r, err, sizeof err);
    if (rc) {
        if (rc == QUEUE_ERROR)
            logmsg("pool %s: %s", d->p->name, err);
        return rc;
    }
    /* judgings our previous run lost: their checkpoints may let them resume */
    for (int i = 0; i < r.njobs; i++)
        r.jobs[i].reclaimed = true;
    int n = take(d, r.jobs, r.njobs);
    if (n > 0)
        logmsg("pool %s: resumed %d job(s) of a previous run", d->p->name, n);
    if (!strcmp(r.state, "paused"))
        jd_sleep_ms(200);
    else if (r.last[d->hq][0])
        snprintf(d->hist[d->hq], sizeof d->hist[d->hq], "%s", r.last[d->hq]);
    else
        d->hq++;
    queue_claim_reply_free(&r);
    return QUEUE_OK;
}

/* Claims up to `free` new entries; when there are none, blocks (without
 * claiming) until one appears. */
static enum queue_rc claim_or_wait(struct disp *d, int free)
{
    struct pool *p = d->p;
    struct queue_claim_args a = {.pool = p->name, .host = judged.host, .count = free, .from = {">", ">"}};
    struct queue_claim_reply r;
    char err[512];
    enum queue_rc rc = queue_claim(&d->k, &a, &r, err, sizeof err);
    if (rc) {
        if (rc == QUEUE_ERROR)
            logmsg("pool %s: %s", p->name, err);
        return rc;
    }
    log_state(d, r.state);
    int n = take(d, r.jobs, r.njobs);
    bool idle = n == 0 && r.njobs == 0;
    if (idle && strcmp(r.state, "active"))
        jd_sleep_ms(200);
    else if (idle && r.delivered[0][0] && r.delivered[1][0])
        rc = queue_wait_new(&d->k, p->name, r.delivered, 500);
    queue_claim_reply_free(&r);
    return rc;
}

/* No free slot: sleep until one frees. */
static void wait_for_slot(struct pool *p)
{
    pthread_mutex_lock(&p->mu);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 200 * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    if ((p->hold || p->slots - p->nheld <= 0) && !atomic_load(&p->stop))
        pthread_cond_timedwait(&p->cv_slot, &p->mu, &ts);
    pthread_mutex_unlock(&p->mu);
}

static enum queue_rc round_once(struct disp *d, int64_t *next_promote, int64_t *next_reclaim)
{
    struct pool *p = d->p;
    const struct jd_config *cfg = &d->s->cfg;
    int free = pool_free_slots(p);
    int64_t now = jd_now_ms();
    if (now >= *next_promote) {
        enum queue_rc rc = queue_promote(&d->k, p->name, 100, NULL);
        /* retry_backoff / 2 within [200 ms, 1 s]: a retry is due at the
         * earliest after half the backoff; every host asking 5 times a
         * second was most of an idle fleet's Redis traffic (bench_fleet) */
        long every = cfg->retry_backoff_ms / 2;
        *next_promote = now + (every < 200 ? 200 : every > 1000 ? 1000 : every);
        if (rc)
            return rc;
    }
    if (free > 0 && d->hq < 2)
        return resume_history(d, free);
    if (free > 0 && now >= *next_reclaim) {
        long every = cfg->lease_ms / 4 < 1000 ? cfg->lease_ms / 4 : 1000;
        *next_reclaim = now + (every < 100 ? 100 : every);
        enum queue_rc rc = reclaim(d);
        if (rc)
            return rc;
        free = pool_free_slots(p);
    }
    if (free <= 0) {
        wait_for_slot(p);
        return QUEUE_OK;
    }
    return claim_or_wait(d, free);
}

void *dispatcher(void *arg)
{
    struct disp d = {.p = arg, .hist = {"0", "0"}, .laststate = "active"};
    queue_conn_init(&d.k, judged.redis_url, 3000);
    int64_t next_promote = 0, next_reclaim = 0;
    char err[512];
    while (!atomic_load(&d.p->stop)) {
        d.s = snapshot_get();
        enum queue_rc rc = QUEUE_OK;
        if (!d.groups_ok) {
            rc = queue_ensure_groups(&d.k, d.p->name, err, sizeof err);
            if (rc == QUEUE_ERROR)
                logmsg("pool %s: %s", d.p->name, err);
            d.groups_ok = rc == QUEUE_OK;
        }
        if (rc == QUEUE_OK)
            rc = round_once(&d, &next_promote, &next_reclaim);
        snapshot_put(d.s);
        if (rc == QUEUE_IO) {
            if (!d.down)
                logmsg("pool %s: redis: %s; reconnecting with backoff", d.p->name, d.k.err);
            d.down = true;
            queue_conn_backoff(&d.k);
            continue;
        }
        if (d.down) {
            logmsg("pool %s: redis is back", d.p->name);
            d.down = false;
        }
        if (rc == QUEUE_NOGROUP) {
            logmsg("pool %s: consumer group missing; recreating it", d.p->name);
            d.groups_ok = false;
        } else if (rc == QUEUE_ERROR) {
            jd_sleep_ms(500);
        }
    }
    queue_conn_close(&d.k);
    return NULL;
}
