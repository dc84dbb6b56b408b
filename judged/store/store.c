/*
 * store.c - the problem store (store.h): content-addressed packages in Redis.
 * This file: hashing, manifests, a directory checked against its manifest.
 * The Redis side: meta.c (the library, key names, reads, remove), push.c
 * (upload, pins, commit), fetch.c.
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
 * is a pin on every blob (one-key calls: each blob lives in the slot of its
 * own name on a Redis Cluster), then one Redis function on the metadata
 * (store.lua, one slot): the quota and the version made current,
 * atomically: a reader sees the old version or the new one, never a
 * mixture. Reference counts are per version (a blob listed by two versions
 * counts 2), so removing a version frees exactly the blobs nothing else
 * lists; each push pins with a token of its own, so a remove never
 * releases a pin a concurrent push of the same content relies on.
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

#include "common.h"
#include "store.h"
#include "store_internal.h"


/* ------------------------------------------------------------- hashing */

static void hex_n(const unsigned char *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

void store_hex(const unsigned char *d, char out[65])
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
    store_hex(d, out);
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
        store_hex(d, out);
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

