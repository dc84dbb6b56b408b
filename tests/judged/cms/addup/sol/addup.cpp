#include "addup.h"
long long addup(int n, const int *values)
{
    long long s = 0;
    for (int i = 0; i < n; i++)
        s += values[i];
    return s;
}
