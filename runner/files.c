/*
 * files.c - the small file-system toolkit of the pipeline, and sha256.
 *
 * Run boxes are on the hot path. After a compile the artefacts are sealed:
 * owned by root and read-only, so a program running as a slot user can
 * neither write nor chmod them. A run box (/box; the sandbox hands it to the
 * slot user, who may add, delete or rename entries but not change a sealed
 * file) holds hard links to the sealed artefacts; resetting it between tests
 * removes whatever is not exactly one of those links (checked by inode) and
 * relinks what is missing. That is a readdir and a few fstatat per test
 * instead of a fresh copy. Everything works on directory fds (no path
 * re-walks), and removal survives directory chains deeper than any stack.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "internal.h"

char *rn_strdup_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

double rn_now(void)
{
    return common_monotonic();
}

int rn_mkdir_p(const char *path, int mode)
{
    return common_mkdir_p(path, (mode_t)mode);
}

/* The per-run directories under the work tree belong to box uids while they
 * run (a compile writes its source directory, mode 0777) and the boxes reach
 * them through detached mounts, never by path. So the tree's root is ours
 * alone: no other local user can enter it and swap a compiled ./main between
 * tests. An existing directory must already be ours (anyone could have made
 * /tmp/judgectl first) and is narrowed to 0700. The configured path may be a
 * symlink of our own (/var/lib/judged -> /data/...), not someone else's; it
 * is resolved once, here, because the sandbox follows no symlink in a work
 * directory's path. */
static int take_dir(const char *path, const char *canon, char *err, size_t errlen)
{
    int fd = open(canon, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    int rc = -1;
    if (fd < 0 || fstat(fd, &st) < 0)
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    else if (st.st_uid != geteuid())
        snprintf(err, errlen, "%s: owned by uid %d, not by us (uid %d): the work directory "
                 "must be ours alone; remove it or choose another", path, (int)st.st_uid,
                 (int)geteuid());
    else if (fchmod(fd, 0700) < 0)
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    else
        rc = 0;
    if (fd >= 0)
        close(fd);
    return rc;
}

char *rn_private_dir(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (rn_mkdir_p(path, 0755) < 0 || lstat(path, &st) < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (S_ISLNK(st.st_mode) && st.st_uid != geteuid()) {
        snprintf(err, errlen, "%s: a symbolic link of uid %d's, not ours", path, (int)st.st_uid);
        return NULL;
    }
    char *canon = realpath(path, NULL);
    if (!canon) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (take_dir(path, canon, err, errlen) == 0)
        return canon;
    free(canon);
    return NULL;
}

/* Removal is recursive, but a program can build a directory chain deeper
 * than any stack: below MAX_DEPTH a subtree is renamed up to the top
 * directory being cleaned ("moved") and removed by a later pass. */
#define MAX_DEPTH 32

struct rm_ctx {
    int top;              /* the directory being emptied */
    unsigned moved;       /* subtrees renamed up to top so far */
};

static int remove_at(struct rm_ctx *c, int parent, const char *name, int depth);

static int empty_dir_fd(struct rm_ctx *c, int dfd, int depth)
{
    int dup_fd = dup(dfd);
    DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return -1;
    }
    rewinddir(d);
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            rc |= remove_at(c, dfd, e->d_name, depth);
    closedir(d);
    return rc;
}

static int remove_at(struct rm_ctx *c, int parent, const char *name, int depth)
{
    if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return -1;
    if (depth >= MAX_DEPTH) {
        char up[48];
        snprintf(up, sizeof up, ".rn-deep-%u", c->moved++);
        return renameat(parent, name, c->top, up);
    }
    int dfd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    fchmod(dfd, 0700);  /* a box program may have made its dirs read-only */
    int rc = empty_dir_fd(c, dfd, depth + 1);
    close(dfd);
    if (unlinkat(parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        rc = -1;
    return rc;
}

/* empties top, in passes until no subtree was moved up during one */
static int empty_top(int top)
{
    struct rm_ctx c = {top, 0};
    unsigned before;
    int rc;
    do {
        before = c.moved;
        rc = empty_dir_fd(&c, top, 1);
    } while (rc == 0 && c.moved != before);
    return rc;
}

int rn_remove_tree(const char *path)
{
    if (unlink(path) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return -1;
    int top = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (top < 0)
        return -1;
    int rc = empty_top(top);
    close(top);
    if (rmdir(path) < 0 && errno != ENOENT)
        rc = -1;
    return rc;
}

int rn_fresh_dir(const char *path, int mode)
{
    if (rn_remove_tree(path) < 0 || mkdir(path, (mode_t)mode) < 0)
        return -1;
    return chmod(path, (mode_t)mode);  /* not narrowed by the umask */
}

/* ---- sealed artefacts, linked into boxes -------------------------------- */

static int seal_at(int dfd)
{
    int dup_fd = dup(dfd);
    DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
    if (!d)
        return -1;
    rewinddir(d);
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
            rc |= unlinkat(dfd, e->d_name, 0);      /* symlinks, fifos: not artefacts */
            continue;
        }
        rc |= fchownat(dfd, e->d_name, 0, 0, AT_SYMLINK_NOFOLLOW);
        rc |= fchmodat(dfd, e->d_name, (st.st_mode & 0555) | 0444, 0);
        if (S_ISDIR(st.st_mode)) {
            int sub = openat(dfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            rc |= sub < 0 ? -1 : seal_at(sub);
            if (sub >= 0)
                close(sub);
        }
    }
    closedir(d);
    return rc ? -1 : 0;
}

int rn_seal_tree(const char *path)
{
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = dfd < 0 ? -1 : seal_at(dfd);
    if (dfd >= 0)
        close(dfd);
    return rc;
}

/* links (files) or recreates (dirs) from_dir/name in to_dir */
static int link_entry(int from_dir, int to_dir, const char *name, const struct stat *st)
{
    if (S_ISREG(st->st_mode))
        return linkat(from_dir, name, to_dir, name, 0);
    if (!S_ISDIR(st->st_mode))
        return 0;
    if (mkdirat(to_dir, name, 0755) < 0 || fchmodat(to_dir, name, st->st_mode & 0555, 0) < 0)
        return -1;
    int f = openat(from_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int t = openat(to_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int dup_fd = f < 0 ? -1 : dup(f);
    DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
    int rc = d && t >= 0 ? 0 : -1;
    struct dirent *e;
    while (rc == 0 && d && (e = readdir(d))) {
        struct stat sub;
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            fstatat(f, e->d_name, &sub, AT_SYMLINK_NOFOLLOW) == 0)
            rc = link_entry(f, t, e->d_name, &sub);
    }
    if (d)
        closedir(d);
    if (f >= 0)
        close(f);
    if (t >= 0)
        close(t);
    return rc;
}

/* an entry of the box that is still exactly the sealed artefact */
static bool unchanged(int box, int src, const char *name)
{
    struct stat b, s;
    if (fstatat(box, name, &b, AT_SYMLINK_NOFOLLOW) < 0 ||
        fstatat(src, name, &s, AT_SYMLINK_NOFOLLOW) < 0)
        return false;
    if (S_ISREG(s.st_mode))
        return S_ISREG(b.st_mode) && b.st_ino == s.st_ino && b.st_dev == s.st_dev;
    /* a sealed dir's copy is root's and read-only: nothing can enter it */
    return S_ISDIR(s.st_mode) && S_ISDIR(b.st_mode) && b.st_uid == 0 &&
           (b.st_mode & 0222) == 0;
}

static int reset_pass(struct rm_ctx *c, int box, int src)
{
    int dup_box = dup(box), dup_src = dup(src);
    DIR *bd = dup_box < 0 ? NULL : fdopendir(dup_box);
    DIR *sd = dup_src < 0 ? NULL : fdopendir(dup_src);
    int rc = bd && sd ? 0 : -1;
    if (rc == 0) {            /* dup'ed fds share the offset of an earlier pass */
        rewinddir(bd);
        rewinddir(sd);
    }
    struct dirent *e;
    while (rc == 0 && (e = readdir(bd)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !unchanged(box, src, e->d_name))
            rc = remove_at(c, box, e->d_name, 1);
    while (rc == 0 && (e = readdir(sd))) {
        struct stat st, there;
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            fstatat(src, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            fstatat(box, e->d_name, &there, AT_SYMLINK_NOFOLLOW) < 0)
            rc = link_entry(src, box, e->d_name, &st);
    }
    if (bd)
        closedir(bd);
    else if (dup_box >= 0)
        close(dup_box);
    if (sd)
        closedir(sd);
    else if (dup_src >= 0)
        close(dup_src);
    return rc;
}

static int reset_at(int box, int src)
{
    struct rm_ctx c = {box, 0};
    unsigned before;
    int rc;
    do {
        before = c.moved;
        rc = reset_pass(&c, box, src);
    } while (rc == 0 && c.moved != before);
    return rc;
}

int rn_reset_box(const char *box, const char *sealed, bool fresh)
{
    if (fresh && rn_fresh_dir(box, 01777) < 0)
        return -1;
    int b = open(box, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int s = open(sealed, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = b < 0 || s < 0 ? -1 : reset_at(b, s);
    if (b >= 0)
        close(b);
    if (s >= 0)
        close(s);
    return rc;
}

int rn_write_file(const char *path, const char *data, size_t len, int mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, (mode_t)mode);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);
        if (n <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    if (fchmod(fd, (mode_t)mode) < 0) {
        close(fd);
        return -1;
    }
    return close(fd);
}

char *rn_read_file(const char *path, size_t max, size_t *len)
{
    static const char cut[] = "\n... (truncated)\n";
    bool more = false;
    size_t used = 0;
    char *buf = common_read_file(path, max, &used, &more);
    if (buf && more) {
        char *nb = realloc(buf, used + sizeof cut);
        if (!nb) {
            free(buf);
            return NULL;
        }
        buf = nb;
        memcpy(buf + used, cut, sizeof cut);
        used += sizeof cut - 1;
    }
    if (buf && len)
        *len = used;
    return buf;
}

int rn_sha256_hex(const void *const *parts, const size_t *lens, size_t n, char out[65])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    for (size_t i = 0; ok && i < n; i++)
        ok = EVP_DigestUpdate(ctx, parts[i], lens[i]);
    ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen);
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return -1;
    for (unsigned int i = 0; i < mdlen && i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
    return 0;
}
