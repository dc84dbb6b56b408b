// Checker for "divisors": checker INPUT OUTPUT ANSWER. Speaks testlib's
// protocol as testlib.h writes it (Debian does not package testlib.h):
// quitf(_ok) exits 0, quitf(_wa) exits 1, quitf(_fail) exits 3, and
// quitp(X, msg) prints "points X msg" on stderr and exits 7.
#include <cstdio>
#include <cstdlib>
#include <set>

#ifndef SCORING
#error "build with -DSCORING=1 (problem.yaml: checker.flags)"
#endif

[[noreturn]] static void quit(int code, const char *kind, const char *msg, long a = 0,
                              long b = 0)
{
    std::fprintf(stderr, "%s", kind);
    std::fprintf(stderr, msg, a, b);
    std::fputc('\n', stderr);
    std::exit(code);
}

[[noreturn]] static void quitp(double points, const char *msg, long a, long b)
{
    std::fprintf(stderr, "points %.10g ", points);
    std::fprintf(stderr, msg, a, b);
    std::fputc('\n', stderr);
    std::exit(7);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        quit(3, "FAIL ", "usage: checker INPUT OUTPUT ANSWER");
    FILE *in = std::fopen(argv[1], "r"), *out = std::fopen(argv[2], "r");
    long n;
    if (!in || !out || std::fscanf(in, "%ld", &n) != 1)
        quit(3, "FAIL ", "cannot read the test");
    long total = 0;
    for (long d = 1; d * d <= n; d++)
        if (n % d == 0)
            total += d * d == n ? 1 : 2;
    std::set<long> seen;
    long d;
    while (std::fscanf(out, "%ld", &d) == 1) {
        if (d < 1 || n % d)
            quit(1, "wrong answer ", "%ld does not divide %ld", d, n);
        if (!seen.insert(d).second)
            quit(1, "wrong answer ", "%ld printed twice%.0ld", d, 0);
    }
    long found = (long)seen.size();
    if (found == total)
        quit(0, "ok ", "all %ld divisors%.0ld", total, 0);
    quitp((double)found / (double)total, "found %ld of %ld divisors", found, total);
}
