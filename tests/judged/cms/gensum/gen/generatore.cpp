// N numbers in 1..MAXV from a fixed generator seeded by SEED
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: generatore N MAXV SEED\n");
        return 1;
    }
    long n = atol(argv[1]), maxv = atol(argv[2]);
    unsigned long long x = strtoull(argv[3], nullptr, 10) * 6364136223846793005ULL + 1442695040888963407ULL;
    printf("%ld\n", n);
    for (long i = 0; i < n; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        printf("%llu%c", (x >> 33) % maxv + 1, i + 1 < n ? ' ' : '\n');
    }
    return 0;
}
