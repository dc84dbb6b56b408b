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
/* Attribute name of n for a value the conversion writes into YAML (a tag,
 * a type, a name, a path): 1 with the value in buf, 0 when absent, -1
 * (an error naming problem.xml's line and key) when it holds a control
 * character or a line break YAML knows (C0, DEL, C1 such as NEL, U+2028,
 * U+2029), which would end a YAML comment or plain scalar and start a key
 * of its own, or when it is longer than len - 1 bytes (cut, it could end
 * inside a UTF-8 character). */
int pg_scalar(xmlNode *n, const char *name, const char *key, char *buf, size_t len, struct conv_errs *e);
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
