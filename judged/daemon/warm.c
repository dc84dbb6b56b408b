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
 * language then builds at its first compile, as without warm-up. */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "daemon.h"

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
