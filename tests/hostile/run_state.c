/* run_state [dirty]: prints what a run could learn about the runs of its
 * slot that came before it, one "name value" per line:
 *   tmp_ino    inode number of a new file in /tmp
 *   box_ino    the same in /box
 *   pid        its own pid, and child: the pid of a child it forks
 *   shm        the id of a new SysV shared memory segment
 *   tcp_opens  TCP connections the box's network namespace has seen
 *              (/proc/net/snmp ActiveOpens)
 * With "dirty" it then leaves traces for the next run to find: files,
 * processes and IPC objects made and removed, a loopback TCP connection
 * (left in TIME_WAIT). With "quiet" it makes no entry anywhere and prints
 * only unnamed_ino, the inode number of an O_TMPFILE file in /tmp (-1 when
 * refused). Exits 0.
 * Without arguments (as a submission) it reads "dirty" or "clean" from
 * stdin and prints "fresh" when what it sees is a box no run has used: the
 * first inode of a fresh tmpfs (2: its root is 1), pid 2 (the keeper is 1),
 * the first SysV id (0), no TCP connection; else what it saw. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* also when compiled as a submission (-std=c17) */
#endif
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static long new_inode(const char *dir)
{
    char path[64];
    snprintf(path, sizeof path, "%s/probe", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    struct stat st;
    long ino = fd >= 0 && fstat(fd, &st) == 0 ? (long)st.st_ino : -1;
    if (fd >= 0)
        close(fd);
    unlink(path);
    return ino;
}

static long tcp_opens(void)
{
    char buf[8192];
    int fd = open("/proc/net/snmp", O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens ..." then values */
    char *values = strstr(buf, "\nTcp: ");
    values = values ? strstr(values + 1, "\nTcp: ") : NULL;
    long v[5] = {0};
    if (!values || sscanf(values + 6, "%ld %ld %ld %ld %ld", &v[0], &v[1], &v[2], &v[3], &v[4]) != 5)
        return -1;
    return v[4];
}

static void connect_once(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);
    if (bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0 &&
        getsockname(l, (struct sockaddr *)&a, &len) == 0 &&
        connect(c, (struct sockaddr *)&a, sizeof a) == 0) {
        int s = accept(l, NULL, NULL);
        close(c);  /* the active closer keeps TIME_WAIT */
        close(s);
    }
    close(l);
}

/* The inode number an O_TMPFILE file gets in dir, or -1: it would count
 * without showing in any directory. */
static long unnamed_inode(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_WRONLY, 0600);
    struct stat st;
    long ino = fd >= 0 && fstat(fd, &st) == 0 ? (long)st.st_ino : -1;
    if (fd >= 0)
        close(fd);
    return ino;
}

int main(int argc, char **argv)
{
    char word[16] = "";
    bool verdict = argc < 2 && scanf("%15s", word) == 1;
    const char *mode = argc > 1 ? argv[1] : word;
    if (!strcmp(mode, "quiet")) {
        /* touches no directory: only what a name-less file would reveal */
        printf("unnamed_ino %ld\n", unnamed_inode("/tmp"));
        return 0;
    }
    long tmp = new_inode("/tmp"), box = new_inode("/box");
    int pid = (int)getpid();
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    int shm = shmget(IPC_PRIVATE, 4096, 0600);
    shmctl(shm, IPC_RMID, NULL);
    long opens = tcp_opens();
    if (verdict && tmp == 2 && pid == 2 && shm == 0 && opens == 0)
        printf("fresh\n");
    else
        printf("tmp_ino %ld\nbox_ino %ld\npid %d\nchild %d\nshm %d\ntcp_opens %ld\n", tmp, box,
               pid, (int)child, shm, opens);
    if (!strcmp(mode, "dirty")) {
        for (int i = 0; i < 50; i++) {
            new_inode("/tmp");
            new_inode("/box");
            pid_t p = fork();
            if (p == 0)
                _exit(0);
            waitpid(p, NULL, 0);
            shmctl(shmget(IPC_PRIVATE, 4096, 0600), IPC_RMID, NULL);
        }
        connect_once();
    }
    return 0;
}
