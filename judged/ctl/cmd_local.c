/*
 * cmd_local.c - judgectl judge | languages | problem: runner/ on this
 * machine, no queue. Only `judge --problem NAME` reads Redis: the problem
 * store's current version of NAME, as `submit` would record it.
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
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "core.h"
#include "common.h"
#include "ctl.h"
#include "runner.h"
#include "store.h"

#define DEFAULT_WORK_DIR "/tmp/judgectl"

struct local_opts {
    char languages[4200];
    const char *work_dir;
    int slot;
    struct runner_limits limits;    /* --limit KEY=VALUE (problem packages) */
};

enum { OPT_LANGUAGES = 1000, OPT_WORK_DIR, OPT_SLOT, OPT_CHECK, OPT_LIMIT };

/* --config and --json are judgectl's global options (ctl_getopt);
 * --work-dir is the old spelling of --workdir, kept working but no longer
 * documented: judge-sandbox and judgectl say --workdir and --slot. */
#define LOCAL_OPTS \
    COMMON_OPTS, {"languages", required_argument, NULL, OPT_LANGUAGES}, \
    {"workdir", required_argument, NULL, OPT_WORK_DIR}, {"work-dir", required_argument, NULL, OPT_WORK_DIR}, \
    {"slot", required_argument, NULL, OPT_SLOT}, {"limit", required_argument, NULL, OPT_LIMIT}

/* handles the options every local command shares: 1 if it was one, 0 if
 * not, -1 on a bad value (reported; c->status) */
static int common_option(struct common *c, int opt, struct local_opts *o)
{
    char err[256], *end;
    long v;
    switch (opt) {
    case OPT_LANGUAGES: snprintf(o->languages, sizeof o->languages, "%s", optarg); return 1;
    case OPT_WORK_DIR: o->work_dir = optarg; return 1;
    case OPT_SLOT:
        v = strtol(optarg, &end, 10);
        if (!*optarg || *end || v < 0 || v > 100000)
            return ctl_usage(c, "--slot: '%s' is not a sandbox slot number", optarg), -1;
        o->slot = (int)v;
        return 1;
    case OPT_LIMIT:
        if (runner_limits_set(&o->limits, optarg, err, sizeof err) == 0)
            return 1;
        return ctl_usage(c, "--limit %s", err), -1;
    default: return 0;
    }
}

static struct local_opts default_opts(void)
{
    struct local_opts o = {.work_dir = DEFAULT_WORK_DIR, .slot = 500 + 2 * (int)(getpid() % 50)};
    jd_default_languages(o.languages, sizeof o.languages);
    return o;
}

/* A runner with one slot; NULL when there is no sandbox (reported unless quiet). */
static struct runner *open_runner(struct common *c, const struct local_opts *o, bool quiet)
{
    struct runner_config cfg = {.languages_dir = o->languages, .work_dir = o->work_dir,
                                .first_slot = o->slot, .slots = 1, .limits = o->limits};
    struct runner *r;
    char err[4096];
    if (runner_open(&r, &cfg, err, sizeof err) == 0)
        return r;
    if (!quiet)
        ctl_fail(c, "unavailable", "%s", err);
    return NULL;
}

static struct runner *open_catalog(struct common *c, const struct local_opts *o)
{
    struct runner_config cfg = {.languages_dir = o->languages, .catalog_only = true};
    struct runner *r;
    char err[4096];
    if (runner_open(&r, &cfg, err, sizeof err) == 0)
        return r;
    ctl_fail(c, "config", "%s", err);
    return NULL;
}

/* ---- judge ---------------------------------------------------------------- */

static const char judge_usage[] =
    "usage: judgectl judge --problem NAME|DIR --lang ID [--json] [--languages DIR]\n"
    "                      [--workdir DIR] [--slot N] [--limit KEY=VALUE] [--config FILE] SOURCE...\n"
    "Compiles SOURCE and judges it on this machine (no queue) against a problem:\n"
    "several files, a directory or a .zip/.tar(.gz) are one submission of several\n"
    "files, as for 'submit'. The problem is\n"
    "DIR when it names a directory; else NAME as 'submit' takes it: the problem\n"
    "store's current version (fetched into the work directory; needs the Redis of\n"
    "--config), else the configuration's problems/NAME.\n"
    "Exit status: 0 a verdict was reached (AC, WA, CE, TLE...: whatever the\n"
    "submission earned); 3 the verdict is IE (the problem package or its\n"
    "checker is broken; the report says why); 75 no verdict for an infrastructure\n"
    "reason (worth a retry); 69 no sandbox; 66 no such problem or SOURCE; 65 an\n"
    "unknown language; 64 bad usage. With --json a failure is\n"
    "{\"error\": {\"code\", \"message\", \"status\"}} on stdout ('judgectl --help').\n";

static void print_report(const struct runner_report *rep, bool json);

/* What NAME is in the store or the configuration's problems: sets dir (a
 * fetched copy under tmp when from the store: the caller removes tmp). */
static int problem_by_name(struct common *c, const struct local_opts *o, const char *name, char *dir,
                           size_t len, char *tmp, size_t tmplen)
{
    char err[1024], url[4200], version[65];
    struct stat st;
    if (jd_config_load(&c->cfg, c->config ? c->config : jd_default_config(), err, sizeof err)) {
        jd_config_free(&c->cfg);
        return ctl_fail(c, "not_found", "no directory '%s', and no configuration to look it up: %s", name, err);
    }
    c->loaded = true;
    jd_redis_url(&c->cfg, url, sizeof url);
    queue_conn_init(&c->conn, url, 5000);
    bool stored = false, reachable = queue_conn_ensure(&c->conn) == 0;
    /* a Redis that does not answer leaves the problems directory */
    if (reachable && store_current(&c->conn, name, version, &stored, err, sizeof err))
        return ctl_fail(c, "unavailable", "%s", err);
    if (stored) {
        char t[4200], pkg[4300];
        snprintf(t, sizeof t, "%s/problem-XXXXXX", o->work_dir);
        if (!mkdtemp(t))
            return ctl_fail(c, "internal", "%s: %s", t, strerror(errno));
        snprintf(tmp, tmplen, "%s", t);
        snprintf(pkg, sizeof pkg, "%s/tmp", t);
        snprintf(dir, len, "%s/%s", t, name);
        if (store_fetch(&c->conn, version, pkg, dir, NULL, err, sizeof err))
            return ctl_fail(c, "unavailable", "problem %s version %s: %s", name, version, err);
        return 0;
    }
    snprintf(dir, len, "%s/%s", c->cfg.problems, name);
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    return ctl_fail(c, "not_found", "unknown problem '%s' (no such directory, %s, no %s)", name,
                    reachable ? "not in the problem store" : "the problem store's Redis does not answer", dir);
}

int ctl_convert_copy(const char *dir, struct runner *r, char *work, char *pkg, size_t len, char **notes)
{
    pkg[0] = 0;
    if (!store_package_format(dir))
        return 0;
    if (!mkdtemp(work)) {
        if (asprintf(notes, "%s:0: (package): %s\n", work, strerror(errno)) < 0)
            *notes = NULL;
        return 1;
    }
    snprintf(pkg, len, "%s/pkg", work);
    char err[2048], name[256], *links = NULL;
    /* the setter's own directory, as push reads it: a link out to a file copied and said */
    if (store_copy_tree_resolving(dir, pkg, 0, &links, err, sizeof err)) {
        if (asprintf(notes, "%s\n", err) < 0)
            *notes = NULL;
        return 1;
    }
    size_t l = strlen(dir);
    while (l > 1 && dir[l - 1] == '/')
        l--;
    const char *base = dir + l;
    while (base > dir && base[-1] != '/')
        base--;
    snprintf(name, sizeof name, "%.*s", (int)(dir + l - base), base);
    if (!queue_valid_name(name))
        snprintf(name, sizeof name, "problem");
    struct store_tools tools = r ? ctl_store_tools(r) : (struct store_tools){0};
    int n = store_convert_tools(pkg, name, r ? &tools : NULL, notes);
    strip_prefix(*notes, pkg);
    char *all = NULL;
    if (links && asprintf(&all, "%s%s", links, *notes ? *notes : "") >= 0) {
        free(*notes);
        *notes = all;
    }
    free(links);
    return n;
}

static int run_judge(struct common *c, struct runner *r, const char *problem, const char *lang,
                     const char *source, size_t len)
{
    struct runner_request req = {.problem_dir = problem, .language = lang, .source = source,
                                 .source_len = len};
    struct runner_report *rep;
    enum runner_failure failure;
    char err[1024];
    if (runner_judge(r, &req, &rep, &failure, err, sizeof err) == 0) {
        print_report(rep, c->json);
        /* scripts must tell a judge fault from a verdict the source earned */
        int status = runner_report_verdict(rep) == RUNNER_IE ? EXIT_IE : 0;
        runner_report_free(rep);
        return status;
    }
    if (failure == RUNNER_FAILURE_INFRA)
        return ctl_fail(c, "busy", "%s (infrastructure failure: try again)", err);
    return ctl_fail(c, "bad_input", "%s", err);
}

int cmd_judge(int argc, char **argv)
{
    static const struct option opts[] = {
        LOCAL_OPTS, {"problem", required_argument, NULL, 'p'}, {"lang", required_argument, NULL, 'l'},
        {NULL, 0, NULL, 0},
    };
    struct common c = {0};
    ctl_begin(&c, "judge", argc, argv);
    struct local_opts o = default_opts();
    const char *problem = NULL, *lang = NULL;
    int opt;
    while ((opt = ctl_getopt(&c, argc, argv, "p:l:h", opts)) != -1) {
        int k = common_option(&c, opt, &o);
        if (k < 0)
            return c.status;
        if (k)
            continue;
        switch (opt) {
        case 'p': problem = optarg; break;
        case 'l': lang = optarg; break;
        case 'h': fputs(judge_usage, stdout); return 0;
        default: return c.status;
        }
    }
    if (!problem || !lang)
        return ctl_usage(&c, "--problem and --lang are required");
    if (optind >= argc)
        return ctl_usage(&c, "expected a SOURCE (or several files)");
    size_t len;
    bool missing;
    char why[1024];
    char *source = ctl_read_submission(argv + optind, argc - optind, 64u << 20, &len, &missing, why, sizeof why);
    if (!source)
        return ctl_fail(&c, missing ? "not_found" : "bad_input", "%s", why);
    struct runner *r = open_runner(&c, &o, false);
    char dir[4400], tmp[4300] = "", work[] = "/tmp/judgectl-judge-XXXXXX", pkg[64] = "", *notes = NULL;
    struct stat st;
    int rc = r ? 0 : c.status;
    if (rc == 0) {
        int n = 0;
        if (stat(problem, &st) == 0 && S_ISDIR(st.st_mode) && (n = ctl_convert_copy(problem, r, work, pkg, sizeof pkg, &notes)))
            rc = ctl_fail(&c, "bad_input", "%s: %d error%s converting the package:\n%s", problem, n, n == 1 ? "" : "s",
                          notes ? notes : "");
        else if (stat(problem, &st) == 0 && S_ISDIR(st.st_mode))
            snprintf(dir, sizeof dir, "%s", pkg[0] ? pkg : problem);
        else if (!queue_valid_name(problem))
            rc = ctl_fail(&c, "not_found", "no problem directory '%s'", problem);
        else
            rc = problem_by_name(&c, &o, problem, dir, sizeof dir, tmp, sizeof tmp);
    }
    if (rc == 0)
        rc = run_judge(&c, r, dir, lang, source, len);
    if (tmp[0])
        store_remove_tree(tmp);
    if (pkg[0])
        store_remove_tree(work);
    free(notes);
    runner_close(r);
    teardown(&c);
    free(source);
    return rc;
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

/* a communication test's processes, one line each under it */
static void print_processes(json_t *procs)
{
    size_t k;
    json_t *p;
    json_array_foreach(procs, k, p) {
        char exit_s[16];
        int sig = (int)json_integer_value(json_object_get(p, "signal"));
        if (sig)
            snprintf(exit_s, sizeof exit_s, "sig%d", sig);
        else
            snprintf(exit_s, sizeof exit_s, "%d", (int)json_integer_value(json_object_get(p, "exit_code")));
        printf("     - %-10.10s %-8s %7.3fs %7.3fs %8.1fM %5s\n", str(p, "name"), str(p, "verdict"),
               num(p, "cpu_time"), num(p, "wall_time"), num(p, "memory") / 1048576.0, exit_s);
    }
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
        print_processes(json_object_get(t, "processes"));
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
    "usage: judgectl languages [--check] [--json] [--languages DIR] [--workdir DIR] [--slot N]\n"
    "Lists the languages (the catalog alone: no sandbox, no root needed); --check\n"
    "compiles and runs a hello-world in each through the sandbox and reports its\n"
    "version and status (exit 1 if any fails). --json prints each language as\n"
    "GET /v1/languages shows it ({\"id\", \"name\", \"source\", \"extensions\",\n"
    "\"default_for\", \"time_factor\", ...}, without the pool and the hosts' versions);\n"
    "with --check also \"ok\", \"version\", \"status\", \"compile_time\", \"run_time\".\n";

/* one language as GET /v1/languages shows it (the same JSON judged
 * publishes), its id first */
static json_t *describe_language(struct runner *r, const char *id)
{
    json_t *o = json_pack("{s:s}", "id", id);
    char *text = runner_language_json(r, id);
    json_t *published = text ? json_loads(text, 0, NULL) : NULL;
    json_object_update(o, published);
    json_decref(published);
    free(text);
    return o;
}

/* one language's self-test as JSON (or its error) */
static json_t *check_language(struct runner *r, const char *id)
{
    struct runner_selftest st;
    char err[1024];
    json_t *o = describe_language(r, id);
    if (runner_language_selftest(r, id, &st, err, sizeof err) < 0) {
        json_object_set_new(o, "ok", json_false());
        json_object_set_new(o, "status", json_string(err));
        return o;
    }
    json_object_set_new(o, "ok", json_boolean(st.ok));
    json_object_set_new(o, "version", json_string(st.version));
    json_object_set_new(o, "status", json_string(st.status));
    json_object_set_new(o, "compile_time", json_real(st.compile_time));
    json_object_set_new(o, "run_time", json_real(st.run_time));
    return o;
}

static void print_language(json_t *o, bool check)
{
    const char *id = json_string_value(json_object_get(o, "id"));
    if (!check)
        printf("%-12s %s\n", id, json_string_value(json_object_get(o, "name")));
    else if (!json_object_get(o, "version"))
        printf("%-12s %-40s %s\n", id, "-", json_string_value(json_object_get(o, "status")));
    else
        printf("%-12s %-40.40s %s (compile %.2fs, run %.2fs)\n", id,
               json_string_value(json_object_get(o, "version")), json_string_value(json_object_get(o, "status")),
               json_number_value(json_object_get(o, "compile_time")),
               json_number_value(json_object_get(o, "run_time")));
}

int cmd_languages(int argc, char **argv)
{
    static const struct option opts[] = {LOCAL_OPTS, {"check", no_argument, NULL, OPT_CHECK}, {NULL, 0, NULL, 0}};
    struct common c = {0};
    ctl_begin(&c, "languages", argc, argv);
    struct local_opts o = default_opts();
    bool check = false;
    int opt;
    while ((opt = ctl_getopt(&c, argc, argv, "h", opts)) != -1) {
        int k = common_option(&c, opt, &o);
        if (k < 0)
            return c.status;
        if (k)
            continue;
        if (opt == OPT_CHECK)
            check = true;
        else if (opt == 'h')
            return fputs(languages_usage, stdout), 0;
        else
            return c.status;
    }
    if (optind != argc)
        return ctl_usage(&c, "unexpected argument '%s'", argv[optind]);
    /* the list is the catalog alone: no sandbox, no root */
    struct runner *r = check ? open_runner(&c, &o, false) : open_catalog(&c, &o);
    if (!r)
        return c.status;
    bool ok = true;
    json_t *list = json_array();
    if (!c.json)
        printf(check ? "%-12s %-40s status\n" : "%-12s %s\n", "id", check ? "version" : "name");
    for (size_t i = 0; i < runner_language_count(r); i++) {
        const char *id = runner_language_id(r, i);
        json_t *l = check ? check_language(r, id) : describe_language(r, id);
        ok &= !check || json_is_true(json_object_get(l, "ok"));
        if (!c.json)
            print_language(l, check);
        fflush(stdout);
        json_array_append_new(list, l);
    }
    if (c.json)
        print_json(list);
    json_decref(list);
    runner_close(r);
    return ok ? 0 : EXIT_NO;
}

/* ---- problem check ----------------------------------------------------------- */

static const char problem_usage[] =
    "usage: judgectl problem check [--json] [--languages DIR] [--workdir DIR] [--slot N]\n"
    "                              [--limit KEY=VALUE] DIR\n"
    "       judgectl problem push|list|show|versions|rm ...  (the problem store: --help there)\n"
    "       judgectl problem verify DIR|NAME ...  (judges its own submissions: --help there)\n"
    "Validates a problem package: every error names file, line and key. A custom\n"
    "checker is compiled through the sandbox (when the sandbox is available).\n"
    "--limit KEY=VALUE (repeatable) raises or lowers a package limit: yaml_size,\n"
    "package_files, package_size, tests, compile_time_max, compile_memory_max,\n"
    "compile_output_max, helper_cpu_time, helper_wall_time (runner/README.md).\n"
    "Warnings (\"FILE:LINE: KEY: warning: ...\": a memory limit too small for any\n"
    "program to start, subtask points that do not add up to 100, a test in no\n"
    "subtask, a time limit above 60 without a unit) are printed too but do not\n"
    "fail the check. --json prints {\"ok\", \"package\", \"summary\", \"errors\",\n"
    "\"warnings\"}.\n"
    "Exit status 0 without errors, 1 with errors, 66 no such DIR, 64 bad usage.\n";

/* The store's subcommands (cmd_store.c) share the name "problem": the
 * first word that is not an option (or an option's value) decides. */
static const char *first_word(int argc, char **argv)
{
    static const char *with_value[] = {"--config", "--languages", "--workdir", "--work-dir", "--slot", "--name",
                                       "--version", "--limit", "--to", "-c", "-n", "-v"};
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-')
            return argv[i];
        for (size_t j = 0; j < sizeof with_value / sizeof *with_value; j++)
            if (!strcmp(argv[i], with_value[j]))
                i++;
    }
    return NULL;
}

static bool is_store_command(int argc, char **argv)
{
    const char *w = first_word(argc, argv);
    return w && strcmp(w, "check") != 0;
}

/* verify judges (cmd_verify.c) with the local commands' options */
static bool is_verify_command(int argc, char **argv)
{
    const char *w = first_word(argc, argv);
    return w && !strcmp(w, "verify");
}

int cmd_problem(int argc, char **argv)
{
    if (is_verify_command(argc, argv))
        return cmd_verify(argc, argv);
    if (is_store_command(argc, argv))
        return cmd_store(argc, argv);
    static const struct option opts[] = {LOCAL_OPTS, {NULL, 0, NULL, 0}};
    struct common c = {0};
    ctl_begin(&c, "problem", argc, argv);
    struct local_opts o = default_opts();
    int opt;
    while ((opt = ctl_getopt(&c, argc, argv, "h", opts)) != -1) {
        int k = common_option(&c, opt, &o);
        if (k < 0)
            return c.status;
        if (k)
            continue;
        if (opt == 'h')
            return fputs(problem_usage, stdout), 0;
        return c.status;
    }
    if (optind + 2 != argc || strcmp(argv[optind], "check"))
        return ctl_usage(&c, "expected 'check DIR'");
    const char *dir = argv[optind + 1];
    struct stat st;
    if (stat(dir, &st) || !S_ISDIR(st.st_mode))
        return ctl_fail(&c, "not_found", "no problem directory '%s'", dir);
    char work[] = "/tmp/judgectl-check-XXXXXX", pkg[64], *notes = NULL;
    /* the runner also runs a CMS task's generator while converting */
    struct runner *r = open_runner(&c, &o, true);
    if (!r)
        fprintf(stderr, "judgectl problem: no sandbox or languages: a custom checker is not "
                        "compiled\n");
    int converted = ctl_convert_copy(dir, r, work, pkg, sizeof pkg, &notes);
    char *errors = NULL, *summary = NULL;
    int count = converted;
    if (converted == 0) {
        const char *checked = pkg[0] ? pkg : dir;
        count = r ? runner_problem_check(r, checked, &errors, &summary)
                  : runner_problem_check_limits(&o.limits, checked, &errors, &summary);
        strip_prefix(errors, pkg);
        strip_prefix(summary, pkg);
    }
    runner_close(r);
    if (notes) {   /* the conversion's errors or warnings come first */
        char *all = NULL;
        if (asprintf(&all, "%s%s", notes, errors ? errors : "") >= 0) {
            free(errors);
            errors = all;
        }
        free(notes);
    }
    if (pkg[0])
        store_remove_tree(work);
    if (c.json) {
        json_t *errs, *warnings;
        check_lines_json(errors, &errs, &warnings);
        json_t *j = json_pack("{s:b, s:s, s:s?, s:o, s:o}", "ok", count == 0, "package", dir,
                              "summary", count == 0 ? summary : NULL, "errors", errs, "warnings",
                              warnings);
        print_json(j);
        json_decref(j);
    } else if (count > 0) {
        fprintf(stdout, "%s%d error%s in %s\n", errors, count, count == 1 ? "" : "s", dir);
    } else {
        printf("%sOK %s\n", errors ? errors : "", summary ? summary : dir);  /* warnings first */
    }
    free(errors);
    free(summary);
    return count > 0 ? EXIT_NO : 0;
}
