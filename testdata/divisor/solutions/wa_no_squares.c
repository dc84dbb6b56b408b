/* Expected: WA. Stops at i * i < n, so p*p looks prime. */
#include <stdio.h>

int main(void)
{
    int t;
    scanf("%d", &t);
    while (t--) {
        long long n, d = -1;
        scanf("%lld", &n);
        for (long long i = 2; i * i < n; i++)
            if (n % i == 0) {
                d = i;
                break;
            }
        printf("%lld\n", d);
    }
    return 0;
}
