/*
 * test_packages.c - problem packages as untrusted input (issue 15), without
 * a sandbox or a compiler: these also run under ASan + UBSan.
 *
 * Each hostile package is built for real (links, FIFOs, devices, sparse
 * files, huge files, many files) and loaded the way `judgectl problem check`
 * and judging do. What a user checks: it is refused (or loads correctly),
 * the message names the file and says what is wrong with it, the secret's
 * marker appears in no message, and the work done is bounded: counted in
 * bytes read (/proc/self/io), pages touched (minor faults), hash probes or
 * node visits, never by a wall-clock margin.
 */
#include <criterion/criterion.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include "packages.h"
#include "internal.h"
#include "yaml_doc.h"

static char *check(const char *dir, int *count)
{
    char *errors = NULL;
    *count = runner_problem_check(NULL, dir, &errors, NULL);
    return errors;
}

static void drop(char *dir)
{
    remove_dir(dir);
    free(dir);
}

/* ---- links ---- */

Test(links, answer_linked_to_a_root_only_file)
{
    struct secret s = secret_make();
    char *dir = aplusb_package("");
    put_link(dir, "tests/1.out", s.path);
    int count;
    char *e = check(dir, &count);
    cr_assert_eq(count, 1, "%s", e);
    cr_assert(strstr(e, "/tests/1.out:0: package: a symbolic link to '"), "%s", e);
    cr_assert(strstr(e, "which leaves the package"), "%s", e);
    cr_assert_null(strstr(e, s.marker), "%s", e);
    free(e);
    drop(dir);
    secret_free(&s);
}

Test(links, problem_yaml_linked_to_a_root_only_file)
{
    struct secret s = secret_make();
    char *dir = aplusb_package("");
    put_link(dir, "problem.yaml", s.path);
    int count;
    char *e = check(dir, &count);
    cr_assert_geq(count, 1);
    cr_assert(strstr(e, "/problem.yaml:0: package: a symbolic link to '"), "%s", e);
    cr_assert(strstr(e, "/problem.yaml:0: document: a symbolic link on its path leads out"),
              "%s", e);
    cr_assert_null(strstr(e, s.marker), "the target is never parsed: %s", e);
    free(e);
    drop(dir);
    secret_free(&s);
}

Test(links, relative_link_leaving_through_dotdot_and_through_another_link)
{
    struct secret s = secret_make();
    char *dir = aplusb_package("");
    put_file(dir, "tests/2.in", "2 2\n");
    /* ../../ from tests/ is above the package root */
    char *rel = NULL;
    cr_assert(asprintf(&rel, "../..%s", s.path) > 0);
    put_link(dir, "tests/2.out", rel);
    /* a link inside pointing at a link that leaves */
    put_link(dir, "out", s.dir);
    put_file(dir, "tests/3.in", "3 3\n");
    put_link(dir, "tests/3.out", "../out/shadow");
    int count;
    char *e = check(dir, &count);
    cr_assert(strstr(e, "/tests/2.out:0: package: a symbolic link to '../../"), "%s", e);
    cr_assert(strstr(e, "/out:0: package: a symbolic link to '"), "%s", e);
    cr_assert(strstr(e, "/tests/3.out:0: package: a symbolic link to '../out/shadow', which "
                        "leaves the package"), "%s", e);
    cr_assert_null(strstr(e, s.marker), "%s", e);
    free(rel);
    free(e);
    drop(dir);
    secret_free(&s);
}

Test(links, links_inside_the_package_are_fine)
{
    /* ICPC packages link one group's files to another's, and directories */
    char *dir = aplusb_package("");
    put_link(dir, "tests/2.in", "1.in");
    put_file(dir, "data/x.out", "3\n");
    put_link(dir, "tests/2.out", "../data/x.out");
    put_link(dir, "alias", "tests");
    put_link(dir, "self", ".");
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    int rc = rn_problem_load(dir, NULL, &p, &errs);
    char *e = common_errors_join(&errs);
    cr_assert_eq(rc, 0, "%s", e);
    cr_assert_eq(p->test_count, 2);
    cr_assert_str_eq(p->tests[1].answer, "tests/2.out");
    rn_problem_free(p);
    common_errors_free(&errs);
    free(e);
    drop(dir);
}

Test(links, links_to_directories_outside_and_loops)
{
    struct secret s = secret_make();
    char *dir = aplusb_package("tests:\n  - 1\n  - {name: x, input: gen/shadow, output: tests/1.out}\n");
    put_link(dir, "gen", s.dir);
    put_link(dir, "loop", "loop");
    int count;
    char *e = check(dir, &count);
    cr_assert(strstr(e, "/gen:0: package: a symbolic link to '"), "%s", e);
    cr_assert(strstr(e, "/loop:0: package: a symbolic link to 'loop': symbolic links on its "
                        "path loop"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:6: tests: test file gen/shadow (test 'x'): a symbolic link "
                        "on its path leads out of the package"), "%s", e);
    cr_assert_null(strstr(e, s.marker), "%s", e);
    free(e);
    drop(dir);
    secret_free(&s);
}

Test(links, checker_source_and_header_linked_out)
{
    struct secret s = secret_make();
    char *dir = aplusb_package("checker: {type: custom, source: checker.cpp}\n");
    put_link(dir, "checker.cpp", s.path);
    put_link(dir, "testlib.h", s.path);
    int count;
    char *e = check(dir, &count);
    cr_assert(strstr(e, "/checker.cpp:0: package: a symbolic link to '"), "%s", e);
    cr_assert(strstr(e, "/testlib.h:0: package: a symbolic link to '"), "%s", e);
    cr_assert(strstr(e, "problem.yaml:4: checker.source: 'checker.cpp': a symbolic link on its "
                        "path leads out of the package"), "%s", e);
    cr_assert_null(strstr(e, s.marker), "%s", e);
    free(e);
    drop(dir);
    secret_free(&s);
}

Test(links, a_file_swapped_for_a_link_after_the_check_is_refused_at_open)
{
    /* judging opens every file beneath the package root (openat2,
     * RESOLVE_BENEATH): what passed the walk and becomes a link later is
     * still refused, at the open */
    struct secret s = secret_make();
    char *dir = aplusb_package("");
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    cr_assert_eq(rn_problem_load(dir, NULL, &p, &errs), 0);
    put_link(dir, "tests/1.out", s.path);
    put_fifo(dir, "tests/1.in");
    char why[128];
    int root = rn_pkg_root(dir, why, sizeof why);
    cr_assert_geq(root, 0, "%s", why);
    cr_assert_eq(rn_pkg_open(root, p->tests[0].answer, false, NULL, why, sizeof why), -1);
    cr_assert_str_eq(why, "a symbolic link on its path leads out of the package");
    cr_assert_eq(rn_pkg_open(root, p->tests[0].input, false, NULL, why, sizeof why), -1,
                 "and without blocking on the FIFO");
    cr_assert_str_eq(why, "a FIFO (named pipe), not a regular file");
    size_t len;
    cr_assert_null(rn_pkg_read(root, "tests/1.out", 1 << 20, &len, why, sizeof why));
    close(root);
    rn_problem_free(p);
    common_errors_free(&errs);
    drop(dir);
    secret_free(&s);
}

/* ---- not regular files ---- */

Test(special, fifo_as_test_input_is_named_not_unmatched)
{
    char *dir = aplusb_package("");
    put_fifo(dir, "tests/2.in");
    put_file(dir, "tests/2.out", "4\n");
    int count;
    char *e = check(dir, &count);   /* must not block on the FIFO */
    cr_assert_eq(count, 1, "%s", e);
    cr_assert(strstr(e, "/tests/2.in:0: package: a FIFO (named pipe)"), "%s", e);
    cr_assert_null(strstr(e, "no matching"), "%s", e);
    free(e);
    drop(dir);
}

Test(special, link_to_dev_zero_as_test_input)
{
    char *dir = aplusb_package("");
    put_link(dir, "tests/2.in", "/dev/zero");
    put_file(dir, "tests/2.out", "4\n");
    int count;
    char *e = check(dir, &count);
    cr_assert_eq(count, 1, "%s", e);
    cr_assert(strstr(e, "/tests/2.in:0: package: a symbolic link to '/dev/zero', which leaves "
                        "the package"), "%s", e);
    cr_assert_null(strstr(e, "no matching"), "%s", e);
    free(e);
    drop(dir);
}

Test(special, device_socket_and_directory_in_tests)
{
    char *dir = aplusb_package("");
    char *path = NULL;
    cr_assert(asprintf(&path, "%s/tests/2.in", dir) > 0);
    cr_assert_eq(mknod(path, S_IFCHR | 0644, makedev(1, 5)), 0, "mknod (needs root)");
    free(path);
    put_file(dir, "tests/2.out", "4\n");
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s/tests/3.in", dir);
    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    cr_assert_eq(bind(sock, (struct sockaddr *)&sa, sizeof sa), 0);
    close(sock);
    put_file(dir, "tests/3.out", "4\n");
    put_file(dir, "tests/4.in/x", "\n");
    put_file(dir, "tests/4.out", "4\n");
    int count;
    char *e = check(dir, &count);
    cr_assert(strstr(e, "/tests/2.in:0: package: a character device"), "%s", e);
    cr_assert(strstr(e, "/tests/3.in:0: package: a socket"), "%s", e);
    cr_assert(strstr(e, "/tests/4.in:0: tests: a directory, not a test file"), "%s", e);
    cr_assert_eq(count, 3, "%s", e);
    free(e);
    drop(dir);
}

/* ---- the answer costs what the output and the first difference cost ---- */

static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

Test(checkers, sparse_2gib_answer_reads_a_few_pages)
{
    char *dir = scratch_dir("sparse");
    put_sparse(dir, "nul.ans", "", 2LL << 30);            /* 2 GiB of NUL bytes */
    put_sparse(dir, "three.ans", "3\n", 2LL << 30);       /* "3\n", then NULs */
    put_file(dir, "out", "3\n");
    char out[512], nul[512], three[512];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(nul, sizeof nul, "%s/nul.ans", dir);
    snprintf(three, sizeof three, "%s/three.ans", dir);
    const enum rn_checker_type types[] = {RN_CHECK_EXACT, RN_CHECK_LINES, RN_CHECK_TOKENS,
                                          RN_CHECK_FLOAT};
    for (size_t t = 0; t < 4; t++)
        for (int which = 0; which < 2; which++) {
            struct rn_check res;
            char err[256];
            long before = minor_faults();
            int rc = rn_check_files(types[t], NULL, out, which ? three : nul, &res, err,
                                    sizeof err);
            long touched = minor_faults() - before;
            cr_assert_eq(rc, 0, "%s", err);
            cr_assert_eq(res.verdict, RUNNER_WA, "checker %zu/%d: %s", t, which, res.message);
            /* a full read is 524288 pages; the first difference is on the first */
            cr_assert_lt(touched, 256, "checker %zu/%d touched %ld pages", t, which, touched);
            cr_assert(strstr(res.message, "\\x00"), "NUL bytes are escaped: %s", res.message);
        }
    drop(dir);
}

Test(checkers, quoted_output_is_escaped_and_bounded)
{
    struct rn_check res;
    const char out[] = "\x1b[31mred\x01";
    char ans[300];
    memset(ans, 'a', sizeof ans);
    rn_check_buffers(RN_CHECK_TOKENS, NULL, out, sizeof out - 1, ans, sizeof ans, &res);
    cr_assert_eq(res.verdict, RUNNER_WA);
    cr_assert_null(strchr(res.message, '\x1b'), "%s", res.message);
    cr_assert(strstr(res.message, "\\x1b[31mred\\x01"), "%s", res.message);
    cr_assert(strstr(res.message, "aaaa...'"), "cut: %s", res.message);
    cr_assert_lt(strlen(res.message), 160, "%s", res.message);
}

/* ---- big and many ---- */

static unsigned long long bytes_read(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    unsigned long long rchar = 0;
    cr_assert(f && fscanf(f, "rchar: %llu", &rchar) == 1);
    fclose(f);
    return rchar;
}

Test(big, problem_yaml_of_50mb_is_refused_unread)
{
    char *dir = aplusb_package("");
    char *path = NULL;
    cr_assert(asprintf(&path, "%s/problem.yaml", dir) > 0);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 5000000; i++)          /* 50 MB of "kNNNNNNN: 1\n" */
        fprintf(f, "k%07d: 1\n", i % 100);   /* many duplicates: quadratic before */
    fclose(f);
    unsigned long long before = bytes_read();
    int count;
    char *e = check(dir, &count);
    unsigned long long read = bytes_read() - before;
    cr_assert_eq(count, 1, "%s", e);
    cr_assert(strstr(e, "/problem.yaml:0: document: larger than the limit of 1048576 bytes "
                        "(the yaml_size limit)"), "%s", e);
    cr_assert_lt(read, 64 * 1024, "read %llu bytes of a 50 MB file", read);
    free(e);
    free(path);
    drop(dir);
}

/* n keys "k0: 1" ... (each distinct, or all the same): the duplicate check
 * probes its hash set a small constant number of times per key */
static void keys_cost_linear(bool same)
{
    size_t n = 60000;
    char *text = malloc(n * 16), *p = text;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "k%zu: 1\n", same ? (size_t)7 : i);
    struct common_errors errs = {0};
    struct ydoc y;
    cr_assert_eq(ydoc_parse(&y, text, (size_t)(p - text), "x.yaml", &errs), 0);
    ydoc_mapping(&y, ydoc_root(&y), "document");
    cr_assert_lt(y.key_probes, 4 * n, "%zu probes for %zu keys", y.key_probes, n);
    cr_assert_eq(errs.count + errs.dropped, same ? n - 1 : 0);
    cr_assert_eq(errs.count, same ? COMMON_ERRORS_MAX : 0, "messages are capped");
    char *all = common_errors_join(&errs);
    if (same)
        cr_assert(strstr(all, "... and 59799 more errors"), "%.300s", all);
    free(all);
    ydoc_free(&y);
    common_errors_free(&errs);
    free(text);
}

Test(big, duplicate_keys_cost_linear_time) { keys_cost_linear(true); }
Test(big, distinct_keys_cost_linear_time) { keys_cost_linear(false); }

Test(big, aliases_cannot_multiply_the_work)
{
    /* one subtask of 4000 test items, reached through an alias 1000 times:
     * 4 million items from 20 KB of YAML */
    char *dir = aplusb_package("");
    char *path = NULL;
    cr_assert(asprintf(&path, "%s/problem.yaml", dir) > 0);
    FILE *f = fopen(path, "w");
    fprintf(f, PKG_BASE "x: &s {name: s, points: 1, tests: [");
    for (int i = 0; i < 4000; i++)
        fprintf(f, "%s1", i ? ", " : "");
    fprintf(f, "]}\nsubtasks: [");
    for (int i = 0; i < 1000; i++)
        fprintf(f, "%s*s", i ? ", " : "");
    fprintf(f, "]\n");
    fclose(f);
    int count;
    char *e = check(dir, &count);
    cr_assert(strstr(e, "problem.yaml:1: document: aliases make it too large to read (more "
                        "than "), "%s", e);
    free(e);
    free(path);
    drop(dir);
}

Test(big, tiny_tests_100000, .timeout = 300)
{
    char *dir = scratch_dir("many");
    put_file(dir, "problem.yaml", PKG_BASE "subtasks:\n  - {name: all, points: 100, "
             "tests: [1-100000, 1-100000, 50000, 1-100000]}\n");
    put_file(dir, "tests/1.in", "1\n");
    char path[512];
    for (int i = 1; i <= 100000; i++) {
        snprintf(path, sizeof path, "%s/tests/%d.in", dir, i);
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        cr_assert(fd >= 0);
        close(fd);
        snprintf(path, sizeof path, "%s/tests/%d.out", dir, i);
        fd = open(path, O_WRONLY | O_CREAT, 0644);
        cr_assert(fd >= 0);
        close(fd);
    }
    /* the defaults refuse it, naming the limit, without reading it all */
    int count;
    char *e = check(dir, &count);
    cr_assert_eq(count, 1, "%s", e);
    cr_assert(strstr(e, "package: more than 50000 files and directories (the package_files "
                        "limit)"), "%s", e);
    free(e);
    /* with the limits raised it loads, each test once in the subtask */
    struct runner_limits lim = {.package_files = 300000, .tests = 100000};
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    int rc = rn_problem_load(dir, &lim, &p, &errs);
    e = common_errors_join(&errs);
    cr_assert_eq(rc, 0, "%s", e);
    cr_assert_eq(p->test_count, 100000);
    cr_assert_str_eq(p->tests[99999].name, "100000", "natural order");
    cr_assert_eq(p->subtasks[0].test_count, 100000, "listed ranges are deduplicated");
    rn_problem_free(p);
    common_errors_free(&errs);
    free(e);
    /* one test fewer allowed: refused, naming the limit */
    lim.tests = 99999;
    rc = rn_problem_load(dir, &lim, &p, &errs);
    e = common_errors_join(&errs);
    cr_assert_eq(rc, -1);
    cr_assert(strstr(e, "tests: more than 99999 tests (the tests limit)"), "%s", e);
    common_errors_free(&errs);
    free(e);
    drop(dir);
}

Test(big, package_size_limit)
{
    char *dir = aplusb_package("");
    put_sparse(dir, "tests/2.out", "4\n", 3LL << 30);
    put_file(dir, "tests/2.in", "2 2\n");
    struct runner_limits lim = {.package_size = 2ULL << 30};
    struct common_errors errs = {0};
    struct rn_problem *p = NULL;
    int rc = rn_problem_load(dir, &lim, &p, &errs);
    char *e = common_errors_join(&errs);
    cr_assert_eq(rc, -1);
    cr_assert(strstr(e, "package: more than 2147483648 bytes of files (the package_size limit)"),
              "%s", e);
    free(e);
    common_errors_free(&errs);
    drop(dir);
}

/* ---- messages quote package content bounded and escaped ---- */

Test(messages, scalars_are_escaped_and_bounded)
{
    /* a 900-byte key (YAML's implicit keys stop at 1024) and a 3000-byte
     * value, with terminal escapes written as YAML escapes */
    char *dir = scratch_dir("quote");
    char ks[3001], kk[901];
    memset(ks, 'K', 3000);
    ks[3000] = '\0';
    memcpy(kk, ks, 900);
    kk[900] = '\0';
    put_file(dir, "problem.yaml", PKG_BASE "\"\\x1b[2J\\x07%s\": 1\n"
             "checker: \"\\x01\\x1b[2J%s\"\n", kk, ks);
    put_file(dir, "tests/1.in", "1\n");
    put_file(dir, "tests/1.out", "1\n");
    int count;
    char *e = check(dir, &count);
    cr_assert_eq(count, 2, "%s", e);
    for (const char *c = e; *c; c++)
        cr_assert(*c == '\n' || (*c >= 0x20 && *c != 0x7f), "raw control byte in: %s", e);
    cr_assert(strstr(e, ":4: \\x1b[2J\\x07KKK"), "%s", e);
    cr_assert(strstr(e, ":5: checker: unknown checker '\\x01\\x1b[2JKKK"), "%s", e);
    /* two quotes cut to ~80 bytes, two paths and the known keys' list (which
     * grows with the format: communication's keys took it past 600) */
    cr_assert_lt(strlen(e), 700, "%s", e);
    free(e);
    drop(dir);
}

/* ---- language files ---- */

Test(languages, compile_given_twice_is_an_error_and_does_not_leak)
{
    const char *text = "id: c\nname: C\nversion: [gcc, --version]\nsource: main.c\n"
                       "compile: [gcc, -o, main, main.c]\ncompile: [[gcc, a], [gcc, b]]\n"
                       "run: [./main]\npool: native\n";
    struct common_errors errs = {0};
    struct rn_language *l = NULL;
    cr_assert_eq(rn_language_parse(text, strlen(text), "c.yaml", &l, &errs), -1);
    char *e = common_errors_join(&errs);
    cr_assert(strstr(e, "c.yaml:6: compile: given twice (also on line 5)"), "%s", e);
    free(e);
    common_errors_free(&errs);
}

Test(languages, size_limit_and_not_a_regular_file)
{
    char *dir = scratch_dir("langs");
    put_sparse(dir, "big.yaml", "id: big\n", 2 << 20);
    put_fifo(dir, "fifo.yaml");
    char big[512], fifo[512];
    snprintf(big, sizeof big, "%s/big.yaml", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo.yaml", dir);
    struct common_errors errs = {0};
    struct rn_language *l = NULL;
    cr_assert_eq(rn_language_load(big, &l, &errs), -1);
    cr_assert_eq(rn_language_load(fifo, &l, &errs), -1);
    char *e = common_errors_join(&errs);
    cr_assert(strstr(e, "big.yaml:0: document: larger than the limit of 1048576 bytes (the "
                        "yaml_size limit)"), "%s", e);
    cr_assert(strstr(e, "fifo.yaml:0: document: a FIFO (named pipe), not a regular file"), "%s", e);
    free(e);
    common_errors_free(&errs);
    drop(dir);
}

/* ---- the hash set ---- */

Test(strset, probes_stay_linear)
{
    struct common_strset s = {0};
    size_t n = 200000;
    char **keys = calloc(n, sizeof *keys);
    for (size_t i = 0; i < n; i++) {
        cr_assert(asprintf(&keys[i], "t%zu", i) > 0);
        cr_assert_null(common_strset_put(&s, keys[i], keys[i]));
    }
    cr_assert_eq(common_strset_put(&s, "t42", "x"), keys[42], "the earlier one stays");
    cr_assert_eq(common_strset_get(&s, "t199999"), keys[199999]);
    cr_assert_null(common_strset_get(&s, "t200000"));
    cr_assert_lt(s.probes, 3 * n, "%zu probes", s.probes);
    common_strset_free(&s);
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
}
