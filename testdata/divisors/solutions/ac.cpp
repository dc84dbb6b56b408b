// Expected: AC. Every divisor, by trial division up to sqrt(n).
#include <cstdio>
int main()
{
    long n;
    if (std::scanf("%ld", &n) != 1)
        return 1;
    for (long d = 1; d * d <= n; d++)
        if (n % d == 0) {
            std::printf("%ld ", d);
            if (d * d != n)
                std::printf("%ld ", n / d);
        }
    std::puts("");
}
