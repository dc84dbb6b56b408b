// Checker for "divisor", self-contained (no testlib.h).
//
// Called as: checker INPUT OUTPUT ANSWER
//   INPUT  - the test's input, OUTPUT - the contestant's output,
//   ANSWER - the jury's answer (smallest divisor or -1 per number).
// Exit codes follow testlib: 0 AC, 1 WA, 2 PE, 3 checker failure
// (7 would be partial points, printed on stdout; unused here).
// The message goes to stderr.
#include <cctype>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

enum { AC = 0, WA = 1, PE = 2, FAIL = 3 };

[[noreturn]] static void verdict(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(code);
}

// Reads the next whitespace-separated token into buf. Returns false at EOF.
static bool token(FILE *f, char *buf, size_t len)
{
    int c;
    while ((c = getc(f)) != EOF && isspace(c))
        ;
    if (c == EOF)
        return false;
    size_t n = 0;
    for (; c != EOF && !isspace(c); c = getc(f))
        if (n + 1 < len)
            buf[n++] = (char)c;
        else
            return buf[0] = 0, true; // too long: not a number we accept
    buf[n] = 0;
    return true;
}

// Parses a decimal integer token, without leading '+' or junk.
static bool integer(const char *s, long long *out)
{
    if (!*s || (*s != '-' && !isdigit((unsigned char)*s)))
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

// Reads an integer the jury wrote; anything wrong there is a checker failure.
static long long jury_int(FILE *f, const char *what)
{
    char buf[64];
    long long v;
    if (!token(f, buf, sizeof buf) || !integer(buf, &v))
        verdict(FAIL, "bad %s file", what);
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        verdict(FAIL, "usage: checker INPUT OUTPUT ANSWER");
    FILE *in = fopen(argv[1], "r"), *out = fopen(argv[2], "r"),
         *ans = fopen(argv[3], "r");
    if (!in || !out || !ans)
        verdict(FAIL, "cannot open a file: %s", strerror(errno));

    long long t = jury_int(in, "input");
    for (long long i = 1; i <= t; i++) {
        long long n = jury_int(in, "input");
        long long jury = jury_int(ans, "answer");
        char buf[64];
        long long d;
        if (!token(out, buf, sizeof buf))
            verdict(PE, "answer %lld of %lld missing", i, t);
        if (!integer(buf, &d))
            verdict(PE, "answer %lld is not an integer: \"%.40s\"", i, buf);
        if (d == -1) {
            if (jury != -1)
                verdict(WA, "n = %lld is divisible by %lld, -1 printed", n, jury);
            continue;
        }
        if (d <= 1 || d >= n || n % d != 0)
            verdict(WA, "%lld is not a divisor of %lld between 1 and n", d, n);
        if (jury == -1)
            verdict(FAIL, "contestant found divisor %lld of %lld, jury says prime", d, n);
    }
    char extra[64];
    if (token(out, extra, sizeof extra))
        verdict(PE, "extra output after %lld answers", t);
    verdict(AC, "%lld answers ok", t);
}
