/* test_store_unit.c - the problem store's file side without Redis (label
 * unit, also under ASan + UBSan): manifests and versions, parsing a
 * manifest from Redis (untrusted), verifying a copy, unpacking archives
 * that try to leave the package, the ICPC conversion's errors, the JSON
 * shapes judgectl and judge-api both print. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

static char dir[64];

static void put(const char *rel, const char *text)
{
    char p[2600];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    cr_assert(f, "%s", p);
    fputs(text, f);
    fclose(f);
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/store-unit-XXXXXX");
    cr_assert(mkdtemp(dir));
}

static void teardown(void)
{
    store_remove_tree(dir);
}

TestSuite(store_unit, .init = setup, .fini = teardown);

static void pkg(const char *sub, const char *answer)
{
    char p[200];
    snprintf(p, sizeof p, "%s/problem.yaml", sub);
    put(p, "name: x\n");
    snprintf(p, sizeof p, "%s/tests/1.in", sub);
    put(p, "1 2\n");
    snprintf(p, sizeof p, "%s/tests/1.out", sub);
    put(p, answer);
}

Test(store_unit, a_version_is_the_hash_of_the_sorted_manifest)
{
    char a[200], b[200], err[512];
    pkg("a", "3\n");
    pkg("b", "3\n");
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    struct store_manifest ma, mb;
    cr_assert_eq(store_manifest_from_dir(a, 0, &ma, err, sizeof err), 0, "%s", err);
    cr_assert_eq(store_manifest_from_dir(b, 0, &mb, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(ma.version, mb.version, "same content, same version wherever it lies");
    cr_assert_eq(ma.n, 3);
    cr_assert_str_eq(ma.files[0].path, "problem.yaml");
    cr_assert_str_eq(ma.files[2].path, "tests/1.out");
    size_t len;
    char *text = store_manifest_text(&ma, &len);
    struct store_manifest mp;
    cr_assert_eq(store_manifest_parse(text, len, ma.version, &mp, err, sizeof err), 0, "%s", err);
    cr_assert_eq(mp.n, 3);
    cr_assert_eq(mp.total, ma.total);
    struct store_manifest bad;
    text[0] = text[0] == 'a' ? 'b' : 'a';
    cr_assert_neq(store_manifest_parse(text, len, ma.version, &bad, err, sizeof err), 0);
    cr_assert(strstr(err, "corrupt"), "%s", err);
    free(text);
    cr_assert_eq(store_verify_dir(b, &mp, err, sizeof err), 0, "%s", err);
    put("b/tests/1.out", "4\n");
    cr_assert_neq(store_verify_dir(b, &mp, err, sizeof err), 0);
    cr_assert(strstr(err, "tests/1.out"), "%s", err);
    put("b/tests/1.out", "3\n");
    put("b/extra", "x");
    cr_assert_neq(store_verify_dir(b, &mp, err, sizeof err), 0, "an added file is a difference too");
    pkg("c", "4\n");
    struct store_manifest mc;
    snprintf(a, sizeof a, "%s/c", dir);
    cr_assert_eq(store_manifest_from_dir(a, 0, &mc, err, sizeof err), 0, "%s", err);
    cr_assert_str_neq(mc.version, ma.version, "another answer, another version");
    store_manifest_free(&ma);
    store_manifest_free(&mb);
    store_manifest_free(&mp);
    store_manifest_free(&mc);
}

/* judgectl problem show/versions --json and GET /v1/problems/NAME print
 * these two arrays; their fields are what scripts read */
Test(store_unit, versions_and_files_json_name_every_field)
{
    char a[200], err[512];
    pkg("a", "3\n");
    snprintf(a, sizeof a, "%s/a", dir);
    struct store_manifest m;
    cr_assert_eq(store_manifest_from_dir(a, 0, &m, err, sizeof err), 0, "%s", err);
    json_t *files = store_files_json(&m);
    cr_assert_eq(json_array_size(files), 3);
    json_t *f = json_array_get(files, 2);
    cr_assert_str_eq(json_string_value(json_object_get(f, "path")), "tests/1.out");
    cr_assert_eq(json_integer_value(json_object_get(f, "size")), 2);
    cr_assert_str_eq(json_string_value(json_object_get(f, "sha256")), m.files[2].sha);
    json_decref(files);

    struct store_version_info v[2] = {{.time = 2000, .current = true, .size = 9, .files = 3},
                                      {.time = 1000, .current = false, .size = 7, .files = 2}};
    snprintf(v[0].version, sizeof v[0].version, "%s", m.version);
    memset(v[1].version, 'a', 64);
    struct store_problem_info p = {.versions = v, .nversions = 2};
    json_t *vs = store_versions_json(&p);
    cr_assert_eq(json_array_size(vs), 2);
    json_t *first = json_array_get(vs, 0), *second = json_array_get(vs, 1);
    cr_assert_str_eq(json_string_value(json_object_get(first, "version")), m.version);
    cr_assert_eq(json_integer_value(json_object_get(first, "time")), 2000);
    cr_assert(json_is_true(json_object_get(first, "current")));
    cr_assert_eq(json_integer_value(json_object_get(first, "size")), 9);
    cr_assert_eq(json_integer_value(json_object_get(first, "files")), 3);
    cr_assert(json_is_false(json_object_get(second, "current")));
    cr_assert_eq(json_object_size(second), 5, "version, time, current, size, files: nothing else");
    json_decref(vs);
    p.nversions = 0;
    vs = store_versions_json(&p);
    cr_assert(json_is_array(vs) && json_array_size(vs) == 0, "no versions: an empty array, not null");
    json_decref(vs);
    store_manifest_free(&m);
}

Test(store_unit, a_manifest_from_redis_is_not_trusted)
{
    const char *bad[] = {
        "zz 3 a\n",                                                                 /* not a hash */
        "0000000000000000000000000000000000000000000000000000000000000000 3 ../x\n", /* leaves the dir */
        "0000000000000000000000000000000000000000000000000000000000000000 3 /etc/x\n",
        "0000000000000000000000000000000000000000000000000000000000000000 3 a//b\n",
        ("0000000000000000000000000000000000000000000000000000000000000000 3 b\n"
         "0000000000000000000000000000000000000000000000000000000000000000 3 a\n"), /* unsorted */
        "0000000000000000000000000000000000000000000000000000000000000000 3 a",    /* truncated */
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct store_manifest m;
        char err[256];
        cr_assert_neq(store_manifest_parse(bad[i], strlen(bad[i]), NULL, &m, err, sizeof err), 0, "%zu", i);
    }
}

Test(store_unit, links_and_special_files_are_refused_and_sizes_bounded)
{
    char a[200], p[300], err[512];
    pkg("a", "3\n");
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(p, sizeof p, "%s/a/tests/2.in", dir);
    cr_assert_eq(symlink("/etc/passwd", p), 0);
    struct store_manifest m;
    cr_assert_neq(store_manifest_from_dir(a, 0, &m, err, sizeof err), 0);
    cr_assert(strstr(err, "tests/2.in: a symbolic link"), "%s", err);
    unlink(p);
    cr_assert_eq(mkfifo(p, 0644), 0);
    cr_assert_neq(store_manifest_from_dir(a, 0, &m, err, sizeof err), 0);
    cr_assert(strstr(err, "not a regular file"), "%s", err);
    unlink(p);
    cr_assert_neq(store_manifest_from_dir(a, 10, &m, err, sizeof err), 0);
    cr_assert(strstr(err, "max_package"), "%s", err);
    snprintf(p, sizeof p, "%s/copy", dir);
    cr_assert_eq(store_copy_tree(a, p, 0, err, sizeof err), 0, "%s", err);
    /* a name in Latin-1 (a zip made on Windows): converters write names
     * into YAML and the API into JSON, which take only UTF-8 */
    snprintf(p, sizeof p, "%s/a/tests/se\xf1" "al.in", dir);
    FILE *f = fopen(p, "w");
    cr_assert(f);
    fclose(f);
    cr_assert_neq(store_manifest_from_dir(a, 0, &m, err, sizeof err), 0);
    cr_assert(strstr(err, "tests/se\xf1" "al.in: a name the store cannot keep (not UTF-8"), "%s", err);
    unlink(p);
}

/* path is a regular file (not a link) holding exactly text */
static bool regular_with(const char *path, const char *text)
{
    struct stat st;
    if (lstat(path, &st) || !S_ISREG(st.st_mode))
        return false;
    FILE *f = fopen(path, "r");
    char buf[256];
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    return !strcmp(buf, text);
}

static void tar(const char *args)
{
    char cmd[800];
    snprintf(cmd, sizeof cmd, "cd '%s' && tar %s 2>/dev/null", dir, args);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

Test(store_unit, archives_cannot_leave_the_package)
{
    char arc[200], out[200], err[512], p[300];
    pkg("a", "3\n");
    tar("czf ok.tgz a");
    snprintf(arc, sizeof arc, "%s/ok.tgz", dir);
    snprintf(out, sizeof out, "%s/ok", dir);
    cr_assert_eq(store_unpack(arc, out, 0, err, sizeof err), 0, "%s", err);
    snprintf(p, sizeof p, "%s/ok/tests/1.out", dir);
    struct stat st;
    cr_assert_eq(stat(p, &st), 0, "the top-level directory is dropped");
    cr_assert_eq(stat(out, &st), 0);
    mode_t mask = umask(0);
    umask(mask);
    cr_assert_eq(st.st_mode & 07777, 0755 & ~mask, "the package directory is readable as before: %o",
                 (unsigned)(st.st_mode & 07777));

    tar("czf dots.tgz --transform 's,^a,../../a,' a");
    snprintf(arc, sizeof arc, "%s/dots.tgz", dir);
    snprintf(out, sizeof out, "%s/dots", dir);
    cr_assert_neq(store_unpack(arc, out, 0, err, sizeof err), 0);
    cr_assert(strstr(err, "'..'"), "%s", err);
    cr_assert_neq(stat(out, &st), 0, "nothing left behind");

    tar("czf abs.tgz -P --transform 's,^a,/tmp/a,' a");
    snprintf(arc, sizeof arc, "%s/abs.tgz", dir);
    snprintf(out, sizeof out, "%s/abs", dir);
    cr_assert_neq(store_unpack(arc, out, 0, err, sizeof err), 0);

    snprintf(p, sizeof p, "%s/a/tests/evil", dir);
    cr_assert_eq(symlink("/etc", p), 0);
    tar("czf link.tgz a");
    snprintf(arc, sizeof arc, "%s/link.tgz", dir);
    snprintf(out, sizeof out, "%s/link", dir);
    cr_assert_neq(store_unpack(arc, out, 0, err, sizeof err), 0);
    cr_assert(strstr(err, "a link"), "%s", err);
    unlink(p);

    snprintf(p, sizeof p, "%s/a/tests/hard", dir);
    char target[300];
    snprintf(target, sizeof target, "%s/a/tests/1.in", dir);
    cr_assert_eq(link(target, p), 0);
    tar("czf hard.tgz a");
    snprintf(arc, sizeof arc, "%s/hard.tgz", dir);
    snprintf(out, sizeof out, "%s/hard", dir);
    cr_assert_eq(store_unpack(arc, out, 0, err, sizeof err), 0, "a hard link inside becomes a copy: %s", err);
    snprintf(p, sizeof p, "%s/hard/tests/hard", dir);
    cr_assert(regular_with(p, "1 2\n"), "%s is a copy of tests/1.in", p);
    snprintf(p, sizeof p, "%s/a/tests/hard", dir);
    unlink(p);

    tar("czf big.tgz a");
    snprintf(arc, sizeof arc, "%s/big.tgz", dir);
    snprintf(out, sizeof out, "%s/big", dir);
    cr_assert_neq(store_unpack(arc, out, 5, err, sizeof err), 0);
    cr_assert(strstr(err, "max_package"), "%s", err);

    put("notarchive", "hello");
    snprintf(arc, sizeof arc, "%s/notarchive", dir);
    snprintf(out, sizeof out, "%s/na", dir);
    cr_assert_neq(store_unpack(arc, out, 0, err, sizeof err), 0);
}

Test(store_unit, a_name_longer_than_a_path_is_refused_not_cut)
{
    /* 21 directories of 200 bytes: deep enough, too long for PATH_MAX (a
     * name cut short would land on another file) */
    char longname[4400] = "a";   /* zero-filled: each "/xxx..." ends in a 0 */
    for (int i = 0; i < 21; i++) {
        size_t n = strlen(longname);
        longname[n] = '/';
        memset(longname + n + 1, 'x', 200);
    }
    cr_assert_gt(strlen(longname), 4096);
    pkg("a", "3\n");
    char cmd[5000], arc[200], out[200], err[512];
    snprintf(cmd, sizeof cmd, "cd '%s' && tar czf long.tgz --transform 's,^a/tests/1.in,%s/1.in,' a", dir,
             longname);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(arc, sizeof arc, "%s/long.tgz", dir);
    snprintf(out, sizeof out, "%s/long", dir);
    cr_assert_neq(store_unpack(arc, out, 0, err, sizeof err), 0);
    cr_assert(strstr(err, "a name longer than 4095 bytes"), "%s", err);
    struct stat st;
    cr_assert_neq(stat(out, &st), 0, "nothing left behind");
}

Test(store_unit, an_archive_of_dot_unpacks_and_an_empty_one_leaves_nothing)
{
    char arc[200], out[200], err[512], p[300];
    struct stat st;
    pkg("a", "3\n");
    tar("czf dot.tgz -C a .");   /* entries "./", "./problem.yaml", ... */
    snprintf(arc, sizeof arc, "%s/dot.tgz", dir);
    snprintf(out, sizeof out, "%s/dot", dir);
    cr_assert_eq(store_unpack(arc, out, 0, err, sizeof err), 0, "%s", err);
    snprintf(p, sizeof p, "%s/dot/tests/1.out", dir);
    cr_assert_eq(stat(p, &st), 0);
    cr_assert_eq(stat(out, &st), 0);
    cr_assert_eq(st.st_mode & 0755, 0755, "without a top-level directory too: %o", (unsigned)(st.st_mode & 07777));

    /* fuzz_archive's first find (tests/fuzz/regressions/archive/) */
    put("empty", "");
    snprintf(arc, sizeof arc, "%s/empty", dir);
    snprintf(out, sizeof out, "%s/em", dir);
    cr_assert_neq(store_unpack(arc, out, 0, err, sizeof err), 0);
    cr_assert_neq(stat(out, &st), 0, "a failed unpack leaves no output directory");
}

/* ---- trees as deep as a path allows (issue 25, items 1 and 3) ---- */

/* sub/ holding problem.yaml and one file `levels` directory levels deep
 * ("d/d/.../f": levels parts in all) */
static void deep_package(const char *sub, int levels)
{
    char rel[2400];
    int n = snprintf(rel, sizeof rel, "%s/", sub);
    for (int i = 1; i < levels; i++)
        n += snprintf(rel + n, sizeof rel - (size_t)n, "d/");
    snprintf(rel + n, sizeof rel - (size_t)n, "f");
    put(rel, "x\n");
    char y[200];
    snprintf(y, sizeof y, "%s/problem.yaml", sub);
    put(y, "name: x\n");
}

struct deep_run {
    char from[200], to[200], arc[200], out[200];
    int manifest_rc, copy_rc, unpack_rc, remove_rc;
    char manifest_err[512], copy_err[512], unpack_err[512];
};

static void *deep_calls(void *arg)
{
    struct deep_run *d = arg;
    struct store_manifest m;
    d->manifest_rc = store_manifest_from_dir(d->from, 0, &m, d->manifest_err, sizeof d->manifest_err);
    if (d->manifest_rc == 0)
        store_manifest_free(&m);
    d->copy_rc = store_copy_tree(d->from, d->to, 0, d->copy_err, sizeof d->copy_err);
    d->unpack_rc = store_unpack(d->arc, d->out, 0, d->unpack_err, sizeof d->unpack_err);
    d->remove_rc = store_remove_tree(d->from);
    return NULL;
}

/* Every walk of a package on a thread with a 256 KiB stack, as on one of
 * judge-api's connection threads but smaller: a recursive walk with path
 * buffers in its frames (18 KB each) crashed on 500 levels with 8 MiB. */
static void walk_on_a_small_stack(struct deep_run *d)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 << 10);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, &attr, deep_calls, d), 0);
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
}

static void deep_run_of(struct deep_run *d, const char *name, int levels)
{
    memset(d, 0, sizeof *d);
    deep_package(name, levels);
    snprintf(d->from, sizeof d->from, "%s/%s", dir, name);
    snprintf(d->to, sizeof d->to, "%s/%s.copy", dir, name);
    snprintf(d->arc, sizeof d->arc, "%s/%s.tgz", dir, name);
    snprintf(d->out, sizeof d->out, "%s/%s.out", dir, name);
    char args[300];
    snprintf(args, sizeof args, "czf %s.tgz %s", name, name);
    tar(args);
    walk_on_a_small_stack(d);
}

Test(store_unit, a_tree_500_levels_deep_is_refused_without_recursion)
{
    struct deep_run d;
    deep_run_of(&d, "deep", 500);
    cr_assert_neq(d.manifest_rc, 0);
    cr_assert(strstr(d.manifest_err, "more than 64 directory levels deep"), "%s", d.manifest_err);
    cr_assert_neq(d.copy_rc, 0);
    cr_assert(strstr(d.copy_err, "more than 64 directory levels deep"), "%s", d.copy_err);
    cr_assert_neq(d.unpack_rc, 0);
    cr_assert(strstr(d.unpack_err, "more than 64 directory levels deep") && strstr(d.unpack_err, "deep/d/d/"),
              "names the entry: %s", d.unpack_err);
    struct stat st;
    cr_assert_neq(lstat(d.to, &st), 0, "a refused copy leaves nothing");
    cr_assert_neq(lstat(d.out, &st), 0, "a refused unpack leaves nothing");
    cr_assert_eq(d.remove_rc, 0);
    cr_assert_neq(lstat(d.from, &st), 0, "the 500-level tree is removed whole");
}

Test(store_unit, a_tree_64_levels_deep_is_a_package)
{
    struct deep_run d;
    deep_run_of(&d, "d64", 64);
    cr_assert_eq(d.manifest_rc, 0, "%s", d.manifest_err);
    cr_assert_eq(d.copy_rc, 0, "%s", d.copy_err);
    cr_assert_eq(d.unpack_rc, 0, "%s", d.unpack_err);
    char p[400];
    snprintf(p, sizeof p, "%s/problem.yaml", d.out);
    struct stat st;
    cr_assert_eq(stat(p, &st), 0, "the top-level directory is dropped");
    deep_run_of(&d, "d65", 65);
    cr_assert_neq(d.manifest_rc, 0, "65 levels");
    cr_assert_neq(d.unpack_rc, 0, "65 levels");
}

/* gzip inside gzip: refused before a byte is decompressed past the
 * outer layer's header, whatever the inner one holds (a 659-byte upload
 * held 8 GiB and cost ~20 CPU-seconds before its refusal). */
Test(store_unit, an_archive_compressed_twice_is_refused)
{
    pkg("a", "3\n");
    tar("czf once.tgz a");
    char cmd[300], arc[200], out[200], err[512];
    snprintf(cmd, sizeof cmd, "gzip -c '%s/once.tgz' > '%s/twice.tgz.gz'", dir, dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(arc, sizeof arc, "%s/twice.tgz.gz", dir);
    snprintf(out, sizeof out, "%s/twice", dir);
    cr_assert_neq(store_unpack(arc, out, 1 << 20, err, sizeof err), 0);
    cr_assert(strstr(err, "compressed 2 times (gzip inside gzip)"), "%s", err);
    struct stat st;
    cr_assert_neq(lstat(out, &st), 0);
    tar("cJf once.txz a");   /* compressed once, by xz: a package */
    snprintf(arc, sizeof arc, "%s/once.txz", dir);
    snprintf(out, sizeof out, "%s/once", dir);
    cr_assert_eq(store_unpack(arc, out, 1 << 20, err, sizeof err), 0, "%s", err);
}

/* An existing target is not overwritten or merged into. */
Test(store_unit, unpack_never_writes_into_an_existing_directory)
{
    pkg("a", "3\n");
    tar("czf a.tgz a");
    char arc[200], out[200], err[512];
    snprintf(arc, sizeof arc, "%s/a.tgz", dir);
    snprintf(out, sizeof out, "%s/a", dir);
    cr_assert_neq(store_unpack(arc, out, 0, err, sizeof err), 0);
    cr_assert(strstr(err, "File exists"), "%s", err);
}

Test(store_unit, icpc_conversion_lists_every_error)
{
    char p[200];
    put("k/problem.yaml", "name: K\nvalidation: default\nvalidator_flags: bogus_flag\nlimits:\n  time_multiplier: x\n");
    put("k/data/secret/1.in", "1\n");
    snprintf(p, sizeof p, "%s/k", dir);
    cr_assert(store_package_format(p));
    char *errors = NULL;
    int n = store_convert(p, "k", &errors);
    cr_assert_eq(n, 4, "%s", errors);
    cr_assert(strstr(errors, "problem.yaml:3: validator_flags: unknown flag 'bogus_flag'"), "%s", errors);
    cr_assert(strstr(errors, "data/secret:0: data: no tests"), "%s", errors);
    cr_assert(strstr(errors, "problem.yaml:5: limits.time_multiplier"), "%s", errors);
    cr_assert(strstr(errors, "data/secret/1.in:0: data: no matching .ans"), "%s", errors);
    free(errors);
    /* custom validation without a validator; its flags are its own (any) */
    put("k2/problem.yaml", "name: K\nvalidation: custom\nvalidator_flags: bogus_flag\n");
    put("k2/data/secret/1.in", "1\n");
    put("k2/data/secret/1.ans", "1\n");
    snprintf(p, sizeof p, "%s/k2", dir);
    cr_assert_eq(store_convert(p, "k2", &errors), 1, "%s", errors);
    cr_assert(strstr(errors, "problem.yaml:2: validation: a custom validator is needed in output_validators/"), "%s", errors);
    free(errors);

    put("g/problem.yaml", "name: G\nvalidator_flags: case_sensitive space_change_sensitive float_tolerance 1e-4\n");
    put("g/data/secret/1.in", "1\n");
    put("g/data/secret/1.ans", "1\n");
    put("g/data/sample/1.in", "1\n");
    put("g/data/sample/1.ans", "1\n");
    snprintf(p, sizeof p, "%s/g", dir);
    errors = NULL;
    cr_assert_eq(store_convert(p, "g", &errors), 0, "%s", errors);
    free(errors);   /* no error, but the assumed time limit's warning */
    char y[300];
    snprintf(y, sizeof y, "%s/g/problem.yaml", dir);
    FILE *f = fopen(y, "r");
    char buf[4096];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    buf[len] = 0;
    fclose(f);
    cr_assert(strstr(buf, "type: float, case_sensitive: true, space_change_sensitive: true, absolute_tolerance: "
                          "0.0001, relative_tolerance: 0.0001"), "%s", buf);
    cr_assert(strstr(buf, "sample-1") < strstr(buf, "secret-1"), "samples first: %s", buf);
    cr_assert(strstr(buf, "time_limit: 5.000s"), "no .timelimit: the multiplier's default 5 x 1s: %s", buf);
}

static char *converted(const char *name)
{
    char y[300];
    snprintf(y, sizeof y, "%s/%s/problem.yaml", dir, name);
    FILE *f = fopen(y, "r");
    cr_assert_not_null(f, "%s", y);
    static char buf[4096];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    buf[len] = 0;
    fclose(f);
    return buf;
}

/* validation: custom (batch) keeps the Kattis protocol: the runner's checker
 * with protocol kattis, the output_validators/ source (headers beside it are
 * the runner's to pick up), validator_flags as its arguments, quoted; the
 * same for an interactive problem's validator. */
Test(store_unit, icpc_custom_validator_becomes_a_kattis_checker)
{
    char p[200], *errors = NULL;
    put("v/problem.yaml", "name: V\nvalidation: custom\nvalidator_flags: float_tolerance 1e-6 \"odd\"\n");
    put("v/output_validators/check/check.cpp", "#include \"validate.h\"\nint main() { return 42; }\n");
    put("v/output_validators/check/validate.h", "\n");
    put("v/data/secret/1.in", "1\n");
    put("v/data/secret/1.ans", "1\n");
    snprintf(p, sizeof p, "%s/v", dir);
    cr_assert_eq(store_convert(p, "v", &errors), 0, "%s", errors);
    free(errors);
    const char *y = converted("v");
    cr_assert(strstr(y, "type: batch\n"), "%s", y);
    cr_assert(strstr(y, "checker: {type: custom, source: \"output_validators/check/check.cpp\", protocol: kattis, "
                        "args: [\"float_tolerance\", \"1e-6\", \"\\\"odd\\\"\"]}\n"), "%s", y);

    put("w/problem.yaml", "name: W\nvalidation: custom interactive\nvalidator_flags: slow\n");
    put("w/output_validators/w.c", "int main(void) { return 42; }\n");
    put("w/data/secret/1.in", "1\n");
    put("w/data/secret/1.ans", "1\n");
    snprintf(p, sizeof p, "%s/w", dir);
    cr_assert_eq(store_convert(p, "w", &errors), 0, "%s", errors);
    free(errors);
    y = converted("w");
    cr_assert(strstr(y, "type: interactive\n"), "%s", y);
    cr_assert(strstr(y, "interactor: {source: \"output_validators/w.c\", protocol: kattis, args: [\"slow\"]}\n"),
              "%s", y);
    cr_assert(!strstr(y, "checker:"), "%s", y);
}

/* ---- links inside a package (issue 22, slice 1) ---- */

static void link_at(const char *target, const char *rel)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    cr_assert_eq(symlink(target, p), 0, "%s -> %s", p, target);
}

/* l/: a package with a file link (tests/2.in -> 1.in), a directory link
 * (more -> tests) and a link through a directory link (again -> more/1.out) */
static void linked_package(void)
{
    pkg("l", "3\n");
    link_at("1.in", "l/tests/2.in");
    link_at("tests", "l/more");
    link_at("more/1.out", "l/again");
}

/* the copy at rel holds no link and has the linked content in place */
static void assert_expanded(const char *rel)
{
    char p[400], err[512];
    snprintf(p, sizeof p, "%s/%s/tests/2.in", dir, rel);
    cr_assert(regular_with(p, "1 2\n"), "%s: a file link becomes a copy", p);
    snprintf(p, sizeof p, "%s/%s/more/1.out", dir, rel);
    cr_assert(regular_with(p, "3\n"), "%s: a directory link becomes a directory", p);
    snprintf(p, sizeof p, "%s/%s/more/2.in", dir, rel);
    cr_assert(regular_with(p, "1 2\n"), "%s: a link inside a linked directory too", p);
    snprintf(p, sizeof p, "%s/%s/again", dir, rel);
    cr_assert(regular_with(p, "3\n"), "%s: through a directory link", p);
    struct store_manifest m;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    cr_assert_eq(store_manifest_from_dir(p, 0, &m, err, sizeof err), 0, "no link left: %s", err);
    cr_assert_eq(m.n, 8, "problem.yaml, tests/{1.in,1.out,2.in}, more/{1.in,1.out,2.in}, again");
    store_manifest_free(&m);
}

Test(store_unit, links_inside_a_package_become_ordinary_entries)
{
    char from[300], to[300], arc[300], out[300], err[512];
    linked_package();
    snprintf(from, sizeof from, "%s/l", dir);
    cr_assert(store_has_links(from));
    snprintf(to, sizeof to, "%s/l.copy", dir);
    cr_assert_eq(store_copy_tree(from, to, 0, err, sizeof err), 0, "%s", err);
    assert_expanded("l.copy");
    cr_assert(!store_has_links(to));

    tar("czf l.tgz l");
    snprintf(arc, sizeof arc, "%s/l.tgz", dir);
    snprintf(out, sizeof out, "%s/l.out", dir);
    cr_assert_eq(store_unpack(arc, out, 0, err, sizeof err), 0, "%s", err);
    assert_expanded("l.out");
    /* the same archive as a zip, links stored as links (zip -y) */
    char cmd[600];
    snprintf(cmd, sizeof cmd, "cd '%s/l' && zip -qry ../l.zip .", dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(arc, sizeof arc, "%s/l.zip", dir);
    snprintf(out, sizeof out, "%s/l.zout", dir);
    cr_assert_eq(store_unpack(arc, out, 0, err, sizeof err), 0, "%s", err);
    assert_expanded("l.zout");
}

/* every way out, and every loop, is refused naming the link; nothing left */
Test(store_unit, links_leaving_the_package_or_looping_are_refused_naming_them)
{
    static const struct { const char *target, *rel, *expect; } cases[] = {
        {"/etc/passwd", "tests/abs", "tests/abs: a symbolic link to '/etc/passwd', which leaves the package"},
        {"../../etc/passwd", "tests/up", "tests/up: a symbolic link to '../../etc/passwd', which leaves the package"},
        {"..", "tests/loop", "tests/loop: a symbolic link to '..', a directory it is inside: a link loop"},
        {"self", "tests/self", "tests/self: a symbolic link to 'self': links that loop"},
        {"nothing", "tests/dangling", "tests/dangling: a symbolic link to 'nothing', which does not exist"},
    };
    char from[300], to[300], arc[300], out[300], err[512], cmd[600], rel[400];
    struct stat st;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char sub[16];
        snprintf(sub, sizeof sub, "p%zu", i);
        pkg(sub, "3\n");
        snprintf(rel, sizeof rel, "%s/%s", sub, cases[i].rel);
        link_at(cases[i].target, rel);
        snprintf(from, sizeof from, "%s/%s", dir, sub);
        snprintf(to, sizeof to, "%s/%s.copy", dir, sub);
        cr_assert_neq(store_copy_tree(from, to, 0, err, sizeof err), 0, "%s", cases[i].rel);
        cr_assert(strstr(err, cases[i].expect), "copy: %s", err);
        cr_assert_neq(lstat(to, &st), 0, "a refused copy leaves nothing");
        /* in an archive: the same refusal, naming the entry (an absolute
         * link as it is read, with the archive's top directory) */
        snprintf(cmd, sizeof cmd, "cd '%s' && tar czf %s.tgz %s", dir, sub, sub);
        cr_assert_eq(system(cmd), 0);
        snprintf(arc, sizeof arc, "%s/%s.tgz", dir, sub);
        snprintf(out, sizeof out, "%s/%s.out", dir, sub);
        cr_assert_neq(store_unpack(arc, out, 0, err, sizeof err), 0, "%s", cases[i].rel);
        const char *what = strchr(cases[i].expect, ':') + 2;
        char entry[100];
        snprintf(entry, sizeof entry, "entry '%s%s'", i == 0 ? "p0/" : "", cases[i].rel);
        cr_assert(strstr(err, entry) && strstr(err, what), "unpack: %s (expected %s ... %s)", err, entry, what);
        cr_assert_neq(lstat(out, &st), 0, "a refused unpack leaves nothing");
    }
    /* out through another link: refused, whichever of the two is met first */
    pkg("via", "3\n");
    link_at("../x/passwd", "via/tests/via");
    link_at("/etc", "via/x");
    snprintf(from, sizeof from, "%s/via", dir);
    snprintf(to, sizeof to, "%s/via.copy", dir);
    cr_assert_neq(store_copy_tree(from, to, 0, err, sizeof err), 0);
    cr_assert((strstr(err, "via/tests/via: a symbolic link to '../x/passwd', which leaves the package") ||
               strstr(err, "via/x: a symbolic link to '/etc', which leaves the package")), "%s", err);
    /* one that stays inside through a link that leads out is refused by itself */
    unlink(strcat(strcpy(rel, from), "/x"));
    unlink(strcat(strcpy(rel, from), "/tests/via"));
    link_at("tests", "via/x");
    link_at("../x/1.in", "via/tests/via");
    cr_assert_eq(store_copy_tree(from, to, 0, err, sizeof err), 0, "%s", err);
    cr_assert(regular_with(strcat(strcpy(rel, to), "/tests/via"), "1 2\n"), "../x/1.in is tests/1.in");
}

/* A link bomb: levels of directories each linking the one below many
 * times. The copy counts what it writes, so the refusal comes at the
 * limit, not after the whole expansion. */
Test(store_unit, a_link_bomb_stops_at_the_limits)
{
    char from[300], to[300], rel[200], err[512];
    put("bomb/problem.yaml", "name: x\n");
    put("bomb/d0/f", "0123456789012345678901234567890123456789012345678901234567890123\n");   /* 65 bytes */
    for (int level = 1; level <= 5; level++) {
        snprintf(rel, sizeof rel, "%s/bomb/d%d", dir, level);
        cr_assert_eq(mkdir(rel, 0755), 0);
        for (int k = 0; k < 20; k++) {
            char target[32];
            snprintf(target, sizeof target, "../d%d", level - 1);
            snprintf(rel, sizeof rel, "bomb/d%d/l%d", level, k);
            link_at(target, rel);
        }
    }
    /* d5 alone expands to 20^5 = 3.2 million directories and files */
    snprintf(from, sizeof from, "%s/bomb", dir);
    snprintf(to, sizeof to, "%s/bomb.bytes", dir);
    cr_assert_neq(store_copy_tree(from, to, 100000, err, sizeof err), 0);
    cr_assert(strstr(err, "larger than max_package (100000 bytes, links counted as copies)"), "%s", err);
    snprintf(to, sizeof to, "%s/bomb.files", dir);
    cr_assert_neq(store_copy_tree(from, to, 0, err, sizeof err), 0);
    cr_assert(strstr(err, "more than 100000 files and directories (links counted as copies)"), "%s", err);
    tar("czf bomb.tgz bomb");
    char arc[300], out[300];
    snprintf(arc, sizeof arc, "%s/bomb.tgz", dir);
    snprintf(out, sizeof out, "%s/bomb.out", dir);
    cr_assert_neq(store_unpack(arc, out, 100000, err, sizeof err), 0);
    cr_assert(strstr(err, "bomb.tgz: entry '") && strstr(err, "max_package"), "%s", err);
}

/* ---- nothing converted into a different problem (issue 22, slice 2) ---- */

/* an ICPC package sub/ with problem.yaml yaml and one secret test; the
 * conversion's errors (or NULL) */
static int convert(const char *sub, const char *yaml, char **errors)
{
    char p[300];
    snprintf(p, sizeof p, "%s/problem.yaml", sub);
    put(p, yaml);
    snprintf(p, sizeof p, "%s/data/secret/1.in", sub);
    put(p, "1\n");
    snprintf(p, sizeof p, "%s/data/secret/1.ans", sub);
    put(p, "1\n");
    snprintf(p, sizeof p, "%s/%s", dir, sub);
    *errors = NULL;
    return store_convert(p, sub, errors);
}

Test(store_unit, icpc_types_the_runner_cannot_judge_are_refused_naming_the_key)
{
    static const struct { const char *yaml, *expect; } cases[] = {
        {"problem_format_version: 2023-07-draft\nname: S\ntype: multi-pass\nlimits:\n  validation_passes: 1\n",
         "problem.yaml:5: limits.validation_passes: expected a whole number 2..100"},
        {"problem_format_version: 2023-07-draft\nname: S\nlimits:\n  validation_passes: 3\n",
         "problem.yaml:4: limits.validation_passes: only for type: multi-pass"},
        {"problem_format_version: 2023-07-draft\nname: S\ntype: [submit-answer, interactive]\n",
         "problem.yaml:3: type: submit-answer with interactive: the format forbids the pair"},
        {"problem_format_version: 2023-07-draft\nname: S\ntype: batch\n", "problem.yaml:3: type: unknown type 'batch'"},
        {"name: S\nvalidation: custom score\n", "problem.yaml:2: validation: 'score' is only for type: scoring"},
        {"name: S\nvalidation: custom interactive score\n", "problem.yaml:2: validation: 'score' is only for type: "
         "scoring"},

        {"name: S\nvalidation: costum\n", "problem.yaml:2: validation: expected default, custom"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char sub[16], *errors;
        snprintf(sub, sizeof sub, "t%zu", i);
        put(strcat(strcpy((char[32]){0}, sub), "/output_validators/v.c"), "int main(void){return 42;}\n");
        cr_assert_geq(convert(sub, cases[i].yaml, &errors), 1, "%s", cases[i].yaml);
        cr_assert(strstr(errors, cases[i].expect), "%s: %s", cases[i].yaml, errors);
        free(errors);
        char p[300];
        snprintf(p, sizeof p, "%s/%s/problem.icpc.yaml", dir, sub);
        struct stat st;
        cr_assert_neq(stat(p, &st), 0, "nothing converted: %s", cases[i].yaml);
    }
}

/* problem.yaml and testdata.yaml are read by the common YAML reader, like
 * the runner's files: a key given twice is refused naming both lines (libyaml
 * alone lets the last one win), and a syntax error names its line. */
Test(store_unit, icpc_keys_given_twice_are_refused_naming_both_lines)
{
    static const struct { const char *yaml, *expect; } cases[] = {
        {"name: S\nvalidation: default\nvalidation: custom\n",
         "problem.yaml:3: validation: given twice (also on line 2)"},
        {"name: S\nlimits:\n  memory: 256\n  memory: 512\n", "problem.yaml:4: memory: given twice (also on line 3)"},
        {"name: S\nlimits: {memory: 256\n", "problem.yaml:3: (yaml): "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char sub[16], *errors;
        snprintf(sub, sizeof sub, "d%zu", i);
        cr_assert_geq(convert(sub, cases[i].yaml, &errors), 1, "%s", cases[i].yaml);
        cr_assert(strstr(errors, cases[i].expect), "%s: %s", cases[i].yaml, errors);
        free(errors);
    }
}

/* 2023-07: type interactive with output_validator/ (one program, headers
 * beside it) is the runner's interactive problem with a Kattis interactor;
 * pass-fail with output_validator/ a Kattis checker; neither a batch
 * problem with a token checker */
Test(store_unit, icpc_2023_interactive_and_custom_validators_are_converted)
{
    char *errors;
    put("i/output_validator/validator.cpp", "#include \"validator.h\"\nint main() { return 42; }\n");
    put("i/output_validator/validator.h", "\n");
    put("i/data/sample/1.interaction", "<1\n>2\n");
    put("i/data/sample/1.in", "1\n");
    put("i/data/sample/1.ans", "\n");
    cr_assert_eq(convert("i", "problem_format_version: 2023-07-draft\nname: I\ntype: interactive\n", &errors), 0,
                 "%s", errors);
    free(errors);   /* warnings only */
    const char *y = converted("i");
    cr_assert(strstr(y, "type: interactive\n"), "%s", y);
    cr_assert(strstr(y, "interactor: {source: \"output_validator/validator.cpp\", protocol: kattis, args: []}"),
              "%s", y);
    cr_assert(strstr(y, "sample-1") && !strstr(y, "checker:"), "%s", y);
    cr_assert(strstr(y, "samples:\n  - \"data/sample/1.interaction\"\n"), "%s", y);

    put("c/output_validator/check.py", "print()\n");
    cr_assert_eq(convert("c", "problem_format_version: 2023-07-draft\nname: C\ntype: pass-fail\n", &errors), 0,
                 "%s", errors);
    free(errors);
    y = converted("c");
    cr_assert(strstr(y, "type: batch\n") &&
              strstr(y, "checker: {type: custom, source: \"output_validator/check.py\", protocol: kattis"), "%s", y);

    cr_assert_eq(convert("n", "problem_format_version: 2023-07-draft\nname: N\ntype: interactive\n", &errors), 1);
    cr_assert(strstr(errors, "problem.yaml:3: type: a custom validator is needed in output_validators/"), "%s",
              errors);
    free(errors);
    /* a sample only as a transcript (the format allows it): kept and listed
     * as a sample for the statement, not judged, never dropped */
    put("t/output_validator/v.c", "int main(void){return 42;}\n");
    put("t/data/sample/2.interaction", "<1\n");
    put("t/data/sample/1.interaction", "<1\n>2\n");
    put("t/data/sample/1.in", "1\n");
    put("t/data/sample/1.ans", "\n");
    cr_assert_eq(convert("t", "problem_format_version: 2023-07-draft\nname: T\ntype: interactive\n", &errors), 0,
                 "%s", errors);
    free(errors);
    y = converted("t");
    cr_assert(strstr(y, "samples:\n  - \"data/sample/1.interaction\"\n  - \"data/sample/2.interaction\"\n"),
              "%s", y);
    cr_assert(strstr(y, "sample-1") && !strstr(y, "sample-2"), "the transcript alone is not a test: %s", y);
}

/* ---- DOMjudge packages (issue 22, slice 3) ---- */

/* As DOMjudge documents its problem archive: domjudge-problem.ini, a
 * problem.yaml without memory limits, samples only in data/sample */
Test(store_unit, a_domjudge_package_is_detected_and_its_ini_read)
{
    char p[300], *errors = NULL;
    put("dj/domjudge-problem.ini", "probid = hello\nexternalid = hello\nname = \"Hello World\"\ntimelimit = 3\n"
                                   "color = '#ff0000'\nallow_submit = 1\n");
    put("dj/problem.yaml", "source: a test\n");
    put("dj/data/sample/1.in", "\n");
    put("dj/data/sample/1.ans", "Hello world!\n");
    snprintf(p, sizeof p, "%s/dj", dir);
    cr_assert(store_package_format(p), "samples only, with domjudge-problem.ini: not read as the native format");
    cr_assert_eq(store_convert(p, "dj", &errors), 0, "%s", errors);
    cr_assert_null(errors, "a time limit was given: nothing to warn about: %s", errors);
    const char *y = converted("dj");
    cr_assert(strstr(y, "title: \"Hello World\"") && strstr(y, "time_limit: 3.000s") &&
              strstr(y, "memory_limit: 2048M"), "%s", y);

    /* .timelimit alone (DOMjudge's other way) */
    put("tl/.timelimit", "1.5\n");
    put("tl/data/secret/1.in", "1\n");
    put("tl/data/secret/1.ans", "1\n");
    snprintf(p, sizeof p, "%s/tl", dir);
    cr_assert_eq(store_convert(p, "tl", &errors), 0, "%s", errors);
    cr_assert_null(errors);
    cr_assert(strstr(converted("tl"), "time_limit: 1.500s"), "%s", converted("tl"));

    /* no limit at all: converted, and the limit assumed is said */
    put("none/data/secret/1.in", "1\n");
    put("none/data/secret/1.ans", "1\n");
    snprintf(p, sizeof p, "%s/none", dir);
    cr_assert_eq(store_convert(p, "none", &errors), 0, "%s", errors);
    cr_assert(errors && strstr(errors, "problem.yaml:0: time_limit: warning: the package gives no time limit") &&
              strstr(errors, "assumed 5 s"), "%s", errors);
    free(errors);

    /* what DOMjudge keeps in its database cannot come with the package */
    put("sr/domjudge-problem.ini", "name = SR\ntimelimit = 1\nspecial_run = myrun\nspecial_compare = float\n"
                                   "colour = red\n");
    put("sr/data/secret/1.in", "1\n");
    put("sr/data/secret/1.ans", "1\n");
    snprintf(p, sizeof p, "%s/sr", dir);
    cr_assert_eq(store_convert(p, "sr", &errors), 3, "%s", errors);
    cr_assert(strstr(errors, "domjudge-problem.ini:3: special_run: 'myrun' is a run script"), "%s", errors);
    cr_assert(strstr(errors, "domjudge-problem.ini:4: special_compare: names a compare program"), "%s", errors);
    cr_assert(strstr(errors, "domjudge-problem.ini:5: colour: unknown key"), "%s", errors);
    free(errors);
    /* special_compare with the validator in the package is that validator */
    put("sc/domjudge-problem.ini", "timelimit = 1\nspecial_compare = check\n");
    put("sc/problem.yaml", "validation: custom\n");
    put("sc/output_validators/check/check.c", "int main(void){return 42;}\n");
    put("sc/data/secret/1.in", "1\n");
    put("sc/data/secret/1.ans", "1\n");
    snprintf(p, sizeof p, "%s/sc", dir);
    cr_assert_eq(store_convert(p, "sc", &errors), 0, "%s", errors);
}

/* What a setter writes comes back from problem.yaml as written (fuzz_icpc
 * found a DOMjudge name that was not UTF-8 written into problem.yaml, which
 * no YAML reader accepts: the package passed push and failed on the host);
 * a time limit beyond an hour is refused naming where it came from. */
Test(store_unit, names_survive_conversion_and_limits_beyond_an_hour_are_refused)
{
    char p[300], *errors = NULL;
    put("u8/domjudge-problem.ini", "name = \"Sum \xff\xfe\"\ntimelimit = 1\n");
    put("u8/data/secret/1.in", "1\n");
    put("u8/data/secret/1.ans", "1\n");
    snprintf(p, sizeof p, "%s/u8", dir);
    cr_assert_eq(store_convert(p, "u8", &errors), 1, "%s", errors);
    cr_assert(strstr(errors, "domjudge-problem.ini:1: name: not UTF-8 text"), "%s", errors);
    free(errors);

    /* YAML escapes in, the same characters out: tab, newline, quotes,
     * backslash, DEL, a line separator (which a quoted scalar would fold),
     * and UTF-8 letters as they are */
    put("esc/problem.yaml", "name: \"a\\tb\\n\\\"q\\\" \\\\ \\x7f \\u2028 \xc3\xa9\"\n");
    put("esc/.timelimit", "1\n");
    put("esc/data/secret/1.in", "1\n");
    put("esc/data/secret/1.ans", "1\n");
    snprintf(p, sizeof p, "%s/esc", dir);
    cr_assert_eq(store_convert(p, "esc", &errors), 0, "%s", errors);
    cr_assert(strstr(converted("esc"), "title: \"a\\tb\\n\\\"q\\\" \\\\ \\x7F \\u2028 \xc3\xa9\"\n"), "%s",
              converted("esc"));

    put("long/.timelimit", "7200\n");
    put("long/data/secret/1.in", "1\n");
    put("long/data/secret/1.ans", "1\n");
    snprintf(p, sizeof p, "%s/long", dir);
    cr_assert_eq(store_convert(p, "long", &errors), 1, "%s", errors);
    cr_assert(strstr(errors, ".timelimit:1: time limit: 7200 s is over the largest time limit a problem may have "
                             "(3600 s)"), "%s", errors);
    free(errors);
}

/* grading per test group of a pass-fail problem is refused, never dropped */
Test(store_unit, icpc_group_settings_that_change_judging_are_refused)
{
    char *errors;
    put("g/data/testdata.yaml", "output_validator_flags: float_tolerance 1e-3\n");
    put("g/data/secret/big/testdata.yaml", "input_validator_flags: n=1000\ngrading: min\n");
    put("g/data/secret/small/test_group.yaml", "\n");
    put("g/data/secret/big/1.in", "1\n");
    put("g/data/secret/big/1.ans", "1\n");
    /* (big's own testdata.yaml replaces data/'s whole, flags included: its
     * tests' own checker, not an error) */
    cr_assert_eq(convert("g", "name: G\n", &errors), 1, "%s", errors);
    cr_assert(strstr(errors, "data/secret/big/testdata.yaml:2: grading: not converted"), "%s", errors);
    free(errors);
    put("h/data/secret/testdata.yaml", "input_validator_args: [--n, 5]\n");
    cr_assert_eq(convert("h", "name: H\n", &errors), 0, "only input validators read it: %s", errors);
    free(errors);
}

/* ---- scoring problems: groups become subtasks (issue 22) ---- */

/* a test in data/REL (an .in with its .ans) of package sub */
static void test_in(const char *sub, const char *rel)
{
    char p[300];
    snprintf(p, sizeof p, "%s/data/%s.in", sub, rel);
    put(p, "1\n");
    snprintf(p, sizeof p, "%s/data/%s.ans", sub, rel);
    put(p, "1\n");
}

static int convert_scoring(const char *sub, const char *yaml, char **errors)
{
    char p[300];
    snprintf(p, sizeof p, "%s/problem.yaml", sub);
    put(p, yaml);
    snprintf(p, sizeof p, "%s/%s", dir, sub);
    *errors = NULL;
    return store_convert(p, sub, errors);
}

/* legacy: testdata.yaml per group (inherited), the default grader's sum and
 * min, on_reject: break chaining the parts, ignore_sample */
Test(store_unit, legacy_scoring_groups_become_subtasks)
{
    char *errors;
    put("l/data/testdata.yaml", "on_reject: continue\nrange: 0 100\ngrader_flags: ignore_sample sum\n");
    put("l/data/secret/g1/testdata.yaml", "grader_flags: min\naccept_score: 20\non_reject: break\n");
    put("l/data/secret/g2/testdata.yaml", "grader_flags: min\naccept_score: 30\n");
    put("l/data/secret/g3/testdata.yaml", "accept_score: 25\non_reject: break\ninput_validator_flags: big\n");
    test_in("l", "sample/1");
    test_in("l", "secret/g1/1");
    test_in("l", "secret/g1/2");
    test_in("l", "secret/g2/1");
    test_in("l", "secret/g3/1");
    test_in("l", "secret/g3/2");
    cr_assert_eq(convert_scoring("l", "name: L\ntype: scoring\n", &errors), 0, "%s", errors);
    free(errors);
    const char *y = converted("l");
    cr_assert(strstr(y, "stop_on_failure: subtask\n"), "%s", y);
    cr_assert(strstr(y, "  - {name: \"sample\", points: 0, tests: [\"sample-1\"]}\n"), "%s", y);
    cr_assert(strstr(y, "  - {name: \"secret-g1\", points: 20, tests: [\"secret-g1-1\", \"secret-g1-2\"]}\n"),
              "%s", y);
    cr_assert(strstr(y, "  - {name: \"secret-g2\", points: 30, tests: [\"secret-g2-1\"]}\n"), "%s", y);
    /* sum with break: the second test scores only after the first passed */
    cr_assert(strstr(y, "  - {name: \"secret-g3-1\", points: 25, tests: [\"secret-g3-1\"]}\n"), "%s", y);
    cr_assert(strstr(y, "  - {name: \"secret-g3-2\", points: 25, tests: [\"secret-g3-2\"], depends: "
                        "[\"secret-g3-1\"]}\n"), "%s", y);

    /* on_reject: break (the default) across groups: a group scores only when
     * the one before passed; an empty group between breaks no chain */
    put("br/data/testdata.yaml", "grader_flags: ignore_sample\n");
    put("br/data/secret/a/testdata.yaml", "grader_flags: min\naccept_score: 40\n");
    put("br/data/secret/b/.keep", "\n");
    put("br/data/secret/c/testdata.yaml", "grader_flags: min\naccept_score: 60\n");
    test_in("br", "secret/a/1");
    test_in("br", "secret/c/1");
    cr_assert_eq(convert_scoring("br", "name: B\ntype: scoring\n", &errors), 0, "%s", errors);
    free(errors);
    y = converted("br");
    cr_assert(strstr(y, "  - {name: \"secret-a\", points: 40, tests: [\"secret-a-1\"]}\n") &&
              strstr(y, "  - {name: \"secret-c\", points: 60, tests: [\"secret-c-1\"], depends: [\"secret-a\"]}\n"),
              "%s", y);
}

/* What subtasks cannot say (a verdict mode, max, a clamped range, a
 * reject_score) converts to graded groups: one subtask per group, its
 * own tests, its parent, its grader's flags; nothing refused. */
Test(store_unit, legacy_scoring_beyond_subtasks_converts_to_graded_groups)
{
    char *errors;
    put("gg/data/testdata.yaml", "on_reject: continue\ngrader_flags: ignore_sample accept_if_any_accepted\n");
    put("gg/data/secret/a/testdata.yaml", "grader_flags: max first_error\naccept_score: 5\nreject_score: -1\n"
                                          "range: 0 4\n");
    test_in("gg", "sample/1");
    test_in("gg", "secret/a/1");
    test_in("gg", "secret/a/2");
    test_in("gg", "secret/b/1");
    cr_assert_eq(convert_scoring("gg", "name: G\ntype: scoring\n", &errors), 0, "%s", errors);
    free(errors);
    const char *y = converted("gg");
    cr_assert(strstr(y, "  - {name: \"data\", points: 1, tests: [], grade: {score: sum, verdict: worst_error, "
                        "accept_if_any_accepted: true, ignore_first: true, on_reject: continue, reject_score: 0, "
                        "range: [-inf, inf]}}\n"), "%s", y);
    cr_assert(strstr(y, "  - {name: \"secret-a\", points: 5, tests: [\"secret-a-1\", \"secret-a-2\"], parent: "
                        "\"secret\", grade: {score: max, verdict: first_error, accept_if_any_accepted: false, "
                        "ignore_first: false, on_reject: break, reject_score: -1, range: [0, 4]}}\n"), "%s", y);
    /* secret/b inherits data/'s file whole, ignore_sample excepted */
    cr_assert(strstr(y, "  - {name: \"secret-b\", points: 1, tests: [\"secret-b-1\"], parent: \"secret\", "
                        "grade: {score: sum, verdict: worst_error, accept_if_any_accepted: true, ignore_first: false, "
                        "on_reject: continue"), "%s", y);
}

/* A sum group of more tests than the runner's 1000 subtasks: one graded
 * subtask per group instead of one per test */
Test(store_unit, a_sum_group_of_many_tests_converts_to_graded_groups)
{
    char *errors, rel[64];
    for (int i = 0; i < 1001; i++) {
        snprintf(rel, sizeof rel, "secret/%04d", i);
        test_in("many", rel);
    }
    cr_assert_eq(convert_scoring("many", "name: M\ntype: scoring\n", &errors), 0, "%s", errors);
    free(errors);
    char path[300];
    snprintf(path, sizeof path, "%s/many/problem.yaml", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    static char y[1 << 17];
    y[fread(y, 1, sizeof y - 1, f)] = 0;
    fclose(f);
    const char *sub = strstr(y, "subtasks:");
    cr_assert(sub && strstr(sub, "  - {name: \"secret\", points: 1, tests: [\"secret-0000\", ") &&
              strstr(sub, "\"secret-1000\"]"), "%.600s", sub ? sub : y);
}

/* what the default grader does not do is refused naming file, line and
 * key; what subtasks cannot say converts to graded groups (below) */
Test(store_unit, legacy_scoring_the_default_grader_does_not_do_is_refused)
{
    static const struct { const char *file, *yaml, *expect; } cases[] = {
        {"data/secret/testdata.yaml", "grader_flags: frob\n",
         "data/secret/testdata.yaml:1: grader_flags: 'frob' is not a flag of the default grader"},
        {"data/secret/testdata.yaml", "grader_flags: ignore_sample min\n",
         "data/secret/testdata.yaml:1: grader_flags: 'ignore_sample' is only for data/testdata.yaml"},
        {"data/secret/testdata.yaml", "reject_score: many\n",
         "data/secret/testdata.yaml:1: reject_score: expected a number"},
        {"data/secret/testdata.yaml", "grading: custom\n",
         "data/secret/testdata.yaml:1: grading: 'custom' is not converted"},
        {"data/testdata.yaml", "on_reject: continue\nrange: 5 1\n", "data/testdata.yaml:2: range: 5 is above 1"},
        {"data/testdata.yaml", "on_reject: sometimes\n", "data/testdata.yaml:1: on_reject: expected break or"},
        {"data/secret/testdata.yaml", "output_validator_flags: float_tolerance\n",
         "data/secret/testdata.yaml:1: output_validator_flags: float_tolerance needs a number"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char sub[16], p[300], *errors;
        snprintf(sub, sizeof sub, "ls%zu", i);
        snprintf(p, sizeof p, "%s/%s", sub, cases[i].file);
        put(p, cases[i].yaml);
        test_in(sub, "sample/1");
        test_in(sub, "secret/1");
        test_in(sub, "secret/2");
        cr_assert_geq(convert_scoring(sub, "name: S\ntype: scoring\n", &errors), 1, "%s", cases[i].yaml);
        cr_assert(strstr(errors, cases[i].expect), "%s: %s", cases[i].yaml, errors);
        free(errors);
    }
    char *errors;
    /* include/LANG/: the runner's include, language by language */
    put("in/include/cpp/b.h", "\n");
    put("in/include/cpp/a.cpp", "\n");
    put("in/include/c/x.h", "\n");
    test_in("in", "secret/1");
    cr_assert_eq(convert_scoring("in", "name: I\n", &errors), 0, "%s", errors);
    free(errors);
    cr_assert(strstr(converted("in"), "include:\n  \"c\": [\"include/c/x.h\"]\n  \"cpp\": [\"include/cpp/a.cpp\", "
                                      "\"include/cpp/b.h\"]\n"), "%s", converted("in"));
    put("ib/include/c/sub/x.h", "\n");
    put("ib/include/README", "\n");
    test_in("ib", "secret/1");
    cr_assert_eq(convert_scoring("ib", "name: I\n", &errors), 1, "%s", errors);
    cr_assert(strstr(errors, "include/README:0: include: expected a directory include/LANG/"), "%s", errors);
    free(errors);
    /* a subdirectory keeps its files' paths (a Java package directory) */
    put("isub/include/c/sub/x.h", "\n");
    put("isub/include/c/y.h", "\n");
    test_in("isub", "secret/1");
    cr_assert_eq(convert_scoring("isub", "name: I\n", &errors), 0, "%s", errors);
    free(errors);
    cr_assert(strstr(converted("isub"), "include:\n  \"c\": {base: \"include/c\", files: [\"include/c/sub/x.h\", "
                                        "\"include/c/y.h\"]}\n"), "%s", converted("isub"));
    /* multi-pass: the runner's passes, validation_passes of them */
    put("mp/output_validator/v.c", "int main(void){return 42;}\n");
    test_in("mp", "secret/1");
    cr_assert_eq(convert_scoring("mp", "problem_format_version: 2023-07-draft\nname: M\ntype: [pass-fail, multi-pass]\n"
                                       "limits:\n  validation_passes: 3\n", &errors), 0, "%s", errors);
    free(errors);
    cr_assert(strstr(converted("mp"), "passes: 3\n") &&
              strstr(converted("mp"), "checker: {type: custom, source: \"output_validator/v.c\", protocol: kattis"),
              "%s", converted("mp"));
    put("mi2/output_validator/v.c", "int main(void){return 42;}\n");
    test_in("mi2", "secret/1");
    cr_assert_eq(convert_scoring("mi2", "problem_format_version: 2023-07-draft\nname: M\n"
                                        "type: interactive multi-pass\n", &errors), 0, "%s", errors);
    free(errors);
    cr_assert(strstr(converted("mi2"), "passes: 2\n") && strstr(converted("mi2"), "interactor: {source: "),
              "%s", converted("mi2"));
    /* a score validator: its score.txt scores the test (checker.scores) */
    put("sv/output_validators/v.c", "int main(void){return 42;}\n");
    test_in("sv", "secret/1");
    cr_assert_eq(convert_scoring("sv", "name: S\ntype: scoring\nvalidation: custom score\n", &errors), 0, "%s",
                 errors);
    free(errors);
    cr_assert(strstr(converted("sv"), "checker: {type: custom, source: \"output_validators/v.c\", protocol: kattis, "
                                      "args: [], scores: true}\n"), "%s", converted("sv"));
    /* interactive: the interactor's score.txt alike */
    put("si/output_validators/v.c", "int main(void){return 42;}\n");
    test_in("si", "secret/1");
    cr_assert_eq(convert_scoring("si", "name: S\ntype: scoring\nvalidation: custom interactive score\n", &errors),
                 0, "%s", errors);
    free(errors);
    cr_assert(strstr(converted("si"), "interactor: {source: \"output_validators/v.c\", protocol: kattis, args: [], "
                                      "scores: true}\n"), "%s", converted("si"));
    /* min over secret, which sums its tests: graded groups */
    put("mi/data/testdata.yaml", "grader_flags: min\n");
    put("mi/data/secret/testdata.yaml", "grader_flags: sum\n");
    test_in("mi", "secret/1");
    test_in("mi", "secret/2");
    cr_assert_eq(convert_scoring("mi", "name: S\ntype: scoring\n", &errors), 0, "%s", errors);
    free(errors);
    cr_assert(strstr(converted("mi"), "  - {name: \"data\", points: 1, tests: [], grade: {score: min, "), "%s",
              converted("mi"));
    test_in("ob", "secret/1");
    cr_assert_eq(convert_scoring("ob", "name: S\ntype: scoring\ngrading:\n  objective: min\n", &errors), 1);
    cr_assert(strstr(errors, "problem.yaml:4: grading.objective: 'min' is not converted"), "%s", errors);
    free(errors);
}

/* 2025-09: test_group.yaml with max_score, score_aggregation, require_pass;
 * groups default to pass-fail, secret to sum of 100 */
Test(store_unit, test_group_yaml_scoring_becomes_subtasks)
{
    char *errors;
    put("t/data/secret/a/test_group.yaml", "max_score: 20\n");
    put("t/data/secret/b/test_group.yaml", "max_score: 30\nscore_aggregation: sum\nrequire_pass: [sample]\n");
    put("t/data/secret/c/test_group.yaml", "max_score: 50\nscore_aggregation: min\nrequire_pass: secret/a\n"
                                           "input_validator_args: [--big]\n");
    test_in("t", "sample/1");
    test_in("t", "secret/a/1");
    test_in("t", "secret/b/1");
    test_in("t", "secret/b/2");
    test_in("t", "secret/c/1");
    cr_assert_eq(convert_scoring("t", "problem_format_version: 2025-09\nname: T\ntype: scoring\n"
                                      "limits:\n  time_limit: 1\n", &errors), 0, "%s", errors);
    free(errors);
    const char *y = converted("t");
    cr_assert(strstr(y, "  - {name: \"secret-a\", points: 20, tests: [\"secret-a-1\"]}\n"), "%s", y);
    cr_assert(strstr(y, "  - {name: \"secret-b-1\", points: 15, tests: [\"secret-b-1\"], depends: [\"sample\"]}\n")
              && strstr(y, "  - {name: \"secret-b-2\", points: 15, tests: [\"secret-b-2\"], depends: "
                           "[\"sample\"]}\n"), "%s", y);
    cr_assert(strstr(y, "  - {name: \"secret-c\", points: 50, tests: [\"secret-c-1\"], depends: [\"secret-a\"]}\n"),
              "%s", y);

    /* 2023-07: scoring: {score, aggregation}, a group's score inferred */
    put("s/data/secret/a/test_group.yaml", "scoring:\n  score: 40\n");
    put("s/data/secret/b/test_group.yaml", "scoring:\n  aggregation: pass-fail\n");
    test_in("s", "secret/a/1");
    test_in("s", "secret/b/1");
    cr_assert_eq(convert_scoring("s", "problem_format_version: 2023-07-draft\nname: S\ntype: scoring\n", &errors),
                 0, "%s", errors);
    free(errors);
    y = converted("s");
    cr_assert(strstr(y, "{name: \"secret-a\", points: 40, ") && strstr(y, "{name: \"secret-b\", points: 60, "),
              "%s", y);

    static const struct { const char *file, *yaml, *expect; } cases[] = {
        {"data/secret/test_group.yaml", "max_score: unbounded\n",
         "data/secret/test_group.yaml:1: max_score: 'unbounded' is not converted"},
        {"data/secret/a/test_group.yaml", "max_score: 150\n",
         "data/secret:0: score: the groups' scores add up to 150, more than the group's 100"},
        {"data/secret/a/test_group.yaml", "max_score: 10\nrequire_pass: secret/b\n",
         "data/secret/a/test_group.yaml:2: require_pass: 'secret/b' is not a group judged before secret/a"},
        {"data/secret/b/test_group.yaml", "max_score: 10\noutput_validator_args: [float_tolerance, 1e-3, frob]\n",
         "data/secret/b/test_group.yaml:2: output_validator_args: unknown flag 'frob'"},
        {"data/secret/a/test_group.yaml", "scoring: {score: 10, aggregation: max}\n",
         "data/secret/a/test_group.yaml:1: scoring.aggregation: expected pass-fail, sum or min"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char sub[16], p[300];
        snprintf(sub, sizeof sub, "ts%zu", i);
        snprintf(p, sizeof p, "%s/%s", sub, cases[i].file);
        put(p, cases[i].yaml);
        test_in(sub, "secret/a/1");
        test_in(sub, "secret/b/1");
        cr_assert_geq(convert_scoring(sub, "problem_format_version: 2025-09\nname: S\ntype: scoring\n", &errors), 1,
                      "%s", cases[i].yaml);
        cr_assert(strstr(errors, cases[i].expect), "%s: %s", cases[i].yaml, errors);
        free(errors);
    }
}

/* limits: every key mapped or refused naming it */
Test(store_unit, icpc_limits_are_mapped_or_refused_by_name)
{
    char *errors;
    test_in("lm", "secret/1");
    cr_assert_eq(convert_scoring("lm", "problem_format_version: 2025-09\nname: L\nlimits:\n  time_limit: 1.5\n"
                                       "  memory: 512\n  output: 16\n  compilation_time: 90\n"
                                       "  compilation_memory: 3000\n"
                                       "  time_multipliers: {ac_to_time_limit: 2.5, time_limit_to_tle: 1.5}\n"
                                       "  time_resolution: 0.5\n", &errors), 0, "%s", errors);
    free(errors);
    const char *y = converted("lm");
    cr_assert(strstr(y, "time_limit: 1.500s\nmemory_limit: 512M\noutput_limit: 16M\non_output_limit: truncate\n"
                        "compile_limits: {time: 90.000s, memory: 3000M}\n"), "%s", y);
    test_in("lx", "secret/1");
    cr_assert_eq(convert_scoring("lx", "name: L\nlimits:\n  code: 128\n  validation_time: 60\n"
                                       "  validation_memory: 1024\n"
                                       "  frobs: 3\n  time_multipliers: {ac_to_tle: 2}\n", &errors), 5, "%s", errors);
    cr_assert(strstr(errors, "problem.yaml:3: limits.code: not converted") &&
              strstr(errors, "problem.yaml:4: limits.validation_time: not converted") &&
              strstr(errors, "problem.yaml:5: limits.validation_memory: not converted") &&
              strstr(errors, "problem.yaml:6: limits.frobs: unknown key") &&
              strstr(errors, "problem.yaml:7: limits.time_multipliers.ac_to_tle: unknown key"), "%s", errors);
    free(errors);
}

/* output validator arguments of the groups follow validator_flags (float
 * tolerances of the default validator included): the first group's are
 * the problem's, a group whose differ gives its tests their own checker
 * (default validator) or their own args (custom validator) */
Test(store_unit, group_output_validator_arguments_follow_each_group)
{
    char *errors;
    put("oa/data/testdata.yaml", "output_validator_flags: float_tolerance 1e-3\n");
    test_in("oa", "sample/1");
    test_in("oa", "secret/a/1");
    cr_assert_eq(convert_scoring("oa", "name: O\nvalidator_flags: case_sensitive\n", &errors), 0, "%s", errors);
    free(errors);
    cr_assert(strstr(converted("oa"), "checker: {type: float, case_sensitive: true, space_change_sensitive: false, "
                                      "absolute_tolerance: 0.001, relative_tolerance: 0.001}"), "%s", converted("oa"));
    /* 2023-07: output_validator_args, inherited, to a custom validator */
    put("ob/output_validator/v.c", "int main(void){return 42;}\n");
    put("ob/data/secret/test_group.yaml", "output_validator_args: [--mode, strict]\n");
    put("ob/data/secret/a/test_group.yaml", "input_validator_args: [--small]\n");
    test_in("ob", "secret/a/1");
    test_in("ob", "secret/b/1");
    cr_assert_eq(convert_scoring("ob", "problem_format_version: 2023-07-draft\nname: O\n", &errors), 0, "%s",
                 errors);
    free(errors);
    cr_assert(strstr(converted("ob"), "args: [\"--mode\", \"strict\"]}"), "%s", converted("ob"));
    /* legacy groups that differ: secret/b's tests get their own checker,
     * the problem's flags (case_sensitive) before the group's */
    put("oc/data/secret/a/testdata.yaml", "output_validator_flags: float_tolerance 1e-3\n");
    put("oc/data/secret/b/testdata.yaml", "output_validator_flags: float_absolute_tolerance 0.5\n");
    test_in("oc", "secret/a/1");
    test_in("oc", "secret/b/1");
    test_in("oc", "secret/c/1");
    cr_assert_eq(convert_scoring("oc", "name: O\nvalidator_flags: case_sensitive\n", &errors), 0, "%s", errors);
    free(errors);
    const char *y = converted("oc");
    cr_assert(strstr(y, "\nchecker: {type: float, case_sensitive: true, space_change_sensitive: false, "
                        "absolute_tolerance: 0.001, relative_tolerance: 0.001}\n"), "%s", y);
    cr_assert(strstr(y, "  - {name: \"secret-a-1\", input: \"data/secret/a/1.in\", output: \"data/secret/a/1.ans\"}\n"),
              "the first group's tests keep the problem's checker: %s", y);
    cr_assert(strstr(y, "  - {name: \"secret-b-1\", input: \"data/secret/b/1.in\", output: \"data/secret/b/1.ans\", "
                        "checker: {type: float, case_sensitive: true, space_change_sensitive: false, "
                        "absolute_tolerance: 0.5}}\n"), "%s", y);
    cr_assert(strstr(y, "  - {name: \"secret-c-1\", input: \"data/secret/c/1.in\", output: \"data/secret/c/1.ans\", "
                        "checker: {type: tokens, case_sensitive: true, space_change_sensitive: false}}\n"),
              "a group with no flags of its own: the problem's validator_flags alone: %s", y);
    /* a bad flag of the problem's own is said once, at problem.yaml, not
     * again for each group that adds its own */
    put("oe/data/secret/a/testdata.yaml", "output_validator_flags: float_tolerance 1e-3\n");
    put("oe/data/secret/b/testdata.yaml", "output_validator_flags: float_tolerance 1e-6\n");
    test_in("oe", "secret/a/1");
    test_in("oe", "secret/b/1");
    cr_assert_eq(convert_scoring("oe", "name: O\nvalidator_flags: frob\n", &errors), 1, "%s", errors);
    cr_assert(strstr(errors, "problem.yaml:2: validator_flags: unknown flag 'frob'"), "%s", errors);
    free(errors);
    /* 2023-07 groups calling a custom validator their own way (an empty
     * list is no arguments at all) */
    put("od/output_validator/v.c", "int main(void){return 42;}\n");
    put("od/data/secret/test_group.yaml", "output_validator_args: [mode, lenient]\n");
    put("od/data/secret/hard/test_group.yaml", "output_validator_args: [mode, strict]\n");
    put("od/data/secret/none/test_group.yaml", "output_validator_args: []\n");
    test_in("od", "secret/easy/1");
    test_in("od", "secret/hard/1");
    test_in("od", "secret/none/1");
    cr_assert_eq(convert_scoring("od", "problem_format_version: 2023-07-draft\nname: O\n", &errors), 0, "%s",
                 errors);
    free(errors);
    y = converted("od");
    cr_assert(strstr(y, "protocol: kattis, args: [\"mode\", \"lenient\"]}\n"), "%s", y);
    cr_assert(strstr(y, "output: \"data/secret/easy/1.ans\"}\n"), "%s", y);
    cr_assert(strstr(y, "output: \"data/secret/hard/1.ans\", args: [\"mode\", \"strict\"]}\n"), "%s", y);
    cr_assert(strstr(y, "output: \"data/secret/none/1.ans\", args: []}\n"), "%s", y);
}

/* Kattis' rule (verify.c): legacy rounds slowest x time_multiplier to whole
 * seconds (at least 1) and the TLE margin to at least a second more;
 * 2023-07+ takes the smallest multiple of time_resolution. */
Test(store_unit, time_limits_are_derived_by_kattis_rule)
{
    struct store_time_rule legacy = {.ac_factor = 5, .tle_factor = 2, .resolution = 1};
    double tl, tle;
    store_time_derive(&legacy, 0.31, &tl, &tle);
    cr_assert_float_eq(tl, 2.0, 1e-9);     /* 1.55 rounds to 2 */
    cr_assert_float_eq(tle, 3.0, 1e-9);    /* round(3.1) = 3 */
    store_time_derive(&legacy, 0.001, &tl, &tle);
    cr_assert_float_eq(tl, 1.0, 1e-9);
    cr_assert_float_eq(tle, 2.0, 1e-9);
    struct store_time_rule modern = {.modern = true, .ac_factor = 2, .tle_factor = 1.5, .resolution = 0.5};
    store_time_derive(&modern, 0.8, &tl, &tle);
    cr_assert_float_eq(tl, 2.0, 1e-9);     /* 1.6 -> the next multiple of 0.5 */
    cr_assert_float_eq(tle, 3.0, 1e-9);
    store_time_derive(&modern, 1.0, &tl, &tle);
    cr_assert_float_eq(tl, 2.0, 1e-9);     /* exactly 2.0 stays */

    put("problem.yaml", "problem_format_version: 2023-07-draft\nlimits:\n  time_multipliers:\n"
                        "    ac_to_time_limit: 3\n  time_resolution: 0.25\n");
    struct store_time_rule r;
    char *errors;
    cr_assert_eq(store_time_rule(dir, &r, &errors), 0, "%s", errors);
    cr_assert(r.modern);
    cr_assert_float_eq(r.ac_factor, 3.0, 1e-9);
    cr_assert_float_eq(r.tle_factor, 1.5, 1e-9);
    cr_assert_float_eq(r.resolution, 0.25, 1e-9);
    cr_assert_float_eq(r.time_limit, 0, 1e-9);
    put(".timelimit", "4\n");
    cr_assert_eq(store_time_rule(dir, &r, &errors), 0);
    cr_assert_float_eq(r.time_limit, 4.0, 1e-9);
}

/* The expectations' sets: per test (ICPC) and final verdict (DOMjudge). */
Test(store_unit, expected_results_are_read_and_checked)
{
    put("submissions/time_limit_exceeded/a.c", "int main(void){for(;;);}\n");
    put("submissions/accepted/b.cpp", "// @EXPECTED_RESULTS@: CORRECT,TIMELIMIT\nint main(){}\n");
    put("submissions/submissions.yaml", "time_limit_exceeded:\n  permitted: [AC, WA, TLE]\n");
    struct store_expected *xs;
    size_t n;
    char *errors;
    cr_assert_eq(store_expected_results(dir, &xs, &n, &errors), 0, "%s", errors);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(xs[0].path, "submissions/accepted/b.cpp");
    cr_assert_eq(xs[0].final, STORE_V_AC | STORE_V_TLE);
    cr_assert_eq(xs[0].time_use, STORE_TIME_NONE);
    cr_assert_str_eq(xs[1].path, "submissions/time_limit_exceeded/a.c");
    cr_assert_eq(xs[1].time_use, STORE_TIME_UPPER);
    char why[256];
    /* the folder's rule replaced key by key: WA now permitted, TLE still required */
    struct store_verify_seen wa_tle = {.tests = STORE_V_WA | STORE_V_TLE, .overall = STORE_V_WA};
    cr_assert(store_expected_met(&xs[1], &wa_tle, why, sizeof why), "%s", why);
    struct store_verify_seen wa = {.tests = STORE_V_AC | STORE_V_WA, .overall = STORE_V_WA};
    cr_assert_not(store_expected_met(&xs[1], &wa, why, sizeof why));
    cr_assert_str_eq(why, "no test got TLE");
    cr_assert_not(store_expected_met(&xs[0], &wa, why, sizeof why));
    cr_assert_str_eq(why, "final verdict WRONG-ANSWER");
    struct store_verify_seen re = {.tests = STORE_V_RTE, .overall = STORE_V_RTE};
    cr_assert_not(store_expected_met(&xs[1], &re, why, sizeof why));
    cr_assert_str_eq(why, "RTE not permitted");
    store_expected_free(xs, n);
}

/* partially_accepted (legacy, 2023-07): the final verdict AC and the score
 * below the most; kept through judge-api's record (JSON and back) */
Test(store_unit, partially_accepted_is_ac_below_the_most)
{
    put("submissions/partially_accepted/half.c", "int main(void){return 0;}\n");
    struct store_expected *xs, back;
    size_t n;
    char *errors, why[256];
    cr_assert_eq(store_expected_results(dir, &xs, &n, &errors), 0, "%s", errors);
    cr_assert_eq(n, 1);
    json_t *j = store_expected_json(&xs[0]);
    cr_assert_eq(store_expected_from_json(j, &back), 0);
    json_decref(j);
    const struct store_expected *both[] = {&xs[0], &back};
    for (int i = 0; i < 2; i++) {
        struct store_verify_seen half = {.tests = STORE_V_AC | STORE_V_WA, .overall = STORE_V_AC, .score = 40,
                                         .max_score = 100};
        cr_assert(store_expected_met(both[i], &half, why, sizeof why), "%s", why);
        struct store_verify_seen most = {.tests = STORE_V_AC, .overall = STORE_V_AC, .score = 100, .max_score = 100};
        cr_assert_not(store_expected_met(both[i], &most, why, sizeof why));
        cr_assert_str_eq(why, "score 100, the most the problem gives (partially accepted scores less)");
        struct store_verify_seen wa = {.tests = STORE_V_AC | STORE_V_WA, .overall = STORE_V_WA, .score = 40,
                                       .max_score = 100};
        cr_assert_not(store_expected_met(both[i], &wa, why, sizeof why));
        cr_assert_str_eq(why, "final verdict WA, not AC (partially accepted)");
    }
    store_expected_release(&back);
    store_expected_free(xs, n);
}

/* Expectations for some test groups only (2025-09): each group's rule
 * holds the runner's names of the tests it covers, survives judge-api's
 * record (JSON and back), and is checked against those tests' verdicts
 * as a report gives them. */
Test(store_unit, test_group_expectations_check_their_groups_tests)
{
    put("gx/data/sample/1.in", "1\n");
    put("gx/data/sample/1.ans", "1\n");
    put("gx/data/secret/1-easy/1.in", "1\n");
    put("gx/data/secret/1-easy/1.ans", "1\n");
    put("gx/data/secret/2-hard/1.in", "1\n");
    put("gx/data/secret/2-hard/1.ans", "1\n");
    put("gx/data/secret/2-hard/2.in", "1\n");
    put("gx/data/secret/2-hard/2.ans", "1\n");
    put("gx/submissions/slow/x.py", "print(1)\n");
    put("gx/submissions/submissions.yaml", "slow/x.py:\n  sample:\n    permitted: [AC]\n  secret/*-easy:\n"
                                           "    permitted: [AC]\n  secret/2-hard:\n    permitted: [AC, TLE]\n"
                                           "    required: [TLE]\n    message: too slow\n");
    char p[300], *errors, why[256];
    snprintf(p, sizeof p, "%s/gx", dir);
    struct store_expected *xs;
    size_t n;
    cr_assert_eq(store_expected_results(p, &xs, &n, &errors), 0, "%s", errors);
    cr_assert_eq(n, 1);
    cr_assert_eq(xs[0].ngroups, 3);
    cr_assert_eq(xs[0].groups[2].ntests, 2);
    cr_assert_str_eq(xs[0].groups[2].tests[0], "secret-2-hard-1");
    cr_assert_eq(xs[0].time_use, STORE_TIME_NONE, "a group's rule bounds no time limit");
    /* judge-api keeps it as JSON until the verdicts are in */
    json_t *j = store_expected_json(&xs[0]);
    struct store_expected x;
    cr_assert_eq(store_expected_from_json(j, &x), 0);
    json_decref(j);
    store_expected_free(xs, n);
    cr_assert_eq(x.ngroups, 3);
    cr_assert_str_eq(x.groups[1].group, "secret/*-easy");
    static const struct {
        const char *tests, *why;
    } cases[] = {
        {"AC,AC,AC,TLE", ""},
        {"AC,WA,SKIPPED,SKIPPED", "secret/*-easy: WA not permitted"},
        {"AC,AC,AC,AC", "secret/2-hard: no test got TLE"},
        {"AC,AC,TLE,SKIPPED", ""},
        {"AC,AC,SKIPPED,SKIPPED", "secret/2-hard: none of its 2 tests ran (judging stops at the first failure)"},
    };
    static const char *names[] = {"sample-1", "secret-1-easy-1", "secret-2-hard-1", "secret-2-hard-2"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char copy[64], *save = NULL;
        snprintf(copy, sizeof copy, "%s", cases[i].tests);
        json_t *tests = json_array();
        int k = 0;
        for (char *v = strtok_r(copy, ",", &save); v; v = strtok_r(NULL, ",", &save), k++)
            json_array_append_new(tests, json_pack("{s:s, s:s, s:f, s:s}", "name", names[k], "verdict", v,
                                                   "cpu_time", 0.1, "checker_message",
                                                   !strcmp(v, "TLE") ? "too slow, sorry" : ""));
        json_t *rep = json_pack("{s:s, s:f, s:o}", "verdict", strstr(cases[i].tests, "WA") ? "WA" : "TLE", "score",
                                0.0, "tests", tests);
        char *text = json_dumps(rep, 0);
        json_decref(rep);
        struct store_verify_outcome o = {0};
        store_verify_read_report(text, &o);
        free(text);
        bool met = store_expected_met(&x, &o.seen, why, sizeof why);
        cr_expect_eq(met, !cases[i].why[0], "%s: %s", cases[i].tests, why);
        cr_expect_str_eq(why, cases[i].why, "%s", cases[i].tests);
        store_verify_outcome_free(&o);
    }
    store_expected_release(&x);
    /* an entry's own key of the wrong type is said as such, not read as a group */
    put("gx/submissions/submissions.yaml", "slow/x.py:\n  language: [python3]\n  permitted: [AC]\n");
    cr_assert_eq(store_expected_results(p, &xs, &n, &errors), 1, "%s", errors);
    cr_assert(strstr(errors, "submissions/submissions.yaml:2: language: expected a string"), "%s", errors);
    free(errors);
    store_expected_free(xs, n);
}

/* issue 40, finding 3: each {a,b} group of a submissions.yaml key doubled
 * the matching (24 kept a judge-api thread busy for minutes). A key's
 * groups, a group's alternatives and what they expand to are bounded, and
 * refused naming the file, the line and the key, before any matching. */
Test(store_unit, brace_patterns_are_bounded, .timeout = 10)
{
    char many[400] = "", wide[400] = "{", deep[200] = "", yaml[1600];
    for (int i = 0; i < 24; i++)
        strcat(many, "{a,b}");
    for (int i = 0; i < 40; i++)
        snprintf(wide + strlen(wide), sizeof wide - strlen(wide), "%sx%d", i ? "," : "", i);
    strcat(wide, "}.c");
    for (int i = 0; i < 5; i++)
        strcat(deep, "{a,b,c,d}");
    snprintf(yaml, sizeof yaml, "accepted:\n  permitted: [AC]\n\"%s.c\":\n  permitted: [AC]\n\"%s\":\n"
             "  permitted: [AC]\n\"%s.c\":\n  permitted: [AC]\n", many, wide, deep);
    put("submissions/accepted/x.c", "int main(void){return 0;}\n");
    put("submissions/submissions.yaml", yaml);
    struct store_expected *xs;
    size_t n;
    char *errors;
    cr_assert_eq(store_expected_results(dir, &xs, &n, &errors), 3, "%s", errors);
    cr_assert(strstr(errors, "submissions/submissions.yaml:3: {a,b}{a,b}") &&
              strstr(errors, ": 24 {...} groups in one pattern, at most 8"), "%s", errors);
    cr_assert(strstr(errors, "submissions/submissions.yaml:5: {x0,x1,") &&
              strstr(errors, ": 40 alternatives in one {...} group, at most 32\n"), "%s", errors);
    cr_assert(strstr(errors, "submissions/submissions.yaml:7: {a,b,c,d}{a,b,c,d}") &&
              strstr(errors, ": its {...} groups expand to more than 256 patterns\n"), "%s", errors);
    free(errors);
    store_expected_free(xs, n);
}

static bool stop_now(void *arg)
{
    ++*(int *)arg;
    return true;
}

/* issue 40, finding 3: keys within the bounds can still add up (keys x
 * programs x their folders): all the matching of one reading is bounded,
 * and judge-api's stop() (the client left) ends it, both said naming the
 * key being matched. */
Test(store_unit, the_matching_of_one_reading_is_bounded_and_stops, .timeout = 30)
{
    static char yaml[200 * 80];
    size_t len = 0;
    for (int i = 0; i < 200; i++)   /* 256 patterns each, none matching */
        len += (size_t)snprintf(yaml + len, sizeof yaml - len,
                                "\"k%d{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}\":\n  permitted: [AC]\n", i);
    put("submissions/submissions.yaml", yaml);
    for (int i = 0; i < 100; i++) {
        char p[100];
        snprintf(p, sizeof p, "submissions/accepted/p%03d.c", i);
        put(p, "int main(void){return 0;}\n");
    }
    struct store_expected *xs;
    size_t n;
    char *errors;
    cr_assert_eq(store_expected_results(dir, &xs, &n, &errors), 1, "%s", errors);
    cr_assert(strstr(errors, "submissions/submissions.yaml:") &&
              strstr(errors, ": matching the patterns against the package's programs and tests took more than "
                             "10000000 comparisons: use fewer or simpler patterns"), "%s", errors);
    free(errors);
    store_expected_free(xs, n);
    int asked = 0;
    cr_assert_eq(store_expected_results_until(dir, stop_now, &asked, &xs, &n, &errors), 1, "%s", errors);
    cr_assert(strstr(errors, "submissions/submissions.yaml:15: k7{a,b}") &&
              strstr(errors, ": stopped while matching the patterns: the request was given up\n"), "%s", errors);
    cr_assert_eq(asked, 1, "asked after the first 4096 comparisons (8 keys x 256 patterns x 2 paths), and not again");
    free(errors);
    store_expected_free(xs, n);
}

/* Keys that do not change judging are kept and ignored: a 2025-09
 * pass-fail problem's visualizer arguments per test group, and
 * problem.yaml's credits, licence, uuid, sources and constants */
Test(store_unit, keys_that_do_not_affect_judging_are_ignored)
{
    char *errors;
    test_in("vis", "secret/g1/1");
    put("vis/data/secret/g1/test_group.yaml", "input_visualizer_args: [--small]\noutput_visualizer_args: [--zoom, 2]\n");
    put("vis/input_visualizer/draw.py", "print('a picture')\n");
    cr_assert_eq(convert_scoring("vis", "problem_format_version: 2025-09\nname: V\ntype: pass-fail\n"
                                        "uuid: 2b3c4d5e-0000-4000-8000-000000000001\n"
                                        "credits: {authors: [A. Setter], testers: [B. Tester]}\n"
                                        "license: cc by-sa\nrights_owner: A. Setter\n"
                                        "source: {name: A Contest 2025, url: https://example.org}\n"
                                        "constants: {max_n: 1000}\n", &errors), 0, "%s", errors);
    free(errors);
    cr_assert(strstr(converted("vis"), "name: \"vis\""), "%s", converted("vis"));
}
