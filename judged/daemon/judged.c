/*
 * judged - the judging daemon: claims submissions from per-pool Redis
 * streams and judges them with runner/. Protocol and key layout:
 * judged/DESIGN.md; the Redis side is one Functions library
 * (queue/judged.lua) driven through the queue library (queue/queue.h).
 *
 * Theory of operation.
 *
 * Threads. The main thread starts everything, then only waits for signals
 * (sigwait): SIGHUP reloads (reload.c), SIGTERM/SIGINT stop (pool.c). Per
 * pool there is one dispatcher thread (dispatch.c: the only claimer) and one
 * worker thread per slot (worker.c: runner_judge). One heartbeat thread for
 * the host (heartbeat.c: lease renewal, registration, reaping dead hosts).
 *
 * Redis connections. Every thread has its own (hiredis contexts are not
 * thread-safe): the dispatcher's claims, reclaims and blocks on XREAD; a
 * worker's publishes its verdicts (pipelined with the claim of its next job,
 * dispatch.c's policy) and settles retries, dead letters and give-backs; the
 * heartbeat's renews; the main thread opens short-lived ones to load the
 * function library and publish pool settings. After any I/O error a
 * connection is dropped and reconnected with backoff.
 *
 * Ownership. The configuration is an immutable snapshot (snapshot.c):
 * readers take a reference, a job keeps the snapshot it started with, and
 * SIGHUP swaps in a new one. A claimed job belongs to its pool's held set
 * (renewed by the heartbeat) from claim to publish: a claim creates it (the
 * dispatcher's, or a finishing worker's refill), a worker runs it, publishes
 * it in one round trip with the claim of its next job, and frees it. pool->mu guards a pool's queues and counters; judged.pools_mu the
 * list of pools (changed only by a reload). A pool's runner is replaced
 * only while the pool holds no job (reload.c), on slots derived from
 * first_slot and the pool's position, so a pool keeps its sandbox slots
 * across reloads. The host name and Redis URL never change after start.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"
#include "daemon.h"
#include "core.h"

struct daemon judged = {.pools_mu = PTHREAD_MUTEX_INITIALIZER, .slot_fd = -1,
                    .metrics = {.mu = PTHREAD_MUTEX_INITIALIZER}};

/* Every language of every pool has a language file, by the runner's own
 * rule (its catalog: LANGUAGES/ID.yaml whose id: is ID), which judgectl
 * submit applies too; otherwise every job of that language would fail. */
static int languages_usable(const struct jd_config *cfg, char *err, size_t errlen)
{
    struct runner_config rc = {.languages_dir = cfg->languages, .catalog_only = true,
                               .limits = {.yaml_size = (uint64_t)cfg->package_limits.yaml_size}};
    struct runner *r;
    char why[4096];
    if (runner_open(&r, &rc, why, sizeof why)) {
        snprintf(err, errlen, "%s: key 'languages': %s", cfg->path, why);
        return -1;
    }
    int bad = 0;
    for (int i = 0; i < cfg->npools && !bad; i++)
        for (int j = 0; j < cfg->pools[i].nlanguages && !bad; j++) {
            const char *id = cfg->pools[i].languages[j];
            if (runner_language_exists(r, id))
                continue;
            snprintf(err, errlen, "%s:%d: key 'pools.%s.languages': language '%s' has no language "
                     "file in %s (a file %s.yaml with 'id: %s')", cfg->path,
                     cfg->pools[i].languages_line, cfg->pools[i].name, id, cfg->languages, id, id);
            bad = 1;
        }
    runner_close(r);
    return bad ? -1 : 0;
}

/* Problems come from the store (fetched into STATE_DIR/problems) or, for a
 * submission admitted without a stored version, from the `problems`
 * directory. A `problems:` that names no directory is a mistake; without
 * the key (and without the default directory) the store alone serves, so
 * only a cache that cannot be made leaves nothing to judge with. */
static int problems_usable(const struct jd_config *cfg, char *err, size_t errlen)
{
    struct stat st;
    int e = stat(cfg->problems, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (!e)
        return 0;
    if (cfg->problems_line) {
        snprintf(err, errlen, "%s:%d: key 'problems': %s: %s (the directory of problems judged "
                 "without the store; leave the key out to judge only stored problems)", cfg->path,
                 cfg->problems_line, cfg->problems, strerror(e));
        return -1;
    }
    char cache[4200];
    snprintf(cache, sizeof cache, "%s/problems", cfg->state_dir);
    if (common_mkdir_p(cache, 0755) && errno != EEXIST) {
        snprintf(err, errlen, "%s: key 'problems': missing, the default %s does not exist, and the "
                 "problem store's cache %s cannot be made (%s; key 'state_dir'): no problem could "
                 "be judged", cfg->path, cfg->problems, cache, strerror(errno));
        return -1;
    }
    return 0;
}

/* One box per core (issue 37): boxes sharing a core turn a busy host's load
 * into wall-clock TLEs of CPU-bound programs. More slots than cpus is
 * refused unless the configuration says oversubscribe (then warned), or
 * unless no pool says how many slots it wants: pools that leave slots out
 * share the cpus, at least one each, so a host with more such pools than
 * cpus (the shipped judged.yaml on one core) starts, warned. */
static int cores_usable(const struct jd_config *cfg, char *err, size_t errlen)
{
    int cpus[JD_MAX_CPUS], boxes = 0;
    int n = jd_config_cpus(cfg, cpus, JD_MAX_CPUS);
    cpu_set_t mine;
    if (cfg->cpus && sched_getaffinity(0, sizeof mine, &mine) == 0)
        for (int i = 0; i < n; i++)
            if (!CPU_ISSET(cpus[i], &mine))
                return snprintf(err, errlen, "%s:%d: key 'cpus': CPU %d is not one judged may run on (its "
                                "affinity: taskset -p %d)", cfg->path, cfg->cpus_line, cpus[i], (int)getpid()), -1;
    bool asked = false;
    for (int i = 0; i < cfg->npools; i++) {
        boxes += cfg->pools[i].slots;
        asked |= cfg->pools[i].slots_line != 0;
    }
    if (boxes <= n)
        return 0;
    if (!cfg->oversubscribe && asked)
        return snprintf(err, errlen, "%s: the pools ask for %d slots at once, but this host has %d CPU(s) for "
                        "boxes (cpus): one box per core, so lower the pools' slots, list more cpus, or set "
                        "oversubscribe: true (boxes then share cores, and CPU-bound programs may TLE by the "
                        "wall clock on a busy host)", cfg->path, boxes, n), -1;
    logwarn("%d slots on %d CPU(s) (%s): boxes share cores; on a busy host CPU-bound "
            "programs may TLE by the wall clock", boxes, n,
            cfg->oversubscribe ? "oversubscribe: true" : "a slot for each pool that does not say how many");
    return 0;
}

int config_usable(const struct jd_config *cfg, char *err, size_t errlen)
{
    return languages_usable(cfg, err, errlen) || problems_usable(cfg, err, errlen) ||
           cores_usable(cfg, err, errlen) ? -1 : 0;
}

/* The slots of a judged that was just stopped or killed are free once it is
 * gone; a restart (systemd's, a test's) may be that quick: wait a little
 * before refusing. */
static int lock_slots(const struct jd_config *cfg, char *err, size_t errlen)
{
    for (int tries = 0;; tries++) {
        if (slotlock_acquire(cfg, err, errlen) == 0) {
            slotlock_keep(cfg);
            return 0;
        }
        if (tries >= 30 || judged.slot_fd < 0)
            return -1;
        jd_sleep_ms(100);
    }
}

static void usage(FILE *out)
{
    fprintf(out, "usage: judged [--config FILE] [--host NAME]\n\n"
                 "Runs the judging daemon: claims submissions from the Redis streams of the\n"
                 "pools in FILE and judges them. SIGTERM stops it gracefully; SIGHUP reloads\n"
                 "pools and languages.\n\n"
                 "  --config FILE   the YAML configuration (see judged/DESIGN.md); without it\n"
                 "                  $JUDGED_CONFIG, else /etc/judged/judged.yaml\n"
                 "  --host NAME     consumer name of this host (default: config 'host' or the\n"
                 "                  hostname); keep it stable across restarts\n");
    char dir[4200];
    fprintf(out, "\nWithout 'languages:' in FILE the language files are read from\n%s.\n",
            jd_default_languages(dir, sizeof dir));
}

/* Loads (or checks the version of) the function library, patiently: the
 * Redis of a fresh host may still be starting. */
static int library_ready(char *err, size_t errlen)
{
    struct queue_conn k;
    queue_conn_init(&k, judged.redis_url, 3000);
    int rc = -1;
    for (int tries = 0; tries < 50; tries++) {
        rc = queue_library_ensure(&k, err, errlen);
        if (rc == 0 || k.c || k.refused) /* answered, or refused us (bad URL, password) */
            break;
        queue_conn_backoff(&k);
    }
    queue_conn_close(&k);
    return rc;
}

static int start_pools(const struct jd_config *cfg)
{
    for (int i = cfg->npools - 1; i >= 0; i--) {
        struct pool *p = pool_new(cfg->pools[i].name, pool_first_slot(cfg, i), cfg->pools[i].slots);
        p->next = judged.pools;
        judged.pools = p;
    }
    for (struct pool *p = judged.pools; p; p = p->next)
        if (pool_start(p, cfg)) {
            fprintf(stderr, "judged: pool %s could not start\n", p->name);
            return -1;
        }
    return 0;
}

/* The command line: 0 to go on, else 1 + the exit status (--help, --version,
 * a usage error). */
static int parse_args(int argc, char **argv, const char **config, const char **host)
{
    static const struct option opts[] = {
        {"config", required_argument, NULL, 'c'},
        {"host", required_argument, NULL, 'H'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "c:H:h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': *config = optarg; break;
        case 'H': *host = optarg; break;
        case 'h': usage(stdout); return 1;
        case 'V': printf("judged %s\n", JUDGED_VERSION); return 1;
        default: usage(stderr); return 1 + 2;
        }
    }
    if (optind != argc) {
        usage(stderr);
        return 1 + 2;
    }
    if (!*config)
        *config = jd_default_config();
    return 0;
}

/* Everything that can refuse a start, before any thread runs: the file,
 * the slots, the metrics address (bound first: a port in use is refused
 * with nothing to undo), the embedded Redis and the Functions library.
 * Returns the installed snapshot (with a reference the caller puts), or
 * NULL after saying why on stderr. */
static struct snapshot *start_config(const char *config, const char *host_opt, int *redis_pid)
{
    char err[1024];
    struct jd_config cfg;
    if (jd_config_load(&cfg, config, err, sizeof err)) {
        fprintf(stderr, "judged: %s\n", err);
        return NULL;
    }
    if (host_opt) {
        free(cfg.host);
        cfg.host = strdup(host_opt);
    }
    judged.host = strdup(cfg.host);
    if (config_usable(&cfg, err, sizeof err) || lock_slots(&cfg, err, sizeof err) ||
        metrics_start(&judged.metrics, &cfg, err, sizeof err)) {
        fprintf(stderr, "judged: %s\n", err);
        return NULL;
    }
    judged.pcache = pcache_new();
    if (!cfg.redis && (*redis_pid = jd_embedded_start(&cfg, err, sizeof err)) < 0) {
        fprintf(stderr, "judged: embedded redis: %s\n", err);
        return NULL;
    }
    jd_redis_url(&cfg, judged.redis_url, sizeof judged.redis_url);
    struct snapshot *s = snapshot_new(&cfg);
    atomic_fetch_add(&s->refs, 1);
    snapshot_install(s);
    if (library_ready(err, sizeof err)) {
        fprintf(stderr, "judged: %s\n", err);
        snapshot_put(s);
        return NULL;
    }
    metrics_redis(&judged.metrics, true);   /* it answered; the heartbeat keeps this current */
    return s;
}

/* After the stop signal: jobs finish or are given back, threads end. */
static void stop_all(pthread_t hb, pthread_t val, pthread_t warm, bool warming, int redis_pid)
{
    pools_shutdown();
    pthread_join(val, NULL);
    if (warming)
        pthread_join(warm, NULL);
    atomic_store(&judged.hb_stop, true);
    pthread_join(hb, NULL);
    metrics_stop(&judged.metrics);
    for (struct pool *p = judged.pools; p; p = p->next)
        if (p->runner)
            runner_close(p->runner);
    jd_embedded_stop(redis_pid);
    slotlock_release();
    logmsg("stopped (%lu redis round trips)", (unsigned long)atomic_load(&queue_round_trips));
}

int main(int argc, char **argv)
{
    /* First of all: a SIGHUP or SIGTERM sent while we start (a reload right
     * after a restart) must be queued for sigwait, not end us. */
    sigset_t set, stopset;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigemptyset(&stopset);
    sigaddset(&stopset, SIGTERM);
    sigaddset(&stopset, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    const char *config = NULL, *host_opt = NULL;
    int rc = parse_args(argc, argv, &config, &host_opt);
    if (rc)
        return rc - 1;
    int redis_pid = 0;
    struct snapshot *s = start_config(config, host_opt, &redis_pid);
    if (!s) {
        jd_embedded_stop(redis_pid);
        return 1;
    }
    pools_publish(&s->cfg);
    reload_init(s->cfg.languages);
    if (start_pools(&s->cfg)) {
        jd_embedded_stop(redis_pid);
        return 1;
    }
    pthread_t hb, val;
    bool warm = s->cfg.prepare && s->cfg.warm_up;
    /* before the first heartbeat: a record saying warming 0 before the
     * warm-up began would tell a waiting platform (or test) it is done */
    atomic_store(&judged.warming, warm ? warm_count(&s->cfg) : 0);
    pthread_create(&hb, NULL, heartbeat, NULL);
    pthread_create(&val, NULL, validator, NULL);   /* judge-api's staged uploads */
    pthread_t warm_thread;
    memset(&warm_thread, 0, sizeof warm_thread);   /* joined only when it started */
    bool warming = warm && !pthread_create(&warm_thread, NULL, warm_up, NULL);
    if (warm && !warming)
        atomic_store(&judged.warming, 0);
    char shown[sizeof judged.redis_url];
    queue_url_redact(judged.redis_url, shown, sizeof shown);   /* never the password */
    logmsg("started (pid %d, redis %s, %d pool(s), lease %ldms, heartbeat %ldms)", getpid(),
           shown, s->cfg.npools, s->cfg.lease_ms, s->cfg.heartbeat_ms);
    snapshot_put(s);

    for (;;) {
        int sig;
        if (sigwait(&set, &sig))
            continue;
        if (sig == SIGHUP && !reload(config, &stopset))
            continue;
        break;
    }
    stop_all(hb, val, warm_thread, warming, redis_pid);
    return 0;
}
