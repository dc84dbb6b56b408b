/* reads input.txt, as solutions written for CMS may even when the task reads stdin */
#include <stdio.h>
int main(void)
{
    long long a, b;
    FILE *f = fopen("input.txt", "r");
    if (!f || fscanf(f, "%lld %lld", &a, &b) != 2)
        return 1;
    printf("%lld\n%lld\n", a + b, a * b);
    return 0;
}
