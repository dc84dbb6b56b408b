/*
 * package.c - what a push does before the store sees a package: unpack an
 * archive, copy a directory (then convert.c converts other judges' formats).
 * All of it runs as root on untrusted input, so
 * nothing here follows a link or writes outside the target directory:
 *
 *  - archives (tar, tar.gz/bz2/xz, zip, by content): regular files and
 *    directories; absolute paths, '..' parts, devices, FIFOs and paths
 *    deeper than STORE_MAX_DEPTH are refused with the entry's name. A hard
 *    link becomes a copy of the earlier entry it names; symbolic links are
 *    unpacked as links and, when there are any, the tree is copied once
 *    more by store_expand_tree (expand.c) with each link that stays inside
 *    replaced by what it points to (one leaving the package or looping is
 *    refused); sizes are counted as they are written, so a lying
 *    header cannot pass max_bytes, and so is what the decompressor produces
 *    (headers and skipped data too); an archive compressed twice is
 *    refused before its first entry (a 659-byte gzip-in-gzip held 8 GiB).
 *    Files are created with O_EXCL | O_NOFOLLOW under directories this
 *    code made, in one pass, in a staging directory renamed at the end.
 *  - an archive whose entries all sit under one top-level directory
 *    ("aplusb/problem.yaml") is unpacked without it.
 *  - directories are copied by expand.c (links inside become copies),
 *    walked by tree.c, never recursively.
 *  - other judges' package formats are converted by convert.c (the
 *    table of formats) and its converters (icpc.c).
 */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "convert.h"
#include "store.h"

/* ------------------------------------------------------------- helpers */

static bool safe_rel(const char *p)
{
    if (!*p || *p == '/')
        return false;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return false;
        s += n;
        while (*s == '/')
            s++;
    }
    return true;
}

/* mkdir -p of rel's parents under root (root exists). */
static int make_parents(const char *root, const char *rel)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        struct stat st;
        if (mkdir(path, 0755) && (errno != EEXIST || lstat(path, &st) || !S_ISDIR(st.st_mode)))
            return -1;
        *s = '/';
    }
    return 0;
}

/* --------------------------------------------------------------- unpack */

/* Directory levels of a relative path ("a/b/c" has 3). */
int store_path_depth(const char *rel)
{
    int n = *rel ? 1 : 0;
    for (const char *s = rel; *s; s++)
        n += *s == '/' && s[1] && s[1] != '/';
    return n;
}

/* An archive is read in one pass with two budgets. Bytes written are the
 * package (max_bytes). Bytes decompressed also count what is never
 * written: tar headers, padding and what a refused entry skips, so a
 * small upload cannot make the reader decompress gigabytes before the
 * refusal; headers are allowed ARCHIVE_ENTRY_OVERHEAD each on top. */
#define ARCHIVE_ENTRY_OVERHEAD 4096
#define ARCHIVE_SLACK (1 << 20)

static bool decompressed_too_much(struct archive *a, uint64_t max_bytes, size_t entries)
{
    if (!max_bytes)
        return false;
    uint64_t budget = max_bytes + (uint64_t)entries * ARCHIVE_ENTRY_OVERHEAD + ARCHIVE_SLACK;
    return (uint64_t)archive_filter_bytes(a, 0) > budget;
}

/* Compressed once at most: gzip inside gzip (inside xz...) multiplies what
 * a small upload decompresses into, and no packager makes it. */
static int one_compression(struct archive *a, const char *archive, char *err, size_t errlen)
{
    int filters = archive_filter_count(a);   /* the last is "none" */
    if (filters <= 2)
        return 0;
    snprintf(err, errlen, "%s: compressed %d times (%s inside %s): a package is a tar or zip archive, "
             "compressed once at most", archive, filters - 1, archive_filter_name(a, 1), archive_filter_name(a, 0));
    return -1;
}

/* One archive being unpacked into the staging directory dir. */
struct unpack {
    struct archive *a;
    const char *archive, *dir;
    uint64_t max_bytes, total;
    size_t entries;
    bool links;              /* symbolic links were unpacked: expand them at the end */
    char *buf, *err;
    size_t errlen;
};

/* "./a/b/" -> "a/b": an entry's name, or a hard link's target, as a path
 * under the staging directory ("" for the archive's root). */
/* name without "./" in front or "/" behind; -1 when it does not fit: a
 * longer name would be cut to another one, so it is refused, as the kernel
 * (PATH_MAX) would refuse it. */
static int clean_name(const char *name, char *out, size_t len)
{
    while (name[0] == '.' && name[1] == '/')
        name += 2;
    if (!strcmp(name, "."))
        name += 1;   /* "./" or ".": the archive's root (tar -C DIR .) */
    if (snprintf(out, len, "%s", name) >= (int)len)
        return -1;
    size_t n = strlen(out);
    while (n && out[n - 1] == '/')
        out[--n] = 0;
    return 0;
}

static bool over_budget(struct unpack *u, uint64_t more)
{
    return ((u->total += more) > u->max_bytes && u->max_bytes) || decompressed_too_much(u->a, u->max_bytes, u->entries);
}

static int too_large(struct unpack *u)
{
    snprintf(u->err, u->errlen, "%s: the unpacked package is larger than max_package (%" PRIu64 " bytes)",
             u->archive, u->max_bytes);
    return -1;
}

/* A symbolic link is unpacked as one (make_parents never goes through it,
 * every file is opened O_NOFOLLOW) and expanded once the archive is read:
 * its target may come later. One that cannot stay inside is refused now. */
static int unpack_symlink(struct unpack *u, const char *name, const char *clean, const char *path,
                          const char *target)
{
    if (!target || !*target || target[0] == '/') {
        snprintf(u->err, u->errlen, "%s: entry '%s': a symbolic link to '%.200s', which leaves the package "
                 "(a link must stay inside it)", u->archive, name, target ? target : "");
        return -1;
    }
    if (make_parents(u->dir, clean) || symlink(target, path)) {
        snprintf(u->err, u->errlen, "%s: entry '%s': %s", u->archive, name,
                 errno == EEXIST ? "appears twice" : strerror(errno));
        return -1;
    }
    u->links = true;
    return 0;
}

/* Copies in to a new file at path, counting its bytes against max_package. */
static int copy_counted(struct unpack *u, int in, const char *name, const char *path)
{
    int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0) {
        snprintf(u->err, u->errlen, "%s: entry '%s': %s", u->archive, name,
                 errno == EEXIST ? "appears twice" : strerror(errno));
        return -1;
    }
    int rc = 0;
    ssize_t n;
    while (rc == 0 && (n = read(in, u->buf, 65536)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0 && over_budget(u, (uint64_t)n))
            rc = too_large(u);
        else if (n < 0 || common_write_all(out, u->buf, (size_t)n)) {
            snprintf(u->err, u->errlen, "%s: entry '%s': %s", u->archive, name, strerror(errno));
            rc = -1;
        }
    }
    close(out);
    return rc;
}

/* A hard link names an earlier entry: it becomes a copy of that file (or
 * a symbolic link like that one), found beneath the staging directory
 * through no link, so it cannot reach anything the archive did not hold. */
static int unpack_hardlink(struct unpack *u, const char *name, const char *clean, const char *path,
                           const char *target_name)
{
    char target[4096];
    if (clean_name(target_name, target, sizeof target) || !safe_rel(target) || target_name[0] == '/') {
        snprintf(u->err, u->errlen, "%s: entry '%s': a hard link to '%.200s', which leaves the package", u->archive,
                 name, target_name);
        return -1;
    }
    int stage = open(u->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = stage < 0 ? -1 : common_open_beneath(stage, target, O_PATH | O_NOFOLLOW, true);
    struct stat st;
    int rc = fd < 0 || fstat(fd, &st) ? -1 : 0;
    if (rc)
        snprintf(u->err, u->errlen, "%s: entry '%s': a hard link to '%.200s', which is not an earlier file of the "
                 "archive (%s)", u->archive, name, target_name, strerror(errno));
    char text[4096];
    ssize_t n;
    if (rc == 0 && S_ISLNK(st.st_mode) && (n = readlinkat(fd, "", text, sizeof text - 1)) > 0) {
        text[n] = 0;
        rc = unpack_symlink(u, name, clean, path, text);
    } else if (rc == 0 && S_ISREG(st.st_mode)) {
        int in = common_open_beneath(stage, target, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, true);
        rc = in < 0 || make_parents(u->dir, clean) ? -1 : copy_counted(u, in, name, path);
        if (rc && in < 0)
            snprintf(u->err, u->errlen, "%s: entry '%s': %s", u->archive, name, strerror(errno));
        if (in >= 0)
            close(in);
    } else if (rc == 0) {
        snprintf(u->err, u->errlen, "%s: entry '%s': a hard link to '%.200s', which is not a regular file",
                 u->archive, name, target_name);
        rc = -1;
    }
    if (fd >= 0)
        close(fd);
    if (stage >= 0)
        close(stage);
    return rc;
}

/* One entry of the archive into u->dir; 0, or -1 with err. */
static int unpack_entry(struct unpack *u, struct archive_entry *e)
{
    const char *name = archive_entry_pathname(e);
    if (!name) {
        snprintf(u->err, u->errlen, "%s: an entry without a name", u->archive);
        return -1;
    }
    char clean[4096];
    if (clean_name(name, clean, sizeof clean)) {
        snprintf(u->err, u->errlen, "%s: entry '%.200s...': a name longer than %zu bytes", u->archive, name,
                 sizeof clean - 1);
        return -1;
    }
    int type = archive_entry_filetype(e);
    if (!*clean && type == AE_IFDIR)
        return 0;   /* "./" */
    if (!safe_rel(clean) || name[0] == '/') {
        snprintf(u->err, u->errlen, "%s: entry '%s': absolute paths and '..' are refused", u->archive, name);
        return -1;
    }
    if (store_path_depth(clean) > STORE_MAX_DEPTH + 1) {   /* + the top-level directory, dropped below */
        snprintf(u->err, u->errlen, "%s: entry '%.200s...': more than %d directory levels deep", u->archive, name,
                 STORE_MAX_DEPTH);
        return -1;
    }
    char path[4400];
    if (snprintf(path, sizeof path, "%s/%s", u->dir, clean) >= (int)sizeof path) {
        snprintf(u->err, u->errlen, "%s: entry '%.200s...': too long a path under %s", u->archive, name, u->dir);
        return -1;
    }
    if (archive_entry_hardlink(e))
        return unpack_hardlink(u, name, clean, path, archive_entry_hardlink(e));
    if (type == AE_IFLNK)
        return unpack_symlink(u, name, clean, path, archive_entry_symlink(e));
    struct stat st;
    if (type == AE_IFDIR) {
        if (make_parents(u->dir, clean) ||
            (mkdir(path, 0755) && (errno != EEXIST || lstat(path, &st) || !S_ISDIR(st.st_mode)))) {
            snprintf(u->err, u->errlen, "%s: entry '%s': %s", u->archive, name, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (type != AE_IFREG) {
        snprintf(u->err, u->errlen, "%s: entry '%s': not a regular file (a device, FIFO or socket)", u->archive, name);
        return -1;
    }
    int fd = make_parents(u->dir, clean) ? -1 : open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(u->err, u->errlen, "%s: entry '%s': %s", u->archive, name,
                 errno == EEXIST ? "appears twice" : strerror(errno));
        return -1;
    }
    int rc = 0;
    la_ssize_t got;
    while (rc == 0 && (got = archive_read_data(u->a, u->buf, 65536)) != 0) {
        if (got < 0) {
            snprintf(u->err, u->errlen, "%s: entry '%s': %s", u->archive, name, archive_error_string(u->a));
            rc = -1;
        } else if (over_budget(u, (uint64_t)got)) {
            rc = too_large(u);
        } else if (common_write_all(fd, u->buf, (size_t)got)) {
            snprintf(u->err, u->errlen, "%s: %s", path, strerror(errno));
            rc = -1;
        }
    }
    close(fd);
    return rc;
}

/* The one directory a staging directory holds, and nothing else: the
 * archive's top level ("aplusb/problem.yaml"), which is dropped. */
static bool lone_directory(const char *stage, char *name, size_t len)
{
    DIR *d = opendir(stage);
    if (!d)
        return false;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            n++;
            snprintf(name, len, "%s", e->d_name);
        }
    closedir(d);
    char path[4800];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", stage, name);
    return n == 1 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode);   /* d_type may be unknown */
}

int store_unpack(const char *archive, const char *dst, uint64_t max_bytes, char *err, size_t errlen)
{
    struct stat st;
    int there = lstat(dst, &st) == 0 ? EEXIST : errno == ENOENT ? 0 : errno;
    if (there) {
        snprintf(err, errlen, "%s: %s", dst, strerror(there));
        return -1;
    }
    /* unpacked beside dst, then renamed: one pass over the archive, and
     * dst is the package or nothing */
    char stage[4200];
    snprintf(stage, sizeof stage, "%s.unpack-XXXXXX", dst);
    if (!mkdtemp(stage) || chmod(stage, 0755)) {   /* as mkdir(dst, 0755) made it before */
        snprintf(err, errlen, "%s: %s", stage, strerror(errno));
        rmdir(stage);
        return -1;
    }
    struct archive *a = archive_read_new();
    archive_read_support_filter_all(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_zip(a);
    int rc = 0, r = ARCHIVE_OK;
    if (archive_read_open_filename(a, archive, 65536) != ARCHIVE_OK) {
        snprintf(err, errlen, "%s: not a tar or zip archive (%s)", archive, archive_error_string(a));
        rc = -1;
    } else {
        rc = one_compression(a, archive, err, errlen);
    }
    struct unpack u = {.a = a, .archive = archive, .dir = stage, .max_bytes = max_bytes, .buf = malloc(65536),
                       .err = err, .errlen = errlen};
    struct archive_entry *e;
    while (rc == 0 && (r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
        if (++u.entries > STORE_MAX_FILES) {   /* directories too: each costs an inode */
            snprintf(err, errlen, "%s: more than %d entries", archive, STORE_MAX_FILES);
            rc = -1;
        } else if (decompressed_too_much(a, max_bytes, u.entries)) {
            rc = too_large(&u);
        } else {
            rc = unpack_entry(&u, e);
        }
    }
    if (rc == 0 && r != ARCHIVE_EOF) {
        snprintf(err, errlen, "%s: %s", archive, archive_error_string(a));
        rc = -1;
    }
    free(u.buf);
    archive_read_free(a);
    char top[512], from[4800];
    snprintf(from, sizeof from, "%s", stage);
    if (rc == 0 && lone_directory(stage, top, sizeof top))
        snprintf(from, sizeof from, "%s/%s", stage, top);
    if (rc == 0 && u.links)   /* a second pass, only for archives with links: they become copies */
        rc = store_expand_tree(from, dst, archive, true, max_bytes, err, errlen);
    else if (rc == 0 && rename(from, dst)) {
        snprintf(err, errlen, "%s: %s", dst, strerror(errno));
        rc = -1;
    }
    store_remove_tree(stage);   /* empty now, or what a failure left */
    return rc;
}
