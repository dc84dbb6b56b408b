/* snapshot.c - the immutable, reference-counted configuration of the daemon.
 *
 * SIGHUP used to overwrite a global configuration while worker and
 * dispatcher threads read it. Now a reload builds a new snapshot and swaps
 * the pointer under a mutex; readers take a reference (snapshot_get) and
 * keep their snapshot for as long as they need it (a job: from start to
 * publish), so no reader ever sees a configuration change under its feet
 * and the last one to put an old snapshot back frees it. */
#include <stdlib.h>

#include "daemon.h"

static pthread_mutex_t snap_mu = PTHREAD_MUTEX_INITIALIZER;
static struct snapshot *current;   /* the daemon's configuration */

struct snapshot *snapshot_new(struct jd_config *cfg)
{
    struct snapshot *s = calloc(1, sizeof *s);
    atomic_init(&s->refs, 1);
    s->cfg = *cfg;
    *cfg = (struct jd_config){0};
    return s;
}

struct snapshot *snapshot_get(void)
{
    pthread_mutex_lock(&snap_mu);
    struct snapshot *s = current;
    atomic_fetch_add(&s->refs, 1);
    pthread_mutex_unlock(&snap_mu);
    return s;
}

void snapshot_put(struct snapshot *s)
{
    if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
        jd_config_free(&s->cfg);
        free(s);
    }
}

void snapshot_install(struct snapshot *s)
{
    pthread_mutex_lock(&snap_mu);
    struct snapshot *old = current;
    current = s;
    pthread_mutex_unlock(&snap_mu);
    snapshot_put(old);
}

bool snapshot_log_json(void)
{
    pthread_mutex_lock(&snap_mu);
    bool json = current && current->cfg.log_json;
    pthread_mutex_unlock(&snap_mu);
    return json;
}
