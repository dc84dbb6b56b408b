/* kmem_hoard MODE PROCS: PROCS processes pin as much kernel memory of one
 * kind as they can, each up to 64 MiB, report what they hold and wait; the
 * parent prints "held <bytes>" once all have reported, and exits 0.
 *   tcp     loopback TCP connections whose receivers never read: socket
 *           buffers (~30 per process, both directions filled)
 *   pipe    pipes of 1 MiB (F_SETPIPE_SZ) filled and never read
 *   memfd   one memfd written full (memory no filesystem size bounds)
 * With PROCS 1 it hoards in its own process. Without arguments (as a
 * submission) "MODE PROCS LIMIT" come from stdin, and it prints "within"
 * when it held at most LIMIT bytes, else "beyond" and the figure. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* also when compiled as a submission (-std=c17) */
#endif
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define QUOTA (64LL << 20)

static char chunk[64 << 10];

/* Writes into fd until it would block or the quota is reached. */
static long long fill(int fd, long long left)
{
    long long n = 0;
    while (n < left) {
        ssize_t k = write(fd, chunk, sizeof chunk);
        if (k <= 0)
            break;
        n += k;
    }
    return n;
}

static long long hoard_tcp(void)
{
    int big = 4 << 20;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 64) < 0 ||
        getsockname(l, (struct sockaddr *)&a, &len) < 0)
        return 0;
    long long held = 0;
    for (int i = 0; i < 30 && held < QUOTA; i++) {
        int c = socket(AF_INET, SOCK_STREAM, 0);
        if (c < 0)
            break;
        setsockopt(c, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        setsockopt(c, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
        if (connect(c, (struct sockaddr *)&a, sizeof a) < 0)
            break;
        int s = accept(l, NULL, NULL);
        if (s < 0)
            break;
        setsockopt(s, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        fcntl(c, F_SETFL, O_NONBLOCK);
        fcntl(s, F_SETFL, O_NONBLOCK);
        held += fill(c, QUOTA - held);
        held += fill(s, QUOTA - held);
    }
    return held;
}

static long long hoard_pipe(void)
{
    long long held = 0;
    for (int i = 0; i < 30 && held < QUOTA; i++) {
        int p[2];
        if (pipe2(p, O_NONBLOCK) < 0)
            break;
        fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
        held += fill(p[1], QUOTA - held);
    }
    return held;
}

static long long hoard_memfd(void)
{
    int fd = memfd_create("hoard", 0);
    return fd < 0 ? 0 : fill(fd, QUOTA);
}

static long long hoard(const char *m)
{
    return !strcmp(m, "tcp") ? hoard_tcp() : !strcmp(m, "pipe") ? hoard_pipe()
         : !strcmp(m, "memfd") ? hoard_memfd() : 0;
}

int main(int argc, char **argv)
{
    static char mode[16];
    long long limit = -1;
    int procs = 0, rep[2];
    if (argc >= 3) {
        snprintf(mode, sizeof mode, "%s", argv[1]);
        procs = atoi(argv[2]);
    } else if (scanf("%15s %d %lld", mode, &procs, &limit) != 3) {
        return 2;
    }
    const char *m = mode;
    memset(chunk, 'k', sizeof chunk);
    if (procs <= 1) {
        long long held = hoard(m);
        if (limit < 0)
            printf("held %lld\n", held);
        else if (held <= limit)
            printf("within\n");
        else
            printf("beyond: held %lld\n", held);
        return 0;
    }
    if (pipe(rep) < 0)
        return 1;
    for (int i = 0; i < procs; i++) {
        pid_t pid = fork();
        if (pid < 0)
            break;
        if (pid > 0)
            continue;
        close(rep[0]);
        long long held = hoard(m);
        if (write(rep[1], &held, sizeof held) != sizeof held)
            _exit(1);
        for (;;)
            pause();
    }
    close(rep[1]);
    long long total = 0, one;
    for (int i = 0; i < procs && read(rep[0], &one, sizeof one) == sizeof one; i++)
        total += one;
    printf("held %lld\n", total);
    return 0;
}
