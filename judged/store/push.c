/*
 * push.c - a push into the problem store (store.h): the blobs Redis lacks
 * uploaded (each to a staging key of its own, then made whole by
 * judged_store_blob_put), each blob pinned with this push's token
 * (judged_store_blob_pin), then the metadata committed in one function
 * (judged_store_commit). Every call touches one blob or the metadata only,
 * so each goes to one slot's node on a Redis Cluster. A push whose commit
 * did not record its token (the version was stored already, or the commit
 * was refused) releases its pins: its blobs are then held by the version
 * that holds them, or expire as an upload no version took.
 * Also store_unstage, which drops what a refused upload left.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "keys.h"
#include "store.h"
#include "store_internal.h"

/* Blobs looked at per pipeline: on a Redis Cluster each blob lives on the
 * node of its own slot, so one at a time there. */
static size_t blobs_per_pipeline(const struct queue_conn *k, size_t all)
{
    return queue_url_is_cluster(k->url) ? 1 : all;
}

/* Pipelines `HEXISTS blob size` for blobs [at, at+n); need[i] true where
 * missing. A blob found, which this push will not send again, gets a full
 * BLOB_TTL_MS again if it was expiring (GT leaves a pinned, persistent
 * blob as it is): it cannot expire between this look and its pin. */
static int missing_batch(struct queue_conn *k, const struct store_manifest *m, const size_t *idx, size_t at,
                         size_t n, bool *need, char *err, size_t errlen)
{
    char key[100];
    store_blob_key(key, sizeof key, m->files[idx[at]].sha);
    if (queue_conn_route(k, key, strlen(key)))
        return store_io_err(k, "store", err, errlen);
    for (size_t i = at; i < at + n; i++) {
        store_blob_key(key, sizeof key, m->files[idx[i]].sha);
        redisAppendCommand(k->c, "HEXISTS %s size", key);
        redisAppendCommand(k->c, "PEXPIRE %s %lld GT", key, BLOB_TTL_MS);
    }
    for (size_t i = 0; i < 2 * n; i++) {
        redisReply *r = NULL;
        if (redisGetReply(k->c, (void **)&r) != REDIS_OK || !r) {
            queue_conn_drop(k);
            return store_io_err(k, "store", err, errlen);
        }
        /* anything but 1 (an error too: a slot that moved) sends the blob,
         * whose blob_put follows the cluster */
        if (i % 2 == 0)
            need[at + i / 2] = !(r->type == REDIS_REPLY_INTEGER && r->integer == 1);
        freeReplyObject(r);
    }
    return 0;
}

static int missing_blobs(struct queue_conn *k, const struct store_manifest *m, const size_t *idx, size_t n,
                         bool *need, char *err, size_t errlen)
{
    size_t batch = blobs_per_pipeline(k, n);
    for (size_t at = 0; at < n; at += batch) {
        int rc = missing_batch(k, m, idx, at, n - at < batch ? n - at : batch, need, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

/* Reads `want` replies of a pipeline; any error reply is an error. */
static int drain(struct queue_conn *k, int want, char *err, size_t errlen)
{
    int rc = 0;
    for (int i = 0; i < want; i++) {
        redisReply *r = NULL;
        if (redisGetReply(k->c, (void **)&r) != REDIS_OK || !r) {
            queue_conn_drop(k);
            return store_io_err(k, "store", err, errlen);
        }
        if (queue_conn_stale(k, r)) {   /* READONLY, LOADING: the rest of the replies went with it */
            freeReplyObject(r);
            return store_io_err(k, "store", err, errlen);
        }
        if (r->type == REDIS_REPLY_ERROR && !rc) {
            snprintf(err, errlen, "store: %s", r->str);
            rc = STORE_ERR;
        }
        freeReplyObject(r);
    }
    return rc;
}

/* An FCALL whose reply is a status or string: 0, STORE_IO, or STORE_ERR
 * with the error reply in err. */
static int fcall_ok(struct queue_conn *k, int argc, const char **argv, char *err, size_t errlen)
{
    size_t lens[16];
    for (int i = 0; i < argc; i++)
        lens[i] = strlen(argv[i]);
    redisReply *r = store_fcall(k, argc, argv, lens, err, errlen);
    if (!r)
        return STORE_IO;
    int rc = 0;
    if (r->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "%s", r->str);
        rc = STORE_ERR;
    }
    freeReplyObject(r);
    return rc;
}

/* judged_store_blob_put: the staged copy becomes blob `key`. */
static int blob_put(struct queue_conn *k, const char *part, const char *key, long chunks, uint64_t size,
                    char *err, size_t errlen)
{
    char n[24], sz[24], ttl[24];
    snprintf(n, sizeof n, "%ld", chunks);
    snprintf(sz, sizeof sz, "%" PRIu64, size);
    snprintf(ttl, sizeof ttl, "%lld", BLOB_TTL_MS);
    const char *argv[] = {"FCALL", "judged_store_blob_put", "2", part, key, n, sz, ttl};
    return fcall_ok(k, 8, argv, err, errlen);
}

/* judged_store_blob_pin of each distinct blob (idx[0..n)) with token; on
 * a failure the pins taken are released again. */
static int pin_blobs(struct queue_conn *k, const struct store_manifest *m, const size_t *idx, size_t n,
                     const char *token, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        const struct store_file *f = &m->files[idx[i]];
        char key[100], sz[24];
        store_blob_key(key, sizeof key, f->sha);
        snprintf(sz, sizeof sz, "%" PRIu64, f->size);
        const char *argv[] = {"FCALL", "judged_store_blob_pin", "1", key, token, sz};
        int rc = fcall_ok(k, 6, argv, err, errlen);
        if (rc) {
            char e2[256];
            store_unpin_blobs(k, m, token, "expire", e2, sizeof e2);
            return rc;
        }
    }
    return 0;
}

int store_unpin_blobs(struct queue_conn *k, const struct store_manifest *m, const char *token, const char *mode,
                      char *err, size_t errlen)
{
    size_t *idx = calloc(m->n + 1, sizeof *idx);
    size_t n = store_distinct_blobs(m, idx);
    char ttl[24];
    snprintf(ttl, sizeof ttl, "%lld", BLOB_TTL_MS);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char key[100];
        store_blob_key(key, sizeof key, m->files[idx[i]].sha);
        const char *argv[] = {"FCALL", "judged_store_blob_unpin", "1", key, token, mode, ttl};
        int one = fcall_ok(k, 7, argv, err, errlen);
        if (one && !rc)
            rc = one;
        if (one == STORE_IO)
            break;   /* the rest would fail alike */
    }
    free(idx);
    return rc;
}

/* Keys per judged_store_unstage call: a package of 100,000 files is many
 * short calls, not one that holds Redis (one key per call on a cluster). */
#define UNSTAGE_BATCH 1000

int store_unstage(struct queue_conn *k, const struct store_manifest *m, char *err, size_t errlen)
{
    /* FCALL judged_store_unstage N key...; a blob listed twice is looked
     * at twice (the second finds nothing) */
    size_t batch = blobs_per_pipeline(k, UNSTAGE_BATCH);
    for (size_t at = 0; at < m->n; at += batch) {
        size_t n = m->n - at < batch ? m->n - at : batch;
        const char *argv[UNSTAGE_BATCH + 3];
        size_t lens[UNSTAGE_BATCH + 3];
        char (*key)[80] = calloc(n, sizeof *key), nkeys[24];
        if (!key) {
            snprintf(err, errlen, "unstage: out of memory");
            return STORE_ERR;
        }
        snprintf(nkeys, sizeof nkeys, "%zu", n);
        argv[0] = "FCALL", argv[1] = "judged_store_unstage", argv[2] = nkeys;
        for (size_t i = 0; i < n; i++) {
            store_blob_key(key[i], sizeof key[i], m->files[at + i].sha);
            argv[3 + i] = key[i];
        }
        for (size_t i = 0; i < n + 3; i++)
            lens[i] = strlen(argv[i]);
        redisReply *r = store_fcall(k, (int)n + 3, argv, lens, err, errlen);
        int rc = !r ? STORE_IO : r->type == REDIS_REPLY_ERROR ? STORE_ERR : STORE_OK;
        if (r && rc)
            snprintf(err, errlen, "%s", r->str);
        if (r)
            freeReplyObject(r);
        free(key);
        if (rc)
            return rc;
    }
    return STORE_OK;
}

/* One file on its way into a staging key (upload_blob). */
struct upload {
    struct queue_conn *k;
    const struct store_file *f;
    const char *part;        /* the staging key */
    EVP_MD_CTX *md;          /* SHA-256 of what was sent */
    uint64_t total;          /* bytes sent */
    long chunk;              /* chunks sent */
    int inflight;            /* replies not read yet */
};

/* Reads fd to its end, each chunk an HSET into the staging key, with at
 * most WINDOW replies outstanding. */
static int send_chunks(struct upload *u, int fd, char *err, size_t errlen)
{
    char *buf = malloc(STORE_CHUNK);
    int rc = 0;
    for (;;) {
        size_t got = 0;
        ssize_t r = 0;
        while (got < STORE_CHUNK && (r = read(fd, buf + got, STORE_CHUNK - got)) > 0)
            got += (size_t)r;
        if (r < 0) {
            snprintf(err, errlen, "%s: %s", u->f->path, strerror(errno));
            rc = STORE_ERR;
            break;
        }
        if (got == 0 && u->chunk > 0)
            break;
        EVP_DigestUpdate(u->md, buf, got);
        u->total += got;
        char field[32];
        snprintf(field, sizeof field, "c%ld", u->chunk++);
        redisAppendCommand(u->k->c, "HSET %s %s %b", u->part, field, buf, got);
        if (u->chunk == 1) {   /* the key exists now: a push that dies leaves it to expire */
            redisAppendCommand(u->k->c, "PEXPIRE %s %lld", u->part, BLOB_TTL_MS);
            u->inflight++;
        }
        if (++u->inflight >= WINDOW) {
            if ((rc = drain(u->k, u->inflight, err, errlen)))
                break;
            u->inflight = 0;
        }
        if (got < STORE_CHUNK)
            break;
    }
    free(buf);
    return rc;
}

/* After send_chunks (rc its result): what was sent must be the file the
 * manifest names (else the staging key, ours alone, goes), and every reply
 * is read. */
static int settle_upload(struct upload *u, int rc, char *err, size_t errlen)
{
    unsigned char d[32];
    unsigned dn = 0;
    char sha[65] = "";
    EVP_DigestFinal_ex(u->md, d, &dn);
    store_hex(d, sha);
    bool whole = rc == 0 && u->total == u->f->size && !strcmp(sha, u->f->sha);
    if (rc == 0 && !whole) {
        snprintf(err, errlen, "%s changed while it was being pushed", u->f->path);
        rc = STORE_ERR;
    }
    if (!whole && u->k->c) {
        redisAppendCommand(u->k->c, "DEL %s", u->part);
        u->inflight++;
    }
    if (u->k->c) {
        char e2[256];
        int drc = drain(u->k, u->inflight, e2, sizeof e2);
        if (drc && !rc) {
            snprintf(err, errlen, "%s", e2);
            rc = drc;
        }
    } else if (!rc) {
        rc = store_io_err(u->k, "store", err, errlen);
    }
    return rc;
}

/* Sends one file as blob f->sha, chunk by chunk, hashing what it sends.
 * The chunks go to a staging key of this push's own (judge:part:{judge:
 * blob:SHA}:TOKEN, in the blob's slot, expiring like a blob nothing holds): another push of the same
 * content, or one that died half-way, never mixes its chunks with ours,
 * and a blob is whole or absent. */
static int upload_blob(struct queue_conn *k, const char *dir, const struct store_file *f, char *err,
                       size_t errlen)
{
    char path[4400], key[100], part[140], token[17];
    snprintf(path, sizeof path, "%s/%s", dir, f->path);
    store_blob_key(key, sizeof key, f->sha);
    if (store_random_hex(token, 8)) {
        snprintf(err, errlen, "store: getrandom: %s", strerror(errno));
        return STORE_ERR;
    }
    snprintf(part, sizeof part, KEY_BLOB_PART, f->sha, token);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", f->path, strerror(errno));
        return STORE_ERR;
    }
    if (queue_conn_route(k, part, strlen(part))) {   /* the blob's node: the chunks go there */
        close(fd);
        return store_io_err(k, "store", err, errlen);
    }
    struct upload u = {.k = k, .f = f, .part = part, .md = EVP_MD_CTX_new()};
    EVP_DigestInit_ex(u.md, EVP_sha256(), NULL);
    int rc = send_chunks(&u, fd, err, errlen);
    close(fd);
    rc = settle_upload(&u, rc, err, errlen);
    EVP_MD_CTX_free(u.md);
    /* complete: only now does the blob count as stored */
    if (rc == 0)
        rc = blob_put(k, part, key, u.chunk, u.total, err, errlen);
    return rc;
}

/* judged_store_commit: the metadata, one slot. */
static int commit(struct queue_conn *k, const char *name, const struct store_manifest *m, const size_t *idx,
                  size_t n, uint64_t quota, const char *token, const char *summary, struct store_push_reply *out,
                  char *err, size_t errlen)
{
    size_t mlen;
    char *man = store_manifest_text(m, &mlen);
    size_t argc = 3 + META_KEYS + 6 + 2 * n;
    const char **argv = calloc(argc, sizeof *argv);
    size_t *lens = calloc(argc, sizeof *lens);
    char keys[META_KEYS][META_KEY_MAX];
    char (*sizes)[24] = calloc(n + 1, 24);
    char nk[24], q[24];
    store_meta_keys(k, keys, name, m->version);
    snprintf(nk, sizeof nk, "%d", META_KEYS);
    snprintf(q, sizeof q, "%" PRIu64, quota);
    size_t a = 0;
    argv[a++] = "FCALL";
    argv[a++] = "judged_store_commit";
    argv[a++] = nk;
    for (size_t i = 0; i < META_KEYS; i++)
        argv[a++] = keys[i];
    argv[a++] = name;
    argv[a++] = m->version;
    lens[a] = mlen;
    argv[a++] = man;
    argv[a++] = q;
    argv[a++] = token;
    argv[a++] = summary ? summary : "";
    for (size_t i = 0; i < n; i++) {
        snprintf(sizes[i], 24, "%" PRIu64, m->files[idx[i]].size);
        argv[a++] = m->files[idx[i]].sha;
        argv[a++] = sizes[i];
    }
    for (size_t i = 0; i < a; i++)
        if (!lens[i])
            lens[i] = strlen(argv[i]);
    redisReply *r = store_fcall(k, (int)a, argv, lens, err, errlen);
    int rc = 0;
    if (!r) {
        rc = STORE_IO;
    } else if (r->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "%s", r->str);
        rc = STORE_ERR;
    } else if (r->type != REDIS_REPLY_ARRAY || r->elements != 4 || !queue_rstr(r->element[1])) {
        snprintf(err, errlen, "store commit: unexpected reply");
        rc = STORE_ERR;
    } else {
        const char *res = queue_rstr(r->element[1]);
        out->result = !strcmp(res, "new") ? STORE_PUSH_NEW
                      : !strcmp(res, "current") ? STORE_PUSH_CURRENT : STORE_PUSH_REVIVED;
        snprintf(out->previous, sizeof out->previous, "%s", queue_rstr(r->element[3]) ? queue_rstr(r->element[3]) : "");
    }
    if (r)
        freeReplyObject(r);
    free(man);
    free(argv);
    free(lens);
    free(sizes);
    return rc;
}

int store_send_blobs(struct queue_conn *k, const char *dir, const struct store_manifest *m, uint64_t *uploaded,
                     int *new_blobs, char *err, size_t errlen)
{
    size_t *idx = calloc(m->n + 1, sizeof *idx);
    size_t n = store_distinct_blobs(m, idx);
    bool *need = calloc(n + 1, sizeof *need);
    int rc = missing_blobs(k, m, idx, n, need, err, errlen);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (!need[i])
            continue;
        rc = upload_blob(k, dir, &m->files[idx[i]], err, errlen);
        *uploaded += m->files[idx[i]].size;
        (*new_blobs)++;
    }
    free(idx);
    free(need);
    return rc;
}

/* Pins, then commits; the pins stay only when the commit recorded them (a
 * new version). */
static int pin_and_commit(struct queue_conn *k, const char *name, const struct store_manifest *m,
                          uint64_t quota, const char *summary, struct store_push_reply *out, char *err,
                          size_t errlen)
{
    char token[33];
    if (store_random_hex(token, 16)) {
        snprintf(err, errlen, "store: getrandom: %s", strerror(errno));
        return STORE_ERR;
    }
    size_t *idx = calloc(m->n + 1, sizeof *idx);
    size_t n = store_distinct_blobs(m, idx);
    int rc = pin_blobs(k, m, idx, n, token, err, errlen);
    if (rc == 0) {
        rc = commit(k, name, m, idx, n, quota, token, summary, out, err, errlen);
        /* STORE_IO: the commit may have happened; the pins stay (bytes
         * kept rather than a version whose blobs could go) */
        if (rc == STORE_ERR || (rc == 0 && out->result != STORE_PUSH_NEW)) {
            char e2[256];
            store_unpin_blobs(k, m, token, "expire", e2, sizeof e2);
        }
    }
    free(idx);
    return rc;
}

int store_push(struct queue_conn *k, const char *name, const char *dir, const struct store_manifest *m,
               uint64_t quota, const char *summary, struct store_push_reply *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    snprintf(out->version, sizeof out->version, "%s", m->version);
    if (!queue_valid_name(name)) {
        snprintf(err, errlen, "bad problem name '%s' (1-128 of A-Za-z0-9_.-, not starting with . or -)", name);
        return STORE_ERR;
    }
    int rc = store_send_blobs(k, dir, m, &out->uploaded, &out->new_blobs, err, errlen);
    if (rc == 0)
        rc = pin_and_commit(k, name, m, quota, summary, out, err, errlen);
    return rc;
}
