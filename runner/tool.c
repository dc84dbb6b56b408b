/*
 * tool.c - a package's own programs run at push: what a problem format
 * makes its tests with (a CMS task's generator, validator and official
 * solution). The runner knows nothing of the format: the caller (judged's
 * store, through judgectl) says which source, which arguments, which
 * files and which limits.
 *
 * A tool is built as a checker is (helper.c: compiled once per host,
 * content-addressed under WORK/checkers/, its headers beside it, read
 * beneath the package root), and each run takes one of the runner's
 * slots for its box: the tool's files linked into the slot's chk/ as the
 * box's /box, the caller's limits, the language's mounts and process
 * count, no network. Everything the package controls (a source that does
 * not compile, a run that fails or hits a limit) is the package's fault
 * (1, with a message); only the host's trouble is -1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

struct runner_tool {
    struct runner *r;
    char *dir;                       /* built: WORK/checkers/SHA256 */
    const struct rn_language *lang;
    struct rn_language *own;         /* a program directory's scripts form */
    char *what;                      /* "generator": messages name it */
};

void runner_tool_free(struct runner_tool *tool)
{
    if (!tool)
        return;
    free(tool->dir);
    rn_language_free(tool->own);
    free(tool->what);
    free(tool);
}

int runner_tool_build(struct runner *r, const char *dir, const char *source, const char *what,
                      struct runner_tool **out, char *msg, size_t msglen)
{
    *out = NULL;
    if (!r->sb)
        return snprintf(msg, msglen, "a catalog-only runner has no sandbox"), -1;
    struct runner_tool *t = calloc(1, sizeof *t);
    /* a problem of no tests: only the package's root, for reading the source beneath it */
    struct rn_problem p = {.dir = (char *)dir};
    struct runner_request req = {0};
    struct rn_job j = {.slot = -1, .req = &req, .prob = &p};
    char *message = NULL;
    int rc = t ? rn_job_begin(&j, r) : (snprintf(j.err, sizeof j.err, "out of memory"), -1);
    if (rc == 0)
        rc = rn_prepare_tool(&j, what, source, &t->dir, &t->lang, &t->own, &message);
    if (rc == 1)
        snprintf(msg, msglen, "%s", message ? message : "cannot build it");
    else if (rc < 0)
        snprintf(msg, msglen, "%s", j.err);
    free(message);
    rn_job_end(&j);
    if (rc == 0 && t) {
        t->r = r;
        t->what = strdup(what);
        *out = t;
        return 0;
    }
    runner_tool_free(t);
    return rc;
}

/* The input also as a file of the box's working directory (CMS's
 * validators read the file named by their argument). */
static int input_in_box(const char *box, const char *in_path, const char *in_name, char *msg, size_t msglen)
{
    if (strchr(in_name, '/') || !strcmp(in_name, ".") || !strcmp(in_name, ".."))
        return snprintf(msg, msglen, "'%s': not a plain file name", in_name), -1;
    size_t len;
    char *text = rn_read_file(in_path, SIZE_MAX >> 1, &len);
    char *path = rn_strdup_printf("%s/%s", box, in_name);
    int rc = text && path ? rn_write_file(path, text, len, 0644) : -1;
    if (rc < 0)
        snprintf(msg, msglen, "%s: %s", path ? path : in_name, strerror(errno));
    free(text);
    free(path);
    return rc;
}

/* The last 4 KiB of what a program wrote on stderr (its reason is at the
 * end); NULL when there is none. */
static char *stderr_tail(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || lseek(fd, st.st_size > 4096 ? st.st_size - 4096 : 0, SEEK_SET) < 0) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *text = calloc(1, 4097);
    ssize_t n = text ? read(fd, text, 4096) : -1;
    close(fd);
    if (n <= 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* How a run that did not exit 0 ended, with the last line its stderr
 * gave (a validator's own reason; a Python exception's message). */
static void describe(const struct runner_tool *t, const struct sandbox_result *res, const char *err_path,
                     char *msg, size_t msglen)
{
    char how[600];
    if (res->status == SANDBOX_RE && !res->signal)
        snprintf(how, sizeof how, "the %s exited with code %d", t->what, res->exit_code);
    else
        snprintf(how, sizeof how, "the %s: %s: %.400s", t->what, sandbox_status_name(res->status), res->message);
    char *text = stderr_tail(err_path);
    char line[300] = "";
    size_t end = text ? strlen(text) : 0;
    while (end && strchr(" \t\r\n", text[end - 1]))
        end--;
    size_t start = end;
    while (start && text[start - 1] != '\n')
        start--;
    if (end > start)
        snprintf(line, sizeof line, "%.*s", (int)(end - start < sizeof line - 1 ? end - start : sizeof line - 1),
                 text + start);
    free(text);
    snprintf(msg, msglen, "%s%s%s", how, line[0] ? "; its stderr: " : "", line);
}

static int open_stdout(const char *out_path)
{
    if (!out_path)
        return -1;
    return open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
}

static int run_in_slot(struct runner_tool *t, struct rn_job *j, char *const *args, const char *in_path,
                       const char *out_path, const struct runner_tool_limits *lim, char *msg, size_t msglen)
{
    const struct rn_language *l = t->lang;
    int in_fd = in_path ? open(in_path, O_RDONLY | O_CLOEXEC) : open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out_fd = out_path ? open_stdout(out_path) : open("/dev/null", O_WRONLY | O_CLOEXEC);
    int err_fd = open(j->chk_err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (in_fd < 0 || out_fd < 0 || err_fd < 0) {
        snprintf(msg, msglen, "%s: %s", in_fd < 0 ? (in_path ? in_path : "/dev/null")
                                        : out_fd < 0 ? (out_path ? out_path : "/dev/null") : j->chk_err,
                 strerror(errno));
        int fds[] = {in_fd, out_fd, err_fd};
        for (size_t i = 0; i < 3; i++)
            if (fds[i] >= 0)
                close(fds[i]);
        return -1;
    }
    double cpu = lim->submission ? lim->cpu_time * l->time_factor : lim->cpu_time;
    uint64_t memory = lim->submission ? lim->memory + l->extra_memory : lim->memory;
    char **argv = rn_argv_expand(l->run, memory, args);
    size_t mount_count;
    struct sandbox_mount *mounts = rn_mounts_for(l, NULL, 0, &mount_count);
    struct sandbox_job sj = SANDBOX_JOB_INIT;
    sj.slot = j->slot;
    sj.cpus = rn_slot_cpus(j->r, j->slot);
    sj.argv = (const char *const *)argv;
    sj.envp = (const char *const *)l->env;
    sj.workdir = j->chk;
    sj.profile = l->profile;
    sj.stdin_fd = in_fd;
    sj.stdout_fd = out_fd;
    sj.stderr_fd = err_fd;
    sj.limits = (struct sandbox_limits){.cpu_time = cpu, .wall_time = lim->wall_time > 0 ? lim->wall_time : cpu * 2 + 1,
                                        .memory = memory, .output = lim->output, .procs = l->processes};
    sj.mounts = mounts;
    sj.mount_count = mount_count;
    struct sandbox_result res;
    int rc = argv && mounts ? sandbox_run(j->r->sb, &sj, &res) : (snprintf(res.message, sizeof res.message,
                                                                           "out of memory"), -1);
    close(in_fd);
    close(out_fd);
    close(err_fd);
    rn_argv_free(argv);
    free(mounts);
    if (rc < 0)
        return snprintf(msg, msglen, "sandbox (%s): %.400s", t->what, res.message), -1;
    if (res.status == SANDBOX_IE)
        return snprintf(msg, msglen, "sandbox (%s): %.400s", t->what, res.message), -1;
    if (res.status == SANDBOX_OK)
        return 0;
    describe(t, &res, j->chk_err, msg, msglen);
    return 1;
}

/* The output file the program left in its box, copied to out_path: a
 * regular file only (a link it planted is not followed), its size bounded
 * by the box's file size limit. 1 when it left none. */
static int output_from_box(const struct runner_tool *t, const char *box, const char *out_name, const char *out_path,
                           uint64_t max, char *msg, size_t msglen)
{
    if (strchr(out_name, '/') || !strcmp(out_name, ".") || !strcmp(out_name, ".."))
        return snprintf(msg, msglen, "'%s': not a plain file name", out_name), -1;
    char *path = rn_strdup_printf("%s/%s", box, out_name);
    int fd = path ? open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1;
    free(path);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return snprintf(msg, msglen, "the %s left no regular file %s", t->what, out_name), 1;
    }
    size_t len;
    bool too_big;
    char *text = rn_fd_read(fd, max, &len, &too_big);
    close(fd);
    int rc = text && !too_big && out_path ? rn_write_file(out_path, text, len, 0644) : -1;
    if (rc < 0)
        snprintf(msg, msglen, "%s: %s", out_path ? out_path : out_name, too_big ? "larger than the output limit"
                                                                              : strerror(errno));
    free(text);
    return rc < 0 && too_big ? 1 : rc;
}

int runner_tool_run(struct runner_tool *t, char *const *args, const char *in_path, const char *in_name,
                    const char *out_path, const char *out_name, const struct runner_tool_limits *lim, char *msg,
                    size_t msglen)
{
    struct runner_request req = {0};
    struct rn_job j = {.slot = -1, .req = &req};
    int rc = rn_job_begin(&j, t->r);
    if (rc < 0)
        snprintf(msg, msglen, "%s", j.err);
    else if (rn_reset_box(j.chk, t->dir, true) < 0)
        rc = -1, snprintf(msg, msglen, "%s: %s", j.chk, strerror(errno));
    else if (in_name && in_path)
        rc = input_in_box(j.chk, in_path, in_name, msg, msglen);
    if (rc == 0)
        rc = run_in_slot(t, &j, args, in_path, out_name ? NULL : out_path, lim, msg, msglen);
    if (rc == 0 && out_name)
        rc = output_from_box(t, j.chk, out_name, out_path, lim->output, msg, msglen);
    rn_job_end(&j);
    return rc;
}
