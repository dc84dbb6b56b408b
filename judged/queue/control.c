/*
 * control.c - what an operator or a platform asks of a pool (queue.h,
 * "admin"): a dead letter requeued, the pool's state set, a rejudge, a
 * cancel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

/* --------------------------------------------------------------- admin */

enum queue_rc queue_requeue(struct queue_conn *k, const char *pool, const char *entry, char *id,
                            size_t idlen, char *err, size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_requeue", pool);
    queue_add(&a, "entry", entry);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "requeue", err, errlen);
    if (rc)
        return rc;
    snprintf(id, idlen, "%s", queue_reply_str(r, "id"));
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_set_state(struct queue_conn *k, const char *pool, const char *state, char *err,
                              size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_set_state", pool);
    queue_add(&a, "state", state);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "set state", err, errlen);
    if (rc == QUEUE_OK)
        freeReplyObject(r);
    return rc;
}

enum queue_rc queue_rejudge(struct queue_conn *k, const char *pool, const char *id, const char *version,
                            const char *rejudge_id, char *result, size_t resultlen, char *err, size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_rejudge", pool);
    queue_add(&a, "id", id);
    queue_add(&a, "version", version);
    queue_add(&a, "rejudge_id", rejudge_id);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "rejudge", err, errlen);
    if (rc)
        return rc;
    snprintf(result, resultlen, "%s", queue_reply_str(r, "result"));
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_cancel(struct queue_conn *k, const char *id, char *result, size_t resultlen, char *err,
                           size_t errlen)
{
    char pool[80];
    if (!queue_id_pool(id, pool, sizeof pool)) {
        snprintf(result, resultlen, "missing");
        return QUEUE_OK;
    }
    struct queue_args a;
    queue_args_start(&a, "judged_cancel", pool);
    queue_add(&a, "id", id);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "cancel", err, errlen);
    if (rc)
        return rc;
    snprintf(result, resultlen, "%s", queue_reply_str(r, "result"));
    freeReplyObject(r);
    return QUEUE_OK;
}
