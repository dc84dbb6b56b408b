/*
 * test_prepared.c - a language's prepared files (runner/prepared.c) with the
 * real compilers and the real sandbox: the shipped cpp.yaml's precompiled
 * <bits/stdc++.h> and java.yaml's class-data sharing archive.
 *
 * What must hold: a submission including <bits/stdc++.h> compiles with the
 * precompiled header (GCC's -H marks a used one with "!") and gets the same
 * verdict as without it; another flag in the language file gives another
 * entry (and the old one goes); a corrupted .gch or archive is found by its
 * hash, removed and rebuilt, never used; the JVM maps the archive. Nothing
 * here measures time (bench_latency does). Needs root (the sandbox).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <time.h>

#include "helpers.h"
#include "runner.h"

#define SRC JUDGED_SOURCE_DIR
/* slots 940..947: clear of the other suites' (see test_judge.c); a slot and
 * its companion held per test process (test_slot_group) */
#define FIRST_SLOT test_slot_group(940, 4, 2)
/* one per build tree: a .gch takes ~10-40 s to build here */
#define PREPARED BIN_DIR "/../runner-test-prepared"
#define WORK BIN_DIR "/../runner-test-prepared-work"
#define PCH_USED "! /prepared/bits/stdc++.h.gch"

static const char aplusb_bits[] = "#include <bits/stdc++.h>\nusing namespace std;\n"
                                  "int main(){long long a,b;cin>>a>>b;cout<<a+b<<endl;}\n";

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* replaces the first `from` in s by `to` (s is malloc'ed; returns the new one) */
static char *replace(char *s, const char *from, const char *to)
{
    char *hit = strstr(s, from);
    cr_assert_not_null(hit, "'%s' not found in the language file", from);
    char *out = NULL;
    cr_assert_geq(asprintf(&out, "%.*s%s%s", (int)(hit - s), s, to, hit + strlen(from)), 0);
    free(s);
    return out;
}

/* a languages dir holding the shipped cpp.yaml with -H in its compile
 * (GCC then lists the headers it reads, "!" marking a used .gch) and, when
 * optimise is not NULL, -O2 replaced by it in the compile and the build */
static char *cpp_languages(const char *optimise)
{
    char *dir = scratch_dir("prepared-langs");
    char *text = replace(slurp(SRC "/languages/cpp.yaml"), "-O2, -pipe, -o", "-O2, -pipe, -H, -o");
    if (optimise) {
        char o[64];
        snprintf(o, sizeof o, "%s, -pipe, -H, -o", optimise);
        text = replace(text, "-O2, -pipe, -H, -o", o);
        snprintf(o, sizeof o, "%s, -pipe, -x", optimise);
        text = replace(text, "-O2, -pipe, -x", o);
    }
    put_file(dir, "cpp.yaml", "%s", text);
    free(text);
    return dir;
}

static struct runner *open_with(const char *languages, const char *prepared, bool off)
{
    struct runner_config cfg = {.languages_dir = languages, .work_dir = WORK,
                                .first_slot = FIRST_SLOT, .slots = 1,
                                .prepared_dir = prepared, .prepare_off = off};
    struct runner *r = NULL;
    char err[4096];
    cr_assert_eq(runner_open(&r, &cfg, err, sizeof err), 0, "runner_open: %s", err);
    return r;
}

struct judged {
    enum runner_verdict verdict;
    char *json;   /* the report */
};

/* judges src with a comment that makes it new: the compile cache never
 * answers, the compiler runs */
static struct judged judge(const char *languages, const char *prepared, bool off,
                           const char *problem, const char *lang, const char *src)
{
    struct runner *r = open_with(languages, prepared, off);
    char *unique = NULL;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    cr_assert_geq(asprintf(&unique, "%s// %d %lld.%09ld\n", src, (int)getpid(),
                           (long long)now.tv_sec, now.tv_nsec), 0);
    struct runner_request req = {.problem_dir = problem, .language = lang, .source = unique,
                                 .source_len = strlen(unique)};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    char err[1024];
    cr_assert_eq(runner_judge(r, &req, &rep, &failure, err, sizeof err), 0, "%s", err);
    struct judged j = {runner_report_verdict(rep), runner_report_json(rep)};
    cr_assert(!strstr(j.json, "\"cached\":true"), "the compile cache answered: %s", j.json);
    runner_report_free(rep);
    runner_close(r);
    free(unique);
    return j;
}

/* the single path matching pattern; NULL when none */
static char *one_match(const char *pattern)
{
    glob_t g;
    char *path = NULL;
    if (glob(pattern, 0, NULL, &g) == 0) {
        cr_assert_eq(g.gl_pathc, 1, "%zu entries match %s", g.gl_pathc, pattern);
        path = strdup(g.gl_pathv[0]);
    }
    globfree(&g);
    return path;
}

/* the 4 KiB corrupt() overwrites are its junk */
static bool holds_junk(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "%s", path);
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0, "%s", path);
    char got[4096], junk[4096];
    memset(junk, 0x5a, sizeof junk);
    cr_assert_eq(pread(fd, got, sizeof got, st.st_size / 2), (ssize_t)sizeof got);
    close(fd);
    return !memcmp(got, junk, sizeof junk);
}

/* overwrites 4 KiB in the middle of path (root may, sealed or not) */
static void corrupt(const char *path)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "%s", path);
    int fd = open(path, O_WRONLY);
    cr_assert_geq(fd, 0, "%s", path);
    char junk[4096];
    memset(junk, 0x5a, sizeof junk);
    cr_assert_eq(pwrite(fd, junk, sizeof junk, st.st_size / 2), (ssize_t)sizeof junk);
    close(fd);
}

Test(pch, used_and_same_verdict_as_without, .timeout = 600)
{
    char *langs = cpp_languages(NULL);
    struct judged with = judge(langs, PREPARED, false, SRC "/testdata/aplusb", "cpp", aplusb_bits);
    struct judged without = judge(langs, PREPARED, true, SRC "/testdata/aplusb", "cpp", aplusb_bits);
    cr_expect_eq(with.verdict, RUNNER_AC, "%s", with.json);
    cr_expect_eq(without.verdict, RUNNER_AC, "%s", without.json);
    cr_expect(strstr(with.json, PCH_USED), "the .gch was not used: %s", with.json);
    cr_expect(!strstr(without.json, "/prepared/"), "prepare_off still used it: %s", without.json);
    cr_expect(strstr(without.json, "bits/stdc++.h"), "-H lists the header: %s", without.json);
    free(with.json);
    free(without.json);
    remove_dir(langs);
    free(langs);
}

Test(pch, changed_flag_builds_another_and_retires_the_old_in_use, .timeout = 900)
{
    char *prep = scratch_dir("prepared-flags");
    char *o2 = cpp_languages(NULL), *o1 = cpp_languages("-O1");
    char pattern[1024];
    snprintf(pattern, sizeof pattern, "%s/cpp-*/files/bits/stdc++.h.gch", prep);
    struct judged a = judge(o2, prep, false, SRC "/testdata/aplusb", "cpp", aplusb_bits);
    char *first = one_match(pattern);
    /* a box that mounted the -O2 entry holds its directory, as this fd does */
    cr_assert_not_null(first);
    char *bits = strdup(first);
    *strrchr(bits, '/') = 0;
    int mounted = open(bits, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(mounted, 0, "%s", bits);
    struct judged b = judge(o1, prep, false, SRC "/testdata/aplusb", "cpp", aplusb_bits);
    char *second = one_match(pattern);   /* exactly one: the -O2 entry is retired */
    struct stat held;
    cr_expect_eq(fstatat(mounted, "stdc++.h.gch", &held, 0), 0,
                 "a box using the replaced entry lost its header midway: %s", strerror(errno));
    close(mounted);
    free(bits);
    snprintf(pattern, sizeof pattern, "%s/.retired-*-cpp-*/files/bits/stdc++.h.gch", prep);
    char *retired = one_match(pattern);
    cr_expect_not_null(retired, "the -O2 entry was not kept as retired");
    free(retired);
    cr_expect_eq(a.verdict, RUNNER_AC, "%s", a.json);
    cr_expect_eq(b.verdict, RUNNER_AC, "%s", b.json);
    cr_assert_not_null(first);
    cr_assert_not_null(second);
    cr_expect_str_neq(first, second, "-O1 reused the -O2 entry %s", first);
    cr_expect(strstr(a.json, PCH_USED), "%s", a.json);
    cr_expect(strstr(b.json, PCH_USED), "the -O1 .gch was not used: %s", b.json);
    free(a.json);
    free(b.json);
    free(first);
    free(second);
    remove_dir(o1);
    remove_dir(o2);
    remove_dir(prep);
    free(o1);
    free(o2);
    free(prep);
}

/* a manifest check of the entry holding path: sha256sum of sums' lines */
static int sums_hold(const char *files_path)
{
    char *cmd = NULL;
    cr_assert_geq(asprintf(&cmd, "cd '%s' && awk '{print $1 \"  \" $4}' ../sums | "
                                 "sha256sum --quiet -c -", files_path), 0);
    int rc = system(cmd);
    free(cmd);
    return rc;
}

Test(pch, corrupted_gch_is_rebuilt_never_used, .timeout = 600)
{
    char *langs = cpp_languages(NULL);
    char pattern[1024];
    snprintf(pattern, sizeof pattern, "%s/cpp-*/files/bits/stdc++.h.gch", PREPARED);
    struct judged a = judge(langs, PREPARED, false, SRC "/testdata/aplusb", "cpp", aplusb_bits);
    char *gch = one_match(pattern);
    cr_assert_not_null(gch);
    corrupt(gch);
    cr_assert(holds_junk(gch));
    struct judged b = judge(langs, PREPARED, false, SRC "/testdata/aplusb", "cpp", aplusb_bits);
    char *again = one_match(pattern);
    cr_assert_not_null(again);
    cr_expect_eq(b.verdict, RUNNER_AC, "%s", b.json);
    cr_expect(strstr(b.json, PCH_USED), "the rebuilt .gch was not used: %s", b.json);
    cr_expect(!holds_junk(again), "the corrupted .gch was kept");
    char *files = strdup(again);
    *strstr(files, "/bits/") = 0;
    cr_expect_eq(sums_hold(files), 0, "the entry in use does not match its sums");
    free(a.json);
    free(b.json);
    free(gch);
    free(again);
    free(files);
    remove_dir(langs);
    free(langs);
}

/* prints whether the JVM maps a shared archive and which file it was given */
static const char java_probe[] =
    "public class Main { public static void main(String[] a) {\n"
    "  System.out.println(System.getProperty(\"java.vm.info\").contains(\"sharing\") ? "
    "\"sharing\" : \"no sharing\");\n"
    "  for (String s : java.lang.management.ManagementFactory.getRuntimeMXBean()"
    ".getInputArguments())\n"
    "    if (s.startsWith(\"-XX:SharedArchiveFile\")) System.out.println(s);\n"
    "} }\n";

/* a problem whose answer is what java_probe prints with the archive */
static char *probe_problem(void)
{
    char *dir = scratch_dir("prepared-java");
    put_file(dir, "problem.yaml", "name: probe\ntime_limit: 5s\nmemory_limit: 256M\n"
                                  "checker: lines\n");
    put_file(dir, "tests/1.in", "\n");
    put_file(dir, "tests/1.out", "sharing\n-XX:SharedArchiveFile=/prepared/run.jsa\n");
    return dir;
}

Test(jvm_archive, mapped_by_runs_and_off_without_it, .timeout = 600)
{
    char *prob = probe_problem();
    struct judged with = judge(SRC "/languages", PREPARED, false, prob, "java", java_probe);
    struct judged without = judge(SRC "/languages", PREPARED, true, prob, "java", java_probe);
    cr_expect_eq(with.verdict, RUNNER_AC, "the archive is not mapped: %s", with.json);
    cr_expect_eq(without.verdict, RUNNER_WA, "prepare_off still passes it: %s", without.json);
    free(with.json);
    free(without.json);
    remove_dir(prob);
    free(prob);
}

Test(jvm_archive, corrupted_archive_is_rebuilt_never_used, .timeout = 600)
{
    char *prob = probe_problem();
    char pattern[1024];
    snprintf(pattern, sizeof pattern, "%s/java-*/files/run.jsa", PREPARED);
    struct judged a = judge(SRC "/languages", PREPARED, false, prob, "java", java_probe);
    char *jsa = one_match(pattern);
    cr_assert_not_null(jsa);
    corrupt(jsa);
    cr_assert(holds_junk(jsa));
    struct judged b = judge(SRC "/languages", PREPARED, false, prob, "java", java_probe);
    char *again = one_match(pattern);
    cr_assert_not_null(again);
    cr_expect_eq(a.verdict, RUNNER_AC, "%s", a.json);
    cr_expect_eq(b.verdict, RUNNER_AC, "%s", b.json);
    cr_expect(!holds_junk(again), "the corrupted archive was kept");
    char *files = strdup(again);
    *strrchr(files, '/') = 0;
    cr_expect_eq(sums_hold(files), 0, "the entry in use does not match its sums");
    free(a.json);
    free(b.json);
    free(jsa);
    free(again);
    free(files);
    remove_dir(prob);
    free(prob);
}

/* java.yaml's choice of the class to run, made by MainFinder inside javac
 * with the prepared files and by javap without them: the same class either
 * way. Only the chosen class prints "ok". */
static const struct {
    const char *why, *src;
} java_mains[] = {
    {"the submission's public type before another class by name",
     "class Aux { public static void main(String[] a) { System.out.println(\"Aux\"); } }\n"
     "public class Zed { public static void main(String[] a) { System.out.println(\"ok\"); } }\n"},
    {"a class named Main before the public type",
     "public class Zed { public static void main(String[] a) { System.out.println(\"Zed\"); } }\n"
     "class Main { public static void main(String[] a) { System.out.println(\"ok\"); } }\n"},
    {"a nested class in a package, String... and its binary name",
     "package p.q;\npublic class Outer {\n"
     "  static void main(String[] a) { System.out.println(\"package-private\"); }\n"
     "  public static class In { public static void main(String... a) { System.out.println(\"ok\"); } }\n"
     "  public static int main(int a) { return a; } }\n"},
    {"no eligible main is CE",
     "public class Q { private static void main(String[] a) {} }\n"
     "class R { public static int main(String[] a) { return 0; } }\n"
     "class S { public void main(String[] a) {} }\n"
     "class T { class String {} public static void main(String[] a) {} }\n"},
};

Test(jvm_archive, main_class_is_the_same_with_and_without_prepared_files, .timeout = 600)
{
    char *prob = scratch_dir("prepared-main");
    put_file(prob, "problem.yaml", "name: main\ntime_limit: 5s\nmemory_limit: 256M\n");
    put_file(prob, "tests/1.in", "\n");
    put_file(prob, "tests/1.out", "ok\n");
    size_t n = sizeof java_mains / sizeof java_mains[0];
    for (size_t i = 0; i < n; i++)
        for (int off = 0; off < 2; off++) {
            struct judged j = judge(SRC "/languages", PREPARED, off, prob, "java", java_mains[i].src);
            enum runner_verdict want = i + 1 < n ? RUNNER_AC : RUNNER_CE;
            cr_expect_eq(j.verdict, want, "%s (%s prepared files): %s", java_mains[i].why,
                         off ? "without" : "with", j.json);
            if (want == RUNNER_CE)
                cr_expect(strstr(j.json, "no class has a method public static void main"), "%s",
                          j.json);
            free(j.json);
        }
    remove_dir(prob);
    free(prob);
}
