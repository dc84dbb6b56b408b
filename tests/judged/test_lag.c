/* test_lag.c - the consumer group's lag, as XINFO GROUPS reports it, stays
 * known and equal to the true backlog (entries after the group's
 * last-delivered id) through everything the queue library does to a pool's
 * stream: admission, claims, finishes out of order, a retry's give-back, a
 * dead letter, the promotion of a due retry, a requeue and a drop of dead
 * letters, a claim of a finished submission's stale entry. That lag is
 * what an autoscaler reads (KEDA's redis-streams scaler; judge-api's
 * judged_queue_lag). Redis reports it as unknown (nil) once an entry the
 * group has read is deleted from the middle of the stream: library
 * versions before 11 deleted each finished entry (XDEL), and a finish of
 * the newest claimed entry while an older one still ran made the lag nil
 * (the out-of-order step below fails with that scheme). A real
 * redis-server; the queue library's functions as judged calls them. */
/* the harness is shared with the process-level suites; this one uses its
 * redis-server only */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "harness.h"
#include "queue.h"

#define POOL "lagpool"
#define HOST "lag-host"

static struct queue_conn K;

static void setup(void)
{
    t_setup_dir();
    t_start_redis();
    char url[400], err[512];
    snprintf(url, sizeof url, "unix://%s", T_sock);
    queue_conn_init(&K, url, 5000);
    cr_assert_eq(queue_ensure_groups(&K, POOL, err, sizeof err), QUEUE_OK, "%s", err);
}

static void teardown(void)
{
    queue_conn_close(&K);
    t_teardown();
}

TestSuite(lag, .init = setup, .fini = teardown, .timeout = 120);

/* In one step on the server (a script: nothing moves in between): the
 * group's lag (-1: nil) and the entries after its last-delivered id. */
static const char sample_script[] =
    "local lag, last = -1, '0-0' "
    "for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do "
    "  local t = {} for i = 1, #g, 2 do t[g[i]] = g[i + 1] end "
    "  if t.name == 'judged' then lag = t.lag or -1 last = t['last-delivered-id'] end "
    "end "
    "return {lag, #redis.call('XRANGE', KEYS[1], '(' .. last, '+')}";

/* asserts the lag is known and is the backlog, which must be `want` */
static void lag_is(long long want, const char *step)
{
    char key[200];
    queue_key(key, sizeof key, POOL, "q:normal");
    redisReply *r = queue_cmd(&K, "EVAL %s 1 %s", sample_script, key);
    cr_assert(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2, "%s: no sample (%s)", step, K.err);
    long long lag = r->element[0]->integer, backlog = r->element[1]->integer;
    freeReplyObject(r);
    cr_assert_neq(lag, -1, "%s: XINFO GROUPS says the lag is unknown (nil); backlog %lld", step, backlog);
    cr_assert_eq(lag, backlog, "%s: lag %lld, backlog %lld", step, lag, backlog);
    cr_assert_eq(backlog, want, "%s: backlog %lld, expected %lld", step, backlog, want);
    struct queue_pool_status s;
    char err[512];
    cr_assert_eq(queue_pool_status(&K, POOL, &s, err, sizeof err), QUEUE_OK, "%s", err);
    cr_assert_eq(s.lag[QUEUE_NORMAL], want, "%s: judgectl/judge-api would show lag %lld", step,
                 s.lag[QUEUE_NORMAL]);
    cr_assert_eq(s.waiting[QUEUE_NORMAL], want, "%s: waiting %lld", step, s.waiting[QUEUE_NORMAL]);
}

static void admit(int n)
{
    for (int i = 0; i < n; i++) {
        struct queue_admit_args a = {.pool = POOL, .lang = "c", .problem = "aplusb", .source = "int main;",
                                     .source_len = 9, .max_queue = 0, .max_source = 0};
        struct queue_admit_reply r;
        char err[512];
        cr_assert_eq(queue_admit(&K, &a, &r, err, sizeof err), QUEUE_OK, "%s", err);
    }
}

/* claims n new jobs into jobs[] (the caller frees them with the reply) */
static struct queue_claim_reply claim(int n)
{
    struct queue_claim_args a = {.pool = POOL, .host = HOST, .count = n, .from = {">", ">"}};
    struct queue_claim_reply r;
    char err[512];
    cr_assert_eq(queue_claim(&K, &a, &r, err, sizeof err), QUEUE_OK, "%s", err);
    cr_assert_eq(r.njobs, n, "claimed %d of %d", r.njobs, n);
    return r;
}

static void finish(const struct queue_job *j)
{
    struct queue_finish_args a = {.pool = POOL, .host = HOST, .queue = j->queue, .entry = j->entry,
                                  .id = j->id, .verdict = "AC", .score = 100, .report = "{}",
                                  .results_max = 1000};
    struct queue_finish_reply r;
    char err[512];
    cr_assert_eq(queue_finish(&K, &a, &r, err, sizeof err), QUEUE_OK, "%s", err);
    cr_assert_eq(r.result, QUEUE_FINISH_PUBLISHED);
}

/* the first dead letter's stream entry id */
static void first_dead_letter(char *entry, size_t len)
{
    char key[200];
    queue_key(key, sizeof key, POOL, "dlq");
    redisReply *r = queue_cmd(&K, "XRANGE %s - + COUNT 1", key);
    cr_assert(r && r->type == REDIS_REPLY_ARRAY && r->elements == 1, "no dead letter");
    snprintf(entry, len, "%s", r->element[0]->element[0]->str);
    freeReplyObject(r);
}

Test(lag, stays_known_and_exact_through_every_operation)
{
    char err[512];
    admit(6);
    lag_is(6, "after 6 admissions");
    struct queue_claim_reply c = claim(3);
    lag_is(3, "after a claim of 3");
    /* the newest claimed entry ends first, the older two still run: the
     * step that made the lag nil when finished entries were XDELed */
    finish(&c.jobs[2]);
    lag_is(3, "after the newest claimed job finished first");
    struct queue_retry_args ra = {.pool = POOL, .host = HOST, .queue = c.jobs[0].queue,
                                  .entry = c.jobs[0].entry, .id = c.jobs[0].id, .reason = "test",
                                  .max_attempts = 3, .delay_ms = 0, .results_max = 1000};
    struct queue_retry_reply rr;
    cr_assert_eq(queue_retry(&K, &ra, &rr, err, sizeof err), QUEUE_OK, "%s", err);
    cr_assert_eq(rr.result, QUEUE_RETRY_SCHEDULED);
    lag_is(3, "after a retry gave the oldest back");
    struct queue_dead_args da = {.pool = POOL, .host = HOST, .queue = c.jobs[1].queue,
                                 .entry = c.jobs[1].entry, .id = c.jobs[1].id, .reason = "test",
                                 .results_max = 1000};
    bool dead = false;
    cr_assert_eq(queue_dead_letter(&K, &da, &dead, err, sizeof err), QUEUE_OK, "%s", err);
    cr_assert(dead);
    lag_is(3, "after a dead letter");
    int moved = 0;
    for (int i = 0; i < 50 && !moved; i++) {   /* due at once (delay 0) */
        cr_assert_eq(queue_promote(&K, POOL, 10, &moved), QUEUE_OK);
        if (!moved)
            t_sleep_ms(20);
    }
    cr_assert_eq(moved, 1, "the retry was not promoted");
    lag_is(4, "after the retry came back");
    char entry[64], id[200];
    first_dead_letter(entry, sizeof entry);
    cr_assert_eq(queue_requeue(&K, POOL, entry, id, sizeof id, err, sizeof err), QUEUE_OK, "%s", err);
    lag_is(5, "after a requeue of the dead letter");
    queue_claim_reply_free(&c);

    /* all five claimed, finished newest first */
    c = claim(5);
    lag_is(0, "after a claim of all");
    for (int i = 4; i >= 0; i--) {
        finish(&c.jobs[i]);
        lag_is(0, "while the claimed ones finish newest first");
    }
    queue_claim_reply_free(&c);

    /* a dead letter dropped; the stream emptied: still known */
    admit(1);
    c = claim(1);
    cr_assert_eq(queue_dead_letter(&K, &(struct queue_dead_args){.pool = POOL, .host = HOST,
                                       .queue = c.jobs[0].queue, .entry = c.jobs[0].entry,
                                       .id = c.jobs[0].id, .reason = "test", .results_max = 1000},
                                   &dead, err, sizeof err), QUEUE_OK, "%s", err);
    first_dead_letter(entry, sizeof entry);
    cr_assert_eq(queue_dlq_drop(&K, POOL, entry, err, sizeof err), QUEUE_OK, "%s", err);
    lag_is(0, "after a dead letter was dropped");
    queue_claim_reply_free(&c);
    /* entries that ended behind an older one go with the next job's end */
    admit(1);
    c = claim(1);
    finish(&c.jobs[0]);
    queue_claim_reply_free(&c);
    lag_is(0, "after one more job");
    char key[200];
    queue_key(key, sizeof key, POOL, "q:normal");
    redisReply *r = queue_cmd(&K, "XLEN %s", key);
    cr_assert_eq(r->integer, 0, "ended entries left in the stream: %lld", r->integer);
    freeReplyObject(r);
}

/* The finished entries behind a running one stay until it ends; the
 * figures count only what waits and runs (admission's max_queue too). */
Test(lag, finished_entries_behind_a_running_one_are_not_counted)
{
    admit(4);
    struct queue_claim_reply c = claim(4);
    for (int i = 1; i < 4; i++)
        finish(&c.jobs[i]);
    admit(2);
    lag_is(2, "two new behind one running and three finished");
    struct queue_pool_status s;
    char err[512];
    cr_assert_eq(queue_pool_status(&K, POOL, &s, err, sizeof err), QUEUE_OK, "%s", err);
    cr_assert_eq(s.running, 1);
    /* max_queue 4: one runs and two wait, so one more is admitted and the
     * next is busy with 4 (XLEN would say 7: three finished entries are
     * still in the stream behind the running one) */
    struct queue_admit_args a = {.pool = POOL, .lang = "c", .problem = "aplusb", .source = "int main;",
                                 .source_len = 9, .max_queue = 4, .max_source = 0};
    struct queue_admit_reply r;
    cr_assert_eq(queue_admit(&K, &a, &r, err, sizeof err), QUEUE_OK, "%s", err);
    cr_assert_eq(r.result, QUEUE_ADMITTED, "refused with %lld in the queue", r.waiting);
    cr_assert_eq(queue_admit(&K, &a, &r, err, sizeof err), QUEUE_OK, "%s", err);
    cr_assert_eq(r.result, QUEUE_BUSY, "a fifth admitted over max_queue 4");
    cr_assert_eq(r.waiting, 4);
    finish(&c.jobs[0]);
    queue_claim_reply_free(&c);
    lag_is(3, "after the running one ended");
}
