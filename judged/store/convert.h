/*
 * convert.h - private to judged/store: the package formats push converts
 * into the runner's (convert.c holds their table), and what converters
 * share to report errors the same way: "FILE:LINE: KEY: message" lines.
 */
#ifndef JUDGED_STORE_CONVERT_H
#define JUDGED_STORE_CONVERT_H

#include <stdbool.h>
#include <stddef.h>

/* Errors and warnings of one conversion, one line each; n counts errors. */
struct conv_errs {
    char *buf;
    size_t len;
    int n;
};

void conv_err(struct conv_errs *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning goes with the errors (FILE:LINE: KEY: warning: ...) but does
 * not count as one: the package is converted, and push shows it. */
void conv_warn(struct conv_errs *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void conv_line(struct conv_errs *e, const char *line);

/* Path components of a relative path (package.c). */
int store_path_depth(const char *rel);

/* ICPC/Kattis (legacy, 2023-07 and later) and DOMjudge packages (icpc.c). */
bool icpc_detect(const char *dir);
int icpc_convert(const char *dir, const char *name, char **errors);

/* Codeforces Polygon packages, by problem.xml (polygon.c). */
bool polygon_detect(const char *dir);
int polygon_convert(const char *dir, const char *name, char **errors);

#endif
