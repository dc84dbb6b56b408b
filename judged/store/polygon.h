/*
 * polygon.h - private to judged/store: what polygon.c (problem.xml, tests,
 * groups, checker, interactor) and polygon_solutions.c (assets/solutions
 * -> submissions.yaml) share. problem.xml is untrusted: it is parsed once,
 * without network, DTD or entity expansion, and read through these helpers.
 */
#ifndef JUDGED_STORE_POLYGON_H
#define JUDGED_STORE_POLYGON_H

#include <libxml/tree.h>
#include <stdbool.h>
#include <stddef.h>

#include "convert.h"

/* The first element child of n named name (NULL if none or n is NULL). */
xmlNode *pg_child(xmlNode *n, const char *name);
/* Attribute name of n copied into buf (cut to len - 1); NULL when absent. */
const char *pg_attr(xmlNode *n, const char *name, char *buf, size_t len);
/* The line of n in problem.xml (0 when unknown). */
int pg_line(xmlNode *n);
/* "FILE:LINE: KEY: ..." quoting of package text: at most 80 bytes, control
 * bytes and quotes as \xNN, into buf. */
const char *pg_quote(const char *s, char *buf, size_t len);

/* Whether rel is a plain relative path inside the package (no leading '/',
 * no '..' component, no control bytes), as problem.xml paths must be. */
bool pg_relative_path(const char *rel);

/* assets/solutions -> submissions/submissions.yaml (the ICPC 2025-09
 * draft's schema) with each solution copied under submissions/ at its
 * package path; errors name problem.xml's line and the element/attribute.
 * Nothing is written when e holds an error (before or from here). Returns
 * the number of solutions written. */
int pg_write_solutions(const char *dir, xmlNode *assets, struct conv_errs *e);

#endif
