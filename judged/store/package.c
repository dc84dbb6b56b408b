/*
 * package.c - what a push does before the store sees a package: unpack an
 * archive, copy a directory, convert the ICPC/Kattis package format into the
 * runner's (runner/README.md). All of it runs as root on untrusted input, so
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
 *  - ICPC: problem.yaml (name, validation, validator_flags, limits) + .timelimit
 *    + data/sample and data/secret (any depth; *.in with *.ans) +
 *    output_validators/ become a problem.yaml in the runner's format that
 *    lists the tests where they are; the original stays as problem.icpc.yaml.
 *    A custom output validator keeps its Kattis protocol (the runner's
 *    `protocol: kattis`), validator_flags becoming its arguments. 2023-07
 *    packages (problem_format_version) have output_validator/ and `type:`;
 *    a type the runner cannot judge as meant (scoring, multi-pass,
 *    submit-answer, validation 'score') is refused naming the key: never
 *    stored as a pass/fail batch problem.
 */
#include <archive.h>
#include <archive_entry.h>
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
#include "yaml_doc.h"

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
static int path_depth(const char *rel)
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
    if (path_depth(clean) > STORE_MAX_DEPTH + 1) {   /* + the top-level directory, dropped below */
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

/* ----------------------------------------------------------------- ICPC */

/* ICPC by its layout: data/secret/ or data/sample/ (DOMjudge's examples
 * may have samples only) or DOMjudge's domjudge-problem.ini, and no tests/
 * (a runner package keeps its tests there). */
bool store_is_icpc(const char *dir)
{
    char p[4400];
    struct stat st;
    snprintf(p, sizeof p, "%s/tests", dir);
    if (lstat(p, &st) == 0)
        return false;
    snprintf(p, sizeof p, "%s/data/secret", dir);
    bool data = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
    snprintf(p, sizeof p, "%s/data/sample", dir);
    data = data || (stat(p, &st) == 0 && S_ISDIR(st.st_mode));
    snprintf(p, sizeof p, "%s/domjudge-problem.ini", dir);
    return data || (lstat(p, &st) == 0 && S_ISREG(st.st_mode));
}

struct errs {
    char *buf;
    size_t len;
    int n;
};

static void add_line(struct errs *e, const char *line);
static void add_err(struct errs *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_err(struct errs *e, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    add_line(e, line);
}

/* A warning goes with the errors (FILE:LINE: KEY: warning: ...) but does
 * not count as one: the package is converted, and push shows it. */
static void add_warn(struct errs *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_warn(struct errs *e, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    add_line(e, line);
    e->n--;
}

static void add_line(struct errs *e, const char *line)
{
    size_t n = strlen(line);
    e->buf = realloc(e->buf, e->len + n + 2);
    memcpy(e->buf + e->len, line, n);
    e->len += n;
    e->buf[e->len++] = '\n';
    e->buf[e->len] = 0;
    e->n++;
}

struct icpc {
    char title[512];
    char validation[64];     /* default | custom | custom interactive */
    char flags[1024];
    size_t flags_line, validation_line;
    double time_multiplier, time_limit, memory_mb, output_mb;
    char version[64];        /* problem_format_version: "" (legacy) or "2023-07-draft", ... */
    bool interactive_type;   /* type: interactive (2023-07) */
    size_t type_line;
};

/* One word of `type:` (legacy: pass-fail | scoring; 2023-07 also
 * interactive, multi-pass, submit-answer, combined). Only what the
 * runner's model judges the same way is converted; the rest is refused
 * naming the key, never stored as a different (pass/fail batch) problem. */
static void type_word(struct icpc *y, const char *w, size_t line, struct errs *e)
{
    if (!strcmp(w, "pass-fail"))
        return;
    if (!strcmp(w, "interactive")) {
        y->interactive_type = true;
        return;
    }
    if (!strcmp(w, "scoring"))
        add_err(e, "problem.yaml:%zu: type: 'scoring' is not converted: scores by test group (testdata.yaml "
                   "grading) are not read, and the problem would be judged pass/fail", line);
    else if (!strcmp(w, "multi-pass"))
        add_err(e, "problem.yaml:%zu: type: 'multi-pass' is not converted: the runner runs a submission once per "
                   "test (no nextpass.in)", line);
    else if (!strcmp(w, "submit-answer"))
        add_err(e, "problem.yaml:%zu: type: 'submit-answer' is not converted: a submission here is a program", line);
    else
        add_err(e, "problem.yaml:%zu: type: unknown type '%.100s' (pass-fail, scoring, interactive, multi-pass, "
                   "submit-answer)", line, w);
}

/* type: a string of words or a sequence of them. */
static void read_type(struct ydoc *d, yaml_node_t *v, struct icpc *y, struct errs *e)
{
    y->type_line = (size_t)ydoc_line(v);
    if (v->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
            yaml_node_t *n = ydoc_node(d, *i);
            if (n && n->type == YAML_SCALAR_NODE)
                type_word(y, (const char *)n->data.scalar.value, (size_t)ydoc_line(n), e);
            else
                add_err(e, "problem.yaml:%zu: type: expected a list of words", y->type_line);
        }
        return;
    }
    if (v->type != YAML_SCALAR_NODE) {
        add_err(e, "problem.yaml:%zu: type: expected a word or a list of words", y->type_line);
        return;
    }
    char copy[256], *save = NULL;
    snprintf(copy, sizeof copy, "%s", (const char *)v->data.scalar.value);
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        type_word(y, t, y->type_line, e);
}

/* validation: default | custom [interactive] [score] (legacy); 'score' is
 * a scoring problem's validator and refused as type: scoring is. */
static void read_validation(const char *s, size_t line, struct icpc *y, struct errs *e)
{
    char copy[128], *save = NULL;
    snprintf(copy, sizeof copy, "%s", s ? s : "");
    char *first = strtok_r(copy, " \t", &save);
    bool custom = first && !strcmp(first, "custom"), interactive = false, ok = first && (custom || !strcmp(first, "default"));
    for (char *t = strtok_r(NULL, " \t", &save); ok && t; t = strtok_r(NULL, " \t", &save)) {
        if (custom && !strcmp(t, "interactive"))
            interactive = true;
        else if (custom && !strcmp(t, "score")) {
            add_err(e, "problem.yaml:%zu: validation: 'score' is not converted: the validator's score.txt "
                       "(a scoring problem) is not read, and the problem would be judged pass/fail", line);
            return;
        } else
            ok = false;
    }
    if (!ok) {
        add_err(e, "problem.yaml:%zu: validation: expected default, custom, 'custom interactive' or 'custom score'",
                line);
        return;
    }
    snprintf(y->validation, sizeof y->validation, "%s", !custom ? "default" : interactive ? "custom interactive"
                                                                                         : "custom");
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static bool number(const char *s, double *out)
{
    char *end;
    if (!s)
        return false;
    double v = strtod(s, &end);
    if (end == s || *end || v < 0)
        return false;
    *out = v;
    return true;
}

/* The ICPC files' words: "FILE:LINE: (yaml): why" for a syntax error; an
 * empty file sets nothing (problem.yaml is optional in the legacy format). */
static const struct ydoc_how icpc_words = {.syntax_key = "(yaml)", .empty_ok = true};

/* What the reader recorded (a syntax error, keys given twice, aliases past
 * its budget) joins the conversion's errors. */
static void add_reader_errors(struct errs *e, struct common_errors *found)
{
    for (size_t i = 0; i < found->count; i++)
        add_line(e, found->items[i]);
    common_errors_free(found);
}

/* name: a string, or a map of languages (the first is taken). */
static void read_name(struct ydoc *d, yaml_node_t *v, struct icpc *y)
{
    const char *s = scalar(v);
    bool languages = v->type == YAML_MAPPING_NODE && v->data.mapping.pairs.start < v->data.mapping.pairs.top;
    if (languages)
        s = scalar(ydoc_node(d, v->data.mapping.pairs.start->value));
    if (s || languages)
        snprintf(y->title, sizeof y->title, "%s", s ? s : "");
}

static void read_limits(struct ydoc *d, yaml_node_t *v, size_t line, struct icpc *y, struct errs *e)
{
    if (v->type != YAML_MAPPING_NODE) {
        add_err(e, "problem.yaml:%zu: limits: expected a mapping", line);
        return;
    }
    ydoc_mapping(d, v, "limits");   /* records keys given twice */
    YDOC_FOR_PAIRS(d, v, lk, k, lv) {
        if (!lv)
            return;
        double *dst = !strcmp(lk, "time_multiplier") ? &y->time_multiplier
                    : !strcmp(lk, "time_limit")      ? &y->time_limit
                    : !strcmp(lk, "memory")          ? &y->memory_mb
                    : !strcmp(lk, "output")          ? &y->output_mb : NULL;
        if (k->type == YAML_SCALAR_NODE && dst && (!number(scalar(lv), dst) || *dst <= 0))
            add_err(e, "problem.yaml:%d: limits.%s: expected a positive number", ydoc_line(lv), lk);
    }
}

/* One key of problem.yaml; every other key of the format (author, source,
 * license, ...) does not change judging. */
static void read_icpc_key(struct ydoc *d, const char *ks, yaml_node_t *v, struct icpc *y, struct errs *e)
{
    size_t line = (size_t)ydoc_line(v);
    if (!strcmp(ks, "name")) {
        read_name(d, v, y);
    } else if (!strcmp(ks, "validation")) {
        read_validation(scalar(v), line, y, e);
        y->validation_line = line;
    } else if (!strcmp(ks, "type")) {
        read_type(d, v, y, e);
    } else if (!strcmp(ks, "problem_format_version")) {
        if (!scalar(v))
            add_err(e, "problem.yaml:%zu: problem_format_version: expected a string", line);
        else
            snprintf(y->version, sizeof y->version, "%s", scalar(v));
    } else if (!strcmp(ks, "validator_flags")) {
        if (!scalar(v))
            add_err(e, "problem.yaml:%zu: validator_flags: expected a string of flags", line);
        else
            snprintf(y->flags, sizeof y->flags, "%s", scalar(v));
        y->flags_line = line;
    } else if (!strcmp(ks, "limits")) {
        read_limits(d, v, line, y, e);
    }
}

static void read_icpc_yaml(const char *dir, struct icpc *y, struct errs *e)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/problem.yaml", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;   /* problem.yaml is optional in the legacy format */
    struct common_errors found = {0};
    struct ydoc d;
    yaml_node_t *root = ydoc_read(&d, f, "problem.yaml", &icpc_words, &found) ? NULL : ydoc_root(&d);
    if (root && root->type == YAML_MAPPING_NODE) {
        ydoc_mapping(&d, root, "(top level)");   /* records keys given twice */
        YDOC_FOR_PAIRS(&d, root, ks, k, v) {
            if (!v)
                break;
            if (k->type == YAML_SCALAR_NODE)
                read_icpc_key(&d, ks, v, y, e);
        }
    } else if (root) {
        add_err(e, "problem.yaml:1: (top level): expected a mapping");
    }
    ydoc_free(&d);
    fclose(f);
    add_reader_errors(e, &found);
}

/* validator_flags -> the runner's checker options. */
static void checker_yaml(const char *flags, size_t line, FILE *out, struct errs *e)
{
    bool cs = false, ss = false, fl = false;
    double abs_tol = -1, rel_tol = -1;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", flags);
    char *save = NULL;
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        double *dst = NULL, both = -1;
        if (!strcmp(t, "case_sensitive"))
            cs = true;
        else if (!strcmp(t, "space_change_sensitive"))
            ss = true;
        else if (!strcmp(t, "float_absolute_tolerance"))
            dst = &abs_tol;
        else if (!strcmp(t, "float_relative_tolerance"))
            dst = &rel_tol;
        else if (!strcmp(t, "float_tolerance"))
            dst = &both;
        else {
            add_err(e, "problem.yaml:%zu: validator_flags: unknown flag '%s'", line, t);
            continue;
        }
        if (dst) {
            char *v = strtok_r(NULL, " \t", &save);
            if (!number(v, dst)) {
                add_err(e, "problem.yaml:%zu: validator_flags: %s needs a number", line, t);
                continue;
            }
            fl = true;
            if (dst == &both)
                abs_tol = rel_tol = both;
        }
    }
    fprintf(out, "checker: {type: %s, case_sensitive: %s, space_change_sensitive: %s", fl ? "float" : "tokens",
            cs ? "true" : "false", ss ? "true" : "false");
    if (abs_tol >= 0)
        fprintf(out, ", absolute_tolerance: %.17g", abs_tol);
    if (rel_tol >= 0)
        fprintf(out, ", relative_tolerance: %.17g", rel_tol);
    fprintf(out, "}\n");
}

/* testdata.yaml of data/ and its groups (legacy, 2023-07) or test_group.yaml (later
 * drafts): settings per test group. The runner judges every test of an
 * ICPC problem alike (stop_on_failure: all, one validator call), so a key
 * that would make one group judged otherwise (validator arguments, grading,
 * scores) is refused naming file, line and key, never dropped; what only
 * the package's input validators read changes nothing. */
static void check_group_yaml(const char *dir, const char *rel, struct errs *e)
{
    static const char *harmless[] = {"input_validator_flags", "input_validator_args", "full_feedback", NULL};
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    struct common_errors found = {0};
    struct ydoc d;
    yaml_node_t *root = ydoc_read(&d, f, rel, &icpc_words, &found) ? NULL : ydoc_root(&d);
    if (root && root->type == YAML_MAPPING_NODE) {
        ydoc_mapping(&d, root, "(top level)");   /* records keys given twice */
        YDOC_FOR_PAIRS(&d, root, ks, k, v) {
            (void)v;   /* the keys alone are judged */
            bool ok = false;
            for (int i = 0; k->type == YAML_SCALAR_NODE && harmless[i]; i++)
                ok = ok || !strcmp(ks, harmless[i]);
            if (!ok)
                add_err(e, "%s:%d: %.60s: not converted: the runner judges every test of an ICPC problem alike "
                           "(no validator arguments, grading or scores per group)", rel, ydoc_line(k), ks);
        }
    } else if (root && !(root->type == YAML_SCALAR_NODE && !root->data.scalar.length)) {
        add_err(e, "%s:1: (top level): expected a mapping", rel);
    }
    ydoc_free(&d);
    fclose(f);
    add_reader_errors(e, &found);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The tests of data/GROUP (any depth, sorted): "- {name, input, output}".
 * Recursive, with the depth of every package tree bounded where it came
 * in (store_unpack, store_copy_tree); refused here too past that depth. */
static int list_tests(const char *dir, const char *rel, FILE *out, struct errs *e)
{
    if (path_depth(rel) > STORE_MAX_DEPTH) {
        add_err(e, "%.200s...:0: data: more than %d directory levels deep", rel, STORE_MAX_DEPTH);
        return 0;
    }
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.') {
            names = realloc(names, (n + 1) * sizeof *names);
            names[n++] = strdup(de->d_name);
        }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    int count = 0;
    for (size_t i = 0; i < n; i++) {
        char sub[4400], full[8900];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        struct stat st;
        size_t len = strlen(names[i]);
        if (!stat(full, &st) && S_ISDIR(st.st_mode)) {
            count += list_tests(dir, sub, out, e);
        } else if (!strcmp(names[i], "testdata.yaml") || !strcmp(names[i], "test_group.yaml")) {
            check_group_yaml(dir, sub, e);
        } else if (len > 12 && !strcmp(names[i] + len - 12, ".interaction")) {
            /* a sample's transcript for the statement; judged only as its .in with .ans */
            char in[4400];
            snprintf(in, sizeof in, "%s/%.*s.in", dir, (int)(strlen(sub) - 12), sub);
            if (stat(in, &st))
                add_err(e, "%s:0: data: a sample given only as a transcript (.interaction, no .in with .ans) "
                           "cannot be judged", sub);
        } else if (len > 3 && !strcmp(names[i] + len - 3, ".in")) {
            char ans[4400], tname[4400];
            snprintf(ans, sizeof ans, "%s/%.*s.ans", dir, (int)(strlen(sub) - 3), sub);
            if (stat(ans, &st)) {
                add_err(e, "%s:0: data: no matching .ans", sub);
                continue;
            }
            /* data/secret/g1/01.in -> secret-g1-01 */
            snprintf(tname, sizeof tname, "%.*s", (int)(strlen(sub) - 3 - 5), sub + 5);
            for (char *c = tname; *c; c++)
                if (*c == '/')
                    *c = '-';
            fprintf(out, "  - {name: \"%s\", input: \"%s\", output: \"%.*s.ans\"}\n", tname, sub,
                    (int)(strlen(sub) - 3), sub);
            count++;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return count;
}

static bool source_name(const char *name)
{
    size_t l = strlen(name);
    return (l > 2 && !strcmp(name + l - 2, ".c")) ||
           (l > 4 && (!strcmp(name + l - 4, ".cpp") || !strcmp(name + l - 4, ".cxx"))) ||
           (l > 3 && (!strcmp(name + l - 3, ".cc") || !strcmp(name + l - 3, ".py")));
}

/* The one source file of FOLDER (output_validators/ of the legacy format,
 * output_validator/ of 2023-07) or of its one subdirectory; headers beside
 * it are the runner's to compile with it. key names the problem.yaml key
 * that asked for it, in errors. */
static int find_validator(const char *dir, const char *folder, const char *key, size_t line, char *rel, size_t len,
                          struct errs *e)
{
    char base[4400];
    snprintf(base, sizeof base, "%s/%s", dir, folder);
    DIR *d = opendir(base);
    if (!d) {
        add_err(e, "problem.yaml:%zu: %s: a custom validator is needed in %s/", line, key, folder);
        return -1;
    }
    char found[2][600];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char p[4800];
        snprintf(p, sizeof p, "%s/%s", base, de->d_name);
        struct stat st;
        if (stat(p, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            DIR *d2 = opendir(p);
            struct dirent *f;
            while (d2 && (f = readdir(d2)))
                if (source_name(f->d_name)) {
                    if (n < 2)
                        snprintf(found[n], sizeof found[n], "%s/%.200s/%.200s", folder, de->d_name, f->d_name);
                    n++;
                }
            if (d2)
                closedir(d2);
        } else if (S_ISREG(st.st_mode) && source_name(de->d_name)) {
            if (n < 2)
                snprintf(found[n], sizeof found[n], "%s/%.200s", folder, de->d_name);
            n++;
        }
    }
    closedir(d);
    if (n != 1) {
        add_err(e, "%s:0: %s: expected exactly one validator source (.c, .cc, .cpp, .py), found %d", folder, key, n);
        return -1;
    }
    snprintf(rel, len, "%s", found[0]);
    return 0;
}

static int stat_dir(const char *dir, const char *rel, struct stat *st)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return stat(p, st) || !S_ISDIR(st->st_mode) ? -1 : 0;
}

/* DOMjudge's domjudge-problem.ini: "key = value" lines, values optionally
 * quoted. What changes judging is read (timelimit, name); what only
 * DOMjudge's contest uses (ids, colour, points, flags) changes nothing;
 * special_run and special_compare name programs kept in DOMjudge's own
 * database, not in the package, and are refused unless the package holds
 * the validator itself. */
struct ini {
    double timelimit;
    char name[512];
    size_t special_compare_line;
};

static void ini_value(char *v)
{
    size_t n = strlen(v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
        v[--n] = 0;
    if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
        memmove(v, v + 1, n - 2);
        v[n - 2] = 0;
    }
}

static void ini_line(char *line, size_t no, struct ini *ini, struct errs *e)
{
    char *eq = strchr(line, '=');
    char *k = line + strspn(line, " \t");
    if (!*k || *k == ';' || *k == '#' || *k == '\r')
        return;
    if (!eq) {
        add_err(e, "domjudge-problem.ini:%zu: (ini): expected key = value", no);
        return;
    }
    *eq = 0;
    char *v = eq + 1 + strspn(eq + 1, " \t");
    ini_value(k);
    ini_value(v);
    if (!strcmp(k, "timelimit")) {
        if (!number(v, &ini->timelimit) || ini->timelimit <= 0)
            add_err(e, "domjudge-problem.ini:%zu: timelimit: expected a positive number of seconds", no);
    } else if (!strcmp(k, "name")) {
        snprintf(ini->name, sizeof ini->name, "%s", v);
    } else if (!strcmp(k, "special_compare")) {
        if (*v)
            ini->special_compare_line = no;
    } else if (!strcmp(k, "special_run")) {
        if (*v)
            add_err(e, "domjudge-problem.ini:%zu: special_run: '%.100s' is a run script of DOMjudge's own database, "
                       "not in the package: not converted", no, v);
    } else if (strcmp(k, "probid") && strcmp(k, "externalid") && strcmp(k, "short-name") && strcmp(k, "color") &&
               strcmp(k, "points") && strcmp(k, "allow_submit") && strcmp(k, "allow_judge")) {
        add_err(e, "domjudge-problem.ini:%zu: %.60s: unknown key", no, k);
    }
}

static void read_ini(const char *dir, struct ini *ini, struct errs *e)
{
    char p[4400], line[1024];
    snprintf(p, sizeof p, "%s/domjudge-problem.ini", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return;
    for (size_t no = 1; fgets(line, sizeof line, f); no++) {
        line[strcspn(line, "\n")] = 0;
        ini_line(line, no, ini, e);
    }
    fclose(f);
}

static double read_timelimit(const char *dir)
{
    char p[4400], buf[64] = "";
    snprintf(p, sizeof p, "%s/.timelimit", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    double v = strtod(buf, NULL);
    return v > 0 ? v : -1;
}

static void yaml_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        if ((unsigned char)*s >= 0x20)
            fputc(*s, out);
    }
    fputc('"', out);
}

/* A custom output validator keeps the Kattis protocol: the runner's checker
 * (or interactor) with protocol kattis, validator_flags passed to it as its
 * arguments after IN ANS FEEDBACK_DIR, as Kattis and DOMjudge call it. */
static void validator_yaml(const char *key, const char *source, const char *flags, FILE *out)
{
    fprintf(out, "%s: {%ssource: ", key, strcmp(key, "checker") ? "" : "type: custom, ");
    yaml_string(out, source);
    fprintf(out, ", protocol: kattis, args: [");
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", flags);
    char *save = NULL;
    int n = 0;
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        fprintf(out, "%s", n++ ? ", " : "");
        yaml_string(out, t);
    }
    fprintf(out, "]}\n");
}

/* The time limit, DOMjudge's own first (.timelimit, then the ini's key, as
 * DOMjudge imports it), then problem.yaml's; with none, what is assumed is
 * said (Kattis derives it from the accepted submissions, which a push does
 * not run). */
static double icpc_time_limit(const char *dir, const struct icpc *y, const struct ini *ini, struct errs *e)
{
    double tl = read_timelimit(dir);
    if (tl < 0)
        add_err(e, ".timelimit:1: time limit: expected a positive number of seconds");
    if (ini->timelimit > 0)
        tl = ini->timelimit;
    if (tl <= 0 && y->time_limit > 0)
        tl = y->time_limit;
    if (tl <= 0) {
        tl = (y->time_multiplier > 0 ? y->time_multiplier : 5) * 1.0;
        add_warn(e, "problem.yaml:0: time_limit: warning: the package gives no time limit (no .timelimit, "
                    "domjudge-problem.ini timelimit or limits.time_limit); assumed %.3g s (time_multiplier %g x 1 s)",
                 tl, y->time_multiplier > 0 ? y->time_multiplier : 5);
    }
    return tl;
}

/* The converted problem.yaml's body into out; the number of tests. */
static int write_converted(FILE *out, const char *dir, const char *name, const struct icpc *y, double tl,
                           bool interactive, bool custom, const char *validator, struct errs *e)
{
    fprintf(out, "# converted from the ICPC/Kattis package format on push; the original is problem.icpc.yaml\n");
    fprintf(out, "name: ");
    yaml_string(out, name);
    fprintf(out, "\n");
    if (y->title[0]) {
        fprintf(out, "title: ");
        yaml_string(out, y->title);
        fprintf(out, "\n");
    }
    fprintf(out, "type: %s\ntime_limit: %.3fs\nmemory_limit: %.0fM\n", interactive ? "interactive" : "batch", tl,
            y->memory_mb > 0 ? y->memory_mb : 2048);
    if (y->output_mb > 0)
        fprintf(out, "output_limit: %.0fM\n", y->output_mb);
    if (custom && validator[0])
        validator_yaml(interactive ? "interactor" : "checker", validator, y->flags, out);
    else if (!custom)
        checker_yaml(y->flags, y->flags_line ? y->flags_line : 1, out, e);
    fprintf(out, "stop_on_failure: all\ntests:\n");
    check_group_yaml(dir, "data/testdata.yaml", e);   /* the whole data/ group's */
    check_group_yaml(dir, "data/test_group.yaml", e);
    int n = list_tests(dir, "data/sample", out, e);
    return n + list_tests(dir, "data/secret", out, e);
}

int store_convert_icpc(const char *dir, const char *name, char **errors)
{
    struct errs e = {0};
    struct icpc y = {.time_multiplier = 0};
    snprintf(y.validation, sizeof y.validation, "default");
    read_icpc_yaml(dir, &y, &e);
    struct ini ini = {0};
    read_ini(dir, &ini, &e);
    if (!y.title[0] && ini.name[0])
        snprintf(y.title, sizeof y.title, "%s", ini.name);
    double tl = icpc_time_limit(dir, &y, &ini, &e);
    char validator[700] = "", folder[64];
    struct stat st;
    /* 2023-07 and later: output_validator/ (one program); there is no
     * validation: key, the folder's presence makes the validation custom */
    snprintf(folder, sizeof folder, "%s", !stat_dir(dir, "output_validator", &st) ? "output_validator"
                                                                                 : "output_validators");
    bool modern = y.version[0] && strcmp(y.version, "legacy");
    bool interactive = !strcmp(y.validation, "custom interactive") || y.interactive_type;
    bool custom = interactive || !strcmp(y.validation, "custom") ||
                  (modern && !strcmp(folder, "output_validator"));
    if (ini.special_compare_line && !custom)
        add_err(&e, "domjudge-problem.ini:%zu: special_compare: names a compare program of DOMjudge's own database, "
                    "not in the package: give it as output_validators/ with validation: custom",
                ini.special_compare_line);
    if (custom)
        find_validator(dir, folder, y.interactive_type ? "type" : "validation",
                       y.interactive_type ? y.type_line : y.validation_line ? y.validation_line : 1, validator,
                       sizeof validator, &e);
    char out_path[4400], tmp[4400], orig[4400];
    snprintf(out_path, sizeof out_path, "%s/problem.yaml", dir);
    snprintf(orig, sizeof orig, "%s/problem.icpc.yaml", dir);
    snprintf(tmp, sizeof tmp, "%s/.problem.yaml.new", dir);
    FILE *out = fopen(tmp, "w");
    if (!out) {
        add_err(&e, "problem.yaml:0: (package): cannot write: %s", strerror(errno));
        *errors = e.buf;
        return e.n;
    }
    int n = write_converted(out, dir, name, &y, tl, interactive, custom, validator, &e);
    fclose(out);
    if (n == 0)
        add_err(&e, "data/secret:0: data: no tests (*.in with *.ans in data/sample or data/secret)");
    if (e.n == 0 && !stat(out_path, &st) && rename(out_path, orig))
        add_err(&e, "problem.yaml:0: (package): %s", strerror(errno));
    if (e.n == 0 && rename(tmp, out_path))
        add_err(&e, "problem.yaml:0: (package): %s", strerror(errno));
    unlink(tmp);
    *errors = e.buf;
    return e.n;
}
