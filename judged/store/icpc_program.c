/*
 * icpc_program.c - an ICPC package's output validator (or interactor) as
 * the format's "program" (appendix "Programs"): a single source file, or a
 * directory that is either built by its `build` script and started as its
 * `run` script, or holds the sources of one language compiled together
 * (the language told by the files' endings). Which it is decides what the
 * converted problem.yaml names as the checker's `source:` (the runner
 * builds either, runner/README.md); what cannot be one program is refused
 * here, naming the folder, rather than at judging.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "convert.h"
#include "store.h"

/* The endings of the format's languages (appendix "Programs"; C++'s
 * aliases are folded into .cpp by store_source_ending). Headers and other
 * files are not sources. */
static bool source_ending(const char *name)
{
    static const char *endings[] = {".c", ".cpp", ".cs", ".go", ".hs", ".java", ".js", ".kt", ".lisp", ".cl",
                                    ".m", ".ml", ".pas", ".php", ".pl", ".py", ".py2", ".rb", ".rs", ".scala",
                                    NULL};
    const char *e = store_source_ending(name);
    for (int i = 0; e && endings[i]; i++)
        if (!strcmp(e, endings[i]))
            return true;
    return false;
}

struct sources {
    int count;
    char first[600], other[600];   /* the first source; one of another language */
};

static bool is_dir(const char *path)
{
    struct stat st;
    return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The sources below dir/rel (any depth, sorted), and whether they are of
 * more than one language. */
static void find_sources(const char *dir, const char *rel, struct sources *s)
{
    if (store_path_depth(rel) > STORE_MAX_DEPTH)
        return;
    char path[4400];
    size_t n;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    char **names = conv_sorted_names(path, &n);
    for (size_t i = 0; i < n; i++) {
        char sub[4400], full[8900];
        snprintf(sub, sizeof sub, "%s/%s", rel, names[i]);
        snprintf(full, sizeof full, "%s/%s", dir, sub);
        if (is_dir(full)) {
            find_sources(dir, sub, s);
        } else if (source_ending(names[i])) {
            if (!s->count++)
                snprintf(s->first, sizeof s->first, "%.590s", sub);
            else if (!s->other[0] && strcmp(store_source_ending(s->first), store_source_ending(sub)))
                snprintf(s->other, sizeof s->other, "%.590s", sub);
        }
    }
    conv_free_names(names, n);
}

static bool has_entry(const char *dir, const char *rel, const char *name)
{
    char p[4400];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s/%s", dir, rel, name);
    return !stat(p, &st);
}

/* The program directory rel: what `source:` names (the directory, or its
 * one source file as before programs of several files were read); -1
 * with an error naming the folder. */
static int program_dir(const char *dir, const char *rel, const char *key, char *out, size_t len,
                       struct conv_errs *e)
{
    if (has_entry(dir, rel, "build") || has_entry(dir, rel, "run")) {
        snprintf(out, len, "%s/", rel);
        return 0;
    }
    struct sources s = {0};
    find_sources(dir, rel, &s);
    if (s.other[0]) {
        conv_err(e, "%s:0: %s: the validator's sources are of two languages (%s, %s) and it has no build or run "
                    "script: a program is one language, or says how it is built", rel, key, s.first, s.other);
        return -1;
    }
    if (!s.count) {
        conv_err(e, "%s:0: %s: no validator: no source file (.c, .cpp, .py, ...) and no build or run script", rel,
                 key);
        return -1;
    }
    if (s.count == 1)
        snprintf(out, len, "%s", s.first);
    else
        snprintf(out, len, "%s/", rel);
    return 0;
}

int icpc_find_validator(const char *dir, const char *folder, const char *key, size_t line, char *rel, size_t len,
                        struct conv_errs *e)
{
    char base[4400];
    snprintf(base, sizeof base, "%s/%s", dir, folder);
    if (!is_dir(base)) {
        conv_err(e, "problem.yaml:%zu: %s: a custom validator is needed in %s/", line, key, folder);
        return -1;
    }
    /* 2023-07 and later: output_validator/ is the one program; legacy
     * output_validators/ holds programs, files or directories, of which
     * the runner takes one (a folder with scripts or only source files of
     * its own is read as that one program) */
    if (strcmp(folder, "output_validators") || has_entry(dir, folder, "build") || has_entry(dir, folder, "run"))
        return program_dir(dir, folder, key, rel, len, e);
    size_t n;
    char **names = conv_sorted_names(base, &n);
    int files = 0, dirs = 0;
    char one_dir[600] = "";
    for (size_t i = 0; i < n; i++) {
        char p[8900];
        snprintf(p, sizeof p, "%s/%s", base, names[i]);
        if (is_dir(p)) {
            if (!dirs++)
                snprintf(one_dir, sizeof one_dir, "%s/%.500s", folder, names[i]);
        } else if (source_ending(names[i])) {
            files++;
        }
    }
    conv_free_names(names, n);
    if (files && !dirs)
        return program_dir(dir, folder, key, rel, len, e);
    if (!files && dirs == 1)
        return program_dir(dir, one_dir, key, rel, len, e);
    conv_err(e, "%s:0: %s: expected one validator program (a source file, or a directory with build/run scripts "
                "or the sources of one language), found %d source files and %d directories",
             folder, key, files, dirs);
    return -1;
}
