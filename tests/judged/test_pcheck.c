/* test_pcheck.c - the metadata check of a cached problem copy
 * (judged/daemon/pcheck.c): which nodes it watches, and that each kind of
 * change on disk shows while an untouched copy passes. Files only. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "store.h"

static char dir[64];

static void put(const char *rel, const char *text)
{
    char p[300];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    cr_assert(f, "%s", p);
    fputs(text, f);
    fclose(f);
}

static char *at(const char *rel)
{
    static char p[300];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return p;
}

/* "a/b-d" sorts before "a/b/c" ('-' < '/'): directory a/b must still be
 * watched once, and every directory holding a file too. */
static void package(void)
{
    snprintf(dir, sizeof dir, "/tmp/test-pcheck-XXXXXX");
    cr_assert(mkdtemp(dir));
    put("problem.yaml", "name: x\n");
    put("a/b-d", "1\n");
    put("a/b/c", "2\n");
    put("a/b/e", "3\n");
    put("tests/1.in", "1 2\n");
}

static void cleanup(void)
{
    store_remove_tree(dir);
}

TestSuite(pcheck, .init = package, .fini = cleanup);

struct copy {
    struct store_manifest m;
    struct pnode *nodes;
    size_t n;
};

static void record(struct copy *c)
{
    char err[512];
    cr_assert_eq(store_manifest_from_dir(dir, 0, &c->m, err, sizeof err), 0, "%s", err);
    cr_assert_eq(pcheck_nodes(&c->m, &c->nodes, &c->n), 0);
    cr_assert_eq(pcheck_stat(dir, c->nodes, c->n, true, err, sizeof err), 0, "%s", err);
}

static void release(struct copy *c)
{
    pcheck_free(c->nodes, c->n);
    store_manifest_free(&c->m);
}

/* what the check says now ("" when nothing differs) */
static const char *check(struct copy *c)
{
    static char why[1024];
    why[0] = 0;
    int rc = pcheck_stat(dir, c->nodes, c->n, false, why, sizeof why);
    cr_assert(rc == 0 || rc == 1);
    return rc ? why : "";
}

Test(pcheck, watches_the_copy_every_file_and_every_directory_once)
{
    struct copy c;
    record(&c);
    const char *want[] = {".", "a", "a/b-d", "a/b", "a/b/c", "a/b/e", "problem.yaml", "tests", "tests/1.in"};
    cr_assert_eq(c.n, sizeof want / sizeof *want);
    for (size_t i = 0; i < c.n; i++)
        cr_assert_str_eq(c.nodes[i].rel, want[i], "node %zu", i);
    cr_assert_str_eq(check(&c), "", "an untouched copy passes");
    cr_assert_str_eq(check(&c), "");
    release(&c);
}

Test(pcheck, an_edit_keeping_the_size_shows)
{
    struct copy c;
    record(&c);
    put("tests/1.in", "3 4\n");
    cr_assert(strstr(check(&c), "tests/1.in: "), "%s", check(&c));
    release(&c);
}

Test(pcheck, an_mtime_set_back_by_hand_shows_by_its_ctime)
{
    struct copy c;
    record(&c);
    struct stat st;
    cr_assert_eq(stat(at("a/b/c"), &st), 0);
    put("a/b/c", "9\n");
    struct timespec t[2] = {st.st_atim, st.st_mtim};
    cr_assert_eq(utimensat(AT_FDCWD, at("a/b/c"), t, 0), 0);
    cr_assert_str_eq(check(&c), "a/b/c: ctime changed");
    release(&c);
}

Test(pcheck, a_file_added_removed_or_replaced_shows_in_its_directory)
{
    struct copy c;
    record(&c);
    put("a/b/extra", "x\n");
    cr_assert(strstr(check(&c), "a/b: entries added, removed or renamed"), "%s", check(&c));
    release(&c);

    record(&c);   /* the new state is the recorded one */
    cr_assert_eq(unlink(at("a/b/extra")), 0);
    cr_assert(strstr(check(&c), "a/b: "), "%s", check(&c));
    release(&c);

    record(&c);
    put("a/b-d.new", "1\n");
    cr_assert_eq(rename(at("a/b-d.new"), at("a/b-d")), 0);
    cr_assert(strstr(check(&c), "a: "), "%s", check(&c));
    release(&c);
}

Test(pcheck, a_missing_file_or_directory_shows)
{
    struct copy c;
    record(&c);
    cr_assert_eq(unlink(at("tests/1.in")), 0);
    cr_assert(strstr(check(&c), "tests"), "%s", check(&c));
    release(&c);
    cleanup();
    char why[64];
    cr_assert_eq(pcheck_stat(dir, NULL, 0, false, why, sizeof why), 1, "the copy's directory is gone");
}
