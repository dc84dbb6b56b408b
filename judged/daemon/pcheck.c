/* pcheck.c - the metadata check of a cached problem copy (pcache.c): what
 * every file and directory of a copy looked like when its content was
 * proved by hash, and whether it still looks so. One stat per node, no
 * reading: cheap enough for every use of a version (tests/bench/
 * bench_pcache.c measures it). Apart from pcache.c so that the benchmark
 * times this very code.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "store.h"

void pcheck_free(struct pnode *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(nodes[i].rel);
    free(nodes);
}

static int push_node(struct pnode **nodes, size_t *n, size_t *cap, const char *rel, size_t len)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        struct pnode *grown = realloc(*nodes, c * sizeof *grown);
        if (!grown)
            return -1;
        *nodes = grown;
        *cap = c;
    }
    struct pnode *p = &(*nodes)[*n];
    memset(p, 0, sizeof *p);
    if (!(p->rel = strndup(rel, len)))
        return -1;
    (*n)++;
    return 0;
}

/* The nodes to watch of m: the version's directory, every file and every
 * directory holding one. Paths sharing a prefix are adjacent in the sorted
 * manifest, so a directory is new exactly when the previous path does not
 * lie in it. */
int pcheck_nodes(const struct store_manifest *m, struct pnode **out, size_t *count)
{
    struct pnode *nodes = NULL;
    size_t n = 0, cap = 0;
    int rc = push_node(&nodes, &n, &cap, ".", 1);
    for (size_t i = 0; rc == 0 && i < m->n; i++) {
        const char *path = m->files[i].path, *prev = i ? m->files[i - 1].path : "";
        for (const char *s = strchr(path, '/'); rc == 0 && s; s = strchr(s + 1, '/')) {
            size_t len = (size_t)(s - path);
            if (strncmp(prev, path, len) || prev[len] != '/')
                rc = push_node(&nodes, &n, &cap, path, len);
        }
        if (rc == 0)
            rc = push_node(&nodes, &n, &cap, path, strlen(path));
    }
    if (rc) {
        pcheck_free(nodes, n);
        return -1;
    }
    *out = nodes;
    *count = n;
    return 0;
}

static void node_set(struct pnode *p, const struct stat *st)
{
    p->dev = st->st_dev;
    p->ino = st->st_ino;
    p->mode = st->st_mode;
    p->size = st->st_size;
    p->mtime = st->st_mtim;
    p->ctime = st->st_ctim;
}

static bool same_time(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* What differs between a node and what is on disk now; NULL: nothing. */
static const char *node_diff(const struct pnode *p, const struct stat *st)
{
    if (p->dev != st->st_dev || p->ino != st->st_ino)
        return "replaced (another inode)";
    if (p->mode != st->st_mode)
        return "type or mode changed";
    if (p->size != st->st_size)
        return "size changed";
    if (!same_time(p->mtime, st->st_mtim))
        return S_ISDIR(st->st_mode) ? "entries added, removed or renamed (mtime changed)" : "mtime changed";
    if (!same_time(p->ctime, st->st_ctim))
        return "ctime changed";
    return NULL;
}

/* Stats every node of the copy at path (no link followed): with record,
 * takes what it finds as the nodes' metadata; without, compares. 0: all
 * as recorded (or recorded); 1: why says what differs; -1: the copy cannot
 * be read (why says why). */
int pcheck_stat(const char *path, struct pnode *nodes, size_t n, bool record, char *why, size_t whylen)
{
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        snprintf(why, whylen, "the version's directory: %s", strerror(errno));
        return record ? -1 : 1;
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct stat st;
        const char *diff;
        if (fstatat(dfd, nodes[i].rel, &st, AT_SYMLINK_NOFOLLOW)) {
            snprintf(why, whylen, "%s: %s", nodes[i].rel, strerror(errno));
            rc = record ? -1 : 1;
        } else if (record) {
            node_set(&nodes[i], &st);
        } else if ((diff = node_diff(&nodes[i], &st))) {
            snprintf(why, whylen, "%s: %s", nodes[i].rel, diff);
            rc = 1;
        }
    }
    close(dfd);
    return rc;
}
