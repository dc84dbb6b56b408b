/*
 * cluster.c - the connection layer's Redis Cluster half (conn.c keeps the
 * URL grammar, AUTH and the single-endpoint schemes): under
 * redis-cluster://HOST:PORT[,HOST:PORT...] a connection learns the slot map
 * (CLUSTER SLOTS) from any node it can reach, sends each command to the
 * primary of its key's slot (CRC16 of the key, or of its {hash tag}: every
 * key of pool P carries {P}, so a pool lives on one node), and
 *   - follows MOVED (the slot moved for good: the map is read again),
 *   - follows ASK (a slot being migrated: ASKING then the command, on the
 *     node named, once),
 *   - retries TRYAGAIN, CLUSTERDOWN and a function's "non local key" (a
 *     pool's slot half-way through a migration) a few times with the
 *     backoff, then answers as a lost connection (QUEUE_IO: the caller
 *     retries, as after any failover),
 *   - reconnects per node: a node whose connection failed is forgotten
 *     and the map read again before the next command.
 * hiredis 0.14 has no cluster client; this is the smallest one judged
 * needs, one per thread like the contexts it holds.
 *
 * Functions are not migrated with slots and a promoted replica holds
 * whatever its primary had replicated: whenever the set of primaries
 * changes (the first map, a promotion, a node added) every primary's
 * Functions libraries are checked and loaded as at start.
 *
 * Commands without a key (PING, FUNCTION, SCAN, WAIT, TIME) go to the node
 * of the previous command: WAIT after an admission waits on the pool's
 * node, and the library loader's FCALL judged_version 0 is aimed at each
 * primary in turn.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common.h"
#include "queue.h"
#include "queue_internal.h"

#define CLUSTER_SLOTS 16384
#define CLUSTER_MAX_NODES 64
#define CLUSTER_HOPS 6      /* MOVED, ASK, TRYAGAIN followed at most this often per command */

struct cluster_node {
    char host[256];
    int port;
    redisContext *c;        /* NULL until needed, or after it failed */
    bool primary;           /* serves slots in the current map */
};

struct queue_cluster {
    struct cluster_node node[CLUSTER_MAX_NODES];
    int nnodes;
    short slot[CLUSTER_SLOTS];   /* the node of each slot's primary, -1 unknown */
    int cur;                     /* the node k->c is (-1: none yet) */
    bool stale;                  /* read the map again before the next command */
    bool checking;               /* loading libraries on the primaries */
    char primaries[2048];        /* "HOST:PORT " of each primary: a change re-checks libraries */
};

/* ---------------------------------------------------------------- slots */

/* CRC16-CCITT (XMODEM), the one Redis Cluster uses for key slots. */
static unsigned crc16(const char *s, size_t n)
{
    unsigned crc = 0;
    for (size_t i = 0; i < n; i++) {
        crc ^= (unsigned)(unsigned char)s[i] << 8;
        for (int b = 0; b < 8; b++)
            crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1;
        crc &= 0xffff;
    }
    return crc;
}

int queue_key_slot(const char *key, size_t len)
{
    /* a {tag} with at least one byte in it decides the slot */
    const char *open = memchr(key, '{', len);
    if (open) {
        size_t rest = len - (size_t)(open + 1 - key);
        const char *close = memchr(open + 1, '}', rest);
        if (close && close > open + 1)
            return (int)(crc16(open + 1, (size_t)(close - open - 1)) % CLUSTER_SLOTS);
    }
    return (int)(crc16(key, len) % CLUSTER_SLOTS);
}

/* The argument that holds the command's first key, -1 when it has none
 * (or its keys are not where the general rule puts them). */
static int key_arg(int argc, const char **argv)
{
    const char *cmd = argv[0];
    if (!strcasecmp(cmd, "FCALL") || !strcasecmp(cmd, "FCALL_RO") || !strcasecmp(cmd, "EVAL") ||
        !strcasecmp(cmd, "EVALSHA"))
        return argc > 3 && atoi(argv[2]) > 0 ? 3 : -1;
    if (!strcasecmp(cmd, "XREAD") || !strcasecmp(cmd, "XREADGROUP")) {
        for (int i = 1; i + 1 < argc; i++)
            if (!strcasecmp(argv[i], "STREAMS"))
                return i + 1;
        return -1;
    }
    if (!strcasecmp(cmd, "XGROUP") || !strcasecmp(cmd, "XINFO") || !strcasecmp(cmd, "OBJECT") ||
        !strcasecmp(cmd, "MEMORY"))
        return argc > 2 ? 2 : -1;
    static const char *const keyless[] = {"PING", "FUNCTION", "SCAN", "WAIT", "TIME", "ROLE", "CLUSTER",
                                          "INFO", "AUTH", "SELECT", "ACL", "CONFIG", "ASKING", "DBSIZE",
                                          "FLUSHALL", "CLIENT", "HELLO", "READONLY", "LASTSAVE"};
    for (size_t i = 0; i < sizeof keyless / sizeof keyless[0]; i++)
        if (!strcasecmp(cmd, keyless[i]))
            return -1;
    return argc > 1 ? 1 : -1;
}

/* ---------------------------------------------------------------- nodes */

static int node_find(struct queue_cluster *cl, const char *host, int port, bool add)
{
    for (int i = 0; i < cl->nnodes; i++)
        if (cl->node[i].port == port && !strcmp(cl->node[i].host, host))
            return i;
    if (!add || cl->nnodes == CLUSTER_MAX_NODES)
        return -1;
    struct cluster_node *n = &cl->node[cl->nnodes];
    memset(n, 0, sizeof *n);
    snprintf(n->host, sizeof n->host, "%s", host);
    n->port = port;
    return cl->nnodes++;
}

/* "HOST:PORT" (HOST possibly an IPv6 address) into a node; -1 if malformed. */
static int node_of_addr(struct queue_cluster *cl, const char *addr)
{
    const char *colon = strrchr(addr, ':');
    if (!colon || colon == addr)
        return -1;
    char host[256];
    snprintf(host, sizeof host, "%.*s", (int)(colon - addr), addr);
    return node_find(cl, host, atoi(colon + 1), true);
}

/* Node i's connection, made (authenticated) when missing; NULL with k->err. */
static redisContext *node_conn(struct queue_conn *k, int i)
{
    struct cluster_node *n = &k->cluster->node[i];
    if (n->c && n->c->err) {
        redisFree(n->c);
        n->c = NULL;
    }
    if (!n->c)
        n->c = queue_node_connect(k, n->host, n->port);
    return n->c;
}

/* Makes node i the current one: k->c is its connection. -1 with k->err,
 * and the map is read again before the next command (a node that cannot
 * be reached may have been replaced: a promoted replica serves its slots). */
static int node_use(struct queue_conn *k, int i)
{
    k->cluster->cur = i;
    k->c = node_conn(k, i);
    if (!k->c)
        k->cluster->stale = true;
    return k->c ? 0 : -1;
}

void queue_cluster_lost(struct queue_conn *k)
{
    struct queue_cluster *cl = k->cluster;
    if (cl->cur >= 0)
        cl->node[cl->cur].c = NULL;   /* conn.c freed it as k->c */
    cl->stale = true;
}

/* ------------------------------------------------------------------ map */

/* One CLUSTER SLOTS reply into the slot table; -1 if it is not one. */
static int map_parse(struct queue_cluster *cl, const redisReply *r, const char *asked_host)
{
    if (!r || r->type != REDIS_REPLY_ARRAY || !r->elements)
        return -1;   /* no slots assigned (yet): not a map */
    for (int i = 0; i < CLUSTER_SLOTS; i++)
        cl->slot[i] = -1;
    for (int i = 0; i < cl->nnodes; i++)
        cl->node[i].primary = false;
    for (size_t e = 0; e < r->elements; e++) {
        const redisReply *range = r->element[e];
        if (range->type != REDIS_REPLY_ARRAY || range->elements < 3 ||
            range->element[0]->type != REDIS_REPLY_INTEGER || range->element[1]->type != REDIS_REPLY_INTEGER ||
            range->element[2]->type != REDIS_REPLY_ARRAY || range->element[2]->elements < 2)
            return -1;
        const redisReply *who = range->element[2];
        const char *host = queue_rstr(who->element[0]);
        if (!host || !*host || !strcmp(host, "?"))
            host = asked_host;   /* a node that does not know its own address */
        int port = who->element[1]->type == REDIS_REPLY_INTEGER ? (int)who->element[1]->integer : 0;
        int n = node_find(cl, host, port, true);
        long long lo = range->element[0]->integer, hi = range->element[1]->integer;
        if (n < 0 || lo < 0 || hi >= CLUSTER_SLOTS || lo > hi)
            return -1;
        cl->node[n].primary = true;
        for (long long s = lo; s <= hi; s++)
            cl->slot[s] = (short)n;
    }
    return 0;
}

/* Asks node i for the map; 0 when it gave one. */
static int map_from(struct queue_conn *k, int i)
{
    redisContext *c = node_conn(k, i);
    if (!c)
        return -1;
    atomic_fetch_add(&queue_round_trips, 1);
    redisReply *r = redisCommand(c, "CLUSTER SLOTS");
    int rc = map_parse(k->cluster, r, k->cluster->node[i].host);
    if (!r) {
        redisFree(c);
        k->cluster->node[i].c = NULL;
    } else if (rc) {
        snprintf(k->err, sizeof k->err, "%.80s:%d: CLUSTER SLOTS: %.140s", k->cluster->node[i].host,
                 k->cluster->node[i].port,
                 r->type == REDIS_REPLY_ERROR ? r->str : "no slot map (is the cluster created?)");
    }
    if (r)
        freeReplyObject(r);
    return rc;
}

/* The map from the first node (known ones, then the URL's seeds) that
 * gives one; -1 with k->err. */
static int map_refresh(struct queue_conn *k)
{
    struct queue_cluster *cl = k->cluster;
    char seeds[QUEUE_CLUSTER_SEEDS][300];
    int nseeds = queue_url_seeds(k->url, seeds, QUEUE_CLUSTER_SEEDS);
    for (int s = 0; s < nseeds; s++)
        node_of_addr(cl, seeds[s]);
    for (int i = 0; i < cl->nnodes; i++)
        if (!map_from(k, i)) {
            cl->stale = false;
            return 0;
        }
    return -1;
}

/* The primaries as one string: a change means a promotion or a new node. */
static void primaries_sig(const struct queue_cluster *cl, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < cl->nnodes && o < len; i++)
        if (cl->node[i].primary)
            o += (size_t)snprintf(buf + o, len - o, "%s:%d ", cl->node[i].host, cl->node[i].port);
}

/* Every primary's libraries checked (loaded if missing, refused if newer):
 * judged.lua and those this connection called. -1 with k->err. */
static int check_primaries(struct queue_conn *k)
{
    struct queue_cluster *cl = k->cluster;
    char err[256] = "";
    int rc = 0;
    cl->checking = true;
    for (int i = 0; i < cl->nnodes && !rc; i++) {
        if (!cl->node[i].primary)
            continue;
        rc = node_use(k, i) || queue_library_ensure(k, err, sizeof err);
        for (int l = 0; l < k->nlibs && !rc; l++)
            rc = queue_library_load(k, k->libs[l], err, sizeof err) != QUEUE_OK;
        if (rc && err[0])
            snprintf(k->err, sizeof k->err, "primary %.80s:%d: %.140s", cl->node[i].host, cl->node[i].port, err);
    }
    cl->checking = false;
    return rc ? -1 : 0;
}

static struct queue_cluster *cluster_new(void)
{
    struct queue_cluster *cl = calloc(1, sizeof *cl);
    if (!cl)
        return NULL;
    cl->cur = -1;
    cl->stale = true;
    return cl;
}

int queue_cluster_ensure(struct queue_conn *k)
{
    if (!k->cluster && !(k->cluster = cluster_new())) {
        snprintf(k->err, sizeof k->err, "out of memory");
        return -1;
    }
    struct queue_cluster *cl = k->cluster;
    if (cl->checking)   /* the loader's own commands: the node is chosen */
        return cl->cur >= 0 && node_use(k, cl->cur) == 0 ? 0 : -1;
    if (cl->stale && map_refresh(k))
        return -1;
    char sig[sizeof cl->primaries];
    primaries_sig(cl, sig, sizeof sig);
    if (strcmp(sig, cl->primaries)) {
        if (check_primaries(k))
            return -1;
        snprintf(cl->primaries, sizeof cl->primaries, "%s", sig);
    }
    if (cl->cur < 0 || !cl->node[cl->cur].primary) {
        for (int i = 0; i < cl->nnodes && (cl->cur < 0 || !cl->node[cl->cur].primary); i++)
            cl->cur = cl->node[i].primary ? i : cl->cur;
    }
    k->backoff_ms = 50;
    return node_use(k, cl->cur);
}

int queue_conn_route(struct queue_conn *k, const char *key, size_t len)
{
    if (!queue_url_is_cluster(k->url))
        return queue_conn_ensure(k);
    if (queue_cluster_ensure(k))
        return -1;
    int n = k->cluster->slot[queue_key_slot(key, len)];
    if (n < 0) {
        snprintf(k->err, sizeof k->err, "slot %d of %.*s has no node (CLUSTERDOWN?)", queue_key_slot(key, len),
                 (int)(len > 100 ? 100 : len), key);
        k->cluster->stale = true;
        return -1;
    }
    return node_use(k, n);
}

const char *queue_conn_node(struct queue_conn *k, const char *key, size_t len, char *buf, size_t buflen)
{
    if (!queue_url_is_cluster(k->url) || queue_cluster_ensure(k))
        return NULL;
    int n = k->cluster->slot[queue_key_slot(key, len)];
    if (n < 0)
        return NULL;
    snprintf(buf, buflen, "%s:%d", k->cluster->node[n].host, k->cluster->node[n].port);
    return buf;
}

void queue_cluster_free(struct queue_conn *k)
{
    struct queue_cluster *cl = k->cluster;
    if (!cl)
        return;
    for (int i = 0; i < cl->nnodes; i++)
        if (cl->node[i].c)
            redisFree(cl->node[i].c);
    free(cl);
    k->cluster = NULL;
    k->c = NULL;
}

/* ------------------------------------------------------------- commands */

/* What a redirection says: its kind and the node it names. */
enum redirect { REDIRECT_NONE, REDIRECT_MOVED, REDIRECT_ASK, REDIRECT_RETRY };

static enum redirect redirect_of(const redisReply *r, char *addr, size_t len)
{
    if (!r || r->type != REDIS_REPLY_ERROR)
        return REDIRECT_NONE;
    bool moved = !strncmp(r->str, "MOVED ", 6), ask = !strncmp(r->str, "ASK ", 4);
    if (moved || ask) {
        const char *sp = strchr(r->str + (moved ? 6 : 4), ' ');
        snprintf(addr, len, "%s", sp ? sp + 1 : "");
        return moved ? REDIRECT_MOVED : REDIRECT_ASK;
    }
    /* a slot being migrated: a function that reads a key its node no
     * longer (or not yet) holds is refused until the move completes */
    if (!strncmp(r->str, "TRYAGAIN", 8) || !strncmp(r->str, "CLUSTERDOWN", 11) ||
        strstr(r->str, "attempted to access a non local key"))
        return REDIRECT_RETRY;
    return REDIRECT_NONE;
}

bool queue_reply_redirected(const redisReply *r)
{
    char addr[300];
    return redirect_of(r, addr, sizeof addr) != REDIRECT_NONE;
}

/* ASKING and the command on node n, in one write; the command's reply. */
static redisReply *ask_on(struct queue_conn *k, int n, int argc, const char **argv, const size_t *lens)
{
    if (node_use(k, n))
        return NULL;
    redisAppendCommand(k->c, "ASKING");
    redisAppendCommandArgv(k->c, argc, argv, lens);
    redisReply *asking = NULL, *r = NULL;
    atomic_fetch_add(&queue_round_trips, 1);
    if (redisGetReply(k->c, (void **)&asking) != REDIS_OK || redisGetReply(k->c, (void **)&r) != REDIS_OK) {
        if (asking)
            freeReplyObject(asking);
        return NULL;
    }
    freeReplyObject(asking);
    return r;
}

static redisReply *cmdv_following(struct queue_conn *k, int argc, const char **argv, const size_t *lens);

/* One command on the slot's node, following the cluster's redirections;
 * the reply (conn.c sorts out a lost connection), or NULL with k->err. */
redisReply *queue_cluster_cmdv(struct queue_conn *k, int argc, const char **argv, const size_t *lens)
{
    size_t *own = NULL;
    if (!lens) {   /* C strings: their lengths, for the key's slot */
        if (!(own = malloc(sizeof *own * (size_t)(argc > 0 ? argc : 1)))) {
            snprintf(k->err, sizeof k->err, "out of memory");
            return NULL;
        }
        for (int i = 0; i < argc; i++)
            own[i] = strlen(argv[i]);
        lens = own;
    }
    redisReply *r = cmdv_following(k, argc, argv, lens);
    free(own);
    return r;
}

/* queue_cluster_cmdv with every length known. */
static redisReply *cmdv_following(struct queue_conn *k, int argc, const char **argv, const size_t *lens)
{
    int ka = key_arg(argc, argv);
    for (int hop = 0; hop < CLUSTER_HOPS; hop++) {
        if (ka >= 0 ? queue_conn_route(k, argv[ka], lens[ka]) : queue_cluster_ensure(k))
            return NULL;
        redisReply *r = redisCommandArgv(k->c, argc, argv, lens);   /* counted by conn.c */
        char addr[300];
        enum redirect d = redirect_of(r, addr, sizeof addr);
        if (d == REDIRECT_ASK) {
            int n = node_of_addr(k->cluster, addr);
            freeReplyObject(r);
            r = n < 0 ? NULL : ask_on(k, n, argc, argv, lens);
            d = redirect_of(r, addr, sizeof addr);
            if (d == REDIRECT_NONE || !r)
                return r;
        }
        if (d == REDIRECT_NONE)
            return r;
        snprintf(k->err, sizeof k->err, "%.200s", r->str);
        freeReplyObject(r);
        k->cluster->stale = true;   /* MOVED, or a cluster in the middle of a change */
        if (d == REDIRECT_RETRY)
            queue_conn_backoff(k);
    }
    return NULL;   /* k->err: the last redirection; the caller retries later */
}

/* A hiredis format string's command as arguments: formatted by hiredis
 * (the same %s/%b/%d rules), then split back out of its RESP. */
redisReply *queue_cluster_cmdf(struct queue_conn *k, const char *fmt, va_list ap)
{
    char *cmd = NULL;
    int len = redisvFormatCommand(&cmd, fmt, ap);
    if (len < 0 || !cmd || cmd[0] != '*') {
        free(cmd);
        snprintf(k->err, sizeof k->err, "cannot format the command");
        return NULL;
    }
    const char *argv[MAXARGS];
    size_t lens[MAXARGS];
    char *p = cmd + 1;
    int argc = (int)strtol(p, &p, 10);
    if (argc < 1 || argc > MAXARGS) {
        free(cmd);
        snprintf(k->err, sizeof k->err, "a command of %d words (at most %d under redis-cluster://)", argc, MAXARGS);
        return NULL;
    }
    for (int i = 0; i < argc; i++) {
        p = strchr(p, '$') + 1;             /* \r\n$LEN\r\nDATA */
        lens[i] = strtoul(p, &p, 10);
        argv[i] = p + 2;
        p += 2 + lens[i];
        *p++ = 0;                           /* its \r: each word a C string too (key_arg reads them) */
    }
    redisReply *r = queue_cluster_cmdv(k, argc, argv, lens);
    free(cmd);
    return r;
}
