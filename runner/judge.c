/*
 * judge.c - runner_judge: one submission from source to report.
 *
 * The package is loaded (a broken one is IE, a missing one an
 * infrastructure failure), the job takes a slot, the submission (and its
 * grader) is written to src/ and compiled once - or its artefacts come from
 * the compile cache (ccache.c) - then src/ is sealed. A custom checker and an
 * interactor are built (helper.c); then rn_evaluate (scoring.c) walks the
 * subtasks, running each test it needs once (run.c), and gives the verdict
 * and the score. The report starts as a skeleton of every test and subtask
 * SKIPPED, so what was not run says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileset.h"
#include "internal.h"

static int report_skeleton(struct runner_report *rep, const struct rn_problem *p)
{
    rep->tests = calloc(p->test_count, sizeof *rep->tests);
    rep->subtasks = calloc(p->subtask_count, sizeof *rep->subtasks);
    if (!rep->tests || !rep->subtasks)
        return -1;
    rep->test_count = p->test_count;
    rep->subtask_count = p->subtask_count;
    for (size_t i = 0; i < p->test_count; i++)
        rep->tests[i] = (struct rn_test_report){.name = strdup(p->tests[i].name),
                                                .verdict = RUNNER_SKIPPED};
    for (size_t s = 0; s < p->subtask_count; s++) {
        rep->subtasks[s] = (struct rn_subtask_report){.name = strdup(p->subtasks[s].name),
                                                      .points = rn_subtask_max(p, s),
                                                      .verdict = RUNNER_SKIPPED};
    }
    rep->max_score = rn_problem_max(p);
    return 0;
}

static void set_compile(struct runner_report *rep, const char *status, struct rn_compiled *c)
{
    free(rep->compile_status);
    free(rep->compile_output);
    rep->compile_status = strdup(status);
    rep->compile_output = c->output ? c->output : strdup("");
    rep->compile_cpu_time = c->cpu_time;
    c->output = NULL;
}

static int evaluate(struct rn_job *j)
{
    const struct rn_problem *p = j->prob;
    struct rn_test_outcome *tests = calloc(p->test_count, sizeof *tests);
    struct rn_subtask_outcome *subs = calloc(p->subtask_count, sizeof *subs);
    int rc = -1;
    if (tests && subs)
        rc = rn_evaluate(p, rn_run_test, j, tests, subs, &j->rep->verdict, &j->rep->score);
    for (size_t s = 0; rc == 0 && s < p->subtask_count; s++) {
        j->rep->subtasks[s].verdict = subs[s].verdict;
        j->rep->subtasks[s].score = subs[s].score;
    }
    free(tests);
    free(subs);
    return rc;
}

static void set_ce(struct runner_report *rep, char *message)
{
    struct rn_compiled c = {.output = message ? message : strdup("")};
    set_compile(rep, "CE", &c);
    rep->verdict = RUNNER_CE;
}

/* the grader's sources after the submission's (its first is the
 * submission's entry point, already listed) */
static int append_sources(char ***sources, char **more)
{
    size_t n = 0, m = 0;
    while ((*sources)[n])
        n++;
    while (more && more[m])
        m++;
    char **all = realloc(*sources, (n + m + 1) * sizeof *all);
    if (!all)
        return -1;
    for (size_t i = 1; i < m; i++)
        all[n++] = strdup(more[i]);
    all[n] = NULL;
    *sources = all;
    return 0;
}

/* a submission of several files (submission.c), with the grader's files
 * beside them: as write_submission */
static int write_files(struct rn_job *j, const struct runner_request *req, const struct rn_grader *g,
                       char ***sources)
{
    struct fileset fs;
    char why[300], *message = NULL;
    if (fileset_unpack(req->source, req->source_len, &fs, why, sizeof why) < 0) {
        set_ce(j->rep, rn_strdup_printf("the submission's files: %s\n", why));
        return 1;
    }
    int rc = rn_submission_write_files(j, &fs, sources, &message);
    fileset_free(&fs);
    if (rc > 0)
        set_ce(j->rep, message);
    if (rc != 0 || !g)
        return rc;
    char **more = NULL;
    rc = rn_grader_install(j, g, j->lang->source, &more, &message);
    if (rc == 0 && append_sources(sources, more) < 0)
        rc = rn_job_infra(j, "grader", "out of memory");
    rn_argv_free(more);
    if (rc > 0) {
        j->rep->verdict = RUNNER_IE;
        j->rep->message = message;
    }
    return rc;
}

/* writes the submission (and its grader); 0, 1 when the verdict is already
 * reached (CE: no grader for the language; IE: a broken grader), -1 infra */
static int write_submission(struct rn_job *j, const struct runner_request *req, char ***sources)
{
    const struct rn_problem *p = j->prob;
    const struct rn_grader *g = p->grader_count ? rn_grader_for(p, j->lang->id) : NULL;
    if (!g && rn_grader_required(p)) {
        struct rn_compiled c = {.output = rn_grader_missing(p, j->lang->id)};
        set_compile(j->rep, "CE", &c);
        j->rep->verdict = RUNNER_CE;
        return 1;
    }
    if (fileset_is(req->source, req->source_len))
        return write_files(j, req, g, sources);
    const char *name = g && g->source ? g->source : j->lang->source;
    if (rn_write_named(j, j->src, name, req->source, req->source_len) < 0)
        return -1;
    char *message = NULL;
    int rc = g ? rn_grader_install(j, g, name, sources, &message) : 0;
    if (rc > 0) {
        j->rep->verdict = RUNNER_IE;
        j->rep->message = message;
    }
    return rc;
}

/* Compiles the submission written in src/ once, or takes verified copies
 * of an earlier identical compile from the cache (ccache.c; a CE is never
 * stored). Consumes opts->sources. 0 with the report's compile set (and
 * the verdict CE when it failed), -1 infra. */
static int compile_submission(struct rn_job *j, struct rn_compile_opts *opts)
{
    struct runner_report *rep = j->rep;
    struct rn_compiled c = {0};
    char key[65], limits[200];
    struct sandbox_limits cl = rn_compile_limits(j, j->lang);
    snprintf(limits, sizeof limits, "%.17g %llu %llu %llu %lld", cl.cpu_time, (unsigned long long)cl.memory,
             (unsigned long long)cl.output, (unsigned long long)cl.tmp_size, (long long)cl.procs);
    struct rn_ccache_inputs in;
    bool keyed = rn_ccache_key(j->lang, limits, j->src, opts->sources, opts->flags, &in, key) == 0;
    int rc = 0;
    if (keyed && rn_ccache_get(j->r->work_dir, key, j->src, &c.output) == 0) {
        c.ok = true;   /* compiled before: verified copies of the artefacts */
        rep->compile_cached = true;
    } else {
        rc = rn_compile_program(j, j->lang, j->src, opts, &c);
        if (rc == 0 && c.ok && keyed)
            rn_ccache_put(j->r->work_dir, key, j->lang, limits, opts->sources, opts->flags, &in, j->src, c.output,
                          j->slot, j->r->compile_cache);
    }
    rn_ccache_inputs_free(&in);
    if (rc < 0) {
        free(c.output);
        return -1;
    }
    set_compile(rep, c.ok ? "OK" : "CE", &c);
    if (!c.ok)
        rep->verdict = RUNNER_CE;
    return 0;
}

/* The problem's custom checker and interactor, built (helper.c) before the
 * first test: 0, 1 when the problem is at fault (verdict IE), -1 infra. */
static int prepare_helpers(struct rn_job *j)
{
    char *message = NULL;
    int rc = 0;
    if (j->prob->checker == RN_CHECK_CUSTOM)
        rc = rn_prepare_checker(j, &message);
    if (rc == 0 && (j->prob->type == RN_INTERACTIVE || j->prob->type == RN_COMMUNICATION))
        rc = rn_prepare_interactor(j, &message);
    if (rc != 0) {
        j->rep->verdict = RUNNER_IE;
        j->rep->message = message;
    }
    return rc;
}

/* An output-only problem's answer files, written to src/: 0, 1 CE (a
 * language other than answers, not a file set), -1 infra. The answers
 * language with a problem that runs a program is CE too. */
static int write_answers(struct rn_job *j, const struct runner_request *req)
{
    bool output_only = j->prob->type == RN_OUTPUT_ONLY;
    if (output_only != j->lang->answers) {
        set_ce(j->rep, output_only ? rn_strdup_printf("this problem is output-only: submit its answer files in the "
                                                      "answers language (a language file with answers: true), not "
                                                      "'%s'\n", j->lang->id)
                                   : rn_strdup_printf("'%s' is answer files, which only an output-only problem "
                                                      "takes; this one runs a program\n", j->lang->id));
        return 1;
    }
    struct fileset fs;
    char why[300];
    if (!fileset_is(req->source, req->source_len)) {
        set_ce(j->rep, strdup("an output-only problem's submission is its answer files, given as several files "
                              "(judge-api's files, judgectl submit FILES or a zip), not one source\n"));
        return 1;
    }
    if (fileset_unpack(req->source, req->source_len, &fs, why, sizeof why) < 0) {
        set_ce(j->rep, rn_strdup_printf("the submission's files: %s\n", why));
        return 1;
    }
    int rc = rn_submission_write_answers(j, &fs);
    fileset_free(&fs);
    return rc;
}

/* compile, checker, tests; -1 on infrastructure failure or abort */
static int judge_in_slot(struct rn_job *j, const struct runner_request *req)
{
    struct rn_compile_opts opts = {0};
    int rc = 0;
    if (j->prob->type == RN_OUTPUT_ONLY || j->lang->answers)
        rc = write_answers(j, req);
    else
        rc = write_submission(j, req, &opts.sources);
    if (rc == 0 && j->lang->compile_steps && !j->lang->answers)
        rc = compile_submission(j, &opts);
    rn_argv_free(opts.sources);
    if (rc != 0 || j->rep->verdict == RUNNER_CE)
        return rc < 0 ? -1 : 0;
    if (rn_seal_tree(j->src) < 0)
        return rn_job_infra(j, j->src, strerror(errno));
    if (rn_resume_begin(j) < 0)
        return -1;
    rc = prepare_helpers(j);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    return evaluate(j);
}

/* problem.yaml missing: test data not (yet) here, an infrastructure matter */
static bool package_present(const char *dir)
{
    char *path = rn_strdup_printf("%s/problem.yaml", dir);
    bool ok = path && access(path, R_OK) == 0;
    free(path);
    return ok;
}

static int load_problem(const struct runner *r, const char *dir, struct runner_report *rep,
                        struct rn_problem **out)
{
    struct common_errors errs = {0};
    int rc = rn_problem_load(dir, &r->limits, out, &errs);
    if (rc < 0) {
        rep->verdict = RUNNER_IE;
        rep->message = common_errors_join(&errs);
    }
    common_errors_free(&errs);
    return rc;
}

/* No IE without a message: a jury must see why. The problem's own IE sets
 * one where it happens; an IE a test reached (a checker that failed) is
 * named by its first such test; anything else says so plainly. */
static void explain_ie(struct runner_report *rep)
{
    if (rep->verdict != RUNNER_IE || (rep->message && *rep->message))
        return;
    free(rep->message);
    rep->message = NULL;
    for (size_t i = 0; i < rep->test_count && !rep->message; i++) {
        const struct rn_test_report *t = &rep->tests[i];
        if (t->verdict == RUNNER_IE)
            rep->message = rn_strdup_printf("test %s: %s", t->name ? t->name : "?",
                                            t->checker_message && *t->checker_message ? t->checker_message
                                            : "the checker failed without a message");
    }
    if (!rep->message)
        rep->message = strdup("internal error without a cause recorded (a bug in the runner: please report it)");
}

int runner_judge(struct runner *r, const struct runner_request *req, struct runner_report **out,
                 enum runner_failure *failure, char *err, size_t errlen)
{
    *out = NULL;
    *failure = RUNNER_FAILURE_NONE;
    if (!r->sb)
        return snprintf(err, errlen, "a catalog-only runner cannot judge"), -1;
    const struct rn_language *lang = rn_find_language(r, req->language);
    if (!lang)
        return rn_unknown_language(r, req->language, err, errlen), -1;
    if (!package_present(req->problem_dir)) {
        *failure = RUNNER_FAILURE_INFRA;
        return snprintf(err, errlen, "%s/problem.yaml: %s", req->problem_dir, strerror(errno)), -1;
    }
    struct runner_report *rep = rn_report_new();
    struct rn_problem *prob = NULL;
    if (!rep)
        return snprintf(err, errlen, "out of memory"), -1;
    rep->version_given = req->problem_version != NULL;
    rep->host_given = req->host != NULL;
    if (req->problem_version && req->problem_version[0])
        rep->problem_version = strdup(req->problem_version);
    if (load_problem(r, req->problem_dir, rep, &prob) < 0 || report_skeleton(rep, prob) < 0) {
        rn_problem_free(prob);
        explain_ie(rep);
        *out = rep;
        return 0;
    }
    struct rn_job j = {.slot = -1, .lang = lang, .prob = prob, .req = req, .rep = rep};
    j.prob_abs = realpath(prob->dir, NULL);
    int rc = rn_job_begin(&j, r);
    if (rc == 0 && !j.prob_abs)
        rc = rn_job_infra(&j, prob->dir, strerror(errno));
    if (rc == 0)
        rc = judge_in_slot(&j, req);
    if (rc < 0) {
        *failure = j.failure == RUNNER_FAILURE_NONE ? RUNNER_FAILURE_INFRA : j.failure;
        snprintf(err, errlen, "%s", j.err);
        runner_report_free(rep);
        rep = NULL;
    }
    rn_job_end(&j);
    rn_problem_free(prob);
    if (rep)
        explain_ie(rep);
    *out = rep;
    return rc < 0 ? -1 : 0;
}
