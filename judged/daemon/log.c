/* log.c - judged's log lines on stderr: free-form state changes (logmsg,
 * logwarn) and one line per job a worker ran (log_job), as text or, with
 * `log_format: json`, one JSON object per line. The format is read from the
 * configuration (the current snapshot; a job's line from the snapshot the
 * job started with), so a SIGHUP can switch it and the logger keeps no
 * state of its own. A line is one write(2), whole. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "common.h"
#include "daemon.h"

/* jansson refuses strings that are not UTF-8 (a file name, a compiler's
 * message): such bytes become '?' (common_utf8_dup) rather than losing the
 * line */
static json_t *text(const char *s)
{
    char *clean = common_utf8_dup(s);
    json_t *j = json_string(clean ? clean : "");
    free(clean);
    return j;
}

/* time (UTC, milliseconds), level, what, host: the head of every JSON line */
static json_t *head(const char *level, const char *what)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char t[32], stamp[48];
    strftime(t, sizeof t, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp, sizeof stamp, "%.31s.%03dZ", t, (int)(ts.tv_nsec / 1000000));
    json_t *o = json_object();
    json_object_set_new(o, "time", json_string(stamp));
    json_object_set_new(o, "level", json_string(level));
    json_object_set_new(o, "what", json_string(what));
    json_object_set_new(o, "host", text(judged.host ? judged.host : "?"));
    return o;
}

static void emit(json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!s)
        return;
    /* one write(2) per line, as common_vlog */
    size_t len = strlen(s);
    char *line = realloc(s, len + 2);
    if (line) {
        line[len] = '\n';
        fwrite(line, 1, len + 1, stderr);
        free(line);
    } else {
        fprintf(stderr, "%s\n", s);
        free(s);
    }
}

static void vlog_level(const char *level, const char *fmt, va_list ap)
{
    if (!snapshot_log_json()) {
        char who[300];
        snprintf(who, sizeof who, "judged[%s]%s", judged.host ? judged.host : "?",
                 strcmp(level, "info") ? " warning" : "");
        common_vlog(who, fmt, ap);
        return;
    }
    char msg[4096];
    vsnprintf(msg, sizeof msg, fmt, ap);
    json_t *o = head(level, "message");
    json_object_set_new(o, "msg", text(msg));
    emit(o);
}

void logmsg(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog_level("info", fmt, ap);
    va_end(ap);
}

void logwarn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog_level("warning", fmt, ap);
    va_end(ap);
}

static json_t *ms_or_null(long ms)
{
    return ms < 0 ? json_null() : json_integer(ms);
}

static void log_job_json(const struct job *j)
{
    bool ok = !strcmp(j->outcome, "published");
    json_t *o = head(ok ? "info" : "warning", "job");
    json_object_set_new(o, "id", text(j->q.id));
    json_object_set_new(o, "pool", text(j->pool->name));
    json_object_set_new(o, "lang", j->q.lang ? text(j->q.lang) : json_null());
    json_object_set_new(o, "problem", j->q.problem ? text(j->q.problem) : json_null());
    json_object_set_new(o, "version", j->q.version[0] ? text(j->q.version) : json_null());
    json_object_set_new(o, "verdict", j->verdict[0] ? json_string(j->verdict) : json_null());
    json_object_set_new(o, "score", j->verdict[0] ? json_real(j->score) : json_null());
    json_object_set_new(o, "outcome", json_string(j->outcome));
    json_object_set_new(o, "attempt", json_integer(j->q.attempts + 1));
    json_object_set_new(o, "wait_ms", ms_or_null(j->q.wait_ms));
    json_object_set_new(o, "compile_ms", ms_or_null(j->compile_ms));
    json_object_set_new(o, "run_ms", ms_or_null(j->run_ms));
    json_object_set_new(o, "judge_ms", ms_or_null(j->judge_ms));
    emit(o);
}

static const char *ms_text(long ms, char *buf, size_t len)
{
    if (ms < 0)
        return "-";
    snprintf(buf, len, "%ld", ms);
    return buf;
}

void log_job(const struct job *j)
{
    if (!j->outcome)
        return;
    if (j->snap && j->snap->cfg.log_json) {
        log_job_json(j);
        return;
    }
    char who[300], w[24], c[24], r[24], t[24];
    snprintf(who, sizeof who, "judged[%s]", judged.host ? judged.host : "?");
    common_log(who, "job %s: pool=%s lang=%s problem=%s version=%.12s verdict=%s score=%g outcome=%s "
           "attempt=%d wait_ms=%s compile_ms=%s run_ms=%s judge_ms=%s",
           j->q.id[0] ? j->q.id : "?", j->pool->name, j->q.lang ? j->q.lang : "-",
           j->q.problem ? j->q.problem : "-", j->q.version[0] ? j->q.version : "-",
           j->verdict[0] ? j->verdict : "-", j->verdict[0] ? j->score : 0, j->outcome,
           j->q.attempts + 1, ms_text(j->q.wait_ms, w, sizeof w),
           ms_text(j->compile_ms, c, sizeof c), ms_text(j->run_ms, r, sizeof r),
           ms_text(j->judge_ms, t, sizeof t));
}
