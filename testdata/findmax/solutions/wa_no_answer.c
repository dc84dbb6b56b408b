/* Expected: WA. Asks every question, then exits without the final answer:
 * the validator reads end of file instead of "! v" and rejects. */
#include <stdio.h>
int main(void)
{
    long n, v;
    if (scanf("%ld", &n) != 1)
        return 1;
    for (long i = 1; i <= n; i++) {
        printf("? %ld\n", i);
        fflush(stdout);
        if (scanf("%ld", &v) != 1)
            return 1;
    }
    return 0;
}
