/* Expected: TLE, 60 points. Correct 64-bit sums, but O(n) per query: fine
 * for the small and medium subtasks, far too slow for the large one. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n, q;
    if (scanf("%d %d", &n, &q) != 2)
        return 1;
    long long *a = malloc(sizeof *a * (n + 1));
    for (int i = 1; i <= n; i++)
        scanf("%lld", &a[i]);
    while (q--) {
        int l, r;
        scanf("%d %d", &l, &r);
        long long s = 0;
        for (int i = l; i <= r; i++)
            s += a[i];
        printf("%lld\n", s);
    }
    return 0;
}
