// Interactor of "guessnum": tells the contestant n, answers "? q" with
// <, > or =, accepts "! x" (at most 25 questions); writes the number found
// to its result file, which the checker (std::wcmp) compares with the answer.
#include <cstdio>
#include <string>
#include "testlib.h"

int main(int argc, char **argv)
{
    registerInteraction(argc, argv);
    long long n = inf.readLong(), x = inf.readLong();
    std::printf("%lld\n", n);
    std::fflush(stdout);
    for (int asked = 0;; asked++) {
        std::string op = ouf.readToken();
        long long q = ouf.readLong();
        if (op == "!") {
            if (q != x)
                quitf(_wa, "the number was %lld, not %lld", x, q);
            std::fprintf(tout_file, "%lld\n", q);
            quitf(_ok, "found %lld in %d questions", q, asked);
        }
        if (op != "?")
            quitf(_pe, "expected ? or !, found '%s'", op.c_str());
        if (asked == 25)
            quitf(_wa, "more than 25 questions");
        std::printf("%s\n", x < q ? "<" : x > q ? ">" : "=");
        std::fflush(stdout);
    }
}
