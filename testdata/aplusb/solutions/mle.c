/* Expected: MLE. Allocates and touches 1 GiB, 4 MiB at a time; the 64 MiB
 * memory limit (resident memory) is hit after 16 steps, ~0.2 s of CPU even
 * where page faults are slow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    for (int i = 0; i < 256; i++) {
        char *p = malloc(4 << 20);
        if (!p)
            return 2;
        memset(p, i + 1, 4 << 20);
    }
    puts("not reached");
    return 0;
}
