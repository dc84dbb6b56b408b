/* cmd_results.c - judgectl's result readers: result (one submission) and
 * events (the results streams of all pools, optionally followed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

/* The result document (jd_result_json: the object judge-api serves). NULL
 * with *found false for an unknown id, with *found true on a Redis error. */
static json_t *load_result(struct common *c, const char *id, bool *found)
{
    struct queue_result r;
    char err[512];
    if (queue_result(&c->conn, id, &r, found, err, sizeof err)) {
        *found = true;
        return NULL;
    }
    if (!*found)
        return NULL;
    json_t *o = jd_result_json(id, &r);
    queue_result_free(&r);
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
                   "--json prints the object GET /v1/submissions/ID serves (judged/api/openapi.yaml's\n"
                   "Submission): {\"id\", \"state\", \"verdict\", \"score\", \"tests\": [...], ...}.\n");
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
    const char **pools = calloc((size_t)np + 1, sizeof *pools);
    char(*last)[64] = calloc((size_t)np + 1, sizeof *last);
    for (int i = 0; i < np; i++) {
        pools[i] = c.cfg.pools[i].name;
        snprintf(last[i], sizeof last[i], "0-0");
    }
    int rc = 0;
    bool more = false;
    for (;;) {
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
            fprintf(stderr, "judgectl events: %s\n", err);
            rc = 1;
            break;
        }
        for (int i = 0; i < n; i++) {
            json_t *o = event_obj(&ev[i]);
            print_json(o);
            json_decref(o);
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

