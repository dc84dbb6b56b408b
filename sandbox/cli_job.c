/*
 * cli_job.c - running the job of a parsed command line and printing its
 * verdict: what the server does for every client, and the core for
 * --no-server, so both say the same.
 *
 * Files. --stdin, --stdout and --stderr are opened as root for a caller who
 * may reuse a directory a box could write (its --workdir): a program can
 * leave a symlink, or a FIFO, where the next run's file is expected. So a
 * path is resolved without following any symlink (openat2 with
 * RESOLVE_NO_SYMLINKS, which refuses /proc's magic links too), the file is
 * opened non-blocking (a FIFO without a reader would hang its opener) and
 * must be a regular file or a character device. A relative path is the
 * client's: resolved from its cwd, and refused when the client could not
 * send its cwd.
 *
 * The caller's own streams. Without a file, stdout and stderr are the
 * client's own. Handed to the box as they are, the program would share the
 * caller's open file: it could rewrite what the caller wrote before it
 * (lseek, pwrite), change the file's flags for the caller (O_NONBLOCK), and
 * write to a pipe without any limit (RLIMIT_FSIZE counts regular files
 * only). So the program gets a pipe of its own, and a relay thread copies
 * at most --output bytes from it to the caller's stream; past the limit it
 * closes the pipe (the program's next write fails, EPIPE or SIGPIPE) and
 * the verdict is OLE. The same for a --stdout/--stderr device (a terminal),
 * which RLIMIT_FSIZE does not bound either. One pipe serves stdout and
 * stderr when they are the same file, so their order is kept. /dev/null and
 * regular files of our own are handed on as they are: nothing to share or
 * bound there, and the common scripted case costs no thread.
 * stdin stays the caller's (reading ahead for the program would take input
 * the program never read). The relays end once the box is gone (no process
 * of a run outlives it, so every write end is closed), before the verdict
 * is printed after the program's output.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli.h"

#define RELAY_CHUNK 4096   /* PIPE_BUF: once poll says writable, a write this size won't block */

/* ---- files --------------------------------------------------------------- */

static const char *const stream_option[3] = {"--stdin", "--stdout", "--stderr"};

/* The file at path (relative to dirfd), never through a symlink, which
 * must be a regular file or a character device. -1 with the message on
 * err. */
static int open_file(int dirfd, const char *path, int flags, int stream, FILE *err)
{
    struct open_how how = {.flags = (uint64_t)(flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC),
                           .mode = flags & O_CREAT ? 0644 : 0,
                           .resolve = RESOLVE_NO_SYMLINKS};
    if (path[0] != '/' && dirfd == -1) {
        fprintf(err, "judge-sandbox: cannot open %s %s: a relative path, and the client's "
                "working directory could not be opened; give an absolute path\n",
                stream_option[stream], path);
        return -1;
    }
    int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
        close(fd);
        fprintf(err, "judge-sandbox: cannot open %s %s: not a regular file or a device\n",
                stream_option[stream], path);
        return -1;
    }
    if (fd >= 0 && fcntl(fd, F_SETFL, 0) == 0)  /* blocking again, for the program */
        return fd;
    if (errno == ENXIO)  /* a FIFO without a reader (or a socket) */
        fprintf(err, "judge-sandbox: cannot open %s %s: not a regular file or a device\n",
                stream_option[stream], path);
    else if (errno == ELOOP)
        fprintf(err, "judge-sandbox: cannot open %s %s: a symbolic link in the path "
                "(judge-sandbox follows none)\n", stream_option[stream], path);
    else
        fprintf(err, "judge-sandbox: cannot open %s %s: %s\n", stream_option[stream], path,
                strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
}

/* The files given; the other streams are the client's (stdio). -1 with the
 * message on err (the files opened so far closed). */
static int open_stdio(struct cli_args *a, int dirfd, const int *stdio, int fds[3], FILE *err)
{
    static const int flags[3] = {O_RDONLY, O_WRONLY | O_CREAT | O_TRUNC,
                                 O_WRONLY | O_CREAT | O_TRUNC};
    for (int i = 0; i < 3; i++)
        fds[i] = a->stdio_path[i] ? -1 : stdio[i];
    for (int i = 0; i < 3; i++) {
        if (a->stdio_path[i] && (fds[i] = open_file(dirfd, a->stdio_path[i], flags[i], i,
                                                    err)) < 0) {
            for (int k = 0; k < i; k++)
                if (a->stdio_path[k])
                    close(fds[k]);
            return -1;
        }
    }
    return 0;
}

/* ---- relays ---------------------------------------------------------------- */

struct relay {
    int rd, wr;            /* the program's pipe */
    int dest;              /* the caller's stream */
    bool dest_is_file;     /* never blocks: no need to poll it */
    int cancel_fd;         /* the client's connection: a hang-up ends a blocked copy */
    uint64_t limit;        /* 0: none */
    uint64_t copied;
    bool exceeded;
    bool running;
    pthread_t tid;
};

/* Writes n bytes to the caller's stream, waiting for room only while the
 * client is still there. -1: the stream or the client is gone. */
static int relay_write(struct relay *r, const char *p, size_t n)
{
    while (n > 0) {
        size_t chunk = r->dest_is_file || n < RELAY_CHUNK ? n : RELAY_CHUNK;
        if (!r->dest_is_file) {
            struct pollfd pf[2] = {{r->dest, POLLOUT, 0}, {r->cancel_fd, POLLIN, 0}};
            if (poll(pf, r->cancel_fd >= 0 ? 2 : 1, -1) < 0) {
                if (errno == EINTR)
                    continue;
                return -1;
            }
            if (pf[1].revents || (pf[0].revents & (POLLERR | POLLHUP | POLLNVAL)))
                return -1;
        }
        ssize_t w = write(r->dest, p, chunk);
        if (w < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void *relay_main(void *arg)
{
    struct relay *r = arg;
    char buf[16384];
    for (;;) {
        ssize_t n = read(r->rd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        size_t keep = (size_t)n;
        if (r->limit && r->copied + keep > r->limit) {
            keep = (size_t)(r->limit - r->copied);
            r->exceeded = true;
        }
        if (relay_write(r, buf, keep) < 0)
            break;
        r->copied += keep;
        if (r->exceeded)
            break;
    }
    close(r->rd);  /* the program's next write fails: it cannot go on writing unread */
    r->rd = -1;
    return NULL;
}

/* Whether the program may have fd as it is: /dev/null, or a regular file
 * opened for it alone (RLIMIT_FSIZE bounds that). */
static bool harmless(int fd, bool opened)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return false;
    return (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) ||
           (opened && S_ISREG(st.st_mode));
}

static bool same_file(int a, int b)
{
    struct stat sa, sb;
    return a == b || (fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
                      sa.st_ino == sb.st_ino);
}

static int relay_start(struct relay *r, int dest, uint64_t limit, int cancel_fd, char *err,
                       size_t len)
{
    struct stat st;
    int p[2];
    *r = (struct relay){.rd = -1, .wr = -1, .dest = dest, .limit = limit,
                        .cancel_fd = cancel_fd};
    r->dest_is_file = fstat(dest, &st) == 0 && S_ISREG(st.st_mode);
    if (pipe2(p, O_CLOEXEC) < 0) {
        cli_fmt(err, len, "cannot make a pipe for the program's output: %s", strerror(errno));
        return -1;
    }
    r->rd = p[0];
    r->wr = p[1];
    int rc = pthread_create(&r->tid, NULL, relay_main, r);
    if (rc) {
        cli_fmt(err, len, "cannot start a thread for the program's output: %s", strerror(rc));
        close(r->rd);
        close(r->wr);
        r->rd = r->wr = -1;
        return -1;
    }
    r->running = true;
    return 0;
}

/* Gives stdout and stderr (fds[1], fds[2]) a pipe each, or one for both,
 * unless harmless; opened marks the streams that are files of ours. */
static int relays_start(struct relay rel[2], int fds[3], const bool opened[3], uint64_t limit,
                        int cancel_fd, char *err, size_t len)
{
    rel[0] = rel[1] = (struct relay){.rd = -1, .wr = -1};
    for (int i = 1; i <= 2; i++) {
        struct relay *r = &rel[i - 1];
        if (harmless(fds[i], opened[i]))
            continue;
        if (i == 2 && rel[0].running && same_file(rel[0].dest, fds[2])) {
            fds[2] = rel[0].wr;
            continue;
        }
        if (relay_start(r, fds[i], limit, cancel_fd, err, len) < 0)
            return -1;
        fds[i] = r->wr;
    }
    return 0;
}

/* Once the run is over: waits for the relays to copy what is left. Whether
 * one stopped at the limit. */
static bool relays_finish(struct relay rel[2])
{
    bool exceeded = false;
    for (int i = 0; i < 2; i++) {
        if (rel[i].wr >= 0)
            close(rel[i].wr);
        if (rel[i].running)
            pthread_join(rel[i].tid, NULL);
        exceeded |= rel[i].exceeded;
    }
    return exceeded;
}

/* ---- the job ----------------------------------------------------------------- */

int cli_run_job(struct sandbox *sb, struct cli_args *a, const int *stdio, int cwd_fd,
                int cancel_fd, FILE *out, FILE *err)
{
    int fds[3];
    if (open_stdio(a, cwd_fd, stdio, fds, err) < 0)
        return 2;
    const bool opened[3] = {a->stdio_path[0], a->stdio_path[1], a->stdio_path[2]};
    uint64_t limit = a->job.limits.output;
    struct relay rel[2];
    struct cli_reply r = {.cgroup = "none"};
    if (relays_start(rel, fds, opened, limit, cancel_fd, r.res.message,
                     sizeof r.res.message) < 0) {
        r.res.status = SANDBOX_IE;
    } else {
        a->job.stdin_fd = fds[0];
        a->job.stdout_fd = fds[1];
        a->job.stderr_fd = fds[2];
        a->job.cancel_fd = cancel_fd;
        sandbox_run(sb, &a->job, &r.res);
        cli_fmt(r.cgroup, sizeof r.cgroup, "%s", sandbox_cgroup_version(sb));
    }
    if (relays_finish(rel) && r.res.status != SANDBOX_IE) {
        r.res.status = SANDBOX_OLE;
        cli_fmt(r.res.message, sizeof r.res.message, "output limit exceeded (%llu bytes)",
                (unsigned long long)limit);
    }
    for (int i = 0; i < 3; i++)
        if (opened[i])
            close(fds[i]);
    cli_print(a, &r, out, err);
    return r.res.status == SANDBOX_IE ? 1 : 0;
}
