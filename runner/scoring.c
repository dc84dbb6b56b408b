/*
 * scoring.c - which tests run, what each subtask scores, the final verdict.
 *
 * Subtasks are walked in declaration order (dependencies point backwards, so
 * that order is topological). A subtask is SKIPPED when any dependency's
 * verdict is not AC; its tests are then not run on its account. Otherwise its
 * tests run in order; a test shared with an earlier subtask runs only once.
 * stop_on_failure: "subtask" leaves the rest of a failing subtask unrun,
 * "all" stops judging at the first failure, "none" runs everything needed.
 * A subtask scores points x an aggregate of its tests' fractions (a
 * partial-points checker gives fractions; otherwise AC is 1, anything else
 * 0): the smallest (min, the default), their product (mul), their mean
 * (sum: a sum subtask runs all its tests, each worth its share), or all or
 * nothing when every checker value lies in (0, T] (threshold, CMS's
 * GroupThreshold: a test that passes counts as accepted for the verdict).
 * Tests that belong to no subtask still run (after all subtasks) and count
 * towards the verdict. The submission's verdict is IE when any test's check
 * was IE (the problem is broken), else the first non-AC verdict among the
 * tests in test order (a test passing a threshold subtask is accepted), else
 * AC.
 */
#include <stdlib.h>

#include "internal.h"

struct walk {
    const struct rn_problem *p;
    rn_run_test_fn run;
    void *ctx;
    struct rn_test_outcome *tests;
    bool stopped;                  /* stop_on_failure: all, after a failure */
};

/* runs test i unless it ran already; -1 on a run failure */
static int ensure_ran(struct walk *w, size_t i)
{
    if (w->tests[i].ran || w->stopped)
        return 0;
    struct rn_test_outcome o = {.ran = true, .verdict = RUNNER_IE};
    if (w->run(w->ctx, i, &o) < 0)
        return -1;
    o.ran = true;
    if (o.verdict == RUNNER_AC && o.fraction <= 0)
        o.fraction = 1;
    w->tests[i] = o;
    if (o.verdict != RUNNER_AC && w->p->stop == RN_STOP_ALL)
        w->stopped = true;
    return 0;
}

static bool deps_passed(const struct rn_subtask *st, const struct rn_subtask_outcome *subs)
{
    for (size_t d = 0; d < st->dep_count; d++)
        if (subs[st->deps[d]].verdict != RUNNER_AC)
            return false;
    return true;
}

/* A threshold subtask's test passes when its checker value is in (0, T]:
 * CMS GroupThreshold reads the value as resources used, 0 being the value
 * of a failed run (a timeout, a crash, a rejection). */
static bool passes_threshold(const struct rn_subtask *st, const struct rn_test_outcome *t)
{
    return t->verdict != RUNNER_IE && t->fraction > 0 && t->fraction <= st->threshold;
}

/* the running aggregate of fractions: min and mul start at 1, sum at 0 */
static double fold(enum rn_aggregate agg, double acc, double f)
{
    switch (agg) {
    case RN_AGG_MUL: return acc * f;
    case RN_AGG_SUM: return acc + f;
    default: return f < acc ? f : acc;
    }
}

/* Does a failure end this subtask's walk? A sum subtask runs every test
 * (each is worth its share), unless everything stopped. */
static bool stops_here(const struct walk *w, const struct rn_subtask *st)
{
    return w->p->stop != RN_STOP_NONE && st->aggregate != RN_AGG_SUM;
}

static int walk_subtask(struct walk *w, const struct rn_subtask *st, struct rn_subtask_outcome *out)
{
    double acc = st->aggregate == RN_AGG_SUM ? 0 : 1;
    enum runner_verdict verdict = RUNNER_AC;
    for (size_t k = 0; k < st->test_count; k++) {
        size_t i = st->tests[k];
        if (ensure_ran(w, i) < 0)
            return -1;
        struct rn_test_outcome *t = &w->tests[i];
        if (!t->ran) {                         /* stopped everything */
            acc = 0;
            if (verdict == RUNNER_AC)
                verdict = RUNNER_SKIPPED;
            break;
        }
        enum runner_verdict v = t->verdict;
        if (st->aggregate == RN_AGG_THRESHOLD) {
            bool pass = passes_threshold(st, t);
            t->passed_threshold |= pass;
            v = pass ? RUNNER_AC : v == RUNNER_AC ? RUNNER_WA : v;
            acc = pass ? acc : 0;
        } else {
            acc = fold(st->aggregate, acc, t->fraction);
        }
        if (v != RUNNER_AC && (verdict == RUNNER_AC || verdict == RUNNER_SKIPPED))
            verdict = v;
        if (v != RUNNER_AC && stops_here(w, st))
            break;
    }
    if (st->aggregate == RN_AGG_SUM)
        acc /= (double)st->test_count;
    out->verdict = verdict;
    out->score = verdict == RUNNER_SKIPPED ? 0 : st->points * acc;
    return 0;
}

static bool in_any_subtask(const struct rn_problem *p, size_t i)
{
    for (size_t s = 0; s < p->subtask_count; s++)
        for (size_t k = 0; k < p->subtasks[s].test_count; k++)
            if (p->subtasks[s].tests[k] == i)
                return true;
    return false;
}

static enum runner_verdict overall(const struct rn_problem *p, const struct rn_test_outcome *t)
{
    for (size_t i = 0; i < p->test_count; i++)
        if (t[i].ran && t[i].verdict == RUNNER_IE)
            return RUNNER_IE;
    for (size_t i = 0; i < p->test_count; i++)
        if (t[i].ran && t[i].verdict != RUNNER_AC && !t[i].passed_threshold)
            return t[i].verdict;
    return RUNNER_AC;
}

int rn_evaluate(const struct rn_problem *p, rn_run_test_fn run, void *ctx,
                struct rn_test_outcome *tests, struct rn_subtask_outcome *subs,
                enum runner_verdict *verdict, double *score)
{
    struct walk w = {p, run, ctx, tests, false};
    for (size_t i = 0; i < p->test_count; i++)
        tests[i] = (struct rn_test_outcome){.ran = false, .verdict = RUNNER_SKIPPED};
    *score = 0;
    for (size_t s = 0; s < p->subtask_count; s++) {
        const struct rn_subtask *st = &p->subtasks[s];
        subs[s] = (struct rn_subtask_outcome){RUNNER_SKIPPED, 0};
        if (!deps_passed(st, subs))
            continue;
        if (walk_subtask(&w, st, &subs[s]) < 0)
            return -1;
        *score += subs[s].score;
    }
    for (size_t i = 0; i < p->test_count; i++)
        if (!in_any_subtask(p, i) && ensure_ran(&w, i) < 0)
            return -1;
    *verdict = overall(p, tests);
    return 0;
}
