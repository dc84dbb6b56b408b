/* write_exact N [stderr] [ignore]: writes exactly N bytes to stdout (or
 * stderr) and exits 0. With "ignore", SIGXFSZ is ignored: a write past the
 * file size limit then fails with EFBIG instead of killing, and the program
 * still exits 0 - the output limit must be caught all the same. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    long long want = atoll(argv[1]);
    int fd = 1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "stderr"))
            fd = 2;
        if (!strcmp(argv[i], "ignore"))
            signal(SIGXFSZ, SIG_IGN);
    }
    static char buf[1 << 16];
    memset(buf, 'w', sizeof buf);
    long long done = 0;
    while (done < want) {
        size_t chunk = want - done < (long long)sizeof buf ? (size_t)(want - done) : sizeof buf;
        ssize_t n = write(fd, buf, chunk);
        if (n < 0) {
            if (errno == EFBIG)
                return 0;  /* "fine, I stop here" */
            return 1;
        }
        done += n;
    }
    return 0;
}
