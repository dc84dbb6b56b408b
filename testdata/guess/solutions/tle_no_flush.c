/* Expected: TLE. Never flushes: the question stays in stdio's buffer (stdout
 * is a pipe, so fully buffered) while the program waits for the answer, and
 * the interactor waits for the question. The deadlock ends at the wall-clock
 * limit (2 s) as TLE, "idle". */
#include <stdio.h>
int main(void)
{
    long n, q;
    if (scanf("%ld %ld", &n, &q) != 2)
        return 1;
    long lo = 1, hi = n;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        char r[4];
        printf("? %ld\n", mid);
        if (scanf("%3s", r) != 1)
            return 1;
        if (r[0] == '=') { lo = hi = mid; break; }
        if (r[0] == '<') hi = mid - 1; else lo = mid + 1;
    }
    printf("! %ld\n", lo);
    return 0;
}
