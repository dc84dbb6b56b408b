/*
 * yaml_doc.h - libyaml documents with typed, line-aware getters (internal).
 *
 * A file is loaded whole (yaml_parser_load); getters check the node's type
 * and convert it, and on failure add "FILE:LINE: KEY: message" to the error
 * list and return -1, so callers can report every problem in one pass.
 */
#ifndef JUDGED_RUNNER_YAML_DOC_H
#define JUDGED_RUNNER_YAML_DOC_H

#include <yaml.h>

#include "internal.h"

struct ydoc {
    yaml_document_t doc;
    const char *file;          /* name used in messages */
    struct common_errors *errs;
    bool loaded;
    /* Aliases let one node be reached from many places: a small file could
     * make the loaders walk a node millions of times. Every step to a node
     * (ydoc_node) counts; past budget, it yields NULL, reported once. */
    size_t visits, budget;
    size_t key_probes;         /* hash-set probes of the duplicate-key check */
};

/* Parses text (len bytes, not necessarily NUL-terminated). display names
 * the file in messages. */
int ydoc_parse(struct ydoc *y, const char *text, size_t len, const char *display,
               struct common_errors *errs);
void ydoc_free(struct ydoc *y);
yaml_node_t *ydoc_root(struct ydoc *y);
yaml_node_t *ydoc_node(struct ydoc *y, int index);
int ydoc_line(const yaml_node_t *n);
void ydoc_error(struct ydoc *y, const yaml_node_t *n, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A scalar quoted for a message: bounded, control bytes escaped. */
#define YQ(buf, s) common_quote((buf), sizeof(buf), (s), strlen(s))

/* Each returns 0, or -1 after recording an error naming key. */
int ydoc_mapping(struct ydoc *y, yaml_node_t *n, const char *key);
const char *ydoc_scalar(struct ydoc *y, yaml_node_t *n, const char *key);
int ydoc_string(struct ydoc *y, yaml_node_t *n, const char *key, char **out);
int ydoc_size(struct ydoc *y, yaml_node_t *n, const char *key, uint64_t *out);
int ydoc_duration(struct ydoc *y, yaml_node_t *n, const char *key, double *out);
int ydoc_number(struct ydoc *y, yaml_node_t *n, const char *key, double *out);
int ydoc_int(struct ydoc *y, yaml_node_t *n, const char *key, int min, int *out);
/* A sequence of scalars -> NULL-terminated array (may be empty). */
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
