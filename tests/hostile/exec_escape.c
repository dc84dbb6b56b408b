/* exec_escape MODE: a runtime's way out of its own filter: write a program
 * where the box lets it write, and start it (or map it executable). The
 * program started is this one again, in mode "child", which tries what the
 * contestant profile denies (a netlink socket, flock) and prints
 * "child netlink <rc> <errno|ok>". A failed step prints "<step> -1 <errno>".
 *   tmp, shm   a copy in /tmp, /dev/shm, then execve
 *   memfd      memfd_create(MFD_EXEC), a copy, fexecve
 *   memfd_chmod memfd_create(0), a copy, fchmod 0755, fexecve
 *   mmap       a copy in /tmp mapped PROT_EXEC
 * Exits 0. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* also when compiled as a submission (-std=c17) */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

static int fail(const char *step)
{
    printf("%s -1 %s\n", step, strerrorname_np(errno));
    return 0;
}

static int copy_self(int to)
{
    int from = open("/proc/self/exe", O_RDONLY);
    struct stat st;
    if (from < 0 || fstat(from, &st) < 0)
        return -1;
    ssize_t n = sendfile(to, from, NULL, (size_t)st.st_size);
    close(from);
    return n == st.st_size ? 0 : -1;
}

static int via_path(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    if (fd < 0 || copy_self(fd) < 0)
        return fail("copy");
    close(fd);
    execl(path, path, "child", (char *)NULL);
    return fail("exec");
}

static int via_memfd(unsigned flags, int chmod_it)
{
    int fd = memfd_create("escape", flags);
    if (fd < 0)
        return fail("memfd_create");
    if (copy_self(fd) < 0)
        return fail("copy");
    if (chmod_it && fchmod(fd, 0755) < 0)
        return fail("fchmod");
    char *const argv[] = {"escape", "child", NULL}, *const envp[] = {NULL};
    fexecve(fd, argv, envp);
    return fail("exec");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *m = argv[1];
    setvbuf(stdout, NULL, _IONBF, 0);
    if (!strcmp(m, "child")) {
        int s = socket(AF_NETLINK, SOCK_RAW, 0);
        printf("child netlink %d %s\n", s, s < 0 ? strerrorname_np(errno) : "ok");
        int fd = open("/usr/bin/env", O_RDONLY);
        int rc = flock(fd, LOCK_SH);
        printf("child flock %d %s\n", rc, rc < 0 ? strerrorname_np(errno) : "ok");
        return 0;
    }
    if (!strcmp(m, "tmp"))
        return via_path("/tmp/escape");
    if (!strcmp(m, "shm"))
        return via_path("/dev/shm/escape");
    if (!strcmp(m, "memfd"))
        return via_memfd(MFD_EXEC, 0);
    if (!strcmp(m, "memfd_chmod"))
        return via_memfd(0, 1);
    if (!strcmp(m, "mmap")) {
        int fd = open("/tmp/lib", O_RDWR | O_CREAT | O_TRUNC, 0755);
        if (fd < 0 || copy_self(fd) < 0)
            return fail("copy");
        void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED)
            return fail("mmap");
        puts("mapped executable");
        return 0;
    }
    return 2;
}
