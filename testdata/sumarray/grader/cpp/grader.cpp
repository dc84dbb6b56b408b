// Grader of "sumarray" for C++: compiled together with the submission.
#include <cstdio>
#include <vector>
#include "sumarray.h"
int main()
{
    int n;
    if (std::scanf("%d", &n) != 1)
        return 1;
    std::vector<int> a(n);
    for (int &x : a)
        if (std::scanf("%d", &x) != 1)
            return 1;
    std::printf("%lld\n", sum_array(a));
}
