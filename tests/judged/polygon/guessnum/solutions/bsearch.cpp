#include <cstdio>
int main()
{
    long long lo = 1, hi;
    char r[4];
    if (std::scanf("%lld", &hi) != 1)
        return 1;
    while (lo < hi) {
        long long mid = lo + (hi - lo) / 2;
        std::printf("? %lld\n", mid);
        std::fflush(stdout);
        if (std::scanf("%3s", r) != 1)
            return 1;
        if (r[0] == '=')
            lo = hi = mid;
        else if (r[0] == '<')
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    std::printf("! %lld\n", lo);
    std::fflush(stdout);
}
