/* Single precision: within 1e-6 relative here, as rcmp6 accepts. */
#include <stdio.h>
int main(void)
{
    int n;
    float s = 0, x;
    if (scanf("%d", &n) != 1)
        return 1;
    for (int i = 0; i < n; i++)
        if (scanf("%f", &x) == 1)
            s += x;
    printf("%.7f\n", (double)(s / (float)n));
    return 0;
}
