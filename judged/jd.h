/*
 * jd.h - shared internals of judged (the daemon) and judgectl's queue side:
 * configuration, Redis connections with reconnect, Lua scripts and the key
 * layout. Internal to judged/; knows nothing of the sandbox, only runner.h.
 * Key layout and protocol: judged/DESIGN.md.
 */
#ifndef JUDGED_JD_H
#define JUDGED_JD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hiredis/hiredis.h>

/* ---------------------------------------------------------------- config */

struct jd_pool_cfg {
    char *name;
    char **languages;
    int nlanguages;
    int slots;
    long max_queue;          /* 0 = unlimited */
};

struct jd_config {
    char *path;
    char *redis;             /* URL; NULL = embedded redis under state_dir */
    char *state_dir;
    char *problems;
    char *languages;
    char *host;              /* consumer name; default: hostname */
    long lease_ms;
    long heartbeat_ms;
    int max_attempts;
    long retry_backoff_ms;   /* first retry delay, doubled per attempt */
    long grace_ms;           /* SIGTERM: how long running jobs may finish */
    long max_source;         /* bytes */
    long results_max;        /* approximate length kept in results streams */
    int first_slot;          /* sandbox slots of this host start here */
    char *sandbox_run_dir;
    char *cgroup_parent;
    struct jd_pool_cfg *pools;
    int npools;
};

/* Parses FILE. On error returns -1 with err = "FILE:LINE: key 'K': why". */
int jd_config_load(struct jd_config *cfg, const char *path, char *err, size_t errlen);
void jd_config_free(struct jd_config *cfg);
/* Parses "30s", "500ms", "2m", "1h"; a bare number is seconds. */
int jd_parse_duration(const char *s, long *ms);
/* Parses "65536", "64K", "1M". */
int jd_parse_size(const char *s, long *bytes);
const struct jd_pool_cfg *jd_pool_for_language(const struct jd_config *cfg, const char *lang);
const struct jd_pool_cfg *jd_pool_by_name(const struct jd_config *cfg, const char *name);
/* The Redis URL judged and judgectl use: cfg->redis or the embedded socket. */
void jd_redis_url(const struct jd_config *cfg, char *buf, size_t len);
void jd_embedded_socket(const struct jd_config *cfg, char *buf, size_t len);

/* ------------------------------------------------------------ connection */

struct jd_conn {
    redisContext *c;
    char *url;
    long timeout_ms;         /* socket timeout for every command */
    long backoff_ms;         /* current reconnect delay */
    char err[256];           /* last error, for logs */
};

void jd_conn_init(struct jd_conn *k, const char *url, long timeout_ms);
void jd_conn_close(struct jd_conn *k);
/* Connects if needed. 0 ok, -1 with k->err. */
int jd_conn_ensure(struct jd_conn *k);
/* Sleeps the current backoff (exponential, with jitter, capped at 2 s). */
void jd_conn_backoff(struct jd_conn *k);
/* One command. NULL on I/O trouble (the context is dropped and will be
 * reconnected next time) and k->err is set. Error replies are returned. */
redisReply *jd_cmd(struct jd_conn *k, const char *fmt, ...);
redisReply *jd_cmdv(struct jd_conn *k, int argc, const char **argv, const size_t *lens);

struct jd_script {
    const char *name;
    const char *body;
};
extern const struct jd_script JD_SUBMIT, JD_CLAIM, JD_RECLAIM, JD_RENEW, JD_FINISH,
    JD_RETRY, JD_DEAD, JD_PROMOTE, JD_GIVEBACK, JD_REQUEUE, JD_REAP;
/* EVALSHA, loading the script on NOSCRIPT. Same return convention as jd_cmd.
 * args are keys then argv: nkeys of them are keys. */
redisReply *jd_eval(struct jd_conn *k, const struct jd_script *s, int nkeys, int nargs,
                    const char **args, const size_t *lens);
/* Counts commands sent through jd_cmd/jd_eval (for the benchmark). */
extern _Atomic unsigned long jd_round_trips;

/* ------------------------------------------------------------------ keys */

#define JD_GROUP "judged"
enum { JD_Q_CONTEST = 0, JD_Q_NORMAL = 1 };
/* judge:{POOL}:SUFFIX */
void jd_key(char *buf, size_t len, const char *pool, const char *suffix);
/* The pool of a submission id "POOL-...". Returns false if malformed. */
bool jd_id_pool(const char *id, char *pool, size_t len);
void jd_new_id(const char *pool, char *buf, size_t len);

/* ------------------------------------------------------------------ misc */

int64_t jd_now_ms(void);
void jd_sleep_ms(long ms);
char *jd_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen);
/* A reply's string value or NULL. */
const char *jd_rstr(const redisReply *r);
bool jd_reply_is_error(const redisReply *r, const char *prefix);

/* Embedded redis: start (or reuse) redis-server under state_dir.
 * Returns its pid (0 if an already running one was reused), -1 on error. */
int jd_embedded_start(const struct jd_config *cfg, char *err, size_t errlen);
void jd_embedded_stop(int pid);

#endif
