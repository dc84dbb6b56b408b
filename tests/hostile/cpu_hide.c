/* cpu_hide MODE: spends about 1.2 s of CPU where a per-process count would
 * not see it, no process or thread more than 0.3 s:
 *   killed_child    children burn 0.3 s each and are SIGKILLed by the parent
 *   atexit          0.3 s in main, then handlers burn the rest after it returns
 *   short_children  120 children of 10 ms each, one after another
 * Prints "done" and exits 0 if it is not stopped first. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void burn(double seconds)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    double end = t.tv_sec + t.tv_nsec / 1e9 + seconds;
    volatile unsigned long x = 0;
    do {
        for (int i = 0; i < 100000; i++)
            x += i;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    } while (t.tv_sec + t.tv_nsec / 1e9 < end);
    (void)x;   /* clang -Werror: set but not used */
}

static void late(void)
{
    burn(0.3);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *m = argv[1];
    if (!strcmp(m, "killed_child")) {
        for (int i = 0; i < 4; i++) {
            int go[2];
            if (pipe(go) < 0)
                return 1;
            pid_t pid = fork();
            if (pid == 0) {
                burn(0.3);
                if (write(go[1], "x", 1) != 1)
                    _exit(1);
                for (;;)
                    pause();
            }
            char c;
            if (read(go[0], &c, 1) != 1)
                return 1;
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
    } else if (!strcmp(m, "atexit")) {
        for (int i = 0; i < 3; i++)
            atexit(late);
        burn(0.3);
    } else if (!strcmp(m, "short_children")) {
        for (int i = 0; i < 120; i++) {
            pid_t pid = fork();
            if (pid == 0) {
                burn(0.01);
                _exit(0);
            }
            waitpid(pid, NULL, 0);
        }
    }
    printf("done\n");
    return 0;
}
