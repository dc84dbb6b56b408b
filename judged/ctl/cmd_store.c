/* cmd_store.c - judgectl problem push | list | show | versions | rm: the
 * problem store (store/store.h). A push validates the package exactly as
 * `judgectl problem check` does (runner_problem_check, which also compiles a
 * custom checker or interactor through the sandbox) and refuses it with
 * every error, before anything is sent to Redis. */
#include <errno.h>
#include <libgen.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "ctl.h"
#include "runner.h"
#include "store.h"

static const char store_usage[] =
    "usage: judgectl problem push DIR|ARCHIVE [--name NAME] [--verify] [--config FILE] [--json]\n"
    "                             [--workdir DIR] [--slot N]\n"
    "       judgectl problem list [--config FILE] [--json]\n"
    "       judgectl problem show NAME [--config FILE] [--json]\n"
    "       judgectl problem show NAME --converted [--version V] [--to DIR] [--config FILE]\n"
    "       judgectl problem versions NAME [--config FILE] [--json]\n"
    "       judgectl problem rm NAME --version V [--config FILE] [--json]\n"
    "       judgectl problem check DIR   (local, no Redis: see judgectl problem check --help)\n\n"
    "The problem store keeps versioned packages in Redis, every file by its sha256;\n"
    "a version is the sha256 of the package's manifest. push validates DIR as\n"
    "'problem check' does (every error as FILE:LINE: KEY: message; a custom checker\n"
    "or interactor must compile), stores the files Redis lacks and makes the\n"
    "version current (NAME defaults to DIR's base name). Pushing the same content\n"
    "again changes nothing. Submissions record the version current at admission.\n"
    "An archive (tar, tar.gz, zip) is unpacked first; an ICPC/Kattis package\n"
    "(problem.yaml, data/sample, data/secret, output_validators/), a Polygon\n"
    "package (problem.xml) and a CMS task (task.yaml, problem.json) are converted;\n"
    "a CMS task holding gen/GEN but none of its inputs has them made here by its\n"
    "generator, validator and official solution, each in a sandbox box (as root).\n"
    "push --verify first judges the package's own submissions as 'problem verify'\n"
    "does (its table is printed; nothing is pushed on a mismatch) and records the\n"
    "time limit it derives where the package leaves it to the judge.\n"
    "show --converted prints the stored (converted) problem.yaml of the current\n"
    "version (or V); --to DIR writes all the version's files into DIR (new), which\n"
    "pushes back as the same version.\n"
    "rm removes a version that is not current; files no other version lists go.\n"
    "Exit status: 65 a package refused (with --json {\"ok\": false, \"errors\": [...],\n"
    "\"error\": {...}}) or a current version to rm, 66 no such problem, version or\n"
    "file, 69 Redis unavailable, 64 bad usage ('judgectl --help' has the table).\n";

struct store_opts {
    struct common c;
    const char *name, *version, *work_dir, *to;
    int slot;
    bool verify, converted;
    json_t *verified;        /* push --verify's report, shown with the push */
};

/* Parses the options every store command takes; returns an exit status to
 * return now, or -1 to go on (positional arguments from optind). */
static int parse(int argc, char **argv, struct store_opts *o)
{
    enum { OPT_WORK_DIR = 1000, OPT_SLOT, OPT_VERIFY, OPT_CONVERTED, OPT_TO };
    static const struct option opts[] = {
        COMMON_OPTS,
        {"name", required_argument, NULL, 'n'},
        {"version", required_argument, NULL, 'v'},
        {"workdir", required_argument, NULL, OPT_WORK_DIR},
        {"work-dir", required_argument, NULL, OPT_WORK_DIR},   /* the old spelling */
        {"slot", required_argument, NULL, OPT_SLOT},
        {"verify", no_argument, NULL, OPT_VERIFY},
        {"converted", no_argument, NULL, OPT_CONVERTED},
        {"to", required_argument, NULL, OPT_TO},
        {NULL, 0, NULL, 0},
    };
    int c;
    char *end;
    while ((c = ctl_getopt(&o->c, argc, argv, "hn:v:", opts)) != -1) {
        switch (c) {
        case 'n': o->name = optarg; break;
        case 'v': o->version = optarg; break;
        case OPT_WORK_DIR: o->work_dir = optarg; break;
        case OPT_SLOT:
            o->slot = (int)strtol(optarg, &end, 10);
            if (!*optarg || *end || o->slot < 0)
                return ctl_usage(&o->c, "--slot: '%s' is not a sandbox slot number", optarg);
            break;
        case OPT_VERIFY: o->verify = true; break;
        case OPT_CONVERTED: o->converted = true; break;
        case OPT_TO: o->to = optarg; break;
        case 'h': fputs(store_usage, stdout); return 0;
        default: return o->c.status;
        }
    }
    return -1;
}

/* A store failure: Redis unreachable, a missing problem or version, a
 * refusal (the current version, the quota), else internal. */
static int store_fail(struct store_opts *o, int rc, const char *err)
{
    if (rc == STORE_IO)
        return ctl_fail(&o->c, "unavailable", "%s (Redis unreachable; nothing was changed unless it said so)", err);
    if (strstr(err, "has no version") || strstr(err, "no such") || strstr(err, "not found") || strstr(err, "unknown"))
        return ctl_fail(&o->c, "not_found", "%s", err);
    if (strstr(err, "ERR store:"))
        return ctl_fail(&o->c, "bad_input", "%s", err);
    return ctl_fail(&o->c, "internal", "%s", err);
}

/* ------------------------------------------------------------------ push */

/* runner_problem_check with a sandbox (a custom checker must compile). The
 * error lines go to *errors. Returns the number of errors, -1 if no runner. */
static struct runner_config runner_cfg(const struct store_opts *o)
{
    return (struct runner_config){.languages_dir = o->c.cfg.languages,
                               .work_dir = o->work_dir ? o->work_dir : "/tmp/judgectl",
                               .first_slot = o->slot, .slots = 1,
                               .limits = {.yaml_size = (uint64_t)o->c.cfg.package_limits.yaml_size,
                                          .package_files = (uint64_t)o->c.cfg.package_limits.package_files,
                                          .package_size = (uint64_t)o->c.cfg.package_limits.package_size,
                                          .tests = (uint64_t)o->c.cfg.package_limits.tests,
                                          .compile_time_max_ms = (uint64_t)o->c.cfg.package_limits.compile_time_max_ms,
                                          .compile_memory_max = (uint64_t)o->c.cfg.package_limits.compile_memory_max,
                                          .compile_output_max = (uint64_t)o->c.cfg.package_limits.compile_output_max,
                                          .helper_cpu_ms = (uint64_t)o->c.cfg.package_limits.helper_cpu_ms,
                                          .helper_wall_ms = (uint64_t)o->c.cfg.package_limits.helper_wall_ms}};
}

static struct runner *open_runner(struct store_opts *o)
{
    struct runner_config rc = runner_cfg(o);
    struct runner *r;
    char err[4096];
    if (runner_open(&r, &rc, err, sizeof err)) {
        ctl_fail(&o->c, "unavailable", "cannot validate without the sandbox: %s", err);
        return NULL;
    }
    return r;
}

/* ... and *summary_json: what GET /v1/problems shows of the version
 * (runner_problem_summary), recorded with it; NULL when not checked. */
static int validate(struct store_opts *o, const char *dir, char **errors, char **summary, char **summary_json)
{
    *summary_json = NULL;
    struct runner *r = open_runner(o);
    if (!r)
        return -1;
    int n = runner_problem_check(r, dir, errors, summary);
    char err[1024];
    if (n == 0 && runner_problem_summary(r, dir, summary_json, err, sizeof err))
        fprintf(stderr, "judgectl: %s: no summary recorded: %s\n", dir, err);
    runner_close(r);
    return n;
}

/* A refused package: every error; EX_DATAERR. */
static int print_refusal(struct store_opts *o, const char *dir, const char *errors, int n)
{
    o->c.status = EX_DATAERR;
    if (o->c.json) {
        json_t *arr, *warnings;
        check_lines_json(errors, &arr, &warnings);
        char msg[4400];
        snprintf(msg, sizeof msg, "%d error%s in %s: not pushed", n, n == 1 ? "" : "s", dir);
        json_t *j = json_pack("{s:b, s:s, s:o, s:o, s:{s:s, s:s, s:i}}", "ok", 0, "package", dir, "errors", arr,
                              "warnings", warnings, "error", "code", "bad_input", "message", msg, "status",
                              EX_DATAERR);
        print_json(j);
        json_decref(j);
    } else {
        size_t len = errors ? strlen(errors) : 0;
        fprintf(stderr, "%s%s%d error%s in %s: not pushed\n", errors ? errors : "",
                len && errors[len - 1] != '\n' ? "\n" : "", n, n == 1 ? "" : "s", dir);
    }
    return EX_DATAERR;
}

/* The package name an archive or directory suggests: its base name
 * without .tar.gz, .tgz, .tar, .zip and the like. */
static void default_name(const char *arg, char *name, size_t len)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", arg);
    size_t l = strlen(copy);
    while (l > 1 && copy[l - 1] == '/')
        copy[--l] = 0;
    snprintf(name, len, "%s", basename(copy));
    static const char *ext[] = {".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".tar", ".zip"};
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        size_t nl = strlen(name), el = strlen(ext[i]);
        if (nl > el && !strcmp(name + nl - el, ext[i])) {
            name[nl - el] = 0;
            break;
        }
    }
}

static int push_dir(struct store_opts *o, const char *dir, const char *name, const char *shown, const char *notes);

/* push --verify: the package's own submissions judged before anything is
 * sent (a converted copy gets the time limit it derives); a mismatch
 * refuses the push. */
static int push_verify(struct store_opts *o, const char *dir, const char *shown, bool derive, char **notes)
{
    struct runner *r = open_runner(o);
    if (!r)
        return o->c.status;
    json_t *report = NULL;
    int rc = verify_package(&o->c, r, dir, shown, derive, &report);
    runner_close(r);
    if (rc)
        return rc;
    if (!o->c.json)
        verify_print(report, stdout);
    json_t *derived = json_object_get(report, "derived");
    if (json_is_object(derived))
        verify_note_derived(notes, derived);
    if (json_is_true(json_object_get(report, "ok"))) {
        o->verified = report;
        return 0;
    }
    long m = (long)json_integer_value(json_object_get(report, "mismatches"));
    o->c.status = EX_DATAERR;
    if (o->c.json) {
        char msg[4400];
        snprintf(msg, sizeof msg, "%ld submission%s did not earn what %s expects: not pushed", m, m == 1 ? "" : "s",
                 shown);
        json_t *j = json_pack("{s:b, s:s, s:O, s:{s:s, s:s, s:i}}", "ok", 0, "package", shown, "verify", report,
                              "error", "code", "bad_input", "message", msg, "status", EX_DATAERR);
        print_json(j);
        json_decref(j);
    } else {
        fprintf(stderr, "%ld submission%s did not earn what %s expects: not pushed\n", m, m == 1 ? "" : "s", shown);
    }
    json_decref(report);
    return EX_DATAERR;
}

/* push ARG: a directory or an archive, in this project's format or the
 * ICPC/Kattis one (converted in a temporary copy; ARG is never changed). A
 * directory with links inside is pushed from a copy too, each link made
 * what it points to; one to a file out of the directory (the setter's own
 * files: a contest repository's shared header) is copied and named among
 * the warnings (store_copy_tree_resolving). An archive's links out stay
 * refused (store_unpack). */
static int push(struct store_opts *o, const char *arg)
{
    char name[256], err[2048], work[] = "/tmp/judgectl-push-XXXXXX", pkg[64];
    if (o->name)
        snprintf(name, sizeof name, "%s", o->name);
    else
        default_name(arg, name, sizeof name);
    if (!queue_valid_name(name))
        return ctl_fail(&o->c, "bad_input", "bad problem name '%s' (1-128 of A-Za-z0-9_.-, not "
                                            "starting with . or -; use --name)", name);
    struct stat st;
    if (stat(arg, &st))
        return ctl_fail(&o->c, errno == ENOENT ? "not_found" : "bad_input", "%s: %s", arg, strerror(errno));
    const char *dir = arg;
    bool temp = false;
    int rc = 0;
    char *links = NULL;   /* links out of ARG, copied */
    if (S_ISREG(st.st_mode) || store_package_format(arg) || store_has_links(arg)) {
        if (!mkdtemp(work))
            return ctl_fail(&o->c, "internal", "%s: %s", work, strerror(errno));
        temp = true;
        snprintf(pkg, sizeof pkg, "%s/pkg", work);
        dir = pkg;
        rc = S_ISREG(st.st_mode)
                 ? store_unpack(arg, pkg, (uint64_t)o->c.cfg.max_package, err, sizeof err)
                 : store_copy_tree_resolving(arg, pkg, (uint64_t)o->c.cfg.max_package, &links, err, sizeof err);
        if (rc)
            rc = print_refusal(o, arg, err, 1);
    }
    char *notes = NULL;   /* the conversion's warnings (a time limit assumed) */
    bool converted = rc == 0 && temp && store_package_format(pkg);
    if (converted) {
        /* a CMS task's generator runs in this host's boxes (the runner
         * opened only then) */
        struct ctl_lazy_runner lr = {.cfg = runner_cfg(o)};
        struct store_tools tools = ctl_store_tools_lazy(&lr);
        int n = store_convert_tools(pkg, name, &tools, &notes);
        ctl_lazy_runner_close(&lr);
        if (n) {
            strip_prefix(notes, pkg);
            rc = print_refusal(o, arg, notes, n);
        }
    }
    if (links) {   /* said first, with the conversion's warnings */
        char *all = NULL;
        if (asprintf(&all, "%s%s", links, notes ? notes : "") >= 0) {
            free(notes);
            notes = all;
        }
        free(links);
    }
    /* a time limit is derived only for a package converted here (an archive's too) */
    if (rc == 0 && o->verify)
        rc = push_verify(o, dir, arg, converted, &notes);
    if (rc == 0)
        rc = push_dir(o, dir, name, arg, notes);
    free(notes);
    if (temp)
        store_remove_tree(work);
    return rc;
}

static int push_dir(struct store_opts *o, const char *dir, const char *name, const char *shown, const char *notes)
{
    char err[2048];
    struct store_manifest m;
    if (store_manifest_from_dir(dir, (uint64_t)o->c.cfg.max_package, &m, err, sizeof err))
        return print_refusal(o, shown, err, 1);
    char *errors = NULL, *summary = NULL, *summary_json = NULL;
    int n = validate(o, dir, &errors, &summary, &summary_json);
    if (!strncmp(dir, "/tmp/judgectl-push-", 19))
        strip_prefix(errors, dir);   /* name files as they are in the package */
    if (n != 0) {
        int rc = n > 0 ? print_refusal(o, shown, errors, n) : o->c.status;
        free(errors);
        free(summary);
        store_manifest_free(&m);
        return rc;
    }
    /* what is left are warnings: shown, never refused; the conversion's first */
    if (notes && *notes) {
        char *all = NULL;
        if (asprintf(&all, "%s%s", notes, errors ? errors : "") >= 0) {
            free(errors);
            errors = all;
        }
    }
    json_t *no_errors, *warnings;
    check_lines_json(errors, &no_errors, &warnings);
    json_decref(no_errors);
    if (!o->c.json && errors && *errors)
        fputs(errors, stderr);
    free(errors);
    int rc = setup(&o->c);
    if (rc == 0) {
        struct store_push_reply r;
        int src = store_push(&o->c.conn, name, dir, &m, (uint64_t)o->c.cfg.store_quota, summary_json, &r, err,
                             sizeof err);
        if (src) {
            rc = store_fail(o, src, err);
        } else {
            const char *what = r.result == STORE_PUSH_NEW       ? "new"
                               : r.result == STORE_PUSH_CURRENT ? "unchanged"
                                                                : "current again";
            if (o->c.json) {
                json_t *j = json_pack("{s:b, s:s, s:s, s:s, s:s?, s:I, s:I, s:i, s:I}", "ok", 1, "name", name,
                                      "version", r.version, "result", what, "previous",
                                      r.previous[0] ? r.previous : NULL, "size", (json_int_t)m.total,
                                      "files", (json_int_t)m.n, "new_blobs", r.new_blobs, "uploaded",
                                      (json_int_t)r.uploaded);
                json_object_set(j, "warnings", warnings);
                if (o->verified)
                    json_object_set(j, "verify", o->verified);
                print_json(j);
                json_decref(j);
            } else {
                printf("%s %s %s (%zu files, %llu bytes, %llu bytes sent)\n", name, r.version, what, m.n,
                       (unsigned long long)m.total, (unsigned long long)r.uploaded);
            }
        }
    }
    json_decref(warnings);
    json_decref(o->verified);
    o->verified = NULL;
    free(summary);
    free(summary_json);
    store_manifest_free(&m);
    return rc;
}

/* ----------------------------------------------------------------- reads */

static void print_time(long long ms)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    char buf[64];
    gmtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fputs(buf, stdout);
}

/* One line of it for people: 'A plus B' batch, time 1s, memory 64M, any
 * language (or the ones a grader allows); "no summary" when none. */
static void summary_text(const char *text, char *out, size_t len)
{
    json_t *j = store_summary_json(text), *langs = json_object_get(j, "languages");
    if (!json_is_object(j)) {
        snprintf(out, len, "no summary (pushed before summaries were recorded: push it again)");
        json_decref(j);
        return;
    }
    char l[256] = "";
    size_t i;
    json_t *e;
    json_array_foreach(langs, i, e)
        snprintf(l + strlen(l), sizeof l - strlen(l), "%s%s", i ? "," : "", json_string_value(e));
    long passes = (long)json_integer_value(json_object_get(j, "passes"));
    char multi[48] = "";
    if (passes > 1)
        snprintf(multi, sizeof multi, " multi-pass (%ld)", passes);
    snprintf(out, len, "'%s' %s%s %s, time %gs, memory %lldM, %s%s", json_string_value(json_object_get(j, "title")),
             json_string_value(json_object_get(j, "type")), multi,
             json_string_value(json_object_get(j, "scoring")),
             json_number_value(json_object_get(j, "time_limit")),
             (long long)(json_integer_value(json_object_get(j, "memory_limit")) >> 20),
             json_is_array(langs) ? "languages " : "any language", l);
    json_decref(j);
}

static int list(struct store_opts *o)
{
    char **names;
    size_t n;
    char err[1024];
    int rc = store_list(&o->c.conn, &names, &n, err, sizeof err);
    if (rc)
        return store_fail(o, rc, err);
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        struct store_problem_info p;
        bool found;
        if (store_info(&o->c.conn, names[i], &p, &found, err, sizeof err) == 0 && found) {
            char sum[600];
            summary_text(p.summary, sum, sizeof sum);
            if (o->c.json)
                json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:I, s:o}", "name", p.name, "current",
                                                     p.current, "versions", (json_int_t)p.nversions,
                                                     "updated", (json_int_t)p.updated, "summary",
                                                     store_summary_json(p.summary)));
            else
                printf("%-24s %s %zu version%s %s\n", p.name, p.current, p.nversions, p.nversions == 1 ? "" : "s",
                       sum);
        }
        store_problem_info_free(&p);
        free(names[i]);
    }
    free(names);
    if (o->c.json)
        print_json(arr);
    json_decref(arr);
    return 0;
}

static int show(struct store_opts *o, const char *name, bool only_versions)
{
    struct store_problem_info p;
    bool found;
    char err[1024];
    int rc = store_info(&o->c.conn, name, &p, &found, err, sizeof err);
    if (rc)
        return store_fail(o, rc, err);
    if (!found)
        return ctl_fail(&o->c, "not_found", "no problem '%s' in the store", name);
    if (o->c.json) {
        json_t *j = only_versions ? store_versions_json(&p)
                                  : json_pack("{s:s, s:s, s:I, s:o}", "name", p.name, "current", p.current,
                                              "updated", (json_int_t)p.updated, "versions",
                                              store_versions_json(&p));
        if (!only_versions) {
            json_object_set_new(j, "summary", store_summary_json(p.summary));
            struct store_manifest m;
            if (store_get_manifest(&o->c.conn, p.current, &m, err, sizeof err) == 0) {
                json_object_set_new(j, "files", store_files_json(&m));
                store_manifest_free(&m);
            }
        }
        print_json(j);
        json_decref(j);
    } else {
        if (!only_versions) {
            char sum[600];
            summary_text(p.summary, sum, sizeof sum);
            printf("name: %s\ncurrent: %s\nsummary: %s\nversions:\n", p.name, p.current, sum);
        }
        for (size_t i = 0; i < p.nversions; i++) {
            const struct store_version_info *v = &p.versions[i];
            printf("%s%s ", only_versions ? "" : "  ", v->version);
            print_time(v->time);
            printf(" %zu files %llu bytes%s\n", v->files, (unsigned long long)v->size, v->current ? " (current)" : "");
        }
    }
    store_problem_info_free(&p);
    return 0;
}

/* show --converted: the stored problem.yaml of NAME's version (current,
 * or --version), from a fetched copy; --to DIR keeps the copy there. */
static int show_converted(struct store_opts *o, const char *name)
{
    struct store_problem_info p;
    bool found, listed = false;
    char err[1024], version[65], tmp[4200], staging[4300], dir[4300];
    int rc = store_info(&o->c.conn, name, &p, &found, err, sizeof err);
    if (rc)
        return store_fail(o, rc, err);
    if (!found)
        return ctl_fail(&o->c, "not_found", "no problem '%s' in the store", name);
    snprintf(version, sizeof version, "%s", o->version ? o->version : p.current);
    for (size_t i = 0; i < p.nversions; i++)
        listed = listed || !strcmp(p.versions[i].version, version);
    store_problem_info_free(&p);
    if (!listed)
        return ctl_fail(&o->c, "not_found", "problem '%s' has no version '%s'", name, version);
    struct stat st;
    if (o->to && lstat(o->to, &st) == 0)
        return ctl_fail(&o->c, "bad_input", "--to %s: already exists (a new directory is written)", o->to);
    snprintf(tmp, sizeof tmp, "%s/show-XXXXXX", o->work_dir ? o->work_dir : "/tmp/judgectl");
    mkdir(o->work_dir ? o->work_dir : "/tmp/judgectl", 0755);
    if (!mkdtemp(tmp))
        return ctl_fail(&o->c, "internal", "%s: %s", tmp, strerror(errno));
    snprintf(staging, sizeof staging, o->to ? "%s.part" : "%s/fetch", o->to ? o->to : tmp);
    snprintf(dir, sizeof dir, "%s/%s", tmp, name);
    rc = store_fetch(&o->c.conn, version, staging, o->to ? o->to : dir, NULL, err, sizeof err);
    if (rc) {
        store_remove_tree(tmp);
        return store_fail(o, rc, err);
    }
    char path[4400];
    snprintf(path, sizeof path, "%s/problem.yaml", o->to ? o->to : dir);
    size_t len;
    char *text = common_read_file(path, 1u << 22, &len, NULL);
    if (o->c.json) {
        json_t *j = json_pack("{s:s, s:s, s:s?, s:s?}", "name", name, "version", version, "problem_yaml", text,
                              "to", o->to);
        print_json(j);
        json_decref(j);
    } else if (text) {
        fwrite(text, 1, len, stdout);
    }
    free(text);
    store_remove_tree(tmp);
    return 0;
}

static int rm(struct store_opts *o, const char *name)
{
    char err[1024];
    int rc = store_remove(&o->c.conn, name, o->version, err, sizeof err);
    if (rc)
        return store_fail(o, rc, err);
    if (o->c.json) {
        json_t *j = json_pack("{s:b, s:s, s:s}", "ok", 1, "name", name, "removed", o->version);
        print_json(j);
        json_decref(j);
    } else {
        printf("%s: version %s removed\n", name, o->version);
    }
    return 0;
}

int cmd_store(int argc, char **argv)
{
    struct store_opts o = {.slot = 500 + 2 * (int)(getpid() % 50)};
    ctl_begin(&o.c, "problem", argc, argv);
    int rc = parse(argc, argv, &o);
    if (rc >= 0)
        return rc;
    if (optind >= argc)
        return ctl_usage(&o.c, "expected push, list, show, versions, rm or check");
    const char *sub = argv[optind];
    int nargs = argc - optind - 1;
    bool wants_one = strcmp(sub, "list") != 0;
    if ((wants_one && nargs != 1) || (!wants_one && nargs != 0))
        return ctl_usage(&o.c, "wrong number of arguments for '%s'", sub);
    if (!strcmp(sub, "rm") && !o.version)
        return ctl_usage(&o.c, "rm: --version V is required (judgectl problem versions %s)", argv[optind + 1]);
    const char *arg = wants_one ? argv[optind + 1] : NULL;
    if ((rc = load_config(&o.c)))
        return rc;
    if (!strcmp(sub, "push")) {
        rc = push(&o, arg);
    } else if ((rc = setup(&o.c))) {
        /* reported */
    } else if (!strcmp(sub, "list")) {
        rc = list(&o);
    } else if (!strcmp(sub, "show") && (o.converted || o.to)) {
        rc = show_converted(&o, arg);
    } else if (!strcmp(sub, "show") || !strcmp(sub, "versions")) {
        rc = show(&o, arg, !strcmp(sub, "versions"));
    } else if (!strcmp(sub, "rm")) {
        rc = rm(&o, arg);
    } else {
        rc = ctl_usage(&o.c, "unknown subcommand '%s'", sub);
    }
    teardown(&o.c);
    return rc;
}
