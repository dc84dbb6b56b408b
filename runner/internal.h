/*
 * internal.h - runner/'s private types, shared by its modules and its tests.
 *
 * Modules:
 *   (YAML is read by common/yaml/yaml_doc.h, the one reader of every layer)
 *   language.c  languages/NAME.yaml -> struct rn_language
 *   problem.c   problem.yaml + tests/ -> struct rn_problem
 *   checker.c   built-in checkers and testlib exit codes
 *   scoring.c   which tests to run, subtask scores, the overall verdict
 *   report.c    struct runner_report and its JSON
 *   package.c   safe opens beneath a package's root, the package walk, limits
 *   files.c     directory/file helpers and sha256
 *   ccache.c    the compile cache under WORK/compiled/
 *   prepared.c  a language's prepared files (precompiled header, JVM archive)
 *   interactive.c  an interactive test: two boxes, pipes, the verdict order
 *   communication.c  a communication test: a manager and 1..16 processes
 * and the pipeline, one file per concern, sharing struct runner and struct
 * rn_job (the last section below):
 *   runner.c    the runner handle: its language catalog, its slots, a job's
 *               scratch directory (and the theory of the whole pipeline)
 *   judge.c     runner_judge: compile once, run every test, score, verdict
 *   compile.c   compiling in the sandbox: limits, steps, notes, "no program"
 *   grader.c    a problem's grader files beside the submission
 *   helper.c    a package's checker or interactor: compiled once, cached
 *   program.c   one given as a directory (ICPC "programs": build/run
 *               scripts, or several sources of one language)
 *   run.c       one test: the program's box, the check, an interactive pair
 *   problem_check.c  runner_problem_check (`judgectl problem check`)
 *   selftest.c  runner_language_selftest (`judgectl languages --check`)
 *   tool.c      runner_tool_*: a package's own programs run at push
 *               (a CMS generator, validator, official solution)
 */
#ifndef JUDGED_RUNNER_INTERNAL_H
#define JUDGED_RUNNER_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common.h"
#include "runner.h"
#include "sandbox.h"

/* Sizes and durations are parsed by sandbox_parse_size / _seconds. */

/* ---- language.c -------------------------------------------------------- */

/* prepare: files built once per host for a language definition (a
 * precompiled header, a JVM class-data archive), prepared.c */
struct rn_prepare {
    char ***build;          /* build_steps argvs, run in a box at /box */
    size_t build_steps;
    char **inputs;          /* host paths whose identity joins the key; or NULL */
    char **compile_flags;   /* what {prepared} in compile becomes; or NULL */
    char **run_flags;       /* what {prepared} in run becomes; or NULL */
    double time;            /* limits of each build step */
    uint64_t memory, output;
    int procs;
};

/* where a language's prepared files appear in its boxes (read-only) */
#define RN_PREPARED_MOUNT "/prepared"

struct rn_language {
    char *file;             /* the YAML file it came from */
    char sha[65];           /* sha256 of its text */
    struct rn_prepare *prepare;   /* NULL: none */
    char *id, *name, *source, *profile;
    char **version;         /* NULL-terminated argv */
    char ***compile;        /* compile_steps NULL-terminated argvs */
    size_t compile_steps;
    char **run;
    double time_factor;
    uint64_t extra_memory;
    double compile_time;
    uint64_t compile_memory, compile_output;
    int compile_procs;
    bool compile_unpinned;  /* a prepared build (prepared.c): on every CPU */
    int processes;
    int open_files;         /* RLIMIT_NOFILE of its boxes; 0: the sandbox's 64 */
    char **mounts;          /* NULL-terminated host paths, read-only */
    char **env;             /* NULL-terminated NAME=VALUE, PATH included */
    /* a submission of several files (common/fileset): entry_all compiles
     * every file with the source's extension in place of the source's
     * name; otherwise the first of entry's names the set has (NULL: the
     * source's name) is the entry point, saved as `source` */
    bool entry_all;
    char **entry;
    /* answers: true: its submissions are an output-only problem's answer
     * files, never compiled nor run (languages/answers.yaml) */
    bool answers;
    char **extensions;      /* NULL-terminated ".py"...: default the source's suffix */
    char **default_for;     /* those of extensions it is the default for, as the file says */
    char *hello;            /* a program printing "hello" (judgectl languages --check), or NULL */
};

/* Parses one file; 0 on success, -1 with messages added to errs. */
int rn_language_load(const char *path, struct rn_language **out, struct common_errors *errs);
/* The same with a size limit (0: RUNNER_DEFAULT_YAML_SIZE). */
int rn_language_load_max(const char *path, uint64_t max_size, struct rn_language **out,
                         struct common_errors *errs);
/* Parses a language file already read; display names it in messages. */
int rn_language_parse(const char *text, size_t len, const char *display,
                      struct rn_language **out, struct common_errors *errs);
/* Every NAME.yaml in dir, sorted by file name; ids must be unique. */
int rn_languages_load_dir(const char *dir, uint64_t max_size, struct rn_language ***out,
                          size_t *count, struct common_errors *errs);
void rn_language_free(struct rn_language *l);
/* Whether ext (".py") is one of l's extensions; whether l's file says it is
 * the default for ext. */
bool rn_language_has_extension(const struct rn_language *l, const char *ext);
bool rn_language_default_for(const struct rn_language *l, const char *ext);
void rn_languages_free(struct rn_language **ls, size_t count);
/* argv with {memory_mb} replaced and {prepared} elements dropped; caller
 * frees with rn_argv_free. */
char **rn_argv_expand(char *const *tmpl, uint64_t memory_bytes, char *const *extra);
/* The same with each {prepared} element replaced by prepared's elements. */
char **rn_argv_expand_prepared(char *const *tmpl, uint64_t memory_bytes,
                               char *const *prepared, char *const *extra);
void rn_argv_free(char **argv);

/* ---- problem.c --------------------------------------------------------- */

enum rn_checker_type { RN_CHECK_EXACT, RN_CHECK_LINES, RN_CHECK_TOKENS, RN_CHECK_FLOAT,
                       RN_CHECK_CUSTOM };
enum rn_stop { RN_STOP_NONE, RN_STOP_SUBTASK, RN_STOP_ALL };
/* output-only: no program; the submission is answer files, one a test
 * (CMS OutputOnly, ICPC submit-answer) */
enum rn_problem_type { RN_BATCH, RN_INTERACTIVE, RN_COMMUNICATION, RN_OUTPUT_ONLY };
/* a language file's open_files: 64 (the sandbox's default) .. this */
#define RN_MAX_OPEN_FILES 1024

/* processes of a communication problem: 1..RN_MAX_PROCESSES user processes */
#define RN_MAX_PROCESSES 16
/* how a custom checker or an interactor is called and reports: testlib's
 * argv and exit codes, Kattis's (input, answer, feedback dir; 42/43), or
 * CMS's (a checker only: input, answer, output; a score 0..1 on stdout) */
enum rn_protocol { RN_PROTO_TESTLIB, RN_PROTO_KATTIS, RN_PROTO_CMS };

/* Options of the built-in checkers. A float token is accepted within abs_tol
 * OR rel_tol * |answer|; a negative tolerance is not used. */
struct rn_compare {
    double abs_tol, rel_tol;
    bool case_insensitive;         /* non-numeric tokens, lines, bytes */
    bool space_sensitive;          /* tokens/float: whitespace runs must match */
};
#define RN_COMPARE_DEFAULT {.abs_tol = 1e-6, .rel_tol = 1e-6}

/* A program the package ships and the runner compiles once (a checker, an
 * interactor), in the language whose source file extension it has. */
struct rn_helper {
    char *source;                  /* relative to the package dir; NULL: none */
    char **flags;                  /* extra compile arguments; NULL-terminated or NULL */
    char **args;                   /* run arguments after the protocol's (Kattis's
                                      validator_flags); NULL-terminated or NULL */
    enum rn_protocol protocol;
    bool scores;                   /* kattis checker: score.txt / score_multiplier.txt read */
    int line;                      /* of its key in problem.yaml */
};

/* Files compiled together with a submission in one language ("function"
 * problems, IOI/CMS graders). */
struct rn_grader {
    char *lang;                    /* language id */
    char **files;                  /* package-relative paths, NULL-terminated */
    char *source;                  /* the submission's file name; NULL: the language's */
    char *base;                    /* files keep their path below this dir; NULL: base names */
    bool optional;                 /* include: (ICPC include/LANG/): another language compiles alone */
};

/* A test may call the problem's checker its own way (what an ICPC test
 * group's output validator arguments become): its own built-in checker
 * (own_check), or its own arguments for the custom checker, or an
 * interactive problem's interactor, instead of the helper's args. */
struct rn_test {
    char *name;
    char *input, *answer;          /* paths relative to the package dir */
    char **args;                   /* NULL-terminated; NULL: the helper's own */
    bool own_check;                /* check and compare judge this test */
    enum rn_checker_type check;
    struct rn_compare compare;
};

/* How a subtask's tests make its score (runner/README.md, "Subtasks"). */
enum rn_aggregate {
    RN_AGG_MIN,                    /* points x the smallest fraction (default) */
    RN_AGG_MUL,                    /* points x the product of fractions (CMS GroupMul) */
    RN_AGG_SUM,                    /* points x the mean fraction: each test points/n */
    RN_AGG_THRESHOLD,              /* all or nothing: every value in (0, threshold] */
};

/* A graded group (grade:, Kattis' default grader; runner/README.md
 * "Graded groups"): its items (tests and child subtasks) give results that
 * it aggregates into its own verdict and score. */
enum rn_grade_score { RN_GRADE_SUM, RN_GRADE_AVG, RN_GRADE_MIN, RN_GRADE_MAX };
enum rn_grade_verdict { RN_GRADE_WORST_ERROR, RN_GRADE_FIRST_ERROR, RN_GRADE_ALWAYS_ACCEPT };

struct rn_grade {
    enum rn_grade_score score;
    enum rn_grade_verdict verdict;
    bool accept_if_any_accepted;
    bool ignore_first;             /* ignore_sample: the first item's result is dropped */
    bool on_reject_break;          /* the items after the first rejection are not judged */
    double reject_score;           /* a rejected test's score (an accepted one: points) */
    double lo, hi;                 /* range: the score clamped into it */
};

struct rn_subtask {
    char *name;
    double points;                 /* graded: an accepted test's score (accept_score) */
    size_t *tests;                 /* indices into problem->tests */
    size_t test_count;
    size_t *deps;                  /* indices of earlier subtasks */
    size_t dep_count;
    enum rn_aggregate aggregate;
    double threshold;              /* RN_AGG_THRESHOLD only */
    bool graded;                   /* grade: given */
    struct rn_grade grade;
    size_t parent;                 /* index + 1 of the graded subtask it feeds; 0: none */
    size_t *items;                 /* graded: tests (i) and children (test_count + c), in test order */
    size_t item_count;
    size_t *children;              /* graded: subtasks whose parent it is */
    size_t child_count;
};

struct rn_problem {
    char *dir, *name, *title;
    enum rn_problem_type type;
    double time_limit;
    int time_line;                 /* line of `time_limit:` in problem.yaml */
    bool time_unitless;            /* given as a bare number (seconds) */
    int subtasks_line;             /* of `subtasks:`; 0: none (one subtask of all tests) */
    double wall_time_limit;        /* 0: 2 x CPU limit + 1 s */
    uint64_t memory_limit, output_limit;
    bool output_truncate;          /* on_output_limit: truncate (DOMjudge's way) */
    char *input_file, *output_file;  /* file I/O: names in the program's cwd; NULL: none */
    char *answer_file;             /* output-only: each test's answer file ({name}, {index}) */
    int memory_line;               /* line of `memory_limit:` in problem.yaml */
    double compile_time;           /* 0, or at least this for every compile */
    uint64_t compile_memory, compile_output;
    enum rn_checker_type checker;
    bool checker_given;            /* `checker:` is in problem.yaml */
    struct rn_compare compare;
    struct rn_helper checker_prog; /* custom only (source NULL otherwise); its
                                      line is that of `checker:` */
    struct rn_helper interactor;   /* interactive problems; a communication
                                      problem's manager (`manager:`): the
                                      same kind of helper, built once */
    int processes;                 /* communication: user processes, 1..16 */
    bool user_stdio;               /* communication: user_io: stdio (else fifo) */
    double manager_time;           /* communication: its CPU seconds; 0: default */
    uint64_t manager_memory;       /* communication: its memory; 0: default */
    struct rn_grader *graders;
    size_t grader_count;
    struct rn_test *tests;
    size_t test_count;
    struct rn_subtask *subtasks;
    size_t subtask_count;
    enum rn_stop stop;
    int passes;                    /* runs per test at most (multi-pass: nextpass.in); 1 */
    char **samples;                /* shown with the statement, not judged; NULL-terminated or NULL */
    /* while loading only */
    int root;                      /* the package dir (rn_pkg_root) */
    struct runner_limits limits;
    struct common_strset test_index;   /* name -> index + 1 */
    struct common_strset subtask_index;
    bool too_many_tests;           /* reported once */
};

#define RN_MAX_SUBTASKS 1000
/* an output-only problem's answer file when problem.yaml names none: the
 * test's name with .out, as ICPC packages name a team's output (tc.out) */
#define RN_ANSWER_FILE "{name}.out"
#define RN_MAX_PASSES 100

/* Walks the package (rn_pkg_walk), then reads problem.yaml and the tests;
 * lim NULL: the defaults. */
int rn_problem_load(const char *dir, const struct runner_limits *lim, struct rn_problem **out,
                    struct common_errors *errs);
/* Parses problem.yaml text (already read) of the package whose root is the
 * directory fd root; the fuzz target calls it directly. */
int rn_problem_parse(int root, const char *dir, const char *yaml, size_t len,
                     const struct runner_limits *lim, struct rn_problem **out,
                     struct common_errors *errs);
void rn_problem_free(struct rn_problem *p);
/* Legal but probably not what the setter meant (points that do not add up
 * to 100, a test in no subtask, a bare time limit above 60 s): one
 * "FILE:LINE: KEY: warning: message" each, which does not fail a check. */
void rn_problem_warnings(const struct rn_problem *p, struct common_errors *warns);
/* runner_problem_summary's JSON of a loaded problem (caller frees; NULL
 * only out of memory: every problem that loads has one). */
char *rn_problem_summary(const struct rn_problem *p);

/* ---- checker.c --------------------------------------------------------- */

struct rn_check {
    enum runner_verdict verdict;   /* AC, WA, PE or IE */
    double fraction;               /* of the test's worth, 0..1 */
    char message[512];
};

/* cmp NULL: RN_COMPARE_DEFAULT */
void rn_check_buffers(enum rn_checker_type type, const struct rn_compare *cmp, const char *out,
                      size_t outlen, const char *ans, size_t anslen, struct rn_check *res);
/* -1 with err when a file cannot be read. The answer is read only as far as
 * the output and the first difference need (see checker.c). */
int rn_check_fds(enum rn_checker_type type, const struct rn_compare *cmp, int out_fd,
                 int ans_fd, struct rn_check *res, char *err, size_t errlen);
int rn_check_files(enum rn_checker_type type, const struct rn_compare *cmp, const char *out_path,
                   const char *ans_path, struct rn_check *res, char *err, size_t errlen);
/* testlib: 0 AC, 1 WA, 2 PE, 3 fail, 4 dirt (PE), 7 points, 8 unexpected EOF (WA).
 * Points: a fraction 0..1 first on stdout, else testlib's own "points X" on
 * stderr (quitp). */
void rn_check_from_exit(int exit_code, const char *stdout_text, const char *stderr_text,
                        struct rn_check *res);
/* Kattis: 42 AC, 43 WA, any other code IE ("the WHAT exited N ..."); message:
 * the feedback dir's judgemessage.txt (or what stands in for it). */
/* CMS's checker protocol: exit 0 and a score 0..1 as the first token of
 * stdout (1 AC, less WA with that fraction), the message stderr's first
 * line; anything else is IE. */
void rn_check_from_cms(int exit_code, const char *stdout_text, const char *stderr_text, struct rn_check *res);
void rn_check_from_kattis(int exit_code, const char *message, const char *what,
                          struct rn_check *res);

/* ---- interactive.c ----------------------------------------------------- */

/* One box of programs joined by pipes, run from its own thread
 * (rn_side_run): its result, and its place in the order of ends, taken
 * when its run returns and before its pipe ends (close_after, the host's
 * copies) are closed, so that a side that ended because another did
 * always ranks after it. */
struct rn_side {
    struct sandbox *sb;
    struct sandbox_job *job;
    struct sandbox_result *res;
    int rc;
    int *close_after;              /* this run's pipe ends, closed when it ends */
    size_t close_count;
    unsigned *ended;               /* shared: how many runs have ended */
    bool ranked;                   /* set once, by whoever saw the end first */
    unsigned rank;                 /* 1: this run ended first */
};
void *rn_side_run(void *side);
/* closes the side's pipe ends (a side whose thread never started) */
void rn_side_close(struct rn_side *s);
/* A close-on-exec pipe a box may open again by name (/dev/stdin,
 * /dev/fd/N): mode 0666; -1 with errno. */
int rn_box_pipe(int fds[2]);

struct rn_pair_result {
    struct sandbox_result submission, interactor;
    bool output_exceeded;          /* the submission wrote more than the limit */
    uint64_t submission_bytes;     /* what it wrote to the interactor */
    bool interactor_first;         /* its run ended before the submission's */
};

/* Runs sub and inter (distinct slots) joined by pipes; sets their stdin,
 * stdout and the submission's cancel_fd. -1 with err when the sandbox failed
 * (an infrastructure failure). */
int rn_interact(struct sandbox *sb, struct sandbox_job *sub, struct sandbox_job *inter,
                uint64_t output_limit, struct rn_pair_result *out, char *err, size_t errlen);
/* The test's verdict (order documented in interactive.c and runner/README.md);
 * inter_out/inter_err: the interactor's stdout-less texts (testlib: stderr;
 * kattis: judgemessage.txt). */
void rn_interactive_verdict(const struct rn_pair_result *pr, enum rn_protocol proto,
                            const char *inter_out, const char *inter_err, struct rn_check *chk);

/* ---- communication.c ---------------------------------------------------- */

struct rn_comm_result {
    int processes;
    struct sandbox_result user[RN_MAX_PROCESSES], manager;
    unsigned user_rank[RN_MAX_PROCESSES], manager_rank;   /* order of ends, from 1 */
};

/* The arguments CMS gives the manager (each process's pipe from it, to
 * it) and user process index (fifo: its pipe from the manager, to it;
 * with 2 or more processes its 0-based index); NULL-terminated, freed
 * with rn_argv_free. */
char **rn_comm_manager_args(int processes);
char **rn_comm_user_args(int processes, bool user_stdio, int index);
/* Runs users[0..n) and the manager (distinct boxes) joined by pipes; sets
 * their pipe fds (the users' stdin and stdout with user_stdio) and the
 * manager's ignore_sigpipe. -1 with err when the sandbox failed. */
int rn_communicate(struct sandbox *sb, struct sandbox_job *users, int n, struct sandbox_job *manager,
                   bool user_stdio, struct rn_comm_result *out, char *err, size_t errlen);
/* The test's verdict (order documented in communication.c and
 * runner/README.md); time_limit: the users' CPU seconds together. */
void rn_communication_verdict(const struct rn_comm_result *cr, double time_limit, const char *mgr_out,
                              const char *mgr_err, struct rn_check *chk);

/* ---- scoring.c --------------------------------------------------------- */

struct rn_test_outcome {
    bool ran;
    enum runner_verdict verdict;   /* SKIPPED when !ran */
    double fraction;
    bool passed_threshold;         /* scoring.c: its value passed a threshold subtask */
};

struct rn_subtask_outcome {
    enum runner_verdict verdict;   /* AC, the first failure, or SKIPPED */
    double score;
};

/* Runs test i and fills *out; -1 stops everything (infrastructure, abort). */
typedef int (*rn_run_test_fn)(void *ctx, size_t test, struct rn_test_outcome *out);

/* The most subtask s can score (graded: every item accepted, graded) and
 * the most the problem can (its top-level subtasks added up). */
double rn_subtask_max(const struct rn_problem *p, size_t s);
double rn_problem_max(const struct rn_problem *p);

/* Walks subtasks in order, running the tests they need (each at most once),
 * honouring dependencies and stop_on_failure. tests[] has test_count entries,
 * subs[] subtask_count. Returns -1 when run did. */
int rn_evaluate(const struct rn_problem *p, rn_run_test_fn run, void *ctx,
                struct rn_test_outcome *tests, struct rn_subtask_outcome *subs,
                enum runner_verdict *verdict, double *score);

/* ---- resume.c: checkpoints ------------------------------------------ */

struct rn_job;
struct rn_test_report;

/* After the compile (src/ sealed): computes j's identity when the request
 * records or resumes (none when it cannot be had: no records then), and
 * loads the records to reuse when it resumes a judging of the same
 * identity (calling resume_decided). -1 only when out of memory. */
int rn_resume_begin(struct rn_job *j);
/* Test i's reused outcome, its report entry filled: true; false: run it. */
bool rn_resume_take(struct rn_job *j, size_t i, struct rn_test_outcome *out);
/* Hands test i's record (tr, its check's fraction) to test_recorded. */
void rn_resume_record(struct rn_job *j, size_t i, const struct rn_test_report *tr, double fraction);

/* ---- report.c ---------------------------------------------------------- */

/* one process of a communication test, as its box saw it */
struct rn_process_report {
    char name[16];                 /* "manager", "user 0", ... "user 15" */
    enum runner_verdict verdict;   /* of its own run (AC: it ended OK) */
    double cpu_time, wall_time;
    uint64_t memory;
    int exit_code, signal;
};

struct rn_test_report {
    char *name;
    enum runner_verdict verdict;
    double cpu_time, wall_time;
    uint64_t memory;
    int exit_code, signal;
    char *checker_message;
    double pipeline_time;          /* host wall time spent on the test */
    char *host;                    /* who ran it (runner_request.host; a
                                      reused record's host); NULL: unknown */
    bool reused;                   /* from a record: not run on this host */
    struct rn_process_report *processes;   /* communication: users, then the manager */
    size_t process_count;          /* 0: not a communication test (no "processes") */
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
    bool compile_cached;           /* the compile cache answered (ccache.c) */
    char *compile_output;
    double compile_cpu_time;
    struct rn_test_report *tests;
    size_t test_count;
    struct rn_subtask_report *subtasks;
    size_t subtask_count;
    char *message;                 /* why IE, when it is the problem's fault */
    bool version_given;            /* runner_request.problem_version was set: */
    char *problem_version;         /* NULL: null */
    bool host_given;               /* runner_request.host was set: tests name their host */
};

struct runner_report *rn_report_new(void);

/* ---- package.c --------------------------------------------------------- */

void rn_limits_fill(struct runner_limits *out, const struct runner_limits *in);
const char *rn_kind_name(mode_t mode);   /* "a FIFO (named pipe)", ... */
/* The package dir as a directory fd (the root of every rn_pkg_open). */
int rn_pkg_root(const char *dir, char *why, size_t whylen);
/* Opens rel beneath root (openat2, RESOLVE_BENEATH): a regular file for
 * reading, or with want_dir a directory. -1 with why ("does not exist", "a
 * FIFO (named pipe), not a regular file", "a symbolic link on its path leads
 * out of the package", ...). st (may be NULL) gets its stat. */
struct stat;
int rn_pkg_open(int root, const char *rel, bool want_dir, struct stat *st, char *why,
                size_t whylen);
/* 0 when rel beneath root is a regular file (with want_dir: a directory),
 * else -1 with errno and why as rn_pkg_open; opens nothing for reading. */
int rn_pkg_kind(int root, const char *rel, bool want_dir, char *why, size_t whylen);
/* Reads a regular file beneath root, refusing one larger than max. */
char *rn_pkg_read(int root, const char *rel, size_t max, size_t *len, char *why, size_t whylen);
/* Reads fd to its end, at most max bytes (*too_big when there are more). */
char *rn_fd_read(int fd, size_t max, size_t *len, bool *too_big);
/* Visits every entry below root once, without following links; adds an error
 * for each that is not a regular file, a directory or a link resolving
 * beneath root to one. 0 clean, -1 errors, -2 a limit was exceeded (the walk
 * stopped there). */
int rn_pkg_walk(int root, const char *display, const struct runner_limits *lim,
                struct common_errors *errs);

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

/* ccache.c: the compile cache under WORK/compiled/ */
struct rn_ccache_inputs {
    char **files;            /* the compile box's files before the compile */
    size_t n;
};
int rn_ccache_key(const struct rn_language *l, const char *limits, const char *src_dir, char *const *sources,
                  char *const *flags, struct rn_ccache_inputs *in, char out[65]);
void rn_ccache_inputs_free(struct rn_ccache_inputs *in);
/* 0: a verified entry's files were copied into dst and *log set; 1: none */
int rn_ccache_get(const char *work, const char *key, const char *dst, char **log);
/* Stores src as KEY's entry unless its inputs no longer hash to KEY. */
void rn_ccache_put(const char *work, const char *key, const struct rn_language *l, const char *limits,
                   char *const *sources,
                   char *const *flags, const struct rn_ccache_inputs *in, const char *src, const char *log, int slot,
                   uint64_t max);
/* A tree's manifest ("SHA256 SIZE MODE PATH" per regular file, sorted):
 * written (-1 on a link or special file), and checked: 0 when the tree holds
 * exactly those files with those bytes, 1 otherwise. */
int rn_tree_sums_write(const char *root, const char *sums_path);
int rn_tree_sums_check(const char *root, const char *sums_path);
char *rn_strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double rn_now(void);

/* ---- the pipeline ------------------------------------------------------- */

/* What runner_open makes (runner.c); read-only afterwards but for the slot
 * allocator: busy[i] (slot first_slot + i taken) under mu, freed signalled
 * when one is released. */
struct runner {
    struct sandbox *sb;                       /* NULL: catalog_only */
    char *work_dir;                           /* canonical, root's, 0700 (unless catalog_only) */
    uint64_t compile_cache;                   /* bytes kept under compiled/ */
    uint64_t helper_cache;                    /* bytes kept under checkers/ */
    struct rn_language **langs;               /* sorted by file name */
    size_t lang_count;
    struct runner_limits limits;
    int first_slot, slots;
    pthread_mutex_t mu;
    pthread_cond_t freed;
    bool *busy;
    char *prepared_dir;                       /* canonical, root's, 0700; NULL: catalog_only */
    char *helpers_dir;                        /* built checkers (helper.c); NULL: catalog_only */
    bool prepare_off;                         /* runner_config.prepare_off */
    struct rn_prepared_state *prep;           /* one per language (prepared.c) */
    char (*cpu_of)[12];                       /* [i]: submission slot i's CPU ("3"); NULL: not pinned */
};

/* one submission (or self-test) in one slot */
struct rn_job {
    struct runner *r;
    int slot;                                 /* sandbox slot */
    char *dir, *src, *out_dir, *out, *log, *chk, *chk_out, *chk_err;
    char *feedback;                           /* a Kattis checker's feedback dir */
    char *io;                                 /* a file-I/O problem's working dir; NULL */
    char *io_out;                             /* its output file in the box; NULL */
    int pass;                                 /* of the current test, from 0 (passes) */
    int pass_input;                           /* the next pass's stdin (nextpass.in); -1 */
    const struct rn_language *lang;
    const struct rn_problem *prob;
    char *prob_abs;                           /* absolute package dir */
    const struct runner_request *req;
    struct runner_report *rep;
    bool chk_ready;                           /* chk/ holds links already */
    char *checker_dir;                        /* compiled custom checker */
    const struct rn_language *checker_lang;
    char *inter, *inter_err;                  /* the interactor's box, stderr */
    bool inter_ready;
    char *inter_dir;                          /* compiled interactor */
    const struct rn_language *inter_lang;
    struct rn_language *checker_own, *inter_own;   /* a build/run program's (program.c) */
    char *run_prepared;                       /* the language's prepared files for runs */
    bool run_prepared_checked;
    enum runner_failure failure;
    char err[512];
    char *identity;                           /* resume.c; NULL: not computed */
    struct rn_test_outcome *reuse;            /* resume.c: [i].ran: test i's record reused */
};

/* ---- submission.c ------------------------------------------------------ */

struct fileset;

/* The name of test i's answer file in an output-only problem's submission
 * (the problem's answer_file with {name} and {index} replaced); caller
 * frees. */
char *rn_answer_file_name(const struct rn_problem *p, size_t i);
/* An output-only problem's answer files written into j->src (fresh), where
 * each test reads its own (run.c) and the judging's identity hashes them.
 * 0; -1 infra. */
int rn_submission_write_answers(struct rn_job *j, const struct fileset *fs);

/* A submission of several files written into j->src (fresh), and the
 * names the compile takes in place of the language's source file (the
 * caller frees *sources, set even on error). 0; 1 CE with *message (no
 * entry point); -1 infra. */
int rn_submission_write_files(struct rn_job *j, const struct fileset *fs, char ***sources, char **message);

/* a compile's outcome: ok, the compiler's output (with notes), CPU seconds */
struct rn_compiled {
    bool ok;
    char *output;
    double cpu_time;
};

/* what a compile adds to the language's commands */
struct rn_compile_opts {
    char **sources;     /* replace the language's source file name in argvs */
    char **flags;       /* appended to every step */
    bool helper;        /* a package's helper: its own CPU and wall clock,
                           and starving is an infrastructure failure */
};

/* runner.c: the catalog (a language by id; by a package file's extension,
 * .cc and .cxx being C++), a job's slot and directories, the error that
 * makes runner_judge an infrastructure failure */
const struct rn_language *rn_find_language(const struct runner *r, const char *id);
const struct rn_language *rn_language_for_file(const struct runner *r, const char *file);
/* "python3, pypy3": the languages having file's extension (for messages) */
void rn_extension_languages(const struct runner *r, const char *file, char *out, size_t len);
/* "unknown language 'x' (known: c cpp ...)" */
void rn_unknown_language(const struct runner *r, const char *id, char *err, size_t errlen);
/* Takes a slot (waiting for one) and makes its directories; -1 with j->err. */
int rn_job_begin(struct rn_job *j, struct runner *r);
void rn_job_end(struct rn_job *j);
/* The CPU (a sandbox_job.cpus) of a slot's boxes, companion included;
 * NULL: not pinned. */
const char *rn_slot_cpus(const struct runner *r, int slot);
/* Sets j->err to "what: why" and the failure to INFRA; returns -1. */
int rn_job_infra(struct rn_job *j, const char *what, const char *why);
/* The language's mounts (optional), then extra; caller frees. */
struct sandbox_mount *rn_mounts_for(const struct rn_language *l, const struct sandbox_mount *extra,
                                    size_t extra_n, size_t *count);

/* compile.c (each -1 only on an infrastructure failure, with j->err) */
/* The language's compile limits, raised where j's problem asks for more. */
struct sandbox_limits rn_compile_limits(const struct rn_job *j, const struct rn_language *l);
/* Runs the language's compile steps in dir (opts may be NULL). */
int rn_compile_in(struct rn_job *j, const struct rn_language *l, const char *dir,
                  const struct rn_compile_opts *opts, struct rn_compiled *c);
/* rn_compile_in, and not ok when it left nothing to run. */
int rn_compile_program(struct rn_job *j, const struct rn_language *l, const char *dir,
                       const struct rn_compile_opts *opts, struct rn_compiled *c);
/* A fresh dir holding src as name (rn_write_source: the language's name). */
int rn_write_named(struct rn_job *j, const char *dir, const char *name, const char *src,
                   size_t len);
int rn_write_source(struct rn_job *j, const struct rn_language *l, const char *dir,
                    const char *src, size_t len);

/* grader.c */
const struct rn_grader *rn_grader_for(const struct rn_problem *p, const char *lang);
/* The CE message of a language without a grader, listing those with one. */
char *rn_grader_missing(const struct rn_problem *p, const char *lang);
bool rn_grader_required(const struct rn_problem *p);
/* Copies g's files beside the submission (saved as name); *sources: what the
 * compile names instead of the language's source file. 0, 1 when the
 * package is at fault (*message), -1 infra. */
int rn_grader_install(struct rn_job *j, const struct rn_grader *g, const char *name,
                      char ***sources, char **message);

/* program.c: a checker or interactor given as a directory (its files read
 * beneath the package root, bounded): build/run scripts, or the sources of
 * one language compiled together. */
struct rn_program {
    size_t count;
    char **names;                     /* paths inside the directory, sorted */
    char **text;
    size_t *len;
    bool build, run;                  /* the scripts: then lang is NULL */
    const struct rn_language *lang;   /* otherwise the one language of its sources */
    char **sources;                   /* NULL-terminated, pointers into names */
};
/* Reads package directory dir and finds its form; -1 with why (two
 * languages, no source, a file refused, a bound passed). */
int rn_program_read(const struct runner *r, const struct rn_problem *p, const char *dir, struct rn_program *pg,
                    char *why, size_t whylen);
/* sha256 of the form, the language's compile commands and flags (sources
 * form), every file's name and bytes: the checker cache's key. */
int rn_program_hash(const struct rn_program *pg, char *const *flags, char out[65]);
/* A fresh dir holding the files (directories writable by the build). */
int rn_program_write(const struct rn_program *pg, const char *dir);
/* built/run: 1 made executable ("#!" or ELF), 0 to be read by /bin/sh, -1 missing. */
int rn_program_mark_run(const char *built);
/* The scripts form's language (build: `/bin/sh build`; run: `./run` or
 * `/bin/sh run`); rn_language_free frees it. */
struct rn_language *rn_program_language(const struct runner *r, bool build, bool run_executable);
void rn_program_free(struct rn_program *pg);

/* helper.c: compile (or find cached) the problem's checker or interactor
 * into j->checker_dir / j->inter_dir; 0 ready, 1 the problem's fault
 * (*message), -1 infra */
int rn_prepare_checker(struct rn_job *j, char **message);
int rn_prepare_interactor(struct rn_job *j, char **message);
/* The same for any program of j->prob's package (tool.c: a generator):
 * *dir its built directory, *lang its language (*own: a directory's
 * scripts form, freed by the caller). */
int rn_prepare_tool(struct rn_job *j, const char *what, const char *source, char **dir,
                    const struct rn_language **lang, struct rn_language **own, char **message);

/* prepared.c: a language's prepared files (see there) */
struct rn_prepared_state;
/* Sets up r's entries under dir (NULL: WORK/prepared); -1 with err. */
int rn_prepared_init(struct runner *r, const char *dir, bool off, char *err, size_t errlen);
void rn_prepared_free(struct runner *r);
/* The host directory of l's verified prepared files (caller frees), built
 * first in j's slot when missing or damaged and may_build; NULL when l has
 * none, they are off, or they cannot be had (the job goes on without). */
char *rn_prepared_for(struct rn_job *j, const struct rn_language *l, bool may_build);

/* run.c */
/* a run's verdict from the sandbox's status (IE where the box failed) */
enum runner_verdict rn_verdict_of(enum sandbox_status s);
/* Runs the program on test t (no package: stdin /dev/null) into j->out. */
int rn_run_program(struct rn_job *j, const struct rn_test *t, struct sandbox_result *res);
/* rn_evaluate's rn_run_test_fn: runs, checks and reports test i of j (ctx). */
int rn_run_test(void *ctx, size_t i, struct rn_test_outcome *out);

#endif
