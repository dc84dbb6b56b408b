/*
 * admit.c - admission: a submission into its pool (judged_admit) and a
 * pool's published limits and languages (queue.h, "admit").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

/* --------------------------------------------------------------- admit */

enum queue_rc queue_admit(struct queue_conn *k, const struct queue_admit_args *in,
                          struct queue_admit_reply *out, char *err, size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_admit", in->pool);
    queue_add(&a, "lang", in->lang);
    queue_add(&a, "problem", in->problem);
    queue_add_bin(&a, "source", in->source, in->source_len);
    if (in->key)
        queue_add(&a, "key", in->key);
    queue_add(&a, "priority", in->priority ? in->priority : "normal");
    if (in->max_queue >= 0)
        queue_add_num(&a, "max_queue", in->max_queue);
    if (in->max_source >= 0)
        queue_add_num(&a, "max_source", in->max_source);
    if (in->version)
        queue_add(&a, "version", in->version);
    if (in->owner)
        queue_add(&a, "owner", in->owner);
    if (in->hash)
        queue_add(&a, "hash", in->hash);
    if (in->callback)
        queue_add(&a, "callback", in->callback);
    if (in->metadata)
        queue_add(&a, "metadata", in->metadata);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "admission", err, errlen);
    if (rc)
        return rc;
    const char *res = queue_reply_str(r, "result");
    memset(out, 0, sizeof *out);
    if (!strcmp(res, "busy")) {
        out->result = QUEUE_BUSY;
        out->waiting = queue_reply_int(r, "waiting");
    } else if (!strcmp(res, "admitted") || !strcmp(res, "duplicate") || !strcmp(res, "conflict")) {
        out->result = !strcmp(res, "admitted")    ? QUEUE_ADMITTED
                      : !strcmp(res, "duplicate") ? QUEUE_DUPLICATE
                                                  : QUEUE_CONFLICT;
        snprintf(out->id, sizeof out->id, "%s", queue_reply_str(r, "id"));
    } else {
        snprintf(err, errlen, "admission: unexpected reply");
        rc = QUEUE_ERROR;
    }
    freeReplyObject(r);
    if (rc || in->replicas <= 0 || (out->result != QUEUE_ADMITTED && out->result != QUEUE_DUPLICATE))
        return rc;
    /* WAIT counts the replicas that acknowledged this connection's last
     * write: the admission's, or on a duplicate judged_admit's rewrite of
     * the key, which follows the original admission in the replication
     * stream, wherever that came from */
    r = queue_cmd(k, "WAIT %d %ld", in->replicas, in->wait_ms);
    rc = queue_check(k, r, REDIS_REPLY_INTEGER, "admission: WAIT", err, errlen);
    if (rc)
        return rc;
    out->replicas = (int)r->integer;
    freeReplyObject(r);
    if (out->replicas < in->replicas)
        out->result = QUEUE_NOT_DURABLE;
    return QUEUE_OK;
}

enum queue_rc queue_publish_pool(struct queue_conn *k, const char *pool, const char *const *languages,
                                 int nlanguages, long max_queue, long max_source,
                                 long idempotency_ttl_ms, char *err, size_t errlen)
{
    char langs[2048] = "";
    for (int i = 0; i < nlanguages; i++) {
        if (i)
            strncat(langs, " ", sizeof langs - strlen(langs) - 1);
        strncat(langs, languages[i], sizeof langs - strlen(langs) - 1);
    }
    struct queue_args a;
    queue_args_start(&a, "judged_publish_pool", pool);
    queue_add(&a, "languages", langs);
    queue_add_num(&a, "max_queue", max_queue);
    queue_add_num(&a, "max_source", max_source);
    queue_add_num(&a, "idempotency_ttl", idempotency_ttl_ms);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, -1, "publish pool", err, errlen);
    if (rc == QUEUE_OK)
        freeReplyObject(r);
    return rc;
}
