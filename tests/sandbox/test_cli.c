/*
 * test_cli.c - the judge-sandbox command-line contract.
 *
 * The CLI is run as a separate process (fork + exec of the built binary),
 * the way the judge and people use it:
 *   exit 0 whenever the program was run and judged, whatever its status;
 *   exit 1 when the sandbox failed (IE); exit 2 for a bad argument, with a
 *   message on stderr that names it; --help prints usage and exits 0;
 *   --json prints one JSON object (the last line of stdout) with status,
 *   exit_code, signal, cpu_time, wall_time and memory, message.
 * Hostile programs come from HOSTILE_DIR, mounted read-only at /hostile.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef JUDGE_SANDBOX
#error "JUDGE_SANDBOX must name the judge-sandbox binary"
#endif

/* Private to this build tree (see CMakeLists.txt); slots 980-999 here,
 * test_hostile.c has 900-979. */
#define RUN_DIR TEST_RUN_DIR
#define CGROUP_PARENT TEST_CGROUP_PARENT

static char tmp[64];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

static void init(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/judge-cli-test-XXXXXX");
    cr_assert(mkdtemp(tmp));
}

static void fini(void)
{
    if (tmp[0])
        nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(cli, .init = init, .fini = fini, .timeout = 30);

struct cli {
    int exit_status;    /* -1 if it did not exit normally */
    char *out, *err;
    json_t *json;       /* the last line of stdout, parsed (NULL if not JSON) */
};

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "re");
    cr_assert(f, "%s: %s", path, strerror(errno));
    char *buf = calloc(1, 1 << 20);
    cr_assert(buf);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static json_t *parse_last_line(const char *out)
{
    size_t n = strlen(out);
    while (n && out[n - 1] == '\n')
        n--;
    size_t start = n;
    while (start && out[start - 1] != '\n')
        start--;
    json_error_t e;
    return json_loadb(out + start, n - start, 0, &e);
}

/* Runs judge-sandbox with argv (NULL-terminated, without argv[0]). */
static void cli_run(struct cli *c, const char *const *args)
{
    const char *argv[64] = {JUDGE_SANDBOX};
    int n = 1;
    for (; args[n - 1]; n++) {
        cr_assert_lt(n, 63);
        argv[n] = args[n - 1];
    }
    argv[n] = NULL;
    char out_path[128], err_path[128];
    snprintf(out_path, sizeof out_path, "%s/cli.out", tmp);
    snprintf(err_path, sizeof err_path, "%s/cli.err", tmp);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
            dup2(err, 2) < 0)
            _exit(126);
        execv(JUDGE_SANDBOX, (char *const *)argv);
        _exit(127);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    c->exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    c->out = slurp(out_path);
    c->err = slurp(err_path);
    c->json = parse_last_line(c->out);
    cr_log_info("judge-sandbox exit %d, stdout: %.300s stderr: %.300s", c->exit_status, c->out,
                c->err);
}

#define CLI(c, ...) cli_run((c), (const char *const[]){__VA_ARGS__, NULL})
/* The options every boxed run here shares: our own slots and state. */
#define BOX(slot) "--json", "--box", #slot, "--run-dir", RUN_DIR, "--cgroup-parent", \
                  CGROUP_PARENT, "--ro", HOSTILE_DIR ":/hostile"

static void cli_free(struct cli *c)
{
    free(c->out);
    free(c->err);
    json_decref(c->json);
}

/* Every documented field is there with its type. */
static void expect_json_shape(const struct cli *c)
{
    cr_assert(c->json, "the last line of stdout is not JSON: %s", c->out);
    cr_assert(json_is_object(c->json));
    cr_assert(json_is_string(json_object_get(c->json, "status")));
    cr_assert(json_is_integer(json_object_get(c->json, "exit_code")));
    cr_assert(json_is_integer(json_object_get(c->json, "signal")));
    cr_assert(json_is_number(json_object_get(c->json, "cpu_time")));
    cr_assert(json_is_number(json_object_get(c->json, "wall_time")));
    cr_assert(json_is_integer(json_object_get(c->json, "memory")));
    cr_assert(json_is_string(json_object_get(c->json, "message")));
}

static const char *jstr(const struct cli *c, const char *key)
{
    const char *s = json_string_value(json_object_get(c->json, key));
    cr_assert(s, "no string %s in %s", key, c->out);
    return s;
}

static long long jint(const struct cli *c, const char *key)
{
    json_t *v = json_object_get(c->json, key);
    cr_assert(json_is_integer(v), "no integer %s in %s", key, c->out);
    return json_integer_value(v);
}

static void expect_judged(const struct cli *c, const char *status)
{
    expect_json_shape(c);
    cr_assert_str_eq(jstr(c, "status"), status, "%s", c->out);
    cr_assert_eq(c->exit_status, 0, "a judged run (%s) must exit 0, not %d", status,
                 c->exit_status);
}

/* ---- arguments -------------------------------------------------------- */

Test(cli, help)
{
    struct cli c;
    CLI(&c, "--help");
    cr_assert_eq(c.exit_status, 0);
    cr_assert(strstr(c.out, "usage: judge-sandbox"), "%s", c.out);
    cr_assert(strstr(c.out, "--json"));
    cli_free(&c);
}

static void expect_bad(const char *const *args, const char *named)
{
    struct cli c;
    cli_run(&c, args);
    cr_assert_eq(c.exit_status, 2, "a bad argument must exit 2, not %d", c.exit_status);
    cr_assert(strstr(c.err, named), "the message must name '%s': %s", named, c.err);
    cr_assert_null(c.json, "no verdict for a bad argument: %s", c.out);
    cli_free(&c);
}

Test(cli, bad_time)
{
    expect_bad((const char *const[]){"--time", "soon", "--", "/bin/true", NULL}, "soon");
    expect_bad((const char *const[]){"--time", "soon", "--", "/bin/true", NULL}, "--time");
}

Test(cli, bad_memory_size)
{
    expect_bad((const char *const[]){"--mem", "12Q", "--", "/bin/true", NULL}, "12Q");
}

Test(cli, bad_box)
{
    expect_bad((const char *const[]){"--box", "100000", "--", "/bin/true", NULL}, "100000");
    expect_bad((const char *const[]){"--box", "-1", "--", "/bin/true", NULL}, "--box");
}

Test(cli, unknown_option)
{
    expect_bad((const char *const[]){"--frobnicate", "--", "/bin/true", NULL}, "--frobnicate");
}

Test(cli, missing_value)
{
    expect_bad((const char *const[]){"--json", "--time", NULL}, "--time");
}

Test(cli, no_program)
{
    expect_bad((const char *const[]){"--json", "--time", "1", NULL}, "no program");
}

Test(cli, relative_workdir)
{
    expect_bad((const char *const[]){"--workdir", "box", "--", "/bin/true", NULL}, "box");
}

Test(cli, bad_env)
{
    expect_bad((const char *const[]){"--env", "NOEQUALS", "--", "/bin/true", NULL}, "NOEQUALS");
}

Test(cli, bad_cgroup_mode)
{
    expect_bad((const char *const[]){"--cgroup", "v3", "--", "/bin/true", NULL}, "v3");
}

/* ---- verdicts --------------------------------------------------------- */

Test(cli, ok_json_fields)
{
    struct cli c;
    CLI(&c, BOX(983), "--time", "1", "--mem", "64M", "--", "/bin/true");
    expect_judged(&c, "OK");
    cr_assert_eq(jint(&c, "exit_code"), 0);
    cr_assert_eq(jint(&c, "signal"), 0);
    cr_assert_geq(json_number_value(json_object_get(c.json, "wall_time")), 0);
    cr_assert_lt(json_number_value(json_object_get(c.json, "cpu_time")), 0.5);
    cli_free(&c);
}

Test(cli, re_exit_code)
{
    struct cli c;
    CLI(&c, BOX(984), "--time", "1", "--", "/hostile/crash", "exit42");
    expect_judged(&c, "RE");
    cr_assert_eq(jint(&c, "exit_code"), 42);
    cr_assert_eq(jint(&c, "signal"), 0);
    cli_free(&c);
}

Test(cli, re_signal)
{
    struct cli c;
    CLI(&c, BOX(985), "--time", "1", "--", "/hostile/crash", "segv");
    expect_judged(&c, "RE");
    cr_assert_eq(jint(&c, "signal"), 11);
    cli_free(&c);
}

Test(cli, tle_cpu)
{
    struct cli c;
    CLI(&c, BOX(986), "--time", "0.3", "--wall", "3", "--", "/hostile/busy_loop");
    expect_judged(&c, "TLE");
    cr_assert_str_eq(jstr(&c, "tle"), "cpu");
    cr_assert_geq(json_number_value(json_object_get(c.json, "cpu_time")), 0.3);
    cli_free(&c);
}

Test(cli, tle_wall)
{
    struct cli c;
    CLI(&c, BOX(987), "--time", "1", "--wall", "0.5", "--", "/hostile/sleeper");
    expect_judged(&c, "TLE");
    cr_assert_str_eq(jstr(&c, "tle"), "wall");
    cli_free(&c);
}

Test(cli, mle)
{
    struct cli c;
    CLI(&c, BOX(988), "--time", "2", "--mem", "32M", "--", "/hostile/mem_bomb");
    expect_judged(&c, "MLE");
    cr_assert_leq(jint(&c, "memory"), 33LL << 20);
    cli_free(&c);
}

Test(cli, ole)
{
    char out[128];
    snprintf(out, sizeof out, "%s/prog.out", tmp);
    struct cli c;
    CLI(&c, BOX(989), "--time", "1", "--output", "64k", "--stdout", out, "--",
        "/hostile/infinite_stdout");
    expect_judged(&c, "OLE");
    struct stat st;
    cr_assert_eq(stat(out, &st), 0);
    cr_assert_leq(st.st_size, (64 << 10) + 1);
    cli_free(&c);
}

Test(cli, sv_names_the_call)
{
    struct cli c;
    CLI(&c, BOX(990), "--time", "1", "--", "/hostile/syscalls", "ptrace");
    expect_judged(&c, "SV");
    cr_assert_str_eq(jstr(&c, "syscall"), "ptrace");
    cli_free(&c);
}

Test(cli, ie_exits_1)
{
    struct cli c;
    CLI(&c, BOX(991), "--time", "1", "--", "/no/such/program");
    expect_json_shape(&c);
    cr_assert_str_eq(jstr(&c, "status"), "IE");
    cr_assert_eq(c.exit_status, 1);
    cr_assert(strstr(jstr(&c, "message"), "/no/such/program"), "%s", c.out);
    cli_free(&c);
}

/* The program shares the CLI's stdout here: what it prints cannot pass for
 * the verdict, which is the last line. */
Test(cli, judge_words_on_shared_stdout)
{
    struct cli c;
    CLI(&c, BOX(992), "--time", "1", "--", "/hostile/judge_words");
    expect_judged(&c, "RE");
    cr_assert_eq(jint(&c, "exit_code"), 1);
    cr_assert(strstr(c.out, "{\"status\":\"OK\""), "the program's words went missing");
    cli_free(&c);
}

/* A fake verdict left open at the end of the shared stdout: the real one is
 * glued onto it, and the line must not read as OK (strict JSON refuses it). */
Test(cli, judge_words_glued_to_verdict)
{
    struct cli c;
    CLI(&c, BOX(996), "--time", "1", "--", "/hostile/judge_words", "nonl");
    cr_assert_eq(c.exit_status, 0);
    if (c.json)
        cr_assert_str_eq(jstr(&c, "status"), "RE", "the program forged the verdict: %s", c.out);
    cli_free(&c);
}

Test(cli, missing_stdin_file)
{
    struct cli c;
    CLI(&c, BOX(997), "--stdin", "/no/such/input", "--", "/bin/cat");
    cr_assert_eq(c.exit_status, 2);
    cr_assert(strstr(c.err, "/no/such/input"), "%s", c.err);
    cli_free(&c);
}

/* ---- files and environment ------------------------------------------- */

Test(cli, stdin_stdout_files)
{
    char in[128], out[128];
    snprintf(in, sizeof in, "%s/in.txt", tmp);
    snprintf(out, sizeof out, "%s/out.txt", tmp);
    FILE *f = fopen(in, "w");
    cr_assert(f);
    fputs("1 2\nthree\n", f);
    fclose(f);
    struct cli c;
    CLI(&c, BOX(993), "--time", "1", "--stdin", in, "--stdout", out, "--", "/bin/cat");
    expect_judged(&c, "OK");
    char *got = slurp(out);
    cr_assert_str_eq(got, "1 2\nthree\n");
    free(got);
    cli_free(&c);
}

Test(cli, environment_is_only_what_was_given)
{
    char out[128];
    snprintf(out, sizeof out, "%s/env.txt", tmp);
    setenv("JUDGE_CLI_TEST_SECRET", "leak", 1);
    struct cli c;
    CLI(&c, BOX(994), "--time", "1", "--env", "FOO=bar", "--stdout", out, "--", "/usr/bin/env");
    expect_judged(&c, "OK");
    char *got = slurp(out);
    cr_assert(strstr(got, "FOO=bar\n"), "%s", got);
    cr_assert(strstr(got, "PATH=/usr/local/bin:/usr/bin:/bin\n"), "%s", got);
    cr_assert(!strstr(got, "JUDGE_CLI_TEST_SECRET"), "the host environment leaked: %s", got);
    cr_assert(!strstr(got, "HOME="), "the host environment leaked: %s", got);
    free(got);
    cli_free(&c);
}

Test(cli, workdir_is_cwd_and_writable)
{
    char dir[128], file[160];
    snprintf(dir, sizeof dir, "%s/work", tmp);
    snprintf(file, sizeof file, "%s/made-inside", dir);
    cr_assert_eq(mkdir(dir, 0755), 0);
    struct cli c;
    CLI(&c, BOX(995), "--time", "1", "--workdir", dir, "--", "/usr/bin/touch", "made-inside");
    expect_judged(&c, "OK");
    struct stat st;
    cr_assert_eq(stat(file, &st), 0, "the file made in /box is not in the work directory");
    cr_assert_eq(st.st_uid, 60000 + 995, "owned by uid %d", (int)st.st_uid);
    cli_free(&c);
}
