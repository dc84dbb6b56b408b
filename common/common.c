/* common.c - see common.h. Each helper here replaced copies that sandbox/,
 * runner/ and judged/ had written for themselves. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

int common_mkdir_p(const char *path, mode_t mode)
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

char *common_read_fd(int fd, size_t max, size_t *len, bool *more)
{
    size_t cap = max < 65536 ? max : 65536, used = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        return NULL;
    for (;;) {
        if (used == cap && cap < max) {
            cap = cap * 2 < max ? cap * 2 : max;
            char *nb = realloc(buf, cap + 1);
            if (!nb)
                break;
            buf = nb;
        }
        if (used == cap)
            break;
        ssize_t n = read(fd, buf + used, cap - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            free(buf);
            errno = saved;
            return NULL;
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    char probe;
    bool longer = used == max && read(fd, &probe, 1) == 1;
    if (more)
        *more = longer;
    else if (longer) {
        free(buf);
        errno = EFBIG;
        return NULL;
    }
    buf[used] = '\0';
    if (len)
        *len = used;
    return buf;
}

char *common_read_file(const char *path, size_t max, size_t *len, bool *more)
{
    if (!strcmp(path, "-"))
        return common_read_fd(0, max, len, more);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *buf = common_read_fd(fd, max, len, more);
    int saved = errno;
    close(fd);
    errno = saved;
    return buf;
}

double common_monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int64_t common_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void common_sleep_ms(long ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

long common_jitter_ms(long ms)
{
    unsigned long r = 0;
    if (ms <= 0)
        return 0;
    /* never blocks: before the pool is seeded, the clock is random enough */
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
        r = (unsigned long)common_wall_ms() * 2654435761u;
    return ms / 2 + (long)(r % (unsigned long)(ms / 2 + 1));
}

long common_backoff_ms(long first_ms, int doublings, long cap_ms)
{
    long d = first_ms;
    for (int i = 0; i < doublings && d < cap_ms; i++)
        d *= 2;
    return common_jitter_ms(d > cap_ms ? cap_ms : d);
}

int common_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* openat2 answers EAGAIN when a rename anywhere on the machine ran while
 * it resolved a '..' (it cannot then vouch that the path stayed beneath):
 * tried again, as its manual says. A link bomb's thousands of '..' opens
 * met it on a busy machine (the store's expansion of a pushed package). */
int common_open_beneath(int dirfd, const char *rel, int flags, bool no_links)
{
    struct open_how how = {.flags = (unsigned long long)(flags | O_CLOEXEC),
                           .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS |
                                      (no_links ? RESOLVE_NO_SYMLINKS : 0)};
    int fd, tries = 0;
    while ((fd = (int)syscall(SYS_openat2, dirfd, *rel ? rel : ".", &how, sizeof how)) < 0 &&
           (errno == EAGAIN || errno == EINTR) && ++tries < 100)
        ;
    return fd;
}

int common_parse_size(const char *s, uint64_t *out)
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

int common_parse_seconds(const char *s, bool hours, double *out)
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
    else if (hours && !strcmp(end, "h"))
        v *= 3600;
    else if (*end && strcmp(end, "s"))
        return -1;
    *out = v;
    return 0;
}

int common_send_fds(int sock, char byte, const int *fds, int n)
{
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int) * COMMON_MAX_PASS_FDS)]; } ctl;
    struct iovec iov = {&byte, 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (n < 0 || n > COMMON_MAX_PASS_FDS) {
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

int common_recv_fds(int sock, char *byte, int *fds, int max, int *nfds, int flags)
{
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int) * COMMON_MAX_PASS_FDS)]; } ctl;
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
                close(fd); /* more than the caller takes: not ours to keep */
        }
    }
    return 1;
}

size_t common_utf8_len(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0)
        return 0;
    if (u[0] < 0x80)
        return 1;
    /* 0x80..0xc1 start nothing (a continuation byte, or an overlong 2-byte form) */
    size_t len = u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : u[0] >= 0xe0 ? 3 : u[0] >= 0xc2 ? 2 : 0;
    if (!len || u[0] > 0xf4 || len > n)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((u[i] & 0xc0) != 0x80)
            return 0;
    /* overlong 3/4-byte forms, surrogates and code points past U+10FFFF */
    if ((u[0] == 0xe0 && u[1] < 0xa0) || (u[0] == 0xed && u[1] >= 0xa0) || (u[0] == 0xf0 && u[1] < 0x90) ||
        (u[0] == 0xf4 && u[1] >= 0x90))
        return 0;
    return len;
}

bool common_utf8_valid(const char *s)
{
    for (size_t n = strlen(s), len; n; s += len, n -= len)
        if (!(len = common_utf8_len(s, n)))
            return false;
    return true;
}

void common_utf8_repair(char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t len = common_utf8_len(s + i, n - i);
        if (len)
            i += len;
        else
            s[i++] = '?';
    }
}

char *common_utf8_dup(const char *s)
{
    char *out = strdup(s ? s : "");
    if (out)
        common_utf8_repair(out);
    return out;
}

/* A line is ONE write(2): stderr is unbuffered, so a prefix, the message
 * and the newline written apart were three system calls per line (judged
 * logs a line per job: strace showed them on every job), and another
 * process appending to the same file could land between them. */
void common_vlog(const char *who, const char *fmt, va_list ap)
{
    char ts[32], stack[2048];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    int head = snprintf(stack, sizeof stack, "%s %s: ", ts, who);
    if (head < 0 || (size_t)head >= sizeof stack)
        return;
    va_list again;
    va_copy(again, ap);
    int body = vsnprintf(stack + head, sizeof stack - head, fmt, ap);
    char *line = stack;
    size_t len = (size_t)head + (body > 0 ? (size_t)body : 0);
    if (body >= 0 && len + 1 >= sizeof stack) {
        /* a long line (a compiler's message): on the heap, or cut */
        char *big = malloc(len + 2);
        if (big) {
            memcpy(big, stack, head);
            vsnprintf(big + head, len + 1 - head, fmt, again);
            line = big;
        } else {
            len = sizeof stack - 2;
        }
    }
    va_end(again);
    line[len] = '\n';
    fwrite(line, 1, len + 1, stderr);
    if (line != stack)
        free(line);
}

void common_log(const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    common_vlog(who, fmt, ap);
    va_end(ap);
}

int common_parse_cpus(const char *s, int *out, int max)
{
    int n = 0;
    while (*s) {
        char *end;
        errno = 0;
        long lo = strtol(s, &end, 10), hi = lo;
        if (errno || end == s || !isdigit((unsigned char)*s) || lo >= COMMON_MAX_CPUS)
            return -1;
        s = end;
        if (*s == '-') {
            hi = isdigit((unsigned char)s[1]) ? strtol(s + 1, &end, 10) : -1;
            if (errno || hi < lo || hi >= COMMON_MAX_CPUS)
                return -1;
            s = end;
        }
        for (long c = lo; c <= hi; c++) {
            if (n >= max)
                return -1;
            out[n++] = (int)c;
        }
        if (*s == ',' && s[1])
            s++;
        else if (*s)
            return -1;
    }
    return n > 0 ? n : -1;
}
