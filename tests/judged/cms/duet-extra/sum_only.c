/* the sum right, the product not: half of every test */
#include <stdio.h>
int main(void)
{
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2)
        return 1;
    printf("%lld\n0\n", a + b);
    return 0;
}
