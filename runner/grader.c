/*
 * grader.c - a problem's grader for the submission's language: its files
 * are copied (by base name, each read beneath the package root, so a link
 * out of the package is never compiled nor quoted) beside the submission,
 * and the compile commands name the submission and the grader's files of
 * the same extension where the language names its source file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

const struct rn_grader *rn_grader_for(const struct rn_problem *p, const char *lang)
{
    for (size_t i = 0; i < p->grader_count; i++)
        if (!strcmp(p->graders[i].lang, lang))
            return &p->graders[i];
    return NULL;
}

/* Does a language without files of its own fail (grader:), or compile
 * alone (only include: files, ICPC's include/LANG/)? */
bool rn_grader_required(const struct rn_problem *p)
{
    for (size_t i = 0; i < p->grader_count; i++)
        if (!p->graders[i].optional)
            return true;
    return false;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool same_extension(const char *a, const char *b)
{
    const char *da = strrchr(a, '.'), *db = strrchr(b, '.');
    return da && db && !strcmp(da, db);
}

/* "this problem is solved with a grader in: cpp, java" */
char *rn_grader_missing(const struct rn_problem *p, const char *lang)
{
    char *s = rn_strdup_printf("this problem is solved with a grader; '%s' has none (graders:",
                               lang);
    for (size_t i = 0; s && i < p->grader_count; i++) {
        if (p->graders[i].optional)
            continue;
        char *t = rn_strdup_printf("%s %s", s, p->graders[i].lang);
        free(s);
        s = t;
    }
    char *t = s ? rn_strdup_printf("%s)\n", s) : NULL;
    free(s);
    return t;
}

/* Copies the grader's files beside the submission (saved as name) and lists
 * what the compile commands name instead of the language's source file: the
 * submission, then the grader's files of the same extension. 0, 1 when the
 * package is at fault (*message), -1 infra. */
int rn_grader_install(struct rn_job *j, const struct rn_grader *g, const char *name,
                      char ***sources, char **message)
{
    size_t n = 0;
    while (g->files[n])
        n++;
    char **list = calloc(n + 2, sizeof *list);
    size_t k = 0;
    if (!list)
        return rn_job_infra(j, "grader", "out of memory");
    list[k++] = strdup(name);
    *sources = list;
    for (size_t i = 0; i < n; i++) {
        /* where it goes: its base name, or its path below the grader's base */
        const char *base = g->base ? g->files[i] + strlen(g->base) + 1 : base_name(g->files[i]);
        if (!strcmp(base, name)) {
            *message = rn_strdup_printf("grader %s: %s has the name the submission is saved "
                                        "under; set grader.%s.source", g->lang, base, g->lang);
            return 1;
        }
        /* beneath the package root: a link out of it is never read, so
         * never compiled nor quoted by the compiler */
        char why[128], q[COMMON_QUOTE_CAP];
        size_t len;
        int root = rn_pkg_root(j->prob->dir, why, sizeof why);
        char *text = root < 0 ? NULL : rn_pkg_read(root, g->files[i], 16 << 20, &len, why,
                                                   sizeof why);
        if (root >= 0)
            close(root);
        if (!text) {
            *message = rn_strdup_printf("grader %s: %s: %s", g->lang,
                                        common_quote(q, sizeof q, g->files[i], strlen(g->files[i])),
                                        why);
            return 1;
        }
        char *to = rn_strdup_printf("%s/%s", j->src, base);
        char *slash = strrchr(to, '/');
        int rc = 0;
        /* its directories below the submission's, which the compile writes
         * (mode 0777, as the source dir: javac puts its classes there) */
        for (char *c = strchr(to + strlen(j->src) + 1, '/'); rc == 0 && c && c <= slash; c = strchr(c + 1, '/')) {
            *c = '\0';
            if (mkdir(to, 0777) < 0 && errno != EEXIST)
                rc = -1;
            else if (chmod(to, 0777) < 0)
                rc = -1;
            *c = '/';
        }
        rc = rc < 0 ? rc : rn_write_file(to, text, len, 0644);
        free(text);
        free(to);
        if (rc < 0)
            return rn_job_infra(j, j->src, strerror(errno));
        /* compiled by name: those beside the submission (a Java package
         * directory's classes are found by the compiler itself) */
        if (same_extension(base, j->lang->source) && !strchr(base, '/'))
            list[k++] = strdup(base);
    }
    return 0;
}
