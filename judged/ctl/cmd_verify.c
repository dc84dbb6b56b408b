/*
 * cmd_verify.c - judgectl problem verify DIR|NAME: judges every submission
 * a package ships (store_expected_results: verdict folders,
 * submissions.yaml, @EXPECTED_RESULTS@) on this machine, the way `judge
 * --problem` does, and prints what each was expected to earn beside what
 * it got. Exit 1 on a mismatch. `problem push --verify` (cmd_store.c) runs
 * the same check before it pushes.
 *
 * Where the package leaves the time limit to the judge (no .timelimit,
 * domjudge-problem.ini timelimit or limits.time_limit), it is derived as
 * Kattis does (runner/README.md, "Time limits derived"): the submissions
 * that must not exceed it (accepted, wrong_answer, run_time_error) are
 * judged with a generous limit, the limit is computed from their slowest
 * test, and the rest (time_limit_exceeded, ...) are judged with the limit
 * times the package's margin, which they must still exceed.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "ctl.h"
#include "runner.h"
#include "store.h"

/* The limit the lower-bound submissions run under while their times are
 * measured: generous, as problemtools' is; CPU seconds per test. */
#define VERIFY_GENEROUS_LIMIT 10.0

static const char verify_usage[] =
    "usage: judgectl problem verify DIR|NAME [--version V] [--json] [--languages DIR]\n"
    "                               [--workdir DIR] [--slot N] [--config FILE]\n"
    "Judges every submission the package ships, on this machine (no queue):\n"
    "submissions/<folder>/ (accepted, wrong_answer, time_limit_exceeded,\n"
    "run_time_error, rejected, brute_force), submissions/submissions.yaml\n"
    "(permitted/required verdicts per glob) and DOMjudge's @EXPECTED_RESULTS@ in a\n"
    "source. Prints file, expected, got, the verdicts of its tests, its slowest\n"
    "test (CPU s) and score. DIR is converted first as push converts it; NAME is\n"
    "the store's current version (or --version V; needs the Redis of --config).\n"
    "A DIR that leaves the time limit to the judge gets it derived by Kattis'\n"
    "rule from its accepted submissions (runner/README.md), shown with the table;\n"
    "'problem push --verify DIR' verifies, records that limit and pushes.\n"
    "--json prints {\"ok\", \"package\", \"time_limit\", \"derived\", \"submissions\":\n"
    "[{\"path\", \"language\", \"expected\", \"verdict\", \"tests\", \"max_time\", \"score\",\n"
    "\"judged\", \"ok\", \"why\"}], \"mismatches\", \"not_judged\", \"warnings\"}.\n"
    "Exit status: 0 every submission earned what it should, 1 a mismatch, 65 the\n"
    "package or its expectations are bad, 66 no such DIR or NAME, 69 no sandbox\n"
    "or Redis, 64 bad usage.\n";

/* ------------------------------------------------------------- languages */

/* The language of a file by its extension: the default for it (a language
 * file's `default_for`, or the only one having it), C++'s other endings
 * read as .cpp. */
static const char *language_of(struct runner *r, const char *path)
{
    const char *want = store_source_ending(path);
    return want ? runner_language_for_file(r, want) : NULL;
}

/* ----------------------------------------------------------------- judging */

/* Judges one program of the package (a file, or a directory as one
 * submission of several files); o->judged false with a note when it
 * cannot be (an unknown language, a directory with a link). -1 on an
 * infrastructure failure (reported). */
static int judge_one(struct common *c, struct runner *r, const char *pkg, const struct store_expected *x,
                     const char **lang, struct store_verify_outcome *o)
{
    char path[4400], err[1024], ending[16] = "", why[300];
    size_t len;
    char *source = NULL;
    /* a directory is one submission of several files (its files' ending
     * picks the language, as a file's does) */
    if (x->program_dir && store_program_files(pkg, x->path, 64u << 20, &source, &len, ending, why, sizeof why) < 0) {
        snprintf(o->note, sizeof o->note, "a program of several files: %.400s", why);
        return 0;
    }
    *lang = x->language[0] ? x->language : language_of(r, x->program_dir ? ending : x->path);
    if (!*lang || !runner_language_exists(r, *lang)) {
        snprintf(o->note, sizeof o->note, "no language here for '%.200s' (judgectl languages lists them)",
                 *lang ? *lang : ending[0] ? ending : strrchr(x->path, '.') ? strrchr(x->path, '.') : x->path);
        *lang = NULL;
        free(source);
        return 0;
    }
    snprintf(path, sizeof path, "%s/%s", pkg, x->path);
    if (!source && !(source = common_read_file(path, 64u << 20, &len, NULL))) {
        snprintf(o->note, sizeof o->note, "cannot read: %s", strerror(errno));
        return 0;
    }
    struct runner_request req = {.problem_dir = pkg, .language = *lang, .source = source, .source_len = len};
    struct runner_report *rep;
    enum runner_failure failure;
    int rc = runner_judge(r, &req, &rep, &failure, err, sizeof err);
    free(source);
    if (rc) {
        ctl_fail(c, failure == RUNNER_FAILURE_INFRA ? "busy" : "bad_input", "%s: %s", x->path, err);
        return -1;
    }
    char *json = runner_report_json(rep);
    runner_report_free(rep);
    if (json)
        store_verify_read_report(json, o);
    free(json);
    return 0;
}

/* Judges those of xs whose time_use is in uses (a mask of 1 << STORE_TIME_*);
 * rows[i] set for each; the slowest test of those judged into *slowest.
 * 0, or a failure status (reported). */
static int judge_set(struct common *c, struct runner *r, const char *pkg, const struct store_expected *xs,
                     size_t n, unsigned uses, json_t **rows, double *slowest)
{
    for (size_t i = 0; i < n; i++) {
        if (!(uses & (1u << xs[i].time_use)))
            continue;
        struct store_verify_outcome o = {0};
        const char *lang = NULL;
        if (judge_one(c, r, pkg, &xs[i], &lang, &o))
            return c->status;
        if (o.judged && o.seen.tests != STORE_V_CE && o.max_time > *slowest)
            *slowest = o.max_time;
        rows[i] = store_verify_row(&xs[i], lang, &o);
        store_verify_outcome_free(&o);
    }
    return 0;
}

#define USE(u) (1u << (u))

/* The time limit when the package leaves it to the judge: measure, derive,
 * then judge the rest at the margin. derived gets {limit, tle_limit,
 * slowest, rule}; NULL when nothing could be derived. */
static int judge_deriving(struct common *c, struct runner *r, const char *pkg, const struct store_time_rule *rule,
                          const struct store_expected *xs, size_t n, json_t **rows, json_t **derived, double *limit)
{
    char err[1024];
    double slowest = 0, tl = 0, tle = 0;
    if (store_set_time_limit(pkg, VERIFY_GENEROUS_LIMIT, err, sizeof err))
        return ctl_fail(c, "internal", "%s", err);
    int rc = judge_set(c, r, pkg, xs, n, USE(STORE_TIME_LOWER), rows, &slowest);
    bool any = false;
    for (size_t i = 0; i < n; i++)
        any = any || (xs[i].time_use == STORE_TIME_LOWER && json_is_true(json_object_get(rows[i], "judged")));
    if (rc == 0 && any) {
        store_time_derive(rule, slowest, &tl, &tle);
        *derived = json_pack("{s:f, s:f, s:f, s:s, s:f, s:f}", "time_limit", tl, "tle_limit", tle, "slowest", slowest,
                             "rule", rule->modern ? "2023-07" : "legacy", "ac_factor", rule->ac_factor,
                             "tle_factor", rule->tle_factor);
        *limit = tl;
    }
    /* the rest run at the margin; with nothing measured, at the assumed limit */
    if (rc == 0 && store_set_time_limit(pkg, any ? tle : *limit, err, sizeof err))
        rc = ctl_fail(c, "internal", "%s", err);
    if (rc == 0)
        rc = judge_set(c, r, pkg, xs, n, USE(STORE_TIME_NONE) | USE(STORE_TIME_UPPER), rows, &slowest);
    if (rc == 0 && store_set_time_limit(pkg, *limit, err, sizeof err))
        rc = ctl_fail(c, "internal", "%s", err);
    return rc;
}

/* The converted problem.yaml's time_limit (seconds). */
static double converted_limit(const char *pkg)
{
    char path[4400], line[256];
    double v = 0;
    snprintf(path, sizeof path, "%s/problem.yaml", pkg);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "time_limit:", 11))
            v = strtod(line + 11, NULL);
    if (f)
        fclose(f);
    return v;
}

int verify_package(struct common *c, struct runner *r, const char *pkg, const char *shown, bool derive,
                   json_t **report)
{
    struct store_expected *xs;
    size_t n;
    char *errors = NULL;
    *report = NULL;
    int bad = store_expected_results(pkg, &xs, &n, &errors);
    strip_prefix(errors, pkg);
    if (bad || n == 0) {
        int rc = bad ? ctl_fail(c, "bad_input", "%s: %d error%s in its submissions' expectations:\n%s", shown, bad,
                                bad == 1 ? "" : "s", errors)
                     : ctl_fail(c, "bad_input", "%s: no submissions to verify (submissions/<verdict>/...)", shown);
        free(errors);
        store_expected_free(xs, n);
        return rc;
    }
    free(errors);
    struct store_time_rule rule;
    char *rule_errors = NULL;
    store_time_rule(pkg, &rule, &rule_errors);   /* a bad multiplier was refused by the conversion already */
    free(rule_errors);
    json_t **rows = calloc(n, sizeof *rows), *derived = NULL;
    double limit = converted_limit(pkg), none = 0;
    int rc = derive && rule.time_limit <= 0 && !rule.elsewhere
                 ? judge_deriving(c, r, pkg, &rule, xs, n, rows, &derived, &limit)
                 : judge_set(c, r, pkg, xs, n, USE(STORE_TIME_NONE) | USE(STORE_TIME_LOWER) | USE(STORE_TIME_UPPER),
                             rows, &none);
    if (rc == 0) {
        json_t *arr = json_array();
        int mismatches = 0, not_judged = 0;
        for (size_t i = 0; i < n; i++) {
            bool judged = json_is_true(json_object_get(rows[i], "judged"));
            not_judged += !judged;
            mismatches += judged && !json_is_true(json_object_get(rows[i], "ok"));
            json_array_append_new(arr, rows[i]);
        }
        *report = json_pack("{s:b, s:s, s:f, s:o, s:o, s:i, s:i}", "ok", mismatches == 0, "package", shown,
                            "time_limit", limit, "derived", derived ? derived : json_null(), "submissions", arr,
                            "mismatches", mismatches, "not_judged", not_judged);
    } else {
        for (size_t i = 0; i < n; i++)
            json_decref(rows[i]);
        json_decref(derived);
    }
    free(rows);
    store_expected_free(xs, n);
    return rc;
}

void verify_print(const json_t *report, FILE *out)
{
    json_t *s, *subs = json_object_get(report, "submissions");
    size_t i;
    fprintf(out, "%-44s %-22s %-6s %-14s %8s %6s\n", "file", "expected", "got", "tests", "slowest", "score");
    json_array_foreach(subs, i, s) {
        const char *why = json_string_value(json_object_get(s, "why"));
        bool judged = json_is_true(json_object_get(s, "judged")), ok = json_is_true(json_object_get(s, "ok"));
        fprintf(out, "%-44s %-22s %-6s %-14s %7.3fs %6g  %s%s%s\n", json_string_value(json_object_get(s, "path")),
                json_string_value(json_object_get(s, "expected")),
                judged ? json_string_value(json_object_get(s, "verdict")) : "-",
                judged ? json_string_value(json_object_get(s, "tests")) : "-",
                json_number_value(json_object_get(s, "max_time")), json_number_value(json_object_get(s, "score")),
                !judged ? "NOT JUDGED" : ok ? "ok" : "MISMATCH", why ? ": " : "", why ? why : "");
    }
    json_t *d = json_object_get(report, "derived");
    if (json_is_object(d))
        fprintf(out, "time limit: %g s derived (%s rule: slowest test of the submissions bounding it from below "
                     "%.3f s x %g; TLE submissions judged at %g s, x %g)\n",
                json_number_value(json_object_get(d, "time_limit")), json_string_value(json_object_get(d, "rule")),
                json_number_value(json_object_get(d, "slowest")), json_number_value(json_object_get(d, "ac_factor")),
                json_number_value(json_object_get(d, "tle_limit")), json_number_value(json_object_get(d, "tle_factor")));
    else
        fprintf(out, "time limit: %g s (the package's)\n", json_number_value(json_object_get(report, "time_limit")));
    long m = (long)json_integer_value(json_object_get(report, "mismatches"));
    long nj = (long)json_integer_value(json_object_get(report, "not_judged"));
    fprintf(out, "%zu submission%s: %zu as expected, %ld mismatch%s, %ld not judged\n", json_array_size(subs),
            json_array_size(subs) == 1 ? "" : "s", json_array_size(subs) - (size_t)m - (size_t)nj, m,
            m == 1 ? "" : "es", nj);
}

/* The conversion's warning of an assumed time limit, once one is derived:
 * push and verify say what was derived instead. */
void verify_note_derived(char **notes, const json_t *derived)
{
    char *kept = NULL, line[512];
    size_t len = 0;
    FILE *f = open_memstream(&kept, &len);
    for (const char *l = *notes, *next; f && l && *l; l = next) {
        next = strchr(l, '\n');
        next = next ? next + 1 : l + strlen(l);
        if (!strstr(l, ": time_limit: warning:") || strstr(l, ": time_limit: warning:") > next)
            fwrite(l, 1, (size_t)(next - l), f);
    }
    snprintf(line, sizeof line, "problem.yaml:0: time_limit: warning: the package gives no time limit; derived %g s "
             "from its submissions (%s rule, slowest %.3f s)\n", json_number_value(json_object_get(derived, "time_limit")),
             json_string_value(json_object_get(derived, "rule")), json_number_value(json_object_get(derived, "slowest")));
    if (f) {
        fputs(line, f);
        fclose(f);
        free(*notes);
        *notes = kept;
    }
}

/* ------------------------------------------------------------- the command */

struct verify_opts {
    char languages[4200];
    bool languages_given;       /* else a stored NAME's are the configuration's */
    const char *work_dir, *version;
    int slot;
};

static struct runner *open_local_runner(struct common *c, const struct verify_opts *o)
{
    struct runner_config cfg = {.languages_dir = o->languages, .work_dir = o->work_dir, .first_slot = o->slot,
                                .slots = 1};
    struct runner *r;
    char err[4096];
    if (runner_open(&r, &cfg, err, sizeof err) == 0)
        return r;
    ctl_fail(c, "unavailable", "%s", err);
    return NULL;
}

/* NAME's version (current, or o->version) fetched into tmp/NAME. */
static int fetch_stored(struct common *c, const struct verify_opts *o, const char *name, char *tmp, size_t tmplen,
                        char *dir, size_t dirlen)
{
    int rc = setup(c);
    if (rc)
        return rc;
    struct store_problem_info p;
    bool found = false, listed = false;
    char err[1024], version[65] = "";
    if ((rc = store_info(&c->conn, name, &p, &found, err, sizeof err)))
        return ctl_queue_fail(c, rc, err);
    if (!found)
        return ctl_fail(c, "not_found", "no directory '%s' and no problem '%s' in the store", name, name);
    snprintf(version, sizeof version, "%s", o->version ? o->version : p.current);
    for (size_t i = 0; i < p.nversions; i++)
        listed = listed || !strcmp(p.versions[i].version, version);
    store_problem_info_free(&p);
    if (!listed)
        return ctl_fail(c, "not_found", "problem '%s' has no version '%s' (judgectl problem versions %s)", name,
                        version, name);
    char t[4200], staging[4300];
    snprintf(t, sizeof t, "%s/verify-XXXXXX", o->work_dir);
    mkdir(o->work_dir, 0755);
    if (!mkdtemp(t))
        return ctl_fail(c, "internal", "%s: %s", t, strerror(errno));
    snprintf(tmp, tmplen, "%s", t);
    snprintf(staging, sizeof staging, "%s/fetch", t);
    snprintf(dir, dirlen, "%s/%s", t, name);
    if ((rc = store_fetch(&c->conn, version, staging, dir, NULL, err, sizeof err)))
        return ctl_queue_fail(c, rc, err);
    return 0;
}

static int parse_verify(struct common *c, int argc, char **argv, struct verify_opts *o, const char **target)
{
    enum { OPT_LANGUAGES = 1000, OPT_WORK_DIR, OPT_SLOT };
    static const struct option opts[] = {
        COMMON_OPTS, {"languages", required_argument, NULL, OPT_LANGUAGES},
        {"workdir", required_argument, NULL, OPT_WORK_DIR}, {"slot", required_argument, NULL, OPT_SLOT},
        {"version", required_argument, NULL, 'v'}, {NULL, 0, NULL, 0},
    };
    char *end;
    for (int opt; (opt = ctl_getopt(c, argc, argv, "hv:", opts)) != -1;) {
        switch (opt) {
        case OPT_LANGUAGES:
            snprintf(o->languages, sizeof o->languages, "%s", optarg);
            o->languages_given = true;
            break;
        case OPT_WORK_DIR: o->work_dir = optarg; break;
        case OPT_SLOT:
            o->slot = (int)strtol(optarg, &end, 10);
            if (!*optarg || *end || o->slot < 0)
                return ctl_usage(c, "--slot: '%s' is not a sandbox slot number", optarg);
            break;
        case 'v': o->version = optarg; break;
        case 'h': fputs(verify_usage, stdout); return 0;
        default: return c->status;
        }
    }
    if (optind + 2 != argc || strcmp(argv[optind], "verify"))
        return ctl_usage(c, "expected 'verify DIR|NAME'");
    *target = argv[optind + 1];
    return -1;
}

int cmd_verify(int argc, char **argv)
{
    struct common c = {0};
    ctl_begin(&c, "problem", argc, argv);
    struct verify_opts o = {.work_dir = "/tmp/judgectl", .slot = 500 + 2 * (int)(getpid() % 50)};
    jd_default_languages(o.languages, sizeof o.languages);
    const char *target = NULL;
    int rc = parse_verify(&c, argc, argv, &o, &target);
    if (rc >= 0)
        return rc;
    rc = 0;
    struct stat st;
    bool is_dir = stat(target, &st) == 0 && S_ISDIR(st.st_mode);
    if (!is_dir && !queue_valid_name(target))
        return ctl_fail(&c, "not_found", "no problem directory '%s'", target);
    if (is_dir && o.version)
        return ctl_usage(&c, "--version is for a stored NAME, not a directory");
    char work[] = "/tmp/judgectl-verify-XXXXXX", pkg[64] = "", tmp[4300] = "", dir[4400], *notes = NULL;
    struct runner *r = NULL;
    if (is_dir) {
        /* opened first: it also runs a CMS task's generator while converting */
        r = open_local_runner(&c, &o);
        if (!r)
            return c.status;
        int n = ctl_convert_copy(target, r, work, pkg, sizeof pkg, &notes);
        if (n)
            rc = ctl_fail(&c, "bad_input", "%s: %d error%s converting the package:\n%s", target, n, n == 1 ? "" : "s",
                          notes ? notes : "");
        snprintf(dir, sizeof dir, "%s", pkg[0] ? pkg : target);
    } else {
        rc = fetch_stored(&c, &o, target, tmp, sizeof tmp, dir, sizeof dir);
        if (rc == 0 && !o.languages_given && c.cfg.languages)
            snprintf(o.languages, sizeof o.languages, "%s", c.cfg.languages);
    }
    if (!r && rc == 0)
        r = open_local_runner(&c, &o);
    json_t *report = NULL;
    if (r && rc == 0) {   /* a limit is derived only where this command converted the package */
        rc = verify_package(&c, r, dir, target, pkg[0] != 0, &report);
    } else if (!rc) {
        rc = c.status;
    }
    if (report) {
        if (json_is_object(json_object_get(report, "derived")))
            verify_note_derived(&notes, json_object_get(report, "derived"));
        json_t *errs, *warnings;   /* the conversion's warnings (a converted package has no errors) */
        check_lines_json(notes, &errs, &warnings);
        json_decref(errs);
        json_object_set_new(report, "warnings", warnings);
        if (c.json)
            print_json(report);
        else
            verify_print(report, stdout);
        if (notes && !c.json) {   /* after the table they explain */
            fflush(stdout);
            fputs(notes, stderr);
        }
        /* a submission that could not be judged is said by the status too */
        rc = !json_is_true(json_object_get(report, "ok"))                   ? EXIT_NO
             : json_integer_value(json_object_get(report, "not_judged")) > 0 ? EXIT_PARTLY
                                                                             : 0;
        json_decref(report);
    }
    runner_close(r);
    if (pkg[0])
        store_remove_tree(work);
    if (tmp[0])
        store_remove_tree(tmp);
    free(notes);
    teardown(&c);
    return rc;
}
