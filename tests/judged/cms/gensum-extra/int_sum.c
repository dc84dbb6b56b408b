/* right on the small subtask only: the sum of 50000 numbers overflows an int */
#include <stdio.h>

int main(void)
{
    int n, v, sum = 0;
    if (scanf("%d", &n) != 1)
        return 1;
    for (int i = 0; i < n; i++)
        if (scanf("%d", &v) == 1)
            sum += v;
    printf("%d\n", sum);
    return 0;
}
