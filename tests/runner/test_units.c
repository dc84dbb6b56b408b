/*
 * test_units.c - runner's pure parts: sizes and durations, the built-in
 * checkers, testlib exit codes, subtask scoring, language and problem
 * validation (every error names file, line and key), the report's JSON.
 * No sandbox, no compiler: these also run under ASan+UBSan.
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "helpers.h"
#include "internal.h"

/* ---- built-in checkers ---- */

static enum runner_verdict check(enum rn_checker_type t, const char *out, const char *ans)
{
    struct rn_check res;
    rn_check_buffers(t, NULL, out, strlen(out), ans, strlen(ans), &res);
    return res.verdict;
}

Test(checkers, exact)
{
    cr_assert_eq(check(RN_CHECK_EXACT, "3\n", "3\n"), RUNNER_AC);
    cr_assert_eq(check(RN_CHECK_EXACT, "3", "3\n"), RUNNER_PE);
    cr_assert_eq(check(RN_CHECK_EXACT, "1  2\n", "1 2\n"), RUNNER_PE);
    cr_assert_eq(check(RN_CHECK_EXACT, "4\n", "3\n"), RUNNER_WA);
    cr_assert_eq(check(RN_CHECK_EXACT, "", ""), RUNNER_AC);
}

Test(checkers, lines)
{
    cr_assert_eq(check(RN_CHECK_LINES, "a b\nc  \n\n\n", "a b\nc\n"), RUNNER_AC);
    cr_assert_eq(check(RN_CHECK_LINES, "a b\r\nc\r\n", "a b\nc\n"), RUNNER_AC);
    cr_assert_eq(check(RN_CHECK_LINES, "a\nb c\n", "a b\nc\n"), RUNNER_PE);
    cr_assert_eq(check(RN_CHECK_LINES, "a b\nd\n", "a b\nc\n"), RUNNER_WA);
    cr_assert_eq(check(RN_CHECK_LINES, "a b\n", "a b\nc\n"), RUNNER_WA);
    cr_assert_eq(check(RN_CHECK_LINES, "a b\nc\nd\n", "a b\nc\n"), RUNNER_WA);
    cr_assert_eq(check(RN_CHECK_LINES, "", "\n\n"), RUNNER_AC);
}

Test(checkers, tokens)
{
    cr_assert_eq(check(RN_CHECK_TOKENS, " 1\n\n2 3 ", "1 2\n3\n"), RUNNER_AC);
    cr_assert_eq(check(RN_CHECK_TOKENS, "1 2", "1 2 3"), RUNNER_WA);
    cr_assert_eq(check(RN_CHECK_TOKENS, "1 2 3 4", "1 2 3"), RUNNER_WA);
    cr_assert_eq(check(RN_CHECK_TOKENS, "1.0", "1"), RUNNER_WA);
    cr_assert_eq(check(RN_CHECK_TOKENS, "", ""), RUNNER_AC);
}

Test(checkers, float_absolute_or_relative)
{
    cr_assert_eq(check(RN_CHECK_FLOAT, "0.3333333", "0.33333333333"), RUNNER_AC);
    cr_assert_eq(check(RN_CHECK_FLOAT, "0.333", "0.33333333333"), RUNNER_WA);
    cr_assert_eq(check(RN_CHECK_FLOAT, "1000000.5", "1000000"), RUNNER_AC);   /* relative */
    cr_assert_eq(check(RN_CHECK_FLOAT, "1000002", "1000000"), RUNNER_WA);
    cr_assert_eq(check(RN_CHECK_FLOAT, "1e-7", "0"), RUNNER_AC);              /* absolute */
    cr_assert_eq(check(RN_CHECK_FLOAT, "abc", "1.5"), RUNNER_WA);
    cr_assert_eq(check(RN_CHECK_FLOAT, "1.5x", "1.5"), RUNNER_WA);
    cr_assert_eq(check(RN_CHECK_FLOAT, "YES 2.0000001", "YES 2"), RUNNER_AC);
    cr_assert_eq(check(RN_CHECK_FLOAT, "NO 2", "YES 2"), RUNNER_WA);
    cr_assert_eq(check(RN_CHECK_FLOAT, "nan", "1"), RUNNER_WA);
}

Test(checkers, message_names_the_difference)
{
    struct rn_check res;
    rn_check_buffers(RN_CHECK_TOKENS, 0, "1 2 4", 5, "1 2 3", 5, &res);
    cr_assert_eq(res.verdict, RUNNER_WA);
    cr_assert(strstr(res.message, "token 3"), "%s", res.message);
    cr_assert(strstr(res.message, "'3'") && strstr(res.message, "'4'"), "%s", res.message);
}

Test(checkers, files_missing_is_an_error)
{
    struct rn_check res;
    char err[256];
    cr_assert_eq(rn_check_files(RN_CHECK_TOKENS, 0, "/nonexistent/out", "/nonexistent/ans", &res,
                                err, sizeof err), -1);
    cr_assert(strstr(err, "/nonexistent"));
}

Test(checkers, testlib_exit_codes)
{
    struct rn_check r;
    rn_check_from_exit(0, "", "ok fine\n", &r);
    cr_assert_eq(r.verdict, RUNNER_AC);
    cr_assert_str_eq(r.message, "ok fine");
    rn_check_from_exit(1, "", "wrong answer expected 3\n", &r);
    cr_assert_eq(r.verdict, RUNNER_WA);
    cr_assert_str_eq(r.message, "wrong answer expected 3");
    rn_check_from_exit(2, "", "", &r);
    cr_assert_eq(r.verdict, RUNNER_PE);
    rn_check_from_exit(3, "", "bad answer file", &r);
    cr_assert_eq(r.verdict, RUNNER_IE);
    cr_assert(strstr(r.message, "checker failed") && strstr(r.message, "bad answer file"));
    rn_check_from_exit(7, "0.25\n", "partial", &r);
    cr_assert_eq(r.verdict, RUNNER_WA);
    cr_assert_float_eq(r.fraction, 0.25, 1e-9);
    rn_check_from_exit(7, "", "", &r);
    cr_assert_eq(r.verdict, RUNNER_IE);
    rn_check_from_exit(42, "", "", &r);
    cr_assert_eq(r.verdict, RUNNER_IE);
}

/* testlib's `points X msg`: on stdout (DMOJ's build) or stderr (upstream);
 * both streams must agree; the fraction must lie in 0..1 */
Test(checkers, testlib_points_on_either_stream)
{
    struct rn_check r;
    rn_check_from_exit(7, "points 0.5 half of it\n", "", &r);
    cr_assert_eq(r.verdict, RUNNER_WA, "%s", r.message);
    cr_assert_float_eq(r.fraction, 0.5, 1e-9);
    cr_assert_str_eq(r.message, "half of it");
    rn_check_from_exit(7, "debug line\npoints 1\n", "", &r);
    cr_assert_eq(r.verdict, RUNNER_AC, "%s", r.message);
    rn_check_from_exit(7, "", "points 0.75 most\n", &r);
    cr_assert_float_eq(r.fraction, 0.75, 1e-9);
    cr_assert_str_eq(r.message, "points 0.75 most");
    rn_check_from_exit(7, "points 0.75\n", "points 0.75 most\n", &r);
    cr_assert_float_eq(r.fraction, 0.75, 1e-9);
    cr_assert_str_eq(r.message, "points 0.75 most");
    rn_check_from_exit(7, "points 0.25\n", "points 0.75\n", &r);
    cr_assert_eq(r.verdict, RUNNER_IE);
    cr_assert(strstr(r.message, "0.25") && strstr(r.message, "0.75"), "%s", r.message);
    rn_check_from_exit(7, "points 3\n", "", &r);
    cr_assert_eq(r.verdict, RUNNER_IE);
    cr_assert(strstr(r.message, "outside 0..1"), "%s", r.message);
    rn_check_from_exit(7, "pointsless 0.5\n", "", &r);
    cr_assert_eq(r.verdict, RUNNER_IE);
}

/* CMS's comparators: exit 0 always, the score on stdout, the message on
 * stderr's first line; anything else is the problem's fault (IE) */
Test(checkers, cms_protocol)
{
    struct rn_check r;
    rn_check_from_cms(0, "1.0\n", "translate:success\n", &r);
    cr_assert_eq(r.verdict, RUNNER_AC, "%s", r.message);
    cr_assert_str_eq(r.message, "translate:success");
    rn_check_from_cms(0, "0.5\n", "translate:partial\nline two\n", &r);
    cr_assert_eq(r.verdict, RUNNER_WA);
    cr_assert_float_eq(r.fraction, 0.5, 1e-9);
    cr_assert_str_eq(r.message, "translate:partial");
    rn_check_from_cms(0, "0\n", "", &r);
    cr_assert_eq(r.verdict, RUNNER_WA);
    cr_assert_float_eq(r.fraction, 0, 1e-9);
    rn_check_from_cms(0, "", "no score", &r);
    cr_assert_eq(r.verdict, RUNNER_IE);
    cr_assert(strstr(r.message, "no score 0..1") && strstr(r.message, "no score"), "%s", r.message);
    rn_check_from_cms(0, "1.5\n", "", &r);
    cr_assert_eq(r.verdict, RUNNER_IE, "%s", r.message);
    rn_check_from_cms(1, "1.0\n", "cannot open", &r);
    cr_assert_eq(r.verdict, RUNNER_IE);
    cr_assert(strstr(r.message, "exited 1") && strstr(r.message, "cannot open"), "%s", r.message);
}

/* ---- subtask scoring ---- */

struct fake {
    const enum runner_verdict *verdicts;
    int runs[32];
};

static int fake_run(void *ctx, size_t i, struct rn_test_outcome *out)
{
    struct fake *f = ctx;
    f->runs[i]++;
    out->verdict = f->verdicts[i];
    out->fraction = f->verdicts[i] == RUNNER_AC ? 1 : 0;
    return 0;
}

/* subtasks: A = tests 0-1 (30), B = 2-3 (30) depends A, C = 4-5 (40), D = 0-5 (0) depends B,C */
static struct rn_problem *sample_problem(enum rn_stop stop)
{
    static size_t a[] = {0, 1}, b[] = {2, 3}, c[] = {4, 5}, d[] = {0, 1, 2, 3, 4, 5};
    static size_t b_deps[] = {0}, d_deps[] = {1, 2};
    static struct rn_subtask subs[4];
    subs[0] = (struct rn_subtask){.name = "A", .points = 30, .tests = a, .test_count = 2, .deps = NULL, .dep_count = 0};
    subs[1] = (struct rn_subtask){.name = "B", .points = 30, .tests = b, .test_count = 2, .deps = b_deps, .dep_count = 1};
    subs[2] = (struct rn_subtask){.name = "C", .points = 40, .tests = c, .test_count = 2, .deps = NULL, .dep_count = 0};
    subs[3] = (struct rn_subtask){.name = "D", .points = 0, .tests = d, .test_count = 6, .deps = d_deps, .dep_count = 2};
    static struct rn_problem p;
    p = (struct rn_problem){.test_count = 6, .subtasks = subs, .subtask_count = 4, .stop = stop};
    return &p;
}

static double judge_fake(enum rn_stop stop, const enum runner_verdict *v, struct fake *f,
                         struct rn_test_outcome *t, struct rn_subtask_outcome *s,
                         enum runner_verdict *verdict)
{
    double score;
    f->verdicts = v;
    int rc = rn_evaluate(sample_problem(stop), fake_run, f, t, s, verdict, &score);
    cr_assert_eq(rc, 0);
    return score;
}

Test(scoring, all_pass)
{
    enum runner_verdict v[6] = {0};
    struct fake f = {0};
    struct rn_test_outcome t[6];
    struct rn_subtask_outcome s[4];
    enum runner_verdict verdict;
    double score = judge_fake(RN_STOP_SUBTASK, v, &f, t, s, &verdict);
    cr_assert_float_eq(score, 100, 1e-9);
    cr_assert_eq(verdict, RUNNER_AC);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(f.runs[i], 1, "test %d ran %d times (shared tests run once)", i, f.runs[i]);
}

Test(scoring, failed_dependency_skips)
{
    enum runner_verdict v[6] = {RUNNER_AC, RUNNER_WA, RUNNER_AC, RUNNER_AC, RUNNER_AC, RUNNER_AC};
    struct fake f = {0};
    struct rn_test_outcome t[6];
    struct rn_subtask_outcome s[4];
    enum runner_verdict verdict;
    double score = judge_fake(RN_STOP_SUBTASK, v, &f, t, s, &verdict);
    cr_assert_float_eq(score, 40, 1e-9);
    cr_assert_eq(verdict, RUNNER_WA);
    cr_assert_eq(s[0].verdict, RUNNER_WA);
    cr_assert_eq(s[1].verdict, RUNNER_SKIPPED);
    cr_assert_eq(s[2].verdict, RUNNER_AC);
    cr_assert_eq(s[3].verdict, RUNNER_SKIPPED);
    cr_assert_eq(f.runs[2], 0, "a test only in a skipped subtask does not run");
    cr_assert_eq(t[2].verdict, RUNNER_SKIPPED);
}

Test(scoring, stop_on_failure_subtask_leaves_rest_unrun)
{
    enum runner_verdict v[6] = {RUNNER_TLE, RUNNER_AC, RUNNER_AC, RUNNER_AC, RUNNER_AC, RUNNER_AC};
    struct fake f = {0};
    struct rn_test_outcome t[6];
    struct rn_subtask_outcome s[4];
    enum runner_verdict verdict;
    (void)judge_fake(RN_STOP_SUBTASK, v, &f, t, s, &verdict);
    cr_assert_eq(f.runs[1], 0);
    cr_assert_eq(verdict, RUNNER_TLE);
    cr_assert_eq(s[0].verdict, RUNNER_TLE);
}

Test(scoring, stop_none_runs_everything_needed)
{
    enum runner_verdict v[6] = {RUNNER_TLE, RUNNER_AC, RUNNER_AC, RUNNER_AC, RUNNER_RE, RUNNER_AC};
    struct fake f = {0};
    struct rn_test_outcome t[6];
    struct rn_subtask_outcome s[4];
    enum runner_verdict verdict;
    double score = judge_fake(RN_STOP_NONE, v, &f, t, s, &verdict);
    cr_assert_float_eq(score, 0, 1e-9);
    cr_assert_eq(f.runs[1], 1);
    cr_assert_eq(f.runs[5], 1);
    cr_assert_eq(verdict, RUNNER_TLE, "the first failing test in order decides");
    cr_assert_eq(s[2].verdict, RUNNER_RE);
}

Test(scoring, stop_all)
{
    enum runner_verdict v[6] = {RUNNER_AC, RUNNER_AC, RUNNER_AC, RUNNER_AC, RUNNER_WA, RUNNER_AC};
    struct fake f = {0};
    struct rn_test_outcome t[6];
    struct rn_subtask_outcome s[4];
    enum runner_verdict verdict;
    double score = judge_fake(RN_STOP_ALL, v, &f, t, s, &verdict);
    cr_assert_float_eq(score, 60, 1e-9);
    cr_assert_eq(f.runs[5], 0);
    cr_assert_eq(verdict, RUNNER_WA);
}

Test(scoring, checker_failure_makes_ie)
{
    enum runner_verdict v[6] = {RUNNER_WA, RUNNER_AC, RUNNER_AC, RUNNER_AC, RUNNER_IE, RUNNER_AC};
    struct fake f = {0};
    struct rn_test_outcome t[6];
    struct rn_subtask_outcome s[4];
    enum runner_verdict verdict;
    (void)judge_fake(RN_STOP_NONE, v, &f, t, s, &verdict);
    cr_assert_eq(verdict, RUNNER_IE, "a broken checker is the problem's fault");
}

static int partial_run(void *ctx, size_t i, struct rn_test_outcome *out)
{
    (void)ctx;
    out->fraction = i == 0 ? 0.5 : 1;
    out->verdict = i == 0 ? RUNNER_WA : RUNNER_AC;
    return 0;
}

Test(scoring, partial_points_take_the_minimum)
{
    size_t tests[] = {0, 1};
    struct rn_subtask sub = {.name = "all", .points = 80, .tests = tests, .test_count = 2};
    struct rn_problem p = {.test_count = 2, .subtasks = &sub, .subtask_count = 1,
                           .stop = RN_STOP_NONE};
    struct rn_test_outcome t[2];
    struct rn_subtask_outcome s[1];
    enum runner_verdict verdict;
    double score;
    int rc = rn_evaluate(&p, partial_run, NULL, t, s, &verdict, &score);
    cr_assert_eq(rc, 0);
    cr_assert_float_eq(score, 40, 1e-9);
}

/* fractions per test, for the aggregation kinds: AC is 1, WA below it */
static int fraction_run(void *ctx, size_t i, struct rn_test_outcome *out)
{
    const double *fr = ctx;
    out->fraction = fr[i];
    out->verdict = fr[i] >= 1 ? RUNNER_AC : RUNNER_WA;
    return 0;
}

/* one subtask of 60 points over tests 0..n-1 aggregated as agg */
static double aggregate_score(struct rn_subtask sub, const double *fr, size_t n,
                              enum runner_verdict *verdict, enum runner_verdict *sub_verdict)
{
    size_t tests[8];
    for (size_t i = 0; i < n; i++)
        tests[i] = i;
    sub.name = "g", sub.points = 60, sub.tests = tests, sub.test_count = n;
    struct rn_problem p = {.test_count = n, .subtasks = &sub, .subtask_count = 1,
                           .stop = RN_STOP_SUBTASK};
    struct rn_test_outcome t[8];
    struct rn_subtask_outcome s[1];
    double score;
    cr_assert_eq(rn_evaluate(&p, fraction_run, (void *)fr, t, s, verdict, &score), 0);
    *sub_verdict = s[0].verdict;
    return score;
}

/* min (CMS GroupMin), mul (GroupMul), sum (each test 60/n, every test run
 * though the default stop_on_failure is subtask) */
Test(scoring, aggregation_kinds)
{
    const double fr[] = {0.5, 1, 0.4, 1};
    enum runner_verdict v, sv;
    cr_assert_float_eq(aggregate_score((struct rn_subtask){.aggregate = RN_AGG_MIN}, fr, 4, &v, &sv),
                       60 * 0.5, 1e-9, "min stops at the first failure: 0.5");
    cr_assert_float_eq(aggregate_score((struct rn_subtask){.aggregate = RN_AGG_MUL}, fr, 2, &v, &sv),
                       60 * 0.5, 1e-9);
    const double all[] = {0.5, 1, 0.5, 1};
    cr_assert_float_eq(aggregate_score((struct rn_subtask){.aggregate = RN_AGG_MUL}, all, 4, &v, &sv),
                       60 * 0.5, 1e-9, "mul stops at the first failure too");
    const double part[] = {1, 0.5, 0.5};
    cr_assert_float_eq(aggregate_score((struct rn_subtask){.aggregate = RN_AGG_MUL}, part, 3, &v, &sv),
                       60 * 0.5, 1e-9);
    cr_assert_float_eq(aggregate_score((struct rn_subtask){.aggregate = RN_AGG_SUM}, fr, 4, &v, &sv),
                       60 * (0.5 + 1 + 0.4 + 1) / 4, 1e-9, "sum: every test counts its share");
    cr_assert_eq(v, RUNNER_WA);
    cr_assert_eq(sv, RUNNER_WA);
}

/* CMS GroupThreshold: a test passes when 0 < its checker value <= T; 0 is
 * a failed run; all pass: full points, the verdict AC (the checker's
 * values below 1 are not wrong answers here) */
Test(scoring, threshold_is_all_or_nothing_on_the_checker_value)
{
    struct rn_subtask th = {.aggregate = RN_AGG_THRESHOLD, .threshold = 0.5};
    enum runner_verdict v, sv;
    const double under[] = {0.2, 0.5, 0.01};
    cr_assert_float_eq(aggregate_score(th, under, 3, &v, &sv), 60, 1e-9);
    cr_assert_eq(v, RUNNER_AC);
    cr_assert_eq(sv, RUNNER_AC);
    const double over[] = {0.2, 0.6, 0.1};
    cr_assert_float_eq(aggregate_score(th, over, 3, &v, &sv), 0, 1e-9);
    cr_assert_eq(sv, RUNNER_WA);
    cr_assert_eq(v, RUNNER_WA);
    const double zero[] = {0.2, 0, 0.1};
    cr_assert_float_eq(aggregate_score(th, zero, 3, &v, &sv), 0, 1e-9, "0 never passes");
    const double accepted[] = {1, 1};
    cr_assert_float_eq(aggregate_score(th, accepted, 2, &v, &sv), 0, 1e-9, "1 > 0.5");
    cr_assert_eq(sv, RUNNER_WA, "an AC test over the threshold fails the subtask as WA");
    th.threshold = 1;
    cr_assert_float_eq(aggregate_score(th, accepted, 2, &v, &sv), 60, 1e-9);
}

/* ---- languages ---- */

static char *load_language_errors(const char *yaml)
{
    char *dir = scratch_dir("lang");
    put_file(dir, "x.yaml", "%s", yaml);
    char *path = NULL;
    cr_assert(asprintf(&path, "%s/x.yaml", dir) > 0);
    struct common_errors errs = {0};
    struct rn_language *l = NULL;
    int rc = rn_language_load(path, &l, &errs);
    char *joined = common_errors_join(&errs);
    cr_assert((rc == 0) == (errs.count == 0), "%s", joined);
    common_errors_free(&errs);
    rn_language_free(l);
    remove_dir(dir);
    free(dir);
    free(path);
    return joined;
}

#define GOOD_C "id: c\nname: C\nversion: [gcc, --version]\nsource: main.c\n" \
               "compile: [gcc, -o, main, main.c]\nrun: [./main]\npool: native\n"

Test(languages, valid_file_loads_with_defaults)
{
    char *dir = scratch_dir("lang");
    put_file(dir, "c.yaml", GOOD_C "compile_limits: {time: 5s, memory: 256M}\n"
             "env: {LANG: C.UTF-8}\nmounts: [/etc/alternatives]\n");
    char *path = NULL;
    cr_assert(asprintf(&path, "%s/c.yaml", dir) > 0);
    struct common_errors errs = {0};
    struct rn_language *l = NULL;
    int rc = rn_language_load(path, &l, &errs);
    cr_assert_eq(rc, 0);
    cr_assert_str_eq(l->id, "c");
    cr_assert_eq(l->compile_steps, 1);
    cr_assert_str_eq(l->compile[0][3], "main.c");
    cr_assert_float_eq(l->compile_time, 5, 1e-9);
    cr_assert_eq(l->compile_memory, 256ULL << 20);
    cr_assert_eq(l->compile_output, 64ULL << 20, "default kept");
    cr_assert_eq(l->processes, 1);
    cr_assert_str_eq(l->env[0], "LANG=C.UTF-8");
    cr_assert_str_eq(l->env[1], "PATH=/usr/local/bin:/usr/bin:/bin", "PATH defaults");
    cr_assert_str_eq(l->profile, "default");
    rn_language_free(l);
    common_errors_free(&errs);
    remove_dir(dir);
    free(dir);
    free(path);
}

Test(languages, several_compile_steps)
{
    char *e = load_language_errors("id: py\nname: P\nversion: [python3, -V]\nsource: main.py\n"
                                   "compile: [[python3, -m, py_compile, main.py], [true]]\n"
                                   "run: [python3, main.py]\npool: python\n");
    cr_assert_str_eq(e, "");
    free(e);
}

Test(languages, unknown_key_names_file_line_key)
{
    char *e = load_language_errors(GOOD_C "time_factr: 2\n");
    cr_assert(strstr(e, "x.yaml:8: time_factr: unknown key"), "%s", e);
    free(e);
}

Test(languages, bad_values_name_their_key)
{
    char *e = load_language_errors(GOOD_C "extra_memory: lots\ncompile_limits: {time: 10x}\n"
                                   "processes: [1]\n");
    cr_assert(strstr(e, ":8: extra_memory: bad size 'lots'"), "%s", e);
    cr_assert(strstr(e, ":9: compile_limits.time: bad duration '10x'"), "%s", e);
    cr_assert(strstr(e, ":10: processes: expected a single value"), "%s", e);
    free(e);
}

/* open_files (R's Rscript wants ~170) is bounded both ways: under 64 would
 * lower the box's default, past 1024 would lift it towards the host's */
Test(languages, open_files_is_bounded)
{
    char *e = load_language_errors(GOOD_C "open_files: 5000\n");
    cr_assert(strstr(e, "x.yaml:8: open_files: 5000 is more than 1024"), "%s", e);
    free(e);
    e = load_language_errors(GOOD_C "open_files: 10\n");
    cr_assert(strstr(e, "x.yaml:8: open_files:"), "%s", e);
    free(e);
}

Test(languages, missing_required_key)
{
    char *e = load_language_errors("id: c\nname: C\nsource: main.c\nrun: [./main]\n");
    cr_assert(strstr(e, "version: missing"), "%s", e);
    cr_assert_null(strstr(e, "pool"), "pool is judged.yaml's business: %s", e);
    free(e);
}

Test(languages, syntax_error_has_a_line)
{
    char *e = load_language_errors("id: c\nname: [oops\n");
    cr_assert(strstr(e, "x.yaml:") && strstr(e, "syntax"), "%s", e);
    free(e);
}

Test(languages, memory_template)
{
    char *tmpl[] = {"java", "-Xmx{memory_mb}m", "-Xss{memory_mb}m", "Main", NULL};
    char *extra[] = {"in", NULL};
    char **argv = rn_argv_expand(tmpl, 256ULL << 20, extra);
    cr_assert_str_eq(argv[1], "-Xmx256m");
    cr_assert_str_eq(argv[2], "-Xss256m");
    cr_assert_str_eq(argv[4], "in");
    cr_assert_null(argv[5]);
    rn_argv_free(argv);
}

/* {prepared} becomes the prepared files' flags while they are in use, and
 * nothing at all otherwise (the compile is then exactly today's) */
Test(languages, prepared_template)
{
    char *tmpl[] = {"g++", "{prepared}", "-O2", "-Xmx{memory_mb}m", NULL};
    char *flags[] = {"-I", "/prepared", NULL}, *extra[] = {"x", NULL};
    char **on = rn_argv_expand_prepared(tmpl, 64ULL << 20, flags, extra);
    char **off = rn_argv_expand(tmpl, 64ULL << 20, extra);
    const char *want_on[] = {"g++", "-I", "/prepared", "-O2", "-Xmx64m", "x", NULL};
    const char *want_off[] = {"g++", "-O2", "-Xmx64m", "x", NULL};
    for (int i = 0; want_on[i]; i++)
        cr_assert_str_eq(on[i], want_on[i]);
    cr_assert_null(on[6]);
    for (int i = 0; want_off[i]; i++)
        cr_assert_str_eq(off[i], want_off[i]);
    cr_assert_null(off[4]);
    rn_argv_free(on);
    rn_argv_free(off);
}

Test(languages, prepare_key_is_read_and_checked)
{
    char *e = load_language_errors(GOOD_C "prepare: {build: [[mkdir, bits], [g++, -x, c++-header]],\n"
                                   "  inputs: [/usr/bin/gcc], compile_flags: [-I, /prepared],\n"
                                   "  limits: {time: 60s, memory: 1G}}\n");
    cr_assert_str_eq(e, "");
    free(e);
    e = load_language_errors(GOOD_C "prepare: {inputs: [relative], flags: [-x],\n"
                             "  limits: {tme: 1s}}\n");
    cr_assert(strstr(e, "flags: unknown key in prepare"), "%s", e);
    cr_assert(strstr(e, "tme: unknown key in prepare.limits"), "%s", e);
    cr_assert(strstr(e, "prepare.build: missing"), "%s", e);
    free(e);
    e = load_language_errors(GOOD_C "prepare: {build: [true], inputs: [relative]}\n");
    cr_assert(strstr(e, "prepare.inputs: 'relative' is not an absolute path"), "%s", e);
    free(e);
}

Test(languages, shipped_languages_load)
{
    struct common_errors errs = {0};
    struct rn_language **ls = NULL;
    size_t n = 0;
    int rc = rn_languages_load_dir(JUDGED_SOURCE_DIR "/languages", 0, &ls, &n, &errs);
    char *e = common_errors_join(&errs);
    cr_assert_eq(rc, 0, "%s", e);
    const char *need[] = {"c", "cpp", "python3", "java"};
    for (size_t k = 0; k < 4; k++) {
        bool found = false;
        for (size_t i = 0; i < n; i++)
            found |= !strcmp(ls[i]->id, need[k]);
        cr_assert(found, "languages/ lacks %s", need[k]);
    }
    free(e);
    common_errors_free(&errs);
    rn_languages_free(ls, n);
}

Test(languages, an_id_must_equal_its_file_name)
{
    char *dir = scratch_dir("langdir");
    put_file(dir, "c.yaml", GOOD_C);
    put_file(dir, "gcc.yaml", "%s", "id: cc\nname: C\nversion: [gcc, --version]\nsource: main.c\n"
                                    "run: [./main]\n");
    struct common_errors errs = {0};
    struct rn_language **ls = NULL;
    size_t n = 0;
    cr_assert_eq(rn_languages_load_dir(dir, 0, &ls, &n, &errs), -1);
    char *e = common_errors_join(&errs);
    cr_assert(strstr(e, "gcc.yaml: id: 'cc' must equal the file name (gcc)"), "%s", e);
    free(e);
    common_errors_free(&errs);
    free(dir);
}

/* A directory of language files opened as a catalog (no sandbox). */
static struct runner *catalog_of(const char *dir, char *err, size_t errlen)
{
    struct runner_config cfg = {.languages_dir = dir, .catalog_only = true};
    struct runner *r = NULL;
    return runner_open(&r, &cfg, err, errlen) ? NULL : r;
}

#define PY(id, more) "id: " id "\nname: P\nversion: [python3, -V]\nsource: main.py\nrun: [python3, main.py]\n" more

/* A pypy3.yaml sorts before python3.yaml: its .py must not silently take
 * every .py checker (the first file by name did), nor a C variant .c */
Test(languages, the_default_for_an_extension_is_the_one_its_file_names)
{
    char *dir = scratch_dir("langdefault");
    put_file(dir, "pypy3.yaml", "%s", PY("pypy3", "extensions: [.py]\n"));
    put_file(dir, "python3.yaml", "%s", PY("python3", "extensions: [.py, .py3]\ndefault_for: [.py]\n"));
    put_file(dir, "c.yaml", "%s", GOOD_C "default_for: [.c]\n");
    put_file(dir, "a99.yaml", "%s", "id: a99\nname: C99\nversion: [gcc, --version]\nsource: main.c\nrun: [./main]\n");
    char err[1024];
    struct runner *r = catalog_of(dir, err, sizeof err);
    cr_assert(r, "%s", err);
    cr_assert_str_eq(runner_language_for_file(r, "checker.py"), "python3");
    cr_assert_str_eq(runner_language_for_file(r, "old.py3"), "python3", "the only one with .py3");
    cr_assert_str_eq(runner_language_for_file(r, "validator.c"), "c");
    cr_assert_null(runner_language_for_file(r, "x.rb"));
    /* what GET /v1/languages and judgectl languages --json show */
    char *pypy = runner_language_json(r, "pypy3"), *py = runner_language_json(r, "python3");
    cr_assert(strstr(pypy, "\"extensions\":[\".py\"],\"default_for\":[]"), "%s", pypy);
    cr_assert(strstr(py, "\"extensions\":[\".py\",\".py3\"],\"default_for\":[\".py\",\".py3\"]"), "%s", py);
    free(pypy);
    free(py);
    runner_close(r);
    remove_dir(dir);
    free(dir);
}

Test(languages, two_defaults_for_one_extension_name_both_files)
{
    char *dir = scratch_dir("langdefault2");
    put_file(dir, "pypy3.yaml", "%s", PY("pypy3", "default_for: [.py]\n"));
    put_file(dir, "python3.yaml", "%s", PY("python3", "default_for: [.py]\n"));
    char err[1024];
    struct runner *r = catalog_of(dir, err, sizeof err);
    cr_assert_null(r);
    cr_assert(strstr(err, "python3.yaml: default_for: '.py' is already the default of pypy3 (")
              && strstr(err, "pypy3.yaml)"), "%s", err);
    remove_dir(dir);
    free(dir);
}

/* shared and nobody's default: no language, and the checker's error says why */
Test(languages, a_shared_extension_without_a_default_has_none)
{
    char *dir = scratch_dir("langdefault3");
    put_file(dir, "pypy3.yaml", "%s", PY("pypy3", ""));
    put_file(dir, "python3.yaml", "%s", PY("python3", ""));
    char err[1024], having[256];
    struct runner *r = catalog_of(dir, err, sizeof err);
    cr_assert(r, "%s", err);
    cr_assert_null(runner_language_for_file(r, "checker.py"));
    rn_extension_languages(r, "checker.py", having, sizeof having);
    cr_assert_str_eq(having, "pypy3, python3");
    runner_close(r);
    remove_dir(dir);
    free(dir);
}

Test(languages, bad_extensions_name_their_key)
{
    char *e = load_language_errors(GOOD_C "extensions: [c, .c]\ndefault_for: [.h]\n");
    cr_assert(strstr(e, "x.yaml:1: extensions: 'c' is not an extension"), "%s", e);
    cr_assert(strstr(e, "x.yaml:1: default_for: '.h' is not one of the language's extensions"), "%s", e);
    free(e);
}

/* the shipped files: every extension has one language, C++'s other endings
 * are C++, and every language has a hello-world for languages --check */
Test(languages, shipped_defaults)
{
    char err[1024];
    struct runner *r = catalog_of(JUDGED_SOURCE_DIR "/languages", err, sizeof err);
    cr_assert(r, "%s", err);
    static const char *const want[][2] = {{"a.c", "c"}, {"a.cpp", "cpp"}, {"a.cc", "cpp"}, {"a.C", "cpp"},
                                          {"a.py", "python3"}, {"Main.java", "java"}, {"a.pas", "pascal"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert_str_eq(runner_language_for_file(r, want[i][0]) ? runner_language_for_file(r, want[i][0]) : "-",
                         want[i][1], "%s", want[i][0]);
    runner_close(r);
}

/* ---- problem packages ---- */

static char *package(const char *yaml, int tests)
{
    char *dir = scratch_dir("pkg");
    put_file(dir, "problem.yaml", "%s", yaml);
    for (int i = 1; i <= tests; i++) {
        char in[32], out[32];
        snprintf(in, sizeof in, "tests/%d.in", i);
        snprintf(out, sizeof out, "tests/%d.out", i);
        put_file(dir, in, "%d %d\n", i, i);
        put_file(dir, out, "%d\n", 2 * i);
    }
    return dir;
}

static char *check_errors(const char *dir, int *count)
{
    char *errors = NULL;
    *count = runner_problem_check(NULL, dir, &errors, NULL);
    return errors;
}

#define BASE "name: aplusb\ntime_limit: 1s\nmemory_limit: 256M\n"

/* 1k..256k pass the parser but no program starts in them: a warning that
 * names the key and its line, not an error. */
Test(problems, tiny_memory_limit_is_a_warning)
{
    char *dir = package("name: tiny\ntime_limit: 1s\nmemory_limit: 64k\n", 2);
    int count;
    char *errors = check_errors(dir, &count);
    cr_assert_eq(count, 0, "%s", errors);
    cr_assert(strstr(errors, "problem.yaml:3: memory_limit: warning: 65536 bytes is too small for a program to start"),
              "%s", errors);
    free(errors);
    remove_dir(dir);
    free(dir);
    dir = package(BASE, 2);
    errors = check_errors(dir, &count);
    cr_assert_eq(count, 0, "%s", errors);
    cr_assert_str_empty(errors, "no warning for 256M: %s", errors);
    free(errors);
    remove_dir(dir);
    free(dir);
}

/* A checker's (and an interactor's) compile flags are package content:
 * the forms a checker needs pass; whatever reads a file of the package's
 * choosing or runs another program is an error naming its line and flag. */
Test(problems, checker_flags_that_reach_outside_are_refused)
{
    static const char *const good[] = {"-DONLINE_JUDGE", "-DSCALE=2", "-UNDEBUG", "-O2", "-Ofast",
                                       "-std=c++20", "-Wall", "-Wno-sign-compare", "-w", "-g",
                                       "-fno-strict-aliasing", "-march=x86-64-v2", "-lm",
                                       "-pthread", "-static", "-Iinclude", "-isystemlib/inc"};
    static const char *const bad[] = {"@/etc/passwd", "@flags.txt", "-wrapper", "-B/tmp",
                                      "-specs=/tmp/x.specs", "-fplugin=/tmp/x.so",
                                      "-fplugin-arg-x-y=1", "-I/etc", "-I../../etc", "-I",
                                      "-isystem/usr/include/x", "-Wl,@/etc/shadow", "-Wl,-T,x",
                                      "-Xlinker", "-Wa,--defsym,x=1", "-fprofile-use=/etc/x",
                                      "-fsanitize-ignorelist=/etc/x", "-DX=../../secret", "-o",
                                      "main.cpp", "--sysroot=/", "-include/etc/shadow"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        char *yaml = NULL;
        cr_assert(asprintf(&yaml, BASE "checker:\n  type: custom\n  source: check.cpp\n"
                           "  flags:\n    - '%s'\n", good[i]) > 0);
        char *dir = package(yaml, 1);
        put_file(dir, "check.cpp", "int main() { return 0; }\n");
        int count;
        char *errors = check_errors(dir, &count);
        cr_expect_eq(count, 0, "%s: %s", good[i], errors);
        free(errors);
        remove_dir(dir);
        free(dir);
        free(yaml);
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *key = i % 2 ? "interactor" : "checker";
        char *yaml = NULL;
        if (i % 2)
            cr_assert(asprintf(&yaml, BASE "type: interactive\ninteractor:\n  source: check.cpp\n"
                               "  flags:\n    - -O2\n    - '%s'\n", bad[i]) > 0);
        else
            cr_assert(asprintf(&yaml, BASE "checker:\n  type: custom\n  source: check.cpp\n"
                               "  flags:\n    - -O2\n    - '%s'\n", bad[i]) > 0);
        char *dir = package(yaml, 1);
        put_file(dir, "check.cpp", "int main() { return 0; }\n");
        int count;
        char *errors = check_errors(dir, &count);
        cr_expect_eq(count, 1, "%s: %s", bad[i], errors);
        char want[128];
        snprintf(want, sizeof want, "problem.yaml:9: %s.flags: '%s'", key, bad[i]);
        cr_expect(errors && strstr(errors, want), "want %s in: %s", want, errors);
        free(errors);
        remove_dir(dir);
        free(dir);
        free(yaml);
    }
}

/* legal, probably not meant: warnings naming file, line and key; the
 * check still passes */
static void expect_warnings(const char *yaml, int tests, const char *const *want, size_t nwant)
{
    char *dir = package(yaml, tests);
    int count;
    char *errors = check_errors(dir, &count);
    cr_assert_eq(count, 0, "a warning is not an error: %s", errors);
    size_t lines = 0;
    for (const char *p = errors; p && *p; p++)
        lines += *p == '\n';
    cr_assert_eq(lines, nwant, "%s", errors);
    for (size_t i = 0; i < nwant; i++)
        cr_assert(strstr(errors, want[i]), "want '%s' in:\n%s", want[i], errors);
    free(errors);
    remove_dir(dir);
    free(dir);
}

Test(problems, subtask_points_not_adding_to_100_is_a_warning)
{
    const char *want[] = {"/problem.yaml:4: subtasks: warning: the subtasks' points add up to 70, not 100"};
    expect_warnings(BASE "subtasks:\n  - {points: 30, tests: [1]}\n  - {points: 40, tests: [2]}\n", 2,
                    want, 1);
    expect_warnings(BASE "subtasks:\n  - {points: 40, tests: [1]}\n  - {points: 60, tests: [2]}\n", 2,
                    want, 0);
    const char *more[] = {"the subtasks' points add up to 120, not 100"};
    expect_warnings(BASE "subtasks:\n  - {points: 60, tests: [1]}\n  - {points: 60, tests: [2]}\n", 2,
                    more, 1);
}

Test(problems, a_test_in_no_subtask_is_a_warning)
{
    const char *want[] = {"/problem.yaml:4: subtasks: warning: 2 tests are in no subtask ('3', '4')"};
    expect_warnings(BASE "subtasks:\n  - {points: 50, tests: [1]}\n  - {points: 50, tests: [2]}\n", 4,
                    want, 1);
    const char *one[] = {"1 test is in no subtask ('4')"};
    expect_warnings(BASE "subtasks:\n  - {points: 50, tests: [1-2]}\n  - {points: 50, tests: [2-3]}\n", 4,
                    one, 1);
    /* no subtasks: one subtask holds every test */
    expect_warnings(BASE, 4, NULL, 0);
    /* many: one line, a few named */
    const char *many[] = {"9 tests are in no subtask ('2', '3', '4', '5', '6', ...)"};
    expect_warnings(BASE "subtasks:\n  - {points: 100, tests: [1]}\n", 10, many, 1);
}

/* A package says it in problem.yaml; each kind loads and scores as above. */
Test(problems, subtask_aggregate_keys_load)
{
    char *dir = package(BASE "subtasks:\n"
                             "  - {points: 10, tests: [1-2]}\n"
                             "  - {points: 20, tests: [1-2], aggregate: min}\n"
                             "  - {points: 30, tests: [1-2], aggregate: mul}\n"
                             "  - {points: 25, tests: [1-2], aggregate: sum}\n"
                             "  - {points: 15, tests: [1-2], aggregate: {threshold: 0.75}}\n",
                        2);
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    int rc = rn_problem_load(dir, NULL, &p, &errs);
    char *e = common_errors_join(&errs);
    cr_assert_eq(rc, 0, "%s", e);
    free(e);
    common_errors_free(&errs);
    const double fr[] = {0.5, 0.7};
    struct rn_test_outcome t[2];
    struct rn_subtask_outcome s[5];
    enum runner_verdict verdict;
    double score;
    cr_assert_eq(rn_evaluate(p, fraction_run, (void *)fr, t, s, &verdict, &score), 0);
    cr_assert_float_eq(s[0].score, 5, 1e-9);
    cr_assert_float_eq(s[1].score, 10, 1e-9);
    cr_assert_float_eq(s[2].score, 30 * 0.5, 1e-9, "mul stopped at test 1 (stop_on_failure: subtask)");
    cr_assert_float_eq(s[3].score, 25 * 0.6, 1e-9);
    cr_assert_float_eq(s[4].score, 15, 1e-9);
    cr_assert_eq(s[4].verdict, RUNNER_AC);
    cr_assert_float_eq(score, 5 + 10 + 15 + 15 + 15, 1e-9);
    rn_problem_free(p);
    remove_dir(dir);
    free(dir);
}

static void expect_load_error(const char *yaml, const char *want)
{
    char *dir = package(yaml, 2);
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    cr_assert_eq(rn_problem_load(dir, NULL, &p, &errs), -1);
    char *e = common_errors_join(&errs);
    cr_assert(strstr(e, want), "want '%s' in:\n%s", want, e);
    free(e);
    common_errors_free(&errs);
    remove_dir(dir);
    free(dir);
}

Test(problems, a_bad_aggregate_names_file_line_and_key)
{
    expect_load_error(BASE "subtasks:\n  - {points: 100, tests: [1-2], aggregate: avg}\n",
                      "problem.yaml:5: subtasks.aggregate: unknown value 'avg' (min, mul, sum or "
                      "{threshold: T})");
    expect_load_error(BASE "subtasks:\n  - points: 100\n    tests: [1-2]\n    aggregate: {threshold: 0}\n",
                      "problem.yaml:7: subtasks.aggregate.threshold: 0 is not above 0");
    expect_load_error(BASE "subtasks:\n  - points: 100\n    tests: [1-2]\n    aggregate: {limit: 3}\n",
                      "problem.yaml:7: subtasks.aggregate: unknown key 'limit'");
    expect_load_error(BASE "subtasks:\n  - points: 100\n    tests: [1-2]\n    aggregate: {threshold: x}\n",
                      "problem.yaml:7: subtasks.aggregate.threshold:");
}

/* ---- graded groups (grade:, Kattis' default grader) ---- */

struct graded_run {
    const char *verdicts;   /* per test: A(C) W(A) T(LE) R(E) */
    int runs[16];
};

static int graded_fake(void *ctx, size_t i, struct rn_test_outcome *out)
{
    struct graded_run *g = ctx;
    g->runs[i]++;
    char c = g->verdicts[i];
    out->verdict = c == 'A' ? RUNNER_AC : c == 'T' ? RUNNER_TLE : c == 'R' ? RUNNER_RE : RUNNER_WA;
    out->fraction = c == 'A';
    return 0;
}

/* loads yaml over n tests, judges with verdicts, returns the score */
static double judge_graded(const char *yaml, int n, struct graded_run *g, enum runner_verdict *verdict,
                           struct rn_subtask_outcome *subs)
{
    char *dir = package(yaml, n);
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    int rc = rn_problem_load(dir, NULL, &p, &errs);
    char *e = common_errors_join(&errs);
    cr_assert_eq(rc, 0, "%s", e);
    free(e);
    common_errors_free(&errs);
    struct rn_test_outcome t[16];
    double score;
    cr_assert_eq(rn_evaluate(p, graded_fake, g, t, subs, verdict, &score), 0);
    rn_problem_free(p);
    remove_dir(dir);
    free(dir);
    return score;
}

/* An olympiad's legacy package: data/ sums with ignore_sample and
 * accept_if_any_accepted, each secret group is min with its accept_score
 * (written from the problem package format's "Default Grader
 * Specification"): the sample group's failure is ignored, a failed group
 * scores 0, the verdict is AC with the groups passed. */
#define OLYMPIAD BASE "stop_on_failure: none\nsubtasks:\n" \
    "  - {name: data, tests: [], grade: {score: sum, accept_if_any_accepted: true, ignore_first: true, " \
    "on_reject: continue}}\n" \
    "  - {name: sample, parent: data, tests: [1], grade: {on_reject: continue}}\n" \
    "  - {name: secret, parent: data, grade: {on_reject: continue, accept_if_any_accepted: true}}\n" \
    "  - {name: g1, parent: secret, points: 30, tests: [2-3], grade: {score: min}}\n" \
    "  - {name: g2, parent: secret, points: 70, tests: [4-5], grade: {score: min}}\n"

Test(graded, accept_if_any_accepted_with_ignore_sample)
{
    struct rn_subtask_outcome s[5];
    enum runner_verdict v;
    struct graded_run g = {.verdicts = "WAAWA"};
    cr_assert_float_eq(judge_graded(OLYMPIAD, 5, &g, &v, s), 30, 1e-9);
    cr_assert_eq(v, RUNNER_AC, "Kattis: AC with 30");
    cr_assert_eq(s[3].verdict, RUNNER_AC);
    cr_assert_eq(s[4].verdict, RUNNER_WA);
    cr_assert_float_eq(s[4].score, 0, 1e-9);
    cr_assert_eq(g.runs[4], 0, "g2 breaks at its first rejection (on_reject: break, the default)");
    struct graded_run none = {.verdicts = "AWAWA"};
    cr_assert_float_eq(judge_graded(OLYMPIAD, 5, &none, &v, s), 0, 1e-9);
    cr_assert_eq(v, RUNNER_WA, "no group accepted: the worst error");
    struct graded_run all = {.verdicts = "WAAAA"};
    cr_assert_float_eq(judge_graded(OLYMPIAD, 5, &all, &v, s), 100, 1e-9);
    cr_assert_eq(v, RUNNER_AC);
}

#define FLAT(flags) BASE "stop_on_failure: none\nsubtasks:\n" \
    "  - {name: all, points: 10, tests: [1-4], grade: {on_reject: continue" flags "}}\n"

Test(graded, verdict_modes)
{
    struct rn_subtask_outcome s[1];
    enum runner_verdict v;
    struct graded_run g = {.verdicts = "AWTA"};
    judge_graded(FLAT(""), 4, &g, &v, s);
    cr_assert_eq(v, RUNNER_TLE, "worst_error (the default): TLE is worse than WA");
    judge_graded(FLAT(", verdict: first_error"), 4, &g, &v, s);
    cr_assert_eq(v, RUNNER_WA);
    cr_assert_float_eq(judge_graded(FLAT(", verdict: always_accept"), 4, &g, &v, s), 20, 1e-9);
    cr_assert_eq(v, RUNNER_AC);
    struct graded_run r = {.verdicts = "WRTA"};
    judge_graded(FLAT(""), 4, &r, &v, s);
    cr_assert_eq(v, RUNNER_RE, "RTE before TLE before WA");
}

Test(graded, score_modes_range_and_reject_score)
{
    struct rn_subtask_outcome s[1];
    enum runner_verdict v;
    struct graded_run g = {.verdicts = "AWAA"};
    cr_assert_float_eq(judge_graded(FLAT(""), 4, &g, &v, s), 30, 1e-9, "sum");
    cr_assert_float_eq(judge_graded(FLAT(", score: avg"), 4, &g, &v, s), 7.5, 1e-9);
    cr_assert_float_eq(judge_graded(FLAT(", score: min"), 4, &g, &v, s), 0, 1e-9);
    cr_assert_float_eq(judge_graded(FLAT(", score: max"), 4, &g, &v, s), 10, 1e-9);
    cr_assert_float_eq(judge_graded(FLAT(", reject_score: -5"), 4, &g, &v, s), 25, 1e-9);
    cr_assert_float_eq(judge_graded(FLAT(", range: [0, 25]"), 4, &g, &v, s), 25, 1e-9, "clamped");
    cr_assert_float_eq(judge_graded(FLAT(", score: min, range: [3, inf]"), 4, &g, &v, s), 3, 1e-9);
    /* on_reject: break (the default): the results after the first rejection are not judged */
    struct graded_run b = {.verdicts = "AWAA"};
    cr_assert_float_eq(judge_graded(BASE "subtasks:\n  - {name: all, points: 10, tests: [1-4], grade: {}}\n", 4,
                                    &b, &v, s), 10, 1e-9);
    cr_assert_eq(b.runs[2] + b.runs[3], 0);
}

/* A group's tests and child groups are judged in test order (Kattis: by
 * name), a child standing where its first test does: here test 1, the
 * child (test 2), test 3; on_reject: break stops after the child's WA. */
Test(graded, items_are_judged_in_test_order)
{
    struct rn_subtask_outcome s[2];
    enum runner_verdict v;
    struct graded_run g = {.verdicts = "AWT"};
    double score = judge_graded(BASE "subtasks:\n"
                                     "  - {name: top, points: 2, tests: [1, 3], grade: {verdict: first_error}}\n"
                                     "  - {name: kid, parent: top, points: 5, tests: [2], grade: {}}\n",
                                3, &g, &v, s);
    cr_assert_eq(v, RUNNER_WA, "the child's WA comes before test 3");
    cr_assert_eq(g.runs[2], 0, "test 3 is after the break");
    cr_assert_float_eq(score, 2 + 0, 1e-9);
}

Test(graded, bad_grade_keys_name_file_line_and_key)
{
    expect_load_error(BASE "subtasks:\n  - {name: a, points: 1, tests: [1]}\n  - {name: b, parent: a, tests: [2]}\n",
                      "problem.yaml:6: subtasks.parent: 'a' is not an earlier subtask with grade:");
    expect_load_error(BASE "subtasks:\n  - {name: a, tests: [1-2], grade: {score: median}}\n",
                      "problem.yaml:5: subtasks.grade.score: unknown value 'median' (sum, avg, min, max)");
    expect_load_error(BASE "subtasks:\n  - {name: a, tests: [1-2], grade: {range: [5, 1]}}\n",
                      "problem.yaml:5: subtasks.grade.range: 5 is above 1");
    expect_load_error(BASE "subtasks:\n  - {name: a, tests: [1-2], grade: {flags: sum}}\n",
                      "problem.yaml:5: subtasks.grade: unknown key 'flags'");
    expect_load_error(BASE "subtasks:\n  - {name: a, grade: {}}\n",
                      "subtasks.tests: graded subtask 'a' has no test, itself or beneath");
    expect_load_error(BASE "subtasks:\n  - {name: a, tests: [1], grade: {}, aggregate: mul}\n",
                      "problem.yaml:5: subtasks.aggregate: not with grade:");
}

Test(problems, a_time_limit_above_60_without_a_unit_is_a_warning)
{
    const char *want[] = {"/problem.yaml:2: time_limit: warning: 1000 has no unit, so it means 1000 "
                          "seconds; write 1000ms if milliseconds were meant"};
    expect_warnings("name: t\ntime_limit: 1000\nmemory_limit: 256M\n", 1, want, 1);
    expect_warnings("name: t\ntime_limit: 1000ms\nmemory_limit: 256M\n", 1, NULL, 0);
    expect_warnings("name: t\ntime_limit: 90s\nmemory_limit: 256M\n", 1, NULL, 0);
    expect_warnings("name: t\ntime_limit: 60\nmemory_limit: 256M\n", 1, NULL, 0);
    expect_warnings("name: t\ntime_limit: 2.5\nmemory_limit: 256M\n", 1, NULL, 0);
}

Test(problems, minimal_package_defaults)
{
    char *dir = package(BASE, 12);
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    int rc = rn_problem_load(dir, NULL, &p, &errs);
    cr_assert_eq(rc, 0);
    cr_assert_eq(p->test_count, 12);
    cr_assert_str_eq(p->tests[1].name, "2", "natural order");
    cr_assert_str_eq(p->tests[9].name, "10");
    cr_assert_eq(p->subtask_count, 1);
    cr_assert_float_eq(p->subtasks[0].points, 100, 1e-9);
    cr_assert_eq(p->checker, RN_CHECK_TOKENS);
    cr_assert_eq(p->output_limit, 64ULL << 20);
    rn_problem_free(p);
    common_errors_free(&errs);
    remove_dir(dir);
    free(dir);
}

Test(problems, subtasks_ranges_and_dependencies)
{
    char *dir = package(BASE "checker: {type: float, epsilon: 1e-4}\nstop_on_failure: none\n"
                        "subtasks:\n  - {name: small, points: 30, tests: [1-5]}\n"
                        "  - {name: large, points: 70, tests: [6-8, 10], depends: [small]}\n",
                        10);
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    int rc = rn_problem_load(dir, NULL, &p, &errs);
    char *e = common_errors_join(&errs);
    cr_assert_eq(rc, 0, "%s", e);
    cr_assert_eq(p->subtasks[0].test_count, 5);
    cr_assert_eq(p->subtasks[1].test_count, 4);
    cr_assert_eq(p->subtasks[1].tests[3], 9);
    cr_assert_eq(p->subtasks[1].dep_count, 1);
    cr_assert_eq(p->subtasks[1].deps[0], 0);
    cr_assert_eq(p->checker, RN_CHECK_FLOAT);
    cr_assert_float_eq(p->compare.abs_tol, 1e-4, 1e-12);
    cr_assert_float_eq(p->compare.rel_tol, 1e-4, 1e-12);
    cr_assert_eq(p->stop, RN_STOP_NONE);
    free(e);
    rn_problem_free(p);
    common_errors_free(&errs);
    remove_dir(dir);
    free(dir);
}

Test(problems, every_error_names_file_line_key)
{
    char *dir = package("name: aplusb\ntime_limit: 1 second\nmemory_limit: 256Q\n"
                        "colour: blue\nchecker: fuzzy\nstop_on_failure: sometimes\n"
                        "subtasks:\n  - {name: a, points: 50, tests: [1-9]}\n"
                        "  - {name: b, points: x, tests: [1], depends: [zzz], extra: 1}\n"
                        "on_output_limit: cut\n", 3);
    int count;
    char *e = check_errors(dir, &count);
    cr_assert(strstr(e, "problem.yaml:2: time_limit: bad duration '1 second'"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:3: memory_limit: bad size '256Q'"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:4: colour: unknown key"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:5: checker: unknown checker 'fuzzy'"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:6: stop_on_failure: unknown value"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:8: subtasks.tests: '1-9' names no test"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:9: subtasks.points: bad number 'x'"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:9: subtasks.depends: 'zzz' is not an earlier subtask"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:9: extra: unknown key in a subtask"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:10: on_output_limit: unknown value 'cut' (kill, truncate)"), "%s", e);
    cr_assert_geq(count, 10);
    free(e);
    remove_dir(dir);
    free(dir);
}

Test(problems, key_given_twice)
{
    char *dir = package(BASE "time_limit: 2s\n", 1);
    int count;
    char *e = check_errors(dir, &count);
    cr_assert(strstr(e, "problem.yaml:4: time_limit: given twice (also on line 2)"), "%s", e);
    free(e);
    remove_dir(dir);
    free(dir);
}

Test(problems, missing_test_pair)
{
    char *dir = package(BASE, 2);
    put_file(dir, "tests/3.in", "1 1\n");
    put_file(dir, "tests/4.out", "2\n");
    int count;
    char *e = check_errors(dir, &count);
    cr_assert_eq(count, 2, "%s", e);
    cr_assert(strstr(e, "tests/3.in:0: tests: no matching tests/3.out"), "%s", e);
    cr_assert(strstr(e, "tests/4.out:0: tests: no matching tests/4.in"), "%s", e);
    free(e);
    remove_dir(dir);
    free(dir);
}

Test(problems, explicit_tests_must_exist)
{
    char *dir = package(BASE "tests:\n  - 1\n  - {name: big, input: gen/big.in, output: gen/big.out}\n"
                        "  - 7\n", 2);
    int count;
    char *e = check_errors(dir, &count);
    cr_assert(strstr(e, "problem.yaml:6: tests: missing test file gen/big.in"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:7: tests: missing test file tests/7.in"), "%s", e);
    free(e);
    remove_dir(dir);
    free(dir);
}

Test(problems, custom_checker_needs_a_source)
{
    /* any language compiles a checker (issue 11), but its extension names it */
    char *dir = package(BASE "checker:\n  type: custom\n  source: check\n", 1);
    int count;
    char *e = check_errors(dir, &count);
    cr_assert(strstr(e, "problem.yaml:6: checker.source: 'check' needs an extension naming its "
                     "language"), "%s", e);
    free(e);
    remove_dir(dir);
    free(dir);
    dir = package(BASE "checker: custom\n", 1);
    e = check_errors(dir, &count);
    cr_assert(strstr(e, "problem.yaml:4: checker: custom needs the long form"), "%s", e);
    free(e);
    remove_dir(dir);
    free(dir);
}

Test(problems, missing_required_keys)
{
    char *dir = package("title: nothing\n", 1);
    int count;
    char *e = check_errors(dir, &count);
    cr_assert(strstr(e, "name: missing"), "%s", e);
    cr_assert(strstr(e, "time_limit: missing"), "%s", e);
    cr_assert(strstr(e, "memory_limit: missing"), "%s", e);
    free(e);
    remove_dir(dir);
    free(dir);
}

/* ---- report ---- */

Test(report, json_shape)
{
    struct runner_report *rep = rn_report_new();
    rep->verdict = RUNNER_WA;
    rep->score = 30;
    rep->max_score = 100;
    rep->tests = calloc(1, sizeof *rep->tests);
    rep->test_count = 1;
    rep->tests[0] = (struct rn_test_report){.name = strdup("1"), .verdict = RUNNER_WA,
                                            .cpu_time = 0.01, .memory = 1 << 20,
                                            .checker_message = strdup("bad\xff byte")};
    rep->subtasks = calloc(1, sizeof *rep->subtasks);
    rep->subtask_count = 1;
    rep->subtasks[0] = (struct rn_subtask_report){strdup("all"), 30, 100, RUNNER_WA};
    char *s = runner_report_json(rep);
    cr_assert_not_null(s, "non-UTF-8 messages must not break the JSON");
    json_error_t jerr;
    json_t *j = json_loads(s, 0, &jerr);
    cr_assert_not_null(j);
    cr_assert_str_eq(json_string_value(json_object_get(j, "verdict")), "WA");
    cr_assert_eq(json_integer_value(json_object_get(j, "score")), 30);
    json_t *t = json_array_get(json_object_get(j, "tests"), 0);
    const char *keys[] = {"name", "verdict", "cpu_time", "wall_time", "memory", "exit_code",
                          "signal", "checker_message"};
    for (size_t i = 0; i < 8; i++)
        cr_assert_not_null(json_object_get(t, keys[i]), "tests[0].%s", keys[i]);
    cr_assert_str_eq(json_string_value(json_object_get(t, "checker_message")), "bad? byte",
                     "the byte that is not UTF-8 becomes '?', the rest is kept");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j, "compile"), "status")),
                     "none");
    json_decref(j);
    free(s);
    runner_report_free(rep);
}

/* ---- box directories ---- */

#include <fcntl.h>
#include <sys/stat.h>

static ino_t inode_of(const char *dir, const char *name)
{
    char path[2048];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

Test(files, deep_trees_are_removed_without_deep_recursion)
{
    char *dir = scratch_dir("deep");
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    for (int i = 0; i < 3000; i++) {      /* far deeper than PATH_MAX allows by name */
        cr_assert_eq(mkdirat(fd, "d", 0700), 0);
        int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
        close(fd);
        fd = next;
    }
    close(fd);
    cr_assert_eq(rn_remove_tree(dir), 0);
    cr_assert_neq(access(dir, F_OK), 0);
    free(dir);
}

Test(files, reset_box_keeps_only_the_sealed_artefacts)
{
    char *root = scratch_dir("box");
    char src[256], box[256];
    snprintf(src, sizeof src, "%s/src", root);
    snprintf(box, sizeof box, "%s/box", root);
    mkdir(src, 0777);
    put_file(src, "main", "binary");
    put_file(src, "pkg/A.class", "class");
    cr_assert_eq(rn_seal_tree(src), 0);
    cr_assert_eq(rn_reset_box(box, src, true), 0);
    cr_assert_eq(inode_of(box, "main"), inode_of(src, "main"), "a hard link, not a copy");
    cr_assert_neq(inode_of(box, "pkg/A.class"), 0);
    /* what a program might leave: a new file, a replaced artefact, a dir */
    put_file(box, "junk", "x");
    char path[512];
    snprintf(path, sizeof path, "%s/main", box);
    unlink(path);
    put_file(box, "main", "evil");
    snprintf(path, sizeof path, "%s/tree/a/b", box);
    put_file(box, "tree/a/b", "y");
    cr_assert_eq(rn_reset_box(box, src, false), 0);
    cr_assert_eq(inode_of(box, "junk"), 0);
    cr_assert_eq(inode_of(box, "tree"), 0);
    cr_assert_eq(inode_of(box, "main"), inode_of(src, "main"));
    struct stat st;
    snprintf(path, sizeof path, "%s/main", src);
    cr_assert_eq(stat(path, &st), 0);
    cr_assert_eq(st.st_mode & 0222, 0, "sealed artefacts are read-only");
    remove_dir(root);
    free(root);
}

/* ---- comparison options, testlib's quitp, new package keys (issue 11) ---- */

static enum runner_verdict compare(enum rn_checker_type t, struct rn_compare c, const char *out,
                                   const char *ans)
{
    struct rn_check res;
    rn_check_buffers(t, &c, out, strlen(out), ans, strlen(ans), &res);
    return res.verdict;
}

Test(checkers, case_insensitive)
{
    struct rn_compare ci = RN_COMPARE_DEFAULT, cs = RN_COMPARE_DEFAULT;
    ci.case_insensitive = true;
    cr_assert_eq(compare(RN_CHECK_TOKENS, ci, "yes No\n", "YES NO\n"), RUNNER_AC);
    cr_assert_eq(compare(RN_CHECK_TOKENS, cs, "yes No\n", "YES NO\n"), RUNNER_WA);
    cr_assert_eq(compare(RN_CHECK_TOKENS, ci, "yes\n", "YESS\n"), RUNNER_WA);
    cr_assert_eq(compare(RN_CHECK_LINES, ci, "Hello World\n", "hello world\n"), RUNNER_AC);
    cr_assert_eq(compare(RN_CHECK_EXACT, ci, "Hello\n", "hello\n"), RUNNER_AC);
    cr_assert_eq(compare(RN_CHECK_FLOAT, ci, "Yes 1.0000001\n", "YES 1\n"), RUNNER_AC);
}

Test(checkers, space_change_sensitive)
{
    struct rn_compare sp = RN_COMPARE_DEFAULT;
    sp.space_sensitive = true;
    cr_assert_eq(compare(RN_CHECK_TOKENS, sp, "1 2\n3\n", "1 2\n3\n"), RUNNER_AC);
    cr_assert_eq(compare(RN_CHECK_TOKENS, sp, "1  2\n3\n", "1 2\n3\n"), RUNNER_WA);
    cr_assert_eq(compare(RN_CHECK_TOKENS, sp, "1 2 3\n", "1 2\n3\n"), RUNNER_WA);
    cr_assert_eq(compare(RN_CHECK_TOKENS, sp, "1 2\n3", "1 2\n3\n"), RUNNER_WA);
    cr_assert_eq(compare(RN_CHECK_FLOAT, sp, "1.0000001 2\n", "1 2\n"), RUNNER_AC);
    cr_assert_eq(compare(RN_CHECK_FLOAT, sp, "1.0000001\t2\n", "1 2\n"), RUNNER_WA);
    struct rn_check res;
    rn_check_buffers(RN_CHECK_TOKENS, &sp, "1  2", 4, "1 2", 3, &res);
    cr_assert(strstr(res.message, "whitespace differs before token 2"), "%s", res.message);
}

Test(checkers, absolute_and_relative_tolerances_apart)
{
    struct rn_compare abs_only = {.abs_tol = 1e-6, .rel_tol = -1};
    struct rn_compare rel_only = {.abs_tol = -1, .rel_tol = 1e-6};
    cr_assert_eq(compare(RN_CHECK_FLOAT, abs_only, "0", "1e-9"), RUNNER_AC);
    cr_assert_eq(compare(RN_CHECK_FLOAT, rel_only, "0", "1e-9"), RUNNER_WA);
    cr_assert_eq(compare(RN_CHECK_FLOAT, rel_only, "1.0000000001e-9", "1e-9"), RUNNER_AC);
    cr_assert_eq(compare(RN_CHECK_FLOAT, rel_only, "1000000.5", "1000000"), RUNNER_AC);
    cr_assert_eq(compare(RN_CHECK_FLOAT, abs_only, "1000000.5", "1000000"), RUNNER_WA);
}

Test(checkers, testlib_quitp_writes_points_on_stderr)
{
    struct rn_check r;
    /* what testlib's quitp(0.25, "a quarter") leaves: exit 7, stderr only */
    rn_check_from_exit(7, "", "points 0.25 a quarter\n", &r);
    cr_assert_eq(r.verdict, RUNNER_WA);
    cr_assert_float_eq(r.fraction, 0.25, 1e-9);
    cr_assert(strstr(r.message, "a quarter"), "%s", r.message);
    rn_check_from_exit(7, "", "points 1\n", &r);
    cr_assert_eq(r.verdict, RUNNER_AC);
    rn_check_from_exit(7, "", "points 40 out of range\n", &r);
    cr_assert_eq(r.verdict, RUNNER_IE);
    rn_check_from_exit(7, "", "ok no points\n", &r);
    cr_assert_eq(r.verdict, RUNNER_IE);
}

Test(problems, comparison_options)
{
    char *dir = package(BASE "checker: {type: float, absolute_tolerance: 1e-3, case_sensitive: "
                        "false, space_change_sensitive: true}\n", 1);
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    cr_assert_eq(rn_problem_load(dir, NULL, &p, &errs), 0);
    cr_assert_float_eq(p->compare.abs_tol, 1e-3, 1e-12);
    cr_assert(p->compare.rel_tol < 0, "a tolerance not given is off");
    cr_assert(p->compare.case_insensitive && p->compare.space_sensitive);
    rn_problem_free(p);
    common_errors_free(&errs);
    remove_dir(dir);
    free(dir);
    int count;
    dir = package(BASE "checker: {type: tokens, relative_tolerance: 1e-6}\n", 1);
    char *e = check_errors(dir, &count);
    cr_assert(strstr(e, "problem.yaml:4: checker.relative_tolerance: only the float checker"), "%s", e);
    free(e);
    remove_dir(dir);
    free(dir);
    /* epsilon 0 (the ICPC float_tolerance 0): numbers equal as numbers;
     * fuzz_icpc found it converted and then refused as "must be positive" */
    dir = package(BASE "checker: {type: float, epsilon: 0}\n", 1);
    cr_assert_eq(rn_problem_load(dir, NULL, &p, &errs), 0);
    cr_assert(p->compare.abs_tol == 0 && p->compare.rel_tol == 0);
    struct rn_check r;
    rn_check_buffers(p->checker, &p->compare, "1.0 2", 5, "1 2.0000", 8, &r);
    cr_assert_eq(r.verdict, RUNNER_AC, "%s", r.message);
    rn_check_buffers(p->checker, &p->compare, "1.0000001", 9, "1", 1, &r);
    cr_assert_eq(r.verdict, RUNNER_WA);
    rn_problem_free(p);
    common_errors_free(&errs);
    remove_dir(dir);
    free(dir);
    dir = package(BASE "checker: {type: float, epsilon: 1e-6, absolute_tolerance: 1e-6}\n", 1);
    e = check_errors(dir, &count);
    cr_assert(strstr(e, "checker.epsilon: give epsilon"), "%s", e);
    free(e);
    remove_dir(dir);
    free(dir);
    dir = package(BASE "checker: {type: lines, case_sensitive: maybe}\n", 1);
    e = check_errors(dir, &count);
    cr_assert(strstr(e, "problem.yaml:4: checker.case_sensitive: expected true or false"), "%s", e);
    free(e);
    remove_dir(dir);
    free(dir);
}

/* A test's own checker or arguments (what an ICPC group's output
 * validator arguments become): parsed onto the test, the rest keep the
 * problem's; each misuse named with its line and key. */
Test(problems, a_test_may_call_the_checker_its_own_way)
{
    char *dir = package(BASE "checker: tokens\ntests:\n  - {name: a, input: tests/1.in, output: tests/1.out}\n"
                        "  - {name: b, input: tests/2.in, output: tests/2.out, checker: {type: float, "
                        "absolute_tolerance: 1e-3, case_sensitive: false}}\n", 2);
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    cr_assert_eq(rn_problem_load(dir, NULL, &p, &errs), 0);
    cr_assert(!p->tests[0].own_check && !p->tests[0].args, "test a keeps the problem's checker");
    cr_assert(p->tests[1].own_check && p->tests[1].check == RN_CHECK_FLOAT);
    cr_assert_float_eq(p->tests[1].compare.abs_tol, 1e-3, 1e-12);
    cr_assert(p->tests[1].compare.rel_tol < 0 && p->tests[1].compare.case_insensitive);
    rn_problem_free(p);
    common_errors_free(&errs);
    remove_dir(dir);
    free(dir);
    static const struct {
        const char *yaml, *want;
    } bad[] = {
        {"checker: tokens\ntests:\n  - {name: a, input: tests/1.in, output: tests/1.out, args: [x]}\n",
         "problem.yaml:6: tests.args: only a custom checker or an interactor takes arguments"},
        {"checker: tokens\ntests:\n  - {name: a, input: tests/1.in, output: tests/1.out, checker: "
         "{type: tokens, epsilon: 1}}\n", "problem.yaml:6: tests.checker.epsilon: only the float checker"},
        {"checker: tokens\ntests:\n  - {name: a, input: tests/1.in, output: tests/1.out, checker: custom}\n",
         "problem.yaml:6: tests.checker: a test's own checker is a built-in one"},
        {"checker: {type: custom, source: check.cpp}\ntests:\n  - {name: a, input: tests/1.in, output: "
         "tests/1.out, checker: float}\n", "problem.yaml:6: tests.checker: the problem's checker is custom"},
        {"tests:\n  - {name: a, input: tests/1.in, output: tests/1.out, checker: {epsilon: 1}}\n",
         "problem.yaml:5: tests.checker.type: missing"},
        {"tests:\n  - {name: a, input: tests/1.in, output: tests/1.out, checker: {type: float, mode: x}}\n",
         "problem.yaml:5: mode: unknown key in a test's checker"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *yaml = NULL;
        cr_assert(asprintf(&yaml, BASE "%s", bad[i].yaml) > 0);
        dir = package(yaml, 1);
        put_file(dir, "check.cpp", "int main() { return 0; }\n");
        int count;
        char *e = check_errors(dir, &count);
        cr_expect(count > 0 && strstr(e, bad[i].want), "%zu: want '%s' in: %s", i, bad[i].want, e);
        free(e);
        free(yaml);
        remove_dir(dir);
        free(dir);
    }
}

/* A custom checker of the Kattis protocol (what an ICPC package's
 * `validation: custom` becomes): protocol and run arguments parsed, bad
 * values named by file, line and key. */
Test(problems, checker_protocol_and_args)
{
    char *dir = package(BASE "checker: {type: custom, source: v.c, protocol: kattis, "
                        "args: [case_sensitive, float_tolerance, '1e-6']}\n", 1);
    put_file(dir, "v.c", "int main(void) { return 42; }\n");
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    int rc = rn_problem_load(dir, NULL, &p, &errs);
    char *e = common_errors_join(&errs);
    cr_assert_eq(rc, 0, "%s", e);
    free(e);
    cr_assert_eq(p->checker, RN_CHECK_CUSTOM);
    cr_assert_str_eq(p->checker_prog.source, "v.c");
    cr_assert_eq(p->checker_prog.protocol, RN_PROTO_KATTIS);
    cr_assert_str_eq(p->checker_prog.args[0], "case_sensitive");
    cr_assert_str_eq(p->checker_prog.args[2], "1e-6");
    cr_assert_null(p->checker_prog.args[3]);
    cr_assert_eq(p->checker_prog.line, 4);
    rn_problem_free(p);
    common_errors_free(&errs);
    int count;
    put_file(dir, "problem.yaml", BASE "checker: {type: custom, source: v.c, protocol: icpc}\n");
    e = check_errors(dir, &count);
    cr_assert_eq(count, 1, "%s", e);
    cr_assert(strstr(e, "problem.yaml:4: checker.protocol: unknown protocol 'icpc' (testlib, kattis, cms)"),
              "%s", e);
    free(e);
    put_file(dir, "problem.yaml", BASE "checker: {type: tokens, protocol: kattis, args: [x]}\n");
    e = check_errors(dir, &count);
    cr_assert_eq(count, 2, "%s", e);
    cr_assert(strstr(e, "problem.yaml:4: checker.protocol: only a custom checker has a protocol"),
              "%s", e);
    cr_assert(strstr(e, "problem.yaml:4: checker.args: only a custom checker takes arguments"),
              "%s", e);
    free(e);
    put_file(dir, "problem.yaml", BASE "checker: {type: custom, source: v.c, args: -x}\n");
    e = check_errors(dir, &count);
    cr_assert(strstr(e, "problem.yaml:4: checker.args: expected a list"), "%s", e);
    free(e);
    put_file(dir, "problem.yaml", BASE "type: interactive\ninteractor: {source: v.c, "
             "protocol: kattis, args: [a, b]}\n");
    cr_assert_eq(rn_problem_load(dir, NULL, &p, &errs), 0);
    cr_assert_str_eq(p->interactor.args[1], "b");
    rn_problem_free(p);
    common_errors_free(&errs);
    remove_dir(dir);
    free(dir);
}

/* ICPC scoring validators (checker.scores) and multi-pass (passes): only
 * with a Kattis checker of a batch problem, named by line and key */
Test(problems, checker_scores_and_passes)
{
    char *dir = package(BASE "checker: {type: custom, source: v.c, protocol: kattis, scores: true}\npasses: 3\n", 1);
    put_file(dir, "v.c", "int main(void) { return 42; }\n");
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    int rc = rn_problem_load(dir, NULL, &p, &errs);
    char *e = common_errors_join(&errs);
    cr_assert_eq(rc, 0, "%s", e);
    free(e);
    cr_assert(p->checker_prog.scores);
    cr_assert_eq(p->passes, 3);
    rn_problem_free(p);
    common_errors_free(&errs);
    static const struct { const char *yaml, *expect; } bad[] = {
        {"checker: {type: custom, source: v.c, scores: true}\n",
         "problem.yaml:4: checker.scores: only a custom checker of protocol kattis writes score.txt"},
        {"checker: {type: custom, source: v.c, protocol: kattis, scores: maybe}\n", "problem.yaml:4: checker.scores: "},
        {"checker: {type: custom, source: v.c}\npasses: 2\n",
         "problem.yaml:5: passes: needs a checker (batch) or an interactor of protocol kattis"},
        {"checker: {type: custom, source: v.c, protocol: kattis}\npasses: 101\n",
         "problem.yaml:5: passes: 101 is more than 100"},
        {"passes: 0\n", "problem.yaml:4: passes: bad integer '0' (expected 1 or more)"},
        {"type: interactive\ninteractor: {source: v.c, scores: true}\n",
         "problem.yaml:5: interactor.scores: only an interactor of protocol kattis writes score.txt"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int count;
        char yaml[512];
        snprintf(yaml, sizeof yaml, BASE "%s", bad[i].yaml);
        put_file(dir, "problem.yaml", "%s", yaml);
        e = check_errors(dir, &count);
        cr_assert_geq(count, 1, "%s", bad[i].yaml);
        cr_assert(strstr(e, bad[i].expect), "%s: %s", bad[i].yaml, e);
        free(e);
    }
    remove_dir(dir);
    free(dir);
}

/* Kattis: 42 AC, 43 WA, anything else the problem's fault (IE), never WA */
Test(checkers, kattis_exit_codes)
{
    struct rn_check r;
    rn_check_from_kattis(42, "  fine\n", "checker", &r);
    cr_assert_eq(r.verdict, RUNNER_AC);
    cr_assert_float_eq(r.fraction, 1, 1e-9);
    cr_assert_str_eq(r.message, "fine");
    rn_check_from_kattis(43, "3 + 4 != 8\n", "checker", &r);
    cr_assert_eq(r.verdict, RUNNER_WA);
    cr_assert_float_eq(r.fraction, 0, 1e-9);
    cr_assert_str_eq(r.message, "3 + 4 != 8");
    int others[] = {0, 1, 2, 3, 7, 41, 44};
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        rn_check_from_kattis(others[i], "assertion failed", "checker", &r);
        cr_assert_eq(r.verdict, RUNNER_IE, "exit %d", others[i]);
        cr_assert(strstr(r.message, "the checker exited") && strstr(r.message, "assertion failed"),
                  "%s", r.message);
    }
}

Test(problems, interactive_grader_and_limits_keys)
{
    char *dir = package(BASE "type: interactive\ninteractor: {source: i.cpp, flags: [-O2], "
                        "protocol: kattis}\nwall_time_limit: 3s\n"
                        "compile_limits: {time: 30s, memory: 2G, output: 1G}\n"
                        "grader: {cpp: [g.cpp, g.h], java: {files: [Main.java], source: "
                        "Solution.java}}\n", 1);
    put_file(dir, "i.cpp", "int main() {}\n");
    put_file(dir, "g.cpp", "\n");
    put_file(dir, "g.h", "\n");
    put_file(dir, "Main.java", "\n");
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    int rc = rn_problem_load(dir, NULL, &p, &errs);
    char *e = common_errors_join(&errs);
    cr_assert_eq(rc, 0, "%s", e);
    free(e);
    cr_assert_eq(p->type, RN_INTERACTIVE);
    cr_assert_str_eq(p->interactor.source, "i.cpp");
    cr_assert_str_eq(p->interactor.flags[0], "-O2");
    cr_assert_eq(p->interactor.protocol, RN_PROTO_KATTIS);
    cr_assert_float_eq(p->wall_time_limit, 3, 1e-9);
    cr_assert_float_eq(p->compile_time, 30, 1e-9);
    cr_assert_eq(p->compile_output, 1ULL << 30);
    cr_assert_eq(p->grader_count, 2);
    cr_assert_str_eq(p->graders[1].lang, "java");
    cr_assert_str_eq(p->graders[1].source, "Solution.java");
    cr_assert_str_eq(p->graders[0].files[1], "g.h");
    rn_problem_free(p);
    common_errors_free(&errs);
    remove_dir(dir);
    free(dir);
    int count;
    dir = package(BASE "interactor: i.cpp\ngrader: {cpp: [missing.cpp]}\nwall_time_limit: 0.5s\n", 1);
    put_file(dir, "i.cpp", "int main() {}\n");
    e = check_errors(dir, &count);
    cr_assert(strstr(e, "problem.yaml:4: interactor: only an interactive problem"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:5: grader.files: 'missing.cpp' does not exist"), "%s", e);
    cr_assert(strstr(e, "wall_time_limit: 0.5s is below time_limit (1s)"), "%s", e);
    free(e);
    remove_dir(dir);
    free(dir);
}

/* A time limit beyond an hour holds a sandbox slot for as long per test: a
 * typo (120m for 120ms) or worse, refused by name (it was accepted, and the CPU
 * rlimit's cast of 1e308 s was undefined) */
Test(problems, time_limits_beyond_an_hour_are_refused)
{
    int count;
    char *dir = package("name: slow\ntime_limit: 120m\nmemory_limit: 256M\nwall_time_limit: 1e308\n", 1);
    char *e = check_errors(dir, &count);
    cr_assert(strstr(e, "time_limit: 7200s is over the largest a problem may have (3600s)"), "%s", e);
    cr_assert(strstr(e, "wall_time_limit: 1e+308s is over the largest a problem may have (3600s)"), "%s", e);
    free(e);
    remove_dir(dir);
    free(dir);
    dir = package("name: slow\ntime_limit: 3600s\nmemory_limit: 256M\n", 1);
    e = check_errors(dir, &count);
    cr_assert_eq(count, 0, "an hour is allowed: %s", e);
    free(e);
    remove_dir(dir);
    free(dir);
}

/* samples: files shown with the statement (ICPC .interaction transcripts),
 * never judged: each must be a file of the package */
Test(problems, samples_are_files_of_the_package)
{
    char *dir = package(BASE "samples: [data/1.interaction]\n", 1);
    put_file(dir, "data/1.interaction", "<1\n>2\n");
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    int rc = rn_problem_load(dir, NULL, &p, &errs);
    char *e = common_errors_join(&errs);
    cr_assert_eq(rc, 0, "%s", e);
    free(e);
    cr_assert_str_eq(p->samples[0], "data/1.interaction");
    cr_assert_eq(p->test_count, 1, "a transcript is not a test");
    rn_problem_free(p);
    common_errors_free(&errs);
    int count;
    put_file(dir, "problem.yaml", BASE "samples: [data/2.interaction, ../x]\n");
    e = check_errors(dir, &count);
    cr_assert_eq(count, 2, "%s", e);
    cr_assert(strstr(e, "problem.yaml:4: samples: 'data/2.interaction' does not exist in the package") &&
              strstr(e, "problem.yaml:4: samples: '../x' must be a path inside the package"), "%s", e);
    free(e);
    remove_dir(dir);
    free(dir);
}

/* What GET /v1/problems shows of a problem (issue 28), from the runner
 * alone: title (else name), type, passes, scoring, limits (wall defaulted
 * as a run takes it), the languages a required grader allows, subtasks. */
Test(problems, summary_for_platforms)
{
    char *dir = package(BASE "title: A plus B\noutput_limit: 1M\n", 3), *j = NULL, err[512];
    cr_assert_eq(runner_problem_summary(NULL, dir, &j, err, sizeof err), 0, "%s", err);
    json_t *o = json_loads(j, 0, NULL);
    cr_assert(o, "%s", j);
    cr_assert_str_eq(json_string_value(json_object_get(o, "title")), "A plus B");
    cr_assert_str_eq(json_string_value(json_object_get(o, "type")), "batch");
    cr_assert_str_eq(json_string_value(json_object_get(o, "scoring")), "pass-fail");
    cr_assert_eq(json_integer_value(json_object_get(o, "passes")), 1);
    cr_assert_float_eq(json_real_value(json_object_get(o, "time_limit")), 1.0, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(o, "wall_time_limit")), 3.0, 1e-9, "2 x 1 s + 1 s");
    cr_assert_eq(json_integer_value(json_object_get(o, "memory_limit")), 256 << 20);
    cr_assert_eq(json_integer_value(json_object_get(o, "output_limit")), 1 << 20);
    cr_assert(json_is_null(json_object_get(o, "languages")), "any language: %s", j);
    cr_assert_eq(json_integer_value(json_object_get(o, "tests")), 3);
    cr_assert_float_eq(json_real_value(json_object_get(o, "max_score")), 100.0, 1e-9);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(o, "subtasks"), 0), "name")),
                     "all");
    json_decref(o);
    free(j);

    /* subtasks score; a grader for cpp alone makes every other language CE;
     * no title: the name */
    put_file(dir, "g.cpp", "int main(){}\n");
    put_file(dir, "problem.yaml", BASE "wall_time_limit: 5s\ngrader: {cpp: [g.cpp]}\nsubtasks:\n"
             "  - {name: s1, points: 30, tests: [1]}\n  - {name: s2, points: 40, tests: [2-3]}\n");
    cr_assert_eq(runner_problem_summary(NULL, dir, &j, err, sizeof err), 0, "%s", err);
    o = json_loads(j, 0, NULL);
    cr_assert_str_eq(json_string_value(json_object_get(o, "title")), "aplusb");
    cr_assert_str_eq(json_string_value(json_object_get(o, "scoring")), "score");
    cr_assert_float_eq(json_real_value(json_object_get(o, "max_score")), 70.0, 1e-9);
    cr_assert_float_eq(json_real_value(json_object_get(o, "wall_time_limit")), 5.0, 1e-9);
    cr_assert_eq(json_array_size(json_object_get(o, "languages")), 1, "%s", j);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(o, "languages"), 0)), "cpp");
    cr_assert_eq(json_array_size(json_object_get(o, "subtasks")), 2);
    json_decref(o);
    free(j);

    /* a package that does not load has no summary: its first error */
    put_file(dir, "problem.yaml", BASE "tim_limit: 1s\n");
    cr_assert_eq(runner_problem_summary(NULL, dir, &j, err, sizeof err), -1);
    cr_assert_null(j);
    cr_assert(strstr(err, "problem.yaml:4: tim_limit: unknown key"), "%s", err);
    remove_dir(dir);
    free(dir);
}
