/*
 * cgroup2.c - slot cgroups on the unified (v2) hierarchy.
 *
 * memory.max limits resident memory and memory.swap.max = 0 keeps it from
 * spilling into swap; memory.oom.group makes an OOM kill take the whole box.
 * cpu.stat's usage_usec and memory.events' oom_kill are read before and after
 * the run, so their deltas belong to it. memory.peak is not used: as in v1,
 * the cgroup holds page cache of earlier runs, so the memory a run reports is
 * its processes' peak RSS (box.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static int put(const char *dir, const char *file, const char *value)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return sb_write_file(path, value);
}

static int open_in(const char *dir, const char *file, int flags)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return open(path, flags | O_CLOEXEC);
}

static int set_limits(const char *dir, const struct sandbox_limits *lim)
{
    char val[32];
    if (lim->memory)
        snprintf(val, sizeof val, "%llu", (unsigned long long)lim->memory);
    else
        snprintf(val, sizeof val, "max");
    if (put(dir, "memory.max", val) < 0)
        return -1;
    if (put(dir, "memory.swap.max", "0") < 0 && errno != ENOENT)
        return -1;  /* ENOENT: the kernel does no swap accounting */
    (void)put(dir, "memory.oom.group", "1");
    if (lim->procs > 0)
        snprintf(val, sizeof val, "%d", lim->procs);
    else
        snprintf(val, sizeof val, "max");
    return put(dir, "pids.max", val);
}

static int read_base(struct box_cgroup *cg)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/memory.events", cg->dir[0]);
    (void)cgroup_read_key(path, "oom_kill", &cg->oom_base);
    cg->cpu_fd = open_in(cg->dir[0], "cpu.stat", O_RDONLY);
    if (cg->cpu_fd < 0)
        return -1;
    cg->cpu_base_ns = 0;
    uint64_t ns;
    if (cgroup_cpu_ns(cg, &ns) < 0)
        return -1;
    cg->cpu_base_ns = ns;
    return 0;
}

/* The directory and the leftover kill only when the memo does not vouch
 * for them; the limits only when they change. */
/* The slot's cpuset.cpus: cpus, or empty (the parent's: a write of no
 * bytes reaches no handler, a newline does) when no longer pinned. Without
 * the cpuset controller (no such file) the program's affinity pins it
 * alone. */
static int set_cpus(const char *dir, const char *cpus, const struct cgroup_memo *memo)
{
    if (memo->made && !strcmp(memo->cpus, cpus ? cpus : ""))
        return 0;
    return put(dir, "cpuset.cpus", cpus ? cpus : "\n") < 0 && errno != ENOENT ? -1 : 0;
}

int cgroup2_prepare(const struct cgroup_ctl *ctl, int slot,
                    const struct sandbox_limits *lim, const char *cpus, struct cgroup_memo *memo,
                    struct box_cgroup *cg, char *err, size_t len)
{
    snprintf(cg->dir[0], sizeof cg->dir[0], "%s/%s/box-%d", ctl->v2_root, ctl->parent, slot);
    if (!memo->made) {
        if (mkdir(cg->dir[0], 0755) < 0 && errno != EEXIST)
            goto fail;
        if (put(cg->dir[0], "cgroup.kill", "1") < 0 && cgroup_kill_procs(cg->dir[0]) < 0)
            goto fail;
    }
    if ((!memo->made || memo->memory != lim->memory || memo->procs != lim->procs) &&
        set_limits(cg->dir[0], lim) < 0)
        goto fail;
    if (set_cpus(cg->dir[0], cpus, memo) < 0)
        goto fail;
    if (read_base(cg) < 0)
        goto fail;
    if ((cg->procs_fd[0] = open_in(cg->dir[0], "cgroup.procs", O_WRONLY)) < 0)
        goto fail;
    *memo = (struct cgroup_memo){.made = true, .memory = lim->memory, .procs = lim->procs};
    snprintf(memo->cpus, sizeof memo->cpus, "%s", cpus ? cpus : "");
    return 0;
fail:
    memo->made = false;
    sb_errf(err, len, "cgroup v2 setup of %s failed: %s", cg->dir[0], strerror(errno));
    cgroup_release(cg);
    return -1;
}

int cgroup2_collect(struct box_cgroup *cg, struct cgroup_usage *u)
{
    char path[PATH_MAX + 64];
    uint64_t oom = 0;
    if (cgroup_cpu_ns(cg, &u->cpu_ns) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/memory.events", cg->dir[0]);
    if (cgroup_read_key(path, "oom_kill", &oom) == 0)
        u->oom_killed = oom > cg->oom_base;
    return 0;
}
