/* sysv_stash - tries to pass data from one run to the next through SysV IPC.
 *
 *   sysv_stash stash   creates a shared memory segment, a semaphore set and a
 *                      message queue under fixed keys, and leaves them behind
 *   sysv_stash find    looks for them: prints "shm gone", "sem gone" and
 *                      "msg gone" for each it cannot find, "... found" else
 */
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

#define KEY 0x4a554447

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    if (!strcmp(argv[1], "stash")) {
        int shm = shmget(KEY, 4096, IPC_CREAT | 0666);
        int sem = semget(KEY, 1, IPC_CREAT | 0666);
        int msg = msgget(KEY, IPC_CREAT | 0666);
        if (shm < 0 || sem < 0 || msg < 0) {
            perror("stash");
            return 1;
        }
        char *p = shmat(shm, NULL, 0);
        if (p != (void *)-1)
            strcpy(p, "the answers of test 1");
        printf("stashed\n");
        return 0;
    }
    printf("shm %s\n", shmget(KEY, 0, 0) < 0 ? "gone" : "found");
    printf("sem %s\n", semget(KEY, 0, 0) < 0 ? "gone" : "found");
    printf("msg %s\n", msgget(KEY, 0) < 0 ? "gone" : "found");
    return 0;
}
