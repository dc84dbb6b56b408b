/*
 * judge-sandbox - run one program in a box from the command line.
 *
 *   judge-sandbox [options] -- PROGRAM [ARG...]
 *
 * Exit status: 0 whenever the program was run and judged (whatever its
 * status), 1 when the sandbox failed (status IE), 2 for bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox.h"

#define MAX_MOUNTS 32
#define MAX_ENV 128

struct options {
    struct sandbox_config config;
    struct sandbox_job job;
    struct sandbox_mount mounts[MAX_MOUNTS];
    const char *env[MAX_ENV + 2];
    int env_count;
    const char *stdio_path[3];
    bool json;
};

static void usage(FILE *out)
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
        "output:\n"
        "  --json             print one JSON object: status, exit_code, signal,\n"
        "                     cpu_time, wall_time, memory, message (+ details)\n"
        "  --help             this text\n"
        "\n"
        "Exit status: 0 when the program was run and judged, 1 when the sandbox\n"
        "failed (IE), 2 for bad arguments.\n",
        SANDBOX_MAX_SLOTS - 1);
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "judge-sandbox: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see --help)\n");
    return -1;
}

static int add_mount(struct options *o, const char *spec, bool writable)
{
    if (o->job.mount_count >= MAX_MOUNTS)
        return bad("too many mounts (at most 32): %s", spec);
    struct sandbox_mount *m = &o->mounts[o->job.mount_count++];
    char *copy = strdup(spec);
    if (!copy)
        return bad("out of memory at %s", spec);
    char *colon = strchr(copy, ':');
    if (colon)
        *colon = '\0';
    m->host = copy;
    m->inside = colon ? colon + 1 : NULL;
    m->writable = writable;
    if (copy[0] != '/' || (m->inside && m->inside[0] != '/'))
        return bad("mount paths must be absolute: %s", spec);
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
       OPT_BOX, OPT_CGROUP, OPT_CGROUP_ROOT, OPT_CGROUP_PARENT, OPT_RUN_DIR, OPT_JSON, OPT_HELP };

static const struct option long_options[] = {
    {"time", 1, 0, OPT_TIME}, {"wall", 1, 0, OPT_WALL}, {"mem", 1, 0, OPT_MEM},
    {"procs", 1, 0, OPT_PROCS}, {"output", 1, 0, OPT_OUTPUT}, {"files", 1, 0, OPT_FILES},
    {"stack", 1, 0, OPT_STACK}, {"tmp", 1, 0, OPT_TMP}, {"stdin", 1, 0, OPT_STDIN},
    {"stdout", 1, 0, OPT_STDOUT}, {"stderr", 1, 0, OPT_STDERR}, {"workdir", 1, 0, OPT_WORKDIR},
    {"ro", 1, 0, OPT_RO}, {"rw", 1, 0, OPT_RW}, {"env", 1, 0, OPT_ENV},
    {"profile", 1, 0, OPT_PROFILE}, {"box", 1, 0, OPT_BOX}, {"cgroup", 1, 0, OPT_CGROUP},
    {"cgroup-root", 1, 0, OPT_CGROUP_ROOT}, {"cgroup-parent", 1, 0, OPT_CGROUP_PARENT},
    {"run-dir", 1, 0, OPT_RUN_DIR}, {"json", 0, 0, OPT_JSON}, {"help", 0, 0, OPT_HELP},
    {0, 0, 0, 0}};

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

static int parse_option(struct options *o, int c, const char *arg)
{
    struct sandbox_limits *l = &o->job.limits;
    switch (c) {
    case OPT_TIME: return sandbox_parse_seconds(arg, &l->cpu_time) ? bad("bad --time: %s", arg) : 0;
    case OPT_WALL: return sandbox_parse_seconds(arg, &l->wall_time) ? bad("bad --wall: %s", arg) : 0;
    case OPT_MEM: return sandbox_parse_size(arg, &l->memory) ? bad("bad --mem size: %s", arg) : 0;
    case OPT_OUTPUT: return sandbox_parse_size(arg, &l->output) ? bad("bad --output size: %s", arg) : 0;
    case OPT_STACK: return sandbox_parse_size(arg, &l->stack) ? bad("bad --stack size: %s", arg) : 0;
    case OPT_TMP: return sandbox_parse_size(arg, &l->tmp_size) ? bad("bad --tmp size: %s", arg) : 0;
    case OPT_PROCS: return parse_int(arg, 1, 1 << 20, &l->procs) ? bad("bad --procs: %s", arg) : 0;
    case OPT_FILES: return parse_int(arg, 4, 1 << 20, &l->open_files) ? bad("bad --files: %s", arg) : 0;
    case OPT_BOX:
        return parse_int(arg, 0, SANDBOX_MAX_SLOTS - 1, &o->job.slot) ? bad("bad --box: %s", arg) : 0;
    case OPT_STDIN: o->stdio_path[0] = arg; return 0;
    case OPT_STDOUT: o->stdio_path[1] = arg; return 0;
    case OPT_STDERR: o->stdio_path[2] = arg; return 0;
    case OPT_WORKDIR: o->job.workdir = arg; return 0;
    case OPT_RO: return add_mount(o, arg, false);
    case OPT_RW: return add_mount(o, arg, true);
    case OPT_PROFILE: o->job.profile = arg; return 0;
    case OPT_CGROUP:
        return parse_cgroup_mode(arg, &o->config.cgroup_mode) ? bad("bad --cgroup: %s", arg) : 0;
    case OPT_CGROUP_ROOT: o->config.cgroup_root = arg; return 0;
    case OPT_CGROUP_PARENT: o->config.cgroup_parent = arg; return 0;
    case OPT_RUN_DIR: o->config.run_dir = arg; return 0;
    case OPT_JSON: o->json = true; return 0;
    case OPT_ENV:
        if (!strchr(arg, '=') || arg[0] == '=')
            return bad("--env wants NAME=VALUE: %s", arg);
        if (o->env_count >= MAX_ENV)
            return bad("too many --env: %s", arg);
        o->env[o->env_count++] = arg;
        return 0;
    }
    return bad("unknown option%s", "");
}

static bool env_has(const struct options *o, const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < o->env_count; i++)
        if (!strncmp(o->env[i], name, n) && o->env[i][n] == '=')
            return true;
    return false;
}

/* 0 ok, 1 --help, -1 bad */
static int parse_args(struct options *o, int argc, char **argv)
{
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", long_options, NULL)) != -1) {
        if (c == 'h' || c == OPT_HELP)
            return 1;
        if (c == '?' || c == ':')
            return bad("unknown or incomplete option: %s", argv[optind - 1]);
        if (parse_option(o, c, optarg) < 0)
            return -1;
    }
    if (optind >= argc)
        return bad("no program given%s", "");
    o->job.argv = (const char *const *)(argv + optind);
    if (o->job.workdir && o->job.workdir[0] != '/')
        return bad("--workdir must be an absolute path: %s", o->job.workdir);
    if (!env_has(o, "PATH"))
        o->env[o->env_count++] = "PATH=/usr/local/bin:/usr/bin:/bin";
    o->env[o->env_count] = NULL;
    o->job.envp = o->env;
    o->job.mounts = o->mounts;
    return 0;
}

static int open_stdio(struct options *o)
{
    static const int flags[3] = {O_RDONLY, O_WRONLY | O_CREAT | O_TRUNC, O_WRONLY | O_CREAT | O_TRUNC};
    int *fds[3] = {&o->job.stdin_fd, &o->job.stdout_fd, &o->job.stderr_fd};
    for (int i = 0; i < 3; i++) {
        if (!o->stdio_path[i]) {
            *fds[i] = i;  /* inherit ours */
            continue;
        }
        *fds[i] = open(o->stdio_path[i], flags[i] | O_CLOEXEC, 0644);
        if (*fds[i] < 0) {
            fprintf(stderr, "judge-sandbox: cannot open %s: %s\n", o->stdio_path[i], strerror(errno));
            return -1;
        }
    }
    return 0;
}

static void print_json(const struct sandbox_result *r, const char *cgroup)
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
    printf("%s\n", text);
    free(text);
    json_decref(o);
}

static void print_text(const struct sandbox_result *r, const char *cgroup)
{
    fprintf(stderr, "status: %s%s\n", sandbox_status_name(r->status),
            r->status == SANDBOX_TLE ? (r->tle_wall ? " (wall)" : " (cpu)") : "");
    if (r->message[0])
        fprintf(stderr, "message: %s\n", r->message);
    fprintf(stderr, "exit code: %d  signal: %d\n", r->exit_code, r->signal);
    fprintf(stderr, "cpu: %.3f s  wall: %.3f s  memory: %.1f MiB\n", r->cpu_time, r->wall_time,
            r->memory / 1048576.0);
    fprintf(stderr, "cgroup: %s%s\n", cgroup, r->degraded ? " (degraded: rlimits only)" : "");
}

static int cli_main(struct options *o, int argc, char **argv)
{
    int parsed = parse_args(o, argc, argv);
    if (parsed == 1) {
        usage(stdout);
        return 0;
    }
    if (parsed < 0 || open_stdio(o) < 0)
        return 2;
    struct sandbox *sb;
    char err[512];
    struct sandbox_result res;
    if (sandbox_open(&sb, &o->config, err, sizeof err) < 0) {
        memset(&res, 0, sizeof res);
        res.status = SANDBOX_IE;
        snprintf(res.message, sizeof res.message, "%s", err);
        o->json ? print_json(&res, "none") : print_text(&res, "none");
        return 1;
    }
    int rc = sandbox_run(sb, &o->job, &res);
    const char *cgroup = sandbox_cgroup_version(sb);
    o->json ? print_json(&res, cgroup) : print_text(&res, cgroup);
    sandbox_close(sb);
    return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct options o = {.config = SANDBOX_CONFIG_INIT, .job = SANDBOX_JOB_INIT};
    o.config.pin_netns = true;  /* the next invocation reuses this slot's */
    int rc = cli_main(&o, argc, argv);
    /* add_mount's copies: under LeakSanitizer a leak turns every run with
     * --ro/--rw into a failure that also loses the buffered JSON. */
    for (size_t i = 0; i < o.job.mount_count; i++)
        free((char *)o.mounts[i].host);
    return rc;
}
