/* bench_common.h - helpers shared by the benchmarks: a private redis-server,
 * a judged process, direct admission through the submit script. */
#ifndef JUDGED_BENCH_COMMON_H
#define JUDGED_BENCH_COMMON_H

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jd.h"

static char B_dir[256], B_sock[320], B_url[400];

static inline void b_die(const char *msg)
{
    fprintf(stderr, "bench: %s\n", msg);
    exit(1);
}

static inline pid_t b_redis(void)
{
    snprintf(B_dir, sizeof B_dir, "/tmp/judged-bench-XXXXXX");
    if (!mkdtemp(B_dir))
        b_die("mkdtemp");
    snprintf(B_sock, sizeof B_sock, "%s/redis.sock", B_dir);
    snprintf(B_url, sizeof B_url, "unix://%s", B_sock);
    /* BENCH_TCP=1: loopback TCP instead of a unix socket (what remote hosts see) */
    char port[16] = "0";
    if (getenv("BENCH_TCP")) {
        snprintf(port, sizeof port, "%d", 20000 + getpid() % 20000);
        snprintf(B_url, sizeof B_url, "redis://127.0.0.1:%s", port);
    }
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        execlp("redis-server", "redis-server", "--port", port, "--bind", "127.0.0.1",
               "--unixsocket", B_sock, "--dir", B_dir,
               "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
               "--maxmemory-policy", "noeviction", (char *)NULL);
        _exit(127);
    }
    struct jd_conn k;
    jd_conn_init(&k, B_url, 1000);
    for (int i = 0; i < 200 && jd_conn_ensure(&k); i++)
        jd_sleep_ms(20);
    if (!k.c)
        b_die("redis-server did not start");
    jd_conn_close(&k);
    return pid;
}

static inline void b_stop(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
}

static inline void b_cleanup(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", B_dir);
    if (system(cmd)) {
    }
}

static inline pid_t b_judged(const char *bin, const char *config, const char *log)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        execl(bin, "judged", "--config", config, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Admits one submission straight through the submit script. */
static inline void b_submit(struct jd_conn *k, const char *pool, const char *lang, const char *problem,
                     const char *src, size_t srclen)
{
    char id[160], kq[2][160], kdel[160], ksub[400], kidem[160], suffix[300], now[24];
    jd_new_id(pool, id, sizeof id);
    jd_key(kq[0], sizeof kq[0], pool, "q:normal");
    jd_key(kq[1], sizeof kq[1], pool, "q:contest");
    jd_key(kdel, sizeof kdel, pool, "delayed");
    snprintf(suffix, sizeof suffix, "sub:%s", id);
    jd_key(ksub, sizeof ksub, pool, suffix);
    jd_key(kidem, sizeof kidem, pool, "idem:");
    snprintf(now, sizeof now, "%lld", (long long)jd_now_ms());
    const char *args[] = {kq[0], kq[1], kdel, ksub, kidem, id, "0", "0",
                          "id", id, "pool", pool, "lang", lang, "problem", problem,
                          "priority", "normal", "state", "queued", "attempts", "0",
                          "created", now, "source", src};
    size_t lens[sizeof args / sizeof args[0]];
    int n = (int)(sizeof args / sizeof args[0]);
    for (int i = 0; i < n; i++)
        lens[i] = strlen(args[i]);
    lens[n - 1] = srclen;
    redisReply *r = jd_eval(k, &JD_SUBMIT, 5, n, args, lens);
    if (!r || r->type != REDIS_REPLY_ARRAY)
        b_die("submit failed");
    freeReplyObject(r);
}

static inline long long b_int(struct jd_conn *k, const char *fmt, const char *arg)
{
    redisReply *r = jd_cmd(k, fmt, arg);
    long long v = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
    if (r)
        freeReplyObject(r);
    return v;
}

/* ms between the first and the last entry of a results stream */
static inline long long b_span(struct jd_conn *k, const char *key, long long *first_ms)
{
    redisReply *a = jd_cmd(k, "XRANGE %s - + COUNT 1", key);
    redisReply *b = jd_cmd(k, "XREVRANGE %s + - COUNT 1", key);
    long long f = atoll(a->element[0]->element[0]->str), l = atoll(b->element[0]->element[0]->str);
    freeReplyObject(a);
    freeReplyObject(b);
    if (first_ms)
        *first_ms = f;
    return l - f;
}

#endif
