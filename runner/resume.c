/*
 * resume.c - checkpoints: what a judging records of each finished test, and
 * resuming a judging another host began (judged's takeover after a lost
 * lease; runner/README.md, "Checkpoints").
 *
 * A judging's identity is one string of four hashes:
 *   problem=  the stored version the caller named, or for a package without
 *             one a fingerprint of its directory (each file's path, size and
 *             mtime, and problem.yaml's bytes: cheap, and a copy made with
 *             rsync -a or a shared mount fingerprints the same)
 *   language= sha256 of the language file's text
 *   source=   sha256 of the submission
 *   program=  sha256 of the sealed compile box's manifest (every file's
 *             sha256, size, mode, path): the compiled program itself
 * Records are trusted only under an equal identity: a test's outcome is a
 * function of the program's bytes, the test data and the limits (which the
 * problem and language hashes cover). The program hash is what makes a
 * recompile elsewhere safe: a compiler whose output differs between hosts
 * (another GCC, a timestamp) gives another hash, and everything runs again.
 *
 * A record is a small JSON object: everything rn_run_test puts into the
 * test's report entry, the check's fraction, and the host that ran it.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "internal.h"

struct lines {
    char **v;
    size_t n, cap;
};

static int add_line(struct lines *l, char *s)
{
    if (!s)
        return -1;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return free(s), -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = s;
    return 0;
}

static int fingerprint_visit(const struct common_tree_entry *e, void *ctx)
{
    if (e->kind == COMMON_TREE_ERROR)
        return -1;
    if (e->kind == COMMON_TREE_DIR_DONE || !e->st)
        return 0;
    return add_line(ctx, rn_strdup_printf("%d %lld %lld.%09ld %s", (int)e->kind, (long long)e->st->st_size,
                                          (long long)e->st->st_mtim.tv_sec, e->st->st_mtim.tv_nsec, e->rel));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A package without a stored version: problem.yaml's text and the sorted
 * listing of its tree (path, size, mtime). */
static int problem_fingerprint(const char *dir, char out[65])
{
    struct lines l = {0};
    int rc = common_tree_walk(dir, 0, fingerprint_visit, &l) ? -1 : 0;
    char *yaml_path = rn_strdup_printf("%s/problem.yaml", dir);
    size_t ylen = 0;
    char *yaml = rc == 0 && yaml_path ? rn_read_file(yaml_path, 1 << 24, &ylen) : NULL;
    if (!yaml)
        rc = -1;
    size_t total = ylen;
    for (size_t i = 0; rc == 0 && i < l.n; i++)
        total += strlen(l.v[i]) + 1;
    char *all = rc == 0 ? malloc(total + 1) : NULL;
    if (all) {
        qsort(l.v, l.n, sizeof *l.v, cmp_str);
        memcpy(all, yaml, ylen);
        size_t at = ylen;
        for (size_t i = 0; i < l.n; i++) {
            size_t k = strlen(l.v[i]);
            memcpy(all + at, l.v[i], k);
            all[at + k] = '\n';
            at += k + 1;
        }
        const void *parts[1] = {all};
        rc = rn_sha256_hex(parts, &total, 1, out);
    } else {
        rc = -1;
    }
    for (size_t i = 0; i < l.n; i++)
        free(l.v[i]);
    free(l.v);
    free(all);
    free(yaml);
    free(yaml_path);
    return rc;
}

/* sha256 of the sealed compile box's manifest */
static int program_hash(struct rn_job *j, char out[65])
{
    char *sums = rn_strdup_printf("%s/program.sums", j->dir);
    size_t len = 0;
    char *text = NULL;
    int rc = sums && rn_tree_sums_write(j->src, sums) == 0 && (text = rn_read_file(sums, 1 << 26, &len)) ? 0 : -1;
    if (rc == 0) {
        const void *parts[1] = {text};
        rc = rn_sha256_hex(parts, &len, 1, out);
    }
    if (sums)
        unlink(sums);
    free(text);
    free(sums);
    return rc;
}

/* j->identity, or NULL (with why) when some part cannot be had: the
 * judging then goes on without checkpoints, never fails for them. */
static const char *compute_identity(struct rn_job *j)
{
    const struct runner_request *req = j->req;
    char problem[80], source[65], program[65];
    if (req->problem_version && req->problem_version[0])
        snprintf(problem, sizeof problem, "v:%.64s", req->problem_version);
    else if (problem_fingerprint(j->prob_abs, source) == 0)
        snprintf(problem, sizeof problem, "dir:%s", source);
    else
        return "the package cannot be fingerprinted";
    const void *parts[1] = {req->source};
    if (rn_sha256_hex(parts, &req->source_len, 1, source) < 0 || program_hash(j, program) < 0)
        return "the compiled program cannot be hashed";
    j->identity = rn_strdup_printf("problem=%s language=%s source=%s program=%s", problem, j->lang->sha, source,
                                   program);
    return j->identity ? NULL : "out of memory";
}

/* The value of NAME= in an identity string (up to the next space). */
static size_t ident_part(const char *ident, const char *name, const char **at)
{
    size_t n = strlen(name);
    for (const char *p = ident; p && *p; p = strchr(p, ' ')) {
        while (*p == ' ')
            p++;
        if (!strncmp(p, name, n) && p[n] == '=') {
            *at = p + n + 1;
            return strcspn(*at, " ");
        }
    }
    *at = "";
    return 0;
}

/* Why the recorded identity is not ours (NULL: it is). */
static const char *identity_differs(const char *ours, const char *recorded)
{
    static const char *const parts[][2] = {
        {"problem", "the problem version changed"},
        {"language", "the language definition changed"},
        {"source", "the submission changed"},
        {"program", "the compiled program differs (a recompile gave another binary)"},
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        const char *a, *b;
        size_t la = ident_part(ours, parts[i][0], &a), lb = ident_part(recorded, parts[i][0], &b);
        if (la != lb || la == 0 || memcmp(a, b, la))
            return parts[i][1];
    }
    return NULL;
}

static const char *verdict_text(json_t *o)
{
    const char *v = json_string_value(json_object_get(o, "verdict"));
    return v ? v : "";
}

static int verdict_of(const char *name)
{
    for (int v = RUNNER_AC; v <= RUNNER_SKIPPED; v++)
        if (!strcmp(runner_verdict_name((enum runner_verdict)v), name))
            return v;
    return -1;
}

/* Rebuilds test i's report entry and outcome from its record. */
static int decode_record(struct rn_job *j, size_t i, const char *record)
{
    json_t *o = json_loads(record, 0, NULL);
    int v = o ? verdict_of(verdict_text(o)) : -1;
    if (v < 0 || v == RUNNER_SKIPPED) {
        json_decref(o);
        return -1;
    }
    struct rn_test_report *tr = &j->rep->tests[i];
    tr->verdict = (enum runner_verdict)v;
    tr->cpu_time = json_number_value(json_object_get(o, "cpu_time"));
    tr->wall_time = json_number_value(json_object_get(o, "wall_time"));
    tr->memory = (uint64_t)json_integer_value(json_object_get(o, "memory"));
    tr->exit_code = (int)json_integer_value(json_object_get(o, "exit_code"));
    tr->signal = (int)json_integer_value(json_object_get(o, "signal"));
    tr->pipeline_time = json_number_value(json_object_get(o, "pipeline_time"));
    const char *msg = json_string_value(json_object_get(o, "checker_message"));
    const char *host = json_string_value(json_object_get(o, "host"));
    free(tr->checker_message);
    free(tr->host);
    tr->checker_message = strdup(msg ? msg : "");
    tr->host = host ? strdup(host) : NULL;
    tr->reused = true;
    j->reuse[i] = (struct rn_test_outcome){.ran = true, .verdict = tr->verdict,
                                           .fraction = json_number_value(json_object_get(o, "fraction"))};
    json_decref(o);
    return 0;
}

static void decided(struct rn_job *j, size_t reused, const char *why_not)
{
    if (j->req->resume_decided)
        j->req->resume_decided(j->req->keep_going_arg, reused, why_not);
}

int rn_resume_begin(struct rn_job *j)
{
    const struct runner_request *req = j->req;
    if (!req->test_recorded && !req->resume_identity)
        return 0;
    const char *why = compute_identity(j);
    if (!req->resume_identity)
        return 0;
    if (!why)
        why = identity_differs(j->identity, req->resume_identity);
    if (!why && req->resume_count > j->prob->test_count)
        why = "the recorded tests do not match the problem's";
    if (why)
        return decided(j, 0, why), 0;
    j->reuse = calloc(j->prob->test_count ? j->prob->test_count : 1, sizeof *j->reuse);
    if (!j->reuse)
        return rn_job_infra(j, "resume", "out of memory");
    size_t reused = 0;
    for (size_t i = 0; i < req->resume_count; i++) {
        if (!req->resume_records[i])
            continue;
        if (decode_record(j, i, req->resume_records[i]) < 0) {
            /* one unreadable record: trust none of them */
            for (size_t k = 0; k < j->prob->test_count; k++)
                j->reuse[k].ran = false;
            for (size_t k = 0; k < i; k++) {
                struct rn_test_report *tr = &j->rep->tests[k];
                tr->verdict = RUNNER_SKIPPED;
                tr->reused = false;
                free(tr->host);
                tr->host = NULL;
            }
            return decided(j, 0, "a recorded test is unreadable"), 0;
        }
        reused++;
    }
    decided(j, reused, reused ? NULL : "no test had finished");
    return 0;
}

bool rn_resume_take(struct rn_job *j, size_t i, struct rn_test_outcome *out)
{
    if (!j->reuse || !j->reuse[i].ran)
        return false;
    *out = j->reuse[i];
    return true;
}

void rn_resume_record(struct rn_job *j, size_t i, const struct rn_test_report *tr, double fraction)
{
    const struct runner_request *req = j->req;
    if (!req->test_recorded || !j->identity)
        return;
    char *clean = common_utf8_dup(tr->checker_message ? tr->checker_message : "");
    json_t *o = json_pack("{s:s, s:f, s:f, s:I, s:i, s:i, s:s, s:f, s:f}", "verdict",
                          runner_verdict_name(tr->verdict), "cpu_time", tr->cpu_time, "wall_time", tr->wall_time,
                          "memory", (json_int_t)tr->memory, "exit_code", tr->exit_code, "signal", tr->signal,
                          "checker_message", clean ? clean : "", "pipeline_time", tr->pipeline_time, "fraction",
                          fraction);
    if (o && tr->host)
        json_object_set_new(o, "host", json_string(tr->host));
    /* 17 digits: the resumed report equals the uninterrupted one */
    char *record = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    if (record)
        req->test_recorded(req->keep_going_arg, i, j->prob->test_count, (int)tr->verdict, j->identity, record);
    free(record);
    free(clean);
    json_decref(o);
}
