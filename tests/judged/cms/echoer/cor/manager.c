/* The manager: manager FROM_0 TO_0; the test's input on stdin. It sends
 * each number to the process and wants it doubled back; a score 0..1 on
 * stdout, the message on stderr (CMS's protocol). */
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 3)
        return 1;
    FILE *from = fopen(argv[1], "r"), *to = fopen(argv[2], "w");
    int n;
    if (!from || !to || scanf("%d", &n) != 1)
        return 1;
    fprintf(to, "%d\n", n);
    fflush(to);
    for (int i = 0; i < n; i++) {
        long long x, y;
        if (scanf("%lld", &x) != 1)
            return 1;
        fprintf(to, "%lld\n", x);
        fflush(to);
        if (fscanf(from, "%lld", &y) != 1 || y != 2 * x) {
            printf("0.0\n");
            fprintf(stderr, "translate:wrong\n");
            return 0;
        }
    }
    printf("1.0\n");
    fprintf(stderr, "translate:success\n");
    return 0;
}
