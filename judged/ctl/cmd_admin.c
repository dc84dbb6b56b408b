/* cmd_admin.c - judgectl's administration: pools, health, drain, pause,
 * resume, dlq (list, requeue, drop) and hosts. A pool's counts and state
 * come from the queue library (queue_pool_status, shared with judge-api);
 * its slots from the hosts' registrations (queue_hosts, heartbeat.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

/* ----------------------------------------------------------------- pools */

/* The consumers of both queues' group, by name (none when Redis did not say). */
static json_t *consumers(struct common *c, const char *pool)
{
    json_t *names = json_array();
    char **v, err[512];
    size_t n;
    if (queue_consumers(&c->conn, pool, &v, &n, err, sizeof err))
        return names;
    for (size_t i = 0; i < n; i++)
        json_array_append_new(names, json_string(v[i]));
    queue_names_free(v, n);
    return names;
}

/* The pool as JSON; NULL when Redis failed (reported). */
static json_t *pool_obj(struct common *c, const struct jd_pool_cfg *pc, json_t *hosts)
{
    struct queue_pool_status s;
    char err[512];
    enum queue_rc rc = queue_pool_status(&c->conn, pc->name, &s, err, sizeof err);
    if (rc) {
        ctl_queue_fail(c, rc, err);
        return NULL;
    }
    json_t *langs = json_array();
    for (int i = 0; i < pc->nlanguages; i++)
        json_array_append_new(langs, json_string(pc->languages[i]));
    long long slots, busy;
    int nh = queue_hosts_capacity(hosts, pc->name, &slots, &busy);
    char kq[2][160];
    queue_stream_key(kq[0], sizeof kq[0], pc->name, QUEUE_CONTEST);
    queue_stream_key(kq[1], sizeof kq[1], pc->name, QUEUE_NORMAL);
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(pc->name));
    json_object_set_new(o, "state", json_string(s.state));
    json_object_set_new(o, "languages", langs);
    /* slots: what live hosts registered, else the configured per-host value */
    json_object_set_new(o, "slots", json_integer(nh ? slots : pc->slots));
    json_object_set_new(o, "busy", json_integer(busy));
    json_object_set_new(o, "hosts", json_integer(nh));
    json_object_set_new(o, "depth", json_integer(s.waiting[0] + s.waiting[1] + s.delayed));
    json_object_set_new(o, "depth_contest", json_integer(s.waiting[0]));
    json_object_set_new(o, "depth_normal", json_integer(s.waiting[1]));
    json_object_set_new(o, "running", json_integer(s.running));
    json_object_set_new(o, "delayed", json_integer(s.delayed));
    json_object_set_new(o, "rejudge", json_integer(s.rejudge));
    json_object_set_new(o, "dlq", json_integer(s.dlq));
    json_object_set_new(o, "oldest_ms", json_integer(s.oldest_ms));
    /* the recent pace and the wait it means for a submission admitted now */
    json_object_set_new(o, "verdicts_per_min", s.verdicts_per_min >= 0 ? json_real(s.verdicts_per_min) : json_null());
    json_object_set_new(o, "expected_wait_ms", s.expected_wait_ms >= 0 ? json_integer(s.expected_wait_ms) : json_null());
    json_object_set_new(o, "consumers", consumers(c, pc->name));
    json_object_set_new(o, "stream", json_string(kq[1]));
    json_object_set_new(o, "contest_stream", json_string(kq[0]));
    json_object_set_new(o, "max_queue", pc->max_queue ? json_integer(pc->max_queue) : json_null());
    /* the lag KEDA reads, both queues; null where Redis cannot tell it */
    json_object_set_new(o, "lag", s.lag[0] >= 0 && s.lag[1] >= 0 ? json_integer(s.lag[0] + s.lag[1])
                                                                 : json_null());
    /* under redis-cluster://, the primary that holds the pool's slot */
    json_object_set_new(o, "node", s.node[0] ? json_string(s.node) : json_null());
    return o;
}

/* 850ms, 12s, 3m05s, 2h10m: the age of the oldest waiting job */
static void human_age(long long ms, char *buf, size_t len)
{
    if (ms <= 0)
        snprintf(buf, len, "-");
    else if (ms < 1000)
        snprintf(buf, len, "%lldms", ms);
    else if (ms < 60000)
        snprintf(buf, len, "%llds", ms / 1000);
    else if (ms < 3600000)
        snprintf(buf, len, "%lldm%02llds", ms / 60000, ms / 1000 % 60);
    else
        snprintf(buf, len, "%lldh%02lldm", ms / 3600000, ms / 60000 % 60);
}

static void print_pools(json_t *list)
{
    /* a NODE column only under redis-cluster:// (one Redis: nothing to tell) */
    size_t i;
    json_t *p;
    bool nodes = false;
    json_array_foreach(list, i, p) nodes |= json_is_string(json_object_get(p, "node"));
    printf("%-12s %-9s %5s %7s %7s %7s %7s %9s  %-*s%s\n", "POOL", "STATE", "SLOTS", "DEPTH", "RUNNING", "OLDEST",
           "WAIT", "CONSUMERS", nodes ? 20 : 0, "LANGUAGES", nodes ? "  NODE" : "");
    json_array_foreach(list, i, p)
    {
        char langs[512] = "", age[32], wait[32] = "?";
        size_t j;
        json_t *l;
        json_array_foreach(json_object_get(p, "languages"), j, l)
        {
            if (j)
                strncat(langs, ",", sizeof langs - strlen(langs) - 1);
            strncat(langs, json_string_value(l), sizeof langs - strlen(langs) - 1);
        }
        human_age(json_integer_value(json_object_get(p, "oldest_ms")), age, sizeof age);
        /* ?: no recent verdict to tell the pace by */
        if (json_is_integer(json_object_get(p, "expected_wait_ms")))
            human_age(json_integer_value(json_object_get(p, "expected_wait_ms")), wait, sizeof wait);
        const char *node = json_string_value(json_object_get(p, "node"));
        printf("%-12s %-9s %5lld %7lld %7lld %7s %7s %9zu  %-*s%s%s\n", json_string_value(json_object_get(p, "name")),
               json_string_value(json_object_get(p, "state")), json_integer_value(json_object_get(p, "slots")),
               json_integer_value(json_object_get(p, "depth")),
               json_integer_value(json_object_get(p, "running")), age, wait,
               json_array_size(json_object_get(p, "consumers")), nodes ? 20 : 0, langs, nodes ? "  " : "", nodes && node ? node : "");
    }
}

/* Every pool of the configuration as JSON; NULL when Redis failed. */
static json_t *all_pools(struct common *c)
{
    json_t *hosts = load_hosts(c);
    if (!hosts)
        return NULL;
    json_t *list = json_array();
    for (int i = 0; i < c->cfg.npools && list; i++) {
        json_t *o = pool_obj(c, &c->cfg.pools[i], hosts);
        if (o) {
            json_array_append_new(list, o);
        } else {
            json_decref(list);
            list = NULL;
        }
    }
    json_decref(hosts);
    return list;
}

int cmd_pools(int argc, char **argv)
{
    struct common c = {0};
    ctl_begin(&c, "pools", argc, argv);
    int rc = simple_opts(&c, argc, argv,
                         "usage: judgectl pools [--config FILE] [--json]\n\n"
                         "Lists the pools: state, slots (of live hosts), depth (waiting, and waiting\n"
                         "to retry), running, the age of the oldest job no host has claimed yet\n"
                         "(OLDEST; \"oldest_ms\" in JSON), the expected wait of a submission admitted\n"
                         "now (WAIT, \"expected_wait_ms\": the depth at the pace of the pool's recent\n"
                         "verdicts, \"verdicts_per_min\"; ? and null when it judged nothing lately),\n"
                         "consumers and languages. --json adds depth_contest, depth_normal, delayed\n"
                         "(waiting to retry), rejudge, dlq, busy and hosts (live hosts serving the pool).\n"
                         "States: active; paused; draining (claims stopped, jobs still running);\n"
                         "drained (claims stopped, nothing running, waiting or waiting to retry);\n"
                         "held (claims stopped, nothing running, but jobs wait for 'resume').\n",
                         NULL, NULL);
    if (rc >= 0)
        return rc;
    if (optind != argc)
        return ctl_usage(&c, "unexpected argument '%s'", argv[optind]);
    if ((rc = setup(&c)))
        return rc;
    json_t *list = all_pools(&c);
    if (list && c.json)
        print_json(list);
    else if (list)
        print_pools(list);
    rc = list ? 0 : c.status;
    json_decref(list);
    teardown(&c);
    return rc;
}

/* ---------------------------------------------------------------- health */

static const char health_usage[] =
    "usage: judgectl health [--config FILE] [--json]\n\n"
    "Exit 0 when Redis answers and every pool of the configuration has a live\n"
    "host (a heartbeat within 3 heartbeats) registering more than 0 slots for it\n"
    "(free or busy), and no pool is paused or held with submissions waiting;\n"
    "exit 1 when some pool is not so (it says which, and why), 69 when Redis\n"
    "does not answer, 78 when the configuration is invalid. A live host running\n"
    "more slots than CPUs (oversubscribe: true) is a warning line, not a failure.\n"
    "--json prints {\"ok\", \"redis\": true, \"pools\": [{\"name\", \"ok\", \"problem\"\n"
    "(when not ok), \"hosts\", \"slots\", \"busy\", \"state\", \"depth\", \"oldest_ms\"}],\n"
    "\"warnings\": [text]}.\n";

/* A pool is healthy when a live host with slots serves it and its work is
 * not left waiting: a paused or held pool with submissions queued judges
 * none of them (contest day: someone forgot a resume). why says what. */
static bool pool_healthy(json_t *po, char *why, size_t len)
{
    const char *state = json_string_value(json_object_get(po, "state"));
    long long depth = json_integer_value(json_object_get(po, "depth"));
    if (json_integer_value(json_object_get(po, "hosts")) <= 0 ||
        json_integer_value(json_object_get(po, "slots")) <= 0) {
        snprintf(why, len, "NO live host with slots serves it");
        return false;
    }
    if (state && (!strcmp(state, "paused") || !strcmp(state, "held")) && depth > 0) {
        snprintf(why, len, "%s with %lld submission(s) waiting, the oldest for %.0f s", state, depth,
                 (double)json_integer_value(json_object_get(po, "oldest_ms")) / 1000);
        return false;
    }
    return true;
}

/* Live hosts running more boxes than CPUs (oversubscribe: true): boxes
 * share cores, so a busy host turns CPU-bound programs into wall-clock
 * TLEs. Not unhealthy (the operator chose it), but said. */
static json_t *oversubscribed_hosts(struct common *c)
{
    json_t *warnings = json_array();
    json_t *hosts = load_hosts(c), *h;
    const char *name;
    json_object_foreach(hosts, name, h)
    {
        long long slots = json_integer_value(json_object_get(h, "slots"));
        long long cpus = json_integer_value(json_object_get(h, "cpus"));
        if (json_is_true(json_object_get(h, "alive")) && cpus > 0 && slots > cpus)
            json_array_append_new(warnings, json_sprintf("host %s runs %lld boxes on %lld CPU(s) (oversubscribe): "
                                                         "boxes share cores, and CPU-bound programs may TLE by "
                                                         "the wall clock when it is busy", name, slots, cpus));
    }
    json_decref(hosts);
    return warnings;
}

int cmd_health(int argc, char **argv)
{
    struct common c = {0};
    ctl_begin(&c, "health", argc, argv);
    int rc = simple_opts(&c, argc, argv, health_usage, NULL, NULL);
    if (rc >= 0)
        return rc;
    if (optind != argc)
        return ctl_usage(&c, "unexpected argument '%s'", argv[optind]);
    if ((rc = setup(&c)))
        return rc;
    char err[512];
    enum queue_rc prc = queue_ping(&c.conn, err, sizeof err);
    if (prc) {
        ctl_queue_fail(&c, prc, err);
        teardown(&c);
        return c.status;
    }
    json_t *list = all_pools(&c);
    if (!list) {
        teardown(&c);
        return c.status;
    }
    bool ok = true;
    json_t *out = json_array();
    size_t i;
    json_t *po;
    json_array_foreach(list, i, po)
    {
        char why[200];
        bool pok = pool_healthy(po, why, sizeof why);
        ok &= pok;
        json_array_append_new(out, json_pack("{s:O, s:b, s:s?, s:O, s:O, s:O, s:O, s:O, s:O}", "name",
                                             json_object_get(po, "name"), "ok", pok, "problem", pok ? NULL : why,
                                             "hosts", json_object_get(po, "hosts"), "slots",
                                             json_object_get(po, "slots"), "busy", json_object_get(po, "busy"),
                                             "state", json_object_get(po, "state"), "depth",
                                             json_object_get(po, "depth"), "oldest_ms",
                                             json_object_get(po, "oldest_ms")));
    }
    json_t *warnings = oversubscribed_hosts(&c);
    if (c.json) {
        json_t *j = json_pack("{s:b, s:b, s:o, s:o}", "ok", ok, "redis", 1, "pools", out, "warnings", warnings);
        print_json(j);
        json_decref(j);
    } else {
        printf("redis: ok\n");
        json_t *w;
        json_array_foreach(warnings, i, w)
            printf("warning: %s\n", json_string_value(w));
        json_decref(warnings);
        json_array_foreach(out, i, po)
        {
            if (json_is_true(json_object_get(po, "ok")))
                printf("pool %s: ok (%lld slots on %lld host(s), %lld busy)\n",
                       json_string_value(json_object_get(po, "name")),
                       json_integer_value(json_object_get(po, "slots")),
                       json_integer_value(json_object_get(po, "hosts")),
                       json_integer_value(json_object_get(po, "busy")));
            else
                printf("pool %s: %s\n", json_string_value(json_object_get(po, "name")),
                       json_string_value(json_object_get(po, "problem")));
        }
        printf("%s\n", ok ? "healthy" : "unhealthy");
        json_decref(out);
    }
    json_decref(list);
    teardown(&c);
    return ok ? 0 : EXIT_NO;
}

/* ------------------------------------------------- drain, pause, resume */

/* drain --wait: until nothing of the pool runs (state drained or held);
 * a limit of < 0 is none. 0, or the timeout's status. */
static int wait_idle(struct common *c, const char *pool, double wait)
{
    int64_t deadline = wait >= 0 ? jd_now_ms() + (int64_t)(wait * 1000) : INT64_MAX;
    /* hosts stop claiming within a claim's time; then only running jobs remain */
    jd_sleep_ms(300);
    for (;;) {
        struct queue_pool_status s;
        char err[512];
        enum queue_rc rc = queue_pool_status(&c->conn, pool, &s, err, sizeof err);
        if (rc)
            return ctl_queue_fail(c, rc, err);
        if (s.running == 0)
            return 0;
        if (jd_now_ms() >= deadline)
            return ctl_fail(c, "timeout", "%lld job(s) still running in pool '%s' after %gs", s.running, pool,
                            wait);
        jd_sleep_ms(100);
    }
}

static int set_state(int argc, char **argv, const char *cmd, const char *state, const char *help)
{
    struct common c = {0};
    ctl_begin(&c, cmd, argc, argv);
    double wait = -1;
    bool has_wait = false;
    int rc = simple_opts(&c, argc, argv, help, !strcmp(cmd, "drain") ? &wait : NULL, &has_wait);
    if (rc >= 0)
        return rc;
    if (optind != argc - 1)
        return ctl_usage(&c, "expected one POOL");
    const char *name = argv[optind];
    if ((rc = setup(&c)))
        return rc;
    const struct jd_pool_cfg *pc = jd_pool_by_name(&c.cfg, name);
    char err[1024];
    enum queue_rc qrc;
    if (!pc)
        rc = ctl_fail(&c, "not_found", "unknown pool '%s'", name);
    else if ((qrc = queue_set_state(&c.conn, name, state ? state : "active", err, sizeof err)))
        rc = ctl_queue_fail(&c, qrc, err);
    else if (has_wait)
        rc = wait_idle(&c, name, wait);
    json_t *hosts = rc ? NULL : load_hosts(&c);
    json_t *o = hosts ? pool_obj(&c, pc, hosts) : NULL;
    if (!rc && !o)
        rc = c.status;
    if (!rc && c.json)
        print_json(o);
    else if (!rc)
        printf("%s %s\n", name, json_string_value(json_object_get(o, "state")));
    json_decref(o);
    json_decref(hosts);
    teardown(&c);
    return rc;
}

int cmd_drain(int argc, char **argv)
{
    return set_state(argc, argv, "drain", "draining",
                     "usage: judgectl drain POOL [--wait [SECONDS]] [--config FILE] [--json]\n\n"
                     "Stops new claims in POOL on every host (within a second); running jobs\n"
                     "finish, queued ones wait for 'judgectl resume POOL'. Prints the pool's\n"
                     "state: draining (jobs still run), drained (nothing runs, waits or waits to\n"
                     "retry) or held (nothing runs, but jobs wait). --wait (no limit),\n"
                     "--wait SECONDS or --wait=SECONDS returns once nothing runs (drained or\n"
                     "held); past SECONDS it fails with status 75 (timeout).\n");
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

/* The dead letter ARG names: a dead-letter entry id, or a submission id
 * (its newest entry). Sets *pool and eid; 0, or the failure's status. */
static int find_dead(struct common *c, const char *arg, const struct jd_pool_cfg **pool, char *eid, size_t len)
{
    char sp[80], err[512];
    bool by_sub = queue_id_pool(arg, sp, sizeof sp);
    for (int i = 0; i < c->cfg.npools; i++) {
        if (by_sub && strcmp(sp, c->cfg.pools[i].name))
            continue;
        struct queue_fields e;
        bool found;
        enum queue_rc rc = by_sub ? queue_dlq_find(&c->conn, c->cfg.pools[i].name, arg, &e, &found, err, sizeof err)
                                  : queue_dlq_entry(&c->conn, c->cfg.pools[i].name, arg, &e, &found, err, sizeof err);
        if (rc == QUEUE_ERROR && !by_sub)
            continue;   /* not an entry id at all */
        if (rc)
            return ctl_queue_fail(c, rc, err);
        if (found) {
            snprintf(eid, len, "%s", e.entry);
            *pool = &c->cfg.pools[i];
            queue_fields_free(&e);
            return 0;
        }
    }
    return ctl_fail(c, "not_found", "no dead letter '%s' (an entry id or a submission id)", arg);
}

static int dlq_list(struct common *c, const char *only)
{
    if (only && !jd_pool_by_name(&c->cfg, only))
        return ctl_fail(c, "not_found", "unknown pool '%s'", only);
    json_t *arr = json_array();
    for (int i = 0; i < c->cfg.npools; i++) {
        if (only && strcmp(only, c->cfg.pools[i].name))
            continue;
        struct queue_entries es;
        char err[512];
        enum queue_rc rc = queue_dlq_list(&c->conn, c->cfg.pools[i].name, 0, &es, err, sizeof err);
        if (rc) {
            json_decref(arr);
            return ctl_queue_fail(c, rc, err);
        }
        for (size_t e = 0; e < es.n; e++) {
            json_t *o = entry_obj(&es.e[e]);
            json_object_set_new(o, "pool", json_string(c->cfg.pools[i].name));
            json_object_set(o, "entry", json_object_get(o, "event"));
            json_object_del(o, "event");
            json_array_append_new(arr, o);
        }
        queue_entries_free(&es);
    }
    if (c->json) {
        print_json(arr);
    } else {
        size_t i;
        json_t *o;
        json_array_foreach(arr, i, o)
        {
            const char *id = json_string_value(json_object_get(o, "id"));
            printf("%s %s %s attempts=%lld %s\n", json_string_value(json_object_get(o, "entry")),
                   json_string_value(json_object_get(o, "pool")), id && *id ? id : "-",
                   json_integer_value(json_object_get(o, "attempts")),
                   json_string_value(json_object_get(o, "reason")));
        }
    }
    json_decref(arr);
    return 0;
}

static int dlq_act(struct common *c, const char *sub, const char *arg)
{
    const struct jd_pool_cfg *pc = NULL;
    char eid[64], err[1024];
    int rc = find_dead(c, arg, &pc, eid, sizeof eid);
    if (rc)
        return rc;
    json_t *o = NULL;
    if (!strcmp(sub, "drop")) {
        enum queue_rc qrc = queue_dlq_drop(&c->conn, pc->name, eid, err, sizeof err);
        if (qrc)
            return ctl_queue_fail(c, qrc, err);
        o = json_pack("{s:s, s:s}", "entry", eid, "dropped", pc->name);
        if (!c->json)
            printf("dropped %s\n", eid);
    } else {
        char id[200];
        enum queue_rc qrc = queue_requeue(&c->conn, pc->name, eid, id, sizeof id, err, sizeof err);
        if (qrc == QUEUE_ERROR && strstr(err, "no longer exists"))
            return ctl_fail(c, "not_found", "%s", err);
        if (qrc == QUEUE_ERROR && strstr(err, "poison"))
            return ctl_fail(c, "bad_input", "%s", err);
        if (qrc)
            return ctl_queue_fail(c, qrc, err);
        o = json_pack("{s:s, s:s}", "entry", eid, "id", id);
        if (!c->json)
            printf("%s\n", id);
    }
    if (c->json)
        print_json(o);
    json_decref(o);
    return 0;
}

int cmd_dlq(int argc, char **argv)
{
    struct common c = {0};
    ctl_begin(&c, "dlq", argc, argv);
    int rc = simple_opts(&c, argc, argv,
                         "usage: judgectl dlq list [POOL] | requeue ID | drop ID\n"
                         "                    [--config FILE] [--json]\n\n"
                         "The dead-letter streams: jobs that failed max_attempts times for\n"
                         "infrastructure reasons, and poison entries. list shows each entry's\n"
                         "original fields, reason, attempts and history; requeue admits the\n"
                         "submission again (attempts reset); drop deletes the entry. ID is the\n"
                         "dead-letter entry's id (as list shows it) or the submission's id (its\n"
                         "newest dead letter). Not found: status 66.\n",
                         NULL, NULL);
    if (rc >= 0)
        return rc;
    if (optind >= argc)
        return ctl_usage(&c, "expected list, requeue ID or drop ID");
    const char *sub = argv[optind];
    bool list = !strcmp(sub, "list");
    if (!list && strcmp(sub, "requeue") && strcmp(sub, "drop"))
        return ctl_usage(&c, "unknown subcommand '%s'", sub);
    if ((list && optind + 2 < argc) || (!list && optind + 2 != argc))
        return ctl_usage(&c, "wrong number of arguments for '%s'", sub);
    if ((rc = setup(&c)))
        return rc;
    rc = list ? dlq_list(&c, optind + 1 < argc ? argv[optind + 1] : NULL) : dlq_act(&c, sub, argv[optind + 1]);
    teardown(&c);
    return rc;
}

/* ----------------------------------------------------------------- hosts */

int cmd_hosts(int argc, char **argv)
{
    struct common c = {0};
    ctl_begin(&c, "hosts", argc, argv);
    int rc = simple_opts(&c, argc, argv,
                         "usage: judgectl hosts [--config FILE] [--json]\n\n"
                         "Lists the judged hosts that registered: pid, pools, busy slots, version,\n"
                         "last heartbeat, and whether the heartbeat is still alive, by name.\n"
                         "Exit status 1 when a registered host is not alive: a judged stopped\n"
                         "cleanly removes itself; one that died stays listed until a live host\n"
                         "forgets it (within a lease, once no job is pending for it).\n",
                         NULL, NULL);
    if (rc >= 0)
        return rc;
    if (optind != argc)
        return ctl_usage(&c, "unexpected argument '%s'", argv[optind]);
    if ((rc = setup(&c)))
        return rc;
    json_t *hosts = load_hosts(&c);
    if (!hosts) {
        teardown(&c);
        return c.status;
    }
    json_t *arr = json_array();
    const char *name;
    json_t *h;
    bool dead = false;
    json_object_foreach(hosts, name, h)
    {
        json_array_append(arr, h);
        dead |= !json_is_true(json_object_get(h, "alive"));
    }
    if (c.json) {
        print_json(arr);
    } else {
        printf("%-20s %8s %6s %6s %-6s %s\n", "HOST", "PID", "BUSY", "SLOTS", "ALIVE", "VERSION");
        size_t i;
        json_array_foreach(arr, i, h)
            printf("%-20s %8lld %6lld %6lld %-6s %s\n", json_string_value(json_object_get(h, "host")),
                   json_integer_value(json_object_get(h, "pid")), json_integer_value(json_object_get(h, "busy")),
                   json_integer_value(json_object_get(h, "slots")),
                   json_is_true(json_object_get(h, "alive")) ? "yes" : "no",
                   json_string_value(json_object_get(h, "version")));
    }
    json_decref(arr);
    json_decref(hosts);
    teardown(&c);
    return dead ? EXIT_NO : 0;
}
