/* noop_runner.c - a runner whose every judgment is an instant AC. Linked only
 * into judged-noop, the daemon used by bench_dispatch and bench_fleet to
 * measure what the dispatcher itself costs per job. Never used by tests.
 *
 * One exception, for bench_fleet's lease and reclaim phase: a source that
 * reads "hold-while:PATH" is held (not judged) while PATH exists, checking
 * keep_going every 10 ms like a real runner between tests, so a bench can
 * make hosts hold jobs, measure heartbeats, kill some hosts and release the
 * rest by removing one file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"

struct runner {
    int unused;
};
struct runner_report {
    int unused;
};

int runner_open(struct runner **out, const struct runner_config *cfg, char *err, size_t errlen)
{
    (void)cfg;
    (void)err;
    (void)errlen;
    *out = calloc(1, sizeof **out);
    return 0;
}

void runner_close(struct runner *r)
{
    free(r);
}

/* "hold-while:PATH": wait while PATH exists; false when told to stop */
static bool hold(const struct runner_request *req)
{
    static const char tag[] = "hold-while:";
    size_t n = sizeof tag - 1;
    char path[512];
    if (req->source_len <= n || req->source_len - n >= sizeof path || memcmp(req->source, tag, n))
        return true;
    snprintf(path, sizeof path, "%.*s", (int)(req->source_len - n), req->source + n);
    while (access(path, F_OK) == 0) {
        if (req->keep_going && !req->keep_going(req->keep_going_arg))
            return false;
        usleep(10000);
    }
    return true;
}

int runner_judge(struct runner *r, const struct runner_request *req, struct runner_report **out,
                 enum runner_failure *failure, char *err, size_t errlen)
{
    (void)r;
    (void)err;
    (void)errlen;
    *failure = RUNNER_FAILURE_NONE;
    if (!hold(req)) {
        *failure = RUNNER_FAILURE_ABORTED;
        return -1;
    }
    if (req->keep_going && !req->keep_going(req->keep_going_arg)) {
        *failure = RUNNER_FAILURE_ABORTED;
        return -1;
    }
    *out = calloc(1, sizeof **out);
    return 0;
}

enum runner_verdict runner_report_verdict(const struct runner_report *rep)
{
    (void)rep;
    return RUNNER_AC;
}

double runner_report_score(const struct runner_report *rep)
{
    (void)rep;
    return 100;
}

char *runner_report_json(const struct runner_report *rep)
{
    (void)rep;
    return strdup("{\"verdict\":\"AC\",\"score\":100,\"tests\":[]}");
}

void runner_report_free(struct runner_report *rep)
{
    free(rep);
}

/* nothing compiled, no test run: the job's log line says so */
double runner_report_compile_time(const struct runner_report *rep)
{
    (void)rep;
    return -1;
}

size_t runner_report_test_count(const struct runner_report *rep)
{
    (void)rep;
    return 0;
}

int runner_report_test_times(const struct runner_report *rep, size_t i, double *pipeline_wall,
                             double *program_wall)
{
    (void)rep, (void)i, (void)pipeline_wall, (void)program_wall;
    return -1;
}

const char *runner_verdict_name(enum runner_verdict v)
{
    return v == RUNNER_AC ? "AC" : "??";
}

/* judged checks its pools' languages at start: every one exists here */
bool runner_language_exists(struct runner *r, const char *id)
{
    (void)r;
    (void)id;
    return true;
}

/* Staged uploads (validator.c): the no-op runner accepts every package. */
bool runner_language_info(struct runner *r, const char *id, struct runner_language_info *out)
{
    (void)r;
    *out = (struct runner_language_info){.name = id, .source = "main.c", .time_factor = 1};
    return true;
}

/* What judged publishes of a language: a C-like one of that name. */
char *runner_language_json(struct runner *r, const char *id)
{
    (void)r;
    (void)id;
    return strdup("{\"name\": \"noop\", \"source\": \"main.c\", \"extensions\": [\".c\"], "
                  "\"default_for\": [\".c\"], \"time_factor\": 1}");
}

/* No compiler runs here: no version to publish. */
int runner_language_version(struct runner *r, const char *id, char *out, size_t len, char *err, size_t errlen)
{
    (void)r;
    (void)id;
    (void)len;
    (void)err;
    (void)errlen;
    out[0] = 0;
    return 1;
}

/* never called: runner_language_info above says no language prepares files */
int runner_language_selftest(struct runner *r, const char *id, struct runner_selftest *out, char *err,
                             size_t errlen)
{
    (void)r, (void)id;
    *out = (struct runner_selftest){.ok = true};
    snprintf(out->status, sizeof out->status, "OK");
    snprintf(err, errlen, "%s", "");
    return 0;
}

int runner_problem_check(struct runner *r, const char *problem_dir, char **errors, char **summary)
{
    (void)r;
    (void)problem_dir;
    *errors = NULL;
    if (summary)
        *summary = NULL;
    return 0;
}

/* No package is read here: nothing to summarise. */
int runner_problem_summary(struct runner *r, const char *problem_dir, char **json, char *err, size_t errlen)
{
    (void)r;
    *json = NULL;
    snprintf(err, errlen, "%s: the no-op runner reads no package", problem_dir);
    return -1;
}
