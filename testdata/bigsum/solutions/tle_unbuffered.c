/* Expected: TLE. One read(2) system call per byte: ~12.5 million system
 * calls for the big test, far more than 1 s of CPU. */
#include <stdio.h>
#include <unistd.h>

static int next_char(void)
{
    char c;
    return read(0, &c, 1) == 1 ? (unsigned char)c : -1;
}

static int read_ll(long long *out)
{
    int c = next_char();
    while (c == ' ' || c == '\n' || c == '\r' || c == '\t')
        c = next_char();
    if (c < 0)
        return 0;
    int neg = c == '-';
    if (neg)
        c = next_char();
    long long v = 0;
    for (; c >= '0' && c <= '9'; c = next_char())
        v = v * 10 + (c - '0');
    *out = neg ? -v : v;
    return 1;
}

int main(void)
{
    long long n, x, sum = 0;
    if (!read_ll(&n))
        return 1;
    while (n-- > 0 && read_ll(&x))
        sum += x;
    printf("%lld\n", sum);
    return 0;
}
