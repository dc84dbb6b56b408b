/*
 * cms_write.c - a CMS task (either layout, read into struct cms_task) as
 * the runner's problem.yaml: limits, file I/O, tests, subtasks with CMS's
 * score types, the checker (protocol cms), a Communication task's manager,
 * graders and stubs per language (the submission named after the task), and
 * the package's own solutions as submissions/accepted/ for problem verify.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cms.h"
#include "common.h"

#define YAML_MAX (1u << 20)   /* the runner's default yaml_size */

/* Where the conversion writes the Python grader's entry point: the
 * runner starts a Python program as main.py, CMS starts the grader, which
 * imports the submission (a module named after the task). */
#define PY_ENTRY "judged-cms/python3/main.py"

/* Graders and stubs compiled with a submission, by language: CMS's files
 * (grader.EXT for Batch, stub.EXT for Communication) and the language
 * they are. Java's grader holds main and calls the class named after the
 * task; Pascal's is the program and `uses` the submission, a unit. */
static const struct grader_lang {
    const char *ext, *lang;
} grader_langs[] = {{"c", "c"}, {"cpp", "cpp"}, {"py", "python3"}, {"java", "java"}, {"pas", "pascal"}};

static const char *const source_exts[] = {"c", "cpp", "cc", "cxx", "py", "java", "pas", NULL};

static bool is_file(const char *dir, const char *rel)
{
    char p[4400];
    struct stat st;
    if (snprintf(p, sizeof p, "%s/%s", dir, rel) >= (int)sizeof p)
        return false;
    return !stat(p, &st) && S_ISREG(st.st_mode);
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

static const char *ext_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot ? dot + 1 : "";
}

static int write_file(const char *dir, const char *rel, const char *text)
{
    char p[4400];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        if (mkdir(p, 0755) && errno != EEXIST)
            return -1;
        *s = '/';
    }
    FILE *f = fopen(p, "wx");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

static int copy_file(const char *dir, const char *from, const char *to)
{
    char src[4400];
    if (snprintf(src, sizeof src, "%s/%s", dir, from) >= (int)sizeof src)
        return errno = ENAMETOOLONG, -1;
    size_t len;
    bool more;
    char *text = common_read_file(src, 64u << 20, &len, &more);
    if (!text || more || memchr(text, 0, len)) {
        free(text);
        errno = EFBIG;
        return -1;
    }
    int rc = write_file(dir, to, text);
    free(text);
    return rc;
}

/* The grader (or stub) of each language, its headers, as `grader:`. */
/* The files of gdir that go with language lang's grader: C and C++
 * headers; Pascal's libraries (NAMElib.pas: units the grader uses). */
static bool companion(const char *lang, const char *name)
{
    if (!strcmp(lang, "c") || !strcmp(lang, "cpp"))
        return ends_with(name, ".h");
    return !strcmp(lang, "pascal") && ends_with(name, "lib.pas");
}

static void write_companions(FILE *out, const char *lang, const char *gdir, char **names, size_t nnames)
{
    for (size_t k = 0; k < nnames; k++)
        if (companion(lang, names[k])) {
            char h[600];
            snprintf(h, sizeof h, "%s/%s", gdir, names[k]);
            conv_yaml_string(out, h);
            fputs(", ", out);
        }
}

/* The grader (or stub) of each language and what goes with it, as
 * `grader:`. The grader's own file comes last: Free Pascal compiles the
 * last source it is given (the grader, the program), finding the
 * submission's unit and the libraries by their names. */
static int write_graders(const char *dir, const struct cms_task *t, const char *gdir, FILE *out, char *langs,
                         size_t llen, struct conv_errs *e)
{
    size_t nnames = 0;
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, gdir);
    char **names = conv_sorted_names(path, &nnames);
    /* a Communication task's stubs: stub.EXT (CMS), or grader.EXT as TPS
     * names them */
    const char *base = "grader";
    for (size_t k = 0; t->type == CMS_COMMUNICATION && k < nnames; k++)
        if (!strncmp(names[k], "stub.", 5))
            base = "stub";
    int written = 0;
    langs[0] = 0;
    for (size_t i = 0; i < sizeof grader_langs / sizeof *grader_langs; i++) {
        char rel[600];
        snprintf(rel, sizeof rel, "%s/%s.%s", gdir, base, grader_langs[i].ext);
        if (!is_file(dir, rel))
            continue;
        bool python = !strcmp(grader_langs[i].lang, "python3");
        if (python && !is_file(dir, PY_ENTRY) && write_file(dir, PY_ENTRY,
                "# written on push by judged (judged/store/cms_write.c): the runner starts main.py,\n"
                "# CMS starts the grader, which imports the submission named after the task\n"
                "import os, runpy, sys\n"
                "sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n"
                "runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'grader.py'),"
                " run_name='__main__')\n")) {
            conv_err(e, "%s:0: (package): cannot write: %s", PY_ENTRY, strerror(errno));
            continue;
        }
        fprintf(out, "%s  %s: {files: [", written++ ? "" : "grader:\n", grader_langs[i].lang);
        write_companions(out, grader_langs[i].lang, gdir, names, nnames);
        conv_yaml_string(out, rel);
        if (python)
            fputs(", " PY_ENTRY, out);
        char src[200];
        snprintf(src, sizeof src, "%s.%s", t->name, grader_langs[i].ext);
        fputs("], source: ", out);
        conv_yaml_string(out, src);
        fputs("}\n", out);
        size_t used = strlen(langs);
        snprintf(langs + used, llen - used, " %s ", grader_langs[i].lang);
    }
    conv_free_names(names, nnames);
    (void)e;
    return written;
}

/* A file of the grader directory that is a solution: a source, not the
 * grader, a stub, a header or a Pascal grader's library (NAMElib.pas). */
static bool is_solution(const char *name)
{
    if (!strncmp(name, "grader.", 7) || !strncmp(name, "stub.", 5) || ends_with(name, "lib.pas"))
        return false;
    for (const char *const *x = source_exts; *x; x++)
        if (!strcmp(ext_of(name), *x))
            return true;
    return false;
}

static const char *language_of_ext(const char *ext)
{
    static const struct grader_lang all[] = {{"c", "c"},   {"cpp", "cpp"},   {"cc", "cpp"},    {"cxx", "cpp"},
                                             {"py", "python3"}, {"java", "java"}, {"pas", "pascal"}};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        if (!strcmp(all[i].ext, ext))
            return all[i].lang;
    return "";
}

/* The verify folder of solution NAME: accepted, unless the package says
 * otherwise (TPS's solutions.json); NULL: the package names no result. */
static const char *folder_of(const struct cms_task *t, const char *name)
{
    for (int i = 0; t->solutions && i < t->nsolutions; i++)
        if (!strcmp(t->solutions[i].file, name))
            return t->solutions[i].folder;
    return t->solutions ? NULL : "accepted";
}

/* The package's official solutions as submissions/FOLDER/ (accepted:
 * every test AC, problem verify's rule); with graders, only the languages
 * that have one (the others cannot compile). */
static void write_solutions(const char *dir, const char *sdir, const struct cms_task *t, const char *langs,
                            struct conv_errs *e)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, sdir);
    size_t n;
    char **names = conv_sorted_names(path, &n);
    bool any = false;
    for (size_t i = 0; i < n; i++) {
        if (!is_solution(names[i]) || !is_file(dir, (snprintf(path, sizeof path, "%s/%s", sdir, names[i]), path)))
            continue;
        const char *folder = folder_of(t, names[i]);
        if (!folder) {
            conv_warn(e, "%s/%s:0: (solution): warning: not in solutions.json: not among the package's submissions "
                         "for problem verify", sdir, names[i]);
            continue;
        }
        char want[40];
        snprintf(want, sizeof want, " %s ", language_of_ext(ext_of(names[i])));
        if (langs[0] && !strstr(langs, want)) {
            conv_warn(e, "%s/%s:0: (solution): warning: no grader of its language: not among the package's "
                         "submissions for problem verify", sdir, names[i]);
            continue;
        }
        if (!any) {
            struct stat st;
            char sub[4400];
            snprintf(sub, sizeof sub, "%s/submissions", dir);
            if (!lstat(sub, &st)) {
                conv_err(e, "submissions:0: (package): a CMS package has no submissions/ of its own; it is where "
                            "the conversion puts %s/'s solutions", sdir);
                break;
            }
            any = true;
        }
        char to[700];
        snprintf(to, sizeof to, "submissions/%s/%s", folder, names[i]);
        if (copy_file(dir, path, to))
            conv_err(e, "%s:0: (solution): cannot copy to %s: %s", path, to, strerror(errno));
    }
    conv_free_names(names, n);
}

static void write_subtask(FILE *out, const struct cms_task *t, int i)
{
    const struct cms_subtask *s = &t->subtasks[i];
    bool single = s->ntests == 1 && t->nsubtasks == t->ntests;
    fputs("  - {name: ", out);
    if (single)   /* Sum: a subtask per test, named as the test */
        conv_yaml_string(out, t->tests[s->tests[0]].name);
    else
        fprintf(out, "\"subtask%d\"", i + 1);
    fprintf(out, ", points: %.17g, tests: [", s->points);   /* exact: Sum's shares add up */
    for (int k = 0; k < s->ntests; k++) {
        fputs(k ? ", " : "", out);
        conv_yaml_string(out, t->tests[s->tests[k]].name);
    }
    fputs("]", out);
    if (s->aggregate == CMS_AGG_MUL)
        fputs(", aggregate: mul", out);
    else if (s->aggregate == CMS_AGG_THRESHOLD)
        fprintf(out, ", aggregate: {threshold: %.10g}", s->threshold);
    fputs("}\n", out);
}

static void write_type(const struct cms_task *t, FILE *out)
{
    if (t->type == CMS_OUTPUT_ONLY) {
        /* CMS names a test's answer output_CODENAME.txt: output_000.txt */
        fputs("type: output-only\nanswer_file: \"output_{index}.txt\"\n", out);
        return;
    }
    if (t->type == CMS_COMMUNICATION) {
        fputs("type: communication\nmanager: ", out);
        conv_yaml_string(out, t->manager);
        fprintf(out, "\nprocesses: %d\nuser_io: %s\n", t->processes, t->fifo_io ? "fifo" : "stdio");
    }
    fprintf(out, "time_limit: %.6gs\n", t->time_limit);
    fprintf(out, "memory_limit: %llu\n", t->memory);
    if (t->type != CMS_BATCH)
        return;
    /* CMS gives a Batch test's input as a file in the working directory
     * whether or not the task reads stdin (input.txt then) */
    fputs("input_file: ", out);
    conv_yaml_string(out, t->infile[0] ? t->infile : "input.txt");
    if (t->outfile[0]) {
        fputs("\noutput_file: ", out);
        conv_yaml_string(out, t->outfile);
    }
    fputs("\n", out);
}

static void write_yaml(const char *dir, const char *pushed, const struct cms_task *t, const char *gdir, FILE *out,
                       char *langs, size_t llen, struct conv_errs *e)
{
    fprintf(out, "# converted from a CMS task package (%s) on push; runner/README.md, \"CMS task packages\"\n",
            t->file);
    fputs("name: ", out);
    conv_yaml_string(out, pushed);
    if (t->title[0]) {
        fputs("\ntitle: ", out);
        conv_yaml_string(out, t->title);
    }
    fputs("\n", out);
    write_type(t, out);
    if (t->type == CMS_COMMUNICATION) {
        /* the manager scores each test: no checker (the runner refuses one) */
    } else if (t->checker[0]) {
        fputs("checker: {type: custom, source: ", out);
        conv_yaml_string(out, t->checker);
        fputs(", protocol: cms}\n", out);
    } else {
        /* CMS's white_diff: whitespace-separated tokens */
        fputs("checker: tokens\n", out);
    }
    if (t->type != CMS_OUTPUT_ONLY)
        write_graders(dir, t, gdir, out, langs, llen, e);
    fputs("tests:\n", out);
    for (int i = 0; i < t->ntests; i++) {
        fputs("  - {name: ", out);
        conv_yaml_string(out, t->tests[i].name);
        fputs(", input: ", out);
        conv_yaml_string(out, t->tests[i].in);
        fputs(", output: ", out);
        conv_yaml_string(out, t->tests[i].out);
        fputs("}\n", out);
    }
    if (t->nsubtasks)
        fputs("subtasks:\n", out);
    for (int i = 0; i < t->nsubtasks; i++)
        write_subtask(out, t, i);
    /* CMS judges every test. A subtask's smallest 0/1 fraction is known at
     * its first failure; a checker's partial fractions (a later test may
     * score less) and the other aggregates need every test */
    bool all = t->checker[0] || t->type != CMS_BATCH;
    for (int i = 0; i < t->nsubtasks; i++)
        all = all || t->subtasks[i].aggregate != CMS_AGG_MIN;
    fprintf(out, "stop_on_failure: %s\n", all ? "none" : "subtask");
}

void cms_write(const char *dir, const char *pushed_name, struct cms_task *t, const char *grader_dir,
               const char *solutions_dir, struct conv_errs *e)
{
    if (t->type != CMS_OUTPUT_ONLY && !(t->time_limit > 0))
        conv_err(e, "%s:0: time_limit: missing (seconds; CMS's Batch and Communication tasks need one)", t->file);
    if (t->type != CMS_OUTPUT_ONLY && !t->memory)
        conv_err(e, "%s:0: memory_limit: missing (CMS's Batch and Communication tasks need one)", t->file);
    if (e->n)
        return;
    char *body = NULL, langs[128] = "";
    size_t len = 0;
    FILE *out = open_memstream(&body, &len);
    if (!out)
        return;
    write_yaml(dir, pushed_name, t, grader_dir, out, langs, sizeof langs, e);
    fclose(out);
    if (len > YAML_MAX)
        conv_err(e, "%s:0: (tests): the subtasks' test lists make problem.yaml larger than %u bytes, the most "
                    "the runner reads (yaml_size)", t->file, YAML_MAX);
    if (e->n == 0 && solutions_dir)
        write_solutions(dir, solutions_dir, t, langs, e);
    char path[4400];
    snprintf(path, sizeof path, "%s/problem.yaml", dir);
    FILE *f = e->n == 0 ? fopen(path, "wx") : NULL;
    if (f) {
        fwrite(body, 1, len, f);
        if (fclose(f))
            conv_err(e, "problem.yaml:0: (package): cannot write: %s", strerror(errno));
    } else if (e->n == 0) {
        conv_err(e, "problem.yaml:0: (package): cannot write: %s", strerror(errno));
    }
    free(body);
}
