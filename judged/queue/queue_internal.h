/* queue_internal.h - shared between the files of the queue library only. */
#ifndef JUDGED_QUEUE_INTERNAL_H
#define JUDGED_QUEUE_INTERNAL_H

#include "queue.h"

/* The key names of the queue library's plain commands, spelled once (the
 * Lua library spells its own; the store its own, store.h). A pool's keys
 * are judge:{POOL}:SUFFIX (queue_key), every suffix below. */
#define KEY_HOSTS "judge:hosts"          /* hash: host -> its registration */
#define KEY_HOST "judge:host:"           /* + NAME: its liveness key */
#define KEY_REAPER "judge:reaper"        /* whose turn it is to reap */
#define SUFFIX_QUEUE(q) ((q) == QUEUE_CONTEST ? "q:contest" : "q:normal")
#define SUFFIX_DLQ "dlq"
#define SUFFIX_STATE "state"              /* active | draining | paused */
#define SUFFIX_DELAYED "delayed"          /* zset: retries by due time */
#define SUFFIX_REJUDGE "rejudge"          /* list: rejudges waiting */
#define SUFFIX_RESULTS "results"
#define SUFFIX_STATS "stats"
#define SUFFIX_SEQ "seq"                  /* admissions so far (judged.lua INCRs it for the id) */
#define SUFFIX_HISTORY "history"          /* stream: a sample per 10 s bucket (history.c) */
#define SUFFIX_LANGUAGES "languages"      /* hash: language id -> what platforms see (JSON) */
#define SUFFIX_LANGUAGE_VERSIONS "language_versions"   /* hash: "ID HOST" -> the compiler's version */
#define SUFFIX_SUB "sub:"                 /* + ID: a submission's hash */
#define SUFFIX_RES "res:"                 /* + ID: its result (verdict...), judged's to write */
#define SUFFIX_PROGRESS "progress:"       /* + ID: its progress stream */
#define SUFFIX_WEBHOOK "webhook:"         /* + ENTRY, retry, dlq: judge-api's deliveries */

/* A reply that only needs to be there, freed: QUEUE_OK; QUEUE_IO (NULL,
 * err "WHAT: redis: ...") or QUEUE_ERROR (an error reply, err "WHAT: ..."). */
enum queue_rc queue_reply_done(struct queue_conn *k, redisReply *r, const char *what, char *err, size_t errlen);

/* The entries of an XRANGE/XREVRANGE reply (r stays the caller's). */
enum queue_rc queue_entries_parse(const redisReply *r, struct queue_entries *out, const char *what, char *err,
                                  size_t errlen);

/* --------------------------------------- the cluster (cluster.c, conn.c) */

#include <stdarg.h>

#define QUEUE_CLUSTER_SEEDS 16   /* the most HOST:PORT of a redis-cluster:// URL */

/* The HOST:PORT seeds of a valid redis-cluster:// URL (0 for another). */
int queue_url_seeds(const char *url, char (*seeds)[300], int max);
/* A new connection to HOST:PORT, authenticated with the URL's credentials
 * (conn.c's rules); NULL with k->err. */
redisContext *queue_node_connect(struct queue_conn *k, const char *host, int port);
/* queue_conn_ensure under redis-cluster://: the map known (read again
 * when stale), every primary's libraries checked when the primaries
 * changed, k->c a connection to the current node. -1 with k->err. */
int queue_cluster_ensure(struct queue_conn *k);
/* One command on its key's node, MOVED/ASK/TRYAGAIN followed. */
redisReply *queue_cluster_cmdv(struct queue_conn *k, int argc, const char **argv, const size_t *lens);
redisReply *queue_cluster_cmdf(struct queue_conn *k, const char *fmt, va_list ap);
/* k->c was freed (lost, or stale): the node forgets it, the map is read again. */
void queue_cluster_lost(struct queue_conn *k);
void queue_cluster_free(struct queue_conn *k);
/* A MOVED, ASK, TRYAGAIN or CLUSTERDOWN reply: sent alone again, the
 * command follows it (queue_cmdv). */
bool queue_reply_redirected(const redisReply *r);

/* ---------------------------------------------------------- calls (call.c) */

#define MAXARGS 40   /* the most words of one call */

/* A named argument list: FCALL FN 1 judge:{POOL}:q:normal field value ... */
struct queue_args {
    const char *v[MAXARGS];
    size_t len[MAXARGS];
    char num[MAXARGS][32];   /* storage for formatted numbers */
    char key[200];
    int n;
};

/* Starts a named argument list for function fn of judged.lua, keyed by
 * pool's normal queue (the slot of the pool's {POOL} tag). */
void queue_args_start(struct queue_args *a, const char *fn, const char *pool);
/* Adds field and its value (NULL: empty); past MAXARGS, nothing. */
void queue_add(struct queue_args *a, const char *field, const char *val);
void queue_add_bin(struct queue_args *a, const char *field, const char *val, size_t len);
void queue_add_num(struct queue_args *a, const char *field, long long v);

/* "Function not found": the library is missing from this Redis. */
bool queue_is_missing_library(const redisReply *r);
/* The reply of one call (the library loaded again and the call repeated
 * once when it was missing); NULL on I/O trouble (k->err). */
redisReply *queue_call_argv(struct queue_conn *k, int argc, const char **argv, const size_t *lens);
redisReply *queue_call(struct queue_conn *k, struct queue_args *a);

/* The value of field NAME of a flat field/value reply: the reply (NULL),
 * its string ("" when absent) or its number (0). */
const redisReply *queue_reply_field(const redisReply *r, const char *name);
const char *queue_reply_str(const redisReply *r, const char *name);
long long queue_reply_int(const redisReply *r, const char *name);

/* Sorts a reply into QUEUE_OK (kept for the caller) / QUEUE_IO /
 * QUEUE_NOGROUP / QUEUE_ERROR (err set, the reply freed); want_type -1:
 * any type but an error. */
enum queue_rc queue_check(struct queue_conn *k, redisReply *r, int want_type, const char *what,
                          char *err, size_t errlen);

/* The replies of n commands already appended to k's buffer / of the n
 * argument lists cmds, sent in one write; QUEUE_IO (all freed) when the
 * connection failed or went stale. */
enum queue_rc queue_pipeline_replies(struct queue_conn *k, int n, redisReply **replies);
enum queue_rc queue_pipeline(struct queue_conn *k, struct queue_args *cmds, int n, redisReply **replies);

/* ------------------------------------------------- claims (claim.c) */

/* The arguments of judged_claim, and its reply parsed (r freed); shared
 * with outcome.c's finish-then-claim. */
void queue_claim_build(struct queue_args *a, const struct queue_claim_args *in);
/* Adds the claim's read positions, when they are not ">" (the default). */
void queue_claim_from(struct queue_args *a, const char *const from[2]);
enum queue_rc queue_claim_parse(struct queue_conn *k, redisReply *r, struct queue_claim_reply *out,
                                char *err, size_t errlen);

#endif
