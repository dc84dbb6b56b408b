/* bench_api.c - admission over HTTP: judge-api in front of a private
 * redis-server (no judged: only admission is measured), POST /v1/submissions
 * with 1 KiB sources over keep-alive connections from a small C client.
 *
 *   bench_api [--streams N [--events R]] [SECONDS] [CONNECTIONS] [local|replicated]
 *
 * With --streams N, N event streams (GET /v1/events) are held open on
 * judge-api while it admits, as a contest's scoreboard and contestants'
 * pages hold them (a thread of this program reads whatever they send);
 * with --events R, R verdict events a second reach them meanwhile (XADD
 * to the results stream, as judged's hosts write them).
 *
 * With local or replicated (admission_durability), the redis-server has a
 * replica (another redis-server, over loopback TCP), so the two compare the
 * same topology: replicated answers each admission only after WAIT 1
 * confirmed the replica has it. Without the third argument: one Redis.
 *
 * Prints: the closed-loop rate (every connection sends its next request as
 * soon as the answer came), the latency p50/p99 at a fixed 1,000
 * submissions/s (measured from each request's scheduled time, so a stall
 * is not hidden), and the raw ceiling: redis-benchmark calling FCALL
 * judged_admit directly. Beside each run: the load average (the machine is
 * shared) and the CPU time per submission of judge-api, redis-server and
 * this client (a figure that moves less with the load than the rate does,
 * and that shows how the cores were split). A program, not a test: the figures depend on the
 * machine and whatever else runs on it. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "common.h"

static char dir[] = "/tmp/bench-api-XXXXXX";
static int port;
static char request[8192];
static size_t request_len;
static pid_t api_pid, redis_pid;
static char stream_request[400];

/* user + system CPU seconds of a process (/proc/PID/stat) */
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
    char *p = strrchr(buf, ')');   /* the command may hold spaces */
    unsigned long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return 0;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static double self_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

struct cpu_mark {
    double api, redis, self;
};

static struct cpu_mark cpu_mark(void)
{
    return (struct cpu_mark){proc_cpu(api_pid), proc_cpu(redis_pid), self_cpu()};
}

/* "load 4.9; CPU per submission: judge-api 61 us, redis 40 us, client 30 us" */
static void cpu_report(struct cpu_mark a, long n)
{
    struct cpu_mark b = cpu_mark();
    double load[1] = {0};
    getloadavg(load, 1);
    if (n <= 0)
        n = 1;
    printf("  load average %.1f; CPU per submission: judge-api %.0f us, redis-server %.0f us, client %.0f us\n",
           load[0], (b.api - a.api) / (double)n * 1e6, (b.redis - a.redis) / (double)n * 1e6,
           (b.self - a.self) / (double)n * 1e6);
}

static double now(void)
{
    return common_monotonic();
}

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

static int connect_api(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        perror("connect");
        exit(1);
    }
    return fd;
}

/* One request/response on a keep-alive connection; the HTTP status. */
static int roundtrip(int fd)
{
    if (write(fd, request, request_len) != (ssize_t)request_len)
        return -1;
    char buf[4096];
    size_t got = 0;
    for (;;) {
        ssize_t n = read(fd, buf + got, sizeof buf - 1 - got);
        if (n <= 0)
            return -1;
        got += (size_t)n;
        buf[got] = 0;
        char *end = strstr(buf, "\r\n\r\n");
        if (!end)
            continue;
        char *cl = strcasestr(buf, "Content-Length:");
        size_t body = cl ? (size_t)atol(cl + 15) : 0;
        if (got >= (size_t)(end + 4 - buf) + body) {
            int st = atoi(buf + 9);
            static _Atomic int shown;
            if (st != 202 && !shown++)   /* what a refusal says, once */
                fprintf(stderr, "first answer not 202: %s\n", end + 4);
            return st;
        }
    }
}

struct worker {
    pthread_t t;
    double until, interval, start;   /* interval > 0: paced */
    long n, errors;
    double *lat;
    long nlat, caplat;
};

static void *work(void *p)
{
    struct worker *w = p;
    int fd = connect_api();
    for (long i = 0;; i++) {
        double sched = w->start + (double)i * w->interval;
        if (w->interval > 0) {
            if (sched >= w->until)
                break;
            double d = sched - now();
            if (d > 0) {
                struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
                while (nanosleep(&ts, &ts) && errno == EINTR)
                    ;
            }
        } else if (now() >= w->until) {
            break;
        }
        int st = roundtrip(fd);
        if (st != 202)
            w->errors++;
        w->n++;
        if (w->interval > 0 && w->nlat < w->caplat)
            w->lat[w->nlat++] = now() - sched;
    }
    close(fd);
    return NULL;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void run(int conns, double seconds, double rate)
{
    struct worker *w = calloc((size_t)conns, sizeof *w);
    double start = now() + 0.05;
    for (int i = 0; i < conns; i++) {
        w[i].until = start + seconds;
        w[i].start = start + (rate > 0 ? (double)i / rate : 0);
        w[i].interval = rate > 0 ? conns / rate : 0;
        w[i].caplat = rate > 0 ? (long)(seconds * rate / conns) + 10 : 0;
        w[i].lat = rate > 0 ? calloc((size_t)w[i].caplat, sizeof(double)) : NULL;
        pthread_create(&w[i].t, NULL, work, &w[i]);
    }
    long n = 0, errors = 0, nlat = 0;
    struct cpu_mark mark = cpu_mark();
    for (int i = 0; i < conns; i++) {
        pthread_join(w[i].t, NULL);
        n += w[i].n;
        errors += w[i].errors;
        nlat += w[i].nlat;
    }
    double el = now() - start;
    if (rate <= 0) {
        printf("closed loop, %d connections: %ld submissions in %.2f s = %.0f/s (%ld not 202)\n", conns, n,
               el, n / el, errors);
    } else {
        double *all = malloc(sizeof(double) * (size_t)(nlat + 1));
        long k = 0;
        for (int i = 0; i < conns; i++)
            for (long j = 0; j < w[i].nlat; j++)
                all[k++] = w[i].lat[j];
        qsort(all, (size_t)k, sizeof *all, cmp_d);
        printf("paced at %.0f/s, %d connections: %ld submissions, latency p50 %.2f ms, p99 %.2f ms, "
               "max %.2f ms (%ld not 202)\n", rate, conns, n, all[k / 2] * 1000,
               all[(long)(k * 0.99)] * 1000, all[k - 1] * 1000, errors);
        free(all);
    }
    cpu_report(mark, n);
    for (int i = 0; i < conns; i++)
        free(w[i].lat);
    free(w);
}

/* ------------------------------------------------------- open streams */

struct streams {
    int n, open, ep;
    pthread_t t, events;
    double rate;             /* verdict events a second (0: none) */
    const char *sock;        /* Redis's socket */
    _Atomic bool stop;
};

/* Verdict events at s->rate a second into the results stream, paced. */
static void *streams_events(void *p)
{
    struct streams *s = p;
    redisContext *c = redisConnectUnix(s->sock);
    double start = now();
    for (long i = 0; c && !c->err && !s->stop; i++) {
        double d = start + (double)i / s->rate - now();
        if (d > 0)
            common_sleep_ms((long)(d * 1000) + 1);
        redisReply *x = redisCommand(c, "XADD judge:{native}:results * id bench-%ld verdict AC score 100 "
                                        "pool native time 0", i);
        if (x)
            freeReplyObject(x);
    }
    if (c)
        redisFree(c);
    return NULL;
}

/* Reads (and drops) whatever the open streams are sent, as their clients
 * would; counts the streams that were answered. */
static void *streams_drain(void *p)
{
    struct streams *s = p;
    struct epoll_event ev[64];
    char buf[16384];
    while (!s->stop) {
        int k = epoll_wait(s->ep, ev, 64, 100);
        for (int i = 0; i < k; i++) {
            ssize_t n = read(ev[i].data.fd, buf, sizeof buf - 1);
            if (n <= 0) {
                epoll_ctl(s->ep, EPOLL_CTL_DEL, ev[i].data.fd, NULL);
                continue;
            }
            buf[n] = 0;
            if (strstr(buf, " 200 OK"))
                s->open++;
        }
    }
    return NULL;
}

static void streams_open(struct streams *s, int n)
{
    s->n = n;
    s->ep = epoll_create1(0);
    pthread_create(&s->t, NULL, streams_drain, s);
    for (int i = 0; i < n; i++) {
        int fd = connect_api();
        if (write(fd, stream_request, strlen(stream_request)) < 0)
            perror("write");
        struct epoll_event e = {.events = EPOLLIN, .data.fd = fd};
        epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &e);
    }
    for (int i = 0; i < 600 && s->open < n; i++)
        common_sleep_ms(50);
    printf("%d event streams open (of %d asked)", s->open, n);
    if (s->rate > 0) {
        pthread_create(&s->events, NULL, streams_events, s);
        printf(", %g verdict events/s reaching them", s->rate);
    }
    printf("\n");
}

/* a loopback port nobody listens on now */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t l = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || getsockname(fd, (struct sockaddr *)&a, &l))
        exit(1);
    close(fd);
    return ntohs(a.sin_port);
}

int main(int argc, char **argv)
{
    int nstreams = 0;
    double events = 0;
    if (argc > 2 && !strcmp(argv[1], "--streams")) {
        nstreams = atoi(argv[2]);
        argv += 2;
        argc -= 2;
    }
    if (nstreams && argc > 2 && !strcmp(argv[1], "--events")) {
        events = atof(argv[2]);
        argv += 2;
        argc -= 2;
    }
    double seconds = argc > 1 ? atof(argv[1]) : 5;
    int conns = argc > 2 ? atoi(argv[2]) : 4;
    const char *durability = argc > 3 ? argv[3] : NULL;
    if (argc > 1 && (!strcmp(argv[1], "--help") || seconds <= 0 || conns <= 0 ||
                     nstreams < 0 ||
                     (durability && strcmp(durability, "local") && strcmp(durability, "replicated")))) {
        printf("usage: bench_api [--streams N [--events R]] [SECONDS] [CONNECTIONS] [local|replicated]\n");
        return 0;
    }
    signal(SIGPIPE, SIG_IGN);
    struct rlimit rl = {65536, 65536};
    setrlimit(RLIMIT_NOFILE, &rl);
    if (!mkdtemp(dir))
        return 1;
    char sock[200], cfg[200], log[200], tokens[200], path[300];
    snprintf(sock, sizeof sock, "%s/redis.sock", dir);
    snprintf(log, sizeof log, "%s/redis.log", dir);
    char pport[16] = "0", rport[16], of[64], rdir[200];
    pid_t replica = 0;
    if (durability)
        snprintf(pport, sizeof pport, "%d", free_port());
    pid_t redis = spawn(log, (char *[]){"redis-server", "--port", pport, "--bind", "127.0.0.1", "--unixsocket",
                                        sock, "--save", "", "--appendonly", "no", NULL});
    if (durability) {
        snprintf(rport, sizeof rport, "%d", free_port());
        snprintf(of, sizeof of, "127.0.0.1 %s", pport);
        snprintf(rdir, sizeof rdir, "%s/replica", dir);
        common_mkdir_p(rdir, 0700);
        snprintf(log, sizeof log, "%s/replica.log", dir);
        replica = spawn(log, (char *[]){"redis-server", "--port", rport, "--bind", "127.0.0.1", "--dir", rdir,
                                        "--replicaof", of, "--save", "", "--appendonly", "no", NULL});
    }
    snprintf(path, sizeof path, "%s/problems/aplusb", dir);
    common_mkdir_p(path, 0755);
    snprintf(cfg, sizeof cfg, "%s/judged.yaml", dir);
    snprintf(tokens, sizeof tokens, "%s/tokens", dir);
    FILE *f = fopen(cfg, "w");
    fprintf(f, "redis: unix://%s\nproblems: %s/problems\nlanguages: %s/languages\nmax_source: 64K\n"
               "pools:\n  native: {languages: [c, cpp], slots: 1, max_queue: 0}\n"
               "api:\n  listen: 127.0.0.1:0\n  tokens: %s\n  max_connections: %d\n"
               "  max_connections_per_address: %d\n  max_streams_per_token: %d\n  rate: 0\n"
               "%s%s\n",
            sock, dir, JUDGED_SOURCE_DIR, tokens, 64 + nstreams, 64 + nstreams, 1 + nstreams, durability ? "admission_durability: " : "",
            durability ? durability : "");
    fclose(f);
    char cmd[4096], tok[200] = "";
    snprintf(cmd, sizeof cmd, "%s/judgectl --config %s tokens add bench --role submit", JUDGED_BIN_DIR, cfg);
    FILE *p = popen(cmd, "r");
    if (!p || !fgets(tok, sizeof tok, p))
        return 1;
    pclose(p);
    tok[strcspn(tok, "\n")] = 0;
    /* the streams follow every verdict, as a scoreboard does */
    char watch[200] = "";
    snprintf(cmd, sizeof cmd, "%s/judgectl --config %s tokens add watch --role read", JUDGED_BIN_DIR, cfg);
    p = popen(cmd, "r");
    if (!p || !fgets(watch, sizeof watch, p))
        return 1;
    pclose(p);
    watch[strcspn(watch, "\n")] = 0;
    snprintf(log, sizeof log, "%s/api.log", dir);
    char bin[300];
    snprintf(bin, sizeof bin, "%s/judge-api", JUDGED_BIN_DIR);
    common_sleep_ms(300);   /* redis-server up */
    for (int i = 0; durability && i < 100; i++) {   /* and its replica in sync: else WAIT times out */
        snprintf(cmd, sizeof cmd, "redis-cli -p %s INFO replication | grep -q master_link_status:up", rport);
        if (!system(cmd))
            break;
        common_sleep_ms(100);
    }
    pid_t api = spawn(log, (char *[]){bin, "--config", cfg, NULL});
    api_pid = api;
    redis_pid = redis;
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
    if (!port) {
        fprintf(stderr, "judge-api did not start (%s)\n", log);
        return 1;
    }
    char src[1025];
    memset(src, 'x', 1024);
    memcpy(src, "int main(void){return 0;}//", 27);
    src[1024] = 0;
    char body[2048];
    int bl = snprintf(body, sizeof body, "{\"problem\":\"aplusb\",\"language\":\"c\",\"source\":\"%s\"}", src);
    request_len = (size_t)snprintf(request, sizeof request,
                                   "POST /v1/submissions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                   "Authorization: Bearer %s\r\nContent-Type: application/json\r\n"
                                   "Content-Length: %d\r\n\r\n%s", tok, bl, body);
    printf("judge-api + redis-server%s + this client on one machine; 1 KiB sources; %g s per run; "
           "admission_durability: %s\n", durability ? " + a replica" : "", seconds,
           durability ? durability : "local (no replica)");
    snprintf(stream_request, sizeof stream_request,
             "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n\r\n", watch);
    struct streams streams = {.rate = events, .sock = sock};
    if (nstreams)
        streams_open(&streams, nstreams);
    run(conns, seconds, 0);
    run(conns, seconds, 1000);
    /* the ceiling: the admission function called directly */
    snprintf(cmd, sizeof cmd,
             "redis-benchmark -s %s -n 200000 -c %d -q FCALL judged_admit 1 'judge:{native}:q:normal' "
             "pool native lang c problem aplusb source '%s' | tr '\\r' '\\n' | grep -a 'per second' | tail -1 | sed 's/.*: //'",
             sock, conns * 2, src);
    printf("raw FCALL judged_admit (redis-benchmark, %d clients): ", conns * 2);
    fflush(stdout);
    if (system(cmd)) {
    }
    double stop = now();
    kill(api, SIGTERM);
    waitpid(api, NULL, 0);
    if (nstreams) {
        printf("judge-api stopped %.2f s after SIGTERM with %d event streams open\n", now() - stop, streams.open);
        streams.stop = true;
        pthread_join(streams.t, NULL);
        if (streams.rate > 0)
            pthread_join(streams.events, NULL);
    }
    kill(redis, SIGTERM);
    waitpid(redis, NULL, 0);
    if (replica) {
        kill(replica, SIGTERM);
        waitpid(replica, NULL, 0);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {
    }
    return 0;
}
