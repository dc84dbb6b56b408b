/*
 * ccache.c - the compile cache: a submission whose compile inputs were
 * compiled before on this runner skips the compiler (a rejudge, an
 * identical resubmission).
 *
 * Key: sha256 of the language id, the compile limits (a problem may raise
 * them: the same source may be CE under the language's own), its compile
 * command templates, the grader's source names and extra flags, and every
 * file of the compile box before the compile (path and bytes: the
 * submission and its grader files). Only successful compiles are kept.
 *
 * An entry is WORK/compiled/KEY/ with box/ (the compile box after the
 * compile), sums ("SHA256 SIZE MODE PATH" per file) and log (the compiler's
 * output). It is written under a temporary name, sealed (root's,
 * read-only) and renamed into place, so a reader never sees half an entry.
 * Before use every file of box/ is hashed and compared with sums (and the
 * files counted): an entry that differs is removed and the submission
 * compiled. A use stamps the entry's mtime; after each store, entries are
 * removed oldest first until the cache fits its bound. An entry removed
 * while another slot copies from it makes that copy fail: a miss, never a
 * wrong binary.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "internal.h"

struct entry_file {
    char *path;
    char sha[65];
    uint64_t size;
    unsigned mode;
};

/* Paths in the order of a walk that sorts each directory's names (strcmp)
 * and lists a directory's files where its name falls among them: a
 * component ends ('/' or the end) before any byte, so "a/x" comes before
 * "a-b". The order is part of a cache key and of the sums file. */
static int cmp_path(const void *a, const void *b)
{
    const unsigned char *x = *(const unsigned char *const *)a, *y = *(const unsigned char *const *)b;
    while (*x && *x == *y)
        x++, y++;
    int cx = *x == '/' || !*x ? -1 : *x, cy = *y == '/' || !*y ? -1 : *y;
    return cx - cy;
}

struct file_list {
    char ***out;
    size_t *n;
};

/* Regular files only: a link or anything else odd ends the walk. */
static int list_visit(const struct common_tree_entry *e, void *ctx)
{
    struct file_list *l = ctx;
    if (e->kind == COMMON_TREE_DIR || e->kind == COMMON_TREE_DIR_DONE)
        return 0;
    if (e->kind != COMMON_TREE_FILE)
        return -1;
    char **grown = realloc(*l->out, (*l->n + 1) * sizeof **l->out);
    char *rel = strdup(e->rel);
    if (!grown || !rel) {
        free(rel);
        if (grown)
            *l->out = grown;
        return -1;
    }
    *l->out = grown;
    (*l->out)[(*l->n)++] = rel;
    return 0;
}

/* Regular files under root (sorted, relative paths; common_tree_walk, no
 * recursion); -1 on a link or anything else odd. */
static int list_files(const char *root, char ***out, size_t *n)
{
    struct file_list l = {out, n};
    size_t first = *n;
    int rc = common_tree_walk(root, 0, list_visit, &l) ? -1 : 0;
    if (*out && *n > first)
        qsort(*out + first, *n - first, sizeof **out, cmp_path);
    return rc;
}

static void free_list(char **l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(l[i]);
    free(l);
}

static int hash_file(const char *path, EVP_MD_CTX *outer, char sha[65], uint64_t *size)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    char buf[65536];
    ssize_t r;
    uint64_t total = 0;
    while ((r = read(fd, buf, sizeof buf)) > 0) {
        EVP_DigestUpdate(ctx, buf, (size_t)r);
        if (outer)
            EVP_DigestUpdate(outer, buf, (size_t)r);
        total += (uint64_t)r;
    }
    close(fd);
    unsigned char md[32];
    unsigned len = 0;
    EVP_DigestFinal_ex(ctx, md, &len);
    EVP_MD_CTX_free(ctx);
    if (r < 0)
        return -1;
    for (int i = 0; i < 32; i++)
        snprintf(sha + 2 * i, 3, "%02x", md[i]);
    if (size)
        *size = total;
    return 0;
}

static void add_str(EVP_MD_CTX *ctx, const char *s)
{
    EVP_DigestUpdate(ctx, s, strlen(s) + 1);
}

/* The key over the named input files of src_dir. */
static int key_of(const struct rn_language *l, const char *limits, const char *src_dir, char *const *sources,
                  char *const *flags, char **files, size_t n, char out[65])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    add_str(ctx, "judged compile cache 1");
    add_str(ctx, l->id);
    add_str(ctx, limits);   /* the same source under tighter limits may be CE */
    for (size_t s = 0; s < l->compile_steps; s++) {
        for (char **a = l->compile[s]; *a; a++)
            add_str(ctx, *a);
        add_str(ctx, "\n");
    }
    for (char *const *s = sources; s && *s; s++)
        add_str(ctx, *s);
    add_str(ctx, "\n");
    for (char *const *f = flags; f && *f; f++)
        add_str(ctx, *f);
    add_str(ctx, "\n");
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *full = rn_strdup_printf("%s/%s", src_dir, files[i]);
        char sha[65];
        add_str(ctx, files[i]);
        rc = hash_file(full, NULL, sha, NULL);
        add_str(ctx, sha);
        free(full);
    }
    unsigned char md[32];
    unsigned len = 0;
    EVP_DigestFinal_ex(ctx, md, &len);
    EVP_MD_CTX_free(ctx);
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    return rc;
}

int rn_ccache_key(const struct rn_language *l, const char *limits, const char *src_dir, char *const *sources,
                  char *const *flags, struct rn_ccache_inputs *in, char out[65])
{
    in->files = NULL;
    in->n = 0;
    if (list_files(src_dir, &in->files, &in->n) < 0)
        return -1;
    return key_of(l, limits, src_dir, sources, flags, in->files, in->n, out);
}

void rn_ccache_inputs_free(struct rn_ccache_inputs *in)
{
    free_list(in->files, in->n);
    in->files = NULL;
    in->n = 0;
}

/* ------------------------------------------------------------- entries */

static char *entry_dir(const char *work, const char *key)
{
    return rn_strdup_printf("%s/compiled/%s", work, key);
}

/* Reads a sums file; -1 if unreadable or malformed. */
static int read_sums_file(const char *path, struct entry_file **files, size_t *n)
{
    size_t len;
    char *text = rn_read_file(path, 1 << 20, &len);
    *files = NULL;
    *n = 0;
    if (!text)
        return -1;
    int rc = 0;
    for (char *line = text, *nl; rc == 0 && (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        struct entry_file f = {0};
        int off = 0;
        if (sscanf(line, "%64s %" SCNu64 " %o %n", f.sha, &f.size, &f.mode, &off) != 3 || !off || !line[off] ||
            strstr(line + off, "..")) {
            rc = -1;
            break;
        }
        f.path = strdup(line + off);
        *files = realloc(*files, (*n + 1) * sizeof **files);
        (*files)[(*n)++] = f;
    }
    free(text);
    return rc;
}

static void free_sums(struct entry_file *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(f[i].path);
    free(f);
}

/* an entry's `sums` */
static int read_sums(const char *entry, struct entry_file **files, size_t *n)
{
    char *path = rn_strdup_printf("%s/sums", entry);
    int rc = read_sums_file(path, files, n);
    free(path);
    return rc;
}

/* 0 when root holds exactly the files of sums, each with its size and
 * sha256; 1 otherwise (a file changed, missing, added, or an odd tree) */
static int check_tree(const char *root, struct entry_file *sums, size_t n)
{
    char **files = NULL;
    size_t nf = 0;
    int rc = list_files(root, &files, &nf) || nf != n ? 1 : 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char *p = rn_strdup_printf("%s/%s", root, sums[i].path);
        char sha[65];
        uint64_t size;
        if (strcmp(files[i], sums[i].path) || hash_file(p, NULL, sha, &size) ||
            size != sums[i].size || strcmp(sha, sums[i].sha))
            rc = 1;
        free(p);
    }
    free_list(files, nf);
    return rc;
}

int rn_tree_sums_check(const char *root, const char *sums_path)
{
    struct entry_file *sums;
    size_t n;
    int rc = read_sums_file(sums_path, &sums, &n) ? 1 : check_tree(root, sums, n);
    free_sums(sums, n);
    return rc;
}

int rn_tree_sums_write(const char *root, const char *sums_path)
{
    char **files = NULL;
    size_t n = 0;
    FILE *f = NULL;
    int rc = list_files(root, &files, &n) < 0 || !(f = fopen(sums_path, "we")) ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char *p = rn_strdup_printf("%s/%s", root, files[i]);
        struct stat st;
        char sha[65];
        uint64_t size;
        if (lstat(p, &st) || hash_file(p, NULL, sha, &size))
            rc = -1;
        else
            fprintf(f, "%s %" PRIu64 " %o %s\n", sha, size, (unsigned)(st.st_mode & 0755), files[i]);
        free(p);
    }
    if (f && fclose(f))
        rc = -1;
    free_list(files, n);
    return rc;
}

static int copy_file(const char *from, const char *to, unsigned mode)
{
    unlink(to);
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    int out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 0755);
    int rc = in < 0 || out < 0 ? -1 : 0;
    char buf[65536];
    ssize_t r;
    while (rc == 0 && (r = read(in, buf, sizeof buf)) != 0) {
        if (r < 0 || write(out, buf, (size_t)r) != r)
            rc = -1;
    }
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out))
        rc = -1;
    if (rc == 0)
        chmod(to, mode & 0755);
    return rc;
}

static int make_parents(const char *root, const char *rel)
{
    char *p = rn_strdup_printf("%s/%s", root, rel);
    int rc = 0;
    for (char *s = p + strlen(root) + 1; rc == 0 && (s = strchr(s, '/')); s++) {
        *s = 0;
        if (mkdir(p, 0755) && errno != EEXIST)
            rc = -1;
        *s = '/';
    }
    free(p);
    return rc;
}

int rn_ccache_get(const char *work, const char *key, const char *dst, char **log)
{
    char *entry = entry_dir(work, key);
    struct stat st;
    if (stat(entry, &st)) {
        free(entry);
        return 1;
    }
    struct entry_file *sums;
    size_t n;
    char *box = rn_strdup_printf("%s/box", entry);
    int rc = read_sums(entry, &sums, &n) ? 1 : check_tree(box, sums, n);   /* verified before use */
    if (rc) {
        rn_remove_tree(entry);   /* corrupt or half gone: compile instead */
    } else {
        for (size_t i = 0; rc == 0 && i < n; i++) {
            char *from = rn_strdup_printf("%s/%s", box, sums[i].path);
            char *to = rn_strdup_printf("%s/%s", dst, sums[i].path);
            if (make_parents(dst, sums[i].path) || copy_file(from, to, sums[i].mode))
                rc = 1;
            free(from);
            free(to);
        }
        char *lp = rn_strdup_printf("%s/log", entry);
        *log = rc == 0 ? rn_read_file(lp, 1 << 20, NULL) : NULL;
        if (rc == 0 && !*log)
            *log = strdup("");
        free(lp);
        if (rc == 0)
            utimensat(AT_FDCWD, entry, NULL, 0);   /* LRU */
    }
    free_sums(sums, n);
    free(box);
    free(entry);
    return rc;
}

static uint64_t entry_size(const char *entry)
{
    struct entry_file *f;
    size_t n;
    uint64_t total = 0;
    if (read_sums(entry, &f, &n) == 0)
        for (size_t i = 0; i < n; i++)
            total += f[i].size;
    free_sums(f, n);
    return total;
}

struct aged {
    char *path;
    time_t mtime;
    uint64_t size;
};

static int cmp_aged(const void *a, const void *b)
{
    const struct aged *x = a, *y = b;
    return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

static void evict(const char *work, uint64_t max)
{
    char *dir = rn_strdup_printf("%s/compiled", work);
    DIR *d = opendir(dir);
    struct aged *all = NULL;
    size_t n = 0;
    uint64_t total = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        struct aged a = {.path = rn_strdup_printf("%s/%s", dir, e->d_name)};
        struct stat st;
        if (stat(a.path, &st)) {
            free(a.path);
            continue;
        }
        a.mtime = st.st_mtime;
        a.size = entry_size(a.path);
        total += a.size;
        all = realloc(all, (n + 1) * sizeof *all);
        all[n++] = a;
    }
    if (d)
        closedir(d);
    qsort(all, n, sizeof *all, cmp_aged);
    for (size_t i = 0; i < n; i++) {
        if (total > max) {
            rn_remove_tree(all[i].path);
            total -= all[i].size;
        }
        free(all[i].path);
    }
    free(all);
    free(dir);
}

void rn_ccache_put(const char *work, const char *key, const struct rn_language *l, const char *limits,
                   char *const *sources,
                   char *const *flags, const struct rn_ccache_inputs *in, const char *src, const char *log, int slot,
                   uint64_t max)
{
    char *entry = entry_dir(work, key);
    char *tmp = rn_strdup_printf("%s/compiled/.tmp-%s-%d-%d", work, key, (int)getpid(), slot);
    char *box = rn_strdup_printf("%s/box", tmp);
    char **files = NULL;
    size_t n = 0;
    FILE *sums = NULL;
    int rc = rn_mkdir_p(box, 0755) < 0 || list_files(src, &files, &n) < 0 ? -1 : 0;
    char *sp = rn_strdup_printf("%s/sums", tmp);
    if (rc == 0 && !(sums = fopen(sp, "w")))
        rc = -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char *from = rn_strdup_printf("%s/%s", src, files[i]);
        char *to = rn_strdup_printf("%s/%s", box, files[i]);
        struct stat st;
        char sha[65];
        uint64_t size;
        if (lstat(from, &st) || make_parents(box, files[i]) || copy_file(from, to, st.st_mode) ||
            hash_file(to, NULL, sha, &size))
            rc = -1;
        else
            fprintf(sums, "%s %" PRIu64 " %o %s\n", sha, size, (unsigned)(st.st_mode & 0755), files[i]);
        free(from);
        free(to);
    }
    if (sums && fclose(sums))
        rc = -1;
    free(sp);
    char *lp = rn_strdup_printf("%s/log", tmp);
    if (rc == 0 && rn_write_file(lp, log ? log : "", log ? strlen(log) : 0, 0644) < 0)
        rc = -1;
    free(lp);
    /* the copy's inputs must still be what the key was made of (nothing
     * rewrote the box while it compiled): else it is not stored */
    char again[65];
    if (rc == 0 && (key_of(l, limits, box, sources, flags, in->files, in->n, again) || strcmp(again, key)))
        rc = -1;
    if (rc == 0 && rn_seal_tree(tmp) < 0)   /* read-only from now on */
        rc = -1;
    if (rc == 0 && rename(tmp, entry) < 0)
        rc = -1;   /* another slot stored it first */
    rn_remove_tree(tmp);
    free_list(files, n);
    free(box);
    free(tmp);
    free(entry);
    evict(work, max);
}
