/* test_polygon.c - Polygon packages (issue 23) as a setter uses them, with
 * real parts: the packages of tests/judged/polygon/ (Polygon's layout,
 * written for these tests) judged unchanged by `judgectl judge --problem
 * DIR` in real sandboxes, every tagged solution getting the verdicts its
 * tag promises in the converted submissions.yaml (what `problem verify`
 * will check); pushed unchanged with `judgectl problem push` into a
 * private redis-server; a bad package refused with nothing stored.
 * Sandbox slots 500..509 (judge 500..505, judged 500..501, push validation
 * 506..507; the tests run one at a time). */
#include <jansson.h>
#pragma GCC diagnostic ignored "-Wunused-function" /* harness.h has more than this suite uses */
#include <math.h>

#include "harness.h"
#include "store.h"

#define SLOT_JUDGE0 500
#define SLOT_PUSH "506"

static void setup(void)
{
    t_setup(1);
}

static void teardown(void)
{
    t_teardown();
}

TestSuite(polygon, .init = setup, .fini = teardown, .timeout = 600);

/* A solution of a package, the language its Polygon type maps to, and
 * what the runner gives it. */
struct expected {
    const char *file, *lang, *verdict;
    double score;
};

/* The verdict of one test in the ICPC set submissions.yaml speaks. */
static const char *icpc_verdict(const char *v)
{
    if (!strcmp(v, "AC") || !strcmp(v, "TLE"))
        return v;
    if (!strcmp(v, "WA") || !strcmp(v, "PE"))
        return "WA";
    if (!strcmp(v, "SKIPPED"))
        return NULL;
    return "RTE";   /* RE, MLE, OLE, SV: Kattis' run-time error */
}

/* The entry of FILE in the converted submissions.yaml: "permitted: [..]"
 * and "required: [..]" lines ("" when absent). */
static void entry_of(const char *yaml, const char *file, char *permitted, char *required, char *language)
{
    char key[300];
    snprintf(key, sizeof key, "\n\"%s\":", file);   /* keys are written double-quoted */
    const char *at = strstr(yaml, key);
    cr_assert(at, "%s not in submissions.yaml:\n%s", file, yaml);
    permitted[0] = required[0] = language[0] = 0;
    for (const char *l = strchr(at + 1, '\n'); l && l[1] == ' '; l = strchr(l + 1, '\n')) {
        if (!strncmp(l + 1, "  permitted: ", 13))
            sscanf(l + 14, "%199[^\n]", permitted);
        else if (!strncmp(l + 1, "  required: ", 12))
            sscanf(l + 13, "%199[^\n]", required);
        else if (!strncmp(l + 1, "  language: ", 12))
            sscanf(l + 13, "%63[^\n]", language);
    }
}

/* "[AC, WA]" holds V (an empty list: the schema's default, any verdict). */
static bool listed(const char *list, const char *v)
{
    char word[16];
    snprintf(word, sizeof word, "%s", v);
    if (!list[0])
        return true;
    for (const char *s = list; (s = strstr(s, word)); s += strlen(word))
        if ((s[-1] == '[' || s[-1] == ' ') && (s[strlen(word)] == ',' || s[strlen(word)] == ']'))
            return true;
    return false;
}

/* The submissions.yaml push stores for tests/judged/polygon/NAME: the
 * store's converter on a copy (the package itself stays as it is). */
static char *submissions_yaml(const char *name)
{
    char from[600], to[600], err[512];
    snprintf(from, sizeof from, "%s/%s", POLYGON_DIR, name);
    snprintf(to, sizeof to, "%s/conv-%s", T_dir, name);
    cr_assert_eq(store_copy_tree(from, to, 0, err, sizeof err), 0, "%s", err);
    char *notes = NULL;
    cr_assert_eq(store_convert(to, name, &notes), 0, "%s", notes);
    free(notes);
    static char yaml[16384];
    snprintf(to, sizeof to, "%s/conv-%s/submissions/submissions.yaml", T_dir, name);
    FILE *f = fopen(to, "r");
    cr_assert(f, "%s", to);
    size_t len = fread(yaml, 1, sizeof yaml - 1, f);
    yaml[len] = 0;
    fclose(f);
    return yaml;
}

/* Judges every solution of package NAME with judgectl judge --problem DIR
 * (the package unchanged) and checks its verdict and score, and that each
 * test's verdict satisfies the solution's permitted/required lists. */
static void judge_all(const char *name, const char *yaml, const struct expected *want, size_t n, int slot)
{
    char cfg[400], dirp[600], src[700], slot_s[16];
    t_config("A", slot, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    snprintf(dirp, sizeof dirp, "%s/%s", POLYGON_DIR, name);
    snprintf(slot_s, sizeof slot_s, "%d", slot);
    static char out[262144];
    for (size_t i = 0; i < n; i++) {
        snprintf(src, sizeof src, "%s/%s", dirp, want[i].file);
        int rc = t_ctl(out, sizeof out, cfg, "judge", "--problem", dirp, "--lang", want[i].lang, "--slot", slot_s,
                       "--json", src, NULL);
        cr_assert_eq(rc, 0, "%s %s: exit %d\n%s", name, want[i].file, rc, out);
        json_error_t jerr;
        json_t *rep = json_loads(out, 0, &jerr);
        cr_assert(rep, "%s: %s\n%s", want[i].file, jerr.text, out);
        const char *verdict = json_string_value(json_object_get(rep, "verdict"));
        double score = json_number_value(json_object_get(rep, "score"));
        cr_assert(verdict && !strcmp(verdict, want[i].verdict) && fabs(score - want[i].score) < 1e-9,
                  "%s %s: %s %g, expected %s %g\n%s", name, want[i].file, verdict, score, want[i].verdict,
                  want[i].score, out);
        char permitted[200], required[200], language[64];
        entry_of(yaml, want[i].file, permitted, required, language);
        cr_assert_str_eq(language, want[i].lang, "%s: the language of its Polygon type", want[i].file);
        bool met = !required[0];
        json_t *tests = json_object_get(rep, "tests"), *t;
        size_t k;
        json_array_foreach(tests, k, t) {
            const char *v = icpc_verdict(json_string_value(json_object_get(t, "verdict")));
            if (!v)
                continue;
            cr_assert(listed(permitted, v), "%s test %zu: %s not in permitted %s", want[i].file, k + 1, v, permitted);
            met = met || listed(required, v);
        }
        cr_assert(met, "%s: no test with a verdict of required %s\n%s", want[i].file, required, out);
        json_decref(rep);
    }
}

/* Groups with points (complete-group 40 and 60, each-test samples) and
 * dependencies, a testlib checker compiled with files/testlib.h, five
 * solutions in three languages. one.cpp is right on group 2, but wrong on
 * group 1, which group 2 depends on: 0 points, not 60. */
Test(polygon, a_batch_problem_with_groups_is_judged_as_its_tags_say)
{
    static const struct expected want[] = {
        {"solutions/sum.cpp", "cpp", "AC", 100},
        {"solutions/sum.py", "python3", "AC", 100},
        {"solutions/overflow.cpp", "cpp", "WA", 40},
        {"solutions/one.cpp", "cpp", "WA", 0},
        {"solutions/slow.c", "c", "TLE", 40},
    };
    judge_all("sumgroups", submissions_yaml("sumgroups"), want, sizeof want / sizeof *want, SLOT_JUDGE0);
}

/* A testlib interactor (registerInteraction: IN, its result file, the
 * contestant on its stdin and stdout) and std::wcmp on its result file. */
Test(polygon, an_interactive_problem_with_a_testlib_interactor)
{
    static const struct expected want[] = {
        {"solutions/bsearch.cpp", "cpp", "AC", 100},
        {"solutions/bsearch.py", "pypy3", "AC", 100},
        {"solutions/linear.cpp", "cpp", "WA", 0},
    };
    judge_all("guessnum", submissions_yaml("guessnum"), want, sizeof want / sizeof *want, SLOT_JUDGE0 + 2);
}

/* std::rcmp6.cpp as the built-in float checker, epsilon 1e-6. */
Test(polygon, a_std_checker_is_the_builtin_equivalent)
{
    static const struct expected want[] = {
        {"solutions/avg.c", "c", "AC", 100},
        {"solutions/avg.py", "python3", "AC", 100},
        {"solutions/float.c", "c", "AC", 100},
        {"solutions/twodigits.c", "c", "WA", 0},
    };
    judge_all("average", submissions_yaml("average"), want, sizeof want / sizeof *want, SLOT_JUDGE0 + 4);
}

/* push takes the directory as Polygon's Package tab gives it; the stored
 * version keeps problem.xml, statements and the solutions beside the
 * converted problem.yaml. A bad package is refused naming the attribute,
 * and nothing is stored. */
Test(polygon, packages_are_pushed_unchanged_and_bad_ones_not_stored)
{
    char cfg[400], out[16384], p[700];
    t_config("A", SLOT_JUDGE0, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    const char *names[] = {"sumgroups", "guessnum", "average"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", POLYGON_DIR, names[i]);
        int rc = t_ctl(out, sizeof out, cfg, "problem", "push", p, "--name", names[i], "--json", "--slot", SLOT_PUSH,
                       NULL);
        cr_assert_eq(rc, 0, "%s: %s", names[i], out);
        cr_assert(strstr(out, "\"version\":\""), "%s", out);
        cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "show", names[i], "--json", NULL), 0, "%s", out);
        cr_assert(strstr(out, "problem.xml") && strstr(out, "problem.yaml") &&
                  strstr(out, "submissions/submissions.yaml"), "%s", out);
    }
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "show", "sumgroups", "--json", NULL), 0, "%s", out);
    cr_assert(strstr(out, "statements/english/problem.tex"), "statements are kept: %s", out);

    /* a source type no language serves: pushed, the solution kept and said */
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cp -r '%s/sumgroups' '%s/kt' && sed -i 's/type=\"python.3\"/type=\"scala\"/' "
             "'%s/kt/problem.xml'", POLYGON_DIR, T_dir, T_dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(p, sizeof p, "%s/kt", T_dir);
    int rc = t_ctl(out, sizeof out, cfg, "problem", "push", p, "--name", "kt", "--json", "--slot", SLOT_PUSH, NULL);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "problem.xml:72: solution/source@type: warning: 'scala' (solutions/sum.py) is not a "
                          "language"), "%s", out);
    /* a tag Polygon does not have: refused naming it, nothing stored */
    snprintf(cmd, sizeof cmd, "cp -r '%s/sumgroups' '%s/bad' && sed -i 's/tag=\"rejected\"/tag=\"almost\"/' "
             "'%s/bad/problem.xml'", POLYGON_DIR, T_dir, T_dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(p, sizeof p, "%s/bad", T_dir);
    rc = t_ctl(out, sizeof out, cfg, "problem", "push", p, "--name", "bad", "--json", "--slot", SLOT_PUSH, NULL);
    cr_assert_eq(rc, 65, "%s", out);
    cr_assert(strstr(out, "problem.xml:77: solution@tag: 'almost' (solutions/one.cpp) is not a tag of Polygon's"),
              "%s", out);
    cr_assert_neq(t_ctl(out, sizeof out, cfg, "problem", "show", "bad", "--json", NULL), 0, "nothing stored: %s", out);
}

static double score_of(const char *id)
{
    char *s = t_hget(id, "score");
    double v = s ? strtod(s, NULL) : -1;
    free(s);
    return v;
}

/* judged judges the stored (converted) version like any problem; a new
 * push (group 2 no longer depending on group 1) and a rejudge give one.cpp,
 * wrong only on group 1, group 2's 60 points. */
Test(polygon, judged_judges_the_stored_version_and_rejudges_after_a_new_push)
{
    char cfg[400], out[16384], p[700], id[160], v1[80] = "", v2[80] = "";
    t_config("A", SLOT_JUDGE0, NULL, "  native: {languages: [c, cpp], slots: 1}\n", cfg, sizeof cfg);
    snprintf(p, sizeof p, "%s/sumgroups", POLYGON_DIR);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", p, "--name", "sumgroups", "--json", "--slot",
                       SLOT_PUSH, NULL), 0, "%s", out);
    const char *v = strstr(out, "\"version\":\"");
    cr_assert(v, "%s", out);
    snprintf(v1, sizeof v1, "%.64s", v + 11);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    snprintf(p, sizeof p, "%s/sumgroups/solutions/one.cpp", POLYGON_DIR);
    cr_assert_eq(t_submit(cfg, "sumgroups", "cpp", p, NULL, NULL, id, sizeof id), 0, "%s", id);
    cr_assert(t_wait_state(id, "done", 120000), "%s judged", id);
    char *verdict = t_hget(id, "verdict"), *version = t_hget(id, "version");
    cr_assert(verdict && !strcmp(verdict, "WA") && score_of(id) == 0, "%s %g", verdict, score_of(id));
    cr_assert(version && !strcmp(version, v1), "%s", version);
    free(verdict);
    free(version);

    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cp -r '%s/sumgroups' '%s/v2' && sed -i 's|<dependency group=\"1\"/>||' "
             "'%s/v2/problem.xml'", POLYGON_DIR, T_dir, T_dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(p, sizeof p, "%s/v2", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", p, "--name", "sumgroups", "--json", "--slot",
                       SLOT_PUSH, NULL), 0, "%s", out);
    v = strstr(out, "\"version\":\"");
    cr_assert(v, "%s", out);
    snprintf(v2, sizeof v2, "%.64s", v + 11);
    cr_assert_str_neq(v1, v2);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "rejudge", "--problem", "sumgroups", "--json", NULL), 0, "%s", out);
    long long end = t_now_ms() + 120000;
    while (score_of(id) != 60 && t_now_ms() < end)
        t_sleep_ms(100);
    version = t_hget(id, "version");
    cr_assert_eq(score_of(id), 60, "rejudged with v2: %g", score_of(id));
    cr_assert(version && !strcmp(version, v2), "%s", version);
    free(version);
}

/* problem verify (issue 22's) on each package unchanged: every tagged
 * solution earns what its tag allows, and the limit is problem.xml's, never
 * one derived as for an ICPC package that leaves it to the judge. */
Test(polygon, problem_verify_matches_every_tagged_solution)
{
    char cfg[400], work[400];
    t_config("A", SLOT_JUDGE0, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    static char out[262144];
    const char *names[] = {"sumgroups", "guessnum", "average"};
    const int counts[] = {5, 3, 4}, seconds[] = {1, 1, 2};   /* problem.xml's time-limit */
    for (int i = 0; i < 3; i++) {
        char dirp[600], want[100], limit[64];
        snprintf(dirp, sizeof dirp, "%s/%s", POLYGON_DIR, names[i]);
        snprintf(work, sizeof work, "%s/verify-%s", T_dir, names[i]);
        int rc = t_ctl(out, sizeof out, cfg, "problem", "verify", dirp, "--slot", SLOT_PUSH, "--workdir", work, NULL);
        cr_assert_eq(rc, 0, "%s: exit %d\n%s", names[i], rc, out);
        snprintf(want, sizeof want, "%d submissions: %d as expected, 0 mismatches, 0 not judged", counts[i], counts[i]);
        cr_assert(strstr(out, want), "%s: %s", names[i], out);
        snprintf(limit, sizeof limit, "time limit: %d s (the package's)", seconds[i]);
        cr_assert(strstr(out, limit) && !strstr(out, "derived"), "%s: %s", names[i], out);
    }
}
