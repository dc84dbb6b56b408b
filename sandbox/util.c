/* util.c - small file and parsing helpers shared by the sandbox modules; the
 * ones every layer needs are common/common.h underneath. */
#include <ctype.h>
#include <errno.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
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
    return common_mkdir_p(path, mode);
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
    return common_monotonic();
}

int sandbox_parse_size(const char *s, uint64_t *out)
{
    return common_parse_size(s, out);
}

int sandbox_parse_seconds(const char *s, double *out)
{
    return common_parse_seconds(s, false, out);
}

int sb_parse_cpus(const char *s, int *out, int max)
{
    _Static_assert(SB_MAX_CPUS == COMMON_MAX_CPUS, "one bound on CPU numbers");
    return common_parse_cpus(s, out, max);
}

int sb_send_fds(int sock, char byte, const int *fds, int n)
{
    return common_send_fds(sock, byte, fds, n);
}

int sb_recv_fds(int sock, char *byte, int *fds, int max, int *nfds, int flags)
{
    return common_recv_fds(sock, byte, fds, max, nfds, flags);
}

void sb_close_all_but(int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    if (lo < 0)
        lo = hi, hi = -1;
    if (lo > 0)   /* lo - 1 of 0 would be ~0U: every fd, the kept one too */
        syscall(SYS_close_range, 0, lo - 1, 0);
    if (hi >= 0) {
        syscall(SYS_close_range, lo + 1, hi - 1, 0);
        syscall(SYS_close_range, hi + 1, ~0U, 0);
    } else {
        syscall(SYS_close_range, lo + 1, ~0U, 0);
    }
}

/* ThreadSanitizer intercepts glibc's clone() and keeps its runtime's locks
 * consistent across it; a raw copy of a multi-threaded process may keep a
 * lock another thread held, and hang on it at its own next clone (the
 * keeper's spawn of the program). AddressSanitizer, on the other hand, warns
 * (on the box's stderr) when a process on a stack it did not make calls a
 * noreturn function. So: glibc's clone on a stack of its own under TSan,
 * the raw system call on the caller's stack (copied) everywhere else. */
#if defined(__SANITIZE_THREAD__)
#define SB_CLONE_THROUGH_GLIBC 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SB_CLONE_THROUGH_GLIBC 1
#endif
#endif

#ifdef SB_CLONE_THROUGH_GLIBC
/* The child's stack: only the pages it touches cost anything. The parent
 * drops its copy at once; the child has its own (no CLONE_VM). */
#define SB_CLONE_STACK (8u << 20)

pid_t sb_clone(int (*fn)(void *), void *arg, int flags, int *pidfd)
{
    char *stack = mmap(NULL, SB_CLONE_STACK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED)
        return -1;
    pid_t pid = clone(fn, stack + SB_CLONE_STACK, flags, arg, pidfd);
    int saved = errno;
    munmap(stack, SB_CLONE_STACK);
    errno = saved;
    return pid;
}
#else
pid_t sb_clone(int (*fn)(void *), void *arg, int flags, int *pidfd)
{
    long pid = syscall(SYS_clone, flags, NULL, pidfd, NULL, 0);
    if (pid == 0)
        _exit(fn(arg));
    return (pid_t)pid;
}
#endif
