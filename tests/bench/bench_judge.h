/* bench_judge.h - a whole judge for the end-to-end benchmarks (bench_latency,
 * bench_contest): a private redis-server, judged and judge-api in a private
 * directory, tokens made by judgectl, and the two HTTP calls they need (a
 * submission's POST, a GET of JSON). Programs, not tests: everything ends
 * the bench with a message when it fails. */
#ifndef JUDGED_BENCH_JUDGE_H
#define JUDGED_BENCH_JUDGE_H

#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "core.h"

struct bj_judge {
    const char *name;            /* the host's name: judge:host:NAME */
    char dir[64], sock[128], config[128];
    pid_t redis, api, judged;
    int port;                    /* judge-api's */
    struct queue_conn k;         /* the bench's own connection to Redis */
};

/* the judges bj_start started, stopped when the bench exits early */
#define BJ_MAX_JUDGES 4
static struct bj_judge *bj_running[BJ_MAX_JUDGES];

static inline void bj_die(const char *what)
{
    /* one thread exits (its atexit stops the judges); another that dies at
     * the same time waits for that */
    static atomic_int dying;
    fprintf(stderr, "bench: %s\n", what);
    if (atomic_fetch_add(&dying, 1))
        for (;;)
            pause();
    exit(1);
}

static inline double bj_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* text into a new file at path */
static inline void bj_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        bj_die(path);
}

static inline pid_t bj_spawn(const char *log, char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(log, "a", stdout))
            _exit(127);
        dup2(1, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static inline char *bj_slurp(const char *path)
{
    size_t len;
    bool more;
    return common_read_file(path, 1 << 20, &len, &more);
}

/* the port judge-api logged, waiting up to 10 s */
static inline int bj_api_port(const char *log)
{
    for (int i = 0; i < 400; i++) {
        common_sleep_ms(25);
        char *s = bj_slurp(log);
        char *q = s ? strstr(s, "listening on port ") : NULL;
        int port = q ? atoi(q + 18) : 0;
        free(s);
        if (port)
            return port;
    }
    return 0;
}

/* a new token of these roles (judgectl tokens add), into out */
static inline void bj_token(struct bj_judge *j, const char *name, const char *roles, char *out, size_t len)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "%s/judgectl --config %s tokens add %s --role %s", JUDGED_BIN_DIR, j->config,
             name, roles);
    FILE *p = popen(cmd, "r");
    if (!p || !fgets(out, (int)len, p))
        bj_die("judgectl tokens add");
    pclose(p);
    out[strcspn(out, "\n")] = 0;
}

static inline void bj_kill_running(void)
{
    for (int n = 0; n < BJ_MAX_JUDGES; n++) {
        pid_t pids[] = {bj_running[n] ? bj_running[n]->judged : 0, bj_running[n] ? bj_running[n]->api : 0,
                        bj_running[n] ? bj_running[n]->redis : 0};
        for (int i = 0; i < 3; i++)
            if (pids[i] > 0) {
                kill(pids[i], SIGTERM);
                waitpid(pids[i], NULL, 0);
            }
    }
}

/* Starts redis-server, judged and judge-api in a new directory. rest is the
 * configuration after the lines the bench owns (redis, state_dir, host, the
 * api's listen address and tokens file): problems, languages, pools, and
 * api keys as "api_extra" (indented lines, or ""). Tokens must be made
 * before judge-api starts (it reads the file at start): make_tokens is
 * called between. */
static inline void bj_start(struct bj_judge *j, const char *rest, const char *api_extra,
                            void (*make_tokens)(struct bj_judge *, void *), void *arg)
{
    snprintf(j->dir, sizeof j->dir, "/tmp/bench-judge-XXXXXX");
    if (!mkdtemp(j->dir))
        bj_die("mkdtemp");
    snprintf(j->sock, sizeof j->sock, "%s/redis.sock", j->dir);
    char log[128], url[160], bin[512];
    snprintf(log, sizeof log, "%s/redis.log", j->dir);
    int slot = 0;
    while (slot < BJ_MAX_JUDGES && bj_running[slot])
        slot++;
    if (slot == BJ_MAX_JUDGES)
        bj_die("too many judges");
    if (slot == 0)
        atexit(bj_kill_running);
    bj_running[slot] = j;
    j->redis = bj_spawn(log, (char *[]){"redis-server", "--port", "0", "--unixsocket", j->sock, "--save", "",
                                        "--appendonly", "no", "--stream-node-max-bytes", "1024", NULL});
    snprintf(url, sizeof url, "unix://%s", j->sock);
    queue_conn_init(&j->k, url, 70000);
    for (int i = 0; i < 250 && queue_conn_ensure(&j->k); i++)
        common_sleep_ms(20);
    if (!j->k.c)
        bj_die("redis-server did not start");
    snprintf(j->config, sizeof j->config, "%s/judged.yaml", j->dir);
    FILE *f = fopen(j->config, "w");
    if (!f)
        bj_die(j->config);
    fprintf(f, "redis: unix://%s\nstate_dir: %s/state\nhost: %s\n%sapi:\n  listen: 127.0.0.1:0\n"
               "  tokens: %s/tokens\n%s",
            j->sock, j->dir, j->name, rest, j->dir, api_extra);
    fclose(f);
    make_tokens(j, arg);
    snprintf(log, sizeof log, "%s/api.log", j->dir);
    snprintf(bin, sizeof bin, "%s/judge-api", JUDGED_BIN_DIR);
    j->api = bj_spawn(log, (char *[]){bin, "--config", j->config, NULL});
    if (!(j->port = bj_api_port(log)))
        bj_die("judge-api did not start");
    snprintf(log, sizeof log, "%s/judged.log", j->dir);
    snprintf(bin, sizeof bin, "%s/judged", JUDGED_BIN_DIR);
    j->judged = bj_spawn(log, (char *[]){bin, "--config", j->config, NULL});
    char host[128];
    snprintf(host, sizeof host, "judge:host:%s", j->name);
    /* up, and its languages warmed up (judged/daemon/warm.c): a contest's
     * hosts start before it does; 3 minutes at most */
    for (int i = 0; i < 9000; i++) {
        redisReply *r = queue_cmd(&j->k, "GET %s", host);
        json_t *rec = r && r->type == REDIS_REPLY_STRING ? json_loads(r->str, 0, NULL) : NULL;
        bool up = rec && json_integer_value(json_object_get(rec, "warming")) == 0;
        json_decref(rec);
        if (r)
            freeReplyObject(r);
        if (up)
            return;
        common_sleep_ms(20);
    }
    bj_die("judged did not start (or warm up) within 3 minutes");
}

static inline void bj_stop(struct bj_judge *j, bool keep_dir)
{
    for (int n = 0; n < BJ_MAX_JUDGES; n++)
        if (bj_running[n] == j)
            bj_running[n] = NULL;
    pid_t pids[] = {j->judged, j->api, j->redis};
    for (int i = 0; i < 3; i++)
        if (pids[i] > 0) {   /* 0: already stopped (kill(0) would signal the bench's own group) */
            kill(pids[i], SIGTERM);
            waitpid(pids[i], NULL, 0);
        }
    queue_conn_close(&j->k);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", j->dir);
    if (!keep_dir && system(cmd)) {
    }
}

/* a connected socket to judge-api */
static inline int bj_connect(const struct bj_judge *j)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)j->port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* One request on a connection of its own (Connection: close); the whole
 * answer (status line, headers, body) as a string the caller frees, NULL
 * when judge-api cannot be reached. */
static inline char *bj_request(const struct bj_judge *j, const char *method, const char *path, const char *token,
                               const char *body)
{
    char *req = NULL;
    int len = asprintf(&req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                       "Content-Type: application/json\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                       method, path, token, body ? strlen(body) : 0, body ? body : "");
    int fd = len < 0 ? -1 : bj_connect(j);
    if (fd < 0 || write(fd, req, (size_t)len) != len) {
        free(req);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    free(req);
    size_t cap = 16384, got = 0;
    char *buf = malloc(cap);
    ssize_t n;
    while (buf && (n = read(fd, buf + got, cap - 1 - got)) > 0) {
        got += (size_t)n;
        if (got == cap - 1) {
            char *b = realloc(buf, cap *= 2);
            if (!b)
                break;
            buf = b;
        }
    }
    close(fd);
    if (buf)
        buf[got] = 0;
    return buf;
}

/* the JSON body of a 200 answer to GET path, NULL otherwise */
static inline json_t *bj_get_json(const struct bj_judge *j, const char *path, const char *token)
{
    char *a = bj_request(j, "GET", path, token, NULL);
    char *body = a && !strncmp(a, "HTTP/1.1 200", 12) ? strstr(a, "\r\n\r\n") : NULL;
    json_t *v = body ? json_loads(body + 4, 0, NULL) : NULL;
    free(a);
    return v;
}

/* POST /v1/submissions; the submission's id (caller frees) once the 202
 * arrived; any other answer ends the bench */
static inline char *bj_submit(const struct bj_judge *j, const char *token, const char *problem, const char *lang,
                              const char *src)
{
    json_t *b = json_pack("{s:s, s:s, s:s}", "problem", problem, "language", lang, "source", src);
    char *body = json_dumps(b, JSON_COMPACT);
    json_decref(b);
    char *a = bj_request(j, "POST", "/v1/submissions", token, body);
    free(body);
    char *id = a ? strstr(a, "\"id\":\"") : NULL;
    if (!a || strncmp(a, "HTTP/1.1 202", 12) || !id) {
        fprintf(stderr, "%s\n", a ? a : "(no answer)");
        bj_die("the admission was not 202");
    }
    id += 6;
    char *out = strndup(id, strcspn(id, "\""));
    free(a);
    return out;
}

#endif
