/*
 * fuzz_verify.c - libFuzzer target: a package's submissions/submissions.yaml
 * as a hostile setter writes it, read by `problem verify`'s reader
 * (store_expected_results, judged/store/verify.c) as judgectl and judge-api
 * run it, as root.
 *
 * The input is submissions.yaml's bytes, dropped into a small package made
 * once (data/ with a sample and two secret groups, programs in accepted/,
 * wrong_answer/, partially_accepted/, a folder of its own and one with
 * @EXPECTED_RESULTS@).
 * After each read, whatever it said, the target checks what must hold:
 * errors are listed when counted; every expectation names a program below
 * submissions/, has a rule to check, a bounded text, and test group rules
 * that cover only the package's tests, sorted; it survives judge-api's
 * record (JSON and back) unchanged; checking it against a judging that
 * ran every test (and against one that ran none) returns; the matching
 * is bounded (judge-api's stop() is asked every 4096 comparisons: no more
 * often than 10 million comparisons allow, whatever {a,b} groups the keys
 * hold). Any violation aborts. Seeds: tests/fuzz/corpus/verify/; dictionary tests/fuzz/yaml.dict.
 * Run with ASan + UBSan; README.md "Fuzzing".
 */
#include <jansson.h>
#include <stdint.h>

#include "fuzz_package.h"

static const struct fuzz_file files[] = {
    {"data/sample/1.in", "1 2\n"},
    {"data/sample/1.ans", "3\n"},
    {"data/secret/group1/1.in", "5 7\n"},
    {"data/secret/group1/1.ans", "12\n"},
    {"data/secret/group2/a-hard.in", "100 -1\n"},
    {"data/secret/group2/a-hard.ans", "99\n"},
    {"submissions/accepted/a.c", "int main(void) { return 0; }\n"},
    {"submissions/accepted/d.cpp", "// @EXPECTED_RESULTS@: CORRECT,TIMELIMIT\nint main() {}\n"},
    {"submissions/wrong_answer/b.py", "print(0)\n"},
    {"submissions/mine/c.c", "int main(void) { return 1; }\n"},
    {"submissions/partially_accepted/e.c", "int main(void) { return 0; }\n"},
};

/* the runner's names of the package's tests */
static const char *const test_names[] = {"sample-1", "secret-group1-1", "secret-group2-a-hard"};
#define NTESTS (sizeof test_names / sizeof *test_names)

static bool bounded(const char *s, size_t cap)
{
    return memchr(s, 0, cap) != NULL;
}

static bool a_test(const char *name)
{
    for (size_t i = 0; i < NTESTS; i++)
        if (!strcmp(name, test_names[i]))
            return true;
    return false;
}

/* What one expectation must be, whatever the input said. */
static void check_expectation(const struct store_expected *x)
{
    if (!bounded(x->path, sizeof x->path) || strncmp(x->path, "submissions/", 12) ||
        !bounded(x->expected, sizeof x->expected) || !bounded(x->message, sizeof x->message) ||
        !bounded(x->language, sizeof x->language))
        abort();
    if (x->nrules > sizeof x->rules / sizeof *x->rules || (!x->final && !x->nrules && !x->ngroups))
        abort();   /* nothing to check: it should have been an error */
    if (x->time_use < STORE_TIME_NONE || x->time_use > STORE_TIME_UPPER)
        abort();
    for (size_t g = 0; g < x->ngroups; g++) {
        const struct store_group_expect *ge = &x->groups[g];
        if (!bounded(ge->group, sizeof ge->group) || ge->ntests > NTESTS)
            abort();
        for (size_t t = 0; t < ge->ntests; t++)
            if (!a_test(ge->tests[t]) || (t && strcmp(ge->tests[t - 1], ge->tests[t]) >= 0))
                abort();   /* a test the package has not, or out of order */
    }
}

/* judge-api keeps an expectation as JSON until its verdict is in */
static void check_round_trip(const struct store_expected *x)
{
    json_t *j = store_expected_json(x);
    struct store_expected back;
    if (!j || store_expected_from_json(j, &back))
        abort();
    json_decref(j);
    if (strcmp(back.path, x->path) || strcmp(back.expected, x->expected) || back.nrules != x->nrules ||
        back.final != x->final || back.ngroups != x->ngroups || back.partial != x->partial)
        abort();
    for (size_t g = 0; g < x->ngroups; g++) {
        if (strcmp(back.groups[g].group, x->groups[g].group) || back.groups[g].ntests != x->groups[g].ntests ||
            back.groups[g].rule.permitted != x->groups[g].rule.permitted)
            abort();
        for (size_t t = 0; t < x->groups[g].ntests; t++)
            if (strcmp(back.groups[g].tests[t], x->groups[g].tests[t]))
                abort();
    }
    store_expected_release(&back);
}

static void check_judgings(const struct store_expected *x)
{
    struct store_test_seen all[NTESTS];
    for (size_t i = 0; i < NTESTS; i++)
        all[i] = (struct store_test_seen){(char *)test_names[i], i == 2 ? STORE_V_WA : STORE_V_AC, "msg"};
    struct store_verify_seen ran = {.tests = STORE_V_AC | STORE_V_WA, .overall = STORE_V_WA, .score = 0,
                                    .messages = "msg\n", .per_test = all, .ntests = NTESTS};
    struct store_verify_seen ce = {.tests = STORE_V_CE, .overall = STORE_V_CE};
    char why[256];
    store_expected_met(x, &ran, why, sizeof why);
    if (!bounded(why, sizeof why))
        abort();
    store_expected_met(x, &ce, why, sizeof why);
    if (!bounded(why, sizeof why))
        abort();
}

/* judge-api's stop(): the client stays; counts the times it was asked */
static bool count_asked(void *arg)
{
    ++*(unsigned long *)arg;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_make_package(files, sizeof files / sizeof *files);
    fuzz_put("submissions/submissions.yaml", (const char *)data, size);
    struct store_expected *xs = NULL;
    size_t n = 0;
    char *errors = NULL;
    unsigned long asked = 0;
    int bad = store_expected_results_until(fuzz_pkg, count_asked, &asked, &xs, &n, &errors);
    if (bad < 0 || (bad > 0 && (!errors || !*errors)))
        abort();   /* an error counted but not said */
    if (asked > 10000000ul / 4096)
        abort();   /* more matching than the bound */
    if (n > sizeof files / sizeof *files)
        abort();   /* more expectations than programs */
    for (size_t i = 0; i < n; i++) {
        check_expectation(&xs[i]);
        check_round_trip(&xs[i]);
        check_judgings(&xs[i]);
    }
    store_expected_free(xs, n);
    free(errors);
    return 0;
}
