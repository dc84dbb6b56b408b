/* CMS's stub for fifo_io: stub FROM_MANAGER TO_MANAGER INDEX */
#include <stdio.h>
#include <stdlib.h>
#include "relay16.h"

int main(int argc, char **argv)
{
    if (argc != 4)
        return 1;
    FILE *in = fopen(argv[1], "r"), *out = fopen(argv[2], "w");
    long long x;
    if (!in || !out || fscanf(in, "%lld", &x) != 1)
        return 1;
    fprintf(out, "%lld\n", relay(x, atoi(argv[3])));
    return fclose(out) != 0;
}
