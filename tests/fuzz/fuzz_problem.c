/*
 * fuzz_problem.c - libFuzzer target: problem.yaml as a hostile setter
 * writes it.
 *
 * The input is the text of problem.yaml of a fixed package built once in
 * a private directory (tests 1..12 in tests/, a gen/ pair, a checker with a
 * header, an interactor, a grader, a link inside, a link leaving it): rn_problem_parse is the
 * loader's whole YAML path (keys, checker, explicit and discovered tests,
 * subtasks, hash sets, the alias budget, the quoting of messages), and
 * the summary of what loads (rn_problem_summary). Run
 * with ASan + UBSan; see README.md "Fuzzing".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static int root = -1;
static char dir[] = "/tmp/fuzz-problem-XXXXXX";

static void put(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fputs(text, f);
    fclose(f);
}

static void remove_package(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (!mkdtemp(dir))
        abort();
    char path[256];
    snprintf(path, sizeof path, "%s/tests", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/gen", dir);
    mkdir(path, 0755);
    for (int i = 1; i <= 12; i++) {
        char rel[32];
        snprintf(rel, sizeof rel, "tests/%d.in", i);
        put(rel, "1 2\n");
        snprintf(rel, sizeof rel, "tests/%d.out", i);
        put(rel, "3\n");
    }
    put("gen/big.in", "5 5\n");
    put("gen/big.out", "10\n");
    put("checker.cpp", "#include \"testlib.h\"\nint main() { return 0; }\n");
    put("testlib.h", "#pragma once\n");
    put("interactor.py", "print(1)\n");
    put("gen/grader.cpp", "int main() { return 0; }\n");
    snprintf(path, sizeof path, "%s/gen/link.in", dir);
    if (symlink("big.in", path) < 0)
        abort();
    snprintf(path, sizeof path, "%s/gen/out.in", dir);
    if (symlink("/etc/passwd", path) < 0)
        abort();
    root = rn_pkg_root(dir, path, sizeof path);
    if (root < 0)
        abort();
    atexit(remove_package);
    return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    struct runner_limits lim = {.tests = 64};
    if (rn_problem_parse(root, dir, (const char *)data, size, &lim, &p, &errs) == 0) {
        /* a problem that loads has a summary for GET /v1/problems (issue 28) */
        char *summary = rn_problem_summary(p);
        if (!summary)
            abort();
        free(summary);
        rn_problem_free(p);
    }
    char *all = common_errors_join(&errs);
    /* every message is one line of printable text */
    for (size_t i = 0; i < errs.count; i++)
        for (const unsigned char *c = (const unsigned char *)errs.items[i]; *c; c++)
            if (*c < 0x20 || *c == 0x7f)
                abort();
    free(all);
    common_errors_free(&errs);
    return 0;
}
