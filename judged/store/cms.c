/*
 * cms.c - CMS task packages in the "Italian YAML" layout (task.yaml at the
 * root: what cmsImportTask and task-maker read) converted on push into the
 * runner's problem.yaml, the package's files kept. Also the writer both CMS
 * layouts share (TPS exports: cms_tps.c). What is read and what it becomes
 * is runner/README.md's "CMS task packages" table.
 *
 * CMS's own behaviour that solutions rely on is kept: a Batch test's input
 * is also input.txt in the working directory when the task reads stdin,
 * the submission's file is named after the task when a grader is compiled
 * with it, a checker speaks CMS's protocol (score on stdout), tests are
 * input/inputN.txt and output/outputN.txt from 0, and gen/GEN's "#ST: P"
 * markers make GroupMin subtasks (no markers: Sum).
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cms.h"
#include "common.h"
#include "store.h"
#include "yaml_doc.h"

#define GEN_MAX (1u << 20)   /* gen/GEN: a list of generator lines */

/* Every ending a CMS source of a checker or manager may have (the
 * language compiling it is the runner's choice by the ending). */
static const struct cms_lang {
    const char *ext, *lang;
} cms_langs[] = {
    {"cpp", "cpp"}, {"cc", "cpp"}, {"cxx", "cpp"}, {"c", "c"}, {"py", "python3"},
    {"java", "java"}, {"pas", "pascal"},
};

static bool is_file(const char *dir, const char *rel)
{
    char p[4400];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return !stat(p, &st) && S_ISREG(st.st_mode);
}

void cms_task_free(struct cms_task *t)
{
    for (int i = 0; i < t->nsubtasks; i++)
        free(t->subtasks[i].tests);
    free(t->subtasks);
    free(t->tests);
    free(t->solutions);
    t->solutions = NULL;
    t->subtasks = NULL;
    t->tests = NULL;
}

int cms_add_subtask(struct cms_task *t, double points, enum cms_aggregate agg, double threshold,
                    const int *tests, int n, struct conv_errs *e)
{
    if (t->nsubtasks >= CMS_MAX_SUBTASKS) {
        if (t->nsubtasks++ == CMS_MAX_SUBTASKS)   /* said once */
            conv_err(e, "%s:0: score_type: more than %d subtasks (the runner's limit; Sum makes one per test)",
                     t->file, CMS_MAX_SUBTASKS);
        return -1;
    }
    struct cms_subtask *grown = realloc(t->subtasks, (t->nsubtasks + 1) * sizeof *grown);
    int *copy = malloc((n ? n : 1) * sizeof *copy);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            t->subtasks = grown;
        conv_err(e, "%s:0: (package): out of memory", t->file);
        return -1;
    }
    t->subtasks = grown;
    memcpy(copy, tests, n * sizeof *copy);
    t->subtasks[t->nsubtasks++] = (struct cms_subtask){.points = points, .aggregate = agg,
                                                       .threshold = threshold, .tests = copy, .ntests = n};
    return 0;
}

int cms_find_source(const char *dir, const char *const *names, char *rel, size_t len, struct conv_errs *e)
{
    for (const char *const *n = names; *n; n++) {
        for (size_t i = 0; i < sizeof cms_langs / sizeof *cms_langs; i++) {
            snprintf(rel, len, "%s.%s", *n, cms_langs[i].ext);
            if (is_file(dir, rel))
                return 1;
        }
        if (is_file(dir, *n)) {
            /* cmsMake's output, built for some machine: never run here */
            conv_err(e, "%s:0: (package): a compiled program without its source (%s.cpp, .c, .py, ...): "
                        "checkers and managers are built here from source", *n, *n);
            return -1;
        }
    }
    rel[0] = 0;
    return 0;
}

/* ---- task.yaml ---- */

struct italian {
    struct cms_task *t;
    int n_input;                 /* -1: not given */
    double total_value;
    bool output_only;
    char score_type[32];
    int score_type_line;
    yaml_node_t *score_params;   /* in d */
    struct ydoc *d;
    /* what d's getters record (d->errs points here for d's whole life:
     * score_type_parameters are read after the keys) */
    struct common_errors found;
};

/* Keys of task.yaml that set up a contest, not the judging (tokens,
 * feedback, submission limits): read by CMS's contest side, kept here. */
static const char *const contest_keys[] = {
    "token_mode", "token_max_number", "token_min_interval", "token_gen_initial", "token_gen_number",
    "token_gen_interval", "token_gen_max", "token_initial", "token_gen_time", "token_total",
    "max_submission_number", "max_user_test_number", "min_submission_interval", "min_user_test_interval",
    "public_testcases", "feedback_level", "score_precision", "score_mode", "primary_language",
    "risultati", "version", "submission_format", "attachments", "infile_param", NULL,
};

static bool in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (!strcmp(*list, s))
            return true;
    return false;
}

static void read_string(struct ydoc *d, yaml_node_t *v, const char *key, char *out, size_t len)
{
    const char *s = ydoc_scalar(d, v, key);
    if (!s)
        return;
    if (strlen(s) >= len || strpbrk(s, "\n\r"))
        ydoc_error(d, v, key, "too long or more than one line");
    else
        snprintf(out, len, "%s", s);
}

/* A name CMS gives a file: the submission's file is named after the task,
 * input/output files are plain names in the working directory. */
static void check_plain(struct ydoc *d, yaml_node_t *v, const char *key, const char *s, bool empty_ok)
{
    char q[COMMON_QUOTE_CAP];
    if ((!*s && !empty_ok) || strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, "..") ||
        strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(s))
        ydoc_error(d, v, key, "'%s' is not a plain file name (letters, digits, '.', '_', '-')", YQ(q, s));
}

static void italian_key(struct italian *it, const char *key, yaml_node_t *k, yaml_node_t *v)
{
    struct cms_task *t = it->t;
    struct ydoc *d = it->d;
    double x = -1;
    if (!strcmp(key, "name") || !strcmp(key, "nome_breve")) {
        read_string(d, v, key, t->name, sizeof t->name);
        check_plain(d, v, key, t->name, false);
    } else if (!strcmp(key, "title") || !strcmp(key, "nome")) {
        read_string(d, v, key, t->title, sizeof t->title);
    } else if (!strcmp(key, "time_limit") || !strcmp(key, "timeout")) {
        if (!ydoc_number(d, v, key, &x) && !(x > 0 && x <= 3600))
            ydoc_error(d, v, key, "expected seconds, more than 0 and at most 3600");
        else if (x > 0)
            t->time_limit = x;
    } else if (!strcmp(key, "memory_limit") || !strcmp(key, "memlimit")) {
        if (!ydoc_number(d, v, key, &x) && !(x >= 1 && x <= 1 << 20))
            ydoc_error(d, v, key, "expected MiB, 1 to 1048576");
        else if (x >= 1)
            t->memory = (unsigned long long)(x * 1048576.0);
    } else if (!strcmp(key, "infile") || !strcmp(key, "outfile")) {
        char *dst = key[0] == 'i' ? t->infile : t->outfile;
        read_string(d, v, key, dst, sizeof t->infile);
        check_plain(d, v, key, dst, true);
    } else if (!strcmp(key, "n_input")) {
        ydoc_int(d, v, key, 0, &it->n_input);
    } else if (!strcmp(key, "total_value")) {
        if (!ydoc_number(d, v, key, &x) && !(x >= 0))
            ydoc_error(d, v, key, "expected a number >= 0");
        else if (x >= 0)
            it->total_value = x;
    } else if (!strcmp(key, "score_type")) {
        read_string(d, v, key, it->score_type, sizeof it->score_type);
        it->score_type_line = ydoc_line(v);
    } else if (!strcmp(key, "score_type_parameters")) {
        it->score_params = v;
    } else if (!strcmp(key, "output_only")) {
        const char *s = ydoc_scalar(d, v, key);
        it->output_only = s && (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "yes"));
    } else if (!strcmp(key, "num_processes")) {
        ydoc_int(d, v, key, 1, &t->processes);
        if (t->processes > 16)
            ydoc_error(d, v, key, "at most 16 processes");
    } else if (!strcmp(key, "user_io")) {
        const char *s = ydoc_scalar(d, v, key);
        if (s && strcmp(s, "std_io") && strcmp(s, "fifo_io"))
            ydoc_error(d, v, key, "expected std_io or fifo_io");
        t->fifo_io = s && !strcmp(s, "fifo_io");
    } else if (!in_list(contest_keys, key)) {
        ydoc_error(d, k, key, "unknown key of task.yaml (name/nome_breve, title/nome, time_limit/timeout, "
                              "memory_limit/memlimit, infile, outfile, n_input, total_value, score_type, "
                              "score_type_parameters, output_only, num_processes, user_io, and the contest's "
                              "token_*, feedback and submission keys)");
    }
}

void cms_gen_free(struct cms_gen *g)
{
    for (int i = 0; i < g->n; i++) {
        free(g->tests[i].args);
        free(g->tests[i].copy);
    }
    free(g->tests);
    *g = (struct cms_gen){0};
}

/* s without its leading and trailing blanks (in place). */
static char *trimmed(char *s)
{
    s += strspn(s, " \t\r");
    size_t n = strlen(s);
    while (n && strchr(" \t\r", s[n - 1]))
        s[--n] = 0;
    return s;
}

/* One test of gen/GEN: its generator arguments, or the file it copies. */
static void gen_add(struct cms_gen *g, int line, char *args, char *copy, int subtask, struct conv_errs *e)
{
    struct cms_gen_test *grown = g->n < CMS_MAX_TESTS ? realloc(g->tests, (g->n + 1) * sizeof *grown) : NULL;
    if (!grown) {
        if (g->n == CMS_MAX_TESTS)
            conv_err(e, "gen/GEN:%d: (tests): more than %d tests", line, CMS_MAX_TESTS);
        return;
    }
    g->tests = grown;
    struct cms_gen_test *t = &g->tests[g->n++];
    *t = (struct cms_gen_test){.line = line, .args = strdup(trimmed(args)), .subtask = subtask};
    if (copy)
        t->copy = strdup(trimmed(copy));
}

/* gen/GEN: one line per test (a generator's arguments, or "#COPY: file");
 * "#ST: P" (or "# ST: P") starts a subtask worth P. Tests before the first
 * marker are a subtask worth 0. Fills counts/points (at most max groups)
 * and g (each test's line, arguments or copied file); the number of tests,
 * or -1 when there is no GEN. */
static int read_gen(const char *dir, struct cms_gen *g, double *points, int *counts, int max, int *ngroups,
                    struct conv_errs *e)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/gen/GEN", dir);
    size_t len;
    bool more;
    char *text = common_read_file(path, GEN_MAX, &len, &more);
    *ngroups = 0;
    if (!text)
        return -1;
    if (more || memchr(text, 0, len)) {
        conv_err(e, "gen/GEN:0: (file): larger than 1 MiB or not text");
        free(text);
        return -1;
    }
    int tests = 0, line = 0, markers = 0;
    for (char *s = text, *next; s && *s; s = next) {
        next = strchr(s, '\n');
        if (next)
            *next++ = 0;
        line++;
        char *hash = strchr(s, '#');
        char *comment = hash ? hash + 1 : NULL;
        if (hash)
            *hash = 0;
        comment = comment ? comment + strspn(comment, " \t") : NULL;
        bool test = s[strspn(s, " \t\r")] != 0 || (comment && !strncmp(comment, "COPY:", 5));
        if (comment && !strncmp(comment, "ST:", 3)) {
            char *end;
            double p = strtod(comment + 3, &end);
            if (end == comment + 3 || !(p >= 0) || end[strspn(end, " \t\r")]) {
                conv_err(e, "gen/GEN:%d: ST: expected the subtask's points, a number >= 0", line);
                continue;
            }
            if (*ngroups >= max) {
                conv_err(e, "gen/GEN:%d: ST: more than %d subtasks", line, max);
                break;
            }
            points[*ngroups] = p;
            counts[(*ngroups)++] = 0;
            markers++;
        } else if (test) {
            if (*ngroups == 0) {   /* tests before the first marker */
                points[0] = 0;
                counts[0] = 0;
                *ngroups = 1;
            }
            counts[*ngroups - 1]++;
            tests++;
            gen_add(g, line, s, comment && !strncmp(comment, "COPY:", 5) ? comment + 5 : NULL, markers, e);
        }
    }
    free(text);
    return tests;
}

/* input/inputN.txt and output/outputN.txt from 0: n of them, or as many as
 * there are when n is -1. */
static void italian_tests(const char *dir, struct cms_task *t, int n, bool gen, struct conv_errs *e)
{
    if (n < 0)
        for (n = 0; n < CMS_MAX_TESTS; n++) {
            char rel[64];
            snprintf(rel, sizeof rel, "input/input%d.txt", n);
            if (!is_file(dir, rel))
                break;
        }
    if (n > CMS_MAX_TESTS) {
        conv_err(e, "%s:0: n_input: more than %d tests", t->file, CMS_MAX_TESTS);
        return;
    }
    t->tests = calloc(n ? n : 1, sizeof *t->tests);
    int missing = 0;
    for (int i = 0; t->tests && i < n; i++) {
        struct cms_test *c = &t->tests[t->ntests++];
        snprintf(c->name, sizeof c->name, "%03d", i);
        snprintf(c->in, sizeof c->in, "input/input%d.txt", i);
        snprintf(c->out, sizeof c->out, "output/output%d.txt", i);
        for (int k = 0; k < 2; k++)
            if (!is_file(dir, k ? c->out : c->in) && missing++ < 5)
                conv_err(e, "%s:0: (package): test %d: %s is missing%s", k ? c->out : c->in, i, k ? c->out : c->in,
                         gen ? "; gen/GEN's generator runs on push only for a package holding none of the inputs"
                             : "");
    }
    if (n == 0)
        conv_err(e, "input:0: (package): no tests (input/input0.txt, output/output0.txt, ...)");
}

/* One [points, count | "regex"] of GroupMin/GroupMul/GroupThreshold. */
static int group_tests(struct italian *it, yaml_node_t *sel, int *next, int *tests, int *n)
{
    struct cms_task *t = it->t;
    const char *s = ydoc_scalar(it->d, sel, "score_type_parameters");
    if (!s)
        return -1;
    char *end;
    long count = strtol(s, &end, 10);
    *n = 0;
    if (sel->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && *s && !*end) {
        if (count < 0 || count > t->ntests - *next) {
            ydoc_error(it->d, sel, "score_type_parameters", "%ld tests from test %d: there are %d", count, *next,
                       t->ntests);
            return -1;
        }
        for (long i = 0; i < count; i++)
            tests[(*n)++] = (*next)++;
        return 0;
    }
    /* a regular expression over the tests' codenames, matched whole */
    char *anchored = malloc(strlen(s) + 8);
    if (!anchored)
        return -1;
    sprintf(anchored, "^(%s)$", s);
    regex_t re;
    int rc = regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB);
    free(anchored);
    char q[COMMON_QUOTE_CAP];
    if (rc) {
        ydoc_error(it->d, sel, "score_type_parameters", "'%s' is not a regular expression", YQ(q, s));
        return -1;
    }
    for (int i = 0; i < t->ntests; i++)
        if (!regexec(&re, t->tests[i].name, 0, NULL, 0))
            tests[(*n)++] = i;
    regfree(&re);
    return 0;
}

static const struct {
    const char *name;
    enum cms_aggregate agg;
} group_types[] = {{"GroupMin", CMS_AGG_MIN}, {"GroupMul", CMS_AGG_MUL}, {"GroupThreshold", CMS_AGG_THRESHOLD}};

/* score_type_parameters of a Group* type: [[points, count | regex (,
 * threshold)], ...] */
static void group_subtasks(struct italian *it, enum cms_aggregate agg, struct conv_errs *e)
{
    struct ydoc *d = it->d;
    yaml_node_t *p = it->score_params;
    if (!p || p->type != YAML_SEQUENCE_NODE) {
        conv_err(e, "%s:%d: score_type_parameters: %s needs a list of [points, tests] subtasks", it->t->file,
                 p ? ydoc_line(p) : it->score_type_line, it->score_type);
        return;
    }
    int *tests = malloc((it->t->ntests ? it->t->ntests : 1) * sizeof *tests), next = 0;
    for (yaml_node_item_t *i = p->data.sequence.items.start; tests && i < p->data.sequence.items.top; i++) {
        yaml_node_t *g = ydoc_node(d, *i);
        int want = agg == CMS_AGG_THRESHOLD ? 3 : 2;
        if (!g || g->type != YAML_SEQUENCE_NODE || g->data.sequence.items.top - g->data.sequence.items.start != want) {
            ydoc_error(d, g ? g : p, "score_type_parameters", "each subtask is [points, tests%s]",
                       agg == CMS_AGG_THRESHOLD ? ", threshold" : "");
            continue;
        }
        double points, threshold = 0;
        int n;
        if (ydoc_number(d, ydoc_node(d, g->data.sequence.items.start[0]), "score_type_parameters", &points) ||
            group_tests(it, ydoc_node(d, g->data.sequence.items.start[1]), &next, tests, &n) ||
            (want == 3 &&
             ydoc_number(d, ydoc_node(d, g->data.sequence.items.start[2]), "score_type_parameters", &threshold)))
            continue;
        if (n == 0) {   /* the runner's subtask needs a test */
            ydoc_error(d, g, "score_type_parameters", "this subtask selects no test");
            continue;
        }
        if (!(points >= 0) || (want == 3 && !(threshold > 0))) {
            ydoc_error(d, g, "score_type_parameters", "%s", !(points >= 0) ? "points must be a number >= 0"
                       : "GroupThreshold's T must be above 0 (a test passes when 0 < its value <= T)");
            continue;
        }
        if (cms_add_subtask(it->t, points, agg, threshold, tests, n, e))
            break;
    }
    free(tests);
}

static void sum_subtasks(struct cms_task *t, double each, struct conv_errs *e)
{
    for (int i = 0; i < t->ntests; i++)
        if (cms_add_subtask(t, each, CMS_AGG_MIN, 0, &i, 1, e))
            break;
}

/* score_type and its parameters; without them CMS's importer takes gen/GEN's
 * markers (GroupMin) or gives every test total_value / n_input (Sum). */
static void italian_scoring(struct italian *it, const double *gpoints, const int *gcounts, int ngroups,
                            struct conv_errs *e)
{
    struct cms_task *t = it->t;
    if (!it->score_type[0]) {
        if (ngroups > 0 && !(ngroups == 1 && gpoints[0] == 0)) {
            int next = 0;
            int *tests = malloc((t->ntests ? t->ntests : 1) * sizeof *tests);
            for (int g = 0; tests && g < ngroups; g++) {
                if (gcounts[g] == 0) {
                    conv_err(e, "gen/GEN:0: ST: subtask %d (worth %g) has no tests after its marker", g + 1,
                             gpoints[g]);
                    continue;
                }
                for (int k = 0; k < gcounts[g]; k++)
                    tests[k] = next + k;
                next += gcounts[g];
                if (cms_add_subtask(t, gpoints[g], CMS_AGG_MIN, 0, tests, gcounts[g], e))
                    break;
            }
            free(tests);
        } else if (t->ntests) {
            sum_subtasks(t, it->total_value / t->ntests, e);
        }
        return;
    }
    if (!strcmp(it->score_type, "Sum")) {
        double each = it->total_value / (t->ntests ? t->ntests : 1);
        if (it->score_params && ydoc_number(it->d, it->score_params, "score_type_parameters", &each))
            return;
        if (!(each >= 0)) {
            ydoc_error(it->d, it->score_params, "score_type_parameters", "Sum's points per test must be >= 0");
            return;
        }
        sum_subtasks(t, each, e);
        return;
    }
    for (size_t i = 0; i < sizeof group_types / sizeof *group_types; i++)
        if (!strcmp(it->score_type, group_types[i].name)) {
            group_subtasks(it, group_types[i].agg, e);
            return;
        }
    conv_err(e, "%s:%d: score_type: '%s' is not one of CMS's (Sum, GroupMin, GroupMul, GroupThreshold)", t->file,
             it->score_type_line, it->score_type);
}

static const struct ydoc_how cms_words = {.syntax_key = "(yaml)", .empty_ok = false};

/* What the reader recorded so far joins the conversion's errors (found
 * is left empty, still d's list). */
static void add_reader_errors(struct conv_errs *e, struct common_errors *found)
{
    for (size_t i = 0; i < found->count; i++)
        conv_line(e, found->items[i]);
    common_errors_free(found);
}

static void read_task_yaml(const char *dir, struct italian *it, struct conv_errs *e)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/task.yaml", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        conv_err(e, "task.yaml:0: (file): %s", strerror(errno));
        return;
    }
    yaml_node_t *root = ydoc_read(it->d, f, "task.yaml", &cms_words, &it->found) ? NULL : ydoc_root(it->d);
    fclose(f);
    if (root && root->type == YAML_MAPPING_NODE) {
        ydoc_mapping(it->d, root, "(top level)");
        YDOC_FOR_PAIRS(it->d, root, ks, k, v) {
            if (!v)
                break;
            italian_key(it, ks, k, v);
        }
    } else if (root) {
        conv_err(e, "task.yaml:1: (top level): expected a mapping");
    }
    add_reader_errors(e, &it->found);
}

/* Which of CMS's task types the layout says: output_only, else a manager
 * (check/manager or cor/manager: Communication), else Batch with the
 * checker (check/checker, cor/correttore) when there is one. */
static void italian_type(const char *dir, struct italian *it, struct conv_errs *e)
{
    struct cms_task *t = it->t;
    static const char *const managers[] = {"check/manager", "cor/manager", NULL};
    static const char *const checkers[] = {"check/checker", "cor/correttore", NULL};
    if (it->output_only)
        t->type = CMS_OUTPUT_ONLY;
    else if (cms_find_source(dir, managers, t->manager, sizeof t->manager, e) > 0)
        t->type = CMS_COMMUNICATION;
    if (t->type != CMS_COMMUNICATION)
        cms_find_source(dir, checkers, t->checker, sizeof t->checker, e);
}

static int italian_convert(const char *dir, const char *name, const struct store_tools *tools, struct conv_errs *e)
{
    struct ydoc d = {0};
    struct cms_task t = {.file = "task.yaml", .processes = 1};
    snprintf(t.infile, sizeof t.infile, "input.txt");
    snprintf(t.outfile, sizeof t.outfile, "output.txt");
    struct italian it = {.t = &t, .n_input = -1, .total_value = 100, .d = &d};
    read_task_yaml(dir, &it, e);
    if (e->n == 0) {
        double gpoints[CMS_MAX_SUBTASKS];
        int gcounts[CMS_MAX_SUBTASKS], ngroups;
        struct cms_gen g = {0};
        int gen = read_gen(dir, &g, gpoints, gcounts, CMS_MAX_SUBTASKS, &ngroups, e);
        if (gen >= 0 && it.n_input >= 0 && gen != it.n_input)
            conv_err(e, "task.yaml:0: n_input: %d, but gen/GEN makes %d tests", it.n_input, gen);
        italian_type(dir, &it, e);
        /* the package's tests made here, as cmsMake makes them, when it holds none */
        bool made = e->n == 0 && gen > 0 && cms_gen_needed(dir, gen);
        if (made)
            cms_generate(dir, &t, &g, tools, e);
        cms_gen_free(&g);
        if (!made || e->n == 0)   /* a failed generation said what is missing */
            italian_tests(dir, &t, it.n_input >= 0 ? it.n_input : gen, gen >= 0, e);
        if (e->n == 0)
            italian_scoring(&it, gpoints, gcounts, ngroups, e);
        add_reader_errors(e, &it.found);   /* score_type_parameters' */
        if (!t.name[0])
            snprintf(t.name, sizeof t.name, "%s", name);
        if (e->n == 0)
            cms_write(dir, name, &t, "sol", "sol", e);
    }
    if (d.loaded)
        ydoc_free(&d);
    common_errors_free(&it.found);
    cms_task_free(&t);
    return e->n;
}

bool cms_detect(const char *dir)
{
    return !is_file(dir, "problem.yaml") && (is_file(dir, "task.yaml") || cms_tps_detect(dir));
}

int cms_convert(const char *dir, const char *name, const struct store_tools *tools, char **errors)
{
    struct conv_errs e = {0};
    if (is_file(dir, "task.yaml"))
        italian_convert(dir, name, tools, &e);
    else {
        *errors = NULL;
        return cms_tps_convert(dir, name, errors);
    }
    *errors = e.buf;
    return e.n;
}
