/*
 * sandbox.c - theory of operation.
 *
 * Processes. Three take part in a run:
 *
 *   supervisor   the caller of sandbox_run (the judge-sandbox CLI, or a
 *                thread of the runner). It stays outside the box: it prepares
 *                the slot (cgroup, network namespace, seccomp program, paths),
 *                clones init, then watches CPU time (from the cgroup, every
 *                10 ms), wall time and output size, and kills init when a
 *                limit is passed.
 *   init         pid 1 of the box: cloned with new pid, mount, ipc and uts
 *                namespaces, it joins the slot's network namespace, builds
 *                the box's filesystem, forks the program and reaps. It stays
 *                root but runs nothing untrusted, and it is outside the slot's
 *                cgroup so its setup is not billed to the program. When it
 *                exits the kernel kills every process left in the namespace:
 *                nothing a program forks, setsids or daemonizes outlives the
 *                run.
 *   program      pid 2: joins the cgroup, drops to the slot's uid/gid with no
 *                capabilities, no_new_privs and the seccomp filter, and execs.
 *
 * Channels. The supervisor and init share:
 *   status pipe  init -> supervisor: struct box_report messages (setup
 *                failure, forbidden call, program's wait status). The
 *                program holds it close-on-exec, to report a failed exec.
 *   lifeline     a pipe whose write end only the supervisor holds: when the
 *                supervisor dies, init sees the hang-up and kills the box
 *                (PR_SET_PDEATHSIG covers the same, this closes its races).
 *   pidfd        of init, for a signal-free wait that is safe in a threaded
 *                caller, and for killing without pid reuse races.
 * Init and the program share a socketpair, used once to pass the seccomp
 * listener fd from the program (who installs the filter) to init.
 *
 * Slots. A run names a slot (box id). The slot gives the uid/gid (uid_base +
 * slot), the cgroup (reused, counters reset) and the network namespace
 * (created once, pinned under run_dir). A lock file under run_dir makes a
 * second concurrent user of the same slot fail fast instead of corrupting
 * the first one's measurements.
 *
 * Privileges. Only the supervisor and init are root; the program never is.
 * The box's filesystem is built by init in its own mount namespace: nothing
 * mounted there is visible on the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

#define TICK_MS 10
#define DEFAULT_PROCS 64

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
    pthread_mutex_init(&sb->lock, NULL);
    for (int i = 0; i < SANDBOX_MAX_SLOTS; i++)
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
    for (int i = 0; i < SANDBOX_MAX_SLOTS; i++)
        if (sb->net_fd[i] >= 0)
            close(sb->net_fd[i]);
    caps_free(sb->empty_caps);
    pthread_mutex_destroy(&sb->lock);
    free(sb);
}

const char *sandbox_cgroup_version(const struct sandbox *sb)
{
    return sb->cgroups.version == 2 ? "v2" : sb->cgroups.version == 1 ? "v1" : "none";
}

/* ---- per-run preparation ---------------------------------------------- */

/* Everything one run holds, released in one place. */
struct run {
    struct box_plan plan;
    struct box_cgroup cg;
    char slot_dir[SB_RUN_DIR_MAX + 16];
    int lock_fd;
    int slot;
    bool slot_held;      /* sb->slot_busy[slot] is ours to clear */
    int status_rd, lifeline_wr, pidfd;
    int cancel_fd;
    pid_t init_pid;
    struct sandbox_limits limits;
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

/* Two locks: a flag under sb->lock for threads of this process, and a POSIX
 * record lock on <slot>/lock for other processes. Not flock: a flock belongs
 * to the open file, which a box cloned meanwhile by another thread shares
 * until its init closes it, so a slot would look busy after its run ended.
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
    if (job->slot < 0 || job->slot >= SANDBOX_MAX_SLOTS) {
        sb_errf(err, len, "box id %d out of range 0..%d", job->slot, SANDBOX_MAX_SLOTS - 1);
        return -1;
    }
    if ((*profile = seccomp_profile_index(job->profile)) < 0) {
        sb_errf(err, len, "unknown profile '%s' (known: default, jvm, compile)", job->profile);
        return -1;
    }
    if (job->workdir && job->workdir[0] != '/') {
        sb_errf(err, len, "work directory must be an absolute path: %s", job->workdir);
        return -1;
    }
    return 0;
}

static int prepare(struct sandbox *sb, const struct sandbox_job *job, struct run *run,
                   char *err, size_t len)
{
    int profile;
    if (check_job(job, &profile, err, len) < 0)
        return -1;
    struct box_plan *plan = &run->plan;
    run->limits = job->limits;
    run->cancel_fd = job->cancel_fd;
    effective_limits(&run->limits);
    snprintf(run->slot_dir, sizeof run->slot_dir, "%s/box-%d", sb->run_dir, job->slot);
    if (lock_slot(sb, run, job->slot, err, len) < 0)
        return -1;
    if (!(plan->seccomp = profile_program(sb, profile, err, len)))
        return -1;
    if ((plan->net_fd = slot_netns(sb, job->slot, run->slot_dir, err, len)) < 0)
        return -1;
    char root[SB_ROOT_MAX];
    snprintf(root, sizeof root, "%s/root", run->slot_dir);
    if (mnt_plan_init(&plan->mnt, root, job, err, len) < 0)
        return -1;
    plan->uid = sb->uid_base + (uid_t)job->slot;
    plan->gid = (gid_t)plan->uid;
    if (job->workdir && chown(job->workdir, plan->uid, plan->gid) < 0) {
        sb_errf(err, len, "cannot give %s to the box user: %s", job->workdir, strerror(errno));
        return -1;
    }
    if (cgroup_prepare(&sb->cgroups, job->slot, &run->limits, &run->cg, err, len) < 0)
        return -1;
    for (int i = 0; i < CG_V1_COUNT; i++)
        plan->cgroup_procs_fd[i] = run->cg.procs_fd[i];
    plan->degraded = sb->cgroups.version == 0;
    plan->empty_caps = sb->empty_caps;
    plan->limits = &run->limits;
    plan->argv = job->argv;
    plan->envp = job->envp;
    plan->stdio_fd[0] = job->stdin_fd;
    plan->stdio_fd[1] = job->stdout_fd;
    plan->stdio_fd[2] = job->stderr_fd;
    return 0;
}

static int start_box(struct run *run, char *err, size_t len)
{
    int status[2], lifeline[2];
    if (pipe2(status, O_CLOEXEC) < 0)
        goto fail;
    if (pipe2(lifeline, O_CLOEXEC) < 0) {
        close(status[0]);
        close(status[1]);
        goto fail;
    }
    run->plan.status_fd = status[1];
    run->plan.lifeline_fd = lifeline[0];
    int pidfd = -1;
    long pid = syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS |
                                      CLONE_PIDFD | SIGCHLD, NULL, &pidfd, NULL, 0);
    if (pid == 0)
        box_init_main(&run->plan);
    int saved = errno;
    close(status[1]);
    close(lifeline[0]);
    run->status_rd = status[0];
    run->lifeline_wr = lifeline[1];
    if (pid < 0) {
        errno = saved;
        goto fail;
    }
    run->init_pid = (pid_t)pid;
    run->pidfd = pidfd;
    return 0;
fail:
    sb_errf(err, len, "cannot start the box: %s", strerror(errno));
    return -1;
}

/* ---- watching --------------------------------------------------------- */

enum kill_reason { KILL_NONE, KILL_CPU, KILL_WALL, KILL_OUTPUT, KILL_CANCEL };

static bool output_exceeded(const struct run *run)
{
    if (!run->limits.output)
        return false;
    for (int i = 1; i <= 2; i++) {
        struct stat st;
        int fd = run->plan.stdio_fd[i];
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            (uint64_t)st.st_size >= run->limits.output)
            return true;
    }
    return false;
}

static enum kill_reason over_limit(const struct run *run, double started)
{
    const struct sandbox_limits *l = &run->limits;
    uint64_t ns;
    if (l->cpu_time > 0 && run->cg.version && cgroup_cpu_ns(&run->cg, &ns) == 0 &&
        ns / 1e9 > l->cpu_time)
        return KILL_CPU;
    if (l->wall_time > 0 && sb_now() - started > l->wall_time)
        return KILL_WALL;
    if (output_exceeded(run))
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
        return left <= 0 ? 0 : (int)ceil(left * 1000);
    }
    return -1;
}

static enum kill_reason watch(struct run *run, double started)
{
    struct pollfd p[2] = {{run->pidfd, POLLIN, 0}, {run->cancel_fd, POLLIN, 0}};
    for (;;) {
        int rc = poll(p, run->cancel_fd >= 0 ? 2 : 1, poll_timeout_ms(run, started));
        if (rc > 0 && p[0].revents)
            return KILL_NONE;
        if (rc < 0 && errno != EINTR)
            return KILL_NONE;  /* cannot watch: reap and report what we have */
        enum kill_reason why = rc > 0 ? KILL_CANCEL : over_limit(run, started);
        if (why != KILL_NONE) {
            syscall(SYS_pidfd_send_signal, run->pidfd, SIGKILL, NULL, 0);
            return why;
        }
    }
}

static void reap(struct run *run)
{
    siginfo_t info;
    while (waitid((idtype_t)P_PIDFD, (id_t)run->pidfd, &info, WEXITED | __WALL) < 0 &&
           errno == EINTR)
        ;
}

/* Reads every report init sent; the last word on the program wins. */
static void read_reports(int fd, struct box_report *final, bool *setup_failed)
{
    struct box_report r;
    memset(final, 0, sizeof *final);
    *setup_failed = false;
    while (read(fd, &r, sizeof r) == (ssize_t)sizeof r) {
        if (r.kind == BOX_SETUP_FAILED) {
            *setup_failed = true;
            *final = r;
        } else if (!*setup_failed) {
            *final = r;
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
    if (oom || (run->plan.degraded && l->memory && res->memory > l->memory)) {
        res->status = SANDBOX_MLE;
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

static void conclude(struct run *run, enum kill_reason why, double started,
                     struct sandbox_result *res)
{
    struct box_report r;
    bool setup_failed;
    read_reports(run->status_rd, &r, &setup_failed);
    res->wall_time = sb_now() - started;
    struct cgroup_usage use = {0};
    if (run->cg.version && cgroup_collect(&run->cg, &use) == 0) {
        res->cpu_time = use.cpu_ns / 1e9;
        res->memory = use.peak_bytes;
    } else {
        res->cpu_time = r.program_cpu;
        res->memory = r.program_maxrss;
    }
    if (setup_failed) {
        res->status = SANDBOX_IE;
        snprintf(res->message, sizeof res->message, "%s", r.message);
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
    } else if (r.kind == BOX_EXITED) {
        judge_exit(run, &r, use.oom_killed, res);
    } else {
        res->status = SANDBOX_IE;
        snprintf(res->message, sizeof res->message, "the box's init died without a report");
    }
}

static void release(struct sandbox *sb, struct run *run)
{
    cgroup_release(&run->cg);
    int fds[] = {run->status_rd, run->lifeline_wr, run->pidfd, run->lock_fd};
    for (size_t i = 0; i < sizeof fds / sizeof *fds; i++)
        if (fds[i] >= 0)
            close(fds[i]);  /* closing lock_fd drops the POSIX lock */
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
    run->lock_fd = run->status_rd = run->lifeline_wr = run->pidfd = -1;
    run->cg.cpu_fd = run->cg.peak_fd = -1;
    for (int i = 0; i < CG_V1_COUNT; i++)
        run->cg.procs_fd[i] = -1;
    double started = sb_now();
    int rc = -1;
    if (prepare(sb, job, run, res->message, sizeof res->message) == 0 &&
        start_box(run, res->message, sizeof res->message) == 0) {
        started = sb_now();
        enum kill_reason why = watch(run, started);
        reap(run);
        conclude(run, why, started, res);
        rc = res->status == SANDBOX_IE ? -1 : 0;
    } else {
        res->status = SANDBOX_IE;
    }
    res->degraded = sb->cgroups.version == 0;
    release(sb, run);
    free(run);
    return rc;
}
