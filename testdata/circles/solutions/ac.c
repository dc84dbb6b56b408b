#include <math.h>
#include <stdio.h>

int main(void)
{
    int n;
    double r;
    if (scanf("%d", &n) != 1)
        return 1;
    while (n-- > 0 && scanf("%lf", &r) == 1)
        printf("%.9f\n", acos(-1.0) * r * r);
    return 0;
}
