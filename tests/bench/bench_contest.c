/* bench_contest.c - a contest replayed through judge-api (issue 42): how
 * long after a submission does the contestant see the verdict, in the first
 * minutes and in the last, and what does a verdict cost?
 *
 *   bench_contest [--contestants 40] [--problems 4] [--per-contestant 5]
 *                 [--minutes 300] [--compress 60] [--streams 200]
 *                 [--native-slots 1] [--managed-slots 1] [--seed 1]
 *                 [--out DIR] [--scale COMPRESS] [--keda-poll 10] [--keda-lag 1]
 *                 [--keda-prescale 8] [--pod-start 45] [--cold]
 *
 * The judge is the embedded default (judged/demo.sh's shape): a private
 * redis-server, judged and judge-api, pools `native` (cpp) and `managed`
 * (python3, java), sandbox slots 720..723 (no test uses them: the suites'
 * ranges are in tests/judged/CMakeLists.txt and the suites' headers); the contest starts once judged has warmed its languages
 * up (judged/daemon/warm.c), as a contest's hosts start before it does;
 * --cold turns warm-up off (the first submission of C++ and of Java then
 * waits for their prepared files). The bench makes PROBLEMS problems of its own ("the sum
 * of n numbers": 20 to 100 tests, the inputs growing to 50,000 numbers, a
 * custom checker in C built at the first judging, ICPC's stop at the first
 * failure) and a contest's submissions:
 *
 *  - The curve (contest time, MINUTES long): a burst in the first 10% at
 *    2.5x the middle's rate, the middle (10%-85%) at 1x, the rush in the
 *    last 15% at 2x: 19%, 58% and 23% of the submissions. Within a phase
 *    the times are uniform. CONTESTANTS x PER-CONTESTANT submissions in all,
 *    each for a problem picked with weight PROBLEMS-k (the first problems
 *    are the easy ones most submit).
 *  - Languages: C++ 65%, Python 3 20%, Java 15%. Outcomes: AC 40%, WA 32%,
 *    TLE 12%, RE 8%, CE 8% (roughly what public contest statistics show).
 *    WA, TLE and RE fail from a test picked at random onwards (the input's
 *    size decides: the program cannot know a test's number); a TLE spins
 *    there until the time limit (1 s): it costs its full limit. Every source
 *    carries a comment of its own: the compile cache never answers.
 *  - Time compressed COMPRESS times: the contest's MINUTES take
 *    MINUTES/COMPRESS real minutes, so the judge sees the rate of a contest
 *    COMPRESS times larger; judging itself is real time.
 *
 * While it submits, STREAMS event streams (GET /v1/events) are open, as a
 * scoreboard's and contestants' pages hold them; one of them is the
 * bench's: a verdict's time is when that stream delivers it (what a
 * contestant's page sees), from just before its POST.
 *
 * It prints, per pool and overall: verdicts per real minute, p50/p95/p99
 * submit-to-verdict by phase, the judge's CPU per verdict outside the
 * contestants' programs (judged with every box, compiler and checker it
 * waited for, judge-api, Redis: the processes' own rusage, so the machine's
 * other load does not count), and the hosts needed to hold p99 <= 30 s at
 * the uncompressed curve, for this contest and one SCALE times larger
 * (default COMPRESS: the rate the replay put on the judge, in real time): a
 * queue simulation fed with the measured judging times, the larger
 * contest's extra submissions drawn again from the curve. It simulates
 * KEDA's rule of packaging/kubernetes/keda.yaml against that curve
 * (keda_one says how), then with a cron trigger holding KEDA-PRESCALE pods
 * through the burst. DIR gets
 * samples.csv (every second: each pool's depth, oldest wait, running,
 * verdicts so far), submissions.csv and, when chromium is installed,
 * dashboard.png (the dashboard's own charts at the end of the run). A
 * program, not a test: the figures depend on the machine. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "bench_judge.h"

#define SRC JUDGED_SOURCE_DIR
#define MAX_STREAMS 5000
#define TIME_LIMIT_S 1

enum outcome { O_AC, O_WA, O_TLE, O_RE, O_CE, NOUTCOMES };
static const char *const outcome_name[] = {"AC", "WA", "TLE", "RE", "CE"};
static const int outcome_pct[] = {40, 32, 12, 8, 8};

struct lang {
    const char *id, *pool;
    int pct;
};
static const struct lang langs[] = {{"cpp", "native", 65}, {"python3", "managed", 20}, {"java", "managed", 15}};
#define NLANGS 3
static const char *const pools[] = {"native", "managed"};
#define NPOOLS 2

enum phase { PH_BURST, PH_MIDDLE, PH_RUSH, NPHASES };
static const char *const phase_name[] = {"burst", "middle", "rush"};
static const double phase_end[] = {0.10, 0.85, 1.0}, phase_rate[] = {2.5, 1.0, 2.0};

struct params {
    int contestants, problems, per_contestant, minutes, streams, native_slots, managed_slots, scale,
        keda_prescale;
    bool cold;                   /* --cold: warm_up: false (the judge before warm-up) */
    double compress, keda_poll, keda_lag, pod_start;
    unsigned seed;
    const char *out;
};

struct sub {
    double at_contest_s;         /* when, in contest time */
    int problem, lang, threshold;
    enum outcome want;
    enum phase phase;
    char id[192];
    double sent_ms, seen_ms;     /* CLOCK_REALTIME: before the POST, when the stream delivered it */
    char verdict[8];
    double judging_s, wait_s, tests_cpu, compile_cpu;
};

struct bench {
    struct params p;
    struct bj_judge j;
    char submit_token[200], viewer_token[200];   /* viewer: the scoreboard's (read, viewer) */
    char pdir[160];
    struct sub *subs;
    int nsubs;
    int *test_sizes[64], ntests[64];
    atomic_int seen;
    atomic_bool submitting_done, stop;
    double start_ms;
    pthread_mutex_t lock;
    FILE *samples;
};

/* ------------------------------------------------------------ the contest */

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 8) & 0xffffff;
}

static double uniform(unsigned *s)
{
    return next_rand(s) / (double)0x1000000;
}

static int pick(unsigned *s, const int *weights, int n)
{
    int total = 0;
    for (int i = 0; i < n; i++)
        total += weights[i];
    int r = (int)(uniform(s) * total);
    for (int i = 0; i < n; i++)
        if ((r -= weights[i]) < 0)
            return i;
    return n - 1;
}

static int cmp_sub(const void *a, const void *b)
{
    double x = ((const struct sub *)a)->at_contest_s, y = ((const struct sub *)b)->at_contest_s;
    return x < y ? -1 : x > y;
}

/* the curve: a phase by its share of the submissions, a time inside it */
static void make_submissions(struct bench *b)
{
    const struct params *p = &b->p;
    b->nsubs = p->contestants * p->per_contestant;
    b->subs = calloc((size_t)b->nsubs, sizeof *b->subs);
    int phase_w[NPHASES], prob_w[64], lang_w[NLANGS];
    for (int i = 0; i < NPHASES; i++)
        phase_w[i] = (int)(1000 * phase_rate[i] * (phase_end[i] - (i ? phase_end[i - 1] : 0)));
    for (int i = 0; i < p->problems; i++)
        prob_w[i] = p->problems - i;
    for (int i = 0; i < NLANGS; i++)
        lang_w[i] = langs[i].pct;
    unsigned s = p->seed;
    for (int i = 0; i < b->nsubs; i++) {
        struct sub *u = &b->subs[i];
        u->phase = (enum phase)pick(&s, phase_w, NPHASES);
        double lo = u->phase ? phase_end[u->phase - 1] : 0, hi = phase_end[u->phase];
        u->at_contest_s = (lo + (hi - lo) * uniform(&s)) * p->minutes * 60;
        u->problem = pick(&s, prob_w, p->problems);
        u->lang = pick(&s, lang_w, NLANGS);
        u->want = (enum outcome)pick(&s, outcome_pct, NOUTCOMES);
        /* fails at the first test larger than the threshold: one of them */
        int nt = b->ntests[u->problem];
        int from = 1 + (int)(uniform(&s) * (nt - 1));
        u->threshold = b->test_sizes[u->problem][from - 1];
    }
    qsort(b->subs, (size_t)b->nsubs, sizeof *b->subs, cmp_sub);
}

static const char checker_c[] =
    "/* the sum's checker: checker INPUT OUTPUT ANSWER, testlib's exit codes */\n"
    "#include <stdio.h>\n"
    "int main(int argc, char **argv) {\n"
    "    if (argc < 4) return 3;\n"
    "    FILE *o = fopen(argv[2], \"r\"), *a = fopen(argv[3], \"r\");\n"
    "    long long x, y;\n"
    "    if (!o || !a || fscanf(a, \"%lld\", &y) != 1) return 3;\n"
    "    if (fscanf(o, \"%lld\", &x) != 1) { fprintf(stderr, \"no number\\n\"); return 1; }\n"
    "    if (x != y) { fprintf(stderr, \"expected %lld, got %lld\\n\", y, x); return 1; }\n"
    "    return 0;\n"
    "}\n";

/* problem k: 20 to 100 tests, test i holding about 50,000 (i+1)^2/T^2 numbers */
static void make_problem(struct bench *b, int k, unsigned *s)
{
    char dir[300], path[400];
    snprintf(dir, sizeof dir, "%s/sum%d", b->pdir, k);
    snprintf(path, sizeof path, "%s/tests", dir);
    if (common_mkdir_p(path, 0755))
        bj_die(path);
    int nt = b->p.problems > 1 ? 20 + 80 * k / (b->p.problems - 1) : 40;
    b->ntests[k] = nt;
    b->test_sizes[k] = calloc((size_t)nt, sizeof(int));
    for (int t = 0; t < nt; t++) {
        int n = 1 + (int)(50000.0 * (t + 1) * (t + 1) / ((double)nt * nt));
        b->test_sizes[k][t] = n;
        snprintf(path, sizeof path, "%s/tests/%03d.in", dir, t + 1);
        FILE *in = fopen(path, "w");
        snprintf(path, sizeof path, "%s/tests/%03d.out", dir, t + 1);
        FILE *out = fopen(path, "w");
        if (!in || !out)
            bj_die(path);
        long long sum = 0;
        fprintf(in, "%d\n", n);
        for (int i = 0; i < n; i++) {
            long long v = (long long)(uniform(s) * 2e9) - 1000000000LL;
            sum += v;
            fprintf(in, "%lld%c", v, i + 1 < n ? ' ' : '\n');
        }
        fprintf(out, "%lld\n", sum);
        fclose(in);
        fclose(out);
    }
    snprintf(path, sizeof path, "%s/checker.c", dir);
    bj_write(path, checker_c);
    snprintf(path, sizeof path, "%s/problem.yaml", dir);
    char yaml[400];
    snprintf(yaml, sizeof yaml, "name: sum%d\ntitle: Sum %d\ntime_limit: %ds\nmemory_limit: 256M\n"
                                "checker: {type: custom, source: checker.c}\nstop_on_failure: all\n",
             k, k, TIME_LIMIT_S);
    bj_write(path, yaml);
}

/* a contestant's source: the sum, failing as wanted at inputs larger than
 * the threshold; a comment of its own so that every source compiles */
static char *source_for(const struct sub *u, int seq)
{
    const char *id = langs[u->lang].id;
    int th = u->threshold;
    char *s = NULL;
    int rc;
    if (!strcmp(id, "cpp")) {
        const char *fail = u->want == O_WA ? "sum += 1;"
                         : u->want == O_TLE ? "for (volatile unsigned long x = 0;; x++) {}"
                         : u->want == O_RE ? "{ volatile int *p = nullptr; *p = 1; }" : "";
        rc = asprintf(&s, "// contest submission %d\n#include <bits/stdc++.h>\nusing namespace std;\n"
                          "int main() { int n; if (scanf(\"%%d\", &n) != 1) return 0; long long sum = 0;\n"
                          "  for (int i = 0; i < n; i++) { long long v; if (scanf(\"%%lld\", &v) == 1) sum += v; }\n"
                          "  if (n > %d) { %s }\n  printf(\"%%lld\\n\", sum)%s }\n",
                      seq, th, fail, u->want == O_CE ? "" : ";");
    } else if (!strcmp(id, "python3")) {
        const char *fail = u->want == O_WA ? "s += 1"
                         : u->want == O_TLE ? "while True: pass"
                         : u->want == O_RE ? "raise RuntimeError('boom')" : "pass";
        rc = asprintf(&s, "# contest submission %d\nimport sys\ndata = sys.stdin.buffer.read().split()\n"
                          "n = int(data[0])\ns = sum(map(int, data[1:n + 1]))\nif n > %d:\n    %s\n"
                          "print(s%s\n",
                      seq, th, fail, u->want == O_CE ? "" : ")");
    } else {
        const char *fail = u->want == O_WA ? "s += 1;"
                         : u->want == O_TLE ? "for (long x = 0;; x++) { if (x == -1) break; }"
                         : u->want == O_RE ? "throw new RuntimeException(\"boom\");" : "";
        rc = asprintf(&s, "// contest submission %d\nimport java.io.*;\nimport java.util.*;\n"
                          "public class Main { public static void main(String[] a) throws IOException {\n"
                          "  StreamTokenizer in = new StreamTokenizer(new BufferedInputStream(System.in));\n"
                          "  in.nextToken(); int n = (int) in.nval; long s = 0;\n"
                          "  for (int i = 0; i < n; i++) { in.nextToken(); s += (long) in.nval; }\n"
                          "  if (n > %d) { %s }\n  System.out.println(s)%s } }\n",
                      seq, th, fail, u->want == O_CE ? "" : ";");
    }
    if (rc < 0)
        bj_die("asprintf");
    return s;
}

/* --------------------------------------------------------------- streams */

struct stream {
    int fd;
    bool scoreboard;             /* the bench's own: parsed */
    char buf[65536];
    size_t len;
};

static struct sub *find_sub(struct bench *b, const char *id)
{
    for (int i = 0; i < b->nsubs; i++)
        if (b->subs[i].id[0] && !strcmp(b->subs[i].id, id))
            return &b->subs[i];
    return NULL;
}

/* the scoreboard's complete lines: a verdict event's data names the id */
static void scoreboard_lines(struct bench *b, struct stream *st)
{
    char *line = st->buf, *nl;
    while ((nl = memchr(line, '\n', st->len - (size_t)(line - st->buf)))) {
        *nl = 0;
        if (!strncmp(line, "data: ", 6)) {
            json_t *d = json_loads(line + 6, 0, NULL);
            const char *id = json_string_value(json_object_get(d, "id"));
            const char *v = json_string_value(json_object_get(d, "verdict"));
            pthread_mutex_lock(&b->lock);
            struct sub *u = id ? find_sub(b, id) : NULL;
            if (u && !u->seen_ms) {
                u->seen_ms = bj_wall_ms();
                snprintf(u->verdict, sizeof u->verdict, "%s", v ? v : "?");
                atomic_fetch_add(&b->seen, 1);
            }
            pthread_mutex_unlock(&b->lock);
            json_decref(d);
        }
        line = nl + 1;
    }
    st->len -= (size_t)(line - st->buf);
    memmove(st->buf, line, st->len);
}

static void *stream_reader(void *arg)
{
    struct bench *b = arg;
    int n = b->p.streams, ep = epoll_create1(0);
    struct stream *sts = calloc((size_t)n, sizeof *sts);
    char req[512];
    /* HTTP/1.0: the stream comes unchunked, so lines are never cut by a
     * chunk's framing */
    snprintf(req, sizeof req, "GET /v1/events HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                              "Accept: text/event-stream\r\n\r\n", b->viewer_token);
    for (int i = 0; i < n; i++) {
        sts[i].scoreboard = i == 0;
        if ((sts[i].fd = bj_connect(&b->j)) < 0 || write(sts[i].fd, req, strlen(req)) != (ssize_t)strlen(req))
            bj_die("an event stream could not be opened");
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &sts[i]};
        epoll_ctl(ep, EPOLL_CTL_ADD, sts[i].fd, &ev);
    }
    while (!atomic_load(&b->stop)) {
        struct epoll_event evs[64];
        int k = epoll_wait(ep, evs, 64, 200);
        for (int e = 0; e < k; e++) {
            struct stream *st = evs[e].data.ptr;
            ssize_t got = read(st->fd, st->buf + st->len, sizeof st->buf - 1 - st->len);
            if (got <= 0) {
                if (st->scoreboard)
                    bj_die("the scoreboard's event stream ended");
                epoll_ctl(ep, EPOLL_CTL_DEL, st->fd, NULL);
                continue;
            }
            if (!st->scoreboard)
                continue;
            st->len += (size_t)got;
            if (!strncmp(st->buf, "HTTP/1.", 7) && strncmp(st->buf + 8, " 200", 4))
                { fprintf(stderr, "%.*s\n", (int)st->len, st->buf); bj_die("GET /v1/events was refused"); }
            scoreboard_lines(b, st);
            if (st->len >= sizeof st->buf - 1)
                st->len = 0;
        }
    }
    for (int i = 0; i < n; i++)
        close(sts[i].fd);
    free(sts);
    close(ep);
    return NULL;
}

/* every second: each pool's depth, oldest wait, running (GET /v1/pools) */
static void *sampler(void *arg)
{
    struct bench *b = arg;
    while (!atomic_load(&b->stop)) {
        json_t *v = bj_get_json(&b->j, "/v1/pools", b->viewer_token);
        double now = bj_wall_ms(), real_s = (now - b->start_ms) / 1e3;
        size_t i;
        json_t *pl;
        json_array_foreach(json_object_get(v, "pools"), i, pl)
            fprintf(b->samples, "%.1f,%.1f,%s,%lld,%lld,%lld,%d\n", real_s, real_s * b->p.compress / 60,
                    json_string_value(json_object_get(pl, "name")),
                    (long long)json_integer_value(json_object_get(pl, "depth")),
                    (long long)json_integer_value(json_object_get(pl, "oldest_ms")),
                    (long long)json_integer_value(json_object_get(pl, "running")), atomic_load(&b->seen));
        fflush(b->samples);
        json_decref(v);
        common_sleep_ms(1000);
    }
    return NULL;
}

/* ------------------------------------------------------------ the replay */

static void replay(struct bench *b)
{
    b->start_ms = bj_wall_ms();
    for (int i = 0; i < b->nsubs; i++) {
        struct sub *u = &b->subs[i];
        double due = b->start_ms + u->at_contest_s * 1e3 / b->p.compress;
        double now = bj_wall_ms();
        if (due > now)
            common_sleep_ms((long)(due - now));
        char *src = source_for(u, i);
        char problem[32];
        snprintf(problem, sizeof problem, "sum%d", u->problem);
        double sent = bj_wall_ms();
        char *id = bj_submit(&b->j, b->submit_token, problem, langs[u->lang].id, src);
        pthread_mutex_lock(&b->lock);
        snprintf(u->id, sizeof u->id, "%s", id);
        u->sent_ms = sent;
        pthread_mutex_unlock(&b->lock);
        free(id);
        free(src);
    }
    atomic_store(&b->submitting_done, true);
    for (int waited = 0; atomic_load(&b->seen) < b->nsubs; waited++) {
        if (waited > 20 * 60 * 10)
            bj_die("verdicts still missing after 20 minutes");
        common_sleep_ms(100);
    }
}

/* what each stored result says (GET /v1/submissions/ID) */
static void collect(struct bench *b)
{
    for (int i = 0; i < b->nsubs; i++) {
        struct sub *u = &b->subs[i];
        char path[256];
        snprintf(path, sizeof path, "/v1/submissions/%s", u->id);
        json_t *r = bj_get_json(&b->j, path, b->submit_token);
        if (!r)
            bj_die(path);
        u->judging_s = json_integer_value(json_object_get(r, "judging_ms")) / 1e3;
        u->wait_s = json_integer_value(json_object_get(r, "queue_wait_ms")) / 1e3;
        u->compile_cpu = json_number_value(json_object_get(json_object_get(r, "compile"), "cpu_time"));
        size_t k;
        json_t *t;
        json_array_foreach(json_object_get(r, "tests"), k, t)
            u->tests_cpu += json_number_value(json_object_get(t, "cpu_time"));
        json_decref(r);
    }
}

/* ------------------------------------------------------------- the report */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(double *v, int n, double q)
{
    if (n == 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    int i = (int)ceil(q * n) - 1;
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* latencies of pool (NULL: all) in phase (-1: all) */
static int latencies(const struct bench *b, const char *pool, int phase, double *out)
{
    int n = 0;
    for (int i = 0; i < b->nsubs; i++) {
        const struct sub *u = &b->subs[i];
        if ((!pool || !strcmp(langs[u->lang].pool, pool)) && (phase < 0 || (int)u->phase == phase))
            out[n++] = (u->seen_ms - u->sent_ms) / 1e3;
    }
    return n;
}

static void print_latency(const struct bench *b)
{
    double *v = malloc(sizeof(double) * (size_t)b->nsubs);
    printf("\nsubmit to verdict (s): from just before the POST to the event on an open stream\n");
    printf("%-8s %-7s %6s %8s %8s %8s\n", "pool", "phase", "subs", "p50", "p95", "p99");
    for (int pi = 0; pi <= NPOOLS; pi++) {
        const char *pool = pi < NPOOLS ? pools[pi] : NULL;
        for (int ph = 0; ph <= NPHASES; ph++) {
            int phase = ph < NPHASES ? ph : -1;
            int n = latencies(b, pool, phase, v);
            double p50 = quantile(v, n, 0.5), p95 = quantile(v, n, 0.95), p99 = quantile(v, n, 0.99);
            printf("%-8s %-7s %6d %8.2f %8.2f %8.2f\n", pool ? pool : "all", phase < 0 ? "all" : phase_name[phase],
                   n, p50, p95, p99);
        }
    }
    free(v);
}

static void print_rates(const struct bench *b)
{
    double first = 1e300, last = 0;
    for (int i = 0; i < b->nsubs; i++) {
        first = fmin(first, b->subs[i].sent_ms);
        last = fmax(last, b->subs[i].seen_ms);
    }
    double minutes = (last - first) / 60e3;
    printf("\nverdicts per real minute, over %.1f min from the first submission to the last verdict:", minutes);
    for (int pi = 0; pi < NPOOLS; pi++) {
        int n = 0;
        for (int i = 0; i < b->nsubs; i++)
            n += !strcmp(langs[b->subs[i].lang].pool, pools[pi]);
        printf(" %s %.1f,", pools[pi], n / minutes);
    }
    printf(" all %.1f\n", b->nsubs / minutes);
}

/* the outcomes asked for against the verdicts given */
static int print_outcomes(const struct bench *b)
{
    int count[NOUTCOMES] = {0}, wrong = 0;
    for (int i = 0; i < b->nsubs; i++) {
        const struct sub *u = &b->subs[i];
        count[u->want]++;
        if (strcmp(u->verdict, outcome_name[u->want])) {
            if (wrong++ < 10)
                fprintf(stderr, "submission %s (%s, %s wanted): %s\n", u->id, langs[u->lang].id,
                        outcome_name[u->want], u->verdict);
        }
    }
    printf("%d submissions:", b->nsubs);
    for (int o = 0; o < NOUTCOMES; o++)
        printf(" %s %d", outcome_name[o], count[o]);
    printf("; verdicts other than the outcome written: %d\n", wrong);
    return wrong;
}

/* ------------------------------------------------------ the simulations */

/* A contest SCALE times larger at the uncompressed curve: each submission
 * SCALE times (the first at its own time, the others at times drawn again
 * within its phase), each taking the judging time it took here. */
struct sim_job {
    double at, service;
    int pool;
};

static int cmp_job(const void *a, const void *b)
{
    double x = ((const struct sim_job *)a)->at, y = ((const struct sim_job *)b)->at;
    return x < y ? -1 : x > y;
}

static struct sim_job *sim_jobs(const struct bench *b, int scale, int *n)
{
    struct sim_job *jobs = malloc(sizeof *jobs * (size_t)b->nsubs * (size_t)scale);
    unsigned seed = b->p.seed + 7;
    double len = b->p.minutes * 60.0;
    *n = 0;
    for (int i = 0; i < b->nsubs; i++) {
        const struct sub *u = &b->subs[i];
        double lo = u->phase ? phase_end[u->phase - 1] : 0, hi = phase_end[u->phase];
        for (int r = 0; r < scale; r++)
            jobs[(*n)++] = (struct sim_job){r ? (lo + (hi - lo) * uniform(&seed)) * len : u->at_contest_s,
                                            u->judging_s, strcmp(langs[u->lang].pool, pools[0]) ? 1 : 0};
    }
    qsort(jobs, (size_t)*n, sizeof *jobs, cmp_job);
    return jobs;
}

#define SIM_MAX_SERVERS 1024

/* A FIFO queue of pool's jobs with servers (or servers_at[second]) slots:
 * the p99 of arrival to verdict; *waiting_at (when given): the jobs that
 * arrived by then and had not started. */
static double simulate(const struct sim_job *jobs, int n, int pool, int servers, const int *servers_at,
                       double until, int *waiting_at)
{
    double *free_at = calloc(SIM_MAX_SERVERS, sizeof(double)), *lat = malloc(sizeof(double) * (size_t)n);
    int m = 0, waiting = 0;
    for (int i = 0; i < n && jobs[i].at <= until; i++) {
        if (jobs[i].pool != pool)
            continue;
        int c = servers_at ? servers_at[(int)jobs[i].at] : servers;
        c = c < 1 ? 1 : c > SIM_MAX_SERVERS ? SIM_MAX_SERVERS : c;
        int best = 0;
        for (int s = 1; s < c; s++)
            if (free_at[s] < free_at[best])
                best = s;
        double start = fmax(jobs[i].at, free_at[best]);
        free_at[best] = start + jobs[i].service;
        lat[m++] = free_at[best] - jobs[i].at;
        waiting += start > until;
    }
    if (waiting_at)
        *waiting_at = waiting;
    double p99 = quantile(lat, m, 0.99);
    free(free_at);
    free(lat);
    return p99;
}

static int pool_slots(const struct bench *b, int pi)
{
    return pi == 0 ? b->p.native_slots : b->p.managed_slots;
}

/* the hosts each pool needs for p99 <= 30 s, at scale 1 and SCALE */
static void print_hosts_needed(const struct bench *b)
{
    int scales[] = {1, b->p.scale};
    for (int k = 0; k < (b->p.scale > 1 ? 2 : 1); k++) {
        int n;
        struct sim_job *jobs = sim_jobs(b, scales[k], &n);
        printf("\n%d contestants at the uncompressed curve (%d min; %d submissions), judging times as measured "
               "here:\n", b->p.contestants * scales[k], b->p.minutes, n);
        for (int pi = 0; pi < NPOOLS; pi++) {
            int slots = pool_slots(b, pi), hosts = 1, slow = 0, mine = 0;
            double p99;
            for (int i = 0; i < n; i++)
                mine += jobs[i].pool == pi, slow += jobs[i].pool == pi && jobs[i].service > 30;
            if (slow * 100 > mine) {   /* more than 1% judged in over 30 s: no host count holds it */
                printf("  %-8s no number of hosts: %d of its judgings here took over 30 s (a loaded machine?)\n",
                       pools[pi], slow);
                continue;
            }
            while ((p99 = simulate(jobs, n, pi, hosts * slots, NULL, 1e18, NULL)) > 30 &&
                   hosts * slots < SIM_MAX_SERVERS)
                hosts++;
            printf("  %-8s %d host(s) of %d slot(s) hold p99 <= 30 s (p99 %.1f s; with one host %.1f s)\n",
                   pools[pi], hosts, slots, p99, simulate(jobs, n, pi, slots, NULL, 1e18, NULL));
        }
        free(jobs);
    }
}

/* KEDA's rule (packaging/kubernetes/keda.yaml) against the curve at SCALE:
 * every poll, the lag (jobs waiting) gives the pods wished for,
 * ceil(lag / (KEDA-LAG x slots)) between 1 and 20; the HPA's default
 * scale-up adds at most max(4 pods, 100%) a step, a new pod judges
 * POD-START s after it is asked for; a scale-down follows the largest wish
 * of the last 300 s, one pod a minute (keda.yaml's behavior). PRESCALE > 1:
 * that many pods from before the contest to the end of its burst (a cron
 * trigger beside the lag's). */
static void keda_one(const struct bench *b, const struct sim_job *jobs, int n, int pi, int prescale)
{
    int slots = pool_slots(b, pi), horizon = b->p.minutes * 60 + 3600, poll = (int)b->p.keda_poll;
    int npolls = horizon / poll + 1, ups = 0, last_down = -1000000, burst_end = (int)(phase_end[0] * b->p.minutes * 60);
    int replicas = prescale > 1 ? prescale : 1;
    int *servers = malloc(sizeof(int) * ((size_t)horizon + 1)), *wish = calloc((size_t)npolls, sizeof(int));
    for (int t = 0; t <= horizon; t++)
        servers[t] = replicas * slots;
    for (int q = 0; q < npolls; q++) {
        int t = q * poll, waiting;
        simulate(jobs, n, pi, 0, servers, t, &waiting);
        int want = (int)ceil(waiting / (b->p.keda_lag * slots));
        if (t <= burst_end && want < prescale)
            want = prescale;
        wish[q] = want < 1 ? 1 : want > 20 ? 20 : want;
        int keep = wish[q];
        if (keep < replicas) {   /* down: the largest wish of the window, one pod a minute */
            for (int r = q - 300 / poll; r < q; r++)
                if (r >= 0 && wish[r] > keep)
                    keep = wish[r];
            if (keep >= replicas || t - last_down < 60)
                continue;
            keep = replicas - 1;
            last_down = t;
        } else if (keep > replicas) {
            int most = replicas * 2 > replicas + 4 ? replicas * 2 : replicas + 4;
            keep = keep < most ? keep : most;
        } else {
            continue;
        }
        int from = keep > replicas ? t + (int)b->p.pod_start : t;
        if (keep > replicas && ups++ < 6)
            printf("  %-8s contest minute %5.1f: %d waiting, %d -> %d pods (judging from minute %.1f)\n", pools[pi],
                   t / 60.0, waiting, replicas, keep, from / 60.0);
        for (int s = from; s <= horizon; s++)
            servers[s] = keep * slots;
        replicas = keep;
    }
    printf("  %-8s p99 with KEDA %.1f s (%d scale-ups)%s, with one pod throughout %.1f s\n", pools[pi],
           simulate(jobs, n, pi, 0, servers, 1e18, NULL), ups, prescale > 1 ? " and the cron trigger" : "",
           simulate(jobs, n, pi, slots, NULL, 1e18, NULL));
    free(servers);
    free(wish);
}

static void print_keda(const struct bench *b)
{
    int n;
    struct sim_job *jobs = sim_jobs(b, b->p.scale, &n);
    for (int pass = 0; pass < (b->p.keda_prescale > 1 ? 2 : 1); pass++) {
        printf("\nKEDA at %d contestants (poll every %.0f s, lag %.0f per slot, a pod judging %.0f s after it is "
               "asked for, 1 to 20 pods)%s:\n", b->p.contestants * b->p.scale, b->p.keda_poll, b->p.keda_lag,
               b->p.pod_start, pass ? ", with a cron trigger holding pods through the burst" : "");
        for (int pi = 0; pi < NPOOLS; pi++)
            keda_one(b, jobs, n, pi, pass ? b->p.keda_prescale : 1);
    }
    free(jobs);
}

static double cpu_s(const struct rusage *ru)
{
    return ru->ru_utime.tv_sec + ru->ru_stime.tv_sec + (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;
}

/* stops the judge and charges its processes' CPU to the verdicts */
static void stop_and_print_cpu(struct bench *b)
{
    pid_t pids[] = {b->j.judged, b->j.api, b->j.redis};
    double cpu[3];
    for (int i = 0; i < 3; i++) {
        struct rusage ru;
        kill(pids[i], SIGTERM);
        if (wait4(pids[i], NULL, 0, &ru) < 0)
            memset(&ru, 0, sizeof ru);
        cpu[i] = cpu_s(&ru);
    }
    b->j.judged = b->j.api = b->j.redis = 0;
    double tests = 0, compiles = 0;
    for (int i = 0; i < b->nsubs; i++)
        tests += b->subs[i].tests_cpu, compiles += b->subs[i].compile_cpu;
    double all = cpu[0] + cpu[1] + cpu[2], outside = all - tests, n = b->nsubs;
    printf("\nCPU seconds per verdict: all %.3f; the contestants' programs %.3f; outside them %.3f = compiles "
           "%.3f + the rest %.3f (boxes, checkers, judged: judged's tree %.3f in all; judge-api %.3f; Redis %.3f)\n",
           all / n, tests / n, outside / n, compiles / n, (outside - compiles) / n, cpu[0] / n, cpu[1] / n,
           cpu[2] / n);
}

static void write_submissions_csv(const struct bench *b)
{
    char path[400];
    snprintf(path, sizeof path, "%s/submissions.csv", b->p.out);
    FILE *f = fopen(path, "w");
    if (!f)
        bj_die(path);
    fprintf(f, "contest_s,phase,problem,language,pool,wanted,verdict,latency_s,queue_wait_s,judging_s,"
               "compile_cpu_s,tests_cpu_s\n");
    for (int i = 0; i < b->nsubs; i++) {
        const struct sub *u = &b->subs[i];
        fprintf(f, "%.1f,%s,sum%d,%s,%s,%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f\n", u->at_contest_s, phase_name[u->phase],
                u->problem, langs[u->lang].id, langs[u->lang].pool, outcome_name[u->want], u->verdict,
                (u->seen_ms - u->sent_ms) / 1e3, u->wait_s, u->judging_s, u->compile_cpu, u->tests_cpu);
    }
    fclose(f);
}

/* the dashboard's own charts, when chromium is there */
static void screenshot(const struct bench *b)
{
    if (system("command -v chromium >/dev/null 2>&1"))
        return;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
                              "--window-size=1280,1400 --virtual-time-budget=10000 --screenshot=%s/dashboard.png "
                              "'http://127.0.0.1:%d/#token=%s' >/dev/null 2>&1",
             b->p.out, b->j.port, b->viewer_token);
    if (system(cmd))
        fprintf(stderr, "bench_contest: chromium's screenshot failed\n");
}

/* ------------------------------------------------------------------ main */

static void make_tokens(struct bj_judge *j, void *arg)
{
    struct bench *b = arg;
    bj_token(j, "contest", "submit", b->submit_token, sizeof b->submit_token);
    bj_token(j, "scoreboard", "read,viewer", b->viewer_token, sizeof b->viewer_token);
}

static void usage(FILE *to)
{
    fputs("usage: bench_contest [--contestants 40] [--problems 4] [--per-contestant 5] [--minutes 300]\n"
          "                     [--compress 60] [--streams 200] [--native-slots 1] [--managed-slots 1]\n"
          "                     [--seed 1] [--out DIR] [--scale COMPRESS] [--keda-poll 10] [--keda-lag 1]\n"
          "                     [--keda-prescale 8] [--pod-start 45] [--cold]\n"
          "A contest replayed through judge-api (tests/bench/bench_contest.c says how); figures on stdout,\n"
          "CSVs and the dashboard's PNG in DIR (default: a new /tmp/bench-contest-XXXXXX).\n",
          to);
}

static int parse(int argc, char **argv, struct params *p)
{
    static const struct option opts[] = {
        {"contestants", 1, 0, 'c'}, {"problems", 1, 0, 'p'}, {"per-contestant", 1, 0, 'n'},
        {"minutes", 1, 0, 'm'}, {"compress", 1, 0, 'x'}, {"streams", 1, 0, 's'},
        {"native-slots", 1, 0, 'N'}, {"managed-slots", 1, 0, 'M'}, {"seed", 1, 0, 'r'},
        {"out", 1, 0, 'o'}, {"scale", 1, 0, 'S'}, {"keda-poll", 1, 0, 'k'}, {"keda-lag", 1, 0, 'l'}, {"keda-prescale", 1, 0, 'P'}, {"cold", 0, 0, 'C'}, {"pod-start", 1, 0, 'd'},
        {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
    *p = (struct params){.contestants = 40, .problems = 4, .per_contestant = 5, .minutes = 300, .streams = 200,
                         .native_slots = 1, .managed_slots = 1, .keda_prescale = 8, .compress = 60,
                         .keda_poll = 10, .keda_lag = 1, .pod_start = 45, .seed = 1};
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': p->contestants = atoi(optarg); break;
        case 'p': p->problems = atoi(optarg); break;
        case 'n': p->per_contestant = atoi(optarg); break;
        case 'm': p->minutes = atoi(optarg); break;
        case 'x': p->compress = atof(optarg); break;
        case 's': p->streams = atoi(optarg); break;
        case 'N': p->native_slots = atoi(optarg); break;
        case 'M': p->managed_slots = atoi(optarg); break;
        case 'r': p->seed = (unsigned)atoi(optarg); break;
        case 'o': p->out = optarg; break;
        case 'S': p->scale = atoi(optarg); break;
        case 'k': p->keda_poll = atof(optarg); break;
        case 'l': p->keda_lag = atof(optarg); break;
        case 'P': p->keda_prescale = atoi(optarg); break;
        case 'C': p->cold = true; break;
        case 'd': p->pod_start = atof(optarg); break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    if (!p->scale)   /* the load the replay put on the judge, in real time */
        p->scale = p->compress < 1 ? 1 : p->compress > 1000 ? 1000 : (int)(p->compress + 0.5);
    if (optind < argc || p->contestants < 1 || p->problems < 1 || p->problems > 64 || p->per_contestant < 1 ||
        p->minutes < 1 || p->compress <= 0 || p->streams < 1 || p->streams > MAX_STREAMS || p->native_slots < 1 ||
        p->managed_slots < 1 || p->scale < 0 || p->scale > 1000 || p->keda_poll < 1 || p->keda_prescale < 0 || p->keda_prescale > 20 || p->keda_lag <= 0 || p->pod_start < 0) {
        usage(stderr);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static struct bench b;
    if (parse(argc, argv, &b.p))
        return 2;
    signal(SIGPIPE, SIG_IGN);
    struct rlimit nofile = {MAX_STREAMS + 256, MAX_STREAMS + 256};
    setrlimit(RLIMIT_NOFILE, &nofile);
    static char out[64];
    if (!b.p.out) {
        snprintf(out, sizeof out, "/tmp/bench-contest-XXXXXX");
        if (!mkdtemp(out))
            bj_die("mkdtemp");
        b.p.out = out;
    } else if (common_mkdir_p(b.p.out, 0755)) {
        bj_die(b.p.out);
    }
    pthread_mutex_init(&b.lock, NULL);
    snprintf(b.pdir, sizeof b.pdir, "%s/problems", b.p.out);
    unsigned s = b.p.seed;
    for (int k = 0; k < b.p.problems; k++)
        make_problem(&b, k, &s);
    make_submissions(&b);
    char rest[1024], api_extra[256];
    snprintf(rest, sizeof rest, "problems: %s\nlanguages: %s/languages\nheartbeat: 1s\nfirst_slot: 720\n"
                                "pools:\n  native: {languages: [cpp], slots: %d}\n"
                                "  managed: {languages: [python3, java], slots: %d}\noversubscribe: true\nwarm_up: %s\n",
             b.pdir, SRC, b.p.native_slots, b.p.managed_slots, b.p.cold ? "false" : "true");
    snprintf(api_extra, sizeof api_extra, "  rate: 0\n  max_streams_per_token: %d\n  max_connections: %d\n"
                                          "  max_connections_per_address: %d\n",
             MAX_STREAMS, MAX_STREAMS + 64, MAX_STREAMS + 64);
    b.j.name = "contest";
    bj_start(&b.j, rest, api_extra, make_tokens, &b);
    char path[400];
    snprintf(path, sizeof path, "%s/samples.csv", b.p.out);
    if (!(b.samples = fopen(path, "w")))
        bj_die(path);
    fprintf(b.samples, "real_s,contest_min,pool,depth,oldest_ms,running,verdicts\n");
    fprintf(stderr, "bench_contest: %d submissions over %.1f real minutes (%d contest minutes / %g), %d streams, "
                    "in %s\n", b.nsubs, b.p.minutes / b.p.compress, b.p.minutes, b.p.compress, b.p.streams,
            b.p.out);
    pthread_t reader, sample;
    pthread_create(&reader, NULL, stream_reader, &b);
    pthread_create(&sample, NULL, sampler, &b);
    common_sleep_ms(500);   /* the streams open before the contest starts */
    replay(&b);
    collect(&b);
    screenshot(&b);
    atomic_store(&b.stop, true);
    pthread_join(reader, NULL);
    pthread_join(sample, NULL);
    fclose(b.samples);
    printf("bench_contest: %d contestants, %d problems, %d contest minutes compressed %gx (%.1f real min), "
           "%d event streams open, slots native %d managed %d, warm-up %s\n", b.p.contestants, b.p.problems,
           b.p.minutes, b.p.compress, b.p.minutes / b.p.compress, b.p.streams, b.p.native_slots, b.p.managed_slots,
           b.p.cold ? "off" : "on");
    int wrong = print_outcomes(&b);
    print_rates(&b);
    print_latency(&b);
    print_hosts_needed(&b);
    print_keda(&b);
    stop_and_print_cpu(&b);
    write_submissions_csv(&b);
    printf("\nCSVs%s in %s\n", access(path, F_OK) ? "" : " (and dashboard.png when chromium ran)", b.p.out);
    bj_stop(&b.j, false);
    return wrong ? 1 : 0;
}
