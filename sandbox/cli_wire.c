/*
 * cli_wire.c - the server's side of the socket and the settings a server
 * compares with each command's. The messages themselves, and the client's
 * side, are cli_proto.c (shared with the thin client).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli.h"

void cli_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* ---- the socket -------------------------------------------------------- */

int cli_unlink_socket(const char *run_dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", run_dir, CLI_SOCKET_NAME);
    return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

/* Only the caller (holding the run dir's server lock) binds here, so a
 * socket already there is a dead server's. Blocking: the server's workers
 * wait in accept. The socket is open to every user:
 * the server checks each peer's credentials and tells a non-root one why it
 * is refused, which a permission error on connect would not. */
int cli_listen(const char *run_dir, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", run_dir, CLI_SOCKET_NAME);
    struct sockaddr_un sa;
    int dirfd, fd = -1;
    if (cli_unlink_socket(run_dir) < 0 || cli_socket_addr(run_dir, &sa, &dirfd) < 0) {
        snprintf(err, errlen, "cannot replace %s: %s", path, strerror(errno));
        return -1;
    }
    if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0)) < 0 ||
        bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || chmod(path, 0666) < 0 ||
        listen(fd, 128) < 0) {
        snprintf(err, errlen, "cannot listen at %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    if (dirfd >= 0)
        close(dirfd);
    return fd;
}

/* ---- settings ------------------------------------------------------------ */

const char *cli_cgroup_mode_name(enum sandbox_cgroup_mode m)
{
    static const char *const names[] = {"auto", "v1", "v2", "none"};
    return (unsigned)m < 4 ? names[m] : "?";
}

static bool same(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

int cli_config_differs(const struct sandbox_config *there, const struct sandbox_config *here,
                       char *what, size_t len)
{
    if (there->cgroup_mode != here->cgroup_mode)
        snprintf(what, len, "--cgroup %s there, %s here",
                 cli_cgroup_mode_name(there->cgroup_mode),
                 cli_cgroup_mode_name(here->cgroup_mode));
    else if (!same(there->cgroup_root, here->cgroup_root))
        snprintf(what, len, "--cgroup-root %s there, %s here",
                 there->cgroup_root ? there->cgroup_root : "(detected)",
                 here->cgroup_root ? here->cgroup_root : "(detected)");
    else if (!same(there->cgroup_parent, here->cgroup_parent))
        snprintf(what, len, "--cgroup-parent %s there, %s here",
                 there->cgroup_parent ? there->cgroup_parent : "(default)",
                 here->cgroup_parent ? here->cgroup_parent : "(default)");
    else
        return 0;
    return 1;
}
