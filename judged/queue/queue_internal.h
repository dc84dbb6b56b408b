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
#define SUFFIX_RESULTS "results"
#define SUFFIX_STATS "stats"
#define SUFFIX_SUB "sub:"                 /* + ID: a submission's hash */
#define SUFFIX_PROGRESS "progress:"       /* + ID: its progress stream */


#endif
