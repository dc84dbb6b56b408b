/* store_internal.h - what the files of the problem store's Redis side
 * share (store.c: files and manifests; meta.c: the library, key names,
 * reads and remove; push.c: upload, pins and commit; fetch.c). Not a
 * public header: store.h is the store's promise. */
#ifndef JUDGED_STORE_INTERNAL_H
#define JUDGED_STORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "store.h"

/* How long a blob nothing holds is kept: as long as an upload record, so
 * that a queued upload still finds its blobs. */
#define BLOB_TTL_MS ((long long)STORE_UPLOAD_TTL * 1000)
#define WINDOW 8                         /* chunks in flight */
#define META_KEY_MAX 400                 /* a metadata key: prefix + 128-byte name or version + suffix */
#define META_KEYS 8                      /* keys of judged_store_commit and _remove */

/* hex of a 32-byte digest */
void store_hex(const unsigned char *d, char out[65]);
/* STORE_IO with k's connection error in err */
int store_io_err(struct queue_conn *k, const char *what, char *err, size_t errlen);
/* FCALL of the store library, loaded on demand; NULL: STORE_IO in err.
 * An error reply loses Redis' "script: ..." tail. */
redisReply *store_fcall(struct queue_conn *k, int argc, const char **argv, const size_t *lens, char *err,
                        size_t errlen);
/* judge:blob:SHA */
void store_blob_key(char *buf, size_t len, const char *sha);
/* A metadata key: keys.h's prefix for k's kind of Redis, then fmt. */
void store_meta_key(const struct queue_conn *k, char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The keys of judged_store_commit and _remove, in store.lua's order. */
void store_meta_keys(const struct queue_conn *k, char keys[META_KEYS][META_KEY_MAX], const char *name,
                     const char *version);
/* The distinct blobs of m (a manifest sorted by path may list one content
 * twice): indexes into m->files; idx holds m->n. */
size_t store_distinct_blobs(const struct store_manifest *m, size_t *idx);
/* judged_store_blob_unpin of each distinct blob of m: token's pin ('' = a
 * reference of store.lua version 4) released, mode "drop" or "expire". */
int store_unpin_blobs(struct queue_conn *k, const struct store_manifest *m, const char *token, const char *mode,
                      char *err, size_t errlen);

#endif
