/* conn.c - hiredis connections that survive Redis going away: every command
 * has a socket timeout; after an I/O error or a timeout the context is freed
 * (its reply stream would be out of step) and reconnected on the next call,
 * with exponential backoff and jitter between attempts. */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "common.h"
#include "queue.h"
#include "queue_internal.h"

_Atomic unsigned long queue_round_trips;

static unsigned rnd(void)
{
    unsigned x = 0;
    if (getrandom(&x, sizeof x, GRND_NONBLOCK) != sizeof x)
        x = (unsigned)time(NULL) * 2654435761u;
    return x;
}

void queue_conn_init(struct queue_conn *k, const char *url, long timeout_ms)
{
    memset(k, 0, sizeof *k);
    k->url = strdup(url);
    k->timeout_ms = timeout_ms;
    k->backoff_ms = 50;
}

void queue_conn_close(struct queue_conn *k)
{
    if (k->c)
        redisFree(k->c);
    k->c = NULL;
    free(k->url);
    k->url = NULL;
}

void queue_conn_drop(struct queue_conn *k)
{
    if (k->c) {
        snprintf(k->err, sizeof k->err, "%s", k->c->errstr[0] ? k->c->errstr : "connection lost");
        redisFree(k->c);
    }
    k->c = NULL;
}

int queue_conn_ensure(struct queue_conn *k)
{
    if (k->c && !k->c->err)
        return 0;
    queue_conn_drop(k);
    struct timeval tv = {k->timeout_ms / 1000, (k->timeout_ms % 1000) * 1000};
    redisContext *c;
    if (!strncmp(k->url, "unix://", 7)) {
        c = redisConnectUnixWithTimeout(k->url + 7, tv);
    } else if (!strncmp(k->url, "redis://", 8)) {
        char host[256];
        snprintf(host, sizeof host, "%s", k->url + 8);
        char *slash = strchr(host, '/');
        if (slash)
            *slash = 0;
        char *colon = strrchr(host, ':');
        int port = 6379;
        if (colon) {
            *colon = 0;
            port = atoi(colon + 1);
        }
        c = redisConnectWithTimeout(host, port, tv);
    } else {
        snprintf(k->err, sizeof k->err, "bad redis URL '%s'", k->url);
        return -1;
    }
    if (!c || c->err) {
        snprintf(k->err, sizeof k->err, "cannot connect to %s: %s", k->url,
                 c ? c->errstr : "out of memory");
        if (c)
            redisFree(c);
        return -1;
    }
    redisSetTimeout(c, tv);
    k->c = c;
    k->backoff_ms = 50;
    return 0;
}

void queue_conn_backoff(struct queue_conn *k)
{
    long d = k->backoff_ms / 2 + (long)(rnd() % (unsigned long)(k->backoff_ms / 2 + 1));
    common_sleep_ms(d);
    k->backoff_ms = k->backoff_ms * 2 > 2000 ? 2000 : k->backoff_ms * 2;
}

redisReply *queue_cmd(struct queue_conn *k, const char *fmt, ...)
{
    if (queue_conn_ensure(k))
        return NULL;
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(k->c, fmt, ap);
    va_end(ap);
    atomic_fetch_add(&queue_round_trips, 1);
    if (!r) {
        queue_conn_drop(k);
        return NULL;
    }
    return r;
}

redisReply *queue_cmdv(struct queue_conn *k, int argc, const char **argv, const size_t *lens)
{
    if (queue_conn_ensure(k))
        return NULL;
    redisReply *r = redisCommandArgv(k->c, argc, argv, lens);
    atomic_fetch_add(&queue_round_trips, 1);
    if (!r) {
        queue_conn_drop(k);
        return NULL;
    }
    return r;
}

const char *queue_rstr(const redisReply *r)
{
    if (!r)
        return NULL;
    if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS)
        return r->str;
    return NULL;
}
