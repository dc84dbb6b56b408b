/* warm.c - a host's languages made ready before contestants need them.
 *
 * A language with prepared files (a precompiled <bits/stdc++.h>, a JVM
 * archive: runner/prepared.c) builds them on its first compile on a host:
 * 5-15 s of CPU that the first submission of that language waited for, at
 * a contest's start or on a host that just joined during its burst
 * (bench_contest). With `warm_up: true` (the default, when `prepare` is on)
 * one thread per host runs the runner's self-test of each such language
 * of each pool at start - compile and run a hello-world, as `judgectl
 * languages --check` does - which builds them. It borrows one of the
 * pool's slots for each (counted held, as the validator does: the
 * dispatcher claims one job less meanwhile, and a reload does not replace
 * the runner under it). The heartbeat shows how many languages are left
 * (`warming` in the host's record); a failing self-test is logged, and the
 * language then builds at its first compile, as without warm-up. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "daemon.h"

/* one of pool's slots, counted held; NULL once stopping or the pool is gone */
static struct runner *borrow(struct pool *p)
{
    while (!atomic_load(&judged.stopping) && !atomic_load(&p->stop)) {
        pthread_mutex_lock(&p->mu);
        struct runner *r = NULL;
        if (p->runner && !p->hold && p->nheld < p->slots) {
            p->nheld++;
            r = p->runner;
        }
        pthread_mutex_unlock(&p->mu);
        if (r)
            return r;
        jd_sleep_ms(100);
    }
    return NULL;
}

static void give_back(struct pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->nheld--;
    pthread_cond_broadcast(&p->cv_slot);
    pthread_mutex_unlock(&p->mu);
}

static void warm_language(struct pool *p, const char *lang)
{
    struct runner *r = borrow(p);
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
    give_back(p);
}

int warm_count(const struct jd_config *cfg)
{
    int n = 0;
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
    atomic_store(&judged.warming, 0);
    snapshot_put(s);
    return NULL;
}
