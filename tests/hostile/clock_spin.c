/* Busy-waits on clock_gettime (a vDSO call: no system call, pure user CPU)
 * for a minute. */
#include <stdio.h>
#include <time.h>

int main(void)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do
        clock_gettime(CLOCK_MONOTONIC, &now);
    while (now.tv_sec - start.tv_sec < 60);
    puts("done");
    return 0;
}
