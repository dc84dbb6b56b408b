/*
 * fuzz_package.h - the small package the problem store's fuzz targets
 * (fuzz_polygon, fuzz_icpc, fuzz_verify) drop their input into: made once
 * in a private temporary directory, removed at exit, and the checks they
 * share on what a conversion may touch. Included by one target each, so
 * the state is that target's.
 */
#ifndef FUZZ_PACKAGE_H
#define FUZZ_PACKAGE_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

/* A file of the package and its text. */
struct fuzz_file {
    const char *path, *text;
};

static char fuzz_dir[] = "/tmp/fuzz-package-XXXXXX";   /* holds pkg/ and nothing else */
static char fuzz_pkg[64];                              /* fuzz_dir/pkg */

static inline void fuzz_path(char *p, size_t len, const char *rel)
{
    snprintf(p, len, "%s/%s", fuzz_pkg, rel);
}

/* Writes rel (its directories made) with len bytes of text. */
static inline void fuzz_put(const char *rel, const char *text, size_t len)
{
    char p[300];
    fuzz_path(p, sizeof p, rel);
    for (char *s = p + strlen(fuzz_pkg) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "wb");
    if (!f || (len && fwrite(text, 1, len, f) != len))
        abort();
    fclose(f);
}

static inline void fuzz_remove_dir(void)
{
    store_remove_tree(fuzz_dir);
}

/* The package of files[0..n), once. */
static inline void fuzz_make_package(const struct fuzz_file *files, size_t n)
{
    if (fuzz_pkg[0])
        return;
    if (!mkdtemp(fuzz_dir))
        abort();
    atexit(fuzz_remove_dir);
    snprintf(fuzz_pkg, sizeof fuzz_pkg, "%s/pkg", fuzz_dir);
    mkdir(fuzz_pkg, 0755);
    for (size_t i = 0; i < n; i++)
        fuzz_put(files[i].path, files[i].text, strlen(files[i].text));
}

static inline bool fuzz_exists(const char *rel)
{
    char p[300];
    fuzz_path(p, sizeof p, rel);
    return access(p, F_OK) == 0;
}

/* The bytes of a package file (caller frees; at most 1 MiB), or NULL. */
static inline char *fuzz_slurp(const char *rel, size_t *n)
{
    char p[300];
    fuzz_path(p, sizeof p, rel);
    FILE *f = fopen(p, "rb");
    if (!f)
        return NULL;
    char *b = malloc(1 << 20);
    *n = b ? fread(b, 1, 1 << 20, f) : 0;
    fclose(f);
    return b;
}

/* Only NAMES (NULL-terminated) in path; anything else aborts. */
static inline void fuzz_only(const char *path, const char *const *names)
{
    DIR *d = opendir(path);
    if (!d)
        abort();
    struct dirent *e;
    while ((e = readdir(d))) {
        bool known = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
        for (int i = 0; names[i] && !known; i++)
            known = !strcmp(e->d_name, names[i]);
        if (!known)
            abort();   /* written where the conversion has no business */
    }
    closedir(d);
}

/* files[0..n) are as fuzz_make_package wrote them, and nothing was
 * written beside the package. */
static inline void fuzz_package_unchanged(const struct fuzz_file *files, size_t n)
{
    static const char *const beside[] = {"pkg", NULL};
    fuzz_only(fuzz_dir, beside);
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        char *b = fuzz_slurp(files[i].path, &len);
        if (!b || len != strlen(files[i].text) || memcmp(b, files[i].text, len))
            abort();   /* the package's own file was changed */
        free(b);
    }
}

#ifdef JUDGED_RUNNER_H
/* A converted package loads in the runner without an error: what the
 * converter passes must not fail later, on a judging host (the converters'
 * targets include runner.h first). */
static inline void fuzz_runner_accepts(void)
{
    char *errors = NULL, *summary = NULL;
    if (runner_problem_check_limits(NULL, fuzz_pkg, &errors, &summary) > 0) {
        fprintf(stderr, "converted, then refused by the runner:\n%s", errors ? errors : "");
        abort();
    }
    free(errors);
    free(summary);
}
#endif

#endif
