/* Expected: WA. 32-bit ints overflow on the big tests. */
#import <stdio.h>

int main(void)
{
    int a, b;
    scanf("%d %d", &a, &b);
    printf("%d\n", a + b);
    return 0;
}
