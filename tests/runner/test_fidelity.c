/*
 * test_fidelity.c - programs and packages written for other judges (issue
 * 22, "fidelity misses"), judged through real compilers and the real
 * sandbox: a program reading /dev/stdin or writing /dev/stdout, a Java class
 * with a non-ASCII name, a testlib checker writing its points on stdout (as
 * DMOJ's build does), a checker with its own compile flags; submissions of
 * several files (issue 39: a Java package, Python modules, C++ with a
 * header). Needs root.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <sys/stat.h>

#include "fileset.h"
#include "helpers.h"
#include "runner.h"

#define SRC JUDGED_SOURCE_DIR
/* Slots 180..199: five groups of four (a runner of one slot uses two, its
 * interactor's companion box the second), held per test process. */
#define FIRST_SLOT test_slot_group(180, 5, 4)
#define WORK_DIR BIN_DIR "/../runner-fidelity-work"   /* one per build tree */

static struct runner *open_runner(bool prepare_off)
{
    struct runner_config cfg = {.languages_dir = SRC "/languages", .work_dir = WORK_DIR,
                                .first_slot = FIRST_SLOT, .slots = 1, .prepare_off = prepare_off};
    struct runner *r = NULL;
    char err[4096];
    cr_assert_eq(runner_open(&r, &cfg, err, sizeof err), 0, "runner_open: %s", err);
    return r;
}

struct judged {
    enum runner_verdict verdict;
    double score;
    char *json;
};

/* prepare_off: without the language's prepared files (Java: javap, not
 * MainFinder, lists the main classes) */
static struct judged judge_with(const char *problem, const char *lang, const char *source,
                                bool prepare_off)
{
    struct runner *r = open_runner(prepare_off);
    struct runner_request req = {.problem_dir = problem, .language = lang, .source = source,
                                 .source_len = strlen(source)};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    char err[1024];
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), 0, "%s: %s", lang, err);
    struct judged j = {runner_report_verdict(rep), runner_report_score(rep), runner_report_json(rep)};
    runner_report_free(rep);
    runner_close(r);
    return j;
}

static struct judged judge(const char *problem, const char *lang, const char *source)
{
    return judge_with(problem, lang, source, false);
}

static void expect(struct judged j, enum runner_verdict v, const char *what)
{
    cr_expect_eq(j.verdict, v, "%s: %s", what, j.json);
    free(j.json);
}

/* A+B with two tests; the inputs are root's and unreadable by others
 * (0600), as a setter's umask or an unpacked archive may leave them. */
static char *aplusb(const char *tag)
{
    char *dir = scratch_dir(tag);
    put_file(dir, "problem.yaml", "name: %s\ntime_limit: 2s\nmemory_limit: 256M\nchecker: tokens\n", tag);
    put_file(dir, "tests/1.in", "3 4\n");
    put_file(dir, "tests/1.out", "7\n");
    put_file(dir, "tests/2.in", "-10 25\n");
    put_file(dir, "tests/2.out", "15\n");
    char path[512];
    for (int i = 1; i <= 2; i++) {
        snprintf(path, sizeof path, "%s/tests/%d.in", dir, i);
        chmod(path, 0600);
    }
    return dir;
}

/* Item 4: /dev/stdin and /dev/stdout are /proc/self/fd/0 and 1; opening
 * them opens the file again, with the box's uid. */
Test(dev_stdio, cpp_streams_reopen_stdin_and_stdout, .timeout = 240)
{
    char *dir = aplusb("devstdio-cpp");
    expect(judge(dir, "cpp",
                 "#include <fstream>\n"
                 "int main() {\n"
                 "    std::ifstream in(\"/dev/stdin\");\n"
                 "    long a = 0, b = 0;\n"
                 "    if (!(in >> a >> b)) return 2;\n"
                 "    std::ofstream out(\"/dev/stdout\");\n"
                 "    if (!(out << a + b << '\\n')) return 3;\n"
                 "}\n"),
           RUNNER_AC, "ifstream/ofstream");
    expect(judge(dir, "cpp",
                 "#include <cstdio>\n"
                 "int main() {\n"
                 "    if (!std::freopen(\"/dev/stdin\", \"r\", stdin)) return 2;\n"
                 "    if (!std::freopen(\"/dev/stdout\", \"w\", stdout)) return 3;\n"
                 "    long a, b;\n"
                 "    if (std::scanf(\"%ld %ld\", &a, &b) != 2) return 4;\n"
                 "    std::printf(\"%ld\\n\", a + b);\n"
                 "}\n"),
           RUNNER_AC, "freopen");
    remove_dir(dir);
    free(dir);
}

Test(dev_stdio, c_fopen_dev_stdin_and_stdout, .timeout = 120)
{
    char *dir = aplusb("devstdio-c");
    expect(judge(dir, "c",
                 "#include <stdio.h>\n"
                 "int main(void) {\n"
                 "    FILE *in = fopen(\"/dev/stdin\", \"r\"), *out = fopen(\"/dev/stdout\", \"w\");\n"
                 "    long a, b;\n"
                 "    if (!in) return 2;\n"
                 "    if (!out) return 3;\n"
                 "    if (fscanf(in, \"%ld %ld\", &a, &b) != 2) return 4;\n"
                 "    fprintf(out, \"%ld\\n\", a + b);\n"
                 "    return fclose(out) != 0;\n"
                 "}\n"),
           RUNNER_AC, "fopen");
    remove_dir(dir);
    free(dir);
}

/* Item 3: a public class whose name is any Java identifier, not only
 * ASCII: javac wants it in a file of that name (UTF-8), and java is given
 * that name as the main class. */
Test(java_names, non_ascii_public_class, .timeout = 600)
{
    char *dir = aplusb("java-names");
    expect(judge(dir, "java",
                 "import java.util.*;\n"
                 "public class \xc3\x91" "and\xc3\xba {\n"
                 "    public static void main(String[] args) {\n"
                 "        Scanner s = new Scanner(System.in);\n"
                 "        System.out.println(s.nextLong() + s.nextLong());\n"
                 "    }\n"
                 "}\n"),
           RUNNER_AC, "public class \xc3\x91" "and\xc3\xba");
    /* Greek, a currency sign and a connector inside the name, a nested
     * class with main that must not be chosen over the public one */
    expect(judge(dir, "java",
                 "public final class \xce\xa3\xcf\x8d\xce\xbd\xce\xbf\xce\xbb\xce\xbf_\xe2\x82\xac$1 {\n"
                 "    static class Helper { public static void main(String[] a) { System.exit(9); } }\n"
                 "    public static void main(String[] args) {\n"
                 "        java.util.Scanner s = new java.util.Scanner(System.in);\n"
                 "        System.out.println(s.nextLong() + s.nextLong());\n"
                 "    }\n"
                 "}\n"),
           RUNNER_AC, "public final class with Greek letters, _ and a euro sign");
    expect(judge_with(dir, "java",
                      "public class \xc3\x91" "and\xc3\xba {\n"
                      "    public static void main(String[] args) {\n"
                      "        java.util.Scanner s = new java.util.Scanner(System.in);\n"
                      "        System.out.println(s.nextLong() + s.nextLong());\n"
                      "    }\n"
                      "}\n", true),
           RUNNER_AC, "public class \xc3\x91" "and\xc3\xba, javap's list");
    remove_dir(dir);
    free(dir);
}

/* A+B whose custom checker (C++, no testlib.h: it speaks testlib's exit
 * code 7) gives half the points to a right answer, writing `points` as
 * STDOUT_LINE on stdout and STDERR_LINE on stderr (either may be ""). */
static char *points_problem(const char *tag, const char *stdout_line, const char *stderr_line)
{
    char *dir = aplusb(tag);
    put_file(dir, "problem.yaml",
             "name: %s\ntime_limit: 2s\nmemory_limit: 256M\n"
             "checker: {type: custom, source: check.cpp}\n", tag);
    put_file(dir, "check.cpp",
             "#include <cstdio>\n"
             "int main(int argc, char **argv) {\n"
             "    if (argc < 4) return 3;\n"
             "    long out, ans;\n"
             "    std::FILE *o = std::fopen(argv[2], \"r\"), *a = std::fopen(argv[3], \"r\");\n"
             "    if (!o || !a || std::fscanf(a, \"%%ld\", &ans) != 1) return 3;\n"
             "    if (std::fscanf(o, \"%%ld\", &out) != 1 || out != ans) return 1;\n"
             "    std::fputs(\"%s\", stdout);\n"
             "    std::fputs(\"%s\", stderr);\n"
             "    return 7;\n"
             "}\n", stdout_line, stderr_line);
    return dir;
}

static const char *const right_sum =
    "#include <stdio.h>\n"
    "int main(void) { long a, b; if (scanf(\"%ld %ld\", &a, &b) != 2) return 1;"
    " printf(\"%ld\\n\", a + b); return 0; }\n";

/* Item 1: DMOJ's testlib writes quitp's `points X` on stdout, upstream
 * testlib on stderr, this project's protocol a bare fraction on stdout. */
Test(testlib_points, on_stdout_as_dmoj_writes_them, .timeout = 240)
{
    char *dir = points_problem("points-stdout", "points 0.5 half of it\\n", "");
    struct judged j = judge(dir, "c", right_sum);
    cr_expect_eq(j.verdict, RUNNER_WA, "%s", j.json);
    cr_expect_float_eq(j.score, 50.0, 1e-9, "%s", j.json);
    cr_expect(strstr(j.json, "half of it") != NULL, "the message after the points: %s", j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);
}

Test(testlib_points, on_stderr_as_upstream_writes_them, .timeout = 240)
{
    char *dir = points_problem("points-stderr", "", "points 0.5 half of it\\n");
    struct judged j = judge(dir, "c", right_sum);
    cr_expect_float_eq(j.score, 50.0, 1e-9, "%s", j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);
}

/* the same points on both streams agree; different ones are the checker's
 * fault: IE, naming both */
Test(testlib_points, on_both_streams_must_agree, .timeout = 240)
{
    char *dir = points_problem("points-both", "points 0.5\\n", "points 0.5 half\\n");
    struct judged j = judge(dir, "c", right_sum);
    cr_expect_float_eq(j.score, 50.0, 1e-9, "%s", j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);
    dir = points_problem("points-differ", "points 0.25\\n", "points 0.5\\n");
    j = judge(dir, "c", right_sum);
    cr_expect_eq(j.verdict, RUNNER_IE, "%s", j.json);
    cr_expect(strstr(j.json, "0.25") && strstr(j.json, "0.5"), "%s", j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);
}

/* Item 4, interactive: the program's stdin and stdout are pipes, which it
 * may open again by name too (testdata/guess, binary search). */
Test(dev_stdio, interactive_pipes_reopen, .timeout = 240)
{
    expect(judge(SRC "/testdata/guess", "c",
                 "#include <stdio.h>\n"
                 "int main(void) {\n"
                 "    if (!freopen(\"/dev/stdin\", \"r\", stdin)) return 2;\n"
                 "    if (!freopen(\"/dev/stdout\", \"w\", stdout)) return 3;\n"
                 "    long n, q, lo = 1, hi;\n"
                 "    if (scanf(\"%ld %ld\", &n, &q) != 2) return 4;\n"
                 "    hi = n;\n"
                 "    while (lo < hi) {\n"
                 "        long mid = lo + (hi - lo) / 2;\n"
                 "        char r[4];\n"
                 "        printf(\"? %ld\\n\", mid);\n"
                 "        fflush(stdout);\n"
                 "        if (scanf(\"%3s\", r) != 1) return 5;\n"
                 "        if (r[0] == '=') { lo = hi = mid; break; }\n"
                 "        if (r[0] == '<') hi = mid - 1; else lo = mid + 1;\n"
                 "    }\n"
                 "    printf(\"! %ld\\n\", lo);\n"
                 "    return 0;\n"
                 "}\n"),
           RUNNER_AC, "freopen on the interactive pipes");
}

/* ---- issue 39: a submission of several files (common/fileset) ---- */

/* the files {name, text, name, text, ..., NULL} packed as judge-api packs
 * a submission's `files`, judged */
static struct judged judge_files(const char *problem, const char *lang, const char *const *files)
{
    struct fileset fs = {0};
    char why[300];
    for (size_t i = 0; files[i]; i += 2)
        cr_assert_eq(fileset_add(&fs, files[i], files[i + 1], strlen(files[i + 1]), why, sizeof why), 0, "%s", why);
    char *packed;
    size_t len;
    cr_assert_eq(fileset_pack(&fs, &packed, &len, why, sizeof why), 0, "%s", why);
    fileset_free(&fs);
    struct runner *r = open_runner(false);
    struct runner_request req = {.problem_dir = problem, .language = lang, .source = packed, .source_len = len};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    char err[1024];
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), 0, "%s: %s", lang, err);
    struct judged j = {runner_report_verdict(rep), runner_report_score(rep), runner_report_json(rep)};
    runner_report_free(rep);
    runner_close(r);
    free(packed);
    return j;
}

/* Java: two classes in a package directory; javac finds the class with
 * main (Solver, not Main) as Java users expect */
Test(several_files, java_package_of_two_classes, .timeout = 600)
{
    char *dir = aplusb("files-java");
    const char *const files[] = {
        "contest/Adder.java", "package contest;\npublic class Adder {\n"
                              "    public static long add(long a, long b) { return a + b; }\n}\n",
        "contest/Solver.java", "package contest;\nimport java.util.Scanner;\npublic class Solver {\n"
                               "    public static void main(String[] args) {\n"
                               "        Scanner s = new Scanner(System.in);\n"
                               "        System.out.println(Adder.add(s.nextLong(), s.nextLong()));\n    }\n}\n",
        NULL};
    expect(judge_files(dir, "java", files), RUNNER_AC, "contest/Solver.java + contest/Adder.java");
    remove_dir(dir);
    free(dir);
}

/* Python: __main__.py imports a module beside it */
Test(several_files, python_modules_with_a_main_module, .timeout = 300)
{
    char *dir = aplusb("files-python");
    const char *const files[] = {
        "__main__.py", "from arith import add\na, b = map(int, input().split())\nprint(add(a, b))\n",
        "arith.py", "def add(a, b):\n    return a + b\n", NULL};
    expect(judge_files(dir, "python3", files), RUNNER_AC, "__main__.py + arith.py");
    remove_dir(dir);
    free(dir);
}

/* C++: every .cpp compiled, the header beside them; names are the
 * contestant's own */
Test(several_files, cpp_with_a_header, .timeout = 300)
{
    char *dir = aplusb("files-cpp");
    const char *const files[] = {
        "lib/add.h", "#pragma once\nlong long add(long long a, long long b);\n",
        "lib/add.cpp", "#include \"add.h\"\nlong long add(long long a, long long b) { return a + b; }\n",
        "solution.cpp", "#include <cstdio>\n#include \"lib/add.h\"\n"
                        "int main() { long long a, b; if (std::scanf(\"%lld %lld\", &a, &b) != 2) return 1;\n"
                        "    std::printf(\"%lld\\n\", add(a, b)); }\n",
        NULL};
    expect(judge_files(dir, "cpp", files), RUNNER_AC, "solution.cpp + lib/add.cpp + lib/add.h");
    remove_dir(dir);
    free(dir);
}

/* No entry point, no file of the language, or a set that does not unpack:
 * CE saying so, never IE nor an infrastructure failure */
Test(several_files, without_an_entry_point_is_ce, .timeout = 300)
{
    char *dir = aplusb("files-ce");
    const char *const two[] = {"a.py", "print(1)\n", "b.py", "print(2)\n", NULL};
    struct judged j = judge_files(dir, "python3", two);
    cr_expect_eq(j.verdict, RUNNER_CE, "%s", j.json);
    cr_expect(strstr(j.json, "main.py or __main__.py is not among them"), "%s", j.json);
    free(j.json);
    const char *const headers[] = {"add.h", "int add(int, int);\n", NULL};
    j = judge_files(dir, "cpp", headers);
    cr_expect_eq(j.verdict, RUNNER_CE, "%s", j.json);
    cr_expect(strstr(j.json, "none of the submission's 1 files ends as main.cpp does"), "%s", j.json);
    free(j.json);
    /* the mark, then no tar: a broken set from an FCALL client */
    char broken[64];
    memcpy(broken, FILESET_MARK, FILESET_MARK_LEN);
    strcpy(broken + FILESET_MARK_LEN, "not a tar at all");
    struct runner *r = open_runner(false);
    struct runner_request req = {.problem_dir = dir, .language = "c", .source = broken,
                                 .source_len = FILESET_MARK_LEN + strlen("not a tar at all")};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    char err[1024];
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), 0, "%s", err);
    char *json = runner_report_json(rep);
    cr_expect_eq(runner_report_verdict(rep), RUNNER_CE, "%s", json);
    cr_expect(strstr(json, "the submission's files:"), "%s", json);
    free(json);
    runner_report_free(rep);
    runner_close(r);
    remove_dir(dir);
    free(dir);
}

/* ---- issue 39: output-only problems (CMS OutputOnly, ICPC submit-answer) ---- */

/* three tests worth 30, 30 and 40, each its own subtask; answer files as
 * answer_file names them (NULL: the default, {name}.out) */
static char *output_only(const char *tag, const char *answer_file)
{
    char *dir = scratch_dir(tag);
    put_file(dir, "problem.yaml",
             "name: %s\ntype: output-only\n%s%s%schecker: tokens\n"
             "subtasks:\n  - {name: one, points: 30, tests: [a]}\n  - {name: two, points: 30, tests: [b]}\n"
             "  - {name: three, points: 40, tests: [c]}\n",
             tag, answer_file ? "answer_file: \"" : "", answer_file ? answer_file : "", answer_file ? "\"\n" : "");
    const char *names[] = {"a", "b", "c"}, *answers[] = {"7\n", "15\n", "1000\n"};
    for (int i = 0; i < 3; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "tests/%s.in", names[i]);
        put_file(dir, rel, "the %d-th input\n", i);
        snprintf(rel, sizeof rel, "tests/%s.out", names[i]);
        put_file(dir, rel, "%s", answers[i]);
    }
    return dir;
}

static json_t *test_of(json_t *report, size_t i)
{
    return json_array_get(json_object_get(report, "tests"), i);
}

/* a.out right, b.out missing, c.out wrong: 30 of 100, WA; then every
 * answer right: AC, 100; CMS's names (output_000.txt...) the same way */
Test(output_only, partial_answers_earn_partial_scores, .timeout = 120)
{
    char *dir = output_only("answers", NULL);
    const char *const partial[] = {"a.out", "7\n", "c.out", "999\n", "notes.txt", "ignored\n", NULL};
    struct judged j = judge_files(dir, "answers", partial);
    json_t *rep = json_loads(j.json, 0, NULL);
    cr_assert(rep, "%s", j.json);
    cr_expect_eq(j.verdict, RUNNER_WA, "%s", j.json);
    cr_expect(j.score > 29.999 && j.score < 30.001, "score %g: %s", j.score, j.json);
    cr_expect_str_eq(json_string_value(json_object_get(test_of(rep, 0), "verdict")), "AC", "%s", j.json);
    cr_expect_str_eq(json_string_value(json_object_get(test_of(rep, 1), "verdict")), "WA", "%s", j.json);
    cr_expect_str_eq(json_string_value(json_object_get(test_of(rep, 1), "checker_message")), "no answer file b.out",
                     "%s", j.json);
    cr_expect_str_eq(json_string_value(json_object_get(test_of(rep, 2), "verdict")), "WA", "%s", j.json);
    json_decref(rep);
    free(j.json);
    const char *const all[] = {"a.out", "7\n", "b.out", "15\n", "c.out", "1000\n", NULL};
    j = judge_files(dir, "answers", all);
    cr_expect_eq(j.verdict, RUNNER_AC, "%s", j.json);
    cr_expect(j.score > 99.999, "score %g: %s", j.score, j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);
    dir = output_only("answers-cms", "output_{index}.txt");
    const char *const cms[] = {"output_000.txt", "7\n", "output_002.txt", "1000\n", NULL};
    j = judge_files(dir, "answers", cms);
    cr_expect_eq(j.verdict, RUNNER_WA, "%s", j.json);
    cr_expect(j.score > 69.999 && j.score < 70.001, "score %g: %s", j.score, j.json);
    cr_expect(strstr(j.json, "no answer file output_001.txt"), "%s", j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);
}

/* a program for an output-only problem, answers for one that runs a
 * program, one source instead of files: CE saying what to send; a bad
 * answer_file: the package's error, naming the key */
Test(output_only, the_wrong_kind_of_submission_is_ce_and_a_bad_pattern_refused, .timeout = 120)
{
    char *dir = output_only("answers-ce", NULL);
    struct judged j = judge(dir, "c", right_sum);
    cr_expect_eq(j.verdict, RUNNER_CE, "%s", j.json);
    cr_expect(strstr(j.json, "this problem is output-only"), "%s", j.json);
    free(j.json);
    j = judge(dir, "answers", "7\n");
    cr_expect_eq(j.verdict, RUNNER_CE, "%s", j.json);
    cr_expect(strstr(j.json, "not one source"), "%s", j.json);
    free(j.json);
    char *batch = aplusb("answers-batch");
    const char *const files[] = {"1.out", "7\n", NULL};
    j = judge_files(batch, "answers", files);
    cr_expect_eq(j.verdict, RUNNER_CE, "%s", j.json);
    cr_expect(strstr(j.json, "only an output-only problem takes"), "%s", j.json);
    free(j.json);
    remove_dir(batch);
    free(batch);
    remove_dir(dir);
    free(dir);
    const char *bad[][2] = {{"out_{test}.txt", "unknown placeholder"}, {"same.txt", "the same file name"},
                            {"../{name}", "'..'"}};
    for (int i = 0; i < 3; i++) {
        dir = output_only("answers-bad", bad[i][0]);
        char *errors = NULL;
        cr_expect(runner_problem_check_limits(NULL, dir, &errors, NULL) > 0, "%s accepted", bad[i][0]);
        cr_expect(errors && strstr(errors, "answer_file") && strstr(errors, bad[i][1]), "%s: %s", bad[i][0],
                  errors ? errors : "");
        free(errors);
        remove_dir(dir);
        free(dir);
    }
}
