/*
 * result.c - a submission's result as one JSON document: what `judgectl
 * result --json` prints and GET /v1/submissions/ID (and its webhook)
 * serves, openapi.yaml's Submission.
 *
 * Why one composer. The result has two sources: the submission's hash
 * (state, verdict, score, language, times, host, ...), which changes while
 * the job waits and runs, and the report stored once when it is done: the
 * runner's report exactly as runner_report_json wrote it (verdict, score,
 * max_score, compile, tests, subtasks, message, problem_version), or, for a
 * dead-lettered job, the same shape with verdict IE, no tests and the
 * reason as message (judged.lua's bury). The document is built here, in one
 * pass and always in the same shape, from the hash's fields plus a fixed
 * list of the report's: the report is never rewritten, and judgectl and
 * judge-api cannot drift apart.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core.h"

static json_t *iso_time(long long ms)
{
    if (ms <= 0)
        return json_null();
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char buf[64];
    snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
    return json_string(buf);
}

static json_t *text_or_null(const char *s)
{
    return s[0] ? json_string(s) : json_null();
}

static json_t *span_ms(long long from, long long to)
{
    return from && to ? json_integer(to - from) : json_null();
}

/* The parts of the stored report the document carries: tests ([] until
 * done), compile (null until done), subtasks, max_score and message when
 * the report has them. A report stored before dead-lettered jobs wrote
 * "message" says "error". */
static void add_report(json_t *o, const char *report)
{
    json_t *rep = report ? json_loads(report, 0, NULL) : NULL;
    json_t *tests = json_object_get(rep, "tests"), *comp = json_object_get(rep, "compile");
    json_t *sub = json_object_get(rep, "subtasks"), *ms = json_object_get(rep, "max_score");
    json_t *msg = json_object_get(rep, "message");
    if (!json_is_string(msg))
        msg = json_object_get(rep, "error");
    json_object_set_new(o, "tests", json_is_array(tests) ? json_incref(tests) : json_array());
    json_object_set_new(o, "compile", json_is_object(comp) ? json_incref(comp) : json_null());
    if (json_is_array(sub))
        json_object_set(o, "subtasks", sub);
    if (json_is_number(ms))
        json_object_set(o, "max_score", ms);
    if (json_is_string(msg))
        json_object_set(o, "message", msg);
    json_decref(rep);
}

json_t *jd_result_json(const char *id, const struct queue_result *q)
{
    char pool[80] = "";
    queue_id_pool(id, pool, sizeof pool);
    bool done = !strcmp(q->state, "done");
    /* attempts: the judgings begun, the failed ones (retried) and the one
     * that gave the verdict or is running; a dead letter's are all failed */
    int judgings = q->attempts + (!strcmp(q->state, "running") || (done && !q->dead));
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i}", "id", id, "pool", pool, "state",
                          q->state, "language", q->lang, "problem", q->problem, "priority",
                          q->priority, "attempts", judgings);
    if (!o)
        return NULL;
    json_object_set_new(o, "verdict", done ? json_string(q->verdict) : json_null());
    json_object_set_new(o, "score", done ? json_real(q->score) : json_null());
    json_object_set_new(o, "owner", text_or_null(q->owner));
    /* the problem store's version it is (or was) judged with, recorded at
     * admission or by a rejudge; null: the hosts' problems directory */
    json_object_set_new(o, "problem_version", text_or_null(q->version));
    json_object_set_new(o, "host", text_or_null(q->host));
    json_object_set_new(o, "created", iso_time(q->created));
    json_object_set_new(o, "started", iso_time(q->started));
    json_object_set_new(o, "finished", iso_time(q->finished));
    json_object_set_new(o, "queue_wait_ms", span_ms(q->created, q->started));
    json_object_set_new(o, "judging_ms", span_ms(q->started, q->finished));
    add_report(o, done ? q->report : NULL);
    json_t *md = q->metadata ? json_loads(q->metadata, JSON_DECODE_ANY, NULL) : NULL;
    if (md)
        json_object_set_new(o, "metadata", md);
    return o;
}
