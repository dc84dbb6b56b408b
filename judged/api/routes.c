/*
 * routes.c - judge-api's route table: every endpoint once, as (methods,
 * pattern, role, handler), in the manner of nginx's static tables; the
 * matcher that binds a pattern's {parameters}; and dispatch, which checks
 * the method and the role in one place for all routes.
 *
 * Matching
 * --------
 * A pattern is its fixed part (up to its first '{') and then segments. A
 * path matches when it begins with the fixed part, character for character
 * (after libmicrohttpd's percent-decoding; slashes inside the fixed part are
 * not collapsed: "/v1//pools" is no route), and its remaining segments,
 * split at '/' with empty ones dropped (so "//" and a trailing '/' count as
 * nothing), match the pattern's one for one: a literal the same, a {name}
 * any segment. A pattern without parameters matches its path exactly, with
 * trailing slashes only where flagged ROUTE_SLASHES (/v1/submissions and
 * /v1/problems took them before the table, /v1/events and the others did
 * not: kept as it was). {rest*} is the rest of the path as it is, slashes
 * and all (the dashboard's files: api_static takes only a flat name). The
 * first route in the table that matches wins.
 *
 * Parameters are not validated here: each handler validates its own
 * (queue_valid_name, queue_id_pool, store_valid_version, ...) and answers
 * 400 or 404 in its own words, as before the table.
 *
 * Dispatch, in order; every step is the answer the router gave before the
 * table (tests/judged/test_api.c pins them):
 *  1. a public route for the method: its handler. A public route never
 *     answers 405: another method goes on as if no route matched.
 *  2. a path outside every token route's first segment ("/v1/", "/metrics"):
 *     404 before the token, so that a scanner costs no token lookup.
 *  3. the bearer token: 401 or 429 (server.c), unless an upload's was
 *     checked before its body.
 *  4. administration (the routes for admin, or admin and viewer) is a
 *     closed area: a path equal to such a route's pattern or beginning with
 *     its fixed part answers a token with none of its roles 403 before 404
 *     or 405, so that it learns no path or method of it; where areas
 *     overlap, one whose route admits the token lets it on (a viewer reads
 *     /v1/pools/{name}/history and hears step 6's 403 on the pool actions). /v1/webhooks/dlq's area is every path
 *     beginning with those characters, "/v1/webhooks/dlqX" too
 *     (ROUTE_AREA_PREFIX: the old router's strncmp, kept).
 *  5. no pattern matches: 404; one does, but not for the method: 405 (no
 *     Allow header, as before).
 *  6. the route's role: 403 naming the roles and what they are for; then
 *     its handler, or 404 for the shapes that have none.
 *
 * An upload (a ROUTE_UPLOAD route's method, a path beginning with its fixed
 * part) is told apart when its headers arrive (api_route_upload), so that
 * its token and role are checked before a root process buffers up to
 * max_package bytes of an anonymous body.
 *
 * One difference from the old router: it copied the rest of a path into 512
 * bytes and so routed a path longer than that on its cut beginning; the
 * table routes the whole path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"

/* -------------------------------------------------- small handlers */

static enum MHD_Result healthz(struct req *r)
{
    return api_json(r, 200, json_pack("{s:s}", "status", "ok"));
}

static enum MHD_Result readyz(struct req *r)
{
    struct queue_conn *k = api_conn_get(r->api);
    char perr[300];
    bool ok = queue_ping(k, perr, sizeof perr) == QUEUE_OK;
    char why[300];
    snprintf(why, sizeof why, "%s", k->err);
    api_conn_put(r->api, k);
    /* the reason goes to the log: an anonymous answer names no host, port,
     * database or user of Redis */
    if (!ok) {
        fprintf(stderr, "judge-api: /readyz: redis: %s\n", why[0] ? why : "no answer to PING");
        return api_json(r, 503, json_pack("{s:s, s:s}", "status", "unavailable", "error",
                                          "the queue (Redis) does not answer; judge-api's log says why"));
    }
    /* work that nothing judges is not ready either: no live host serves a
     * pool with submissions waiting (the pool's name to the log only) */
    char pool[64];
    if (api_pools_unserved(r->api, r->cfg, pool, sizeof pool)) {
        fprintf(stderr, "judge-api: /readyz: pool %s has submissions waiting and no live judge host\n", pool);
        return api_json(r, 503, json_pack("{s:s, s:s}", "status", "unavailable", "error",
                                          "a pool has submissions waiting and no live judge host; "
                                          "judge-api's log says which"));
    }
    return api_json(r, 200, json_pack("{s:s}", "status", "ready"));
}

/* The token's name and roles: what the dashboard may offer (pool buttons
 * and dead-letter actions for admin only). */
static enum MHD_Result whoami(struct req *r)
{
    json_t *roles = json_array();
    for (unsigned b = 0; b < 5; b++)
        if (r->roles & (1u << b))
            json_array_append_new(roles, json_string(API_ROLE_NAMES[b]));
    return api_json(r, 200, json_pack("{s:s, s:o}", "name", r->tok_name, "roles", roles));
}

static enum MHD_Result openapi(struct req *r)
{
    return api_text(r, 200, "application/yaml", r->api->openapi, r->api->openapi_len);
}

/* The handlers that take parameters, by the route's {...} values. */
static enum MHD_Result dashboard(struct req *r)
{
    return api_static(r, "index.html");
}

static enum MHD_Result dashboard_file(struct req *r)
{
    return api_static(r, r->param[0]);
}

static enum MHD_Result get_submission(struct req *r)
{
    return api_get_submission(r, r->param[0]);
}

static enum MHD_Result submission_events(struct req *r)
{
    return api_submission_events(r, r->param[0]);
}

static enum MHD_Result problem_get(struct req *r)
{
    return api_problem_get(r, r->param[0], false);
}

static enum MHD_Result problem_versions(struct req *r)
{
    return api_problem_get(r, r->param[0], true);
}

static enum MHD_Result problem_verify(struct req *r)
{
    return api_problem_verify(r, r->param[0]);
}

static enum MHD_Result problem_verify_get(struct req *r)
{
    return api_problem_verify_get(r, r->param[0], r->param[1]);
}

static enum MHD_Result problem_verify_cancel(struct req *r)
{
    return api_problem_verify_cancel(r, r->param[0], r->param[1]);
}

static enum MHD_Result problem_put(struct req *r)
{
    return api_problem_put(r, r->param[0]);
}

static enum MHD_Result problem_delete(struct req *r)
{
    return api_problem_delete(r, r->param[0]);
}

static enum MHD_Result upload_get(struct req *r)
{
    return api_upload_get(r, r->param[0]);
}

static enum MHD_Result pool_action(struct req *r)
{
    return api_pool_action(r, r->param[0], r->param[1]);
}

static enum MHD_Result pool_history(struct req *r)
{
    return api_pool_history(r, r->param[0]);
}

static enum MHD_Result dlq_action(struct req *r)
{
    return api_dlq_action(r, r->param[0], r->param[1]);
}

static enum MHD_Result webhook_replay(struct req *r)
{
    return api_webhook_replay(r, r->param[0]);
}

/* ------------------------------------------------------------ the table */

/* a viewer reads what read reads, and what the admin's dashboard shows */
#define SUBMIT_OR_READ (ROLE_SUBMIT | ROLES_READ_ALL)
#define SETTER_OR_READ (ROLE_SETTER | ROLES_READ_ALL)
#define ADMIN ROLE_ADMIN
#define ADMIN_OR_VIEWER (ROLE_ADMIN | ROLE_VIEWER)

/* Every endpoint of openapi.yaml once (test_routes.c checks both ways). */
static const struct api_route routes[] = {
    /* public: no token */
    {API_GET | API_HEAD, "/healthz", ROUTE_PUBLIC, NULL, healthz, 0, NULL},
    {API_GET | API_HEAD, "/readyz", ROUTE_PUBLIC, NULL, readyz, 0, NULL},
    {API_GET | API_HEAD, "/v1/openapi.yaml", ROUTE_PUBLIC, NULL, openapi, 0, NULL},
    {API_GET | API_HEAD, "/", ROUTE_PUBLIC, NULL, dashboard, ROUTE_ANY_QUERY, NULL},
    {API_GET | API_HEAD, "/static/{file*}", ROUTE_PUBLIC, NULL, dashboard_file, ROUTE_ANY_QUERY, NULL},
    /* admission and results; a submitter reads only its own (handlers.c) */
    {API_POST, "/v1/submissions", ROLE_SUBMIT, "submitting", api_submit, ROUTE_SLASHES, NULL},
    {API_GET, "/v1/submissions", SUBMIT_OR_READ, "reading submissions", api_submissions_list, ROUTE_SLASHES,
     "problem owner verdict pool since limit cursor"},
    {API_POST, "/v1/submissions/batch", ROLE_SUBMIT, "submitting", api_submit_batch, ROUTE_BATCH, NULL},
    {API_GET, "/v1/submissions/{id}", SUBMIT_OR_READ, "reading submissions", get_submission, 0, "wait"},
    {API_GET, "/v1/submissions/{id}/events", SUBMIT_OR_READ, "reading submissions", submission_events, 0, NULL},
    /* no resources, but their method and role were checked before the 404
     * (the old router took any path of up to three segments here as its own) */
    {API_GET, "/v1/submissions/{id}/{x}", SUBMIT_OR_READ, "reading submissions", NULL, 0, NULL},
    {API_GET, "/v1/submissions/{id}/{x}/{y}", SUBMIT_OR_READ, "reading submissions", NULL, 0, NULL},
    {API_GET, "/v1/events", SUBMIT_OR_READ, "events", api_events, 0, "since mine"},
    /* the problem store: reading it is no more than reading results */
    /* what a submission may name: for every token that may submit or read */
    {API_GET, "/v1/problems", ROUTE_ANY_TOKEN, "listing problems", api_problems_list, ROUTE_SLASHES, NULL},
    {API_GET, "/v1/problems/{name}", SETTER_OR_READ, "reading the problem store", problem_get, 0, NULL},
    {API_PUT, "/v1/problems/{name}", ROLE_SETTER, "uploading problems", problem_put, ROUTE_UPLOAD | ROUTE_OWN_THREAD, NULL},
    {API_DELETE, "/v1/problems/{name}", ROLE_SETTER, "removing versions", problem_delete, 0, "version"},
    {API_GET, "/v1/problems/{name}/versions", SETTER_OR_READ, "reading the problem store", problem_versions, 0, NULL},
    {API_POST, "/v1/problems/{name}/verify", ROLE_SETTER, "verifying problems", problem_verify, ROUTE_OWN_THREAD,
     NULL},
    {API_GET, "/v1/problems/{name}/verify/{id}", ROLE_SETTER, "verifying problems", problem_verify_get, 0, NULL},
    {API_DELETE, "/v1/problems/{name}/verify/{id}", ROLE_SETTER, "verifying problems", problem_verify_cancel, 0,
     NULL},
    {API_GET, "/v1/uploads/{id}", ROLE_SETTER, "uploads", upload_get, 0, NULL},
    {API_POST, "/v1/rejudges", ROLE_SETTER, "rejudges", api_rejudge, ROUTE_OWN_THREAD, NULL},
    {API_GET, "/v1/languages", ROUTE_ANY_TOKEN, "languages", api_languages, 0, NULL},
    {API_GET, "/v1/whoami", ROUTE_ANY_TOKEN, "whoami", whoami, 0, NULL},
    /* administration: a viewer reads it, only an admin changes it */
    {API_GET, "/v1/pools", ADMIN_OR_VIEWER, "administration", api_pools, 0, NULL},
    {API_POST, "/v1/pools/{name}/{action}", ADMIN, "administration", pool_action, 0, NULL},
    {API_GET, "/v1/pools/{name}/history", ADMIN_OR_VIEWER, "administration", pool_history, 0, "since"},
    {API_GET, "/v1/hosts", ADMIN_OR_VIEWER, "administration", api_hosts, 0, NULL},
    {API_GET, "/v1/dlq", ADMIN_OR_VIEWER, "administration", api_dlq, 0, NULL},
    {API_POST, "/v1/dlq/{dlq_id}/{action}", ADMIN, "administration", dlq_action, 0, NULL},
    {API_GET, "/v1/webhooks/dlq", ADMIN_OR_VIEWER, "administration", api_webhook_dlq, ROUTE_AREA_PREFIX, NULL},
    {API_POST, "/v1/webhooks/dlq/{dlq_id}/replay", ADMIN, "administration", webhook_replay, 0, NULL},
    /* the cluster's queues, hosts and verdict counts are not for anyone who
     * reaches the front door: a read or viewer token (Prometheus:
     * authorization.credentials_file) */
    {API_GET | API_HEAD, "/metrics", ROLES_READ_ALL, "metrics", api_metrics, 0, NULL},
};
#define NROUTES (sizeof routes / sizeof *routes)

const struct api_route *api_routes(size_t *n)
{
    *n = NROUTES;
    return routes;
}

/* ------------------------------------------------------------- matching */

/* Where the {...} values of a matched path are: offsets into it. */
struct binding {
    size_t off[API_MAX_PARAMS], len[API_MAX_PARAMS];
    int n;
};

static unsigned method_bit(const char *m)
{
    static const struct {
        const char *name;
        unsigned bit;
    } methods[] = {{"GET", API_GET}, {"HEAD", API_HEAD}, {"POST", API_POST}, {"PUT", API_PUT},
                   {"DELETE", API_DELETE}};
    for (size_t i = 0; i < sizeof methods / sizeof *methods; i++)
        if (!strcmp(m, methods[i].name))
            return methods[i].bit;
    return 0;   /* PATCH, OPTIONS, ...: no route takes it */
}

static size_t fixed_len(const char *pattern)
{
    return strcspn(pattern, "{");
}

/* The next segment at *s, empty ones skipped; false at the end. */
static bool next_segment(const char **s, const char **seg, size_t *len)
{
    *s += strspn(*s, "/");
    if (!**s)
        return false;
    *seg = *s;
    *len = strcspn(*s, "/");
    *s += *len;
    return true;
}

/* Does path match rt's pattern? Binds its {...} values into b. */
static bool match(const struct api_route *rt, const char *path, struct binding *b)
{
    size_t fixed = fixed_len(rt->pattern), pl, vl;
    b->n = 0;
    if (strncmp(path, rt->pattern, fixed))
        return false;   /* before s is set: a shorter path has no byte at fixed */
    const char *s = path + fixed, *p = rt->pattern + fixed, *ps, *vs;
    if (!*p)
        return !s[(rt->flags & ROUTE_SLASHES) ? strspn(s, "/") : 0];
    if (p[strcspn(p, "}") - 1] == '*') {   /* {rest*}: the rest as it is */
        b->off[0] = fixed;
        b->len[0] = strlen(s);
        b->n = 1;
        return true;
    }
    while (next_segment(&p, &ps, &pl)) {
        if (!next_segment(&s, &vs, &vl))
            return false;
        if (*ps == '{' && b->n < API_MAX_PARAMS) {
            b->off[b->n] = (size_t)(vs - path);
            b->len[b->n++] = vl;
        } else if (pl != vl || memcmp(ps, vs, vl)) {
            return false;
        }
    }
    return !next_segment(&s, &vs, &vl);
}

/* The first public (or token) route matching url for the method; *known:
 * some route of that kind matches url, for some method. */
static const struct api_route *find(unsigned method, const char *url, bool public, struct binding *b,
                                    bool *known)
{
    *known = false;
    for (size_t i = 0; i < NROUTES; i++) {
        const struct api_route *rt = &routes[i];
        if ((rt->roles == ROUTE_PUBLIC) != public || !match(rt, url, b))
            continue;
        *known = true;
        if (rt->methods & method)
            return rt;
    }
    return NULL;
}

const struct api_route *api_route_find(const char *method, const char *url)
{
    struct binding b;
    bool known;
    const struct api_route *rt = find(method_bit(method), url, true, &b, &known);
    return rt ? rt : find(method_bit(method), url, false, &b, &known);
}

const struct api_route *api_route_upload(const char *method, const char *url)
{
    for (size_t i = 0; i < NROUTES; i++)
        if ((routes[i].flags & ROUTE_UPLOAD) && (routes[i].methods & method_bit(method)) &&
            !strncmp(url, routes[i].pattern, fixed_len(routes[i].pattern)))
            return &routes[i];
    return NULL;
}

/* Is url under a token route's first segment ("/v1/...") or one of one
 * segment ("/metrics")? Else it is answered 404 before the token. */
static bool behind_token(const char *url)
{
    for (size_t i = 0; i < NROUTES; i++) {
        const char *p = routes[i].pattern;
        size_t first = 1 + strcspn(p + 1, "/");
        if (routes[i].roles != ROUTE_PUBLIC && (p[first] ? !strncmp(url, p, first + 1) : !strcmp(url, p)))
            return true;
    }
    return false;
}

/* Is url in the area of rt, an administration route (see the top)? */
static bool in_area(const struct api_route *rt, const char *url)
{
    const char *p = rt->pattern;
    size_t fixed = fixed_len(p);
    return (rt->flags & ROUTE_AREA_PREFIX) ? !strncmp(url, p, strlen(p))
           : p[fixed]                      ? !strncmp(url, p, fixed)
                                           : !strcmp(url, p);
}

/* The administration route (admin, or admin and viewer) whose area url is
 * in and none of whose roles r has, or NULL. Areas overlap ("/v1/pools/"
 * is both the pool actions' and the history's): one that admits r lets it
 * on to the route's own role check, so that a viewer reads a pool's
 * history and hears 403 for the admin's actions, as an admin's read. */
static const struct api_route *admin_area(const struct req *r)
{
    const struct api_route *closed = NULL;
    for (size_t i = 0; i < NROUTES; i++) {
        const struct api_route *rt = &routes[i];
        if (!rt->roles || (rt->roles & ~ADMIN_OR_VIEWER) || !in_area(rt, r->url))
            continue;
        if (api_has_role(r, rt->roles))
            return NULL;
        if (!closed)
            closed = rt;
    }
    return closed;
}

/* ------------------------------------------------------------- dispatch */

static enum MHD_Result not_found(struct req *r)
{
    return api_error(r, 404, NULL, "no such resource %s", r->url);
}

enum MHD_Result api_forbidden(struct req *r, const struct api_route *rt)
{
    char roles[80] = "";
    size_t n = 0;
    /* submit, setter, read, admin as before the viewer; "a, b or c" */
    static const unsigned order[] = {0, 2, 1, 3, 4};
    int left = 0;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        left += (rt->roles >> order[i]) & 1;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if ((rt->roles & (1u << order[i])) && n < sizeof roles) {
            left--;
            n += (size_t)snprintf(roles + n, sizeof roles - n, "%s%s", !n ? "" : left ? ", " : " or ",
                                  API_ROLE_NAMES[order[i]]);
        }
    return api_error(r, 403, NULL, "token '%s' lacks the role %s for %s", r->tok_name, roles, rt->what);
}

/* rt's handler with its {...} values as r->param (NUL-terminated in a copy
 * of the path; handlers copy what they keep). */
/* Is NAME one of the route's space-separated query parameters? */
static bool takes_query(const struct api_route *rt, const char *name)
{
    size_t n = strlen(name);
    for (const char *q = rt->query; q && *q; q += strcspn(q, " "), q += *q == ' ')
        if (strcspn(q, " ") == n && !strncmp(q, name, n))
            return true;
    return false;
}

struct unknown_query {
    const struct api_route *rt;
    const char *name;   /* the first parameter the route does not read */
};

static enum MHD_Result find_unknown_query(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    (void)value;
    struct unknown_query *u = cls;
    if (takes_query(u->rt, key))
        return MHD_YES;
    u->name = key;
    return MHD_NO;
}

/* The first query parameter the route does not read, or NULL. Such a
 * parameter is an error, not ignored: a platform that sends
 * ?base64_encoded=true, or ?wait= where no wait is read, learns it at once
 * (issue 28). */
static const char *unknown_query(struct req *r, const struct api_route *rt)
{
    struct unknown_query u = {rt, NULL};
    if (!(rt->flags & ROUTE_ANY_QUERY))
        MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, find_unknown_query, &u);
    return u.name;
}

static enum MHD_Result call(struct req *r, const struct api_route *rt, const struct binding *b)
{
    if (!rt->fn)
        return not_found(r);
    const char *q = unknown_query(r, rt);
    if (q)
        return api_error(r, 400, q, "unknown query parameter '%.100s': %s takes %s", q, rt->pattern,
                         rt->query ? rt->query : "none");
    char *path = strdup(r->url);
    if (!path)
        return MHD_NO;
    for (int i = 0; i < b->n; i++) {
        path[b->off[i] + b->len[i]] = '\0';
        r->param[i] = path + b->off[i];
    }
    if (rt->flags & ROUTE_OWN_THREAD)
        return api_call_detached(r, rt->fn, path);
    enum MHD_Result ret = rt->fn(r);
    memset(r->param, 0, sizeof r->param);
    free(path);
    return ret;
}

enum MHD_Result api_route(struct req *r)
{
    unsigned method = method_bit(r->method);
    struct binding b;
    bool known;
    enum MHD_Result ret;
    const struct api_route *rt = find(method, r->url, true, &b, &known);
    if (rt)
        return call(r, rt, &b);
    if (!behind_token(r->url))
        return not_found(r);
    if (!r->authed && api_authenticate(r, &ret))
        return ret;
    const struct api_route *area = admin_area(r);
    if (area)
        return api_forbidden(r, area);
    rt = find(method, r->url, false, &b, &known);
    if (!rt && known)
        return api_error(r, 405, NULL, "method %s not allowed on %s", r->method, r->url);
    if (!rt)
        return not_found(r);
    if (!api_has_role(r, rt->roles))
        return api_forbidden(r, rt);
    return call(r, rt, &b);
}
