/*
 * test_hostile.c - hostile problem packages through judgectl (issue 15):
 * `judgectl problem check` and `judgectl judge --json`, the real sandbox and
 * compilers. Needs root.
 *
 * What a user checks: a package that links out of itself, holds a FIFO or
 * has a 2 GiB answer is refused with a message naming the file (or judged
 * correctly and quickly), judgectl does not crash or hang, and the marker
 * of a root-only file appears nowhere in its output (stdout and stderr).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <sys/wait.h>

#include "packages.h"

/* slots 480..499 (a slot and its companion): clear of test_judge's (300..479)
 * and judgectl's default (500..599) */
#define SLOT test_slot_group(480, 10, 2)     /* held per test process */

static const char aplusb_c[] = "#include <stdio.h>\nint main(void){long a,b;"
                               "if(scanf(\"%ld %ld\",&a,&b)!=2)return 1;"
                               "printf(\"%ld\\n\",a+b);return 0;}\n";

/* runs judgectl ARGS (stdout and stderr); returns its exit status */
static int judgectl(const char *args, char **out)
{
    static char work[] = BIN_DIR "/../runner-test-work";
    char *cmd = NULL;
    cr_assert(asprintf(&cmd, "%s/judgectl %s --slot %d --work-dir %s 2>&1", BIN_DIR, args, SLOT,
                       work) > 0);
    FILE *p = popen(cmd, "r");
    free(cmd);
    size_t cap = 1 << 20, len = fread(*out = malloc(cap), 1, cap - 1, p);
    (*out)[len] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *source_file(void)
{
    char *dir = scratch_dir("src");
    put_file(dir, "ab.c", "%s", aplusb_c);
    return dir;
}

/* problem check fails naming `names`; judge --json is IE naming it too */
static void refused_everywhere(const char *pkg, const char *names, const struct secret *s)
{
    char *out, args[1024];
    snprintf(args, sizeof args, "problem check %s", pkg);
    int rc = judgectl(args, &out);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, names), "check names '%s': %s", names, out);
    cr_assert_null(strstr(out, s->marker), "the secret leaked: %s", out);
    free(out);
    char *src = source_file();
    snprintf(args, sizeof args, "judge --json --problem %s --lang c %s/ab.c", pkg, src);
    rc = judgectl(args, &out);
    cr_assert_eq(rc, 3, "the verdict IE (the problem's fault), exit status 3: %s", out);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_not_null(j, "%s", out);
    cr_assert_str_eq(json_string_value(json_object_get(j, "verdict")), "IE", "%s", out);
    cr_assert(strstr(json_string_value(json_object_get(j, "message")), names), "%s", out);
    cr_assert_null(strstr(out, s->marker), "the secret leaked: %s", out);
    json_decref(j);
    free(out);
    remove_dir(src);
    free(src);
}

Test(hostile, answer_linked_to_a_root_only_file, .timeout = 120)
{
    struct secret s = secret_make();
    char *pkg = aplusb_package("");
    put_link(pkg, "tests/1.out", s.path);
    refused_everywhere(pkg, "/tests/1.out:0: package: a symbolic link to", &s);
    remove_dir(pkg);
    free(pkg);
    secret_free(&s);
}

Test(hostile, problem_yaml_linked_to_a_root_only_file, .timeout = 120)
{
    struct secret s = secret_make();
    char *pkg = aplusb_package("");
    put_link(pkg, "problem.yaml", s.path);
    refused_everywhere(pkg, "/problem.yaml:0: package: a symbolic link to", &s);
    remove_dir(pkg);
    free(pkg);
    secret_free(&s);
}

Test(hostile, checker_source_linked_out, .timeout = 120)
{
    struct secret s = secret_make();
    char *pkg = aplusb_package("checker: {type: custom, source: checker.cpp}\n");
    put_link(pkg, "checker.cpp", s.path);
    refused_everywhere(pkg, "/checker.cpp:0: package: a symbolic link to", &s);
    remove_dir(pkg);
    free(pkg);
    secret_free(&s);
}

Test(hostile, header_beside_the_checker_linked_out, .timeout = 120)
{
    /* the compile would quote the header's first line in its error */
    struct secret s = secret_make();
    char *pkg = aplusb_package("checker: {type: custom, source: checker.cpp}\n");
    put_file(pkg, "checker.cpp", "#include \"testlib.h\"\nint main(void) { return 0; }\n");
    put_link(pkg, "testlib.h", s.path);
    refused_everywhere(pkg, "/testlib.h:0: package: a symbolic link to", &s);
    remove_dir(pkg);
    free(pkg);
    secret_free(&s);
}

Test(hostile, directory_linked_out, .timeout = 120)
{
    struct secret s = secret_make();
    char *pkg = aplusb_package("tests:\n  - 1\n  - {name: x, input: tests/1.in, "
                               "output: data/shadow}\n");
    put_link(pkg, "data", s.dir);
    refused_everywhere(pkg, "/data:0: package: a symbolic link to", &s);
    remove_dir(pkg);
    free(pkg);
    secret_free(&s);
}

Test(hostile, fifo_and_dev_zero_as_inputs, .timeout = 120)
{
    struct secret s = secret_make();     /* no link to it: the marker is simply absent */
    char *pkg = aplusb_package("");
    put_fifo(pkg, "tests/2.in");
    put_file(pkg, "tests/2.out", "4\n");
    put_link(pkg, "tests/3.in", "/dev/zero");
    put_file(pkg, "tests/3.out", "4\n");
    refused_everywhere(pkg, "/tests/2.in:0: package: a FIFO (named pipe)", &s);
    refused_everywhere(pkg, "/tests/3.in:0: package: a symbolic link to '/dev/zero'", &s);
    remove_dir(pkg);
    free(pkg);
    secret_free(&s);
}

Test(hostile, links_inside_and_a_sparse_2gib_answer_are_judged, .timeout = 120)
{
    char *pkg = aplusb_package("");
    put_link(pkg, "tests/2.in", "1.in");              /* inside: fine */
    put_link(pkg, "tests/2.out", "../tests/1.out");
    put_file(pkg, "tests/3.in", "2 2\n");
    put_sparse(pkg, "tests/3.out", "4\n", 2LL << 30);  /* "4", then 2 GiB of NULs */
    char *out, args[1024];
    snprintf(args, sizeof args, "problem check %s", pkg);
    int rc = judgectl(args, &out);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char *src = source_file();
    snprintf(args, sizeof args, "judge --json --problem %s --lang c %s/ab.c", pkg, src);
    rc = judgectl(args, &out);
    cr_assert_eq(rc, 0, "%s", out);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert_not_null(j, "%s", out);
    json_t *tests = json_object_get(j, "tests");
    cr_assert_eq(json_array_size(tests), 3, "%s", out);
    const char *v[3];
    for (size_t i = 0; i < 3; i++)
        v[i] = json_string_value(json_object_get(json_array_get(tests, i), "verdict"));
    cr_assert_str_eq(v[0], "AC", "%s", out);
    cr_assert_str_eq(v[1], "AC", "a link inside the package is followed: %s", out);
    cr_assert_str_eq(v[2], "WA", "the NULs after '4' are an extra token: %s", out);
    const char *msg = json_string_value(json_object_get(json_array_get(tests, 2),
                                                        "checker_message"));
    cr_assert(strstr(msg, "\\x00"), "%s", msg);
    json_decref(j);
    free(out);
    remove_dir(src);
    free(src);
    remove_dir(pkg);
    free(pkg);
}
