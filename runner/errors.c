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

#include "internal.h"

void rn_errors_add(struct rn_errors *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    int n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
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

char *rn_errors_join(const struct rn_errors *e)
{
    size_t total = 1;
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
    *p = '\0';
    return s;
}

void rn_errors_free(struct rn_errors *e)
{
    for (size_t i = 0; i < e->count; i++)
        free(e->items[i]);
    free(e->items);
    *e = (struct rn_errors){0};
}
