/*
 * call.c - how every operation of the queue library talks to judged.lua:
 * the named argument list of one FCALL, the call (loading the library when
 * Redis lost it), the field/value reply's fields, the sorting of a reply
 * into a queue_rc and the pipelined batch. Shared by the operation files
 * through queue_internal.h; nothing here is public.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

/* ----------------------------------------------------------- arguments */

void queue_args_start(struct queue_args *a, const char *fn, const char *pool)
{
    a->n = 0;
    queue_key(a->key, sizeof a->key, pool, SUFFIX_QUEUE(QUEUE_NORMAL));
    const char *head[] = {"FCALL", fn, "1", a->key, "pool", pool};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++) {
        a->v[a->n] = head[i];
        a->len[a->n++] = strlen(head[i]);
    }
}

void queue_add_bin(struct queue_args *a, const char *field, const char *val, size_t len)
{
    if (a->n + 2 > MAXARGS)
        return;
    a->v[a->n] = field;
    a->len[a->n++] = strlen(field);
    a->v[a->n] = val ? val : "";
    a->len[a->n++] = val ? len : 0;
}

void queue_add(struct queue_args *a, const char *field, const char *val)
{
    queue_add_bin(a, field, val, val ? strlen(val) : 0);
}

void queue_add_num(struct queue_args *a, const char *field, long long v)
{
    char *s = a->num[a->n];
    snprintf(s, sizeof a->num[0], "%lld", v);
    queue_add(a, field, s);
}

/* --------------------------------------------------------------- calls */

bool queue_is_missing_library(const redisReply *r)
{
    return r && r->type == REDIS_REPLY_ERROR && strstr(r->str, "Function not found");
}

redisReply *queue_call_argv(struct queue_conn *k, int argc, const char **argv, const size_t *lens)
{
    redisReply *r = queue_cmdv(k, argc, argv, lens);
    if (queue_is_missing_library(r)) {
        char err[256];
        freeReplyObject(r);
        if (queue_library_ensure(k, err, sizeof err)) {
            snprintf(k->err, sizeof k->err, "%s", err);
            return queue_cmdv(k, argc, argv, lens); /* the error reply, for the caller */
        }
        r = queue_cmdv(k, argc, argv, lens);
    }
    return r;
}

redisReply *queue_call(struct queue_conn *k, struct queue_args *a)
{
    return queue_call_argv(k, a->n, a->v, a->len);
}

/* The value of field NAME of a flat field/value reply, or NULL. */
const redisReply *queue_reply_field(const redisReply *r, const char *name)
{
    if (!r || r->type != REDIS_REPLY_ARRAY)
        return NULL;
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
        const char *f = queue_rstr(r->element[i]);
        if (f && !strcmp(f, name))
            return r->element[i + 1];
    }
    return NULL;
}

const char *queue_reply_str(const redisReply *r, const char *name)
{
    const char *s = queue_rstr(queue_reply_field(r, name));
    return s ? s : "";
}

long long queue_reply_int(const redisReply *r, const char *name)
{
    const redisReply *v = queue_reply_field(r, name);
    if (!v)
        return 0;
    if (v->type == REDIS_REPLY_INTEGER)
        return v->integer;
    return queue_rstr(v) ? atoll(queue_rstr(v)) : 0;
}

/* Sorts a reply into QUEUE_OK / QUEUE_NOGROUP / QUEUE_ERROR (with err) and
 * frees it unless it is usable. */
enum queue_rc queue_check(struct queue_conn *k, redisReply *r, int want_type, const char *what,
                           char *err, size_t errlen)
{
    if (!r) {
        queue_io_err(k, what, err, errlen);   /* a queue_finish_reply's err is 160 bytes */
        return QUEUE_IO;
    }
    if (r->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "%s: %s", what, r->str);
        enum queue_rc rc = strstr(r->str, "NOGROUP") ? QUEUE_NOGROUP : QUEUE_ERROR;
        freeReplyObject(r);
        return rc;
    }
    if (want_type >= 0 && r->type != want_type) {
        snprintf(err, errlen, "%s: unexpected reply", what);
        freeReplyObject(r);
        return QUEUE_ERROR;
    }
    return QUEUE_OK;
}

/* The replies of n commands appended to k's buffer, sent in one write. */
enum queue_rc queue_pipeline_replies(struct queue_conn *k, int n, redisReply **replies)
{
    atomic_fetch_add(&queue_round_trips, 1);
    for (int i = 0; i < n; i++) {
        if (redisGetReply(k->c, (void **)&replies[i]) != REDIS_OK) {
            for (int j = 0; j < i; j++)
                freeReplyObject(replies[j]);
            queue_conn_drop(k);
            return QUEUE_IO;
        }
    }
    for (int i = 0; i < n; i++)
        if (queue_conn_stale(k, replies[i])) {   /* READONLY, LOADING: reconnect */
            for (int j = 0; j < n; j++)
                freeReplyObject(replies[j]);
            return QUEUE_IO;
        }
    return QUEUE_OK;
}

/* Under redis-cluster://, the replies that are redirections (the pool's
 * slot moved or is moving, the cluster is changing) replaced by the same
 * command sent alone, which follows them: a batch's commands share one
 * slot, so the ones the node answered stay answered. */
static enum queue_rc pipeline_redirected(struct queue_conn *k, struct queue_args *cmds, int n,
                                         redisReply **replies)
{
    for (int i = 0; i < n; i++) {
        if (!queue_reply_redirected(replies[i]))
            continue;
        freeReplyObject(replies[i]);
        replies[i] = queue_cmdv(k, cmds[i].n, cmds[i].v, cmds[i].len);
        if (!replies[i]) {
            for (int j = 0; j < n; j++)
                if (replies[j])
                    freeReplyObject(replies[j]);
            return QUEUE_IO;
        }
    }
    return QUEUE_OK;
}

/* Sends every command of the batch in one write (to the node of the
 * first's key: a batch is one pool's) and reads the replies. */
enum queue_rc queue_pipeline(struct queue_conn *k, struct queue_args *cmds, int n, redisReply **replies)
{
    if (n > 0 && cmds[0].n > 3 ? queue_conn_route(k, cmds[0].v[3], cmds[0].len[3]) : queue_conn_ensure(k))
        return QUEUE_IO;
    for (int i = 0; i < n; i++)
        redisAppendCommandArgv(k->c, cmds[i].n, cmds[i].v, cmds[i].len);
    enum queue_rc rc = queue_pipeline_replies(k, n, replies);
    if (rc == QUEUE_OK && k->cluster)
        rc = pipeline_redirected(k, cmds, n, replies);
    return rc;
}
