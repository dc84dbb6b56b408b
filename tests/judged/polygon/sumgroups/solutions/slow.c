/* Right, but spins past the time limit when n > 2 and a number is large. */
#include <stdio.h>
int main(void)
{
    int n;
    long long s = 0, x, big = 0;
    if (scanf("%d", &n) != 1)
        return 1;
    for (int i = 0; i < n; i++)
        if (scanf("%lld", &x) == 1)
            s += x, big |= x > 1000000;
    for (volatile unsigned long long spin = 0; big; spin++)
        ;
    printf("%lld\n", s);
    return 0;
}
