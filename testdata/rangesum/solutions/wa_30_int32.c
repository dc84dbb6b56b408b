/* Expected: WA, 30 points. O(n) per query in 32-bit ints: right on the small
 * subtask, overflows on medium, and large is then skipped (it depends on
 * medium). */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n, q;
    if (scanf("%d %d", &n, &q) != 2)
        return 1;
    int *a = malloc(sizeof *a * (n + 1));
    for (int i = 1; i <= n; i++)
        scanf("%d", &a[i]);
    while (q--) {
        int l, r;
        scanf("%d %d", &l, &r);
        unsigned s = 0;     /* wraps like a 32-bit int, without UB */
        for (int i = l; i <= r; i++)
            s += (unsigned)a[i];
        printf("%d\n", (int)s);
    }
    return 0;
}
