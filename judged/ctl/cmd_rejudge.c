/* cmd_rejudge.c - judgectl rejudge: find the judged submissions of a
 * problem (optionally by verdict and admission time) in every pool of the
 * configuration and queue each again at the rejudge priority
 * (queue_rejudge: only what claims leave over after contest and normal work
 * takes them) with the problem's current version or --version V. A rejudge
 * is recorded in the store with its submissions (store/rejudge.c);
 * `rejudge status` reads them back (store_rejudge_status). Each result is a new event with rejudge true, the
 * previous verdict and score and the version used. The finding and
 * queueing is store_rejudge (store/rejudge.c), shared with judge-api's
 * POST /v1/rejudges. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl.h"
#include "store.h"

static const char rejudge_usage[] =
    "usage: judgectl rejudge --problem NAME [--version V] [--verdict WA,TLE,...] [--since TIME]\n"
    "                        [--dry-run] [--config FILE] [--json]\n"
    "       judgectl rejudge status [ID] [--config FILE] [--json]\n\n"
    "Queues the judged submissions of problem NAME again, at a priority that never\n"
    "delays contest or normal work, judged with the store's current version of the\n"
    "problem (or V). --verdict keeps those whose verdict is listed, --since those\n"
    "admitted at or after TIME (2026-01-31T12:00:00Z, seconds since the epoch, or a\n"
    "duration ago such as 2h). --dry-run lists them and queues nothing. Each result\n"
    "is a new event with \"rejudge\": true, \"previous_verdict\", \"previous_score\" and\n"
    "\"problem_version\". status shows the progress of the last rejudges (or of ID).\n";

/* TIME -> ms since the epoch; -1 if not understood. */
static long long parse_since(const char *s)
{
    struct tm tm = {0};
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (end && (!*end || !strcmp(end, "Z")))
        return (long long)timegm(&tm) * 1000;
    char *e;
    long long v = strtoll(s, &e, 10);
    if (*s && !*e && v >= 0)
        return v * 1000;
    long ms;
    if (jd_parse_duration(s, &ms) == 0)
        return jd_now_ms() - ms;
    return -1;
}

static int status(struct common *c, const char *only)
{
    char **ids = NULL, err[512];
    size_t count = 1;
    int rc = only ? 0 : store_rejudge_ids(&c->conn, 10, &ids, &count, err, sizeof err);
    if (rc)
        return ctl_queue_fail(c, rc, err);
    json_t *arr = json_array();
    for (size_t i = 0; i < count; i++) {
        const char *rid = only ? only : ids[i];
        struct store_rejudge_status st;
        bool found;
        if ((rc = store_rejudge_status(&c->conn, rid, &st, &found, err, sizeof err))) {
            rc = ctl_queue_fail(c, rc, err);
            break;
        }
        if (!found) {
            rc = ctl_fail(c, "not_found", "no rejudge '%s'", rid);
            break;
        }
        if (c->json)
            json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:I, s:i, s:i, s:i, s:i}", "id", rid, "problem",
                                                 st.problem, "version", st.version, "created",
                                                 (json_int_t)st.created, "total", (int)st.total, "done", (int)st.done,
                                                 "waiting", (int)st.waiting, "changed", (int)st.changed));
        else
            printf("%s %s %ld/%ld done, %ld waiting, %ld verdicts changed\n", rid, st.problem, st.done, st.total,
                   st.waiting, st.changed);
    }
    for (size_t i = 0; ids && i < count; i++)
        free(ids[i]);
    free(ids);
    if (c->json && rc == 0)
        print_json(arr);
    json_decref(arr);
    return rc;
}

/* What store_rejudge did: one line per submission and a summary, or one
 * JSON document. */
static void print_rejudge(struct common *c, const struct store_rejudge_reply *rp, const char *problem,
                          bool dry)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < rp->n; i++) {
        const struct store_rejudge_item *it = &rp->items[i];
        const char *result = dry ? "dry-run" : it->result;
        if (c->json)
            json_array_append_new(arr, json_pack("{s:s, s:s, s:s}", "id", it->id, "verdict", it->verdict, "result",
                                                 result));
        else
            printf("%s %s %s\n", it->id, it->verdict, result);
    }
    if (c->json) {
        json_t *j = json_pack("{s:s?, s:s, s:s?, s:b, s:I, s:I, s:o}", "id", rp->id[0] ? rp->id : NULL, "problem",
                              problem, "version", rp->version[0] ? rp->version : NULL, "dry_run", dry, "matched",
                              (json_int_t)rp->matched, "queued", (json_int_t)rp->queued, "submissions", arr);
        print_json(j);
        json_decref(j);
    } else {
        json_decref(arr);
        if (dry)
            printf("%zu submission%s would be rejudged\n", rp->matched, rp->matched == 1 ? "" : "s");
        else if (rp->matched)
            printf("rejudge %s: %zu of %zu queued with version %s\n", rp->id, rp->queued, rp->matched,
                   rp->version[0] ? rp->version : "(local)");
        else
            printf("no submission matched\n");
    }
}

/* judgectl rejudge status [ID] */
static int cmd_status(struct common *c, int argc, char **argv)
{
    if (argc > 1)
        return ctl_usage(c, "expected 'status [ID]'");
    int rc = setup(c);
    if (rc)
        return rc;
    rc = status(c, argc == 1 ? argv[0] : NULL);
    teardown(c);
    return rc;
}

int cmd_rejudge(int argc, char **argv)
{
    struct common c = {0};
    ctl_begin(&c, "rejudge", argc, argv);
    const char *problem = NULL, *version = NULL, *verdicts = NULL, *since_s = NULL;
    bool dry = false;
    static const struct option opts[] = {
        COMMON_OPTS,
        {"problem", required_argument, NULL, 'p'},
        {"version", required_argument, NULL, 'v'},
        {"verdict", required_argument, NULL, 'V'},
        {"since", required_argument, NULL, 's'},
        {"dry-run", no_argument, NULL, 'n'},
        {NULL, 0, NULL, 0},
    };
    int o;
    while ((o = ctl_getopt(&c, argc, argv, "hp:v:V:s:n", opts)) != -1) {
        switch (o) {
        case 'p': problem = optarg; break;
        case 'v': version = optarg; break;
        case 'V': verdicts = optarg; break;
        case 's': since_s = optarg; break;
        case 'n': dry = true; break;
        case 'h': fputs(rejudge_usage, stdout); return 0;
        default: return c.status;
        }
    }
    if (optind < argc && !strcmp(argv[optind], "status"))
        return cmd_status(&c, argc - optind - 1, argv + optind + 1);
    if (optind != argc)
        return ctl_usage(&c, "unexpected argument '%s'", argv[optind]);
    if (!problem)
        return ctl_usage(&c, "--problem NAME is required");
    long long since = since_s ? parse_since(since_s) : -1;
    if (since_s && since < 0)
        return ctl_usage(&c, "--since: '%s' is not a time (2026-01-31T12:00:00Z, epoch seconds, or 2h)", since_s);
    if (version && !store_valid_version(version) && strcmp(version, "local"))
        return ctl_usage(&c, "--version: '%s' is not a version (64 hex digits)", version);
    int rc = setup(&c);
    if (rc)
        return rc;
    char err[1024];
    const char **pools = calloc((size_t)c.cfg.npools + 1, sizeof *pools);
    for (int i = 0; i < c.cfg.npools; i++)
        pools[i] = c.cfg.pools[i].name;
    struct store_rejudge_args a = {.problem = problem, .version = version, .verdicts = verdicts, .since = since,
                                   .pools = pools, .npools = (size_t)c.cfg.npools, .dry = dry};
    struct store_rejudge_reply rp;
    rc = store_rejudge(&c.conn, &a, &rp, err, sizeof err);
    free(pools);
    if (rc) {
        rc = ctl_fail(&c, rc == STORE_IO ? "unavailable" : "bad_input", "%s", err);
        store_rejudge_free(&rp);
        teardown(&c);
        return rc;
    }
    print_rejudge(&c, &rp, problem, dry);
    store_rejudge_free(&rp);
    teardown(&c);
    return 0;
}
