/*
 * sandbox.h - run one untrusted program in a locked-down box and measure it.
 *
 * This is the only public header of sandbox/. It knows nothing about judging:
 * it runs a command with limits and reports what happened.
 *
 *   struct sandbox_config cfg = SANDBOX_CONFIG_INIT;
 *   struct sandbox *sb;
 *   char err[256];
 *   if (sandbox_open(&sb, &cfg, err, sizeof err) < 0) { ... }
 *
 *   struct sandbox_job job = SANDBOX_JOB_INIT;
 *   job.argv = (const char *const[]){"/bin/true", NULL};
 *   job.workdir = "/some/dir";
 *   struct sandbox_result res;
 *   sandbox_run(sb, &job, &res);   // res.status is OK/RE/TLE/MLE/OLE/SV/IE
 *   sandbox_close(sb);
 *
 * A box slot ("box id", 0..SANDBOX_MAX_SLOTS-1, or a slot's sub-box) owns a uid/gid, a cgroup and
 * a network namespace that are created on first use and reused by later runs.
 * Only one run may use a slot at a time (a second one fails with IE "busy");
 * runs in different slots may proceed concurrently, from threads or processes.
 * sandbox_run is thread-safe for distinct slots.
 */
#ifndef JUDGED_SANDBOX_H
#define JUDGED_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SANDBOX_MAX_SLOTS 1000

/* A slot's holder may also run in the slot's sub-boxes 1..SANDBOX_SUBBOXES,
 * box ids sandbox_subbox(slot, k): each its own uid, cgroup and network
 * namespace like any slot, for programs of one job that must run at once
 * yet apart (a communication task's processes). They belong to whoever
 * holds the slot: no caller allocates them otherwise. */
#define SANDBOX_SUBBOXES 16
#define SANDBOX_MAX_BOXES (SANDBOX_MAX_SLOTS * (SANDBOX_SUBBOXES + 1))
static inline int sandbox_subbox(int slot, int k)
{
    return slot + k * SANDBOX_MAX_SLOTS;
}

/* fds a job may hand its program beside stdio (sandbox_job.pass_fds) */
#define SANDBOX_MAX_PASS_FDS 32

struct sandbox;

enum sandbox_cgroup_mode {
    SANDBOX_CGROUP_AUTO = 0, /* v2 if usable, else v1, else degraded */
    SANDBOX_CGROUP_V1,
    SANDBOX_CGROUP_V2,
    SANDBOX_CGROUP_NONE,     /* rlimits only: results say "degraded" */
};

struct sandbox_config {
    const char *run_dir;        /* slot state: locks, netns handles, roots */
    enum sandbox_cgroup_mode cgroup_mode;
    const char *cgroup_root;    /* v2 mount (or v1 hierarchy parent dir);
                                   NULL: found from /proc/self/mounts */
    const char *cgroup_parent;  /* our subtree, relative to each hierarchy */
    uid_t uid_base;             /* slot N runs as uid/gid uid_base + N */
    bool pin_netns;             /* keep each slot's network namespace for
                                   later processes by a bind mount under
                                   run_dir (for short-lived callers such as
                                   the CLI); otherwise it lives as long as
                                   this handle */
    bool favor_dynmods;         /* set the cgroup2 mount option favordynmods:
                                   moving a task into a cgroup then costs
                                   ~0.06 ms instead of an RCU grace period */
};

#define SANDBOX_CONFIG_INIT                                                    \
    {.run_dir = "/run/judge-sandbox", .cgroup_mode = SANDBOX_CGROUP_AUTO,      \
     .cgroup_root = NULL, .cgroup_parent = "judge-sandbox", .uid_base = 60000,    \
     .favor_dynmods = true}

/* Limits of one run. 0 means "no limit" unless a field says otherwise. */
struct sandbox_limits {
    double cpu_time;     /* seconds, all processes and threads together */
    double wall_time;    /* seconds */
    uint64_t memory;     /* bytes of resident memory (cgroup), swap included */
    uint64_t output;     /* bytes any one file may grow to (stdout too) */
    uint64_t tmp_size;   /* size of the private /tmp; 0 = 64 MiB */
    uint64_t stack;      /* bytes; 0 = as large as memory (or unlimited) */
    int procs;           /* processes + threads; 0 = 64 */
    int open_files;      /* 0 = 64 */
};

/* An extra bind mount, read-only unless writable is set. */
struct sandbox_mount {
    const char *host;    /* absolute host path */
    const char *inside;  /* absolute path in the box; NULL = same as host */
    bool writable;       /* its host path is then resolved following no symlink */
    bool optional;       /* silently skipped when the host path is missing */
};

struct sandbox_job {
    int slot;
    const char *const *argv;   /* argv[0] is looked up in the box's PATH */
    const char *const *envp;   /* the program's whole environment (NULL: empty) */
    const char *workdir;       /* host dir mounted read-write at /box (cwd),
                                  given to the slot's uid; resolved following
                                  no symlink (a box may have planted one) */
    int stdin_fd;              /* -1: /dev/null */
    int stdout_fd;             /* -1: /dev/null */
    int stderr_fd;             /* -1: /dev/null */
    const char *profile;       /* seccomp profile name; NULL = "default" */
    struct sandbox_limits limits;
    const struct sandbox_mount *mounts;
    size_t mount_count;
    int cancel_fd;             /* -1, or an fd whose hang-up or readability
                                  kills the run (IE "cancelled"): a server's
                                  connection to a client that may go away */
    const char *cpus;          /* the CPUs the box runs on, a list like "3" or
                                  "0-1,4" (the slot cgroup's cpuset where one
                                  is available, v1 or v2, and the program's
                                  affinity); NULL: wherever the caller runs */
    bool ignore_sigpipe;       /* the program starts with SIGPIPE ignored: a
                                  write to a pipe nobody reads fails (EPIPE)
                                  instead of killing it */
    bool output_runs_on;       /* past limits.output a file is cut (writes
                                  fail, EFBIG) and the program runs on: OLE
                                  when it ends within its time, else TLE */
    const int *pass_fds;       /* fds the program gets as 3, 4, ... (pipes
                                  it opens again as /dev/fd/3, ...); at most
                                  SANDBOX_MAX_PASS_FDS */
    int pass_fd_count;
    struct sandbox_waits *shared_waits; /* boxes run together (a manager and
                                  the processes it talks to): each adds the
                                  time it waited for a core, and each one's
                                  wall clock leaves out the group's total -
                                  a box blocked on a peer that waited for a
                                  core waited too. NULL: its own waits */
};

/* What boxes run together waited for cores (sandbox_job.shared_waits):
 * zeroed by the caller, shared by the group's concurrent sandbox_run calls
 * in this process. */
struct sandbox_waits {
    _Atomic uint64_t ns;
};

#define SANDBOX_JOB_INIT                                                       \
    {.slot = 0, .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1, .cancel_fd = -1}

enum sandbox_status {
    SANDBOX_OK = 0, /* exited with code 0 within every limit */
    SANDBOX_RE,     /* non-zero exit or killed by a signal */
    SANDBOX_TLE,    /* CPU or wall time; see tle_wall */
    SANDBOX_MLE,    /* memory limit (the cgroup OOM-killed it) */
    SANDBOX_OLE,    /* output / file size limit */
    SANDBOX_SV,     /* forbidden system call; see syscall_name */
    SANDBOX_IE,     /* the sandbox itself failed; see message */
};

struct sandbox_result {
    enum sandbox_status status;
    int exit_code;          /* valid when signal == 0 */
    int signal;             /* terminating signal, 0 if it exited */
    double cpu_time;        /* seconds */
    double wall_time;       /* seconds */
    uint64_t memory;        /* peak resident bytes */
    bool tle_wall;          /* TLE came from the wall clock, not CPU */
    bool degraded;          /* no cgroup: rlimits only, coarser figures */
    char syscall_name[32];  /* for SV */
    char message[512];      /* human-readable explanation */
};

/* Every x86_64 system call numbered up to this one has been reviewed for
 * the filters (open_tree_attr, file_setattr: Linux 6.17). Any call with a
 * higher number, one that a newer kernel added after the review, is denied
 * in every profile (SV, "syscall N"). */
#define SANDBOX_SYSCALL_REVIEWED 469

/* Profiles known to sandbox_run; NULL-terminated. */
extern const char *const sandbox_profiles[];

int sandbox_open(struct sandbox **out, const struct sandbox_config *cfg,
                 char *err, size_t errlen);
void sandbox_close(struct sandbox *sb);

/* Runs job and fills *res. Returns 0 when the program was run and judged
 * (whatever its status), -1 when the sandbox failed (res->status == IE). */
int sandbox_run(struct sandbox *sb, const struct sandbox_job *job,
                struct sandbox_result *res);

/* "none" in the degraded mode, else "v1" or "v2". */
const char *sandbox_cgroup_version(const struct sandbox *sb);

const char *sandbox_status_name(enum sandbox_status s);

/* Parses "256M", "1G", "4096", "64k" (binary units). -1 on a bad string. */
int sandbox_parse_size(const char *s, uint64_t *out);
/* Parses "1.5", "2s", "500ms". -1 on a bad string. */
int sandbox_parse_seconds(const char *s, double *out);

#endif
