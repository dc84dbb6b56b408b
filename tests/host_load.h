/*
 * host_load.h - a busy host made by the tests that judge on one: stress-ng's
 * CPU hogs (a contest day's load), or spinning processes that crowd every
 * core (a box then gets a fifth of a core). Header-only: test programs link
 * nothing for it. Whatever happens to the test, the load ends with it.
 */
#ifndef JUDGED_TESTS_HOST_LOAD_H
#define JUDGED_TESTS_HOST_LOAD_H

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define HOST_LOAD_MAX_SPINNERS 64

/* `stress-ng --cpu 2` in a process group of its own, bounded by its own
 * timeout should the test die before host_load_stress_stop; -1 when
 * stress-ng is missing (.ci/install-deps installs it) or fork fails. */
static inline pid_t host_load_stress_start(void)
{
    if (system("command -v stress-ng >/dev/null") != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        execlp("stress-ng", "stress-ng", "--cpu", "2", "--timeout", "120s", "--quiet", (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        setpgid(pid, pid);
    return pid;
}

static inline void host_load_stress_stop(pid_t pid)
{
    kill(-pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* A spinning process in a session of its own (the scheduler's autogroups
 * share a core between sessions, so spinners of one session would crowd a
 * box no more than one does), killed when the test process dies. */
static inline pid_t host_load_spinner(void)
{
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
            _exit(1);
        setsid();
        for (;;)
            ;
    }
    return pid;
}

/* Four spinners per core into hogs (at most HOST_LOAD_MAX_SPINNERS); the
 * number started, or -1 when a fork failed (those started are ended). */
static inline int host_load_crowd(pid_t hogs[HOST_LOAD_MAX_SPINNERS])
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = cores > 0 && cores < HOST_LOAD_MAX_SPINNERS / 4 ? 4 * (int)cores : HOST_LOAD_MAX_SPINNERS;
    for (int i = 0; i < n; i++)
        if ((hogs[i] = host_load_spinner()) < 0) {
            while (i-- > 0) {
                kill(hogs[i], SIGKILL);
                waitpid(hogs[i], NULL, 0);
            }
            return -1;
        }
    return n;
}

static inline void host_load_uncrowd(const pid_t *hogs, int n)
{
    for (int i = 0; i < n; i++) {
        kill(hogs[i], SIGKILL);
        while (waitpid(hogs[i], NULL, 0) < 0 && errno == EINTR)
            ;
    }
}

#endif
