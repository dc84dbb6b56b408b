/*
 * interactive.c - theory of operation: one test of an interactive problem,
 * the submission and the problem's interactor in two boxes joined by pipes.
 *
 *   interactor stdout ──────────────── pipe ───────────────▶ submission stdin
 *   submission stdout ─▶ pipe ─▶ relay (this thread) ─▶ pipe ─▶ interactor stdin
 *
 * Each program runs in its own sandbox slot with its own limits, from its own
 * thread (sandbox_run is synchronous and thread-safe for distinct slots); the
 * calling thread is the relay. The relay exists to count what the submission
 * writes: a pipe has no file size, so the output limit is enforced here,
 * exactly, by cancelling the submission's run (its cancel fd) - the same
 * limit as a batch test's stdout file.
 *
 * Ends of pipes. The host holds a copy of every pipe end it hands to a run;
 * a reader only sees EOF once every writer's copy is closed. So each thread
 * closes the ends of its own run as soon as sandbox_run returns (the keeper
 * has closed its copies by then, and the boxes' keepers never inherit
 * another run's fds: they close every fd when they start). Hence:
 *   - the submission ends (exit, crash, kill) -> the relay reads EOF and
 *     closes the interactor's stdin: the interactor sees EOF;
 *   - the interactor ends -> the submission's stdin sees EOF, and its writes
 *     reach a relay whose writes fail with EPIPE: the relay closes the
 *     submission's stdout pipe and the submission gets SIGPIPE (as with a
 *     direct pipe);
 *   - both wait for each other (a deadlock) -> the submission's wall limit
 *     kills it (TLE, idle), which unblocks the interactor with EOF.
 * Nothing waits forever: every path ends by the interactor's wall limit,
 * which is longer than the submission's.
 *
 * Who ended first. Each thread takes a rank as soon as its run returns,
 * before closing its ends (the runner holds a copy of each, so the other
 * side cannot see EOF or EPIPE before then). Since a run's end reaches the
 * other side only through those ends, a side that ended because the other
 * did always ranks second: the order is causal, not a race of clocks. The
 * one end the relay itself causes, cancelling a submission past its output
 * limit, ranks the submission before the relay closes the interactor's
 * stdin.
 *
 * The interactor runs with SIGPIPE ignored: a write to a submission that is
 * gone fails with EPIPE, and the interactor still gives its verdict.
 *
 * The relay blocks SIGPIPE for itself and consumes any it raised before
 * unblocking: a write to a dead interactor must never kill the judge.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "internal.h"

/* A side's place in the order of ends, taken once: by its thread when its
 * run returns, or, for a submission cancelled past its output limit, by
 * the relay before the interactor can see EOF. */
static void take_rank(struct rn_side *s)
{
    if (!__atomic_exchange_n(&s->ranked, true, __ATOMIC_SEQ_CST))
        s->rank = __atomic_add_fetch(s->ended, 1, __ATOMIC_SEQ_CST);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

void rn_side_close(struct rn_side *s)
{
    for (size_t i = 0; i < s->close_count; i++)
        close_fd(&s->close_after[i]);
}

void *rn_side_run(void *arg)
{
    struct rn_side *s = arg;
    s->rc = sandbox_run(s->sb, s->job, s->res);
    take_rank(s);
    rn_side_close(s);
    return NULL;
}

/* copies from -> to until EOF, a dead reader or the limit; true when the
 * submission wrote more than limit bytes: its run is then cancelled, or,
 * truncating, what it writes on is read and dropped (it runs on) */
static bool relay(int from, int to, int cancel, uint64_t limit, bool truncate, uint64_t *total)
{
    char local[1 << 14];
    bool over = false;
    for (;;) {
        ssize_t n = read(from, local, sizeof local);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return over;
        uint64_t before = *total;
        *total += (uint64_t)n;
        if (limit && *total > limit && !truncate) {
            (void)!write(cancel, "x", 1);
            return true;
        }
        if (limit && *total > limit) {
            over = true;
            n = before < limit ? (ssize_t)(limit - before) : 0;
        }
        if (n > 0 && common_write_all(to, local, (size_t)n) && !over)
            return false;
    }
}

/* A pipe the boxes may open again by name (/dev/stdin is /proc/self/fd/0,
 * and that open checks the pipe's mode, root's 0600, against the box's
 * uid). Mode 0666 opens it to no one else: a pipe has no path, and only a
 * process holding it reaches it through /proc. */
int rn_box_pipe(int fds[2])
{
    if (pipe2(fds, O_CLOEXEC) < 0)
        return -1;
    if (fchmod(fds[0], 0666) == 0)
        return 0;
    close(fds[0]);
    close(fds[1]);
    fds[0] = fds[1] = -1;
    return -1;
}

int rn_interact(struct sandbox *sb, struct sandbox_job *sub, struct sandbox_job *inter,
                uint64_t output_limit, struct rn_pair_result *out, char *err, size_t errlen)
{
    int to_sub[2] = {-1, -1}, from_sub[2] = {-1, -1}, to_inter[2] = {-1, -1};
    int cancel[2] = {-1, -1};
    *out = (struct rn_pair_result){0};
    if (rn_box_pipe(to_sub) < 0 || rn_box_pipe(from_sub) < 0 || rn_box_pipe(to_inter) < 0 ||
        rn_box_pipe(cancel) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        int *all[] = {to_sub, from_sub, to_inter, cancel};
        for (size_t i = 0; i < 4; i++)
            close_fd(&all[i][0]), close_fd(&all[i][1]);
        return -1;
    }
    /* the submission blocked on an interactor that waited for a core
     * waited for it too, and the other way round (sandbox.c, past_wall) */
    struct sandbox_waits waits = {0};
    sub->shared_waits = inter->shared_waits = &waits;
    sub->stdin_fd = to_sub[0];
    sub->stdout_fd = from_sub[1];
    sub->cancel_fd = cancel[0];
    inter->stdin_fd = to_inter[0];
    inter->stdout_fd = to_sub[1];
    inter->ignore_sigpipe = true;
    unsigned ended = 0;
    int s_ends[] = {to_sub[0], from_sub[1]}, i_ends[] = {to_inter[0], to_sub[1]};
    struct rn_side s = {sb, sub, &out->submission, -1, s_ends, 2, &ended, false, 0};
    struct rn_side i = {sb, inter, &out->interactor, -1, i_ends, 2, &ended, false, 0};
    pthread_t ts, ti;
    bool s_started = pthread_create(&ts, NULL, rn_side_run, &s) == 0;
    bool i_started = s_started && pthread_create(&ti, NULL, rn_side_run, &i) == 0;
    if (!i_started) {
        /* a run that never starts must still close its ends, or the other
         * would wait for EOF until its wall limit */
        rn_side_close(&i);
        if (!s_started)
            rn_side_close(&s);
    }

    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    out->output_exceeded = relay(from_sub[0], to_inter[1], cancel[1], output_limit,
                                 sub->output_runs_on, &out->submission_bytes);
    /* cancelled past its limit, the submission has ended for the judge now,
     * before the interactor sees EOF (its run returns later: the kill) */
    if (out->output_exceeded && !sub->output_runs_on && s_started)
        take_rank(&s);
    close_fd(&to_inter[1]);    /* the interactor's stdin sees EOF */
    close_fd(&from_sub[0]);    /* the submission's next write gets SIGPIPE */
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, NULL, &zero) > 0)
        ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    if (s_started)
        pthread_join(ts, NULL);
    if (i_started)
        pthread_join(ti, NULL);
    sub->shared_waits = inter->shared_waits = NULL;   /* waits ends here */
    close_fd(&cancel[0]);
    close_fd(&cancel[1]);
    out->interactor_first = i.rank == 1;
    if (!i_started) {
        snprintf(err, errlen, "cannot start a thread for the interactive run");
        return -1;
    }
    /* a cancelled submission is an IE of the sandbox's: here it is ours,
     * OLE; one that ran on past the limit is OLE unless it also ran out of
     * time */
    if (out->output_exceeded && !(sub->output_runs_on && out->submission.status == SANDBOX_TLE)) {
        out->submission.status = SANDBOX_OLE;
        snprintf(out->submission.message, sizeof out->submission.message,
                 "output limit exceeded (%llu bytes written to the interactor)",
                 (unsigned long long)output_limit);
        s.rc = 0;
    }
    if (s.rc < 0 || i.rc < 0) {
        snprintf(err, errlen, "%s", s.rc < 0 ? out->submission.message : out->interactor.message);
        return -1;
    }
    return 0;
}

static void verdict(struct rn_check *chk, enum runner_verdict v, double fraction, const char *fmt,
                    const char *arg)
{
    chk->verdict = v;
    chk->fraction = fraction;
    snprintf(chk->message, sizeof chk->message, fmt, arg);
}

/* the interactor's own verdict from its exit status and texts */
static void interactor_says(const struct sandbox_result *ir, enum rn_protocol proto,
                            const char *out_text, const char *err_text, struct rn_check *chk)
{
    if (proto == RN_PROTO_KATTIS)   /* the message is feedback/judgemessage.txt */
        return rn_check_from_kattis(ir->exit_code, err_text, "interactor", chk);
    rn_check_from_exit(ir->exit_code, out_text, err_text, chk);
    if (chk->verdict == RUNNER_IE) {
        char msg[sizeof chk->message];
        snprintf(msg, sizeof msg, "%s", chk->message);
        snprintf(chk->message, sizeof chk->message, "interactor: %.480s", msg);
    }
}

/* the interactor ended by itself (an exit status its protocol may map) */
static bool interactor_exited(const struct sandbox_result *ir)
{
    return ir->status == SANDBOX_OK || (ir->status == SANDBOX_RE && ir->signal == 0);
}

/*
 * The verdict of one interactive test, in this order (the precedence of the
 * ICPC tools, problemtools' verifyproblem and DOMjudge's judgedaemon; the
 * table is in runner/README.md, "Interactive problems"):
 *  1. the interactor failed: crashed, over its own limits, exit 3 (testlib's
 *     fail) or an exit code outside its protocol -> IE, the problem's fault,
 *     whatever the submission did (its verdict cannot be trusted);
 *  2. the interactor rejected (WA, PE, partial points) and ended first ->
 *     its verdict, whatever the submission did next (it may well crash or
 *     loop on the EOF it got): the message says what that was;
 *  3. the submission's own limits and faults: TLE ("idle" when the wall
 *     clock ended it: a deadlock), MLE, OLE, SV, RE - SIGPIPE included: it
 *     wrote on after the interactor had ended;
 *  4. the interactor's verdict: AC, WA, PE or points (WA when it was killed
 *     by SIGPIPE: only possible if it restored the default itself).
 */
void rn_interactive_verdict(const struct rn_pair_result *pr, enum rn_protocol proto,
                            const char *inter_out, const char *inter_err, struct rn_check *chk)
{
    const struct sandbox_result *sr = &pr->submission, *ir = &pr->interactor;
    bool inter_sigpipe = ir->status == SANDBOX_RE && ir->signal == SIGPIPE;
    struct rn_check said = {0};
    if (interactor_exited(ir)) {
        interactor_says(ir, proto, inter_out, inter_err, &said);
        if (said.verdict == RUNNER_IE)
            return (void)(*chk = said);
    } else if (!inter_sigpipe) {
        return verdict(chk, RUNNER_IE, 0, "the interactor ended with %.450s", ir->message);
    } else {
        verdict(&said, RUNNER_WA, 0, "%s", "the interactor was killed by SIGPIPE (the submission "
                "ended before reading all it wrote)");
    }
    if (said.verdict != RUNNER_AC && pr->interactor_first) {
        *chk = said;
        if (sr->status != SANDBOX_OK) {
            char note[sizeof chk->message];
            snprintf(note, sizeof note, "%.200s (after it the submission: %s, %.200s)", said.message,
                     runner_verdict_name(rn_verdict_of(sr->status)), sr->message);
            snprintf(chk->message, sizeof chk->message, "%s", note);
        }
        return;
    }
    if (sr->status != SANDBOX_OK) {
        enum runner_verdict v = rn_verdict_of(sr->status);
        if (sr->status == SANDBOX_TLE && sr->tle_wall)
            return verdict(chk, v, 0, "idle: %.380s (waiting for the interactor, or it for the "
                           "submission: a deadlock?)", sr->message);
        if (sr->status == SANDBOX_RE && sr->signal == SIGPIPE)
            return verdict(chk, v, 0, "%.400s: it wrote on after the interactor had ended",
                           sr->message);
        return verdict(chk, v, 0, "%.500s", sr->message);
    }
    *chk = said;
}
