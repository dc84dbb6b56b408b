/*
 * cli_thin.c - judge-sandbox, the command users and scripts run: a thin
 * client that forwards its command line to the run directory's server.
 *
 * Why. Through the server (cli_server.c) a short run costs little more
 * than the client's own start, and the full client, judge-sandbox-core
 * (cli.c: static glibc, libseccomp, jansson), starts slowly on a virtual
 * machine: glibc's start-up detects the CPU caches with cpuid, which traps
 * to the hypervisor (an empty static glibc program costs ~0.76 ms to
 * fork+exec+wait here, a musl one ~0.19 ms). So this program is built with
 * musl, links nothing but libc and cli_proto.c, and only moves bytes: it
 * sends its command line with its stdio and cwd to <run_dir>/server.sock
 * (cli_client_run, the very code the core sends with); the server parses
 * it and prints the verdict with the core's own code, and this program
 * writes out the bytes and exits with the status it gets back. A refusal
 * (a non-root user) is such a reply too.
 *
 * Whatever it does not forward it leaves to the core, by exec with the same
 * argv: --help, --serve, --no-server, a relative run dir, no server there
 * (the core starts one), a server that drops it before the job starts, or
 * answers that the command line is not for it. Nothing of the job has
 * happened by then, so the core does it all.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_proto.h"

/* ---- leaving it to the core -------------------------------------------- */

/* Execs judge-sandbox-core from our own directory with our argv. */
static void __attribute__((noreturn)) run_core(char **argv)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - sizeof CLI_CORE_NAME);
    char *slash = n > 0 ? memrchr(path, '/', (size_t)n) : NULL;
    if (slash) {
        memcpy(slash + 1, CLI_CORE_NAME, sizeof CLI_CORE_NAME);
        execv(path, argv);
    } else {
        snprintf(path, sizeof path, "/proc/self/exe");
    }
    dprintf(2, "judge-sandbox: cannot run %s next to %s: %s\n", CLI_CORE_NAME, path,
            strerror(errno));
    exit(1);
}

/* Whether argv asks for what only the core does; *run_dir gets --run-dir's
 * value. A guess from argv alone, exact for the spellings in the usage: the
 * server parses argv for real and sends back what is not for it. */
static bool wants_core(int argc, char **argv, const char **run_dir)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h") || !strcmp(a, "--serve") ||
            !strcmp(a, "--no-server"))
            return true;
        if (!strcmp(a, "--run-dir") && i + 1 < argc)
            *run_dir = argv[++i];
        else if (!strncmp(a, "--run-dir=", 10))
            *run_dir = a + 10;
    }
    return false;
}

/* ---- main ------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *run_dir = CLI_DEFAULT_RUN_DIR;
    cli_fill_stdio();
    if (argc < 1 || wants_core(argc, argv, &run_dir) || run_dir[0] != '/')
        run_core(argv);
    int status = cli_client_run(run_dir, argc, argv);
    if (status == CLI_RUN_CORE || status == CLI_NOT_TAKEN || status == CLI_NO_SERVER)
        run_core(argv);
    return status == CLI_FAILED ? 1 : status;
}
