/* test_queue.c - the queue library's contract seen from outside: admission
 * by one FCALL from redis-cli equals judgectl submit, the function library
 * reloaded after FUNCTION FLUSH, and reloads: 1,000 SIGHUPs while jobs run
 * (no crash, no lost or doubled job, slots unchanged), and a reload that
 * resizes a pool waits for its slots to drain. Real redis-server, judged,
 * judgectl and runner; slots 860.. (test_dispatch uses 600.., demo.sh 700..). */
/* the harness is shared with test_dispatch.c, which uses all of it */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "harness.h"

#define AC_C SRC "/testdata/aplusb/solutions/ac.c"
#define SLOT0 860

static char slow_src[400];

static void setup2(void)
{
    t_setup(2);
    snprintf(slow_src, sizeof slow_src, "%s/slow.c", T_dir);
}

TestSuite(queue, .init = setup2, .fini = t_teardown, .timeout = 240);

static bool contains(const char *hay, const char *needle)
{
    return hay && strstr(hay, needle);
}

/* redis-cli ARGS... with stdin from `in` (NULL: none); stdout into out */
static int t_cli(char *out, size_t outlen, const char *in, const char *const *args)
{
    const char *argv[40];
    int n = 0;
    argv[n++] = "redis-cli";
    argv[n++] = "-s";
    argv[n++] = T_sock;
    if (in)
        argv[n++] = "-x";
    for (; *args && n < 39; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    int pfd[2];
    cr_assert(pipe(pfd) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        if (in) {
            int fd = open(in, O_RDONLY);
            dup2(fd, 0);
        }
        dup2(pfd[1], 1);
        close(pfd[0]);
        close(pfd[1]);
        execvp("redis-cli", (char **)argv);
        _exit(127);
    }
    close(pfd[1]);
    size_t got = 0;
    ssize_t r;
    while (got + 1 < outlen && (r = read(pfd[0], out + got, outlen - 1 - got)) > 0)
        got += (size_t)r;
    out[got] = 0;
    close(pfd[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* the id in a redis-cli reply "result\nadmitted\nid\nID\n" */
static void reply_id(const char *out, char *id, size_t len)
{
    const char *p = strstr(out, "id\n");
    cr_assert(p, "no id in: %s", out);
    snprintf(id, len, "%s", p + 3);
    id[strcspn(id, "\n")] = 0;
}

Test(queue, fcall_admission_from_redis_cli_equals_judgectl_submit)
{
    char cfg[400], id1[160], id2[160], id3[160], out[4096];
    t_config("A", SLOT0, NULL, "  native: {languages: [c, cpp], slots: 1}\n", cfg, sizeof cfg);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, "platform-1", NULL, id1, sizeof id1), 0);
    const char *admit[] = {"FCALL", "judged_admit", "1", "judge:{native}:q:normal", "pool", "native",
                           "lang", "c", "problem", "aplusb", "key", "platform-2", "source", NULL};
    cr_assert_eq(t_cli(out, sizeof out, AC_C, admit), 0);
    cr_assert(contains(out, "admitted"), "%s", out);
    reply_id(out, id2, sizeof id2);
    cr_assert(!strncmp(id2, "native-", 7), "%s", id2);
    cr_assert(t_wait_state(id1, "done", 30000));
    cr_assert(t_wait_state(id2, "done", 30000));
    /* the same submission record and the same verdict, whoever admitted */
    static const char *fields[] = {"pool", "lang", "problem", "priority", "state", "verdict",
                                   "score", "source", "attempts"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        char *a = t_hget(id1, fields[i]), *b = t_hget(id2, fields[i]);
        cr_assert(a && b && !strcmp(a, b), "%s: '%s' vs '%s'", fields[i], a, b);
        free(a);
        free(b);
    }
    char *v = t_hget(id2, "verdict");
    cr_assert_str_eq(v, "AC");
    free(v);
    cr_assert_eq(t_events("native", id2), 1);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "result", id2, "--json", NULL), 0);
    cr_assert(contains(out, "\"verdict\":\"AC\""), "%s", out);
    /* an idempotency key is shared: judgectl's key through FCALL and back */
    const char *dup[] = {"FCALL", "judged_admit", "1", "judge:{native}:q:normal", "pool", "native",
                         "lang", "c", "problem", "aplusb", "key", "platform-1", "source", NULL};
    cr_assert_eq(t_cli(out, sizeof out, AC_C, dup), 0);
    cr_assert(contains(out, "duplicate"), "%s", out);
    reply_id(out, id3, sizeof id3);
    cr_assert_str_eq(id3, id1);
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, "platform-2", NULL, id3, sizeof id3), 0);
    cr_assert_str_eq(id3, id2);
    /* refused alike: a bad problem name, a language the pool does not serve */
    const char *bad[] = {"FCALL", "judged_admit", "1", "judge:{native}:q:normal", "pool", "native",
                         "lang", "c", "problem", "../etc", "source", NULL};
    t_cli(out, sizeof out, AC_C, bad);
    cr_assert(contains(out, "bad problem name"), "%s", out);
    cr_assert_neq(t_submit(cfg, "../etc", "c", AC_C, NULL, NULL, id3, sizeof id3), 0);
    const char *java[] = {"FCALL", "judged_admit", "1", "judge:{native}:q:normal", "pool", "native",
                          "lang", "java", "problem", "aplusb", "source", NULL};
    t_cli(out, sizeof out, AC_C, java);
    cr_assert(contains(out, "does not serve language"), "%s", out);
    cr_assert_neq(t_submit(cfg, "aplusb", "java", AC_C, NULL, NULL, id3, sizeof id3), 0);
    cr_assert_eq(t_events("native", NULL), 2, "refusals and duplicates admit nothing");
}

Test(queue, a_flushed_function_library_is_loaded_again)
{
    char cfg[400], id[160], out[4096];
    t_config("A", SLOT0, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    const char *ver[] = {"FCALL", "judged_version", "0", NULL};
    cr_assert_eq(t_cli(out, sizeof out, NULL, ver), 0);
    cr_assert(atoi(out) >= 2, "judged loaded its library: %s", out);
    const char *flush[] = {"FUNCTION", "FLUSH", NULL};
    cr_assert_eq(t_cli(out, sizeof out, NULL, flush), 0);
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0);
    cr_assert(t_wait_state(id, "done", 30000), "loaded again on 'Function not found'");
    cr_assert_eq(t_events("native", id), 1);
}

/* Library version 13 keeps results in judge:{P}:res:ID (issue 25): judged,
 * loading it over version 12, moves the verdicts of submissions finished
 * before, once; a verdict in the hash of one that was not done is dropped,
 * a waiting rejudge's fields moved. */
Test(queue, an_older_librarys_results_are_moved_at_the_upgrade)
{
    char cfg[400], out[8192];
    const char *old[] = {"FUNCTION", "LOAD", "REPLACE",
                         "#!lua name=judged\nredis.register_function{function_name = 'judged_version', "
                         "flags = {'no-writes'}, callback = function() return 12 end}",
                         NULL};
    cr_assert_eq(t_cli(out, sizeof out, NULL, old), 0, "%s", out);
    const char *done = "native-00000000001-00000001", *planted = "native-00000000001-00000002",
               *rejudge = "native-00000000001-00000003";
    cr_assert_eq(t_int("HSET judge:{native}:sub:%s id %s pool native lang c problem aplusb state done "
                       "attempts 0 created 1 started 2 finished 3 verdict WA score 0 report %s",
                       done, done, "{\"verdict\":\"WA\",\"score\":0,\"tests\":[]}"), 12);
    cr_assert_eq(t_int("PEXPIRE judge:{native}:sub:%s 600000", done), 1);
    cr_assert_eq(t_int("HSET judge:{native}:sub:%s id %s pool native lang c problem aplusb state queued "
                       "created 1 verdict AC score 100", planted, planted), 8);
    cr_assert_eq(t_int("HSET judge:{native}:sub:%s id %s pool native lang c problem aplusb state queued "
                       "created 1 rejudge r1 previous_verdict WA previous_score 0", rejudge, rejudge), 9);
    t_config("A", SLOT0, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    const char *ver[] = {"FCALL", "judged_version", "0", NULL};
    cr_assert_eq(t_cli(out, sizeof out, NULL, ver), 0);
    /* 13 moved the results; any later version loads over 12 as well */
    cr_assert_geq(atoi(out), 13, "%s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "result", done, "--json", NULL), 0, "%s", out);
    cr_assert(contains(out, "\"state\":\"done\"") && contains(out, "\"verdict\":\"WA\""), "%s", out);
    long long ttl = t_int("PTTL judge:{native}:res:%s", done);
    cr_assert(ttl > 0 && ttl <= 600000, "the result expires with its submission: %lld", ttl);
    cr_assert_eq(t_int("HEXISTS judge:{native}:sub:%s verdict", done), 0, "moved, not copied");
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "result", planted, "--json", NULL), 0, "%s", out);
    cr_assert(contains(out, "\"state\":\"queued\"") && !contains(out, "\"verdict\":\"AC\""), "%s", out);
    cr_assert_eq(t_int("EXISTS judge:{native}:res:%s", planted), 0, "no verdict made of a waiting one's");
    char *rj = t_hget(rejudge, "previous_verdict");
    cr_assert(rj && !strcmp(rj, "WA"), "the waiting rejudge's fields moved: %s", rj ? rj : "(none)");
    free(rj);
    cr_assert(!t_state_is(rejudge, "done"));
    /* once: what is written into a hash later stays there, no verdict */
    cr_assert_eq(t_int("HSET judge:{native}:sub:%s state done verdict AC score 100", planted), 2);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "result", planted, "--json", NULL), 0, "%s", out);
    cr_assert(!contains(out, "\"verdict\":\"AC\"") && !contains(out, "\"state\":\"done\""), "%s", out);
}

/* slots of pool NAME as registered by host A: "first_slot:N,slots:M" */
static void host_slots(const char *cfg, const char *pool, char *buf, size_t len)
{
    char out[8192];
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "hosts", "--json", NULL), 0);
    char pat[128];
    snprintf(pat, sizeof pat, "\"name\":\"%s\"", pool);
    const char *p = strstr(out, pat);
    cr_assert(p, "%s", out);
    const char *end = strchr(p, '}');
    snprintf(buf, len, "%.*s", (int)(end - p), p);
}

static int log_count(const char *needle)
{
    char log[400], line[1024];
    snprintf(log, sizeof log, "%s/judged-A.log", T_dir);
    FILE *f = fopen(log, "r");
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, needle))
            n++;
    if (f)
        fclose(f);
    return n;
}

Test(queue, a_thousand_sighups_while_jobs_run, .timeout = 400)
{
    char cfg[400], ids[24][160], before[512], after[512];
    const char *pools_a = "  native: {languages: [c], slots: 2}\n  python: {languages: [python3], slots: 1}\n";
    const char *pools_b = "  native: {languages: [c, cpp], slots: 2}\n  python: {languages: [python3], slots: 1}\n";
    t_config("A", SLOT0, NULL, pools_a, cfg, sizeof cfg);
    pid_t a = t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    t_sleep_ms(700); /* one heartbeat: the host is registered */
    host_slots(cfg, "native", before, sizeof before);
    cr_assert(contains(before, "\"first_slot\":860") && contains(before, "\"slots\":2"), "%s", before);
    int n = (int)(sizeof ids / sizeof ids[0]);
    for (int i = 0; i < n; i++)
        cr_assert_eq(t_submit(cfg, "aplusb", "c", i % 3 ? AC_C : slow_src, NULL, NULL, ids[i],
                              sizeof ids[i]), 0);
    /* 1,000 reloads, alternating two files that differ in routing and
     * limits but not in slots, while those jobs run */
    for (int i = 0; i < 1000; i++) {
        if (i % 100 == 0)
            t_config("A", SLOT0, i % 200 ? "results_max: 5000\n" : NULL, i % 200 ? pools_b : pools_a,
                     cfg, sizeof cfg);
        cr_assert_eq(kill(a, SIGHUP), 0);
        t_sleep_ms(2);
    }
    for (int i = 0; i < n; i++) {
        cr_assert(t_wait_state(ids[i], "done", 120000), "job %d (%s) finished", i, ids[i]);
        char *v = t_hget(ids[i], "verdict");
        cr_assert_str_eq(v, "AC", "job %d", i);
        free(v);
    }
    t_sleep_ms(700);
    for (int i = 0; i < n; i++)
        cr_assert_eq(t_events("native", ids[i]), 1, "job %d published exactly once", i);
    cr_assert_eq(t_events("native", NULL), n, "nothing else was published");
    cr_assert_eq(waitpid(a, NULL, WNOHANG), 0, "judged survived");
    host_slots(cfg, "native", after, sizeof after);
    cr_assert(contains(after, "\"first_slot\":860") && contains(after, "\"slots\":2"), "%s", after);
    host_slots(cfg, "python", after, sizeof after);
    cr_assert(contains(after, "\"first_slot\":864"), "%s", after);
    cr_assert_eq(log_count("sandbox slots 860..863"), 1, "the pool never moved to other slots");
    cr_assert_eq(log_count("reopened"), 0);
    cr_assert_gt(log_count("configuration reloaded"), 0);
    int st = t_stop(a, SIGTERM, 60000);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "clean exit after the reloads");
}

Test(queue, a_reload_that_resizes_a_pool_waits_for_its_slots_to_drain)
{
    char cfg[400], id1[160], id2[160], id3[160], out[512];
    t_config("A", SLOT0, NULL, "  native: {languages: [c], slots: 1}\n  python: {languages: [python3], slots: 1}\n",
             cfg, sizeof cfg);
    pid_t a = t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    cr_assert_eq(t_submit(cfg, "slow", "c", slow_src, NULL, NULL, id1, sizeof id1), 0);
    long long end = t_now_ms() + 30000;
    while (!t_state_is(id1, "running") && t_now_ms() < end)
        t_sleep_ms(20);
    cr_assert(t_state_is(id1, "running"));
    t_config("A", SLOT0, NULL, "  native: {languages: [c], slots: 2}\n  python: {languages: [python3], slots: 1}\n",
             cfg, sizeof cfg);
    kill(a, SIGHUP);
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, id2, sizeof id2), 0);
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, id3, sizeof id3), 0);
    cr_assert(t_wait_state(id1, "done", 60000));
    cr_assert(t_wait_state(id2, "done", 30000));
    cr_assert(t_wait_state(id3, "done", 30000));
    /* the resized pool started no job before its running one was done */
    char *f1 = t_hget(id1, "finished"), *s2 = t_hget(id2, "started"), *s3 = t_hget(id3, "started");
    cr_assert(f1 && s2 && s3);
    cr_assert_leq(atoll(f1), atoll(s2), "drained first");
    cr_assert_leq(atoll(f1), atoll(s3), "drained first");
    free(f1);
    free(s2);
    free(s3);
    t_sleep_ms(700);
    host_slots(cfg, "native", out, sizeof out);
    cr_assert(contains(out, "\"first_slot\":860") && contains(out, "\"slots\":2"), "%s", out);
    host_slots(cfg, "python", out, sizeof out);
    cr_assert(contains(out, "\"first_slot\":864"), "python moved after native's new slots: %s", out);
    cr_assert_eq(log_count("sandbox slots 860..861"), 1, "native: 1 slot and its companion");
    cr_assert_eq(log_count("sandbox slots 860..863"), 1, "native: 2 slots and their companions");
    cr_assert_eq(log_count("sandbox slots 864..865"), 1);
}

/* The catalog needs no sandbox: `judgectl languages` lists as nobody, from
 * copies in a temp dir (the checkout may be readable by root only). */
/* A user other than root can run nothing on a machine whose root directory
 * only root may search (a chroot unpacked from a mode-0700 directory, as
 * some bare-root test tools make): a test that acts as such a user is
 * skipped there, saying why, rather than failed for a reason that is not
 * the code's. On every real machine "/" is searchable and the test runs. */
static void skip_unless_others_can_search_root(void)
{
    struct stat st;
    if (stat("/", &st) == 0 && !(st.st_mode & S_IXOTH))
        cr_skip_test("'/' is mode %o here: no non-root process can run", (unsigned)(st.st_mode & 07777));
}

/* hosts come by name, whatever order judge:hosts hands them out in */
Test(queue, hosts_are_listed_by_name)
{
    char cfg[400], out[8192];
    t_config("A", SLOT0, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    const char *names[] = {"charlie", "alpha", "delta", "bravo"};
    for (int i = 0; i < 4; i++) {   /* registrations as heartbeat.c writes them */
        char reg[300];
        snprintf(reg, sizeof reg, "{\"host\":\"%s\",\"pid\":1,\"pools\":[{\"name\":\"native\",\"slots\":1,"
                 "\"busy\":0}],\"slots\":1,\"busy\":0,\"time\":1}", names[i]);
        t_int("HSET judge:hosts %s %s", names[i], reg);
    }
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "hosts", "--json", NULL), 1, "none is alive: %s", out);
    const char *a = strstr(out, "\"alpha\""), *b = strstr(out, "\"bravo\""), *c = strstr(out, "\"charlie\""),
               *d = strstr(out, "\"delta\"");
    cr_assert(a && b && c && d && a < b && b < c && c < d, "by name: %s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "hosts", NULL), 1, "%s", out);
    a = strstr(out, "alpha"), b = strstr(out, "bravo"), c = strstr(out, "charlie"), d = strstr(out, "delta");
    cr_assert(a && b && c && d && a < b && b < c && c < d, "by name: %s", out);
}

Test(catalog, judgectl_languages_lists_without_root_or_sandbox)
{
    skip_unless_others_can_search_root();
    char dir[] = "/tmp/judged-catalog-XXXXXX", cmd[1200];
    cr_assert(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp %s/judgectl %s/ && mkdir %s/languages && cp %s/languages/*.yaml "
             "%s/languages/ && chmod -R a+rX %s", BIN, dir, dir, SRC, dir, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "setpriv --reuid=65534 --regid=65534 --clear-groups %s/judgectl "
             "languages --languages %s/languages > %s/out 2>&1", dir, dir, dir);
    int st = system(cmd);
    char path[300], out[4096] = "";
    snprintf(path, sizeof path, "%s/out", dir);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(out, 1, sizeof out - 1, f) : 0;
    out[n] = 0;
    if (f)
        fclose(f);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", out);
    cr_assert(strstr(out, "python3 ") && strstr(out, "\nc ") && strstr(out, "GCC 12"), "%s", out);
}

/* The value of field name in a flat field/value reply, or NULL. */
static const redisReply *reply_field(const redisReply *r, const char *name)
{
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2)
        if (r->element[i]->type == REDIS_REPLY_STRING && !strcmp(r->element[i]->str, name))
            return r->element[i + 1];
    return NULL;
}

/* Issue 40: verification (priority verify) waits in the rejudge lane: a
 * pool full of normal work still admits it, and it never fills what
 * contest and normal admissions count, not even when it is retried (the
 * delayed set counts against them). By FCALL, no host running. */
Test(queue, a_verify_job_has_its_own_lane_and_is_retried_there)
{
    char cfg[400], id[160];
    t_config("A", SLOT0, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    cr_assert_eq(t_submit(cfg, "aplusb", "c", AC_C, NULL, NULL, id, sizeof id), 0);   /* loads the library */
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "FCALL judged_admit 1 judge:{native}:q:normal pool native lang c problem aplusb "
                                    "source x max_queue 1");
    cr_assert(r && !strcmp(reply_field(r, "result")->str, "busy"), "normal work fills max_queue 1");
    freeReplyObject(r);
    r = redisCommand(c, "FCALL judged_admit 1 judge:{native}:q:normal pool native lang c problem aplusb "
                        "source x max_queue 1 priority verify");
    cr_assert(r && r->type == REDIS_REPLY_ARRAY, "%s", r && r->type == REDIS_REPLY_ERROR ? r->str : "no reply");
    cr_assert_str_eq(reply_field(r, "result")->str, "admitted", "verification has its own bound");
    char vid[160];
    snprintf(vid, sizeof vid, "%s", reply_field(r, "id")->str);
    freeReplyObject(r);
    r = redisCommand(c, "FCALL judged_admit 1 judge:{native}:q:normal pool native lang c problem aplusb "
                        "source x max_queue 1 priority verify");
    cr_assert_str_eq(reply_field(r, "result")->str, "busy", "the lane's own bound");
    freeReplyObject(r);
    cr_assert_eq(t_int("LLEN %s", "judge:{native}:rejudge"), 1);
    /* a claim takes the normal job first, then the verify job */
    r = redisCommand(c, "FCALL judged_claim 1 judge:{native}:q:normal pool native host h count 2");
    const redisReply *jobs = reply_field(r, "jobs");
    cr_assert(jobs && jobs->elements == 2, "two jobs claimed");
    cr_assert_str_eq(reply_field(jobs->element[0], "id")->str, id);
    cr_assert_str_eq(reply_field(jobs->element[1], "id")->str, vid);
    char entry[64];
    snprintf(entry, sizeof entry, "%s", reply_field(jobs->element[1], "entry")->str);
    freeReplyObject(r);
    r = redisCommand(c, "FCALL judged_retry 1 judge:{native}:q:normal pool native host h queue normal entry %s "
                        "id %s reason box max_attempts 3 delay 60000", entry, vid);
    cr_assert(r && r->type == REDIS_REPLY_ARRAY && !strcmp(reply_field(r, "result")->str, "scheduled"), "%s",
              r && r->type == REDIS_REPLY_ERROR ? r->str : "retry");
    freeReplyObject(r);
    cr_assert_eq(t_int("ZCARD %s", "judge:{native}:delayed"), 0, "a verify retry is not counted as delayed work");
    cr_assert_eq(t_int("LLEN %s", "judge:{native}:rejudge"), 1, "it waits in its lane again");
    /* cancelled while it waits: gone */
    r = redisCommand(c, "FCALL judged_cancel 1 judge:{native}:q:normal pool native id %s", vid);
    cr_assert(r && r->type == REDIS_REPLY_ARRAY && !strcmp(reply_field(r, "result")->str, "cancelled"));
    freeReplyObject(r);
    cr_assert_eq(t_int("LLEN %s", "judge:{native}:rejudge"), 0);
    cr_assert_eq(t_int("EXISTS judge:{native}:sub:%s", vid), 0);
    redisFree(c);
}
