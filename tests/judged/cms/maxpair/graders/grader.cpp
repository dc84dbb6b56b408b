// TPS's grader: reads the input, calls max_pair, prints its answer
#include <cstdio>
#include "maxpair.h"
int main()
{
    int n;
    if (scanf("%d", &n) != 1)
        return 1;
    std::vector<int> a(n);
    for (int &x : a)
        if (scanf("%d", &x) != 1)
            return 1;
    printf("%lld\n", max_pair(a));
}
