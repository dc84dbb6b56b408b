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
 * are unchanged; a submissions.yaml written holds only what the
 * converter writes, line by line (a quoted key with its comment, then
 * language, model_solution, permitted, required in that order, each at
 * most once: a value that broke a line would add one of its own) and is
 * read by `problem verify`'s reader with no error. Any violation aborts. Seeds: tests/fuzz/corpus/polygon/;
 * dictionary tests/fuzz/xml.dict. Run with ASan + UBSan; README.md
 * "Fuzzing".
 */
#include <stdint.h>
#include <string.h>

#include "runner.h"
#include "fuzz_package.h"

static const struct fuzz_file files[] = {
    {"tests/01", "1 2\n"},
    {"tests/01.a", "3\n"},
    {"tests/02", "1 2\n"},
    {"tests/02.a", "3\n"},
    {"tests/03", "1 2\n"},
    {"tests/03.a", "3\n"},
    {"files/check.cpp", "int main() { return 0; }\n"},
    {"files/interactor.cpp", "int main() { return 0; }\n"},
    {"solutions/a.cpp", "int main() { return 0; }\n"},
    {"doall.sh", "#!/bin/sh\n"},
};
#define NFILES (sizeof files / sizeof *files)

/* submissions.yaml as polygon_solutions.c writes it, or abort. */
static void check_submissions_yaml(void)
{
    static const char *const keys[] = {"  language: ", "  model_solution: true", "  permitted: [", "  required: ["};
    size_t n;
    char *text = fuzz_slurp("submissions/submissions.yaml", &n);
    if (!text)
        return;
    if (n >= (1u << 20) || memchr(text, 0, n))
        abort();   /* a few solutions' entries, text */
    text[n] = 0;
    int next = 4;   /* the next key an entry may have; 4: none before a key line */
    for (char *line = text, *end; *line; line = end + 1) {
        if (!(end = strchr(line, '\n')))
            abort();   /* every line ends */
        *end = 0;
        if (line[0] == '#')
            continue;
        if (line[0] == '"') {
            if (!strstr(line, "\":   # Polygon tag ") || next == 0)
                abort();   /* a key line, and the entry before it had its language */
            next = 0;
            continue;
        }
        int k = 0;
        while (k < 4 && strncmp(line, keys[k], strlen(keys[k])))
            k++;
        if (k == 4 || k < next || (next == 0 && k != 0))
            abort();   /* a line the converter does not write, or out of order */
        next = k + 1;
    }
    if (next == 0)
        abort();   /* the last entry has its language too */
    free(text);
    struct store_expected *xs = NULL;
    size_t nx = 0;
    char *errors = NULL;
    if (store_expected_results(fuzz_pkg, &xs, &nx, &errors))
        abort();   /* the converter wrote what the reader refuses */
    store_expected_free(xs, nx);
    free(errors);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_make_package(files, NFILES);
    fuzz_put("problem.xml", (const char *)data, size);
    char *errors = NULL;
    int n = store_convert(fuzz_pkg, "fuzz", &errors);
    if (n > 0 && (!errors || !*errors))
        abort();   /* an error counted but not said */
    if (n == 0 && !fuzz_exists("problem.yaml"))
        abort();
    if (n == 0) {
        fuzz_runner_accepts();
        check_submissions_yaml();
    }
    if (n > 0 && (fuzz_exists("problem.yaml") || fuzz_exists("submissions/submissions.yaml")))
        abort();   /* a refused package half-converted */
    free(errors);
    static const char *const top[] = {"problem.xml", "problem.yaml", "tests", "files", "solutions", "doall.sh",
                                      "submissions", NULL};
    fuzz_only(fuzz_pkg, top);
    fuzz_package_unchanged(files, NFILES);
    char p[300];
    fuzz_path(p, sizeof p, "submissions");
    store_remove_tree(p);
    fuzz_path(p, sizeof p, "problem.yaml");
    unlink(p);
    return 0;
}
