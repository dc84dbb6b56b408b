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
 * minimum and the median, and the same programs joined by pipes bare (no
 * sandbox) for scale. Both ends write a line and flush, read a line: what
 * a CMS stub and manager do.
 *
 *   bench-comm [RUNS] [PROCESSES] [SLOT]     (root: it uses the real sandbox)
 */
#include <fcntl.h>
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

/* one judging: the manager's ns per round trip, or -1 */
static double judged_run(const char *dir, int slot)
{
    struct runner_config cfg = {.languages_dir = JUDGED_SOURCE_DIR "/languages", .work_dir = "/tmp/bench-comm-work",
                                .first_slot = slot, .slots = 1};
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

/* child: fds 3 and 4 become r and w (the rest closed), stdin/stderr as
 * given, then prog runs with the /dev/fd paths the runner passes */
static pid_t spawn_with(const char *dir, const char *prog, int r, int w, int in, int err)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    /* each moved out of the way first: a target may be another's number */
    int hr = fcntl(r, F_DUPFD, 100), hw = fcntl(w, F_DUPFD, 100);
    int hi = in >= 0 ? fcntl(in, F_DUPFD, 100) : 0, he = err >= 0 ? fcntl(err, F_DUPFD, 100) : 2;
    if (hr < 0 || hw < 0 || hi < 0 || he < 0 || dup2(hr, 3) < 0 || dup2(hw, 4) < 0 || dup2(hi, 0) < 0 ||
        dup2(he, 2) < 0 || chdir(dir) < 0)
        _exit(126);
    closefrom(5);
    execl(prog, prog, "/dev/fd/3", "/dev/fd/4", (char *)NULL);
    _exit(127);
}

/* the same two programs compiled with gcc and joined by the same pipes,
 * no sandbox */
static double bare_run(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/user.c", dir);
    FILE *f = fopen(path, "w");
    if (!f || fputs(user, f) < 0 || fclose(f) != 0)
        return -1;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && gcc -O2 -o user user.c && gcc -O2 -o manager manager.c", dir);
    if (system(cmd) != 0)
        return -1;
    int to_user[2], to_mgr[2];
    snprintf(path, sizeof path, "%s/tests/1.in", dir);
    int in = open(path, O_RDONLY | O_CLOEXEC);
    snprintf(path, sizeof path, "%s/message", dir);
    int msg = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (in < 0 || msg < 0 || pipe(to_user) < 0 || pipe(to_mgr) < 0)
        return -1;
    pid_t u = spawn_with(dir, "./user", to_user[0], to_mgr[1], -1, -1);
    pid_t m = spawn_with(dir, "./manager", to_mgr[0], to_user[1], in, msg);
    int fds[] = {to_user[0], to_user[1], to_mgr[0], to_mgr[1], in, msg};
    for (size_t i = 0; i < 6; i++)
        close(fds[i]);
    int st;
    if (u < 0 || m < 0 || waitpid(m, &st, 0) < 0 || st != 0 || waitpid(u, &st, 0) < 0)
        return -1;
    f = fopen(path, "r");
    double ns = -1;
    if (f && fscanf(f, "%lf", &ns) != 1)
        ns = -1;
    if (f)
        fclose(f);
    return ns;
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
    char *dir = make_package(processes);
    double *ns = calloc((size_t)runs, sizeof *ns);
    int ok = 0;
    for (int i = 0; i < runs; i++) {
        double v = judged_run(dir, slot);
        printf("run %d: %.0f ns per round trip (%d round trips x %d processes)\n", i + 1, v, ROUND_TRIPS,
               processes);
        if (v > 0)
            ns[ok++] = v;
    }
    if (ok) {
        qsort(ns, (size_t)ok, sizeof *ns, by_value);
        printf("boxed: min %.2f us, median %.2f us per round trip (%d runs)\n", ns[0] / 1e3,
               ns[ok / 2] / 1e3, ok);
    }
    double bare = bare_run(dir);
    printf("bare (the same pipes, no sandbox): %.2f us per round trip\n", bare / 1e3);
    remove_dir(dir);
    free(dir);
    free(ns);
    return ok == runs ? 0 : 1;
}
