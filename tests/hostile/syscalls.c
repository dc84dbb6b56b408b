/* syscalls MODE: one attempt to step out of the box per mode. Calls that the
 * seccomp filter denies never return (the box is taken down); the others
 * print what happened and exit 0.
 *
 *   setuid    setuid(0), setgid(0): prints "setuid <rc> <errno> uid <uid>"
 *   mount, umount, unshare, setns, chroot, pivot_root, ptrace,
 *   process_vm, clone_newuser, clone_newnet, clone3, keyctl, bpf, perf,
 *   io_uring, kexec, reboot, init_module, swapon, settime, sethostname,
 *   vsock, netlink, packet, alg, tipc, flock, int80, x32, modify_ldt,
 *   int_closed_gate (a software interrupt through a gate user mode may not
 *   use: the fault a kernel with its 32-bit gate closed gives int80),
 *   posix_lock, ofd_lock, getlk (record locks on /usr/bin/env, which every
 *   box can read), lock_high (F_SETLK with bits above 32 set in the command
 *   register), inotify, dnotify (both see other boxes open a shared file),
 *   nr N (the raw system call N, every argument -1), memfd (memfd_create:
 *   the beam profile answers EPERM),
 *   without arguments (as a submission): "MODE [N]" from stdin,
 *   child_ptrace (from a forked child, the parent waits),
 *   thread_ptrace (from a second thread, the main one keeps printing)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  /* also when compiled as a submission (-std=c17) */
#endif
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

static int done(const char *what, long rc)
{
    printf("%s %ld %s\n", what, rc, rc < 0 ? strerrorname_np(errno) : "ok");
    return 0;
}

static long raw_clone(unsigned long flags)
{
    long rc = syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
    if (rc == 0)
        _exit(0);
    return rc;
}

static void *traceme(void *arg)
{
    (void)arg;
    ptrace(PTRACE_TRACEME, 0, NULL, NULL);
    puts("thread: ptrace returned");
    return NULL;
}

int main(int argc, char **argv)
{
    static char mode[32], num[16];
    char *args[] = {argv[0], mode, num, NULL};
    if (argc < 2 && scanf("%31s %15s", mode, num) >= 1) {
        argv = args;
        argc = num[0] ? 3 : 2;
    }
    if (argc < 2)
        return 2;
    const char *m = argv[1];
    if (!strcmp(m, "setuid")) {
        int rc = setuid(0);
        int e = errno;
        int rg = setgid(0);
        printf("setuid %d %s setgid %d uid %d euid %d\n", rc, rc ? strerrorname_np(e) : "ok", rg,
               (int)getuid(), (int)geteuid());
        return 0;
    }
    if (!strcmp(m, "mount"))
        return done(m, mount("none", "/tmp", "tmpfs", 0, NULL));
    if (!strcmp(m, "umount"))
        return done(m, umount2("/usr", MNT_DETACH));
    if (!strcmp(m, "unshare"))
        return done(m, unshare(CLONE_NEWUSER));
    if (!strcmp(m, "setns"))
        return done(m, setns(open("/proc/1/ns/mnt", O_RDONLY), 0));
    if (!strcmp(m, "chroot"))
        return done(m, chroot("/tmp"));
    if (!strcmp(m, "pivot_root"))
        return done(m, syscall(SYS_pivot_root, "/tmp", "/tmp"));
    if (!strcmp(m, "ptrace"))
        return done(m, ptrace(PTRACE_TRACEME, 0, NULL, NULL));
    if (!strcmp(m, "process_vm")) {
        char a[8] = "secret", b[8];
        struct iovec l = {b, 8}, r = {a, 8};
        return done(m, process_vm_readv(1, &l, 1, &r, 1, 0));
    }
    if (!strcmp(m, "clone_newuser"))
        return done(m, raw_clone(CLONE_NEWUSER));
    if (!strcmp(m, "clone_newnet"))
        return done(m, raw_clone(CLONE_NEWNET));
    if (!strcmp(m, "clone3")) {
        char args[88] = {0};
        return done(m, syscall(SYS_clone3, args, sizeof args));
    }
    if (!strcmp(m, "keyctl"))
        return done(m, syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0));
    if (!strcmp(m, "bpf"))
        return done(m, syscall(SYS_bpf, 0, NULL, 0));
    if (!strcmp(m, "perf")) {
        struct perf_event_attr attr = {.type = PERF_TYPE_HARDWARE, .size = sizeof attr,
                                       .config = PERF_COUNT_HW_CPU_CYCLES};
        return done(m, syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    }
    if (!strcmp(m, "io_uring")) {
        char params[120] = {0};
        return done(m, syscall(SYS_io_uring_setup, 8, params));
    }
    if (!strcmp(m, "kexec"))
        return done(m, syscall(SYS_kexec_load, 0, 0, NULL, 0));
    if (!strcmp(m, "reboot"))
        return done(m, syscall(SYS_reboot, 0xfee1dead, 672274793, 0x4321fedc, NULL));
    if (!strcmp(m, "init_module"))
        return done(m, syscall(SYS_init_module, NULL, 0, ""));
    if (!strcmp(m, "swapon"))
        return done(m, syscall(SYS_swapon, "/tmp/swap", 0));
    if (!strcmp(m, "settime")) {
        struct timespec ts = {0, 0};
        return done(m, clock_settime(CLOCK_REALTIME, &ts));
    }
    if (!strcmp(m, "sethostname"))
        return done(m, sethostname("pwned", 5));
    if (!strcmp(m, "vsock"))
        return done(m, socket(AF_VSOCK, SOCK_STREAM, 0));
    if (!strcmp(m, "netlink"))
        return done(m, socket(AF_NETLINK, SOCK_RAW, 0));
    if (!strcmp(m, "packet"))
        return done(m, socket(AF_PACKET, SOCK_RAW, 0));
    if (!strcmp(m, "alg"))
        return done(m, socket(AF_ALG, SOCK_SEQPACKET, 0));
    if (!strcmp(m, "tipc"))
        return done(m, socket(AF_TIPC, SOCK_RDM, 0));
    if (!strcmp(m, "flock")) {
        int fd = open("/usr/bin/env", O_RDONLY);
        return done(m, flock(fd, LOCK_SH));
    }
    if (!strcmp(m, "modify_ldt")) {
        char buf[16];
        return done(m, syscall(SYS_modify_ldt, 0, buf, sizeof buf));
    }
    if (!strcmp(m, "posix_lock") || !strcmp(m, "ofd_lock") || !strcmp(m, "getlk") ||
        !strcmp(m, "lock_high")) {
        int fd = open("/usr/bin/env", O_RDONLY);
        struct flock l = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 7, .l_len = 1};
        if (!strcmp(m, "posix_lock"))
            return done(m, fcntl(fd, F_SETLK, &l));
        if (!strcmp(m, "ofd_lock"))
            return done(m, fcntl(fd, F_OFD_SETLK, &l));
        if (!strcmp(m, "lock_high"))
            return done(m, syscall(SYS_fcntl, fd, (1L << 32) | F_SETLK, &l));
        l.l_type = F_WRLCK;
        return done(m, fcntl(fd, F_GETLK, &l));
    }
    if (!strcmp(m, "inotify"))
        return done(m, inotify_init1(0));
    if (!strcmp(m, "dnotify")) {
        int fd = open("/usr/bin", O_RDONLY | O_DIRECTORY);
        return done(m, fcntl(fd, F_NOTIFY, DN_ACCESS | DN_MULTISHOT));
    }
    if (!strcmp(m, "nr") && argc > 2)
        return done(m, syscall(atol(argv[2]), -1L, -1L, -1L, -1L, -1L, -1L));
    if (!strcmp(m, "int80")) {
        /* i386 getpid (20) through the 32-bit gate */
        long rc;
        __asm__ volatile("int $0x80" : "=a"(rc) : "a"(20L) : "memory");
        return done(m, rc);
    }
    if (!strcmp(m, "int_closed_gate")) {
        /* vector 0x81 is a kernel-only gate on every x86-64 kernel: a general
         * protection fault (SIGSEGV) before any call, as int 0x80 gives where
         * IA32 emulation is off */
        long rc;
        __asm__ volatile("int $0x81" : "=a"(rc) : "a"(20L) : "memory");
        return done(m, rc);
    }
    if (!strcmp(m, "memfd"))
        return done(m, memfd_create("vmem", 0));
    if (!strcmp(m, "x32"))
        return done(m, syscall(0x40000000 | 39 /* x32 getpid */));
    if (!strcmp(m, "child_ptrace")) {
        pid_t pid = fork();
        if (pid == 0) {
            ptrace(PTRACE_TRACEME, 0, NULL, NULL);
            puts("child: ptrace returned");
            _exit(0);
        }
        waitpid(pid, NULL, 0);
        puts("parent: child done");
        return 0;
    }
    if (!strcmp(m, "thread_ptrace")) {
        pthread_t t;
        pthread_create(&t, NULL, traceme, NULL);
        pthread_join(t, NULL);
        puts("main: thread done");
        return 0;
    }
    fprintf(stderr, "unknown mode %s\n", m);
    return 2;
}
