/*
 * bench-sandbox - what a sandboxed /bin/true costs, against a bare one.
 *
 * Prints the median over many runs of: a bare fork+exec+wait of /bin/true;
 * the same through sandbox_run (library); the same through the judge-sandbox
 * CLI (fork+exec of the CLI, which hands the job to the run directory's
 * server, started by a warm-up run and stopped at the end); the CLI with
 * --no-server (it runs the box itself); and the ratios. The floors on
 * a 2-core machine: CLI <= 2.5x bare, library <= 1.2 ms.
 *
 *   bench-sandbox [--runs N] [--json] [--cli PATH]
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox.h"

#define BLOCK 50  /* runs of one kind in a row */

#define RUN_DIR "/run/judge-sandbox-bench"

extern char **environ;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int spawn_wait(char *const argv[])
{
    pid_t pid;
    int devnull = open("/dev/null", O_WRONLY);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, devnull, 1);
    posix_spawn_file_actions_adddup2(&fa, devnull, 2);
    /* fork+exec semantics, as a shell would do it */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_USEVFORK * 0);
    int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(devnull);
    if (rc)
        return -1;
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int fork_exec_wait(char *const argv[])
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The CLI's server in RUN_DIR, if any: SIGTERM, and wait until it is gone
 * (it is not our child). */
static void stop_server(void)
{
    int fd = open(RUN_DIR "/server.lock", O_RDONLY | O_CLOEXEC);
    struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fd < 0)
        return;
    if (fcntl(fd, F_GETLK, &l) == 0 && l.l_type != F_UNLCK && kill(l.l_pid, SIGTERM) == 0)
        for (int i = 0; i < 300; i++) {
            struct flock again = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
            if (fcntl(fd, F_GETLK, &again) < 0 || again.l_type == F_UNLCK)
                break;
            usleep(10000);
        }
    close(fd);
}

static void default_cli(char *out, size_t len)
{
    char self[PATH_MAX - 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(out, len, "%s/judge-sandbox", self);
}

int main(int argc, char **argv)
{
    int runs = 300;
    bool json = false;
    char cli[PATH_MAX];
    default_cli(cli, sizeof cli);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--cli") && i + 1 < argc)
            snprintf(cli, sizeof cli, "%s", argv[++i]);
        else {
            printf("usage: bench-sandbox [--runs N] [--json] [--cli PATH]\n");
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (runs < 5)
        runs = 5;
    double *bare = calloc(runs, sizeof *bare), *lib = calloc(runs, sizeof *lib),
           *viacli = calloc(runs, sizeof *viacli), *noserver = calloc(runs, sizeof *noserver);
    struct sandbox_config cfg = SANDBOX_CONFIG_INIT;
    cfg.run_dir = RUN_DIR;
    struct sandbox *sb;
    char err[512];
    if (sandbox_open(&sb, &cfg, err, sizeof err) < 0) {
        fprintf(stderr, "bench-sandbox: %s\n", err);
        return 1;
    }
    char *true_argv[] = {"/bin/true", NULL};
    char *cli_argv[] = {cli, "--run-dir", RUN_DIR, "--box", "1", "--server-idle", "60",
                        "--", "/bin/true", NULL};
    char *no_server_argv[] = {cli, "--no-server", "--run-dir", RUN_DIR, "--box", "1",
                              "--", "/bin/true", NULL};
    struct sandbox_job job = SANDBOX_JOB_INIT;
    job.argv = (const char *const *)true_argv;
    struct sandbox_result res;
    /* warm up: first use of a slot creates its cgroup and network namespace;
     * the first CLI run starts a server (this binary's, not a stale one) */
    sandbox_run(sb, &job, &res);
    stop_server();
    fork_exec_wait(cli_argv);
    fork_exec_wait(no_server_argv);
    int failures = 0;
    /* In blocks of each kind rather than one of each in turn: a run that
     * builds and tears down namespaces (--no-server) leaves kernel work
     * (RCU callbacks, namespace freeing) that would land on whatever runs
     * next, and each figure should be its own. */
    for (int from = 0; from < runs; from += BLOCK) {
        int to = from + BLOCK < runs ? from + BLOCK : runs;
        for (int i = from; i < to; i++) {
            double t = now();
            failures += fork_exec_wait(true_argv) < 0;
            bare[i] = now() - t;
        }
        for (int i = from; i < to; i++) {
            double t = now();
            failures += sandbox_run(sb, &job, &res) < 0 || res.status != SANDBOX_OK;
            lib[i] = now() - t;
        }
        for (int i = from; i < to; i++) {
            double t = now();
            failures += fork_exec_wait(cli_argv) < 0;
            viacli[i] = now() - t;
        }
        for (int i = from; i < to; i++) {
            double t = now();
            failures += fork_exec_wait(no_server_argv) < 0;
            noserver[i] = now() - t;
        }
    }
    stop_server();
    (void)spawn_wait;
    double mb = median(bare, runs) * 1e3, ml = median(lib, runs) * 1e3,
           mc = median(viacli, runs) * 1e3, mn = median(noserver, runs) * 1e3;
    if (json)
        printf("{\"runs\": %d, \"bare_ms\": %.3f, \"library_ms\": %.3f, \"cli_ms\": %.3f, "
               "\"cli_no_server_ms\": %.3f, \"library_ratio\": %.2f, \"cli_ratio\": %.2f, "
               "\"cli_no_server_ratio\": %.2f, \"cgroup\": \"%s\", \"failures\": %d}\n",
               runs, mb, ml, mc, mn, ml / mb, mc / mb, mn / mb, sandbox_cgroup_version(sb),
               failures);
    else
        printf("runs: %d (cgroup %s)\nbare fork+exec /bin/true: %.3f ms\n"
               "library sandbox_run:      %.3f ms  (%.2fx bare)\n"
               "CLI judge-sandbox:        %.3f ms  (%.2fx bare, through its server)\n"
               "CLI --no-server:          %.3f ms  (%.2fx bare)\nfailures: %d\n",
               runs, sandbox_cgroup_version(sb), mb, ml, ml / mb, mc, mc / mb, mn, mn / mb,
               failures);
    sandbox_close(sb);
    free(bare);
    free(lib);
    free(viacli);
    free(noserver);
    return failures ? 1 : 0;
}
