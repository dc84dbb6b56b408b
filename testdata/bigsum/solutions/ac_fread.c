/* Expected: AC. Reads all of stdin in big blocks and parses by hand. */
#include <stdio.h>

static char buf[1 << 16];
static size_t len, pos;

static int next_char(void)
{
    if (pos == len) {
        len = fread(buf, 1, sizeof buf, stdin);
        pos = 0;
        if (len == 0)
            return -1;
    }
    return (unsigned char)buf[pos++];
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
