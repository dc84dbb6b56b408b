/*
 * judged - the judging daemon: claims submissions from per-pool Redis
 * streams and judges them with runner/. Protocol and key layout:
 * judged/DESIGN.md.
 *
 * Threads: per pool one dispatcher (claims as many entries as the pool has
 * free slots, reclaims entries idle longer than the lease, promotes retries
 * whose backoff expired) and one worker per slot (runner_judge, then the
 * owner-checked finish script); one heartbeat thread for the host (renews
 * the leases of every held entry, registers the host, reaps consumers of dead
 * hosts). Every thread has its own hiredis connection.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jd.h"
#include "runner.h"

#define MAX_WORKERS 256

struct pool;

struct job {
    struct pool *pool;
    int qi;
    char eid[64];
    char sid[192];
    char *poison;            /* non-NULL: dead-letter with this reason */
    char *lang, *problem, *source;
    size_t source_len;
    int attempts;
    atomic_bool lost;        /* our lease is gone: stop, publish nothing */
    atomic_bool abort;       /* shutdown past grace: stop, give back */
    bool running;
    struct job *next;        /* run queue */
    struct job *hnext;       /* held list */
};

struct pool {
    char name[64];
    char kq[2][160], kstate[160], kdelayed[160], kdlq[160], kres[160], kprefix[160];
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_slot;
    struct job *qhead, *qtail;
    struct job *held;
    int nheld, running;
    int slots;               /* claim limit (may change on SIGHUP) */
    atomic_bool stop;        /* dispatcher: stop claiming and exit */
    bool workers_exit;
    bool reload_runner;
    pthread_t disp;
    bool disp_started;
    pthread_t workers[MAX_WORKERS];
    int nworkers;
    struct runner *runner;
    char **languages;
    int nlanguages;
    struct pool *next;
};

static struct jd_config cfg;
static char redis_url[4200];
static const char *host;
static struct pool *pools;
static pthread_mutex_t pools_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool stopping, hb_stop;
static atomic_long grace_deadline;
static int next_slot;

static void logmsg(const char *fmt, ...)
{
    char ts[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    va_list ap;
    va_start(ap, fmt);
    flockfile(stderr);
    fprintf(stderr, "%s judged[%s]: ", ts, host ? host : "?");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    funlockfile(stderr);
    va_end(ap);
}

static void job_free(struct job *j)
{
    if (!j)
        return;
    free(j->poison);
    free(j->lang);
    free(j->problem);
    free(j->source);
    free(j);
}

static long rand_below(long n)
{
    unsigned x = 0;
    if (n <= 0)
        return 0;
    if (getrandom(&x, sizeof x, GRND_NONBLOCK) != sizeof x)
        x = (unsigned)rand();
    return (long)(x % (unsigned long)n);
}

/* -------------------------------------------------------------- held set */

/* Caller holds p->mu. */
static void unhold(struct pool *p, struct job *j)
{
    for (struct job **pp = &p->held; *pp; pp = &(*pp)->hnext)
        if (*pp == j) {
            *pp = j->hnext;
            p->nheld--;
            break;
        }
    if (p->nheld < p->slots)
        pthread_cond_broadcast(&p->cv_slot);
}

static int free_slots(struct pool *p)
{
    pthread_mutex_lock(&p->mu);
    int n = p->slots - p->nheld;
    pthread_mutex_unlock(&p->mu);
    return n;
}

static struct job *parse_job(struct pool *p, const redisReply *e)
{
    if (e->type != REDIS_REPLY_ARRAY || e->elements < 4)
        return NULL;
    struct job *j = calloc(1, sizeof *j);
    j->pool = p;
    j->qi = (int)e->element[0]->integer;
    snprintf(j->eid, sizeof j->eid, "%s", jd_rstr(e->element[1]) ? jd_rstr(e->element[1]) : "");
    snprintf(j->sid, sizeof j->sid, "%s", jd_rstr(e->element[2]) ? jd_rstr(e->element[2]) : "");
    const char *poison = jd_rstr(e->element[3]);
    if (poison && *poison) {
        j->poison = strdup(poison);
    } else if (e->elements >= 8) {
        j->lang = strdup(jd_rstr(e->element[4]) ? jd_rstr(e->element[4]) : "");
        j->problem = strdup(jd_rstr(e->element[5]) ? jd_rstr(e->element[5]) : "");
        const redisReply *s = e->element[6];
        j->source_len = s->type == REDIS_REPLY_STRING ? s->len : 0;
        j->source = malloc(j->source_len + 1);
        if (j->source_len)
            memcpy(j->source, s->str, j->source_len);
        j->source[j->source_len] = 0;
        j->attempts = atoi(jd_rstr(e->element[7]) ? jd_rstr(e->element[7]) : "0");
        if (!*j->problem || strchr(j->problem, '/') || !strcmp(j->problem, "..") ||
            !strcmp(j->problem, "."))
            j->poison = strdup("poison: bad problem name");
    } else {
        j->poison = strdup("poison: malformed claim reply");
    }
    return j;
}

/* Takes the jobs of a claim reply into the held set and the run queue. */
/* With mine, the first new job is handed back to the calling worker (held,
 * marked running, not queued): a self-fed worker runs it without a hand-off. */
static int enqueue_jobs_ex(struct pool *p, const redisReply *arr, struct job **mine)
{
    int n = 0;
    if (!arr || arr->type != REDIS_REPLY_ARRAY)
        return 0;
    pthread_mutex_lock(&p->mu);
    for (size_t i = 0; i < arr->elements; i++) {
        struct job *j = parse_job(p, arr->element[i]);
        if (!j)
            continue;
        /* after a stall (Redis unreachable, heartbeats late) our reclaim may
         * take back an entry we still hold: the claim just renewed it */
        bool dup = false;
        for (struct job *h = p->held; h; h = h->hnext)
            if (!strcmp(h->eid, j->eid) && h->qi == j->qi && !atomic_load(&h->lost))
                dup = true;
        if (dup) {
            job_free(j);
            continue;
        }
        j->hnext = p->held;
        p->held = j;
        p->nheld++;
        n++;
        if (mine && !*mine) {
            *mine = j;
            j->running = true;
            p->running++;
            continue;
        }
        if (p->qtail)
            p->qtail->next = j;
        else
            p->qhead = j;
        p->qtail = j;
    }
    if (p->qhead)
        pthread_cond_broadcast(&p->cv_work);
    pthread_mutex_unlock(&p->mu);
    return n;
}

static int enqueue_jobs(struct pool *p, const redisReply *arr)
{
    return enqueue_jobs_ex(p, arr, NULL);
}

/* ------------------------------------------------------------ dispatcher */

static int ensure_groups(struct jd_conn *k, struct pool *p)
{
    for (int i = 0; i < 2; i++) {
        /* id 0: a group recreated after data loss must see the live backlog
         * (finished entries are deleted, so the stream is only the backlog) */
        redisReply *r = jd_cmd(k, "XGROUP CREATE %s %s 0 MKSTREAM", p->kq[i], JD_GROUP);
        if (!r)
            return -1;
        bool ok = r->type != REDIS_REPLY_ERROR || strstr(r->str, "BUSYGROUP");
        if (!ok)
            logmsg("pool %s: XGROUP CREATE: %s", p->name, r->str);
        freeReplyObject(r);
        if (!ok)
            return -1;
    }
    return 0;
}

/* Returns the number of jobs taken, -1 on a connection error, -2 on NOGROUP,
 * -3 on another error. *state gets the pool state. */
static int claim(struct jd_conn *k, struct pool *p, int count, char (*start)[128],
                 char *state, size_t statelen, char (*ld)[64], char (*last)[64])
{
    char cnt[16], now[24];
    snprintf(cnt, sizeof cnt, "%d", count);
    snprintf(now, sizeof now, "%lld", (long long)jd_now_ms());
    const char *args[] = {p->kq[0], p->kq[1], p->kstate, JD_GROUP, host, cnt, p->kprefix,
                          p->name, now, start[0], start[1]};
    redisReply *r = jd_eval(k, &JD_CLAIM, 3, 11, args, NULL);
    if (!r)
        return -1;
    int rc;
    if (r->type == REDIS_REPLY_ERROR) {
        rc = strstr(r->str, "NOGROUP") ? -2 : -3;
        if (rc == -3)
            logmsg("pool %s: claim: %s", p->name, r->str);
    } else if (r->type != REDIS_REPLY_ARRAY || r->elements < 6) {
        rc = -3;
    } else {
        snprintf(state, statelen, "%s", jd_rstr(r->element[0]) ? jd_rstr(r->element[0]) : "?");
        for (int i = 0; i < 2; i++) {
            snprintf(ld[i], 64, "%s", jd_rstr(r->element[2 + i]) ? jd_rstr(r->element[2 + i]) : "");
            snprintf(last[i], 64, "%s", jd_rstr(r->element[4 + i]) ? jd_rstr(r->element[4 + i]) : "");
        }
        rc = enqueue_jobs(p, r->element[1]);
    }
    freeReplyObject(r);
    return rc;
}

/* XAUTOCLAIM loop over both queues, never taking more than our free slots. */
static int reclaim(struct jd_conn *k, struct pool *p)
{
    char minidle[24], now[24], cnt[16], qi[4], maxd[16];
    snprintf(minidle, sizeof minidle, "%ld", cfg.lease_ms);
    /* first delivery + max_attempts takeovers + slack for give-backs */
    snprintf(maxd, sizeof maxd, "%d", cfg.max_attempts + 2);
    for (int i = 0; i < 2; i++) {
        char cursor[64] = "0-0";
        snprintf(qi, sizeof qi, "%d", i);
        for (int rounds = 0; rounds < 1000; rounds++) {
            int free = free_slots(p);
            if (free <= 0 || atomic_load(&p->stop))
                return 0;
            snprintf(cnt, sizeof cnt, "%d", free);
            snprintf(now, sizeof now, "%lld", (long long)jd_now_ms());
            const char *args[] = {p->kq[i], p->kstate, JD_GROUP, host, minidle, p->kprefix,
                                  p->name, now, cnt, cursor, qi, maxd};
            redisReply *r = jd_eval(k, &JD_RECLAIM, 2, 12, args, NULL);
            if (!r)
                return -1;
            if (r->type != REDIS_REPLY_ARRAY || r->elements < 3) {
                int rc = jd_reply_is_error(r, "NOGROUP") ? -2 : -3;
                if (rc == -3)
                    logmsg("pool %s: reclaim: %s", p->name, r->type == REDIS_REPLY_ERROR ? r->str : "bad reply");
                freeReplyObject(r);
                return rc;
            }
            int n = enqueue_jobs(p, r->element[2]);
            if (n > 0)
                logmsg("pool %s: reclaimed %d stale job(s)", p->name, n);
            snprintf(cursor, sizeof cursor, "%s", jd_rstr(r->element[1]) ? jd_rstr(r->element[1]) : "0-0");
            freeReplyObject(r);
            if (!strcmp(cursor, "0-0"))
                break;
        }
    }
    return 0;
}

static int promote(struct jd_conn *k, struct pool *p)
{
    char now[24];
    snprintf(now, sizeof now, "%lld", (long long)jd_now_ms());
    const char *args[] = {p->kdelayed, p->kq[0], p->kq[1], now, p->kprefix, "100"};
    redisReply *r = jd_eval(k, &JD_PROMOTE, 3, 6, args, NULL);
    if (!r)
        return -1;
    freeReplyObject(r);
    return 0;
}

static int open_runner(struct pool *p)
{
    char work[4200], err[512];
    snprintf(work, sizeof work, "%s/work/%s-%s", cfg.state_dir, host, p->name);
    struct runner_config rc = {
        .languages_dir = cfg.languages,
        .work_dir = work,
        .first_slot = next_slot,
        .slots = p->slots > 0 ? p->slots : 1,
        .sandbox_run_dir = cfg.sandbox_run_dir,
        .cgroup_parent = cfg.cgroup_parent,
    };
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "%s/work", cfg.state_dir);
    mkdir(cfg.state_dir, 0755);
    mkdir(cmd, 0755);
    mkdir(work, 0755);
    next_slot += 2 * rc.slots;   /* each job slot has a companion (runner.h) */
    if (runner_open(&p->runner, &rc, err, sizeof err)) {
        logmsg("pool %s: cannot open the runner: %s", p->name, err);
        p->runner = NULL;
        return -1;
    }
    return 0;
}

static void *dispatcher(void *arg)
{
    struct pool *p = arg;
    struct jd_conn k;
    jd_conn_init(&k, redis_url, 3000);
    bool groups_ok = false;
    int hq = 0; /* queue whose history is being re-read; 2 = done */
    char hist[2][128] = {"0", "0"};
    int64_t next_reclaim = 0, next_promote = 0;
    char state[32] = "active", laststate[32] = "active";
    bool down = false;
    long reclaim_every = cfg.lease_ms / 4 < 1000 ? cfg.lease_ms / 4 : 1000;
    if (reclaim_every < 100)
        reclaim_every = 100;

    while (!atomic_load(&p->stop)) {
        if (!groups_ok) {
            if (ensure_groups(&k, p)) {
                jd_conn_backoff(&k);
                continue;
            }
            groups_ok = true;
        }
        if (p->reload_runner) {
            pthread_mutex_lock(&p->mu);
            bool idle = p->nheld == 0;
            pthread_mutex_unlock(&p->mu);
            if (!idle) {
                jd_sleep_ms(50);
                continue;
            }
            if (p->runner)
                runner_close(p->runner);
            p->runner = NULL;
            open_runner(p);
            p->reload_runner = false;
            logmsg("pool %s: languages reloaded", p->name);
        }
        int64_t now = jd_now_ms();
        int rc = 0;
        if (now >= next_promote) {
            rc = promote(&k, p);
            next_promote = now + 200;
        }
        int free = free_slots(p);
        char ld[2][64], last[2][64];
        if (rc == 0 && hq < 2 && free > 0) {
            /* a restarted host first re-reads its own pending entries, one
             * queue at a time, from after the last one it saw */
            char start[2][128] = {"", ""};
            snprintf(start[hq], sizeof start[hq], "%s", hist[hq]);
            rc = claim(&k, p, free, start, state, sizeof state, ld, last);
            if (rc >= 0) {
                if (rc > 0)
                    logmsg("pool %s: resumed %d job(s) of a previous run", p->name, rc);
                if (!strcmp(state, "paused")) {
                    jd_sleep_ms(200);
                } else if (last[hq][0]) {
                    snprintf(hist[hq], sizeof hist[hq], "%s", last[hq]);
                } else {
                    hq++;
                }
                continue;
            }
        }
        if (rc == 0 && free > 0 && now >= next_reclaim) {
            rc = reclaim(&k, p);
            next_reclaim = now + reclaim_every;
            free = free_slots(p);
        }
        if (rc == 0 && free <= 0) {
            pthread_mutex_lock(&p->mu);
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 200 * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            if (p->slots - p->nheld <= 0 && !atomic_load(&p->stop))
                pthread_cond_timedwait(&p->cv_slot, &p->mu, &ts);
            pthread_mutex_unlock(&p->mu);
            continue;
        }
        if (rc == 0) {
            char start[2][128] = {">", ">"};
            rc = claim(&k, p, free, start, state, sizeof state, ld, last);
            if (rc >= 0 && strcmp(state, laststate)) {
                logmsg("pool %s: now %s", p->name, state);
                snprintf(laststate, sizeof laststate, "%s", state);
            }
            if (rc > 0) {
                rc = 0;
                continue;
            }
            if (rc == 0 && strcmp(state, "active")) {
                jd_sleep_ms(200);
                continue;
            }
            if (rc == 0 && ld[0][0] && ld[1][0]) {
                /* nothing new: wait (without claiming) for an entry after
                 * what the group has delivered, then claim it by script */
                redisReply *r = jd_cmd(&k, "XREAD COUNT 1 BLOCK 500 STREAMS %s %s %s %s",
                                       p->kq[0], p->kq[1], ld[0], ld[1]);
                if (!r)
                    rc = -1;
                else
                    freeReplyObject(r);
            }
        }
        if (rc == -1) {
            if (!down)
                logmsg("pool %s: redis: %s; reconnecting with backoff", p->name, k.err);
            down = true;
            jd_conn_backoff(&k);
            continue;
        }
        if (down) {
            logmsg("pool %s: redis is back", p->name);
            down = false;
        }
        if (rc == -2) {
            logmsg("pool %s: consumer group missing; recreating it", p->name);
            groups_ok = false;
        } else if (rc == -3) {
            jd_sleep_ms(500);
        }
    }
    jd_conn_close(&k);
    return NULL;
}

/* ---------------------------------------------------------------- worker */

static bool keep_going(void *arg)
{
    struct job *j = arg;
    return !atomic_load(&j->lost) && !atomic_load(&j->abort);
}

/* Runs a script for job j until Redis answers, the lease is lost, or the
 * shutdown grace is over. Returns the reply or NULL. */
static redisReply *eval_job(struct jd_conn *k, struct job *j, const struct jd_script *s,
                            int nkeys, int nargs, const char **args, const size_t *lens)
{
    for (int tries = 0;;) {
        redisReply *r = jd_eval(k, s, nkeys, nargs, args, lens);
        if (r)
            return r;
        if (atomic_load(&j->lost))
            return NULL;
        if (atomic_load(&stopping) && jd_now_ms() > atomic_load(&grace_deadline) + cfg.lease_ms)
            return NULL;
        if (tries++ == 0)
            logmsg("job %s: redis: %s; retrying with backoff", j->sid, k->err);
        jd_conn_backoff(k);
    }
}

static void give_back(struct jd_conn *k, struct pool *p, struct job **jobs, int n)
{
    if (n <= 0)
        return;
    const char **args = calloc((size_t)(6 + 2 * n), sizeof *args);
    char idle[24];
    snprintf(idle, sizeof idle, "%ld", cfg.lease_ms * 100);
    for (int qi = 0; qi < 2; qi++) {
        int a = 0;
        args[a++] = p->kq[qi];
        args[a++] = JD_GROUP;
        args[a++] = host;
        args[a++] = idle;
        args[a++] = p->kprefix;
        for (int i = 0; i < n; i++)
            if (jobs[i]->qi == qi) {
                args[a++] = jobs[i]->eid;
                args[a++] = jobs[i]->sid;
            }
        if (a == 5)
            continue;
        for (int tries = 0; tries < 5; tries++) {
            redisReply *r = jd_eval(k, &JD_GIVEBACK, 1, a, args, NULL);
            if (r) {
                freeReplyObject(r);
                break;
            }
            jd_conn_backoff(k);
        }
    }
    free(args);
}

static void dead_letter(struct jd_conn *k, struct job *j, const char *reason)
{
    struct pool *p = j->pool;
    char sub[400], now[24], resmax[24];
    snprintf(sub, sizeof sub, "%s%s", p->kprefix, j->sid);
    snprintf(now, sizeof now, "%lld", (long long)jd_now_ms());
    snprintf(resmax, sizeof resmax, "%ld", cfg.results_max);
    const char *args[] = {p->kq[j->qi], sub, p->kdlq, p->kres, JD_GROUP, host, j->eid, j->sid,
                          reason, now, resmax, p->name};
    redisReply *r = eval_job(k, j, &JD_DEAD, 4, 12, args, NULL);
    logmsg("job %s (entry %s): dead-lettered: %s", j->sid[0] ? j->sid : "?", j->eid, reason);
    if (r)
        freeReplyObject(r);
}

static void infra_failure(struct jd_conn *k, struct job *j, const char *reason)
{
    struct pool *p = j->pool;
    char sub[400], now[24], resmax[24], maxa[16], due[24];
    long delay = cfg.retry_backoff_ms;
    for (int i = 0; i < j->attempts && delay < 600000; i++)
        delay *= 2;
    delay = delay / 2 + rand_below(delay / 2 + 1); /* jitter */
    snprintf(sub, sizeof sub, "%s%s", p->kprefix, j->sid);
    snprintf(now, sizeof now, "%lld", (long long)jd_now_ms());
    snprintf(resmax, sizeof resmax, "%ld", cfg.results_max);
    snprintf(maxa, sizeof maxa, "%d", cfg.max_attempts);
    snprintf(due, sizeof due, "%lld", (long long)(jd_now_ms() + delay));
    const char *args[] = {p->kq[j->qi], sub, p->kdlq, p->kres, p->kdelayed, JD_GROUP, host,
                          j->eid, j->sid, reason, now, resmax, p->name, maxa, due};
    redisReply *r = eval_job(k, j, &JD_RETRY, 5, 15, args, NULL);
    if (r && r->type == REDIS_REPLY_INTEGER) {
        if (r->integer == 1)
            logmsg("job %s: infrastructure failure (attempt %d): %s; retry in %ldms", j->sid,
                   j->attempts + 1, reason, delay);
        else if (r->integer == 2)
            logmsg("job %s: infrastructure failure, attempts exhausted: dead-lettered, verdict IE",
                   j->sid);
        else
            logmsg("job %s: lease lost before the retry was recorded", j->sid);
    } else if (r) {
        logmsg("job %s: retry script: %s", j->sid, r->type == REDIS_REPLY_ERROR ? r->str : "?");
    }
    if (r)
        freeReplyObject(r);
}

static void run_job(struct jd_conn *k, struct job *j, struct job **next)
{
    struct pool *p = j->pool;
    if (j->poison) {
        dead_letter(k, j, j->poison);
        return;
    }
    if (!p->runner) {
        infra_failure(k, j, "runner unavailable on this host");
        return;
    }
    char pdir[4200], err[1024] = "";
    snprintf(pdir, sizeof pdir, "%s/%s", cfg.problems, j->problem);
    struct runner_request req = {
        .problem_dir = pdir,
        .language = j->lang,
        .source = j->source,
        .source_len = j->source_len,
        .keep_going = keep_going,
        .keep_going_arg = j,
    };
    struct runner_report *rep = NULL;
    enum runner_failure failure = RUNNER_FAILURE_NONE;
    int rc = runner_judge(p->runner, &req, &rep, &failure, err, sizeof err);
    if (atomic_load(&j->lost)) {
        logmsg("job %s: lease lost; result discarded", j->sid);
        if (rep)
            runner_report_free(rep);
        return;
    }
    if (rc == 0 && rep) {
        char *json = runner_report_json(rep);
        char score[32], sub[400], now[24], resmax[24];
        snprintf(score, sizeof score, "%g", runner_report_score(rep));
        snprintf(sub, sizeof sub, "%s%s", p->kprefix, j->sid);
        snprintf(now, sizeof now, "%lld", (long long)jd_now_ms());
        snprintf(resmax, sizeof resmax, "%ld", cfg.results_max);
        const char *verdict = runner_verdict_name(runner_report_verdict(rep));
        /* feed this worker its next job in the same round trip, if it is
         * certain to have a slot for it */
        pthread_mutex_lock(&p->mu);
        bool more = !p->qhead && p->nheld <= p->slots && !atomic_load(&p->stop) &&
                    !p->reload_runner && !atomic_load(&stopping);
        pthread_mutex_unlock(&p->mu);
        const char *args[] = {p->kq[j->qi], sub, p->kres, p->kq[0], p->kq[1], p->kstate,
                              JD_GROUP, host, j->eid, j->sid, verdict, score,
                              json ? json : "{}", now, resmax, p->name, more ? "1" : "0",
                              p->kprefix};
        redisReply *r = eval_job(k, j, &JD_FINISH, 6, 18, args, NULL);
        if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2) {
            if (r->element[0]->integer == 0)
                logmsg("job %s: lease lost before finishing; published nothing", j->sid);
            enqueue_jobs_ex(p, r->element[1], next);
        } else if (r && r->type == REDIS_REPLY_ERROR) {
            logmsg("job %s: finish: %s", j->sid, r->str);
            freeReplyObject(r);
            r = NULL;
            free(json);
            runner_report_free(rep);
            infra_failure(k, j, "redis write failed while storing the verdict");
            return;
        }
        if (r)
            freeReplyObject(r);
        free(json);
        runner_report_free(rep);
        return;
    }
    if (rep)
        runner_report_free(rep);
    if (failure == RUNNER_FAILURE_ABORTED || atomic_load(&j->abort)) {
        if (atomic_load(&j->abort)) {
            struct job *one[1] = {j};
            give_back(k, p, one, 1);
            logmsg("job %s: stopped by shutdown; given back", j->sid);
        }
        return;
    }
    infra_failure(k, j, err[0] ? err : "runner failed");
}

static void *worker(void *arg)
{
    struct pool *p = arg;
    struct jd_conn k;
    jd_conn_init(&k, redis_url, cfg.lease_ms + 5000);
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->qhead && !p->workers_exit)
            pthread_cond_wait(&p->cv_work, &p->mu);
        struct job *j = p->qhead;
        if (!j) {
            pthread_mutex_unlock(&p->mu);
            break;
        }
        p->qhead = j->next;
        if (!p->qhead)
            p->qtail = NULL;
        j->running = true;
        p->running++;
        pthread_mutex_unlock(&p->mu);

        while (j) {
            struct job *next = NULL;
            run_job(&k, j, &next);
            pthread_mutex_lock(&p->mu);
            p->running--;
            unhold(p, j);
            pthread_mutex_unlock(&p->mu);
            job_free(j);
            j = next;
        }
    }
    jd_conn_close(&k);
    return NULL;
}

/* ------------------------------------------------------------- heartbeat */

static void renew(struct jd_conn *k, struct pool *p)
{
    pthread_mutex_lock(&p->mu);
    int n = p->nheld;
    if (n == 0) {
        pthread_mutex_unlock(&p->mu);
        return;
    }
    const char **args = calloc((size_t)(4 + 2 * n), sizeof *args);
    char(*qis)[4] = calloc((size_t)n, sizeof *qis);
    char(*ids)[64] = calloc((size_t)n, sizeof *ids);
    int a = 0, i = 0;
    args[a++] = p->kq[0];
    args[a++] = p->kq[1];
    args[a++] = JD_GROUP;
    args[a++] = host;
    for (struct job *j = p->held; j && i < n; j = j->hnext, i++) {
        snprintf(qis[i], sizeof qis[i], "%d", j->qi);
        snprintf(ids[i], sizeof ids[i], "%s", j->eid);
        args[a++] = qis[i];
        args[a++] = ids[i];
    }
    pthread_mutex_unlock(&p->mu);
    redisReply *r = jd_eval(k, &JD_RENEW, 2, a, args, NULL);
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements > 0) {
        pthread_mutex_lock(&p->mu);
        for (size_t e = 0; e < r->elements; e++) {
            const char *lost = jd_rstr(r->element[e]);
            if (!lost)
                continue;
            for (struct job *j = p->held; j; j = j->hnext)
                if (!strcmp(j->eid, lost) && !atomic_load(&j->lost)) {
                    atomic_store(&j->lost, true);
                    logmsg("job %s: lease lost to another host; abandoning it", j->sid);
                }
            /* queued (not yet started) lost jobs are dropped from the queue */
            for (struct job **pp = &p->qhead; *pp;) {
                struct job *j = *pp;
                if (atomic_load(&j->lost)) {
                    *pp = j->next;
                    unhold(p, j);
                    job_free(j);
                } else {
                    pp = &j->next;
                }
            }
            p->qtail = NULL;
            for (struct job *j = p->qhead; j; j = j->next)
                p->qtail = j;
        }
        pthread_mutex_unlock(&p->mu);
    } else if (r && r->type == REDIS_REPLY_ERROR) {
        logmsg("pool %s: renew: %s", p->name, r->str);
    }
    if (r)
        freeReplyObject(r);
    free(args);
    free(qis);
    free(ids);
}

static void register_host(struct jd_conn *k)
{
    json_t *o = json_object();
    json_t *pl = json_array();
    int busy = 0, slots = 0;
    json_object_set_new(o, "host", json_string(host));
    json_object_set_new(o, "pid", json_integer(getpid()));
    pthread_mutex_lock(&pools_mu);
    for (struct pool *p = pools; p; p = p->next) {
        if (atomic_load(&p->stop) && !p->nworkers)
            continue;
        pthread_mutex_lock(&p->mu);
        json_t *po = json_object();
        json_object_set_new(po, "name", json_string(p->name));
        json_object_set_new(po, "slots", json_integer(p->slots));
        json_object_set_new(po, "busy", json_integer(p->running));
        json_array_append_new(pl, po);
        busy += p->running;
        slots += p->slots;
        pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_unlock(&pools_mu);
    json_object_set_new(o, "pools", pl);
    json_object_set_new(o, "busy", json_integer(busy));
    json_object_set_new(o, "slots", json_integer(slots));
    json_object_set_new(o, "version", json_string(JUDGED_VERSION));
    json_object_set_new(o, "state", json_string(atomic_load(&stopping) ? "stopping" : "running"));
    json_object_set_new(o, "time", json_integer(jd_now_ms()));
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    char key[400];
    snprintf(key, sizeof key, "judge:host:%s", host);
    redisReply *r = jd_cmd(k, "SET %s %s PX %ld", key, s, cfg.heartbeat_ms * 3);
    if (r)
        freeReplyObject(r);
    r = jd_cmd(k, "HSET judge:hosts %s %s", host, s);
    if (r)
        freeReplyObject(r);
    free(s);
}

/* Consumers of hosts whose heartbeat key expired are removed, but only
 * when nothing is pending for them (their entries get reclaimed first). */
static void reap_dead(struct jd_conn *k)
{
    redisReply *hs = jd_cmd(k, "HKEYS judge:hosts");
    if (!hs || hs->type != REDIS_REPLY_ARRAY) {
        if (hs)
            freeReplyObject(hs);
        return;
    }
    for (size_t i = 0; i < hs->elements; i++) {
        const char *name = jd_rstr(hs->element[i]);
        if (!name || !strcmp(name, host))
            continue;
        redisReply *ex = jd_cmd(k, "EXISTS judge:host:%s", name);
        bool alive = ex && ex->type == REDIS_REPLY_INTEGER && ex->integer == 1;
        if (ex)
            freeReplyObject(ex);
        if (alive || !ex)
            continue;
        bool all = true;
        pthread_mutex_lock(&pools_mu);
        for (struct pool *p = pools; p; p = p->next)
            for (int q = 0; q < 2; q++) {
                const char *args[] = {p->kq[q], JD_GROUP, name};
                redisReply *r = jd_eval(k, &JD_REAP, 1, 3, args, NULL);
                if (!r || r->type != REDIS_REPLY_INTEGER || r->integer == 0)
                    all = false;
                if (r && r->type == REDIS_REPLY_INTEGER && r->integer == 1)
                    logmsg("removed consumer %s of dead host from %s", name, p->kq[q]);
                if (r)
                    freeReplyObject(r);
            }
        pthread_mutex_unlock(&pools_mu);
        if (all) {
            redisReply *r = jd_cmd(k, "HDEL judge:hosts %s", name);
            if (r)
                freeReplyObject(r);
        }
    }
    freeReplyObject(hs);
}

static void *heartbeat(void *arg)
{
    (void)arg;
    struct jd_conn k;
    jd_conn_init(&k, redis_url, cfg.heartbeat_ms + 2000);
    int64_t next_reap = jd_now_ms() + cfg.lease_ms;
    while (!atomic_load(&hb_stop)) {
        int64_t t0 = jd_now_ms();
        if (jd_conn_ensure(&k) == 0) {
            pthread_mutex_lock(&pools_mu);
            for (struct pool *p = pools; p; p = p->next)
                renew(&k, p);
            pthread_mutex_unlock(&pools_mu);
            register_host(&k);
            if (jd_now_ms() >= next_reap) {
                reap_dead(&k);
                next_reap = jd_now_ms() + cfg.lease_ms;
            }
        }
        long wait = cfg.heartbeat_ms - (long)(jd_now_ms() - t0);
        for (long w = 0; w < wait && !atomic_load(&hb_stop); w += 20)
            jd_sleep_ms(wait - w < 20 ? wait - w : 20);
    }
    char key[400];
    snprintf(key, sizeof key, "judge:host:%s", host);
    redisReply *r = jd_cmd(&k, "DEL %s", key);
    if (r)
        freeReplyObject(r);
    jd_conn_close(&k);
    return NULL;
}

/* ----------------------------------------------------------------- pools */

static void set_pool_cfg(struct pool *p, const struct jd_pool_cfg *pc)
{
    for (int i = 0; i < p->nlanguages; i++)
        free(p->languages[i]);
    free(p->languages);
    p->languages = calloc((size_t)pc->nlanguages, sizeof *p->languages);
    for (int i = 0; i < pc->nlanguages; i++)
        p->languages[i] = strdup(pc->languages[i]);
    p->nlanguages = pc->nlanguages;
    pthread_mutex_lock(&p->mu);
    p->slots = pc->slots;
    pthread_cond_broadcast(&p->cv_slot);
    pthread_mutex_unlock(&p->mu);
}

static int start_workers(struct pool *p)
{
    while (p->nworkers < p->slots && p->nworkers < MAX_WORKERS) {
        if (pthread_create(&p->workers[p->nworkers], NULL, worker, p))
            return -1;
        p->nworkers++;
    }
    return 0;
}

static struct pool *pool_new(const struct jd_pool_cfg *pc)
{
    struct pool *p = calloc(1, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", pc->name);
    jd_key(p->kq[0], sizeof p->kq[0], p->name, "q:contest");
    jd_key(p->kq[1], sizeof p->kq[1], p->name, "q:normal");
    jd_key(p->kstate, sizeof p->kstate, p->name, "state");
    jd_key(p->kdelayed, sizeof p->kdelayed, p->name, "delayed");
    jd_key(p->kdlq, sizeof p->kdlq, p->name, "dlq");
    jd_key(p->kres, sizeof p->kres, p->name, "results");
    jd_key(p->kprefix, sizeof p->kprefix, p->name, "sub:");
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv_work, NULL);
    pthread_cond_init(&p->cv_slot, NULL);
    set_pool_cfg(p, pc);
    return p;
}

static int pool_start(struct pool *p)
{
    if (open_runner(p))
        return -1;
    if (start_workers(p))
        return -1;
    if (pthread_create(&p->disp, NULL, dispatcher, p))
        return -1;
    p->disp_started = true;
    return 0;
}

static void reload(void)
{
    struct jd_config nc;
    char err[1024];
    if (jd_config_load(&nc, cfg.path, err, sizeof err)) {
        logmsg("SIGHUP: configuration not reloaded: %s", err);
        return;
    }
    pthread_mutex_lock(&pools_mu);
    for (int i = 0; i < nc.npools; i++) {
        struct pool *p;
        for (p = pools; p; p = p->next)
            if (!strcmp(p->name, nc.pools[i].name) && !atomic_load(&p->stop))
                break;
        if (p) {
            set_pool_cfg(p, &nc.pools[i]);
            start_workers(p);
            p->reload_runner = true;
        } else {
            p = pool_new(&nc.pools[i]);
            if (pool_start(p) == 0)
                logmsg("SIGHUP: pool %s added", p->name);
            p->next = pools;
            pools = p;
        }
    }
    for (struct pool *p = pools; p; p = p->next)
        if (!jd_pool_by_name(&nc, p->name) && !atomic_load(&p->stop)) {
            logmsg("SIGHUP: pool %s removed: it stops claiming here", p->name);
            atomic_store(&p->stop, true);
        }
    pthread_mutex_unlock(&pools_mu);
    /* keep the settings that need a restart (redis, state_dir, host) */
    free(nc.redis);
    nc.redis = cfg.redis;
    cfg.redis = NULL;
    free(nc.state_dir);
    nc.state_dir = cfg.state_dir;
    cfg.state_dir = NULL;
    free(nc.host);
    nc.host = cfg.host;
    cfg.host = NULL;
    /* the old strings are left allocated: workers may be reading them */
    cfg = nc;
    logmsg("SIGHUP: configuration reloaded");
}

static void shutdown_all(void)
{
    atomic_store(&grace_deadline, jd_now_ms() + cfg.grace_ms);
    atomic_store(&stopping, true);
    logmsg("stopping: no new claims; running jobs have %ldms to finish", cfg.grace_ms);
    for (struct pool *p = pools; p; p = p->next) {
        atomic_store(&p->stop, true);
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->cv_slot);
        pthread_mutex_unlock(&p->mu);
    }
    for (struct pool *p = pools; p; p = p->next)
        if (p->disp_started)
            pthread_join(p->disp, NULL);
    /* claimed but not started: give back now */
    struct jd_conn k;
    jd_conn_init(&k, redis_url, 3000);
    for (struct pool *p = pools; p; p = p->next) {
        pthread_mutex_lock(&p->mu);
        struct job *list = p->qhead;
        p->qhead = p->qtail = NULL;
        int n = 0;
        for (struct job *j = list; j; j = j->next)
            n++;
        struct job **arr = calloc((size_t)n + 1, sizeof *arr);
        n = 0;
        for (struct job *j = list; j; j = j->next)
            arr[n++] = j;
        for (int i = 0; i < n; i++)
            unhold(p, arr[i]);
        pthread_mutex_unlock(&p->mu);
        give_back(&k, p, arr, n);
        for (int i = 0; i < n; i++)
            job_free(arr[i]);
        free(arr);
    }
    /* wait for running jobs, then abort the rest (workers give them back) */
    for (;;) {
        int running = 0;
        for (struct pool *p = pools; p; p = p->next) {
            pthread_mutex_lock(&p->mu);
            running += p->running;
            pthread_mutex_unlock(&p->mu);
        }
        if (!running)
            break;
        if (jd_now_ms() >= atomic_load(&grace_deadline)) {
            logmsg("grace period over: giving back %d running job(s)", running);
            for (struct pool *p = pools; p; p = p->next) {
                pthread_mutex_lock(&p->mu);
                for (struct job *j = p->held; j; j = j->hnext)
                    atomic_store(&j->abort, true);
                pthread_mutex_unlock(&p->mu);
            }
            break;
        }
        jd_sleep_ms(50);
    }
    for (struct pool *p = pools; p; p = p->next) {
        pthread_mutex_lock(&p->mu);
        p->workers_exit = true;
        pthread_cond_broadcast(&p->cv_work);
        pthread_mutex_unlock(&p->mu);
    }
    for (struct pool *p = pools; p; p = p->next)
        for (int i = 0; i < p->nworkers; i++)
            pthread_join(p->workers[i], NULL);
    jd_conn_close(&k);
}

static void usage(FILE *out)
{
    fprintf(out, "usage: judged --config FILE [--host NAME]\n\n"
                 "Runs the judging daemon: claims submissions from the Redis streams of the\n"
                 "pools in FILE and judges them. SIGTERM stops it gracefully; SIGHUP reloads\n"
                 "pools and languages.\n\n"
                 "  --config FILE   the YAML configuration (see judged/DESIGN.md)\n"
                 "  --host NAME     consumer name of this host (default: config 'host' or the\n"
                 "                  hostname); keep it stable across restarts\n");
}

int main(int argc, char **argv)
{
    /* First of all: a SIGHUP or SIGTERM sent while we start (a reload right
     * after a restart) must be queued for sigwait, not end us. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    const char *config = NULL, *host_opt = NULL;
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'},
        {"host", required_argument, NULL, 'H'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "c:H:h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': config = optarg; break;
        case 'H': host_opt = optarg; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("judged %s\n", JUDGED_VERSION); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!config || optind != argc) {
        usage(stderr);
        return 2;
    }
    char err[1024];
    if (jd_config_load(&cfg, config, err, sizeof err)) {
        fprintf(stderr, "judged: %s\n", err);
        return 1;
    }
    if (host_opt) {
        free(cfg.host);
        cfg.host = strdup(host_opt);
    }
    host = strdup(cfg.host);


    int redis_pid = 0;
    if (!cfg.redis) {
        redis_pid = jd_embedded_start(&cfg, err, sizeof err);
        if (redis_pid < 0) {
            fprintf(stderr, "judged: embedded redis: %s\n", err);
            return 1;
        }
    }
    jd_redis_url(&cfg, redis_url, sizeof redis_url);
    next_slot = cfg.first_slot;

    for (int i = cfg.npools - 1; i >= 0; i--) {
        struct pool *p = pool_new(&cfg.pools[i]);
        p->next = pools;
        pools = p;
    }
    for (struct pool *p = pools; p; p = p->next)
        if (pool_start(p)) {
            fprintf(stderr, "judged: pool %s could not start\n", p->name);
            jd_embedded_stop(redis_pid);
            return 1;
        }
    pthread_t hb;
    pthread_create(&hb, NULL, heartbeat, NULL);
    logmsg("started (pid %d, redis %s, %d pool(s), lease %ldms, heartbeat %ldms)", getpid(),
           redis_url, cfg.npools, cfg.lease_ms, cfg.heartbeat_ms);

    for (;;) {
        int sig;
        if (sigwait(&set, &sig))
            continue;
        if (sig == SIGHUP) {
            reload();
            continue;
        }
        break;
    }
    shutdown_all();
    atomic_store(&hb_stop, true);
    pthread_join(hb, NULL);
    for (struct pool *p = pools; p; p = p->next)
        if (p->runner)
            runner_close(p->runner);
    jd_embedded_stop(redis_pid);
    logmsg("stopped (%lu redis round trips)", (unsigned long)atomic_load(&jd_round_trips));
    return 0;
}
