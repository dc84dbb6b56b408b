/*
 * store.c - the problem store (store.h): content-addressed packages in Redis.
 *
 * Theory of operation.
 *
 * A package is a set of regular files under relative paths. Its manifest is
 * one line per file, sorted by path (byte order): "SHA256 SIZE PATH\n"; its
 * version is the sha256 of that text. Equal content therefore means an
 * equal version, whoever pushes it and under whatever name.
 *
 * Push = upload, then commit. Upload sends only blobs Redis lacks (a blob is
 * complete once its field `size` is set, which is written after its chunks),
 * re-hashing each file while it is sent, so a file changed since the
 * manifest was made is refused instead of stored under a wrong name. Commit
 * is one Redis function (store.lua): it checks every blob, the quota and
 * makes the version current, atomically: a reader sees the old version or
 * the new one, never a mixture. Reference counts are per version (a blob
 * listed by two versions has refs 2), so removing a version frees exactly
 * the blobs nothing else lists.
 *
 * Fetch writes a version into a fresh temporary directory, hashing every
 * chunk as it arrives and comparing size and sha256 with the manifest
 * (itself checked against the version), and only then renames the
 * directory into place: a reader of the final path never sees a partial
 * or corrupt copy. Blobs travel in 1 MiB chunks, pipelined 8 at a time
 * (one round trip per 8 MiB, bounded memory).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "keys.h"
#include "common.h"
#include "store.h"

extern const char store_library_lua[];   /* store.lua, embedded */
extern const int store_library_version;   /* its VERSION line (embed.cmake) */
/* How long a blob no version references is kept: as long as an upload
 * record, so that a queued upload still finds its blobs. */
#define BLOB_TTL_MS ((long long)STORE_UPLOAD_TTL * 1000)
#define WINDOW 8                         /* chunks in flight */

/* ------------------------------------------------------------- hashing */

static void hex_n(const unsigned char *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void hex(const unsigned char *d, char out[65])
{
    hex_n(d, 32, out);
}

int store_random_hex(char *out, size_t nbytes)
{
    unsigned char r[32];
    if (nbytes > sizeof r || getrandom(r, nbytes, 0) != (ssize_t)nbytes)
        return -1;
    hex_n(r, nbytes, out);
    return 0;
}

static int sha_text(const char *s, size_t len, char out[65])
{
    unsigned char d[32];
    unsigned n = 0;
    if (!EVP_Digest(s, len, d, &n, EVP_sha256(), NULL))
        return -1;
    hex(d, out);
    return 0;
}

int store_sha256_file(const char *path, char out[65], uint64_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int rc = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) ? 0 : -1;
    static __thread char buf[1 << 16];
    uint64_t total = 0;
    ssize_t r;
    while (rc == 0 && (r = read(fd, buf, sizeof buf)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            rc = -1;
            break;
        }
        total += (uint64_t)r;
        EVP_DigestUpdate(ctx, buf, (size_t)r);
    }
    unsigned char d[32];
    unsigned n = 0;
    if (rc == 0 && EVP_DigestFinal_ex(ctx, d, &n))
        hex(d, out);
    else
        rc = -1;
    EVP_MD_CTX_free(ctx);
    close(fd);
    if (size)
        *size = total;
    return rc;
}

bool store_valid_version(const char *v)
{
    if (!v || strlen(v) != 64)
        return false;
    for (; *v; v++)
        if (!((*v >= '0' && *v <= '9') || (*v >= 'a' && *v <= 'f')))
            return false;
    return true;
}

/* A relative path with no empty, '.' or '..' part, no control bytes and
 * at most STORE_MAX_DEPTH parts. */
static bool valid_path(const char *p)
{
    if (!*p || *p == '/' || strlen(p) > 1024)
        return false;
    for (const char *s = p; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return false;
    const char *s = p;
    int parts = 0;
    while (*s) {
        if (++parts > STORE_MAX_DEPTH)
            return false;
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return false;
        s += n;
        if (*s)
            s++;
        if (e && !*s)
            return false;   /* trailing slash */
    }
    return true;
}

/* ------------------------------------------------------------ manifest */

void store_manifest_free(struct store_manifest *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->files[i].path);
    free(m->files);
    memset(m, 0, sizeof *m);
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const struct store_file *)a)->path, ((const struct store_file *)b)->path);
}

char *store_manifest_text(const struct store_manifest *m, size_t *len)
{
    size_t cap = 1;
    for (size_t i = 0; i < m->n; i++)
        cap += 64 + 1 + 21 + 1 + strlen(m->files[i].path) + 1;
    char *s = malloc(cap), *p = s;
    for (size_t i = 0; i < m->n; i++)
        p += sprintf(p, "%s %" PRIu64 " %s\n", m->files[i].sha, m->files[i].size, m->files[i].path);
    *p = 0;
    if (len)
        *len = (size_t)(p - s);
    return s;
}

static void set_version(struct store_manifest *m)
{
    size_t len;
    char *t = store_manifest_text(m, &len);
    sha_text(t, len, m->version);
    free(t);
}

struct walk {
    struct store_manifest *m;
    size_t cap;
    uint64_t max;
    char *err;
    size_t errlen;
};

static int walk_entry(const struct common_tree_entry *e, void *ctx)
{
    struct walk *w = ctx;
    const char *r2 = e->rel;
    switch (e->kind) {
    case COMMON_TREE_DIR_DONE:
        return 0;
    case COMMON_TREE_ERROR:
        snprintf(w->err, w->errlen, "%s: %s", *r2 ? r2 : e->path, strerror(e->err));
        return -1;
    case COMMON_TREE_DEEP:
        snprintf(w->err, w->errlen, "%.200s...: more than %d directory levels deep", r2, STORE_MAX_DEPTH);
        return -1;
    case COMMON_TREE_LINK:
    case COMMON_TREE_OTHER:
        if (!*r2)
            break;   /* the root: not a directory */
        snprintf(w->err, w->errlen, "%s: %s: a package holds only regular files and directories", r2,
                 e->kind == COMMON_TREE_LINK ? "a symbolic link" : "not a regular file");
        return -1;
    case COMMON_TREE_DIR:
    case COMMON_TREE_FILE:
        break;
    }
    if (!*r2) {
        if (e->kind == COMMON_TREE_DIR)
            return 0;
        snprintf(w->err, w->errlen, "%s: not a directory", e->path);
        return -1;
    }
    if (!valid_path(r2)) {
        snprintf(w->err, w->errlen, "%.1100s: a name the store cannot keep (control characters or too long)", r2);
        return -1;
    }
    /* a converter writes names into YAML, the API into JSON: both take only
     * UTF-8 (a new package only: versions stored before keep their names) */
    if (!common_utf8_valid(r2)) {
        snprintf(w->err, w->errlen, "%.1100s: a name the store cannot keep (not UTF-8: a zip made on Windows "
                                    "without UTF-8 names? name the files in UTF-8)", r2);
        return -1;
    }
    if (e->kind == COMMON_TREE_DIR)
        return 0;
    if (w->m->n >= STORE_MAX_FILES) {
        snprintf(w->err, w->errlen, "more than %d files", STORE_MAX_FILES);
        return -1;
    }
    if (w->m->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->m->files = realloc(w->m->files, w->cap * sizeof *w->m->files);
    }
    struct store_file *f = &w->m->files[w->m->n];
    memset(f, 0, sizeof *f);
    w->m->total += (uint64_t)e->st->st_size;
    if (w->max && w->m->total > w->max) {
        snprintf(w->err, w->errlen, "the package is larger than max_package (%" PRIu64 " bytes)", w->max);
        return -1;
    }
    if (store_sha256_file(e->path, f->sha, &f->size)) {
        snprintf(w->err, w->errlen, "%s: %s", r2, strerror(errno));
        return -1;
    }
    f->path = strdup(r2);
    w->m->n++;
    return 0;
}

int store_manifest_from_dir(const char *dir, uint64_t max_bytes, struct store_manifest *m, char *err,
                            size_t errlen)
{
    memset(m, 0, sizeof *m);
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {   /* the root may be a link; nothing inside */
        snprintf(err, errlen, "%s: not a directory", dir);
        return -1;
    }
    struct walk w = {m, 0, max_bytes, err, errlen};
    err[0] = 0;
    int rc = common_tree_walk(dir, STORE_MAX_DEPTH, walk_entry, &w);
    if (rc && !err[0])
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
    if (rc) {
        store_manifest_free(m);
        return -1;
    }
    if (m->n == 0) {
        snprintf(err, errlen, "%s: an empty package", dir);
        return -1;
    }
    qsort(m->files, m->n, sizeof *m->files, cmp_file);
    set_version(m);
    return 0;
}

int store_manifest_parse(const char *text, size_t len, const char *version, struct store_manifest *m,
                         char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    char v[65];
    sha_text(text, len, v);
    if (version && strcmp(v, version)) {
        snprintf(err, errlen, "the manifest of version %s hashes to %s: corrupt", version, v);
        return -1;
    }
    size_t cap = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        char line[1200];
        size_t n = (size_t)(nl - p);
        char sha[65], path[1100];
        uint64_t size;
        if (n >= sizeof line) {
            snprintf(err, errlen, "manifest: line too long");
            store_manifest_free(m);
            return -1;
        }
        memcpy(line, p, n);
        line[n] = 0;
        int off = 0;
        if (sscanf(line, "%64s %" SCNu64 " %n", sha, &size, &off) != 2 || !off || !store_valid_version(sha) ||
            snprintf(path, sizeof path, "%s", line + off) >= (int)sizeof path || !valid_path(path)) {
            snprintf(err, errlen, "manifest: bad line '%.200s'", line);
            store_manifest_free(m);
            return -1;
        }
        if (m->n == cap) {
            cap = cap ? 2 * cap : 64;
            m->files = realloc(m->files, cap * sizeof *m->files);
        }
        struct store_file *f = &m->files[m->n++];
        f->path = strdup(path);
        f->size = size;
        memcpy(f->sha, sha, 65);
        m->total += size;
        p = nl + 1;
    }
    if (p != end || m->n == 0) {
        snprintf(err, errlen, "manifest: %s", m->n ? "truncated" : "empty");
        store_manifest_free(m);
        return -1;
    }
    for (size_t i = 1; i < m->n; i++)
        if (strcmp(m->files[i - 1].path, m->files[i].path) >= 0) {
            snprintf(err, errlen, "manifest: paths not sorted or repeated at '%s'", m->files[i].path);
            store_manifest_free(m);
            return -1;
        }
    memcpy(m->version, v, 65);
    return 0;
}

/* --------------------------------------------------------------- verify */

static int count_file(const struct common_tree_entry *e, void *ctx)
{
    if (e->kind == COMMON_TREE_ERROR || e->kind == COMMON_TREE_DEEP)
        return -1;
    if (e->kind != COMMON_TREE_DIR && e->kind != COMMON_TREE_DIR_DONE)
        (*(size_t *)ctx)++;
    return 0;
}

int store_verify_dir(const char *dir, const struct store_manifest *m, char *err, size_t errlen)
{
    for (size_t i = 0; i < m->n; i++) {
        char path[4400], sha[65];
        uint64_t size;
        snprintf(path, sizeof path, "%s/%s", dir, m->files[i].path);
        struct stat st;
        if (lstat(path, &st) || !S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "%s: missing", m->files[i].path);
            return -1;
        }
        if (store_sha256_file(path, sha, &size)) {
            snprintf(err, errlen, "%s: %s", m->files[i].path, strerror(errno));
            return -1;
        }
        if (size != m->files[i].size || strcmp(sha, m->files[i].sha)) {
            snprintf(err, errlen, "%s: content differs from the manifest (sha256 %s, expected %s)",
                     m->files[i].path, sha, m->files[i].sha);
            return -1;
        }
    }
    size_t n = 0;
    if (common_tree_walk(dir, STORE_MAX_DEPTH, count_file, &n) || n != m->n) {
        snprintf(err, errlen, "%zu files where the manifest lists %zu", n, m->n);
        return -1;
    }
    return 0;
}

static int remove_entry(const struct common_tree_entry *e, void *ctx)
{
    int *failed = ctx;
    switch (e->kind) {
    case COMMON_TREE_DIR:
        chmod(e->path, 0700);   /* so that what it holds can be listed and removed */
        break;
    case COMMON_TREE_DIR_DONE:
        if (rmdir(e->path))
            *failed = 1;
        break;
    case COMMON_TREE_ERROR:
        if (e->err != ENOENT)
            *failed = 1;
        break;
    default:
        if (unlink(e->path))
            *failed = 1;
        break;
    }
    return 0;   /* remove all that can be removed */
}

int store_remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st))
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);
    int failed = 0;
    if (common_tree_walk(path, 0, remove_entry, &failed))
        return -1;
    return failed ? -1 : 0;
}

/* -------------------------------------------------------------- redis */

static int io_err(struct queue_conn *k, const char *what, char *err, size_t errlen)
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
static redisReply *fcall(struct queue_conn *k, int argc, const char **argv, const size_t *lens,
                         char *err, size_t errlen)
{
    redisReply *r = queue_fcall(k, &store_library, argc, argv, lens, err, errlen);
    if (!r && !k->c) {
        io_err(k, "store", err, errlen);   /* a refused load keeps its own words */
    } else if (r && r->type == REDIS_REPLY_ERROR) {
        char *tail = strstr(r->str, " script: ");   /* Redis appends where in the Lua it failed */
        if (tail)
            *tail = 0;
    }
    return r;
}

static void blob_key(char *buf, size_t len, const char *sha)
{
    snprintf(buf, len, KEY_BLOB "%s", sha);
}

/* The six fixed keys of a store function, in store.lua's order. */
static void fixed_keys(char keys[6][300], const char *name, const char *version)
{
    snprintf(keys[0], 300, KEY_PROBLEM "%s", name);
    snprintf(keys[1], 300, KEY_PROBLEM "%s:versions", name);
    snprintf(keys[2], 300, KEY_MANIFEST "%s", version);
    snprintf(keys[3], 300, KEY_VERSION "%s:names", version);
    snprintf(keys[4], 300, KEY_PROBLEMS);
    snprintf(keys[5], 300, KEY_STORE_BYTES);
}

/* The distinct blobs of m (a manifest sorted by path may list one content
 * twice): indexes into m->files. */
static size_t distinct_blobs(const struct store_manifest *m, size_t *idx)
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

/* Pipelines `HEXISTS blob size` for every blob; need[i] true where missing.
 * A blob found, which this push will not send again, gets a full
 * BLOB_TTL_MS again if it was expiring (GT leaves a referenced, persistent
 * blob as it is): it cannot expire between this look and the commit. */
static int missing_blobs(struct queue_conn *k, const struct store_manifest *m, const size_t *idx, size_t n,
                         bool *need, char *err, size_t errlen)
{
    if (queue_conn_ensure(k))
        return io_err(k, "store", err, errlen);
    for (size_t i = 0; i < n; i++) {
        char key[100];
        blob_key(key, sizeof key, m->files[idx[i]].sha);
        redisAppendCommand(k->c, "HEXISTS %s size", key);
        redisAppendCommand(k->c, "PEXPIRE %s %lld GT", key, BLOB_TTL_MS);
    }
    for (size_t i = 0; i < 2 * n; i++) {
        redisReply *r = NULL;
        if (redisGetReply(k->c, (void **)&r) != REDIS_OK || !r) {
            queue_conn_drop(k);
            return io_err(k, "store", err, errlen);
        }
        if (i % 2 == 0)
            need[i / 2] = !(r->type == REDIS_REPLY_INTEGER && r->integer == 1);
        freeReplyObject(r);
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
            return io_err(k, "store", err, errlen);
        }
        if (queue_conn_stale(k, r)) {   /* READONLY, LOADING: the rest of the replies went with it */
            freeReplyObject(r);
            return io_err(k, "store", err, errlen);
        }
        if (r->type == REDIS_REPLY_ERROR && !rc) {
            snprintf(err, errlen, "store: %s", r->str);
            rc = STORE_ERR;
        }
        freeReplyObject(r);
    }
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
    size_t lens[8];
    for (int i = 0; i < 8; i++)
        lens[i] = strlen(argv[i]);
    redisReply *r = fcall(k, 8, argv, lens, err, errlen);
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

/* Keys per judged_store_unstage call: a package of 100,000 files is many
 * short calls, not one that holds Redis. */
#define UNSTAGE_BATCH 1000

int store_unstage(struct queue_conn *k, const struct store_manifest *m, char *err, size_t errlen)
{
    /* FCALL judged_store_unstage N key...; a blob listed twice is looked
     * at twice (the second finds nothing) */
    for (size_t at = 0; at < m->n; at += UNSTAGE_BATCH) {
        size_t n = m->n - at < UNSTAGE_BATCH ? m->n - at : UNSTAGE_BATCH;
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
            blob_key(key[i], sizeof key[i], m->files[at + i].sha);
            argv[3 + i] = key[i];
        }
        for (size_t i = 0; i < n + 3; i++)
            lens[i] = strlen(argv[i]);
        redisReply *r = fcall(k, (int)n + 3, argv, lens, err, errlen);
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
    redisReply *r = fcall(k, 7, argv, lens, err, errlen);
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
    hex(d, sha);
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
        rc = io_err(u->k, "store", err, errlen);
    }
    return rc;
}

/* Sends one file as blob f->sha, chunk by chunk, hashing what it sends.
 * The chunks go to a staging key of this push's own (judge:blob:SHA:part:
 * TOKEN, expiring like an unreferenced blob): another push of the same
 * content, or one that died half-way, never mixes its chunks with ours,
 * and a blob is whole or absent. */
static int upload_blob(struct queue_conn *k, const char *dir, const struct store_file *f, char *err,
                       size_t errlen)
{
    char path[4400], key[100], part[140], token[17];
    snprintf(path, sizeof path, "%s/%s", dir, f->path);
    blob_key(key, sizeof key, f->sha);
    if (store_random_hex(token, 8)) {
        snprintf(err, errlen, "store: getrandom: %s", strerror(errno));
        return STORE_ERR;
    }
    snprintf(part, sizeof part, "%s:part:%s", key, token);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", f->path, strerror(errno));
        return STORE_ERR;
    }
    if (queue_conn_ensure(k)) {
        close(fd);
        return io_err(k, "store", err, errlen);
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

static int commit(struct queue_conn *k, const char *name, const struct store_manifest *m, const size_t *idx,
                  size_t n, uint64_t quota, const char *summary, struct store_push_reply *out, char *err,
                  size_t errlen)
{
    size_t mlen;
    char *man = store_manifest_text(m, &mlen);
    size_t argc = 3 + 6 + n + 4 + n + 1;
    const char **argv = calloc(argc, sizeof *argv);
    size_t *lens = calloc(argc, sizeof *lens);
    char (*keys)[300] = calloc(6 + n, 300);
    char (*sizes)[24] = calloc(n + 1, 24);
    char nk[24], q[24];
    fixed_keys(keys, name, m->version);
    for (size_t i = 0; i < n; i++) {
        blob_key(keys[6 + i], 300, m->files[idx[i]].sha);
        snprintf(sizes[i], 24, "%" PRIu64, m->files[idx[i]].size);
    }
    snprintf(nk, sizeof nk, "%zu", 6 + n);
    snprintf(q, sizeof q, "%" PRIu64, quota);
    size_t a = 0;
    argv[a++] = "FCALL";
    argv[a++] = "judged_store_commit";
    argv[a++] = nk;
    for (size_t i = 0; i < 6 + n; i++)
        argv[a++] = keys[i];
    argv[a++] = name;
    argv[a++] = m->version;
    lens[a] = mlen;
    argv[a++] = man;
    argv[a++] = q;
    for (size_t i = 0; i < n; i++)
        argv[a++] = sizes[i];
    if (summary)   /* optional (store.lua version 3) */
        argv[a++] = summary;
    for (size_t i = 0; i < a; i++)
        if (!lens[i])
            lens[i] = strlen(argv[i]);
    redisReply *r = fcall(k, (int)a, argv, lens, err, errlen);
    int rc = 0;
    if (!r) {
        rc = STORE_IO;
    } else if (r->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "%s", r->str);
        rc = STORE_ERR;
    } else if (r->type != REDIS_REPLY_ARRAY || r->elements != 4) {
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
    free(keys);
    free(sizes);
    return rc;
}

int store_send_blobs(struct queue_conn *k, const char *dir, const struct store_manifest *m, uint64_t *uploaded,
                     int *new_blobs, char *err, size_t errlen)
{
    size_t *idx = calloc(m->n + 1, sizeof *idx);
    size_t n = distinct_blobs(m, idx);
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
    if (rc == 0) {
        size_t *idx = calloc(m->n + 1, sizeof *idx);
        size_t n = distinct_blobs(m, idx);
        rc = commit(k, name, m, idx, n, quota, summary, out, err, errlen);
        free(idx);
    }
    return rc;
}

/* ---------------------------------------------------------------- reads */

int store_current(struct queue_conn *k, const char *name, char version[65], bool *found, char *err,
                  size_t errlen)
{
    version[0] = 0;
    *found = false;
    redisReply *r = queue_cmd(k, "HGET " KEY_PROBLEM "%s current", name);
    if (!r)
        return io_err(k, "store", err, errlen);
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
    redisReply *r = queue_cmd(k, "SMEMBERS " KEY_PROBLEMS);
    if (!r)
        return io_err(k, "store", err, errlen);
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
    redisReply *r = queue_cmd(k, "GET " KEY_MANIFEST "%s", version);
    if (!r)
        return io_err(k, "store", err, errlen);
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
    redisReply *r = queue_cmd(k, "HGET " KEY_PROBLEM "%s " FIELD_SUMMARY "%s", name, version);
    *json = NULL;
    if (!r)
        return io_err(k, "store", err, errlen);
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
    redisReply *r = queue_cmd(k, "HMGET " KEY_PROBLEM "%s current updated", name);
    if (!r)
        return io_err(k, "store", err, errlen);
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
    r = queue_cmd(k, "ZREVRANGE " KEY_PROBLEM "%s:versions 0 -1 WITHSCORES", name);
    if (!r)
        return io_err(k, "store", err, errlen);
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
        return io_err(k, what, err, errlen);
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
    if (n == 0)
        return reply_ok(k, queue_cmd(k, "DEL " KEY_DIRECTORY), "DEL", err, errlen);
    const char *fresh = KEY_DIRECTORY ":new";
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
        rc = reply_ok(k, queue_cmd(k, "RENAME %s " KEY_DIRECTORY, fresh), "RENAME", err, errlen);
    return rc;
}

int store_directory(struct queue_conn *k, json_t **out, char *err, size_t errlen)
{
    *out = json_object();
    redisReply *r = queue_cmd(k, "HGETALL " KEY_DIRECTORY);
    if (!r)
        return io_err(k, "store", err, errlen);
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
    redisReply *r = queue_cmd(k, "GET " KEY_STORE_BYTES);
    if (!r)
        return io_err(k, "store", err, errlen);
    *bytes = queue_rstr(r) ? strtoull(r->str, NULL, 10) : 0;
    freeReplyObject(r);
    return 0;
}

int store_remove(struct queue_conn *k, const char *name, const char *version, char *err, size_t errlen)
{
    struct store_manifest m;
    int rc = store_get_manifest(k, version, &m, err, errlen);
    if (rc)
        return rc;
    size_t *idx = calloc(m.n + 1, sizeof *idx);
    size_t n = distinct_blobs(&m, idx);
    char (*keys)[300] = calloc(6 + n, 300);
    const char **argv = calloc(3 + 6 + n + 2, sizeof *argv);
    char nk[24];
    fixed_keys(keys, name, version);
    for (size_t i = 0; i < n; i++)
        blob_key(keys[6 + i], 300, m.files[idx[i]].sha);
    snprintf(nk, sizeof nk, "%zu", 6 + n);
    size_t a = 0;
    argv[a++] = "FCALL";
    argv[a++] = "judged_store_remove";
    argv[a++] = nk;
    for (size_t i = 0; i < 6 + n; i++)
        argv[a++] = keys[i];
    argv[a++] = name;
    argv[a++] = version;
    redisReply *r = fcall(k, (int)a, argv, NULL, err, errlen);
    if (!r)
        rc = STORE_IO;
    else if (r->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "%s", r->str);
        rc = STORE_ERR;
    }
    if (r)
        freeReplyObject(r);
    free(keys);
    free(argv);
    free(idx);
    store_manifest_free(&m);
    return rc;
}

/* ---------------------------------------------------------------- fetch */

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
    blob_key(key, sizeof key, f->sha);
    redisReply *r = queue_cmd(k, "HMGET %s n size", key);
    if (!r)
        return io_err(k, "fetch", err, errlen);
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
        if (queue_conn_ensure(k)) {
            rc = io_err(k, "fetch", err, errlen);
            break;
        }
        for (long i = 0; i < w; i++)
            redisAppendCommand(k->c, "HGET %s c%ld", key, c + i);
        for (long i = 0; i < w; i++) {
            redisReply *cr = NULL;
            if (redisGetReply(k->c, (void **)&cr) != REDIS_OK || !cr) {
                queue_conn_drop(k);
                rc = io_err(k, "fetch", err, errlen);
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
    hex(d, sha);
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
