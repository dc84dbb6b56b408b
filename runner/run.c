/*
 * run.c - one test: the program in its box, the check, and for an
 * interactive problem the program and the interactor joined by pipes.
 *
 * The program's /box is the sealed src/ (read-only), its stdin the test's
 * input opened beneath the package root (or a copy the box may reopen), its
 * stdout output/out outside the box, writable by the box; the answer never
 * enters a box. Built-in checkers compare on the host; a custom checker or
 * an interactor runs in a box of its own with the package at /problem and
 * output/ at /output, under the checker's limits; a Kattis-protocol checker
 * reads the output on its stdin and writes its messages in a fresh feedback
 * dir at /feedback.
 * A run that did not end OK is not checked: its verdict is the sandbox's
 * status. Sandbox failures and unreadable test data are infrastructure
 * failures (-1); whatever the program did is a verdict.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* a multi-pass interactor's input after the first pass, in its feedback dir */
#define PASS_INPUT ".pass.in"

#define CHECKER_TEXT_MAX (4 * 1024)
#define CHECKER_CPU 10.0
#define CHECKER_MEMORY (1024ULL << 20)

static int open_out(const char *path)
{
    return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

/* A file of the package, opened beneath its root (package.c): -1 with why
 * ("a FIFO (named pipe), not a regular file", "a symbolic link on its path
 * leads out of the package", ...). */
static int open_package_file(const struct rn_problem *p, const char *rel, char *why, size_t whylen)
{
    int root = rn_pkg_root(p->dir, why, whylen);
    int fd = root < 0 ? -1 : rn_pkg_open(root, rel, false, NULL, why, whylen);
    if (root >= 0)
        close(root);
    return fd;
}

static char *read_text(const char *path)
{
    char *s = rn_read_file(path, CHECKER_TEXT_MAX, NULL);
    return s ? s : strdup("");
}

/* A program the package ships (a checker, an interactor), as one run:
 * args are its protocol's, before the package's own: the test's (own),
 * else the helper's (h->args). */
struct helper_run {
    const struct rn_language *lang;
    const struct rn_helper *h;
    int slot;
    const char *box;
    char *const *args;
    char *const *own;              /* the test's own args (ICPC: its group's); NULL: h->args */
    bool output_writable;          /* an interactor's result file or feedback dir */
    const char *feedback;          /* host dir mounted writable at /feedback; or NULL */
    double cpu, wall;
};

/* the protocol's arguments, then the package's (pointers, not copies) */
static char **join_args(char *const *a, char *const *b)
{
    size_t n = 0, m = 0;
    while (a && a[n])
        n++;
    while (b && b[m])
        m++;
    char **all = calloc(n + m + 1, sizeof *all);
    for (size_t i = 0; all && i < n + m; i++)
        all[i] = i < n ? a[i] : b[i - n];
    return all;
}

/* The sandbox job of hr: the package read-only at /problem, output/ at
 * /output, a feedback dir at /feedback when asked, argv the language's run
 * command followed by the arguments, the checker's memory and output
 * limits. The caller sets stdio and frees *argv (rn_argv_free) and
 * *mounts. */
static void helper_job(struct rn_job *j, const struct helper_run *hr, struct sandbox_job *sj,
                       char ***argv, struct sandbox_mount **mounts)
{
    const struct rn_language *l = hr->lang;
    char **args = join_args(hr->args, hr->own ? hr->own : hr->h->args);
    *argv = rn_argv_expand(l->run, CHECKER_MEMORY, args);
    free(args);
    const struct sandbox_mount data[] = {{.host = j->prob_abs, .inside = "/problem"},
                                         {.host = j->out_dir, .inside = "/output",
                                          .writable = hr->output_writable},
                                         {.host = hr->feedback, .inside = "/feedback",
                                          .writable = true}};
    size_t mount_count;
    *mounts = rn_mounts_for(l, data, hr->feedback ? 3 : 2, &mount_count);
    *sj = (struct sandbox_job)SANDBOX_JOB_INIT;
    sj->slot = hr->slot;
    sj->cpus = rn_slot_cpus(j->r, hr->slot);
    sj->argv = (const char *const *)*argv;
    sj->envp = (const char *const *)l->env;
    sj->workdir = hr->box;
    sj->profile = l->profile;     /* a checker in Java needs the JVM's */
    sj->limits = (struct sandbox_limits){.cpu_time = hr->cpu, .wall_time = hr->wall,
                                         .memory = CHECKER_MEMORY, .output = 16 << 20,
                                         .procs = l->processes, .open_files = l->open_files};
    sj->mounts = *mounts;
    sj->mount_count = mount_count;
}

/* A file the program wrote in its feedback dir, read without following a
 * link out of it nor blocking on a FIFO (it is the problem's code, and this
 * runs as root): at most CHECKER_TEXT_MAX bytes; "" when there is none. */
static char *read_feedback(const char *dir, const char *name)
{
    char why[128];
    int root = rn_pkg_root(dir, why, sizeof why);
    int fd = root < 0 ? -1 : rn_pkg_open(root, name, false, NULL, why, sizeof why);
    if (root >= 0)
        close(root);
    char *text = calloc(1, CHECKER_TEXT_MAX + 1);
    size_t used = 0;
    while (fd >= 0 && text && used < CHECKER_TEXT_MAX) {
        ssize_t n = read(fd, text + used, CHECKER_TEXT_MAX - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
    }
    if (fd >= 0)
        close(fd);
    return text ? text : strdup("");
}

/* Kattis's message: judgemessage.txt, else teammessage.txt, else stderr */
static char *kattis_message(const char *feedback_dir, const char *stderr_path)
{
    const char *names[] = {"judgemessage.txt", "teammessage.txt"};
    for (size_t i = 0; i < 2; i++) {
        char *text = read_feedback(feedback_dir, names[i]);
        if (text[strspn(text, " \t\r\n")])
            return text;
        free(text);
    }
    return stderr_path ? read_text(stderr_path) : strdup("");
}

/* What test t is worth: the points of the first subtask holding it (a
 * converted ICPC scoring problem puts each test in one). 0: none. */
static double test_worth(const struct rn_problem *p, const struct rn_test *t)
{
    size_t i = (size_t)(t - p->tests);
    for (size_t s = 0; s < p->subtask_count; s++)
        for (size_t k = 0; k < p->subtasks[s].test_count; k++)
            if (p->subtasks[s].tests[k] == i)
                return p->subtasks[s].points;
    return 0;
}

/* A number alone in the feedback file name: 1, -1 when absent, 0 when it
 * holds something else. */
static int feedback_number(const char *dir, const char *name, double *out)
{
    char *text = read_feedback(dir, name), *end;
    int rc = -1;
    if (text[strspn(text, " \t\r\n")]) {
        *out = strtod(text, &end);
        rc = end != text && !end[strspn(end, " \t\r\n")] && isfinite(*out);
    }
    free(text);
    return rc;
}

/* checker.scores: an accepting validator's score_multiplier.txt (a
 * fraction) or score.txt (points of the test's worth) makes the fraction;
 * with neither, the whole worth (ICPC 2023-07+). Anything else is IE. */
static void kattis_score(const struct rn_job *j, const char *feedback, const struct rn_test *t,
                         struct rn_check *chk)
{
    double mult = 0, score = 0, worth = test_worth(j->prob, t);
    int m = feedback_number(feedback, "score_multiplier.txt", &mult);
    int s = feedback_number(feedback, "score.txt", &score);
    const char *why = NULL;
    if (chk->verdict != RUNNER_AC && (m >= 0 || s >= 0))
        why = "it rejected and still wrote score.txt or score_multiplier.txt";
    else if (chk->verdict != RUNNER_AC)
        return;   /* a rejection scores nothing */
    else if (m == 0 || s == 0)
        why = "score.txt or score_multiplier.txt does not hold a number";
    else if (m > 0 && s > 0)
        why = "both score.txt and score_multiplier.txt were written";
    else if (m > 0 && (mult < 0 || mult > 1))
        why = "score_multiplier.txt is outside 0..1";
    else if (s > 0 && (score < 0 || score > worth + 1e-9))
        why = "score.txt is outside 0..the test's worth (its subtask's points)";
    if (why) {
        snprintf(chk->message, sizeof chk->message, "the validator exited %s, but %s (%g)",
                 chk->verdict == RUNNER_AC ? "42" : "43", why, m > 0 ? mult : score);
        chk->verdict = RUNNER_IE;
        chk->fraction = 0;
    } else if (m > 0 || s > 0) {
        /* partial, as testlib's points are: WA with the fraction */
        chk->fraction = m > 0 ? mult : worth > 0 ? score / worth : 0;
        chk->verdict = chk->fraction >= 1 ? RUNNER_AC : RUNNER_WA;
    }
}

/* the check's verdict from how the checker ended */
static void checker_verdict(const struct rn_job *j, const struct rn_test *t, const struct sandbox_result *res,
                            struct rn_check *chk)
{
    bool exited = res->status == SANDBOX_OK || (res->status == SANDBOX_RE && res->signal == 0);
    if (exited && j->prob->checker_prog.protocol == RN_PROTO_KATTIS) {
        char *m = kattis_message(j->feedback, j->chk_err);
        rn_check_from_kattis(res->exit_code, m, "checker", chk);
        free(m);
        if (j->prob->checker_prog.scores && (chk->verdict == RUNNER_AC || chk->verdict == RUNNER_WA))
            kattis_score(j, j->feedback, t, chk);
    } else if (exited) {
        bool cms = j->prob->checker_prog.protocol == RN_PROTO_CMS;
        char *o = read_text(j->chk_out), *e = read_text(j->chk_err);
        (cms ? rn_check_from_cms : rn_check_from_exit)(res->exit_code, o, e, chk);
        free(o);
        free(e);
    } else {
        chk->verdict = RUNNER_IE;
        chk->fraction = 0;
        snprintf(chk->message, sizeof chk->message, "the checker ended with %s: %.400s",
                 sandbox_status_name(res->status), res->message);
    }
}

/* testlib: checker IN OUT ANS; Kattis: checker IN ANS FEEDBACK_DIR < OUT,
 * with a feedback dir fresh for each test; CMS: checker IN ANS OUT */
static int run_custom_checker(struct rn_job *j, const struct rn_test *t, struct rn_check *chk)
{
    if (rn_reset_box(j->chk, j->checker_dir, !j->chk_ready) < 0)
        return rn_job_infra(j, j->chk, strerror(errno));
    j->chk_ready = true;
    bool kattis = j->prob->checker_prog.protocol == RN_PROTO_KATTIS;
    /* the feedback dir lives through a multi-pass test's passes */
    if (kattis && j->pass == 0 && rn_fresh_dir(j->feedback, 01777) < 0)
        return rn_job_infra(j, j->feedback, strerror(errno));
    int in_fd = kattis ? open(j->out, O_RDONLY | O_CLOEXEC) : -1;
    if (kattis && in_fd < 0)
        return rn_job_infra(j, j->out, strerror(errno));
    char *in = rn_strdup_printf("/problem/%s", t->input);
    char *ans = rn_strdup_printf("/problem/%s", t->answer);
    char *testlib[] = {in, "/output/out", ans, NULL}, *kattis_args[] = {in, ans, "/feedback/", NULL};
    char *cms[] = {in, ans, "/output/out", NULL};
    struct helper_run hr = {.lang = j->checker_lang, .h = &j->prob->checker_prog,
                            .slot = j->slot, .box = j->chk,
                            .args = kattis ? kattis_args
                                    : j->prob->checker_prog.protocol == RN_PROTO_CMS ? cms : testlib,
                            .own = j->prob->type == RN_INTERACTIVE ? NULL : t->args,
                            .feedback = kattis ? j->feedback : NULL,
                            .cpu = CHECKER_CPU, .wall = CHECKER_CPU * 2};
    char **argv;
    struct sandbox_mount *mounts;
    struct sandbox_job sj;
    helper_job(j, &hr, &sj, &argv, &mounts);
    int out_fd = open_out(j->chk_out), err_fd = open_out(j->chk_err);
    sj.stdin_fd = in_fd;
    sj.stdout_fd = out_fd;
    sj.stderr_fd = err_fd;
    struct sandbox_result res;
    int rc = out_fd < 0 || err_fd < 0 ? -2 : sandbox_run(j->r->sb, &sj, &res);
    int fds[] = {in_fd, out_fd, err_fd};
    for (size_t i = 0; i < 3; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    rn_argv_free(argv);
    free(mounts);
    free(in);
    free(ans);
    if (rc == -2)
        return rn_job_infra(j, j->chk_out, strerror(errno));
    if (rc < 0)
        return rn_job_infra(j, "sandbox (checker)", res.message);
    checker_verdict(j, t, &res, chk);
    return 0;
}

/* a run's verdict from the sandbox's status (batch and interactive runs) */
enum runner_verdict rn_verdict_of(enum sandbox_status s)
{
    switch (s) {
    case SANDBOX_OK: return RUNNER_AC;
    case SANDBOX_RE: return RUNNER_RE;
    case SANDBOX_TLE: return RUNNER_TLE;
    case SANDBOX_MLE: return RUNNER_MLE;
    case SANDBOX_OLE: return RUNNER_OLE;
    case SANDBOX_SV: return RUNNER_SV;
    case SANDBOX_IE: break;
    }
    return RUNNER_IE;
}

static uint64_t run_memory(const struct rn_job *j)
{
    return j->prob->memory_limit + j->lang->extra_memory;
}

/* CPU limit x time_factor; the wall limit is the problem's (x time_factor
 * too), else 2 x CPU + 1 s */
static double wall_limit(const struct rn_job *j, double cpu)
{
    if (j->prob->wall_time_limit > 0)
        return j->prob->wall_time_limit * j->lang->time_factor;
    return cpu * 2 + 1;
}

/* the submission's sandbox job for one test, args after its run command
 * (NULL: none); the caller sets its stdio and frees *argv (rn_argv_free)
 * and *mounts */
static void program_job(struct rn_job *j, char *const *args, struct sandbox_job *sj, char ***argv,
                        struct sandbox_mount **mounts)
{
    const struct rn_language *l = j->lang;
    /* the language's prepared files (a JVM archive), verified once per job;
     * a run never waits for a build (the compile, or the next one, builds) */
    if (!j->run_prepared_checked)
        j->run_prepared = rn_prepared_for(j, l, false);
    j->run_prepared_checked = true;
    *argv = rn_argv_expand_prepared(l->run, run_memory(j),
                                    j->run_prepared ? l->prepare->run_flags : NULL, args);
    /* The sealed compile directory, read-only, is the program's /box: it
     * starts every test the same and nothing it writes reaches the host's
     * disk. Its scratch space is the private /tmp, counted as memory. */
    /* File I/O: /box is instead io/, the same files plus the input under
     * its name, and the output file is output/out mounted writable there */
    struct sandbox_mount files[3] = {{.host = j->io ? j->io : j->src, .inside = "/box"}};
    size_t n = 1;
    if (j->run_prepared)
        files[n++] = (struct sandbox_mount){.host = j->run_prepared, .inside = RN_PREPARED_MOUNT};
    if (j->io && j->io_out)
        files[n++] = (struct sandbox_mount){.host = j->out, .inside = j->io_out, .writable = true};
    size_t mount_count;
    *mounts = rn_mounts_for(l, files, n, &mount_count);
    double cpu = j->prob->time_limit * l->time_factor;
    *sj = (struct sandbox_job)SANDBOX_JOB_INIT;
    sj->slot = j->slot;
    sj->cpus = rn_slot_cpus(j->r, j->slot);
    sj->argv = (const char *const *)*argv;
    sj->envp = (const char *const *)l->env;
    sj->workdir = NULL;
    sj->profile = l->profile;
    sj->limits = (struct sandbox_limits){.cpu_time = cpu, .wall_time = wall_limit(j, cpu),
                                         .memory = run_memory(j),
                                         .output = j->prob->output_limit,
                                         .procs = l->processes, .open_files = l->open_files};
    sj->output_runs_on = j->prob->output_truncate;
    sj->mounts = *mounts;
    sj->mount_count = mount_count;
}

/* An unnamed copy of the input in the slot's directory, readable by the box
 * (O_TMPFILE: nothing to remove, the inode goes with the last fd). */
static int readable_copy(const struct rn_job *j, int from, char *why, size_t whylen)
{
    int to = open(j->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
    if (to < 0 || fchmod(to, 0644) < 0) {
        snprintf(why, whylen, "a copy of the input: %s", strerror(errno));
        if (to >= 0)
            close(to);
        return -1;
    }
    char buf[1 << 16];
    ssize_t n;
    while ((n = copy_file_range(from, NULL, to, NULL, SIZE_MAX >> 1, 0)) > 0)
        ;
    if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP))
        while ((n = read(from, buf, sizeof buf)) > 0)
            if (write(to, buf, (size_t)n) != n) {
                n = -1;
                break;
            }
    if (n < 0 || lseek(to, 0, SEEK_SET) < 0) {
        snprintf(why, whylen, "a copy of the input: %s", strerror(errno));
        close(to);
        return -1;
    }
    return to;
}

/* The test's input as the program's stdin. A program may open /dev/stdin
 * (/proc/self/fd/0) again, as std::ifstream("/dev/stdin") and
 * freopen("/dev/stdin", ...) do: that open checks the file's own mode
 * against the box's uid, whatever the fd allows. An input others may read
 * (what the problem store writes, a usual checkout) is given as it is; one
 * the package keeps from others (0600) as a readable copy, at the cost of
 * copying that test's input. */
static int open_input(struct rn_job *j, const struct rn_test *t, char *why, size_t whylen)
{
    /* the self-test's problem has no package: its input is /dev/null */
    if (!j->prob->dir)
        return open("/dev/null", O_RDONLY | O_CLOEXEC);
    /* a later pass of a multi-pass test reads the checker's nextpass.in */
    if (j->pass_input >= 0)
        return lseek(j->pass_input, 0, SEEK_SET) < 0 ? -1 : readable_copy(j, j->pass_input, why, whylen);
    int fd = open_package_file(j->prob, t->input, why, whylen);
    struct stat st;
    if (fd < 0 || (fstat(fd, &st) == 0 && (st.st_mode & S_IROTH)))
        return fd;
    int copy = readable_copy(j, fd, why, whylen);
    close(fd);
    return copy;
}

/* A peak this close to the memory limit is "at the limit": the memory
 * reported is the processes' peak RSS, and the cgroup also charges their
 * page tables and kernel memory (~1/256 of it) and the libraries' pages,
 * so a program faulting at the limit shows a little less. */
static uint64_t at_limit_slack(uint64_t limit)
{
    return (1ULL << 20) + limit / 128;
}

/* What a run stopped by the clock was doing, so a jury can tell (issue 37):
 * a program whose memory stood at the limit was faulting there (reclaim,
 * an OOM kill not yet delivered): MLE, not TLE. One stopped by the wall
 * clock with CPU time left was idle or waiting: sleeping, reading input
 * that never comes, blocked (the sandbox does not count the time it waited
 * for a core of a busy host, up to 10 times the limit). */
static void explain_stop(const struct sandbox_limits *lim, struct sandbox_result *res)
{
    if (res->status != SANDBOX_TLE)
        return;
    char was[sizeof res->message];
    snprintf(was, sizeof was, "%s", res->message);
    if (lim->memory && res->memory + at_limit_slack(lim->memory) >= lim->memory) {
        res->status = SANDBOX_MLE;
        snprintf(res->message, sizeof res->message, "memory limit exceeded: its memory stood at the "
                 "limit (%llu MiB) when it was stopped (%.300s)", (unsigned long long)(lim->memory >> 20), was);
    } else if (res->tle_wall && res->cpu_time < lim->cpu_time) {
        snprintf(res->message, sizeof res->message, "%.300s, with CPU time left (%.3f of %.3f s): idle or "
                 "waiting (sleeping, reading input that never comes, or blocked; time spent waiting for a core does "
                 "not count)",
                 was, res->cpu_time, lim->cpu_time);
    }
}

/* A file-I/O problem's working dir, io/: the sealed program's files linked
 * afresh for each test, the input copied in under input_file, an empty
 * output_file as the mount point of output/out. Root's, mounted read-only:
 * the program writes nothing but the output file. */
static int prepare_io(struct rn_job *j, int in_fd, char *why, size_t whylen)
{
    const struct rn_problem *p = j->prob;
    free(j->io);
    free(j->io_out);
    j->io = rn_strdup_printf("%s/io", j->dir);
    j->io_out = p->output_file ? rn_strdup_printf("/box/%s", p->output_file) : NULL;
    if (rn_reset_box(j->io, j->src, true) < 0 || chmod(j->io, 0755) < 0)
        return snprintf(why, whylen, "io/: %s", strerror(errno)), -1;
    if (p->output_file) {
        char *path = rn_strdup_printf("%s/%s", j->io, p->output_file);
        int rc = unlink(path) < 0 && errno != ENOENT ? -1 : rn_write_file(path, "", 0, 0644);
        free(path);
        if (rc < 0)
            return snprintf(why, whylen, "io/%s: %s", p->output_file, strerror(errno)), -1;
    }
    if (!p->input_file)
        return 0;
    char *path = rn_strdup_printf("%s/%s", j->io, p->input_file);
    int fd = unlink(path) < 0 && errno != ENOENT ? -1 : open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    free(path);
    char buf[1 << 16];
    ssize_t n = 0;
    if (fd >= 0 && lseek(in_fd, 0, SEEK_SET) == 0)
        while ((n = read(in_fd, buf, sizeof buf)) > 0 && common_write_all(fd, buf, (size_t)n) == 0)
            ;
    int rc = fd < 0 || n != 0 || lseek(in_fd, 0, SEEK_SET) < 0 ? -1 : 0;
    if (rc < 0)
        snprintf(why, whylen, "io/%s: %s", p->input_file, strerror(errno));
    if (fd >= 0)
        close(fd);
    return rc;
}

int rn_run_program(struct rn_job *j, const struct rn_test *t, struct sandbox_result *res)
{
    char why[128] = "";
    int in_fd = open_input(j, t, why, sizeof why);
    char q[COMMON_QUOTE_CAP];
    if (in_fd < 0)
        return rn_job_infra(j, t->input ? common_quote(q, sizeof q, t->input, strlen(t->input)) : "/dev/null",
                     *why ? why : strerror(errno));
    /* writable by the box, so that /dev/stdout opens again: it lies in the
     * root-only work dir, where no one else reaches it by path */
    int out_fd = open_out(j->out);
    if (out_fd < 0 || fchmod(out_fd, 0666) < 0) {
        if (out_fd >= 0)
            close(out_fd);
        close(in_fd);
        return rn_job_infra(j, j->out, strerror(errno));
    }
    bool files = j->prob->input_file || j->prob->output_file;
    if (files && prepare_io(j, in_fd, why, sizeof why) < 0) {
        close(in_fd);
        close(out_fd);
        return rn_job_infra(j, "file I/O", why);
    }
    char **argv;
    struct sandbox_mount *mounts;
    struct sandbox_job sj;
    program_job(j, NULL, &sj, &argv, &mounts);
    /* the input stays on stdin too; with an output file stdout is ignored */
    sj.stdin_fd = in_fd;
    sj.stdout_fd = j->prob->output_file ? -1 : out_fd;
    int rc = sandbox_run(j->r->sb, &sj, res);
    struct stat st;
    /* the sandbox watches stdout only: an output file past the limit (cut
     * there, when the program ran on) is OLE all the same */
    if (rc == 0 && j->prob->output_file && fstat(out_fd, &st) == 0 &&
        (uint64_t)st.st_size > j->prob->output_limit &&
        (res->status == SANDBOX_OK || res->status == SANDBOX_RE)) {
        res->status = SANDBOX_OLE;
        snprintf(res->message, sizeof res->message, "output limit exceeded (%s: %llu bytes)",
                 j->prob->output_file, (unsigned long long)j->prob->output_limit);
    }
    close(in_fd);
    close(out_fd);
    rn_argv_free(argv);
    free(mounts);
    if (rc == 0)
        explain_stop(&sj.limits, res);
    return rc < 0 ? rn_job_infra(j, "sandbox", res->message) : 0;
}

static int check_output(struct rn_job *j, const struct rn_test *t, struct rn_check *chk)
{
    if (j->prob->checker == RN_CHECK_CUSTOM)
        return run_custom_checker(j, t, chk);
    char why[256];
    int ans = open_package_file(j->prob, t->answer, why, sizeof why);
    char q[COMMON_QUOTE_CAP];
    if (ans < 0)
        return rn_job_infra(j, common_quote(q, sizeof q, t->answer, strlen(t->answer)), why);
    int out = open(j->out, O_RDONLY | O_CLOEXEC);
    if (out < 0) {
        close(ans);
        return rn_job_infra(j, j->out, strerror(errno));
    }
    int rc = t->own_check ? rn_check_fds(t->check, &t->compare, out, ans, chk, why, sizeof why)
                          : rn_check_fds(j->prob->checker, &j->prob->compare, out, ans, chk, why, sizeof why);
    close(out);
    close(ans);
    return rc < 0 ? rn_job_infra(j, "checker", why) : 0;
}

/* ---- an interactive test (the pipes and the verdict: interactive.c) ------ */

/* The interactor's job: its own slot (the companion of the job's), the
 * package read-only at /problem, output/ writable at /output (testlib's
 * result file, Kattis's feedback dir). Its limits are the checker's, its
 * wall clock the submission's plus CHECKER_CPU: the submission always ends
 * first when both wait. */
static void interactor_job(struct rn_job *j, const struct rn_test *t, double sub_wall,
                           struct sandbox_job *sj, char ***argv, struct sandbox_mount **mounts)
{
    /* a later pass of a multi-pass test: the previous pass's nextpass.in */
    char *in = j->pass > 0 ? rn_strdup_printf("/output/%s", PASS_INPUT) : rn_strdup_printf("/problem/%s", t->input);
    char *ans = rn_strdup_printf("/problem/%s", t->answer);
    char *testlib[] = {in, "/output/out", ans, NULL}, *kattis[] = {in, ans, "/output/", NULL};
    struct helper_run hr = {.lang = j->inter_lang, .h = &j->prob->interactor,
                            .slot = j->slot + j->r->slots, .box = j->inter,
                            .args = j->prob->interactor.protocol == RN_PROTO_KATTIS ? kattis
                                                                                     : testlib,
                            .own = t->args,
                            .output_writable = true, .cpu = sub_wall + CHECKER_CPU,
                            .wall = sub_wall + CHECKER_CPU};
    helper_job(j, &hr, sj, argv, mounts);
    free(in);
    free(ans);
}

/* the interactor's message: stderr (testlib) or judgemessage.txt (Kattis) */
static char *interactor_message(const struct rn_job *j)
{
    if (j->prob->interactor.protocol != RN_PROTO_KATTIS)
        return read_text(j->inter_err);
    return read_feedback(j->out_dir, "judgemessage.txt");
}

static int run_interactive(struct rn_job *j, const struct rn_test *t, struct sandbox_result *res,
                           struct rn_check *chk)
{
    if (rn_reset_box(j->inter, j->inter_dir, !j->inter_ready) < 0)
        return rn_job_infra(j, j->inter, strerror(errno));
    j->inter_ready = true;
    /* a fresh output/ per test (kept through a multi-pass test's passes),
     * writable by the interactor's slot uid, with an empty result file: a
     * checker after it always finds one */
    if ((j->pass == 0 && rn_fresh_dir(j->out_dir, 01777) < 0) || rn_write_file(j->out, "", 0, 0666) < 0 ||
        chmod(j->out, 0666) < 0)
        return rn_job_infra(j, j->out_dir, strerror(errno));
    int err_fd = open_out(j->inter_err);
    if (err_fd < 0)
        return rn_job_infra(j, j->inter_err, strerror(errno));
    char **sub_argv, **inter_argv;
    struct sandbox_mount *sub_mounts, *inter_mounts;
    struct sandbox_job sub, inter;
    program_job(j, NULL, &sub, &sub_argv, &sub_mounts);
    interactor_job(j, t, sub.limits.wall_time, &inter, &inter_argv, &inter_mounts);
    inter.stderr_fd = err_fd;
    struct rn_pair_result pr;
    char why[512];
    int rc = rn_interact(j->r->sb, &sub, &inter, j->prob->output_limit, &pr, why, sizeof why);
    close(err_fd);
    rn_argv_free(sub_argv);
    rn_argv_free(inter_argv);
    free(sub_mounts);
    free(inter_mounts);
    if (rc < 0)
        return rn_job_infra(j, "sandbox (interactive)", why);
    *res = pr.submission;
    char *message = interactor_message(j);
    rn_interactive_verdict(&pr, j->prob->interactor.protocol, NULL, message, chk);
    free(message);
    /* a Kattis interactor's score (its feedback dir is output/) */
    if (j->prob->interactor.scores && chk->verdict == RUNNER_AC)
        kattis_score(j, j->out_dir, t, chk);
    /* Polygon's form: a checker, when the problem names one, judges the
     * interactor's result file once the interactor accepted */
    if (j->prob->checker_given && chk->verdict == RUNNER_AC)
        return check_output(j, t, chk);
    return 0;
}

/* ---- a communication test (the pipes and the verdict: communication.c) -- */

/* The manager's job: the companion slot, the package at /problem, the
 * test's input on stdin, CMS's pipe arguments (then the test's or the
 * package's args). Its limits: the package's manager.time_limit and
 * memory_limit, else CMS's: CPU N x (time limit + 1 s), at least the
 * checker's; the checker's memory; its wall clock past every user's, even
 * one stretched by the time it waited for a core (the sandbox leaves that
 * out of a run's wall clock, up to 10 x its limit), while the manager,
 * blocked reading that user, waits without such allowance. */
static void manager_job(struct rn_job *j, const struct rn_test *t, double user_cpu, double user_wall,
                        struct sandbox_job *sj, char ***argv, struct sandbox_mount **mounts)
{
    const struct rn_problem *p = j->prob;
    char **pipes = rn_comm_manager_args(p->processes);
    double cpu = p->manager_time > 0 ? p->manager_time : p->processes * (user_cpu + 1);
    if (cpu < CHECKER_CPU)
        cpu = CHECKER_CPU;
    struct helper_run hr = {.lang = j->inter_lang, .h = &p->interactor, .slot = j->slot + j->r->slots,
                            .box = j->inter, .args = pipes, .own = t->args, .cpu = cpu,
                            .wall = (cpu > 10 * user_wall ? cpu : 10 * user_wall) + CHECKER_CPU};
    helper_job(j, &hr, sj, argv, mounts);
    if (p->manager_memory)
        sj->limits.memory = p->manager_memory;
    /* its 2 N pipe fds, and as many again when it opens their paths (a
     * CMS manager fopens each): past the box's default 64 at 16; more
     * when its language asks more (open_files) */
    if (sj->limits.open_files < 64 + 4 * p->processes)
        sj->limits.open_files = 64 + 4 * p->processes;
    rn_argv_free(pipes);
}

/* user process i's box: user 0 in the job's slot, the others in its
 * sub-boxes, all on the slot's CPU */
static void user_job(struct rn_job *j, int i, struct sandbox_job *sj, char ***argv, struct sandbox_mount **mounts)
{
    char **args = rn_comm_user_args(j->prob->processes, j->prob->user_stdio, i);
    program_job(j, args, sj, argv, mounts);
    rn_argv_free(args);
    sj->slot = i == 0 ? j->slot : sandbox_subbox(j->slot, i);
    sj->cpus = rn_slot_cpus(j->r, j->slot);
}

/* the test's figures: the users' CPU times added up (what the limit
 * counts), the longest wall time, the largest memory; exit code and signal
 * of the first process that did not end OK, else process 0's */
static void communication_figures(const struct rn_comm_result *cr, struct sandbox_result *res)
{
    int shown = 0;
    for (int i = cr->processes - 1; i >= 0; i--)
        if (cr->user[i].status != SANDBOX_OK)
            shown = i;
    *res = cr->user[shown];
    res->cpu_time = res->wall_time = 0;
    res->memory = 0;
    for (int i = 0; i < cr->processes; i++) {
        res->cpu_time += cr->user[i].cpu_time;
        res->wall_time = cr->user[i].wall_time > res->wall_time ? cr->user[i].wall_time : res->wall_time;
        res->memory = cr->user[i].memory > res->memory ? cr->user[i].memory : res->memory;
    }
}

/* CMS also gives the manager the input as input.txt in its working dir
 * (managers read either): a copy of in_fd, root's, readable */
static int manager_input_file(struct rn_job *j, int in_fd, char *why, size_t whylen)
{
    char *path = rn_strdup_printf("%s/input.txt", j->inter);
    int fd = unlink(path) < 0 && errno != ENOENT ? -1 : open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    free(path);
    char buf[1 << 16];
    ssize_t n = 0;
    while (fd >= 0 && (n = read(in_fd, buf, sizeof buf)) > 0 && common_write_all(fd, buf, (size_t)n) == 0)
        ;
    int rc = fd < 0 || n != 0 || lseek(in_fd, 0, SEEK_SET) < 0 ? -1 : 0;
    if (rc < 0)
        snprintf(why, whylen, "the manager's input.txt: %s", strerror(errno));
    if (fd >= 0)
        close(fd);
    return rc;
}

static int run_communication(struct rn_job *j, const struct rn_test *t, struct sandbox_result *res,
                             struct rn_check *chk, struct rn_comm_result *cr)
{
    const struct rn_problem *p = j->prob;
    int n = p->processes;
    if (rn_reset_box(j->inter, j->inter_dir, !j->inter_ready) < 0)
        return rn_job_infra(j, j->inter, strerror(errno));
    j->inter_ready = true;
    if (rn_fresh_dir(j->out_dir, 01777) < 0)
        return rn_job_infra(j, j->out_dir, strerror(errno));
    char why[512] = "";
    int in_fd = open_input(j, t, why, sizeof why);
    char q[COMMON_QUOTE_CAP];
    if (in_fd < 0)
        return rn_job_infra(j, common_quote(q, sizeof q, t->input, strlen(t->input)), *why ? why : strerror(errno));
    if (manager_input_file(j, in_fd, why, sizeof why) < 0) {
        close(in_fd);
        return rn_job_infra(j, "communication", why);
    }
    int out_fd = open_out(j->chk_out), err_fd = open_out(j->inter_err);
    struct sandbox_job users[RN_MAX_PROCESSES], mgr;
    char **argvs[RN_MAX_PROCESSES + 1] = {0};
    struct sandbox_mount *mounts[RN_MAX_PROCESSES + 1] = {0};
    for (int i = 0; i < n; i++)
        user_job(j, i, &users[i], &argvs[i], &mounts[i]);
    manager_job(j, t, p->time_limit * j->lang->time_factor, users[0].limits.wall_time, &mgr, &argvs[n],
                &mounts[n]);
    mgr.stdin_fd = in_fd;
    mgr.stdout_fd = out_fd;
    mgr.stderr_fd = err_fd;
    int rc = out_fd < 0 || err_fd < 0 ? -2 : rn_communicate(j->r->sb, users, n, &mgr, p->user_stdio, cr, why, sizeof why);
    int fds[] = {in_fd, out_fd, err_fd};
    for (size_t i = 0; i < 3; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    for (int i = 0; i <= n; i++) {
        rn_argv_free(argvs[i]);
        free(mounts[i]);
    }
    if (rc == -2)
        return rn_job_infra(j, j->chk_out, strerror(errno));
    if (rc < 0)
        return rn_job_infra(j, "sandbox (communication)", why);
    for (int i = 0; i < n; i++)
        explain_stop(&users[i].limits, &cr->user[i]);
    communication_figures(cr, res);
    char *o = read_text(j->chk_out), *e = read_text(j->inter_err);
    rn_communication_verdict(cr, p->time_limit * j->lang->time_factor, o, e, chk);
    free(o);
    free(e);
    return 0;
}

static void pass_failed(struct rn_check *chk, const char *fmt, int a, int b)
{
    chk->verdict = RUNNER_IE;
    chk->fraction = 0;
    snprintf(chk->message, sizeof chk->message, fmt, a, b);
}

/* An interactive multi-pass test: while the Kattis interactor accepts and
 * writes nextpass.in into its feedback dir (output/), it runs again with
 * that file as its input (kept there as PASS_INPUT), and the submission in
 * a fresh box; the rest as run_passes. */
static int interactive_passes(struct rn_job *j, const struct rn_test *t, struct sandbox_result *res,
                              struct rn_check *chk)
{
    double cpu = 0, wall = 0;
    uint64_t memory = 0;
    int rc = 0;
    for (j->pass = 0; j->pass < j->prob->passes; j->pass++) {
        if ((rc = run_interactive(j, t, res, chk)) < 0)
            break;
        cpu += res->cpu_time, wall += res->wall_time;
        memory = res->memory > memory ? res->memory : memory;
        char path[PATH_MAX], kept[PATH_MAX], why[128] = "";
        struct stat st;
        snprintf(path, sizeof path, "%s/nextpass.in", j->out_dir);
        snprintf(kept, sizeof kept, "%s/%s", j->out_dir, PASS_INPUT);
        /* a rejection, or the submission's own failure, ends the test
         * whatever the interactor left behind */
        if (j->prob->passes == 1 || chk->verdict != RUNNER_AC || lstat(path, &st) < 0)
            break;
        int root = rn_pkg_root(j->out_dir, why, sizeof why);
        int fd = root < 0 ? -1 : rn_pkg_open(root, "nextpass.in", false, NULL, why, sizeof why);
        if (root >= 0)
            close(root);
        if (fd >= 0)
            close(fd);
        if (fd < 0 || rename(path, kept) < 0 || chmod(kept, 0644) < 0)
            snprintf(chk->message, sizeof chk->message, "pass %d: nextpass.in: %.300s", j->pass + 1,
                     fd < 0 ? why : strerror(errno)), chk->verdict = RUNNER_IE;
        else if (j->pass + 1 == j->prob->passes)
            pass_failed(chk, "pass %d of %d: the interactor wrote nextpass.in after the last pass", j->pass + 1,
                        j->prob->passes);
        if (chk->verdict != RUNNER_AC)
            break;
    }
    j->pass = 0;
    res->cpu_time = cpu, res->wall_time = wall, res->memory = memory;
    return rc;
}

/* One run of the submission and its check. */
static int run_and_check(struct rn_job *j, const struct rn_test *t, struct sandbox_result *res, struct rn_check *chk)
{
    if (rn_run_program(j, t, res) < 0)
        return -1;
    *chk = (struct rn_check){.verdict = rn_verdict_of(res->status), .fraction = 0};
    if (res->status == SANDBOX_OK && check_output(j, t, chk) < 0)
        return -1;
    /* a run that did not end OK was not checked: say what the sandbox saw */
    if (res->status != SANDBOX_OK)
        snprintf(chk->message, sizeof chk->message, "%s", res->message[0] ? res->message : res->syscall_name);
    return 0;
}

/* The checker's nextpass.in, taken out of the feedback dir (the next pass
 * must not see it): an fd, 0 when there is none, -1 (with why) when it is
 * not a regular file of the checker's. */
static int take_nextpass(struct rn_job *j, int *fd, char *why, size_t whylen)
{
    char path[PATH_MAX];
    struct stat st;
    *fd = -1;
    snprintf(path, sizeof path, "%s/nextpass.in", j->feedback);
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : (snprintf(why, whylen, "nextpass.in: %s", strerror(errno)), -1);
    int root = rn_pkg_root(j->feedback, why, whylen);
    *fd = root < 0 ? -1 : rn_pkg_open(root, "nextpass.in", false, NULL, why, whylen);
    if (root >= 0)
        close(root);
    unlink(path);
    return *fd < 0 ? -1 : 1;
}


/* A test of `passes` runs (ICPC multi-pass): while the checker accepts and
 * writes nextpass.in, the submission runs again, in a fresh box, with it
 * as input. nextpass.in with a rejection, or after the last pass, is the
 * problem's fault (IE). The report's times add up, its memory is the
 * largest; the verdict is the last pass's. */
static int run_passes(struct rn_job *j, const struct rn_test *t, struct sandbox_result *res, struct rn_check *chk)
{
    double cpu = 0, wall = 0;
    uint64_t memory = 0;
    int rc = 0;
    for (j->pass = 0; j->pass < j->prob->passes; j->pass++) {
        if ((rc = run_and_check(j, t, res, chk)) < 0)
            break;
        cpu += res->cpu_time, wall += res->wall_time;
        memory = res->memory > memory ? res->memory : memory;
        int next = -1;
        char why[128] = "";
        int has = j->prob->passes > 1 && res->status == SANDBOX_OK ? take_nextpass(j, &next, why, sizeof why) : 0;
        if (j->pass_input >= 0)
            close(j->pass_input);
        j->pass_input = next;
        if (has < 0)
            snprintf(chk->message, sizeof chk->message, "pass %d: %.300s", j->pass + 1, why), chk->verdict = RUNNER_IE;
        else if (has && chk->verdict != RUNNER_AC)
            pass_failed(chk, "pass %d of %d: the checker wrote nextpass.in and rejected", j->pass + 1,
                        j->prob->passes);
        else if (has && j->pass + 1 == j->prob->passes)
            pass_failed(chk, "pass %d of %d: the checker wrote nextpass.in after the last pass", j->pass + 1,
                        j->prob->passes);
        if (has <= 0 || chk->verdict != RUNNER_AC)
            break;
    }
    if (j->pass_input >= 0)
        close(j->pass_input);
    j->pass_input = -1;
    j->pass = 0;
    res->cpu_time = cpu, res->wall_time = wall, res->memory = memory;
    return rc;
}

/* An output-only problem's test: its answer file (in src/, written from
 * the submission) is what the checker judges, as a program's output; none
 * is WA with nothing earned, one past the output limit OLE. */
static int answer_test(struct rn_job *j, size_t i, const struct rn_test *t, struct sandbox_result *res,
                       struct rn_check *chk)
{
    *res = (struct sandbox_result){.status = SANDBOX_OK};
    *chk = (struct rn_check){.verdict = RUNNER_WA};
    char *name = rn_answer_file_name(j->prob, i);
    char *path = name ? rn_strdup_printf("%s/%s", j->src, name) : NULL;
    char q[COMMON_QUOTE_CAP];
    common_quote(q, sizeof q, name ? name : "", name ? strlen(name) : 0);
    int in = path ? open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
    int err = errno;
    free(path);
    free(name);
    struct stat st;
    if (in < 0 && err == ENOENT)
        return snprintf(chk->message, sizeof chk->message, "no answer file %s", q), 0;
    if (in < 0 || fstat(in, &st) < 0) {
        if (in >= 0)
            close(in);
        return rn_job_infra(j, "answer file", strerror(err));
    }
    if ((uint64_t)st.st_size > j->prob->output_limit) {
        close(in);
        chk->verdict = RUNNER_OLE;
        return snprintf(chk->message, sizeof chk->message, "answer file %s: %lld bytes, over the output limit "
                        "(%llu)", q, (long long)st.st_size, (unsigned long long)j->prob->output_limit), 0;
    }
    int out = open_out(j->out);
    char buf[1 << 16];
    ssize_t n = 0;
    while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0 && common_write_all(out, buf, (size_t)n) == 0)
        ;
    int rc = out < 0 || n != 0 ? -1 : 0;
    close(in);
    if (out >= 0)
        close(out);
    if (rc < 0)
        return rn_job_infra(j, j->out, strerror(errno));
    return check_output(j, t, chk);
}

int rn_run_test(void *ctx, size_t i, struct rn_test_outcome *out)
{
    struct rn_job *j = ctx;
    if (j->req->keep_going && !j->req->keep_going(j->req->keep_going_arg)) {
        snprintf(j->err, sizeof j->err, "abandoned before test %zu", i + 1);
        j->failure = RUNNER_FAILURE_ABORTED;
        return -1;
    }
    if (rn_resume_take(j, i, out))
        return 0;   /* finished by the host whose judging this resumes */
    double started = rn_now();
    const struct rn_test *t = &j->prob->tests[i];
    struct sandbox_result res;
    struct rn_check chk = {0};
    struct rn_comm_result cr = {0};
    if (j->prob->type == RN_OUTPUT_ONLY) {
        if (answer_test(j, i, t, &res, &chk) < 0)
            return -1;
    } else if (j->prob->type == RN_COMMUNICATION) {
        if (run_communication(j, t, &res, &chk, &cr) < 0)
            return -1;
    } else if (j->prob->type == RN_INTERACTIVE) {
        if (interactive_passes(j, t, &res, &chk) < 0)
            return -1;
    } else if (run_passes(j, t, &res, &chk) < 0) {
        return -1;
    }
    struct rn_test_report *tr = &j->rep->tests[i];
    tr->verdict = chk.verdict;
    tr->cpu_time = res.cpu_time;
    tr->wall_time = res.wall_time;
    tr->memory = res.memory;
    tr->exit_code = res.signal ? 0 : res.exit_code;
    tr->signal = res.signal;
    free(tr->checker_message);
    tr->checker_message = strdup(chk.message);
    tr->pipeline_time = rn_now() - started;
    free(tr->processes);
    tr->processes = cr.processes ? calloc((size_t)cr.processes + 1, sizeof *tr->processes) : NULL;
    tr->process_count = tr->processes ? (size_t)cr.processes + 1 : 0;
    for (size_t k = 0; k < tr->process_count; k++) {
        bool mgr = k == (size_t)cr.processes;
        const struct sandbox_result *pr = mgr ? &cr.manager : &cr.user[k];
        struct rn_process_report *rp = &tr->processes[k];
        *rp = (struct rn_process_report){.verdict = rn_verdict_of(pr->status), .cpu_time = pr->cpu_time,
                                         .wall_time = pr->wall_time, .memory = pr->memory,
                                         .exit_code = pr->signal ? 0 : pr->exit_code, .signal = pr->signal};
        if (mgr)
            snprintf(rp->name, sizeof rp->name, "manager");
        else
            snprintf(rp->name, sizeof rp->name, "user %d", (int)k % 100);
    }
    free(tr->host);
    tr->host = j->req->host ? strdup(j->req->host) : NULL;
    out->verdict = chk.verdict;
    out->fraction = chk.fraction;
    if (j->req->test_done)
        j->req->test_done(j->req->keep_going_arg, i, j->prob->test_count, (int)chk.verdict);
    rn_resume_record(j, i, tr, chk.fraction);
    return 0;
}
