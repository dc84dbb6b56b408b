/*
 * yaml_doc.h - the one YAML reader of every layer: libyaml documents with
 * typed, line-aware getters (the runner's problem.yaml and language files,
 * judged.yaml, the ICPC files a push converts).
 *
 * A file is loaded whole (yaml_parser_load); getters check the node's type
 * and convert it, and on failure add "FILE:LINE: KEY: message" to the error
 * list and return -1, so callers can report every problem in one pass. A
 * key given twice is refused naming both lines (libyaml lets the last one
 * win). Errors are returned in the list, never printed.
 *
 * Its own library (common_yaml), apart from common: common links nothing,
 * so that the statically linked sandbox programs can use it.
 */
#ifndef JUDGED_COMMON_YAML_DOC_H
#define JUDGED_COMMON_YAML_DOC_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "common.h"

struct ydoc {
    yaml_document_t doc;
    const char *file;          /* name used in messages */
    struct common_errors *errs;
    bool loaded;
    /* Aliases let one node be reached from many places: a small file could
     * make the loaders walk a node millions of times. Every step to a node
     * (ydoc_node) counts; past budget, it yields NULL, reported once. */
    size_t visits, budget;
    size_t key_probes;         /* hash-set probes of the duplicate-key checks */
};

/* How a reader words what goes wrong before its own checks: each reader
 * keeps the messages its users (and tests) know. */
struct ydoc_how {
    /* A syntax error: "FILE:LINE: SYNTAX_KEY: why", or "FILE:LINE: why"
     * when NULL. */
    const char *syntax_key;
    /* An empty file is a document without a root (ydoc_root NULL); else it
     * is refused ("FILE:1: document: the file is empty"). */
    bool empty_ok;
};

/* Parses text (len bytes, not necessarily NUL-terminated); display names
 * the file in messages. A syntax error is "syntax", an empty file refused
 * (the runner's words). 0, or -1 with the error in errs. */
int ydoc_parse(struct ydoc *y, const char *text, size_t len, const char *display,
               struct common_errors *errs);
/* The same with the reader's own words (how) and from a stream. */
int ydoc_parse_how(struct ydoc *y, const char *text, size_t len, const char *display,
                   const struct ydoc_how *how, struct common_errors *errs);
int ydoc_read(struct ydoc *y, FILE *f, const char *display, const struct ydoc_how *how,
              struct common_errors *errs);
void ydoc_free(struct ydoc *y);
yaml_node_t *ydoc_root(struct ydoc *y);
/* The node at index, or NULL once the alias budget is spent (reported). */
yaml_node_t *ydoc_node(struct ydoc *y, int index);
int ydoc_line(const yaml_node_t *n);
void ydoc_error(struct ydoc *y, const yaml_node_t *n, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A scalar quoted for a message: bounded, control bytes escaped. */
#define YQ(buf, s) common_quote((buf), sizeof(buf), (s), strlen(s))

/* The keys of one mapping met so far, for a reader that words a key given
 * twice itself: ydoc_keys_twice remembers k and returns the key met
 * earlier with the same text, or NULL. Linear in the number of keys (a
 * keyed hash set: a hostile file cannot make it quadratic). */
struct ydoc_keys {
    struct common_strset set;
};
const yaml_node_t *ydoc_keys_twice(struct ydoc_keys *seen, const yaml_node_t *k);
/* Frees seen; its probes join y->key_probes (y may be NULL). */
void ydoc_keys_free(struct ydoc *y, struct ydoc_keys *seen);

/* Each returns 0, or -1 after recording an error naming key. ydoc_mapping
 * also records every key of n given twice ("KEY: given twice (also on line
 * N)") and still returns 0: the loaders fail on any recorded error. */
int ydoc_mapping(struct ydoc *y, yaml_node_t *n, const char *key);
const char *ydoc_scalar(struct ydoc *y, yaml_node_t *n, const char *key);
int ydoc_string(struct ydoc *y, yaml_node_t *n, const char *key, char **out);
int ydoc_size(struct ydoc *y, yaml_node_t *n, const char *key, uint64_t *out);
int ydoc_duration(struct ydoc *y, yaml_node_t *n, const char *key, double *out);
int ydoc_number(struct ydoc *y, yaml_node_t *n, const char *key, double *out);
int ydoc_int(struct ydoc *y, yaml_node_t *n, const char *key, int min, int *out);
/* A sequence of scalars -> NULL-terminated array (may be empty); the
 * array and its strings are the caller's, as is the old *out it frees. */
int ydoc_strings(struct ydoc *y, yaml_node_t *n, const char *key, char ***out);

#define YDOC_FOR_PAIRS(y, map, kname, knode, vnode)                                        \
    for (yaml_node_pair_t *ydoc_p_ = (map)->data.mapping.pairs.start;                     \
         ydoc_p_ < (map)->data.mapping.pairs.top; ydoc_p_++)                               \
        for (yaml_node_t *knode = ydoc_node((y), ydoc_p_->key),                            \
                         *vnode = ydoc_node((y), ydoc_p_->value);                          \
             knode; knode = NULL)                                                          \
            for (const char *kname = knode->type == YAML_SCALAR_NODE                       \
                                         ? (const char *)knode->data.scalar.value          \
                                         : "?";                                            \
                 kname; kname = NULL)

#endif
