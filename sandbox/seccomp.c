/*
 * seccomp.c - named system call filters, compiled once, loaded per run.
 *
 * The filters are deny lists: the programs judged here are ordinary user
 * code in many runtimes, and an allow list breaks them whenever glibc starts
 * using a new call (rseq, clone3, faccessat2... DMOJ hit this twice). What is
 * denied is what could reach beyond the box or widen the kernel's attack
 * surface: tracing other processes, mounting, namespaces, keyrings, bpf,
 * perf, io_uring (it bypasses the filter), module loading, reboot, swap,
 * clock changes, LDT changes (modify_ldt), page cache probes (cachestat).
 * The 32-bit (int 0x80) and x32 system call gates are denied
 * as a whole through the "bad architecture" action, since a filter written
 * for x86_64 numbers would not see them.
 *
 * A denied call does not kill directly: it raises a seccomp user
 * notification (SECCOMP_RET_USER_NOTIF). The box's keeper holds the listener,
 * reads which call it was, and takes the whole box down, so the result can
 * name the call, and a program cannot hide it by catching SIGSYS. clone3 is
 * answered ENOSYS instead (its flags are in memory, out of a filter's reach),
 * which makes glibc fall back to clone, whose namespace flags are checked.
 *
 * Profiles: "compile" (compilers: the base list) and the contestant
 * profiles "default" and "jvm", which are the same filter (jvm is kept as
 * a name for language files): on top of the base list no flock, no record
 * lock (fcntl F_GETLK/F_SETLK[W], F_OFD_*), no F_NOTIFY and no inotify -
 * with any of them two boxes could signal each other through a file they
 * can all read (/usr/bin/env) - and sockets of no family but unix: an inet
 * or inet6 socket is refused with EACCES (not a kill: glibc's resolver and
 * Java's start-up try sockets and go on without them). No solution needs
 * TCP or UDP, and on cgroup v1 their buffers are charged to a counter of
 * their own beside the memory limit, with a forced charge per socket past
 * it: 60 processes held 54 MB of loopback TCP data under a 32 MiB limit.
 * Unix socket and pipe buffers count against the limit on both versions.
 * A Java program gets nothing more than a C one: native code it starts, or
 * writes into its own memory, meets the same filter.
 *
 * "i386" is the contestant filter for 32-bit x86 programs (assembly
 * languages nasm32 and gas32, which make their system calls through int
 * 0x80): every other profile refuses the i386 gate as a bad architecture.
 * It is the default profile's list applied to both tables, x86_64 and
 * i386 (libseccomp translates each call by name), so a 32-bit program gets
 * nothing a 64-bit one does not, and what it execs meets the same filter.
 * What only the i386 table has is refused besides: the socketcall and ipc
 * multiplexers (their arguments sit in memory, out of a filter's reach:
 * a socket family could not be checked; the direct socket call, which
 * i386 has since Linux 4.3, is checked as on x86_64), vm86 and vm86old,
 * the old umount, stime, clock_settime64 and clock_adjtime64,
 * fcntl64's lock and notify commands (F_GETLK64... as well), and the
 * preallocation ioctls in their 32-bit encoding (struct space_resv is 44
 * bytes there). A 32-bit program's SysV object is denied, not observed.
 *
 * "beam" is the default profile with one call fewer, for the Erlang VM
 * (erlang, elixir): memfd_create answers EPERM. The BEAM's JIT (OTP 25)
 * maps its code twice through a memfd it grows to 8 MiB with ftruncate,
 * which RLIMIT_FSIZE - the run's output limit - refuses with SIGXFSZ:
 * under a 1 MiB output limit every Erlang program died at start as OLE.
 * Without a memfd the JIT falls back to one anonymous RWX mapping, which
 * every contestant profile allows (PyPy's JIT maps executable memory).
 *
 * Every profile refuses fallocate with any mode but 0 and the preallocation
 * ioctls (FS_IOC_RESVSP...): they reserve disk blocks beyond a file's size,
 * which RLIMIT_FSIZE never sees. The supervisor judges that OLE, not SV.
 * Arguments are compared on their low 32 bits where the kernel reads an int.
 *
 * Two kinds of rule serve the keeper's bookkeeping, not a denial: creating
 * a SysV object is observed (notified, then let through) so the keeper
 * knows to renew the IPC namespace; O_TMPFILE (EOPNOTSUPP) and openat2
 * (ENOSYS) are refused so that every file made in /tmp shows in its root
 * directory's ctime (see mnt.c).
 *
 * Drift. The list is reviewed against the whole x86_64 table, up to
 * SANDBOX_SYSCALL_REVIEWED (sandbox.h; the review is
 * tests/sandbox/syscall_review.h, which a test compares with the installed
 * kernel headers). A call numbered above that, added by a newer kernel, is
 * denied in every profile by a few instructions run before libseccomp's
 * program; calls libseccomp 2.5 does not know by name are denied by number.
 *
 * libseccomp builds the BPF program in the supervisor (it allocates); the
 * box child only calls seccomp(2) with the finished program.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

const char *const sandbox_profiles[] = {"default", "jvm", "compile", "i386", "beam", NULL};

enum { PROFILE_DEFAULT, PROFILE_JVM, PROFILE_COMPILE, PROFILE_I386, PROFILE_BEAM };

/* System calls libseccomp 2.5 does not know by name, with their x86_64
 * numbers: denied ones must be denied by number, and a result names them. */
static const struct {
    const char *name;
    int nr;
} newer_calls[] = {
    {"uretprobe", 335}, {"uprobe", 336}, {"cachestat", 451}, {"fchmodat2", 452},
    {"map_shadow_stack", 453}, {"futex_wake", 454}, {"futex_wait", 455},
    {"futex_requeue", 456}, {"statmount", 457}, {"listmount", 458},
    {"lsm_get_self_attr", 459}, {"lsm_set_self_attr", 460}, {"lsm_list_modules", 461},
    {"mseal", 462}, {"setxattrat", 463}, {"getxattrat", 464}, {"listxattrat", 465},
    {"removexattrat", 466}, {"open_tree_attr", 467}, {"file_getattr", 468},
    {"file_setattr", 469},
};

static const char *const denied_everywhere[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree",
    "open_tree_attr", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "statmount", "listmount",
    "unshare", "setns",
    "keyctl", "add_key", "request_key",
    "bpf", "perf_event_open", "userfaultfd", "fanotify_init",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "reboot",
    "init_module", "finit_module", "delete_module",
    "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "sethostname", "setdomainname", "iopl", "ioperm", "modify_ldt",
    "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "uselib",
    "nfsservctl", "vhangup", "cachestat",
    "lsm_get_self_attr", "lsm_set_self_attr", "lsm_list_modules",
};

/* Contestant programs only (default, jvm): calls that let two boxes signal
 * each other through a file they can all read (/usr/bin/env): locks of
 * either kind and notifications of its use. */
static const char *const denied_to_contestants[] = {
    "flock", "inotify_init", "inotify_init1", "inotify_add_watch",
};
static const int denied_fcntl_commands[] = {
    F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_NOTIFY,
};

/* ioctls that reserve disk blocks without growing the file (fs/ioctl.c
 * answers them with fallocate(FALLOC_FL_KEEP_SIZE) on every filesystem):
 * _IOW('X', 40..43 and 57, struct space_resv), 48 bytes on x86_64. */
static const unsigned space_ioctls[] = {0x40305828, 0x40305829, 0x4030582a, 0x4030582b,
                                        0x40305839};

/* SysV IPC ids count every object an IPC namespace ever made. Creating
 * one is observed, not denied: the keeper lets the call go on and moves to
 * a fresh IPC namespace after the run (box.c), which only such runs pay. */
static const char *const observed_calls[] = {"shmget", "semget", "msgget"};

static const int namespace_flags[] = {
    CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER,
    CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP,
};

static const int denied_socket_families_everywhere[] = {AF_VSOCK};

/* i386 profile only: calls only the i386 table has, refused (see the top):
 * the multiplexers, vm86, and the i386 spellings of calls denied by name on
 * x86_64 (the old umount, stime and the 64-bit-time clock setters). */
static const char *const denied_to_i386[] = {
    "socketcall", "ipc", "vm86", "vm86old", "umount", "stime", "clock_settime64",
    "clock_adjtime64",
};
/* fcntl64's lock and notify commands: the 64-bit ones plus F_GETLK64,
 * F_SETLK64 and F_SETLKW64 (12-14), which only the i386 table takes. */
static const int denied_fcntl64_commands[] = {
    F_GETLK, F_SETLK, F_SETLKW, 12, 13, 14, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_NOTIFY,
};
/* The preallocation ioctls as a 32-bit program encodes them (fs/ioctl.c,
 * FS_IOC_RESVSP_32...): _IOW('X', 40..43 and 57, 44 bytes). */
static const unsigned space_ioctls_i386[] = {0x402c5828, 0x402c5829, 0x402c582a, 0x402c582b,
                                             0x402c5839};

int seccomp_profile_index(const char *name)
{
    if (!name)
        return PROFILE_DEFAULT;
    for (int i = 0; sandbox_profiles[i]; i++)
        if (!strcmp(name, sandbox_profiles[i]))
            return i;
    return -1;
}

static int syscall_number(const char *name)
{
    int nr = seccomp_syscall_resolve_name(name);
    for (size_t i = 0; nr == __NR_SCMP_ERROR && i < sizeof newer_calls / sizeof *newer_calls; i++)
        if (!strcmp(name, newer_calls[i].name))
            nr = newer_calls[i].nr;
    return nr;
}

static int deny_name(scmp_filter_ctx ctx, const char *name)
{
    int nr = syscall_number(name);
    if (nr == __NR_SCMP_ERROR)
        return -ENOENT;  /* a typo in the list: fail loudly, never allow */
    if (seccomp_syscall_resolve_name(name) == __NR_SCMP_ERROR)
        return nr >= 424 ? 0 : -ENOENT;  /* newer than libseccomp: the prefix denies it */
    return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
}

static int deny_families(scmp_filter_ctx ctx, const int *fam, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 1,
                                  SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fam[i], 0));
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Contestant programs get AF_UNIX sockets; AF_INET and AF_INET6 ones are
 * refused (EACCES), every other family denied: netlink, packet, AF_ALG,
 * TIPC... are kernel surface no solution needs. A family with high bits set
 * is above AF_INET6 as a 64-bit number, so it meets the denial. */
static int allow_only_unix(scmp_filter_ctx ctx)
{
    int rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 1,
                              SCMP_A0(SCMP_CMP_GT, (scmp_datum_t)AF_INET6, 0));
    for (int family = 0; !rc && family <= AF_INET6; family++)
        if (family == AF_INET || family == AF_INET6)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
                                  SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)family, 0));
        else if (family != AF_UNIX && family != AF_VSOCK)
            rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(socket), 1,
                                  SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)family, 0));
    return rc;
}

/* The kernel reads an int or unsigned argument from the low 32 bits of its
 * register: a filter must compare those bits only, or a program sets a high
 * bit and slips past an equality test. */
#define LOW32(arg, value) SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)(value))

/* Blocks a file holds beyond its size escape RLIMIT_FSIZE: fallocate with
 * any mode but 0 (which grows the size, so the limit applies), and the
 * preallocation ioctls. The supervisor judges them OLE. */
static int deny_space_reservation(scmp_filter_ctx ctx)
{
    int rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(fallocate), 1,
                              SCMP_A1(SCMP_CMP_NE, 0, 0));
    for (size_t i = 0; !rc && i < sizeof space_ioctls / sizeof *space_ioctls; i++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(ioctl), 1,
                              LOW32(1, space_ioctls[i]));
    return rc;
}

static int deny_contestant_extras(scmp_filter_ctx ctx)
{
    int rc = allow_only_unix(ctx);
    for (size_t i = 0; !rc && i < sizeof denied_to_contestants / sizeof *denied_to_contestants; i++)
        rc = deny_name(ctx, denied_to_contestants[i]);
    for (size_t i = 0; !rc && i < sizeof denied_fcntl_commands / sizeof *denied_fcntl_commands; i++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(fcntl), 1,
                              LOW32(1, denied_fcntl_commands[i]));
    return rc;
}

/* What only the i386 table has (see the top). Calls x86_64 lacks get a
 * pseudo number there (negative: no call has it); the 32-bit ioctl numbers
 * reach x86_64's table too, where no ioctl has them. */
static int deny_i386_extras(scmp_filter_ctx ctx)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < sizeof denied_to_i386 / sizeof *denied_to_i386; i++) {
        int nr = seccomp_syscall_resolve_name(denied_to_i386[i]);
        rc = nr == __NR_SCMP_ERROR ? -ENOENT : seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
    }
    const size_t commands = sizeof denied_fcntl64_commands / sizeof *denied_fcntl64_commands;
    for (size_t i = 0; !rc && i < commands; i++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(fcntl64), 1,
                              LOW32(1, denied_fcntl64_commands[i]));
    for (size_t i = 0; !rc && i < sizeof space_ioctls_i386 / sizeof *space_ioctls_i386; i++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(ioctl), 1,
                              LOW32(1, space_ioctls_i386[i]));
    return rc;
}

/* A run that made no entry in /tmp or a private /box leaves them as it
 * found them, so the keeper keeps them for the next run: it tells by the
 * root directory's ctime (mnt.c). An O_TMPFILE file is an inode without an
 * entry, so it is refused as filesystems without it refuse it (glibc's
 * tmpfile falls back to a named file); openat2 hides its flags from a
 * filter, so it answers ENOSYS, as on kernels before 5.6. */
static int refuse_unnamed_files(scmp_filter_ctx ctx)
{
    int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), SCMP_SYS(open), 1,
                              SCMP_A1(SCMP_CMP_MASKED_EQ, __O_TMPFILE, __O_TMPFILE));
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EOPNOTSUPP), SCMP_SYS(openat), 1,
                              SCMP_A2(SCMP_CMP_MASKED_EQ, __O_TMPFILE, __O_TMPFILE));
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
    return rc;
}

static int add_rules(scmp_filter_ctx ctx, int profile)
{
    /* first: libseccomp turns each socket rule into a socketcall rule on
     * the i386 table too, whose actions would clash (EEXIST) unless
     * socketcall is already refused whatever its arguments */
    int rc = profile == PROFILE_I386 ? deny_i386_extras(ctx) : 0;
    for (size_t i = 0; !rc && i < sizeof observed_calls / sizeof *observed_calls; i++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, syscall_number(observed_calls[i]), 0);
    if (!rc)
        rc = refuse_unnamed_files(ctx);
    for (size_t i = 0; !rc && i < sizeof denied_everywhere / sizeof *denied_everywhere; i++)
        rc = deny_name(ctx, denied_everywhere[i]);
    for (size_t i = 0; !rc && i < sizeof namespace_flags / sizeof *namespace_flags; i++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, (scmp_datum_t)namespace_flags[i],
                                      (scmp_datum_t)namespace_flags[i]));
    if (!rc)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    if (!rc)
        rc = deny_families(ctx, denied_socket_families_everywhere, 1);
    if (!rc)
        rc = deny_space_reservation(ctx);
    /* jvm is the contestant profile too: native code a Java program starts
     * (or writes into its own memory) must meet the same filter. */
    if (!rc && profile != PROFILE_COMPILE)
        rc = deny_contestant_extras(ctx);
    /* beam: the JIT's memfd would meet the output limit (see the top) */
    if (!rc && profile == PROFILE_BEAM)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(memfd_create), 0);
    return rc;
}

/* Runs before libseccomp's program, on x86_64 and i386 (whose calls from
 * 424 on have the same numbers): a call numbered above the reviewed table
 * (newer than this filter) raises a notification, and so does a denied
 * call libseccomp 2.5 does not know by name (all numbered 424 or above).
 * libseccomp cannot place those on the i386 table: it finds a call's
 * number there through its x86_64 name. Anything else falls through to
 * libseccomp's program, which reloads what it needs; its jumps are
 * relative, so prepending does not move their targets. */
enum { PREFIX_MAX = 8 + sizeof newer_calls / sizeof *newer_calls };

static bool denied_everywhere_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof denied_everywhere / sizeof *denied_everywhere; i++)
        if (!strcmp(denied_everywhere[i], name))
            return true;
    return false;
}

static size_t newer_than_review(struct sock_filter *insns)
{
    unsigned k = 0, nrs[sizeof newer_calls / sizeof *newer_calls];
    for (size_t i = 0; i < sizeof newer_calls / sizeof *newer_calls; i++)
        if (newer_calls[i].nr >= 424 && denied_everywhere_by_name(newer_calls[i].name) &&
            seccomp_syscall_resolve_name(newer_calls[i].name) == __NR_SCMP_ERROR)
            nrs[k++] = (unsigned)newer_calls[i].nr;
    /* jump offsets count the instructions skipped: k tests, the JA, the RET */
    const unsigned char to_ret = (unsigned char)(k + 1), past = (unsigned char)(k + 4);
    size_t n = 0;
    insns[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                              offsetof(struct seccomp_data, arch));
    insns[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    insns[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, past);
    insns[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                              offsetof(struct seccomp_data, nr));
    insns[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, SANDBOX_SYSCALL_REVIEWED,
                                              to_ret, 0);
    for (unsigned i = 0; i < k; i++)
        insns[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nrs[i],
                                                  (unsigned char)(k - i), 0);
    insns[n++] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 1);
    insns[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
    return n;
}

/* libseccomp 2.5 exports only to a file descriptor: go through a memfd. */
static int export_program(scmp_filter_ctx ctx, struct seccomp_prog *out)
{
    int fd = memfd_create("seccomp-bpf", MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = seccomp_export_bpf(ctx, fd);
    struct stat st;
    if (rc == 0 && fstat(fd, &st) < 0)
        rc = -errno;
    if (rc == 0) {
        struct sock_filter prefix[PREFIX_MAX];
        size_t n = (size_t)st.st_size, pre = newer_than_review(prefix) * sizeof *prefix;
        struct sock_filter *insns = malloc(pre + n);
        if (!insns)
            rc = -ENOMEM;
        else if (pread(fd, (char *)insns + pre, n, 0) != (ssize_t)n) {
            free(insns);
            rc = -EIO;
        } else {
            memcpy(insns, prefix, pre);
            out->fprog.len = (unsigned short)((pre + n) / sizeof *insns);
            out->fprog.filter = insns;
        }
    }
    close(fd);
    return rc;
}

int seccomp_build(int profile, struct seccomp_prog *out, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        sb_errf(err, len, "seccomp_init failed");
        return -1;
    }
    /* We set no_new_privs ourselves, in the right order. */
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
    if (!rc)
        rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_NOTIFY);
    /* i386: the same rules on the 32-bit table too (see the top) */
    if (!rc && profile == PROFILE_I386)
        rc = seccomp_arch_add(ctx, SCMP_ARCH_X86);
    /* A binary tree of system call numbers instead of a linear list: the
     * kernel runs the filter over every number when it is loaded (to cache
     * what is always allowed), which halves the load from 0.13 ms. */
    if (!rc)
        rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    if (!rc)
        rc = add_rules(ctx, profile);
    if (!rc)
        rc = export_program(ctx, out);
    seccomp_release(ctx);
    if (rc < 0) {
        sb_errf(err, len, "cannot build seccomp profile %s: %s", sandbox_profiles[profile],
                strerror(-rc));
        return -1;
    }
    return 0;
}

void seccomp_prog_free(struct seccomp_prog *p)
{
    free(p->fprog.filter);
    p->fprog.filter = NULL;
    p->fprog.len = 0;
}

int seccomp_install(const struct seccomp_prog *p)
{
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                        SECCOMP_FILTER_FLAG_NEW_LISTENER, &p->fprog);
}

static const char *newer_call_name(int nr)
{
    for (size_t i = 0; i < sizeof newer_calls / sizeof *newer_calls; i++)
        if (newer_calls[i].nr == nr)
            return newer_calls[i].name;
    return NULL;
}

bool seccomp_is_observed(int nr, uint32_t arch)
{
    return arch == AUDIT_ARCH_X86_64 &&
           (nr == SCMP_SYS(shmget) || nr == SCMP_SYS(semget) || nr == SCMP_SYS(msgget));
}

bool seccomp_reserves_space(int nr, uint32_t arch)
{
    /* the i386 profile's 32-bit programs: the same two calls, their numbers */
    if (arch == AUDIT_ARCH_I386)
        return nr == seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86, "fallocate") ||
               nr == seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86, "ioctl");
    return arch == AUDIT_ARCH_X86_64 && (nr == SCMP_SYS(fallocate) || nr == SCMP_SYS(ioctl));
}

void seccomp_describe(int nr, uint32_t arch, char *name, size_t len)
{
    char *resolved = seccomp_syscall_resolve_num_arch(arch, nr);
    if (arch != SCMP_ARCH_X86_64 && arch != seccomp_arch_native()) {
        const char *abi = arch == SCMP_ARCH_X86 ? "i386" : arch == SCMP_ARCH_X32 ? "x32" : "foreign";
        /* i386 numbers from 424 on are x86_64's: libseccomp may not know them */
        const char *newer = arch == SCMP_ARCH_X86 && nr >= 424 ? newer_call_name(nr) : NULL;
        snprintf(name, len, "%s:%s", abi, resolved ? resolved : newer ? newer : "?");
    } else if ((nr & 0x40000000) && arch == SCMP_ARCH_X86_64) {
        snprintf(name, len, "x32:%d", nr & ~0x40000000);
    } else if (resolved) {
        snprintf(name, len, "%s", resolved);
    } else if (newer_call_name(nr)) {
        snprintf(name, len, "%s", newer_call_name(nr));
    } else {
        snprintf(name, len, "syscall %d", nr);
    }
    free(resolved);
}
