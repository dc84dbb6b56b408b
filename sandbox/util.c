/* util.c - small file and parsing helpers shared by the sandbox modules. */
#include <ctype.h>
#include <errno.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

int sb_write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int saved = errno;
    close(fd);
    if (w != (ssize_t)n) {
        errno = w < 0 ? saved : EIO;
        return -1;
    }
    return 0;
}

int sb_read_file(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, buf, len - 1);
    int saved = errno;
    close(fd);
    if (r < 0) {
        errno = saved;
        return -1;
    }
    buf[r] = '\0';
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) {
        errno = errno ? errno : EINVAL;
        return -1;
    }
    *out = v;
    return 0;
}

int sb_read_u64(const char *path, uint64_t *out)
{
    char buf[64];
    if (sb_read_file(path, buf, sizeof buf) < 0)
        return -1;
    return parse_u64(buf, out);
}

int sb_pread_u64(int fd, uint64_t *out)
{
    char buf[64];
    ssize_t r = pread(fd, buf, sizeof buf - 1, 0);
    if (r < 0)
        return -1;
    buf[r] = '\0';
    return parse_u64(buf, out);
}

int sb_mkdir_p(const char *path, mode_t mode)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, mode) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, mode) < 0 && errno != EEXIST)
        return -1;
    return 0;
}

void sb_errf(char *err, size_t len, const char *fmt, ...)
{
    if (!err || !len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

double sb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int sandbox_parse_size(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || v < 0)
        return -1;
    uint64_t mult = 1;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': mult = 1ULL << 10; end++; break;
    case 'M': mult = 1ULL << 20; end++; break;
    case 'G': mult = 1ULL << 30; end++; break;
    case 'T': mult = 1ULL << 40; end++; break;
    default: return -1;
    }
    if (mult > 1 && (*end == 'i' || *end == 'I'))
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end)
        return -1;
    double bytes = v * (double)mult;
    if (bytes >= 18e18)
        return -1;
    *out = (uint64_t)llround(bytes);
    return 0;
}

int sandbox_parse_seconds(const char *s, double *out)
{
    if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || v < 0 || !isfinite(v))
        return -1;
    if (!strcmp(end, "ms"))
        v /= 1000;
    else if (!strcmp(end, "m") || !strcmp(end, "min"))
        v *= 60;
    else if (*end && strcmp(end, "s"))
        return -1;
    *out = v;
    return 0;
}

int sb_send_fds(int sock, char byte, const int *fds, int n)
{
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int) * SB_MAX_PASS_FDS)]; } ctl;
    struct iovec iov = {&byte, 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (n < 0 || n > SB_MAX_PASS_FDS) {
        errno = EINVAL;
        return -1;
    }
    if (n) {
        memset(&ctl, 0, sizeof ctl);
        msg.msg_control = ctl.buf;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
    }
    return sendmsg(sock, &msg, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int sb_recv_fds(int sock, char *byte, int *fds, int max, int *nfds, int flags)
{
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int) * SB_MAX_PASS_FDS)]; } ctl;
    struct iovec iov = {byte, 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                         .msg_controllen = sizeof ctl.buf};
    ssize_t got;
    *nfds = 0;
    while ((got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | flags)) < 0 && errno == EINTR)
        ;
    if (got <= 0)
        return (int)got;
    for (struct cmsghdr *h = CMSG_FIRSTHDR(&msg); h; h = CMSG_NXTHDR(&msg, h)) {
        if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
            continue;
        int k = (int)((h->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(h) + sizeof(int) * (size_t)i, sizeof fd);
            if (*nfds < max)
                fds[(*nfds)++] = fd;
            else
                close(fd);  /* more than the caller takes: not ours to keep */
        }
    }
    return 1;
}
