#include <algorithm>
#include "maxpair.h"
long long max_pair(std::vector<int> a)
{
    std::sort(a.begin(), a.end());
    return (long long)a[a.size() - 1] + a[a.size() - 2];
}
