// Expected: CE. Brings its own main(): it clashes with the grader's at link
// time ("multiple definition of main").
#include <cstdio>
#include "sumarray.h"
long long sum_array(const std::vector<int> &a)
{
    long long s = 0;
    for (int x : a)
        s += x;
    return s;
}
int main()
{
    std::puts("0");
}
