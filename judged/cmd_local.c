/*
 * cmd_local.c - judgectl judge | languages | problem: runner/ on this
 * machine, no Redis.
 *
 * Each command opens its own runner with one sandbox slot, N, and its
 * companion N+1 (an interactive problem's interactor runs there). Slots are
 * shared with a judged daemon on the same host, so the default is taken from
 * the range 500..599 (500 + 2 x (pid % 50)) and --slot N picks one. The
 * languages directory defaults to the installed one (paths.c: PREFIX/share/
 * judged/languages beside the executable's bin/; in the build tree a link to
 * the source's languages/) and the scratch directory to /tmp/judgectl (the
 * checker cache lives there).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "ctl.h"
#include "paths.h"
#include "common.h"
#include "runner.h"

#define DEFAULT_WORK_DIR "/tmp/judgectl"

struct local_opts {
    char languages[4200];
    const char *work_dir;
    int slot;
    struct runner_limits limits;    /* --limit KEY=VALUE (problem packages) */
};

enum { OPT_LANGUAGES = 1000, OPT_WORK_DIR, OPT_SLOT, OPT_JSON, OPT_CHECK, OPT_CONFIG,
       OPT_LIMIT };

static const struct option common_options[] = {
    {"languages", required_argument, NULL, OPT_LANGUAGES},
    {"work-dir", required_argument, NULL, OPT_WORK_DIR},
    {"slot", required_argument, NULL, OPT_SLOT},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"config", required_argument, NULL, OPT_CONFIG},   /* global; unused here */
    {"help", no_argument, NULL, 'h'},
};

/* handles the options every local command shares; 1 if it was one */
static int common_option(int c, struct local_opts *o)
{
    switch (c) {
    case OPT_LANGUAGES: snprintf(o->languages, sizeof o->languages, "%s", optarg); return 1;
    case OPT_WORK_DIR: o->work_dir = optarg; return 1;
    case OPT_SLOT: o->slot = atoi(optarg); return 1;
    case OPT_CONFIG: return 1;
    case OPT_LIMIT: {
        char err[256];
        if (runner_limits_set(&o->limits, optarg, err, sizeof err) == 0)
            return 1;
        fprintf(stderr, "judgectl: --limit %s\n", err);
        exit(2);
    }
    default: return 0;
    }
}

static struct local_opts default_opts(void)
{
    struct local_opts o = {.work_dir = DEFAULT_WORK_DIR, .slot = 500 + 2 * (int)(getpid() % 50)};
    jd_default_languages(o.languages, sizeof o.languages);
    return o;
}

static struct runner *open_runner(const struct local_opts *o, const char *cmd, bool quiet)
{
    struct runner_config cfg = {.languages_dir = o->languages, .work_dir = o->work_dir,
                                .first_slot = o->slot, .slots = 1, .limits = o->limits};
    struct runner *r;
    char err[4096];
    if (runner_open(&r, &cfg, err, sizeof err) == 0)
        return r;
    if (!quiet)
        fprintf(stderr, "judgectl %s: %s\n", cmd, err);
    return NULL;
}

static struct runner *open_catalog(const struct local_opts *o)
{
    struct runner_config cfg = {.languages_dir = o->languages, .catalog_only = true};
    struct runner *r;
    char err[4096];
    if (runner_open(&r, &cfg, err, sizeof err) == 0)
        return r;
    fprintf(stderr, "judgectl languages: %s\n", err);
    return NULL;
}

/* ---- judge ---------------------------------------------------------------- */

static const char judge_usage[] =
    "usage: judgectl judge --problem DIR --lang ID [--json] [--languages DIR]\n"
    "                      [--work-dir DIR] [--slot N] [--limit KEY=VALUE] SOURCE\n"
    "Compiles SOURCE and judges it against the problem package in DIR.\n"
    "Exit status: 0 a verdict was reached (AC, WA, CE, TLE...: whatever the\n"
    "submission earned); 3 the verdict is IE (the problem package or its\n"
    "checker is broken; the report says why); 1 no verdict (unreadable source,\n"
    "no sandbox, an infrastructure failure: worth a retry); 2 bad usage.\n";

static void print_report(const struct runner_report *rep, bool json);

int cmd_judge(int argc, char **argv)
{
    static const struct option extra[] = {
        {"problem", required_argument, NULL, 'p'}, {"lang", required_argument, NULL, 'l'},
        {"json", no_argument, NULL, OPT_JSON},
    };
    struct option opts[sizeof common_options / sizeof *common_options + 4] = {0};
    memcpy(opts, common_options, sizeof common_options);
    memcpy(opts + sizeof common_options / sizeof *common_options, extra, sizeof extra);
    struct local_opts o = default_opts();
    const char *problem = NULL, *lang = NULL;
    bool json = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:l:h", opts, NULL)) != -1) {
        if (common_option(c, &o))
            continue;
        switch (c) {
        case 'p': problem = optarg; break;
        case 'l': lang = optarg; break;
        case OPT_JSON: json = true; break;
        case 'h': fputs(judge_usage, stdout); return 0;
        default: fputs(judge_usage, stderr); return 2;
        }
    }
    if (!problem || !lang || optind != argc - 1) {
        fputs(judge_usage, stderr);
        return 2;
    }
    size_t len;
    char *source = common_read_file(argv[optind], 64u << 20, &len, NULL);
    if (!source) {
        fprintf(stderr, "judgectl judge: %s: %s\n", argv[optind], strerror(errno));
        return 1;
    }
    struct runner *r = open_runner(&o, "judge", false);
    if (!r) {
        free(source);
        return 1;
    }
    struct runner_request req = {.problem_dir = problem, .language = lang, .source = source,
                                 .source_len = len};
    struct runner_report *rep;
    enum runner_failure failure;
    char err[1024];
    int rc = runner_judge(r, &req, &rep, &failure, err, sizeof err), status = 1;
    if (rc == 0) {
        print_report(rep, json);
        /* scripts must tell a judge fault from a verdict the source earned */
        status = runner_report_verdict(rep) == RUNNER_IE ? 3 : 0;
        runner_report_free(rep);
    } else {
        fprintf(stderr, "judgectl judge: %s%s\n", err,
                failure == RUNNER_FAILURE_INFRA ? " (infrastructure failure)" : "");
    }
    runner_close(r);
    free(source);
    return status;
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static double num(json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static void print_tests(json_t *tests)
{
    size_t i;
    json_t *t;
    printf("\n%-4s %-12s %-8s %8s %8s %9s %5s  %s\n", "#", "test", "verdict", "cpu", "wall",
           "memory", "exit", "message");
    json_array_foreach(tests, i, t) {
        char exit_s[16];
        int sig = (int)json_integer_value(json_object_get(t, "signal"));
        if (sig)
            snprintf(exit_s, sizeof exit_s, "sig%d", sig);
        else
            snprintf(exit_s, sizeof exit_s, "%d", (int)json_integer_value(json_object_get(t, "exit_code")));
        printf("%-4zu %-12.12s %-8s %7.3fs %7.3fs %8.1fM %5s  %.60s\n", i + 1, str(t, "name"),
               str(t, "verdict"), num(t, "cpu_time"), num(t, "wall_time"),
               num(t, "memory") / 1048576.0, exit_s, str(t, "checker_message"));
    }
}

static void print_subtasks(json_t *subs)
{
    size_t i;
    json_t *s;
    printf("\n%-16s %-8s %s\n", "subtask", "verdict", "score");
    json_array_foreach(subs, i, s)
        printf("%-16.16s %-8s %g / %g\n", str(s, "name"), str(s, "verdict"), num(s, "score"),
               num(s, "points"));
}

static void print_report(const struct runner_report *rep, bool as_json)
{
    char *text = runner_report_json(rep);
    if (as_json || !text) {
        printf("%s\n", text ? text : "{}");
        free(text);
        return;
    }
    /* the table is printed from the JSON: one source of truth */
    json_t *j = json_loads(text, 0, NULL);
    json_t *compile = json_object_get(j, "compile");
    printf("verdict: %s   score: %g / %g\n", str(j, "verdict"), num(j, "score"),
           num(j, "max_score"));
    printf("compile: %s (%.2fs cpu)\n", str(compile, "status"), num(compile, "cpu_time"));
    if (*str(compile, "output"))
        printf("%s%s", str(compile, "output"),
               str(compile, "output")[strlen(str(compile, "output")) - 1] == '\n' ? "" : "\n");
    if (*str(j, "message"))
        printf("problem error:\n%s\n", str(j, "message"));
    if (json_array_size(json_object_get(j, "tests")))
        print_tests(json_object_get(j, "tests"));
    if (json_array_size(json_object_get(j, "subtasks")) && strcmp(str(j, "verdict"), "CE"))
        print_subtasks(json_object_get(j, "subtasks"));
    json_decref(j);
    free(text);
}

/* ---- languages ------------------------------------------------------------ */

static const char languages_usage[] =
    "usage: judgectl languages [--check] [--languages DIR] [--work-dir DIR] [--slot N]\n"
    "Lists the languages (the catalog alone: no sandbox, no root needed); --check\n"
    "compiles and runs a hello-world in each through the sandbox and reports its\n"
    "version and status (exit 1 if any fails).\n";

static bool check_language(struct runner *r, const char *id)
{
    struct runner_selftest st;
    char err[1024];
    if (runner_language_selftest(r, id, &st, err, sizeof err) < 0) {
        printf("%-12s %-40s %s\n", id, "-", err);
        return false;
    }
    printf("%-12s %-40.40s %s (compile %.2fs, run %.2fs)\n", id, st.version, st.status,
           st.compile_time, st.run_time);
    return st.ok;
}

int cmd_languages(int argc, char **argv)
{
    struct option opts[sizeof common_options / sizeof *common_options + 2] = {0};
    memcpy(opts, common_options, sizeof common_options);
    opts[sizeof common_options / sizeof *common_options] =
        (struct option){"check", no_argument, NULL, OPT_CHECK};
    struct local_opts o = default_opts();
    bool check = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (common_option(c, &o))
            continue;
        if (c == OPT_CHECK)
            check = true;
        else if (c == 'h')
            return fputs(languages_usage, stdout), 0;
        else
            return fputs(languages_usage, stderr), 2;
    }
    if (optind != argc)
        return fputs(languages_usage, stderr), 2;
    /* the list is the catalog alone: no sandbox, no root */
    struct runner *r = check ? open_runner(&o, "languages", false) : open_catalog(&o);
    if (!r)
        return 1;
    bool ok = true;
    if (check)
        printf("%-12s %-40s %s\n", "id", "version", "status");
    else
        printf("%-12s %s\n", "id", "name");
    for (size_t i = 0; i < runner_language_count(r); i++) {
        const char *id = runner_language_id(r, i);
        if (check)
            ok &= check_language(r, id);
        else
            printf("%-12s %s\n", id, runner_language_name(r, id));
    }
    runner_close(r);
    return ok ? 0 : 1;
}

/* ---- problem check ----------------------------------------------------------- */

static const char problem_usage[] =
    "usage: judgectl problem check [--languages DIR] [--work-dir DIR] [--slot N]\n"
    "                              [--limit KEY=VALUE] [--json] DIR\n"
    "       judgectl problem push|list|show|versions|rm ...  (the problem store: --help there)\n"
    "Validates a problem package: every error names file, line and key. A custom\n"
    "checker is compiled through the sandbox (when the sandbox is available).\n"
    "--limit KEY=VALUE (repeatable) raises or lowers a package limit: yaml_size,\n"
    "package_files, package_size, tests (runner/README.md).\n"
    "Warnings (\"FILE:LINE: KEY: warning: ...\": a memory limit too small for any\n"
    "program to start, subtask points that do not add up to 100, a test in no\n"
    "subtask, a time limit above 60 without a unit) are printed too but do not\n"
    "fail the check. --json prints {\"ok\", \"package\", \"summary\", \"errors\",\n"
    "\"warnings\"}.\n"
    "Exit status 0 without errors, 1 with errors, 2 on bad usage.\n";

/* The store's subcommands (cmd_store.c) share the name "problem": the
 * first word that is not an option (or an option's value) decides. */
static bool is_store_command(int argc, char **argv)
{
    static const char *with_value[] = {"--config", "--languages", "--work-dir", "--slot", "--name",
                                       "--version", "--limit", "-c", "-n", "-v"};
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-')
            return strcmp(argv[i], "check") != 0;
        for (size_t j = 0; j < sizeof with_value / sizeof *with_value; j++)
            if (!strcmp(argv[i], with_value[j]))
                i++;
    }
    return false;
}

int cmd_problem(int argc, char **argv)
{
    if (is_store_command(argc, argv))
        return cmd_store(argc, argv);
    struct option opts[sizeof common_options / sizeof *common_options + 2] = {0};
    memcpy(opts, common_options, sizeof common_options);
    opts[sizeof common_options / sizeof *common_options] =
        (struct option){"json", no_argument, NULL, OPT_JSON};
    struct local_opts o = default_opts();
    bool json = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (common_option(c, &o))
            continue;
        if (c == OPT_JSON) {
            json = true;
            continue;
        }
        if (c == 'h')
            return fputs(problem_usage, stdout), 0;
        return fputs(problem_usage, stderr), 2;
    }
    if (optind + 2 != argc || strcmp(argv[optind], "check"))
        return fputs(problem_usage, stderr), 2;
    const char *dir = argv[optind + 1];
    struct runner *r = open_runner(&o, "problem", true);
    if (!r)
        fprintf(stderr, "judgectl problem: no sandbox or languages: a custom checker is not "
                        "compiled\n");
    char *errors = NULL, *summary = NULL;
    int count = r ? runner_problem_check(r, dir, &errors, &summary)
                  : runner_problem_check_limits(&o.limits, dir, &errors, &summary);
    runner_close(r);
    if (json) {
        json_t *errs, *warnings;
        check_lines_json(errors, &errs, &warnings);
        json_t *j = json_pack("{s:b, s:s, s:s?, s:o, s:o}", "ok", count == 0, "package", dir,
                              "summary", count == 0 ? summary : NULL, "errors", errs, "warnings",
                              warnings);
        print_json(j);
        json_decref(j);
    } else if (count > 0)
        fprintf(stdout, "%s%d error%s in %s\n", errors, count, count == 1 ? "" : "s", dir);
    else
        printf("%sOK %s\n", errors ? errors : "", summary ? summary : dir);  /* warnings first */
    free(errors);
    free(summary);
    return count > 0 ? 1 : 0;
}
