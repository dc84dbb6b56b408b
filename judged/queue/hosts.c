/*
 * hosts.c - the host registry, read and written here alone: the registered
 * judged hosts and whether each is alive (queue_hosts), read the one way
 * that judgectl (hosts, pools, health) and judge-api (/v1/hosts,
 * /v1/pools, /metrics) share, and what a host writes of itself
 * (daemon/heartbeat.c calls queue_host_register, queue_reaper_turn,
 * queue_hosts_dead, queue_host_forget and queue_host_expire).
 *
 * Every heartbeat a host writes its registration, a JSON object, twice:
 * into the hash judge:hosts (kept until the host stops cleanly, or a live
 * host's reaper forgets it) and as its liveness key judge:host:NAME, which
 * expires after 3 heartbeats. A host is alive while that key exists
 * (host_alive): the rule the reaper applies before it forgets a host, so
 * `hosts` never calls a host dead that the reaper still counts alive, or
 * the reverse. Registrations that are not JSON objects are skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "queue.h"
#include "queue_internal.h"

static void host_clear(struct queue_host *h)
{
    free(h->name);
    free(h->registration);
    free(h->pools);
    memset(h, 0, sizeof *h);
}

static long long int_field(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* The typed fields of one registration; -1 when it is not a JSON object. */
static int parse_host(const char *name, const char *text, struct queue_host *h)
{
    json_t *o = json_loads(text, 0, NULL);
    if (!json_is_object(o)) {
        json_decref(o);
        return -1;
    }
    h->name = strdup(name);
    h->registration = strdup(text);
    h->heartbeat_ms = int_field(o, "time");
    h->slots = int_field(o, "slots");
    h->busy = int_field(o, "busy");
    json_t *pools = json_object_get(o, "pools");
    h->pools = calloc(json_array_size(pools) + 1, sizeof *h->pools);
    size_t i;
    json_t *po;
    json_array_foreach(pools, i, po)
    {
        const char *pn = json_string_value(json_object_get(po, "name"));
        if (!pn || !h->pools)
            continue;
        struct queue_host_pool *p = &h->pools[h->npools++];
        snprintf(p->name, sizeof p->name, "%s", pn);
        p->slots = int_field(po, "slots");
        p->busy = int_field(po, "busy");
    }
    json_decref(o);
    return h->name && h->registration && h->pools ? 0 : -1;
}

/* 1 when NAME's liveness key exists, 0 when it does not, -1 when Redis
 * did not say (I/O trouble or an error reply). */
static int host_alive(struct queue_conn *k, const char *name)
{
    redisReply *ex = queue_cmd(k, "EXISTS " KEY_HOST "%s", name);
    int alive = ex && ex->type == REDIS_REPLY_INTEGER ? ex->integer == 1 : -1;
    if (ex)
        freeReplyObject(ex);
    return alive;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct queue_host *)a)->name, ((const struct queue_host *)b)->name);
}

enum queue_rc queue_hosts(struct queue_conn *k, struct queue_hosts *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    redisReply *r = queue_cmd(k, "HGETALL " KEY_HOSTS);
    if (!r) {
        snprintf(err, errlen, "HGETALL " KEY_HOSTS ": redis: %s", k->err);
        return QUEUE_IO;
    }
    if (r->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "HGETALL " KEY_HOSTS ": %s", r->str);
        freeReplyObject(r);
        return QUEUE_ERROR;
    }
    size_t n = r->type == REDIS_REPLY_ARRAY ? r->elements / 2 : 0;
    out->hosts = calloc(n + 1, sizeof *out->hosts);
    if (!out->hosts) {
        freeReplyObject(r);
        snprintf(err, errlen, "HGETALL " KEY_HOSTS ": out of memory");
        return QUEUE_ERROR;
    }
    for (size_t i = 0; i < n; i++) {
        const char *name = queue_rstr(r->element[2 * i]), *text = queue_rstr(r->element[2 * i + 1]);
        struct queue_host *h = &out->hosts[out->n];
        if (!name || !text || parse_host(name, text, h)) {
            host_clear(h);
            continue;
        }
        /* a failed EXISTS (Redis went away meanwhile) reads as not alive */
        h->alive = host_alive(k, name) == 1;
        out->n++;
    }
    freeReplyObject(r);
    /* by name: an admin comparing two listings finds each host in its place
     * (HGETALL's order moves as the hash grows) */
    if (out->n > 1)
        qsort(out->hosts, out->n, sizeof *out->hosts, by_name);
    return QUEUE_OK;
}

void queue_hosts_free(struct queue_hosts *hs)
{
    for (size_t i = 0; i < hs->n; i++)
        host_clear(&hs->hosts[i]);
    free(hs->hosts);
    memset(hs, 0, sizeof *hs);
}

json_t *queue_hosts_json(const struct queue_hosts *hs)
{
    json_t *out = json_object();
    for (size_t i = 0; out && i < hs->n; i++) {
        json_t *h = json_loads(hs->hosts[i].registration, 0, NULL);
        json_object_set_new(h, "alive", json_boolean(hs->hosts[i].alive));
        json_object_set_new(out, hs->hosts[i].name, h);
    }
    return out;
}

int queue_hosts_capacity(json_t *hosts, const char *pool, long long *slots, long long *busy)
{
    int n = 0;
    *slots = *busy = 0;
    const char *hn;
    json_t *h;
    json_object_foreach(hosts, hn, h)
    {
        if (!json_is_true(json_object_get(h, "alive")))
            continue;
        size_t i;
        json_t *po;
        json_array_foreach(json_object_get(h, "pools"), i, po)
        {
            const char *name = json_string_value(json_object_get(po, "name"));
            if (name && !strcmp(name, pool)) {
                *slots += json_integer_value(json_object_get(po, "slots"));
                *busy += json_integer_value(json_object_get(po, "busy"));
                n++;
            }
        }
    }
    return n;
}

/* ------------------------------------------------- the hosts' own writes */

enum queue_rc queue_reply_done(struct queue_conn *k, redisReply *r, const char *what, char *err, size_t errlen)
{
    if (!r) {
        snprintf(err, errlen, "%s: redis: %s", what, k->err);
        return QUEUE_IO;
    }
    enum queue_rc rc = QUEUE_OK;
    if (r->type == REDIS_REPLY_ERROR) {
        snprintf(err, errlen, "%s: %s", what, r->str);
        rc = QUEUE_ERROR;
    }
    freeReplyObject(r);
    return rc;
}

/* Plain commands, not a function: the judged user's ACL names these keys
 * (README.md, "Roles"), and a host must register even while its pools'
 * functions are refused. The liveness key first: a host listed in
 * judge:hosts without it reads as dead. */
enum queue_rc queue_host_register(struct queue_conn *k, const char *host, const char *registration, long ttl_ms,
                                  char *err, size_t errlen)
{
    enum queue_rc rc = queue_reply_done(k, queue_cmd(k, "SET " KEY_HOST "%s %s PX %ld", host, registration, ttl_ms),
                            "SET " KEY_HOST, err, errlen);
    enum queue_rc rc2 = queue_reply_done(k, queue_cmd(k, "HSET " KEY_HOSTS " %s %s", host, registration), "HSET " KEY_HOSTS,
                             err, errlen);
    return rc ? rc : rc2;
}

enum queue_rc queue_host_expire(struct queue_conn *k, const char *host, char *err, size_t errlen)
{
    return queue_reply_done(k, queue_cmd(k, "DEL " KEY_HOST "%s", host), "DEL " KEY_HOST, err, errlen);
}

enum queue_rc queue_host_forget(struct queue_conn *k, const char *host, char *err, size_t errlen)
{
    return queue_reply_done(k, queue_cmd(k, "HDEL " KEY_HOSTS " %s", host), "HDEL " KEY_HOSTS, err, errlen);
}

enum queue_rc queue_reaper_turn(struct queue_conn *k, const char *host, long lease_ms, bool *mine, char *err,
                                size_t errlen)
{
    redisReply *r = queue_cmd(k, "SET " KEY_REAPER " %s NX PX %ld", host, lease_ms);
    *mine = r && r->type == REDIS_REPLY_STATUS;   /* nil: another host's turn */
    return queue_reply_done(k, r, "SET " KEY_REAPER, err, errlen);
}

enum queue_rc queue_hosts_dead(struct queue_conn *k, const char *self, char ***names, size_t *n, char *err,
                               size_t errlen)
{
    *names = NULL;
    *n = 0;
    redisReply *hs = queue_cmd(k, "HKEYS " KEY_HOSTS);
    if (!hs || hs->type != REDIS_REPLY_ARRAY) {
        enum queue_rc rc = queue_reply_done(k, hs, "HKEYS " KEY_HOSTS, err, errlen);
        if (rc == QUEUE_OK)
            snprintf(err, errlen, "HKEYS " KEY_HOSTS ": unexpected reply");
        return rc ? rc : QUEUE_ERROR;
    }
    *names = calloc(hs->elements + 1, sizeof **names);
    for (size_t i = 0; *names && i < hs->elements; i++) {
        const char *name = queue_rstr(hs->element[i]);
        /* only a host Redis says is gone: one it did not answer for is
         * asked again at the next turn */
        if (name && strcmp(name, self) && host_alive(k, name) == 0 && ((*names)[*n] = strdup(name)))
            (*n)++;
    }
    freeReplyObject(hs);
    if (!*names) {
        snprintf(err, errlen, "HKEYS " KEY_HOSTS ": out of memory");
        return QUEUE_ERROR;
    }
    return QUEUE_OK;
}

void queue_names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* ---- what hosts publish of their languages ---- */

enum queue_rc queue_publish_languages(struct queue_conn *k, const char *pool, const char *const *ids,
                                      const char *const *json, int n, char *err, size_t errlen)
{
    char key[200], fresh[220];
    queue_key(key, sizeof key, pool, SUFFIX_LANGUAGES);
    if (n <= 0)
        return queue_reply_done(k, queue_cmd(k, "DEL %s", key), "DEL", err, errlen);
    snprintf(fresh, sizeof fresh, "%s:new", key);   /* the same {pool}: one slot */
    enum queue_rc rc = queue_reply_done(k, queue_cmd(k, "DEL %s", fresh), "DEL", err, errlen);
    const char **argv = calloc((size_t)(2 * n + 2), sizeof *argv);
    argv[0] = "HSET";
    argv[1] = fresh;
    for (int i = 0; i < n; i++)
        argv[2 + 2 * i] = ids[i], argv[3 + 2 * i] = json[i];
    if (rc == QUEUE_OK)
        rc = queue_reply_done(k, queue_cmdv(k, 2 + 2 * n, argv, NULL), "HSET", err, errlen);
    free(argv);
    if (rc == QUEUE_OK)   /* readers see the old set or the new one, never half */
        rc = queue_reply_done(k, queue_cmd(k, "RENAME %s %s", fresh, key), "RENAME", err, errlen);
    return rc;
}

enum queue_rc queue_publish_language_versions(struct queue_conn *k, const char *pool, const char *host,
                                              const char *const *ids, const char *const *versions, int n,
                                              char *err, size_t errlen)
{
    if (n <= 0)
        return QUEUE_OK;
    char key[200];
    queue_key(key, sizeof key, pool, SUFFIX_LANGUAGE_VERSIONS);
    const char **argv = calloc((size_t)(2 * n + 2), sizeof *argv);
    char **fields = calloc((size_t)n, sizeof *fields);
    argv[0] = "HSET";
    argv[1] = key;
    for (int i = 0; i < n; i++) {
        if (asprintf(&fields[i], "%s %s", ids[i], host) < 0)
            fields[i] = NULL;
        argv[2 + 2 * i] = fields[i] ? fields[i] : "";
        argv[3 + 2 * i] = versions[i];
    }
    enum queue_rc rc = queue_reply_done(k, queue_cmdv(k, 2 + 2 * n, argv, NULL), "HSET", err, errlen);
    for (int i = 0; i < n; i++)
        free(fields[i]);
    free(fields);
    free(argv);
    return rc;
}

/* Adds "versions": {HOST: VERSION} to each language of langs that a host
 * published a version of; a pool's versions that cannot be read add none. */
static void add_versions(struct queue_conn *k, const char *pool, json_t *langs)
{
    char key[200];
    queue_key(key, sizeof key, pool, SUFFIX_LANGUAGE_VERSIONS);
    redisReply *r = queue_cmd(k, "HGETALL %s", key);
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i + 1 < r->elements; i += 2) {
        const char *f = queue_rstr(r->element[i]), *v = queue_rstr(r->element[i + 1]);
        const char *sp = f ? strchr(f, ' ') : NULL;
        if (!sp || !v)
            continue;
        char id[130];
        snprintf(id, sizeof id, "%.*s", (int)(sp - f), f);
        json_t *o = json_object_get(langs, id);
        if (!json_is_object(o))
            continue;
        if (!json_object_get(o, "versions"))
            json_object_set_new(o, "versions", json_object());
        json_object_set_new(json_object_get(o, "versions"), sp + 1, json_string(v));
    }
    if (r)
        freeReplyObject(r);
}

enum queue_rc queue_languages(struct queue_conn *k, const char *pool, json_t **out, char *err, size_t errlen)
{
    char key[200];
    queue_key(key, sizeof key, pool, SUFFIX_LANGUAGES);
    *out = json_object();
    redisReply *r = queue_cmd(k, "HGETALL %s", key);
    if (!r || r->type != REDIS_REPLY_ARRAY) {
        snprintf(err, errlen, "HGETALL: unexpected reply");
        enum queue_rc rc = queue_reply_done(k, r, "HGETALL", err, errlen);
        return rc == QUEUE_OK ? QUEUE_ERROR : rc;
    }
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
        const char *id = queue_rstr(r->element[i]), *text = queue_rstr(r->element[i + 1]);
        json_t *o = text ? json_loads(text, 0, NULL) : NULL;
        if (id && json_is_object(o))
            json_object_set_new(*out, id, o);
        else
            json_decref(o);
    }
    freeReplyObject(r);
    add_versions(k, pool, *out);
    return QUEUE_OK;
}
