/* test_cluster.c - issue 41: the queue over a real Redis Cluster. Six
 * redis-server processes in cluster mode on private ports (3 primaries, 3
 * replicas, `redis-cli --cluster create`, t_start_cluster) in the test's
 * own 0700 directory; the queue library reaches them through one
 * redis-cluster:// URL that names a replica and a primary (any node will
 * do: the slot map is learnt from it).
 *   - pools spread over the three primaries: the library is loaded on each,
 *     every operation of a pool (admission, claim, finish, result) runs on
 *     its pool's node, and queue_conn_node names that node;
 *   - a pool's slot migrated to another primary (SETSLOT IMPORTING /
 *     MIGRATING, MIGRATE, SETSLOT NODE) between admissions: the ones sent
 *     while the keys had moved but the slot had not (ASK) and after (MOVED)
 *     succeed, and every admission is claimed once and finished once.
 *   - a judged host and judgectl on the cluster: submit, result --wait,
 *     events (one XREAD per pool's node), pools naming each pool's node;
 *   - judge-api on the cluster: POST /v1/submissions (no version given:
 *     judge-api reads the current one first), GET ?wait, /metrics'
 *     judged_pool_node of each pool;
 *   - the problem store: its metadata in one slot ({store}), each blob on
 *     the node of its own slot: judgectl problem push, versions, verify, a
 *     host fetching a version and judging with it, rm, an upload over
 *     judge-api validated and pushed by the host;
 *   - a primary SIGKILLed under a stream of admissions that wait for a
 *     replica (admission_durability: replicated): once its replica is
 *     promoted (and the dead machine is back as its replica), every
 *     acknowledged admission ends with exactly one verdict event.
 * Sandbox slots 580..589. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "harness.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "queue.h"

#define NODES 6
#define SRC_CODE "int main(){return 0;}"

static int ports[NODES];
static pid_t pids[NODES];
static char url[400];

static void setup(void)
{
    t_setup_dir();
    t_start_cluster(NODES, 1, ports, pids);
    /* a replica first: the map comes from whichever node answers */
    snprintf(url, sizeof url, "redis-cluster://127.0.0.1:%d,127.0.0.1:%d", ports[NODES - 1], ports[0]);
}

TestSuite(cluster, .init = setup, .fini = t_teardown, .timeout = 240);

/* The port of the primary that serves slot, as node port's CLUSTER SLOTS says. */
static int slot_owner(int port, int slot)
{
    redisReply *r = t_node(port, "CLUSTER SLOTS");
    int owner = -1;
    for (size_t i = 0; r && r->type == REDIS_REPLY_ARRAY && i < r->elements; i++) {
        redisReply *e = r->element[i];
        if (slot >= e->element[0]->integer && slot <= e->element[1]->integer)
            owner = (int)e->element[2]->element[1]->integer;
    }
    if (r)
        freeReplyObject(r);
    return owner;
}

static int pool_slot(const char *pool)
{
    char tag[200];
    snprintf(tag, sizeof tag, "{%s}", pool);
    return queue_key_slot(tag, strlen(tag));
}

/* The primaries' ports (the nodes that serve a slot), in the order found. */
static int primaries(int *out)
{
    int n = 0;
    for (int s = 0; s < 16384; s += 512) {
        int p = slot_owner(ports[0], s), seen = 0;
        for (int i = 0; i < n; i++)
            seen |= out[i] == p;
        if (!seen && p > 0)
            out[n++] = p;
    }
    return n;
}

/* pool[i]: a pool name whose slot the primary prim[i] serves. */
static void pools_on(const int *prim, int n, char (*pool)[32])
{
    for (int i = 0; i < n; i++) {
        pool[i][0] = 0;
        for (int j = 0; j < 1000 && !pool[i][0]; j++) {
            char name[32];
            snprintf(name, sizeof name, "pool%d", j);
            if (slot_owner(ports[0], pool_slot(name)) == prim[i])
                snprintf(pool[i], sizeof pool[i], "%s", name);
        }
        cr_assert(pool[i][0], "no pool name hashes to primary %d", prim[i]);
    }
}

static void pool_ready(struct queue_conn *k, const char *pool)
{
    char err[256];
    const char *langs[] = {"c"};
    cr_assert_eq(queue_ensure_groups(k, pool, err, sizeof err), QUEUE_OK, "%s: %s", pool, err);
    cr_assert_eq(queue_publish_pool(k, pool, langs, 1, 1000, 65536, 0, err, sizeof err), QUEUE_OK, "%s: %s", pool,
                 err);
}

/* One admission to pool (version "": the hosts' problems, no store); its id. */
static void admit(struct queue_conn *k, const char *pool, char *id, size_t idlen)
{
    struct queue_admit_args a = {.pool = pool, .lang = "c", .problem = "aplusb", .source = SRC_CODE,
                                 .source_len = strlen(SRC_CODE), .max_queue = -1, .max_source = -1,
                                 .version = ""};
    struct queue_admit_reply out;
    char err[256];
    enum queue_rc rc = queue_admit(k, &a, &out, err, sizeof err);
    cr_assert_eq(rc, QUEUE_OK, "admission to %s: %s", pool, err);
    cr_assert_eq(out.result, QUEUE_ADMITTED, "admission to %s: result %d", pool, out.result);
    snprintf(id, idlen, "%s", out.id);
}

/* Claims everything pool holds (as host "h"), finishes each with OK and
 * returns how many; every claimed id must be one of ids[0..n) and each
 * claimed once. */
static int claim_and_finish(struct queue_conn *k, const char *pool, char (*ids)[192], int n, int *claimed)
{
    char err[256];
    int total = 0;
    for (;;) {
        struct queue_claim_args ca = {.pool = pool, .host = "h", .count = 10, .from = {">", ">"}};
        struct queue_claim_reply cr;
        cr_assert_eq(queue_claim(k, &ca, &cr, err, sizeof err), QUEUE_OK, "claim %s: %s", pool, err);
        int got = cr.njobs;
        for (int j = 0; j < cr.njobs; j++) {
            struct queue_job *job = &cr.jobs[j];
            int at = -1;
            for (int i = 0; i < n; i++)
                if (!strcmp(ids[i], job->id))
                    at = i;
            cr_assert(at >= 0, "claimed %s, never admitted", job->id);
            claimed[at]++;
            struct queue_finish_args fa = {.pool = pool, .host = "h", .queue = job->queue, .entry = job->entry,
                                           .id = job->id, .verdict = "OK", .report = "{}", .results_max = 1000};
            struct queue_finish_reply fr;
            cr_assert_eq(queue_finish(k, &fa, &fr, err, sizeof err), QUEUE_OK, "finish %s: %s", job->id, err);
            cr_assert_eq(fr.result, QUEUE_FINISH_PUBLISHED, "finish %s: %d", job->id, fr.result);
        }
        queue_claim_reply_free(&cr);
        total += got;
        if (!got)
            return total;
    }
}

static long long node_int(int port, const char *fmt, const char *arg)
{
    redisReply *r = t_node(port, fmt, arg);
    cr_assert(r, "node %d did not answer", port);
    long long v = r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
    freeReplyObject(r);
    return v;
}

Test(cluster, pools_spread_over_the_primaries_and_each_runs_on_its_node)
{
    int prim[NODES];
    cr_assert_eq(primaries(prim), 3, "3 primaries expected");
    char pool[3][32];
    pools_on(prim, 3, pool);

    /* the key slot is the cluster's own (hash tags included) */
    const char *keys[] = {"judge:{native}:q:normal", "plain", "{}x", "a{b", "{a}{b}", "x{}{y}", "judge:hosts"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        cr_assert_eq(queue_key_slot(keys[i], strlen(keys[i])), node_int(ports[0], "CLUSTER KEYSLOT %s", keys[i]),
                     "slot of %s", keys[i]);

    struct queue_conn k;
    queue_conn_init(&k, url, 5000);
    char ids[3][192], err[256];
    for (int i = 0; i < 3; i++) {
        pool_ready(&k, pool[i]);
        admit(&k, pool[i], ids[i], sizeof ids[i]);
        /* on its node, and on no other primary (they answer MOVED) */
        char key[400], buf[300], want[300];
        queue_submission_key(key, sizeof key, pool[i], ids[i]);
        for (int p = 0; p < 3; p++)
            cr_assert_eq(node_int(prim[p], "EXISTS %s", key), prim[p] == prim[i] ? 1 : -1,
                         "%s on node %d", key, prim[p]);
        snprintf(want, sizeof want, "127.0.0.1:%d", prim[i]);
        const char *node = queue_conn_node(&k, key, strlen(key), buf, sizeof buf);
        cr_assert(node && !strcmp(node, want), "queue_conn_node(%s) = %s, want %s", pool[i], node ? node : "NULL",
                  want);
    }
    /* the library on every primary, loaded by the first connect */
    for (int p = 0; p < 3; p++)
        cr_assert_eq(node_int(prim[p], "FCALL %s 0", "judged_version"), queue_library_version,
                     "judged.lua on primary %d", prim[p]);
    for (int i = 0; i < 3; i++) {
        int claimed[1] = {0};
        cr_assert_eq(claim_and_finish(&k, pool[i], &ids[i], 1, claimed), 1, "%s", pool[i]);
        struct queue_result res;
        bool found = false;
        cr_assert_eq(queue_result(&k, ids[i], &res, &found, err, sizeof err), QUEUE_OK, "%s", err);
        cr_assert(found, "result of %s", ids[i]);
        cr_assert_str_eq(res.verdict, "OK");
        queue_result_free(&res);
    }
    queue_conn_close(&k);
}

/* Node port's cluster id. */
static void node_id(int port, char *id, size_t len)
{
    redisReply *r = t_node(port, "CLUSTER MYID");
    cr_assert(r && r->type == REDIS_REPLY_STRING);
    snprintf(id, len, "%s", r->str);
    freeReplyObject(r);
}

static void node_ok(int port, const char *fmt, const char *a, const char *b)
{
    redisReply *r = t_node(port, fmt, a, b);
    cr_assert(r && r->type != REDIS_REPLY_ERROR, "node %d: %s: %s", port, fmt, r ? r->str : "no answer");
    freeReplyObject(r);
}

/* A steady stream of admissions to one pool from its own thread and
 * connection, each with its own idempotency key and retried (same key)
 * while the answer is QUEUE_IO, as a platform retries a 503. */
#define STREAM_MAX 2000
struct stream {
    const char *pool;
    const char *source;      /* replicated_stream_run's */
    atomic_int n;            /* admitted so far (ids[0..n) are set) */
    atomic_bool stop;
    char ids[STREAM_MAX][192];
    char failed[400];
};

static void *stream_run(void *arg)
{
    struct stream *s = arg;
    struct queue_conn k;
    queue_conn_init(&k, url, 5000);
    for (int i = 0; i < STREAM_MAX && !atomic_load(&s->stop); i++) {
        char key[64], err[256];
        snprintf(key, sizeof key, "stream-%d", i);
        struct queue_admit_args a = {.pool = s->pool, .lang = "c", .problem = "aplusb", .source = SRC_CODE,
                                     .source_len = strlen(SRC_CODE), .max_queue = -1, .max_source = -1,
                                     .version = "", .key = key};
        struct queue_admit_reply out;
        enum queue_rc rc;
        while ((rc = queue_admit(&k, &a, &out, err, sizeof err)) == QUEUE_IO)
            queue_conn_backoff(&k);
        if (rc || (out.result != QUEUE_ADMITTED && out.result != QUEUE_DUPLICATE)) {
            snprintf(s->failed, sizeof s->failed, "admission %d: rc %d result %d: %s", i, rc, out.result, err);
            break;
        }
        snprintf(s->ids[i], sizeof s->ids[i], "%s", out.id);
        atomic_store(&s->n, i + 1);
    }
    queue_conn_close(&k);
    return NULL;
}

/* Waits until the stream has admitted `more` after what it had. */
static void stream_advance(struct stream *s, int more)
{
    int want = atomic_load(&s->n) + more;
    long long t0 = t_now_ms();
    while (atomic_load(&s->n) < want && !s->failed[0]) {
        cr_assert(t_now_ms() < t0 + 60000, "the stream stalled at %d", atomic_load(&s->n));
        sched_yield();
    }
    cr_assert(!s->failed[0], "%s", s->failed);
}

/* MIGRATE every key of slot from `from` to `to` in one command (from is
 * blocked meanwhile: no command sees half a pool). */
static void migrate_keys(int from, int to, const char *slot_s)
{
    redisReply *keys = t_node(from, "CLUSTER GETKEYSINSLOT %s 10000", slot_s);
    cr_assert(keys && keys->type == REDIS_REPLY_ARRAY && keys->elements > 0);
    const char **argv = calloc(keys->elements + 8, sizeof *argv);
    char port_s[16];
    snprintf(port_s, sizeof port_s, "%d", to);
    int argc = 0;
    const char *head[] = {"MIGRATE", "127.0.0.1", port_s, "", "0", "10000", "KEYS"};
    for (size_t i = 0; i < 7; i++)
        argv[argc++] = head[i];
    for (size_t i = 0; i < keys->elements; i++)
        argv[argc++] = keys->element[i]->str;
    redisContext *c = redisConnect("127.0.0.1", from);
    redisReply *m = redisCommandArgv(c, argc, argv, NULL);
    cr_assert(m && m->type == REDIS_REPLY_STATUS, "MIGRATE: %s", m ? m->str : c->errstr);
    freeReplyObject(m);
    redisFree(c);
    free(argv);
    freeReplyObject(keys);
}

Test(cluster, a_pools_slot_migrated_under_a_stream_loses_and_doubles_nothing)
{
    int prim[NODES];
    cr_assert_eq(primaries(prim), 3);
    char pool[3][32];
    pools_on(prim, 3, pool);
    int from = prim[0], to = prim[1], slot = pool_slot(pool[0]);
    char from_id[64], to_id[64], slot_s[16];
    node_id(from, from_id, sizeof from_id);
    node_id(to, to_id, sizeof to_id);
    snprintf(slot_s, sizeof slot_s, "%d", slot);

    struct queue_conn k;
    queue_conn_init(&k, url, 5000);
    pool_ready(&k, pool[0]);
    static struct stream s;
    memset(&s, 0, sizeof s);
    s.pool = pool[0];
    pthread_t th;
    pthread_create(&th, NULL, stream_run, &s);
    stream_advance(&s, 5);
    /* the slot half-way: the keys still on `from` */
    node_ok(to, "CLUSTER SETSLOT %s IMPORTING %s", slot_s, from_id);
    node_ok(from, "CLUSTER SETSLOT %s MIGRATING %s", slot_s, to_id);
    migrate_keys(from, to, slot_s);
    /* the keys moved, the slot still says `from`: ASK, here and in the stream */
    char asked[192];
    admit(&k, pool[0], asked, sizeof asked);
    stream_advance(&s, 5);
    /* the slot moved: MOVED from then on */
    node_ok(to, "CLUSTER SETSLOT %s NODE %s", slot_s, to_id);
    node_ok(from, "CLUSTER SETSLOT %s NODE %s", slot_s, to_id);
    stream_advance(&s, 5);
    atomic_store(&s.stop, true);
    pthread_join(th, NULL);
    cr_assert(!s.failed[0], "%s", s.failed);

    int n = atomic_load(&s.n) + 1;
    char (*ids)[192] = calloc((size_t)n, sizeof *ids);
    memcpy(ids, s.ids, (size_t)(n - 1) * sizeof *ids);
    snprintf(ids[n - 1], sizeof ids[n - 1], "%s", asked);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            cr_assert_str_neq(ids[i], ids[j], "one id given twice");
    int *claimed = calloc((size_t)n, sizeof *claimed);
    cr_assert_eq(claim_and_finish(&k, pool[0], ids, n, claimed), n);
    for (int i = 0; i < n; i++)
        cr_assert_eq(claimed[i], 1, "%s claimed %d times", ids[i], claimed[i]);
    char results[400];
    queue_key(results, sizeof results, pool[0], "results");
    cr_assert_eq(node_int(to, "XLEN %s", results), n, "one result event per admission, on the new node");
    /* the connection's map learnt the move (MOVED) */
    char key[400], buf[300], want[300];
    queue_key(key, sizeof key, pool[0], "q:normal");
    snprintf(want, sizeof want, "127.0.0.1:%d", to);
    const char *node = queue_conn_node(&k, key, strlen(key), buf, sizeof buf);
    cr_assert(node && !strcmp(node, want), "the pool's node: %s, want %s", node ? node : "NULL", want);
    printf("migration: %d admissions, all claimed once\n", n);
    free(ids);
    free(claimed);
    queue_conn_close(&k);
}

/* Host NAME's config (t_config's) with the cluster's URL for its redis. */
static void cluster_config(const char *name, int first_slot, char *path, size_t len)
{
    t_config(name, first_slot, NULL, POOLS_DEFAULT, path, len);
    char *text = t_read_log(path);
    char *nl = strchr(text, '\n');
    cr_assert(nl && !strncmp(text, "redis: ", 7));
    t_write(path, "redis: %s%s", url, nl);
    free(text);
}

/* Does a line of text hold both a and b? */
static bool line_with(const char *text, const char *a, const char *b)
{
    for (const char *l = text; l && *l;) {
        const char *eol = strchr(l, '\n');
        size_t n = eol ? (size_t)(eol - l) : strlen(l);
        char *line = strndup(l, n);
        bool both = strstr(line, a) && strstr(line, b);
        free(line);
        if (both)
            return true;
        l = eol ? eol + 1 : NULL;
    }
    return false;
}

Test(cluster, judged_and_judgectl_judge_through_the_cluster)
{
    t_make_problems(0);
    char cfg[400], out[8192], id[192];
    cluster_config("a", 580, cfg, sizeof cfg);
    t_judged(cfg, "a");
    cr_assert(t_judged_started("a", 60000));
    cr_assert_eq(t_submit(cfg, "aplusb", "c", SRC "/testdata/aplusb/solutions/ac.c", "k1", NULL, id, sizeof id), 0,
                 "submit: %s", id);
    int rc = t_ctl(out, sizeof out, cfg, "result", "--wait", "60", id, NULL);
    cr_assert_eq(rc, 0, "result: %s", out);
    cr_assert(strstr(out, " AC "), "%s", out);
    rc = t_ctl(out, sizeof out, cfg, "--json", "events", NULL);
    cr_assert_eq(rc, 0, "events: %s", out);
    cr_assert(strstr(out, id), "the verdict event of %s: %s", id, out);
    /* a rejudge scans the pool on its node and judges it again: a second
     * event, marked as a rejudge */
    rc = t_ctl(out, sizeof out, cfg, "rejudge", "--problem", "aplusb", NULL);
    cr_assert_eq(rc, 0, "rejudge: %s", out);
    long long t0 = t_now_ms();
    for (;;) {
        rc = t_ctl(out, sizeof out, cfg, "--json", "events", NULL);
        cr_assert_eq(rc, 0, "events: %s", out);
        if (line_with(out, id, "\"rejudge\":true"))
            break;
        cr_assert(t_now_ms() < t0 + 60000, "no rejudge event for %s: %s", id, out);
        t_sleep_ms(200);
    }
    /* the dead-letter queue is read on the pool's node */
    rc = t_ctl(out, sizeof out, cfg, "dlq", "list", "native", NULL);
    cr_assert_eq(rc, 0, "dlq list: %s", out);
    /* judgectl pools names each pool's node */
    rc = t_ctl(out, sizeof out, cfg, "pools", NULL);
    cr_assert_eq(rc, 0, "pools: %s", out);
    cr_assert(strstr(out, "NODE"), "%s", out);
    const char *pools[] = {"native", "python", "java"};
    for (int i = 0; i < 3; i++) {
        char tag[64], line[128];
        snprintf(tag, sizeof tag, "{%s}", pools[i]);
        int owner = slot_owner(ports[0], queue_key_slot(tag, strlen(tag)));
        snprintf(line, sizeof line, "127.0.0.1:%d", owner);
        const char *row = strstr(out, pools[i]), *eol = row ? strchr(row, '\n') : NULL;
        cr_assert(row && eol && strstr(row, line) && strstr(row, line) < eol, "%s on %s: %s", pools[i], line, out);
    }
}

/* The stream's admissions wait for a replica (admission_durability:
 * replicated): an answer counts only once WAIT 1 says a replica has it. */
static void *replicated_stream_run(void *arg)
{
    struct stream *s = arg;
    struct queue_conn k;
    queue_conn_init(&k, url, 5000);
    for (int i = 0; i < STREAM_MAX && !atomic_load(&s->stop); i++) {
        char key[64], err[256];
        snprintf(key, sizeof key, "replicated-%d", i);
        struct queue_admit_args a = {.pool = s->pool, .lang = "c", .problem = "aplusb", .source = s->source,
                                     .source_len = strlen(s->source), .max_queue = -1, .max_source = -1,
                                     .version = "", .key = key, .replicas = 1, .wait_ms = 2000};
        struct queue_admit_reply out;
        enum queue_rc rc;
        while (((rc = queue_admit(&k, &a, &out, err, sizeof err)) == QUEUE_IO ||
                (rc == QUEUE_OK && out.result == QUEUE_NOT_DURABLE)) && !atomic_load(&s->stop))
            queue_conn_backoff(&k);   /* a 503: the platform retries with the same key */
        if (rc == QUEUE_IO || (rc == QUEUE_OK && out.result == QUEUE_NOT_DURABLE))
            break;   /* stopped before this one was acknowledged: not counted */
        if (rc || (out.result != QUEUE_ADMITTED && out.result != QUEUE_DUPLICATE)) {
            snprintf(s->failed, sizeof s->failed, "admission %d: rc %d result %d: %s", i, rc, out.result, err);
            break;
        }
        snprintf(s->ids[i], sizeof s->ids[i], "%s", out.id);
        atomic_store(&s->n, i + 1);
    }
    queue_conn_close(&k);
    return NULL;
}

Test(cluster, a_primary_killed_under_replicated_admissions_loses_and_doubles_no_verdict, .timeout = 280)
{
    t_make_problems(0);
    char cfg[400];
    cluster_config("a", 584, cfg, sizeof cfg);
    t_judged(cfg, "a");
    cr_assert(t_judged_started("a", 60000));
    char tag[] = "{native}";
    int victim = slot_owner(ports[0], queue_key_slot(tag, strlen(tag))), vi = -1;
    for (int i = 0; i < NODES; i++)
        vi = ports[i] == victim ? i : vi;
    cr_assert(vi >= 0);

    static struct stream s;
    memset(&s, 0, sizeof s);
    s.pool = "native";
    s.source = t_read_log(SRC "/testdata/aplusb/solutions/ac.c");
    pthread_t th;
    pthread_create(&th, NULL, replicated_stream_run, &s);
    stream_advance(&s, 10);
    kill(pids[vi], SIGKILL);
    waitpid(pids[vi], NULL, 0);
    t_untrack(pids[vi]);
    long long killed = t_now_ms();
    /* the dead machine comes back once its replica is promoted: it
     * becomes the new primary's replica, so admissions are replicated
     * (and acknowledged) again */
    while (slot_owner(ports[(vi + 1) % NODES], queue_key_slot(tag, strlen(tag))) == victim) {
        cr_assert(t_now_ms() < killed + 60000, "no replica promoted");
        t_sleep_ms(100);
    }
    pids[vi] = t_cluster_node(victim);
    stream_advance(&s, 10);   /* acknowledged by the promoted replica */
    long long resumed = t_now_ms();
    atomic_store(&s.stop, true);
    pthread_join(th, NULL);
    cr_assert(!s.failed[0], "%s", s.failed);
    int n = atomic_load(&s.n);

    /* every acknowledged admission ends with exactly one verdict event */
    struct queue_conn k;
    queue_conn_init(&k, url, 5000);
    char err[256];
    long long t0 = t_now_ms();
    int not_ac = 0;
    for (int i = 0; i < n; i++) {
        struct queue_result res;
        bool found = false;
        while (queue_result(&k, s.ids[i], &res, &found, err, sizeof err) != QUEUE_OK || !found ||
               !res.verdict[0]) {
            if (found)
                queue_result_free(&res);
            found = false;
            cr_assert(t_now_ms() < t0 + 180000, "%s never judged", s.ids[i]);
            t_sleep_ms(100);
        }
        /* an AC, or (a judging whose every attempt met the failover) a
         * dead letter: either way its one verdict */
        if (strcmp(res.verdict, "AC")) {
            not_ac++;
            fprintf(stderr, "%s: %s (dead letter: %d, attempts %d)\n", s.ids[i], res.verdict, res.dead, res.attempts);
            char cmd[800];
            snprintf(cmd, sizeof cmd, "grep -a '%s' %s/judged-a.log >&2", s.ids[i], T_dir);
            if (system(cmd)) {}
        }
        queue_result_free(&res);
    }
    char results[200];
    queue_key(results, sizeof results, "native", "results");
    redisReply *r = queue_cmd(&k, "XRANGE %s - +", results);
    cr_assert(r && r->type == REDIS_REPLY_ARRAY, "XRANGE: %s", r && r->type == REDIS_REPLY_ERROR ? r->str : k.err);
    for (int i = 0; i < n; i++) {
        int events = 0;
        for (size_t e = 0; e < r->elements; e++) {
            const redisReply *f = r->element[e]->element[1];
            for (size_t j = 0; j + 1 < f->elements; j += 2)
                events += !strcmp(f->element[j]->str, "id") && !strcmp(f->element[j + 1]->str, s.ids[i]);
        }
        cr_assert_eq(events, 1, "%s: %d verdict events", s.ids[i], events);
    }
    freeReplyObject(r);
    printf("failover: %d acknowledged admissions, one verdict event each (%d not AC); admissions resumed %lld ms "
           "after the kill\n", n, not_ac, resumed - killed);
    free((void *)s.source);
    queue_conn_close(&k);
}

/* METHOD path (with a bearer token and a JSON body, or none) to judge-api
 * on 127.0.0.1:port over HTTP/1.0; the status (-1: no answer), the body. */
static int http_send(int port, const char *method, const char *path, const char *token, const char *ctype,
                     const char *data, size_t dlen, char *body, size_t len)
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
    char req[4096];
    int n = snprintf(req, sizeof req,
                     "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                     "Content-Type: %s\r\nContent-Length: %zu\r\n\r\n",
                     method, path, token, ctype, dlen);
    if (write(fd, req, (size_t)n) != n || (dlen && write(fd, data, dlen) != (ssize_t)dlen)) {
        close(fd);
        return -1;
    }
    static char resp[1 << 20];
    size_t got = 0;
    ssize_t r;
    while (got + 1 < sizeof resp && (r = read(fd, resp + got, sizeof resp - 1 - got)) > 0)
        got += (size_t)r;
    resp[got] = 0;
    close(fd);
    int status = -1;
    if (sscanf(resp, "HTTP/1.%*d %d", &status) != 1)
        return -1;
    const char *b = strstr(resp, "\r\n\r\n");
    snprintf(body, len, "%s", b ? b + 4 : "");
    return status;
}

/* http_send with a JSON body (or none) */
static int http(int port, const char *method, const char *path, const char *token, const char *json, char *body,
                size_t len)
{
    return http_send(port, method, path, token, "application/json", json, json ? strlen(json) : 0, body, len);
}

/* {"problem":"aplusb","language":"c","source":SRC as a JSON string} */
static void json_escape_into(const char *src, char *json, size_t len)
{
    size_t o = (size_t)snprintf(json, len, "{\"problem\":\"aplusb\",\"language\":\"c\",\"source\":\"");
    for (const char *p = src; *p && o + 8 < len; p++) {
        if (*p == '"' || *p == '\\')
            o += (size_t)snprintf(json + o, len - o, "\\%c", *p);
        else if (*p == '\n')
            o += (size_t)snprintf(json + o, len - o, "\\n");
        else if ((unsigned char)*p >= 0x20)
            json[o++] = *p;
    }
    snprintf(json + o, len - o, "\"}");
}

/* Host NAME's judged and a judge-api on the cluster (its config in cfg),
 * an admin token in token; judge-api's port. */
static int start_api(const char *name, int first_slot, char *cfg, size_t cfglen, char *token, size_t toklen)
{
    char out[8192], log[400];
    t_config(name, first_slot, "api:\n  listen: 127.0.0.1:0\n  tokens: TOKENS\n  rate: 0\n", POOLS_DEFAULT, cfg,
             cfglen);
    char *text = t_read_log(cfg), *nl = strchr(text, '\n'), tokens[400];
    snprintf(tokens, sizeof tokens, "%s/tokens", T_dir);
    char *at = strstr(nl, "TOKENS");
    cr_assert(at);
    *at = 0;
    t_write(cfg, "redis: %s%s%s%s", url, nl, tokens, at + 6);
    free(text);
    chmod(cfg, 0600);
    t_judged(cfg, name);
    cr_assert(t_judged_started(name, 60000));
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "tokens", "add", "platform", "--role", "admin", NULL), 0, "%s", out);
    snprintf(token, toklen, "%.*s", (int)strcspn(out, "\n"), out);
    snprintf(log, sizeof log, "%s/api.log", T_dir);
    pid_t api = t_fork();
    if (api == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(BIN "/judge-api", "judge-api", "--config", cfg, (char *)NULL);
        _exit(127);
    }
    t_track(api);
    int port = t_api_port(log);
    cr_assert(port > 0, "judge-api did not start (see %s)", log);
    return port;
}

Test(cluster, judge_api_admits_over_http_and_its_metrics_name_each_pools_node)
{
    t_make_problems(0);
    char cfg[400], token[200];
    int port = start_api("a", 588, cfg, sizeof cfg, token, sizeof token);

    char *src = t_read_log(SRC "/testdata/aplusb/solutions/ac.c"), json[4096], body[65536];
    json_escape_into(src, json, sizeof json);
    free(src);
    int status = http(port, "POST", "/v1/submissions", token, json, body, sizeof body);
    cr_assert_eq(status, 202, "POST: %d %s", status, body);
    const char *idp = strstr(body, "\"id\":\"");
    cr_assert(idp, "%s", body);
    char id[192];
    snprintf(id, sizeof id, "%.*s", (int)strcspn(idp + 6, "\""), idp + 6);
    char path[300];
    snprintf(path, sizeof path, "/v1/submissions/%s?wait=30", id);
    status = http(port, "GET", path, token, NULL, body, sizeof body);
    cr_assert_eq(status, 200, "GET: %d %s", status, body);
    cr_assert(strstr(body, "\"verdict\":\"AC\""), "%s", body);

    status = http(port, "GET", "/metrics", token, NULL, body, sizeof body);
    cr_assert_eq(status, 200, "metrics: %d %s", status, body);
    const char *pools[] = {"native", "python", "java"};
    for (int i = 0; i < 3; i++) {
        char tag[64], line[200];
        snprintf(tag, sizeof tag, "{%s}", pools[i]);
        snprintf(line, sizeof line, "judged_pool_node{pool=\"%s\",node=\"127.0.0.1:%d\"} 1", pools[i],
                 slot_owner(ports[0], queue_key_slot(tag, strlen(tag))));
        cr_assert(strstr(body, line), "no '%s' in /metrics", line);
    }
}

/* The port of the primary of the store's metadata ({store}). */
static int store_node(void)
{
    return slot_owner(ports[0], queue_key_slot("{store}", 7));
}

/* Blob keys (judge:blob:*) on the node of port. */
static long long blobs_on(int port)
{
    redisReply *r = t_node(port, "KEYS judge:blob:*");
    long long n = r && r->type == REDIS_REPLY_ARRAY ? (long long)r->elements : -1;
    if (r)
        freeReplyObject(r);
    return n;
}

/* "version":"V" of a judgectl/judge-api JSON answer, into v. */
static void version_of(const char *out, char v[65])
{
    const char *at = strstr(out, "\"version\":\"");
    cr_assert(at, "no version in %s", out);
    snprintf(v, 65, "%.64s", at + 11);
}

/* A small package: aplusb's tests and statement, one AC and one WA. */
static void make_package(const char *dir, const char *statement)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd,
             "set -e; mkdir -p %s/submissions/accepted %s/submissions/wrong_answer; "
             "cp -r %s/testdata/aplusb/problem.yaml %s/testdata/aplusb/tests %s/; "
             "cp %s/testdata/aplusb/solutions/ac.c %s/submissions/accepted/; "
             "cp %s/testdata/aplusb/solutions/wa_int32.c %s/submissions/wrong_answer/",
             dir, dir, SRC, SRC, dir, SRC, dir, SRC, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char path[600];
    snprintf(path, sizeof path, "%s/statement.md", dir);
    t_write(path, "%s\n", statement);
}

/* The problem store on the cluster (its metadata one slot, {store}; each
 * blob on the node of its own slot): judgectl problem push, versions,
 * verify (judgectl fetches the version), a host fetching it by hash and
 * judging, rm freeing what only the removed version listed, and an upload
 * over judge-api validated and pushed by the host. */
Test(cluster, the_problem_store_pushes_fetches_and_uploads_through_the_cluster)
{
    t_make_problems(0);
    char cfg[400], token[200], out[16384], pkg[400], v1[65], v2[65], id[192];
    int port = start_api("a", 588, cfg, sizeof cfg, token, sizeof token);
    snprintf(pkg, sizeof pkg, "%s/plus", T_dir);
    make_package(pkg, "# A+B");
    int rc = t_ctl(out, sizeof out, cfg, "problem", "push", pkg, "--name", "plus", "--json", NULL);
    cr_assert_eq(rc, 0, "push: %s", out);
    cr_assert(strstr(out, "\"result\":\"new\""), "%s", out);
    version_of(out, v1);

    /* the metadata on the {store} node; the blobs spread over the primaries */
    int meta = store_node();
    redisReply *r = t_node(meta, "EXISTS judge:{store}:problem:plus judge:{store}:manifest:%s", v1);
    cr_assert(r && r->type == REDIS_REPLY_INTEGER && r->integer == 2, "metadata on the {store} node %d", meta);
    freeReplyObject(r);
    int prim[NODES], np = primaries(prim), holding = 0;
    for (int i = 0; i < np; i++)
        holding += blobs_on(prim[i]) > 0;
    cr_assert(holding >= 2, "the blobs lie on %d of %d primaries", holding, np);

    rc = t_ctl(out, sizeof out, cfg, "problem", "versions", "plus", "--json", NULL);
    cr_assert(rc == 0 && strstr(out, v1), "versions: %s", out);
    /* verify: judgectl fetches the stored version blob by blob and judges
     * what it ships (ac.c AC, wa_int32.c WA) */
    rc = t_ctl(out, sizeof out, cfg, "problem", "verify", "plus", "--json", "--slot", "587", NULL);
    cr_assert_eq(rc, 0, "verify: %s", out);

    /* a host fetches the version by hash and judges with it */
    cr_assert_eq(t_submit(cfg, "plus", "c", SRC "/testdata/aplusb/solutions/ac.c", "s1", NULL, id, sizeof id), 0,
                 "submit: %s", id);
    rc = t_ctl(out, sizeof out, cfg, "result", "--json", "--wait", "60", id, NULL);
    cr_assert_eq(rc, 0, "result: %s", out);
    cr_assert(strstr(out, "\"verdict\":\"AC\""), "%s", out);
    cr_assert(strstr(out, v1), "judged with %s: %s", v1, out);

    /* a second version; rm of the first frees only its own blob (its
     * statement): the tests, shared, stay */
    make_package(pkg, "# A+B, again");
    rc = t_ctl(out, sizeof out, cfg, "problem", "push", pkg, "--name", "plus", "--json", NULL);
    cr_assert_eq(rc, 0, "push: %s", out);
    cr_assert(strstr(out, "\"new_blobs\":1"), "only the statement is sent: %s", out);
    version_of(out, v2);
    long long before = 0, after = 0;
    for (int i = 0; i < np; i++)
        before += blobs_on(prim[i]);
    rc = t_ctl(out, sizeof out, cfg, "problem", "rm", "plus", "--version", v1, NULL);
    cr_assert_eq(rc, 0, "rm: %s", out);
    for (int i = 0; i < np; i++)
        after += blobs_on(prim[i]);
    cr_assert_eq(after, before - 1, "v1's statement went, nothing else (%lld -> %lld)", before, after);
    r = t_node(meta, "EXISTS judge:{store}:manifest:%s", v1);
    cr_assert(r && r->integer == 0);
    freeReplyObject(r);

    /* an upload over judge-api: staged, validated and pushed by the host */
    char tgz[500], cmd[1200], body[65536];
    make_package(pkg, "# A+B, uploaded");
    snprintf(tgz, sizeof tgz, "%s/plus.tar.gz", T_dir);
    snprintf(cmd, sizeof cmd, "tar -czf %s -C %s .", tgz, pkg);
    cr_assert_eq(system(cmd), 0);
    FILE *f = fopen(tgz, "rb");
    static char data[1 << 20];
    size_t dlen = fread(data, 1, sizeof data, f);
    fclose(f);
    int status = http_send(port, "PUT", "/v1/problems/uploaded", token, "application/gzip", data, dlen, body,
                           sizeof body);
    cr_assert_eq(status, 201, "PUT: %d %s", status, body);
    status = http(port, "GET", "/v1/problems/uploaded", token, NULL, body, sizeof body);
    cr_assert_eq(status, 200, "GET: %d %s", status, body);
    r = t_node(meta, "EXISTS judge:{store}:problem:uploaded");
    cr_assert(r && r->integer == 1);
    freeReplyObject(r);
}
