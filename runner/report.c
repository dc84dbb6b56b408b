/*
 * report.c - the result of judging one submission, and its JSON form.
 *
 * The JSON object is the contract of `judgectl judge --json` (and what
 * judged publishes): verdict, score, max_score, compile, tests, subtasks;
 * "message" is added when the verdict is IE because of the problem, and
 * "problem_version" when the caller named one (runner_request): judged
 * stores this object as it is, with nothing to patch afterwards.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "internal.h"

static const char *const verdict_names[] = {
    [RUNNER_AC] = "AC", [RUNNER_WA] = "WA", [RUNNER_PE] = "PE", [RUNNER_TLE] = "TLE",
    [RUNNER_MLE] = "MLE", [RUNNER_OLE] = "OLE", [RUNNER_RE] = "RE", [RUNNER_SV] = "SV",
    [RUNNER_CE] = "CE", [RUNNER_IE] = "IE", [RUNNER_SKIPPED] = "SKIPPED",
};

const char *runner_verdict_name(enum runner_verdict v)
{
    if ((unsigned)v < sizeof verdict_names / sizeof verdict_names[0])
        return verdict_names[v];
    return "?";
}

struct runner_report *rn_report_new(void)
{
    struct runner_report *rep = calloc(1, sizeof *rep);
    if (!rep)
        return NULL;
    rep->verdict = RUNNER_IE;
    rep->compile_status = strdup("none");
    rep->compile_output = strdup("");
    return rep;
}

void runner_report_free(struct runner_report *rep)
{
    if (!rep)
        return;
    for (size_t i = 0; i < rep->test_count; i++) {
        free(rep->tests[i].name);
        free(rep->tests[i].checker_message);
        free(rep->tests[i].host);
        free(rep->tests[i].processes);
    }
    free(rep->tests);
    for (size_t i = 0; i < rep->subtask_count; i++)
        free(rep->subtasks[i].name);
    free(rep->subtasks);
    free(rep->compile_status);
    free(rep->compile_output);
    free(rep->message);
    free(rep->problem_version);
    free(rep);
}

enum runner_verdict runner_report_verdict(const struct runner_report *rep)
{
    return rep->verdict;
}

double runner_report_score(const struct runner_report *rep)
{
    return rep->score;
}

double runner_report_max_score(const struct runner_report *rep)
{
    return rep->max_score;
}

const char *runner_report_message(const struct runner_report *rep)
{
    return rep->message;
}

size_t runner_report_test_count(const struct runner_report *rep)
{
    return rep->test_count;
}

double runner_report_compile_time(const struct runner_report *rep)
{
    if (!rep->compile_status || !strcmp(rep->compile_status, "none"))
        return -1;
    return rep->compile_cached ? 0 : rep->compile_cpu_time;
}

int runner_report_test_times(const struct runner_report *rep, size_t i, double *pipeline_wall,
                             double *program_wall)
{
    if (i >= rep->test_count || rep->tests[i].verdict == RUNNER_SKIPPED || rep->tests[i].reused)
        return -1;
    *pipeline_wall = rep->tests[i].pipeline_time;
    *program_wall = rep->tests[i].wall_time;
    return 0;
}

static json_t *number(double v)
{
    return json_real(v);
}

/* compiler and checker messages may not be UTF-8: jansson would refuse them
 * (common_utf8_dup turns the bad bytes into '?') */
static json_t *text(const char *s)
{
    char *clean = common_utf8_dup(s);
    json_t *j = json_string(clean ? clean : "");
    free(clean);
    return j;
}

static json_t *test_json(const struct rn_test_report *t)
{
    return json_pack("{s:o, s:s, s:o, s:o, s:I, s:i, s:i, s:o}", "name", text(t->name), "verdict",
                     runner_verdict_name(t->verdict), "cpu_time", number(t->cpu_time),
                     "wall_time", number(t->wall_time), "memory", (json_int_t)t->memory,
                     "exit_code", t->exit_code, "signal", t->signal, "checker_message",
                     text(t->checker_message));
}

/* a communication test's processes: what each one's box saw */
static json_t *processes_json(const struct rn_test_report *t)
{
    json_t *all = json_array();
    for (size_t i = 0; all && i < t->process_count; i++) {
        const struct rn_process_report *p = &t->processes[i];
        json_array_append_new(all, json_pack("{s:s, s:s, s:o, s:o, s:I, s:i, s:i}", "name", p->name, "verdict",
                                             runner_verdict_name(p->verdict), "cpu_time", number(p->cpu_time),
                                             "wall_time", number(p->wall_time), "memory", (json_int_t)p->memory,
                                             "exit_code", p->exit_code, "signal", p->signal));
    }
    return all;
}

static json_t *subtask_json(const struct rn_subtask_report *s)
{
    return json_pack("{s:o, s:o, s:o, s:s}", "name", text(s->name), "score", number(s->score),
                     "points", number(s->points), "verdict", runner_verdict_name(s->verdict));
}

/* whole numbers print as integers: "score": 100, not 100.0 */
static json_t *score_json(double v)
{
    double r = (double)(long long)v;
    return r == v ? json_integer((json_int_t)v) : json_real(v);
}

char *runner_report_json(const struct runner_report *rep)
{
    json_t *tests = json_array(), *subtasks = json_array();
    for (size_t i = 0; i < rep->test_count; i++) {
        json_t *t = test_json(&rep->tests[i]);
        /* who ran it: a resumed judging's report names both hosts */
        if (t && rep->host_given)
            json_object_set_new(t, "host", rep->tests[i].host ? text(rep->tests[i].host) : json_null());
        if (t && rep->tests[i].process_count)
            json_object_set_new(t, "processes", processes_json(&rep->tests[i]));
        json_array_append_new(tests, t);
    }
    for (size_t i = 0; i < rep->subtask_count; i++)
        json_array_append_new(subtasks, subtask_json(&rep->subtasks[i]));
    json_t *compile = json_pack("{s:s, s:o, s:o, s:b}", "status", rep->compile_status, "output",
                                text(rep->compile_output), "cpu_time", number(rep->compile_cpu_time),
                                "cached", rep->compile_cached);
    json_t *obj = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "verdict",
                            runner_verdict_name(rep->verdict), "score", score_json(rep->score),
                            "max_score", score_json(rep->max_score), "compile", compile,
                            "tests", tests, "subtasks", subtasks);
    if (!obj)
        return NULL;
    if (rep->message)
        json_object_set_new(obj, "message", text(rep->message));
    if (rep->version_given)
        json_object_set_new(obj, "problem_version",
                            rep->problem_version ? text(rep->problem_version) : json_null());
    char *s = json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(6));
    json_decref(obj);
    return s;
}
