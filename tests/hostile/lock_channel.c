/* lock_channel ofd|posix send TEXT | recv LEN: two boxes pass a string
 * through record locks on /usr/bin/env, a file every box can read. The
 * sender takes a read lock on byte 1000+i for every 1 bit i of TEXT, then
 * on byte 999 ("ready"), prints "sent" and waits to be killed. The receiver
 * asks (F_GETLK / F_OFD_GETLK) whether a write lock on byte 999 would
 * conflict, until one would, then reads LEN bytes the same way and prints
 * "received TEXT". A failed call prints "<call> -1 <errno>" and exits 0.
 * Without arguments (as a submission) they come from stdin. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* also when compiled as a submission (-std=c17) */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int lock_cmd(int ofd, int set)
{
    return set ? (ofd ? F_OFD_SETLK : F_SETLK) : (ofd ? F_OFD_GETLK : F_GETLK);
}

static int held(int fd, int ofd, off_t at)
{
    struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = at, .l_len = 1};
    if (fcntl(fd, lock_cmd(ofd, 0), &l) < 0) {
        printf("getlk -1 %s\n", strerrorname_np(errno));
        exit(0);
    }
    return l.l_type != F_UNLCK;
}

static void take(int fd, int ofd, off_t at)
{
    struct flock l = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = at, .l_len = 1};
    if (fcntl(fd, lock_cmd(ofd, 1), &l) < 0) {
        printf("setlk -1 %s\n", strerrorname_np(errno));
        exit(0);
    }
}

int main(int argc, char **argv)
{
    static char a1[16], a2[16], a3[64];
    char *args[] = {argv[0], a1, a2, a3, NULL};
    if (argc < 4 && scanf("%15s %15s %63s", a1, a2, a3) == 3) {
        argv = args;
        argc = 4;
    }
    if (argc < 4)
        return 2;
    int ofd = !strcmp(argv[1], "ofd");
    int fd = open("/usr/bin/env", O_RDONLY);
    if (fd < 0)
        return 1;
    if (!strcmp(argv[2], "send")) {
        const char *text = argv[3];
        for (size_t i = 0; i < strlen(text) * 8; i++)
            if ((text[i / 8] >> (i % 8)) & 1)
                take(fd, ofd, 1000 + (off_t)i);
        take(fd, ofd, 999);
        printf("sent\n");
        fflush(stdout);
        for (;;)
            pause();
    }
    size_t len = (size_t)atoi(argv[3]);
    while (!held(fd, ofd, 999))
        usleep(1000);
    char text[256] = "";
    for (size_t i = 0; i < len * 8 && i / 8 < sizeof text - 1; i++)
        if (held(fd, ofd, 1000 + (off_t)i))
            text[i / 8] |= (char)(1 << (i % 8));
    printf("received %s\n", text);
    return 0;
}
