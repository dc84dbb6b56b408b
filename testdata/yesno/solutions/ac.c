/* Expected: AC. Trial division, answers in upper case like the jury. */
#include <stdio.h>
int main(void)
{
    long t, n;
    if (scanf("%ld", &t) != 1)
        return 1;
    while (t-- > 0 && scanf("%ld", &n) == 1) {
        int prime = n >= 2;
        for (long d = 2; d * d <= n && prime; d++)
            prime = n % d != 0;
        puts(prime ? "YES" : "NO");
    }
    return 0;
}
