/*
 * core.h - what the daemon, judgectl and judge-api share (judged/core/): the
 * configuration, the default paths, the result document and small helpers.
 * The queue protocol itself is the queue library (queue.h), the problem
 * store the store library (store.h). Knows neither the sandbox nor the
 * runner. Key layout and protocol: judged/DESIGN.md.
 */
#ifndef JUDGED_CORE_H
#define JUDGED_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "queue.h"

/* ---------------------------------------------------------------- config */

struct jd_pool_cfg {
    char *name;
    char **languages;
    int nlanguages;
    int slots;               /* absent: the host's CPUs shared among such pools */
    long max_queue;          /* 0 = unlimited */
    int languages_line;      /* of `languages:` in the file, for judged's refusals */
    int slots_line;          /* of `slots:`; 0: not given */
};

/* The api: section, read only by judge-api (judged ignores it). */
struct jd_api_cfg {
    char *listen;            /* HOST:PORT (port 0: any free port) */
    char *tokens;            /* the tokens file (name, roles, SHA-256 of the token) */
    int max_connections;     /* concurrent connections; more wait to be accepted */
    int max_connections_per_address;  /* of those, from one client address (more: closed at once) */
    int max_streams_per_token;        /* event streams one token may hold open (more: 429) */
    int threads;             /* libmicrohttpd's pool threads (0: 2 x the host's CPUs) */
    double rate;             /* requests per second per token (0 = unlimited) */
    long burst;              /* token bucket size */
    long sse_heartbeat_ms;   /* comment line on an idle event stream */
    long sse_buffer;         /* verdict events kept in memory for GET /v1/events */
    char *dashboard;         /* directory of the dashboard's files */
    char *webhook_secret;    /* HMAC-SHA256 key of webhook signatures (NULL: no webhooks) */
    bool webhook_allow_private;  /* allow callbacks to loopback/private addresses */
    long webhook_retry_for_ms;   /* keep retrying a failing callback this long */
    long webhook_timeout_ms;     /* one delivery attempt */
    int webhook_workers;         /* deliveries in flight at once, per judge-api process */
    int webhook_per_destination; /* of those, to one host:port */
};

/* admission_durability: when an admission may answer "admitted" */
enum jd_durability {
    JD_DURABLE_DEFAULT = 0,  /* not given: replicated for sentinel://, else local */
    JD_DURABLE_LOCAL,        /* once the primary has it */
    JD_DURABLE_REPLICATED,   /* once a replica has it too (WAIT 1 admission_wait) */
};

struct jd_config {
    char *path;
    char *redis;             /* URL; NULL = embedded redis under state_dir */
    char *redis_password;    /* from redis_password_file or $JUDGED_REDIS_PASSWORD
                                (NULL: none, or in the URL); never printed */
    enum jd_durability admission_durability;
    long admission_wait_ms;  /* WAIT's timeout under replicated */
    char *state_dir;
    char *problems;
    int problems_line;       /* of `problems:`; 0: not given (the default) */
    char *languages;
    char *host;              /* consumer name; default: hostname */
    long lease_ms;
    long heartbeat_ms;
    int max_attempts;
    long retry_backoff_ms;   /* first retry delay, doubled per attempt */
    long grace_ms;           /* SIGTERM: how long running jobs may finish */
    long max_source;         /* bytes */
    long results_max;        /* approximate length kept in results streams */
    long retention_ms;       /* a finished submission expires after (0 = keep) */
    long idempotency_ttl_ms; /* an idempotency key expires after (0 = keep) */
    long dlq_retention_ms;   /* a dead letter is kept this long (0 = keep) */
    int first_slot;          /* sandbox slots of this host start here */
    bool log_json;           /* log_format: json (one object per line) or text */
    long problem_cache;      /* bytes of fetched problem versions kept (LRU) */
    long problem_cache_rehash_ms;   /* a cached version in use is hashed again after this */
    long compile_cache;      /* bytes of compiles kept per pool (LRU) */
    long helper_cache;       /* bytes of built helpers kept per pool (LRU) */
    bool prepare;            /* languages' prepared files (languages/README.md) */
    bool warm_up;            /* ... built at start (daemon/warm.c) */
    long max_package;        /* bytes: the largest package a push accepts */
    long store_quota;        /* bytes: all stored packages together (0 = none) */
    long max_staged;         /* bytes: one token's uploads waiting for validation (0 = none) */
    struct {                 /* package_limits: what the runner reads (0 = its default) */
        long yaml_size, package_files, package_size, tests;
        long compile_time_max_ms, compile_memory_max, compile_output_max;   /* problems' compile_limits */
        long helper_cpu_ms, helper_wall_ms;   /* a helper's build */
    } package_limits;
    char *sandbox_run_dir;
    char *cgroup_parent;
    char *cpus;              /* CPU list ("0-3,6") of the boxes; NULL: judged's affinity */
    int cpus_line;
    bool oversubscribe;      /* more slots than cpus allowed (boxes share cores) */
    char *metrics_listen;    /* HOST:PORT of judged's own GET /metrics (NULL: off) */
    int metrics_listen_line; /* of `metrics_listen:` in the file, for judged's refusals */
    struct jd_pool_cfg *pools;
    int npools;
    struct jd_api_cfg api;
};

/* The CPUs a host's boxes run on, one box each (slot i of the host on the
 * i-th, by the order of the pools and their slots): cfg->cpus, else every CPU
 * this process may run on. Their count (at most max into out); -1 when
 * cfg->cpus is not a CPU list. */
#define JD_MAX_CPUS 1024   /* COMMON_MAX_CPUS */
int jd_config_cpus(const struct jd_config *cfg, int *out, int max);

/* Parses FILE. On error returns -1 with err = "FILE:LINE: key 'K': why". */
int jd_config_load(struct jd_config *cfg, const char *path, char *err, size_t errlen);
void jd_config_free(struct jd_config *cfg);
/* SIGHUP: the keys that need a restart (redis, state_dir, host,
 * metrics_listen) keep their running values in next; changed (may be NULL)
 * is told of each one the file now sets otherwise (values fit for a log:
 * no password). Returns how many keys were kept. */
typedef void jd_config_changed_fn(const char *key, const char *running, const char *wanted, void *arg);
int jd_config_keep_restart(struct jd_config *next, const struct jd_config *running,
                           jd_config_changed_fn *changed, void *arg);
/* Every key of judged.yaml as a Markdown table (type, default, reload or
 * restart, what): the reference in judged/DESIGN.md, "Configuration". */
void jd_config_reference(FILE *out);
/* Parses "30s", "500ms", "2m", "1h"; a bare number is seconds. */
int jd_parse_duration(const char *s, long *ms);
/* A listening address (api.listen, metrics_listen): HOST:PORT, HOST a name,
 * an IPv4 address or [IPv6], PORT 0..65535 (0: any free port). Splits it
 * (host without brackets); -1 with why. */
int jd_listen_parse(const char *s, char *host, size_t hostlen, char *port, size_t portlen,
                    char *why, size_t whylen);
/* The address to bind for it (getaddrinfo, AI_PASSIVE); the caller
 * freeaddrinfo()s it. -1 with err. */
struct addrinfo;
int jd_listen_addr(const char *s, struct addrinfo **ai, char *err, size_t errlen);
/* Parses "65536", "64K", "1M". */
int jd_parse_size(const char *s, long *bytes);
const struct jd_pool_cfg *jd_pool_for_language(const struct jd_config *cfg, const char *lang);
const struct jd_pool_cfg *jd_pool_by_name(const struct jd_config *cfg, const char *name);
/* The Redis URL judged and judgectl use: cfg->redis (with the password of
 * redis_password_file or $JUDGED_REDIS_PASSWORD added) or the embedded
 * socket. It may hold a password: show it only through queue_url_redact. */
void jd_redis_url(const struct jd_config *cfg, char *buf, size_t len);
void jd_embedded_socket(const struct jd_config *cfg, char *buf, size_t len);

/* ---------------------------------------------------------------- result */

/* A submission's result document (result.c; openapi.yaml's Submission):
 * the hash's fields read by queue_result and the parts of its stored
 * report, always in the same shape. What `judgectl result --json` prints
 * and judge-api serves. NULL when out of memory; caller json_decrefs. */
json_t *jd_result_json(const char *id, const struct queue_result *q);

/* ----------------------------------------------------------------- paths */

/* The configuration read without --config: $JUDGED_CONFIG when it is set and
 * not empty, else /etc/judged/judged.yaml. */
const char *jd_default_config(void);

/* The languages directory used when the configuration (or judgectl's
 * --languages) does not name one: share/judged/languages beside the
 * executable's bin/ directory. Writes it into buf (len bytes); returns buf. */
const char *jd_default_languages(char *buf, size_t len);

/* judge-api's dashboard files when api.dashboard is not set: share/judged/www
 * beside the executable's bin/ (in the build tree a link to judged/api/www). */
const char *jd_default_dashboard(char *buf, size_t len);

/* ------------------------------------------------------------------ misc */

int64_t jd_now_ms(void);
void jd_sleep_ms(long ms);
char *jd_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);

/* Embedded redis: start (or reuse) redis-server under state_dir.
 * Returns its pid (0 if an already running one was reused), -1 on error. */
int jd_embedded_start(const struct jd_config *cfg, char *err, size_t errlen);
void jd_embedded_stop(int pid);

#endif
