/* right but for the last process (index 15): WA, the manager says which */
#include <time.h>
#include "relay16.h"

long long relay(long long x, int index)
{
    while (clock() < CLOCKS_PER_SEC / 50)
        ;
    return index == 15 ? x : x + index;
}
