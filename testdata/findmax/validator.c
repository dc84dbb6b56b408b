/* Output validator used as interactor for "findmax", in the Kattis/ICPC
 * form: validator INPUT ANSWER FEEDBACK_DIR; exit 42 accepts, 43 rejects, the
 * message goes to FEEDBACK_DIR/judgemessage.txt. Anything else (here: exit 1
 * on a broken test) is a judge error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *feedback;

static void verdict(int code, const char *fmt, long a, long b)
{
    if (feedback) {
        fprintf(feedback, fmt, a, b);
        fputc('\n', feedback);
        fclose(feedback);
    }
    exit(code);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/judgemessage.txt", argv[3]);
    feedback = fopen(path, "w");
    FILE *in = fopen(argv[1], "r"), *ans = fopen(argv[2], "r");
    long n, best;
    static long a[1001];
    if (!feedback || !in || !ans || fscanf(in, "%ld", &n) != 1 || n < 1 || n > 1000 ||
        fscanf(ans, "%ld", &best) != 1)
        return 1;
    for (long i = 1; i <= n; i++)
        if (fscanf(in, "%ld", &a[i]) != 1)
            return 1;
    printf("%ld\n", n);
    fflush(stdout);
    for (long asked = 0;;) {
        char op[8];
        long v;
        if (scanf("%7s %ld", op, &v) != 2)
            verdict(43, "expected '? i' or '! v' after %ld questions%.0ld", asked, 0);
        if (!strcmp(op, "!")) {
            if (v != best)
                verdict(43, "the maximum is %ld, not %ld", best, v);
            verdict(42, "the maximum %ld, after %ld questions", best, asked);
        }
        if (strcmp(op, "?") || v < 1 || v > n)
            verdict(43, "bad question (index %ld)%.0ld", v, 0);
        if (++asked > n)
            verdict(43, "more than n = %ld questions%.0ld", n, 0);
        printf("%ld\n", a[v]);
        fflush(stdout);
    }
}
