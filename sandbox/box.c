/*
 * box.c - the two kinds of process inside a box.
 *
 * keeper (pid 1 of the slot's pid namespace, root, one per slot and sandbox
 * handle, kept between runs):
 *   cloned by the supervisor with new pid, mount, ipc and uts namespaces, it
 *   joins the slot's network namespace, builds the box's root once (mnt.c),
 *   says BOX_READY and waits for commands on its control socket. For each
 *   run it attaches /box and the run's extra trees, spawns the
 *   program, watches it (SIGCHLD through a signalfd, the seccomp listener,
 *   the control socket for a kill), and once the program is gone kills every
 *   process left in its pid namespace and reaps them all, so nothing of one
 *   run is alive when the next starts. Then it reports, unmounts the run's
 *   mounts and, if the run made SysV objects, leaves its IPC namespace for a
 *   fresh one. A hang-up of the
 *   control socket means the supervisor went away (or closed the sandbox):
 *   the keeper kills the box and exits, and the kernel takes its namespaces
 *   down. Between runs it leaves nothing a run could count: /tmp, the IPC
 *   and network namespaces are replaced after a run that used them, the
 *   pid counter is reset before each spawn (sandbox.c).
 *
 * program:
 *   spawned with CLONE_VM | CLONE_VFORK on a stack of its own, so the
 *   keeper's page tables are never copied (the keeper is a copy of a
 *   possibly large supervisor). It joins the slot cgroup (writing 0 to the
 *   cgroup.procs files the supervisor opened), sets rlimits, takes its stdio,
 *   becomes the slot's uid/gid with an empty bounding set, no capabilities
 *   and no_new_privs, installs the seccomp filter, passes its listener to the
 *   keeper and execs with nothing open but stdio (the keeper's and the run's
 *   fds are closed before the limits are set). A failure before exec goes to
 *   the keeper over a close-on-exec pipe and becomes a setup failure (IE).
 *
 * Both are copies of a possibly multi-threaded supervisor made without its
 * fork handlers (clone, not fork), so they never allocate: another thread
 * may have held malloc's lock. What they need is in struct box_boot and the
 * shared request. sb_clone makes the keeper so that ThreadSanitizer's own
 * locks are free in it (util.c).
 *
 * Memory. A run's memory figure is the largest peak RSS (wait4's ru_maxrss)
 * of the processes the keeper reaps: the program, whose figure includes the
 * children it reaped itself, and its orphans. Unlike the cgroup's peak, it
 * does not depend on what earlier runs left in the page cache. One caveat:
 * execve records the peak RSS of the address space it leaves, and the program
 * leaves the keeper's (CLONE_VM), so a program smaller than the keeper's
 * resident memory (a copy of the supervisor's at the keeper's start, ~1-3 MiB
 * for judged or judge-sandbox) reads as that. A program that cannot even
 * start within its memory limit (ENOMEM in its setup, already charged to its
 * cgroup) is reported as out_of_memory: the supervisor makes it MLE.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

#define PROGRAM_STACK (256u << 10)
#define RUN_MAX_FDS (3 + CG_V1_COUNT + 1 + MNT_MAX_EXTRA + SANDBOX_MAX_PASS_FDS)
_Static_assert(RUN_MAX_FDS <= SB_MAX_PASS_FDS, "a run's fds fit one message");

/* The fds of one run, as received with BOX_CMD_RUN; -1 where absent. */
struct run_fds {
    int stdio[3];
    int cgroup[CG_V1_COUNT];
    int box;
    int extra[MNT_MAX_EXTRA];
    int pass[SANDBOX_MAX_PASS_FDS];   /* the program's 3, 4, ... */
};

/* What the program needs; it lives on the keeper's stack, which the program
 * shares (CLONE_VM) until it execs. */
struct spawn {
    const cpu_set_t *affinity;  /* the keeper's own, to restore; NULL: untouched */
    const struct box_request *req;
    const struct run_fds *fds;
    void *empty_caps;
    int fail_fd;      /* write end of the setup-failure pipe */
    int sock;         /* to pass the seccomp listener to the keeper */
    bool execing;     /* set by the program just before execve */
    char exec_path[PATH_MAX];
};

static void send_report(int fd, const struct box_report *r)
{
    ssize_t unused = send(fd, r, sizeof *r, MSG_NOSIGNAL);
    (void)unused;
}

/* ---- the program ----------------------------------------------------- */

__attribute__((noreturn)) static void program_failed(struct spawn *sp, const char *what)
{
    /* Everything from here on is charged to the box's cgroup: ENOMEM means
     * the memory limit is too small for the program to start. */
    struct box_report r = {.kind = BOX_SETUP_FAILED, .out_of_memory = errno == ENOMEM};
    snprintf(r.message, sizeof r.message, "box setup: %s: %s", what, strerror(errno));
    ssize_t unused = write(sp->fail_fd, &r, sizeof r);  /* atomic: < PIPE_BUF */
    (void)unused;
    _exit(127);
}

static int set_limit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit rl = {soft, hard};
    return setrlimit(resource, &rl);
}

static int set_rlimits(const struct box_request *req)
{
    const struct sandbox_limits *l = &req->limits;
    /* Stack as large as the memory limit, so deep recursion works: only the
     * pages touched count, in the cgroup. Degraded, RLIMIT_DATA stands in
     * for the cgroup and counts every thread's whole stack reservation
     * (glibc sizes them by RLIMIT_STACK), so the default is 64 MiB there. */
    rlim_t stack = l->stack ? l->stack : !l->memory ? RLIM_INFINITY
                 : req->degraded && l->memory > (64u << 20) ? (64u << 20) : l->memory;
    int procs = l->procs > 0 ? l->procs : 64;
    int files = l->open_files > 0 ? l->open_files : 64;
    if (l->cpu_time > 0) {
        /* a backstop: the supervisor is exact (and a limit too large for
         * an rlim_t, which a cast would make undefined, means none) */
        rlim_t secs = l->cpu_time < 1e9 ? (rlim_t)l->cpu_time + 1 : RLIM_INFINITY;
        if (set_limit(RLIMIT_CPU, secs, secs == RLIM_INFINITY ? secs : secs + 1) < 0)
            return -1;
    }
    /* One byte over the limit: a file of exactly the limit is fine, and a
     * program that tried to write more leaves a file the supervisor can
     * tell from it (even when it ignores SIGXFSZ). */
    if (l->output && set_limit(RLIMIT_FSIZE, l->output + 1, l->output + 1) < 0)
        return -1;
    if (req->degraded && l->memory && set_limit(RLIMIT_DATA, l->memory, l->memory) < 0)
        return -1;
    if (set_limit(RLIMIT_STACK, stack, stack) < 0 || set_limit(RLIMIT_CORE, 0, 0) < 0 ||
        set_limit(RLIMIT_NOFILE, files, files) < 0 || set_limit(RLIMIT_NPROC, procs, procs) < 0 ||
        set_limit(RLIMIT_MSGQUEUE, 0, 0) < 0)
        return -1;
    return 0;
}

/* Moves the stdio fds to 0, 1, 2 even when they overlap those numbers. */
/* stdio at 0..2 and the passed fds at 3.. (each first copied above 100,
 * so that no target overwrites a source not yet placed); the number of
 * fds placed, -1 on failure */
static int take_stdio(const struct run_fds *fds, int pass)
{
    int high[3 + SANDBOX_MAX_PASS_FDS];
    for (int i = 0; i < 3 + pass; i++) {
        int fd = i < 3 ? fds->stdio[i] : fds->pass[i - 3];
        if (fd < 0 && i < 3)
            fd = open("/dev/null", i == 0 ? O_RDONLY : O_WRONLY);
        high[i] = fd < 0 ? -1 : fcntl(fd, F_DUPFD, 100);
        if (high[i] < 0)
            return -1;
    }
    for (int i = 0; i < 3 + pass; i++)
        if (dup2(high[i], i) < 0)
            return -1;
    return 3 + pass;
}

static int become_nobody(const struct box_request *req, void *empty_caps)
{
    if (setsid() < 0)
        return -1;
    if (caps_drop_bounding() < 0)
        return -1;
    /* Raw system calls: glibc's wrappers broadcast the change to every thread
     * it believes we have, taking a lock that a thread of the supervisor may
     * have held when the keeper was cloned. This process has one thread. */
    if (syscall(SYS_setgroups, 0, NULL) < 0 ||
        syscall(SYS_setresgid, req->gid, req->gid, req->gid) < 0 ||
        syscall(SYS_setresuid, req->uid, req->uid, req->uid) < 0)
        return -1;
    if (caps_clear_all(empty_caps) < 0)
        return -1;
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* PATH from the job's environment, not ours: execvpe would use ours. */
static const char *find_path(const struct box_request *req)
{
    for (char *const *e = req->envp; e && *e; e++)
        if (!strncmp(*e, "PATH=", 5))
            return *e + 5;
    return "/usr/local/bin:/usr/bin:/bin";
}

static int resolve_program(struct spawn *sp)
{
    const char *name = sp->req->argv[0];
    if (strchr(name, '/')) {
        snprintf(sp->exec_path, sizeof sp->exec_path, "%s", name);
        return 0;
    }
    for (const char *dir = find_path(sp->req); *dir;) {
        size_t n = strcspn(dir, ":");
        snprintf(sp->exec_path, sizeof sp->exec_path, "%.*s/%s", (int)n, n ? dir : ".", name);
        if (access(sp->exec_path, X_OK) == 0)
            return 0;
        dir += n + (dir[n] == ':');
    }
    errno = ENOENT;
    return -1;
}

static void close_all_but_channels(const struct spawn *sp, int first)
{
    int keep = sp->fail_fd < sp->sock ? sp->fail_fd : sp->sock;
    int keep2 = sp->fail_fd < sp->sock ? sp->sock : sp->fail_fd;
    syscall(SYS_close_range, first, keep - 1, 0);
    syscall(SYS_close_range, keep + 1, keep2 - 1, 0);
    syscall(SYS_close_range, keep2 + 1, ~0U, 0);
}

static int program_main(void *arg)
{
    struct spawn *sp = arg;
    const struct box_request *req = sp->req;
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* the keeper reset every signal to its default; an ignored one stays
     * ignored across execve, for the job that asked */
    if (req->ignore_sigpipe)
        signal(SIGPIPE, SIG_IGN);
    /* past RLIMIT_FSIZE a write then fails (EFBIG) instead of killing */
    if (req->output_runs_on)
        signal(SIGXFSZ, SIG_IGN);
    if (sp->affinity)
        sched_setaffinity(0, sizeof *sp->affinity, sp->affinity);
    /* one box per core: pinned before it joins the cgroups (a v1 cpuset
     * refuses nothing, a v2 one intersects) */
    if (req->pinned && sched_setaffinity(0, sizeof req->cpus, &req->cpus) < 0)
        program_failed(sp, "cannot pin the program to its CPUs");
    for (int i = 0; i < CG_V1_COUNT; i++)
        if (sp->fds->cgroup[i] >= 0 && write(sp->fds->cgroup[i], "0", 1) != 1)
            program_failed(sp, "cannot join the box cgroup");
    /* Out of the way of dup2 onto 0..2; both are close-on-exec. */
    if ((sp->fail_fd = fcntl(sp->fail_fd, F_DUPFD_CLOEXEC, 100)) < 0 ||
        (sp->sock = fcntl(sp->sock, F_DUPFD_CLOEXEC, 100)) < 0)
        program_failed(sp, "cannot move the keeper's channels");
    if (chdir("/box") < 0)
        program_failed(sp, "cannot enter /box");
    if (resolve_program(sp) < 0) {
        struct box_report r = {.kind = BOX_SETUP_FAILED};
        snprintf(r.message, sizeof r.message, "cannot find program '%s' in the box",
                 req->argv[0]);
        ssize_t unused = write(sp->fail_fd, &r, sizeof r);
        (void)unused;
        _exit(127);
    }
    int placed = take_stdio(sp->fds, req->pass_fd_count);  /* before RLIMIT_NOFILE: it dups to high fds */
    if (placed < 0)
        program_failed(sp, "cannot set up stdin/stdout/stderr");
    /* The keeper's fds and the run's are ours too (a copy of its table):
     * gone now, so that the listener finds a free number under a small
     * RLIMIT_NOFILE; the two channels are above 100. */
    close_all_but_channels(sp, placed);
    if (set_rlimits(req) < 0)
        program_failed(sp, "setrlimit");
    if (become_nobody(req, sp->empty_caps) < 0)
        program_failed(sp, "cannot drop privileges");
    int listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                SECCOMP_FILTER_FLAG_NEW_LISTENER, &req->filter);
    if (listener < 0)
        program_failed(sp, "cannot install the seccomp filter");
    if (sb_send_fds(sp->sock, 'L', &listener, 1) < 0)
        program_failed(sp, "cannot hand over the seccomp listener");
    close(listener);
    sp->execing = true;
    execve(sp->exec_path, req->argv, req->envp ? req->envp : (char *const[]){NULL});
    struct box_report r = {.kind = BOX_SETUP_FAILED, .out_of_memory = errno == ENOMEM};
    snprintf(r.message, sizeof r.message, "cannot execute %.300s: %s", sp->exec_path,
             strerror(errno));
    ssize_t unused = write(sp->fail_fd, &r, sizeof r);
    (void)unused;
    _exit(127);
}

/* ---- the keeper: one run --------------------------------------------- */

/* The program's seccomp listener, sent before it execs; -1 if it died first. */
static int recv_listener(int sock)
{
    char byte;
    int fd, n;
    return sb_recv_fds(sock, &byte, &fd, 1, &n, MSG_DONTWAIT) == 1 && n == 1 ? fd : -1;
}

/* Hands out the received fds in the order the request describes. */
static int assign_fds(const struct box_request *req, const int *fds, int nfds,
                      struct run_fds *out)
{
    int i = 0;
    memset(out, -1, sizeof *out);
    for (int k = 0; k < 3; k++)
        if (req->has_stdio[k] && i < nfds)
            out->stdio[k] = fds[i++];
    for (int k = 0; k < req->cgroup_fd_count && k < CG_V1_COUNT && i < nfds; k++)
        out->cgroup[k] = fds[i++];
    if (req->mnt.box_from_tree && i < nfds)
        out->box = fds[i++];
    for (size_t k = 0; k < req->mnt.extra_count && k < MNT_MAX_EXTRA && i < nfds; k++)
        out->extra[k] = fds[i++];
    for (int k = 0; k < req->pass_fd_count && k < SANDBOX_MAX_PASS_FDS && i < nfds; k++)
        out->pass[k] = fds[i++];
    return i == nfds ? 0 : -1;
}

static void close_run_fds(struct run_fds *f)
{
    int *all = (int *)f;
    for (size_t i = 0; i < sizeof *f / sizeof(int); i++)
        if (all[i] >= 0) {
            close(all[i]);
            all[i] = -1;
        }
}

/* Kills everything in our pid namespace but us and reaps it all: orphans
 * of the run are our children. A fork racing the kill gets the signal too. */
static void kill_all(struct box_report *r)
{
    kill(-1, SIGKILL);
    for (;;) {
        int status;
        struct rusage ru;
        if (wait4(-1, &status, __WALL, &ru) < 0) {
            if (errno == EINTR)
                continue;
            return;  /* ECHILD: nobody left */
        }
        if ((uint64_t)ru.ru_maxrss * 1024 > r->program_maxrss)
            r->program_maxrss = (uint64_t)ru.ru_maxrss * 1024;
    }
}

/* Reaps what has ended; true once the program itself has been reaped. */
static bool reap(pid_t program, struct box_report *r)
{
    int status;
    struct rusage ru;
    pid_t pid;
    bool done = false;
    while ((pid = wait4(-1, &status, WNOHANG | __WALL, &ru)) > 0) {
        if ((uint64_t)ru.ru_maxrss * 1024 > r->program_maxrss)
            r->program_maxrss = (uint64_t)ru.ru_maxrss * 1024;
        if (pid == program) {
            r->wait_status = status;
            done = true;
        }
    }
    return done;
}

static void on_violation(int listener, struct box_report *r, bool *ipc_used)
{
    struct seccomp_notif note;
    memset(&note, 0, sizeof note);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &note) < 0)
        return;  /* the caller was killed before we looked */
    if (seccomp_is_observed(note.data.nr, note.data.arch)) {
        /* a SysV object: noted, and the call goes on as if unfiltered */
        struct seccomp_notif_resp resp = {.id = note.id,
                                          .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE};
        *ipc_used = true;
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0 || errno == ENOENT)
            return;  /* ENOENT: the caller died meanwhile */
    }
    kill(-1, SIGKILL);
    if (r->kind != BOX_VIOLATION) {
        r->kind = BOX_VIOLATION;
        r->syscall_nr = note.data.nr;
        r->arch = note.data.arch;
    }
}

/* Waits for the program; returns false when the supervisor hung up. */
static bool watch_program(int ctl, int sigfd, int listener, pid_t program,
                          struct box_report *r, bool *ipc_used)
{
    struct pollfd p[3] = {{sigfd, POLLIN, 0}, {ctl, POLLIN, 0}, {listener, POLLIN, 0}};
    while (!reap(program, r)) {
        if (poll(p, listener >= 0 ? 3 : 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        if (p[1].revents) {
            char cmd;
            ssize_t n = recv(ctl, &cmd, 1, MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                return false;  /* hang-up: nobody would judge this run */
            if (n > 0)
                kill(-1, SIGKILL);  /* BOX_CMD_KILL: a limit was passed */
        }
        if (listener >= 0 && (p[2].revents & POLLIN))
            on_violation(listener, r, ipc_used);
        else if (p[2].revents & (POLLHUP | POLLERR | POLLNVAL))
            listener = -1;  /* every filtered task is gone: poll it no more,
                               or we spin while the program finishes exiting */
        if (p[0].revents & POLLIN) {
            struct signalfd_siginfo si;
            while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si)
                ;
        }
    }
    return true;
}

static double children_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

struct keeper_state {
    const struct box_boot *boot;
    int sigfd;
    int last_pid_fd;  /* /proc/sys/kernel/ns_last_pid of the box, or -1 */
    int net_renewed;  /* at boot: 1 if the slot's namespace was replaced */
    unsigned runs_served;
    char *stack;
    struct mnt_state *mounts;
};

static void setup_failure(struct box_report *r, const char *msg)
{
    r->kind = BOX_SETUP_FAILED;
    snprintf(r->message, sizeof r->message, "%.399s", msg);
}

/* Spawns the program; its setup failures arrive on *fail_rd. */
static pid_t spawn_program(const struct keeper_state *ks, const struct run_fds *fds,
                           int *fail_rd, int *listener, struct box_report *r)
{
    int fail[2], sock[2];
    if (pipe2(fail, O_CLOEXEC) < 0) {
        setup_failure(r, "box setup: cannot make the keeper's pipe");
        return -1;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock) < 0) {
        close(fail[0]);
        close(fail[1]);
        setup_failure(r, "box setup: cannot make the keeper's socket");
        return -1;
    }
    struct spawn sp = {.req = ks->boot->request, .fds = fds,
                       .empty_caps = ks->boot->empty_caps, .fail_fd = fail[1], .sock = sock[1]};
    /* The program starts on our CPU, which we leave idle until it execs:
     * placed on the other one, it waits for that CPU to wake up (~0.03 ms
     * in a VM). It takes our own affinity back first thing. */
    cpu_set_t mine, here;
    int cpu = sched_getcpu();
    if (cpu >= 0 && sched_getaffinity(0, sizeof mine, &mine) == 0) {
        CPU_ZERO(&here);
        CPU_SET(cpu, &here);
        if (sched_setaffinity(0, sizeof here, &here) == 0)
            sp.affinity = &mine;
    }
    /* Every run's program gets pid 2 and its children the pids after it,
     * whatever earlier runs forked: pids must not count past runs. All of
     * those are reaped by now, so the numbers are free. */
    if (ks->last_pid_fd >= 0 && pwrite(ks->last_pid_fd, "1", 1, 0) != 1) {
        /* then pids go on from the last run's: a weaker box, not a broken one */
    }
    /* CLONE_VFORK: we resume once the program has exec'd or died, so sp
     * (on our stack) stays valid for as long as it uses it. */
    pid_t pid = clone(program_main, ks->stack + PROGRAM_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD,
                      &sp);
    if (sp.affinity)
        sched_setaffinity(0, sizeof mine, &mine);
    close(fail[1]);
    close(sock[1]);
    *fail_rd = fail[0];
    if (pid < 0)
        setup_failure(r, "box setup: cannot start the program");
    else
        *listener = recv_listener(sock[0]);  /* -1: it failed before sending it */
    if (pid > 0 && !sp.execing) {
        /* It died before exec; a report it could not write (the pipe's
         * buffer is charged to its cgroup too) means it ran out of memory. */
        setup_failure(r, "box setup: the program cannot start within its memory limit");
        r->out_of_memory = true;
    }
    close(sock[0]);
    return pid;
}

/* SysV shared memory, semaphores and message queues live in the keeper's
 * IPC namespace, not in a process, and their ids count every object the
 * namespace ever made, removed or not. So after a run that made one (the
 * filter reports each creation, seccomp.c) the keeper moves to a fresh IPC
 * namespace (~0.02 ms, after the report); the old one and whatever the run
 * left in it go with it. Should that fail, the objects are removed one by
 * one. */
static int remove_ipc_objects(void);

static void renew_ipc(bool used)
{
    if (used && unshare(CLONE_NEWIPC) < 0)
        (void)remove_ipc_objects();
}

static int remove_ipc_objects(void)
{
    int found = 0;
    struct shm_info shm;
    int top = shmctl(0, SHM_INFO, (struct shmid_ds *)&shm);
    for (int i = 0; i <= top; i++) {
        struct shmid_ds ds;
        int id = shmctl(i, SHM_STAT, &ds);
        if (id >= 0 && ++found)
            shmctl(id, IPC_RMID, NULL);
    }
    struct seminfo sem;
    top = semctl(0, 0, SEM_INFO, &sem);
    for (int i = 0; i <= top; i++) {
        struct semid_ds ds;
        int id = semctl(i, 0, SEM_STAT, &ds);
        if (id >= 0 && ++found)
            semctl(id, 0, IPC_RMID);
    }
    struct msginfo msg;
    top = msgctl(0, MSG_INFO, (struct msqid_ds *)&msg);
    for (int i = 0; i <= top; i++) {
        struct msqid_ds ds;
        int id = msgctl(i, MSG_STAT, &ds);
        if (id >= 0 && ++found)
            msgctl(id, IPC_RMID, NULL);
    }
    return found;
}

/* An inotify instance counts against its creator's effective uid, and a
 * user may have only fs.inotify.max_user_instances (128) of them: made as
 * root, a keeper per slot could use up what the host's own root services
 * need. So it is made as the slot's uid (its own budget) and the keeper is
 * root again at once (its real and saved uids stayed 0, so its
 * capabilities come back). -1 if that fails: the keeper then renews /tmp
 * after every run, only slower. Raw calls: see become_nobody. */
static int slot_inotify(uid_t uid)
{
    if (syscall(SYS_setresuid, -1, uid, -1) < 0)
        return -1;
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (syscall(SYS_setresuid, -1, 0, -1) < 0)
        _exit(127);  /* a keeper that cannot be root again must not go on */
    return fd;
}

/* One run, from BOX_CMD_RUN to its report. false: the supervisor is gone. */
static bool serve_run(struct keeper_state *ks, const int *fds, int nfds)
{
    const struct box_request *req = ks->boot->request;
    int ctl = ks->boot->ctl_fd;
    struct box_report r = {.kind = BOX_EXITED};
    struct run_fds rf;
    char err[SB_ERR_MAX];
    bool alive = true, mounted = false, ipc_used = false;
    int fail_rd = -1, listener = -1;
    double cpu_before = children_cpu();
    if (assign_fds(req, fds, nfds, &rf) < 0) {
        for (int i = 0; i < nfds; i++)
            close(fds[i]);
        memset(&rf, -1, sizeof rf);
        setup_failure(&r, "box setup: the request's fds do not match it");
    } else if (mnt_attach_run(&req->mnt, ks->mounts, rf.box, rf.extra, err, sizeof err) < 0) {
        setup_failure(&r, err);
        mounted = true;  /* some of them may be up */
    } else {
        mounted = true;
        pid_t program = spawn_program(ks, &rf, &fail_rd, &listener, &r);
        close_run_fds(&rf);  /* the program has its copies; a pipe's reader needs EOF */
        if (program > 0)
            alive = watch_program(ctl, ks->sigfd, listener, program, &r, &ipc_used);
        kill_all(&r);
        struct box_report failed;
        if (fail_rd >= 0 && read(fail_rd, &failed, sizeof failed) == (ssize_t)sizeof failed)
            r = failed;
        r.program_cpu = children_cpu() - cpu_before;
    }
    close_run_fds(&rf);
    if (fail_rd >= 0)
        close(fail_rd);
    if (listener >= 0)
        close(listener);
    if (alive)
        send_report(ctl, &r);
    /* From its second run on, the keeper watches its tmpfs roots so that it
     * can keep one a run left untouched (mnt.c). Not for the first: a keeper
     * that serves one run (the CLI without its server) would pay for the
     * watch when it exits (an SRCU grace period, ~10 ms under load). */
    if (ks->runs_served++ == 1 && ks->mounts->inotify_fd < 0)
        ks->mounts->inotify_fd = slot_inotify(req->uid);
    if (mounted)
        mnt_detach_run(ks->mounts);
    renew_ipc(ipc_used);
    if (net_renew_if_used() < 0) {
        /* the next run then meets what this one left in the network: a
         * weaker box, not a broken one */
    }
    return alive;
}

/* ---- the keeper: its life -------------------------------------------- */

__attribute__((noreturn)) static void boot_failed(const struct box_boot *boot, const char *msg)
{
    struct box_report r;
    memset(&r, 0, sizeof r);
    setup_failure(&r, msg);
    send_report(boot->ctl_fd, &r);
    _exit(127);
}

static void boot_keeper(const struct box_boot *boot, struct keeper_state *ks)
{
    char err[SB_ERR_MAX];
    sb_close_all_but(boot->ctl_fd, boot->net_fd);
    if (boot->net_fd >= 0) {
        if (setns(boot->net_fd, CLONE_NEWNET) < 0) {
            snprintf(err, sizeof err, "box setup: cannot join the network namespace: %s",
                     strerror(errno));
            boot_failed(boot, err);
        }
        close(boot->net_fd);
    }
    if (sethostname("box", 3) < 0)
        boot_failed(boot, "box setup: sethostname failed");
    if (net_cap_buffers() < 0 || (ks->net_renewed = net_renew_if_used()) < 0)
        boot_failed(boot, "box setup: cannot prepare the box's network namespace");
    /* Per pid namespace, ours and below: no memfd can be made executable,
     * so it is no way around the noexec /tmp (Linux 6.3+; without the file
     * memfds stay executable, see the README). */
    (void)sb_write_file("/proc/sys/vm/memfd_noexec", "2");
    /* Written before each spawn; it acts on the writer's pid namespace,
     * so the host's /proc, still ours here, will do. */
    ks->last_pid_fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    /* An ignored signal stays ignored across execve: the supervisor's
     * choices (SIGPIPE, say) must not reach the program. */
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);
    if (mnt_build_root(boot->root, err, sizeof err) < 0)
        boot_failed(boot, err);
    if (caps_keeper_bounding() < 0)
        boot_failed(boot, "box setup: cannot narrow the keeper's capabilities");
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    ks->boot = boot;
    ks->sigfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    ks->stack = mmap(NULL, PROGRAM_STACK, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    ks->mounts = mmap(NULL, sizeof *ks->mounts, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);  /* zeroed: nothing mounted */
    if (ks->sigfd < 0 || ks->stack == MAP_FAILED || ks->mounts == MAP_FAILED)
        boot_failed(boot, "box setup: cannot make the keeper's signalfd or memory");
    ks->mounts->inotify_fd = ks->mounts->tmp_wd = ks->mounts->box_wd = -1;
}

void box_keeper_main(const struct box_boot *boot)
{
    struct keeper_state ks = {0};
    boot_keeper(boot, &ks);
    struct box_report ready = {.kind = BOX_READY, .net_renewed = ks.net_renewed > 0};
    send_report(boot->ctl_fd, &ready);
    for (;;) {
        char cmd;
        int fds[RUN_MAX_FDS], nfds;
        int rc = sb_recv_fds(boot->ctl_fd, &cmd, fds, RUN_MAX_FDS, &nfds, 0);
        if (rc <= 0)
            _exit(0);  /* the supervisor closed the sandbox or died */
        if (cmd == BOX_CMD_RUN) {
            if (!serve_run(&ks, fds, nfds))
                _exit(0);
        } else {
            for (int i = 0; i < nfds; i++)
                close(fds[i]);  /* a kill that came after its run ended */
        }
    }
}
