/* worker.c - a pool's worker threads, one per slot: take a claimed job,
 * judge it with runner_judge under the snapshot it started with, publish
 * the verdict (judged_finish, owner-checked) and - in the same pipelined
 * round trip, when dispatch.c's policy says so - claim the next entry for
 * this worker, which runs it without a thread hand-off. Infrastructure
 * failures (retry with backoff, then dead-letter), poison entries and
 * give-backs are settled on the worker's own connection too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "daemon.h"

static bool keep_going(void *arg)
{
    struct job *j = arg;
    return !atomic_load(&j->lost) && !atomic_load(&j->abort);
}

/* Progress for the platform (judge-api's GET /v1/submissions/ID/events)
 * and the test's checkpoint, in one write per test; best effort - a failed
 * write costs a line on the contestant's screen, and a takeover reruns the
 * test. */
static void test_recorded(void *arg, size_t index, size_t count, int verdict, const char *identity,
                          const char *record)
{
    struct job *j = arg;
    char err[256];
    struct queue_test_done t = {.pool = j->pool->name, .id = j->q.id, .host = judged.host,
                                .test = (int)index + 1, .count = (int)count,
                                .verdict = runner_verdict_name((enum runner_verdict)verdict),
                                .identity = identity, .record = record};
    queue_progress_test(j->conn, &t, err, sizeof err);
    j->checkpointed = true;
}

/* What a takeover did with the checkpoint, into the attempt history (and
 * the log): resumed, or started over and why. */
static void resume_decided(void *arg, size_t reused, const char *why_not)
{
    struct job *j = arg;
    char note[300], err[256];
    if (why_not)
        snprintf(note, sizeof note, "takeover: started over: %s", why_not);
    else
        snprintf(note, sizeof note, "takeover: resumed: %zu finished test(s) reused", reused);
    logmsg("job %s: %s", j->q.id, note);
    queue_note(j->conn, j->pool->name, judged.host, j->q.queue, j->q.entry, j->q.id, note, err, sizeof err);
}

/* A job taken over from a lost host: the checkpoint its judging left, to
 * resume from. Unreadable (Redis did not answer): start over, and say so. */
static void read_checkpoint(struct queue_conn *k, struct job *j, struct queue_checkpoint *ck,
                            struct runner_request *req)
{
    char err[256];
    if (!j->q.reclaimed)
        return;
    if (queue_checkpoint_read(k, j->pool->name, j->q.id, 1000000, ck, err, sizeof err) != QUEUE_OK) {
        logmsg("job %s: checkpoint unreadable: %s; judging from the start", j->q.id, err);
        return;
    }
    if (!ck->identity || !ck->identity[0])
        return;   /* nothing recorded: a fresh start, nothing to say */
    j->checkpointed = true;
    req->resume_identity = ck->identity;
    req->resume_records = (const char *const *)ck->records;
    req->resume_count = ck->count;
    req->resume_decided = resume_decided;
}

/* Whether to keep retrying a settlement of j that Redis did not answer. */
static bool retry_io(struct queue_conn *k, struct job *j, int *tries)
{
    if (atomic_load(&j->lost))
        return false;
    if (atomic_load(&judged.stopping) && jd_now_ms() > atomic_load(&judged.grace_deadline) + j->snap->cfg.lease_ms)
        return false;
    if ((*tries)++ == 0)
        logmsg("job %s: redis: %s; retrying with backoff", j->q.id, k->err);
    queue_conn_backoff(k);
    return true;
}

/* Publishes j's verdict, retrying until Redis answers, the lease is lost or
 * the grace is over; returns the job the refill claim brought (held and
 * counted running) or NULL. */
static struct job *publish(struct queue_conn *k, struct job *j)
{
    struct pool *p = j->pool;
    struct queue_finish_args a = {
        .pool = p->name, .host = judged.host, .queue = j->q.queue, .entry = j->q.entry,
        .id = j->q.id, .verdict = j->verdict, .score = j->score, .report = j->report,
        .results_max = j->snap->cfg.results_max, .retention_ms = j->snap->cfg.retention_ms,
        .checkpointed = j->checkpointed};
    struct queue_claim_args ca;
    bool refill = dispatch_refill_claim(p, &ca);
    struct queue_finish_reply r;
    struct queue_claim_reply cr = {0};
    enum queue_rc crc = QUEUE_ERROR;
    char err[512];
    enum queue_rc rc;
    int tries = 0;
    while ((rc = queue_finish_then_claim(k, &a, 1, &r, refill ? &ca : NULL, &cr, &crc, err,
                                         sizeof err)) == QUEUE_IO &&
           retry_io(k, j, &tries))
        ;
    j->outcome = "published";
    if (rc == QUEUE_OK && r.rc == QUEUE_OK && r.result == QUEUE_FINISH_PUBLISHED) {
        /* metrics: counted here, written by the heartbeat (queue_stats) */
        pthread_mutex_lock(&p->mu);
        queue_stats_observe(&p->stats, j->verdict, j->q.wait_ms, jd_now_ms() - j->claimed_ms);
        pthread_mutex_unlock(&p->mu);
    }
    if (rc == QUEUE_OK && r.rc == QUEUE_OK && r.result == QUEUE_FINISH_LOST) {
        logmsg("job %s: lease lost before finishing; published nothing", j->q.id);
        j->outcome = "lost";
    } else if (rc == QUEUE_ERROR || (rc == QUEUE_OK && r.rc != QUEUE_OK)) {
        logwarn("job %s: %s", j->q.id, rc == QUEUE_OK ? r.err : err);
        job_infra_failure(k, j, "redis write failed while storing the verdict");
    } else if (rc == QUEUE_IO) {
        j->outcome = "error"; /* Redis did not answer before the lease or grace ran out */
    }
    struct job *next = NULL;
    if (rc == QUEUE_OK && refill && crc == QUEUE_OK) {
        pool_enqueue(p, cr.jobs, cr.njobs, &next);
        queue_claim_reply_free(&cr);
    } else if (rc == QUEUE_OK && refill) {
        logmsg("pool %s: %s", p->name, err);
    }
    return next;
}

void jobs_give_back(struct queue_conn *k, struct pool *p, struct job **jobs, int n, long lease_ms)
{
    if (n <= 0)
        return;
    struct queue_ref *refs = calloc((size_t)n, sizeof *refs);
    for (int i = 0; i < n; i++)
        refs[i] = (struct queue_ref){jobs[i]->q.queue, jobs[i]->q.entry};
    char err[512];
    for (int tries = 0; tries < 5; tries++) {
        enum queue_rc rc = queue_give_back(k, p->name, judged.host, lease_ms * 100, refs, n, NULL, err,
                                           sizeof err);
        if (rc != QUEUE_IO) {
            if (rc)
                logmsg("pool %s: %s", p->name, err);
            break;
        }
        queue_conn_backoff(k);
    }
    free(refs);
}

static void dead_letter(struct queue_conn *k, struct job *j, const char *reason)
{
    struct queue_dead_args a = {.pool = j->pool->name, .host = judged.host, .queue = j->q.queue,
                                .entry = j->q.entry, .id = j->q.id, .reason = reason,
                                .results_max = j->snap->cfg.results_max,
                                .retention_ms = j->snap->cfg.retention_ms,
                                .dlq_retention_ms = j->snap->cfg.dlq_retention_ms};
    bool dead = false;
    char err[512];
    enum queue_rc rc;
    int tries = 0;
    while ((rc = queue_dead_letter(k, &a, &dead, err, sizeof err)) == QUEUE_IO && retry_io(k, j, &tries))
        ;
    if (rc == QUEUE_ERROR)
        logwarn("job %s: %s", j->q.id, err);
    j->outcome = dead ? "dead" : rc == QUEUE_OK ? "lost" : "error";
    logwarn("job %s (entry %s): dead-lettered: %s", j->q.id[0] ? j->q.id : "?", j->q.entry, reason);
}

void job_infra_failure(struct queue_conn *k, struct job *j, const char *reason)
{
    const struct jd_config *cfg = &j->snap->cfg;
    metrics_infra_failure(&judged.metrics, j->pool->name);
    /* doubled per attempt, at most 10 minutes, with jitter */
    long delay = common_backoff_ms(cfg->retry_backoff_ms, j->q.attempts, 600000);
    struct queue_retry_args a = {.pool = j->pool->name, .host = judged.host, .queue = j->q.queue,
                                 .entry = j->q.entry, .id = j->q.id, .reason = reason,
                                 .max_attempts = cfg->max_attempts, .delay_ms = delay,
                                 .results_max = cfg->results_max, .retention_ms = cfg->retention_ms,
                                 .dlq_retention_ms = cfg->dlq_retention_ms};
    struct queue_retry_reply r;
    char err[512];
    enum queue_rc rc;
    int tries = 0;
    while ((rc = queue_retry(k, &a, &r, err, sizeof err)) == QUEUE_IO && retry_io(k, j, &tries))
        ;
    j->outcome = "error";
    if (rc != QUEUE_OK) {
        if (rc != QUEUE_IO)
            logwarn("job %s: retry: %s", j->q.id, err);
    } else if (r.result == QUEUE_RETRY_SCHEDULED) {
        j->outcome = "retry";
        logwarn("job %s: infrastructure failure (attempt %d): %s; retry in %ldms", j->q.id, r.attempts,
                reason, delay);
    } else if (r.result == QUEUE_RETRY_DEAD) {
        j->outcome = "dead";
        logwarn("job %s: infrastructure failure, attempts exhausted: dead-lettered, verdict IE", j->q.id);
    } else {
        j->outcome = "lost";
        logmsg("job %s: lease lost before the retry was recorded", j->q.id);
    }
}

/* The job's compile time (the compiler's CPU time; 0 when the compile
 * cache answered) and run time (the tests' program wall time, summed), for
 * its log line: read from the report itself, never from its JSON. */
static void report_times(struct job *j, const struct runner_report *rep)
{
    double compile = runner_report_compile_time(rep);
    j->compile_ms = compile < 0 ? -1 : (long)(compile * 1000 + 0.5);
    j->run_ms = 0;
    for (size_t i = 0; i < runner_report_test_count(rep); i++) {
        double pipeline, program;
        if (runner_report_test_times(rep, i, &pipeline, &program) == 0 && program > 0)
            j->run_ms += (long)(program * 1000 + 0.5);
    }
}

/* The problem's directory for j into hold->path: the hosts' problems
 * directory, or the cached copy of its stored version (held: released
 * after the judging, pcache_release). -1 after an infrastructure failure
 * was recorded. */
static int problem_dir(struct queue_conn *k, struct job *j, const struct jd_config *cfg, struct pcache_hold *hold)
{
    char err[1024] = "";
    if (!j->q.version[0]) {
        /* admitted without a stored version: the hosts' problems directory
         * (the admin's own files, read as they are: nothing to check them
         * against) */
        snprintf(hold->path, sizeof hold->path, "%s/%s", cfg->problems, j->q.problem);
        return 0;
    }
    if (pcache_acquire(k, cfg, j->q.version, hold, err, sizeof err) == 0)
        return 0;
    char why[1200];
    snprintf(why, sizeof why, "problem %s version %.12s unavailable: %s", j->q.problem, j->q.version, err);
    job_infra_failure(k, j, why);
    return -1;
}

/* Runs one job; returns the next one for this worker, if the refill
 * claimed one. */
static struct job *run_job(struct queue_conn *k, struct job *j)
{
    struct pool *p = j->pool;
    const struct jd_config *cfg = &j->snap->cfg;
    j->compile_ms = j->run_ms = j->judge_ms = -1;
    if (j->q.poison) {
        dead_letter(k, j, j->q.poison);
        return NULL;
    }
    if (!p->runner) {
        job_infra_failure(k, j, "runner unavailable on this host");
        return NULL;
    }
    char err[1024] = "";
    struct pcache_hold hold = {.gen = 0};
    const char *version = j->q.version, *pdir = hold.path;
    if (problem_dir(k, j, cfg, &hold))
        return NULL;
    struct runner_request req = {
        .problem_dir = pdir,
        .language = j->q.lang,
        .source = j->q.source,
        .source_len = j->q.source_len,
        .keep_going = keep_going,
        .keep_going_arg = j,
        .test_recorded = test_recorded,
        .problem_version = version,   /* in the stored report; "": null */
        .host = judged.host,          /* each test's "host" in the report */
    };
    j->conn = k;   /* test_recorded's ("compiling" is the claim's state: judge-api shows it) */
    struct queue_checkpoint ck = {0};
    read_checkpoint(k, j, &ck, &req);
    struct runner_report *rep = NULL;
    enum runner_failure failure = RUNNER_FAILURE_NONE;
    int64_t t0 = jd_now_ms();
    int rc = runner_judge(p->runner, &req, &rep, &failure, err, sizeof err);
    j->judge_ms = (long)(jd_now_ms() - t0);
    queue_checkpoint_free(&ck);
    char changed[600] = "";
    bool copy_changed = version[0] && pcache_release(cfg, &hold, changed, sizeof changed) != 0;
    if (atomic_load(&j->lost)) {
        logmsg("job %s: lease lost; result discarded", j->q.id);
        j->outcome = "lost";
        runner_report_free(rep);
        return NULL;
    }
    if (rc == 0 && rep && copy_changed) {
        /* never a verdict from a copy that differs: judged again later,
         * from a copy hashed (or fetched) again */
        runner_report_free(rep);
        char why[1200];
        snprintf(why, sizeof why, "problem %s: %s; verdict discarded", j->q.problem, changed);
        job_infra_failure(k, j, why);
        return NULL;
    }
    if (rc == 0 && rep) {
        /* stored as the runner wrote it: the result's readers compose
         * around it (jd_result_json) and never rewrite it */
        j->report = runner_report_json(rep);
        report_times(j, rep);
        j->score = runner_report_score(rep);
        snprintf(j->verdict, sizeof j->verdict, "%s", runner_verdict_name(runner_report_verdict(rep)));
        runner_report_free(rep);
        return publish(k, j);
    }
    runner_report_free(rep);
    if (failure == RUNNER_FAILURE_ABORTED || atomic_load(&j->abort)) {
        j->outcome = "aborted";
        if (atomic_load(&j->abort)) {
            j->outcome = "given_back";
            struct job *one[1] = {j};
            jobs_give_back(k, p, one, 1, cfg->lease_ms);
            logmsg("job %s: stopped by shutdown; given back", j->q.id);
        }
        return NULL;
    }
    job_infra_failure(k, j, err[0] ? err : "runner failed");
    return NULL;
}

void *worker(void *arg)
{
    struct pool *p = arg;
    struct queue_conn k;
    struct snapshot *s = snapshot_get();
    queue_conn_init(&k, judged.redis_url, s->cfg.lease_ms + 5000);
    snapshot_put(s);
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
        j->next = NULL;
        p->running++;
        pthread_mutex_unlock(&p->mu);

        while (j) {
            j->snap = snapshot_get(); /* the job keeps this configuration to the end */
            struct job *next = run_job(&k, j);
            log_job(j); /* the job's one line, whatever its outcome */
            metrics_job(&judged.metrics, j);
            pthread_mutex_lock(&p->mu);
            p->running--;
            pool_unhold(p, j);
            pthread_mutex_unlock(&p->mu);
            job_free(j);
            j = next;
        }
    }
    queue_conn_close(&k);
    return NULL;
}
