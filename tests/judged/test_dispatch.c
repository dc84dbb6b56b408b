/* test_dispatch.c - judged and judgectl against a real redis-server and the
 * real runner: admission, crashes, leases, shutdown, Redis faults, poison,
 * drain, backpressure, pool isolation. Short leases (2s, heartbeat 500ms). */
#include "harness.h"

#define AC_C SRC "/testdata/aplusb/solutions/ac.c"
#define AC_JAVA SRC "/testdata/aplusb/solutions/ac.java"

static char slow_src[400];

static void setup8(void)
{
    t_setup(8);
    snprintf(slow_src, sizeof slow_src, "%s/slow.c", T_dir);
}

TestSuite(dispatch, .init = setup8, .fini = t_teardown, .timeout = 90);

static bool contains(const char *hay, const char *needle)
{
    return hay && strstr(hay, needle);
}

Test(dispatch, submit_result_and_duplicate_keys)
{
    char cfg[400], id1[160], id2[160], out[65536];
    t_config("A", 600, NULL, POOLS_DEFAULT, cfg, sizeof cfg);
    t_judged(cfg, "A");
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, "k-1", NULL, id1, sizeof id1), 0);
    cr_assert(!strncmp(id1, "native-", 7), "id '%s' carries its pool", id1);
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, "k-1", NULL, id2, sizeof id2), 0);
    cr_assert_str_eq(id1, id2, "same key, same id");
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "result", id1, "--wait", "30", "--json", NULL), 0);
    cr_assert(contains(out, "\"state\":\"done\""), "%s", out);
    cr_assert(contains(out, "\"verdict\":\"AC\""), "%s", out);
    cr_assert(contains(out, "\"tests\":["), "%s", out);
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, "k-1", NULL, id2, sizeof id2), 0);
    cr_assert_str_eq(id1, id2);
    t_sleep_ms(300);
    cr_assert_eq(t_events("native", id1), 1);
    cr_assert_eq(t_events("native", NULL), 1, "a duplicate admits nothing");
    /* a user failure is a verdict, never retried */
    char ce[400], id3[160];
    snprintf(ce, sizeof ce, "%s/ce.c", T_dir);
    t_write(ce, "int main(void) { return syntax error; }\n");
    cr_assert_eq(t_submit(cfg, "aplusb", "c", ce, NULL, NULL, id3, sizeof id3), 0);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "result", id3, "--wait", "30", "--json", NULL), 0);
    cr_assert(contains(out, "\"verdict\":\"CE\""), "%s", out);
    cr_assert(contains(out, "\"attempts\":1"), "judged once: %s", out);
    /* admission checks */
    cr_assert_neq(t_submit(cfg, "aplusb", "brainfuck", AC_C, NULL, NULL, id2, sizeof id2), 0);
    cr_assert_neq(t_submit(cfg, "nosuchproblem", "c", AC_C, NULL, NULL, id2, sizeof id2), 0);
    cr_assert_neq(t_submit(cfg, "../etc", "c", AC_C, NULL, NULL, id2, sizeof id2), 0);
    /* events as JSON lines with ids */
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "events", NULL), 0);
    cr_assert(contains(out, id1) && contains(out, id3), "%s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "hosts", "--json", NULL), 0);
    cr_assert(contains(out, "\"host\":\"A\"") && contains(out, "\"alive\":true"), "%s", out);
    static const char *cmds[] = {"submit", "result", "events", "pools", "drain",
                                 "pause", "resume", "dlq", "hosts"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        cr_assert_eq(t_ctl(out, sizeof out, cfg, cmds[i], "--help", NULL), 0, "%s --help", cmds[i]);
        cr_assert(contains(out, "usage: judgectl"), "%s --help: %s", cmds[i], out);
    }
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "result", "native-0-nosuch", NULL), 66, "not found");
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "pause", "nosuchpool", NULL), 66, "not found");
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "submit", "--problem", "aplusb", NULL), 64, "bad usage");
}

Test(dispatch, backpressure_and_contest_priority)
{
    char cfg[400], id[160], ids[4][160], out[65536];
    t_config("A", 600, NULL,
             "  native: {languages: [c, cpp], slots: 1, max_queue: 3}\n"
             "  java: {languages: [java], slots: 1}\n",
             cfg, sizeof cfg);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "pause", "native", NULL), 0);
    for (int i = 0; i < 2; i++)
        cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, "normal", ids[i], sizeof ids[i]), 0);
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, "contest", ids[2], sizeof ids[2]), 0);
    cr_assert_neq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0,
                  "the 4th submission is refused: busy");
    cr_assert_str_eq(id, "", "nothing printed when busy");
    cr_assert_eq(t_int("XLEN judge:{native}:q:normal") + t_int("XLEN judge:{native}:q:contest"), 3);
    /* other pools are not affected */
    cr_assert_eq(t_submit(cfg, "aplusb", "java", AC_JAVA, NULL, NULL, id, sizeof id), 0);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "pools", "--json", NULL), 0);
    cr_assert(contains(out, "\"name\":\"native\",\"state\":\"paused\""), "%s", out);
    cr_assert(contains(out, "\"depth\":3"), "%s", out);

    t_judged(cfg, "A");
    t_sleep_ms(800);
    cr_assert(t_state_is(ids[0], "queued"), "paused: nothing is claimed");
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "resume", "native", NULL), 0);
    for (int i = 0; i < 3; i++)
        cr_assert(t_wait_state(ids[i], "done", 30000));
    /* contest first, then normal in order */
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "events", NULL), 0);
    char *c = strstr(out, ids[2]), *a = strstr(out, ids[0]), *b = strstr(out, ids[1]);
    cr_assert(c && a && b && c < a && a < b, "contest first: %s", out);
}

/* Jobs of work queue KEY still waiting or running: the group's lag plus its
 * pending entries. Not XLEN: an entry finished while an older one still ran
 * (two slots dead-letter at once) stays in the stream, acknowledged, until a
 * later release trims past it (judged.lua, release); XLEN == 0 failed when
 * the poison entries were dead-lettered out of order. */
static long long backlog(const char *key)
{
    return t_int("EVAL %s 1 %s",
                 "local n = 0 for _, g in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do "
                 "local t = {} for i = 1, #g, 2 do t[g[i]] = g[i + 1] end "
                 "n = n + (t.lag or 1000000) + t.pending end return n",
                 key);
}

Test(dispatch, poison_entries_are_dead_lettered_once)
{
    char cfg[400], id[160], out[65536];
    t_config("A", 600, NULL, POOLS_DEFAULT, cfg, sizeof cfg);
    t_judged(cfg, "A");
    redisContext *c = t_redis();
    freeReplyObject(redisCommand(c, "XADD judge:{native}:q:normal * foo bar"));
    freeReplyObject(redisCommand(c, "XADD judge:{native}:q:normal * id native-0-nosuch"));
    freeReplyObject(redisCommand(c, "XADD judge:{native}:q:normal * id python-1-2"));
    freeReplyObject(redisCommand(c, "XADD judge:{native}:q:contest * id %s", ""));
    redisFree(c);
    long long end = t_now_ms() + 10000;
    while (t_now_ms() < end && t_int("XLEN judge:{native}:dlq") < 4)
        t_sleep_ms(50);
    cr_assert_eq(t_int("XLEN judge:{native}:dlq"), 4);
    cr_assert_eq(backlog("judge:{native}:q:normal"), 0);
    cr_assert_eq(backlog("judge:{native}:q:contest"), 0);
    /* the daemon still judges */
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0);
    cr_assert(t_wait_state(id, "done", 30000));
    t_sleep_ms(1000);
    cr_assert_eq(t_int("XLEN judge:{native}:dlq"), 4, "never retried in a loop");
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "dlq", "list", "--json", NULL), 0);
    cr_assert(contains(out, "poison") && contains(out, "\"fields\":{\"foo\":\"bar\"}"), "%s", out);
    char entry[64] = "";
    const char *e = strstr(out, "\"entry\":\"");
    cr_assert(e);
    sscanf(e + 9, "%63[^\"]", entry);
    cr_assert_neq(t_ctl(out, sizeof out, cfg, "dlq", "requeue", entry, NULL), 0,
                  "a poison entry cannot be requeued");
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "dlq", "drop", entry, NULL), 0);
    cr_assert_eq(t_int("XLEN judge:{native}:dlq"), 3);
}

Test(dispatch, infrastructure_failures_retry_then_dead_letter_with_IE)
{
    char cfg[400], id[160], out[65536], p[400];
    t_config("A", 600, "max_attempts: 3\n", POOLS_DEFAULT, cfg, sizeof cfg);
    snprintf(p, sizeof p, "%s/problems/vanish", T_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/problems/vanish/problem.yaml", T_dir);
    t_write(p, "name: vanish\ntime_limit: 1s\nmemory_limit: 64M\nchecker: tokens\n");
    cr_assert_eq(t_submit(cfg, "vanish", "c", AC_C, NULL, NULL, id, sizeof id), 0);
    unlink(p); /* test data gone after admission: an infrastructure failure */
    t_judged(cfg, "A");
    cr_assert(t_wait_state(id, "done", 30000));
    char *v = t_hget(id, "verdict"), *a = t_hget(id, "attempts");
    cr_assert_str_eq(v, "IE");
    cr_assert_str_eq(a, "3");
    free(v);
    free(a);
    cr_assert_eq(t_events("native", id), 1);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "dlq", "list", "--json", NULL), 0);
    cr_assert(contains(out, id) && contains(out, "\"attempts\":3") && contains(out, "problem.yaml"),
              "%s", out);
    cr_assert(contains(out, "\"history\":[{"), "%s", out);
    /* its result says why, in the shape of any other result */
    char res[8192];
    cr_assert_eq(t_ctl(res, sizeof res, cfg, "result", id, "--json", NULL), 0);
    cr_assert(contains(res, "\"verdict\":\"IE\"") && contains(res, "\"tests\":[]") &&
              contains(res, "\"compile\":null"), "%s", res);
    cr_assert(contains(res, "\"message\":\"") && contains(res, "problem.yaml"), "%s", res);
    cr_assert(contains(res, "\"attempts\":3"), "three failed judgings, none gave the verdict: %s", res);
    char *rep = t_hget(id, "report");
    cr_assert(rep && contains(rep, "\"tests\":[]") && contains(rep, "\"message\":"),
              "a dead letter's stored report has the runner's shape: %s", rep);
    free(rep);
    /* requeue after fixing the package: judged again */
    t_write(p, "name: vanish\ntime_limit: 1s\nmemory_limit: 64M\nchecker: tokens\n");
    snprintf(p, sizeof p, "%s/problems/vanish/tests", T_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/problems/vanish/tests/1.in", T_dir);
    t_write(p, "1 2\n");
    snprintf(p, sizeof p, "%s/problems/vanish/tests/1.out", T_dir);
    t_write(p, "3\n");
    char entry[64] = "";
    sscanf(strstr(out, "\"entry\":\"") + 9, "%63[^\"]", entry);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "dlq", "requeue", entry, NULL), 0);
    cr_assert(t_wait_state(id, "done", 30000));
    v = t_hget(id, "verdict");
    cr_assert_str_eq(v, "AC");
    free(v);
}

Test(dispatch, sigkill_mid_job_is_reclaimed_after_the_lease)
{
    char cfga[400], cfgb[400], id[160];
    t_config("A", 600, NULL, POOLS_DEFAULT, cfga, sizeof cfga);
    t_config("B", 620, NULL, POOLS_DEFAULT, cfgb, sizeof cfgb);
    pid_t a = t_judged(cfga, "A");
    cr_assert_eq(t_submit(cfga, "slow", "c", slow_src, NULL, NULL, id, sizeof id), 0);
    cr_assert(t_wait_state(id, "running", 10000));
    char *h = t_hget(id, "host");
    cr_assert_str_eq(h, "A");
    free(h);
    t_sleep_ms(500);
    /* judged and its box's keeper (a copy of it) are seen running */
    cr_assert_geq(t_leftovers(cfga), 2, "judged A and the keeper of its running box");
    t_stop(a, SIGKILL, 2000);
    long long killed = t_now_ms();
    /* nothing of A lives on: its box's keeper (and the program, in the
     * keeper's pid namespace) end when A's end of their socket closes */
    long long gone_by = t_now_ms() + 10000;
    while (t_leftovers(cfga) > 0 && t_now_ms() < gone_by)
        t_sleep_ms(50);
    cr_assert_eq(t_leftovers(cfga), 0, "processes of the killed judged are still running");
    t_judged(cfgb, "B");
    cr_assert(t_wait_state(id, "done", 30000));
    cr_assert_geq(t_now_ms() - killed, 1500, "taken over only after the lease");
    h = t_hget(id, "host");
    cr_assert_str_eq(h, "B");
    free(h);
    char *v = t_hget(id, "verdict");
    cr_assert_str_eq(v, "AC");
    free(v);
    t_sleep_ms(500);
    cr_assert_eq(t_events("native", id), 1, "one verdict, one event");
    cr_assert_eq(t_int("XLEN judge:{native}:q:normal"), 0);
    /* the dead host's consumer goes once nothing is pending for it */
    char out[65536];
    long long end = t_now_ms() + 10000;
    do {
        t_ctl(out, sizeof out, cfgb, "pools", "--json", NULL);
        if (contains(out, "\"consumers\":[\"B\"]"))
            break;
        t_sleep_ms(200);
    } while (t_now_ms() < end);
    cr_assert(contains(out, "\"name\":\"native\",\"state\":\"active\""), "%s", out);
    cr_assert(contains(out, "\"consumers\":[\"B\"]"), "%s", out);
    t_ctl(out, sizeof out, cfgb, "hosts", "--json", NULL);
    cr_assert(!contains(out, "\"host\":\"A\""), "dead host A forgotten: %s", out);
}

Test(dispatch, two_hosts_share_the_work_and_long_jobs_keep_their_lease)
{
    char cfga[400], cfgb[400], ids[6][160];
    const char *pools = "  native: {languages: [c, cpp], slots: 1}\n";
    t_config("A", 600, NULL, pools, cfga, sizeof cfga);
    t_config("B", 620, NULL, pools, cfgb, sizeof cfgb);
    t_judged(cfga, "A");
    t_judged(cfgb, "B");
    for (int i = 0; i < 4; i++)
        cr_assert_eq(t_submit(cfga, "slow", "c", slow_src, NULL, NULL, ids[i], sizeof ids[i]), 0);
    int by_a = 0, by_b = 0;
    for (int i = 0; i < 4; i++) {
        cr_assert(t_wait_state(ids[i], "done", 60000));
        char *h = t_hget(ids[i], "host"), *v = t_hget(ids[i], "verdict");
        cr_assert_str_eq(v, "AC");
        by_a += !strcmp(h, "A");
        by_b += !strcmp(h, "B");
        free(h);
        free(v);
    }
    cr_assert(by_a > 0 && by_b > 0, "both hosts judged (A %d, B %d)", by_a, by_b);
    t_sleep_ms(300);
    cr_assert_eq(t_events("native", NULL), 4, "a 2.4 s job under a 2 s lease is never stolen");
}

Test(dispatch, sigterm_lets_running_jobs_finish)
{
    char cfga[400], id[160];
    /* a grace far beyond the job's 2.4 s, and a wait beyond the grace: on a
     * loaded machine (CI under ThreadSanitizer) the compile and the run may
     * take many seconds, and that must not read as an unclean stop */
    t_config("A", 600, "grace: 120s\n", POOLS_DEFAULT, cfga, sizeof cfga);
    pid_t a = t_judged(cfga, "A");
    cr_assert_eq(t_submit(cfga, "slow", "c", slow_src, NULL, NULL, id, sizeof id), 0);
    cr_assert(t_wait_state(id, "running", 60000));
    int st = t_stop(a, SIGTERM, 180000);
    cr_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "clean exit");
    if (!t_state_is(id, "done")) {
        t_dump_logs();
        cr_assert_fail("the running job %s did not finish before exit", id);
    }
    cr_assert_eq(t_events("native", id), 1);
}

Test(dispatch, sigterm_past_grace_gives_jobs_back_without_an_attempt)
{
    char cfga[400], cfgb[400], id[160];
    t_config("A", 600, "grace: 300ms\n", POOLS_DEFAULT, cfga, sizeof cfga);
    t_config("B", 620, NULL, POOLS_DEFAULT, cfgb, sizeof cfgb);
    pid_t a = t_judged(cfga, "A");
    cr_assert_eq(t_submit(cfga, "slow", "c", slow_src, NULL, NULL, id, sizeof id), 0);
    cr_assert(t_wait_state(id, "running", 10000));
    t_sleep_ms(300);
    int st = t_stop(a, SIGTERM, 60000);
    cr_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    cr_assert(t_state_is(id, "queued"), "given back");
    /* read before B runs it: what B spends is not A's give-back */
    char *att = t_hget(id, "attempts");
    cr_assert_str_eq(att, "0", "no attempt spent");
    free(att);
    t_judged(cfgb, "B");
    cr_assert(t_wait_state(id, "done", 90000));
    char *h = t_hget(id, "host");
    cr_assert_str_eq(h, "B");
    free(h);
    cr_assert_eq(t_events("native", id), 1);
}

Test(dispatch, redis_killed_and_restarted_from_its_aof)
{
    char cfga[400], ids[5][160], out[4096];
    t_config("A", 600, NULL, POOLS_DEFAULT, cfga, sizeof cfga);
    pid_t a = t_judged(cfga, "A");
    cr_assert_eq(t_ctl(out, sizeof out, cfga, "pause", "native", NULL), 0);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(t_submit(cfga, "aplusb", "c", AC_C, NULL, NULL, ids[i], sizeof ids[i]), 0);
    t_sleep_ms(1500); /* appendfsync everysec */
    t_kill_redis(SIGKILL);
    t_sleep_ms(1000);
    t_start_redis();
    cr_assert_eq(t_ctl(out, sizeof out, cfga, "resume", "native", NULL), 0);
    for (int i = 0; i < 5; i++)
        cr_assert(t_wait_state(ids[i], "done", 30000), "%s survived the restart", ids[i]);
    t_sleep_ms(300);
    for (int i = 0; i < 5; i++)
        cr_assert_eq(t_events("native", ids[i]), 1);
    cr_assert_eq(waitpid(a, NULL, WNOHANG), 0, "judged survived");
}

Test(dispatch, redis_unreachable_for_10s, .timeout = 120)
{
    char cfga[400], id[160], id2[160];
    t_config("A", 600, NULL, POOLS_DEFAULT, cfga, sizeof cfga);
    pid_t a = t_judged(cfga, "A");
    cr_assert_eq(t_submit(cfga, "slow", "c", slow_src, NULL, NULL, id, sizeof id), 0);
    cr_assert(t_wait_state(id, "running", 10000));
    kill(T_redis, SIGSTOP); /* connections hang: timeouts, not refusals */
    t_sleep_ms(5000);
    kill(T_redis, SIGCONT);
    t_kill_redis(SIGTERM); /* then gone altogether (connections refused) */
    t_sleep_ms(5000);
    t_start_redis();
    cr_assert(t_wait_state(id, "done", 30000));
    cr_assert_eq(waitpid(a, NULL, WNOHANG), 0, "judged survived");
    cr_assert_eq(t_submit(cfga, "aplusb", "c", AC_C, NULL, NULL, id2, sizeof id2), 0);
    cr_assert(t_wait_state(id2, "done", 30000), "and judges again");
    t_sleep_ms(500);
    cr_assert_eq(t_events("native", id), 1);
    cr_assert_eq(t_events("native", id2), 1);
}

Test(dispatch, drain_waits_for_jobs_in_flight)
{
    char cfga[400], ids[3][160], out[65536];
    t_config("A", 600, NULL, POOLS_DEFAULT, cfga, sizeof cfga);
    t_judged(cfga, "A");
    for (int i = 0; i < 3; i++)
        cr_assert_eq(t_submit(cfga, "slow", "c", slow_src, NULL, NULL, ids[i], sizeof ids[i]), 0);
    cr_assert(t_wait_state(ids[0], "running", 10000));
    cr_assert(t_wait_state(ids[1], "running", 10000));
    cr_assert_eq(t_ctl(out, sizeof out, cfga, "drain", "native", "--wait=60", "--json", NULL), 0);
    /* nothing runs, but one job waits: "held", never "drained" */
    cr_assert(contains(out, "\"state\":\"held\""), "%s", out);
    cr_assert(t_state_is(ids[0], "done") && t_state_is(ids[1], "done"));
    cr_assert(t_state_is(ids[2], "queued"), "no new claims while draining");
    t_sleep_ms(1000);
    cr_assert(t_state_is(ids[2], "queued"));
    cr_assert_eq(t_ctl(out, sizeof out, cfga, "resume", "native", NULL), 0);
    cr_assert(t_wait_state(ids[2], "done", 30000));
}

Test(dispatch, pool_isolation_c_latency_under_a_java_flood)
{
    char cfga[400], jid[12][160], id[160], out[65536];
    t_config("A", 600, NULL, POOLS_DEFAULT, cfga, sizeof cfga);
    t_judged(cfga, "A");
    for (int i = 0; i < 12; i++)
        cr_assert_eq(t_submit(cfga, "aplusb", "java", AC_JAVA, NULL, NULL, jid[i], sizeof jid[i]), 0);
    cr_assert(t_wait_state(jid[0], "running", 10000));
    /* isolation is an order, not a duration (a busy machine slows both
     * pools alike): every C job is done while the java backlog still waits */
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(t_submit(cfga, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0);
        cr_assert(t_wait_state(id, "done", 60000));
        cr_assert_eq(t_ctl(out, sizeof out, cfga, "pools", "--json", NULL), 0);
        cr_assert(t_state_is(jid[11], "queued"), "C job %d waited for the java flood: %s", i, out);
    }
}

Test(dispatch, sighup_adds_a_pool)
{
    char cfga[400], id[160];
    t_config("A", 600, NULL, "  native: {languages: [c], slots: 1}\n", cfga, sizeof cfga);
    pid_t a = t_judged(cfga, "A");
    /* a SIGHUP before judged blocks it would end judged (the default action) */
    cr_assert(t_judged_started("A", 10000), "judged did not start");
    cr_assert_neq(t_submit(cfga, "aplusb", "cpp", SRC "/testdata/aplusb/solutions/ac.cpp", NULL,
                           NULL, id, sizeof id), 0, "no pool serves cpp yet");
    t_config("A", 600, NULL,
             "  native: {languages: [c], slots: 1}\n  cxx: {languages: [cpp], slots: 1}\n",
             cfga, sizeof cfga);
    kill(a, SIGHUP);
    cr_assert_eq(t_submit(cfga, "aplusb", "cpp", SRC "/testdata/aplusb/solutions/ac.cpp", NULL,
                          NULL, id, sizeof id), 0);
    cr_assert(!strncmp(id, "cxx-", 4), "%s", id);
    cr_assert(t_wait_state(id, "done", 30000));
    char *v = t_hget(id, "verdict");
    cr_assert_str_eq(v, "AC");
    free(v);
    cr_assert_eq(waitpid(a, NULL, WNOHANG), 0);
}

Test(dispatch, a_stalled_host_that_lost_its_lease_publishes_nothing)
{
    char cfga[400], cfgb[400], id[160];
    t_config("A", 600, NULL, POOLS_DEFAULT, cfga, sizeof cfga);
    t_config("B", 620, NULL, POOLS_DEFAULT, cfgb, sizeof cfgb);
    pid_t a = t_judged(cfga, "A");
    cr_assert_eq(t_submit(cfga, "slow", "c", slow_src, NULL, NULL, id, sizeof id), 0);
    cr_assert(t_wait_state(id, "running", 10000));
    kill(a, SIGSTOP); /* A keeps the job in hand but stops heartbeating */
    t_judged(cfgb, "B");
    long long end = t_now_ms() + 15000;
    char *h = NULL;
    while (t_now_ms() < end) {
        free(h);
        h = t_hget(id, "host");
        if (h && !strcmp(h, "B"))
            break;
        t_sleep_ms(50);
    }
    cr_assert_str_eq(h, "B", "B took the job over after the lease");
    free(h);
    kill(a, SIGCONT); /* A wakes up with a lost lease */
    cr_assert(t_wait_state(id, "done", 30000));
    t_sleep_ms(3000);
    cr_assert_eq(t_events("native", id), 1, "one event although two hosts ran it");
    h = t_hget(id, "host");
    cr_assert_str_eq(h, "B");
    free(h);
    char log[400], line[512];
    snprintf(log, sizeof log, "%s/judged-A.log", T_dir);
    FILE *f = fopen(log, "r");
    bool lost = false;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "lease lost"))
            lost = true;
    if (f)
        fclose(f);
    cr_assert(lost, "A noticed it lost the lease");
    cr_assert_eq(waitpid(a, NULL, WNOHANG), 0);
}

Test(dispatch, a_job_that_keeps_losing_its_host_is_dead_lettered)
{
    char cfga[400], id[160], out[65536];
    t_config("A", 600, "max_attempts: 2\n", POOLS_DEFAULT, cfga, sizeof cfga);
    cr_assert_eq(t_submit(cfga, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0);
    /* a "ghost" host claimed it and crashed, then others took it over and
     * crashed again and again: its delivery count is 5 */
    redisContext *c = t_redis();
    freeReplyObject(redisCommand(c, "XGROUP CREATE judge:{native}:q:normal judged 0 MKSTREAM"));
    redisReply *r = redisCommand(c, "XREADGROUP GROUP judged ghost COUNT 1 STREAMS judge:{native}:q:normal >");
    cr_assert(r && r->type == REDIS_REPLY_ARRAY);
    char eid[64];
    snprintf(eid, sizeof eid, "%s", r->element[0]->element[1]->element[0]->element[0]->str);
    freeReplyObject(r);
    for (int i = 0; i < 4; i++)
        freeReplyObject(redisCommand(c, "XCLAIM judge:{native}:q:normal judged ghost 0 %s", eid));
    redisFree(c);
    t_judged(cfga, "A");
    cr_assert(t_wait_state(id, "done", 15000));
    char *v = t_hget(id, "verdict");
    cr_assert_str_eq(v, "IE", "nobody waits forever");
    free(v);
    cr_assert_eq(t_events("native", id), 1);
    cr_assert_eq(t_ctl(out, sizeof out, cfga, "dlq", "list", "--json", NULL), 0);
    cr_assert(contains(out, "times without finishing") && contains(out, id), "%s", out);
}

Test(dispatch, consumer_group_and_scripts_vanishing_are_repaired)
{
    char cfga[400], id[160];
    t_config("A", 600, NULL, POOLS_DEFAULT, cfga, sizeof cfga);
    t_judged(cfga, "A");
    cr_assert_eq(t_submit(cfga, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0);
    cr_assert(t_wait_state(id, "done", 30000));
    redisContext *c = t_redis();
    freeReplyObject(redisCommand(c, "SCRIPT FLUSH"));
    freeReplyObject(redisCommand(c, "XGROUP DESTROY judge:{native}:q:normal judged"));
    freeReplyObject(redisCommand(c, "XGROUP DESTROY judge:{native}:q:contest judged"));
    redisFree(c);
    cr_assert_eq(t_submit(cfga, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0);
    cr_assert(t_wait_state(id, "done", 30000), "NOGROUP and NOSCRIPT handled");
    cr_assert_eq(t_events("native", id), 1);
}

Test(dispatch, embedded_redis_when_none_is_configured)
{
    char cfg[400], id[160], sock[400], out[4096];
    snprintf(cfg, sizeof cfg, "%s/embedded.yaml", T_dir);
    t_write(cfg,
            "state_dir: %s/emb\nproblems: %s/problems\nlanguages: %s/languages\nhost: E\n"
            "first_slot: 600\nlease: 2s\nheartbeat: 500ms\n"
            "pools:\n  native: {languages: [c], slots: 1}\n",
            T_dir, T_dir, SRC);
    snprintf(sock, sizeof sock, "%s/emb/redis/redis.sock", T_dir);
    pid_t e = t_judged(cfg, "E");
    struct stat st;
    for (int i = 0; i < 100 && t_ctl(out, sizeof out, cfg, "hosts", NULL) != 0; i++)
        t_sleep_ms(50); /* judged starts its redis-server */
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "result", id, "--wait", "30", NULL), 0);
    cr_assert(contains(out, "done AC"), "%s", out);
    cr_assert_eq(stat(sock, &st), 0, "socket under state_dir");
    char aof[400];
    snprintf(aof, sizeof aof, "%s/emb/redis/redis.conf", T_dir);
    FILE *f = fopen(aof, "r");
    char line[256];
    bool appendonly = false;
    while (f && fgets(line, sizeof line, f))
        if (!strcmp(line, "appendonly yes\n"))
            appendonly = true;
    if (f)
        fclose(f);
    cr_assert(appendonly);
    int rc = t_stop(e, SIGTERM, 60000);
    cr_assert(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    cr_assert_neq(t_ctl(out, sizeof out, cfg, "pools", NULL), 0, "its redis stopped with it");
}

Test(dispatch, a_restarted_host_first_resumes_its_own_pending_entries)
{
    char cfga[400], idc[160], idn[160];
    t_config("A", 600, NULL, POOLS_DEFAULT, cfga, sizeof cfga);
    pid_t a = t_judged(cfga, "A");
    cr_assert_eq(t_submit(cfga, "slow", "c", slow_src, NULL, "contest", idc, sizeof idc), 0);
    cr_assert_eq(t_submit(cfga, "slow", "c", slow_src, NULL, "normal", idn, sizeof idn), 0);
    cr_assert(t_wait_state(idc, "running", 10000));
    cr_assert(t_wait_state(idn, "running", 10000));
    t_stop(a, SIGKILL, 2000);
    t_judged(cfga, "A");
    cr_assert(t_wait_state(idc, "done", 30000));
    cr_assert(t_wait_state(idn, "done", 30000));
    t_sleep_ms(300);
    cr_assert_eq(t_events("native", idc), 1);
    cr_assert_eq(t_events("native", idn), 1);
    char log[400], line[512];
    snprintf(log, sizeof log, "%s/judged-A.log", T_dir);
    FILE *f = fopen(log, "r");
    int resumed = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "resumed 1 job(s) of a previous run"))
            resumed++;
    if (f)
        fclose(f);
    cr_assert_eq(resumed, 2, "one from each queue");
}

Test(dispatch, events_follow_prints_new_results_as_json_lines)
{
    char cfga[400], id[160], evlog[400];
    t_config("A", 600, NULL, POOLS_DEFAULT, cfga, sizeof cfga);
    t_judged(cfga, "A");
    snprintf(evlog, sizeof evlog, "%s/events.out", T_dir);
    pid_t ev = t_fork();
    if (ev == 0) {
        int fd = open(evlog, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 1);
        execl(BIN "/judgectl", "judgectl", "--config", cfga, "events", "--follow", "--json",
              (char *)NULL);
        _exit(127);
    }
    t_track(ev);
    t_sleep_ms(300);
    cr_assert_eq(t_submit(cfga, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0);
    char needle[200], buf[4096] = "";
    snprintf(needle, sizeof needle, "\"id\":\"%s\"", id);
    long long end = t_now_ms() + 20000;
    while (t_now_ms() < end && !strstr(buf, needle)) {
        t_sleep_ms(100);
        FILE *f = fopen(evlog, "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        buf[n] = 0;
        if (f)
            fclose(f);
    }
    cr_assert(strstr(buf, needle), "followed: %s", buf);
    cr_assert(strstr(buf, "\"verdict\":\"AC\""), "%s", buf);
    t_stop(ev, SIGTERM, 2000);
}
