#include <stdio.h>
int main(void)
{
    int n;
    double s = 0, x;
    if (scanf("%d", &n) != 1)
        return 1;
    for (int i = 0; i < n; i++)
        if (scanf("%lf", &x) == 1)
            s += x;
    printf("%.10f\n", s / n);
    return 0;
}
