/* pool.c - a pool's lifecycle on this host: its runner (sandbox slots
 * [first_slot, first_slot + slots), derived from the configuration, never
 * from a counter, so a pool keeps its slots across reloads), its worker
 * threads and dispatcher, the held set, and the orderly shutdown (stop
 * claiming, give back what did not start, let running jobs finish within
 * the grace period, then abort and give back the rest). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <jansson.h>

#include "common.h"
#include "daemon.h"

void job_free(struct job *j)
{
    if (!j)
        return;
    queue_job_clear(&j->q);
    free(j->report);
    snapshot_put(j->snap);
    free(j);
}

int pool_first_slot(const struct jd_config *cfg, int i)
{
    int s = cfg->first_slot;
    for (int k = 0; k < i; k++)
        s += 2 * cfg->pools[k].slots; /* each job slot has a companion (runner.h) */
    return s;
}

struct pool *pool_new(const char *name, int first_slot, int slots)
{
    struct pool *p = calloc(1, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv_work, NULL);
    pthread_cond_init(&p->cv_slot, NULL);
    p->first_slot = first_slot;
    p->slots = slots;
    return p;
}

/* package_limits: what the runner reads of a package and what a package
 * may ask of a compile or a helper's build (0: the runner's default) */
static struct runner_limits runner_limits_of(const struct jd_config *cfg)
{
    return (struct runner_limits){.yaml_size = (uint64_t)cfg->package_limits.yaml_size,
                                  .package_files = (uint64_t)cfg->package_limits.package_files,
                                  .package_size = (uint64_t)cfg->package_limits.package_size,
                                  .tests = (uint64_t)cfg->package_limits.tests,
                                  .compile_time_max_ms = (uint64_t)cfg->package_limits.compile_time_max_ms,
                                  .compile_memory_max = (uint64_t)cfg->package_limits.compile_memory_max,
                                  .compile_output_max = (uint64_t)cfg->package_limits.compile_output_max,
                                  .helper_cpu_ms = (uint64_t)cfg->package_limits.helper_cpu_ms,
                                  .helper_wall_ms = (uint64_t)cfg->package_limits.helper_wall_ms};
}

/* One box per core: the host's k-th job slot (pools in order) on the k-th
 * of its cpus, round again when oversubscribed. NULL: not pinned. */
static int *slot_cpus(const struct pool *p, const struct jd_config *cfg)
{
    int host[JD_MAX_CPUS];
    int n = jd_config_cpus(cfg, host, JD_MAX_CPUS), at = (p->first_slot - cfg->first_slot) / 2;
    int *cpus = n > 0 && p->slots > 0 ? calloc((size_t)p->slots, sizeof *cpus) : NULL;
    for (int i = 0; cpus && i < p->slots; i++)
        cpus[i] = host[(at + i) % n];
    return cpus;
}

int pool_open_runner(struct pool *p, const struct jd_config *cfg, char *err, size_t errlen)
{
    char work[4200], prepared[4200], helpers[4200];
    snprintf(work, sizeof work, "%s/work/%s-%s", cfg->state_dir, judged.host, p->name);
    /* one per host: every pool's runner finds what another built */
    snprintf(prepared, sizeof prepared, "%s/prepared", cfg->state_dir);
    snprintf(helpers, sizeof helpers, "%s/checkers", cfg->state_dir);
    common_mkdir_p(work, 0755); /* the runner says so if it is not there */
    int *cpus = slot_cpus(p, cfg);
    struct runner_config rc = {
        .languages_dir = cfg->languages,
        .work_dir = work,
        .first_slot = p->first_slot,
        .slots = p->slots > 0 ? p->slots : 1,
        .sandbox_run_dir = cfg->sandbox_run_dir,
        .cgroup_parent = cfg->cgroup_parent,
        .compile_cache = (uint64_t)cfg->compile_cache,
        .helper_cache = (uint64_t)cfg->helper_cache,
        .prepared_dir = prepared,
        .helpers_dir = helpers,
        .prepare_off = !cfg->prepare,
        .limits = runner_limits_of(cfg),
        .cpus = cpus,
    };
    p->runner = NULL;
    int rc_open = p->slots > 0 ? runner_open(&p->runner, &rc, err, errlen) : 0;   /* 0 slots: claims nothing */
    if (rc_open)
        p->runner = NULL;
    else if (p->slots > 0)
        logmsg("pool %s: sandbox slots %d..%d, each job's boxes on one CPU from CPU %d", p->name,
               p->first_slot, p->first_slot + 2 * p->slots - 1, cpus ? cpus[0] : -1);
    free(cpus);
    return rc_open ? -1 : 0;
}

int pool_start_workers(struct pool *p)
{
    while (p->nworkers < p->slots && p->nworkers < MAX_WORKERS) {
        if (pthread_create(&p->workers[p->nworkers], NULL, worker, p))
            return -1;
        p->nworkers++;
    }
    return 0;
}

int pool_start(struct pool *p, const struct jd_config *cfg)
{
    char err[512];
    if (pool_open_runner(p, cfg, err, sizeof err)) {
        logmsg("pool %s: cannot open the runner: %s", p->name, err);
        return -1;
    }
    if (pool_start_workers(p))
        return -1;
    if (pthread_create(&p->disp, NULL, dispatcher, p))
        return -1;
    p->disp_started = true;
    return 0;
}

/* A pool's languages as platforms see them, from the language files this
 * host judges with (judge-api reads no language file). */
static void publish_languages(struct queue_conn *k, struct runner *catalog, const struct jd_pool_cfg *pc)
{
    const char **ids = calloc((size_t)pc->nlanguages + 1, sizeof *ids);
    char **json = calloc((size_t)pc->nlanguages + 1, sizeof *json);
    int n = 0;
    char err[512];
    for (int i = 0; i < pc->nlanguages; i++)
        if (catalog && (json[n] = runner_language_json(catalog, pc->languages[i])))
            ids[n++] = pc->languages[i];
    if (queue_publish_languages(k, pc->name, ids, (const char *const *)json, n, err, sizeof err))
        logmsg("pool %s: cannot publish its languages: %s", pc->name, err);
    /* what this host's compilers say they are, beside other hosts' */
    char (*versions)[256] = calloc((size_t)n + 1, sizeof *versions);
    const char **vids = calloc((size_t)n + 1, sizeof *vids), **vs = calloc((size_t)n + 1, sizeof *vs);
    int nv = 0;
    for (int i = 0; i < n; i++) {
        int rc = runner_language_version(catalog, ids[i], versions[nv], sizeof versions[nv], err, sizeof err);
        if (rc == 0) {
            vids[nv] = ids[i];
            vs[nv] = versions[nv];
            nv++;
        } else if (rc < 0) {
            logmsg("pool %s: language %s: %s", pc->name, ids[i], err);
        }
    }
    if (queue_publish_language_versions(k, pc->name, judged.host, vids, vs, nv, err, sizeof err))
        logmsg("pool %s: cannot publish its languages' versions: %s", pc->name, err);
    free(versions);
    free(vids);
    free(vs);
    for (int i = 0; i < n; i++)
        free(json[i]);
    free(json);
    free(ids);
}

void pools_publish(const struct jd_config *cfg)
{
    struct queue_conn k;
    char err[512];
    queue_conn_init(&k, judged.redis_url, 3000);
    struct runner_config rc = {.languages_dir = cfg->languages, .catalog_only = true,
                               .limits = runner_limits_of(cfg)};
    struct runner *catalog = NULL;
    if (runner_open(&catalog, &rc, err, sizeof err)) {
        logmsg("languages: %s", err);
        catalog = NULL;
    }
    for (int i = 0; i < cfg->npools; i++) {
        const struct jd_pool_cfg *pc = &cfg->pools[i];
        if (queue_publish_pool(&k, pc->name, (const char *const *)pc->languages, pc->nlanguages,
                               pc->max_queue, cfg->max_source, cfg->idempotency_ttl_ms, err,
                               sizeof err))
            logmsg("pool %s: cannot publish its settings: %s", pc->name, err);
        if (catalog)
            publish_languages(&k, catalog, pc);
    }
    if (catalog)
        directory_publish(&k, catalog, cfg->problems);
    if (catalog)
        runner_close(catalog);
    queue_conn_close(&k);
}

int pool_free_slots(struct pool *p)
{
    pthread_mutex_lock(&p->mu);
    int n = p->hold ? 0 : p->slots - p->nheld;
    pthread_mutex_unlock(&p->mu);
    return n;
}

struct runner *pool_try_lend_slot(struct pool *p)
{
    struct runner *r = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->runner && !p->hold && !atomic_load(&p->stop) && p->nheld < p->slots) {
        p->nheld++;
        r = p->runner;
    }
    pthread_mutex_unlock(&p->mu);
    return r;
}

struct runner *pool_lend_slot(struct pool *p)
{
    while (!atomic_load(&judged.stopping) && !atomic_load(&p->stop)) {
        struct runner *r = pool_try_lend_slot(p);
        if (r)
            return r;
        jd_sleep_ms(100);
    }
    return NULL;
}

void pool_return_slot(struct pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->nheld--;
    pthread_cond_broadcast(&p->cv_slot);
    pthread_mutex_unlock(&p->mu);
}

void pool_unhold(struct pool *p, struct job *j)
{
    for (struct job **pp = &p->held; *pp; pp = &(*pp)->hnext)
        if (*pp == j) {
            *pp = j->hnext;
            p->nheld--;
            break;
        }
    /* wake the dispatcher only for a slot it can use (a refilled worker
     * keeps its slot busy: waking it would cost a switch per job) */
    if (p->nheld < p->slots)
        pthread_cond_broadcast(&p->cv_slot);
}

int pool_enqueue(struct pool *p, struct queue_job *jobs, int n, struct job **mine)
{
    int taken = 0;
    pthread_mutex_lock(&p->mu);
    for (int i = 0; i < n; i++) {
        bool dup = false;
        for (struct job *h = p->held; h; h = h->hnext)
            if (!strcmp(h->q.entry, jobs[i].entry) && h->q.queue == jobs[i].queue &&
                !atomic_load(&h->lost))
                dup = true;
        if (dup)
            continue;
        struct job *j = calloc(1, sizeof *j);
        j->pool = p;
        j->q = jobs[i];
        j->claimed_ms = jd_now_ms();
        memset(&jobs[i], 0, sizeof jobs[i]); /* the job owns the strings now */
        j->hnext = p->held;
        p->held = j;
        p->nheld++;
        taken++;
        if (mine && !*mine) {
            *mine = j;
            p->running++;
            continue;
        }
        if (p->qtail)
            p->qtail->next = j;
        else
            p->qhead = j;
        p->qtail = j;
    }
    if (p->qhead)
        pthread_cond_broadcast(&p->cv_work);
    pthread_mutex_unlock(&p->mu);
    return taken;
}

static void give_back_queued(struct queue_conn *k, struct pool *p, long lease_ms)
{
    pthread_mutex_lock(&p->mu);
    struct job *list = p->qhead;
    p->qhead = p->qtail = NULL;
    int n = 0;
    for (struct job *j = list; j; j = j->next)
        n++;
    struct job **arr = calloc((size_t)n + 1, sizeof *arr);
    n = 0;
    for (struct job *j = list; j; j = j->next)
        arr[n++] = j;
    for (int i = 0; i < n; i++)
        pool_unhold(p, arr[i]);
    pthread_mutex_unlock(&p->mu);
    jobs_give_back(k, p, arr, n, lease_ms);
    for (int i = 0; i < n; i++)
        job_free(arr[i]);
    free(arr);
}

void pools_shutdown(void)
{
    struct snapshot *s = snapshot_get();
    atomic_store(&judged.grace_deadline, jd_now_ms() + s->cfg.grace_ms);
    atomic_store(&judged.stopping, true);
    logmsg("stopping: no new claims; running jobs have %ldms to finish", s->cfg.grace_ms);
    pthread_mutex_lock(&judged.pools_mu);
    struct pool *pools = judged.pools; /* no reload runs any more: the list is final */
    pthread_mutex_unlock(&judged.pools_mu);
    for (struct pool *p = pools; p; p = p->next) {
        atomic_store(&p->stop, true);
        pthread_mutex_lock(&p->mu);
        pthread_cond_broadcast(&p->cv_slot);
        pthread_mutex_unlock(&p->mu);
    }
    /* dispatchers stop claiming and exit */
    for (struct pool *p = pools; p; p = p->next)
        if (p->disp_started)
            pthread_join(p->disp, NULL);
    struct queue_conn k;
    queue_conn_init(&k, judged.redis_url, 3000);
    for (struct pool *p = pools; p; p = p->next)
        give_back_queued(&k, p, s->cfg.lease_ms);
    /* wait for running jobs, then abort the rest (workers give them back) */
    for (;;) {
        int running = 0;
        for (struct pool *p = pools; p; p = p->next) {
            pthread_mutex_lock(&p->mu);
            running += p->running;
            pthread_mutex_unlock(&p->mu);
        }
        if (!running)
            break;
        if (jd_now_ms() >= atomic_load(&judged.grace_deadline)) {
            logmsg("grace period over: giving back %d running job(s)", running);
            for (struct pool *p = pools; p; p = p->next) {
                pthread_mutex_lock(&p->mu);
                for (struct job *j = p->held; j; j = j->hnext)
                    atomic_store(&j->abort, true);
                pthread_mutex_unlock(&p->mu);
            }
            break;
        }
        jd_sleep_ms(50);
    }
    for (struct pool *p = pools; p; p = p->next) {
        pthread_mutex_lock(&p->mu);
        p->workers_exit = true;
        pthread_cond_broadcast(&p->cv_work);
        pthread_mutex_unlock(&p->mu);
    }
    for (struct pool *p = pools; p; p = p->next)
        for (int i = 0; i < p->nworkers; i++)
            pthread_join(p->workers[i], NULL);
    queue_conn_close(&k);
    snapshot_put(s);
}
