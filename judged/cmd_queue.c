/* cmd_queue.c - judgectl's Redis-side commands: admission (submit), results
 * (result, events) and administration (pools, drain, pause, resume, dlq,
 * hosts). Key layout: judged/DESIGN.md. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "jd.h"
#include "paths.h"

struct common {
    const char *cmd;
    const char *config;
    bool json;
    bool loaded;
    struct jd_config cfg;
    struct jd_conn conn;
};

static void die_usage(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "judgectl %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (try judgectl %s --help)\n", cmd);
}

static int setup(struct common *c)
{
    char err[1024], url[4200];
    if (!c->config)
        c->config = jd_default_config();
    if (!c->loaded && jd_config_load(&c->cfg, c->config, err, sizeof err)) {
        fprintf(stderr, "judgectl %s: %s\n", c->cmd, err);
        return 1;
    }
    c->loaded = true;
    jd_redis_url(&c->cfg, url, sizeof url);
    jd_conn_init(&c->conn, url, 5000);
    if (jd_conn_ensure(&c->conn)) {
        fprintf(stderr, "judgectl %s: %s%s\n", c->cmd, c->conn.err,
                c->cfg.redis ? "" : " (is judged running? it starts the embedded redis)");
        return 1;
    }
    return 0;
}

static void teardown(struct common *c)
{
    jd_conn_close(&c->conn);
    jd_config_free(&c->cfg);
}

/* a command failed on the Redis side: NULL reply or an error reply */
static bool bad_reply(struct common *c, redisReply *r, const char *what)
{
    if (!r) {
        fprintf(stderr, "judgectl %s: %s: redis: %s\n", c->cmd, what, c->conn.err);
        return true;
    }
    if (r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "judgectl %s: %s: %s\n", c->cmd, what, r->str);
        freeReplyObject(r);
        return true;
    }
    return false;
}

static long long rint_cmd(struct common *c, const char *fmt, const char *key)
{
    redisReply *r = jd_cmd(&c->conn, fmt, key);
    long long v = r && r->type == REDIS_REPLY_INTEGER ? r->integer : 0;
    if (r)
        freeReplyObject(r);
    return v;
}

static void print_json(json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT);
    puts(s);
    free(s);
}

/* common options: --config FILE, --json, --help; returns getopt's index or -1/-2 */
#define COMMON_OPTS \
    {"config", required_argument, NULL, 'c'}, {"json", no_argument, NULL, 'j'}, \
    {"help", no_argument, NULL, 'h'}

/* ---------------------------------------------------------------- submit */

int cmd_submit(int argc, char **argv)
{
    struct common c = {.cmd = "submit"};
    const char *problem = NULL, *lang = NULL, *key = NULL, *priority = "normal";
    static const struct option opts[] = {
        COMMON_OPTS,
        {"problem", required_argument, NULL, 'p'},
        {"lang", required_argument, NULL, 'l'},
        {"key", required_argument, NULL, 'k'},
        {"priority", required_argument, NULL, 'P'},
        {NULL, 0, NULL, 0},
    };
    int o;
    optind = 1;
    while ((o = getopt_long(argc, argv, "c:jhp:l:k:P:", opts, NULL)) != -1) {
        switch (o) {
        case 'c': c.config = optarg; break;
        case 'j': c.json = true; break;
        case 'p': problem = optarg; break;
        case 'l': lang = optarg; break;
        case 'k': key = optarg; break;
        case 'P': priority = optarg; break;
        case 'h':
            printf("usage: judgectl submit --problem P --lang L [--key K] [--priority contest|normal]\n"
                   "                        [--config FILE] [--json] SOURCE\n\n"
                   "Admits SOURCE ('-' for stdin) to the queue of the language's pool and prints\n"
                   "the new submission's id. The same --key returns the existing id and admits\n"
                   "nothing. A pool whose backlog reached max_queue refuses with 'busy' (exit 1).\n");
            return 0;
        default: return 2;
        }
    }
    if (optind != argc - 1) {
        die_usage("submit", "expected exactly one SOURCE%s", "");
        return 2;
    }
    if (!problem || !lang) {
        die_usage("submit", "--problem and --lang are required%s", "");
        return 2;
    }
    if (strcmp(priority, "contest") && strcmp(priority, "normal")) {
        die_usage("submit", "--priority must be contest or normal, not '%s'", priority);
        return 2;
    }
    if (key && (!*key || strlen(key) > 200)) {
        die_usage("submit", "--key must be 1 to 200 characters%s", "");
        return 2;
    }
    char err[1024];
    if (!c.config)
        c.config = jd_default_config();
    if (jd_config_load(&c.cfg, c.config, err, sizeof err)) {
        fprintf(stderr, "judgectl submit: %s\n", err);
        return 1;
    }
    int rc = 1;
    const struct jd_pool_cfg *pool = jd_pool_for_language(&c.cfg, lang);
    char path[4300];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s.yaml", c.cfg.languages, lang);
    if (!pool || stat(path, &st)) {
        fprintf(stderr, "judgectl submit: unknown language '%s'%s\n", lang,
                pool ? " (no definition in the languages directory)" : " (no pool serves it)");
        jd_config_free(&c.cfg);
        return 1;
    }
    snprintf(path, sizeof path, "%s/%s", c.cfg.problems, problem);
    if (!*problem || strchr(problem, '/') || problem[0] == '.' || stat(path, &st) ||
        !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "judgectl submit: unknown problem '%s'\n", problem);
        jd_config_free(&c.cfg);
        return 1;
    }
    size_t srclen;
    char *src = jd_read_file(argv[optind], (size_t)c.cfg.max_source, &srclen, err, sizeof err);
    if (!src) {
        fprintf(stderr, "judgectl submit: %s\n", err);
        jd_config_free(&c.cfg);
        return 1;
    }
    if (srclen == 0) {
        fprintf(stderr, "judgectl submit: %s: empty source\n", argv[optind]);
        free(src);
        jd_config_free(&c.cfg);
        return 1;
    }
    c.loaded = true;
    if (setup(&c)) {
        free(src);
        jd_config_free(&c.cfg);
        return 1;
    }
    char id[160], kq[2][160], kdel[160], ksub[400], kidem[400], mq[24], now[24];
    jd_new_id(pool->name, id, sizeof id);
    bool contest = !strcmp(priority, "contest");
    jd_key(kq[0], sizeof kq[0], pool->name, contest ? "q:contest" : "q:normal");
    jd_key(kq[1], sizeof kq[1], pool->name, contest ? "q:normal" : "q:contest");
    jd_key(kdel, sizeof kdel, pool->name, "delayed");
    char suffix[300];
    snprintf(suffix, sizeof suffix, "sub:%s", id);
    jd_key(ksub, sizeof ksub, pool->name, suffix);
    snprintf(suffix, sizeof suffix, "idem:%s", key ? key : "");
    jd_key(kidem, sizeof kidem, pool->name, suffix);
    snprintf(mq, sizeof mq, "%ld", pool->max_queue);
    snprintf(now, sizeof now, "%lld", (long long)jd_now_ms());
    const char *args[] = {kq[0], kq[1], kdel, ksub, kidem, id, mq, key ? "1" : "0",
                          "id", id, "pool", pool->name, "lang", lang, "problem", problem,
                          "priority", priority, "key", key ? key : "", "state", "queued",
                          "attempts", "0", "created", now, "source", src};
    size_t lens[sizeof args / sizeof args[0]];
    int n = (int)(sizeof args / sizeof args[0]);
    for (int i = 0; i < n; i++)
        lens[i] = strlen(args[i]);
    lens[n - 1] = srclen;
    redisReply *r = jd_eval(&c.conn, &JD_SUBMIT, 5, n, args, lens);
    free(src);
    if (bad_reply(&c, r, "admission failed"))
        goto out;
    const char *what = r->type == REDIS_REPLY_ARRAY && r->elements == 2 ? jd_rstr(r->element[0]) : NULL;
    const char *val = what ? jd_rstr(r->element[1]) : NULL;
    if (what && !strcmp(what, "busy")) {
        fprintf(stderr, "judgectl submit: busy: pool '%s' has %s submissions waiting (max_queue %ld); "
                        "try again later\n", pool->name, val ? val : "?", pool->max_queue);
    } else if (what && val) {
        if (c.json) {
            json_t *j = json_pack("{s:s, s:s, s:b}", "id", val, "pool", pool->name, "duplicate",
                                  !strcmp(what, "dup"));
            print_json(j);
            json_decref(j);
        } else {
            printf("%s\n", val);
        }
        rc = 0;
    } else {
        fprintf(stderr, "judgectl submit: unexpected reply from the admission script\n");
    }
    freeReplyObject(r);
out:
    teardown(&c);
    return rc;
}

/* ---------------------------------------------------------------- result */

/* The result object: the runner's report merged with id and state. */
static json_t *load_result(struct common *c, const char *id, bool *found)
{
    char pool[80], suffix[300], ksub[400];
    *found = false;
    if (!jd_id_pool(id, pool, sizeof pool) || strchr(id, '{') || strchr(id, '}'))
        return NULL;
    snprintf(suffix, sizeof suffix, "sub:%s", id);
    jd_key(ksub, sizeof ksub, pool, suffix);
    redisReply *r = jd_cmd(&c->conn, "HMGET %s state verdict score report lang problem priority "
                                     "attempts created started finished host", ksub);
    if (!r || r->type != REDIS_REPLY_ARRAY || r->elements < 12) {
        if (r)
            freeReplyObject(r);
        return NULL;
    }
    static const char *names[] = {"state", "verdict", "score", "report", "lang", "problem",
                                  "priority", "attempts", "created", "started", "finished", "host"};
    json_t *h = json_object();
    for (int i = 0; i < 12; i++)
        if (r->element[i]->type == REDIS_REPLY_STRING)
            json_object_set_new(h, names[i], json_stringn(r->element[i]->str, r->element[i]->len));
    freeReplyObject(r);
    const char *state = json_string_value(json_object_get(h, "state"));
    if (!state) {
        json_decref(h);
        return NULL;
    }
    *found = true;
    json_t *o = NULL;
    const char *rep = json_string_value(json_object_get(h, "report"));
    if (rep && !strcmp(state, "done"))
        o = json_loads(rep, 0, NULL);
    if (!json_is_object(o)) {
        json_decref(o);
        o = json_object();
    }
    json_object_set_new(o, "id", json_string(id));
    json_object_set_new(o, "state", json_string(!strcmp(state, "done") ? "done"
                                                : !strcmp(state, "running") ? "running" : "queued"));
    const char *v = json_string_value(json_object_get(h, "verdict"));
    json_object_set_new(o, "verdict", v && !strcmp(state, "done") ? json_string(v) : json_null());
    const char *sc = json_string_value(json_object_get(h, "score"));
    if (strcmp(state, "done"))
        json_object_set_new(o, "score", json_null());
    else if (!json_is_number(json_object_get(o, "score")))
        json_object_set_new(o, "score", json_real(sc ? atof(sc) : 0));
    if (!json_is_array(json_object_get(o, "tests")))
        json_object_set_new(o, "tests", json_array());
    static const char *copy[] = {"lang", "problem", "priority", "host"};
    for (size_t i = 0; i < sizeof copy / sizeof copy[0]; i++)
        if (json_object_get(h, copy[i]) && !json_object_get(o, copy[i]))
            json_object_set(o, copy[i], json_object_get(h, copy[i]));
    const char *att = json_string_value(json_object_get(h, "attempts"));
    json_object_set_new(o, "attempts", json_integer(att ? atoi(att) : 0));
    json_decref(h);
    return o;
}

int cmd_result(int argc, char **argv)
{
    struct common c = {.cmd = "result"};
    double wait = 0;
    static const struct option opts[] = {
        COMMON_OPTS,
        {"wait", required_argument, NULL, 'w'},
        {NULL, 0, NULL, 0},
    };
    int o;
    optind = 1;
    while ((o = getopt_long(argc, argv, "c:jhw:", opts, NULL)) != -1) {
        switch (o) {
        case 'c': c.config = optarg; break;
        case 'j': c.json = true; break;
        case 'w': wait = atof(optarg); break;
        case 'h':
            printf("usage: judgectl result ID [--wait SECONDS] [--config FILE] [--json]\n\n"
                   "Shows a submission's state (queued, running, done) and verdict. With --wait,\n"
                   "waits up to SECONDS for it to be done (exit 1 if it is not by then).\n"
                   "--json prints {\"id\", \"state\", \"verdict\", \"score\", \"tests\": [...], ...}.\n");
            return 0;
        default: return 2;
        }
    }
    if (optind != argc - 1) {
        die_usage("result", "expected one submission ID%s", "");
        return 2;
    }
    const char *id = argv[optind];
    if (setup(&c))
        return 1;
    int64_t deadline = jd_now_ms() + (int64_t)(wait * 1000);
    int rc = 1;
    for (;;) {
        bool found;
        json_t *o = load_result(&c, id, &found);
        if (!o) {
            fprintf(stderr, "judgectl result: %s\n", found ? "redis error" : "no such submission");
            break;
        }
        const char *state = json_string_value(json_object_get(o, "state"));
        bool done = !strcmp(state, "done");
        if (done || jd_now_ms() >= deadline) {
            if (c.json) {
                print_json(o);
            } else {
                const char *v = json_string_value(json_object_get(o, "verdict"));
                json_t *sc = json_object_get(o, "score");
                if (done)
                    printf("%s %s %s %g\n", id, state, v ? v : "-", json_number_value(sc));
                else
                    printf("%s %s\n", id, state);
            }
            if (!done && wait > 0)
                fprintf(stderr, "judgectl result: not done after %gs\n", wait);
            rc = done || wait <= 0 ? 0 : 1;
            json_decref(o);
            break;
        }
        json_decref(o);
        jd_sleep_ms(50);
    }
    teardown(&c);
    return rc;
}

/* ---------------------------------------------------------------- events */

static json_t *entry_obj(const redisReply *e)
{
    json_t *o = json_object();
    if (e->type != REDIS_REPLY_ARRAY || e->elements < 2)
        return o;
    json_object_set_new(o, "event", json_string(e->element[0]->str));
    const redisReply *f = e->element[1];
    if (f->type == REDIS_REPLY_ARRAY)
        for (size_t i = 0; i + 1 < f->elements; i += 2) {
            const char *k = jd_rstr(f->element[i]), *v = jd_rstr(f->element[i + 1]);
            if (!k || !v)
                continue;
            if (!strcmp(k, "score"))
                json_object_set_new(o, k, json_real(atof(v)));
            else if (!strcmp(k, "time") || !strcmp(k, "attempts"))
                json_object_set_new(o, k, json_integer(atoll(v)));
            else if (!strcmp(k, "history") || !strcmp(k, "fields")) {
                json_t *x = json_loads(v, 0, NULL);
                json_object_set_new(o, k, x ? x : json_string(v));
            } else
                json_object_set_new(o, k, json_string(v));
        }
    return o;
}

static int cmp_event(const void *a, const void *b)
{
    const char *x = json_string_value(json_object_get(*(json_t *const *)a, "event"));
    const char *y = json_string_value(json_object_get(*(json_t *const *)b, "event"));
    unsigned long long xm = strtoull(x, NULL, 10), ym = strtoull(y, NULL, 10);
    if (xm != ym)
        return xm < ym ? -1 : 1;
    unsigned long long xs = strtoull(strchr(x, '-') + 1, NULL, 10), ys = strtoull(strchr(y, '-') + 1, NULL, 10);
    return xs < ys ? -1 : xs > ys;
}

int cmd_events(int argc, char **argv)
{
    struct common c = {.cmd = "events"};
    bool follow = false;
    static const struct option opts[] = {
        COMMON_OPTS,
        {"follow", no_argument, NULL, 'f'},
        {NULL, 0, NULL, 0},
    };
    int o;
    optind = 1;
    while ((o = getopt_long(argc, argv, "c:jhf", opts, NULL)) != -1) {
        switch (o) {
        case 'c': c.config = optarg; break;
        case 'j': c.json = true; break;
        case 'f': follow = true; break;
        case 'h':
            printf("usage: judgectl events [--follow] [--config FILE] [--json]\n\n"
                   "Prints the results streams of all pools as JSON lines, oldest first, each\n"
                   "{\"id\", \"verdict\", \"score\", \"pool\", \"time\", \"event\"}. --follow keeps\n"
                   "printing new events as they are published.\n");
            return 0;
        default: return 2;
        }
    }
    if (optind != argc) {
        die_usage("events", "unexpected argument '%s'", argv[optind]);
        return 2;
    }
    if (setup(&c))
        return 1;
    int np = c.cfg.npools;
    char(*keys)[160] = calloc((size_t)np, sizeof *keys);
    char(*last)[64] = calloc((size_t)np, sizeof *last);
    for (int i = 0; i < np; i++) {
        jd_key(keys[i], sizeof keys[i], c.cfg.pools[i].name, "results");
        snprintf(last[i], sizeof last[i], "0-0");
    }
    int rc = 0;
    bool first = true;
    for (;;) {
        /* one XREAD per pool: a cluster would hold the pools on different nodes */
        json_t *batch = json_array();
        bool more = false;
        for (int i = 0; i < np; i++) {
            redisReply *r = jd_cmd(&c.conn, "XREAD COUNT 1000 STREAMS %s %s", keys[i], last[i]);
            if (bad_reply(&c, r, "XREAD")) {
                rc = 1;
                break;
            }
            if (r->type == REDIS_REPLY_ARRAY && r->elements > 0) {
                redisReply *ents = r->element[0]->element[1];
                for (size_t e = 0; e < ents->elements; e++)
                    json_array_append_new(batch, entry_obj(ents->element[e]));
                if (ents->elements > 0)
                    snprintf(last[i], sizeof last[i], "%s", ents->element[ents->elements - 1]->element[0]->str);
                if (ents->elements == 1000)
                    more = true;
            }
            freeReplyObject(r);
        }
        if (rc) {
            json_decref(batch);
            break;
        }
        size_t n = json_array_size(batch);
        json_t **arr = calloc(n + 1, sizeof *arr);
        for (size_t i = 0; i < n; i++)
            arr[i] = json_array_get(batch, i);
        qsort(arr, n, sizeof *arr, cmp_event);
        for (size_t i = 0; i < n; i++)
            print_json(arr[i]);
        free(arr);
        json_decref(batch);
        fflush(stdout);
        if (more)
            continue;
        if (!follow)
            break;
        first = false;
        /* block until any pool has something new (single-node Redis) */
        const char **args = calloc((size_t)(2 * np + 6), sizeof *args);
        int a = 0;
        args[a++] = "XREAD";
        args[a++] = "BLOCK";
        args[a++] = "1000";
        args[a++] = "STREAMS";
        for (int i = 0; i < np; i++)
            args[a++] = keys[i];
        for (int i = 0; i < np; i++)
            args[a++] = last[i];
        redisReply *r = jd_cmdv(&c.conn, a, args, NULL);
        free(args);
        if (!r) {
            jd_conn_backoff(&c.conn); /* Redis away: keep following */
            continue;
        }
        freeReplyObject(r);
    }
    (void)first;
    free(keys);
    free(last);
    teardown(&c);
    return rc;
}

/* ----------------------------------------------------------------- pools */

static long long pending_count(struct common *c, const char *key)
{
    redisReply *r = jd_cmd(&c->conn, "XPENDING %s %s", key, JD_GROUP);
    long long n = 0;
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements >= 1 && r->element[0]->type == REDIS_REPLY_INTEGER)
        n = r->element[0]->integer;
    if (r)
        freeReplyObject(r);
    return n;
}

static json_t *pool_obj(struct common *c, const struct jd_pool_cfg *pc, json_t *hosts)
{
    char kq[2][160], kst[160], kdel[160];
    jd_key(kq[0], sizeof kq[0], pc->name, "q:contest");
    jd_key(kq[1], sizeof kq[1], pc->name, "q:normal");
    jd_key(kst, sizeof kst, pc->name, "state");
    jd_key(kdel, sizeof kdel, pc->name, "delayed");
    redisReply *r = jd_cmd(&c->conn, "GET %s", kst);
    char state[32] = "active";
    if (r && r->type == REDIS_REPLY_STRING)
        snprintf(state, sizeof state, "%s", r->str);
    if (r)
        freeReplyObject(r);
    long long len = 0, pend = 0;
    json_t *consumers = json_array();
    for (int i = 0; i < 2; i++) {
        len += rint_cmd(c, "XLEN %s", kq[i]);
        pend += pending_count(c, kq[i]);
        r = jd_cmd(&c->conn, "XINFO CONSUMERS %s %s", kq[i], JD_GROUP);
        if (r && r->type == REDIS_REPLY_ARRAY)
            for (size_t e = 0; e < r->elements; e++) {
                redisReply *ci = r->element[e];
                for (size_t f = 0; f + 1 < ci->elements; f += 2)
                    if (!strcmp(ci->element[f]->str, "name")) {
                        const char *nm = ci->element[f + 1]->str;
                        bool seen = false;
                        size_t x;
                        json_t *v;
                        json_array_foreach(consumers, x, v) if (!strcmp(json_string_value(v), nm)) seen = true;
                        if (!seen)
                            json_array_append_new(consumers, json_string(nm));
                    }
            }
        if (r)
            freeReplyObject(r);
    }
    long long delayed = rint_cmd(c, "ZCARD %s", kdel);
    if (!strcmp(state, "draining") && pend == 0)
        snprintf(state, sizeof state, "drained");
    json_t *langs = json_array();
    for (int i = 0; i < pc->nlanguages; i++)
        json_array_append_new(langs, json_string(pc->languages[i]));
    /* slots: what live hosts registered for this pool, else the configured per-host value */
    long long slots = 0;
    int nh = 0;
    const char *hn;
    json_t *h;
    json_object_foreach(hosts, hn, h)
    {
        if (!json_is_true(json_object_get(h, "alive")))
            continue;
        size_t x;
        json_t *po;
        json_array_foreach(json_object_get(h, "pools"), x, po) if (!strcmp(
            json_string_value(json_object_get(po, "name")) ? json_string_value(json_object_get(po, "name")) : "",
            pc->name))
        {
            slots += json_integer_value(json_object_get(po, "slots"));
            nh++;
        }
    }
    if (!nh)
        slots = pc->slots;
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(pc->name));
    json_object_set_new(o, "state", json_string(state));
    json_object_set_new(o, "languages", langs);
    json_object_set_new(o, "slots", json_integer(slots));
    json_object_set_new(o, "depth", json_integer(len - pend + delayed));
    json_object_set_new(o, "running", json_integer(pend));
    json_object_set_new(o, "delayed", json_integer(delayed));
    json_object_set_new(o, "consumers", consumers);
    json_object_set_new(o, "stream", json_string(kq[1]));
    json_object_set_new(o, "contest_stream", json_string(kq[0]));
    json_object_set_new(o, "max_queue", pc->max_queue ? json_integer(pc->max_queue) : json_null());
    return o;
}

/* {name: {host fields..., alive}} */
static json_t *load_hosts(struct common *c)
{
    json_t *out = json_object();
    redisReply *r = jd_cmd(&c->conn, "HGETALL judge:hosts");
    if (r && r->type == REDIS_REPLY_ARRAY)
        for (size_t i = 0; i + 1 < r->elements; i += 2) {
            json_t *h = json_loads(r->element[i + 1]->str, 0, NULL);
            if (!json_is_object(h)) {
                json_decref(h);
                continue;
            }
            redisReply *ex = jd_cmd(&c->conn, "PTTL judge:host:%s", r->element[i]->str);
            bool alive = ex && ex->type == REDIS_REPLY_INTEGER && ex->integer > 0;
            if (ex)
                freeReplyObject(ex);
            json_object_set_new(h, "alive", json_boolean(alive));
            json_object_set_new(out, r->element[i]->str, h);
        }
    if (r)
        freeReplyObject(r);
    return out;
}

static int simple_opts(struct common *c, int argc, char **argv, const char *usage_text,
                       double *wait, bool *has_wait)
{
    static const struct option opts[] = {
        COMMON_OPTS,
        {"wait", optional_argument, NULL, 'w'},
        {NULL, 0, NULL, 0},
    };
    int o;
    optind = 1;
    while ((o = getopt_long(argc, argv, "c:jh", opts, NULL)) != -1) {
        switch (o) {
        case 'c': c->config = optarg; break;
        case 'j': c->json = true; break;
        case 'w':
            if (!wait) {
                die_usage(c->cmd, "unknown option --wait%s", "");
                return 2;
            }
            *has_wait = true;
            *wait = optarg ? atof(optarg) : 0;
            break;
        case 'h': fputs(usage_text, stdout); return 0;
        default: return 2;
        }
    }
    return -1;
}

int cmd_pools(int argc, char **argv)
{
    struct common c = {.cmd = "pools"};
    int rc = simple_opts(&c, argc, argv,
                         "usage: judgectl pools [--config FILE] [--json]\n\n"
                         "Lists the pools: state (active, draining, drained, paused), languages,\n"
                         "slots, depth (waiting), running, consumers and stream.\n",
                         NULL, NULL);
    if (rc >= 0)
        return rc;
    if (optind != argc) {
        die_usage("pools", "unexpected argument '%s'", argv[optind]);
        return 2;
    }
    if (setup(&c))
        return 1;
    json_t *hosts = load_hosts(&c);
    json_t *list = json_array();
    for (int i = 0; i < c.cfg.npools; i++)
        json_array_append_new(list, pool_obj(&c, &c.cfg.pools[i], hosts));
    if (c.json) {
        print_json(list);
    } else {
        printf("%-12s %-9s %5s %7s %7s %9s  %s\n", "POOL", "STATE", "SLOTS", "DEPTH", "RUNNING",
               "CONSUMERS", "LANGUAGES");
        size_t i;
        json_t *p;
        json_array_foreach(list, i, p)
        {
            char langs[512] = "";
            size_t j;
            json_t *l;
            json_array_foreach(json_object_get(p, "languages"), j, l)
            {
                if (j)
                    strncat(langs, ",", sizeof langs - strlen(langs) - 1);
                strncat(langs, json_string_value(l), sizeof langs - strlen(langs) - 1);
            }
            printf("%-12s %-9s %5lld %7lld %7lld %9zu  %s\n",
                   json_string_value(json_object_get(p, "name")),
                   json_string_value(json_object_get(p, "state")),
                   json_integer_value(json_object_get(p, "slots")),
                   json_integer_value(json_object_get(p, "depth")),
                   json_integer_value(json_object_get(p, "running")),
                   json_array_size(json_object_get(p, "consumers")), langs);
        }
    }
    json_decref(list);
    json_decref(hosts);
    teardown(&c);
    return 0;
}

/* ------------------------------------------------- drain, pause, resume */

static int set_state(int argc, char **argv, const char *cmd, const char *state, const char *help)
{
    struct common c = {.cmd = cmd};
    double wait = -1;
    bool has_wait = false;
    int rc = simple_opts(&c, argc, argv, help, !strcmp(cmd, "drain") ? &wait : NULL, &has_wait);
    if (rc >= 0)
        return rc;
    if (optind != argc - 1) {
        die_usage(cmd, "expected one POOL%s", "");
        return 2;
    }
    const char *name = argv[optind];
    if (setup(&c))
        return 1;
    const struct jd_pool_cfg *pc = jd_pool_by_name(&c.cfg, name);
    if (!pc) {
        fprintf(stderr, "judgectl %s: unknown pool '%s'\n", cmd, name);
        teardown(&c);
        return 1;
    }
    char kst[160];
    jd_key(kst, sizeof kst, name, "state");
    redisReply *r = state ? jd_cmd(&c.conn, "SET %s %s", kst, state) : jd_cmd(&c.conn, "DEL %s", kst);
    if (bad_reply(&c, r, "cannot change the pool state")) {
        teardown(&c);
        return 1;
    }
    freeReplyObject(r);
    rc = 0;
    if (has_wait) {
        char kq[2][160];
        jd_key(kq[0], sizeof kq[0], name, "q:contest");
        jd_key(kq[1], sizeof kq[1], name, "q:normal");
        int64_t deadline = wait > 0 ? jd_now_ms() + (int64_t)(wait * 1000) : INT64_MAX;
        /* hosts stop claiming within a second; then only running jobs remain */
        jd_sleep_ms(300);
        for (;;) {
            long long n = pending_count(&c, kq[0]) + pending_count(&c, kq[1]);
            if (n == 0)
                break;
            if (jd_now_ms() >= deadline) {
                fprintf(stderr, "judgectl drain: %lld job(s) still running after %gs\n", n, wait);
                rc = 1;
                break;
            }
            jd_sleep_ms(100);
        }
    }
    json_t *hosts = load_hosts(&c);
    json_t *o = pool_obj(&c, pc, hosts);
    if (c.json)
        print_json(o);
    else
        printf("%s %s\n", name, json_string_value(json_object_get(o, "state")));
    json_decref(o);
    json_decref(hosts);
    teardown(&c);
    return rc;
}

int cmd_drain(int argc, char **argv)
{
    return set_state(argc, argv, "drain", "draining",
                     "usage: judgectl drain POOL [--wait[=SECONDS]] [--config FILE] [--json]\n\n"
                     "Stops new claims in POOL on every host (within a second); running jobs\n"
                     "finish. --wait returns once none is running (the pool is 'drained').\n"
                     "'judgectl resume POOL' starts claiming again.\n");
}

int cmd_pause(int argc, char **argv)
{
    return set_state(argc, argv, "pause", "paused",
                     "usage: judgectl pause POOL [--config FILE] [--json]\n\n"
                     "Stops claiming (and reclaiming) in POOL on every host until resumed.\n");
}

int cmd_resume(int argc, char **argv)
{
    return set_state(argc, argv, "resume", NULL,
                     "usage: judgectl resume POOL [--config FILE] [--json]\n\n"
                     "Makes a paused or drained POOL active again.\n");
}

/* ------------------------------------------------------------------- dlq */

static const struct jd_pool_cfg *find_dead(struct common *c, const char *eid)
{
    for (int i = 0; i < c->cfg.npools; i++) {
        char k[160];
        jd_key(k, sizeof k, c->cfg.pools[i].name, "dlq");
        redisReply *r = jd_cmd(&c->conn, "XRANGE %s %s %s", k, eid, eid);
        bool hit = r && r->type == REDIS_REPLY_ARRAY && r->elements > 0;
        if (r)
            freeReplyObject(r);
        if (hit)
            return &c->cfg.pools[i];
    }
    return NULL;
}

int cmd_dlq(int argc, char **argv)
{
    struct common c = {.cmd = "dlq"};
    int rc = simple_opts(&c, argc, argv,
                         "usage: judgectl dlq list [POOL] | requeue ENTRY | drop ENTRY\n"
                         "                    [--config FILE] [--json]\n\n"
                         "The dead-letter streams: jobs that failed max_attempts times for\n"
                         "infrastructure reasons, and poison entries. list shows each entry's\n"
                         "original fields, reason, attempts and history; requeue admits the\n"
                         "submission again (attempts reset); drop deletes the entry.\n",
                         NULL, NULL);
    if (rc >= 0)
        return rc;
    if (optind >= argc) {
        die_usage("dlq", "expected list, requeue ENTRY or drop ENTRY%s", "");
        return 2;
    }
    const char *sub = argv[optind];
    bool list = !strcmp(sub, "list");
    if (!list && strcmp(sub, "requeue") && strcmp(sub, "drop")) {
        die_usage("dlq", "unknown subcommand '%s'", sub);
        return 2;
    }
    if ((list && optind + 2 < argc) || (!list && optind + 2 != argc)) {
        die_usage("dlq", "wrong number of arguments for '%s'", sub);
        return 2;
    }
    if (setup(&c))
        return 1;
    rc = 0;
    if (list) {
        const char *only = optind + 1 < argc ? argv[optind + 1] : NULL;
        if (only && !jd_pool_by_name(&c.cfg, only)) {
            fprintf(stderr, "judgectl dlq: unknown pool '%s'\n", only);
            teardown(&c);
            return 1;
        }
        json_t *arr = json_array();
        for (int i = 0; i < c.cfg.npools; i++) {
            if (only && strcmp(only, c.cfg.pools[i].name))
                continue;
            char k[160];
            jd_key(k, sizeof k, c.cfg.pools[i].name, "dlq");
            redisReply *r = jd_cmd(&c.conn, "XRANGE %s - +", k);
            if (bad_reply(&c, r, "XRANGE")) {
                rc = 1;
                break;
            }
            for (size_t e = 0; e < r->elements; e++) {
                json_t *o = entry_obj(r->element[e]);
                json_object_set_new(o, "pool", json_string(c.cfg.pools[i].name));
                json_object_set(o, "entry", json_object_get(o, "event"));
                json_object_del(o, "event");
                json_array_append_new(arr, o);
            }
            freeReplyObject(r);
        }
        if (c.json) {
            print_json(arr);
        } else {
            size_t i;
            json_t *o;
            json_array_foreach(arr, i, o)
                printf("%s %s %s attempts=%lld %s\n", json_string_value(json_object_get(o, "entry")),
                       json_string_value(json_object_get(o, "pool")),
                       *json_string_value(json_object_get(o, "id")) ? json_string_value(json_object_get(o, "id")) : "-",
                       json_integer_value(json_object_get(o, "attempts")),
                       json_string_value(json_object_get(o, "reason")));
        }
        json_decref(arr);
    } else {
        const char *eid = argv[optind + 1];
        const struct jd_pool_cfg *pc = find_dead(&c, eid);
        if (!pc) {
            fprintf(stderr, "judgectl dlq: no dead-letter entry '%s'\n", eid);
            teardown(&c);
            return 1;
        }
        char kd[160], kq[2][160], prefix[160];
        jd_key(kd, sizeof kd, pc->name, "dlq");
        jd_key(kq[0], sizeof kq[0], pc->name, "q:contest");
        jd_key(kq[1], sizeof kq[1], pc->name, "q:normal");
        jd_key(prefix, sizeof prefix, pc->name, "sub:");
        if (!strcmp(sub, "drop")) {
            redisReply *r = jd_cmd(&c.conn, "XDEL %s %s", kd, eid);
            if (bad_reply(&c, r, "drop"))
                rc = 1;
            else {
                freeReplyObject(r);
                if (c.json) {
                    json_t *o = json_pack("{s:s, s:s}", "entry", eid, "dropped", pc->name);
                    print_json(o);
                    json_decref(o);
                } else {
                    printf("dropped %s\n", eid);
                }
            }
        } else {
            const char *args[] = {kd, kq[0], kq[1], eid, prefix};
            redisReply *r = jd_eval(&c.conn, &JD_REQUEUE, 3, 5, args, NULL);
            if (bad_reply(&c, r, "requeue"))
                rc = 1;
            else {
                if (c.json) {
                    json_t *o = json_pack("{s:s, s:s}", "entry", eid, "id", jd_rstr(r) ? jd_rstr(r) : "");
                    print_json(o);
                    json_decref(o);
                } else {
                    printf("%s\n", jd_rstr(r) ? jd_rstr(r) : "");
                }
                freeReplyObject(r);
            }
        }
    }
    teardown(&c);
    return rc;
}

/* ----------------------------------------------------------------- hosts */

int cmd_hosts(int argc, char **argv)
{
    struct common c = {.cmd = "hosts"};
    int rc = simple_opts(&c, argc, argv,
                         "usage: judgectl hosts [--config FILE] [--json]\n\n"
                         "Lists the judged hosts that registered: pid, pools, busy slots, version,\n"
                         "last heartbeat, and whether the heartbeat is still alive.\n",
                         NULL, NULL);
    if (rc >= 0)
        return rc;
    if (optind != argc) {
        die_usage("hosts", "unexpected argument '%s'", argv[optind]);
        return 2;
    }
    if (setup(&c))
        return 1;
    json_t *hosts = load_hosts(&c);
    json_t *arr = json_array();
    const char *name;
    json_t *h;
    json_object_foreach(hosts, name, h) json_array_append(arr, h);
    if (c.json) {
        print_json(arr);
    } else {
        printf("%-20s %8s %6s %6s %-6s %s\n", "HOST", "PID", "BUSY", "SLOTS", "ALIVE", "VERSION");
        size_t i;
        json_array_foreach(arr, i, h)
            printf("%-20s %8lld %6lld %6lld %-6s %s\n", json_string_value(json_object_get(h, "host")),
                   json_integer_value(json_object_get(h, "pid")),
                   json_integer_value(json_object_get(h, "busy")),
                   json_integer_value(json_object_get(h, "slots")),
                   json_is_true(json_object_get(h, "alive")) ? "yes" : "no",
                   json_string_value(json_object_get(h, "version")));
    }
    json_decref(arr);
    json_decref(hosts);
    teardown(&c);
    return 0;
}
