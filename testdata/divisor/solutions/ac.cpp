// Prints the smallest divisor, as the jury does.
#include <cstdio>

int main()
{
    int t;
    if (std::scanf("%d", &t) != 1)
        return 1;
    while (t--) {
        long long n, d = -1;
        std::scanf("%lld", &n);
        for (long long i = 2; i * i <= n; i++)
            if (n % i == 0) {
                d = i;
                break;
            }
        std::printf("%lld\n", d);
    }
}
