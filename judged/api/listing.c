/* listing.c - GET /v1/submissions: finished submissions, newest first.
 *
 * What is listed is what the pools' results streams still hold (one entry
 * per verdict, results_max of them per pool): every pool's stream is read
 * backwards a page at a time (XREVRANGE), the pages merged by entry id
 * (ids are one clock on one Redis, so one order across pools), each entry
 * given its submission's problem, owner and metadata (one pipelined HMGET
 * per page) and filtered. A page of the answer ends after `limit` matches
 * or LIST_SCAN entries read, whichever comes first; `next` is then the
 * last entry id read, the cursor the next request passes to go on further
 * back (null: nothing older). Reading is what costs Redis (a page is an
 * XREVRANGE and 100 HMGETs): a filter that matched nothing read 5,000
 * entries per request (issue 40), so a submit token at its rate kept a
 * Redis core busy. LIST_SCAN is now 500, and every page after each pool's
 * first counts as one more request against the token's rate (api_charge):
 * past it the answer ends early with its `next`, to be followed later. The answer's items are the verdict events of
 * GET /v1/events, so a platform that lost its event stream can page back
 * to where it was. Waiting and running submissions are not listed: they
 * have no entry yet (GET /v1/submissions/ID reads one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

#define LIST_PAGE 100     /* entries per XREVRANGE */
#define LIST_LIMIT 100    /* matches per answer at most (limit=) */
#define LIST_SCAN 500     /* entries read per request at most: a rare filter pages */

struct filter {
    const char *problem, *owner, *verdict, *pool;
    long long since;      /* ms since the epoch; -1: none */
};

/* One pool's stream, read back a page at a time. */
struct reader {
    const char *pool;
    struct queue_event *ev;
    struct queue_event_about *about;
    int n, at;
    char before[64];      /* read entries older than this one next */
    bool done;            /* nothing older (or older than since) */
};

static bool wanted(const struct filter *f, const struct queue_event *e, const struct queue_event_about *a)
{
    return (!f->problem || !strcmp(f->problem, a->problem)) && (!f->owner || !strcmp(f->owner, a->owner)) &&
           (!f->verdict || !strcmp(f->verdict, e->verdict));
}

static void reader_drop_page(struct reader *rd)
{
    queue_events_about_free(rd->about, rd->n);
    free(rd->about);
    free(rd->ev);
    rd->ev = NULL;
    rd->about = NULL;
    rd->n = rd->at = 0;
}

static bool reader_needs_page(const struct reader *rd)
{
    return !rd->done && rd->at >= rd->n;
}

/* The reader's next page when its current one is used up; -1 on I/O. */
static int reader_fill(struct queue_conn *k, struct reader *rd, char *err, size_t errlen)
{
    if (!reader_needs_page(rd))
        return 0;
    reader_drop_page(rd);
    if (queue_events_back(k, rd->pool, rd->before, LIST_PAGE, &rd->ev, &rd->n, err, errlen))
        return -1;
    rd->about = calloc((size_t)rd->n + 1, sizeof *rd->about);
    if (queue_events_about(k, rd->ev, rd->n, rd->about, err, errlen))
        return -1;
    rd->done = rd->n == 0;
    return 0;
}

/* The reader whose next entry is the newest, or NULL when all are done. */
static struct reader *newest(struct reader *rd, int n)
{
    struct reader *best = NULL;
    struct api_entry_id bid = {0, 0}, id;
    for (int i = 0; i < n; i++)
        if (!rd[i].done && rd[i].at < rd[i].n && api_entry_id_parse(rd[i].ev[rd[i].at].event, &id) &&
            (!best || api_entry_id_cmp(id, bid) > 0))
            best = &rd[i], bid = id;
    return best;
}

/* The filters and the page size from the query; 0, or -1 with a 400 (or
 * 403) queued into *ret. */
static int parse_query(struct req *r, struct filter *f, long *limit, const char **cursor, enum MHD_Result *ret)
{
    const char *since = api_arg(r, "since"), *lim = api_arg(r, "limit");
    struct api_entry_id id;
    char *end;
    *f = (struct filter){api_arg(r, "problem"), api_arg(r, "owner"), api_arg(r, "verdict"), api_arg(r, "pool"), -1};
    *cursor = api_arg(r, "cursor");
    *limit = lim ? strtol(lim, &end, 10) : 50;
    if (lim && (!*lim || *end || *limit < 1 || *limit > LIST_LIMIT))
        *ret = api_error(r, 400, "limit", "limit must be 1 to %d", LIST_LIMIT);
    else if (since && ((f->since = strtoll(since, &end, 10)) < 0 || !*since || *end))
        *ret = api_error(r, 400, "since", "since must be a time in ms since the epoch");
    else if (*cursor && !api_entry_id_parse(*cursor, &id))
        *ret = api_error(r, 400, "cursor", "cursor must be the `next` of an earlier answer");
    else if (f->pool && !jd_pool_by_name(r->cfg, f->pool))
        *ret = api_error(r, 400, "pool", "no pool '%.100s'", f->pool);
    else if (!api_has_role(r, ROLES_READ_ALL) && f->owner && strcmp(f->owner, r->tok_name))
        *ret = api_error(r, 403, "owner", "token '%s' lists only its own submissions (the role read lists all)",
                         r->tok_name);
    else
        return 0;
    return -1;
}

enum MHD_Result api_submissions_list(struct req *r)
{
    struct filter f;
    long limit;
    const char *cursor;
    enum MHD_Result ret;
    if (parse_query(r, &f, &limit, &cursor, &ret))
        return ret;
    if (!api_has_role(r, ROLES_READ_ALL))
        f.owner = r->tok_name;   /* a submit token: its own */
    const struct jd_config *cfg = r->cfg;
    struct reader *rd = calloc((size_t)cfg->npools + 1, sizeof *rd);
    int nr = 0;
    for (int i = 0; i < cfg->npools; i++)
        if (!f.pool || !strcmp(f.pool, cfg->pools[i].name)) {
            rd[nr].pool = cfg->pools[i].name;
            snprintf(rd[nr++].before, sizeof rd->before, "%s", cursor ? cursor : "");
        }
    json_t *list = json_array();
    char err[512], last[64] = "";
    int scanned = 0, failed = 0, pages = 0;
    bool charged_out = false;
    struct queue_conn *k = api_conn_get(r->api);
    while ((long)json_array_size(list) < limit && scanned < LIST_SCAN && !charged_out) {
        for (int i = 0; i < nr && !failed && !charged_out; i++) {
            if (!reader_needs_page(&rd[i]))
                continue;
            /* each pool's first page is the request's; later ones count */
            if (pages++ >= nr && api_charge(r) > 0) {
                charged_out = true;
                break;
            }
            failed = reader_fill(k, &rd[i], err, sizeof err);
        }
        struct reader *best = failed || charged_out ? NULL : newest(rd, nr);
        if (!best)
            break;
        const struct queue_event *e = &best->ev[best->at];
        const struct queue_event_about *a = &best->about[best->at++];
        snprintf(best->before, sizeof best->before, "%s", e->event);
        snprintf(last, sizeof last, "%s", e->event);
        scanned++;
        if (f.since >= 0 && e->time < f.since) {
            best->done = true;   /* the rest of this stream is older still */
            continue;
        }
        if (wanted(&f, e, a))
            json_array_append_new(list, api_event_json(e, a));
    }
    api_conn_put(r->api, k);
    bool more = false;
    for (int i = 0; i < nr; i++) {
        more |= !rd[i].done;
        reader_drop_page(&rd[i]);
    }
    free(rd);
    if (failed) {
        json_decref(list);
        return api_error_retry(r, 503, 1, "the queue is unavailable: %s", err);
    }
    return api_json(r, 200, json_pack("{s:o, s:o}", "submissions", list, "next",
                                      more && last[0] ? json_string(last) : json_null()));
}
