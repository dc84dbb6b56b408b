/*
 * cli.h - what the parts of the judge-sandbox-core binary share: the client
 * (cli.c), the per-run-directory server (cli_server.c) and the messages
 * between them (cli_wire.c). The thin client (cli_thin.c) shares only
 * cli_proto.h. Internal to judge-sandbox; not a library API.
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

#define CLI_MAX_REPLY 4096
#define CLI_MAX_FDS CLI_FORWARD_FDS /* the most fds a request carries */

#define CLI_LOCK_NAME "server.lock"
#define CLI_PID_NAME "server.pid"

/* What a server is started with. */
struct cli_server_opts {
    struct sandbox_config config;
    double idle;   /* seconds without a client before it exits; 0 = never */
};

/* A decoded request. The strings point into the buffer it was decoded
 * from, which must outlive it. */
struct cli_request {
    struct sandbox_config config;
    struct sandbox_job job;
    const char **argv;
    const char **envp;
    struct sandbox_mount *mounts;
};

/* What the server answers: the run's result and the cgroup version. */
struct cli_reply {
    struct sandbox_result res;
    char cgroup[8];
};

/* A parsed command line: what the core (cli.c) and the server, for a
 * forwarded one, both make of it. */
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
/* Opens --stdin/--stdout/--stderr relative to dirfd (AT_FDCWD: ours); the
 * ones not given are inherit[0..2]. -1 with the message on err. */
int cli_open_stdio(struct cli_args *a, int dirfd, const int *inherit, FILE *err);
/* The verdict as --json (on out) or as text (on err). */
void cli_print(const struct cli_args *a, const struct cli_reply *r, FILE *out, FILE *err);
void cli_usage(FILE *out);

/* ---- cli_wire.c ------------------------------------------------------- */

/* snprintf for messages and paths that may be cut short (paths under a run
 * dir, run dirs in messages): truncation is accepted, not a warning. */
void cli_fmt(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Connects to <run_dir>/server.sock. -1 with errno (ENOENT, ECONNREFUSED:
 * no server answers there). */
int cli_connect(const char *run_dir);
/* Binds and listens at <run_dir>/server.sock, replacing a stale socket. */
int cli_listen(const char *run_dir, char *err, size_t errlen);
int cli_unlink_socket(const char *run_dir);

/* One message, with up to CLI_STDIO_FDS fds attached. -1 with errno. */
int cli_send(int fd, const void *buf, size_t len, const int *fds, int nfds);
/* One message into buf. Attached fds are received close-on-exec into fds
 * (*nfds of them, at most maxfds; extra ones are closed). flags for recvmsg
 * (MSG_DONTWAIT). 0 at EOF, -1 with errno (EMSGSIZE: the message or its fds
 * did not fit). */
ssize_t cli_recv(int fd, void *buf, size_t len, int *fds, int maxfds, int *nfds, int flags);

/* The hello a server sends as it takes a connection: a client that sees
 * the connection close before it knows the job was never started. */
extern const char cli_hello[4];

/* A forwarded command line: argv (malloc'ed, NULL-terminated, pointing
 * into buf) and argc. -1 if it is not one (err says why). */
int cli_decode_forward(const char *buf, size_t len, char ***argv, int *argc, char *err,
                       size_t errlen);
/* Its reply: the exit status and what the core would have written. */
char *cli_encode_forward_reply(int status, const char *out, size_t outlen, const char *errs,
                               size_t errslen, size_t *len);
/* Whether buf is a forwarded command line rather than a request. */
bool cli_is_forward(const char *buf, size_t len);

/* Encoded messages are malloc'ed; NULL when out of memory. */
char *cli_encode_request(const struct sandbox_config *cfg, const struct sandbox_job *job,
                         size_t *len);
int cli_decode_request(const char *buf, size_t len, struct cli_request *req, char *err,
                       size_t errlen);
void cli_request_free(struct cli_request *req);
char *cli_encode_reply(const struct cli_reply *reply, size_t *len);
int cli_decode_reply(const char *buf, size_t len, struct cli_reply *reply, char *err,
                     size_t errlen);

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
