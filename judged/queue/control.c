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

/* Sends a, checks the reply (a field map) and copies its field `field`
 * into out (none when field is NULL). */
static enum queue_rc call_for_field(struct queue_conn *k, struct queue_args *a, const char *what,
                                    const char *field, char *out, size_t outlen, char *err, size_t errlen)
{
    redisReply *r = queue_call(k, a);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, what, err, errlen);
    if (rc)
        return rc;
    if (field)
        snprintf(out, outlen, "%s", queue_reply_str(r, field));
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_requeue(struct queue_conn *k, const char *pool, const char *entry, char *id,
                            size_t idlen, char *err, size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_requeue", pool);
    queue_add(&a, "entry", entry);
    return call_for_field(k, &a, "requeue", "id", id, idlen, err, errlen);
}

enum queue_rc queue_set_state(struct queue_conn *k, const char *pool, const char *state, char *err,
                              size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_set_state", pool);
    queue_add(&a, "state", state);
    return call_for_field(k, &a, "set state", NULL, NULL, 0, err, errlen);
}

enum queue_rc queue_rejudge(struct queue_conn *k, const char *pool, const char *id, const char *version,
                            const char *rejudge_id, char *result, size_t resultlen, char *err, size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_rejudge", pool);
    queue_add(&a, "id", id);
    queue_add(&a, "version", version);
    queue_add(&a, "rejudge_id", rejudge_id);
    return call_for_field(k, &a, "rejudge", "result", result, resultlen, err, errlen);
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
    return call_for_field(k, &a, "cancel", "result", result, resultlen, err, errlen);
}
