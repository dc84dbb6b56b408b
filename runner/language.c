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

#include "fileset.h"
#include "internal.h"
#include "yaml_doc.h"

#define DEFAULT_PATH "PATH=/usr/local/bin:/usr/bin:/bin"
#define PREPARED_ARG "{prepared}"

static void steps_free(char ***steps, size_t count);
static void prepare_free(struct rn_prepare *p);

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

/* An element that is exactly {prepared} becomes the elements of prepared
 * (none when NULL: the language's prepared files are not in use). */
char **rn_argv_expand_prepared(char *const *tmpl, uint64_t memory_bytes,
                               char *const *prepared, char *const *extra)
{
    size_t n = 0, m = 0, p = 0;
    while (tmpl[n])
        n++;
    while (extra && extra[m])
        m++;
    while (prepared && prepared[p])
        p++;
    char **argv = calloc(n + m + p + 1, sizeof *argv);
    if (!argv)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(tmpl[i], PREPARED_ARG)) {
            argv[k++] = expand_one(tmpl[i], memory_bytes);
            continue;
        }
        for (size_t e = 0; e < p; e++)
            argv[k++] = strdup(prepared[e]);
    }
    for (size_t i = 0; i < m; i++)
        argv[k++] = strdup(extra[i]);
    return argv;
}

char **rn_argv_expand(char *const *tmpl, uint64_t memory_bytes, char *const *extra)
{
    return rn_argv_expand_prepared(tmpl, memory_bytes, NULL, extra);
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
    steps_free(l->compile, l->compile_steps);
    prepare_free(l->prepare);
    rn_argv_free(l->run);
    rn_argv_free(l->mounts);
    rn_argv_free(l->env);
    rn_argv_free(l->entry);
    rn_argv_free(l->extensions);
    rn_argv_free(l->default_for);
    free(l->hello);
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

static void steps_free(char ***steps, size_t count)
{
    for (size_t i = 0; i < count; i++)
        rn_argv_free(steps[i]);
    free(steps);
}

/* KEY: [argv...] or [[argv...], [argv...]] (compile, prepare.build) */
static int parse_steps(struct ydoc *y, yaml_node_t *n, const char *key, char ****steps,
                       size_t *steps_count)
{
    if (!n || n->type != YAML_SEQUENCE_NODE) {
        ydoc_error(y, n, key, "expected a command (a list) or a list of commands");
        return -1;
    }
    /* given twice: an error already, and the first list must not leak */
    steps_free(*steps, *steps_count);
    *steps = NULL;
    *steps_count = 0;
    yaml_node_item_t *items = n->data.sequence.items.start;
    size_t count = (size_t)(n->data.sequence.items.top - items);
    yaml_node_t *first = count ? ydoc_node(y, items[0]) : NULL;
    if (!first || first->type == YAML_SCALAR_NODE) {
        *steps = calloc(1, sizeof **steps);
        *steps_count = *steps ? 1 : 0;
        return *steps ? nonempty_argv(y, n, key, &(*steps)[0]) : -1;
    }
    *steps = calloc(count, sizeof **steps);
    *steps_count = *steps ? count : 0;
    int rc = 0;
    for (size_t i = 0; *steps && i < count; i++)
        if (nonempty_argv(y, ydoc_node(y, items[i]), key, &(*steps)[i]) < 0)
            rc = -1;
    return *steps ? rc : -1;
}

/* open_files: the descriptors its boxes may hold, for a runtime that will
 * not start under the box's 64 (Rscript wants ~170); bounded so a language
 * file cannot lift the cap to what the host has */
static int parse_open_files(struct ydoc *y, yaml_node_t *v, struct rn_language *l)
{
    if (ydoc_int(y, v, "open_files", 64, &l->open_files) < 0)
        return -1;
    if (l->open_files > RN_MAX_OPEN_FILES) {
        ydoc_error(y, v, "open_files", "%d is more than %d", l->open_files, RN_MAX_OPEN_FILES);
        return -1;
    }
    return 0;
}

/* {time, memory, output, procs}: compile_limits, prepare.limits */
static int parse_limits(struct ydoc *y, yaml_node_t *n, const char *name, double *time,
                        uint64_t *memory, uint64_t *output, int *procs)
{
    if (ydoc_mapping(y, n, name) < 0)
        return -1;
    int rc = 0;
    char full[64];
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        int r;
        snprintf(full, sizeof full, "%s.%.20s", name, key);
        if (!strcmp(key, "time"))
            r = ydoc_duration(y, v, full, time);
        else if (!strcmp(key, "memory"))
            r = ydoc_size(y, v, full, memory);
        else if (!strcmp(key, "output"))
            r = ydoc_size(y, v, full, output);
        else if (!strcmp(key, "procs"))
            r = ydoc_int(y, v, full, 1, procs);
        else {
            ydoc_error(y, k, key, "unknown key in %s (time, memory, output, procs)", name);
            r = -1;
        }
        rc |= r;
    }
    return rc;
}

static void prepare_free(struct rn_prepare *p)
{
    if (!p)
        return;
    steps_free(p->build, p->build_steps);
    rn_argv_free(p->inputs);
    rn_argv_free(p->compile_flags);
    rn_argv_free(p->run_flags);
    free(p);
}

static int prepare_key(struct ydoc *y, const char *key, yaml_node_t *k, yaml_node_t *v,
                       struct rn_prepare *p)
{
    if (!strcmp(key, "build"))
        return parse_steps(y, v, "prepare.build", &p->build, &p->build_steps);
    if (!strcmp(key, "inputs"))
        return ydoc_strings(y, v, "prepare.inputs", &p->inputs);
    if (!strcmp(key, "compile_flags"))
        return ydoc_strings(y, v, "prepare.compile_flags", &p->compile_flags);
    if (!strcmp(key, "run_flags"))
        return ydoc_strings(y, v, "prepare.run_flags", &p->run_flags);
    if (!strcmp(key, "limits"))
        return parse_limits(y, v, "prepare.limits", &p->time, &p->memory, &p->output, &p->procs);
    ydoc_error(y, k, key, "unknown key in prepare (build, inputs, compile_flags, run_flags, "
               "limits)");
    return -1;
}

/* prepare: {build, inputs, compile_flags, run_flags, limits} (prepared.c) */
static int parse_prepare(struct ydoc *y, yaml_node_t *n, struct rn_language *l)
{
    if (ydoc_mapping(y, n, "prepare") < 0)
        return -1;
    prepare_free(l->prepare);
    struct rn_prepare *p = l->prepare = calloc(1, sizeof *p);
    if (!p)
        return -1;
    *p = (struct rn_prepare){.time = 120, .memory = 2ULL << 30, .output = 1ULL << 30,
                             .procs = 64};
    int rc = 0;
    YDOC_FOR_PAIRS(y, n, key, k, v) rc |= prepare_key(y, key, k, v, p);
    if (!p->build) {
        ydoc_error(y, n, "prepare.build", "missing (required)");
        rc = -1;
    }
    for (char **m = p->inputs; m && *m; m++)
        if (**m != '/')
            ydoc_error(y, n, "prepare.inputs", "'%s' is not an absolute path", *m), rc = -1;
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

/* answers: true | false */
static int parse_answers(struct ydoc *y, yaml_node_t *v, struct rn_language *l)
{
    const char *s = ydoc_scalar(y, v, "answers");
    if (s && (!strcmp(s, "true") || !strcmp(s, "false")))
        return l->answers = !strcmp(s, "true"), 0;
    if (s)
        ydoc_error(y, v, "answers", "expected true or false, not '%.40s'", s);
    return -1;
}

/* entry: all | [NAME, ...] (plain relative names, as a file set's) */
static int parse_entry(struct ydoc *y, yaml_node_t *v, struct rn_language *l)
{
    if (v->type == YAML_SCALAR_NODE) {
        char *word = NULL;
        if (ydoc_string(y, v, "entry", &word) < 0)
            return -1;
        bool all = !strcmp(word, "all");
        free(word);
        if (!all)
            ydoc_error(y, v, "entry", "expected all or a list of file names");
        l->entry_all = all;
        return all ? 0 : -1;
    }
    if (ydoc_strings(y, v, "entry", &l->entry) < 0)
        return -1;
    int rc = l->entry[0] ? 0 : -1;
    if (rc < 0)
        ydoc_error(y, v, "entry", "an empty list");
    for (char **e = l->entry; *e; e++) {
        char why[160];
        if (fileset_name_check(*e, why, sizeof why) < 0)
            ydoc_error(y, v, "entry", "'%s': %s", *e, why), rc = -1;
    }
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
        return parse_steps(y, v, "compile", &l->compile, &l->compile_steps);
    if (!strcmp(key, "run"))
        return nonempty_argv(y, v, key, &l->run);
    if (!strcmp(key, "pool"))
        return 0; /* obsolete and ignored: judged.yaml's pools route languages */
    if (!strcmp(key, "time_factor"))
        return ydoc_number(y, v, key, &l->time_factor);
    if (!strcmp(key, "extra_memory"))
        return ydoc_size(y, v, key, &l->extra_memory);
    if (!strcmp(key, "compile_limits"))
        return parse_limits(y, v, "compile_limits", &l->compile_time, &l->compile_memory,
                            &l->compile_output, &l->compile_procs);
    if (!strcmp(key, "prepare"))
        return parse_prepare(y, v, l);
    if (!strcmp(key, "processes"))
        return ydoc_int(y, v, key, 1, &l->processes);
    if (!strcmp(key, "open_files"))
        return parse_open_files(y, v, l);
    if (!strcmp(key, "profile"))
        return ydoc_string(y, v, key, &l->profile);
    if (!strcmp(key, "mounts"))
        return ydoc_strings(y, v, key, &l->mounts);
    if (!strcmp(key, "env"))
        return parse_env(y, v, l);
    if (!strcmp(key, "entry"))
        return parse_entry(y, v, l);
    if (!strcmp(key, "answers"))
        return parse_answers(y, v, l);
    if (!strcmp(key, "extensions"))
        return ydoc_strings(y, v, key, &l->extensions);
    if (!strcmp(key, "default_for"))
        return ydoc_strings(y, v, key, &l->default_for);
    if (!strcmp(key, "hello"))
        return ydoc_string(y, v, key, &l->hello);
    ydoc_error(y, k, key, "unknown key");
    return -1;
}

static bool listed(char *const *list, const char *s)
{
    for (; list && *list; list++)
        if (!strcmp(*list, s))
            return true;
    return false;
}

/* ".py": a dot, then 1-31 characters that are no dot or slash */
static bool good_extension(const char *e)
{
    size_t n = strlen(e);
    return e[0] == '.' && n >= 2 && n <= 32 && !strchr(e + 1, '.') && !strchr(e, '/');
}

/* extensions default to the source's suffix; default_for must be among
 * them (a language cannot be the default for a file it does not take) */
static int check_extensions(struct ydoc *y, yaml_node_t *root, struct rn_language *l)
{
    int rc = 0;
    const char *dot = l->source ? strrchr(l->source, '.') : NULL;
    if (!l->extensions && dot && good_extension(dot)) {
        l->extensions = calloc(2, sizeof *l->extensions);
        if (!l->extensions || !(l->extensions[0] = strdup(dot)))
            return -1;
    }
    for (char **e = l->extensions; e && *e; e++)
        if (!good_extension(*e))
            ydoc_error(y, root, "extensions", "'%s' is not an extension (a dot and up to 31 characters, "
                       "no dot or slash: .py)", *e), rc = -1;
    for (char **e = l->default_for; e && *e; e++)
        if (!listed(l->extensions, *e))
            ydoc_error(y, root, "default_for", "'%s' is not one of the language's extensions", *e), rc = -1;
    return rc;
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
    return check_extensions(y, root, l) | rc;
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
                      struct rn_language **out, struct common_errors *errs)
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
    /* the definition's identity: a prepared file is never used by another */
    const void *parts[] = {text};
    rn_sha256_hex(parts, &len, 1, l->sha);
    *out = l;
    return 0;
}

/* a regular file of at most max bytes (not a FIFO, a device, ...) */
static char *read_language_file(const char *path, uint64_t max, size_t *len,
                                struct common_errors *errs)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        common_errors_add(errs, "%s:0: cannot open: %s", path, strerror(errno));
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
        common_errors_add(errs, "%s:0: document: %s, not a regular file", path,
                      rn_kind_name(st.st_mode));
    else if (too_big)
        common_errors_add(errs, "%s:0: document: larger than the limit of %llu bytes (the "
                      "yaml_size limit)", path, (unsigned long long)max);
    else if (!text)
        common_errors_add(errs, "%s:0: cannot read: %s", path, strerror(err));
    return text;
}

int rn_language_load_max(const char *path, uint64_t max_size, struct rn_language **out,
                         struct common_errors *errs)
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

int rn_language_load(const char *path, struct rn_language **out, struct common_errors *errs)
{
    return rn_language_load_max(path, 0, out, errs);
}

bool rn_language_has_extension(const struct rn_language *l, const char *ext)
{
    return listed(l->extensions, ext);
}

bool rn_language_default_for(const struct rn_language *l, const char *ext)
{
    return listed(l->default_for, ext);
}

/* One default per extension: two files saying default_for the same one is
 * an error naming both (which one a checker in it compiles with must never
 * depend on the order the files are read in). */
static int check_defaults(struct rn_language **ls, size_t count, struct common_errors *errs)
{
    int rc = 0;
    for (size_t i = 0; i < count; i++)
        for (char **e = ls[i]->default_for; e && *e; e++)
            for (size_t j = 0; j < i; j++)
                if (listed(ls[j]->default_for, *e)) {
                    common_errors_add(errs, "%s: default_for: '%s' is already the default of %s (%s): one "
                                      "language is the default for an extension", ls[i]->file, *e, ls[j]->id,
                                      ls[j]->file);
                    rc = -1;
                }
    return rc;
}

static int yaml_name(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".yaml");
}

int rn_languages_load_dir(const char *dir, uint64_t max_size, struct rn_language ***out,
                          size_t *count, struct common_errors *errs)
{
    struct dirent **names;
    int n = scandir(dir, &names, yaml_name, alphasort);
    if (n < 0) {
        common_errors_add(errs, "%s: cannot read the languages directory", dir);
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
                common_errors_add(errs, "%s: id: '%s' must equal the file name (%.*s)", path, l->id,
                              stem, names[i]->d_name);
                rc = -1;
            }
            for (size_t j = 0; j < used; j++)
                if (!strcmp(ls[j]->id, l->id)) {
                    common_errors_add(errs, "%s:1: id: '%s' is already defined by %s", path, l->id,
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
    if (check_defaults(ls, used, errs))
        rc = -1;
    if (n == 0) {
        common_errors_add(errs, "%s: no *.yaml language files", dir);
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
