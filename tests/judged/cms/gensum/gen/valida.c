/* CMS's validator: the input file is argv[1]; exit 0 accepts it */
#include <stdio.h>

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
    long n, v;
    if (!f || fscanf(f, "%ld", &n) != 1 || n < 1 || n > 100000) {
        fprintf(stderr, "N must be 1..100000\n");
        return 1;
    }
    for (long i = 0; i < n; i++)
        if (fscanf(f, "%ld", &v) != 1 || v < 1 || v > 1000000000) {
            fprintf(stderr, "number %ld is not in 1..1000000000\n", i + 1);
            return 1;
        }
    if (fscanf(f, " %ld", &v) == 1) {
        fprintf(stderr, "more than N numbers\n");
        return 1;
    }
    return 0;
}
