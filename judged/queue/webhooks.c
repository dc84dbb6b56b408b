/*
 * webhooks.c - judge-api's durable webhook deliveries in Redis (the HTTP
 * side, fair share and signing stay in api/webhook.c; the design is at the
 * top of that file). Per pool:
 *   judge:{P}:results            the consumer group "webhooks" reads it
 *   judge:{P}:webhook:ENTRY      hash: id, url, owner, attempts, first, error
 *   judge:{P}:webhook:retry      zset: ENTRY -> when it is due (ms)
 *   judge:{P}:webhook:dlq        stream: deliveries given up
 * Plain commands, not functions of judged.lua: the platform user's ACL
 * (README.md, "Roles") grants exactly these commands on these keys, and it
 * may not be granted FCALL of functions that write elsewhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

#define GROUP "webhooks"

static void wkey(char *buf, size_t len, const char *pool, const char *suffix)
{
    char s[200];
    snprintf(s, sizeof s, SUFFIX_WEBHOOK "%s", suffix);
    queue_key(buf, len, pool, s);
}

static void free_reply(redisReply *r)
{
    if (r)
        freeReplyObject(r);
}

/* ---------------------------------------------------- the results group */

enum queue_rc queue_webhook_group(struct queue_conn *k, const char *pool, char *err, size_t errlen)
{
    char key[200];
    queue_key(key, sizeof key, pool, SUFFIX_RESULTS);
    /* from 0: events published before the first judge-api started count too */
    redisReply *r = queue_cmd(k, "XGROUP CREATE %s %s 0 MKSTREAM", key, GROUP);
    if (!r) {
        snprintf(err, errlen, "redis: %s", k->err);
        return QUEUE_IO;
    }
    freeReplyObject(r);   /* BUSYGROUP: there already, as wanted */
    return QUEUE_OK;
}

/* A results entry [id, [field, value, ...]] as an event to record. */
static void event_of(const redisReply *e, int pool, struct queue_webhook_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->pool = pool;
    if (queue_rstr(e->element[0]))
        snprintf(ev->entry, sizeof ev->entry, "%s", e->element[0]->str);
    const redisReply *f = e->element[1];
    for (size_t i = 0; f && f->type == REDIS_REPLY_ARRAY && i + 1 < f->elements; i += 2)
        if (queue_rstr(f->element[i]) && !strcmp(f->element[i]->str, "id") && queue_rstr(f->element[i + 1]))
            snprintf(ev->id, sizeof ev->id, "%s", f->element[i + 1]->str);
}

/* Appends the entries of one stream's reply to *out. */
static void events_add(const redisReply *ents, int pool, struct queue_webhook_event **out, size_t *n)
{
    if (!ents || ents->type != REDIS_REPLY_ARRAY || !ents->elements)
        return;
    struct queue_webhook_event *g = realloc(*out, (*n + ents->elements) * sizeof **out);
    if (!g)
        return;   /* left pending: read again after the lease */
    *out = g;
    for (size_t e = 0; e < ents->elements; e++)
        if (ents->element[e]->type == REDIS_REPLY_ARRAY && ents->element[e]->elements == 2)
            event_of(ents->element[e], pool, &g[(*n)++]);
}

enum queue_rc queue_webhook_read(struct queue_conn *k, const char *consumer, const char *const *pools, int np,
                                 long block_ms, struct queue_webhook_event **out, size_t *n, char *err,
                                 size_t errlen)
{
    *out = NULL;
    *n = 0;
    const char **argv = calloc(2 * (size_t)np + 10, sizeof *argv);
    char(*keys)[200] = calloc((size_t)np + 1, sizeof *keys), block[32];
    if (!argv || !keys) {
        free(argv);
        free(keys);
        snprintf(err, errlen, "XREADGROUP: out of memory");
        return QUEUE_ERROR;
    }
    snprintf(block, sizeof block, "%ld", block_ms);
    int a = 0;
    const char *head[] = {"XREADGROUP", "GROUP", GROUP, consumer, "COUNT", "64", "BLOCK", block, "STREAMS"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        argv[a++] = head[i];
    for (int i = 0; i < np; i++) {
        queue_key(keys[i], sizeof keys[i], pools[i], SUFFIX_RESULTS);
        argv[a++] = keys[i];
    }
    for (int i = 0; i < np; i++)
        argv[a++] = ">";
    redisReply *r = queue_cmdv(k, a, argv, NULL);
    for (size_t s = 0; r && r->type == REDIS_REPLY_ARRAY && s < r->elements; s++) {
        const char *stream = r->element[s]->element[0]->str;
        for (int i = 0; i < np; i++)
            if (!strcmp(stream, keys[i]))
                events_add(r->element[s]->element[1], i, out, n);
    }
    /* a flushed Redis lost the group: made again, read next time */
    if (r && r->type == REDIS_REPLY_ERROR && strstr(r->str, "NOGROUP"))
        for (int i = 0; i < np; i++)
            free_reply(queue_cmd(k, "XGROUP CREATE %s %s 0 MKSTREAM", keys[i], GROUP));
    enum queue_rc rc = r && r->type != REDIS_REPLY_ERROR ? QUEUE_OK : queue_reply_done(k, r, "XREADGROUP", err, errlen);
    if (rc == QUEUE_OK && r)
        freeReplyObject(r);
    free(argv);
    free(keys);
    return rc;
}

enum queue_rc queue_webhook_takeover(struct queue_conn *k, const char *consumer, const char *pool, int pool_index,
                                     long min_idle_ms, struct queue_webhook_event **out, size_t *n, char *err,
                                     size_t errlen)
{
    char key[200];
    *out = NULL;
    *n = 0;
    queue_key(key, sizeof key, pool, SUFFIX_RESULTS);
    redisReply *r = queue_cmd(k, "XAUTOCLAIM %s %s %s %ld 0-0 COUNT 64", key, GROUP, consumer, min_idle_ms);
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements >= 2)
        events_add(r->element[1], pool_index, out, n);   /* deleted entries come as nil: skipped */
    enum queue_rc rc = r && r->type != REDIS_REPLY_ERROR ? QUEUE_OK : queue_reply_done(k, r, "XAUTOCLAIM", err, errlen);
    if (rc == QUEUE_OK && r)
        freeReplyObject(r);
    return rc;
}

/* Records the delivery of ev (when its submission has a callback) before
 * acking it: an event acked unrecorded would be lost with its process. */
enum queue_rc queue_webhook_record(struct queue_conn *k, const char *pool, const struct queue_webhook_event *ev,
                                   long long now_ms, char *err, size_t errlen)
{
    char kres[200], ks[400], kh[200], kr[200], t[32], sub[260];
    queue_key(kres, sizeof kres, pool, SUFFIX_RESULTS);
    if (ev->id[0]) {
        snprintf(sub, sizeof sub, SUFFIX_SUB "%s", ev->id);
        queue_key(ks, sizeof ks, pool, sub);
        redisReply *cb = queue_cmd(k, "HMGET %s callback owner", ks);
        if (!cb)
            return queue_reply_done(k, cb, "HMGET", err, errlen);   /* stays pending, read again later */
        if (cb->type == REDIS_REPLY_ARRAY && cb->elements == 2 && queue_rstr(cb->element[0]) &&
            *cb->element[0]->str) {
            const char *owner = queue_rstr(cb->element[1]) ? cb->element[1]->str : "";
            wkey(kh, sizeof kh, pool, ev->entry);
            wkey(kr, sizeof kr, pool, "retry");
            snprintf(t, sizeof t, "%lld", now_ms);
            free_reply(queue_cmd(k, "HSET %s id %s url %s owner %s attempts 0 first %s", kh, ev->id,
                                 cb->element[0]->str, owner, t));
            free_reply(queue_cmd(k, "ZADD %s NX %s %s", kr, t, ev->entry));
        }
        freeReplyObject(cb);
    }
    return queue_reply_done(k, queue_cmd(k, "XACK %s %s %s", kres, GROUP, ev->entry), "XACK", err, errlen);
}

/* ------------------------------------------------------------ deliveries */

enum queue_rc queue_webhook_due(struct queue_conn *k, const char *pool, long long now_ms, int limit, char ***entries,
                                size_t *n, char *err, size_t errlen)
{
    char kr[200];
    *entries = NULL;
    *n = 0;
    wkey(kr, sizeof kr, pool, "retry");
    redisReply *r = queue_cmd(k, "ZRANGEBYSCORE %s -inf %lld LIMIT 0 %d", kr, now_ms, limit);
    if (!r || r->type != REDIS_REPLY_ARRAY)
        return queue_reply_done(k, r, "ZRANGEBYSCORE", err, errlen);   /* not an array: nothing due */
    *entries = calloc(r->elements + 1, sizeof **entries);
    for (size_t i = 0; *entries && i < r->elements; i++)
        if (queue_rstr(r->element[i]) && ((*entries)[*n] = strdup(r->element[i]->str)))
            (*n)++;
    freeReplyObject(r);
    return QUEUE_OK;
}

void queue_webhook_peek(struct queue_conn *k, const char *pool, const char *entry, char *url, size_t urllen,
                        char *owner, size_t ownerlen)
{
    char kh[200];
    url[0] = owner[0] = 0;
    wkey(kh, sizeof kh, pool, entry);
    redisReply *h = queue_cmd(k, "HMGET %s url owner", kh);
    if (h && h->type == REDIS_REPLY_ARRAY && h->elements == 2) {
        if (queue_rstr(h->element[0]))
            snprintf(url, urllen, "%s", h->element[0]->str);
        if (queue_rstr(h->element[1]))
            snprintf(owner, ownerlen, "%s", h->element[1]->str);
    }
    free_reply(h);
}

bool queue_webhook_claim(struct queue_conn *k, const char *pool, const char *entry, long long now_ms,
                         long long lease_until_ms)
{
    char kr[200];
    wkey(kr, sizeof kr, pool, "retry");
    /* still due? The caller's list may be stale: another worker may have
     * delivered it meanwhile and set its next try */
    redisReply *sc = queue_cmd(k, "ZSCORE %s %s", kr, entry);
    bool due = sc && queue_rstr(sc) && atoll(sc->str) <= now_ms;
    free_reply(sc);
    if (!due)
        return false;
    redisReply *c = queue_cmd(k, "ZADD %s XX GT CH %lld %s", kr, lease_until_ms, entry);
    bool mine = c && c->type == REDIS_REPLY_INTEGER && c->integer == 1;
    free_reply(c);
    return mine;
}

bool queue_webhook_get(struct queue_conn *k, const char *pool, const char *entry, struct queue_webhook *out)
{
    char kh[200];
    memset(out, 0, sizeof *out);
    wkey(kh, sizeof kh, pool, entry);
    redisReply *h = queue_cmd(k, "HMGET %s id url attempts first", kh);
    bool ok = h && h->type == REDIS_REPLY_ARRAY && h->elements == 4 && queue_rstr(h->element[0]) &&
              queue_rstr(h->element[1]);
    if (ok) {
        snprintf(out->id, sizeof out->id, "%s", h->element[0]->str);
        snprintf(out->url, sizeof out->url, "%s", h->element[1]->str);
        out->attempts = queue_rstr(h->element[2]) ? atoi(h->element[2]->str) : 0;
        out->first = queue_rstr(h->element[3]) ? atoll(h->element[3]->str) : -1;
    }
    free_reply(h);
    return ok;
}

void queue_webhook_done(struct queue_conn *k, const char *pool, const char *entry, bool delivered)
{
    char kh[200], kr[200];
    wkey(kh, sizeof kh, pool, entry);
    wkey(kr, sizeof kr, pool, "retry");
    free_reply(queue_cmd(k, "ZREM %s %s", kr, entry));
    if (delivered)
        free_reply(queue_cmd(k, "DEL %s", kh));
}

void queue_webhook_later(struct queue_conn *k, const char *pool, const char *entry, int attempts, const char *error,
                         long long due_ms)
{
    char kh[200], kr[200];
    wkey(kh, sizeof kh, pool, entry);
    wkey(kr, sizeof kr, pool, "retry");
    free_reply(queue_cmd(k, "HSET %s attempts %d error %s", kh, attempts, error));
    free_reply(queue_cmd(k, "ZADD %s XX %lld %s", kr, due_ms, entry));
}

void queue_webhook_bury(struct queue_conn *k, const char *pool, const char *entry, const struct queue_webhook *w,
                        int attempts, const char *why, long long now_ms)
{
    char kd[200], kh[200], kr[200];
    wkey(kd, sizeof kd, pool, "dlq");
    wkey(kh, sizeof kh, pool, entry);
    wkey(kr, sizeof kr, pool, "retry");
    free_reply(queue_cmd(k, "XADD %s * event %s id %s url %s attempts %d error %s time %lld", kd, entry, w->id,
                         w->url, attempts, why, now_ms));
    free_reply(queue_cmd(k, "ZREM %s %s", kr, entry));
    free_reply(queue_cmd(k, "DEL %s", kh));
}

/* ------------------------------------------------------------ dead ones */

enum queue_rc queue_webhook_dlq(struct queue_conn *k, const char *pool, long count, struct queue_entries *out,
                                char *err, size_t errlen)
{
    char kd[200];
    memset(out, 0, sizeof *out);
    wkey(kd, sizeof kd, pool, "dlq");
    redisReply *x = queue_cmd(k, "XRANGE %s - + COUNT %ld", kd, count);
    if (!x || x->type != REDIS_REPLY_ARRAY)
        return queue_reply_done(k, x, "XRANGE", err, errlen);   /* not an array: no dead letters */
    enum queue_rc rc = queue_entries_parse(x, out, "XRANGE", err, errlen);
    freeReplyObject(x);
    return rc;
}

bool queue_webhook_replay(struct queue_conn *k, const char *pool, const char *dlq_entry, long long now_ms,
                          char *id, size_t idlen)
{
    char kd[200], kh[200], kr[200];
    struct queue_entries es;
    char err[256];
    wkey(kd, sizeof kd, pool, "dlq");
    redisReply *x = queue_cmd(k, "XRANGE %s %s %s", kd, dlq_entry, dlq_entry);
    bool one = x && x->type == REDIS_REPLY_ARRAY && x->elements == 1 && !queue_entries_parse(x, &es, "", err, sizeof err);
    free_reply(x);
    if (!one)
        return false;
    const char *ev = queue_field(&es.e[0], "event"), *sid = queue_field(&es.e[0], "id"),
               *url = queue_field(&es.e[0], "url");
    bool found = ev && sid && url;
    if (found) {
        snprintf(id, idlen, "%s", sid);
        wkey(kh, sizeof kh, pool, ev);
        wkey(kr, sizeof kr, pool, "retry");
        free_reply(queue_cmd(k, "HSET %s id %s url %s attempts 0 first %lld", kh, sid, url, now_ms));
        free_reply(queue_cmd(k, "ZADD %s %lld %s", kr, now_ms, ev));
        free_reply(queue_cmd(k, "XDEL %s %s", kd, dlq_entry));
    }
    queue_entries_free(&es);
    return found;
}
