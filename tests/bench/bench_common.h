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
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core.h"

static char B_dir[256], B_sock[320], B_url[400];

static inline void b_die(const char *msg)
{
    fprintf(stderr, "bench: %s\n", msg);
    exit(1);
}

/* text into a new file at path (the bench ends when it cannot) */
static inline void b_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        b_die(path);
    fputs(text, f);
    fclose(f);
}

/* A private directory for the bench (B_dir) and the Redis address in it. */
static inline void b_dir_make(void)
{
    snprintf(B_dir, sizeof B_dir, "/tmp/judged-bench-XXXXXX");
    if (!mkdtemp(B_dir))
        b_die("mkdtemp");
    snprintf(B_sock, sizeof B_sock, "%s/redis.sock", B_dir);
    snprintf(B_url, sizeof B_url, "unix://%s", B_sock);
}

/* Starts the benches' redis-server in B_dir (b_dir_make first), run by the
 * program and options of wrap when given (bench_instr: valgrind), and waits
 * up to wait_s seconds until it answers. */
static inline pid_t b_redis_in_dir(const char *const *wrap, int wait_s)
{
    /* BENCH_TCP=1: loopback TCP instead of a unix socket (what remote hosts see) */
    char port[16] = "0";
    if (getenv("BENCH_TCP")) {
        snprintf(port, sizeof port, "%d", 20000 + getpid() % 20000);
        snprintf(B_url, sizeof B_url, "redis://127.0.0.1:%s", port);
    }
    const char *redis[] = {"redis-server", "--port", port, "--bind", "127.0.0.1",
                           "--unixsocket", B_sock, "--dir", B_dir,
                           "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                           "--maxmemory-policy", "noeviction",
                           /* what the embedded Redis runs and the README asks of
                            * one's own: 1 KiB stream nodes (a queue read or delete
                            * walks its node from the start: ~13% more Redis
                            * instructions per job with 4 KiB nodes, callgrind) */
                           "--stream-node-max-bytes", "1024", NULL};
    const char *argv[64];
    int n = 0;
    for (int i = 0; wrap && wrap[i] && n < 40; i++)
        argv[n++] = wrap[i];
    for (int i = 0; redis[i]; i++)
        argv[n++] = redis[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        if (wrap)
            dup2(fd, 2);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    struct queue_conn k;
    queue_conn_init(&k, B_url, 1000);
    for (int i = 0; i < wait_s * 50 && queue_conn_ensure(&k); i++)
        jd_sleep_ms(20);
    if (!k.c)
        b_die(wrap ? "redis-server did not start under valgrind (is valgrind installed?)"
                   : "redis-server did not start");
    queue_conn_close(&k);
    return pid;
}

static inline pid_t b_redis(void)
{
    b_dir_make();
    return b_redis_in_dir(NULL, 4);
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

/* Waits for a judged that was told to stop: the CPU seconds (user + sys)
 * it used, and (*round_trips) the Redis round trips it counted, from the
 * "stopped (N round trips" line of its log. */
static inline double b_reap(pid_t pid, const char *log, unsigned long *round_trips)
{
    struct rusage ru;
    if (wait4(pid, NULL, 0, &ru) < 0)
        memset(&ru, 0, sizeof ru);
    *round_trips = 0;
    FILE *f = fopen(log, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char *p = strstr(line, "stopped (");
        if (p)
            *round_trips = strtoul(p + 9, NULL, 10);
    }
    if (f)
        fclose(f);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* The raw loop the dispatcher is compared with (bench_dispatch,
 * bench_instr): n entries on bench:raw (group g, created beforehand) ... */
static inline void b_raw_fill(struct queue_conn *k, int n)
{
    for (int i = 0; i < n; i++)
        redisAppendCommand(k->c, "XADD bench:raw * id x");
    for (int i = 0; i < n; i++) {
        redisReply *r;
        if (redisGetReply(k->c, (void **)&r) != REDIS_OK)
            b_die("XADD");
        freeReplyObject(r);
    }
}

/* ... taken one at a time: XREADGROUP COUNT 1, then XACK (2 round trips) */
static inline void b_raw_loop(struct queue_conn *k, int n)
{
    for (int done = 0; done < n; done++) {
        redisReply *r = queue_cmd(k, "XREADGROUP GROUP g c COUNT 1 STREAMS bench:raw >");
        if (!r || r->type != REDIS_REPLY_ARRAY)
            b_die("XREADGROUP");
        redisReply *e = r->element[0]->element[1]->element[0];
        redisReply *a = queue_cmd(k, "XACK bench:raw g %s", e->element[0]->str);
        freeReplyObject(a);
        freeReplyObject(r);
    }
}

/* Admits one submission through the queue library (judged_admit). */
static inline void b_submit(struct queue_conn *k, const char *pool, const char *lang, const char *problem,
                     const char *src, size_t srclen)
{
    struct queue_admit_args a = {.pool = pool, .lang = lang, .problem = problem, .source = src,
                                 .source_len = srclen, .max_queue = 0, .max_source = 0};
    struct queue_admit_reply r;
    char err[512];
    if (queue_admit(k, &a, &r, err, sizeof err))
        b_die(err);
}

static inline long long b_int(struct queue_conn *k, const char *fmt, const char *arg)
{
    redisReply *r = queue_cmd(k, fmt, arg);
    long long v = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
    if (r)
        freeReplyObject(r);
    return v;
}

/* ms between the first and the last entry of a results stream */
static inline long long b_span(struct queue_conn *k, const char *key, long long *first_ms)
{
    redisReply *a = queue_cmd(k, "XRANGE %s - + COUNT 1", key);
    redisReply *b = queue_cmd(k, "XREVRANGE %s + - COUNT 1", key);
    long long f = atoll(a->element[0]->element[0]->str), l = atoll(b->element[0]->element[0]->str);
    freeReplyObject(a);
    freeReplyObject(b);
    if (first_ms)
        *first_ms = f;
    return l - f;
}

#endif
