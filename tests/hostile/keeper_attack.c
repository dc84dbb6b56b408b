/* keeper_attack: signals pid 1 of the box (the keeper, root) by kill and
 * through a pidfd, stops it, and tries to see it; prints one
 * "<what> <rc> <errno|ok>" per attempt and exits 0. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void show(const char *what, long rc)
{
    printf("%s %ld %s\n", what, rc, rc < 0 ? strerrorname_np(errno) : "ok");
}

int main(void)
{
    show("kill1_term", kill(1, SIGTERM));
    show("kill1_stop", kill(1, SIGSTOP));
    show("kill1_kill", kill(1, SIGKILL));
    long fd = syscall(SYS_pidfd_open, 1, 0);
    show("pidfd_open", fd);
    if (fd >= 0)
        show("pidfd_kill", syscall(SYS_pidfd_send_signal, (int)fd, SIGKILL, NULL, 0));
    show("proc1", access("/proc/1/status", F_OK));
    return 0;
}
