/* threads N SECONDS: N threads each burn SECONDS of their own CPU time
 * (CLOCK_THREAD_CPUTIME_ID), then the process exits 0. No single thread
 * passes a limit that N * SECONDS passes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double seconds;

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *burn(void *arg)
{
    (void)arg;
    volatile unsigned long n = 0;
    while (thread_cpu() < seconds)
        n++;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int n = atoi(argv[1]);
    seconds = atof(argv[2]);
    pthread_t t[64];
    if (n < 1 || n > 64)
        return 2;
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, burn, NULL) != 0)
            return 3;
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    printf("%d threads done\n", n);
    return 0;
}
