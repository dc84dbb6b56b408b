/* Expected: PE. Writes "prime" instead of -1: not an integer. */
#include <stdio.h>

int main(void)
{
    int t;
    scanf("%d", &t);
    while (t--) {
        long long n, d = -1;
        scanf("%lld", &n);
        for (long long i = 2; i * i <= n; i++)
            if (n % i == 0) {
                d = i;
                break;
            }
        if (d < 0)
            puts("prime");
        else
            printf("%lld\n", d);
    }
    return 0;
}
