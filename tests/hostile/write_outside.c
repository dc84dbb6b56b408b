/* write_outside NAME: tries to create or change files outside the work
 * directory; prints one line per attempt, "denied <path> <errno>" or
 * "WROTE <path>". Exits 0. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void try_create(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd >= 0) {
        (void)!write(fd, "pwned\n", 6);
        close(fd);
        printf("WROTE %s\n", path);
    } else {
        printf("denied %s %s\n", path, strerrorname_np(errno));
    }
}

static void try_write(const char *path)
{
    int fd = open(path, O_WRONLY);
    if (fd >= 0 && write(fd, "1\n", 2) == 2)
        printf("WROTE %s\n", path);
    else
        printf("denied %s %s\n", path, strerrorname_np(errno));
    if (fd >= 0)
        close(fd);
}

static void try_mkdir(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (mkdir(path, 0777) == 0)
        printf("WROTE %s\n", path);
    else
        printf("denied %s %s\n", path, strerrorname_np(errno));
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *name = argv[1];
    const char *dirs[] = {"", "/usr", "/usr/bin", "/usr/lib", "/etc", "/dev", "/proc",
                          "/bin", "/lib", "/box/..", "/proc/self/root/usr"};
    for (unsigned i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        try_create(dirs[i], name);
        try_mkdir(dirs[i], name);
    }
    try_write("/proc/sys/kernel/hostname");
    try_write("/proc/sys/vm/drop_caches");
    try_write("/proc/sysrq-trigger");
    try_write("/etc/ld.so.cache");
    try_write("/usr/bin/env");
    if (chmod("/usr/bin/env", 04777) == 0)
        puts("WROTE chmod /usr/bin/env");
    else
        printf("denied chmod /usr/bin/env %s\n", strerrorname_np(errno));
    if (symlink("/box", "/usr/lib/hostile-link") == 0)
        puts("WROTE symlink /usr/lib/hostile-link");
    else
        printf("denied symlink /usr/lib/hostile-link %s\n", strerrorname_np(errno));
    return 0;
}
