/* pcache.c - this host's cache of problem versions fetched from the problem
 * store (store/store.h), under STATE_DIR/problems/VERSION/.
 *
 * Nothing is judged from a copy that differs from its version's manifest
 * (issue 22: a test input changed on disk after the fetch gave WA to
 * correct solutions, silently). A copy is trusted only once it was proved:
 * the metadata of every file and directory it holds is recorded (size,
 * mtime, ctime, inode, type), then every file is hashed against the
 * manifest (itself checked against V). After that:
 *
 * - every use (acquire) compares that metadata with the disk: a stat per
 *   file and per directory, no reading. An edit in place changes size,
 *   mtime or ctime (ctime also catches an mtime set back by hand), a
 *   replacement the inode, an entry added, removed or renamed its
 *   directory's times. Any difference makes the copy be hashed again:
 *   content intact (an mtime touched) means nothing is fetched and the new
 *   metadata is recorded; content changed means the copy is removed and
 *   fetched again (reason `changed`);
 * - every `problem_cache_rehash` a version in use is hashed again anyway,
 *   for what leaves metadata alone (a disk's bit rot; reason `rehash`);
 * - the first use in a process proves a copy an earlier run left (reason
 *   `restart`);
 * - the end of a use (release) compares the metadata again: a copy that
 *   changed while a job read it, or was fetched again meanwhile (gen),
 *   makes that job's verdict unusable; the caller makes it an
 *   infrastructure failure, and the next use hashes the copy.
 * Each refetch is logged and counted (judged_problem_cache_refetch_total
 * {reason}). A copy that must be hashed or fetched while the store cannot
 * give its manifest or blobs (Redis down, the version removed) is an
 * error: the caller makes it an infrastructure failure (retried later,
 * never a verdict). Only a scheduled rehash that cannot read the manifest
 * lets the copy be used, since its metadata showed no change.
 *
 * A fetch writes a temporary directory, checks every hash as it writes,
 * and renames it into place (store_fetch), so a reader never sees a
 * partial copy; it is then proved as above. A failed fetch is tried once
 * more, then reported.
 *
 * LRU: every acquire stamps the directory's mtime (the order survives a
 * restart; the directory's recorded metadata is taken again after the
 * stamp) and the entry's last use; after a fetch, versions nobody is using
 * are removed, least recently used first, until the cache fits in
 * `problem_cache`. A version in use is never removed, so the cache may
 * exceed its bound while more versions than fit are being judged at once.
 *
 * One entry per version, guarded by the cache's mutex; an entry being
 * checked, hashed or fetched is `busy` (others wait on the condition
 * variable), so two workers never fetch the same version at once and the
 * stat checks of one version take turns; other versions go on in
 * parallel, outside the lock.
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
    bool busy;               /* being checked, hashed or fetched */
    bool verified;           /* proved by this process: nodes hold its metadata */
    bool suspect;            /* a holder saw it change: hash it at the next use */
    unsigned long gen;       /* bumped at every change seen: older holders publish nothing */
    struct pnode *nodes;     /* the version's directory first, then its files and directories */
    size_t nnodes;
    int64_t hashed_ms;       /* when it was last proved by hash */
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

static const char *const reason_names[PCACHE_NREASONS] = {"restart", "changed", "rehash"};

const char *pcache_reason_name(enum pcache_reason r)
{
    return reason_names[r];
}

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

/* The entry no longer holds a proved copy. */
static void forget(struct pentry *e)
{
    pcheck_free(e->nodes, e->nnodes);
    e->nodes = NULL;
    e->nnodes = 0;
    e->verified = false;
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
        forget(lru);
        free(lru);
    }
}

/* ------------------------------------------------------- hashes, fetches */

/* Proves the copy at path against m: its metadata first, then every hash
 * (a change after the metadata was taken shows at the next check). On
 * success the entry holds the copy's nodes. 0: proved; 1: differs (why). */
static int prove(struct pentry *e, const char *path, const struct store_manifest *m, char *why, size_t whylen)
{
    struct pnode *nodes;
    size_t n;
    if (pcheck_nodes(m, &nodes, &n)) {
        snprintf(why, whylen, "out of memory");
        return 1;
    }
    if (pcheck_stat(path, nodes, n, true, why, whylen) || store_verify_dir(path, m, why, whylen)) {
        pcheck_free(nodes, n);
        return 1;
    }
    forget(e);
    e->nodes = nodes;
    e->nnodes = n;
    e->verified = true;
    e->suspect = false;
    e->hashed_ms = jd_now_ms();
    return 0;
}

/* Fetches m's version into path (absent) and proves it; tried twice. */
static int fetch(struct queue_conn *k, const struct jd_config *cfg, struct pentry *e, const char *path,
                 const struct store_manifest *m, char *err, size_t errlen)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        char dir[4200], tmp[4400];
        cache_dir(cfg, dir, sizeof dir);
        pthread_mutex_lock(&judged.pcache->mu);
        unsigned long seq = ++judged.pcache->seq;
        pthread_mutex_unlock(&judged.pcache->mu);
        snprintf(tmp, sizeof tmp, "%s/.tmp-%.16s-%d-%lu", dir, e->version, (int)getpid(), seq);
        double t0 = common_monotonic();
        uint64_t bytes = 0;
        if (store_fetch_manifest(k, m, tmp, path, &bytes, err, errlen) == 0) {
            if (prove(e, path, m, err, errlen) == 0) {
                logmsg("problem cache: fetched version %.12s (%llu bytes) in %.2fs", e->version,
                       (unsigned long long)bytes, common_monotonic() - t0);
                return 0;
            }
            store_remove_tree(path);   /* changed under our feet: fetch it once more */
        }
        logmsg("problem cache: version %.12s: fetch failed%s: %s", e->version, attempt ? " again" : ", retrying",
               err);
    }
    return -1;
}

/* Makes path a proved copy of the entry's version (the entry is busy:
 * called outside the lock). reason says why it is checked; why, what the
 * metadata check saw; *bytes gets the version's size (evict reads the
 * entry's under the lock). */
static int materialize(struct queue_conn *k, const struct jd_config *cfg, struct pentry *e, const char *path,
                       enum pcache_reason reason, const char *why, uint64_t *bytes, char *err, size_t errlen)
{
    struct store_manifest m;
    if (store_get_manifest(k, e->version, &m, err, errlen)) {
        if (reason == PCACHE_REHASH) {
            logwarn("problem cache: version %.12s: cannot hash it on schedule (%s): used as its metadata is "
                    "unchanged; hashed at a later use", e->version, err);
            return 0;
        }
        return -1;
    }
    struct stat st;
    bool present = lstat(path, &st) == 0, had = e->verified;
    char diff[1024] = "";
    int rc = 0;
    if (present && S_ISDIR(st.st_mode) && prove(e, path, &m, diff, sizeof diff) == 0) {
        if (reason == PCACHE_CHANGED) {
            logmsg("problem cache: version %.12s: %s; hashed: content intact, nothing fetched", e->version, why);
            e->gen++;   /* it changed and changed back, maybe, while someone judged from it */
        } else if (reason == PCACHE_REHASH) {
            logmsg("problem cache: version %.12s: hashed on schedule: intact", e->version);
        }
        goto done;
    }
    e->gen++;   /* whoever judged from this copy publishes nothing */
    if (present || had) {
        logmsg("problem cache: version %.12s: the cached copy is corrupt (%s%s%s): fetching it again "
               "(refetch reason=%s)", e->version, why[0] ? why : "", why[0] ? "; " : "",
               present ? (S_ISDIR(st.st_mode) ? diff : "not a directory") : "gone",
               pcache_reason_name(reason));
        metrics_pcache_refetch(&judged.metrics, reason);
        store_remove_tree(path);
    }
    forget(e);
    rc = fetch(k, cfg, e, path, &m, err, errlen);
done:
    *bytes = m.total;
    store_manifest_free(&m);
    return rc;
}

/* ----------------------------------------------------------- acquire, release */

/* Caller holds the lock: waits until nobody else works on e, then takes it
 * (busy) and lets the lock go. */
static void take(struct pentry *e)
{
    while (e->busy)
        pthread_cond_wait(&judged.pcache->cv, &judged.pcache->mu);
    e->busy = true;
    pthread_mutex_unlock(&judged.pcache->mu);
}

static void give_back(struct pentry *e)
{
    pthread_mutex_lock(&judged.pcache->mu);
    e->busy = false;
    pthread_cond_broadcast(&judged.pcache->cv);
}

/* Which check this use of e needs (-1: none); why says what the metadata
 * showed. */
static int check_needed(const struct jd_config *cfg, struct pentry *e, const char *path, char *why,
                        size_t whylen)
{
    if (!e->verified)
        return PCACHE_RESTART;
    if (e->suspect) {
        snprintf(why, whylen, "it changed while a job read it");
        return PCACHE_CHANGED;
    }
    if (pcheck_stat(path, e->nodes, e->nnodes, false, why, whylen)) {
        logmsg("problem cache: version %.12s: %s: hashing it", e->version, why);
        return PCACHE_CHANGED;
    }
    if (jd_now_ms() - e->hashed_ms >= cfg->problem_cache_rehash_ms) {
        snprintf(why, whylen, "due for its scheduled hash (problem_cache_rehash)");
        return PCACHE_REHASH;
    }
    return -1;
}

int pcache_acquire(struct queue_conn *k, const struct jd_config *cfg, const char *version,
                   struct pcache_hold *h, char *err, size_t errlen)
{
    char dir[4200];
    cache_dir(cfg, dir, sizeof dir);
    snprintf(h->path, sizeof h->path, "%s/%s", dir, version);
    snprintf(h->version, sizeof h->version, "%.64s", version);
    pthread_mutex_lock(&judged.pcache->mu);
    if (!judged.pcache->scanned)
        scan(cfg);
    struct pentry *e = find(version);
    if (!e)
        e = add(version);
    e->users++;
    take(e);
    char why[1024] = "";
    int need = check_needed(cfg, e, h->path, why, sizeof why), rc = 0;
    uint64_t bytes = 0;
    if (need >= 0)
        rc = materialize(k, cfg, e, h->path, (enum pcache_reason)need, why, &bytes, err, errlen);
    if (rc == 0) {
        /* the LRU order survives a restart; the stamp is ours, not a change */
        utimensat(AT_FDCWD, h->path, NULL, 0);
        pcheck_stat(h->path, e->nodes, 1, true, why, sizeof why);
    }
    h->gen = e->gen;
    give_back(e);
    if (bytes)
        e->bytes = bytes;
    e->last_used = jd_now_ms();
    if (rc)
        e->users--;
    else
        evict(cfg);
    pthread_mutex_unlock(&judged.pcache->mu);
    return rc ? -1 : 0;
}

int pcache_release(const struct jd_config *cfg, const struct pcache_hold *h, char *err, size_t errlen)
{
    pthread_mutex_lock(&judged.pcache->mu);
    struct pentry *e = find(h->version);
    int rc = 0;
    if (e) {
        take(e);
        char why[1024] = "";
        if (e->gen != h->gen || !e->verified) {
            snprintf(err, errlen, "the cached copy of version %.12s changed while it was judged from", h->version);
            rc = -1;
        } else if (pcheck_stat(h->path, e->nodes, e->nnodes, false, why, sizeof why)) {
            snprintf(err, errlen, "the cached copy of version %.12s changed while it was judged from (%s)",
                     h->version, why);
            e->suspect = true;
            e->gen++;
            rc = -1;
        }
        give_back(e);
        e->users--;
        e->last_used = jd_now_ms();
    }
    evict(cfg);
    pthread_mutex_unlock(&judged.pcache->mu);
    return rc;
}
