/* outlive MODE: ways to leave something running when the program ends;
 * whatever is left would write /box/outlived 3 seconds later.
 *   clone_parent   a child made with CLONE_PARENT (the keeper's, not ours)
 *   stopped_child  a child that SIGSTOPs itself (wakes on SIGCONT only)
 *   vfork_noexec   a vfork child that never execs nor exits (the parent
 *                  stays suspended: ends by the time limit)
 *   thread         the main thread exits (pthread_exit) while another runs
 * Prints "<mode> started" and exits 0 (but vfork_noexec). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void linger(void)
{
    sleep(3);
    int fd = open("/box/outlived", O_WRONLY | O_CREAT, 0644);
    if (fd >= 0)
        close(fd);
    for (;;)
        pause();
}

static void *thread_main(void *arg)
{
    (void)arg;
    linger();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *m = argv[1];
    printf("%s started\n", m);
    fflush(stdout);
    if (!strcmp(m, "clone_parent")) {
        if (syscall(SYS_clone, CLONE_PARENT | SIGCHLD, NULL, NULL, NULL, 0) == 0)
            linger();
    } else if (!strcmp(m, "stopped_child")) {
        if (fork() == 0) {
            raise(SIGSTOP);
            linger();
        }
    } else if (!strcmp(m, "vfork_noexec")) {
        if (vfork() == 0)
            linger();
    } else if (!strcmp(m, "thread")) {
        pthread_t t;
        pthread_create(&t, NULL, thread_main, NULL);
        pthread_exit(NULL);
    }
    return 0;
}
