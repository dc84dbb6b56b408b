/* conn.c - hiredis connections that survive Redis going away: every command
 * has a socket timeout; after an I/O error or a timeout the context is freed
 * (its reply stream would be out of step) and reconnected on the next call,
 * with exponential backoff and jitter between attempts.
 *
 * It also owns the grammar of Redis URLs (one parser for every program):
 *   redis://[USER[:PASSWORD]@]HOST[:PORT][/DB]      (HOST may be [v6 address])
 *   unix://[USER[:PASSWORD]@]/PATH/TO/SOCKET[?db=N]
 *   sentinel://[USER[:PASSWORD]@]HOST[:PORT][,HOST[:PORT]...]/MASTER_NAME[?db=N]
 *   redis-cluster://[USER[:PASSWORD]@]HOST[:PORT][,HOST[:PORT]...][?db=0]
 * A redis-cluster:// URL names some nodes of a Redis Cluster: cluster.c
 * learns the slot map from them and sends each command to its slot's
 * primary; every node gets the same AUTH (the ACL users exist on each).
 * A sentinel:// URL names Redis Sentinels (port 26379 by default), not Redis:
 * every (re)connect asks them in turn for MASTER_NAME's primary (SENTINEL
 * get-master-addr-by-name) until two of them, and more than half, name the
 * same address (one Sentinel, lying or impersonated, never decides where
 * the password goes), connects there and checks with ROLE that it is a
 * primary; the credentials are the primary's (and the Sentinels' too when
 * every one that answered wants a password). A -READONLY or -LOADING reply (a demoted primary, a
 * replica, a Redis still loading its data) counts as a lost connection
 * under every scheme: the caller's retry (queue_conn_backoff) asks the
 * Sentinels again. No +switch-master subscription: a primary that died
 * fails the next command, and a demoted one answers READONLY (Sentinel also
 * drops its clients), so asking again on error finds the new one.
 * USER and PASSWORD are percent-encoded (RFC 3986: '%40' for '@'). With a
 * password a new connection sends AUTH [USER] PASSWORD (Redis 6 ACL users;
 * AUTH PASSWORD is the default user / requirepass), then SELECT DB. TLS
 * (rediss://) is refused with an explanation: hiredis 0.14 has none.
 * A password never appears in a message: every message shows the URL through
 * queue_url_redact, and nothing quotes the user-info part of a bad URL. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "queue.h"
#include "queue_internal.h"

_Atomic unsigned long queue_round_trips;

void queue_conn_init(struct queue_conn *k, const char *url, long timeout_ms)
{
    memset(k, 0, sizeof *k);
    k->url = strdup(url);
    k->timeout_ms = timeout_ms;
    k->backoff_ms = 50;
}

void queue_conn_close(struct queue_conn *k)
{
    if (k->cluster)
        queue_cluster_free(k);   /* k->c is one of its nodes' */
    if (k->c)
        redisFree(k->c);
    k->c = NULL;
    if (k->url)
        explicit_bzero(k->url, strlen(k->url));   /* it may hold a password */
    free(k->url);
    k->url = NULL;
}

void queue_conn_drop(struct queue_conn *k)
{
    if (k->c) {
        snprintf(k->err, sizeof k->err, "%s", k->c->errstr[0] ? k->c->errstr : "connection lost");
        redisFree(k->c);
        if (k->cluster)
            queue_cluster_lost(k);
    }
    k->c = NULL;
}

/* ------------------------------------------------------------ URLs */

#define MAX_SENTINELS 8

struct url_parts {
    bool is_unix, is_sentinel, is_cluster;
    int nsentinels;          /* sentinel://, and redis-cluster://'s seed nodes */
    struct {
        char host[256];
        int port;
    } sentinel[MAX_SENTINELS];
    char master[256];
    char host[256];          /* redis:// */
    int port;
    char path[1024];         /* unix:// */
    char user[256];          /* '' = the default user */
    char pass[1024];         /* '' = no AUTH */
    int db;
};

static const char TLS_REFUSAL[] =
    "rediss:// (TLS) is not supported: hiredis 0.14 has no TLS; keep Redis on a private network "
    "or reach it through a tunnel (stunnel, WireGuard) at redis://USER@127.0.0.1:PORT "
    "(README.md, \"Redis across hosts\")";

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Percent-decodes s[0..n) into out; -1 on a bad escape, a NUL or no room. */
static int pct_decode(const char *s, size_t n, char *out, size_t outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (c == '%') {
            if (i + 2 >= n || hexval(s[i + 1]) < 0 || hexval(s[i + 2]) < 0)
                return -1;
            c = hexval(s[i + 1]) * 16 + hexval(s[i + 2]);
            i += 2;
        }
        if (c == 0 || o + 1 >= outlen)
            return -1;
        out[o++] = (char)c;
    }
    out[o] = 0;
    return 0;
}

static int parse_db(const char *s, int *db)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < 0 || v > 1000000)
        return -1;
    *db = (int)v;
    return 0;
}

/* USER[:PASSWORD] (percent-encoded) of s[0..n) */
static int parse_userinfo(const char *s, size_t n, struct url_parts *u, char *why, size_t whylen)
{
    const char *colon = memchr(s, ':', n);
    size_t ulen = colon ? (size_t)(colon - s) : n;
    if (pct_decode(s, ulen, u->user, sizeof u->user) ||
        (colon && pct_decode(colon + 1, n - ulen - 1, u->pass, sizeof u->pass))) {
        snprintf(why, whylen, "the user or password is not valid percent-encoding (or is too long)");
        return -1;
    }
    if (colon && !u->pass[0]) {
        snprintf(why, whylen, "an empty password after ':'");
        return -1;
    }
    return 0;
}

/* HOST[:PORT] or [V6]:PORT of s[0..n) */
static int parse_hostport(const char *s, size_t n, struct url_parts *u, int dflt_port, char *why,
                          size_t whylen)
{
    const char *end = s + n, *host = s, *hend = end, *port = NULL;
    if (n && s[0] == '[') {
        const char *rb = memchr(s, ']', n);
        if (!rb || (rb + 1 < end && rb[1] != ':')) {
            snprintf(why, whylen, "expected [IPv6 address]:PORT");
            return -1;
        }
        host = s + 1;
        hend = rb;
        port = rb + 1 < end ? rb + 2 : NULL;
    } else if ((port = memchr(s, ':', n))) {
        hend = port++;
    }
    size_t hl = (size_t)(hend - host);
    if (hl == 0 || hl >= sizeof u->host) {
        snprintf(why, whylen, "no host (expected redis://HOST:PORT)");
        return -1;
    }
    memcpy(u->host, host, hl);
    u->host[hl] = 0;
    u->port = dflt_port;
    if (port) {
        char buf[16], *e;
        size_t pl = (size_t)(end - port);
        snprintf(buf, sizeof buf, "%.*s", (int)(pl < sizeof buf ? pl : 0), port);
        long v = strtol(buf, &e, 10);
        if (!pl || pl >= sizeof buf || *e || v < 1 || v > 65535) {
            snprintf(why, whylen, "the port must be a number from 1 to 65535");
            return -1;
        }
        u->port = (int)v;
    }
    return 0;
}

/* unix: /PATH from tail (the authority before it must be empty); *tail
 * moves past it. */
static int parse_unix_path(const char *hp, const char **tail, struct url_parts *u, char *why, size_t whylen)
{
    if (hp != *tail || **tail != '/') {
        snprintf(why, whylen, "expected unix://[USER[:PASSWORD]@]/ABSOLUTE/PATH");
        return -1;
    }
    size_t pl = strcspn(*tail, "?");
    if (pl >= sizeof u->path) {
        snprintf(why, whylen, "the socket path is too long");
        return -1;
    }
    memcpy(u->path, *tail, pl);
    u->path[pl] = 0;
    *tail += pl;
    return 0;
}

/* HOST[:PORT][,HOST[:PORT]...] in [hp, end) into u->sentinel (a
 * sentinel:// URL's Sentinels, a redis-cluster:// URL's seed nodes). */
static int parse_addr_list(const char *hp, const char *end, struct url_parts *u, int dflt_port, const char *what,
                           char *why, size_t whylen)
{
    for (const char *p = hp; p < end;) {
        size_t l = strcspn(p, ",/?");
        if (p + l > end)
            l = (size_t)(end - p);
        if (u->nsentinels == MAX_SENTINELS) {
            snprintf(why, whylen, "at most %d %ss", MAX_SENTINELS, what);
            return -1;
        }
        if (parse_hostport(p, l, u, dflt_port, why, whylen))
            return -1;
        snprintf(u->sentinel[u->nsentinels].host, sizeof u->sentinel[0].host, "%s", u->host);
        u->sentinel[u->nsentinels++].port = u->port;
        p += l;
        if (p < end && *p == ',' && ++p == end) {
            snprintf(why, whylen, "a ',' with no %s after it", what);
            return -1;
        }
    }
    u->host[0] = 0;
    u->port = 0;
    return 0;
}

/* redis-cluster: HOST:PORT[,HOST:PORT...] in [hp, *tail), the nodes asked
 * for the slot map (any of them will do; each is tried in turn). */
static int parse_cluster_seeds(const char *hp, const char **tail, struct url_parts *u, char *why, size_t whylen)
{
    if (parse_addr_list(hp, *tail, u, 6379, "seed node", why, whylen))
        return -1;
    if (u->nsentinels == 0) {
        snprintf(why, whylen, "no host (expected redis-cluster://HOST:PORT[,HOST:PORT...], any nodes of the cluster)");
        return -1;
    }
    if (**tail == '/' && (*tail)[1] && (*tail)[1] != '?') {
        snprintf(why, whylen, "a Redis Cluster has only database 0: no /DB after the nodes");
        return -1;
    }
    if (**tail == '/')
        (*tail)++;
    return 0;
}

/* sentinel: HOST:PORT[,HOST:PORT...] in [hp, *tail), then /MASTER_NAME;
 * *tail moves past the name. */
static int parse_sentinels(const char *hp, const char **tail, struct url_parts *u, char *why, size_t whylen)
{
    const char *end = *tail;
    if (parse_addr_list(hp, end, u, 26379, "Sentinel", why, whylen))
        return -1;
    size_t ml = *end == '/' ? strcspn(end + 1, "?") : 0;
    if (!ml || ml >= sizeof u->master) {
        snprintf(why, whylen, "expected /MASTER_NAME after the Sentinels (the name in their "
                              "'sentinel monitor' lines)");
        return -1;
    }
    memcpy(u->master, end + 1, ml);
    u->master[ml] = 0;
    for (const char *p = u->master; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("-._", *p)) {
            snprintf(why, whylen, "the master name may hold letters, digits, '-', '.' and '_'");
            return -1;
        }
    if (u->nsentinels < 2) {
        snprintf(why, whylen, "one Sentinel: the primary it names is used only once a second Sentinel confirms "
                              "it, so name two or more (HOST:PORT,HOST:PORT,...), as a Sentinel deployment has");
        return -1;
    }
    *tail = end + 1 + ml;
    return 0;
}

/* redis: HOST[:PORT] in [hp, *tail), then an optional /DB; *tail moves
 * past it. */
static int parse_redis_address(const char *hp, const char **tail, struct url_parts *u, char *why, size_t whylen)
{
    if (parse_hostport(hp, (size_t)(*tail - hp), u, 6379, why, whylen))
        return -1;
    if (**tail == '/') {
        size_t dl = strcspn(*tail + 1, "?");
        char db[16];
        snprintf(db, sizeof db, "%.*s", (int)(dl < sizeof db ? dl : sizeof db - 1), *tail + 1);
        if (dl && (dl >= sizeof db || parse_db(db, &u->db))) {
            snprintf(why, whylen, "the database after '/' must be a number");
            return -1;
        }
        *tail += 1 + dl;
    }
    return 0;
}

/* Splits a URL; -1 with why (never quoting the user-info part). */
static int parse_url(const char *url, struct url_parts *u, char *why, size_t whylen)
{
    memset(u, 0, sizeof *u);
    if (!strncmp(url, "rediss://", 9)) {
        snprintf(why, whylen, "%s", TLS_REFUSAL);
        return -1;
    }
    u->is_unix = !strncmp(url, "unix://", 7);
    u->is_sentinel = !strncmp(url, "sentinel://", 11);
    u->is_cluster = queue_url_is_cluster(url);
    if (!u->is_unix && !u->is_sentinel && !u->is_cluster && strncmp(url, "redis://", 8)) {
        snprintf(why, whylen, "expected redis://[USER[:PASSWORD]@]HOST[:PORT][/DB], "
                              "unix://[USER[:PASSWORD]@]/PATH[?db=N], "
                              "sentinel://[USER[:PASSWORD]@]HOST:PORT[,HOST:PORT...]/MASTER_NAME[?db=N] or "
                              "redis-cluster://[USER[:PASSWORD]@]HOST:PORT[,HOST:PORT...][?db=0]");
        return -1;
    }
    const char *rest = strstr(url, "://") + 3;
    /* the authority ends at the first '/' (unix: where the path starts) or '?' */
    size_t alen = strcspn(rest, u->is_unix ? "/" : "/?");
    const char *at = NULL;
    for (const char *p = rest; p < rest + alen; p++)
        if (*p == '@')
            at = p;
    if (at && parse_userinfo(rest, (size_t)(at - rest), u, why, whylen))
        return -1;
    const char *hp = at ? at + 1 : rest, *tail = rest + alen;
    int rc = u->is_unix       ? parse_unix_path(hp, &tail, u, why, whylen)
             : u->is_sentinel ? parse_sentinels(hp, &tail, u, why, whylen)
             : u->is_cluster  ? parse_cluster_seeds(hp, &tail, u, why, whylen)
                              : parse_redis_address(hp, &tail, u, why, whylen);
    if (rc)
        return -1;
    if (*tail == '?') {
        if (strncmp(tail, "?db=", 4) || parse_db(tail + 4, &u->db)) {
            snprintf(why, whylen, "the only parameter is ?db=N (a number)");
            return -1;
        }
    } else if (*tail) {
        snprintf(why, whylen, "unexpected text after the address");
        return -1;
    }
    if (u->is_cluster && u->db) {
        snprintf(why, whylen, "a Redis Cluster has only database 0 (?db=0)");
        return -1;
    }
    return 0;
}

bool queue_url_is_cluster(const char *url)
{
    return !strncmp(url, "redis-cluster://", 16);
}

int queue_url_seeds(const char *url, char (*seeds)[300], int max)
{
    struct url_parts u;
    char why[512];
    int n = 0;
    if (!parse_url(url, &u, why, sizeof why) && u.is_cluster)
        for (; n < u.nsentinels && n < max; n++)
            snprintf(seeds[n], sizeof seeds[n], "%.255s:%d", u.sentinel[n].host, u.sentinel[n].port);
    explicit_bzero(&u, sizeof u);
    return n;
}

void queue_url_redact(const char *url, char *buf, size_t len)
{
    /* whatever the URL's shape (even a malformed one): between the first ':'
     * after the scheme and the last '@' lies a password */
    const char *scheme = strstr(url, "://");
    const char *from = scheme ? scheme + 3 : url;
    const char *at = strrchr(from, '@');
    const char *colon = at ? memchr(from, ':', (size_t)(at - from)) : NULL;
    if (!colon) {
        snprintf(buf, len, "%s", url);
        return;
    }
    snprintf(buf, len, "%.*s***%s", (int)(colon + 1 - url), url, at);
}

int queue_url_check(const char *url, char *err, size_t errlen)
{
    struct url_parts u;
    char why[512];
    int rc = parse_url(url, &u, why, sizeof why);
    explicit_bzero(&u, sizeof u);
    if (!rc)
        return 0;
    char shown[1200];
    queue_url_redact(url, shown, sizeof shown);
    snprintf(err, errlen, strncmp(url, "rediss://", 9) ? "bad redis URL '%s': %s" : "%.0s%s", shown, why);
    return -1;
}

bool queue_url_has_password(const char *url)
{
    struct url_parts u;
    char why[512];
    bool has = !parse_url(url, &u, why, sizeof why) && u.pass[0];
    explicit_bzero(&u, sizeof u);
    return has;
}

int queue_url_with_password(const char *url, const char *password, char *buf, size_t len)
{
    struct url_parts u;
    char why[512];
    bool bad = parse_url(url, &u, why, sizeof why) || u.pass[0] || !*password, is_unix = u.is_unix;
    explicit_bzero(&u, sizeof u);
    if (bad)
        return -1;
    char enc[3 * 1024 + 1];
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)password; *p; p++) {
        if (o + 4 > sizeof enc)
            return -1;
        if (isalnum(*p) || strchr("-._~", *p))
            enc[o++] = (char)*p;
        else
            o += (size_t)snprintf(enc + o, 4, "%%%02X", *p);
    }
    enc[o] = 0;
    const char *rest = strstr(url, "://") + 3;
    size_t alen = strcspn(rest, is_unix ? "/" : "/?");
    const char *at = NULL;
    for (const char *p = rest; p < rest + alen; p++)
        if (*p == '@')
            at = p;
    /* scheme, the user as given (if any), ':' the password, '@', the rest */
    int n = at ? snprintf(buf, len, "%.*s:%s%s", (int)(at - url), url, enc, at)
               : snprintf(buf, len, "%.*s:%s@%s", (int)(rest - url), url, enc, rest);
    explicit_bzero(enc, sizeof enc);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* ------------------------------------------------------------ connect */

/* k->err = the message (vsnprintf: a long URL is cut, never overflows) */
static void set_err(struct queue_conn *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_err(struct queue_conn *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->err, sizeof k->err, fmt, ap);
    va_end(ap);
}

/* Without a password, a Redis that wants one answers every command with
 * NOAUTH: asked once per connection, so that the error says where the
 * password goes instead of surfacing as "store: NOAUTH ..." deep inside an
 * operation (and counts as the configuration's fault: judgectl exits 78). */
static int check_no_password_needed(struct queue_conn *k, redisContext *c, const char *shown)
{
    redisReply *r = redisCommand(c, "PING");
    int rc = 0;
    if (r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "NOAUTH", 6)) {
        set_err(k, "redis at %s wants a password and none was given: put it in the file "
                   "redis_password_file names, in $JUDGED_REDIS_PASSWORD, or in the URL (%s)",
                shown, r->str);
        k->refused = true;
        rc = -1;
    }
    if (r)
        freeReplyObject(r);
    return rc;
}

/* AUTH and SELECT on a new context; -1 with k->err (the server refused). */
static int conn_prepare(struct queue_conn *k, redisContext *c, const struct url_parts *u,
                        const char *shown)
{
    redisReply *r = NULL;
    if (!u->pass[0] && check_no_password_needed(k, c, shown))
        return -1;
    if (u->pass[0]) {
        r = u->user[0] ? redisCommand(c, "AUTH %s %s", u->user, u->pass)
                       : redisCommand(c, "AUTH %s", u->pass);
        if (!r || r->type == REDIS_REPLY_ERROR) {
            set_err(k, "redis at %s refused the password%s%s: %s", shown,
                     u->user[0] ? " of user " : "", u->user,
                     r ? r->str : c->errstr[0] ? c->errstr : "connection lost");
            k->refused = r != NULL;
            if (r)
                freeReplyObject(r);
            return -1;
        }
        freeReplyObject(r);
    }
    if (u->db) {
        r = redisCommand(c, "SELECT %d", u->db);
        if (!r || r->type == REDIS_REPLY_ERROR) {
            set_err(k, "redis at %s: SELECT %d: %s", shown, u->db,
                     r ? r->str : c->errstr[0] ? c->errstr : "connection lost");
            k->refused = r != NULL;
            if (r)
                freeReplyObject(r);
            return -1;
        }
        freeReplyObject(r);
    }
    return 0;
}

/* Does the server say it is a primary (ROLE)? -1 with k->err if not. */
static int check_primary(struct queue_conn *k, redisContext *c, const char *addr)
{
    redisReply *r = redisCommand(c, "ROLE");
    const char *role = r && r->type == REDIS_REPLY_ARRAY && r->elements ? queue_rstr(r->element[0]) : NULL;
    /* an ACL user without +role (README.md's have it): a replica would
     * answer the first write READONLY, which reconnects as well */
    bool noperm = r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "NOPERM", 6);
    int rc = noperm || (role && !strcmp(role, "master")) ? 0 : -1;
    if (rc)
        set_err(k, "%s is not a primary (ROLE: %s): a failover is under way", addr,
                 role ? role : r && r->type == REDIS_REPLY_ERROR ? r->str : c->errstr[0] ? c->errstr : "no answer");
    if (r)
        freeReplyObject(r);
    return rc;
}

/* What a Sentinel said when asked for the primary. */
enum sentinel_answer { SENTINEL_NAMED, SENTINEL_NOAUTH, SENTINEL_FAILED };

/* Asks Sentinel i for the primary's address (with the URL's credentials
 * when may_auth and it answers NOAUTH); SENTINEL_FAILED with k->err. */
static enum sentinel_answer sentinel_ask(struct queue_conn *k, const struct url_parts *u, int i, bool may_auth,
                                         struct timeval tv, char *addr, size_t addrlen)
{
    redisContext *s = redisConnectWithTimeout(u->sentinel[i].host, u->sentinel[i].port, tv);
    if (!s || s->err) {
        set_err(k, "cannot connect to Sentinel %s:%d: %s", u->sentinel[i].host, u->sentinel[i].port,
                 s ? s->errstr : "out of memory");
        if (s)
            redisFree(s);
        return SENTINEL_FAILED;
    }
    redisSetTimeout(s, tv);
    redisReply *r = redisCommand(s, "SENTINEL get-master-addr-by-name %s", u->master);
    bool noauth = r && r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "NOAUTH", 6);
    if (noauth && may_auth) {
        /* a Sentinel with requirepass: the same credentials as the primary's */
        freeReplyObject(r);
        r = u->user[0] ? redisCommand(s, "AUTH %s %s", u->user, u->pass) : redisCommand(s, "AUTH %s", u->pass);
        if (r && r->type != REDIS_REPLY_ERROR) {
            freeReplyObject(r);
            r = redisCommand(s, "SENTINEL get-master-addr-by-name %s", u->master);
        }
        noauth = false;
    }
    enum sentinel_answer a = noauth ? SENTINEL_NOAUTH : SENTINEL_FAILED;
    if (!noauth && r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 && queue_rstr(r->element[0]) &&
        queue_rstr(r->element[1])) {
        snprintf(addr, addrlen, "%.255s:%d", queue_rstr(r->element[0]), atoi(queue_rstr(r->element[1])));
        a = SENTINEL_NAMED;
    } else if (!noauth) {
        set_err(k, "Sentinel %s:%d %s", u->sentinel[i].host, u->sentinel[i].port,
                 !r ? (s->errstr[0] ? s->errstr : "did not answer")
                 : r->type == REDIS_REPLY_ERROR ? r->str
                 : "does not know the master name (its 'sentinel monitor' line names another)");
    }
    if (r)
        freeReplyObject(r);
    redisFree(s);
    return a;
}

/* What the configured Sentinels named: an address per Sentinel ("" when
 * it named none). */
struct sentinel_poll {
    char addr[MAX_SENTINELS][300];
    int named, noauth;
};

/* The address named by at least two Sentinels and by more than half of
 * those that named one (-1: none such); over_all: more than half of all
 * configured (no later answer can change it). */
static int sentinel_quorum(const struct sentinel_poll *p, int n, bool over_all)
{
    for (int i = 0; i < n; i++) {
        int same = 0;
        for (int j = 0; j < n && p->addr[i][0]; j++)
            same += !strcmp(p->addr[i], p->addr[j]);
        if (same >= 2 && 2 * same > (over_all ? n : p->named))
            return i;
    }
    return -1;
}

/* Asks the Sentinels in turn, starting with the one that answered last,
 * until a quorum is sure, without credentials; only when every Sentinel
 * that answered wants a password (a deployment whose Sentinels have
 * requirepass) are they asked again with the URL's. The index of a
 * Sentinel that named the quorum's address, or -1 with k->err. */
static int sentinel_agree(struct queue_conn *k, const struct url_parts *u, struct timeval tv, const char *shown,
                          char *addr, size_t addrlen)
{
    struct sentinel_poll p = {0};
    int n = u->nsentinels, at = -1;
    for (int pass = 0; pass < 2 && at < 0; pass++) {
        if (pass == 1 && !(u->pass[0] && p.noauth && !p.named))
            break;
        for (int t = 0; t < n && (at = sentinel_quorum(&p, n, true)) < 0; t++) {
            int i = (k->sentinel_next + t) % n;
            if (p.addr[i][0])
                continue;
            enum sentinel_answer a = sentinel_ask(k, u, i, pass == 1, tv, p.addr[i], sizeof p.addr[i]);
            p.named += a == SENTINEL_NAMED;
            p.noauth += a == SENTINEL_NOAUTH && pass == 0;
            if (a != SENTINEL_NAMED)
                p.addr[i][0] = 0;
        }
        if (at < 0)
            at = sentinel_quorum(&p, n, false);
    }
    if (at >= 0) {
        snprintf(addr, addrlen, "%s", p.addr[at]);
        return at;
    }
    char last[256];
    snprintf(last, sizeof last, "%s", k->err);
    if (p.named >= 2)
        set_err(k, "the Sentinels do not agree on the primary of %s (%d of %d named one, no address by more than "
                   "half of them): not connecting until they do (%s)", u->master, p.named, n, shown);
    else if (p.named == 0)
        set_err(k, "no Sentinel of %s named a primary (last: %s)", shown, last);
    else
        set_err(k, "only 1 of %d Sentinels of %s named a primary, and what one names is used only once a second "
                   "Sentinel confirms it (last: %s)", n, shown, p.noauth ? "a Sentinel wants a password while "
                   "another answered without one: it is not sent one" : last);
    return -1;
}

/* Connects to the primary the Sentinels agree on: authenticated, database
 * selected, ROLE master. One Sentinel never decides where the password
 * goes (README.md, "Failover (Sentinel)"). NULL with k->err. */
static redisContext *sentinel_connect(struct queue_conn *k, const struct url_parts *u, struct timeval tv,
                                      const char *shown)
{
    char addr[300], host[300];
    int i = sentinel_agree(k, u, tv, shown, addr, sizeof addr);
    if (i < 0)
        return NULL;
    const char *colon = strrchr(addr, ':');   /* HOST:PORT, HOST possibly IPv6 */
    snprintf(host, sizeof host, "%.*s", colon ? (int)(colon - addr) : 0, addr);
    redisContext *c = redisConnectWithTimeout(host, colon ? atoi(colon + 1) : 0, tv);
    if (!c || c->err) {
        set_err(k, "cannot connect to the primary %s that the Sentinels of %s named: %s", addr, shown,
                 c ? c->errstr : "out of memory");
        if (c)
            redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, tv);
    if (conn_prepare(k, c, u, shown) || check_primary(k, c, addr)) {
        redisFree(c);
        return NULL;
    }
    k->sentinel_next = i;
    k->switched = k->primary[0] && strcmp(k->primary, addr);
    snprintf(k->primary, sizeof k->primary, "%s", addr);
    return c;
}

/* A node of a redis-cluster:// URL: connected, authenticated. */
redisContext *queue_node_connect(struct queue_conn *k, const char *host, int port)
{
    struct timeval tv = {k->timeout_ms / 1000, (k->timeout_ms % 1000) * 1000};
    char shown[1200], addr[300];
    queue_url_redact(k->url, shown, sizeof shown);
    snprintf(addr, sizeof addr, "%.255s:%d", host, port);
    struct url_parts u;
    if (parse_url(k->url, &u, k->err, sizeof k->err)) {
        k->refused = true;
        return NULL;
    }
    redisContext *c = redisConnectWithTimeout(host, port, tv);
    int rc = -1;
    if (!c || c->err)
        set_err(k, "cannot connect to cluster node %s of %s: %s", addr, shown, c ? c->errstr : "out of memory");
    else {
        redisSetTimeout(c, tv);
        rc = conn_prepare(k, c, &u, shown);
    }
    explicit_bzero(&u, sizeof u);
    if (rc && c)
        redisFree(c);
    return rc ? NULL : c;
}

int queue_conn_ensure(struct queue_conn *k)
{
    if (queue_url_is_cluster(k->url) && !queue_url_check(k->url, k->err, sizeof k->err)) {
        k->refused = false;
        return queue_cluster_ensure(k);
    }
    if (k->c && !k->c->err)
        return 0;
    queue_conn_drop(k);
    k->refused = false;
    struct timeval tv = {k->timeout_ms / 1000, (k->timeout_ms % 1000) * 1000};
    char shown[1200];
    queue_url_redact(k->url, shown, sizeof shown);
    struct url_parts u;
    if (queue_url_check(k->url, k->err, sizeof k->err) ||
        parse_url(k->url, &u, k->err, sizeof k->err)) {
        k->refused = true;   /* a bad URL does not get better by retrying */
        return -1;
    }
    int rc = 0;
    redisContext *c = NULL;
    if (u.is_sentinel) {
        c = sentinel_connect(k, &u, tv, shown);
        rc = c ? 0 : -1;
    } else {
        c = u.is_unix ? redisConnectUnixWithTimeout(u.path, tv) : redisConnectWithTimeout(u.host, u.port, tv);
        if (!c || c->err) {
            set_err(k, "cannot connect to %s: %s", shown,
                     c ? c->errstr : "out of memory");
            rc = -1;
        } else {
            redisSetTimeout(c, tv);
            rc = conn_prepare(k, c, &u, shown);
        }
    }
    explicit_bzero(&u, sizeof u);
    if (rc) {
        if (c)
            redisFree(c);
        return -1;
    }
    k->c = c;
    k->backoff_ms = 50;
    if (k->switched) {
        /* a new primary: its replica copy of the Functions libraries is
         * checked as at start (loaded if missing, refused if newer) */
        k->switched = false;
        char err[256];
        if (queue_library_ensure(k, err, sizeof err))
            goto lib_failed;
        for (int i = 0; i < k->nlibs; i++)
            if (queue_library_load(k, k->libs[i], err, sizeof err))
                goto lib_failed;
        return 0;
    lib_failed:
        queue_conn_drop(k);
        set_err(k, "new primary %s: %s", k->primary, err);
        k->primary[0] = 0;   /* check it again on the next connect */
        return -1;
    }
    return 0;
}

bool queue_conn_stale(struct queue_conn *k, const redisReply *r)
{
    if (!r || r->type != REDIS_REPLY_ERROR ||
        (strncmp(r->str, "READONLY", 8) && strncmp(r->str, "LOADING", 7)))
        return false;
    if (k->c)
        redisFree(k->c);
    if (k->c && k->cluster)
        queue_cluster_lost(k);   /* a replica now: the map is read again */
    k->c = NULL;
    set_err(k, "%.200s", r->str);
    return true;
}

void queue_conn_backoff(struct queue_conn *k)
{
    long d = common_jitter_ms(k->backoff_ms);
    common_sleep_ms(d);
    k->backoff_ms = k->backoff_ms * 2 > 2000 ? 2000 : k->backoff_ms * 2;
}

/* A command's reply as the callers take it: NULL (the connection dropped,
 * or a reply that says this is no longer the primary) or the reply. */
static redisReply *counted_reply(struct queue_conn *k, redisReply *r)
{
    atomic_fetch_add(&queue_round_trips, 1);
    if (!r) {
        queue_conn_drop(k);
        return NULL;
    }
    if (queue_conn_stale(k, r)) {
        freeReplyObject(r);
        return NULL;
    }
    return r;
}

/* A cluster command's reply: NULL with a healthy k->c is a redirection
 * followed too often or a node out of the map (k->err says which): the
 * connection stays. */
static redisReply *cluster_reply(struct queue_conn *k, redisReply *r)
{
    if (!r && k->c && !k->c->err) {
        atomic_fetch_add(&queue_round_trips, 1);
        return NULL;
    }
    return counted_reply(k, r);
}

redisReply *queue_cmd(struct queue_conn *k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = NULL;
    bool cluster = queue_url_is_cluster(k->url);
    if (cluster)
        r = queue_cluster_cmdf(k, fmt, ap);
    else if (!queue_conn_ensure(k))
        r = redisvCommand(k->c, fmt, ap);
    else {
        va_end(ap);
        return NULL;
    }
    va_end(ap);
    return cluster ? cluster_reply(k, r) : counted_reply(k, r);
}

redisReply *queue_cmdv(struct queue_conn *k, int argc, const char **argv, const size_t *lens)
{
    if (queue_url_is_cluster(k->url))
        return cluster_reply(k, queue_cluster_cmdv(k, argc, argv, lens));
    if (queue_conn_ensure(k))
        return NULL;
    return counted_reply(k, redisCommandArgv(k->c, argc, argv, lens));
}

void queue_io_err(const struct queue_conn *k, const char *what, char *err, size_t errlen)
{
    if (!errlen)
        return;
    int n = snprintf(err, errlen, "%s: redis: %s", what, k->err[0] ? k->err : "connection lost");
    if (n >= 0 && (size_t)n >= errlen && errlen >= 4)
        memcpy(err + errlen - 4, "...", 4);
}

const char *queue_rstr(const redisReply *r)
{
    if (!r)
        return NULL;
    if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS)
        return r->str;
    return NULL;
}

bool queue_ping_unix(const char *path, long timeout_ms)
{
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    redisContext *c = redisConnectUnixWithTimeout(path, tv);
    bool ok = false;
    if (c && !c->err) {
        redisReply *r = redisCommand(c, "PING");
        ok = r && r->type == REDIS_REPLY_STATUS;
        if (r)
            freeReplyObject(r);
    }
    if (c)
        redisFree(c);
    return ok;
}
