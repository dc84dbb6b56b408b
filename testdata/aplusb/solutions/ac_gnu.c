// Expected: AC. C is GNU C17, as on every contest judge: M_PI, strdup and
// clock_gettime are declared without any #define.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(void)
{
    struct timespec ts;
    long a, b;
    char *copy = strdup("0");
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0 || !copy || scanf("%ld %ld", &a, &b) != 2)
        return 1;
    printf("%ld\n", a + b + (long)floor(M_PI / 4) + atol(copy));
    free(copy);
    return 0;
}
