/* internal.h - what the sandbox modules share; never installed or included
 * from outside sandbox/. */
#ifndef JUDGED_SANDBOX_INTERNAL_H
#define JUDGED_SANDBOX_INTERNAL_H

#include <limits.h>
#include <linux/filter.h>
#include <pthread.h>
#include <stdarg.h>

#include "sandbox.h"

#define SB_ERR_MAX 512
#define SB_RUN_DIR_MAX 200   /* keeps every derived path well under PATH_MAX */
#define SB_ROOT_MAX 256

/* ---- util.c ---------------------------------------------------------- */
/* All return 0 / -1 with errno set; they never print. */
int sb_write_file(const char *path, const char *text);
int sb_read_file(const char *path, char *buf, size_t len);
int sb_read_u64(const char *path, uint64_t *out);
int sb_pread_u64(int fd, uint64_t *out);
int sb_mkdir_p(const char *path, mode_t mode);
void sb_errf(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
double sb_now(void);  /* CLOCK_MONOTONIC seconds */

/* ---- cgroup.c / cgroup1.c / cgroup2.c -------------------------------- */
enum { CG_V1_MEMORY, CG_V1_PIDS, CG_V1_CPUACCT, CG_V1_COUNT };

struct cgroup_ctl {
    int version;                       /* 0 none, 1, 2 */
    char v1_root[CG_V1_COUNT][SB_ROOT_MAX];  /* hierarchy mount points */
    char v2_root[SB_ROOT_MAX];         /* unified mount point */
    char parent[SB_ROOT_MAX];          /* our subtree, relative */
};

/* One slot's cgroup for the duration of one run. */
struct box_cgroup {
    int version;
    char dir[CG_V1_COUNT][PATH_MAX];   /* v2 uses dir[0] only */
    int procs_fd[CG_V1_COUNT];         /* cgroup.procs, -1 if unused */
    int cpu_fd;                        /* cpuacct.usage or cpu.stat */
    int peak_fd;                       /* v2 memory.peak (fd-local reset) */
    uint64_t cpu_base_ns;              /* v2: usage at start */
    uint64_t oom_base;                 /* oom kills before the run */
    uint64_t memory_base;              /* charged at the start (page cache) */
};

struct cgroup_usage {
    uint64_t cpu_ns;
    uint64_t peak_bytes;
    bool oom_killed;
};

int cgroup_detect(struct cgroup_ctl *ctl, enum sandbox_cgroup_mode mode,
                  const char *root, const char *parent, char *err, size_t len);
int cgroup_prepare(const struct cgroup_ctl *ctl, int slot,
                   const struct sandbox_limits *lim, struct box_cgroup *cg,
                   char *err, size_t len);
int cgroup_cpu_ns(const struct box_cgroup *cg, uint64_t *ns);
int cgroup_collect(struct box_cgroup *cg, struct cgroup_usage *u);
void cgroup_release(struct box_cgroup *cg);

/* Version-specific halves, chosen by cgroup.c. */
int cgroup1_prepare(const struct cgroup_ctl *ctl, int slot,
                    const struct sandbox_limits *lim, struct box_cgroup *cg,
                    char *err, size_t len);
int cgroup1_collect(struct box_cgroup *cg, struct cgroup_usage *u);
int cgroup2_prepare(const struct cgroup_ctl *ctl, int slot,
                    const struct sandbox_limits *lim, struct box_cgroup *cg,
                    char *err, size_t len);
int cgroup2_collect(struct box_cgroup *cg, struct cgroup_usage *u);
int cgroup_kill_procs(const char *dir);
int cgroup_favor_dynmods(char *note, size_t len);  /* 0 done or not needed */  /* SIGKILL leftovers, wait empty */
int cgroup_read_key(const char *path, const char *key, uint64_t *out);

/* ---- net.c ----------------------------------------------------------- */
/* Opens (creating on first use) the slot's network namespace, which holds
 * nothing but a loopback interface that is up. A namespace pinned at
 * <slot_dir>/net is reused; pin: pin a new one there for later processes. */
int net_slot_open(const char *slot_dir, bool pin, char *err, size_t len);

/* ---- seccomp.c ------------------------------------------------------- */
struct seccomp_prog {
    struct sock_fprog fprog;
};
int seccomp_profile_index(const char *name);   /* -1 if unknown */
int seccomp_build(int profile, struct seccomp_prog *out, char *err, size_t len);
void seccomp_prog_free(struct seccomp_prog *p);
/* Installs prog with a notification listener; returns the listener fd. */
int seccomp_install(const struct seccomp_prog *p);
void seccomp_describe(int nr, uint32_t arch, char *name, size_t len);

/* ---- caps.c ---------------------------------------------------------- */
int caps_drop_bounding(void);   /* needs CAP_SETPCAP: call while root */
void *caps_empty(void);         /* a cap_t with every set empty */
void caps_free(void *caps);
int caps_clear_all(void *empty); /* effective, permitted, inheritable, ambient */

/* ---- mnt.c ----------------------------------------------------------- */
#define MNT_MAX_EXTRA 32
/* Everything the box's filesystem needs, computed before clone so the child
 * needs no allocation. */
struct mnt_plan {
    char root[SB_ROOT_MAX];       /* mount point of the new root tmpfs */
    char workdir[PATH_MAX];       /* empty: a private tmpfs at /box */
    uint64_t tmp_size;
    uint64_t box_size;
    size_t extra_count;
    struct {
        char host[PATH_MAX];
        char inside[PATH_MAX];
        bool writable, is_dir;
    } extra[MNT_MAX_EXTRA];
};
int mnt_plan_init(struct mnt_plan *plan, const char *root,
                  const struct sandbox_job *job, char *err, size_t len);
/* Runs in the box's init (new mount + pid namespace): builds the root and
 * pivots into it. On failure fills err and returns -1. */
int mnt_enter_root(const struct mnt_plan *plan, char *err, size_t len);

/* ---- box.c: the processes inside ------------------------------------- */
enum box_report_kind { BOX_EXITED = 1, BOX_SETUP_FAILED, BOX_VIOLATION };

/* Messages from the box's init to the supervisor over the status pipe. */
struct box_report {
    int kind;
    int wait_status;      /* BOX_EXITED */
    int syscall_nr;       /* BOX_VIOLATION */
    uint32_t arch;
    double program_cpu;   /* rusage of reaped processes (degraded mode) */
    uint64_t program_maxrss;
    char message[400];    /* BOX_SETUP_FAILED */
};

/* Everything the box needs, prepared by the supervisor before clone. */
struct box_plan {
    struct mnt_plan mnt;
    int net_fd;
    int status_fd;         /* write end of the status pipe */
    int lifeline_fd;       /* read end; hangs up when the supervisor dies */
    int stdio_fd[3];
    int cgroup_procs_fd[CG_V1_COUNT];
    const struct seccomp_prog *seccomp;
    void *empty_caps;
    uid_t uid;
    gid_t gid;
    bool degraded;
    const struct sandbox_limits *limits;
    const char *const *argv;
    const char *const *envp;
    char exec_path[PATH_MAX];   /* filled inside: argv[0] resolved */
};

/* Entry point of the cloned child (pid 1 of the box). Never returns. */
__attribute__((noreturn)) void box_init_main(struct box_plan *plan);

/* ---- the context ----------------------------------------------------- */
#define SB_PROFILE_COUNT 3

struct sandbox {
    char run_dir[SB_RUN_DIR_MAX + 1];
    uid_t uid_base;
    bool pin_netns;
    struct cgroup_ctl cgroups;
    pthread_mutex_t lock;  /* guards the caches below */
    bool filter_ready[SB_PROFILE_COUNT];
    struct seccomp_prog filter[SB_PROFILE_COUNT];
    int net_fd[SANDBOX_MAX_SLOTS];
    bool slot_busy[SANDBOX_MAX_SLOTS];  /* a run of this process holds it */
    void *empty_caps;
};

#endif
