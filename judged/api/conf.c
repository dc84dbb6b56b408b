/* conf.c - judge-api's configuration as a reference-counted snapshot.
 *
 * Request threads read the configuration (pools, languages, limits) while
 * SIGHUP loads a new one, so it is never replaced in place: a reload builds
 * a new snapshot and swaps the pointer under conf_lock; each request holds
 * the one it began with until it completes, and whoever puts the last
 * reference of a replaced snapshot frees it. The same design as judged's
 * daemon/snapshot.c, kept in struct api rather than in a global. */
#include <stdlib.h>

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

void api_conf_install(struct api *a, struct api_conf *c)
{
    pthread_mutex_lock(&a->conf_lock);
    struct api_conf *old = a->conf;
    a->conf = c;
    pthread_mutex_unlock(&a->conf_lock);
    api_conf_put(old);
}
