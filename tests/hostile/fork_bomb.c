/* fork bomb: every process forks forever and burns CPU; the pids limit caps
 * the count and the CPU/wall limit ends the run. */
#include <unistd.h>

int main(void)
{
    for (;;)
        (void)fork();
}
