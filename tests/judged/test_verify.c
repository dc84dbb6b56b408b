/* test_verify.c - `judgectl problem verify` and `push --verify` (issue 22)
 * with packages written here in each layout: ICPC legacy verdict folders,
 * a 2023-07 package with submissions/submissions.yaml, a 2025-09 one
 * with expectations for some test groups only, DOMjudge's
 * @EXPECTED_RESULTS@, an interactive legacy package; a mismatch (exit
 * status and table), a time limit derived by Kattis' rule, push --verify
 * recording it (and refusing on a mismatch), `show --converted [--to DIR]` and its round trip to the same
 * version. Real redis-server, judgectl and runner; sandbox slots 740..745
 * (every judgectl here runs with --slot 740; judged takes 742..745). */
/* the harness is shared with the suites that start judged */
#pragma GCC diagnostic ignored "-Wunused-function"
#include <jansson.h>

#include "harness.h"

#define SLOT "740"

static void setup(void)
{
    t_setup(1);
}

TestSuite(verify, .init = setup, .fini = t_teardown, .timeout = 300);

static const struct t_run_opts quiet = {.err_null = true};
#define CTL(out, ...) t_ctlv(out, sizeof out, &quiet, (const char *const[]){__VA_ARGS__, NULL})

static const char *LANGS = SRC "/languages";

/* T_dir/PKG/REL with the text given */
static void put(const char *pkg, const char *rel, const char *text)
{
    char p[800], dir[900];
    snprintf(p, sizeof p, "%s/%s/%s", T_dir, pkg, rel);
    snprintf(dir, sizeof dir, "mkdir -p \"$(dirname '%s')\"", p);
    cr_assert_eq(system(dir), 0);
    t_write(p, "%s", text);
}

#define AC_SRC "#include <stdio.h>\nint main(void){long a,b;if(scanf(\"%ld %ld\",&a,&b)!=2)return 1;printf(\"%ld\\n\",a+b);return 0;}\n"
#define WA_SRC "#include <stdio.h>\nint main(void){long a,b;if(scanf(\"%ld %ld\",&a,&b)!=2)return 1;printf(\"%ld\\n\",a-b);return 0;}\n"
#define TLE_SRC "#include <stdio.h>\nint main(void){volatile unsigned long x=0;for(;;)x++;}\n"
#define RTE_SRC "#include <stdlib.h>\nint main(void){abort();}\n"

/* A+B tests in ICPC layout (data/sample, data/secret) under T_dir/PKG. */
static void icpc_data(const char *pkg)
{
    put(pkg, "data/sample/1.in", "1 2\n");
    put(pkg, "data/sample/1.ans", "3\n");
    put(pkg, "data/secret/1.in", "5 7\n");
    put(pkg, "data/secret/1.ans", "12\n");
    put(pkg, "data/secret/2.in", "100 -1\n");
    put(pkg, "data/secret/2.ans", "99\n");
}

/* A legacy package: verdict folders, no time limit anywhere. */
static void legacy(const char *pkg)
{
    icpc_data(pkg);
    put(pkg, "problem.yaml", "name: Sum\n");
    put(pkg, "submissions/accepted/ok.c", AC_SRC);
    put(pkg, "submissions/wrong_answer/wa.c", WA_SRC);
    put(pkg, "submissions/time_limit_exceeded/spin.c", TLE_SRC);
    put(pkg, "submissions/run_time_error/crash.c", RTE_SRC);
}

static json_t *parse(const char *out)
{
    json_error_t e;
    json_t *j = json_loads(out, 0, &e);
    cr_assert(j, "not one JSON document (%s): %s", e.text, out);
    return j;
}

/* The row of path in a verify report. */
static json_t *row(json_t *report, const char *path)
{
    json_t *s;
    size_t i;
    json_array_foreach(json_object_get(report, "submissions"), i, s)
        if (!strcmp(json_string_value(json_object_get(s, "path")), path))
            return s;
    cr_assert_fail("no row %s", path);
    return NULL;
}

static char *pkg_path(const char *pkg)
{
    static char p[600];
    snprintf(p, sizeof p, "%s/%s", T_dir, pkg);
    return p;
}

Test(verify, legacy_folders_and_derived_limit)
{
    legacy("sum");
    put("sum", "submissions/accepted/ok.scala", "object Main extends App { println(1) }\n");   /* a language this host has not */
    char out[65536];
    int rc = CTL(out, "problem", "verify", pkg_path("sum"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 2, "no mismatch, one not judged: the status says so: %s", out);
    json_t *j = parse(out);
    cr_assert(json_is_true(json_object_get(j, "ok")), "%s", out);
    cr_assert_eq(json_integer_value(json_object_get(j, "mismatches")), 0);
    cr_assert_eq(json_integer_value(json_object_get(j, "not_judged")), 1, "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(row(j, "submissions/time_limit_exceeded/spin.c"), "verdict")),
                     "TLE");
    cr_assert_str_eq(json_string_value(json_object_get(row(j, "submissions/run_time_error/crash.c"), "verdict")), "RE");
    cr_assert_str_eq(json_string_value(json_object_get(row(j, "submissions/wrong_answer/wa.c"), "verdict")), "WA");
    json_t *rb = row(j, "submissions/accepted/ok.scala");
    cr_assert(json_is_false(json_object_get(rb, "judged")));
    cr_assert(strstr(json_string_value(json_object_get(rb, "why")), "no language"), "%s", out);
    /* legacy rule: max(1, round(slowest x 5)) = 1 s for A+B; TLE ones at max(limit + 1, ...) = 2 s */
    json_t *d = json_object_get(j, "derived");
    cr_assert(json_is_object(d), "%s", out);
    cr_assert_float_eq(json_number_value(json_object_get(d, "time_limit")), 1.0, 1e-9);
    cr_assert_float_eq(json_number_value(json_object_get(d, "tle_limit")), 2.0, 1e-9);
    cr_assert_str_eq(json_string_value(json_object_get(d, "rule")), "legacy");
    cr_assert_float_eq(json_number_value(json_object_get(j, "time_limit")), 1.0, 1e-9);
    /* the conversion's "assumed" warning becomes what was derived */
    json_t *w = json_object_get(j, "warnings");
    cr_assert_eq(json_array_size(w), 1, "%s", out);
    cr_assert(strstr(json_string_value(json_array_get(w, 0)), "derived 1 s from its submissions"), "%s", out);
    json_decref(j);
    /* the table a user reads */
    rc = CTL(out, "problem", "verify", pkg_path("sum"), "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "time limit: 1 s derived (legacy rule"), "%s", out);
    cr_assert(strstr(out, "5 submissions: 4 as expected, 0 mismatches, 1 not judged"), "%s", out);
}

Test(verify, mismatch_exits_1_with_the_table)
{
    legacy("bad");
    put("bad", "submissions/accepted/wrong.c", WA_SRC);   /* claims AC, earns WA */
    char out[65536];
    int rc = CTL(out, "problem", "verify", pkg_path("bad"), "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "submissions/accepted/wrong.c"), "%s", out);
    cr_assert(strstr(out, "MISMATCH: WA not permitted"), "%s", out);
    cr_assert(strstr(out, "1 mismatch,"), "%s", out);
    rc = CTL(out, "problem", "verify", pkg_path("bad"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 1, "%s", out);
    json_t *j = parse(out);
    cr_assert(json_is_false(json_object_get(j, "ok")));
    cr_assert_eq(json_integer_value(json_object_get(j, "mismatches")), 1);
    cr_assert(json_is_false(json_object_get(row(j, "submissions/accepted/wrong.c"), "ok")));
    cr_assert(json_is_true(json_object_get(row(j, "submissions/accepted/ok.c"), "ok")));
    json_decref(j);
}

/* 2023-07: submissions.yaml's globs, a folder of its own, the modern rule */
Test(verify, submissions_yaml_2023_07)
{
    icpc_data("modern");
    put("modern", "problem.yaml", "problem_format_version: 2023-07-draft\nname: Sum\n"
                                  "limits:\n  time_multipliers:\n    ac_to_time_limit: 3\n    time_limit_to_tle: 2\n");
    put("modern", "submissions/accepted/ok.c", AC_SRC);
    put("modern", "submissions/mixed/wa.c", WA_SRC);
    put("modern", "submissions/mixed/spin.c", TLE_SRC);
    put("modern", "submissions/submissions.yaml",
        "mixed/wa.c:\n  permitted: [AC, WA]\n  required: [WA]\n"
        "mixed/{spin,other}.c:\n  permitted: [AC, TLE]\n  required: [TLE]\n  authors: Someone\n"
        "accepted/*.c:\n  model_solution: true\n");
    char out[65536];
    int rc = CTL(out, "problem", "verify", pkg_path("modern"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 0, "%s", out);
    json_t *j = parse(out);
    cr_assert_eq(json_array_size(json_object_get(j, "submissions")), 3, "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(row(j, "submissions/mixed/spin.c"), "verdict")), "TLE");
    json_t *d = json_object_get(j, "derived");
    /* the smallest multiple of 1 s at least slowest x 3; the TLE ones at x 2 */
    cr_assert_str_eq(json_string_value(json_object_get(d, "rule")), "2023-07", "%s", out);
    cr_assert_float_eq(json_number_value(json_object_get(d, "time_limit")), 1.0, 1e-9);
    cr_assert_float_eq(json_number_value(json_object_get(d, "tle_limit")), 2.0, 1e-9);
    json_decref(j);

    /* a program in a folder no rule names, and a bad verdict: each named */
    put("modern", "submissions/other/x.c", AC_SRC);
    put("modern", "submissions/submissions.yaml", "mixed/wa.c:\n  permitted: [AC, XX]\n");
    rc = CTL(out, "problem", "verify", pkg_path("modern"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 65, "%s", out);
    cr_assert(strstr(out, "submissions/submissions.yaml:2: permitted: unknown verdict 'XX'"), "%s", out);
    cr_assert(strstr(out, "submissions/other:0: (folder): 'other' is not a verdict folder"), "%s", out);
}

/* 2025-09: expectations for some test groups only, checked against the
 * verdicts of those groups' tests; the table names the group that failed */
#define HALF_SRC "#include <stdio.h>\nint main(void){long a,b;if(scanf(\"%ld %ld\",&a,&b)!=2)return 1;" \
                 "printf(\"%ld\\n\",a<50?a+b:a-b);return 0;}\n"

Test(verify, submissions_yaml_test_groups)
{
    put("groups", "problem.yaml", "problem_format_version: 2025-09\nname: Sum\n");
    put("groups", "data/sample/1.in", "1 2\n");
    put("groups", "data/sample/1.ans", "3\n");
    put("groups", "data/secret/group1/1.in", "5 7\n");
    put("groups", "data/secret/group1/1.ans", "12\n");
    put("groups", "data/secret/group2/1.in", "100 -1\n");
    put("groups", "data/secret/group2/1.ans", "99\n");
    put("groups", "submissions/accepted/ok.c", AC_SRC);
    put("groups", "submissions/rejected/half.c", HALF_SRC);   /* right on group1, wrong on group2 */
    put("groups", "submissions/submissions.yaml",
        "rejected/half.c:\n  sample:\n    permitted: [AC]\n  secret/group{1,3}:\n    permitted: [AC]\n"
        "  secret/group2:\n    permitted: [AC, WA]\n    required: [WA]\n");
    char out[65536];
    int rc = CTL(out, "problem", "verify", pkg_path("groups"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 0, "every group's expectation met: %s", out);
    json_t *j = parse(out);
    json_t *half = row(j, "submissions/rejected/half.c");
    cr_assert(json_is_true(json_object_get(half, "ok")), "%s", out);
    cr_assert(strstr(json_string_value(json_object_get(half, "expected")), "secret/group2: AC,WA (one WA)"), "%s", out);
    json_decref(j);

    /* one group's expectation not met: exit 1, the table names the group */
    put("groups", "submissions/rejected/wrong.c", WA_SRC);
    put("groups", "submissions/submissions.yaml",
        "rejected/half.c:\n  secret/group2:\n    required: [WA]\n"
        "rejected/wrong.c:\n  sample:\n    permitted: [AC]\n");
    rc = CTL(out, "problem", "verify", pkg_path("groups"), "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "MISMATCH: sample: WA not permitted"), "%s", out);
    cr_assert(strstr(out, "1 mismatch,"), "%s", out);
    rc = CTL(out, "problem", "verify", pkg_path("groups"), "--json", "--slot", SLOT, "--languages", LANGS);
    j = parse(out);
    cr_assert(json_is_true(json_object_get(row(j, "submissions/rejected/half.c"), "ok")), "%s", out);
    cr_assert(json_is_false(json_object_get(row(j, "submissions/rejected/wrong.c"), "ok")), "%s", out);
    json_decref(j);

    /* a group glob naming no test, a group's score: each named with its line */
    put("groups", "submissions/submissions.yaml",
        "rejected/half.c:\n  secret/group9:\n    permitted: [AC]\n  secret/group2:\n    score: 10\n");
    rc = CTL(out, "problem", "verify", pkg_path("groups"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 65, "%s", out);
    cr_assert(strstr(out, "submissions/submissions.yaml:2: secret/group9: unknown key"), "%s", out);
    cr_assert(strstr(out, "nor a test group or test case of data/"), "%s", out);
    cr_assert(strstr(out, "submissions/submissions.yaml:5: score: a test group's score is not checked"), "%s", out);
}

/* DOMjudge: the final verdict one of @EXPECTED_RESULTS@, the ini's limit kept */
Test(verify, domjudge_expected_results)
{
    icpc_data("dj");
    put("dj", "domjudge-problem.ini", "name = 'Sum'\ntimelimit = 2\n");
    put("dj", "submissions/accepted/ok.c", "/* @EXPECTED_RESULTS@: CORRECT */\n" AC_SRC);
    put("dj", "submissions/accepted/either.c", "// @EXPECTED_RESULTS@: WRONG-ANSWER,TIMELIMIT\n" WA_SRC);
    put("dj", "submissions/extra/nocompile.c", "/* @EXPECTED_RESULTS@: COMPILER-ERROR */\nint main(void) { syntax error }\n");
    char out[65536];
    int rc = CTL(out, "problem", "verify", pkg_path("dj"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 0, "%s", out);
    json_t *j = parse(out);
    cr_assert(json_is_null(json_object_get(j, "derived")), "the package gives a limit: %s", out);
    cr_assert_float_eq(json_number_value(json_object_get(j, "time_limit")), 2.0, 1e-9);
    cr_assert_str_eq(json_string_value(json_object_get(row(j, "submissions/accepted/either.c"), "expected")),
                     "WRONG-ANSWER,TIMELIMIT");
    cr_assert_str_eq(json_string_value(json_object_get(row(j, "submissions/extra/nocompile.c"), "verdict")), "CE");
    json_decref(j);
    put("dj", "submissions/accepted/ok.c", "/* @EXPECTED_RESULTS@: CORRECT, SLOW */\n" AC_SRC);
    rc = CTL(out, "problem", "verify", pkg_path("dj"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 65, "%s", out);
    cr_assert(strstr(out, "submissions/accepted/ok.c:1: @EXPECTED_RESULTS@: unknown result 'SLOW'"), "%s", out);
}

/* issue 39: `.pl` is Perl here (and on DOMjudge) but Prolog to problemtools,
 * the ICPC format's own tool: an ICPC package's submissions/accepted/x.pl
 * is judged as Prolog, a DOMjudge package's (domjudge-problem.ini) as Perl,
 * and its `.plg` (DOMjudge's Prolog) as Prolog. */
Test(verify, a_pl_submission_is_prolog_in_icpc_packages_and_perl_in_domjudges)
{
    static const char prolog[] = "main :- read_line_to_string(user_input, L), split_string(L, \" \", \" \", [A, B]),\n"
                                 "    number_string(X, A), number_string(Y, B), Z is X + Y, writeln(Z).\n";
    static const char perl[] = "my ($a, $b) = split ' ', <STDIN>;\nprint $a + $b, \"\\n\";\n";
    icpc_data("kattis");
    put("kattis", "problem.yaml", "name: Sum\nlimits: {time_limit: 2}\n");
    put("kattis", "submissions/accepted/sum.pl", prolog);
    char out[65536];
    int rc = CTL(out, "problem", "verify", pkg_path("kattis"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 0, "%s", out);
    json_t *j = parse(out), *r = row(j, "submissions/accepted/sum.pl");
    cr_assert_str_eq(json_string_value(json_object_get(r, "language")), "prolog", "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(r, "verdict")), "AC", "%s", out);
    json_decref(j);
    icpc_data("djpl");
    put("djpl", "domjudge-problem.ini", "name = 'Sum'\ntimelimit = 2\n");
    put("djpl", "submissions/accepted/sum.pl", perl);
    put("djpl", "submissions/accepted/sum.plg", prolog);   /* DOMjudge's Prolog */
    rc = CTL(out, "problem", "verify", pkg_path("djpl"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 0, "%s", out);
    j = parse(out), r = row(j, "submissions/accepted/sum.pl");
    cr_assert_str_eq(json_string_value(json_object_get(r, "language")), "perl", "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(r, "verdict")), "AC", "%s", out);
    r = row(j, "submissions/accepted/sum.plg");
    cr_assert_str_eq(json_string_value(json_object_get(r, "language")), "prolog", "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(r, "verdict")), "AC", "%s", out);
    json_decref(j);
}

static void config(char *cfg, size_t len)
{
    t_config("verify", 742, NULL, POOLS_DEFAULT, cfg, len);
}

/* The version of a push --json answer. */
static void version_of(const char *out, char ver[65])
{
    json_t *j = parse(out);
    snprintf(ver, 65, "%s", json_string_value(json_object_get(j, "version")) ?: "");
    json_decref(j);
}

Test(verify, push_verify_records_the_derived_limit)
{
    char cfg[400], out[65536], ver[65];
    config(cfg, sizeof cfg);
    legacy("sum");
    /* a mismatch: nothing pushed */
    put("sum", "submissions/accepted/wrong.c", WA_SRC);
    int rc = t_ctl(out, sizeof out, cfg, "problem", "push", pkg_path("sum"), "--verify", "--json", "--slot", SLOT,
                   NULL);
    cr_assert_eq(rc, 65, "%s", out);
    cr_assert(strstr(out, "not pushed"), "%s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "list", "--json", NULL), 0);
    cr_assert_str_eq(out, "[]\n", "nothing stored: %s", out);

    char p[600];
    snprintf(p, sizeof p, "%s/sum/submissions/accepted/wrong.c", T_dir);
    unlink(p);
    rc = t_ctl(out, sizeof out, cfg, "problem", "push", pkg_path("sum"), "--verify", "--json", "--slot", SLOT, NULL);
    cr_assert_eq(rc, 0, "%s", out);
    version_of(out, ver);
    cr_assert(strstr(out, "derived 1 s from its submissions (legacy rule"), "the warning says so: %s", out);
    cr_assert(!strstr(out, "assumed"), "%s", out);
    /* what was stored: the derived limit */
    rc = t_ctl(out, sizeof out, cfg, "problem", "show", "sum", "--converted", NULL);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "time_limit: 1.000s\n"), "%s", out);
    /* an archive of it the same: converted, verified, the limit derived */
    snprintf(p, sizeof p, "cd %s && tar czf sum.tgz sum", T_dir);
    cr_assert_eq(system(p), 0);
    snprintf(p, sizeof p, "%s/sum.tgz", T_dir);
    rc = t_ctl(out, sizeof out, cfg, "problem", "push", p, "--verify", "--name", "sum2", "--json", "--slot", SLOT,
               NULL);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "derived 1 s from its submissions"), "%s", out);
    /* and verify NAME judges that stored version */
    rc = t_ctl(out, sizeof out, cfg, "problem", "verify", "sum", "--json", "--slot", SLOT, NULL);
    cr_assert_eq(rc, 0, "%s", out);
    json_t *j = parse(out);
    cr_assert_float_eq(json_number_value(json_object_get(j, "time_limit")), 1.0, 1e-9);
    cr_assert_eq(json_array_size(json_object_get(j, "submissions")), 4, "%s", out);
    json_decref(j);
    rc = t_ctl(out, sizeof out, cfg, "problem", "verify", "sum", "--version", "0000", "--slot", SLOT, NULL);
    cr_assert_eq(rc, 66, "%s", out);
}

Test(verify, show_converted_round_trip)
{
    char cfg[400], out[65536], first[65], second[65], to[600];
    config(cfg, sizeof cfg);
    legacy("sum");
    put("sum", ".timelimit", "2\n");
    int rc = t_ctl(out, sizeof out, cfg, "problem", "push", pkg_path("sum"), "--json", "--slot", SLOT, NULL);
    cr_assert_eq(rc, 0, "%s", out);
    version_of(out, first);
    snprintf(to, sizeof to, "%s/back", T_dir);
    rc = t_ctl(out, sizeof out, cfg, "problem", "show", "sum", "--converted", "--to", to, "--version", first, NULL);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "# converted from the ICPC"), "%s", out);
    cr_assert(strstr(out, "time_limit: 2.000s"), "%s", out);
    rc = t_ctl(out, sizeof out, cfg, "problem", "push", to, "--name", "sum", "--json", "--slot", SLOT, NULL);
    cr_assert_eq(rc, 0, "%s", out);
    version_of(out, second);
    cr_assert_str_eq(first, second, "the round trip changed the package: %s", out);
    cr_assert(strstr(out, "\"result\":\"unchanged\""), "%s", out);
    /* a directory that exists is not written into */
    rc = t_ctl(out, sizeof out, cfg, "problem", "show", "sum", "--converted", "--to", to, "--json", NULL);
    cr_assert_eq(rc, 65, "%s", out);
}

/* An interactive legacy package (validation: custom interactive): the
 * validator runs as interactor (Kattis protocol), and verify judges the
 * package's own submissions through it. */
Test(verify, interactive_legacy_package)
{
    put("inter", "problem.yaml", "name: Double\nvalidation: custom interactive\n");
    put("inter", ".timelimit", "2\n");
    put("inter", "data/secret/1.in", "21\n");
    put("inter", "data/secret/1.ans", "42\n");
    put("inter", "output_validators/double/validator.c",
        "#include <stdio.h>\nint main(int argc, char **argv){FILE *in = argc > 1 ? fopen(argv[1], \"r\") : NULL;\n"
        "long n, got; if (!in || fscanf(in, \"%ld\", &n) != 1) return 1;\n"
        "printf(\"%ld\\n\", n); fflush(stdout);\n"
        "if (scanf(\"%ld\", &got) != 1) return 43; return got == 2 * n ? 42 : 43;}\n");
    put("inter", "submissions/accepted/double.c",
        "#include <stdio.h>\nint main(void){long n; if (scanf(\"%ld\", &n) != 1) return 1;"
        "printf(\"%ld\\n\", 2 * n); return 0;}\n");
    put("inter", "submissions/wrong_answer/off.c",
        "#include <stdio.h>\nint main(void){long n; if (scanf(\"%ld\", &n) != 1) return 1;"
        "printf(\"%ld\\n\", 2 * n + 1); return 0;}\n");
    char out[65536];
    int rc = CTL(out, "problem", "verify", pkg_path("inter"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 0, "%s", out);
    json_t *j = parse(out);
    cr_assert_str_eq(json_string_value(json_object_get(row(j, "submissions/accepted/double.c"), "verdict")), "AC",
                     "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(row(j, "submissions/wrong_answer/off.c"), "verdict")), "WA",
                     "%s", out);
    json_decref(j);
}

/* Expectations in the ICPC verdict set (AC, WA, TLE, RTE): a seccomp kill
 * (SV) and an output past the format's default limit, 8 MiB (OLE), are
 * run-time errors there; a program filling stdout forever runs on past the
 * cut and is TLE, as DOMjudge and BAPCtools judge it */
Test(verify, sv_and_ole_count_as_rte_and_a_stdout_filler_as_tle)
{
    icpc_data("lim");
    put("lim", "problem.yaml", "name: Sum\n");
    put("lim", ".timelimit", "1\n");
    put("lim", "submissions/accepted/ok.c", AC_SRC);
    put("lim", "submissions/run_time_error/sv.c", "#include <unistd.h>\n#include <sys/syscall.h>\n"
        "int main(void){ char b[16]; syscall(SYS_modify_ldt, 0, b, sizeof b); return 0; }\n");
    put("lim", "submissions/run_time_error/blanks.c", "#include <stdio.h>\n#include <string.h>\n"
        "int main(void){ static char b[1 << 20]; long x, y; if (scanf(\"%ld %ld\", &x, &y) != 2) return 1;"
        " printf(\"%ld\\n\", x + y); memset(b, ' ', sizeof b);"
        " for (int i = 0; i < 10; i++) fwrite(b, 1, sizeof b, stdout); return 0; }\n");
    put("lim", "submissions/time_limit_exceeded/filler.c",
        "#include <stdio.h>\nint main(void){ for (;;) fputs(\"3 3 3 3 3 3 3\\n\", stdout); }\n");
    char out[65536];
    int rc = CTL(out, "problem", "verify", pkg_path("lim"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 0, "%s", out);
    json_t *j = parse(out);
    cr_assert_str_eq(json_string_value(json_object_get(row(j, "submissions/run_time_error/sv.c"), "verdict")), "SV");
    cr_assert_str_eq(json_string_value(json_object_get(row(j, "submissions/run_time_error/blanks.c"), "verdict")),
                     "OLE", "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(row(j, "submissions/time_limit_exceeded/filler.c"),
                                                       "verdict")), "TLE", "%s", out);
    cr_assert_eq(json_integer_value(json_object_get(j, "mismatches")), 0, "%s", out);
    json_decref(j);
}

/* issue 39: a submission directory (submissions/accepted/NAME/ of several
 * files) verifies as one submission: a Java package, Python modules, C
 * with a header; a directory holding sources of two languages is not
 * judged, saying why */
Test(verify, a_submission_directory_is_one_submission_of_several_files)
{
    icpc_data("multi");
    put("multi", "problem.yaml", "name: Sum\n");
    put("multi", ".timelimit", "5\n");
    put("multi", "submissions/accepted/java/contest/Adder.java",
        "package contest;\npublic class Adder { public static long add(long a, long b) { return a + b; } }\n");
    put("multi", "submissions/accepted/java/contest/Solver.java",
        "package contest;\nimport java.util.Scanner;\npublic class Solver {\n"
        "    public static void main(String[] args) { Scanner s = new Scanner(System.in);\n"
        "        System.out.println(Adder.add(s.nextLong(), s.nextLong())); }\n}\n");
    put("multi", "submissions/accepted/py/__main__.py", "from arith import add\nprint(add(*map(int, input().split())))\n");
    put("multi", "submissions/accepted/py/arith.py", "def add(a, b):\n    return a + b\n");
    put("multi", "submissions/accepted/c/main.c",
        "#include <stdio.h>\n#include \"sum.h\"\nint main(void){long a,b;if(scanf(\"%ld %ld\",&a,&b)!=2)return 1;"
        "printf(\"%ld\\n\",sum(a,b));return 0;}\n");
    put("multi", "submissions/accepted/c/sum.h", "static long sum(long a, long b) { return a + b; }\n");
    put("multi", "submissions/accepted/c/README.txt", "the header holds the sum\n");
    put("multi", "submissions/wrong_answer/c/main.c", WA_SRC);
    put("multi", "submissions/wrong_answer/mixed/a.c", WA_SRC);
    put("multi", "submissions/wrong_answer/mixed/b.py", "print(0)\n");
    char out[65536];
    int rc = CTL(out, "problem", "verify", pkg_path("multi"), "--json", "--slot", SLOT, "--languages", LANGS);
    cr_assert_eq(rc, 2, "no mismatch, the mixed directory not judged: %s", out);
    json_t *j = parse(out);
    cr_assert_eq(json_integer_value(json_object_get(j, "mismatches")), 0, "%s", out);
    const char *ac[] = {"submissions/accepted/java", "submissions/accepted/py", "submissions/accepted/c"};
    const char *langs[] = {"java", "python3", "c"};
    for (int i = 0; i < 3; i++) {
        json_t *r = row(j, ac[i]);
        cr_expect(json_is_true(json_object_get(r, "judged")), "%s: %s", ac[i], out);
        cr_expect_str_eq(json_string_value(json_object_get(r, "verdict")), "AC", "%s: %s", ac[i], out);
        cr_expect_str_eq(json_string_value(json_object_get(r, "language")), langs[i], "%s: %s", ac[i], out);
    }
    cr_expect_str_eq(json_string_value(json_object_get(row(j, "submissions/wrong_answer/c"), "verdict")), "WA", "%s",
                     out);
    json_t *mixed = row(j, "submissions/wrong_answer/mixed");
    cr_expect(json_is_false(json_object_get(mixed, "judged")), "%s", out);
    cr_expect(strstr(json_string_value(json_object_get(mixed, "why")), "sources of two languages (.c and .py)"),
              "%s", out);
    json_decref(j);
}
