/* bench_e2e - end to end: N A+B submissions in C, 10 tests each.
 *
 * (1) one after another locally: runner_judge in a loop, one slot;
 * (2) through judged with 2 slots: admitted with the submit script, judged,
 *     verdicts stored and published; timed from the first admission to the
 *     last result event.
 * Prints both throughputs and their ratio (target >= 1.6x).
 *
 * usage: bench_e2e [N [ROUNDS]]     (default 200 submissions, 1 round; with
 * several rounds the three measurements are interleaved, best of each)
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "bench_common.h"
#include "runner.h"

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

/* Every judgment gets a source of its own (a numbered comment), so that
 * each one compiles: the runner's compile cache would otherwise answer all
 * but the first (bench_rejudge measures that). */
static atomic_int variants;

static char *variant(const char *src, size_t len, size_t *outlen)
{
    char *s = malloc(len + 64);
    *outlen = (size_t)snprintf(s, len + 64, "%s\n/* variant %d */\n", src, atomic_fetch_add(&variants, 1));
    return s;
}

struct par {
    struct runner *r;
    const char *pdir, *src;
    size_t srclen;
    atomic_int left;
};

static void *par_worker(void *arg)
{
    struct par *p = arg;
    char err[512];
    while (atomic_fetch_sub(&p->left, 1) > 0) {
        size_t vlen;
        char *v = variant(p->src, p->srclen, &vlen);
        struct runner_request req = {.problem_dir = p->pdir, .language = "c", .source = v,
                                     .source_len = vlen};
        struct runner_report *rep;
        enum runner_failure fail;
        if (runner_judge(p->r, &req, &rep, &fail, err, sizeof err))
            b_die(err);
        runner_report_free(rep);
        free(v);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || atoi(argv[i]) <= 0) {
            fprintf(strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? stderr : stdout,
                    "%s", "usage: bench_e2e [SUBMISSIONS [ROUNDS]]\n  SUBMISSIONS A+B submissions in C (default 200) judged one after another\n  locally, by 2 local threads and by judged with 2 slots; ROUNDS (default 1)\n");
            return strcmp(argv[i], "--help") && strcmp(argv[i], "-h") ? 2 : 0;
        }
    int n = argc > 1 ? atoi(argv[1]) : 200;
    int rounds = argc > 2 ? atoi(argv[2]) : 1;
    pid_t redis = b_redis();
    char p[600], err[1024];
    snprintf(p, sizeof p, "%s/problems", B_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/problems/ab10", B_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/problems/ab10/problem.yaml", B_dir);
    put(p, "name: ab10\ntitle: A plus B, 10 tests\ntime_limit: 1s\nmemory_limit: 256M\nchecker: tokens\n");
    snprintf(p, sizeof p, "%s/problems/ab10/tests", B_dir);
    mkdir(p, 0755);
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
    char *src = jd_read_file(JUDGED_SOURCE_DIR "/testdata/aplusb/solutions/ac.c", 1 << 20, &srclen,
                             err, sizeof err);
    if (!src)
        b_die(err);

    /* judged, 2 slots (idle until the judged phase of each round) */
    char cfg[600], log[600], work[600], pdir[600];
    snprintf(cfg, sizeof cfg, "%s/judged.yaml", B_dir);
    snprintf(log, sizeof log, "%s/judged.log", B_dir);
    FILE *f = fopen(cfg, "w");
    fprintf(f, "redis: %s\nstate_dir: %s/state\nproblems: %s/problems\nlanguages: %s/languages\n"
               "host: bench\nfirst_slot: 700\nlease: 30s\nheartbeat: 1s\n"
               "pools:\n  native: {languages: [c, cpp], slots: 2, max_queue: 0}\n",
            B_url, B_dir, B_dir, JUDGED_SOURCE_DIR);
    fclose(f);
    pid_t jd = b_judged(JUDGED_BIN_DIR "/judged", cfg, log);
    struct queue_conn k;
    queue_conn_init(&k, B_url, 10000);
    while (b_int(&k, "EXISTS %s", "judge:host:bench") != 1)
        jd_sleep_ms(20);

    snprintf(work, sizeof work, "%s/local", B_dir);
    mkdir(work, 0755);
    snprintf(pdir, sizeof pdir, "%s/problems/ab10", B_dir);
    /* rounds interleave the three measurements (best of each): the machine
     * may be shared with other work */
    double local = 1e9, ceiling = 1e9, judged = 1e9;
    for (int round = 0; round < rounds; round++) {
        /* (1) locally, one after another */
        struct runner_config rc = {.languages_dir = JUDGED_SOURCE_DIR "/languages",
                                   .work_dir = work, .first_slot = 710, .slots = 1};
        struct runner *r;
        if (runner_open(&r, &rc, err, sizeof err))
            b_die(err);
        double t0 = secs();
        for (int i = 0; i < n; i++) {
            size_t vlen;
            char *v = variant(src, srclen, &vlen);
            struct runner_request req = {.problem_dir = pdir, .language = "c", .source = v,
                                         .source_len = vlen};
            struct runner_report *rep;
            enum runner_failure fail;
            if (runner_judge(r, &req, &rep, &fail, err, sizeof err))
                b_die(err);
            free(v);
            if (runner_report_verdict(rep) != RUNNER_AC)
                b_die("local judgment is not AC");
            runner_report_free(rep);
        }
        double t = secs() - t0;
        local = t < local ? t : local;
        runner_close(r);

        /* (1b) the machine's ceiling: runner_judge from 2 threads, no queue */
        rc.slots = 2;
        if (runner_open(&r, &rc, err, sizeof err))
            b_die(err);
        struct par par = {.r = r, .pdir = pdir, .src = src, .srclen = srclen};
        atomic_store(&par.left, n);
        pthread_t th[2];
        t0 = secs();
        for (int i = 0; i < 2; i++)
            pthread_create(&th[i], NULL, par_worker, &par);
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
        t = secs() - t0;
        ceiling = t < ceiling ? t : ceiling;
        runner_close(r);

        /* (2) through judged: from the first admission to the last event */
        t0 = secs();
        for (int i = 0; i < n; i++) {
            size_t vlen;
            char *v = variant(src, srclen, &vlen);
            b_submit(&k, "native", "c", "ab10", v, vlen);
            free(v);
        }
        while (b_int(&k, "XLEN %s", "judge:{native}:results") < (long long)n * (round + 1))
            jd_sleep_ms(10);
        t = secs() - t0;
        judged = t < judged ? t : judged;
    }
    redisReply *ev = queue_cmd(&k, "XRANGE judge:{native}:results - +");
    int ac = 0;
    for (size_t i = 0; ev && i < ev->elements; i++) {
        redisReply *fl = ev->element[i]->element[1];
        for (size_t j = 0; j + 1 < fl->elements; j += 2)
            if (!strcmp(fl->element[j]->str, "verdict")) {
                if (!strcmp(fl->element[j + 1]->str, "AC"))
                    ac++;
                else if (ac + 5 > (int)i) /* show the first few others */
                    fprintf(stderr, "bench: a judged verdict is %s\n", fl->element[j + 1]->str);
            }
    }
    if (ev)
        freeReplyObject(ev);
    kill(jd, SIGTERM);
    waitpid(jd, NULL, 0);
    n *= rounds;
    printf("submissions: %d (C, 10 tests each) x %d round(s), %d AC through judged\n", n / rounds,
           rounds, ac);
    n /= rounds;
    printf("local, one after another: %6.2f s  %6.1f judgments/s\n", local, n / local);
    printf("local, 2 threads:         %6.2f s  %6.1f judgments/s (the machine's ceiling, %.2fx)\n",
           ceiling, n / ceiling, local / ceiling);
    printf("judged, 2 slots:          %6.2f s  %6.1f judgments/s\n", judged, n / judged);
    printf("speedup: %.2fx (target >= 1.6x)\n", local / judged);
    queue_conn_close(&k);
    free(src);
    b_stop(redis);
    b_cleanup();
    return ac == n * rounds ? 0 : 1;
}
