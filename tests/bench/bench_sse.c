/* bench_sse.c - event fan-out: N clients hold GET /v1/events open on
 * judge-api (in front of a private redis-server); the program then XADDs
 * events to a results stream, one every 200 ms, and measures, for every
 * client and event, the time from just before the XADD to the moment the
 * client read the event's id line.
 *
 *   bench_sse [CLIENTS] [EVENTS]     (default 1000 clients, 20 events)
 *
 * Beside the figures: the load average (the machine is shared) and
 * judge-api's CPU time per delivery while the events went out.
 *
 * A program, not a test: the figures depend on the machine and its load. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "common.h"

static char dir[] = "/tmp/bench-sse-XXXXXX";
static int port, nevents;
static char token[200];
static double *sent;         /* per event: monotonic time before its XADD */
static _Atomic int connected;

struct client {
    pthread_t t;
    double *got;             /* per event: when its id line was read */
};

static pid_t spawn(const char *log, char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        FILE *f = freopen(log, "a", stdout);
        (void)f;
        dup2(1, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static void *client_main(void *p)
{
    struct client *c = p;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        perror("connect");
        return NULL;
    }
    char req[400];
    int n = snprintf(req, sizeof req, "GET /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n",
                     token);
    if (write(fd, req, (size_t)n) != n)
        return NULL;
    char buf[65536];
    size_t len = 0;
    int seen = 0;
    bool counted = false;
    while (seen < nevents) {
        ssize_t k = read(fd, buf + len, sizeof buf - 1 - len);
        if (k <= 0)
            break;
        double now = common_monotonic();
        len += (size_t)k;
        buf[len] = 0;
        if (!counted && strstr(buf, ": connected")) {
            counted = true;
            connected++;
        }
        /* events carry "data: {...\"id\":\"bench-N\"" */
        char *p2;
        while ((p2 = strstr(buf, "\"id\":\"bench-"))) {
            int ev = atoi(p2 + 12);
            if (ev >= 0 && ev < nevents && c->got[ev] == 0) {
                c->got[ev] = now;
                seen++;
            }
            p2[1] = 'X';   /* consumed */
        }
        char *last = strrchr(buf, '\n');
        if (last && len > 32768) {   /* keep the tail only */
            size_t keep = len - (size_t)(last + 1 - buf);
            memmove(buf, last + 1, keep);
            len = keep;
        }
    }
    close(fd);
    return NULL;
}

/* user + system CPU seconds of a process (/proc/PID/stat; bench_api reads
 * it the same way) */
static double proc_cpu(pid_t pid)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    unsigned long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return 0;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int nclients = argc > 1 ? atoi(argv[1]) : 1000;
    nevents = argc > 2 ? atoi(argv[2]) : 20;
    if (argc > 1 && (!strcmp(argv[1], "--help") || nclients <= 0 || nevents <= 0)) {
        printf("usage: bench_sse [CLIENTS] [EVENTS]\n");
        return 0;
    }
    signal(SIGPIPE, SIG_IGN);
    struct rlimit rl = {65536, 65536};
    setrlimit(RLIMIT_NOFILE, &rl);
    if (!mkdtemp(dir))
        return 1;
    char sock[200], cfg[200], log[200], tokens[200], cmd[1000], bin[300];
    snprintf(sock, sizeof sock, "%s/redis.sock", dir);
    snprintf(log, sizeof log, "%s/redis.log", dir);
    pid_t redis = spawn(log, (char *[]){"redis-server", "--port", "0", "--unixsocket", sock, "--save", "",
                                        "--appendonly", "no", "--maxclients", "20000", NULL});
    snprintf(cfg, sizeof cfg, "%s/judged.yaml", dir);
    snprintf(tokens, sizeof tokens, "%s/tokens", dir);
    FILE *f = fopen(cfg, "w");
    fprintf(f, "redis: unix://%s\nproblems: %s\nlanguages: %s/languages\n"
               "pools:\n  native: {languages: [c, cpp], slots: 1}\n"
               "api:\n  listen: 127.0.0.1:0\n  tokens: %s\n  max_connections: %d\n"
               "  max_connections_per_address: %d\n  max_streams_per_token: %d\n  rate: 0\n",
            sock, dir, JUDGED_SOURCE_DIR, tokens, nclients + 16, nclients + 16, nclients + 16);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s/judgectl --config %s tokens add bench --role read", JUDGED_BIN_DIR, cfg);
    FILE *p = popen(cmd, "r");
    if (!p || !fgets(token, sizeof token, p))
        return 1;
    pclose(p);
    token[strcspn(token, "\n")] = 0;
    common_sleep_ms(300);
    snprintf(log, sizeof log, "%s/api.log", dir);
    snprintf(bin, sizeof bin, "%s/judge-api", JUDGED_BIN_DIR);
    pid_t api = spawn(log, (char *[]){bin, "--config", cfg, NULL});
    for (int i = 0; i < 200 && !port; i++) {
        common_sleep_ms(25);
        size_t len;
        bool more;
        char *s = common_read_file(log, 65536, &len, &more);
        char *q = s ? strstr(s, "listening on port ") : NULL;
        if (q)
            port = atoi(q + 18);
        free(s);
    }
    if (!port)
        return 1;
    sent = calloc((size_t)nevents, sizeof *sent);
    struct client *c = calloc((size_t)nclients, sizeof *c);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 256 * 1024);
    for (int i = 0; i < nclients; i++) {
        c[i].got = calloc((size_t)nevents, sizeof(double));
        pthread_create(&c[i].t, &at, client_main, &c[i]);
    }
    for (int i = 0; i < 1800 && connected < nclients; i++)
        common_sleep_ms(100);
    printf("%d of %d clients connected\n", (int)connected, nclients);
    redisContext *r = redisConnectUnix(sock);
    double cpu0 = proc_cpu(api);
    for (int e = 0; e < nevents; e++) {
        common_sleep_ms(200);
        char id[64];
        snprintf(id, sizeof id, "bench-%d", e);
        sent[e] = common_monotonic();
        redisReply *x = redisCommand(r, "XADD judge:{native}:results * id %s verdict AC score 100 pool native time 0",
                                     id);
        if (x)
            freeReplyObject(x);
    }
    for (int i = 0; i < nclients; i++)
        pthread_join(c[i].t, NULL);   /* each ends after the last event */
    double cpu = proc_cpu(api) - cpu0, load[1] = {0};
    getloadavg(load, 1);
    double *lat = malloc(sizeof(double) * (size_t)nclients * (size_t)nevents);
    long n = 0, missing = 0;
    for (int i = 0; i < nclients; i++)
        for (int e = 0; e < nevents; e++) {
            if (c[i].got[e] > 0)
                lat[n++] = c[i].got[e] - sent[e];
            else
                missing++;
        }
    qsort(lat, (size_t)n, sizeof *lat, cmp_d);
    if (n)
        printf("%d clients x %d events: latency XADD -> client p50 %.1f ms, p99 %.1f ms, max %.1f ms "
               "(%ld deliveries missing)\n", nclients, nevents, lat[n / 2] * 1000, lat[(long)(n * 0.99)] * 1000,
               lat[n - 1] * 1000, missing);
    printf("  load average %.1f; judge-api CPU %.2f s over the events, %.1f us per delivery\n", load[0], cpu,
           n ? cpu / (double)n * 1e6 : 0);
    double stop = common_monotonic();
    redisFree(r);
    kill(api, SIGTERM);
    waitpid(api, NULL, 0);
    printf("  judge-api stopped %.2f s after SIGTERM\n", common_monotonic() - stop);
    kill(redis, SIGTERM);
    waitpid(redis, NULL, 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {
    }
    return 0;
}
