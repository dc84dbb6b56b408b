/*
 * runner.c - the runner handle: its language catalog, its slots, a job's
 * scratch directory; and the theory of the judging pipeline, which the
 * files listed at the end carry out.
 *
 * Theory. A runner owns one sandbox handle and `slots` sandbox slots; each
 * submission being judged holds one slot (a mutex/condvar allocator) and a
 * scratch directory WORK/slot-N/ for as long as it is judged:
 *
 *   src/      the compile box: the source, then the compiled artefacts
 *             After the compile src/ is sealed (root's, read-only) and is
 *             mounted read-only as each run's /box (its cwd): every test
 *             starts from the same files, and nothing a run writes can reach
 *             the host's disk; its scratch space is the private /tmp, which
 *             counts as memory
 *   output/   the program's stdout ("out"), outside every box; mounted
 *             read-only at /output for a custom checker
 *   chk/      a custom checker's box; chk.out / chk.err its stdout, stderr
 *   feedback/ a Kattis-protocol checker's feedback directory, fresh for each
 *             test, writable at /feedback (judgemessage.txt: its message)
 *   inter/    an interactor's box; inter.err its stderr
 *   compile.log  compiler stdout+stderr (cut to 64 KiB for the report)
 *
 * Mounting the artefacts at /box keeps a language's run command simple
 * ("./main" in cwd) and costs one bind mount per test, no copy.
 * Test data never enters the program's box: the input arrives as its stdin
 * fd, the answer stays on the host, and the output goes to a file outside the
 * box. Built-in checkers run on the host; a custom checker runs in a sandbox
 * with the package mounted read-only at /problem and the output at /output,
 * and is compiled once into HELPERS/SHA256/ (content-addressed: the
 * language, its compile commands, the source and the headers beside it),
 * published by rename() so concurrent judges never see half a checker.
 *
 * A checker or an interactor may be in any language (the one whose source
 * file has its extension), with extra compile flags, hashed with the rest.
 *
 * Interactive problems: the interactor runs in the job's companion slot
 * (first_slot + slots + i, held with the job's own slot for the job's whole
 * life: two jobs never wait on each other for a second box), in inter/ with
 * the package at /problem and output/ writable at /output; the pipes and the
 * verdict order are interactive.c's. Graders: the problem's files for the
 * submission's language are copied beside it in src/ and named in the
 * compile commands in place of the language's source file.
 *
 * Failures: sandbox IE and unreadable test data are infrastructure failures
 * (runner_judge returns -1, RUNNER_FAILURE_INFRA: retry elsewhere); a broken
 * package or checker is the problem's fault and yields the verdict IE.
 *
 * Files (they share struct runner and struct rn_job, internal.h):
 *   judge.c          runner_judge: compile once, run every test, score
 *                    the subtasks, produce the verdict
 *   compile.c        a compile in the sandbox (limits, notes, no program)
 *   grader.c         a problem's grader files beside the submission
 *   helper.c         building a custom checker or interactor (cached)
 *   run.c            one test: the program, the check, an interactive pair
 *   problem_check.c  runner_problem_check
 *   selftest.c       runner_language_selftest
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "internal.h"

/* ---- languages --------------------------------------------------------- */

const struct rn_language *rn_find_language(const struct runner *r, const char *id)
{
    for (size_t i = 0; id && i < r->lang_count; i++)
        if (!strcmp(r->langs[i]->id, id))
            return r->langs[i];
    return NULL;
}

bool runner_language_exists(struct runner *r, const char *id)
{
    return rn_find_language(r, id) != NULL;
}

size_t runner_language_count(struct runner *r)
{
    return r->lang_count;
}

const char *runner_language_id(struct runner *r, size_t i)
{
    return i < r->lang_count ? r->langs[i]->id : NULL;
}

const char *runner_language_name(struct runner *r, const char *id)
{
    const struct rn_language *l = rn_find_language(r, id);
    return l ? l->name : NULL;
}

bool runner_language_info(struct runner *r, const char *id, struct runner_language_info *out)
{
    const struct rn_language *l = rn_find_language(r, id);
    if (!l)
        return false;
    *out = (struct runner_language_info){.name = l->name, .source = l->source, .time_factor = l->time_factor,
                                         .extra_memory = l->extra_memory, .compile_time = l->compile_time,
                                         .compile_memory = l->compile_memory, .prepare = l->prepare != NULL};
    return true;
}

/* A list of strings as a JSON array; with r, only the extensions a file of
 * which compiles with l (its defaults as the catalog resolved them). */
static json_t *extensions_json(const struct runner *r, const struct rn_language *l)
{
    json_t *a = json_array();
    for (char **e = l->extensions; a && e && *e; e++)
        if (!r || rn_language_for_file(r, *e) == l)
            json_array_append_new(a, json_string(*e));
    return a;
}

char *runner_language_json(struct runner *r, const char *id)
{
    const struct rn_language *l = rn_find_language(r, id);
    if (!l)
        return NULL;
    json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:f, s:I, s:f, s:I}", "name", l->name, "source", l->source,
                          "extensions", extensions_json(NULL, l), "default_for", extensions_json(r, l),
                          "time_factor", l->time_factor, "extra_memory", (json_int_t)l->extra_memory,
                          "compile_time_limit", l->compile_time, "compile_memory_limit",
                          (json_int_t)l->compile_memory);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return s;
}

/* The first line of fd's output within the deadline ("" if none). */
static void first_line_of(int fd, char *out, size_t len, double deadline)
{
    char buf[1024];
    size_t n = 0;
    while (n < sizeof buf - 1 && !memchr(buf, '\n', n)) {
        int left = (int)((deadline - common_monotonic()) * 1000);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, left) <= 0)
            break;
        ssize_t got = read(fd, buf + n, sizeof buf - 1 - n);
        if (got <= 0)
            break;
        n += (size_t)got;
    }
    buf[n] = 0;
    buf[strcspn(buf, "\r\n")] = 0;
    snprintf(out, len, "%s", buf);
}

int runner_language_version(struct runner *r, const char *id, char *out, size_t len, char *err, size_t errlen)
{
    const struct rn_language *l = rn_find_language(r, id);
    out[0] = 0;
    if (l && (!l->version || !l->version[0]))
        return 1;
    if (!l) {
        snprintf(err, errlen, "%s: no such language", id);
        return -1;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {   /* stdin empty, stdout and stderr into the pipe */
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[1], 2) < 0)
            _exit(127);
        execv(l->version[0], l->version);
        _exit(127);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    first_line_of(fds[0], out, len, common_monotonic() + RUNNER_VERSION_TIMEOUT_MS / 1000.0);
    close(fds[0]);
    kill(pid, SIGKILL);   /* done with it: a version command that lingers goes */
    int status = 0;
    waitpid(pid, &status, 0);
    if (!out[0]) {
        snprintf(err, errlen, "%s: %s printed no version", id, l->version[0]);
        return -1;
    }
    return 0;
}

/* The language a file of a package (a checker, an interactor, a grader's
 * or a program's source) compiles with, by its extension: the one whose
 * file says `default_for` it, else the only one that has it among its
 * `extensions`; NULL when none has it or several do and none is the
 * default (rn_extension_languages says which). */
const struct rn_language *rn_language_for_file(const struct runner *r, const char *file)
{
    const char *dot = strrchr(file, '.');
    const struct rn_language *only = NULL;
    size_t having = 0;
    for (size_t i = 0; dot && i < r->lang_count; i++) {
        if (rn_language_default_for(r->langs[i], dot))
            return r->langs[i];
        if (rn_language_has_extension(r->langs[i], dot))
            only = r->langs[i], having++;
    }
    return having == 1 ? only : NULL;
}

void rn_extension_languages(const struct runner *r, const char *file, char *out, size_t len)
{
    const char *dot = strrchr(file, '.');
    size_t n = 0;
    out[0] = 0;
    for (size_t i = 0; dot && i < r->lang_count && n < len; i++)
        if (rn_language_has_extension(r->langs[i], dot)) {
            int k = snprintf(out + n, len - n, "%s%s", n ? ", " : "", r->langs[i]->id);
            n += k > 0 ? (size_t)k : 0;
        }
}

const char *runner_language_for_file(struct runner *r, const char *file)
{
    const struct rn_language *l = rn_language_for_file(r, file);
    return l ? l->id : NULL;
}

void rn_unknown_language(const struct runner *r, const char *id, char *err, size_t errlen)
{
    int n = snprintf(err, errlen, "unknown language '%s' (known:", id ? id : "");
    for (size_t i = 0; i < r->lang_count && n >= 0 && (size_t)n < errlen; i++)
        n += snprintf(err + n, errlen - (size_t)n, " %s", r->langs[i]->id);
    if (n >= 0 && (size_t)n < errlen)
        snprintf(err + n, errlen - (size_t)n, ")");
}

/* ---- open / close, slots ------------------------------------------------ */

static int open_sandbox(struct runner *r, const struct runner_config *cfg, char *err, size_t errlen)
{
    struct sandbox_config sc = SANDBOX_CONFIG_INIT;
    if (cfg->sandbox_run_dir)
        sc.run_dir = cfg->sandbox_run_dir;
    if (cfg->cgroup_parent)
        sc.cgroup_parent = cfg->cgroup_parent;
    char why[256] = "";
    if (sandbox_open(&r->sb, &sc, why, sizeof why) == 0)
        return 0;
    snprintf(err, errlen, "sandbox: %s", why);
    return -1;
}

int runner_open(struct runner **out, const struct runner_config *cfg, char *err, size_t errlen)
{
    struct runner *r = calloc(1, sizeof *r);
    struct common_errors errs = {0};
    if (!r)
        return snprintf(err, errlen, "out of memory"), -1;
    r->first_slot = cfg->first_slot;
    rn_limits_fill(&r->limits, &cfg->limits);
    r->slots = cfg->slots > 0 ? cfg->slots : 1;
    r->work_dir = strdup(cfg->work_dir ? cfg->work_dir : "/tmp/judged-runner");
    r->compile_cache = cfg->compile_cache ? cfg->compile_cache : 256ULL << 20;
    r->helper_cache = cfg->helper_cache ? cfg->helper_cache : 1ULL << 30;
    r->busy = calloc((size_t)r->slots, sizeof *r->busy);
    if (cfg->cpus && (r->cpu_of = calloc((size_t)r->slots, sizeof *r->cpu_of)))
        for (int i = 0; i < r->slots; i++)
            snprintf(r->cpu_of[i], sizeof r->cpu_of[i], "%d", cfg->cpus[i]);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->freed, NULL);
    /* slot first_slot+i judges; first_slot+slots+i is its companion, the
     * interactor's box of an interactive problem */
    if (r->first_slot < 0 || r->first_slot + 2 * r->slots > SANDBOX_MAX_SLOTS) {
        snprintf(err, errlen, "slots %d..%d (2 x slots: a companion for each) are outside 0..%d",
                 r->first_slot, r->first_slot + 2 * r->slots - 1, SANDBOX_MAX_SLOTS - 1);
        goto fail;
    }
    if (rn_languages_load_dir(cfg->languages_dir ? cfg->languages_dir : "languages",
                              r->limits.yaml_size, &r->langs, &r->lang_count, &errs) < 0) {
        char *all = common_errors_join(&errs);
        snprintf(err, errlen, "%s", all ? all : "cannot load languages");
        free(all);
        goto fail;
    }
    if (cfg->catalog_only)
        goto done;
    char *work_dir = rn_private_dir(r->work_dir, err, errlen);
    if (!work_dir)
        goto fail;
    free(r->work_dir);
    r->work_dir = work_dir;  /* canonical: the sandbox follows no symlink in it */
    if (rn_prepared_init(r, cfg->prepared_dir, cfg->prepare_off, err, errlen) < 0)
        goto fail;
    char *helpers = cfg->helpers_dir ? strdup(cfg->helpers_dir) : rn_strdup_printf("%s/checkers", r->work_dir);
    r->helpers_dir = helpers ? rn_private_dir(helpers, err, errlen) : NULL;
    free(helpers);
    if (!r->helpers_dir)
        goto fail;
    if (open_sandbox(r, cfg, err, errlen) < 0)
        goto fail;
done:
    common_errors_free(&errs);
    *out = r;
    return 0;
fail:
    common_errors_free(&errs);
    runner_close(r);
    return -1;
}

void runner_close(struct runner *r)
{
    if (!r)
        return;
    if (r->sb)
        sandbox_close(r->sb);
    rn_prepared_free(r);
    rn_languages_free(r->langs, r->lang_count);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->freed);
    free(r->busy);
    free(r->cpu_of);
    free(r->work_dir);
    free(r->helpers_dir);
    free(r);
}

const char *rn_slot_cpus(const struct runner *r, int slot)
{
    int i = slot - r->first_slot;
    if (i >= r->slots)
        i -= r->slots;   /* the companion shares its job's core */
    return r->cpu_of && i >= 0 && i < r->slots ? r->cpu_of[i] : NULL;
}

static int acquire_slot(struct runner *r)
{
    pthread_mutex_lock(&r->mu);
    for (;;) {
        for (int i = 0; i < r->slots; i++)
            if (!r->busy[i]) {
                r->busy[i] = true;
                pthread_mutex_unlock(&r->mu);
                return r->first_slot + i;
            }
        pthread_cond_wait(&r->freed, &r->mu);
    }
}

static void release_slot(struct runner *r, int slot)
{
    pthread_mutex_lock(&r->mu);
    r->busy[slot - r->first_slot] = false;
    pthread_cond_signal(&r->freed);
    pthread_mutex_unlock(&r->mu);
}

/* ---- jobs -------------------------------------------------------------- */

int rn_job_begin(struct rn_job *j, struct runner *r)
{
    j->r = r;
    j->slot = acquire_slot(r);
    j->dir = rn_strdup_printf("%s/slot-%d", r->work_dir, j->slot);
    j->src = rn_strdup_printf("%s/src", j->dir);
    j->out_dir = rn_strdup_printf("%s/output", j->dir);
    j->out = rn_strdup_printf("%s/output/out", j->dir);
    j->log = rn_strdup_printf("%s/compile.log", j->dir);
    j->chk = rn_strdup_printf("%s/chk", j->dir);
    j->chk_out = rn_strdup_printf("%s/chk.out", j->dir);
    j->chk_err = rn_strdup_printf("%s/chk.err", j->dir);
    j->inter = rn_strdup_printf("%s/inter", j->dir);
    j->inter_err = rn_strdup_printf("%s/inter.err", j->dir);
    j->feedback = rn_strdup_printf("%s/feedback", j->dir);
    j->pass_input = -1;
    if (rn_mkdir_p(j->dir, 0755) < 0 || chmod(j->dir, 0755) < 0 ||
        rn_fresh_dir(j->out_dir, 0755) < 0) {
        snprintf(j->err, sizeof j->err, "%s: %s", j->dir, strerror(errno));
        j->failure = RUNNER_FAILURE_INFRA;
        return -1;
    }
    return 0;
}

void rn_job_end(struct rn_job *j)
{
    if (j->src) {
        rn_remove_tree(j->src);
        rn_remove_tree(j->chk);
        rn_remove_tree(j->inter);
        rn_remove_tree(j->feedback);
        if (j->io)
            rn_remove_tree(j->io);
    }
    free(j->io);
    free(j->io_out);
    if (j->slot >= 0 && j->r)
        release_slot(j->r, j->slot);
    free(j->dir);
    free(j->src);
    free(j->out_dir);
    free(j->out);
    free(j->log);
    free(j->chk);
    free(j->chk_out);
    free(j->chk_err);
    free(j->inter);
    free(j->inter_err);
    free(j->feedback);
    free(j->inter_dir);
    free(j->checker_dir);
    rn_language_free(j->checker_own);
    rn_language_free(j->inter_own);
    free(j->run_prepared);
    free(j->prob_abs);
    free(j->identity);
    free(j->reuse);
}

int rn_job_infra(struct rn_job *j, const char *what, const char *why)
{
    snprintf(j->err, sizeof j->err, "%.200s: %.300s", what, why);
    j->failure = RUNNER_FAILURE_INFRA;
    return -1;
}

/* sandbox mounts: the language's (optional), then extra */
struct sandbox_mount *rn_mounts_for(const struct rn_language *l,
                                    const struct sandbox_mount *extra, size_t extra_n,
                                    size_t *count)
{
    size_t n = 0;
    while (l->mounts && l->mounts[n])
        n++;
    struct sandbox_mount *m = calloc(n + extra_n + 1, sizeof *m);
    for (size_t i = 0; m && i < n; i++)
        m[i] = (struct sandbox_mount){.host = l->mounts[i], .optional = true};
    for (size_t i = 0; m && i < extra_n; i++)
        m[n + i] = extra[i];
    *count = n + extra_n;
    return m;
}
