/* Expected: CE: an undeclared identifier. */
#import <stdio.h>

int main(void)
{
    printf("%d\n", answer);
    return 0;
}
