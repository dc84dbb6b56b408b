/*
 * communication.c - theory of operation: one test of a communication problem
 * (CMS's Communication task type), the problem's manager beside 1..16
 * processes of the submission, each in a box of its own, joined by pipes.
 *
 *   manager  /dev/fd/(4+2i) ──── pipe i, manager to user ────▶ user i
 *   manager  /dev/fd/(3+2i) ◀─── pipe i, user to manager ──── user i
 *
 * CMS creates a FIFO pair per process and passes their paths: the manager
 * gets, for each process i, the path it reads user i from, then the path
 * it writes user i on; a user process (user_io: fifo) gets the path it
 * reads, then the path it writes, then its 0-based index when there are 2
 * or more; with user_io: stdio they are its stdin and stdout instead. Here
 * the pairs are pipes, handed to each box as fds 3, 4, ... and named by
 * their /dev/fd paths: what CMS's stubs and managers do with a path
 * (fopen it, read and write) works the same, and unlike a named FIFO no
 * open ever blocks on a peer that died before opening its end.
 *
 * Isolation: each user process runs in its own box (a sub-box of the job's
 * slot: its own uid, cgroup, pid and network namespace, its own limits)
 * and holds only its own pair: there is no path through which it reaches
 * another process's pipes.
 *
 * Ends and order: as interactive.c (the same rn_side machinery). The host
 * keeps a copy of every end until the run it belongs to returns, each run
 * takes its rank before its ends close, so a side that ended because
 * another did (EOF, EPIPE, SIGPIPE) ranks after it. Every user's wall
 * clock is shorter than the manager's: when everyone waits for everyone,
 * the users end first (TLE, idle) and the manager reads EOF.
 *
 * The manager runs with SIGPIPE ignored (a write to a user that is gone
 * fails with EPIPE); the users with the default, so a user that writes on
 * after the manager ended dies of SIGPIPE - not a failure once the manager
 * has given its verdict (Hydro's rule, and CMS's in effect).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "internal.h"

/* the fd numbers of user i's pipe ends in the manager's box, and of the
 * user's own ends in its box (sandbox_job.pass_fds start at 3) */
#define MANAGER_READS_FD(i) (3 + 2 * (i))
#define MANAGER_WRITES_FD(i) (4 + 2 * (i))
#define USER_READS_FD 3
#define USER_WRITES_FD 4

char **rn_comm_manager_args(int processes)
{
    char **args = calloc((size_t)(2 * processes + 1), sizeof *args);
    for (int i = 0; args && i < processes; i++) {
        args[2 * i] = rn_strdup_printf("/dev/fd/%d", MANAGER_READS_FD(i));
        args[2 * i + 1] = rn_strdup_printf("/dev/fd/%d", MANAGER_WRITES_FD(i));
    }
    return args;
}

char **rn_comm_user_args(int processes, bool user_stdio, int index)
{
    char **args = calloc(4, sizeof *args);
    size_t n = 0;
    if (args && !user_stdio) {
        args[n++] = rn_strdup_printf("/dev/fd/%d", USER_READS_FD);
        args[n++] = rn_strdup_printf("/dev/fd/%d", USER_WRITES_FD);
    }
    if (args && processes > 1)
        args[n++] = rn_strdup_printf("%d", index);
    return args;
}

static void close_pipes(int (*pipes)[2], int count)
{
    for (int i = 0; i < count; i++)
        for (int k = 0; k < 2; k++)
            if (pipes[i][k] >= 0)
                close(pipes[i][k]), pipes[i][k] = -1;
}

/*
 * One CPU for the whole test when the runner pins nothing (judgectl judge,
 * a local problem verify): a round trip wakes the peer each way, and a
 * peer on another CPU must be woken there (an IPI; in a VM an exit to the
 * hypervisor, the idle CPU halted). bench-comm, 2 processes on a loaded
 * 2-core VM: 14.6-30 us per round trip with every box on one CPU, 22-111
 * us spread over both; go-judge measured the same ~5x on its pipes
 * (integration_test/pipe_test/OBSERVATIONS.md). judged pins each slot to
 * a core, and every box of the test with it (run.c), so this only gives
 * the unpinned runner what judged already has. The CPU: the job slot's
 * turn among the CPUs we may use, so two slots' tests spread over them.
 * The users' CPU times do not change; the wall clock leaves out the time
 * a box waited for the core (sandbox.c, past_wall).
 */
static void one_cpu_for_all(struct sandbox_job *users, int n, struct sandbox_job *manager, char *cpu, size_t len)
{
    cpu_set_t mine;
    if (manager->cpus || sched_getaffinity(0, sizeof mine, &mine) < 0 || CPU_COUNT(&mine) < 2)
        return;
    int turn = users[0].slot % CPU_COUNT(&mine), c = -1;
    while (turn >= 0)
        if (CPU_ISSET(++c, &mine))
            turn--;
    snprintf(cpu, len, "%d", c);
    for (int i = 0; i < n; i++)
        users[i].cpus = cpu;
    manager->cpus = cpu;
}

int rn_communicate(struct sandbox *sb, struct sandbox_job *users, int n, struct sandbox_job *manager,
                   bool user_stdio, struct rn_comm_result *out, char *err, size_t errlen)
{
    char cpu[16];
    one_cpu_for_all(users, n, manager, cpu, sizeof cpu);
    /* [i][0..1]: manager to user i; [n + i][0..1]: user i to manager */
    int pipes[2 * RN_MAX_PROCESSES][2];
    memset(pipes, -1, sizeof pipes);
    memset(out, 0, sizeof *out);
    out->processes = n;
    for (int i = 0; i < 2 * n; i++)
        if (rn_box_pipe(pipes[i]) < 0) {
            snprintf(err, errlen, "pipe: %s", strerror(errno));
            close_pipes(pipes, 2 * n);
            return -1;
        }
    /* a process blocked on the manager, blocked on another process that
     * waited for a core, waited for it too (sandbox.c, past_wall) */
    struct sandbox_waits waits = {0};
    for (int i = 0; i < n; i++)
        users[i].shared_waits = &waits;
    manager->shared_waits = &waits;
    int user_ends[RN_MAX_PROCESSES][2], manager_ends[2 * RN_MAX_PROCESSES];
    for (int i = 0; i < n; i++) {
        user_ends[i][0] = pipes[i][0];          /* it reads the manager */
        user_ends[i][1] = pipes[n + i][1];      /* it writes the manager */
        manager_ends[2 * i] = pipes[n + i][0];
        manager_ends[2 * i + 1] = pipes[i][1];
        if (user_stdio) {
            users[i].stdin_fd = user_ends[i][0];
            users[i].stdout_fd = user_ends[i][1];
        } else {
            users[i].pass_fds = user_ends[i];
            users[i].pass_fd_count = 2;
        }
    }
    manager->pass_fds = manager_ends;
    manager->pass_fd_count = 2 * n;
    manager->ignore_sigpipe = true;

    /* the sides own copies of the ends: each closes its own when it ends */
    int own[RN_MAX_PROCESSES + 1][2 * RN_MAX_PROCESSES];
    struct rn_side sides[RN_MAX_PROCESSES + 1] = {0};
    unsigned ended = 0;
    for (int i = 0; i <= n; i++) {
        bool mgr = i == n;
        size_t count = mgr ? (size_t)(2 * n) : 2;
        memcpy(own[i], mgr ? manager_ends : user_ends[i], count * sizeof(int));
        sides[i] = (struct rn_side){sb, mgr ? manager : &users[i], mgr ? &out->manager : &out->user[i], -1,
                                    own[i], count, &ended, false, 0};
    }
    pthread_t threads[RN_MAX_PROCESSES + 1];
    int started = 0;
    while (started <= n && pthread_create(&threads[started], NULL, rn_side_run, &sides[started]) == 0)
        started++;
    /* a run that never starts must still close its ends, or its peers
     * would wait for EOF until their wall limits */
    for (int i = started; i <= n; i++)
        rn_side_close(&sides[i]);
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < n; i++)     /* waits ends here */
        users[i].shared_waits = NULL;
    manager->shared_waits = NULL;
    for (int i = 0; i < n; i++)
        out->user_rank[i] = sides[i].rank;
    out->manager_rank = sides[n].rank;
    if (started <= n) {
        snprintf(err, errlen, "cannot start a thread for process %d of the communication", started);
        return -1;
    }
    for (int i = 0; i <= n; i++)
        if (sides[i].rc < 0) {
            snprintf(err, errlen, "%s", sides[i].res->message);
            return -1;
        }
    return 0;
}

static void say(struct rn_check *chk, enum runner_verdict v, double fraction, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void say(struct rn_check *chk, enum runner_verdict v, double fraction, const char *fmt, ...)
{
    chk->verdict = v;
    chk->fraction = fraction;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(chk->message, sizeof chk->message, fmt, ap);
    va_end(ap);
}

/* CMS's manager output: a score 0..1 first on stdout; -1 if there is none */
static int manager_score(const char *out, double *score)
{
    char *end;
    const char *s = out + strspn(out, " \t\r\n");
    *score = strtod(s, &end);
    if (end == s || !isfinite(*score) || *score < 0 || *score > 1)
        return -1;
    return end[strspn(end, " \t\r\n")] == '\0' ? 0 : -1;
}

/* A user's end that is not its own failure: killed by SIGPIPE after the
 * manager had ended (it wrote on to a manager that had given its verdict). */
static bool user_failed(const struct rn_comm_result *cr, int i)
{
    const struct sandbox_result *u = &cr->user[i];
    if (u->status == SANDBOX_OK)
        return false;
    return !(u->status == SANDBOX_RE && u->signal == SIGPIPE && cr->user_rank[i] > cr->manager_rank);
}

/* the failing user that ended first (the likely cause of the rest); -1: none */
static int first_failed_user(const struct rn_comm_result *cr)
{
    int first = -1;
    for (int i = 0; i < cr->processes; i++)
        if (user_failed(cr, i) && (first < 0 || cr->user_rank[i] < cr->user_rank[first]))
            first = i;
    return first;
}

/*
 * The verdict of one communication test, in this order (the table is in
 * runner/README.md, "Communication problems"):
 *  1. the manager failed: crashed, over its own limits, a non-zero exit, no
 *     score 0..1 on stdout -> IE, the problem's fault;
 *  2. the manager scored below 1 and ended before every user that failed
 *     -> its verdict (WA with its score), whatever they did next;
 *  3. a user's own limit or fault (TLE, "idle" when its wall clock ended
 *     it, MLE, SV, RE), the one that ended first; SIGPIPE after the
 *     manager ended is no failure;
 *  4. the users' CPU times added up over the time limit -> TLE;
 *  5. the manager's score: 1 AC, below 1 WA with that fraction; its stderr
 *     is the message.
 */
void rn_communication_verdict(const struct rn_comm_result *cr, double time_limit, const char *mgr_out,
                              const char *mgr_err, struct rn_check *chk)
{
    const struct sandbox_result *m = &cr->manager;
    double score = 0;
    char q[COMMON_QUOTE_CAP];
    if (m->status != SANDBOX_OK && !(m->status == SANDBOX_RE && m->signal == 0))
        return say(chk, RUNNER_IE, 0, "the manager ended with %s: %.400s", sandbox_status_name(m->status),
                   m->message);
    if (m->exit_code != 0)
        return say(chk, RUNNER_IE, 0, "the manager exited %d: %.400s", m->exit_code, mgr_err);
    if (manager_score(mgr_out, &score) < 0)
        return say(chk, RUNNER_IE, 0, "the manager wrote %s on its stdout, not a score 0..1 (CMS's protocol)",
                   common_quote(q, sizeof q, mgr_out, strlen(mgr_out)));
    int failed = first_failed_user(cr);
    if (score < 1 && (failed < 0 || cr->user_rank[failed] > cr->manager_rank)) {
        if (failed < 0)
            return say(chk, RUNNER_WA, score, "%.480s", mgr_err);
        const struct sandbox_result *u = &cr->user[failed];
        return say(chk, RUNNER_WA, score, "%.200s (after it process %d: %s, %.200s)", mgr_err, failed,
                   runner_verdict_name(rn_verdict_of(u->status)), u->message);
    }
    if (failed >= 0) {
        const struct sandbox_result *u = &cr->user[failed];
        enum runner_verdict v = rn_verdict_of(u->status);
        if (u->status == SANDBOX_TLE && u->tle_wall)
            return say(chk, v, 0, "process %d: idle: %.380s (waiting for the manager, or it for the process: "
                       "a deadlock?)", failed, u->message);
        return say(chk, v, 0, "process %d: %.480s", failed, u->message);
    }
    double cpu = 0;
    for (int i = 0; i < cr->processes; i++)
        cpu += cr->user[i].cpu_time;
    if (cpu > time_limit)
        return say(chk, RUNNER_TLE, 0, "the %d processes' CPU times add up to %.3f s, over the time limit "
                   "(%.3f s)", cr->processes, cpu, time_limit);
    say(chk, score >= 1 ? RUNNER_AC : RUNNER_WA, score, "%.480s", mgr_err);
}
