// A few lines of testlib's interface, in TPS's CMS mode, written for judged's
// tests (not testlib itself): registerTestlibCmd(argc, argv) takes CMS's
// arguments (input, correct output, contestant output); quitf writes the
// score on stdout and the message on stderr and exits 0, as CMS reads them.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
enum TResult { _ok, _wa };
struct InStream {
    FILE *f = nullptr;
    long long readLong();
};
static InStream inf, ans, ouf;
[[noreturn]] static void quitf(TResult r, const char *fmt, ...)
{
    printf("%s\n", r == _ok ? "1.0" : "0.0");
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(0);
}
long long InStream::readLong()
{
    long long x;
    if (fscanf(f, "%lld", &x) != 1)
        quitf(_wa, "expected a number");
    return x;
}
static void registerTestlibCmd(int argc, char **argv)
{
    if (argc != 4)
        exit(3);
    inf.f = fopen(argv[1], "r");
    ans.f = fopen(argv[2], "r");
    ouf.f = fopen(argv[3], "r");
    if (!inf.f || !ans.f || !ouf.f)
        exit(3);
}
