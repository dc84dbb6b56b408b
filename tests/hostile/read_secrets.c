/* read_secrets HOSTPID: tries to read what belongs to the host; prints
 *   open <path> <ok|errno>   for each file,
 *   procs <n>                the processes visible in /proc,
 *   hostpid <visible|absent> whether the host's HOSTPID shows in /proc,
 *   uid <uid>                our uid. Exits 0. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void try_read(const char *path)
{
    char buf[256];
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        printf("open %s %s\n", path, strerrorname_np(errno));
        return;
    }
    ssize_t n = read(fd, buf, sizeof buf);
    printf("open %s %s\n", path, n >= 0 ? "ok" : strerrorname_np(errno));
    close(fd);
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    const char *files[] = {"/etc/shadow", "/etc/passwd", "/etc/hostname", "/root/.bashrc",
                           "/proc/1/environ", "/proc/1/root/etc/shadow", "/proc/1/mem",
                           "/proc/kcore", "/sys/kernel/notes", "/run/judge-sandbox-test",
                           "/var/log/syslog", "/home"};
    for (unsigned i = 0; i < sizeof files / sizeof *files; i++)
        try_read(files[i]);
    DIR *d = opendir("/proc");
    int procs = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (isdigit((unsigned char)e->d_name[0]))
            procs++;
    if (d)
        closedir(d);
    printf("procs %d\n", procs);
    char path[64];
    snprintf(path, sizeof path, "/proc/%s", argv[1]);
    printf("hostpid %s\n", access(path, F_OK) == 0 ? "visible" : "absent");
    printf("uid %d\n", (int)getuid());
    return 0;
}
