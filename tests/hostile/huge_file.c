/* Grows a file in the work directory without end. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    static char buf[1 << 16];
    memset(buf, 'x', sizeof buf);
    int fd = open("huge.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror("open");
        return 1;
    }
    for (;;)
        if (write(fd, buf, sizeof buf) < 0) {
            perror("write");
            return 1;
        }
}
