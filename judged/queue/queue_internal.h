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


#endif
