/* cmd_admin.c - judgectl's administration: pools, drain, pause, resume,
 * dlq (list, requeue, drop) and hosts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

/* ----------------------------------------------------------------- pools */

static long long pending_count(struct common *c, const char *key)
{
    redisReply *r = queue_cmd(&c->conn, "XPENDING %s %s", key, QUEUE_GROUP);
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
    queue_key(kq[0], sizeof kq[0], pc->name, "q:contest");
    queue_key(kq[1], sizeof kq[1], pc->name, "q:normal");
    queue_key(kst, sizeof kst, pc->name, "state");
    queue_key(kdel, sizeof kdel, pc->name, "delayed");
    redisReply *r = queue_cmd(&c->conn, "GET %s", kst);
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
        r = queue_cmd(&c->conn, "XINFO CONSUMERS %s %s", kq[i], QUEUE_GROUP);
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
    char err[1024];
    if (queue_set_state(&c.conn, name, state ? state : "active", err, sizeof err)) {
        fprintf(stderr, "judgectl %s: cannot change the pool state: %s\n", cmd, err);
        teardown(&c);
        return 1;
    }
    rc = 0;
    if (has_wait) {
        char kq[2][160];
        queue_key(kq[0], sizeof kq[0], name, "q:contest");
        queue_key(kq[1], sizeof kq[1], name, "q:normal");
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
        queue_key(k, sizeof k, c->cfg.pools[i].name, "dlq");
        redisReply *r = queue_cmd(&c->conn, "XRANGE %s %s %s", k, eid, eid);
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
            queue_key(k, sizeof k, c.cfg.pools[i].name, "dlq");
            redisReply *r = queue_cmd(&c.conn, "XRANGE %s - +", k);
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
        char kd[160];
        queue_key(kd, sizeof kd, pc->name, "dlq");
        if (!strcmp(sub, "drop")) {
            redisReply *r = queue_cmd(&c.conn, "XDEL %s %s", kd, eid);
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
            char id[200], err[1024];
            if (queue_requeue(&c.conn, pc->name, eid, id, sizeof id, err, sizeof err)) {
                fprintf(stderr, "judgectl dlq: %s\n", err);
                rc = 1;
            } else if (c.json) {
                json_t *o = json_pack("{s:s, s:s}", "entry", eid, "id", id);
                print_json(o);
                json_decref(o);
            } else {
                printf("%s\n", id);
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
