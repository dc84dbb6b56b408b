/* recursion DEPTH: recurses DEPTH frames deep (about 100 bytes each, not a
 * tail call), prints the checksum and exits 0. A negative DEPTH recurses
 * without end. */
#include <stdio.h>
#include <stdlib.h>

static long depth;

__attribute__((noinline)) static long dive(long n)
{
    volatile char pad[64];
    pad[0] = (char)n;
    pad[63] = (char)(n >> 8);
    if (depth >= 0 && n >= depth)
        return pad[0];
    return dive(n + 1) + pad[0] + pad[63];
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    depth = atol(argv[1]);
    printf("%ld\n", dive(0));
    return 0;
}
