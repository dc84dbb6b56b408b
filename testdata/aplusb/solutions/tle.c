/* Expected: TLE. Busy loop; the CPU limit (1 s) stops it. */
#include <stdio.h>

int main(void)
{
    volatile unsigned long long x = 0;
    for (;;)
        x++;
}
