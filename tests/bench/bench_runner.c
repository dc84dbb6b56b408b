/*
 * bench_runner.c - bench-runner: what the pipeline costs per test.
 *
 * Judges an A+B solution in C against a 20-test package ROUNDS times and,
 * for every test, compares the host wall time the pipeline spent on it
 * (fresh box, copy of the binary, sandbox run, built-in checker, report
 * bookkeeping) with the program's own wall time as the sandbox measured it.
 * The median difference is the per-test overhead; the target is <= 3 ms.
 * For scale it also times the same binary run bare (posix_spawn + wait, no
 * sandbox) and reports the pipeline's cost over that.
 *
 *   bench-runner [ROUNDS] [SLOT]      (root: it uses the real sandbox)
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "helpers.h"
#include "runner.h"

#define TESTS 20
#define TARGET_MS 3.0

static const char solution[] =
    "#include <stdio.h>\nint main(void){long long a,b;"
    "if(scanf(\"%lld %lld\",&a,&b)!=2)return 1;printf(\"%lld\\n\",a+b);return 0;}\n";

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *make_package(void)
{
    char *dir = scratch_dir("bench");
    put_file(dir, "problem.yaml", "name: aplusb\ntime_limit: 1s\nmemory_limit: 256M\n"
             "checker: tokens\n");
    for (int i = 1; i <= TESTS; i++) {
        char in[32], out[32];
        snprintf(in, sizeof in, "tests/%d.in", i);
        snprintf(out, sizeof out, "tests/%d.out", i);
        put_file(dir, in, "%d %d\n", i * 1000, -i);
        put_file(dir, out, "%d\n", i * 1000 - i);
    }
    return dir;
}

/* median wall time of running the solution bare on test 1, in ms */
static double bare_run_ms(const char *pkg, int runs)
{
    char *src = NULL, *bin = NULL, *cmd = NULL, *in = NULL;
    if (asprintf(&src, "%s/bare.c", pkg) < 0 || asprintf(&bin, "%s/bare", pkg) < 0 ||
        asprintf(&cmd, "gcc -O2 -o %s %s", bin, src) < 0 || asprintf(&in, "%s/tests/1.in", pkg) < 0)
        return -1;
    put_file(pkg, "bare.c", "%s", solution);
    double *t = calloc((size_t)runs, sizeof *t), result = -1;
    if (system(cmd) == 0) {
        for (int i = 0; i < runs; i++) {
            posix_spawn_file_actions_t fa;
            posix_spawn_file_actions_init(&fa);
            posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
            posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
            char *const args[] = {bin, NULL};
            pid_t pid;
            double started = now();
            if (posix_spawn(&pid, bin, &fa, NULL, args, NULL) == 0)
                waitpid(pid, NULL, 0);
            t[i] = (now() - started) * 1e3;
            posix_spawn_file_actions_destroy(&fa);
        }
        result = median(t, (size_t)runs);
    }
    free(t);
    free(src);
    free(bin);
    free(cmd);
    free(in);
    return result;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || atoi(argv[i]) <= 0) {
            fprintf(strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? stderr : stdout,
                    "%s", "usage: bench-runner [ROUNDS [SLOT]]\n  per-test overhead of the pipeline on A+B in C (20 tests), ROUNDS times\n  (default 10), in sandbox slot SLOT (default 990)\n");
            return strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? 2 : 0;
        }
    int rounds = argc > 1 ? atoi(argv[1]) : 10, slot = argc > 2 ? atoi(argv[2]) : 990;
    char *pkg = make_package();
    struct runner_config cfg = {.languages_dir = JUDGED_SOURCE_DIR "/languages",
                                .work_dir = "/tmp/bench-runner-work", .first_slot = slot,
                                .slots = 1};
    struct runner *r;
    char err[4096];
    if (runner_open(&r, &cfg, err, sizeof err) < 0) {
        fprintf(stderr, "bench-runner: %s\n", err);
        return 1;
    }
    size_t cap = (size_t)rounds * TESTS, n = 0;
    double *overhead = calloc(cap, sizeof *overhead), *pipeline = calloc(cap, sizeof *pipeline);
    double *program = calloc(cap, sizeof *program), *judge_wall = calloc((size_t)rounds, sizeof(double));
    struct runner_request req = {.problem_dir = pkg, .language = "c", .source = solution,
                                 .source_len = strlen(solution)};
    for (int k = 0; k < rounds; k++) {
        struct runner_report *rep;
        enum runner_failure failure;
        double started = now();
        if (runner_judge(r, &req, &rep, &failure, err, sizeof err) < 0) {
            fprintf(stderr, "bench-runner: %s\n", err);
            return 1;
        }
        judge_wall[k] = now() - started;
        if (runner_report_verdict(rep) != RUNNER_AC) {
            fprintf(stderr, "bench-runner: verdict %s\n", runner_verdict_name(runner_report_verdict(rep)));
            return 1;
        }
        for (size_t i = 0; i < runner_report_test_count(rep); i++) {
            double p, w;
            if (runner_report_test_times(rep, i, &p, &w) == 0) {
                pipeline[n] = p * 1e3;
                program[n] = w * 1e3;
                overhead[n++] = (p - w) * 1e3;
            }
        }
        runner_report_free(rep);
    }
    double med_overhead = median(overhead, n), bare = bare_run_ms(pkg, 200);
    double med_pipeline = median(pipeline, n);
    printf("bench-runner: A+B in C, %d tests x %d rounds (%zu test runs)\n", TESTS, rounds, n);
    printf("  per test, pipeline wall (median):      %7.3f ms\n", med_pipeline);
    printf("  per test, program's own wall (median): %7.3f ms\n", median(program, n));
    printf("  per test, pipeline overhead (median):  %7.3f ms   (p90 %.3f ms)\n", med_overhead,
           overhead[(size_t)((double)n * 0.9)]);
    printf("  bare posix_spawn+wait of the binary:   %7.3f ms   (pipeline - bare: %.3f ms)\n",
           bare, med_pipeline - bare);
    printf("  whole judgement incl. compile (median): %6.1f ms\n", median(judge_wall, (size_t)rounds) * 1e3);
    printf("  target <= %.1f ms per test: %s\n", TARGET_MS, med_overhead <= TARGET_MS ? "met" : "MISSED");
    runner_close(r);
    remove_dir(pkg);
    free(pkg);
    free(overhead);
    free(pipeline);
    free(program);
    free(judge_wall);
    return 0;
}
