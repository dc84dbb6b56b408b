/*
 * daemon.h - internals shared by the files of the judged daemon (not by
 * judgectl): the configuration snapshot, pools, jobs, and the one entry
 * point of each mechanism. The theory of operation is at the top of
 * judged.c.
 */
#ifndef JUDGED_DAEMON_H
#define JUDGED_DAEMON_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "core.h"
#include "runner.h"

#define MAX_WORKERS 256

/* ---------------------------------------------------------- snapshot.c */

/* An immutable configuration, reference-counted: SIGHUP installs a new one;
 * whoever took one (a job, a dispatcher round, a heartbeat) keeps reading it
 * until it puts it back. Never modified after snapshot_new. */
struct snapshot {
    atomic_int refs;
    struct jd_config cfg;
};

/* Takes ownership of cfg's contents (cfg is zeroed). */
struct snapshot *snapshot_new(struct jd_config *cfg);
/* The current snapshot, with a reference the caller must put back. */
struct snapshot *snapshot_get(void);
void snapshot_put(struct snapshot *s);
/* Makes s current (the installer's reference moves to the daemon). */
void snapshot_install(struct snapshot *s);
/* The current configuration's log_format is json (false before one is
 * installed). */
bool snapshot_log_json(void);

/* ---------------------------------------------------------------- jobs */

struct pool;

struct job {
    struct pool *pool;
    struct snapshot *snap;   /* the configuration the job started with */
    struct queue_job q;
    atomic_bool lost;        /* our lease is gone: stop, publish nothing */
    atomic_bool abort;       /* shutdown past grace: stop, give back */
    struct job *next;        /* run queue */
    struct job *hnext;       /* held list */
    /* the outcome to publish */
    char verdict[16];
    double score;
    char *report;
    bool checkpointed;       /* it wrote or read a checkpoint (finish deletes it) */
    struct queue_conn *conn; /* the worker's, while the job runs (progress) */
    /* for the job's log line (log_job): how it ended on this host
     * (published, lost, retry, dead, given_back, aborted, error) and its
     * times in ms (-1: none) */
    const char *outcome;
    long compile_ms, run_ms, judge_ms;
    int64_t claimed_ms;      /* when this host got it (judging time for metrics) */
};

void job_free(struct job *j);

/* ---------------------------------------------------------------- pool */

struct pool {
    char name[64];
    pthread_mutex_t mu;      /* guards everything below that is not atomic */
    pthread_cond_t cv_work;  /* workers: the run queue has jobs, or exit */
    pthread_cond_t cv_slot;  /* dispatcher: a slot freed */
    struct job *qhead, *qtail;   /* claimed, waiting for a worker */
    struct job *held;        /* every job this host holds in the pool */
    int nheld, running;
    int slots;               /* claim limit = the runner's slot count */
    int first_slot;          /* the runner's first sandbox slot (it uses 2 x slots) */
    bool hold;               /* reload: claim nothing until reopened */
    bool workers_exit;
    atomic_bool stop;        /* removed or shutting down: no more claims */
    pthread_t disp;
    bool disp_started;
    pthread_t workers[MAX_WORKERS];
    int nworkers;
    struct runner *runner;   /* replaced only while the pool holds no job */
    struct queue_stats stats;   /* published verdicts not yet in the pool's statistics
                                   (written by the heartbeat thread) */
    struct pool *next;
};

/* ----------------------------------------------------------- metrics.c */

/* Why a version this host had a copy of was fetched again: the first check
 * in this process of a copy an earlier run left, a change seen at a use,
 * the scheduled rehash (judged_problem_cache_refetch_total{reason}). */
enum pcache_reason { PCACHE_RESTART, PCACHE_CHANGED, PCACHE_REHASH, PCACHE_NREASONS };

/* judged's own metrics (metrics_listen:), served by metrics.c. */
struct metrics_pool;
struct MHD_Daemon;
struct metrics {
    pthread_mutex_t mu;         /* guards pools: the list and every counter in it */
    struct metrics_pool *pools; /* counters by pool name (kept when a reload removes one) */
    atomic_int redis_up;        /* 1: Redis answered the last heartbeat round */
    bool on;                    /* set at start, before any thread: count at all */
    long long refetch[PCACHE_NREASONS];   /* problem cache refetches by reason (under mu) */
    struct MHD_Daemon *d;       /* the HTTP server (NULL: metrics_listen is off) */
};
/* Binds cfg->metrics_listen (nothing when it is off) and serves GET /metrics
 * and /healthz; -1 with err naming the file, line and key. */
int metrics_start(struct metrics *m, const struct jd_config *cfg, char *err, size_t errlen);
void metrics_stop(struct metrics *m);
/* A job a worker ran (after its outcome is known): verdict, compile and
 * run times. */
void metrics_job(struct metrics *m, const struct job *j);
void metrics_infra_failure(struct metrics *m, const char *pool);
void metrics_redis(struct metrics *m, bool up);
/* The problem cache fetched a version again (pcache.c). */
void metrics_pcache_refetch(struct metrics *m, enum pcache_reason reason);

/* The daemon's state besides the configuration: fixed at start, or guarded. */
struct daemon {
    const char *host;        /* consumer name (restart to change) */
    char redis_url[4200];    /* restart to change */
    pthread_mutex_t pools_mu;   /* the list (not the pools' contents) */
    struct pool *pools;
    atomic_bool stopping;
    atomic_int warming;      /* steps warm.c has still to do (languages, problems) */
    atomic_bool hb_stop;
    atomic_long grace_deadline;
    struct pcache *pcache;   /* fetched problem versions (pcache.c) */
    int slot_fd;             /* slotlock.c's lock file (-1: none), main thread only */
    int slot_lo, slot_hi;    /* the sandbox slots locked for the configuration */
    struct metrics metrics;  /* metrics.c: counters and the metrics_listen server */
};
extern struct daemon judged;

/* log.c: one line on stderr, text or JSON (log_format) */
void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void logwarn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The line of a job a worker ran: id, pool, language, problem, verdict,
 * outcome, attempt, queue wait, compile, run and judging times. */
void log_job(const struct job *j);

/* pool.c: lifecycle */
struct pool *pool_new(const char *name, int first_slot, int slots);
int pool_open_runner(struct pool *p, const struct jd_config *cfg, char *err, size_t errlen);
int pool_start(struct pool *p, const struct jd_config *cfg);
int pool_start_workers(struct pool *p);
/* First sandbox slot of pool i: first_slot + 2 x the slots of the pools
 * before it (a job slot and its companion each). */
int pool_first_slot(const struct jd_config *cfg, int i);
/* Publishes every pool's languages and limits for FCALL admissions, and
 * the problems directory's summaries (directory.c). */
void pools_publish(const struct jd_config *cfg);
/* directory.c: each problem of dir loaded by catalog (its package limits),
 * its summary published for GET /v1/problems; nothing when dir is not
 * there. */
void directory_publish(struct queue_conn *k, struct runner *catalog, const char *dir);
int pool_free_slots(struct pool *p);
/* A slot of p lent to work that is not a job (the validator's checks, the
 * warm-up): counted held, so the dispatcher claims one job less meanwhile
 * and a reload does not replace p's runner under the borrower. Returns the
 * runner to use, NULL when p has no free slot now (or is held, stopping,
 * without a runner). pool_lend_slot waits for one (NULL: judged or the pool
 * is stopping). pool_return_slot gives it back. */
struct runner *pool_try_lend_slot(struct pool *p);
struct runner *pool_lend_slot(struct pool *p);
void pool_return_slot(struct pool *p);
/* Takes claimed jobs into the held set and the run queue (skips one this
 * host still holds: after a stall our reclaim may return our own entry).
 * With mine, the first job goes to the calling worker instead (counted
 * running, not queued). */
int pool_enqueue(struct pool *p, struct queue_job *jobs, int n, struct job **mine);
/* Caller holds p->mu. */
void pool_unhold(struct pool *p, struct job *j);
void pools_shutdown(void);

/* dispatch.c */
void *dispatcher(void *arg);
/* The claim a finishing worker pipelines with its finish; false: none. */
bool dispatch_refill_claim(struct pool *p, struct queue_claim_args *a);

/* worker.c */
void *worker(void *arg);
void job_infra_failure(struct queue_conn *k, struct job *j, const char *reason);
void jobs_give_back(struct queue_conn *k, struct pool *p, struct job **jobs, int n, long lease_ms);

/* pcache.c: problem versions from the store, cached under STATE_DIR/problems */
struct pcache *pcache_new(void);
/* Why a version was fetched again: enum pcache_reason (above). */
const char *pcache_reason_name(enum pcache_reason r);
/* A version held by a job: its directory, and the copy it was. */
struct pcache_hold {
    char path[4400];
    char version[65];
    unsigned long gen;
};
/* A copy of version proved against its manifest (fetched if needed; its
 * metadata checked at every use, its hashes when that differs or on
 * schedule) in h->path, held until pcache_release; -1 with err when it
 * could not be had (retry later). */
int pcache_acquire(struct queue_conn *k, const struct jd_config *cfg, const char *version,
                   struct pcache_hold *h, char *err, size_t errlen);
/* Lets h go; -1 with err when the copy changed while it was held: a
 * verdict judged from it must not be published. */
int pcache_release(const struct jd_config *cfg, const struct pcache_hold *h, char *err, size_t errlen);

/* pcheck.c: the metadata check of a cached copy (pcache.c) */
struct store_manifest;
/* What a file or directory of a proved copy looked like: an edit in place
 * changes size, mtime or ctime (ctime also catches an mtime set back by
 * hand), a replacement the inode, an entry added, removed or renamed its
 * directory's times. */
struct pnode {
    char *rel;               /* "." for the version's directory */
    dev_t dev;
    ino_t ino;
    mode_t mode;
    off_t size;
    struct timespec mtime, ctime;
};
/* The nodes to watch of m's copy: its directory first, every file and
 * every directory holding one; -1 out of memory. */
int pcheck_nodes(const struct store_manifest *m, struct pnode **out, size_t *count);
/* Stats every node of the copy at path (no link followed): with record,
 * takes what it finds as the nodes' metadata; without, compares. 0: all as
 * recorded (or recorded); 1: why says what differs; -1: the copy cannot be
 * read (why says why). */
int pcheck_stat(const char *path, struct pnode *nodes, size_t n, bool record, char *why, size_t whylen);
void pcheck_free(struct pnode *nodes, size_t n);

/* validator.c: validates and pushes judge-api's staged uploads */
void *validator(void *arg);

/* warm.c: builds each pool's languages' prepared files at start, then the
 * newest problems' checkers and interactors. The caller sets
 * judged.warming to warm_count() (languages + 1 for the problems) before
 * the first heartbeat, so no record says 0 before the work has begun. */
int warm_count(const struct jd_config *cfg);
void *warm_up(void *arg);

/* heartbeat.c */
void *heartbeat(void *arg);

/* slotlock.c: machine-wide locks on this host's sandbox slots */
/* Locks cfg's slots [first_slot, + 2 x all pools' slots) besides any held;
 * -1 with err naming the config, the key and the judged holding them. */
int slotlock_acquire(const struct jd_config *cfg, char *err, size_t errlen);
/* Keeps only cfg's slots (after a start or a reload). */
void slotlock_keep(const struct jd_config *cfg);
void slotlock_release(void);

/* judged.c: what the configuration file alone cannot tell (judgectl and
 * judge-api share config.c): a language of a pool without a language file,
 * no usable source of problems. -1 with err naming the file and the key. */
int config_usable(const struct jd_config *cfg, char *err, size_t errlen);

/* reload.c: reload returns true when a stop signal arrived during it */
void reload_init(const char *languages_dir);
bool reload(const char *path, const sigset_t *stopset);

#endif
