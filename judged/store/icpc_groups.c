/*
 * icpc_groups.c - the test data groups of an ICPC scoring problem mapped
 * onto the runner's subtasks (runner/README.md, "ICPC scoring problems").
 *
 * The runner scores a subtask as points x the smallest fraction among its
 * tests, skips it when a subtask it depends on is not AC, and adds the
 * subtasks up. Each ICPC group becomes subtasks ("units") that score what
 * the group would:
 *  - pass-fail or min aggregation: one unit holding the group's tests,
 *    worth the group's maximum;
 *  - sum (and legacy avg): a unit per test or subgroup, worth its share;
 *  - legacy on_reject: break: each part depends on the part before it, so
 *    nothing after the first rejection scores;
 *  - require_pass: the group's units depend on the named groups' units.
 * A package those units cannot express (legacy: a verdict mode that is
 * not the first failure, max, a min over sums, a range that clamps, a
 * nonzero reject_score; 2023-07+: a min over sums) is written instead as
 * the runner's graded groups: one subtask per group with its tests, its
 * parent and its grading, the tree Kattis' default grader walks
 * (legacy_tree, modern_tree). What neither says (unbounded scores, custom
 * graders) is an error naming file, line and key: never a different
 * problem.
 *
 * Legacy groups read testdata.yaml, inherited whole from the closest
 * ancestor that has one; 2023-07 and later read test_group.yaml (or
 * testdata.yaml) of each group, with `scoring: {score, aggregation,
 * require_pass}` (2023-07) or `max_score`, `score_aggregation`,
 * `require_pass` (2025-09), not inherited.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert.h"
#include "store.h"
#include "yaml_doc.h"

#define MAX_UNITS 1000   /* the runner's subtask limit */
#define MAX_REQUIRE 16

enum agg { AGG_PASSFAIL, AGG_SUM, AGG_MIN, AGG_AVG, AGG_MAX };

/* the default grader's verdict modes (legacy grader_flags) */
enum vmode { V_WORST_ERROR, V_FIRST_ERROR, V_ALWAYS_ACCEPT };

/* What one group's file says. */
struct gset {
    enum agg agg;
    enum vmode vmode;             /* legacy grader_flags; the tree only */
    bool any_accepted;            /* legacy accept_if_any_accepted; the tree only */
    double reject;                /* legacy reject_score; the tree only */
    bool brk;                     /* legacy on_reject: break (the default) */
    bool ignore_sample;           /* legacy grader_flags, data/ only */
    double accept;                /* legacy accept_score */
    double max;                   /* 2023-07 score / 2025-09 max_score; < 0: not given */
    double lo, hi;                /* legacy range */
    char require[MAX_REQUIRE][128];
    size_t nreq;
    char file[300];               /* the file that said it, for errors */
    int agg_line, range_line, require_line, max_line;
};

/* One runner subtask. */
struct unit {
    char name[300];
    double points;
    char **tests;
    size_t nt;
    size_t *deps;
    size_t nd;
};

struct group_units {
    char name[300];               /* relative to data/: sample, secret/g1 */
    size_t first, last;
};

struct plan {
    const char *dir;
    bool legacy;
    bool tree;                    /* legacy as graded groups: nothing refused for its grading */
    struct unit *u;
    size_t n;
    struct group_units *g;
    size_t ng;
    struct conv_errs *e;
};

/* data/secret/g1/01.in -> secret-g1-01 */
void icpc_test_name(const char *rel_in, char *out, size_t len)
{
    size_t n = strlen(rel_in);
    snprintf(out, len, "%.*s", n > 8 ? (int)(n - 8) : 0, rel_in + 5);
    for (char *c = out; *c; c++)
        if (*c == '/')
            *c = '-';
}

/* ---- one group's file ---------------------------------------------------- */

static const struct ydoc_how group_words = {.syntax_key = "(yaml)", .empty_ok = true};

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static bool number(const char *s, double *out)
{
    char *end;
    if (!s)
        return false;
    double v = strtod(s, &end);
    if (end == s || *end || isnan(v))
        return false;
    *out = v;
    return true;
}

static void gset_defaults(struct gset *g, const char *rel, bool legacy)
{
    bool secret = !strcmp(rel, "data/secret");
    *g = (struct gset){.agg = legacy || secret ? AGG_SUM : AGG_PASSFAIL, .brk = true, .accept = 1,
                       .max = !legacy && secret ? 100 : -1, .lo = -INFINITY, .hi = INFINITY};
}

/* grader_flags: the default grader's modes, the last one winning. As
 * subtasks (units) the verdict is the runner's first failure, so the modes
 * that give another are refused there; the tree takes them all. */
static void grader_flags(struct plan *p, struct gset *g, const char *s, int line)
{
    char copy[512], *save = NULL;
    snprintf(copy, sizeof copy, "%s", s ? s : "");
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (!strcmp(t, "sum") || !strcmp(t, "min") || !strcmp(t, "avg") || !strcmp(t, "max"))
            g->agg = t[1] == 'u' ? AGG_SUM : t[1] == 'i' ? AGG_MIN : t[1] == 'v' ? AGG_AVG : AGG_MAX;
        else if (!strcmp(t, "ignore_sample"))
            g->ignore_sample = true;
        else if (!strcmp(t, "first_error") || !strcmp(t, "worst_error"))
            g->vmode = t[0] == 'f' ? V_FIRST_ERROR : V_WORST_ERROR;
        else if (p->tree && !strcmp(t, "always_accept"))
            g->vmode = V_ALWAYS_ACCEPT;
        else if (p->tree && !strcmp(t, "accept_if_any_accepted"))
            g->any_accepted = true;
        else if (p->tree)
            conv_err(p->e, "%s:%d: grader_flags: '%.40s' is not a flag of the default grader (sum, avg, min, max, "
                     "worst_error, first_error, always_accept, accept_if_any_accepted, ignore_sample)", g->file,
                     line, t);
        else
            conv_err(p->e, "%s:%d: grader_flags: '%.40s' is not converted: the runner's verdict is the first "
                     "failure (always_accept and accept_if_any_accepted would give another)", g->file, line, t);
    }
    g->agg_line = line;
}

static void legacy_key(struct plan *p, struct gset *g, const char *k, yaml_node_t *v)
{
    int line = ydoc_line(v);
    const char *s = scalar(v);
    if (!strcmp(k, "on_reject")) {
        if (!s || (strcmp(s, "break") && strcmp(s, "continue")))
            conv_err(p->e, "%s:%d: on_reject: expected break or continue", g->file, line);
        g->brk = s && !strcmp(s, "break");
    } else if (!strcmp(k, "grading")) {
        if (!s || strcmp(s, "default"))
            conv_err(p->e, "%s:%d: grading: '%.40s' is not converted: only the default grader (grader_flags) is "
                     "mapped onto subtasks; graders/ are not run", g->file, line, s ? s : "?");
    } else if (!strcmp(k, "grader_flags")) {
        grader_flags(p, g, s, line);
    } else if (!strcmp(k, "accept_score")) {
        if (!number(s, &g->accept) || g->accept < 0 || isinf(g->accept))
            conv_err(p->e, "%s:%d: accept_score: expected a number >= 0", g->file, line);
    } else if (!strcmp(k, "reject_score")) {
        if (!number(s, &g->reject) || isinf(g->reject))
            conv_err(p->e, "%s:%d: reject_score: expected a number", g->file, line);
        else if (!p->tree && g->reject != 0)
            conv_err(p->e, "%s:%d: reject_score: only 0 is converted: the runner scores a rejected test 0",
                     g->file, line);
    } else if (!strcmp(k, "range")) {
        char lo[64] = "", hi[64] = "";
        if (!s || sscanf(s, "%63s %63s", lo, hi) != 2 || !number(lo, &g->lo) || !number(hi, &g->hi))
            conv_err(p->e, "%s:%d: range: expected two numbers (\"-inf\", \"inf\" allowed)", g->file, line);
        else if (g->lo > g->hi)
            conv_err(p->e, "%s:%d: range: %g is above %g", g->file, line, g->lo, g->hi);
        g->range_line = line;
    } else if (strcmp(k, "input_validator_flags") && strcmp(k, "output_validator_flags")) {
        conv_err(p->e, "%s:%d: %.60s: unknown key", g->file, line, k);
    }
}

/* score: N | unbounded (2023-07 scoring.score, 2025-09 max_score) */
static void max_score(struct plan *p, struct gset *g, const char *k, yaml_node_t *v)
{
    const char *s = scalar(v);
    g->max_line = ydoc_line(v);
    if (s && !strcmp(s, "unbounded")) {
        conv_err(p->e, "%s:%d: %s: 'unbounded' is not converted: the runner's scores are fractions of a bounded "
                 "worth", g->file, g->max_line, k);
        g->max = 0;
    }
    else if (!number(s, &g->max) || g->max < 0)
        conv_err(p->e, "%s:%d: %s: expected a number >= 0 or unbounded", g->file, g->max_line, k), g->max = -1;
}

static void aggregation(struct plan *p, struct gset *g, const char *k, yaml_node_t *v)
{
    const char *s = scalar(v);
    g->agg_line = ydoc_line(v);
    if (s && !strcmp(s, "pass-fail"))
        g->agg = AGG_PASSFAIL;
    else if (s && !strcmp(s, "sum"))
        g->agg = AGG_SUM;
    else if (s && !strcmp(s, "min"))
        g->agg = AGG_MIN;
    else
        conv_err(p->e, "%s:%d: %s: expected pass-fail, sum or min", g->file, g->agg_line, k);
}

static void require_pass(struct ydoc *d, struct plan *p, struct gset *g, yaml_node_t *v)
{
    g->require_line = ydoc_line(v);
    yaml_node_item_t one = 0;
    yaml_node_item_t *i = &one, *end = &one + 1;
    if (v->type == YAML_SEQUENCE_NODE)
        i = v->data.sequence.items.start, end = v->data.sequence.items.top;
    for (; i < end; i++) {
        const char *s = scalar(i == &one ? v : ydoc_node(d, *i));
        if (!s || g->nreq == MAX_REQUIRE) {
            conv_err(p->e, "%s:%d: require_pass: expected a group name or a list of at most %d", g->file,
                     g->require_line, MAX_REQUIRE);
            return;
        }
        snprintf(g->require[g->nreq++], sizeof g->require[0], "%s", s);
    }
}

static void modern_key(struct ydoc *d, struct plan *p, struct gset *g, const char *k, yaml_node_t *v);

/* 2023-07: scoring: {score, aggregation, require_pass} */
static void scoring_map(struct ydoc *d, struct plan *p, struct gset *g, yaml_node_t *v)
{
    if (v->type != YAML_MAPPING_NODE) {
        conv_err(p->e, "%s:%d: scoring: expected a mapping (score, aggregation, require_pass)", g->file,
                 ydoc_line(v));
        return;
    }
    ydoc_mapping(d, v, "scoring");
    YDOC_FOR_PAIRS(d, v, k, kn, val) {
        (void)kn;
        if (!val)
            return;
        if (!strcmp(k, "score"))
            max_score(p, g, "scoring.score", val);
        else if (!strcmp(k, "aggregation"))
            aggregation(p, g, "scoring.aggregation", val);
        else if (!strcmp(k, "require_pass"))
            require_pass(d, p, g, val);
        else
            conv_err(p->e, "%s:%d: scoring.%.60s: unknown key (score, aggregation, require_pass)", g->file,
                     ydoc_line(kn), k);
    }
}

static void modern_key(struct ydoc *d, struct plan *p, struct gset *g, const char *k, yaml_node_t *v)
{
    static const char *harmless[] = {"input_validator_args", "input_validator_flags", "full_feedback", "hint",
                                     "description", "input_visualizer_args", "output_visualizer_args",
                                     "output_validator_args", "output_validator_flags", NULL};
    if (!strcmp(k, "scoring"))
        scoring_map(d, p, g, v);
    else if (!strcmp(k, "max_score"))
        max_score(p, g, k, v);
    else if (!strcmp(k, "score_aggregation"))
        aggregation(p, g, k, v);
    else if (!strcmp(k, "require_pass"))
        require_pass(d, p, g, v);
    else {
        for (int i = 0; harmless[i]; i++)
            if (!strcmp(k, harmless[i]))
                return;
        conv_err(p->e, "%s:%d: %.60s: not converted (no submission arguments per test, no static validation)",
                 g->file, ydoc_line(v), k);
    }
}

/* The file of group rel: test_group.yaml, else testdata.yaml; "" if none. */
static void group_file(const char *dir, const char *rel, char *out, size_t len)
{
    static const char *names[] = {"test_group.yaml", "testdata.yaml"};
    struct stat st;
    out[0] = 0;
    for (int i = 0; i < 2 && !out[0]; i++) {
        char p[4400];
        snprintf(p, sizeof p, "%s/%s/%s", dir, rel, names[i]);
        if (!stat(p, &st))
            snprintf(out, len, "%s/%s", rel, names[i]);
    }
}

/* The settings of group rel: legacy ones inherit parent's when it has no
 * file of its own (ignore_sample excepted: data/ only). */
static void read_gset(struct plan *p, const char *rel, const struct gset *parent, struct gset *g)
{
    char file[300];
    group_file(p->dir, rel, file, sizeof file);
    if (p->legacy && parent && !file[0]) {
        *g = *parent;
        g->ignore_sample = false;
        return;
    }
    gset_defaults(g, rel, p->legacy);
    snprintf(g->file, sizeof g->file, "%s", file[0] ? file : rel);
    if (!file[0])
        return;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", p->dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    struct common_errors found = {0};
    struct ydoc d;
    yaml_node_t *root = ydoc_read(&d, f, file, &group_words, &found) ? NULL : ydoc_root(&d);
    if (root && root->type == YAML_MAPPING_NODE) {
        ydoc_mapping(&d, root, "(top level)");
        YDOC_FOR_PAIRS(&d, root, k, kn, v) {
            (void)kn;
            if (!v)
                break;
            if (p->legacy)
                legacy_key(p, g, k, v);
            else
                modern_key(&d, p, g, k, v);
        }
    } else if (root && !(root->type == YAML_SCALAR_NODE && !root->data.scalar.length)) {
        conv_err(p->e, "%s:1: (top level): expected a mapping", file);
    }
    ydoc_free(&d);
    fclose(f);
    for (size_t i = 0; i < found.count; i++)
        conv_line(p->e, found.items[i]);
    common_errors_free(&found);
}

/* ---- units ------------------------------------------------------------- */

static struct unit *new_unit(struct plan *p, const char *name, double points)
{
    if (p->n == MAX_UNITS) {
        if (!p->e->n || !strstr(p->e->buf, "more than 1000 subtasks"))
            conv_err(p->e, "data/secret:0: data: more than 1000 subtasks (one per test of a sum group): the "
                     "runner's limit");
        return NULL;
    }
    struct unit *grown = realloc(p->u, (p->n + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    p->u = grown;
    struct unit *u = &p->u[p->n++];
    *u = (struct unit){.points = points};
    snprintf(u->name, sizeof u->name, "%s", name);
    for (char *c = u->name; *c; c++)
        if (*c == '/')
            *c = '-';
    return u;
}

static void add_test(struct unit *u, const char *rel_in)
{
    char name[300];
    icpc_test_name(rel_in, name, sizeof name);
    char **grown = realloc(u->tests, (u->nt + 1) * sizeof *grown);
    if (grown) {
        u->tests = grown;
        u->tests[u->nt++] = strdup(name);
    }
}

static void add_dep(struct unit *u, size_t d)
{
    for (size_t i = 0; i < u->nd; i++)
        if (u->deps[i] == d)
            return;
    size_t *grown = realloc(u->deps, (u->nd + 1) * sizeof *grown);
    if (grown) {
        u->deps = grown;
        u->deps[u->nd++] = d;
    }
}

static void free_unit(struct unit *u)
{
    for (size_t i = 0; i < u->nt; i++)
        free(u->tests[i]);
    free(u->tests);
    free(u->deps);
}

static void free_plan(struct plan *p)
{
    for (size_t i = 0; i < p->n; i++)
        free_unit(&p->u[i]);
    free(p->u);
    free(p->g);
    p->u = NULL, p->g = NULL, p->n = p->ng = 0;
}

/* Is data/<rel>/<name> a test (an .in with its .ans) or a group? */
enum child { NOT_A_CHILD, TEST, GROUP };

static enum child child_kind(const char *dir, const char *rel, const char *name)
{
    char p[4400];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s/%s", dir, rel, name);
    if (stat(p, &st))
        return NOT_A_CHILD;
    if (S_ISDIR(st.st_mode))
        return GROUP;
    size_t len = strlen(name);
    if (len <= 3 || strcmp(name + len - 3, ".in"))
        return NOT_A_CHILD;
    snprintf(p, sizeof p, "%s/%s/%.*s.ans", dir, rel, (int)(len - 3), name);
    return stat(p, &st) ? NOT_A_CHILD : TEST;
}

/* Every test beneath rel into u, in the runner's order. */
static void all_tests(struct plan *p, const char *rel, struct unit *u)
{
    char path[4400];
    size_t n;
    snprintf(path, sizeof path, "%s/%s", p->dir, rel);
    if (store_path_depth(rel) > STORE_MAX_DEPTH)
        return;
    char **names = conv_sorted_names(path, &n);
    for (size_t i = 0; i < n; i++) {
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        enum child c = child_kind(p->dir, rel, names[i]);
        if (c == GROUP)
            all_tests(p, sub, u);
        else if (c == TEST && u)
            add_test(u, sub);
    }
    conv_free_names(names, n);
}

/* data/secret/g1 -> secret/g1 (data itself: "") */
static const char *group_name(const char *rel)
{
    return strlen(rel) > 5 ? rel + 5 : "";
}

static void record_group(struct plan *p, const char *rel, size_t first)
{
    struct group_units *grown = realloc(p->g, (p->ng + 1) * sizeof *grown);
    if (!grown)
        return;
    p->g = grown;
    struct group_units *g = &p->g[p->ng++];
    snprintf(g->name, sizeof g->name, "%s", group_name(rel));
    g->first = first;
    g->last = p->n;
}

/* min: every part must score all or nothing (one unit); they become one
 * unit worth the smallest part's worth. */
static void merge_min(struct plan *p, const char *rel, const struct gset *g, size_t first, size_t parts)
{
    if (p->n - first != parts) {
        conv_err(p->e, "%s:%d: %s: 'min' over a group scored in parts (sum) is not converted: the runner's "
                 "subtask takes the smallest fraction of one worth", g->file, g->agg_line,
                 p->legacy ? "grader_flags" : "aggregation");
        return;
    }
    if (first == p->n)
        return;
    struct unit *m = &p->u[first];
    snprintf(m->name, sizeof m->name, "%s", group_name(rel));
    for (char *c = m->name; *c; c++)
        if (*c == '/')
            *c = '-';
    for (size_t i = first + 1; i < p->n; i++) {
        struct unit *u = &p->u[i];
        m->points = fmin(m->points, u->points);
        char **grown = realloc(m->tests, (m->nt + u->nt) * sizeof *grown);
        if (!grown) {
            free_unit(u);
            continue;
        }
        m->tests = grown;
        for (size_t t = 0; t < u->nt; t++)
            m->tests[m->nt++] = u->tests[t];
        for (size_t d = 0; d < u->nd; d++)
            if (u->deps[d] < first)   /* a part's own dependencies, never on another part */
                add_dep(m, u->deps[d]);
        free(u->deps);
        free(u->tests);
    }
    p->n = first + 1;
}

/* ---- legacy: testdata.yaml ------------------------------------------------ */

static void legacy_group(struct plan *p, const char *rel, const struct gset *parent, double scale);

static size_t count_children(const char *dir, const char *rel, char **names, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += child_kind(dir, rel, names[i]) != NOT_A_CHILD;
    return c;
}

static void legacy_children(struct plan *p, const char *rel, const struct gset *g, double scale, char **names,
                            size_t n)
{
    size_t prev_first = p->n, prev_last = p->n;
    for (size_t i = 0; i < n; i++) {
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        enum child c = child_kind(p->dir, rel, names[i]);
        size_t first = p->n;
        if (c == TEST) {
            char name[300];
            icpc_test_name(sub, name, sizeof name);
            struct unit *u = new_unit(p, name, g->accept * scale);
            if (u)
                add_test(u, sub);
        } else if (c == GROUP && !strcmp(sub, "data/sample") && g->ignore_sample) {
            continue;   /* ignore_sample: judged (icpc_subtasks), not scored */
        } else if (c == GROUP) {
            legacy_group(p, sub, g, scale);
        } else {
            continue;
        }
        /* on_reject: break: nothing after a rejected part is judged */
        for (size_t u = first; g->brk && g->agg != AGG_MIN && u < p->n; u++)
            for (size_t d = prev_first; d < prev_last; d++)
                add_dep(&p->u[u], d);
        if (p->n > first)   /* an empty group breaks no chain */
            prev_first = first, prev_last = p->n;
    }
}

static void legacy_group(struct plan *p, const char *rel, const struct gset *parent, double scale)
{
    struct gset g;
    read_gset(p, rel, parent, &g);
    char path[4400];
    size_t n, first = p->n;
    snprintf(path, sizeof path, "%s/%s", p->dir, rel);
    if (store_path_depth(rel) > STORE_MAX_DEPTH)
        return;
    char **names = conv_sorted_names(path, &n);
    size_t parts = count_children(p->dir, rel, names, n);
    if (g.ignore_sample && strcmp(rel, "data"))
        conv_err(p->e, "%s:%d: grader_flags: 'ignore_sample' is only for data/testdata.yaml (the root group)", g.file,
                 g.agg_line);
    if (g.agg == AGG_MAX && parts > 1)
        conv_err(p->e, "%s:%d: grader_flags: 'max' is not converted: the runner adds subtasks up", g.file,
                 g.agg_line);
    legacy_children(p, rel, &g, g.agg == AGG_AVG && parts ? scale / (double)parts : scale, names, n);
    if (!strcmp(rel, "data") && g.ignore_sample && child_kind(p->dir, rel, "sample") == GROUP)
        parts--;
    conv_free_names(names, n);
    if (g.agg == AGG_MIN)
        merge_min(p, rel, &g, first, parts);
    double total = 0;
    for (size_t i = first; i < p->n; i++)
        total += p->u[i].points;
    if (total > g.hi + 1e-9 || g.lo > 1e-9)
        conv_err(p->e, "%s:%d: range: the group scores 0 to %g, outside %g..%g: the runner does not clamp "
                 "scores", g.file, g.range_line, total, g.lo, g.hi);
    record_group(p, rel, first);
}

/* ---- legacy: a tree of graded groups ---------------------------------- */

static bool holds_tests(struct plan *p, const char *rel)
{
    struct unit probe = {0};
    all_tests(p, rel, &probe);
    bool any = probe.nt > 0;
    free_unit(&probe);
    return any;
}

/* data -> data, data/secret/g1 -> secret-g1 */
static void tree_name(const char *rel, char *out, size_t len)
{
    snprintf(out, len, "%s", strcmp(rel, "data") ? group_name(rel) : "data");
    for (char *c = out; *c; c++)
        if (*c == '/')
            *c = '-';
}

static void tree_grade(const struct gset *g, bool ignore_first, FILE *out)
{
    static const char *scores[] = {[AGG_PASSFAIL] = "min", [AGG_SUM] = "sum", [AGG_MIN] = "min",
                                   [AGG_AVG] = "avg", [AGG_MAX] = "max"};
    static const char *verdicts[] = {[V_WORST_ERROR] = "worst_error", [V_FIRST_ERROR] = "first_error",
                                     [V_ALWAYS_ACCEPT] = "always_accept"};
    fprintf(out, ", grade: {score: %s, verdict: %s, accept_if_any_accepted: %s, ignore_first: %s, "
            "on_reject: %s, reject_score: %.15g, range: [%.15g, %.15g]}}\n", scores[g->agg], verdicts[g->vmode],
            g->any_accepted ? "true" : "false", ignore_first ? "true" : "false", g->brk ? "break" : "continue",
            g->reject, g->lo, g->hi);
}

/* Group rel as one graded subtask (its own tests, its accept_score as
 * points, its grader's flags), then its subgroups holding tests, each with
 * rel as parent: Kattis grades the same tree. */
static void tree_group(struct plan *p, const char *rel, const struct gset *parent, const char *parent_name,
                       FILE *out)
{
    struct gset g;
    read_gset(p, rel, parent, &g);
    if (g.ignore_sample && strcmp(rel, "data"))
        conv_err(p->e, "%s:%d: grader_flags: 'ignore_sample' is only for data/testdata.yaml (the root group)", g.file,
                 g.agg_line);
    if (store_path_depth(rel) > STORE_MAX_DEPTH || !new_unit(p, rel, 0))
        return;
    char path[4400], name[300];
    size_t n;
    snprintf(path, sizeof path, "%s/%s", p->dir, rel);
    tree_name(rel, name, sizeof name);
    char **names = conv_sorted_names(path, &n);
    fprintf(out, "  - {name: ");
    conv_yaml_string(out, name);
    fprintf(out, ", points: %.15g, tests: [", g.accept);
    size_t listed = 0;
    for (size_t i = 0; i < n; i++) {
        char sub[4400], test[300];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        if (child_kind(p->dir, rel, names[i]) != TEST)
            continue;
        icpc_test_name(sub, test, sizeof test);
        fprintf(out, "%s", listed++ ? ", " : "");
        conv_yaml_string(out, test);
    }
    fprintf(out, "]");
    if (parent_name) {
        fprintf(out, ", parent: ");
        conv_yaml_string(out, parent_name);
    }
    /* ignore_sample drops the first result: the samples' (when there are some) */
    tree_grade(&g, !strcmp(rel, "data") && g.ignore_sample && holds_tests(p, "data/sample"), out);
    for (size_t i = 0; i < n; i++) {
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        if (child_kind(p->dir, rel, names[i]) == GROUP && holds_tests(p, sub))
            tree_group(p, sub, &g, name, out);
    }
    conv_free_names(names, n);
}

/* ---- 2023-07 and later: test_group.yaml --------------------------------- */

static void modern_group(struct plan *p, const char *rel, const struct gset *g, double max);

/* a child's worth: given, else the group's leftover shared evenly (sum) or
 * the group's (min) */
static double child_max(const struct gset *g, double max, const struct gset *cg, double share)
{
    if (cg && cg->max >= 0)
        return cg->max;
    return g->agg == AGG_MIN ? max : share;
}

static void modern_children(struct plan *p, const char *rel, const struct gset *g, double max, char **names,
                            size_t n)
{
    struct gset *cg = calloc(n ? n : 1, sizeof *cg);
    double given = 0;
    size_t rest = 0;
    for (size_t i = 0; cg && i < n; i++) {
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        enum child c = child_kind(p->dir, rel, names[i]);
        if (c == GROUP)
            read_gset(p, sub, NULL, &cg[i]);
        if (c == GROUP && cg[i].max >= 0)
            given += cg[i].max;
        else
            rest += c != NOT_A_CHILD;
    }
    if (g->agg == AGG_SUM && given > max + 1e-9)
        conv_err(p->e, "%s:%d: score: the groups' scores add up to %g, more than the group's %g", g->file,
                 g->max_line, given, max);
    double share = rest && given < max ? (max - given) / (double)rest : 0;
    for (size_t i = 0; cg && i < n; i++) {
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        enum child c = child_kind(p->dir, rel, names[i]);
        if (c == TEST) {
            char name[300];
            icpc_test_name(sub, name, sizeof name);
            struct unit *u = new_unit(p, name, child_max(g, max, NULL, share));
            if (u)
                add_test(u, sub);
        } else if (c == GROUP) {
            modern_group(p, sub, &cg[i], child_max(g, max, &cg[i], share));
        }
    }
    free(cg);
}

/* require_pass: the group's units depend on the named groups' */
static void modern_require(struct plan *p, const struct gset *g, const char *rel, size_t first)
{
    for (size_t r = 0; r < g->nreq; r++) {
        const char *want = g->require[r];
        size_t k = 0;
        while (k < p->ng && strcmp(p->g[k].name, want))
            k++;
        if (k == p->ng || strcmp(want, group_name(rel)) >= 0) {
            conv_err(p->e, "%s:%d: require_pass: '%.100s' is not a group judged before %s (sample, or an earlier "
                     "group of secret)", g->file, g->require_line, want, group_name(rel));
            continue;
        }
        for (size_t u = first; u < p->n; u++)
            for (size_t d = p->g[k].first; d < p->g[k].last; d++)
                add_dep(&p->u[u], d);
    }
}

static void modern_group(struct plan *p, const char *rel, const struct gset *g, double max)
{
    size_t first = p->n, n;
    if (store_path_depth(rel) > STORE_MAX_DEPTH)
        return;
    if (max < 0) {
        conv_err(p->e, "%s:%d: max_score: needed: a group of a bounded secret has a maximum score (2025-09: "
                 "max_score, 2023-07: scoring.score)", g->file, g->max_line);
        max = 0;
    }
    if (g->agg == AGG_PASSFAIL) {
        /* all or nothing: one unit of every test beneath */
        struct unit *u = new_unit(p, group_name(rel), max);
        all_tests(p, rel, u);
        record_group(p, rel, first);
        modern_require(p, g, rel, first);
        return;
    }
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", p->dir, rel);
    char **names = conv_sorted_names(path, &n);
    size_t parts = count_children(p->dir, rel, names, n);
    modern_children(p, rel, g, max, names, n);
    conv_free_names(names, n);
    if (g->agg == AGG_MIN)
        merge_min(p, rel, g, first, parts);
    record_group(p, rel, first);
    modern_require(p, g, rel, first);
}

/* ---- 2023-07 and later: a tree of graded groups ------------------------- */

/* require_pass as depends: sample or a group judged before (its subtask
 * declared earlier: groups are written in order) */
static void tree_require(struct plan *p, const struct gset *g, const char *rel, FILE *out)
{
    size_t said = 0;
    for (size_t r = 0; r < g->nreq; r++) {
        char dirp[300], name[300];
        snprintf(dirp, sizeof dirp, "data/%s", g->require[r]);
        if (strcmp(g->require[r], group_name(rel)) >= 0 || strstr(g->require[r], "..") || !holds_tests(p, dirp)) {
            conv_err(p->e, "%s:%d: require_pass: '%.100s' is not a group judged before %s (sample, or an earlier "
                     "group of secret)", g->file, g->require_line, g->require[r], group_name(rel));
            continue;
        }
        tree_name(dirp, name, sizeof name);
        fprintf(out, "%s", said++ ? ", " : ", depends: [");
        conv_yaml_string(out, name);
    }
    fprintf(out, "%s", said ? "]" : "");
}

/* Group rel worth max: one graded subtask. pass-fail: every test beneath,
 * each worth max, the smallest (all or nothing); min: its tests worth max
 * and its groups, the smallest; sum: its tests worth an even share of
 * what its groups leave, and its groups, added up (the 2025-09 spec's
 * "Scoring test data groups"). */
static void modern_tree_group(struct plan *p, const char *rel, const struct gset *g, double max, const char *parent,
                              FILE *out)
{
    if (store_path_depth(rel) > STORE_MAX_DEPTH || !new_unit(p, rel, 0))
        return;
    if (max < 0) {
        conv_err(p->e, "%s:%d: max_score: needed: a group of a bounded secret has a maximum score (2025-09: "
                 "max_score, 2023-07: scoring.score)", g->file, g->max_line);
        max = 0;
    }
    char path[4400], name[300];
    size_t n;
    snprintf(path, sizeof path, "%s/%s", p->dir, rel);
    tree_name(rel, name, sizeof name);
    char **names = conv_sorted_names(path, &n);
    struct gset *cg = calloc(n ? n : 1, sizeof *cg);
    double given = 0;
    size_t tests = 0;
    for (size_t i = 0; cg && i < n && g->agg != AGG_PASSFAIL; i++) {
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        enum child c = child_kind(p->dir, rel, names[i]);
        if (c == GROUP)
            read_gset(p, sub, NULL, &cg[i]);
        if (c == GROUP && cg[i].max >= 0)
            given += cg[i].max;
        else
            tests += c != NOT_A_CHILD;
    }
    if (g->agg == AGG_SUM && given > max + 1e-9)
        conv_err(p->e, "%s:%d: score: the groups' scores add up to %g, more than the group's %g", g->file,
                 g->max_line, given, max);
    double share = tests && given < max ? (max - given) / (double)tests : 0;
    fprintf(out, "  - {name: ");
    conv_yaml_string(out, name);
    fprintf(out, ", points: %.15g, tests: [", g->agg == AGG_SUM ? share : max);
    struct unit all = {0};
    if (g->agg == AGG_PASSFAIL)
        all_tests(p, rel, &all);
    for (size_t i = 0; g->agg != AGG_PASSFAIL && i < n; i++) {
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        if (child_kind(p->dir, rel, names[i]) == TEST)
            add_test(&all, sub);
    }
    for (size_t t = 0; t < all.nt; t++) {
        fprintf(out, "%s", t ? ", " : "");
        conv_yaml_string(out, all.tests[t]);
    }
    free_unit(&all);
    fprintf(out, "]");
    if (parent) {
        fprintf(out, ", parent: ");
        conv_yaml_string(out, parent);
    }
    tree_require(p, g, rel, out);
    fprintf(out, ", grade: {score: %s, on_reject: %s}}\n", g->agg == AGG_SUM ? "sum" : "min",
            g->agg == AGG_SUM ? "continue" : "break");
    for (size_t i = 0; cg && i < n && g->agg != AGG_PASSFAIL; i++) {
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        if (child_kind(p->dir, rel, names[i]) == GROUP && holds_tests(p, sub))
            modern_tree_group(p, sub, &cg[i], child_max(g, max, &cg[i], share), name, out);
    }
    free(cg);
    conv_free_names(names, n);
}

/* 2023-07+ groups as graded subtasks (a min over groups scored in parts):
 * the samples a 0-point subtask first, as with units */
static void modern_tree(struct plan *p, FILE *out, struct conv_errs *e)
{
    free_plan(p);
    p->tree = true;
    p->e = e;
    fprintf(out, "subtasks:\n");
    struct unit probe = {0};
    all_tests(p, "data/sample", &probe);
    if (probe.nt) {
        fprintf(out, "  - {name: \"sample\", points: 0, tests: [");
        for (size_t t = 0; t < probe.nt; t++) {
            fprintf(out, "%s", t ? ", " : "");
            conv_yaml_string(out, probe.tests[t]);
        }
        fprintf(out, "]}\n");
    }
    free_unit(&probe);
    struct gset secret;
    read_gset(p, "data/secret", NULL, &secret);
    modern_tree_group(p, "data/secret", &secret, secret.max, NULL, out);
    free_plan(p);
}

/* ---- the plan written out ------------------------------------------------ */

static void write_units(const struct plan *p, FILE *out)
{
    fprintf(out, "subtasks:\n");
    for (size_t i = 0; i < p->n; i++) {
        const struct unit *u = &p->u[i];
        fprintf(out, "  - {name: ");
        conv_yaml_string(out, u->name);
        fprintf(out, ", points: %.15g, tests: [", u->points);
        for (size_t t = 0; t < u->nt; t++) {
            fprintf(out, "%s", t ? ", " : "");
            conv_yaml_string(out, u->tests[t]);
        }
        fprintf(out, "]");
        for (size_t d = 0; d < u->nd; d++) {
            fprintf(out, "%s", d ? ", " : ", depends: [");
            conv_yaml_string(out, p->u[u->deps[d]].name);
        }
        fprintf(out, "%s}\n", u->nd ? "]" : "");
    }
}

/* The samples: one unit worth nothing (judged, never scored), which
 * require_pass may name; legacy samples the root's grader scores are
 * units of their own (legacy_group). */
static void sample_unit(struct plan *p)
{
    struct unit probe = {0};
    all_tests(p, "data/sample", &probe);
    size_t first = p->n;
    if (probe.nt) {
        struct unit *u = new_unit(p, "sample", 0);
        if (u)
            u->tests = probe.tests, u->nt = probe.nt, probe.tests = NULL, probe.nt = 0;
        record_group(p, "data/sample", first);
    }
    free_unit(&probe);
}

/* the legacy groups as graded subtasks (the tree), errors into e */
static void legacy_tree(struct plan *p, FILE *out, struct conv_errs *e)
{
    free_plan(p);
    p->tree = true;
    p->e = e;
    fprintf(out, "subtasks:\n");
    tree_group(p, "data", NULL, NULL, out);
    free_plan(p);
}

void icpc_subtasks(const char *dir, bool legacy, FILE *out, struct conv_errs *e)
{
    struct conv_errs units = {0};
    struct plan p = {.dir = dir, .legacy = legacy, .e = &units};
    if (legacy) {
        struct gset root;
        read_gset(&p, "data", NULL, &root);
        if (root.ignore_sample)
            sample_unit(&p);
        legacy_group(&p, "data", NULL, 1);
    } else {
        struct gset secret;
        read_gset(&p, "data/secret", NULL, &secret);
        sample_unit(&p);
        modern_group(&p, "data/secret", &secret, secret.max);
    }
    if (units.n) {
        /* what subtasks cannot say (legacy: a verdict mode, max, a clamped
         * range, a reject_score; 2023-07+: a min over groups scored in
         * parts): the groups as a tree instead */
        if (legacy)
            legacy_tree(&p, out, e);
        else
            modern_tree(&p, out, e);
        free(units.buf);
        return;
    }
    write_units(&p, out);
    free_plan(&p);
}

/* ---- output validator arguments per group -------------------------------- */

struct args_walk {
    const char *dir;
    bool legacy;
    bool seen;
    char first[1024], first_file[340];
    struct icpc_group_args *own;  /* directories whose tests' differ from first */
    size_t nown;
    struct conv_errs *e;
};

/* The group file's output_validator_flags (legacy, a string) or
 * output_validator_args (2023-07+, a list or a string), joined by blanks;
 * false when it has neither. */
static bool group_args(struct args_walk *w, const char *file, char *out, size_t len, int *line)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", w->dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    struct common_errors found = {0};
    struct ydoc d;
    bool given = false;
    yaml_node_t *root = ydoc_read(&d, f, file, &group_words, &found) ? NULL : ydoc_root(&d);
    YDOC_FOR_PAIRS(&d, root && root->type == YAML_MAPPING_NODE ? root : &(yaml_node_t){.type = YAML_MAPPING_NODE}, k,
                   kn, v) {
        (void)kn;
        if (!v || (strcmp(k, "output_validator_flags") && strcmp(k, "output_validator_args")))
            continue;
        given = true, *line = ydoc_line(v), out[0] = 0;
        if (scalar(v))
            snprintf(out, len, "%s", scalar(v));
        else if (v->type == YAML_SEQUENCE_NODE)
            for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
                const char *a = scalar(ydoc_node(&d, *i));
                size_t used = strlen(out);
                snprintf(out + used, len - used, "%s%s", used ? " " : "", a ? a : "");
            }
        else
            conv_err(w->e, "%s:%d: %s: expected a string or a list of strings (a validator's name is not converted)",
                     file, *line, k);
    }
    ydoc_free(&d);
    fclose(f);
    common_errors_free(&found);   /* the group's reader reports them */
    return given;
}

static void args_group(struct args_walk *w, const char *rel, const char *inherited, const char *from)
{
    char file[300], args[1024], origin[340];
    int line = 0;
    group_file(w->dir, rel, file, sizeof file);
    snprintf(args, sizeof args, "%s", inherited);
    snprintf(origin, sizeof origin, "%s", from);
    if (file[0] && w->legacy)   /* legacy: the group's file replaces the ancestor's whole */
        args[0] = 0, snprintf(origin, sizeof origin, "%s:1", file);
    if (file[0] && group_args(w, file, args, sizeof args, &line))
        snprintf(origin, sizeof origin, "%s:%d", file, line);
    char path[4400];
    size_t n;
    snprintf(path, sizeof path, "%s/%s", w->dir, rel);
    if (store_path_depth(rel) > STORE_MAX_DEPTH)
        return;
    char **names = conv_sorted_names(path, &n);
    bool tests = false;
    for (size_t i = 0; i < n; i++) {
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        enum child c = child_kind(w->dir, rel, names[i]);
        tests = tests || c == TEST;
        if (c == GROUP)
            args_group(w, sub, args, origin);
    }
    conv_free_names(names, n);
    if (!tests)
        return;
    if (!w->seen) {
        w->seen = true;
        snprintf(w->first, sizeof w->first, "%s", args);
        snprintf(w->first_file, sizeof w->first_file, "%s", origin);
    } else if (strcmp(w->first, args)) {
        /* these tests call the validator their own way (the runner's
         * per-test args or checker) */
        struct icpc_group_args *grown = realloc(w->own, (w->nown + 1) * sizeof *grown);
        if (!grown)
            return;
        w->own = grown;
        struct icpc_group_args *g = &w->own[w->nown++];
        snprintf(g->rel, sizeof g->rel, "%s", rel);
        snprintf(g->args, sizeof g->args, "%s", args);
        snprintf(g->origin, sizeof g->origin, "%s", origin[0] ? origin : "problem.yaml:1");
    }
}

int icpc_group_validator_args(const char *dir, bool legacy, char *common, size_t len, struct icpc_group_args **groups,
                              size_t *ngroups, struct conv_errs *e)
{
    struct args_walk w = {.dir = dir, .legacy = legacy, .e = e};
    int before = e->n;
    args_group(&w, "data", "", "");
    snprintf(common, len, "%s", w.seen ? w.first : "");
    *groups = w.own;
    *ngroups = w.nown;
    return e->n > before ? -1 : 0;
}
