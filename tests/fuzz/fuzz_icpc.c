/*
 * fuzz_icpc.c - libFuzzer target: an ICPC/Kattis or DOMjudge package's
 * metadata as a hostile setter writes it, read by the problem store's
 * converter (store_convert, judged/store/icpc.c and icpc_groups.c) as push
 * runs it, as root.
 *
 * The input is one or more files of the package: text before the first
 * header line is problem.yaml; a line "--- PATH" starts the file PATH,
 * one of the metadata files the converter reads (domjudge-problem.ini,
 * .timelimit, testdata.yaml and test_group.yaml of the root, sample and
 * secret groups); a header naming any other path drops its section. They
 * are dropped into a small package made once (data/sample and
 * data/secret/g1 with tests, output_validators/ and output_validator/
 * with a validator each, a submission, an interaction transcript).
 *
 * After each conversion, whether it succeeded or not, the target checks
 * what must hold for hostile input: errors are said when counted; a
 * success wrote a converted problem.yaml (the original, if any, kept as
 * problem.icpc.yaml) that the runner's own check accepts with no error (a
 * package the converter passes must not fail later, on a judging host,
 * naming a file the setter never wrote); a refusal left problem.yaml as it
 * was and wrote nothing; nothing was written beside the package or into
 * it but those; the package's own files are unchanged. Any violation
 * aborts. Seeds: tests/fuzz/corpus/icpc/; dictionary tests/fuzz/icpc.dict.
 * Run with ASan + UBSan; README.md "Fuzzing".
 */
#include <stdint.h>

#include "runner.h"
#include "fuzz_package.h"

/* The package's own files: never changed by a conversion. */
static const struct fuzz_file files[] = {
    {"data/sample/1.in", "1 2\n"},
    {"data/sample/1.ans", "3\n"},
    {"data/sample/2.interaction", "<1 2\n>3\n"},
    {"data/secret/g1/1.in", "2 2\n"},
    {"data/secret/g1/1.ans", "4\n"},
    {"data/secret/3.in", "5 5\n"},
    {"data/secret/3.ans", "10\n"},
    {"output_validators/v/validate.cpp", "int main() { return 42; }\n"},
    {"output_validators/v/validate.h", "#pragma once\n"},
    {"output_validator/validate.py", "import sys\nsys.exit(42)\n"},
    {"submissions/accepted/a.c", "int main(void) { return 0; }\n"},
};

/* The files an input may write (its sections). */
static const char *const writable[] = {
    "problem.yaml",
    "domjudge-problem.ini",
    ".timelimit",
    "data/testdata.yaml",
    "data/test_group.yaml",
    "data/sample/testdata.yaml",
    "data/sample/test_group.yaml",
    "data/secret/testdata.yaml",
    "data/secret/test_group.yaml",
    "data/secret/g1/testdata.yaml",
    "data/secret/g1/test_group.yaml",
};
#define NWRITABLE (sizeof writable / sizeof *writable)

static void delete(const char *rel)
{
    char p[300];
    fuzz_path(p, sizeof p, rel);
    unlink(p);
}

/* Splits the input into its sections and writes them; which were written
 * goes to wrote[] (indices into writable[]). */
static void write_sections(const uint8_t *data, size_t size, bool *wrote)
{
    const char *s = (const char *)data, *end = s + size;
    int current = 0;   /* problem.yaml until the first header */
    const char *body = s;
    for (const char *line = s; line <= end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *next = nl ? nl + 1 : end + 1;
        if (!nl || (end - line >= 4 && !memcmp(line, "--- ", 4))) {
            const char *stop = nl ? line : end;
            bool empty_head = current == 0 && body == s && stop == s;   /* no problem.yaml */
            if (current >= 0 && !wrote[current] && !empty_head) {
                fuzz_put(writable[current], body, (size_t)(stop - body));
                wrote[current] = true;
            }
            if (!nl)
                break;
            current = -1;
            for (size_t i = 0; i < NWRITABLE; i++)
                if ((size_t)(nl - line - 4) == strlen(writable[i]) && !memcmp(line + 4, writable[i], strlen(writable[i])))
                    current = (int)i;
            body = next;
        }
        line = next;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_make_package(files, sizeof files / sizeof *files);
    bool wrote[NWRITABLE] = {false};
    write_sections(data, size, wrote);
    size_t before_len = 0;
    char *before = fuzz_slurp("problem.yaml", &before_len);
    bool again = store_converted(fuzz_pkg);   /* marked as converted: taken as the runner's own */
    char *errors = NULL;
    int n = store_convert(fuzz_pkg, "fuzz", &errors);
    if (n > 0 && (!errors || !*errors))
        abort();   /* an error counted but not said */
    if (getenv("FUZZ_ICPC_SHOW"))   /* what one input did: FUZZ_ICPC_SHOW=1 fuzz_icpc FILE */
        fprintf(stderr, "%d error(s)\n%s", n, errors ? errors : "");
    if (n == 0 && !again) {
        if (!store_converted(fuzz_pkg))
            abort();   /* no converted problem.yaml (data/ makes every input an ICPC package) */
        if (before && !fuzz_exists("problem.icpc.yaml"))
            abort();   /* the setter's problem.yaml replaced, not kept */
        fuzz_runner_accepts();
    }
    if (n > 0) {
        size_t after_len = 0;
        char *after = fuzz_slurp("problem.yaml", &after_len);
        if (!!after != !!before || (after && (after_len != before_len || memcmp(after, before, after_len))) ||
            fuzz_exists("problem.icpc.yaml"))
            abort();   /* a refused package half-converted */
        free(after);
    }
    free(before);
    free(errors);
    if (fuzz_exists(".problem.yaml.new"))
        abort();
    static const char *const top[] = {"problem.yaml", "problem.icpc.yaml", "domjudge-problem.ini", ".timelimit",
                                      "data", "output_validators", "output_validator", "submissions", NULL};
    fuzz_only(fuzz_pkg, top);
    fuzz_package_unchanged(files, sizeof files / sizeof *files);
    for (size_t i = 0; i < NWRITABLE; i++)
        delete(writable[i]);
    delete("problem.icpc.yaml");
    return 0;
}
