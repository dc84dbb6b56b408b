/*
 * fuzz_checker.c - libFuzzer target: what a submission writes, read by the
 * built-in checkers, and what a package's checker says, read by the
 * testlib and Kattis protocols (runner/checker.c).
 *
 * The input: byte 0 picks the mode and the checker, byte 1 the options
 * (case-insensitive, space-change sensitive, the tolerances), byte 2 an
 * exit code; the rest is two texts split at the first NUL (output and
 * answer; or a checker's stdout and stderr).
 *
 * Built-in checkers are checked against a reference written here from
 * runner/README.md's table, not from checker.c's code: exact accepts
 * exactly equal bytes, lines equal lines up to trailing blanks and blank
 * lines at the end, tokens equal whitespace-separated tokens; every
 * checker accepts an answer compared with itself (float's nan and inf
 * too); the verdict is one a checker may
 * give, the fraction is 1 for AC and 0 otherwise, and the message is UTF-8
 * (quoted bytes are escaped). The protocols: the verdict is one they may
 * give, the fraction within 0..1 and 1 for AC, an IE says why. Any
 * violation aborts. Seeds: tests/fuzz/corpus/checker/. Run with ASan +
 * UBSan; README.md "Fuzzing".
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool same_bytes(const char *a, size_t an, const char *b, size_t bn, bool ci)
{
    if (an != bn)
        return false;
    for (size_t i = 0; i < an; i++)
        if (ci ? tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]) : a[i] != b[i])
            return false;
    return true;
}

/* The next whitespace-separated token at *p (false at the end). */
static bool token(const char **p, const char *end, const char **t, size_t *n)
{
    while (*p < end && blank(**p))
        (*p)++;
    if (*p == end)
        return false;
    *t = *p;
    while (*p < end && !blank(**p))
        (*p)++;
    *n = (size_t)(*p - *t);
    return true;
}

static bool same_tokens(const char *a, size_t an, const char *b, size_t bn, bool ci)
{
    const char *pa = a, *pb = b, *ta, *tb;
    size_t na, nb;
    for (;;) {
        bool ha = token(&pa, a + an, &ta, &na), hb = token(&pb, b + bn, &tb, &nb);
        if (ha != hb)
            return false;
        if (!ha)
            return true;
        if (!same_bytes(ta, na, tb, nb, ci))
            return false;
    }
}

/* Lines of s without trailing blanks, blank lines at the end dropped: how
 * many, each (start, length) in v (at most max). */
static size_t lines_of(const char *s, size_t n, const char **start, size_t *len, size_t max)
{
    size_t count = 0, keep = 0;
    for (const char *p = s, *end = s + n; p < end && count < max;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *stop = nl ? nl : end;
        size_t l = (size_t)(stop - p);
        while (l && blank(p[l - 1]))
            l--;
        start[count] = p;
        len[count++] = l;
        if (l)
            keep = count;
        p = nl ? nl + 1 : end;
    }
    return keep;
}

static bool same_lines(const char *a, size_t an, const char *b, size_t bn, bool ci)
{
    enum { MAX = 65536 };   /* the inputs are shorter: every line fits */
    static const char *sa[MAX], *sb[MAX];
    static size_t la[MAX], lb[MAX];
    size_t na = lines_of(a, an, sa, la, MAX), nb = lines_of(b, bn, sb, lb, MAX);
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (!same_bytes(sa[i], la[i], sb[i], lb[i], ci))
            return false;
    return true;
}

static void check_result(const struct rn_check *r, bool builtin)
{
    if (!memchr(r->message, 0, sizeof r->message))
        abort();
    if (builtin && !common_utf8_valid(r->message))
        abort();   /* a quoted token or line that was not escaped */
    switch (r->verdict) {
    case RUNNER_AC:
        if (r->fraction != 1)
            abort();
        break;
    case RUNNER_WA: case RUNNER_PE:
        if (!(r->fraction >= 0 && r->fraction < 1) || (builtin && r->fraction != 0))
            abort();
        break;
    case RUNNER_IE:
        if (builtin || !r->message[0])
            abort();   /* a built-in checker never fails; an IE says why */
        break;
    default:
        abort();
    }
}

static void builtin(uint8_t kind, uint8_t opts, const char *a, size_t an, const char *b, size_t bn)
{
    static const enum rn_checker_type types[] = {RN_CHECK_EXACT, RN_CHECK_LINES, RN_CHECK_TOKENS, RN_CHECK_FLOAT};
    enum rn_checker_type type = types[kind % 4];
    struct rn_compare cmp = RN_COMPARE_DEFAULT;
    cmp.case_insensitive = opts & 1;
    cmp.space_sensitive = opts & 2;
    if (opts & 4)   /* one tolerance off, as absolute_tolerance or relative_tolerance alone make it */
        *(opts & 8 ? &cmp.rel_tol : &cmp.abs_tol) = -1;
    if (opts & 16)
        cmp.abs_tol = 0.5;
    struct rn_check r;
    rn_check_buffers(type, &cmp, a, an, b, bn, &r);
    check_result(&r, true);
    bool ac = r.verdict == RUNNER_AC, ci = cmp.case_insensitive;
    if (type == RN_CHECK_EXACT && ac != same_bytes(a, an, b, bn, ci))
        abort();
    if (type == RN_CHECK_LINES && ac != same_lines(a, an, b, bn, ci))
        abort();
    if (type == RN_CHECK_TOKENS && !cmp.space_sensitive && ac != same_tokens(a, an, b, bn, ci))
        abort();
    if (type == RN_CHECK_TOKENS && r.verdict == RUNNER_PE)
        abort();   /* tokens: never PE */
    /* every checker accepts the answer itself */
    rn_check_buffers(type, &cmp, b, bn, b, bn, &r);
    check_result(&r, true);
    if (r.verdict != RUNNER_AC) {
        fprintf(stderr, "the answer compared with itself: %s\n", r.message);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    uint8_t mode = data[0], opts = data[1];
    int code = data[2];
    const char *a = (const char *)data + 3;
    size_t rest = size - 3;
    const char *nul = memchr(a, 0, rest);
    size_t an = nul ? (size_t)(nul - a) : rest;
    const char *b = nul ? nul + 1 : a + rest;
    size_t bn = nul ? rest - an - 1 : 0;
    if (mode % 3 == 0) {
        builtin(mode / 3, opts, a, an, b, bn);
        return 0;
    }
    /* the protocols read NUL-terminated texts */
    char *out = strndup(a, an), *err = strndup(b, bn);
    struct rn_check r = {0};
    if (mode % 3 == 1) {
        rn_check_from_exit(code, out, err, &r);
        if (code == 7 && r.verdict != RUNNER_IE && !(r.fraction >= 0 && r.fraction <= 1))
            abort();
    } else {
        rn_check_from_kattis(code, out, "checker", &r);
        if ((code == 42) != (r.verdict == RUNNER_AC) || (code == 43) != (r.verdict == RUNNER_WA))
            abort();
    }
    check_result(&r, false);
    free(out);
    free(err);
    return 0;
}
