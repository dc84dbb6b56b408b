/* Expected: RE (SIGSEGV). */
#include <stdio.h>

int main(void)
{
    volatile int *p = NULL;
    long long a, b;
    scanf("%lld %lld", &a, &b);
    *p = 1;
    printf("%lld\n", a + b);
    return 0;
}
