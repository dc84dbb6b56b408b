/*
 * program.c - a checker or interactor given as a directory: the ICPC
 * package format's "program" (its appendix "Programs"). Two forms:
 *
 *  - scripts: the directory holds `build` and/or `run`. `build` runs once
 *    in a copy of the directory in the compile box (`/bin/sh build`, so it
 *    need not be executable: zips lose modes); `run` must exist afterwards
 *    and is the program, started with the protocol's arguments: directly
 *    when it begins with "#!" or is an ELF file (it is made executable in
 *    the copy), else as `/bin/sh run`.
 *  - sources: no scripts; every file whose ending a language has is a
 *    source, and they must all be of one language (headers and other files
 *    come along, uncompiled). They are compiled together by the language's
 *    own commands, its source file name replaced by the list. A language
 *    whose run command names its source file (Python's main.py) needs that
 *    entry point among them when there are several.
 *
 * Every file is read beneath the package root (a link leaving it is
 * refused) within bounds on the number, depth and size of the files: the
 * directory is package content, read as root. The whole content (names
 * and bytes) keys the built result in the checker cache (helper.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define PROGRAM_FILES 256               /* files of a program directory */
#define PROGRAM_DEPTH 8                 /* directory levels below it */
#define PROGRAM_BYTES (64u << 20)       /* bytes of its files together */

void rn_program_free(struct rn_program *pg)
{
    for (size_t i = 0; i < pg->count; i++) {
        free(pg->names[i]);
        free(pg->text[i]);
    }
    free(pg->names);
    free(pg->text);
    free(pg->len);
    free(pg->sources);
    *pg = (struct rn_program){0};
}

static int add_file(struct rn_program *pg, char *name, char *text, size_t len)
{
    size_t k = pg->count;
    char **n = realloc(pg->names, (k + 1) * sizeof *n);
    char **t = n ? realloc(pg->text, (k + 1) * sizeof *t) : NULL;
    size_t *l = t ? realloc(pg->len, (k + 1) * sizeof *l) : NULL;
    if (n)
        pg->names = n;
    if (t)
        pg->text = t;
    if (l)
        pg->len = l;
    if (!l) {
        free(name);
        free(text);
        return -1;
    }
    pg->names[k] = name, pg->text[k] = text, pg->len[k] = len;
    pg->count++;
    return 0;
}

/* rel (a directory beneath root), its files as "sub/name" below base */
static int read_tree(struct rn_program *pg, int root, const char *rel, const char *sub, int depth,
                     size_t *bytes, char *why, size_t whylen)
{
    char q[COMMON_QUOTE_CAP];
    if (depth > PROGRAM_DEPTH)
        return snprintf(why, whylen, "%s: more than %d directory levels", common_quote(q, sizeof q, rel,
                        strlen(rel)), PROGRAM_DEPTH), -1;
    char inner[128];
    int dfd = rn_pkg_open(root, rel, true, NULL, inner, sizeof inner);
    struct dirent **names = NULL;
    int n = dfd < 0 ? -1 : scandirat(dfd, ".", &names, NULL, alphasort);
    if (dfd >= 0)
        close(dfd);
    if (n < 0)
        return snprintf(why, whylen, "%s: %s", common_quote(q, sizeof q, rel, strlen(rel)),
                        dfd < 0 ? inner : strerror(errno)), -1;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *d = names[i]->d_name;
        if (rc == 0 && strcmp(d, ".") && strcmp(d, "..")) {
            char *path = rn_strdup_printf("%s/%s", rel, d);
            char *name = *sub ? rn_strdup_printf("%s/%s", sub, d) : strdup(d);
            if (rn_pkg_kind(root, path, true, inner, sizeof inner) == 0) {
                rc = read_tree(pg, root, path, name, depth + 1, bytes, why, whylen);
                free(name);
            } else if (pg->count >= PROGRAM_FILES) {
                snprintf(why, whylen, "more than %d files", PROGRAM_FILES);
                free(name);
                rc = -1;
            } else {
                size_t len = 0;
                char *text = rn_pkg_read(root, path, PROGRAM_BYTES - *bytes, &len, inner, sizeof inner);
                if (!text) {
                    snprintf(why, whylen, "%s: %s", common_quote(q, sizeof q, path, strlen(path)), inner);
                    free(name);
                    rc = -1;
                } else {
                    *bytes += len;
                    rc = add_file(pg, name, text, len);
                }
            }
            free(path);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

static bool has_file(const struct rn_program *pg, const char *name)
{
    for (size_t i = 0; i < pg->count; i++)
        if (!strcmp(pg->names[i], name))
            return true;
    return false;
}

static bool is_header(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hpp"));
}

/* whether l's run command names its source file (python3 main.py): then
 * that file is the entry point and must be there */
static bool runs_by_source_name(const struct rn_language *l)
{
    for (char **a = l->run; a && *a; a++)
        if (!strcmp(*a, l->source))
            return true;
    return false;
}

/* The sources form: the one language of the files, its sources, the
 * entry point. -1 with why. */
static int find_language(const struct runner *r, struct rn_program *pg, char *why, size_t whylen)
{
    const struct rn_language *other = NULL;
    size_t n = 0, other_file = 0;
    pg->sources = calloc(pg->count + 1, sizeof *pg->sources);
    if (!pg->sources)
        return snprintf(why, whylen, "out of memory"), -1;
    for (size_t i = 0; i < pg->count; i++) {
        const char *base = strrchr(pg->names[i], '/');
        base = base ? base + 1 : pg->names[i];
        const struct rn_language *l = is_header(base) ? NULL : rn_language_for_file(r, base);
        if (!l)
            continue;
        if (pg->lang && l != pg->lang) {
            other = l, other_file = i;
            break;
        }
        pg->lang = l;
        pg->sources[n++] = pg->names[i];
    }
    char q1[COMMON_QUOTE_CAP], q2[COMMON_QUOTE_CAP];
    if (other)
        return snprintf(why, whylen, "sources of two languages (%s: %s, %s: %s) and no build or run script",
                        pg->lang->id, common_quote(q1, sizeof q1, pg->sources[0], strlen(pg->sources[0])),
                        other->id, common_quote(q2, sizeof q2, pg->names[other_file],
                                                strlen(pg->names[other_file]))), -1;
    if (!pg->lang)
        return snprintf(why, whylen, "no build or run script and no source of a configured language"), -1;
    if (n > 1 && runs_by_source_name(pg->lang) && !has_file(pg, pg->lang->source))
        return snprintf(why, whylen, "%zu %s sources and none is %s, the entry point", n, pg->lang->id,
                        pg->lang->source), -1;
    /* one source of such a language is the entry point whatever its name */
    if (n == 1 && runs_by_source_name(pg->lang) && strcmp(pg->sources[0], pg->lang->source)) {
        for (size_t i = 0; i < pg->count; i++)
            if (pg->names[i] == pg->sources[0]) {
                char *entry = strdup(pg->lang->source);
                if (!entry)
                    return snprintf(why, whylen, "out of memory"), -1;
                free(pg->names[i]);
                pg->names[i] = pg->sources[0] = entry;
            }
    }
    return 0;
}

int rn_program_read(const struct runner *r, const struct rn_problem *p, const char *dir, struct rn_program *pg,
                    char *why, size_t whylen)
{
    *pg = (struct rn_program){0};
    int root = rn_pkg_root(p->dir, why, whylen);
    if (root < 0)
        return -1;
    size_t bytes = 0;
    int rc = read_tree(pg, root, dir, "", 0, &bytes, why, whylen);
    close(root);
    if (rc < 0)
        return -1;
    pg->build = has_file(pg, "build");
    pg->run = has_file(pg, "run");
    if (pg->build || pg->run)
        return 0;
    return find_language(r, pg, why, whylen);
}

int rn_program_hash(const struct rn_program *pg, char *const *flags, char out[65])
{
    size_t n = 0, cap = 4 + 3 * pg->count;
    const struct rn_language *l = pg->lang;
    for (size_t s = 0; l && s < l->compile_steps; s++)
        for (char **a = l->compile[s]; *a; a++)
            cap++;
    for (char *const *f = flags; f && *f; f++)
        cap++;
    const void **parts = calloc(cap, sizeof *parts);
    size_t *lens = calloc(cap, sizeof *lens);
    if (!parts || !lens) {
        free(parts);
        free(lens);
        return -1;
    }
    const char *form = l ? "program: sources" : "program: build/run scripts";
    parts[n] = form, lens[n++] = strlen(form) + 1;
    if (l) {
        parts[n] = l->id, lens[n++] = strlen(l->id) + 1;
        for (size_t s = 0; s < l->compile_steps; s++)
            for (char **a = l->compile[s]; *a; a++)
                parts[n] = *a, lens[n++] = strlen(*a) + 1;
        for (char *const *f = flags; f && *f; f++)
            parts[n] = *f, lens[n++] = strlen(*f) + 1;
    }
    for (size_t i = 0; i < pg->count; i++) {
        parts[n] = pg->names[i], lens[n++] = strlen(pg->names[i]) + 1;
        /* the length first, so that no two directories hash alike */
        parts[n] = &pg->len[i], lens[n++] = sizeof pg->len[i];
        parts[n] = pg->text[i], lens[n++] = pg->len[i];
    }
    int rc = rn_sha256_hex(parts, lens, n, out);
    free(parts);
    free(lens);
    return rc;
}

/* mkdir -p of the directories above name inside dir */
static int make_parents(const char *dir, const char *name)
{
    char *path = rn_strdup_printf("%s/%s", dir, name);
    char *slash = path ? strrchr(path, '/') : NULL;
    int rc = path ? 0 : -1;
    if (slash && slash > path + strlen(dir)) {
        *slash = '\0';
        rc = rn_mkdir_p(path, 0777);
        /* writable by the build, as the compile box's own directory is */
        for (char *p = path + strlen(dir); rc == 0 && p; p = strchr(p + 1, '/')) {
            char c = *p;
            *p = '\0';
            if (p > path + strlen(dir))
                rc = chmod(path, 0777);
            *p = c;
        }
        if (rc == 0)
            rc = chmod(path, 0777);
    }
    free(path);
    return rc;
}

int rn_program_write(const struct rn_program *pg, const char *dir)
{
    if (rn_fresh_dir(dir, 0777) < 0)
        return -1;
    for (size_t i = 0; i < pg->count; i++) {
        char *path = rn_strdup_printf("%s/%s", dir, pg->names[i]);
        int rc = !path || make_parents(dir, pg->names[i]) < 0 ? -1
                                                             : rn_write_file(path, pg->text[i], pg->len[i], 0644);
        free(path);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* A built run file that the kernel can start itself (a "#!" script or an
 * ELF program) is made executable; 1 when it was, 0 when it is to be read
 * by /bin/sh, -1 when there is no regular file `run`. */
int rn_program_mark_run(const char *built)
{
    char *path = rn_strdup_printf("%s/run", built);
    int fd = path ? open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
    struct stat st;
    unsigned char head[4] = {0};
    int rc = fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ? -1 : 0;
    if (rc == 0 && read(fd, head, sizeof head) >= 2 &&
        (!memcmp(head, "#!", 2) || !memcmp(head, "\x7f" "ELF", 4)))
        rc = fchmod(fd, (st.st_mode & 07777) | 0755) < 0 ? -1 : 1;
    if (fd >= 0)
        close(fd);
    free(path);
    return rc;
}

static char **argv_of(const char *a, const char *b)
{
    char **v = calloc(3, sizeof *v);
    if (v) {
        v[0] = strdup(a);
        v[1] = b ? strdup(b) : NULL;
    }
    return v;
}

/* adds host to the mounts (no duplicates) */
static void add_mount(char ***mounts, size_t *n, const char *host)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*mounts)[i], host))
            return;
    char **grown = realloc(*mounts, (*n + 2) * sizeof *grown);
    if (!grown)
        return;
    *mounts = grown;
    (*mounts)[(*n)++] = strdup(host);
    (*mounts)[*n] = NULL;
}

/* The scripts form's "language": build is `/bin/sh build` under the most
 * generous compile limits of the catalog (a build may call any of its
 * compilers), run is `./run` (executable: a "#!" script or a program) or
 * `/bin/sh run`, with the catalog's largest process cap and every
 * language's mounts, so that `run` may start any configured toolchain.
 * Freed with rn_language_free. */
struct rn_language *rn_program_language(const struct runner *r, bool build, bool run_executable)
{
    struct rn_language *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->id = strdup("program");
    l->name = strdup("a program's build/run scripts");
    l->source = strdup("build");
    l->profile = strdup("default");
    l->run = run_executable ? argv_of("./run", NULL) : argv_of("/bin/sh", "run");
    l->env = argv_of("PATH=/usr/local/bin:/usr/bin:/bin", NULL);
    l->time_factor = 1;
    l->compile_steps = build ? 1 : 0;
    l->compile = build ? calloc(1, sizeof *l->compile) : NULL;
    if (l->compile)
        l->compile[0] = argv_of("/bin/sh", "build");
    size_t mounts = 0;
    for (size_t i = 0; i < r->lang_count; i++) {
        const struct rn_language *c = r->langs[i];
        l->compile_time = c->compile_time > l->compile_time ? c->compile_time : l->compile_time;
        l->compile_memory = c->compile_memory > l->compile_memory ? c->compile_memory : l->compile_memory;
        l->compile_output = c->compile_output > l->compile_output ? c->compile_output : l->compile_output;
        l->compile_procs = c->compile_procs > l->compile_procs ? c->compile_procs : l->compile_procs;
        l->processes = c->processes > l->processes ? c->processes : l->processes;
        for (char **m = c->mounts; m && *m; m++)
            add_mount(&l->mounts, &mounts, *m);
    }
    if (!l->id || !l->name || !l->source || !l->profile || !l->run || !l->env || (build && !l->compile)) {
        rn_language_free(l);
        return NULL;
    }
    return l;
}
