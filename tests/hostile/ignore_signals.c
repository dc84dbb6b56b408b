/* Ignores the polite signals (SIGXCPU at the soft RLIMIT_CPU, SIGTERM,
 * SIGINT, SIGHUP) and burns CPU. */
#include <signal.h>

int main(void)
{
    int sigs[] = {SIGXCPU, SIGTERM, SIGINT, SIGHUP, SIGALRM, SIGVTALRM, SIGPROF};
    for (unsigned i = 0; i < sizeof sigs / sizeof *sigs; i++)
        signal(sigs[i], SIG_IGN);
    volatile unsigned long n = 0;
    for (;;)
        n++;
}
