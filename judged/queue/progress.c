/*
 * progress.c - a judging's progress (queue.h, "progress"): stages and
 * tests published, a test's checkpoint record read back on resume, a
 * note on an entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

/* --------------------------------------------------------------- reads */

enum queue_rc queue_progress(struct queue_conn *k, const char *pool, const char *id,
                             const char *stage, int test, int count, const char *verdict,
                             char *err, size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_progress", pool);
    queue_add(&a, "id", id);
    queue_add(&a, "stage", stage);
    queue_add_num(&a, "test", test);
    queue_add_num(&a, "count", count);
    queue_add(&a, "verdict", verdict ? verdict : "");
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, -1, "progress", err, errlen);
    if (rc == QUEUE_OK)
        freeReplyObject(r);
    return rc;
}

enum queue_rc queue_progress_test(struct queue_conn *k, const struct queue_test_done *t, char *err,
                                  size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_progress", t->pool);
    queue_add(&a, "id", t->id);
    queue_add(&a, "stage", "test");
    queue_add_num(&a, "test", t->test);
    queue_add_num(&a, "count", t->count);
    queue_add(&a, "verdict", t->verdict ? t->verdict : "");
    queue_add(&a, "host", t->host);
    if (t->record) {
        queue_add(&a, "identity", t->identity);
        queue_add(&a, "record", t->record);
    }
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, -1, "progress", err, errlen);
    if (rc == QUEUE_OK)
        freeReplyObject(r);
    return rc;
}

void queue_checkpoint_free(struct queue_checkpoint *c)
{
    for (size_t i = 0; c->records && i < c->count; i++)
        free(c->records[i]);
    free(c->records);
    free(c->identity);
    memset(c, 0, sizeof *c);
}

enum queue_rc queue_checkpoint_read(struct queue_conn *k, const char *pool, const char *id, size_t max_tests,
                                    struct queue_checkpoint *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct queue_args a;
    queue_args_start(&a, "judged_checkpoint", pool);
    queue_add(&a, "id", id);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "checkpoint", err, errlen);
    if (rc)
        return rc;
    const char *ident = queue_rstr(queue_reply_field(r, "identity"));
    out->identity = strdup(ident ? ident : "");
    /* fields t1, t2, ...: the highest sizes the array */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i + 1 < r->elements; i += 2) {
            const char *f = queue_rstr(r->element[i]), *v = queue_rstr(r->element[i + 1]);
            char *end = NULL;
            unsigned long test = f && f[0] == 't' ? strtoul(f + 1, &end, 10) : 0;
            if (test < 1 || test > max_tests || *end || !v)
                continue;
            if (pass == 0 && test > out->count)
                out->count = test;
            else if (pass == 1 && out->records && !out->records[test - 1])
                out->records[test - 1] = strdup(v);
        }
        if (pass == 0)
            out->records = calloc(out->count ? out->count : 1, sizeof *out->records);
    }
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_note(struct queue_conn *k, const char *pool, const char *host, int queue, const char *entry,
                         const char *id, const char *note, char *err, size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_note", pool);
    queue_add(&a, "host", host);
    queue_add(&a, "queue", queue_name(queue));
    queue_add(&a, "entry", entry);
    queue_add(&a, "id", id);
    queue_add(&a, "note", note);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, -1, "note", err, errlen);
    if (rc == QUEUE_OK)
        freeReplyObject(r);
    return rc;
}
