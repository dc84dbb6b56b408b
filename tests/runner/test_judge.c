/*
 * test_judge.c - the pipeline end to end: real compilers, the real sandbox.
 *
 * What a user checks: every testdata/PROBLEM/solutions/FILE gets the verdict
 * its name encodes (ac.c, wa_int32.c, re_30_recursion.py: RE with 30
 * points); compile-time attacks end as CE within the compile limits; a
 * program cannot see the answers nor keep files between tests; a broken
 * checker is IE, never WA; languages --check passes for every language;
 * judgectl's --json contract and exit status; interactive problems (verdict
 * order, deadlock, output limit on the pipe, Kattis form, Polygon form),
 * graders, checkers in any language with flags and testlib's points, limits
 * a problem raises. Needs root (the sandbox).
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "../host_load.h"
#include "helpers.h"
#include "runner.h"

#define SRC JUDGED_SOURCE_DIR
/* Slots 300..479, clear of judged's tests (600+), the sandbox's (800+) and
 * judgectl's default (500+); a group of four held per test process (see
 * test_slot_group), so that tests running at once, or this suite run from two
 * build trees at once, never share a slot. A runner of one slot uses two (the
 * second is the interactor's companion box), judgectl --slot FIRST_SLOT+2
 * the other two. */
#define FIRST_SLOT test_slot_group(300, 45, 4)

#define WORK_DIR BIN_DIR "/../runner-test-work"   /* one per build tree */

static struct runner *open_runner(int slots)
{
    struct runner_config cfg = {.languages_dir = SRC "/languages", .work_dir = WORK_DIR,
                                .first_slot = FIRST_SLOT, .slots = slots};
    struct runner *r = NULL;
    char err[4096];
    int rc = runner_open(&r, &cfg, err, sizeof err);
    cr_assert_eq(rc, 0, "runner_open: %s", err);
    return r;
}

/* Whether language id has ext among its extensions (as GET /v1/languages
 * shows them). */
static bool takes_extension(struct runner *r, const char *id, const char *ext)
{
    char *text = runner_language_json(r, id);
    json_t *o = text ? json_loads(text, 0, NULL) : NULL, *e;
    size_t i;
    bool takes = false;
    json_array_foreach(json_object_get(o, "extensions"), i, e)
        takes |= !strcmp(json_string_value(e), ext);
    json_decref(o);
    free(text);
    return takes;
}

/* A sample's language, as the demo finds it: a part of its name between
 * underscores that is a language taking its extension (ac_pypy3.py), else
 * the default for its extension (the language files' default_for). */
static const char *language_of(struct runner *r, const char *file)
{
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    const char *dot = strrchr(base, '.');
    for (const char *p = strchr(base, '_'); dot && p && p < dot; p = strchr(p + 1, '_')) {
        char part[128];
        size_t n = strcspn(p + 1, "_.");
        snprintf(part, sizeof part, "%.*s", (int)(n < 100 ? n : 100), p + 1);
        for (size_t i = 0; i < runner_language_count(r); i++)
            if (!strcmp(runner_language_id(r, i), part) && takes_extension(r, part, dot))
                return runner_language_id(r, i);
    }
    return runner_language_for_file(r, base);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    char *buf = malloc(1 << 22);
    *len = fread(buf, 1, (1 << 22) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

struct judged {
    enum runner_verdict verdict;
    double score;
    char *json;
};

static struct judged judge_source(struct runner *r, const char *problem, const char *lang,
                                  const char *source, size_t len)
{
    struct runner_request req = {.problem_dir = problem, .language = lang, .source = source,
                                 .source_len = len};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    char err[1024];
    int rc = runner_judge(r, &req, &rep, &failure, err, sizeof err);
    cr_assert_eq(rc, 0, "%s/%s: %s", problem, lang, err);
    struct judged j = {runner_report_verdict(rep), runner_report_score(rep), runner_report_json(rep)};
    runner_report_free(rep);
    return j;
}

/* "wa_30_int32.c" -> "WA", 30; "ac.c" -> "AC", -1 */
static void expected_from_name(const char *name, char verdict[8], double *score)
{
    size_t n = strcspn(name, "_.");
    snprintf(verdict, 8, "%.*s", (int)(n < 7 ? n : 7), name);
    for (char *p = verdict; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    *score = -1;
    const char *num = name + n + 1;
    size_t digits = name[n] == '_' ? strspn(num, "0123456789") : 0;
    if (digits && (num[digits] == '_' || num[digits] == '.'))
        *score = atof(num);
}

static int visible(const struct dirent *d)
{
    return d->d_name[0] != '.';
}

/* Every solution of one problem, judged by JUDGE_THREADS threads at a time
 * through one runner (a host judges several at once; the samples of every
 * language take minutes one by one). No criterion assertion in a thread:
 * what goes wrong is written in the report. */
#define JUDGE_THREADS 2

struct batch {
    struct runner *r;
    const char *problem, *problem_dir, *dir;
    struct dirent **names;
    int n;
    atomic_int next;
    pthread_mutex_t mu;
    char *report;
    size_t cap;
    int bad;
};

static void batch_mismatch(struct batch *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void batch_mismatch(struct batch *b, const char *fmt, ...)
{
    pthread_mutex_lock(&b->mu);
    size_t used = strlen(b->report);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->report + used, b->cap - used, fmt, ap);
    va_end(ap);
    b->bad++;
    pthread_mutex_unlock(&b->mu);
}

/* judges one solution file (none when it is no language's) */
static void judge_one(struct batch *b, const char *name)
{
    char path[2048], want[8], err[1024];
    double want_score;
    expected_from_name(name, want, &want_score);
    snprintf(path, sizeof path, "%s/%s", b->dir, name);
    const char *lang = language_of(b->r, path);
    if (!lang)
        return;
    FILE *f = fopen(path, "rb");
    char *src = malloc(1 << 22);
    size_t len = f && src ? fread(src, 1, (1 << 22) - 1, f) : 0;
    if (f)
        fclose(f);
    if (!f || !src) {
        batch_mismatch(b, "%s/%s: cannot read it\n", b->problem, name);
        free(src);
        return;
    }
    src[len] = 0;
    struct runner_request req = {.problem_dir = b->problem_dir, .language = lang, .source = src,
                                 .source_len = len};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    if (runner_judge(b->r, &req, &rep, &failure, err, sizeof err)) {
        batch_mismatch(b, "%s/%s: not judged: %s\n", b->problem, name, err);
        free(src);
        return;
    }
    const char *got = runner_verdict_name(runner_report_verdict(rep));
    double score = runner_report_score(rep);
    if (strcmp(got, want) || (want_score >= 0 && score != want_score)) {
        char *json = runner_report_json(rep);
        /* the report itself (compile output, messages): why, read from a CI log */
        batch_mismatch(b, "%s/%s: expected %s %g, got %s %g: %.600s\n", b->problem, name, want, want_score,
                       got, score, json ? json : "");
        free(json);
    }
    runner_report_free(rep);
    free(src);
}

static void *judge_batch(void *arg)
{
    struct batch *b = arg;
    for (int i; (i = atomic_fetch_add(&b->next, 1)) < b->n;)
        judge_one(b, b->names[i]->d_name);
    return NULL;
}

/* judges every solution of one problem; returns the number of mismatches */
static int judge_problem(struct runner *r, const char *problem, char *report, size_t cap)
{
    char dir[1024], problem_dir[512];
    snprintf(problem_dir, sizeof problem_dir, "%s/testdata/%s", SRC, problem);
    snprintf(dir, sizeof dir, "%s/solutions", problem_dir);
    struct batch b = {.r = r, .problem = problem, .problem_dir = problem_dir, .dir = dir, .report = report,
                      .cap = cap};
    b.n = scandir(dir, &b.names, visible, alphasort);
    cr_assert_geq(b.n, 1, "%s has no solutions", dir);
    atomic_init(&b.next, 0);
    pthread_mutex_init(&b.mu, NULL);
    pthread_t t[JUDGE_THREADS];
    for (int i = 0; i < JUDGE_THREADS; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, judge_batch, &b), 0);
    for (int i = 0; i < JUDGE_THREADS; i++)
        pthread_join(t[i], NULL);
    pthread_mutex_destroy(&b.mu);
    for (int i = 0; i < b.n; i++)
        free(b.names[i]);
    free(b.names);
    return b.bad;
}

static void judge_all_solutions_of(const char *problem)
{
    struct runner *r = open_runner(JUDGE_THREADS);
    char report[32768] = "";
    int bad = judge_problem(r, problem, report, sizeof report);
    runner_close(r);
    cr_assert_eq(bad, 0, "verdicts differ from the solutions' names:\n%s", report);
}

Test(solutions, aplusb, .timeout = 600) { judge_all_solutions_of("aplusb"); }
Test(solutions, bigsum, .timeout = 600) { judge_all_solutions_of("bigsum"); }
Test(solutions, circles, .timeout = 600) { judge_all_solutions_of("circles"); }
Test(solutions, divisor, .timeout = 600) { judge_all_solutions_of("divisor"); }
Test(solutions, rangesum, .timeout = 600) { judge_all_solutions_of("rangesum"); }
Test(solutions, guess, .timeout = 600) { judge_all_solutions_of("guess"); }
Test(solutions, findmax, .timeout = 600) { judge_all_solutions_of("findmax"); }
Test(solutions, sumarray, .timeout = 600) { judge_all_solutions_of("sumarray"); }
Test(solutions, divisors, .timeout = 600) { judge_all_solutions_of("divisors"); }
Test(solutions, yesno, .timeout = 600) { judge_all_solutions_of("yesno"); }
Test(solutions, ratio, .timeout = 600) { judge_all_solutions_of("ratio"); }
Test(solutions, pairsum, .timeout = 600) { judge_all_solutions_of("pairsum"); }
/* DMOJ's self-test as a problem: each language's "echo the first line" */
Test(solutions, echo, .timeout = 600) { judge_all_solutions_of("echo"); }

/* ---- compile-time attacks ---- */

/* A compile that never ends on its own ends as CE, stopped by its limits:
 * its CPU time stays under max_cpu seconds (the languages give 20 s). CPU
 * time, not wall time: on a busy machine the wall clock of a compile grows
 * with the load, its CPU time does not. */
static void assert_ce_within(const char *lang, const char *source, double max_cpu)
{
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, SRC "/testdata/aplusb", lang, source, strlen(source));
    cr_assert_eq(j.verdict, RUNNER_CE, "%s", j.json);
    json_t *o = json_loads(j.json, 0, NULL);
    json_t *compile = json_object_get(o, "compile");
    cr_assert(json_is_number(json_object_get(compile, "cpu_time")), "%s", j.json);
    double cpu = json_number_value(json_object_get(compile, "cpu_time"));
    cr_assert_lt(cpu, max_cpu, "the compile used %.1f s of CPU", cpu);
    const char *out = json_string_value(json_object_get(compile, "output"));
    cr_assert(out && strlen(out) <= 70 * 1024, "compile output must be truncated");
    json_decref(o);
    free(j.json);
    runner_close(r);
}

Test(compile, include_dev_zero_is_ce, .timeout = 120)
{
    assert_ce_within("c", "#include \"/dev/zero\"\nint main(void){return 0;}\n", 40);
}

Test(compile, include_dev_random_is_ce, .timeout = 120)
{
    assert_ce_within("cpp", "#include \"/dev/urandom\"\nint main(){}\n", 40);
}

Test(compile, recursive_include_is_ce, .timeout = 120)
{
    assert_ce_within("c", "#include __FILE__\n#include __FILE__\nint main(void){return 0;}\n", 40);
}

Test(compile, syntax_error_is_ce_with_message, .timeout = 60)
{
    struct runner *r = open_runner(1);
    const char *src = "int main(void) { return }\n";
    struct judged j = judge_source(r, SRC "/testdata/aplusb", "c", src, strlen(src));
    cr_assert_eq(j.verdict, RUNNER_CE);
    cr_assert(strstr(j.json, "main.c:1"), "the compiler's message is kept: %s", j.json);
    free(j.json);
    runner_close(r);
}

/* ---- isolation ---- */

Test(isolation, no_answers_no_test_data_no_leftovers, .timeout = 120)
{
    char *pkg = scratch_dir("iso");
    put_file(pkg, "problem.yaml", "name: iso\ntime_limit: 2s\nmemory_limit: 128M\n"
             "stop_on_failure: none\n");
    put_file(pkg, "tests/1.in", "%s\n", pkg);
    put_file(pkg, "tests/1.out", "ok\n");
    put_file(pkg, "tests/2.in", "%s\n", pkg);
    put_file(pkg, "tests/2.out", "ok\n");
    /* prints "ok" only if it can neither read the answer nor write the input
     * nor find the file it left in its cwd during test 1 */
    const char *src =
        "#include <stdio.h>\n#include <unistd.h>\n"
        "int main(void){ char dir[512], p[600]; if (scanf(\"%511s\", dir) != 1) return 2;\n"
        " int bad = 0; snprintf(p, sizeof p, \"%s/tests/1.out\", dir);\n"
        " if (fopen(p, \"r\")) bad = 1;\n"
        " if (fopen(\"/proc/self/fd/0\", \"w\")) bad = 1;\n"
        " if (access(\"left-behind\", F_OK) == 0) bad = 1;\n"
        " FILE *f = fopen(\"left-behind\", \"w\"); if (f) fclose(f);\n"
        " puts(bad ? \"leak\" : \"ok\"); return 0; }\n";
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", src, strlen(src));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* ---- checkers ---- */

static char *checker_package(const char *checker_source)
{
    char *pkg = scratch_dir("chk");
    put_file(pkg, "problem.yaml", "name: chk\ntime_limit: 1s\nmemory_limit: 64M\n"
             "checker: {type: custom, source: check.c}\n");
    put_file(pkg, "check.c", "%s", checker_source);
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    return pkg;
}

static const char aplusb_c[] = "#include <stdio.h>\nint main(void){long a,b;"
                               "if(scanf(\"%ld %ld\",&a,&b)!=2)return 1;printf(\"%ld\\n\",a+b);}\n";

Test(checkers, failing_checker_is_ie_not_wa, .timeout = 60)
{
    char *pkg = checker_package("#include <stdio.h>\nint main(void){fputs(\"cannot parse\", "
                                "stderr); return 3;}\n");
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_IE, "%s", j.json);
    cr_assert(strstr(j.json, "cannot parse"), "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* the report's top-level message of an IE (issue 37: never without one) */
static void assert_ie_message(const char *json, const char *part)
{
    json_t *doc = json_loads(json, 0, NULL);
    const char *m = json_string_value(json_object_get(doc, "message"));
    cr_assert(m && *m && (!part || strstr(m, part)), "IE with message containing '%s': %s",
              part ? part : "", json);
    json_decref(doc);
}

Test(checkers, crashing_checker_is_ie, .timeout = 60)
{
    char *pkg = checker_package("#include <stdlib.h>\nint main(void){abort();}\n");
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_IE, "%s", j.json);
    assert_ie_message(j.json, "test 1: ");
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

Test(checkers, partial_points, .timeout = 60)
{
    char *pkg = checker_package("#include <stdio.h>\nint main(void){puts(\"0.25\"); "
                                "fputs(\"a quarter\", stderr); return 7;}\n");
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_float_eq(j.score, 25, 1e-9, "%s", j.json);
    cr_assert(strstr(j.json, "a quarter"), "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

Test(checkers, checker_sees_input_output_answer, .timeout = 60)
{
    char *pkg = checker_package(
        "#include <stdio.h>\nint main(int c, char **v){ if (c != 4) return 3;\n"
        " long a, b, out, ans; FILE *i = fopen(v[1], \"r\"), *o = fopen(v[2], \"r\"),"
        " *x = fopen(v[3], \"r\"); if (!i || !o || !x) return 3;\n"
        " if (fscanf(i, \"%ld %ld\", &a, &b) != 2 || fscanf(x, \"%ld\", &ans) != 1) return 3;\n"
        " if (fscanf(o, \"%ld\", &out) != 1) return 2;\n"
        " if (out != a + b || out != ans) { fprintf(stderr, \"expected %ld\", ans); return 1; }\n"
        " fprintf(stderr, \"fine\"); return 0; }\n");
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    const char *wrong = "int main(void){return !puts(\"4\");}\n";
    j = judge_source(r, pkg, "c", wrong, strlen(wrong));
    cr_assert_eq(j.verdict, RUNNER_WA, "%s", j.json);
    cr_assert(strstr(j.json, "expected 3"), "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

Test(checkers, checker_that_does_not_compile, .timeout = 60)
{
    char *pkg = checker_package("int main(void) { syntax error }\n");
    struct runner *r = open_runner(1);
    char *errors = NULL;
    int count = runner_problem_check(r, pkg, &errors, NULL);
    cr_assert_eq(count, 1, "%s", errors);
    cr_assert(strstr(errors, "problem.yaml:4: checker.source: check.c: the checker does not compile"),
              "%s", errors);
    free(errors);
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_IE, "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* ---- a helper's build: its own clock (issue 37) ---- */

/* A runner whose only language is C with a compile clock of 1 s (wall
 * 2.5 s): a contestant's compile clock a helper's build must never run on.
 * limit: a runner_limits setting, or NULL. */
static struct runner *open_short_clock_runner(const char *limit)
{
    char *langs = scratch_dir("langs");
    put_file(langs, "c.yaml", "id: c\nname: C\nversion: [/usr/bin/gcc, --version]\nsource: main.c\n"
             "compile: [/usr/bin/gcc, -std=gnu17, -O2, -pipe, -o, main, main.c, -lm]\nrun: [./main]\n"
             "compile_limits: {time: 1s, memory: 512M, output: 64M, procs: 32}\nprocesses: 32\n"
             "env: {PATH: /usr/bin:/bin}\n");
    struct runner_config cfg = {.languages_dir = langs, .work_dir = WORK_DIR, .first_slot = FIRST_SLOT,
                                .slots = 1, .prepare_off = true};
    char err[4096];
    if (limit)
        cr_assert_eq(runner_limits_set(&cfg.limits, limit, err, sizeof err), 0, "%s", err);
    struct runner *r = NULL;
    cr_assert_eq(runner_open(&r, &cfg, err, sizeof err), 0, "runner_open: %s", err);
    remove_dir(langs);
    free(langs);
    return r;
}

/* A package whose checker is a program directory with a build script that
 * waits `seconds` (a busy host's compile, without the CPU) and makes a run
 * script accepting everything; unique per call, so never built before. */
static char *slow_build_package(int seconds)
{
    char *pkg = scratch_dir("slowbuild");
    put_file(pkg, "problem.yaml", "name: slow\ntime_limit: 1s\nmemory_limit: 64M\n"
             "checker: {type: custom, source: chk}\n");
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    put_file(pkg, "chk/build", "# %ld.%09ld %d\nsleep %d\necho 'exit 0' > run\n", (long)now.tv_sec,
             now.tv_nsec, (int)getpid(), seconds);
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    return pkg;
}

/* The contest-day IE: a checker build slower than a contestant's
 * compile wall clock (here 2.5 s; on a busy host g++ of a testlib checker)
 * was IE "does not compile". Its own clock lets it finish. */
Test(helpers, a_build_past_a_contestants_compile_clock_is_not_ie, .timeout = 120)
{
    char *pkg = slow_build_package(4);
    struct runner *r = open_short_clock_runner(NULL);
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* Out of wall clock with CPU time left: the host's fault, an
 * infrastructure failure judged retries (never IE); its err says why. */
Test(helpers, a_build_starved_of_its_wall_clock_is_an_infrastructure_failure, .timeout = 120)
{
    char *pkg = slow_build_package(3);
    struct runner *r = open_short_clock_runner("helper_wall_time=1s");
    struct runner_request req = {.problem_dir = pkg, .language = "c", .source = aplusb_c,
                                 .source_len = strlen(aplusb_c)};
    struct runner_report *rep = NULL;
    enum runner_failure failure = RUNNER_FAILURE_NONE;
    char err[1024] = "";
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), -1, "judged: %s",
                 rep ? runner_verdict_name(runner_report_verdict(rep)) : "?");
    cr_assert_null(rep);
    cr_assert_eq(failure, RUNNER_FAILURE_INFRA);
    cr_assert(strstr(err, "helper") && strstr(err, "wall clock") && strstr(err, "CPU time left"), "%s", err);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* A wall-clock TLE with CPU time left says so (issue 37): a jury tells a
 * sleeping (or starved) program from one that computed too long. */
Test(verdicts, a_wall_clock_tle_with_cpu_left_says_idle_or_waiting, .timeout = 60)
{
    char *pkg = scratch_dir("idle");
    put_file(pkg, "problem.yaml", "name: idle\ntime_limit: 1s\nwall_time_limit: 1.5s\nmemory_limit: 64M\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    struct runner *r = open_runner(1);
    const char *sleeper = "#include <unistd.h>\nint main(void){ sleep(30); return 0; }\n";
    struct judged j = judge_source(r, pkg, "c", sleeper, strlen(sleeper));
    cr_assert_eq(j.verdict, RUNNER_TLE, "%s", j.json);
    cr_assert(strstr(j.json, "wall clock > 1.500 s") && strstr(j.json, "with CPU time left") &&
              strstr(j.json, "idle or waiting"), "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* One box per core (issue 37): a runner given cpus runs each slot's boxes
 * on its CPU: the program's affinity, and on a v1 host the slot's cpuset
 * cgroup (the compile ran there too). The CPU: the last this test may use. */
Test(runner, a_slot_runs_on_its_own_cpu, .timeout = 60)
{
    cpu_set_t mine;
    cr_assert_eq(sched_getaffinity(0, sizeof mine, &mine), 0);
    int cpu = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mine))
            cpu = c;
    char *pkg = scratch_dir("pin");
    put_file(pkg, "problem.yaml", "name: pin\ntime_limit: 1s\nmemory_limit: 64M\n");
    put_file(pkg, "tests/1.in", "\n");
    put_file(pkg, "tests/1.out", "%d\n", cpu);
    struct runner_config cfg = {.languages_dir = SRC "/languages", .work_dir = WORK_DIR,
                                .first_slot = FIRST_SLOT, .slots = 1, .cpus = &cpu};
    struct runner *r = NULL;
    char err[4096];
    cr_assert_eq(runner_open(&r, &cfg, err, sizeof err), 0, "runner_open: %s", err);
    const char *where = "#include <stdio.h>\n#include <string.h>\nint main(void){ char l[256];"
                        " FILE *f = fopen(\"/proc/self/status\", \"r\"); while (f && fgets(l, sizeof l, f))"
                        " if (!strncmp(l, \"Cpus_allowed_list:\", 18)) { fputs(l + 19, stdout); return 0; }"
                        " return 1; }\n";
    struct judged j = judge_source(r, pkg, "c", where, strlen(where));
    cr_assert_eq(j.verdict, RUNNER_AC, "the program runs on CPU %d only: %s", cpu, j.json);
    free(j.json);
    char path[256], got[64] = "";
    snprintf(path, sizeof path, "/sys/fs/cgroup/cpuset/judge-sandbox/box-%d/cpuset.cpus", FIRST_SLOT);
    FILE *f = fopen(path, "r");
    if (f) {   /* a v1 cpuset hierarchy: the slot's cgroup is pinned too */
        cr_assert(fgets(got, sizeof got, f));
        fclose(f);
        cr_assert_eq(atoi(got), cpu, "%s: %s", path, got);
    }
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* The helper cache is bounded (issue 40, finding 5): a new build removes
 * the least recently used helpers past the bound, but never one used in
 * the last 30 minutes (a judging may start it again). */
Test(helpers, the_cache_is_bounded_and_spares_a_helper_in_use, .timeout = 120)
{
    char work[] = "/tmp/runner-helper-cache-XXXXXX";
    cr_assert_not_null(mkdtemp(work));
    struct runner_config cfg = {.languages_dir = SRC "/languages", .work_dir = work, .first_slot = FIRST_SLOT,
                                .slots = 1, .helper_cache = 1, .prepare_off = true};
    struct runner *r = NULL;
    char err[4096], old[300], fresh[400];
    cr_assert_eq(runner_open(&r, &cfg, err, sizeof err), 0, "runner_open: %s", err);
    char *a = checker_package("int main(void){return 0;}\n");
    struct judged j = judge_source(r, a, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    char *b = checker_package("int main(void){return 0; /* another */}\n");
    j = judge_source(r, b, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    /* both in use (the cache is over its 1 byte): both kept */
    size_t len = 0;
    snprintf(err, sizeof err, "ls '%s/checkers' | grep -v tmp | wc -l", work);
    FILE *p = popen(err, "r");
    cr_assert(p && fscanf(p, "%zu", &len) == 1);
    pclose(p);
    cr_assert_eq(len, 2, "helpers in use are kept");
    /* a's last use an hour ago: the next build removes it, not b */
    snprintf(err, sizeof err, "cd '%s/checkers' && ls -t | tail -1", work);
    p = popen(err, "r");
    cr_assert(p && fgets(old, sizeof old, p));
    pclose(p);
    old[strcspn(old, "\n")] = 0;
    snprintf(fresh, sizeof fresh, "%s/checkers/%s", work, old);
    struct timespec hour_ago[2] = {{.tv_sec = time(NULL) - 3600}, {.tv_sec = time(NULL) - 3600}};
    cr_assert_eq(utimensat(AT_FDCWD, fresh, hour_ago, 0), 0, "%s", fresh);
    char *c = checker_package("int main(void){return 0; /* a third */}\n");
    j = judge_source(r, c, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    struct stat st;
    cr_assert_neq(stat(fresh, &st), 0, "the least recently used helper went: %s", fresh);
    snprintf(err, sizeof err, "ls '%s/checkers' | grep -v tmp | wc -l", work);
    p = popen(err, "r");
    cr_assert(p && fscanf(p, "%zu", &len) == 1);
    pclose(p);
    cr_assert_eq(len, 2, "the two in use stay");
    runner_close(r);
    remove_dir(a), remove_dir(b), remove_dir(c), remove_dir(work);
    free(a), free(b), free(c);
}

/* A program the clock stopped while its memory stood at the limit is MLE
 * (issue 37): here 62 MiB touched under 64M, then a spin to the CPU limit
 * (where a busy host's slow page faults leave a memory bomb). */
Test(verdicts, stopped_by_the_clock_at_the_memory_limit_is_mle, .timeout = 60)
{
    char *pkg = scratch_dir("atlimit");
    put_file(pkg, "problem.yaml", "name: atlimit\ntime_limit: 1s\nmemory_limit: 64M\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    struct runner *r = open_runner(1);
    const char *full = "#include <stdlib.h>\nint main(void){ size_t n = 62u << 20;"
                       " volatile char *p = malloc(n); if (!p) return 1; for (size_t i = 0; i < n; i += 4096) p[i] = 1;"
                       " for (;;) p[0]++; }\n";
    struct judged j = judge_source(r, pkg, "c", full, strlen(full));
    cr_assert_eq(j.verdict, RUNNER_MLE, "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* compile_limits cannot buy more than the host's maximum (issue 40,
 * finding 5): a compile asking 100G of memory is stopped at
 * compile_memory_max (the preprocessor reading /dev/zero grows until a
 * limit stops it). The problem also raises the compile clock: with the
 * language's 1 s a fresh machine's slow first compile ran out of time
 * before it reached 768M (CE by time, not by the cap). */
Test(compile, a_problems_compile_limits_stop_at_the_hosts_maximum, .timeout = 120)
{
    char *pkg = scratch_dir("cmax");
    put_file(pkg, "problem.yaml", "name: cmax\ntime_limit: 1s\nmemory_limit: 64M\n"
             "compile_limits: {memory: 100G, time: 30s}\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    struct runner *r = open_short_clock_runner("compile_memory_max=768M");
    const char *endless = "#include \"/dev/zero\"\nint main(void){return 0;}\n";
    struct judged j = judge_source(r, pkg, "c", endless, strlen(endless));
    cr_assert_eq(j.verdict, RUNNER_CE, "%s", j.json);
    cr_assert(strstr(j.json, "memory limit (768 MiB)"), "stopped at the host's maximum: %s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* ---- a checker in the Kattis protocol (an ICPC output validator) ---- */

/* A package whose checker is validator.c in the Kattis protocol, with the
 * run arguments args (a YAML list, or NULL) and two tests of A+B. */
static char *kattis_package(const char *validator, const char *args)
{
    char *pkg = scratch_dir("kattis");
    put_file(pkg, "problem.yaml", "name: kat\ntime_limit: 1s\nmemory_limit: 64M\n"
             "checker: {type: custom, source: validator.c, protocol: kattis%s%s}\n",
             args ? ", args: " : "", args ? args : "");
    put_file(pkg, "validator.c", "%s", validator);
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    put_file(pkg, "tests/2.in", "20 22\n");
    put_file(pkg, "tests/2.out", "42\n");
    return pkg;
}

static struct judged judge_kattis(const char *validator, const char *args, const char *source)
{
    char *pkg = kattis_package(validator, args);
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", source, strlen(source));
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
    return j;
}

/* Several answers are right: any output the validator accepts is AC; the
 * one it rejects is WA with its judgemessage.txt as the test's message. */
Test(kattis_checker, accepts_any_right_answer_and_shows_the_judgemessage, .timeout = 120)
{
    struct runner *r = open_runner(1);
    const char *pkg = SRC "/testdata/pairsum";
    const char *other = "#include <stdio.h>\nint main(void){long long n; scanf(\"%lld\", &n);"
                        " printf(\"%lld 1\\n\", n - 1); return 0; }\n";
    struct judged j = judge_source(r, pkg, "c", other, strlen(other));
    cr_assert_eq(j.verdict, RUNNER_AC, "n-1 and 1, not the jury's 1 and n-1: %s", j.json);
    free(j.json);
    const char *equal = "#include <stdio.h>\nint main(void){long long n; scanf(\"%lld\", &n);"
                        " printf(\"%lld %lld\\n\", n / 2, n - n / 2); return 0; }\n";
    j = judge_source(r, pkg, "c", equal, strlen(equal));
    cr_assert_eq(j.verdict, RUNNER_WA, "%s", j.json);
    cr_assert(strstr(j.json, "a and b must be different: 2 + 2 for n = 4"),
              "the judgemessage, and the flag reached the validator: %s", j.json);
    free(j.json);
    runner_close(r);
}

/* The validator's argv, stdin and feedback dir as Kattis defines them: it
 * fails (exit 1: IE) unless argv is IN ANS FEEDBACK_DIR then the package's
 * args, its stdin is the output, the feedback dir is empty at each test
 * (fresh) and writable, and the package is read-only. */
Test(kattis_checker, sees_kattis_argv_stdin_and_a_fresh_feedback_dir, .timeout = 120)
{
    const char *validator =
        "#include <dirent.h>\n#include <stdio.h>\n#include <string.h>\n"
        "int main(int argc, char **argv) {\n"
        " if (argc != 6 || strcmp(argv[4], \"--flag\") || strcmp(argv[5], \"two words\"))"
        " { fprintf(stderr, \"argv\"); return 1; }\n"
        " DIR *d = opendir(argv[3]); struct dirent *e; int n = 0;\n"
        " while (d && (e = readdir(d))) n += e->d_name[0] != '.';\n"
        " if (!d || n) { fprintf(stderr, \"feedback dir not fresh\"); return 1; }\n"
        " char p[4096]; snprintf(p, sizeof p, \"%s/judgemessage.txt\", argv[3]);\n"
        " FILE *m = fopen(p, \"w\"); if (!m) return 1;\n"
        " if (fopen(argv[1], \"a\")) { fprintf(stderr, \"package writable\"); return 1; }\n"
        " long a, b, ans, out; FILE *in = fopen(argv[1], \"r\"), *x = fopen(argv[2], \"r\");\n"
        " if (!in || !x || fscanf(in, \"%ld %ld\", &a, &b) != 2 || fscanf(x, \"%ld\", &ans) != 1)"
        " return 1;\n"
        " if (scanf(\"%ld\", &out) != 1 || out != ans) { fprintf(m, \"expected %ld\", ans);"
        " return 43; }\n"
        " fprintf(m, \"ok %ld\", out); return 42; }\n";
    struct judged j = judge_kattis(validator, "[--flag, two words]", aplusb_c);
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    cr_assert(strstr(j.json, "ok 42"), "%s", j.json);
    free(j.json);
    j = judge_kattis(validator, "[--flag, two words]", "int main(void){return !puts(\"3\");}\n");
    cr_assert_eq(j.verdict, RUNNER_WA, "test 2: %s", j.json);
    cr_assert(strstr(j.json, "expected 42"), "%s", j.json);
    free(j.json);
}

/* A validator that fails (exit 1, a crash, any code but 42/43) is the
 * problem's fault: IE, never the contestant's WA. */
Test(kattis_checker, failing_or_crashing_validator_is_ie, .timeout = 120)
{
    struct judged j = judge_kattis("#include <stdio.h>\nint main(void){ fputs(\"cannot parse the "
                                   "answer\", stderr); return 1; }\n", NULL, aplusb_c);
    cr_assert_eq(j.verdict, RUNNER_IE, "%s", j.json);
    cr_assert(strstr(j.json, "the checker exited 1 (Kattis: 42 accept, 43 reject): cannot parse "
                     "the answer"), "%s", j.json);
    free(j.json);
    j = judge_kattis("#include <stdlib.h>\nint main(void){ abort(); }\n", NULL, aplusb_c);
    cr_assert_eq(j.verdict, RUNNER_IE, "%s", j.json);
    free(j.json);
    j = judge_kattis("int main(void){ return 0; }\n", NULL, aplusb_c);
    cr_assert_eq(j.verdict, RUNNER_IE, "testlib's AC is not Kattis's: %s", j.json);
    free(j.json);
}

/* The validator is the problem's code but the host reads its feedback as
 * root: a judgemessage.txt linking to a host file is not read through, a
 * FIFO does not block the judge; the message falls back to stderr. */
Test(kattis_checker, feedback_links_and_fifos_are_not_read, .timeout = 120)
{
    const char *validator =
        "#include <stdio.h>\n#include <unistd.h>\n#include <sys/stat.h>\n"
        "int main(int argc, char **argv) { if (argc < 4) return 1; char p[4096];\n"
        " snprintf(p, sizeof p, \"%s/judgemessage.txt\", argv[3]);\n"
        " if (symlink(\"/etc/passwd\", p)) return 1;\n"
        " snprintf(p, sizeof p, \"%s/teammessage.txt\", argv[3]);\n"
        " if (mkfifo(p, 0666)) return 1;\n"
        " fputs(\"rejected, said on stderr\", stderr); return 43; }\n";
    struct judged j = judge_kattis(validator, NULL, aplusb_c);
    cr_assert_eq(j.verdict, RUNNER_WA, "%s", j.json);
    cr_assert(strstr(j.json, "rejected, said on stderr"), "%s", j.json);
    cr_assert(!strstr(j.json, "root:"), "a host file leaked: %s", j.json);
    free(j.json);
}

/* ---- runner behaviour ---- */

struct parallel {
    struct runner *r;
    enum runner_verdict verdict;
    char err[512];
};

static void *judge_in_thread(void *arg)
{
    struct parallel *p = arg;
    size_t len;
    char *src = slurp(SRC "/testdata/aplusb/solutions/ac.c", &len);
    struct runner_request req = {.problem_dir = SRC "/testdata/aplusb", .language = "c",
                                 .source = src, .source_len = len};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    p->verdict = runner_judge(p->r, &req, &rep, &failure, p->err, sizeof p->err) == 0
                     ? runner_report_verdict(rep) : RUNNER_IE;
    runner_report_free(rep);
    free(src);
    return NULL;
}

Test(runner, several_submissions_at_once, .timeout = 120)
{
    struct runner *r = open_runner(2);
    pthread_t t[4];
    struct parallel p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = (struct parallel){r, RUNNER_IE, ""};
        pthread_create(&t[i], NULL, judge_in_thread, &p[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        cr_assert_eq(p[i].verdict, RUNNER_AC, "submission %d: %s", i, p[i].err);
    }
    runner_close(r);
}

static bool stop_now(void *arg)
{
    (void)arg;
    return false;
}

Test(runner, abandoned_job_and_bad_requests, .timeout = 60)
{
    struct runner *r = open_runner(1);
    struct runner_request req = {.problem_dir = SRC "/testdata/aplusb", .language = "c",
                                 .source = aplusb_c, .source_len = strlen(aplusb_c),
                                 .keep_going = stop_now};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    char err[512];
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), -1);
    cr_assert_eq(failure, RUNNER_FAILURE_ABORTED);
    req.keep_going = NULL;
    req.language = "intercal";
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), -1);
    cr_assert_eq(failure, RUNNER_FAILURE_NONE);
    cr_assert(strstr(err, "intercal"));
    req.language = "c";
    req.problem_dir = "/nonexistent/problem";
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), -1);
    cr_assert_eq(failure, RUNNER_FAILURE_INFRA);
    runner_close(r);
}

Test(runner, every_language_passes_its_self_test, .timeout = 600)
{
    struct runner *r = open_runner(1);
    char report[4096] = "";
    for (size_t i = 0; i < runner_language_count(r); i++) {
        const char *id = runner_language_id(r, i);
        struct runner_selftest st;
        char err[512];
        int rc = runner_language_selftest(r, id, &st, err, sizeof err);
        if (rc < 0 || !st.ok || !st.version[0]) {
            size_t used = strlen(report);
            snprintf(report + used, sizeof report - used, "%s: %s [%s]\n", id,
                     rc < 0 ? err : st.status, st.version);
        }
    }
    runner_close(r);
    cr_assert_str_empty(report, "%s", report);
}

/* Each standard variant compiles with the standard it names: a program
 * checking __STDC_VERSION__ / __cplusplus prints "ok" only under its own
 * (issue 39; C's older standards' programs did not even compile when only
 * GNU C17 was offered). One compile and one test per variant. */
Test(runner, each_standard_variant_sees_its_standard, .timeout = 600)
{
    static const struct { const char *id; const char *macro, *value; } variants[] = {
        {"c99", "__STDC_VERSION__", "199901L"}, {"c11", "__STDC_VERSION__", "201112L"},
        {"c", "__STDC_VERSION__", "201710L"},
        {"cpp03", "__cplusplus", "199711L"}, {"cpp11", "__cplusplus", "201103L"},
        {"cpp14", "__cplusplus", "201402L"}, {"cpp17", "__cplusplus", "201703L"},
        {"cpp", "__cplusplus", "202002L"},
        {"cpp03_clang", "__cplusplus", "199711L"}, {"cpp11_clang", "__cplusplus", "201103L"},
        {"cpp14_clang", "__cplusplus", "201402L"}, {"cpp17_clang", "__cplusplus", "201703L"},
        {"cpp20_clang", "__cplusplus", "202002L"},
    };
    char *pkg = scratch_dir("standards");
    put_file(pkg, "problem.yaml", "name: standards\ntime_limit: 1s\nmemory_limit: 64M\nchecker: exact\n");
    put_file(pkg, "tests/1.in", "");
    put_file(pkg, "tests/1.out", "ok\n");
    struct runner *r = open_runner(1);
    char report[4096] = "";
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        char src[512];
        snprintf(src, sizeof src, "#include <stdio.h>\nint main(void) { puts(%s == %s ? \"ok\" : \"wrong\"); "
                 "return 0; }\n", variants[i].macro, variants[i].value);
        struct judged j = judge_source(r, pkg, variants[i].id, src, strlen(src));
        if (j.verdict != RUNNER_AC) {
            size_t used = strlen(report);
            snprintf(report + used, sizeof report - used, "%s: %s\n", variants[i].id,
                     runner_verdict_name(j.verdict));
        }
        free(j.json);
    }
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
    cr_assert_str_empty(report, "%s", report);
}

/* DMOJ's per-language smoke test: a program that echoes the first line of
 * its input, written in each language, judged AC (issue 39). The line holds
 * what a naive program would mangle: spaces, punctuation, a negative number;
 * the second line must not be printed. One compile and one test each. */
Test(runner, each_language_echoes_its_first_line, .timeout = 600)
{
    static const struct { const char *id, *src; } echoes[] = {
        {"groovy", "println System.in.newReader().readLine()\n"},
        {"scheme", "(use-modules (ice-9 rdelim))\n(display (read-line))\n(newline)\n"},
        {"racket", "#lang racket/base\n(displayln (read-line))\n"},
        {"awk", "NR == 1 { print; exit }\n"},
        {"coffeescript", "console.log require('fs').readFileSync(0, 'utf8').split('\\n')[0]\n"},
        {"pike", "int main() { write(Stdio.stdin->gets() + \"\\n\"); return 0; }\n"},
        {"forth", "create buf 256 allot\n: main buf 256 stdin read-line throw drop buf swap type cr ;\n"},
        /* reads and prints up to the newline (10), then prints a newline */
        {"brainfuck", ",----------[++++++++++.,----------]++++++++++.\n"},
        {"r", "cat(readLines(file(\"stdin\"), n = 1), \"\\n\", sep = \"\")\n"},
        {"sed", "q\n"},   /* prints the first line and quits */
    };
    char *pkg = scratch_dir("echo");
    put_file(pkg, "problem.yaml", "name: echo\ntime_limit: 5s\nmemory_limit: 256M\nchecker: exact\n");
    put_file(pkg, "tests/1.in", "Hello, World! -17 (echo)\nsecond line\n");
    put_file(pkg, "tests/1.out", "Hello, World! -17 (echo)\n");
    struct runner *r = open_runner(1);
    char report[4096] = "";
    for (size_t i = 0; i < sizeof echoes / sizeof echoes[0]; i++) {
        struct judged j = judge_source(r, pkg, echoes[i].id, echoes[i].src, strlen(echoes[i].src));
        if (j.verdict != RUNNER_AC) {
            size_t used = strlen(report);
            snprintf(report + used, sizeof report - used, "%s: %s %.300s\n", echoes[i].id,
                     runner_verdict_name(j.verdict), j.json ? j.json : "");
        }
        free(j.json);
    }
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
    cr_assert_str_empty(report, "%s", report);
}

/* ---- judgectl ---- */

static int run_judgectl(const char *args, char **out)
{
    char *cmd = NULL;
    cr_assert(asprintf(&cmd, "%s/judgectl %s --slot %d", BIN_DIR, args, FIRST_SLOT + 2) > 0);
    FILE *p = popen(cmd, "r");
    free(cmd);
    size_t cap = 1 << 20, len = fread(*out = malloc(cap), 1, cap - 1, p);
    (*out)[len] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(judgectl, json_contract_and_exit_status, .timeout = 120)
{
    char *out;
    int rc = run_judgectl("judge --json --problem " SRC "/testdata/aplusb --lang c "
                          SRC "/testdata/aplusb/solutions/wa_int32.c", &out);
    cr_assert_eq(rc, 0, "a verdict was reached, whatever it is");
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_not_null(j, "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(j, "verdict")), "WA");
    cr_assert(json_is_number(json_object_get(j, "score")));
    cr_assert(json_is_number(json_object_get(j, "max_score")));
    json_t *compile = json_object_get(j, "compile");
    cr_assert_str_eq(json_string_value(json_object_get(compile, "status")), "OK");
    cr_assert(json_is_number(json_object_get(compile, "cpu_time")));
    cr_assert_eq(json_array_size(json_object_get(j, "tests")), 20);
    cr_assert_eq(json_array_size(json_object_get(j, "subtasks")), 1);
    json_decref(j);
    free(out);
    rc = run_judgectl("judge --problem " SRC "/testdata/aplusb --lang c "
                      SRC "/testdata/aplusb/solutions/ac.c", &out);
    cr_assert_eq(rc, 0);
    cr_assert(strstr(out, "verdict: AC"), "%s", out);
    free(out);
}

/* issue 39: Rust's crates (rust.yaml's prepared files: Debian's librust-*-dev
 * built once per host). A program using rand, rand_xoshiro, itertools and num
 * is AC; one naming a crate Debian does not package is CE with rustc's own
 * words. The first judging builds the crates (a minute or more of CPU):
 * judgectl works in this tree's runner work dir, so the build is shared
 * with the runner's Rust samples (solutions/aplusb), once per build tree. */
static json_t *judge_rust(const char *source, char **out)
{
    char *dir = scratch_dir("rustcrates");
    put_file(dir, "main.rs", "%s", source);
    char args[1024];
    snprintf(args, sizeof args, "judge --json --workdir " WORK_DIR " --problem " SRC "/testdata/aplusb --lang rust %s/main.rs",
             dir);
    int rc = run_judgectl(args, out);
    cr_assert_eq(rc, 0, "a verdict was reached: %s", *out);
    json_t *j = json_loads(*out, 0, NULL);
    cr_assert_not_null(j, "%s", *out);
    remove_dir(dir);
    free(dir);
    return j;
}

Test(judgectl, rust_crates_are_there_and_others_are_ce, .timeout = 1200)
{
    char *out;
    json_t *j = judge_rust("use itertools::Itertools;\n"
                           "use num::{BigInt, Integer};\n"
                           "use rand::{Rng, SeedableRng};\n"
                           "use rand_xoshiro::Xoshiro256PlusPlus;\n"
                           "fn main() {\n"
                           "    let mut s = String::new();\n"
                           "    std::io::stdin().read_line(&mut s).unwrap();\n"
                           "    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
                           "    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);\n"
                           "    let k: i64 = rng.gen_range(1..10);\n"
                           "    let sum: BigInt = v.iter().map(|&x| BigInt::from(x * k)).sum();\n"
                           "    let (q, _) = sum.div_rem(&BigInt::from(k));\n"
                           "    let again: i64 = v.iter().sorted().rev().sum();\n"
                           "    assert_eq!(q, BigInt::from(again));\n"
                           "    println!(\"{}\", q);\n"
                           "}\n", &out);
    cr_assert_str_eq(json_string_value(json_object_get(j, "verdict")), "AC", "%s", out);
    json_decref(j);
    free(out);
    j = judge_rust("use proconio::input;\n"
                   "fn main() { input! { a: i64, b: i64 } println!(\"{}\", a + b); }\n", &out);
    cr_assert_str_eq(json_string_value(json_object_get(j, "verdict")), "CE", "%s", out);
    const char *log = json_string_value(json_object_get(json_object_get(j, "compile"), "output"));
    cr_assert(log && strstr(log, "proconio") && strstr(log, "E0432"), "rustc's message: %s", out);
    json_decref(j);
    free(out);
}

/* ---- hostile submissions through judgectl judge (issue 12) ---- */

#define HOSTILE SRC "/tests/hostile/"

/* A package whose tests feed the inputs to a hostile program (it reads its
 * mode from stdin) and expect `expected` from each; every test runs. */
static char *hostile_package(const char *memory, const char *const *inputs, const char *expected)
{
    char *pkg = scratch_dir("hostile");
    put_file(pkg, "problem.yaml", "name: hostile\ntime_limit: 2s\nmemory_limit: %s\n"
             "output_limit: 1M\nchecker: tokens\nstop_on_failure: none\n", memory);
    for (int i = 0; inputs[i]; i++) {
        char in[32], out[32];
        snprintf(in, sizeof in, "tests/%d.in", i + 1);
        snprintf(out, sizeof out, "tests/%d.out", i + 1);
        put_file(pkg, in, "%s\n", inputs[i]);
        put_file(pkg, out, "%s\n", expected);
    }
    return pkg;
}

/* Judges source (a file of tests/hostile/) against pkg; every test's
 * verdict must be want. */
static void expect_every_test(const char *pkg, const char *lang, const char *source,
                              const char *want)
{
    char args[1024], *out;
    snprintf(args, sizeof args, "judge --json --problem %s --lang %s %s", pkg, lang, source);
    int rc = run_judgectl(args, &out);
    cr_assert_eq(rc, 0, "judgectl: %s", out);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_not_null(j, "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "compile"), "status")),
                     "OK", "%s", out);
    json_t *tests = json_object_get(j, "tests");
    cr_assert_gt(json_array_size(tests), 0, "%s", out);
    for (size_t i = 0; i < json_array_size(tests); i++)
        cr_assert_str_eq(json_string_value(json_object_get(json_array_get(tests, i), "verdict")),
                         want, "test %zu: %s", i + 1, out);
    json_decref(j);
    free(out);
}

static void judge_hostile(const char *memory, const char *const *inputs, const char *expected,
                          const char *lang, const char *source, const char *want)
{
    char *pkg = hostile_package(memory, inputs, expected);
    expect_every_test(pkg, lang, source, want);
    remove_dir(pkg);
    free(pkg);
}

/* IE is a verdict of the judge's fault: a script must be able to tell it
 * from the verdicts a submission earns, by the exit status (3). */
Test(judgectl, ie_verdict_exits_3, .timeout = 120)
{
    char *pkg = scratch_dir("ctlie");
    put_file(pkg, "problem.yaml", "name: x\ntime_limit: 1s\nmemory_limit: 64M\n"
             "checker: {type: custom, source: check.c}\n");
    put_file(pkg, "check.c", "int main(void) { return 3; }\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    char args[1024];
    snprintf(args, sizeof args, "judge --json --problem %s --lang c %s", pkg,
             SRC "/testdata/aplusb/solutions/ac.c");
    char *out;
    int rc = run_judgectl(args, &out);
    cr_assert_eq(rc, 3, "exit %d: %s", rc, out);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_str_eq(json_string_value(json_object_get(j, "verdict")), "IE", "%s", out);
    json_decref(j);
    free(out);
    remove_dir(pkg);
    free(pkg);
}

/* item 1: blocks reserved beyond the size of stdout are OLE, not AC */
Test(judgectl, disk_reservation_is_ole, .timeout = 120)
{
    judge_hostile("64M", (const char *const[]){"keep_size 256", "zero_range 256", "resvsp 256",
                                                "zero_range_ioctl 256", NULL},
                  "x", "c", HOSTILE "disk_reserve.c", "OLE");
}

/* item 2: loopback TCP buffers stay within the memory limit */
Test(judgectl, tcp_buffers_within_memory_limit, .timeout = 120)
{
    judge_hostile("32M", (const char *const[]){"tcp 1 34603008", NULL}, "within", "c",
                  HOSTILE "kmem_hoard.c", "AC");
}

/* item 3: a Java program cannot start what it writes to /tmp or /dev/shm */
Test(judgectl, java_cannot_run_what_it_writes, .timeout = 180)
{
    judge_hostile("256M", (const char *const[]){"", NULL}, "blocked", "java",
                  HOSTILE "exec_escape.java", "AC");
}

/* item 5: calls the review denies, and one newer than the review */
Test(judgectl, unreviewed_and_denied_calls_are_sv, .timeout = 120)
{
    judge_hostile("64M", (const char *const[]){"modify_ldt", "nr 467", "nr 470", NULL}, "x",
                  "c", HOSTILE "syscalls.c", "SV");
}

/* item 6: no record lock on a file other boxes can read, taken or tested */
Test(judgectl, record_locks_are_sv, .timeout = 120)
{
    judge_hostile("64M", (const char *const[]){"ofd send EXFIL", "posix send EXFIL",
                                               "ofd recv 5", "posix recv 5", NULL},
                  "x", "c", HOSTILE "lock_channel.c", "SV");
}

/* item 7: every test of a submission meets a box no run has used, though
 * the compile ran in the same slot and each test leaves traces */
Test(judgectl, every_test_meets_a_fresh_box, .timeout = 120)
{
    judge_hostile("64M", (const char *const[]){"dirty", "dirty", "clean", NULL}, "fresh", "c",
                  HOSTILE "run_state.c", "AC");
}

Test(judgectl, problem_check, .timeout = 120)
{
    char *out;
    int rc = run_judgectl("problem check " SRC "/testdata/divisor", &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "OK divisor"), "%s", out);
    free(out);
    char *pkg = scratch_dir("ctl");
    put_file(pkg, "problem.yaml", "name: x\ntime_limit: 1s\nmemory_limit: 1Z\n");
    put_file(pkg, "tests/1.in", "\n");
    char args[512];
    snprintf(args, sizeof args, "problem check %s", pkg);
    rc = run_judgectl(args, &out);
    cr_assert_eq(rc, 1);
    cr_assert(strstr(out, "problem.yaml:3: memory_limit: bad size '1Z'"), "%s", out);
    cr_assert(strstr(out, "tests/1.in:0: tests: no matching tests/1.out"), "%s", out);
    free(out);
    remove_dir(pkg);
    free(pkg);
}

Test(isolation, cwd_is_read_only_and_tmp_is_scratch, .timeout = 120)
{
    /* The program's /box is its compiled files, read-only, so nothing it
     * writes can fill the host's disk; /tmp is private scratch space. It
     * prints the right sum only if both hold. */
    const char *src =
        "#include <errno.h>\n#include <stdio.h>\n#include <sys/stat.h>\n"
        "int main(void){ long a, b; if (scanf(\"%ld %ld\", &a, &b) != 2) return 1;\n"
        " int ok = fopen(\"big\", \"w\") == NULL && errno == EROFS;\n"
        " ok = ok && mkdir(\"d\", 0700) != 0;\n"
        " FILE *t = fopen(\"/tmp/scratch\", \"w\"); ok = ok && t && fputs(\"x\", t) >= 0;\n"
        " printf(\"%ld\\n\", ok ? a + b : -1); return 0; }\n";
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, SRC "/testdata/aplusb", "c", src, strlen(src));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    runner_close(r);
}

Test(languages, java_fits_a_256M_limit, .timeout = 120)
{
    /* a 160 MB int array under a 256M limit: the JVM's reserved address
     * space and its threads must not count, only what is resident. The JVM
     * zeroes the array, 160 MB of page faults (~0.5 s of CPU where they are
     * slow): 3 s (6 s for Java) keeps ten times that, plus the JVM's start. */
    char *pkg = scratch_dir("java256");
    put_file(pkg, "problem.yaml", "name: java256\ntime_limit: 3s\nmemory_limit: 256M\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    const char *src =
        "import java.util.*;\npublic class Main { public static void main(String[] a) {\n"
        " Scanner s = new Scanner(System.in); long x = s.nextLong(), y = s.nextLong();\n"
        " int[] big = new int[40_000_000];\n"
        " for (int i = 0; i < big.length; i += 1024) big[i] = 1;\n"
        " System.out.println(x + y + big[0] - 1); } }\n";
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "java", src, strlen(src));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* Live data beyond the limit is MLE, as contestants expect, not the
 * OutOfMemoryError (RE) of a heap too small: the cgroup stops the JVM first.
 * Where between 200 and 260 MiB of live data under 256M a program stops
 * fitting depends on the JVM's own memory (java.yaml's start-up flags moved
 * it: languages/README.md), not this end of it. */
Test(languages, java_live_data_beyond_its_limit_is_mle, .timeout = 120)
{
    char *pkg = scratch_dir("java300");
    /* 300 MiB of page faults (~1 s of CPU where they are slow): 5 s (10 s
     * for Java) keeps the verdict memory's */
    put_file(pkg, "problem.yaml", "name: java300\ntime_limit: 5s\nmemory_limit: 256M\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    const char *src =
        "import java.util.*;\npublic class Main { public static void main(String[] a) {\n"
        " Scanner s = new Scanner(System.in); long x = s.nextLong(), y = s.nextLong();\n"
        " List<byte[]> keep = new ArrayList<>();\n"
        " for (int i = 0; i < 300; i++) { byte[] b = new byte[1 << 20];\n"
        "  for (int j = 0; j < b.length; j += 4096) b[j] = 1; keep.add(b); }\n"
        " System.out.println(x + y + keep.size() - 300); } }\n";
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "java", src, strlen(src));
    cr_assert_eq(j.verdict, RUNNER_MLE, "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* ---- issue 11: languages as contestants expect them, memory measured right ---- */

static json_t *test_of(const char *json, size_t i)
{
    json_t *o = json_loads(json, 0, NULL);
    cr_assert_not_null(o, "%s", json);
    json_t *t = json_incref(json_array_get(json_object_get(o, "tests"), i));
    json_decref(o);
    return t;
}

static double memory_mib(const char *json)
{
    json_t *t = test_of(json, 0);
    double m = (double)json_integer_value(json_object_get(t, "memory")) / (1 << 20);
    json_decref(t);
    return m;
}

/* A heap just full of live data (205 MiB in 1 MiB arrays under 256M): MLE,
 * or AC with a memory figure within the limit, never AC reporting more than
 * the limit. java.yaml once mapped the class-data archive unrelocated for
 * runs (5 ms faster): the cgroup no longer charged it, the figure (peak
 * RSS) still counted it, and this was AC at ~278 MiB. */
Test(languages, java_accepted_never_reports_more_memory_than_its_limit, .timeout = 120)
{
    char *pkg = scratch_dir("java205");
    put_file(pkg, "problem.yaml", "name: java205\ntime_limit: 5s\nmemory_limit: 256M\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    const char *src =
        "import java.util.*;\npublic class Main { public static void main(String[] a) {\n"
        " Scanner s = new Scanner(System.in); long x = s.nextLong(), y = s.nextLong();\n"
        " List<byte[]> keep = new ArrayList<>();\n"
        " for (int i = 0; i < 205; i++) { byte[] b = new byte[1 << 20];\n"
        "  for (int j = 0; j < b.length; j += 4096) b[j] = 1; keep.add(b); }\n"
        " System.out.println(x + y + keep.size() - 205); } }\n";
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "java", src, strlen(src));
    cr_assert(j.verdict == RUNNER_MLE || (j.verdict == RUNNER_AC && memory_mib(j.json) <= 256), "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

Test(languages, java_any_class_name_prints_utf8, .timeout = 120)
{
    char *pkg = scratch_dir("utf8");
    put_file(pkg, "problem.yaml", "name: utf8\ntime_limit: 2s\nmemory_limit: 256M\n"
             "checker: exact\n");
    put_file(pkg, "tests/1.in", "Zoë\n");
    put_file(pkg, "tests/1.out", "héllo Zoë ∑ 日本\n");
    const char *src =
        "package judge.demo;\nimport java.io.*;\n"
        "public class Greeter {\n"
        " public static void main(String[] args) throws IOException {\n"
        "  BufferedReader in = new BufferedReader(new InputStreamReader(System.in));\n"
        "  System.out.println(\"héllo \" + in.readLine() + \" ∑ 日本\"); } }\n";
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "java", src, strlen(src));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    /* javac's own messages are UTF-8 too, not '?' */
    const char *bad = "public class Ünïcode { public static void main(String[] a) { int é = \"x\"; } }\n";
    j = judge_source(r, pkg, "java", bad, strlen(bad));
    cr_assert_eq(j.verdict, RUNNER_CE, "%s", j.json);
    cr_assert(strstr(j.json, "int é = "), "javac's message keeps the source's UTF-8: %s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* 1k: no program can even exec within it. MLE, the submission's verdict,
 * never an infrastructure failure (judged would retry and dead-letter it). */
Test(languages, tiny_memory_limit_is_mle, .timeout = 60)
{
    char *pkg = scratch_dir("tiny");
    put_file(pkg, "problem.yaml", "name: tiny\ntime_limit: 1s\nmemory_limit: 1k\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    struct runner *r = open_runner(1);
    for (int i = 0; i < 2; i++) {
        const char *lang = i ? "python3" : "c";
        const char *src = i ? "print(sum(map(int, input().split())))\n" : aplusb_c;
        struct judged j = judge_source(r, pkg, lang, src, strlen(src));
        cr_assert_eq(j.verdict, RUNNER_MLE, "%s: %s", lang, j.json);
        cr_assert_geq(memory_mib(j.json) * (1 << 20), 1024, "%s", j.json);
        free(j.json);
    }
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* The memory figure is the program's peak RSS: a 40 MiB toucher reads
 * 40-48 MiB on a fresh slot and again right after a Java run that left the
 * JDK's page cache charged to the slot's cgroup; A+B reads more than 0. */
Test(languages, memory_is_peak_rss_whatever_ran_before, .timeout = 180)
{
    char *pkg = scratch_dir("mem");
    put_file(pkg, "problem.yaml", "name: mem\ntime_limit: 2s\nmemory_limit: 256M\n");
    put_file(pkg, "tests/1.in", "40\n");
    put_file(pkg, "tests/1.out", "7\n");
    const char *toucher =
        "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
        "int main(void){ size_t mib; if (scanf(\"%zu\", &mib) != 1) return 1;\n"
        " char *p = malloc(mib << 20); if (!p) return 1; memset(p, 7, mib << 20);\n"
        " printf(\"%d\\n\", p[(mib << 20) - 1]); return 0; }\n";
    const char *java =
        "public class Main { public static void main(String[] a) {\n"
        " int[][] keep = new int[40][]; for (int i = 0; i < 40; i++) keep[i] = new int[1 << 18];\n"
        " System.out.println(keep.length / 40 * 7); } }\n";
    const char *tiny = "int main(void){ return !puts(\"7\"); }\n";
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", toucher, strlen(toucher));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    double fresh = memory_mib(j.json);
    free(j.json);
    j = judge_source(r, pkg, "java", java, strlen(java));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    double jvm = memory_mib(j.json);
    free(j.json);
    j = judge_source(r, pkg, "c", toucher, strlen(toucher));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    double after = memory_mib(j.json);
    free(j.json);
    j = judge_source(r, pkg, "c", tiny, strlen(tiny));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    double small = memory_mib(j.json);
    free(j.json);
    runner_close(r);
    cr_log_info("toucher %.1f MiB fresh, java %.1f MiB, toucher %.1f MiB after, puts %.2f MiB",
                fresh, jvm, after, small);
    cr_assert(fresh >= 40 && fresh <= 48, "fresh slot: %.1f MiB", fresh);
    cr_assert(after >= 40 && after <= 48, "after a Java run: %.1f MiB", after);
    cr_assert(jvm > 40, "the JVM's own peak RSS: %.1f MiB", jvm);
    cr_assert(small > 0 && small < 16, "a minimal C program: %.2f MiB", small);
    remove_dir(pkg);
    free(pkg);
}

Test(runner, broken_package_is_ie_with_the_errors, .timeout = 60)
{
    char *pkg = scratch_dir("broken");
    put_file(pkg, "problem.yaml", "name: broken\ntime_limit: soon\nmemory_limit: 64M\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_IE, "the problem's fault, with a verdict: %s", j.json);
    cr_assert(strstr(j.json, "problem.yaml:2: time_limit: bad duration"), "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

Test(runner, failed_runs_say_why, .timeout = 60)
{
    const char *segv = "int main(void){ volatile int *p = 0; return *p; }\n";
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, SRC "/testdata/aplusb", "c", segv, strlen(segv));
    cr_assert_eq(j.verdict, RUNNER_RE, "%s", j.json);
    json_t *o = json_loads(j.json, 0, NULL);
    json_t *t = json_array_get(json_object_get(o, "tests"), 0);
    cr_assert_eq(json_integer_value(json_object_get(t, "signal")), 11);
    cr_assert(strlen(json_string_value(json_object_get(t, "checker_message"))) > 0);
    json_decref(o);
    free(j.json);
    runner_close(r);
}

/* ---- the work tree (issue 12, item 9) ---- */

#define NOBODY 65534

/* What uid NOBODY gets from stat(path): 0, or the errno. */
static int stat_as_nobody(const char *path)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        struct stat st;
        if (setgroups(0, NULL) < 0 || setresgid(NOBODY, NOBODY, NOBODY) < 0 ||
            setresuid(NOBODY, NOBODY, NOBODY) < 0)
            _exit(255);
        _exit(stat(path, &st) == 0 ? 0 : errno);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 255, "cannot become uid %d", NOBODY);
    return WEXITSTATUS(st);
}

/* During a run a slot's src/ is the box uid's, mode 0777: only a work tree
 * no other user can enter keeps a local user from swapping a compiled
 * ./main between tests. After a judged run the tree is root's, 0700, and
 * uid 65534 reaches nothing in it. */
Test(isolation, work_tree_is_root_only, .timeout = 120)
{
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, SRC "/testdata/aplusb", "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    runner_close(r);
    struct stat st;
    cr_assert_eq(stat(WORK_DIR, &st), 0);
    cr_assert(st.st_uid == 0 && (st.st_mode & 07777) == 0700,
              "%s is uid %d mode %o, not root's 0700", WORK_DIR, (int)st.st_uid,
              st.st_mode & 07777);
    char slot_dir[600];
    snprintf(slot_dir, sizeof slot_dir, "%s/slot-%d", WORK_DIR, FIRST_SLOT);
    cr_assert_eq(stat(slot_dir, &st), 0, "%s: %s", slot_dir, strerror(errno));
    cr_assert_eq(stat_as_nobody(slot_dir), EACCES, "uid %d can reach %s", NOBODY, slot_dir);
}

/* A work directory someone else made first (in /tmp anyone can) is refused,
 * by the runner and by judgectl judge, naming it and its owner. */
Test(isolation, work_dir_of_another_user_is_refused, .timeout = 120)
{
    char *dir = scratch_dir("foreign");
    char work[512], args[2048], err[4096];
    snprintf(work, sizeof work, "%s/work", dir);
    cr_assert_eq(mkdir(work, 0777), 0);
    cr_assert_eq(chmod(work, 0777), 0);  /* not narrowed by the umask */
    cr_assert_eq(chown(work, NOBODY, NOBODY), 0);
    struct runner_config cfg = {.languages_dir = SRC "/languages", .work_dir = work,
                                .first_slot = FIRST_SLOT, .slots = 1};
    struct runner *r = NULL;
    cr_assert_lt(runner_open(&r, &cfg, err, sizeof err), 0, "the runner took %s", work);
    cr_assert(strstr(err, work) && strstr(err, "owned by uid 65534"), "%s", err);
    char *out;
    snprintf(args, sizeof args, "judge --work-dir %s --problem " SRC "/testdata/aplusb --lang c "
             SRC "/testdata/aplusb/solutions/ac.c 2>&1", work);
    cr_assert_neq(run_judgectl(args, &out), 0, "judgectl judged in %s", work);
    cr_assert(strstr(out, work) && strstr(out, "owned by uid 65534"), "%s", out);
    free(out);
    struct stat st;
    cr_assert(stat(work, &st) == 0 && (st.st_mode & 07777) == 0777, "the runner changed %s", work);
    /* nor does a symlink of theirs lead the runner to a directory of ours */
    char ours[512], link[512];
    snprintf(ours, sizeof ours, "%s/ours", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    cr_assert_eq(mkdir(ours, 0755), 0);
    cr_assert(symlink(ours, link) == 0 && lchown(link, NOBODY, NOBODY) == 0);
    cfg.work_dir = link;
    cr_assert_lt(runner_open(&r, &cfg, err, sizeof err), 0, "the runner followed %s", link);
    cr_assert(strstr(err, link) && strstr(err, "symbolic link of uid 65534"), "%s", err);
    cr_assert(stat(ours, &st) == 0 && (st.st_mode & 07777) == 0755, "the runner changed %s", ours);
    remove_dir(dir);
    free(dir);
}

/* The configured work directory may lie behind a symlink (the sandbox
 * follows none in a work directory's path, so the runner resolves its own
 * trusted path once). */
Test(isolation, work_dir_behind_a_symlink_works, .timeout = 120)
{
    char *dir = scratch_dir("linked");
    char real[512], link[512];
    snprintf(real, sizeof real, "%s/real", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    cr_assert_eq(mkdir(real, 0700), 0);
    cr_assert_eq(symlink(real, link), 0);
    struct runner_config cfg = {.languages_dir = SRC "/languages", .work_dir = link,
                                .first_slot = FIRST_SLOT, .slots = 1};
    struct runner *r = NULL;
    char err[4096];
    cr_assert_eq(runner_open(&r, &cfg, err, sizeof err), 0, "%s", err);
    struct judged j = judge_source(r, SRC "/testdata/aplusb", "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(dir);
    free(dir);
}

/* ---- interactive problems (issue 11) ---- */

/* a one-test interactive package whose interactor is the C source given; the
 * test's input is "1 2", its answer "3" */
static char *interactive_package(const char *extra_yaml, const char *interactor)
{
    char *pkg = scratch_dir("inter");
    put_file(pkg, "problem.yaml", "name: inter\ntype: interactive\ntime_limit: 1s\n"
             "memory_limit: 64M\noutput_limit: 1M\ninteractor: inter.c\n%s", extra_yaml);
    put_file(pkg, "inter.c", "%s", interactor);
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    return pkg;
}

/* sends the input, expects the sum back */
static const char sum_interactor[] =
    "#include <stdio.h>\nint main(int c, char **v){ long a, b, x, s; FILE *i = fopen(v[1], \"r\");\n"
    " if (c < 4 || !i || fscanf(i, \"%ld %ld\", &a, &b) != 2) return 3;\n"
    " printf(\"%ld %ld\\n\", a, b); fflush(stdout);\n"
    " if (scanf(\"%ld\", &s) != 1) { fputs(\"no answer\", stderr); return 1; }\n"
    " x = a + b; if (s != x) { fprintf(stderr, \"expected %ld\", x); return 1; }\n"
    " fputs(\"right\", stderr); return 0; }\n";

static struct judged judge_interactive(const char *interactor, const char *solution)
{
    char *pkg = interactive_package("", interactor);
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", solution, strlen(solution));
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
    return j;
}

Test(interactive, the_interactor_decides, .timeout = 60)
{
    struct judged j = judge_interactive(sum_interactor, aplusb_c);
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    cr_assert(strstr(j.json, "right"), "the interactor's stderr is the message: %s", j.json);
    free(j.json);
    const char *wrong = "#include <stdio.h>\nint main(void){ long a, b; scanf(\"%ld %ld\", &a, &b);"
                        " printf(\"%ld\\n\", a - b); return 0; }\n";
    j = judge_interactive(sum_interactor, wrong);
    cr_assert_eq(j.verdict, RUNNER_WA, "%s", j.json);
    cr_assert(strstr(j.json, "expected 3"), "%s", j.json);
    free(j.json);
}

Test(interactive, a_failing_or_crashing_interactor_is_ie, .timeout = 60)
{
    const char *fails = "#include <stdio.h>\nint main(void){ fputs(\"bad test\", stderr); return 3; }\n";
    struct judged j = judge_interactive(fails, aplusb_c);
    cr_assert_eq(j.verdict, RUNNER_IE, "exit 3 is the interactor's own failure: %s", j.json);
    cr_assert(strstr(j.json, "bad test"), "%s", j.json);
    free(j.json);
    const char *crashes = "#include <stdlib.h>\nint main(void){ abort(); }\n";
    j = judge_interactive(crashes, aplusb_c);
    cr_assert_eq(j.verdict, RUNNER_IE, "%s", j.json);
    free(j.json);
}

Test(interactive, the_submissions_failure_comes_before_the_interactors_verdict, .timeout = 60)
{
    /* the interactor says WA on EOF, but the submission crashed first */
    const char *segv = "int main(void){ volatile int *p = 0; return *p; }\n";
    struct judged j = judge_interactive(sum_interactor, segv);
    cr_assert_eq(j.verdict, RUNNER_RE, "%s", j.json);
    free(j.json);
}

/* The precedence the ICPC tools follow (problemtools' verifyproblem,
 * DOMjudge's judgedaemon): an interactor that rejected and ended first
 * decides, whatever the submission does after it: reads EOF and crashes,
 * or loops until its time is up */
Test(interactive, after_the_interactors_wa_the_submissions_crash_or_loop_is_wa, .timeout = 60)
{
    const char *crash_after = "#include <stdio.h>\nint main(void){ long a, b; scanf(\"%ld %ld\", &a, &b);"
                              " printf(\"%ld\\n\", a - b); fflush(stdout);"
                              " if (scanf(\"%ld\", &a) != 1) { volatile int *p = 0; return *p; } return 0; }\n";
    struct judged j = judge_interactive(sum_interactor, crash_after);
    cr_assert_eq(j.verdict, RUNNER_WA, "the interactor rejected first: %s", j.json);
    cr_assert(strstr(j.json, "expected 3"), "the interactor's message: %s", j.json);
    free(j.json);
    const char *loop_after = "#include <stdio.h>\nint main(void){ long a, b; scanf(\"%ld %ld\", &a, &b);"
                             " printf(\"%ld\\n\", a - b); fflush(stdout);"
                             " if (scanf(\"%ld\", &a) != 1) for (volatile int x = 0;; x++) ; return 0; }\n";
    j = judge_interactive(sum_interactor, loop_after);
    cr_assert_eq(j.verdict, RUNNER_WA, "the interactor rejected first: %s", j.json);
    free(j.json);
}

/* ...while after an accept the submission's own end counts: output closed
 * then a loop is TLE, and writing on after the interactor ended (SIGPIPE)
 * is the submission's run-time error */
Test(interactive, after_the_interactors_accept_the_submissions_failure_counts, .timeout = 60)
{
    const char *close_then_loop = "#include <stdio.h>\nint main(void){ long a, b; scanf(\"%ld %ld\", &a, &b);"
                                  " printf(\"%ld\\n\", a + b); fclose(stdout);"
                                  " for (volatile int x = 0;; x++) ; }\n";
    struct judged j = judge_interactive(sum_interactor, close_then_loop);
    cr_assert_eq(j.verdict, RUNNER_TLE, "%s", j.json);
    free(j.json);
    const char *writes_on = "#include <stdio.h>\n#include <unistd.h>\nint main(void){ long a, b;"
                            " scanf(\"%ld %ld\", &a, &b); printf(\"%ld\\n\", a + b); fflush(stdout);"
                            " while (scanf(\"%ld\", &a) == 1) ; for (;;) write(1, \"0\\n\", 2); }\n";
    j = judge_interactive(sum_interactor, writes_on);
    cr_assert_eq(j.verdict, RUNNER_RE, "a broken pipe after the interactor's accept: %s", j.json);
    cr_assert(strstr(j.json, "SIGPIPE") || strstr(j.json, "signal 13"), "%s", j.json);
    free(j.json);
}

/* An interactor writing to a submission that is gone is not killed by
 * SIGPIPE: its write fails (EPIPE) and it gives its own verdict */
Test(interactive, the_interactor_sees_epipe_and_gives_its_verdict, .timeout = 60)
{
    const char *late_writer = "#include <stdio.h>\n#include <errno.h>\nint main(int c, char **v){ long s;"
                              " (void)c; (void)v; if (scanf(\"%ld\", &s) == 1) return 0;"
                              " if (puts(\"1 2\") < 0 || fflush(stdout) != 0)"
                              " { fprintf(stderr, \"the submission left (errno %d)\", errno); return 1; }"
                              " return 3; }\n";
    const char *leaves = "int main(void){ return 0; }\n";
    struct judged j = judge_interactive(late_writer, leaves);
    cr_assert_eq(j.verdict, RUNNER_WA, "%s", j.json);
    cr_assert(strstr(j.json, "the submission left (errno 32)"), "the interactor's own message: %s", j.json);
    free(j.json);
}

Test(interactive, flooding_the_interactor_is_ole, .timeout = 60)
{
    /* an interactor that reads everything: the submission's output limit
     * (1M) still holds, counted on the pipe */
    const char *drain = "#include <stdio.h>\nint main(void){ char b[4096];"
                        " while (fread(b, 1, sizeof b, stdin) > 0) ; return 1; }\n";
    const char *flood = "#include <stdio.h>\nint main(void){ for (;;) puts(\"spam spam spam\"); }\n";
    struct judged j = judge_interactive(drain, flood);
    cr_assert_eq(j.verdict, RUNNER_OLE, "%s", j.json);
    free(j.json);
}

Test(interactive, a_deadlock_is_tle_idle_at_the_problems_wall_limit, .timeout = 60)
{
    /* both read first: neither ever writes */
    const char *waits = "#include <stdio.h>\nint main(void){ long s;"
                        " return scanf(\"%ld\", &s) == 1 ? 0 : 1; }\n";
    char *pkg = interactive_package("wall_time_limit: 1.5s\n", waits);
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", waits, strlen(waits));
    cr_assert_eq(j.verdict, RUNNER_TLE, "%s", j.json);
    cr_assert(strstr(j.json, "idle") && strstr(j.json, "wall clock > 1.500 s"),
              "ended by the problem's wall limit, said to be idle: %s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

Test(interactive, package_errors_name_their_key, .timeout = 60)
{
    char *pkg = scratch_dir("badinter");
    put_file(pkg, "problem.yaml", "name: x\ntype: interactive\ntime_limit: 1s\n"
             "memory_limit: 64M\n");
    put_file(pkg, "tests/1.in", "1\n");
    put_file(pkg, "tests/1.out", "1\n");
    char *errors = NULL;
    cr_assert_eq(runner_problem_check(NULL, pkg, &errors, NULL), 1, "%s", errors);
    cr_assert(strstr(errors, "problem.yaml:2: interactor: missing (an interactive problem needs one)"),
              "%s", errors);
    free(errors);
    put_file(pkg, "problem.yaml", "name: x\ntype: interactive\ntime_limit: 1s\n"
             "memory_limit: 64M\ninteractor: {source: i.c, protocol: icpc}\n");
    put_file(pkg, "i.c", "int main(void){ return 0; }\n");
    cr_assert_eq(runner_problem_check(NULL, pkg, &errors, NULL), 1, "%s", errors);
    cr_assert(strstr(errors, "problem.yaml:5: interactor.protocol: unknown protocol 'icpc'"),
              "%s", errors);
    free(errors);
    remove_dir(pkg);
    free(pkg);
}

/* ---- checkers as setters write them (issue 11) ---- */

Test(checkers, a_python_checker, .timeout = 60)
{
    char *pkg = scratch_dir("pychk");
    put_file(pkg, "problem.yaml", "name: pychk\ntime_limit: 1s\nmemory_limit: 64M\n"
             "checker: {type: custom, source: check.py}\n");
    put_file(pkg, "check.py", "import sys\n"
             "inp, out, ans = (open(f).read().split() for f in sys.argv[1:4])\n"
             "if out == ans:\n    sys.exit(0)\n"
             "sys.stderr.write('points 0.5 close enough\\n')\nsys.exit(7)\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    const char *wrong = "int main(void){ return !puts(\"4\"); }\n";
    j = judge_source(r, pkg, "c", wrong, strlen(wrong));
    cr_assert_float_eq(j.score, 50, 1e-9, "testlib's 'points 0.5' on stderr: %s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

Test(checkers, flags_reach_the_checkers_compiler, .timeout = 60)
{
    char *pkg = scratch_dir("flags");
    put_file(pkg, "problem.yaml", "name: flags\ntime_limit: 1s\nmemory_limit: 64M\n"
             "checker: {type: custom, source: check.c, flags: [-DVERDICT=1]}\n");
    put_file(pkg, "check.c", "#ifndef VERDICT\n#error needs -DVERDICT\n#endif\n"
             "int main(void){ return VERDICT; }\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    struct runner *r = open_runner(1);
    char *errors = NULL;
    cr_assert_eq(runner_problem_check(r, pkg, &errors, NULL), 0, "%s", errors);
    free(errors);
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_WA, "the checker built with -DVERDICT=1 says WA: %s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* ---- limits a problem sets (issue 11) ---- */

static char *limits_package(const char *extra_yaml)
{
    char *pkg = scratch_dir("limits");
    put_file(pkg, "problem.yaml", "name: limits\ntime_limit: 1s\nmemory_limit: 256M\n%s",
             extra_yaml);
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    return pkg;
}

/* on_output_limit: truncate (DOMjudge's way): the output is cut at the
 * limit and the program runs on: TLE when it never ends, OLE when it does;
 * kill (the default) ends it at the limit */
Test(limits, on_output_limit_truncate_lets_the_program_run_on, .timeout = 60)
{
    const char *filler = "#include <stdio.h>\nint main(void){ for (;;) puts(\"3 3 3 3 3 3 3\"); }\n";
    const char *two_mib = "#include <stdio.h>\n#include <string.h>\nint main(void){ static char b[2 << 20];"
                          " puts(\"3\"); memset(b, ' ', sizeof b); fwrite(b, 1, sizeof b, stdout); return 0; }\n";
    char *pkg = limits_package("output_limit: 1M\non_output_limit: truncate\n");
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", filler, strlen(filler));
    cr_assert_eq(j.verdict, RUNNER_TLE, "cut, it runs on and never ends: %s", j.json);
    free(j.json);
    j = judge_source(r, pkg, "c", two_mib, strlen(two_mib));
    cr_assert_eq(j.verdict, RUNNER_OLE, "cut, it ends: %s", j.json);
    free(j.json);
    remove_dir(pkg);
    free(pkg);
    pkg = limits_package("output_limit: 1M\n");
    j = judge_source(r, pkg, "c", filler, strlen(filler));
    cr_assert_eq(j.verdict, RUNNER_OLE, "killed at the limit: %s", j.json);
    free(j.json);
    remove_dir(pkg);
    free(pkg);
    /* an interactive submission's output, counted on the pipe, likewise */
    const char *drain = "#include <stdio.h>\nint main(void){ char b[4096];"
                        " while (fread(b, 1, sizeof b, stdin) > 0) ; return 1; }\n";
    pkg = interactive_package("on_output_limit: truncate\n", drain);
    j = judge_source(r, pkg, "c", filler, strlen(filler));
    cr_assert_eq(j.verdict, RUNNER_TLE, "cut on the pipe, it runs on: %s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* File I/O (Polygon's judging input-file / output-file): the input is the
 * file E.in in the program's working dir (and still its stdin), the output
 * is read from E.out, stdout ignored; never writing E.out is an empty
 * output (WA); E.out past the output limit is OLE */
Test(limits, input_and_output_files, .timeout = 60)
{
    const char *files = "#include <stdio.h>\nint main(void){ long a, b; FILE *i = fopen(\"E.in\", \"r\"),"
                        " *o = fopen(\"E.out\", \"w\"); if (!i || !o || fscanf(i, \"%ld %ld\", &a, &b) != 2)"
                        " return 1; puts(\"ignored\"); fprintf(o, \"%ld\\n\", a + b); return 0; }\n";
    const char *stdio_only = "#include <stdio.h>\nint main(void){ long a, b; scanf(\"%ld %ld\", &a, &b);"
                             " printf(\"%ld\\n\", a + b); return 0; }\n";
    const char *big = "#include <stdio.h>\n#include <string.h>\nint main(void){ static char b[2 << 20];"
                      " FILE *o = fopen(\"E.out\", \"w\"); fputs(\"3\\n\", o); memset(b, ' ', sizeof b);"
                      " fwrite(b, 1, sizeof b, o); fclose(o); return 0; }\n";
    char *pkg = limits_package("output_limit: 1M\ninput_file: E.in\noutput_file: E.out\n");
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", files, strlen(files));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    j = judge_source(r, pkg, "c", stdio_only, strlen(stdio_only));
    cr_assert_eq(j.verdict, RUNNER_WA, "stdout is not the output, E.out stays empty: %s", j.json);
    free(j.json);
    j = judge_source(r, pkg, "c", big, strlen(big));
    cr_assert_eq(j.verdict, RUNNER_OLE, "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
    pkg = limits_package("input_file: E.in\noutput_file: E.in\n");
    char *errors = NULL, *summary = NULL;
    r = open_runner(1);
    cr_assert_neq(runner_problem_check(r, pkg, &errors, &summary), 0);
    cr_assert(errors && strstr(errors, "output_file: is input_file too"), "%s", errors ? errors : "");
    free(errors);
    free(summary);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

Test(compile, a_big_object_file_is_ce_that_says_why_and_a_problem_can_raise_it, .timeout = 180)
{
    /* 80 MiB of initialised data: the object file passes the C compile
     * output limit (64M) */
    const char *big = "#include <stdio.h>\nchar big[80 << 20] = {1};\n"
                      "int main(void){ long a, b; if (scanf(\"%ld %ld\", &a, &b) != 2) return 1;"
                      " printf(\"%ld\\n\", a + b + big[0] - 1); return 0; }\n";
    char *pkg = limits_package("");
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", big, strlen(big));
    cr_assert_eq(j.verdict, RUNNER_CE, "%s", j.json);
    cr_assert(strstr(j.json, "exceeded its output limit") && strstr(j.json, "static array") &&
              strstr(j.json, "compile_limits.output"), "the CE says why: %s", j.json);
    free(j.json);
    remove_dir(pkg);
    free(pkg);
    pkg = limits_package("compile_limits: {output: 128M}\n");
    j = judge_source(r, pkg, "c", big, strlen(big));
    cr_assert_eq(j.verdict, RUNNER_AC, "the problem raised the limit: %s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

Test(interactive, a_checker_judges_the_interactors_result_file, .timeout = 60)
{
    /* Polygon's form: the interactor copies the answer it got to its result
     * file (argv[2]) and accepts; the problem's checker judges that file */
    const char *copier =
        "#include <stdio.h>\nint main(int c, char **v){ long a, b, s; FILE *i = fopen(v[1], \"r\"),"
        " *t = fopen(v[2], \"w\");\n if (c < 4 || !i || !t || fscanf(i, \"%ld %ld\", &a, &b) != 2)"
        " return 3;\n printf(\"%ld %ld\\n\", a, b); fflush(stdout);\n"
        " if (scanf(\"%ld\", &s) != 1) return 1; fprintf(t, \"%ld\\n\", s); return 0; }\n";
    char *pkg = interactive_package("checker: tokens\n", copier);
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    const char *wrong = "#include <stdio.h>\nint main(void){ long a, b; scanf(\"%ld %ld\", &a, &b);"
                        " printf(\"%ld\\n\", a * b); return 0; }\n";
    j = judge_source(r, pkg, "c", wrong, strlen(wrong));
    cr_assert_eq(j.verdict, RUNNER_WA, "the checker, not the interactor, rejects: %s", j.json);
    cr_assert(strstr(j.json, "expected '3', found '2'"), "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

Test(interactive, an_interactor_in_python_and_one_that_does_not_compile, .timeout = 60)
{
    char *pkg = scratch_dir("pyinter");
    put_file(pkg, "problem.yaml", "name: pyinter\ntype: interactive\ntime_limit: 1s\n"
             "memory_limit: 64M\ninteractor: inter.py\n");
    put_file(pkg, "inter.py", "import sys\na, b = map(int, open(sys.argv[1]).read().split())\n"
             "print(a, b, flush=True)\nline = sys.stdin.readline().split()\n"
             "ok = line == [str(a + b)]\nsys.stderr.write('ok' if ok else 'wrong')\n"
             "sys.exit(0 if ok else 1)\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_AC, "%s", j.json);
    free(j.json);
    put_file(pkg, "inter.py", "def broken(:\n");
    char *errors = NULL;
    cr_assert_eq(runner_problem_check(r, pkg, &errors, NULL), 1, "%s", errors);
    cr_assert(strstr(errors, "problem.yaml:5: interactor: inter.py: the interactor does not compile"),
              "%s", errors);
    free(errors);
    j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_IE, "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

Test(graders, a_grader_file_named_like_the_submission_is_the_problems_fault, .timeout = 60)
{
    char *pkg = scratch_dir("grader");
    put_file(pkg, "problem.yaml", "name: g\ntime_limit: 1s\nmemory_limit: 64M\n"
             "grader: {c: [main.c]}\n");
    put_file(pkg, "main.c", "int main(void){ return 0; }\n");
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    struct runner *r = open_runner(1);
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_assert_eq(j.verdict, RUNNER_IE, "%s", j.json);
    cr_assert(strstr(j.json, "set grader.c.source"), "%s", j.json);
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}

/* ---- checkpoints (resume.c) ---- */

struct recorded {
    char *identity;
    char *records[16];
    int ran;            /* tests run (test_done) */
    size_t reused;
    char why[200];
};

static void rec_test_done(void *arg, size_t index, size_t count, int verdict)
{
    (void)index, (void)count, (void)verdict;
    ((struct recorded *)arg)->ran++;
}

static void rec_test_recorded(void *arg, size_t index, size_t count, int verdict, const char *identity,
                              const char *record)
{
    struct recorded *c = arg;
    (void)count, (void)verdict;
    cr_assert_lt(index, 16);
    free(c->identity);
    c->identity = strdup(identity);
    free(c->records[index]);
    c->records[index] = strdup(record);
}

static void rec_resume_decided(void *arg, size_t reused, const char *why_not)
{
    struct recorded *c = arg;
    c->reused = reused;
    snprintf(c->why, sizeof c->why, "%s", why_not ? why_not : "");
}

/* Judges rangesum's wa_30_int32.c as `host`, recording into *rec, resuming
 * from *from (NULL: fresh); the report's JSON. */
static char *judge_recorded(struct runner *r, const char *host, struct recorded *rec, const struct recorded *from)
{
    size_t len;
    char *src = slurp(SRC "/testdata/rangesum/solutions/wa_30_int32.c", &len);
    struct runner_request req = {.problem_dir = SRC "/testdata/rangesum", .language = "c", .source = src,
                                 .source_len = len, .test_done = rec_test_done, .keep_going_arg = rec,
                                 .test_recorded = rec_test_recorded, .host = host};
    if (from) {
        req.resume_identity = from->identity;
        req.resume_records = (const char *const *)from->records;
        req.resume_count = 10;
        req.resume_decided = rec_resume_decided;
    }
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    char err[1024];
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), 0, "%s", err);
    char *json = runner_report_json(rep);
    runner_report_free(rep);
    free(src);
    return json;
}

/* A judging resumed from every record of another runs no test and reports
 * exactly what the first reported of its tests and subtasks (times,
 * memory, messages, hosts). */
Test(checkpoints, records_rebuild_the_report, .timeout = 300)
{
    struct runner *r = open_runner(1);
    struct recorded first = {0}, second = {0};
    char *a = judge_recorded(r, "A", &first, NULL);
    cr_assert_gt(first.ran, 0);
    cr_assert_not_null(first.identity);
    cr_assert(strstr(a, "\"host\":\"A\""), "%s", a);
    char *b = judge_recorded(r, "B", &second, &first);
    cr_assert_eq(second.ran, 0, "ran %d tests again", second.ran);
    cr_assert_eq(second.reused, (size_t)first.ran, "%s", second.why);
    /* the compile may differ (the second is the compile cache's copy) */
    json_t *ja = json_loads(a, 0, NULL), *jb = json_loads(b, 0, NULL);
    const char *keys[] = {"verdict", "score", "max_score", "tests", "subtasks"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        cr_assert(json_equal(json_object_get(ja, keys[i]), json_object_get(jb, keys[i])), "%s:\n%s\n%s", keys[i],
                  a, b);
    json_decref(ja);
    json_decref(jb);

    /* another source: its identity differs, everything runs */
    struct recorded third = {0};
    first.identity[strlen(first.identity) - 1] ^= 1;   /* the program hash */
    char *c = judge_recorded(r, "C", &third, &first);
    cr_assert_eq(third.ran, first.ran);
    cr_assert_str_eq(third.why, "the compiled program differs (a recompile gave another binary)");
    cr_assert(!strstr(c, "\"host\":\"A\""), "%s", c);
    free(a), free(b), free(c);
    for (int i = 0; i < 16; i++)
        free(first.records[i]), free(second.records[i]), free(third.records[i]);
    free(first.identity), free(second.identity), free(third.identity);
    runner_close(r);
}

/* ---- a busy host (issue 37): stress-ng --cpu 2, started here ---- */

struct busy_job {
    struct runner *r;
    const char *pkg, *source;
    struct judged j;
};

static void *judge_busy(void *arg)
{
    struct busy_job *b = arg;
    b->j = judge_source(b->r, b->pkg, "c", b->source, strlen(b->source));
    return NULL;
}

/* What a contest's first minute does to a 2-core host, with both cores
 * taken by stress-ng: a testlib checker's first build (C++, its own
 * clock) is not IE; a program burning 0.5 s of CPU (limit 1 s, wall 3 s)
 * on every slot at once, each pinned to its core, is AC; a memory bomb is
 * MLE; a crashing checker is IE with a message. */
Test(load, a_busy_host_judges_as_a_quiet_one, .timeout = 600)
{
    cpu_set_t mine;
    cr_assert_eq(sched_getaffinity(0, sizeof mine, &mine), 0);
    int cpus[2] = {-1, -1}, n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &mine))
            cpus[n++] = c;
    if (n < 2)
        cpus[1] = cpus[0];
    char *pkg = scratch_dir("busy");
    put_file(pkg, "problem.yaml", "name: busy\ntime_limit: 1s\nmemory_limit: 64M\n"
             "checker: {type: custom, source: check.cpp}\n");
    char tl[4096];
    size_t len;
    char *testlib = slurp(SRC "/tests/judged/polygon/sumgroups/files/testlib.h", &len);
    put_file(pkg, "testlib.h", "%s", testlib);
    free(testlib);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    snprintf(tl, sizeof tl, "// first built at %ld.%09ld by %d\n#include \"testlib.h\"\n"
             "int main(int argc, char **argv) { registerTestlibCmd(argc, argv);\n"
             "  long long jury = ans.readLong(), got = ouf.readLong();\n"
             "  if (got != jury) quitf(_wa, \"expected %%lld, found %%lld\", jury, got);\n"
             "  quitf(_ok, \"%%lld\", got); }\n", (long)now.tv_sec, now.tv_nsec, (int)getpid());
    put_file(pkg, "check.cpp", "%s", tl);
    put_file(pkg, "tests/1.in", "1 2\n");
    put_file(pkg, "tests/1.out", "3\n");
    struct runner_config cfg = {.languages_dir = SRC "/languages", .work_dir = WORK_DIR,
                                .first_slot = FIRST_SLOT, .slots = 2, .cpus = cpus};
    struct runner *r = NULL;
    char err[4096];
    cr_assert_eq(runner_open(&r, &cfg, err, sizeof err), 0, "runner_open: %s", err);
    const char *burner = "#include <stdio.h>\n#include <time.h>\nint main(void){ long a, b;"
                         " if (scanf(\"%ld %ld\", &a, &b) != 2) return 1;"
                         " while (clock() < CLOCKS_PER_SEC / 2) ; printf(\"%ld\\n\", a + b); return 0; }\n";
    const char *bomb = "#include <stdlib.h>\n#include <string.h>\nint main(void){ for (;;) {"
                       " char *p = malloc(1 << 20); if (!p) return 1; memset(p, 1, 1 << 20); } }\n";
    pid_t stress = host_load_stress_start();
    cr_assert_gt(stress, 0, "stress-ng is missing (.ci/install-deps) or fork failed");
    /* the checker's first build, and the submission's compile, on a busy host */
    struct judged j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    cr_expect_eq(j.verdict, RUNNER_AC, "the checker's first judging: %s", j.json);
    free(j.json);
    /* the burner on both slots at once (compiled before: the cache answers) */
    struct busy_job b[2] = {{r, pkg, burner, {0}}, {r, pkg, burner, {0}}};
    free(judge_source(r, pkg, "c", burner, strlen(burner)).json);
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq(pthread_create(&th[i], NULL, judge_busy, &b[i]), 0);
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        cr_expect_eq(b[i].j.verdict, RUNNER_AC, "0.5 s of CPU, slot %d, under load: %s", i, b[i].j.json);
        free(b[i].j.json);
    }
    j = judge_source(r, pkg, "c", bomb, strlen(bomb));
    cr_expect_eq(j.verdict, RUNNER_MLE, "a memory bomb under load: %s", j.json);
    free(j.json);
    put_file(pkg, "check.cpp", "#include <cstdlib>\nint main() { std::abort(); }\n");
    j = judge_source(r, pkg, "c", aplusb_c, strlen(aplusb_c));
    host_load_stress_stop(stress);
    cr_expect_eq(j.verdict, RUNNER_IE, "%s", j.json);
    assert_ie_message(j.json, "test 1: the checker ended with RE");
    free(j.json);
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
}
