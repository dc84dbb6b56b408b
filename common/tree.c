/*
 * tree.c - directory trees walked without recursion (common_tree_walk in
 * common.h): the one walk of every layer.
 *
 * Packages arrive from setters as archives and directories, and a path may
 * be a thousand bytes long: 500 directories deep. Recursive walks with
 * path buffers in every frame ran a connection thread of judge-api out of
 * stack on such a tree (a 152-byte archive), so walks go through fts,
 * which keeps the tree on the heap, and the walks of untrusted trees stop
 * at a depth their caller gives.
 */
#include <errno.h>
#include <fts.h>
#include <string.h>

#include "common.h"

static enum common_tree_kind kind_of(const FTSENT *f)
{
    switch (f->fts_info) {
    case FTS_D:
        return COMMON_TREE_DIR;
    case FTS_DP:
        return COMMON_TREE_DIR_DONE;
    case FTS_F:
        return COMMON_TREE_FILE;
    case FTS_SL:
    case FTS_SLNONE:
        return COMMON_TREE_LINK;
    case FTS_DEFAULT:
        return COMMON_TREE_OTHER;
    default:   /* FTS_DNR, FTS_ERR, FTS_NS, FTS_DC */
        return COMMON_TREE_ERROR;
    }
}

int common_tree_walk(const char *root, int max_depth, common_tree_visit visit, void *ctx)
{
    char *const roots[] = {(char *)root, NULL};
    FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_COMFOLLOW | FTS_NOCHDIR, NULL);
    if (!fts)
        return -1;
    size_t root_len = 0;   /* of root without trailing slashes: children are root_len + '/' + rel */
    int rc = 0;
    FTSENT *f;
    errno = 0;
    while (rc == 0 && (f = fts_read(fts))) {
        if (f->fts_level == 0) {
            root_len = f->fts_pathlen;
            while (root_len && f->fts_path[root_len - 1] == '/')
                root_len--;
        }
        struct common_tree_entry e = {
            .kind = kind_of(f),
            .path = f->fts_path,
            .rel = f->fts_level ? f->fts_path + root_len + 1 : "",
            .depth = f->fts_level,
            .err = f->fts_errno,
        };
        e.st = e.kind == COMMON_TREE_ERROR ? NULL : f->fts_statp;
        if (max_depth && f->fts_level > max_depth && e.kind != COMMON_TREE_DIR_DONE) {
            e.kind = COMMON_TREE_DEEP;
            fts_set(fts, f, FTS_SKIP);
        }
        rc = visit(&e, ctx);
        errno = 0;
    }
    if (rc == 0 && errno)
        rc = -1;   /* fts_read's NULL was an error, not the end */
    int saved = errno;
    fts_close(fts);
    errno = saved;
    return rc;
}
