// Interactor for "guess": testlib's calling convention without testlib.h
// (Debian does not package it): interactor INPUT OUTPUT ANSWER, the
// submission's output on stdin, its input on stdout; exit 0 AC, 1 WA, 3 fail;
// the message on stderr.
#include <cstdio>
#include <cstdlib>
#include <cstring>

static void quit(int code, const char *fmt, long a = 0, long b = 0)
{
    std::fprintf(stderr, fmt, a, b);
    std::fputc('\n', stderr);
    std::exit(code);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        quit(3, "usage: interactor INPUT OUTPUT ANSWER");
    FILE *in = std::fopen(argv[1], "r"), *ans = std::fopen(argv[3], "r");
    long n, q, x;
    if (!in || !ans || std::fscanf(in, "%ld %ld", &n, &q) != 2 || std::fscanf(ans, "%ld", &x) != 1)
        quit(3, "cannot read the test");
    if (x < 1 || x > n)
        quit(3, "the secret %ld is outside 1..%ld", x, n);
    std::printf("%ld %ld\n", n, q);
    std::fflush(stdout);
    for (long asked = 0;;) {
        char op[8];
        long y;
        if (std::scanf("%7s %ld", op, &y) != 2)
            quit(1, "wrong answer: expected '? y' or '! x' after %ld questions", asked);
        if (!std::strcmp(op, "!")) {
            if (y != x)
                quit(1, "wrong answer: the number is %ld, not %ld", x, y);
            quit(0, "ok: found %ld in %ld questions", x, asked);
        }
        if (std::strcmp(op, "?"))
            quit(1, "wrong answer: unknown command after %ld questions", asked);
        if (++asked > q)
            quit(1, "wrong answer: more than %ld questions", q);
        if (y < 1 || y > n)
            quit(1, "wrong answer: question %ld is outside 1..n", y);
        std::puts(x < y ? "<" : x > y ? ">" : "=");
        std::fflush(stdout);
    }
}
