/*
 * outcome.c - a job's end (queue.h, "outcomes"): its verdict written
 * (alone or with the next claim in one call), a retry scheduled, a dead
 * letter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

/* ------------------------------------------------------------ outcomes */

static void finish_args(struct queue_args *a, const struct queue_finish_args *in)
{
    queue_args_start(a, "judged_finish", in->pool);
    queue_add(a, "host", in->host);
    queue_add(a, "queue", queue_name(in->queue));
    queue_add(a, "entry", in->entry);
    queue_add(a, "id", in->id);
    queue_add(a, "verdict", in->verdict);
    char *s = a->num[a->n];
    snprintf(s, sizeof a->num[0], "%g", in->score);
    queue_add(a, "score", s);
    queue_add(a, "report", in->report ? in->report : "{}");
    queue_add_num(a, "results_max", in->results_max);
    if (in->retention_ms > 0)
        queue_add_num(a, "retention", in->retention_ms);
    if (in->checkpointed)
        queue_add(a, "ckpt", "1");
}

static void finish_parse(struct queue_conn *k, redisReply *r, struct queue_finish_reply *out)
{
    memset(out, 0, sizeof *out);
    out->rc = queue_check(k, r, REDIS_REPLY_ARRAY, "finish", out->err, sizeof out->err);
    if (out->rc)
        return;
    const char *res = queue_reply_str(r, "result");
    out->result = !strcmp(res, "published")      ? QUEUE_FINISH_PUBLISHED
                  : !strcmp(res, "already_done") ? QUEUE_FINISH_ALREADY_DONE
                                                 : QUEUE_FINISH_LOST;
    freeReplyObject(r);
}

enum queue_rc queue_finish(struct queue_conn *k, const struct queue_finish_args *in,
                           struct queue_finish_reply *out, char *err, size_t errlen)
{
    struct queue_args a;
    finish_args(&a, in);
    finish_parse(k, queue_call(k, &a), out);
    if (out->rc)
        snprintf(err, errlen, "%s", out->err);
    return out->rc;
}

/* One finish and the claim after it: judged_finish_claim, one function
 * call. Its reply holds the two replies; each is taken out of it and parsed
 * as if it had come alone. */
static enum queue_rc finish_claim(struct queue_conn *k, const struct queue_finish_args *fin,
                                  struct queue_finish_reply *fout, const struct queue_claim_args *claim,
                                  struct queue_claim_reply *cout, enum queue_rc *claim_rc, char *err,
                                  size_t errlen)
{
    struct queue_args a;
    finish_args(&a, fin);
    a.v[1] = "judged_finish_claim";
    a.len[1] = strlen(a.v[1]);
    queue_add_num(&a, "count", claim->count);
    queue_claim_from(&a, claim->from);
    redisReply *r = queue_call(k, &a);
    if (!r) {
        snprintf(err, errlen, "redis: %s", k->err);
        return QUEUE_IO;
    }
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 4) {   /* an error: it is both answers */
        memset(cout, 0, sizeof *cout);
        finish_parse(k, r, fout);   /* frees r */
        snprintf(err, errlen, "%s", fout->err);
        *claim_rc = fout->rc ? fout->rc : QUEUE_ERROR;
        return QUEUE_OK;
    }
    redisReply *f = r->element[1], *c = r->element[3];
    r->element[1] = r->element[3] = NULL;
    freeReplyObject(r);
    finish_parse(k, f, fout);
    *claim_rc = queue_claim_parse(k, c, cout, err, errlen);
    return QUEUE_OK;
}

enum queue_rc queue_finish_then_claim(struct queue_conn *k, const struct queue_finish_args *fin,
                                      int n, struct queue_finish_reply *fout,
                                      const struct queue_claim_args *claim,
                                      struct queue_claim_reply *cout, enum queue_rc *claim_rc,
                                      char *err, size_t errlen)
{
    if (n == 1 && claim)
        return finish_claim(k, fin, fout, claim, cout, claim_rc, err, errlen);
    int total = n + (claim ? 1 : 0);
    struct queue_args *cmds = calloc((size_t)total + 1, sizeof *cmds);
    redisReply **rep = calloc((size_t)total + 1, sizeof *rep);
    for (int i = 0; i < n; i++)
        finish_args(&cmds[i], &fin[i]);
    if (claim)
        queue_claim_build(&cmds[n], claim);
    enum queue_rc rc = queue_pipeline(k, cmds, total, rep);
    if (rc == QUEUE_OK && total > 0 && queue_is_missing_library(rep[0])) {
        /* all of the batch failed alike: load the library, send it again */
        for (int i = 0; i < total; i++)
            freeReplyObject(rep[i]);
        rc = queue_library_ensure(k, err, errlen) ? QUEUE_ERROR : queue_pipeline(k, cmds, total, rep);
    }
    if (rc == QUEUE_OK) {
        for (int i = 0; i < n; i++)
            finish_parse(k, rep[i], &fout[i]);
        if (claim)
            *claim_rc = queue_claim_parse(k, rep[n], cout, err, errlen);
    } else if (rc == QUEUE_IO) {
        snprintf(err, errlen, "redis: %s", k->err);
    }
    free(cmds);
    free(rep);
    return rc;
}

enum queue_rc queue_retry(struct queue_conn *k, const struct queue_retry_args *in,
                          struct queue_retry_reply *out, char *err, size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_retry", in->pool);
    queue_add(&a, "host", in->host);
    queue_add(&a, "queue", queue_name(in->queue));
    queue_add(&a, "entry", in->entry);
    queue_add(&a, "id", in->id);
    queue_add(&a, "reason", in->reason);
    queue_add_num(&a, "max_attempts", in->max_attempts);
    queue_add_num(&a, "delay", in->delay_ms);
    queue_add_num(&a, "results_max", in->results_max);
    queue_add_num(&a, "retention", in->retention_ms);
    queue_add_num(&a, "dlq_retention", in->dlq_retention_ms);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "retry", err, errlen);
    if (rc)
        return rc;
    const char *res = queue_reply_str(r, "result");
    out->result = !strcmp(res, "scheduled") ? QUEUE_RETRY_SCHEDULED
                  : !strcmp(res, "dead")    ? QUEUE_RETRY_DEAD
                                            : QUEUE_RETRY_LOST;
    out->attempts = (int)queue_reply_int(r, "attempts");
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_dead_letter(struct queue_conn *k, const struct queue_dead_args *in, bool *dead,
                                char *err, size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_dead_letter", in->pool);
    queue_add(&a, "host", in->host);
    queue_add(&a, "queue", queue_name(in->queue));
    queue_add(&a, "entry", in->entry);
    queue_add(&a, "id", in->id ? in->id : "");
    queue_add(&a, "reason", in->reason);
    queue_add_num(&a, "results_max", in->results_max);
    queue_add_num(&a, "retention", in->retention_ms);
    queue_add_num(&a, "dlq_retention", in->dlq_retention_ms);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "dead letter", err, errlen);
    if (rc)
        return rc;
    *dead = !strcmp(queue_reply_str(r, "result"), "dead");
    freeReplyObject(r);
    return QUEUE_OK;
}
