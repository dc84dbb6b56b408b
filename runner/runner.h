/*
 * runner.h - turn (source, language, problem) into a verdict on one machine.
 *
 * The only public header of runner/. It knows nothing about Redis; judged/
 * and judgectl call it. It uses sandbox/ to compile and run.
 *
 *   struct runner *r;
 *   runner_open(&r, &cfg, err, sizeof err);
 *   struct runner_request req = {.problem_dir = "...", .language = "c",
 *                                .source = src, .source_len = n};
 *   struct runner_report *rep;
 *   enum runner_failure failure;               // on -1: retry or not
 *   runner_judge(r, &req, &rep, &failure, err, sizeof err);
 *   char *json = runner_report_json(rep);      // the judgectl --json object
 *   runner_report_free(rep);
 */
#ifndef JUDGED_RUNNER_H
#define JUDGED_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct runner;
struct runner_report;

/* What a problem package may hold; 0 = the default (RUNNER_DEFAULT_*). A
 * package over a limit is refused with the limit named. yaml_size also
 * bounds language files. */
struct runner_limits {
    uint64_t yaml_size;         /* bytes of problem.yaml, of a language file */
    uint64_t package_files;     /* files, directories and links in a package */
    uint64_t package_size;      /* bytes of its regular files (sparse ones count whole) */
    uint64_t tests;             /* tests of a problem */
    /* the most a problem's compile_limits (and ICPC limits) may raise a
     * compile to: asking more gets this much */
    uint64_t compile_time_max_ms;
    uint64_t compile_memory_max;
    uint64_t compile_output_max;
    /* a helper's build (custom checker, interactor, program directory): its
     * own limits, never a contestant's compile clock. A build that runs out
     * of wall clock with CPU time left is the host's fault (infrastructure
     * failure: retried), never IE */
    uint64_t helper_cpu_ms;
    uint64_t helper_wall_ms;
};
#define RUNNER_DEFAULT_YAML_SIZE (1ULL << 20)
#define RUNNER_DEFAULT_PACKAGE_FILES 50000ULL
#define RUNNER_DEFAULT_PACKAGE_SIZE (16ULL << 30)
#define RUNNER_DEFAULT_TESTS 10000ULL
#define RUNNER_DEFAULT_COMPILE_TIME_MAX_MS 60000ULL
#define RUNNER_DEFAULT_COMPILE_MEMORY_MAX (2ULL << 30)
#define RUNNER_DEFAULT_COMPILE_OUTPUT_MAX (1ULL << 30)
#define RUNNER_DEFAULT_HELPER_CPU_MS 60000ULL
#define RUNNER_DEFAULT_HELPER_WALL_MS 300000ULL
/* Sets one limit from "KEY=VALUE": yaml_size=2M, package_size=32G,
 * compile_memory_max=4G, compile_output_max=2G (sizes), package_files=100000,
 * tests=20000 (counts), compile_time_max=2m, helper_cpu_time=90s,
 * helper_wall_time=10m (durations). -1 with err. */
int runner_limits_set(struct runner_limits *l, const char *setting, char *err, size_t errlen);

struct runner_config {
    const char *languages_dir;  /* directory of languages/NAME.yaml files */
    const char *work_dir;       /* scratch space: box dirs, checker cache */
    int first_slot;             /* sandbox slots [first_slot, first_slot+2*slots): */
    int slots;                  /* how many submissions may be judged at once;
                                   submission i runs in slot first_slot+i, and
                                   an interactive problem's interactor in its
                                   companion first_slot+slots+i */
    /* sandbox settings, passed through (NULL/0 = sandbox defaults) */
    const char *sandbox_run_dir;
    const char *cgroup_parent;
    /* true: only the catalog (languages), no sandbox and no work_dir, so no
     * root is needed; runner_judge and the self-test then fail. */
    bool catalog_only;
    /* bytes of successful compiles kept under work_dir/compiled (LRU; a
     * rejudge or identical resubmission skips its compile); 0 = 256 MiB */
    uint64_t compile_cache;
    /* bytes of built helpers (checkers, interactors, validators) kept under
     * helpers_dir (LRU; one used in the last 30 minutes is never removed: a
     * judging may start it again); 0 = 1 GiB */
    uint64_t helper_cache;
    /* where built helpers are kept; NULL: work_dir/checkers. Runners that
     * name one directory (a host's pools) build each checker once between
     * them: builds are published by rename, so they may share it. */
    const char *helpers_dir;
    struct runner_limits limits; /* problem packages and language files */
    /* files languages build once and reuse (`prepare` in languages/ID.yaml:
     * a precompiled header, a JVM archive), under this directory; NULL:
     * work_dir/prepared. prepare_off: compile and run without them (as
     * before they existed; for measuring) */
    const char *prepared_dir;
    bool prepare_off;
    /* one box per core: cpus[i] is the CPU every box of submission slot i
     * runs on (its compiles, helper builds, runs, checker and its
     * companion's interactor: they take turns); NULL: not pinned */
    const int *cpus;
};

struct runner_request {
    const char *problem_dir;    /* a problem package directory */
    const char *language;       /* language id, e.g. "c" */
    const char *source;
    size_t source_len;
    /* Called before each test; return false to abandon the job (e.g. the
     * caller lost its lease). May be NULL. */
    bool (*keep_going)(void *arg);
    void *keep_going_arg;
    /* Called after each test with keep_going_arg, the test's index
     * (0-based), the number of tests and its verdict (an enum
     * runner_verdict): progress to show. May be NULL. */
    void (*test_done)(void *arg, size_t index, size_t count, int verdict);
    /* For a caller that stores the report: the package's version as the
     * caller names it, echoed as the report's "problem_version" ("" gives
     * null: a package without a version). NULL: the report has no such
     * field (judgectl judge). */
    const char *problem_version;

    /* ---- checkpoints: resuming a judging another host began ----
     * host names this host in each test of the report ("host": who ran
     * it); NULL: the report has no such field (judgectl judge). */
    const char *host;
    /* Called after each test that ran here (not for a reused one), after
     * test_done, with keep_going_arg: the judging's identity (problem,
     * language definition, source and compiled program hashes, one
     * string) and the test's record (what rebuilds its outcome and its
     * report entry; opaque to the caller). May be NULL. */
    void (*test_recorded)(void *arg, size_t index, size_t count, int verdict, const char *identity,
                          const char *record);
    /* A judging to resume: the identity it recorded and its records,
     * resume_records[i] test i's or NULL (resume_count entries, at most
     * the problem's tests; later tests have none). Tests
     * with a record are not run again when this judging's identity equals
     * resume_identity; otherwise all run. NULL: start fresh. */
    const char *resume_identity;
    const char *const *resume_records;
    size_t resume_count;
    /* Called once (with keep_going_arg) when resume_identity was given,
     * before the first test: how many records were reused, or why none
     * was (why_not non-NULL: "the compiled program differs", ...). */
    void (*resume_decided)(void *arg, size_t reused, const char *why_not);
};

enum runner_verdict {
    RUNNER_AC = 0, RUNNER_WA, RUNNER_PE, RUNNER_TLE, RUNNER_MLE, RUNNER_OLE,
    RUNNER_RE, RUNNER_SV, RUNNER_CE, RUNNER_IE, RUNNER_SKIPPED,
};

/* Why a run ended without a verdict the contestant earned. */
enum runner_failure {
    RUNNER_FAILURE_NONE = 0,  /* a verdict was reached (maybe IE of the problem) */
    RUNNER_FAILURE_INFRA,     /* sandbox/test data/IO trouble: worth a retry */
    RUNNER_FAILURE_ABORTED,   /* keep_going returned false */
};

int runner_open(struct runner **out, const struct runner_config *cfg,
                char *err, size_t errlen);
void runner_close(struct runner *r);

/* Judges one submission. Returns 0 with *out set when a verdict was reached,
 * -1 otherwise with err filled and *failure saying whether to retry. */
int runner_judge(struct runner *r, const struct runner_request *req,
                 struct runner_report **out, enum runner_failure *failure,
                 char *err, size_t errlen);

enum runner_verdict runner_report_verdict(const struct runner_report *rep);
double runner_report_score(const struct runner_report *rep);
/* The object documented for `judgectl judge --json`; caller frees (free). */
char *runner_report_json(const struct runner_report *rep);
void runner_report_free(struct runner_report *rep);

const char *runner_verdict_name(enum runner_verdict v);

/* Language ids, for admission. A language's id is its file name (c.yaml:
 * c); routing to pools is judged's configuration, not the runner's. */
bool runner_language_exists(struct runner *r, const char *id);

/* ---- additions: listing, self-test, package check, figures ---- */

size_t runner_language_count(struct runner *r);
const char *runner_language_id(struct runner *r, size_t i);   /* NULL past the end */
const char *runner_language_name(struct runner *r, const char *id);
/* What a platform shows of a language (judge-api's GET /v1/languages): its
 * name, its source file's name (Main.java: the extension, and Java's class
 * rule), and how its limits differ from a problem's. false: no such id.
 * The strings live as long as r. */
struct runner_language_info {
    const char *name, *source;
    double time_factor;         /* x a problem's time limit */
    uint64_t extra_memory;      /* bytes over a problem's memory limit */
    double compile_time;        /* the compile's limits: CPU seconds, */
    uint64_t compile_memory;    /* bytes */
    bool prepare;               /* it has files to prepare (a `prepare` key) */
};
bool runner_language_info(struct runner *r, const char *id, struct runner_language_info *out);
/* The same as GET /v1/languages shows it (judged publishes it, `judgectl
 * languages --json` prints it): JSON {name, source, extensions,
 * default_for (those of its extensions a checker or a package's program
 * ending so compiles with), time_factor, extra_memory, compile_time_limit,
 * compile_memory_limit}; caller frees. NULL: no such id. */
char *runner_language_json(struct runner *r, const char *id);
/* The language (id) a package's file compiles with by its extension: the
 * one whose file says `default_for` it, else the only one with it among its
 * `extensions`; NULL: none, or several and no default. */
const char *runner_language_for_file(struct runner *r, const char *file);
/* The first line the language's `version` command prints (stdout and
 * stderr: `java -version` writes to stderr), run on the host as its file
 * says, within RUNNER_VERSION_TIMEOUT_MS: 0; 1 when the language has no
 * version command (none to show); -1 with err (no such language, the
 * command failed or printed nothing). */
#define RUNNER_VERSION_TIMEOUT_MS 10000
int runner_language_version(struct runner *r, const char *id, char *out, size_t len, char *err, size_t errlen);

/* The runtime self-test of `judgectl languages --check`: runs the version
 * command, then compiles and runs a hello-world (chosen by the source file's
 * extension) through the sandbox. ok tells whether it printed "hello". */
struct runner_selftest {
    bool ok;
    char version[256];      /* first line the version command printed */
    char status[512];       /* "OK", or what went wrong */
    double compile_time, run_time;   /* wall seconds */
};
int runner_language_selftest(struct runner *r, const char *id, struct runner_selftest *out,
                             char *err, size_t errlen);

/* Validates a problem package. Returns the number of errors; *errors gets
 * one "FILE:LINE: KEY: message" line per error (caller frees), then one
 * "FILE:LINE: KEY: warning: message" line per warning, which does not count
 * (e.g. a memory limit too small for any program to start). With r, a
 * custom checker is also compiled (and cached); r may be NULL. *summary (if
 * summary is not NULL) describes a package that loaded; caller frees. */
int runner_problem_check(struct runner *r, const char *problem_dir, char **errors,
                         char **summary);

/* The same without a runner (so without the checker's compile), under
 * limits (NULL: the defaults). */
int runner_problem_check_limits(const struct runner_limits *limits, const char *problem_dir,
                                char **errors, char **summary);

/* What a platform shows of a problem before submitting to it (judged
 * publishes it for GET /v1/problems): one compact JSON object (caller
 * frees *json) with title (problem.yaml's title, else its name), type
 * ("batch" | "interactive" | "communication" | "output-only"), passes (1;
 * more: multi-pass), scoring ("pass-fail" | "score": subtasks declared or a
 * checker or interactor with scores: true, or a communication problem),
 * max_score, time_limit and wall_time_limit (s, before
 * a language's time_factor), memory_limit and output_limit (bytes, before
 * its extra_memory), languages (the ids a required grader allows; null:
 * any), tests, subtasks [{name, points}]. The package is loaded as
 * runner_problem_check loads it (under r's limits; r may be NULL), nothing
 * compiled. -1 with err (its first error) when it does not load. */
int runner_problem_summary(struct runner *r, const char *problem_dir, char **json, char *err, size_t errlen);

double runner_report_max_score(const struct runner_report *rep);
/* Why the verdict is IE when the problem is at fault; NULL otherwise. */
const char *runner_report_message(const struct runner_report *rep);
size_t runner_report_test_count(const struct runner_report *rep);
/* The compiler's CPU time in seconds: 0 when the compile cache answered,
 * -1 when nothing was compiled. */
double runner_report_compile_time(const struct runner_report *rep);
/* Host wall time the pipeline spent on test i (sandbox, copying, checking)
 * and the program's own wall time; -1 for a skipped test and for one
 * another host ran (a resumed judging's reused record). */
int runner_report_test_times(const struct runner_report *rep, size_t i, double *pipeline_wall,
                             double *program_wall);

/* ---- a package's own programs, run at push ----
 * What a problem format makes its tests with (a CMS task's generator,
 * validator and official solution: judged/store/cms_gen.c asks for them
 * through judgectl). A tool is built as a checker is (its language by its
 * extension, the headers beside it, cached under work_dir/checkers) and
 * each run takes one of r's slots, in a box of its own: no network, the
 * given limits, nothing of the host but what the language mounts. */
struct runner_tool;
struct runner_tool_limits {
    double cpu_time;            /* seconds */
    double wall_time;           /* seconds; 0: 2 x cpu_time + 1 */
    uint64_t memory;            /* bytes */
    uint64_t output;            /* bytes of stdout */
    bool submission;            /* as a submission's limits: cpu_time x the
                                   language's time_factor, memory + its
                                   extra_memory (a Python solution) */
};
/* Builds source (relative to the package dir) of package dir; what names
 * it in messages ("generator"). 0 with *out; 1 the package's fault (it
 * does not compile, no language has its extension: msg says which); -1 an
 * infrastructure failure (msg). */
int runner_tool_build(struct runner *r, const char *dir, const char *source, const char *what,
                      struct runner_tool **out, char *msg, size_t msglen);
/* Runs tool with args (NULL-terminated, after its language's run command),
 * stdin the host file in_path (NULL: /dev/null), stdout written into the
 * host file out_path (created or truncated; NULL: discarded). in_name: the
 * input is also a file of that name in the box's working directory (NULL:
 * none); out_name: its output is instead the file of that name it leaves
 * there (CMS's file I/O). 0 it exited 0 within its limits; 1 it did not
 * (msg: how, the limit it hit, the first line of its stderr); -1
 * infrastructure (msg). */
int runner_tool_run(struct runner_tool *tool, char *const *args, const char *in_path, const char *in_name,
                    const char *out_path, const char *out_name, const struct runner_tool_limits *lim, char *msg,
                    size_t msglen);
void runner_tool_free(struct runner_tool *tool);

#endif
