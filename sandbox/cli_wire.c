/*
 * cli_wire.c - the messages between a judge-sandbox client and its server.
 *
 * A SOCK_SEQPACKET unix socket at <run_dir>/server.sock: every message is
 * one packet, so no framing is needed and a peer that goes away is seen as
 * EOF (and, by the server's sandbox_run, as a hang-up that cancels the run).
 *
 *   client -> server   request: the job and the client's sandbox settings,
 *                      with its stdin, stdout and stderr attached (SCM_RIGHTS)
 *   server -> client   hello, as soon as the server takes the connection
 *   server -> client   reply: the struct sandbox_result and the cgroup version
 *
 * The thin client (cli_thin.c) sends a forwarded command line instead: its
 * argv, with its cwd (an O_PATH fd), stdin, stdout and stderr attached; the
 * server parses it as the core would and replies with the exit status and
 * the bytes the core would have written to stdout and stderr. cli_thin.c
 * encodes and decodes these two itself (it links nothing of ours).
 *
 * The encoding is binary, not JSON: argv, the environment and paths are
 * bytes that need not be UTF-8, which JSON parsers refuse. Numbers are in
 * host order (client and server always share a host); a string is its length
 * with the NUL, then its bytes, and length 0 stands for NULL. Each message
 * starts with a tag and CLI_PROTOCOL, so builds that disagree say so.
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

const char cli_hello[4] = {'J', 'S', 'B', 'H'};
static const char request_tag[4] = {'J', 'S', 'B', 'Q'};
static const char reply_tag[4] = {'J', 'S', 'B', 'R'};
static const char forward_tag[4] = CLI_FORWARD_TAG;
static const char forward_reply_tag[4] = CLI_FORWARD_REPLY_TAG;

void cli_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* ---- the socket -------------------------------------------------------- */

/* sun_path holds 107 bytes and a run dir may have 200: a longer path is
 * reached through an O_PATH fd of the directory and /proc/self/fd. */
static int socket_addr(const char *run_dir, struct sockaddr_un *sa, int *dirfd)
{
    *dirfd = -1;
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    int n = snprintf(sa->sun_path, sizeof sa->sun_path, "%s/%s", run_dir, CLI_SOCKET_NAME);
    if (n >= 0 && (size_t)n < sizeof sa->sun_path)
        return 0;
    if ((*dirfd = open(run_dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        return -1;
    snprintf(sa->sun_path, sizeof sa->sun_path, "/proc/self/fd/%d/%s", *dirfd, CLI_SOCKET_NAME);
    return 0;
}

int cli_connect(const char *run_dir)
{
    struct sockaddr_un sa;
    int dirfd;
    if (socket_addr(run_dir, &sa, &dirfd) < 0)
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
    if (cli_unlink_socket(run_dir) < 0 || socket_addr(run_dir, &sa, &dirfd) < 0) {
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

/* ---- messages with fds -------------------------------------------------- */

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
    ssize_t n;
    do
        n = sendmsg(fd, &m, MSG_NOSIGNAL);  /* a gone peer is an error, not SIGPIPE */
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)len ? 0 : -1;
}

static void take_fds(struct msghdr *m, int *fds, int maxfds, int *nfds)
{
    for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < count; i++) {
            int f;
            memcpy(&f, CMSG_DATA(c) + i * sizeof f, sizeof f);
            if (*nfds < maxfds)
                fds[(*nfds)++] = f;
            else
                close(f);
        }
    }
}

ssize_t cli_recv(int fd, void *buf, size_t len, int *fds, int maxfds, int *nfds, int flags)
{
    union fd_control control;
    struct iovec iov = {buf, len};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                       .msg_controllen = sizeof control.buf};
    int got = 0;
    ssize_t n;
    do
        n = recvmsg(fd, &m, MSG_CMSG_CLOEXEC | flags);
    while (n < 0 && errno == EINTR);
    if (n >= 0)
        take_fds(&m, fds, maxfds, &got);
    if (n >= 0 && (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        while (got > 0)
            close(fds[--got]);
        errno = EMSGSIZE;
        n = -1;
    }
    if (nfds)
        *nfds = got;
    return n;
}

/* ---- encoding ------------------------------------------------------------ */

struct wbuf {
    char *p;
    size_t len, cap;
    bool failed;
};

static void put(struct wbuf *w, const void *v, size_t n)
{
    if (w->failed)
        return;
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 1024;
        while (cap < w->len + n)
            cap *= 2;
        char *p = realloc(w->p, cap);
        if (!p) {
            w->failed = true;
            return;
        }
        w->p = p;
        w->cap = cap;
    }
    memcpy(w->p + w->len, v, n);
    w->len += n;
}

static void put_u32(struct wbuf *w, uint32_t v) { put(w, &v, sizeof v); }
static void put_u64(struct wbuf *w, uint64_t v) { put(w, &v, sizeof v); }
static void put_f64(struct wbuf *w, double v) { put(w, &v, sizeof v); }
static void put_u8(struct wbuf *w, bool v) { put(w, &(uint8_t){v}, 1); }

static void put_str(struct wbuf *w, const char *s)
{
    size_t n = s ? strlen(s) + 1 : 0;
    put_u32(w, (uint32_t)n);
    if (s)
        put(w, s, n);
}

static void put_head(struct wbuf *w, const char tag[4])
{
    put(w, tag, 4);
    put_u32(w, CLI_PROTOCOL);
}

static char *finish(struct wbuf *w, size_t *len)
{
    if (w->failed) {
        free(w->p);
        return NULL;
    }
    *len = w->len;
    return w->p;
}

struct rbuf {
    const char *p;
    size_t len, pos;
    bool failed;
};

static const char *take(struct rbuf *r, size_t n)
{
    if (r->failed || r->len - r->pos < n) {
        r->failed = true;
        return NULL;
    }
    const char *v = r->p + r->pos;
    r->pos += n;
    return v;
}

static void get(struct rbuf *r, void *v, size_t n)
{
    const char *p = take(r, n);
    if (p)
        memcpy(v, p, n);
}

static uint32_t get_u32(struct rbuf *r) { uint32_t v = 0; get(r, &v, sizeof v); return v; }
static uint64_t get_u64(struct rbuf *r) { uint64_t v = 0; get(r, &v, sizeof v); return v; }
static double get_f64(struct rbuf *r) { double v = 0; get(r, &v, sizeof v); return v; }
static bool get_u8(struct rbuf *r) { uint8_t v = 0; get(r, &v, sizeof v); return v; }

/* The string in place (NUL-terminated by the encoding), or NULL. */
static const char *get_str(struct rbuf *r)
{
    uint32_t n = get_u32(r);
    if (!n)
        return NULL;
    const char *s = take(r, n);
    if (s && (s[n - 1] || strlen(s) != n - 1)) {
        r->failed = true;
        return NULL;
    }
    return s;
}

/* A count of strings, each at least 4 bytes: bounds what it allocates. */
static uint32_t get_count(struct rbuf *r)
{
    uint32_t n = get_u32(r);
    if (n > (r->len - r->pos) / 4)
        r->failed = true;
    return r->failed ? 0 : n;
}

static int get_head(struct rbuf *r, const char tag[4], char *err, size_t errlen)
{
    const char *t = take(r, 4);
    uint32_t version = get_u32(r);
    if (r->failed || memcmp(t, tag, 4)) {
        snprintf(err, errlen, "not a judge-sandbox message");
        return -1;
    }
    if (version != CLI_PROTOCOL) {
        snprintf(err, errlen, "protocol version %u, not %u: the client and the server are "
                 "different builds of judge-sandbox", version, CLI_PROTOCOL);
        return -1;
    }
    return 0;
}

/* ---- requests ------------------------------------------------------------ */

static void put_strings(struct wbuf *w, const char *const *v)
{
    uint32_t n = 0;
    while (v && v[n])
        n++;
    put_u32(w, n);
    for (uint32_t i = 0; i < n; i++)
        put_str(w, v[i]);
}

static void put_limits(struct wbuf *w, const struct sandbox_limits *l)
{
    put_f64(w, l->cpu_time);
    put_f64(w, l->wall_time);
    put_u64(w, l->memory);
    put_u64(w, l->output);
    put_u64(w, l->tmp_size);
    put_u64(w, l->stack);
    put_u32(w, (uint32_t)l->procs);
    put_u32(w, (uint32_t)l->open_files);
}

char *cli_encode_request(const struct sandbox_config *cfg, const struct sandbox_job *job,
                         size_t *len)
{
    struct wbuf w = {0};
    put_head(&w, request_tag);
    put_str(&w, cfg->run_dir);
    put_u32(&w, (uint32_t)cfg->cgroup_mode);
    put_str(&w, cfg->cgroup_root);
    put_str(&w, cfg->cgroup_parent);
    put_u32(&w, (uint32_t)job->slot);
    put_str(&w, job->profile);
    put_str(&w, job->workdir);
    put_limits(&w, &job->limits);
    put_strings(&w, job->argv);
    put_strings(&w, job->envp);
    put_u32(&w, (uint32_t)job->mount_count);
    for (size_t i = 0; i < job->mount_count; i++) {
        put_str(&w, job->mounts[i].host);
        put_str(&w, job->mounts[i].inside);
        put_u8(&w, job->mounts[i].writable);
        put_u8(&w, job->mounts[i].optional);
    }
    return finish(&w, len);
}

/* A NULL-terminated array of the strings, or NULL (out of memory). */
static const char **get_strings(struct rbuf *r)
{
    uint32_t n = get_count(r);
    const char **v = calloc((size_t)n + 1, sizeof *v);
    for (uint32_t i = 0; v && i < n; i++)
        if (!(v[i] = get_str(r)))
            r->failed = true;
    return v;
}

static void get_limits(struct rbuf *r, struct sandbox_limits *l)
{
    l->cpu_time = get_f64(r);
    l->wall_time = get_f64(r);
    l->memory = get_u64(r);
    l->output = get_u64(r);
    l->tmp_size = get_u64(r);
    l->stack = get_u64(r);
    l->procs = (int)get_u32(r);
    l->open_files = (int)get_u32(r);
}

static int get_mounts(struct rbuf *r, struct cli_request *req)
{
    uint32_t n = get_count(r);
    if (!(req->mounts = calloc((size_t)n + 1, sizeof *req->mounts)))
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        struct sandbox_mount *m = &req->mounts[i];
        m->host = get_str(r);
        m->inside = get_str(r);
        m->writable = get_u8(r);
        m->optional = get_u8(r);
    }
    req->job.mounts = req->mounts;
    req->job.mount_count = n;
    return 0;
}

int cli_decode_request(const char *buf, size_t len, struct cli_request *req, char *err,
                       size_t errlen)
{
    memset(req, 0, sizeof *req);
    req->job = (struct sandbox_job)SANDBOX_JOB_INIT;
    struct rbuf r = {.p = buf, .len = len};
    if (get_head(&r, request_tag, err, errlen) < 0)
        return -1;
    struct sandbox_config *cfg = &req->config;
    cfg->run_dir = get_str(&r);
    cfg->cgroup_mode = (enum sandbox_cgroup_mode)get_u32(&r);
    cfg->cgroup_root = get_str(&r);
    cfg->cgroup_parent = get_str(&r);
    struct sandbox_job *job = &req->job;
    job->slot = (int)get_u32(&r);
    job->profile = get_str(&r);
    job->workdir = get_str(&r);
    get_limits(&r, &job->limits);
    req->argv = get_strings(&r);
    req->envp = get_strings(&r);
    if (!req->argv || !req->envp || get_mounts(&r, req) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (r.failed || r.pos != r.len || !cfg->run_dir) {
        snprintf(err, errlen, "a malformed request");
        return -1;
    }
    job->argv = req->argv;
    job->envp = req->envp;
    return 0;
}

void cli_request_free(struct cli_request *req)
{
    free(req->argv);
    free(req->envp);
    free(req->mounts);
    memset(req, 0, sizeof *req);
}

/* ---- forwarded command lines ---------------------------------------------- */

bool cli_is_forward(const char *buf, size_t len)
{
    return len >= 4 && !memcmp(buf, forward_tag, 4);
}

int cli_decode_forward(const char *buf, size_t len, char ***argv, int *argc, char *err,
                       size_t errlen)
{
    struct rbuf r = {.p = buf, .len = len};
    *argv = NULL;
    if (get_head(&r, forward_tag, err, errlen) < 0)
        return -1;
    const char **v = get_strings(&r);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (r.failed || r.pos != r.len || !v[0]) {
        free(v);
        snprintf(err, errlen, "a malformed command line");
        return -1;
    }
    for (*argc = 0; v[*argc]; (*argc)++)
        ;
    *argv = (char **)v;
    return 0;
}

char *cli_encode_forward_reply(int status, const char *out, size_t outlen, const char *errs,
                               size_t errslen, size_t *len)
{
    struct wbuf w = {0};
    put_head(&w, forward_reply_tag);
    put_u32(&w, (uint32_t)status);
    put_u32(&w, (uint32_t)outlen);
    put(&w, out, outlen);
    put_u32(&w, (uint32_t)errslen);
    put(&w, errs, errslen);
    return finish(&w, len);
}

/* ---- replies ------------------------------------------------------------- */

char *cli_encode_reply(const struct cli_reply *reply, size_t *len)
{
    const struct sandbox_result *res = &reply->res;
    struct wbuf w = {0};
    put_head(&w, reply_tag);
    put_u32(&w, (uint32_t)res->status);
    put_u32(&w, (uint32_t)res->exit_code);
    put_u32(&w, (uint32_t)res->signal);
    put_f64(&w, res->cpu_time);
    put_f64(&w, res->wall_time);
    put_u64(&w, res->memory);
    put_u8(&w, res->tle_wall);
    put_u8(&w, res->degraded);
    put_str(&w, res->syscall_name);
    put_str(&w, res->message);
    put_str(&w, reply->cgroup);
    return finish(&w, len);
}

static void copy_str(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

int cli_decode_reply(const char *buf, size_t len, struct cli_reply *reply, char *err,
                     size_t errlen)
{
    memset(reply, 0, sizeof *reply);
    struct sandbox_result *res = &reply->res;
    struct rbuf r = {.p = buf, .len = len};
    if (get_head(&r, reply_tag, err, errlen) < 0)
        return -1;
    uint32_t status = get_u32(&r);
    res->status = status <= SANDBOX_IE ? (enum sandbox_status)status : SANDBOX_IE;
    res->exit_code = (int)get_u32(&r);
    res->signal = (int)get_u32(&r);
    res->cpu_time = get_f64(&r);
    res->wall_time = get_f64(&r);
    res->memory = get_u64(&r);
    res->tle_wall = get_u8(&r);
    res->degraded = get_u8(&r);
    copy_str(res->syscall_name, sizeof res->syscall_name, get_str(&r));
    copy_str(res->message, sizeof res->message, get_str(&r));
    copy_str(reply->cgroup, sizeof reply->cgroup, get_str(&r));
    if (r.failed || r.pos != r.len) {
        snprintf(err, errlen, "a malformed reply");
        return -1;
    }
    return 0;
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
