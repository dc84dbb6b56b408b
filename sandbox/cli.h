/*
 * cli.h - what the parts of the judge-sandbox-core binary share: the client
 * (cli.c), running a command line's job (cli_job.c), the per-run-directory
 * server (cli_server.c) and its socket (cli_wire.c). The thin client
 * (cli_thin.c) shares only the protocol, cli_proto.h. Internal to
 * judge-sandbox; not a library API.
 */
#ifndef JUDGED_SANDBOX_CLI_H
#define JUDGED_SANDBOX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <limits.h>

#include "sandbox.h"

#include "cli_proto.h"

#define CLI_LOCK_NAME "server.lock"
#define CLI_PID_NAME "server.pid"

/* What a server is started with. */
struct cli_server_opts {
    struct sandbox_config config;
    double idle;   /* seconds without a client before it exits; 0 = never */
};

/* A run's verdict as the CLI prints it: the result and the cgroup version. */
struct cli_reply {
    struct sandbox_result res;
    char cgroup[8];
};

/* A parsed command line: what the core (cli.c) and the server both make
 * of it. */
#define CLI_MAX_MOUNTS 32
#define CLI_MAX_ENV 128

struct cli_args {
    struct sandbox_config config;
    struct sandbox_job job;
    struct sandbox_mount mounts[CLI_MAX_MOUNTS];
    const char *env[CLI_MAX_ENV + 2];
    int env_count;
    const char *stdio_path[3];
    bool json;
    bool no_server;
    bool serve;
    double idle;
    bool idle_given;
    const char *job_option;   /* the first one seen, which --serve refuses */
    char cgroup_root[PATH_MAX];
};

/* ---- cli.c -------------------------------------------------------------- */

void cli_args_init(struct cli_args *a);
/* Frees what parsing allocated (the mounts' copies). */
void cli_args_free(struct cli_args *a);
/* Parses a command line; a relative --cgroup-root is made absolute against
 * cwd. Messages go to err, as the core prints them. 0 ok, 1 --help, -1 bad.
 * Thread-safe (getopt's state is global: a lock serializes it). */
int cli_parse(struct cli_args *a, int argc, char **argv, const char *cwd, FILE *err);
/* The verdict as --json (on out) or as text (on err). */
void cli_print(const struct cli_args *a, const struct cli_reply *r, FILE *out, FILE *err);
void cli_usage(FILE *out);

/* The verdict of a run that never started: IE with the message. */
void cli_set_ie(struct cli_reply *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- cli_job.c -------------------------------------------------------- */

/* Runs a parsed command line's job in sb and prints its verdict (cli_print)
 * on out/err: what the server does for a client and the core for
 * --no-server. stdio: the client's stdin, stdout and stderr, for the
 * streams not given as files; cwd_fd: its cwd for relative ones (-1: none);
 * cancel_fd: a hang-up cancels the run (-1: none). The exit status: 0
 * judged, 1 IE, 2 a file that cannot be opened. */
int cli_run_job(struct sandbox *sb, struct cli_args *a, const int *stdio, int cwd_fd,
                int cancel_fd, FILE *out, FILE *err);

/* ---- cli_wire.c ------------------------------------------------------- */

/* snprintf for messages and paths that may be cut short (paths under a run
 * dir, run dirs in messages): truncation is accepted, not a warning. */
void cli_fmt(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Binds and listens at <run_dir>/server.sock, replacing a stale socket. */
int cli_listen(const char *run_dir, char *err, size_t errlen);
int cli_unlink_socket(const char *run_dir);

/* "auto", "v1", "v2", "none": what --cgroup takes. */
const char *cli_cgroup_mode_name(enum sandbox_cgroup_mode mode);

/* Describes the first setting in which two configurations differ ("--cgroup
 * v1 there, auto here"); 0 if none does. run_dir is not compared. */
int cli_config_differs(const struct sandbox_config *there, const struct sandbox_config *here,
                       char *what, size_t len);

/* ---- cli_server.c ----------------------------------------------------- */

/* Makes sure a server serves opts->config.run_dir: starts one detached from
 * this process (setsid, double fork, stdio on /dev/null) and waits until it
 * listens, or until it finds another server there. -1 with the reason in
 * err (e.g. the sandbox could not be opened). */
int cli_server_start(const struct cli_server_opts *opts, char *err, size_t errlen);
/* judge-sandbox --serve: serves in the foreground until SIGTERM/SIGINT or
 * idleness. Returns the exit status. */
int cli_server_serve(const struct cli_server_opts *opts);

#endif
