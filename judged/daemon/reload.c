/* reload.c - SIGHUP: a new configuration snapshot, and pools re-laid out.
 *
 * The new snapshot is installed at once: jobs that already run keep the one
 * they started with. A pool keeps its runner (and its sandbox slots) unless
 * its slot range [first_slot + 2 x the slots of the pools before it,
 * + 2 x slots)
 * changes or the language files changed. Pools that must reopen, and pools
 * removed from the file, first stop claiming and drain (their jobs finish);
 * only when all of them are idle are their runners closed and reopened on
 * the new ranges, and new pools started - so two runners never share a
 * sandbox slot. A stop signal during the wait ends the reload. The keys
 * core's table marks "restart" (redis, state_dir, host, metrics_listen) keep
 * their running values; an invalid file is reported and the old
 * configuration kept. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "daemon.h"

/* Changes whenever a language file is added, removed or rewritten. */
static unsigned long long languages_fingerprint(const char *dir)
{
    unsigned long long h = 1469598103934665603ULL;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char path[4600];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] == '.' || stat(path, &st))
            continue;
        unsigned long long x = (unsigned long long)st.st_size * 31 + (unsigned long long)st.st_mtim.tv_sec * 1000003 +
                               (unsigned long long)st.st_mtim.tv_nsec + st.st_ino;
        for (const char *c = e->d_name; *c; c++)
            x = x * 131 + (unsigned char)*c;
        h += x * 0x9E3779B97F4A7C15ULL; /* order-independent */
    }
    closedir(d);
    return h;
}

static unsigned long long lang_fp;

static struct pool *find_live(const char *name)
{
    for (struct pool *p = judged.pools; p; p = p->next)
        if (!strcmp(p->name, name) && !atomic_load(&p->stop))
            return p;
    return NULL;
}

static bool stop_signal(const sigset_t *stopset)
{
    struct timespec zero = {0, 0};
    siginfo_t si;
    int sig = sigtimedwait(stopset, &si, &zero);
    return sig > 0;
}

/* Waits until none of the marked pools holds a job. */
static bool drain(struct pool **marked, int n, const sigset_t *stopset)
{
    for (;;) {
        int busy = 0;
        for (int i = 0; i < n; i++) {
            pthread_mutex_lock(&marked[i]->mu);
            busy += marked[i]->nheld;
            pthread_mutex_unlock(&marked[i]->mu);
        }
        if (!busy)
            return false;
        if (stop_signal(stopset))
            return true;
        jd_sleep_ms(50);
    }
}

static void restart_needed(const char *key, const char *running, const char *wanted, void *arg)
{
    (void)arg;
    logwarn("SIGHUP: %s %s needs a restart; it stays %s", key, wanted, running);
}

void reload_init(const char *languages_dir)
{
    lang_fp = languages_fingerprint(languages_dir);
}

/* Index of pool name in cfg, or -1. */
static int pool_index(const struct jd_config *cfg, const char *name)
{
    for (int i = 0; i < cfg->npools; i++)
        if (!strcmp(cfg->pools[i].name, name))
            return i;
    return -1;
}

/* Phase 1: the new file, refused like a start would be (languages,
 * problems, another judged's slots): then the old configuration stays, and
 * so do its slots. Returns the installed snapshot, with a reference the
 * caller puts, or NULL. */
static struct snapshot *install_new_config(const char *path)
{
    struct jd_config nc;
    char err[1024];
    if (jd_config_load(&nc, path, err, sizeof err) || config_usable(&nc, err, sizeof err) ||
        slotlock_acquire(&nc, err, sizeof err)) {
        logwarn("SIGHUP: configuration not reloaded: %s", err);
        jd_config_free(&nc);
        return NULL;
    }
    struct snapshot *old = snapshot_get();
    /* settings that need a restart stay as they are (core's key table) */
    jd_config_keep_restart(&nc, &old->cfg, restart_needed, NULL);
    snapshot_put(old);
    struct snapshot *s = snapshot_new(&nc);
    atomic_fetch_add(&s->refs, 1); /* the caller's, until the end of the reload */
    snapshot_install(s);
    pools_publish(&s->cfg);
    return s;
}

/* Phase 2: the live pools that must drain (removed, moved, resized, new
 * languages); removed ones stop claiming, the others hold. Returns how many
 * went into marked (sized for every pool). */
static int mark_pools(const struct jd_config *cfg, bool langs_changed, struct pool ***marked)
{
    pthread_mutex_lock(&judged.pools_mu);
    int n = 0, cap = 1;
    for (struct pool *p = judged.pools; p; p = p->next)
        cap++;
    *marked = calloc((size_t)cap, sizeof **marked);
    for (struct pool *p = judged.pools; p; p = p->next) {
        if (atomic_load(&p->stop))
            continue;
        int i = pool_index(cfg, p->name);
        if (i < 0) {
            logmsg("SIGHUP: pool %s removed: it stops claiming here", p->name);
            atomic_store(&p->stop, true);
            (*marked)[n++] = p;
        } else if (langs_changed || p->first_slot != pool_first_slot(cfg, i) ||
                   p->slots != cfg->pools[i].slots) {
            pthread_mutex_lock(&p->mu);
            p->hold = true;
            pthread_mutex_unlock(&p->mu);
            (*marked)[n++] = p;
        }
    }
    pthread_mutex_unlock(&judged.pools_mu);
    return n;
}

/* Phase 4: every marked pool's runner closed first (two runners never share
 * a slot), then the pools that stay reopened on their new ranges. */
static void reopen_pools(struct pool **marked, int n, const struct jd_config *cfg)
{
    char err[1024];
    for (int m = 0; m < n; m++) {
        if (marked[m]->runner)
            runner_close(marked[m]->runner);
        marked[m]->runner = NULL;
    }
    for (int m = 0; m < n; m++) {
        struct pool *p = marked[m];
        int i = pool_index(cfg, p->name);
        if (atomic_load(&p->stop) || i < 0)
            continue;
        pthread_mutex_lock(&p->mu);
        p->first_slot = pool_first_slot(cfg, i);
        p->slots = cfg->pools[i].slots;
        pthread_mutex_unlock(&p->mu);
        if (pool_open_runner(p, cfg, err, sizeof err))
            logmsg("pool %s: cannot open the runner: %s", p->name, err);
        pool_start_workers(p);
        pthread_mutex_lock(&p->mu);
        p->hold = false;
        pthread_cond_broadcast(&p->cv_slot);
        pthread_mutex_unlock(&p->mu);
        logmsg("pool %s: reopened", p->name);
    }
}

static bool has_new_pools(const struct jd_config *cfg)
{
    bool found = false;
    pthread_mutex_lock(&judged.pools_mu);
    for (int i = 0; i < cfg->npools; i++)
        if (!find_live(cfg->pools[i].name))
            found = true;
    pthread_mutex_unlock(&judged.pools_mu);
    return found;
}

/* Phase 5: pools new in the file start. */
static void add_new_pools(const struct jd_config *cfg)
{
    for (int i = 0; i < cfg->npools; i++) {
        pthread_mutex_lock(&judged.pools_mu);
        struct pool *p = find_live(cfg->pools[i].name);
        pthread_mutex_unlock(&judged.pools_mu);
        if (p)
            continue;
        p = pool_new(cfg->pools[i].name, pool_first_slot(cfg, i), cfg->pools[i].slots);
        int rc = pool_start(p, cfg);
        pthread_mutex_lock(&judged.pools_mu);
        p->next = judged.pools;
        judged.pools = p;
        pthread_mutex_unlock(&judged.pools_mu);
        if (rc == 0)
            logmsg("SIGHUP: pool %s added", p->name);
    }
}

bool reload(const char *path, const sigset_t *stopset)
{
    struct snapshot *s = install_new_config(path);
    if (!s)
        return false;
    const struct jd_config *cfg = &s->cfg;
    unsigned long long fp = languages_fingerprint(cfg->languages);
    bool langs_changed = fp != lang_fp;
    lang_fp = fp;

    struct pool **marked;
    int nmarked = mark_pools(cfg, langs_changed, &marked);
    bool stopped = false;
    if (nmarked > 0 || has_new_pools(cfg)) {
        logmsg("SIGHUP: %d pool(s) drain before they reopen", nmarked);
        stopped = drain(marked, nmarked, stopset); /* phase 3 */
    }
    if (!stopped) {
        reopen_pools(marked, nmarked, cfg);
        add_new_pools(cfg);
        slotlock_keep(cfg); /* every pool is on its new slots: the old ones go */
    }
    free(marked);
    snapshot_put(s);
    logmsg("SIGHUP: configuration reloaded");
    return stopped;
}
