/*
 * fetch.c - a stored version written into a directory (store.h): each
 * blob read by its own key (on a Redis Cluster from the node of that
 * blob's slot), chunk by chunk, pipelined WINDOW at a time, hashed as it
 * arrives and checked against the manifest; the directory is renamed into
 * place only when every file is whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "store.h"
#include "store_internal.h"

static int mkdirs_for(const char *root, const char *rel)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        if (mkdir(path, 0755) && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return 0;
}

/* Fetches one blob into path, checking size and sha256 against f. */
static int fetch_blob(struct queue_conn *k, const struct store_file *f, const char *path, char *err,
                      size_t errlen)
{
    char key[100];
    store_blob_key(key, sizeof key, f->sha);
    redisReply *r = queue_cmd(k, "HMGET %s n size", key);
    if (!r)
        return store_io_err(k, "fetch", err, errlen);
    long n = -1;
    if (r->type == REDIS_REPLY_ARRAY && r->elements == 2 && queue_rstr(r->element[0]) && queue_rstr(r->element[1]))
        n = atol(r->element[0]->str);
    freeReplyObject(r);
    if (n < 0) {
        snprintf(err, errlen, "%s: blob %s is missing from the store", f->path, f->sha);
        return STORE_ERR;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return STORE_ERR;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    uint64_t total = 0;
    int rc = 0;
    for (long c = 0; rc == 0 && c < n; c += WINDOW) {
        long w = n - c < WINDOW ? n - c : WINDOW;
        if (queue_conn_route(k, key, strlen(key))) {   /* the blob's node */
            rc = store_io_err(k, "fetch", err, errlen);
            break;
        }
        for (long i = 0; i < w; i++)
            redisAppendCommand(k->c, "HGET %s c%ld", key, c + i);
        for (long i = 0; i < w; i++) {
            redisReply *cr = NULL;
            if (redisGetReply(k->c, (void **)&cr) != REDIS_OK || !cr) {
                queue_conn_drop(k);
                rc = store_io_err(k, "fetch", err, errlen);
                break;
            }
            if (rc == 0 && cr->type != REDIS_REPLY_STRING) {
                snprintf(err, errlen, "%s: chunk %ld of blob %s is missing", f->path, c + i, f->sha);
                rc = STORE_ERR;
            } else if (rc == 0) {
                EVP_DigestUpdate(ctx, cr->str, cr->len);
                total += cr->len;
                for (size_t off = 0; off < cr->len && rc == 0;) {
                    ssize_t wr = write(fd, cr->str + off, cr->len - off);
                    if (wr < 0 && errno == EINTR)
                        continue;
                    if (wr <= 0) {
                        snprintf(err, errlen, "%s: %s", path, strerror(errno));
                        rc = STORE_ERR;
                    } else {
                        off += (size_t)wr;
                    }
                }
            }
            freeReplyObject(cr);
        }
    }
    unsigned char d[32];
    unsigned dn = 0;
    char sha[65] = "";
    EVP_DigestFinal_ex(ctx, d, &dn);
    EVP_MD_CTX_free(ctx);
    store_hex(d, sha);
    if (close(fd) && rc == 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        rc = STORE_ERR;
    }
    if (rc == 0 && (total != f->size || strcmp(sha, f->sha))) {
        snprintf(err, errlen, "%s: blob %s in the store is corrupt (%" PRIu64 " bytes, sha256 %s)", f->path,
                 f->sha, total, sha);
        rc = STORE_ERR;
    }
    return rc;
}

int store_fetch(struct queue_conn *k, const char *version, const char *tmp_dir, const char *final_dir,
                uint64_t *bytes, char *err, size_t errlen)
{
    struct store_manifest m;
    int rc = store_get_manifest(k, version, &m, err, errlen);
    if (rc)
        return rc;
    rc = store_fetch_manifest(k, &m, tmp_dir, final_dir, bytes, err, errlen);
    store_manifest_free(&m);
    return rc;
}

int store_fetch_manifest(struct queue_conn *k, const struct store_manifest *mp, const char *tmp_dir,
                         const char *final_dir, uint64_t *bytes, char *err, size_t errlen)
{
    const struct store_manifest m = *mp;
    int rc = 0;
    if (mkdir(tmp_dir, 0755)) {
        snprintf(err, errlen, "%s: %s", tmp_dir, strerror(errno));
        return STORE_ERR;
    }
    for (size_t i = 0; rc == 0 && i < m.n; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", tmp_dir, m.files[i].path);
        if (mkdirs_for(tmp_dir, m.files[i].path)) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            rc = STORE_ERR;
        } else {
            rc = fetch_blob(k, &m.files[i], path, err, errlen);
        }
    }
    if (rc == 0 && rename(tmp_dir, final_dir)) {
        snprintf(err, errlen, "rename %s -> %s: %s", tmp_dir, final_dir, strerror(errno));
        rc = STORE_ERR;
    }
    if (rc)
        store_remove_tree(tmp_dir);
    else if (bytes)
        *bytes = m.total;
    return rc;
}
