/* bench_languages: the sieve of Eratosthenes with plain loops (Objective-C:
 * the C program, compiled as Objective-C). */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    long n, count = 0;
    if (scanf("%ld", &n) != 1)
        return 1;
    char *composite = calloc((size_t)n + 1, 1);
    for (long i = 2; i <= n; i++)
        if (!composite[i]) {
            count++;
            for (long j = i * i; j <= n; j += i)
                composite[j] = 1;
        }
    printf("%ld\n", count);
    return 0;
}
