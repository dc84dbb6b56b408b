/*
 * problem_check.c - runner_problem_check: `judgectl problem check DIR` and
 * the check of `problem push`.
 *
 * The package is loaded as a judge would load it (problem.c collects every
 * error as FILE:LINE: KEY: message); with a runner, a custom checker and an
 * interactor are also compiled (and so cached) the way a judge would, their
 * failures reported against their line in problem.yaml. Warnings (legal but
 * surely unmeant, such as a memory limit no program can start under) follow
 * the errors and do not count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "internal.h"

static void add_checker_error(struct common_errors *errs, const struct rn_problem *p, bool inter,
                              const char *message)
{
    char q[COMMON_QUOTE_CAP];
    const char *src = inter ? p->interactor.source : p->checker_prog.source;
    common_quote(q, sizeof q, src, strlen(src));
    if (inter)
        common_errors_add(errs, "%s/problem.yaml:%d: %s: %s: %s", p->dir, p->interactor.line,
                          p->type == RN_COMMUNICATION ? "manager" : "interactor", q, message);
    else
        common_errors_add(errs, "%s/problem.yaml:%d: checker.source: %s: %s", p->dir,
                      p->checker_prog.line, q, message);
}

/* compiles the package's checker or interactor, as a judge would */
static int check_checker(struct runner *r, const struct rn_problem *p, bool inter,
                         struct common_errors *errs)
{
    struct runner_request req = {0};
    struct rn_job j = {.slot = -1, .prob = p, .req = &req};
    char *message = NULL;
    int rc = rn_job_begin(&j, r);
    if (rc == 0)
        rc = inter ? rn_prepare_interactor(&j, &message) : rn_prepare_checker(&j, &message);
    if (rc < 0)
        add_checker_error(errs, p, inter, j.err);
    else if (rc > 0)
        add_checker_error(errs, p, inter, message);
    free(message);
    rn_job_end(&j);
    return rc;
}

static const char *const checker_names[] = {"exact", "lines", "tokens", "float", "custom"};

/* About what a minimal C program has resident. Below it a run may not even
 * start (measured: 64k never, 256k only while libc's pages are charged to
 * another cgroup): MLE before the program's first line. */
#define MEMORY_LIMIT_FLOOR (1ULL << 20)

/* Legal but surely not what the setter meant: lines that do not count as
 * errors. */
static void add_warnings(const struct rn_problem *p, struct common_errors *warns)
{
    if (p->memory_limit && p->memory_limit < MEMORY_LIMIT_FLOOR)
        common_errors_add(warns, "%s/problem.yaml:%d: memory_limit: warning: %llu bytes is too "
                      "small for a program to start (a minimal C program has ~1M resident, "
                      "Python ~10M, Java ~40M): runs will end MLE", p->dir, p->memory_line,
                      (unsigned long long)p->memory_limit);
    rn_problem_warnings(p, warns);
}

static char *problem_summary(const struct rn_problem *p)
{
    bool inter = p->type == RN_INTERACTIVE;
    char qn[COMMON_QUOTE_CAP], qs[COMMON_QUOTE_CAP];
    const char *src = inter && !p->checker_given ? p->interactor.source
                    : p->checker_prog.source ? p->checker_prog.source : "";
    common_quote(qs, sizeof qs, src, strlen(src));
    if (p->type == RN_COMMUNICATION)
        common_quote(qs, sizeof qs, p->interactor.source, strlen(p->interactor.source));
    char *judge = p->type == RN_COMMUNICATION
                      ? rn_strdup_printf("manager %s, %d process%s (%s)", qs, p->processes,
                                         p->processes == 1 ? "" : "es", p->user_stdio ? "stdio" : "fifo")
                  : inter && !p->checker_given
                      ? rn_strdup_printf("interactor %s", qs)
                      : rn_strdup_printf("%schecker %s%s%s", inter ? "interactive, " : "",
                                         checker_names[p->checker], *qs ? " " : "", qs);
    char *s = rn_strdup_printf("%s: %zu tests, %zu subtasks, %s, time %gs, memory %lluM",
                               common_quote(qn, sizeof qn, p->name, strlen(p->name)), p->test_count,
                               p->subtask_count, judge, p->time_limit,
                               (unsigned long long)(p->memory_limit >> 20));
    free(judge);
    return s;
}

static int check_package(struct runner *r, const struct runner_limits *limits,
                         const char *problem_dir, char **errors, char **summary)
{
    struct common_errors errs = {0}, warns = {0};
    struct rn_problem *p = NULL;
    *errors = NULL;
    if (summary)
        *summary = NULL;
    if (rn_problem_load(problem_dir, limits, &p, &errs) == 0 && p->checker == RN_CHECK_CUSTOM &&
        r)
        check_checker(r, p, false, &errs);
    if (p && (p->type == RN_INTERACTIVE || p->type == RN_COMMUNICATION) && r)
        check_checker(r, p, true, &errs);
    if (p)
        add_warnings(p, &warns);
    if (p && summary)
        *summary = problem_summary(p);
    int count = (int)(errs.count + errs.dropped);
    for (size_t i = 0; i < warns.count; i++)
        common_errors_add(&errs, "%s", warns.items[i]);
    *errors = common_errors_join(&errs);
    common_errors_free(&errs);
    common_errors_free(&warns);
    rn_problem_free(p);
    return count;
}

int runner_problem_check(struct runner *r, const char *problem_dir, char **errors, char **summary)
{
    return check_package(r, r ? &r->limits : NULL, problem_dir, errors, summary);
}

int runner_problem_check_limits(const struct runner_limits *limits, const char *problem_dir,
                                char **errors, char **summary)
{
    return check_package(NULL, limits, problem_dir, errors, summary);
}

/* What a platform shows of a problem (runner.h); the keys are documented
 * in judged/api/openapi.yaml, ProblemSummary. */
static json_t *summary_object(const struct rn_problem *p)
{
    json_t *subtasks = json_array(), *languages = json_null();
    double max_score = 0;
    for (size_t i = 0; i < p->subtask_count; i++) {
        json_array_append_new(subtasks, json_pack("{s:s, s:f}", "name", p->subtasks[i].name, "points",
                                                  rn_subtask_max(p, i)));
    }
    max_score = rn_problem_max(p);
    /* a required grader makes every other language CE (judge.c) */
    if (rn_grader_required(p)) {
        json_decref(languages);
        languages = json_array();
        for (size_t i = 0; i < p->grader_count; i++)
            json_array_append_new(languages, json_string(p->graders[i].lang));
    }
    /* a communication problem's manager scores each test (CMS) */
    bool scores = p->subtasks_line || p->checker_prog.scores || p->interactor.scores ||
                  p->type == RN_COMMUNICATION;
    static const char *const types[] = {[RN_BATCH] = "batch", [RN_INTERACTIVE] = "interactive",
                                        [RN_COMMUNICATION] = "communication", [RN_OUTPUT_ONLY] = "output-only"};
    double wall = p->wall_time_limit > 0 ? p->wall_time_limit : 2 * p->time_limit + 1;
    return json_pack("{s:s, s:s, s:i, s:s, s:f, s:f, s:f, s:I, s:I, s:o, s:I, s:o}", "title",
                     p->title ? p->title : p->name, "type", types[p->type],
                     "passes", p->passes, "scoring", scores ? "score" : "pass-fail", "max_score", max_score,
                     "time_limit", p->time_limit, "wall_time_limit", wall, "memory_limit",
                     (json_int_t)p->memory_limit, "output_limit", (json_int_t)p->output_limit, "languages",
                     languages, "tests", (json_int_t)p->test_count, "subtasks", subtasks);
}

char *rn_problem_summary(const struct rn_problem *p)
{
    json_t *j = summary_object(p);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    return text;
}

int runner_problem_summary(struct runner *r, const char *problem_dir, char **json, char *err, size_t errlen)
{
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    *json = NULL;
    if (rn_problem_load(problem_dir, r ? &r->limits : NULL, &p, &errs) == 0 && p) {
        if (!(*json = rn_problem_summary(p)))
            snprintf(err, errlen, "out of memory");
    } else {
        snprintf(err, errlen, "%s", errs.count ? errs.items[0] : "the package does not load");
    }
    common_errors_free(&errs);
    rn_problem_free(p);
    return *json ? 0 : -1;
}
