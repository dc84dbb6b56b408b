/*
 * checker.c - built-in checkers and the testlib exit-code protocol.
 *
 *   exact   the bytes must match; a difference in whitespace only is PE
 *   lines   line by line, ignoring trailing blanks on each line and blank
 *           lines at the end; a difference in line breaks only is PE
 *   tokens  whitespace-separated tokens must match (never PE)
 *   float   tokens; where the answer's token is a number, the output's must
 *           be a number within the absolute OR the relative tolerance
 *
 * Options (struct rn_compare): case-insensitive comparison of everything but
 * numbers (the ICPC default validator's default), whitespace runs that must
 * match byte for byte between tokens (Kattis's space_change_sensitive: WA),
 * and the two float tolerances, each of which may be off.
 *
 * A custom checker's exit status maps as testlib defines it: 0 AC, 1 WA,
 * 2 PE, 3 checker failure, 4 "dirt" (PE), 7 points (a fraction 0..1 on its
 * stdout, or testlib's "points X" line on stdout or stderr), 8 unexpected
 * EOF (WA); anything else, or a crash, is IE: the
 * problem's fault, never the contestant's WA. A checker or an interactor of
 * the Kattis protocol: 42 AC, 43 WA, anything else IE.
 *
 * Cost. The answer is package data and may be huge (a 2 GiB sparse file)
 * while the output is bounded by the output limit. Every comparison stops
 * at the first decisive difference and reads the answer only as far as the
 * output, that difference and any whitespace before it: an answer token is
 * scanned at most one byte past the length of the output token it is
 * compared with, an answer line only as far as it can still equal the
 * output's. Both files are mapped, so what is not looked at is never read.
 * Quoted tokens and lines are escaped (control bytes, bytes that are not
 * UTF-8) and cut to SHOWN bytes.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

struct cursor {
    const char *p, *end;
    size_t index;           /* tokens or lines consumed so far */
};

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* The next token, scanning at most cap bytes of it: *len == cap means "cap
 * or longer" (the cursor then stops inside the token; the caller stops). */
static bool next_token(struct cursor *c, const char **tok, size_t *len, size_t cap)
{
    while (c->p < c->end && is_blank(*c->p))
        c->p++;
    if (c->p == c->end)
        return false;
    *tok = c->p;
    const char *stop = (size_t)(c->end - c->p) > cap ? c->p + cap : c->end;
    while (c->p < stop && !is_blank(*c->p))
        c->p++;
    *len = (size_t)(c->p - *tok);
    c->index++;
    return true;
}

/* next line without its trailing blanks; false at the end of the buffer */
static bool next_line(struct cursor *c, const char **line, size_t *len)
{
    if (c->p >= c->end)
        return false;
    const char *nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
    const char *stop = nl ? nl : c->end;
    *line = c->p;
    *len = (size_t)(stop - c->p);
    while (*len && is_blank((*line)[*len - 1]))
        (*len)--;
    c->p = nl ? nl + 1 : c->end;
    c->index++;
    return true;
}

static bool only_blank(const char *p, const char *end)
{
    for (; p < end; p++)
        if (!is_blank(*p))
            return false;
    return true;
}

static void set(struct rn_check *res, enum runner_verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set(struct rn_check *res, enum runner_verdict v, const char *fmt, ...)
{
    res->verdict = v;
    res->fraction = v == RUNNER_AC ? 1.0 : 0.0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->message, sizeof res->message, fmt, ap);
    va_end(ap);
}

#define SHOWN 40  /* bytes of a token or line quoted in a message */
#define NUMBER_MAX 128   /* a longer token is never a number */

struct shown {
    char text[SHOWN + 4];    /* SHOWN bytes at most, "..." when cut */
};

/* an escaped, cut copy of n bytes of output or answer for a message */
static const char *show(struct shown *sh, const char *s, size_t n)
{
    return common_quote(sh->text, sizeof sh->text, s, n);
}

static bool parse_number(const char *tok, size_t len, double *out)
{
    char buf[NUMBER_MAX];
    if (len >= sizeof buf)
        return false;
    memcpy(buf, tok, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    *out = strtod(buf, &end);
    return end == buf + len && len > 0;
}

static bool numbers_close(double out, double ans, const struct rn_compare *cmp)
{
    if (isnan(ans) || isnan(out))
        return isnan(ans) && isnan(out);
    if (isinf(ans) || isinf(out))
        return out == ans;
    double diff = fabs(out - ans);
    return (cmp->abs_tol >= 0 && diff <= cmp->abs_tol * (1 + 1e-9)) ||
           (cmp->rel_tol >= 0 && diff <= cmp->rel_tol * fabs(ans) * (1 + 1e-9));
}

/* case folding is ASCII's, as the ICPC default validator's */
static bool same_bytes(const char *a, const char *b, size_t n, bool fold_case)
{
    if (!fold_case)
        return !memcmp(a, b, n);
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
            return false;
    return true;
}

/* compares one pair of tokens; false with res filled when they differ */
static bool tokens_match(bool floats, const struct rn_compare *cmp, const char *o, size_t on,
                         const char *a, size_t an, size_t index, struct rn_check *res)
{
    double av, ov;
    struct shown sa, so;
    if (floats && parse_number(a, an, &av)) {
        if (parse_number(o, on, &ov) && numbers_close(ov, av, cmp))
            return true;
        set(res, RUNNER_WA, "token %zu: expected %s, found %s (tolerance: absolute %g, "
            "relative %g)", index, show(&sa, a, an), show(&so, o, on), cmp->abs_tol,
            cmp->rel_tol);
        return false;
    }
    if (on == an && same_bytes(o, a, an, cmp->case_insensitive))
        return true;
    set(res, RUNNER_WA, "token %zu: expected '%s', found '%s'", index, show(&sa, a, an),
        show(&so, o, on));
    return false;
}

/* space_change_sensitive: the blanks before a token (or the end) must be
 * the same bytes */
static bool blanks_match(const struct rn_compare *cmp, const char *o0, const char *o1,
                         const char *a0, const char *a1, size_t index, struct rn_check *res)
{
    if (!cmp->space_sensitive || (o1 - o0 == a1 - a0 && !memcmp(o0, a0, (size_t)(a1 - a0))))
        return true;
    set(res, RUNNER_WA, "whitespace differs before token %zu (space changes are not allowed)",
        index);
    return false;
}

static void check_tokens(bool floats, const struct rn_compare *cmp, const char *out,
                         size_t outlen, const char *ans, size_t anslen, struct rn_check *res)
{
    struct cursor co = {out, out + outlen, 0}, ca = {ans, ans + anslen, 0};
    const char *o = out, *a = ans;
    size_t on = 0, an;
    struct shown sh;
    for (;;) {
        const char *o0 = co.p, *a0 = ca.p;
        bool has_o = next_token(&co, &o, &on, outlen);
        /* one byte past the output's token (or enough to show or parse) */
        size_t cap = (has_o ? on : 0) > NUMBER_MAX ? on + 1 : NUMBER_MAX + 1;
        bool has_a = next_token(&ca, &a, &an, cap);
        if (!blanks_match(cmp, o0, has_o ? o : co.p, a0, has_a ? a : ca.p,
                          has_a ? ca.index : ca.index + 1, res))
            return;
        if (!has_o && !has_a)
            break;
        if (!has_o)
            return set(res, RUNNER_WA, "output ends after %zu tokens; expected '%s' next",
                       co.index, show(&sh, a, an));
        if (!has_a)
            return set(res, RUNNER_WA, "extra output after %zu tokens: '%s'", ca.index,
                       show(&sh, o, on));
        if (!tokens_match(floats, cmp, o, on, a, an, ca.index, res))
            return;
    }
    set(res, RUNNER_AC, "%zu tokens", ca.index);
}

static bool tokens_equal(const struct rn_compare *cmp, const char *out, size_t outlen,
                         const char *ans, size_t anslen)
{
    struct rn_check tmp;
    struct rn_compare plain = *cmp;
    plain.space_sensitive = false;
    check_tokens(false, &plain, out, outlen, ans, anslen, &tmp);
    return tmp.verdict == RUNNER_AC;
}

/* Whether the answer's next line equals o (on bytes, trailing blanks gone):
 * compares on bytes, then looks only at the blanks after them; on a match
 * the cursor moves past the line. */
static bool answer_line_equals(struct cursor *ca, const char *o, size_t on, bool fold_case)
{
    size_t left = (size_t)(ca->end - ca->p);
    if (left < on || !same_bytes(ca->p, o, on, fold_case))
        return false;
    const char *q = ca->p + on;
    while (q < ca->end && *q != '\n' && is_blank(*q))
        q++;
    if (q < ca->end && *q != '\n')
        return false;
    ca->p = q < ca->end ? q + 1 : q;
    ca->index++;
    return true;
}

/* the answer's next line for a message: at most SHOWN + 1 bytes of it */
static size_t answer_line_shown(const struct cursor *ca, const char **line)
{
    size_t left = (size_t)(ca->end - ca->p), cap = left > SHOWN + 1 ? SHOWN + 1 : left;
    const char *nl = memchr(ca->p, '\n', cap);
    size_t n = nl ? (size_t)(nl - ca->p) : cap;
    while (n && n <= SHOWN && is_blank(ca->p[n - 1]))
        n--;
    *line = ca->p;
    return n;
}

static void check_lines(const struct rn_compare *cmp, const char *out, size_t outlen,
                        const char *ans, size_t anslen, struct rn_check *res)
{
    struct cursor co = {out, out + outlen, 0}, ca = {ans, ans + anslen, 0};
    const char *o = NULL, *a = NULL;
    size_t on = 0;
    struct shown sa, so;
    for (;;) {
        bool has_o = next_line(&co, &o, &on), has_a = ca.p < ca.end;
        if (!has_o && !has_a)
            return set(res, RUNNER_AC, "%zu lines", ca.index);
        if (!has_a && (on == 0 && only_blank(co.p, co.end)))
            return set(res, RUNNER_AC, "%zu lines", ca.index);
        if (!has_o && only_blank(ca.p, ca.end))      /* stops at the first non-blank */
            return set(res, RUNNER_AC, "%zu lines", ca.index);
        if (has_o && has_a && answer_line_equals(&ca, o, on, cmp->case_insensitive))
            continue;
        enum runner_verdict v = tokens_equal(cmp, out, outlen, ans, anslen) ? RUNNER_PE : RUNNER_WA;
        size_t an = has_a ? answer_line_shown(&ca, &a) : 0, line = ca.index + 1;
        if (!has_o)
            return set(res, v, "output ends at line %zu; expected '%s'", line, show(&sa, a, an));
        if (!has_a)
            return set(res, v, "extra output at line %zu: '%s'", co.index, show(&so, o, on));
        return set(res, v, "line %zu: expected '%s', found '%s'", line, show(&sa, a, an),
                   show(&so, o, on));
    }
}

static void check_exact(const struct rn_compare *cmp, const char *out, size_t outlen,
                        const char *ans, size_t anslen, struct rn_check *res)
{
    if (outlen == anslen && same_bytes(out, ans, anslen, cmp->case_insensitive))
        return set(res, RUNNER_AC, "%zu bytes, identical", anslen);
    check_lines(cmp, out, outlen, ans, anslen, res);
    if (res->verdict == RUNNER_AC || res->verdict == RUNNER_PE)
        set(res, RUNNER_PE, "the output differs from the answer in whitespace only");
}

void rn_check_buffers(enum rn_checker_type type, const struct rn_compare *cmp, const char *out,
                      size_t outlen, const char *ans, size_t anslen, struct rn_check *res)
{
    static const struct rn_compare defaults = RN_COMPARE_DEFAULT;
    if (!cmp)
        cmp = &defaults;
    switch (type) {
    case RN_CHECK_EXACT: return check_exact(cmp, out, outlen, ans, anslen, res);
    case RN_CHECK_LINES: return check_lines(cmp, out, outlen, ans, anslen, res);
    case RN_CHECK_TOKENS: return check_tokens(false, cmp, out, outlen, ans, anslen, res);
    case RN_CHECK_FLOAT: return check_tokens(true, cmp, out, outlen, ans, anslen, res);
    case RN_CHECK_CUSTOM: break;
    }
    set(res, RUNNER_IE, "a custom checker is not a built-in one");
}

struct mapped {
    const char *data;
    size_t len;
};

/* maps a regular file: pages never looked at are never read */
static int map_fd(int fd, const char *what, struct mapped *m, char *err, size_t errlen)
{
    *m = (struct mapped){"", 0};
    struct stat st;
    if (fstat(fd, &st) < 0) {
        snprintf(err, errlen, "%s: %s", what, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: %s, not a regular file", what, rn_kind_name(st.st_mode));
        return -1;
    }
    if (st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            snprintf(err, errlen, "%s: mmap: %s", what, strerror(errno));
            return -1;
        }
        *m = (struct mapped){p, (size_t)st.st_size};
    }
    return 0;
}

static void unmap_file(struct mapped *m)
{
    if (m->len)
        munmap((void *)m->data, m->len);
}

int rn_check_fds(enum rn_checker_type type, const struct rn_compare *cmp, int out_fd,
                 int ans_fd, struct rn_check *res, char *err, size_t errlen)
{
    struct mapped out, ans;
    if (map_fd(ans_fd, "the answer", &ans, err, errlen) < 0)
        return -1;
    if (map_fd(out_fd, "the output", &out, err, errlen) < 0) {
        unmap_file(&ans);
        return -1;
    }
    rn_check_buffers(type, cmp, out.data, out.len, ans.data, ans.len, res);
    unmap_file(&out);
    unmap_file(&ans);
    return 0;
}

int rn_check_files(enum rn_checker_type type, const struct rn_compare *cmp, const char *out_path,
                   const char *ans_path, struct rn_check *res, char *err, size_t errlen)
{
    int ans = open(ans_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (ans < 0) {
        snprintf(err, errlen, "%s: %s", ans_path, strerror(errno));
        return -1;
    }
    int out = open(out_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (out < 0) {
        snprintf(err, errlen, "%s: %s", out_path, strerror(errno));
        close(ans);
        return -1;
    }
    int rc = rn_check_fds(type, cmp, out, ans, res, err, errlen);
    close(out);
    close(ans);
    return rc;
}

static void copy_message(struct rn_check *res, const char *text, const char *fallback)
{
    if (!text || !*text)
        text = fallback;
    while (is_blank(*text))
        text++;
    snprintf(res->message, sizeof res->message, "%s", text);
    size_t n = strlen(res->message);
    while (n && is_blank(res->message[n - 1]))
        res->message[--n] = '\0';
}

/* a fraction 0..1 alone at the start of the checker's stdout (our protocol) */
static bool stdout_fraction(const char *text, double *out)
{
    char *end;
    double f = text ? strtod(text, &end) : NAN;
    if (!text || end == text || !(f >= 0 && f <= 1))
        return false;
    *out = f;
    return true;
}

/* The value of the first line of text that starts "points X" (leading
 * blanks allowed): true with *value X (any number; the caller checks the
 * range) and *rest the text after it on that line. */
static bool points_line(const char *text, double *value, const char **rest)
{
    for (const char *line = text; line && *line;) {
        const char *p = line + strspn(line, " \t\r");
        const char *next = strchr(line, '\n');
        line = next ? next + 1 : NULL;
        if (strncmp(p, "points", 6) || (p[6] != ' ' && p[6] != '\t'))
            continue;
        char *end;
        double f = strtod(p + 6, &end);
        if (end == p + 6)
            continue;
        *value = f;
        *rest = end;
        return true;
    }
    return false;
}

/* Exit code 7 carries a fraction 0..1 of the test's worth, found where the
 * testlib variants put it, in this order:
 *   1. a bare fraction at the start of stdout (this project's protocol);
 *   2. a line "points X [message]" on stdout (DMOJ's testlib build);
 *   3. a line "points X [message]" on stderr (upstream testlib's quitp).
 * When stdout and stderr both have a "points" line they must agree (a
 * checker saying two things is IE). *msg is set to the message of a
 * stdout "points" line, for a checker that writes nothing on stderr.
 * Sets res->fraction, or res to IE. */
static int points_fraction(const char *out, const char *err, struct rn_check *res,
                           const char **msg)
{
    *msg = NULL;
    if (stdout_fraction(out, &res->fraction))
        return 0;
    double on_out = NAN, on_err = NAN;
    const char *out_rest = NULL, *err_rest = NULL;
    bool has_out = points_line(out, &on_out, &out_rest);
    bool has_err = points_line(err, &on_err, &err_rest);
    if (has_out && has_err && on_out != on_err) {
        res->verdict = RUNNER_IE;
        snprintf(res->message, sizeof res->message, "checker exited 7 (points) with 'points %g' on "
                 "its stdout but 'points %g' on its stderr", on_out, on_err);
        return -1;
    }
    double f = has_out ? on_out : on_err;
    if ((has_out || has_err) && f >= 0 && f <= 1) {
        res->fraction = f;
        if (has_out)
            *msg = out_rest;
        return 0;
    }
    res->verdict = RUNNER_IE;
    if (has_out || has_err)
        snprintf(res->message, sizeof res->message, "checker exited 7 (points) with 'points %g', "
                 "outside 0..1 (a fraction of the test's worth)", f);
    else
        snprintf(res->message, sizeof res->message, "checker exited 7 (points) without a fraction "
                 "0..1 on its stdout nor testlib's 'points X' on its stdout or stderr");
    return -1;
}

void rn_check_from_exit(int exit_code, const char *stdout_text, const char *stderr_text,
                        struct rn_check *res)
{
    res->fraction = 0;
    switch (exit_code) {
    case 0: res->verdict = RUNNER_AC; res->fraction = 1; break;
    case 1: case 8: res->verdict = RUNNER_WA; break;
    case 2: case 4: res->verdict = RUNNER_PE; break;
    case 7: {
        const char *said = NULL;
        if (points_fraction(stdout_text, stderr_text, res, &said) < 0)
            return;
        res->verdict = res->fraction >= 1 ? RUNNER_AC : RUNNER_WA;
        if (said && stderr_text && !stderr_text[strspn(stderr_text, " \t\r\n")]) {
            /* DMOJ's form: the message is on the points line */
            copy_message(res, said, "");
            res->message[strcspn(res->message, "\n")] = '\0';
            return;
        }
        break;
    }
    default:
        res->verdict = RUNNER_IE;
        copy_message(res, stderr_text, "");
        char note[64];
        snprintf(note, sizeof note, exit_code == 3 ? "checker failed" : "checker exited %d",
                 exit_code);
        if (res->message[0]) {
            size_t n = strlen(note);
            memmove(res->message + n + 2, res->message, sizeof res->message - n - 3);
            memcpy(res->message, note, n);
            memcpy(res->message + n, ": ", 2);
            res->message[sizeof res->message - 1] = '\0';
        } else
            snprintf(res->message, sizeof res->message, "%s", note);
        return;
    }
    copy_message(res, stderr_text, "");
}

void rn_check_from_cms(int exit_code, const char *stdout_text, const char *stderr_text, struct rn_check *res)
{
    res->fraction = 0;
    copy_message(res, stderr_text, "");
    res->message[strcspn(res->message, "\n")] = '\0';   /* CMS shows the first line */
    char said[sizeof res->message];
    snprintf(said, sizeof said, "%s", res->message);
    double f;
    if (exit_code == 0 && stdout_fraction(stdout_text, &f)) {
        res->fraction = f;
        res->verdict = f >= 1 ? RUNNER_AC : RUNNER_WA;
        return;
    }
    /* the checker failed or spoke another protocol: the problem's fault */
    res->verdict = RUNNER_IE;
    if (exit_code)
        snprintf(res->message, sizeof res->message, "the checker exited %d (CMS: 0 with a score on stdout)%s%.400s",
                 exit_code, said[0] ? ": " : "", said);
    else
        snprintf(res->message, sizeof res->message, "the checker wrote no score 0..1 on its stdout (CMS's "
                 "protocol)%s%.400s", said[0] ? ": " : "", said);
}

void rn_check_from_kattis(int exit_code, const char *message, const char *what,
                          struct rn_check *res)
{
    copy_message(res, message, "");
    res->fraction = exit_code == 42;
    if (exit_code == 42 || exit_code == 43) {
        res->verdict = exit_code == 42 ? RUNNER_AC : RUNNER_WA;
        return;
    }
    /* not the contestant's WA: the validator failed, or speaks another protocol */
    char said[sizeof res->message];
    snprintf(said, sizeof said, "%s", res->message);
    res->verdict = RUNNER_IE;
    snprintf(res->message, sizeof res->message, "the %s exited %d (Kattis: 42 accept, 43 reject)%s%.400s",
             what, exit_code, said[0] ? ": " : "", said);
}
