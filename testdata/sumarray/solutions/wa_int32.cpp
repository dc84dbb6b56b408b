// Expected: WA. Sums in an int: overflows from test 3 on.
#include "sumarray.h"
long long sum_array(const std::vector<int> &a)
{
    unsigned s = 0;
    for (int x : a)
        s += (unsigned)x;
    return (int)s;
}
