/*
 * rejudge.c - POST /v1/rejudges: judgectl rejudge over HTTP, through the
 * same library function (store_rejudge). Role setter (admin has it too): a
 * setter who fixed a package's tests is the one who rejudges its
 * submissions; the work runs at the rejudge priority, which never delays
 * contest or normal work, so the role needs no more trust than an upload.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "store.h"

/* "WA,TLE" from a string or an array of strings; -1 if neither. */
static int verdict_list(json_t *v, char *out, size_t len)
{
    out[0] = 0;
    if (!v || json_is_null(v))
        return 0;
    if (json_is_string(v)) {
        snprintf(out, len, "%s", json_string_value(v));
        return 0;
    }
    if (!json_is_array(v))
        return -1;
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
        if (!json_is_string(e) || strlen(out) + strlen(json_string_value(e)) + 2 > len)
            return -1;
        if (i)
            strcat(out, ",");
        strcat(out, json_string_value(e));
    }
    return 0;
}

/* Each submission's problem and verdict only for a token that may read
 * submissions: a setter rejudges, it does not read contestants' verdicts
 * (a dry run of any ids showed them). */
static json_t *reply_json(const struct store_rejudge_args *a, const struct store_rejudge_reply *rp, bool reader)
{
    json_t *subs = json_array();
    for (size_t i = 0; i < rp->n; i++) {
        const struct store_rejudge_item *it = &rp->items[i];
        json_array_append_new(subs, json_pack("{s:s, s:s?, s:s?, s:s}", "id", it->id, "problem",
                                              reader && it->problem[0] ? it->problem : NULL, "verdict",
                                              reader && it->verdict[0] ? it->verdict : NULL, "result",
                                              a->dry && !strcmp(it->result, "matched") ? "dry-run" : it->result));
    }
    return json_pack("{s:s?, s:s?, s:s?, s:b, s:I, s:I, s:o}", "id", rp->id[0] ? rp->id : NULL, "problem",
                     a->problem, "version", rp->version[0] ? rp->version : NULL, "dry_run", a->dry, "matched",
                     (json_int_t)rp->matched, "queued", (json_int_t)rp->queued, "submissions", subs);
}

/* The request's fields into a; 0, or a 400 was queued into *ret. */
static int parse(struct req *r, json_t *body, struct store_rejudge_args *a, char *verdicts, size_t vlen,
                 const char **ids, enum MHD_Result *ret)
{
    json_t *p = json_object_get(body, "problem"), *v = json_object_get(body, "version");
    json_t *s = json_object_get(body, "since"), *d = json_object_get(body, "dry_run");
    json_t *subs = json_object_get(body, "submissions");
    static const char *known[] = {"problem", "submissions", "version", "verdicts", "since", "dry_run"};
    const char *key;
    json_t *value;
    json_object_foreach(body, key, value) {
        size_t i = 0;
        while (i < sizeof known / sizeof *known && strcmp(key, known[i]))
            i++;
        if (i == sizeof known / sizeof *known) {   /* a misspelt filter would widen the rejudge */
            *ret = api_error(r, 400, key, "unknown field '%.200s' (expected problem, submissions, version, "
                                          "verdicts, since, dry_run)", key);
            return -1;
        }
    }
    const char *bad = NULL, *why = NULL;
    if (p && !json_is_null(p) && (!json_is_string(p) || !queue_valid_name(json_string_value(p))))
        bad = "problem", why = "a problem name";
    else if (v && !json_is_null(v) && (!json_is_string(v) || (!store_valid_version(json_string_value(v)) &&
                                                              strcmp(json_string_value(v), "local"))))
        bad = "version", why = "a version (64 hex digits) or \"local\"";
    else if (verdict_list(json_object_get(body, "verdicts"), verdicts, vlen))
        bad = "verdicts", why = "a list of verdicts such as [\"WA\", \"TLE\"]";
    else if (s && !json_is_null(s) && (!json_is_integer(s) || json_integer_value(s) < 0))
        bad = "since", why = "a time in ms since the epoch";
    else if (d && !json_is_boolean(d))
        bad = "dry_run", why = "true or false";
    else if (subs && (!json_is_array(subs) || json_array_size(subs) > 10000))
        bad = "submissions", why = "a list of at most 10000 submission ids";
    else if (!json_is_string(p) && !json_array_size(subs))
        bad = "problem", why = "given (or a list of submissions)";
    for (size_t i = 0; !bad && i < json_array_size(subs); i++)
        if (!json_is_string(json_array_get(subs, i)))
            bad = "submissions", why = "a list of submission ids (strings)";
    if (bad) {
        *ret = api_error(r, 400, bad, "%s must be %s", bad, why);
        return -1;
    }
    a->problem = json_is_string(p) ? json_string_value(p) : NULL;
    a->version = json_is_string(v) ? json_string_value(v) : NULL;
    a->verdicts = verdicts[0] ? verdicts : NULL;
    a->since = json_is_integer(s) ? (long long)json_integer_value(s) : -1;
    a->dry = json_is_true(d);
    a->nids = json_array_size(subs);
    for (size_t i = 0; i < a->nids; i++)
        ids[i] = json_string_value(json_array_get(subs, i));
    a->ids = ids;
    return 0;
}

enum MHD_Result api_rejudge(struct req *r)
{
    json_error_t je;
    json_t *body = r->len ? json_loadb(r->body, r->len, 0, &je) : NULL;
    if (!json_is_object(body)) {
        json_decref(body);
        return api_error(r, 400, "body", "the body must be a JSON object {problem?, submissions?, version?, "
                                         "verdicts?, since?, dry_run?}");
    }
    char verdicts[512];
    const char **ids = calloc(json_array_size(json_object_get(body, "submissions")) + 1, sizeof *ids);
    const char **pools = calloc((size_t)r->cfg->npools + 1, sizeof *pools);
    for (int i = 0; i < r->cfg->npools; i++)
        pools[i] = r->cfg->pools[i].name;
    struct store_rejudge_args a = {.pools = pools, .npools = (size_t)r->cfg->npools};
    enum MHD_Result ret;
    if (parse(r, body, &a, verdicts, sizeof verdicts, ids, &ret) == 0) {
        struct queue_conn *k = api_conn_get(r->api);
        struct store_rejudge_reply rp;
        char err[1024];
        int rc = store_rejudge(k, &a, &rp, err, sizeof err);
        api_conn_put(r->api, k);
        if (rc == STORE_IO)
            ret = api_error_retry(r, 503, 1, "%s", err);
        else if (rc)
            ret = api_error(r, 400, "version", "%s", err);
        else if (rp.id[0])
            ret = api_json(r, 202, reply_json(&a, &rp, api_has_role(r, ROLES_READ_ALL)));
        else
            ret = api_json(r, 200, reply_json(&a, &rp, api_has_role(r, ROLES_READ_ALL)));
        store_rejudge_free(&rp);
    }
    free(ids);
    free(pools);
    json_decref(body);
    return ret;
}
