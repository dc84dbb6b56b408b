/* Allocates and touches memory in 1 MiB steps, forever. */
#include <stdlib.h>
#include <string.h>

int main(void)
{
    for (;;) {
        char *p = malloc(1 << 20);
        if (!p)
            continue;
        memset(p, 1, 1 << 20);
    }
}
