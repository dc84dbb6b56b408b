/* bench_retention - Redis memory per finished submission, and whether a
 * long run reaches a steady state.
 *
 * No judged and no sandbox: the queue library alone, as judged and the
 * platform call it, on a private redis-server (appendonly off: memory is
 * what is measured). Each job is admitted with an idempotency key and a
 * 1 KiB source, claimed, given the ten progress steps a worker writes
 * while it judges (one per test), and finished with a 10-test report
 * shaped like the runner's, ~1.6 KiB.
 *
 * (1) kept: N finished submissions with retention 0; INFO memory
 *     used_memory before and after -> bytes per 1,000, with MEMORY USAGE
 *     of each kind of key a submission leaves.
 *     Twice: with Redis' default stream-node-max-bytes (4096: Redis 7.0
 *     allocates that much for a new stream's first node, which a
 *     progress stream of ten steps does not fill) and with 1024.
 * (2) steady: ROUNDS x 1,000 jobs with retention, idempotency_ttl and the
 *     progress streams at SECONDS, results_max RESULTS; used_memory sampled
 *     every 10,000 jobs. Expiry is lazy and sampled, so the samples swing
 *     (+-40% here); steady = the highest sample of the second half within
 *     25% of the first half's, where a store that keeps everything doubles
 *     (the results stream stops growing at results_max: give ROUNDS x
 *     1,000 > 2 x RESULTS).
 *
 * usage: bench_retention [THOUSANDS [ROUNDS [SECONDS [RESULTS]]]]
 *        (default 10 kept, 200 x 1,000 in the steady run, 2 s, 50000)
 */
#include <time.h>

#include "bench_common.h"

static double secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long long info_num(struct queue_conn *k, const char *section, const char *field)
{
    redisReply *r = queue_cmd(k, "INFO %s", section);
    long long v = -1;
    const char *p = r && r->type == REDIS_REPLY_STRING ? strstr(r->str, field) : NULL;
    if (p)
        v = atoll(p + strlen(field) + 1);
    if (r)
        freeReplyObject(r);
    return v;
}

static long long used_memory(struct queue_conn *k)
{
    return info_num(k, "memory", "used_memory");
}

static long long mem_usage(struct queue_conn *k, const char *key)
{
    return b_int(k, "MEMORY USAGE %s SAMPLES 0", key);
}

/* a report like the runner's for 10 tests of A+B */
static char *report_json(void)
{
    static char buf[4096];
    int n = snprintf(buf, sizeof buf, "{\"verdict\":\"AC\",\"score\":100,\"max_score\":100,"
                                      "\"compile\":{\"status\":\"ok\",\"output\":\"\",\"cpu_time\":0.31254,"
                                      "\"cached\":false},\"tests\":[");
    for (int i = 1; i <= 10; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n,
                      "%s{\"name\":\"%02d\",\"verdict\":\"AC\",\"cpu_time\":0.00%d12,\"wall_time\":0.00%d87,"
                      "\"memory\":%d,\"exit_code\":0,\"signal\":0,\"checker_message\":\"ok 1 number\"}",
                      i > 1 ? "," : "", i, i % 10, (i + 3) % 10, 1658880 + 4096 * i);
    snprintf(buf + n, sizeof buf - (size_t)n, "],\"subtasks\":[]}");
    return buf;
}

static char source[1025];
static long seq;

/* count jobs: admit each, claim them, finish them (pipelined) */
static void jobs(struct queue_conn *k, int count, long retention_ms, long results_max)
{
    const char *report = report_json();
    for (int i = 0; i < count; i++) {
        char key[64];
        snprintf(key, sizeof key, "platform-%ld", seq++);
        struct queue_admit_args a = {.pool = "native", .lang = "c", .problem = "aplusb", .source = source,
                                     .source_len = sizeof source - 1, .key = key, .max_queue = 0,
                                     .max_source = 0, .version = ""};
        struct queue_admit_reply r;
        char err[512];
        if (queue_admit(k, &a, &r, err, sizeof err) || r.result != QUEUE_ADMITTED)
            b_die(err);
    }
    for (int left = count; left > 0;) {
        struct queue_claim_args ca = {.pool = "native", .host = "bench", .count = left > 500 ? 500 : left};
        struct queue_claim_reply cr;
        char err[512];
        if (queue_claim(k, &ca, &cr, err, sizeof err) || cr.njobs == 0)
            b_die(cr.njobs ? err : "claim found nothing");
        /* what a worker writes while it judges: one progress step per test */
        for (int i = 0; i < cr.njobs; i++)
            for (int t = 1; t <= 10; t++)
                if (queue_progress(k, "native", cr.jobs[i].id, "test", t, 10, "AC", err, sizeof err))
                    b_die(err);
        size_t nj = cr.njobs > 0 ? (size_t)cr.njobs : 0;
        struct queue_finish_args *fa = calloc(nj, sizeof *fa);
        struct queue_finish_reply *fr = calloc(nj, sizeof *fr);
        for (int i = 0; i < cr.njobs; i++)
            fa[i] = (struct queue_finish_args){.pool = "native", .host = "bench", .queue = cr.jobs[i].queue,
                                               .entry = cr.jobs[i].entry, .id = cr.jobs[i].id,
                                               .verdict = "AC", .score = 100, .report = report,
                                               .results_max = results_max, .retention_ms = retention_ms};
        if (queue_finish_then_claim(k, fa, cr.njobs, fr, NULL, NULL, NULL, err, sizeof err))
            b_die(err);
        for (int i = 0; i < cr.njobs; i++)
            if (fr[i].rc || fr[i].result != QUEUE_FINISH_PUBLISHED)
                b_die("a finish was not published");
        left -= cr.njobs;
        free(fa);
        free(fr);
        queue_claim_reply_free(&cr);
    }
}

static void setup_pool(struct queue_conn *k, long idem_ttl_ms)
{
    char err[512];
    const char *langs[] = {"c"};
    if (queue_library_ensure(k, err, sizeof err) || queue_ensure_groups(k, "native", err, sizeof err) ||
        queue_publish_pool(k, "native", langs, 1, 0, 0, idem_ttl_ms, err, sizeof err))
        b_die(err);
}

/* bytes of one key of each kind a finished submission leaves */
static void breakdown(struct queue_conn *k)
{
    redisReply *r = queue_cmd(k, "XREVRANGE judge:{native}:results + - COUNT 1");
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements == 0)
        b_die("no results");
    char id[192] = "", key[300];
    const redisReply *f = r->element[0]->element[1];
    for (size_t i = 0; i + 1 < f->elements; i += 2)
        if (!strcmp(f->element[i]->str, "id"))
            snprintf(id, sizeof id, "%s", f->element[i + 1]->str);
    freeReplyObject(r);
    snprintf(key, sizeof key, "judge:{native}:sub:%s", id);
    printf("  one submission hash (1 KiB source): %lld bytes\n", mem_usage(k, key));
    snprintf(key, sizeof key, "judge:{native}:res:%s", id);
    printf("  its result hash (10-test report): %lld bytes\n", mem_usage(k, key));
    snprintf(key, sizeof key, "judge:{native}:progress:%s", id);
    printf("  its progress stream (10 steps; kept an hour, or retention if shorter): %lld bytes\n",
           mem_usage(k, key));
    snprintf(key, sizeof key, "judge:{native}:idem:platform-%ld", seq - 1);
    printf("  one idempotency key: %lld bytes\n", mem_usage(k, key));
    long long n = b_int(k, "XLEN %s", "judge:{native}:results");
    printf("  the results stream: %lld bytes for %lld events (%.0f per event)\n",
           mem_usage(k, "judge:{native}:results"), n, n ? (double)mem_usage(k, "judge:{native}:results") / n : 0);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || atoi(argv[i]) < (i == 3 ? 0 : 1)) {
            bool help = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
            fprintf(help ? stdout : stderr,
                    "usage: bench_retention [THOUSANDS [ROUNDS [SECONDS [RESULTS]]]]\n"
                    "  Redis memory per 1,000 finished submissions (THOUSANDS x 1,000 kept, default 10),\n"
                    "  then ROUNDS x 1,000 jobs (default 200) with retention SECONDS (default 2) and\n"
                    "  results_max RESULTS (default 50000): used_memory must reach a steady state\n"
                    "  (SECONDS 0: nothing expires, the control: it must report growth)\n");
            return help ? 0 : 2;
        }
    int kept = argc > 1 ? atoi(argv[1]) : 10;
    int rounds = argc > 2 ? atoi(argv[2]) : 200;
    long ret_ms = (argc > 3 ? atol(argv[3]) : 2) * 1000;
    long results_max = argc > 4 ? atol(argv[4]) : 50000;
    memset(source, 'x', sizeof source - 1);
    memcpy(source, "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%lld%lld\",&a,&b);", 70);
    source[sizeof source - 2] = '\n';

    pid_t redis = b_redis();
    struct queue_conn k;
    queue_conn_init(&k, B_url, 30000);
    if (queue_conn_ensure(&k))
        b_die(k.err);
    freeReplyObject(queue_cmd(&k, "CONFIG SET appendonly no"));

    /* (1) kept, with Redis' default stream nodes and with smaller ones */
    static const char *node_bytes[] = {"4096", "1024"};
    for (int nb = 0; nb < 2; nb++) {
        freeReplyObject(queue_cmd(&k, "CONFIG SET stream-node-max-bytes %s", node_bytes[nb]));
        setup_pool(&k, 0);
        jobs(&k, 100, 0, results_max);   /* the pool's streams, groups and counters exist */
        long long before = used_memory(&k);
        jobs(&k, kept * 1000, 0, results_max);
        long long after = used_memory(&k);
        printf("kept (stream-node-max-bytes %s): %d finished submissions, retention 0: used_memory "
               "%.1f -> %.1f MiB: %.0f KiB per 1,000\n", node_bytes[nb], kept * 1000,
               before / 1048576.0, after / 1048576.0, (double)(after - before) / kept / 1024.0);
        breakdown(&k);
        freeReplyObject(queue_cmd(&k, "FLUSHALL"));
    }
    freeReplyObject(queue_cmd(&k, "CONFIG SET stream-node-max-bytes 4096"));

    /* (2) steady state */
    setup_pool(&k, ret_ms);
    long long base = used_memory(&k);
    printf("steady: %d x 1,000 jobs, retention %lds, results_max %ld; used_memory from %.1f MiB\n",
           rounds, ret_ms / 1000, results_max, base / 1048576.0);
    long long max1 = 0, max2 = 0;   /* highest samples of the first and second halves */
    double t0 = secs();
    for (int r = 1; r <= rounds; r++) {
        jobs(&k, 1000, ret_ms, results_max);
        if (r % 10 == 0 || r == rounds) {
            long long m = used_memory(&k);
            long long keys = info_num(&k, "keyspace", "db0:keys");
            printf("  %7d jobs  %6.1f s  used_memory %7.1f MiB  keys %lld\n", r * 1000, secs() - t0,
                   m / 1048576.0, keys);
            fflush(stdout);
            long long *mx = r <= rounds / 2 ? &max1 : &max2;
            if (m > *mx)
                *mx = m;
        }
    }
    double el = secs() - t0;
    jd_sleep_ms(ret_ms + 3000);
    long long idle = used_memory(&k);
    bool steady = max2 <= max1 * 5 / 4;
    printf("steady: %.0f jobs/s; highest used_memory in the first half %.1f MiB, in the second %.1f MiB "
           "(%s); %.1f MiB %lds after the last job (the results stream: %.1f MiB)\n",
           rounds * 1000 / el, max1 / 1048576.0, max2 / 1048576.0, steady ? "steady" : "STILL GROWING",
           idle / 1048576.0, ret_ms / 1000 + 3, mem_usage(&k, "judge:{native}:results") / 1048576.0);
    queue_conn_close(&k);
    b_stop(redis);
    b_cleanup();
    return steady ? 0 : 1;
}
