/*
 * meta.c - the problem store's metadata in Redis (store.h): the store
 * library (store.lua) and how it is called, the key names (keys.h: one
 * slot, {store}, on a Redis Cluster; the names of old on one Redis), the
 * reads (current version, list, manifests, versions, summaries, the hosts'
 * directory, bytes), remove, and the verify claim.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keys.h"
#include "store.h"
#include "store_internal.h"

extern const char store_library_lua[];   /* store.lua, embedded */
extern const int store_library_version;   /* its VERSION line (embed.cmake) */

/* -------------------------------------------------------------- redis */

int store_io_err(struct queue_conn *k, const char *what, char *err, size_t errlen)
{
    queue_io_err(k, what, err, errlen);
    return STORE_IO;
}

static const struct queue_library store_library = {
    .lua = store_library_lua,
    .version = &store_library_version,
    .file = "store.lua",
    .title = "the judged_store library",
    .version_fn = "judged_store_version",
};

/* FCALL with the library loaded on demand (queue.h's one loader). */
redisReply *store_fcall(struct queue_conn *k, int argc, const char **argv, const size_t *lens, char *err,
                        size_t errlen)
{
    redisReply *r = queue_fcall(k, &store_library, argc, argv, lens, err, errlen);
    if (!r && !k->c) {
        store_io_err(k, "store", err, errlen);   /* a refused load keeps its own words */
    } else if (r && r->type == REDIS_REPLY_ERROR) {
        char *tail = strstr(r->str, " script: ");   /* Redis appends where in the Lua it failed */
        if (tail)
            *tail = 0;
    }
    return r;
}

void store_blob_key(char *buf, size_t len, const char *sha)
{
    snprintf(buf, len, KEY_BLOB "%s", sha);
}

void store_meta_key(const struct queue_conn *k, char *buf, size_t len, const char *fmt, ...)
{
    const char *prefix = queue_url_is_cluster(k->url) ? KEY_META_CLUSTER : KEY_META_SINGLE;
    int n = snprintf(buf, len, "%s", prefix);
    if (n < 0 || (size_t)n >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, len - (size_t)n, fmt, ap);
    va_end(ap);
}

void store_meta_keys(const struct queue_conn *k, char keys[META_KEYS][META_KEY_MAX], const char *name,
                     const char *version)
{
    store_meta_key(k, keys[0], META_KEY_MAX, META_PROBLEM "%s", name);
    store_meta_key(k, keys[1], META_KEY_MAX, META_PROBLEM "%s:versions", name);
    store_meta_key(k, keys[2], META_KEY_MAX, META_MANIFEST "%s", version);
    store_meta_key(k, keys[3], META_KEY_MAX, META_VERSION "%s:names", version);
    store_meta_key(k, keys[4], META_KEY_MAX, META_PROBLEMS);
    store_meta_key(k, keys[5], META_KEY_MAX, META_STORE_BYTES);
    store_meta_key(k, keys[6], META_KEY_MAX, META_STORE_REFS);
    store_meta_key(k, keys[7], META_KEY_MAX, META_STORE_PINS);
}

size_t store_distinct_blobs(const struct store_manifest *m, size_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++) {
        bool seen = false;
        for (size_t j = 0; j < n && !seen; j++)
            seen = !strcmp(m->files[idx[j]].sha, m->files[i].sha);
        if (!seen)
            idx[n++] = i;
    }
    return n;
}

/* ---------------------------------------------------------------- reads */

int store_current(struct queue_conn *k, const char *name, char version[65], bool *found, char *err,
                  size_t errlen)
{
    version[0] = 0;
    *found = false;
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_PROBLEM "%s", name);
    redisReply *r = queue_cmd(k, "HGET %s current", key);
    if (!r)
        return store_io_err(k, "store", err, errlen);
    int rc = 0;
    if (r->type == REDIS_REPLY_STRING && store_valid_version(r->str)) {
        memcpy(version, r->str, 65);
        *found = true;
    } else if (r->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "store: %s", r->str);
        rc = STORE_ERR;
    }
    freeReplyObject(r);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int store_list(struct queue_conn *k, char ***names, size_t *n, char *err, size_t errlen)
{
    *names = NULL;
    *n = 0;
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_PROBLEMS);
    redisReply *r = queue_cmd(k, "SMEMBERS %s", key);
    if (!r)
        return store_io_err(k, "store", err, errlen);
    if (r->type != REDIS_REPLY_ARRAY) {
        snprintf(err, errlen, "store: unexpected reply to SMEMBERS");
        freeReplyObject(r);
        return STORE_ERR;
    }
    *names = calloc(r->elements + 1, sizeof **names);
    for (size_t i = 0; i < r->elements; i++)
        if (queue_rstr(r->element[i]))
            (*names)[(*n)++] = strdup(r->element[i]->str);
    freeReplyObject(r);
    qsort(*names, *n, sizeof **names, cmp_str);
    return 0;
}

int store_get_manifest(struct queue_conn *k, const char *version, struct store_manifest *m, char *err,
                       size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (!store_valid_version(version)) {
        snprintf(err, errlen, "'%s' is not a version (64 hex digits)", version);
        return STORE_ERR;
    }
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_MANIFEST "%s", version);
    redisReply *r = queue_cmd(k, "GET %s", key);
    if (!r)
        return store_io_err(k, "store", err, errlen);
    int rc;
    if (r->type != REDIS_REPLY_STRING) {
        snprintf(err, errlen, "version %s is not in the store", version);
        rc = STORE_ERR;
    } else {
        rc = store_manifest_parse(r->str, r->len, version, m, err, errlen) ? STORE_ERR : 0;
    }
    freeReplyObject(r);
    return rc;
}

void store_problem_info_free(struct store_problem_info *p)
{
    free(p->versions);
    free(p->summary);
    memset(p, 0, sizeof *p);
}

json_t *store_versions_json(const struct store_problem_info *p)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < p->nversions; i++) {
        const struct store_version_info *v = &p->versions[i];
        json_array_append_new(arr, json_pack("{s:s, s:I, s:b, s:I, s:I}", "version", v->version, "time",
                                             (json_int_t)v->time, "current", v->current, "size",
                                             (json_int_t)v->size, "files", (json_int_t)v->files));
    }
    return arr;
}

json_t *store_files_json(const struct store_manifest *m)
{
    json_t *files = json_array();
    for (size_t i = 0; files && i < m->n; i++)
        json_array_append_new(files, json_pack("{s:s, s:I, s:s}", "path", m->files[i].path, "size",
                                               (json_int_t)m->files[i].size, "sha256", m->files[i].sha));
    return files;
}

json_t *store_summary_json(const char *text)
{
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;
    if (json_is_object(j))
        return j;
    json_decref(j);
    return json_null();
}

int store_summary(struct queue_conn *k, const char *name, const char *version, char **json, char *err,
                  size_t errlen)
{
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_PROBLEM "%s", name);
    redisReply *r = queue_cmd(k, "HGET %s " FIELD_SUMMARY "%s", key, version);
    *json = NULL;
    if (!r)
        return store_io_err(k, "store", err, errlen);
    *json = queue_rstr(r) ? strdup(r->str) : NULL;
    freeReplyObject(r);
    return 0;
}

int store_info(struct queue_conn *k, const char *name, struct store_problem_info *out, bool *found,
               char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    *found = false;
    snprintf(out->name, sizeof out->name, "%s", name);
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_PROBLEM "%s", name);
    redisReply *r = queue_cmd(k, "HMGET %s current updated", key);
    if (!r)
        return store_io_err(k, "store", err, errlen);
    if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 || !queue_rstr(r->element[0])) {
        freeReplyObject(r);
        return 0;
    }
    *found = true;
    snprintf(out->current, sizeof out->current, "%s", r->element[0]->str);
    out->updated = queue_rstr(r->element[1]) ? atoll(r->element[1]->str) : 0;
    freeReplyObject(r);
    int rc = store_summary(k, name, out->current, &out->summary, err, errlen);
    if (rc)
        return rc;
    r = queue_cmd(k, "ZREVRANGE %s:versions 0 -1 WITHSCORES", key);
    if (!r)
        return store_io_err(k, "store", err, errlen);
    if (r->type == REDIS_REPLY_ARRAY) {
        out->versions = calloc(r->elements / 2 + 1, sizeof *out->versions);
        for (size_t i = 0; i + 1 < r->elements; i += 2) {
            struct store_version_info *v = &out->versions[out->nversions++];
            snprintf(v->version, sizeof v->version, "%s", queue_rstr(r->element[i]) ? r->element[i]->str : "");
            v->time = queue_rstr(r->element[i + 1]) ? atoll(r->element[i + 1]->str) : 0;
            v->current = !strcmp(v->version, out->current);
        }
    }
    freeReplyObject(r);
    for (size_t i = 0; i < out->nversions; i++) {
        struct store_manifest m;
        if (store_get_manifest(k, out->versions[i].version, &m, err, errlen) == 0) {
            out->versions[i].size = m.total;
            out->versions[i].files = m.n;
            store_manifest_free(&m);
        }
    }
    return 0;
}

/* 0 for a reply that is not an error (freed), else STORE_IO / STORE_ERR. */
static int reply_ok(struct queue_conn *k, redisReply *r, const char *what, char *err, size_t errlen)
{
    if (!r)
        return store_io_err(k, what, err, errlen);
    int rc = 0;
    if (r->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "%s: %s", what, r->str);
        rc = STORE_ERR;
    }
    freeReplyObject(r);
    return rc;
}

int store_publish_directory(struct queue_conn *k, const char *const *names, const char *const *summaries,
                            size_t n, char *err, size_t errlen)
{
    char key[META_KEY_MAX], fresh[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_DIRECTORY);
    if (n == 0)
        return reply_ok(k, queue_cmd(k, "DEL %s", key), "DEL", err, errlen);
    /* :new shares the directory's slot on a cluster ({store}): RENAME runs */
    store_meta_key(k, fresh, sizeof fresh, META_DIRECTORY ":new");
    int rc = reply_ok(k, queue_cmd(k, "DEL %s", fresh), "DEL", err, errlen);
    const char **argv = calloc(2 * n + 2, sizeof *argv);
    argv[0] = "HSET";
    argv[1] = fresh;
    for (size_t i = 0; i < n; i++)
        argv[2 + 2 * i] = names[i], argv[3 + 2 * i] = summaries[i];
    if (rc == 0)
        rc = reply_ok(k, queue_cmdv(k, (int)(2 * n + 2), argv, NULL), "HSET", err, errlen);
    free(argv);
    if (rc == 0)   /* readers see the old set or the new one, never half */
        rc = reply_ok(k, queue_cmd(k, "RENAME %s %s", fresh, key), "RENAME", err, errlen);
    return rc;
}

int store_directory(struct queue_conn *k, json_t **out, char *err, size_t errlen)
{
    *out = json_object();
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_DIRECTORY);
    redisReply *r = queue_cmd(k, "HGETALL %s", key);
    if (!r)
        return store_io_err(k, "store", err, errlen);
    for (size_t i = 0; r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2) {
        const char *name = queue_rstr(r->element[i]), *text = queue_rstr(r->element[i + 1]);
        json_t *o = text ? json_loads(text, 0, NULL) : NULL;
        if (name && json_is_object(o))
            json_object_set_new(*out, name, o);
        else
            json_decref(o);
    }
    freeReplyObject(r);
    return 0;
}

int store_bytes(struct queue_conn *k, uint64_t *bytes, char *err, size_t errlen)
{
    char key[META_KEY_MAX];
    store_meta_key(k, key, sizeof key, META_STORE_BYTES);
    redisReply *r = queue_cmd(k, "GET %s", key);
    if (!r)
        return store_io_err(k, "store", err, errlen);
    *bytes = queue_rstr(r) ? strtoull(r->str, NULL, 10) : 0;
    freeReplyObject(r);
    return 0;
}

/* judged_store_remove on the metadata; *release and token: which pins of
 * the version's blobs to release (the version is gone for good). */
static int remove_meta(struct queue_conn *k, const char *name, const struct store_manifest *m, bool *release,
                       char token[65], char *err, size_t errlen)
{
    size_t *idx = calloc(m->n + 1, sizeof *idx);
    size_t n = store_distinct_blobs(m, idx);
    char keys[META_KEYS][META_KEY_MAX], nk[24];
    char (*sizes)[24] = calloc(n + 1, 24);
    const char **argv = calloc(3 + META_KEYS + 2 + 2 * n, sizeof *argv);
    store_meta_keys(k, keys, name, m->version);
    snprintf(nk, sizeof nk, "%d", META_KEYS);
    size_t a = 0;
    argv[a++] = "FCALL";
    argv[a++] = "judged_store_remove";
    argv[a++] = nk;
    for (size_t i = 0; i < META_KEYS; i++)
        argv[a++] = keys[i];
    argv[a++] = name;
    argv[a++] = m->version;
    for (size_t i = 0; i < n; i++) {
        snprintf(sizes[i], 24, "%" PRIu64, m->files[idx[i]].size);
        argv[a++] = m->files[idx[i]].sha;
        argv[a++] = sizes[i];
    }
    redisReply *r = store_fcall(k, (int)a, argv, NULL, err, errlen);
    int rc = 0;
    if (!r) {
        rc = STORE_IO;
    } else if (r->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "%s", r->str);
        rc = STORE_ERR;
    } else if (r->type != REDIS_REPLY_ARRAY || r->elements != 8 || r->element[5]->type != REDIS_REPLY_INTEGER) {
        snprintf(err, errlen, "store remove: unexpected reply");
        rc = STORE_ERR;
    } else {
        *release = r->element[5]->integer == 1;
        snprintf(token, 65, "%s", queue_rstr(r->element[7]) ? r->element[7]->str : "");
    }
    if (r)
        freeReplyObject(r);
    free(argv);
    free(sizes);
    free(idx);
    return rc;
}

int store_remove(struct queue_conn *k, const char *name, const char *version, char *err, size_t errlen)
{
    struct store_manifest m;
    int rc = store_get_manifest(k, version, &m, err, errlen);
    if (rc)
        return rc;
    bool release = false;
    char token[65] = "";
    rc = remove_meta(k, name, &m, &release, token, err, errlen);
    /* the version is gone: its blobs that nothing else holds go now (a
     * failure here leaves them held: bytes kept, nothing listed lost) */
    if (rc == 0 && release)
        rc = store_unpin_blobs(k, &m, token, "drop", err, errlen);
    store_manifest_free(&m);
    return rc;
}


int store_verify_claim(struct queue_conn *k, const char *name, const char *version, const char *id,
                       const char *expected, char holder[33], char *err, size_t errlen)
{
    char key[400], ttl[24];
    snprintf(key, sizeof key, KEY_VERIFY_RUNNING "%s:%s", name, version);
    snprintf(ttl, sizeof ttl, "%d", STORE_UPLOAD_TTL);
    const char *argv[] = {"FCALL", "judged_store_verify_claim", "1", key, id, expected, ttl};
    size_t lens[7];
    for (int i = 0; i < 7; i++)
        lens[i] = strlen(argv[i]);
    redisReply *r = store_fcall(k, 7, argv, lens, err, errlen);
    if (!r)
        return STORE_IO;
    int rc = 0;
    if (r->type == REDIS_REPLY_ERROR || !queue_rstr(r)) {
        snprintf(err, errlen, "%s", r->type == REDIS_REPLY_ERROR ? r->str : "verify claim: unexpected reply");
        rc = STORE_ERR;
    } else {
        snprintf(holder, 33, "%s", r->str);
    }
    freeReplyObject(r);
    return rc;
}
