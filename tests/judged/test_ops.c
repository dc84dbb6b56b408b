/* test_ops.c - judged as an admin runs it: the log line of every job (text
 * and log_format: json), the refusals at start (a pool's language without
 * a language file, a `problems:` that names no directory), and two judged
 * on one machine whose sandbox slots overlap (the second refuses, naming the
 * first; a reload onto another's slots is refused; a killed judged's slots
 * are free again). Real redis-server, judged, judgectl and sandboxes; slots
 * 672..691 (no other suite uses 670..699). */
#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <regex.h>
#include <sys/socket.h>

#pragma GCC diagnostic ignored "-Wunused-function" /* harness.h has more than this suite uses */

#include "harness.h"

#define AC_C SRC "/testdata/aplusb/solutions/ac.c"
#define SLOT 672

static void setup(void)
{
    t_setup(1);
}

TestSuite(ops, .init = setup, .fini = t_teardown, .timeout = 120);

static bool contains(const char *hay, const char *needle)
{
    return hay && strstr(hay, needle);
}

/* waits up to ms for pid to exit; its exit status, or -1 if it still runs */
static int exit_status(pid_t pid, long ms)
{
    int st;
    for (long long end = t_now_ms() + ms; t_now_ms() < end; t_sleep_ms(20))
        if (waitpid(pid, &st, WNOHANG) == pid) {
            t_untrack(pid);
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
    return -1;
}

static void write_config(const char *name, int first_slot, const char *extra, const char *pools,
                         char *path, size_t len)
{
    t_config(name, first_slot, extra, pools, path, len);
}

#define ONE_C "  native: {languages: [c], slots: 1}\n"
#define TWO_C "  native: {languages: [c], slots: 2}\n"

static void submit_and_wait(const char *cfg, const char *src, char *id, size_t idlen)
{
    cr_assert_eq(t_submit(cfg, "aplusb", "c", src, NULL, NULL, id, idlen), 0, "submit: %s", id);
    cr_assert(t_wait_state(id, "done", 60000), "%s not judged", id);
}

/* the text line of job id: "job ID: pool=... judge_ms=N" */
static void check_text_line(const char *log, const char *id, const char *verdict)
{
    char head[256];
    snprintf(head, sizeof head, "job %s: pool=native lang=c problem=aplusb version=- verdict=%s ", id,
             verdict);
    const char *l = strstr(log, head);
    cr_assert(l, "no job line for %s in:\n%s", id, log);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(l, "\n"), l);
    long wait, compile, run, judge;
    int attempt;
    const char *fields = strstr(line, "outcome=");
    cr_assert(fields, "%s", line);
    cr_assert_eq(sscanf(fields, "outcome=published attempt=%d wait_ms=%ld compile_ms=%ld run_ms=%ld "
                                "judge_ms=%ld", &attempt, &wait, &compile, &run, &judge), 5, "%s", line);
    cr_assert_eq(attempt, 1, "%s", line);
    cr_assert(wait >= 0 && compile >= 0 && run >= 0 && judge > 0, "%s", line);
    /* a judgment takes at least as long as its compile and its runs */
    cr_assert(judge >= run, "%s", line);
}

Test(ops, one_log_line_per_job_in_text_and_in_json)
{
    char cfg[400], id[160], wa[400];
    write_config("T", SLOT, NULL, ONE_C, cfg, sizeof cfg);
    pid_t t = t_judged(cfg, "T");
    cr_assert(t_judged_started("T", 30000));
    submit_and_wait(cfg, AC_C, id, sizeof id);
    snprintf(wa, sizeof wa, "%s/wa.c", T_dir);
    t_write(wa, "#include <stdio.h>\nint main(void){puts(\"0\");return 0;}\n");
    char wid[160];
    submit_and_wait(cfg, wa, wid, sizeof wid);
    cr_assert_eq(t_stop(t, SIGTERM, 30000) >> 8, 0);
    char *log = t_judged_log("T");
    check_text_line(log, id, "AC");
    check_text_line(log, wid, "WA");
    free(log);

    /* log_format: json: every line one object with time, level, what */
    write_config("J", SLOT, "log_format: json\n", ONE_C, cfg, sizeof cfg);
    pid_t j = t_judged(cfg, "J");
    cr_assert(t_judged_started("J", 30000));
    submit_and_wait(cfg, AC_C, id, sizeof id);
    cr_assert_eq(t_stop(j, SIGTERM, 30000) >> 8, 0);
    log = t_judged_log("J");
    int lines = 0, jobs = 0;
    for (char *l = strtok(log, "\n"); l; l = strtok(NULL, "\n"), lines++) {
        json_error_t e;
        json_t *o = json_loads(l, 0, &e);
        cr_assert(json_is_object(o), "not a JSON object: %s", l);
        cr_assert(json_is_string(json_object_get(o, "time")), "%s", l);
        cr_assert(json_is_string(json_object_get(o, "level")), "%s", l);
        const char *what = json_string_value(json_object_get(o, "what"));
        cr_assert(what, "%s", l);
        cr_assert_str_eq(json_string_value(json_object_get(o, "host")), "J", "%s", l);
        if (!strcmp(what, "job")) {
            jobs++;
            cr_assert_str_eq(json_string_value(json_object_get(o, "id")), id, "%s", l);
            cr_assert_str_eq(json_string_value(json_object_get(o, "pool")), "native");
            cr_assert_str_eq(json_string_value(json_object_get(o, "lang")), "c");
            cr_assert_str_eq(json_string_value(json_object_get(o, "problem")), "aplusb");
            cr_assert_str_eq(json_string_value(json_object_get(o, "verdict")), "AC");
            cr_assert_str_eq(json_string_value(json_object_get(o, "outcome")), "published");
            cr_assert_eq(json_integer_value(json_object_get(o, "attempt")), 1);
            const char *ms[] = {"wait_ms", "compile_ms", "run_ms", "judge_ms"};
            for (int i = 0; i < 4; i++)
                cr_assert(json_is_integer(json_object_get(o, ms[i])) &&
                              json_integer_value(json_object_get(o, ms[i])) >= 0, "%s: %s", ms[i], l);
        } else {
            cr_assert_str_eq(what, "message", "%s", l);
            cr_assert(json_is_string(json_object_get(o, "msg")), "%s", l);
        }
        json_decref(o);
    }
    cr_assert(lines >= 3 && jobs == 1, "%d lines, %d job lines", lines, jobs);
    free(log);
}

Test(ops, a_pool_language_without_a_language_file_is_refused)
{
    char cfg[400];
    write_config("L", SLOT, NULL, "  native: {languages: [c, intercal], slots: 1}\n", cfg, sizeof cfg);
    pid_t l = t_judged(cfg, "L");
    cr_assert_eq(exit_status(l, 30000), 1, "judged did not refuse");
    char *log = t_judged_log("L");
    char want[600];
    snprintf(want, sizeof want, "%s:", cfg);
    cr_assert(contains(log, want), "names the file: %s", log);
    cr_assert(contains(log, "key 'pools.native.languages': language 'intercal' has no language file"), "%s",
              log);
    cr_assert(!contains(log, "started (pid"), "%s", log);
    free(log);

    /* the runner's rule: a file's id: must be its name; judged agrees */
    char dir[400], path[500];
    snprintf(dir, sizeof dir, "%s/langs", T_dir);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/cobol.yaml", dir);
    t_write(path, "id: c\nname: C\nversion: [gcc, --version]\nsource: main.c\n"
                  "compile: [gcc, main.c, -o, main]\nrun: [./main]\n");
    snprintf(path, sizeof path, "%s/M.yaml", T_dir);
    t_write(path, "redis: unix://%s\nstate_dir: %s/state-M\nproblems: %s/problems\nlanguages: %s\n"
                  "host: M\nfirst_slot: %d\npools:\n  native: {languages: [cobol], slots: 1}\n",
            T_sock, T_dir, T_dir, dir, SLOT);
    pid_t m = t_judged(path, "M");
    cr_assert_eq(exit_status(m, 30000), 1);
    log = t_judged_log("M");
    cr_assert(contains(log, "key 'languages'") && contains(log, "must equal the file name"), "%s", log);
    free(log);
}

Test(ops, a_problems_key_naming_no_directory_is_refused_and_no_key_means_the_store)
{
    char cfg[400];
    write_config("P", SLOT, NULL, ONE_C, cfg, sizeof cfg);
    /* t_config wrote problems: T_dir/problems; point it elsewhere */
    char path[400];
    snprintf(path, sizeof path, "%s/P.yaml", T_dir);
    t_write(path, "redis: unix://%s\nstate_dir: %s/state-P\nproblems: %s/no-such-dir\n"
                  "languages: %s/languages\nhost: P\nfirst_slot: %d\npools:\n" ONE_C,
            T_sock, T_dir, T_dir, SRC, SLOT);
    pid_t p = t_judged(path, "P");
    cr_assert_eq(exit_status(p, 30000), 1);
    char *log = t_judged_log("P");
    cr_assert(contains(log, ":3: key 'problems': ") && contains(log, "no-such-dir: No such file"), "%s",
              log);
    free(log);

    /* without the key (and no /srv/problems) the store alone serves */
    struct stat st;
    if (stat("/srv/problems", &st) == 0)
        cr_skip_test("/srv/problems exists on this machine");
    t_write(path, "redis: unix://%s\nstate_dir: %s/state-Q\nlanguages: %s/languages\nhost: Q\n"
                  "first_slot: %d\npools:\n" ONE_C,
            T_sock, T_dir, SRC, SLOT);
    pid_t q = t_judged(path, "Q");
    cr_assert(t_judged_started("Q", 30000), "judged refused a store-only configuration");
    cr_assert_eq(t_stop(q, SIGTERM, 30000) >> 8, 0);

    /* ... unless the store's cache cannot be made either */
    snprintf(path, sizeof path, "%s/afile", T_dir);
    t_write(path, "not a directory\n");
    snprintf(path, sizeof path, "%s/R.yaml", T_dir);
    t_write(path, "redis: unix://%s\nstate_dir: %s/afile/state\nlanguages: %s/languages\nhost: R\n"
                  "first_slot: %d\npools:\n" ONE_C,
            T_sock, T_dir, SRC, SLOT);
    pid_t r = t_judged(path, "R");
    cr_assert_eq(exit_status(r, 30000), 1);
    log = t_judged_log("R");
    cr_assert(contains(log, "key 'problems': missing") && contains(log, "no problem could be judged"),
              "%s", log);
    free(log);
}

/* the holder file of pid: what a refused judged reads */
static char *holder(pid_t pid)
{
    char path[100];
    snprintf(path, sizeof path, "/run/judged/judged-%d.slots", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    char *buf = calloc(1, 8192);
    size_t n = fread(buf, 1, 8191, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static bool wait_log(const char *name, const char *what, long ms)
{
    for (long long end = t_now_ms() + ms; t_now_ms() < end; t_sleep_ms(50)) {
        char *log = t_judged_log(name);
        bool ok = contains(log, what);
        free(log);
        if (ok)
            return true;
    }
    return false;
}

Test(ops, overlapping_sandbox_slots_the_second_judged_refuses, .timeout = 240)
{
    char cfa[400], cfb[400], cfc[400], want[600];
    write_config("A", SLOT, NULL, TWO_C, cfa, sizeof cfa);          /* 672..675 */
    pid_t a = t_judged(cfa, "A");
    cr_assert(t_judged_started("A", 30000));
    char *h = holder(a);
    cr_assert(contains(h, "host: A") && contains(h, "slots: 672..675"), "%s", h);
    free(h);

    /* B overlaps A by two slots: refused, naming A, its config and slots */
    write_config("B", SLOT + 2, NULL, ONE_C, cfb, sizeof cfb);      /* 674..675 */
    pid_t b = t_judged(cfb, "B");
    cr_assert_eq(exit_status(b, 60000), 1, "the second judged did not refuse");
    char *log = t_judged_log("B");
    snprintf(want, sizeof want, "slots 674..675 are held by judged pid %d (host A, config %s, slots "
             "672..675)", (int)a, cfa);
    cr_assert(contains(log, want), "want '%s' in:\n%s", want, log);
    snprintf(want, sizeof want, "%s: key 'first_slot': this judged's sandbox slots are 674..675", cfb);
    cr_assert(contains(log, want), "want '%s' in:\n%s", want, log);
    cr_assert(!contains(log, "started (pid"), "%s", log);
    free(log);

    /* beside A it starts, and both judge */
    write_config("B", SLOT + 4, NULL, ONE_C, cfb, sizeof cfb);      /* 676..677 */
    b = t_judged(cfb, "B2");
    cr_assert(t_judged_started("B2", 30000));
    char id[160];
    submit_and_wait(cfa, AC_C, id, sizeof id);

    /* a reload of A onto B's slots is refused; A keeps its own */
    write_config("A", SLOT + 4, NULL, TWO_C, cfa, sizeof cfa);
    kill(a, SIGHUP);
    cr_assert(wait_log("A", "SIGHUP: configuration not reloaded", 30000));
    log = t_judged_log("A");
    snprintf(want, sizeof want, "slots 676..677 are held by judged pid %d (host B, config %s, slots "
             "676..677)", (int)b, cfb);
    cr_assert(contains(log, want), "want '%s' in:\n%s", want, log);
    free(log);
    h = holder(a);
    cr_assert(contains(h, "slots: 672..675\n"), "%s", h);
    free(h);

    /* a reload that moves A frees its old slots once done */
    write_config("A", SLOT + 8, NULL, TWO_C, cfa, sizeof cfa);      /* 680..683 */
    kill(a, SIGHUP);
    cr_assert(wait_log("A", "SIGHUP: configuration reloaded", 60000));
    h = holder(a);
    cr_assert(contains(h, "slots: 680..683\n"), "%s", h);
    free(h);
    write_config("C", SLOT, NULL, TWO_C, cfc, sizeof cfc);          /* 672..675 */
    pid_t c = t_judged(cfc, "C");
    cr_assert(t_judged_started("C", 30000), "A's old slots were not released");
    cr_assert_eq(t_stop(c, SIGTERM, 30000) >> 8, 0);

    /* a SIGKILLed judged holds nothing: the kernel dropped its locks */
    kill(b, SIGKILL);
    waitpid(b, NULL, 0);
    t_untrack(b);
    write_config("C", SLOT + 4, NULL, ONE_C, cfc, sizeof cfc);      /* B's 676..677 */
    c = t_judged(cfc, "C2");
    cr_assert(t_judged_started("C2", 30000), "a killed judged's slots stayed locked");
    submit_and_wait(cfa, AC_C, id, sizeof id);
}

/* runs judgectl with stdout into out; its exit status */
static int ctl_json(char *out, size_t len, const char *cfg, const char *cmd, const char *a, const char *b)
{
    return t_ctl(out, len, cfg, "problem", cmd, "--json", a, b, NULL);
}

Test(ops, problem_check_and_push_warn_without_failing)
{
    char dir[400], p[500], cfg[400], out[8192];
    snprintf(dir, sizeof dir, "%s/warned", T_dir);
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/tests", dir);
    mkdir(p, 0755);
    for (int i = 1; i <= 3; i++) {
        snprintf(p, sizeof p, "%s/tests/%d.in", dir, i);
        t_write(p, "%d %d\n", i, i);
        snprintf(p, sizeof p, "%s/tests/%d.out", dir, i);
        t_write(p, "%d\n", 2 * i);
    }
    snprintf(p, sizeof p, "%s/problem.yaml", dir);
    t_write(p, "name: warned\ntime_limit: 2000\nmemory_limit: 256M\n"
               "subtasks:\n  - {points: 30, tests: [1]}\n  - {points: 40, tests: [2]}\n");
    write_config("W", SLOT, NULL, ONE_C, cfg, sizeof cfg);
    const char *want[] = {
        "problem.yaml:4: subtasks: warning: the subtasks' points add up to 70, not 100",
        "problem.yaml:4: subtasks: warning: 1 test is in no subtask ('3')",
        "problem.yaml:2: time_limit: warning: 2000 has no unit, so it means 2000 seconds",
    };
    /* problem check and push: exit 0, the warnings in the JSON */
    const char *cmds[] = {"check", "push"};
    for (int c = 0; c < 2; c++) {
        cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", cmds[c], "--json", dir, NULL), 0, "%s: %s",
                     cmds[c], out);
        json_error_t e;
        json_t *o = json_loads(out, 0, &e);
        cr_assert(json_is_true(json_object_get(o, "ok")), "%s: %s", cmds[c], out);
        json_t *w = json_object_get(o, "warnings");
        cr_assert_eq(json_array_size(w), 3, "%s: %s", cmds[c], out);
        for (size_t i = 0; i < 3; i++)
            cr_assert(contains(json_string_value(json_array_get(w, i)), want[i]), "%s: %s", cmds[c], out);
        json_decref(o);
    }
    /* text: the warnings, then OK */
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "check", dir, NULL), 0, "%s", out);
    cr_assert(contains(out, want[2]) && contains(out, "\nOK warned:"), "%s", out);
    /* an error: refused, listed under errors */
    t_write(p, "name: warned\ntime_limit: 2000\nmemory_limit: 256M\nbogus: 1\n");
    cr_assert_eq(ctl_json(out, sizeof out, cfg, "check", dir, NULL), 1, "%s", out);
    json_error_t e;
    json_t *o = json_loads(out, 0, &e);
    cr_assert(json_is_false(json_object_get(o, "ok")), "%s", out);
    cr_assert_eq(json_array_size(json_object_get(o, "errors")), 1, "%s", out);
    cr_assert(contains(json_string_value(json_array_get(json_object_get(o, "errors"), 0)),
                       "problem.yaml:4: bogus: unknown key"), "%s", out);
    /* a package that does not load has no subtasks or limits to warn about */
    cr_assert(json_is_array(json_object_get(o, "warnings")), "%s", out);
    json_decref(o);
}

/* ------------------------------------------- judged's own metrics server */

/* The value of the sample whose line starts with `series ` (name and
 * labels, exactly as served); -1 when absent. */
static double sample(const char *text, const char *series)
{
    size_t n = strlen(series);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, series, n) && l[n] == ' ')
            return atof(l + n + 1);
    return -1;
}

/* What a Prometheus scraper checks: every line a comment (# HELP / # TYPE
 * NAME ...) or `name{label="value",...} number`, every sample's family
 * declared by a # TYPE before it, a histogram's buckets cumulative and its
 * +Inf bucket equal to its _count. */
static void check_exposition(const char *text)
{
    regex_t re;
    cr_assert_eq(regcomp(&re, "^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\.)*\""
                              "(,[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\.)*\")*\\})? "
                              "(-?[0-9.e+-]+|\\+Inf|NaN)$", REG_EXTENDED), 0);
    char *copy = strdup(text), *save = NULL, types[64][80];
    int ntypes = 0, samples = 0;
    cr_assert(text[0] && text[strlen(text) - 1] == '\n', "the text ends with a newline");
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, "# TYPE ", 7)) {
            char name[80], type[32];
            cr_assert_eq(sscanf(l, "# TYPE %79s %31s", name, type), 2, "%s", l);
            cr_assert(!strcmp(type, "counter") || !strcmp(type, "gauge") || !strcmp(type, "histogram"), "%s", l);
            cr_assert(ntypes < 64);
            snprintf(types[ntypes++], sizeof types[0], "%s", name);
            continue;
        }
        if (!strncmp(l, "# HELP ", 7))
            continue;
        cr_assert_neq(l[0], '#', "an unknown comment: %s", l);
        regmatch_t m[2];
        cr_assert_eq(regexec(&re, l, 2, m, 0), 0, "not a sample line: '%s'", l);
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(m[1].rm_eo - m[1].rm_so), l);
        bool declared = false;
        for (int i = 0; i < ntypes && !declared; i++) {
            size_t tl = strlen(types[i]);
            declared = !strncmp(name, types[i], tl) &&
                       (!name[tl] || !strcmp(name + tl, "_bucket") || !strcmp(name + tl, "_sum") ||
                        !strcmp(name + tl, "_count"));
        }
        cr_assert(declared, "no # TYPE before %s", l);
        samples++;
    }
    cr_assert(samples > 0);
    free(copy);
    regfree(&re);
}

/* a histogram of one pool and language: cumulative buckets, +Inf = count */
static void check_histogram(const char *text, const char *name, const char *labels, double count)
{
    char series[256];
    static const char *const le[] = {"0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1",
                                     "2.5",  "5",     "10",   "30",  "60",  "+Inf"};
    double prev = 0;
    for (size_t i = 0; i < sizeof le / sizeof *le; i++) {
        snprintf(series, sizeof series, "%s_bucket{%s,le=\"%s\"}", name, labels, le[i]);
        double v = sample(text, series);
        cr_assert(v >= prev, "%s: %g after %g (buckets are cumulative)\n%s", series, v, prev, text);
        prev = v;
    }
    cr_assert_eq(prev, count, "%s{%s}: +Inf bucket %g, want %g\n%s", name, labels, prev, count, text);
    snprintf(series, sizeof series, "%s_count{%s}", name, labels);
    cr_assert_eq(sample(text, series), count, "%s\n%s", series, text);
    snprintf(series, sizeof series, "%s_sum{%s}", name, labels);
    cr_assert(sample(text, series) >= 0, "%s\n%s", series, text);
}

static char metrics_text[1 << 20];

/* scrapes until the sample `series` has value want (the counters follow the
 * job's publish by a moment); false after ms */
static bool wait_sample(int port, const char *series, double want, long ms)
{
    for (long long end = t_now_ms() + ms; t_now_ms() < end; t_sleep_ms(50))
        if (t_http_get(port, "/metrics", metrics_text, sizeof metrics_text) == 200 &&
            sample(metrics_text, series) == want)
            return true;
    fprintf(stderr, "%s never reached %g; last scrape:\n%s\n", series, want, metrics_text);
    return false;
}

#define TWO_POOLS "  native: {languages: [c], slots: 2}\n  python: {languages: [python3], slots: 1}\n"

Test(ops, metrics_listen_serves_this_hosts_metrics, .timeout = 240)
{
    char cfg[400], id[160], body[4096];
    write_config("M", SLOT, "metrics_listen: 127.0.0.1:0\n", TWO_POOLS, cfg, sizeof cfg);
    pid_t m = t_judged(cfg, "M");
    cr_assert(t_judged_started("M", 30000));
    int port = t_metrics_port("M");
    cr_assert(port > 0, "no metrics port in the log");
    cr_assert_eq(t_http_get(port, "/healthz", body, sizeof body), 200);
    cr_assert_str_eq(body, "ok\n");
    cr_assert_eq(t_http_get(port, "/nothing", body, sizeof body), 404);
    cr_assert_eq(t_http_get(port, "/metrics/x", body, sizeof body), 404);

    /* before any job: the configured slots, none busy, Redis up */
    cr_assert_eq(t_http_get(port, "/metrics", metrics_text, sizeof metrics_text), 200);
    check_exposition(metrics_text);
    cr_assert_eq(sample(metrics_text, "judged_slots{pool=\"native\"}"), 2, "%s", metrics_text);
    cr_assert_eq(sample(metrics_text, "judged_slots{pool=\"python\"}"), 1, "%s", metrics_text);
    cr_assert_eq(sample(metrics_text, "judged_slots_busy{pool=\"native\"}"), 0, "%s", metrics_text);
    cr_assert_eq(sample(metrics_text, "judged_redis_up"), 1, "%s", metrics_text);
    char info[200];
    snprintf(info, sizeof info, "judged_info{host=\"M\",version=\"%s\"}", JUDGED_VERSION);
    cr_assert_eq(sample(metrics_text, info), 1, "%s\n%s", info, metrics_text);
    cr_assert_eq(sample(metrics_text, "judged_jobs_total{pool=\"native\",verdict=\"AC\"}"), -1,
                 "no job yet: %s", metrics_text);

    /* one real submission: counted once, under its pool and language */
    submit_and_wait(cfg, AC_C, id, sizeof id);
    cr_assert(wait_sample(port, "judged_jobs_total{pool=\"native\",verdict=\"AC\"}", 1, 30000));
    cr_assert(wait_sample(port, "judged_slots_busy{pool=\"native\"}", 0, 30000), "the slot stayed busy");
    check_exposition(metrics_text);
    check_histogram(metrics_text, "judged_compile_seconds", "pool=\"native\",language=\"c\"", 1);
    check_histogram(metrics_text, "judged_run_seconds", "pool=\"native\",language=\"c\"", 1);
    cr_assert_eq(sample(metrics_text, "judged_infrastructure_failures_total{pool=\"native\"}"), 0, "%s",
                 metrics_text);
    cr_assert_eq(sample(metrics_text, "judged_slots{pool=\"native\"}"), 2, "%s", metrics_text);
    cr_assert_eq(sample(metrics_text, "judged_redis_up"), 1, "%s", metrics_text);

    /* test data gone after admission: an infrastructure failure per attempt
     * (max_attempts 3), then the dead letter's IE; no report, no times. The
     * pool is paused meanwhile, or judged could take the job before the
     * unlink (a package without tests: a published IE, no failure). */
    char p[400], vid[160], out[1024];
    snprintf(p, sizeof p, "%s/problems/vanish", T_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/problems/vanish/problem.yaml", T_dir);
    t_write(p, "name: vanish\ntime_limit: 1s\nmemory_limit: 64M\nchecker: tokens\n");
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "pause", "native", NULL), 0, "%s", out);
    cr_assert_eq(t_submit(cfg, "vanish", "c", AC_C, NULL, NULL, vid, sizeof vid), 0, "%s", vid);
    unlink(p);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "resume", "native", NULL), 0, "%s", out);
    cr_assert(t_wait_state(vid, "done", 60000));
    cr_assert(wait_sample(port, "judged_jobs_total{pool=\"native\",verdict=\"IE\"}", 1, 30000));
    cr_assert_eq(sample(metrics_text, "judged_infrastructure_failures_total{pool=\"native\"}"), 3, "%s",
                 metrics_text);
    cr_assert_eq(sample(metrics_text, "judged_jobs_total{pool=\"native\",verdict=\"AC\"}"), 1, "%s",
                 metrics_text);
    cr_assert_eq(sample(metrics_text, "judged_compile_seconds_count{pool=\"native\",language=\"c\"}"), 1,
                 "%s", metrics_text);

    /* a reload that removes python, adds py3 and resizes native: the
     * gauges follow, the counters stay, the server stays where it was */
    write_config("M", SLOT, "metrics_listen: 127.0.0.1:1\n",
                 "  native: {languages: [c], slots: 1}\n  py3: {languages: [python3], slots: 1}\n", cfg,
                 sizeof cfg);
    kill(m, SIGHUP);
    cr_assert(wait_log("M", "SIGHUP: configuration reloaded", 60000));
    cr_assert(wait_log("M", "metrics_listen 127.0.0.1:1 needs a restart", 1000));
    cr_assert(wait_sample(port, "judged_slots{pool=\"py3\"}", 1, 30000));
    check_exposition(metrics_text);
    cr_assert_eq(sample(metrics_text, "judged_slots{pool=\"native\"}"), 1, "%s", metrics_text);
    cr_assert_eq(sample(metrics_text, "judged_slots{pool=\"python\"}"), -1, "a removed pool has no slots: %s",
                 metrics_text);
    cr_assert_eq(sample(metrics_text, "judged_jobs_total{pool=\"native\",verdict=\"AC\"}"), 1, "%s",
                 metrics_text);
    submit_and_wait(cfg, AC_C, id, sizeof id);
    cr_assert(wait_sample(port, "judged_compile_seconds_count{pool=\"native\",language=\"c\"}", 2, 30000));

    /* Redis gone: the next heartbeat says so (the fini kills judged) */
    t_kill_redis(SIGKILL);
    cr_assert(wait_sample(port, "judged_redis_up", 0, 30000));
}

/* The line of the file at path that starts with key (1-based; 0: none). */
static int line_of(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char *text = calloc(1, 1 << 16);
    if (f) {
        text[fread(text, 1, (1 << 16) - 1, f)] = 0;
        fclose(f);
    }
    int line = 0, n = 1;
    for (const char *p = text; p && *p && !line; n++) {
        if (!strncmp(p, key, strlen(key)))
            line = n;
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    free(text);
    return line;
}

Test(ops, a_bad_or_busy_metrics_listen_is_refused_at_start)
{
    char cfg[400];
    write_config("X", SLOT, "metrics_listen: 127.0.0.1:70000\n", ONE_C, cfg, sizeof cfg);
    pid_t x = t_judged(cfg, "X");
    cr_assert_eq(exit_status(x, 30000), 1, "judged accepted a port past 65535");
    char *log = t_judged_log("X"), want[600];
    snprintf(want, sizeof want, "%s:%d: key 'metrics_listen': '127.0.0.1:70000': expected HOST:PORT", cfg,
             line_of(cfg, "metrics_listen:"));
    cr_assert(contains(log, want), "want '%s' in:\n%s", want, log);
    free(log);

    /* a port another program listens on */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t sl = sizeof sa;
    cr_assert(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(fd, 1) == 0 &&
              getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
    char extra[100];
    snprintf(extra, sizeof extra, "metrics_listen: 127.0.0.1:%d\n", ntohs(sa.sin_port));
    write_config("Y", SLOT, extra, ONE_C, cfg, sizeof cfg);
    pid_t y = t_judged(cfg, "Y");
    cr_assert_eq(exit_status(y, 30000), 1, "judged started on a port in use");
    log = t_judged_log("Y");
    snprintf(want, sizeof want, "%s:%d: key 'metrics_listen': cannot listen on 127.0.0.1:%d: Address already in use",
             cfg, line_of(cfg, "metrics_listen:"), ntohs(sa.sin_port));
    cr_assert(contains(log, want), "want '%s' in:\n%s", want, log);
    cr_assert(!contains(log, "started (pid"), "%s", log);
    free(log);
    close(fd);

    /* the port free again: it starts (and its slots were not kept by the refusal) */
    pid_t z = t_judged(cfg, "Z");
    cr_assert(t_judged_started("Z", 30000), "judged refused a free port");
    cr_assert_eq(t_stop(z, SIGTERM, 30000) >> 8, 0);
}

/* A judged stopped with SIGTERM leaves judge:hosts (a crashed one stays
 * listed, as not alive, until reaped: test_ctl), so `hosts` stays 0. */
Test(ops, a_cleanly_stopped_judged_leaves_the_hosts_list)
{
    char cfg[400], out[8192], id[200];
    write_config("A", SLOT, NULL, ONE_C, cfg, sizeof cfg);
    pid_t a = t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 30000));
    submit_and_wait(cfg, AC_C, id, sizeof id);
    for (long long end = t_now_ms() + 20000; t_now_ms() < end && !contains(out, "\"A\""); t_sleep_ms(50))
        t_ctl(out, sizeof out, cfg, "hosts", "--json", NULL);
    cr_assert(contains(out, "\"A\""), "host A registered: %s", out);
    int st = t_stop(a, SIGTERM, 120000);
    cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "a clean stop");
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "hosts", "--json", NULL), 0, "no host is dead: %s", out);
    cr_assert(!contains(out, "\"A\""), "host A left the list: %s", out);
    cr_assert_eq(t_int("HEXISTS judge:hosts A"), 0);
}

/* the host's record (judge:host:NAME) as JSON, NULL when there is none */
static json_t *host_record(const char *name)
{
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "GET judge:host:%s", name);
    json_t *rec = r && r->type == REDIS_REPLY_STRING ? json_loads(r->str, 0, NULL) : NULL;
    if (r)
        freeReplyObject(r);
    redisFree(c);
    return rec;
}

/* a languages dir holding c.yaml and cwarm.yaml: C with prepared files
 * whose build leaves files/marker (the mechanism of cpp's header and
 * java's archive, at the cost of an echo); c stays .c's default */
static void warm_languages(char *dir, size_t len)
{
    char cmd[1400];
    snprintf(dir, len, "%s/warm-langs", T_dir);
    mkdir(dir, 0755);
    snprintf(cmd, sizeof cmd, "cp '%s/languages/c.yaml' '%s/c.yaml' && sed -e 's/^id: c$/id: cwarm/' "
                              "-e '/^default_for:/d' '%s/languages/c.yaml' > '%s/cwarm.yaml'",
             SRC, dir, SRC, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/cwarm.yaml", dir);
    FILE *f = fopen(cmd, "a");
    cr_assert(f);
    fputs("prepare:\n  build: [/bin/sh, -c, 'echo ready > marker']\n  compile_flags: []\n  run_flags: []\n", f);
    fclose(f);
}

/* the number a shell command prints (a count of lines) */
static int count_of(const char *cmd)
{
    char out[64] = "";
    FILE *p = popen(cmd, "r");
    cr_assert(p, "%s", cmd);
    if (!fgets(out, sizeof out, p))
        out[0] = 0;
    pclose(p);
    return atoi(out);
}

/* how many cwarm entries STATE/prepared holds with a marker */
static int warm_entries(const char *state)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -d %s/prepared/cwarm-*/files/marker 2>/dev/null | wc -l", state);
    return count_of(cmd);
}

/* a copy of aplusb judged by a custom checker whose source says tag */
static void checked_aplusb(const char *dir, const char *tag)
{
    char cmd[1400], p[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp -r '%s/testdata/aplusb/tests' '%s/'", dir, SRC, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(p, sizeof p, "%s/problem.yaml", dir);
    t_write(p, "name: %s\ntime_limit: 1s\nmemory_limit: 64M\nchecker: {type: custom, source: check.c}\n", tag);
    snprintf(p, sizeof p, "%s/check.c", dir);
    t_write(p, "/* %s */\n#include <stdio.h>\nint main(int c, char **v)\n{\n    long long a, b;\n"
               "    FILE *o = fopen(v[2], \"r\"), *w = fopen(v[3], \"r\");\n"
               "    return c == 4 && o && w && fscanf(o, \"%%lld\", &a) == 1 && fscanf(w, \"%%lld\", &b) == 1 "
               "&& a == b ? 0 : 1;\n}\n", tag);
}

/* how many helpers STATE/checkers holds (built, not a build under way) */
static int built_helpers(const char *state)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s/checkers 2>/dev/null | grep -v tmp | wc -l", state);
    return count_of(cmd);
}

/* A contest's first C++ or Java submission waited for its language's
 * prepared files (5-15 s here; bench_contest's burst), and each host's
 * first judging of a problem for its checker's build: judged builds them
 * at start - the languages', then the checkers of the problems directory's
 * problems and of the store's last pushed - and its record says "warming"
 * until then; warm_up: false leaves them to the first compile and the
 * first judging, as before. */
Test(ops, prepared_files_and_checkers_are_built_at_start_before_any_submission, .timeout = 300)
{
    char dir[400], cfg[500], state[500], problems[400], out[4000];
    warm_languages(dir, sizeof dir);
    snprintf(problems, sizeof problems, "%s/warm-problems", T_dir);
    char pkg[500];
    snprintf(pkg, sizeof pkg, "%s/aplusb-dir", problems);
    checked_aplusb(pkg, "in the directory");
    snprintf(pkg, sizeof pkg, "%s/warm-pushed", T_dir);
    checked_aplusb(pkg, "in the store");
    for (int warm = 1; warm >= 0; warm--) {
        const char *name = warm ? "W" : "V";
        snprintf(state, sizeof state, "%s/state-%s", T_dir, name);
        snprintf(cfg, sizeof cfg, "%s/%s.yaml", T_dir, name);
        t_write(cfg, "redis: unix://%s\nstate_dir: %s\nproblems: %s\nlanguages: %s\nhost: %s\n"
                     "first_slot: %d\nheartbeat: 500ms\nlease: 2s\noversubscribe: true\nwarm_up: %s\n"
                     "pools:\n  native: {languages: [c, cwarm], slots: 1}\n",
                T_sock, state, problems, dir, name, SLOT, warm ? "true" : "false");
        if (warm)   /* in the store before the host starts, as a contest's problems are */
            cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", pkg, "--name", "warmpushed", "--slot",
                               "686", NULL), 0, "%s", out);
        pid_t j = t_judged(cfg, name);
        cr_assert(t_judged_started(name, 60000));
        /* the record says warming 0 once every language is ready */
        json_t *rec = NULL;
        for (long long end = t_now_ms() + 180000; t_now_ms() < end; t_sleep_ms(50)) {
            json_decref(rec);
            rec = host_record(name);
            if (rec && json_integer_value(json_object_get(rec, "warming")) == 0 &&
                json_object_get(rec, "warming"))
                break;
        }
        cr_assert(rec && json_object_get(rec, "warming"), "no warming in the host's record");
        cr_assert_eq(json_integer_value(json_object_get(rec, "warming")), 0);
        json_decref(rec);
        char *log = t_judged_log(name);
        if (warm) {
            cr_assert_eq(built_helpers(state), 2, "the checkers of the directory's and the store's problem "
                                                  "were not built before a submission: %s", log);
            cr_assert_eq(warm_entries(state), 1, "no prepared files for cwarm before a submission: %s", log);
            cr_assert(contains(log, "pool native: cwarm warmed up in"), "%s", log);
            cr_assert(!contains(log, "pool native: c warmed up"), "c has nothing to prepare: %s", log);
        } else {
            cr_assert_eq(warm_entries(state), 0, "warm_up: false built them: %s", log);
            cr_assert_eq(built_helpers(state), 0, "warm_up: false built checkers: %s", log);
            cr_assert(!contains(log, "warmed up"), "%s", log);
        }
        free(log);
        /* it judges as before */
        char id[200];
        cr_assert_eq(t_submit(cfg, "aplusb-dir", "cwarm", AC_C, NULL, NULL, id, sizeof id), 0, "submit: %s", id);
        cr_assert(t_wait_state(id, "done", 120000), "%s not judged", id);
        char *v = t_hget(id, "verdict");
        cr_assert_str_eq(v ? v : "", "AC");
        free(v);
        cr_assert_eq(warm_entries(state), 1);   /* the first compile built them when warm-up did not */
        cr_assert_geq(built_helpers(state), 1);  /* and the first judging its checker */
        cr_assert_eq(t_stop(j, SIGTERM, 60000), 0);
    }
}
