/*
 * cms_tps.c - IOI's TPS task exports: problem.json at the root (name,
 * title, type, limits, task_type_params: JSON inside a string), tests/
 * (NAME.in, NAME.out), subtasks/NAME.json (each a score and its tests, which
 * may overlap: a test in several subtasks), checker/ (a testlib checker
 * speaking CMS's protocol), graders/, manager/, solutions/. Read with
 * jansson into the model cms_write.c writes as problem.yaml.
 */
#include <errno.h>
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cms.h"
#include "common.h"

#define JSON_MAX (1u << 20)

static bool is_file(const char *dir, const char *rel)
{
    char p[4400];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return !stat(p, &st) && S_ISREG(st.st_mode);
}

bool cms_tps_detect(const char *dir)
{
    return is_file(dir, "problem.json");
}

/* A JSON file of the package, bounded; NULL with an error naming it. */
static json_t *read_json(const char *dir, const char *rel, struct conv_errs *e)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    size_t len;
    bool more;
    char *text = common_read_file(p, JSON_MAX, &len, &more);
    if (!text || more) {
        conv_err(e, "%s:0: (file): %s", rel, text ? "larger than 1 MiB" : strerror(errno));
        free(text);
        return NULL;
    }
    json_error_t err;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!j)
        conv_err(e, "%s:%d: (json): %s", rel, err.line, err.text);
    else if (!json_is_object(j)) {
        conv_err(e, "%s:1: (json): expected an object", rel);
        json_decref(j);
        j = NULL;
    }
    return j;
}

static const char *string_of(json_t *o, const char *key, const char *file, struct conv_errs *e)
{
    json_t *v = json_object_get(o, key);
    if (v && !json_is_string(v)) {
        conv_err(e, "%s:0: %s: expected a string", file, key);
        return NULL;
    }
    return v ? json_string_value(v) : NULL;
}

static bool plain_name(const char *s)
{
    return *s && strcmp(s, ".") && strcmp(s, "..") &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == strlen(s);
}

/* task_type_params: CMS's task type parameters, JSON inside a string
 * ({"task_type_parameters_Communication_num_processes": 2, ...}). */
static void type_params(json_t *pj, struct cms_task *t, struct conv_errs *e)
{
    json_t *v = json_object_get(pj, "task_type_params");
    if (!v)
        return;
    json_error_t err;
    json_t *p = json_is_string(v) ? json_loads(json_string_value(v), JSON_REJECT_DUPLICATES, &err)
                                  : json_is_object(v) ? json_incref(v) : NULL;
    if (!p || !json_is_object(p)) {
        conv_err(e, "problem.json:0: task_type_params: expected an object, or one as a JSON string%s%s",
                 p ? "" : ": ", p ? "" : (json_is_string(v) ? err.text : "not a string"));
        json_decref(p);
        return;
    }
    const char *key;
    json_t *x;
    json_object_foreach(p, key, x) {
        size_t n = strlen(key);
        if (n >= 13 && !strcmp(key + n - 13, "num_processes")) {
            if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > 16)
                conv_err(e, "problem.json:0: task_type_params.%s: expected 1 to 16", key);
            else
                t->processes = (int)json_integer_value(x);
        } else if (n >= 7 && !strcmp(key + n - 7, "user_io")) {
            const char *s = json_string_value(x);
            if (!s || (strcmp(s, "std_io") && strcmp(s, "fifo_io")))
                conv_err(e, "problem.json:0: task_type_params.%s: expected std_io or fifo_io", key);
            t->fifo_io = s && !strcmp(s, "fifo_io");
        }
    }
    json_decref(p);
}

static void read_problem(const char *dir, json_t *pj, struct cms_task *t, struct conv_errs *e)
{
    const char *name = string_of(pj, "name", "problem.json", e);
    const char *title = string_of(pj, "title", "problem.json", e);
    const char *type = string_of(pj, "type", "problem.json", e);
    if (name && (!plain_name(name) || strlen(name) >= sizeof t->name))
        conv_err(e, "problem.json:0: name: not a plain file name (letters, digits, '.', '_', '-')");
    else if (name)
        snprintf(t->name, sizeof t->name, "%s", name);
    if (title)
        snprintf(t->title, sizeof t->title, "%s", title);
    if (!type || !strcmp(type, "Batch"))
        t->type = CMS_BATCH;
    else if (!strcmp(type, "OutputOnly"))
        t->type = CMS_OUTPUT_ONLY;
    else if (!strcmp(type, "Communication") || !strcmp(type, "TwoSteps"))
        t->type = CMS_COMMUNICATION;
    else
        conv_err(e, "problem.json:0: type: '%.60s' is not a task type of CMS's (Batch, OutputOnly, Communication, "
                    "TwoSteps)", type);
    /* TwoSteps: two processes, CMS's own advice is Communication with 2 */
    t->processes = type && !strcmp(type, "TwoSteps") ? 2 : 1;
    t->fifo_io = type && !strcmp(type, "TwoSteps");
    json_t *tl = json_object_get(pj, "time_limit"), *ml = json_object_get(pj, "memory_limit");
    if (tl && (!json_is_number(tl) || !(json_number_value(tl) > 0 && json_number_value(tl) <= 3600)))
        conv_err(e, "problem.json:0: time_limit: expected seconds, more than 0 and at most 3600");
    else if (tl)
        t->time_limit = json_number_value(tl);
    /* bytes, as TPS exports it; a value under 1 MiB can only be MiB (the
     * form of TPS's own problem.json) */
    double m = ml && json_is_number(ml) ? json_number_value(ml) : -1;
    if (ml && !(m >= 1))
        conv_err(e, "problem.json:0: memory_limit: expected bytes (or MiB under 1048576)");
    else if (ml)
        t->memory = m >= 1048576 ? (unsigned long long)m : (unsigned long long)(m * 1048576);
    type_params(pj, t, e);
    static const char *const checkers[] = {"checker/checker", NULL};
    static const char *const managers[] = {"manager/manager", "graders/manager", NULL};
    if (t->type == CMS_COMMUNICATION && cms_find_source(dir, managers, t->manager, sizeof t->manager, e) == 0)
        conv_err(e, "problem.json:0: type: a Communication task needs its manager (manager/manager.cpp)");
    if (t->type != CMS_COMMUNICATION)
        cms_find_source(dir, checkers, t->checker, sizeof t->checker, e);
}

/* tests/NAME.in with tests/NAME.out, sorted by name. */
static void read_tests(const char *dir, struct cms_task *t, struct conv_errs *e)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/tests", dir);
    size_t n;
    char **names = conv_sorted_names(p, &n);
    t->tests = calloc(n ? n : 1, sizeof *t->tests);
    for (size_t i = 0; t->tests && i < n; i++) {
        size_t len = strlen(names[i]);
        if (len < 4 || strcmp(names[i] + len - 3, ".in"))
            continue;
        if (t->ntests >= CMS_MAX_TESTS) {
            conv_err(e, "tests:0: (package): more than %d tests", CMS_MAX_TESTS);
            break;
        }
        struct cms_test *c = &t->tests[t->ntests];
        snprintf(c->name, sizeof c->name, "%.*s", (int)(len - 3), names[i]);
        snprintf(c->in, sizeof c->in, "tests/%s", names[i]);
        snprintf(c->out, sizeof c->out, "tests/%s.out", c->name);
        if (!is_file(dir, c->out))
            conv_err(e, "%s:0: (package): no %s beside it", c->in, c->out);
        t->ntests++;
    }
    conv_free_names(names, n);
    if (!t->ntests)
        conv_err(e, "tests:0: (package): no tests (tests/NAME.in with tests/NAME.out)");
}

static int test_index(const struct cms_task *t, const char *name)
{
    for (int i = 0; i < t->ntests; i++)
        if (!strcmp(t->tests[i].name, name))
            return i;
    return -1;
}

/* One subtask file: "score", and its tests as "testcases" (names) or
 * "regex" (a regular expression over the names, matched whole). */
static void read_subtask(const char *dir, const char *rel, struct cms_task *t, int *marks, struct conv_errs *e)
{
    json_t *s = read_json(dir, rel, e);
    if (!s)
        return;
    json_t *score = json_object_get(s, "score"), *cases = json_object_get(s, "testcases");
    const char *regex = string_of(s, "regex", rel, e);
    int *tests = malloc((t->ntests ? t->ntests : 1) * sizeof *tests), n = 0;
    if (!score || !json_is_number(score) || json_number_value(score) < 0)
        conv_err(e, "%s:0: score: expected a number >= 0", rel);
    else if (cases && json_is_array(cases)) {
        size_t i;
        json_t *c;
        json_array_foreach(cases, i, c) {
            int k = json_is_string(c) ? test_index(t, json_string_value(c)) : -1;
            if (k < 0)
                conv_err(e, "%s:0: testcases: item %zu is not a test of tests/", rel, i + 1);
            else if (marks[k] != t->nsubtasks + 1)   /* a test listed twice counts once */
                marks[k] = t->nsubtasks + 1, tests[n++] = k;
        }
    } else if (regex) {
        char *anchored = malloc(strlen(regex) + 8);
        regex_t re;
        sprintf(anchored, "^(%s)$", regex);
        if (regcomp(&re, anchored, REG_EXTENDED | REG_NOSUB))
            conv_err(e, "%s:0: regex: not a regular expression", rel);
        else {
            for (int i = 0; i < t->ntests; i++)
                if (!regexec(&re, t->tests[i].name, 0, NULL, 0))
                    tests[n++] = i;
            regfree(&re);
        }
        free(anchored);
    } else {
        conv_err(e, "%s:0: testcases: missing (the subtask's tests: a list of names, or regex)", rel);
    }
    if (e->n == 0 && n == 0)
        conv_err(e, "%s:0: testcases: the subtask has no tests", rel);
    else if (e->n == 0)
        cms_add_subtask(t, json_number_value(score), CMS_AGG_MIN, 0, tests, n, e);
    free(tests);
    json_decref(s);
}

/* subtasks/NAME.json in name order (TPS numbers them: 01-samples.json, ...):
 * GroupMin, as CMS scores TPS's subtasks; none: every test worth its
 * share of 100 (Sum). */
static void read_subtasks(const char *dir, struct cms_task *t, struct conv_errs *e)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/subtasks", dir);
    size_t n;
    char **names = conv_sorted_names(p, &n);
    int *marks = calloc(t->ntests ? t->ntests : 1, sizeof *marks);
    for (size_t i = 0; marks && i < n; i++) {
        size_t len = strlen(names[i]);
        if (len > 5 && !strcmp(names[i] + len - 5, ".json")) {
            char rel[400];
            snprintf(rel, sizeof rel, "subtasks/%s", names[i]);
            read_subtask(dir, rel, t, marks, e);
        }
    }
    free(marks);
    conv_free_names(names, n);
    for (int i = 0; e->n == 0 && !t->nsubtasks && i < t->ntests; i++)
        if (cms_add_subtask(t, 100.0 / t->ntests, CMS_AGG_MIN, 0, &i, 1, e))
            break;
}

/* TPS's verdicts of solutions.json -> problem verify's folders. */
static const struct {
    const char *verdict, *folder;
} tps_verdicts[] = {
    {"model_solution", "accepted"},      {"correct", "accepted"},
    {"incorrect", "wrong_answer"},       {"time_limit", "time_limit_exceeded"},
    {"runtime_error", "run_time_error"}, {"memory_limit", "run_time_error"},
    {"time_limit_and_runtime_error", "rejected"}, {"failed", "rejected"},
    {"partially_correct", "wrong_answer"},
};

/* solutions/solutions.json: {"FILE": {"verdict": V}, ...}; without it
 * every solution is taken as accepted. */
static void read_solutions(const char *dir, struct cms_task *t, struct conv_errs *e)
{
    if (!is_file(dir, "solutions/solutions.json"))
        return;
    json_t *s = read_json(dir, "solutions/solutions.json", e);
    if (!s)
        return;
    t->solutions = calloc(json_object_size(s) + 1, sizeof *t->solutions);
    const char *file;
    json_t *v;
    json_object_foreach(s, file, v) {
        const char *verdict = json_is_object(v) ? json_string_value(json_object_get(v, "verdict")) : NULL;
        const char *folder = NULL;
        for (size_t i = 0; verdict && i < sizeof tps_verdicts / sizeof *tps_verdicts; i++)
            if (!strcmp(verdict, tps_verdicts[i].verdict))
                folder = tps_verdicts[i].folder;
        if (!folder || !plain_name(file) || strlen(file) >= sizeof t->solutions->file) {
            conv_err(e, "solutions/solutions.json:0: %.80s: %s", file,
                     !folder ? "verdict: expected one of TPS's (model_solution, correct, incorrect, time_limit, "
                               "runtime_error, memory_limit, time_limit_and_runtime_error, failed, partially_correct)"
                             : "not a plain file name");
            continue;
        }
        if (!t->solutions)
            break;
        snprintf(t->solutions[t->nsolutions].file, sizeof t->solutions->file, "%s", file);
        t->solutions[t->nsolutions++].folder = folder;
    }
    json_decref(s);
}

int cms_tps_convert(const char *dir, const char *name, char **errors)
{
    struct conv_errs e = {0};
    struct cms_task t = {.file = "problem.json", .processes = 1};
    json_t *pj = read_json(dir, "problem.json", &e);
    if (pj) {
        read_problem(dir, pj, &t, &e);
        json_decref(pj);
        if (e.n == 0)
            read_tests(dir, &t, &e);
        if (e.n == 0)
            read_subtasks(dir, &t, &e);
        read_solutions(dir, &t, &e);
        if (!t.name[0])
            snprintf(t.name, sizeof t.name, "%s", name);
        if (e.n == 0)
            cms_write(dir, name, &t, "graders", "solutions", &e);
    }
    cms_task_free(&t);
    *errors = e.buf;
    return e.n;
}
