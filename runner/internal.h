/*
 * internal.h - runner/'s private types, shared by its modules and its tests.
 *
 * Modules:
 *   errors.c    a list of "file:line: key: message" strings
 *   yaml_doc.c  libyaml documents with line marks and typed getters
 *   language.c  languages/NAME.yaml -> struct rn_language
 *   problem.c   problem.yaml + tests/ -> struct rn_problem
 *   checker.c   built-in checkers and testlib exit codes
 *   scoring.c   which tests to run, subtask scores, the overall verdict
 *   report.c    struct runner_report and its JSON
 *   files.c     directory/file helpers and sha256
 *   runner.c    the pipeline: slots, compile, run, check
 */
#ifndef JUDGED_RUNNER_INTERNAL_H
#define JUDGED_RUNNER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runner.h"

/* ---- errors.c ---------------------------------------------------------- */

struct rn_errors {
    char **items;
    size_t count, cap;
};

void rn_errors_add(struct rn_errors *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* All messages, one per line; caller frees. "" when there are none. */
char *rn_errors_join(const struct rn_errors *e);
void rn_errors_free(struct rn_errors *e);

/* Sizes and durations are parsed by sandbox_parse_size / _seconds. */

/* ---- language.c -------------------------------------------------------- */

struct rn_language {
    char *file;             /* the YAML file it came from */
    char *id, *name, *source, *pool, *profile;
    char **version;         /* NULL-terminated argv */
    char ***compile;        /* compile_steps NULL-terminated argvs */
    size_t compile_steps;
    char **run;
    double time_factor;
    uint64_t extra_memory;
    double compile_time;
    uint64_t compile_memory, compile_output;
    int compile_procs;
    int processes;
    char **mounts;          /* NULL-terminated host paths, read-only */
    char **env;             /* NULL-terminated NAME=VALUE, PATH included */
};

/* Parses one file; 0 on success, -1 with messages added to errs. */
int rn_language_load(const char *path, struct rn_language **out, struct rn_errors *errs);
/* Every NAME.yaml in dir, sorted by file name; ids must be unique. */
int rn_languages_load_dir(const char *dir, struct rn_language ***out, size_t *count,
                          struct rn_errors *errs);
void rn_language_free(struct rn_language *l);
void rn_languages_free(struct rn_language **ls, size_t count);
/* argv with {memory_mb} replaced; caller frees with rn_argv_free. */
char **rn_argv_expand(char *const *tmpl, uint64_t memory_bytes, char *const *extra);
void rn_argv_free(char **argv);

/* ---- problem.c --------------------------------------------------------- */

enum rn_checker_type { RN_CHECK_EXACT, RN_CHECK_LINES, RN_CHECK_TOKENS, RN_CHECK_FLOAT,
                       RN_CHECK_CUSTOM };
enum rn_stop { RN_STOP_NONE, RN_STOP_SUBTASK, RN_STOP_ALL };

struct rn_test {
    char *name;
    char *input, *answer;          /* paths relative to the package dir */
};

struct rn_subtask {
    char *name;
    double points;
    size_t *tests;                 /* indices into problem->tests */
    size_t test_count;
    size_t *deps;                  /* indices of earlier subtasks */
    size_t dep_count;
};

struct rn_problem {
    char *dir, *name, *title;
    double time_limit;
    uint64_t memory_limit, output_limit;
    enum rn_checker_type checker;
    double epsilon;
    char *checker_source;          /* relative to dir, custom only */
    int checker_line;              /* line of `checker:` in problem.yaml */
    struct rn_test *tests;
    size_t test_count;
    struct rn_subtask *subtasks;
    size_t subtask_count;
    enum rn_stop stop;
};

int rn_problem_load(const char *dir, struct rn_problem **out, struct rn_errors *errs);
void rn_problem_free(struct rn_problem *p);

/* ---- checker.c --------------------------------------------------------- */

struct rn_check {
    enum runner_verdict verdict;   /* AC, WA, PE or IE */
    double fraction;               /* of the test's worth, 0..1 */
    char message[512];
};

void rn_check_buffers(enum rn_checker_type type, double epsilon, const char *out, size_t outlen,
                      const char *ans, size_t anslen, struct rn_check *res);
/* -1 with err when a file cannot be read. */
int rn_check_files(enum rn_checker_type type, double epsilon, const char *out_path,
                   const char *ans_path, struct rn_check *res, char *err, size_t errlen);
/* testlib: 0 AC, 1 WA, 2 PE, 3 fail, 4 dirt (PE), 7 points, 8 unexpected EOF (WA). */
void rn_check_from_exit(int exit_code, const char *stdout_text, const char *stderr_text,
                        struct rn_check *res);

/* ---- scoring.c --------------------------------------------------------- */

struct rn_test_outcome {
    bool ran;
    enum runner_verdict verdict;   /* SKIPPED when !ran */
    double fraction;
};

struct rn_subtask_outcome {
    enum runner_verdict verdict;   /* AC, the first failure, or SKIPPED */
    double score;
};

/* Runs test i and fills *out; -1 stops everything (infrastructure, abort). */
typedef int (*rn_run_test_fn)(void *ctx, size_t test, struct rn_test_outcome *out);

/* Walks subtasks in order, running the tests they need (each at most once),
 * honouring dependencies and stop_on_failure. tests[] has test_count entries,
 * subs[] subtask_count. Returns -1 when run did. */
int rn_evaluate(const struct rn_problem *p, rn_run_test_fn run, void *ctx,
                struct rn_test_outcome *tests, struct rn_subtask_outcome *subs,
                enum runner_verdict *verdict, double *score);

/* ---- report.c ---------------------------------------------------------- */

struct rn_test_report {
    char *name;
    enum runner_verdict verdict;
    double cpu_time, wall_time;
    uint64_t memory;
    int exit_code, signal;
    char *checker_message;
    double pipeline_time;          /* host wall time spent on the test */
};

struct rn_subtask_report {
    char *name;
    double score, points;
    enum runner_verdict verdict;
};

struct runner_report {
    enum runner_verdict verdict;
    double score, max_score;
    char *compile_status;          /* "OK", "CE" or "none" */
    char *compile_output;
    double compile_cpu_time;
    struct rn_test_report *tests;
    size_t test_count;
    struct rn_subtask_report *subtasks;
    size_t subtask_count;
    char *message;                 /* why IE, when it is the problem's fault */
};

struct runner_report *rn_report_new(void);

/* ---- files.c ----------------------------------------------------------- */

int rn_mkdir_p(const char *path, int mode);
/* The runner's work tree: made (parents 0755) or taken over as a directory
 * of our own, mode 0700; its canonical path (malloc'ed), or NULL with the
 * reason in err (e.g. another user made it first). */
char *rn_private_dir(const char *path, char *err, size_t errlen);
int rn_remove_tree(const char *path);                 /* ok if missing */
int rn_fresh_dir(const char *path, int mode);         /* remove, create, chmod */
/* chown root, make read-only; symlinks and special files are removed */
int rn_seal_tree(const char *path);
/* Makes box (mode 1777) hold exactly hard links to the sealed tree's files
 * (dirs recreated read-only), removing anything else; fresh: start empty. */
int rn_reset_box(const char *box, const char *sealed, bool fresh);
int rn_write_file(const char *path, const char *data, size_t len, int mode);
/* Reads at most max bytes (a note is appended when cut); caller frees. */
char *rn_read_file(const char *path, size_t max, size_t *len);
/* sha256 of the concatenation of parts, as 64 hex digits + NUL. */
int rn_sha256_hex(const void *const *parts, const size_t *lens, size_t n, char out[65]);
char *rn_strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double rn_now(void);

#endif
