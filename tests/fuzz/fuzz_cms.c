/*
 * fuzz_cms.c - libFuzzer target: a CMS task package's task.yaml (Italian
 * YAML layout) or, when the input starts with '{', a TPS export's
 * problem.json, as a hostile setter writes them, read by the problem
 * store's converter (store_convert, judged/store/cms*.c) as push runs it,
 * as root.
 *
 * The input is dropped into a small package made once (input/ and output/
 * tests 0..2, gen/GEN with subtask markers, tests/ and subtasks/ of TPS,
 * a checker, a manager, graders and solutions). After each conversion:
 * errors are listed when counted; a success wrote problem.yaml, which the
 * runner's own check accepts with no error when it is a Batch task, its
 * score types' aggregates too (the other task types' runner keys are other
 * branches'), a refusal wrote
 * neither problem.yaml nor submissions/; nothing was written beside the
 * package but problem.yaml, submissions/ and judged-cms/ (the Python
 * grader's entry point); the package's own files are unchanged. Any
 * violation aborts. An input starting with "#GEN\n" is instead gen/GEN
 * (the rest: its generator lines, "#ST:" markers, "#COPY:" lines) beside
 * a plain task.yaml; the package holds inputs, so nothing is generated
 * (fuzz_cms runs no sandbox). Seeds: tests/fuzz/corpus/cms/; dictionary
 * tests/fuzz/yaml.dict. Run with ASan + UBSan; README.md "Fuzzing".
 */
#include <stdint.h>
#include <string.h>

#include "runner.h"
#include "fuzz_package.h"

static const struct fuzz_file files[] = {
    {"input/input0.txt", "1 2\n"},
    {"output/output0.txt", "3\n"},
    {"input/input1.txt", "1 2\n"},
    {"output/output1.txt", "3\n"},
    {"input/input2.txt", "1 2\n"},
    {"output/output2.txt", "3\n"},
    {"gen/GEN", "#ST: 40\n1\n# ST: 60\n2\n3 # a comment\n"},
    {"tests/0-01.in", "1 2\n"},
    {"tests/0-01.out", "3\n"},
    {"tests/1-01.in", "1 2\n"},
    {"tests/1-01.out", "3\n"},
    {"subtasks/01.json", "{\"score\": 50, \"testcases\": [\"0-01\", \"1-01\"]}\n"},
    {"subtasks/02.json", "{\"score\": 50, \"regex\": \"1-.*\"}\n"},
    {"check/checker.cpp", "int main() { return 0; }\n"},
    {"sol/grader.cpp", "int main() { return 0; }\n"},
    {"sol/task.h", "int f();\n"},
    {"sol/sum.cpp", "int f() { return 0; }\n"},
    {"graders/grader.cpp", "int main() { return 0; }\n"},
    {"solutions/sum.cpp", "int f() { return 0; }\n"},
};
#define NFILES (sizeof files / sizeof *files)

static void drop(const char *rel)
{
    char p[300];
    fuzz_path(p, sizeof p, rel);
    store_remove_tree(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_make_package(files, NFILES);
    bool tps = size && data[0] == '{';
    /* "#GEN\n" first: the rest is gen/GEN (its lines, #ST: and #COPY:)
     * beside a plain task.yaml */
    bool gen = size >= 5 && !memcmp(data, "#GEN\n", 5);
    if (gen) {
        static const char task[] = "name: sum\ntime_limit: 1\nmemory_limit: 64\ninfile: \"\"\noutfile: \"\"\n";
        fuzz_put("task.yaml", task, strlen(task));
        fuzz_put("gen/GEN", (const char *)data + 5, size - 5);
    } else {
        fuzz_put(tps ? "problem.json" : "task.yaml", (const char *)data, size);
    }
    char *errors = NULL;
    int n = store_convert(fuzz_pkg, "fuzz", &errors);
    if (n > 0 && (!errors || !*errors))
        abort();   /* an error counted but not said */
    if (n == 0 && !fuzz_exists("problem.yaml"))
        abort();
    if (n == 0) {
        size_t len;
        char *yaml = fuzz_slurp("problem.yaml", &len);
        if (!yaml)
            abort();
        yaml[len] = 0;
        if (!strstr(yaml, "\ntype: "))
            fuzz_runner_accepts();   /* the task types beside batch are other branches' */
        free(yaml);
    }
    if (n > 0 && (fuzz_exists("problem.yaml") || fuzz_exists("submissions")))
        abort();   /* a refused package half-converted */
    free(errors);
    static const char *const top[] = {"task.yaml", "problem.json", "problem.yaml", "input", "output", "gen", "tests",
                                      "subtasks", "check", "sol", "graders", "solutions", "submissions",
                                      "judged-cms", NULL};
    fuzz_only(fuzz_pkg, top);
    if (gen)   /* the package's own GEN again */
        for (size_t i = 0; i < NFILES; i++)
            if (!strcmp(files[i].path, "gen/GEN"))
                fuzz_put(files[i].path, files[i].text, strlen(files[i].text));
    fuzz_package_unchanged(files, NFILES);
    drop("submissions");
    drop("judged-cms");
    drop("problem.yaml");
    drop(tps ? "problem.json" : "task.yaml");
    return 0;
}
