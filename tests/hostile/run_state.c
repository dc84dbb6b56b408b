/* run_state [dirty]: prints what a run could learn about the runs of its
 * slot that came before it, one "name value" per line:
 *   tmp_ino    inode number of a new file in /tmp
 *   box_ino    the same in /box
 *   pid        its own pid, and child: the pid of a child it forks
 *   shm        the id of a new SysV shared memory segment
 * With "dirty" it then leaves traces for the next run to find: files,
 * processes and IPC objects made and removed. Exits 0. */
#include <fcntl.h>
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

int main(int argc, char **argv)
{
    printf("tmp_ino %ld\nbox_ino %ld\npid %d\n", new_inode("/tmp"), new_inode("/box"),
           (int)getpid());
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    printf("child %d\n", (int)child);
    int shm = shmget(IPC_PRIVATE, 4096, 0600);
    printf("shm %d\n", shm);
    shmctl(shm, IPC_RMID, NULL);
    if (argc > 1 && !strcmp(argv[1], "dirty")) {
        for (int i = 0; i < 50; i++) {
            new_inode("/tmp");
            new_inode("/box");
            pid_t p = fork();
            if (p == 0)
                _exit(0);
            waitpid(p, NULL, 0);
            shmctl(shmget(IPC_PRIVATE, 4096, 0600), IPC_RMID, NULL);
        }
    }
    return 0;
}
