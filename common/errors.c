/*
 * errors.c - a growing list of human-readable error messages.
 *
 * Validation (languages, problem packages) keeps going after the first
 * problem so a setter sees every mistake at once; each message already names
 * file, line and key ("problem.yaml:4: time_limit: bad duration 'x'").
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

void common_errors_add(struct common_errors *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    int n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (e->count >= COMMON_ERRORS_MAX) {
        e->dropped++;
        free(msg);
        return;
    }
    if (e->count == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 8;
        char **items = realloc(e->items, cap * sizeof *items);
        if (!items) {
            free(msg);
            return;
        }
        e->items = items;
        e->cap = cap;
    }
    e->items[e->count++] = msg;
}

char *common_errors_join(const struct common_errors *e)
{
    char more[64] = "";
    if (e->dropped)
        snprintf(more, sizeof more, "... and %zu more errors\n", e->dropped);
    size_t total = 1 + strlen(more);
    for (size_t i = 0; i < e->count; i++)
        total += strlen(e->items[i]) + 1;
    char *s = malloc(total);
    if (!s)
        return NULL;
    char *p = s;
    for (size_t i = 0; i < e->count; i++) {
        size_t n = strlen(e->items[i]);
        memcpy(p, e->items[i], n);
        p += n;
        *p++ = '\n';
    }
    strcpy(p, more);
    return s;
}

void common_errors_free(struct common_errors *e)
{
    for (size_t i = 0; i < e->count; i++)
        free(e->items[i]);
    free(e->items);
    *e = (struct common_errors){0};
}

char *common_quote(char *out, size_t cap, const char *s, size_t n)
{
    static const char dots[] = "...";
    const unsigned char *u = (const unsigned char *)s;
    size_t used = 0, i = 0;
    if (cap < sizeof dots + 4) {
        if (cap)
            out[0] = '\0';
        return out;
    }
    size_t room = cap - sizeof dots;          /* always leave space for "..." + NUL */
    while (i < n) {
        size_t len = u[i] >= 0x20 && u[i] < 0x7f ? 1 : u[i] >= 0x80 ? common_utf8_len(s + i, n - i) : 0;
        size_t need = len ? len : 4;
        if (used + need > room)
            break;
        if (len)
            memcpy(out + used, s + i, len);
        else
            snprintf(out + used, 5, "\\x%02x", u[i]);
        used += need;
        i += len ? len : 1;
    }
    if (i < n) {
        memcpy(out + used, dots, sizeof dots - 1);
        used += sizeof dots - 1;
    }
    out[used] = '\0';
    return out;
}
