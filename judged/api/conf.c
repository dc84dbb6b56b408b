/* conf.c - judge-api's configuration as a reference-counted snapshot.
 *
 * Request threads read the configuration (pools, languages, limits) while
 * SIGHUP loads a new one, so it is never replaced in place: a reload builds
 * a new snapshot and swaps the pointer under conf_lock; each request holds
 * the one it began with until it completes, and whoever puts the last
 * reference of a replaced snapshot frees it. The same design as judged's
 * daemon/snapshot.c, kept in struct api rather than in a global.
 *
 * The events hub and the webhook threads follow every pool's results
 * stream for as long as judge-api runs; they ask api_followed_pools, which names
 * every pool a configuration has named since start (a reload adds, never
 * removes: a removed pool's verdicts still in flight are still announced
 * and its due webhooks still delivered). */
#include <stdlib.h>
#include <string.h>

#include "api.h"

struct api_conf *api_conf_new(struct jd_config *cfg)
{
    struct api_conf *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    atomic_init(&c->refs, 1);
    c->cfg = *cfg;
    *cfg = (struct jd_config){0};
    return c;
}

struct api_conf *api_conf_get(struct api *a)
{
    pthread_mutex_lock(&a->conf_lock);
    struct api_conf *c = a->conf;
    atomic_fetch_add(&c->refs, 1);
    pthread_mutex_unlock(&a->conf_lock);
    return c;
}

void api_conf_put(struct api_conf *c)
{
    if (c && atomic_fetch_sub(&c->refs, 1) == 1) {
        jd_config_free(&c->cfg);
        free(c);
    }
}

/* Adds the pools of cfg not seen before; conf_lock held. */
static void remember_pools(struct api *a, const struct jd_config *cfg)
{
    for (int i = 0; i < cfg->npools; i++) {
        int j = 0;
        while (j < a->npools_seen && strcmp(a->pools_seen[j], cfg->pools[i].name))
            j++;
        if (j < a->npools_seen)
            continue;
        char **v = realloc(a->pools_seen, ((size_t)a->npools_seen + 1) * sizeof *v);
        if (!v || !(v[a->npools_seen] = strdup(cfg->pools[i].name)))
            abort();
        a->pools_seen = v;
        a->npools_seen++;
    }
}

void api_conf_install(struct api *a, struct api_conf *c)
{
    pthread_mutex_lock(&a->conf_lock);
    struct api_conf *old = a->conf;
    a->conf = c;
    if (c) {
        remember_pools(a, &c->cfg);
    } else {   /* the end: nothing reads the pools any more */
        for (int i = 0; i < a->npools_seen; i++)
            free(a->pools_seen[i]);
        free(a->pools_seen);
        a->pools_seen = NULL;
        a->npools_seen = 0;
    }
    pthread_mutex_unlock(&a->conf_lock);
    api_conf_put(old);
}

int api_followed_pools(struct api *a, const char ***names)
{
    pthread_mutex_lock(&a->conf_lock);
    int n = a->npools_seen;
    const char **v = calloc((size_t)n + 1, sizeof *v);
    if (!v)
        abort();
    for (int i = 0; i < n; i++)
        v[i] = a->pools_seen[i];
    pthread_mutex_unlock(&a->conf_lock);
    *names = v;
    return n;
}
