/* test_ctl.c - judgectl as a script sees it (issue 13, "One consistent
 * CLI"): an exit status per failure class and, with --json, one error object
 * on stdout; global options before or after the command; --wait SECONDS and
 * --wait=SECONDS alike; health and hosts exit statuses with judged up and
 * killed; drain with a job waiting in the retry zset ("held", never
 * "drained"); dlq requeue by submission id; events --since and --follow
 * without replay; result --json's times; judge --problem NAME. Real
 * redis-server, judged, judgectl and runner; sandbox slots 780..840
 * (test_queue 860.., test_dispatch 600.., demo.sh 700..). */
/* the harness is shared with test_dispatch.c, which uses all of it */
#pragma GCC diagnostic ignored "-Wunused-function"
#include <jansson.h>
#include <poll.h>

#include "harness.h"

#define AC_C SRC "/testdata/aplusb/solutions/ac.c"
#define SLOT0 780
#define SLOT_LOCAL "830"   /* judgectl judge / problem push: 830 and 831 */

static char slow_src[400];

static void setup_ctl(void)
{
    t_setup(20);   /* "slow": 20 tests of 300 ms each */
    snprintf(slow_src, sizeof slow_src, "%s/slow.c", T_dir);
}

TestSuite(ctl, .init = setup_ctl, .fini = t_teardown, .timeout = 240);

/* judgectl ARGS... exactly as given (no --config added); stdout into out,
 * stderr dropped (the JSON error object is on stdout) */
static const struct t_run_opts quiet = {.err_null = true};
#define CTL(out, ...) t_ctlv(out, sizeof out, &quiet, (const char *const[]){__VA_ARGS__, NULL})

/* The one JSON document of out (the caller decrefs); fails the test if none. */
static json_t *parse(const char *out)
{
    json_error_t e;
    json_t *j = json_loads(out, 0, &e);
    cr_assert(j, "not one JSON document (%s): %s", e.text, out);
    return j;
}

/* out is {"error": {"code": CODE, "message": "...", "status": STATUS}} */
static void expect_error(const char *out, const char *code, int status)
{
    json_t *j = parse(out), *e = json_object_get(j, "error");
    cr_assert(json_is_object(e), "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(e, "code")), code, "%s", out);
    cr_assert_eq(json_integer_value(json_object_get(e, "status")), status, "%s", out);
    const char *m = json_string_value(json_object_get(e, "message"));
    cr_assert(m && *m, "a message: %s", out);
    json_decref(j);
}

static bool contains(const char *hay, const char *needle)
{
    return hay && strstr(hay, needle);
}

/* A sub-object's integer/string of the pool NAME in `pools --json` */
static json_t *pool_json(const char *cfg, const char *name)
{
    char out[16384];
    cr_assert_eq(CTL(out, "pools", "--json", "--config", cfg), 0, "%s", out);
    json_t *list = parse(out), *p;
    size_t i;
    json_array_foreach(list, i, p) if (!strcmp(json_string_value(json_object_get(p, "name")), name))
    {
        json_incref(p);
        json_decref(list);
        return p;
    }
    cr_assert_fail("no pool %s in %s", name, out);
    return NULL;
}

/* Exit status of `health` becomes want within ms (for judged starting or dying). */
static bool health_becomes(const char *cfg, int want, long ms, char *out, size_t outlen)
{
    for (long long end = t_now_ms() + ms; t_now_ms() < end; t_sleep_ms(100))
        if (t_ctlv(out, outlen, &quiet, (const char *const[]){"health", "--config", cfg, "--json", NULL}) == want)
            return true;
    return false;
}

Test(ctl, an_exit_status_and_a_json_error_per_failure_class)
{
    char cfg[400], out[8192], id[160], empty[400], sock[400], bad_cfg[400];
    t_config("A", SLOT0, NULL,
             "  native: {languages: [c], slots: 1, max_queue: 1}\n  python: {languages: [python3], slots: 1}\n", cfg,
             sizeof cfg);
    /* bad usage: 64, before the command or after it, with --json anywhere */
    cr_assert_eq(CTL(out, "--json", "--config", cfg, "submit", "--problem", "aplusb"), 64);
    expect_error(out, "usage", 64);
    cr_assert_eq(CTL(out, "submit", "--problem", "aplusb", "--config", cfg, "--json"), 64);
    expect_error(out, "usage", 64);
    cr_assert_eq(CTL(out, "result", "--bogus", "x", "--json"), 64);
    expect_error(out, "usage", 64);
    cr_assert_eq(CTL(out, "result", "x", "--wait=soon", "--json"), 64);
    expect_error(out, "usage", 64);
    cr_assert_eq(CTL(out, "--json", "frobnicate"), 64);
    expect_error(out, "usage", 64);
    cr_assert_eq(CTL(out, "frobnicate"), 64, "without --json: the message on stderr only");
    cr_assert_str_eq(out, "");
    /* the configuration: 78 */
    cr_assert_eq(CTL(out, "pools", "--json", "--config", "/nonexistent/judged.yaml"), 78);
    expect_error(out, "config", 78);
    /* bad input: 65 (a language no pool serves, an empty source) */
    cr_assert_eq(CTL(out, "submit", "--json", "--config", cfg, "--problem", "aplusb", "--lang", "brainfuck", AC_C),
                 65);
    expect_error(out, "bad_input", 65);
    snprintf(empty, sizeof empty, "%s/empty.c", T_dir);
    t_write(empty, "%s", "");
    cr_assert_eq(CTL(out, "submit", "--json", "--config", cfg, "--problem", "aplusb", "--lang", "c", empty), 65);
    expect_error(out, "bad_input", 65);
    /* not found: 66 */
    cr_assert_eq(CTL(out, "result", "native-0-nosuch", "--json", "--config", cfg), 66);
    expect_error(out, "not_found", 66);
    cr_assert_eq(CTL(out, "--config", cfg, "--json", "drain", "nosuchpool"), 66);
    expect_error(out, "not_found", 66);
    cr_assert_eq(CTL(out, "--config", cfg, "--json", "dlq", "requeue", "native-0-nosuch"), 66);
    expect_error(out, "not_found", 66);
    cr_assert_eq(CTL(out, "submit", "--json", "--config", cfg, "--problem", "nosuch", "--lang", "c", AC_C), 66);
    expect_error(out, "not_found", 66);
    cr_assert_eq(CTL(out, "submit", "--json", "--config", cfg, "--problem", "aplusb", "--lang", "c", "/nonexistent.c"),
                 66);
    expect_error(out, "not_found", 66);
    /* busy: 75 (no judged runs: the first job stays queued, max_queue 1) */
    cr_assert_eq(CTL(out, "submit", "--config", cfg, "--problem", "aplusb", "--lang", "c", AC_C), 0, "%s", out);
    snprintf(id, sizeof id, "%.*s", (int)strcspn(out, "\n"), out);
    cr_assert_eq(CTL(out, "submit", "--json", "--config", cfg, "--problem", "aplusb", "--lang", "c", AC_C), 75);
    expect_error(out, "busy", 75);
    /* timed out: 75, for --wait SECONDS and --wait=SECONDS alike */
    cr_assert_eq(CTL(out, "result", id, "--wait", "0.5", "--json", "--config", cfg), 75);
    expect_error(out, "timeout", 75);
    cr_assert_eq(CTL(out, "--json", "--config", cfg, "result", "--wait=0.5", id), 75);
    expect_error(out, "timeout", 75);
    cr_assert_eq(CTL(out, "result", id, "--config", cfg), 0, "without --wait: the state now");
    cr_assert(contains(out, "queued"), "%s", out);
    /* internal: 70 (a key of the wrong type) */
    cr_assert_eq(t_int("DEL judge:{python}:dlq"), 0);
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "SET judge:{python}:dlq oops");
    freeReplyObject(r);
    redisFree(c);
    cr_assert_eq(CTL(out, "dlq", "list", "python", "--json", "--config", cfg), 70);
    expect_error(out, "internal", 70);
    /* Redis unavailable: 69 */
    snprintf(sock, sizeof sock, "%s/nobody.sock", T_dir);
    snprintf(bad_cfg, sizeof bad_cfg, "%s/bad.yaml", T_dir);
    t_write(bad_cfg, "redis: unix://%s\nstate_dir: %s/s\nproblems: %s/problems\nlanguages: %s/languages\n"
                     "pools:\n  native: {languages: [c], slots: 1}\n", sock, T_dir, T_dir, SRC);
    cr_assert_eq(CTL(out, "pools", "--json", "--config", bad_cfg), 69);
    expect_error(out, "unavailable", 69);
    cr_assert_eq(CTL(out, "health", "--json", "--config", bad_cfg), 69);
    expect_error(out, "unavailable", 69);
    /* every command answers --help (exit 0), listing its options */
    static const char *cmds[] = {"judge", "languages", "problem", "submit", "result", "events", "pools", "health",
                                 "drain", "pause", "resume", "dlq", "hosts", "rejudge", "tokens"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        cr_assert_eq(CTL(out, cmds[i], "--help"), 0, "%s --help", cmds[i]);
        cr_assert(contains(out, "usage: judgectl"), "%s --help: %s", cmds[i], out);
    }
    cr_assert_eq(CTL(out, "--help"), 0);
    cr_assert(contains(out, "64") && contains(out, "75") && contains(out, "\"error\""), "the table: %s", out);
}

/* issue 37: one box per core. Six slots on two CPUs: judged refuses to
 * start, naming the way out; with oversubscribe: true it starts, and
 * health warns of it (still healthy: the operator chose it). */
Test(ctl, six_boxes_on_two_cpus_are_refused_unless_oversubscribed)
{
    char cfg[400], out[8192], log[400];
    const char *six = "  native: {languages: [c], slots: 6}\n";
    t_config("A", SLOT0, "cpus: 0-1\noversubscribe: false\n", six, cfg, sizeof cfg);
    pid_t a = t_judged(cfg, "A");
    int st = t_stop(a, 0, 20000);   /* signal 0: only waits for the exit */
    cr_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) != 0, "refused: status %d", st);
    snprintf(log, sizeof log, "%s/judged-A.log", T_dir);
    FILE *f = fopen(log, "r");
    cr_assert(f);
    size_t n = fread(out, 1, sizeof out - 1, f);
    fclose(f);
    out[n] = 0;
    cr_assert(contains(out, "the pools ask for 6 slots at once, but this host has 2 CPU(s)") &&
              contains(out, "oversubscribe: true"), "%s", out);
    /* a CPU judged may not run on: refused too, naming the line */
    t_config("A", SLOT0, "cpus: 1023\n", "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    cr_assert_eq(truncate(log, 0), 0);
    st = t_stop(t_judged(cfg, "A"), 0, 20000);
    cr_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) != 0, "refused: status %d", st);
    f = fopen(log, "r");
    cr_assert(f);
    n = fread(out, 1, sizeof out - 1, f);
    fclose(f);
    out[n] = 0;
    cr_assert(contains(out, "key 'cpus': CPU 1023 is not one judged may run on"), "%s", out);
    /* no pool says how many slots (the shipped judged.yaml): more pools
     * than cpus still get a box each, and judged starts, warned */
    t_config("A", SLOT0, "cpus: 0\noversubscribe: false\n",
             "  native: {languages: [c]}\n  python: {languages: [python3]}\n", cfg, sizeof cfg);
    cr_assert_eq(truncate(log, 0), 0);
    a = t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    f = fopen(log, "r");
    cr_assert(f);
    n = fread(out, 1, sizeof out - 1, f);
    fclose(f);
    out[n] = 0;
    cr_assert(contains(out, "2 slots on 1 CPU(s) (a slot for each pool that does not say how many)"), "%s", out);
    cr_assert_eq(WEXITSTATUS(t_stop(a, SIGTERM, 20000)), 0);
    t_config("A", SLOT0, "cpus: 0-1\n", six, cfg, sizeof cfg);
    a = t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    cr_assert(health_becomes(cfg, 0, 20000, out, sizeof out), "healthy: %s", out);
    cr_assert(contains(out, "runs 6 boxes on 2 CPU(s) (oversubscribe)"), "%s", out);
    cr_assert_eq(WEXITSTATUS(t_stop(a, SIGTERM, 20000)), 0);
}

Test(ctl, health_and_hosts_follow_judged_up_and_killed)
{
    char cfg[400], out[8192];
    t_config("A", SLOT0, NULL, "  native: {languages: [c], slots: 1}\n  python: {languages: [python3], slots: 1}\n",
             cfg, sizeof cfg);
    /* Redis answers, no host yet: unhealthy (1), each pool says so */
    cr_assert_eq(CTL(out, "health", "--json", "--config", cfg), 1, "%s", out);
    json_t *j = parse(out);
    cr_assert(json_is_false(json_object_get(j, "ok")) && json_is_true(json_object_get(j, "redis")), "%s", out);
    cr_assert_eq(json_array_size(json_object_get(j, "pools")), 2, "%s", out);
    json_decref(j);
    cr_assert_eq(CTL(out, "hosts", "--config", cfg), 0, "no host registered: none is dead");
    pid_t a = t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    cr_assert(health_becomes(cfg, 0, 20000, out, sizeof out), "healthy once judged heartbeats: %s", out);
    j = parse(out);
    cr_assert(json_is_true(json_object_get(j, "ok")), "%s", out);
    json_t *p = json_array_get(json_object_get(j, "pools"), 0);
    cr_assert(json_is_true(json_object_get(p, "ok")) && json_integer_value(json_object_get(p, "slots")) == 1,
              "%s", out);
    json_decref(j);
    cr_assert_eq(CTL(out, "--config", cfg, "health"), 0, "%s", out);
    cr_assert(contains(out, "healthy"), "%s", out);
    /* issue 26: a paused pool with work waiting said healthy; it names the
     * pool, why and the oldest wait now, and is healthy again on resume */
    char id[128];
    cr_assert_eq(CTL(out, "pause", "native", "--config", cfg), 0, "%s", out);
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0);
    cr_assert_eq(CTL(out, "--config", cfg, "health"), 1, "%s", out);
    cr_assert(contains(out, "pool native: paused with 1 submission(s) waiting, the oldest for "), "%s", out);
    cr_assert(contains(out, "pool python: ok"), "%s", out);
    cr_assert_eq(CTL(out, "resume", "native", "--config", cfg), 0, "%s", out);
    cr_assert(health_becomes(cfg, 0, 60000, out, sizeof out), "healthy once resumed: %s", out);
    cr_assert_eq(CTL(out, "hosts", "--config", cfg), 0, "%s", out);
    /* killed: its heartbeat expires; unhealthy, and hosts names the dead host */
    kill(a, SIGKILL);
    waitpid(a, NULL, 0);
    t_untrack(a);
    cr_assert(health_becomes(cfg, 1, 20000, out, sizeof out), "unhealthy once the heartbeat expired: %s", out);
    cr_assert_eq(CTL(out, "hosts", "--json", "--config", cfg), 1, "a registered host is not alive: %s", out);
    cr_assert(contains(out, "\"alive\":false"), "%s", out);
    /* Redis gone: 69 */
    t_kill_redis(SIGKILL);
    cr_assert_eq(CTL(out, "health", "--config", cfg, "--json"), 69, "%s", out);
    expect_error(out, "unavailable", 69);
    cr_assert_eq(CTL(out, "hosts", "--config", cfg), 69);
}

/* Admits a submission for problem "gone" (a link to aplusb), then removes
 * the link: judging it fails for an infrastructure reason (the problem
 * directory is missing), not for anything the submission did. */
static void submit_then_remove_its_problem(const char *cfg, char *gone, size_t gonelen, char *id, size_t idlen)
{
    snprintf(gone, gonelen, "%s/problems/gone", T_dir);
    cr_assert_eq(symlink(SRC "/testdata/aplusb", gone), 0);
    cr_assert_eq(t_submit(cfg, "gone", "c", AC_C, NULL, NULL, id, idlen), 0);
    cr_assert_eq(unlink(gone), 0);
}

/* A job that fails for an infrastructure reason (its problem directory is
 * gone) waits in the retry zset for retry_backoff (1h here): a draining
 * pool with it is "held", never "drained"; once nothing waits, "drained". */
Test(ctl, drain_with_a_job_waiting_to_retry_is_held_not_drained)
{
    char cfg[400], out[8192], id[160], gone[400];
    t_config("A", SLOT0, "retry_backoff: 1h\nmax_attempts: 3\n", "  native: {languages: [c], slots: 1}\n", cfg,
             sizeof cfg);
    submit_then_remove_its_problem(cfg, gone, sizeof gone, id, sizeof id);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    long long end = t_now_ms() + 30000;
    while (t_int("ZCARD judge:{native}:delayed") != 1 && t_now_ms() < end)
        t_sleep_ms(50);
    cr_assert_eq(t_int("ZCARD judge:{native}:delayed"), 1, "the job waits to retry");
    /* --wait SECONDS, POOL after it: nothing runs, a job waits to retry */
    cr_assert_eq(CTL(out, "drain", "--wait", "30", "native", "--json", "--config", cfg), 0, "%s", out);
    json_t *j = parse(out);
    cr_assert_str_eq(json_string_value(json_object_get(j, "state")), "held", "%s", out);
    cr_assert_eq(json_integer_value(json_object_get(j, "delayed")), 1, "%s", out);
    cr_assert_eq(json_integer_value(json_object_get(j, "running")), 0, "%s", out);
    json_decref(j);
    cr_assert_eq(CTL(out, "pools", "--config", cfg), 0);
    cr_assert(contains(out, "held") && !contains(out, "drained"), "%s", out);
    /* nothing waits any more: drained (--wait=SECONDS this time) */
    cr_assert_eq(t_int("ZREM judge:{native}:delayed %s", id), 1);
    cr_assert_eq(CTL(out, "--json", "drain", "native", "--wait=30", "--config", cfg), 0, "%s", out);
    cr_assert(contains(out, "\"state\":\"drained\""), "%s", out);
    cr_assert_eq(CTL(out, "resume", "native", "--config", cfg), 0);
    cr_assert(contains(out, "native active"), "%s", out);
}

Test(ctl, drain_wait_times_out_while_a_job_runs)
{
    char cfg[400], out[8192], id[160];
    t_config("A", SLOT0, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    /* 20 tests of 300 ms each: it runs for 6 s at least */
    cr_assert_eq(t_submit(cfg, "slow", "c", slow_src, NULL, NULL, id, sizeof id), 0);
    cr_assert(t_wait_state(id, "running", 30000));
    cr_assert_eq(CTL(out, "drain", "native", "--wait=0.5", "--json", "--config", cfg), 75, "%s", out);
    expect_error(out, "timeout", 75);
    cr_assert_eq(CTL(out, "pools", "--json", "--config", cfg), 0);
    cr_assert(contains(out, "\"state\":\"draining\""), "%s", out);
    cr_assert_eq(CTL(out, "drain", "native", "--wait", "--config", cfg), 0, "a bare --wait: no limit");
    cr_assert(contains(out, "native drained"), "%s", out);
    cr_assert(t_state_is(id, "done"));
}

/* max_attempts 1: a job whose problem directory is gone is dead-lettered
 * at once; `dlq requeue` takes its submission id as well as the entry id. */
Test(ctl, dlq_requeue_by_submission_id)
{
    char cfg[400], out[8192], id[160], gone[400];
    t_config("A", SLOT0, "max_attempts: 1\n", "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    submit_then_remove_its_problem(cfg, gone, sizeof gone, id, sizeof id);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    long long end = t_now_ms() + 30000;
    while (t_int("XLEN judge:{native}:dlq") != 1 && t_now_ms() < end)
        t_sleep_ms(50);
    cr_assert_eq(t_int("XLEN judge:{native}:dlq"), 1, "dead-lettered");
    cr_assert_eq(CTL(out, "dlq", "list", "--json", "--config", cfg), 0);
    cr_assert(contains(out, id), "%s", out);
    cr_assert_eq(symlink(SRC "/testdata/aplusb", gone), 0);
    cr_assert_eq(CTL(out, "--json", "--config", cfg, "dlq", "requeue", id), 0, "%s", out);
    json_t *j = parse(out);
    cr_assert_str_eq(json_string_value(json_object_get(j, "id")), id, "%s", out);
    json_decref(j);
    cr_assert_eq(t_int("XLEN judge:{native}:dlq"), 0, "the entry left the dead-letter stream");
    cr_assert(t_wait_state(id, "done", 30000));
    char *v = t_hget(id, "verdict");
    cr_assert_str_eq(v, "AC");
    free(v);
    cr_assert_eq(CTL(out, "dlq", "requeue", id, "--json", "--config", cfg), 66, "no dead letter now");
    expect_error(out, "not_found", 66);
}

/* issue 39: the shipped judged.yaml lists every language, and a host has
 * only some toolchains. One whose compiler is missing (with prepared files,
 * so the warm-up tries it) does not stop judged: the others are served,
 * `languages --check` names the missing program, and a submission in it is
 * an infrastructure failure, dead-lettered as IE after its attempts. */
Test(ctl, a_language_without_its_toolchain_does_not_stop_judged)
{
    char cfg[400], out[16384], langs[400], path[500], cmd[1200], id[160];
    snprintf(langs, sizeof langs, "%s/languages", T_dir);
    cr_assert_eq(mkdir(langs, 0755), 0);
    snprintf(cmd, sizeof cmd, "cp '%s/languages/c.yaml' '%s/'", SRC, langs);
    cr_assert_eq(system(cmd), 0);
    snprintf(path, sizeof path, "%s/gone.yaml", langs);
    t_write(path, "id: gone\nname: Gone\nversion: [/usr/bin/judged-no-such-compiler, --version]\n"
                  "source: main.gone\ncompile: [/usr/bin/judged-no-such-compiler, main.gone]\n"
                  "run: [./main]\nhello: x\n"
                  "prepare: {build: [/usr/bin/judged-no-such-compiler, --prepare]}\n");
    t_config("A", SLOT0, "prepare: true\nmax_attempts: 2\n", "  native: {languages: [c, gone], slots: 1}\n",
             cfg, sizeof cfg);
    snprintf(cmd, sizeof cmd, "sed -i 's|^languages: .*|languages: %s|' '%s'", langs, cfg);
    cr_assert_eq(system(cmd), 0);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 30000), "judged did not start");
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0, "%s", id);
    cr_assert(t_wait_state(id, "done", 60000));
    char *v = t_hget(id, "verdict");
    cr_assert_str_eq(v, "AC");
    free(v);
    cr_assert_neq(CTL(out, "languages", "--check", "--languages", langs, "--slot", SLOT_LOCAL), 0, "%s", out);
    cr_assert(contains(out, "gone") && contains(out, "cannot execute /usr/bin/judged-no-such-compiler"), "%s",
              out);
    snprintf(path, sizeof path, "%s/main.gone", T_dir);
    t_write(path, "x\n");
    cr_assert_eq(t_submit(cfg, "aplusb", "gone", path, NULL, NULL, id, sizeof id), 0, "%s", id);
    cr_assert(t_wait_state(id, "done", 60000));
    v = t_hget(id, "verdict");
    cr_assert_str_eq(v, "IE");
    free(v);
    cr_assert_eq(CTL(out, "dlq", "list", "--json", "--config", cfg), 0);
    cr_assert(contains(out, id) && contains(out, "judged-no-such-compiler"), "%s", out);
}

/* The first line judgectl writes to fd within ms, into buf; false if none. */
static bool read_line(int fd, char *buf, size_t len, long ms)
{
    size_t got = 0;
    for (long long end = t_now_ms() + ms; t_now_ms() < end && got + 1 < len;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 200) <= 0)
            continue;
        if (read(fd, buf + got, 1) != 1)
            break;
        if (buf[got++] == '\n')
            break;
    }
    buf[got] = 0;
    return got > 0 && buf[got - 1] == '\n';
}

Test(ctl, events_since_and_follow_without_replay_and_result_times)
{
    char cfg[400], out[16384], ids[3][160], first[64] = "", line[4096];
    t_config("A", SLOT0, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, ids[i], sizeof ids[i]), 0);
        cr_assert(t_wait_state(ids[i], "done", 30000));
    }
    /* result --json: times and the queue wait; --wait N and --wait=N alike */
    char a[8192], b[8192];
    cr_assert_eq(CTL(a, "result", ids[0], "--wait", "5", "--json", "--config", cfg), 0);
    cr_assert_eq(CTL(b, "--json", "result", "--wait=5", ids[0], "--config", cfg), 0);
    cr_assert_str_eq(a, b, "--wait 5 and --wait=5, options before or after: the same answer");
    json_t *j = parse(a);
    const char *created = json_string_value(json_object_get(j, "created")),
               *started = json_string_value(json_object_get(j, "started")),
               *finished = json_string_value(json_object_get(j, "finished"));
    /* ISO 8601 UTC: ordered as strings */
    cr_assert(created && started && finished, "%s", a);
    cr_assert(strcmp(created, started) <= 0 && strcmp(started, finished) <= 0, "%s", a);
    cr_assert(json_is_integer(json_object_get(j, "queue_wait_ms")), "%s", a);
    cr_assert_geq(json_integer_value(json_object_get(j, "queue_wait_ms")), 0, "%s", a);
    json_decref(j);
    /* not done yet: the times to come are null */
    char q[160];
    cr_assert_eq(CTL(a, "pause", "native", "--config", cfg), 0);
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, q, sizeof q), 0);
    cr_assert_eq(CTL(a, "result", q, "--json", "--config", cfg), 0);
    j = parse(a);
    cr_assert(json_is_string(json_object_get(j, "created")) && json_is_null(json_object_get(j, "started")) &&
              json_is_null(json_object_get(j, "queue_wait_ms")), "%s", a);
    json_decref(j);
    cr_assert_eq(CTL(a, "resume", "native", "--config", cfg), 0);
    cr_assert(t_wait_state(q, "done", 30000));
    /* events: all; --since the first: only the second */
    cr_assert_eq(CTL(out, "events", "--config", cfg), 0);
    cr_assert(contains(out, ids[0]) && contains(out, ids[1]), "%s", out);
    j = parse(strtok(out, "\n"));
    snprintf(first, sizeof first, "%s", json_string_value(json_object_get(j, "event")));
    json_decref(j);
    cr_assert_eq(CTL(out, "events", "--since", first, "--config", cfg), 0);
    cr_assert(!contains(out, ids[0]) && contains(out, ids[1]), "after %s: %s", first, out);
    cr_assert_eq(CTL(out, "events", "--since=99999999999999", "--config", cfg), 0);
    cr_assert_str_eq(out, "", "nothing after a time in the future");
    cr_assert_eq(CTL(out, "events", "--since", "yesterday", "--json", "--config", cfg), 64);
    expect_error(out, "usage", 64);
    /* --follow: only what is published from now on */
    int pfd[2];
    cr_assert(pipe(pfd) == 0);
    pid_t f = t_fork();
    if (f == 0) {
        dup2(pfd[1], 1);
        close(pfd[0]);
        close(pfd[1]);
        execl(BIN "/judgectl", "judgectl", "events", "--follow", "--config", cfg, (char *)NULL);
        _exit(127);
    }
    t_track(f);
    close(pfd[1]);
    /* the follower takes its cursor at start: wait until it blocks on Redis */
    for (long long end = t_now_ms() + 10000; t_now_ms() < end; t_sleep_ms(50)) {
        redisContext *c = t_redis();
        redisReply *r = redisCommand(c, "CLIENT LIST");
        bool blocked = r && r->type == REDIS_REPLY_STRING && strstr(r->str, "cmd=xread");
        if (r)
            freeReplyObject(r);
        redisFree(c);
        if (blocked)
            break;
    }
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, ids[2], sizeof ids[2]), 0);
    cr_assert(read_line(pfd[0], line, sizeof line, 30000), "an event within 30 s");
    cr_assert(contains(line, ids[2]), "the first line is the new event, nothing replayed: %s", line);
    kill(f, SIGKILL);
    waitpid(f, NULL, 0);
    t_untrack(f);
    close(pfd[0]);
}

Test(ctl, pools_show_the_age_of_the_oldest_waiting_job)
{
    char cfg[400], out[8192], id[160];
    t_config("A", SLOT0, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    json_t *p = pool_json(cfg, "native");
    cr_assert_eq(json_integer_value(json_object_get(p, "oldest_ms")), 0, "nothing waits");
    json_decref(p);
    /* no judged: the job waits */
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0);
    long long end = t_now_ms() + 10000, age = 0;
    while (age < 1000 && t_now_ms() < end) {
        t_sleep_ms(100);
        p = pool_json(cfg, "native");
        age = json_integer_value(json_object_get(p, "oldest_ms"));
        json_decref(p);
    }
    cr_assert_geq(age, 1000, "the oldest job has waited a second");
    cr_assert_eq(CTL(out, "pools", "--config", cfg), 0);
    cr_assert(contains(out, "OLDEST") && contains(out, "native") && contains(out, "s "), "%s", out);
}

Test(ctl, judge_takes_a_problem_name_like_submit)
{
    char cfg[400], out[16384], src_dir[400];
    t_config("A", SLOT0, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    /* run where no directory "aplusb" is: the name comes from the configuration */
    snprintf(src_dir, sizeof src_dir, "%s/cwd", T_dir);
    cr_assert_eq(mkdir(src_dir, 0755), 0);
    cr_assert_eq(chdir(src_dir), 0);
    cr_assert_eq(CTL(out, "judge", "--problem", "aplusb", "--lang", "c", "--slot", SLOT_LOCAL, "--config", cfg, AC_C),
                 0, "%s", out);
    cr_assert(contains(out, "verdict: AC"), "%s", out);
    /* a name from the store: its current version, fetched */
    char pkg[400];
    snprintf(pkg, sizeof pkg, "%s/problems/aplusb", T_dir);
    cr_assert_eq(CTL(out, "problem", "push", pkg, "--name", "stored-ab", "--slot=" SLOT_LOCAL, "--config", cfg), 0,
                 "%s", out);
    cr_assert_eq(CTL(out, "--json", "judge", "--problem=stored-ab", "--lang=c", "--slot=" SLOT_LOCAL, "--config", cfg,
                     AC_C),
                 0, "%s", out);
    json_t *j = parse(out);
    cr_assert_str_eq(json_string_value(json_object_get(j, "verdict")), "AC", "%s", out);
    json_decref(j);
    /* neither a directory nor a known name: 66 */
    cr_assert_eq(CTL(out, "judge", "--json", "--problem", "nosuch", "--lang", "c", "--slot", SLOT_LOCAL, "--config",
                     cfg, AC_C),
                 66);
    expect_error(out, "not_found", 66);
    cr_assert_eq(chdir("/"), 0);
}

/* issue 39: several files are one submission -- paths given one by one
 * (submit, judged by judged), a directory and a .tar.gz (judge); a name
 * with ".." refused before anything is admitted */
Test(ctl, several_files_by_paths_a_directory_or_an_archive, .timeout = 300)
{
    char cfg[400], out[16384], dir[400], path[500];
    t_config("A", SLOT0, NULL, "  native: {languages: [cpp, python3], slots: 1}\n", cfg, sizeof cfg);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 30000), "judged did not start");
    snprintf(dir, sizeof dir, "%s/cpp", T_dir);
    cr_assert_eq(mkdir(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/add.h", dir);
    t_write(path, "#pragma once\nlong long add(long long a, long long b);\n");
    snprintf(path, sizeof path, "%s/add.cpp", dir);
    t_write(path, "#include \"add.h\"\nlong long add(long long a, long long b) { return a + b; }\n");
    snprintf(path, sizeof path, "%s/solve.cpp", dir);
    t_write(path, "#include <cstdio>\n#include \"add.h\"\nint main() { long long a, b;\n"
                  "  if (std::scanf(\"%%lld %%lld\", &a, &b) != 2) return 1; std::printf(\"%%lld\\n\", add(a, b)); }\n");
    cr_assert_eq(chdir(dir), 0);
    cr_assert_eq(CTL(out, "submit", "--problem", "aplusb", "--lang", "cpp", "--config", cfg, "solve.cpp", "add.cpp",
                     "add.h"), 0, "%s", out);
    out[strcspn(out, "\n")] = '\0';
    char id[200];
    snprintf(id, sizeof id, "%.199s", out);
    cr_assert_eq(CTL(out, "result", id, "--wait", "120", "--json", "--config", cfg), 0, "%s", out);
    json_t *j = parse(out);
    cr_expect_str_eq(json_string_value(json_object_get(j, "verdict")), "AC", "%s", out);
    json_decref(j);
    /* a name leaving the directory: 65, nothing admitted */
    cr_assert_eq(CTL(out, "--json", "submit", "--problem", "aplusb", "--lang", "cpp", "--config", cfg, "solve.cpp",
                     "../cpp/add.h"), 65);
    expect_error(out, "bad_input", 65);
    cr_expect(contains(out, "'..'"), "%s", out);
    /* Python modules as a directory, then the C++ files as a .tar.gz */
    char py[400];
    snprintf(py, sizeof py, "%s/py", T_dir);
    cr_assert_eq(mkdir(py, 0755), 0);
    snprintf(path, sizeof path, "%s/__main__.py", py);
    t_write(path, "from arith import add\na, b = map(int, input().split())\nprint(add(a, b))\n");
    snprintf(path, sizeof path, "%s/arith.py", py);
    t_write(path, "def add(a, b):\n    return a + b\n");
    cr_assert_eq(CTL(out, "--json", "judge", "--problem", "aplusb", "--lang", "python3", "--slot", SLOT_LOCAL,
                     "--config", cfg, py), 0, "%s", out);
    j = parse(out);
    cr_expect_str_eq(json_string_value(json_object_get(j, "verdict")), "AC", "%s", out);
    json_decref(j);
    char tgz[500], cmd[1200];
    snprintf(tgz, sizeof tgz, "%s/cpp.tar.gz", T_dir);
    snprintf(cmd, sizeof cmd, "tar -C '%s' -czf '%s' .", dir, tgz);
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(CTL(out, "--json", "judge", "--problem", "aplusb", "--lang", "cpp", "--slot", SLOT_LOCAL,
                     "--config", cfg, tgz), 0, "%s", out);
    j = parse(out);
    cr_expect_str_eq(json_string_value(json_object_get(j, "verdict")), "AC", "%s", out);
    json_decref(j);
    cr_assert_eq(chdir("/"), 0);
}
