/*
 * cgroup1.c - slot cgroups on the v1 hierarchies: memory, pids, cpuacct.
 *
 * Counters are reset in place instead of recreating the cgroup: writing 0 to
 * memory.max_usage_in_bytes and cpuacct.usage. memory.oom_control's oom_kill
 * counter is read before and after, so an OOM kill is told from any other
 * SIGKILL.
 *
 * Page cache stays charged to the cgroup that first read it, so a reused
 * slot cgroup starts a run with the shared libraries and output files of
 * earlier runs charged to it. Dropping them (memory.force_empty) would evict
 * libc from the page cache and cost the next run milliseconds of I/O. That
 * cache is reclaimable, so it never causes an OOM kill, but it makes the
 * cgroup's usage depend on what ran before: the memory a run reports is its
 * processes' peak RSS (box.c), not memory.max_usage_in_bytes.
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

static void fmt_limit(char *buf, size_t len, uint64_t bytes)
{
    if (bytes)
        snprintf(buf, len, "%llu", (unsigned long long)bytes);
    else
        snprintf(buf, len, "-1");
}

/* memsw must stay >= limit at every step, so the order depends on direction. */
static int set_memory(const char *dir, uint64_t bytes)
{
    char val[32], path[PATH_MAX + 64];
    fmt_limit(val, sizeof val, bytes);
    snprintf(path, sizeof path, "%s/memory.memsw.limit_in_bytes", dir);
    bool has_swap = access(path, F_OK) == 0;
    if (put(dir, "memory.limit_in_bytes", val) == 0)
        return has_swap ? put(dir, "memory.memsw.limit_in_bytes", val) : 0;
    if (!has_swap || errno != EINVAL)
        return -1;
    if (put(dir, "memory.memsw.limit_in_bytes", val) < 0)
        return -1;
    return put(dir, "memory.limit_in_bytes", val);
}

/* v1 charges socket buffers to memory.kmem.tcp, and only once that has a
 * limit: without one a box could hold hundreds of MiB of TCP buffers
 * outside its memory limit. The limit is the memory limit (so a box holds
 * at most twice it: memory, and TCP buffers). Kernels without the file
 * have no v1 socket accounting to turn on. */
static int set_tcp_memory(const char *dir, uint64_t bytes)
{
    char val[32];
    fmt_limit(val, sizeof val, bytes);
    if (put(dir, "memory.kmem.tcp.limit_in_bytes", val) < 0 && errno != ENOENT)
        return -1;
    return 0;
}

static int open_procs(const char *dir, int *fd)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    *fd = open(path, O_WRONLY | O_CLOEXEC);
    return *fd < 0 ? -1 : 0;
}

static int prepare_memory(struct box_cgroup *cg, const struct sandbox_limits *lim,
                          const struct cgroup_memo *memo)
{
    const char *dir = cg->dir[CG_V1_MEMORY];
    char path[PATH_MAX + 64];
    if (!memo->made || memo->memory != lim->memory) {
        if (set_memory(dir, lim->memory) < 0) {
            /* EBUSY: more is charged than a tiny limit (1k..64k) allows and
             * the kernel cannot reclaim it: kernel objects of earlier runs
             * stay charged. Nobody runs in the slot now, so a new memory
             * cgroup (which starts at 0; the old one's charges go to the
             * parent) can take the limit, and the program then fails to
             * start: MLE. */
            if (errno != EBUSY || rmdir(dir) < 0 || mkdir(dir, 0755) < 0 ||
                set_memory(dir, lim->memory) < 0)
                return -1;
        }
        if (set_tcp_memory(dir, lim->memory) < 0)
            return -1;
    }
    snprintf(path, sizeof path, "%s/memory.oom_control", dir);
    (void)cgroup_read_key(path, "oom_kill", &cg->oom_base);
    return 0;
}

/* The slot's cpuset cgroup, pinned to cpus, for the program to join: only
 * when pinning is asked and the cpuset hierarchy is ours (cgroup.c). Its
 * memory nodes are the parent's (none: no task may join). */
static int prepare_cpuset(const struct cgroup_ctl *ctl, int slot, const char *cpus,
                          const struct cgroup_memo *memo, struct box_cgroup *cg)
{
    if (!cpus || !ctl->v1_root[CG_V1_CPUSET][0])
        return 0;
    char *dir = cg->dir[CG_V1_CPUSET], mems[256], path[PATH_MAX + 64];
    snprintf(dir, sizeof cg->dir[CG_V1_CPUSET], "%s/%s/box-%d", ctl->v1_root[CG_V1_CPUSET], ctl->parent, slot);
    if (!memo->made || strcmp(memo->cpus, cpus)) {
        snprintf(path, sizeof path, "%s/%s/cpuset.mems", ctl->v1_root[CG_V1_CPUSET], ctl->parent);
        if ((mkdir(dir, 0755) < 0 && errno != EEXIST) || sb_read_file(path, mems, sizeof mems) < 0 ||
            put(dir, "cpuset.mems", mems) < 0 || put(dir, "cpuset.cpus", cpus) < 0)
            return -1;
    }
    return open_procs(dir, &cg->procs_fd[CG_V1_CPUSET]);
}

/* The directories and the leftover check only when the memo does not
 * vouch for them; the limits only when they change. */
int cgroup1_prepare(const struct cgroup_ctl *ctl, int slot,
                    const struct sandbox_limits *lim, const char *cpus, struct cgroup_memo *memo,
                    struct box_cgroup *cg, char *err, size_t len)
{
    for (int i = 0; i < CG_V1_REQUIRED; i++) {
        snprintf(cg->dir[i], sizeof cg->dir[i], "%s/%s/box-%d", ctl->v1_root[i],
                 ctl->parent, slot);
        if (!memo->made && mkdir(cg->dir[i], 0755) < 0 && errno != EEXIST)
            goto fail;
    }
    if (!memo->made && cgroup_kill_procs(cg->dir[CG_V1_PIDS]) < 0 && errno != ENOENT)
        goto fail;
    if (prepare_memory(cg, lim, memo) < 0)
        goto fail;
    char pids[32];
    if (lim->procs > 0)
        snprintf(pids, sizeof pids, "%d", lim->procs);
    else
        snprintf(pids, sizeof pids, "max");
    if ((!memo->made || memo->procs != lim->procs) && put(cg->dir[CG_V1_PIDS], "pids.max", pids) < 0)
        goto fail;
    if (put(cg->dir[CG_V1_CPUACCT], "cpuacct.usage", "0") < 0)
        goto fail;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/cpuacct.usage", cg->dir[CG_V1_CPUACCT]);
    if ((cg->cpu_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        goto fail;
    for (int i = 0; i < CG_V1_REQUIRED; i++)
        if (open_procs(cg->dir[i], &cg->procs_fd[i]) < 0)
            goto fail;
    if (prepare_cpuset(ctl, slot, cpus, memo, cg) < 0)
        goto fail;
    *memo = (struct cgroup_memo){.made = true, .memory = lim->memory, .procs = lim->procs};
    snprintf(memo->cpus, sizeof memo->cpus, "%s", cpus && ctl->v1_root[CG_V1_CPUSET][0] ? cpus : "");
    return 0;
fail:
    memo->made = false;
    sb_errf(err, len, "cgroup v1 setup of box %d failed: %s", slot, strerror(errno));
    cgroup_release(cg);
    return -1;
}

int cgroup1_collect(struct box_cgroup *cg, struct cgroup_usage *u)
{
    char path[PATH_MAX + 64];
    uint64_t oom = 0;
    if (sb_pread_u64(cg->cpu_fd, &u->cpu_ns) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/memory.oom_control", cg->dir[CG_V1_MEMORY]);
    if (cgroup_read_key(path, "oom_kill", &oom) == 0)
        u->oom_killed = oom > cg->oom_base;
    return 0;
}
