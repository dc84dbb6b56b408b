/*
 * polygon_solutions.c - a Polygon package's own solutions (problem.xml
 * assets/solutions, each <solution tag=...><source path= type=/>) as the
 * package's expected results: submissions/submissions.yaml in the ICPC
 * 2025-09 draft's schema (a file -> language, permitted and required
 * verdict lists of AC, WA, TLE, RTE), each solution copied to
 * submissions/<its path in the package>, which is where that schema finds
 * the files it names. `problem verify` reads it as it reads an ICPC
 * package's. Polygon's meaning of each tag and the languages of its source
 * types are the two tables below (documented in runner/README.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "polygon.h"

/* Polygon's tag -> the verdicts every test may have (permitted) and one
 * test at least must have (required). The ICPC set has no PE and no MLE:
 * PE is WA there, MLE a run-time error (RTE), as Kattis judges them.
 * "failed" (the checker must fail on it) tests the checker, not a verdict
 * a judge gives: not written, with a warning. */
static const struct pg_tag {
    const char *tag;
    const char *permitted, *required;   /* NULL: the schema's default (any) */
} pg_tags[] = {
    {"main", "[AC]", NULL},
    {"accepted", "[AC]", NULL},
    {"rejected", NULL, "[WA, TLE, RTE]"},
    {"wrong-answer", "[AC, WA]", "[WA]"},
    {"presentation-error", "[AC, WA]", "[WA]"},
    {"time-limit-exceeded", "[AC, TLE]", "[TLE]"},
    {"time-limit-exceeded-or-accepted", "[AC, TLE]", NULL},
    {"time-limit-exceeded-or-memory-limit-exceeded", "[AC, TLE, RTE]", "[TLE, RTE]"},
    {"memory-limit-exceeded", "[AC, RTE]", "[RTE]"},
};

/* Polygon's source type -> this project's language id (languages/ID.yaml).
 * A prefix ends in '.' or is followed by a version digit; a type no row
 * serves is kept as polygon:TYPE and not judged. C++'s g++NN types are
 * judged as `cpp` (GNU C++20, which compiles what they do). */
static const struct pg_language {
    const char *type;    /* exact, or a prefix when it ends in '.' or '*' */
    const char *id;
} pg_languages[] = {
    {"c.", "c"},
    {"cpp.", "cpp"},
    {"java*", "java"},          /* java8, java11, java17, java21 */
    {"python.3", "python3"},
    {"python.pypy3", "pypy3"},
    {"python.pypy3-64", "pypy3"},
    {"pas.fpc", "pascal"},
    {"go", "go"},
    {"rust", "rust"},
    {"rust.", "rust"},
    {"js.", "javascript"},
    {"kotlin", "kotlin"},
    {"kotlin.", "kotlin"},       /* kotlin.1.9 */
    {"kotlin*", "kotlin"},       /* kotlin16, kotlin17 */
    {"csharp.mono", "csharp"},
    {"haskell.ghc", "haskell"},
    {"ocaml", "ocaml"},
    {"ruby", "ruby"},
    {"ruby.", "ruby"},
    {"php", "php"},
    {"php.", "php"},
    {"perl", "perl"},
    {"perl.", "perl"},
    {"d", "d"},
};

static const char *language_of(const char *type)
{
    for (size_t i = 0; i < sizeof pg_languages / sizeof *pg_languages; i++) {
        const char *t = pg_languages[i].type;
        size_t n = strlen(t);
        bool star = t[n - 1] == '*';
        if (star && !strncmp(type, t, n - 1) && type[n - 1] >= '0' && type[n - 1] <= '9')
            return pg_languages[i].id;
        if (!star && t[n - 1] == '.' && !strncmp(type, t, n) && type[n])
            return pg_languages[i].id;
        if (!strcmp(type, t))
            return pg_languages[i].id;
    }
    return NULL;
}

static const struct pg_tag *tag_of(const char *tag)
{
    for (size_t i = 0; i < sizeof pg_tags / sizeof *pg_tags; i++)
        if (!strcmp(tag, pg_tags[i].tag))
            return &pg_tags[i];
    return NULL;
}

/* mkdir -p of rel's directories under dir. */
static int make_parents(const char *dir, const char *rel)
{
    char p[4400];
    int n = snprintf(p, sizeof p, "%s/%s", dir, rel);
    if (n < 0 || (size_t)n >= sizeof p)
        return -1;
    for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        if (mkdir(p, 0755) && errno != EEXIST)
            return -1;
        *s = '/';
    }
    return 0;
}

static int copy_file(const char *dir, const char *from, const char *to)
{
    char src[4400], dst[4400], buf[65536];
    snprintf(src, sizeof src, "%s/%s", dir, from);
    snprintf(dst, sizeof dst, "%s/%s", dir, to);
    if (make_parents(dir, to))
        return -1;
    FILE *in = fopen(src, "rb"), *out = in ? fopen(dst, "wbx") : NULL;
    int rc = in && out ? 0 : -1;
    size_t n;
    while (!rc && (n = fread(buf, 1, sizeof buf, in)) > 0)
        rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
    if (in && ferror(in))
        rc = -1;
    if (out && fclose(out))
        rc = -1;
    if (in)
        fclose(in);
    return rc;
}

/* A path the schema reads as a plain file name, not a glob pattern. */
static bool plain_name(const char *path)
{
    return pg_relative_path(path) && !strpbrk(path, "*?[]{}\"\\:#");
}

/* One <solution>: its entry in out and (copy) its copy under submissions/. */
static int write_solution(const char *dir, xmlNode *sol, FILE *out, bool copy, struct conv_errs *e)
{
    xmlNode *src = pg_child(sol, "source");
    char tag[128], path[600], type[128] = "", q[400], to[700];
    int line = pg_line(sol);
    /* each written into submissions.yaml: no control character or line
     * break (the second pass runs only when the first found no error) */
    int has_tag = pg_scalar(sol, "tag", "solution@tag", tag, sizeof tag, e);
    int has_path = pg_scalar(src, "path", "solution/source@path", path, sizeof path, e);
    int has_type = pg_scalar(src, "type", "solution/source@type", type, sizeof type, e);
    if (has_tag < 0 || has_path < 0 || has_type < 0)
        return 0;
    const struct pg_tag *t = has_tag ? tag_of(tag) : NULL;
    if (!has_path) {
        conv_err(e, "problem.xml:%d: solution/source@path: missing", line);
        return 0;
    }
    char full[4400];
    struct stat st;
    snprintf(full, sizeof full, "%s/%s", dir, path);
    if (!plain_name(path) || stat(full, &st) || !S_ISREG(st.st_mode)) {
        conv_err(e, "problem.xml:%d: solution/source@path: '%s' is not a %s", line, pg_quote(path, q, sizeof q),
                 plain_name(path) ? "file of the package" : "plain relative file name");
        return 0;
    }
    const char *lang = has_type ? language_of(type) : NULL;
    char other[128];
    if (!lang && !type[0]) {
        conv_err(e, "problem.xml:%d: solution/source@type: missing (%s)", pg_line(src), path);
        return 0;
    }
    if (!lang) {
        /* a language no pool here serves (kotlin.1.9, csharp.mono): kept,
         * named polygon:TYPE (never one of this project's ids, which a
         * type like "javascript" would otherwise be); problem verify says
         * it is not judged, never a refused package */
        snprintf(other, sizeof other, "polygon:%.100s", type);
        lang = other;
        if (!copy)
            conv_warn(e, "problem.xml:%d: solution/source@type: warning: '%s' (%s) is not a language this judge "
                         "serves (c.*, cpp.*, javaN, python.3, python.pypy3, pas.fpc, go, rust, js.*, kotlin*, csharp.mono, "
                         "haskell.ghc, ocaml, ruby*, php*, perl*, d): kept as "
                         "language '%s', which problem verify lists as not judged", pg_line(src),
                      pg_quote(type, q, sizeof q), path, lang);
    }
    if (!has_tag || (!t && strcmp(tag, "failed"))) {
        conv_err(e, "problem.xml:%d: solution@tag: '%s' (%s) is not a tag of Polygon's (main, accepted, rejected, "
                    "wrong-answer, presentation-error, time-limit-exceeded, time-limit-exceeded-or-accepted, "
                    "time-limit-exceeded-or-memory-limit-exceeded, memory-limit-exceeded, failed)", line,
                 pg_quote(tag, q, sizeof q), path);
        return 0;
    }
    if (!t) {
        if (copy)   /* said once, on the first pass */
            return 0;
        conv_warn(e, "problem.xml:%d: solution@tag: warning: %s is tagged 'failed' (the checker must fail on it): "
                     "not among the expected results, which are verdicts", line, path);
        return 0;
    }
    snprintf(to, sizeof to, "submissions/%s", path);
    if (copy && copy_file(dir, path, to)) {
        conv_err(e, "problem.xml:%d: solution/source@path: '%s': cannot copy to %s: %s", pg_line(src),
                 pg_quote(path, q, sizeof q), to, strerror(errno));
        return 0;
    }
    if (!out)
        return 1;
    conv_yaml_string(out, path);   /* lossless, whatever YAML makes of a plain key */
    fprintf(out, ":   # Polygon tag %s, type %s\n  language: %s\n", tag, type, lang);
    if (!strcmp(tag, "main"))
        fprintf(out, "  model_solution: true\n");
    if (t->permitted)
        fprintf(out, "  permitted: %s\n", t->permitted);
    if (t->required)
        fprintf(out, "  required: %s\n", t->required);
    return 1;
}

int pg_write_solutions(const char *dir, xmlNode *assets, struct conv_errs *e)
{
    xmlNode *sols = pg_child(assets, "solutions");
    char path[4400];
    snprintf(path, sizeof path, "%s/submissions", dir);
    struct stat st;
    if (!sols)
        return 0;
    if (lstat(path, &st) == 0) {
        conv_err(e, "submissions:0: (package): a Polygon package has no submissions/ of its own; it is where "
                    "the conversion writes the solutions' expected results");
        return 0;
    }
    char *body = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&body, &len);
    if (!out)
        return 0;
    fprintf(out, "# expected results of the Polygon package's solutions (problem.xml assets/solutions),\n"
                 "# written on push in the ICPC 2025-09 draft's schema; the files are copies\n");
    /* every solution read first: nothing is copied for a package refused,
     * for its solutions or anything else */
    int n = 0;
    for (int pass = 0; pass < 2 && (pass == 0 || e->n == 0); pass++)
        for (xmlNode *s = sols->children; s; s = s->next)
            if (s->type == XML_ELEMENT_NODE && !strcmp((const char *)s->name, "solution"))
                n += write_solution(dir, s, pass ? out : NULL, pass == 1, e) && pass;
    fclose(out);
    snprintf(path, sizeof path, "%s/submissions/submissions.yaml", dir);
    FILE *f = n && e->n == 0 ? fopen(path, "w") : NULL;
    if (f) {
        fputs(body, f);
        if (fclose(f))
            conv_err(e, "submissions/submissions.yaml:0: (package): cannot write: %s", strerror(errno));
    } else if (n && e->n == 0) {
        conv_err(e, "submissions/submissions.yaml:0: (package): cannot write: %s", strerror(errno));
    }
    free(body);
    return n;
}
