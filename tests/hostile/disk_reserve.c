/* disk_reserve MODE MIB [PATH]: reserves MIB MiB of disk blocks without
 * growing the file's size, on stdout or on PATH (created), then prints
 * "MODE rc <errno|ok> size <st_size> allocated <st_blocks * 512>" and
 * exits 0. Every mode is a way to allocate blocks that RLIMIT_FSIZE does
 * not see:
 *   keep_size        fallocate(FALLOC_FL_KEEP_SIZE)
 *   zero_range       fallocate(FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE)
 *   keep_size_high   KEEP_SIZE with bits above 32 set in the mode register
 *   resvsp           ioctl(FS_IOC_RESVSP64), the old XFS call every
 *                    filesystem now answers with a KEEP_SIZE fallocate
 *   zero_range_ioctl ioctl(FS_IOC_ZERO_RANGE)
 *   extend           fallocate(0): grows the size, so RLIMIT_FSIZE holds
 * Without arguments (as a submission), "MODE MIB" come from stdin. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* also when compiled as a submission (-std=c17) */
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* include/linux/falloc.h in the kernel; not in the uapi headers */
struct space_resv {
    int16_t l_type, l_whence;
    int64_t l_start, l_len;
    int32_t l_sysid;
    uint32_t l_pid;
    int32_t l_pad[4];
};
#define FS_IOC_RESVSP64 _IOW('X', 42, struct space_resv)
#define FS_IOC_ZERO_RANGE _IOW('X', 57, struct space_resv)

int main(int argc, char **argv)
{
    static char mode[32], mib[16];
    char *args[] = {argv[0], mode, mib, NULL};
    if (argc < 3 && scanf("%31s %15s", mode, mib) == 2) {
        argv = args;
        argc = 3;
    }
    if (argc < 3)
        return 2;
    const char *m = argv[1];
    long long len = atoll(argv[2]) << 20;
    int fd = 1;
    if (argc > 3 && (fd = open(argv[3], O_RDWR | O_CREAT | O_TRUNC, 0644)) < 0) {
        printf("open %s\n", strerrorname_np(errno));
        return 1;
    }
    if (write(fd, "x\n", 2) != 2)
        return 1;
    long rc;
    struct space_resv sr = {.l_whence = SEEK_SET, .l_start = 0, .l_len = len};
    if (!strcmp(m, "keep_size"))
        rc = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, len);
    else if (!strcmp(m, "zero_range"))
        rc = fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 0, len);
    else if (!strcmp(m, "keep_size_high"))
        rc = syscall(SYS_fallocate, fd, (1L << 32) | FALLOC_FL_KEEP_SIZE, 0L, len);
    else if (!strcmp(m, "resvsp"))
        rc = ioctl(fd, FS_IOC_RESVSP64, &sr);
    else if (!strcmp(m, "zero_range_ioctl"))
        rc = ioctl(fd, FS_IOC_ZERO_RANGE, &sr);
    else if (!strcmp(m, "extend"))
        rc = fallocate(fd, 0, 0, len);
    else
        return 2;
    int e = errno;
    struct stat st;
    fstat(fd, &st);
    fprintf(fd == 1 ? stderr : stdout, "%s rc %ld %s size %lld allocated %lld\n", m, rc,
            rc ? strerrorname_np(e) : "ok", (long long)st.st_size, (long long)st.st_blocks * 512);
    return 0;
}
