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
 * musl, links nothing but libc and only moves bytes: it sends its argv, an
 * O_PATH fd of its cwd and its stdin, stdout and stderr to
 * <run_dir>/server.sock; the server parses the command line and prints the
 * verdict with the core's own code, and this program writes out the bytes
 * and exits with the status it gets back.
 *
 * Whatever it does not forward it leaves to the core, by exec with the same
 * argv: --help, --serve, --no-server, a relative run dir, no server there
 * (the core starts one), a server that drops or refuses it before the job
 * starts, or answers that the command line is not for it. Nothing of the
 * job has happened by then, so the core does it all, as it always did.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* ---- the request ----------------------------------------------------------- */

struct buf {
    char *p;
    size_t len, cap;
};

static void put(struct buf *b, const void *v, size_t n)
{
    if (b->len + n <= b->cap)
        memcpy(b->p + b->len, v, n);
    b->len += n;  /* past cap: the caller sees it was too large */
}

static void put_u32(struct buf *b, uint32_t v)
{
    put(b, &v, sizeof v);
}

/* The encoding cli_wire.c decodes (cli_decode_forward): tag, protocol,
 * count, then each string as its length with the NUL and its bytes. NULL if
 * larger than a server takes. */
static char *encode(int argc, char **argv, size_t *len)
{
    struct buf b = {.cap = HEAD_LEN + 4};
    for (int i = 0; i < argc; i++)
        b.cap += 4 + strlen(argv[i]) + 1;
    if (b.cap > CLI_MAX_REQUEST || !(b.p = malloc(b.cap)))
        return NULL;
    put(&b, CLI_FORWARD_TAG, 4);
    put_u32(&b, CLI_PROTOCOL);
    put_u32(&b, (uint32_t)argc);
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(argv[i]) + 1;
        put_u32(&b, (uint32_t)n);
        put(&b, argv[i], n);
    }
    *len = b.len;
    return b.p;
}

/* -1 with errno: no server answers at run_dir (or it cannot be named). */
static int connect_server(const char *run_dir)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int n = snprintf(sa.sun_path, sizeof sa.sun_path, "%s/%s", run_dir, CLI_SOCKET_NAME);
    if (n < 0 || (size_t)n >= sizeof sa.sun_path) {
        errno = ENAMETOOLONG;  /* the core reaches it through /proc/self/fd */
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The request with our cwd, stdin, stdout and stderr. A server that refuses
 * us replies and closes before reading: EPIPE, and the refusal is there to
 * read. */
static int send_request(int fd, const char *req, size_t len)
{
    int fds[CLI_FORWARD_FDS] = {open(".", O_PATH | O_DIRECTORY | O_CLOEXEC), 0, 1, 2};
    if (fds[0] < 0)
        return -1;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof fds)];
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {(void *)req, len};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    int room = (int)len * 2 + 65536;  /* a packet must fit the send buffer */
    if (len > 65536)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &room, sizeof room);
    ssize_t n;
    do
        n = sendmsg(fd, &m, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    close(fds[0]);
    return n == (ssize_t)len || (n < 0 && (errno == EPIPE || errno == ECONNRESET)) ? 0 : -1;
}

/* ---- the reply -------------------------------------------------------------- */

/* The next packet, malloc'ed; NULL at EOF or on an error. */
static char *recv_packet(int fd, size_t *len)
{
    ssize_t n;
    do
        n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);  /* its size; waits for it */
    while (n < 0 && errno == EINTR);
    char *p = n > 0 ? malloc((size_t)n) : NULL;
    if (!p)
        return NULL;
    do
        n = recv(fd, p, (size_t)n, 0);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
        free(p);
        return NULL;
    }
    *len = (size_t)n;
    return p;
}

static bool is_msg(const char *p, size_t len, const char *tag)
{
    uint32_t version;
    if (len < HEAD_LEN || memcmp(p, tag, 4))
        return false;
    memcpy(&version, p + 4, sizeof version);
    return version == CLI_PROTOCOL;
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

/* Writes out the core's output from a forwarded reply; its exit status, or
 * CLI_FORWARD_RUN_CORE (also for a reply that is not one: a refusal). */
static int output(const char *p, size_t len)
{
    size_t pos = HEAD_LEN + 4;
    uint32_t status, outlen, errlen;
    if (!is_msg(p, len, CLI_FORWARD_REPLY_TAG) || len < pos)
        return CLI_FORWARD_RUN_CORE;
    memcpy(&status, p + HEAD_LEN, sizeof status);
    const char *out = take_bytes(p, len, &pos, &outlen);
    const char *err = out ? take_bytes(p, len, &pos, &errlen) : NULL;
    if ((int)status == CLI_FORWARD_RUN_CORE || !err || pos != len)
        return CLI_FORWARD_RUN_CORE;
    write_all(1, out, outlen);
    write_all(2, err, errlen);
    return (int)status;
}

/* The hello, then the reply. CLI_FORWARD_RUN_CORE when the job did not
 * start: no hello (a server going idle dropped us, or refused us). */
static int exchange(int fd, const char *run_dir)
{
    size_t len;
    char *p = recv_packet(fd, &len);
    bool hello = p && len == 4 && !memcmp(p, CLI_HELLO_TAG, 4);
    free(p);
    if (!hello)
        return CLI_FORWARD_RUN_CORE;
    if (!(p = recv_packet(fd, &len))) {
        dprintf(2, "judge-sandbox: the judge-sandbox server at %s went away during the "
                "run\n", run_dir);
        return 1;
    }
    int status = output(p, len);
    free(p);
    return status;
}

/* ---- main ------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *run_dir = CLI_DEFAULT_RUN_DIR;
    cli_fill_stdio();
    if (argc < 1 || wants_core(argc, argv, &run_dir) || run_dir[0] != '/')
        run_core(argv);
    size_t len;
    char *req = encode(argc, argv, &len);
    int fd = req ? connect_server(run_dir) : -1;
    int status = CLI_FORWARD_RUN_CORE;
    if (fd >= 0 && send_request(fd, req, len) == 0)
        status = exchange(fd, run_dir);
    free(req);
    if (fd >= 0)
        close(fd);
    if (status == CLI_FORWARD_RUN_CORE)
        run_core(argv);
    return status;
}
