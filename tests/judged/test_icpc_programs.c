/*
 * test_icpc_programs.c - ICPC packages whose output validator is a
 * "program" of the format (appendix "Programs"): a directory with `build`
 * and/or `run` scripts, or several sources of one language. Converted as
 * push converts them (store_convert), judged by the real runner, compilers
 * and sandbox; the built validator cached by the directory's whole
 * content; a failing build the problem's fault (IE, and problem check
 * says why). Needs root.
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "../runner/helpers.h"
#include "runner.h"
#include "store.h"

#define SRC JUDGED_SOURCE_DIR
/* Slots 548..567: five groups of four (the job's slot and, for an
 * interactor, its companion), held per test process. */
#define FIRST_SLOT test_slot_group(548, 5, 4)
#define WORK_DIR BIN_DIR "/../icpc-programs-work"   /* one per build tree */

static struct runner *open_runner(void)
{
    struct runner_config cfg = {.languages_dir = SRC "/languages", .work_dir = WORK_DIR,
                                .first_slot = FIRST_SLOT, .slots = 1};
    struct runner *r = NULL;
    char err[4096];
    cr_assert_eq(runner_open(&r, &cfg, err, sizeof err), 0, "runner_open: %s", err);
    return r;
}

struct judged {
    enum runner_verdict verdict;
    char *json;
    char message[512];   /* the first test's checker message */
};

static struct judged judge(const char *problem, const char *source)
{
    struct runner *r = open_runner();
    struct runner_request req = {.problem_dir = problem, .language = "c", .source = source,
                                 .source_len = strlen(source)};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    char err[4096];
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), 0, "%s", err);
    struct judged j = {runner_report_verdict(rep), runner_report_json(rep), ""};
    runner_report_free(rep);
    runner_close(r);
    json_t *doc = json_loads(j.json, 0, NULL);
    json_t *t = json_array_get(json_object_get(doc, "tests"), 0);
    snprintf(j.message, sizeof j.message, "%s", t ? json_string_value(json_object_get(t, "checker_message")) : "");
    json_decref(doc);
    return j;
}

static void expect(const char *problem, const char *source, enum runner_verdict v, const char *what)
{
    struct judged j = judge(problem, source);
    cr_expect_eq(j.verdict, v, "%s: %s", what, j.json);
    free(j.json);
}

static void convert(const char *dir)
{
    char *errors = NULL;
    int n = store_convert(dir, "p", &errors);
    cr_assert_eq(n, 0, "%s", errors ? errors : "");
    free(errors);
}

/* the converted problem.yaml names what (the validator's source:) */
static void expect_source(const char *dir, const char *what)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/problem.yaml", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    char text[8192] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    cr_expect(strstr(text, what), "problem.yaml names %s:\n%s", what, text);
}

/* A+B: a sample and two secret tests */
static void aplusb(const char *dir)
{
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "data/sample/1.in", "1 1\n");
    put_file(dir, "data/sample/1.ans", "2\n");
    put_file(dir, "data/secret/1.in", "3 4\n");
    put_file(dir, "data/secret/1.ans", "7\n");
    put_file(dir, "data/secret/2.in", "1000000 2000000\n");
    put_file(dir, "data/secret/2.ans", "3000000\n");
}

static const char *sum = "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%lld %lld\",&a,&b);"
                         "printf(\"%lld\\n\",a+b);return 0;}\n";
static const char *small = "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%lld %lld\",&a,&b);"
                           "printf(\"%lld\\n\",a<100?a+b:0);return 0;}\n";

/* A C++ validator in two files: util.cpp reads the answer, validate.cpp
 * compares (Kattis: input answer feedback_dir < output; 42/43) */
static void two_file_validator(const char *dir, const char *folder, long long offset)
{
    char rel[256];
    snprintf(rel, sizeof rel, "%s/util.h", folder);
    put_file(dir, rel, "long long read_answer(const char *path);\n");
    snprintf(rel, sizeof rel, "%s/util.cpp", folder);
    put_file(dir, rel, "#include <fstream>\n#include \"util.h\"\n"
             "long long read_answer(const char *path) { std::ifstream f(path); long long v = -1; f >> v; "
             "return v + %lld; }\n", offset);
    snprintf(rel, sizeof rel, "%s/validate.cpp", folder);
    put_file(dir, rel, "#include <iostream>\n#include \"util.h\"\n"
             "int main(int argc, char **argv) { if (argc < 4) return 1; long long want = read_answer(argv[2]), got;\n"
             "  if (!(std::cin >> got)) return 43; return got == want ? 42 : 43; }\n");
}

/* Legacy: output_validators/cmp/ with a build script that compiles two
 * .cpp files and a run script; neither executable (zips lose modes). The
 * build also writes a stamp (its time, in ns) that run puts into
 * judgemessage.txt: the same stamp on the second judging is the cached
 * build, not a new one. */
Test(icpc_programs, a_legacy_validator_with_build_and_run_scripts_judges_and_is_cached)
{
    char *dir = scratch_dir("prog-legacy");
    aplusb(dir);
    put_file(dir, "problem.yaml", "name: A plus B\nvalidation: custom\n");
    two_file_validator(dir, "output_validators/cmp", 0);
    put_file(dir, "output_validators/cmp/build", "set -e\ng++ -O2 -o validator validate.cpp util.cpp\n"
             "date +%%s%%N > stamp\n");
    put_file(dir, "output_validators/cmp/run", "#!/bin/sh\ncat stamp > \"$3/judgemessage.txt\"\n"
             "exec ./validator \"$@\"\n");
    convert(dir);
    expect_source(dir, "source: \"output_validators/cmp/\"");
    remove_dir(WORK_DIR "/checkers");   /* the first judging builds */
    struct judged first = judge(dir, sum);
    cr_expect_eq(first.verdict, RUNNER_AC, "%s", first.json);
    cr_expect(strlen(first.message) >= 10, "the stamp as the message: %s", first.json);
    expect(dir, small, RUNNER_WA, "wrong on the large test");
    struct judged again = judge(dir, sum);
    cr_expect_eq(again.verdict, RUNNER_AC, "%s", again.json);
    cr_expect_str_eq(again.message, first.message, "built once: %s", again.json);
    free(first.json);
    free(again.json);
    remove_dir(dir);
    free(dir);
}

/* 2023-07: output_validator/ with only a run script that execs a Python
 * validator beside it */
Test(icpc_programs, a_2023_07_validator_with_only_a_run_script_starts_python)
{
    char *dir = scratch_dir("prog-run");
    aplusb(dir);
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: A plus B\n");
    put_file(dir, "output_validator/run", "#!/bin/sh\nexec python3 validator.py \"$@\"\n");
    put_file(dir, "output_validator/validator.py",
             "import sys\nwant = open(sys.argv[2]).read().split()\ngot = sys.stdin.read().split()\n"
             "open(sys.argv[3] + 'judgemessage.txt', 'w').write('python says %%s' %% ('yes' if got == want else 'no'))\n"
             "sys.exit(42 if got == want else 43)\n");
    convert(dir);
    expect_source(dir, "source: \"output_validator/\"");
    struct judged j = judge(dir, sum);
    cr_expect_eq(j.verdict, RUNNER_AC, "%s", j.json);
    cr_expect_str_eq(j.message, "python says yes", "%s", j.json);
    free(j.json);
    expect(dir, small, RUNNER_WA, "wrong on the large test");
    remove_dir(dir);
    free(dir);
}

/* Several sources of one language, no scripts: compiled together (C++:
 * validate.cpp + util.cpp; Python: main.py, the entry point, importing
 * a module of a subdirectory). The cache is keyed by the whole directory: a changed
 * util.cpp is a new validator. */
Test(icpc_programs, a_validator_of_several_sources_is_compiled_together)
{
    char *dir = scratch_dir("prog-sources");
    aplusb(dir);
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: A plus B\n");
    two_file_validator(dir, "output_validator", 0);
    convert(dir);
    expect_source(dir, "source: \"output_validator/\"");
    expect(dir, sum, RUNNER_AC, "two-file C++ validator");
    expect(dir, small, RUNNER_WA, "two-file C++ validator");
    two_file_validator(dir, "output_validator", 1);   /* now wants a + b + 1 */
    expect(dir, sum, RUNNER_WA, "util.cpp changed: the validator is built again");
    remove_dir(dir);
    free(dir);

    /* the format's other C++ endings (.C, .c++) are C++ too */
    dir = scratch_dir("prog-endings");
    aplusb(dir);
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: A plus B\n");
    two_file_validator(dir, "output_validator", 0);
    char from[4096], to[4096];
    snprintf(from, sizeof from, "%s/output_validator/util.cpp", dir);
    snprintf(to, sizeof to, "%s/output_validator/util.C", dir);
    cr_assert_eq(rename(from, to), 0);
    snprintf(from, sizeof from, "%s/output_validator/validate.cpp", dir);
    snprintf(to, sizeof to, "%s/output_validator/validate.c++", dir);
    cr_assert_eq(rename(from, to), 0);
    convert(dir);
    expect(dir, sum, RUNNER_AC, "util.C + validate.c++");
    remove_dir(dir);
    free(dir);

    dir = scratch_dir("prog-python");
    aplusb(dir);
    put_file(dir, "problem.yaml", "name: A plus B\nvalidation: custom\n");
    put_file(dir, "output_validators/pycmp/lib/compare.py", "def same(a, b):\n    return a.split() == b.split()\n");
    put_file(dir, "output_validators/pycmp/main.py",
             "import sys\nfrom lib.compare import same\n"
             "sys.exit(42 if same(open(sys.argv[2]).read(), sys.stdin.read()) else 43)\n");
    convert(dir);
    expect_source(dir, "source: \"output_validators/pycmp/\"");
    expect(dir, sum, RUNNER_AC, "main.py importing lib/compare.py");
    expect(dir, small, RUNNER_WA, "main.py importing lib/compare.py");
    /* several Python sources need the format's entry point, main.py */
    snprintf(from, sizeof from, "%s/output_validators/pycmp/main.py", dir);
    snprintf(to, sizeof to, "%s/output_validators/pycmp/check.py", dir);
    cr_assert_eq(rename(from, to), 0);
    struct judged j = judge(dir, sum);
    cr_expect_eq(j.verdict, RUNNER_IE, "%s", j.json);
    cr_expect(strstr(j.json, "2 python3 sources and none is main.py, the entry point"), "%s", j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);
}

/* The interactor of an interactive problem (legacy: validation: custom
 * interactive) built by its build script: it gives a and b, wants a + b;
 * its run script has no "#!" line */
Test(icpc_programs, an_interactive_validator_with_build_and_run_scripts)
{
    char *dir = scratch_dir("prog-inter");
    aplusb(dir);
    put_file(dir, "problem.yaml", "name: A plus B\nvalidation: custom interactive\n");
    put_file(dir, "output_validators/inter/ask.c",
             "#include <stdio.h>\nint main(int argc, char **argv) { long long a, b, got;\n"
             "  FILE *in = fopen(argv[1], \"r\"); if (!in || fscanf(in, \"%%lld %%lld\", &a, &b) != 2) return 1;\n"
             "  printf(\"%%lld %%lld\\n\", a, b); fflush(stdout);\n"
             "  if (scanf(\"%%lld\", &got) != 1) return 43; return got == a + b ? 42 : 43; }\n");
    put_file(dir, "output_validators/inter/build", "gcc -O2 -o ask ask.c\n");
    /* no "#!": read by /bin/sh */
    put_file(dir, "output_validators/inter/run", "exec ./ask \"$@\"\n");
    convert(dir);
    expect_source(dir, "interactor: {source: \"output_validators/inter/\"");
    const char *isum = "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%lld %lld\",&a,&b);"
                       "printf(\"%lld\\n\",a+b);fflush(stdout);return 0;}\n";
    const char *ismall = "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%lld %lld\",&a,&b);"
                         "printf(\"%lld\\n\",a<100?a+b:0);fflush(stdout);return 0;}\n";
    expect(dir, isum, RUNNER_AC, "interactor built by its build script");
    expect(dir, ismall, RUNNER_WA, "interactor built by its build script");
    remove_dir(dir);
    free(dir);
}

/* Multi-pass (2023-07): the validator, built by its build script, wants
 * 2N, then gives 2N as the next pass's input and wants 4N */
Test(icpc_programs, a_multi_pass_validator_with_a_build_script)
{
    char *dir = scratch_dir("prog-multipass");
    put_file(dir, ".timelimit", "2\n");
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: Twice\ntype: multi-pass\n");
    put_file(dir, "output_validator/doubling.c",
             "#include <stdio.h>\nint main(int argc, char **argv) {\n"
             "  char p[4096]; long long n, got; FILE *in = fopen(argv[1], \"r\");\n"
             "  if (!in || fscanf(in, \"%%lld\", &n) != 1 || scanf(\"%%lld\", &got) != 1) return 43;\n"
             "  snprintf(p, sizeof p, \"%%sstate\", argv[3]); FILE *st = fopen(p, \"r\");\n"
             "  if (st) return got == 4 * n ? 42 : 43;\n"
             "  if (got != 2 * n) return 43;\n"
             "  st = fopen(p, \"w\"); if (!st) return 1; fputs(\"1\", st); fclose(st);\n"
             "  snprintf(p, sizeof p, \"%%snextpass.in\", argv[3]); FILE *f = fopen(p, \"w\");\n"
             "  if (!f) return 1; fprintf(f, \"%%lld\\n\", got); fclose(f); return 42;\n}\n");
    put_file(dir, "output_validator/build", "gcc -O2 -o run doubling.c\n");
    put_file(dir, "data/secret/1.in", "7\n");
    put_file(dir, "data/secret/1.ans", "\n");
    convert(dir);
    const char *twice = "#include <stdio.h>\nint main(void){long long n;scanf(\"%lld\",&n);"
                        "printf(\"%lld\\n\",2*n);return 0;}\n";
    const char *once = "#include <stdio.h>\nint main(void){long long n;scanf(\"%lld\",&n);"
                       "printf(\"%lld\\n\",n<10?2*n:0);return 0;}\n";
    expect(dir, twice, RUNNER_AC, "build makes run itself (an ELF program)");
    expect(dir, once, RUNNER_WA, "pass 2 fails");
    remove_dir(dir);
    free(dir);
}

/* A build that fails is the problem's fault: IE with the build's output
 * (never a verdict the submission earned), and problem check (what push
 * runs) says the same against the checker's line */
Test(icpc_programs, a_failing_build_is_ie_with_its_output)
{
    char *dir = scratch_dir("prog-badbuild");
    aplusb(dir);
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: A plus B\n");
    put_file(dir, "output_validator/v.cpp", "int main() { return 42 }\n");
    put_file(dir, "output_validator/build", "echo building the validator\ng++ -o run v.cpp\n");
    convert(dir);
    struct judged j = judge(dir, sum);
    cr_expect_eq(j.verdict, RUNNER_IE, "%s", j.json);
    cr_expect(strstr(j.json, "the checker's build script failed"), "%s", j.json);
    cr_expect(strstr(j.json, "building the validator"), "the build's own output: %s", j.json);
    cr_expect(strstr(j.json, "expected ';'"), "the compiler's message: %s", j.json);
    free(j.json);

    struct runner *r = open_runner();
    char *errors = NULL;
    int n = runner_problem_check(r, dir, &errors, NULL);
    runner_close(r);
    cr_expect_eq(n, 1, "%s", errors);
    cr_expect(strstr(errors, "/problem.yaml:") && strstr(errors, "checker.source: ") &&
              strstr(errors, "output_validator/: the checker's build script failed"), "%s", errors);
    free(errors);

    /* a build that makes no run */
    put_file(dir, "output_validator/v.cpp", "int main() { return 42; }\n");
    put_file(dir, "output_validator/build", "g++ -o validator v.cpp\n");
    j = judge(dir, sum);
    cr_expect_eq(j.verdict, RUNNER_IE, "%s", j.json);
    cr_expect(strstr(j.json, "no regular file `run` after its build script ran"), "%s", j.json);
    free(j.json);
    remove_dir(dir);
    free(dir);
}

/* What cannot be one program is refused on conversion, naming the folder:
 * sources of two languages without scripts; several programs in the legacy
 * output_validators/ */
Test(icpc_programs, a_validator_that_is_not_one_program_is_refused)
{
    char *dir = scratch_dir("prog-twolang");
    aplusb(dir);
    put_file(dir, "problem.yaml", "problem_format_version: 2023-07-draft\nname: A plus B\n");
    put_file(dir, "output_validator/a.cpp", "int main() { return 42; }\n");
    put_file(dir, "output_validator/b.py", "print(1)\n");
    char *errors = NULL;
    cr_expect_eq(store_convert(dir, "p", &errors), 1, "%s", errors);
    cr_expect(strstr(errors, "output_validator:0: validation: the validator's sources are of two languages "
                             "(output_validator/a.cpp, output_validator/b.py) and it has no build or run script"),
              "%s", errors);
    free(errors);
    remove_dir(dir);
    free(dir);

    dir = scratch_dir("prog-two");
    aplusb(dir);
    put_file(dir, "problem.yaml", "name: A plus B\nvalidation: custom\n");
    put_file(dir, "output_validators/one/a.cpp", "int main() { return 42; }\n");
    put_file(dir, "output_validators/two/run", "exit 42\n");
    errors = NULL;
    cr_expect_eq(store_convert(dir, "p", &errors), 1, "%s", errors);
    cr_expect(strstr(errors, "output_validators:0: validation: expected one validator program"), "%s", errors);
    free(errors);
    remove_dir(dir);
    free(dir);
}
