/* Forks a child (so there is someone in the box to hit), then sends SIGKILL
 * to every process it may signal, then to pid 1 and to pids 2..199; reports
 * and exits 0 if it is still alive:
 *   child <killed|alive>   whether kill(-1) took the child down,
 *   kill(-1) <rc> <errno|ok>, kill(1) <rc> <errno|ok> */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
    pid_t child = fork();
    if (child == 0) {
        for (;;)
            pause();
    }
    usleep(20 * 1000);
    int rc = kill(-1, SIGKILL);
    printf("kill(-1) %d %s\n", rc, rc ? strerrorname_np(errno) : "ok");
    int st = 0;
    if (child > 0 && waitpid(child, &st, 0) == child)
        printf("child %s\n", WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? "killed" : "alive");
    rc = kill(1, SIGKILL);
    printf("kill(1) %d %s\n", rc, rc ? strerrorname_np(errno) : "ok");
    for (int pid = 2; pid < 200; pid++)
        if (pid != getpid())
            kill(pid, SIGKILL);
    fflush(stdout);
    return 0;
}
