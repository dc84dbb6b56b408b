/* redis.c - hiredis connections that survive Redis going away, EVALSHA with
 * NOSCRIPT reload, key names, ids, and the embedded redis-server. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jd.h"

_Atomic unsigned long jd_round_trips;

int64_t jd_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void jd_sleep_ms(long ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

static unsigned rnd(void)
{
    unsigned x = 0;
    if (getrandom(&x, sizeof x, GRND_NONBLOCK) != sizeof x)
        x = (unsigned)jd_now_ms() * 2654435761u;
    return x;
}

void jd_conn_init(struct jd_conn *k, const char *url, long timeout_ms)
{
    memset(k, 0, sizeof *k);
    k->url = strdup(url);
    k->timeout_ms = timeout_ms;
    k->backoff_ms = 50;
}

void jd_conn_close(struct jd_conn *k)
{
    if (k->c)
        redisFree(k->c);
    k->c = NULL;
    free(k->url);
    k->url = NULL;
}

static void drop(struct jd_conn *k)
{
    if (k->c) {
        snprintf(k->err, sizeof k->err, "%s", k->c->errstr[0] ? k->c->errstr : "connection lost");
        redisFree(k->c);
    }
    k->c = NULL;
}

int jd_conn_ensure(struct jd_conn *k)
{
    if (k->c && !k->c->err)
        return 0;
    drop(k);
    struct timeval tv = {k->timeout_ms / 1000, (k->timeout_ms % 1000) * 1000};
    redisContext *c;
    if (!strncmp(k->url, "unix://", 7))
        c = redisConnectUnixWithTimeout(k->url + 7, tv);
    else if (!strncmp(k->url, "redis://", 8)) {
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

void jd_conn_backoff(struct jd_conn *k)
{
    long d = k->backoff_ms / 2 + (long)(rnd() % (unsigned long)(k->backoff_ms / 2 + 1));
    jd_sleep_ms(d);
    k->backoff_ms = k->backoff_ms * 2 > 2000 ? 2000 : k->backoff_ms * 2;
}

redisReply *jd_cmd(struct jd_conn *k, const char *fmt, ...)
{
    if (jd_conn_ensure(k))
        return NULL;
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(k->c, fmt, ap);
    va_end(ap);
    atomic_fetch_add(&jd_round_trips, 1);
    if (!r) {
        drop(k);
        return NULL;
    }
    return r;
}

redisReply *jd_cmdv(struct jd_conn *k, int argc, const char **argv, const size_t *lens)
{
    if (jd_conn_ensure(k))
        return NULL;
    redisReply *r = redisCommandArgv(k->c, argc, argv, lens);
    atomic_fetch_add(&jd_round_trips, 1);
    if (!r) {
        drop(k);
        return NULL;
    }
    return r;
}

const char *jd_rstr(const redisReply *r)
{
    if (!r)
        return NULL;
    if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS)
        return r->str;
    return NULL;
}

bool jd_reply_is_error(const redisReply *r, const char *prefix)
{
    return r && r->type == REDIS_REPLY_ERROR && (!prefix || strstr(r->str, prefix));
}

/* Script SHAs, shared by all connections (Redis keeps one script cache). */
static pthread_mutex_t sha_mu = PTHREAD_MUTEX_INITIALIZER;
struct sha_entry {
    const struct jd_script *s;
    char sha[48];
};
static struct sha_entry shas[32];

static bool get_sha(const struct jd_script *s, char *out)
{
    bool ok = false;
    pthread_mutex_lock(&sha_mu);
    for (size_t i = 0; i < sizeof shas / sizeof shas[0]; i++)
        if (shas[i].s == s) {
            strcpy(out, shas[i].sha);
            ok = out[0] != 0;
            break;
        }
    pthread_mutex_unlock(&sha_mu);
    return ok;
}

static void set_sha(const struct jd_script *s, const char *sha)
{
    pthread_mutex_lock(&sha_mu);
    for (size_t i = 0; i < sizeof shas / sizeof shas[0]; i++)
        if (shas[i].s == s || !shas[i].s) {
            shas[i].s = s;
            snprintf(shas[i].sha, sizeof shas[i].sha, "%s", sha);
            break;
        }
    pthread_mutex_unlock(&sha_mu);
}

redisReply *jd_eval(struct jd_conn *k, const struct jd_script *s, int nkeys, int nargs,
                    const char **args, const size_t *lens)
{
    const char **argv = malloc(sizeof *argv * (size_t)(nargs + 3));
    size_t *alen = malloc(sizeof *alen * (size_t)(nargs + 3));
    char sha[48], nk[16];
    snprintf(nk, sizeof nk, "%d", nkeys);
    redisReply *r = NULL;
    for (int tries = 0; tries < 3; tries++) {
        if (!get_sha(s, sha)) {
            r = jd_cmd(k, "SCRIPT LOAD %s", s->body);
            if (!r)
                break;
            if (r->type != REDIS_REPLY_STRING) {
                snprintf(k->err, sizeof k->err, "SCRIPT LOAD %s: %s", s->name,
                         r->type == REDIS_REPLY_ERROR ? r->str : "unexpected reply");
                break; /* return the error reply */
            }
            set_sha(s, r->str);
            strcpy(sha, r->str);
            freeReplyObject(r);
        }
        argv[0] = "EVALSHA";
        alen[0] = 7;
        argv[1] = sha;
        alen[1] = strlen(sha);
        argv[2] = nk;
        alen[2] = strlen(nk);
        for (int i = 0; i < nargs; i++) {
            argv[3 + i] = args[i];
            alen[3 + i] = lens ? lens[i] : strlen(args[i]);
        }
        r = jd_cmdv(k, nargs + 3, argv, alen);
        if (r && jd_reply_is_error(r, "NOSCRIPT")) {
            freeReplyObject(r);
            r = NULL;
            set_sha(s, ""); /* Redis restarted or flushed its scripts: load again */
            continue;
        }
        break;
    }
    free(argv);
    free(alen);
    return r;
}

void jd_key(char *buf, size_t len, const char *pool, const char *suffix)
{
    snprintf(buf, len, "judge:{%s}:%s", pool, suffix);
}

bool jd_id_pool(const char *id, char *pool, size_t len)
{
    const char *dash = strrchr(id, '-');
    if (!dash || dash == id)
        return false;
    /* ids are POOL-TIME-RAND: the pool is everything before the second-to-last dash */
    const char *p = dash - 1;
    while (p > id && *p != '-')
        p--;
    if (p == id || (size_t)(p - id) >= len)
        return false;
    memcpy(pool, id, (size_t)(p - id));
    pool[p - id] = 0;
    return true;
}

void jd_new_id(const char *pool, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%011llx-%08x", pool, (unsigned long long)jd_now_ms(), rnd());
}

char *jd_read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n > max) {
            snprintf(err, errlen, "%s: source is larger than %zu bytes", path, max);
            free(buf);
            if (f != stdin)
                fclose(f);
            return NULL;
        }
        if (got == 0)
            break;
    }
    if (f != stdin)
        fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

/* ------------------------------------------------------- embedded redis */

static bool ping(const char *sock)
{
    struct timeval tv = {0, 300000};
    redisContext *c = redisConnectUnixWithTimeout(sock, tv);
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

int jd_embedded_start(const struct jd_config *cfg, char *err, size_t errlen)
{
    char dir[4096], sock[4096], conf[4200];
    snprintf(dir, sizeof dir, "%s/redis", cfg->state_dir);
    jd_embedded_socket(cfg, sock, sizeof sock);
    mkdir(cfg->state_dir, 0755);
    if (mkdir(dir, 0700) && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    if (strlen(sock) >= 104) {
        snprintf(err, errlen, "%s: unix socket path too long (state_dir is too deep)", sock);
        return -1;
    }
    if (ping(sock))
        return 0; /* one is running already (e.g. we were killed): reuse it */
    snprintf(conf, sizeof conf, "%s/redis.conf", dir);
    FILE *f = fopen(conf, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", conf, strerror(errno));
        return -1;
    }
    fprintf(f, "# generated by judged; edits are overwritten\n"
               "port 0\nunixsocket %s\nunixsocketperm 700\ndir %s\n"
               "appendonly yes\nappendfsync everysec\nsave \"\"\n"
               "maxmemory-policy noeviction\ndaemonize no\nlogfile %s/redis.log\n"
               "pidfile %s/redis.pid\n",
            sock, dir, dir, dir);
    fclose(f);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        sigset_t all;
        sigemptyset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);
        setsid(); /* our SIGINT on the terminal must not reach it first */
        execlp("redis-server", "redis-server", conf, (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 100; i++) {
        if (ping(sock))
            return pid;
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            snprintf(err, errlen, "redis-server exited at start (see %s/redis.log)", dir);
            return -1;
        }
        jd_sleep_ms(50);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    snprintf(err, errlen, "redis-server did not answer on %s", sock);
    return -1;
}

void jd_embedded_stop(int pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM); /* redis fsyncs the AOF on SIGTERM */
    for (int i = 0; i < 200; i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return;
        jd_sleep_ms(25);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}
