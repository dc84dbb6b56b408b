/*
 * box.c - the two processes inside a box.
 *
 * init (pid 1 of the box's pid namespace, still root):
 *   joins the slot's network namespace, builds the filesystem (mnt.c),
 *   forks the program, receives the program's seccomp listener over a
 *   socketpair, then waits on three things: SIGCHLD (reaping every orphan,
 *   so zombies never hold pids), a seccomp notification (a denied call: it
 *   reports it and kills the box), and the lifeline pipe (the supervisor
 *   died: kill the box). When the program exits it reports the status and
 *   exits; the kernel then kills whatever is left in the pid namespace.
 *
 * program (pid 2):
 *   joins the slot cgroup (writing 0 to the cgroup.procs files the supervisor
 *   opened), sets rlimits, takes its stdio, becomes the slot's uid/gid with
 *   an empty bounding set, no capabilities and no_new_privs, installs the
 *   seccomp filter, sends its listener to init, closes every other fd and
 *   execs. Any failure before exec is reported as a setup failure (IE).
 *
 * Both run in a raw clone of a possibly multi-threaded supervisor, so they
 * never allocate: everything was prepared in struct box_plan.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

static void report(int fd, const struct box_report *r)
{
    ssize_t unused = write(fd, r, sizeof *r);  /* atomic: < PIPE_BUF */
    (void)unused;
}

__attribute__((noreturn)) static void setup_failed(const struct box_plan *plan, const char *msg)
{
    struct box_report r = {.kind = BOX_SETUP_FAILED};
    snprintf(r.message, sizeof r.message, "%s", msg);
    report(plan->status_fd, &r);
    _exit(127);
}

__attribute__((noreturn)) static void setup_failed_errno(const struct box_plan *plan,
                                                         const char *what)
{
    char msg[300];
    snprintf(msg, sizeof msg, "box setup: %s: %s", what, strerror(errno));
    setup_failed(plan, msg);
}

/* ---- the program ----------------------------------------------------- */

static int set_limit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit rl = {soft, hard};
    return setrlimit(resource, &rl);
}

static int set_rlimits(const struct box_plan *plan)
{
    const struct sandbox_limits *l = plan->limits;
    /* Stack as large as the memory limit, so deep recursion works: only the
     * pages touched count, in the cgroup. Degraded, RLIMIT_DATA stands in
     * for the cgroup and counts every thread's whole stack reservation
     * (glibc sizes them by RLIMIT_STACK), so the default is 64 MiB there. */
    rlim_t stack = l->stack ? l->stack : !l->memory ? RLIM_INFINITY
                 : plan->degraded && l->memory > (64u << 20) ? (64u << 20) : l->memory;
    int procs = l->procs > 0 ? l->procs : 64;
    int files = l->open_files > 0 ? l->open_files : 64;
    if (l->cpu_time > 0) {
        rlim_t secs = (rlim_t)l->cpu_time + 1;  /* a backstop: the supervisor is exact */
        if (set_limit(RLIMIT_CPU, secs, secs + 1) < 0)
            return -1;
    }
    if (l->output && set_limit(RLIMIT_FSIZE, l->output, l->output) < 0)
        return -1;
    if (plan->degraded && l->memory && set_limit(RLIMIT_DATA, l->memory, l->memory) < 0)
        return -1;
    if (set_limit(RLIMIT_STACK, stack, stack) < 0 || set_limit(RLIMIT_CORE, 0, 0) < 0 ||
        set_limit(RLIMIT_NOFILE, files, files) < 0 || set_limit(RLIMIT_NPROC, procs, procs) < 0 ||
        set_limit(RLIMIT_MSGQUEUE, 0, 0) < 0)
        return -1;
    return 0;
}

/* Moves the caller's fds to 0, 1, 2 even when they overlap those numbers. */
static int take_stdio(const struct box_plan *plan)
{
    int high[3];
    for (int i = 0; i < 3; i++) {
        int fd = plan->stdio_fd[i];
        if (fd < 0)
            fd = open("/dev/null", i == 0 ? O_RDONLY : O_WRONLY);
        high[i] = fd < 0 ? -1 : fcntl(fd, F_DUPFD, 100);
        if (high[i] < 0)
            return -1;
    }
    for (int i = 0; i < 3; i++)
        if (dup2(high[i], i) < 0)
            return -1;
    return 0;
}

static int become_nobody(const struct box_plan *plan)
{
    if (setsid() < 0)
        return -1;
    if (caps_drop_bounding() < 0)
        return -1;
    /* Raw system calls: glibc's wrappers broadcast the change to every thread
     * it believes we have, taking a lock that a thread of the supervisor may
     * have held when we were cloned. This process has one thread. */
    if (syscall(SYS_setgroups, 0, NULL) < 0 ||
        syscall(SYS_setresgid, plan->gid, plan->gid, plan->gid) < 0 ||
        syscall(SYS_setresuid, plan->uid, plan->uid, plan->uid) < 0)
        return -1;
    if (caps_clear_all(plan->empty_caps) < 0)
        return -1;
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

static int send_fd(int sock, int fd)
{
    char data = 'L';
    struct iovec iov = {&data, 1};
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                         .msg_controllen = sizeof ctl.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

/* PATH from the job's environment, not ours: execvpe would use ours. */
static const char *find_path(const struct box_plan *plan)
{
    for (const char *const *e = plan->envp; e && *e; e++)
        if (!strncmp(*e, "PATH=", 5))
            return *e + 5;
    return "/usr/local/bin:/usr/bin:/bin";
}

static int resolve_program(struct box_plan *plan)
{
    const char *name = plan->argv[0];
    if (strchr(name, '/')) {
        snprintf(plan->exec_path, sizeof plan->exec_path, "%s", name);
        return 0;
    }
    for (const char *dir = find_path(plan); *dir;) {
        size_t n = strcspn(dir, ":");
        snprintf(plan->exec_path, sizeof plan->exec_path, "%.*s/%s", (int)n,
                 n ? dir : ".", name);
        if (access(plan->exec_path, X_OK) == 0)
            return 0;
        dir += n + (dir[n] == ':');
    }
    errno = ENOENT;
    return -1;
}

__attribute__((noreturn)) static void program_main(struct box_plan *plan, int sock)
{
    for (int i = 0; i < CG_V1_COUNT; i++)
        if (plan->cgroup_procs_fd[i] >= 0 && write(plan->cgroup_procs_fd[i], "0", 1) != 1)
            setup_failed_errno(plan, "cannot join the box cgroup");
    int status_fd = fcntl(plan->status_fd, F_DUPFD_CLOEXEC, 100);
    if (status_fd < 0)
        setup_failed_errno(plan, "cannot move the status pipe");
    close(plan->status_fd);
    plan->status_fd = status_fd;
    if ((sock = fcntl(sock, F_DUPFD_CLOEXEC, 100)) < 0)
        setup_failed_errno(plan, "cannot move init's socket");
    if (resolve_program(plan) < 0) {
        char msg[PATH_MAX + 64];
        snprintf(msg, sizeof msg, "cannot find program '%s' in the box", plan->argv[0]);
        setup_failed(plan, msg);
    }
    if (take_stdio(plan) < 0)  /* before RLIMIT_NOFILE: it dups to high fds */
        setup_failed_errno(plan, "cannot set up stdin/stdout/stderr");
    if (set_rlimits(plan) < 0)
        setup_failed_errno(plan, "setrlimit");
    if (become_nobody(plan) < 0)
        setup_failed_errno(plan, "cannot drop privileges");
    int listener = seccomp_install(plan->seccomp);
    if (listener < 0)
        setup_failed_errno(plan, "cannot install the seccomp filter");
    if (send_fd(sock, listener) < 0)
        setup_failed_errno(plan, "cannot hand over the seccomp listener");
    /* status_fd is close-on-exec: it reports an exec failure, then vanishes.
     * It was moved to >= 100 before stdio was taken. */
    syscall(SYS_close_range, 3, plan->status_fd - 1, 0);
    syscall(SYS_close_range, plan->status_fd + 1, ~0U, 0);
    execve(plan->exec_path, (char *const *)plan->argv,
           (char *const *)(plan->envp ? plan->envp : (const char *const[]){NULL}));
    char msg[PATH_MAX + 64];
    snprintf(msg, sizeof msg, "cannot execute %s: %s", plan->exec_path, strerror(errno));
    setup_failed(plan, msg);
}

/* ---- init ------------------------------------------------------------ */

static int recv_fd(int sock)
{
    char data;
    struct iovec iov = {&data, 1};
    union { struct cmsghdr h; char buf[CMSG_SPACE(sizeof(int))]; } ctl;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                         .msg_controllen = sizeof ctl.buf};
    if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
        return -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_RIGHTS)
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

__attribute__((noreturn)) static void kill_box(void)
{
    kill(-1, SIGKILL);  /* everything in our pid namespace but us */
    _exit(0);
}

static void on_violation(const struct box_plan *plan, int listener)
{
    struct seccomp_notif note;
    memset(&note, 0, sizeof note);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &note) < 0)
        return;  /* the caller went away before we looked */
    kill(-1, SIGKILL);
    struct box_report r = {.kind = BOX_VIOLATION, .syscall_nr = note.data.nr,
                           .arch = note.data.arch};
    report(plan->status_fd, &r);
    _exit(0);
}

/* Reaps every child; returns true once the program itself has been reaped. */
static bool reap(pid_t program, struct box_report *r)
{
    int status;
    struct rusage ru;
    pid_t pid;
    while ((pid = wait4(-1, &status, WNOHANG | __WALL, &ru)) > 0) {
        if (pid != program)
            continue;
        r->kind = BOX_EXITED;
        r->wait_status = status;
        struct rusage all;
        getrusage(RUSAGE_CHILDREN, &all);
        r->program_cpu = all.ru_utime.tv_sec + all.ru_utime.tv_usec / 1e6 +
                         all.ru_stime.tv_sec + all.ru_stime.tv_usec / 1e6;
        r->program_maxrss = (uint64_t)all.ru_maxrss * 1024;
        return true;
    }
    return false;
}

__attribute__((noreturn)) static void supervise_program(const struct box_plan *plan,
                                                        pid_t program, int sock, int sigfd)
{
    int listener = recv_fd(sock);  /* -1: the program died before sending it */
    close(sock);
    struct pollfd fds[3] = {{sigfd, POLLIN, 0}, {plan->lifeline_fd, POLLIN, 0},
                            {listener, POLLIN, 0}};
    struct box_report r = {0};
    for (;;) {
        if (reap(program, &r)) {
            report(plan->status_fd, &r);
            kill_box();
        }
        if (poll(fds, listener >= 0 ? 3 : 2, -1) < 0 && errno != EINTR)
            kill_box();
        if (fds[1].revents)
            kill_box();  /* the supervisor is gone: nobody would judge this */
        if (listener >= 0 && (fds[2].revents & POLLIN))
            on_violation(plan, listener);
        if (fds[0].revents & POLLIN) {
            struct signalfd_siginfo si;
            ssize_t unused = read(sigfd, &si, sizeof si);
            (void)unused;
        }
    }
}

static int compare_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* Other threads of the supervisor may have had fds open when we were cloned
 * (their boxes' pipes, slot locks): hold on to none of them. */
static void close_all_but(const struct box_plan *plan)
{
    int keep[16], n = 0;
    keep[n++] = plan->status_fd;
    keep[n++] = plan->lifeline_fd;
    if (plan->net_fd >= 0)
        keep[n++] = plan->net_fd;
    for (int i = 0; i < 3; i++)
        if (plan->stdio_fd[i] >= 0)
            keep[n++] = plan->stdio_fd[i];
    for (int i = 0; i < CG_V1_COUNT; i++)
        if (plan->cgroup_procs_fd[i] >= 0)
            keep[n++] = plan->cgroup_procs_fd[i];
    qsort(keep, (size_t)n, sizeof *keep, compare_int);
    int from = 0;
    for (int i = 0; i < n; i++) {
        if (keep[i] > from)
            syscall(SYS_close_range, from, keep[i] - 1, 0);
        from = keep[i] + 1;
    }
    syscall(SYS_close_range, from, ~0U, 0);
}

void box_init_main(struct box_plan *plan)
{
    char err[SB_ERR_MAX];
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close_all_but(plan);
    if (plan->net_fd >= 0 && setns(plan->net_fd, CLONE_NEWNET) < 0)
        setup_failed_errno(plan, "cannot join the box network namespace");
    if (sethostname("box", 3) < 0)
        setup_failed_errno(plan, "sethostname");
    if (mnt_enter_root(&plan->mnt, err, sizeof err) < 0)
        setup_failed(plan, err);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sigfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    int sock[2];
    if (sigfd < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock) < 0)
        setup_failed_errno(plan, "cannot create init's channels");
    /* A raw clone, not fork(): glibc's fork takes locks (malloc's among them)
     * that another supervisor thread may have held when we were cloned. */
    pid_t program = (pid_t)syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, 0);
    if (program < 0)
        setup_failed_errno(plan, "fork");
    if (program == 0) {
        sigprocmask(SIG_UNBLOCK, &chld, NULL);
        close(sock[0]);
        program_main(plan, sock[1]);
    }
    close(sock[1]);
    for (int i = 0; i < CG_V1_COUNT; i++)
        if (plan->cgroup_procs_fd[i] >= 0)
            close(plan->cgroup_procs_fd[i]);
    supervise_program(plan, program, sock[0], sigfd);
}
