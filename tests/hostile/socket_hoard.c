/* socket_hoard PROCS PAIRS: PROCS processes each fill PAIRS unix socket pairs
 * to the brim (kernel socket buffers), hold them for a second, and print how
 * many bytes they queued in total. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static long long hoard(int pairs)
{
    static char buf[4096];
    long long total = 0;
    for (int i = 0; i < pairs; i++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
            break;
        fcntl(sv[0], F_SETFL, O_NONBLOCK);
        ssize_t n;
        while ((n = write(sv[0], buf, sizeof buf)) > 0)
            total += n;
    }
    return total;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int procs = atoi(argv[1]), pairs = atoi(argv[2]);
    int p[2];
    if (pipe(p) < 0)
        return 1;
    for (int i = 0; i < procs; i++) {
        if (fork() == 0) {
            close(p[0]);
            long long t = hoard(pairs);
            (void)!write(p[1], &t, sizeof t);
            sleep(2);
            _exit(0);
        }
    }
    close(p[1]);
    long long sum = 0, t;
    while (read(p[0], &t, sizeof t) == sizeof t)
        sum += t;
    printf("queued %lld\n", sum);
    fflush(stdout);
    sleep(1);
    return 0;
}
