/* bench_rejudge - N distinct A+B submissions in C (10 tests each) judged by
 * judged with 2 slots, then all of them rejudged (judged_rejudge, as
 * `judgectl rejudge` does): the rejudge finds every compile in the compile
 * cache. Each phase is timed from its first call to its last result event.
 * A program to run, not a test: build/bin/bench_rejudge [N] (default 200;
 * target: the rejudge >= 3x faster than the first judging). */
#include <time.h>

#include "bench_common.h"
#include "common.h"

static double secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        b_die(path);
    fputs(text, f);
    fclose(f);
}

static void wait_events(struct queue_conn *k, long long n)
{
    while (b_int(k, "XLEN %s", "judge:{native}:results") < n)
        jd_sleep_ms(10);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    if (n <= 0) {
        fprintf(stderr, "usage: bench_rejudge [SUBMISSIONS]\n");
        return 2;
    }
    pid_t redis = b_redis();
    char p[600], err[1024];
    snprintf(p, sizeof p, "%s/problems/ab10/tests", B_dir);
    common_mkdir_p(p, 0755);
    snprintf(p, sizeof p, "%s/problems/ab10/problem.yaml", B_dir);
    put(p, "name: ab10\ntime_limit: 1s\nmemory_limit: 256M\nchecker: tokens\n");
    for (int i = 1; i <= 10; i++) {
        char t[64];
        snprintf(p, sizeof p, "%s/problems/ab10/tests/%d.in", B_dir, i);
        snprintf(t, sizeof t, "%d %d\n", i * 1000, i * 7);
        put(p, t);
        snprintf(p, sizeof p, "%s/problems/ab10/tests/%d.out", B_dir, i);
        snprintf(t, sizeof t, "%d\n", i * 1007);
        put(p, t);
    }
    size_t srclen;
    char *src = jd_read_file(JUDGED_SOURCE_DIR "/testdata/aplusb/solutions/ac.c", 1 << 20, &srclen, err, sizeof err);
    if (!src)
        b_die(err);
    char cfg[600], log[600];
    snprintf(cfg, sizeof cfg, "%s/judged.yaml", B_dir);
    snprintf(log, sizeof log, "%s/judged.log", B_dir);
    FILE *f = fopen(cfg, "w");
    fprintf(f, "redis: %s\nstate_dir: %s/state\nproblems: %s/problems\nlanguages: %s/languages\n"
               "host: bench\nfirst_slot: 730\nlease: 30s\nheartbeat: 1s\n"
               "pools:\n  native: {languages: [c], slots: 2, max_queue: 0}\n", B_url, B_dir, B_dir, JUDGED_SOURCE_DIR);
    fclose(f);
    pid_t jd = b_judged(JUDGED_BIN_DIR "/judged", cfg, log);
    struct queue_conn k;
    queue_conn_init(&k, B_url, 10000);
    while (b_int(&k, "EXISTS %s", "judge:host:bench") != 1)
        jd_sleep_ms(20);

    /* distinct sources: every first judging compiles */
    char **ids = calloc((size_t)n, sizeof *ids);
    double t0 = secs();
    for (int i = 0; i < n; i++) {
        char *s = malloc(srclen + 64);
        int len = snprintf(s, srclen + 64, "%s\n/* submission %d */\n", src, i);
        struct queue_admit_args a = {.pool = "native", .lang = "c", .problem = "ab10", .source = s,
                                     .source_len = (size_t)len, .max_queue = 0, .max_source = 0, .version = ""};
        struct queue_admit_reply r;
        if (queue_admit(&k, &a, &r, err, sizeof err))
            b_die(err);
        ids[i] = strdup(r.id);
        free(s);
    }
    wait_events(&k, n);
    double first = secs() - t0;

    t0 = secs();
    for (int i = 0; i < n; i++) {
        char res[32];
        if (queue_rejudge(&k, "native", ids[i], "", "rj-bench", res, sizeof res, err, sizeof err) || strcmp(res, "queued"))
            b_die(err[0] ? err : "not queued");
    }
    wait_events(&k, 2LL * n);
    double again = secs() - t0;

    redisReply *ev = queue_cmd(&k, "XRANGE judge:{native}:results - +");
    int ac = 0;
    for (size_t i = 0; ev && i < ev->elements; i++) {
        redisReply *fl = ev->element[i]->element[1];
        for (size_t j = 0; j + 1 < fl->elements; j += 2)
            ac += !strcmp(fl->element[j]->str, "verdict") && !strcmp(fl->element[j + 1]->str, "AC");
    }
    if (ev)
        freeReplyObject(ev);
    kill(jd, SIGTERM);
    waitpid(jd, NULL, 0);
    printf("submissions: %d distinct A+B in C, 10 tests each; %d of %d results AC\n", n, ac, 2 * n);
    printf("first judging (compiles):      %6.2f s  %6.1f /s\n", first, n / first);
    printf("rejudge (compile cache hits):  %6.2f s  %6.1f /s\n", again, n / again);
    printf("rejudge speedup: %.2fx (target >= 3x)\n", first / again);
    for (int i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    free(src);
    queue_conn_close(&k);
    b_stop(redis);
    b_cleanup();
    return ac == 2 * n ? 0 : 1;
}
