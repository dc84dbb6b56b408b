/*
 * cli_proto.c - the judge-sandbox protocol (cli_proto.h): the socket, the
 * messages and the client's side of a job. libc only: the thin client is
 * built from this file and cli_thin.c with musl, the core and the server
 * link it too, so there is one encoder and one decoder of each message.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli_proto.h"

#define HEAD_LEN 8   /* a tag and CLI_PROTOCOL */

void cli_fill_stdio(void)
{
    int fd;
    while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd < 3)
        ;
    if (fd >= 0)
        close(fd);
}

/* ---- the socket -------------------------------------------------------- */

int cli_socket_addr(const char *run_dir, struct sockaddr_un *sa, int *dirfd)
{
    *dirfd = -1;
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    int n = snprintf(sa->sun_path, sizeof sa->sun_path, "%s/%s", run_dir, CLI_SOCKET_NAME);
    if (n >= 0 && (size_t)n < sizeof sa->sun_path)
        return 0;
    /* sun_path holds 107 bytes and a run dir may have 200 */
    if ((*dirfd = open(run_dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        return -1;
    snprintf(sa->sun_path, sizeof sa->sun_path, "/proc/self/fd/%d/%s", *dirfd, CLI_SOCKET_NAME);
    return 0;
}

int cli_connect(const char *run_dir)
{
    struct sockaddr_un sa;
    int dirfd;
    if (cli_socket_addr(run_dir, &sa, &dirfd) < 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        int saved = errno;
        close(fd);
        fd = -1;
        errno = saved;
    }
    if (dirfd >= 0) {
        int saved = errno;
        close(dirfd);
        errno = saved;
    }
    return fd;
}

union fd_control {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int) * CLI_MAX_FDS)];
};

int cli_send(int fd, const void *buf, size_t len, const int *fds, int nfds)
{
    struct iovec iov = {(void *)buf, len};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    union fd_control control;
    if (nfds > 0) {
        memset(&control, 0, sizeof control);
        m.msg_control = control.buf;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
    }
    if (len > 65536) {
        int room = (int)len * 2 + 65536;  /* a packet must fit the send buffer */
        setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &room, sizeof room);
    }
    ssize_t n;
    do
        n = sendmsg(fd, &m, MSG_NOSIGNAL);  /* a gone peer is an error, not SIGPIPE */
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)len ? 0 : -1;
}

static int take_fds(struct msghdr *m, int *fds, int maxfds)
{
    int got = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int f;
            memcpy(&f, CMSG_DATA(c) + i * sizeof f, sizeof f);
            if (got < maxfds)
                fds[got++] = f;
            else
                close(f);
        }
    }
    return got;
}

/* The next packet's size, without taking it (nor its fds). */
static ssize_t packet_size(int fd, int flags)
{
    ssize_t n;
    do
        n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC | flags);
    while (n < 0 && errno == EINTR);
    return n;
}

long cli_recv(int fd, char **buf, size_t max, int *fds, int maxfds, int *nfds, int flags)
{
    int dummy;
    int *got = nfds ? nfds : &dummy;
    *got = 0;
    *buf = NULL;
    ssize_t size = packet_size(fd, flags);
    if (size <= 0)
        return size;
    size_t want = (size_t)size <= max ? (size_t)size : 1;
    char *p = malloc(want);
    if (!p)
        return -1;
    union fd_control control;
    struct iovec iov = {p, want};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
    ssize_t n;
    do
        n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC | flags);
    while (n < 0 && errno == EINTR);
    if (n >= 0)
        *got = take_fds(&m, fds, maxfds);
    if (n > 0 && (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        while (*got > 0)
            close(fds[--*got]);
        errno = EMSGSIZE;
        n = -1;
    }
    if (n <= 0) {
        free(p);
        return n;
    }
    *buf = p;
    return n;
}

/* ---- messages ------------------------------------------------------------ */

struct wbuf {
    char *p;
    size_t len, cap;
};

static void put(struct wbuf *w, const void *v, size_t n)
{
    if (w->len + n <= w->cap)
        memcpy(w->p + w->len, v, n);
    w->len += n;
}

static void put_u32(struct wbuf *w, uint32_t v)
{
    put(w, &v, sizeof v);
}

static void put_head(struct wbuf *w, const char *tag)
{
    put(w, tag, 4);
    put_u32(w, CLI_PROTOCOL);
}

/* A length and that many bytes at *pos; NULL if they are not all there. */
static const char *take_bytes(const char *p, size_t len, size_t *pos, uint32_t *n)
{
    if (len - *pos < 4)
        return NULL;
    memcpy(n, p + *pos, 4);
    *pos += 4;
    if (len - *pos < *n)
        return NULL;
    *pos += *n;
    return p + *pos - *n;
}

/* 0 when p starts with tag and our protocol; else err says why. */
static int check_head(const char *p, size_t len, const char *tag, char *err, size_t errlen)
{
    uint32_t version;
    if (len >= 4 && memcmp(p, tag, 4) && !memcmp(p, "JSB", 3)) {
        snprintf(err, errlen, "a message of another build of judge-sandbox (restart the "
                 "server)");
        return -1;
    }
    if (len < HEAD_LEN || memcmp(p, tag, 4)) {
        snprintf(err, errlen, "not a judge-sandbox message");
        return -1;
    }
    memcpy(&version, p + 4, sizeof version);
    if (version != CLI_PROTOCOL) {
        snprintf(err, errlen, "protocol version %u, not %u: the client and the server are "
                 "different builds of judge-sandbox", version, CLI_PROTOCOL);
        return -1;
    }
    return 0;
}

char *cli_encode_command(int argc, char *const *argv, size_t *len)
{
    struct wbuf w = {.cap = HEAD_LEN + 4};
    for (int i = 0; i < argc; i++)
        w.cap += 4 + strlen(argv[i]) + 1;
    if (w.cap > CLI_MAX_REQUEST || !(w.p = malloc(w.cap)))
        return NULL;
    put_head(&w, CLI_COMMAND_TAG);
    put_u32(&w, (uint32_t)argc);
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(argv[i]) + 1;
        put_u32(&w, (uint32_t)n);
        put(&w, argv[i], n);
    }
    *len = w.len;
    return w.p;
}

int cli_decode_command(const char *buf, size_t len, char ***argv, int *argc, char *err,
                       size_t errlen)
{
    size_t pos = HEAD_LEN + 4;
    uint32_t n, count;
    *argv = NULL;
    if (check_head(buf, len, CLI_COMMAND_TAG, err, errlen) < 0)
        return -1;
    if (len < pos || (memcpy(&count, buf + HEAD_LEN, 4), count == 0) ||
        count > (len - pos) / 4) {
        snprintf(err, errlen, "a malformed command line");
        return -1;
    }
    char **v = calloc((size_t)count + 1, sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < count; i++) {
        const char *s = take_bytes(buf, len, &pos, &n);
        if (!s || n == 0 || s[n - 1] || strlen(s) != n - 1) {
            free(v);
            snprintf(err, errlen, "a malformed command line");
            return -1;
        }
        v[i] = (char *)s;
    }
    if (pos != len) {
        free(v);
        snprintf(err, errlen, "a malformed command line");
        return -1;
    }
    *argv = v;
    *argc = (int)count;
    return 0;
}

char *cli_encode_reply(int status, const char *out, size_t outlen, const char *errs,
                       size_t errslen, size_t *len)
{
    struct wbuf w = {.cap = HEAD_LEN + 12 + outlen + errslen};
    if (!(w.p = malloc(w.cap)))
        return NULL;
    put_head(&w, CLI_REPLY_TAG);
    put_u32(&w, (uint32_t)status);
    put_u32(&w, (uint32_t)outlen);
    put(&w, out, outlen);
    put_u32(&w, (uint32_t)errslen);
    put(&w, errs, errslen);
    *len = w.len;
    return w.p;
}

/* ---- the client's side ----------------------------------------------------- */

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes out a reply's bytes; its exit status, or CLI_FAILED. */
static int output(const char *p, size_t len, const char *run_dir)
{
    size_t pos = HEAD_LEN + 4;
    uint32_t status, outlen, errlen;
    char err[200];
    const char *out = NULL, *errs = NULL;
    if (check_head(p, len, CLI_REPLY_TAG, err, sizeof err) == 0 && len >= pos) {
        memcpy(&status, p + HEAD_LEN, sizeof status);
        out = take_bytes(p, len, &pos, &outlen);
        errs = out ? take_bytes(p, len, &pos, &errlen) : NULL;
    }
    if (!errs || pos != len) {
        dprintf(2, "judge-sandbox: the judge-sandbox server at %s sent %s; stop it or use "
                "--no-server\n", run_dir, errs ? "a malformed reply" : err);
        return CLI_FAILED;
    }
    write_all(1, out, outlen);
    write_all(2, errs, errlen);
    return (int)status;
}

/* The hello, then the reply; a reply first is a refusal. */
static int exchange(int fd, const char *run_dir)
{
    char *p;
    long n = cli_recv(fd, &p, CLI_MAX_REQUEST, NULL, 0, NULL, 0);
    if (n == 4 && !memcmp(p, CLI_HELLO_TAG, 4)) {
        free(p);
        if ((n = cli_recv(fd, &p, CLI_MAX_REQUEST, NULL, 0, NULL, 0)) <= 0) {
            dprintf(2, "judge-sandbox: the judge-sandbox server at %s went away during the "
                    "run\n", run_dir);
            return CLI_FAILED;
        }
    } else if (n <= 0) {
        return CLI_NOT_TAKEN;  /* dropped before the hello: it is going idle */
    }
    int status = output(p, (size_t)n, run_dir);
    free(p);
    return status;
}

int cli_client_run(const char *run_dir, int argc, char *const *argv)
{
    size_t len;
    char *req = cli_encode_command(argc, argv, &len);
    if (!req) {
        dprintf(2, "judge-sandbox: the command line is too large for a judge-sandbox server; "
                "use --no-server\n");
        return CLI_FAILED;
    }
    int fd = cli_connect(run_dir);
    if (fd < 0) {
        free(req);
        return CLI_NO_SERVER;
    }
    /* A cwd we may not search (a user in a root-only directory) cannot be
     * opened: relative paths are then refused by the server. */
    int fds[CLI_MAX_FDS] = {0, 1, 2, open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)};
    int nfds = fds[3] >= 0 ? 4 : 3;
    int status = cli_send(fd, req, len, fds, nfds) == 0 ? exchange(fd, run_dir)
                                                         : CLI_NOT_TAKEN;
    if (fds[3] >= 0)
        close(fds[3]);
    close(fd);
    free(req);
    return status;
}
