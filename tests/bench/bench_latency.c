/* bench_latency.c - what a contestant waits for (issue 29): one submission
 * at a time on an idle judge, admitted over HTTP (judge-api), from the 202
 * to its verdict event, for C++ A+B including <bits/stdc++.h>, C, Python
 * and Java (testdata/aplusb, 20 tests).
 *
 *   bench_latency [ROUNDS]        (default 8 per language and mode)
 *
 * BENCH_BEFORE_LANGUAGES=DIR: the "before" judge reads its language files
 * from DIR (default: the source tree's languages/, the same as "after"),
 * e.g. an older commit's languages/ (`git archive COMMIT languages | tar -x
 * -C /tmp/old`), to compare with the judge as it was: a flag that speeds
 * up a language with and without prepared files shows only then.
 *
 * Two complete judges run side by side, each with its own redis-server,
 * judge-api and judged (pools native {c, cpp}, python, java; one slot
 * each): "before" with `prepare: false` (no precompiled header, no JVM
 * archive: today's judge) and "after" with `prepare: true`. Submissions go
 * to them in turn (before, after, language by language, round by round),
 * so both see the same machine load; a first round warms both (the after
 * judge builds its prepared files there) and is not counted. Every
 * submission has a comment of its own so that the compile cache never
 * answers.
 *
 * Latency: from the moment the 202 arrives to the verdict event, the
 * entry judged adds to the pool's results stream (what GET /v1/events
 * relays): its stream id is Redis's clock at the XADD, the same machine's
 * clock. Compile share: the compiler's CPU seconds (from the stored
 * report) over the latency, medians. A program, not a test: the figures
 * depend on the machine and whatever else runs on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_judge.h"

#define SRC JUDGED_SOURCE_DIR
#define MAX_ROUNDS 100

struct lang {
    const char *id, *pool, *file;
    char *source;                /* NULL: the C++ A+B below */
    double lat[2][MAX_ROUNDS], compile[2][MAX_ROUNDS];
    int n[2];
};

struct judge {
    struct bj_judge j;
    char token[200];
};

static const char cpp_bits[] = "#include <bits/stdc++.h>\nusing namespace std;\n"
                               "int main(){long long a,b;cin>>a>>b;cout<<a+b<<endl;}\n";

static void make_token(struct bj_judge *bj, void *arg)
{
    struct judge *j = arg;
    bj_token(bj, "bench", "submit", j->token, sizeof j->token);
}

static void start(struct judge *j, bool prepare, const char *languages, int first_slot)
{
    char rest[1024];
    snprintf(rest, sizeof rest, "problems: %s/testdata\nlanguages: %s\nfirst_slot: %d\nheartbeat: 1s\n"
                                "prepare: %s\noversubscribe: true\npools:\n  native: {languages: [c, cpp], slots: 1}\n"
                                "  python: {languages: [python3], slots: 1}\n  java: {languages: [java], slots: 1}\n",
             SRC, languages, first_slot, prepare ? "true" : "false");
    bj_start(&j->j, rest, "", make_token, j);
}

/* waits for id's entry in the pool's results stream: its time (ms, the
 * stream id) and verdict */
static double verdict_event(struct judge *j, const char *pool, const char *id, char verdict[8])
{
    char key[64], last[64] = "0-0";
    snprintf(key, sizeof key, "judge:{%s}:results", pool);
    for (int tries = 0; tries < 600; tries++) {
        redisReply *r = queue_cmd(&j->j.k, "XREAD BLOCK 1000 STREAMS %s %s", key, last);
        for (size_t e = 0; r && r->type == REDIS_REPLY_ARRAY && e < r->element[0]->element[1]->elements; e++) {
            redisReply *entry = r->element[0]->element[1]->element[e], *f = entry->element[1];
            snprintf(last, sizeof last, "%s", entry->element[0]->str);
            const char *sid = NULL, *v = "";
            for (size_t i = 0; i + 1 < f->elements; i += 2) {
                if (!strcmp(f->element[i]->str, "id"))
                    sid = f->element[i + 1]->str;
                if (!strcmp(f->element[i]->str, "verdict"))
                    v = f->element[i + 1]->str;
            }
            if (sid && !strcmp(sid, id)) {
                snprintf(verdict, 8, "%s", v);
                double ms = atof(last);
                freeReplyObject(r);
                return ms;
            }
        }
        if (r)
            freeReplyObject(r);
    }
    bj_die("no verdict event within 10 minutes");
    return 0;
}

/* the compiler's CPU seconds in the stored report */
static double compile_cpu(struct judge *j, const char *pool, const char *id)
{
    redisReply *r = queue_cmd(&j->j.k, "HGET judge:{%s}:res:%s report", pool, id);
    json_t *rep = r && r->type == REDIS_REPLY_STRING ? json_loads(r->str, 0, NULL) : NULL;
    double t = json_real_value(json_object_get(json_object_get(rep, "compile"), "cpu_time"));
    json_decref(rep);
    if (r)
        freeReplyObject(r);
    return t;
}

static void one(struct judge *j, struct lang *l, int mode, int variant, bool counted)
{
    const char *src = l->source ? l->source : cpp_bits;
    char *v = NULL;
    if (asprintf(&v, "%s\n%s latency variant %d %s\n", src, strcmp(l->id, "python3") ? "//" : "#",
                 variant, j->j.name) < 0)
        bj_die("asprintf");
    char *id = bj_submit(&j->j, j->token, "aplusb", l->id, v), verdict[8];
    double at = bj_wall_ms();   /* the 202 arrived */
    double done = verdict_event(j, l->pool, id, verdict);
    if (strcmp(verdict, "AC")) {
        fprintf(stderr, "%s %s: verdict %s (see %s)\n", j->j.name, l->id, verdict, j->j.dir);
        bj_die("not AC");
    }
    if (counted) {
        l->lat[mode][l->n[mode]] = (done - at) / 1e3;
        l->compile[mode][l->n[mode]++] = compile_cpu(j, l->pool, id);
    }
    free(id);
    free(v);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* the q-quantile (nearest rank) of n values, sorted in place */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    int i = (int)(q * n + 0.999999) - 1;
    return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

static void report(struct lang *ls, size_t count, int rounds)
{
    printf("%d submissions per language and mode, one at a time; seconds from the 202 to the "
           "verdict event\n", rounds);
    printf("%-8s %8s %8s %8s %8s %8s %8s %9s  %s\n", "language", "p50 bef", "p95 bef", "p50 aft",
           "p95 aft", "cc% bef", "cc% aft", "aft/bef", "floor (p50)");
    for (size_t i = 0; i < count; i++) {
        struct lang *l = &ls[i];
        double p50[2], p95[2], share[2];
        for (int m = 0; m < 2; m++) {
            double c = quantile(l->compile[m], l->n[m], 0.5);
            p50[m] = quantile(l->lat[m], l->n[m], 0.5);
            p95[m] = quantile(l->lat[m], l->n[m], 0.95);
            share[m] = p50[m] > 0 ? 100 * c / p50[m] : 0;
        }
        double ratio = p50[1] / p50[0];
        double floor = !strcmp(l->id, "cpp") ? 0.40 : !strcmp(l->id, "java") ? 0.70 : 1.0;
        printf("%-8s %8.3f %8.3f %8.3f %8.3f %7.0f%% %7.0f%% %8.0f%%  <= %.0f%%: %s\n", l->id,
               p50[0], p95[0], p50[1], p95[1], share[0], share[1], 100 * ratio, 100 * floor,
               ratio <= floor ? "met" : "NOT met");
    }
    printf("cc%%: the compiler's CPU time (median) over the median latency\n");
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 8;
    if (rounds <= 0 || rounds > MAX_ROUNDS) {
        printf("usage: bench_latency [ROUNDS]   (1..%d, default 8)\n", MAX_ROUNDS);
        return argc > 1 && strcmp(argv[1], "--help") ? 2 : 0;
    }
    signal(SIGPIPE, SIG_IGN);
    struct lang ls[] = {
        {.id = "cpp", .pool = "native"},
        {.id = "c", .pool = "native", .file = SRC "/testdata/aplusb/solutions/ac.c"},
        {.id = "python3", .pool = "python", .file = SRC "/testdata/aplusb/solutions/ac.py"},
        {.id = "java", .pool = "java", .file = SRC "/testdata/aplusb/solutions/ac.java"},
    };
    size_t nl = sizeof ls / sizeof ls[0];
    for (size_t i = 0; i < nl; i++)
        if (ls[i].file && !(ls[i].source = bj_slurp(ls[i].file)))
            bj_die(ls[i].file);
    struct judge js[2] = {{.j.name = "latency-before"}, {.j.name = "latency-after"}};
    const char *before = getenv("BENCH_BEFORE_LANGUAGES");
    if (!before || !*before)
        before = SRC "/languages";
    fprintf(stderr, "before: prepare off, languages %s; after: prepare on, languages %s\n",
            before, SRC "/languages");
    start(&js[0], false, before, 750);
    start(&js[1], true, SRC "/languages", 762);
    int variant = 0;
    for (int round = 0; round <= rounds; round++) {
        for (size_t i = 0; i < nl; i++)
            for (int m = 0; m < 2; m++)
                one(&js[m], &ls[i], m, variant++, round > 0);
        fprintf(stderr, "round %d of %d done\n", round, rounds);
    }
    report(ls, nl, rounds);
    for (int m = 0; m < 2; m++)
        bj_stop(&js[m].j, false);
    for (size_t i = 0; i < nl; i++)
        free(ls[i].source);
    return 0;
}
