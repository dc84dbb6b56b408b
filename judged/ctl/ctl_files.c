/*
 * ctl_files.c - what `judgectl submit` and `judgectl judge` read as one
 * submission: one file as it is; several files, a directory or a zip (or
 * tar) archive as a file set (common/fileset/fileset.h), packed into one
 * source the way judge-api packs `files`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "ctl.h"
#include "fileset.h"

static bool is_archive(const char *path)
{
    static const char *const ends[] = {".zip", ".tar", ".tar.gz", ".tgz", NULL};
    size_t n = strlen(path);
    for (int i = 0; ends[i]; i++) {
        size_t e = strlen(ends[i]);
        if (n > e && !strcmp(path + n - e, ends[i]))
            return true;
    }
    return false;
}

/* one file, named as given (a leading "./" dropped) */
static int add_path(struct fileset *fs, const char *path, const char *name, size_t max, char *err, size_t errlen)
{
    size_t len;
    char *data = common_read_file(path, max, &len, NULL);
    if (!data)
        return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1;
    while (!strncmp(name, "./", 2))
        name += 2;
    char why[300];
    int rc = fileset_add(fs, name, data, len, why, sizeof why);
    free(data);
    return rc < 0 ? snprintf(err, errlen, "%s: %s", path, why), -1 : 0;
}

struct dir_walk {
    struct fileset *fs;
    size_t max;
    char *err;
    size_t errlen;
};

static int dir_visit(const struct common_tree_entry *e, void *arg)
{
    struct dir_walk *w = arg;
    if (e->kind == COMMON_TREE_DIR || e->kind == COMMON_TREE_DIR_DONE)
        return 0;
    if (e->kind == COMMON_TREE_FILE)
        return add_path(w->fs, e->path, e->rel, w->max, w->err, w->errlen) ? 1 : 0;
    snprintf(w->err, w->errlen, "%s: %s", e->path, e->kind == COMMON_TREE_LINK ? "a link (only regular files "
             "may be submitted)" : e->kind == COMMON_TREE_ERROR ? strerror(e->err) : "not a regular file");
    return 1;
}

static int add_archive(struct fileset *fs, const char *path, size_t max, char *err, size_t errlen)
{
    size_t len;
    char *data = common_read_file(path, max, &len, NULL), why[300];
    if (!data)
        return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -1;
    int rc = fileset_from_archive(data, len, max, fs, why, sizeof why);
    free(data);
    return rc < 0 ? snprintf(err, errlen, "%s: %s", path, why), -1 : 0;
}

char *ctl_read_submission(char *const *paths, int n, size_t max, size_t *len, bool *missing, char *err,
                          size_t errlen)
{
    struct stat st;
    *missing = false;
    for (int i = 0; i < n; i++)
        if (strcmp(paths[i], "-") && stat(paths[i], &st) < 0) {
            *missing = errno == ENOENT;
            return snprintf(err, errlen, "%s: %s", paths[i], strerror(errno)), NULL;
        }
    bool dir = n == 1 && strcmp(paths[0], "-") && S_ISDIR(st.st_mode);
    if (n == 1 && !dir && !is_archive(paths[0])) {
        char *src = jd_read_file(paths[0], max, len, err, errlen);
        if (src && fileset_is(src, *len)) {
            free(src);
            return snprintf(err, errlen, "%s: begins with a file set's mark: name its files instead", paths[0]), NULL;
        }
        return src;
    }
    struct fileset fs = {0};
    int rc = 0;
    if (dir) {
        struct dir_walk w = {&fs, max, err, errlen};
        rc = common_tree_walk(paths[0], FILESET_MAX_DEPTH + 1, dir_visit, &w) ? -1 : 0;
        if (rc == 0 && fs.count == 0)
            rc = -1, snprintf(err, errlen, "%s: no files", paths[0]);
    } else if (n == 1) {
        rc = add_archive(&fs, paths[0], max, err, errlen);
    }
    for (int i = 0; n > 1 && rc == 0 && i < n; i++)
        rc = add_path(&fs, paths[i], paths[i], max, err, errlen);
    char *out = NULL, why[300];
    if (rc == 0 && fileset_pack(&fs, &out, len, why, sizeof why) < 0)
        snprintf(err, errlen, "%s", why);
    fileset_free(&fs);
    if (out && *len > max) {
        snprintf(err, errlen, "the files packed are larger than max_source (%zu bytes)", max);
        free(out);
        out = NULL;
    }
    return out;
}
