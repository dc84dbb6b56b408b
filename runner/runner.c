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
 *   inter/    an interactor's box; inter.err its stderr
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
 */
#include <dirent.h>
#include <elf.h>
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
    uint64_t compile_cache;
    struct rn_language **langs;
    size_t lang_count;
    struct runner_limits limits;
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
    char *inter, *inter_err;                  /* the interactor's box, stderr */
    bool inter_ready;
    char *inter_dir;                          /* compiled interactor */
    const struct rn_language *inter_lang;
    enum runner_failure failure;
    char err[512];
};

struct compiled {
    bool ok;
    char *output;
    double cpu_time;
};

static void set_compile(struct runner_report *rep, const char *status, struct compiled *c);

/* what a compile adds to the language's commands */
struct compile_opts {
    char **sources;     /* replace the language's source file name in argvs */
    char **flags;       /* appended to every step */
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
    rn_limits_fill(&r->limits, &cfg->limits);
    r->slots = cfg->slots > 0 ? cfg->slots : 1;
    r->work_dir = strdup(cfg->work_dir ? cfg->work_dir : "/tmp/judged-runner");
    r->compile_cache = cfg->compile_cache ? cfg->compile_cache : 256ULL << 20;
    r->busy = calloc((size_t)r->slots, sizeof *r->busy);
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
        char *all = rn_errors_join(&errs);
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
    j->inter = rn_strdup_printf("%s/inter", j->dir);
    j->inter_err = rn_strdup_printf("%s/inter.err", j->dir);
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
        rn_remove_tree(j->inter);
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
    free(j->inter);
    free(j->inter_err);
    free(j->inter_dir);
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

/* A file of the package, opened beneath its root (package.c): -1 with why
 * ("a FIFO (named pipe), not a regular file", "a symbolic link on its path
 * leads out of the package", ...). */
static int open_package_file(const struct rn_problem *p, const char *rel, char *why, size_t whylen)
{
    int root = rn_pkg_root(p->dir, why, whylen);
    int fd = root < 0 ? -1 : rn_pkg_open(root, rel, false, NULL, why, whylen);
    if (root >= 0)
        close(root);
    return fd;
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

/* the note a compile that hit a limit gets; caller frees; NULL: none */
static char *limit_note(const struct sandbox_result *res, const struct sandbox_limits *l)
{
    switch (res->status) {
    case SANDBOX_TLE:
        return rn_strdup_printf("compilation exceeded its time limit (%g s)", l->cpu_time);
    case SANDBOX_MLE:
        return rn_strdup_printf("compilation exceeded its memory limit (%llu MiB)",
                                (unsigned long long)(l->memory >> 20));
    case SANDBOX_OLE:
        /* the usual cause: a big initialised static array fills the object file */
        return rn_strdup_printf("compilation exceeded its output limit: a file the compiler "
                                "wrote (such as the object file of a large initialised static "
                                "array) grew past %llu MiB; a problem can raise it with "
                                "compile_limits.output", (unsigned long long)(l->output >> 20));
    case SANDBOX_SV:
        return strdup("the compiler made a forbidden system call");
    default:
        return NULL;
    }
}

/* the language's compile limits, raised where the problem asks for more */
static struct sandbox_limits compile_limits(const struct job *j, const struct rn_language *l)
{
    double time = l->compile_time;
    uint64_t memory = l->compile_memory, output = l->compile_output;
    if (j->prob && j->prob->compile_time > time)
        time = j->prob->compile_time;
    if (j->prob && j->prob->compile_memory > memory)
        memory = j->prob->compile_memory;
    if (j->prob && j->prob->compile_output > output)
        output = j->prob->compile_output;
    /* the compiler's temporary files (the object file) live in the private
     * /tmp: room for a file of the output limit, so that limit is the one hit */
    uint64_t tmp = output + (16ULL << 20) > (64ULL << 20) ? output + (16ULL << 20) : 0;
    return (struct sandbox_limits){.cpu_time = time, .wall_time = time * 1.5 + 1,
                                   .memory = memory, .output = output, .tmp_size = tmp,
                                   .procs = l->compile_procs};
}

/* a compile step's argv: {memory_mb}, the language's source file name
 * replaced by opts->sources (a grader's files), opts->flags at the end */
static char **compile_argv(const struct rn_language *l, size_t step, uint64_t memory,
                           const struct compile_opts *opts)
{
    char **argv = rn_argv_expand(l->compile[step], memory, opts ? opts->flags : NULL);
    if (!argv || !opts || !opts->sources)
        return argv;
    size_t n = 0, extra = 0;
    while (argv[n])
        n++;
    while (opts->sources[extra])
        extra++;
    char **out = calloc(n * (extra + 1) + 1, sizeof *out);
    size_t k = 0;
    for (size_t i = 0; out && i < n; i++) {
        if (strcmp(argv[i], l->source)) {
            out[k++] = strdup(argv[i]);
            continue;
        }
        for (size_t e = 0; e < extra; e++)
            out[k++] = strdup(opts->sources[e]);
    }
    rn_argv_free(argv);
    return out;
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
                        const struct compile_opts *opts, struct compiled *c)
{
    int fd = open(j->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (step ? 0 : O_TRUNC), 0644);
    if (fd < 0)
        return infra(j, j->log, strerror(errno));
    struct sandbox_limits limits = compile_limits(j, l);
    char **argv = compile_argv(l, step, limits.memory, opts);
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
    sj.limits = limits;
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
    /* gcc's driver survives its assembler's SIGXFSZ and reports it as an
     * internal error: the output limit all the same */
    if (res.status == SANDBOX_RE && strstr(c->output, "File size limit exceeded"))
        res.status = SANDBOX_OLE;
    char *note = limit_note(&res, &limits);
    if (note)
        append_note(c, note);
    else if (!c->ok && !*c->output)
        append_note(c, res.message[0] ? res.message : "the compiler failed without a message");
    free(note);
    return 0;
}

/* A compile can succeed and leave nothing to run: a Go `package notmain` or
 * a Rust `#![crate_type = "rlib"]` writes an ar archive as ./main, a Pascal
 * `unit` writes main.ppu and no ./main. Running that would fail inside the
 * box, which looks like the sandbox's fault; it is the submission's, so it
 * is CE. Only a program file the compile was to make (a relative run
 * command) is looked at; NULL when it can be started. */
static char *not_runnable(const char *dir, const char *program)
{
    if (program[0] == '/')
        return NULL;
    const char *name = !strncmp(program, "./", 2) ? program + 2 : program;
    char *path = rn_strdup_printf("%s/%s", dir, name);
    unsigned char head[20] = {0};
    struct stat st;
    const char *why = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);  /* a FIFO: no wait */
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        why = "is missing";
    else if (read(fd, head, sizeof head) >= 7 && !memcmp(head, "!<arch>", 7))
        why = "is a library (an ar archive), not a program";
    else if (memcmp(head, "#!", 2) && memcmp(head, ELFMAG, SELFMAG))
        why = "is not an executable program";
    else if (!memcmp(head, ELFMAG, SELFMAG) && head[16] != ET_EXEC && head[16] != ET_DYN)
        why = "is an object file, not a program";
    else if (!(st.st_mode & S_IXOTH))
        why = "is not executable";
    if (fd >= 0)
        close(fd);
    free(path);
    return why ? rn_strdup_printf("the compile produced no runnable program: %s %s", program,
                                  why) : NULL;
}

/* Compiles the source already in dir; -1 only on infrastructure failure. */
static int compile_in(struct job *j, const struct rn_language *l, const char *dir,
                      const struct compile_opts *opts, struct compiled *c)
{
    *c = (struct compiled){.ok = true, .output = strdup("")};
    for (size_t s = 0; s < l->compile_steps && c->ok; s++)
        if (compile_step(j, l, dir, s, opts, c) < 0)
            return -1;
    return 0;
}

/* compile_in, and CE when it left nothing to run */
static int compile_program(struct job *j, const struct rn_language *l, const char *dir,
                           const struct compile_opts *opts, struct compiled *c)
{
    if (compile_in(j, l, dir, opts, c) < 0)
        return -1;
    char *why = c->ok && l->compile_steps ? not_runnable(dir, l->run[0]) : NULL;
    if (why) {
        c->ok = false;
        append_note(c, why);
        free(why);
    }
    return 0;
}

/* a fresh dir holding src as name */
static int write_named(struct job *j, const char *dir, const char *name, const char *src,
                       size_t len)
{
    char *path = rn_strdup_printf("%s/%s", dir, name);
    int rc = rn_fresh_dir(dir, 0777) < 0 || rn_write_file(path, src, len, 0644) < 0 ? -1 : 0;
    if (rc < 0)
        infra(j, path, strerror(errno));
    free(path);
    return rc;
}

static int write_source(struct job *j, const struct rn_language *l, const char *dir,
                        const char *src, size_t len)
{
    return write_named(j, dir, l->source, src, len);
}

/* ---- graders ------------------------------------------------------------- */

static const struct rn_grader *grader_for(const struct rn_problem *p, const char *lang)
{
    for (size_t i = 0; i < p->grader_count; i++)
        if (!strcmp(p->graders[i].lang, lang))
            return &p->graders[i];
    return NULL;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool same_extension(const char *a, const char *b)
{
    const char *da = strrchr(a, '.'), *db = strrchr(b, '.');
    return da && db && !strcmp(da, db);
}

/* "this problem is solved with a grader in: cpp, java" */
static char *no_grader_message(const struct rn_problem *p, const char *lang)
{
    char *s = rn_strdup_printf("this problem is solved with a grader; '%s' has none (graders:",
                               lang);
    for (size_t i = 0; s && i < p->grader_count; i++) {
        char *t = rn_strdup_printf("%s %s", s, p->graders[i].lang);
        free(s);
        s = t;
    }
    char *t = s ? rn_strdup_printf("%s)\n", s) : NULL;
    free(s);
    return t;
}

/* Copies the grader's files beside the submission (saved as name) and lists
 * what the compile commands name instead of the language's source file: the
 * submission, then the grader's files of the same extension. 0, 1 when the
 * package is at fault (*message), -1 infra. */
static int install_grader(struct job *j, const struct rn_grader *g, const char *name,
                          char ***sources, char **message)
{
    size_t n = 0;
    while (g->files[n])
        n++;
    char **list = calloc(n + 2, sizeof *list);
    size_t k = 0;
    if (!list)
        return infra(j, "grader", "out of memory");
    list[k++] = strdup(name);
    *sources = list;
    for (size_t i = 0; i < n; i++) {
        const char *base = base_name(g->files[i]);
        if (!strcmp(base, name)) {
            *message = rn_strdup_printf("grader %s: %s has the name the submission is saved "
                                        "under; set grader.%s.source", g->lang, base, g->lang);
            return 1;
        }
        /* beneath the package root: a link out of it is never read, so
         * never compiled nor quoted by the compiler */
        char why[128], q[RN_QUOTE_CAP];
        size_t len;
        int root = rn_pkg_root(j->prob->dir, why, sizeof why);
        char *text = root < 0 ? NULL : rn_pkg_read(root, g->files[i], 16 << 20, &len, why,
                                                   sizeof why);
        if (root >= 0)
            close(root);
        if (!text) {
            *message = rn_strdup_printf("grader %s: %s: %s", g->lang,
                                        rn_quote(q, sizeof q, g->files[i], strlen(g->files[i])),
                                        why);
            return 1;
        }
        char *to = rn_strdup_printf("%s/%s", j->src, base);
        int rc = rn_write_file(to, text, len, 0644);
        free(text);
        free(to);
        if (rc < 0)
            return infra(j, j->src, strerror(errno));
        if (same_extension(base, j->lang->source))
            list[k++] = strdup(base);
    }
    return 0;
}

/* writes the submission (and its grader); 0, 1 when the verdict is already
 * reached (CE: no grader for the language; IE: a broken grader), -1 infra */
static int write_submission(struct job *j, const struct runner_request *req, char ***sources)
{
    const struct rn_problem *p = j->prob;
    const struct rn_grader *g = p->grader_count ? grader_for(p, j->lang->id) : NULL;
    if (p->grader_count && !g) {
        struct compiled c = {.output = no_grader_message(p, j->lang->id)};
        set_compile(j->rep, "CE", &c);
        j->rep->verdict = RUNNER_CE;
        return 1;
    }
    const char *name = g && g->source ? g->source : j->lang->source;
    if (write_named(j, j->src, name, req->source, req->source_len) < 0)
        return -1;
    char *message = NULL;
    int rc = g ? install_grader(j, g, name, sources, &message) : 0;
    if (rc > 0) {
        j->rep->verdict = RUNNER_IE;
        j->rep->message = message;
    }
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

static int add_header(struct checker_src *cs, int root, const char *dir, const char *name,
                      char *why, size_t whylen)
{
    size_t k = cs->header_count;
    char **h = realloc(cs->headers, (k + 1) * sizeof *h);
    char **t = h ? realloc(cs->header_text, (k + 1) * sizeof *t) : NULL;
    size_t *l = t ? realloc(cs->header_len, (k + 1) * sizeof *l) : NULL;
    if (h)
        cs->headers = h;
    if (t)
        cs->header_text = t;
    if (l)
        cs->header_len = l;
    if (!l)
        return snprintf(why, whylen, "out of memory"), -1;
    char *rel = *dir ? rn_strdup_printf("%s/%s", dir, name) : strdup(name);
    char inner[128];
    cs->header_text[k] = rel ? rn_pkg_read(root, rel, 16 << 20, &cs->header_len[k], inner,
                                           sizeof inner) : NULL;
    cs->headers[k] = strdup(name);
    cs->header_count++;
    if (!cs->header_text[k]) {
        char q[RN_QUOTE_CAP];
        snprintf(why, whylen, "%s: %s", rn_quote(q, sizeof q, rel ? rel : name,
                                                 strlen(rel ? rel : name)), inner);
    }
    free(rel);
    return cs->header_text[k] ? 0 : -1;
}

/* The source and the *.h, *.hpp beside it, each opened beneath the package
 * root: a link leaving the package is refused, never read (and so never
 * compiled nor quoted by a compile error). -1 with why. */
static int read_checker_src(const struct rn_problem *p, const char *source,
                            struct checker_src *cs, char *why, size_t whylen)
{
    *cs = (struct checker_src){0};
    int root = rn_pkg_root(p->dir, why, whylen);
    if (root < 0)
        return -1;
    char inner[128], q[RN_QUOTE_CAP];
    cs->text = rn_pkg_read(root, source, 16 << 20, &cs->len, inner, sizeof inner);
    if (!cs->text) {
        snprintf(why, whylen, "%s: %s", rn_quote(q, sizeof q, source, strlen(source)), inner);
        close(root);
        return -1;
    }
    char *dir = strdup(source);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (dir)
        *(slash ? slash : dir) = '\0';
    int dfd = dir ? rn_pkg_open(root, *dir ? dir : ".", true, NULL, inner, sizeof inner) : -1;
    struct dirent **names = NULL;
    int n = dfd < 0 ? -1 : scandirat(dfd, ".", &names, NULL, alphasort);
    int rc = n < 0 ? (snprintf(why, whylen, "its directory: %s", inner), -1) : 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0 && is_header(names[i]->d_name))
            rc = add_header(cs, root, dir, names[i]->d_name, why, whylen);
        free(names[i]);
    }
    free(names);
    free(dir);
    if (dfd >= 0)
        close(dfd);
    close(root);
    return rc;
}

static int checker_hash(const struct rn_language *l, const struct checker_src *cs,
                        char *const *flags, char out[65])
{
    size_t n = 0, cap = 8 + 2 * cs->header_count;
    for (size_t s = 0; s < l->compile_steps; s++)
        for (char **a = l->compile[s]; *a; a++)
            cap++;
    for (char *const *f = flags; f && *f; f++)
        cap++;
    const void **parts = calloc(cap, sizeof *parts);
    size_t *lens = calloc(cap, sizeof *lens);
    parts[n] = l->id, lens[n++] = strlen(l->id) + 1;
    for (size_t s = 0; s < l->compile_steps; s++)
        for (char **a = l->compile[s]; *a; a++)
            parts[n] = *a, lens[n++] = strlen(*a) + 1;
    for (char *const *f = flags; f && *f; f++)
        parts[n] = *f, lens[n++] = strlen(*f) + 1;
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
                         char **flags, const char *what, const char *cache, char **message)
{
    char *tmp = rn_strdup_printf("%s.tmp-%d-%d", cache, (int)getpid(), j->slot);
    int rc = write_source(j, l, tmp, cs->text, cs->len);
    for (size_t i = 0; rc == 0 && i < cs->header_count; i++) {
        char *hp = rn_strdup_printf("%s/%s", tmp, cs->headers[i]);
        rc = rn_write_file(hp, cs->header_text[i], cs->header_len[i], 0644);
        free(hp);
    }
    struct compiled c = {0};
    struct compile_opts opts = {.flags = flags};
    if (rc == 0)
        rc = compile_program(j, l, tmp, &opts, &c);
    if (rc == 0 && !c.ok) {
        *message = rn_strdup_printf("the %s does not compile:\n%s", what, c.output);
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

/* The language that compiles a package's program: the first (by file name)
 * whose source file has the same extension; .cc and .cxx are C++. */
static const struct rn_language *language_for(const struct runner *r, const char *file)
{
    const char *dot = strrchr(file, '.');
    if (dot && (!strcmp(dot, ".cc") || !strcmp(dot, ".cxx")))
        dot = ".cpp";
    for (size_t i = 0; dot && i < r->lang_count; i++) {
        const char *ext = strrchr(r->langs[i]->source, '.');
        if (ext && !strcmp(ext, dot))
            return r->langs[i];
    }
    return NULL;
}

/* Compiles (or finds cached) a program the package ships, a checker or an
 * interactor: sets *dir and *lang. 0 ready, 1 problem error (*message),
 * -1 infra. */
static int prepare_helper(struct job *j, const char *what, const char *source, char **flags,
                          char **dir, const struct rn_language **lang, char **message)
{
    const struct rn_problem *p = j->prob;
    *lang = language_for(j->r, source);
    if (!*lang) {
        *message = rn_strdup_printf("no language compiles '%s' (the %s): none has a source "
                                    "file with its extension", source, what);
        return 1;
    }
    struct checker_src cs;
    char hex[65], why[512] = "cannot hash it";
    if (read_checker_src(p, source, &cs, why, sizeof why) < 0 ||
        checker_hash(*lang, &cs, flags, hex) < 0) {
        *message = rn_strdup_printf("cannot read the %s: %s", what, why);
        checker_src_free(&cs);
        return 1;
    }
    char *root = rn_strdup_printf("%s/checkers", j->r->work_dir);
    free(*dir);
    *dir = rn_strdup_printf("%s/%s", root, hex);
    struct stat st;
    int rc = 0;
    if (stat(*dir, &st) < 0) {
        rc = rn_mkdir_p(root, 0755) < 0 ? infra(j, root, strerror(errno))
                                          : build_checker(j, *lang, &cs, flags, what, *dir,
                                                          message);
    }
    free(root);
    checker_src_free(&cs);
    return rc;
}

static int prepare_checker(struct job *j, char **message)
{
    return prepare_helper(j, "checker", j->prob->checker_source, j->prob->checker_flags,
                          &j->checker_dir, &j->checker_lang, message);
}

static int prepare_interactor(struct job *j, char **message)
{
    return prepare_helper(j, "interactor", j->prob->interactor.source, j->prob->interactor.flags,
                          &j->inter_dir, &j->inter_lang, message);
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
    sj.profile = l->profile;     /* a checker in Java needs the JVM's */
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

/* a run's verdict from the sandbox's status (batch and interactive runs) */
enum runner_verdict rn_verdict_of(enum sandbox_status s)
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

/* CPU limit x time_factor; the wall limit is the problem's (x time_factor
 * too), else 2 x CPU + 1 s */
static double wall_limit(const struct job *j, double cpu)
{
    if (j->prob->wall_time_limit > 0)
        return j->prob->wall_time_limit * j->lang->time_factor;
    return cpu * 2 + 1;
}

/* the submission's sandbox job for one test; the caller sets its stdio and
 * frees *argv (rn_argv_free) and *mounts */
static void program_job(struct job *j, struct sandbox_job *sj, char ***argv,
                        struct sandbox_mount **mounts)
{
    const struct rn_language *l = j->lang;
    *argv = rn_argv_expand(l->run, run_memory(j), NULL);
    /* The sealed compile directory, read-only, is the program's /box: it
     * starts every test the same and nothing it writes reaches the host's
     * disk. Its scratch space is the private /tmp, counted as memory. */
    struct sandbox_mount program_files = {.host = j->src, .inside = "/box"};
    size_t mount_count;
    *mounts = mounts_for(l, &program_files, 1, &mount_count);
    double cpu = j->prob->time_limit * l->time_factor;
    *sj = (struct sandbox_job)SANDBOX_JOB_INIT;
    sj->slot = j->slot;
    sj->argv = (const char *const *)*argv;
    sj->envp = (const char *const *)l->env;
    sj->workdir = NULL;
    sj->profile = l->profile;
    sj->limits = (struct sandbox_limits){.cpu_time = cpu, .wall_time = wall_limit(j, cpu),
                                         .memory = run_memory(j),
                                         .output = j->prob->output_limit,
                                         .procs = l->processes};
    sj->mounts = *mounts;
    sj->mount_count = mount_count;
}

static int run_program(struct job *j, const struct rn_test *t, struct sandbox_result *res)
{
    char why[128] = "";
    /* the self-test's problem has no package: its input is /dev/null */
    int in_fd = j->prob->dir ? open_package_file(j->prob, t->input, why, sizeof why)
                             : open("/dev/null", O_RDONLY | O_CLOEXEC);
    char q[RN_QUOTE_CAP];
    if (in_fd < 0)
        return infra(j, t->input ? rn_quote(q, sizeof q, t->input, strlen(t->input)) : "/dev/null",
                     *why ? why : strerror(errno));
    int out_fd = open_out(j->out);
    if (out_fd < 0) {
        close(in_fd);
        return infra(j, j->out, strerror(errno));
    }
    char **argv;
    struct sandbox_mount *mounts;
    struct sandbox_job sj;
    program_job(j, &sj, &argv, &mounts);
    sj.stdin_fd = in_fd;
    sj.stdout_fd = out_fd;
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
    char why[256];
    int ans = open_package_file(j->prob, t->answer, why, sizeof why);
    char q[RN_QUOTE_CAP];
    if (ans < 0)
        return infra(j, rn_quote(q, sizeof q, t->answer, strlen(t->answer)), why);
    int out = open(j->out, O_RDONLY | O_CLOEXEC);
    if (out < 0) {
        close(ans);
        return infra(j, j->out, strerror(errno));
    }
    int rc = rn_check_fds(j->prob->checker, &j->prob->compare, out, ans, chk, why, sizeof why);
    close(out);
    close(ans);
    return rc < 0 ? infra(j, "checker", why) : 0;
}

/* ---- an interactive test (the pipes and the verdict: interactive.c) ------ */

/* The interactor's job: its own slot (the companion of the job's), the
 * package read-only at /problem, output/ writable at /output (testlib's
 * result file, Kattis's feedback dir). Its limits are the checker's, its
 * wall clock the submission's plus CHECKER_CPU: the submission always ends
 * first when both wait. */
static void interactor_job(struct job *j, const struct rn_test *t, double sub_wall,
                           struct sandbox_job *sj, char ***argv, struct sandbox_mount **mounts)
{
    const struct rn_language *l = j->inter_lang;
    char *in = rn_strdup_printf("/problem/%s", t->input);
    char *ans = rn_strdup_printf("/problem/%s", t->answer);
    char *testlib[] = {in, "/output/out", ans, NULL}, *kattis[] = {in, ans, "/output/", NULL};
    *argv = rn_argv_expand(l->run, CHECKER_MEMORY,
                           j->prob->interactor.protocol == RN_PROTO_KATTIS ? kattis : testlib);
    free(in);
    free(ans);
    const struct sandbox_mount data[] = {{.host = j->prob_abs, .inside = "/problem"},
                                         {.host = j->out_dir, .inside = "/output",
                                          .writable = true}};
    size_t mount_count;
    *mounts = mounts_for(l, data, 2, &mount_count);
    *sj = (struct sandbox_job)SANDBOX_JOB_INIT;
    sj->slot = j->slot + j->r->slots;
    sj->argv = (const char *const *)*argv;
    sj->envp = (const char *const *)l->env;
    sj->workdir = j->inter;
    sj->profile = l->profile;
    sj->limits = (struct sandbox_limits){.cpu_time = sub_wall + CHECKER_CPU,
                                         .wall_time = sub_wall + CHECKER_CPU,
                                         .memory = CHECKER_MEMORY, .output = 16 << 20,
                                         .procs = l->processes};
    sj->mounts = *mounts;
    sj->mount_count = mount_count;
}

/* the interactor's message: stderr (testlib) or judgemessage.txt (Kattis) */
static char *interactor_message(const struct job *j)
{
    if (j->prob->interactor.protocol != RN_PROTO_KATTIS)
        return read_text(j->inter_err);
    char *path = rn_strdup_printf("%s/judgemessage.txt", j->out_dir);
    char *text = read_text(path);
    free(path);
    return text;
}

static int run_interactive(struct job *j, const struct rn_test *t, struct sandbox_result *res,
                           struct rn_check *chk)
{
    if (rn_reset_box(j->inter, j->inter_dir, !j->inter_ready) < 0)
        return infra(j, j->inter, strerror(errno));
    j->inter_ready = true;
    /* a fresh output/ per test, writable by the interactor's slot uid, with
     * an empty result file: a checker after it always finds one */
    if (rn_fresh_dir(j->out_dir, 01777) < 0 || rn_write_file(j->out, "", 0, 0666) < 0 ||
        chmod(j->out, 0666) < 0)
        return infra(j, j->out_dir, strerror(errno));
    int err_fd = open_out(j->inter_err);
    if (err_fd < 0)
        return infra(j, j->inter_err, strerror(errno));
    char **sub_argv, **inter_argv;
    struct sandbox_mount *sub_mounts, *inter_mounts;
    struct sandbox_job sub, inter;
    program_job(j, &sub, &sub_argv, &sub_mounts);
    interactor_job(j, t, sub.limits.wall_time, &inter, &inter_argv, &inter_mounts);
    inter.stderr_fd = err_fd;
    struct rn_pair_result pr;
    char why[512];
    int rc = rn_interact(j->r->sb, &sub, &inter, j->prob->output_limit, &pr, why, sizeof why);
    close(err_fd);
    rn_argv_free(sub_argv);
    rn_argv_free(inter_argv);
    free(sub_mounts);
    free(inter_mounts);
    if (rc < 0)
        return infra(j, "sandbox (interactive)", why);
    *res = pr.submission;
    char *message = interactor_message(j);
    rn_interactive_verdict(&pr, j->prob->interactor.protocol, NULL, message, chk);
    free(message);
    /* Polygon's form: a checker, when the problem names one, judges the
     * interactor's result file once the interactor accepted */
    if (j->prob->checker_given && chk->verdict == RUNNER_AC)
        return check_output(j, t, chk);
    return 0;
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
    struct rn_check chk = {0};
    if (j->prob->type == RN_INTERACTIVE) {
        if (run_interactive(j, t, &res, &chk) < 0)
            return -1;
    } else if (run_program(j, t, &res) < 0) {
        return -1;
    } else {
        chk = (struct rn_check){.verdict = rn_verdict_of(res.status), .fraction = 0};
        if (res.status == SANDBOX_OK && check_output(j, t, &chk) < 0)
            return -1;
        /* a run that did not end OK was not checked: say what the sandbox saw */
        if (res.status != SANDBOX_OK)
            snprintf(chk.message, sizeof chk.message, "%s",
                     res.message[0] ? res.message : res.syscall_name);
    }
    struct rn_test_report *tr = &j->rep->tests[i];
    tr->verdict = chk.verdict;
    tr->cpu_time = res.cpu_time;
    tr->wall_time = res.wall_time;
    tr->memory = res.memory;
    tr->exit_code = res.signal ? 0 : res.exit_code;
    tr->signal = res.signal;
    free(tr->checker_message);
    tr->checker_message = strdup(chk.message);
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
    struct compile_opts opts = {0};
    int wrote = write_submission(j, req, &opts.sources);
    if (wrote != 0) {
        rn_argv_free(opts.sources);
        return wrote < 0 ? -1 : 0;
    }
    if (j->lang->compile_steps) {
        struct compiled c = {0};
        char key[65], limits[200];
        struct sandbox_limits cl = compile_limits(j, j->lang);
        snprintf(limits, sizeof limits, "%.17g %llu %llu %llu %lld", cl.cpu_time, (unsigned long long)cl.memory,
                 (unsigned long long)cl.output, (unsigned long long)cl.tmp_size, (long long)cl.procs);
        struct rn_ccache_inputs in;
        bool keyed = rn_ccache_key(j->lang, limits, j->src, opts.sources, opts.flags, &in, key) == 0;
        int rc = 0;
        if (keyed && rn_ccache_get(j->r->work_dir, key, j->src, &c.output) == 0) {
            c.ok = true;   /* compiled before: verified copies of the artefacts */
            rep->compile_cached = true;
        } else {
            rc = compile_program(j, j->lang, j->src, &opts, &c);
            if (rc == 0 && c.ok && keyed)
                rn_ccache_put(j->r->work_dir, key, j->lang, limits, opts.sources, opts.flags, &in, j->src, c.output,
                              j->slot, j->r->compile_cache);
        }
        rn_ccache_inputs_free(&in);
        rn_argv_free(opts.sources);
        if (rc < 0) {
            free(c.output);
            return -1;
        }
        set_compile(rep, c.ok ? "OK" : "CE", &c);
        if (!c.ok) {
            rep->verdict = RUNNER_CE;
            return 0;
        }
    } else {
        rn_argv_free(opts.sources);
    }
    if (rn_seal_tree(j->src) < 0)
        return infra(j, j->src, strerror(errno));
    if (j->prob->checker == RN_CHECK_CUSTOM || j->prob->type == RN_INTERACTIVE) {
        char *message = NULL;
        int rc = 0;
        if (j->prob->checker == RN_CHECK_CUSTOM)
            rc = prepare_checker(j, &message);
        if (rc == 0 && j->prob->type == RN_INTERACTIVE)
            rc = prepare_interactor(j, &message);
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

static int load_problem(const struct runner *r, const char *dir, struct runner_report *rep,
                        struct rn_problem **out)
{
    struct rn_errors errs = {0};
    int rc = rn_problem_load(dir, &r->limits, out, &errs);
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
    if (load_problem(r, req->problem_dir, rep, &prob) < 0 || report_skeleton(rep, prob) < 0) {
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

static void add_checker_error(struct rn_errors *errs, const struct rn_problem *p, bool inter,
                              const char *message)
{
    char q[RN_QUOTE_CAP];
    const char *src = inter ? p->interactor.source : p->checker_source;
    rn_quote(q, sizeof q, src, strlen(src));
    if (inter)
        rn_errors_add(errs, "%s/problem.yaml:%d: interactor: %s: %s", p->dir, p->interactor.line,
                      q, message);
    else
        rn_errors_add(errs, "%s/problem.yaml:%d: checker.source: %s: %s", p->dir,
                      p->checker_line, q, message);
}

/* compiles the package's checker or interactor, as a judge would */
static int check_checker(struct runner *r, const struct rn_problem *p, bool inter,
                         struct rn_errors *errs)
{
    struct runner_request req = {0};
    struct job j = {.slot = -1, .prob = p, .req = &req};
    char *message = NULL;
    int rc = job_begin(&j, r);
    if (rc == 0)
        rc = inter ? prepare_interactor(&j, &message) : prepare_checker(&j, &message);
    if (rc < 0)
        add_checker_error(errs, p, inter, j.err);
    else if (rc > 0)
        add_checker_error(errs, p, inter, message);
    free(message);
    job_end(&j);
    return rc;
}

static const char *const checker_names[] = {"exact", "lines", "tokens", "float", "custom"};

/* About what a minimal C program has resident. Below it a run may not even
 * start (measured: 64k never, 256k only while libc's pages are charged to
 * another cgroup): MLE before the program's first line. */
#define MEMORY_LIMIT_FLOOR (1ULL << 20)

/* Legal but surely not what the setter meant: lines that do not count as
 * errors. */
static void add_warnings(const struct rn_problem *p, struct rn_errors *warns)
{
    if (p->memory_limit && p->memory_limit < MEMORY_LIMIT_FLOOR)
        rn_errors_add(warns, "%s/problem.yaml:%d: memory_limit: warning: %llu bytes is too "
                      "small for a program to start (a minimal C program has ~1M resident, "
                      "Python ~10M, Java ~40M): runs will end MLE", p->dir, p->memory_line,
                      (unsigned long long)p->memory_limit);
    rn_problem_warnings(p, warns);
}

static char *problem_summary(const struct rn_problem *p)
{
    bool inter = p->type == RN_INTERACTIVE;
    char qn[RN_QUOTE_CAP], qs[RN_QUOTE_CAP];
    const char *src = inter && !p->checker_given ? p->interactor.source
                    : p->checker_source ? p->checker_source : "";
    rn_quote(qs, sizeof qs, src, strlen(src));
    char *judge = inter && !p->checker_given
                      ? rn_strdup_printf("interactor %s", qs)
                      : rn_strdup_printf("%schecker %s%s%s", inter ? "interactive, " : "",
                                         checker_names[p->checker], *qs ? " " : "", qs);
    char *s = rn_strdup_printf("%s: %zu tests, %zu subtasks, %s, time %gs, memory %lluM",
                               rn_quote(qn, sizeof qn, p->name, strlen(p->name)), p->test_count,
                               p->subtask_count, judge, p->time_limit,
                               (unsigned long long)(p->memory_limit >> 20));
    free(judge);
    return s;
}

static int check_package(struct runner *r, const struct runner_limits *limits,
                         const char *problem_dir, char **errors, char **summary)
{
    struct rn_errors errs = {0}, warns = {0};
    struct rn_problem *p = NULL;
    *errors = NULL;
    if (summary)
        *summary = NULL;
    if (rn_problem_load(problem_dir, limits, &p, &errs) == 0 && p->checker == RN_CHECK_CUSTOM &&
        r)
        check_checker(r, p, false, &errs);
    if (p && p->type == RN_INTERACTIVE && r)
        check_checker(r, p, true, &errs);
    if (p)
        add_warnings(p, &warns);
    if (p && summary)
        *summary = problem_summary(p);
    int count = (int)(errs.count + errs.dropped);
    for (size_t i = 0; i < warns.count; i++)
        rn_errors_add(&errs, "%s", warns.items[i]);
    *errors = rn_errors_join(&errs);
    rn_errors_free(&errs);
    rn_errors_free(&warns);
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
    int rc = compile_in(j, &v, j->src, NULL, &c);
    if (rc == 0)
        first_line(c.output, st->version, sizeof st->version);
    free(c.output);
    return rc;
}

static int selftest_run(struct job *j, struct runner_selftest *st)
{
    /* a problem of one test, no package: its input is /dev/null */
    struct rn_problem p = {.dir = NULL, .time_limit = 5, .memory_limit = 256ULL << 20,
                           .output_limit = 1 << 20};
    struct rn_test t = {.name = "hello", .input = NULL};
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
    if (compile_program(j, j->lang, j->src, NULL, &c) < 0)
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
