/* Output validator of "pairsum" in the ICPC/Kattis form:
 *   validator INPUT ANSWER FEEDBACK_DIR [distinct] < team_output
 * exit 42 accepts, 43 rejects, the reason goes to
 * FEEDBACK_DIR/judgemessage.txt. Anything else (here: exit 1 when the test
 * or the jury's answer is broken) is a judge error, never the team's WA.
 * The flag `distinct` (the package's args, Kattis's validator_flags) also
 * requires a != b. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *feedback;

static void say(int code, const char *fmt, ...)
{
    if (feedback) {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(feedback, fmt, ap);
        va_end(ap);
        fputc('\n', feedback);
        fclose(feedback);
    }
    exit(code);
}

/* one integer token of at most 19 digits; 0 on anything else */
static int read_int(FILE *f, long long *v)
{
    char tok[32];
    if (fscanf(f, "%31s", tok) != 1)
        return 0;
    char *end;
    errno = 0;
    *v = strtoll(tok, &end, 10);
    return !errno && *end == '\0' && end != tok;
}

/* a, b positive, a + b = n (and a != b when distinct); NULL when right */
static const char *wrong(long long n, long long a, long long b, int distinct)
{
    if (a <= 0 || b <= 0)
        return "a and b must be positive";
    if (a >= n || b >= n || a + b != n)
        return "a + b is not n";
    if (distinct && a == b)
        return "a and b must be different";
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/judgemessage.txt", argv[3]);
    feedback = fopen(path, "w");
    int distinct = argc > 4 && !strcmp(argv[4], "distinct");
    FILE *in = fopen(argv[1], "r"), *ans = fopen(argv[2], "r");
    long long n, a, b;
    if (!in || !ans || !read_int(in, &n) || !read_int(ans, &a) || !read_int(ans, &b) ||
        wrong(n, a, b, distinct))
        return 1;   /* a broken test: the judge's fault */
    if (!read_int(stdin, &a) || !read_int(stdin, &b))
        say(43, "expected two integers");
    if (fscanf(stdin, " %*c") != EOF)
        say(43, "more output than two integers");
    const char *why = wrong(n, a, b, distinct);
    if (why)
        say(43, "%s: %lld + %lld for n = %lld", why, a, b, n);
    say(42, "%lld + %lld = %lld", a, b, n);
}
