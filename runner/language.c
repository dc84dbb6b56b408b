/*
 * language.c - languages/NAME.yaml: how to compile and run one language.
 *
 * Adding a language is adding a file. Every key is validated (unknown keys,
 * wrong types, bad sizes and durations are errors naming file, line and key)
 * so a typo never silently falls back to a default. Argv templates may use
 * {memory_mb}, the run's memory limit in MiB, e.g. for java -Xmx.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "yaml_doc.h"

#define DEFAULT_PATH "PATH=/usr/local/bin:/usr/bin:/bin"

void rn_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

static char *expand_one(const char *t, uint64_t memory_bytes)
{
    const char *hit = strstr(t, "{memory_mb}");
    if (!hit)
        return strdup(t);
    char *rest = expand_one(hit + strlen("{memory_mb}"), memory_bytes);
    char *s = rn_strdup_printf("%.*s%llu%s", (int)(hit - t), t,
                               (unsigned long long)(memory_bytes >> 20), rest ? rest : "");
    free(rest);
    return s;
}

char **rn_argv_expand(char *const *tmpl, uint64_t memory_bytes, char *const *extra)
{
    size_t n = 0, m = 0;
    while (tmpl[n])
        n++;
    while (extra && extra[m])
        m++;
    char **argv = calloc(n + m + 1, sizeof *argv);
    if (!argv)
        return NULL;
    for (size_t i = 0; i < n; i++)
        argv[i] = expand_one(tmpl[i], memory_bytes);
    for (size_t i = 0; i < m; i++)
        argv[n + i] = strdup(extra[i]);
    return argv;
}

void rn_language_free(struct rn_language *l)
{
    if (!l)
        return;
    free(l->file);
    free(l->id);
    free(l->name);
    free(l->source);
    free(l->profile);
    rn_argv_free(l->version);
    for (size_t i = 0; i < l->compile_steps; i++)
        rn_argv_free(l->compile[i]);
    free(l->compile);
    rn_argv_free(l->run);
    rn_argv_free(l->mounts);
    rn_argv_free(l->env);
    free(l);
}

void rn_languages_free(struct rn_language **ls, size_t count)
{
    for (size_t i = 0; i < count; i++)
        rn_language_free(ls[i]);
    free(ls);
}

static int nonempty_argv(struct ydoc *y, yaml_node_t *n, const char *key, char ***out)
{
    if (ydoc_strings(y, n, key, out) < 0)
        return -1;
    if (!(*out)[0]) {
        ydoc_error(y, n, key, "the command must not be empty");
        return -1;
    }
    return 0;
}

/* compile: [argv...] or [[argv...], [argv...]] */
static int parse_compile(struct ydoc *y, yaml_node_t *n, struct rn_language *l)
{
    if (!n || n->type != YAML_SEQUENCE_NODE) {
        ydoc_error(y, n, "compile", "expected a command (a list) or a list of commands");
        return -1;
    }
    /* given twice: an error already, and the first list must not leak */
    for (size_t i = 0; i < l->compile_steps; i++)
        rn_argv_free(l->compile[i]);
    free(l->compile);
    l->compile = NULL;
    l->compile_steps = 0;
    yaml_node_item_t *items = n->data.sequence.items.start;
    size_t count = (size_t)(n->data.sequence.items.top - items);
    yaml_node_t *first = count ? ydoc_node(y, items[0]) : NULL;
    if (!first || first->type == YAML_SCALAR_NODE) {
        l->compile = calloc(1, sizeof *l->compile);
        l->compile_steps = l->compile ? 1 : 0;
        return l->compile ? nonempty_argv(y, n, "compile", &l->compile[0]) : -1;
    }
    l->compile = calloc(count, sizeof *l->compile);
    l->compile_steps = l->compile ? count : 0;
    int rc = 0;
    for (size_t i = 0; l->compile && i < count; i++)
        if (nonempty_argv(y, ydoc_node(y, items[i]), "compile", &l->compile[i]) < 0)
            rc = -1;
    return l->compile ? rc : -1;
}

static int parse_compile_limits(struct ydoc *y, yaml_node_t *n, struct rn_language *l)
{
    if (ydoc_mapping(y, n, "compile_limits") < 0)
        return -1;
    int rc = 0;
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        int r;
        if (!strcmp(key, "time"))
            r = ydoc_duration(y, v, "compile_limits.time", &l->compile_time);
        else if (!strcmp(key, "memory"))
            r = ydoc_size(y, v, "compile_limits.memory", &l->compile_memory);
        else if (!strcmp(key, "output"))
            r = ydoc_size(y, v, "compile_limits.output", &l->compile_output);
        else if (!strcmp(key, "procs"))
            r = ydoc_int(y, v, "compile_limits.procs", 1, &l->compile_procs);
        else {
            ydoc_error(y, k, key, "unknown key in compile_limits (time, memory, output, procs)");
            r = -1;
        }
        rc |= r;
    }
    return rc;
}

static int parse_env(struct ydoc *y, yaml_node_t *n, struct rn_language *l)
{
    if (ydoc_mapping(y, n, "env") < 0)
        return -1;
    size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    char **env = calloc(count + 2, sizeof *env);
    size_t used = 0;
    bool has_path = false;
    int rc = 0;
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        const char *val = ydoc_scalar(y, v, key);
        if (!val || !*key || strchr(key, '=')) {
            if (val)
                ydoc_error(y, k, "env", "bad variable name '%s'", key);
            rc = -1;
            continue;
        }
        has_path |= !strcmp(key, "PATH");
        env[used++] = rn_strdup_printf("%s=%s", key, val);
    }
    if (!has_path)
        env[used++] = strdup(DEFAULT_PATH);
    rn_argv_free(l->env);
    l->env = env;
    return rc;
}

static int parse_key(struct ydoc *y, const char *key, yaml_node_t *k, yaml_node_t *v,
                     struct rn_language *l)
{
    if (!strcmp(key, "id"))
        return ydoc_string(y, v, key, &l->id);
    if (!strcmp(key, "name"))
        return ydoc_string(y, v, key, &l->name);
    if (!strcmp(key, "version"))
        return nonempty_argv(y, v, key, &l->version);
    if (!strcmp(key, "source"))
        return ydoc_string(y, v, key, &l->source);
    if (!strcmp(key, "compile"))
        return parse_compile(y, v, l);
    if (!strcmp(key, "run"))
        return nonempty_argv(y, v, key, &l->run);
    if (!strcmp(key, "pool"))
        return 0; /* obsolete and ignored: judged.yaml's pools route languages */
    if (!strcmp(key, "time_factor"))
        return ydoc_number(y, v, key, &l->time_factor);
    if (!strcmp(key, "extra_memory"))
        return ydoc_size(y, v, key, &l->extra_memory);
    if (!strcmp(key, "compile_limits"))
        return parse_compile_limits(y, v, l);
    if (!strcmp(key, "processes"))
        return ydoc_int(y, v, key, 1, &l->processes);
    if (!strcmp(key, "profile"))
        return ydoc_string(y, v, key, &l->profile);
    if (!strcmp(key, "mounts"))
        return ydoc_strings(y, v, key, &l->mounts);
    if (!strcmp(key, "env"))
        return parse_env(y, v, l);
    ydoc_error(y, k, key, "unknown key");
    return -1;
}

static int check_required(struct ydoc *y, yaml_node_t *root, struct rn_language *l)
{
    int rc = 0;
    const struct { const char *key; const void *value; } req[] = {
        {"id", l->id}, {"name", l->name}, {"version", l->version},
        {"source", l->source}, {"run", l->run},
    };
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++)
        if (!req[i].value) {
            ydoc_error(y, root, req[i].key, "missing (required)");
            rc = -1;
        }
    if (l->source && (strchr(l->source, '/') || !strcmp(l->source, "..")))
        ydoc_error(y, root, "source", "must be a plain file name"), rc = -1;
    if (l->time_factor <= 0)
        ydoc_error(y, root, "time_factor", "must be positive"), rc = -1;
    for (char **m = l->mounts; m && *m; m++)
        if (**m != '/')
            ydoc_error(y, root, "mounts", "'%s' is not an absolute path", *m), rc = -1;
    return rc;
}

static struct rn_language *language_defaults(const char *path)
{
    struct rn_language *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->file = strdup(path);
    l->time_factor = 1.0;
    l->compile_time = 10.0;
    l->compile_memory = 512ULL << 20;
    l->compile_output = 64ULL << 20;
    l->compile_procs = 32;
    l->processes = 1;
    l->profile = strdup("default");
    l->env = calloc(2, sizeof *l->env);
    l->env[0] = strdup(DEFAULT_PATH);
    return l;
}

int rn_language_parse(const char *text, size_t len, const char *display,
                      struct rn_language **out, struct rn_errors *errs)
{
    struct ydoc y;
    size_t errors_before = errs->count + errs->dropped;
    if (ydoc_parse(&y, text, len, display, errs) < 0) {
        ydoc_free(&y);
        return -1;
    }
    struct rn_language *l = language_defaults(display);
    yaml_node_t *root = ydoc_root(&y);
    int rc = ydoc_mapping(&y, root, "document");
    if (rc == 0) {
        YDOC_FOR_PAIRS(&y, root, key, k, v) rc |= parse_key(&y, key, k, v, l);
        rc |= check_required(&y, root, l);
    }
    ydoc_free(&y);
    if (rc || errs->count + errs->dropped > errors_before) {
        rn_language_free(l);
        return -1;
    }
    *out = l;
    return 0;
}

/* a regular file of at most max bytes (not a FIFO, a device, ...) */
static char *read_language_file(const char *path, uint64_t max, size_t *len,
                                struct rn_errors *errs)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        rn_errors_add(errs, "%s:0: cannot open: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    bool too_big = (uint64_t)st.st_size > max;
    char *text = NULL;
    if (S_ISREG(st.st_mode) && !too_big)
        text = rn_fd_read(fd, (size_t)max, len, &too_big);
    int err = errno;
    close(fd);
    if (!S_ISREG(st.st_mode))
        rn_errors_add(errs, "%s:0: document: %s, not a regular file", path,
                      rn_kind_name(st.st_mode));
    else if (too_big)
        rn_errors_add(errs, "%s:0: document: larger than the limit of %llu bytes (the "
                      "yaml_size limit)", path, (unsigned long long)max);
    else if (!text)
        rn_errors_add(errs, "%s:0: cannot read: %s", path, strerror(err));
    return text;
}

int rn_language_load_max(const char *path, uint64_t max_size, struct rn_language **out,
                         struct rn_errors *errs)
{
    size_t len = 0;
    char *text = read_language_file(path, max_size ? max_size : RUNNER_DEFAULT_YAML_SIZE, &len,
                                    errs);
    if (!text)
        return -1;
    int rc = rn_language_parse(text, len, path, out, errs);
    free(text);
    return rc;
}

int rn_language_load(const char *path, struct rn_language **out, struct rn_errors *errs)
{
    return rn_language_load_max(path, 0, out, errs);
}

static int yaml_name(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".yaml");
}

int rn_languages_load_dir(const char *dir, uint64_t max_size, struct rn_language ***out,
                          size_t *count, struct rn_errors *errs)
{
    struct dirent **names;
    int n = scandir(dir, &names, yaml_name, alphasort);
    if (n < 0) {
        rn_errors_add(errs, "%s: cannot read the languages directory", dir);
        return -1;
    }
    struct rn_language **ls = calloc((size_t)n + 1, sizeof *ls);
    size_t used = 0;
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char *path = rn_strdup_printf("%s/%s", dir, names[i]->d_name);
        struct rn_language *l;
        if (rn_language_load_max(path, max_size, &l, errs) == 0) {
            /* one name everywhere: judgectl and judged.yaml name the file */
            int stem = (int)strlen(names[i]->d_name) - 5;
            if ((int)strlen(l->id) != stem || strncmp(l->id, names[i]->d_name, (size_t)stem)) {
                rn_errors_add(errs, "%s: id: '%s' must equal the file name (%.*s)", path, l->id,
                              stem, names[i]->d_name);
                rc = -1;
            }
            for (size_t j = 0; j < used; j++)
                if (!strcmp(ls[j]->id, l->id)) {
                    rn_errors_add(errs, "%s:1: id: '%s' is already defined by %s", path, l->id,
                                  ls[j]->file);
                    rc = -1;
                }
            ls[used++] = l;
        } else
            rc = -1;
        free(path);
        free(names[i]);
    }
    free(names);
    if (n == 0) {
        rn_errors_add(errs, "%s: no *.yaml language files", dir);
        rc = -1;
    }
    if (rc) {
        rn_languages_free(ls, used);
        return -1;
    }
    *out = ls;
    *count = used;
    return 0;
}
