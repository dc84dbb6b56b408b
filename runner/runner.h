/*
 * runner.h - turn (source, language, problem) into a verdict on one machine.
 *
 * The only public header of runner/. It knows nothing about Redis; judged/
 * and judgectl call it. It uses sandbox/ to compile and run.
 *
 *   struct runner *r;
 *   runner_open(&r, &cfg, err, sizeof err);
 *   struct runner_request req = {.problem_dir = "...", .language = "c",
 *                                .source = src, .source_len = n};
 *   struct runner_report *rep;
 *   runner_judge(r, &req, &rep, err, sizeof err);
 *   char *json = runner_report_json(rep);      // the judgectl --json object
 *   runner_report_free(rep);
 */
#ifndef JUDGED_RUNNER_H
#define JUDGED_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct runner;
struct runner_report;

struct runner_config {
    const char *languages_dir;  /* directory of languages/*.yaml */
    const char *work_dir;       /* scratch space: box dirs, checker cache */
    int first_slot;             /* sandbox slots [first_slot, first_slot+slots) */
    int slots;                  /* how many submissions may be judged at once */
    /* sandbox settings, passed through (NULL/0 = sandbox defaults) */
    const char *sandbox_run_dir;
    const char *cgroup_parent;
};

struct runner_request {
    const char *problem_dir;    /* a problem package directory */
    const char *language;       /* language id, e.g. "c" */
    const char *source;
    size_t source_len;
    /* Called before each test; return false to abandon the job (e.g. the
     * caller lost its lease). May be NULL. */
    bool (*keep_going)(void *arg);
    void *keep_going_arg;
};

enum runner_verdict {
    RUNNER_AC = 0, RUNNER_WA, RUNNER_PE, RUNNER_TLE, RUNNER_MLE, RUNNER_OLE,
    RUNNER_RE, RUNNER_SV, RUNNER_CE, RUNNER_IE, RUNNER_SKIPPED,
};

/* Why a run ended without a verdict the contestant earned. */
enum runner_failure {
    RUNNER_FAILURE_NONE = 0,  /* a verdict was reached (maybe IE of the problem) */
    RUNNER_FAILURE_INFRA,     /* sandbox/test data/IO trouble: worth a retry */
    RUNNER_FAILURE_ABORTED,   /* keep_going returned false */
};

int runner_open(struct runner **out, const struct runner_config *cfg,
                char *err, size_t errlen);
void runner_close(struct runner *r);

/* Judges one submission. Returns 0 with *out set when a verdict was reached,
 * -1 otherwise with err filled and *failure saying whether to retry. */
int runner_judge(struct runner *r, const struct runner_request *req,
                 struct runner_report **out, enum runner_failure *failure,
                 char *err, size_t errlen);

enum runner_verdict runner_report_verdict(const struct runner_report *rep);
double runner_report_score(const struct runner_report *rep);
/* The object documented for `judgectl judge --json`; caller frees (free). */
char *runner_report_json(const struct runner_report *rep);
void runner_report_free(struct runner_report *rep);

const char *runner_verdict_name(enum runner_verdict v);

/* Language ids and pools, for admission and pool configuration. */
bool runner_language_exists(struct runner *r, const char *id);
const char *runner_language_pool(struct runner *r, const char *id);

#endif
