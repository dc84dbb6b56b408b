/*
 * helper.c - building a program the package ships: a custom checker or an
 * interactor.
 *
 * It may be in any language (the first whose source file has its
 * extension), with extra compile flags. It is compiled once per host into
 * HELPERS/SHA256/ (runner_config.helpers_dir: a host's pools share one), content-addressed by the language, its compile
 * commands, the flags, the source and the headers (.h, .hpp)
 * beside it (so testlib.h counts), then sealed and published by rename(): concurrent
 * judges never see half a checker, and a later job finds it ready. Every
 * file is read beneath the package root, so a link leaving the package is
 * refused, never compiled. A helper that does not compile is the problem's
 * fault (IE with the compiler's output), not an infrastructure failure.
 * A helper given as a directory (program.c) is built the same way, keyed
 * by the whole directory's content; a failing build script is the
 * problem's fault too (IE with its output).
 *
 * The cache is bounded (runner_config.helper_cache): after each build the
 * least recently used helpers go until it fits, but never one used in the
 * last HELPER_IN_USE seconds (a use stamps the directory's mtime): a
 * judging that built or found it may start it again for its next test.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define HELPER_IN_USE (30 * 60)

struct cached_helper {
    char *path;
    time_t used;
    uint64_t size;
};

static int add_file_size(const struct common_tree_entry *e, void *ctx)
{
    if (e->kind == COMMON_TREE_FILE)
        *(uint64_t *)ctx += (uint64_t)e->st->st_size;
    return 0;
}

static int by_use(const void *a, const void *b)
{
    const struct cached_helper *x = a, *y = b;
    return x->used < y->used ? -1 : x->used > y->used;
}

/* A use: the helper is the most recently used, and safe from eviction for
 * HELPER_IN_USE seconds. */
static void stamp_use(const char *dir)
{
    (void)utimensat(AT_FDCWD, dir, NULL, 0);
}

/* Removes the least recently used helpers of root until the cache fits
 * max, sparing those in use (builds in progress: *.tmp-*). */
static void evict_helpers(const char *root, uint64_t max)
{
    DIR *d = opendir(root);
    struct cached_helper *all = NULL;
    size_t n = 0;
    uint64_t total = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        struct stat st;
        char *path = e->d_name[0] == '.' || strstr(e->d_name, ".tmp-") ? NULL
                   : rn_strdup_printf("%s/%s", root, e->d_name);
        struct cached_helper *grown = path && stat(path, &st) == 0 ? realloc(all, (n + 1) * sizeof *all) : NULL;
        if (!grown) {
            free(path);
            continue;
        }
        all = grown;
        all[n] = (struct cached_helper){.path = path, .used = st.st_mtime};
        common_tree_walk(path, 0, add_file_size, &all[n].size);
        total += all[n++].size;
    }
    if (d)
        closedir(d);
    qsort(all, n, sizeof *all, by_use);
    time_t now = time(NULL);
    for (size_t i = 0; i < n; i++) {
        if (total > max && now - all[i].used > HELPER_IN_USE) {
            rn_remove_tree(all[i].path);
            total -= all[i].size;
        }
        free(all[i].path);
    }
    free(all);
}

struct checker_src {
    char *text;
    size_t len;
    char **headers;          /* file names beside the source: *.h, *.hpp */
    char **header_text;
    size_t *header_len;
    size_t header_count;
};

static void checker_src_free(struct checker_src *cs)
{
    free(cs->text);
    for (size_t i = 0; i < cs->header_count; i++) {
        free(cs->headers[i]);
        free(cs->header_text[i]);
    }
    free(cs->headers);
    free(cs->header_text);
    free(cs->header_len);
}

static bool is_header(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hpp"));
}

static int add_header(struct checker_src *cs, int root, const char *dir, const char *name,
                      char *why, size_t whylen)
{
    size_t k = cs->header_count;
    char **h = realloc(cs->headers, (k + 1) * sizeof *h);
    char **t = h ? realloc(cs->header_text, (k + 1) * sizeof *t) : NULL;
    size_t *l = t ? realloc(cs->header_len, (k + 1) * sizeof *l) : NULL;
    if (h)
        cs->headers = h;
    if (t)
        cs->header_text = t;
    if (l)
        cs->header_len = l;
    if (!l)
        return snprintf(why, whylen, "out of memory"), -1;
    char *rel = *dir ? rn_strdup_printf("%s/%s", dir, name) : strdup(name);
    char inner[128];
    cs->header_text[k] = rel ? rn_pkg_read(root, rel, 16 << 20, &cs->header_len[k], inner,
                                           sizeof inner) : NULL;
    cs->headers[k] = strdup(name);
    cs->header_count++;
    if (!cs->header_text[k]) {
        char q[COMMON_QUOTE_CAP];
        snprintf(why, whylen, "%s: %s", common_quote(q, sizeof q, rel ? rel : name,
                                                 strlen(rel ? rel : name)), inner);
    }
    free(rel);
    return cs->header_text[k] ? 0 : -1;
}

/* The source and the *.h, *.hpp beside it, each opened beneath the package
 * root: a link leaving the package is refused, never read (and so never
 * compiled nor quoted by a compile error). -1 with why. */
static int read_checker_src(const struct rn_problem *p, const char *source,
                            struct checker_src *cs, char *why, size_t whylen)
{
    *cs = (struct checker_src){0};
    int root = rn_pkg_root(p->dir, why, whylen);
    if (root < 0)
        return -1;
    char inner[128], q[COMMON_QUOTE_CAP];
    cs->text = rn_pkg_read(root, source, 16 << 20, &cs->len, inner, sizeof inner);
    if (!cs->text) {
        snprintf(why, whylen, "%s: %s", common_quote(q, sizeof q, source, strlen(source)), inner);
        close(root);
        return -1;
    }
    char *dir = strdup(source);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (dir)
        *(slash ? slash : dir) = '\0';
    int dfd = dir ? rn_pkg_open(root, *dir ? dir : ".", true, NULL, inner, sizeof inner) : -1;
    struct dirent **names = NULL;
    int n = dfd < 0 ? -1 : scandirat(dfd, ".", &names, NULL, alphasort);
    int rc = n < 0 ? (snprintf(why, whylen, "its directory: %s", inner), -1) : 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0 && is_header(names[i]->d_name))
            rc = add_header(cs, root, dir, names[i]->d_name, why, whylen);
        free(names[i]);
    }
    free(names);
    free(dir);
    if (dfd >= 0)
        close(dfd);
    close(root);
    return rc;
}

static int checker_hash(const struct rn_language *l, const struct checker_src *cs,
                        char *const *flags, char out[65])
{
    size_t n = 0, cap = 8 + 2 * cs->header_count;
    for (size_t s = 0; s < l->compile_steps; s++)
        for (char **a = l->compile[s]; *a; a++)
            cap++;
    for (char *const *f = flags; f && *f; f++)
        cap++;
    const void **parts = calloc(cap, sizeof *parts);
    size_t *lens = calloc(cap, sizeof *lens);
    parts[n] = l->id, lens[n++] = strlen(l->id) + 1;
    for (size_t s = 0; s < l->compile_steps; s++)
        for (char **a = l->compile[s]; *a; a++)
            parts[n] = *a, lens[n++] = strlen(*a) + 1;
    for (char *const *f = flags; f && *f; f++)
        parts[n] = *f, lens[n++] = strlen(*f) + 1;
    parts[n] = cs->text, lens[n++] = cs->len;
    for (size_t i = 0; i < cs->header_count; i++) {
        parts[n] = cs->headers[i], lens[n++] = strlen(cs->headers[i]) + 1;
        parts[n] = cs->header_text[i], lens[n++] = cs->header_len[i];
    }
    int rc = rn_sha256_hex(parts, lens, n, out);
    free(parts);
    free(lens);
    return rc;
}

/* compiles into a private dir and publishes it as cache; 1 on CE */
static int build_checker(struct rn_job *j, const struct rn_language *l, const struct checker_src *cs,
                         char **flags, const char *what, const char *cache, char **message)
{
    char *tmp = rn_strdup_printf("%s.tmp-%d-%d", cache, (int)getpid(), j->slot);
    int rc = rn_write_source(j, l, tmp, cs->text, cs->len);
    for (size_t i = 0; rc == 0 && i < cs->header_count; i++) {
        char *hp = rn_strdup_printf("%s/%s", tmp, cs->headers[i]);
        rc = rn_write_file(hp, cs->header_text[i], cs->header_len[i], 0644);
        free(hp);
    }
    struct rn_compiled c = {0};
    struct rn_compile_opts opts = {.flags = flags, .helper = true};
    if (rc == 0)
        rc = rn_compile_program(j, l, tmp, &opts, &c);
    if (rc == 0 && !c.ok) {
        *message = rn_strdup_printf("the %s does not compile:\n%s", what, c.output);
        rc = 1;
    } else if (rc == 0 && rn_seal_tree(tmp) < 0) {
        rc = rn_job_infra(j, tmp, strerror(errno));
    } else if (rc == 0 && rename(tmp, cache) < 0 && errno != EEXIST && errno != ENOTEMPTY) {
        rc = rn_job_infra(j, cache, strerror(errno));
    }
    free(c.output);
    rn_remove_tree(tmp);   /* no-op after a successful rename */
    free(tmp);
    return rc;
}

/* builds a program directory into a private dir and publishes it as
 * cache: its sources compiled together, or its build script run; 1 when
 * that fails or leaves no `run` (the problem's fault) */
static int build_program(struct rn_job *j, const struct rn_program *pg, char **flags, const char *what,
                         const char *cache, char **message)
{
    char *tmp = rn_strdup_printf("%s.tmp-%d-%d", cache, (int)getpid(), j->slot);
    int rc = rn_program_write(pg, tmp) < 0 ? rn_job_infra(j, tmp, strerror(errno)) : 0;
    struct rn_compiled c = {0};
    struct rn_compile_opts opts = {.flags = flags, .sources = pg->sources, .helper = true};
    struct rn_compile_opts script_opts = {.helper = true};   /* a build script takes no flags */
    struct rn_language *script = pg->lang ? NULL : rn_program_language(j->r, pg->build, false);
    if (rc == 0 && !pg->lang && !script)
        rc = rn_job_infra(j, "program", "out of memory");
    if (rc == 0 && pg->lang)
        rc = rn_compile_program(j, pg->lang, tmp, &opts, &c);
    else if (rc == 0)
        rc = rn_compile_in(j, script, tmp, &script_opts, &c);
    if (rc == 0 && !c.ok) {
        *message = pg->lang ? rn_strdup_printf("the %s does not compile:\n%s", what, c.output)
                            : rn_strdup_printf("the %s's build script failed:\n%s", what, c.output);
        rc = 1;
    } else if (rc == 0 && !pg->lang && rn_program_mark_run(tmp) < 0) {
        *message = rn_strdup_printf("the %s's directory has no regular file `run` after %s", what,
                                    pg->build ? "its build script ran (build must make it)" : "copying");
        rc = 1;
    } else if (rc == 0 && rn_seal_tree(tmp) < 0) {
        rc = rn_job_infra(j, tmp, strerror(errno));
    } else if (rc == 0 && rename(tmp, cache) < 0 && errno != EEXIST && errno != ENOTEMPTY) {
        rc = rn_job_infra(j, cache, strerror(errno));
    }
    rn_language_free(script);
    free(c.output);
    rn_remove_tree(tmp);   /* no-op after a successful rename */
    free(tmp);
    return rc;
}

/* A helper found or built: stamped as used; a new one may push the
 * cache over its bound. */
static void after_use(const struct runner *r, const char *root, const char *dir, bool built)
{
    stamp_use(dir);
    if (built)
        evict_helpers(root, r->helper_cache);
}

/* A checker or interactor given as a directory (program.c): built once per
 * host into HELPERS/SHA256/ keyed by its whole content; sets *dir
 * and *lang (the scripts form's own language in *own). */
static int prepare_program(struct rn_job *j, const char *what, const char *source, char **flags, char **dir,
                           const struct rn_language **lang, struct rn_language **own, char **message)
{
    struct rn_program pg;
    char hex[65], why[512] = "cannot hash it";
    if (rn_program_read(j->r, j->prob, source, &pg, why, sizeof why) < 0 || rn_program_hash(&pg, flags, hex) < 0) {
        char q[COMMON_QUOTE_CAP];
        *message = rn_strdup_printf("the %s's directory %s: %s", what, common_quote(q, sizeof q, source,
                                    strlen(source)), why);
        rn_program_free(&pg);
        return 1;
    }
    char *root = strdup(j->r->helpers_dir);
    free(*dir);
    *dir = rn_strdup_printf("%s/%s", root, hex);
    struct stat st;
    int rc = 0;
    bool built = stat(*dir, &st) < 0;
    if (built)
        rc = rn_mkdir_p(root, 0755) < 0 ? rn_job_infra(j, root, strerror(errno))
                                          : build_program(j, &pg, flags, what, *dir, message);
    after_use(j->r, root, *dir, built && rc == 0);
    free(root);
    *lang = pg.lang;
    if (rc == 0 && !pg.lang) {
        /* sealed: marking again changes nothing, it only says how run starts */
        char *run = rn_strdup_printf("%s/run", *dir);
        bool executable = run && access(run, X_OK) == 0;
        free(run);
        rn_language_free(*own);
        *own = rn_program_language(j->r, false, executable);
        *lang = *own;
        if (!*own)
            rc = rn_job_infra(j, "program", "out of memory");
    }
    rn_program_free(&pg);
    return rc;
}

/* Whether source names a directory of the package (a program directory). */
static bool is_program_dir(const struct rn_problem *p, const char *source)
{
    char why[128];
    int root = rn_pkg_root(p->dir, why, sizeof why);
    bool dir = root >= 0 && rn_pkg_kind(root, source, true, why, sizeof why) == 0;
    if (root >= 0)
        close(root);
    return dir;
}

/* Compiles (or finds cached) a program the package ships, a checker or an
 * interactor: sets *dir and *lang. 0 ready, 1 problem error (*message),
 * -1 infra. */
static int prepare_helper(struct rn_job *j, const char *what, const char *source, char **flags,
                          char **dir, const struct rn_language **lang, struct rn_language **own,
                          char **message)
{
    const struct rn_problem *p = j->prob;
    if (is_program_dir(p, source))
        return prepare_program(j, what, source, flags, dir, lang, own, message);
    *lang = rn_language_for_file(j->r, source);
    if (!*lang) {
        char having[256];
        rn_extension_languages(j->r, source, having, sizeof having);
        *message = having[0] ? rn_strdup_printf("no language compiles '%s' (the %s): its extension is "
                                                "one of %s and none says default_for it", source, what, having)
                             : rn_strdup_printf("no language compiles '%s' (the %s): none has its extension",
                                                source, what);
        return 1;
    }
    struct checker_src cs;
    char hex[65], why[512] = "cannot hash it";
    if (read_checker_src(p, source, &cs, why, sizeof why) < 0 ||
        checker_hash(*lang, &cs, flags, hex) < 0) {
        *message = rn_strdup_printf("cannot read the %s: %s", what, why);
        checker_src_free(&cs);
        return 1;
    }
    char *root = strdup(j->r->helpers_dir);
    free(*dir);
    *dir = rn_strdup_printf("%s/%s", root, hex);
    struct stat st;
    int rc = 0;
    bool built = stat(*dir, &st) < 0;
    if (built)
        rc = rn_mkdir_p(root, 0755) < 0 ? rn_job_infra(j, root, strerror(errno))
                                          : build_checker(j, *lang, &cs, flags, what, *dir, message);
    after_use(j->r, root, *dir, built && rc == 0);
    free(root);
    checker_src_free(&cs);
    return rc;
}

int rn_prepare_checker(struct rn_job *j, char **message)
{
    return prepare_helper(j, "checker", j->prob->checker_prog.source, j->prob->checker_prog.flags,
                          &j->checker_dir, &j->checker_lang, &j->checker_own, message);
}

int rn_prepare_interactor(struct rn_job *j, char **message)
{
    const char *what = j->prob->type == RN_COMMUNICATION ? "manager" : "interactor";
    return prepare_helper(j, what, j->prob->interactor.source, j->prob->interactor.flags,
                          &j->inter_dir, &j->inter_lang, &j->inter_own, message);
}

int rn_prepare_tool(struct rn_job *j, const char *what, const char *source, char **dir,
                    const struct rn_language **lang, struct rn_language **own, char **message)
{
    return prepare_helper(j, what, source, NULL, dir, lang, own, message);
}
