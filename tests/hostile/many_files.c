/* many_files SIZE_MIB: fills the work directory with files of SIZE_MIB MiB
 * each (every one under the output limit) until a write fails or the
 * process is killed; prints the running total after every file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    long per_file = atol(argv[1]) << 20;
    static char buf[1 << 16];
    memset(buf, 'f', sizeof buf);
    long long total = 0;
    for (int i = 0;; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%05d", i);
        int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) {
            printf("open failed %s total %lld\n", strerrorname_np(errno), total);
            return 0;
        }
        for (long done = 0; done < per_file; done += sizeof buf) {
            ssize_t n = write(fd, buf, sizeof buf);
            if (n <= 0) {
                printf("write failed %s total %lld\n", n < 0 ? strerrorname_np(errno) : "EOF",
                       total);
                return 0;
            }
            total += n;
        }
        close(fd);
        printf("total %lld\n", total);
        fflush(stdout);
    }
}
