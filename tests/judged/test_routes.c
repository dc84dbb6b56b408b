/* test_routes.c - judge-api's route table (judged/api/routes.c) against its
 * contract, judged/api/openapi.yaml: every documented method and path
 * reaches a route of the table, and every route of the table is documented
 * (issue 24); then the matcher's rules, path by path. No server: the table
 * and its matcher only. Label unit. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "api.h"

#define OPENAPI JUDGED_SOURCE_DIR "/judged/api/openapi.yaml"

struct op {
    char method[8];   /* GET */
    char path[128];   /* /v1/pools/{name}/{action} */
    char query[128];  /* its query parameters, space-separated, in the document's order */
};

static const char *scalar_at(yaml_document_t *d, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *i = map->data.mapping.pairs.start; i < map->data.mapping.pairs.top; i++) {
        yaml_node_t *k = yaml_document_get_node(d, i->key), *v = yaml_document_get_node(d, i->value);
        if (!strcmp((char *)k->data.scalar.value, key))
            return v->type == YAML_SCALAR_NODE ? (char *)v->data.scalar.value : NULL;
    }
    return NULL;
}

/* The names of an operation's `in: query` parameters into out. */
static void query_params(yaml_document_t *d, yaml_node_t *operation, char *out, size_t len)
{
    out[0] = 0;
    for (yaml_node_pair_t *i = operation->data.mapping.pairs.start; i < operation->data.mapping.pairs.top; i++) {
        yaml_node_t *list = yaml_document_get_node(d, i->value);
        if (strcmp((char *)yaml_document_get_node(d, i->key)->data.scalar.value, "parameters") ||
            list->type != YAML_SEQUENCE_NODE)
            continue;
        for (yaml_node_item_t *p = list->data.sequence.items.start; p < list->data.sequence.items.top; p++) {
            yaml_node_t *param = yaml_document_get_node(d, *p);
            const char *in = scalar_at(d, param, "in"), *name = scalar_at(d, param, "name");
            if (in && name && !strcmp(in, "query"))
                snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "", name);
        }
    }
}

/* The documented operations: every method under every path. */
static int load_ops(struct op *ops, int cap)
{
    FILE *f = fopen(OPENAPI, "r");
    cr_assert(f, "%s", OPENAPI);
    yaml_parser_t p;
    yaml_document_t d;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_file(&p, f);
    cr_assert(yaml_parser_load(&p, &d), "%s does not parse", OPENAPI);
    yaml_node_t *root = yaml_document_get_root_node(&d), *paths = NULL;
    for (yaml_node_pair_t *i = root->data.mapping.pairs.start; i < root->data.mapping.pairs.top; i++)
        if (!strcmp((char *)yaml_document_get_node(&d, i->key)->data.scalar.value, "paths"))
            paths = yaml_document_get_node(&d, i->value);
    cr_assert(paths && paths->type == YAML_MAPPING_NODE);
    int n = 0;
    for (yaml_node_pair_t *i = paths->data.mapping.pairs.start; i < paths->data.mapping.pairs.top; i++) {
        const char *path = (char *)yaml_document_get_node(&d, i->key)->data.scalar.value;
        yaml_node_t *item = yaml_document_get_node(&d, i->value);
        for (yaml_node_pair_t *j = item->data.mapping.pairs.start; j < item->data.mapping.pairs.top; j++) {
            const char *m = (char *)yaml_document_get_node(&d, j->key)->data.scalar.value;
            if (strcmp(m, "get") && strcmp(m, "head") && strcmp(m, "post") && strcmp(m, "put") &&
                strcmp(m, "delete") && strcmp(m, "patch") && strcmp(m, "options"))
                continue;   /* parameters, summary */
            cr_assert(n < cap);
            for (int k = 0; m[k] && k < 7; k++)
                ops[n].method[k] = (char)(m[k] & ~0x20), ops[n].method[k + 1] = 0;
            snprintf(ops[n].path, sizeof ops[n].path, "%s", path);
            query_params(&d, yaml_document_get_node(&d, j->value), ops[n].query, sizeof ops[n].query);
            n++;
        }
    }
    yaml_document_delete(&d);
    yaml_parser_delete(&p);
    fclose(f);
    return n;
}

/* A documented path with each {parameter} given a value: "/v1/pools/x/x". */
static void instance(const char *path, char *out, size_t len)
{
    size_t o = 0;
    for (const char *s = path; *s && o + 2 < len; s++) {
        if (*s == '{') {
            out[o++] = 'x';
            s = strchr(s, '}');
        } else {
            out[o++] = *s;
        }
    }
    out[o] = 0;
}

/* Do two patterns name the same paths, segment for segment (a parameter
 * stands for any literal)? "/v1/dlq/{dlq_id}/{action}" and
 * "/v1/dlq/{dlq_id}/requeue" do. */
static bool unify(const char *a, const char *b)
{
    char x[256], y[256];
    snprintf(x, sizeof x, "%s", a);
    snprintf(y, sizeof y, "%s", b);
    char *sx, *sy, *s = strtok_r(x, "/", &sx), *t = strtok_r(y, "/", &sy);
    for (; s && t; s = strtok_r(NULL, "/", &sx), t = strtok_r(NULL, "/", &sy))
        if (*s != '{' && *t != '{' && strcmp(s, t))
            return false;
    return !s && !t;
}

static const char *method_name(unsigned bit)
{
    return bit == API_GET ? "GET" : bit == API_HEAD ? "HEAD" : bit == API_POST ? "POST" : bit == API_PUT ? "PUT" : "DELETE";
}

Test(routes, every_documented_operation_reaches_a_route_of_the_table)
{
    struct op ops[64];
    int n = load_ops(ops, 64);
    cr_assert_gt(n, 20);
    for (int i = 0; i < n; i++) {
        char path[256];
        instance(ops[i].path, path, sizeof path);
        const struct api_route *rt = api_route_find(ops[i].method, path);
        cr_expect(rt && rt->fn, "%s %s (as %s) is documented but no route of the table takes it", ops[i].method,
                  ops[i].path, path);
        cr_expect(!rt || unify(rt->pattern, ops[i].path), "%s %s reaches the route %s", ops[i].method,
                  ops[i].path, rt ? rt->pattern : "");
    }
}

Test(routes, every_route_of_the_table_is_documented)
{
    struct op ops[64];
    int n = load_ops(ops, 64);
    size_t nr;
    const struct api_route *routes = api_routes(&nr);
    for (size_t i = 0; i < nr; i++) {
        if (!routes[i].fn)
            continue;   /* a 404 after the method and role checks: no resource */
        for (unsigned bit = API_GET; bit <= API_DELETE; bit <<= 1) {
            if (!(routes[i].methods & bit) || bit == API_HEAD)   /* HEAD: GET's, not listed */
                continue;
            bool found = false;
            for (int j = 0; j < n && !found; j++)
                found = !strcmp(ops[j].method, method_name(bit)) && unify(routes[i].pattern, ops[j].path);
            cr_expect(found, "the route %s %s is not in openapi.yaml", method_name(bit), routes[i].pattern);
        }
    }
}

/* The query parameters a route reads (any other is a 400) are the ones its
 * documented operation lists, in the same order (issue 28). */
Test(routes, each_route_takes_the_query_parameters_it_documents)
{
    struct op ops[64];
    int n = load_ops(ops, 64);
    int with_query = 0;
    for (int i = 0; i < n; i++) {
        char path[256];
        instance(ops[i].path, path, sizeof path);
        const struct api_route *rt = api_route_find(ops[i].method, path);
        if (!rt || (rt->flags & ROUTE_ANY_QUERY))
            continue;
        with_query += ops[i].query[0] != 0;
        cr_expect_str_eq(rt->query ? rt->query : "", ops[i].query, "%s %s: the route reads '%s', openapi.yaml "
                         "documents '%s'", ops[i].method, ops[i].path, rt->query ? rt->query : "", ops[i].query);
    }
    cr_expect_geq(with_query, 3, "the document's query parameters were read");
}

/* Each route is spelled once: no two take the same method on the same
 * pattern, each has a role's words for its 403, at most API_MAX_PARAMS
 * parameters, and a rest parameter only at its end. */
Test(routes, the_table_is_well_formed)
{
    size_t nr;
    const struct api_route *routes = api_routes(&nr);
    for (size_t i = 0; i < nr; i++) {
        const struct api_route *rt = &routes[i];
        cr_expect(rt->pattern[0] == '/' && rt->methods, "%s", rt->pattern);
        cr_expect(rt->roles == ROUTE_PUBLIC || rt->what, "%s: no words for its 403", rt->pattern);
        int params = 0;
        for (const char *s = strchr(rt->pattern, '{'); s; s = strchr(s + 1, '{'))
            params++;
        cr_expect(params <= API_MAX_PARAMS, "%s", rt->pattern);
        const char *rest = strstr(rt->pattern, "*}");
        cr_expect(!rest || !rest[2], "%s: a rest parameter before the end", rt->pattern);
        for (size_t j = 0; j < i; j++)
            cr_expect(strcmp(routes[j].pattern, rt->pattern) || !(routes[j].methods & rt->methods),
                      "%s twice for one method", rt->pattern);
    }
}

static const char *reach(const char *method, const char *path)
{
    const struct api_route *rt = api_route_find(method, path);
    return !rt ? "none" : rt->fn ? rt->pattern : "404";
}

/* What the router before the table did with slashes, segments and
 * methods (tests/judged/test_api.c asks the running server the same). */
Test(routes, paths_match_as_before_the_table)
{
    const struct {
        const char *method, *path, *pattern;   /* "none": no route; "404": a shape without a handler */
    } c[] = {
        {"GET", "/v1/problems", "/v1/problems"},
        {"GET", "/v1/problems//", "/v1/problems"},   /* ROUTE_SLASHES */
        {"POST", "/v1/submissions/", "/v1/submissions"},
        {"GET", "/v1/events/", "none"},               /* no trailing slash elsewhere */
        {"GET", "/v1/pools/", "none"},
        {"GET", "/v1//pools", "none"},               /* the fixed part is exact */
        {"GET", "/v1/poolsx", "none"},
        {"GET", "/v1/submissions//x/", "/v1/submissions/{id}"},   /* after it, slashes are one */
        {"GET", "/v1/submissions/x/events", "/v1/submissions/{id}/events"},
        {"GET", "/v1/submissions/x/y", "404"},
        {"GET", "/v1/submissions/x/y/z", "404"},
        {"GET", "/v1/submissions/x/y/z/w", "none"},
        {"GET", "/v1/problems/x/versions/", "/v1/problems/{name}/versions"},
        {"GET", "/v1/problems/x/y", "none"},
        {"PUT", "/v1/problems/x", "/v1/problems/{name}"},
        {"POST", "/v1/pools//native//pause/", "/v1/pools/{name}/{action}"},
        {"POST", "/v1/dlq/p:1-0/anything", "/v1/dlq/{dlq_id}/{action}"},   /* the handler says 404 */
        {"GET", "/static/a/b", "/static/{file*}"},    /* as it is: api_static refuses it */
        {"GET", "/static/", "/static/{file*}"},
        {"GET", "/static", "none"},
        {"HEAD", "/metrics", "/metrics"},
        {"HEAD", "/healthz", "/healthz"},
        {"HEAD", "/v1/languages", "none"},            /* HEAD is GET's only where listed */
        {"get", "/v1/languages", "none"},             /* methods are case-sensitive */
        {"PATCH", "/v1/pools", "none"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        cr_expect_str_eq(reach(c[i].method, c[i].path), c[i].pattern, "%s %s", c[i].method, c[i].path);
}

/* The one answer the table changed: the old router copied the rest of a
 * path into 512 bytes and routed the cut copy, so GET /v1/problems/LONG/
 * versions was answered as GET /v1/problems/CUT. The whole path counts. */
Test(routes, a_long_path_is_routed_whole)
{
    char path[1200];
    snprintf(path, sizeof path, "/v1/problems/%0600d/versions", 0);
    cr_expect_str_eq(reach("GET", path), "/v1/problems/{name}/versions");
    snprintf(path, sizeof path, "/v1/pools/%0600d/pause", 0);
    cr_expect_str_eq(reach("POST", path), "/v1/pools/{name}/{action}");
}

/* An upload is told by its method and the route's fixed part only: the
 * token and role are checked before the body even where no route matches,
 * as before the table. */
Test(routes, uploads_are_told_before_their_body_by_the_fixed_part)
{
    cr_expect(api_route_upload("PUT", "/v1/problems/x"));
    cr_expect(api_route_upload("PUT", "/v1/problems/x/versions"));
    cr_expect(api_route_upload("PUT", "/v1/problems/"));
    cr_expect_null(api_route_upload("PUT", "/v1/problems"));
    cr_expect_null(api_route_upload("POST", "/v1/problems/x"));
    cr_expect_null(api_route_upload("PUT", "/v1/pools/x"));
    const struct api_route *rt = api_route_upload("PUT", "/v1/problems/x");
    cr_assert(rt);
    cr_expect_eq(rt->roles, ROLE_SETTER);
    cr_expect_str_eq(rt->what, "uploading problems");
}
