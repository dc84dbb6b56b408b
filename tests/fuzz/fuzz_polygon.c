/*
 * fuzz_polygon.c - libFuzzer target: a Polygon package's problem.xml as a
 * hostile setter writes it, read by the problem store's converter
 * (store_convert, judged/store/polygon.c) as push runs it, as root.
 *
 * The input is problem.xml's bytes, dropped into a small package made once
 * (tests/01 and tests/01.a, files/check.cpp, files/interactor.cpp,
 * solutions/a.cpp, doall.sh). After each conversion, whether it succeeded
 * or not, the target checks what must hold for hostile input: errors are
 * listed when counted; a success wrote problem.yaml that the runner's own
 * check accepts with no error (what the converter passes must not fail
 * later, on a judging host), a refusal wrote
 * neither problem.yaml nor submissions/ (nothing half-converted); nothing
 * was written beside the package or into its tree but problem.yaml,
 * .problem.yaml.new (gone again) and submissions/; the package's own files
 * are unchanged. Any violation aborts. Seeds: tests/fuzz/corpus/polygon/;
 * dictionary tests/fuzz/xml.dict. Run with ASan + UBSan; README.md
 * "Fuzzing".
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner.h"
#include "store.h"

static char dir[] = "/tmp/fuzz-polygon-XXXXXX";
static char pkg[64];

static const struct {
    const char *path, *text;
} files[] = {
    {"tests/01", "1 2\n"},
    {"tests/01.a", "3\n"},
    {"files/check.cpp", "int main() { return 0; }\n"},
    {"files/interactor.cpp", "int main() { return 0; }\n"},
    {"solutions/a.cpp", "int main() { return 0; }\n"},
    {"doall.sh", "#!/bin/sh\n"},
};

static void remove_dir(void)
{
    store_remove_tree(dir);
}

static void put(const char *rel, const char *text)
{
    char p[300];
    snprintf(p, sizeof p, "%s/%s", pkg, rel);
    for (char *s = p + strlen(pkg) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    if (!f || fputs(text, f) < 0)
        abort();
    fclose(f);
}

static void make_package(void)
{
    if (!mkdtemp(dir))
        abort();
    atexit(remove_dir);
    snprintf(pkg, sizeof pkg, "%s/pkg", dir);
    mkdir(pkg, 0755);
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        put(files[i].path, files[i].text);
}

static bool exists(const char *rel)
{
    char p[300];
    snprintf(p, sizeof p, "%s/%s", pkg, rel);
    return access(p, F_OK) == 0;
}

/* Only NAMES in path (a NULL-terminated list); others abort. */
static void only(const char *path, const char *const *names)
{
    DIR *d = opendir(path);
    if (!d)
        abort();
    struct dirent *e;
    while ((e = readdir(d))) {
        bool known = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
        for (int i = 0; names[i] && !known; i++)
            known = !strcmp(e->d_name, names[i]);
        if (!known)
            abort();   /* written where the conversion has no business */
    }
    closedir(d);
}

static void check_files_unchanged(void)
{
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char p[300], buf[256];
        snprintf(p, sizeof p, "%s/%s", pkg, files[i].path);
        FILE *f = fopen(p, "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (!f)
            abort();
        fclose(f);
        buf[n] = 0;
        if (strcmp(buf, files[i].text))
            abort();   /* the package's own file was changed */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool made;
    if (!made) {
        make_package();
        made = true;
    }
    char p[300], *errors = NULL;
    snprintf(p, sizeof p, "%s/problem.xml", pkg);
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    int n = store_convert(pkg, "fuzz", &errors);
    if (n > 0 && (!errors || !*errors))
        abort();   /* an error counted but not said */
    if (n == 0 && !exists("problem.yaml"))
        abort();
    if (n == 0) {
        char *rerrors = NULL, *summary = NULL;
        if (runner_problem_check_limits(NULL, pkg, &rerrors, &summary) > 0) {
            fprintf(stderr, "converted, then refused by the runner:\n%s", rerrors ? rerrors : "");
            abort();
        }
        free(rerrors);
        free(summary);
    }
    if (n > 0 && (exists("problem.yaml") || exists("submissions/submissions.yaml")))
        abort();   /* a refused package half-converted */
    free(errors);
    static const char *const beside[] = {"pkg", NULL};
    static const char *const top[] = {"problem.xml", "problem.yaml", "tests", "files", "solutions", "doall.sh",
                                      "submissions", NULL};
    only(dir, beside);
    only(pkg, top);
    check_files_unchanged();
    snprintf(p, sizeof p, "%s/submissions", pkg);
    store_remove_tree(p);
    snprintf(p, sizeof p, "%s/problem.yaml", pkg);
    unlink(p);
    return 0;
}
