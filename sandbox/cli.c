/*
 * judge-sandbox-core - run one program in a box from the command line.
 *
 *   judge-sandbox [options] -- PROGRAM [ARG...]
 *   judge-sandbox --serve [--run-dir DIR] [cgroup options] [--server-idle S]
 *
 * Users run judge-sandbox, the thin client (cli_thin.c), which sends its
 * command line to the run directory's server and execs this binary, the
 * core, when there is none or the command is not for a server (--help,
 * --serve, --no-server).
 *
 * By default the job goes to the run directory's server (cli_server.c),
 * which this client starts when none answers: a process that stays keeps the
 * sandbox open, and each run costs far less than opening it anew. The core
 * parses its arguments first, so that a bad one never starts a server, then
 * sends its command line exactly as the thin client does (cli_proto.h: one
 * protocol, one implementation): the server parses it again, opens the
 * stdio files relative to the client's cwd, runs the job and prints the
 * verdict with this file's printer (cli_job.c), and the client writes out
 * those bytes. --no-server runs the same cli_job.c code in this process.
 *
 * Exit status: 0 whenever the program was run and judged (whatever its
 * status), 1 when the sandbox failed (status IE), 2 for bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define DEFAULT_IDLE 30          /* seconds a started server waits for clients */
#define CONNECT_WAIT_MS 2000     /* for a server another client is starting */

/* getopt keeps its state in globals, and the server parses clients'
 * command lines in several threads. */
static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;

void cli_usage(FILE *out)
{
    fprintf(out,
        "usage: judge-sandbox [options] -- PROGRAM [ARG...]\n"
        "\n"
        "Runs PROGRAM in a fresh box (namespaces, seccomp, cgroup, no capabilities)\n"
        "and reports status OK, RE, TLE, MLE, OLE, SV or IE with its measurements.\n"
        "\n"
        "limits:\n"
        "  --time SECONDS     CPU time of all processes and threads together\n"
        "  --wall SECONDS     wall-clock time (default with --time: 2*time+1)\n"
        "  --mem SIZE         resident memory incl. swap, e.g. 256M (cgroup)\n"
        "  --procs N          processes + threads (default 64)\n"
        "  --output SIZE      largest file or stdout/stderr the program may write\n"
        "  --files N          open files (default 64)\n"
        "  --stack SIZE       stack size (default: the memory limit)\n"
        "  --tmp SIZE         size of the private /tmp, and of /box without\n"
        "                     --workdir (default 64M)\n"
        "files:\n"
        "  --stdin FILE --stdout FILE --stderr FILE\n"
        "                     host paths (no symlink in them; a regular file or a\n"
        "                     device), opened before entering the box (default:\n"
        "                     judge-sandbox's own stdin, and stdout/stderr through\n"
        "                     a pipe of the program's own, bounded by --output)\n"
        "  --workdir DIR      host directory (no symlink in its path) mounted\n"
        "                     read-write at /box, the cwd; it is given to the box's\n"
        "                     uid (default: a fresh private tmpfs)\n"
        "  --ro HOST[:INSIDE] extra read-only bind mount (repeatable)\n"
        "  --rw HOST[:INSIDE] extra read-write bind mount, no symlink in HOST\n"
        "                     (repeatable)\n"
        "environment:\n"
        "  --env NAME=VALUE   add to the program's environment, which is otherwise\n"
        "                     only PATH=/usr/local/bin:/usr/bin:/bin (repeatable)\n"
        "  --profile NAME     seccomp profile: default, jvm, compile, i386, beam\n"
        "box:\n"
        "  --slot N           sandbox slot 0..%d: uid/gid 60000+N, own cgroup and\n"
        "                     network namespace; one run per slot at a time (the\n"
        "                     slots of judged's first_slot and judgectl's --slot)\n"
        "  --cgroup MODE      auto (default), v1, v2 or none (rlimits only)\n"
        "  --cgroup-root DIR  cgroup mount to use instead of the detected one\n"
        "  --cgroup-parent P  our subtree in each hierarchy (default judge-sandbox)\n"
        "  --run-dir DIR      slot state (default /run/judge-sandbox)\n"
        "server:\n"
        "  by default the run goes through the run directory's server (a long-lived\n"
        "  judge-sandbox at DIR/server.sock that keeps the sandbox open), started on\n"
        "  demand with this invocation's cgroup settings\n"
        "  --no-server        run the box in this process instead (slower: each run\n"
        "                     opens the sandbox anew)\n"
        "  --server-idle SECONDS\n"
        "                     a server started now exits after this long without a\n"
        "                     client (default %d; 0 = never)\n"
        "  --serve            be the server, in the foreground (e.g. for systemd);\n"
        "                     takes only --run-dir, --cgroup, --cgroup-root,\n"
        "                     --cgroup-parent and --server-idle (default: never);\n"
        "                     stops on SIGTERM/SIGINT once running jobs are done\n"
        "output:\n"
        "  --json             print one JSON object: status, exit_code, signal,\n"
        "                     cpu_time, wall_time, memory, message (+ details)\n"
        "  --help             this text\n"
        "\n"
        "Exit status: 0 when the program was run and judged, 1 when the sandbox\n"
        "failed (IE), 2 for bad arguments.\n",
        SANDBOX_MAX_SLOTS - 1, DEFAULT_IDLE);
}

static int bad(FILE *err, const char *fmt, const char *arg)
{
    fprintf(err, "judge-sandbox: ");
    fprintf(err, fmt, arg);
    fprintf(err, " (see --help)\n");
    return -1;
}

static int add_mount(struct cli_args *o, const char *spec, bool writable, FILE *err)
{
    if (o->job.mount_count >= CLI_MAX_MOUNTS)
        return bad(err, "too many mounts (at most 32): %s", spec);
    struct sandbox_mount *m = &o->mounts[o->job.mount_count++];
    char *copy = strdup(spec);
    if (!copy)
        return bad(err, "out of memory at %s", spec);
    char *colon = strchr(copy, ':');
    if (colon)
        *colon = '\0';
    m->host = copy;
    m->inside = colon ? colon + 1 : NULL;
    m->writable = writable;
    if (copy[0] != '/' || (m->inside && m->inside[0] != '/'))
        return bad(err, "mount paths must be absolute: %s", spec);
    return 0;
}

static int parse_int(const char *s, int min, int max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < min || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

enum { OPT_TIME = 256, OPT_WALL, OPT_MEM, OPT_PROCS, OPT_OUTPUT, OPT_FILES, OPT_STACK, OPT_TMP,
       OPT_STDIN, OPT_STDOUT, OPT_STDERR, OPT_WORKDIR, OPT_RO, OPT_RW, OPT_ENV, OPT_PROFILE,
       OPT_BOX, OPT_CGROUP, OPT_CGROUP_ROOT, OPT_CGROUP_PARENT, OPT_RUN_DIR, OPT_JSON, OPT_HELP,
       OPT_NO_SERVER, OPT_SERVE, OPT_SERVER_IDLE };

static const struct option long_options[] = {
    {"time", 1, 0, OPT_TIME}, {"wall", 1, 0, OPT_WALL}, {"mem", 1, 0, OPT_MEM},
    {"procs", 1, 0, OPT_PROCS}, {"output", 1, 0, OPT_OUTPUT}, {"files", 1, 0, OPT_FILES},
    {"stack", 1, 0, OPT_STACK}, {"tmp", 1, 0, OPT_TMP}, {"stdin", 1, 0, OPT_STDIN},
    {"stdout", 1, 0, OPT_STDOUT}, {"stderr", 1, 0, OPT_STDERR}, {"workdir", 1, 0, OPT_WORKDIR},
    {"ro", 1, 0, OPT_RO}, {"rw", 1, 0, OPT_RW}, {"env", 1, 0, OPT_ENV},
    {"profile", 1, 0, OPT_PROFILE}, {"slot", 1, 0, OPT_BOX},
    {"box", 1, 0, OPT_BOX},   /* the old name of --slot, kept working */ {"cgroup", 1, 0, OPT_CGROUP},
    {"cgroup-root", 1, 0, OPT_CGROUP_ROOT}, {"cgroup-parent", 1, 0, OPT_CGROUP_PARENT},
    {"run-dir", 1, 0, OPT_RUN_DIR}, {"json", 0, 0, OPT_JSON}, {"help", 0, 0, OPT_HELP},
    {"no-server", 0, 0, OPT_NO_SERVER}, {"serve", 0, 0, OPT_SERVE},
    {"server-idle", 1, 0, OPT_SERVER_IDLE}, {0, 0, 0, 0}};

/* What a server is made of; everything else describes a job. */
static bool server_option(int c)
{
    return c == OPT_RUN_DIR || c == OPT_CGROUP || c == OPT_CGROUP_ROOT ||
           c == OPT_CGROUP_PARENT || c == OPT_SERVER_IDLE || c == OPT_SERVE;
}

static int parse_cgroup_mode(const char *s, enum sandbox_cgroup_mode *mode)
{
    static const char *const names[] = {"auto", "v1", "v2", "none"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i])) {
            *mode = (enum sandbox_cgroup_mode)i;
            return 0;
        }
    return -1;
}

static int parse_option(struct cli_args *o, int c, const char *arg, FILE *err)
{
    struct sandbox_limits *l = &o->job.limits;
    switch (c) {
    case OPT_TIME: return sandbox_parse_seconds(arg, &l->cpu_time) ? bad(err, "bad --time: %s", arg) : 0;
    case OPT_WALL: return sandbox_parse_seconds(arg, &l->wall_time) ? bad(err, "bad --wall: %s", arg) : 0;
    case OPT_MEM: return sandbox_parse_size(arg, &l->memory) ? bad(err, "bad --mem size: %s", arg) : 0;
    case OPT_OUTPUT: return sandbox_parse_size(arg, &l->output) ? bad(err, "bad --output size: %s", arg) : 0;
    case OPT_STACK: return sandbox_parse_size(arg, &l->stack) ? bad(err, "bad --stack size: %s", arg) : 0;
    case OPT_TMP: return sandbox_parse_size(arg, &l->tmp_size) ? bad(err, "bad --tmp size: %s", arg) : 0;
    case OPT_PROCS: return parse_int(arg, 1, 1 << 20, &l->procs) ? bad(err, "bad --procs: %s", arg) : 0;
    case OPT_FILES: return parse_int(arg, 4, 1 << 20, &l->open_files) ? bad(err, "bad --files: %s", arg) : 0;
    case OPT_BOX:
        return parse_int(arg, 0, SANDBOX_MAX_SLOTS - 1, &o->job.slot) ? bad(err, "bad --slot: %s", arg) : 0;
    case OPT_STDIN: o->stdio_path[0] = arg; return 0;
    case OPT_STDOUT: o->stdio_path[1] = arg; return 0;
    case OPT_STDERR: o->stdio_path[2] = arg; return 0;
    case OPT_WORKDIR: o->job.workdir = arg; return 0;
    case OPT_RO: return add_mount(o, arg, false, err);
    case OPT_RW: return add_mount(o, arg, true, err);
    case OPT_PROFILE: o->job.profile = arg; return 0;
    case OPT_CGROUP:
        return parse_cgroup_mode(arg, &o->config.cgroup_mode) ? bad(err, "bad --cgroup: %s", arg) : 0;
    case OPT_CGROUP_ROOT: o->config.cgroup_root = arg; return 0;
    case OPT_CGROUP_PARENT: o->config.cgroup_parent = arg; return 0;
    case OPT_RUN_DIR: o->config.run_dir = arg; return 0;
    case OPT_JSON: o->json = true; return 0;
    case OPT_NO_SERVER: o->no_server = true; return 0;
    case OPT_SERVE: o->serve = true; return 0;
    case OPT_SERVER_IDLE:
        o->idle_given = true;
        return sandbox_parse_seconds(arg, &o->idle) ? bad(err, "bad --server-idle: %s", arg) : 0;
    case OPT_ENV:
        if (!strchr(arg, '=') || arg[0] == '=')
            return bad(err, "--env wants NAME=VALUE: %s", arg);
        if (o->env_count >= CLI_MAX_ENV)
            return bad(err, "too many --env: %s", arg);
        o->env[o->env_count++] = arg;
        return 0;
    }
    return bad(err, "unknown option%s", "");
}

static bool env_has(const struct cli_args *o, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < o->env_count; i++)
        if (!strncmp(o->env[i], name, n) && o->env[i][n] == '=')
            return true;
    return false;
}

/* The server's cwd is "/", and it compares its settings with each client's:
 * a relative --cgroup-root must mean the same for both. */
static int absolute_cgroup_root(struct cli_args *o, const char *cwd, FILE *err)
{
    const char *root = o->config.cgroup_root;
    char here[PATH_MAX];
    if (!root || root[0] == '/')
        return 0;
    if (!cwd)
        cwd = getcwd(here, sizeof here);
    if (!cwd ||
        snprintf(o->cgroup_root, sizeof o->cgroup_root, "%s/%s", cwd, root) >=
            (int)sizeof o->cgroup_root)
        return bad(err, "cannot make --cgroup-root absolute: %s", root);
    o->config.cgroup_root = o->cgroup_root;
    return 0;
}

/* --serve: a server's settings and nothing else. */
static int check_serve(struct cli_args *o, int argc, char **argv, FILE *err)
{
    if (o->no_server)
        return bad(err, "--serve and --no-server contradict each other%s", "");
    if (o->job_option)
        return bad(err, "--serve takes only --run-dir, --cgroup, --cgroup-root, --cgroup-parent "
                   "and --server-idle, not --%s", o->job_option);
    if (optind < argc)
        return bad(err, "--serve runs no program: %s", argv[optind]);
    if (!o->idle_given)
        o->idle = 0;  /* a service waits for clients until it is stopped */
    return 0;
}

/* The options, up to the program. 0 ok, 1 --help, -1 bad. */
static int parse_options(struct cli_args *o, int argc, char **argv, FILE *err)
{
    int c, index;
    opterr = 0;
    optind = 0;  /* 0, not 1: glibc also forgets where it was in a previous argv */
    while ((c = getopt_long(argc, argv, "+h", long_options, &index)) != -1) {
        if (c == 'h' || c == OPT_HELP)
            return 1;
        if (c == '?' || c == ':')
            return bad(err, "unknown or incomplete option: %s", argv[optind - 1]);
        if (parse_option(o, c, optarg, err) < 0)
            return -1;
        if (!server_option(c) && !o->job_option)
            o->job_option = long_options[index].name;
    }
    return 0;
}

static int parse_args(struct cli_args *o, int argc, char **argv, const char *cwd, FILE *err)
{
    int rc = parse_options(o, argc, argv, err);
    if (rc != 0)
        return rc;
    if (absolute_cgroup_root(o, cwd, err) < 0)
        return -1;
    if (o->serve)
        return check_serve(o, argc, argv, err);
    if (optind >= argc)
        return bad(err, "no program given%s", "");
    o->job.argv = (const char *const *)(argv + optind);
    if (o->job.workdir && o->job.workdir[0] != '/')
        return bad(err, "--workdir must be an absolute path: %s", o->job.workdir);
    if (!env_has(o, "PATH"))
        o->env[o->env_count++] = "PATH=/usr/local/bin:/usr/bin:/bin";
    o->env[o->env_count] = NULL;
    o->job.envp = o->env;
    o->job.mounts = o->mounts;
    return 0;
}

int cli_parse(struct cli_args *a, int argc, char **argv, const char *cwd, FILE *err)
{
    pthread_mutex_lock(&parse_lock);
    int rc = parse_args(a, argc, argv, cwd, err);
    pthread_mutex_unlock(&parse_lock);
    return rc;
}

void cli_args_init(struct cli_args *a)
{
    memset(a, 0, sizeof *a);
    a->config = (struct sandbox_config)SANDBOX_CONFIG_INIT;
    a->job = (struct sandbox_job)SANDBOX_JOB_INIT;
    a->idle = DEFAULT_IDLE;
}

void cli_args_free(struct cli_args *a)
{
    for (size_t i = 0; i < a->job.mount_count; i++)
        free((char *)a->mounts[i].host);
    a->job.mount_count = 0;
}

static void print_json(const struct sandbox_result *r, const char *cgroup, FILE *out)
{
    json_t *o = json_pack("{s:s, s:i, s:i, s:f, s:f, s:I, s:s, s:b, s:s}",
                          "status", sandbox_status_name(r->status), "exit_code", r->exit_code,
                          "signal", r->signal, "cpu_time", r->cpu_time, "wall_time", r->wall_time,
                          "memory", (json_int_t)r->memory, "message", r->message,
                          "degraded", r->degraded, "cgroup", cgroup);
    if (r->status == SANDBOX_TLE)
        json_object_set_new(o, "tle", json_string(r->tle_wall ? "wall" : "cpu"));
    if (r->status == SANDBOX_SV)
        json_object_set_new(o, "syscall", json_string(r->syscall_name));
    char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6));
    fprintf(out, "%s\n", text);
    free(text);
    json_decref(o);
}

static void print_text(const struct sandbox_result *r, const char *cgroup, FILE *err)
{
    fprintf(err, "status: %s%s\n", sandbox_status_name(r->status),
            r->status == SANDBOX_TLE ? (r->tle_wall ? " (wall)" : " (cpu)") : "");
    if (r->message[0])
        fprintf(err, "message: %s\n", r->message);
    fprintf(err, "exit code: %d  signal: %d\n", r->exit_code, r->signal);
    fprintf(err, "cpu: %.3f s  wall: %.3f s  memory: %.1f MiB\n", r->cpu_time, r->wall_time,
            r->memory / 1048576.0);
    fprintf(err, "cgroup: %s%s\n", cgroup, r->degraded ? " (degraded: rlimits only)" : "");
}

void cli_print(const struct cli_args *a, const struct cli_reply *r, FILE *out, FILE *err)
{
    if (a->json)
        print_json(&r->res, r->cgroup, out);
    else
        print_text(&r->res, r->cgroup, err);
}

void cli_set_ie(struct cli_reply *r, const char *fmt, ...)
{
    va_list ap;
    memset(r, 0, sizeof *r);
    r->res.status = SANDBOX_IE;
    snprintf(r->cgroup, sizeof r->cgroup, "none");
    va_start(ap, fmt);
    vsnprintf(r->res.message, sizeof r->res.message, fmt, ap);
    va_end(ap);
}

/* ---- running the job ------------------------------------------------- */

/* --no-server: open the sandbox here, run, close. */
static int run_in_process(struct cli_args *o)
{
    struct sandbox *sb;
    char err[sizeof ((struct sandbox_result *)0)->message];
    o->config.pin_netns = true;  /* the next invocation reuses this slot's */
    if (sandbox_open(&sb, &o->config, err, sizeof err) < 0) {
        struct cli_reply r;
        cli_set_ie(&r, "%s", err);
        cli_print(o, &r, stdout, stderr);
        return 1;
    }
    int status = cli_run_job(sb, o, (const int[]){0, 1, 2}, AT_FDCWD, -1, stdout, stderr);
    sandbox_close(sb);
    return status;
}

/* Sends the command line until a server takes it, for CONNECT_WAIT_MS at
 * most while none answers (another client's may still be starting). */
static int send_while_starting(const char *run_dir, int argc, char **argv)
{
    int status = CLI_NO_SERVER;
    for (int waited = 0; status == CLI_NO_SERVER && waited <= CONNECT_WAIT_MS; waited += 2) {
        if (waited)
            usleep(2000);
        status = cli_client_run(run_dir, argc, argv);
    }
    return status;
}

/* The default: the command line goes to the run directory's server, in the
 * one protocol the thin client speaks too (cli_proto.h), started first when
 * none answers. A server that drops the connection before taking the job
 * is exiting: the next try starts a new one. The exit status. */
static int run_via_server(const struct cli_args *o, int argc, char **argv)
{
    const char *run_dir = o->config.run_dir;
    struct cli_reply r;
    cli_set_ie(&r, "the judge-sandbox server at %s closed the connection twice before taking "
               "the job", run_dir);
    /* a relative run dir goes straight to a start, whose sandbox_open says
     * what is wrong with it */
    int status = run_dir[0] == '/' ? cli_client_run(run_dir, argc, argv) : CLI_NO_SERVER;
    for (int starts = 0; status < 0 && status != CLI_FAILED && starts < 2; starts++) {
        struct cli_server_opts server = {.config = o->config, .idle = o->idle};
        char err[sizeof r.res.message];
        if (status == CLI_RUN_CORE) {
            cli_set_ie(&r, "the judge-sandbox server at %s does not serve %s", run_dir, run_dir);
            break;
        }
        if (cli_server_start(&server, err, sizeof err) < 0) {
            cli_set_ie(&r, "%s", err);
            break;
        }
        status = send_while_starting(run_dir, argc, argv);
        if (status == CLI_NO_SERVER)
            cli_set_ie(&r, "no judge-sandbox server answers at %s/%s", run_dir,
                       CLI_SOCKET_NAME);
    }
    if (status >= 0)
        return status;
    if (status != CLI_FAILED)  /* that one printed why already */
        cli_print(o, &r, stdout, stderr);
    return 1;
}

static int cli_main(struct cli_args *o, int argc, char **argv)
{
    int parsed = cli_parse(o, argc, argv, NULL, stderr);
    if (parsed == 1) {
        cli_usage(stdout);
        return 0;
    }
    if (parsed < 0)
        return 2;
    if (o->serve)
        return cli_server_serve(&(struct cli_server_opts){.config = o->config, .idle = o->idle});
    return o->no_server ? run_in_process(o) : run_via_server(o, argc, argv);
}

int main(int argc, char **argv)
{
    struct cli_args o;
    cli_args_init(&o);
    cli_fill_stdio();
    int rc = cli_main(&o, argc, argv);
    /* add_mount's copies: under LeakSanitizer a leak turns every run with
     * --ro/--rw into a failure that also loses the buffered JSON. */
    cli_args_free(&o);
    return rc;
}
