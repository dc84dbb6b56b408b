#include <cstdio>

int main()
{
    long n;
    long long sum = 0, v;
    if (scanf("%ld", &n) != 1)
        return 1;
    for (long i = 0; i < n; i++)
        if (scanf("%lld", &v) == 1)
            sum += v;
    printf("%lld\n", sum);
    return 0;
}
