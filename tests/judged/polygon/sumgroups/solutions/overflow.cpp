// Sums in 32 bits: right on the small group, wrong on the big numbers.
#include <cstdio>
int main()
{
    int n, s = 0, x;
    if (std::scanf("%d", &n) != 1)
        return 1;
    for (int i = 0; i < n; i++)
        if (std::scanf("%d", &x) == 1)
            s = (int)((unsigned)s + (unsigned)x);
    std::printf("%d\n", s);
}
