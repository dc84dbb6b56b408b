/*
 * convert.h - private to judged/store: the package formats push converts
 * into the runner's (convert.c holds their table), and what converters
 * share to report errors the same way: "FILE:LINE: KEY: message" lines.
 */
#ifndef JUDGED_STORE_CONVERT_H
#define JUDGED_STORE_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
/* s as a double-quoted YAML scalar: what converters write into
 * problem.yaml. Every UTF-8 text comes back the same from a YAML reader
 * (quotes, backslashes and whatever YAML does not allow or would fold,
 * such as control characters and line separators, are escaped); a byte
 * that is no part of UTF-8 becomes U+FFFD, so the file stays YAML: a
 * converter refuses such a value where it matters (a name, a path). */
void conv_yaml_string(FILE *out, const char *s);
/* The entries of directory path not starting with '.', sorted (NULL and
 * *count 0 when it cannot be read); conv_free_names frees them. */
char **conv_sorted_names(const char *path, size_t *count);
void conv_free_names(char **names, size_t count);

/* Path components of a relative path (package.c). */
int store_path_depth(const char *rel);

/* ICPC/Kattis (legacy, 2023-07 and later) and DOMjudge packages (icpc.c). */
bool icpc_detect(const char *dir);
int icpc_convert(const char *dir, const char *name, char **errors);
/* The one output validator program of FOLDER (output_validators/ or
 * output_validator/) as the runner's checker `source:` (a file, or a
 * directory with build/run scripts or sources of one language) into rel;
 * -1 with an error naming the folder and key (line: of key). */
int icpc_find_validator(const char *dir, const char *folder, const char *key, size_t line, char *rel, size_t len,
                        struct conv_errs *e);

/* Test data groups of ICPC packages (icpc_groups.c): the runner's name of a test
 * (data/secret/g1/01.in -> secret-g1-01), and a scoring problem's groups
 * written as the runner's `subtasks:`, errors naming file, line and key. */
#include <stdio.h>
void icpc_test_name(const char *rel_in, char *out, size_t len);
void icpc_subtasks(const char *dir, bool legacy, FILE *out, struct conv_errs *e);
/* The output validator arguments the groups give their tests (legacy
 * output_validator_flags, 2023-07+ output_validator_args; inherited): those
 * of the first group holding tests into common (the problem's), and each
 * directory of tests whose differ into *groups (its tests call the
 * validator their own way; caller frees); -1 after an error. */
struct icpc_group_args {
    char rel[300];                /* data/secret/b: the directory of the tests */
    char args[1024];              /* joined by blanks */
    char origin[340];             /* FILE:LINE that gave them */
};
int icpc_group_validator_args(const char *dir, bool legacy, char *common, size_t len, struct icpc_group_args **groups,
                              size_t *ngroups, struct conv_errs *e);
/* Codeforces Polygon packages, by problem.xml (polygon.c). */
bool polygon_detect(const char *dir);
int polygon_convert(const char *dir, const char *name, char **errors);

#endif
