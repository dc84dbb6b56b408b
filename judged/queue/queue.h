/*
 * queue.h - the typed queue library of judged: one C function and one reply
 * struct per operation of the queue protocol, over the Redis Functions
 * library judged/queue/judged.lua (embedded at build time). Used by judged
 * (the daemon), judgectl and any other front (an HTTP API). Knows nothing of
 * the runner or the sandbox; needs hiredis, and jansson only to read the
 * hosts' JSON registrations (hosts.c).
 *
 * Conventions: every operation takes a connection (one per thread: hiredis
 * contexts are not thread-safe) and returns an enum queue_rc, the one
 * convention of this library and of store.h:
 *   QUEUE_OK (0)       done;
 *   QUEUE_ERROR (-1)   an error reply, an unexpected reply or a refusal,
 *                      described in err: retrying will not help;
 *   QUEUE_IO (-2)      the connection failed (it was dropped and reconnects
 *                      on the next call; k->err says why): retry, with
 *                      queue_conn_backoff;
 *   QUEUE_NOGROUP (-3) the pool's consumer group vanished
 *                      (queue_ensure_groups repairs it).
 * The connection helpers (queue_conn_ensure, the URL functions) return
 * 0 or -1 and say more in k->err and k->refused. A missing library (a
 * restarted or flushed Redis) is loaded again transparently. Every Redis
 * command of judged, judgectl and judge-api is issued here or in the store;
 * every key name is spelled here (queue_internal.h), in the store or in the
 * Lua libraries. Key layout and protocol: judged/DESIGN.md.
 */
#ifndef JUDGED_QUEUE_H
#define JUDGED_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hiredis/hiredis.h>

/* -------------------------------------------------- conn.c: connection */

struct queue_library;

struct queue_conn {
    redisContext *c;
    char *url;               /* see conn.c for the grammar; may hold a password:
                                never print it, print queue_url_redact's copy */
    long timeout_ms;         /* socket timeout for every command */
    long backoff_ms;         /* current reconnect delay */
    bool refused;            /* the last connect failed for good: a bad URL, or
                                Redis refused the password (retrying won't help) */
    char err[256];           /* last error, for logs (never holds a password) */
    /* sentinel:// */
    int sentinel_next;       /* the Sentinel asked first: the one that answered last */
    char primary[300];       /* HOST:PORT of the primary last connected to */
    bool switched;           /* connected to another primary than before */
    const struct queue_library *libs[4];   /* checked again on a new primary */
    int nlibs;
    struct queue_cluster *cluster;   /* redis-cluster://: the slot map and a
                                        connection per node (cluster.c); k->c
                                        is the current node's */
};

void queue_conn_init(struct queue_conn *k, const char *url, long timeout_ms);
void queue_conn_close(struct queue_conn *k);
/* Connects if needed (and authenticates, selects the database). 0 ok, -1
 * with k->err. */
int queue_conn_ensure(struct queue_conn *k);
/* Checks a Redis URL's form (rediss:// is refused, saying why); 0 or -1
 * with err (which shows the URL redacted). */
int queue_url_check(const char *url, char *err, size_t errlen);
/* The URL with its password replaced by "***": the only form of a Redis URL
 * any message or log may show. */
void queue_url_redact(const char *url, char *buf, size_t len);
bool queue_url_has_password(const char *url);
/* Is url a redis-cluster:// URL (a Redis Cluster: replicas, as Sentinel)? */
bool queue_url_is_cluster(const char *url);
/* URL (valid, without a password) with PASSWORD added, percent-encoded, to
 * its user-info (the user, if any, stays); -1 if it does not fit. */
int queue_url_with_password(const char *url, const char *password, char *buf, size_t len);
/* Frees a context whose reply stream is out of step (an I/O error or
 * timeout inside a pipeline), keeping its errstr in k->err; the next call
 * reconnects. The store's pipelines use it too. */
void queue_conn_drop(struct queue_conn *k);
/* A -READONLY or -LOADING reply (a demoted primary, a replica, a Redis
 * loading its data): drops the connection, keeping the reply's text in
 * k->err, and says true; the caller frees r and treats it as QUEUE_IO, so
 * the next call reconnects (under sentinel://, to the new primary). */
bool queue_conn_stale(struct queue_conn *k, const redisReply *r);
/* Makes k->c the connection that serves key: under redis-cluster://
 * the primary of the key's slot (a pipeline of one pool's keys calls it
 * first with one of them), else the one endpoint. 0, or -1 with k->err. */
int queue_conn_route(struct queue_conn *k, const char *key, size_t len);
/* Under redis-cluster://, "HOST:PORT" of the primary that serves key (in
 * buf), else NULL: what `judgectl pools` and /metrics show per pool. */
const char *queue_conn_node(struct queue_conn *k, const char *key, size_t len, char *buf, size_t buflen);
/* The Redis Cluster hash slot of a key: CRC16 of its {tag} (a pool's
 * {POOL}) or of the whole key, mod 16384. */
int queue_key_slot(const char *key, size_t len);
/* Sleeps the current backoff (exponential, with jitter, 50 ms .. 2 s). */
void queue_conn_backoff(struct queue_conn *k);
/* One raw command, for this library, the store, tests and benchmarks:
 * judged, judgectl and judge-api call an operation instead (a command
 * they need is a new function here). NULL on I/O trouble (k->err set);
 * error replies are returned. */
redisReply *queue_cmd(struct queue_conn *k, const char *fmt, ...);
redisReply *queue_cmdv(struct queue_conn *k, int argc, const char **argv, const size_t *lens);
/* Round trips sent through this library (for the benchmark). */
extern _Atomic unsigned long queue_round_trips;
/* A reply's string value or NULL. */
const char *queue_rstr(const redisReply *r);
/* err = "WHAT: redis: " and k->err (the connection's last error, up to 255
 * bytes, or "connection lost"); a message longer than errlen is cut and
 * ends in "...". */
void queue_io_err(const struct queue_conn *k, const char *what, char *err, size_t errlen);

/* -------------------------------------------------- library.c: library */

extern const char queue_library_lua[];  /* judged.lua, embedded */
extern const int queue_library_version; /* its VERSION line (embed.cmake) */

/* A Redis Functions library a program embeds (embed.cmake): judged.lua
 * (queue_judged_library) or the store's store.lua. Both are loaded by the
 * one loader below, so they follow one version rule. */
struct queue_library {
    const char *lua;         /* the source, sent with FUNCTION LOAD REPLACE */
    const int *version;      /* its VERSION line */
    const char *file;        /* for messages: "judged.lua" */
    const char *title;       /* for messages: "the judged function library" */
    const char *version_fn;  /* its no-key function answering the loaded version */
};
extern const struct queue_library queue_judged_library;

/* Loads lib into Redis unless the same version is there; refuses
 * (QUEUE_ERROR, err) when Redis holds a newer version (another host runs
 * a newer judged) or refuses the command (NOAUTH, NOPERM). */
enum queue_rc queue_library_load(struct queue_conn *k, const struct queue_library *lib, char *err, size_t errlen);
/* queue_library_load of judged.lua. */
enum queue_rc queue_library_ensure(struct queue_conn *k, char *err, size_t errlen);
/* One FCALL (argv: "FCALL", FUNCTION, NUMKEYS, ...) of lib, loading lib and
 * calling again when Redis lacks it (restarted without its data, flushed).
 * NULL with err when it could not be loaded or on I/O trouble (k->err);
 * error replies are returned. */
redisReply *queue_fcall(struct queue_conn *k, const struct queue_library *lib, int argc, const char **argv,
                        const size_t *lens, char *err, size_t errlen);

/* ------------------------------------------------------ names.c: names */

#define QUEUE_GROUP "judged"
enum { QUEUE_CONTEST = 0, QUEUE_NORMAL = 1 };
/* The one error convention of the queue and the store libraries (store.h's
 * STORE_OK, STORE_ERR and STORE_IO are these values): see the top of this
 * file. -1 is an error retrying will not cure, as for every other -1 of
 * the two libraries (a file, an argument); -2 alone means "retry". */
enum queue_rc { QUEUE_OK = 0, QUEUE_ERROR = -1, QUEUE_IO = -2, QUEUE_NOGROUP = -3 };

/* The one naming rule of pools' submissions, languages and problems (the
 * same as valid_name in judged.lua): 1..128 of [A-Za-z0-9_.-], not starting
 * with '.' or '-'. */
bool queue_valid_name(const char *s);
/* judge:{POOL}:SUFFIX: for tests and benchmarks, which read Redis as it
 * is. judged, judgectl and judge-api name no key: they call a function of
 * this library or of the store. */
void queue_key(char *buf, size_t len, const char *pool, const char *suffix);
/* judge:{POOL}:sub:ID, a submission's hash (ID "*": a SCAN pattern of the
 * pool's): the store reads submissions by this one name. */
void queue_submission_key(char *buf, size_t len, const char *pool, const char *id);
/* judge:{POOL}:res:ID, its result hash: verdict, score, report, finished,
 * dead, and a rejudge's rejudge, previous_verdict, previous_score. Only the
 * library's judging and admin functions write it (the platform's ACL user
 * writes submission hashes, so no verdict is kept there: issue 25); a
 * submission is done when its result has a verdict. */
void queue_result_key(char *buf, size_t len, const char *pool, const char *id);
/* The pool of a submission id "POOL-TIME-SEQ"; false if malformed. */
bool queue_id_pool(const char *id, char *pool, size_t len);
const char *queue_name(int queue); /* "contest" | "normal" */

/* Creates both consumer groups of POOL if missing (id 0: a group recreated
 * after data loss sees the live backlog). */
enum queue_rc queue_ensure_groups(struct queue_conn *k, const char *pool, char *err, size_t errlen);

/* ------------------------------------------------------ admit.c: admit */

struct queue_admit_args {
    const char *pool, *lang, *problem;
    const char *source;
    size_t source_len;
    const char *key;         /* idempotency key or NULL */
    const char *priority;    /* "contest" | "normal" (NULL = normal) | "verify" (the
                                rejudge lane, max_queue its own bound: verify.c) */
    long max_queue;          /* < 0: what judged published for the pool */
    long max_source;         /* < 0: likewise */
    const char *version;     /* problem version to judge with (64 hex, or "": the
                                hosts' problems directory); NULL: the store's
                                current version of the problem, if any */
    /* optional, stored with the submission (NULL = none): */
    const char *owner;       /* who admitted it (judge-api: the token's name) */
    const char *hash;        /* the request's hash: the same key with another
                                hash is QUEUE_CONFLICT */
    const char *callback;    /* webhook URL */
    const char *metadata;    /* the platform's opaque JSON */
    /* durability: > 0: an admitted (or duplicate) answer only once this
     * many replicas confirm the write (WAIT replicas wait_ms); fewer in
     * time: QUEUE_NOT_DURABLE (the submission may exist: a retry with the
     * same key is a duplicate, answered once it is replicated) */
    int replicas;
    long wait_ms;
};
enum queue_admit_result { QUEUE_ADMITTED, QUEUE_DUPLICATE, QUEUE_BUSY, QUEUE_CONFLICT, QUEUE_NOT_DURABLE };
struct queue_admit_reply {
    enum queue_admit_result result;
    char id[192];            /* admitted, duplicate or conflict (the key's id) */
    long long waiting;       /* busy: the backlog */
    int replicas;            /* replicas that confirmed (when args.replicas > 0) */
};
enum queue_rc queue_admit(struct queue_conn *k, const struct queue_admit_args *a,
                          struct queue_admit_reply *out, char *err, size_t errlen);

/* Publishes a pool's routing and limits (judge:{P}:config) so admissions by
 * FCALL check what judgectl checks; every admission's idempotency key then
 * expires after idempotency_ttl_ms (0 = kept). */
enum queue_rc queue_publish_pool(struct queue_conn *k, const char *pool, const char *const *languages,
                                 int nlanguages, long max_queue, long max_source,
                                 long idempotency_ttl_ms, char *err, size_t errlen);

/* ---------------------------------------- claim.c, stats.c: claim side */

struct queue_job {
    int queue;               /* QUEUE_CONTEST | QUEUE_NORMAL */
    char entry[64];          /* stream entry id */
    char id[192];            /* submission id ('' for some poison) */
    char *poison;            /* non-NULL: dead-letter with this reason */
    char *lang, *problem, *source;
    size_t source_len;
    int attempts;
    char version[65];        /* the problem version recorded at admission, or "" */
    long long wait_ms;       /* admission (or rejudge) to this claim; -1: unknown */
    bool reclaimed;          /* a judging a host lost: taken over from another
                                consumer (queue_reclaim), or this host's own
                                entry after a restart (set by the caller): its
                                checkpoint may let it resume */
};
void queue_job_clear(struct queue_job *j);

/* Metrics counters of judge:{P}:stats (judge-api's GET /metrics): verdicts
 * by name and the histograms of queue wait and judging time. A host adds
 * up its published verdicts here and writes them once per heartbeat
 * (queue_stats_flush) instead of every finish writing five counters: that
 * was a quarter of the Redis commands of a job (bench_fleet). Dead letters
 * (judged_dead_letter, judged_retry) still count in the function. */
#define QUEUE_STATS_BUCKETS 13   /* 10 25 50 100 250 500 1000 2500 5000 10000 30000 60000 +Inf ms */
#define QUEUE_STATS_VERDICTS 16
struct queue_stats {
    int nverdicts;
    char verdict[QUEUE_STATS_VERDICTS][16];
    long long vcount[QUEUE_STATS_VERDICTS];
    long long wait[QUEUE_STATS_BUCKETS], judging[QUEUE_STATS_BUCKETS];
    long long wait_sum, judging_sum;
};
/* One published verdict; wait_ms < 0: no wait observation. */
void queue_stats_observe(struct queue_stats *s, const char *verdict, long long wait_ms, long long judging_ms);
/* Adds `from` to `into` (a failed flush's counts go back). */
void queue_stats_merge(struct queue_stats *into, const struct queue_stats *from);
/* HINCRBYs of every non-zero counter into judge:{POOL}:stats, one pipelined
 * write; QUEUE_OK: written (the caller zeroes its copy). */
enum queue_rc queue_stats_flush(struct queue_conn *k, const char *pool, const struct queue_stats *s, char *err,
                                size_t errlen);

struct queue_claim_args {
    const char *pool, *host;
    int count;
    const char *from[2];     /* per queue: ">" new entries, an id: re-read own
                                pending entries after it, "" skip */
};
struct queue_claim_reply {
    char state[16];          /* active | draining | paused */
    struct queue_job *jobs;
    int njobs;
    char delivered[2][64];   /* last-delivered ids when nothing was found */
    char last[2][64];        /* last ids read (a re-read's cursor) */
};
enum queue_rc queue_claim(struct queue_conn *k, const struct queue_claim_args *a,
                          struct queue_claim_reply *out, char *err, size_t errlen);
void queue_claim_reply_free(struct queue_claim_reply *r);
/* Blocks up to block_ms (no claim) until an entry after delivered[] appears. */
enum queue_rc queue_wait_new(struct queue_conn *k, const char *pool, char (*delivered)[64],
                             long block_ms);

struct queue_reclaim_args {
    const char *pool, *host;
    int queue;
    long min_idle_ms;
    int count;
    const char *cursor;
    int max_deliveries;      /* 0 = no limit */
};
struct queue_reclaim_reply {
    char state[16];
    char cursor[64];         /* "0-0" when the scan is complete */
    struct queue_job *jobs;
    int njobs;
};
enum queue_rc queue_reclaim(struct queue_conn *k, const struct queue_reclaim_args *a,
                            struct queue_reclaim_reply *out, char *err, size_t errlen);
void queue_reclaim_reply_free(struct queue_reclaim_reply *r);

/* Moves due retries back to their queue; *moved may be NULL. */
enum queue_rc queue_promote(struct queue_conn *k, const char *pool, int limit, int *moved);

/* ----------------------------------------------------- claim.c: leases */

struct queue_ref {
    int queue;
    const char *entry;
};
struct queue_renew_reply {
    char (*lost)[64];        /* entries no longer ours */
    int nlost;
};
enum queue_rc queue_renew(struct queue_conn *k, const char *pool, const char *host,
                          const struct queue_ref *refs, int n, struct queue_renew_reply *out,
                          char *err, size_t errlen);
void queue_renew_reply_free(struct queue_renew_reply *r);

/* Hands owned entries back without spending an attempt (idle_ms: how idle
 * they look, so that any host's reclaim takes them at once). */
enum queue_rc queue_give_back(struct queue_conn *k, const char *pool, const char *host, long idle_ms,
                              const struct queue_ref *refs, int n, int *given, char *err,
                              size_t errlen);

/* Removes a dead host's consumer where nothing is pending for it; *gone
 * when it is no longer in either group of the pool. */
enum queue_rc queue_reap(struct queue_conn *k, const char *pool, const char *consumer, bool *gone,
                         char *err, size_t errlen);

/* ------------------------------------------------ progress.c: progress */

/* One step of a submission's progress (judged_progress): stage "compiling",
 * or "test" with the 1-based test number, the number of tests and that
 * test's verdict. One Redis write; best effort for the caller. */
enum queue_rc queue_progress(struct queue_conn *k, const char *pool, const char *id,
                             const char *stage, int test, int count, const char *verdict,
                             char *err, size_t errlen);

/* A finished test's progress step and its checkpoint, in the same one
 * call: the progress entry names host; record (the runner's, opaque here)
 * goes into judge:{P}:ckpt:ID under identity (a new identity replaces the
 * records of another judging). */
struct queue_test_done {
    const char *pool, *id, *host;
    int test, count;          /* 1-based */
    const char *verdict;
    const char *identity, *record;
};
enum queue_rc queue_progress_test(struct queue_conn *k, const struct queue_test_done *t, char *err,
                                  size_t errlen);

/* A submission's checkpoint, for a host that took its job over: the
 * identity of the judging that recorded it ('' and no records when there is
 * none) and the records of its finished tests, records[i] test i+1's or
 * NULL, count: the highest test recorded (at most max_tests). */
struct queue_checkpoint {
    char *identity;
    char **records;
    size_t count;
};
enum queue_rc queue_checkpoint_read(struct queue_conn *k, const char *pool, const char *id, size_t max_tests,
                                    struct queue_checkpoint *out, char *err, size_t errlen);
void queue_checkpoint_free(struct queue_checkpoint *c);
/* A line of the submission's attempt history (owner-checked; spends no
 * attempt): {"time", "host", "note"}. */
enum queue_rc queue_note(struct queue_conn *k, const char *pool, const char *host, int queue, const char *entry,
                         const char *id, const char *note, char *err, size_t errlen);

/* ------------------------------------------------- outcome.c: outcomes */

struct queue_finish_args {
    const char *pool, *host;
    int queue;
    const char *entry, *id;
    const char *verdict;
    double score;
    const char *report;      /* the runner's report, JSON */
    long results_max;
    long retention_ms;       /* the submission expires this long after (0 = kept) */
    bool checkpointed;       /* the judging wrote or read a checkpoint: delete it */
};
enum queue_finish_result { QUEUE_FINISH_LOST, QUEUE_FINISH_PUBLISHED, QUEUE_FINISH_ALREADY_DONE };
struct queue_finish_reply {
    enum queue_finish_result result;
    enum queue_rc rc;        /* per call of a batch */
    char err[160];
};
enum queue_rc queue_finish(struct queue_conn *k, const struct queue_finish_args *a,
                           struct queue_finish_reply *out, char *err, size_t errlen);
/* n finishes, then (if claim != NULL) a claim, pipelined: ONE round trip
 * (one finish and a claim: one call of judged_finish_claim). The
 * dispatcher uses it so that a loaded pool costs one round trip per job.
 * Returns QUEUE_IO if the connection failed (nothing is known: retry all;
 * finishing twice is harmless), else QUEUE_OK with each reply's own rc. */
enum queue_rc queue_finish_then_claim(struct queue_conn *k, const struct queue_finish_args *fin,
                                      int n, struct queue_finish_reply *fout,
                                      const struct queue_claim_args *claim,
                                      struct queue_claim_reply *cout, enum queue_rc *claim_rc,
                                      char *err, size_t errlen);

struct queue_retry_args {
    const char *pool, *host;
    int queue;
    const char *entry, *id, *reason;
    int max_attempts;
    long delay_ms;
    long results_max;
    long retention_ms, dlq_retention_ms;   /* when dead-lettered; 0 = kept */
};
enum queue_retry_result { QUEUE_RETRY_LOST, QUEUE_RETRY_SCHEDULED, QUEUE_RETRY_DEAD };
struct queue_retry_reply {
    enum queue_retry_result result;
    int attempts;
};
enum queue_rc queue_retry(struct queue_conn *k, const struct queue_retry_args *a,
                          struct queue_retry_reply *out, char *err, size_t errlen);

struct queue_dead_args {
    const char *pool, *host;
    int queue;
    const char *entry, *id, *reason;
    long results_max;
    long retention_ms;       /* the submission: the longer of the two */
    long dlq_retention_ms;   /* the dead letter (and older ones are trimmed); 0 = kept */
};
/* *dead is false when the entry was no longer ours. */
enum queue_rc queue_dead_letter(struct queue_conn *k, const struct queue_dead_args *a, bool *dead,
                                char *err, size_t errlen);

/* ---------------------------------------------------- control.c: admin */

/* Re-admits the submission of a dead-letter entry; its id in id. */
enum queue_rc queue_requeue(struct queue_conn *k, const char *pool, const char *entry, char *id,
                            size_t idlen, char *err, size_t errlen);
/* Queues a judged submission again at the rejudge priority (taken only by
 * what a claim leaves over after contest and normal work) with problem
 * version `version` ("" = the hosts' problems directory); its result will be
 * a new event with rejudge true and its previous verdict and score.
 * *result: "queued", "not_done" (still queued or running) or "missing". */
enum queue_rc queue_rejudge(struct queue_conn *k, const char *pool, const char *id, const char *version,
                            const char *rejudge_id, char *result, size_t resultlen, char *err, size_t errlen);
/* Cancels submission id of priority verify if it still waits (taken off
 * the rejudge lane and deleted). *result: "cancelled", "running" (a host
 * has it: it runs to its end), "done" or "missing". */
enum queue_rc queue_cancel(struct queue_conn *k, const char *id, char *result, size_t resultlen, char *err,
                           size_t errlen);
/* state: "active", "draining" or "paused". */
enum queue_rc queue_set_state(struct queue_conn *k, const char *pool, const char *state, char *err,
                              size_t errlen);

/* -------------------------------------------- reads.c, events.c: reads */

/* What a pool holds, read with plain commands (one Redis; a few round trips).
 * state is the stored one (active, draining, paused) refined for a
 * draining pool: "draining" while jobs run, "drained" once nothing runs,
 * waits or waits to retry, "held" when nothing runs but jobs wait (a
 * draining pool claims nothing: they wait for `resume`). judgectl pools and
 * judge-api's /v1/pools, /metrics and /readyz share it. */
struct queue_pool_status {
    char state[16];          /* active | draining | drained | held | paused */
    long long waiting[2];    /* per queue (QUEUE_CONTEST, QUEUE_NORMAL): not yet claimed */
    long long lag[2];        /* per queue: the group's lag as XINFO GROUPS reports it
                                (what KEDA reads; equals waiting), -1: Redis cannot tell */
    long long running;       /* claimed (pending in the group), both queues */
    long long delayed;       /* waiting to retry (judge:{P}:delayed) */
    long long rejudge;       /* rejudges waiting (judge:{P}:rejudge) */
    long long dlq;           /* dead letters */
    long long oldest_ms;     /* age of the oldest unclaimed entry (0: none), by Redis' clock */
    /* the pool's recent pace, from its results stream: verdicts per minute
     * over its newest QUEUE_RATE_SAMPLE events no older than
     * QUEUE_RATE_WINDOW_MS; -1: unknown (fewer than two such events) */
    double verdicts_per_min;
    /* what a submission admitted now waits, about: the backlog ahead of it
     * (waiting + delayed) at that pace; 0 when nothing waits, -1: unknown */
    long long expected_wait_ms;
    char node[300];          /* redis-cluster://: HOST:PORT of the pool's primary; else "" */
};
#define QUEUE_RATE_SAMPLE 100
#define QUEUE_RATE_WINDOW_MS (15 * 60 * 1000LL)
enum queue_rc queue_pool_status(struct queue_conn *k, const char *pool, struct queue_pool_status *out,
                                char *err, size_t errlen);

/* A pool's history (history.c, judge:{P}:history): one sample per bucket
 * of Redis' clock, the last 24 h. queue_history_sample: judged's heartbeat
 * takes the current bucket's, unless a host did (no write then). */
#define QUEUE_HISTORY_BUCKET_MS 10000LL
/* Redis' clock in ms (stream ids are in its time); 0 when unanswered. */
long long queue_redis_now(struct queue_conn *k);
#define QUEUE_HISTORY_KEEP_MS (24 * 3600 * 1000LL)
enum queue_rc queue_history_sample(struct queue_conn *k, const char *pool, char *err, size_t errlen);
/* The samples from since_ms (ms since the epoch) on, oldest first, as a
 * JSON array (a new reference into *out) of {time (the bucket's start),
 * admitted, judged {VERDICT: n} (both since the sample before), depth,
 * oldest_ms, running, dlq, state (at the sample)}. */
struct json_t;
enum queue_rc queue_history(struct queue_conn *k, const char *pool, long long since_ms, struct json_t **out,
                            char *err, size_t errlen);

/* The judged hosts that registered (judge:hosts, written every heartbeat)
 * and whether each is alive: its liveness key judge:host:NAME (TTL 3
 * heartbeats) exists, the reaper's rule (hosts.c). A clean stop removes
 * the host; a dead one stays listed until a live host forgets it. judgectl
 * hosts, pools and health and judge-api's /v1/hosts, /v1/pools and
 * /metrics share it. */
struct queue_host_pool {
    char name[130];
    long long slots, busy;   /* as the host registered them */
};
struct queue_host {
    char *name;              /* its field in judge:hosts */
    char *registration;      /* the JSON object as the host stored it (host,
                                pid, pools, busy, slots, version, state, time) */
    long long heartbeat_ms;  /* its last registration ("time"), ms since the epoch */
    long long slots, busy;   /* of all its pools */
    struct queue_host_pool *pools;
    size_t npools;
    bool alive;
};
struct queue_hosts {
    struct queue_host *hosts;   /* by name */
    size_t n;
};
enum queue_rc queue_hosts(struct queue_conn *k, struct queue_hosts *out, char *err, size_t errlen);
void queue_hosts_free(struct queue_hosts *hs);
/* {NAME: {registration..., "alive": bool}, ...}: the hosts as judgectl hosts
 * --json and GET /v1/hosts print them (a new jansson json_t reference). */
struct json_t *queue_hosts_json(const struct queue_hosts *hs);
/* Of hosts as queue_hosts_json makes them: the slots and busy slots that
 * the live ones registered for pool; how many live hosts serve it. */
int queue_hosts_capacity(struct json_t *hosts, const char *pool, long long *slots, long long *busy);

/* What a host writes of itself (daemon/heartbeat.c), with plain commands
 * (the judged user's ACL names these keys). Every heartbeat: its
 * registration (the JSON object queue_hosts reads) into judge:hosts and as
 * its liveness key judge:host:NAME, expiring after ttl_ms. */
enum queue_rc queue_host_register(struct queue_conn *k, const char *host, const char *registration, long ttl_ms,
                                  char *err, size_t errlen);
/* A clean stop: the liveness key goes at once (the host is no longer alive). */
enum queue_rc queue_host_expire(struct queue_conn *k, const char *host, char *err, size_t errlen);
/* Removes host from judge:hosts (a clean stop, or the reaper forgetting a
 * dead host whose consumers are gone). */
enum queue_rc queue_host_forget(struct queue_conn *k, const char *host, char *err, size_t errlen);
/* Whether host reaps in this lease period: the first to take judge:reaper
 * (SET NX, expiring after lease_ms) does; *mine false otherwise. */
enum queue_rc queue_reaper_turn(struct queue_conn *k, const char *host, long lease_ms, bool *mine, char *err,
                                size_t errlen);
/* The registered hosts other than self whose liveness key is gone (each
 * asked alone; one Redis did not answer for is left out). Free the names
 * with queue_names_free. */
enum queue_rc queue_hosts_dead(struct queue_conn *k, const char *self, char ***names, size_t *n, char *err,
                               size_t errlen);
void queue_names_free(char **names, size_t n);

/* ------------------------------------------------ admin.c: plain reads */

/* Field/value pairs as Redis holds them (a stream entry, a hash), for the
 * fronts to render: kv[2i] is a field, kv[2i+1] its value. */
struct queue_fields {
    char entry[64];          /* a stream entry's id ('' for a hash) */
    char **kv;
    size_t n;                /* pairs */
};
void queue_fields_free(struct queue_fields *f);
/* The value of field name, or NULL. */
const char *queue_field(const struct queue_fields *f, const char *name);
struct queue_entries {
    struct queue_fields *e;
    size_t n;
};
void queue_entries_free(struct queue_entries *es);

/* The pool's dead letters (judge:{P}:dlq, as judged.lua's dead-letter
 * writes them: id, reason, attempts, time, history, ...), oldest first; at
 * most count (0: all). */
enum queue_rc queue_dlq_list(struct queue_conn *k, const char *pool, long count, struct queue_entries *out,
                             char *err, size_t errlen);
/* The dead letter of stream entry `entry` (*found false when there is none;
 * QUEUE_ERROR when `entry` is not an entry id at all). */
enum queue_rc queue_dlq_entry(struct queue_conn *k, const char *pool, const char *entry, struct queue_fields *out,
                              bool *found, char *err, size_t errlen);
/* The newest dead letter of submission id. */
enum queue_rc queue_dlq_find(struct queue_conn *k, const char *pool, const char *id, struct queue_fields *out,
                             bool *found, char *err, size_t errlen);
/* Removes a dead letter without requeueing it (an unknown entry: QUEUE_OK). */
enum queue_rc queue_dlq_drop(struct queue_conn *k, const char *pool, const char *entry, char *err, size_t errlen);
/* The consumer names of the pool's two groups, each once (free with
 * queue_names_free). */
enum queue_rc queue_consumers(struct queue_conn *k, const char *pool, char ***names, size_t *n, char *err,
                              size_t errlen);
/* The name of a pool's job stream (QUEUE_CONTEST or QUEUE_NORMAL), which
 * judgectl pools shows. */
void queue_stream_key(char *buf, size_t len, const char *pool, int queue);
/* The pool's metrics counters (judge:{P}:stats: verdict:NAME, the wait and
 * judging histograms' buckets and sums), as stored. */
enum queue_rc queue_stats_read(struct queue_conn *k, const char *pool, struct queue_fields *out, char *err,
                               size_t errlen);
/* The id of the newest event of the pool's results stream ("0-0" when
 * empty, and on failure): a cursor from which queue_events reads only new
 * events. */
enum queue_rc queue_events_tail(struct queue_conn *k, const char *pool, char last[64], char *err, size_t errlen);
/* Who admitted submission id ('' = judgectl or FCALL) and whether it exists. */
enum queue_rc queue_submission_owner(struct queue_conn *k, const char *id, char *owner, size_t ownerlen,
                                     bool *exists, char *err, size_t errlen);
/* A submission's state, verdict and score alone (queue_result reads all;
 * a progress stream polls this). All '' for an unknown id. */
struct queue_state {
    char state[16];          /* queued | running | done | '' */
    char verdict[16];
    double score;
};
enum queue_rc queue_submission_state(struct queue_conn *k, const char *id, struct queue_state *out, char *err,
                                     size_t errlen);
/* Up to count steps of a submission's progress (queue_progress wrote
 * them: stage, test, count, verdict) after stream entry `after`, blocking
 * up to block_ms when there are none (none after that: out->n 0). */
enum queue_rc queue_progress_read(struct queue_conn *k, const char *id, const char *after, int count,
                                  long block_ms, struct queue_entries *out, char *err, size_t errlen);
/* Does Redis answer (health checks)? */
enum queue_rc queue_ping(struct queue_conn *k, char *err, size_t errlen);
/* Does a Redis without a password answer PING on unix socket path within
 * timeout_ms? A fresh connection, no URL (the embedded redis-server's
 * start, whose socket path may hold any character). */
bool queue_ping_unix(const char *path, long timeout_ms);

/* ---------------------------------------- webhooks.c: judge-api's deliveries */

/* judge-api's durable webhook deliveries (api/webhook.c has the design):
 * its consumer group "webhooks" on each results stream, a hash and a due
 * time per delivery, a dead-letter stream of those given up. Plain
 * commands: the platform user's ACL grants exactly these. */
struct queue_webhook_event {
    int pool;                /* index into the pools the caller passed */
    char entry[64];          /* the results entry */
    char id[192];            /* its submission ('' when the event has none) */
};
/* Creates the group on pool's results stream if missing (QUEUE_IO only
 * when Redis does not answer). */
enum queue_rc queue_webhook_group(struct queue_conn *k, const char *pool, char *err, size_t errlen);
/* New events of the pools for consumer, blocking up to block_ms (free *out).
 * A lost group is made again. */
enum queue_rc queue_webhook_read(struct queue_conn *k, const char *consumer, const char *const *pools, int np,
                                 long block_ms, struct queue_webhook_event **out, size_t *n, char *err,
                                 size_t errlen);
/* Events another (dead) consumer read and has not acked for min_idle_ms. */
enum queue_rc queue_webhook_takeover(struct queue_conn *k, const char *consumer, const char *pool, int pool_index,
                                     long min_idle_ms, struct queue_webhook_event **out, size_t *n, char *err,
                                     size_t errlen);
/* Records ev's delivery when its submission has a callback, then acks it;
 * not acked when Redis did not answer (read again later). */
enum queue_rc queue_webhook_record(struct queue_conn *k, const char *pool, const struct queue_webhook_event *ev,
                                   long long now_ms, char *err, size_t errlen);
/* Up to limit deliveries of pool due by now_ms (free with queue_names_free). */
enum queue_rc queue_webhook_due(struct queue_conn *k, const char *pool, long long now_ms, int limit, char ***entries,
                                size_t *n, char *err, size_t errlen);
/* A delivery's URL and owner before it is claimed ('' when unknown). */
void queue_webhook_peek(struct queue_conn *k, const char *pool, const char *entry, char *url, size_t urllen,
                        char *owner, size_t ownerlen);
/* Claims a delivery still due by now_ms until lease_until_ms (its due time
 * pushed ahead); true when this caller got it. */
bool queue_webhook_claim(struct queue_conn *k, const char *pool, const char *entry, long long now_ms,
                         long long lease_until_ms);
struct queue_webhook {
    char id[192];            /* the submission */
    char url[2100];
    int attempts;            /* made so far */
    long long first;         /* ms of the first attempt; -1: not recorded */
};
/* A claimed delivery; false when there is none to make. */
bool queue_webhook_get(struct queue_conn *k, const char *pool, const char *entry, struct queue_webhook *out);
/* No more attempts: delivered (its hash goes too) or nothing to deliver. */
void queue_webhook_done(struct queue_conn *k, const char *pool, const char *entry, bool delivered);
/* Another attempt at due_ms, after `attempts` that failed with error. */
void queue_webhook_later(struct queue_conn *k, const char *pool, const char *entry, int attempts, const char *error,
                         long long due_ms);
/* Gives a delivery up into the webhook dead-letter stream. */
void queue_webhook_bury(struct queue_conn *k, const char *pool, const char *entry, const struct queue_webhook *w,
                        int attempts, const char *why, long long now_ms);
/* The webhook dead letters of pool (event, id, url, attempts, error, time),
 * oldest first, at most count. */
enum queue_rc queue_webhook_dlq(struct queue_conn *k, const char *pool, long count, struct queue_entries *out,
                                char *err, size_t errlen);
/* Delivers a webhook dead letter again from now_ms (a fresh retry period);
 * its submission in id. False when there is no such dead letter. */
bool queue_webhook_replay(struct queue_conn *k, const char *pool, const char *dlq_entry, long long now_ms,
                          char *id, size_t idlen);

struct queue_result {
    char state[16];          /* queued | running | done */
    char verdict[16];        /* '' until done */
    double score;
    char *report;            /* the runner's JSON report, NULL until done */
    char lang[130], problem[130], priority[16], host[256];
    char version[65];        /* problem version recorded at admission ("" = local) */
    char owner[130];         /* who admitted it ('' = judgectl or FCALL) */
    char *metadata;          /* the platform's JSON or NULL */
    int attempts;            /* judgings that failed (infrastructure) and were retried */
    bool dead;               /* done as a dead letter: no judging gave its verdict */
    long long created, started, finished;   /* ms, 0 = not yet */
};
/* *found is false for an unknown id. */
enum queue_rc queue_result(struct queue_conn *k, const char *id, struct queue_result *out,
                           bool *found, char *err, size_t errlen);
void queue_result_free(struct queue_result *r);

struct queue_event {
    char event[64];          /* the results stream entry id */
    char id[192];
    char verdict[16];
    double score;
    char pool[64];
    long long time;
    char problem_version[65];
    bool rejudge;            /* the result of a rejudge: */
    char rejudge_id[64];
    char previous_verdict[16];
    double previous_score;
};
/* Reads up to count events per pool after last[i] of each pool's results
 * stream (one XREAD of them all), blocking up to block_ms (0 = do not block)
 * when there are none; advances last[]. Events come sorted by entry id
 * (time) across pools, and none is returned while an older one may still
 * be unread: a reader that resumes from the last id it got (that one id
 * for every pool) loses nothing and repeats nothing. *more: call again
 * without blocking, COUNT left some unread. */
enum queue_rc queue_events(struct queue_conn *k, const char *const *pools, int npools,
                           char (*last)[64], int count, long block_ms, struct queue_event **out,
                           int *nout, bool *more, char *err, size_t errlen);

/* A pool's languages as platforms see them (GET /v1/languages), published
 * by each judged host at start and reload: id -> a JSON object (name,
 * source, limits), replacing what was there at once (RENAME). */
enum queue_rc queue_publish_languages(struct queue_conn *k, const char *pool, const char *const *ids,
                                      const char *const *json, int n, char *err, size_t errlen);
/* What host's compilers say they are, per language (ids[i] -> versions[i],
 * the first line of the language's `version` command): fields "ID HOST"
 * of judge:{P}:language_versions, each host its own, at start and reload. */
enum queue_rc queue_publish_language_versions(struct queue_conn *k, const char *pool, const char *host,
                                              const char *const *ids, const char *const *versions, int n,
                                              char *err, size_t errlen);
/* The same read back: *out is an object id -> object, empty when no host
 * has published (caller json_decref); each object with "versions": {HOST:
 * VERSION} of the hosts that published one (a host gone stays listed until
 * it publishes again or the key is deleted). */
enum queue_rc queue_languages(struct queue_conn *k, const char *pool, struct json_t **out, char *err,
                              size_t errlen);

/* Up to count events of pool's results stream older than the entry id
 * before ("" or NULL: from the newest), newest first: the finished
 * submissions the stream still holds (results_max), for listing. */
enum queue_rc queue_events_back(struct queue_conn *k, const char *pool, const char *before, int count,
                                struct queue_event **out, int *nout, char *err, size_t errlen);

/* What an event does not carry, from its submission: the problem, the owner
 * (the judge-api token that admitted it) and the platform's metadata (JSON,
 * or NULL). Empty once the submission has expired. One pipelined HMGET per
 * event, one round trip; out has n entries; free with
 * queue_events_about_free. */
struct queue_event_about {
    char problem[130];
    char owner[130];
    char language[130];
    char host[130];          /* the judge host that last took it */
    char *metadata;
};
enum queue_rc queue_events_about(struct queue_conn *k, const struct queue_event *ev, int n,
                                 struct queue_event_about *out, char *err, size_t errlen);
void queue_events_about_free(struct queue_event_about *about, int n);

#endif
