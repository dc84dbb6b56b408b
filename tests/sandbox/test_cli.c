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
 *
 * judge-sandbox is the thin client, which forwards its command line to the
 * server and falls back to judge-sandbox-core; its output must be the core's.
 * Runs go through the run directory's server, which the first one starts
 * (the tests race to start it, as clients do); the server's own tests use
 * run directories of their own, and --no-server runs are compared with it.
 * No server outlives the suite (POST_ALL stops them; a short --server-idle
 * is the backstop), and fini removes the network namespace pins that
 * --no-server runs leave.
 */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#ifndef JUDGE_SANDBOX
#error "JUDGE_SANDBOX must name the judge-sandbox binary"
#endif
#ifndef JUDGE_SANDBOX_CORE
#error "JUDGE_SANDBOX_CORE must name the judge-sandbox-core binary"
#endif

/* Private to this build tree (see CMakeLists.txt); slots 980-999, 850-859
 * and 870-879 here, test_hostile.c has 800-849, 860-869 and 880-979. */
#define RUN_DIR TEST_RUN_DIR
#define CGROUP_PARENT TEST_CGROUP_PARENT
/* Servers started by one test alone, beside RUN_DIR's. */
#define IDLE_DIR RUN_DIR "-idle"
#define PIPE_DIR RUN_DIR "-pipe"
#define MISMATCH_DIR RUN_DIR "-mismatch"
#define NONROOT_DIR RUN_DIR "-nonroot"
#define POOL_DIR RUN_DIR "-pool"
#define FALLBACK_DIR RUN_DIR "-fallback"
#define HOLDER_DIR RUN_DIR "-holder"
#define FIRST_SLOT 980
#define LAST_SLOT 999
#define EXTRA_FIRST_SLOT 850
#define EXTRA_LAST_SLOT 859
#define HARDENING_FIRST_SLOT 870
#define HARDENING_LAST_SLOT 879
#define BOX_UID(slot) (60000 + (slot))
#define NOBODY 65534

static char tmp[64];

static void sleep_ms(int ms)
{
    nanosleep(&(struct timespec){.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L}, NULL);
}

/* ---- servers, from the host's side ------------------------------------ */

/* The pid in <dir>/server.pid, or 0. */
static pid_t server_pid(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/server.pid", dir);
    FILE *f = fopen(path, "re");
    int pid = 0;
    if (f) {
        if (fscanf(f, "%d", &pid) != 1)
            pid = 0;
        fclose(f);
    }
    return pid;
}

/* Whoever holds <dir>/server.lock, or 0. */
static pid_t lock_holder(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/server.lock", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    pid_t pid = fd >= 0 && fcntl(fd, F_GETLK, &l) == 0 && l.l_type != F_UNLCK ? l.l_pid : 0;
    if (fd >= 0)
        close(fd);
    return pid;
}

/* Running, not a zombie (a started server is nobody's child: whoever
 * adopts it may not reap it). */
static bool alive(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

static bool socket_there(const char *dir)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/server.sock", dir);
    return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* SIGTERM to dir's server, and wait until it is gone. No cr_assert: the
 * POST_ALL hook uses it too. */
static void stop_server(const char *dir)
{
    pid_t pid = lock_holder(dir);
    if (pid <= 0 || kill(pid, SIGTERM) < 0)
        return;
    for (int i = 0; i < 300 && alive(pid); i++)
        sleep_ms(10);
}

/* --no-server runs pin each slot's network namespace with a bind mount at
 * <dir>/box-N/net; a pin may have been mounted more than once. */
static bool our_slot(int slot)
{
    return (slot >= FIRST_SLOT && slot <= LAST_SLOT) ||
           (slot >= EXTRA_FIRST_SLOT && slot <= EXTRA_LAST_SLOT) ||
           (slot >= HARDENING_FIRST_SLOT && slot <= HARDENING_LAST_SLOT);
}

static void unmount_pins(const char *dir)
{
    for (int slot = EXTRA_FIRST_SLOT; slot <= LAST_SLOT; slot++) {
        if (!our_slot(slot))
            continue;  /* test_hostile.c's, in the same run dir */
        char path[256];
        snprintf(path, sizeof path, "%s/box-%d/net", dir, slot);
        for (int i = 0; i < 16 && umount2(path, MNT_DETACH) == 0; i++)
            ;
    }
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    (void)stats;
    const char *dirs[] = {RUN_DIR, IDLE_DIR, PIPE_DIR, MISMATCH_DIR, NONROOT_DIR, POOL_DIR,
                          FALLBACK_DIR, HOLDER_DIR};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        stop_server(dirs[i]);
        unmount_pins(dirs[i]);
    }
}

/* Whether a process of this uid (real or effective) exists. */
static bool uid_has_process(uid_t uid)
{
    DIR *d = opendir("/proc");
    cr_assert(d);
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        char path[300], line[256];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        unsigned real, effective;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "Uid: %u %u", &real, &effective) == 2) {
                found = real == uid || effective == uid;
                break;
            }
        fclose(f);
    }
    closedir(d);
    return found;
}

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
    unmount_pins(RUN_DIR);
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

/* The CLI's stdio files are opened first, as root. */
static void drop_to(uid_t uid)
{
    if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
        _exit(125);
}

/* Runs bin with argv (NULL-terminated, without argv[0]) as uid, in cwd
 * (NULL: ours: for another uid, possibly one it may not even search). */
static void cli_exec(struct cli *c, const char *bin, const char *cwd, uid_t uid,
                     const char *const *args)
{
    const char *argv[64] = {bin};
    int n = 1;
    for (; args[n - 1]; n++) {
        cr_assert_lt(n, 63);
        argv[n] = args[n - 1];
    }
    argv[n] = NULL;
    char out_path[128], err_path[128];
    snprintf(out_path, sizeof out_path, "%s/cli.out", tmp);
    snprintf(err_path, sizeof err_path, "%s/cli.err", tmp);
    /* opened as root: the build tree may be where only root can go (a clone
     * under /root), and the binary is run from its fd as any uid */
    int exe = open(bin, O_RDONLY | O_CLOEXEC);
    cr_assert_geq(exe, 0, "%s: %s", bin, strerror(errno));
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int in = open("/dev/null", O_RDONLY);
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
            dup2(err, 2) < 0)
            _exit(126);
        if (cwd && chdir(cwd) < 0)
            _exit(124);
        if (uid)
            drop_to(uid);
        fexecve(exe, (char *const *)argv, environ);
        _exit(127);
    }
    close(exe);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    c->exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    c->out = slurp(out_path);
    c->err = slurp(err_path);
    c->json = parse_last_line(c->out);
    cr_log_info("%s exit %d, stdout: %.300s stderr: %.300s", bin, c->exit_status, c->out,
                c->err);
}

static void cli_run_as(struct cli *c, uid_t uid, const char *const *args)
{
    cli_exec(c, JUDGE_SANDBOX, NULL, uid, args);
}

static void cli_run(struct cli *c, const char *const *args)
{
    cli_run_as(c, 0, args);
}

#define CLI(c, ...) cli_run((c), (const char *const[]){__VA_ARGS__, NULL})
/* The options every boxed run here shares: our own slots and state, and a
 * server that goes away soon should the POST_ALL hook not stop it. */
#define BOX(slot) "--json", "--slot", #slot, "--run-dir", RUN_DIR, "--cgroup-parent", \
                  CGROUP_PARENT, "--ro", HOSTILE_DIR ":/hostile", "--server-idle", "10"

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
    cr_assert(strstr(c.out, "--no-server"));
    cr_assert(strstr(c.out, "--serve"));
    cr_assert(strstr(c.out, "--server-idle"));
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
    expect_bad((const char *const[]){"--slot", "100000", "--", "/bin/true", NULL}, "100000");
    expect_bad((const char *const[]){"--slot", "-1", "--", "/bin/true", NULL}, "--slot");
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

Test(cli, bad_server_idle)
{
    expect_bad((const char *const[]){"--server-idle", "soon", "--", "/bin/true", NULL}, "soon");
}

Test(cli, serve_takes_server_settings_only)
{
    expect_bad((const char *const[]){"--serve", "--", "/bin/true", NULL}, "/bin/true");
    expect_bad((const char *const[]){"--serve", "--time", "1", NULL}, "--time");
    expect_bad((const char *const[]){"--serve", "--no-server", NULL}, "--no-server");
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

/* ---- what an adversarial review got past the box (issue 12) ---------- */

/* item 1: blocks reserved beyond stdout's size are OLE, and not taken */
static void expect_cli_no_reservation(const char *slot, const char *mode)
{
    char out[128];
    snprintf(out, sizeof out, "%s/reserved.out", tmp);
    struct cli c;
    /* --box: the old name of --slot, still accepted */
    CLI(&c, "--json", "--box", slot, "--run-dir", RUN_DIR, "--cgroup-parent", CGROUP_PARENT,
        "--ro", HOSTILE_DIR ":/hostile", "--server-idle", "10", "--time", "1", "--output", "1M",
        "--stdout", out, "--", "/hostile/disk_reserve", mode, "256");
    expect_judged(&c, "OLE");
    cr_assert(strstr(jstr(&c, "message"), "reserve disk space"), "%s", c.out);
    struct stat st;
    cr_assert_eq(stat(out, &st), 0);
    cr_assert_leq((long long)st.st_blocks * 512, 64 << 10, "%s: %lld bytes allocated", mode,
                  (long long)st.st_blocks * 512);
    cli_free(&c);
}

Test(cli, fallocate_keep_size_is_ole)
{
    expect_cli_no_reservation("870", "keep_size");
}

Test(cli, resvsp_ioctl_is_ole)
{
    expect_cli_no_reservation("871", "resvsp");
}

/* item 2: loopback TCP buffers count against the memory limit, or are
 * capped at it (v1: memory.kmem.tcp); 256 MiB were held under 32M */
Test(cli, tcp_buffers_within_memory_limit)
{
    struct cli c;
    CLI(&c, BOX(872), "--time", "5", "--wall", "20", "--mem", "32M", "--procs", "64", "--",
        "/hostile/kmem_hoard", "tcp", "4");
    expect_json_shape(&c);
    const char *status = jstr(&c, "status");
    cr_assert(!strcmp(status, "OK") || !strcmp(status, "MLE"), "%s", c.out);
    const char *held = strstr(c.out, "held ");
    if (!strcmp(status, "OK"))
        cr_assert(held && atoll(held + 5) <= 33LL << 20, "%s", c.out);
    cli_free(&c);
}

/* item 3: what a jvm-profile program writes, it cannot start */
Test(cli, jvm_profile_cannot_run_what_it_writes)
{
    struct cli c;
    CLI(&c, BOX(873), "--time", "1", "--profile", "jvm", "--", "/hostile/exec_escape", "tmp");
    expect_judged(&c, "OK");
    cr_assert(strstr(c.out, "exec -1 EACCES") && !strstr(c.out, "child"), "%s", c.out);
    cli_free(&c);
    /* memfds: only where vm.memfd_noexec exists (Linux 6.3+), see the README */
    if (access("/proc/sys/vm/memfd_noexec", F_OK) != 0) {
        cr_log_info("no vm.memfd_noexec on this kernel: the memfd half is not checked");
        return;
    }
    CLI(&c, BOX(873), "--time", "1", "--profile", "jvm", "--", "/hostile/exec_escape", "memfd");
    expect_judged(&c, "OK");
    cr_assert(strstr(c.out, "memfd_create -1 EACCES") && !strstr(c.out, "child"), "%s", c.out);
    cli_free(&c);
}

/* item 5: a call newer than the review, and one the review denies */
Test(cli, unreviewed_call_is_sv)
{
    struct cli c;
    CLI(&c, BOX(874), "--time", "1", "--profile", "compile", "--", "/hostile/syscalls", "nr",
        "470");
    expect_judged(&c, "SV");
    cr_assert_str_eq(jstr(&c, "syscall"), "syscall 470");
    cli_free(&c);
    CLI(&c, BOX(874), "--time", "1", "--", "/hostile/syscalls", "nr", "467");
    expect_judged(&c, "SV");
    cr_assert_str_eq(jstr(&c, "syscall"), "open_tree_attr");
    cli_free(&c);
    CLI(&c, BOX(874), "--time", "1", "--", "/hostile/syscalls", "modify_ldt");
    expect_judged(&c, "SV");
    cr_assert_str_eq(jstr(&c, "syscall"), "modify_ldt");
    cli_free(&c);
}

/* item 6: neither end of a lock channel gets to take or test a lock */
Test(cli, lock_channel_is_sv)
{
    struct cli c;
    CLI(&c, BOX(875), "--time", "1", "--wall", "3", "--", "/hostile/lock_channel", "ofd", "send",
        "EXFIL");
    expect_judged(&c, "SV");
    cr_assert_str_eq(jstr(&c, "syscall"), "fcntl");
    cr_assert(!strstr(c.out, "sent"), "%s", c.out);
    cli_free(&c);
    CLI(&c, BOX(876), "--time", "1", "--wall", "3", "--", "/hostile/lock_channel", "posix", "recv",
        "5");
    expect_judged(&c, "SV");
    cr_assert_str_eq(jstr(&c, "syscall"), "fcntl");
    cli_free(&c);
}

/* item 7: the server keeps a slot's box between invocations; a third run
 * sees what the first saw, though the first two left traces */
Test(cli, runs_learn_nothing_of_earlier_runs)
{
    struct cli c;
    CLI(&c, BOX(877), "--time", "1", "--", "/hostile/run_state", "dirty");
    expect_judged(&c, "OK");
    char *first = strdup(c.out);
    cli_free(&c);
    CLI(&c, BOX(877), "--time", "1", "--", "/hostile/run_state", "dirty");
    expect_judged(&c, "OK");
    cli_free(&c);
    CLI(&c, BOX(877), "--time", "1", "--", "/hostile/run_state");
    expect_judged(&c, "OK");
    /* the JSON lines differ in their timings: compare what came before */
    size_t n = strstr(first, "{") ? (size_t)(strstr(first, "{") - first) : strlen(first);
    cr_assert(n > 0 && !strncmp(c.out, first, n), "third run:\n%s\nfirst:\n%s", c.out, first);
    free(first);
    cli_free(&c);
}

/* item 7 without the server: each invocation starts a keeper in the slot's
 * pinned network namespace, which an earlier run may have used */
Test(cli, no_server_runs_meet_an_unused_network)
{
    for (int i = 0; i < 3; i++) {
        struct cli c;
        CLI(&c, BOX(878), "--no-server", "--time", "1", "--", "/hostile/run_state", "dirty");
        expect_judged(&c, "OK");
        cr_assert(strstr(c.out, "tcp_opens 0\n"), "run %d:\n%s", i + 1, c.out);
        cli_free(&c);
    }
}

/* ---- the server ---------------------------------------------------------- */

Test(cli, second_run_reuses_the_server)
{
    struct cli c;
    CLI(&c, BOX(980), "--", "/bin/true");
    expect_judged(&c, "OK");
    cli_free(&c);
    pid_t first = server_pid(RUN_DIR);
    cr_assert_gt(first, 0, "no %s/server.pid after a run through the server", RUN_DIR);
    cr_assert(alive(first), "server.pid names pid %d, which is not running", (int)first);
    cr_assert_eq(lock_holder(RUN_DIR), first, "the server does not hold server.lock");
    CLI(&c, BOX(980), "--", "/bin/true");
    expect_judged(&c, "OK");
    cli_free(&c);
    cr_assert_eq(server_pid(RUN_DIR), first, "the second run started another server");
    cr_assert(alive(first));
}

/* Only the figures of a run may differ between two runs of one job. */
static bool is_figure(const char *key)
{
    return !strcmp(key, "cpu_time") || !strcmp(key, "wall_time") || !strcmp(key, "memory");
}

/* The thin client through the server and the core in process say the
 * same: the same exit status, the same stderr, the same JSON fields with the
 * same values but for the figures. */
static void expect_same_verdict(const struct cli *thin, const struct cli *core)
{
    cr_assert_eq(thin->exit_status, core->exit_status);
    cr_assert_str_eq(thin->err, core->err);
    cr_assert_eq(json_object_size(thin->json), json_object_size(core->json), "%s vs %s",
                 thin->out, core->out);
    const char *key;
    json_t *value;
    json_object_foreach(thin->json, key, value) {
        json_t *theirs = json_object_get(core->json, key);
        cr_assert(theirs, "--no-server has no %s", key);
        cr_assert(is_figure(key) || json_equal(value, theirs), "%s differs: %s vs %s", key,
                  thin->out, core->out);
    }
}

/* OK, RE (exit 3) and TLE from the thin client (through the server) and
 * from judge-sandbox-core --no-server, one after the other in one slot. */
Test(cli, thin_client_says_what_the_core_says)
{
    const char *const *runs[] = {
        (const char *const[]){"/bin/true", NULL},
        (const char *const[]){"/bin/sh", "-c", "exit 3", NULL},
        (const char *const[]){"/hostile/busy_loop", NULL},
    };
    static const char *const status[] = {"OK", "RE", "TLE"};
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        const char *args[32] = {BOX(981), "--time", "0.2", "--"};
        size_t n = 0;
        while (args[n])
            n++;
        for (const char *const *a = runs[i]; *a; a++)
            args[n++] = *a;
        struct cli thin, core;
        cli_run(&thin, args);
        expect_judged(&thin, status[i]);
        /* the same arguments with --no-server in front */
        memmove(args + 1, args, sizeof args - sizeof *args);
        args[0] = "--no-server";
        cli_exec(&core, JUDGE_SANDBOX_CORE, NULL, 0, args);
        expect_judged(&core, status[i]);
        expect_same_verdict(&thin, &core);
        if (i == 1)
            cr_assert_eq(jint(&thin, "exit_code"), 3);
        cli_free(&thin);
        cli_free(&core);
    }
}

/* The core through the server speaks the thin client's protocol and gets
 * the same reply: the same exit status, stderr and verdict. */
Test(cli, core_through_the_server_says_what_the_thin_client_says)
{
    const char *const args[] = {BOX(858), "--time", "1", "--", "/bin/sh", "-c", "exit 5", NULL};
    struct cli thin, core;
    cli_run(&thin, args);
    cli_exec(&core, JUDGE_SANDBOX_CORE, NULL, 0, args);
    expect_judged(&thin, "RE");
    expect_judged(&core, "RE");
    expect_same_verdict(&thin, &core);
    cr_assert_eq(jint(&core, "exit_code"), 5);
    cli_free(&thin);
    cli_free(&core);
}

/* A bad argument: exit 2 and the very same message from both. */
Test(cli, thin_client_bad_argument_is_the_cores)
{
    const char *const args[] = {BOX(850), "--time", "soon", "--", "/bin/true", NULL};
    struct cli thin, core;
    cli_run(&thin, args);
    cli_exec(&core, JUDGE_SANDBOX_CORE, NULL, 0, args);
    cr_assert_eq(thin.exit_status, 2);
    cr_assert_eq(core.exit_status, 2);
    cr_assert_str_eq(thin.err, core.err);
    cr_assert_str_eq(thin.out, core.out);
    cr_assert(strstr(thin.err, "soon"), "%s", thin.err);
    cli_free(&thin);
    cli_free(&core);
}

/* --help is the core's usage, exit 0. */
Test(cli, thin_client_help_is_the_cores)
{
    struct cli thin, core;
    cli_run(&thin, (const char *const[]){"--help", NULL});
    cli_exec(&core, JUDGE_SANDBOX_CORE, NULL, 0, (const char *const[]){"--help", NULL});
    cr_assert_eq(thin.exit_status, 0);
    cr_assert_str_eq(thin.out, core.out);
    cr_assert(strstr(thin.out, "usage: judge-sandbox"), "%s", thin.out);
    cli_free(&thin);
    cli_free(&core);
}

/* The server opens a relative --stdout in the client's cwd, not its own. */
Test(cli, relative_stdout_is_in_the_clients_cwd)
{
    char dir[128], out[160];
    snprintf(dir, sizeof dir, "%s/cwd", tmp);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    cr_assert_eq(mkdir(dir, 0755), 0);
    struct cli c;
    cli_exec(&c, JUDGE_SANDBOX, dir, 0,
             (const char *const[]){BOX(850), "--stdout", "out.txt", "--", "/bin/echo",
                                   "relative", NULL});
    expect_judged(&c, "OK");
    char *got = slurp(out);
    cr_assert_str_eq(got, "relative\n");
    free(got);
    cr_assert(access("/out.txt", F_OK) < 0, "the server wrote /out.txt");
    cli_free(&c);
}

/* With no server the thin client leaves the run to the core, which starts
 * one; the next run goes to that server. */
Test(cli, thin_client_falls_back_then_uses_the_server)
{
    stop_server(FALLBACK_DIR);
    cr_assert(!socket_there(FALLBACK_DIR));
    struct cli c;
    CLI(&c, BOX(851), "--run-dir", FALLBACK_DIR, "--", "/bin/true");
    expect_judged(&c, "OK");
    cli_free(&c);
    pid_t first = server_pid(FALLBACK_DIR);
    cr_assert(first > 0 && alive(first), "the first run started no server");
    for (int i = 0; i < 2; i++) {
        CLI(&c, BOX(851), "--run-dir", FALLBACK_DIR, "--", "/bin/true");
        expect_judged(&c, "OK");
        cli_free(&c);
    }
    cr_assert_eq(server_pid(FALLBACK_DIR), first, "a later run started another server");
    cr_assert(alive(first));
    stop_server(FALLBACK_DIR);
}

/* The connection is the run's cancel fd: a client that dies takes its box
 * along, as it did when the box was its own child. */
Test(cli, killed_client_kills_its_box)
{
    const char *argv[] = {JUDGE_SANDBOX, BOX(982), "--", "/bin/sleep", "30", NULL};
    cr_assert(!uid_has_process(BOX_UID(982)), "a process of box 982 is left from before");
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        for (int i = 0; i < 3; i++)
            dup2(null, i);
        execv(JUDGE_SANDBOX, (char *const *)argv);
        _exit(127);
    }
    for (int i = 0; i < 500 && !uid_has_process(BOX_UID(982)); i++)
        sleep_ms(10);
    cr_assert(uid_has_process(BOX_UID(982)), "the box's sleep never started");
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    for (int i = 0; i < 200 && uid_has_process(BOX_UID(982)); i++)
        sleep_ms(10);
    cr_assert(!uid_has_process(BOX_UID(982)),
              "2 s after its client was killed, box 982 still runs");
}

Test(cli, idle_server_exits_and_removes_its_socket)
{
    stop_server(IDLE_DIR);  /* one left by an interrupted run would not be idle 1 */
    struct cli c;
    CLI(&c, BOX(998), "--run-dir", IDLE_DIR, "--server-idle", "1", "--", "/bin/true");
    expect_judged(&c, "OK");
    cli_free(&c);
    pid_t pid = server_pid(IDLE_DIR);
    cr_assert_gt(pid, 0);
    for (int i = 0; i < 400 && (alive(pid) || socket_there(IDLE_DIR)); i++)
        sleep_ms(10);
    cr_assert(!alive(pid), "the server with --server-idle 1 still runs after 4 s");
    cr_assert(!socket_there(IDLE_DIR), "the idle server left its socket");
    cr_assert_eq(server_pid(IDLE_DIR), 0, "the idle server left server.pid");
}

/* The server does not keep the client's stdout: whoever reads it until EOF
 * gets EOF when the client exits, while the server it started lives on. */
Test(cli, started_server_keeps_no_pipe_open)
{
    stop_server(PIPE_DIR);  /* this run must be the one that starts it */
    int out[2];
    cr_assert_eq(pipe(out), 0);
    const char *argv[] = {JUDGE_SANDBOX, BOX(999), "--run-dir", PIPE_DIR, "--", "/bin/echo",
                          "through a pipe", NULL};
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(out[1], 1);
        dup2(null, 2);
        close(out[0]);
        execv(JUDGE_SANDBOX, (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    char buf[4096];
    size_t got = 0;
    struct pollfd p = {out[0], POLLIN, 0};
    ssize_t n = 1;
    while (n > 0 && got < sizeof buf - 1 && poll(&p, 1, 5000) == 1)
        if ((n = read(out[0], buf + got, sizeof buf - 1 - got)) > 0)
            got += (size_t)n;
    buf[got] = '\0';
    close(out[0]);
    int st;
    waitpid(pid, &st, 0);
    cr_assert_eq(n, 0, "no EOF on the CLI's stdout within 5 s: %s", buf);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", buf);
    cr_assert(strstr(buf, "through a pipe\n") && strstr(buf, "\"status\":\"OK\""), "%s", buf);
    pid_t server = server_pid(PIPE_DIR);
    cr_assert(server > 0 && alive(server), "the run did not start a server that stays");
    stop_server(PIPE_DIR);
}

/* judge-sandbox --serve in the background, its stderr in log; returns once
 * it listens. */
static pid_t start_serve(const char *dir, const char *log, const char *cgroup_mode)
{
    stop_server(dir);
    const char *argv[] = {JUDGE_SANDBOX, "--serve", "--run-dir", dir, "--cgroup", cgroup_mode,
                          "--cgroup-parent", CGROUP_PARENT, "--server-idle", "20", NULL};
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        int err = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(null, 0);
        dup2(null, 1);
        dup2(err, 2);
        execv(JUDGE_SANDBOX, (char *const *)argv);
        _exit(127);
    }
    for (int i = 0; i < 300 && (!socket_there(dir) || lock_holder(dir) != pid); i++)
        sleep_ms(10);
    cr_assert(socket_there(dir) && lock_holder(dir) == pid, "--serve does not listen in %s", dir);
    return pid;
}

/* SIGTERM: --serve stops and exits 0. */
static void stop_serve(pid_t pid)
{
    int st;
    kill(pid, SIGTERM);
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "--serve ended with status %#x", st);
}

Test(cli, server_with_other_settings_refuses)
{
    char log[128];
    snprintf(log, sizeof log, "%s/serve.log", tmp);
    pid_t serve = start_serve(MISMATCH_DIR, log, "none");
    struct cli c;
    CLI(&c, "--json", "--box", "999", "--run-dir", MISMATCH_DIR, "--cgroup-parent",
        CGROUP_PARENT, "--", "/bin/true");
    expect_json_shape(&c);
    cr_assert_eq(c.exit_status, 1);
    cr_assert_str_eq(jstr(&c, "status"), "IE");
    const char *msg = jstr(&c, "message");
    cr_assert(strstr(msg, "a judge-sandbox server with other settings (--cgroup none there, "
                          "auto here) serves " MISMATCH_DIR "; use another --run-dir or "
                          "--no-server"), "%s", msg);
    cli_free(&c);
    stop_serve(serve);
    char *logged = slurp(log);
    cr_assert(strstr(logged, "other settings"), "--serve logged no error line: %s", logged);
    free(logged);
    cr_assert(!socket_there(MISMATCH_DIR), "the stopped server left its socket");
}

/* A client of POOL_DIR's server sleeping 1 s in slot, its JSON in out. */
static pid_t start_sleeper(int slot, const char *out)
{
    char box[16];
    snprintf(box, sizeof box, "%d", slot);
    const char *argv[] = {JUDGE_SANDBOX, "--json", "--box", box, "--run-dir", POOL_DIR,
                          "--cgroup", "none", "--cgroup-parent", CGROUP_PARENT,
                          "--server-idle", "10", "--", "/bin/sleep", "1", NULL};
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(null, 0);
        dup2(fd, 1);
        dup2(null, 2);
        execv(JUDGE_SANDBOX, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* JOBS sleepers at once, in slots 990..; with stop_after_ms, SIGTERM to
 * serve that long after they started. Each must be judged OK. */
static void run_sleepers(pid_t serve, int stop_after_ms)
{
    enum { JOBS = 6 };
    pid_t pids[JOBS];
    char out[JOBS][128];
    for (int i = 0; i < JOBS; i++) {
        snprintf(out[i], sizeof out[i], "%s/sleep%d.json", tmp, i);
        pids[i] = start_sleeper(990 + i, out[i]);
    }
    if (stop_after_ms) {
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        sleep_ms(stop_after_ms);
        stop_serve(serve);  /* returns once the server exited */
        cr_assert_gt(seconds_since(&t0), 0.8, "the stopped server did not wait for its jobs");
    }
    for (int i = 0; i < JOBS; i++) {
        int st;
        cr_assert_eq(waitpid(pids[i], &st, 0), pids[i]);
        char *json = slurp(out[i]);
        cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0 && strstr(json, "\"status\":\"OK\""),
                  "job %d: status %#x, %s", i, st, json);
        free(json);
    }
}

/* The server's workers: more jobs at once than it keeps waiting workers
 * still run side by side in their slots, and SIGTERM waits for them all.
 * Its own run dir and no cgroup, so these slots share nothing with the
 * other tests' but their uids. */
Test(cli, server_runs_many_slots_at_once_and_stops_after_them)
{
    char log[128];
    snprintf(log, sizeof log, "%s/serve.log", tmp);
    pid_t serve = start_serve(POOL_DIR, log, "none");
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    run_sleepers(serve, 0);
    double took = seconds_since(&t0);
    /* Each sleeper sleeps a full second whatever the load, so one after
     * another they would take 6 s or more: less proves they overlapped,
     * with no margin a busy machine could eat (~1 s on an idle one). */
    cr_assert_lt(took, 6.0, "6 jobs of 1 s in different slots took %.2f s: not side by side", took);
    cr_assert_eq(lock_holder(POOL_DIR), serve, "the jobs did not all go to one server");
    run_sleepers(serve, 500);
}

/* A non-root peer that reaches the socket is told why it is refused. */
/* A user other than root can run nothing on a machine whose root directory
 * only root may search (a chroot unpacked from a mode-0700 directory, as
 * some bare-root test tools make): a test that acts as such a user is
 * skipped there, saying why, rather than failed for a reason that is not
 * the code's. On every real machine "/" is searchable and the test runs. */
static void skip_unless_others_can_search_root(void)
{
    struct stat st;
    if (stat("/", &st) == 0 && !(st.st_mode & S_IXOTH))
        cr_skip_test("'/' is mode %o here: no non-root process can run", (unsigned)(st.st_mode & 07777));
}

static int nonroot_request(const char *dir)
{
    drop_to(NOBODY);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s/server.sock", dir);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
        return 2;
    if (send(fd, "run /bin/true please", 20, MSG_NOSIGNAL) < 0 && errno != EPIPE)
        return 3;
    char buf[4096] = "";
    ssize_t n;
    for (int tries = 0; tries < 2; tries++)  /* ECONNRESET first: our request was unread */
        if ((n = recv(fd, buf, sizeof buf - 1, 0)) > 0)
            break;
    return memmem(buf, sizeof buf, "serves root only", 16) ? 0 : 4;
}

Test(cli, non_root_client_is_refused)
{
    skip_unless_others_can_search_root();
    char log[128];
    snprintf(log, sizeof log, "%s/serve.log", tmp);
    pid_t serve = start_serve(NONROOT_DIR, log, "auto");
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0)
        _exit(nonroot_request(NONROOT_DIR));
    int st;
    waitpid(pid, &st, 0);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
              "a uid %d connection was not refused with a message (status %#x)", NOBODY, st);
    /* and the CLI itself, run by that user, says so as an IE: the thin
     * client and the core alike (one protocol, one refusal) */
    const char *const args[] = {"--json", "--run-dir", NONROOT_DIR, "--", "/bin/true", NULL};
    const char *bins[] = {JUDGE_SANDBOX, JUDGE_SANDBOX_CORE};
    for (int i = 0; i < 2; i++) {
        struct cli c;
        cli_exec(&c, bins[i], NULL, NOBODY, args);
        expect_json_shape(&c);
        cr_assert_eq(c.exit_status, 1, "%s", bins[i]);
        cr_assert(strstr(jstr(&c, "message"), "serves root only"), "%s: %s", bins[i], c.out);
        cli_free(&c);
    }
    stop_serve(serve);
    char *logged = slurp(log);
    cr_assert(strstr(logged, "root only"), "--serve logged no error line: %s", logged);
    free(logged);
}

/* ---- what a caller hands the program (issue 12, items 4 and 8) ---------- */

/* bin (a path opened here as root) with args, its stdout the caller's out_fd
 * and its stdin and stderr /dev/null; its pid. */
static pid_t spawn_with_stdout(const char *bin, const char *const *args, int out_fd)
{
    const char *argv[64] = {bin};
    for (int n = 1; args[n - 1]; n++) {
        cr_assert_lt(n, 63);
        argv[n] = args[n - 1];
    }
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(null, 2) < 0)
            _exit(126);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* Keeps the last cap bytes of what was read. */
static void keep_tail(char *tail, size_t cap, size_t *kept, const char *buf, size_t n)
{
    if (n >= cap) {
        memcpy(tail, buf + n - cap, cap);
        *kept = cap;
        return;
    }
    if (*kept + n > cap) {
        size_t drop = *kept + n - cap;
        memmove(tail, tail + drop, *kept - drop);
        *kept -= drop;
    }
    memcpy(tail + *kept, buf, n);
    *kept += n;
}

/* --output holds when stdout is the caller's pipe: the caller reads at most
 * the limit of the program's bytes, then the verdict, OLE. Without it a
 * program wrote 512 MiB there under --output 1M; reading stops at 2 MiB. */
static void expect_pipe_output_limited(const char *bin, const char *const *args)
{
    enum { LIMIT = 1 << 20, ENOUGH = 2 << 20 };
    int p[2];
    cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
    pid_t pid = spawn_with_stdout(bin, args, p[1]);
    close(p[1]);
    static char tail[4096];
    size_t total = 0, kept = 0;
    ssize_t n;
    char buf[65536];
    while (total < ENOUGH && (n = read(p[0], buf, sizeof buf)) > 0) {
        total += (size_t)n;
        keep_tail(tail, sizeof tail - 1, &kept, buf, (size_t)n);
    }
    if (total >= ENOUGH)
        kill(pid, SIGKILL);
    close(p[0]);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert_lt(total, ENOUGH, "%s: the program wrote %zu bytes and more to a pipe under "
                 "--output 1M", bin, total);
    tail[kept] = '\0';
    /* the program's last line was cut at the limit: the verdict follows it */
    const char *verdict = tail;
    for (const char *v = tail; (v = strstr(v, "{\"status\"")); v++)
        verdict = v;
    struct cli c = {.out = tail, .json = parse_last_line(verdict)};
    c.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    expect_judged(&c, "OLE");
    size_t verdict_len = strlen(verdict);
    cr_assert_leq(total - verdict_len, LIMIT, "%zu bytes of the program's reached the pipe",
                  total - verdict_len);
    json_decref(c.json);
}

Test(cli, output_limit_holds_on_a_pipe)
{
    expect_pipe_output_limited(JUDGE_SANDBOX,
                               (const char *const[]){BOX(852), "--time", "2", "--output", "1M",
                                                     "--", "/hostile/infinite_stdout", NULL});
    expect_pipe_output_limited(JUDGE_SANDBOX_CORE,
                               (const char *const[]){"--no-server", BOX(853), "--time", "2",
                                                     "--output", "1M", "--",
                                                     "/hostile/infinite_stdout", NULL});
}

/* A program run on the caller's own stdout (a file the caller wrote to
 * first, open read-write) cannot overwrite, cut or re-flag what the caller
 * wrote: it gets a stream of its own, copied after the caller's text. */
static void expect_caller_text_kept(const char *bin, const char *const *args)
{
    char path[128];
    snprintf(path, sizeof path, "%s/shared-stdout.txt", tmp);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    cr_assert_geq(fd, 0);
    static const char mine[] = "the caller's line\n";
    cr_assert_eq(write(fd, mine, strlen(mine)), (ssize_t)strlen(mine));
    pid_t pid = spawn_with_stdout(bin, args, fd);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    int flags = fcntl(fd, F_GETFL);
    close(fd);
    char *got = slurp(path);
    struct cli c = {.out = got, .json = parse_last_line(got)};
    c.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    expect_judged(&c, "OK");
    cr_assert(!strncmp(got, "the caller's line\nthe program's own line\n", 41),
              "%s: the program changed what the caller wrote: %s", bin, got);
    cr_assert(!(flags & O_NONBLOCK), "the program made the caller's stdout non-blocking");
    free(got);
    json_decref(c.json);
}

Test(cli, program_cannot_rewrite_the_callers_stdout)
{
    expect_caller_text_kept(JUDGE_SANDBOX, (const char *const[]){BOX(854), "--time", "1", "--",
                                                                 "/hostile/rewrite_stdout", NULL});
    expect_caller_text_kept(JUDGE_SANDBOX_CORE,
                            (const char *const[]){"--no-server", BOX(854), "--time", "1", "--",
                                                  "/hostile/rewrite_stdout", NULL});
}

static void write_text(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* A work directory reused with --stdout in it: the first run's program
 * leaves symlinks there, to a root-only file and to a directory; the next
 * run's --stdout through either is refused (exit 2, naming it) instead of
 * truncating the file as root. */
Test(cli, stdout_through_a_planted_symlink_is_refused)
{
    char dir[128], out[160], victim[128], sub_out[160];
    snprintf(dir, sizeof dir, "%s/reused", tmp);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(victim, sizeof victim, "%s/victim", tmp);
    snprintf(sub_out, sizeof sub_out, "%s/sub/victim", dir);
    cr_assert_eq(mkdir(dir, 0755), 0);
    write_text(victim, "root's own\n", 0600);
    struct cli c;
    CLI(&c, BOX(855), "--workdir", dir, "--stdout", out, "--", "/hostile/plant_links",
        "symlink", "out.txt", victim);
    expect_judged(&c, "OK");
    cli_free(&c);
    CLI(&c, BOX(855), "--workdir", dir, "--", "/hostile/plant_links", "symlink", "sub", tmp);
    expect_judged(&c, "OK");
    cli_free(&c);
    struct stat st;
    cr_assert(lstat(out, &st) == 0 && S_ISLNK(st.st_mode), "the program planted no symlink");
    const char *paths[] = {out, sub_out};
    for (int i = 0; i < 2; i++) {
        CLI(&c, BOX(855), "--workdir", dir, "--stdout", paths[i], "--", "/bin/echo", "gotcha");
        cr_assert_eq(c.exit_status, 2, "--stdout %s: exit %d", paths[i], c.exit_status);
        cr_assert(strstr(c.err, paths[i]) && strstr(c.err, "symbolic link"), "%s", c.err);
        cli_free(&c);
        char *text = slurp(victim);
        cr_assert_str_eq(text, "root's own\n", "--stdout %s reached the root-only file",
                         paths[i]);
        free(text);
    }
}

/* A FIFO left where the next --stdout goes would block its opener (the
 * server's worker) for good: refused at once instead. */
Test(cli, stdout_on_a_planted_fifo_is_refused)
{
    char dir[128], out[160];
    snprintf(dir, sizeof dir, "%s/fifo", tmp);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    cr_assert_eq(mkdir(dir, 0755), 0);
    struct cli c;
    CLI(&c, BOX(856), "--workdir", dir, "--stdout", out, "--", "/hostile/plant_links", "fifo",
        "out.txt");
    expect_judged(&c, "OK");
    cli_free(&c);
    CLI(&c, BOX(856), "--workdir", dir, "--stdout", out, "--", "/bin/true");
    cr_assert_eq(c.exit_status, 2);
    cr_assert(strstr(c.err, out) && strstr(c.err, "not a regular file"), "%s", c.err);
    cli_free(&c);
}

/* --workdir (or --rw) through a symlink the previous run planted in its
 * work directory: neither chown nor the mount follows it, so the root-only
 * directory it points to stays root's and unwritten (IE, naming the link). */
Test(cli, workdir_through_a_planted_symlink_is_refused)
{
    char dir[128], sub[160], root_only[128];
    snprintf(dir, sizeof dir, "%s/parent", tmp);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(root_only, sizeof root_only, "%s/root-only", tmp);
    cr_assert_eq(mkdir(dir, 0755), 0);
    cr_assert_eq(mkdir(root_only, 0700), 0);
    struct cli c;
    CLI(&c, BOX(857), "--workdir", dir, "--", "/hostile/plant_links", "symlink", "sub",
        root_only);
    expect_judged(&c, "OK");
    cli_free(&c);
    CLI(&c, BOX(857), "--workdir", sub, "--", "/usr/bin/touch", "mine-now");
    expect_json_shape(&c);
    cr_assert_str_eq(jstr(&c, "status"), "IE", "%s", c.out);
    cr_assert_eq(c.exit_status, 1);
    cr_assert(strstr(jstr(&c, "message"), "symbolic link"), "%s", c.out);
    cli_free(&c);
    /* nor is it mounted writable by --rw */
    char rw[200];
    snprintf(rw, sizeof rw, "%s:/data", sub);
    CLI(&c, BOX(857), "--rw", rw, "--", "/usr/bin/touch", "/data/mine-now");
    expect_json_shape(&c);
    cr_assert_str_eq(jstr(&c, "status"), "IE", "%s", c.out);
    cr_assert(strstr(jstr(&c, "message"), "symbolic link"), "%s", c.out);
    cli_free(&c);
    struct stat st;
    cr_assert_eq(stat(root_only, &st), 0);
    cr_assert(st.st_uid == 0 && (st.st_mode & 07777) == 0700,
              "the root-only directory is now uid %d mode %o", (int)st.st_uid,
              st.st_mode & 07777);
    char made[200];
    snprintf(made, sizeof made, "%s/mine-now", root_only);
    cr_assert(access(made, F_OK) < 0, "the box wrote into the root-only directory");
}

/* --output holds on a terminal given as --stdout too (RLIMIT_FSIZE bounds
 * regular files only): the terminal's reader gets at most the limit. */
Test(cli, output_limit_holds_on_a_terminal)
{
    enum { LIMIT = 64 << 10, ENOUGH = 1 << 20 };
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    cr_assert_geq(master, 0);
    cr_assert(grantpt(master) == 0 && unlockpt(master) == 0);
    char pts[64], verdict_path[128];
    cr_assert_eq(ptsname_r(master, pts, sizeof pts), 0);
    int slave = open(pts, O_RDWR | O_NOCTTY | O_CLOEXEC);
    struct termios raw;
    cr_assert(slave >= 0 && tcgetattr(slave, &raw) == 0);
    cfmakeraw(&raw);  /* bytes as written: no \r added to count */
    cr_assert_eq(tcsetattr(slave, TCSANOW, &raw), 0);
    /* slave stays open: without it the master reads EIO until the server
     * opens the terminal */
    snprintf(verdict_path, sizeof verdict_path, "%s/tty-verdict.json", tmp);
    int verdict_fd = open(verdict_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    cr_assert_geq(verdict_fd, 0);
    pid_t pid = spawn_with_stdout(JUDGE_SANDBOX,
                                  (const char *const[]){BOX(859), "--time", "2", "--output",
                                                        "64k", "--stdout", pts, "--",
                                                        "/hostile/infinite_stdout", NULL},
                                  verdict_fd);
    close(verdict_fd);
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    cr_assert_geq(pidfd, 0);
    size_t total = 0;
    char buf[65536];
    struct pollfd p[2] = {{master, POLLIN, 0}, {pidfd, POLLIN, 0}};
    /* read while the CLI runs, then what is left */
    for (bool done = false; total < ENOUGH;) {
        if (!done && poll(p, 2, -1) > 0 && p[1].revents) {
            done = true;
            cr_assert_eq(fcntl(master, F_SETFL, O_NONBLOCK), 0);
        }
        ssize_t n = done || (p[0].revents & POLLIN) ? read(master, buf, sizeof buf) : 0;
        if (n > 0)
            total += (size_t)n;
        else if (done)
            break;
    }
    if (total >= ENOUGH)
        kill(pid, SIGKILL);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    close(pidfd);
    close(slave);
    close(master);
    cr_assert_leq(total, LIMIT, "%zu bytes reached the terminal under --output 64k", total);
    char *got = slurp(verdict_path);
    struct cli c = {.out = got, .json = parse_last_line(got)};
    c.exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    expect_judged(&c, "OLE");
    cli_free(&c);
}

/* A process that uses the sandbox and dies at the worst moment leaves
 * nothing behind. The worst moment: right after the clone(2) of the child
 * that holds a new slot's network namespace open, before the parent has
 * opened the namespace and killed it. A small tracer stops
 * judge-sandbox-core at the exit of its first clone(2) (that child's: a
 * fresh run directory has no namespace yet) and SIGKILLs it there. The
 * child must not outlive it (it did: a copy of its creator in pause(),
 * holding every fd its creator had, found orphaned beside a judged killed
 * by a test). */
Test(cli, a_run_killed_while_its_netns_is_made_leaves_no_process)
{
    const char *args[] = {JUDGE_SANDBOX_CORE, "--no-server", "--slot", "879", "--run-dir", HOLDER_DIR,
                          "--cgroup-parent", CGROUP_PARENT, "--", "/bin/true", NULL};
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        ptrace(PTRACE_TRACEME, 0, NULL, NULL);
        raise(SIGSTOP);
        execv(args[0], (char *const *)args);
        _exit(127);
    }
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFSTOPPED(st));
    cr_assert_eq(ptrace(PTRACE_SETOPTIONS, pid, NULL,
                        (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)), 0);
    pid_t holder = 0;
    int sig = 0;
    while (!holder) {
        cr_assert_eq(ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig), 0);
        sig = 0;
        cr_assert_eq(waitpid(pid, &st, 0), pid);
        cr_assert(WIFSTOPPED(st), "judge-sandbox-core ended before its first clone: %#x", st);
        if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
            sig = WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st);   /* execve's trap: ours */
            continue;
        }
        struct __ptrace_syscall_info info;
        cr_assert_gt(ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof info, &info), 0);
        static unsigned long long last_nr;
        if (info.op == PTRACE_SYSCALL_INFO_ENTRY)
            last_nr = info.entry.nr;
        else if (info.op == PTRACE_SYSCALL_INFO_EXIT && last_nr == SYS_clone && info.exit.rval > 0)
            holder = (pid_t)info.exit.rval;
    }
    /* the child of that clone is the holder: it lives in a network
     * namespace of its own (else the test would prove nothing) */
    char path[64], ns[64] = "", own[64] = "";
    snprintf(path, sizeof path, "/proc/%d/ns/net", (int)holder);
    cr_assert_gt(readlink(path, ns, sizeof ns - 1), 0);
    cr_assert_gt(readlink("/proc/self/ns/net", own, sizeof own - 1), 0);
    cr_assert_str_neq(ns, own, "the first clone(2) was not the namespace holder's");
    kill(pid, SIGKILL);
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    snprintf(path, sizeof path, "/proc/%d/stat", (int)holder);
    bool gone = false;
    for (int i = 0; i < 500 && !gone; i++) {   /* it has no reason to live: 10 s is plenty */
        char buf[512] = "";
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? 0 : read(fd, buf, sizeof buf - 1);
        if (fd >= 0)
            close(fd);
        buf[n > 0 ? n : 0] = 0;
        const char *e = strrchr(buf, ')');
        gone = fd < 0 || (e && e[2] == 'Z');   /* gone, or dead and waiting for init */
        if (!gone)
            sleep_ms(20);
    }
    if (!gone)
        kill(holder, SIGKILL);
    unmount_pins(HOLDER_DIR);
    cr_assert(gone, "the namespace holder (pid %d) outlived judge-sandbox-core", (int)holder);
}
