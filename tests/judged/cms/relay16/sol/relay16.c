/* the official solution: 20 ms of CPU (clock(): the process's own, which
 * a busy host does not change), then the number plus the index */
#include <time.h>
#include "relay16.h"

long long relay(long long x, int index)
{
    while (clock() < CLOCKS_PER_SEC / 50)
        ;
    return x + index;
}
