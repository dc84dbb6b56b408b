/*
 * upload.c - staged uploads (store.h, "upload.c"): how a front that links no
 * runner (judge-api) gets a package validated exactly as `judgectl problem
 * check` does. The front unpacks and reads the package, sends its blobs
 * (nothing is committed: a blob no version references expires after
 * STORE_UPLOAD_TTL, as the upload record does, so a refused upload leaves
 * nothing for good, and a later push of the same file finds it) and
 * queues an upload record; a judged host, which has the sandbox to compile
 * a custom checker, takes it, fetches the files from the manifest it
 * carries (hash-verified), validates and pushes them (store_push: the same
 * atomic commit as judgectl's), or records every error. The front's
 * request waits on judge:upload:ID:done.
 * What is staged fills Redis' memory, where a full Redis refuses every
 * write (issue 40: two uploads of ~200 KB of zeros staged 500 MiB, kept a
 * week): the record keeps the bytes staged, the front bounds what one
 * token's waiting uploads stage (store_staged_by, max_staged), and a
 * refused or failed upload's blobs that no version references are deleted
 * when it settles (store_unstage).
 *
 * Plain commands, no Functions: one MULTI per state change, and the record
 * is the only thing a settled upload leaves (expiring after a week).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "keys.h"
#include "store.h"
#include "store_internal.h"

static int io(struct queue_conn *k, char *err, size_t errlen)
{
    snprintf(err, errlen, "upload: redis: %s", k->err[0] ? k->err : "connection lost");
    return STORE_IO;
}

/* EXEC's reply: 0 when the transaction ran. */
static int exec_ok(struct queue_conn *k, redisReply *r, char *err, size_t errlen)
{
    if (!r)
        return io(k, err, errlen);
    int rc = r->type == REDIS_REPLY_ARRAY ? 0 : STORE_ERR;
    if (rc)
        snprintf(err, errlen, "upload: %s", r->type == REDIS_REPLY_ERROR ? r->str : "transaction aborted");
    freeReplyObject(r);
    return rc;
}

static void discard(redisReply *r)
{
    if (r)
        freeReplyObject(r);
}

/* One command of a MULTI block: once the connection drops, nothing more is
 * sent (a reconnected context would run the rest outside the transaction,
 * which Redis discarded with the old connection). */
#define TX(k, ok, ...)                                  \
    do {                                                \
        if (ok) {                                       \
            redisReply *r_ = queue_cmd((k), __VA_ARGS__); \
            (ok) = r_ != NULL;                          \
            discard(r_);                                \
        }                                               \
    } while (0)

/* MULTI on the node of key's slot (on a Redis Cluster a MULTI, which
 * names no key, goes where the last command went: a blob's node, maybe):
 * every key of an upload's transaction is metadata, one slot. */
static void tx_begin(struct queue_conn *k, bool *ok, const char *key)
{
    *ok = queue_conn_route(k, key, strlen(key)) == 0;
    TX(k, *ok, "MULTI");
}

/* EXEC of a block whose commands were all sent. */
static int commit_tx(struct queue_conn *k, bool ok, char *err, size_t errlen)
{
    if (!ok)
        return io(k, err, errlen);
    return exec_ok(k, queue_cmd(k, "EXEC"), err, errlen);
}

void store_upload_free(struct store_upload *u)
{
    free(u->manifest);
    free(u->errors);
    u->manifest = u->errors = NULL;
}

int store_stage(struct queue_conn *k, const char *name, const char *dir, const struct store_manifest *m,
                const char *owner, char id[33], char *err, size_t errlen)
{
    if (!queue_valid_name(name)) {
        snprintf(err, errlen, "bad problem name '%s' (1-128 of A-Za-z0-9_.-, not starting with . or -)", name);
        return STORE_ERR;
    }
    if (store_random_hex(id, 16)) {
        snprintf(err, errlen, "upload: no randomness for an id");
        return STORE_ERR;
    }
    uint64_t sent = 0;
    int blobs = 0;
    int rc = store_send_blobs(k, dir, m, &sent, &blobs, err, errlen);
    if (rc)
        return rc;
    size_t mlen;
    char *man = store_manifest_text(m, &mlen);
    char created[24];
    snprintf(created, sizeof created, "%" PRId64, common_wall_ms());
    char key[META_KEY_MAX], list[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_UPLOAD "%s", id);
    store_meta_key(k, list, sizeof list, META_UPLOADS);
    bool ok = true;
    tx_begin(k, &ok, key);
    TX(k, ok, "HSET %s id %s name %s version %s manifest %b owner %s created %s staged %" PRIu64
              " state pending", key, id, name, m->version, man, mlen, owner ? owner : "", created, m->total);
    TX(k, ok, "EXPIRE %s %d", key, STORE_UPLOAD_TTL);
    TX(k, ok, "LPUSH %s %s", list, id);
    rc = commit_tx(k, ok, err, errlen);
    free(man);
    return rc;
}

static void copy_field(char *dst, size_t len, const redisReply *v)
{
    snprintf(dst, len, "%s", queue_rstr(v) ? v->str : "");
}

static void fill(struct store_upload *u, const redisReply *r)
{
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
        const char *f = queue_rstr(r->element[i]);
        const redisReply *v = r->element[i + 1];
        if (!f || !queue_rstr(v))
            continue;
        if (!strcmp(f, "id"))
            copy_field(u->id, sizeof u->id, v);
        else if (!strcmp(f, "name"))
            copy_field(u->name, sizeof u->name, v);
        else if (!strcmp(f, "version"))
            copy_field(u->version, sizeof u->version, v);
        else if (!strcmp(f, "state"))
            copy_field(u->state, sizeof u->state, v);
        else if (!strcmp(f, "owner"))
            copy_field(u->owner, sizeof u->owner, v);
        else if (!strcmp(f, "host"))
            copy_field(u->host, sizeof u->host, v);
        else if (!strcmp(f, "result"))
            copy_field(u->result, sizeof u->result, v);
        else if (!strcmp(f, "previous"))
            copy_field(u->previous, sizeof u->previous, v);
        else if (!strcmp(f, "created"))
            u->created = atoll(v->str);
        else if (!strcmp(f, "finished"))
            u->finished = atoll(v->str);
        else if (!strcmp(f, "manifest") && !u->manifest)
            u->manifest = strndup(v->str, v->len);
        else if (!strcmp(f, "errors") && !u->errors)
            u->errors = strndup(v->str, v->len);
    }
}

static bool valid_id(const char *id)
{
    size_t n = strspn(id, "0123456789abcdef");
    return n == 32 && !id[n];
}

int store_upload_get(struct queue_conn *k, const char *id, struct store_upload *u, bool *found, char *err,
                     size_t errlen)
{
    memset(u, 0, sizeof *u);
    *found = false;
    if (!valid_id(id))
        return 0;
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_UPLOAD "%s", id);
    redisReply *r = queue_cmd(k, "HGETALL %s", key);
    if (!r)
        return io(k, err, errlen);
    if (r->type == REDIS_REPLY_ARRAY && r->elements >= 2) {
        fill(u, r);
        *found = u->state[0] != 0;
    }
    freeReplyObject(r);
    return 0;
}

int store_upload_take(struct queue_conn *k, int timeout_s, const char *host, struct store_upload *u, bool *got,
                      char *err, size_t errlen)
{
    memset(u, 0, sizeof *u);
    *got = false;
    /* moved, not popped: a host that dies while validating leaves the id in
     * its own list, and gives it back when it starts again */
    char from[META_KEY_MAX], to[META_KEY_MAX], key[META_KEY_MAX];
    store_meta_key(k, from, sizeof from, META_UPLOADS);
    store_meta_key(k, to, sizeof to, META_UPLOADS_HOST "%s", host);
    redisReply *r = queue_cmd(k, "BLMOVE %s %s RIGHT LEFT %d", from, to, timeout_s < 1 ? 1 : timeout_s);
    if (!r)
        return io(k, err, errlen);
    char id[64] = "";
    if (queue_rstr(r))
        snprintf(id, sizeof id, "%s", r->str);
    freeReplyObject(r);
    if (!id[0])
        return 0;
    store_meta_key(k, key, sizeof key, META_UPLOAD "%s", id);
    discard(queue_cmd(k, "HSET %s state validating host %s", key, host));
    int rc = store_upload_get(k, id, u, got, err, errlen);
    if (rc == 0 && *got && !u->manifest) {
        store_upload_free(u);
        *got = false;   /* expired meanwhile: nothing to validate */
        discard(queue_cmd(k, "LREM %s 0 %s", to, id));
    }
    return rc;
}

/* A refused or failed upload's blobs that no version references go now
 * (read from its manifest before settle drops it); best effort: what is
 * left expires within STORE_UPLOAD_TTL as before. */
static void unstage(struct queue_conn *k, const char *id)
{
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_UPLOAD "%s", id);
    redisReply *r = queue_cmd(k, "HGET %s manifest", key);
    struct store_manifest m;
    char err[256];
    if (r && queue_rstr(r) && store_manifest_parse(r->str, r->len, NULL, &m, err, sizeof err) == 0) {
        store_unstage(k, &m, err, sizeof err);
        store_manifest_free(&m);
    }
    discard(r);
}

int store_staged_by(struct queue_conn *k, const char *owner, uint64_t *bytes, char *err, size_t errlen)
{
    *bytes = 0;
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_UPLOADS);
    redisReply *ids = queue_cmd(k, "LRANGE %s 0 -1", key);
    if (!ids)
        return io(k, err, errlen);
    int rc = 0;
    for (size_t i = 0; rc == 0 && ids->type == REDIS_REPLY_ARRAY && i < ids->elements; i++) {
        if (!queue_rstr(ids->element[i]))
            continue;
        store_meta_key(k, key, sizeof key, META_UPLOAD "%s", ids->element[i]->str);
        redisReply *h = queue_cmd(k, "HMGET %s owner staged", key);
        if (!h)
            rc = io(k, err, errlen);
        else if (h->type == REDIS_REPLY_ARRAY && h->elements == 2 && queue_rstr(h->element[0]) &&
                 !strcmp(h->element[0]->str, owner) && queue_rstr(h->element[1]))
            *bytes += strtoull(h->element[1]->str, NULL, 10);
        discard(h);
    }
    freeReplyObject(ids);
    return rc;
}

int store_upload_settle(struct queue_conn *k, const char *host, const char *id, const char *state,
                        const char *result, const char *previous, const char *errors, char *err, size_t errlen)
{
    if (strcmp(state, "stored"))
        unstage(k, id);
    char finished[24];
    snprintf(finished, sizeof finished, "%" PRId64, common_wall_ms());
    char key[META_KEY_MAX], mine[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_UPLOAD "%s", id);
    store_meta_key(k, mine, sizeof mine, META_UPLOADS_HOST "%s", host);
    bool ok = true;
    tx_begin(k, &ok, key);
    TX(k, ok, "LREM %s 0 %s", mine, id);
    TX(k, ok, "HSET %s state %s finished %s result %s previous %s errors %s", key, state, finished,
       result ? result : "", previous ? previous : "", errors ? errors : "[]");
    TX(k, ok, "HDEL %s manifest", key);   /* the store has it now, or nobody needs it */
    TX(k, ok, "EXPIRE %s %d", key, STORE_UPLOAD_TTL);
    TX(k, ok, "LPUSH %s:done 1", key);
    TX(k, ok, "EXPIRE %s:done 600", key);
    return commit_tx(k, ok, err, errlen);
}

int store_upload_release(struct queue_conn *k, const char *host, const char *id, char *err, size_t errlen)
{
    char key[META_KEY_MAX], mine[META_KEY_MAX], list[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_UPLOAD "%s", id);
    store_meta_key(k, mine, sizeof mine, META_UPLOADS_HOST "%s", host);
    store_meta_key(k, list, sizeof list, META_UPLOADS);
    bool ok = true;
    tx_begin(k, &ok, key);
    TX(k, ok, "LREM %s 0 %s", mine, id);
    TX(k, ok, "HSET %s state pending", key);
    TX(k, ok, "RPUSH %s %s", list, id);   /* the next one taken */
    return commit_tx(k, ok, err, errlen);
}

int store_upload_recover(struct queue_conn *k, const char *host, int *n, char *err, size_t errlen)
{
    *n = 0;
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_UPLOADS_HOST "%s", host);
    redisReply *r = queue_cmd(k, "LRANGE %s 0 -1", key);
    if (!r)
        return io(k, err, errlen);
    int rc = 0;
    for (size_t i = 0; rc == 0 && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++)
        if (queue_rstr(r->element[i]) && (rc = store_upload_release(k, host, r->element[i]->str, err, errlen)) == 0)
            (*n)++;
    freeReplyObject(r);
    return rc;
}

static bool settled_state(const char *s)
{
    return !strcmp(s, "stored") || !strcmp(s, "refused") || !strcmp(s, "failed");
}

int store_upload_wait(struct queue_conn *k, const char *id, long timeout_ms, bool *settled, char *err,
                      size_t errlen)
{
    *settled = false;
    int64_t deadline = common_wall_ms() + timeout_ms;
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_UPLOAD "%s", id);
    for (;;) {
        redisReply *r = queue_cmd(k, "HGET %s state", key);
        if (!r)
            return io(k, err, errlen);
        *settled = queue_rstr(r) && settled_state(r->str);
        freeReplyObject(r);
        if (*settled || common_wall_ms() >= deadline)
            return 0;
        /* woken (or a second passed): the state read next tells */
        r = queue_cmd(k, "BLPOP %s:done 1", key);
        if (!r)
            return io(k, err, errlen);
        freeReplyObject(r);
    }
}
