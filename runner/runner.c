/*
 * runner.c - the judging pipeline: (source, language, problem) -> verdict.
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
 *   compile.log  compiler stdout+stderr (cut to 64 KiB for the report)
 *
 * Mounting the artefacts at /box keeps a language's run command simple
 * ("./main" in cwd) and costs one bind mount per test, no copy.
 * Test data never enters the program's box: the input arrives as its stdin
 * fd, the answer stays on the host, and the output goes to a file outside the
 * box. Built-in checkers run on the host; a custom checker runs in a sandbox
 * with the package mounted read-only at /problem and the output at /output,
 * and is compiled once into WORK/checkers/SHA256/ (content-addressed: the
 * language, its compile commands, the source and the headers beside it),
 * published by rename() so concurrent judges never see half a checker.
 *
 * Failures: sandbox IE and unreadable test data are infrastructure failures
 * (runner_judge returns -1, RUNNER_FAILURE_INFRA: retry elsewhere); a broken
 * package or checker is the problem's fault and yields the verdict IE.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "sandbox.h"

#define COMPILE_LOG_MAX (64 * 1024)
#define CHECKER_TEXT_MAX (4 * 1024)
#define CHECKER_CPU 10.0
#define CHECKER_MEMORY (1024ULL << 20)

struct runner {
    struct sandbox *sb;
    char *work_dir;
    struct rn_language **langs;
    size_t lang_count;
    int first_slot, slots;
    pthread_mutex_t mu;
    pthread_cond_t freed;
    bool *busy;
};

/* one submission (or self-test) in one slot */
struct job {
    struct runner *r;
    int slot;                                 /* sandbox slot */
    char *dir, *src, *out_dir, *out, *log, *chk, *chk_out, *chk_err;
    const struct rn_language *lang;
    const struct rn_problem *prob;
    char *prob_abs;                           /* absolute package dir */
    const struct runner_request *req;
    struct runner_report *rep;
    bool chk_ready;                           /* chk/ holds links already */
    char *checker_dir;                        /* compiled custom checker */
    const struct rn_language *checker_lang;
    enum runner_failure failure;
    char err[512];
};

struct compiled {
    bool ok;
    char *output;
    double cpu_time;
};

/* ---- languages --------------------------------------------------------- */

static const struct rn_language *find_language(const struct runner *r, const char *id)
{
    for (size_t i = 0; id && i < r->lang_count; i++)
        if (!strcmp(r->langs[i]->id, id))
            return r->langs[i];
    return NULL;
}

bool runner_language_exists(struct runner *r, const char *id)
{
    return find_language(r, id) != NULL;
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
    const struct rn_language *l = find_language(r, id);
    return l ? l->name : NULL;
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
    struct rn_errors errs = {0};
    if (!r)
        return snprintf(err, errlen, "out of memory"), -1;
    r->first_slot = cfg->first_slot;
    r->slots = cfg->slots > 0 ? cfg->slots : 1;
    r->work_dir = strdup(cfg->work_dir ? cfg->work_dir : "/tmp/judged-runner");
    r->busy = calloc((size_t)r->slots, sizeof *r->busy);
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->freed, NULL);
    if (r->first_slot < 0 || r->first_slot + r->slots > SANDBOX_MAX_SLOTS) {
        snprintf(err, errlen, "slots %d..%d are outside 0..%d", r->first_slot,
                 r->first_slot + r->slots - 1, SANDBOX_MAX_SLOTS - 1);
        goto fail;
    }
    if (rn_languages_load_dir(cfg->languages_dir ? cfg->languages_dir : "languages", &r->langs,
                              &r->lang_count, &errs) < 0) {
        char *all = rn_errors_join(&errs);
        snprintf(err, errlen, "%s", all ? all : "cannot load languages");
        free(all);
        goto fail;
    }
    if (cfg->catalog_only)
        goto done;
    if (rn_mkdir_p(r->work_dir, 0755) < 0) {
        snprintf(err, errlen, "%s: %s", r->work_dir, strerror(errno));
        goto fail;
    }
    if (open_sandbox(r, cfg, err, errlen) < 0)
        goto fail;
done:
    rn_errors_free(&errs);
    *out = r;
    return 0;
fail:
    rn_errors_free(&errs);
    runner_close(r);
    return -1;
}

void runner_close(struct runner *r)
{
    if (!r)
        return;
    if (r->sb)
        sandbox_close(r->sb);
    rn_languages_free(r->langs, r->lang_count);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->freed);
    free(r->busy);
    free(r->work_dir);
    free(r);
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

static int job_begin(struct job *j, struct runner *r)
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
    if (rn_mkdir_p(j->dir, 0755) < 0 || chmod(j->dir, 0755) < 0 ||
        rn_fresh_dir(j->out_dir, 0755) < 0) {
        snprintf(j->err, sizeof j->err, "%s: %s", j->dir, strerror(errno));
        j->failure = RUNNER_FAILURE_INFRA;
        return -1;
    }
    return 0;
}

static void job_end(struct job *j)
{
    if (j->src) {
        rn_remove_tree(j->src);
        rn_remove_tree(j->chk);
    }
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
    free(j->checker_dir);
    free(j->prob_abs);
}

static int infra(struct job *j, const char *what, const char *why)
{
    snprintf(j->err, sizeof j->err, "%.200s: %.300s", what, why);
    j->failure = RUNNER_FAILURE_INFRA;
    return -1;
}

static int open_out(const char *path)
{
    return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

/* sandbox mounts: the language's (optional), then extra */
static struct sandbox_mount *mounts_for(const struct rn_language *l,
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

/* ---- compiling ---------------------------------------------------------- */

static const char *limit_note(const struct sandbox_result *res)
{
    static const char *const notes[] = {
        [SANDBOX_TLE] = "compilation exceeded its time limit",
        [SANDBOX_MLE] = "compilation exceeded its memory limit",
        [SANDBOX_OLE] = "compilation exceeded its output limit",
        [SANDBOX_SV] = "the compiler made a forbidden system call",
    };
    if (res->status < sizeof notes / sizeof notes[0] && notes[res->status])
        return notes[res->status];
    return NULL;
}

static void append_note(struct compiled *c, const char *note)
{
    char *s = rn_strdup_printf("%s%s%s\n", c->output, *c->output ? "\n" : "", note);
    if (s) {
        free(c->output);
        c->output = s;
    }
}

static int compile_step(struct job *j, const struct rn_language *l, const char *dir, size_t step,
                        struct compiled *c)
{
    int fd = open(j->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (step ? 0 : O_TRUNC), 0644);
    if (fd < 0)
        return infra(j, j->log, strerror(errno));
    char **argv = rn_argv_expand(l->compile[step], l->compile_memory, NULL);
    size_t mount_count;
    struct sandbox_mount *mounts = mounts_for(l, NULL, 0, &mount_count);
    struct sandbox_job sj = SANDBOX_JOB_INIT;
    sj.slot = j->slot;
    sj.argv = (const char *const *)argv;
    sj.envp = (const char *const *)l->env;
    sj.workdir = dir;
    sj.stdout_fd = fd;
    sj.stderr_fd = fd;
    sj.profile = "compile";
    sj.limits = (struct sandbox_limits){.cpu_time = l->compile_time,
                                        .wall_time = l->compile_time * 1.5 + 1,
                                        .memory = l->compile_memory,
                                        .output = l->compile_output,
                                        .procs = l->compile_procs};
    sj.mounts = mounts;
    sj.mount_count = mount_count;
    struct sandbox_result res;
    int rc = sandbox_run(j->r->sb, &sj, &res);
    close(fd);
    rn_argv_free(argv);
    free(mounts);
    if (rc < 0)
        return infra(j, "sandbox (compile)", res.message);
    c->cpu_time += res.cpu_time;
    c->ok = res.status == SANDBOX_OK;
    free(c->output);
    c->output = rn_read_file(j->log, COMPILE_LOG_MAX, NULL);
    if (!c->output)
        c->output = strdup("");
    const char *note = limit_note(&res);
    if (note)
        append_note(c, note);
    else if (!c->ok && !*c->output)
        append_note(c, res.message[0] ? res.message : "the compiler failed without a message");
    return 0;
}

/* Compiles the source already in dir; -1 only on infrastructure failure. */
static int compile_in(struct job *j, const struct rn_language *l, const char *dir,
                      struct compiled *c)
{
    *c = (struct compiled){.ok = true, .output = strdup("")};
    for (size_t s = 0; s < l->compile_steps && c->ok; s++)
        if (compile_step(j, l, dir, s, c) < 0)
            return -1;
    return 0;
}

static int write_source(struct job *j, const struct rn_language *l, const char *dir,
                        const char *src, size_t len)
{
    char *path = rn_strdup_printf("%s/%s", dir, l->source);
    int rc = rn_fresh_dir(dir, 0777) < 0 || rn_write_file(path, src, len, 0644) < 0 ? -1 : 0;
    if (rc < 0)
        infra(j, path, strerror(errno));
    free(path);
    return rc;
}

/* ---- the custom checker ------------------------------------------------- */

struct checker_src {
    char *text;
    size_t len;
    char **headers;          /* file names beside the source: *.h, *.hpp */
    char **header_text;
    size_t *header_len;
    size_t header_count;
};

static void checker_src_free(struct checker_src *cs)
{
    free(cs->text);
    for (size_t i = 0; i < cs->header_count; i++) {
        free(cs->headers[i]);
        free(cs->header_text[i]);
    }
    free(cs->headers);
    free(cs->header_text);
    free(cs->header_len);
}

static bool is_header(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hpp"));
}

static int read_checker_src(const char *path, struct checker_src *cs)
{
    *cs = (struct checker_src){0};
    cs->text = rn_read_file(path, 16 << 20, &cs->len);
    if (!cs->text)
        return -1;
    char *dir = strdup(path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        if (is_header(names[i]->d_name)) {
            size_t k = cs->header_count++;
            cs->headers = realloc(cs->headers, cs->header_count * sizeof *cs->headers);
            cs->header_text = realloc(cs->header_text, cs->header_count * sizeof(char *));
            cs->header_len = realloc(cs->header_len, cs->header_count * sizeof(size_t));
            cs->headers[k] = strdup(names[i]->d_name);
            char *hp = rn_strdup_printf("%s/%s", dir, names[i]->d_name);
            cs->header_text[k] = rn_read_file(hp, 16 << 20, &cs->header_len[k]);
            if (!cs->header_text[k])
                cs->header_text[k] = strdup(""), cs->header_len[k] = 0;
            free(hp);
        }
        free(names[i]);
    }
    free(names);
    free(dir);
    return 0;
}

static int checker_hash(const struct rn_language *l, const struct checker_src *cs, char out[65])
{
    size_t n = 0, cap = 8 + 2 * cs->header_count;
    for (size_t s = 0; s < l->compile_steps; s++)
        for (char **a = l->compile[s]; *a; a++)
            cap++;
    const void **parts = calloc(cap, sizeof *parts);
    size_t *lens = calloc(cap, sizeof *lens);
    parts[n] = l->id, lens[n++] = strlen(l->id) + 1;
    for (size_t s = 0; s < l->compile_steps; s++)
        for (char **a = l->compile[s]; *a; a++)
            parts[n] = *a, lens[n++] = strlen(*a) + 1;
    parts[n] = cs->text, lens[n++] = cs->len;
    for (size_t i = 0; i < cs->header_count; i++) {
        parts[n] = cs->headers[i], lens[n++] = strlen(cs->headers[i]) + 1;
        parts[n] = cs->header_text[i], lens[n++] = cs->header_len[i];
    }
    int rc = rn_sha256_hex(parts, lens, n, out);
    free(parts);
    free(lens);
    return rc;
}

/* compiles into a private dir and publishes it as cache; 1 on CE */
static int build_checker(struct job *j, const struct rn_language *l, const struct checker_src *cs,
                         const char *cache, char **message)
{
    char *tmp = rn_strdup_printf("%s.tmp-%d-%d", cache, (int)getpid(), j->slot);
    int rc = write_source(j, l, tmp, cs->text, cs->len);
    for (size_t i = 0; rc == 0 && i < cs->header_count; i++) {
        char *hp = rn_strdup_printf("%s/%s", tmp, cs->headers[i]);
        rc = rn_write_file(hp, cs->header_text[i], cs->header_len[i], 0644);
        free(hp);
    }
    struct compiled c = {0};
    if (rc == 0)
        rc = compile_in(j, l, tmp, &c);
    if (rc == 0 && !c.ok) {
        *message = rn_strdup_printf("the checker does not compile:\n%s", c.output);
        rc = 1;
    } else if (rc == 0 && rn_seal_tree(tmp) < 0) {
        rc = infra(j, tmp, strerror(errno));
    } else if (rc == 0 && rename(tmp, cache) < 0 && errno != EEXIST && errno != ENOTEMPTY) {
        rc = infra(j, cache, strerror(errno));
    }
    free(c.output);
    rn_remove_tree(tmp);   /* no-op after a successful rename */
    free(tmp);
    return rc;
}

/* Sets j->checker_dir. 0 ready, 1 problem error (*message), -1 infra. */
static int prepare_checker(struct job *j, char **message)
{
    const struct rn_problem *p = j->prob;
    const char *dot = strrchr(p->checker_source, '.');
    const char *lang_id = dot && !strcmp(dot, ".c") ? "c" : "cpp";
    j->checker_lang = find_language(j->r, lang_id);
    if (!j->checker_lang) {
        *message = rn_strdup_printf("no language '%s' to compile the checker with", lang_id);
        return 1;
    }
    char *path = rn_strdup_printf("%s/%s", p->dir, p->checker_source);
    struct checker_src cs;
    char hex[65];
    if (read_checker_src(path, &cs) < 0 || checker_hash(j->checker_lang, &cs, hex) < 0) {
        *message = rn_strdup_printf("%s: cannot read the checker", path);
        checker_src_free(&cs);
        free(path);
        return 1;
    }
    free(path);
    char *root = rn_strdup_printf("%s/checkers", j->r->work_dir);
    j->checker_dir = rn_strdup_printf("%s/%s", root, hex);
    struct stat st;
    int rc = 0;
    if (stat(j->checker_dir, &st) < 0) {
        rc = rn_mkdir_p(root, 0755) < 0 ? infra(j, root, strerror(errno))
                                          : build_checker(j, j->checker_lang, &cs, j->checker_dir,
                                                          message);
    }
    free(root);
    checker_src_free(&cs);
    return rc;
}

static char *read_text(const char *path)
{
    char *s = rn_read_file(path, CHECKER_TEXT_MAX, NULL);
    return s ? s : strdup("");
}

static int run_custom_checker(struct job *j, const struct rn_test *t, struct rn_check *chk)
{
    const struct rn_language *l = j->checker_lang;
    if (rn_reset_box(j->chk, j->checker_dir, !j->chk_ready) < 0)
        return infra(j, j->chk, strerror(errno));
    j->chk_ready = true;
    char *in = rn_strdup_printf("/problem/%s", t->input);
    char *ans = rn_strdup_printf("/problem/%s", t->answer);
    char *const extra[] = {in, "/output/out", ans, NULL};
    char **argv = rn_argv_expand(l->run, CHECKER_MEMORY, extra);
    const struct sandbox_mount data[] = {{.host = j->prob_abs, .inside = "/problem"},
                                         {.host = j->out_dir, .inside = "/output"}};
    size_t mount_count;
    struct sandbox_mount *mounts = mounts_for(l, data, 2, &mount_count);
    int out_fd = open_out(j->chk_out), err_fd = open_out(j->chk_err);
    struct sandbox_job sj = SANDBOX_JOB_INIT;
    sj.slot = j->slot;
    sj.argv = (const char *const *)argv;
    sj.envp = (const char *const *)l->env;
    sj.workdir = j->chk;
    sj.stdout_fd = out_fd;
    sj.stderr_fd = err_fd;
    sj.limits = (struct sandbox_limits){.cpu_time = CHECKER_CPU, .wall_time = CHECKER_CPU * 2,
                                        .memory = CHECKER_MEMORY, .output = 16 << 20,
                                        .procs = l->processes};
    sj.mounts = mounts;
    sj.mount_count = mount_count;
    struct sandbox_result res;
    int rc = out_fd < 0 || err_fd < 0 ? -2 : sandbox_run(j->r->sb, &sj, &res);
    if (out_fd >= 0)
        close(out_fd);
    if (err_fd >= 0)
        close(err_fd);
    rn_argv_free(argv);
    free(mounts);
    free(in);
    free(ans);
    if (rc == -2)
        return infra(j, j->chk_out, strerror(errno));
    if (rc < 0)
        return infra(j, "sandbox (checker)", res.message);
    if (res.status == SANDBOX_OK || (res.status == SANDBOX_RE && res.signal == 0)) {
        char *o = read_text(j->chk_out), *e = read_text(j->chk_err);
        rn_check_from_exit(res.exit_code, o, e, chk);
        free(o);
        free(e);
    } else {
        chk->verdict = RUNNER_IE;
        chk->fraction = 0;
        snprintf(chk->message, sizeof chk->message, "the checker ended with %s: %.400s",
                 sandbox_status_name(res.status), res.message);
    }
    return 0;
}

/* ---- running one test ---------------------------------------------------- */

static enum runner_verdict verdict_of(enum sandbox_status s)
{
    switch (s) {
    case SANDBOX_OK: return RUNNER_AC;
    case SANDBOX_RE: return RUNNER_RE;
    case SANDBOX_TLE: return RUNNER_TLE;
    case SANDBOX_MLE: return RUNNER_MLE;
    case SANDBOX_OLE: return RUNNER_OLE;
    case SANDBOX_SV: return RUNNER_SV;
    case SANDBOX_IE: break;
    }
    return RUNNER_IE;
}

static uint64_t run_memory(const struct job *j)
{
    return j->prob->memory_limit + j->lang->extra_memory;
}

static int run_program(struct job *j, const struct rn_test *t, struct sandbox_result *res)
{
    char *in_path = rn_strdup_printf("%s/%s", j->prob->dir, t->input);
    int in_fd = open(in_path, O_RDONLY | O_CLOEXEC);
    free(in_path);
    if (in_fd < 0)
        return infra(j, t->input, strerror(errno));
    int out_fd = open_out(j->out);
    if (out_fd < 0) {
        close(in_fd);
        return infra(j, j->out, strerror(errno));
    }
    const struct rn_language *l = j->lang;
    char **argv = rn_argv_expand(l->run, run_memory(j), NULL);
    /* The sealed compile directory, read-only, is the program's /box: it
     * starts every test the same and nothing it writes reaches the host's
     * disk. Its scratch space is the private /tmp, counted as memory. */
    struct sandbox_mount program_files = {.host = j->src, .inside = "/box"};
    size_t mount_count;
    struct sandbox_mount *mounts = mounts_for(l, &program_files, 1, &mount_count);
    double cpu = j->prob->time_limit * l->time_factor;
    struct sandbox_job sj = SANDBOX_JOB_INIT;
    sj.slot = j->slot;
    sj.argv = (const char *const *)argv;
    sj.envp = (const char *const *)l->env;
    sj.workdir = NULL;
    sj.stdin_fd = in_fd;
    sj.stdout_fd = out_fd;
    sj.profile = l->profile;
    sj.limits = (struct sandbox_limits){.cpu_time = cpu, .wall_time = cpu * 2 + 1,
                                        .memory = run_memory(j),
                                        .output = j->prob->output_limit,
                                        .procs = l->processes};
    sj.mounts = mounts;
    sj.mount_count = mount_count;
    int rc = sandbox_run(j->r->sb, &sj, res);
    close(in_fd);
    close(out_fd);
    rn_argv_free(argv);
    free(mounts);
    return rc < 0 ? infra(j, "sandbox", res->message) : 0;
}

static int check_output(struct job *j, const struct rn_test *t, struct rn_check *chk)
{
    if (j->prob->checker == RN_CHECK_CUSTOM)
        return run_custom_checker(j, t, chk);
    char *ans = rn_strdup_printf("%s/%s", j->prob->dir, t->answer);
    char why[256];
    int rc = rn_check_files(j->prob->checker, j->prob->epsilon, j->out, ans, chk, why, sizeof why);
    free(ans);
    return rc < 0 ? infra(j, "checker", why) : 0;
}

static int run_test(void *ctx, size_t i, struct rn_test_outcome *out)
{
    struct job *j = ctx;
    if (j->req->keep_going && !j->req->keep_going(j->req->keep_going_arg)) {
        snprintf(j->err, sizeof j->err, "abandoned before test %zu", i + 1);
        j->failure = RUNNER_FAILURE_ABORTED;
        return -1;
    }
    double started = rn_now();
    const struct rn_test *t = &j->prob->tests[i];
    struct sandbox_result res;
    if (run_program(j, t, &res) < 0)
        return -1;
    struct rn_check chk = {.verdict = verdict_of(res.status), .fraction = 0};
    if (res.status == SANDBOX_OK && check_output(j, t, &chk) < 0)
        return -1;
    struct rn_test_report *tr = &j->rep->tests[i];
    tr->verdict = chk.verdict;
    tr->cpu_time = res.cpu_time;
    tr->wall_time = res.wall_time;
    tr->memory = res.memory;
    tr->exit_code = res.signal ? 0 : res.exit_code;
    tr->signal = res.signal;
    free(tr->checker_message);
    /* a run that did not end OK was not checked: say what the sandbox saw */
    tr->checker_message = strdup(res.status == SANDBOX_OK ? chk.message
                                 : res.message[0] ? res.message : res.syscall_name);
    tr->pipeline_time = rn_now() - started;
    out->verdict = chk.verdict;
    out->fraction = chk.fraction;
    if (j->req->test_done)
        j->req->test_done(j->req->keep_going_arg, i, j->prob->test_count, (int)chk.verdict);
    return 0;
}

/* ---- judging ------------------------------------------------------------ */

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
                                                      .points = p->subtasks[s].points,
                                                      .verdict = RUNNER_SKIPPED};
        rep->max_score += p->subtasks[s].points;
    }
    return 0;
}

static void set_compile(struct runner_report *rep, const char *status, struct compiled *c)
{
    free(rep->compile_status);
    free(rep->compile_output);
    rep->compile_status = strdup(status);
    rep->compile_output = c->output ? c->output : strdup("");
    rep->compile_cpu_time = c->cpu_time;
    c->output = NULL;
}

static int evaluate(struct job *j)
{
    const struct rn_problem *p = j->prob;
    struct rn_test_outcome *tests = calloc(p->test_count, sizeof *tests);
    struct rn_subtask_outcome *subs = calloc(p->subtask_count, sizeof *subs);
    int rc = -1;
    if (tests && subs)
        rc = rn_evaluate(p, run_test, j, tests, subs, &j->rep->verdict, &j->rep->score);
    for (size_t s = 0; rc == 0 && s < p->subtask_count; s++) {
        j->rep->subtasks[s].verdict = subs[s].verdict;
        j->rep->subtasks[s].score = subs[s].score;
    }
    free(tests);
    free(subs);
    return rc;
}

/* compile, checker, tests; -1 on infrastructure failure or abort */
static int judge_in_slot(struct job *j, const struct runner_request *req)
{
    struct runner_report *rep = j->rep;
    if (write_source(j, j->lang, j->src, req->source, req->source_len) < 0)
        return -1;
    if (j->lang->compile_steps) {
        struct compiled c;
        if (compile_in(j, j->lang, j->src, &c) < 0) {
            free(c.output);
            return -1;
        }
        set_compile(rep, c.ok ? "OK" : "CE", &c);
        if (!c.ok) {
            rep->verdict = RUNNER_CE;
            return 0;
        }
    }
    if (rn_seal_tree(j->src) < 0)
        return infra(j, j->src, strerror(errno));
    if (j->prob->checker == RN_CHECK_CUSTOM) {
        char *message = NULL;
        int rc = prepare_checker(j, &message);
        if (rc != 0) {
            rep->verdict = RUNNER_IE;
            rep->message = message;
            return rc < 0 ? -1 : 0;
        }
    }
    return evaluate(j);
}

static void unknown_language(const struct runner *r, const char *id, char *err, size_t errlen)
{
    int n = snprintf(err, errlen, "unknown language '%s' (known:", id ? id : "");
    for (size_t i = 0; i < r->lang_count && n >= 0 && (size_t)n < errlen; i++)
        n += snprintf(err + n, errlen - (size_t)n, " %s", r->langs[i]->id);
    if (n >= 0 && (size_t)n < errlen)
        snprintf(err + n, errlen - (size_t)n, ")");
}

/* problem.yaml missing: test data not (yet) here, an infrastructure matter */
static bool package_present(const char *dir)
{
    char *path = rn_strdup_printf("%s/problem.yaml", dir);
    bool ok = path && access(path, R_OK) == 0;
    free(path);
    return ok;
}

static int load_problem(const char *dir, struct runner_report *rep, struct rn_problem **out)
{
    struct rn_errors errs = {0};
    int rc = rn_problem_load(dir, out, &errs);
    if (rc < 0) {
        rep->verdict = RUNNER_IE;
        rep->message = rn_errors_join(&errs);
    }
    rn_errors_free(&errs);
    return rc;
}

int runner_judge(struct runner *r, const struct runner_request *req, struct runner_report **out,
                 enum runner_failure *failure, char *err, size_t errlen)
{
    *out = NULL;
    *failure = RUNNER_FAILURE_NONE;
    if (!r->sb)
        return snprintf(err, errlen, "a catalog-only runner cannot judge"), -1;
    const struct rn_language *lang = find_language(r, req->language);
    if (!lang)
        return unknown_language(r, req->language, err, errlen), -1;
    if (!package_present(req->problem_dir)) {
        *failure = RUNNER_FAILURE_INFRA;
        return snprintf(err, errlen, "%s/problem.yaml: %s", req->problem_dir, strerror(errno)), -1;
    }
    struct runner_report *rep = rn_report_new();
    struct rn_problem *prob = NULL;
    if (!rep)
        return snprintf(err, errlen, "out of memory"), -1;
    if (load_problem(req->problem_dir, rep, &prob) < 0 || report_skeleton(rep, prob) < 0) {
        rn_problem_free(prob);
        *out = rep;
        return 0;
    }
    struct job j = {.slot = -1, .lang = lang, .prob = prob, .req = req, .rep = rep};
    j.prob_abs = realpath(prob->dir, NULL);
    int rc = job_begin(&j, r);
    if (rc == 0 && !j.prob_abs)
        rc = infra(&j, prob->dir, strerror(errno));
    if (rc == 0)
        rc = judge_in_slot(&j, req);
    if (rc < 0) {
        *failure = j.failure == RUNNER_FAILURE_NONE ? RUNNER_FAILURE_INFRA : j.failure;
        snprintf(err, errlen, "%s", j.err);
        runner_report_free(rep);
        rep = NULL;
    }
    job_end(&j);
    rn_problem_free(prob);
    *out = rep;
    return rc < 0 ? -1 : 0;
}

/* ---- problem check ------------------------------------------------------ */

static void add_checker_error(struct rn_errors *errs, const struct rn_problem *p,
                              const char *message)
{
    rn_errors_add(errs, "%s/problem.yaml:%d: checker.source: %s: %s", p->dir, p->checker_line,
                  p->checker_source, message);
}

static int check_checker(struct runner *r, const struct rn_problem *p, struct rn_errors *errs)
{
    struct runner_request req = {0};
    struct job j = {.slot = -1, .prob = p, .req = &req};
    char *message = NULL;
    int rc = job_begin(&j, r);
    if (rc == 0)
        rc = prepare_checker(&j, &message);
    if (rc < 0)
        add_checker_error(errs, p, j.err);
    else if (rc > 0)
        add_checker_error(errs, p, message);
    free(message);
    job_end(&j);
    return rc;
}

static const char *const checker_names[] = {"exact", "lines", "tokens", "float", "custom"};

int runner_problem_check(struct runner *r, const char *problem_dir, char **errors, char **summary)
{
    struct rn_errors errs = {0};
    struct rn_problem *p = NULL;
    *errors = NULL;
    if (summary)
        *summary = NULL;
    if (rn_problem_load(problem_dir, &p, &errs) == 0 && p->checker == RN_CHECK_CUSTOM && r)
        check_checker(r, p, &errs);
    if (p && summary)
        *summary = rn_strdup_printf("%s: %zu tests, %zu subtasks, checker %s%s%s, time %gs, "
                                    "memory %lluM", p->name, p->test_count, p->subtask_count,
                                    checker_names[p->checker], p->checker_source ? " " : "",
                                    p->checker_source ? p->checker_source : "", p->time_limit,
                                    (unsigned long long)(p->memory_limit >> 20));
    int count = (int)errs.count;
    *errors = rn_errors_join(&errs);
    rn_errors_free(&errs);
    rn_problem_free(p);
    return count;
}

/* ---- language self-test --------------------------------------------------- */

struct hello {
    const char *ext, *source;
};

static const struct hello hellos[] = {
    {".c", "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n"},
    {".cpp", "#include <iostream>\nint main() { std::cout << \"hello\\n\"; }\n"},
    {".py", "print('hello')\n"},
    {".java", "public class Main { public static void main(String[] a) { "
              "System.out.println(\"hello\"); } }\n"},
    {".rs", "fn main() { println!(\"hello\"); }\n"},
    {".go", "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"hello\") }\n"},
    {".js", "console.log('hello');\n"},
    {".pas", "program hello; begin writeln('hello') end.\n"},
};

static const char *hello_for(const struct rn_language *l)
{
    const char *dot = strrchr(l->source, '.');
    for (size_t i = 0; dot && i < sizeof hellos / sizeof hellos[0]; i++)
        if (!strcmp(dot, hellos[i].ext))
            return hellos[i].source;
    return NULL;
}

static void first_line(const char *text, char *out, size_t outlen)
{
    while (*text == '\n' || *text == ' ')
        text++;
    size_t n = strcspn(text, "\n");
    snprintf(out, outlen, "%.*s", (int)(n < outlen ? n : outlen - 1), text);
}

static int selftest_version(struct job *j, struct runner_selftest *st)
{
    struct rn_language v = *j->lang;          /* the version command as a compile step */
    char **steps[] = {j->lang->version};
    v.compile = steps;
    v.compile_steps = 1;
    if (rn_fresh_dir(j->src, 0777) < 0)
        return infra(j, j->src, strerror(errno));
    struct compiled c;
    int rc = compile_in(j, &v, j->src, &c);
    if (rc == 0)
        first_line(c.output, st->version, sizeof st->version);
    free(c.output);
    return rc;
}

static int selftest_run(struct job *j, struct runner_selftest *st)
{
    /* a problem of one test whose input is /dev/null ("/" + "dev/null") */
    struct rn_problem p = {.dir = "/", .time_limit = 5, .memory_limit = 256ULL << 20,
                           .output_limit = 1 << 20};
    struct rn_test t = {.name = "hello", .input = "dev/null"};
    j->prob = &p;
    struct sandbox_result res;
    double started = rn_now();
    int rc = run_program(j, &t, &res);
    j->prob = NULL;
    if (rc < 0)
        return -1;
    st->run_time = rn_now() - started;
    char *out = rn_read_file(j->out, 256, NULL);
    if (res.status != SANDBOX_OK)
        snprintf(st->status, sizeof st->status, "%s: %.400s", sandbox_status_name(res.status),
                 res.message);
    else if (!out || strcmp(out, "hello\n"))
        snprintf(st->status, sizeof st->status, "printed '%.40s' instead of 'hello'",
                 out ? out : "");
    else
        st->ok = true, snprintf(st->status, sizeof st->status, "OK");
    free(out);
    return 0;
}

static int selftest_in_slot(struct job *j, struct runner_selftest *st)
{
    const char *src = hello_for(j->lang);
    if (selftest_version(j, st) < 0)
        return -1;
    if (!src)
        return snprintf(st->status, sizeof st->status, "no hello-world for '%s'", j->lang->source), 0;
    if (write_source(j, j->lang, j->src, src, strlen(src)) < 0)
        return -1;
    struct compiled c;
    double started = rn_now();
    if (compile_in(j, j->lang, j->src, &c) < 0)
        return free(c.output), -1;
    st->compile_time = rn_now() - started;
    if (!c.ok) {
        char line[200];
        first_line(c.output, line, sizeof line);
        snprintf(st->status, sizeof st->status, "CE: %s", line);
        free(c.output);
        return 0;
    }
    free(c.output);
    if (rn_seal_tree(j->src) < 0)
        return infra(j, j->src, strerror(errno));
    return selftest_run(j, st);
}

int runner_language_selftest(struct runner *r, const char *id, struct runner_selftest *st,
                             char *err, size_t errlen)
{
    *st = (struct runner_selftest){0};
    if (!r->sb)
        return snprintf(err, errlen, "a catalog-only runner has no sandbox"), -1;
    const struct rn_language *l = find_language(r, id);
    if (!l)
        return snprintf(err, errlen, "unknown language '%s'", id), -1;
    struct runner_request req = {0};
    struct job j = {.slot = -1, .lang = l, .req = &req};
    int rc = job_begin(&j, r);
    if (rc == 0)
        rc = selftest_in_slot(&j, st);
    if (rc < 0)
        snprintf(err, errlen, "%s", j.err);
    job_end(&j);
    return rc;
}
