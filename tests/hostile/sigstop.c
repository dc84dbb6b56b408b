/* Stops itself: no CPU is used and nothing would ever continue it. */
#include <signal.h>

int main(void)
{
    raise(SIGSTOP);
    return 0;
}
