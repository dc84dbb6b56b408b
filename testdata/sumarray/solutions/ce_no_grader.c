/* Expected: CE. The problem has graders for C++ and Java only: a C
 * submission cannot be linked with one, and the compile report says which
 * languages it takes. */
long long sum_array(int n, const int *a)
{
    long long s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}
