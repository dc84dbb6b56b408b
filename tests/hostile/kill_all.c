/* Sends SIGKILL to every process it may signal, then to pid 1, then to the
 * session and process group; reports and exits 0 if it is still alive. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    int rc = kill(-1, SIGKILL);
    printf("kill(-1) %d %s\n", rc, rc ? strerrorname_np(errno) : "ok");
    rc = kill(1, SIGKILL);
    printf("kill(1) %d %s\n", rc, rc ? strerrorname_np(errno) : "ok");
    for (int pid = 2; pid < 200; pid++)
        if (pid != getpid())
            kill(pid, SIGKILL);
    fflush(stdout);
    return 0;
}
