/* Lists the file descriptors it was started with: "fd <n> <target>" per
 * line. Anything beyond 0, 1 and 2 leaked from the sandbox (a seccomp
 * listener, a status pipe, a cgroup file, a namespace handle...). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        perror("/proc/self/fd");
        return 1;
    }
    int self = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        int fd = atoi(e->d_name);
        if (fd == self)
            continue;
        char path[64], target[256];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        printf("fd %d %s\n", fd, target);
    }
    closedir(d);
    return 0;
}
