/*
 * icpc.c - the ICPC problem package format (Kattis problemtools' legacy
 * version, the 2023-07 draft and later) and DOMjudge's additions to it,
 * converted into the runner's (runner/README.md), in place:
 *
 *  - problem.yaml (name, validation, validator_flags, limits) + .timelimit
 *    + data/sample and data/secret (any depth; *.in with *.ans) +
 *    output_validators/ (a program: icpc_program.c) become a problem.yaml
 *    in the runner's format that lists the tests where they are; the
 *    original stays as problem.icpc.yaml.
 *    A custom output validator keeps its Kattis protocol (the runner's
 *    `protocol: kattis`), validator_flags becoming its arguments. 2023-07
 *    packages (problem_format_version) have output_validator/ and `type:`;
 *    `type: scoring` has its groups' scoring mapped onto subtasks
 *    (icpc_groups.c) and its validator's score.txt read (`scores: true`),
 *    `multi-pass` (interactive too) becomes the runner's `passes`;
 *    `submit-answer` the runner's `type: output-only` (the answers named
 *    after the tests, {name}.out); a type the runner cannot judge as meant
 *    is refused naming the key: never stored as a pass/fail batch problem.
 *  - DOMjudge: domjudge-problem.ini (name, timelimit, special_compare /
 *    special_run naming programs of its own database: refused) and
 *    .timelimit.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "convert.h"
#include "store.h"
#include "yaml_doc.h"

/* limits.output when a package sets none (MiB): the format's default */
#define ICPC_DEFAULT_OUTPUT_MB 8

/* ICPC by its layout: data/secret/ or data/sample/ (DOMjudge's examples
 * may have samples only) or DOMjudge's domjudge-problem.ini, and no tests/
 * (a runner package keeps its tests there). */
bool icpc_detect(const char *dir)
{
    char p[4400];
    struct stat st;
    snprintf(p, sizeof p, "%s/tests", dir);
    if (lstat(p, &st) == 0)
        return false;
    snprintf(p, sizeof p, "%s/data/secret", dir);
    bool data = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
    snprintf(p, sizeof p, "%s/data/sample", dir);
    data = data || (stat(p, &st) == 0 && S_ISDIR(st.st_mode));
    snprintf(p, sizeof p, "%s/domjudge-problem.ini", dir);
    return data || (lstat(p, &st) == 0 && S_ISREG(st.st_mode));
}

struct icpc {
    char title[512];
    char validation[64];     /* default | custom | custom interactive */
    char flags[1024];
    size_t flags_line, validation_line;
    double time_multiplier, time_limit, memory_mb, output_mb;
    char version[64];        /* problem_format_version: "" (legacy) or "2023-07-draft", ... */
    bool interactive_type;   /* type: interactive (2023-07) */
    bool scoring;            /* type: scoring: groups become subtasks (icpc_groups.c) */
    bool score_validation;   /* legacy validation: custom score */
    bool multipass;          /* type: multi-pass: the runner's passes */
    bool submit_answer;      /* type: submit-answer: the runner's output-only */
    double passes;           /* limits.validation_passes (default 2) */
    double compile_s, compile_mb;   /* limits.compilation_time, compilation_memory */
    double unused;           /* limits only a derived time limit reads */
    size_t passes_line;
    size_t type_line;
};

/* One word of `type:` (legacy: pass-fail | scoring; 2023-07 also
 * interactive, multi-pass, submit-answer, combined). Only what the
 * runner's model judges the same way is converted; the rest is refused
 * naming the key, never stored as a different (pass/fail batch) problem. */
static void type_word(struct icpc *y, const char *w, size_t line, struct conv_errs *e)
{
    if (!strcmp(w, "pass-fail"))
        return;
    if (!strcmp(w, "interactive")) {
        y->interactive_type = true;
        return;
    }
    if (!strcmp(w, "scoring"))
        y->scoring = true;
    else if (!strcmp(w, "multi-pass"))
        y->multipass = true;
    else if (!strcmp(w, "submit-answer"))
        y->submit_answer = true;
    else
        conv_err(e, "problem.yaml:%zu: type: unknown type '%.100s' (pass-fail, scoring, interactive, multi-pass, "
                   "submit-answer)", line, w);
}

/* type: a string of words or a sequence of them. */
static void read_type(struct ydoc *d, yaml_node_t *v, struct icpc *y, struct conv_errs *e)
{
    y->type_line = (size_t)ydoc_line(v);
    if (v->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
            yaml_node_t *n = ydoc_node(d, *i);
            if (n && n->type == YAML_SCALAR_NODE)
                type_word(y, (const char *)n->data.scalar.value, (size_t)ydoc_line(n), e);
            else
                conv_err(e, "problem.yaml:%zu: type: expected a list of words", y->type_line);
        }
        return;
    }
    if (v->type != YAML_SCALAR_NODE) {
        conv_err(e, "problem.yaml:%zu: type: expected a word or a list of words", y->type_line);
        return;
    }
    char copy[256], *save = NULL;
    snprintf(copy, sizeof copy, "%s", (const char *)v->data.scalar.value);
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        type_word(y, t, y->type_line, e);
}

/* validation: default | custom [interactive] [score] (legacy); 'score':
 * the validator's score.txt scores a scoring problem's tests. */
static void read_validation(const char *s, size_t line, struct icpc *y, struct conv_errs *e)
{
    char copy[128], *save = NULL;
    snprintf(copy, sizeof copy, "%s", s ? s : "");
    char *first = strtok_r(copy, " \t", &save);
    bool custom = first && !strcmp(first, "custom"), interactive = false, ok = first && (custom || !strcmp(first, "default"));
    for (char *t = strtok_r(NULL, " \t", &save); ok && t; t = strtok_r(NULL, " \t", &save)) {
        if (custom && !strcmp(t, "interactive"))
            interactive = true;
        else if (custom && !strcmp(t, "score"))
            y->score_validation = true;
        else
            ok = false;
    }
    if (!ok) {
        conv_err(e, "problem.yaml:%zu: validation: expected default, custom, 'custom interactive' or 'custom score'",
                line);
        return;
    }
    snprintf(y->validation, sizeof y->validation, "%s", !custom ? "default" : interactive ? "custom interactive"
                                                                                         : "custom");
}

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
    if (end == s || *end || v < 0)
        return false;
    *out = v;
    return true;
}

/* The ICPC files' words: "FILE:LINE: (yaml): why" for a syntax error; an
 * empty file sets nothing (problem.yaml is optional in the legacy format). */
static const struct ydoc_how icpc_words = {.syntax_key = "(yaml)", .empty_ok = true};

/* What the reader recorded (a syntax error, keys given twice, aliases past
 * its budget) joins the conversion's errors. */
static void add_reader_errors(struct conv_errs *e, struct common_errors *found)
{
    for (size_t i = 0; i < found->count; i++)
        conv_line(e, found->items[i]);
    common_errors_free(found);
}

/* name: a string, or a map of languages (the first is taken). */
static void read_name(struct ydoc *d, yaml_node_t *v, struct icpc *y)
{
    const char *s = scalar(v);
    bool languages = v->type == YAML_MAPPING_NODE && v->data.mapping.pairs.start < v->data.mapping.pairs.top;
    if (languages)
        s = scalar(ydoc_node(d, v->data.mapping.pairs.start->value));
    if (s || languages)
        snprintf(y->title, sizeof y->title, "%s", s ? s : "");
}

/* limits.time_multipliers (2025-09): ac_to_time_limit is the multiplier
 * the assumed time limit uses; time_limit_to_tle only bounds a derived
 * limit from above (problem verify's). */
static void read_time_multipliers(struct ydoc *d, yaml_node_t *v, struct icpc *y, struct conv_errs *e)
{
    if (v->type != YAML_MAPPING_NODE) {
        conv_err(e, "problem.yaml:%d: limits.time_multipliers: expected a mapping", ydoc_line(v));
        return;
    }
    ydoc_mapping(d, v, "time_multipliers");
    YDOC_FOR_PAIRS(d, v, mk, k, mv) {
        double x = 0;
        if (!mv || k->type != YAML_SCALAR_NODE)
            continue;
        if (strcmp(mk, "ac_to_time_limit") && strcmp(mk, "time_limit_to_tle"))
            conv_err(e, "problem.yaml:%d: limits.time_multipliers.%.60s: unknown key (ac_to_time_limit, "
                       "time_limit_to_tle)", ydoc_line(k), mk);
        else if (!number(scalar(mv), &x) || x < 1)
            conv_err(e, "problem.yaml:%d: limits.time_multipliers.%s: expected a number >= 1", ydoc_line(mv), mk);
        else if (!strcmp(mk, "ac_to_time_limit"))
            y->time_multiplier = x;
    }
}

/* One key of limits: a positive number into its field, or why not. */
static double *limit_field(struct icpc *y, const char *k)
{
    return !strcmp(k, "time_multiplier")    ? &y->time_multiplier
         : !strcmp(k, "time_limit")         ? &y->time_limit
         : !strcmp(k, "memory")             ? &y->memory_mb
         : !strcmp(k, "output")             ? &y->output_mb
         : !strcmp(k, "validation_passes")  ? &y->passes
         : !strcmp(k, "compilation_time")   ? &y->compile_s
         : !strcmp(k, "compilation_memory") ? &y->compile_mb
         : !strcmp(k, "time_safety_margin") || !strcmp(k, "time_resolution") ? &y->unused
                                                                              : NULL;
}

/* limits: each key mapped (memory, output, compile limits, passes, the time
 * limit and what derives one) or refused naming it: code and the
 * validator's own limits have no per-problem setting here. */
static void read_limits(struct ydoc *d, yaml_node_t *v, size_t line, struct icpc *y, struct conv_errs *e)
{
    if (v->type != YAML_MAPPING_NODE) {
        conv_err(e, "problem.yaml:%zu: limits: expected a mapping", line);
        return;
    }
    ydoc_mapping(d, v, "limits");   /* records keys given twice */
    YDOC_FOR_PAIRS(d, v, lk, k, lv) {
        if (!lv)
            return;
        if (k->type != YAML_SCALAR_NODE)
            continue;
        double *dst = limit_field(y, lk);
        if (!strcmp(lk, "time_multipliers"))
            read_time_multipliers(d, lv, y, e);
        else if (!strcmp(lk, "code"))
            conv_err(e, "problem.yaml:%d: limits.code: not converted: a submission's size is bounded by the "
                       "judge's configuration, not per problem", ydoc_line(k));
        else if (!strcmp(lk, "validation_time") || !strcmp(lk, "validation_memory") ||
                 !strcmp(lk, "validation_output"))
            conv_err(e, "problem.yaml:%d: limits.%s: not converted: the runner gives every output validator the "
                       "same fixed limits (runner/README.md, Checkers)", ydoc_line(k), lk);
        else if (!dst)
            conv_err(e, "problem.yaml:%d: limits.%.60s: unknown key", ydoc_line(k), lk);
        else if (!number(scalar(lv), dst) || *dst <= 0)
            conv_err(e, "problem.yaml:%d: limits.%s: expected a positive number", ydoc_line(lv), lk);
        else if (dst == &y->passes && (*dst < 2 || *dst > 100 || *dst != (int)*dst))
            conv_err(e, "problem.yaml:%d: limits.validation_passes: expected a whole number 2..100", ydoc_line(lv));
        if (dst == &y->passes)
            y->passes_line = (size_t)ydoc_line(lv);
    }
}

/* Legacy grading: {objective, show_test_data_groups}: a score to minimise
 * is not the runner's (it adds points up, more is better). */
static void read_grading(struct ydoc *d, yaml_node_t *v, size_t line, struct conv_errs *e)
{
    if (v->type != YAML_MAPPING_NODE) {
        conv_err(e, "problem.yaml:%zu: grading: expected a mapping", line);
        return;
    }
    ydoc_mapping(d, v, "grading");
    YDOC_FOR_PAIRS(d, v, gk, k, gv) {
        (void)k;
        const char *s = scalar(gv);
        if (!strcmp(gk, "objective") && (!s || strcmp(s, "max")))
            conv_err(e, "problem.yaml:%d: grading.objective: '%.40s' is not converted: the runner's score is "
                       "one to maximise", gv ? ydoc_line(gv) : (int)line, s ? s : "?");
    }
}

/* One key of problem.yaml; every other key of the format (author, source,
 * license, ...) does not change judging. */
static void read_icpc_key(struct ydoc *d, const char *ks, yaml_node_t *v, struct icpc *y, struct conv_errs *e)
{
    size_t line = (size_t)ydoc_line(v);
    if (!strcmp(ks, "name")) {
        read_name(d, v, y);
    } else if (!strcmp(ks, "validation")) {
        read_validation(scalar(v), line, y, e);
        y->validation_line = line;
    } else if (!strcmp(ks, "type")) {
        read_type(d, v, y, e);
    } else if (!strcmp(ks, "problem_format_version")) {
        if (!scalar(v))
            conv_err(e, "problem.yaml:%zu: problem_format_version: expected a string", line);
        else
            snprintf(y->version, sizeof y->version, "%s", scalar(v));
    } else if (!strcmp(ks, "validator_flags")) {
        if (!scalar(v))
            conv_err(e, "problem.yaml:%zu: validator_flags: expected a string of flags", line);
        else
            snprintf(y->flags, sizeof y->flags, "%s", scalar(v));
        y->flags_line = line;
    } else if (!strcmp(ks, "limits")) {
        read_limits(d, v, line, y, e);
    } else if (!strcmp(ks, "grading")) {
        read_grading(d, v, line, e);
    }
}

static void read_icpc_yaml(const char *dir, struct icpc *y, struct conv_errs *e)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/problem.yaml", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;   /* problem.yaml is optional in the legacy format */
    struct common_errors found = {0};
    struct ydoc d;
    yaml_node_t *root = ydoc_read(&d, f, "problem.yaml", &icpc_words, &found) ? NULL : ydoc_root(&d);
    if (root && root->type == YAML_MAPPING_NODE) {
        ydoc_mapping(&d, root, "(top level)");   /* records keys given twice */
        YDOC_FOR_PAIRS(&d, root, ks, k, v) {
            if (!v)
                break;
            if (k->type == YAML_SCALAR_NODE)
                read_icpc_key(&d, ks, v, y, e);
        }
    } else if (root) {
        conv_err(e, "problem.yaml:1: (top level): expected a mapping");
    }
    ydoc_free(&d);
    fclose(f);
    add_reader_errors(e, &found);
}

/* The default validator's flags -> the runner's built-in checker and its
 * options, as a flow mapping; where ("problem.yaml:3: validator_flags")
 * begins each error. */
static void compare_yaml(const char *flags, const char *where, FILE *out, struct conv_errs *e)
{
    bool cs = false, ss = false, fl = false;
    double abs_tol = -1, rel_tol = -1;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", flags);
    char *save = NULL;
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        double *dst = NULL, both = -1;
        if (!strcmp(t, "case_sensitive"))
            cs = true;
        else if (!strcmp(t, "space_change_sensitive"))
            ss = true;
        else if (!strcmp(t, "float_absolute_tolerance"))
            dst = &abs_tol;
        else if (!strcmp(t, "float_relative_tolerance"))
            dst = &rel_tol;
        else if (!strcmp(t, "float_tolerance"))
            dst = &both;
        else {
            conv_err(e, "%s: unknown flag '%.60s'", where, t);
            continue;
        }
        if (dst) {
            char *v = strtok_r(NULL, " \t", &save);
            if (!number(v, dst)) {
                conv_err(e, "%s: %s needs a number", where, t);
                continue;
            }
            fl = true;
            if (dst == &both)
                abs_tol = rel_tol = both;
        }
    }
    fprintf(out, "{type: %s, case_sensitive: %s, space_change_sensitive: %s", fl ? "float" : "tokens",
            cs ? "true" : "false", ss ? "true" : "false");
    if (abs_tol >= 0)
        fprintf(out, ", absolute_tolerance: %.17g", abs_tol);
    if (rel_tol >= 0)
        fprintf(out, ", relative_tolerance: %.17g", rel_tol);
    fprintf(out, "}");
}

/* validator_flags -> the problem's checker. */
static void checker_yaml(const char *flags, size_t line, FILE *out, struct conv_errs *e)
{
    char where[64];
    snprintf(where, sizeof where, "problem.yaml:%zu: validator_flags", line);
    fprintf(out, "checker: ");
    compare_yaml(flags, where, out, e);
    fprintf(out, "\n");
}

/* flags split on blanks: "[a, b]" */
static void args_list(const char *flags, FILE *out)
{
    char copy[2100];
    snprintf(copy, sizeof copy, "%s", flags);
    char *save = NULL;
    int n = 0;
    fprintf(out, "[");
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        fprintf(out, "%s", n++ ? ", " : "");
        conv_yaml_string(out, t);
    }
    fprintf(out, "]");
}

/* Groups whose output validator arguments are not the problem's: the keys
 * their tests add (", args: [...]" for a custom validator, ", checker:
 * {...}" for the default one), one per directory of tests. */
struct test_calls {
    struct icpc_group_args *g;
    char **suffix;
    size_t n;
};

static void test_calls_make(struct test_calls *c, bool custom, const char *problem_flags, bool legacy,
                            struct conv_errs *e)
{
    c->suffix = calloc(c->n ? c->n : 1, sizeof *c->suffix);
    for (size_t i = 0; c->suffix && i < c->n; i++) {
        char flags[2100], where[420];
        size_t len = 0;
        FILE *m = open_memstream(&c->suffix[i], &len);
        if (!m)
            continue;
        /* the problem's validator_flags, then the group's (as Kattis calls it) */
        snprintf(flags, sizeof flags, "%s%s%s", problem_flags, problem_flags[0] ? " " : "", c->g[i].args);
        snprintf(where, sizeof where, "%s: %s", c->g[i].origin,
                 legacy ? "output_validator_flags" : "output_validator_args");
        fprintf(m, custom ? ", args: " : ", checker: ");
        if (custom) {
            args_list(flags, m);
        } else {
            /* the group's own flags checked alone: errors of the problem's
             * are said once, at problem.yaml */
            struct conv_errs quiet = {0};
            char *discard = NULL;
            size_t dlen = 0;
            FILE *d = open_memstream(&discard, &dlen);
            if (d) {
                compare_yaml(c->g[i].args, where, d, e);
                fclose(d);
            }
            free(discard);
            compare_yaml(flags, where, m, &quiet);
            free(quiet.buf);
        }
        fclose(m);
    }
}

static void test_calls_free(struct test_calls *c)
{
    for (size_t i = 0; c->suffix && i < c->n; i++)
        free(c->suffix[i]);
    free(c->suffix);
    free(c->g);
}

static const char *test_call(const struct test_calls *c, const char *rel)
{
    for (size_t i = 0; c && c->suffix && i < c->n; i++)
        if (!strcmp(c->g[i].rel, rel))
            return c->suffix[i] ? c->suffix[i] : "";
    return "";
}

/* testdata.yaml of data/ and its groups (legacy, 2023-07) or test_group.yaml (later
 * drafts) of a pass-fail problem: it judges every test alike (stop_on_failure:
 * all), so grading or scores are refused naming file, line and key, never
 * dropped; output validator arguments are read by icpc_group_validator_args
 * (a group's own become its tests' own: struct test_calls), what only the package's input
 * validators or its visualizers read changes nothing. */
static void check_group_yaml(const char *dir, const char *rel, struct conv_errs *e)
{
    static const char *harmless[] = {"input_validator_flags", "input_validator_args", "full_feedback",
                                     "output_validator_flags", "output_validator_args", "hint", "description",
                                     "input_visualizer_args", "output_visualizer_args", NULL};
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    struct common_errors found = {0};
    struct ydoc d;
    yaml_node_t *root = ydoc_read(&d, f, rel, &icpc_words, &found) ? NULL : ydoc_root(&d);
    if (root && root->type == YAML_MAPPING_NODE) {
        ydoc_mapping(&d, root, "(top level)");   /* records keys given twice */
        YDOC_FOR_PAIRS(&d, root, ks, k, v) {
            (void)v;   /* the keys alone are judged */
            bool ok = false;
            for (int i = 0; k->type == YAML_SCALAR_NODE && harmless[i]; i++)
                ok = ok || !strcmp(ks, harmless[i]);
            if (!ok)
                conv_err(e, "%s:%d: %.60s: not converted: a pass-fail problem judges every group alike (grading "
                           "and scores need type: scoring)", rel, ydoc_line(k), ks);
        }
    } else if (root && !(root->type == YAML_SCALAR_NODE && !root->data.scalar.length)) {
        conv_err(e, "%s:1: (top level): expected a mapping", rel);
    }
    ydoc_free(&d);
    fclose(f);
    add_reader_errors(e, &found);
}

/* The tests of data/GROUP (any depth, sorted): "- {name, input, output}".
 * Recursive, with the depth of every package tree bounded where it came
 * in (store_unpack, store_copy_tree); refused here too past that depth. */
static int list_tests(const char *dir, const char *rel, bool scoring, const struct test_calls *calls, FILE *out,
                      struct conv_errs *e)
{
    if (store_path_depth(rel) > STORE_MAX_DEPTH) {
        conv_err(e, "%.200s...:0: data: more than %d directory levels deep", rel, STORE_MAX_DEPTH);
        return 0;
    }
    char path[4400];
    size_t n;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    char **names = conv_sorted_names(path, &n);
    int count = 0;
    for (size_t i = 0; i < n; i++) {
        char sub[4400], full[8900];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        struct stat st;
        size_t len = strlen(names[i]);
        if (!stat(full, &st) && S_ISDIR(st.st_mode)) {
            count += list_tests(dir, sub, scoring, calls, out, e);
        } else if (!strcmp(names[i], "testdata.yaml") || !strcmp(names[i], "test_group.yaml")) {
            if (!scoring)   /* a scoring problem's are read by icpc_subtasks */
                check_group_yaml(dir, sub, e);
        } else if (len > 3 && !strcmp(names[i] + len - 3, ".in")) {
            char ans[4400], tname[4400];
            snprintf(ans, sizeof ans, "%s/%.*s.ans", dir, (int)(strlen(sub) - 3), sub);
            if (stat(ans, &st)) {
                conv_err(e, "%s:0: data: no matching .ans", sub);
                continue;
            }
            icpc_test_name(sub, tname, sizeof tname);
            fprintf(out, "  - {name: \"%s\", input: \"%s\", output: \"%.*s.ans\"%s}\n", tname, sub,
                    (int)(strlen(sub) - 3), sub, test_call(calls, rel));
            count++;
        }
    }
    conv_free_names(names, n);
    return count;
}

static int stat_dir(const char *dir, const char *rel, struct stat *st)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return stat(p, st) || !S_ISDIR(st->st_mode) ? -1 : 0;
}

/* DOMjudge's domjudge-problem.ini: "key = value" lines, values optionally
 * quoted. What changes judging is read (timelimit, name); what only
 * DOMjudge's contest uses (ids, colour, points, flags) changes nothing;
 * special_run and special_compare name programs kept in DOMjudge's own
 * database, not in the package, and are refused unless the package holds
 * the validator itself. */
struct ini {
    double timelimit;
    char name[512];
    size_t special_compare_line;
};

static void ini_value(char *v)
{
    size_t n = strlen(v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
        v[--n] = 0;
    if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
        memmove(v, v + 1, n - 2);
        v[n - 2] = 0;
    }
}

static void ini_line(char *line, size_t no, struct ini *ini, struct conv_errs *e)
{
    char *eq = strchr(line, '=');
    char *k = line + strspn(line, " \t");
    if (!*k || *k == ';' || *k == '#' || *k == '\r')
        return;
    if (!eq) {
        conv_err(e, "domjudge-problem.ini:%zu: (ini): expected key = value", no);
        return;
    }
    *eq = 0;
    char *v = eq + 1 + strspn(eq + 1, " \t");
    ini_value(k);
    ini_value(v);
    if (!strcmp(k, "timelimit")) {
        if (!number(v, &ini->timelimit) || ini->timelimit <= 0)
            conv_err(e, "domjudge-problem.ini:%zu: timelimit: expected a positive number of seconds", no);
    } else if (!strcmp(k, "name")) {
        if (!common_utf8_valid(v))
            conv_err(e, "domjudge-problem.ini:%zu: name: not UTF-8 text (save the file as UTF-8)", no);
        snprintf(ini->name, sizeof ini->name, "%s", v);
    } else if (!strcmp(k, "special_compare")) {
        if (*v)
            ini->special_compare_line = no;
    } else if (!strcmp(k, "special_run")) {
        if (*v)
            conv_err(e, "domjudge-problem.ini:%zu: special_run: '%.100s' is a run script of DOMjudge's own database, "
                       "not in the package: not converted", no, v);
    } else if (strcmp(k, "probid") && strcmp(k, "externalid") && strcmp(k, "short-name") && strcmp(k, "color") &&
               strcmp(k, "points") && strcmp(k, "allow_submit") && strcmp(k, "allow_judge")) {
        conv_err(e, "domjudge-problem.ini:%zu: %.60s: unknown key", no, k);
    }
}

static void read_ini(const char *dir, struct ini *ini, struct conv_errs *e)
{
    char p[4400], line[1024];
    snprintf(p, sizeof p, "%s/domjudge-problem.ini", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return;
    for (size_t no = 1; fgets(line, sizeof line, f); no++) {
        line[strcspn(line, "\n")] = 0;
        ini_line(line, no, ini, e);
    }
    fclose(f);
}

static double read_timelimit(const char *dir)
{
    char p[4400], buf[64] = "";
    snprintf(p, sizeof p, "%s/.timelimit", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    double v = strtod(buf, NULL);
    return v > 0 ? v : -1;
}

/* The .interaction files under data/REL (sorted, any depth): transcripts
 * for the statement (the format's samples of interactive and multi-pass
 * problems, with or without an .in and .ans), listed as the runner's
 * `samples:`, kept and never judged. */
static void list_interactions(const char *dir, const char *rel, size_t *count, FILE *out)
{
    char path[4400];
    size_t n;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    if (store_path_depth(rel) > STORE_MAX_DEPTH)
        return;
    char **names = conv_sorted_names(path, &n);
    for (size_t i = 0; i < n; i++) {
        char sub[4400], full[8900];
        struct stat st;
        size_t len = strlen(names[i]);
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        if (stat(full, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            list_interactions(dir, sub, count, out);
        } else if (len > 12 && !strcmp(names[i] + len - 12, ".interaction")) {
            fprintf(out, "%s  - ", (*count)++ ? "" : "samples:\n");
            conv_yaml_string(out, sub);
            fprintf(out, "\n");
        }
    }
    conv_free_names(names, n);
}

/* A custom output validator keeps the Kattis protocol: the runner's checker
 * (or interactor) with protocol kattis, validator_flags passed to it as its
 * arguments after IN ANS FEEDBACK_DIR, as Kattis and DOMjudge call it. */
static void validator_yaml(const char *key, const char *source, const char *flags, bool scores, FILE *out)
{
    fprintf(out, "%s: {%ssource: ", key, strcmp(key, "checker") ? "" : "type: custom, ");
    conv_yaml_string(out, source);
    fprintf(out, ", protocol: kattis, args: ");
    args_list(flags, out);
    fprintf(out, "%s}\n", scores ? ", scores: true" : "");
}

/* The time limit, DOMjudge's own first (.timelimit, then the ini's key, as
 * DOMjudge imports it), then problem.yaml's; with none, what is assumed is
 * said (Kattis derives it from the accepted submissions, which a push does
 * not run). */
static double icpc_time_limit(const char *dir, const struct icpc *y, const struct ini *ini, struct conv_errs *e)
{
    double tl = read_timelimit(dir);
    const char *from = ".timelimit:1: time limit";
    if (tl < 0)
        conv_err(e, ".timelimit:1: time limit: expected a positive number of seconds");
    if (ini->timelimit > 0)
        tl = ini->timelimit, from = "domjudge-problem.ini:0: timelimit";
    if (tl <= 0 && y->time_limit > 0)
        tl = y->time_limit, from = "problem.yaml:0: limits.time_limit";
    if (tl <= 0 && y->time_multiplier * 1.0 > COMMON_MAX_TIME_LIMIT)
        tl = y->time_multiplier * 1.0, from = "problem.yaml:0: limits.time_multiplier";
    if (tl > COMMON_MAX_TIME_LIMIT) {
        conv_err(e, "%s: %g s is over the largest time limit a problem may have (%g s)", from, tl,
                 COMMON_MAX_TIME_LIMIT);
        return tl;
    }
    if (tl <= 0) {
        tl = (y->time_multiplier > 0 ? y->time_multiplier : 5) * 1.0;
        conv_warn(e, "problem.yaml:0: time_limit: warning: the package gives no time limit (no .timelimit, "
                    "domjudge-problem.ini timelimit or limits.time_limit); assumed %.3g s (time_multiplier %g x 1 s)",
                 tl, y->time_multiplier > 0 ? y->time_multiplier : 5);
    }
    return tl;
}

/* The files below include/LANG/REL, recursively, into list (package
 * paths, sorted per directory); false when there is a subdirectory. */
static bool include_walk(const char *dir, const char *rel, FILE *list, size_t *written, int depth,
                         struct conv_errs *e)
{
    char path[4400];
    size_t n;
    bool flat = true;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    char **names = conv_sorted_names(path, &n);
    for (size_t i = 0; i < n; i++) {
        char file[4400], sub[600];
        struct stat st;
        snprintf(sub, sizeof sub, "%.300s/%.200s", rel, names[i]);
        snprintf(file, sizeof file, "%s/%s", dir, sub);
        if (!stat(file, &st) && S_ISDIR(st.st_mode) && depth < 8) {
            flat = false;
            include_walk(dir, sub, list, written, depth + 1, e);
        } else if (stat(file, &st) || !S_ISREG(st.st_mode)) {
            conv_err(e, "%s:0: include: not a regular file or a directory: include/LANG/ holds the files added "
                        "to a submission", sub);
        } else {
            fprintf(list, "%s", (*written)++ ? ", " : "");
            conv_yaml_string(list, sub);
        }
    }
    conv_free_names(names, n);
    return flat;
}

/* The files of include/LANG/ (ICPC: added to every submission in LANG when
 * it is compiled) as a "  LANG: [files]" line, or with subdirectories (a
 * Java package directory) "  LANG: {base: include/LANG, files: [...]}", so
 * that they keep their paths; LANG is the format's language code, which
 * for the languages both know is this project's id. */
static void include_lang(const char *dir, const char *lang, FILE *out, struct conv_errs *e)
{
    char rel[300], *files = NULL;
    size_t len = 0, written = 0;
    snprintf(rel, sizeof rel, "include/%.100s", lang);
    FILE *list = open_memstream(&files, &len);
    if (!list) {
        conv_err(e, "%s:0: include: out of memory", rel);
        return;
    }
    bool flat = include_walk(dir, rel, list, &written, 0, e);
    fclose(list);
    fprintf(out, "  ");
    conv_yaml_string(out, lang);
    if (flat) {
        fprintf(out, ": [%s]\n", files ? files : "");
    } else {
        fprintf(out, ": {base: ");
        conv_yaml_string(out, rel);
        fprintf(out, ", files: [%s]}\n", files ? files : "");
    }
    free(files);
}

static void include_yaml(const char *dir, FILE *out, struct conv_errs *e)
{
    char path[4400];
    size_t n;
    struct stat st;
    snprintf(path, sizeof path, "%s/include", dir);
    if (stat(path, &st))
        return;
    char **names = conv_sorted_names(path, &n);
    if (!S_ISDIR(st.st_mode) || !n)
        conv_err(e, "include:0: include: expected a directory of include/LANG/ directories");
    for (size_t i = 0, langs = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/include/%s", dir, names[i]);
        if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
            conv_err(e, "include/%.200s:0: include: expected a directory include/LANG/ (a language code)", names[i]);
            continue;
        }
        fprintf(out, "%s", langs++ ? "" : "include:\n");
        include_lang(dir, names[i], out, e);
    }
    conv_free_names(names, n);
}

/* The converted problem.yaml's body into out; the number of tests. A
 * scoring problem's groups become subtasks, judged as the runner judges
 * subtasks (a failing one stops, the others go on); a pass/fail problem
 * stops at its first failure, as ICPC judges. */
static int write_converted(FILE *out, const char *dir, const char *name, const struct icpc *y, double tl,
                           bool interactive, bool custom, const char *validator, bool modern,
                           const struct test_calls *calls, struct conv_errs *e)
{
    fprintf(out, "# converted from the ICPC/Kattis package format on push; the original is problem.icpc.yaml\n");
    fprintf(out, "name: ");
    conv_yaml_string(out, name);
    fprintf(out, "\n");
    if (y->title[0]) {
        fprintf(out, "title: ");
        conv_yaml_string(out, y->title);
        fprintf(out, "\n");
    }
    /* submit-answer: the answers named after the tests ({name}.out, the
     * runner's default), judged by the same validator */
    fprintf(out, "type: %s\ntime_limit: %.3fs\nmemory_limit: %.0fM\n",
            y->submit_answer ? "output-only" : interactive ? "interactive" : "batch", tl,
            y->memory_mb > 0 ? y->memory_mb : 2048);
    /* the format's default output limit (8 MiB), and its tools' way past
     * it: the stream is cut and the program runs on (TLE beats OLE) */
    fprintf(out, "output_limit: %.0fM\non_output_limit: truncate\n",
            y->output_mb > 0 ? y->output_mb : ICPC_DEFAULT_OUTPUT_MB);
    if (y->compile_s > 0 || y->compile_mb > 0) {   /* the runner raises the language's, never lowers them */
        fprintf(out, "compile_limits: {");
        if (y->compile_s > 0)
            fprintf(out, "time: %.3fs%s", y->compile_s, y->compile_mb > 0 ? ", " : "");
        if (y->compile_mb > 0)
            fprintf(out, "memory: %.0fM", y->compile_mb);
        fprintf(out, "}\n");
    }
    if (custom && validator[0])
        validator_yaml(interactive ? "interactor" : "checker", validator, y->flags,
                       y->scoring && (modern || y->score_validation), out);
    else if (!custom)
        checker_yaml(y->flags, y->flags_line ? y->flags_line : 1, out, e);
    include_yaml(dir, out, e);
    if (y->multipass)   /* the validator's nextpass.in: the next run's input */
        fprintf(out, "passes: %d\n", y->passes >= 2 ? (int)y->passes : 2);
    fprintf(out, "stop_on_failure: %s\ntests:\n", y->scoring ? "subtask" : "all");
    if (!y->scoring) {
        check_group_yaml(dir, "data/testdata.yaml", e);   /* the whole data/ group's */
        check_group_yaml(dir, "data/test_group.yaml", e);
    }
    int n = list_tests(dir, "data/sample", y->scoring, calls, out, e);
    n += list_tests(dir, "data/secret", y->scoring, calls, out, e);
    if (y->scoring && n)
        icpc_subtasks(dir, !modern, out, e);
    size_t transcripts = 0;
    list_interactions(dir, "data", &transcripts, out);
    return n;
}

int icpc_convert(const char *dir, const char *name, char **errors)
{
    struct conv_errs e = {0};
    struct icpc y = {.time_multiplier = 0};
    snprintf(y.validation, sizeof y.validation, "default");
    read_icpc_yaml(dir, &y, &e);
    struct ini ini = {0};
    read_ini(dir, &ini, &e);
    if (!y.title[0] && ini.name[0])
        snprintf(y.title, sizeof y.title, "%s", ini.name);
    double tl = icpc_time_limit(dir, &y, &ini, &e);
    /* the groups' output validator arguments follow validator_flags: the
     * first group's are the problem's, other groups' their tests' own */
    char group_args[1024], problem_flags[1024];
    bool modern_args = y.version[0] && strcmp(y.version, "legacy");
    struct test_calls calls = {0};
    snprintf(problem_flags, sizeof problem_flags, "%s", y.flags);
    if (!icpc_group_validator_args(dir, !modern_args, group_args, sizeof group_args, &calls.g, &calls.n, &e) &&
        group_args[0]) {
        size_t used = strlen(y.flags);
        snprintf(y.flags + used, sizeof y.flags - used, "%s%s", used ? " " : "", group_args);
        y.flags_line = y.flags_line ? y.flags_line : 1;
    }
    char validator[700] = "", folder[64];
    struct stat st;
    /* 2023-07 and later: output_validator/ (one program); there is no
     * validation: key, the folder's presence makes the validation custom */
    snprintf(folder, sizeof folder, "%s", !stat_dir(dir, "output_validator", &st) ? "output_validator"
                                                                                 : "output_validators");
    bool modern = y.version[0] && strcmp(y.version, "legacy");
    if (y.score_validation && !y.scoring)
        conv_err(&e, "problem.yaml:%zu: validation: 'score' is only for type: scoring (the validator's score.txt "
                    "scores a test)", y.validation_line);
    bool interactive = !strcmp(y.validation, "custom interactive") || y.interactive_type;
    if (y.submit_answer && (interactive || y.multipass))
        conv_err(&e, "problem.yaml:%zu: type: submit-answer with %s: the format forbids the pair (the answers are "
                    "files, nothing runs)", y.type_line, interactive ? "interactive" : "multi-pass");
    if (y.passes > 0 && !y.multipass)
        conv_err(&e, "problem.yaml:%zu: limits.validation_passes: only for type: multi-pass", y.passes_line);
    bool custom = interactive || y.multipass || !strcmp(y.validation, "custom") ||
                  (modern && !strcmp(folder, "output_validator"));
    if (ini.special_compare_line && !custom)
        conv_err(&e, "domjudge-problem.ini:%zu: special_compare: names a compare program of DOMjudge's own database, "
                    "not in the package: give it as output_validators/ with validation: custom",
                ini.special_compare_line);
    test_calls_make(&calls, custom, problem_flags, !modern_args, &e);
    if (custom)
        icpc_find_validator(dir, folder, y.interactive_type || y.multipass ? "type" : "validation",
                       y.interactive_type || y.multipass ? y.type_line : y.validation_line ? y.validation_line : 1,
                       validator, sizeof validator, &e);
    char out_path[4400], tmp[4400], orig[4400];
    snprintf(out_path, sizeof out_path, "%s/problem.yaml", dir);
    snprintf(orig, sizeof orig, "%s/problem.icpc.yaml", dir);
    snprintf(tmp, sizeof tmp, "%s/.problem.yaml.new", dir);
    FILE *out = fopen(tmp, "w");
    if (!out) {
        conv_err(&e, "problem.yaml:0: (package): cannot write: %s", strerror(errno));
        test_calls_free(&calls);
        *errors = e.buf;
        return e.n;
    }
    int n = write_converted(out, dir, name, &y, tl, interactive, custom, validator, modern, &calls, &e);
    test_calls_free(&calls);
    fclose(out);
    if (n == 0)
        conv_err(&e, "data/secret:0: data: no tests (*.in with *.ans in data/sample or data/secret)");
    if (e.n == 0 && !stat(out_path, &st) && rename(out_path, orig))
        conv_err(&e, "problem.yaml:0: (package): %s", strerror(errno));
    if (e.n == 0 && rename(tmp, out_path))
        conv_err(&e, "problem.yaml:0: (package): %s", strerror(errno));
    unlink(tmp);
    *errors = e.buf;
    return e.n;
}
