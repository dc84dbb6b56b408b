/*
 * submission.c - a submission of several files (common/fileset.h) written
 * into src/: its files at their relative paths, and what the language's
 * compile names in place of its source file. The language file says
 * which file is the entry point (`entry`, languages/README.md):
 *
 *  - entry: all -- every file with the source's extension is compiled, in
 *    name order (C and C++ with headers beside, Java's package
 *    directories: javac finds the class with main itself);
 *  - entry: [NAMES] -- the first of these names the set has is the entry
 *    point (Python: main.py, then __main__.py), saved under the source's
 *    name, which the run command names;
 *  - without entry: the file named as the source (main.go).
 * Without such a file, one file of the source's extension is the entry
 * point whatever its name; none, or several, is CE naming what was
 * looked for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileset.h"
#include "internal.h"

static bool has_extension(const char *name, const char *source)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    const char *a = strrchr(base, '.'), *b = strrchr(source, '.');
    return a && b && a != base && !strcmp(a, b);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* mkdir -p of name's directories below dir (0777, as src/ itself: a
 * compiler writes its classes there), then the file */
static int write_below(const char *dir, const char *name, const char *data, size_t len)
{
    char *path = rn_strdup_printf("%s/%s", dir, name);
    if (!path)
        return -1;
    int rc = 0;
    for (char *c = strchr(path + strlen(dir) + 1, '/'); rc == 0 && c; c = strchr(c + 1, '/')) {
        *c = '\0';
        if ((mkdir(path, 0777) < 0 && errno != EEXIST) || chmod(path, 0777) < 0)
            rc = -1;
        *c = '/';
    }
    rc = rc < 0 ? rc : rn_write_file(path, data, len, 0644);
    free(path);
    return rc;
}

/* the entry point of a set of a language without entry: all; NULL with
 * *message (CE) */
static const struct fileset_file *entry_of(const struct rn_language *l, const struct fileset *fs,
                                           char **message)
{
    char *const own[] = {l->source, NULL};
    char *const *names = l->entry ? l->entry : own;
    for (char *const *e = names; *e; e++) {
        const struct fileset_file *f = fileset_find(fs, *e);
        if (f)
            return f;
    }
    const struct fileset_file *only = NULL;
    size_t n = 0;
    for (size_t i = 0; i < fs->count; i++)
        if (has_extension(fs->files[i].name, l->source))
            only = &fs->files[i], n++;
    if (n == 1)
        return only;
    char *list = strdup("");
    for (char *const *e = names; list && *e; e++) {
        char *t = rn_strdup_printf("%s%s%s", list, *list ? " or " : "", *e);
        free(list);
        list = t;
    }
    *message = rn_strdup_printf("the submission's %zu files name no entry point: %s is not among them%s\n",
                                fs->count, list ? list : l->source,
                                n ? ", and more than one file has its extension" : "");
    free(list);
    return NULL;
}

int rn_submission_write_files(struct rn_job *j, const struct fileset *fs, char ***sources, char **message)
{
    const struct rn_language *l = j->lang;
    const struct fileset_file *entry = l->entry_all ? NULL : entry_of(l, fs, message);
    if (!l->entry_all && !entry)
        return 1;
    if (rn_fresh_dir(j->src, 0777) < 0)
        return rn_job_infra(j, j->src, strerror(errno));
    char **list = calloc(fs->count + 1, sizeof *list);
    if (!list)
        return rn_job_infra(j, "submission", "out of memory");
    *sources = list;
    size_t k = 0;
    for (size_t i = 0; i < fs->count; i++) {
        const struct fileset_file *f = &fs->files[i];
        const char *name = f == entry ? l->source : f->name;
        if (write_below(j->src, name, f->data, f->len) < 0)
            return rn_job_infra(j, j->src, strerror(errno));
        if (l->entry_all && has_extension(f->name, l->source))
            list[k++] = strdup(f->name);
    }
    if (l->entry_all && k == 0) {
        *message = rn_strdup_printf("none of the submission's %zu files ends as %s does\n", fs->count,
                                    l->source);
        return 1;
    }
    if (!l->entry_all)
        list[k++] = strdup(l->source);
    /* name order, as a directory listing shows them */
    qsort(list, k, sizeof *list, by_name);
    return 0;
}

/* ------------------------------------------------ output-only answer files */

char *rn_answer_file_name(const struct rn_problem *p, size_t i)
{
    char *out = strdup("");
    for (const char *c = p->answer_file; out && *c;) {
        char *t;
        if (!strncmp(c, "{name}", 6))
            t = rn_strdup_printf("%s%s", out, p->tests[i].name), c += 6;
        else if (!strncmp(c, "{index}", 7))
            t = rn_strdup_printf("%s%03zu", out, i), c += 7;
        else
            t = rn_strdup_printf("%s%c", out, *c), c++;
        free(out);
        out = t;
    }
    return out;
}

int rn_submission_write_answers(struct rn_job *j, const struct fileset *fs)
{
    if (rn_fresh_dir(j->src, 0755) < 0)
        return rn_job_infra(j, j->src, strerror(errno));
    for (size_t i = 0; i < fs->count; i++)
        if (write_below(j->src, fs->files[i].name, fs->files[i].data, fs->files[i].len) < 0)
            return rn_job_infra(j, j->src, strerror(errno));
    return 0;
}
