/*
 * cms_gen.c - a CMS task's tests made at push, as cmsMake and task-maker
 * make them, for a package that holds gen/GEN but none of its inputs:
 *
 *   - gen/GEN's lines, one per test: the generator's arguments (split at
 *     blanks), or "#COPY: FILE" (the package's file is the input);
 *   - the generator, gen/generatore.EXT or gen/generator.EXT (C, C++,
 *     Python, ... by its extension), run once per line: its stdout is
 *     input/inputN.txt;
 *   - the validator, gen/valida.EXT or gen/validator.EXT when there is one,
 *     run on each input (given as the file input.txt, its first argument,
 *     and on stdin; the second argument is the test's subtask, 1 for the
 *     first "#ST:" marker, as task-maker gives it): exiting non-zero
 *     refuses the test;
 *   - the official solution, sol/soluzione.EXT or sol/solution.EXT, run on
 *     each input as the task runs a submission (its infile/outfile) under
 *     its limits x STORE_GEN_SOLUTION_MARGIN: its output is
 *     output/outputN.txt (one the package holds is kept). With the task's
 *     grader (sol/grader.EXT, C or C++) it is compiled as CMS compiles a
 *     submission: named after the task, with the grader and sol/'s
 *     headers.
 *
 * Nothing runs here: store/ knows no sandbox. The caller's store_tools
 * build and run each program in the runner's boxes (judgectl: no network,
 * bounded CPU, memory, output and processes). Whatever the package
 * controls ends in an error naming gen/GEN's line (or the program's file);
 * the first failure stops the generation, as cmsMake stops.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cms.h"
#include "common.h"

#define GEN_MAX_ARGS 256
/* where a solution and its grader are put together, removed afterwards */
#define GEN_SOLUTION_DIR "judged-cms/solution"
#define GEN_MSG 2048

/* One generation: the programs built, the limits they run under. */
struct gen_job {
    const char *dir;
    const struct cms_task *t;
    const struct store_tools *tools;
    struct store_tool_limits gen_lim, sol_lim;
    void *gen, *val, *sol;
    char gen_src[300], val_src[300], sol_src[300];
    char sol_built[300];             /* GEN_SOLUTION_DIR, or "": sol_src alone */
    struct conv_errs *e;
};

static bool is_file(const char *dir, const char *rel)
{
    char p[4400];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return !stat(p, &st) && S_ISREG(st.st_mode);
}

bool cms_gen_needed(const char *dir, int n)
{
    for (int i = 0; i < n; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "input/input%d.txt", i);
        if (is_file(dir, rel))
            return false;
    }
    return true;
}

/* A program's message on one line of the error list (a compiler's output
 * spans many), as text: what the package's program wrote may hold control
 * characters or bytes that are no UTF-8 (a hostile generator's stderr),
 * each shown as '?'. */
static void one_line(char *msg)
{
    size_t n = strlen(msg);
    for (size_t i = 0; i < n;) {
        size_t len = common_utf8_len(msg + i, n - i);
        unsigned char c = (unsigned char)msg[i];
        if (c == '\n' || c == '\r' || c == '\t')
            msg[i] = ' ';
        else if (!len || c < 0x20 || c == 0x7f)
            msg[i] = '?';
        i += len > 1 ? len : 1;
    }
}

static int build(struct gen_job *g, const char *src, const char *what, void **tool)
{
    char msg[GEN_MSG];
    int rc = g->tools->build(g->tools->ctx, g->dir, src, what, tool, msg, sizeof msg);
    if (rc) {
        one_line(msg);
        conv_err(g->e, "%s:0: (%s): %s%s", src, what, rc < 0 ? "cannot be built on this host: " : "", msg);
    }
    return rc;
}

/* The defaults for what the caller left 0. */
static struct store_tool_limits gen_limits(const struct store_tools *tools)
{
    struct store_tool_limits l = tools->generator;
    if (!(l.cpu_time > 0))
        l.cpu_time = STORE_GEN_CPU_TIME;
    if (!l.memory)
        l.memory = STORE_GEN_MEMORY;
    if (!l.output)
        l.output = STORE_GEN_OUTPUT;
    return l;
}

/* Copies the package's file from to the package's path to. */
static int copy_rel(struct gen_job *g, const char *from, const char *to)
{
    char a[4400], b[4400];
    snprintf(a, sizeof a, "%s/%s", g->dir, from);
    snprintf(b, sizeof b, "%s/%s", g->dir, to);
    int in = open(a, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    int out = in < 0 ? -1 : open(b, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    char buf[1 << 16];
    ssize_t n = out < 0 ? -1 : 0;
    while (n == 0 && (n = read(in, buf, sizeof buf)) > 0)
        n = common_write_all(out, buf, (size_t)n) ? -1 : 0;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out))
        n = -1;
    if (n < 0)
        conv_err(g->e, "%s:0: (solution): cannot copy it to %s: %s", from, to, strerror(errno));
    return n < 0 ? -1 : 0;
}

/* A solution CMS compiles with the task's grader (sol/grader.EXT): the
 * grader, the headers of sol/ and the solution (named after the task, as
 * a submission is) in one directory of sources compiled together
 * (GEN_SOLUTION_DIR, removed afterwards). C and C++ only: 0, -1 after an
 * error. */
static int with_grader(struct gen_job *g)
{
    const char *ext = strrchr(g->sol_src, '.') + 1;
    char grader[300];
    snprintf(grader, sizeof grader, "sol/grader.%s", ext);
    if (!is_file(g->dir, grader))
        return 0;
    if (strcmp(ext, "c") && strcmp(ext, "cpp") && strcmp(ext, "cc") && strcmp(ext, "cxx"))
        return conv_err(g->e, "%s:0: (solution): making the outputs with a grader in this language is not done on "
                              "push (C and C++ only): put them in output/", grader), -1;
    char path[4400];
    snprintf(path, sizeof path, "%s/" GEN_SOLUTION_DIR, g->dir);
    if (common_mkdir_p(path, 0755))
        return conv_err(g->e, GEN_SOLUTION_DIR ":0: (package): %s", strerror(errno)), -1;
    snprintf(g->sol_built, sizeof g->sol_built, GEN_SOLUTION_DIR);
    char to[600];
    snprintf(to, sizeof to, GEN_SOLUTION_DIR "/grader.%s", ext);
    int rc = copy_rel(g, grader, to);
    snprintf(to, sizeof to, GEN_SOLUTION_DIR "/%s.%s", g->t->name, ext);
    rc = rc ? rc : copy_rel(g, g->sol_src, to);
    size_t n;
    snprintf(path, sizeof path, "%s/sol", g->dir);
    char **names = conv_sorted_names(path, &n);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        size_t len = strlen(names[i]);
        if (len > 2 && !strcmp(names[i] + len - 2, ".h")) {
            char from[600];
            snprintf(from, sizeof from, "sol/%s", names[i]);
            snprintf(to, sizeof to, GEN_SOLUTION_DIR "/%s", names[i]);
            rc = copy_rel(g, from, to);
        }
    }
    conv_free_names(names, n);
    return rc;
}

/* The generator, validator and solution found and built: 0, or -1 after
 * an error. */
static int find_programs(struct gen_job *g, bool outputs)
{
    static const char *const generators[] = {"gen/generatore", "gen/generator", NULL};
    static const char *const validators[] = {"gen/valida", "gen/validator", NULL};
    static const char *const solutions[] = {"sol/soluzione", "sol/solution", NULL};
    int found = cms_find_source(g->dir, generators, g->gen_src, sizeof g->gen_src, g->e);
    if (found == 0)
        conv_err(g->e, "gen/GEN:0: (generator): the package holds none of its tests' inputs and no generator "
                       "(gen/generatore.cpp, .c, .py, ... or gen/generator.*) to make them");
    int val = found > 0 ? cms_find_source(g->dir, validators, g->val_src, sizeof g->val_src, g->e) : -1;
    int sol = val >= 0 && outputs ? cms_find_source(g->dir, solutions, g->sol_src, sizeof g->sol_src, g->e) : 0;
    if (found <= 0 || val < 0 || sol < 0)
        return -1;
    if (outputs && sol == 0)
        return conv_err(g->e, "output:0: (solution): the outputs are not in the package and there is no official "
                              "solution (sol/soluzione.cpp, .c, .py, ... or sol/solution.*) to make them"), -1;
    if (outputs && g->t->type == CMS_COMMUNICATION)
        return conv_err(g->e, "output:0: (solution): a Communication task's outputs are not made on push (its "
                              "solution talks to the manager): put them in output/"), -1;
    if (outputs && with_grader(g))
        return -1;
    if (build(g, g->gen_src, "generator", &g->gen) ||
        (val > 0 && build(g, g->val_src, "validator", &g->val)) ||
        (outputs && build(g, g->sol_built[0] ? g->sol_built : g->sol_src, "solution", &g->sol)))
        return -1;
    return 0;
}

/* "#COPY: FILE": a file of the package, named from its root. */
static int copy_input(struct gen_job *g, const struct cms_gen_test *gt, int i, const char *to)
{
    const char *f = gt->copy;
    bool inside = *f && *f != '/' && strcmp(f, "..") && strncmp(f, "../", 3) && !strstr(f, "/../") &&
                  !(strlen(f) >= 3 && !strcmp(f + strlen(f) - 3, "/.."));
    if (!inside || !is_file(g->dir, f))
        return conv_err(g->e, "gen/GEN:%d: COPY: test %d: '%.300s' is not a file of the package", gt->line, i,
                        f), -1;
    char from[4400];
    snprintf(from, sizeof from, "%s/%s", g->dir, f);
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    char buf[1 << 16];
    ssize_t n = in < 0 || out < 0 ? -1 : 0;
    while (n == 0 && (n = read(in, buf, sizeof buf)) > 0)
        n = common_write_all(out, buf, (size_t)n) ? -1 : 0;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out))
        n = -1;
    if (n < 0)
        conv_err(g->e, "gen/GEN:%d: COPY: test %d: %.300s: %s", gt->line, i, f, strerror(errno));
    return n < 0 ? -1 : 0;
}

/* GEN's arguments as an argv (blank-separated, as cmsMake splits them). */
static int split_args(char *s, char **argv)
{
    int n = 0;
    for (char *tok = strtok(s, " \t\r"); tok; tok = strtok(NULL, " \t\r")) {
        if (n == GEN_MAX_ARGS)
            return -1;
        argv[n++] = tok;
    }
    argv[n] = NULL;
    return n;
}

/* Runs one program: 0, or -1 after its error (the package's, naming
 * where; the host's, as such). */
static int run(struct gen_job *g, void *tool, char *const *args, const char *in, const char *in_name,
               const char *out, const char *out_name, const struct store_tool_limits *lim, const char *where)
{
    char msg[GEN_MSG];
    int rc = g->tools->run(g->tools->ctx, tool, args, in, in_name, out, out_name, lim, msg, sizeof msg);
    if (rc) {
        one_line(msg);
        conv_err(g->e, "%s: %s%s", where, rc < 0 ? "cannot be run on this host: " : "", msg);
    }
    return rc ? -1 : 0;
}

static int make_input(struct gen_job *g, const struct cms_gen_test *gt, int i)
{
    char path[4400], where[600];
    snprintf(path, sizeof path, "%s/input/input%d.txt", g->dir, i);
    if (gt->copy) {
        if (copy_input(g, gt, i, path))
            return -1;
    } else {
        char *copy = strdup(gt->args ? gt->args : ""), *argv[GEN_MAX_ARGS + 1];
        if (!copy || split_args(copy, argv) < 0) {
            free(copy);
            return conv_err(g->e, "gen/GEN:%d: (generator): test %d: more than %d arguments", gt->line, i,
                            GEN_MAX_ARGS), -1;
        }
        snprintf(where, sizeof where, "gen/GEN:%d: (generator): test %d (%.200s: %.200s)", gt->line, i, g->gen_src,
                 gt->args);
        int rc = run(g, g->gen, argv, NULL, NULL, path, NULL, &g->gen_lim, where);
        free(copy);
        if (rc)
            return -1;
    }
    if (!g->val)
        return 0;
    char st[16];   /* task-maker's second argument: the test's subtask */
    snprintf(st, sizeof st, "%d", gt->subtask);
    char *vargs[] = {"input.txt", st, NULL};
    snprintf(where, sizeof where, "gen/GEN:%d: (validator): test %d: %s refused input/input%d.txt", gt->line, i,
             g->val_src, i);
    return run(g, g->val, vargs, path, "input.txt", NULL, NULL, &g->gen_lim, where);
}

/* output/outputN.txt by the official solution, run as the task runs a
 * submission: its input also as the file input.txt (or the task's
 * infile), its output the task's outfile when it writes one. */
static int make_output(struct gen_job *g, const struct cms_gen_test *gt, int i)
{
    char rel[64], in[4400], out[4400], where[600];
    snprintf(rel, sizeof rel, "output/output%d.txt", i);
    if (is_file(g->dir, rel))
        return 0;
    snprintf(in, sizeof in, "%s/input/input%d.txt", g->dir, i);
    snprintf(out, sizeof out, "%s/%s", g->dir, rel);
    snprintf(where, sizeof where, "gen/GEN:%d: (solution): test %d: %s", gt->line, i, g->sol_src);
    char *none[] = {NULL};
    const struct cms_task *t = g->t;
    return run(g, g->sol, none, in, t->infile[0] ? t->infile : "input.txt", out, t->outfile[0] ? t->outfile : NULL,
               &g->sol_lim, where);
}

static int make_dir(struct gen_job *g, const char *rel)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", g->dir, rel);
    if (mkdir(p, 0755) && errno != EEXIST)
        return conv_err(g->e, "%s:0: (package): cannot make it: %s", rel, strerror(errno)), -1;
    struct stat st;
    if (lstat(p, &st) || !S_ISDIR(st.st_mode))
        return conv_err(g->e, "%s:0: (package): not a directory", rel), -1;
    return 0;
}

/* Whether every output is in the package already. */
static bool outputs_held(const char *dir, int n)
{
    for (int i = 0; i < n; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "output/output%d.txt", i);
        if (!is_file(dir, rel))
            return false;
    }
    return true;
}

void cms_generate(const char *dir, const struct cms_task *t, const struct cms_gen *gen,
                  const struct store_tools *tools, struct conv_errs *e)
{
    if (!tools) {
        conv_err(e, "gen/GEN:0: (generator): the package's tests are made by its generator, which runs in the "
                    "sandbox, and there is none here (judge-api runs none; judgectl needs root and the sandbox); "
                    "push it with `judgectl problem push` as root on a judge host, or put the inputs and outputs "
                    "(input/, output/) in the package");
        return;
    }
    bool outputs = !outputs_held(dir, gen->n);
    struct gen_job g = {.dir = dir, .t = t, .tools = tools, .gen_lim = gen_limits(tools), .e = e};
    g.sol_lim = (struct store_tool_limits){
        .cpu_time = (t->time_limit > 0 ? t->time_limit : STORE_GEN_CPU_TIME) * STORE_GEN_SOLUTION_MARGIN,
        .memory = t->memory ? t->memory : STORE_GEN_MEMORY, .output = g.gen_lim.output, .submission = true};
    if (find_programs(&g, outputs) == 0 && make_dir(&g, "input") == 0 && (!outputs || make_dir(&g, "output") == 0))
        for (int i = 0; i < gen->n; i++)
            if (make_input(&g, &gen->tests[i], i) || (outputs && make_output(&g, &gen->tests[i], i)))
                break;
    void *built[] = {g.gen, g.val, g.sol};
    for (size_t i = 0; i < 3; i++)
        if (built[i])
            tools->release(tools->ctx, built[i]);
    if (g.sol_built[0]) {   /* judged-cms/ itself too when nothing else is in it */
        char path[4400];
        snprintf(path, sizeof path, "%s/" GEN_SOLUTION_DIR, dir);
        store_remove_tree(path);
        *strrchr(path, '/') = 0;
        (void)rmdir(path);
    }
}
