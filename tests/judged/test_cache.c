/* test_cache.c - a host never judges from a cached problem version that
 * differs from its manifest (issue 22): a test input changed on disk after
 * the fetch, keeping its size or not, is found at the next use and fetched
 * again (logged, counted in judged_problem_cache_refetch_total); a touched
 * mtime costs a hash and no fetch; a changed copy that cannot be fetched
 * again is an infrastructure failure, never a verdict; the scheduled rehash
 * runs. Real redis-server, `judgectl problem push`, judged and sandboxes;
 * slots 160..161 (host) and 170..171 (push validation): no other suite
 * uses 160..179. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#pragma GCC diagnostic ignored "-Wunused-function" /* harness.h has more than this suite uses */

#include "harness.h"

#define SLOT 160
#define SLOT_PUSH "170"
#define ONE_C "  native: {languages: [c], slots: 1}\n"

static void setup(void)
{
    t_setup(1);
}

TestSuite(cache, .init = setup, .fini = t_teardown, .timeout = 300);

static bool contains(const char *hay, const char *needle)
{
    return hay && strstr(hay, needle) != NULL;
}

/* An A+B package under T_dir/DIR: answers a+b, three tests; pad bytes of
 * statement make another version of the same problem. */
static void make_adder(const char *dir, size_t pad)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", T_dir, dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/%s/problem.yaml", T_dir, dir);
    t_write(p, "name: adder\ntime_limit: 2s\nmemory_limit: 256M\nchecker: tokens\n");
    snprintf(p, sizeof p, "%s/%s/tests", T_dir, dir);
    mkdir(p, 0755);
    for (int i = 1; i <= 3; i++) {
        snprintf(p, sizeof p, "%s/%s/tests/%d.in", T_dir, dir, i);
        t_write(p, "%d %d\n", i, 10 * i);
        snprintf(p, sizeof p, "%s/%s/tests/%d.out", T_dir, dir, i);
        t_write(p, "%d\n", 11 * i);
    }
    snprintf(p, sizeof p, "%s/%s/statement.txt", T_dir, dir);
    t_write(p, "%*s\n", (int)pad, "");
}

static void make_solution(void)
{
    char p[600];
    snprintf(p, sizeof p, "%s/sum.c", T_dir);
    t_write(p, "#include <stdio.h>\nint main(void){long long a,b;if(scanf(\"%%lld %%lld\",&a,&b)!=2)return 1;"
               "printf(\"%%lld\\n\",a+b);return 0;}\n");
}

/* judgectl problem push T_dir/DIR --name adder; the version in ver */
static void push(const char *cfg, const char *dir, char *ver)
{
    char p[600], out[8192];
    snprintf(p, sizeof p, "%s/%s", T_dir, dir);
    int rc = t_ctl(out, sizeof out, cfg, "problem", "push", p, "--name", "adder", "--json", "--slot", SLOT_PUSH,
                   NULL);
    cr_assert_eq(rc, 0, "push %s: %s", dir, out);
    const char *v = strstr(out, "\"version\":\"");
    cr_assert(v, "%s", out);
    snprintf(ver, 65, "%.64s", v + 11);
}

static int log_count(const char *name, const char *needle)
{
    char *log = t_judged_log(name);
    int n = 0;
    for (const char *p = log; (p = strstr(p, needle)); p++)
        n++;
    free(log);
    return n;
}

static void field(const char *id, const char *name, char *buf, size_t len)
{
    char *v = t_hget(id, name);
    snprintf(buf, len, "%s", v ? v : "");
    free(v);
}

static void submit(const char *cfg, char *id)
{
    char p[600];
    snprintf(p, sizeof p, "%s/sum.c", T_dir);
    cr_assert_eq(t_submit(cfg, "adder", "c", p, NULL, NULL, id, 160), 0, "submit: %s", id);
}

/* submits sum.c and expects verdict with version */
static void judge(const char *cfg, const char *verdict, const char *version)
{
    char id[160], v[32], pv[80], rep[4096];
    submit(cfg, id);
    cr_assert(t_wait_state(id, "done", 60000), "%s judged", id);
    field(id, "verdict", v, sizeof v);
    field(id, "version", pv, sizeof pv);
    field(id, "report", rep, sizeof rep);
    cr_assert_str_eq(v, verdict, "%s: %s (report %s)", id, v, rep);
    cr_assert_str_eq(pv, version);
}

/* ------------------------------------------------ metrics (as test_ops) */

/* judged_problem_cache_refetch_total{reason="REASON"} as host NAME serves
 * it (-1: absent). The counter is added before the job's verdict is
 * published, so a scrape after the verdict sees it. */
static double refetches(const char *name, const char *reason)
{
    static char text[1 << 18];
    int port = t_metrics_port(name);
    cr_assert(port > 0, "no metrics port in the log");
    cr_assert_eq(t_http_get(port, "/metrics", text, sizeof text), 200);
    char series[200];
    snprintf(series, sizeof series, "judged_problem_cache_refetch_total{reason=\"%s\"} ", reason);
    const char *l = strstr(text, series);
    return l ? atof(l + strlen(series)) : -1;
}

static char *cached(const char *host, const char *version, const char *file)
{
    static char p[800];
    snprintf(p, sizeof p, "%s/state-%s/problems/%s/%s", T_dir, host, version, file);
    return p;
}

/* ------------------------------------------------------------------ tests */

/* The case: a correct solution judged again after a cached input
 * changed on disk. Without the check, each change below gives WA. */
Test(cache, a_changed_test_input_is_fetched_again_before_it_is_judged_from)
{
    char cfg[400], v1[65];
    t_config("A", SLOT, "metrics_listen: 127.0.0.1:0\n", ONE_C, cfg, sizeof cfg);
    make_adder("p", 0);
    make_solution();
    push(cfg, "p", v1);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    judge(cfg, "AC", v1);
    cr_assert_eq(log_count("A", "problem cache: fetched version"), 1);

    /* the same size: only the metadata can tell (a+b is now 23, not 22) */
    t_write(cached("A", v1, "tests/2.in"), "3 20\n");
    judge(cfg, "AC", v1);
    cr_assert_eq(log_count("A", "problem cache: fetched version"), 2, "fetched again");
    cr_assert_eq(log_count("A", "refetch reason=changed"), 1);
    cr_assert_eq(refetches("A", "changed"), 1);

    /* another size */
    t_write(cached("A", v1, "tests/1.in"), "1 100\n");
    judge(cfg, "AC", v1);
    cr_assert_eq(log_count("A", "problem cache: fetched version"), 3, "fetched again");
    cr_assert_eq(refetches("A", "changed"), 2);

    /* a file replaced by another (a new inode), content and times kept */
    char tmp[900];
    snprintf(tmp, sizeof tmp, "%s.new", cached("A", v1, "tests/3.out"));
    t_write(tmp, "34\n");
    struct stat st;
    cr_assert_eq(stat(cached("A", v1, "tests/3.out"), &st), 0);
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    cr_assert_eq(utimensat(AT_FDCWD, tmp, times, 0), 0);
    cr_assert_eq(rename(tmp, cached("A", v1, "tests/3.out")), 0);
    judge(cfg, "AC", v1);
    cr_assert_eq(log_count("A", "problem cache: fetched version"), 4, "fetched again");
    cr_assert_eq(refetches("A", "changed"), 3);

    /* an mtime touched, content kept: hashed, nothing fetched */
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
    cr_assert_eq(utimensat(AT_FDCWD, cached("A", v1, "tests/3.in"), old, 0), 0);
    judge(cfg, "AC", v1);
    cr_assert_eq(log_count("A", "content intact, nothing fetched"), 1, "hashed once");
    cr_assert_eq(log_count("A", "problem cache: fetched version"), 4, "not fetched for a touch");
    cr_assert_eq(refetches("A", "changed"), 3);

    /* and then the copy is trusted again without a hash */
    judge(cfg, "AC", v1);
    cr_assert_eq(log_count("A", "hashing it"), 4, "no check beyond the metadata when nothing changed");
    cr_assert_eq(log_count("A", "hashed on schedule"), 0);
    cr_assert_eq(refetches("A", "restart"), 0);
    cr_assert_eq(refetches("A", "rehash"), 0);
}

/* A changed copy whose version the store no longer holds: hashing or
 * fetching it needs the manifest, so the job is an infrastructure failure
 * (retried, then dead-lettered IE), never judged from the changed copy. */
Test(cache, a_changed_copy_that_cannot_be_fetched_again_is_never_judged_from)
{
    char cfg[400], v1[65], v2[65], id[160], out[4096];
    t_config("A", SLOT, "max_attempts: 2\n", ONE_C, cfg, sizeof cfg);
    make_adder("p1", 0);
    make_adder("p2", 10);
    make_solution();
    push(cfg, "p1", v1);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    judge(cfg, "AC", v1);

    /* admitted with v1, which is removed before the host takes the job */
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "pause", "native", NULL), 0, "%s", out);
    submit(cfg, id);
    t_write(cached("A", v1, "tests/2.in"), "3 20\n");
    push(cfg, "p2", v2);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "rm", "adder", "--version", v1, NULL), 0, "%s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "resume", "native", NULL), 0, "%s", out);

    cr_assert(t_wait_state(id, "done", 60000));
    char v[32], dead[8], hist[4096];
    field(id, "verdict", v, sizeof v);
    field(id, "dead", dead, sizeof dead);
    field(id, "history", hist, sizeof hist);
    cr_assert_str_eq(v, "IE", "never a verdict from the changed copy");
    cr_assert_str_eq(dead, "1", "dead-lettered after its retries");
    cr_assert(contains(hist, "unavailable"), "%s", hist);
    cr_assert_eq(log_count("A", "tests/2.in: mtime changed: hashing it"), 2, "each attempt checked it");

    /* the current version is judged as ever */
    judge(cfg, "AC", v2);
}

/* problem_cache_rehash: a version in use is hashed again once it is due,
 * even when its metadata shows no change (what bit rot would leave). */
Test(cache, a_version_in_use_is_hashed_again_on_schedule)
{
    char cfg[400], v1[65];
    t_config("A", SLOT, "problem_cache_rehash: 1s\n", ONE_C, cfg, sizeof cfg);
    make_adder("p", 0);
    make_solution();
    push(cfg, "p", v1);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    judge(cfg, "AC", v1);
    cr_assert_eq(log_count("A", "hashed on schedule"), 0, "just fetched (and hashed)");
    t_sleep_ms(1100);
    judge(cfg, "AC", v1);
    cr_assert_eq(log_count("A", "hashed on schedule"), 1);
    cr_assert_eq(log_count("A", "problem cache: fetched version"), 1, "intact: nothing fetched");
}

/* issue 37: a helper's build that runs out of its wall clock with CPU time
 * left (a busy host) is an infrastructure failure: retried with backoff and
 * counted (judged_infrastructure_failures_total), never IE for the
 * problem; only when every attempt starves is it dead-lettered, IE with the
 * reason. Here the build waits (sleep) past a helper_wall_time of 1 s. */
Test(cache, a_starved_helper_build_is_retried_and_counted_not_ie)
{
    char cfg[400], id[160], p[600];
    t_config("A", SLOT, "metrics_listen: 127.0.0.1:0\nmax_attempts: 2\n"
             "package_limits: {helper_wall_time: 1s}\n", ONE_C, cfg, sizeof cfg);
    snprintf(p, sizeof p, "%s/problems/starved", T_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/problems/starved/problem.yaml", T_dir);
    t_write(p, "name: starved\ntime_limit: 1s\nmemory_limit: 64M\nchecker: {type: custom, source: chk}\n");
    snprintf(p, sizeof p, "%s/problems/starved/chk", T_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/problems/starved/chk/build", T_dir);
    t_write(p, "# %d\nsleep 5\necho 'exit 0' > run\n", (int)getpid());
    snprintf(p, sizeof p, "%s/problems/starved/tests", T_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/problems/starved/tests/1.in", T_dir);
    t_write(p, "1 2\n");
    snprintf(p, sizeof p, "%s/problems/starved/tests/1.out", T_dir);
    t_write(p, "3\n");
    make_solution();
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    snprintf(p, sizeof p, "%s/sum.c", T_dir);
    cr_assert_eq(t_submit(cfg, "starved", "c", p, NULL, NULL, id, sizeof id), 0, "submit: %s", id);
    cr_assert(t_wait_state(id, "done", 60000), "%s judged", id);
    char v[32], dead[8], hist[4096];
    field(id, "verdict", v, sizeof v);
    field(id, "dead", dead, sizeof dead);
    field(id, "history", hist, sizeof hist);
    cr_assert_str_eq(dead, "1", "IE only after every attempt starved (verdict %s): %s", v, hist);
    cr_assert(contains(hist, "helper_wall_time") && contains(hist, "CPU time left"), "%s", hist);
    cr_assert_eq(log_count("A", "infrastructure failure (attempt 1)"), 1, "retried once");
    static char text[1 << 18];
    cr_assert_eq(t_http_get(t_metrics_port("A"), "/metrics", text, sizeof text), 200);
    const char *l = strstr(text, "judged_infrastructure_failures_total{pool=\"native\"} ");
    cr_assert(l && atof(l + strlen("judged_infrastructure_failures_total{pool=\"native\"} ")) >= 2, "%s",
              l ? l : "no series");
}
