/* Expected: WA. Two decimals lose the tiny areas of test 2 (r = 0.001 has
 * area 3.1e-6, printed as 0.00). */
#include <math.h>
#include <stdio.h>

int main(void)
{
    int n;
    double r;
    scanf("%d", &n);
    while (n-- > 0 && scanf("%lf", &r) == 1)
        printf("%.2f\n", acos(-1.0) * r * r);
    return 0;
}
