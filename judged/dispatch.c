/* dispatch.c - a pool's dispatcher thread: the only one that claims.
 *
 * Each round: publish the verdicts workers handed over and, in the same
 * pipelined round trip, claim as many new entries as that frees slots (a
 * loaded pool costs one round trip per job); promote retries whose backoff
 * expired; reclaim entries idle longer than the lease while slots are free;
 * when nothing is there, block (no claim) until an entry after the group's
 * last-delivered ids appears. A restarted host first re-reads its own
 * pending entries. While the dispatcher sits in that blocking read, workers
 * publish their verdicts themselves (disp_blocked), so a verdict never waits
 * for the read to time out. */
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
    return pool_enqueue(d->p, jobs, n);
}

/* Publishes the handed-over verdicts, claiming `claim` more entries in the
 * same round trip. Returns QUEUE_IO when Redis was unreachable (the done
 * jobs are kept for the next round). */
static enum queue_rc publish_and_claim(struct disp *d, struct job *done, int ndone, int claim)
{
    struct pool *p = d->p;
    struct queue_finish_args *fin = calloc((size_t)ndone + 1, sizeof *fin);
    struct queue_finish_reply *fr = calloc((size_t)ndone + 1, sizeof *fr);
    int i = 0;
    for (struct job *j = done; j; j = j->next, i++)
        fin[i] = (struct queue_finish_args){
            .pool = p->name, .host = jd.host, .queue = j->q.queue, .entry = j->q.entry,
            .id = j->q.id, .verdict = j->verdict, .score = j->score, .report = j->report,
            .results_max = j->snap->cfg.results_max};
    struct queue_claim_args ca = {.pool = p->name, .host = jd.host, .count = claim, .from = {">", ">"}};
    struct queue_claim_reply cr = {0};
    enum queue_rc crc = QUEUE_OK;
    char err[512];
    enum queue_rc rc = queue_finish_then_claim(&d->k, fin, ndone, fr, claim > 0 ? &ca : NULL, &cr, &crc,
                                               err, sizeof err);
    if (rc == QUEUE_OK) {
        i = 0;
        for (struct job *j = done, *next; j; j = next, i++) {
            next = j->next;
            if (fr[i].rc) {
                logmsg("job %s: finish: %s", j->q.id, fr[i].err);
                job_infra_failure(&d->k, j, "redis write failed while storing the verdict");
            } else if (fr[i].result == QUEUE_FINISH_LOST) {
                logmsg("job %s: lease lost before finishing; published nothing", j->q.id);
            }
            pthread_mutex_lock(&p->mu);
            pool_unhold(p, j);
            pthread_mutex_unlock(&p->mu);
            job_free(j);
        }
        if (claim > 0 && crc == QUEUE_OK) {
            log_state(d, cr.state);
            take(d, cr.jobs, cr.njobs);
            queue_claim_reply_free(&cr);
        } else if (claim > 0) {
            logmsg("pool %s: %s", p->name, err);
            if (crc == QUEUE_NOGROUP)
                d->groups_ok = false;
        }
    } else {
        /* nothing is known: keep them all for the next round (a finish that
         * did run answers 'already done' then) */
        pthread_mutex_lock(&p->mu);
        struct job *tail = done;
        while (tail->next)
            tail = tail->next;
        tail->next = p->done;
        p->done = done;
        p->ndone += ndone;
        pthread_mutex_unlock(&p->mu);
    }
    if (rc == QUEUE_ERROR)
        logmsg("pool %s: %s", p->name, err);
    free(fin);
    free(fr);
    return rc;
}

/* Takes the done list; *free_slots counts their slots as free. */
static struct job *take_done(struct pool *p, int *n, int *free_slots)
{
    pthread_mutex_lock(&p->mu);
    struct job *done = p->done;
    *n = p->ndone;
    p->done = NULL;
    p->ndone = 0;
    *free_slots = p->hold || atomic_load(&p->stop) ? 0 : p->slots - p->nheld + *n;
    pthread_mutex_unlock(&p->mu);
    return done;
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
            struct queue_reclaim_args a = {.pool = p->name, .host = jd.host, .queue = q,
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
    struct queue_claim_args a = {.pool = d->p->name, .host = jd.host, .count = free, .from = {"", ""}};
    a.from[d->hq] = d->hist[d->hq];
    struct queue_claim_reply r;
    char err[512];
    enum queue_rc rc = queue_claim(&d->k, &a, &r, err, sizeof err);
    if (rc) {
        if (rc == QUEUE_ERROR)
            logmsg("pool %s: %s", d->p->name, err);
        return rc;
    }
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
 * claiming) until one appears, unless a worker handed a verdict over. */
static enum queue_rc claim_or_wait(struct disp *d, int free)
{
    struct pool *p = d->p;
    struct queue_claim_args a = {.pool = p->name, .host = jd.host, .count = free, .from = {">", ">"}};
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
    if (idle && strcmp(r.state, "active")) {
        jd_sleep_ms(200);
    } else if (idle && r.delivered[0][0] && r.delivered[1][0]) {
        pthread_mutex_lock(&p->mu);
        bool handed = p->done != NULL;
        p->disp_blocked = !handed;
        pthread_mutex_unlock(&p->mu);
        if (!handed) {
            rc = queue_wait_new(&d->k, p->name, r.delivered, 500);
            pthread_mutex_lock(&p->mu);
            p->disp_blocked = false;
            pthread_mutex_unlock(&p->mu);
        }
    }
    queue_claim_reply_free(&r);
    return rc;
}

/* No free slot: sleep until a slot frees or a verdict is handed over. */
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
    if ((p->hold || p->slots - p->nheld <= 0) && !p->done && !atomic_load(&p->stop))
        pthread_cond_timedwait(&p->cv_slot, &p->mu, &ts);
    pthread_mutex_unlock(&p->mu);
}

static enum queue_rc round_once(struct disp *d, int64_t *next_promote, int64_t *next_reclaim)
{
    struct pool *p = d->p;
    const struct jd_config *cfg = &d->s->cfg;
    int ndone, free;
    struct job *done = take_done(p, &ndone, &free);
    if (done)
        return publish_and_claim(d, done, ndone, d->hq == 2 ? free : 0);
    int64_t now = jd_now_ms();
    if (now >= *next_promote) {
        enum queue_rc rc = queue_promote(&d->k, p->name, 100, NULL);
        *next_promote = now + 200;
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

/* On exit: publish what was handed over; from now on workers publish. */
static void drain_done(struct disp *d)
{
    struct pool *p = d->p;
    pthread_mutex_lock(&p->mu);
    p->disp_gone = true;
    struct job *done = p->done;
    p->done = NULL;
    p->ndone = 0;
    pthread_mutex_unlock(&p->mu);
    for (struct job *j = done, *next; j; j = next) {
        next = j->next;
        worker_publish(&d->k, j);
        pthread_mutex_lock(&p->mu);
        pool_unhold(p, j);
        pthread_mutex_unlock(&p->mu);
        job_free(j);
    }
}

void *dispatcher(void *arg)
{
    struct disp d = {.p = arg, .hist = {"0", "0"}, .laststate = "active"};
    queue_conn_init(&d.k, jd.redis_url, 3000);
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
    drain_done(&d);
    queue_conn_close(&d.k);
    return NULL;
}
