/*
 * problem.c - a problem package: problem.yaml plus tests/NAME.in, NAME.out.
 *
 * Loading is also validation: every key is checked and every error names the
 * file, the line and the key, and loading goes on after an error so
 * `judgectl problem check` lists them all. Tests default to every
 * tests/NAME.in with its NAME.out in natural order (strverscmp: 2 < 10).
 * In a subtask's test list a number or a range "a-b" names tests by name
 * when such a test exists, else by 1-based position; any other string is a
 * test name. A subtask may depend only on earlier subtasks (so there are no
 * cycles and declaration order is an evaluation order).
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "yaml_doc.h"

struct pending {                   /* nodes resolved after the top level */
    yaml_node_t *tests, *subtasks, *checker, *interactor, *grader, *type;
};

void rn_problem_free(struct rn_problem *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->test_count; i++) {
        free(p->tests[i].name);
        free(p->tests[i].input);
        free(p->tests[i].answer);
    }
    free(p->tests);
    for (size_t i = 0; i < p->subtask_count; i++) {
        free(p->subtasks[i].name);
        free(p->subtasks[i].tests);
        free(p->subtasks[i].deps);
    }
    free(p->subtasks);
    free(p->dir);
    free(p->name);
    free(p->title);
    free(p->checker_source);
    rn_argv_free(p->checker_flags);
    free(p->interactor.source);
    rn_argv_free(p->interactor.flags);
    for (size_t i = 0; i < p->grader_count; i++) {
        free(p->graders[i].lang);
        rn_argv_free(p->graders[i].files);
        free(p->graders[i].source);
    }
    free(p->graders);
    free(p);
}

static bool is_file(const char *dir, const char *rel)
{
    char *path = rn_strdup_printf("%s/%s", dir, rel);
    struct stat st;
    bool ok = path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
    free(path);
    return ok;
}

static bool safe_relative(const char *rel)
{
    return rel[0] != '/' && strncmp(rel, "../", 3) && !strstr(rel, "/../") && strcmp(rel, "..");
}

static int add_test(struct rn_problem *p, const char *name, const char *in, const char *out)
{
    struct rn_test *t = realloc(p->tests, (p->test_count + 1) * sizeof *t);
    if (!t)
        return -1;
    p->tests = t;
    t[p->test_count++] = (struct rn_test){strdup(name), strdup(in), strdup(out)};
    return 0;
}

/* ---- checker ----------------------------------------------------------- */

static int checker_type(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    const char *s = ydoc_scalar(y, n, "checker");
    static const char *const names[] = {"exact", "lines", "tokens", "float", "custom"};
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i])) {
            p->checker = (enum rn_checker_type)i;
            return 0;
        }
    if (s)
        ydoc_error(y, n, "checker", "unknown checker '%s' (exact, lines, tokens, float, custom)", s);
    return -1;
}

/* a package file compiled by the runner: any extension (the language whose
 * source has it compiles it; checked when it is built) */
static int program_source(struct ydoc *y, yaml_node_t *n, const char *key, const char *dir,
                          char **out)
{
    if (ydoc_string(y, n, key, out) < 0)
        return -1;
    const char *s = *out, *dot = strrchr(s, '.');
    if (!safe_relative(s)) {
        ydoc_error(y, n, key, "'%s' must be a path inside the package", s);
        return -1;
    }
    if (!dot || strchr(dot, '/')) {
        ydoc_error(y, n, key, "'%s' needs an extension naming its language (.c, .cpp, .py...)", s);
        return -1;
    }
    if (!is_file(dir, s)) {
        ydoc_error(y, n, key, "'%s' does not exist in the package", s);
        return -1;
    }
    return 0;
}

static int checker_source(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    return program_source(y, n, "checker.source", p->dir, &p->checker_source);
}

static int parse_bool(struct ydoc *y, yaml_node_t *n, const char *key, bool *out)
{
    const char *s = ydoc_scalar(y, n, key);
    if (s && (!strcmp(s, "true") || !strcmp(s, "false"))) {
        *out = !strcmp(s, "true");
        return 0;
    }
    if (s)
        ydoc_error(y, n, key, "expected true or false, not '%s'", s);
    return -1;
}

/* the comparison options of the long form; only for the checkers they mean
 * something to */
struct compare_nodes {
    yaml_node_t *eps, *abs, *rel, *case_sens, *space;
};

static int parse_compare(struct ydoc *y, const struct compare_nodes *c, struct rn_problem *p)
{
    int rc = 0;
    bool floats = p->checker == RN_CHECK_FLOAT, builtin = p->checker != RN_CHECK_CUSTOM;
    yaml_node_t *tol[] = {c->eps, c->abs, c->rel};
    const char *tol_key[] = {"checker.epsilon", "checker.absolute_tolerance",
                             "checker.relative_tolerance"};
    double v[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++) {
        if (!tol[i])
            continue;
        if (!floats)
            ydoc_error(y, tol[i], tol_key[i], "only the float checker takes a tolerance"), rc = -1;
        else if (ydoc_number(y, tol[i], tol_key[i], &v[i]) == 0 && v[i] <= 0)
            ydoc_error(y, tol[i], tol_key[i], "must be positive"), rc = -1;
    }
    if (c->eps && (c->abs || c->rel))
        ydoc_error(y, c->eps, "checker.epsilon", "give epsilon (both tolerances) or "
                   "absolute_tolerance/relative_tolerance, not both"), rc = -1;
    if (v[0] > 0)
        p->compare.abs_tol = p->compare.rel_tol = v[0];
    else if (c->abs || c->rel)
        p->compare.abs_tol = v[1], p->compare.rel_tol = v[2];
    bool sens = true;
    if (c->case_sens && !builtin)
        ydoc_error(y, c->case_sens, "checker.case_sensitive", "only for a built-in checker"), rc = -1;
    else if (c->case_sens && parse_bool(y, c->case_sens, "checker.case_sensitive", &sens) == 0)
        p->compare.case_insensitive = !sens;
    if (c->space && p->checker != RN_CHECK_TOKENS && !floats)
        ydoc_error(y, c->space, "checker.space_change_sensitive",
                   "only the tokens and float checkers take it"), rc = -1;
    else if (c->space)
        rc |= parse_bool(y, c->space, "checker.space_change_sensitive", &p->compare.space_sensitive);
    return rc;
}

static int parse_checker(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    p->checker_line = ydoc_line(n);
    if (n->type == YAML_SCALAR_NODE) {
        if (checker_type(y, n, p) < 0)
            return -1;
        if (p->checker == RN_CHECK_CUSTOM) {
            ydoc_error(y, n, "checker", "custom needs the long form {type: custom, source: FILE}");
            return -1;
        }
        return 0;
    }
    if (ydoc_mapping(y, n, "checker") < 0)
        return -1;
    int rc = 0;
    yaml_node_t *type = NULL, *source = NULL, *flags = NULL;
    struct compare_nodes cmp = {0};
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        if (!strcmp(key, "type"))
            type = v;
        else if (!strcmp(key, "source"))
            source = v;
        else if (!strcmp(key, "flags"))
            flags = v;
        else if (!strcmp(key, "epsilon"))
            cmp.eps = v;
        else if (!strcmp(key, "absolute_tolerance"))
            cmp.abs = v;
        else if (!strcmp(key, "relative_tolerance"))
            cmp.rel = v;
        else if (!strcmp(key, "case_sensitive"))
            cmp.case_sens = v;
        else if (!strcmp(key, "space_change_sensitive"))
            cmp.space = v;
        else
            ydoc_error(y, k, key, "unknown key in checker (type, source, flags, epsilon, "
                       "absolute_tolerance, relative_tolerance, case_sensitive, "
                       "space_change_sensitive)"), rc = -1;
    }
    if (!type) {
        ydoc_error(y, n, "checker.type", "missing (required in the long form)");
        return -1;
    }
    if (checker_type(y, type, p) < 0)
        return -1;
    rc |= parse_compare(y, &cmp, p);
    if (source && p->checker != RN_CHECK_CUSTOM)
        ydoc_error(y, source, "checker.source", "only a custom checker has a source"), rc = -1;
    else if (source)
        rc |= checker_source(y, source, p);
    else if (p->checker == RN_CHECK_CUSTOM)
        ydoc_error(y, n, "checker.source", "missing (a custom checker needs one)"), rc = -1;
    if (flags && p->checker != RN_CHECK_CUSTOM)
        ydoc_error(y, flags, "checker.flags", "only a custom checker is compiled"), rc = -1;
    else if (flags)
        rc |= ydoc_strings(y, flags, "checker.flags", &p->checker_flags);
    return rc;
}

/* ---- interactor, graders ------------------------------------------------- */

static int parse_protocol(struct ydoc *y, yaml_node_t *n, struct rn_helper *h)
{
    const char *s = ydoc_scalar(y, n, "interactor.protocol");
    if (s && !strcmp(s, "testlib"))
        return h->protocol = RN_PROTO_TESTLIB, 0;
    if (s && !strcmp(s, "kattis"))
        return h->protocol = RN_PROTO_KATTIS, 0;
    if (s)
        ydoc_error(y, n, "interactor.protocol", "unknown protocol '%s' (testlib, kattis)", s);
    return -1;
}

static int parse_interactor(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    struct rn_helper *h = &p->interactor;
    h->line = ydoc_line(n);
    if (n->type == YAML_SCALAR_NODE)
        return program_source(y, n, "interactor", p->dir, &h->source);
    if (ydoc_mapping(y, n, "interactor") < 0)
        return -1;
    int rc = 0;
    yaml_node_t *source = NULL;
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        if (!strcmp(key, "source"))
            source = v;
        else if (!strcmp(key, "flags"))
            rc |= ydoc_strings(y, v, "interactor.flags", &h->flags);
        else if (!strcmp(key, "protocol"))
            rc |= parse_protocol(y, v, h);
        else
            ydoc_error(y, k, key, "unknown key in interactor (source, flags, protocol)"), rc = -1;
    }
    if (!source)
        ydoc_error(y, n, "interactor.source", "missing (required)"), rc = -1;
    else
        rc |= program_source(y, source, "interactor.source", p->dir, &h->source);
    return rc;
}

static int grader_files(struct ydoc *y, yaml_node_t *n, const struct rn_problem *p,
                        struct rn_grader *g)
{
    if (ydoc_strings(y, n, "grader.files", &g->files) < 0)
        return -1;
    int rc = 0;
    for (char **f = g->files; *f; f++) {
        if (!safe_relative(*f))
            ydoc_error(y, n, "grader.files", "'%s' must be a path inside the package", *f), rc = -1;
        else if (!is_file(p->dir, *f))
            ydoc_error(y, n, "grader.files", "'%s' does not exist in the package", *f), rc = -1;
    }
    if (!rc && !g->files[0])
        ydoc_error(y, n, "grader.files", "a grader needs at least one file"), rc = -1;
    return rc;
}

static int parse_grader_entry(struct ydoc *y, yaml_node_t *n, const struct rn_problem *p,
                              struct rn_grader *g)
{
    if (n->type == YAML_SEQUENCE_NODE)
        return grader_files(y, n, p, g);
    if (ydoc_mapping(y, n, "grader") < 0)
        return -1;
    int rc = 0;
    yaml_node_t *files = NULL;
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        if (!strcmp(key, "files"))
            files = v;
        else if (!strcmp(key, "source"))
            rc |= ydoc_string(y, v, "grader.source", &g->source);
        else
            ydoc_error(y, k, key, "unknown key in a grader (files, source)"), rc = -1;
    }
    if (g->source && (strchr(g->source, '/') || g->source[0] == '.'))
        ydoc_error(y, n, "grader.source", "'%s' must be a plain file name", g->source), rc = -1;
    if (!files)
        ydoc_error(y, n, "grader.files", "missing (required)"), rc = -1;
    else
        rc |= grader_files(y, files, p, g);
    return rc;
}

/* grader: {LANG: [files...] | {files: [...], source: NAME}, ...} */
static int parse_graders(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    if (ydoc_mapping(y, n, "grader") < 0)
        return -1;
    size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    p->graders = calloc(count ? count : 1, sizeof *p->graders);
    if (!p->graders)
        return -1;
    int rc = 0;
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        struct rn_grader *g = &p->graders[p->grader_count++];
        g->lang = strdup(key);
        rc |= parse_grader_entry(y, v, p, g);
    }
    if (!count)
        ydoc_error(y, n, "grader", "name at least one language"), rc = -1;
    return rc;
}

static int parse_type(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    const char *s = ydoc_scalar(y, n, "type");
    if (s && !strcmp(s, "batch"))
        return p->type = RN_BATCH, 0;
    if (s && !strcmp(s, "interactive"))
        return p->type = RN_INTERACTIVE, 0;
    if (s)
        ydoc_error(y, n, "type", "unknown problem type '%s' (batch, interactive)", s);
    return -1;
}

/* compile_limits: {time, memory, output}: raises the language's */
static int parse_compile_limits(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    if (ydoc_mapping(y, n, "compile_limits") < 0)
        return -1;
    int rc = 0;
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        if (!strcmp(key, "time"))
            rc |= ydoc_duration(y, v, "compile_limits.time", &p->compile_time);
        else if (!strcmp(key, "memory"))
            rc |= ydoc_size(y, v, "compile_limits.memory", &p->compile_memory);
        else if (!strcmp(key, "output"))
            rc |= ydoc_size(y, v, "compile_limits.output", &p->compile_output);
        else
            ydoc_error(y, k, key, "unknown key in compile_limits (time, memory, output)"), rc = -1;
    }
    return rc;
}

/* the pieces of an interactive problem fit together */
static int check_type(struct ydoc *y, yaml_node_t *root, const struct pending *later,
                      struct rn_problem *p)
{
    if (p->type == RN_INTERACTIVE && !p->interactor.source) {
        ydoc_error(y, later->type ? later->type : root, "interactor",
                   "missing (an interactive problem needs one)");
        return -1;
    }
    if (p->type != RN_INTERACTIVE && later->interactor) {
        ydoc_error(y, later->interactor, "interactor", "only an interactive problem "
                   "(type: interactive) has an interactor");
        return -1;
    }
    return 0;
}

/* ---- tests ------------------------------------------------------------- */

static int explicit_test(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    char *name = NULL, *in = NULL, *out = NULL;
    int rc = 0;
    if (n->type == YAML_SCALAR_NODE) {
        rc = ydoc_string(y, n, "tests", &name);
        if (rc == 0) {
            in = rn_strdup_printf("tests/%s.in", name);
            out = rn_strdup_printf("tests/%s.out", name);
        }
    } else if (ydoc_mapping(y, n, "tests") < 0) {
        return -1;
    } else {
        YDOC_FOR_PAIRS(y, n, key, k, v) {
            if (!strcmp(key, "name"))
                rc |= ydoc_string(y, v, "tests.name", &name);
            else if (!strcmp(key, "input"))
                rc |= ydoc_string(y, v, "tests.input", &in);
            else if (!strcmp(key, "output"))
                rc |= ydoc_string(y, v, "tests.output", &out);
            else
                ydoc_error(y, k, key, "unknown key in a test (name, input, output)"), rc = -1;
        }
        if (!rc && (!name || !in || !out))
            ydoc_error(y, n, "tests", "a test needs name, input and output"), rc = -1;
    }
    for (const char *f = in; !rc && f; f = f == in ? out : NULL) {
        if (!safe_relative(f))
            ydoc_error(y, n, "tests", "'%s' must be a path inside the package", f), rc = -1;
        else if (!is_file(p->dir, f))
            ydoc_error(y, n, "tests", "missing test file %s (test '%s')", f, name), rc = -1;
    }
    if (!rc)
        rc = add_test(p, name, in, out);
    free(name);
    free(in);
    free(out);
    return rc;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && !strcmp(s + n - m, suffix);
}

static int test_file_filter(const struct dirent *d)
{
    return d->d_name[0] != '.' && (ends_with(d->d_name, ".in") || ends_with(d->d_name, ".out"));
}

static int natural_sort(const struct dirent **a, const struct dirent **b)
{
    return strverscmp((*a)->d_name, (*b)->d_name);
}

/* tests/NAME.in with their .out, natural order; an unpaired file is an error */
static int discover_tests(struct rn_problem *p, struct rn_errors *errs)
{
    char *dir = rn_strdup_printf("%s/tests", p->dir);
    struct dirent **names;
    int n = scandir(dir, &names, test_file_filter, natural_sort);
    int rc = 0;
    if (n < 0) {
        rn_errors_add(errs, "%s:0: tests: no tests/ directory and no tests: list", dir);
        free(dir);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const char *f = names[i]->d_name;
        bool in = ends_with(f, ".in");
        size_t stem = strlen(f) - (in ? 3 : 4);
        char *base = strndup(f, stem);
        char *rin = rn_strdup_printf("tests/%s.in", base), *rout = rn_strdup_printf("tests/%s.out", base);
        if (in && is_file(p->dir, rout) && is_file(p->dir, rin))
            rc |= add_test(p, base, rin, rout);
        else if (in || !is_file(p->dir, rin))
            rn_errors_add(errs, "%s/%s:0: tests: no matching %s", dir, f, in ? rout : rin), rc = -1;
        free(base);
        free(rin);
        free(rout);
        free(names[i]);
    }
    free(names);
    free(dir);
    return rc;
}

static int parse_tests(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    if (!n)
        return discover_tests(p, y->errs);
    if (n->type != YAML_SEQUENCE_NODE) {
        ydoc_error(y, n, "tests", "expected a list of tests");
        return -1;
    }
    int rc = 0;
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++)
        rc |= explicit_test(y, ydoc_node(y, *i), p);
    for (size_t i = 0; i < p->test_count; i++)
        for (size_t j = 0; j < i; j++)
            if (!strcmp(p->tests[i].name, p->tests[j].name))
                ydoc_error(y, n, "tests", "test '%s' is listed twice", p->tests[i].name), rc = -1;
    return rc;
}

/* ---- subtasks ---------------------------------------------------------- */

static long find_test(const struct rn_problem *p, const char *name)
{
    for (size_t i = 0; i < p->test_count; i++)
        if (!strcmp(p->tests[i].name, name))
            return (long)i;
    return -1;
}

static bool all_digits(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* a test name, else a 1-based position; -1 when neither */
static long test_ref(const struct rn_problem *p, const char *s, size_t n)
{
    char *ref = strndup(s, n);
    long i = find_test(p, ref);
    if (i < 0 && all_digits(s, n)) {
        long pos = strtol(ref, NULL, 10);
        i = pos >= 1 && (size_t)pos <= p->test_count ? pos - 1 : -1;
    }
    free(ref);
    return i;
}

static int push_index(size_t **v, size_t *count, size_t value)
{
    size_t *nv = realloc(*v, (*count + 1) * sizeof *nv);
    if (!nv)
        return -1;
    nv[(*count)++] = value;
    *v = nv;
    return 0;
}

static int subtask_item(struct ydoc *y, yaml_node_t *n, const struct rn_problem *p,
                        struct rn_subtask *st)
{
    const char *s = ydoc_scalar(y, n, "subtasks.tests");
    if (!s)
        return -1;
    long first = test_ref(p, s, strlen(s)), last = first;
    const char *dash = strchr(s, '-');
    if (first < 0 && dash && dash != s) {
        first = test_ref(p, s, (size_t)(dash - s));
        last = test_ref(p, dash + 1, strlen(dash + 1));
    }
    if (first < 0 || last < 0 || last < first) {
        ydoc_error(y, n, "subtasks.tests", "'%s' names no test (a name, a position 1..%zu "
                   "or a range a-b)", s, p->test_count);
        return -1;
    }
    for (long i = first; i <= last; i++)
        if (push_index(&st->tests, &st->test_count, (size_t)i) < 0)
            return -1;
    return 0;
}

static int subtask_tests(struct ydoc *y, yaml_node_t *n, const struct rn_problem *p,
                         struct rn_subtask *st)
{
    if (n->type != YAML_SEQUENCE_NODE) {
        ydoc_error(y, n, "subtasks.tests", "expected a list such as [1-5, 7]");
        return -1;
    }
    int rc = 0;
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++)
        rc |= subtask_item(y, ydoc_node(y, *i), p, st);
    if (!rc && st->test_count == 0)
        ydoc_error(y, n, "subtasks.tests", "a subtask needs at least one test"), rc = -1;
    return rc;
}

static int subtask_deps(struct ydoc *y, yaml_node_t *n, const struct rn_problem *p,
                        size_t self, struct rn_subtask *st)
{
    char **names = NULL;
    if (ydoc_strings(y, n, "subtasks.depends", &names) < 0)
        return -1;
    int rc = 0;
    for (char **d = names; *d; d++) {
        size_t j = 0;
        while (j < self && strcmp(p->subtasks[j].name, *d))
            j++;
        if (j == self)
            ydoc_error(y, n, "subtasks.depends", "'%s' is not an earlier subtask", *d), rc = -1;
        else
            push_index(&st->deps, &st->dep_count, j);
    }
    rn_argv_free(names);
    return rc;
}

static int parse_subtask(struct ydoc *y, yaml_node_t *n, struct rn_problem *p, size_t self)
{
    struct rn_subtask *st = &p->subtasks[self];
    if (ydoc_mapping(y, n, "subtasks") < 0)
        return -1;
    int rc = 0;
    bool has_points = false;
    yaml_node_t *tests = NULL, *deps = NULL;
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        if (!strcmp(key, "name"))
            rc |= ydoc_string(y, v, "subtasks.name", &st->name);
        else if (!strcmp(key, "points"))
            rc |= ydoc_number(y, v, "subtasks.points", &st->points), has_points = true;
        else if (!strcmp(key, "tests"))
            tests = v;
        else if (!strcmp(key, "depends"))
            deps = v;
        else
            ydoc_error(y, k, key, "unknown key in a subtask (name, points, tests, depends)"), rc = -1;
    }
    if (!st->name)
        st->name = rn_strdup_printf("%zu", self + 1);
    for (size_t j = 0; j < self; j++)
        if (!strcmp(p->subtasks[j].name, st->name))
            ydoc_error(y, n, "subtasks.name", "'%s' is used twice", st->name), rc = -1;
    if (!has_points)
        ydoc_error(y, n, "subtasks.points", "missing (required)"), rc = -1;
    if (!tests)
        ydoc_error(y, n, "subtasks.tests", "missing (required)"), rc = -1;
    else
        rc |= subtask_tests(y, tests, p, st);
    if (deps)
        rc |= subtask_deps(y, deps, p, self, st);
    return rc;
}

static int default_subtask(struct rn_problem *p)
{
    p->subtasks = calloc(1, sizeof *p->subtasks);
    if (!p->subtasks)
        return -1;
    p->subtask_count = 1;
    struct rn_subtask *st = &p->subtasks[0];
    st->name = strdup("all");
    st->points = 100;
    for (size_t i = 0; i < p->test_count; i++)
        push_index(&st->tests, &st->test_count, i);
    return 0;
}

static int parse_subtasks(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    if (!n)
        return default_subtask(p);
    if (n->type != YAML_SEQUENCE_NODE || n->data.sequence.items.top == n->data.sequence.items.start) {
        ydoc_error(y, n, "subtasks", "expected a non-empty list of subtasks");
        return -1;
    }
    size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    p->subtasks = calloc(count, sizeof *p->subtasks);
    p->subtask_count = count;
    int rc = 0;
    for (size_t i = 0; i < count; i++)
        rc |= parse_subtask(y, ydoc_node(y, n->data.sequence.items.start[i]), p, i);
    return rc;
}

/* ---- top level --------------------------------------------------------- */

static int parse_stop(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    const char *s = ydoc_scalar(y, n, "stop_on_failure");
    if (!s)
        return -1;
    if (!strcmp(s, "none"))
        p->stop = RN_STOP_NONE;
    else if (!strcmp(s, "subtask"))
        p->stop = RN_STOP_SUBTASK;
    else if (!strcmp(s, "all"))
        p->stop = RN_STOP_ALL;
    else {
        ydoc_error(y, n, "stop_on_failure", "unknown value '%s' (none, subtask, all)", s);
        return -1;
    }
    return 0;
}

static int parse_top(struct ydoc *y, const char *key, yaml_node_t *k, yaml_node_t *v,
                     struct rn_problem *p, struct pending *later)
{
    if (!strcmp(key, "name"))
        return ydoc_string(y, v, key, &p->name);
    if (!strcmp(key, "title"))
        return ydoc_string(y, v, key, &p->title);
    if (!strcmp(key, "time_limit"))
        return ydoc_duration(y, v, key, &p->time_limit);
    if (!strcmp(key, "wall_time_limit"))
        return ydoc_duration(y, v, key, &p->wall_time_limit);
    if (!strcmp(key, "compile_limits"))
        return parse_compile_limits(y, v, p);
    if (!strcmp(key, "type"))
        return later->type = v, parse_type(y, v, p);
    if (!strcmp(key, "interactor"))
        return later->interactor = v, 0;
    if (!strcmp(key, "grader"))
        return later->grader = v, 0;
    if (!strcmp(key, "memory_limit"))
        return p->memory_line = ydoc_line(k), ydoc_size(y, v, key, &p->memory_limit);
    if (!strcmp(key, "output_limit"))
        return ydoc_size(y, v, key, &p->output_limit);
    if (!strcmp(key, "stop_on_failure"))
        return parse_stop(y, v, p);
    if (!strcmp(key, "checker"))
        return later->checker = v, p->checker_given = true, 0;
    if (!strcmp(key, "tests"))
        return later->tests = v, 0;
    if (!strcmp(key, "subtasks"))
        return later->subtasks = v, 0;
    ydoc_error(y, k, key, "unknown key (name, title, type, time_limit, wall_time_limit, "
               "memory_limit, output_limit, compile_limits, checker, interactor, grader, tests, "
               "subtasks, stop_on_failure)");
    return -1;
}

static int check_top(struct ydoc *y, yaml_node_t *root, struct rn_problem *p)
{
    int rc = 0;
    if (!p->name)
        ydoc_error(y, root, "name", "missing (required)"), rc = -1;
    if (p->time_limit <= 0)
        ydoc_error(y, root, "time_limit", "missing or zero (required, e.g. 1s)"), rc = -1;
    if (p->memory_limit == 0)
        ydoc_error(y, root, "memory_limit", "missing or zero (required, e.g. 256M)"), rc = -1;
    if (p->output_limit == 0)
        ydoc_error(y, root, "output_limit", "must not be zero"), rc = -1;
    if (p->wall_time_limit > 0 && p->wall_time_limit < p->time_limit)
        ydoc_error(y, root, "wall_time_limit", "%gs is below time_limit (%gs)",
                   p->wall_time_limit, p->time_limit), rc = -1;
    return rc;
}

static struct rn_problem *problem_defaults(const char *dir)
{
    struct rn_problem *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->dir = strdup(dir);
    p->output_limit = 64ULL << 20;
    p->checker = RN_CHECK_TOKENS;
    p->compare = (struct rn_compare)RN_COMPARE_DEFAULT;
    p->stop = RN_STOP_SUBTASK;
    return p;
}

int rn_problem_load(const char *dir, struct rn_problem **out, struct rn_errors *errs)
{
    char *path = rn_strdup_printf("%s/problem.yaml", dir);
    size_t errors_before = errs->count;
    struct ydoc y;
    struct rn_problem *p = problem_defaults(dir);
    int rc = ydoc_load(&y, path, NULL, errs);
    yaml_node_t *root = ydoc_root(&y);
    if (rc == 0 && (rc = ydoc_mapping(&y, root, "document")) == 0) {
        struct pending later = {0};
        YDOC_FOR_PAIRS(&y, root, key, k, v) rc |= parse_top(&y, key, k, v, p, &later);
        rc |= check_top(&y, root, p);
        if (later.checker)
            rc |= parse_checker(&y, later.checker, p);
        if (later.interactor)
            rc |= parse_interactor(&y, later.interactor, p);
        if (later.grader)
            rc |= parse_graders(&y, later.grader, p);
        rc |= check_type(&y, root, &later, p);
        if (parse_tests(&y, later.tests, p) < 0)
            rc = -1;
        else if (p->test_count == 0)
            ydoc_error(&y, later.tests ? later.tests : root, "tests", "the package has no tests"), rc = -1;
        else
            rc |= parse_subtasks(&y, later.subtasks, p);
    }
    ydoc_free(&y);
    free(path);
    if (rc || errs->count > errors_before) {
        rn_problem_free(p);
        return -1;
    }
    *out = p;
    return 0;
}
