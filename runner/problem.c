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
 *
 * The package is untrusted: it is walked first (package.c: no link leaving
 * it, no FIFO or device, the size limits), and every file is then opened
 * beneath its root. Names are looked up in hash sets and a subtask's test
 * list is deduplicated as it is built, so loading is linear in the size of
 * problem.yaml plus the number of tests, whatever the file says. Scalars
 * quoted in messages are bounded and escaped (YQ).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileset.h"
#include "internal.h"
#include "yaml_doc.h"

struct pending {                   /* nodes resolved after the top level */
    yaml_node_t *tests, *subtasks, *checker, *interactor, *grader, *type, *passes, *include, *samples;
    yaml_node_t *manager, *processes, *user_io;   /* communication */
    yaml_node_t *answer_file, *stop;
};

void rn_problem_free(struct rn_problem *p)
{
    if (!p)
        return;
    free(p->input_file);
    free(p->output_file);
    free(p->answer_file);
    for (size_t i = 0; i < p->test_count; i++) {
        free(p->tests[i].name);
        free(p->tests[i].input);
        free(p->tests[i].answer);
        rn_argv_free(p->tests[i].args);
    }
    free(p->tests);
    for (size_t i = 0; i < p->subtask_count; i++) {
        free(p->subtasks[i].name);
        free(p->subtasks[i].tests);
        free(p->subtasks[i].deps);
        free(p->subtasks[i].items);
        free(p->subtasks[i].children);
    }
    free(p->subtasks);
    free(p->dir);
    free(p->name);
    free(p->title);
    struct rn_helper *helpers[] = {&p->checker_prog, &p->interactor};
    for (size_t i = 0; i < 2; i++) {
        free(helpers[i]->source);
        rn_argv_free(helpers[i]->flags);
        rn_argv_free(helpers[i]->args);
    }
    for (size_t i = 0; i < p->grader_count; i++) {
        free(p->graders[i].lang);
        rn_argv_free(p->graders[i].files);
        free(p->graders[i].source);
        free(p->graders[i].base);
    }
    free(p->graders);
    rn_argv_free(p->samples);
    common_strset_free(&p->test_index);
    common_strset_free(&p->subtask_index);
    free(p);      /* p->root belongs to whoever opened it */
}

enum kind { K_FILE, K_MISSING, K_DIR, K_BAD };

/* what rel is beneath the package root; why says it unless K_FILE */
static enum kind file_kind(const struct rn_problem *p, const char *rel, char *why, size_t whylen)
{
    if (rn_pkg_kind(p->root, rel, false, why, whylen) == 0)
        return K_FILE;
    return errno == ENOENT ? K_MISSING : errno == EISDIR ? K_DIR : K_BAD;
}


static bool safe_relative(const char *rel)
{
    return rel[0] != '/' && strncmp(rel, "../", 3) && !strstr(rel, "/../") && strcmp(rel, "..");
}

/* capacity doubles: count is a power of two (or 0) when it is full */
static void *grow_array(void *v, size_t count, size_t size)
{
    if (count & (count - 1))
        return v;
    return realloc(v, (count ? 2 * count : 1) * size);
}

static int add_test(struct rn_problem *p, const char *name, const char *in, const char *out)
{
    if (p->test_count >= p->limits.tests) {
        p->too_many_tests = true;
        return -1;
    }
    struct rn_test *t = grow_array(p->tests, p->test_count, sizeof *t);
    if (!t)
        return -1;
    p->tests = t;
    t[p->test_count++] = (struct rn_test){.name = strdup(name), .input = strdup(in), .answer = strdup(out)};
    return 0;
}

/* ---- checker ----------------------------------------------------------- */

/* key names it in messages ("checker", "tests.checker") */
static int checker_type(struct ydoc *y, yaml_node_t *n, const char *key, enum rn_checker_type *out)
{
    const char *s = ydoc_scalar(y, n, key);
    static const char *const names[] = {"exact", "lines", "tokens", "float", "custom"};
    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i])) {
            *out = (enum rn_checker_type)i;
            return 0;
        }
    char q[COMMON_QUOTE_CAP];
    if (s)
        ydoc_error(y, n, key, "unknown checker '%s' (exact, lines, tokens, float, custom)",
                   YQ(q, s));
    return -1;
}

/* a package file compiled by the runner: any extension (the language whose
 * source has it compiles it; checked when it is built), or a directory:
 * a program of several files or with build/run scripts (program.c) */
static int program_source(struct ydoc *y, yaml_node_t *n, const char *key,
                          const struct rn_problem *p, char **out)
{
    if (ydoc_string(y, n, key, out) < 0)
        return -1;
    const char *s = *out, *dot = strrchr(s, '.');
    char q[COMMON_QUOTE_CAP], why[128];
    YQ(q, s);
    if (!safe_relative(s)) {
        ydoc_error(y, n, key, "'%s' must be a path inside the package", q);
        return -1;
    }
    enum kind k = file_kind(p, s, why, sizeof why);
    if (k == K_DIR)
        return 0;   /* its form and language: when it is built */
    if (!dot || strchr(dot, '/')) {
        ydoc_error(y, n, key, "'%s' needs an extension naming its language (.c, .cpp, .py...), or to be "
                   "a directory (a program: build/run scripts, or sources of one language)", q);
        return -1;
    }
    if (k == K_MISSING)
        ydoc_error(y, n, key, "'%s' does not exist in the package", q);
    else if (k == K_BAD)
        ydoc_error(y, n, key, "'%s': %s", q, why);
    return k == K_FILE ? 0 : -1;
}

static int checker_source(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    return program_source(y, n, "checker.source", p, &p->checker_prog.source);
}

/* how a custom checker or an interactor is called and reports; key names
 * it in messages ("checker.protocol") */
static int parse_protocol(struct ydoc *y, yaml_node_t *n, const char *key, struct rn_helper *h)
{
    const char *s = ydoc_scalar(y, n, key);
    if (s && !strcmp(s, "testlib"))
        return h->protocol = RN_PROTO_TESTLIB, 0;
    if (s && !strcmp(s, "kattis"))
        return h->protocol = RN_PROTO_KATTIS, 0;
    /* CMS's managers of interactive tasks speak over FIFOs, not this
     * relay: only its checkers (comparators) are taken */
    if (s && !strcmp(s, "cms") && !strcmp(key, "checker.protocol"))
        return h->protocol = RN_PROTO_CMS, 0;
    char q[COMMON_QUOTE_CAP];
    if (s)
        ydoc_error(y, n, key, "unknown protocol '%s' (testlib, kattis%s)", YQ(q, s),
                   strcmp(key, "checker.protocol") ? "" : ", cms");
    return -1;
}

static int parse_bool(struct ydoc *y, yaml_node_t *n, const char *key, bool *out)
{
    const char *s = ydoc_scalar(y, n, key);
    if (s && (!strcmp(s, "true") || !strcmp(s, "false"))) {
        *out = !strcmp(s, "true");
        return 0;
    }
    char q[COMMON_QUOTE_CAP];
    if (s)
        ydoc_error(y, n, key, "expected true or false, not '%s'", YQ(q, s));
    return -1;
}

/* the comparison options of the long form; only for the checkers they mean
 * something to */
struct compare_nodes {
    yaml_node_t *eps, *abs, *rel, *case_sens, *space;
};

/* One of them, when key is one: its node's slot in c. */
static yaml_node_t **compare_slot(struct compare_nodes *c, const char *key)
{
    return !strcmp(key, "epsilon") ? &c->eps : !strcmp(key, "absolute_tolerance") ? &c->abs
         : !strcmp(key, "relative_tolerance") ? &c->rel : !strcmp(key, "case_sensitive") ? &c->case_sens
         : !strcmp(key, "space_change_sensitive") ? &c->space : NULL;
}

/* at names the checker in messages ("checker", "tests.checker"); type is
 * the checker the options are for, cmp where they go */
static int parse_compare(struct ydoc *y, const struct compare_nodes *c, const char *at,
                         enum rn_checker_type type, struct rn_compare *cmp)
{
    int rc = 0;
    bool floats = type == RN_CHECK_FLOAT, builtin = type != RN_CHECK_CUSTOM;
    yaml_node_t *tol[] = {c->eps, c->abs, c->rel};
    const char *tol_name[] = {"epsilon", "absolute_tolerance", "relative_tolerance"};
    char tol_key[3][64], case_key[64], space_key[64];
    for (int i = 0; i < 3; i++)
        snprintf(tol_key[i], sizeof tol_key[i], "%s.%s", at, tol_name[i]);
    snprintf(case_key, sizeof case_key, "%s.case_sensitive", at);
    snprintf(space_key, sizeof space_key, "%s.space_change_sensitive", at);
    double v[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++) {
        if (!tol[i])
            continue;
        if (!floats)
            ydoc_error(y, tol[i], tol_key[i], "only the float checker takes a tolerance"), rc = -1;
        else if (ydoc_number(y, tol[i], tol_key[i], &v[i]))   /* 0: numbers equal as numbers */
            rc = -1;
    }
    if (c->eps && (c->abs || c->rel))
        ydoc_error(y, c->eps, tol_key[0], "give epsilon (both tolerances) or "
                   "absolute_tolerance/relative_tolerance, not both"), rc = -1;
    if (c->eps && v[0] >= 0)
        cmp->abs_tol = cmp->rel_tol = v[0];
    else if (c->abs || c->rel)
        cmp->abs_tol = v[1], cmp->rel_tol = v[2];
    bool sens = true;
    if (c->case_sens && !builtin)
        ydoc_error(y, c->case_sens, case_key, "only for a built-in checker"), rc = -1;
    else if (c->case_sens && parse_bool(y, c->case_sens, case_key, &sens) == 0)
        cmp->case_insensitive = !sens;
    if (c->space && type != RN_CHECK_TOKENS && !floats)
        ydoc_error(y, c->space, space_key, "only the tokens and float checkers take it"), rc = -1;
    else if (c->space)
        rc |= parse_bool(y, c->space, space_key, &cmp->space_sensitive);
    return rc;
}

/* A path a flag names must stay among the checker's own files: relative,
 * with no ".." component. */
static bool path_inside(const char *path)
{
    if (!*path || *path == '/')
        return false;
    for (const char *p = path; p;) {
        if (!strncmp(p, "..", 2) && (p[2] == '/' || !p[2]))
            return false;
        const char *slash = strchr(p, '/');
        p = slash ? slash + 1 : NULL;
    }
    return true;
}

static bool starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* Why a compile flag of a checker or an interactor is refused, or NULL.
 * The compile already runs in the sandbox (it sees /usr, its box and a few
 * files of /etc, never the host's secrets nor the package beyond the
 * checker and its headers); still, a flag is package content, so only the
 * forms a checker needs are taken: macros, optimisation, the standard,
 * warnings, code generation (-f, -m), debug info, libraries of the system
 * (-l) and include directories among its own files. Refused: whatever
 * reads a file by a path of the package's choosing or runs another program
 * (@file, -wrapper, -B, -specs, -fplugin, -fprofile-use, -Wl, -Xlinker,
 * -I/abs, ...), and a flag split over two items (-I dir). */
static const char *bad_flag(const char *f)
{
    static const char *const exact[] = {"-w", "-g", "-pthread", "-static", "-pedantic",
                                        "-pedantic-errors", "-ansi", "-O", NULL};
    static const char *const reads_files[] = {"-fplugin", "-fprofile-use", "-fauto-profile",
                                              "-fsanitize-blacklist", "-fsanitize-ignorelist",
                                              "-fprofile-dir", NULL};
    for (int i = 0; exact[i]; i++)
        if (!strcmp(f, exact[i]))
            return NULL;
    if (f[0] != '-')
        return *f == '@' ? "reads its options from a file" : "is not an option";
    /* -fprofile-generate=DIR, -DPATH=/etc/...: a value that looks like a
     * path must stay among the checker's files */
    const char *eq = strchr(f, '=');
    if (eq && !path_inside(eq + 1) && (eq[1] == '/' || strstr(eq + 1, "..")))
        return "names a path outside the checker's files";
    if ((f[1] == 'D' || f[1] == 'U') && (isalpha((unsigned char)f[2]) || f[2] == '_'))
        return NULL;
    if (f[1] == 'O' && f[2] && strchr("0123sgz", f[2]) && !f[3])
        return NULL;
    if (!strcmp(f, "-Ofast") || starts(f, "-std=") || (f[1] == 'g' && isdigit((unsigned char)f[2]) && !f[3]))
        return NULL;
    if (f[1] == 'W' && f[2] && !strchr(f, ','))
        return NULL;
    if (f[1] == 'f' && f[2]) {
        for (int i = 0; reads_files[i]; i++)
            if (starts(f, reads_files[i]))
                return "reads a file of the compiler's choosing, or loads code into it";
        return NULL;
    }
    if (f[1] == 'm' && f[2])
        return NULL;
    if (f[1] == 'l' && f[2] && !f[2 + strspn(f + 2, "abcdefghijklmnopqrstuvwxyz0123456789_+-.")])
        return NULL;
    if (f[1] == 'I' || starts(f, "-iquote") || starts(f, "-isystem")) {
        const char *dir = f + (f[1] == 'I' ? 2 : starts(f, "-iquote") ? 7 : 8);
        if (!*dir)
            return "must name its directory in the same item (-Iinclude)";
        return path_inside(dir) ? NULL : "names a directory outside the checker's files";
    }
    return "is not one a package may give";
}

/* A list of compile flags, each checked by bad_flag: an error names the
 * item's line and the flag. */
static int parse_flags(struct ydoc *y, yaml_node_t *n, const char *key, char ***out)
{
    if (ydoc_strings(y, n, key, out) < 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; (*out)[i]; i++) {
        const char *why = bad_flag((*out)[i]);
        char q[COMMON_QUOTE_CAP];
        if (why)
            ydoc_error(y, ydoc_node(y, n->data.sequence.items.start[i]), key,
                       "'%s' %s (allowed: -D -U -O -std= -W -w -f -m -g -l -pthread -static "
                       "-pedantic, and -I, -iquote, -isystem with a directory among the "
                       "checker's files; never @file, -wrapper, -B, -specs, -fplugin, -Wl)",
                       YQ(q, (*out)[i]), why), rc = -1;
    }
    return rc;
}

/* the keys of a custom checker's long form beyond type and source */
struct custom_nodes {
    yaml_node_t *flags, *protocol, *args, *scores;
};

static int parse_custom(struct ydoc *y, const struct custom_nodes *c, struct rn_problem *p)
{
    struct rn_helper *h = &p->checker_prog;
    bool custom = p->checker == RN_CHECK_CUSTOM;
    int rc = 0;
    if (c->flags && !custom)
        ydoc_error(y, c->flags, "checker.flags", "only a custom checker is compiled"), rc = -1;
    else if (c->flags)
        rc |= parse_flags(y, c->flags, "checker.flags", &h->flags);
    if (c->protocol && !custom)
        ydoc_error(y, c->protocol, "checker.protocol", "only a custom checker has a protocol"),
            rc = -1;
    else if (c->protocol)
        rc |= parse_protocol(y, c->protocol, "checker.protocol", h);
    if (c->args && !custom)
        ydoc_error(y, c->args, "checker.args", "only a custom checker takes arguments"), rc = -1;
    else if (c->args)
        rc |= ydoc_strings(y, c->args, "checker.args", &h->args);
    /* an ICPC scoring validator's score.txt: a fraction of the test's worth */
    if (c->scores && (!custom || h->protocol != RN_PROTO_KATTIS))
        ydoc_error(y, c->scores, "checker.scores", "only a custom checker of protocol kattis writes score.txt"),
            rc = -1;
    else if (c->scores)
        rc |= parse_bool(y, c->scores, "checker.scores", &h->scores);
    return rc;
}

static int parse_checker(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    p->checker_prog.line = ydoc_line(n);
    if (n->type == YAML_SCALAR_NODE) {
        if (checker_type(y, n, "checker", &p->checker) < 0)
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
    yaml_node_t *type = NULL, *source = NULL;
    struct compare_nodes cmp = {0};
    struct custom_nodes custom = {0};
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        if (!strcmp(key, "type"))
            type = v;
        else if (!strcmp(key, "source"))
            source = v;
        else if (!strcmp(key, "flags"))
            custom.flags = v;
        else if (!strcmp(key, "protocol"))
            custom.protocol = v;
        else if (!strcmp(key, "args"))
            custom.args = v;
        else if (!strcmp(key, "scores"))
            custom.scores = v;
        else if (compare_slot(&cmp, key))
            *compare_slot(&cmp, key) = v;
        else
            ydoc_error(y, k, key, "unknown key in checker (type, source, flags, protocol, "
                       "args, scores, epsilon, absolute_tolerance, relative_tolerance, case_sensitive, "
                       "space_change_sensitive)"), rc = -1;
    }
    if (!type) {
        ydoc_error(y, n, "checker.type", "missing (required in the long form)");
        return -1;
    }
    if (checker_type(y, type, "checker", &p->checker) < 0)
        return -1;
    rc |= parse_compare(y, &cmp, "checker", p->checker, &p->compare);
    if (source && p->checker != RN_CHECK_CUSTOM)
        ydoc_error(y, source, "checker.source", "only a custom checker has a source"), rc = -1;
    else if (source)
        rc |= checker_source(y, source, p);
    else if (p->checker == RN_CHECK_CUSTOM)
        ydoc_error(y, n, "checker.source", "missing (a custom checker needs one)"), rc = -1;
    rc |= parse_custom(y, &custom, p);
    return rc;
}

/* ---- interactor, graders ------------------------------------------------- */

static int parse_interactor(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    struct rn_helper *h = &p->interactor;
    h->line = ydoc_line(n);
    if (n->type == YAML_SCALAR_NODE)
        return program_source(y, n, "interactor", p, &h->source);
    if (ydoc_mapping(y, n, "interactor") < 0)
        return -1;
    int rc = 0;
    yaml_node_t *source = NULL, *scores = NULL;
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        if (!strcmp(key, "source"))
            source = v;
        else if (!strcmp(key, "flags"))
            rc |= parse_flags(y, v, "interactor.flags", &h->flags);
        else if (!strcmp(key, "protocol"))
            rc |= parse_protocol(y, v, "interactor.protocol", h);
        else if (!strcmp(key, "args"))
            rc |= ydoc_strings(y, v, "interactor.args", &h->args);
        else if (!strcmp(key, "scores"))
            scores = v, rc |= parse_bool(y, v, "interactor.scores", &h->scores);
        else
            ydoc_error(y, k, key, "unknown key in interactor (source, flags, protocol, args, scores)"),
                rc = -1;
    }
    if (scores && h->scores && h->protocol != RN_PROTO_KATTIS)
        ydoc_error(y, scores, "interactor.scores", "only an interactor of protocol kattis writes score.txt"), rc = -1;
    if (!source)
        ydoc_error(y, n, "interactor.source", "missing (required)"), rc = -1;
    else
        rc |= program_source(y, source, "interactor.source", p, &h->source);
    return rc;
}

static int grader_files(struct ydoc *y, yaml_node_t *n, const struct rn_problem *p,
                        struct rn_grader *g)
{
    if (ydoc_strings(y, n, "grader.files", &g->files) < 0)
        return -1;
    int rc = 0;
    for (char **f = g->files; *f; f++) {
        char q[COMMON_QUOTE_CAP], why[128];
        YQ(q, *f);
        enum kind k = safe_relative(*f) ? file_kind(p, *f, why, sizeof why) : K_BAD;
        if (!safe_relative(*f))
            ydoc_error(y, n, "grader.files", "'%s' must be a path inside the package", q), rc = -1;
        else if (k == K_MISSING)
            ydoc_error(y, n, "grader.files", "'%s' does not exist in the package", q), rc = -1;
        else if (k != K_FILE)
            ydoc_error(y, n, "grader.files", "'%s': %s", q, why), rc = -1;
    }
    if (!rc && !g->files[0])
        ydoc_error(y, n, "grader.files", "a grader needs at least one file"), rc = -1;
    return rc;
}

/* samples: [files]: shown with the statement (an ICPC .interaction),
 * never judged; each a file of the package, as a grader's files are. */
static int parse_samples(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    if (ydoc_strings(y, n, "samples", &p->samples) < 0)
        return -1;
    int rc = 0;
    for (char **f = p->samples; *f; f++) {
        char q[COMMON_QUOTE_CAP], why[128];
        YQ(q, *f);
        enum kind k = safe_relative(*f) ? file_kind(p, *f, why, sizeof why) : K_BAD;
        if (!safe_relative(*f))
            ydoc_error(y, n, "samples", "'%s' must be a path inside the package", q), rc = -1;
        else if (k == K_MISSING)
            ydoc_error(y, n, "samples", "'%s' does not exist in the package", q), rc = -1;
        else if (k != K_FILE)
            ydoc_error(y, n, "samples", "'%s': %s", q, why), rc = -1;
    }
    return rc;
}

static int parse_grader_entry(struct ydoc *y, yaml_node_t *n, const struct rn_problem *p,
                              struct rn_grader *g)
{
    if (n && n->type == YAML_SEQUENCE_NODE)
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
        else if (!strcmp(key, "base"))
            rc |= ydoc_string(y, v, "grader.base", &g->base);
        else
            ydoc_error(y, k, key, "unknown key in a grader (files, source, base)"), rc = -1;
    }
    /* base: DIR (ICPC's include/LANG/ with a Java package directory in it):
     * each file is copied to its path below DIR, directories and all */
    size_t blen = g->base ? strlen(g->base) : 0;
    if (g->base && !safe_relative(g->base))
        ydoc_error(y, n, "grader.base", "'%s' must be a directory inside the package",
                   common_quote((char[COMMON_QUOTE_CAP]){0}, COMMON_QUOTE_CAP, g->base, blen)), rc = -1;
    if (g->source && (strchr(g->source, '/') || g->source[0] == '.'))
        ydoc_error(y, n, "grader.source", "'%s' must be a plain file name",
                   common_quote((char[COMMON_QUOTE_CAP]){0}, COMMON_QUOTE_CAP, g->source, strlen(g->source))),
            rc = -1;
    if (!files)
        ydoc_error(y, n, "grader.files", "missing (required)"), rc = -1;
    else
        rc |= grader_files(y, files, p, g);
    for (char **f = g->base && g->files ? g->files : NULL; f && *f; f++)
        if (strncmp(*f, g->base, blen) || (*f)[blen] != '/')
            ydoc_error(y, files, "grader.files", "'%s' is not below base '%s'",
                       common_quote((char[COMMON_QUOTE_CAP]){0}, COMMON_QUOTE_CAP, *f, strlen(*f)),
                       common_quote((char[COMMON_QUOTE_CAP]){0}, COMMON_QUOTE_CAP, g->base, blen)), rc = -1;
    return rc;
}

/* grader: {LANG: [files...] | {files: [...], source: NAME}, ...} */
static int parse_graders(struct ydoc *y, yaml_node_t *n, struct rn_problem *p, const char *what, bool optional)
{
    if (ydoc_mapping(y, n, what) < 0)
        return -1;
    size_t count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    struct rn_grader *grown = realloc(p->graders, (p->grader_count + count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    p->graders = grown;
    int rc = 0;
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        if (rn_grader_for(p, key)) {
            ydoc_error(y, k, what, "'%s' has files in both grader and include", key), rc = -1;
            continue;
        }
        struct rn_grader *g = &p->graders[p->grader_count++];
        *g = (struct rn_grader){.lang = strdup(key), .optional = optional};
        rc |= parse_grader_entry(y, v, p, g);
    }
    if (!count)
        ydoc_error(y, n, what, "name at least one language"), rc = -1;
    return rc;
}

static int parse_type(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    const char *s = ydoc_scalar(y, n, "type");
    if (s && !strcmp(s, "batch"))
        return p->type = RN_BATCH, 0;
    if (s && !strcmp(s, "interactive"))
        return p->type = RN_INTERACTIVE, 0;
    if (s && !strcmp(s, "communication"))
        return p->type = RN_COMMUNICATION, 0;
    if (s && !strcmp(s, "output-only"))
        return p->type = RN_OUTPUT_ONLY, 0;
    char q[COMMON_QUOTE_CAP];
    if (s)
        ydoc_error(y, n, "type", "unknown problem type '%s' (batch, interactive, communication, output-only)", YQ(q, s));
    return -1;
}

/* ---- communication: the manager, its processes ---------------------------- */

/* manager: FILE, or {source, flags, args, time_limit, memory_limit}: CMS's
 * manager, held as the problem's interactor (one helper beside the
 * submission); its protocol is CMS's alone, so no protocol key */
static int parse_manager(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    struct rn_helper *h = &p->interactor;
    h->line = ydoc_line(n);
    if (n->type == YAML_SCALAR_NODE)
        return program_source(y, n, "manager", p, &h->source);
    if (ydoc_mapping(y, n, "manager") < 0)
        return -1;
    int rc = 0;
    yaml_node_t *source = NULL;
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        if (!strcmp(key, "source"))
            source = v;
        else if (!strcmp(key, "flags"))
            rc |= parse_flags(y, v, "manager.flags", &h->flags);
        else if (!strcmp(key, "args"))
            rc |= ydoc_strings(y, v, "manager.args", &h->args);
        else if (!strcmp(key, "time_limit"))
            rc |= ydoc_duration(y, v, "manager.time_limit", &p->manager_time);
        else if (!strcmp(key, "memory_limit"))
            rc |= ydoc_size(y, v, "manager.memory_limit", &p->manager_memory);
        else
            ydoc_error(y, k, key, "unknown key in manager (source, flags, args, time_limit, memory_limit)"),
                rc = -1;
    }
    if (p->manager_time > COMMON_MAX_TIME_LIMIT)
        ydoc_error(y, n, "manager.time_limit", "%gs is over the largest a problem may have (%gs)",
                   p->manager_time, COMMON_MAX_TIME_LIMIT), rc = -1;
    if (!source)
        ydoc_error(y, n, "manager.source", "missing (required)"), rc = -1;
    else
        rc |= program_source(y, source, "manager.source", p, &h->source);
    return rc;
}

/* user_io: fifo (the pipes' paths are arguments) | stdio (they are stdin
 * and stdout) */
static int parse_user_io(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    const char *s = ydoc_scalar(y, n, "user_io");
    if (s && (!strcmp(s, "fifo") || !strcmp(s, "stdio"))) {
        p->user_stdio = !strcmp(s, "stdio");
        return 0;
    }
    char q[COMMON_QUOTE_CAP];
    if (s)
        ydoc_error(y, n, "user_io", "unknown user_io '%s' (fifo, stdio)", YQ(q, s));
    return -1;
}

/* the keys only a communication problem has, and what it needs */
static int check_communication(struct ydoc *y, yaml_node_t *root, const struct pending *later,
                               struct rn_problem *p)
{
    yaml_node_t *own[] = {later->manager, later->processes, later->user_io};
    const char *names[] = {"manager", "processes", "user_io"};
    if (p->type != RN_COMMUNICATION) {
        for (size_t i = 0; i < 3; i++)
            if (own[i]) {
                ydoc_error(y, own[i], names[i], "only a communication problem (type: communication) has one");
                return -1;
            }
        return 0;
    }
    int rc = 0;
    if (!later->manager)
        ydoc_error(y, later->type ? later->type : root, "manager", "missing (a communication problem needs one)"),
            rc = -1;
    if (p->checker_given)
        ydoc_error(y, later->checker, "checker", "the manager of a communication problem decides its tests (score on "
                   "stdout)"), rc = -1;
    if (p->processes > RN_MAX_PROCESSES)
        ydoc_error(y, later->processes, "processes", "%d is more than %d", p->processes, RN_MAX_PROCESSES), rc = -1;
    if (p->input_file || p->output_file)
        ydoc_error(y, later->type ? later->type : root, p->input_file ? "input_file" : "output_file",
                   "a communication problem's processes talk to the manager, never through files"), rc = -1;
    return rc;
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
    if (p->type == RN_OUTPUT_ONLY && (p->input_file || p->output_file || later->grader || later->include)) {
        ydoc_error(y, later->type ? later->type : root, p->input_file ? "input_file" : p->output_file ? "output_file"
                   : later->grader ? "grader" : "include", "an output-only problem runs no program: its submission "
                   "is the answer files");
        return -1;
    }
    if (p->type != RN_OUTPUT_ONLY && later->answer_file) {
        ydoc_error(y, later->answer_file, "answer_file", "only an output-only problem (type: output-only) takes "
                   "answer files");
        return -1;
    }
    if (p->type == RN_INTERACTIVE && (p->input_file || p->output_file)) {
        ydoc_error(y, later->type ? later->type : root, p->input_file ? "input_file" : "output_file",
                   "an interactive problem talks on stdin and stdout, never through files");
        return -1;
    }
    return 0;
}

/* ---- tests ------------------------------------------------------------- */

/* A test's own checker: a built-in one (short or long form) judging it
 * instead of the problem's, which must be built-in too: a custom checker
 * is called with other args, never replaced. */
static int test_checker(struct ydoc *y, yaml_node_t *n, const struct rn_problem *p, struct rn_test *t)
{
    *t = (struct rn_test){.own_check = true, .compare = RN_COMPARE_DEFAULT};
    int rc = 0;
    yaml_node_t *type = n;
    struct compare_nodes cmp = {0};
    if (n->type != YAML_SCALAR_NODE) {
        if (ydoc_mapping(y, n, "tests.checker") < 0)
            return -1;
        type = NULL;
        YDOC_FOR_PAIRS(y, n, key, k, v) {
            if (!strcmp(key, "type"))
                type = v;
            else if (compare_slot(&cmp, key))
                *compare_slot(&cmp, key) = v;
            else
                ydoc_error(y, k, key, "unknown key in a test's checker (type, epsilon, absolute_tolerance, "
                           "relative_tolerance, case_sensitive, space_change_sensitive)"), rc = -1;
        }
        if (!type) {
            ydoc_error(y, n, "tests.checker.type", "missing (required in the long form)");
            return -1;
        }
    }
    if (checker_type(y, type, "tests.checker", &t->check) < 0)
        return -1;
    if (t->check == RN_CHECK_CUSTOM)
        ydoc_error(y, type, "tests.checker", "a test's own checker is a built-in one (exact, lines, tokens, "
                   "float); a custom checker takes other arguments per test with args"), rc = -1;
    else if (p->checker == RN_CHECK_CUSTOM)
        ydoc_error(y, n, "tests.checker", "the problem's checker is custom: a test may call it with its own "
                   "args, not replace it"), rc = -1;
    else if (p->type == RN_INTERACTIVE && !p->checker_given)
        ydoc_error(y, n, "tests.checker", "the problem's interactor decides its tests (it names no checker)"),
            rc = -1;
    else if (p->type == RN_COMMUNICATION)
        ydoc_error(y, n, "tests.checker", "the problem's manager decides its tests"), rc = -1;
    return rc | parse_compare(y, &cmp, "tests.checker", t->check, &t->compare);
}

/* A test's own arguments for the program that judges it: an interactive
 * problem's interactor, else its custom checker. */
static int test_args(struct ydoc *y, yaml_node_t *n, const struct rn_problem *p, char ***out)
{
    if (ydoc_strings(y, n, "tests.args", out) < 0)
        return -1;
    if (p->type == RN_INTERACTIVE || p->type == RN_COMMUNICATION || p->checker == RN_CHECK_CUSTOM)
        return 0;
    ydoc_error(y, n, "tests.args", "only a custom checker or an interactor takes arguments (a manager too; the problem's "
               "checker is built-in: a test may give its own checker instead)");
    return -1;
}

static int explicit_test(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    char *name = NULL, *in = NULL, *out = NULL, **args = NULL;
    struct rn_test own = {0};
    int rc = 0;
    if (!n)
        return ydoc_mapping(y, n, "tests");
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
            else if (!strcmp(key, "args") && !args)
                rc |= test_args(y, v, p, &args);
            else if (!strcmp(key, "checker"))
                rc |= test_checker(y, v, p, &own);
            else
                ydoc_error(y, k, key, "unknown key in a test (name, input, output, checker, args)"), rc = -1;
        }
        if (!rc && (!name || !in || !out))
            ydoc_error(y, n, "tests", "a test needs name, input and output"), rc = -1;
    }
    for (const char *f = in; !rc && f; f = f == in ? out : NULL) {
        char q[COMMON_QUOTE_CAP], qn[COMMON_QUOTE_CAP], why[128];
        YQ(q, f);
        YQ(qn, name);
        enum kind k = safe_relative(f) ? file_kind(p, f, why, sizeof why) : K_BAD;
        k = k == K_DIR ? K_BAD : k;
        if (!safe_relative(f))
            ydoc_error(y, n, "tests", "'%s' must be a path inside the package", q), rc = -1;
        else if (k == K_MISSING)
            ydoc_error(y, n, "tests", "missing test file %s (test '%s')", q, qn), rc = -1;
        else if (k == K_BAD)
            ydoc_error(y, n, "tests", "test file %s (test '%s'): %s", q, qn, why), rc = -1;
    }
    if (!rc)
        rc = add_test(p, name, in, out);
    if (!rc) {
        struct rn_test *t = &p->tests[p->test_count - 1];
        t->own_check = own.own_check, t->check = own.check, t->compare = own.compare;
        t->args = args;
        args = NULL;
    }
    rn_argv_free(args);
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

/* one tests/ entry: paired with its twin, or an error. A link that leaves
 * the package, a FIFO or a device was named by the package walk already and
 * is only skipped here; a directory the walk accepts is named here. */
static int discover_one(struct rn_problem *p, const char *f, struct common_errors *errs)
{
    bool in = ends_with(f, ".in");
    char *base = strndup(f, strlen(f) - (in ? 3 : 4));
    char *rin = rn_strdup_printf("tests/%s.in", base), *rout = rn_strdup_printf("tests/%s.out", base);
    const char *mine = in ? rin : rout, *other = in ? rout : rin;
    char why[128], q[COMMON_QUOTE_CAP], qo[COMMON_QUOTE_CAP];
    enum kind twin = file_kind(p, other, why, sizeof why);
    enum kind self = !in && twin != K_MISSING ? K_FILE : file_kind(p, mine, why, sizeof why);
    int rc = -1;
    if (!in && twin != K_MISSING)
        rc = 0;                          /* the pair is the .in entry's business */
    else if (self == K_DIR || (self == K_FILE && twin == K_DIR))
        common_errors_add(errs, "%s/%s:0: tests: a directory, not a test file", p->dir,
                      YQ(q, self == K_DIR ? mine : other));
    else if (self == K_FILE && twin == K_MISSING)
        common_errors_add(errs, "%s/%s:0: tests: no matching %s", p->dir, YQ(q, mine), YQ(qo, other));
    else if (self == K_FILE && twin == K_FILE)
        rc = add_test(p, base, rin, rout);
    free(base);
    free(rin);
    free(rout);
    return rc;
}

/* tests/NAME.in with their .out, natural order; an unpaired file is an error */
static int discover_tests(struct rn_problem *p, struct common_errors *errs)
{
    char *dir = rn_strdup_printf("%s/tests", p->dir), why[128];
    int dfd = rn_pkg_open(p->root, "tests", true, NULL, why, sizeof why);
    struct dirent **names;
    int n = dfd < 0 ? -1 : scandirat(dfd, ".", &names, test_file_filter, natural_sort);
    int rc = 0;
    if (dfd >= 0)
        close(dfd);
    if (n < 0) {
        if (dfd < 0 && errno != ENOENT)
            common_errors_add(errs, "%s:0: tests: %s", dir, why);
        else
            common_errors_add(errs, "%s:0: tests: no tests/ directory and no tests: list", dir);
        free(dir);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        /* the .out of a pair is handled with its .in */
        if (!p->too_many_tests)
            rc |= discover_one(p, names[i]->d_name, errs);
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
    for (yaml_node_item_t *i = n->data.sequence.items.start;
         i < n->data.sequence.items.top && !p->too_many_tests; i++)
        rc |= explicit_test(y, ydoc_node(y, *i), p);
    return rc;
}

/* ---- subtasks ---------------------------------------------------------- */

/* every test's name in p->test_index; a name given twice is an error */
static int index_tests(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    int rc = 0;
    for (size_t i = 0; i < p->test_count; i++)
        if (common_strset_put(&p->test_index, p->tests[i].name, (void *)(i + 1))) {
            char q[COMMON_QUOTE_CAP];
            ydoc_error(y, n, "tests", "test '%s' is listed twice", YQ(q, p->tests[i].name));
            rc = -1;
        }
    return rc;
}

static long find_test(const struct rn_problem *p, const char *name)
{
    return (long)(uintptr_t)common_strset_get(&p->test_index, name) - 1;
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
    size_t *nv = grow_array(*v, *count, sizeof *nv);
    if (!nv)
        return -1;
    nv[(*count)++] = value;
    *v = nv;
    return 0;
}

/* next[i]: the smallest j >= i not yet in the subtask (path-halving), so a
 * subtask listing [1-10000, 1-10000, ...] costs each test once */
static size_t next_free(size_t *next, size_t i)
{
    while (next[i] != i) {
        next[i] = next[next[i]];
        i = next[i];
    }
    return i;
}

static int subtask_item(struct ydoc *y, yaml_node_t *n, const struct rn_problem *p,
                        struct rn_subtask *st, size_t *next)
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
        char q[COMMON_QUOTE_CAP];
        ydoc_error(y, n, "subtasks.tests", "'%s' names no test (a name, a position 1..%zu "
                   "or a range a-b)", YQ(q, s), p->test_count);
        return -1;
    }
    for (size_t i = next_free(next, (size_t)first); i <= (size_t)last;
         i = next_free(next, i + 1)) {
        next[i] = i + 1;
        if (push_index(&st->tests, &st->test_count, i) < 0)
            return -1;
    }
    return 0;
}

static int subtask_tests(struct ydoc *y, yaml_node_t *n, const struct rn_problem *p,
                         struct rn_subtask *st)
{
    if (!n || n->type != YAML_SEQUENCE_NODE) {
        ydoc_error(y, n, "subtasks.tests", "expected a list such as [1-5, 7]");
        return -1;
    }
    size_t *next = malloc((p->test_count + 1) * sizeof *next);
    if (!next)
        return -1;
    for (size_t i = 0; i <= p->test_count; i++)
        next[i] = i;
    int rc = 0;
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++)
        rc |= subtask_item(y, ydoc_node(y, *i), p, st, next);
    free(next);
    if (!rc && st->test_count == 0 && !st->graded)   /* a graded one may hold only groups */
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
        size_t j = (size_t)(uintptr_t)common_strset_get(&p->subtask_index, *d);
        char q[COMMON_QUOTE_CAP];
        if (!j || j - 1 >= self)
            ydoc_error(y, n, "subtasks.depends", "'%s' is not an earlier subtask", YQ(q, *d)),
                rc = -1;
        else
            push_index(&st->deps, &st->dep_count, j - 1);
    }
    rn_argv_free(names);
    return rc;
}

/* aggregate: {threshold: T}: CMS GroupThreshold's T, a checker value > 0 */
static int aggregate_threshold(struct ydoc *y, yaml_node_t *n, struct rn_subtask *st)
{
    if (ydoc_mapping(y, n, "subtasks.aggregate") < 0)
        return -1;
    int rc = 0;
    bool given = false;
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        if (strcmp(key, "threshold")) {
            char q[COMMON_QUOTE_CAP];
            ydoc_error(y, k, "subtasks.aggregate", "unknown key '%s' (a map holds only threshold: T)",
                       YQ(q, key));
            rc = -1;
        } else if (ydoc_number(y, v, "subtasks.aggregate.threshold", &st->threshold) < 0) {
            rc = -1;
        } else if (!(st->threshold > 0)) {
            ydoc_error(y, v, "subtasks.aggregate.threshold", "%g is not above 0 (a test passes "
                       "when 0 < its checker value <= T)", st->threshold);
            rc = -1;
        }
        given = true;
    }
    if (!given)
        ydoc_error(y, n, "subtasks.aggregate", "expected {threshold: T}"), rc = -1;
    st->aggregate = RN_AGG_THRESHOLD;
    return rc;
}

/* aggregate: min | mul | sum | {threshold: T} */
static int parse_aggregate(struct ydoc *y, yaml_node_t *n, struct rn_subtask *st)
{
    if (n && n->type == YAML_MAPPING_NODE)
        return aggregate_threshold(y, n, st);
    const char *s = ydoc_scalar(y, n, "subtasks.aggregate");
    if (!s)
        return -1;
    if (!strcmp(s, "min"))
        st->aggregate = RN_AGG_MIN;
    else if (!strcmp(s, "mul"))
        st->aggregate = RN_AGG_MUL;
    else if (!strcmp(s, "sum"))
        st->aggregate = RN_AGG_SUM;
    else {
        char q[COMMON_QUOTE_CAP];
        ydoc_error(y, n, "subtasks.aggregate", "unknown value '%s' (min, mul, sum or {threshold: T})",
                   YQ(q, s));
        return -1;
    }
    return 0;
}

/* a number of a grade: map, negative allowed, "inf"/"-inf" when bounds */
static int grade_number(struct ydoc *y, yaml_node_t *n, const char *key, bool bounds, double *out)
{
    const char *s = ydoc_scalar(y, n, key);
    if (!s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || isnan(v) || (!bounds && isinf(v))) {
        char q[COMMON_QUOTE_CAP];
        ydoc_error(y, n, key, "bad number '%s'%s", YQ(q, s), bounds ? " (a number, inf or -inf)" : "");
        return -1;
    }
    *out = v;
    return 0;
}

/* range: [lo, hi] */
static int grade_range(struct ydoc *y, yaml_node_t *n, struct rn_grade *g)
{
    const char *key = "subtasks.grade.range";
    if (!n || n->type != YAML_SEQUENCE_NODE || n->data.sequence.items.top - n->data.sequence.items.start != 2) {
        ydoc_error(y, n, key, "expected [low, high] (inf and -inf allowed)");
        return -1;
    }
    yaml_node_item_t *i = n->data.sequence.items.start;
    if (grade_number(y, ydoc_node(y, i[0]), key, true, &g->lo) < 0 ||
        grade_number(y, ydoc_node(y, i[1]), key, true, &g->hi) < 0)
        return -1;
    if (g->lo > g->hi) {
        ydoc_error(y, n, key, "%g is above %g", g->lo, g->hi);
        return -1;
    }
    return 0;
}

/* one word among names (NULL-terminated) -> its index */
static int grade_word(struct ydoc *y, yaml_node_t *n, const char *key, const char *const *names,
                      const char *list, int *out)
{
    const char *s = ydoc_scalar(y, n, key);
    for (int i = 0; s && names[i]; i++)
        if (!strcmp(s, names[i]))
            return *out = i, 0;
    char q[COMMON_QUOTE_CAP];
    if (s)
        ydoc_error(y, n, key, "unknown value '%s' (%s)", YQ(q, s), list);
    return -1;
}

static int grade_key(struct ydoc *y, const char *key, yaml_node_t *k, yaml_node_t *v, struct rn_grade *g)
{
    static const char *const scores[] = {"sum", "avg", "min", "max", NULL};
    static const char *const verdicts[] = {"worst_error", "first_error", "always_accept", NULL};
    static const char *const rejects[] = {"continue", "break", NULL};
    int w = 0, rc;
    if (!strcmp(key, "score"))
        rc = grade_word(y, v, "subtasks.grade.score", scores, "sum, avg, min, max", &w), g->score = w;
    else if (!strcmp(key, "verdict"))
        rc = grade_word(y, v, "subtasks.grade.verdict", verdicts, "worst_error, first_error, always_accept", &w),
        g->verdict = w;
    else if (!strcmp(key, "on_reject"))
        rc = grade_word(y, v, "subtasks.grade.on_reject", rejects, "break, continue", &w), g->on_reject_break = w;
    else if (!strcmp(key, "accept_if_any_accepted"))
        rc = parse_bool(y, v, "subtasks.grade.accept_if_any_accepted", &g->accept_if_any_accepted);
    else if (!strcmp(key, "ignore_first"))
        rc = parse_bool(y, v, "subtasks.grade.ignore_first", &g->ignore_first);
    else if (!strcmp(key, "reject_score"))
        rc = grade_number(y, v, "subtasks.grade.reject_score", false, &g->reject_score);
    else if (!strcmp(key, "range"))
        rc = grade_range(y, v, g);
    else {
        char q[COMMON_QUOTE_CAP];
        ydoc_error(y, k, "subtasks.grade", "unknown key '%s' (score, verdict, accept_if_any_accepted, "
                   "ignore_first, on_reject, reject_score, range)", YQ(q, key));
        rc = -1;
    }
    return rc;
}

/* grade: {score, verdict, ...}: a graded group (Kattis' default grader) */
static int parse_grade(struct ydoc *y, yaml_node_t *n, struct rn_subtask *st)
{
    st->graded = true;
    st->grade = (struct rn_grade){.score = RN_GRADE_SUM, .verdict = RN_GRADE_WORST_ERROR,
                                  .on_reject_break = true, .lo = -INFINITY, .hi = INFINITY};
    if (ydoc_mapping(y, n, "subtasks.grade") < 0)
        return -1;
    int rc = 0;
    YDOC_FOR_PAIRS(y, n, key, k, v)
        rc |= grade_key(y, key, k, v, &st->grade);
    return rc;
}

/* parent: an earlier graded subtask, which this one's result feeds */
static int parse_parent(struct ydoc *y, yaml_node_t *n, const struct rn_problem *p, size_t self,
                        struct rn_subtask *st)
{
    const char *s = ydoc_scalar(y, n, "subtasks.parent");
    if (!s)
        return -1;
    size_t j = (size_t)(uintptr_t)common_strset_get(&p->subtask_index, s);
    char q[COMMON_QUOTE_CAP];
    if (!j || j - 1 >= self || !p->subtasks[j - 1].graded) {
        ydoc_error(y, n, "subtasks.parent", "'%s' is not an earlier subtask with grade:", YQ(q, s));
        return -1;
    }
    st->parent = j;
    struct rn_subtask *up = &p->subtasks[j - 1];
    return push_index(&up->children, &up->child_count, self);
}

static int parse_subtask(struct ydoc *y, yaml_node_t *n, struct rn_problem *p, size_t self)
{
    struct rn_subtask *st = &p->subtasks[self];
    if (ydoc_mapping(y, n, "subtasks") < 0)
        return -1;
    int rc = 0;
    bool has_points = false;
    yaml_node_t *tests = NULL, *deps = NULL, *parent = NULL, *grade = NULL, *agg = NULL;
    YDOC_FOR_PAIRS(y, n, key, k, v) {
        if (!strcmp(key, "name"))
            rc |= ydoc_string(y, v, "subtasks.name", &st->name);
        else if (!strcmp(key, "points"))
            rc |= ydoc_number(y, v, "subtasks.points", &st->points), has_points = true;
        else if (!strcmp(key, "tests"))
            tests = v;
        else if (!strcmp(key, "depends"))
            deps = v;
        else if (!strcmp(key, "aggregate"))
            rc |= parse_aggregate(y, v, st), agg = v;
        else if (!strcmp(key, "grade"))
            grade = v;
        else if (!strcmp(key, "parent"))
            parent = v;
        else
            ydoc_error(y, k, key, "unknown key in a subtask (name, points, tests, depends, "
                       "aggregate, grade, parent)"), rc = -1;
    }
    if (!st->name)
        st->name = rn_strdup_printf("%zu", self + 1);
    char q[COMMON_QUOTE_CAP];
    if (common_strset_put(&p->subtask_index, st->name, (void *)(self + 1)))
        ydoc_error(y, n, "subtasks.name", "'%s' is used twice", YQ(q, st->name)), rc = -1;
    if (grade)
        rc |= parse_grade(y, grade, st);
    if (grade && agg)
        ydoc_error(y, agg, "subtasks.aggregate", "not with grade: (a graded group aggregates with grade.score)"),
            rc = -1;
    if (parent)
        rc |= parse_parent(y, parent, p, self, st);
    if (!has_points && !st->graded)
        ydoc_error(y, n, "subtasks.points", "missing (required)"), rc = -1;
    if (!has_points && st->graded)
        st->points = 1;   /* accept_score's default */
    if (!tests && !st->graded)
        ydoc_error(y, n, "subtasks.tests", "missing (required)"), rc = -1;
    else if (tests)
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

/* an item's place: a test's index, a child's first test beneath it */
struct item_key {
    size_t key, item;
};

static int by_key(const void *a, const void *b)
{
    const struct item_key *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* A graded subtask's items: its tests (index i) and its children
 * (test_count + subtask index), each child placed at its first test, so
 * the order is the tests' order, as Kattis judges a group's test cases and
 * subgroups in one order. first[] is filled children first (they follow
 * their parents in the list). */
static int graded_items(struct rn_problem *p, struct rn_subtask *st, const size_t *first)
{
    size_t n = st->test_count + st->child_count;
    struct item_key *k = calloc(n ? n : 1, sizeof *k);
    st->items = calloc(n ? n : 1, sizeof *st->items);
    if (!k || !st->items)
        return free(k), -1;
    for (size_t i = 0; i < st->test_count; i++)
        k[i] = (struct item_key){st->tests[i], st->tests[i]};
    for (size_t c = 0; c < st->child_count; c++)
        k[st->test_count + c] = (struct item_key){first[st->children[c]], p->test_count + st->children[c]};
    qsort(k, n, sizeof *k, by_key);
    for (size_t i = 0; i < n; i++)
        st->items[i] = k[i].item;
    st->item_count = n;
    free(k);
    return 0;
}

/* every graded subtask's items, and a test somewhere beneath each */
static int build_tree(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    size_t *first = malloc((p->subtask_count ? p->subtask_count : 1) * sizeof *first);
    if (!first)
        return -1;
    int rc = 0;
    for (size_t s = p->subtask_count; s-- > 0;) {
        struct rn_subtask *st = &p->subtasks[s];
        first[s] = SIZE_MAX;
        for (size_t i = 0; i < st->test_count; i++)
            first[s] = st->tests[i] < first[s] ? st->tests[i] : first[s];
        for (size_t c = 0; c < st->child_count; c++)
            first[s] = first[st->children[c]] < first[s] ? first[st->children[c]] : first[s];
        if (st->graded && first[s] == SIZE_MAX) {
            char q[COMMON_QUOTE_CAP];
            ydoc_error(y, n, "subtasks.tests", "graded subtask '%s' has no test, itself or beneath",
                       YQ(q, st->name));
            rc = -1;
        } else if (st->graded && graded_items(p, st, first) < 0) {
            rc = -1;
        }
    }
    free(first);
    return rc;
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
    if (count > RN_MAX_SUBTASKS) {
        ydoc_error(y, n, "subtasks", "%zu subtasks, more than the limit of %d", count,
                   RN_MAX_SUBTASKS);
        return -1;
    }
    p->subtasks = calloc(count, sizeof *p->subtasks);
    p->subtask_count = count;
    int rc = 0;
    for (size_t i = 0; i < count; i++)
        rc |= parse_subtask(y, ydoc_node(y, n->data.sequence.items.start[i]), p, i);
    return rc ? rc : build_tree(y, n, p);
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
        char q[COMMON_QUOTE_CAP];
        ydoc_error(y, n, "stop_on_failure", "unknown value '%s' (none, subtask, all)", YQ(q, s));
        return -1;
    }
    return 0;
}

/* on_output_limit: kill (at once, the default) or truncate (the output is
 * cut at the limit and the program runs on: TLE if it does not end in
 * time, else OLE - DOMjudge's and the ICPC tools' way) */
static int parse_on_output_limit(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    const char *s = ydoc_scalar(y, n, "on_output_limit");
    if (!s)
        return -1;
    if (strcmp(s, "kill") && strcmp(s, "truncate")) {
        char q[COMMON_QUOTE_CAP];
        ydoc_error(y, n, "on_output_limit", "unknown value '%s' (kill, truncate)", YQ(q, s));
        return -1;
    }
    p->output_truncate = !strcmp(s, "truncate");
    return 0;
}

/* input_file / output_file: a plain name in the program's working dir
 * (Polygon's judging input-file / output-file, olympiads' E.in / E.out) */
static int parse_io_file(struct ydoc *y, yaml_node_t *n, const char *key, char **out)
{
    const char *s = ydoc_scalar(y, n, key);
    if (!s)
        return -1;
    size_t len = strlen(s);
    bool plain = len > 0 && len <= 100 && strcmp(s, ".") && strcmp(s, "..") && s[0] != '-';
    for (size_t i = 0; plain && i < len; i++)
        plain = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                (s[i] >= '0' && s[i] <= '9') || strchr("._-", s[i]);
    if (!plain) {
        char q[COMMON_QUOTE_CAP];
        ydoc_error(y, n, key, "'%s' is not a plain file name (letters, digits, '.', '_', '-'; "
                   "at most 100)", YQ(q, s));
        return -1;
    }
    free(*out);
    *out = strdup(s);
    return *out ? 0 : -1;
}

static int parse_top(struct ydoc *y, const char *key, yaml_node_t *k, yaml_node_t *v,
                     struct rn_problem *p, struct pending *later)
{
    if (!strcmp(key, "name"))
        return ydoc_string(y, v, key, &p->name);
    if (!strcmp(key, "title"))
        return ydoc_string(y, v, key, &p->title);
    if (!strcmp(key, "time_limit")) {
        const char *t = v && v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : "";
        p->time_line = ydoc_line(k);
        p->time_unitless = *t && strspn(t, "0123456789.") == strlen(t);
        return ydoc_duration(y, v, key, &p->time_limit);
    }
    if (!strcmp(key, "wall_time_limit"))
        return ydoc_duration(y, v, key, &p->wall_time_limit);
    if (!strcmp(key, "compile_limits"))
        return parse_compile_limits(y, v, p);
    if (!strcmp(key, "type"))
        return later->type = v, parse_type(y, v, p);
    if (!strcmp(key, "interactor"))
        return later->interactor = v, 0;
    if (!strcmp(key, "manager"))
        return later->manager = v, 0;
    if (!strcmp(key, "processes"))
        return later->processes = v, ydoc_int(y, v, key, 1, &p->processes);
    if (!strcmp(key, "user_io"))
        return later->user_io = v, parse_user_io(y, v, p);
    if (!strcmp(key, "grader"))
        return later->grader = v, 0;
    if (!strcmp(key, "include"))
        return later->include = v, 0;
    if (!strcmp(key, "samples"))
        return later->samples = v, 0;
    if (!strcmp(key, "memory_limit"))
        return p->memory_line = ydoc_line(k), ydoc_size(y, v, key, &p->memory_limit);
    if (!strcmp(key, "output_limit"))
        return ydoc_size(y, v, key, &p->output_limit);
    if (!strcmp(key, "on_output_limit"))
        return parse_on_output_limit(y, v, p);
    if (!strcmp(key, "input_file"))
        return parse_io_file(y, v, key, &p->input_file);
    if (!strcmp(key, "output_file"))
        return parse_io_file(y, v, key, &p->output_file);
    if (!strcmp(key, "stop_on_failure"))
        return later->stop = v, parse_stop(y, v, p);
    if (!strcmp(key, "passes"))
        return later->passes = v, ydoc_int(y, v, key, 1, &p->passes);
    if (!strcmp(key, "answer_file"))
        return later->answer_file = v, ydoc_string(y, v, key, &p->answer_file);
    if (!strcmp(key, "checker"))
        return later->checker = v, p->checker_given = true, 0;
    if (!strcmp(key, "tests"))
        return later->tests = v, 0;
    if (!strcmp(key, "subtasks"))
        return later->subtasks = v, p->subtasks_line = ydoc_line(k), 0;
    ydoc_error(y, k, key, "unknown key (name, title, type, time_limit, wall_time_limit, "
               "memory_limit, output_limit, on_output_limit, input_file, output_file, compile_limits, checker, interactor, grader, tests, "
               "subtasks, stop_on_failure, passes, include, samples, manager, processes, user_io, answer_file)");
    return -1;
}

static int check_top(struct ydoc *y, yaml_node_t *root, struct rn_problem *p)
{
    int rc = 0;
    if (!p->name)
        ydoc_error(y, root, "name", "missing (required)"), rc = -1;
    /* an output-only problem runs nothing: its limits are the checker's */
    if (p->type == RN_OUTPUT_ONLY && p->time_limit == 0)
        p->time_limit = 1;
    if (p->type == RN_OUTPUT_ONLY && p->memory_limit == 0)
        p->memory_limit = 256ULL << 20;
    if (p->time_limit <= 0)
        ydoc_error(y, root, "time_limit", "missing or zero (required, e.g. 1s)"), rc = -1;
    if (p->time_limit > COMMON_MAX_TIME_LIMIT)
        ydoc_error(y, root, "time_limit", "%gs is over the largest a problem may have (%gs)", p->time_limit,
                   COMMON_MAX_TIME_LIMIT), rc = -1;
    if (p->wall_time_limit > COMMON_MAX_TIME_LIMIT)
        ydoc_error(y, root, "wall_time_limit", "%gs is over the largest a problem may have (%gs)",
                   p->wall_time_limit, COMMON_MAX_TIME_LIMIT), rc = -1;
    if (p->memory_limit == 0)
        ydoc_error(y, root, "memory_limit", "missing or zero (required, e.g. 256M)"), rc = -1;
    if (p->output_limit == 0)
        ydoc_error(y, root, "output_limit", "must not be zero"), rc = -1;
    if (p->input_file && p->output_file && !strcmp(p->input_file, p->output_file))
        ydoc_error(y, root, "output_file", "is input_file too (two files are needed)"), rc = -1;
    if (p->wall_time_limit > 0 && p->wall_time_limit < p->time_limit)
        ydoc_error(y, root, "wall_time_limit", "%gs is below time_limit (%gs)",
                   p->wall_time_limit, p->time_limit), rc = -1;
    return rc;
}

static struct rn_problem *problem_defaults(const char *dir, int root,
                                          const struct runner_limits *lim)
{
    struct rn_problem *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->dir = strdup(dir);
    p->root = root;
    rn_limits_fill(&p->limits, lim);
    p->output_limit = 64ULL << 20;
    p->checker = RN_CHECK_TOKENS;
    p->compare = (struct rn_compare)RN_COMPARE_DEFAULT;
    p->stop = RN_STOP_SUBTASK;
    p->passes = 1;
    p->processes = 1;
    return p;
}

/* passes > 1 (ICPC multi-pass): the Kattis checker's nextpass.in is the
 * next run's input (an interactor's, its next input file), so only a
 * problem with such a validator has them; bounded so that a test's runs
 * stay countable. */
static int check_passes(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    if (!n)
        return p->passes = 1, 0;
    if (p->passes > RN_MAX_PASSES) {
        ydoc_error(y, n, "passes", "%d is more than %d", p->passes, RN_MAX_PASSES);
        return -1;
    }
    bool batch = p->type == RN_BATCH && p->checker == RN_CHECK_CUSTOM && p->checker_prog.protocol == RN_PROTO_KATTIS;
    bool interactive = p->type == RN_INTERACTIVE && p->interactor.protocol == RN_PROTO_KATTIS;
    if (p->passes > 1 && !batch && !interactive) {
        ydoc_error(y, n, "passes", "needs a checker (batch) or an interactor of protocol kattis (it writes "
                   "nextpass.in)");
        return -1;
    }
    return 0;
}

/* An output-only problem's answer_file (default RN_ANSWER_FILE): each
 * test's name a file set may hold, and no two tests' the same. */
static int check_answer_files(struct ydoc *y, yaml_node_t *n, struct rn_problem *p)
{
    if (p->type != RN_OUTPUT_ONLY)
        return 0;
    if (!p->answer_file && !(p->answer_file = strdup(RN_ANSWER_FILE)))
        return -1;
    for (const char *c = strchr(p->answer_file, '{'); c; c = strchr(c + 1, '{'))
        if (strncmp(c, "{name}", 6) && strncmp(c, "{index}", 7)) {
            ydoc_error(y, n, "answer_file", "'%s': unknown placeholder (only {name}, the test's name, and {index}, "
                       "its 0-based index in 3 digits)", p->answer_file);
            return -1;
        }
    struct common_strset seen = {0};
    char **names = calloc(p->test_count, sizeof *names);   /* the set keeps them by pointer */
    int rc = names ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < p->test_count; i++) {
        char why[160], *name = names[i] = rn_answer_file_name(p, i);
        const void *other = name ? common_strset_put(&seen, name, (void *)(i + 1)) : NULL;
        if (!name)
            rc = -1;
        else if (fileset_name_check(name, why, sizeof why) < 0)
            ydoc_error(y, n, "answer_file", "'%s' gives test %s the file name '%.100s': %s", p->answer_file,
                       p->tests[i].name, name, why), rc = -1;
        else if (other)
            ydoc_error(y, n, "answer_file", "'%s' gives tests %s and %s the same file name '%.100s': use {name} "
                       "or {index}", p->answer_file, p->tests[(size_t)other - 1].name, p->tests[i].name, name),
                rc = -1;
    }
    common_strset_free(&seen);
    for (size_t i = 0; names && i < p->test_count; i++)
        free(names[i]);
    free(names);
    return rc;
}

static int parse_document(struct ydoc *y, struct rn_problem *p)
{
    yaml_node_t *root = ydoc_root(y);
    int rc = ydoc_mapping(y, root, "document");
    if (rc < 0)
        return -1;
    struct pending later = {0};
    YDOC_FOR_PAIRS(y, root, key, k, v) rc |= parse_top(y, key, k, v, p, &later);
    rc |= check_top(y, root, p);
    if (later.checker)
        rc |= parse_checker(y, later.checker, p);
    if (later.interactor && p->type != RN_COMMUNICATION)
        rc |= parse_interactor(y, later.interactor, p);
    if (later.manager && p->type == RN_COMMUNICATION)
        rc |= parse_manager(y, later.manager, p);
    rc |= check_communication(y, root, &later, p);
    if (later.grader)
        rc |= parse_graders(y, later.grader, p, "grader", false);
    if (later.include)
        rc |= parse_graders(y, later.include, p, "include", true);
    if (later.samples)
        rc |= parse_samples(y, later.samples, p);
    rc |= check_type(y, root, &later, p);
    /* every answer file of an output-only problem gets its verdict (nothing
     * is saved by skipping: no program runs) unless the problem says */
    if (p->type == RN_OUTPUT_ONLY && !later.stop)
        p->stop = RN_STOP_NONE;
    rc |= check_passes(y, later.passes, p);
    yaml_node_t *where = later.tests ? later.tests : root;
    if (parse_tests(y, later.tests, p) < 0 && !p->too_many_tests)
        rc = -1;
    else if (p->too_many_tests)
        ydoc_error(y, where, "tests", "more than %llu tests (the tests limit)",
                   (unsigned long long)p->limits.tests), rc = -1;
    else if (p->test_count == 0)
        ydoc_error(y, where, "tests", "the package has no tests"), rc = -1;
    else if (index_tests(y, where, p) < 0)
        rc = -1;
    else
        rc |= parse_subtasks(y, later.subtasks, p) | check_answer_files(y, later.answer_file ? later.answer_file : root,
                                                                         p);
    return rc;
}

/* the loading-only parts go */
static void loaded(struct rn_problem *p)
{
    common_strset_free(&p->test_index);
    common_strset_free(&p->subtask_index);
    p->root = -1;
}

int rn_problem_parse(int root, const char *dir, const char *yaml, size_t len,
                     const struct runner_limits *lim, struct rn_problem **out,
                     struct common_errors *errs)
{
    size_t errors_before = errs->count + errs->dropped;
    char *display = rn_strdup_printf("%s/problem.yaml", dir);
    struct rn_problem *p = problem_defaults(dir, root, lim);
    struct ydoc y = {0};
    int rc = !p || !display ? -1 : ydoc_parse(&y, yaml, len, display, errs);
    if (rc == 0)
        rc = parse_document(&y, p);
    ydoc_free(&y);
    free(display);
    if (p)
        p->root = -1;           /* the caller's */
    if (rc || errs->count + errs->dropped > errors_before) {
        rn_problem_free(p);
        return -1;
    }
    loaded(p);
    *out = p;
    return 0;
}

int rn_problem_load(const char *dir, const struct runner_limits *lim, struct rn_problem **out,
                    struct common_errors *errs)
{
    struct runner_limits l;
    rn_limits_fill(&l, lim);
    char why[256];
    int root = rn_pkg_root(dir, why, sizeof why);
    if (root < 0) {
        common_errors_add(errs, "%s:0: package: %s", dir, why);
        return -1;
    }
    /* a package over a limit is not read further: its size bounds nothing */
    int walked = rn_pkg_walk(root, dir, &l, errs);
    size_t len = 0;
    char *text = walked == -2 ? NULL : rn_pkg_read(root, "problem.yaml", l.yaml_size, &len, why,
                                                   sizeof why);
    int rc = -1;
    if (walked != -2 && !text)
        common_errors_add(errs, "%s/problem.yaml:0: document: %s%s", dir, why,
                      strstr(why, "limit") ? " (the yaml_size limit)" : "");
    if (text)
        rc = rn_problem_parse(root, dir, text, len, &l, out, errs);
    free(text);
    close(root);
    if (rc == 0 && walked < 0) {       /* the walk's errors refuse the package */
        rn_problem_free(*out);
        *out = NULL;
        rc = -1;
    }
    return rc;
}

/* ---- warnings ---------------------------------------------------------- */

static void points_warning(const struct rn_problem *p, struct common_errors *warns)
{
    double sum = rn_problem_max(p);
    if (sum < 100 - 1e-9 || sum > 100 + 1e-9)
        common_errors_add(warns, "%s/problem.yaml:%d: subtasks: warning: the subtasks' points add up "
                      "to %g, not 100 (a full solution scores %g)", p->dir, p->subtasks_line, sum,
                      sum);
}

/* one line for all of them (a package may have thousands), naming a few */
static void orphan_tests_warning(const struct rn_problem *p, struct common_errors *warns)
{
    bool *in = calloc(p->test_count, sizeof *in);
    if (!in)
        return;
    for (size_t i = 0; i < p->subtask_count; i++)
        for (size_t j = 0; j < p->subtasks[i].test_count; j++)
            in[p->subtasks[i].tests[j]] = true;
    char names[256] = "";
    size_t count = 0, used = 0;
    for (size_t i = 0; i < p->test_count; i++) {
        if (in[i])
            continue;
        char q[COMMON_QUOTE_CAP];
        if (count++ < 5 && used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s'%s'", used ? ", " : "",
                                     common_quote(q, sizeof q, p->tests[i].name, strlen(p->tests[i].name)));
    }
    free(in);
    if (count)
        common_errors_add(warns, "%s/problem.yaml:%d: subtasks: warning: %zu test%s in no subtask (%s%s): "
                      "%s run and can fail the verdict but score no points", p->dir,
                      p->subtasks_line, count, count == 1 ? " is" : "s are", names,
                      count > 5 ? ", ..." : "", count == 1 ? "it is" : "they are");
}

void rn_problem_warnings(const struct rn_problem *p, struct common_errors *warns)
{
    /* the default subtask (no `subtasks:`) holds every test and 100 points */
    if (p->subtask_count > 0 && p->subtasks_line > 0) {
        points_warning(p, warns);
        orphan_tests_warning(p, warns);
    }
    if (p->time_unitless && p->time_limit > 60)
        common_errors_add(warns, "%s/problem.yaml:%d: time_limit: warning: %g has no unit, so it means "
                      "%g seconds; write %gms if milliseconds were meant (or %gs to keep it)", p->dir,
                      p->time_line, p->time_limit, p->time_limit, p->time_limit, p->time_limit);
}
