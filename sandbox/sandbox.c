/*
 * sandbox.c - theory of operation.
 *
 * Processes. Three take part in a run:
 *
 *   supervisor   the caller of sandbox_run (the judge-sandbox CLI or its
 *                server, or a thread of the runner). It stays outside the
 *                box: it locks the slot, resets the slot's cgroup counters,
 *                opens the run's mounts as detached trees, writes the request
 *                and sends it to the slot's keeper, then watches CPU time
 *                (from the cgroup, every 10 ms), wall time and output size,
 *                and asks the keeper to kill the run when a limit is passed.
 *   keeper       pid 1 of the slot's box, one per slot and sandbox handle,
 *                started on the slot's first run and kept: cloned with new
 *                pid, mount, ipc and uts namespaces, it joins the slot's
 *                network namespace and builds the box's root once. Per run it
 *                attaches /box and the run's mounts, spawns the program, and
 *                when the program ends kills and reaps everything left in its
 *                pid namespace, reports, and unmounts. It stays root but runs
 *                nothing untrusted, outside the slot's cgroup so its work is
 *                not billed to the program. Building the box once is what
 *                makes a run cheap: about 1 ms for /bin/true, against 2.2 ms
 *                when every run built its own namespaces and root.
 *   program      joins the cgroup, drops to the slot's uid/gid with no
 *                capabilities, no_new_privs and the seccomp filter, and
 *                execs.
 *
 * Channels. The supervisor and the keeper share:
 *   control      a SOCK_SEQPACKET socketpair. Supervisor -> keeper: one-byte
 *                commands (run, with the run's fds attached; kill). Keeper ->
 *                supervisor: struct box_report (ready, then one per run:
 *                exit status, forbidden call, or setup failure). Its hang-up
 *                is the keeper's lifeline: when the supervisor dies or closes
 *                the sandbox, the keeper kills the box and exits.
 *   request      a MAP_SHARED area made before the keeper was cloned, so it
 *                has the same address in supervisor, keeper and program: the
 *                supervisor writes each run's limits, argv, envp, mounts and
 *                seccomp program there (no serialization, no allocation in
 *                the clones).
 *   pidfd        of the keeper, to see it died between runs and to kill it
 *                without pid reuse races.
 * The keeper and the program share a pipe (setup failures before exec) and
 * a socketpair (the seccomp listener, passed once). See box.c.
 *
 * Slots. A run names a slot (box id). The slot gives the uid/gid (uid_base +
 * slot), the cgroup (reused, counters reset), the network namespace (created
 * once, held by fd or pinned under run_dir) and the keeper. A lock file under
 * run_dir makes a second concurrent user of the same slot fail fast instead
 * of corrupting the first one's measurements; a keeper only ever runs while
 * its process holds that lock, so keepers of two processes never overlap.
 *
 * Privileges. Only the supervisor and the keeper are root; the program never
 * is. The box's filesystem lives in the keeper's mount namespace: nothing
 * mounted there is visible on the host.
 *
 * Runs of a slot share a keeper, so nothing a run can observe may depend on
 * the runs before it (they may be another contestant's). After the report
 * the keeper replaces what the run used: /tmp and a private /box if it made
 * an entry there (inode numbers count the files ever made; inotify tells,
 * mnt.c), the IPC namespace if it made a SysV object (ids count them; the
 * filter reports it, seccomp.c), the network namespace if it sent a packet
 * (counters, TIME_WAIT sockets; net.c). Before each spawn it resets the pid
 * counter, so every program is pid 2. A run that used none of them costs
 * one byte written (the pid reset) and a few reads.
 *
 * Kernel resources a box can pin: memory of every kind the kernel charges
 * to a cgroup (pages, tmpfs, memfds, pipe buffers, unix socket buffers,
 * epoll and inotify entries) counts against the memory limit; TCP buffers
 * too on cgroup v2, and on v1 up to a limit of their own equal to it (see
 * cgroup1.c, net.c). Disk: a file grows to the output limit at most
 * (RLIMIT_FSIZE), and blocks beyond a file's size cannot be reserved
 * (seccomp.c); that is judged OLE.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define TICK_MS 10
#define KEEPER_GRACE_MS 10000  /* a report this late means the keeper is stuck */
#define DEFAULT_PROCS 64

static void keeper_stop(struct keeper *k);

static const char *const status_names[] = {"OK", "RE", "TLE", "MLE", "OLE", "SV", "IE"};

const char *sandbox_status_name(enum sandbox_status s)
{
    return (unsigned)s < sizeof status_names / sizeof *status_names ? status_names[s] : "IE";
}

int sandbox_open(struct sandbox **out, const struct sandbox_config *cfg, char *err, size_t errlen)
{
    struct sandbox_config defaults = SANDBOX_CONFIG_INIT;
    if (!cfg)
        cfg = &defaults;
    struct sandbox *sb = calloc(1, sizeof *sb);
    if (!sb) {
        sb_errf(err, errlen, "out of memory");
        return -1;
    }
    const char *run_dir = cfg->run_dir ? cfg->run_dir : defaults.run_dir;
    if (strlen(run_dir) > SB_RUN_DIR_MAX || run_dir[0] != '/') {
        sb_errf(err, errlen, "run directory must be an absolute path of at most %d bytes: %s",
                SB_RUN_DIR_MAX, run_dir);
        free(sb);
        return -1;
    }
    snprintf(sb->run_dir, sizeof sb->run_dir, "%s", run_dir);
    sb->uid_base = cfg->uid_base ? cfg->uid_base : defaults.uid_base;
    sb->pin_netns = cfg->pin_netns;
    unsigned long long token = 0;
    if (getrandom(&token, sizeof token, 0) != sizeof token)
        token = (unsigned long long)(uintptr_t)sb ^ (unsigned long long)time(NULL);
    snprintf(sb->owner, sizeof sb->owner, "%d-%016llx\n", (int)getpid(), token);
    pthread_mutex_init(&sb->lock, NULL);
    for (int i = 0; i < SANDBOX_MAX_BOXES; i++)
        sb->net_fd[i] = -1;
    if (geteuid() != 0) {
        sb_errf(err, errlen, "the sandbox must run as root (it creates namespaces and cgroups)");
        goto fail;
    }
    if (sb_mkdir_p(sb->run_dir, 0755) < 0) {
        sb_errf(err, errlen, "cannot create %s: %s", sb->run_dir, strerror(errno));
        goto fail;
    }
    if (cgroup_detect(&sb->cgroups, cfg->cgroup_mode, cfg->cgroup_root,
                      cfg->cgroup_parent ? cfg->cgroup_parent : defaults.cgroup_parent,
                      err, errlen) < 0)
        goto fail;
    if (sb->cgroups.version && cfg->favor_dynmods) {
        char note[256];
        (void)cgroup_favor_dynmods(note, sizeof note);  /* only slower if refused */
    }
    if (!(sb->empty_caps = caps_empty())) {
        sb_errf(err, errlen, "cannot allocate a capability set");
        goto fail;
    }
    *out = sb;
    return 0;
fail:
    sandbox_close(sb);
    return -1;
}

void sandbox_close(struct sandbox *sb)
{
    if (!sb)
        return;
    for (int i = 0; i < SB_PROFILE_COUNT; i++)
        if (sb->filter_ready[i])
            seccomp_prog_free(&sb->filter[i]);
    for (int i = 0; i < SANDBOX_MAX_BOXES; i++) {
        keeper_stop(sb->keeper[i]);
        if (sb->net_fd[i] >= 0)
            close(sb->net_fd[i]);
    }
    caps_free(sb->empty_caps);
    pthread_mutex_destroy(&sb->lock);
    free(sb);
}

const char *sandbox_cgroup_version(const struct sandbox *sb)
{
    return sb->cgroups.version == 2 ? "v2" : sb->cgroups.version == 1 ? "v1" : "none";
}

/* ---- keepers ---------------------------------------------------------- */

/* A slot's keeper as the supervisor holds it. */
struct keeper {
    int pidfd;
    int ctl;                    /* SOCK_SEQPACKET to the keeper */
    struct box_request *req;    /* BOX_AREA_SIZE, shared with it */
};

static void keeper_stop(struct keeper *k)
{
    if (!k)
        return;
    close(k->ctl);  /* an idle keeper exits on the hang-up; the kill is for the rest */
    syscall(SYS_pidfd_send_signal, k->pidfd, SIGKILL, NULL, 0);
    siginfo_t info;
    while (waitid((idtype_t)P_PIDFD, (id_t)k->pidfd, &info, WEXITED | __WALL) < 0 &&
           errno == EINTR)
        ;
    close(k->pidfd);
    munmap(k->req, BOX_AREA_SIZE);
    free(k);
}

/* Waits up to timeout_ms for the keeper's next report; -1 if it died or
 * said nothing in time. */
static int keeper_report(struct keeper *k, struct box_report *r, int timeout_ms)
{
    struct pollfd p = {k->ctl, POLLIN, 0};
    int rc;
    while ((rc = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
        ;
    if (rc <= 0)
        return -1;
    return recv(k->ctl, r, sizeof *r, MSG_DONTWAIT) == (ssize_t)sizeof *r ? 0 : -1;
}

static int keeper_entry(void *boot)
{
    box_keeper_main(boot);  /* it never returns: the keeper _exits */
}

static struct keeper *keeper_start(struct sandbox *sb, const char *slot_dir, int net_fd,
                                   char *err, size_t len)
{
    struct keeper *k = calloc(1, sizeof *k);
    int sv[2];
    if (!k) {
        sb_errf(err, len, "cannot start the box: out of memory");
        return NULL;
    }
    k->req = mmap(NULL, BOX_AREA_SIZE, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (k->req == MAP_FAILED || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        sb_errf(err, len, "cannot start the box: %s", strerror(errno));
        if (k->req != MAP_FAILED)
            munmap(k->req, BOX_AREA_SIZE);
        free(k);
        return NULL;
    }
    struct box_boot boot = {.ctl_fd = sv[1], .net_fd = net_fd, .request = k->req,
                            .empty_caps = sb->empty_caps};
    snprintf(boot.root, sizeof boot.root, "%s/root", slot_dir);
    k->pidfd = -1;
    pid_t pid = sb_clone(keeper_entry, &boot, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC |
                                                  CLONE_NEWUTS | CLONE_PIDFD | SIGCHLD,
                         &k->pidfd);
    if (pid < 0)
        sb_errf(err, len, "cannot start the box: %s", strerror(errno));
    close(sv[1]);
    k->ctl = sv[0];
    if (pid < 0) {
        close(k->ctl);
        munmap(k->req, BOX_AREA_SIZE);
        free(k);
        return NULL;
    }
    struct box_report r;
    memset(&r, 0, sizeof r);
    int rc = keeper_report(k, &r, 10000);
    if (rc < 0 || r.kind != BOX_READY) {
        if (rc == 0 && r.kind == BOX_SETUP_FAILED)
            sb_errf(err, len, "%s", r.message);
        else
            sb_errf(err, len, "the box's keeper did not start");
        keeper_stop(k);
        return NULL;
    }
    if (r.net_renewed && sb->pin_netns && net_repin(slot_dir, (pid_t)pid) < 0) {
        /* later processes then renew it again at their start: only slower */
    }
    return k;
}

/* ---- per-run preparation ---------------------------------------------- */

/* Everything one run holds, released in one place. */
struct run {
    struct box_cgroup cg;
    char slot_dir[SB_RUN_DIR_MAX + 16];
    int lock_fd;
    int slot;
    bool slot_held;      /* sb->slot_busy[slot] is ours to clear */
    struct keeper *keeper;
    int cancel_fd;
    bool output_runs_on; /* the job's: no kill at the output limit */
    int stdio_fd[3];
    const int *pass_fd;  /* the job's pass_fds (its to close) */
    int pass_count;
    int box_fd;
    int extra_fd[MNT_MAX_EXTRA];
    size_t extra_count;
    bool degraded;
    struct sandbox_limits limits;
    uint64_t waited_ns;  /* the most the program waited for a core (past_wall) */
    struct sandbox_waits *shared_waits;   /* the job's: its group's waits */
};

static const struct seccomp_prog *profile_program(struct sandbox *sb, int profile,
                                                  char *err, size_t len)
{
    pthread_mutex_lock(&sb->lock);
    if (!sb->filter_ready[profile] && seccomp_build(profile, &sb->filter[profile], err, len) == 0)
        sb->filter_ready[profile] = true;
    const struct seccomp_prog *p = sb->filter_ready[profile] ? &sb->filter[profile] : NULL;
    pthread_mutex_unlock(&sb->lock);
    return p;
}

static int slot_netns(struct sandbox *sb, int slot, const char *slot_dir, char *err, size_t len)
{
    pthread_mutex_lock(&sb->lock);
    if (sb->net_fd[slot] < 0)
        sb->net_fd[slot] = net_slot_open(slot_dir, sb->pin_netns, err, len);
    int fd = sb->net_fd[slot];
    pthread_mutex_unlock(&sb->lock);
    return fd;
}

/* The slot's keeper, started on first use and again if it died. Only the
 * slot's holder gets here, so sb->keeper[slot] needs no lock. */
static struct keeper *slot_keeper(struct sandbox *sb, struct run *run, int net_fd,
                                  char *err, size_t len)
{
    struct keeper *k = sb->keeper[run->slot];
    if (k) {
        struct pollfd p = {k->pidfd, POLLIN, 0};
        if (poll(&p, 1, 0) == 0)
            return k;
        keeper_stop(k);  /* it died between runs: start afresh */
        sb->keeper[run->slot] = NULL;
    }
    return sb->keeper[run->slot] = keeper_start(sb, run->slot_dir, net_fd, err, len);
}

/* The lock file names the handle that used the slot last. If that was not
 * us, another process may have changed the slot's cgroup meanwhile, so what
 * we remember of it no longer holds. */
static void note_owner(struct sandbox *sb, struct run *run)
{
    char last[sizeof sb->owner];
    ssize_t n = pread(run->lock_fd, last, sizeof last - 1, 0);
    size_t mine = strlen(sb->owner);
    if (n == (ssize_t)mine && !memcmp(last, sb->owner, mine))
        return;
    sb->cg_memo[run->slot].made = false;
    if (pwrite(run->lock_fd, sb->owner, mine, 0) != (ssize_t)mine ||
        ftruncate(run->lock_fd, (off_t)mine) < 0) {
        /* then our next run starts from scratch again: only slower */
    }
}

/* Two locks: a flag under sb->lock for threads of this process, and a POSIX
 * record lock on <slot>/lock for other processes. Not flock: a flock belongs
 * to the open file, which a keeper cloned meanwhile by another thread shares
 * until it closes it, so a slot would look busy after its run ended.
 * A POSIX lock belongs to this process and no child ever holds it. */
static int lock_slot(struct sandbox *sb, struct run *run, int slot, char *err, size_t len)
{
    pthread_mutex_lock(&sb->lock);
    bool busy = sb->slot_busy[slot];
    sb->slot_busy[slot] = true;
    pthread_mutex_unlock(&sb->lock);
    if (busy) {
        sb_errf(err, len, "box %d is busy: another run of this process uses it", slot);
        return -1;
    }
    run->slot = slot;
    run->slot_held = true;
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/lock", run->slot_dir);
    run->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (run->lock_fd < 0 && errno == ENOENT) {
        /* the slot's first run: make its directory and root mount point */
        char root[PATH_MAX + 16];
        snprintf(root, sizeof root, "%s/root", run->slot_dir);
        if (sb_mkdir_p(root, 0755) < 0) {
            sb_errf(err, len, "cannot create %s: %s", root, strerror(errno));
            return -1;
        }
        run->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    }
    if (run->lock_fd < 0) {
        sb_errf(err, len, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(run->lock_fd, F_SETLK, &whole) < 0) {
        sb_errf(err, len, "box %d is busy: another process holds %s", slot, path);
        return -1;
    }
    note_owner(sb, run);
    return 0;
}

static void effective_limits(struct sandbox_limits *l)
{
    if (l->procs <= 0)
        l->procs = DEFAULT_PROCS;
    /* A stopped or sleeping program must still end: CPU limit implies wall. */
    if (l->wall_time <= 0 && l->cpu_time > 0)
        l->wall_time = l->cpu_time * 2 + 1;
}

static int check_job(const struct sandbox_job *job, int *profile, char *err, size_t len)
{
    if (!job->argv || !job->argv[0] || !job->argv[0][0]) {
        sb_errf(err, len, "no program to run");
        return -1;
    }
    if (job->slot < 0 || job->slot >= SANDBOX_MAX_BOXES) {
        sb_errf(err, len, "box id %d out of range 0..%d", job->slot, SANDBOX_MAX_BOXES - 1);
        return -1;
    }
    if ((*profile = seccomp_profile_index(job->profile)) < 0) {
        sb_errf(err, len, "unknown profile '%s' (known: default, jvm, compile, i386, beam)", job->profile);
        return -1;
    }
    if (job->pass_fd_count < 0 || job->pass_fd_count > SANDBOX_MAX_PASS_FDS ||
        (job->pass_fd_count && !job->pass_fds)) {
        sb_errf(err, len, "%d fds to pass (at most %d)", job->pass_fd_count, SANDBOX_MAX_PASS_FDS);
        return -1;
    }
    for (int i = 0; i < job->pass_fd_count; i++)
        if (job->pass_fds[i] < 0) {
            sb_errf(err, len, "fd to pass %d is not open", i);
            return -1;
        }
    if (job->workdir && job->workdir[0] != '/') {
        sb_errf(err, len, "work directory must be an absolute path: %s", job->workdir);
        return -1;
    }
    return 0;
}

static size_t count_strings(const char *const *v)
{
    size_t n = 0;
    while (v && v[n])
        n++;
    return n;
}

/* Copies argv and envp into the request's string area; the pointers are
 * valid in the keeper and the program too (same address, shared). */
static int pack_strings(struct box_request *req, const char *const *argv,
                        const char *const *envp, char *err, size_t len)
{
    char *end = (char *)req + BOX_AREA_SIZE;
    size_t argc = count_strings(argv), envc = count_strings(envp);
    uintptr_t at = ((uintptr_t)req->strings + 15) & ~(uintptr_t)15;
    char **av = (char **)at, **ev = av + argc + 1;
    char *p = (char *)(ev + envc + 1);
    for (size_t i = 0; p <= end && i < argc + envc; i++) {
        const char *src = i < argc ? argv[i] : envp[i - argc];
        size_t n = strlen(src) + 1;
        if ((size_t)(end - p) < n) {
            p = end + 1;
            break;
        }
        memcpy(p, src, n);
        *(i < argc ? &av[i] : &ev[i - argc]) = p;
        p += n;
    }
    if (p > end) {
        sb_errf(err, len, "arguments and environment too long (at most %u KiB)",
                BOX_AREA_SIZE >> 10);
        return -1;
    }
    av[argc] = ev[envc] = NULL;
    req->argv = av;
    req->envp = envp ? ev : NULL;
    return 0;
}

/* The program's affinity: sandbox_job.cpus, whatever the cgroups offer. */
static int pin_request(struct box_request *req, const char *cpus, char *err, size_t len)
{
    int list[SB_MAX_CPUS];
    int n = cpus ? sb_parse_cpus(cpus, list, SB_MAX_CPUS) : 0;
    if (n < 0 || (cpus && strlen(cpus) >= sizeof ((struct cgroup_memo *)0)->cpus)) {
        sb_errf(err, len, "cpus: expected a CPU list like 3 or 0-1,4, not '%.40s'", cpus);
        return -1;
    }
    req->pinned = n > 0;
    CPU_ZERO(&req->cpus);
    for (int i = 0; i < n; i++)
        CPU_SET(list[i], &req->cpus);
    return 0;
}

static int fill_request(struct sandbox *sb, const struct sandbox_job *job, struct run *run,
                        const struct seccomp_prog *filter, char *err, size_t len)
{
    struct box_request *req = run->keeper->req;
    if (filter->fprog.len > BOX_MAX_FILTER) {
        sb_errf(err, len, "seccomp program too long");
        return -1;
    }
    req->limits = run->limits;
    req->uid = sb->uid_base + (uid_t)job->slot;
    req->gid = (gid_t)req->uid;
    req->degraded = run->degraded;
    req->ignore_sigpipe = job->ignore_sigpipe;
    req->output_runs_on = job->output_runs_on;
    for (int i = 0; i < 3; i++)
        req->has_stdio[i] = run->stdio_fd[i] >= 0;
    req->pass_fd_count = run->pass_count;
    if (pin_request(req, job->cpus, err, len) < 0)
        return -1;
    req->cgroup_fd_count = 0;
    for (int i = 0; i < CG_V1_COUNT; i++)
        req->cgroup_fd_count += run->cg.procs_fd[i] >= 0;
    memcpy(req->filter_insns, filter->fprog.filter,
           filter->fprog.len * sizeof *filter->fprog.filter);
    req->filter.len = filter->fprog.len;
    req->filter.filter = req->filter_insns;
    if (pack_strings(req, job->argv, job->envp, err, len) < 0)
        return -1;
    if (mnt_open_trees(job, req->uid, &req->mnt, &run->box_fd, run->extra_fd, err, len) < 0) {
        run->extra_count = req->mnt.extra_count;
        return -1;
    }
    run->extra_count = req->mnt.extra_count;
    return 0;
}

static int prepare(struct sandbox *sb, const struct sandbox_job *job, struct run *run,
                   char *err, size_t len)
{
    int profile, net_fd;
    const struct seccomp_prog *filter;
    if (check_job(job, &profile, err, len) < 0)
        return -1;
    run->limits = job->limits;
    run->shared_waits = job->shared_waits;
    run->cancel_fd = job->cancel_fd;
    run->output_runs_on = job->output_runs_on;
    run->stdio_fd[0] = job->stdin_fd;
    run->stdio_fd[1] = job->stdout_fd;
    run->stdio_fd[2] = job->stderr_fd;
    run->pass_fd = job->pass_fds;
    run->pass_count = job->pass_fd_count;
    run->degraded = sb->cgroups.version == 0;
    effective_limits(&run->limits);
    snprintf(run->slot_dir, sizeof run->slot_dir, "%s/box-%d", sb->run_dir, job->slot);
    if (lock_slot(sb, run, job->slot, err, len) < 0)
        return -1;
    if (!(filter = profile_program(sb, profile, err, len)))
        return -1;
    if ((net_fd = slot_netns(sb, job->slot, run->slot_dir, err, len)) < 0)
        return -1;
    if (!(run->keeper = slot_keeper(sb, run, net_fd, err, len)))
        return -1;
    if (cgroup_prepare(&sb->cgroups, job->slot, &run->limits, job->cpus, &sb->cg_memo[job->slot], &run->cg,
                       err, len) < 0)
        return -1;
    return fill_request(sb, job, run, filter, err, len);
}

/* Sends BOX_CMD_RUN with the run's fds, in the order box_request states. */
static int start_run(struct run *run, char *err, size_t len)
{
    int fds[3 + CG_V1_COUNT + 1 + MNT_MAX_EXTRA + SANDBOX_MAX_PASS_FDS], n = 0;
    for (int i = 0; i < 3; i++)
        if (run->stdio_fd[i] >= 0)
            fds[n++] = run->stdio_fd[i];
    for (int i = 0; i < CG_V1_COUNT; i++)
        if (run->cg.procs_fd[i] >= 0)
            fds[n++] = run->cg.procs_fd[i];
    if (run->box_fd >= 0)
        fds[n++] = run->box_fd;
    for (size_t i = 0; i < run->extra_count; i++)
        fds[n++] = run->extra_fd[i];
    for (int i = 0; i < run->pass_count; i++)
        fds[n++] = run->pass_fd[i];
    if (sb_send_fds(run->keeper->ctl, BOX_CMD_RUN, fds, n) < 0) {
        sb_errf(err, len, "cannot reach the box's keeper: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- watching --------------------------------------------------------- */

enum kill_reason { KILL_NONE, KILL_CPU, KILL_WALL, KILL_OUTPUT, KILL_CANCEL };

static bool output_exceeded(const struct run *run)
{
    if (!run->limits.output)
        return false;
    for (int i = 1; i <= 2; i++) {
        struct stat st;
        int fd = run->stdio_fd[i];
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            (uint64_t)st.st_size > run->limits.output)
            return true;
    }
    return false;
}

/* Past the wall clock: the time since the start, less the time the program
 * waited for a core while it could run (a crowded host is not the
 * program's doing: issue 42's contest replay judged an accepted Java
 * submission TLE by the wall clock at load 19, with half its CPU time left).
 * Time spent sleeping, blocked on input or stopped still counts - except,
 * in a group of boxes run together (shared_waits), the waits of the
 * others: a process blocked while the peer it waits for waited for a core
 * (the last of 16 CMS Communication processes served in turn was blocked
 * 2 s of its 3 under stress-ng). At most WALL_STRETCH times the limit in
 * all, so a box never holds its slot for long whatever the host does. */
#define WALL_STRETCH 10
static bool past_wall(struct run *run, double started)
{
    const struct sandbox_limits *l = &run->limits;
    double elapsed = sb_now() - started;
    uint64_t waited;
    /* the largest wait seen: a program that has just exited (its report
     * not read yet) no longer shows its threads' waits; a group's box reads
     * from the start: a peer that ends early had waits the others were
     * blocked for */
    if ((elapsed > l->wall_time / 2 || run->shared_waits) && run->cg.version &&
        cgroup_wait_ns(&run->cg, &waited) == 0 &&
        waited > run->waited_ns) {
        if (run->shared_waits)
            atomic_fetch_add(&run->shared_waits->ns, waited - run->waited_ns);
        run->waited_ns = waited;
    }
    if (elapsed <= l->wall_time)
        return false;
    if (elapsed > l->wall_time * WALL_STRETCH)
        return true;
    uint64_t credit = run->shared_waits ? atomic_load(&run->shared_waits->ns) : run->waited_ns;
    return elapsed - credit / 1e9 > l->wall_time;
}

static enum kill_reason over_limit(struct run *run, double started)
{
    const struct sandbox_limits *l = &run->limits;
    uint64_t ns;
    if (l->cpu_time > 0 && run->cg.version && cgroup_cpu_ns(&run->cg, &ns) == 0 &&
        ns / 1e9 > l->cpu_time)
        return KILL_CPU;
    if (l->wall_time > 0 && past_wall(run, started))
        return KILL_WALL;
    if (!run->output_runs_on && output_exceeded(run))
        return KILL_OUTPUT;
    return KILL_NONE;
}

static int poll_timeout_ms(const struct run *run, double started)
{
    const struct sandbox_limits *l = &run->limits;
    if (l->cpu_time > 0 || l->output)
        return TICK_MS;
    if (l->wall_time > 0) {
        double left = l->wall_time - (sb_now() - started);
        return left <= 0 ? TICK_MS : (int)ceil(left * 1000);   /* past it: waits for a core are added */
    }
    return -1;
}

/* Waits for the keeper's report, asking it to kill the run when a limit is
 * passed or the caller cancels; the report still follows. */
static enum kill_reason watch(struct run *run, double started)
{
    struct pollfd p[2] = {{run->keeper->ctl, POLLIN, 0}, {run->cancel_fd, POLLIN, 0}};
    for (;;) {
        int rc = poll(p, run->cancel_fd >= 0 ? 2 : 1, poll_timeout_ms(run, started));
        if (rc > 0 && p[0].revents)
            return KILL_NONE;
        if (rc < 0 && errno != EINTR)
            return KILL_NONE;  /* cannot watch: collect what we can */
        enum kill_reason why = rc > 0 ? KILL_CANCEL : over_limit(run, started);
        if (why != KILL_NONE) {
            char cmd = BOX_CMD_KILL;
            (void)send(run->keeper->ctl, &cmd, 1, MSG_NOSIGNAL);
            return why;
        }
    }
}

/* ---- the verdict ------------------------------------------------------ */

static void judge_exit(const struct run *run, const struct box_report *r, bool oom,
                       struct sandbox_result *res)
{
    int st = r->wait_status;
    const struct sandbox_limits *l = &run->limits;
    if (WIFSIGNALED(st)) {
        res->signal = WTERMSIG(st);
        res->status = SANDBOX_RE;
        snprintf(res->message, sizeof res->message, "killed by signal %d (%s)", res->signal,
                 strsignal(res->signal));
    } else {
        res->exit_code = WEXITSTATUS(st);
        res->status = res->exit_code ? SANDBOX_RE : SANDBOX_OK;
        if (res->exit_code)
            snprintf(res->message, sizeof res->message, "exited with code %d", res->exit_code);
    }
    if (oom || (run->degraded && l->memory && res->memory > l->memory)) {
        res->status = SANDBOX_MLE;
        /* The cgroup counts page cache and kernel memory too, so the RSS of
         * a program killed at the limit may read a little under it. */
        if (res->memory < l->memory)
            res->memory = l->memory;
        snprintf(res->message, sizeof res->message, "memory limit exceeded (%llu bytes)",
                 (unsigned long long)l->memory);
    } else if (res->signal == SIGXFSZ) {
        res->status = SANDBOX_OLE;
        snprintf(res->message, sizeof res->message, "output limit exceeded (%llu bytes)",
                 (unsigned long long)l->output);
    } else if (l->cpu_time > 0 && (res->cpu_time > l->cpu_time || res->signal == SIGXCPU)) {
        res->status = SANDBOX_TLE;
        snprintf(res->message, sizeof res->message, "time limit exceeded (CPU %.3f s > %.3f s)",
                 res->cpu_time, l->cpu_time);
    } else if (output_exceeded(run)) {
        res->status = SANDBOX_OLE;
        snprintf(res->message, sizeof res->message, "output limit exceeded (%llu bytes)",
                 (unsigned long long)l->output);
    }
}

static void judge_kill(const struct run *run, enum kill_reason why, struct sandbox_result *res)
{
    res->signal = SIGKILL;
    switch (why) {
    case KILL_CPU:
        res->status = SANDBOX_TLE;
        snprintf(res->message, sizeof res->message, "time limit exceeded (CPU > %.3f s)",
                 run->limits.cpu_time);
        break;
    case KILL_WALL:
        res->status = SANDBOX_TLE;
        res->tle_wall = true;
        snprintf(res->message, sizeof res->message,
                 "time limit exceeded (wall clock > %.3f s)", run->limits.wall_time);
        break;
    default:
        res->status = SANDBOX_OLE;
        snprintf(res->message, sizeof res->message, "output limit exceeded (%llu bytes)",
                 (unsigned long long)run->limits.output);
        break;
    }
}

/* The keeper's report on the run. A keeper that died or hangs is dropped:
 * its namespaces go with it, and the slot's next run starts a new one. */
static int collect_report(struct sandbox *sb, struct run *run, struct box_report *r)
{
    memset(r, 0, sizeof *r);
    if (keeper_report(run->keeper, r, KEEPER_GRACE_MS) == 0 && r->kind != BOX_READY)
        return 0;
    keeper_stop(run->keeper);
    sb->keeper[run->slot] = run->keeper = NULL;
    return -1;
}

static void conclude(struct sandbox *sb, struct run *run, enum kill_reason why, double started,
                     struct sandbox_result *res)
{
    struct box_report r;
    bool reported = collect_report(sb, run, &r) == 0;
    res->wall_time = sb_now() - started;
    struct cgroup_usage use = {0};
    if (run->cg.version && cgroup_collect(&run->cg, &use) == 0)
        res->cpu_time = use.cpu_ns / 1e9;
    else
        res->cpu_time = r.program_cpu;
    /* Peak RSS, not the cgroup's peak: the cgroup also holds page cache that
     * earlier runs of the slot charged to it, so its figure depends on what
     * ran before (see box.c, "Memory"). */
    res->memory = r.program_maxrss;
    if (!reported) {
        res->status = SANDBOX_IE;
        snprintf(res->message, sizeof res->message, "the box's keeper died without a report");
    } else if (r.kind == BOX_SETUP_FAILED && r.out_of_memory && run->limits.memory) {
        /* The submission's fault, not the sandbox's: its limit is too small
         * for it even to start (a kernel cannot enforce 1k). */
        res->status = SANDBOX_MLE;
        res->memory = res->memory > run->limits.memory ? res->memory : run->limits.memory;
        snprintf(res->message, sizeof res->message,
                 "memory limit exceeded: the program cannot start within %llu bytes",
                 (unsigned long long)run->limits.memory);
    } else if (r.kind == BOX_SETUP_FAILED) {
        res->status = SANDBOX_IE;
        snprintf(res->message, sizeof res->message, "%s", r.message);
    } else if (r.kind == BOX_VIOLATION && seccomp_reserves_space(r.syscall_nr, r.arch)) {
        /* blocks RLIMIT_FSIZE would not see: bounded by refusing them */
        res->status = SANDBOX_OLE;
        res->signal = SIGKILL;
        seccomp_describe(r.syscall_nr, r.arch, res->syscall_name, sizeof res->syscall_name);
        snprintf(res->message, sizeof res->message,
                 "output limit exceeded: %s would reserve disk space beyond the file's size",
                 res->syscall_name);
    } else if (r.kind == BOX_VIOLATION) {
        res->status = SANDBOX_SV;
        seccomp_describe(r.syscall_nr, r.arch, res->syscall_name, sizeof res->syscall_name);
        snprintf(res->message, sizeof res->message, "forbidden system call: %s",
                 res->syscall_name);
    } else if (why == KILL_CANCEL) {
        res->status = SANDBOX_IE;
        snprintf(res->message, sizeof res->message, "cancelled: the caller went away");
    } else if (why != KILL_NONE) {
        judge_kill(run, why, res);
    } else {
        judge_exit(run, &r, use.oom_killed, res);
    }
}

static void release(struct sandbox *sb, struct run *run)
{
    cgroup_release(&run->cg);
    if (run->box_fd >= 0)
        close(run->box_fd);
    for (size_t i = 0; i < run->extra_count; i++)
        close(run->extra_fd[i]);
    if (run->lock_fd >= 0)
        close(run->lock_fd);  /* drops the POSIX lock */
    if (run->slot_held) {
        pthread_mutex_lock(&sb->lock);
        sb->slot_busy[run->slot] = false;
        pthread_mutex_unlock(&sb->lock);
    }
}

int sandbox_run(struct sandbox *sb, const struct sandbox_job *job, struct sandbox_result *res)
{
    struct run *run = calloc(1, sizeof *run);
    memset(res, 0, sizeof *res);
    if (!run) {
        res->status = SANDBOX_IE;
        snprintf(res->message, sizeof res->message, "out of memory");
        return -1;
    }
    run->lock_fd = run->box_fd = -1;
    run->cg.cpu_fd = -1;
    for (int i = 0; i < CG_V1_COUNT; i++)
        run->cg.procs_fd[i] = -1;
    int rc = -1;
    if (prepare(sb, job, run, res->message, sizeof res->message) == 0 &&
        start_run(run, res->message, sizeof res->message) == 0) {
        double started = sb_now();
        enum kill_reason why = watch(run, started);
        conclude(sb, run, why, started, res);
        rc = res->status == SANDBOX_IE ? -1 : 0;
    } else {
        res->status = SANDBOX_IE;
    }
    res->degraded = sb->cgroups.version == 0;
    release(sb, run);
    free(run);
    return rc;
}
