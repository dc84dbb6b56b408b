/* cmd_results.c - judgectl's result readers: result (one submission) and
 * events (the results streams of all pools, optionally followed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

/* The result document (jd_result_json: the object judge-api serves). NULL
 * when it failed (reported; c->status) or the id is unknown (not reported). */
static json_t *load_result(struct common *c, const char *id, bool *found)
{
    struct queue_result r;
    char err[512];
    enum queue_rc rc = queue_result(&c->conn, id, &r, found, err, sizeof err);
    if (rc) {
        ctl_queue_fail(c, rc, err);
        *found = true;
        return NULL;
    }
    if (!*found)
        return NULL;
    json_t *o = jd_result_json(id, &r);
    queue_result_free(&r);
    return o;
}

static const char result_usage[] =
    "usage: judgectl result ID [--wait [SECONDS]] [--config FILE] [--json]\n\n"
    "Shows a submission's state (queued, running, done) and verdict. --wait waits\n"
    "for it to be done: --wait SECONDS or --wait=SECONDS up to SECONDS (then exit\n"
    "75, timeout), a bare --wait without limit. An unknown ID is exit 66.\n"
    "--json prints the object GET /v1/submissions/ID serves (judged/api/openapi.yaml's\n"
    "Submission): {\"id\", \"state\", \"verdict\", \"score\", \"tests\": [...], \"created\",\n"
    "\"started\", \"finished\" (ISO 8601 UTC, null until then), \"queue_wait_ms\"\n"
    "(admission to the last claim), \"judging_ms\", ...}.\n";

static void print_result(struct common *c, json_t *o)
{
    if (c->json) {
        print_json(o);
        return;
    }
    const char *id = json_string_value(json_object_get(o, "id"));
    const char *state = json_string_value(json_object_get(o, "state"));
    const char *v = json_string_value(json_object_get(o, "verdict"));
    if (!strcmp(state, "done"))
        printf("%s %s %s %g\n", id, state, v ? v : "-", json_number_value(json_object_get(o, "score")));
    else
        printf("%s %s\n", id, state);
}

int cmd_result(int argc, char **argv)
{
    struct common c = {0};
    ctl_begin(&c, "result", argc, argv);
    double wait = 0;
    static const struct option opts[] = {
        COMMON_OPTS,
        {"wait", optional_argument, NULL, 'w'},
        {NULL, 0, NULL, 0},
    };
    int o;
    while ((o = ctl_getopt(&c, argc, argv, "h", opts)) != -1) {
        switch (o) {
        case 'w':
            if (ctl_wait_opt(&c, argc, argv, &wait))
                return c.status;
            break;
        case 'h': fputs(result_usage, stdout); return 0;
        default: return c.status;
        }
    }
    if (optind != argc - 1)
        return ctl_usage(&c, "expected one submission ID");
    const char *id = argv[optind];
    int rc = setup(&c);
    if (rc)
        return rc;
    int64_t deadline = wait < 0 ? INT64_MAX : jd_now_ms() + (int64_t)(wait * 1000);
    for (;;) {
        bool found;
        json_t *r = load_result(&c, id, &found);
        if (!r) {
            /* finished submissions expire: say so rather than "never was" */
            rc = found ? c.status
                       : ctl_fail(&c, "not_found", "no such submission '%s': unknown, or expired (a finished "
                                  "submission is kept for 'retention', %lds here)", id, c.cfg.retention_ms / 1000);
            break;
        }
        const char *state = json_string_value(json_object_get(r, "state"));
        bool done = !strcmp(state, "done");
        if (done || wait == 0) {
            print_result(&c, r);
            json_decref(r);
            rc = 0;
            break;
        }
        if (jd_now_ms() >= deadline) {
            if (!c.json)
                print_result(&c, r);
            rc = ctl_fail(&c, "timeout", "%s is still %s after %gs", id, state, wait);
            json_decref(r);
            break;
        }
        json_decref(r);
        jd_sleep_ms(50);
    }
    teardown(&c);
    return rc;
}

/* ---------------------------------------------------------------- events */

static json_t *event_obj(const struct queue_event *e)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:f, s:s, s:I}", "event", e->event, "id", e->id, "verdict",
                          e->verdict, "score", e->score, "pool", e->pool, "time", (json_int_t)e->time);
    json_object_set_new(o, "problem_version",
                        e->problem_version[0] ? json_string(e->problem_version) : json_null());
    if (e->rejudge) {
        json_object_set_new(o, "rejudge", json_true());
        json_object_set_new(o, "rejudge_id", json_string(e->rejudge_id));
        json_object_set_new(o, "previous_verdict", json_string(e->previous_verdict));
        json_object_set_new(o, "previous_score", json_real(e->previous_score));
    }
    return o;
}

static const char events_usage[] =
    "usage: judgectl events [--since EVENT] [--follow] [--config FILE] [--json]\n\n"
    "Prints the results streams of all pools as JSON lines, oldest first, each\n"
    "{\"event\", \"id\", \"verdict\", \"score\", \"pool\", \"time\", \"problem_version\"}\n"
    "(+ \"rejudge\", \"rejudge_id\", \"previous_verdict\", \"previous_score\" for a\n"
    "rejudge). Without options: every event kept, then exit. --since EVENT: only\n"
    "those after EVENT (an \"event\" value, e.g. the last one a consumer saw, or a\n"
    "time in ms since the epoch). --follow: only events published from now on\n"
    "(nothing is replayed), until killed; with --since, those after EVENT first.\n";

/* EVENT: MS or MS-SEQ (a stream entry id) */
static bool valid_event_id(const char *s)
{
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n > 20)
        return false;
    if (!s[n])
        return true;
    return s[n] == '-' && strspn(s + n + 1, "0123456789") == strlen(s + n + 1) && s[n + 1];
}

/* The id of the newest event of each pool ("0-0" for an empty stream): a
 * cursor from which only new events are read. */
static int newest_events(struct common *c, char (*last)[64])
{
    for (int i = 0; i < c->cfg.npools; i++) {
        char err[512];
        enum queue_rc rc = queue_events_tail(&c->conn, c->cfg.pools[i].name, last[i], err, sizeof err);
        if (rc)
            return ctl_queue_fail(c, rc, err);
    }
    return 0;
}

int cmd_events(int argc, char **argv)
{
    struct common c = {0};
    ctl_begin(&c, "events", argc, argv);
    bool follow = false;
    const char *since = NULL;
    static const struct option opts[] = {
        COMMON_OPTS,
        {"follow", no_argument, NULL, 'f'},
        {"since", required_argument, NULL, 's'},
        {NULL, 0, NULL, 0},
    };
    int o;
    while ((o = ctl_getopt(&c, argc, argv, "hfs:", opts)) != -1) {
        switch (o) {
        case 'f': follow = true; break;
        case 's': since = optarg; break;
        case 'h': fputs(events_usage, stdout); return 0;
        default: return c.status;
        }
    }
    if (optind != argc)
        return ctl_usage(&c, "unexpected argument '%s'", argv[optind]);
    if (since && !valid_event_id(since))
        return ctl_usage(&c, "--since: '%s' is not an event id (MS or MS-SEQ)", since);
    int rc = setup(&c);
    if (rc)
        return rc;
    int np = c.cfg.npools;
    const char **pools = calloc((size_t)np + 1, sizeof *pools);
    char(*last)[64] = calloc((size_t)np + 1, sizeof *last);
    for (int i = 0; i < np; i++) {
        pools[i] = c.cfg.pools[i].name;
        snprintf(last[i], sizeof last[i], "%s", since ? since : "0-0");
    }
    if (follow && !since)
        rc = newest_events(&c, last);
    bool more = false;
    while (rc == 0) {
        struct queue_event *ev;
        int n;
        char err[512];
        /* follow: block until any pool has something new; a Redis that went
         * away is waited for */
        enum queue_rc qrc = queue_events(&c.conn, pools, np, last, 1000, follow && !more ? 1000 : 0,
                                         &ev, &n, &more, err, sizeof err);
        if (qrc == QUEUE_IO && follow) {
            queue_conn_backoff(&c.conn);
            continue;
        }
        if (qrc) {
            rc = ctl_queue_fail(&c, qrc, err);
            break;
        }
        for (int i = 0; i < n; i++) {
            json_t *e = event_obj(&ev[i]);
            print_json(e);
            json_decref(e);
        }
        free(ev);
        fflush(stdout);
        if (!follow && !more)
            break;
    }
    free(pools);
    free(last);
    teardown(&c);
    return rc;
}
