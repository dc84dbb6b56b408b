/*
 * compile.c - compiling in the sandbox, for a submission, a checker or an
 * interactor, and for the self-test.
 *
 * Each of the language's compile steps runs in the job's slot with profile
 * `compile` and the language's compile limits (raised, never lowered, by the
 * problem's compile_limits), its stdout and stderr appended to
 * compile.log. A step that hits a limit gets a note naming it, so a CE says
 * why; gcc's driver reporting its assembler's SIGXFSZ is the output limit.
 * A compile that succeeds but leaves nothing to run (an archive, an object
 * file, no ./main) is the submission's fault: CE, not a sandbox failure.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define COMPILE_LOG_MAX (64 * 1024)

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

/* what a problem's ask raises a language's own limit to: never lowered,
 * and never past the host's max (a language's own may be above it) */
static uint64_t raised(uint64_t own, uint64_t asked, uint64_t max)
{
    uint64_t cap = own > max ? own : max;
    return asked <= own ? own : asked < cap ? asked : cap;
}

/* the language's compile limits, raised where the problem asks for more but
 * never past the host's maximum (runner_limits.compile_*_max): a package
 * cannot buy itself minutes of a judge's core or a cache full of output */
struct sandbox_limits rn_compile_limits(const struct rn_job *j, const struct rn_language *l)
{
    double time = l->compile_time;
    uint64_t memory = l->compile_memory, output = l->compile_output;
    if (j->prob) {
        const struct runner_limits *max = &j->prob->limits;
        if (j->prob->compile_time > time)
            time = fmin(j->prob->compile_time, fmax(time, max->compile_time_max_ms / 1000.0));
        memory = raised(memory, j->prob->compile_memory, max->compile_memory_max);
        output = raised(output, j->prob->compile_output, max->compile_output_max);
    }
    /* the compiler's temporary files (the object file) live in the private
     * /tmp: room for a file of the output limit, so that limit is the one hit */
    uint64_t tmp = output + (16ULL << 20) > (64ULL << 20) ? output + (16ULL << 20) : 0;
    return (struct sandbox_limits){.cpu_time = time, .wall_time = time * 1.5 + 1,
                                   .memory = memory, .output = output, .tmp_size = tmp,
                                   .procs = l->compile_procs, .open_files = l->open_files};
}

/* A helper's build (checker, interactor, program directory): the compile's
 * memory and output, but CPU and wall clock of its own (the host's
 * helper_cpu_time, helper_wall_time): a checker built at a contest's first
 * minute on a busy host must not run out of a contestant's clock. */
static struct sandbox_limits helper_limits(const struct rn_job *j, const struct rn_language *l)
{
    struct sandbox_limits lim = rn_compile_limits(j, l);
    const struct runner_limits *host = &j->r->limits;
    lim.cpu_time = fmax(lim.cpu_time, host->helper_cpu_ms / 1000.0);
    lim.wall_time = host->helper_wall_ms / 1000.0;
    return lim;
}

/* a compile step's argv: {memory_mb}, the language's source file name
 * replaced by opts->sources (a grader's files), opts->flags at the end,
 * {prepared} by the prepared files' flags when they are in use */
static char **compile_argv(const struct rn_language *l, size_t step, uint64_t memory,
                           const struct rn_compile_opts *opts, const char *prepared)
{
    char **argv = rn_argv_expand_prepared(l->compile[step], memory,
                                          prepared ? l->prepare->compile_flags : NULL,
                                          opts ? opts->flags : NULL);
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

static void append_note(struct rn_compiled *c, const char *note)
{
    char *s = rn_strdup_printf("%s%s%s\n", c->output, *c->output ? "\n" : "", note);
    if (s) {
        free(c->output);
        c->output = s;
    }
}

/* A helper's build stopped by the wall clock with CPU time left: it was
 * waiting for a core (or for something that never came), which is this
 * host's state, not the package's fault: an infrastructure failure, so
 * judged retries the job later (with backoff, counted) instead of IE. */
static int helper_starved(struct rn_job *j, const struct sandbox_result *res, const struct sandbox_limits *lim)
{
    char why[200];
    snprintf(why, sizeof why, "ran out of wall clock (%.3g s, helper_wall_time) with CPU time left (%.3g of "
             "%.3g s): the host is busy, or the build waits; not the problem's fault", lim->wall_time,
             res->cpu_time, lim->cpu_time);
    return rn_job_infra(j, "building the problem's helper", why);
}

/* prepared: the host dir of the language's prepared files, or NULL */
static int compile_step(struct rn_job *j, const struct rn_language *l, const char *dir, size_t step,
                        const struct rn_compile_opts *opts, const char *prepared,
                        struct rn_compiled *c)
{
    int fd = open(j->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (step ? 0 : O_TRUNC), 0644);
    if (fd < 0)
        return rn_job_infra(j, j->log, strerror(errno));
    bool helper = opts && opts->helper;
    struct sandbox_limits limits = helper ? helper_limits(j, l) : rn_compile_limits(j, l);
    char **argv = compile_argv(l, step, limits.memory, opts, prepared);
    size_t mount_count;
    struct sandbox_mount pm = {.host = prepared, .inside = RN_PREPARED_MOUNT};
    struct sandbox_mount *mounts = rn_mounts_for(l, &pm, prepared ? 1 : 0, &mount_count);
    struct sandbox_job sj = SANDBOX_JOB_INIT;
    sj.slot = j->slot;
    sj.cpus = l->compile_unpinned ? NULL : rn_slot_cpus(j->r, j->slot);
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
        return rn_job_infra(j, "sandbox (compile)", res.message);
    if (helper && res.status == SANDBOX_TLE && res.tle_wall && res.cpu_time < limits.cpu_time)
        return helper_starved(j, &res, &limits);
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
int rn_compile_in(struct rn_job *j, const struct rn_language *l, const char *dir,
                  const struct rn_compile_opts *opts, struct rn_compiled *c)
{
    /* before the first step opens the log: a build writes there too */
    char *prepared = rn_prepared_for(j, l, true);
    *c = (struct rn_compiled){.ok = true, .output = strdup("")};
    int rc = 0;
    for (size_t s = 0; s < l->compile_steps && c->ok && rc == 0; s++)
        rc = compile_step(j, l, dir, s, opts, prepared, c);
    free(prepared);
    return rc;
}

/* compile_in, and CE when it left nothing to run */
int rn_compile_program(struct rn_job *j, const struct rn_language *l, const char *dir,
                       const struct rn_compile_opts *opts, struct rn_compiled *c)
{
    if (rn_compile_in(j, l, dir, opts, c) < 0)
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
int rn_write_named(struct rn_job *j, const char *dir, const char *name, const char *src,
                   size_t len)
{
    char *path = rn_strdup_printf("%s/%s", dir, name);
    int rc = rn_fresh_dir(dir, 0777) < 0 || rn_write_file(path, src, len, 0644) < 0 ? -1 : 0;
    if (rc < 0)
        rn_job_infra(j, path, strerror(errno));
    free(path);
    return rc;
}

int rn_write_source(struct rn_job *j, const struct rn_language *l, const char *dir,
                    const char *src, size_t len)
{
    return rn_write_named(j, dir, l->source, src, len);
}
