/* test_polygon_unit.c - Polygon packages (issue 23) converted by the
 * problem store, without Redis or sandbox (label unit, also under ASan +
 * UBSan): the packages of tests/judged/polygon/ (written in Polygon's
 * layout for these tests) become runner problems with subtasks, checkers,
 * interactors and a submissions.yaml; bad packages are refused with every
 * error naming problem.xml's line and the element or attribute, and
 * nothing is written. Judging and pushing them: test_polygon.c. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

static char dir[64];
static char pkg[300];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/polygon-unit-XXXXXX");
    cr_assert(mkdtemp(dir));
}

static void teardown(void)
{
    store_remove_tree(dir);
}

TestSuite(polygon_unit, .init = setup, .fini = teardown);

/* A copy of tests/judged/polygon/NAME in dir; pkg is its path. */
static const char *copy_package(const char *name)
{
    char from[600], err[512];
    snprintf(from, sizeof from, "%s/%s", POLYGON_DIR, name);
    snprintf(pkg, sizeof pkg, "%s/%s", dir, name);
    cr_assert_eq(store_copy_tree(from, pkg, 0, err, sizeof err), 0, "%s", err);
    return pkg;
}

/* The text of pkg/REL (static; "" when missing). */
static char *text(const char *rel)
{
    static char buf[65536];
    char p[700];
    snprintf(p, sizeof p, "%s/%s", pkg, rel);
    FILE *f = fopen(p, "r");
    buf[0] = 0;
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
    }
    return buf;
}

static void write_text(const char *rel, const char *s)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", pkg, rel);
    FILE *f = fopen(p, "w");
    cr_assert(f, "%s", p);
    fputs(s, f);
    fclose(f);
}

/* problem.xml with the first OLD replaced by NEW. */
static void edit(const char *old, const char *new)
{
    char *xml = strdup(text("problem.xml")), *at = strstr(xml, old);
    cr_assert(at, "'%s' not in problem.xml", old);
    size_t len = strlen(xml) + strlen(new) + 1;
    char *out = malloc(len);
    snprintf(out, len, "%.*s%s%s", (int)(at - xml), xml, new, at + strlen(old));
    write_text("problem.xml", out);
    free(out);
    free(xml);
}

static bool exists(const char *rel)
{
    char p[700];
    snprintf(p, sizeof p, "%s/%s", pkg, rel);
    return access(p, F_OK) == 0;
}

/* The conversion's errors (and warnings); nothing written when it failed. */
static char *refused(int errors)
{
    static char copy[16384];
    char *e = NULL;
    int n = store_convert(pkg, "p", &e);
    snprintf(copy, sizeof copy, "%s", e ? e : "");
    free(e);
    cr_assert_eq(n, errors, "%s", copy);
    cr_assert(!exists("problem.yaml"), "nothing converted: %s", text("problem.yaml"));
    return copy;
}

static char *converted(void)
{
    static char copy[16384];
    char *e = NULL;
    cr_assert_str_eq(store_package_format(pkg), "polygon");
    int n = store_convert(pkg, "p", &e);
    snprintf(copy, sizeof copy, "%s", e ? e : "");
    free(e);
    cr_assert_eq(n, 0, "%s", copy);
    cr_assert_null(store_package_format(pkg), "a converted package is the runner's (problem.xml kept)");
    return copy;
}

Test(polygon_unit, groups_with_points_and_dependencies_become_subtasks)
{
    copy_package("sumgroups");
    char *xml = strdup(text("problem.xml"));
    char *notes = converted();
    cr_assert(strstr(notes, "problem.xml:38: judging/testset: warning: testset 'pretests' ignored"), "%s", notes);
    const char *y = text("problem.yaml");
    cr_assert(strstr(y, "title: \"Sum in groups\"\ntime_limit: 1.000s\nmemory_limit: 268435456\ntype: batch\n"), "%s", y);
    cr_assert(strstr(y, "checker: {type: custom, source: \"files/check.cpp\", protocol: testlib}\n"), "%s", y);
    cr_assert(strstr(y, "  - {name: \"1\", input: \"tests/01\", output: \"tests/01.a\"}\n"), "%s", y);
    cr_assert(strstr(y, "subtasks:\n"
                        "  - {name: \"0-1\", points: 0, tests: [1]}\n"
                        "  - {name: \"1\", points: 40, tests: [2, 3], depends: [\"0-1\"]}\n"
                        "  - {name: \"2\", points: 60, tests: [4, 5, 6], depends: [\"1\"]}\n"
                        "stop_on_failure: subtask\n"), "%s", y);
    cr_assert_str_eq(text("problem.xml"), xml, "problem.xml is kept as it came");
    free(xml);
    const char *s = text("submissions/submissions.yaml");
    cr_assert(strstr(s, "\"solutions/sum.cpp\":   # Polygon tag main, type cpp.g++17\n  language: cpp\n"
                        "  model_solution: true\n  permitted: [AC]\n"), "%s", s);
    cr_assert(strstr(s, "\"solutions/sum.py\":   # Polygon tag accepted, type python.3\n  language: python3\n"
                        "  permitted: [AC]\n"), "%s", s);
    cr_assert(strstr(s, "\"solutions/overflow.cpp\":   # Polygon tag wrong-answer, type cpp.gcc13-64-winlibs-g++20\n"
                        "  language: cpp\n  permitted: [AC, WA]\n  required: [WA]\n"), "%s", s);
    cr_assert(strstr(s, "\"solutions/one.cpp\":   # Polygon tag rejected, type cpp.g++17\n  language: cpp\n"
                        "  required: [WA, TLE, RTE]\n"), "%s", s);
    cr_assert(strstr(s, "\"solutions/slow.c\":   # Polygon tag time-limit-exceeded, type c.gcc\n  language: c\n"
                        "  permitted: [AC, TLE]\n  required: [TLE]\n"), "%s", s);
    char *orig = strdup(text("solutions/one.cpp"));
    cr_assert_str_eq(text("submissions/solutions/one.cpp"), orig, "the schema finds the files under submissions/");
    free(orig);
}

Test(polygon_unit, each_test_groups_are_a_subtask_per_test)
{
    copy_package("sumgroups");
    edit("name=\"1\" points=\"40.0\" points-policy=\"complete-group\"", "name=\"1\" points-policy=\"each-test\"");
    converted();
    const char *y = text("problem.yaml");
    cr_assert(strstr(y, "  - {name: \"1-2\", points: 20, tests: [2], depends: [\"0-1\"]}\n"
                        "  - {name: \"1-3\", points: 20, tests: [3], depends: [\"0-1\"]}\n"
                        "  - {name: \"2\", points: 60, tests: [4, 5, 6], depends: [\"1-2\", \"1-3\"]}\n"), "%s", y);
}

Test(polygon_unit, an_interactor_and_a_std_checker)
{
    copy_package("guessnum");
    converted();
    const char *y = text("problem.yaml");
    cr_assert(strstr(y, "title: \"Guess the number\"\n"), "English first: %s", y);
    cr_assert(strstr(y, "type: interactive\ninteractor: {source: \"files/interactor.cpp\", protocol: testlib}\n"
                        "checker: tokens   # Polygon's std::wcmp.cpp\n"), "%s", y);
    cr_assert(strstr(y, "stop_on_failure: all\n") && !strstr(y, "subtasks:"), "no points: pass/fail: %s", y);
    cr_assert(strstr(text("submissions/submissions.yaml"), "\"solutions/bsearch.py\":   # Polygon tag accepted, type "
                                                           "python.pypy3\n  language: pypy3\n"));
}

Test(polygon_unit, std_checkers_without_a_builtin_use_the_shipped_source)
{
    copy_package("average");
    converted();
    cr_assert(strstr(text("problem.yaml"), "time_limit: 2.000s\nmemory_limit: 67108864\ntype: batch\n"
                                           "checker: {type: float, epsilon: 1e-6}   # Polygon's std::rcmp6.cpp\n"));
    store_remove_tree(pkg);
    copy_package("average");
    edit("std::rcmp6.cpp", "std::ncmp.cpp");
    converted();
    cr_assert(strstr(text("problem.yaml"), "checker: {type: custom, source: \"files/check.cpp\", protocol: testlib}\n"),
              "%s", text("problem.yaml"));
}

Test(polygon_unit, missing_pieces_are_named_with_their_lines)
{
    copy_package("sumgroups");
    edit("<time-limit>1000</time-limit>", "");
    edit("<answer-path-pattern>tests/%02d.a</answer-path-pattern>", "");
    edit("<test-count>6</test-count>", "<test-count>7</test-count>");
    char *e = refused(3);
    cr_assert(strstr(e, "problem.xml:10: testset/time-limit: missing\n"), "%s", e);
    cr_assert(strstr(e, "problem.xml:10: testset/answer-path-pattern: missing\n"), "%s", e);
    cr_assert(strstr(e, "problem.xml:13: testset/test-count: 7, but testset/tests lists 6 <test> elements\n"), "%s", e);
    cr_assert(!exists("submissions"), "nothing written");

    store_remove_tree(pkg);
    copy_package("sumgroups");
    edit("<assets>", "<assets-renamed>");
    edit("</assets>", "</assets-renamed>");
    e = refused(1);
    cr_assert(strstr(e, "problem.xml:1: assets/checker: missing\n") || strstr(e, "assets/checker: missing"), "%s", e);
}

Test(polygon_unit, a_pattern_that_names_no_file)
{
    copy_package("sumgroups");
    char p[700];
    snprintf(p, sizeof p, "%s/tests/05.a", pkg);
    cr_assert_eq(unlink(p), 0);
    char *e = refused(1);
    cr_assert(strstr(e, "problem.xml:15: testset/answer-path-pattern: 'tests/%02d.a' names no file for test 5 "
                        "(tests/05.a)\n"), "%s", e);
    /* a pattern is read, never handed to printf; it must stay inside */
    store_remove_tree(pkg);
    copy_package("sumgroups");
    edit("tests/%02d</input", "tests/%s%n</input");
    edit("tests/%02d.a", "../%02d.a");
    e = refused(2);
    cr_assert(strstr(e, "problem.xml:14: testset/input-path-pattern: 'tests/%s%n' is not a path pattern with one %d"),
              "%s", e);
    cr_assert(strstr(e, "problem.xml:15: testset/answer-path-pattern: '../%02d.a' is not a path pattern"), "%s", e);
}

Test(polygon_unit, a_source_type_no_language_serves_and_an_unknown_tag)
{
    copy_package("sumgroups");
    edit("type=\"python.3\"", "type=\"scala\"");
    edit("tag=\"rejected\"", "tag=\"almost\"");
    char *e = refused(1);   /* the tag; the language is a warning (a_solution_in_a_language_not_served...) */
    cr_assert(strstr(e, "problem.xml:72: solution/source@type: warning: 'scala' (solutions/sum.py) is not a "
                        "language this judge serves"), "%s", e);
    cr_assert(strstr(e, "problem.xml:77: solution@tag: 'almost' (solutions/one.cpp) is not a tag of Polygon's"), "%s", e);
    cr_assert(!exists("submissions/submissions.yaml"));
    store_remove_tree(pkg);
    copy_package("sumgroups");
    edit("type=\"python.3\"", "type=\"python.2\"");
    cr_assert(strstr(converted(), "'python.2' (solutions/sum.py) is not a language this judge serves"));
    cr_assert(strstr(text("submissions/submissions.yaml"), "type python.2\n  language: polygon:python.2\n"));
}

/* Polygon's standard package: the generators and doall scripts, not the
 * tests they write. Refused with what to push instead. */
Test(polygon_unit, generated_tests_that_are_not_in_the_package)
{
    copy_package("sumgroups");
    for (int i = 4; i <= 6; i++) {
        char p[700];
        snprintf(p, sizeof p, "%s/tests/%02d", pkg, i);
        unlink(p);
        snprintf(p, sizeof p, "%s/tests/%02d.a", pkg, i);
        unlink(p);
    }
    write_text("doall.sh", "#!/bin/sh\ngen 4 > tests/04\n");
    for (int i = 0; i < 3; i++)
        edit("<test group=\"2\" method=\"manual\"", "<test group=\"2\" cmd=\"gen 4\" method=\"generated\"");
    char *e = refused(1);
    cr_assert(strstr(e, "problem.xml:20: testset/tests/test: 3 generated tests (the first: test 4) are not in the "
                        "package: it has doall scripts and generator sources, not the tests they make; push Polygon's "
                        "full package"), "%s", e);
}

/* judging@input-file / output-file: the runner's input_file / output_file
 * (olympiad packages read E.in and write E.out); stdin / stdout mean none */
Test(polygon_unit, input_and_output_files_become_the_runners)
{
    copy_package("sumgroups");
    edit("input-file=\"\"", "input-file=\"E.in\"");
    edit("output-file=\"\"", "output-file=\"E.out\"");
    converted();
    const char *y = text("problem.yaml");
    cr_assert(strstr(y, "input_file: \"E.in\"\noutput_file: \"E.out\"\n"), "%s", y);
    store_remove_tree(pkg);
    copy_package("sumgroups");
    edit("input-file=\"\"", "input-file=\"stdin\"");
    converted();
    y = text("problem.yaml");
    cr_assert(!strstr(y, "input_file"), "%s", y);
    store_remove_tree(pkg);
    copy_package("sumgroups");
    edit("input-file=\"\"", "input-file=\"../in/x\"");
    char *e = refused(1);
    cr_assert(strstr(e, "problem.xml:9: judging@input-file: '../in/x' is not a plain file name"), "%s", e);
}

/* issue 39: Polygon's Kotlin and PyPy types are languages here now (a real
 * package's Kotlin reference solution was refused, then kept unjudged) */
Test(polygon_unit, kotlin_and_pypy_solutions_are_judged_in_their_languages)
{
    copy_package("sumgroups");
    write_text("solutions/sum.kt", "fun main() { val (a, b) = readLine()!!.split(' ').map { it.toLong() }; "
                                   "println(a + b) }\n");
    edit("<source path=\"solutions/sum.cpp\" type=\"cpp.g++17\"/>",
         "<source path=\"solutions/sum.kt\" type=\"kotlin.1.9\"/>");
    char *e = NULL;
    cr_assert_eq(store_convert(pkg, "p", &e), 0, "%s", e ? e : "");
    cr_assert(!e || !strstr(e, "kotlin"), "no warning: %s", e);
    free(e);
    const char *y = text("submissions/submissions.yaml");
    cr_assert(strstr(y, "\"solutions/sum.kt\":   # Polygon tag main, type kotlin.1.9\n  language: kotlin\n"), "%s", y);
}

/* A reference solution in a language no pool here serves (Kotlin, tagged
 * main): the package converts, the solution is kept with its language
 * named, and the push says problem verify will not judge it */
Test(polygon_unit, a_solution_in_a_language_not_served_is_kept_not_refused)
{
    copy_package("sumgroups");
    write_text("solutions/sum.scala", "object Main extends App { println(1) }\n");
    edit("<source path=\"solutions/sum.cpp\" type=\"cpp.g++17\"/>",
         "<source path=\"solutions/sum.scala\" type=\"scala\"/>");
    char *e = NULL;
    int n = store_convert(pkg, "p", &e);
    cr_assert_eq(n, 0, "%s", e ? e : "");
    cr_assert(e && strstr(e, "'scala' (solutions/sum.scala) is not a language this judge serves") &&
              strstr(e, "kept as language 'polygon:scala'"), "%s", e ? e : "");
    free(e);
    const char *y = text("submissions/submissions.yaml");
    cr_assert(strstr(y, "\"solutions/sum.scala\":   # Polygon tag main, type scala\n  language: polygon:scala\n"),
              "%s", y);
    cr_assert(exists("submissions/solutions/sum.scala"), "copied with the others");
}

Test(polygon_unit, what_the_runner_cannot_judge_as_meant)
{
    copy_package("sumgroups");
    edit("<dependency group=\"0\"/>", "<dependency group=\"2\"/>");
    char *e = refused(1);
    cr_assert(strstr(e, "problem.xml:28: dependency@group: '2' is not an earlier group"), "%s", e);
    cr_assert(!exists("submissions"), "an error found while writing problem.yaml: no solutions copied either");
}

/* entities in an untrusted file: neither expanded nor fetched */
Test(polygon_unit, a_doctype_is_refused)
{
    copy_package("sumgroups");
    edit("<problem revision", "<!DOCTYPE problem [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;\">"
                              "<!ENTITY x SYSTEM \"file:///etc/shadow\">]>\n<problem revision");
    edit("value=\"Sum in groups\"", "value=\"&b;\"");
    char *e = refused(1);
    cr_assert(strstr(e, "problem.xml:2: (xml): a DOCTYPE is not accepted"), "%s", e);
    write_text("problem.xml", "<problem><judging>");
    e = refused(1);
    cr_assert(strstr(e, "problem.xml:1: (xml): "), "%s", e);
}

/* Polygon's source types and tags as the tables of runner/README.md say. */
Test(polygon_unit, source_types_and_tags)
{
    static const char *const types[][3] = {
        {"java11", "java", "memory-limit-exceeded"},
        {"java21", "java", "time-limit-exceeded-or-accepted"},
        {"pas.fpc", "pascal", "time-limit-exceeded-or-memory-limit-exceeded"},
        {"cpp.ms2017", "cpp", "presentation-error"},
        {"js.v8", "javascript", "accepted"},
        {"rust", "rust", "accepted"},
        {"go", "go", "failed"},
    };
    copy_package("sumgroups");
    char sols[4096] = "", p[700];
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        size_t len = strlen(sols);
        snprintf(sols + len, sizeof sols - len, "<solution tag=\"%s\"><source path=\"solutions/s%zu\" type=\"%s\"/>"
                 "</solution>\n", types[i][2], i, types[i][0]);
        snprintf(p, sizeof p, "solutions/s%zu", i);
        write_text(p, "source\n");
    }
    char repl[4200];
    snprintf(repl, sizeof repl, "<solutions>\n%s", sols);
    edit("<solutions>", repl);
    char *notes = converted();
    cr_assert(strstr(notes, "solution@tag: warning: solutions/s6 is tagged 'failed'"), "%s", notes);
    const char *y = text("submissions/submissions.yaml");
    for (size_t i = 0; i < sizeof types / sizeof *types - 1; i++) {
        char want[300];
        snprintf(want, sizeof want, "\"solutions/s%zu\":   # Polygon tag %s, type %s\n  language: %s\n", i, types[i][2],
                 types[i][0], types[i][1]);
        cr_assert(strstr(y, want), "%s in\n%s", want, y);
    }
    cr_assert(strstr(y, "\"solutions/s0\":   # Polygon tag memory-limit-exceeded, type java11\n  language: java\n"
                        "  permitted: [AC, RTE]\n  required: [RTE]\n"), "%s", y);
    cr_assert(strstr(y, "type pas.fpc\n  language: pascal\n  permitted: [AC, TLE, RTE]\n  required: [TLE, RTE]\n"),
              "%s", y);
    cr_assert(strstr(y, "type java21\n  language: java\n  permitted: [AC, TLE]\n") &&
              !strstr(y, "type java21\n  language: java\n  permitted: [AC, TLE]\n  required"), "%s", y);
    cr_assert(!strstr(y, "solutions/s6"), "'failed' is not an expected result: %s", y);

    /* "java" alone names no version; a type like "javascript" is not java */
    store_remove_tree(pkg);
    copy_package("sumgroups");
    edit("type=\"python.3\"", "type=\"javascript\"");
    cr_assert(strstr(converted(), "'javascript' (solutions/sum.py) is not a language"));
    cr_assert(strstr(text("submissions/submissions.yaml"), "language: polygon:javascript\n"),
              "never this project's javascript: %s", text("submissions/submissions.yaml"));
}

/* The runner judges at most 1000 subtasks: an each-test group of 1001
 * tests is refused at push, naming the testset, not converted into a
 * problem.yaml the runner would refuse. */
Test(polygon_unit, more_subtasks_than_the_runner_judges)
{
    copy_package("sumgroups");
    static char tests[1001 * 64];
    size_t len = 0;
    for (int i = 1; i <= 1001; i++) {
        char p[64];
        snprintf(p, sizeof p, "tests/%04d", i);
        write_text(p, "1\n1\n");
        snprintf(p, sizeof p, "tests/%04d.a", i);
        write_text(p, "1\n");
        len += (size_t)snprintf(tests + len, sizeof tests - len, "<test group=\"e\" points=\"1\"/>\n");
    }
    char *xml = strdup(text("problem.xml"));
    char *from = strstr(xml, "<test-count>"), *to = strstr(xml, "</groups>");
    cr_assert(from && to);
    size_t out_len = strlen(xml) + sizeof tests + 1000;
    char *out = malloc(out_len);
    snprintf(out, out_len, "%.*s<test-count>1001</test-count>\n<input-path-pattern>tests/%%04d</input-path-pattern>\n"
             "<answer-path-pattern>tests/%%04d.a</answer-path-pattern>\n<tests>%s</tests>\n<groups>\n"
             "<group name=\"e\" points-policy=\"each-test\"/>%s", (int)(from - xml), xml, tests, to);
    write_text("problem.xml", out);
    free(out);
    free(xml);
    char *e = refused(1);
    cr_assert(strstr(e, "problem.xml:10: testset/groups: 1001 subtasks (a group each, a test each of each-test groups "
                        "and of no group); the runner judges at most 1000"), "%s", e);
}

/* issue 40, finding 2: a group named twice among a group's dependencies
 * is refused, naming both lines; each repeat on an each-test group would
 * add a name per test to every subtask of the group. */
Test(polygon_unit, a_repeated_dependency_is_refused)
{
    copy_package("sumgroups");
    edit("<dependency group=\"1\"/>", "<dependency group=\"1\"/>\n<dependency group=\"0\"/><dependency group=\"1\"/>");
    char *e = refused(1);
    cr_assert(strstr(e, "problem.xml:34: dependency@group: '1' is named twice among group '2''s dependencies (first "
                        "at line 33)\n"), "%s", e);
    cr_assert(!exists("submissions"), "nothing written");
}

/* issue 40, finding 2: dependencies on each-test groups without repeats
 * can still name a test's subtask per test per subtask. The conversion
 * stops writing once problem.yaml would pass the runner's yaml_size (1
 * MiB): with the file size limit of the process at 1.25 MiB, a converter
 * that wrote it all and measured after would fail on EFBIG instead. */
Test(polygon_unit, a_conversion_larger_than_the_runner_reads_stops_while_writing)
{
    copy_package("sumgroups");
    enum { PER_GROUP = 100 };
    char g[121];
    memset(g, 'g', 120);
    g[120] = 0;
    static char tests[2 * PER_GROUP * 200];
    size_t len = 0;
    for (int i = 1; i <= 2 * PER_GROUP; i++) {
        char p[64];
        snprintf(p, sizeof p, "tests/%03d", i);
        write_text(p, "1\n1\n");
        snprintf(p, sizeof p, "tests/%03d.a", i);
        write_text(p, "1\n");
        len += (size_t)snprintf(tests + len, sizeof tests - len, "<test group=\"%s%s\" points=\"1\"/>\n",
                                i <= PER_GROUP ? "a" : "b", g);
    }
    char *xml = strdup(text("problem.xml"));
    char *from = strstr(xml, "<test-count>"), *to = strstr(xml, "</groups>");
    cr_assert(from && to);
    size_t out_len = strlen(xml) + sizeof tests + 2000;
    char *out = malloc(out_len);
    snprintf(out, out_len, "%.*s<test-count>%d</test-count>\n<input-path-pattern>tests/%%03d</input-path-pattern>\n"
             "<answer-path-pattern>tests/%%03d.a</answer-path-pattern>\n<tests>%s</tests>\n<groups>\n"
             "<group name=\"a%s\" points-policy=\"each-test\"/>\n<group name=\"b%s\" points-policy=\"each-test\">"
             "<dependencies><dependency group=\"a%s\"/></dependencies></group>\n%s",
             (int)(from - xml), xml, 2 * PER_GROUP, tests, g, g, g, to);
    write_text("problem.xml", out);
    free(out);
    free(xml);
    struct rlimit fsize = {(5u << 20) / 4, (5u << 20) / 4};
    signal(SIGXFSZ, SIG_IGN);
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &fsize), 0);
    char *e = refused(1);
    cr_assert(strstr(e, "problem.xml:219: groups/group: the subtasks of group 'bggggggg") &&
              strstr(e, "make problem.yaml larger than 1048576 bytes, the most the runner reads (yaml_size)"),
              "%s", e);
}

/* issue 40, finding 10: a converted scalar (a tag, a type, a name, a
 * path) with a control character or a line break YAML knows (NEL U+0085,
 * U+2028) is refused naming its line: written into a YAML comment or a
 * plain scalar, a line break would start a key of its own. */
Test(polygon_unit, control_characters_in_converted_scalars)
{
    static const char *const cases[][3] = {
        {"sum.cpp\" type=\"cpp.g++17\"", "sum.cpp\" type=\"cpp.g++17&#10;  required: [TLE]\"",
         "problem.xml:69: solution/source@type: a control character or line break (\\x0a) in "
         "'cpp.g++17\\x0a  required: [TLE]'"},
        {"type=\"python.3\"", "type=\"python.3&#133;  required: [TLE]\"",
         "problem.xml:72: solution/source@type: a control character or line break (U+0085) in 'python.3"},
        {"tag=\"rejected\"", "tag=\"rejected&#9;\"",
         "problem.xml:77: solution@tag: a control character or line break (\\x09) in 'rejected\\x09'"},
        {"<group feedback-policy=\"points\" name=\"2\"", "<group feedback-policy=\"points\" name=\"2&#x2028;x\"",
         "problem.xml:31: group@name: a control character or line break (U+2028) in '2"},
        {"value=\"Sum in groups\"", "value=\"Sum&#13;in groups\"",
         "problem.xml:4: name@value: a control character or line break (\\x0d) in 'Sum\\x0din groups'"},
        {"<dependency group=\"0\"/>", "<dependency group=\"0&#10;\"/>",
         "problem.xml:28: dependency@group: a control character or line break (\\x0a) in '0\\x0a'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        copy_package("sumgroups");
        edit(cases[i][0], cases[i][1]);
        char *e = refused(1);
        cr_assert(strstr(e, cases[i][2]), "%s in\n%s", cases[i][2], e);
        cr_assert(!exists("submissions"), "nothing written");
        store_remove_tree(pkg);
    }
}
