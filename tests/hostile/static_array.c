/* A 1 GiB static array (bss): loading it is free; touching it is not.
 * "touch" writes every page; with no argument it only reads one byte. */
#include <stdio.h>
#include <string.h>

#define SIZE (1UL << 30)
static char big[SIZE];

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "touch"))
        for (size_t i = 0; i < SIZE; i += 4096)
            big[i] = (char)i;
    printf("%d\n", big[SIZE / 2]);
    return 0;
}
