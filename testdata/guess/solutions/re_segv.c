/* Expected: RE. Reads n, then writes through a null pointer: the
 * submission's crash is RE, whatever the interactor makes of the silence. */
#include <stdio.h>
int main(void)
{
    long n, q;
    if (scanf("%ld %ld", &n, &q) != 2)
        return 1;
    volatile int *p = NULL;
    *p = (int)n;
    return 0;
}
