/* Expected: WA. Asks 1, 2, 3, ...: far more questions than the limit once n
 * is large (7 questions where 5 are allowed on test 3). */
#include <stdio.h>
int main(void)
{
    long n, q;
    if (scanf("%ld %ld", &n, &q) != 2)
        return 1;
    for (long y = 1; y <= n; y++) {
        char r[4];
        printf("? %ld\n", y);
        fflush(stdout);
        if (scanf("%3s", r) != 1)
            return 0;
        if (r[0] == '=') {
            printf("! %ld\n", y);
            return 0;
        }
    }
    return 0;
}
