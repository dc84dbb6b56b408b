/* mem_touch MIB: allocates MIB MiB, touches every page, holds it briefly and
 * exits 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    size_t size = (size_t)atol(argv[1]) << 20;
    char *p = malloc(size);
    if (!p)
        return 1;
    memset(p, 7, size);
    usleep(20 * 1000);
    printf("%d\n", p[size - 1]);
    return 0;
}
