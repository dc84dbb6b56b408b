/* pcache.c - this host's cache of problem versions fetched from the problem
 * store (store/store.h), under STATE_DIR/problems/VERSION/.
 *
 * A worker that needs version V acquires it: if this process has verified
 * V's directory it is used at once; otherwise the directory, if any, is
 * verified file by file against V's manifest (itself checked against V),
 * and a copy that differs in any way (a file changed, missing or added: a
 * disk error, a hand edit, a crash mid-write on a filesystem without
 * ordered renames) is removed and fetched again. A fetch writes a temporary
 * directory, checks every hash as it writes, and renames it into place
 * (store_fetch), so a reader never sees a partial copy. A failed fetch is
 * tried once more, then reported: the caller makes it an infrastructure
 * failure (retried, never a verdict).
 *
 * LRU: every acquire stamps the directory's mtime (the order survives a
 * restart) and the entry's last use; after a fetch, versions nobody is
 * using are removed, least recently used first, until the cache fits in
 * `problem_cache`. A version in use is never removed, so the cache may
 * exceed its bound while more versions than fit are being judged at once.
 *
 * One entry per version, guarded by the cache's mutex; an entry being
 * verified or fetched is `busy` (others wait on the condition variable), so
 * two workers never fetch the same version at once; fetching different
 * versions runs in parallel, outside the lock.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

struct pentry {
    char version[65];
    int users;
    bool busy;               /* being verified or fetched */
    bool verified;           /* by this process: safe to use */
    uint64_t bytes;
    int64_t last_used;       /* ms */
    struct pentry *next;
};

struct pcache {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct pentry *list;
    bool scanned;
    unsigned long seq;       /* temporary directory names */
};

struct pcache *pcache_new(void)
{
    struct pcache *c = calloc(1, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    return c;
}

static void cache_dir(const struct jd_config *cfg, char *buf, size_t len)
{
    snprintf(buf, len, "%s/problems", cfg->state_dir);
}

static int add_bytes(const struct common_tree_entry *e, void *ctx)
{
    if (e->st && e->kind != COMMON_TREE_DIR && e->kind != COMMON_TREE_DIR_DONE)
        *(uint64_t *)ctx += (uint64_t)e->st->st_size;
    return 0;
}

/* Bytes of everything under path but its directories (links not followed). */
static uint64_t tree_bytes(const char *path)
{
    uint64_t n = 0;
    common_tree_walk(path, 0, add_bytes, &n);
    return n;
}

static struct pentry *find(const char *version)
{
    for (struct pentry *e = judged.pcache->list; e; e = e->next)
        if (!strcmp(e->version, version))
            return e;
    return NULL;
}

static struct pentry *add(const char *version)
{
    struct pentry *e = calloc(1, sizeof *e);
    snprintf(e->version, sizeof e->version, "%.64s", version);
    e->next = judged.pcache->list;
    judged.pcache->list = e;
    return e;
}

/* Caller holds the lock. Learns the versions a previous run left on disk
 * (unverified, ordered by their mtime) and removes stale temporaries. */
static void scan(const struct jd_config *cfg)
{
    char dir[4200];
    cache_dir(cfg, dir, sizeof dir);
    common_mkdir_p(dir, 0755);
    judged.pcache->scanned = true;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[4500];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!strncmp(e->d_name, ".tmp-", 5)) {
            store_remove_tree(path);
            continue;
        }
        struct stat st;
        if (!store_valid_version(e->d_name) || lstat(path, &st) || !S_ISDIR(st.st_mode) || find(e->d_name))
            continue;
        struct pentry *p = add(e->d_name);
        p->bytes = tree_bytes(path);
        p->last_used = (int64_t)st.st_mtime * 1000;
    }
    if (d)
        closedir(d);
}

/* Caller holds the lock. Removes unused versions, least recently used
 * first, until the cache fits. */
static void evict(const struct jd_config *cfg)
{
    char dir[4200];
    cache_dir(cfg, dir, sizeof dir);
    for (;;) {
        uint64_t total = 0;
        struct pentry *lru = NULL;
        for (struct pentry *e = judged.pcache->list; e; e = e->next) {
            total += e->bytes;
            if (!e->users && !e->busy && (!lru || e->last_used < lru->last_used))
                lru = e;
        }
        if (total <= (uint64_t)cfg->problem_cache || !lru)
            return;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, lru->version);
        logmsg("problem cache: %llu bytes over problem_cache (%ld): removing version %.12s (%llu bytes)",
               (unsigned long long)(total - (uint64_t)cfg->problem_cache), cfg->problem_cache, lru->version,
               (unsigned long long)lru->bytes);
        store_remove_tree(path);
        struct pentry **pp = &judged.pcache->list;
        while (*pp != lru)
            pp = &(*pp)->next;
        *pp = lru->next;
        free(lru);
    }
}

/* Verifies the copy at path against the store's manifest of version; a
 * copy that differs is removed. 0: verified; 1: absent (or removed); -1:
 * the manifest could not be read (err). */
static int check_copy(struct queue_conn *k, const char *version, const char *path, uint64_t *bytes, char *err,
                      size_t errlen)
{
    struct stat st;
    if (lstat(path, &st))
        return 1;
    struct store_manifest m;
    if (store_get_manifest(k, version, &m, err, errlen))
        return -1;
    char why[1024];
    int rc = 0;
    if (!S_ISDIR(st.st_mode) || store_verify_dir(path, &m, why, sizeof why)) {
        logmsg("problem cache: version %.12s: the cached copy is corrupt (%s): fetching it again", version,
               S_ISDIR(st.st_mode) ? why : "not a directory");
        store_remove_tree(path);
        rc = 1;
    } else {
        *bytes = m.total;
    }
    store_manifest_free(&m);
    return rc;
}

/* Makes path a verified copy of version (outside the lock). */
static int materialize(struct queue_conn *k, const struct jd_config *cfg, const char *version, const char *path,
                       uint64_t *bytes, char *err, size_t errlen)
{
    int rc = check_copy(k, version, path, bytes, err, errlen);
    for (int attempt = 0; rc == 1 && attempt < 2; attempt++) {
        char dir[4200], tmp[4400];
        cache_dir(cfg, dir, sizeof dir);
        pthread_mutex_lock(&judged.pcache->mu);
        unsigned long seq = ++judged.pcache->seq;
        pthread_mutex_unlock(&judged.pcache->mu);
        snprintf(tmp, sizeof tmp, "%s/.tmp-%.16s-%d-%lu", dir, version, (int)getpid(), seq);
        double t0 = common_monotonic();
        if (store_fetch(k, version, tmp, path, bytes, err, errlen) == 0) {
            logmsg("problem cache: fetched version %.12s (%llu bytes) in %.2fs", version,
                   (unsigned long long)*bytes, common_monotonic() - t0);
            rc = 0;
        } else {
            logmsg("problem cache: version %.12s: fetch failed%s: %s", version, attempt ? " again" : ", retrying",
                   err);
        }
    }
    return rc;
}

int pcache_acquire(struct queue_conn *k, const struct jd_config *cfg, const char *version, char *path,
                   size_t pathlen, char *err, size_t errlen)
{
    char dir[4200];
    cache_dir(cfg, dir, sizeof dir);
    snprintf(path, pathlen, "%s/%s", dir, version);
    pthread_mutex_lock(&judged.pcache->mu);
    if (!judged.pcache->scanned)
        scan(cfg);
    struct pentry *e = find(version);
    if (!e)
        e = add(version);
    e->users++;
    while (e->busy)
        pthread_cond_wait(&judged.pcache->cv, &judged.pcache->mu);
    int rc = 0;
    if (!e->verified) {
        e->busy = true;
        pthread_mutex_unlock(&judged.pcache->mu);
        uint64_t bytes = 0;
        rc = materialize(k, cfg, version, path, &bytes, err, errlen);
        pthread_mutex_lock(&judged.pcache->mu);
        e->busy = false;
        e->verified = rc == 0;
        if (rc == 0)
            e->bytes = bytes;
        pthread_cond_broadcast(&judged.pcache->cv);
    }
    e->last_used = jd_now_ms();
    if (rc) {
        e->users--;
    } else {
        utimensat(AT_FDCWD, path, NULL, 0);   /* the LRU order survives a restart */
        evict(cfg);
    }
    pthread_mutex_unlock(&judged.pcache->mu);
    return rc ? -1 : 0;
}

void pcache_release(const struct jd_config *cfg, const char *version)
{
    pthread_mutex_lock(&judged.pcache->mu);
    struct pentry *e = find(version);
    if (e) {
        e->users--;
        e->last_used = jd_now_ms();
    }
    evict(cfg);
    pthread_mutex_unlock(&judged.pcache->mu);
}
