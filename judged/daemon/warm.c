/* warm.c - a host's languages made ready before contestants need them.
 *
 * A language with prepared files (a precompiled <bits/stdc++.h>, a JVM
 * archive: runner/prepared.c) builds them on its first compile on a host:
 * 5-15 s of CPU that the first submission of that language waited for, at
 * a contest's start or on a host that just joined during its burst
 * (bench_contest). With `warm_up: true` (the default, when `prepare` is on)
 * one thread per host runs the runner's self-test of each such language
 * of each pool at start - compile and run a hello-world, as `judgectl
 * languages --check` does - which builds them, in a slot the pool lends
 * (pool_lend_slot, as to the validator). The heartbeat shows how many languages are left
 * (`warming` in the host's record); a failing self-test is logged, and the
 * language then builds at its first compile, as without warm-up.
 *
 * Then the problems: a custom checker or interactor (testlib: 3-10 s of
 * g++) is built on a host's first judging of the problem, and a store
 * version fetched - on every host, for every problem, at a contest's
 * start. The warm-up fetches the WARM_PROBLEMS problems last pushed to the
 * store (into the problem cache) and checks them and the problems
 * directory's newest WARM_PROBLEMS with the runner, which builds their
 * helpers into the host's helpers directory (state_dir/checkers, shared by
 * its pools). One step of `warming`; a problem that does not check is
 * logged and judged as it would have been. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "daemon.h"
#include "store.h"

#define WARM_PROBLEMS 64   /* of the store's, and of the directory's */

/* a problem to warm: its name and when it last changed (ms) */
struct warm_item {
    char *name;
    long long time;
};

static int newest_first(const void *a, const void *b)
{
    long long x = ((const struct warm_item *)a)->time, y = ((const struct warm_item *)b)->time;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void warm_language(struct pool *p, const char *lang)
{
    /* lent before asking about the language: the runner is p's only while
     * a slot is held (a reload may replace it otherwise) */
    struct runner *r = pool_lend_slot(p);
    if (!r)
        return;
    struct runner_language_info li;
    if (runner_language_info(r, lang, &li) && li.prepare) {
        struct runner_selftest st;
        char err[512];
        int64_t started = jd_now_ms();
        if (runner_language_selftest(r, lang, &st, err, sizeof err) < 0)
            logmsg("pool %s: warm-up of %s failed: %s (its first compile prepares it)", p->name, lang, err);
        else
            logmsg("pool %s: %s warmed up in %.1f s: %s", p->name, lang, (jd_now_ms() - started) / 1e3,
                   st.status);
    }
    pool_return_slot(p);
}

/* Checks the package in dir with a lent slot's runner: its helpers get
 * built (and cached for every pool of the host). */
static void warm_problem(struct pool *p, const char *name, const char *dir)
{
    struct runner *r = pool_lend_slot(p);
    if (!r)
        return;
    char *errors = NULL;
    if (runner_problem_check(r, dir, &errors, NULL) > 0)
        logmsg("warm-up: problem %s does not check (judging it will say why): %.200s", name,
               errors ? errors : "");
    pool_return_slot(p);
    free(errors);
}

/* The directory's problems, newest (by the directory's mtime) first. */
static struct warm_item *directory_items(const char *dir, size_t *n)
{
    DIR *d = dir ? opendir(dir) : NULL;
    struct warm_item *items = NULL;
    size_t cap = 0;
    struct dirent *e;
    *n = 0;
    while (d && (e = readdir(d))) {
        char path[4400];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!queue_valid_name(e->d_name) || stat(path, &st) || !S_ISDIR(st.st_mode))
            continue;
        if (*n == cap) {
            struct warm_item *grown = realloc(items, (cap = cap ? 2 * cap : 16) * sizeof *items);
            if (!grown)
                break;
            items = grown;
        }
        items[(*n)++] = (struct warm_item){strdup(e->d_name), (long long)st.st_mtime * 1000};
    }
    if (d)
        closedir(d);
    qsort(items, *n, sizeof *items, newest_first);
    return items;
}

/* The store's problems, last pushed first (name: NAME\0VERSION). */
static struct warm_item *store_items(struct queue_conn *k, size_t *n)
{
    char **names = NULL, err[512];
    size_t count = 0;
    *n = 0;
    if (store_list(k, &names, &count, err, sizeof err)) {
        logmsg("warm-up: cannot list the store's problems: %s", err);
        return NULL;
    }
    struct warm_item *items = calloc(count ? count : 1, sizeof *items);
    for (size_t i = 0; i < count; i++) {
        struct store_problem_info info;
        bool found = false;
        if (items && !store_info(k, names[i], &info, &found, err, sizeof err) && found && info.current[0]) {
            size_t nl = strlen(names[i]);
            char *both = malloc(nl + 66);
            if (both) {
                memcpy(both, names[i], nl + 1);
                memcpy(both + nl + 1, info.current, 65);
                items[(*n)++] = (struct warm_item){both, info.updated};
            }
        }
        if (found)
            store_problem_info_free(&info);
        free(names[i]);
    }
    free(names);
    qsort(items, *n, sizeof *items, newest_first);
    return items;
}

static void free_items(struct warm_item *items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(items[i].name);
    free(items);
}

static void warm_problems(struct pool *p, const struct jd_config *cfg)
{
    size_t n;
    struct warm_item *items = directory_items(cfg->problems, &n);
    for (size_t i = 0; i < n && i < WARM_PROBLEMS && !atomic_load(&judged.stopping); i++) {
        char dir[4400];
        snprintf(dir, sizeof dir, "%s/%s", cfg->problems, items[i].name);
        warm_problem(p, items[i].name, dir);
    }
    free_items(items, n);
    struct queue_conn k;
    queue_conn_init(&k, judged.redis_url, 5000);
    items = store_items(&k, &n);
    for (size_t i = 0; i < n && i < WARM_PROBLEMS && !atomic_load(&judged.stopping); i++) {
        const char *name = items[i].name, *version = name + strlen(name) + 1;
        struct pcache_hold hold;
        char err[512];
        if (pcache_acquire(&k, cfg, version, &hold, err, sizeof err)) {
            logmsg("warm-up: problem %s version %.12s not fetched: %s", name, version, err);
            continue;
        }
        warm_problem(p, name, hold.path);
        pcache_release(cfg, &hold, err, sizeof err);
    }
    free_items(items, n);
    queue_conn_close(&k);
}

int warm_count(const struct jd_config *cfg)
{
    int n = 1;   /* the problems */
    for (int i = 0; i < cfg->npools; i++)
        n += cfg->pools[i].nlanguages;
    return n;
}

void *warm_up(void *arg)
{
    (void)arg;
    struct snapshot *s = snapshot_get();   /* the configuration judged started with */
    const struct jd_config *cfg = &s->cfg;
    for (int i = 0; i < cfg->npools; i++) {
        pthread_mutex_lock(&judged.pools_mu);
        struct pool *p = judged.pools;
        while (p && strcmp(p->name, cfg->pools[i].name))
            p = p->next;
        pthread_mutex_unlock(&judged.pools_mu);
        for (int l = 0; l < cfg->pools[i].nlanguages; l++) {
            if (p && p->slots > 0)
                warm_language(p, cfg->pools[i].languages[l]);
            atomic_fetch_sub(&judged.warming, 1);
        }
    }
    /* any pool's slot will do: the helpers directory is the host's */
    pthread_mutex_lock(&judged.pools_mu);
    struct pool *any = judged.pools;
    while (any && any->slots <= 0)
        any = any->next;
    pthread_mutex_unlock(&judged.pools_mu);
    if (any)
        warm_problems(any, cfg);
    atomic_store(&judged.warming, 0);
    snapshot_put(s);
    return NULL;
}
