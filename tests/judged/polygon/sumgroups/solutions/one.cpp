// Wrong only when n = 1 (a test of group 1): group 2, right here, depends on
// group 1 and scores nothing.
#include <cstdio>
int main()
{
    int n;
    long long s = 0, x;
    if (std::scanf("%d", &n) != 1)
        return 1;
    for (int i = 0; i < n; i++)
        if (std::scanf("%lld", &x) == 1)
            s += x;
    std::printf("%lld\n", n == 1 ? 0 : s);
}
