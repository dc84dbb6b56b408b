/*
 * verify.c - what a problem package says its own submissions must earn,
 * and the time limit it leaves to the judge. One reader for every format
 * that ships submissions (ICPC legacy and 2023-07+, DOMjudge, and the
 * Polygon converter, which writes its expectations as submissions.yaml),
 * so `problem verify` (judgectl, judge-api) judges them all alike:
 *
 *  - submissions/<folder>/<program>: the folder's default rule (the
 *    2025-09 spec's table: accepted, rejected, wrong_answer,
 *    time_limit_exceeded, run_time_error, brute_force; the legacy names
 *    are among them, and legacy/2023-07 partially_accepted: the final
 *    verdict AC and the score below the most the problem gives);
 *  - submissions/submissions.yaml: glob keys ("accepted", "wrong_answer/slow.c",
 *    "{a,b}.c") matched against the program's path below submissions/ or
 *    a parent folder, each a map of permitted/required verdicts (AC, WA,
 *    TLE, RTE), score, message, language, use_for_time_limit; a key that
 *    is exactly a default folder's name replaces that folder's rule, keys
 *    it leaves out inherited; under a submission's key, a test group glob
 *    ("sample", "secret/group1", "secret/g*" as globs) holds permitted, required
 *    and message for the tests it covers (a test matches when it or a group
 *    above it does), checked against those tests' verdicts by the runner's
 *    test names;
 *  - DOMjudge's "@EXPECTED_RESULTS@: CORRECT,TIMELIMIT" inside a source:
 *    the final verdict must be one of the list (DOMjudge's own check).
 *
 * Reading knows files only; judging is the caller's (it needs the runner).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "common.h"
#include "convert.h"
#include "fileset.h"
#include "keys.h"
#include "store.h"
#include "yaml_doc.h"

/* A pattern's {a,b} groups multiply the patterns fnmatch is given: at
 * most GLOB_MAX_GROUPS groups of GLOB_MAX_ALTERNATIVES each, expanding to
 * at most GLOB_MAX_EXPANSION patterns (a real key has one or two small
 * groups). MATCH_BUDGET bounds all the fnmatch calls of one reading (keys
 * x programs x their folders, group keys x tests): a real package makes
 * thousands; MATCH_POLL how often the caller's stop() is asked. */
#define GLOB_MAX_GROUPS 8
#define GLOB_MAX_ALTERNATIVES 32
#define GLOB_MAX_EXPANSION 256
#define GLOB_MAX_LEN 1023
#define MATCH_BUDGET 10000000ul
#define MATCH_POLL 4096ul

#define V_ALL (STORE_V_AC | STORE_V_WA | STORE_V_TLE | STORE_V_RTE | STORE_V_OLE)
#define V_RTE (STORE_V_RTE | STORE_V_OLE)   /* ICPC's RTE: any crash, output limit included */
#define MAX_PROGRAMS 1000

#define PARTIAL_FOLDER "partially_accepted"

/* The 2025-09 spec's default folders ("Default directories"); `required`
 * all verdicts where the spec gives none. */
static const struct folder_rule {
    const char *name;
    unsigned permitted, required;
} folders[] = {
    {"accepted", STORE_V_AC, V_ALL},
    {"rejected", V_ALL, STORE_V_WA | STORE_V_TLE | V_RTE},
    {"wrong_answer", STORE_V_AC | STORE_V_WA, STORE_V_WA},
    {"time_limit_exceeded", STORE_V_AC | STORE_V_TLE, STORE_V_TLE},
    {"run_time_error", STORE_V_AC | V_RTE, V_RTE},
    {"brute_force", STORE_V_AC | V_RTE | STORE_V_TLE, V_RTE | STORE_V_TLE},
    /* legacy and 2023-07: the verdict AC, the score not the most (x->partial) */
    {PARTIAL_FOLDER, V_ALL, V_ALL},
};

/* DOMjudge's result names (@EXPECTED_RESULTS@). */
static const struct {
    const char *name;
    unsigned bit;
} domjudge_results[] = {
    {"CORRECT", STORE_V_AC},          {"WRONG-ANSWER", STORE_V_WA}, {"TIMELIMIT", STORE_V_TLE},
    {"RUN-ERROR", STORE_V_RTE},       {"COMPILER-ERROR", STORE_V_CE}, {"NO-OUTPUT", STORE_V_WA},
    {"OUTPUT-LIMIT", STORE_V_OLE},    {"MEMORY-LIMIT", STORE_V_RTE},
};

#define DOMJUDGE_MARK "@EXPECTED_RESULTS@:"
#define SUBMISSIONS_YAML "submissions/submissions.yaml"

unsigned store_verdict_bit(const char *v)
{
    static const struct {
        const char *name;
        unsigned bit;
    } map[] = {
        {"AC", STORE_V_AC},   {"WA", STORE_V_WA},   {"PE", STORE_V_WA},   {"TLE", STORE_V_TLE},
        {"RE", STORE_V_RTE},  {"MLE", STORE_V_RTE}, {"SV", STORE_V_RTE},  {"OLE", STORE_V_OLE},
        {"CE", STORE_V_CE},   {"IE", STORE_V_IE},
    };
    for (size_t i = 0; v && i < sizeof map / sizeof *map; i++)
        if (!strcmp(v, map[i].name))
            return map[i].bit;
    return 0;   /* SKIPPED: a test not run says nothing */
}

/* "AC, TLE" for a table; ICPC's names, DOMjudge's with domjudge. */
static void bits_text(unsigned bits, bool domjudge, char *out, size_t len)
{
    static const char *icpc[] = {"AC", "WA", "TLE", "RTE", "CE", "OLE", "IE"};
    static const char *dj[] = {"CORRECT", "WRONG-ANSWER", "TIMELIMIT", "RUN-ERROR", "COMPILER-ERROR",
                               "OUTPUT-LIMIT", "IE"};
    size_t at = 0;
    out[0] = 0;
    if (!domjudge && (bits & V_RTE) == V_RTE)
        bits &= ~(unsigned)STORE_V_OLE;   /* ICPC's RTE holds it */
    for (int i = 0; i < 7; i++)
        if (bits & (1u << i) && at < len)
            at += (size_t)snprintf(out + at, len - at, "%s%s", at ? "," : "", domjudge ? dj[i] : icpc[i]);
}

static const struct folder_rule *folder_default(const char *folder)
{
    for (size_t i = 0; i < sizeof folders / sizeof *folders; i++)
        if (!strcmp(folders[i].name, folder))
            return &folders[i];
    return NULL;
}

/* ---------------------------------------------------- DOMjudge comments */

/* The @EXPECTED_RESULTS@ list of a source, if it has one: 1 found, 0 not,
 * -1 an error (reported). Only the first 256 KiB are read: the comment
 * sits at a source's top. */
static int domjudge_expected(const char *dir, const char *rel, unsigned *bits, struct conv_errs *e)
{
    char path[4400], buf[1 << 18];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *m = memmem(buf, n, DOMJUDGE_MARK, strlen(DOMJUDGE_MARK));
    if (!m)
        return 0;
    size_t line = 1;
    for (const char *c = buf; c < m; c++)
        line += *c == '\n';
    char list[512];
    const char *s = m + strlen(DOMJUDGE_MARK);
    size_t l = strcspn(s, "\r\n");
    snprintf(list, sizeof list, "%.*s", (int)(l < sizeof list ? l : sizeof list - 1), s);
    *bits = 0;
    char *save = NULL;
    for (char *t = strtok_r(list, ", \t*/", &save); t; t = strtok_r(NULL, ", \t*/", &save)) {
        unsigned bit = 0;
        for (size_t i = 0; i < sizeof domjudge_results / sizeof *domjudge_results; i++)
            if (!strcasecmp(t, domjudge_results[i].name))
                bit = domjudge_results[i].bit;
        if (!bit) {
            char q[COMMON_QUOTE_CAP];
            conv_err(e, "%s:%zu: @EXPECTED_RESULTS@: unknown result '%s' (CORRECT, WRONG-ANSWER, TIMELIMIT, "
                        "RUN-ERROR, COMPILER-ERROR, NO-OUTPUT, OUTPUT-LIMIT)", rel, line, YQ(q, t));
            return -1;
        }
        *bits |= bit;
    }
    if (!*bits) {
        conv_err(e, "%s:%zu: @EXPECTED_RESULTS@: no result listed", rel, line);
        return -1;
    }
    return 1;
}

/* ----------------------------------------------------- submissions.yaml */

/* A key as the fnmatch patterns its {a,b} groups expand to. */
struct glob {
    char **pats;
    size_t n;
};

/* The matching of one reading: counted against MATCH_BUDGET, stopped when
 * the caller's stop() says so; once either happens (said once, naming the
 * key being matched) nothing matches any more. */
struct matching {
    unsigned long done;
    bool (*stop)(void *);
    void *arg;
    bool over;
    struct conv_errs *e;
};

/* A test group glob under a submission's key and what it asks of the
 * tests it covers. */
struct yaml_group {
    char glob[256];
    struct glob pats;
    int line;
    struct store_expect_rule rule;
    char message[256];
};

/* One key of submissions.yaml and what it asks. */
struct yaml_rule {
    char *glob;
    struct glob pats;
    size_t line;
    struct store_expect_rule rule;
    bool has_permitted, has_required, has_score, has_time_use;
    double score_lo, score_hi;
    int time_use;
    char language[64];
    char message[256];
    struct yaml_group *groups;
    size_t ngroups;
};

/* The package's tests (every .in with its .ans below data/, any depth): the path the spec's
 * test globs match (below data/, no .in) and the runner's name. */
struct pkg_tests {
    char **path, **name;
    size_t n;
};

struct yaml_rules {
    struct yaml_rule *items;
    size_t n;
};

/* ------------------------------------------------------------ patterns */

static void glob_free(struct glob *g)
{
    for (size_t i = 0; i < g->n; i++)
        free(g->pats[i]);
    free(g->pats);
    *g = (struct glob){0};
}

static int glob_add(struct glob *g, char *pat)
{
    char **grown = pat ? realloc(g->pats, (g->n + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(pat);
        return -1;
    }
    g->pats = grown;
    g->pats[g->n++] = pat;
    return 0;
}

/* key's patterns, the spec's brace expansion ("{a,b}.py"; '*' stays
 * within a name): the first '{', the first '}' after it, each alternative
 * put in its place, and the same again on each result (nested braces
 * expand left to right). Each step removes a '{', so a key of at most
 * GLOB_MAX_GROUPS of them is expanded in as many steps, and the leaves are
 * counted as they come: the work is bounded before it is done. -1 with
 * why. */
static int glob_compile(const char *key, struct glob *out, char *why, size_t whylen)
{
    size_t groups = 0;
    for (const char *c = key; *c; c++)
        groups += *c == '{';
    *out = (struct glob){0};
    if (groups > GLOB_MAX_GROUPS) {
        snprintf(why, whylen, "%zu {...} groups in one pattern, at most %d (their alternatives multiply what a "
                              "pattern matches against)", groups, GLOB_MAX_GROUPS);
        return -1;
    }
    struct glob todo = {0};
    int rc = glob_add(&todo, strdup(key));
    while (rc == 0 && todo.n) {
        char *s = todo.pats[--todo.n];
        const char *open = strchr(s, '{'), *close = open ? strchr(open, '}') : NULL;
        if (!close && out->n == GLOB_MAX_EXPANSION) {
            snprintf(why, whylen, "its {...} groups expand to more than %d patterns", GLOB_MAX_EXPANSION);
            free(s);
            rc = -1;
        }
        if (!close) {
            rc = rc ? rc : glob_add(out, s);
            continue;
        }
        size_t alternatives = 1;
        for (const char *c = open; c < close; c++)
            alternatives += *c == ',';
        if (alternatives > GLOB_MAX_ALTERNATIVES) {
            snprintf(why, whylen, "%zu alternatives in one {...} group, at most %d", alternatives,
                     GLOB_MAX_ALTERNATIVES);
            rc = -1;
        }
        for (const char *alt = open + 1; rc == 0 && alt <= close;) {
            size_t l = strcspn(alt, ",}");
            char *one = NULL;
            if (asprintf(&one, "%.*s%.*s%s", (int)(open - s), s, (int)l, alt, close + 1) < 0)
                one = NULL;
            if (one && strlen(one) > GLOB_MAX_LEN)
                snprintf(why, whylen, "it expands to a pattern longer than %d bytes", GLOB_MAX_LEN);
            rc = one && strlen(one) > GLOB_MAX_LEN ? (free(one), -1) : glob_add(&todo, one);
            alt += l + 1;
        }
        free(s);
    }
    if (rc && !why[0])
        snprintf(why, whylen, "out of memory");
    glob_free(&todo);
    if (rc)
        glob_free(out);
    return rc;
}

/* One key compiled, or an error naming the file, its line and the key. */
static void compile_key(const char *key, int line, struct glob *g, struct conv_errs *e)
{
    char why[200] = "";
    if (glob_compile(key, g, why, sizeof why) == 0)
        return;
    char q[COMMON_QUOTE_CAP];
    conv_err(e, "%s:%d: %s: %s", SUBMISSIONS_YAML, line, YQ(q, key), why);
}

/* [AC, WA, TLE, RTE] -> bits; -1 on a bad entry (reported). */
static int verdict_list(struct ydoc *d, yaml_node_t *v, const char *key, unsigned *out, struct conv_errs *e)
{
    char **words = NULL;
    int rc = 0;
    *out = 0;
    if (ydoc_strings(d, v, key, &words))
        return -1;
    for (char **w = words; *w; w++) {
        unsigned bit = !strcmp(*w, "AC") ? STORE_V_AC : !strcmp(*w, "WA") ? STORE_V_WA
                     : !strcmp(*w, "TLE") ? STORE_V_TLE : !strcmp(*w, "RTE") ? V_RTE : 0;
        if (!bit) {
            char q[COMMON_QUOTE_CAP];
            conv_err(e, "%s:%d: %s: unknown verdict '%s' (AC, WA, TLE, RTE)", SUBMISSIONS_YAML, ydoc_line(v), key,
                     YQ(q, *w));
            rc = -1;
        }
        *out |= bit;
    }
    for (char **w = words; *w; w++)
        free(*w);
    free(words);
    return rc;
}

/* score: a number or [low, high] */
static void read_score(struct ydoc *d, yaml_node_t *v, struct yaml_rule *r)
{
    if (v->type == YAML_SEQUENCE_NODE && v->data.sequence.items.top - v->data.sequence.items.start == 2) {
        if (!ydoc_number(d, ydoc_node(d, v->data.sequence.items.start[0]), "score", &r->score_lo) &&
            !ydoc_number(d, ydoc_node(d, v->data.sequence.items.start[1]), "score", &r->score_hi))
            r->has_score = true;
    } else if (!ydoc_number(d, v, "score", &r->score_lo)) {
        r->score_hi = r->score_lo;
        r->has_score = true;
    }
}

static void read_time_use(yaml_node_t *v, struct yaml_rule *r, struct conv_errs *e)
{
    const char *s = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : "";
    r->has_time_use = true;
    r->time_use = !strcmp(s, "lower") ? STORE_TIME_LOWER : !strcmp(s, "upper") ? STORE_TIME_UPPER
                : !strcmp(s, "false") ? STORE_TIME_NONE : -1;
    if (!strcmp(s, "true"))
        r->has_time_use = false;   /* the default: by its verdicts */
    else if (r->time_use < 0)
        conv_err(e, "%s:%d: use_for_time_limit: expected true, false, lower or upper", SUBMISSIONS_YAML,
                 ydoc_line(v));
}

#define ENTRY_KEYS "permitted, required, score, message, language, use_for_time_limit, authors, model_solution, " \
                   "entrypoint"

/* A test group key's map (the spec's "Test data groups"): permitted,
 * required and message narrowed to its tests. A group's score and a
 * group's part in the time limit are not what verify checks: refused by
 * name rather than ignored. */
static void read_group(struct ydoc *d, yaml_node_t *kn, const char *k, yaml_node_t *map, struct yaml_rule *r,
                       struct conv_errs *e)
{
    if (map->type != YAML_MAPPING_NODE) {
        conv_err(e, "%s:%d: %.100s: unknown key (" ENTRY_KEYS "); as a test group's rule, expected a map (permitted, "
                    "required, message)", SUBMISSIONS_YAML, ydoc_line(kn), k);
        return;
    }
    struct yaml_group *grown = realloc(r->groups, (r->ngroups + 1) * sizeof *grown);
    if (!grown)
        return;
    r->groups = grown;
    struct yaml_group *g = &r->groups[r->ngroups++];
    *g = (struct yaml_group){.line = ydoc_line(kn), .rule = {V_ALL, V_ALL}};
    snprintf(g->glob, sizeof g->glob, "%s", k);
    compile_key(k, g->line, &g->pats, e);
    ydoc_mapping(d, map, k);
    YDOC_FOR_PAIRS(d, map, gk, gkn, v) {
        if (!v)
            return;
        const char *sv = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL;
        if (!strcmp(gk, "permitted"))
            verdict_list(d, v, gk, &g->rule.permitted, e);
        else if (!strcmp(gk, "required"))
            verdict_list(d, v, gk, &g->rule.required, e);
        else if (!strcmp(gk, "message") && sv)
            snprintf(g->message, sizeof g->message, "%s", sv);
        else if (!strcmp(gk, "use_for_time_limit") && sv && !strcmp(sv, "false"))
            continue;   /* what a group's rule is here anyway: no bound of the time limit */
        else if (!strcmp(gk, "use_for_time_limit"))
            conv_err(e, "%s:%d: use_for_time_limit: under a test group only false is taken: a group's rule does not "
                        "bound the derived time limit here (a submission's own rule does)", SUBMISSIONS_YAML,
                     ydoc_line(gkn));
        else if (!strcmp(gk, "score"))
            conv_err(e, "%s:%d: score: a test group's score is not checked (the runner scores its subtasks, not the "
                        "package's groups): give the submission's score instead", SUBMISSIONS_YAML, ydoc_line(gkn));
        else
            conv_err(e, "%s:%d: %.100s: unknown key of a test group's rule (permitted, required, message, "
                        "use_for_time_limit)", SUBMISSIONS_YAML, ydoc_line(gkn), gk);
    }
}

/* One entry's map; a key that is none of the entry's is a test group
 * glob (read_group), checked against the package's tests later. */
static void read_entry(struct ydoc *d, yaml_node_t *map, struct yaml_rule *r, struct conv_errs *e)
{
    if (map->type != YAML_MAPPING_NODE) {
        conv_err(e, "%s:%zu: %.100s: expected a map (permitted, required, ...)", SUBMISSIONS_YAML, r->line, r->glob);
        return;
    }
    ydoc_mapping(d, map, r->glob);
    YDOC_FOR_PAIRS(d, map, k, kn, v) {
        (void)kn;
        if (!v)
            return;
        if (!strcmp(k, "permitted"))
            r->has_permitted = verdict_list(d, v, k, &r->rule.permitted, e) == 0;
        else if (!strcmp(k, "required"))
            r->has_required = verdict_list(d, v, k, &r->rule.required, e) == 0;
        else if (!strcmp(k, "score"))
            read_score(d, v, r);
        else if (!strcmp(k, "use_for_time_limit"))
            read_time_use(v, r, e);
        else if (!strcmp(k, "language") && v->type == YAML_SCALAR_NODE)
            snprintf(r->language, sizeof r->language, "%s", (const char *)v->data.scalar.value);
        else if (!strcmp(k, "message") && v->type == YAML_SCALAR_NODE)
            snprintf(r->message, sizeof r->message, "%s", (const char *)v->data.scalar.value);
        else if (!strcmp(k, "authors") || !strcmp(k, "model_solution") || !strcmp(k, "entrypoint"))
            continue;   /* credits, and Java/Kotlin's main class: the runner's language file names it */
        else if (!strcmp(k, "language") || !strcmp(k, "message"))
            conv_err(e, "%s:%d: %s: expected a string", SUBMISSIONS_YAML, ydoc_line(v), k);
        else
            read_group(d, kn, k, v, r, e);
    }
}

static void read_submissions_yaml(const char *dir, struct yaml_rules *out, struct conv_errs *e)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, SUBMISSIONS_YAML);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    static const struct ydoc_how how = {.syntax_key = "(yaml)", .empty_ok = true};
    struct common_errors found = {0};
    struct ydoc d;
    yaml_node_t *root = ydoc_read(&d, f, SUBMISSIONS_YAML, &how, &found) ? NULL : ydoc_root(&d);
    if (root && root->type == YAML_MAPPING_NODE) {
        ydoc_mapping(&d, root, "(top level)");
        YDOC_FOR_PAIRS(&d, root, k, kn, v) {
            if (!v || out->n >= MAX_PROGRAMS)
                break;
            struct yaml_rule *grown = realloc(out->items, (out->n + 1) * sizeof *grown);
            if (!grown)
                break;
            out->items = grown;
            struct yaml_rule *r = &out->items[out->n++];
            *r = (struct yaml_rule){.glob = strdup(k), .line = (size_t)ydoc_line(kn),
                                    .rule = {V_ALL, V_ALL}};
            compile_key(k, ydoc_line(kn), &r->pats, e);
            read_entry(&d, v, r, e);
        }
    } else if (root) {
        conv_err(e, "%s:1: (top level): expected a map of submission globs", SUBMISSIONS_YAML);
    }
    ydoc_free(&d);
    fclose(f);
    for (size_t i = 0; i < found.count; i++)
        conv_line(e, found.items[i]);
    common_errors_free(&found);
}

/* Whether one of g's patterns matches path, counted against the budget
 * and stoppable (the key and its line name what was being matched when
 * it ran out). */
static bool glob_match(const struct glob *g, const char *key, int line, const char *path, struct matching *m)
{
    for (size_t i = 0; i < g->n && !m->over; i++) {
        m->done++;
        bool stopped = m->done % MATCH_POLL == 0 && m->stop && m->stop(m->arg);
        if (stopped || m->done > MATCH_BUDGET) {
            char q[COMMON_QUOTE_CAP];
            m->over = true;
            conv_err(m->e, "%s:%d: %s: %s", SUBMISSIONS_YAML, line, YQ(q, key), stopped
                     ? "stopped while matching the patterns: the request was given up"
                     : "matching the patterns against the package's programs and tests took more than 10000000 "
                       "comparisons: use fewer or simpler patterns ({a,b} groups multiply them)");
            break;
        }
        if (fnmatch(g->pats[i], path, FNM_PATHNAME) == 0)
            return true;
    }
    return false;
}

/* Whether key applies to the program at rel (below submissions/): the
 * program itself or a folder above it matches. */
static bool rule_applies(const struct glob *g, const char *key, int line, const char *rel, struct matching *m)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", rel);
    for (char *slash;;) {
        if (glob_match(g, key, line, path, m))
            return true;
        if (m->over || !(slash = strrchr(path, '/')))
            return false;
        *slash = 0;
    }
}

/* ---------------------------------------------------- the package's tests */

static void add_pkg_test(struct pkg_tests *t, const char *rel_in)
{
    char name[600];
    char **p = realloc(t->path, (t->n + 1) * sizeof *p), **n = p ? realloc(t->name, (t->n + 1) * sizeof *n) : NULL;
    if (p)
        t->path = p;
    if (!n)
        return;
    t->name = n;
    icpc_test_name(rel_in, name, sizeof name);
    t->path[t->n] = strndup(rel_in + 5, strlen(rel_in) - 8);   /* data/X.in -> X */
    t->name[t->n++] = strdup(name);
}

/* data/REL's tests, any depth (bounded as the converters bound it) */
static void walk_tests(const char *dir, const char *rel, struct pkg_tests *t)
{
    char path[4400];
    size_t n;
    if (store_path_depth(rel) > STORE_MAX_DEPTH)
        return;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    char **names = conv_sorted_names(path, &n);
    for (size_t i = 0; i < n; i++) {
        char sub[1100], full[5600];
        struct stat st;
        size_t l = strlen(names[i]);
        snprintf(sub, sizeof sub, "%.500s/%.500s", rel, names[i]);
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        if (stat(full, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            walk_tests(dir, sub, t);
        } else if (l > 3 && !strcmp(names[i] + l - 3, ".in")) {
            snprintf(full, sizeof full, "%s/%.*s.ans", dir, (int)(strlen(sub) - 3), sub);
            if (!stat(full, &st))
                add_pkg_test(t, sub);
        }
    }
    conv_free_names(names, n);
}

static void pkg_tests_free(struct pkg_tests *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->path[i]), free(t->name[i]);
    free(t->path);
    free(t->name);
}

/* Every test group glob names some test of the package: a glob that
 * matches none (a typo, a key that is none of an entry's) is an error
 * rather than a rule that always holds. */
static void check_group_globs(const struct yaml_rules *y, const struct pkg_tests *t, struct matching *m,
                              struct conv_errs *e)
{
    for (size_t i = 0; i < y->n && !m->over; i++)
        for (size_t g = 0; g < y->items[i].ngroups && !m->over; g++) {
            const struct yaml_group *yg = &y->items[i].groups[g];
            size_t k = 0;
            if (!yg->pats.n)
                continue;   /* refused as it was read */
            while (k < t->n && !rule_applies(&yg->pats, yg->glob, yg->line, t->path[k], m))
                k++;
            if (k == t->n && !m->over)
                conv_err(e, "%s:%d: %.100s: unknown key (" ENTRY_KEYS "), nor a test group or test case of data/ "
                            "(sample, secret/GROUP, globs with * and {a,b})", SUBMISSIONS_YAML, yg->line, yg->glob);
        }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A group rule of x: yg with the names of the tests it covers, sorted. */
static void add_group(struct store_expected *x, const struct yaml_group *yg, const struct pkg_tests *t,
                      struct matching *m)
{
    struct store_group_expect *grown = realloc(x->groups, (x->ngroups + 1) * sizeof *grown);
    if (!grown)
        return;
    x->groups = grown;
    struct store_group_expect *g = &x->groups[x->ngroups++];
    *g = (struct store_group_expect){.rule = yg->rule};
    snprintf(g->group, sizeof g->group, "%s", yg->glob);
    snprintf(g->message, sizeof g->message, "%s", yg->message);
    g->tests = calloc(t->n ? t->n : 1, sizeof *g->tests);
    for (size_t k = 0; g->tests && k < t->n; k++)
        if (rule_applies(&yg->pats, yg->glob, yg->line, t->path[k], m))
            g->tests[g->ntests++] = strdup(t->name[k]);
    if (g->tests)
        qsort(g->tests, g->ntests, sizeof *g->tests, by_name);
}

/* ------------------------------------------------------------ programs */

/* Which bound of the time limit a program gives (the spec's "Timelimit
 * inference"): not permitted TLE, a lower bound; required exactly TLE,
 * an upper one; else none (brute_force, rejected). */
static int time_use_of(const struct store_expected *x)
{
    if (x->final)
        return !(x->final & STORE_V_TLE) ? STORE_TIME_LOWER : x->final == STORE_V_TLE ? STORE_TIME_UPPER
                                                                                      : STORE_TIME_NONE;
    unsigned permitted = V_ALL;
    bool upper = false;
    for (size_t i = 0; i < x->nrules; i++) {
        permitted &= x->rules[i].permitted;
        upper = upper || x->rules[i].required == STORE_V_TLE;
    }
    return !(permitted & STORE_V_TLE) ? STORE_TIME_LOWER : upper ? STORE_TIME_UPPER : STORE_TIME_NONE;
}

static void add_rule(struct store_expected *x, struct store_expect_rule r)
{
    if (x->nrules < sizeof x->rules / sizeof *x->rules)
        x->rules[x->nrules++] = r;
}

/* The languages problemtools (Kattis' tool for the ICPC format) gives an
 * ending that the languages here give another: its languages.yaml has
 * `prolog: files: '*.pl'` and no Perl, whereas `.pl` is Perl's here (as on
 * DOMjudge, whose Prolog is `.plg`). A package's submissions are judged in
 * the language its own tool would pick. */
static const struct {
    const char *ending, *language;
} problemtools_languages[] = {{".pl", "prolog"}};

/* Into x->language (when no rule named one): the language problemtools
 * picks for submissions/<rel> of an ICPC package (converted: it keeps the
 * original problem.icpc.yaml) that is not DOMjudge's (domjudge-problem.ini,
 * or @EXPECTED_RESULTS@ in the file: dj). */
static void problemtools_language(const char *dir, const char *rel, int dj, struct store_expected *x)
{
    const char *dot = strrchr(rel, '.');
    char path[4400];
    snprintf(path, sizeof path, "%s/problem.icpc.yaml", dir);
    if (x->language[0] || x->program_dir || dj > 0 || !dot || access(path, F_OK))
        return;
    snprintf(path, sizeof path, "%s/domjudge-problem.ini", dir);
    if (access(path, F_OK) == 0)
        return;
    for (size_t i = 0; i < sizeof problemtools_languages / sizeof *problemtools_languages; i++)
        if (!strcmp(dot, problemtools_languages[i].ending))
            snprintf(x->language, sizeof x->language, "%s", problemtools_languages[i].language);
}

/* The expectation of submissions/<rel>; false (reported) when it has none. */
static bool expect_program(const char *dir, const char *folder, const char *rel, const struct yaml_rules *y,
                           const struct pkg_tests *tests, struct matching *m, struct store_expected *x,
                           struct conv_errs *e)
{
    const struct folder_rule *def = folder_default(folder);
    char sub[1100];
    snprintf(sub, sizeof sub, "submissions/%s", rel);
    snprintf(x->path, sizeof x->path, "%s", sub);
    x->time_use = -1;
    struct store_expect_rule base = def ? (struct store_expect_rule){def->permitted, def->required}
                                        : (struct store_expect_rule){0, 0};
    bool has_base = def != NULL;
    for (size_t i = 0; i < y->n; i++) {
        const struct yaml_rule *r = &y->items[i];
        if (!rule_applies(&r->pats, r->glob, (int)r->line, rel, m))
            continue;
        if (def && !strcmp(r->glob, folder)) {   /* the folder's default, replaced key by key */
            base.permitted = r->has_permitted ? r->rule.permitted : base.permitted;
            base.required = r->has_required ? r->rule.required : base.required;
        } else {
            add_rule(x, r->rule);
        }
        if (r->has_score) {
            x->has_score = true;
            x->score_lo = r->score_lo;
            x->score_hi = r->score_hi;
        }
        if (r->has_time_use)
            x->time_use = r->time_use;
        if (r->language[0])
            snprintf(x->language, sizeof x->language, "%s", r->language);
        if (r->message[0])
            snprintf(x->message, sizeof x->message, "%s", r->message);
        for (size_t g = 0; g < r->ngroups; g++)
            add_group(x, &r->groups[g], tests, m);
    }
    if (has_base)
        add_rule(x, base);
    struct stat st;
    char full[4400];
    snprintf(full, sizeof full, "%s/%s", dir, sub);
    x->program_dir = stat(full, &st) == 0 && S_ISDIR(st.st_mode);
    x->partial = !strcmp(folder, PARTIAL_FOLDER);
    int dj = x->program_dir ? 0 : domjudge_expected(dir, sub, &x->final, e);
    if (dj < 0) {
        store_expected_release(x);
        return false;
    }
    if (dj > 0)
        x->nrules = 0;   /* DOMjudge's own check: the final verdict */
    problemtools_language(dir, rel, dj, x);
    if (!x->final && !x->nrules && !x->ngroups) {
        conv_err(e, "submissions/%s:0: (folder): '%.100s' is not a verdict folder (accepted, rejected, wrong_answer, "
                    "time_limit_exceeded, run_time_error, brute_force, partially_accepted) and no rule of %s or @EXPECTED_RESULTS@ "
                    "says what %s must earn", folder, folder, SUBMISSIONS_YAML, rel);
        return false;
    }
    if (x->time_use < 0)
        x->time_use = time_use_of(x);
    store_expected_text(x, x->expected, sizeof x->expected);
    return true;
}

int store_expected_results(const char *dir, struct store_expected **out, size_t *count, char **errors)
{
    return store_expected_results_until(dir, NULL, NULL, out, count, errors);
}

int store_expected_results_until(const char *dir, bool (*stop)(void *), void *arg, struct store_expected **out,
                                 size_t *count, char **errors)
{
    struct conv_errs e = {0};
    struct matching m = {.stop = stop, .arg = arg, .e = &e};
    struct yaml_rules y = {0};
    struct pkg_tests tests = {0};
    char path[4400];
    *out = NULL;
    *count = 0;
    read_submissions_yaml(dir, &y, &e);
    bool groups = false;
    for (size_t i = 0; i < y.n; i++)
        groups = groups || y.items[i].ngroups;
    if (groups) {
        walk_tests(dir, "data", &tests);
        check_group_globs(&y, &tests, &m, &e);
    }
    snprintf(path, sizeof path, "%s/submissions", dir);
    size_t nf;
    char **folders_found = conv_sorted_names(path, &nf);
    for (size_t i = 0; i < nf; i++) {
        char fpath[8800];
        struct stat st;
        snprintf(fpath, sizeof fpath, "%s/%s", path, folders_found[i]);
        if (stat(fpath, &st) || !S_ISDIR(st.st_mode))
            continue;   /* submissions.yaml, a README */
        size_t np;
        char **programs = conv_sorted_names(fpath, &np);
        for (size_t j = 0; j < np && *count < MAX_PROGRAMS && !m.over; j++) {
            char rel[1024];
            snprintf(rel, sizeof rel, "%.400s/%.400s", folders_found[i], programs[j]);
            struct store_expected x = {0};
            if (!expect_program(dir, folders_found[i], rel, &y, &tests, &m, &x, &e))
                continue;
            struct store_expected *grown = realloc(*out, (*count + 1) * sizeof *grown);
            if (!grown) {
                store_expected_release(&x);
                break;
            }
            *out = grown;
            (*out)[(*count)++] = x;
        }
        conv_free_names(programs, np);
    }
    conv_free_names(folders_found, nf);
    for (size_t i = 0; i < y.n; i++) {
        for (size_t g = 0; g < y.items[i].ngroups; g++)
            glob_free(&y.items[i].groups[g].pats);
        glob_free(&y.items[i].pats);
        free(y.items[i].glob), free(y.items[i].groups);
    }
    free(y.items);
    pkg_tests_free(&tests);
    *errors = e.buf;
    return e.n;
}

/* permitted, then required when narrower: "AC,WA (one WA)" */
static void rule_text(const struct store_expect_rule *r, char *out, size_t len)
{
    char a[128], b[128];
    bits_text(r->permitted, false, a, sizeof a);
    bits_text(r->required, false, b, sizeof b);
    if ((r->required & r->permitted) == r->permitted)
        snprintf(out, len, "%s", a);
    else
        snprintf(out, len, "%s (one %s)", a, b);
}

void store_expected_text(const struct store_expected *x, char *out, size_t len)
{
    char a[300];
    out[0] = 0;
    if (x->final) {
        bits_text(x->final, true, a, sizeof a);
        snprintf(out, len, "%s", a);
    } else if (x->partial) {
        snprintf(out, len, "AC, score below the most%s", x->nrules > 1 ? " +" : "");
    } else if (x->nrules) {
        /* one rule shown as the folder names it */
        rule_text(&x->rules[x->nrules - 1], a, sizeof a);
        snprintf(out, len, "%s%s", a, x->nrules > 1 ? " +" : "");
    }
    for (size_t i = 0; i < x->ngroups; i++) {   /* then each group's: "; secret/g2: AC,TLE (one TLE)" */
        size_t at = strlen(out);
        rule_text(&x->groups[i].rule, a, sizeof a);
        snprintf(out + at, len - at, "%s%.60s: %s", at ? "; " : "", x->groups[i].group, a);
    }
}

static bool holds_name(const struct store_group_expect *g, const char *name)
{
    return name && bsearch(&name, g->tests, g->ntests, sizeof *g->tests, by_name);
}

/* A group rule against the verdicts of the tests it covers (those run;
 * with none run, the submission's CE or IE). */
static bool group_met(const struct store_group_expect *g, const struct store_verify_seen *s, char *why, size_t len)
{
    char a[128];
    unsigned bits = 0;
    bool message = !g->message[0];
    bool none_ran = s->overall == STORE_V_CE || s->overall == STORE_V_IE;
    if (none_ran)
        bits = s->overall;
    for (size_t i = 0; !none_ran && i < s->ntests; i++)
        if (s->per_test[i].bit && holds_name(g, s->per_test[i].name)) {
            bits |= s->per_test[i].bit;
            message = message || (s->per_test[i].message && strstr(s->per_test[i].message, g->message));
        }
    if (!bits) {
        snprintf(why, len, "%.60s: none of its %zu tests ran (judging stops at the first failure)", g->group,
                 g->ntests);
        return false;
    }
    unsigned bad = bits & ~g->rule.permitted;
    if (bad) {
        bits_text(bad, false, a, sizeof a);
        snprintf(why, len, "%.60s: %s not permitted", g->group, a);
        return false;
    }
    if (!(bits & g->rule.required)) {
        bits_text(g->rule.required, false, a, sizeof a);
        snprintf(why, len, "%.60s: no test got %s", g->group, a);
        return false;
    }
    if (!message) {
        snprintf(why, len, "%.60s: no judge message of its tests holds '%.60s'", g->group, g->message);
        return false;
    }
    return true;
}

bool store_expected_met(const struct store_expected *x, const struct store_verify_seen *s, char *why, size_t len)
{
    char a[128];
    why[0] = 0;
    if (x->final) {
        if (!(x->final & s->overall)) {
            bits_text(s->overall, true, a, sizeof a);
            snprintf(why, len, "final verdict %s", a);
            return false;
        }
    } else {
        for (size_t i = 0; i < x->nrules; i++) {
            unsigned bad = s->tests & ~x->rules[i].permitted;
            if (bad) {
                bits_text(bad, false, a, sizeof a);
                snprintf(why, len, "%s not permitted", a);
                return false;
            }
            if (!(s->tests & x->rules[i].required)) {
                bits_text(x->rules[i].required, false, a, sizeof a);
                snprintf(why, len, "no test got %s", a);
                return false;
            }
        }
    }
    if (x->partial && s->overall != STORE_V_AC) {
        bits_text(s->overall, false, a, sizeof a);
        snprintf(why, len, "final verdict %s, not AC (partially accepted)", a);
        return false;
    }
    if (x->partial && s->score >= s->max_score - 1e-9) {
        snprintf(why, len, "score %g, the most the problem gives (partially accepted scores less)", s->score);
        return false;
    }
    if (x->has_score && (s->score < x->score_lo - 1e-9 || s->score > x->score_hi + 1e-9)) {
        snprintf(why, len, "score %g, expected %g..%g", s->score, x->score_lo, x->score_hi);
        return false;
    }
    if (x->message[0] && !(s->messages && strstr(s->messages, x->message))) {
        snprintf(why, len, "no judge message holds '%.60s'", x->message);
        return false;
    }
    for (size_t i = 0; i < x->ngroups; i++)
        if (!group_met(&x->groups[i], s, why, len))
            return false;
    return true;
}

void store_expected_release(struct store_expected *x)
{
    for (size_t i = 0; i < x->ngroups; i++) {
        for (size_t t = 0; t < x->groups[i].ntests; t++)
            free(x->groups[i].tests[t]);
        free(x->groups[i].tests);
    }
    free(x->groups);
    x->groups = NULL;
    x->ngroups = 0;
}

void store_expected_free(struct store_expected *x, size_t n)
{
    for (size_t i = 0; x && i < n; i++)
        store_expected_release(&x[i]);
    free(x);
}

/* ------------------------------------------------------------ time rule */

static bool positive(const char *s, double *out)
{
    char *end;
    if (!s)
        return false;
    double v = strtod(s, &end);
    if (end == s || *end || !(v > 0) || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* limits: of the ICPC problem.yaml (time_limit, time_multiplier,
 * time_safety_margin; 2023-07+: time_multipliers, time_resolution). */
static void read_limits(struct ydoc *d, yaml_node_t *limits, struct store_time_rule *r, const char *file,
                        struct conv_errs *e)
{
    YDOC_FOR_PAIRS(d, limits, k, kn, v) {
        (void)kn;
        if (!v)
            return;
        if (!strcmp(k, "time_multipliers") && v->type == YAML_MAPPING_NODE) {
            read_limits(d, v, r, file, e);
            continue;
        }
        double *dst = !strcmp(k, "time_limit")            ? &r->time_limit
                    : !strcmp(k, "time_multiplier")       ? &r->ac_factor_legacy
                    : !strcmp(k, "time_safety_margin")    ? &r->tle_factor_legacy
                    : !strcmp(k, "ac_to_time_limit")      ? &r->ac_factor
                    : !strcmp(k, "time_limit_to_tle")     ? &r->tle_factor
                    : !strcmp(k, "time_resolution")       ? &r->resolution : NULL;
        if (dst && !positive(v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL, dst))
            conv_err(e, "%s:%d: limits.%s: expected a positive number", file, ydoc_line(v), k);
    }
}

static void read_rule_yaml(const char *dir, struct store_time_rule *r, struct conv_errs *e)
{
    char path[4400];
    /* a converted package keeps the original as problem.icpc.yaml */
    const char *file = "problem.icpc.yaml";
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f && !store_converted(dir)) {
        file = "problem.yaml";
        snprintf(path, sizeof path, "%s/%s", dir, file);
        f = fopen(path, "r");
    }
    if (!f)
        return;
    static const struct ydoc_how how = {.syntax_key = "(yaml)", .empty_ok = true};
    struct common_errors found = {0};
    struct ydoc d;
    yaml_node_t *root = ydoc_read(&d, f, file, &how, &found) ? NULL : ydoc_root(&d);
    if (root && root->type == YAML_MAPPING_NODE) {
        YDOC_FOR_PAIRS(&d, root, k, kn, v) {
            (void)kn;
            if (!v)
                break;
            if (!strcmp(k, "limits") && v->type == YAML_MAPPING_NODE)
                read_limits(&d, v, r, file, e);
            else if (!strcmp(k, "problem_format_version") && v->type == YAML_SCALAR_NODE)
                r->modern = strncmp((const char *)v->data.scalar.value, "legacy", 6) != 0;
        }
    }
    ydoc_free(&d);
    fclose(f);
    for (size_t i = 0; i < found.count; i++)
        conv_line(e, found.items[i]);
    common_errors_free(&found);
}

/* DOMjudge's limits: .timelimit and domjudge-problem.ini's timelimit. */
static double domjudge_limit(const char *dir)
{
    char path[4400], line[512];
    double v = 0;
    snprintf(path, sizeof path, "%s/.timelimit", dir);
    FILE *f = fopen(path, "r");
    if (f && fgets(line, sizeof line, f))
        v = strtod(line, NULL);
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "%s/domjudge-problem.ini", dir);
    f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        char *k = line + strspn(line, " \t");
        if (!strncmp(k, "timelimit", 9) && strchr(k, '='))
            v = strtod(strchr(k, '=') + 1 + strspn(strchr(k, '=') + 1, " \t\"'"), NULL);
    }
    if (f)
        fclose(f);
    return v > 0 ? v : 0;
}

int store_time_rule(const char *dir, struct store_time_rule *r, char **errors)
{
    struct conv_errs e = {0};
    *r = (struct store_time_rule){0};
    read_rule_yaml(dir, r, &e);
    double dj = domjudge_limit(dir);
    if (dj > 0)
        r->time_limit = dj;
    /* Polygon's converter refuses a testset without its time-limit, and
     * keeps problem.xml; CMS's (cms.c) a task without one, keeping task.yaml
     * or problem.json: such a package never leaves the limit to the judge */
    static const char *const own_limit[] = {"problem.xml", "task.yaml", "problem.json"};
    for (size_t i = 0; i < sizeof own_limit / sizeof *own_limit; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, own_limit[i]);
        r->elsewhere = r->elsewhere || access(path, F_OK) == 0;
    }
    /* the spec's defaults: legacy 5 and 2, 2023-07+ 2.0 and 1.5, resolution 1 s */
    if (r->modern) {
        r->ac_factor = r->ac_factor > 0 ? r->ac_factor : 2.0;
        r->tle_factor = r->tle_factor > 0 ? r->tle_factor : 1.5;
    } else {
        r->ac_factor = r->ac_factor_legacy > 0 ? r->ac_factor_legacy : 5.0;
        r->tle_factor = r->tle_factor_legacy > 0 ? r->tle_factor_legacy : 2.0;
    }
    r->resolution = r->resolution > 0 ? r->resolution : 1.0;
    *errors = e.buf;
    return e.n;
}

void store_time_derive(const struct store_time_rule *r, double slowest, double *limit, double *tle_limit)
{
    double exact = slowest * r->ac_factor;
    if (r->modern) {
        /* the smallest multiple of time_resolution with T_ac x ac_to_time_limit <= limit */
        double k = ceil(exact / r->resolution - 1e-9);
        *limit = (k < 1 ? 1 : k) * r->resolution;
        *tle_limit = *limit * r->tle_factor;
    } else {
        /* problemtools: rounded to whole seconds, at least 1; the margin at least 1 s more */
        *limit = fmax(1, floor(0.5 + exact));
        *tle_limit = fmax(*limit + 1, floor(0.5 + exact * r->tle_factor));
    }
}

int store_set_time_limit(const char *dir, double seconds, char *err, size_t errlen)
{
    char path[4400], tmp[4500];
    snprintf(path, sizeof path, "%s/problem.yaml", dir);
    snprintf(tmp, sizeof tmp, "%s/.problem.yaml.limit", dir);
    size_t len;
    char *text = common_read_file(path, 1u << 22, &len, NULL);
    FILE *out = text ? fopen(tmp, "w") : NULL;
    if (!out) {
        snprintf(err, errlen, "problem.yaml: %s", strerror(errno));
        free(text);
        return -1;
    }
    /* the converters write one top-level "time_limit: N.NNNs" line */
    bool done = false;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        size_t l = next ? (size_t)(++next - line) : strlen(line);
        if (!done && !strncmp(line, "time_limit:", 11)) {
            fprintf(out, "time_limit: %.3fs\n", seconds);
            done = true;
        } else {
            fwrite(line, 1, l, out);
        }
    }
    free(text);
    if (fclose(out) || !done || rename(tmp, path)) {
        snprintf(err, errlen, "problem.yaml: %s", done ? strerror(errno) : "no time_limit line to set");
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* ------------------------------------------- what one judging gave, read */

void store_verify_read_report(const char *report, struct store_verify_outcome *o)
{
    json_t *j = json_loads(report, 0, NULL), *t;
    size_t i, at = 0;
    const char *verdict = json_string_value(json_object_get(j, "verdict"));
    snprintf(o->verdict, sizeof o->verdict, "%s", verdict ? verdict : "?");
    o->seen.overall = store_verdict_bit(o->verdict);
    o->seen.score = json_number_value(json_object_get(j, "score"));
    o->seen.max_score = json_number_value(json_object_get(j, "max_score"));
    json_t *tests = json_object_get(j, "tests");
    o->per_test = calloc(json_array_size(tests) + 1, sizeof *o->per_test);
    json_array_foreach(tests, i, t) {
        const char *v = json_string_value(json_object_get(t, "verdict"));
        unsigned bit = store_verdict_bit(v);
        const char *name = json_string_value(json_object_get(t, "name"));
        const char *m = json_string_value(json_object_get(t, "checker_message"));
        if (o->per_test && name)   /* what a test group's rule reads */
            o->per_test[o->ntests++] = (struct store_test_seen){strdup(name), bit, m && *m ? strdup(m) : NULL};
        if (!bit)
            continue;   /* skipped after the first failure */
        if (!(o->seen.tests & bit) && at < sizeof o->tests)
            at += (size_t)snprintf(o->tests + at, sizeof o->tests - at, "%s%s", at ? "," : "", v);
        o->seen.tests |= bit;
        double cpu = json_number_value(json_object_get(t, "cpu_time"));
        o->max_time = cpu > o->max_time ? cpu : o->max_time;
        char *all = NULL;
        if (m && *m && asprintf(&all, "%s%s\n", o->messages ? o->messages : "", m) >= 0) {
            free(o->messages);
            o->messages = all;
        }
    }
    if (o->seen.overall == STORE_V_CE || o->seen.overall == STORE_V_IE)
        o->seen.tests = o->seen.overall;   /* no test ran: the verdict is all there is */
    if (!o->tests[0])
        snprintf(o->tests, sizeof o->tests, "%s", o->verdict);
    const char *msg = json_string_value(json_object_get(j, "message"));
    if (msg && *msg)
        snprintf(o->note, sizeof o->note, "%.500s", msg);
    json_decref(j);
    o->seen.messages = o->messages;
    o->seen.per_test = o->per_test;
    o->seen.ntests = o->ntests;
    o->judged = true;
}

void store_verify_outcome_free(struct store_verify_outcome *o)
{
    for (size_t i = 0; i < o->ntests; i++)
        free(o->per_test[i].name), free(o->per_test[i].message);
    free(o->per_test);
    free(o->messages);
    o->per_test = NULL, o->messages = NULL, o->ntests = 0;
}

struct json_t *store_verify_row(const struct store_expected *x, const char *lang, const struct store_verify_outcome *o)
{
    char why[256] = "";
    bool ok = o->judged && store_expected_met(x, &o->seen, why, sizeof why);
    return json_pack("{s:s, s:s?, s:s, s:s?, s:s?, s:f, s:f, s:b, s:b, s:s?}", "path", x->path, "language", lang,
                     "expected", x->expected, "verdict", o->judged ? o->verdict : NULL, "tests",
                     o->judged ? o->tests : NULL, "max_time", o->max_time, "score", o->seen.score, "judged",
                     o->judged, "ok", ok, "why", why[0] ? why : o->note[0] ? o->note : NULL);
}

/* ------------------------------- records of a verify over HTTP (judge-api) */

struct json_t *store_expected_json(const struct store_expected *x)
{
    json_t *rules = json_array(), *groups = json_array();
    for (size_t i = 0; i < x->nrules; i++)
        json_array_append_new(rules, json_pack("[i, i]", (int)x->rules[i].permitted, (int)x->rules[i].required));
    for (size_t i = 0; i < x->ngroups; i++) {
        const struct store_group_expect *g = &x->groups[i];
        json_t *tests = json_array();
        for (size_t t = 0; t < g->ntests; t++)
            json_array_append_new(tests, json_string(g->tests[t]));
        json_array_append_new(groups, json_pack("{s:s, s:i, s:i, s:s, s:o}", "group", g->group, "permitted",
                                                (int)g->rule.permitted, "required", (int)g->rule.required,
                                                "message", g->message, "tests", tests));
    }
    return json_pack("{s:s, s:o, s:i, s:b, s:f, s:f, s:s, s:s, s:o, s:b}", "path", x->path, "rules", rules, "final",
                     (int)x->final, "has_score", x->has_score, "score_lo", x->score_lo, "score_hi", x->score_hi,
                     "message", x->message, "expected", x->expected, "groups", groups, "partial", x->partial);
}

/* the group rules of an expectation as JSON (absent: none, as records
 * written before group rules have it) */
static int groups_from_json(json_t *arr, struct store_expected *x)
{
    json_t *o, *t;
    size_t i, k;
    json_array_foreach(arr, i, o) {
        const char *group = json_string_value(json_object_get(o, "group"));
        const char *msg = json_string_value(json_object_get(o, "message"));
        json_t *tests = json_object_get(o, "tests");
        struct store_group_expect *grown = realloc(x->groups, (x->ngroups + 1) * sizeof *grown);
        if (!group || !msg || !json_is_array(tests) || !grown)
            return -1;
        x->groups = grown;
        struct store_group_expect *g = &x->groups[x->ngroups++];
        *g = (struct store_group_expect){.rule = {(unsigned)json_integer_value(json_object_get(o, "permitted")),
                                                  (unsigned)json_integer_value(json_object_get(o, "required"))}};
        snprintf(g->group, sizeof g->group, "%s", group);
        snprintf(g->message, sizeof g->message, "%s", msg);
        g->tests = calloc(json_array_size(tests) + 1, sizeof *g->tests);
        json_array_foreach(tests, k, t)
            if (g->tests && json_is_string(t))
                g->tests[g->ntests++] = strdup(json_string_value(t));
        if (g->tests)   /* kept sorted by the writer; sorted again, cheaply, rather than trusted */
            qsort(g->tests, g->ntests, sizeof *g->tests, by_name);
    }
    return 0;
}

int store_expected_from_json(struct json_t *o, struct store_expected *x)
{
    json_t *rules = json_object_get(o, "rules"), *r;
    size_t i;
    const char *path = json_string_value(json_object_get(o, "path"));
    const char *exp = json_string_value(json_object_get(o, "expected"));
    const char *msg = json_string_value(json_object_get(o, "message"));
    if (!path || !exp || !msg || !json_is_array(rules))
        return -1;
    *x = (struct store_expected){0};
    snprintf(x->path, sizeof x->path, "%s", path);
    snprintf(x->expected, sizeof x->expected, "%s", exp);
    snprintf(x->message, sizeof x->message, "%s", msg);
    json_array_foreach(rules, i, r)
        add_rule(x, (struct store_expect_rule){(unsigned)json_integer_value(json_array_get(r, 0)),
                                               (unsigned)json_integer_value(json_array_get(r, 1))});
    x->final = (unsigned)json_integer_value(json_object_get(o, "final"));
    x->has_score = json_is_true(json_object_get(o, "has_score"));
    x->score_lo = json_number_value(json_object_get(o, "score_lo"));
    x->score_hi = json_number_value(json_object_get(o, "score_hi"));
    x->partial = json_is_true(json_object_get(o, "partial"));
    if (groups_from_json(json_object_get(o, "groups"), x)) {
        store_expected_release(x);
        return -1;
    }
    return 0;
}

int store_verify_save(struct queue_conn *k, const char *id, const char *record, char *err, size_t errlen)
{
    redisReply *r = queue_cmd(k, "SET " KEY_VERIFY "%s %s EX %d", id, record, STORE_UPLOAD_TTL);
    int rc = !r ? STORE_IO : r->type == REDIS_REPLY_ERROR ? STORE_ERR : STORE_OK;
    if (rc)
        snprintf(err, errlen, "%s", r ? r->str : k->err);
    if (r)
        freeReplyObject(r);
    return rc;
}

int store_verify_load(struct queue_conn *k, const char *id, char **record, bool *found, char *err, size_t errlen)
{
    redisReply *r = queue_cmd(k, "GET " KEY_VERIFY "%s", id);
    *record = NULL;
    *found = false;
    if (!r || r->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "%s", r ? r->str : k->err);
        if (r)
            freeReplyObject(r);
        return r ? STORE_ERR : STORE_IO;
    }
    if (r->type == REDIS_REPLY_STRING) {
        *record = strdup(r->str);
        *found = true;
    }
    freeReplyObject(r);
    return STORE_OK;
}

const char *store_source_ending(const char *path)
{
    static const char *cpp_alias[] = {".cc", ".cxx", ".c++", ".C", ".cp", NULL};
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/'))
        return NULL;
    for (int i = 0; cpp_alias[i]; i++)
        if (!strcmp(dot, cpp_alias[i]))
            return ".cpp";
    return dot;
}

/* ------------------------------------------------- a program of several files */

struct program_walk {
    struct fileset fs;
    size_t max, bytes;
    char ending[16];
    char *why;
    size_t whylen;
};

/* an ending a language's source has: not a header's, a text's, none */
static const char *source_ending_of(const char *rel)
{
    static const char *const other[] = {".h", ".hpp", ".hh", ".txt", ".md", NULL};
    const char *base = strrchr(rel, '/');
    const char *e = store_source_ending(base ? base + 1 : rel);
    for (int i = 0; e && other[i]; i++)
        if (!strcmp(e, other[i]))
            return NULL;
    return e;
}

static int program_visit(const struct common_tree_entry *e, void *arg)
{
    struct program_walk *w = arg;
    char q[COMMON_QUOTE_CAP];
    if (e->kind == COMMON_TREE_DIR || e->kind == COMMON_TREE_DIR_DONE)
        return 0;
    common_quote(q, sizeof q, e->rel, strlen(e->rel));
    if (e->kind != COMMON_TREE_FILE)
        return snprintf(w->why, w->whylen, "%s: %s", q, e->kind == COMMON_TREE_LINK ? "a link" : "not a regular "
                        "file"), 1;
    size_t len;
    char *data = common_read_file(e->path, w->max - w->bytes, &len, NULL);
    if (!data)
        return snprintf(w->why, w->whylen, "%s: %s", q, errno == EFBIG ? "the files are too large together"
                        : strerror(errno)), 1;
    w->bytes += len;
    int rc = fileset_add(&w->fs, e->rel, data, len, w->why, w->whylen);
    free(data);
    const char *end = source_ending_of(e->rel);
    if (rc == 0 && end && w->ending[0] && strcmp(end, w->ending))
        return snprintf(w->why, w->whylen, "sources of two languages (%s and %s): name one in submissions.yaml's "
                        "language, or keep one", w->ending, end), 1;
    if (end && !w->ending[0])
        snprintf(w->ending, sizeof w->ending, "%s", end);
    return rc < 0 ? 1 : 0;
}

int store_program_files(const char *pkg, const char *rel, size_t max, char **source, size_t *len, char ending[16],
                        char *why, size_t whylen)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", pkg, rel);
    struct program_walk w = {.max = max, .why = why, .whylen = whylen};
    *source = NULL;
    int rc = common_tree_walk(path, FILESET_MAX_DEPTH + 1, program_visit, &w) ? -1 : 0;
    if (rc == 0 && !w.ending[0])
        rc = -1, snprintf(why, whylen, "no source file in it");
    if (rc == 0 && fileset_pack(&w.fs, source, len, why, whylen) < 0)
        rc = -1;
    if (rc == 0 && *len > max) {
        snprintf(why, whylen, "larger than %zu bytes packed", max);
        free(*source);
        *source = NULL;
        rc = -1;
    }
    fileset_free(&w.fs);
    snprintf(ending, 16, "%s", rc == 0 ? w.ending : "");
    return rc;
}
