/*
 * cli_proto.h - the one protocol between a judge-sandbox client and its
 * server, and the little code the thin client shares with the core. Apart
 * from cli.h so that the thin client (cli_thin.c), built with musl and with
 * nothing but libc, can share it (cli_proto.c) with the core and the server
 * without pulling in sandbox.h.
 *
 * A SOCK_SEQPACKET unix socket at <run_dir>/server.sock: every message is
 * one packet, so no framing is needed and a peer that goes away is seen as
 * EOF (and, by the server's sandbox_run, as a hang-up that cancels the run).
 * Both clients, the thin one and the core, speak the same:
 *
 *   client -> server   command: the client's argv, with its stdin, stdout
 *                      and stderr and, when it can open it, an O_PATH fd of
 *                      its cwd attached (SCM_RIGHTS), in that order
 *   server -> client   hello, as soon as the server takes the job
 *   server -> client   reply: the exit status and the bytes judge-sandbox
 *                      writes to its stdout and its stderr
 *
 * The server parses the command line with the core's parser and prints the
 * verdict with the core's printer, into the reply, so every client says
 * exactly the same. A reply without a hello before it is a refusal (a
 * non-root peer); a reply with status CLI_RUN_CORE says the command line is
 * not for a server (--help, --serve, --no-server, another run directory).
 *
 * The encoding is binary: argv holds bytes that need not be UTF-8. Numbers
 * are in host order (client and server share a host); a string is its
 * length with the NUL, then its bytes. Each message starts with a tag and
 * CLI_PROTOCOL, so builds that disagree say so instead of misreading.
 */
#ifndef JUDGED_SANDBOX_CLI_PROTO_H
#define JUDGED_SANDBOX_CLI_PROTO_H

#include <stddef.h>
#include <sys/un.h>

/* Bumped whenever a message's layout changes. */
#define CLI_PROTOCOL 2
#define CLI_MAX_REQUEST (1 << 20)   /* an encoded command line */
#define CLI_STDIO_FDS 3             /* every command carries stdin, stdout, stderr */
#define CLI_MAX_FDS 4               /* and the client's cwd when it could open it */

#define CLI_SOCKET_NAME "server.sock"
#define CLI_DEFAULT_RUN_DIR "/run/judge-sandbox"
#define CLI_CORE_NAME "judge-sandbox-core"

/* Message tags, each followed by CLI_PROTOCOL (u32). */
#define CLI_HELLO_TAG "JSBH"
#define CLI_COMMAND_TAG "JSBC"
#define CLI_REPLY_TAG "JSBO"

/* A reply's exit status that means "not for a server": the thin client runs
 * judge-sandbox-core with the same command line instead. */
#define CLI_RUN_CORE (-1)
/* What cli_client_run returns when no server took the job: none answers at
 * the run directory (CLI_NO_SERVER), or it closed the connection before its
 * hello (CLI_NOT_TAKEN: it is going idle). Nothing of the job happened. */
#define CLI_NOT_TAKEN (-2)
#define CLI_NO_SERVER (-4)
/* ... and when the exchange failed after the job was taken (the message is
 * printed on stderr). */
#define CLI_FAILED (-3)

/* Our stdin, stdout and stderr are handed on (to the box or the server): a
 * closed one becomes /dev/null rather than whatever file opens next. */
void cli_fill_stdio(void);

/* The address of <run_dir>/server.sock; a path longer than sun_path is
 * reached through *dirfd (an O_PATH fd of run_dir, else -1), which the
 * caller closes after use. -1 with errno. */
int cli_socket_addr(const char *run_dir, struct sockaddr_un *sa, int *dirfd);
/* Connects to <run_dir>/server.sock. -1 with errno (ENOENT, ECONNREFUSED:
 * no server there). */
int cli_connect(const char *run_dir);

/* One packet, with up to CLI_MAX_FDS fds attached. -1 with errno. */
int cli_send(int fd, const void *buf, size_t len, const int *fds, int nfds);
/* The next packet, malloc'ed into *buf, with its fds received close-on-exec
 * (at most maxfds; more, or a packet over max bytes, is EMSGSIZE and its
 * fds are closed). flags for recvmsg (MSG_DONTWAIT). 0 at EOF, -1 with
 * errno. */
long cli_recv(int fd, char **buf, size_t max, int *fds, int maxfds, int *nfds, int flags);

/* A command line as a message (malloc'ed); NULL if over CLI_MAX_REQUEST or
 * out of memory. */
char *cli_encode_command(int argc, char *const *argv, size_t *len);
/* Its argv (malloc'ed, NULL-terminated, pointing into buf) and argc. -1 if
 * malformed (err says why). */
int cli_decode_command(const char *buf, size_t len, char ***argv, int *argc, char *err,
                       size_t errlen);

/* A reply: the exit status and what judge-sandbox writes to stdout and
 * stderr. NULL when out of memory. */
char *cli_encode_reply(int status, const char *out, size_t outlen, const char *errs,
                       size_t errslen, size_t *len);

/* The client's side of one job: sends argv with our stdio and cwd to the
 * server at run_dir, writes out what it replies and returns its exit status
 * (CLI_RUN_CORE included), or CLI_NO_SERVER, CLI_NOT_TAKEN or CLI_FAILED. */
int cli_client_run(const char *run_dir, int argc, char *const *argv);

#endif
