/* internal.h - what the sandbox modules share; never installed or included
 * from outside sandbox/. */
#ifndef JUDGED_SANDBOX_INTERNAL_H
#define JUDGED_SANDBOX_INTERNAL_H

#include <limits.h>
#include <linux/filter.h>
#include <pthread.h>
#include <sched.h>
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

/* A new process (no CLONE_VM: a copy of this one, without fork handlers)
 * that runs fn(arg) and _exits with what it returns; flags as clone(2)'s,
 * plus SIGCHLD. With CLONE_PIDFD the pidfd goes to *pidfd. Made so that the
 * sanitizers stay sound in the copy (util.c says how). The pid, or -1 with
 * errno set. */
pid_t sb_clone(int (*fn)(void *), void *arg, int flags, int *pidfd);
/* Closes every fd but a and b (-1: none): for an sb_clone child, which
 * otherwise keeps whatever its creator's other threads had open (their
 * boxes' control sockets, slot locks) for as long as it lives. */
void sb_close_all_but(int a, int b);

/* One byte with fds attached (SCM_RIGHTS), as the supervisor, the keeper and
 * the program pass them; no allocation, so clones may call them. recv takes
 * at most max fds (close-on-exec; extra ones are closed) and returns 1, 0 on
 * hang-up, -1 on error; flags are recvmsg's (MSG_DONTWAIT). */
#define SB_MAX_PASS_FDS 96
int sb_send_fds(int sock, char byte, const int *fds, int n);
/* A CPU list ("0-1,4") into out (common_parse_cpus): the count, -1 if bad. */
#define SB_MAX_CPUS 1024
int sb_parse_cpus(const char *s, int *out, int max);
int sb_recv_fds(int sock, char *byte, int *fds, int max, int *nfds, int flags);

/* ---- cgroup.c / cgroup1.c / cgroup2.c -------------------------------- */
enum { CG_V1_MEMORY, CG_V1_PIDS, CG_V1_CPUACCT, CG_V1_CPUSET, CG_V1_COUNT };
/* v1 needs the first three; cpuset only pins (sandbox_job.cpus), and the
 * program's affinity pins where it is missing */
#define CG_V1_REQUIRED 3

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
    uint64_t cpu_base_ns;              /* v2: usage at start */
    uint64_t oom_base;                 /* oom kills before the run */
};

struct cgroup_usage {
    uint64_t cpu_ns;
    bool oom_killed;
};

int cgroup_detect(struct cgroup_ctl *ctl, enum sandbox_cgroup_mode mode,
                  const char *root, const char *parent, char *err, size_t len);
/* What a slot's cgroup is known to hold already, so that a run writes only
 * what changed. Valid while no other process used the slot (lock_slot). */
struct cgroup_memo {
    bool made;          /* it exists, has no leftovers, its fixed settings set */
    uint64_t memory;    /* the memory limit last written */
    int procs;          /* the pids limit last written */
    char cpus[64];      /* the cpuset last written ("": none) */
};

int cgroup_prepare(const struct cgroup_ctl *ctl, int slot,
                   const struct sandbox_limits *lim, const char *cpus, struct cgroup_memo *memo,
                   struct box_cgroup *cg, char *err, size_t len);
int cgroup_cpu_ns(const struct box_cgroup *cg, uint64_t *ns);
int cgroup_collect(struct box_cgroup *cg, struct cgroup_usage *u);
/* How long the box's program waited for a core while runnable (the largest
 * run_delay among the cgroup's threads: threads waiting at once are one
 * wait, not several), so a crowded host does not spend its wall clock. */
int cgroup_wait_ns(const struct box_cgroup *cg, uint64_t *ns);
void cgroup_release(struct box_cgroup *cg);

/* Version-specific halves, chosen by cgroup.c. */
int cgroup1_prepare(const struct cgroup_ctl *ctl, int slot,
                    const struct sandbox_limits *lim, const char *cpus, struct cgroup_memo *memo,
                    struct box_cgroup *cg, char *err, size_t len);
int cgroup1_collect(struct box_cgroup *cg, struct cgroup_usage *u);
int cgroup2_prepare(const struct cgroup_ctl *ctl, int slot,
                    const struct sandbox_limits *lim, const char *cpus, struct cgroup_memo *memo,
                    struct box_cgroup *cg, char *err, size_t len);
int cgroup2_collect(struct box_cgroup *cg, struct cgroup_usage *u);
int cgroup_kill_procs(const char *dir);
int cgroup_favor_dynmods(char *note, size_t len);  /* 0 done or not needed */  /* SIGKILL leftovers, wait empty */
int cgroup_read_key(const char *path, const char *key, uint64_t *out);

/* ---- net.c ----------------------------------------------------------- */
/* Opens (creating on first use) the slot's network namespace, which holds
 * nothing but a loopback interface that is up. A namespace pinned at
 * <slot_dir>/net is reused; pin: pin a new one there for later processes. */
int net_slot_open(const char *slot_dir, bool pin, char *err, size_t len);
/* Keeper, in the slot's namespace: caps what one TCP socket may buffer
 * (net.ipv4.tcp_rmem/tcp_wmem are per namespace). */
int net_cap_buffers(void);
/* Keeper: moves to a fresh namespace (loopback up, buffers capped) if a run
 * has sent a packet in the current one; no allocation. */
int net_renew_if_used(void);  /* 1: renewed, 0: clean already, -1: failed */
/* Supervisor: pins the namespace of process pid (a keeper that renewed
 * its own) at <slot_dir>/net instead of the used one. */
int net_repin(const char *slot_dir, pid_t pid);

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
/* The denied call was one that reserves disk space beyond a file's size
 * (fallocate modes, preallocation ioctls): judged OLE, not SV. */
bool seccomp_reserves_space(int nr, uint32_t arch);
/* The notified call is only observed (SysV object creation): the keeper
 * lets it go on. */
bool seccomp_is_observed(int nr, uint32_t arch);

/* ---- caps.c ---------------------------------------------------------- */
int caps_keeper_bounding(void); /* all but the keeper's few, once */
int caps_drop_bounding(void);   /* the rest (a keeper's child); needs CAP_SETPCAP */
void *caps_empty(void);         /* a cap_t with every set empty */
void caps_free(void *caps);
int caps_clear_all(void *empty); /* effective, permitted, inheritable, ambient */

/* ---- mnt.c ----------------------------------------------------------- */
#define MNT_MAX_EXTRA 32

/* The mounts of one run, as the keeper sees them: each extra mount arrives
 * as a detached mount tree (open_tree) made by the supervisor, so the keeper
 * never resolves a host path. */
struct mnt_run {
    uint64_t tmp_size;            /* private /tmp */
    uint64_t box_size;            /* /box when it is a fresh tmpfs */
    bool box_from_tree;           /* /box is the job's work directory */
    bool box_covered;             /* an extra mount is /box itself */
    size_t extra_count;
    struct {
        char inside[PATH_MAX];
        bool is_dir;
    } extra[MNT_MAX_EXTRA];
};

/* Supervisor: validates the job's work directory and mounts and opens each
 * as a detached tree (read-only unless writable; always nosuid, nodev),
 * giving the work directory to uid. Writable paths are resolved without
 * following symlinks. *box_fd is -1 without a work directory; extra_fd gets
 * m->extra_count fds. */
int mnt_open_trees(const struct sandbox_job *job, uid_t uid, struct mnt_run *m, int *box_fd,
                   int extra_fd[MNT_MAX_EXTRA], char *err, size_t len);
/* Keeper, once: builds the box's root on a tmpfs at root and pivots into
 * it (cwd "/"). */
int mnt_build_root(const char *root, char *err, size_t len);
/* What the keeper has mounted for runs, in its own memory. */
struct mnt_state {
    int inotify_fd;               /* the keeper's, watching the tmpfs roots;
                                     -1: none (they are renewed every run) */
    uint64_t tmp_size;            /* a tmpfs of this size on /tmp; 0: none */
    uint64_t box_size;            /* the same on /box */
    int tmp_wd, box_wd;           /* their watches, -1 if none */
    bool box_tree;                /* a work directory on /box */
    size_t extra_count;           /* the extra trees, in mount order */
    char extra[MNT_MAX_EXTRA][PATH_MAX];
};
/* Keeper, per run: an empty /tmp, /box, the extra trees; records them. */
int mnt_attach_run(const struct mnt_run *m, struct mnt_state *st, int box_fd,
                   const int *extra_fd, char *err, size_t len);
/* Keeper, after a run: takes down what the run could have changed, and
 * replaces a /tmp (and /box tmpfs) the run made entries in with a fresh
 * one of the same size. */
void mnt_detach_run(struct mnt_state *st);

/* ---- box.c: the keeper and the program -------------------------------- */
enum box_report_kind { BOX_READY = 1, BOX_EXITED, BOX_SETUP_FAILED, BOX_VIOLATION };

/* The keeper's messages to the supervisor on the control socket: one
 * BOX_READY (or BOX_SETUP_FAILED) after it starts, then one per run. */
struct box_report {
    int kind;
    int wait_status;      /* BOX_EXITED */
    int syscall_nr;       /* BOX_VIOLATION */
    uint32_t arch;
    double program_cpu;   /* rusage of the run's processes (degraded mode) */
    uint64_t program_maxrss;  /* the largest peak RSS of the run's processes */
    bool out_of_memory;   /* BOX_SETUP_FAILED: the program, in its cgroup,
                             could not get the memory to start */
    bool net_renewed;     /* BOX_READY: the slot's namespace had been used,
                             the keeper made itself a fresh one */
    char message[400];    /* BOX_SETUP_FAILED */
};

/* Supervisor -> keeper commands, one byte each; a run's fds ride along. */
#define BOX_CMD_RUN 'R'
#define BOX_CMD_KILL 'K'

#define BOX_MAX_FILTER 4096      /* BPF instructions */
#define BOX_AREA_SIZE (4u << 20) /* the shared request area */

/* One run's request, written by the supervisor into the area it shares
 * with the keeper (MAP_SHARED, made before the keeper was cloned, so it
 * has the same address in the supervisor, the keeper and the program:
 * argv and envp point into strings[]). The fds are sent with the command,
 * in this order: the stdio fds that are present, cgroup_fd_count cgroup.procs
 * fds, the /box tree if mnt.box_from_tree, then the extra trees, then the
 * pass_fd_count fds the program gets as 3, 4, ... */
struct box_request {
    struct sandbox_limits limits;
    struct mnt_run mnt;
    uid_t uid;
    gid_t gid;
    bool degraded;
    bool ignore_sigpipe;          /* see struct sandbox_job */
    bool output_runs_on;          /* see struct sandbox_job */
    bool has_stdio[3];
    int cgroup_fd_count;
    int pass_fd_count;            /* sandbox_job.pass_fds, sent last */
    bool pinned;                  /* sandbox_job.cpus given: the program's affinity */
    cpu_set_t cpus;
    struct sock_fprog filter;     /* .filter points at filter_insns */
    char *const *argv;
    char *const *envp;
    struct sock_filter filter_insns[BOX_MAX_FILTER];
    char strings[];               /* up to the end of the area */
};

/* What the keeper starts from, prepared by the supervisor before clone. */
struct box_boot {
    char root[SB_ROOT_MAX];       /* where the root tmpfs is mounted */
    int ctl_fd;                   /* keeper's end of the control socket */
    int net_fd;                   /* the slot's network namespace */
    struct box_request *request;  /* the shared area */
    void *empty_caps;
};

/* Entry point of the cloned keeper (pid 1 of the slot's box). Never returns. */
__attribute__((noreturn)) void box_keeper_main(const struct box_boot *boot);

struct keeper;  /* sandbox.c: a slot's keeper, seen from the supervisor */

/* ---- the context ----------------------------------------------------- */
#define SB_PROFILE_COUNT 5

struct sandbox {
    char run_dir[SB_RUN_DIR_MAX + 1];
    uid_t uid_base;
    bool pin_netns;
    struct cgroup_ctl cgroups;
    pthread_mutex_t lock;  /* guards the caches below */
    bool filter_ready[SB_PROFILE_COUNT];
    struct seccomp_prog filter[SB_PROFILE_COUNT];
    int net_fd[SANDBOX_MAX_BOXES];
    bool slot_busy[SANDBOX_MAX_BOXES];  /* a run of this process holds it */
    struct cgroup_memo cg_memo[SANDBOX_MAX_BOXES];  /* used by the slot's holder */
    char owner[48];        /* written to a slot's lock file: who used it last */
    struct keeper *keeper[SANDBOX_MAX_BOXES];  /* used by the slot's holder */
    void *empty_caps;
};

#endif
