// Expected: AC. Scientific notation with 15 significant digits is as good as
// fixed notation to a tolerance checker.
#include <cmath>
#include <cstdio>

int main()
{
    int n;
    double r;
    if (std::scanf("%d", &n) != 1)
        return 1;
    while (n-- > 0 && std::scanf("%lf", &r) == 1)
        std::printf("%.15e\n", std::acos(-1.0) * r * r);
}
