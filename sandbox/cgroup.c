/*
 * cgroup.c - find the cgroup hierarchy and hand each run a slot cgroup.
 *
 * A box is measured and limited by a cgroup per slot, created on first use
 * under a configurable parent and reused by every later run of that slot:
 * creating and removing one costs ~0.25 ms, resetting its counters much less.
 *
 * Version 2 (production hosts) is one unified tree; version 1 (this kernel's
 * hybrid layout) needs three hierarchies: memory, pids and cpuacct. Detection
 * happens at run time: v2 when the unified tree offers the memory and pids
 * controllers, else v1 when those three hierarchies are mounted, else none,
 * and then runs are "degraded" (rlimits only) and say so in their results.
 *
 * The program joins the slot cgroup itself, by writing 0 to cgroup.procs
 * files the supervisor opened, just before exec: the box's keeper and
 * its setup work stay outside, so neither counts towards the program's CPU
 * time or memory.
 *
 * Moving a task into a cgroup takes a global per-cpu rwsem for writing,
 * which waits for an RCU grace period unless the kernel is told to favour
 * dynamic cgroup changes: measured here, 7.5 ms per move (median) against
 * 0.06 ms with the cgroup2 mount option favordynmods. A judge moves a task
 * per run, so sandbox_open turns the option on (cgroup_favor_dynmods) when a
 * cgroup2 mount exists; the price is slightly slower fork/exit host-wide.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static const char *const v1_controllers[CG_V1_COUNT] = {"memory", "pids", "cpuacct", "cpuset"};

static bool has_option(const char *opts, const char *want)
{
    size_t n = strlen(want);
    for (const char *p = opts; (p = strstr(p, want)); p += n)
        if ((p == opts || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return true;
    return false;
}

/* Reads /proc/self/mounts for the unified mount and the v1 hierarchies. */
static void find_mounts(struct cgroup_ctl *ctl)
{
    FILE *f = fopen("/proc/self/mounts", "re");
    if (!f)
        return;
    char dev[256], dir[SB_ROOT_MAX], type[64], opts[1024];
    while (fscanf(f, "%255s %255s %63s %1023s %*d %*d", dev, dir, type, opts) == 4) {
        if (!strcmp(type, "cgroup2") && !ctl->v2_root[0])
            snprintf(ctl->v2_root, sizeof ctl->v2_root, "%s", dir);
        if (strcmp(type, "cgroup"))
            continue;
        for (int i = 0; i < CG_V1_COUNT; i++)
            if (has_option(opts, v1_controllers[i]) && !ctl->v1_root[i][0])
                snprintf(ctl->v1_root[i], sizeof ctl->v1_root[i], "%s", dir);
    }
    fclose(f);
}

static bool has_word(const char *list, const char *want)
{
    size_t n = strlen(want);
    for (const char *p = list; (p = strstr(p, want)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
            return true;
    return false;
}

static bool v2_usable(const struct cgroup_ctl *ctl)
{
    char path[PATH_MAX + 32], buf[512];
    if (!ctl->v2_root[0])
        return false;
    snprintf(path, sizeof path, "%s/cgroup.controllers", ctl->v2_root);
    if (sb_read_file(path, buf, sizeof buf) < 0)
        return false;
    return has_word(buf, "memory") && has_word(buf, "pids");
}

static bool v1_usable(const struct cgroup_ctl *ctl)
{
    for (int i = 0; i < CG_V1_REQUIRED; i++)
        if (!ctl->v1_root[i][0])
            return false;
    return true;
}

/* v2: our parent must pass memory, pids, cpu and cpuset down to the slots. */
static void v2_enable_controllers(const char *dir)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", dir);
    static const char *const wanted[] = {"+memory", "+pids", "+cpu", "+cpuset"};
    for (size_t i = 0; i < sizeof wanted / sizeof *wanted; i++)
        (void)sb_write_file(path, wanted[i]);  /* cpu, cpuset may be missing: fine */
}

/* v1 cpuset: a new cgroup starts with no CPUs and no memory nodes, and no
 * task may join it until both are set; our parent takes the root's. Without
 * it (not mounted, not writable) boxes are pinned by affinity only. */
static void v1_cpuset_parent(struct cgroup_ctl *ctl)
{
    char path[SB_ROOT_MAX * 2 + 2], val[256];
    char *root = ctl->v1_root[CG_V1_CPUSET];
    snprintf(path, sizeof path, "%s/%s", root, ctl->parent);
    bool ok = root[0] && sb_mkdir_p(path, 0755) == 0;
    static const char *const files[] = {"cpuset.cpus", "cpuset.mems"};
    for (size_t i = 0; ok && i < 2; i++) {
        char from[PATH_MAX], to[PATH_MAX + SB_ROOT_MAX];
        snprintf(from, sizeof from, "%s/%s", root, files[i]);
        snprintf(to, sizeof to, "%s/%s", path, files[i]);
        ok = sb_read_file(to, val, sizeof val) == 0 && (val[0] != '\0' && val[0] != '\n' ? true
             : sb_read_file(from, val, sizeof val) == 0 && sb_write_file(to, val) == 0);
    }
    if (!ok)
        root[0] = '\0';
}

static int make_parents(struct cgroup_ctl *ctl, char *err, size_t len)
{
    char path[SB_ROOT_MAX * 2 + 2];
    if (ctl->version == 2) {
        v2_enable_controllers(ctl->v2_root);
        snprintf(path, sizeof path, "%s/%s", ctl->v2_root, ctl->parent);
        if (sb_mkdir_p(path, 0755) < 0) {
            sb_errf(err, len, "cannot create cgroup %s: %s", path, strerror(errno));
            return -1;
        }
        v2_enable_controllers(path);
        return 0;
    }
    for (int i = 0; i < CG_V1_REQUIRED; i++) {
        snprintf(path, sizeof path, "%s/%s", ctl->v1_root[i], ctl->parent);
        if (sb_mkdir_p(path, 0755) < 0) {
            sb_errf(err, len, "cannot create cgroup %s: %s", path, strerror(errno));
            return -1;
        }
    }
    v1_cpuset_parent(ctl);
    return 0;
}

int cgroup_detect(struct cgroup_ctl *ctl, enum sandbox_cgroup_mode mode,
                  const char *root, const char *parent, char *err, size_t len)
{
    memset(ctl, 0, sizeof *ctl);
    if (!parent)
        parent = "judge-sandbox";
    if (strlen(parent) >= sizeof ctl->parent - 1 || (root && strlen(root) >= sizeof ctl->v2_root - 16)) {
        sb_errf(err, len, "cgroup root or parent path too long");
        return -1;
    }
    snprintf(ctl->parent, sizeof ctl->parent, "%s", parent);
    if (mode == SANDBOX_CGROUP_NONE)
        return 0;
    if (root) {
        snprintf(ctl->v2_root, sizeof ctl->v2_root, "%s", root);
        for (int i = 0; i < CG_V1_COUNT; i++)
            snprintf(ctl->v1_root[i], sizeof ctl->v1_root[i], "%s/%s", root,
                     v1_controllers[i]);
    } else {
        find_mounts(ctl);
    }
    if (mode == SANDBOX_CGROUP_V2 || (mode == SANDBOX_CGROUP_AUTO && v2_usable(ctl)))
        ctl->version = 2;
    else if (mode == SANDBOX_CGROUP_V1 || (mode == SANDBOX_CGROUP_AUTO && v1_usable(ctl)))
        ctl->version = 1;
    if (!ctl->version)
        return 0;  /* AUTO and nothing usable: degraded */
    if (make_parents(ctl, err, len) < 0) {
        if (mode != SANDBOX_CGROUP_AUTO)
            return -1;
        ctl->version = 0;  /* not writable here (container without delegation) */
    }
    return 0;
}

int cgroup_prepare(const struct cgroup_ctl *ctl, int slot,
                   const struct sandbox_limits *lim, const char *cpus, struct cgroup_memo *memo,
                   struct box_cgroup *cg, char *err, size_t len)
{
    memset(cg, 0, sizeof *cg);
    cg->cpu_fd = -1;
    for (int i = 0; i < CG_V1_COUNT; i++)
        cg->procs_fd[i] = -1;
    cg->version = ctl->version;
    if (ctl->version == 1)
        return cgroup1_prepare(ctl, slot, lim, cpus, memo, cg, err, len);
    if (ctl->version == 2)
        return cgroup2_prepare(ctl, slot, lim, cpus, memo, cg, err, len);
    return 0;
}

int cgroup_cpu_ns(const struct box_cgroup *cg, uint64_t *ns)
{
    if (cg->version == 1)
        return sb_pread_u64(cg->cpu_fd, ns);
    if (cg->version == 2) {
        char buf[1024];
        ssize_t r = pread(cg->cpu_fd, buf, sizeof buf - 1, 0);
        if (r < 0)
            return -1;
        buf[r] = '\0';
        const char *p = strstr(buf, "usage_usec ");
        if (!p)
            return -1;
        uint64_t usec = strtoull(p + 11, NULL, 10);
        *ns = usec > cg->cpu_base_ns / 1000 ? usec * 1000 - cg->cpu_base_ns : 0;
        return 0;
    }
    errno = ENOTSUP;
    return -1;
}

int cgroup_collect(struct box_cgroup *cg, struct cgroup_usage *u)
{
    memset(u, 0, sizeof *u);
    if (cg->version == 1)
        return cgroup1_collect(cg, u);
    if (cg->version == 2)
        return cgroup2_collect(cg, u);
    return 0;
}

void cgroup_release(struct box_cgroup *cg)
{
    for (int i = 0; i < CG_V1_COUNT; i++)
        if (cg->procs_fd[i] >= 0)
            close(cg->procs_fd[i]);
    if (cg->cpu_fd >= 0)
        close(cg->cpu_fd);
    for (int i = 0; i < CG_V1_COUNT; i++)
        cg->procs_fd[i] = -1;
    cg->cpu_fd = -1;
}

/* A task's time runnable but waiting for a core: the second field of
 * /proc/TID/schedstat (run_delay, ns; the kernel's sched_info). */
static uint64_t task_run_delay(long tid)
{
    char path[64], buf[128];
    snprintf(path, sizeof path, "/proc/%ld/schedstat", tid);
    unsigned long long run, delay;
    if (sb_read_file(path, buf, sizeof buf) < 0 || sscanf(buf, "%llu %llu", &run, &delay) != 2)
        return 0;
    return delay;
}

int cgroup_wait_ns(const struct box_cgroup *cg, uint64_t *ns)
{
    char path[PATH_MAX + 32], buf[16384];
    *ns = 0;
    if (cg->version == 1)   /* v1's "tasks" lists threads; v2's "cgroup.threads" */
        snprintf(path, sizeof path, "%s/tasks", cg->dir[CG_V1_CPUACCT]);
    else if (cg->version == 2)
        snprintf(path, sizeof path, "%s/cgroup.threads", cg->dir[0]);
    else
        return errno = ENOTSUP, -1;
    if (sb_read_file(path, buf, sizeof buf) < 0)
        return -1;
    for (char *p = buf, *end; *p; p = end + (*end == '\n')) {
        long tid = strtol(p, &end, 10);
        if (end == p)
            break;
        uint64_t d = tid > 0 ? task_run_delay(tid) : 0;
        if (d > *ns)
            *ns = d;
    }
    return 0;
}

/* Leftovers only exist when an earlier supervisor died mid-run before its
 * box's keeper could take everything down with it. */
int cgroup_kill_procs(const char *dir)
{
    char path[PATH_MAX + 32], buf[4096];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    for (int round = 0; round < 5000; round++) {
        if (sb_read_file(path, buf, sizeof buf) < 0)
            return -1;
        if (!buf[0])
            return 0;
        for (char *p = buf; *p;) {
            char *end;
            long pid = strtol(p, &end, 10);
            if (end == p)
                break;
            if (pid > 0)
                kill((pid_t)pid, SIGKILL);
            p = end + (*end == '\n');
        }
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    errno = EBUSY;
    return -1;
}

/* Used by both halves: "key value" lines such as memory.events. */
int cgroup_read_key(const char *path, const char *key, uint64_t *out)
{
    char buf[2048];
    if (sb_read_file(path, buf, sizeof buf) < 0)
        return -1;
    size_t n = strlen(key);
    for (char *line = buf; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (!strncmp(line, key, n) && line[n] == ' ') {
            *out = strtoull(line + n + 1, NULL, 10);
            return 0;
        }
    }
    *out = 0;
    errno = ENOENT;
    return -1;
}

static bool is_vfs_option(const char *opt)
{
    static const char *const vfs[] = {"rw", "ro", "nosuid", "nodev", "noexec", "relatime",
                                      "noatime", "strictatime", "nodiratime", "sync",
                                      "dirsync", "lazytime", "seclabel", "mand"};
    for (size_t i = 0; i < sizeof vfs / sizeof *vfs; i++)
        if (!strcmp(opt, vfs[i]))
            return true;
    return false;
}

static bool is_cgroup2_flag(const char *opt)
{
    static const char *const flags[] = {"nsdelegate", "favordynmods", "memory_localevents",
                                        "memory_recursiveprot", "memory_hugetlb_accounting",
                                        "pids_localevents"};
    for (size_t i = 0; i < sizeof flags / sizeof *flags; i++)
        if (!strcmp(opt, flags[i]))
            return true;
    return false;
}

/* Re-applies every flag the superblock has, plus favordynmods, through
 * fspick: a reconfigure clears cgroup2 flags it is not given, and fspick
 * leaves per-mount attributes (nosuid, ...) alone. Options we do not know
 * mean we cannot reproduce the current state: then nothing is changed. */
static int reconfigure_favoring(const char *dir, const char *opts, char *note, size_t len)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", opts);
    for (char *save, *o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save))
        if (!is_vfs_option(o) && !is_cgroup2_flag(o)) {
            sb_errf(note, len, "%s has option %s: favordynmods left off", dir, o);
            return -1;
        }
    int fd = (int)syscall(SYS_fspick, AT_FDCWD, dir, FSPICK_CLOEXEC);
    if (fd < 0) {
        sb_errf(note, len, "fspick %s: %s", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    snprintf(copy, sizeof copy, "%s", opts);
    for (char *save, *o = strtok_r(copy, ",", &save); o && !rc; o = strtok_r(NULL, ",", &save))
        if (is_cgroup2_flag(o))
            rc = (int)syscall(SYS_fsconfig, fd, FSCONFIG_SET_FLAG, o, NULL, 0);
    if (!rc)
        rc = (int)syscall(SYS_fsconfig, fd, FSCONFIG_SET_FLAG, "favordynmods", NULL, 0);
    if (!rc)
        rc = (int)syscall(SYS_fsconfig, fd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0);
    if (rc)
        sb_errf(note, len, "cannot set favordynmods on %s: %s", dir, strerror(errno));
    close(fd);
    return rc ? -1 : 0;
}

int cgroup_favor_dynmods(char *note, size_t len)
{
    FILE *f = fopen("/proc/self/mounts", "re");
    if (!f) {
        sb_errf(note, len, "cannot read /proc/self/mounts: %s", strerror(errno));
        return -1;
    }
    char dev[256], dir[SB_ROOT_MAX], type[64], opts[1024];
    int rc = 1;  /* no cgroup2 mount: nothing to do */
    while (rc == 1 && fscanf(f, "%255s %255s %63s %1023s %*d %*d", dev, dir, type, opts) == 4) {
        if (strcmp(type, "cgroup2"))
            continue;
        char padded[1100];
        snprintf(padded, sizeof padded, ",%s,", opts);
        rc = strstr(padded, ",favordynmods,") ? 0 : reconfigure_favoring(dir, opts, note, len);
    }
    fclose(f);
    return rc == 1 ? 0 : rc;
}
