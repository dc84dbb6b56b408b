/* tree.h - package trees walked without recursion; internal to the store
 * library (store.c, package.c), not part of store.h. */
#ifndef JUDGED_STORE_TREE_H
#define JUDGED_STORE_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

enum store_tree_kind {
    STORE_TREE_DIR,        /* a directory, before what it holds */
    STORE_TREE_DIR_DONE,   /* the same directory, after what it holds */
    STORE_TREE_FILE,       /* a regular file */
    STORE_TREE_LINK,       /* a symbolic link (never followed) */
    STORE_TREE_OTHER,      /* a FIFO, socket or device */
    STORE_TREE_DEEP,       /* deeper than max_depth: not read further */
    STORE_TREE_ERROR,      /* cannot be read or stat'ed: errno in err */
};

struct store_tree_entry {
    enum store_tree_kind kind;
    const char *path;      /* root/rel */
    const char *rel;       /* "" for the root itself */
    int depth;             /* directory levels of rel: "a/b" is 2 */
    const struct stat *st; /* NULL for STORE_TREE_ERROR */
    int err;
};

/* Calls visit for root and everything under it, parents before children
 * (and again after them: STORE_TREE_DIR_DONE), with no recursion and no
 * link followed but root itself. Entries deeper than max_depth (0: no
 * limit) come as STORE_TREE_DEEP and are not entered. A non-zero return
 * from visit ends the walk and is returned; -1 with errno if root cannot
 * be opened. */
typedef int (*store_tree_visit)(const struct store_tree_entry *e, void *ctx);
int store_tree_walk(const char *root, int max_depth, store_tree_visit visit, void *ctx);

/* Copies the package tree at from into to (created; removed again on
 * failure), each symbolic link that stays beneath from replaced by a copy
 * of what it points to; a link leaving it, a loop, a FIFO, socket or device
 * refused naming the entry. Files, directories, depth and bytes of the copy
 * count against STORE_MAX_FILES, STORE_MAX_DEPTH and max_bytes (0: none).
 * Errors name entries as "DISPLAY/REL: ..." or, for an archive,
 * "DISPLAY: entry 'REL': ...". (expand.c) */
int store_expand_tree(const char *from, const char *to, const char *display, bool archive, uint64_t max_bytes,
                      char *err, size_t errlen);

#endif
