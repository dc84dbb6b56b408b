/*
 * cli.h - what the parts of the judge-sandbox binary share: the client
 * (cli.c), the per-run-directory server (cli_server.c) and the messages
 * between them (cli_wire.c). Internal to judge-sandbox; not a library API.
 */
#ifndef JUDGED_SANDBOX_CLI_H
#define JUDGED_SANDBOX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sandbox.h"

/* Bumped whenever a message's layout changes: a client and a server of
 * different builds refuse each other with a message instead of misreading. */
#define CLI_PROTOCOL 1
#define CLI_MAX_REQUEST (1 << 20)   /* argv + env + mounts, encoded */
#define CLI_MAX_REPLY 4096
#define CLI_STDIO_FDS 3             /* every request carries stdin, stdout, stderr */

#define CLI_SOCKET_NAME "server.sock"
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
