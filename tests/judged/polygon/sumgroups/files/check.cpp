// The checker of "sumgroups": the contestant's sum against the jury's.
#include "testlib.h"

int main(int argc, char **argv)
{
    registerTestlibCmd(argc, argv);
    long long jury = ans.readLong(), got = ouf.readLong();
    if (!ouf.seekEof())
        quitf(_pe, "extra output after the sum");
    if (got != jury)
        quitf(_wa, "expected %lld, found %lld", jury, got);
    quitf(_ok, "%lld", got);
}
