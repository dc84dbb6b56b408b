#include <stdio.h>

int main(void)
{
    int n;
    long long x;
    if (scanf("%d", &n) != 1)
        return 0;
    for (int i = 0; i < n && scanf("%lld", &x) == 1; i++) {
        printf("%lld\n", 2 * x);
        fflush(stdout);
    }
    return 0;
}
