/* test_resume.c - issue 27, checkpoints: a host judging a 20-test problem
 * is SIGKILLed after its 12th progress entry, while the 13th test runs (the
 * only one that takes long: about a second of CPU); a second host takes the job over after the lease and judges only
 * the tests left, and the verdict, score and per-test verdicts equal an
 * uninterrupted judging. A changed problem, a changed language file and a
 * recompile giving another binary each start over, saying why in the
 * attempt history. Real redis-server, judged, sandbox. Sandbox slots
 * 100..103 (host A: 100, 101; host B: 102, 103). */
#include <jansson.h>

/* the harness's helpers this suite does not need */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "harness.h"

#define SLOT_A 100
#define SLOT_B 102
#define TESTS 20

/* The problem "long": test i is "i 2i", its answer 3i; subtasks and
 * stop_on_failure as given. */
static void make_long(const char *subtasks_yaml)
{
    char p[400];
    snprintf(p, sizeof p, "%s/problems", T_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/problems/long", T_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/problems/long/problem.yaml", T_dir);
    t_write(p, "name: long\ntitle: Long\ntime_limit: 20s\nmemory_limit: 256M\nchecker: tokens\n%s",
            subtasks_yaml);
    snprintf(p, sizeof p, "%s/problems/long/tests", T_dir);
    mkdir(p, 0755);
    for (int i = 1; i <= TESTS; i++) {
        snprintf(p, sizeof p, "%s/problems/long/tests/%d.in", T_dir, i);
        t_write(p, "%d %d\n", i, 2 * i);
        snprintf(p, sizeof p, "%s/problems/long/tests/%d.out", T_dir, i);
        t_write(p, "%d\n", 3 * i);
    }
}

/* A solution wrong on the tests whose a is in `wrong` (a space-separated
 * list), quick on every test but `slow`, where it spends about a second of
 * CPU: the test that runs when host A is killed, so the kill lands inside
 * it, and only there is CPU spent for that (every test slow was 20-40 s of
 * CPU a case, most of this suite's time). */
static void make_source(const char *name, const char *wrong, int slow)
{
    char p[400], cond[200] = "0";
    snprintf(p, sizeof p, "%s/%s", T_dir, name);
    for (const char *w = wrong; w && *w;) {
        int n = atoi(w);
        size_t len = strlen(cond);
        snprintf(cond + len, sizeof cond - len, "||a==%d", n);
        w = strchr(w, ' ');
        if (w)
            w++;
    }
    t_write(p, "#include <stdio.h>\nint main(void){long long a,b;\n"
               "if(scanf(\"%%lld %%lld\",&a,&b)!=2)return 1;\n"
               "volatile unsigned long x=0;if(a==%d)for(unsigned long i=0;i<300000000UL;i++)x+=i;\n"
               "printf(\"%%lld\\n\",(%s)?a+b+1:a+b);return 0;}\n",
            slow, cond);
}

/* languages dir NAME: c.yaml (with `extra` appended: another language
 * file) and crand.yaml, a C whose compile leaves a file no two compiles
 * write alike (another binary on every recompile) */
static void make_languages(const char *name, const char *extra)
{
    char p[400], cmd[900];
    snprintf(p, sizeof p, "%s/%s", T_dir, name);
    mkdir(p, 0755);
    snprintf(cmd, sizeof cmd, "cp '%s/languages/c.yaml' '%s/c.yaml'", SRC, p);
    cr_assert_eq(system(cmd), 0);
    if (extra) {
        snprintf(cmd, sizeof cmd, "echo '%s' >> '%s/c.yaml'", extra, p);
        cr_assert_eq(system(cmd), 0);
    }
    snprintf(cmd, sizeof cmd, "%s/crand.yaml", p);
    t_write(cmd, "id: crand\nname: C, salted\nversion: [/usr/bin/gcc, --version]\nsource: main.c\n"
                 "compile: [/bin/sh, -c, 'gcc -O2 -o main main.c && date +%%s%%N > salt']\n"
                 "run: [./main]\ncompile_limits: {time: 10s, memory: 512M, output: 64M, procs: 32}\n"
                 "processes: 32\nenv: {PATH: /usr/bin:/bin}\n");
}

static void host_config(const char *name, int slot, const char *langs, char *path, size_t len)
{
    snprintf(path, len, "%s/%s.yaml", T_dir, name);
    t_write(path,
            "redis: unix://%s\nstate_dir: %s/state-%s\nproblems: %s/problems\nlanguages: %s/%s\n"
            "host: %s\nfirst_slot: %d\nlease: 2s\nheartbeat: 500ms\nretry_backoff: 200ms\ngrace: 10s\n"
            "prepare: false\npools:\n  native: {languages: [c, crand], slots: 1}\n",
            T_sock, T_dir, name, T_dir, T_dir, langs, name, slot);
}

/* The progress entries of id: the test number and host of each. */
static int progress(const char *id, int *tests, char (*hosts)[16], int max)
{
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "XRANGE judge:{native}:progress:%s - +", id);
    int n = 0;
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements && n < max; i++) {
        redisReply *f = r->element[i]->element[1];
        tests[n] = 0;
        hosts[n][0] = 0;
        bool test = false;
        for (size_t j = 0; j + 1 < f->elements; j += 2) {
            if (!strcmp(f->element[j]->str, "stage"))
                test = !strcmp(f->element[j + 1]->str, "test");
            if (!strcmp(f->element[j]->str, "test"))
                tests[n] = atoi(f->element[j + 1]->str);
            if (!strcmp(f->element[j]->str, "host"))
                snprintf(hosts[n], sizeof hosts[n], "%s", f->element[j + 1]->str);
        }
        n += test;
    }
    if (r)
        freeReplyObject(r);
    redisFree(c);
    return n;
}

static bool wait_progress(const char *id, int entries, long ms)
{
    int tests[64];
    char hosts[64][16];
    for (long long end = t_now_ms() + ms; t_now_ms() < end; t_sleep_ms(10))
        if (progress(id, tests, hosts, 64) >= entries)
            return true;
    t_dump_logs();
    return false;
}

static json_t *report_of(const char *id)
{
    char *rep = t_hget(id, "report");
    cr_assert(rep, "%s has no report", id);
    json_t *o = json_loads(rep, 0, NULL);
    cr_assert(o, "bad report: %s", rep);
    free(rep);
    return o;
}

/* Verdict, score, every test's verdict and every subtask's verdict and
 * score of two reports are the same. */
static void assert_same_judging(json_t *a, json_t *b)
{
    cr_assert_str_eq(json_string_value(json_object_get(a, "verdict")),
                     json_string_value(json_object_get(b, "verdict")));
    cr_assert_float_eq(json_number_value(json_object_get(a, "score")), json_number_value(json_object_get(b, "score")),
                       1e-9);
    json_t *ta = json_object_get(a, "tests"), *tb = json_object_get(b, "tests");
    cr_assert_eq(json_array_size(ta), TESTS);
    cr_assert_eq(json_array_size(tb), TESTS);
    for (size_t i = 0; i < TESTS; i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(ta, i), "verdict")),
                         json_string_value(json_object_get(json_array_get(tb, i), "verdict")), "test %zu", i + 1);
    json_t *sa = json_object_get(a, "subtasks"), *sb = json_object_get(b, "subtasks");
    cr_assert_eq(json_array_size(sa), json_array_size(sb));
    for (size_t i = 0; i < json_array_size(sa); i++) {
        json_t *x = json_array_get(sa, i), *y = json_array_get(sb, i);
        cr_assert_str_eq(json_string_value(json_object_get(x, "verdict")),
                         json_string_value(json_object_get(y, "verdict")), "subtask %zu", i + 1);
        cr_assert_float_eq(json_number_value(json_object_get(x, "score")),
                           json_number_value(json_object_get(y, "score")), 1e-9);
    }
}

/* Host A judges the submission until its `kill_after`th progress entry and
 * is SIGKILLed; host B (languages langs_b) takes the job over and finishes
 * it. before_b runs between the two (a change to the problem...). */
struct takeover {
    char id[128];
    char cfgb[400];
    pid_t b;
};
static void takeover(const char *lang, const char *src, int kill_after, const char *langs_b,
                     void (*before_b)(void), struct takeover *out)
{
    char cfga[400];
    host_config("A", SLOT_A, "langs-A", cfga, sizeof cfga);
    host_config("B", SLOT_B, langs_b, out->cfgb, sizeof out->cfgb);
    pid_t a = t_judged(cfga, "A");
    cr_assert(t_judged_started("A", 20000));
    char path[400];
    snprintf(path, sizeof path, "%s/%s", T_dir, src);
    cr_assert_eq(t_submit(cfga, "long", lang, path, NULL, NULL, out->id, sizeof out->id), 0, "%s", out->id);
    cr_assert(wait_progress(out->id, kill_after, 240000), "host A did not finish %d tests", kill_after);
    cr_assert_neq(t_stop(a, SIGKILL, 10000), -1);
    if (before_b)
        before_b();
    out->b = t_judged(out->cfgb, "B");
    cr_assert(t_judged_started("B", 20000));
    cr_assert(t_wait_state(out->id, "done", 300000));
}

/* The uninterrupted judging of the same source on host B (compile cache:
 * the same binary). */
static json_t *reference(const struct takeover *t, const char *lang, const char *src)
{
    char path[400], id[128];
    snprintf(path, sizeof path, "%s/%s", T_dir, src);
    cr_assert_eq(t_submit(t->cfgb, "long", lang, path, NULL, NULL, id, sizeof id), 0, "%s", id);
    cr_assert(t_wait_state(id, "done", 300000));
    return report_of(id);
}

static void setup(void)
{
    t_setup_dir();
    t_start_redis();
    make_languages("langs-A", NULL);
    make_languages("langs-B", NULL);
    make_languages("langs-B2", "# the same C, another file");
}

TestSuite(resume, .init = setup, .fini = t_teardown, .timeout = 900);

static const char *const SUBTASKS_NONE =
    "subtasks:\n  - {name: first, points: 50, tests: [1-10]}\n  - {name: second, points: 50, tests: [11-20]}\n"
    "stop_on_failure: none\n";

/* The core: tests 1-12 on A, 13-20 on B only, the same judging. */
Test(resume, takeover_judges_only_the_tests_left)
{
    make_long(SUBTASKS_NONE);
    make_source("sol.c", "14", 13);
    struct takeover t;
    takeover("c", "sol.c", 12, "langs-B", NULL, &t);

    int tests[64];
    char hosts[64][16];
    int n = progress(t.id, tests, hosts, 64);
    cr_assert_eq(n, TESTS, "progress entries: %d", n);
    for (int i = 0; i < n; i++) {
        cr_assert_eq(tests[i], i + 1, "entry %d is test %d", i, tests[i]);
        cr_assert_str_eq(hosts[i], i < 12 ? "A" : "B", "test %d ran on %s", tests[i], hosts[i]);
    }
    json_t *rep = report_of(t.id);
    json_t *rt = json_object_get(rep, "tests");
    for (size_t i = 0; i < TESTS; i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(rt, i), "host")), i < 12 ? "A" : "B",
                         "report: test %zu", i + 1);
    char *history = t_hget(t.id, "history");
    cr_assert(history && strstr(history, "resumed: 12 finished test(s) reused"), "history: %s",
              history ? history : "(none)");
    free(history);
    cr_assert_str_eq(json_string_value(json_object_get(rep, "verdict")), "WA");
    cr_assert_float_eq(json_number_value(json_object_get(rep, "score")), 50, 1e-9);

    json_t *ref = reference(&t, "c", "sol.c");
    assert_same_judging(rep, ref);
    /* nothing left to resume once the verdict is out */
    cr_assert_eq(t_int("EXISTS judge:{native}:ckpt:%s", t.id), 0);
    json_decref(rep);
    json_decref(ref);
}

/* The tests host NAME ran, by its progress entries. */
static int ran_on(const char *id, const char *name)
{
    int tests[64], n = 0;
    char hosts[64][16];
    int all = progress(id, tests, hosts, 64);
    for (int i = 0; i < all; i++)
        n += !strcmp(hosts[i], name);
    return n;
}

static void assert_started_over(const char *id, const char *why)
{
    char *history = t_hget(id, "history");
    cr_assert(history && strstr(history, "takeover: started over: ") && strstr(history, why), "history: %s",
              history ? history : "(none)");
    free(history);
    cr_assert_eq(ran_on(id, "B"), TESTS, "host B ran %d tests, not all", ran_on(id, "B"));
    json_t *rep = report_of(id);
    json_t *rt = json_object_get(rep, "tests");
    for (size_t i = 0; i < TESTS; i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(rt, i), "host")), "B");
    cr_assert_str_eq(json_string_value(json_object_get(rep, "verdict")), "WA");
    json_decref(rep);
}

static void change_problem(void)
{
    char p[400], cmd[600];
    snprintf(p, sizeof p, "%s/problems/long/problem.yaml", T_dir);
    snprintf(cmd, sizeof cmd, "echo '# edited between the two hosts' >> '%s'", p);
    cr_assert_eq(system(cmd), 0);
}

Test(resume, changed_problem_starts_over)
{
    make_long(SUBTASKS_NONE);
    make_source("sol.c", "14", 4);
    struct takeover t;
    takeover("c", "sol.c", 3, "langs-B", change_problem, &t);
    assert_started_over(t.id, "the problem version changed");
}

Test(resume, changed_language_file_starts_over)
{
    make_long(SUBTASKS_NONE);
    make_source("sol.c", "14", 4);
    struct takeover t;
    takeover("c", "sol.c", 3, "langs-B2", NULL, &t);
    assert_started_over(t.id, "the language definition changed");
}

/* host B's compile cache does not have it, and its compile gives another
 * binary (crand salts every compile) */
Test(resume, another_binary_starts_over)
{
    make_long(SUBTASKS_NONE);
    make_source("sol.c", "14", 4);
    struct takeover t;
    takeover("crand", "sol.c", 3, "langs-B", NULL, &t);
    assert_started_over(t.id, "the compiled program differs");
}

/* Subtasks with dependencies and stop_on_failure: the takeover runs what
 * the uninterrupted judging would have run after the 12th test, and no
 * more. */
static void subtasks_case(const char *yaml, const char *wrong, const int *b_tests, int nb)
{
    make_long(yaml);
    make_source("sol.c", wrong, b_tests[0]); /* host A's 13th test */
    struct takeover t;
    takeover("c", "sol.c", 12, "langs-B", NULL, &t);
    int tests[64];
    char hosts[64][16];
    int n = progress(t.id, tests, hosts, 64);
    cr_assert_eq(n, 12 + nb, "progress entries: %d", n);
    for (int i = 0; i < nb; i++) {
        cr_assert_str_eq(hosts[12 + i], "B");
        cr_assert_eq(tests[12 + i], b_tests[i], "host B's test %d is %d", i + 1, tests[12 + i]);
    }
    json_t *rep = report_of(t.id), *ref = reference(&t, "c", "sol.c");
    assert_same_judging(rep, ref);
    json_decref(rep);
    json_decref(ref);
}

Test(resume, subtasks_stop_on_failure_subtask)
{
    /* 1-9 (WA at 9: 10-14 are not run), 15-20 */
    static const int b[] = {18, 19, 20};
    subtasks_case("subtasks:\n  - {name: a, points: 20, tests: [1-6]}\n"
                  "  - {name: b, points: 40, tests: [7-14], depends: [a]}\n"
                  "  - {name: c, points: 40, tests: [15-20]}\nstop_on_failure: subtask\n",
                  "9", b, 3);
}

Test(resume, subtasks_stop_on_failure_all)
{
    /* everything stops at 16's WA */
    static const int b[] = {13, 14, 15, 16};
    subtasks_case("subtasks:\n  - {name: a, points: 50, tests: [1-10]}\n"
                  "  - {name: b, points: 50, tests: [11-20], depends: [a]}\nstop_on_failure: all\n",
                  "16", b, 4);
}
