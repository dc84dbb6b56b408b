/*
 * test_icpc_judge.c - ICPC packages converted as push converts them
 * (store_convert) and judged by the real runner, compilers and sandbox:
 * a scoring problem's groups scored as subtasks (legacy testdata.yaml and
 * 2025-09 test_group.yaml), score validators, multi-pass, groups calling the
 * output validator with their own arguments; submit-answer problems judged
 * from answer files (issue 39). Needs root.
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "../runner/helpers.h"
#include "fileset.h"
#include "runner.h"
#include "store.h"

#define SRC JUDGED_SOURCE_DIR
/* Slots 750..769: five groups of four, held per test process. */
#define FIRST_SLOT test_slot_group(750, 5, 4)
#define WORK_DIR BIN_DIR "/../icpc-judge-work"   /* one per build tree */

struct judged {
    enum runner_verdict verdict;
    double score;
    char *json;
};

static struct judged judge_in(const char *problem, const char *lang, const char *source)
{
    struct runner_config cfg = {.languages_dir = SRC "/languages", .work_dir = WORK_DIR,
                                .first_slot = FIRST_SLOT, .slots = 1};
    struct runner *r = NULL;
    char err[4096];
    cr_assert_eq(runner_open(&r, &cfg, err, sizeof err), 0, "runner_open: %s", err);
    struct runner_request req = {.problem_dir = problem, .language = lang, .source = source,
                                 .source_len = strlen(source)};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), 0, "%s", err);
    struct judged j = {runner_report_verdict(rep), runner_report_score(rep), runner_report_json(rep)};
    runner_report_free(rep);
    runner_close(r);
    return j;
}

static struct judged judge(const char *problem, const char *source)
{
    return judge_in(problem, "c", source);
}

static void expect(const char *problem, const char *source, enum runner_verdict v, double score,
                   const char *what)
{
    struct judged j = judge(problem, source);
    cr_expect_eq(j.verdict, v, "%s: %s", what, j.json);
    cr_expect(j.score > score - 1e-6 && j.score < score + 1e-6, "%s: score %g, expected %g: %s", what, j.score,
              score, j.json);
    free(j.json);
}

static void convert(const char *dir)
{
    char *errors = NULL;
    int n = store_convert(dir, "p", &errors);
    cr_assert_eq(n, 0, "%s", errors ? errors : "");
    free(errors);
}

/* A+B in three groups: small numbers, larger ones, sums past 32 bits */
static void aplusb_groups(const char *dir)
{
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "data/sample/1.in", "1 1\n");
    put_file(dir, "data/sample/1.ans", "2\n");
    put_file(dir, "data/secret/g1/1.in", "1 2\n");
    put_file(dir, "data/secret/g1/1.ans", "3\n");
    put_file(dir, "data/secret/g1/2.in", "3 4\n");
    put_file(dir, "data/secret/g1/2.ans", "7\n");
    put_file(dir, "data/secret/g2/1.in", "100000 200000\n");
    put_file(dir, "data/secret/g2/1.ans", "300000\n");
    put_file(dir, "data/secret/g3/1.in", "2000000000 2000000000\n");
    put_file(dir, "data/secret/g3/1.ans", "4000000000\n");
}

static const char *full = "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%lld %lld\",&a,&b);"
                          "printf(\"%lld\\n\",a+b);return 0;}\n";
static const char *int32 = "#include <stdio.h>\nint main(void){int a,b;scanf(\"%d %d\",&a,&b);"
                           "printf(\"%d\\n\",(int)((unsigned)a+(unsigned)b));return 0;}\n";
static const char *small = "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%lld %lld\",&a,&b);"
                           "printf(\"%lld\\n\",a<1000?a+b:0);return 0;}\n";

/* legacy: testdata.yaml per group, min within a group, the groups summed;
 * a partially accepted solution scores the groups it passes */
Test(icpc_judge, a_legacy_scoring_problem_scores_the_groups_passed)
{
    char *dir = scratch_dir("icpc-legacy");
    aplusb_groups(dir);
    put_file(dir, "problem.yaml", "name: A plus B\ntype: scoring\n");
    put_file(dir, "data/testdata.yaml", "on_reject: continue\nrange: 0 100\ngrader_flags: ignore_sample\n");
    put_file(dir, "data/secret/g1/testdata.yaml", "on_reject: break\ngrader_flags: min\naccept_score: 20\n");
    put_file(dir, "data/secret/g2/testdata.yaml", "on_reject: break\ngrader_flags: min\naccept_score: 30\n");
    put_file(dir, "data/secret/g3/testdata.yaml", "on_reject: break\ngrader_flags: min\naccept_score: 50\n");
    convert(dir);
    expect(dir, full, RUNNER_AC, 100, "long long");
    expect(dir, int32, RUNNER_WA, 50, "32-bit sums: g1 and g2");
    expect(dir, small, RUNNER_WA, 20, "small numbers only: g1");
    remove_dir(dir);
    free(dir);
}

/* problem verify's check of submissions/partially_accepted/ (the format:
 * the verdict AC, the score not the most), read from the package and held
 * against the runner's reports: the 32-bit solution passes, the full one
 * does not (it scores the most) */
static void verify_partially_accepted(const char *dir)
{
    put_file(dir, "submissions/partially_accepted/int32.c", "%s", int32);
    put_file(dir, "submissions/partially_accepted/full.c", "%s", full);
    struct store_expected *xs;
    size_t n;
    char *errors, why[256];
    cr_assert_eq(store_expected_results(dir, &xs, &n, &errors), 0, "%s", errors);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(xs[1].path, "submissions/partially_accepted/int32.c");
    const char *sources[] = {full, int32};
    for (size_t i = 0; i < 2; i++) {
        struct judged j = judge(dir, sources[i]);
        struct store_verify_outcome o = {0};
        store_verify_read_report(j.json, &o);
        bool met = store_expected_met(&xs[i], &o.seen, why, sizeof why);
        cr_expect_eq(met, i == 1, "%s: %s (%s)", xs[i].path, why, j.json);
        if (i == 0)
            cr_expect_str_eq(why, "score 115, the most the problem gives (partially accepted scores less)");
        store_verify_outcome_free(&o);
        free(j.json);
    }
    store_expected_free(xs, n);
}

/* A legacy scoring package as an olympiad writes it (from the format's
 * "Default Grader Specification" and testdata.yaml keys): data/ sums
 * with ignore_sample and accept_if_any_accepted (secret/ inherits the file
 * whole), each group with its own flags. Converted as graded groups, it
 * scores what Kattis' default grader gives. */
Test(icpc_judge, a_legacy_package_with_every_grader_flag_scores_as_kattis_grades)
{
    char *dir = scratch_dir("icpc-grader");
    aplusb_groups(dir);
    put_file(dir, "problem.yaml", "name: A plus B\ntype: scoring\n");
    put_file(dir, "data/secret/g4/1.in", "5 6\n");
    put_file(dir, "data/secret/g4/1.ans", "11\n");
    put_file(dir, "data/secret/g4/2.in", "2000000000 2000000000\n");
    put_file(dir, "data/secret/g4/2.ans", "4000000000\n");
    put_file(dir, "data/secret/g5/1.in", "7 8\n");
    put_file(dir, "data/secret/g5/1.ans", "15\n");
    put_file(dir, "data/secret/g5/2.in", "2000000000 2000000000\n");
    put_file(dir, "data/secret/g5/2.ans", "4000000000\n");
    put_file(dir, "data/testdata.yaml", "on_reject: continue\ngrader_flags: sum ignore_sample accept_if_any_accepted\n");
    put_file(dir, "data/secret/g1/testdata.yaml", "grader_flags: min\naccept_score: 20\n");
    put_file(dir, "data/secret/g2/testdata.yaml", "grader_flags: min always_accept\naccept_score: 30\n");
    put_file(dir, "data/secret/g3/testdata.yaml", "grader_flags: min\naccept_score: 50\nreject_score: -10\n");
    put_file(dir, "data/secret/g4/testdata.yaml",
             "on_reject: continue\ngrader_flags: avg first_error\naccept_score: 10\nrange: 0 8\n");
    put_file(dir, "data/secret/g5/testdata.yaml", "on_reject: continue\ngrader_flags: max worst_error\naccept_score: 7\n");
    convert(dir);
    /* 20 + 30 + 50 + avg(10, 10) clamped to 8 + max(7, 7); the sample's 1 ignored */
    expect(dir, full, RUNNER_AC, 115, "long long");
    /* g3 rejected: -10; g4 avg(10, 0) = 5; g5 max(7, 0) = 7; accepted as some group is */
    expect(dir, int32, RUNNER_AC, 20 + 30 - 10 + 5 + 7, "32-bit sums");
    /* g2 fails yet always_accept: 0, accepted */
    expect(dir, small, RUNNER_AC, 20 + 0 - 10 + 5 + 7, "small numbers only");
    verify_partially_accepted(dir);
    remove_dir(dir);
    free(dir);
}

/* 2025-09: test_group.yaml with max_score; require_pass makes g3 score
 * only after g2 passed */
Test(icpc_judge, a_2025_09_scoring_problem_scores_its_test_groups)
{
    char *dir = scratch_dir("icpc-2025");
    aplusb_groups(dir);
    put_file(dir, "problem.yaml", "problem_format_version: 2025-09\nname: A plus B\ntype: scoring\n");
    put_file(dir, "data/secret/g1/test_group.yaml", "max_score: 20\n");
    put_file(dir, "data/secret/g2/test_group.yaml", "max_score: 30\n");
    put_file(dir, "data/secret/g3/test_group.yaml", "max_score: 50\nrequire_pass: secret/g2\n");
    convert(dir);
    expect(dir, full, RUNNER_AC, 100, "long long");
    expect(dir, int32, RUNNER_WA, 50, "32-bit sums: g1 and g2");
    expect(dir, small, RUNNER_WA, 20, "small numbers only: g1 (g3 not run: it requires g2)");
    remove_dir(dir);
    free(dir);
}

/* 2025-09: secret takes the minimum of its groups, g1 sums its two tests
 * (50 each of its 100): graded groups, since one subtask per group cannot
 * take a minimum over a sum */
Test(icpc_judge, a_2025_09_minimum_over_a_sum_group_scores_as_the_spec_says)
{
    char *dir = scratch_dir("icpc-2025-min");
    aplusb_groups(dir);
    put_file(dir, "problem.yaml", "problem_format_version: 2025-09\nname: A plus B\ntype: scoring\n");
    put_file(dir, "data/secret/test_group.yaml", "score_aggregation: min\n");
    put_file(dir, "data/secret/g1/test_group.yaml", "max_score: 100\nscore_aggregation: sum\n");
    put_file(dir, "data/secret/g2/test_group.yaml", "max_score: 100\n");
    put_file(dir, "data/secret/g3/test_group.yaml", "max_score: 100\n");
    convert(dir);
    const char *not_3 = "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%lld %lld\",&a,&b);"
                        "printf(\"%lld\\n\",a==3?0:a+b);return 0;}\n";
    expect(dir, full, RUNNER_AC, 100, "long long");
    expect(dir, not_3, RUNNER_WA, 50, "half of g1, all of g2 and g3: min(50, 100, 100)");
    expect(dir, int32, RUNNER_WA, 0, "g3 failed: min(100, 100, 0)");
    remove_dir(dir);
    free(dir);
}

/* An output validator that gives half the test's worth for half the
 * answer: score_multiplier.txt, or with the argument "points" score.txt
 * holding the points (legacy: the test's score). */
static const char *halves =
    "#include <stdio.h>\n#include <string.h>\n"
    "int main(int argc, char **argv) {\n"
    "  long long want, got; FILE *a = fopen(argv[2], \"r\");\n"
    "  if (!a || fscanf(a, \"%lld\", &want) != 1 || scanf(\"%lld\", &got) != 1) return 43;\n"
    "  if (got == want) return 42;\n"
    "  if (got * 2 != want) return 43;\n"
    "  char p[4096]; int points = argc > 4 && !strcmp(argv[4], \"points\");\n"
    "  snprintf(p, sizeof p, \"%s%s\", argv[3], points ? \"score.txt\" : \"score_multiplier.txt\");\n"
    "  FILE *f = fopen(p, \"w\"); if (!f) return 1;\n"
    "  fprintf(f, points ? \"5\\n\" : \"0.5\\n\"); fclose(f); return 42;\n}\n";

/* the second test's answer halved: half of its worth */
static const char *half_on_2 = "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%lld %lld\",&a,&b);"
                               "printf(\"%lld\\n\",a==3?(a+b)/2:a+b);return 0;}\n";

/* 2023-07: a custom output_validator/ in a scoring problem writes
 * score_multiplier.txt; a sum group of two tests worth 50 each */
Test(icpc_judge, a_score_validator_scores_part_of_a_test)
{
    char *dir = scratch_dir("icpc-score");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: Halves\ntype: scoring\n");
    put_file(dir, "output_validator/halves.c", "%s", halves);
    put_file(dir, "data/secret/g/test_group.yaml", "scoring: {score: 100, aggregation: sum}\n");
    put_file(dir, "data/secret/g/1.in", "1 3\n");
    put_file(dir, "data/secret/g/1.ans", "4\n");
    put_file(dir, "data/secret/g/2.in", "3 5\n");
    put_file(dir, "data/secret/g/2.ans", "8\n");
    convert(dir);
    expect(dir, full, RUNNER_AC, 100, "both answers");
    expect(dir, half_on_2, RUNNER_WA, 75, "half the second answer: 50 + 25");
    remove_dir(dir);
    free(dir);

    /* legacy validation: custom score: score.txt holds the test's points */
    dir = scratch_dir("icpc-score-legacy");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "name: Halves\ntype: scoring\nvalidation: custom score\n"
             "validator_flags: points\n");
    put_file(dir, "output_validators/halves/halves.c", "%s", halves);
    put_file(dir, "data/testdata.yaml", "on_reject: continue\naccept_score: 10\n");
    put_file(dir, "data/secret/1.in", "1 3\n");
    put_file(dir, "data/secret/1.ans", "4\n");
    put_file(dir, "data/secret/2.in", "3 5\n");
    put_file(dir, "data/secret/2.ans", "8\n");
    convert(dir);
    expect(dir, full, RUNNER_AC, 20, "both answers: 10 + 10");
    expect(dir, half_on_2, RUNNER_WA, 15, "score.txt 5 for the second: 10 + 5");
    remove_dir(dir);
    free(dir);
}

/* Multi-pass: pass 1 must print 2N; the validator then gives 2N as the
 * next input (nextpass.in) and remembers the pass in its feedback dir;
 * pass 2 must print 4N. */
static const char *doubling =
    "#include <stdio.h>\n"
    "int main(int argc, char **argv) {\n"
    "  char p[4096]; long long n, got; FILE *in = fopen(argv[1], \"r\");\n"
    "  if (!in || fscanf(in, \"%lld\", &n) != 1 || scanf(\"%lld\", &got) != 1) return 43;\n"
    "  snprintf(p, sizeof p, \"%sstate\", argv[3]); FILE *st = fopen(p, \"r\");\n"
    "  if (st) return got == 4 * n ? 42 : 43;\n"
    "  if (got != 2 * n) return 43;\n"
    "  st = fopen(p, \"w\"); if (!st) return 1; fputs(\"1\", st); fclose(st);\n"
    "  snprintf(p, sizeof p, \"%snextpass.in\", argv[3]); FILE *f = fopen(p, \"w\");\n"
    "  if (!f) return 1; fprintf(f, \"%lld\\n\", got); fclose(f); return 42;\n}\n";

Test(icpc_judge, a_multi_pass_problem_runs_the_submission_again_on_nextpass_in)
{
    char *dir = scratch_dir("icpc-multipass");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: Twice\ntype: multi-pass\n");
    put_file(dir, "output_validator/doubling.c", "%s", doubling);
    put_file(dir, "data/secret/1.in", "7\n");
    put_file(dir, "data/secret/1.ans", "\n");
    convert(dir);
    const char *twice = "#include <stdio.h>\nint main(void){long long n;scanf(\"%lld\",&n);"
                        "printf(\"%lld\\n\",2*n);return 0;}\n";
    const char *once = "#include <stdio.h>\nint main(void){long long n;scanf(\"%lld\",&n);"
                       "printf(\"%lld\\n\",n<10?2*n:0);return 0;}\n";
    expect(dir, twice, RUNNER_AC, 100, "doubles on both passes");
    expect(dir, once, RUNNER_WA, 0, "doubles only the first input: pass 2 fails");
    remove_dir(dir);
    free(dir);
}

/* include/c/ (2023-07+): added to every C submission at compile time; a
 * language without its own include/ compiles alone */
Test(icpc_judge, include_files_are_compiled_with_a_submission_of_their_language)
{
    char *dir = scratch_dir("icpc-include");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: Add\n");
    put_file(dir, "include/c/add.h", "long long add(long long a, long long b);\n");
    put_file(dir, "include/c/add.c", "#include \"add.h\"\nlong long add(long long a, long long b) { return a + b; }\n");
    put_file(dir, "data/secret/1.in", "3 4\n");
    put_file(dir, "data/secret/1.ans", "7\n");
    convert(dir);
    expect(dir, "#include <stdio.h>\n#include \"add.h\"\nint main(void){long long a,b;scanf(\"%lld %lld\",&a,&b);"
           "printf(\"%lld\\n\",add(a,b));return 0;}\n", RUNNER_AC, 100, "calls add() of include/c/");
    struct judged j = judge_in(dir, "python3", "a, b = map(int, input().split())\nprint(a + b)\n");
    cr_expect_eq(j.verdict, RUNNER_AC, "python3 has no include/: %s", j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);
}

/* include/java/ holding a package directory: its files keep their paths
 * (util/Adder.java), and javac finds the class the submission imports */
Test(icpc_judge, an_include_directory_with_a_java_package_keeps_its_paths)
{
    char *dir = scratch_dir("icpc-include-java");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "name: Add\n");
    put_file(dir, "include/java/util/Adder.java",
             "package util;\npublic class Adder { public static long add(long a, long b) { return a + b; } }\n");
    put_file(dir, "data/secret/1.in", "3 4\n");
    put_file(dir, "data/secret/1.ans", "7\n");
    convert(dir);
    struct judged j = judge_in(dir, "java", "import java.util.Scanner;\nimport util.Adder;\npublic class Main {\n"
                               " public static void main(String[] a) { Scanner s = new Scanner(System.in);\n"
                               "  System.out.println(Adder.add(s.nextLong(), s.nextLong())); } }\n");
    cr_expect_eq(j.verdict, RUNNER_AC, "calls util.Adder of include/java/: %s", j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);
}

/* An interactive scoring problem (2023-07: type scoring interactive): the
 * interactor gives N and wants 2N; N itself earns half the test's worth
 * (score_multiplier.txt in its feedback dir) */
static const char *half_interactor =
    "#include <stdio.h>\n"
    "int main(int argc, char **argv) {\n"
    "  long long n, got; FILE *in = fopen(argv[1], \"r\"); char p[4096];\n"
    "  if (!in || fscanf(in, \"%lld\", &n) != 1) return 1;\n"
    "  printf(\"%lld\\n\", n); fflush(stdout);\n"
    "  if (scanf(\"%lld\", &got) != 1) return 43;\n"
    "  if (got == 2 * n) return 42;\n"
    "  if (got != n) return 43;\n"
    "  snprintf(p, sizeof p, \"%sscore_multiplier.txt\", argv[3]); FILE *f = fopen(p, \"w\");\n"
    "  if (!f) return 1; fputs(\"0.5\\n\", f); fclose(f); return 42;\n}\n";

Test(icpc_judge, an_interactive_scoring_problem_reads_the_interactors_score)
{
    char *dir = scratch_dir("icpc-iscore");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: Echo\ntype: scoring interactive\n");
    put_file(dir, "output_validator/echo.c", "%s", half_interactor);
    put_file(dir, "data/secret/1.in", "21\n");
    put_file(dir, "data/secret/1.ans", "\n");
    convert(dir);
    expect(dir, "#include <stdio.h>\nint main(void){long long n;scanf(\"%lld\",&n);printf(\"%lld\\n\",2*n);"
           "fflush(stdout);return 0;}\n", RUNNER_AC, 100, "2N: the whole worth");
    expect(dir, "#include <stdio.h>\nint main(void){long long n;scanf(\"%lld\",&n);printf(\"%lld\\n\",n);"
           "fflush(stdout);return 0;}\n", RUNNER_WA, 50, "N: half of it");
    remove_dir(dir);
    free(dir);
}

/* The package's faults are IE, never the contestant's: a validator that
 * asks for a pass past validation_passes, a score.txt above the test's
 * worth */
Test(icpc_judge, a_validator_breaking_the_protocol_is_ie)
{
    char *dir = scratch_dir("icpc-endless");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: Endless\ntype: multi-pass\n"
             "limits:\n  validation_passes: 3\n");
    put_file(dir, "output_validator/endless.c",
             "#include <stdio.h>\nint main(int argc, char **argv) { char p[4096];\n"
             "  snprintf(p, sizeof p, \"%%snextpass.in\", argv[3]); FILE *f = fopen(p, \"w\");\n"
             "  if (!f) return 1; fputs(\"1\\n\", f); fclose(f); return 42; }\n");
    put_file(dir, "data/secret/1.in", "1\n");
    put_file(dir, "data/secret/1.ans", "\n");
    convert(dir);
    struct judged j = judge(dir, "int main(void){return 0;}\n");
    cr_expect_eq(j.verdict, RUNNER_IE, "%s", j.json);
    cr_expect(strstr(j.json, "pass 3 of 3: the checker wrote nextpass.in after the last pass"), "%s", j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);

    dir = scratch_dir("icpc-overscore");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "name: Over\ntype: scoring\nvalidation: custom score\nvalidator_flags: points\n");
    put_file(dir, "output_validators/halves.c", "%s", halves);
    put_file(dir, "data/testdata.yaml", "accept_score: 4\n");
    put_file(dir, "data/secret/1.in", "3 5\n");
    put_file(dir, "data/secret/1.ans", "8\n");
    convert(dir);
    j = judge(dir, half_on_2);
    cr_expect_eq(j.verdict, RUNNER_IE, "%s", j.json);
    cr_expect(strstr(j.json, "score.txt is outside 0..the test's worth"), "%s", j.json);
    free(j.json);
    /* a rejection with a score */
    put_file(dir, "output_validators/halves.c", "#include <stdio.h>\nint main(int argc, char **argv) { char p[4096];\n"
             "  snprintf(p, sizeof p, \"%%sscore.txt\", argv[3]); FILE *f = fopen(p, \"w\");\n"
             "  if (f) fputs(\"1\\n\", f), fclose(f); return 43; }\n");
    j = judge(dir, half_on_2);
    cr_expect_eq(j.verdict, RUNNER_IE, "%s", j.json);
    cr_expect(strstr(j.json, "the validator exited 43, but it rejected and still wrote score.txt"), "%s", j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);
}

/* Interactive multi-pass: the interactor gives its input's N and wants 2N;
 * on pass 1 it writes 2N as nextpass.in, which is its input on pass 2 */
static const char *doubling_interactor =
    "#include <stdio.h>\n"
    "int main(int argc, char **argv) {\n"
    "  char p[4096]; long long n, got; FILE *in = fopen(argv[1], \"r\");\n"
    "  if (!in || fscanf(in, \"%lld\", &n) != 1) return 1;\n"
    "  printf(\"%lld\\n\", n); fflush(stdout);\n"
    "  if (scanf(\"%lld\", &got) != 1 || got != 2 * n) return 43;\n"
    "  snprintf(p, sizeof p, \"%sstate\", argv[3]); FILE *st = fopen(p, \"r\");\n"
    "  if (st) return 42;\n"
    "  st = fopen(p, \"w\"); if (!st) return 1; fputs(\"1\", st); fclose(st);\n"
    "  snprintf(p, sizeof p, \"%snextpass.in\", argv[3]); FILE *f = fopen(p, \"w\");\n"
    "  if (!f) return 1; fprintf(f, \"%lld\\n\", got); fclose(f); return 42;\n}\n";

Test(icpc_judge, an_interactive_multi_pass_problem_feeds_nextpass_in_to_the_interactor)
{
    char *dir = scratch_dir("icpc-imultipass");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: Twice\ntype: interactive multi-pass\n");
    put_file(dir, "output_validator/doubling.c", "%s", doubling_interactor);
    put_file(dir, "data/secret/1.in", "7\n");
    put_file(dir, "data/secret/1.ans", "\n");
    convert(dir);
    expect(dir, "#include <stdio.h>\nint main(void){long long n;scanf(\"%lld\",&n);printf(\"%lld\\n\",2*n);"
           "fflush(stdout);return 0;}\n", RUNNER_AC, 100, "doubles 7, then 14");
    expect(dir, "#include <stdio.h>\nint main(void){long long n;scanf(\"%lld\",&n);printf(\"%lld\\n\",n<10?2*n:0);"
           "fflush(stdout);return 0;}\n", RUNNER_WA, 0, "doubles 7 only: pass 2 fails");
    remove_dir(dir);
    free(dir);
}

/* x / 3 printed precisely, or with three decimals (an error of up to
 * 5e-4) on the inputs from LO up to HI */
#define THIRDS(lo, hi)                                                                                        \
    "#include <stdio.h>\nint main(void){double x;scanf(\"%lf\",&x);"                                         \
    "if(x>=" #lo "&&x<" #hi ")printf(\"%.3f\\n\",x/3);else printf(\"%.9f\\n\",x/3);return 0;}\n"

/* legacy: data/testdata.yaml's absolute tolerance 1e-6 for the sample and
 * secret/small (inherited), secret/big's own testdata.yaml a looser 1e-2:
 * three decimals pass big's tests and fail small's */
Test(icpc_judge, legacy_groups_judge_with_their_own_float_tolerance)
{
    char *dir = scratch_dir("icpc-legacy-tolerances");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "name: Thirds\n");
    put_file(dir, "data/testdata.yaml", "output_validator_flags: float_absolute_tolerance 1e-6\n");
    put_file(dir, "data/sample/1.in", "1\n");
    put_file(dir, "data/sample/1.ans", "0.333333333\n");
    put_file(dir, "data/secret/small/1.in", "2\n");
    put_file(dir, "data/secret/small/1.ans", "0.666666667\n");
    put_file(dir, "data/secret/big/testdata.yaml", "output_validator_flags: float_absolute_tolerance 1e-2\n");
    put_file(dir, "data/secret/big/1.in", "1000000\n");
    put_file(dir, "data/secret/big/1.ans", "333333.333333333\n");
    convert(dir);
    expect(dir, THIRDS(0, 0), RUNNER_AC, 100, "precise everywhere");
    expect(dir, THIRDS(1000, 1e18), RUNNER_AC, 100, "three decimals on big's inputs: within its 1e-2");
    expect(dir, THIRDS(2, 1000), RUNNER_WA, 0, "three decimals on small's inputs: beyond their 1e-6");
    remove_dir(dir);
    free(dir);
}

/* A validator called "strict" (the default) or "lenient" (an answer one
 * off is accepted too). */
static const char *strictness =
    "#include <stdio.h>\n#include <string.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "  long long want, got; FILE *a = fopen(argv[2], \"r\");\n"
    "  if (!a || fscanf(a, \"%lld\", &want) != 1) return 1;\n"
    "  if (scanf(\"%lld\", &got) != 1) return 43;\n"
    "  int lenient = argc > 4 && !strcmp(argv[4], \"lenient\");\n"
    "  if (argc > 5 || (argc > 4 && !lenient && strcmp(argv[4], \"strict\"))) return 1;\n"
    "  return got == want || (lenient && llabs(got - want) == 1) ? 42 : 43;\n}\n";

/* 2023-07: a custom validator called with each group's
 * output_validator_args: secret/near lenient, secret/exact strict, the
 * sample with none */
Test(icpc_judge, groups_of_2023_07_call_the_validator_with_their_own_arguments)
{
    char *dir = scratch_dir("icpc-2023-args");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: Sums\n");
    put_file(dir, "output_validator/strictness.c", "%s", strictness);
    put_file(dir, "data/sample/1.in", "1 1\n");
    put_file(dir, "data/sample/1.ans", "2\n");
    put_file(dir, "data/secret/exact/test_group.yaml", "output_validator_args: [strict]\n");
    put_file(dir, "data/secret/exact/1.in", "3 4\n");
    put_file(dir, "data/secret/exact/1.ans", "7\n");
    put_file(dir, "data/secret/near/test_group.yaml", "output_validator_args: [lenient]\n");
    put_file(dir, "data/secret/near/1.in", "100 200\n");
    put_file(dir, "data/secret/near/1.ans", "300\n");
    convert(dir);
    const char *off_big = "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%lld %lld\",&a,&b);"
                          "printf(\"%lld\\n\",a+b+(a>=100));return 0;}\n";
    const char *off_small = "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%lld %lld\",&a,&b);"
                            "printf(\"%lld\\n\",a+b+(a==3));return 0;}\n";
    expect(dir, full, RUNNER_AC, 100, "every sum exact");
    expect(dir, off_big, RUNNER_AC, 100, "one off in secret/near only: lenient there");
    expect(dir, off_small, RUNNER_WA, 0, "one off in secret/exact: strict there");
    remove_dir(dir);
    free(dir);
}

/* An interactor that sends N and wants 2N back: exactly ("strict", the
 * default) or give or take one ("lenient"). */
static const char *doubling_strictness =
    "#include <stdio.h>\n#include <string.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "  long long n, got; FILE *in = fopen(argv[1], \"r\");\n"
    "  if (!in || fscanf(in, \"%lld\", &n) != 1) return 1;\n"
    "  int lenient = argc > 4 && !strcmp(argv[4], \"lenient\");\n"
    "  if (argc > 5 || (argc > 4 && !lenient && strcmp(argv[4], \"strict\"))) return 1;\n"
    "  printf(\"%lld\\n\", n); fflush(stdout);\n"
    "  if (scanf(\"%lld\", &got) != 1) return 43;\n"
    "  return got == 2 * n || (lenient && llabs(got - 2 * n) == 1) ? 42 : 43;\n}\n";

/* 2023-07 interactive: the groups' output_validator_args go to the
 * interactor, test by test */
Test(icpc_judge, interactive_groups_call_the_interactor_with_their_own_arguments)
{
    char *dir = scratch_dir("icpc-interactive-args");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: Double\ntype: interactive\n");
    put_file(dir, "output_validator/doubling.c", "%s", doubling_strictness);
    put_file(dir, "data/sample/1.in", "1\n");
    put_file(dir, "data/sample/1.ans", "\n");
    put_file(dir, "data/secret/exact/test_group.yaml", "output_validator_args: [strict]\n");
    put_file(dir, "data/secret/exact/1.in", "3\n");
    put_file(dir, "data/secret/exact/1.ans", "\n");
    put_file(dir, "data/secret/near/test_group.yaml", "output_validator_args: [lenient]\n");
    put_file(dir, "data/secret/near/1.in", "100\n");
    put_file(dir, "data/secret/near/1.ans", "\n");
    convert(dir);
#define DOUBLER(off) "#include <stdio.h>\nint main(void){long long n;scanf(\"%lld\",&n);" \
                     "printf(\"%lld\\n\",2*n+(" off "));fflush(stdout);return 0;}\n"
    expect(dir, DOUBLER("0"), RUNNER_AC, 100, "doubles exactly");
    expect(dir, DOUBLER("n>=100"), RUNNER_AC, 100, "one off in secret/near only: lenient there");
    expect(dir, DOUBLER("n==3"), RUNNER_WA, 0, "one off in secret/exact: strict there");
#undef DOUBLER
    remove_dir(dir);
    free(dir);
}

/* Output, as the format and its tools have it: 8 MiB when limits.output is
 * not set; past it the stream is cut and the program runs on, so a right
 * answer followed by 10 MiB of blanks is OLE, and a program that fills
 * stdout forever is TLE (it never ends) */
Test(icpc_judge, output_past_the_formats_default_limit_is_ole_and_a_filler_that_never_ends_is_tle)
{
    char *dir = scratch_dir("icpc-output");
    put_file(dir, ".timelimit", "1\n");
    put_file(dir, "problem.yaml", "name: A plus B\n");
    put_file(dir, "data/secret/1.in", "1 2\n");
    put_file(dir, "data/secret/1.ans", "3\n");
    convert(dir);
    const char *blanks = "#include <stdio.h>\n#include <string.h>\nint main(void){ static char b[1 << 20];"
                         " long long x, y; scanf(\"%lld %lld\", &x, &y); printf(\"%lld\\n\", x + y);"
                         " memset(b, ' ', sizeof b); for (int i = 0; i < 10; i++) fwrite(b, 1, sizeof b, stdout);"
                         " return 0; }\n";
    expect(dir, blanks, RUNNER_OLE, 0, "the answer, then 10 MiB of blanks");
    const char *filler = "#include <stdio.h>\nint main(void){ for (;;) fputs(\"3 3 3 3 3 3 3 3\\n\", stdout); }\n";
    struct judged j = judge(dir, filler);
    cr_expect_eq(j.verdict, RUNNER_TLE, "cut at the limit, it runs on: %s", j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);
}

/* issue 39: an ICPC submit-answer problem (2023-07) of three tests becomes
 * an output-only one: the answers named after the tests, judged by the
 * package's validator; partial answers earn what their groups are worth */
Test(icpc_judge, a_submit_answer_problem_judges_answer_files_with_partial_scores)
{
    char *dir = scratch_dir("icpc-submit-answer");
    put_file(dir, "problem.yaml", "problem_format_version: 2025-09\nname: Answers\ntype: [scoring, submit-answer]\n");
    put_file(dir, "data/secret/g1/1.in", "1 1\n");
    put_file(dir, "data/secret/g1/1.ans", "2\n");
    put_file(dir, "data/secret/g2/1.in", "2 3\n");
    put_file(dir, "data/secret/g2/1.ans", "5\n");
    put_file(dir, "data/secret/g3/1.in", "4000000000 1\n");
    put_file(dir, "data/secret/g3/1.ans", "4000000001\n");
    put_file(dir, "data/secret/g1/test_group.yaml", "max_score: 20\n");
    put_file(dir, "data/secret/g2/test_group.yaml", "max_score: 30\n");
    put_file(dir, "data/secret/g3/test_group.yaml", "max_score: 50\n");
    convert(dir);
    struct fileset fs = {0};
    char why[300], *packed;
    size_t len;
    /* g1 right, g2 missing, g3 right */
    cr_assert_eq(fileset_add(&fs, "secret-g1-1.out", "2\n", 2, why, sizeof why), 0, "%s", why);
    cr_assert_eq(fileset_add(&fs, "secret-g3-1.out", "4000000001\n", 11, why, sizeof why), 0, "%s", why);
    cr_assert_eq(fileset_pack(&fs, &packed, &len, why, sizeof why), 0, "%s", why);
    fileset_free(&fs);
    struct runner_config cfg = {.languages_dir = SRC "/languages", .work_dir = WORK_DIR,
                                .first_slot = FIRST_SLOT, .slots = 1};
    struct runner *r = NULL;
    char err[4096];
    cr_assert_eq(runner_open(&r, &cfg, err, sizeof err), 0, "runner_open: %s", err);
    struct runner_request req = {.problem_dir = dir, .language = "answers", .source = packed, .source_len = len};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), 0, "%s", err);
    char *json = runner_report_json(rep);
    cr_expect_eq(runner_report_verdict(rep), RUNNER_WA, "%s", json);
    cr_expect(runner_report_score(rep) > 69.999 && runner_report_score(rep) < 70.001, "score %g: %s",
              runner_report_score(rep), json);
    cr_expect(strstr(json, "no answer file secret-g2-1.out"), "%s", json);
    free(json);
    runner_report_free(rep);
    runner_close(r);
    free(packed);
    remove_dir(dir);
    free(dir);
}
