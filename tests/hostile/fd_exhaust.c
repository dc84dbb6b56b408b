/* Opens files until the kernel refuses; prints "opened <n> <errno>
 * highest <fd>" and exits 0 when the refusal was EMFILE, 1 otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    int n = 0, highest = -1, fd;
    while ((fd = open("/dev/null", O_RDONLY)) >= 0 && n < 1000000) {
        n++;
        highest = fd;
    }
    int e = errno;
    printf("opened %d %s highest %d\n", n, strerrorname_np(e), highest);
    return e == EMFILE ? 0 : 1;
}
