/* Tries to type into the terminal it was given (TIOCSTI on fds 0-2, after
 * trying to make it its controlling terminal with TIOCSCTTY), so that the
 * shell outside would run the text after the judge exits. Prints
 *   sctty <rc> <errno|ok>  and  sti<fd> <rc> <errno|ok>   and exits 0. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(void)
{
    const char *text = "echo PWNED-BY-BOX\n";
    int rc = ioctl(0, TIOCSCTTY, 1);
    fprintf(stderr, "sctty %d %s\n", rc, rc ? strerrorname_np(errno) : "ok");
    for (int fd = 0; fd < 3; fd++) {
        int failed = 0, err = 0;
        for (const char *c = text; *c; c++)
            if (ioctl(fd, TIOCSTI, c) < 0) {
                failed = -1;
                err = errno;
                break;
            }
        fprintf(stderr, "sti%d %d %s\n", fd, failed, failed ? strerrorname_np(err) : "ok");
    }
    return 0;
}
