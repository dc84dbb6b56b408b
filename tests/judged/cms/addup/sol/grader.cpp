// the task's grader: reads the input, calls the contestant's addup, prints the result
#include <cstdio>
#include <vector>
#include "addup.h"
int main()
{
    int n;
    if (scanf("%d", &n) != 1)
        return 1;
    std::vector<int> v(n);
    for (int &x : v)
        if (scanf("%d", &x) != 1)
            return 1;
    printf("%lld\n", addup(n, v.data()));
}
