/* Expected: AC. Asks every index once, answers the largest. */
#include <stdio.h>
int main(void)
{
    long n, best = 0, v;
    if (scanf("%ld", &n) != 1)
        return 1;
    for (long i = 1; i <= n; i++) {
        printf("? %ld\n", i);
        fflush(stdout);
        if (scanf("%ld", &v) != 1)
            return 1;
        if (i == 1 || v > best)
            best = v;
    }
    printf("! %ld\n", best);
    return 0;
}
