/*
 * claim.c - the claim side (queue.h, "claim side" and "leases"): jobs
 * claimed, waited for, reclaimed from a dead host, delayed retries
 * promoted; the lease of a claimed job renewed, given back and its
 * consumer reaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

static int queue_index(const char *name)
{
    return name && !strcmp(name, "contest") ? QUEUE_CONTEST : QUEUE_NORMAL;
}

/* ---------------------------------------------------------------- jobs */

void queue_job_clear(struct queue_job *j)
{
    free(j->poison);
    free(j->lang);
    free(j->problem);
    free(j->source);
    memset(j, 0, sizeof *j);
}

static void parse_job(const redisReply *e, struct queue_job *j)
{
    memset(j, 0, sizeof *j);
    j->wait_ms = -1;
    j->queue = queue_index(queue_reply_str(e, "queue"));
    snprintf(j->entry, sizeof j->entry, "%s", queue_reply_str(e, "entry"));
    snprintf(j->id, sizeof j->id, "%s", queue_reply_str(e, "id"));
    const char *poison = queue_reply_str(e, "poison");
    if (*poison) {
        j->poison = strdup(poison);
        return;
    }
    const redisReply *s = queue_reply_field(e, "source");
    if (!queue_reply_field(e, "lang") || !s || s->type != REDIS_REPLY_STRING) {
        j->poison = strdup("poison: malformed claim reply");
        return;
    }
    j->lang = strdup(queue_reply_str(e, "lang"));
    j->problem = strdup(queue_reply_str(e, "problem"));
    j->source_len = s->len;
    j->source = malloc(s->len + 1);
    memcpy(j->source, s->str, s->len);
    j->source[s->len] = 0;
    j->attempts = (int)queue_reply_int(e, "attempts");
    snprintf(j->version, sizeof j->version, "%s", queue_reply_str(e, "version"));
    j->wait_ms = queue_reply_field(e, "wait") ? queue_reply_int(e, "wait") : -1;
    /* the admission checked these names; an entry written by hand may not be */
    if (!queue_valid_name(j->problem))
        j->poison = strdup("poison: bad problem name");
    else if (!queue_valid_name(j->lang))
        j->poison = strdup("poison: bad language name");
}

static void parse_jobs(const redisReply *arr, struct queue_job **jobs, int *n)
{
    *jobs = NULL;
    *n = 0;
    if (!arr || arr->type != REDIS_REPLY_ARRAY || arr->elements == 0)
        return;
    *jobs = calloc(arr->elements, sizeof **jobs);
    for (size_t i = 0; i < arr->elements; i++)
        parse_job(arr->element[i], &(*jobs)[(*n)++]);
}

/* --------------------------------------------------------------- claim */

/* Where a claim reads each queue from; ">" (new entries), the functions'
 * default, is not sent: every argument costs Redis a conversion or two. */
void queue_claim_from(struct queue_args *a, const char *const from[2])
{
    if (from[0] && strcmp(from[0], ">"))
        queue_add(a, "contest_from", from[0]);
    if (from[1] && strcmp(from[1], ">"))
        queue_add(a, "normal_from", from[1]);
}

void queue_claim_build(struct queue_args *a, const struct queue_claim_args *in)
{
    queue_args_start(a, "judged_claim", in->pool);
    queue_add(a, "host", in->host);
    queue_add_num(a, "count", in->count);
    queue_claim_from(a, in->from);
}

enum queue_rc queue_claim_parse(struct queue_conn *k, redisReply *r, struct queue_claim_reply *out,
                                 char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "claim", err, errlen);
    if (rc)
        return rc;
    snprintf(out->state, sizeof out->state, "%s", queue_reply_str(r, "state"));
    snprintf(out->delivered[0], 64, "%s", queue_reply_str(r, "contest_delivered"));
    snprintf(out->delivered[1], 64, "%s", queue_reply_str(r, "normal_delivered"));
    snprintf(out->last[0], 64, "%s", queue_reply_str(r, "contest_last"));
    snprintf(out->last[1], 64, "%s", queue_reply_str(r, "normal_last"));
    parse_jobs(queue_reply_field(r, "jobs"), &out->jobs, &out->njobs);
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_claim(struct queue_conn *k, const struct queue_claim_args *in,
                          struct queue_claim_reply *out, char *err, size_t errlen)
{
    struct queue_args a;
    queue_claim_build(&a, in);
    return queue_claim_parse(k, queue_call(k, &a), out, err, errlen);
}

void queue_claim_reply_free(struct queue_claim_reply *r)
{
    for (int i = 0; i < r->njobs; i++)
        queue_job_clear(&r->jobs[i]);
    free(r->jobs);
    r->jobs = NULL;
    r->njobs = 0;
}

enum queue_rc queue_wait_new(struct queue_conn *k, const char *pool, char (*delivered)[64],
                             long block_ms)
{
    char kq[2][200];
    queue_key(kq[0], sizeof kq[0], pool, SUFFIX_QUEUE(QUEUE_CONTEST));
    queue_key(kq[1], sizeof kq[1], pool, SUFFIX_QUEUE(QUEUE_NORMAL));
    redisReply *r = queue_cmd(k, "XREAD COUNT 1 BLOCK %ld STREAMS %s %s %s %s", block_ms, kq[0], kq[1],
                              delivered[0], delivered[1]);
    if (!r)
        return QUEUE_IO;
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_reclaim(struct queue_conn *k, const struct queue_reclaim_args *in,
                            struct queue_reclaim_reply *out, char *err, size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_reclaim", in->pool);
    queue_add(&a, "host", in->host);
    queue_add(&a, "queue", queue_name(in->queue));
    queue_add_num(&a, "min_idle", in->min_idle_ms);
    queue_add_num(&a, "count", in->count);
    queue_add(&a, "cursor", in->cursor);
    queue_add_num(&a, "max_deliveries", in->max_deliveries);
    memset(out, 0, sizeof *out);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "reclaim", err, errlen);
    if (rc)
        return rc;
    snprintf(out->state, sizeof out->state, "%s", queue_reply_str(r, "state"));
    snprintf(out->cursor, sizeof out->cursor, "%s", *queue_reply_str(r, "cursor") ? queue_reply_str(r, "cursor") : "0-0");
    parse_jobs(queue_reply_field(r, "jobs"), &out->jobs, &out->njobs);
    for (int i = 0; i < out->njobs; i++)
        out->jobs[i].reclaimed = true;
    freeReplyObject(r);
    return QUEUE_OK;
}

void queue_reclaim_reply_free(struct queue_reclaim_reply *r)
{
    for (int i = 0; i < r->njobs; i++)
        queue_job_clear(&r->jobs[i]);
    free(r->jobs);
    r->jobs = NULL;
    r->njobs = 0;
}

enum queue_rc queue_promote(struct queue_conn *k, const char *pool, int limit, int *moved)
{
    struct queue_args a;
    char err[256];
    queue_args_start(&a, "judged_promote", pool);
    queue_add_num(&a, "limit", limit);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_INTEGER, "promote", err, sizeof err);
    if (rc)
        return rc;
    if (moved)
        *moved = (int)r->integer;
    freeReplyObject(r);
    return QUEUE_OK;
}

/* -------------------------------------------------------------- leases */

/* pool, host, [extra], then (queue, entry) pairs: argument lists of any length */
static const char **ref_argv(const char *fn, const char *pool, const char *host, const char *extra_f,
                             const char *extra_v, const struct queue_ref *refs, int n, char *key,
                             size_t keylen, int *argc)
{
    const char **v = calloc((size_t)(12 + 2 * n), sizeof *v);
    int a = 0;
    queue_key(key, keylen, pool, SUFFIX_QUEUE(QUEUE_NORMAL));
    v[a++] = "FCALL";
    v[a++] = fn;
    v[a++] = "1";
    v[a++] = key;
    v[a++] = "pool";
    v[a++] = pool;
    v[a++] = "host";
    v[a++] = host;
    if (extra_f) {
        v[a++] = extra_f;
        v[a++] = extra_v;
    }
    for (int i = 0; i < n; i++) {
        v[a++] = queue_name(refs[i].queue);
        v[a++] = refs[i].entry;
    }
    *argc = a;
    return v;
}

enum queue_rc queue_renew(struct queue_conn *k, const char *pool, const char *host,
                          const struct queue_ref *refs, int n, struct queue_renew_reply *out,
                          char *err, size_t errlen)
{
    char key[200];
    int argc;
    memset(out, 0, sizeof *out);
    const char **v = ref_argv("judged_renew", pool, host, NULL, NULL, refs, n, key, sizeof key, &argc);
    redisReply *r = queue_call_argv(k, argc, v, NULL);
    free(v);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "renew", err, errlen);
    if (rc)
        return rc;
    out->lost = calloc(r->elements + 1, sizeof *out->lost);
    for (size_t i = 0; i < r->elements; i++)
        if (queue_rstr(r->element[i]))
            snprintf(out->lost[out->nlost++], 64, "%s", queue_rstr(r->element[i]));
    freeReplyObject(r);
    return QUEUE_OK;
}

void queue_renew_reply_free(struct queue_renew_reply *r)
{
    free(r->lost);
    r->lost = NULL;
    r->nlost = 0;
}

enum queue_rc queue_give_back(struct queue_conn *k, const char *pool, const char *host, long idle_ms,
                              const struct queue_ref *refs, int n, int *given, char *err,
                              size_t errlen)
{
    char key[200], idle[32];
    int argc;
    snprintf(idle, sizeof idle, "%ld", idle_ms);
    const char **v = ref_argv("judged_give_back", pool, host, "idle", idle, refs, n, key, sizeof key,
                              &argc);
    redisReply *r = queue_call_argv(k, argc, v, NULL);
    free(v);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_INTEGER, "give back", err, errlen);
    if (rc)
        return rc;
    if (given)
        *given = (int)r->integer;
    freeReplyObject(r);
    return QUEUE_OK;
}

enum queue_rc queue_reap(struct queue_conn *k, const char *pool, const char *consumer, bool *gone,
                         char *err, size_t errlen)
{
    struct queue_args a;
    queue_args_start(&a, "judged_reap", pool);
    queue_add(&a, "consumer", consumer);
    redisReply *r = queue_call(k, &a);
    enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "reap", err, errlen);
    if (rc)
        return rc;
    *gone = !strcmp(queue_reply_str(r, "result"), "gone");
    freeReplyObject(r);
    return QUEUE_OK;
}
