/* bench_fleet - a fleet of judged hosts against one Redis (issue 13, "A
 * fleet, simulated").
 *
 * Starts HOSTS judged-noop processes (the real daemon linked with the
 * instant-AC runner of noop_runner.c), each with its own host name, state
 * directory and sandbox slots (first_slot apart; the no-op runner opens no
 * sandbox), all serving one pool on one private redis-server, and measures:
 *
 *  1. throughput: ROUNDS times, JOBS submissions are admitted while the
 *     pool is paused, then the pool is resumed and drained by the fleet:
 *     dispatched jobs/s (first to last results entry), Redis CPU per job
 *     (INFO cpu, used_cpu_user + used_cpu_sys), Redis commands per job
 *     (INFO commandstats, commands run inside functions included) and, at
 *     the end, the hosts' own count of Redis round trips per job (heartbeats
 *     and idle waits included). The median round is reported.
 *  2. leases: a fresh fleet holds one job per slot (a "hold-while:FILE"
 *     source keeps the no-op runner busy while FILE exists): the Redis
 *     commands and CPU that heartbeats cost per held job, over 3 heartbeats.
 *  3. failover: KILL hosts are SIGKILLed at once, the file is removed (the
 *     other hosts' jobs end), and the time from the kill to the moment the
 *     last job the killed hosts held is finished by another host is
 *     measured with Redis' clock (floor: lease + 2 s), with the reclaim
 *     traffic it took.
 *
 * A Redis-only benchmark: it needs no root and no sandbox, but it loads the
 * machine's cores (the hosts and Redis share them; say so with the figures).
 *
 *  4. --cluster (issue 41; instead of 2 and 3): the throughput of 1 on a
 *     Redis Cluster of 1, 2 and 3 primaries started here (no replicas; one
 *     pool per primary, the hosts spread over the pools): jobs/s and each
 *     node's Redis CPU per job of its pool, as ratios to one primary. On a
 *     host with few cores the nodes and the hosts share them: the CPU per
 *     job per node is the figure, not the jobs/s.
 *
 * usage: bench_fleet [--hosts N] [--slots S] [--jobs N] [--rounds R] [--kill K]
 *                    [--lease SEC] [--heartbeat SEC] [--cluster]
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include "bench_common.h"

#define MAXHOSTS 500
#define POOLKEY "judge:{native}:q:normal"

struct opts {
    int hosts, slots, jobs, rounds, kill;
    double lease, heartbeat;
    bool cluster;   /* --cluster: the single-Redis throughput, then 1, 2, 3 primaries */
};

static pid_t hostpid[MAXHOSTS];
static double hosts_cpu;   /* CPU seconds of the hosts stop_fleet waited for */

/* ------------------------------------------------------------ Redis INFO */

static double info_num(struct queue_conn *k, const char *section, const char *name)
{
    redisReply *r = queue_cmd(k, "INFO %s", section);
    double v = 0;
    char pat[128];
    snprintf(pat, sizeof pat, "\n%s:", name);
    const char *p = r && r->type == REDIS_REPLY_STRING ? strstr(r->str, pat) : NULL;
    if (p)
        v = atof(p + strlen(pat));
    if (r)
        freeReplyObject(r);
    return v;
}

static double redis_cpu(struct queue_conn *k)
{
    return info_num(k, "cpu", "used_cpu_user") + info_num(k, "cpu", "used_cpu_sys");
}

/* INFO commandstats as (name, calls, usec) rows */
struct cstats {
    int n;
    char name[96][40];
    double calls[96], usec[96];
};

static void cstats_read(struct queue_conn *k, struct cstats *s)
{
    s->n = 0;
    redisReply *r = queue_cmd(k, "INFO commandstats");
    if (!r || r->type != REDIS_REPLY_STRING)
        b_die("INFO commandstats");
    for (char *p = strstr(r->str, "cmdstat_"); p && s->n < 96; p = strstr(p + 1, "cmdstat_")) {
        char name[40];
        double calls, usec;
        if (sscanf(p, "cmdstat_%39[^:]:calls=%lf,usec=%lf", name, &calls, &usec) == 3) {
            snprintf(s->name[s->n], sizeof s->name[s->n], "%s", name);
            s->calls[s->n] = calls;
            s->usec[s->n++] = usec;
        }
    }
    freeReplyObject(r);
}

static double cstats_get(const struct cstats *s, const char *name, bool usec)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->name[i], name))
            return usec ? s->usec[i] : s->calls[i];
    return 0;
}

/* Prints the commands that moved between a and b, per `per` units. */
static void cstats_print(const struct cstats *a, const struct cstats *b, double per, const char *unit)
{
    double total = 0;
    for (int i = 0; i < b->n; i++) {
        if (!strcmp(b->name[i], "info"))
            continue;
        double c = b->calls[i] - cstats_get(a, b->name[i], false);
        double u = b->usec[i] - cstats_get(a, b->name[i], true);
        if (c <= 0)
            continue;
        if (strcmp(b->name[i], "fcall"))
            total += c;
        printf("    %-16s %8.3f calls, %7.2f us per %s\n", b->name[i], c / per, u / per, unit);
    }
    printf("    (%.2f commands run inside the functions or sent directly, per %s; fcall's\n"
           "     time includes the commands it runs)\n", total / per, unit);
}

static double cstats_calls(const struct cstats *a, const struct cstats *b, const char *name)
{
    return cstats_get(b, name, false) - cstats_get(a, name, false);
}

/* ---------------------------------------------------------------- helpers */

static double secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long long redis_ms(struct queue_conn *k)
{
    redisReply *r = queue_cmd(k, "TIME");
    long long ms = atoll(r->element[0]->str) * 1000 + atoll(r->element[1]->str) / 1000;
    freeReplyObject(r);
    return ms;
}

static void set_state(struct queue_conn *k, const char *state)
{
    redisReply *r = queue_cmd(k, "FCALL judged_set_state 1 " POOLKEY " pool native state %s", state);
    if (!r || r->type == REDIS_REPLY_ERROR)
        b_die(r ? r->str : "set_state");
    freeReplyObject(r);
}

/* n admissions in pipelined batches (max_queue 0: no backlog limit) */
static void admit_many(struct queue_conn *k, int n, const char *src)
{
    for (int done = 0; done < n;) {
        int batch = n - done < 1000 ? n - done : 1000;
        for (int i = 0; i < batch; i++)
            redisAppendCommand(k->c, "FCALL judged_admit 1 " POOLKEY " pool native lang c problem bench "
                                     "source %s max_queue 0 version %s", src, "");
        for (int i = 0; i < batch; i++) {
            redisReply *r;
            if (redisGetReply(k->c, (void **)&r) != REDIS_OK)
                b_die("admission: connection lost");
            if (r->type == REDIS_REPLY_ERROR)
                b_die(r->str);
            freeReplyObject(r);
        }
        done += batch;
    }
}

static void write_configs(const struct opts *o)
{
    for (int i = 0; i < o->hosts; i++) {
        char path[400];
        snprintf(path, sizeof path, "%s/h%03d.yaml", B_dir, i);
        FILE *f = fopen(path, "w");
        if (!f)
            b_die("cannot write a host config");
        fprintf(f, "redis: %s\nstate_dir: %s/h%03d\nproblems: %s\nlanguages: %s\nhost: fleet-%03d\n"
                   "lease: %gs\nheartbeat: %gs\nfirst_slot: %d\npools:\n"
                   "  native: {languages: [c], slots: %d, max_queue: 0}\n",
                B_url, B_dir, i, B_dir, JUDGED_LANG_DIR, i, o->lease, o->heartbeat,
                i * 2 * o->slots, o->slots);
        fclose(f);
    }
}

static void start_fleet(struct queue_conn *k, const struct opts *o)
{
    freeReplyObject(queue_cmd(k, "DEL judge:hosts"));
    for (int i = 0; i < o->hosts; i++) {
        char cfg[400], log[400];
        snprintf(cfg, sizeof cfg, "%s/h%03d.yaml", B_dir, i);
        snprintf(log, sizeof log, "%s/h%03d.log", B_dir, i);
        hostpid[i] = b_judged(JUDGED_BIN_DIR "/judged-noop", cfg, log);
    }
    /* every host registered (its first heartbeat) */
    double t0 = secs();
    while (b_int(k, "HLEN %s", "judge:hosts") < o->hosts) {
        if (secs() - t0 > 60)
            b_die("the hosts did not all register within 60 s (see their logs)");
        jd_sleep_ms(50);
    }
}

/* SIGTERM to the live hosts; returns the round trips they counted */
static unsigned long stop_fleet(const struct opts *o)
{
    for (int i = 0; i < o->hosts; i++)
        if (hostpid[i] > 0)
            kill(hostpid[i], SIGTERM);
    unsigned long rtt = 0;
    for (int i = 0; i < o->hosts; i++) {
        if (hostpid[i] <= 0)
            continue;
        char log[400];
        snprintf(log, sizeof log, "%s/h%03d.log", B_dir, i);
        unsigned long this;
        hosts_cpu += b_reap(hostpid[i], log, &this);
        hostpid[i] = 0;
        rtt += this;
    }
    return rtt;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------- phase 1 */

static void throughput(struct queue_conn *k, const struct opts *o)
{
    double rate[16], cpu[16], cmds[16], fcalls[16];
    struct cstats a, b, mid_a, mid_b;
    int mid = o->rounds / 2;
    set_state(k, "paused");
    for (int round = 0; round < o->rounds; round++) {
        freeReplyObject(queue_cmd(k, "DEL judge:{native}:results judge:{native}:stats"));
        admit_many(k, o->jobs, "int main(){}");
        if (round == 0)
            start_fleet(k, o);
        cstats_read(k, &a);
        double c0 = redis_cpu(k);
        set_state(k, "active");
        double t0 = secs();
        while (b_int(k, "XLEN %s", "judge:{native}:results") < o->jobs) {
            if (secs() - t0 > 600)
                b_die("the fleet did not finish the jobs within 600 s");
            jd_sleep_ms(20);
        }
        double c1 = redis_cpu(k);
        cstats_read(k, &b);
        set_state(k, "paused");
        long long span = b_span(k, "judge:{native}:results", NULL);
        rate[round] = (o->jobs - 1) / (span > 0 ? span / 1000.0 : 1e-3);
        cpu[round] = (c1 - c0) / o->jobs * 1e6;
        fcalls[round] = cstats_calls(&a, &b, "fcall") / o->jobs;
        double all = 0;
        for (int i = 0; i < b.n; i++)
            if (strcmp(b.name[i], "info") && strcmp(b.name[i], "fcall"))
                all += b.calls[i] - cstats_get(&a, b.name[i], false);
        cmds[round] = all / o->jobs;
        printf("  round %d: %6.0f jobs/s, redis cpu %5.1f us/job, %.2f FCALLs/job, %.1f commands/job\n",
               round + 1, rate[round], cpu[round], fcalls[round], cmds[round]);
        fflush(stdout);
        if (round == mid) {
            mid_a = a;
            mid_b = b;
        }
    }
    hosts_cpu = 0;
    unsigned long rtt = stop_fleet(o);
    qsort(rate, (size_t)o->rounds, sizeof *rate, cmp_double);
    qsort(cpu, (size_t)o->rounds, sizeof *cpu, cmp_double);
    qsort(cmds, (size_t)o->rounds, sizeof *cmds, cmp_double);
    qsort(fcalls, (size_t)o->rounds, sizeof *fcalls, cmp_double);
    printf("dispatched: %.0f jobs/s (median of %d rounds; floor 10000)\n", rate[mid], o->rounds);
    printf("redis cpu per job: %.1f us (median)\n", cpu[mid]);
    printf("redis commands per job: %.2f FCALLs, %.1f commands in all (median)\n", fcalls[mid], cmds[mid]);
    printf("redis round trips per job, counted by the hosts (heartbeats and idle waits included): %.2f\n",
           (double)rtt / ((double)o->jobs * o->rounds));
    printf("judged cpu per job, all hosts (their whole run: start, idle waits, heartbeats): %.1f us\n",
           hosts_cpu / ((double)o->jobs * o->rounds) * 1e6);
    printf("  commandstats of round %d, per job:\n", mid + 1);
    cstats_print(&mid_a, &mid_b, o->jobs, "job");
    set_state(k, "active");
}

/* ------------------------------------------------------------- phase 2+3 */

struct held {
    char entry[64], id[128];
};

/* The entries each consumer holds; returns how many in all. */
static int pending(struct queue_conn *k, const struct opts *o, int *per_host, struct held *killed,
                   int *nkilled)
{
    redisReply *r = queue_cmd(k, "XPENDING %s judged - + 100000", POOLKEY);
    if (!r || r->type != REDIS_REPLY_ARRAY)
        b_die("XPENDING");
    memset(per_host, 0, sizeof *per_host * (size_t)o->hosts);
    if (nkilled)
        *nkilled = 0;
    for (size_t i = 0; i < r->elements; i++) {
        const char *consumer = r->element[i]->element[1]->str;
        int h = atoi(consumer + strlen("fleet-"));
        if (h < 0 || h >= o->hosts)
            continue;
        per_host[h]++;
        if (killed && h < o->kill)
            snprintf(killed[(*nkilled)++].entry, sizeof killed->entry, "%s", r->element[i]->element[0]->str);
    }
    int n = (int)r->elements;
    freeReplyObject(r);
    return n;
}

static void leases_and_failover(struct queue_conn *k, const struct opts *o)
{
    int held_total = o->hosts * o->slots;
    char hold[400], src[420];
    snprintf(hold, sizeof hold, "%s/hold", B_dir);
    snprintf(src, sizeof src, "hold-while:%s", hold);
    FILE *f = fopen(hold, "w");
    if (!f)
        b_die("cannot create the hold file");
    fclose(f);
    start_fleet(k, o);
    admit_many(k, held_total, src);
    int *per_host = calloc((size_t)o->hosts, sizeof *per_host);
    double t0 = secs();
    while (pending(k, o, per_host, NULL, NULL) < held_total) {
        if (secs() - t0 > 60)
            b_die("the fleet did not claim one job per slot within 60 s");
        jd_sleep_ms(50);
    }

    /* heartbeats while every slot holds a job */
    struct cstats a, b;
    jd_sleep_ms((long)(o->heartbeat * 1000));
    cstats_read(k, &a);
    double c0 = redis_cpu(k), w0 = secs();
    jd_sleep_ms((long)(o->heartbeat * 3000));
    double c1 = redis_cpu(k), w = secs() - w0;
    cstats_read(k, &b);
    double beats = w / o->heartbeat;
    printf("leases: %d hosts x %d slots = %d held jobs, heartbeat %gs, lease %gs, over %.1f s\n", o->hosts,
           o->slots, held_total, o->heartbeat, o->lease, w);
    printf("  renewals: %.2f renew FCALLs per host per heartbeat, %.2f XCLAIM per held job per heartbeat\n",
           cstats_calls(&a, &b, "xclaim") > 0 ? (cstats_calls(&a, &b, "fcall") - cstats_calls(&a, &b, "zrangebyscore")) /
                                                   (o->hosts * beats) : 0,
           cstats_calls(&a, &b, "xclaim") / (held_total * beats));
    printf("  redis cpu: %.1f us per held job per heartbeat (all of the fleet's traffic while nothing finishes)\n",
           (c1 - c0) * 1e6 / (held_total * beats));
    printf("  commandstats per held job per heartbeat:\n");
    cstats_print(&a, &b, held_total * beats, "held job and heartbeat");

    /* SIGKILL the first `kill` hosts at once, release everybody else */
    struct held *killed = calloc((size_t)held_total, sizeof *killed);
    int nkilled = 0;
    pending(k, o, per_host, killed, &nkilled);
    for (int i = 0; i < nkilled; i++) {
        redisReply *r = queue_cmd(k, "XRANGE %s %s %s", POOLKEY, killed[i].entry, killed[i].entry);
        if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 1)
            snprintf(killed[i].id, sizeof killed[i].id, "%s", r->element[0]->element[1]->element[1]->str);
        if (r)
            freeReplyObject(r);
    }
    cstats_read(k, &a);
    long long tk = redis_ms(k);
    for (int i = 0; i < o->kill; i++) {
        kill(hostpid[i], SIGKILL);
        waitpid(hostpid[i], NULL, 0);
        hostpid[i] = 0;
    }
    unlink(hold);
    long long last = 0;
    t0 = secs();
    for (int done = 0; done < nkilled;) {
        if (secs() - t0 > 120)
            b_die("the killed hosts' jobs were not all finished within 120 s");
        done = 0;
        last = 0;
        for (int i = 0; i < nkilled; i++) {
            char sk[200], rk[200];
            snprintf(sk, sizeof sk, "judge:{native}:sub:%s", killed[i].id);
            snprintf(rk, sizeof rk, "judge:{native}:res:%s", killed[i].id);
            /* the finish time from the result hash (judged's own, issue 25) */
            redisReply *fr = queue_cmd(k, "HGET %s finished", rk);
            redisReply *r = queue_cmd(k, "HMGET %s state finished host", sk);
            if (r && r->type == REDIS_REPLY_ARRAY && fr && fr->type == REDIS_REPLY_STRING) {
                done++;
                long long fin = atoll(fr->str);
                if (fin > last)
                    last = fin;
                int h = atoi(r->element[2]->str + strlen("fleet-"));
                if (h < o->kill)
                    b_die("a killed host finished a job");
            }
            if (r)
                freeReplyObject(r);
            if (fr)
                freeReplyObject(fr);
        }
        if (done < nkilled)
            jd_sleep_ms(20);
    }
    cstats_read(k, &b);
    printf("failover: %d hosts SIGKILLed holding %d jobs; all finished by other hosts %.2f s after the kill"
           " (floor: lease + 2 s = %.1f s)\n", o->kill, nkilled, (last - tk) / 1000.0, o->lease + 2);
    printf("  reclaim traffic: %.0f judged_reclaim-driven XAUTOCLAIM calls for %d reclaimed jobs"
           " (%.1f per job; every host with free slots looks, every min(lease/4, 1 s))\n",
           cstats_calls(&a, &b, "xautoclaim"), nkilled, cstats_calls(&a, &b, "xautoclaim") / (nkilled ? nkilled : 1));
    stop_fleet(o);
    free(killed);
    free(per_host);
}


/* ---------------------------------------------------------- phase 4: cluster */

/* The same dispatch on a Redis Cluster of 1, 2 and 3 primaries (no
 * replicas: the cost of a node's own work), one pool per primary (a name
 * whose slot that primary serves), the hosts spread over the pools (host i
 * serves pool i mod N). Per round: JOBS admissions split over the pools
 * while they are paused, then all resumed and drained. Reported: the
 * fleet's jobs/s and each node's Redis CPU per job of its pool. */
#define CLUSTER_MAX 3

static pid_t node_pids[CLUSTER_MAX];   /* killed by an exit half-way (b_die) */

static void nodes_kill(void)
{
    for (int i = 0; i < CLUSTER_MAX; i++)
        if (node_pids[i] > 0)
            kill(node_pids[i], SIGTERM);
}

/* Whether port and its cluster bus port (+10000) are free on 127.0.0.1:
 * the machine is shared, a node that cannot bind would die. */
static bool port_free(int port)
{
    for (int p = port; p <= port + 10000; p += 10000) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p)};
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
        if (fd >= 0)
            close(fd);
        if (!ok)
            return false;
    }
    return true;
}

static int next_port(int *from)
{
    while (*from < 30000 && !port_free(*from))
        (*from)++;
    if (*from >= 30000)
        b_die("no free port for a cluster node");
    return (*from)++;
}

struct cnode {
    pid_t pid;
    int port;
    struct queue_conn k;   /* redis://127.0.0.1:PORT: INFO of this node alone */
    char pool[32];
};

static void cnode_start(struct cnode *c, int i, int port)
{
    static bool registered;
    if (!registered)
        atexit(nodes_kill);
    registered = true;
    char dir[400], p[16];
    snprintf(dir, sizeof dir, "%s/c%d-%d", B_dir, port, i);
    mkdir(dir, 0700);
    snprintf(p, sizeof p, "%d", port);
    c->port = port;
    c->pid = fork();
    if (c->pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        dup2(fd, 1);
        execlp("redis-server", "redis-server", "--port", p, "--bind", "127.0.0.1", "--dir", dir,
               "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--appendonly", "yes",
               "--appendfsync", "everysec", "--save", "", "--maxmemory-policy", "noeviction",
               "--stream-node-max-bytes", "1024", (char *)NULL);
        _exit(127);
    }
    node_pids[i] = c->pid;
    char url[100];
    snprintf(url, sizeof url, "redis://127.0.0.1:%d", port);
    queue_conn_init(&c->k, url, 30000);
    for (int t = 0; t < 250 && queue_conn_ensure(&c->k); t++)
        jd_sleep_ms(20);
    if (!c->k.c)
        b_die("a cluster node's redis-server did not start");
}

static void cnode_ok(struct cnode *c, const char *fmt, int a, int b)
{
    redisReply *r = queue_cmd(&c->k, fmt, a, b);
    if (!r || r->type == REDIS_REPLY_ERROR)
        b_die(r ? r->str : "cluster setup");
    freeReplyObject(r);
}

/* n nodes, slots split evenly, met, and every node saying cluster_state:ok */
static void cluster_start(struct cnode *c, int n, int *ports_from)
{
    for (int i = 0; i < n; i++) {
        cnode_start(&c[i], i, next_port(ports_from));
        cnode_ok(&c[i], "CLUSTER ADDSLOTSRANGE %d %d", i * 16384 / n, (i + 1) * 16384 / n - 1);
    }
    for (int i = 1; i < n; i++)
        cnode_ok(&c[0], "CLUSTER MEET 127.0.0.1 %d", c[i].port, 0);
    double t0 = secs();
    for (int i = 0; i < n; i++)
        for (;;) {
            redisReply *r = queue_cmd(&c[i].k, "CLUSTER INFO");
            const char *known = r && r->type == REDIS_REPLY_STRING ? strstr(r->str, "cluster_known_nodes:") : NULL;
            bool ok = known && strstr(r->str, "cluster_state:ok") && atoi(known + 20) == n;
            if (r)
                freeReplyObject(r);
            if (ok)
                break;
            if (secs() - t0 > 60)
                b_die("the cluster did not come up within 60 s");
            jd_sleep_ms(50);
        }
    /* pool i: a name whose slot node i serves */
    for (int i = 0; i < n; i++) {
        c[i].pool[0] = 0;
        for (int j = 0; j < 10000 && !c[i].pool[0]; j++) {
            char name[32], tag[40];
            snprintf(name, sizeof name, "pool%d", j);
            snprintf(tag, sizeof tag, "{%s}", name);
            int slot = queue_key_slot(tag, strlen(tag));
            if (slot >= i * 16384 / n && slot <= (i + 1) * 16384 / n - 1)
                snprintf(c[i].pool, sizeof c[i].pool, "%s", name);
        }
    }
}

static void cluster_stop(struct cnode *c, int n)
{
    for (int i = 0; i < n; i++) {
        queue_conn_close(&c[i].k);
        b_stop(c[i].pid);
        node_pids[i] = 0;
    }
}

static void pool_state(struct queue_conn *k, const char *pool, const char *state)
{
    char key[200];
    queue_key(key, sizeof key, pool, "q:normal");
    const char *argv[] = {"FCALL", "judged_set_state", "1", key, "pool", pool, "state", state};
    redisReply *r = queue_cmdv(k, 8, argv, NULL);
    if (!r || r->type == REDIS_REPLY_ERROR)
        b_die(r ? r->str : "set_state");
    freeReplyObject(r);
}

/* n admissions to pool, pipelined on its node */
static void admit_pool(struct queue_conn *k, const char *pool, int n)
{
    char key[200];
    queue_key(key, sizeof key, pool, "q:normal");
    for (int done = 0; done < n;) {
        int batch = n - done < 1000 ? n - done : 1000;
        if (queue_conn_route(k, key, strlen(key)))
            b_die(k->err);
        for (int i = 0; i < batch; i++)
            redisAppendCommand(k->c, "FCALL judged_admit 1 %s pool %s lang c problem bench source %s "
                                     "max_queue 0 version %s", key, pool, "int main(){}", "");
        for (int i = 0; i < batch; i++) {
            redisReply *r;
            if (redisGetReply(k->c, (void **)&r) != REDIS_OK)
                b_die("admission: connection lost");
            if (r->type == REDIS_REPLY_ERROR)
                b_die(r->str);
            freeReplyObject(r);
        }
        done += batch;
    }
}

static long long results_of(struct queue_conn *k, const char *pool)
{
    char key[200];
    queue_key(key, sizeof key, pool, "results");
    return b_int(k, "XLEN %s", key);
}

static void cluster_configs(const struct opts *o, const struct cnode *c, int n, const char *url)
{
    for (int i = 0; i < o->hosts; i++) {
        char path[400];
        snprintf(path, sizeof path, "%s/h%03d.yaml", B_dir, i);
        FILE *f = fopen(path, "w");
        if (!f)
            b_die("cannot write a host config");
        fprintf(f, "redis: %s\nstate_dir: %s/h%03d\nproblems: %s\nlanguages: %s\nhost: fleet-%03d\n"
                   "lease: %gs\nheartbeat: %gs\nfirst_slot: %d\nadmission_durability: local\npools:\n"
                   "  %s: {languages: [c], slots: %d, max_queue: 0}\n",
                url, B_dir, i, B_dir, JUDGED_LANG_DIR, i, o->lease, o->heartbeat, i * 2 * o->slots,
                c[i % n].pool, o->slots);
        fclose(f);
    }
}

struct cluster_figures {
    double rate, cpu[CLUSTER_MAX];
};

/* One round on n primaries: jobs/s and each node's Redis CPU per job. */
static void cluster_round(struct queue_conn *k, struct cnode *c, int n, const struct opts *o,
                          struct cluster_figures *f)
{
    int per = o->jobs / n;
    double c0[CLUSTER_MAX];
    for (int i = 0; i < n; i++) {
        char res[200], stats[200];
        queue_key(res, sizeof res, c[i].pool, "results");
        queue_key(stats, sizeof stats, c[i].pool, "stats");
        freeReplyObject(queue_cmd(k, "DEL %s", res));
        freeReplyObject(queue_cmd(k, "DEL %s", stats));
        admit_pool(k, c[i].pool, per);
    }
    for (int i = 0; i < n; i++)
        c0[i] = redis_cpu(&c[i].k);
    for (int i = 0; i < n; i++)
        pool_state(k, c[i].pool, "active");
    double t0 = secs();
    for (int i = 0; i < n; i++)
        while (results_of(k, c[i].pool) < per) {
            if (secs() - t0 > 600)
                b_die("the fleet did not finish the jobs within 600 s");
            jd_sleep_ms(20);
        }
    long long first = -1, last = 0;
    for (int i = 0; i < n; i++) {
        f->cpu[i] = (redis_cpu(&c[i].k) - c0[i]) / per * 1e6;
        pool_state(k, c[i].pool, "paused");
        char res[200];
        long long fm = 0;
        queue_key(res, sizeof res, c[i].pool, "results");
        long long span = b_span(k, res, &fm);
        first = first < 0 || fm < first ? fm : first;
        last = fm + span > last ? fm + span : last;
    }
    f->rate = (per * n - 1) / (last > first ? (last - first) / 1000.0 : 1e-3);
}

static int cmp_figures(const void *a, const void *b)
{
    return cmp_double(&((const struct cluster_figures *)a)->rate, &((const struct cluster_figures *)b)->rate);
}

/* The median round (by jobs/s) on n primaries. */
static struct cluster_figures cluster_fleet(const struct opts *o, int n, int *ports_from)
{
    struct cnode c[CLUSTER_MAX];
    memset(c, 0, sizeof c);
    cluster_start(c, n, ports_from);
    char url[400];
    int len = snprintf(url, sizeof url, "redis-cluster://");
    for (int i = 0; i < n; i++)
        len += snprintf(url + len, sizeof url - (size_t)len, "%s127.0.0.1:%d", i ? "," : "", c[i].port);
    struct queue_conn k;
    queue_conn_init(&k, url, 30000);
    char err[512] = "cannot reach the cluster";
    if (queue_conn_ensure(&k) || queue_library_ensure(&k, err, sizeof err))
        b_die(err);
    for (int i = 0; i < n; i++) {
        if (queue_ensure_groups(&k, c[i].pool, err, sizeof err))
            b_die(err);
        pool_state(&k, c[i].pool, "paused");
    }
    cluster_configs(o, c, n, url);
    struct cluster_figures f[16];
    for (int round = 0; round < o->rounds; round++) {
        if (round == 0) {
            for (int i = 0; i < o->hosts; i++) {
                char cfg[400], log[400];
                snprintf(cfg, sizeof cfg, "%s/h%03d.yaml", B_dir, i);
                snprintf(log, sizeof log, "%s/h%03d.log", B_dir, i);
                hostpid[i] = b_judged(JUDGED_BIN_DIR "/judged-noop", cfg, log);
            }
            double t0 = secs();
            while (b_int(&k, "HLEN %s", "judge:hosts") < o->hosts) {
                if (secs() - t0 > 60)
                    b_die("the hosts did not all register within 60 s (see their logs)");
                jd_sleep_ms(50);
            }
        }
        cluster_round(&k, c, n, o, &f[round]);
        printf("  %d primar%s, round %d: %6.0f jobs/s, redis cpu per job:", n, n == 1 ? "y" : "ies", round + 1,
               f[round].rate);
        for (int i = 0; i < n; i++)
            printf(" %5.1f us (%s)", f[round].cpu[i], c[i].pool);
        printf("\n");
        fflush(stdout);
    }
    stop_fleet(o);
    queue_conn_close(&k);
    cluster_stop(c, n);
    qsort(f, (size_t)o->rounds, sizeof *f, cmp_figures);
    return f[o->rounds / 2];
}

static void cluster_bench(const struct opts *o)
{
    struct cluster_figures f[CLUSTER_MAX + 1];
    int from = 20000 + (int)(getpid() % 9000);   /* bus ports 30000..39999 */
    for (int n = 1; n <= CLUSTER_MAX; n++)
        f[n] = cluster_fleet(o, n, &from);
    printf("cluster: %d hosts x %d slots, one pool per primary, no replicas, %d jobs x %d rounds (median)\n",
           o->hosts, o->slots, o->jobs, o->rounds);
    printf("  %-10s %9s %8s %22s %10s\n", "primaries", "jobs/s", "ratio", "redis cpu/job per node", "ratio");
    for (int n = 1; n <= CLUSTER_MAX; n++) {
        double mean = 0;
        for (int i = 0; i < n; i++)
            mean += f[n].cpu[i] / n;
        printf("  %-10d %9.0f %8.2f %19.1f us %10.2f\n", n, f[n].rate, f[n].rate / f[1].rate, mean,
               mean / f[1].cpu[0]);
    }
}

/* ------------------------------------------------------------------ main */

static int usage(FILE *f, int rc)
{
    fprintf(f, "usage: bench_fleet [--hosts N] [--slots S] [--jobs N] [--rounds R] [--kill K]\n"
               "                   [--lease SEC] [--heartbeat SEC] [--cluster]\n"
               "  N judged-noop hosts (default 50, 2 slots each) against one private Redis:\n"
               "  dispatched jobs/s over JOBS (default 100000) jobs, median of R rounds (default 3),\n"
               "  Redis CPU and commands per job, heartbeat traffic per held job, and the time\n"
               "  for the others to finish every job of K hosts (default 10) SIGKILLed at once\n"
               "  (lease default 3 s, heartbeat 1 s). --cluster: the single-Redis throughput, then\n"
               "  the same on a Redis Cluster of 1, 2 and 3 primaries (one pool each): jobs/s and\n"
               "  each node's Redis CPU per job, as ratios to one primary.\n");
    return rc;
}

int main(int argc, char **argv)
{
    struct opts o = {.hosts = 50, .slots = 2, .jobs = 100000, .rounds = 3, .kill = 10, .lease = 3,
                     .heartbeat = 1};
    for (int i = 1; i < argc; i += 2) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return usage(stdout, 0);
        if (!strcmp(argv[i], "--cluster")) {
            o.cluster = true;
            i--;
            continue;
        }
        if (!v)
            return usage(stderr, 2);
        if (!strcmp(argv[i], "--hosts"))
            o.hosts = atoi(v);
        else if (!strcmp(argv[i], "--slots"))
            o.slots = atoi(v);
        else if (!strcmp(argv[i], "--jobs"))
            o.jobs = atoi(v);
        else if (!strcmp(argv[i], "--rounds"))
            o.rounds = atoi(v);
        else if (!strcmp(argv[i], "--kill"))
            o.kill = atoi(v);
        else if (!strcmp(argv[i], "--lease"))
            o.lease = atof(v);
        else if (!strcmp(argv[i], "--heartbeat"))
            o.heartbeat = atof(v);
        else
            return usage(stderr, 2);
    }
    if (o.hosts < 1 || o.hosts > MAXHOSTS || o.slots < 1 || o.slots > 64 || o.jobs < 2 || o.rounds < 1 ||
        o.rounds > 15 || o.kill < 0 || o.kill >= o.hosts || o.heartbeat <= 0 || o.lease <= o.heartbeat) {
        fprintf(stderr, "bench_fleet: out of range (hosts 1..%d, slots 1..64, jobs >= 2, rounds 1..15, "
                        "kill < hosts, lease > heartbeat > 0)\n", MAXHOSTS);
        return 2;
    }
    pid_t redis = b_redis();
    struct queue_conn k;
    queue_conn_init(&k, B_url, 30000);
    char err[512] = "cannot reach the bench's redis-server";
    if (queue_conn_ensure(&k) || queue_library_ensure(&k, err, sizeof err))
        b_die(err);
    write_configs(&o);
    printf("fleet: %d judged-noop hosts x %d slots, one redis-server (%s), %d jobs x %d rounds\n", o.hosts,
           o.slots, getenv("BENCH_TCP") ? "tcp loopback" : "unix socket", o.jobs, o.rounds);
    fflush(stdout);
    throughput(&k, &o);
    fflush(stdout);
    if (!o.cluster)
        leases_and_failover(&k, &o);
    queue_conn_close(&k);
    b_stop(redis);
    if (o.cluster)
        cluster_bench(&o);
    b_cleanup();
    return 0;
}
