/*
 * bench_comm.c - bench-comm: what a communication problem's round trip
 * costs (issue 43; CMS warns that its FIFO traffic can dominate a task).
 *
 * A communication package whose manager sends each process a number and
 * reads back that number plus one, ROUND_TRIPS times, is judged RUNS times
 * through the runner (each process and the manager in its own box, joined
 * by the pipes the runner passes them). The manager times its own loop
 * (first write to last read, CLOCK_MONOTONIC) and reports the time per
 * round trip as its message; the bench prints every run's figure, the
 * minimum and the median; then the same manager and as many processes
 * joined by pipes bare (no sandbox), as many times, for scale. Both ends
 * write a line and flush, read a line: what a CMS stub and manager do.
 *
 *   bench-comm [RUNS] [PROCESSES] [SLOT]     (root: it uses the real sandbox)
 */
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "runner.h"

#define ROUND_TRIPS 100000

/* argv: FROM_0 TO_0 FROM_1 TO_1 ...; stdin: the number of round trips */
static const char manager[] =
    "#include <stdio.h>\n"
    "#include <time.h>\n"
    "int main(int argc, char **argv) {\n"
    "    int n = (argc - 1) / 2;\n"
    "    long rounds;\n"
    "    FILE *from[16], *to[16];\n"
    "    if (n < 1 || n > 16 || scanf(\"%ld\", &rounds) != 1) return 1;\n"
    "    for (int i = 0; i < n; i++)\n"
    "        if (!(from[i] = fopen(argv[1 + 2 * i], \"r\")) || !(to[i] = fopen(argv[2 + 2 * i], \"w\"))) return 2;\n"
    "    struct timespec a, b;\n"
    "    clock_gettime(CLOCK_MONOTONIC, &a);\n"
    "    for (long r = 0; r < rounds; r++)\n"
    "        for (int i = 0; i < n; i++) {\n"
    "            long got;\n"
    "            fprintf(to[i], \"%ld\\n\", r);\n"
    "            fflush(to[i]);\n"
    "            if (fscanf(from[i], \"%ld\", &got) != 1 || got != r + 1) {\n"
    "                printf(\"0\\n\");\n"
    "                fprintf(stderr, \"round trip %ld of process %d went wrong\\n\", r, i);\n"
    "                return 0;\n"
    "            }\n"
    "        }\n"
    "    clock_gettime(CLOCK_MONOTONIC, &b);\n"
    "    double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);\n"
    "    printf(\"1\\n\");\n"
    "    fprintf(stderr, \"%.1f\\n\", ns / ((double)rounds * n));\n"
    "    return 0;\n"
    "}\n";

/* argv: READ WRITE [INDEX] */
static const char user[] =
    "#include <stdio.h>\n"
    "int main(int argc, char **argv) {\n"
    "    if (argc < 3) return 5;\n"
    "    FILE *in = fopen(argv[1], \"r\"), *out = fopen(argv[2], \"w\");\n"
    "    long x;\n"
    "    if (!in || !out) return 6;\n"
    "    while (fscanf(in, \"%ld\", &x) == 1) {\n"
    "        fprintf(out, \"%ld\\n\", x + 1);\n"
    "        fflush(out);\n"
    "    }\n"
    "    return 0;\n"
    "}\n";

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static char *make_package(int processes)
{
    char *dir = scratch_dir("bench-comm");
    put_file(dir, "problem.yaml",
             "name: roundtrips\ntype: communication\ntime_limit: 30s\nmemory_limit: 256M\n"
             "manager: {source: manager.c, time_limit: 60s}\nprocesses: %d\nuser_io: fifo\n", processes);
    put_file(dir, "manager.c", "%s", manager);
    put_file(dir, "tests/1.in", "%d\n", ROUND_TRIPS);
    put_file(dir, "tests/1.out", "");
    return dir;
}

/* one judging: the manager's ns per round trip, or -1; cpu >= 0: the
 * slot pinned to that CPU, as judged pins each of its slots (its config's
 * cpus), -1: not pinned, as judgectl judge runs */
static double judged_run(const char *dir, int slot, int cpu)
{
    struct runner_config cfg = {.languages_dir = JUDGED_SOURCE_DIR "/languages", .work_dir = "/tmp/bench-comm-work",
                                .first_slot = slot, .slots = 1, .cpus = cpu >= 0 ? &cpu : NULL};
    struct runner *r = NULL;
    char err[1024];
    if (runner_open(&r, &cfg, err, sizeof err) < 0) {
        fprintf(stderr, "runner_open: %s\n", err);
        exit(1);
    }
    struct runner_request req = {.problem_dir = dir, .language = "c", .source = user, .source_len = strlen(user)};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    double ns = -1;
    if (runner_judge(r, &req, &rep, &failure, err, sizeof err) < 0) {
        fprintf(stderr, "runner_judge: %s\n", err);
    } else {
        char *json = runner_report_json(rep);
        const char *m = json ? strstr(json, "\"checker_message\":\"") : NULL;
        if (runner_report_verdict(rep) == RUNNER_AC && m)
            ns = strtod(m + strlen("\"checker_message\":\""), NULL);
        else
            fprintf(stderr, "not AC: %s\n", json ? json : "?");
        free(json);
    }
    runner_report_free(rep);
    runner_close(r);
    return ns;
}

/* child: fds[k] becomes fd 3 + k (the rest closed), stdin, stdout and
 * stderr as given (-1: kept), on CPU cpu alone (-1: any), then prog runs
 * with args (the /dev/fd paths the runner passes) */
static pid_t spawn_with(const char *dir, const char *prog, const int *fds, int count, const int std[3], int cpu,
                        char *const *args)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    /* each moved out of the way first: a target may be another's number */
    int high[2 * 16];
    for (int k = 0; k < count; k++)
        if ((high[k] = fcntl(fds[k], F_DUPFD, 100)) < 0)
            _exit(126);
    for (int k = 0; k < 3; k++) {
        int h = std[k] >= 0 ? fcntl(std[k], F_DUPFD, 100) : k;
        if (h < 0 || dup2(h, k) < 0)
            _exit(126);
    }
    if (chdir(dir) < 0)
        _exit(126);
    for (int k = 0; k < count; k++)
        if (dup2(high[k], 3 + k) < 0)
            _exit(126);
    closefrom(3 + count);
    if (cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (sched_setaffinity(0, sizeof one, &one) < 0)
            _exit(126);
    }
    execv(prog, args);
    _exit(127);
}

/* the same two programs compiled with gcc, for bare_run */
static int build_bare(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/user.c", dir);
    FILE *f = fopen(path, "w");
    if (!f || fputs(user, f) < 0 || fclose(f) != 0)
        return -1;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && gcc -O2 -o user user.c && gcc -O2 -o manager manager.c", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* the same programs joined by the same pipes, no sandbox: the manager and
 * `processes` users, as the runner joins them, all on CPU cpu (-1: any) */
static double bare_run(const char *dir, int processes, int cpu)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/1.in", dir);
    int in = open(path, O_RDONLY | O_CLOEXEC);
    snprintf(path, sizeof path, "%s/message", dir);
    int msg = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    /* [i]: manager to user i, [processes + i]: user i to manager */
    int pipes[32][2], mgr_fds[32];
    char *mgr_args[34] = {"./manager"}, *user_args[] = {"./user", "/dev/fd/3", "/dev/fd/4", NULL};
    for (int i = 0; i < 2 * processes; i++)
        if (pipe2(pipes[i], O_CLOEXEC) < 0)
            return -1;
    pid_t users[16];
    for (int i = 0; i < processes; i++) {
        int mine[2] = {pipes[i][0], pipes[processes + i][1]};
        users[i] = spawn_with(dir, "./user", mine, 2, (const int[3]){-1, -1, -1}, cpu, user_args);
        mgr_fds[2 * i] = pipes[processes + i][0];
        mgr_fds[2 * i + 1] = pipes[i][1];
        char a[32], b[32];
        snprintf(a, sizeof a, "/dev/fd/%d", 3 + 2 * i);
        snprintf(b, sizeof b, "/dev/fd/%d", 4 + 2 * i);
        mgr_args[1 + 2 * i] = strdup(a);
        mgr_args[2 + 2 * i] = strdup(b);
    }
    mgr_args[1 + 2 * processes] = NULL;
    /* its score on stdout is not ours to print */
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    pid_t m = in < 0 || msg < 0 || null < 0 ? -1
                                            : spawn_with(dir, "./manager", mgr_fds, 2 * processes,
                                                         (const int[3]){in, null, msg}, cpu, mgr_args);
    if (null >= 0)
        close(null);
    for (int i = 0; i < 2 * processes; i++)
        close(pipes[i][0]), close(pipes[i][1]);
    for (int i = 1; i <= 2 * processes; i++)
        free(mgr_args[i]);
    if (in >= 0)
        close(in);
    if (msg >= 0)
        close(msg);
    int st, rc = m < 0 || waitpid(m, &st, 0) < 0 || st != 0 ? -1 : 0;
    for (int i = 0; i < processes; i++)
        if (users[i] < 0 || waitpid(users[i], NULL, 0) < 0)
            rc = -1;
    FILE *f = rc < 0 ? NULL : fopen(path, "r");
    double ns = -1;
    if (f && fscanf(f, "%lf", &ns) != 1)
        ns = -1;
    if (f)
        fclose(f);
    return ns;
}

/* the ways one test is run: boxed as judged pins it, boxed as judgectl
 * judge runs it, and the same programs bare, on one CPU and on any */
struct mode {
    char what[64];
    bool boxed;
    int cpu;
    double ns[100];
    int ok;
};

/* "WHAT: min ..., median ..." of the mode's figures (sorted here) */
static void summary(struct mode *m, int runs)
{
    qsort(m->ns, (size_t)m->ok, sizeof *m->ns, by_value);
    if (m->ok)
        printf("%s: min %.2f us, median %.2f us per round trip (%d runs)\n", m->what, m->ns[0] / 1e3,
               m->ns[m->ok / 2] / 1e3, m->ok);
    if (m->ok < runs)
        printf("%s: %d of %d runs failed\n", m->what, runs - m->ok, runs);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    int processes = argc > 2 ? atoi(argv[2]) : 1;
    int slot = argc > 3 ? atoi(argv[3]) : 896;
    if (runs < 1 || runs > 100 || processes < 1 || processes > 16) {
        fprintf(stderr, "usage: bench-comm [RUNS 1..100] [PROCESSES 1..16] [SLOT]\n");
        return 2;
    }
    /* judged pins its k-th slot to the k-th of its CPUs: the first we may use */
    cpu_set_t mine;
    int cpu = 0;
    if (sched_getaffinity(0, sizeof mine, &mine) == 0)
        while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &mine))
            cpu++;
    static struct mode modes[4];
    modes[0] = (struct mode){.boxed = true, .cpu = cpu};
    snprintf(modes[0].what, sizeof modes[0].what, "boxed, the slot on CPU %d (judged)", cpu);
    modes[1] = (struct mode){"boxed, not pinned (judgectl judge)", true, -1, {0}, 0};
    modes[2] = (struct mode){.boxed = false, .cpu = cpu};
    snprintf(modes[2].what, sizeof modes[2].what, "bare, all on CPU %d", cpu);
    modes[3] = (struct mode){"bare, not pinned", false, -1, {0}, 0};
    char *dir = make_package(processes);
    if (build_bare(dir) < 0) {
        fprintf(stderr, "bare: cannot build the programs\n");
        return 1;
    }
    /* each round runs every mode once: a shared host's load, which drifts,
     * then weighs on all of them alike */
    for (int i = 0; i < runs; i++)
        for (int k = 0; k < 4; k++) {
            struct mode *m = &modes[k];
            double v = m->boxed ? judged_run(dir, slot, m->cpu) : bare_run(dir, processes, m->cpu);
            printf("%s, run %d: %.0f ns per round trip (%d round trips x %d processes)\n", m->what, i + 1, v,
                   ROUND_TRIPS, processes);
            if (v > 0)
                m->ns[m->ok++] = v;
        }
    int failed = 0;
    for (int k = 0; k < 4; k++) {
        summary(&modes[k], runs);
        failed += modes[k].ok < runs;
    }
    remove_dir(dir);
    free(dir);
    return failed ? 1 : 0;
}
