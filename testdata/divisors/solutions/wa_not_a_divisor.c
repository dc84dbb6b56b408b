/* Expected: WA. Prints 1, n and 3: 3 divides none of the tests' n but 6,
 * so the checker rejects (score 0, however many right divisors came first). */
#include <stdio.h>
int main(void)
{
    long n;
    if (scanf("%ld", &n) != 1)
        return 1;
    printf("1 %ld 3\n", n);
    return 0;
}
