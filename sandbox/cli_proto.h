/*
 * cli_proto.h - the constants of the judge-sandbox protocol, and the little
 * code the thin client shares with the core, apart from cli.h so that the
 * thin client (cli_thin.c), built with musl and with nothing but libc, can
 * share them with the core and the server without pulling in sandbox.h.
 */
#ifndef JUDGED_SANDBOX_CLI_PROTO_H
#define JUDGED_SANDBOX_CLI_PROTO_H

/* Bumped whenever a message's layout changes: a client and a server of
 * different builds refuse each other with a message instead of misreading. */
#define CLI_PROTOCOL 1
#define CLI_MAX_REQUEST (1 << 20)   /* argv + env + mounts, encoded */
#define CLI_STDIO_FDS 3             /* every request carries stdin, stdout, stderr */
#define CLI_FORWARD_FDS 4           /* a forwarded one its cwd first */

#define CLI_SOCKET_NAME "server.sock"
#define CLI_DEFAULT_RUN_DIR "/run/judge-sandbox"
#define CLI_CORE_NAME "judge-sandbox-core"

/* Message tags: the hello; a forwarded command line (the thin client's
 * request) and its reply. Each tag is followed by CLI_PROTOCOL (u32). */
#define CLI_HELLO_TAG "JSBH"
#define CLI_FORWARD_TAG "JSBA"
#define CLI_FORWARD_REPLY_TAG "JSBO"

/* A forwarded reply's exit status that means "not for a server": the
 * thin client runs judge-sandbox-core with the same command line instead
 * (--help, --serve, --no-server, another run directory). */
#define CLI_FORWARD_RUN_CORE (-1)

#include <fcntl.h>
#include <unistd.h>

/* Our stdin, stdout and stderr are handed on (to the box or the server): a
 * closed one becomes /dev/null rather than whatever file opens next. */
static inline void cli_fill_stdio(void)
{
    int fd;
    while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd < 3)
        ;
    if (fd >= 0)
        close(fd);
}

#endif
