/*
 * polygon.c - Codeforces Polygon packages (the zip of Polygon's "Package"
 * tab, full kind) converted into the runner's format (runner/README.md),
 * in place; problem.xml is kept as it came:
 *
 *  - judging/testset named "tests" (others ignored with a warning): time
 *    and memory limits, input-/answer-path-pattern expanded per test (a
 *    printf pattern with one %d, read here, never handed to printf),
 *    test-count, per test group/points/sample; groups with points-policy
 *    and dependencies -> subtasks;
 *  - assets/checker: a std:: checker with a built-in equivalent becomes
 *    it, any other the shipped source with protocol testlib;
 *    assets/interactor -> the runner's interactor, protocol testlib;
 *  - assets/solutions -> submissions/submissions.yaml (polygon_solutions.c).
 *
 * A package whose tests must still be generated (Polygon's standard
 * package: generator sources and doall scripts, no generated tests) is
 * refused naming the reason: running generators needs a sandbox, which
 * judged/store does not know.
 */
#include <errno.h>
#include <libxml/parser.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "convert.h"
#include "polygon.h"
#include "store.h"

/* problem.xml of a real package is tens of KiB (a line per test); the
 * runner's own problem.yaml may be 1 MiB. */
#define PG_XML_MAX (4u << 20)
/* the runner's default `tests` limit */
#define PG_MAX_TESTS 10000
/* the runner's bound on subtasks: groups and each-test groups' tests past
 * it are refused here, which also bounds the work and the output of the
 * conversion (a dependency list per subtask) */
#define PG_MAX_SUBTASKS 1000
/* errors listed per kind of missing file before "... and N more" */
#define PG_MISSING_LISTED 5
/* the runner's default yaml_size: a problem.yaml it would refuse is not
 * written past it (each-test groups' dependencies name a subtask per test
 * per subtask: within the XML cap, far more than a judging host reads) */
#define PG_YAML_MAX (1u << 20)

struct pg_test {
    char group[128];
    double points;
    bool generated;
    int line;
};

struct pg_group {
    char name[128];
    double points;      /* complete-group: the group's worth */
    bool each_test;     /* points-policy each-test: every test its own subtask */
    xmlNode *node;      /* its <group>; NULL when only tests name it */
    int *tests, ntests; /* its tests' indexes, in order */
    int *deps, ndeps;   /* the groups it depends on (indexes, each once, earlier) */
};

struct pg_testset {
    xmlNode *node;
    double time_ms;
    double memory;
    char in_pat[256], ans_pat[256];
    int in_line, ans_line;
    int count;
    struct pg_test *tests;
    struct pg_group *groups;
    int ngroups;
    bool points;        /* some test or group is worth points */
    int too_many_groups;
};

/* ---- reading problem.xml ---- */

xmlNode *pg_child(xmlNode *n, const char *name)
{
    for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name))
            return c;
    return NULL;
}

const char *pg_attr(xmlNode *n, const char *name, char *buf, size_t len)
{
    xmlChar *v = n ? xmlGetNoNsProp(n, (const xmlChar *)name) : NULL;
    if (!v)
        return NULL;
    snprintf(buf, len, "%s", (const char *)v);
    xmlFree(v);
    return buf;
}

/* The length of a control character or a line break YAML knows at s
 * (C0, DEL, C1 as UTF-8, U+2028, U+2029) and its code point; 0 if none. */
static size_t yaml_break_at(const unsigned char *s, unsigned *cp)
{
    if (s[0] < 0x20 || s[0] == 0x7f)
        return *cp = s[0], 1;
    if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
        return *cp = s[1], 2;
    if (s[0] == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9))
        return *cp = 0x2000u + (s[2] & 0x3f), 3;
    return 0;
}

int pg_scalar(xmlNode *n, const char *name, const char *key, char *buf, size_t len, struct conv_errs *e)
{
    xmlChar *v = n ? xmlGetNoNsProp(n, (const xmlChar *)name) : NULL;
    buf[0] = 0;
    if (!v)
        return 0;
    const unsigned char *s = v;
    char q[400];
    size_t l = strlen((const char *)s);
    int rc = 1;
    unsigned cp = 0;
    for (size_t i = 0; i < l && rc > 0; i++)
        if (yaml_break_at(s + i, &cp)) {
            char shown[16];
            snprintf(shown, sizeof shown, cp < 0x20 || cp == 0x7f ? "\\x%02x" : "U+%04X", cp);
            conv_err(e, "problem.xml:%d: %s: a control character or line break (%s) in '%s'", pg_line(n), key,
                     shown, pg_quote((const char *)s, q, sizeof q));
            rc = -1;
        }
    if (rc > 0 && l >= len) {
        conv_err(e, "problem.xml:%d: %s: longer than %zu bytes: '%s...'", pg_line(n), key, len - 1,
                 pg_quote((const char *)s, q, sizeof q));
        rc = -1;
    }
    snprintf(buf, len, "%s", rc > 0 ? (const char *)s : "");
    xmlFree(v);
    return rc;
}

int pg_line(xmlNode *n)
{
    long l = n ? xmlGetLineNo(n) : 0;
    return l > 0 && l < 1000000000 ? (int)l : 0;
}

const char *pg_quote(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; s[i] && i < 80 && o + 7 < len; i++) {
        unsigned char c = (unsigned char)s[i];
        unsigned cp;
        size_t brk = yaml_break_at((const unsigned char *)s + i, &cp);
        if (brk > 1) {   /* a line break as UTF-8 (NEL, U+2028): shown, not written */
            o += (size_t)snprintf(buf + o, len - o, "\\u%04x", cp);
            i += brk - 1;
        } else if (c < 0x20 || c == 0x7f || c == '\'' || c == '\\')
            o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
        else
            buf[o++] = (char)c;
    }
    buf[o] = 0;
    return buf;
}

bool pg_relative_path(const char *rel)
{
    if (!rel[0] || rel[0] == '/')
        return false;
    for (const char *s = rel; *s; s++)
        if ((unsigned char)*s < 0x20)
            return false;
    for (const char *s = rel; s; s = strchr(s, '/')) {
        if (*s == '/')
            s++;
        if (!strncmp(s, "..", 2) && (s[2] == '/' || !s[2]))
            return false;
    }
    return true;
}

/* The element's text as a number (Polygon writes plain decimals). */
static bool element_number(xmlNode *n, double *out)
{
    xmlChar *t = n ? xmlNodeGetContent(n) : NULL;
    if (!t)
        return false;
    char *end;
    errno = 0;
    double v = strtod((const char *)t, &end);
    while (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r')
        end++;
    bool ok = end != (char *)t && !*end && !errno && isfinite(v) && v >= 0;
    xmlFree(t);
    *out = v;
    return ok;
}

static bool attr_number(xmlNode *n, const char *name, double *out)
{
    char buf[64], *end;
    if (!pg_attr(n, name, buf, sizeof buf))
        return false;
    *out = strtod(buf, &end);
    return end != buf && !*end && isfinite(*out) && *out >= 0;
}

static bool element_text(xmlNode *n, char *buf, size_t len)
{
    xmlChar *t = n ? xmlNodeGetContent(n) : NULL;
    if (!t)
        return false;
    snprintf(buf, len, "%s", (const char *)t);
    xmlFree(t);
    buf[strcspn(buf, "\r\n")] = 0;
    return true;
}

/* problem.xml parsed without network, DTD loading or entity substitution;
 * a document with a DOCTYPE is refused outright (entities declared in an
 * untrusted file are what XML bombs and external-entity reads are made of,
 * and Polygon writes none). */
/* libxml2 reports some input errors (an encoding it cannot convert) on
 * stderr besides the parser context; they are in the context's error too */
static void no_generic_errors(void *ctx, const char *msg, ...)
{
    (void)ctx, (void)msg;
}

static void init_libxml(void)
{
    xmlInitParser();
}

static xmlDoc *read_xml(const char *dir, struct conv_errs *e)
{
    /* judge-api converts uploads on its connection threads: libxml2's
     * globals are set up once, before any of them parses */
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_libxml);
    xmlSetGenericErrorFunc(NULL, no_generic_errors);   /* this thread's */
    char path[4400];
    snprintf(path, sizeof path, "%s/problem.xml", dir);
    FILE *f = fopen(path, "rb");
    if (!f) {
        conv_err(e, "problem.xml:0: (package): cannot read: %s", strerror(errno));
        return NULL;
    }
    char *buf = malloc(PG_XML_MAX + 1);
    size_t n = buf ? fread(buf, 1, PG_XML_MAX + 1, f) : 0;
    fclose(f);
    if (!buf || n > PG_XML_MAX) {
        conv_err(e, "problem.xml:0: (xml): larger than %u bytes", PG_XML_MAX);
        free(buf);
        return NULL;
    }
    xmlParserCtxt *ctx = xmlNewParserCtxt();
    xmlDoc *doc = ctx ? xmlCtxtReadMemory(ctx, buf, (int)n, "problem.xml", NULL,
                                          XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)
                      : NULL;
    const char *doctype = doc && (doc->intSubset || doc->extSubset) ? memmem(buf, n, "<!DOCTYPE", 9) : NULL;
    int doctype_line = 1;
    for (const char *c = buf; doctype && c < doctype; c++)
        doctype_line += *c == '\n';
    free(buf);
    if (!doc) {
        const xmlError *x = ctx ? xmlCtxtGetLastError(ctx) : NULL;
        char q[400];
        conv_err(e, "problem.xml:%d: (xml): %s", x ? x->line : 0,
                 x && x->message ? pg_quote(x->message, q, sizeof q) : "not well-formed XML");
    } else if (doc->intSubset || doc->extSubset) {
        conv_err(e, "problem.xml:%d: (xml): a DOCTYPE is not accepted (entity declarations in an untrusted file; "
                    "Polygon writes none)", doctype_line);
        xmlFreeDoc(doc);
        doc = NULL;
    }
    xmlFreeParserCtxt(ctx);
    return doc;
}

/* ---- tests: patterns and files ---- */

/* The one %d of a Polygon path pattern ("tests/%02d", "tests/%02d.a"):
 * '%', an optional '0', a width of at most two digits, 'd'; "%%" is a
 * '%'. Anything else is refused: the pattern is package text and never
 * reaches printf. 0 and the path in out, -1 for a bad pattern. */
static int expand_pattern(const char *pat, int number, char *out, size_t len)
{
    size_t o = 0;
    int conversions = 0;
    for (const char *s = pat; *s; s++) {
        char piece[64];
        if (*s != '%') {
            piece[0] = *s, piece[1] = 0;
        } else if (s[1] == '%') {
            piece[0] = '%', piece[1] = 0, s++;
        } else {
            bool zero = s[1] == '0';
            const char *w = s + 1 + zero;
            int width = 0, digits = 0;
            while (*w >= '0' && *w <= '9' && digits < 3)
                width = width * 10 + (*w++ - '0'), digits++;
            if (*w != 'd' || digits > 2 || conversions++)
                return -1;
            snprintf(piece, sizeof piece, zero ? "%0*d" : "%*d", width, number);
            s = w;
        }
        size_t pl = strlen(piece);
        if (o + pl >= len)
            return -1;
        memcpy(out + o, piece, pl + 1);
        o += pl;
    }
    return conversions == 1 && pg_relative_path(out) ? 0 : -1;
}

static bool regular_file(const char *dir, const char *rel)
{
    char p[4400];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool any_file(const char *dir, const char *rel)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return access(p, F_OK) == 0;
}

/* What Polygon's standard package holds instead of generated tests. */
static const char *generation_hint(const char *dir)
{
    if (any_file(dir, "doall.sh") || any_file(dir, "doall.bat"))
        return "it has doall scripts and generator sources, not the tests they make";
    return "its tests are generated (method=\"generated\") and not in the package";
}

/* Every test's input and answer named by the patterns must be a file. A
 * generated test without its files means the package is Polygon's
 * standard one: one error saying so, however many tests are missing. */
static void check_test_files(const char *dir, struct pg_testset *ts, struct conv_errs *e)
{
    int missing = 0, generated = 0, first_generated = 0;
    char q[400], q2[400];
    for (int i = 0; i < ts->count; i++) {
        char in[600], ans[600];
        expand_pattern(ts->in_pat, i + 1, in, sizeof in);
        expand_pattern(ts->ans_pat, i + 1, ans, sizeof ans);
        bool has_in = regular_file(dir, in), has_ans = regular_file(dir, ans);
        if (has_in && has_ans)
            continue;
        if (ts->tests[i].generated && !has_in) {
            if (!generated++)
                first_generated = i;
            continue;
        }
        if (missing++ < PG_MISSING_LISTED)
            conv_err(e, "problem.xml:%d: testset/%s-path-pattern: '%s' names no file for test %d (%s)",
                     has_in ? ts->ans_line : ts->in_line, has_in ? "answer" : "input",
                     pg_quote(has_in ? ts->ans_pat : ts->in_pat, q, sizeof q), i + 1,
                     pg_quote(has_in ? ans : in, q2, sizeof q2));
    }
    if (missing > PG_MISSING_LISTED)
        conv_err(e, "problem.xml:%d: testset: ... and %d more tests without their files", ts->in_line,
                 missing - PG_MISSING_LISTED);
    if (generated)
        conv_err(e, "problem.xml:%d: testset/tests/test: %d generated test%s (the first: test %d) %s not in the "
                    "package: %s; push Polygon's full package (Package tab: \"Full\"), which holds the generated "
                    "tests (generators are not run on push)",
                 ts->tests[first_generated].line, generated, generated == 1 ? "" : "s", first_generated + 1,
                 generated == 1 ? "is" : "are", generation_hint(dir));
}

/* ---- testset: limits, tests, groups ---- */

static struct pg_group *group_named(struct pg_testset *ts, const char *name)
{
    for (int i = 0; i < ts->ngroups; i++)
        if (!strcmp(ts->groups[i].name, name))
            return &ts->groups[i];
    return NULL;
}

static struct pg_group *add_group(struct pg_testset *ts, const char *name, int line, struct conv_errs *e)
{
    if (ts->ngroups == PG_MAX_SUBTASKS) {
        if (!ts->too_many_groups++)
            conv_err(e, "problem.xml:%d: test@group: more than %d groups (the runner judges at most %d subtasks)",
                     line, PG_MAX_SUBTASKS, PG_MAX_SUBTASKS);
        return NULL;
    }
    struct pg_group *g = realloc(ts->groups, (size_t)(ts->ngroups + 1) * sizeof *g);
    if (!g) {
        conv_err(e, "problem.xml:%d: test@group: out of memory", line);
        return NULL;
    }
    ts->groups = g;
    g = &ts->groups[ts->ngroups++];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    return g;
}

static void read_patterns(xmlNode *set, struct pg_testset *ts, struct conv_errs *e)
{
    static const char *keys[] = {"input-path-pattern", "answer-path-pattern"};
    for (int k = 0; k < 2; k++) {
        xmlNode *n = pg_child(set, keys[k]);
        char *pat = k ? ts->ans_pat : ts->in_pat, out[600], q[400];
        *(k ? &ts->ans_line : &ts->in_line) = pg_line(n ? n : set);
        if (!n || !element_text(n, pat, sizeof ts->in_pat)) {
            conv_err(e, "problem.xml:%d: testset/%s: missing", pg_line(set), keys[k]);
            pat[0] = 0;
        } else if (expand_pattern(pat, 1, out, sizeof out)) {
            conv_err(e, "problem.xml:%d: testset/%s: '%s' is not a path pattern with one %%d (such as tests/%%02d) "
                        "inside the package", pg_line(n), keys[k], pg_quote(pat, q, sizeof q));
            pat[0] = 0;
        }
    }
}

static void read_limits(xmlNode *set, struct pg_testset *ts, struct conv_errs *e)
{
    xmlNode *tl = pg_child(set, "time-limit"), *ml = pg_child(set, "memory-limit");
    if (!element_number(tl, &ts->time_ms) || ts->time_ms <= 0)
        conv_err(e, "problem.xml:%d: testset/time-limit: %s", pg_line(tl ? tl : set),
                 tl ? "expected a positive number of milliseconds" : "missing");
    else if (ts->time_ms > COMMON_MAX_TIME_LIMIT * 1000)
        conv_err(e, "problem.xml:%d: testset/time-limit: %.0f ms is over the largest a problem may have (%.0f ms)",
                 pg_line(tl), ts->time_ms, COMMON_MAX_TIME_LIMIT * 1000);
    if (!element_number(ml, &ts->memory) || ts->memory < 1024)
        conv_err(e, "problem.xml:%d: testset/memory-limit: %s", pg_line(ml ? ml : set),
                 ml ? "expected a number of bytes (at least 1024)" : "missing");
}

/* <test group= points= sample= method= cmd=/>, test-count of them. */
static void read_tests(xmlNode *set, struct pg_testset *ts, struct conv_errs *e)
{
    xmlNode *count = pg_child(set, "test-count"), *tests = pg_child(set, "tests");
    double c = 0;
    if (!element_number(count, &c) || c != floor(c) || c > PG_MAX_TESTS) {
        conv_err(e, "problem.xml:%d: testset/test-count: %s", pg_line(count ? count : set),
                 count ? "expected a whole number of tests, at most 10000" : "missing");
        return;
    }
    ts->count = (int)c;
    ts->tests = calloc((size_t)ts->count + 1, sizeof *ts->tests);
    int i = 0;
    for (xmlNode *t = tests ? tests->children : NULL; t && ts->tests; t = t->next) {
        if (t->type != XML_ELEMENT_NODE || strcmp((const char *)t->name, "test"))
            continue;
        if (i == ts->count) {
            i++;
            break;
        }
        struct pg_test *pt = &ts->tests[i++];
        char buf[64];
        pt->line = pg_line(t);
        pg_scalar(t, "group", "test@group", pt->group, sizeof pt->group, e);
        pt->generated = pg_attr(t, "method", buf, sizeof buf) && !strcmp(buf, "generated");
        if (pg_attr(t, "points", buf, sizeof buf) && !attr_number(t, "points", &pt->points))
            conv_err(e, "problem.xml:%d: test@points: expected a number of points", pt->line);
        ts->points = ts->points || pt->points > 0;
        if (pt->group[0] && !group_named(ts, pt->group))
            add_group(ts, pt->group, pt->line, e);
    }
    if (i != ts->count)
        conv_err(e, "problem.xml:%d: testset/test-count: %d, but testset/tests lists %s%d <test> elements",
                 pg_line(count), ts->count, i > ts->count ? "more than " : "", i > ts->count ? ts->count : i);
}

/* <groups><group name= points= points-policy= feedback-policy=>
 * <dependencies><dependency group=/>. feedback-policy changes what a
 * contestant is shown, not a verdict or a score: not kept. */
static void read_groups(xmlNode *set, struct pg_testset *ts, struct conv_errs *e)
{
    xmlNode *groups = pg_child(set, "groups");
    for (xmlNode *g = groups ? groups->children : NULL; g; g = g->next) {
        if (g->type != XML_ELEMENT_NODE || strcmp((const char *)g->name, "group"))
            continue;
        char name[128], policy[64], q[400];
        int has = pg_scalar(g, "name", "group@name", name, sizeof name, e);
        if (has == 0)
            conv_err(e, "problem.xml:%d: group@name: missing", pg_line(g));
        if (has <= 0)
            continue;
        struct pg_group *pg = group_named(ts, name);
        if (!pg) {   /* a group no test is in: nothing to judge */
            conv_warn(e, "problem.xml:%d: group@name: warning: group '%s' holds no test", pg_line(g),
                      pg_quote(name, q, sizeof q));
            continue;
        }
        pg->node = g;
        if (pg_attr(g, "points", policy, sizeof policy) && !attr_number(g, "points", &pg->points))
            conv_err(e, "problem.xml:%d: group@points: expected a number of points", pg_line(g));
        ts->points = ts->points || pg->points > 0;
        if (!pg_attr(g, "points-policy", policy, sizeof policy) || !strcmp(policy, "complete-group"))
            pg->each_test = false;
        else if (!strcmp(policy, "each-test"))
            pg->each_test = true;
        else
            conv_err(e, "problem.xml:%d: group@points-policy: '%s' (expected complete-group or each-test)",
                     pg_line(g), pg_quote(policy, q, sizeof q));
    }
}

/* Each group's tests, in order: what its subtasks and those depending on
 * it list, found once rather than by a scan of every test per name. */
static void list_group_tests(struct pg_testset *ts, struct conv_errs *e)
{
    int *of = calloc((size_t)ts->count + 1, sizeof *of);   /* each test's group, -1 none */
    for (int i = 0; of && i < ts->count; i++) {
        struct pg_group *g = ts->tests[i].group[0] ? group_named(ts, ts->tests[i].group) : NULL;
        of[i] = g ? (int)(g - ts->groups) : -1;
        if (g)
            g->ntests++;
    }
    for (int g = 0; of && g < ts->ngroups; g++) {
        ts->groups[g].tests = calloc((size_t)ts->groups[g].ntests + 1, sizeof(int));
        ts->groups[g].ntests = 0;
        if (!ts->groups[g].tests) {
            free(of);
            of = NULL;
        }
    }
    if (!of) {
        conv_err(e, "problem.xml:%d: testset/tests: out of memory", pg_line(ts->node));
        for (int g = 0; g < ts->ngroups; g++)
            ts->groups[g].ntests = 0;
        return;
    }
    for (int i = 0; i < ts->count; i++)
        if (of[i] >= 0)
            ts->groups[of[i]].tests[ts->groups[of[i]].ntests++] = i;
    free(of);
}

/* One group's <dependency group=/> list: each an earlier group, named
 * once. The first bad one is said and ends the group's list, so a
 * problem.xml of repeats costs one error, and the list the writer expands
 * (a name per test of an each-test group, in every subtask of this one)
 * holds at most the groups before it. first_line: scratch, a line per
 * group. */
static void read_dependencies(struct pg_testset *ts, struct pg_group *g, int *first_line, struct conv_errs *e)
{
    xmlNode *deps = pg_child(g->node, "dependencies");
    int self = (int)(g - ts->groups);
    char name[128], q[400], q2[400];
    memset(first_line, 0, (size_t)ts->ngroups * sizeof *first_line);
    if (deps && !(g->deps = calloc((size_t)ts->ngroups, sizeof *g->deps))) {
        conv_err(e, "problem.xml:%d: group/dependencies: out of memory", pg_line(deps));
        return;
    }
    for (xmlNode *d = deps ? deps->children : NULL; d; d = d->next) {
        if (d->type != XML_ELEMENT_NODE || strcmp((const char *)d->name, "dependency"))
            continue;
        int has = pg_scalar(d, "group", "dependency@group", name, sizeof name, e);
        if (has < 0)
            return;
        const struct pg_group *dg = has ? group_named(ts, name) : NULL;
        int at = dg ? (int)(dg - ts->groups) : -1;
        if (!dg || at >= self) {
            conv_err(e, "problem.xml:%d: dependency@group: '%s' %s", pg_line(d), pg_quote(name, q, sizeof q),
                     !dg ? "is not a group of the testset" : "is not an earlier group (the runner judges groups in "
                                                             "order and needs a dependency judged first)");
            return;
        }
        if (first_line[at]) {
            conv_err(e, "problem.xml:%d: dependency@group: '%s' is named twice among group '%s''s dependencies "
                        "(first at line %d)", pg_line(d), pg_quote(name, q, sizeof q),
                     pg_quote(g->name, q2, sizeof q2), first_line[at]);
            return;
        }
        first_line[at] = pg_line(d) ? pg_line(d) : -1;
        g->deps[g->ndeps++] = at;
    }
}

static void read_all_dependencies(struct pg_testset *ts, struct conv_errs *e)
{
    int *first_line = calloc((size_t)ts->ngroups + 1, sizeof *first_line);
    for (int g = 0; first_line && g < ts->ngroups; g++)
        if (ts->groups[g].node)
            read_dependencies(ts, &ts->groups[g], first_line, e);
    free(first_line);
}

/* The testset named "tests" of <judging>; others (pretests, a stress
 * set) are not what a submission is judged on here. */
static xmlNode *find_testset(xmlNode *judging, struct conv_errs *e)
{
    xmlNode *found = NULL;
    char name[128], q[400];
    for (xmlNode *s = judging ? judging->children : NULL; s; s = s->next) {
        if (s->type != XML_ELEMENT_NODE || strcmp((const char *)s->name, "testset"))
            continue;
        if (pg_attr(s, "name", name, sizeof name) && !strcmp(name, "tests") && !found)
            found = s;
        else
            conv_warn(e, "problem.xml:%d: judging/testset: warning: testset '%s' ignored (only the testset "
                         "named 'tests' is judged)", pg_line(s), pg_quote(pg_attr(s, "name", name, sizeof name)
                                                                         ? name : "", q, sizeof q));
    }
    return found;
}

/* judging@input-file / output-file name files a submission reads and
 * writes instead of stdin and stdout (empty, or stdin / stdout: none):
 * the runner's input_file / output_file. Only a plain name fits in the
 * program's working dir. */
static void check_io_files(xmlNode *judging, struct conv_errs *e)
{
    static const char *keys[] = {"input-file", "output-file"};
    char v[256], q[400];
    for (int k = 0; k < 2; k++) {
        if (!pg_attr(judging, keys[k], v, sizeof v) || !v[0] || !strcmp(v, k ? "stdout" : "stdin"))
            continue;
        bool plain = strlen(v) <= 100 && strcmp(v, ".") && strcmp(v, "..") && v[0] != '-';
        for (const char *c = v; plain && *c; c++)
            plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                    strchr("._-", *c);
        if (!plain)
            conv_err(e, "problem.xml:%d: judging@%s: '%s' is not a plain file name (letters, digits, '.', "
                        "'_', '-'; at most 100)", pg_line(judging), keys[k], pg_quote(v, q, sizeof q));
    }
}

/* the checked names as the runner's keys */
static void write_io_files(xmlNode *judging, FILE *out)
{
    static const char *keys[] = {"input-file", "output-file"}, *runner_keys[] = {"input_file", "output_file"};
    char v[256];
    for (int k = 0; k < 2; k++)
        if (pg_attr(judging, keys[k], v, sizeof v) && v[0] && strcmp(v, k ? "stdout" : "stdin")) {
            fprintf(out, "%s: ", runner_keys[k]);
            conv_yaml_string(out, v);
            fprintf(out, "\n");
        }
}

/* ---- checker and interactor ---- */

/* std:: checkers with a built-in that judges the same (testlib says PE
 * where these say WA for output that is not even of the right kind: a
 * word where yesno wants YES or NO, a word where rcmp wants a number). */
static const struct std_checker {
    const char *name;
    const char *yaml;
} std_checkers[] = {
    {"std::wcmp.cpp", "tokens"},
    {"std::rcmp4.cpp", "{type: float, epsilon: 1e-4}"},
    {"std::rcmp6.cpp", "{type: float, epsilon: 1e-6}"},
    {"std::rcmp9.cpp", "{type: float, epsilon: 1e-9}"},
    {"std::yesno.cpp", "{type: tokens, case_sensitive: false}"},
};

/* <source path= type=> of an asset: the path, which must be a file. */
static const char *asset_source(const char *dir, xmlNode *asset, const char *key, char *path, size_t len,
                                struct conv_errs *e)
{
    xmlNode *src = pg_child(asset, "source");
    char q[400], what[64];
    snprintf(what, sizeof what, "%s/source@path", key);
    int has = pg_scalar(src, "path", what, path, len, e);
    if (has == 0)
        conv_err(e, "problem.xml:%d: %s/source@path: missing", pg_line(src ? src : asset), key);
    if (has <= 0)
        return NULL;
    if (!pg_relative_path(path) || !regular_file(dir, path)) {
        conv_err(e, "problem.xml:%d: %s/source@path: '%s' is not a file of the package", pg_line(src), key,
                 pg_quote(path, q, sizeof q));
        return NULL;
    }
    return path;
}

static void write_checker(const char *dir, xmlNode *assets, FILE *out, struct conv_errs *e)
{
    xmlNode *checker = pg_child(assets, "checker");
    char name[256] = "", type[64], path[600];
    if (!checker) {
        conv_err(e, "problem.xml:%d: assets/checker: missing", pg_line(assets));
        return;
    }
    if (pg_scalar(checker, "type", "checker@type", type, sizeof type, e) > 0 && strcmp(type, "testlib"))
        conv_err(e, "problem.xml:%d: checker@type: '%s' (only testlib checkers are converted)", pg_line(checker),
                 pg_quote(type, path, sizeof path));
    if (pg_scalar(checker, "name", "checker@name", name, sizeof name, e) < 0)
        return;
    for (size_t i = 0; i < sizeof std_checkers / sizeof *std_checkers; i++)
        if (!strcmp(name, std_checkers[i].name)) {
            fprintf(out, "checker: %s   # Polygon's %s\n", std_checkers[i].yaml, name);
            return;
        }
    if (!asset_source(dir, checker, "checker", path, sizeof path, e))
        return;
    fprintf(out, "checker: {type: custom, source: ");
    conv_yaml_string(out, path);
    fprintf(out, ", protocol: testlib}\n");
}

static bool write_interactor(const char *dir, xmlNode *assets, FILE *out, struct conv_errs *e)
{
    xmlNode *interactor = pg_child(assets, "interactor");
    char path[600];
    if (!interactor)
        return false;
    if (asset_source(dir, interactor, "interactor", path, sizeof path, e)) {
        fprintf(out, "interactor: {source: ");
        conv_yaml_string(out, path);
        fprintf(out, ", protocol: testlib}\n");
    }
    return true;
}

/* ---- subtasks ---- */

static void each_test_name(FILE *out, const struct pg_group *g, int test)
{
    char name[160];
    snprintf(name, sizeof name, "%s-%d", g->name, test + 1);
    conv_yaml_string(out, name);
}

/* ", depends: [...]}" of one subtask of g: each dependency's subtask, or
 * every per-test subtask of an each-test one (all its tests must pass). */
static void write_depends(const struct pg_testset *ts, const struct pg_group *g, FILE *out)
{
    int n = 0;
    for (int d = 0; d < g->ndeps && !ferror(out); d++) {
        const struct pg_group *dg = &ts->groups[g->deps[d]];
        if (!dg->each_test) {
            fprintf(out, "%s", n++ ? ", " : ", depends: [");
            conv_yaml_string(out, dg->name);
            continue;
        }
        for (int i = 0; i < dg->ntests && !ferror(out); i++) {
            fprintf(out, "%s", n++ ? ", " : ", depends: [");
            each_test_name(out, dg, dg->tests[i]);
        }
    }
    fprintf(out, "%s}\n", n ? "]" : "");
}

/* "- {name: N, points: P, tests: [...], depends: [...]}" for one group's
 * subtask(s); each-test: one subtask per test, named GROUP-TEST. */
static void write_group(const struct pg_testset *ts, const struct pg_group *g, FILE *out)
{
    if (g->each_test) {
        for (int i = 0; i < g->ntests && !ferror(out); i++) {
            fprintf(out, "  - {name: ");
            each_test_name(out, g, g->tests[i]);
            fprintf(out, ", points: %.17g, tests: [%d]", ts->tests[g->tests[i]].points, g->tests[i] + 1);
            write_depends(ts, g, out);
        }
        return;
    }
    /* complete-group: the group's points, else its tests' sum (Polygon
     * fills the group's from them) */
    double points = g->points;
    if (!g->node || points <= 0)
        for (int i = 0; i < g->ntests; i++)
            points += ts->tests[g->tests[i]].points;
    fprintf(out, "  - {name: ");
    conv_yaml_string(out, g->name);
    fprintf(out, ", points: %.17g, tests: [", points);
    for (int i = 0; i < g->ntests && !ferror(out); i++)
        fprintf(out, "%s%d", i ? ", " : "", g->tests[i] + 1);
    fprintf(out, "]");
    write_depends(ts, g, out);
}

/* Whether out stopped at PG_YAML_MAX (bounded_write); said once, naming
 * what was being written. */
static bool over_yaml_max(FILE *out, int line, const char *what, struct conv_errs *e)
{
    if (!ferror(out))
        return false;
    conv_err(e, "problem.xml:%d: %s make problem.yaml larger than %u bytes, the most the runner reads (yaml_size)",
             line, what, PG_YAML_MAX);
    return true;
}

/* With points: groups become subtasks in their order; a test in no group
 * is its own subtask of its points (Polygon sums tests' points). Without
 * points the problem is pass/fail: the runner's one subtask, and the
 * first failure decides (as Polygon's ICPC-style problems). */
static void write_subtasks(struct pg_testset *ts, FILE *out, struct conv_errs *e)
{
    if (!ts->points) {
        fprintf(out, "stop_on_failure: all\n");
        return;
    }
    int subtasks = 0;
    for (int i = 0; i < ts->count; i++) {
        const struct pg_group *g = ts->tests[i].group[0] ? group_named(ts, ts->tests[i].group) : NULL;
        subtasks += !g || g->each_test;
    }
    for (int g = 0; g < ts->ngroups; g++)
        subtasks += !ts->groups[g].each_test;
    if (subtasks > PG_MAX_SUBTASKS) {
        conv_err(e, "problem.xml:%d: testset/groups: %d subtasks (a group each, a test each of each-test groups "
                    "and of no group); the runner judges at most %d", pg_line(ts->node), subtasks, PG_MAX_SUBTASKS);
        return;
    }
    fprintf(out, "subtasks:\n");
    for (int g = 0; g < ts->ngroups; g++) {
        const struct pg_group *pg = &ts->groups[g];
        char what[400], q[400];
        write_group(ts, pg, out);
        snprintf(what, sizeof what, "groups/group: the subtasks of group '%s' (%d test%s, depending on %d group%s)",
                 pg_quote(pg->name, q, sizeof q), pg->ntests, pg->ntests == 1 ? "" : "s", pg->ndeps,
                 pg->ndeps == 1 ? "" : "s");
        if (over_yaml_max(out, pg_line(pg->node ? pg->node : ts->node), what, e))
            return;
    }
    for (int i = 0; i < ts->count && !ferror(out); i++)
        if (!ts->tests[i].group[0])
            fprintf(out, "  - {name: \"test-%d\", points: %.17g, tests: [%d]}\n", i + 1, ts->tests[i].points, i + 1);
    fprintf(out, "stop_on_failure: subtask\n");
    over_yaml_max(out, pg_line(ts->node), "testset/tests: the subtasks of tests in no group", e);
}

/* ---- the converted problem.yaml ---- */

static void write_title(xmlNode *root, FILE *out, struct conv_errs *e)
{
    xmlNode *names = pg_child(root, "names"), *first = NULL;
    char value[512], lang[64];
    for (xmlNode *n = names ? names->children : NULL; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, "name"))
            continue;
        if (!first || (pg_attr(n, "language", lang, sizeof lang) && !strcmp(lang, "english")))
            first = n;
    }
    if (pg_scalar(first, "value", "name@value", value, sizeof value, e) > 0) {
        fprintf(out, "title: ");
        conv_yaml_string(out, value);
        fprintf(out, "\n");
    }
}

static void write_tests(const struct pg_testset *ts, FILE *out)
{
    fprintf(out, "tests:\n");
    for (int i = 0; i < ts->count && !ferror(out); i++) {
        char in[600], ans[600];
        expand_pattern(ts->in_pat, i + 1, in, sizeof in);
        expand_pattern(ts->ans_pat, i + 1, ans, sizeof ans);
        fprintf(out, "  - {name: \"%d\", input: ", i + 1);
        conv_yaml_string(out, in);
        fprintf(out, ", output: ");
        conv_yaml_string(out, ans);
        fprintf(out, "}\n");
    }
}

static void read_testset(const char *dir, xmlNode *set, struct pg_testset *ts, struct conv_errs *e)
{
    ts->node = set;
    read_limits(set, ts, e);
    read_patterns(set, ts, e);
    read_tests(set, ts, e);
    read_groups(set, ts, e);
    list_group_tests(ts, e);
    read_all_dependencies(ts, e);
    if (ts->tests && ts->in_pat[0] && ts->ans_pat[0])
        check_test_files(dir, ts, e);
    if (ts->count == 0 && ts->tests)
        conv_err(e, "problem.xml:%d: testset/test-count: no tests", pg_line(set));
}

static void write_converted(const char *dir, const char *name, xmlNode *root, struct pg_testset *ts, FILE *out,
                            struct conv_errs *e)
{
    xmlNode *assets = pg_child(root, "assets");
    fprintf(out, "# converted from a Polygon package (problem.xml, kept as it came) on push\nname: ");
    conv_yaml_string(out, name);
    fprintf(out, "\n");
    write_title(root, out, e);
    /* Polygon's limits are per test, CPU time in ms and memory in bytes */
    fprintf(out, "time_limit: %.3fs\nmemory_limit: %.0f\n", ts->time_ms / 1000.0, ts->memory);
    write_io_files(pg_child(root, "judging"), out);
    char *body = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&body, &len);
    if (!mem) {
        conv_err(e, "problem.xml:0: (package): out of memory");
        return;
    }
    bool interactive = write_interactor(dir, assets, mem, e);
    write_checker(dir, assets, mem, e);
    fclose(mem);
    fprintf(out, "type: %s\n%s", interactive ? "interactive" : "batch", body ? body : "");
    free(body);
    write_tests(ts, out);
    if (!over_yaml_max(out, ts->in_line, "testset/input-path-pattern, answer-path-pattern: the tests' paths", e))
        write_subtasks(ts, out, e);
}

bool polygon_detect(const char *dir)
{
    char p[4400];
    struct stat st;
    snprintf(p, sizeof p, "%s/problem.yaml", dir);
    if (lstat(p, &st) == 0)   /* a runner package (a converted one keeps problem.xml) */
        return false;
    snprintf(p, sizeof p, "%s/problem.xml", dir);
    return lstat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* problem.yaml's writer: the file, and what was written of it. Past
 * PG_YAML_MAX a write fails (EFBIG), which sets the stream's error: the
 * loops that expand names stop at it (ferror), so neither the file nor
 * the work grows past the runner's limit. */
struct bounded_file {
    FILE *to;
    size_t written;
};

static ssize_t bounded_write(void *cookie, const char *buf, size_t n)
{
    struct bounded_file *b = cookie;
    if (n > PG_YAML_MAX - b->written) {
        errno = EFBIG;
        return -1;
    }
    size_t w = fwrite(buf, 1, n, b->to);
    b->written += w;
    return w == n ? (ssize_t)n : -1;
}

/* problem.yaml through the bounded writer; 0, or -1 with errno. */
static int write_bounded(const char *path, const char *dir, const char *name, xmlNode *root, struct pg_testset *ts,
                         struct conv_errs *e)
{
    struct bounded_file b = {.to = fopen(path, "w")};
    FILE *out = b.to ? fopencookie(&b, "w", (cookie_io_functions_t){.write = bounded_write}) : NULL;
    if (!out) {
        if (b.to)
            fclose(b.to);
        return -1;
    }
    setvbuf(out, NULL, _IONBF, 0);   /* each write checked as it comes: the error names what crossed */
    write_converted(dir, name, root, ts, out, e);
    int rc = fclose(out);
    int saved = errno;
    rc = fclose(b.to) || rc ? -1 : 0;
    errno = rc && saved ? saved : errno;
    return rc;
}

/* Writes problem.yaml (through a temporary file, renamed only when the
 * whole conversion succeeded) and submissions/submissions.yaml. */
static void convert_doc(const char *dir, const char *name, xmlDoc *doc, struct conv_errs *e)
{
    xmlNode *root = xmlDocGetRootElement(doc);
    if (!root || strcmp((const char *)root->name, "problem")) {
        conv_err(e, "problem.xml:%d: (xml): the root element is not <problem>", pg_line(root));
        return;
    }
    xmlNode *judging = pg_child(root, "judging");
    xmlNode *set = find_testset(judging, e);
    if (!set) {
        conv_err(e, "problem.xml:%d: judging/testset: no testset named 'tests'", pg_line(judging ? judging : root));
        return;
    }
    check_io_files(judging, e);
    struct pg_testset ts = {0};
    read_testset(dir, set, &ts, e);
    char tmp[4400], path[4400];
    snprintf(tmp, sizeof tmp, "%s/.problem.yaml.new", dir);
    snprintf(path, sizeof path, "%s/problem.yaml", dir);
    if (e->n == 0) {
        int before = e->n;
        if (write_bounded(tmp, dir, name, root, &ts, e) && e->n == before)
            conv_err(e, "problem.yaml:0: (package): cannot write: %s", strerror(errno));
        pg_write_solutions(dir, pg_child(root, "assets"), e);
        if (e->n == 0 && rename(tmp, path))
            conv_err(e, "problem.yaml:0: (package): %s", strerror(errno));
        unlink(tmp);
    }
    free(ts.tests);
    for (int g = 0; g < ts.ngroups; g++)
        free(ts.groups[g].tests), free(ts.groups[g].deps);
    free(ts.groups);
}

int polygon_convert(const char *dir, const char *name, char **errors)
{
    struct conv_errs e = {0};
    xmlDoc *doc = read_xml(dir, &e);
    if (doc) {
        convert_doc(dir, name, doc, &e);
        xmlFreeDoc(doc);
    }
    *errors = e.buf;
    return e.n;
}
