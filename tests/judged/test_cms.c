/* test_cms.c - CMS task packages (issue 43) as olympiads keep them, with
 * real parts: the packages of tests/judged/cms/ (written for these tests
 * from CMS's and TPS's documented layouts, not copies of real tasks) judged
 * unchanged by `judgectl judge --problem DIR` in real sandboxes, verified
 * with their own solutions by `judgectl problem verify`, pushed unchanged
 * with `judgectl problem push` into a private redis-server and judged by
 * judged. The conversions of task types the runner gets beside this work
 * (OutputOnly, Communication, TwoSteps) and of GroupMul/GroupThreshold are
 * checked on the problem.yaml they produce; bad packages are refused
 * naming file, line and key.
 * A Communication task of 16 processes is judged under stress-ng --cpu 2.
 * Sandbox slots 260..269 (judge 260..263, judged 260..261, push and verify
 * 266..267; the tests run one at a time). */
#include <jansson.h>
#pragma GCC diagnostic ignored "-Wunused-function" /* harness.h has more than this suite uses */
#include <math.h>

#include "../host_load.h"
#include "harness.h"
#include "runner.h"
#include "store.h"

#define SLOT_JUDGE 260
#define SLOT_PUSH "266"

static void setup(void)
{
    t_setup(1);
}

static void teardown(void)
{
    t_teardown();
}

TestSuite(cms, .init = setup, .fini = teardown, .timeout = 600);

struct expected {
    const char *package, *file, *lang, *verdict;
    double score;
};

/* Judges each file with judgectl judge --problem DIR (the package as it
 * is) and checks verdict and score; returns the last report's JSON. */
static void judge_each(const struct expected *want, size_t n)
{
    char cfg[400], dirp[600], src[700], slot_s[16];
    t_config("A", SLOT_JUDGE, NULL, "  native: {languages: [c, cpp, answers], slots: 1}\n", cfg, sizeof cfg);
    snprintf(slot_s, sizeof slot_s, "%d", SLOT_JUDGE);
    static char out[262144];
    for (size_t i = 0; i < n; i++) {
        snprintf(dirp, sizeof dirp, "%s/%s", CMS_DIR, want[i].package);
        snprintf(src, sizeof src, "%s/%s", CMS_DIR, want[i].file);
        int rc = t_ctl(out, sizeof out, cfg, "judge", "--problem", dirp, "--lang", want[i].lang, "--slot", slot_s,
                       "--json", src, NULL);
        cr_assert_eq(rc, 0, "%s: exit %d\n%s", want[i].file, rc, out);
        json_error_t jerr;
        json_t *rep = json_loads(out, 0, &jerr);
        cr_assert(rep, "%s: %s\n%s", want[i].file, jerr.text, out);
        const char *verdict = json_string_value(json_object_get(rep, "verdict"));
        double score = json_number_value(json_object_get(rep, "score"));
        cr_assert(verdict && !strcmp(verdict, want[i].verdict) && fabs(score - want[i].score) < 1e-9,
                  "%s: %s %g, expected %s %g\n%s", want[i].file, verdict, score, want[i].verdict, want[i].score, out);
        json_decref(rep);
    }
}

/* Graders in C++, Python, Java and Pascal with the submission named after
 * the task (addup.cpp, the module addup, the class addup, the unit addup),
 * gen/GEN's "#ST:" and "# ST:" markers as
 * GroupMin subtasks (40 + 60), an int sum right only on the first. */
Test(cms, a_task_with_graders_and_gen_subtasks_is_judged_unchanged)
{
    static const struct expected want[] = {
        {"addup", "addup/sol/addup.cpp", "cpp", "AC", 100},
        {"addup", "addup/sol/addup.py", "python3", "AC", 100},
        {"addup", "addup-extra/addup.java", "java", "AC", 100},
        {"addup", "addup-extra/addup.pas", "pascal", "AC", 100},   /* a unit the grader uses */
        {"addup", "addup-extra/overflow.cpp", "cpp", "WA", 40},
    };
    judge_each(want, sizeof want / sizeof *want);
}

/* A Communication task (cor/manager.c; CMS's default std_io, one
 * process): the manager feeds the numbers and wants them doubled, the
 * official solution passes, one wrong on negatives scores the positive
 * test only (Sum: 50 each). An OutputOnly task: answer files named as CMS
 * names them (output_000.txt ...), a directory of them submitted in the
 * language answers, compared with the outputs: two of three missing or
 * wrong score 30 of 90. */
Test(cms, communication_and_output_only_tasks_are_judged_unchanged)
{
    static const struct expected want[] = {
        {"echoer", "echoer/sol/echoer.c", "c", "AC", 100},
        {"echoer", "echoer-extra/wrong_on_negatives.c", "c", "WA", 50},
        {"answers", "answers-extra/all", "answers", "AC", 90},
        {"answers", "answers-extra/partial", "answers", "WA", 30},
    };
    judge_each(want, sizeof want / sizeof *want);
}

/* CMS's Communication at its most processes, 16 on FIFOs (fifo_io, each
 * given its index), judged while stress-ng takes both cores: the manager
 * serves the processes one after the other, each burning 20 ms of CPU
 * (0.3 s together, against the 1 s the processes' sum may use), so the
 * last waits for the 15 before it on a crowded host. The official
 * solution is AC and one wrong in process 15 alone WA, as on a quiet host. */
Test(cms, sixteen_fifo_processes_on_a_busy_host_are_judged_as_on_a_quiet_one)
{
    static const struct expected want[] = {
        {"relay16", "relay16/sol/relay16.c", "c", "AC", 100},
        {"relay16", "relay16-extra/last_one_wrong.c", "c", "WA", 0},
    };
    pid_t stress = host_load_stress_start();
    cr_assert_gt(stress, 0, "stress-ng is missing (.ci/install-deps) or fork failed");
    judge_each(want, sizeof want / sizeof *want);
    host_load_stress_stop(stress);
}

/* Old Italian keys (nome_breve, timeout, memlimit), a checker in cor/
 * speaking CMS's protocol (half a point per line: partial scores), Sum of
 * total_value / n_input; the test's input is also input.txt in the working
 * directory although the task reads stdin, as CMS gives it. */
Test(cms, a_cms_checker_scores_parts_and_input_txt_is_there)
{
    static const struct expected want[] = {
        {"duet", "duet/sol/duet.c", "c", "AC", 100},
        {"duet", "duet-extra/input_txt.c", "c", "AC", 100},
        {"duet", "duet-extra/sum_only.c", "c", "WA", 62.5},   /* 3 x 25 x 0.5 + 25 (product 0 is right) */
    };
    judge_each(want, sizeof want / sizeof *want);
}

/* infile/outfile: the program reads copia.in and writes copia.out; an
 * answer on stdout is not read (CMS reads only the file). A TPS export:
 * problem.json (memory in bytes, task_type_params a JSON string),
 * overlapping subtasks/NAME.json test lists, a testlib checker in CMS mode,
 * graders/. */
Test(cms, file_io_and_a_tps_export_are_judged_unchanged)
{
    static const struct expected want[] = {
        {"copia", "copia/sol/soluzione.py", "python3", "AC", 100},
        {"copia", "copia-stdout.py", "python3", "WA", 0},
        {"maxpair", "maxpair/solutions/maxpair.cpp", "cpp", "AC", 100},
        {"maxpair", "maxpair/solutions/int_sum.cpp", "cpp", "WA", 30},
    };
    judge_each(want, sizeof want / sizeof *want);
}

/* CMS's GroupMul (the runner's aggregate: mul): duet with one subtask of
 * its 4 tests, sum_only.c's halves multiply (0.5 x 0.5 x 1 x 0.5), where
 * GroupMin gives the smallest (0.5) */
Test(cms, group_mul_multiplies_the_fractions)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cp -r '%s/duet' '%s/duetmul' && cp -r '%s/duet' '%s/duetmin' && "
             "printf 'score_type: GroupMul\nscore_type_parameters: [[100, 4]]\n' >> '%s/duetmul/task.yaml' && "
             "printf 'score_type: GroupMin\nscore_type_parameters: [[100, 4]]\n' >> '%s/duetmin/task.yaml' && "
             "mkdir -p '%s/extra' && cp '%s/duet-extra/sum_only.c' '%s/extra/'",
             CMS_DIR, T_dir, CMS_DIR, T_dir, T_dir, T_dir, T_dir, CMS_DIR, T_dir);
    cr_assert_eq(system(cmd), 0);
    char cfg[400], dirp[600], src[700], out[65536];
    t_config("A", SLOT_JUDGE, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    snprintf(src, sizeof src, "%s/extra/sum_only.c", T_dir);
    const char *names[] = {"duetmul", "duetmin"};
    const double want[] = {12.5, 50};
    for (int i = 0; i < 2; i++) {
        snprintf(dirp, sizeof dirp, "%s/%s", T_dir, names[i]);
        int rc = t_ctl(out, sizeof out, cfg, "judge", "--problem", dirp, "--lang", "c", "--slot", "260", "--json",
                       src, NULL);
        cr_assert_eq(rc, 0, "%s: %s", names[i], out);
        json_t *rep = json_loads(out, 0, NULL);
        cr_assert(rep, "%s", out);
        double score = json_number_value(json_object_get(rep, "score"));
        cr_assert(fabs(score - want[i]) < 1e-9, "%s: %g, expected %g\n%s", names[i], score, want[i], out);
        json_decref(rep);
    }
}

/* problem verify judges the official solutions (sol/, TPS's solutions/
 * with solutions.json's verdicts) at the package's own time limit. */
Test(cms, problem_verify_judges_the_official_solutions)
{
    char cfg[400], dirp[600], want[100];
    t_config("A", SLOT_JUDGE, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    static char out[262144];
    const char *names[] = {"addup", "duet", "copia", "maxpair"};
    const int counts[] = {2, 1, 1, 2};
    for (int i = 0; i < 4; i++) {
        snprintf(dirp, sizeof dirp, "%s/%s", CMS_DIR, names[i]);
        /* the default workdir, as judge's above: C++'s prepared header
         * built once on a host, not once per test (15 s each, loaded) */
        int rc = t_ctl(out, sizeof out, cfg, "problem", "verify", dirp, "--slot", SLOT_PUSH, NULL);
        cr_assert_eq(rc, 0, "%s: exit %d\n%s", names[i], rc, out);
        snprintf(want, sizeof want, "%d submission%s: %d as expected, 0 mismatches", counts[i], counts[i] > 1 ? "s" : "",
                 counts[i]);
        cr_assert(strstr(out, want) && strstr(out, "(the package's)"), "%s: %s", names[i], out);
    }
    cr_assert(strstr(out, "submissions/wrong_answer/int_sum.cpp"), "TPS's 'incorrect': %s", out);
}

static double score_of(const char *id)
{
    char *s = t_hget(id, "score");
    double v = s ? strtod(s, NULL) : -1;
    free(s);
    return v;
}

/* push takes the directory as the task's repository holds it; the stored
 * version keeps task.yaml, gen/GEN and sol/ beside the converted
 * problem.yaml; judged judges submissions against it. */
Test(cms, pushed_unchanged_and_judged_by_judged)
{
    char cfg[400], out[16384], p[700], id[160];
    t_config("A", SLOT_JUDGE, NULL, "  native: {languages: [c, cpp, answers], slots: 1}\n", cfg, sizeof cfg);
    const char *names[] = {"addup", "maxpair"};
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", CMS_DIR, names[i]);
        int rc = t_ctl(out, sizeof out, cfg, "problem", "push", p, "--name", names[i], "--json", "--slot", SLOT_PUSH,
                       NULL);
        cr_assert_eq(rc, 0, "%s: %s", names[i], out);
    }
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "show", "addup", "--json", NULL), 0, "%s", out);
    cr_assert(strstr(out, "task.yaml") && strstr(out, "gen/GEN") && strstr(out, "problem.yaml") &&
              strstr(out, "submissions/accepted/addup.cpp"), "%s", out);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    snprintf(p, sizeof p, "%s/addup-extra/overflow.cpp", CMS_DIR);
    cr_assert_eq(t_submit(cfg, "addup", "cpp", p, NULL, NULL, id, sizeof id), 0, "%s", id);
    cr_assert(t_wait_state(id, "done", 120000), "%s judged", id);
    char *verdict = t_hget(id, "verdict");
    cr_assert(verdict && !strcmp(verdict, "WA") && score_of(id) == 40, "%s %g", verdict, score_of(id));
    free(verdict);
    snprintf(p, sizeof p, "%s/maxpair/solutions/maxpair.cpp", CMS_DIR);
    cr_assert_eq(t_submit(cfg, "maxpair", "cpp", p, NULL, NULL, id, sizeof id), 0, "%s", id);
    cr_assert(t_wait_state(id, "done", 120000), "%s judged", id);
    verdict = t_hget(id, "verdict");
    cr_assert(verdict && !strcmp(verdict, "AC") && score_of(id) == 100, "%s %g", verdict, score_of(id));
    free(verdict);
}

/* A package as its repository keeps it when cmsMake makes the tests:
 * gen/GEN with "#ST:" markers and a "#COPY:" line, a C++ generator, a C
 * validator, sol/soluzione.cpp, and no input/ nor output/. push runs them
 * in the sandbox, verifies the official solution on what they made, and
 * judged judges against the stored version: an int sum right only on the
 * small subtask scores its 30. */
Test(cms, generated_tests_are_made_at_push_verified_and_judged)
{
    char cfg[400], p[700], id[160];
    static char out[65536];
    t_config("A", SLOT_JUDGE, NULL, "  native: {languages: [c, cpp], slots: 1}\n", cfg, sizeof cfg);
    snprintf(p, sizeof p, "%s/gensum", CMS_DIR);
    int rc = t_ctl(out, sizeof out, cfg, "problem", "push", p, "--verify", "--json", "--slot", SLOT_PUSH, NULL);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "show", "gensum", "--json", NULL), 0, "%s", out);
    cr_assert(strstr(out, "input/input3.txt") && strstr(out, "output/output3.txt") && strstr(out, "gen/GEN"), "%s",
              out);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    snprintf(p, sizeof p, "%s/gensum-extra/int_sum.c", CMS_DIR);
    cr_assert_eq(t_submit(cfg, "gensum", "c", p, NULL, NULL, id, sizeof id), 0, "%s", id);
    cr_assert(t_wait_state(id, "done", 120000), "%s judged", id);
    char *verdict = t_hget(id, "verdict");
    cr_assert(verdict && !strcmp(verdict, "WA") && score_of(id) == 30, "%s %g", verdict, score_of(id));
    free(verdict);
}

/* ---- conversions alone (no sandbox): what problem.yaml says ---- */

static char conv_dir[300];

static void conv_setup(void)
{
    snprintf(conv_dir, sizeof conv_dir, "/tmp/judged-cms-XXXXXX");
    cr_assert(mkdtemp(conv_dir));
}

static void conv_teardown(void)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", conv_dir);
    if (system(cmd)) {
    }
}

TestSuite(cms_convert, .init = conv_setup, .fini = conv_teardown);

/* Writes FILE (a path below the package NAME) with text. */
static void put(const char *name, const char *file, const char *text)
{
    char path[700], cmd[800];
    snprintf(path, sizeof path, "%s/%s/%s", conv_dir, name, file);
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
    cr_assert_eq(system(cmd), 0);
    FILE *f = fopen(path, "w");
    cr_assert(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* Tests input/inputN.txt, output/outputN.txt (0..n-1) of package NAME. */
static void put_tests(const char *name, int n)
{
    for (int i = 0; i < n; i++) {
        char in[64], out[64];
        snprintf(in, sizeof in, "input/input%d.txt", i);
        snprintf(out, sizeof out, "output/output%d.txt", i);
        put(name, in, "1\n");
        put(name, out, "1\n");
    }
}

/* Converts package NAME; its problem.yaml (static), or the errors when
 * the conversion refused it (*failed). */
static const char *convert(const char *name, bool *failed)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/%s", conv_dir, name);
    char *notes = NULL;
    int n = store_convert(dir, name, &notes);
    static char text[65536];
    *failed = n != 0;
    if (n) {
        snprintf(text, sizeof text, "%s", notes ? notes : "");
        free(notes);
        return text;
    }
    free(notes);
    char path[500];
    snprintf(path, sizeof path, "%s/problem.yaml", dir);
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = 0;
    fclose(f);
    return text;
}

/* output_only: the runner's output-only type, answers named as CMS names
 * them (output_000.txt ...), judged by the checker; no limits needed. */
Test(cms_convert, output_only_becomes_the_output_only_type)
{
    put("oo", "task.yaml", "name: oo\ntitle: Answers only\noutput_only: true\n");
    put_tests("oo", 3);
    put("oo", "check/checker.cpp", "int main() { return 0; }\n");
    bool failed;
    const char *y = convert("oo", &failed);
    cr_assert(!failed, "%s", y);
    cr_assert(strstr(y, "type: output-only\nanswer_file: \"output_{index}.txt\"\n"), "%s", y);
    cr_assert(strstr(y, "checker: {type: custom, source: \"check/checker.cpp\", protocol: cms}"), "%s", y);
    cr_assert(!strstr(y, "input_file") && !strstr(y, "grader:"), "%s", y);
}

/* A manager (check/manager.cpp): Communication with num_processes and
 * user_io, the stubs (sol/stub.*) compiled with the submission. */
Test(cms_convert, a_manager_makes_a_communication_task)
{
    put("comm", "task.yaml", "name: comm\ntime_limit: 2\nmemory_limit: 128\nnum_processes: 2\nuser_io: fifo_io\n");
    put_tests("comm", 2);
    put("comm", "check/manager.cpp", "int main() { return 0; }\n");
    put("comm", "sol/stub.cpp", "int main() { return 0; }\n");
    put("comm", "sol/comm.h", "void play(int);\n");
    bool failed;
    const char *y = convert("comm", &failed);
    cr_assert(!failed, "%s", y);
    cr_assert(strstr(y, "type: communication\nmanager: \"check/manager.cpp\"\nprocesses: 2\nuser_io: fifo\n"), "%s",
              y);
    cr_assert(strstr(y, "  cpp: {files: [\"sol/comm.h\", \"sol/stub.cpp\"], source: \"comm.cpp\"}"), "%s", y);
    cr_assert(strstr(y, "time_limit: 2s\nmemory_limit: 134217728\n") && !strstr(y, "input_file"), "%s", y);
    cr_assert(!strstr(y, "checker:"), "the manager decides, no checker: %s", y);

    /* one process in std_io mode (CMS's default) */
    put("comm1", "task.yaml", "name: comm1\ntime_limit: 1\nmemory_limit: 64\n");
    put_tests("comm1", 1);
    put("comm1", "cor/manager.c", "int main(void) { return 0; }\n");
    y = convert("comm1", &failed);
    cr_assert(!failed, "%s", y);
    cr_assert(strstr(y, "manager: \"cor/manager.c\"\nprocesses: 1\nuser_io: stdio\n"), "%s", y);
}

/* TPS: TwoSteps is Communication with 2 processes over FIFOs; memory in
 * bytes; task_type_params a JSON string. */
Test(cms_convert, tps_two_steps_and_communication)
{
    put("two", "problem.json",
        "{\"name\": \"two\", \"title\": \"Two steps\", \"type\": \"TwoSteps\", \"time_limit\": 1.5, "
        "\"memory_limit\": 268435456}\n");
    put("two", "tests/1-01.in", "1\n");
    put("two", "tests/1-01.out", "1\n");
    put("two", "manager/manager.cpp", "int main() { return 0; }\n");
    bool failed;
    const char *y = convert("two", &failed);
    cr_assert(!failed, "%s", y);
    cr_assert(strstr(y, "type: communication\nmanager: \"manager/manager.cpp\"\nprocesses: 2\nuser_io: fifo\n"
                        "time_limit: 1.5s\nmemory_limit: 268435456\n"), "%s", y);

    put("three", "problem.json",
        "{\"name\": \"three\", \"type\": \"Communication\", \"time_limit\": 1, \"memory_limit\": 268435456, "
        "\"task_type_params\": \"{\\\"task_type_parameters_Communication_num_processes\\\": 3, "
        "\\\"task_type_parameters_Communication_user_io\\\": \\\"std_io\\\"}\"}\n");
    put("three", "tests/a.in", "1\n");
    put("three", "tests/a.out", "1\n");
    put("three", "graders/manager.cpp", "int main() { return 0; }\n");
    put("three", "graders/grader.cpp", "int main() { return 0; }\n");   /* TPS names the stub so */
    y = convert("three", &failed);
    cr_assert(!failed, "%s", y);
    cr_assert(strstr(y, "processes: 3\nuser_io: stdio\n"), "%s", y);
    cr_assert(strstr(y, "  cpp: {files: [\"graders/grader.cpp\"], source: \"three.cpp\"}"), "%s", y);

    /* OutputOnly; a memory limit under 1 MiB is TPS's own MiB */
    put("oo", "problem.json", "{\"name\": \"oo\", \"type\": \"OutputOnly\", \"memory_limit\": 256}\n");
    put("oo", "tests/1.in", "1\n");
    put("oo", "tests/1.out", "1\n");
    y = convert("oo", &failed);
    cr_assert(!failed, "%s", y);
    cr_assert(strstr(y, "type: output-only\nanswer_file: \"output_{index}.txt\"\n"), "%s", y);
    put("mib", "problem.json", "{\"name\": \"mib\", \"time_limit\": 1, \"memory_limit\": 256}\n");
    put("mib", "tests/1.in", "1\n");
    put("mib", "tests/1.out", "1\n");
    y = convert("mib", &failed);
    cr_assert(!failed, "%s", y);
    cr_assert(strstr(y, "memory_limit: 268435456\ninput_file: \"input.txt\"\n"), "%s", y);
}

/* GroupMul and GroupThreshold: the runner's subtask aggregate keys; tests
 * picked by count or by a regular expression over the codenames. */
Test(cms_convert, group_score_types_become_aggregates)
{
    put("mul", "task.yaml", "name: mul\ntime_limit: 1\nmemory_limit: 64\nscore_type: GroupMul\n"
                            "score_type_parameters: [[30, 2], [70, \"00[23]\"]]\n");
    put_tests("mul", 4);
    bool failed;
    const char *y = convert("mul", &failed);
    cr_assert(!failed, "%s", y);
    cr_assert(strstr(y, "  - {name: \"subtask1\", points: 30, tests: [\"000\", \"001\"], aggregate: mul}\n"
                        "  - {name: \"subtask2\", points: 70, tests: [\"002\", \"003\"], aggregate: mul}\n"), "%s", y);

    put("thr", "task.yaml", "name: thr\ntime_limit: 1\nmemory_limit: 64\nscore_type: GroupThreshold\n"
                            "score_type_parameters: [[100, 3, 0.5]]\n");
    put_tests("thr", 3);
    y = convert("thr", &failed);
    cr_assert(!failed, "%s", y);
    cr_assert(strstr(y, "points: 100, tests: [\"000\", \"001\", \"002\"], aggregate: {threshold: 0.5}}"), "%s", y);

    /* no GEN, no score_type: Sum, total_value / n_input each */
    put("sum", "task.yaml", "name: sum\ntime_limit: 1\nmemory_limit: 64\ntotal_value: 60\n");
    put_tests("sum", 3);
    y = convert("sum", &failed);
    cr_assert(!failed, "%s", y);
    cr_assert(strstr(y, "  - {name: \"002\", points: 20, tests: [\"002\"]}\n"), "%s", y);
}

/* Bad packages: every error names file, line and key; nothing converted. */
Test(cms_convert, bad_packages_are_refused_naming_file_line_and_key)
{
    put("bad", "task.yaml", "name: bad\ntimeout: soon\nmemlimit: 64\nfrobnicate: 1\nscore_type: GroupMax\n");
    put_tests("bad", 1);
    bool failed;
    const char *y = convert("bad", &failed);
    cr_assert(failed);
    cr_assert(strstr(y, "task.yaml:2: timeout:") && strstr(y, "task.yaml:4: frobnicate: unknown key of task.yaml"),
              "%s", y);

    put("st", "task.yaml", "name: st\ntime_limit: 1\nmemory_limit: 64\nscore_type: GroupMax\n");
    put_tests("st", 1);
    y = convert("st", &failed);
    cr_assert(failed && strstr(y, "task.yaml:4: score_type: 'GroupMax' is not one of CMS's"), "%s", y);

    /* a score type's parameters are read after the keys: their errors are
     * the conversion's too (fuzz_cms: they went to a list gone out of
     * scope, and the package was converted without that subtask) */
    put("thr", "task.yaml", "name: thr\ntime_limit: 1\nmemory_limit: 64\nscore_type: GroupThreshold\n"
                            "score_type_parameters: [[100, 3, 0)5]]\n");
    put_tests("thr", 3);
    y = convert("thr", &failed);
    cr_assert(failed && strstr(y, "task.yaml:5: score_type_parameters:"), "%s", y);

    /* a subtask of no test (the runner's subtask needs one; fuzz_cms) */
    put("empty", "task.yaml", "name: empty\ntime_limit: 1\nmemory_limit: 64\n");
    put("empty", "gen/GEN", "#ST: 50\n#ST: 50\n1\n");
    put_tests("empty", 1);
    y = convert("empty", &failed);
    cr_assert(failed && strstr(y, "gen/GEN:0: ST: subtask 1 (worth 50) has no tests after its marker"), "%s", y);
    put("none", "task.yaml", "name: none\ntime_limit: 1\nmemory_limit: 64\nscore_type: GroupMin\n"
                             "score_type_parameters: [[100, \"9.*\"]]\n");
    put_tests("none", 1);
    y = convert("none", &failed);
    cr_assert(failed && strstr(y, "task.yaml:5: score_type_parameters: this subtask selects no test"), "%s", y);

    /* inputs the generator makes are not in the package: said, with what to push */
    put("gen", "task.yaml", "name: gen\ntime_limit: 1\nmemory_limit: 64\n");
    put("gen", "gen/GEN", "#ST: 100\n1 2\n3 4\n");
    put_tests("gen", 1);
    y = convert("gen", &failed);
    cr_assert(failed && strstr(y, "input/input1.txt:0: (package): test 1: input/input1.txt is missing; gen/GEN's "
                                  "generator runs on push only for a package holding none of the inputs"), "%s", y);
    /* none of them: made by the generator, which needs the sandbox judge-api has not */
    put("gen2", "task.yaml", "name: gen2\ntime_limit: 1\nmemory_limit: 64\n");
    put("gen2", "gen/GEN", "#ST: 100\n1 2\n3 4\n");
    put("gen2", "gen/generatore.py", "print(1)\n");
    y = convert("gen2", &failed);
    cr_assert(failed && strstr(y, "gen/GEN:0: (generator): the package's tests are made by its generator, which runs "
                                  "in the sandbox, and there is none here (judge-api runs none; judgectl needs root "
                                  "and the sandbox); push it with `judgectl problem push`"), "%s", y);

    /* a compiled checker without its source */
    put("bin", "task.yaml", "name: bin\ntime_limit: 1\nmemory_limit: 64\n");
    put_tests("bin", 1);
    put("bin", "check/checker", "\x7f" "ELF");
    y = convert("bin", &failed);
    cr_assert(failed && strstr(y, "check/checker:0: (package): a compiled program without its source"), "%s", y);

    /* a name that would leave the working directory */
    put("io", "task.yaml", "name: io\ntime_limit: 1\nmemory_limit: 64\ninfile: ../etc/passwd\n");
    put_tests("io", 1);
    y = convert("io", &failed);
    cr_assert(failed && strstr(y, "task.yaml:4: infile: '../etc/passwd' is not a plain file name"), "%s", y);

    /* TPS: JSON errors name the file and line */
    put("tps", "problem.json", "{\"name\": \"tps\",\n \"type\": \"Batch\",\n \"time_limit\": }\n");
    y = convert("tps", &failed);
    cr_assert(failed && strstr(y, "problem.json:3: (json):"), "%s", y);
}

/* ---- generators run by the conversion, in real boxes (in-process runner) ----
 * A package holding gen/GEN and no tests has them made at push by its
 * generator, validator and official solution (judgectl push above; here
 * an in-process runner with small limits: a Python generator, a solution
 * with its grader, failing and hostile generators), in the suite's slots
 * 268..269. */

#define SLOT_TOOLS 268   /* the runner's one slot (and its companion, 269) */
#define TOOLS_WORK BIN_DIR "/../cms-tools-work"   /* one per build tree */

static struct runner *tools_runner;

static int tool_build(void *ctx, const char *dir, const char *source, const char *what, void **tool, char *msg,
                   size_t len)
{
    struct runner_tool *t = NULL;
    int rc = runner_tool_build(ctx, dir, source, what, &t, msg, len);
    *tool = t;
    return rc;
}

static int tool_run(void *ctx, void *tool, char *const *args, const char *in, const char *in_name, const char *out,
                 const char *out_name, const struct store_tool_limits *lim, char *msg, size_t len)
{
    (void)ctx;
    struct runner_tool_limits l = {.cpu_time = lim->cpu_time, .memory = lim->memory, .output = lim->output,
                                   .submission = lim->submission};
    return runner_tool_run(tool, args, in, in_name, out, out_name, &l, msg, len);
}

static void tool_release(void *ctx, void *tool)
{
    (void)ctx;
    runner_tool_free(tool);
}

/* Converts package NAME running its programs, the generator's limits
 * small (1 s of CPU, 64 MiB, 1 MiB of output): a hostile one is stopped
 * at once. */
static const char *convert_running(const char *name, bool *failed)
{
    struct runner_config cfg = {.languages_dir = JUDGED_SOURCE_DIR "/languages", .work_dir = TOOLS_WORK,
                                .first_slot = SLOT_TOOLS, .slots = 1};
    char err[4096];
    cr_assert_eq(runner_open(&tools_runner, &cfg, err, sizeof err), 0, "runner_open: %s", err);
    struct store_tools tools = {.ctx = tools_runner, .build = tool_build, .run = tool_run, .release = tool_release,
                                .generator = {.cpu_time = 1, .memory = 64 << 20, .output = 1 << 20}};
    char dir[400];
    snprintf(dir, sizeof dir, "%s/%s", conv_dir, name);
    char *notes = NULL;
    int n = store_convert_tools(dir, name, &tools, &notes);
    runner_close(tools_runner);
    static char text[65536];
    *failed = n != 0;
    snprintf(text, sizeof text, "%s", notes ? notes : "");
    free(notes);
    return text;
}

/* The content of FILE of package NAME (static). */
static const char *file_of(const char *name, const char *file)
{
    static char text[4096];
    char path[700];
    snprintf(path, sizeof path, "%s/%s/%s", conv_dir, name, file);
    FILE *f = fopen(path, "r");
    text[0] = 0;
    if (f) {
        text[fread(text, 1, sizeof text - 1, f)] = 0;
        fclose(f);
    }
    return f ? text : NULL;
}

/* A Python generator (gen/generatore.py), no validator, a C solution
 * reading input.txt and writing output.txt (CMS's default file I/O): the
 * inputs are the generator's stdout, the outputs the file the solution
 * wrote; problem.yaml lists them under the "#ST:" subtasks. */
Test(cms_convert, a_python_generator_and_file_io_solution_make_the_tests)
{
    put("py", "task.yaml", "name: py\ntime_limit: 1\nmemory_limit: 64\n");
    put("py", "gen/GEN", "#ST: 40\n1 2\n#ST: 60\n30 12\n");
    put("py", "gen/generatore.py", "import sys\na, b = map(int, sys.argv[1:])\nprint(a, b)\n");
    put("py", "sol/soluzione.c", "#include <stdio.h>\nint main(void) { long a, b; FILE *i = fopen(\"input.txt\", "
                                 "\"r\"), *o = fopen(\"output.txt\", \"w\");\n if (!i || !o || fscanf(i, \"%ld %ld\", "
                                 "&a, &b) != 2) return 1;\n fprintf(o, \"%ld\\n\", a + b); return 0; }\n");
    bool failed;
    const char *y = convert_running("py", &failed);
    cr_assert(!failed, "%s", y);
    cr_assert_str_eq(file_of("py", "input/input1.txt"), "30 12\n");
    cr_assert_str_eq(file_of("py", "output/output0.txt"), "3\n");
    cr_assert_str_eq(file_of("py", "output/output1.txt"), "42\n");
    const char *yaml = file_of("py", "problem.yaml");
    cr_assert(yaml && strstr(yaml, "points: 40, tests: [\"000\"]") && strstr(yaml, "points: 60, tests: [\"001\"]"),
              "%s", yaml);
}

/* An IOI-style task: the official solution is a function the grader
 * (sol/grader.c, sol/twice.h) calls; CMS compiles it with the grader,
 * named after the task, and so are the outputs made. The directory they
 * were put together in is gone afterwards. */
Test(cms_convert, a_solution_with_its_grader_makes_the_outputs)
{
    put("twice", "task.yaml", "name: twice\ntime_limit: 1\nmemory_limit: 64\ninfile: \"\"\noutfile: \"\"\n");
    put("twice", "gen/GEN", "#ST: 100\n21\n-4\n");
    put("twice", "gen/generatore.py", "import sys\nprint(sys.argv[1])\n");
    put("twice", "sol/twice.h", "long twice(long x);\n");
    put("twice", "sol/grader.c", "#include <stdio.h>\n#include \"twice.h\"\nint main(void) { long x; "
                                 "if (scanf(\"%ld\", &x) != 1) return 1; printf(\"%ld\\n\", twice(x)); return 0; }\n");
    put("twice", "sol/soluzione.c", "#include \"twice.h\"\nlong twice(long x) { return 2 * x; }\n");
    bool failed;
    const char *y = convert_running("twice", &failed);
    cr_assert(!failed, "%s", y);
    cr_assert_str_eq(file_of("twice", "output/output0.txt"), "42\n");
    cr_assert_str_eq(file_of("twice", "output/output1.txt"), "-8\n");
    cr_assert_null(file_of("twice", "judged-cms/solution/twice.c"));
}

/* A generator that fails on one line of GEN, and a validator refusing
 * what another line made (told the test's subtask, as task-maker tells
 * it): each error names GEN's line and the program's own message;
 * nothing is converted. */
Test(cms_convert, a_failing_generator_or_validator_names_the_gen_line)
{
    put("bad", "task.yaml", "name: bad\ntime_limit: 1\nmemory_limit: 64\ninfile: \"\"\noutfile: \"\"\n");
    put("bad", "gen/GEN", "# N\n#ST: 100\n3\nthree\n");
    put("bad", "gen/generatore.py", "import sys\nn = int(sys.argv[1])\nprint(n)\n");
    put("bad", "sol/soluzione.py", "print(input())\n");
    bool failed;
    const char *y = convert_running("bad", &failed);
    cr_assert(failed && strstr(y, "gen/GEN:4: (generator): test 1 (gen/generatore.py: three): the generator exited "
                                  "with code 1; its stderr: ValueError: invalid literal for int()"), "%s", y);
    cr_assert_null(file_of("bad", "problem.yaml"));

    put("val", "task.yaml", "name: val\ntime_limit: 1\nmemory_limit: 64\ninfile: \"\"\noutfile: \"\"\n");
    put("val", "gen/GEN", "#ST: 50\n5\n#ST: 50\n0\n");
    put("val", "gen/generatore.py", "import sys\nprint(sys.argv[1])\n");
    put("val", "gen/valida.py", "import sys\nif int(open(sys.argv[1]).read()) < 1:\n    sys.exit('N must be at "
                                "least 1 (subtask %s)' % sys.argv[2])\n");
    put("val", "sol/soluzione.py", "print(input())\n");
    y = convert_running("val", &failed);
    cr_assert(failed && strstr(y, "gen/GEN:4: (validator): test 1: gen/valida.py refused input/input1.txt: the "
                                  "validator exited with code 1; its stderr: N must be at least 1 (subtask 2)"), "%s",
              y);
}

/* Hostile generators, one GEN line each: a fork bomb, endless output, a
 * connection out, sleeping forever, eating memory, writing control
 * characters and bytes that are no UTF-8 on stderr. Each is contained by its box (no
 * network, its processes, CPU, wall clock and output bounded) and the
 * package refused naming the line and the limit. */
Test(cms_convert, a_hostile_generator_is_contained_and_refused)
{
    static const char hostile[] =
        "#include <arpa/inet.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
        "#include <sys/socket.h>\n"
        "#include <unistd.h>\n"
        "int main(int argc, char **argv) {\n"
        "  if (argc < 2) return 9;\n"
        "  if (!strcmp(argv[1], \"fork\")) for (;;) fork();\n"
        "  if (!strcmp(argv[1], \"output\")) for (;;) fputs(\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\\n\", stdout);\n"
        "  if (!strcmp(argv[1], \"sleep\")) for (;;) pause();\n"
        "  if (!strcmp(argv[1], \"junk\")) { fputs(\"\\x1b[31m\\xff\\xfe bad\\n\", stderr); return 4; }\n"
        "  if (!strcmp(argv[1], \"memory\")) for (;;) { char *p = malloc(1 << 20); if (p) memset(p, 1, 1 << 20); }\n"
        "  if (!strcmp(argv[1], \"network\")) {\n"
        "    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(80)};\n"
        "    inet_pton(AF_INET, \"1.1.1.1\", &a.sin_addr);\n"
        "    int s = socket(AF_INET, SOCK_STREAM, 0);\n"
        "    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a)) { perror(\"connect\"); return 3; }\n"
        "    puts(\"connected\");\n"
        "  }\n"
        "  return 0;\n}\n";
    static const struct {
        const char *mode, *said;
    } cases[] = {
        {"fork", "the generator: TLE"},
        {"output", "the generator: OLE"},
        {"sleep", "the generator: TLE"},
        {"memory", "the generator: MLE"},
        {"junk", "exited with code 4; its stderr: ?[31m?? bad"},   /* shown as text */
        {"network", "exited with code 3; its stderr: connect: "},   /* no network in the box */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char name[32], gen[64];
        snprintf(name, sizeof name, "h-%s", cases[i].mode);
        snprintf(gen, sizeof gen, "#ST: 100\n%s\n", cases[i].mode);
        put(name, "task.yaml", "name: h\ntime_limit: 1\nmemory_limit: 64\n");
        put(name, "gen/GEN", gen);
        put(name, "gen/generatore.c", hostile);
        put(name, "sol/soluzione.py", "print(input())\n");
        bool failed;
        const char *y = convert_running(name, &failed);
        cr_assert(failed && strstr(y, "gen/GEN:2: (generator): test 0") && strstr(y, cases[i].said), "%s: %s",
                  cases[i].mode, y);
        cr_assert_null(file_of(name, "problem.yaml"), "%s", cases[i].mode);
    }
}
