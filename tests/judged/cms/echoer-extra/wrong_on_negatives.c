#include <stdio.h>

int main(void)
{
    int n;
    long long x;
    if (scanf("%d", &n) != 1)
        return 0;
    for (int i = 0; i < n && scanf("%lld", &x) == 1; i++) {
        printf("%lld\n", x + x + (x < 0));
        fflush(stdout);
    }
    return 0;
}
