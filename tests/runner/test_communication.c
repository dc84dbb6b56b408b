/*
 * test_communication.c - communication problems (issue 43, CMS's
 * Communication task type): the package's manager beside 1..16 processes of
 * the submission, each in its own box, judged through real compilers and
 * the real sandbox. Packages written here: a 2-process task whose
 * submission is linked with a stub (user_io: fifo), a 1-process task in
 * stdio mode; the verdict table (manager's score and message, a process's
 * RE, MLE and TLE, CPU times summed, SIGPIPE after the manager's verdict), and
 * hostile processes contained (fork, looking for the other process's
 * pipes, writing past the manager, never exiting). Needs root.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <errno.h>
#include <sched.h>
#include <sys/stat.h>

#include "../host_load.h"
#include "helpers.h"
#include "runner.h"

#define SRC JUDGED_SOURCE_DIR
/* Slots 880..895: four groups of four (the job's slot and its companion,
 * the manager's box); the user processes past the first run in the job
 * slot's sub-boxes (slot + 1000 k), which no other suite names. */
#define FIRST_SLOT test_slot_group(880, 4, 4)
#define WORK_DIR BIN_DIR "/../runner-communication-work"   /* one per build tree */

struct judged {
    enum runner_verdict verdict;
    double score;
    json_t *json;
    char *text;
};

static struct judged judge(const char *problem, const char *lang, const char *source)
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
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), 0, "%s: %s", lang, err);
    struct judged j = {runner_report_verdict(rep), runner_report_score(rep), NULL, runner_report_json(rep)};
    j.json = json_loads(j.text, 0, NULL);
    cr_assert(j.json, "report JSON: %s", j.text);
    runner_report_free(rep);
    runner_close(r);
    return j;
}

static void judged_free(struct judged *j)
{
    json_decref(j->json);
    free(j->text);
}

static json_t *test_of(const struct judged *j, size_t i)
{
    return json_array_get(json_object_get(j->json, "tests"), i);
}

static const char *message_of(const struct judged *j, size_t i)
{
    const char *m = json_string_value(json_object_get(test_of(j, i), "checker_message"));
    return m ? m : "";
}

/* ---- the 2-process task: a stub holds main, the submission solve() ------ */

/* CMS's manager: for each process i the pipe it reads from i, then the one
 * it writes to i; the input's numbers v[i] go to process i, which must
 * answer v[i] * (i + 2). Score on stdout, message on stderr. */
static const char *const two_manager =
    "#include <stdio.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int n = (argc - 1) / 2;\n"
    "    long v[16];\n"
    "    FILE *from[16], *to[16];\n"
    "    for (int i = 0; i < n; i++)\n"
    "        if (scanf(\"%ld\", &v[i]) != 1) return 1;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        from[i] = fopen(argv[1 + 2 * i], \"r\");\n"
    "        to[i] = fopen(argv[2 + 2 * i], \"w\");\n"
    "        if (!from[i] || !to[i]) return 2;\n"
    "    }\n"
    "    int ok = 1;\n"
    "    for (int i = 0; i < n; i++) {\n"
    "        long got;\n"
    "        fprintf(to[i], \"%ld\\n\", v[i]);\n"
    "        fflush(to[i]);\n"
    "        if (fscanf(from[i], \"%ld\", &got) != 1 || got != v[i] * (i + 2)) {\n"
    "            ok = 0;\n"
    "            fprintf(stderr, \"process %d answered wrong\\n\", i);\n"
    "        }\n"
    "    }\n"
    "    printf(\"%s\\n\", ok ? \"1.0\" : \"0.0\");\n"
    "    if (ok) fprintf(stderr, \"translate:success\\n\");\n"
    "    return 0;\n"
    "}\n";

/* the stub opens the paths it is given (fifo mode) and calls solve() */
static const char *const two_stub =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include \"task.h\"\n"
    "int main(int argc, char **argv) {\n"
    "    if (argc != 4) return 5;\n"
    "    FILE *in = fopen(argv[1], \"r\"), *out = fopen(argv[2], \"w\");\n"
    "    if (!in || !out) return 6;\n"
    "    long x;\n"
    "    if (fscanf(in, \"%ld\", &x) != 1) return 7;\n"
    "    fprintf(out, \"%ld\\n\", solve(x, atoi(argv[3])));\n"
    "    return fclose(out) != 0;\n"
    "}\n";

static char *two_process_task(const char *tag, const char *time_limit)
{
    char *dir = scratch_dir(tag);
    put_file(dir, "problem.yaml",
             "name: %s\ntype: communication\ntime_limit: %s\nmemory_limit: 256M\n"
             /* a wall clock no loaded host runs out of: only CPU time ends a run */
             "wall_time_limit: 30s\nmanager: manager.c\nprocesses: 2\nuser_io: fifo\n"
             "grader:\n  c: [stub/stub.c, stub/task.h]\n", tag, time_limit);
    put_file(dir, "manager.c", "%s", two_manager);
    put_file(dir, "stub/stub.c", "%s", two_stub);
    put_file(dir, "stub/task.h", "long solve(long x, int index);\n");
    put_file(dir, "tests/1.in", "5 7\n");
    put_file(dir, "tests/1.out", "");
    put_file(dir, "tests/2.in", "-3 100\n");
    put_file(dir, "tests/2.out", "");
    return dir;
}

static void done(char *dir)
{
    remove_dir(dir);
    free(dir);
}

Test(two_processes, stub_and_fifos_accepted_each_process_reported, .timeout = 300)
{
    char *dir = two_process_task("comm-two", "1s");
    struct judged j = judge(dir, "c",
                            "#include \"task.h\"\n"
                            "long solve(long x, int index) { return x * (index + 2); }\n");
    cr_expect_eq(j.verdict, RUNNER_AC, "%s", j.text);
    cr_expect_float_eq(j.score, 100, 1e-9, "%s", j.text);
    cr_expect_str_eq(message_of(&j, 0), "translate:success\n", "%s", j.text);
    /* the per-test record names each process: its time, memory, exit */
    json_t *procs = json_object_get(test_of(&j, 0), "processes");
    cr_assert_eq(json_array_size(procs), 3, "%s", j.text);
    const char *names[] = {"user 0", "user 1", "manager"};
    for (size_t i = 0; i < 3; i++) {
        json_t *p = json_array_get(procs, i);
        cr_expect_str_eq(json_string_value(json_object_get(p, "name")), names[i], "%s", j.text);
        cr_expect_str_eq(json_string_value(json_object_get(p, "verdict")), "AC", "%s", j.text);
        cr_expect(json_is_real(json_object_get(p, "cpu_time")), "%s", j.text);
        cr_expect(json_integer_value(json_object_get(p, "memory")) > 0, "%s", j.text);
        cr_expect_eq(json_integer_value(json_object_get(p, "exit_code")), 0, "%s", j.text);
    }
    /* the existing fields stay, the test's CPU time the processes' sum */
    double sum = json_real_value(json_object_get(json_array_get(procs, 0), "cpu_time")) +
                 json_real_value(json_object_get(json_array_get(procs, 1), "cpu_time"));
    cr_expect_float_eq(json_real_value(json_object_get(test_of(&j, 0), "cpu_time")), sum, 1e-6, "%s", j.text);
    judged_free(&j);
    done(dir);
}

Test(two_processes, wrong_answer_is_the_managers_verdict_and_message, .timeout = 300)
{
    char *dir = two_process_task("comm-two-wa", "1s");
    struct judged j = judge(dir, "c",
                            "#include \"task.h\"\n"
                            "long solve(long x, int index) { return index == 1 ? x : x * 2; }\n");
    cr_expect_eq(j.verdict, RUNNER_WA, "%s", j.text);
    cr_expect_str_eq(message_of(&j, 0), "process 1 answered wrong\n", "%s", j.text);
    judged_free(&j);
    done(dir);
}

/* a process that crashes before answering: the manager then reads EOF and
 * scores 0, but the process ended first: its RE is the verdict */
Test(two_processes, a_process_crashing_first_is_re, .timeout = 300)
{
    char *dir = two_process_task("comm-two-re", "1s");
    struct judged j = judge(dir, "c",
                            "#include <stdlib.h>\n"
                            "#include \"task.h\"\n"
                            "long solve(long x, int index) { if (index == 1) exit(3); return x * 2; }\n");
    cr_expect_eq(j.verdict, RUNNER_RE, "%s", j.text);
    cr_expect(strstr(message_of(&j, 0), "process 1") != NULL, "%s", j.text);
    json_t *p1 = json_array_get(json_object_get(test_of(&j, 0), "processes"), 1);
    cr_expect_eq(json_integer_value(json_object_get(p1, "exit_code")), 3, "%s", j.text);
    judged_free(&j);
    done(dir);
}

/* each process has the problem's memory limit in its own box */
Test(two_processes, a_process_over_its_memory_is_mle, .timeout = 300)
{
    char *dir = two_process_task("comm-two-mle", "1s");
    put_file(dir, "problem.yaml",
             "name: mle\ntype: communication\ntime_limit: 1s\nwall_time_limit: 30s\nmemory_limit: 32M\n"
             "manager: manager.c\nprocesses: 2\ngrader:\n  c: [stub/stub.c, stub/task.h]\n");
    struct judged j = judge(dir, "c",
                            "#include <stdlib.h>\n"
                            "#include <string.h>\n"
                            "#include \"task.h\"\n"
                            "long solve(long x, int index) {\n"
                            "    for (int i = 0; index == 1 && i < 96; i++) {\n"
                            "        char *p = malloc(1 << 20);\n"
                            "        if (!p) return 0;\n"
                            "        memset(p, 1, 1 << 20);\n"
                            "    }\n"
                            "    return x * (index + 2);\n"
                            "}\n");
    cr_expect_eq(j.verdict, RUNNER_MLE, "%s", j.text);
    json_t *procs = json_object_get(test_of(&j, 0), "processes");
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(procs, 0), "verdict")), "AC", "%s", j.text);
    cr_expect_str_eq(json_string_value(json_object_get(json_array_get(procs, 1), "verdict")), "MLE", "%s", j.text);
    judged_free(&j);
    done(dir);
}

/* each process stays within its own 1 s, together they do not: CMS sums
 * the processes' CPU times against the time limit */
Test(two_processes, cpu_times_are_summed_against_the_limit, .timeout = 300)
{
    char *dir = two_process_task("comm-two-sum", "1s");
    struct judged j = judge(dir, "c",
                            "#include <time.h>\n"
                            "#include \"task.h\"\n"
                            "long solve(long x, int index) {\n"
                            "    volatile long spin = 0;\n"
                            "    while (clock() < CLOCKS_PER_SEC * 7 / 10) spin++;\n"
                            "    return x * (index + 2);\n"
                            "}\n");
    cr_expect_eq(j.verdict, RUNNER_TLE, "%s", j.text);
    cr_expect(strstr(message_of(&j, 0), "add up to") != NULL, "%s", j.text);
    judged_free(&j);
    done(dir);
}

/* the most processes a problem may have: 16 boxes and the manager's at
 * once, the manager opening all 32 paths */
Test(two_processes, sixteen_processes_each_in_its_box, .timeout = 300)
{
    char *dir = scratch_dir("comm-16");
    put_file(dir, "problem.yaml",
             "name: sixteen\ntype: communication\ntime_limit: 1s\nwall_time_limit: 30s\nmemory_limit: 64M\n"
             "manager: manager.c\nprocesses: 16\ngrader:\n  c: [stub/stub.c, stub/task.h]\n");
    put_file(dir, "manager.c", "%s", two_manager);
    put_file(dir, "stub/stub.c", "%s", two_stub);
    put_file(dir, "stub/task.h", "long solve(long x, int index);\n");
    put_file(dir, "tests/1.in", "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n");
    put_file(dir, "tests/1.out", "");
    struct judged j = judge(dir, "c",
                            "#include \"task.h\"\n"
                            "long solve(long x, int index) { return x * (index + 2); }\n");
    cr_expect_eq(j.verdict, RUNNER_AC, "%s", j.text);
    cr_expect_eq(json_array_size(json_object_get(test_of(&j, 0), "processes")), 17, "%s", j.text);
    judged_free(&j);
    done(dir);
}

/* Four processes served in turn, each computing 0.25 s (1 s of the 1.5 s
 * limit together), while four spinning processes per core crowd every
 * core: the last one is blocked while the others compute and wait for the
 * core, ~4 s of its 4 s wall clock (2 x 1.5 + 1). Those waits are not the
 * submission's doing and do not count (sandbox.c, past_wall: a group's
 * waits); its own CPU time still does. On the old rule: TLE, idle. */
Test(two_processes, peers_waiting_for_a_crowded_core_do_not_spend_a_process_wall_clock, .timeout = 300)
{
    char *dir = scratch_dir("comm-crowded");
    put_file(dir, "problem.yaml",
             "name: crowded\ntype: communication\ntime_limit: 1.5s\nmemory_limit: 64M\n"
             "manager: manager.c\nprocesses: 4\ngrader:\n  c: [stub/stub.c, stub/task.h]\n");
    put_file(dir, "manager.c", "%s", two_manager);
    put_file(dir, "stub/stub.c", "%s", two_stub);
    put_file(dir, "stub/task.h", "long solve(long x, int index);\n");
    put_file(dir, "tests/1.in", "1 2 3 4\n");
    put_file(dir, "tests/1.out", "");
    pid_t hogs[HOST_LOAD_MAX_SPINNERS];
    int nhogs = host_load_crowd(hogs);
    cr_assert_gt(nhogs, 0, "fork: %s", strerror(errno));
    struct judged j = judge(dir, "c",
                            "#include <time.h>\n"
                            "#include \"task.h\"\n"
                            "long solve(long x, int index) {\n"
                            "    volatile long spin = 0;\n"
                            "    while (clock() < CLOCKS_PER_SEC / 4) spin++;\n"
                            "    return x * (index + 2);\n"
                            "}\n");
    host_load_uncrowd(hogs, nhogs);
    cr_expect_eq(j.verdict, RUNNER_AC, "%s", j.text);
    judged_free(&j);
    done(dir);
}

/* Where the boxes ran: the manager sends each process the CPUs it may run
 * on (a mask), and wants back that mask times index + 2 from a process
 * whose own mask is the same; its message says who ran where. */
static const char *const placement_manager =
    "#define _GNU_SOURCE\n"
    "#include <sched.h>\n"
    "#include <stdio.h>\n"
    "static long mask(void) {\n"
    "    cpu_set_t s;\n"
    "    long m = 0;\n"
    "    if (sched_getaffinity(0, sizeof s, &s) < 0) return -1;\n"
    "    for (int c = 0; c < 62; c++) if (CPU_ISSET(c, &s)) m |= 1L << c;\n"
    "    return m;\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "    long mine = mask();\n"
    "    int ok = __builtin_popcountl(mine) == 1;\n"
    "    fprintf(stderr, \"manager on CPUs %lx\", mine);\n"
    "    for (int i = 0; i < (argc - 1) / 2; i++) {\n"
    "        FILE *from = fopen(argv[1 + 2 * i], \"r\"), *to = fopen(argv[2 + 2 * i], \"w\");\n"
    "        long got;\n"
    "        if (!from || !to) return 2;\n"
    "        fprintf(to, \"%ld\\n\", mine);\n"
    "        fflush(to);\n"
    "        if (fscanf(from, \"%ld\", &got) != 1) return 3;\n"
    "        ok &= got == mine * (i + 2);\n"
    "        fprintf(stderr, \", process %d on %lx\", i, got == mine * (i + 2) ? mine : -got);\n"
    "    }\n"
    "    printf(\"%s\\n\", ok ? \"1\" : \"0\");\n"
    "    return 0;\n"
    "}\n";

/* A runner that pins nothing (judgectl judge, as here) still runs all
 * the boxes of a communication test on one CPU, the same for all: every
 * round trip then wakes its peer on the CPU it is on, not across CPUs
 * (bench-comm: 3x-5x cheaper on this kind of VM). judged pins them so. */
Test(two_processes, an_unpinned_runner_keeps_the_boxes_on_one_cpu, .timeout = 300)
{
    cpu_set_t here;
    cr_assert_eq(sched_getaffinity(0, sizeof here, &here), 0);
    if (CPU_COUNT(&here) < 2)
        cr_skip_test("one CPU here: nothing to place");
    char *dir = scratch_dir("comm-place");
    put_file(dir, "problem.yaml",
             "name: place\ntype: communication\ntime_limit: 1s\nwall_time_limit: 30s\nmemory_limit: 64M\n"
             "manager: manager.c\nprocesses: 3\ngrader:\n  c: [stub/stub.c, stub/task.h]\n");
    put_file(dir, "manager.c", "%s", placement_manager);
    put_file(dir, "stub/stub.c", "%s", two_stub);
    put_file(dir, "stub/task.h", "long solve(long x, int index);\n");
    put_file(dir, "tests/1.in", "\n");
    put_file(dir, "tests/1.out", "");
    struct judged j = judge(dir, "c",
                            "#define _GNU_SOURCE\n#include <sched.h>\n#include \"task.h\"\n"
                            "long solve(long x, int index) {\n"
                            "    cpu_set_t s;\n"
                            "    long m = 0;\n"
                            "    sched_getaffinity(0, sizeof s, &s);\n"
                            "    for (int c = 0; c < 62; c++) if (CPU_ISSET(c, &s)) m |= 1L << c;\n"
                            "    return m == x ? x * (index + 2) : -m;\n"
                            "}\n");
    cr_expect_eq(j.verdict, RUNNER_AC, "not all on one CPU: %s (%s)", message_of(&j, 0), j.text);
    judged_free(&j);
    done(dir);
}

/* the manager's own failure is the problem's: IE, whatever the processes did */
Test(two_processes, a_manager_without_a_score_is_ie, .timeout = 300)
{
    char *dir = two_process_task("comm-mgr-ie", "1s");
    put_file(dir, "manager.c",
             "#include <stdio.h>\n"
             "int main(int argc, char **argv) {\n"
             "    FILE *to = fopen(argv[2], \"w\");\n"
             "    fprintf(to, \"1\\n\");\n"
             "    fclose(to);\n"
             "    printf(\"maybe\\n\");\n"
             "    return 0;\n"
             "}\n");
    struct judged j = judge(dir, "c",
                            "#include \"task.h\"\n"
                            "long solve(long x, int index) { return x * (index + 2); }\n");
    cr_expect_eq(j.verdict, RUNNER_IE, "%s", j.text);
    cr_expect(strstr(message_of(&j, 0), "not a score 0..1") != NULL, "%s", j.text);
    judged_free(&j);
    done(dir);
}

/* ---- hostile processes, contained -------------------------------------- */

/* a process forks a child that holds its pipe and lives on: the box ends
 * with its program, the child with it, and the test with the manager's
 * verdict */
Test(hostile, a_forked_child_dies_with_its_box, .timeout = 300)
{
    char *dir = two_process_task("comm-fork", "1s");
    struct judged j = judge(dir, "c",
                            "#include <unistd.h>\n"
                            "#include \"task.h\"\n"
                            "long solve(long x, int index) {\n"
                            "    if (fork() == 0) for (;;) pause();\n"
                            "    return x * (index + 2);\n"
                            "}\n");
    cr_expect_eq(j.verdict, RUNNER_AC, "%s", j.text);
    judged_free(&j);
    done(dir);
}

/* process 1 looks for any pipe it does not hold itself (the other
 * process's, the manager's) through every process /proc shows it, and
 * answers wrong if it can open one */
Test(hostile, a_process_finds_no_other_pipe, .timeout = 300)
{
    char *dir = two_process_task("comm-snoop", "1s");
    struct judged j = judge(dir, "c",
                            "#include <dirent.h>\n"
                            "#include <fcntl.h>\n"
                            "#include <stdio.h>\n"
                            "#include <stdlib.h>\n"
                            "#include <string.h>\n"
                            "#include <unistd.h>\n"
                            "#include \"task.h\"\n"
                            "static int others(void) {\n"
                            "    int found = 0;\n"
                            "    char self[32], path[300];\n"
                            "    snprintf(self, sizeof self, \"%d\", (int)getpid());\n"
                            "    DIR *proc = opendir(\"/proc\");\n"
                            "    struct dirent *e;\n"
                            "    while (proc && (e = readdir(proc)))\n"
                            "        if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && strcmp(e->d_name, self)) {\n"
                            "            snprintf(path, sizeof path, \"/proc/%s/fd/3\", e->d_name);\n"
                            "            int fd = open(path, O_RDONLY | O_NONBLOCK);\n"
                            "            if (fd >= 0) { found++; close(fd); }\n"
                            "        }\n"
                            "    return found;\n"
                            "}\n"
                            "long solve(long x, int index) {\n"
                            "    if (index == 1 && others()) return -1;\n"
                            "    return x * (index + 2);\n"
                            "}\n");
    cr_expect_eq(j.verdict, RUNNER_AC, "%s", j.text);
    judged_free(&j);
    done(dir);
}

/* never exits: past its own CPU limit it is TLE, and the manager, reading
 * EOF, still ends by itself (it is not killed by its own clock) */
Test(hostile, a_process_that_never_exits_is_tle, .timeout = 300)
{
    char *dir = two_process_task("comm-loop", "1s");
    struct judged j = judge(dir, "c",
                            "#include \"task.h\"\n"
                            "long solve(long x, int index) {\n"
                            "    volatile long spin = 0;\n"
                            "    if (index == 0) for (;;) spin++;\n"
                            "    return x * 3;\n"
                            "}\n");
    cr_expect_eq(j.verdict, RUNNER_TLE, "%s", j.text);
    cr_expect(strstr(message_of(&j, 0), "process 0") != NULL, "%s", j.text);
    json_t *mgr = json_array_get(json_object_get(test_of(&j, 0), "processes"), 2);
    cr_expect_str_eq(json_string_value(json_object_get(mgr, "verdict")), "AC", "%s", j.text);
    judged_free(&j);
    done(dir);
}

/* ---- the 1-process task in stdio mode ---------------------------------- */

/* the manager asks the squares of the input's numbers (read from
 * input.txt, CMS's copy of the input in its working dir), one at a time, on
 * the process's stdin, then sends 0 and gives its verdict */
static char *stdio_task(const char *tag)
{
    char *dir = scratch_dir(tag);
    put_file(dir, "problem.yaml",
             "name: %s\ntype: communication\ntime_limit: 1s\nwall_time_limit: 30s\nmemory_limit: 256M\n"
             "manager: {source: manager.cpp, flags: [-O2]}\nuser_io: stdio\n", tag);
    put_file(dir, "manager.cpp",
             "#include <cstdio>\n"
             "int main(int argc, char **argv) {\n"
             "    if (argc != 3) return 9;\n"
             "    FILE *from = std::fopen(argv[1], \"r\"), *to = std::fopen(argv[2], \"w\");\n"
             "    if (!from || !to) return 2;\n"
             "    long x, got;\n"
             "    FILE *input = std::fopen(\"input.txt\", \"r\");   // CMS's copy of the input\n"
             "    if (!input) return 3;\n"
             "    while (std::fscanf(input, \"%%ld\", &x) == 1) {\n"
             "        std::fprintf(to, \"%%ld\\n\", x);\n"
             "        std::fflush(to);\n"
             "        if (std::fscanf(from, \"%%ld\", &got) != 1 || got != x * x) {\n"
             "            std::printf(\"0\\n\");\n"
             "            std::fprintf(stderr, \"wrong square of %%ld\\n\", x);\n"
             "            return 0;\n"
             "        }\n"
             "    }\n"
             "    std::fprintf(to, \"0\\n\");\n"
             "    std::fflush(to);\n"
             "    std::printf(\"1\\n\");\n"
             "    std::fprintf(stderr, \"all squares right\\n\");\n"
             "}\n");
    put_file(dir, "tests/1.in", "3 4 12\n");
    put_file(dir, "tests/1.out", "");
    return dir;
}

static const char *const squares =
    "#include <stdio.h>\n"
    "int main(void) {\n"
    "    long x;\n"
    "    while (scanf(\"%ld\", &x) == 1 && x != 0) {\n"
    "        printf(\"%ld\\n\", x * x);\n"
    "        fflush(stdout);\n"
    "    }\n"
    "    return 0;\n"
    "}\n";

Test(stdio, one_process_on_stdin_and_stdout_accepted, .timeout = 300)
{
    char *dir = stdio_task("comm-stdio");
    /* what a platform is shown of it: a scored communication problem */
    char *summary = NULL, err[512];
    cr_assert_eq(runner_problem_summary(NULL, dir, &summary, err, sizeof err), 0, "%s", err);
    cr_expect(strstr(summary, "\"type\":\"communication\"") && strstr(summary, "\"scoring\":\"score\""), "%s",
              summary);
    free(summary);
    struct judged j = judge(dir, "c", squares);
    cr_expect_eq(j.verdict, RUNNER_AC, "%s", j.text);
    cr_expect_str_eq(message_of(&j, 0), "all squares right\n", "%s", j.text);
    cr_expect_eq(json_array_size(json_object_get(test_of(&j, 0), "processes")), 2, "%s", j.text);
    judged_free(&j);
    /* an interpreted language's process, the same way */
    j = judge(dir, "python3",
              "import sys\n"
              "for line in sys.stdin:\n"
              "    x = int(line)\n"
              "    if x == 0:\n"
              "        break\n"
              "    print(x * x, flush=True)\n");
    cr_expect_eq(j.verdict, RUNNER_AC, "python3: %s", j.text);
    judged_free(&j);
    done(dir);
}

/* it writes on past the manager's verdict: the manager has ended, so the
 * SIGPIPE that kills the process is no failure */
Test(hostile, writing_past_the_manager_is_no_failure, .timeout = 300)
{
    char *dir = stdio_task("comm-past");
    struct judged j = judge(dir, "c",
                            "#include <stdio.h>\n"
                            "int main(void) {\n"
                            "    long x;\n"
                            "    while (scanf(\"%ld\", &x) == 1 && x != 0) {\n"
                            "        printf(\"%ld\\n\", x * x);\n"
                            "        fflush(stdout);\n"
                            "    }\n"
                            "    for (;;) { printf(\"flood\\n\"); fflush(stdout); }\n"
                            "}\n");
    cr_expect_eq(j.verdict, RUNNER_AC, "%s", j.text);
    json_t *user = json_array_get(json_object_get(test_of(&j, 0), "processes"), 0);
    cr_expect_eq(json_integer_value(json_object_get(user, "signal")), 13, "SIGPIPE: %s", j.text);
    judged_free(&j);
    done(dir);
}

/* ---- the package's keys ------------------------------------------------- */

/* problem check's errors; summary (may be NULL) gets its summary line */
static char *check_errors_summary(const char *yaml, char **summary)
{
    char *dir = scratch_dir("comm-keys");
    put_file(dir, "problem.yaml", "%s", yaml);
    put_file(dir, "manager.c", "int main(void) { return 0; }\n");
    put_file(dir, "tests/1.in", "1\n");
    put_file(dir, "tests/1.out", "");
    char *errors = NULL;
    runner_problem_check_limits(NULL, dir, &errors, summary);
    done(dir);
    return errors ? errors : strdup("");
}

static char *check_errors(const char *yaml)
{
    return check_errors_summary(yaml, NULL);
}

Test(keys, bad_communication_keys_name_their_line)
{
    const char *head = "name: k\ntime_limit: 1s\nmemory_limit: 64M\n";
    struct { const char *yaml, *expect; } cases[] = {
        {"type: communication\n", "problem.yaml:4: manager: missing (a communication problem needs one)"},
        {"type: communication\nmanager: manager.c\nprocesses: 17\n", "problem.yaml:6: processes: 17 is more than 16"},
        {"type: communication\nmanager: manager.c\nprocesses: 0\n", "problem.yaml:6: processes:"},
        {"type: communication\nmanager: manager.c\nuser_io: pipes\n",
         "problem.yaml:6: user_io: unknown user_io 'pipes' (fifo, stdio)"},
        {"manager: manager.c\n", "problem.yaml:4: manager: only a communication problem (type: communication) has one"},
        {"processes: 2\n", "problem.yaml:4: processes: only a communication problem"},
        {"type: communication\nmanager: {source: manager.c, protocol: kattis}\n",
         "problem.yaml:5: protocol: unknown key in manager (source, flags, args, time_limit, memory_limit)"},
        {"type: communication\nmanager: manager.c\nchecker: tokens\n", "problem.yaml:6: checker: the manager"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml, "%s%s", head, cases[i].yaml);
        char *errors = check_errors(yaml);
        cr_expect(strstr(errors, cases[i].expect) != NULL, "case %zu: expected '%s' in:\n%s", i, cases[i].expect,
                  errors);
        free(errors);
    }
    char *summary = NULL;
    char *fine = check_errors_summary("name: k\ntime_limit: 1s\nmemory_limit: 64M\ntype: communication\n"
                                      "manager: {source: manager.c, time_limit: 5s, memory_limit: 128M}\n"
                                      "processes: 16\nuser_io: stdio\n", &summary);
    cr_expect_str_eq(fine, "", "%s", fine);
    cr_expect(summary && strstr(summary, "manager manager.c, 16 processes (stdio)"), "%s", summary);
    free(fine);
    free(summary);
}
