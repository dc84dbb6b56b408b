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
#include <math.h>
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

/* ---- graded groups (grade:, Kattis' default grader) --------------------- */

struct item_result {
    enum runner_verdict verdict;
    double score;
};

static int evaluate_subtask(struct walk *w, size_t s, struct rn_subtask_outcome *subs);

/* A test of a graded group: accepted scores points x its fraction; one
 * scored in part (a fraction above 0: a validator's score.txt) is accepted
 * with that part, as Kattis accepts it; a rejection scores reject_score. */
static int item_of(struct walk *w, const struct rn_subtask *st, size_t item, struct rn_subtask_outcome *subs,
                   struct item_result *r)
{
    if (item >= w->p->test_count) {
        size_t c = item - w->p->test_count;
        if (evaluate_subtask(w, c, subs) < 0)
            return -1;
        *r = (struct item_result){subs[c].verdict, subs[c].score};
        return 0;
    }
    if (ensure_ran(w, item) < 0)
        return -1;
    const struct rn_test_outcome *t = &w->tests[item];
    bool accepted = t->ran && (t->verdict == RUNNER_AC || (t->verdict == RUNNER_WA && t->fraction > 0));
    if (accepted)
        *r = (struct item_result){RUNNER_AC, st->points * t->fraction};
    else
        *r = (struct item_result){t->ran ? t->verdict : RUNNER_SKIPPED, st->grade.reject_score};
    return 0;
}

/* worst_error's order: JE (our IE), RTE (SV too), MLE, TLE, OLE, WA, PE;
 * the problem format lists JE, IF, RTE, MLE, TLE, OLE, WA */
static int badness(enum runner_verdict v)
{
    static const enum runner_verdict order[] = {RUNNER_IE, RUNNER_RE, RUNNER_SV, RUNNER_MLE, RUNNER_TLE,
                                                RUNNER_OLE, RUNNER_WA, RUNNER_PE, RUNNER_SKIPPED};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (order[i] == v)
            return (int)i;
    return (int)(sizeof order / sizeof order[0]);
}

static enum runner_verdict grade_verdict(const struct rn_grade *g, const struct item_result *r, size_t n)
{
    enum runner_verdict worst = RUNNER_AC, first = RUNNER_AC;
    bool any_ac = false;
    for (size_t i = 0; i < n; i++) {
        any_ac |= r[i].verdict == RUNNER_AC;
        if (r[i].verdict != RUNNER_AC && first == RUNNER_AC)
            first = r[i].verdict;
        if (r[i].verdict != RUNNER_AC && (worst == RUNNER_AC || badness(r[i].verdict) < badness(worst)))
            worst = r[i].verdict;
    }
    if (g->accept_if_any_accepted && any_ac)
        return RUNNER_AC;
    if (g->verdict == RN_GRADE_ALWAYS_ACCEPT)
        return RUNNER_AC;
    return g->verdict == RN_GRADE_FIRST_ERROR ? first : worst;
}

static double grade_score(const struct rn_grade *g, const struct item_result *r, size_t n)
{
    if (!n)
        return 0;
    double acc = r[0].score;
    for (size_t i = 1; i < n; i++)
        acc = g->score == RN_GRADE_MIN ? fmin(acc, r[i].score)
              : g->score == RN_GRADE_MAX ? fmax(acc, r[i].score)
                                         : acc + r[i].score;
    if (g->score == RN_GRADE_AVG)
        acc /= (double)n;
    return fmin(fmax(acc, g->lo), g->hi);   /* range */
}

/* Judges the items in order (on_reject: break ends at the first rejected
 * one: the rest are not judged on its account), then grades the results
 * judged: a judge error (IE) anywhere is the group's; ignore_first drops
 * the first result (the samples); the verdict and the score follow grade:. */
static int grade_subtask(struct walk *w, const struct rn_subtask *st, struct rn_subtask_outcome *subs,
                         struct rn_subtask_outcome *out)
{
    struct item_result *r = calloc(st->item_count ? st->item_count : 1, sizeof *r);
    if (!r)
        return -1;
    size_t n = 0;
    bool ie = false;
    for (size_t k = 0; k < st->item_count; k++) {
        if (item_of(w, st, st->items[k], subs, &r[n]) < 0)
            return free(r), -1;
        ie |= r[n].verdict == RUNNER_IE;
        if (r[n++].verdict != RUNNER_AC && st->grade.on_reject_break)
            break;
    }
    size_t skip = st->grade.ignore_first && n > 0;
    if (ie)
        *out = (struct rn_subtask_outcome){RUNNER_IE, 0};
    else
        *out = (struct rn_subtask_outcome){grade_verdict(&st->grade, r + skip, n - skip),
                                           grade_score(&st->grade, r + skip, n - skip)};
    free(r);
    return 0;
}

/* subtask s, plain or graded, unless a dependency failed */
static int evaluate_subtask(struct walk *w, size_t s, struct rn_subtask_outcome *subs)
{
    const struct rn_subtask *st = &w->p->subtasks[s];
    subs[s] = (struct rn_subtask_outcome){RUNNER_SKIPPED, 0};
    if (!deps_passed(st, subs))
        return 0;
    return st->graded ? grade_subtask(w, st, subs, &subs[s]) : walk_subtask(w, st, &subs[s]);
}

static bool in_any_subtask(const struct rn_problem *p, size_t i)
{
    for (size_t s = 0; s < p->subtask_count; s++)
        for (size_t k = 0; k < p->subtasks[s].test_count; k++)
            if (p->subtasks[s].tests[k] == i)
                return true;
    return false;
}

double rn_subtask_max(const struct rn_problem *p, size_t s)
{
    const struct rn_subtask *st = &p->subtasks[s];
    if (!st->graded)
        return st->points;
    struct item_result *r = calloc(st->item_count ? st->item_count : 1, sizeof *r);
    if (!r)
        return 0;
    for (size_t k = 0; k < st->item_count; k++) {
        size_t item = st->items[k];
        double best = item < p->test_count ? fmax(st->points, st->grade.reject_score)
                                           : rn_subtask_max(p, item - p->test_count);
        r[k] = (struct item_result){RUNNER_AC, best};
    }
    size_t skip = st->grade.ignore_first && st->item_count > 0;
    double max = grade_score(&st->grade, r + skip, st->item_count - skip);
    free(r);
    return max;
}

double rn_problem_max(const struct rn_problem *p)
{
    double max = 0;
    for (size_t s = 0; s < p->subtask_count; s++)
        if (!p->subtasks[s].parent)
            max += rn_subtask_max(p, s);
    return max;
}

static bool any_graded(const struct rn_problem *p)
{
    for (size_t s = 0; s < p->subtask_count; s++)
        if (p->subtasks[s].graded)
            return true;
    return false;
}

static enum runner_verdict overall(const struct rn_problem *p, const struct rn_test_outcome *t,
                                   const struct rn_subtask_outcome *subs)
{
    for (size_t i = 0; i < p->test_count; i++)
        if (t[i].ran && t[i].verdict == RUNNER_IE)
            return RUNNER_IE;
    /* graded groups decide: the top ones' verdicts, then tests of none */
    bool graded = any_graded(p);
    for (size_t s = 0; graded && s < p->subtask_count; s++)
        if (!p->subtasks[s].parent && subs[s].verdict != RUNNER_AC && subs[s].verdict != RUNNER_SKIPPED)
            return subs[s].verdict;
    for (size_t i = 0; i < p->test_count; i++)
        if (t[i].ran && t[i].verdict != RUNNER_AC && !t[i].passed_threshold &&
            (!graded || !in_any_subtask(p, i)))
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
    for (size_t s = 0; s < p->subtask_count; s++)
        subs[s] = (struct rn_subtask_outcome){RUNNER_SKIPPED, 0};
    *score = 0;
    /* top-level subtasks in order; a graded one judges its children */
    for (size_t s = 0; s < p->subtask_count; s++) {
        if (p->subtasks[s].parent)
            continue;
        if (evaluate_subtask(&w, s, subs) < 0)
            return -1;
        *score += subs[s].score;
    }
    for (size_t i = 0; i < p->test_count; i++)
        if (!in_any_subtask(p, i) && ensure_ran(&w, i) < 0)
            return -1;
    *verdict = overall(p, tests, subs);
    return 0;
}
