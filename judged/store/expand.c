/*
 * expand.c - a package tree copied with its inner links made ordinary
 * entries (tree.h: store_expand_tree; store.h: store_copy_tree).
 *
 * Real packages hold relative symbolic links (one test group linking to
 * another's files, a submission under two verdict folders). The store keeps
 * regular files and directories only, so a push copies the tree and puts in
 * place of each link the file or directory it points to, as long as it
 * stays inside the package. Everything runs as root on untrusted input:
 *
 *  - every entry is opened beneath the package root with openat2 and
 *    RESOLVE_BENEATH (runner/package.c does the same on a judge host): an
 *    absolute link, a '..' above the root or a link leading out through
 *    another fails in the kernel (EXDEV) at the open itself, so a link
 *    swapped in after a look gains nothing. An entry is first opened O_PATH
 *    (no side effect on a FIFO or a device) and must be a regular file or a
 *    directory; it is then reopened for reading and must be the same inode.
 *  - a directory reached again below itself (a link to '..' or to an
 *    ancestor) is a loop and refused; so is a chain of links that loops
 *    (ELOOP).
 *  - the copy is what counts: every file and directory written counts
 *    against STORE_MAX_FILES and STORE_MAX_DEPTH, every byte against
 *    max_bytes, so a small tree that links one directory many times (a link
 *    bomb) stops at the limits however much it would expand to.
 *  - no recursion: a stack of relative paths on the heap (tree.c says why).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "store.h"

struct pending {
    char *rel;               /* "" for the root */
    int depth;               /* directory levels of rel */
};

struct expand {
    int root, out;           /* the package and the copy, as directory fds */
    const char *display;     /* how errors name the package */
    bool archive;            /* ... as an archive's entries */
    const char *from;        /* the package's path (resolving) */
    FILE *resolved;          /* links out to files copied (resolving); NULL: refused */
    uint64_t max, total;
    size_t entries;
    struct pending *stack;
    size_t n, cap;
    struct { dev_t dev; ino_t ino; } above[STORE_MAX_DEPTH + 2];   /* the directories of the path being copied */
    char *buf;
    char *err;
    size_t errlen;
};

static void fail(struct expand *x, const char *rel, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(struct expand *x, const char *rel, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (x->archive)
        snprintf(x->err, x->errlen, "%s: entry '%.1100s': %s", x->display, rel, msg);
    else
        snprintf(x->err, x->errlen, "%s/%.1100s: %s", x->display, rel, msg);
}

static const char *kind_name(mode_t m)
{
    return S_ISLNK(m) ? "a symbolic link" : S_ISFIFO(m) ? "a FIFO (named pipe)" : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : "a special file";
}

/* rel's link text, quoted for a message ("" when rel is no link). */
static void link_text(struct expand *x, const char *rel, char *out, size_t len)
{
    out[0] = 0;
    const char *slash = strrchr(rel, '/');
    char *parent = strndup(rel, slash ? (size_t)(slash - rel) : 0);
    int dir = common_open_beneath(x->root, parent, O_PATH | O_DIRECTORY, false);
    char t[512];
    ssize_t n = dir < 0 ? -1 : readlinkat(dir, slash ? slash + 1 : rel, t, sizeof t - 1);
    if (n > 0) {
        t[n] = 0;
        size_t o = 0;
        for (ssize_t i = 0; i < n && o + 5 < len; i++)
            o += (size_t)snprintf(out + o, len - o, (unsigned char)t[i] < 0x20 || t[i] == 0x7f ? "\\x%02x" : "%c",
                                  (unsigned char)t[i]);
    }
    if (dir >= 0)
        close(dir);
    free(parent);
}

/* Every open is common_open_beneath's (common.h): beneath the root, with
 * the kernel's EAGAIN retried. */

/* Why rel cannot be opened beneath the root, in the words of runner/README.md. */
static void open_failed(struct expand *x, const char *rel, int e)
{
    char target[600];
    link_text(x, rel, target, sizeof target);
    if (e == EXDEV && target[0])
        fail(x, rel, "a symbolic link to '%s', which leaves the package (a link must stay inside it)", target);
    else if (e == EXDEV)
        fail(x, rel, "a symbolic link on its path leads out of the package (a link must stay inside it)");
    else if (e == ELOOP)
        fail(x, rel, "a symbolic link to '%s': links that loop (or nest too deep)", target);
    else if (e == ENOENT && target[0])
        fail(x, rel, "a symbolic link to '%s', which does not exist", target);
    else
        fail(x, rel, "%s", strerror(e));
}

/* A link out of a setter's own directory: the regular file it names,
 * opened as the caller may open it (judgectl push of a checkout whose
 * validators link to the repository's shared header, by a relative path
 * or, as some checkouts make them, an absolute one), and said, naming the
 * file copied. One to a directory out of it stays refused. */
static int open_outside(struct expand *x, const char *rel, struct stat *st)
{
    char path[4400], target[600], *real = NULL;
    snprintf(path, sizeof path, "%s/%s", x->from, rel);
    link_text(x, rel, target, sizeof target);
    if (!target[0]) {   /* out through a link higher on its path */
        open_failed(x, rel, EXDEV);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, st)) {
        fail(x, rel, "a symbolic link to '%s', which leaves the package: %s", target, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        fail(x, rel, "a symbolic link to '%s', which leaves the package to %s: only a file out of it is copied",
             target, S_ISDIR(st->st_mode) ? "a directory" : kind_name(st->st_mode));
        close(fd);
        return -1;
    }
    real = realpath(path, NULL);
    fprintf(x->resolved, "%s:0: (link): warning: a symbolic link to '%s', which leaves the package: pushed as a "
                         "copy of %s\n", rel, target, real ? real : path);
    free(real);
    return fd;
}

/* rel opened for reading, a regular file or a directory as O_PATH found it. */
static int open_entry(struct expand *x, const char *rel, struct stat *st)
{
    int path = common_open_beneath(x->root, rel, O_PATH, false);
    if (path < 0 && errno == EXDEV && x->resolved)
        return open_outside(x, rel, st);
    if (path < 0) {
        open_failed(x, rel, errno);
        return -1;
    }
    int rc = fstat(path, st);
    close(path);
    if (rc) {
        fail(x, rel, "%s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode)) {
        char target[600];
        link_text(x, rel, target, sizeof target);
        if (target[0])
            fail(x, rel, "a symbolic link to '%s', which is %s (a package holds only regular files and directories)",
                 target, kind_name(st->st_mode));
        else
            fail(x, rel, "%s: a package holds only regular files and directories", kind_name(st->st_mode));
        return -1;
    }
    int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | (S_ISDIR(st->st_mode) ? O_DIRECTORY : 0);
    int fd = common_open_beneath(x->root, rel, flags, false);
    struct stat again;
    if (fd >= 0 && (fstat(fd, &again) || again.st_ino != st->st_ino || again.st_dev != st->st_dev)) {
        close(fd);
        fail(x, rel, "changed while it was being copied");
        return -1;
    }
    if (fd < 0)
        open_failed(x, rel, errno);
    return fd;
}

static int copy_file(struct expand *x, int in, const char *rel)
{
    int out = openat(x->out, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0) {
        fail(x, rel, "%s", strerror(errno));
        return -1;
    }
    int rc = 0;
    ssize_t n;
    while (rc == 0 && (n = read(in, x->buf, 65536)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n >= 0 && x->max && (x->total += (uint64_t)n) > x->max) {
            fail(x, rel, "the package is larger than max_package (%" PRIu64 " bytes, links counted as copies)",
                 x->max);
            rc = -1;
        } else if (n < 0 || common_write_all(out, x->buf, (size_t)n)) {
            fail(x, rel, "%s", strerror(errno));
            rc = -1;
        }
    }
    close(out);
    return rc;
}

static int push_entry(struct expand *x, const char *rel, const char *name, int depth)
{
    if (++x->entries > STORE_MAX_FILES) {
        fail(x, rel, "more than %d files and directories (links counted as copies)", STORE_MAX_FILES);
        return -1;
    }
    if (depth > STORE_MAX_DEPTH) {
        if (x->archive)
            snprintf(x->err, x->errlen, "%s: entry '%.200s...': more than %d directory levels deep", x->display, rel,
                     STORE_MAX_DEPTH);
        else
            snprintf(x->err, x->errlen, "%s/%.200s...: more than %d directory levels deep", x->display, rel,
                     STORE_MAX_DEPTH);
        return -1;
    }
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 64;
        x->stack = realloc(x->stack, x->cap * sizeof *x->stack);
    }
    struct pending *p = &x->stack[x->n++];
    p->depth = depth;
    if (asprintf(&p->rel, "%s%s%s", rel, *rel ? "/" : "", name) < 0)
        p->rel = NULL;
    return p->rel ? 0 : -1;
}

/* A directory: refused if it is one of those above it (a loop), else made
 * in the copy and what it holds pushed; fd is closed. Depth-first, so above[0..depth-1]
 * are the directories of rel's path when rel comes off the stack. */
static int copy_dir(struct expand *x, int fd, const struct stat *st, const char *rel, int depth)
{
    for (int i = 0; i < depth; i++)
        if (x->above[i].dev == st->st_dev && x->above[i].ino == st->st_ino) {
            close(fd);
            char target[600];
            link_text(x, rel, target, sizeof target);
            fail(x, rel, "a symbolic link to '%s', a directory it is inside: a link loop", target);
            return -1;
        }
    x->above[depth].dev = st->st_dev;
    x->above[depth].ino = st->st_ino;
    if (*rel && mkdirat(x->out, rel, 0755)) {
        fail(x, rel, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        fail(x, rel, "%s", strerror(errno));
        close(fd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            rc = push_entry(x, rel, e->d_name, depth + 1);
    closedir(d);
    return rc;
}

static int copy_one(struct expand *x, const char *rel, int depth)
{
    struct stat st;
    int fd = open_entry(x, rel, &st);
    if (fd < 0)
        return -1;
    if (S_ISDIR(st.st_mode))
        return copy_dir(x, fd, &st, rel, depth);   /* closes fd */
    int rc = *rel ? copy_file(x, fd, rel) : -1;
    if (!*rel)
        snprintf(x->err, x->errlen, "%s: not a directory", x->display);
    close(fd);
    return rc;
}

static int expand_tree(const char *from, const char *to, const char *display, bool archive, uint64_t max_bytes,
                       FILE *resolved, char *err, size_t errlen)
{
    struct expand x = {.root = open(from, O_RDONLY | O_DIRECTORY | O_CLOEXEC), .out = -1, .display = display,
                       .archive = archive, .from = from, .resolved = resolved, .max = max_bytes, .err = err,
                       .errlen = errlen};
    err[0] = 0;
    if (x.root < 0) {
        snprintf(err, errlen, "%s: %s", display, strerror(errno));
        return -1;
    }
    int rc = mkdir(to, 0755);
    if (rc)
        snprintf(err, errlen, "%s: %s", to, strerror(errno));
    bool made = rc == 0;
    if (rc == 0 && (x.out = open(to, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
        snprintf(err, errlen, "%s: %s", to, strerror(errno));
        rc = -1;
    }
    x.buf = malloc(65536);
    if (rc == 0)
        rc = push_entry(&x, "", "", 0);
    x.entries = 0;   /* the root is not an entry of the package */
    while (rc == 0 && x.n) {
        struct pending p = x.stack[--x.n];
        rc = copy_one(&x, p.rel, p.depth);
        free(p.rel);
    }
    while (x.n)
        free(x.stack[--x.n].rel);
    free(x.stack);
    free(x.buf);
    close(x.root);
    if (x.out >= 0)
        close(x.out);
    if (rc && !err[0])
        snprintf(err, errlen, "%s: %s", display, strerror(errno));
    if (rc && made)
        store_remove_tree(to);
    return rc ? -1 : 0;
}

int store_expand_tree(const char *from, const char *to, const char *display, bool archive, uint64_t max_bytes,
                      char *err, size_t errlen)
{
    return expand_tree(from, to, display, archive, max_bytes, NULL, err, errlen);
}

int store_copy_tree(const char *from, const char *to, uint64_t max_bytes, char *err, size_t errlen)
{
    return expand_tree(from, to, from, false, max_bytes, NULL, err, errlen);
}

int store_copy_tree_resolving(const char *from, const char *to, uint64_t max_bytes, char **resolved, char *err,
                              size_t errlen)
{
    size_t len = 0;
    *resolved = NULL;
    FILE *said = open_memstream(resolved, &len);
    if (!said) {
        snprintf(err, errlen, "%s: %s", from, strerror(errno));
        return -1;
    }
    int rc = expand_tree(from, to, from, false, max_bytes, said, err, errlen);
    fclose(said);
    if (rc || !len) {
        free(*resolved);
        *resolved = NULL;
    }
    return rc;
}

static int find_link(const struct common_tree_entry *e, void *ctx)
{
    (void)ctx;
    return e->kind == COMMON_TREE_LINK && e->depth > 0 ? 1 : 0;
}

bool store_has_links(const char *dir)
{
    return common_tree_walk(dir, STORE_MAX_DEPTH, find_link, NULL) == 1;
}
