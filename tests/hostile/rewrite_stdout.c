/* Tries to change, through the stdout it may share with whoever ran the
 * judge, what that caller wrote before it: overwrite it in place (pwrite,
 * lseek + write), cut it off (ftruncate) and switch the caller's open file
 * to non-blocking. Then prints one line. Run with a stdout that is the
 * caller's own file, the caller's earlier text must still be there, followed
 * by that line. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    static const char forged[] = "FORGED";
    if (pwrite(1, forged, strlen(forged), 0) < 0)
        perror("pwrite");
    if (lseek(1, 0, SEEK_SET) == 0 && write(1, forged, strlen(forged)) < 0)
        perror("write after lseek");
    if (ftruncate(1, 3) < 0)
        perror("ftruncate");
    int flags = fcntl(1, F_GETFL);
    if (flags >= 0 && fcntl(1, F_SETFL, flags | O_NONBLOCK) < 0)
        perror("fcntl");
    /* from the end of whatever stdout is now */
    lseek(1, 0, SEEK_END);
    static const char line[] = "the program's own line\n";
    return write(1, line, strlen(line)) == (ssize_t)strlen(line) ? 0 : 1;
}
