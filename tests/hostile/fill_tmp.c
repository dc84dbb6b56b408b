/* fill_tmp NAME: fills /tmp/NAME, then /dev/shm/NAME.shm (POSIX shared memory)
 * until the file system is full, and prints how much each took:
 *   tmp=<bytes> tmp_errno=<name> shm=<bytes> shm_errno=<name> */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static long long fill(const char *path, int *err)
{
    static char buf[1 << 16];
    memset(buf, 'z', sizeof buf);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        *err = errno;
        return -1;
    }
    long long total = 0;
    for (;;) {
        ssize_t n = write(fd, buf, sizeof buf);
        if (n <= 0) {
            *err = n < 0 ? errno : ENOSPC;
            break;
        }
        total += n;
    }
    close(fd);
    return total;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    char path[256];
    int e1 = 0, e2 = 0;
    snprintf(path, sizeof path, "/tmp/%s", argv[1]);
    long long tmp = fill(path, &e1);
    snprintf(path, sizeof path, "/dev/shm/%s.shm", argv[1]);
    long long shm = fill(path, &e2);
    printf("tmp=%lld tmp_errno=%s shm=%lld shm_errno=%s\n", tmp, strerrorname_np(e1), shm,
           strerrorname_np(e2));
    return 0;
}
