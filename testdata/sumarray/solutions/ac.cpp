// Expected: AC. Defines the function the grader calls; no main().
#include "sumarray.h"
long long sum_array(const std::vector<int> &a)
{
    long long s = 0;
    for (int x : a)
        s += x;
    return s;
}
