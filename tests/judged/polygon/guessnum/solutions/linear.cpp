// Asks 1, 2, 3, ...: right for small numbers, too many questions for large.
#include <cstdio>
int main()
{
    long long n;
    char r[4];
    if (std::scanf("%lld", &n) != 1)
        return 1;
    for (long long q = 1; q < n; q++) {
        std::printf("? %lld\n", q);
        std::fflush(stdout);
        if (std::scanf("%3s", r) != 1)
            return 0;
        if (r[0] == '=') {
            std::printf("! %lld\n", q);
            return 0;
        }
    }
    std::printf("! %lld\n", n);
}
