/*
 * judge-sandbox-core - run one program in a box from the command line.
 *
 *   judge-sandbox [options] -- PROGRAM [ARG...]
 *   judge-sandbox --serve [--run-dir DIR] [cgroup options] [--server-idle S]
 *
 * Users run judge-sandbox, the thin client (cli_thin.c), which forwards its
 * command line to the run directory's server and execs this binary, the
 * core, when there is none or the command is not for a server (--help,
 * --serve, --no-server). The server parses a forwarded command line and
 * prints its verdict with this file's code (cli_parse, cli_open_stdio,
 * cli_print), so both say exactly the same.
 *
 * By default the job goes to the run directory's server (cli_server.c),
 * which this client starts when none answers: a process that stays keeps the
 * sandbox open, and each run costs far less than opening it anew. The client
 * parses and checks every argument and opens the stdio files itself, so bad
 * arguments never reach a server. --no-server runs the job in this process.
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
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"

#define DEFAULT_IDLE 30          /* seconds a started server waits for clients */
#define CONNECT_WAIT_MS 2000     /* for a server another client is starting */

/* getopt keeps its state in globals, and the server parses forwarded
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
        "                     host paths, opened before entering the box\n"
        "                     (default: judge-sandbox's own stdin/stdout/stderr)\n"
        "  --workdir DIR      host directory mounted read-write at /box, the cwd;\n"
        "                     it is given to the box's uid (default: a fresh\n"
        "                     private tmpfs)\n"
        "  --ro HOST[:INSIDE] extra read-only bind mount (repeatable)\n"
        "  --rw HOST[:INSIDE] extra read-write bind mount (repeatable)\n"
        "environment:\n"
        "  --env NAME=VALUE   add to the program's environment, which is otherwise\n"
        "                     only PATH=/usr/local/bin:/usr/bin:/bin (repeatable)\n"
        "  --profile NAME     seccomp profile: default, jvm, compile\n"
        "box:\n"
        "  --box N            box slot 0..%d: uid/gid 60000+N, own cgroup and\n"
        "                     network namespace; one run per slot at a time\n"
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
    {"profile", 1, 0, OPT_PROFILE}, {"box", 1, 0, OPT_BOX}, {"cgroup", 1, 0, OPT_CGROUP},
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
        return parse_int(arg, 0, SANDBOX_MAX_SLOTS - 1, &o->job.slot) ? bad(err, "bad --box: %s", arg) : 0;
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

int cli_open_stdio(struct cli_args *o, int dirfd, const int *inherit, FILE *err)
{
    static const int flags[3] = {O_RDONLY, O_WRONLY | O_CREAT | O_TRUNC, O_WRONLY | O_CREAT | O_TRUNC};
    int *fds[3] = {&o->job.stdin_fd, &o->job.stdout_fd, &o->job.stderr_fd};
    for (int i = 0; i < 3; i++)
        *fds[i] = inherit[i];
    for (int i = 0; i < 3; i++) {
        if (!o->stdio_path[i])
            continue;
        *fds[i] = openat(dirfd, o->stdio_path[i], flags[i] | O_CLOEXEC, 0644);
        if (*fds[i] < 0) {
            fprintf(err, "judge-sandbox: cannot open %s: %s\n", o->stdio_path[i], strerror(errno));
            return -1;
        }
    }
    return 0;
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

/* ---- running the job ------------------------------------------------- */

static void set_ie(struct cli_reply *r, const char *fmt, ...)
{
    va_list ap;
    memset(r, 0, sizeof *r);
    r->res.status = SANDBOX_IE;
    snprintf(r->cgroup, sizeof r->cgroup, "none");
    va_start(ap, fmt);
    vsnprintf(r->res.message, sizeof r->res.message, fmt, ap);
    va_end(ap);
}

/* --no-server: open the sandbox here, run, close. */
static void run_in_process(struct cli_args *o, struct cli_reply *r)
{
    struct sandbox *sb;
    char err[sizeof r->res.message];
    o->config.pin_netns = true;  /* the next invocation reuses this slot's */
    if (sandbox_open(&sb, &o->config, err, sizeof err) < 0) {
        set_ie(r, "%s", err);
        return;
    }
    sandbox_run(sb, &o->job, &r->res);
    snprintf(r->cgroup, sizeof r->cgroup, "%s", sandbox_cgroup_version(sb));
    sandbox_close(sb);
}

static bool nobody_there(int err)
{
    return err == ENOENT || err == ECONNREFUSED;
}

/* A connection to the run directory's server, started first if none
 * answers. -1 with the reason in r. A relative run dir goes straight to a
 * start, whose sandbox_open says what is wrong with it. */
static int connect_server(const struct cli_args *o, struct cli_reply *r)
{
    const char *run_dir = o->config.run_dir;
    int fd = -1;
    if (run_dir[0] == '/') {
        if ((fd = cli_connect(run_dir)) >= 0)
            return fd;
        if (!nobody_there(errno)) {
            set_ie(r, "cannot connect to the judge-sandbox server at %s: %s", run_dir,
                   strerror(errno));
            return -1;
        }
    }
    struct cli_server_opts server = {.config = o->config, .idle = o->idle};
    char err[sizeof r->res.message];
    if (cli_server_start(&server, err, sizeof err) < 0) {
        set_ie(r, "%s", err);
        return -1;
    }
    /* ours listens already; another client's may still be starting */
    for (int waited = 0;; waited += 2) {
        if ((fd = cli_connect(run_dir)) >= 0)
            return fd;
        if (!nobody_there(errno) || waited >= CONNECT_WAIT_MS)
            break;
        usleep(2000);
    }
    set_ie(r, "no judge-sandbox server answers at %s/%s: %s", run_dir, CLI_SOCKET_NAME,
           strerror(errno));
    return -1;
}

enum exchange { EXCHANGE_DONE, EXCHANGE_NOT_TAKEN, EXCHANGE_FAILED };

/* Sends the request and reads the hello and the reply. NOT_TAKEN: the
 * connection closed before the hello (a server going idle dropped it), so
 * the job never started and may be sent again. */
static enum exchange exchange(int fd, const char *req, size_t len, const int *stdio,
                              const char *run_dir, struct cli_reply *r)
{
    /* A server that refuses us outright replies and closes before reading:
     * the send fails, and the reply is still there to read. */
    if (cli_send(fd, req, len, stdio, CLI_STDIO_FDS) < 0 && errno != EPIPE &&
        errno != ECONNRESET) {
        set_ie(r, "cannot send the job to the judge-sandbox server at %s: %s", run_dir,
               strerror(errno));
        return EXCHANGE_FAILED;
    }
    char buf[CLI_MAX_REPLY], err[256];
    bool taken = false, reset = false;
    for (;;) {
        ssize_t n = cli_recv(fd, buf, sizeof buf, NULL, 0, NULL, 0);
        if (n < 0 && errno == ECONNRESET && !reset) {
            /* the server closed with our request unread (it refused us before
             * reading it): the error comes first, then what it sent */
            reset = true;
        } else if (n == sizeof cli_hello && !taken && !memcmp(buf, cli_hello, sizeof cli_hello)) {
            taken = true;
        } else if (n > 0) {
            if (cli_decode_reply(buf, (size_t)n, r, err, sizeof err) == 0)
                return EXCHANGE_DONE;
            set_ie(r, "the judge-sandbox server at %s sent %s; stop it or use --no-server",
                   run_dir, err);
            return EXCHANGE_FAILED;
        } else if (n == 0 || errno == ECONNRESET) {
            if (!taken)
                return EXCHANGE_NOT_TAKEN;
            set_ie(r, "the judge-sandbox server at %s went away during the run", run_dir);
            return EXCHANGE_FAILED;
        } else {
            set_ie(r, "cannot read from the judge-sandbox server at %s: %s", run_dir,
                   strerror(errno));
            return EXCHANGE_FAILED;
        }
    }
}

/* The default: through the run directory's server. A server that drops
 * the connection before taking the job is exiting; the second try starts
 * a new one. */
static void run_via_server(const struct cli_args *o, struct cli_reply *r)
{
    const char *run_dir = o->config.run_dir;
    size_t len;
    char *req = cli_encode_request(&o->config, &o->job, &len);
    if (!req || len > CLI_MAX_REQUEST) {
        set_ie(r, req ? "the job is too large for a judge-sandbox server (%zu bytes); use "
                        "--no-server" : "out of memory", len);
        free(req);
        return;
    }
    const int stdio[CLI_STDIO_FDS] = {o->job.stdin_fd, o->job.stdout_fd, o->job.stderr_fd};
    enum exchange e = EXCHANGE_NOT_TAKEN;
    for (int tries = 0; tries < 2 && e == EXCHANGE_NOT_TAKEN; tries++) {
        int fd = connect_server(o, r);
        if (fd < 0) {
            e = EXCHANGE_FAILED;
            break;
        }
        int room = (int)len * 2 + 65536;  /* a packet must fit the send buffer */
        if (len > 65536)
            setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &room, sizeof room);
        e = exchange(fd, req, len, stdio, run_dir, r);
        close(fd);
    }
    if (e == EXCHANGE_NOT_TAKEN)
        set_ie(r, "the judge-sandbox server at %s closed the connection twice before taking "
               "the job", run_dir);
    free(req);
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
    if (cli_open_stdio(o, AT_FDCWD, (const int[]){0, 1, 2}, stderr) < 0)
        return 2;
    struct cli_reply r;
    if (o->no_server)
        run_in_process(o, &r);
    else
        run_via_server(o, &r);
    cli_print(o, &r, stdout, stderr);
    return r.res.status == SANDBOX_IE ? 1 : 0;
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
