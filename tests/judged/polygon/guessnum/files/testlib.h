// A tiny testlib-compatible header written for this project's tests (Debian
// packages no testlib.h, and real Polygon packages ship the upstream one in
// files/): the calls the test checkers and interactors use, with testlib's
// exit codes (0 ok, 1 wa, 2 pe, 3 fail) and argument conventions
// (checker IN OUT ANS; interactor IN TOUT [ANS], contestant on stdin/stdout).
#ifndef TINY_TESTLIB_H
#define TINY_TESTLIB_H
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

enum TResult { _ok = 0, _wa = 1, _pe = 2, _fail = 3 };

[[noreturn]] inline void quitf(TResult r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
    std::fputc('\n', stderr);
    std::exit(r);
}

struct InStream {
    std::FILE *f = nullptr;
    TResult eof_verdict = _pe;   // what a missing token is: the contestant's fault, or the jury's
    std::string readToken()
    {
        std::string s;
        int c;
        while ((c = std::fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\r' || c == '\t'))
            ;
        while (c != EOF && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
            s += (char)c;
            c = std::fgetc(f);
        }
        if (s.empty())
            quitf(eof_verdict, "unexpected end of file");
        return s;
    }
    std::string readWord() { return readToken(); }
    long long readLong()
    {
        std::string s = readToken();
        char *end;
        long long v = std::strtoll(s.c_str(), &end, 10);
        if (*end)
            quitf(eof_verdict, "expected an integer, found '%s'", s.c_str());
        return v;
    }
    int readInt() { return (int)readLong(); }
    bool seekEof()
    {
        int c;
        while ((c = std::fgetc(f)) != EOF)
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                std::ungetc(c, f);
                return false;
            }
        return true;
    }
};

inline InStream inf, ouf, ans;
inline std::FILE *tout_file;

inline std::FILE *open_or_fail(const char *path, const char *mode)
{
    std::FILE *f = std::fopen(path, mode);
    if (!f)
        quitf(_fail, "cannot open %s", path);
    return f;
}

inline void registerTestlibCmd(int argc, char **argv)
{
    if (argc < 4)
        quitf(_fail, "usage: checker IN OUT ANS");
    inf.f = open_or_fail(argv[1], "r"), inf.eof_verdict = _fail;
    ouf.f = open_or_fail(argv[2], "r");
    ans.f = open_or_fail(argv[3], "r"), ans.eof_verdict = _fail;
}

inline void registerInteraction(int argc, char **argv)
{
    if (argc < 3)
        quitf(_fail, "usage: interactor IN TOUT [ANS]");
    inf.f = open_or_fail(argv[1], "r"), inf.eof_verdict = _fail;
    tout_file = open_or_fail(argv[2], "w");
    ouf.f = stdin;
}
#endif
