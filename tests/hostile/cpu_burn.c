/* cpu_burn SECONDS: burns exactly SECONDS of the process's CPU time (by its
 * own clock) in one thread and exits 0. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    double want = atof(argv[1]);
    struct timespec ts;
    volatile unsigned long n = 0;
    do {
        for (int i = 0; i < 1000; i++)
            n++;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    } while (ts.tv_sec + ts.tv_nsec / 1e9 < want);
    return 0;
}
