/* harness.h - integration test helpers: a private redis-server on a unix
 * socket under a temp dir, judged hosts and judgectl runs as real processes,
 * problem packages made for the test. Every process a test starts is
 * recorded and killed (by pid) in the test's fini. */
#ifndef JUDGED_TEST_HARNESS_H
#define JUDGED_TEST_HARNESS_H

#include <criterion/criterion.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BIN JUDGED_BIN_DIR
#define SRC JUDGED_SOURCE_DIR

static char T_dir[256];
static char T_sock[320];
static pid_t T_redis;
static const char *T_redis_pass;   /* the test redis' requirepass (NULL: none) */
static pid_t T_pids[16];
static int T_npids;

static long long t_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void t_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR)
        ;
}

static void t_write(const char *path, const char *fmt, ...)
{
    FILE *f = fopen(path, "w");
    cr_assert(f, "cannot write %s", path);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
}

/* fork() for a process that must die with the test: a test that crashes
 * or times out never runs its teardown, and a judged left running would
 * hold its sandbox slots against every later test. */
static pid_t t_fork(void)
{
    pid_t test = getpid(), pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != test)
            _exit(127);   /* it died before the line above */
    }
    return pid;
}

static void t_track(pid_t pid)
{
    if (T_npids < 16)
        T_pids[T_npids++] = pid;
}

static void t_untrack(pid_t pid)
{
    for (int i = 0; i < T_npids; i++)
        if (T_pids[i] == pid)
            T_pids[i] = 0;
}

/* A busy machine can make a connect fail now and then: retry for 3 s. */
static redisContext *t_redis(void)
{
    struct timeval tv = {2, 0};
    redisContext *c = NULL;
    for (int i = 0; i < 30; i++) {
        c = redisConnectUnixWithTimeout(T_sock, tv);
        if (c && !c->err)
            return c;
        if (c)
            redisFree(c);
        c = NULL;
        t_sleep_ms(100);
    }
    cr_assert_fail("cannot connect to the test redis at %s", T_sock);
    return NULL;
}

/* Does the test redis answer (authenticated with T_redis_pass, if any)? */
static bool t_ping(void)
{
    struct timeval tv = {0, 200000};
    redisContext *c = redisConnectUnixWithTimeout(T_sock, tv);
    bool ok = false;
    if (c && !c->err) {
        redisReply *r = T_redis_pass ? redisCommand(c, "AUTH %s", T_redis_pass) : NULL;
        ok = !T_redis_pass || (r && r->type == REDIS_REPLY_STATUS);
        if (r)
            freeReplyObject(r);
        r = ok ? redisCommand(c, "PING") : NULL;
        ok = r && r->type == REDIS_REPLY_STATUS;
        if (r)
            freeReplyObject(r);
    }
    if (c)
        redisFree(c);
    return ok;
}

/* redis-server on T_sock, with `requirepass` when requirepass is not NULL
 * (a client must AUTH first; test_redis_auth then adds ACL users). */
static void t_start_redis_with(const char *requirepass)
{
    char log[300];
    snprintf(log, sizeof log, "%s/redis.log", T_dir);
    const char *argv[24] = {"redis-server", "--port", "0", "--unixsocket", T_sock, "--dir", T_dir,
                            "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
                            "--maxmemory-policy", "noeviction"};
    int n = 15;
    if (requirepass) {
        argv[n++] = "--requirepass";
        argv[n++] = requirepass;
    }
    argv[n] = NULL;
    T_redis_pass = requirepass;
    pid_t pid = t_fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execvp("redis-server", (char **)argv);
        _exit(127);
    }
    T_redis = pid;
    t_track(pid);
    for (int i = 0; i < 200 && !t_ping(); i++)
        t_sleep_ms(30);
    cr_assert(t_ping(), "redis-server did not start (see %s)", log);
}

static void t_start_redis(void)
{
    t_start_redis_with(NULL);
}

static void t_kill_redis(int sig)
{
    kill(T_redis, sig);
    waitpid(T_redis, NULL, 0);
    t_untrack(T_redis);
    T_redis = 0;
}

/* A problem "slow": N tests of A+B whose solution (t_slow_source) sleeps. */
static void t_make_problems(int slow_tests)
{
    char p[400];
    snprintf(p, sizeof p, "%s/problems", T_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/problems/aplusb", T_dir);
    cr_assert(symlink(SRC "/testdata/aplusb", p) == 0);
    snprintf(p, sizeof p, "%s/problems/slow", T_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/problems/slow/problem.yaml", T_dir);
    t_write(p, "name: slow\ntitle: Slow A plus B\ntime_limit: 3s\nmemory_limit: 256M\nchecker: tokens\n");
    snprintf(p, sizeof p, "%s/problems/slow/tests", T_dir);
    mkdir(p, 0755);
    for (int i = 1; i <= slow_tests; i++) {
        snprintf(p, sizeof p, "%s/problems/slow/tests/%d.in", T_dir, i);
        t_write(p, "%d %d\n", i, 2 * i);
        snprintf(p, sizeof p, "%s/problems/slow/tests/%d.out", T_dir, i);
        t_write(p, "%d\n", 3 * i);
    }
    snprintf(p, sizeof p, "%s/slow.c", T_dir);
    t_write(p, "#include <stdio.h>\n#include <time.h>\nint main(void){long long a,b;\n"
               "if(scanf(\"%%lld %%lld\",&a,&b)!=2)return 1;\n"
               "struct timespec ts={0,300000000};nanosleep(&ts,0);\n"
               "printf(\"%%lld\\n\",a+b);return 0;}\n");
}

/* The test's temp dir (T_dir; T_sock in it), no process yet. */
/* One test process per suite's slots on this machine: every test of a
 * suite names fixed sandbox slots (its SLOT0..), and two runs of the suite
 * at once (two build trees, CI beside a developer) made one judged refuse
 * the other's slots and the test time out. The lock is the suite's file
 * name in a root-only directory, held until the test process ends
 * (criterion forks one per test); suites have disjoint slots, so they
 * still run side by side. */
static void t_lock_suite(void)
{
    static pid_t holder;   /* once per process: a second flock would wait on the first */
    if (holder == getpid())
        return;
    holder = getpid();
    const char *base = strrchr(__BASE_FILE__, '/');
    char path[200];
    mkdir("/run/judged-tests", 0700);
    snprintf(path, sizeof path, "/run/judged-tests/suite-%s.lock", base ? base + 1 : __BASE_FILE__);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
    while (flock(fd, LOCK_EX) && errno == EINTR)
        ;   /* fd stays open: the lock lives with the test process */
}

/* the first MiB of the file at path ("" when there is none; caller frees) */
__attribute__((unused)) static char *t_read_log(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    char *buf = calloc(1, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* the whole log of judged host NAME (caller frees) */
__attribute__((unused)) static char *t_judged_log(const char *name)
{
    char path[400];
    snprintf(path, sizeof path, "%s/judged-%s.log", T_dir, name);
    return t_read_log(path);
}

/* The port judge-api, started with its output in the log at path, says it
 * listens on, once it says so; 0 when it has not within 30 s (the caller
 * asserts, naming the log). */
__attribute__((unused)) static int t_api_port(const char *log)
{
    int port = 0;
    for (long long end = t_now_ms() + 30000; t_now_ms() < end && !port; t_sleep_ms(20)) {
        char *text = t_read_log(log);
        const char *p = strstr(text, "listening on port ");
        if (p)
            port = atoi(p + 18);
        free(text);
    }
    return port;
}

/* GET path from 127.0.0.1:port over HTTP/1.0 (the server closes after
 * the answer); the status (-1: no answer) and the body in body. */
__attribute__((unused)) static int t_http_get(int port, const char *path, char *body, size_t len)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {30, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        close(fd);
        return -1;
    }
    char req[512];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
    if (write(fd, req, (size_t)n) != n) {
        close(fd);
        return -1;
    }
    static char resp[1 << 20];
    size_t got = 0;
    ssize_t r;
    while (got + 1 < sizeof resp && (r = read(fd, resp + got, sizeof resp - 1 - got)) > 0)
        got += (size_t)r;
    resp[got] = '\0';
    close(fd);
    int status = -1;
    if (sscanf(resp, "HTTP/1.%*d %d", &status) != 1)
        return -1;
    const char *b = strstr(resp, "\r\n\r\n");
    snprintf(body, len, "%s", b ? b + 4 : "");
    return status;
}

/* the port judged NAME's log says its metrics server listens on (-1: none yet) */
__attribute__((unused)) static int t_metrics_port(const char *name)
{
    char *log = t_judged_log(name);
    const char *p = strstr(log, "metrics: GET /metrics on ");
    int port = -1;
    if (p && (p = strstr(p, "(port ")))
        port = atoi(p + 6);
    free(log);
    return port;
}

/* A TCP port on 127.0.0.1 that nothing listens on, below the kernel's
 * ephemeral range: a port bind(0) picks lies in that range, where every
 * outgoing connection on the machine also takes its port, so on a busy
 * machine a client could hold it by the time a server binds it (the
 * failover test's Sentinels then never saw each other). */
__attribute__((unused)) static int t_free_port(void)
{
    int lo = 32768;
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f) {
        if (fscanf(f, "%d", &lo) != 1)
            lo = 32768;
        fclose(f);
    }
    static unsigned seed;   /* once per process: two calls in one ms must differ */
    if (!seed)
        seed = (unsigned)getpid() * 2654435761u ^ (unsigned)t_now_ms();
    for (int i = 0; i < 1000 && lo > 20001; i++) {
        int port = 20000 + (int)(rand_r(&seed) % (unsigned)(lo - 20000));
        static int given[64], ngiven;   /* not bound yet by whoever asked: not free twice */
        bool again = false;
        for (int g = 0; g < ngiven; g++)
            again |= given[g] == port;
        if (again)
            continue;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
        if (fd >= 0)
            close(fd);
        if (ok && ngiven < 64)
            given[ngiven++] = port;
        if (ok)
            return port;
    }
    cr_assert_fail("no free TCP port below %d", lo);
    return -1;
}

/* One command to the redis-server on 127.0.0.1:port (a cluster node);
 * NULL if it does not answer. Caller frees. */
__attribute__((unused)) static redisReply *t_node(int port, const char *fmt, ...)
{
    struct timeval tv = {2, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
    redisReply *r = NULL;
    if (c && !c->err) {
        redisSetTimeout(c, tv);
        va_list ap;
        va_start(ap, fmt);
        r = redisvCommand(c, fmt, ap);
        va_end(ap);
    }
    if (c)
        redisFree(c);
    return r;
}

/* Does node port's CLUSTER INFO say cluster_state:ok? */
__attribute__((unused)) static bool t_cluster_ok(int port)
{
    redisReply *r = t_node(port, "CLUSTER INFO");
    bool ok = r && r->type == REDIS_REPLY_STRING && strstr(r->str, "cluster_state:ok");
    if (r)
        freeReplyObject(r);
    return ok;
}

/* redis-server in cluster mode on 127.0.0.1:port, its files in
 * T_dir/node-PORT (nodes.conf kept: started again, it rejoins as what the
 * cluster made it). A replica may always be promoted
 * (cluster-replica-validity-factor 0): one that had not finished its first
 * sync when its primary died would otherwise never be. Returns once it
 * answers PING. */
__attribute__((unused)) static pid_t t_cluster_node(int port)
{
    char dir[400], port_s[16], log[420];
    snprintf(dir, sizeof dir, "%s/node-%d", T_dir, port);
    snprintf(log, sizeof log, "%s/node-%d.log", T_dir, port);
    snprintf(port_s, sizeof port_s, "%d", port);
    mkdir(dir, 0700);
    pid_t pid = t_fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        dup2(fd, 1);
        dup2(fd, 2);
        execlp("redis-server", "redis-server", "--port", port_s, "--bind", "127.0.0.1", "--dir", dir,
               "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
               "--cluster-node-timeout", "2000", "--cluster-replica-validity-factor", "0",
               "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
               "--maxmemory-policy", "noeviction", (char *)NULL);
        _exit(127);
    }
    t_track(pid);
    long long t0 = t_now_ms();
    redisReply *r = NULL;
    /* a new node fsyncs nodes.conf and its AOF: on a machine busy with
     * other suites' disks that took over 10 s */
    while (!(r = t_node(port, "PING")) && t_now_ms() < t0 + 90000)
        t_sleep_ms(20);
    if (!r) {
        char *text = t_read_log(log);
        size_t len = strlen(text);
        cr_assert_fail("cluster node %d did not start: %s", port, len > 600 ? text + len - 600 : text);
    }
    freeReplyObject(r);
    return pid;
}

/* A Redis Cluster of n nodes (t_cluster_node, on free ports), made with
 * `redis-cli --cluster create` with `replicas` replicas per primary.
 * Returns once every node says cluster_state:ok. ports[] gets the ports,
 * pids[] the pids. */
__attribute__((unused)) static void t_start_cluster(int n, int replicas, int *ports, pid_t *pids)
{
    char create[2048];
    int o = snprintf(create, sizeof create, "redis-cli --cluster create");
    for (int i = 0; i < n; i++) {
        /* the cluster bus listens on PORT + 10000: below the ephemeral
         * range too (t_free_port says why) */
        int lo = 32768;
        FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
        if (f && fscanf(f, "%d", &lo) != 1)
            lo = 32768;
        if (f)
            fclose(f);
        do
            ports[i] = t_free_port();
        while (ports[i] + 10000 >= lo);
        pids[i] = t_cluster_node(ports[i]);
        o += snprintf(create + o, sizeof create - (size_t)o, " 127.0.0.1:%d", ports[i]);
    }
    snprintf(create + o, sizeof create - (size_t)o, " --cluster-replicas %d --cluster-yes > %s/create.log 2>&1",
             replicas, T_dir);
    cr_assert_eq(system(create), 0, "redis-cli --cluster create failed (see %s/create.log)", T_dir);
    long long t0 = t_now_ms();
    for (int i = 0; i < n; i++)
        while (!t_cluster_ok(ports[i])) {
            cr_assert(t_now_ms() < t0 + 60000, "node %d never saw cluster_state:ok", ports[i]);
            t_sleep_ms(50);
        }
    /* and every primary's replicas in sync: a replicated admission
     * (WAIT 1) is acknowledged from the first one on */
    for (int i = 0; i < n; i++)
        for (;;) {
            redisReply *r = t_node(ports[i], "INFO replication");
            int online = 0;
            bool primary = r && r->type == REDIS_REPLY_STRING && strstr(r->str, "role:master");
            for (const char *p = r && r->type == REDIS_REPLY_STRING ? r->str : ""; (p = strstr(p, "state=online"));
                 p++)
                online++;
            if (r)
                freeReplyObject(r);
            if (!primary || online >= replicas)
                break;
            cr_assert(t_now_ms() < t0 + 60000, "primary %d: its replicas never got in sync", ports[i]);
            t_sleep_ms(50);
        }
}

static void t_setup_dir(void)
{
    t_lock_suite();
    snprintf(T_dir, sizeof T_dir, "/tmp/judged-test-XXXXXX");
    cr_assert(mkdtemp(T_dir));
    snprintf(T_sock, sizeof T_sock, "%s/redis.sock", T_dir);
    T_npids = 0;
}

/* Sets up the temp dir, redis and problems. */
static void t_setup(int slow_tests)
{
    t_setup_dir();
    t_start_redis();
    t_make_problems(slow_tests);
}

static void t_teardown(void)
{
    for (int i = 0; i < T_npids; i++)
        if (T_pids[i] > 0) {
            kill(T_pids[i], SIGKILL);
            waitpid(T_pids[i], NULL, 0);
        }
    T_npids = 0;
    /* an embedded redis-server outlives a SIGKILLed judged on purpose */
    char pidfile[400];
    snprintf(pidfile, sizeof pidfile, "%s/emb/redis/redis.pid", T_dir);
    FILE *pf = fopen(pidfile, "r");
    int rpid = 0;
    if (pf && fscanf(pf, "%d", &rpid) == 1 && rpid > 0)
        kill(rpid, SIGKILL);
    if (pf)
        fclose(pf);
    if (T_dir[0] && !getenv("JUDGED_TEST_KEEP")) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", T_dir);
        if (system(cmd)) {
        }
    }
}

/* Writes the config of host NAME; POOLS is the yaml of the pools mapping.
 * EXTRA (top-level keys) may set any of the test defaults below again: a
 * default EXTRA gives is left out, since judged refuses a key given twice. */
static void t_config(const char *name, int first_slot, const char *extra, const char *pools,
                     char *path, size_t len)
{
    static const char *const defaults[][2] = {
        {"lease", "2s"}, {"heartbeat", "500ms"}, {"retry_backoff", "200ms"}, {"grace", "10s"},
        /* no precompiled header or JVM archive to build on a host's first C++
         * or Java compile (6-15 s here): these suites test the queue, and
         * tests/runner/test_prepared.c tests prepared files */
        {"prepare", "false"},
        /* the suites run more boxes than this machine's 2 cores (issue 37:
         * refused otherwise); tests/judged/test_ctl.c checks the refusal */
        {"oversubscribe", "true"},
    };
    char def[256] = "", key[64];
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        snprintf(key, sizeof key, "%s:", defaults[i][0]);
        const char *at = extra ? strstr(extra, key) : NULL;
        if (at && (at == extra || at[-1] == '\n'))
            continue;
        size_t n = strlen(def);
        snprintf(def + n, sizeof def - n, "%s: %s\n", defaults[i][0], defaults[i][1]);
    }
    snprintf(path, len, "%s/%s.yaml", T_dir, name);
    t_write(path,
            "redis: unix://%s\nstate_dir: %s/state-%s\nproblems: %s/problems\n"
            "languages: %s/languages\nhost: %s\nfirst_slot: %d\n%s"
            "%s"
            "pools:\n%s",
            T_sock, T_dir, name, T_dir, SRC, name, first_slot, def, extra ? extra : "", pools);
}

#define POOLS_DEFAULT \
    "  native: {languages: [c, cpp], slots: 2}\n" \
    "  python: {languages: [python3], slots: 1}\n" \
    "  java: {languages: [java], slots: 1}\n"

static pid_t t_judged(const char *config, const char *name)
{
    char log[400];
    snprintf(log, sizeof log, "%s/judged-%s.log", T_dir, name);
    pid_t pid = t_fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(BIN "/judged", "judged", "--config", config, (char *)NULL);
        _exit(127);
    }
    t_track(pid);
    return pid;
}

/* Waits up to ms until host NAME's log says it has started (its signal
 * handling is in place from then on); false on timeout. */
static void t_dump_logs(void);

/* false (after printing the logs: why did it not start?) if judged NAME did
 * not log its start within ms */
static bool t_judged_started(const char *name, long ms)
{
    char log[400], buf[8192];
    snprintf(log, sizeof log, "%s/judged-%s.log", T_dir, name);
    for (long long end = t_now_ms() + ms; t_now_ms() < end; t_sleep_ms(20)) {
        FILE *f = fopen(log, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        if (strstr(buf, "started (pid"))
            return true;
    }
    t_dump_logs();
    return false;
}

/* Copies the last lines of every judged log of this test to stderr: a
 * failure on a CI machine can then be read without the test's directory. */
static void t_dump_logs(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd,
             "for f in '%s'/judged-*.log; do [ -f \"$f\" ] && { echo \"== $f\"; tail -n 40 \"$f\"; }; done >&2",
             T_dir);
    if (system(cmd)) {
    }
}

/* Sends sig and waits up to ms for the exit; returns the wait status or -1
 * (and shows the judged logs, since the test is about to fail). */
static int t_stop(pid_t pid, int sig, long ms)
{
    kill(pid, sig);
    long long end = t_now_ms() + ms;
    int st;
    while (t_now_ms() < end) {
        if (waitpid(pid, &st, WNOHANG) == pid) {
            t_untrack(pid);
            return st;
        }
        t_sleep_ms(20);
    }
    fprintf(stderr, "pid %d did not exit within %ld ms of signal %d\n", (int)pid, ms, sig);
    t_dump_logs();
    return -1;
}

/* Processes still running judged's own code for config (its pid gone): the
 * sandbox's keepers and namespace holders are copies of judged without exec,
 * so they carry its command line "judged --config CONFIG". */
__attribute__((unused)) static int t_leftovers(const char *config)
{
    char want[600];
    int wantlen = snprintf(want, sizeof want, "judged%c--config%c%s", 0, 0, config) + 1;
    int n = 0;
    DIR *d = opendir("/proc");
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], buf[600];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof buf);
        if (fd >= 0)
            close(fd);
        char state[600] = "";
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            ssize_t sl = read(fd, state, sizeof state - 1);
            state[sl > 0 ? sl : 0] = 0;
            close(fd);
        }
        const char *st = strrchr(state, ')');   /* a zombie has gone already */
        if (len >= wantlen && !memcmp(buf, want, (size_t)wantlen) && !(st && st[2] == 'Z'))
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* How t_run starts its program; {0} (or NULL): stdin and stderr inherited,
 * the environment as it is. */
struct t_run_opts {
    const char *in;          /* stdin from this file */
    bool err_to_out;         /* stderr into out too */
    bool err_null;           /* stderr to /dev/null */
    const char *env[4];      /* "NAME=value" set, "NAME" unset, in the child */
};

/* Runs PROG (a path, or a name looked up in $PATH) with argv; its stdout
 * (all of it is read; out, if not NULL, keeps what fits) into out. Returns
 * the exit status (128: killed by a signal). */
static int t_run(char *out, size_t outlen, const struct t_run_opts *o, const char *prog, const char *const *argv)
{
    static const struct t_run_opts none = {0};
    if (!o)
        o = &none;
    int pfd[2];
    cr_assert(pipe(pfd) == 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        if (o->in) {
            int fd = open(o->in, O_RDONLY);
            dup2(fd, 0);
        }
        dup2(pfd[1], 1);
        if (o->err_to_out)
            dup2(pfd[1], 2);
        else if (o->err_null)
            dup2(open("/dev/null", O_WRONLY), 2);
        close(pfd[0]);
        close(pfd[1]);
        for (size_t i = 0; i < sizeof o->env / sizeof o->env[0] && o->env[i]; i++)
            if (strchr(o->env[i], '='))
                putenv((char *)o->env[i]);
            else
                unsetenv(o->env[i]);
        execvp(prog, (char **)argv);
        _exit(127);
    }
    close(pfd[1]);
    size_t got = 0;
    char buf[4096];
    ssize_t r;
    while ((r = read(pfd[0], buf, sizeof buf)) > 0) {
        if (out && got + 1 < outlen) {
            size_t k = (size_t)r < outlen - 1 - got ? (size_t)r : outlen - 1 - got;
            memcpy(out + got, buf, k);
            got += k;
        }
    }
    close(pfd[0]);
    if (out)
        out[got] = 0;
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Runs judgectl with exactly the NULL-terminated args (nothing added). */
static int t_ctlv(char *out, size_t outlen, const struct t_run_opts *o, const char *const *args)
{
    const char *argv[40];
    int n = 0;
    argv[n++] = "judgectl";
    for (; *args && n < 39; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    return t_run(out, outlen, o, BIN "/judgectl", argv);
}

/* Runs judgectl --config CONFIG with the NULL-terminated args; stdout into out. */
static int t_ctl(char *out, size_t outlen, const char *config, ...)
{
    const char *args[32];
    int n = 0;
    args[n++] = "--config";
    args[n++] = config;
    va_list ap;
    va_start(ap, config);
    const char *a;
    while ((a = va_arg(ap, const char *)) && n < 31)
        args[n++] = a;
    va_end(ap);
    args[n] = NULL;
    return t_ctlv(out, outlen, NULL, args);
}

/* submit; returns the id (static buffer per call site is the caller's) */
static int t_submit(const char *config, const char *problem, const char *lang, const char *src,
                    const char *key, const char *priority, char *id, size_t idlen)
{
    char out[512];
    int rc;
    if (key)
        rc = t_ctl(out, sizeof out, config, "submit", "--problem", problem, "--lang", lang, "--key",
                   key, "--priority", priority ? priority : "normal", src, NULL);
    else
        rc = t_ctl(out, sizeof out, config, "submit", "--problem", problem, "--lang", lang,
                   "--priority", priority ? priority : "normal", src, NULL);
    char *nl = strchr(out, '\n');
    if (nl)
        *nl = 0;
    size_t n = strlen(out) < idlen - 1 ? strlen(out) : idlen - 1;
    memcpy(id, out, n);
    id[n] = 0;
    return rc;
}

/* A field of a submission: its result's (verdict, score, report, finished,
 * dead, rejudge, previous_*) from judge:{P}:res:ID, where judged keeps
 * them (issue 25), the rest from its hash judge:{P}:sub:ID. */
static char *t_hget(const char *id, const char *field)
{
    static const char *const res[] = {"verdict", "score", "report", "finished", "dead",
                                      "rejudge", "previous_verdict", "previous_score"};
    const char *kind = "sub";
    for (size_t i = 0; i < sizeof res / sizeof res[0]; i++)
        if (!strcmp(field, res[i]))
            kind = "res";
    char pool[64];
    const char *d = strchr(id, '-');
    cr_assert(d);
    snprintf(pool, sizeof pool, "%.*s", (int)(d - id), id);
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "HGET judge:{%s}:%s:%s %s", pool, kind, id, field);
    char *v = r && r->type == REDIS_REPLY_STRING ? strdup(r->str) : NULL;
    if (r)
        freeReplyObject(r);
    redisFree(c);
    return v;
}

/* done: its result has a verdict (the submission hash's own state says
 * done too, but judged decides by the result) */
static bool t_state_is(const char *id, const char *state)
{
    char *s = t_hget(id, "state"), *v = t_hget(id, "verdict");
    bool ok = !strcmp(state, "done") ? s && v : s && !v && !strcmp(s, state);
    free(s);
    free(v);
    return ok;
}

static bool t_wait_state(const char *id, const char *state, long ms)
{
    long long end = t_now_ms() + ms;
    while (t_now_ms() < end) {
        if (t_state_is(id, state))
            return true;
        t_sleep_ms(50);
    }
    if (t_state_is(id, state))
        return true;
    fprintf(stderr, "%s did not reach state %s within %ld ms\n", id, state, ms);
    t_dump_logs();
    return false;
}

/* How many result events of pool mention id (all ids if id is NULL). */
static int t_events(const char *pool, const char *id)
{
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "XRANGE judge:{%s}:results - +", pool);
    int n = 0;
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        redisReply *f = r->element[i]->element[1];
        for (size_t j = 0; j + 1 < f->elements; j += 2)
            if (!strcmp(f->element[j]->str, "id") && (!id || !strcmp(f->element[j + 1]->str, id)))
                n++;
    }
    if (r)
        freeReplyObject(r);
    redisFree(c);
    return n;
}

static long long t_int(const char *fmt, ...)
{
    redisContext *c = t_redis();
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    long long v = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
    if (r)
        freeReplyObject(r);
    redisFree(c);
    return v;
}

/* What the problem store keeps, by key: blobs some version references
 * (pinned by the push that committed it, or store.lua version 4's refs:
 * should never expire), blobs none does (should: a refused upload, a push
 * that died), and staging keys of pushes in flight (judge:part:{judge:blob:SHA}:T). */
struct t_blobs {
    int referenced, referenced_expiring;
    int unreferenced, unreferenced_expiring;
    int parts;
    long long max_ttl;   /* seconds, over the expiring ones */
};

__attribute__((unused)) static struct t_blobs t_blob_census(void)
{
    struct t_blobs b = {0};
    redisContext *c = t_redis();
    redisReply *keys = redisCommand(c, "KEYS judge:*blob:*");
    for (size_t i = 0; keys && i < keys->elements; i++) {
        const char *k = keys->element[i]->str;
        if (strstr(k, ":part:")) {
            b.parts++;
            continue;
        }
        redisReply *refs = redisCommand(c, "HMGET %s refs pins", k);
        redisReply *ttl = redisCommand(c, "TTL %s", k);
        bool referenced = false;
        for (size_t j = 0; j < refs->elements; j++)
            referenced |= refs->element[j]->type == REDIS_REPLY_STRING && atoll(refs->element[j]->str) > 0;
        bool expiring = ttl->integer > 0;
        if (expiring && ttl->integer > b.max_ttl)
            b.max_ttl = ttl->integer;
        if (referenced) {
            b.referenced++;
            b.referenced_expiring += expiring;
        } else {
            b.unreferenced++;
            b.unreferenced_expiring += expiring;
        }
        freeReplyObject(refs);
        freeReplyObject(ttl);
    }
    if (keys)
        freeReplyObject(keys);
    redisFree(c);
    return b;
}

#endif
