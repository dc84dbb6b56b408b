/* A daemon tries to outlive the run: fork, setsid, double fork, the parent
 * exits 0 at once; the grandchild writes argv[1] (a marker in /box) after
 * one second, unless it was killed with the box. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    pid_t pid = fork();
    if (pid < 0)
        return 3;
    if (pid > 0) {
        usleep(50 * 1000);  /* let the child get going, then leave */
        return 0;
    }
    setsid();
    signal(SIGHUP, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    if (fork() > 0)
        _exit(0);
    sleep(1);
    int fd = open(argv[1], O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) {
        (void)!write(fd, "escaped\n", 8);
        close(fd);
    }
    return 0;
}
