/* test_api.c - judge-api over real HTTP (libcurl) in front of a real
 * redis-server and a real judged: every status code, roles, idempotency,
 * backpressure, rate limits, long-poll, SSE resume after a dropped
 * connection, metrics; and every response checked against the OpenAPI
 * document the server itself serves (status listed, required fields
 * present). Slots 900.. (test_dispatch 600.., demo.sh 700.., test_queue 860.., test_store
 * 960..). */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "harness.h"
#include "../proc_status.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <poll.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <pthread.h>
#include <stdatomic.h>
#include <jansson.h>
#include <yaml.h>

#define AC_C SRC "/testdata/aplusb/solutions/ac.c"
#define SLOT0 900

static char cfg_path[400];
static int api_port;
static pid_t api_pid;
static char tok_submit[100], tok_submit2[100], tok_read[100], tok_admin[100], tok_viewer[100];

/* ------------------------------------------------------------ recording */

struct resp {
    long status;
    char *body;
    size_t len;
    char headers[4096];
    size_t hlen;
    json_t *json;
};

struct seen {
    char method[8], tmpl[80];
    long status;
    json_t *json;   /* NULL: not JSON */
};
static struct seen seen[256];
static int nseen;

static size_t on_body(char *p, size_t sz, size_t n, void *ud)
{
    struct resp *r = ud;
    r->body = realloc(r->body, r->len + sz * n + 1);
    memcpy(r->body + r->len, p, sz * n);
    r->len += sz * n;
    r->body[r->len] = 0;
    return sz * n;
}

static size_t on_header(char *p, size_t sz, size_t n, void *ud)
{
    struct resp *r = ud;
    size_t k = sz * n;
    if (r->hlen + k < sizeof r->headers - 1) {
        memcpy(r->headers + r->hlen, p, k);
        r->hlen += k;
        r->headers[r->hlen] = 0;
    }
    return k;
}

/* A header's value (case-insensitive name) into out; false if absent. */
static bool header(const struct resp *r, const char *name, char *out, size_t len)
{
    size_t nl = strlen(name);
    for (const char *l = r->headers; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l))
        if (!strncasecmp(l, name, nl) && l[nl] == ':') {
            const char *v = l + nl + 1;
            while (*v == ' ')
                v++;
            snprintf(out, len, "%.*s", (int)strcspn(v, "\r\n"), v);
            return true;
        }
    return false;
}

/* METHOD path (TMPL: its OpenAPI path) with an optional bearer token, body
 * and one extra header "Name: value". The response is recorded. */
static struct resp http(const char *method, const char *tmpl, const char *path, const char *token,
                        const char *body, const char *hdr)
{
    struct resp r = {0};
    CURL *c = curl_easy_init();
    char url[1024], auth[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", api_port, path);
    struct curl_slist *h = NULL;
    if (token) {
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
        h = curl_slist_append(h, auth);
    }
    if (hdr)
        h = curl_slist_append(h, hdr);
    h = curl_slist_append(h, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (!strcmp(method, "HEAD"))
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);   /* no body follows, whatever Content-Length says */
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    if (body)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    CURLcode rc = curl_easy_perform(c);
    cr_assert(rc == CURLE_OK, "%s %s: %s", method, path, curl_easy_strerror(rc));
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    char type[200] = "";
    header(&r, "Content-Type", type, sizeof type);
    if (!strcmp(type, "application/json"))
        r.json = json_loadb(r.body ? r.body : "", r.len, 0, NULL);
    if (nseen < 256) {
        struct seen *s = &seen[nseen++];
        snprintf(s->method, sizeof s->method, "%s", method);
        snprintf(s->tmpl, sizeof s->tmpl, "%s", tmpl);
        s->status = r.status;
        s->json = r.json ? json_incref(r.json) : NULL;
    }
    return r;
}

static void resp_free(struct resp *r)
{
    free(r->body);
    json_decref(r->json);
}

static const char *jstr(const struct resp *r, const char *k)
{
    return json_string_value(json_object_get(r->json, k));
}

/* ------------------------------------------------------------- OpenAPI */

static yaml_node_t *ymap(yaml_document_t *d, yaml_node_t *m, const char *k)
{
    if (!m || m->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = yaml_document_get_node(d, p->key);
        if (kn->type == YAML_SCALAR_NODE && !strcmp((char *)kn->data.scalar.value, k))
            return yaml_document_get_node(d, p->value);
    }
    return NULL;
}

/* '#/components/x/y' -> that node */
static yaml_node_t *resolve(yaml_document_t *d, yaml_node_t *n)
{
    yaml_node_t *ref = ymap(d, n, "$ref");
    if (!ref)
        return n;
    char path[256];
    snprintf(path, sizeof path, "%s", (char *)ref->data.scalar.value + 2);
    yaml_node_t *cur = yaml_document_get_root_node(d);
    for (char *save = NULL, *t = strtok_r(path, "/", &save); t; t = strtok_r(NULL, "/", &save))
        cur = ymap(d, cur, t);
    cr_assert(cur, "unresolvable %s", (char *)ref->data.scalar.value);
    return cur;
}

static const char *yscalar(yaml_document_t *d, yaml_node_t *m, const char *k)
{
    yaml_node_t *n = ymap(d, m, k);
    return n && n->type == YAML_SCALAR_NODE ? (char *)n->data.scalar.value : NULL;
}

/* Does v match the schema as a strict generated client reads it: type
 * (null only where nullable: true), enum, required, properties, items,
 * oneOf? false with why (at JSON path at) set. */
static bool matches(yaml_document_t *d, yaml_node_t *schema, json_t *v, const char *at, char *why, size_t len)
{
    schema = resolve(d, schema);
    yaml_node_t *one = ymap(d, schema, "oneOf");
    if (one && one->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = one->data.sequence.items.start; it < one->data.sequence.items.top; it++)
            if (matches(d, yaml_document_get_node(d, *it), v, at, why, len))
                return true;
        return snprintf(why, len, "%s: matches none of oneOf", at), false;
    }
    const char *type = yscalar(d, schema, "type"), *nullable = yscalar(d, schema, "nullable");
    if (json_is_null(v))
        return (nullable && !strcmp(nullable, "true")) || !type ||
               (snprintf(why, len, "%s: null where %s (not nullable) is documented", at, type), false);
    bool ok = !type || (!strcmp(type, "object") && json_is_object(v)) || (!strcmp(type, "array") && json_is_array(v)) ||
              (!strcmp(type, "string") && json_is_string(v)) || (!strcmp(type, "integer") && json_is_integer(v)) ||
              (!strcmp(type, "number") && json_is_number(v)) || (!strcmp(type, "boolean") && json_is_boolean(v));
    if (!ok)
        return snprintf(why, len, "%s: not of type %s", at, type), false;
    yaml_node_t *en = ymap(d, schema, "enum");
    if (en && en->type == YAML_SEQUENCE_NODE && json_is_string(v)) {
        bool in = false;
        for (yaml_node_item_t *it = en->data.sequence.items.start; it < en->data.sequence.items.top; it++)
            in |= !strcmp((char *)yaml_document_get_node(d, *it)->data.scalar.value, json_string_value(v));
        if (!in)
            return snprintf(why, len, "%s: '%s' is not in its enum", at, json_string_value(v)), false;
    }
    char sub[300];
    yaml_node_t *req = ymap(d, schema, "required"), *props = ymap(d, schema, "properties");
    for (yaml_node_item_t *it = req ? req->data.sequence.items.start : NULL; req && it < req->data.sequence.items.top;
         it++) {
        const char *f = (char *)yaml_document_get_node(d, *it)->data.scalar.value;
        if (json_is_object(v) && !json_object_get(v, f))
            return snprintf(why, len, "%s: required field '%s' missing", at, f), false;
    }
    for (yaml_node_pair_t *p = props ? props->data.mapping.pairs.start : NULL;
         props && props->type == YAML_MAPPING_NODE && p < props->data.mapping.pairs.top; p++) {
        const char *f = (char *)yaml_document_get_node(d, p->key)->data.scalar.value;
        json_t *fv = json_object_get(v, f);
        snprintf(sub, sizeof sub, "%s.%s", at, f);
        if (fv && !matches(d, yaml_document_get_node(d, p->value), fv, sub, why, len))
            return false;
    }
    yaml_node_t *items = ymap(d, schema, "items");
    size_t i;
    json_t *e;
    if (items && json_is_array(v))
        json_array_foreach(v, i, e) {
            snprintf(sub, sizeof sub, "%s[%zu]", at, i);
            if (!matches(d, items, e, sub, why, len))
                return false;
        }
    return true;
}

/* The scrape as Prometheus' own linter reads it (promtool, from Debian's
 * prometheus package, which .ci/install-deps installs): a malformed line,
 * a metric without HELP/TYPE, a counter not ending in _total... */
static void promtool_check(const char *body)
{
    cr_assert_eq(access("/usr/bin/promtool", X_OK), 0,
                 "promtool is not installed (bash .ci/install-deps installs Debian's prometheus package)");
    char path[400], cmd[900];
    snprintf(path, sizeof path, "%s/metrics.txt", T_dir);
    t_write(path, "%s", body);
    snprintf(cmd, sizeof cmd, "/usr/bin/promtool check metrics < '%s' > '%s.out' 2>&1", path, path);
    int rc = system(cmd);
    char outp[420];
    snprintf(outp, sizeof outp, "%s.out", path);
    FILE *f = fopen(outp, "r");
    char lint[4096] = "";
    if (f) {
        size_t n = fread(lint, 1, sizeof lint - 1, f);
        lint[n] = 0;
        fclose(f);
    }
    cr_assert_eq(rc, 0, "promtool check metrics: %s", lint);
}

/* Every recorded response: its status is documented for its path and
 * method, and a JSON body matches the documented schema as a strict
 * generated client reads it (types, nulls, enums, required fields, nested
 * objects and arrays; issue 28). */
static void check_openapi(void)
{
    struct resp doc = http("GET", "/v1/openapi.yaml", "/v1/openapi.yaml", NULL, NULL, NULL);
    cr_assert_eq(doc.status, 200);
    yaml_parser_t p;
    yaml_document_t d;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (unsigned char *)doc.body, doc.len);
    cr_assert(yaml_parser_load(&p, &d), "the served openapi.yaml does not parse");
    yaml_node_t *paths = ymap(&d, yaml_document_get_root_node(&d), "paths");
    cr_assert(paths);
    int checked = 0;
    for (int i = 0; i < nseen; i++) {
        struct seen *s = &seen[i];
        char m[8];
        for (int j = 0; s->method[j]; j++)
            m[j] = (char)(s->method[j] | 0x20), m[j + 1] = 0;
        yaml_node_t *op = ymap(&d, ymap(&d, paths, s->tmpl), m);
        cr_assert(op, "%s %s is not in the OpenAPI document", s->method, s->tmpl);
        char st[8];
        snprintf(st, sizeof st, "%ld", s->status);
        yaml_node_t *rs = ymap(&d, ymap(&d, op, "responses"), st);
        cr_assert(rs, "%s %s answered %ld, which the OpenAPI document does not list", s->method,
                  s->tmpl, s->status);
        rs = resolve(&d, rs);
        yaml_node_t *schema = ymap(&d, ymap(&d, ymap(&d, rs, "content"), "application/json"), "schema");
        if (schema) {
            cr_assert(s->json, "%s %s %ld: documented as JSON, body is not", s->method, s->tmpl, s->status);
            char why[600];
            cr_assert(matches(&d, schema, s->json, "$", why, sizeof why), "%s %s %ld: %s", s->method, s->tmpl,
                      s->status, why);
        }
        checked++;
    }
    yaml_document_delete(&d);
    yaml_parser_delete(&p);
    resp_free(&doc);
    cr_log_info("%d responses checked against openapi.yaml", checked);
}

/* ------------------------------------------------------------- fixture */

static void token(const char *name, const char *role, char *out)
{
    char buf[200];
    cr_assert_eq(t_ctl(buf, sizeof buf, cfg_path, "tokens", "add", name, "--role", role, NULL), 0);
    buf[strcspn(buf, "\n")] = 0;
    cr_assert(!strncmp(buf, "jdt_", 4), "token: %s", buf);
    snprintf(out, 100, "%.99s", buf);
}

static void start_api(void)
{
    char log[400];
    snprintf(log, sizeof log, "%s/api.log", T_dir);
    pid_t pid = t_fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(BIN "/judge-api", "judge-api", "--config", cfg_path, (char *)NULL);
        _exit(127);
    }
    t_track(pid);
    api_pid = pid;
    api_port = t_api_port(log);
    cr_assert(api_port > 0, "judge-api did not start (see %s)", log);
}

/* the configuration's max_source (a test of several files raises it) */
static const char *max_source = "1K";

/* Config with the api: section (EXTRA_API: more api keys), tokens, judge-api. */
static void start(const char *pools, const char *extra_api, bool with_judged)
{
    t_setup(2);
    nseen = 0;
    char extra[1024];
    snprintf(extra, sizeof extra, "max_source: %s\napi:\n  listen: 127.0.0.1:0\n  tokens: %s/tokens\n%s",
             max_source, T_dir, extra_api ? extra_api : "");
    t_config("A", SLOT0, extra, pools, cfg_path, sizeof cfg_path);
    token("platform", "submit", tok_submit);
    token("other", "submit", tok_submit2);
    token("viewer", "read", tok_read);
    token("root", "admin", tok_admin);
    token("watch", "viewer", tok_viewer);
    if (with_judged) {
        t_judged(cfg_path, "A");
        cr_assert(t_judged_started("A", 30000), "judged did not start");
    }
    start_api();
}

static void fini(void)
{
    for (int i = 0; i < nseen; i++)
        json_decref(seen[i].json);
    nseen = 0;
    t_teardown();
}

TestSuite(api, .fini = fini, .timeout = 240);

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert(f, "%s", path);
    char *b = calloc(1, 1 << 20);
    size_t n = fread(b, 1, (1 << 20) - 1, f);
    b[n] = 0;
    fclose(f);
    return b;
}

/* {"problem":..,"language":..,"source":<file or text>} */
static char *sub_body(const char *problem, const char *lang, const char *src_file, const char *extra)
{
    char *src = src_file ? slurp(src_file) : NULL;
    json_t *o = json_pack("{s:s, s:s, s:s}", "problem", problem, "language", lang, "source",
                          src ? src : "int main(void){return 0;}\n");
    if (extra) {
        json_t *e = json_loads(extra, 0, NULL);
        cr_assert(e, "bad extra %s", extra);
        json_object_update(o, e);
        json_decref(e);
    }
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    free(src);
    return s;
}

static void expect(struct resp r, long status, const char *field, const char *what)
{
    cr_assert_eq(r.status, status, "%s: expected %ld, got %ld: %s", what, status, r.status,
                 r.body ? r.body : "");
    if (field)
        cr_assert(jstr(&r, "field") && !strcmp(jstr(&r, "field"), field),
                  "%s: the error should name '%s': %s", what, field, r.body);
    resp_free(&r);
}

/* the daemons built with ThreadSanitizer (tests/judged/CMakeLists.txt):
 * their memory figures are the sanitizer's */
#ifndef JUDGED_DAEMONS_UNDER_TSAN
#define JUDGED_DAEMONS_UNDER_TSAN 0
#endif

#define SUBS "/v1/submissions"
#define SUB1 "/v1/submissions/{id}"

Test(api, status_codes_roles_and_idempotency)
{
    start("  native: {languages: [c, cpp], slots: 1}\n  python: {languages: [python3], slots: 1}\n",
          NULL, false);
    char *ok = sub_body("aplusb", "c", AC_C, NULL);

    /* public */
    expect(http("GET", "/healthz", "/healthz", NULL, NULL, NULL), 200, NULL, "healthz");
    expect(http("GET", "/readyz", "/readyz", NULL, NULL, NULL), 200, NULL, "readyz");
    /* 401 */
    expect(http("POST", SUBS, SUBS, NULL, ok, NULL), 401, NULL, "no token");
    expect(http("POST", SUBS, SUBS, "jdt_not-a-token", ok, NULL), 401, NULL, "bad token");
    expect(http("GET", "/v1/languages", "/v1/languages", NULL, NULL, NULL), 401, NULL, "no token");
    /* 403 */
    expect(http("POST", SUBS, SUBS, tok_read, ok, NULL), 403, NULL, "read cannot submit");
    expect(http("GET", "/v1/pools", "/v1/pools", tok_submit, NULL, NULL), 403, NULL, "submit is no admin");
    expect(http("GET", "/v1/hosts", "/v1/hosts", tok_read, NULL, NULL), 403, NULL, "read is no admin");
    expect(http("GET", "/v1/events", "/v1/events", tok_submit, NULL, NULL), 403, "mine",
           "every submission's events need read");
    /* the cluster's metrics are not public (issue 25, item 10) */
    expect(http("GET", "/metrics", "/metrics", NULL, NULL, NULL), 401, NULL, "metrics without a token");
    expect(http("GET", "/metrics", "/metrics", tok_submit, NULL, NULL), 403, NULL, "metrics need read");

    /* 400 naming the field */
    char *b;
    expect(http("POST", SUBS, SUBS, tok_submit, "{not json", NULL), 400, "body", "not JSON");
    b = sub_body("nope", "c", AC_C, NULL);
    expect(http("POST", SUBS, SUBS, tok_submit, b, NULL), 400, "problem", "unknown problem");
    free(b);
    b = sub_body("../aplusb", "c", AC_C, NULL);
    expect(http("POST", SUBS, SUBS, tok_submit, b, NULL), 400, "problem", "a path as problem");
    free(b);
    b = sub_body("aplusb", "cobol", AC_C, NULL);
    expect(http("POST", SUBS, SUBS, tok_submit, b, NULL), 400, "language", "unknown language");
    free(b);
    b = sub_body("aplusb", "java", AC_C, NULL); /* a language file exists, no pool serves it */
    expect(http("POST", SUBS, SUBS, tok_submit, b, NULL), 400, "language", "unrouted language");
    free(b);
    b = sub_body("aplusb", "c", AC_C, "{\"priority\": \"urgent\"}");
    expect(http("POST", SUBS, SUBS, tok_submit, b, NULL), 400, "priority", "bad priority");
    free(b);
    b = sub_body("aplusb", "c", AC_C, "{\"source\": \"\"}");
    expect(http("POST", SUBS, SUBS, tok_submit, b, NULL), 400, "source", "empty source");
    free(b);
    char big[1100];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    json_t *bo = json_pack("{s:s, s:s, s:s}", "problem", "aplusb", "language", "c", "source", big);
    b = json_dumps(bo, JSON_COMPACT);
    json_decref(bo);
    expect(http("POST", SUBS, SUBS, tok_submit, b, NULL), 400, "source", "source over max_source (1K)");
    free(b);
    b = sub_body("aplusb", "c", AC_C, "{\"colour\": \"red\"}");
    expect(http("POST", SUBS, SUBS, tok_submit, b, NULL), 400, "colour", "unknown field");
    free(b);
    b = sub_body("aplusb", "c", AC_C, "{\"\": 1}");   /* fuzz_submission found it */
    expect(http("POST", SUBS, SUBS, tok_submit, b, NULL), 400, "body", "a field named \"\"");
    free(b);
    /* the error quotes the name cut to 200 bytes, inside a 3-byte character:
     * the answer is still a 400 (it was no answer at all: jansson refused
     * the message, fuzz_submission found it) */
    char euros[301] = "";
    for (int i = 0; i < 100; i++)
        strcat(euros, "\xe2\x82\xac");
    b = sub_body(euros, "c", AC_C, NULL);
    expect(http("POST", SUBS, SUBS, tok_submit, b, NULL), 400, "problem", "a long non-ASCII problem");
    free(b);
    /* a name is all of the string, not its part before a NUL */
    expect(http("POST", SUBS, SUBS, tok_submit,
                "{\"problem\": \"aplusb\\u0000x\", \"language\": \"c\", \"source\": \"x\"}", NULL),
           400, "problem", "a problem name with a NUL in it");
    /* the 404 quotes the id; one that is not UTF-8 still gets its answer */
    expect(http("GET", SUB1, "/v1/submissions/native-%E2%82", tok_read, NULL, NULL), 404, NULL,
           "an id that ends inside a character");
    expect(http("POST", SUBS, SUBS, tok_submit, ok, "Idempotency-Key: "
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
           400, "Idempotency-Key", "key too long");
    /* 413: far beyond 2 x max_source + 16 KiB, refused before it is read */
    char *huge = malloc(64 * 1024);
    memset(huge, ' ', 64 * 1024 - 1);
    huge[64 * 1024 - 1] = 0;
    expect(http("POST", SUBS, SUBS, tok_submit, huge, NULL), 413, "body", "huge body");
    free(huge);

    /* 202, then the same key: 200 with the same id, then another body: 422 */
    struct resp r = http("POST", SUBS, SUBS, tok_submit, ok, "Idempotency-Key: attempt-1");
    cr_assert_eq(r.status, 202, "%s", r.body);
    char id[200], loc[400], want[300];
    snprintf(id, sizeof id, "%s", jstr(&r, "id"));
    cr_assert_str_eq(jstr(&r, "state"), "queued");
    cr_assert(header(&r, "Location", loc, sizeof loc));
    snprintf(want, sizeof want, "/v1/submissions/%s", id);
    cr_assert_str_eq(loc, want);
    resp_free(&r);
    r = http("POST", SUBS, SUBS, tok_submit, ok, "Idempotency-Key: attempt-1");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "id"), id);
    resp_free(&r);
    b = sub_body("aplusb", "c", NULL, NULL);
    expect(http("POST", SUBS, SUBS, tok_submit, b, "Idempotency-Key: attempt-1"), 422,
           "Idempotency-Key", "same key, other body");
    free(b);
    /* keys are per token: another platform's "attempt-1" is its own */
    r = http("POST", SUBS, SUBS, tok_submit2, ok, "Idempotency-Key: attempt-1");
    cr_assert_eq(r.status, 202, "%s", r.body);
    char id2[200];
    snprintf(id2, sizeof id2, "%s", jstr(&r, "id"));
    cr_assert_str_neq(id2, id);
    resp_free(&r);

    /* reading: own 200, another's 404 as an unknown one (issue 25, item 10:
     * a 403 told sequential ids apart), read role all, unknown 404 */
    r = http("GET", SUB1, want, tok_submit, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "state"), "queued");
    cr_assert_str_eq(jstr(&r, "owner"), "platform");
    /* null: not in the problem store, judged from the problems directory */
    cr_assert(r.json && json_is_null(json_object_get(r.json, "problem_version")), "%s", r.body);
    resp_free(&r);
    r = http("GET", SUB1, want, tok_submit2, NULL, NULL);
    cr_assert_eq(r.status, 404, "another token's submission: %s", r.body);
    cr_assert(strstr(r.body, "no submission"), "the answer to an unknown id: %s", r.body);
    cr_assert_null(strstr(r.body, "platform"), "the owner is not named: %s", r.body);
    resp_free(&r);
    expect(http("GET", SUB1, want, tok_read, NULL, NULL), 200, NULL, "read reads all");
    expect(http("GET", SUB1, "/v1/submissions/native-18fc2d3b1a0-0000002a", tok_read, NULL, NULL), 404,
           NULL, "unknown id");
    expect(http("GET", SUB1, "/v1/submissions/garbage", tok_read, NULL, NULL), 404, NULL, "bad id");
    snprintf(loc, sizeof loc, "%s?wait=31", want);
    expect(http("GET", SUB1, loc, tok_submit, NULL, NULL), 400, "wait", "wait over 30");
    snprintf(loc, sizeof loc, "%s?wait=0", want);
    expect(http("GET", SUB1, loc, tok_submit, NULL, NULL), 200, NULL, "wait=0 answers at once");

    /* admin */
    r = http("GET", "/v1/pools", "/v1/pools", tok_admin, NULL, NULL);
    cr_assert_eq(r.status, 200);
    json_t *pools = json_object_get(r.json, "pools");
    cr_assert_eq(json_array_size(pools), 2);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(pools, 0), "depth")), 2, "%s", r.body);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(pools, 0), "lag")), 2, "%s", r.body);
    /* two wait, but no verdict yet to tell the pace by: unknown, not 0
     * (test_wait.c has the estimate with a real judged) */
    cr_assert(json_is_null(json_object_get(json_array_get(pools, 0), "expected_wait_ms")), "%s", r.body);
    cr_assert(json_is_null(json_object_get(json_array_get(pools, 0), "verdicts_per_min")), "%s", r.body);
    resp_free(&r);
    expect(http("POST", "/v1/pools/{name}/{action}", "/v1/pools/native/pause", tok_admin, "", NULL), 200,
           NULL, "pause");
    cr_assert_eq(t_int("EXISTS judge:{native}:state"), 1);
    expect(http("POST", "/v1/pools/{name}/{action}", "/v1/pools/native/resume", tok_admin, "", NULL), 200,
           NULL, "resume");
    expect(http("POST", "/v1/pools/{name}/{action}", "/v1/pools/nosuch/pause", tok_admin, "", NULL), 404,
           NULL, "unknown pool");
    expect(http("GET", "/v1/hosts", "/v1/hosts", tok_admin, NULL, NULL), 200, NULL, "hosts");
    /* a host's registration as it stored it, with its name and whether its
     * liveness key still exists (queue_hosts, the same as judgectl hosts) */
    t_int("HSET judge:hosts %s %s", "h1", "{\"host\":\"h1\",\"pid\":7,\"pools\":[],\"time\":5}");
    t_int("HSET judge:hosts %s %s", "h2", "{\"host\":\"h2\",\"pid\":8,\"pools\":[],\"time\":6}");
    t_int("SET judge:host:h1 x PX 600000");
    r = http("GET", "/v1/hosts", "/v1/hosts", tok_admin, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *hl = json_object_get(r.json, "hosts");
    cr_assert_eq(json_array_size(hl), 2, "%s", r.body);
    for (size_t i = 0; i < 2; i++) {
        json_t *h = json_array_get(hl, i);
        bool h1 = !strcmp(json_string_value(json_object_get(h, "name")), "h1");
        cr_assert_eq(json_is_true(json_object_get(h, "alive")), h1, "only h1 is alive: %s", r.body);
        cr_assert_eq(json_integer_value(json_object_get(h, "pid")), h1 ? 7 : 8, "%s", r.body);
        cr_assert_str_eq(json_string_value(json_object_get(h, "host")), h1 ? "h1" : "h2");
    }
    resp_free(&r);
    t_int("DEL judge:hosts judge:host:h1");
    expect(http("GET", "/v1/dlq", "/v1/dlq", tok_admin, NULL, NULL), 200, NULL, "dlq");
    expect(http("POST", "/v1/dlq/{dlq_id}/requeue", "/v1/dlq/native:1-0/requeue", tok_admin, "", NULL),
           404, NULL, "no such dead letter");
    r = http("GET", "/v1/languages", "/v1/languages", tok_submit, NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body, "\"python3\"") && strstr(r.body, "\"cpp\"") && !strstr(r.body, "java"),
              "%s", r.body);
    resp_free(&r);

    /* Redis gone: readyz 503, admission 503 */
    t_kill_redis(SIGKILL);
    r = http("GET", "/readyz", "/readyz", NULL, NULL, NULL);
    cr_assert_eq(r.status, 503, "readyz without redis: %s", r.body);
    /* anonymous: no word of where Redis is or who judge-api is there
     * (issue 25, item 10) */
    cr_assert(!strstr(r.body, T_sock) && !strstr(r.body, "redis.sock") && !strstr(r.body, "127.0.0.1") &&
                  !strstr(r.body, "unix:"), "%s", r.body);
    resp_free(&r);
    r = http("POST", SUBS, SUBS, tok_submit, ok, NULL);
    cr_assert_eq(r.status, 503, "%s", r.body);
    char ra[32];
    cr_assert(header(&r, "Retry-After", ra, sizeof ra));
    resp_free(&r);
    free(ok);
    check_openapi();
}

/* Issue 26: an outage looked like calm weather (/metrics 200 with depth
 * 0, /v1/pools 200 with zeros) and /readyz said ready while no judge host
 * was alive to judge waiting work. */
Test(api, trouble_is_visible)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", NULL, false);
    expect(http("GET", "/readyz", "/readyz", NULL, NULL, NULL), 200, NULL, "no work, nothing to serve");
    struct resp r = http("GET", "/metrics", "/metrics", tok_read, NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body, "judged_redis_up 1\n"), "%s", r.body);
    cr_assert(strstr(r.body, "judged_pool_state{pool=\"native\",state=\"active\"} 1\n"), "%s", r.body);
    resp_free(&r);
    char *ok = sub_body("aplusb", "c", AC_C, NULL);
    expect(http("POST", SUBS, SUBS, tok_submit, ok, NULL), 202, NULL, "admitted, no judged runs");
    free(ok);
    r = http("GET", "/readyz", "/readyz", NULL, NULL, NULL);
    cr_assert_eq(r.status, 503, "work waits and no host judges it: %s", r.body);
    cr_assert(!strstr(r.body, "native"), "anonymous: no pool named: %s", r.body);
    resp_free(&r);
    expect(http("POST", "/v1/pools/{name}/{action}", "/v1/pools/native/pause", tok_admin, "", NULL), 200,
           NULL, "pause");
    r = http("GET", "/metrics", "/metrics", tok_read, NULL, NULL);
    cr_assert(strstr(r.body, "judged_pool_state{pool=\"native\",state=\"paused\"} 1\n") &&
                  strstr(r.body, "judged_pool_state{pool=\"native\",state=\"active\"} 0\n"), "%s", r.body);
    resp_free(&r);

    t_kill_redis(SIGKILL);
    r = http("GET", "/metrics", "/metrics", tok_read, NULL, NULL);
    cr_assert_eq(r.status, 200, "the scrape itself works: %s", r.body);
    cr_assert(strstr(r.body, "judged_redis_up 0\n"), "%s", r.body);
    cr_assert(!strstr(r.body, "judged_queue_depth{") && !strstr(r.body, "judged_free_slots{") &&
                  !strstr(r.body, "judged_queue_lag{") && !strstr(r.body, "judged_queue_expected_wait_seconds{"),
              "no figures, never zeros, while Redis cannot be read: %s", r.body);
    cr_assert(strstr(r.body, "judged_api_admissions_total{outcome=\"accepted\"} 1\n"),
              "the process's own counters stay: %s", r.body);
    resp_free(&r);
    expect(http("GET", "/v1/pools", "/v1/pools", tok_admin, NULL, NULL), 503, NULL, "pools while Redis is down");
    expect(http("GET", "/v1/hosts", "/v1/hosts", tok_admin, NULL, NULL), 503, NULL, "hosts while Redis is down");
    check_openapi();
}

/* Issue 26: judge-api refused to start while Redis was down ("webhooks:
 * redis: cannot connect"); it starts, answers 503 until Redis is back, and
 * then makes its webhook group and delivers. */
Test(api, starts_without_redis_and_serves_once_it_is_back)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", "  webhook_secret: s3cret\n", false);
    kill(api_pid, SIGTERM);
    waitpid(api_pid, NULL, 0);
    t_untrack(api_pid);
    t_kill_redis(SIGKILL);
    char log[400];
    snprintf(log, sizeof log, "%s/api.log", T_dir);
    unlink(log);   /* start_api reads the port from the log's first line */
    start_api();   /* asserts it listens */
    expect(http("GET", "/readyz", "/readyz", NULL, NULL, NULL), 503, NULL, "Redis away");
    char *ok = sub_body("aplusb", "c", AC_C, NULL);
    expect(http("POST", SUBS, SUBS, tok_submit, ok, NULL), 503, NULL, "admission while Redis is away");
    t_start_redis();
    struct resp r = {0};
    for (long long end = t_now_ms() + 30000; t_now_ms() < end; t_sleep_ms(100)) {
        r = http("GET", "/readyz", "/readyz", NULL, NULL, NULL);
        if (r.status == 200)
            break;
        resp_free(&r);
    }
    cr_assert_eq(r.status, 200, "ready once Redis is back: %s", r.body);
    resp_free(&r);
    bool grouped = false;
    for (long long end = t_now_ms() + 30000; t_now_ms() < end && !grouped; t_sleep_ms(100)) {
        redisReply *x = redisCommand(t_redis(), "XINFO GROUPS judge:{native}:results");
        grouped = x && x->type == REDIS_REPLY_ARRAY && x->elements == 1;
        if (x)
            freeReplyObject(x);
    }
    cr_assert(grouped, "the webhook group is made once Redis answers");
    free(ok);
}

Test(api, backpressure_and_rate_limit)
{
    start("  native: {languages: [c, cpp], slots: 1, max_queue: 2}\n", "  rate: 1\n  burst: 4\n", false);
    char *ok = sub_body("aplusb", "c", AC_C, NULL);
    struct resp r;
    for (int i = 0; i < 2; i++)
        expect(http("POST", SUBS, SUBS, tok_submit, ok, NULL), 202, NULL, "below max_queue");
    r = http("POST", SUBS, SUBS, tok_submit, ok, NULL);
    cr_assert_eq(r.status, 503, "a full pool: %s", r.body);
    char ra[32];
    cr_assert(header(&r, "Retry-After", ra, sizeof ra) && atoi(ra) >= 1);
    resp_free(&r);
    /* a burst of 4 at 1/s: these 20 quick requests cannot all pass (they
     * would have to take 16 s); another token is not affected */
    int limited = 0;
    for (int i = 0; i < 20; i++) {
        r = http("GET", "/v1/languages", "/v1/languages", tok_submit, NULL, NULL);
        if (r.status == 429) {
            cr_assert(header(&r, "Retry-After", ra, sizeof ra) && atoi(ra) >= 1);
            limited++;
        } else {
            cr_assert_eq(r.status, 200);
        }
        resp_free(&r);
    }
    cr_assert_gt(limited, 0);
    expect(http("GET", "/v1/languages", "/v1/languages", tok_read, NULL, NULL), 200, NULL, "other token");
    /* issue 40: a batch of 20 counted as one request, so it passed a rate
     * of 1/s whole. Each item counts: another token's bucket holds 4, and
     * the request's own time adds 1 a second; the rest are refused with
     * 429 and retry_after, each on its own */
    json_t *items = json_array();
    for (int i = 0; i < 20; i++)
        json_array_append_new(items, json_loads(ok, 0, NULL));
    json_t *whole = json_pack("{s:o}", "submissions", items);
    char *batch = json_dumps(whole, JSON_COMPACT);
    json_decref(whole);
    long long t0 = t_now_ms();
    r = http("POST", SUBS "/batch", SUBS "/batch", tok_submit2, batch, NULL);
    double took_s = (double)(t_now_ms() - t0) / 1000;
    cr_assert_eq(r.status, 200, "%s", r.body);
    int passed = 0, rated = 0;
    size_t bi;
    json_t *b;
    json_array_foreach(json_object_get(r.json, "submissions"), bi, b) {
        if (json_integer_value(json_object_get(b, "status")) == 429) {
            cr_assert_geq(json_integer_value(json_object_get(b, "retry_after")), 1, "%s", r.body);
            rated++;
        } else {
            passed++;
        }
    }
    cr_assert_eq(passed + rated, 20);
    cr_assert_leq(passed, 4 + took_s, "%d items of a batch passed a rate of 1/s with a burst of 4 in %.1f s: %s",
                  passed, took_s, r.body);
    resp_free(&r);
    free(batch);
    free(ok);
    check_openapi();
}

/* Issue 25: with no rate in the file, one token was unlimited (2,000
 * admissions of 64 KiB in 7.7 s). The default is a bucket of 201 filled at
 * 100/s: the first 200 quick requests all pass, and once more requests have
 * been sent than the bucket could have held in the time they took, one of
 * them must have been refused. Both are decided from the measured time,
 * not from a margin: a slow machine only makes the loop longer. */
Test(api, a_token_has_a_rate_by_default)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", NULL, false);
    long long t0 = t_now_ms();
    int sent = 0, first_refused = -1;
    char ra[32];
    while (sent < 5000 && first_refused < 0) {
        struct resp r = http("GET", "/v1/languages", "/v1/languages", tok_read, NULL, NULL);
        if (r.status == 429) {
            cr_assert(header(&r, "Retry-After", ra, sizeof ra) && atoi(ra) >= 1);
            first_refused = sent;
        } else {
            cr_assert_eq(r.status, 200, "%ld: %s", r.status, r.body);
        }
        resp_free(&r);
        sent++;
    }
    double allowed = 201 + 100 * (double)(t_now_ms() - t0) / 1000;
    if (first_refused >= 0)
        cr_assert_geq(first_refused, 200, "the burst lets 201 requests through, refused at %d",
                      first_refused);
    else
        cr_assert_leq(sent, allowed, "%d requests passed where a bucket of 201 at 100/s allows %.0f",
                      sent, allowed);
    check_openapi();
}

Test(api, long_poll_result_and_metrics)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", NULL, true);
    char *ok = sub_body("aplusb", "c", AC_C, "{\"metadata\": {\"contest\": 7}}");
    struct resp r = http("POST", SUBS, SUBS, tok_submit, ok, NULL);
    cr_assert_eq(r.status, 202, "%s", r.body);
    char path[300];
    snprintf(path, sizeof path, "/v1/submissions/%s?wait=30", jstr(&r, "id"));
    resp_free(&r);
    r = http("GET", SUB1, path, tok_submit, NULL, NULL);
    cr_assert_eq(r.status, 200);
    cr_assert_str_eq(jstr(&r, "state"), "done", "%s", r.body);
    cr_assert_str_eq(jstr(&r, "verdict"), "AC", "%s", r.body);
    cr_assert_eq(json_number_value(json_object_get(r.json, "score")), 100.0);
    cr_assert_gt(json_array_size(json_object_get(r.json, "tests")), 0);
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(r.json, "compile"), "status")), "OK");
    cr_assert(jstr(&r, "created") && jstr(&r, "started") && jstr(&r, "finished"), "%s", r.body);
    cr_assert(json_is_integer(json_object_get(r.json, "queue_wait_ms")));
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(r.json, "metadata"), "contest")), 7);
    /* judgectl result --json is the same document, key for key */
    static char out[1 << 16];
    cr_assert_eq(t_ctl(out, sizeof out, cfg_path, "result", jstr(&r, "id"), "--json", NULL), 0, "%s", out);
    json_t *ctl = json_loads(out, 0, NULL);
    cr_assert(json_is_object(ctl), "%s", out);
    const char *k;
    json_t *v;
    json_object_foreach(r.json, k, v)
        cr_assert(json_object_get(ctl, k), "judgectl lacks '%s': %s", k, out);
    json_object_foreach(ctl, k, v)
        cr_assert(json_object_get(r.json, k), "the API lacks '%s': %s", k, r.body);
    cr_assert_str_eq(json_string_value(json_object_get(ctl, "verdict")), "AC");
    cr_assert_eq(json_array_size(json_object_get(ctl, "tests")),
                 json_array_size(json_object_get(r.json, "tests")));
    json_decref(ctl);
    resp_free(&r);
    /* the metrics saw it (judged writes its counters once per heartbeat) */
    long long until = t_now_ms() + 20000;
    for (;;) {
        r = http("GET", "/metrics", "/metrics", tok_read, NULL, NULL);
        cr_assert_eq(r.status, 200);
        if (strstr(r.body, "judged_verdicts_total{pool=\"native\",verdict=\"AC\"} 1") || t_now_ms() > until)
            break;
        resp_free(&r);
        t_sleep_ms(100);
    }
    cr_assert(strstr(r.body, "judged_verdicts_total{pool=\"native\",verdict=\"AC\"} 1"), "%s", r.body);
    cr_assert(strstr(r.body, "judged_judging_seconds_count{pool=\"native\"} 1"), "%s", r.body);
    cr_assert(strstr(r.body, "judged_api_admissions_total{outcome=\"accepted\"} 1"), "%s", r.body);
    cr_assert(strstr(r.body, "judged_live_hosts 1"), "%s", r.body);
    cr_assert(strstr(r.body, "judged_free_slots{pool=\"native\"} 1"), "%s", r.body);
    cr_assert(strstr(r.body, "judged_slots{pool=\"native\"} 1"), "%s", r.body);
    cr_assert(strstr(r.body, "judged_queue_lag{pool=\"native\",priority=\"normal\"} 0\n"), "%s", r.body);
    /* per pool what an autoscaler or an alert needs: backlog, lag (above),
     * oldest wait, live slots (above) and the expected wait, known now that
     * the pool has judged (nothing waits: 0) */
    cr_assert(strstr(r.body, "judged_queue_depth{pool=\"native\",priority=\"normal\"} 0\n"), "%s", r.body);
    cr_assert(strstr(r.body, "judged_queue_oldest_seconds{pool=\"native\"} 0\n"), "%s", r.body);
    cr_assert(strstr(r.body, "judged_queue_expected_wait_seconds{pool=\"native\"} 0\n"), "%s", r.body);
    promtool_check(r.body);
    resp_free(&r);
    free(ok);
    check_openapi();
}

/* ------------------------------------------------------------------ SSE */

struct sse {
    char buf[65536];
    size_t len;
    int stop_after;     /* abort (drop the connection) after this many events */
    bool stop_on_heartbeat;
    int *stop_flag;     /* abort once *stop_flag (at the next heartbeat) */
    const char *token;  /* NULL: the read token */
    const char *query;  /* after /v1/events, e.g. "?mine=1" */
};

/* An event's "id: " line starts the buffer or follows a newline. (The old
 * loop's start-of-buffer test came after strstr had moved p, so it never
 * counted such an event, and gcc -Os saw a strncmp(NULL) path in it.) */
static int count_events(const char *s)
{
    int n = !strncmp(s, "id: ", 4);
    for (const char *p = s; (p = strstr(p, "\nid: ")); p++)
        n++;
    return n;
}

static size_t sse_body(char *p, size_t sz, size_t n, void *ud)
{
    struct sse *s = ud;
    size_t k = sz * n;
    if (s->len + k < sizeof s->buf) {
        memcpy(s->buf + s->len, p, k);
        s->len += k;
        s->buf[s->len] = 0;
    }
    /* whole events only: an event ends with a blank line */
    if (s->stop_after && count_events(s->buf) >= s->stop_after && strstr(s->buf + s->len - 2, "\n\n"))
        return 0;
    if (s->stop_on_heartbeat && strstr(s->buf, ": heartbeat"))
        return 0;
    if (s->stop_flag && __atomic_load_n(s->stop_flag, __ATOMIC_SEQ_CST))
        return 0;
    return k;
}

static void sse_read(struct sse *s, const char *last_id, long timeout_s)
{
    CURL *c = curl_easy_init();
    char url[200], auth[200], lei[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/events%s", api_port, s->query ? s->query : "");
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", s->token ? s->token : tok_read);
    struct curl_slist *h = curl_slist_append(NULL, auth);
    if (last_id) {
        snprintf(lei, sizeof lei, "Last-Event-ID: %s", last_id);
        h = curl_slist_append(h, lei);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sse_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout_s);
    curl_easy_perform(c);   /* ends by our abort (or the timeout: asserted by the caller) */
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
}

struct sse_thread {
    pthread_t t;
    struct sse s;
    const char *since;  /* Last-Event-ID, or NULL: from now on */
};

static void *sse_thread_main(void *p)
{
    struct sse_thread *st = p;
    sse_read(&st->s, st->since, 120);
    return NULL;
}

/* The submission ids in the events of s, in order. */
static int event_ids(const char *s, char ids[][200], int max)
{
    int n = 0;
    for (const char *p = strstr(s, "data: "); p && n < max; p = strstr(p + 1, "data: ")) {
        json_t *d = json_loadb(p + 6, strcspn(p + 6, "\n"), 0, NULL);
        cr_assert(d, "bad event data: %s", p);
        snprintf(ids[n++], 200, "%s", json_string_value(json_object_get(d, "id")));
        /* aplusb is judged from the problems directory, not the store */
        json_t *pv = json_object_get(d, "problem_version");
        cr_assert(pv && json_is_null(pv), "an event without problem_version: %s", p);
        json_decref(d);
    }
    return n;
}

static void submit_wait_problem(const char *problem, const char *src_file, const char *lang, char *id)
{
    char *b = sub_body(problem, lang, src_file, NULL);
    struct resp r = http("POST", SUBS, SUBS, tok_submit, b, NULL);
    cr_assert_eq(r.status, 202, "%s", r.body);
    snprintf(id, 200, "%s", jstr(&r, "id"));
    resp_free(&r);
    free(b);
    char path[300];
    snprintf(path, sizeof path, "/v1/submissions/%s?wait=30", id);
    for (int i = 0; i < 4; i++) {   /* each wait is capped at 30 s */
        r = http("GET", SUB1, path, tok_submit, NULL, NULL);
        bool done = r.json && !strcmp(jstr(&r, "state"), "done");
        resp_free(&r);
        if (done)
            return;
    }
    cr_assert_fail("%s never finished", id);
}

static void submit_wait_lang(const char *src_file, const char *lang, char *id)
{
    submit_wait_problem("aplusb", src_file, lang, id);
}

static void submit_wait(const char *src_file, char *id)
{
    submit_wait_lang(src_file, "c", id);
}

Test(api, sse_resume_after_a_dropped_connection_loses_nothing_and_repeats_nothing)
{
    start("  native: {languages: [c, cpp], slots: 1}\n  python: {languages: [python3], slots: 1}\n",
          "  sse_heartbeat: 1s\n", true);
    /* a stream that drops itself after its first event */
    struct sse_thread st = {.s = {.stop_after = 1}};
    pthread_create(&st.t, NULL, sse_thread_main, &st);
    /* the stream is connected once ": connected" arrived */
    for (long long end = t_now_ms() + 20000; t_now_ms() < end && !strstr(st.s.buf, ": connected");)
        t_sleep_ms(20);
    cr_assert(strstr(st.s.buf, ": connected"), "the event stream did not start");
    char a[200], b[200], c[200];
    submit_wait(AC_C, a);
    pthread_join(st.t, NULL);
    char ids[8][200];
    cr_assert_eq(event_ids(st.s.buf, ids, 8), 1, "%s", st.s.buf);
    cr_assert_str_eq(ids[0], a);
    char last[64];
    const char *p = strstr(st.s.buf, "id: ");
    snprintf(last, sizeof last, "%.*s", (int)strcspn(p + 4, "\n"), p + 4);
    /* while nobody listens: two more verdicts, in two pools (two streams) */
    submit_wait_lang(SRC "/testdata/aplusb/solutions/ac.py", "python3", b);
    submit_wait(AC_C, c);
    struct sse s2 = {.stop_after = 2};
    sse_read(&s2, last, 60);
    int n = event_ids(s2.buf, ids, 8);
    cr_assert_eq(n, 2, "resumed stream: %s", s2.buf);
    cr_assert_str_eq(ids[0], b);
    cr_assert_str_eq(ids[1], c);
    /* ?since= is the same; and an idle stream gets heartbeats */
    struct sse s3 = {.stop_on_heartbeat = true};
    sse_read(&s3, NULL, 60);
    cr_assert(strstr(s3.buf, ": heartbeat"), "no heartbeat: %s", s3.buf);
    cr_assert_eq(count_events(s3.buf), 0, "a stream from now replays nothing: %s", s3.buf);
    check_openapi();
}

/* POST a body, wait for its verdict; the result document (caller frees) */
static json_t *submit_body_wait(const char *body)
{
    struct resp r = http("POST", SUBS, SUBS, tok_submit, body, NULL);
    cr_assert_eq(r.status, 202, "%s", r.body);
    char path[300];
    snprintf(path, sizeof path, "/v1/submissions/%s?wait=30", jstr(&r, "id"));
    resp_free(&r);
    for (int i = 0; i < 6; i++) {   /* each wait is capped at 30 s */
        r = http("GET", SUB1, path, tok_submit, NULL, NULL);
        if (r.json && !strcmp(jstr(&r, "state"), "done")) {
            json_t *doc = json_incref(r.json);
            resp_free(&r);
            return doc;
        }
        resp_free(&r);
    }
    cr_assert_fail("%s never finished", path);
    return NULL;
}

/* {"problem": "aplusb", "language": lang, "files": [{name, content}...]}
 * from {name, content, ..., NULL} */
static char *files_body_for(const char *problem, const char *lang, const char *const *files)
{
    json_t *list = json_array();
    for (size_t i = 0; files[i]; i += 2)
        json_array_append_new(list, json_pack("{s:s, s:s}", "name", files[i], "content", files[i + 1]));
    json_t *o = json_pack("{s:s, s:s, s:o}", "problem", problem, "language", lang, "files", list);
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

static char *files_body(const char *lang, const char *const *files)
{
    return files_body_for("aplusb", lang, files);
}

/* issue 39: a submission of several files over HTTP -- a Java package of
 * two classes, Python modules, C++ with a header -- each AC; bad names,
 * links-to-be and both source and files refused naming the file */
Test(api, several_files_java_package_python_modules_cpp_header, .timeout = 400)
{
    max_source = "64K";
    start("  native: {languages: [cpp, java, python3, answers], slots: 1}\n", NULL, true);
    const char *const java[] = {
        "contest/Adder.java", "package contest;\npublic class Adder {\n"
                              "    public static long add(long a, long b) { return a + b; }\n}\n",
        "contest/Solver.java", "package contest;\nimport java.util.Scanner;\npublic class Solver {\n"
                               "    public static void main(String[] args) {\n"
                               "        Scanner s = new Scanner(System.in);\n"
                               "        System.out.println(Adder.add(s.nextLong(), s.nextLong()));\n    }\n}\n",
        NULL};
    const char *const python[] = {
        "__main__.py", "from arith import add\na, b = map(int, input().split())\nprint(add(a, b))\n",
        "arith.py", "def add(a, b):\n    return a + b\n", NULL};
    const char *const cpp[] = {
        "add.h", "#pragma once\nlong long add(long long a, long long b);\n",
        "add.cpp", "#include \"add.h\"\nlong long add(long long a, long long b) { return a + b; }\n",
        "main.cpp", "#include <cstdio>\n#include \"add.h\"\n"
                    "int main() { long long a, b; if (std::scanf(\"%lld %lld\", &a, &b) != 2) return 1;\n"
                    "    std::printf(\"%lld\\n\", add(a, b)); }\n",
        NULL};
    struct { const char *lang; const char *const *files; } cases[] = {{"java", java}, {"python3", python},
                                                                      {"cpp", cpp}};
    for (size_t i = 0; i < 3; i++) {
        char *b = files_body(cases[i].lang, cases[i].files);
        json_t *doc = submit_body_wait(b);
        const char *v = json_string_value(json_object_get(doc, "verdict"));
        char *text = json_dumps(doc, JSON_COMPACT);
        cr_expect(v && !strcmp(v, "AC"), "%s: %s", cases[i].lang, text);
        free(text);
        json_decref(doc);
        free(b);
    }
    /* an output-only problem of three tests (30, 30, 40 points): the
     * first answer right, the second missing, the third wrong */
    char p[600];
    snprintf(p, sizeof p, "%s/problems/answers3", T_dir);
    cr_assert_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/problems/answers3/problem.yaml", T_dir);
    t_write(p, "name: answers3\ntype: output-only\nanswer_file: \"output_{index}.txt\"\n"
               "subtasks:\n  - {name: a, points: 30, tests: [1]}\n  - {name: b, points: 30, tests: [2]}\n"
               "  - {name: c, points: 40, tests: [3]}\n");
    snprintf(p, sizeof p, "%s/problems/answers3/tests", T_dir);
    cr_assert_eq(mkdir(p, 0755), 0);
    for (int i = 1; i <= 3; i++) {
        snprintf(p, sizeof p, "%s/problems/answers3/tests/%d.in", T_dir, i);
        t_write(p, "%d\n", i);
        snprintf(p, sizeof p, "%s/problems/answers3/tests/%d.out", T_dir, i);
        t_write(p, "%d\n", i * i);
    }
    const char *const answers[] = {"output_000.txt", "1\n", "output_002.txt", "8\n", NULL};
    char *ab = files_body_for("answers3", "answers", answers);
    json_t *doc = submit_body_wait(ab);
    char *text = json_dumps(doc, JSON_COMPACT);
    cr_expect_str_eq(json_string_value(json_object_get(doc, "verdict")), "WA", "%s", text);
    double score = json_number_value(json_object_get(doc, "score"));
    cr_expect(score > 29.999 && score < 30.001, "%s", text);
    cr_expect(strstr(text, "no answer file output_001.txt"), "%s", text);
    free(text);
    json_decref(doc);
    free(ab);
    /* refused before the queue, the field naming the file */
    const char *const dotdot[] = {"main.cpp", "int main(){}", "../x.h", "", NULL};
    const char *const twice[] = {"main.cpp", "int main(){}", "main.cpp", "", NULL};
    const char *const absolute[] = {"/etc/passwd", "x", NULL};
    struct { const char *const *files; const char *field, *what; } bad[] = {
        {dotdot, "files[1]", "'..'"}, {twice, "files[1]", "given twice"}, {absolute, "files[0]", "absolute"}};
    for (size_t i = 0; i < 3; i++) {
        char *b = files_body("cpp", bad[i].files);
        struct resp r = http("POST", SUBS, SUBS, tok_submit, b, NULL);
        cr_expect(r.body && strstr(r.body, bad[i].what), "%s: %s", bad[i].what, r.body);
        expect(r, 400, bad[i].field, bad[i].what);
        free(b);
    }
    expect(http("POST", SUBS, SUBS, tok_submit,
                "{\"problem\":\"aplusb\",\"language\":\"cpp\",\"source\":\"x\",\"files\":[]}", NULL),
           400, "files", "source and files");
    expect(http("POST", SUBS, SUBS, tok_submit,
                "{\"problem\":\"aplusb\",\"language\":\"cpp\",\"files\":[{\"name\":\"a.cpp\"}]}", NULL),
           400, "files[0]", "a file without content");
    /* a one-file source that begins with the mark would be read as a set */
    expect(http("POST", SUBS, SUBS, tok_submit,
                "{\"problem\":\"aplusb\",\"language\":\"cpp\",\"source\":\"\\u0000judged-files/1\\nx\"}",
                NULL), 400, "source", "a source beginning with the mark");
    check_openapi();
}

/* POST /v1/submissions/batch (issue 28): each item admitted or refused on
 * its own, in order, as its own POST would be, idempotency keys included. */
Test(api, a_batch_admits_or_refuses_each_submission_on_its_own)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", NULL, true);
    /* what a platform shows before it submits (issue 28): the languages as
     * the pool's host published them from its language files */
    json_t *cpp = NULL;
    for (long long end = t_now_ms() + 20000; t_now_ms() < end && !cpp; t_sleep_ms(100)) {
        struct resp lr = http("GET", "/v1/languages", "/v1/languages", tok_submit, NULL, NULL);
        size_t li;
        json_t *l;
        json_array_foreach(json_object_get(lr.json, "languages"), li, l)
            if (!strcmp(json_string_value(json_object_get(l, "id")), "cpp") && json_object_get(l, "name") &&
                json_object_get(l, "versions"))
                cpp = json_incref(l);
        resp_free(&lr);
    }
    cr_assert(cpp, "no host published cpp's name and version in 20 s");
    /* the compiler's own first line, as host A's g++ --version printed it */
    FILE *gpp = popen("/usr/bin/g++ --version", "r");
    char gpp_version[256] = "";
    cr_assert(gpp && fgets(gpp_version, sizeof gpp_version, gpp));
    pclose(gpp);
    gpp_version[strcspn(gpp_version, "\n")] = 0;
    json_t *versions = json_object_get(cpp, "versions");
    cr_assert_eq(json_object_size(versions), 1, "one host, one version");
    cr_assert_str_eq(json_string_value(json_object_get(versions, "A")), gpp_version);
    cr_assert_str_eq(json_string_value(json_object_get(cpp, "name")), "C++ (GCC 12, GNU C++20)");
    cr_assert_str_eq(json_string_value(json_object_get(cpp, "pool")), "native");
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(cpp, "extensions"), 0)), ".cpp");
    cr_assert(json_number_value(json_object_get(cpp, "time_factor")) == 1.0, "time_factor");
    /* one language per extension: .cc is C++ (issue 39) */
    cr_assert(json_equal(json_object_get(cpp, "default_for"), json_object_get(cpp, "extensions")), "default_for");
    /* judgectl languages --json shows what GET /v1/languages shows, key for
     * key (less the pool and the hosts' versions, which only judged knows) */
    static char out[1 << 17];
    cr_assert_eq(t_ctl(out, sizeof out, cfg_path, "languages", "--json", "--languages", SRC "/languages", NULL), 0,
                 "%s", out);
    json_t *listed = json_loads(out, 0, NULL), *l;
    size_t li;
    json_t *ctl_cpp = NULL;
    json_array_foreach(listed, li, l)
        if (!strcmp(json_string_value(json_object_get(l, "id")), "cpp"))
            ctl_cpp = l;
    cr_assert(ctl_cpp, "%s", out);
    json_object_del(ctl_cpp, "id");
    json_t *api_cpp = json_deep_copy(cpp);
    json_object_del(api_cpp, "id");
    json_object_del(api_cpp, "pool");
    json_object_del(api_cpp, "versions");
    cr_assert(json_equal(ctl_cpp, api_cpp), "judgectl %s\nAPI %s", json_dumps(ctl_cpp, 0), json_dumps(api_cpp, 0));
    json_decref(api_cpp);
    json_decref(listed);
    json_decref(cpp);
    char *src = slurp(AC_C);
    json_t *ok = json_pack("{s:s, s:s, s:s, s:s}", "problem", "aplusb", "language", "c", "source", src,
                           "idempotency_key", "b-1");
    json_t *items = json_array();
    json_array_append(items, ok);                       /* 202 */
    json_array_append(items, ok);                       /* the same key and item: 200, the same id */
    json_array_append_new(items, json_pack("{s:s, s:s, s:s}", "problem", "aplusb", "language", "cobol",
                                           "source", src));   /* 400 language */
    json_array_append_new(items, json_pack("{s:s, s:s, s:s, s:s}", "problem", "aplusb", "language", "c", "source",
                                           "int main(void){return 1;}", "idempotency_key", "b-1"));   /* 422 */
    json_array_append_new(items, json_pack("{s:s, s:s, s:s, s:b}", "problem", "aplusb", "language", "c",
                                           "source", src, "base64_encoded", 1));   /* 400 base64_encoded */
    char *body = json_dumps(json_pack("{s:o}", "submissions", items), JSON_COMPACT);
    expect(http("POST", "/v1/submissions/batch", "/v1/submissions/batch", tok_read, body, NULL), 403, NULL,
           "a batch needs submit");
    struct resp r = http("POST", "/v1/submissions/batch", "/v1/submissions/batch", tok_submit, body, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *a = json_object_get(r.json, "submissions");
    cr_assert_eq(json_array_size(a), 5, "%s", r.body);
    const long want[] = {202, 200, 400, 422, 400};
    const char *field[] = {NULL, NULL, "language", "Idempotency-Key", "base64_encoded"};
    for (size_t i = 0; i < 5; i++) {
        json_t *it = json_array_get(a, i);
        cr_assert_eq(json_integer_value(json_object_get(it, "status")), want[i], "item %zu: %s", i, r.body);
        if (field[i])
            cr_assert_str_eq(json_string_value(json_object_get(it, "field")), field[i], "item %zu: %s", i, r.body);
    }
    char id[200], path[300];
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(json_array_get(a, 0), "id")));
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(a, 1), "id")), id, "one submission per key");
    resp_free(&r);
    free(body);
    /* the admitted one is judged like any other */
    snprintf(path, sizeof path, "/v1/submissions/%s?wait=30", id);
    for (int i = 0; i < 4; i++) {
        r = http("GET", SUB1, path, tok_submit, NULL, NULL);
        bool done = r.json && !strcmp(jstr(&r, "state"), "done");
        if (done) {
            cr_assert_str_eq(jstr(&r, "verdict"), "AC", "%s", r.body);
            resp_free(&r);
            break;
        }
        cr_assert(i < 3, "not judged: %s", r.body);
        resp_free(&r);
    }
    /* the whole request: 1 to 20 items */
    items = json_array();
    for (int i = 0; i < 20 + 1; i++)
        json_array_append(items, ok);
    body = json_dumps(json_pack("{s:o}", "submissions", items), JSON_COMPACT);
    expect(http("POST", "/v1/submissions/batch", "/v1/submissions/batch", tok_submit, body, NULL), 400,
           "submissions", "21 items");
    free(body);
    expect(http("POST", "/v1/submissions/batch", "/v1/submissions/batch", tok_submit, "{\"submissions\":[]}", NULL),
           400, "submissions", "no item");
    json_decref(ok);
    free(src);
    check_openapi();
}

/* Every event names the submission's problem, owner and metadata, so a
 * platform needs no GET per event; a submit token follows its own
 * submissions on one stream with ?mine=1, and without it is refused
 * (issue 28). */
Test(api, events_carry_problem_owner_metadata_and_a_submit_token_follows_its_own)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", NULL, true);
    expect(http("GET", "/v1/events", "/v1/events?mine=2", tok_submit, NULL, NULL), 400, "mine", "mine=2");
    struct sse_thread mine = {.s = {.stop_after = 1, .token = tok_submit, .query = "?mine=1"}};
    struct sse_thread all = {.s = {.stop_after = 2}};
    pthread_create(&mine.t, NULL, sse_thread_main, &mine);
    pthread_create(&all.t, NULL, sse_thread_main, &all);
    for (long long end = t_now_ms() + 20000; t_now_ms() < end && !(strstr(mine.s.buf, ": connected") &&
                                                                    strstr(all.s.buf, ": connected"));)
        t_sleep_ms(20);
    cr_assert(strstr(mine.s.buf, ": connected") && strstr(all.s.buf, ": connected"), "streams: %s / %s",
              mine.s.buf, all.s.buf);
    /* the other tenant's first: the mine stream must pass it over */
    char *b = sub_body("aplusb", "c", AC_C, NULL);
    struct resp r = http("POST", SUBS, SUBS, tok_submit2, b, NULL);
    cr_assert_eq(r.status, 202, "%s", r.body);
    resp_free(&r);
    free(b);
    b = sub_body("aplusb", "c", AC_C, "{\"metadata\": {\"contest\": 7, \"user\": \"ana\"}}");
    r = http("POST", SUBS, SUBS, tok_submit, b, NULL);
    cr_assert_eq(r.status, 202, "%s", r.body);
    char own[200];
    snprintf(own, sizeof own, "%s", jstr(&r, "id"));
    resp_free(&r);
    free(b);
    pthread_join(all.t, NULL);
    pthread_join(mine.t, NULL);
    cr_assert_eq(count_events(all.s.buf), 2, "the read token sees both: %s", all.s.buf);
    cr_assert(strstr(all.s.buf, "\"owner\":\"other\"") && strstr(all.s.buf, "\"owner\":\"platform\""),
              "%s", all.s.buf);
    cr_assert_eq(count_events(mine.s.buf), 1, "%s", mine.s.buf);
    const char *d = strstr(mine.s.buf, "data: ");
    cr_assert(d, "%s", mine.s.buf);
    json_t *ev = json_loadb(d + 6, strcspn(d + 6, "\n"), 0, NULL);
    cr_assert(ev, "%s", d);
    cr_assert_str_eq(json_string_value(json_object_get(ev, "id")), own);
    cr_assert_str_eq(json_string_value(json_object_get(ev, "problem")), "aplusb");
    cr_assert_str_eq(json_string_value(json_object_get(ev, "owner")), "platform");
    json_t *md = json_object_get(ev, "metadata");
    cr_assert(json_integer_value(json_object_get(md, "contest")) == 7 &&
              !strcmp(json_string_value(json_object_get(md, "user")), "ana"), "%s", d);
    json_decref(ev);

    /* the same verdicts listed, newest first, a page at a time (issue 28) */
    r = http("GET", SUBS, SUBS, tok_read, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *l = json_object_get(r.json, "submissions");
    cr_assert_eq(json_array_size(l), 2, "%s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(l, 0), "id")), own, "newest first: %s", r.body);
    cr_assert(json_is_null(json_object_get(r.json, "next")), "one page: %s", r.body);
    resp_free(&r);
    r = http("GET", SUBS, SUBS "?limit=1", tok_read, NULL, NULL);
    cr_assert_eq(json_array_size(json_object_get(r.json, "submissions")), 1, "%s", r.body);
    char next[200], page2[300];
    snprintf(next, sizeof next, "%s", json_string_value(json_object_get(r.json, "next")));
    resp_free(&r);
    snprintf(page2, sizeof page2, SUBS "?limit=1&cursor=%s", next);
    r = http("GET", SUBS, page2, tok_read, NULL, NULL);
    l = json_object_get(r.json, "submissions");
    cr_assert(json_array_size(l) == 1 && strcmp(json_string_value(json_object_get(json_array_get(l, 0), "id")), own),
              "the older one on the next page: %s", r.body);
    resp_free(&r);
    r = http("GET", SUBS, SUBS "?owner=other&problem=aplusb&verdict=AC", tok_read, NULL, NULL);
    cr_assert_eq(json_array_size(json_object_get(r.json, "submissions")), 1, "%s", r.body);
    resp_free(&r);
    r = http("GET", SUBS, SUBS "?problem=nosuch", tok_read, NULL, NULL);
    cr_assert_eq(json_array_size(json_object_get(r.json, "submissions")), 0, "%s", r.body);
    resp_free(&r);
    /* a submit token lists its own only, and may not ask for another's */
    r = http("GET", SUBS, SUBS, tok_submit, NULL, NULL);
    l = json_object_get(r.json, "submissions");
    cr_assert(json_array_size(l) == 1 && !strcmp(json_string_value(json_object_get(json_array_get(l, 0), "id")), own),
              "%s", r.body);
    resp_free(&r);
    expect(http("GET", SUBS, SUBS "?owner=other", tok_submit, NULL, NULL), 403, "owner", "another's");
    expect(http("GET", SUBS, SUBS "?limit=0", tok_read, NULL, NULL), 400, "limit", "limit 0");
    expect(http("GET", SUBS, SUBS "?cursor=x", tok_read, NULL, NULL), 400, "cursor", "bad cursor");
    check_openapi();
}

/* How many times Redis ran command cmd (INFO commandstats). */
static long long redis_calls(const char *cmd)
{
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "INFO commandstats");
    cr_assert(r && r->type == REDIS_REPLY_STRING, "INFO commandstats");
    char want[64];
    snprintf(want, sizeof want, "cmdstat_%s:calls=", cmd);
    const char *p = strstr(r->str, want);
    long long n = p ? atoll(p + strlen(want)) : 0;
    freeReplyObject(r);
    redisFree(c);
    return n;
}

/* Issue 40: a listing whose filter matched nothing read 5,000 entries (50
 * XREVRANGE, 5,084 HMGET) per request, so a token at its rate kept a Redis
 * core busy. Counted on the real redis-server: 2,000 verdicts in the
 * stream, judge-api restarted after them (its events hub starts at the
 * tail and reads none of them), one request whose filter matches nothing.
 * It reads at most 500 entries, and each page after the first counts
 * against the token's rate (2/s, a burst of 2: the request took one). */
Test(api, a_listing_that_matches_nothing_reads_a_bounded_number_of_entries)
{
    start("  native: {languages: [c], slots: 1}\n", "  rate: 2\n  burst: 2\n", false);
    kill(api_pid, SIGTERM);
    waitpid(api_pid, NULL, 0);
    t_untrack(api_pid);
    redisContext *c = t_redis();
    for (int i = 0; i < 2000; i++)
        redisAppendCommand(c, "XADD judge:{native}:results * id native-%011x-%08x verdict AC score 100 pool native "
                              "time %d problem_version %s", 1000 + i, i + 1, 1000 + i, "");
    for (int i = 0; i < 2000; i++) {
        redisReply *x = NULL;
        cr_assert_eq(redisGetReply(c, (void **)&x), REDIS_OK);
        cr_assert(x && x->type == REDIS_REPLY_STRING, "XADD");
        freeReplyObject(x);
    }
    redisFree(c);
    char log[400];
    snprintf(log, sizeof log, "%s/api.log", T_dir);
    unlink(log);   /* start_api reads the port from the log's first line */
    start_api();
    long long hmget0 = redis_calls("hmget"), t0 = t_now_ms();
    struct resp r = http("GET", SUBS, SUBS "?problem=nosuch", tok_read, NULL, NULL);
    double took_s = (double)(t_now_ms() - t0) / 1000;
    long long hmgets = redis_calls("hmget") - hmget0;
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_log_info("a listing that matches nothing: %lld HMGET in %.2f s", hmgets, took_s);
    cr_assert_leq(hmgets, 500, "one listing request read %lld submissions", hmgets);
    cr_assert_leq(hmgets, 100 * (2 + 2 * took_s), "%lld submissions read in %.1f s by a token of 2 requests/s",
                  hmgets, took_s);
    cr_assert_eq(json_array_size(json_object_get(r.json, "submissions")), 0, "%s", r.body);
    cr_assert(json_is_string(json_object_get(r.json, "next")), "the page ends early with a cursor: %s", r.body);
    resp_free(&r);
    check_openapi();
}

/* judge-api keeps the newest api.sse_buffer events in memory (one is kept
 * here): a stream resumed from further back reads them from Redis, then
 * goes on with the live ones, still in order, none lost or repeated. */
Test(api, sse_resume_from_before_the_memory_buffer_reads_redis_then_goes_live)
{
    start("  native: {languages: [c, cpp], slots: 1}\n  python: {languages: [python3], slots: 1}\n",
          "  sse_buffer: 1\n", true);
    struct sse_thread st = {.s = {.stop_after = 1}};
    pthread_create(&st.t, NULL, sse_thread_main, &st);
    for (long long end = t_now_ms() + 20000; t_now_ms() < end && !strstr(st.s.buf, ": connected");)
        t_sleep_ms(20);
    cr_assert(strstr(st.s.buf, ": connected"), "the event stream did not start");
    char a[200], b[200], c[200], d[200];
    submit_wait(AC_C, a);
    pthread_join(st.t, NULL);
    char ids[8][200], last[64];
    cr_assert_eq(event_ids(st.s.buf, ids, 8), 1, "%s", st.s.buf);
    const char *p = strstr(st.s.buf, "id: ");
    snprintf(last, sizeof last, "%.*s", (int)strcspn(p + 4, "\n"), p + 4);
    /* two verdicts while nobody listens: memory now holds only the second */
    submit_wait_lang(SRC "/testdata/aplusb/solutions/ac.py", "python3", b);
    submit_wait(AC_C, c);
    struct sse_thread st2 = {.s = {.stop_after = 3}, .since = last};
    pthread_create(&st2.t, NULL, sse_thread_main, &st2);
    for (long long end = t_now_ms() + 30000; t_now_ms() < end && count_events(st2.s.buf) < 2;)
        t_sleep_ms(20);
    cr_assert_eq(count_events(st2.s.buf), 2, "the resumed stream: %s", st2.s.buf);
    submit_wait(AC_C, d);   /* a live one */
    pthread_join(st2.t, NULL);
    cr_assert_eq(event_ids(st2.s.buf, ids, 8), 3, "%s", st2.s.buf);
    cr_assert_str_eq(ids[0], b);
    cr_assert_str_eq(ids[1], c);
    cr_assert_str_eq(ids[2], d);
}

Test(api, help_and_bad_config)
{
    t_setup(0);
    char out[4096];
    (void)out;
    char cmd[1400];
    snprintf(cmd, sizeof cmd, BIN "/judge-api --help | grep -q 'usage: judge-api --config FILE'");
    cr_assert_eq(system(cmd), 0);
    snprintf(cfg_path, sizeof cfg_path, "%s/bad.yaml", T_dir);
    t_write(cfg_path, "redis: unix://%s\npools:\n  native: {languages: [c]}\napi:\n  listen: nowhere\n", T_sock);
    snprintf(cmd, sizeof cmd, BIN "/judge-api --config %s 2>&1 | grep -q \"bad.yaml:5: key 'api.listen'\"",
             cfg_path);
    cr_assert_eq(system(cmd), 0, "a bad api.listen is named with its line");
    t_write(cfg_path, "redis: unix://%s\npools:\n  native: {languages: [c]}\napi:\n  tokens: %s/t\n",
            T_sock, T_dir);
    snprintf(cmd, sizeof cmd, "echo 'x submit nothex' > %s/t; " BIN "/judge-api --config %s 2>&1 | "
             "grep -q 't:1: the hash must be 64 hex digits'", T_dir, cfg_path);
    cr_assert_eq(system(cmd), 0, "a bad tokens line is named");
}

/* ------------------------------------------------------------- webhooks */

struct receiver {
    int fd, port;
    int fail_first;         /* answer 500 to this many requests first */
    int n;                  /* requests received */
    char event[8][64], ts[8][32], sig[8][100];
    char *body[8];
    pthread_t t;
};

static void hdr_value(const char *req, const char *name, char *out, size_t len)
{
    const char *p = strcasestr(req, name);
    out[0] = 0;
    if (p) {
        p += strlen(name);
        while (*p == ' ' || *p == ':')
            p++;
        snprintf(out, len, "%.*s", (int)strcspn(p, "\r\n"), p);
    }
}

static void *receiver_main(void *p)
{
    struct receiver *rv = p;
    for (;;) {
        int c = accept(rv->fd, NULL, NULL);
        if (c < 0)
            return NULL;
        char req[65536];
        size_t got = 0;
        ssize_t k;
        char *end = NULL;
        while (got < sizeof req - 1 && (k = read(c, req + got, sizeof req - 1 - got)) > 0) {
            got += (size_t)k;
            req[got] = 0;
            if ((end = strstr(req, "\r\n\r\n"))) {
                char cl[32];
                hdr_value(req, "Content-Length", cl, sizeof cl);
                if (got >= (size_t)(end + 4 - req) + (size_t)atoi(cl))
                    break;
            }
        }
        int i = rv->n < 8 ? rv->n : 7;
        hdr_value(req, "X-Judged-Event-Id", rv->event[i], sizeof rv->event[i]);
        hdr_value(req, "X-Judged-Timestamp", rv->ts[i], sizeof rv->ts[i]);
        hdr_value(req, "X-Judged-Signature", rv->sig[i], sizeof rv->sig[i]);
        rv->body[i] = end ? strdup(end + 4) : strdup("");
        const char *ans = rv->n < rv->fail_first ? "HTTP/1.1 500 Nope\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                                                 : "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        if (write(c, ans, strlen(ans)) < 0) {
        }
        __atomic_add_fetch(&rv->n, 1, __ATOMIC_SEQ_CST);
        close(c);
    }
}

static void receiver_start(struct receiver *rv, int fail_first)
{
    memset(rv, 0, sizeof *rv);
    rv->fail_first = fail_first;
    rv->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert(bind(rv->fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(rv->fd, 8) == 0);
    socklen_t sl = sizeof sa;
    getsockname(rv->fd, (struct sockaddr *)&sa, &sl);
    rv->port = ntohs(sa.sin_port);
    pthread_create(&rv->t, NULL, receiver_main, rv);
}

/* What a receiver does: HMAC-SHA256("TIMESTAMP.BODY") with the secret. */
static bool signature_ok(const char *secret, const char *ts, const char *body, const char *sig)
{
    char *msg;
    cr_assert(asprintf(&msg, "%s.%s", ts, body) > 0);
    unsigned char mac[64];
    unsigned len = 0;
    HMAC(EVP_sha256(), secret, (int)strlen(secret), (unsigned char *)msg, strlen(msg), mac, &len);
    free(msg);
    char hex[200] = "sha256=";
    for (unsigned i = 0; i < len; i++)
        sprintf(hex + 7 + 2 * i, "%02x", mac[i]);
    return !strcmp(hex, sig);
}

static char *callback_body(int port)
{
    char extra[200];
    snprintf(extra, sizeof extra, "{\"callback_url\": \"http://127.0.0.1:%d/hook\"}", port);
    return sub_body("aplusb", "c", AC_C, extra);
}

Test(api, webhook_retried_until_accepted_and_signed)
{
    struct receiver rv;
    receiver_start(&rv, 2);
    start("  native: {languages: [c, cpp], slots: 1}\n",
          "  webhook_secret: s3cret\n  webhook_allow_private: true\n", true);
    char *b = callback_body(rv.port);
    struct resp r = http("POST", SUBS, SUBS, tok_submit, b, NULL);
    cr_assert_eq(r.status, 202, "%s", r.body);
    char id[200];
    snprintf(id, sizeof id, "%s", jstr(&r, "id"));
    resp_free(&r);
    free(b);
    for (long long end = t_now_ms() + 90000; t_now_ms() < end && __atomic_load_n(&rv.n, __ATOMIC_SEQ_CST) < 3;)
        t_sleep_ms(50);
    cr_assert_eq(rv.n, 3, "two failures, then accepted: %d requests", rv.n);
    t_sleep_ms(300);
    cr_assert_eq(rv.n, 3, "an accepted delivery is not repeated");
    for (int i = 0; i < 3; i++) {
        cr_assert_str_eq(rv.event[i], rv.event[0], "the same event id on every attempt (dedup)");
        cr_assert(signature_ok("s3cret", rv.ts[i], rv.body[i], rv.sig[i]), "bad signature %s", rv.sig[i]);
        cr_assert(!signature_ok("other", rv.ts[i], rv.body[i], rv.sig[i]));
    }
    json_t *j = json_loads(rv.body[2], 0, NULL);
    cr_assert(j, "%s", rv.body[2]);
    cr_assert_str_eq(json_string_value(json_object_get(j, "id")), id);
    cr_assert_str_eq(json_string_value(json_object_get(j, "verdict")), "AC");
    cr_assert_str_eq(json_string_value(json_object_get(j, "event")), rv.event[0]);
    json_decref(j);
    r = http("GET", "/metrics", "/metrics", tok_read, NULL, NULL);
    cr_assert(strstr(r.body, "judged_api_webhooks_total{outcome=\"delivered\"} 1") &&
              strstr(r.body, "judged_api_webhooks_total{outcome=\"failed\"} 2"), "%s", r.body);
    resp_free(&r);
    /* and each failed attempt is one line of judge-api's log (issue 28) */
    char logf[400];
    snprintf(logf, sizeof logf, "%s/api.log", T_dir);
    char *log = slurp(logf);
    int lines = 0;
    for (const char *p = log; (p = strstr(p, "failed (attempt ")); p++)
        lines++;
    cr_assert_eq(lines, 2, "two failed attempts, two lines: %s", log);
    cr_assert(strstr(log, id), "the line names the submission: %s", log);
    free(log);
    check_openapi();
}

/* A receiver that never answers: it listens and never accepts, so a
 * delivery connects, sends, and waits for its whole timeout. */
static int silent_receiver(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert(bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(fd, 64) == 0);
    socklen_t sl = sizeof sa;
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    *port = ntohs(sa.sin_port);
    return fd;
}

/* Issue 25, item 5: deliveries went one at a time, so ten callbacks of one
 * tenant that never answered (a minute each here) held another tenant's
 * webhook for ten minutes. Now that one arrives at once: its destination
 * and tenant have room while the silent ones wait. */
Test(api, one_tenants_silent_receivers_do_not_delay_another_tenants_webhook, .timeout = 400)
{
    struct receiver rv;
    receiver_start(&rv, 0);
    int silent_port, silent = silent_receiver(&silent_port);
    start("  native: {languages: [c, cpp], slots: 1}\n",
          "  webhook_secret: s3cret\n  webhook_allow_private: true\n  webhook_timeout: 60s\n", true);
    for (int i = 0; i < 10; i++) {
        char *b = callback_body(silent_port);
        struct resp r = http("POST", SUBS, SUBS, tok_submit, b, NULL);
        free(b);
        cr_assert_eq(r.status, 202, "%s", r.body);
        resp_free(&r);
    }
    char *b = callback_body(rv.port);
    struct resp r = http("POST", SUBS, SUBS, tok_submit2, b, NULL);
    free(b);
    cr_assert_eq(r.status, 202, "%s", r.body);
    char path[300];
    snprintf(path, sizeof path, "/v1/submissions/%s?wait=30", jstr(&r, "id"));
    resp_free(&r);
    bool done = false;
    for (long long end = t_now_ms() + 240000; t_now_ms() < end && !done;) {
        r = http("GET", SUB1, path, tok_submit2, NULL, NULL);
        done = r.status == 200 && jstr(&r, "state") && !strcmp(jstr(&r, "state"), "done");
        resp_free(&r);
    }
    cr_assert(done, "the other tenant's submission was not judged");
    long long verdict_at = t_now_ms();
    while (__atomic_load_n(&rv.n, __ATOMIC_SEQ_CST) == 0 && t_now_ms() - verdict_at < 30000)
        t_sleep_ms(50);
    cr_assert_eq(__atomic_load_n(&rv.n, __ATOMIC_SEQ_CST), 1,
                 "the other tenant's webhook waited behind the silent receivers (%lld ms after its verdict)",
                 t_now_ms() - verdict_at);
    close(silent);
}

/* Issue 28: a callback_url no delivery may reach was admitted with 202 and
 * dead-lettered in silence after the verdict. Admission refuses it now,
 * naming the field; delivery still checks (a platform admitting with FCALL
 * itself, or DNS that changed meanwhile), dead-letters it and logs it. */
Test(api, webhook_to_loopback_refused_unless_allowed)
{
    struct receiver rv;
    receiver_start(&rv, 0);
    start("  native: {languages: [c, cpp], slots: 1}\n", "  webhook_secret: s3cret\n", true);
    char *b = callback_body(rv.port);
    struct resp r = http("POST", SUBS, SUBS, tok_submit, b, NULL);
    cr_assert_eq(r.status, 400, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "field"), "callback_url", "%s", r.body);
    cr_assert(strstr(r.body, "private or loopback"), "%s", r.body);
    resp_free(&r);
    free(b);
    expect(http("POST", SUBS, SUBS, tok_submit,
                "{\"problem\":\"aplusb\",\"language\":\"c\",\"source\":\"x\","
                "\"callback_url\":\"http://no-such-host.invalid/hook\"}", NULL),
           400, "callback_url", "a name that does not exist");
    char *src = slurp(AC_C), url[100];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/hook", rv.port);
    redisReply *x = redisCommand(t_redis(), "FCALL judged_admit 1 judge:{native}:q:normal pool native "
                                            "lang c problem aplusb source %s callback %s", src, url);
    cr_assert(x && x->type == REDIS_REPLY_ARRAY, "FCALL judged_admit: %s", x && x->str ? x->str : "?");
    freeReplyObject(x);
    free(src);
    json_t *dl = NULL;
    for (long long end = t_now_ms() + 90000; t_now_ms() < end; t_sleep_ms(200)) {
        r = http("GET", "/v1/webhooks/dlq", "/v1/webhooks/dlq", tok_admin, NULL, NULL);
        cr_assert_eq(r.status, 200);
        dl = json_incref(json_object_get(r.json, "dead_letters"));
        resp_free(&r);
        if (json_array_size(dl) > 0)
            break;
        json_decref(dl);
        dl = NULL;
    }
    cr_assert(dl && json_array_size(dl) == 1, "the refused delivery is a webhook dead letter");
    const char *err = json_string_value(json_object_get(json_array_get(dl, 0), "error"));
    cr_assert(err && strstr(err, "refused") && strstr(err, "private or loopback"), "%s", err);
    cr_assert_eq(rv.n, 0, "nothing was sent to the loopback address");
    char logpath[400];
    snprintf(logpath, sizeof logpath, "%s/api.log", T_dir);
    char *log = slurp(logpath);
    cr_assert(strstr(log, "webhook of ") && strstr(log, "refused"), "the refused delivery is not logged:\n%s",
              log);
    free(log);
    char path[300];
    snprintf(path, sizeof path, "/v1/webhooks/dlq/%s/replay",
             json_string_value(json_object_get(json_array_get(dl, 0), "dlq_id")));
    json_decref(dl);
    expect(http("POST", "/v1/webhooks/dlq/{dlq_id}/replay", path, tok_admin, "", NULL), 200, NULL, "replay");
    expect(http("POST", "/v1/webhooks/dlq/{dlq_id}/replay", path, tok_admin, "", NULL), 404, NULL,
           "replayed once: gone from the list");
    expect(http("GET", "/v1/webhooks/dlq", "/v1/webhooks/dlq", tok_submit, NULL, NULL), 403, NULL, "admin only");
    cr_assert_eq(rv.n, 0);
    check_openapi();
}

/* ------------------------------------------------------------- history */

/* The pool's history as the viewer reads it, summed over its buckets:
 * admissions and verdicts V; the newest bucket's state into state. */
static void history_sums(const char *pool, long long *admitted, long long *judged_v, const char *v,
                         char *state, size_t len)
{
    char path[200];
    snprintf(path, sizeof path, "/v1/pools/%s/history?since=0", pool);
    struct resp r = http("GET", "/v1/pools/{name}/history", path, tok_viewer, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "pool"), pool);
    cr_assert_eq(json_integer_value(json_object_get(r.json, "bucket_ms")), 10000);
    json_t *bs = json_object_get(r.json, "buckets"), *b;
    size_t i;
    long long prev = 0;
    *admitted = *judged_v = 0;
    json_array_foreach(bs, i, b)
    {
        long long t = json_integer_value(json_object_get(b, "time"));
        cr_assert(t % 10000 == 0 && t > prev, "bucket times must be 10 s apart and rising: %s", r.body);
        prev = t;
        *admitted += json_integer_value(json_object_get(b, "admitted"));
        *judged_v += json_integer_value(json_object_get(json_object_get(b, "judged"), v));
        snprintf(state, len, "%s", json_string_value(json_object_get(b, "state")));
    }
    resp_free(&r);
}

/* Issue 28: the dashboard's history is kept on the server side, per pool
 * per 10 s bucket, from the counters judged keeps (a judged host's
 * heartbeat samples them): one submission shows as one admission and one
 * AC in its pool's buckets and in no other pool's; a paused pool with a
 * submission waiting shows its state and depth. */
Test(api, history_per_pool_counts_admissions_verdicts_depth_and_state)
{
    start("  native: {languages: [c, cpp], slots: 1}\n  python: {languages: [python3], slots: 1}\n",
          NULL, true);
    char id[200], state[32] = "";
    long long adm = 0, ac = 0;
    /* the pool's first sample is the baseline the counts start from */
    for (long long end = t_now_ms() + 30000; t_now_ms() < end && !state[0]; t_sleep_ms(200))
        history_sums("native", &adm, &ac, "AC", state, sizeof state);
    cr_assert(state[0], "no history sample within 30 s of judged's start");
    submit_wait(AC_C, id);
    /* a sample per 10 s bucket: the next bucket's counts it */
    for (long long end = t_now_ms() + 60000; t_now_ms() < end && (adm < 1 || ac < 1); t_sleep_ms(500))
        history_sums("native", &adm, &ac, "AC", state, sizeof state);
    cr_assert_eq(adm, 1, "admissions in native's history");
    cr_assert_eq(ac, 1, "ACs in native's history");
    history_sums("python", &adm, &ac, "AC", state, sizeof state);
    cr_assert_eq(adm + ac, 0, "python's history counts native's submission");
    /* paused, one waiting: the state and the depth of a later bucket */
    expect(http("POST", "/v1/pools/{name}/{action}", "/v1/pools/native/pause", tok_admin, "", NULL), 200, NULL,
           "pause");
    char *b = sub_body("aplusb", "c", AC_C, NULL);
    expect(http("POST", SUBS, SUBS, tok_submit, b, NULL), 202, NULL, "admitted while paused");
    free(b);
    bool seen_paused = false;
    for (long long end = t_now_ms() + 60000; t_now_ms() < end && !seen_paused; t_sleep_ms(500)) {
        struct resp r = http("GET", "/v1/pools/{name}/history", "/v1/pools/native/history", tok_viewer, NULL, NULL);
        cr_assert_eq(r.status, 200, "%s", r.body);
        json_t *bs = json_object_get(r.json, "buckets");
        json_t *last = json_array_get(bs, json_array_size(bs) - 1);
        seen_paused = !strcmp(json_string_value(json_object_get(last, "state")) ?: "", "paused") &&
                      json_integer_value(json_object_get(last, "depth")) == 1;
        resp_free(&r);
    }
    cr_assert(seen_paused, "no bucket of native shows it paused with one waiting");
    expect(http("GET", "/v1/pools/{name}/history", "/v1/pools/native/history?since=-1", tok_viewer, NULL, NULL),
           400, "since", "a negative since");
    check_openapi();
}

/* ------------------------------------------------------------ dashboard */

/* chromium --headless ... MODE URL > out (MODE: --dump-dom or --screenshot=F) */
static int chromium(const char *mode, const char *url, const char *out)
{
    char udd[400], cmd[4096];
    snprintf(udd, sizeof udd, "%s/chromium-%d", T_dir, (int)t_now_ms() % 100000);
    mkdir(udd, 0700);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic "
             "--no-first-run --disable-background-networking --disable-component-update --disable-sync "
             "--user-data-dir='%s' --virtual-time-budget=10000 --window-size=1200,2000 %s '%s' > '%s' 2>/dev/null",
             T_dir, udd, mode, url, out);
    return system(cmd);
}

/* The page chromium dumped for token and fragment (after "#token=T&"),
 * once its first full picture is in (body data-ready). */
static char *dashboard_dom(const char *token, const char *fragment)
{
    char url[600], dom[400];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/#token=%s&%s", api_port, token, fragment);
    snprintf(dom, sizeof dom, "%s/dom.html", T_dir);
    cr_assert_eq(chromium("--dump-dom", url, dom), 0, "chromium failed (is the chromium package installed?)");
    char *html = slurp(dom);
    cr_assert(strstr(html, " data-ready=\"1\">"), "the page never finished its first load: %s", html);
    return html;
}

/* Does the element that begins with `start` (up to its closing `>` or the
 * end of its row) hold `what`? */
static bool row_has(const char *html, const char *start, const char *what)
{
    const char *r = strstr(html, start);
    if (!r)
        return false;
    const char *end = strstr(r, "</tr>");
    char *row = strndup(r, end ? (size_t)(end - r) : strlen(r));
    bool has = strstr(row, what) != NULL;
    free(row);
    return has;
}

/* A communication problem "duo" in the problems dir (issue 43): the
 * manager sends process i the input's i-th number and wants it times
 * i + 2; a stub holds main and calls the submission's solve(x, index).
 * The submission written beside it answers right, process 1 after
 * burning 0.2 s of CPU (clock(), so a loaded host changes nothing), so
 * the report's rows can tell the processes apart by CPU time. */
static void make_duo(char *src, size_t len)
{
    char p[400];
    const char *dirs[] = {"duo", "duo/stub", "duo/tests"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/problems/%s", T_dir, dirs[i]);
        cr_assert(mkdir(p, 0755) == 0, "%s", p);
    }
    snprintf(p, sizeof p, "%s/problems/duo/problem.yaml", T_dir);
    t_write(p, "name: duo\ntype: communication\ntime_limit: 2s\nmemory_limit: 256M\n"
               "wall_time_limit: 30s\nmanager: manager.c\nprocesses: 2\nuser_io: fifo\n"
               "grader:\n  c: [stub/stub.c, stub/task.h]\n");
    snprintf(p, sizeof p, "%s/problems/duo/manager.c", T_dir);
    t_write(p, "%s",
            "#include <stdio.h>\n"
            "int main(int argc, char **argv) {\n"
            "    long v[2], got;\n"
            "    if (argc < 5 || scanf(\"%ld %ld\", &v[0], &v[1]) != 2) return 1;\n"
            "    int ok = 1;\n"
            "    for (int i = 0; i < 2; i++) {\n"
            "        FILE *from = fopen(argv[1 + 2 * i], \"r\"), *to = fopen(argv[2 + 2 * i], \"w\");\n"
            "        if (!from || !to) return 2;\n"
            "        fprintf(to, \"%ld\\n\", v[i]);\n"
            "        fflush(to);\n"
            "        ok &= fscanf(from, \"%ld\", &got) == 1 && got == v[i] * (i + 2);\n"
            "    }\n"
            "    printf(\"%s\\n\", ok ? \"1.0\" : \"0.0\");\n"
            "    fprintf(stderr, \"%s\\n\", ok ? \"translate:success\" : \"wrong\");\n"
            "    return 0;\n"
            "}\n");
    snprintf(p, sizeof p, "%s/problems/duo/stub/stub.c", T_dir);
    t_write(p, "%s",
            "#include <stdio.h>\n#include <stdlib.h>\n#include \"task.h\"\n"
            "int main(int argc, char **argv) {\n"
            "    if (argc != 4) return 5;\n"
            "    FILE *in = fopen(argv[1], \"r\"), *out = fopen(argv[2], \"w\");\n"
            "    long x;\n"
            "    if (!in || !out || fscanf(in, \"%ld\", &x) != 1) return 6;\n"
            "    fprintf(out, \"%ld\\n\", solve(x, atoi(argv[3])));\n"
            "    return fclose(out) != 0;\n"
            "}\n");
    snprintf(p, sizeof p, "%s/problems/duo/stub/task.h", T_dir);
    t_write(p, "long solve(long x, int index);\n");
    snprintf(p, sizeof p, "%s/problems/duo/tests/1.in", T_dir);
    t_write(p, "5 7\n");
    snprintf(p, sizeof p, "%s/problems/duo/tests/1.out", T_dir);
    t_write(p, "");
    snprintf(src, len, "%s/duo.c", T_dir);
    t_write(src, "%s",
            "#include <time.h>\n#include \"task.h\"\n"
            "long solve(long x, int index) {\n"
            "    if (index == 1)\n"
            "        while (clock() < CLOCKS_PER_SEC / 5)\n"
            "            ;\n"
            "    return x * (index + 2);\n"
            "}\n");
}

/* The seconds in the cell after `after` in the row that begins with
 * `start` ("0.200 s" -> 0.2), -1 when there is no such cell. */
static double row_seconds(const char *html, const char *start, const char *after)
{
    const char *r = strstr(html, start), *end = r ? strstr(r, "</tr>") : NULL;
    const char *c = r ? strstr(r, after) : NULL;
    double v;
    if (!c || (end && c > end) || sscanf(c + strlen(after), "<td>%lf s</td>", &v) != 1)
        return -1;
    return v;
}

/* Issue 28's contest day, in headless Chromium against a live judge-api,
 * judged and Redis: a paused pool and a dead host are shown as such (row
 * state and class, the alerts at the top), each pool has its own chart of
 * the server's history, the submissions table has problem, language and
 * host, a submission's link opens its per-test report and compile output
 * (#sub=ID, what the link sets), a communication submission's report
 * (issue 43) shows each process under its test (index, verdict, CPU time,
 * exit code; the screenshot is of it), a viewer sees all of it without a 403
 * and without buttons, an admin gets the pool and dead-letter buttons. */
Test(api, dashboard_in_headless_chromium_shows_states_history_and_a_submissions_report)
{
    start("  native: {languages: [c, cpp], slots: 1}\n  python: {languages: [python3], slots: 1}\n",
          NULL, false);
    pid_t judged = t_judged(cfg_path, "A");
    cr_assert(t_judged_started("A", 30000), "judged did not start");
    char ac[200], ce[200], state[32] = "";
    long long adm = 0, n_ac = 0, n_ce = 0;
    /* native's first sample, the baseline its counts start from, before
     * anything is admitted */
    for (long long end = t_now_ms() + 30000; t_now_ms() < end && !state[0]; t_sleep_ms(200))
        history_sums("native", &adm, &n_ac, "AC", state, sizeof state);
    cr_assert(state[0], "no history sample within 30 s of judged's start");
    submit_wait(AC_C, ac);
    submit_wait_lang(SRC "/testdata/aplusb/solutions/ce.cpp", "cpp", ce);
    /* a communication submission: two processes and the manager */
    char duo[200], duo_src[400];
    make_duo(duo_src, sizeof duo_src);
    submit_wait_problem("duo", duo_src, "c", duo);
    /* the history has every verdict before the host dies (a sample per 10 s) */
    for (long long end = t_now_ms() + 60000; t_now_ms() < end && (n_ac < 2 || n_ce < 1); t_sleep_ms(500)) {
        history_sums("native", &adm, &n_ac, "AC", state, sizeof state);
        history_sums("native", &adm, &n_ce, "CE", state, sizeof state);
    }
    cr_assert(n_ac == 2 && n_ce == 1, "native's history: %lld AC, %lld CE", n_ac, n_ce);
    /* host A dies (its liveness key expires; no live host reaps it) and
     * native is paused */
    kill(judged, SIGKILL);
    bool dead = false;
    for (long long end = t_now_ms() + 30000; t_now_ms() < end && !dead; t_sleep_ms(200)) {
        struct resp r = http("GET", "/v1/hosts", "/v1/hosts", tok_viewer, NULL, NULL);
        json_t *h = json_array_get(json_object_get(r.json, "hosts"), 0);
        dead = h && !json_is_true(json_object_get(h, "alive"));
        resp_free(&r);
    }
    cr_assert(dead, "host A is still alive 30 s after SIGKILL");
    expect(http("POST", "/v1/pools/{name}/{action}", "/v1/pools/native/pause", tok_admin, "", NULL), 200, NULL,
           "pause");

    /* the viewer opens the communication submission's report */
    char frag[300];
    snprintf(frag, sizeof frag, "sub=%s", duo);
    char *html = dashboard_dom(tok_viewer, frag);
    /* states */
    cr_assert(row_has(html, "<tr data-pool=\"native\" data-state=\"paused\" class=\"st-paused\">",
                      "<td class=\"state\">paused</td>"), "native is not shown paused: %s", html);
    cr_assert(strstr(html, "<tr data-pool=\"python\" data-state=\"active\">"), "python is not shown active");
    cr_assert(row_has(html, "<tr data-host=\"A\" class=\"dead\">", "<td class=\"alive\">dead</td>"),
              "host A is not shown dead: %s", html);
    cr_assert(strstr(html, "<li data-kind=\"pool-paused\">pool native is paused</li>"), "no alert for the pause");
    cr_assert(strstr(html, "<li data-kind=\"host-dead\">host A is dead"), "no alert for the dead host");
    /* one chart per pool, from the server's history */
    cr_assert(strstr(html, "<figure data-pool=\"native\" data-admitted=\"3\" data-judged=\"3\">"),
              "native's chart does not count its three submissions: %s", html);
    cr_assert(strstr(html, "<figure data-pool=\"python\" data-admitted=\"0\" data-judged=\"0\">"),
              "python's chart is not its own");
    /* the submissions table, and the report the link opens */
    char row[300], link[300];
    snprintf(row, sizeof row, "<tr data-id=\"%s\">", ac);
    snprintf(link, sizeof link, "<a href=\"#sub=%s\">", ac);
    cr_assert(row_has(html, row, link), "no link to %s's report", ac);
    cr_assert(row_has(html, row, "<td>aplusb</td><td>c</td><td>A</td><td>native</td><td class=\"AC\">AC</td>"),
              "the row of %s lacks problem, language, host or verdict: %s", ac, html);
    char detail[300];
    snprintf(detail, sizeof detail, "<section id=\"detail\" data-id=\"%s\">", duo);
    cr_assert(strstr(html, detail), "the report of %s is not open: %s", duo, html);
    const char *test1 = "<tr data-test=\"1\"><td>1</td><td class=\"AC\">AC</td>";
    cr_assert(strstr(html, test1), "no per-test row: %s", html);
    /* under the test, a row per process: its index, verdict, CPU time and
     * exit status; process 1 burnt 0.2 s, process 0 less, the test's CPU
     * time is their sum; then the manager */
    const char *user0 = "<tr class=\"process\" data-test=\"1\" data-process=\"user 0\">";
    const char *user1 = "<tr class=\"process\" data-test=\"1\" data-process=\"user 1\">";
    const char *mgr = "<tr class=\"process\" data-test=\"1\" data-process=\"manager\">";
    const char *ok0 = "<td>\u21b3 user 0</td><td class=\"AC\">AC</td>";
    const char *ok1 = "<td>\u21b3 user 1</td><td class=\"AC\">AC</td>";
    cr_assert(row_has(html, user0, ok0) && row_has(html, user0, " KiB</td><td>0</td>"),
              "no row of process 0 with its verdict and exit code: %s", html);
    cr_assert(row_has(html, user1, ok1) && row_has(html, user1, " KiB</td><td>0</td>"),
              "no row of process 1 with its verdict and exit code: %s", html);
    cr_assert(row_has(html, mgr, "<td>\u21b3 manager</td><td class=\"AC\">AC</td>"), "no row of the manager: %s",
              html);
    cr_assert(strstr(html, user0) < strstr(html, user1) && strstr(html, user1) < strstr(html, mgr),
              "the processes are not in order under their test: %s", html);
    double cpu0 = row_seconds(html, user0, ok0), cpu1 = row_seconds(html, user1, ok1);
    double cpu = row_seconds(html, "<tr data-test=\"1\">", "<td class=\"AC\">AC</td>");
    cr_assert(cpu1 >= 0.2 && cpu0 >= 0 && cpu0 < cpu1 && cpu >= cpu1 && cpu <= cpu0 + cpu1 + 0.002,
              "CPU times: process 0 %.3f s, process 1 %.3f s (burnt 0.2 s), the test %.3f s (their sum)", cpu0, cpu1,
              cpu);
    /* read only: no 403 anywhere, no buttons, the dead letters marked so */
    cr_assert(!strstr(html, "HTTP 403"), "a viewer met a 403: %s", html);
    cr_assert(!strstr(html, "data-action="), "a viewer has buttons");
    cr_assert(strstr(html, "<span id=\"dlq-note\">(read only)</span>"));
    free(html);

    /* an admin: buttons, and the compile output of the CE */
    snprintf(frag, sizeof frag, "sub=%s", ce);
    html = dashboard_dom(tok_admin, frag);
    cr_assert(row_has(html, "<tr data-pool=\"native\"", "<button data-action=\"resume\">resume</button>"),
              "no resume button for the admin: %s", html);
    snprintf(detail, sizeof detail, "<section id=\"detail\" data-id=\"%s\">", ce);
    const char *d = strstr(html, detail);
    cr_assert(d, "the report of %s is not open", ce);
    const char *out = strstr(d, "<pre id=\"compile-output\">");
    cr_assert(out && strstr(out, "error"), "no compiler error in the report: %s", d);
    free(html);

    /* a screenshot, kept beside the test binary for a human to look at */
    char url[600], png[400], shot[600];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/#token=%s&sub=%s", api_port, tok_viewer, duo);
    snprintf(png, sizeof png, "%s/dashboard.png", T_dir);
    snprintf(shot, sizeof shot, "--screenshot='%s'", png);
    cr_assert_eq(chromium(shot, url, "/dev/null"), 0);
    FILE *f = fopen(png, "rb");
    unsigned char magic[8] = {0};
    cr_assert(f && fread(magic, 1, 8, f) == 8, "no screenshot");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    cr_assert(!memcmp(magic, "\x89PNG\r\n\x1a\n", 8) && size > 10000, "the screenshot is no PNG of a page (%ld bytes)",
              size);
    char cmd[1000];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/test_api_dashboard.png'", png, BIN);
    cr_assert_eq(system(cmd), 0);
    struct resp r = http("GET", "/", "/", NULL, NULL, NULL);
    cr_assert_eq(r.status, 200);
    /* the page above ran under this policy (issue 25, item 11) */
    char csp[400];
    cr_assert(header(&r, "Content-Security-Policy", csp, sizeof csp), "the dashboard has no CSP");
    cr_assert(strstr(csp, "script-src 'self'") && strstr(csp, "frame-ancestors 'none'"), "%s", csp);
    resp_free(&r);
    expect(http("GET", "/v1/whoami", "/v1/whoami", tok_viewer, NULL, NULL), 200, NULL, "whoami");
    check_openapi();
}

Test(api, progress_events_of_one_submission_then_its_verdict)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", NULL, true);
    char slow[400];
    snprintf(slow, sizeof slow, "%s/slow.c", T_dir);
    char *b = sub_body("slow", "c", slow, NULL);
    struct resp r = http("POST", SUBS, SUBS, tok_submit, b, NULL);
    free(b);
    cr_assert_eq(r.status, 202, "%s", r.body);
    char path[300];
    snprintf(path, sizeof path, "/v1/submissions/%s/events", jstr(&r, "id"));
    resp_free(&r);
    expect(http("GET", "/v1/submissions/{id}/events", path, tok_submit2, NULL, NULL), 404, NULL,
           "another token's progress, as an unknown submission's");
    /* the stream ends by itself after the verdict */
    r = http("GET", "/v1/submissions/{id}/events", path, tok_submit, NULL, NULL);
    cr_assert_eq(r.status, 200);
    const char *c = strstr(r.body, "\"stage\":\"compiling\"");
    const char *t1 = strstr(r.body, "\"text\":\"test 1 of 2: AC\"");
    const char *t2 = strstr(r.body, "\"text\":\"test 2 of 2: AC\"");
    const char *v = strstr(r.body, "event: verdict\ndata: ");
    cr_assert(c && t1 && t2 && v && c < t1 && t1 < t2 && t2 < v, "progress in order, then the verdict: %s",
              r.body);
    cr_assert(strstr(v, "\"verdict\":\"AC\""), "%s", v);
    resp_free(&r);
    /* ids Redis would refuse are refused here (issue 25, item 4: "+1-0"
     * reached XREAD as it was, and the stream asked again at once, ~31,000
     * commands a second); Redis's own spelling resumes */
    const char *bad[] = {"+1-0", "1-2-3", "99999999999999999999-0", "1-", "-1", "1-0x"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char hdr[100];
        snprintf(hdr, sizeof hdr, "Last-Event-ID: %s", bad[i]);
        r = http("GET", "/v1/submissions/{id}/events", path, tok_submit, NULL, hdr);
        cr_assert_eq(r.status, 400, "Last-Event-ID %s: %ld %s", bad[i], r.status, r.body);
        cr_assert(strstr(r.body, "Last-Event-ID"), "%s", r.body);
        resp_free(&r);
        char q[200];
        snprintf(q, sizeof q, "/v1/events?since=%s", bad[i][0] == '+' ? "%2B1-0" : bad[i]);
        r = http("GET", "/v1/events", q, tok_read, NULL, NULL);
        cr_assert_eq(r.status, 400, "since=%s: %ld %s", bad[i], r.status, r.body);
        resp_free(&r);
    }
    r = http("GET", "/v1/submissions/{id}/events", path, tok_submit, NULL, "Last-Event-ID: 0-1");
    cr_assert_eq(r.status, 200);
    cr_assert(strstr(r.body, "event: verdict"), "resumed after compiling: %s", r.body);
    cr_assert_null(strstr(r.body, "\"stage\":\"compiling\""), "not sent twice: %s", r.body);
    resp_free(&r);
    check_openapi();
}

Test(api, the_readme_python_client_judges_over_http)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", NULL, true);
    char cmd[2000], out[400];
    snprintf(out, sizeof out, "%s/client.out", T_dir);
    snprintf(cmd, sizeof cmd, "python3 %s/judged/api/examples/client.py http://127.0.0.1:%d %s aplusb c %s > %s 2>&1",
             SRC, api_port, tok_submit, AC_C, out);
    cr_assert_eq(system(cmd), 0);
    char *s = slurp(out);
    cr_assert(strstr(s, " AC 100") && strstr(s, "native-"), "%s", s);
    free(s);
}

/* judged/api/examples/platform.py, a whole platform client in under 40
 * lines of stdlib Python (issue 28): one batch, its own verdicts over SSE,
 * the same verdicts as signed webhooks, checked. */
Test(api, the_example_platform_client_submits_follows_and_verifies_webhooks)
{
    start("  native: {languages: [c, cpp], slots: 1}\n",
          "  webhook_secret: s3cret\n  webhook_allow_private: true\n", true);
    char cmd[3000], out[400], wa[400];
    snprintf(out, sizeof out, "%s/platform.out", T_dir);
    snprintf(wa, sizeof wa, "%s/wa.c", T_dir);
    t_write(wa, "#include <stdio.h>\nint main(void){long long a,b;scanf(\"%%lld%%lld\",&a,&b);printf(\"%%lld\\n\",a-b);}\n");
    snprintf(cmd, sizeof cmd, "timeout 300 python3 %s/judged/api/examples/platform.py http://127.0.0.1:%d %s s3cret "
             "aplusb c %s %s > %s 2>&1", SRC, api_port, tok_submit, AC_C, wa, out);
    int rc = system(cmd);
    char *s = slurp(out);
    cr_assert_eq(rc, 0, "%s", s);
    char want[600];
    snprintf(want, sizeof want, "%s native-", AC_C);
    cr_assert(strstr(s, want) && strstr(s, " AC aplusb platform webhook AC"), "%s", s);
    cr_assert(strstr(s, " WA aplusb platform webhook WA"), "%s", s);
    free(s);
}

/* SIGHUP to judge-api (the tokens file is read again), then whether token
 * gets 200 from GET path within 20 s. */
static bool sighup_token(const char *path, const char *token)
{
    kill(api_pid, SIGHUP);
    for (long long end = t_now_ms() + 20000; t_now_ms() < end; t_sleep_ms(50)) {
        struct resp r = http("GET", path, path, token, NULL, NULL);
        long status = r.status;
        resp_free(&r);
        if (status == 200)
            return true;
    }
    return false;
}

Test(api, a_token_added_while_running_counts_after_sighup)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", NULL, false);
    char fresh[100];
    token("late", "read", fresh);
    expect(http("GET", "/v1/languages", "/v1/languages", fresh, NULL, NULL), 401, NULL, "not loaded yet");
    cr_assert(sighup_token("/v1/languages", fresh), "the new token works after SIGHUP");
    expect(http("GET", "/v1/languages", "/v1/languages", tok_submit, NULL, NULL), 200, NULL, "old tokens stay");
    check_openapi();
}

/* GET /v1/languages answers while SIGHUPs swap the configuration: every
 * answer is 200 and lists the old pools' languages or the new ones, never a
 * mixture (a request keeps the snapshot it began with). Its own curl
 * handle: http() records into seen[], which is not shared across threads. */
struct hammer {
    atomic_bool stop;
    int requests, bad;
    char first_bad[512];
};

static void *hammer_languages(void *p)
{
    struct hammer *h = p;
    char url[200], auth[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/v1/languages", api_port);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", tok_read);
    struct curl_slist *hdr = curl_slist_append(NULL, auth);
    while (!atomic_load(&h->stop)) {
        struct resp r = {0};
        CURL *c = curl_easy_init();
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
        curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
        CURLcode rc = curl_easy_perform(c);
        long status = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        curl_easy_cleanup(c);
        const char *b = r.body ? r.body : "";
        bool old = strstr(b, "\"id\":\"c\"") && !strstr(b, "\"cpp\""), grown = strstr(b, "\"id\":\"cpp\"") != NULL;
        h->requests++;
        if ((rc != CURLE_OK || status != 200 || (!old && !grown)) && h->bad++ == 0)
            snprintf(h->first_bad, sizeof h->first_bad, "%s %ld %s", curl_easy_strerror(rc), status, b);
        free(r.body);
        t_sleep_ms(2);
    }
    curl_slist_free_all(hdr);
    return NULL;
}

/* Whether judge-api's log holds text at least `times` times. */
static bool api_log_has(const char *text, int times)
{
    char log[400];
    snprintf(log, sizeof log, "%s/api.log", T_dir);
    char *s = slurp(log);
    int n = 0;
    for (const char *p = s; (p = strstr(p, text)); p++)
        n++;
    free(s);
    return n >= times;
}

static bool lists_language(const char *id)
{
    struct resp r = http("GET", "/v1/languages", "/v1/languages", tok_read, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    bool found = false;
    json_t *l = json_object_get(r.json, "languages"), *e;
    size_t i;
    json_array_foreach(l, i, e) found |= !strcmp(json_string_value(json_object_get(e, "id")), id);
    resp_free(&r);
    return found;
}

Test(api, a_language_added_to_a_pool_is_served_after_sighup_and_a_broken_file_changes_nothing)
{
    start("  native: {languages: [c], slots: 1}\n", "  rate: 0\n", false);   /* the other thread asks fast */
    char *cpp = sub_body("aplusb", "cpp", AC_C, NULL);
    expect(http("POST", SUBS, SUBS, tok_submit, cpp, NULL), 400, "language", "cpp: no pool serves it yet");
    cr_assert(!lists_language("cpp"));

    /* the same file as start() wrote, cpp added to the pool */
    char extra[1024];
    snprintf(extra, sizeof extra, "max_source: 1K\napi:\n  listen: 127.0.0.1:0\n  tokens: %s/tokens\n  rate: 0\n",
             T_dir);
    t_config("A", SLOT0, extra, "  native: {languages: [c, cpp], slots: 1}\n", cfg_path, sizeof cfg_path);
    struct hammer h = {0};
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, hammer_languages, &h), 0);
    kill(api_pid, SIGHUP);
    bool listed = false;
    for (long long end = t_now_ms() + 20000; t_now_ms() < end && !listed; t_sleep_ms(50))
        listed = lists_language("cpp");
    cr_assert(listed, "GET /v1/languages lists cpp after SIGHUP, without a restart");
    cr_assert(api_log_has("SIGHUP: configuration reloaded (1 pool)", 1));
    expect(http("POST", SUBS, SUBS, tok_submit, cpp, NULL), 202, NULL, "cpp admitted after SIGHUP");

    /* a broken file: logged with its line, and the running configuration stays */
    char *good = slurp(cfg_path);
    t_write(cfg_path, "%spool_typo: [\n", good);
    kill(api_pid, SIGHUP);
    bool refused = false;
    for (long long end = t_now_ms() + 20000; t_now_ms() < end && !refused; t_sleep_ms(50))
        refused = api_log_has("SIGHUP: configuration not reloaded, the old one stays", 1);
    cr_assert(refused, "judge-api did not say the file was refused");
    cr_assert(api_log_has(cfg_path, 1), "the refusal names the file");
    cr_assert(lists_language("cpp"), "the old configuration still serves after a broken SIGHUP");
    expect(http("POST", SUBS, SUBS, tok_submit, cpp, NULL), 202, NULL, "cpp still admitted");

    /* more swaps back and forth while the other thread asks */
    for (int i = 0; i < 6; i++) {
        t_config("A", SLOT0, extra, i % 2 ? "  native: {languages: [c, cpp], slots: 1}\n"
                                          : "  native: {languages: [c], slots: 1}\n",
                 cfg_path, sizeof cfg_path);
        kill(api_pid, SIGHUP);
        bool done = false;
        for (long long end = t_now_ms() + 20000; t_now_ms() < end && !done; t_sleep_ms(20))
            done = api_log_has("SIGHUP: configuration reloaded (1 pool)", i + 2);
        cr_assert(done, "reload %d not logged", i + 2);
        cr_assert_eq(lists_language("cpp"), i % 2 == 1, "after reload %d", i + 2);
    }
    atomic_store(&h.stop, true);
    pthread_join(th, NULL);
    cr_assert(h.requests > 0);
    cr_assert_eq(h.bad, 0, "%d of %d answers during reloads were wrong; the first: %s", h.bad, h.requests,
                 h.first_bad);
    free(good);
    free(cpp);
    check_openapi();
}

/* A pool added by SIGHUP (to judge-api and the host alike) is followed by
 * the events hub and the webhook reader without a restart: before, its
 * verdicts reached neither GET /v1/events nor a callback_url until judge-api
 * restarted (the hub and the webhooks read the start configuration's pools). */
Test(api, a_pool_added_by_sighup_reaches_event_streams_and_webhooks)
{
    struct receiver rv;
    receiver_start(&rv, 0);
    const char *hooks = "  webhook_secret: s3cret\n  webhook_allow_private: true\n";
    start("  native: {languages: [c], slots: 1}\n", hooks, false);
    pid_t host = t_judged(cfg_path, "A");
    cr_assert(t_judged_started("A", 30000), "judged did not start");
    struct sse_thread all = {.s = {.stop_after = 1}};
    pthread_create(&all.t, NULL, sse_thread_main, &all);
    for (long long end = t_now_ms() + 20000; t_now_ms() < end && !strstr(all.s.buf, ": connected");)
        t_sleep_ms(20);
    cr_assert(strstr(all.s.buf, ": connected"), "stream: %s", all.s.buf);

    char extra[1024];
    snprintf(extra, sizeof extra, "max_source: 1K\napi:\n  listen: 127.0.0.1:0\n  tokens: %s/tokens\n%s", T_dir,
             hooks);
    t_config("A", SLOT0, extra, "  native: {languages: [c], slots: 1}\n  python: {languages: [python3], slots: 1}\n",
             cfg_path, sizeof cfg_path);
    kill(api_pid, SIGHUP);
    kill(host, SIGHUP);
    bool both = false;
    for (long long end = t_now_ms() + 30000; t_now_ms() < end && !both; t_sleep_ms(50))
        both = api_log_has("events: pool python added by a reload", 1) &&
               api_log_has("webhooks: pool python added by a reload", 1);
    cr_assert(both, "judge-api did not say it follows the new pool");

    char hook[200];
    snprintf(hook, sizeof hook, "{\"callback_url\": \"http://127.0.0.1:%d/hook\"}", rv.port);
    char *b = sub_body("aplusb", "python3", SRC "/testdata/aplusb/solutions/ac.py", hook);
    struct resp r = http("POST", SUBS, SUBS, tok_submit, b, NULL);
    cr_assert_eq(r.status, 202, "python3 is admitted after SIGHUP: %s", r.body);
    char id[200];
    snprintf(id, sizeof id, "%s", jstr(&r, "id"));
    resp_free(&r);
    free(b);
    pthread_join(all.t, NULL);
    cr_assert_eq(count_events(all.s.buf), 1, "the new pool's verdict on the stream: %s", all.s.buf);
    cr_assert(strstr(all.s.buf, id) && strstr(all.s.buf, "\"verdict\":\"AC\""), "%s", all.s.buf);
    for (long long end = t_now_ms() + 60000; t_now_ms() < end && __atomic_load_n(&rv.n, __ATOMIC_SEQ_CST) < 1;)
        t_sleep_ms(50);
    cr_assert_eq(rv.n, 1, "the new pool's webhook delivered once");
    cr_assert(strstr(rv.body[0], id), "%s", rv.body[0]);
    check_openapi();
}

/* The dead-letter queue over HTTP: a problem that vanished after admission
 * fails as infrastructure (test data missing) until it is dead-lettered. */
static json_t *wait_dead_letters(size_t n)
{
    for (long long end = t_now_ms() + 60000; t_now_ms() < end; t_sleep_ms(100)) {
        struct resp r = http("GET", "/v1/dlq", "/v1/dlq", tok_admin, NULL, NULL);
        cr_assert_eq(r.status, 200);
        json_t *dl = json_incref(json_object_get(r.json, "dead_letters"));
        resp_free(&r);
        if (json_array_size(dl) >= n)
            return dl;
        json_decref(dl);
    }
    cr_assert_fail("no %zu dead letters", n);
    return NULL;
}

Test(api, dead_letters_listed_requeued_and_dropped)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", NULL, false);
    char dir[400];
    snprintf(dir, sizeof dir, "%s/problems/ghost", T_dir);
    cr_assert(mkdir(dir, 0755) == 0);
    char *b = sub_body("ghost", "c", AC_C, NULL);
    struct resp r = http("POST", SUBS, SUBS, tok_submit, b, NULL);
    free(b);
    cr_assert_eq(r.status, 202, "%s", r.body);
    char id[200];
    snprintf(id, sizeof id, "%s", jstr(&r, "id"));
    resp_free(&r);
    rmdir(dir);
    t_judged(cfg_path, "A");
    json_t *dl = wait_dead_letters(1);
    json_t *d = json_array_get(dl, 0);
    cr_assert_str_eq(json_string_value(json_object_get(d, "id")), id);
    char path[300];
    snprintf(path, sizeof path, "/v1/dlq/%s/requeue", json_string_value(json_object_get(d, "dlq_id")));
    json_decref(dl);
    r = http("POST", "/v1/dlq/{dlq_id}/requeue", path, tok_admin, "", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "id"), id);
    resp_free(&r);
    /* it fails again: a second dead letter, which is dropped */
    dl = wait_dead_letters(1);
    snprintf(path, sizeof path, "/v1/dlq/%s/drop",
             json_string_value(json_object_get(json_array_get(dl, 0), "dlq_id")));
    json_decref(dl);
    expect(http("POST", "/v1/dlq/{dlq_id}/drop", path, tok_admin, "", NULL), 200, NULL, "drop");
    expect(http("POST", "/v1/dlq/{dlq_id}/drop", path, tok_admin, "", NULL), 404, NULL, "dropped already");
    r = http("GET", "/v1/dlq", "/v1/dlq", tok_admin, NULL, NULL);
    cr_assert_eq(json_array_size(json_object_get(r.json, "dead_letters")), 0, "%s", r.body);
    resp_free(&r);
    snprintf(path, sizeof path, "/v1/submissions/%s", id);
    r = http("GET", SUB1, path, tok_read, NULL, NULL);
    cr_assert_str_eq(jstr(&r, "verdict"), "IE", "%s", r.body);
    resp_free(&r);
    check_openapi();
}

/* GET /healthz on a new connection: the status, 0 when the connection failed
 * or nothing came within timeout_s */
static long probe_healthz(long timeout_s)
{
    CURL *c = curl_easy_init();
    char url[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/healthz", api_port);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout_s);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    struct resp r = {0};
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(c);
    free(r.body);
    return rc == CURLE_OK ? status : 0;
}

Test(api, connections_beyond_max_connections_wait_their_turn)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", "  max_connections: 2\n  sse_heartbeat: 1s\n",
          false);
    int stop = 0;
    struct sse_thread st[2] = {{.s = {.stop_flag = &stop}}, {.s = {.stop_flag = &stop}}};
    for (int i = 0; i < 2; i++)
        pthread_create(&st[i].t, NULL, sse_thread_main, &st[i]);
    for (long long end = t_now_ms() + 20000; t_now_ms() < end; t_sleep_ms(20))
        if (strstr(st[0].s.buf, ": connected") && strstr(st[1].s.buf, ": connected"))
            break;
    cr_assert(strstr(st[0].s.buf, ": connected") && strstr(st[1].s.buf, ": connected"));
    /* a third connection is not served while two are open (it waits in the
     * listen backlog: libmicrohttpd stops accepting at the limit) */
    cr_assert_neq(probe_healthz(3), 200, "a third connection was served");
    __atomic_store_n(&stop, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < 2; i++)
        pthread_join(st[i].t, NULL);
    /* once they are gone, new connections are served again */
    long status = 0;
    for (long long end = t_now_ms() + 20000; t_now_ms() < end && status != 200; t_sleep_ms(50))
        status = probe_healthz(60);
    cr_assert_eq(status, 200);
}

/* Responses in what a connection received: lines starting "HTTP/1." */
static int status_lines(const char *s)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, "HTTP/1.")); p++)
        n += p == s || p[-1] == '\n';
    return n;
}

/* A raw TCP connection to judge-api from source address `from` (127.0.0.x:
 * all loopback), with `request` sent if not NULL; -1 if it failed. */
static int raw_connect(const char *from, const char *request)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in src = {.sin_family = AF_INET}, dst = {.sin_family = AF_INET};
    inet_pton(AF_INET, from, &src.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    dst.sin_port = htons((uint16_t)api_port);
    cr_assert_eq(bind(fd, (struct sockaddr *)&src, sizeof src), 0, "bind %s: %s", from, strerror(errno));
    if (connect(fd, (struct sockaddr *)&dst, sizeof dst)) {
        close(fd);
        return -1;
    }
    if (request)
        cr_assert_eq(write(fd, request, strlen(request)), (ssize_t)strlen(request));
    return fd;
}

/* What fd receives within timeout_ms, after what buf holds, until `until`
 * appears or it closes; *closed says whether it did. */
static void raw_read_more(int fd, const char *until, long timeout_ms, char *buf, size_t cap, bool *closed)
{
    size_t len = strlen(buf);
    *closed = false;
    for (long long end = t_now_ms() + timeout_ms; t_now_ms() < end && !(until && strstr(buf, until));) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) != 1)
            continue;
        ssize_t n = read(fd, buf + len, cap - 1 - len);
        if (n <= 0) {
            *closed = true;
            return;
        }
        len += (size_t)n;
        buf[len] = 0;
    }
}

static void raw_read(int fd, const char *until, long timeout_ms, char *buf, size_t cap, bool *closed)
{
    buf[0] = 0;
    raw_read_more(fd, until, timeout_ms, buf, cap, closed);
}

/* An event stream of `token` on a raw socket, once judge-api said
 * ": connected"; -1 when it answered otherwise (the answer in buf). */
static int raw_stream_q(const char *token, const char *query, const char *version, char *buf, size_t cap)
{
    char req[400];
    snprintf(req, sizeof req, "GET /v1/events%s HTTP/%s\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n",
             query, version, token);
    int fd = raw_connect("127.0.0.1", req);
    cr_assert_geq(fd, 0);
    bool closed;
    raw_read(fd, "\r\n\r\n", 20000, buf, cap, &closed);   /* the head */
    if (strncmp(buf, "HTTP/1.", 7) || strncmp(buf + 8, " 200 ", 5)) {
        cr_assert(strstr(buf, "\r\n\r\n"), "no answer: %s", buf);
        if (!strstr(strstr(buf, "\r\n\r\n"), "}\n"))
            raw_read_more(fd, "}\n", 20000, buf, cap, &closed);   /* the error document */
        close(fd);
        return -1;
    }
    if (!strstr(buf, ": connected"))
        raw_read_more(fd, ": connected", 20000, buf, cap, &closed);
    cr_assert(!closed && strstr(buf, ": connected"), "%s", buf);
    return fd;
}

static int raw_stream(const char *token, char *buf, size_t cap)
{
    return raw_stream_q(token, "", "1.1", buf, cap);
}

/* Issue 25, item 2: 520 connections from one client that each sent one
 * byte held every connection judge-api had. Now one address holds at most
 * max_connections_per_address; the rest are closed at once, and another
 * client is served. */
Test(api, one_client_address_cannot_hold_every_connection)
{
    start("  native: {languages: [c, cpp], slots: 1}\n",
          "  max_connections: 8\n  max_connections_per_address: 4\n", false);
    int fds[8], held = 0;
    for (int i = 0; i < 8; i++)
        fds[i] = raw_connect("127.0.0.1", "G");   /* one byte of a request, never more */
    /* those past the cap are closed by judge-api at once */
    for (int i = 0; i < 8; i++) {
        char buf[256];
        bool closed = fds[i] < 0;
        if (fds[i] >= 0)
            raw_read(fds[i], NULL, 1000, buf, sizeof buf, &closed);
        held += !closed;
    }
    cr_assert_eq(held, 4, "%d of 8 connections from one address held", held);
    /* another address is served while they are held */
    char req[] = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", buf[4096];
    int fd = raw_connect("127.0.0.2", req);
    cr_assert_geq(fd, 0);
    bool closed;
    raw_read(fd, "\r\n\r\n", 30000, buf, sizeof buf, &closed);
    cr_assert(strstr(buf, "HTTP/1.1 200"), "127.0.0.2 while 127.0.0.1 holds its share: %s", buf);
    close(fd);
    for (int i = 0; i < 8; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* Issue 25, item 9: requests a proxy in front could frame another way are
 * refused (400) and their connection closed; two Content-Lengths were
 * accepted, the first one winning. */
Test(api, ambiguous_request_framing_is_refused_and_the_connection_closed)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", NULL, false);
    struct {
        const char *request, *want;
    } cases[] = {
        {"POST /v1/submissions HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 40\r\n\r\n{}{}"
         "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 400"},
        {"POST /v1/submissions HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
         "0\r\n\r\n", "HTTP/1.1 400"},
        {"POST /v1/submissions HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", " 400 "},
        {"GET /healthz HTTP/1.1\r\n\r\n", "HTTP/1.1 400"},
        {"GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", "HTTP/1.1 400"},
        /* well framed: answered */
        {"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "HTTP/1.1 200"},
        {"GET /healthz HTTP/1.0\r\n\r\n", " 200 "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int fd = raw_connect("127.0.0.1", cases[i].request);
        cr_assert_geq(fd, 0);
        char buf[8192];
        bool closed;
        raw_read(fd, NULL, 20000, buf, sizeof buf, &closed);   /* until judge-api closes it */
        close(fd);
        cr_assert(closed, "case %zu: the connection stayed open: %s", i, buf);
        cr_assert(!strncmp(buf, "HTTP/1.", 7) && strstr(buf, cases[i].want), "case %zu: %s\n---\n%s", i,
                  cases[i].request, buf);
        if (strstr(cases[i].want, "400"))
            cr_assert_eq(status_lines(buf), 1, "case %zu: a second request was read from the "
                         "body: %s", i, buf);
    }
}

/* Issue 25, item 2: 512 event streams of one read token held every
 * connection, and a stream whose client left held its connection until
 * its next heartbeat. Now a token holds max_streams_per_token (429 past
 * it), and a stream ends within about a second of its client leaving:
 * with a 60 s heartbeat, the freed place is taken again well before. */
Test(api, event_streams_per_token_capped_and_freed_when_the_client_leaves)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", "  max_streams_per_token: 2\n  sse_heartbeat: 60s\n",
          false);
    char buf[8192];
    int a = raw_stream(tok_read, buf, sizeof buf), b = raw_stream(tok_read, buf, sizeof buf);
    cr_assert(a >= 0 && b >= 0, "two streams of one token: %s", buf);
    cr_assert_eq(raw_stream(tok_read, buf, sizeof buf), -1, "a third stream of the token was opened");
    cr_assert(strstr(buf, " 429 ") && strstr(buf, "max_streams_per_token"), "%s", buf);
    /* another token's streams are its own */
    int other = raw_stream(tok_admin, buf, sizeof buf);
    cr_assert_geq(other, 0, "another token: %s", buf);
    close(a);   /* the client leaves: its stream ends, not at the next heartbeat a minute away */
    int c = -1;
    for (long long end = t_now_ms() + 20000; t_now_ms() < end && c < 0; t_sleep_ms(200))
        c = raw_stream(tok_read, buf, sizeof buf);
    cr_assert_geq(c, 0, "the stream of a client that left still counts: %s", buf);
    close(b);
    close(c);
    close(other);
}

/* Issue 42: judge-api ran a thread per connection, so 1,000 open event
 * streams were 1,000 threads, all woken by every event (admissions beside
 * them waited up to 657 ms at p99). Now a stream with nothing to send is
 * suspended and holds no thread: judge-api's threads stay few with 1,000
 * streams open, it still answers at once, and SIGTERM closes every stream
 * (each client reads the end of its stream) and judge-api exits. */
Test(api, a_thousand_event_streams_hold_no_thread_and_end_at_sigterm)
{
    enum { STREAMS = 1000 };
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = rl.rlim_max;   /* a descriptor per stream here, and one in judge-api (inherited) */
    setrlimit(RLIMIT_NOFILE, &rl);
    cr_assert_geq(rl.rlim_cur, STREAMS + 200, "RLIMIT_NOFILE %llu is too low", (unsigned long long)rl.rlim_cur);
    start("  native: {languages: [c, cpp], slots: 1}\n",
          "  max_connections: 1100\n  max_connections_per_address: 1100\n  max_streams_per_token: 1100\n"
          "  sse_heartbeat: 60s\n  threads: 4\n  rate: 0\n",
          false);
    static int fds[STREAMS];
    char buf[8192];
    for (int i = 0; i < STREAMS; i++) {
        fds[i] = raw_stream(tok_read, buf, sizeof buf);
        cr_assert_geq(fds[i], 0, "stream %d: %s", i, buf);
    }
    long threads = proc_status_kb(api_pid, "Threads:");
    cr_log_info("judge-api with %d event streams open: %ld threads", STREAMS, threads);
    cr_assert_leq(threads, 64, "judge-api runs %ld threads with %d streams open", threads, STREAMS);
    struct resp r = http("GET", "/v1/whoami", "/v1/whoami", tok_submit, NULL, NULL);
    cr_assert_eq(r.status, 200, "a request beside the streams: %s", r.body);
    resp_free(&r);
    kill(api_pid, SIGTERM);
    int ended = 0;
    for (int i = 0; i < STREAMS; i++) {
        bool closed;
        buf[0] = 0;
        raw_read_more(fds[i], NULL, 30000, buf, sizeof buf, &closed);
        ended += closed;
        close(fds[i]);
    }
    cr_assert_eq(ended, STREAMS, "%d of %d streams were closed after SIGTERM", ended, STREAMS);
    int status = -1;
    cr_assert_eq(waitpid(api_pid, &status, 0), api_pid);
    t_untrack(api_pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "judge-api's exit status %d", status);
}

/* n verdict events in the native pool's results stream (a thread) */
static void *add_events(void *p)
{
    int n = (int)(long)p;
    redisContext *c = t_redis();
    for (int i = 0; i < n; i++)
        redisAppendCommand(c, "XADD judge:{native}:results * id native-%011x-%08x verdict AC score 100 pool native "
                              "time %d problem_version %064d", 1000 + i, i + 1, 1000 + i, i);
    for (int i = 0; i < n; i++) {
        redisReply *x = NULL;
        if (redisGetReply(c, (void **)&x) == REDIS_OK)
            freeReplyObject(x);
    }
    redisFree(c);
    return NULL;
}

/* A client that opens a stream and never reads again: what judge-api would
 * send it is bounded (a fixed socket send buffer and ~64 KiB of frames); once it
 * has taken nothing for three heartbeats it is dropped, and its place is
 * free again, while another stream gets every event meanwhile. (Before, it
 * held its place and a thread until libmicrohttpd's 120 s timeout.) */
Test(api, a_stream_whose_client_never_reads_is_dropped_and_others_get_every_event)
{
    enum { EVENTS = 4000 };
    start("  native: {languages: [c, cpp], slots: 1}\n", "  max_streams_per_token: 2\n  sse_heartbeat: 1s\n",
          false);
    char buf[8192];
    /* the slow client: a small receive buffer, so that judge-api's side fills soon */
    int slow = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int small = 4096;
    setsockopt(slow, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons((uint16_t)api_port)};
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    cr_assert_eq(connect(slow, (struct sockaddr *)&dst, sizeof dst), 0);
    char req[400];
    snprintf(req, sizeof req, "GET /v1/events?since=0-0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n",
             tok_read);
    cr_assert_eq(write(slow, req, strlen(req)), (ssize_t)strlen(req));
    bool closed;
    raw_read(slow, ": connected", 20000, buf, sizeof buf, &closed);
    cr_assert(strstr(buf, ": connected"), "%s", buf);
    /* from the start of the stream: events added before judge-api's hub
     * first read Redis are not "from now" on, but they are after 0-0;
     * HTTP/1.0: the body as it is, no chunks that could cut an id */
    int good = raw_stream_q(tok_read, "?since=0-0", "1.0", buf, sizeof buf);
    cr_assert_geq(good, 0, "%s", buf);
    /* ~1.5 MB of events: far more than the slow client's buffers and
     * judge-api's 512 KiB send buffer for a stream take; the
     * other client reads them as they come */
    pthread_t adder;
    pthread_create(&adder, NULL, add_events, (void *)(long)EVENTS);
    static char all[4 << 20];
    all[0] = 0;
    size_t len = 0;
    int got = 0;
    for (long long end = t_now_ms() + 60000; t_now_ms() < end && got < EVENTS;) {
        struct pollfd p = {.fd = good, .events = POLLIN};
        if (poll(&p, 1, 100) != 1)
            continue;
        ssize_t n = read(good, all + len, sizeof all - 1 - len);
        cr_assert_gt(n, 0, "the other stream ended after %d events", got);
        len += (size_t)n;
        all[len] = 0;
        got = count_events(all);
    }
    pthread_join(adder, NULL);
    for (int i = 0; got != EVENTS && i < EVENTS; i++) {   /* which, when one is missing */
        char id[64];
        snprintf(id, sizeof id, "native-%011x-%08x", 1000 + i, i + 1);
        if (!strstr(all, id))
            cr_log_error("missing: event %d (%s)", i, id);
    }
    cr_assert_eq(got, EVENTS, "the other stream got %d of %d events", got, EVENTS);
    char last[64];
    snprintf(last, sizeof last, "native-%011x-%08x", 1000 + EVENTS - 1, EVENTS);
    cr_assert(strstr(all, last), "the last event is not in the other stream");
    /* the slow one is dropped: its place is free for a new stream */
    int again = -1;
    for (long long end = t_now_ms() + 30000; t_now_ms() < end && again < 0; t_sleep_ms(200))
        again = raw_stream(tok_read, buf, sizeof buf);
    cr_assert_geq(again, 0, "the stream that never read still holds its place: %s", buf);
    close(again);
    close(good);
    close(slow);
}

/* ------------------------------------------------------- problem store */

#define PROBS "/v1/problems"
#define PROB1 "/v1/problems/{name}"

/* PUT of a file's bytes with a Content-Type; recorded like http(). */
static struct resp put_file(const char *path, const char *token, const char *file, const char *type)
{
    char *data = NULL;
    size_t len = 0;
    if (file) {
        FILE *f = fopen(file, "rb");
        cr_assert(f, "%s", file);
        fseek(f, 0, SEEK_END);
        len = (size_t)ftell(f);
        fseek(f, 0, SEEK_SET);
        data = malloc(len + 1);
        cr_assert_eq(fread(data, 1, len, f), len);
        fclose(f);
    }
    struct resp r = {0};
    CURL *c = curl_easy_init();
    char url[1024], auth[200], ct[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", api_port, path);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    snprintf(ct, sizeof ct, "Content-Type: %s", type);
    struct curl_slist *h = curl_slist_append(NULL, auth);
    h = curl_slist_append(h, ct);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, data ? data : "");
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)len);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
    CURLcode rc = curl_easy_perform(c);
    /* a body refused before it is read may end the upload early */
    cr_assert(rc == CURLE_OK || rc == CURLE_SEND_ERROR, "PUT %s: %s", path, curl_easy_strerror(rc));
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    free(data);
    r.json = json_loadb(r.body ? r.body : "", r.len, 0, NULL);
    if (nseen < 256) {
        struct seen *s = &seen[nseen++];
        snprintf(s->method, sizeof s->method, "PUT");
        snprintf(s->tmpl, sizeof s->tmpl, "%s", PROB1);
        s->status = r.status;
        s->json = r.json ? json_incref(r.json) : NULL;
    }
    return r;
}

static void sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* Does some line of the response's "errors" contain all of the words? */
static bool error_line(const struct resp *r, const char *a, const char *b)
{
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(r->json, "errors"), i, e)
        if (strstr(json_string_value(e), a) && (!b || strstr(json_string_value(e), b)))
            return true;
    return false;
}

/* An ICPC/Kattis package (as test_store's make_icpc): the default
 * validator's flags, .timelimit, data/sample and data/secret with a group. */
static void make_icpc(const char *dir, const char *yaml)
{
    sh("mkdir -p %s/%s/data/sample %s/%s/data/secret/small", T_dir, dir, T_dir, dir);
    char p[800];
    snprintf(p, sizeof p, "%s/%s/problem.yaml", T_dir, dir);
    t_write(p, "%s", yaml);
    snprintf(p, sizeof p, "%s/%s/.timelimit", T_dir, dir);
    t_write(p, "2\n");
    const char *tests[][3] = {{"sample/1", "3", "1.0"}, {"secret/small/01", "1", "0.333333"}};
    for (size_t i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s/data/%s.in", T_dir, dir, tests[i][0]);
        t_write(p, "%s\n", tests[i][1]);
        snprintf(p, sizeof p, "%s/%s/data/%s.ans", T_dir, dir, tests[i][0]);
        t_write(p, "%s\n", tests[i][2]);
    }
    sh("tar czf %s/%s.tgz -C %s %s", T_dir, dir, T_dir, dir);
}

/* An upload's body goes to a file as it arrives (issue 25): a 48 MiB
 * package raises judge-api's peak RSS by far less than its size (it grew by
 * the body's size, and more while realloc copied it, when the body was
 * collected in memory: every upload in flight cost up to max_package). */
Test(api, a_package_upload_is_not_held_in_memory, .timeout = 300)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", "max_package: 64M\n", true);
    char tok_setter[100], tar[400];
    token("setter", "setter", tok_setter);
    cr_assert(sighup_token(PROBS, tok_setter), "the setter token works after SIGHUP");
    /* plain tar of random bytes: no compression for the test to wait for */
    sh("cp -r %s/testdata/aplusb %s/bigpkg && head -c 48M /dev/urandom > %s/bigpkg/NOTES && "
       "tar cf %s/big.tar -C %s bigpkg", SRC, T_dir, T_dir, T_dir, T_dir);
    snprintf(tar, sizeof tar, "%s/big.tar", T_dir);
    long before = proc_status_kb(api_pid, "VmHWM:");
    cr_assert_gt(before, 0);
    struct resp r = put_file(PROBS "/big", tok_setter, tar, "application/x-tar");
    cr_assert_eq(r.status, 201, "%s", r.body);
    resp_free(&r);
    long after = proc_status_kb(api_pid, "VmHWM:");
#if !JUDGED_DAEMONS_UNDER_TSAN
    cr_assert_lt(after - before, 16 * 1024, "judge-api's peak RSS grew by %ld kB for a 48 MiB upload "
                 "(%ld -> %ld kB)", after - before, before, after);
#else
    /* ThreadSanitizer's shadow memory grows with every byte judge-api
     * touches: its RSS says nothing of judge-api's own */
    (void)after;
#endif
}

Test(api, problem_upload_validated_by_a_judged_host_then_judged_and_rejudged)
{
    /* max_package 1M (a top-level key after api:'s) for the size limits
     * below; aplusb is ~300K */
    start("  native: {languages: [c, cpp], slots: 1}\n", "max_package: 1M\nmax_staged: 600K\n", true);
    char tok_setter[100];
    token("setter", "setter", tok_setter);
    cr_assert(sighup_token(PROBS, tok_setter), "the setter token works after SIGHUP");

    /* tar.gz with a top-level directory: stored, a new version (201) */
    sh("tar czf %s/up.tgz -C %s/testdata aplusb", T_dir, SRC);
    struct resp r = put_file(PROBS "/up", tok_setter, NULL, "application/gzip");
    cr_assert_eq(r.status, 400, "empty body: %s", r.body);
    resp_free(&r);
    r = put_file(PROBS "/up", tok_setter, NULL, "text/plain");
    cr_assert_eq(r.status, 415, "%s", r.body);
    resp_free(&r);
    char tgz[400], v1[65], v2[65];

    /* a file 500 directories deep (issue 25, item 1): refused naming the
     * entry, and judge-api lives on (a recursive walk crashed it) */
    sh("cd %s && mkdir deep && cd deep && p=$(printf 'd/%%.0s' $(seq 499)) && mkdir -p \"$p\" && "
       "echo x > \"${p}f\" && cd .. && tar czf deep.tgz deep", T_dir);
    snprintf(tgz, sizeof tgz, "%s/deep.tgz", T_dir);
    r = put_file(PROBS "/deep", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 400, "%s", r.body);
    cr_assert(r.body && strstr(r.body, "more than 64 directory levels deep"), "%s", r.body);
    resp_free(&r);
    r = http("GET", PROBS, PROBS, tok_setter, NULL, NULL);
    cr_assert_eq(r.status, 200, "judge-api answers after the deep archive: %s", r.body);
    resp_free(&r);

    snprintf(tgz, sizeof tgz, "%s/up.tgz", T_dir);
    r = put_file(PROBS "/up", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "result"), "new");
    cr_assert_str_eq(jstr(&r, "state"), "stored");
    snprintf(v1, sizeof v1, "%s", jstr(&r, "version"));
    char loc[200];
    cr_assert(header(&r, "Location", loc, sizeof loc), "an upload has a Location");
    resp_free(&r);
    /* its record: validated by judged host A */
    r = http("GET", "/v1/uploads/{id}", loc, tok_setter, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "state"), "stored");
    cr_assert_str_eq(jstr(&r, "host"), "A");
    cr_assert_str_eq(jstr(&r, "owner"), "setter");
    resp_free(&r);
    expect(http("GET", "/v1/uploads/{id}", loc, tok_read, NULL, NULL), 403, NULL, "uploads need setter");
    expect(http("GET", "/v1/uploads/{id}", "/v1/uploads/0123456789abcdef0123456789abcdef", tok_setter, NULL, NULL),
           404, NULL, "unknown upload");
    /* the same content as a zip (no top-level directory): the same version, nothing new */
    char zip[400];
    snprintf(zip, sizeof zip, "%s/up.zip", T_dir);
    sh("cd %s/testdata/aplusb && zip -qr %s .", SRC, zip);
    r = put_file(PROBS "/up", tok_setter, zip, "application/zip");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "version"), v1);
    cr_assert_str_eq(jstr(&r, "result"), "unchanged");
    resp_free(&r);
    /* changed content as a zip: a second version, current */
    sh("cp -r %s/testdata/aplusb %s/up2 && echo note > %s/up2/NOTES && cd %s/up2 && zip -qr %s/up2.zip .",
       SRC, T_dir, T_dir, T_dir, T_dir);
    snprintf(zip, sizeof zip, "%s/up2.zip", T_dir);
    r = put_file(PROBS "/up", tok_setter, zip, "application/zip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    snprintf(v2, sizeof v2, "%s", jstr(&r, "version"));
    cr_assert_str_neq(v1, v2);
    resp_free(&r);

    /* refused: every error as FILE:LINE: KEY: message, nothing stored */
    sh("mkdir -p %s/bad/tests && printf 'name: bad\\ntime_limit: forever\\nmemory_limit: lots\\n' > %s/bad/problem.yaml"
       " && echo 1 > %s/bad/tests/1.in && tar czf %s/bad.tgz -C %s/bad .", T_dir, T_dir, T_dir, T_dir, T_dir);
    snprintf(tgz, sizeof tgz, "%s/bad.tgz", T_dir);
    r = put_file(PROBS "/bad", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 422, "%s", r.body);
    cr_assert(error_line(&r, "problem.yaml:2: time_limit", NULL), "%s", r.body);
    cr_assert(error_line(&r, "problem.yaml:3: memory_limit", NULL), "%s", r.body);
    cr_assert(!strstr(r.body, T_dir), "temporary paths leak into errors: %s", r.body);
    resp_free(&r);
    /* a custom checker that does not compile (only a judged host can tell) */
    sh("cp -r %s/testdata/aplusb %s/badchk && chmod -R u+w %s/badchk && "
       "printf 'name: badchk\\ntime_limit: 1s\\nmemory_limit: 256M\\nchecker: {type: custom, source: chk.cpp}\\n'"
       " > %s/badchk/problem.yaml && echo 'this is not C++' > %s/badchk/chk.cpp && tar czf %s/badchk.tgz -C %s badchk",
       SRC, T_dir, T_dir, T_dir, T_dir, T_dir, T_dir);
    snprintf(tgz, sizeof tgz, "%s/badchk.tgz", T_dir);
    r = put_file(PROBS "/badchk", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 422, "%s", r.body);
    cr_assert(error_line(&r, "problem.yaml:4: checker", NULL), "%s", r.body);
    resp_free(&r);
    /* its blobs were sent before a host could refuse it (chk.cpp is in no
     * version): issue 40, they stayed a week (two uploads of zeros staged
     * 500 MiB); now they go when it is refused. What stored versions list
     * stays */
    const char chk_cpp[] = "this is not C++\n";
    unsigned char md[32];
    unsigned mdlen = 0;
    EVP_Digest(chk_cpp, strlen(chk_cpp), md, &mdlen, EVP_sha256(), NULL);
    char chk[120] = "judge:blob:";
    for (unsigned i = 0; i < mdlen; i++)
        snprintf(chk + strlen(chk), 3, "%02x", md[i]);
    struct t_blobs blobs = t_blob_census();
    cr_assert_eq(t_int("EXISTS %s", chk), 0, "the refused checker's blob is gone");
    cr_assert_eq(blobs.unreferenced, 0, "a refused upload leaves no blob (%d left)", blobs.unreferenced);
    cr_assert(blobs.referenced > 0 && blobs.referenced_expiring == 0, "stored versions' blobs stay");
    cr_assert_eq(blobs.parts, 0, "no staging keys left");
    /* ICPC/Kattis archives are converted as judgectl problem push does */
    make_icpc("third", "name: One Third\nvalidation: default\n"
                       "validator_flags: float_absolute_tolerance 1e-3\nlimits:\n  memory: 256\n");
    snprintf(tgz, sizeof tgz, "%s/third.tgz", T_dir);
    r = put_file(PROBS "/third", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    char v_third[65];
    snprintf(v_third, sizeof v_third, "%s", jstr(&r, "version"));
    resp_free(&r);
    r = http("GET", PROB1, PROBS "/third", tok_setter, NULL, NULL);
    cr_assert(r.body && strstr(r.body, "problem.icpc.yaml") && strstr(r.body, "data/secret/small/01.ans"), "%s",
              r.body);
    resp_free(&r);
    /* one that gives no time limit: stored, and the answer says what was assumed */
    make_icpc("notl", "name: No Limit\n");
    sh("rm %s/notl/.timelimit && tar czf %s/notl.tgz -C %s notl", T_dir, T_dir, T_dir);
    snprintf(tgz, sizeof tgz, "%s/notl.tgz", T_dir);
    r = put_file(PROBS "/notl", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    cr_assert(strstr(r.body, "time_limit: warning: the package gives no time limit") && strstr(r.body, "assumed 5 s"),
              "%s", r.body);
    resp_free(&r);
    /* a Polygon package as its Package tab gives it (a zip of the package's
     * root): converted as push does, its testlib checker compiled by host A,
     * the answer saying what was ignored (issue 23) */
    snprintf(zip, sizeof zip, "%s/sumgroups.zip", T_dir);
    sh("cd %s/tests/judged/polygon/sumgroups && zip -qr %s .", SRC, zip);
    r = put_file(PROBS "/sumgroups", tok_setter, zip, "application/zip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    cr_assert(strstr(r.body, "problem.xml:38: judging/testset: warning: testset 'pretests' ignored"), "%s", r.body);
    resp_free(&r);
    r = http("GET", PROB1, PROBS "/sumgroups", tok_setter, NULL, NULL);
    cr_assert(r.body && strstr(r.body, "problem.xml") && strstr(r.body, "submissions/submissions.yaml"), "%s", r.body);
    resp_free(&r);
    make_icpc("broken", "name: Broken\nvalidation: bogus\n");
    snprintf(tgz, sizeof tgz, "%s/broken.tgz", T_dir);
    r = put_file(PROBS "/broken", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 422, "%s", r.body);
    cr_assert(error_line(&r, "problem.yaml:2: validation", NULL), "%s", r.body);
    cr_assert(!strstr(r.body, T_dir), "temporary paths leak into errors: %s", r.body);
    resp_free(&r);
    /* hostile archives: '..', absolute paths, links - refused naming the entry */
    sh("cd %s && python3 -c \"import tarfile,io\n"
       "for n,k in (('dots.tgz','../evil'),('abs.tgz','/tmp/evil'),('link.tgz','l')):\n"
       "  t=tarfile.open(n,'w:gz'); i=tarfile.TarInfo(k)\n"
       "  if k=='l': i.type=tarfile.SYMTYPE; i.linkname='/etc/passwd'; t.addfile(i)\n"
       "  else: i.size=1; t.addfile(i, io.BytesIO(b'x'))\n"
       "  t.close()\"", T_dir);
    const char *hostile[] = {"dots.tgz", "abs.tgz", "link.tgz"};
    for (int i = 0; i < 3; i++) {
        snprintf(tgz, sizeof tgz, "%s/%s", T_dir, hostile[i]);
        r = put_file(PROBS "/evil", tok_setter, tgz, "application/gzip");
        cr_assert_eq(r.status, 400, "%s: %s", hostile[i], r.body);
        cr_assert(error_line(&r, "entry", NULL), "%s: %s", hostile[i], r.body);
        resp_free(&r);
    }
    /* links inside (issue 22): aplusb with tests/ a directory link to data/
     * and a 21st test of file links; stored as ordinary files, judged below */
    sh("cp -r %s/testdata/aplusb %s/lnk && chmod -R u+w %s/lnk && cd %s/lnk && rm -rf solutions && mv tests data && "
       "ln -s data tests && ln -s 1.in data/21.in && ln -s ../tests/1.out data/21.out && cd .. && "
       "tar czf lnk.tgz lnk", SRC, T_dir, T_dir, T_dir);
    snprintf(tgz, sizeof tgz, "%s/lnk.tgz", T_dir);
    r = put_file(PROBS "/lnk", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    resp_free(&r);
    r = http("GET", PROB1, PROBS "/lnk", tok_setter, NULL, NULL);
    cr_assert(r.body && strstr(r.body, "\"tests/21.in\"") && strstr(r.body, "\"data/21.out\""), "%s", r.body);
    resp_free(&r);
    /* a relative link leaving the package: refused naming it */
    sh("cd %s && python3 -c \"import tarfile,io\n"
       "t=tarfile.open('out.tgz','w:gz'); i=tarfile.TarInfo('p/problem.yaml'); i.size=1; t.addfile(i, io.BytesIO(b'x'))\n"
       "i=tarfile.TarInfo('p/tests/1.in'); i.type=tarfile.SYMTYPE; i.linkname='../../../etc/passwd'; t.addfile(i)\n"
       "t.close()\"", T_dir);
    snprintf(tgz, sizeof tgz, "%s/out.tgz", T_dir);
    r = put_file(PROBS "/out", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 400, "%s", r.body);
    cr_assert(error_line(&r, "entry 'tests/1.in': a symbolic link to '../../../etc/passwd', which leaves the package",
                         NULL), "%s", r.body);
    resp_free(&r);
    /* a zip bomb: 8 MiB of zeros in a few KiB expands past max_package */
    sh("cd %s && head -c 8388608 /dev/zero > zeros && zip -q bomb.zip zeros && rm zeros", T_dir);
    snprintf(zip, sizeof zip, "%s/bomb.zip", T_dir);
    r = put_file(PROBS "/bomb", tok_setter, zip, "application/zip");
    cr_assert_eq(r.status, 413, "%s", r.body);
    resp_free(&r);
    /* issue 40: what waits for a host is staged in Redis' memory. A
     * package of zeros (a small body) that unpacks past max_staged (600K,
     * under max_package) is refused naming it, and nothing is staged */
    struct t_blobs before_staged = t_blob_census();
    sh("cp -r %s/testdata/aplusb %s/zeros && chmod -R u+w %s/zeros && head -c 700000 /dev/zero > %s/zeros/NOTES && "
       "tar czf %s/zeros.tgz -C %s zeros", SRC, T_dir, T_dir, T_dir, T_dir, T_dir);
    snprintf(tgz, sizeof tgz, "%s/zeros.tgz", T_dir);
    r = put_file(PROBS "/zeros", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 413, "%s", r.body);
    cr_assert(jstr(&r, "field") && !strcmp(jstr(&r, "field"), "body") && strstr(r.body, "max_staged"), "%s", r.body);
    resp_free(&r);
    struct t_blobs after_staged = t_blob_census();
    cr_assert_eq(after_staged.unreferenced, before_staged.unreferenced, "a refused upload staged blobs");
    cr_assert_eq(after_staged.referenced, before_staged.referenced);
    cr_assert_eq(t_int("LLEN %s", "judge:uploads"), 0, "nothing waits for a host");
    /* a body over max_package: 413 before it is read */
    sh("head -c 2000000 /dev/urandom > %s/big.bin", T_dir);
    snprintf(zip, sizeof zip, "%s/big.bin", T_dir);
    r = put_file(PROBS "/big", tok_setter, zip, "application/zip");
    cr_assert_eq(r.status, 413, "%s", r.body);
    resp_free(&r);
    /* roles */
    snprintf(tgz, sizeof tgz, "%s/up.tgz", T_dir);
    r = put_file(PROBS "/up", tok_submit, tgz, "application/gzip");
    cr_assert_eq(r.status, 403, "%s", r.body);
    resp_free(&r);
    /* what a submission may name: the store's problems, then the hosts'
     * directory's (aplusb), for a submit token too (issue 28) */
    r = http("GET", PROBS, PROBS, tok_submit, NULL, NULL);
    cr_assert_eq(r.status, 200, "a submit token lists what it may submit to: %s", r.body);
    bool aplusb = false;
    size_t pi;
    json_t *pe;
    json_array_foreach(json_object_get(r.json, "problems"), pi, pe)
        aplusb |= !strcmp(json_string_value(json_object_get(pe, "name")), "aplusb") &&
                  !strcmp(json_string_value(json_object_get(pe, "source")), "directory") &&
                  json_is_null(json_object_get(pe, "current"));
    cr_assert(aplusb, "the directory's aplusb is listed: %s", r.body);
    resp_free(&r);
    expect(http("DELETE", PROB1, PROBS "/up?version=0", tok_read, NULL, NULL), 403, NULL, "read cannot remove");

    /* list, show, versions */
    r = http("GET", PROBS, PROBS, tok_read, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *ps = json_object_get(r.json, "problems");
    size_t stored = 0;
    json_array_foreach(ps, pi, pe) stored += !strcmp(json_string_value(json_object_get(pe, "source")), "store");
    cr_assert_eq(stored, 5, "only 'lnk', 'notl', 'sumgroups', 'third' and 'up' were stored: %s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(ps, 4), "name")), "up");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(ps, 4), "current")), v2);
    resp_free(&r);
    r = http("GET", PROB1, PROBS "/up", tok_setter, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "current"), v2);
    cr_assert_eq(json_array_size(json_object_get(r.json, "versions")), 2);
    cr_assert(json_array_size(json_object_get(r.json, "files")) > 40, "%s", r.body);
    resp_free(&r);
    /* a read token sees the versions, not the files' hashes (issue 25, item
     * 10: a small hidden answer was recovered from its SHA-256) */
    r = http("GET", PROB1, PROBS "/up", tok_read, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "current"), v2);
    cr_assert_null(json_object_get(r.json, "files"), "%s", r.body);
    cr_assert_null(strstr(r.body, "sha256"), "%s", r.body);
    resp_free(&r);
    r = http("GET", PROB1 "/versions", PROBS "/up/versions", tok_setter, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(json_object_get(r.json, "versions"), 1),
                                                       "version")), v1);
    resp_free(&r);
    expect(http("GET", PROB1, PROBS "/nope", tok_setter, NULL, NULL), 404, NULL, "unknown problem");

    /* a submission is judged with the uploaded version, and says so */
    char *b = sub_body("up", "c", AC_C, NULL);
    r = http("POST", SUBS, SUBS, tok_submit, b, NULL);
    free(b);
    cr_assert_eq(r.status, 202, "%s", r.body);
    char id[200], path[300];
    snprintf(id, sizeof id, "%s", jstr(&r, "id"));
    resp_free(&r);
    snprintf(path, sizeof path, "/v1/submissions/%s?wait=30", id);
    for (int i = 0; i < 8; i++) {
        r = http("GET", SUB1, path, tok_submit, NULL, NULL);
        if (jstr(&r, "state") && !strcmp(jstr(&r, "state"), "done"))
            break;
        resp_free(&r);
        r.json = NULL;
    }
    cr_assert(r.json && !strcmp(jstr(&r, "state"), "done"), "not judged");
    cr_assert_str_eq(jstr(&r, "verdict"), "AC", "%s", r.body);
    cr_assert_str_eq(jstr(&r, "problem_version"), v2, "%s", r.body);
    resp_free(&r);
    /* and one with the package uploaded with links: 21 tests, the last the linked one */
    b = sub_body("lnk", "c", AC_C, NULL);
    r = http("POST", SUBS, SUBS, tok_submit, b, NULL);
    free(b);
    cr_assert_eq(r.status, 202, "%s", r.body);
    snprintf(id, sizeof id, "%s", jstr(&r, "id"));
    resp_free(&r);
    snprintf(path, sizeof path, "/v1/submissions/%s?wait=30", id);
    for (int i = 0; i < 8; i++) {
        r = http("GET", SUB1, path, tok_submit, NULL, NULL);
        if (jstr(&r, "state") && !strcmp(jstr(&r, "state"), "done"))
            break;
        resp_free(&r);
        r.json = NULL;
    }
    cr_assert(r.json && !strcmp(jstr(&r, "state"), "done"), "not judged");
    cr_assert_str_eq(jstr(&r, "verdict"), "AC", "%s", r.body);
    cr_assert(strstr(r.body, "\"name\":\"21\""), "the linked test was judged: %s", r.body);
    resp_free(&r);

    /* remove: the current version cannot go, v1 can */
    expect(http("DELETE", PROB1, PROBS "/up", tok_setter, NULL, NULL), 400, "version", "no version");
    snprintf(path, sizeof path, PROBS "/up?version=%s", v2);
    expect(http("DELETE", PROB1, path, tok_setter, NULL, NULL), 409, "version", "the current version");
    snprintf(path, sizeof path, PROBS "/up?version=%s", v1);
    expect(http("DELETE", PROB1, path, tok_setter, NULL, NULL), 200, NULL, "remove v1");
    expect(http("DELETE", PROB1, path, tok_setter, NULL, NULL), 404, "version", "v1 is gone");

    /* rejudge over HTTP: the same function as judgectl rejudge */
    expect(http("POST", "/v1/rejudges", "/v1/rejudges", tok_submit, "{\"problem\":\"up\"}", NULL), 403, NULL,
           "submit cannot rejudge");
    expect(http("POST", "/v1/rejudges", "/v1/rejudges", tok_setter, "{}", NULL), 400, "problem", "nothing named");
    /* a misspelt filter is refused, not dropped (it would widen the rejudge) */
    expect(http("POST", "/v1/rejudges", "/v1/rejudges", tok_setter, "{\"problem\":\"up\",\"verdict\":[\"WA\"]}",
                NULL), 400, "verdict", "unknown field");
    expect(http("POST", "/v1/rejudges", "/v1/rejudges", tok_setter, "{\"problem\":\"up\",\"verdicts\":7}", NULL),
           400, "verdicts", "bad verdicts");
    r = http("POST", "/v1/rejudges", "/v1/rejudges", tok_setter, "{\"problem\":\"up\",\"dry_run\":true}", NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_eq(json_integer_value(json_object_get(r.json, "matched")), 1, "%s", r.body);
    cr_assert_eq(json_integer_value(json_object_get(r.json, "queued")), 0, "%s", r.body);
    resp_free(&r);
    char rb[400];
    /* a setter's dry run of any ids does not read their verdicts (issue 25,
     * item 10); the admin (who reads everything) sees them */
    snprintf(rb, sizeof rb, "{\"submissions\":[\"%s\"],\"dry_run\":true}", id);
    r = http("POST", "/v1/rejudges", "/v1/rejudges", tok_setter, rb, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *item = json_array_get(json_object_get(r.json, "submissions"), 0);
    cr_assert(item && json_is_null(json_object_get(item, "verdict")) &&
                  json_is_null(json_object_get(item, "problem")) && !strstr(r.body, "\"AC\""), "%s", r.body);
    resp_free(&r);
    r = http("POST", "/v1/rejudges", "/v1/rejudges", tok_admin, rb, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert(strstr(r.body, "\"verdict\":\"AC\""), "%s", r.body);
    resp_free(&r);
    /* issue 40: another problem's version was accepted and the submission
     * queued against its package; refused, naming the field, nothing queued */
    snprintf(rb, sizeof rb, "{\"submissions\":[\"%s\"],\"version\":\"%s\"}", id, v_third);
    r = http("POST", "/v1/rejudges", "/v1/rejudges", tok_setter, rb, NULL);
    cr_assert_eq(r.status, 400, "another problem's version: %s", r.body);
    cr_assert(jstr(&r, "field") && !strcmp(jstr(&r, "field"), "version") && strstr(r.body, id), "%s", r.body);
    resp_free(&r);
    snprintf(rb, sizeof rb, "{\"problem\":\"up\",\"version\":\"%s\",\"dry_run\":true}", v_third);
    expect(http("POST", "/v1/rejudges", "/v1/rejudges", tok_setter, rb, NULL), 400, "version",
           "another problem's version, by problem");
    char *still = t_hget(id, "rejudge");
    cr_assert(!still, "a refused rejudge queued %s: %s", id, still);
    snprintf(rb, sizeof rb, "{\"submissions\":[\"%s\"]}", id);
    r = http("POST", "/v1/rejudges", "/v1/rejudges", tok_setter, rb, NULL);
    cr_assert_eq(r.status, 202, "%s", r.body);
    cr_assert_eq(json_integer_value(json_object_get(r.json, "queued")), 1, "%s", r.body);
    char rid[64];
    snprintf(rid, sizeof rid, "%s", jstr(&r, "id"));
    resp_free(&r);
    bool again = false;
    for (long long end = t_now_ms() + 60000; t_now_ms() < end && !again; t_sleep_ms(100)) {
        char *st = t_hget(id, "state"), *rj = t_hget(id, "rejudge");
        again = st && rj && !strcmp(st, "done") && !strcmp(rj, rid);
        free(st);
        free(rj);
    }
    cr_assert(again, "the rejudge %s of %s did not finish", rid, id);
    char *pv = t_hget(id, "verdict");
    cr_assert_str_eq(pv, "AC");
    free(pv);
    check_openapi();
}

/* The router's answers no other test pins: each route with a method it does
 * not take (405; in administration 403 first), paths that are no route (404
 * before any token outside /v1/ and /metrics, else after it), each route's
 * role and the words of its 403, slashes and percent-encoding. Written
 * against the router of character offsets before the route table replaced
 * it (issue 24): the table keeps every answer, quirks included. */
Test(api, every_route_refuses_other_methods_unknown_paths_and_other_roles_as_before)
{
    start("  native: {languages: [c], slots: 1}\n", NULL, false);
    char tok_setter[100];
    token("author", "setter", tok_setter);
    kill(api_pid, SIGHUP);   /* the tokens file is read again */
    long st = 0;
    for (long long end = t_now_ms() + 20000; t_now_ms() < end && st != 200; t_sleep_ms(100)) {
        struct resp r = http("GET", "/v1/problems", "/v1/problems", tok_setter, NULL, NULL);
        st = r.status;
        resp_free(&r);
    }
    cr_assert_eq(st, 200, "the setter token added after the start is not read");
    const char *S = tok_submit, *R = tok_read, *T = tok_setter, *A = tok_admin, *V = tok_viewer;
    const struct {
        const char *method, *path, *token;
        long status;
        const char *says;   /* in the body; NULL: not checked */
    } c[] = {
        /* no route: 404 before any token outside /v1/ and /metrics */
        {"GET", "/nope", NULL, 404, "no such resource /nope"},
        {"GET", "/v1", NULL, 404, "no such resource"},
        {"GET", "/metrics/", NULL, 404, "no such resource"},
        {"POST", "/healthz", NULL, 404, "no such resource"},   /* public routes never answer 405 */
        {"GET", "/static/a/b", NULL, 404, "no such file"},
        /* ... under /v1/ after the token (401, then 404) */
        {"GET", "/v1/nope", NULL, 401, "missing bearer token"},
        {"GET", "/v1/nope", R, 404, "no such resource /v1/nope"},
        {"POST", "/v1/openapi.yaml", R, 404, "no such resource"},
        {"GET", "/v1/events/", R, 404, "no such resource"},
        {"GET", "/v1/submissionsx", R, 404, "no such resource"},
        {"GET", "/v1/submissions/a/b/c/d", R, 404, "no such resource"},
        {"GET", "/v1/problems/a/b", R, 404, "no such resource"},
        {"PUT", "/v1/problems/a/b/c/d", A, 404, "no such resource"},
        {"GET", "/v1/uploads", A, 404, "no such resource"},
        {"GET", "/v1/pools/native", A, 404, "no such resource"},
        {"GET", "/v1/hosts/", A, 404, "no such resource"},
        {"GET", "/v1/hostsx", R, 404, "no such resource"},
        {"GET", "/v1//pools", A, 404, "no such resource"},   /* a route's fixed part is exact */
        /* 405: each route with a method it does not take; HEAD is GET's only
         * on the public routes and /metrics; no Allow header */
        {"GET", "/v1/submissions", S, 200, "\"submissions\""},   /* the list (issue 28) */
        {"PUT", "/v1/submissions", S, 405, "method PUT not allowed on /v1/submissions"},
        {"POST", "/v1/submissions/x", R, 405, "method POST not allowed"},
        {"DELETE", "/v1/submissions/x/events", R, 405, NULL},
        {"POST", "/v1/events", R, 405, NULL},
        {"POST", "/v1/problems", R, 405, NULL},
        {"HEAD", "/v1/problems/x", R, 405, NULL},
        {"POST", "/v1/problems/x/versions", R, 405, NULL},
        {"PUT", "/v1/problems", A, 405, NULL},
        {"PUT", "/v1/problems/", A, 405, NULL},
        {"PUT", "/v1/problems/x/versions", A, 405, NULL},
        {"POST", "/v1/uploads/x", A, 405, NULL},
        {"GET", "/v1/rejudges", A, 405, NULL},
        {"POST", "/v1/languages", R, 405, NULL},
        {"HEAD", "/v1/languages", R, 405, NULL},
        {"POST", "/metrics", R, 405, NULL},
        {"PUT", "/v1/webhooks/dlq", A, 405, NULL},
        {"GET", "/v1/webhooks/dlq/x/replay", A, 405, NULL},
        {"POST", "/v1/pools", A, 405, NULL},
        {"GET", "/v1/pools/native/pause", A, 405, NULL},
        {"DELETE", "/v1/hosts", A, 405, NULL},
        {"POST", "/v1/dlq", A, 405, NULL},
        {"GET", "/v1/dlq/native:1-0/drop", A, 405, NULL},
        /* outside administration the method comes before the role */
        {"POST", "/v1/events", S, 405, NULL},
        {"POST", "/metrics", S, 405, NULL},
        {"GET", "/v1/rejudges", S, 405, NULL},
        {"POST", "/v1/submissions/x/y/z", R, 405, NULL},
        /* administration: the role before anything else, so that a token
         * without admin learns no path or method of it */
        {"GET", "/v1/pools", R, 403, "token 'viewer' lacks the role admin or viewer for administration"},
        {"DELETE", "/v1/pools/native/pause", R, 403, "lacks the role admin for administration"},
        {"GET", "/v1/pools/native", T, 403, "lacks the role admin for administration"},
        {"GET", "/v1/dlq/", S, 403, "lacks the role admin for administration"},
        {"GET", "/v1/webhooks/dlq", R, 403, "lacks the role admin or viewer for administration"},
        {"GET", "/v1/webhooks/dlqx", R, 403, "lacks the role admin"},   /* its area is a raw prefix */
        {"GET", "/v1/webhooks/dlqx", A, 404, "no such resource"},
        /* each other route's role, in its own words */
        {"POST", "/v1/submissions", R, 403, "lacks the role submit for submitting"},
        {"GET", "/v1/submissions/x", T, 403, "lacks the role submit, read or viewer for reading submissions"},
        {"GET", "/v1/submissions/x/events", T, 403, "lacks the role submit, read or viewer for reading submissions"},
        {"GET", "/v1/submissions/x/y/z", T, 403, "reading submissions"},   /* then 404 */
        {"GET", "/v1/events", S, 403, "may follow only its own submissions: GET /v1/events?mine=1"},
        {"GET", "/v1/problems", S, 200, "\"problems\""},
        {"GET", "/v1/problems/x/versions", S, 403, "reading the problem store"},
        {"PUT", "/v1/problems/x", R, 403, "lacks the role setter for uploading problems"},
        /* an upload's token and role are checked before its body, before routing */
        {"PUT", "/v1/problems/x/versions", R, 403, "uploading problems"},
        {"PUT", "/v1/problems/x", NULL, 401, "missing bearer token"},
        {"DELETE", "/v1/problems/x", R, 403, "lacks the role setter for removing versions"},
        {"GET", "/v1/uploads/x", R, 403, "lacks the role setter for uploads"},
        {"POST", "/v1/rejudges", R, 403, "lacks the role setter for rejudges"},
        {"GET", "/metrics", S, 403, "lacks the role read or viewer for metrics"},
        /* a viewer reads what the admin's dashboard shows and changes
         * nothing: every write is 403, in administration too */
        {"GET", "/v1/pools", V, 200, "\"pools\""},
        {"GET", "/v1/pools/native/history", V, 200, "\"buckets\""},
        {"GET", "/v1/pools/native/history", R, 403, "lacks the role admin"},
        {"GET", "/v1/pools/native/history", S, 403, "lacks the role admin"},
        {"GET", "/v1/pools/nosuch/history", V, 404, "no pool 'nosuch'"},
        {"GET", "/v1/pools/native/history?since=x", V, 400, "since must be a time"},
        {"GET", "/v1/hosts", V, 200, "\"hosts\""},
        {"GET", "/v1/dlq", V, 200, "\"dead_letters\""},
        {"GET", "/v1/webhooks/dlq", V, 200, "\"dead_letters\""},
        {"GET", "/v1/submissions", V, 200, "\"submissions\""},
        {"GET", "/v1/submissions/x", V, 404, "no submission 'x'"},
        {"GET", "/v1/problems", V, 200, "\"problems\""},
        {"GET", "/v1/languages", V, 200, "\"languages\""},
        {"GET", "/metrics", V, 200, "judged_redis_up 1"},
        {"POST", "/v1/pools/native/pause", V, 403, "token 'watch' lacks the role admin for administration"},
        {"POST", "/v1/pools/native/drain", V, 403, "lacks the role admin for administration"},
        {"POST", "/v1/dlq/native:1-0/requeue", V, 403, "lacks the role admin for administration"},
        {"POST", "/v1/dlq/native:1-0/drop", V, 403, "lacks the role admin for administration"},
        {"POST", "/v1/webhooks/dlq/native:1-0/replay", V, 403, "lacks the role admin"},
        {"POST", "/v1/submissions", V, 403, "lacks the role submit for submitting"},
        {"POST", "/v1/submissions/batch", V, 403, "lacks the role submit for submitting"},
        {"PUT", "/v1/problems/x", V, 403, "lacks the role setter for uploading problems"},
        {"DELETE", "/v1/problems/x", V, 403, "lacks the role setter for removing versions"},
        {"POST", "/v1/rejudges", V, 403, "lacks the role setter for rejudges"},
        {"GET", "/v1/uploads/x", V, 403, "lacks the role setter for uploads"},
        /* slashes: doubled and trailing ones after a route's fixed part are
         * one; /v1/submissions and /v1/problems take trailing ones too */
        {"GET", "/v1/problems/", R, 200, "\"problems\""},
        {"GET", "/v1/submissions//x/", R, 404, "no submission 'x'"},
        {"GET", "/v1/submissions/x/y", R, 404, "no such resource"},
        {"POST", "/v1/pools//nosuch//pause/", A, 404, "no pool 'nosuch'"},
        {"POST", "/v1/dlq/native:1-0/other", A, 404, "no action 'other'"},
        {"GET", "/v1/%70ools", A, 200, "\"pools\""},   /* decoded before routing */
        /* a query parameter the route does not read is refused, named (issue 28) */
        {"GET", "/v1/languages?x=1", S, 400, "unknown query parameter 'x': /v1/languages takes none"},
        {"POST", "/v1/submissions?wait=true", S, 400, "unknown query parameter 'wait'"},
        {"GET", "/v1/submissions/x?base64_encoded=true", R, 400, "'base64_encoded': /v1/submissions/{id} takes wait"},
        {"GET", "/?v=2", NULL, 200, NULL},   /* the dashboard's files take any */
        /* public: GET and HEAD */
        {"HEAD", "/healthz", NULL, 200, NULL},
        {"HEAD", "/v1/openapi.yaml", NULL, 200, NULL},
        {"HEAD", "/metrics", R, 200, NULL},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        struct resp r = http(c[i].method, "-", c[i].path, c[i].token, NULL, NULL);
        cr_expect_eq(r.status, c[i].status, "%s %s: expected %ld, got %ld: %s", c[i].method, c[i].path,
                     c[i].status, r.status, r.body ? r.body : "");
        cr_expect(!c[i].says || (r.body && strstr(r.body, c[i].says)), "%s %s: expected '%s' in %s",
                  c[i].method, c[i].path, c[i].says, r.body ? r.body : "(nothing)");
        char allow[200];
        cr_expect(!header(&r, "Allow", allow, sizeof allow), "%s %s: an Allow header (%s)", c[i].method,
                  c[i].path, allow);
        resp_free(&r);
    }
}

/* GET /v1/problems with TOKEN; the entry of NAME (a new reference) or NULL. */
static json_t *listed_problem(const char *token, const char *name)
{
    struct resp r = http("GET", PROBS, PROBS, token, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *found = NULL, *pe;
    size_t i;
    json_array_foreach(json_object_get(r.json, "problems"), i, pe)
        if (!strcmp(json_string_value(json_object_get(pe, "name")), name))
            found = json_incref(pe);
    resp_free(&r);
    return found;
}

static const char *sum_str(json_t *p, const char *k)
{
    return json_string_value(json_object_get(json_object_get(p, "summary"), k));
}

static double sum_num(json_t *p, const char *k)
{
    return json_number_value(json_object_get(json_object_get(p, "summary"), k));
}

/* Until NAME's summary is an object (a host publishes the directory's at
 * its start and reload): the entry. */
static json_t *summary_published(const char *token, const char *name)
{
    json_t *p = NULL;
    for (long long end = t_now_ms() + 30000; t_now_ms() < end; t_sleep_ms(200)) {
        json_decref(p);
        p = listed_problem(token, name);
        if (json_is_object(json_object_get(p, "summary")))
            return p;
    }
    cr_assert_fail("no summary of '%s' was published: %s", name, p ? json_dumps(p, 0) : "not listed");
    return NULL;
}

/* Issue 28: every problem a submission may name, with what a platform
 * shows of it (title, type, scoring, limits, the languages it allows),
 * for read and submit tokens alike: the store's, recorded by the host
 * that validated each upload (a replaced version shows the new one's), and
 * the hosts' problems directory's, as the hosts published them (a problem
 * added there shows its summary once a host has read it again). */
Test(api, problems_list_title_type_limits_and_languages, .timeout = 400)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", "max_package: 16M\n", false);
    pid_t host = t_judged(cfg_path, "A");
    cr_assert(t_judged_started("A", 30000), "judged did not start");
    char tok_setter[100], tgz[400];
    token("setter", "setter", tok_setter);
    cr_assert(sighup_token(PROBS, tok_setter), "the setter token works after SIGHUP");

    /* the directory's, from the host's runner (judge-api reads no problem.yaml) */
    json_t *p = summary_published(tok_submit, "aplusb");
    cr_assert_str_eq(json_string_value(json_object_get(p, "source")), "directory");
    cr_assert_str_eq(sum_str(p, "title"), "A plus B");
    cr_assert_str_eq(sum_str(p, "type"), "batch");
    cr_assert_str_eq(sum_str(p, "scoring"), "pass-fail");
    cr_assert_eq(sum_num(p, "time_limit"), 1.0);
    cr_assert_eq(sum_num(p, "memory_limit"), 64 << 20);
    cr_assert_eq(sum_num(p, "output_limit"), 1 << 20);
    cr_assert(json_is_null(json_object_get(json_object_get(p, "summary"), "languages")), "any language");
    json_decref(p);
    p = listed_problem(tok_read, "slow");
    cr_assert_str_eq(sum_str(p, "title"), "Slow A plus B", "a read token sees it too");
    cr_assert_eq(sum_num(p, "time_limit"), 3.0);
    json_decref(p);

    /* uploads: a scoring batch problem and an interactive one */
    sh("tar czf %s/rs.tgz -C %s/testdata rangesum && tar czf %s/fm.tgz -C %s/testdata findmax && "
       "tar czf %s/sa.tgz -C %s/testdata sumarray", T_dir, SRC, T_dir, SRC, T_dir, SRC);
    snprintf(tgz, sizeof tgz, "%s/rs.tgz", T_dir);
    struct resp r = put_file(PROBS "/rs", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    resp_free(&r);
    snprintf(tgz, sizeof tgz, "%s/fm.tgz", T_dir);
    r = put_file(PROBS "/fm", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    resp_free(&r);
    p = listed_problem(tok_submit, "rs");
    cr_assert(p, "a submit token lists the upload");
    cr_assert_str_eq(json_string_value(json_object_get(p, "source")), "store");
    cr_assert_str_eq(sum_str(p, "title"), "Range sums");
    cr_assert_str_eq(sum_str(p, "type"), "batch");
    cr_assert_str_eq(sum_str(p, "scoring"), "score");
    cr_assert_eq(sum_num(p, "max_score"), 100.0);
    cr_assert_eq(sum_num(p, "memory_limit"), 256 << 20);
    cr_assert_eq(json_array_size(json_object_get(json_object_get(p, "summary"), "subtasks")), 3);
    json_decref(p);
    p = listed_problem(tok_read, "fm");
    cr_assert_str_eq(sum_str(p, "title"), "Find the maximum");
    cr_assert_str_eq(sum_str(p, "type"), "interactive");
    cr_assert_eq(sum_num(p, "time_limit"), 1.0);
    cr_assert_eq(sum_num(p, "wall_time_limit"), 10.0);
    cr_assert_eq(sum_num(p, "memory_limit"), 64 << 20);
    json_decref(p);

    /* replaced: the new version's summary (a grader's languages) */
    snprintf(tgz, sizeof tgz, "%s/sa.tgz", T_dir);
    r = put_file(PROBS "/rs", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    resp_free(&r);
    p = listed_problem(tok_submit, "rs");
    cr_assert_str_eq(sum_str(p, "title"), "Sum of an array (grader)");
    cr_assert_str_eq(sum_str(p, "scoring"), "pass-fail");
    json_t *langs = json_object_get(json_object_get(p, "summary"), "languages");
    cr_assert_eq(json_array_size(langs), 2, "cpp and java have a grader");
    cr_assert_str_eq(json_string_value(json_array_get(langs, 0)), "cpp");
    json_decref(p);
    r = http("GET", PROB1, PROBS "/rs", tok_read, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(sum_str(r.json, "title"), "Sum of an array (grader)");
    resp_free(&r);

    /* a version stored before summaries were recorded: null; the same
     * content uploaded again goes through a host, which records it */
    char v[65];
    p = listed_problem(tok_read, "rs");
    snprintf(v, sizeof v, "%s", json_string_value(json_object_get(p, "current")));
    json_decref(p);
    cr_assert_eq(t_int("HDEL judge:problem:rs summary:%s", v), 1);
    p = listed_problem(tok_read, "rs");
    cr_assert(json_is_null(json_object_get(p, "summary")), "none recorded: null");
    json_decref(p);
    r = put_file(PROBS "/rs", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "result"), "unchanged");
    cr_assert_str_eq(jstr(&r, "host"), "A", "validated by a host, not answered at once");
    resp_free(&r);
    p = listed_problem(tok_read, "rs");
    cr_assert_str_eq(sum_str(p, "title"), "Sum of an array (grader)", "recorded now");
    json_decref(p);

    /* a problem added to the directory: listed at once (admission takes
     * it), its summary once a host has read the directory again */
    sh("cp -r %s/testdata/findmax %s/problems/fresh", SRC, T_dir);
    /* and one that does not load: listed, no summary, the host says why */
    sh("mkdir -p %s/problems/broken && printf 'name: broken\\ntime_limit: soon\\n' > %s/problems/broken/problem.yaml",
       T_dir, T_dir);
    p = listed_problem(tok_submit, "fresh");
    cr_assert(p, "listed");
    cr_assert(json_is_null(json_object_get(p, "summary")), "no host has read it yet");
    json_decref(p);
    r = http("GET", PROB1, PROBS "/fresh", tok_read, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "source"), "directory");
    cr_assert(json_is_null(json_object_get(r.json, "current")), "%s", r.body);
    resp_free(&r);
    kill(host, SIGHUP);
    p = summary_published(tok_read, "fresh");
    cr_assert_str_eq(sum_str(p, "type"), "interactive");
    json_decref(p);
    p = listed_problem(tok_read, "broken");   /* published with fresh's, in one RENAME */
    cr_assert(p && json_is_null(json_object_get(p, "summary")), "a problem that does not load has none");
    json_decref(p);
    char logp[400];
    snprintf(logp, sizeof logp, "%s/judged-A.log", T_dir);
    char *log = slurp(logp);
    cr_assert(strstr(log, "problems directory: broken has no summary: ") &&
              strstr(log, "problem.yaml:2: time_limit"), "the host logs why: %s", log);
    free(log);
    r = http("GET", PROB1, PROBS "/fresh", tok_read, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(sum_str(r.json, "title"), "Find the maximum");
    resp_free(&r);
    check_openapi();
}

/* issue 39: a package's submission directory (submissions/accepted/NAME/
 * of a C file and its header) verified over HTTP as one submission of
 * several files: admitted, judged, AC */
Test(api, problem_verify_judges_a_submission_directory_as_one_submission)
{
    max_source = "64K";   /* two files packed: ~3 KiB of tar */
    start("  native: {languages: [c], slots: 1}\n", NULL, true);
    char tok_setter[100];
    token("setter", "setter", tok_setter);
    kill(api_pid, SIGHUP);   /* the tokens file is read again */
    for (long long end = t_now_ms() + 20000; t_now_ms() < end; t_sleep_ms(100)) {
        struct resp r = http("GET", PROBS, PROBS, tok_setter, NULL, NULL);
        long st = r.status;
        resp_free(&r);
        if (st == 200)
            break;
    }
    sh("mkdir -p %s/vd/data/secret %s/vd/submissions/accepted/two", T_dir, T_dir);
    static const char *files[][2] = {
        {"data/secret/1.in", "1 2\n"}, {"data/secret/1.ans", "3\n"}, {".timelimit", "2\n"},
        {"problem.yaml", "name: Sum\n"}, {"submissions/accepted/two/sum.h", "static long sum(long a, long b) "
                                                                             "{ return a + b; }\n"},
        {"submissions/accepted/two/main.c", "#include <stdio.h>\n#include \"sum.h\"\nint main(void){long a,b;"
                                            "if(scanf(\"%ld %ld\",&a,&b)!=2)return 1;printf(\"%ld\\n\",sum(a,b));"
                                            "return 0;}\n"},
    };
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char p[600];
        snprintf(p, sizeof p, "%s/vd/%s", T_dir, files[f][0]);
        t_write(p, "%s", files[f][1]);
    }
    sh("tar czf %s/vd.tgz -C %s vd", T_dir, T_dir);
    char tgz[400], loc[200];
    snprintf(tgz, sizeof tgz, "%s/vd.tgz", T_dir);
    struct resp r = put_file(PROBS "/vd", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    resp_free(&r);
    r = http("POST", "/v1/problems/{name}/verify", PROBS "/vd/verify", tok_setter, NULL, NULL);
    cr_assert_eq(r.status, 202, "%s", r.body);
    cr_assert(header(&r, "Location", loc, sizeof loc));
    json_t *row = json_array_get(json_object_get(r.json, "submissions"), 0);
    cr_assert(json_is_string(json_object_get(row, "submission")), "the directory is admitted: %s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(row, "language")), "c", "%s", r.body);
    resp_free(&r);
    json_t *table = NULL;
    for (long long end = t_now_ms() + 120000; t_now_ms() < end && !table; t_sleep_ms(200)) {
        r = http("GET", "/v1/problems/{name}/verify/{id}", loc, tok_setter, NULL, NULL);
        cr_assert_eq(r.status, 200, "%s", r.body);
        if (!strcmp(jstr(&r, "state"), "done"))
            table = json_incref(r.json);
        resp_free(&r);
    }
    cr_assert(table, "the verdict did not come in");
    char *text = json_dumps(table, JSON_COMPACT);
    cr_expect(json_is_true(json_object_get(table, "ok")), "%s", text);
    row = json_array_get(json_object_get(table, "submissions"), 0);
    cr_expect_str_eq(json_string_value(json_object_get(row, "path")), "submissions/accepted/two", "%s", text);
    cr_expect_str_eq(json_string_value(json_object_get(row, "verdict")), "AC", "%s", text);
    free(text);
    json_decref(table);
}

/* POST /v1/problems/NAME/verify (issue 22): the stored package's own
 * submissions admitted as ordinary jobs pinned to the version, and the
 * table once their verdicts are in; a mismatch is shown (one of a test
 * group's rule naming the group), a language no pool serves is listed and
 * not admitted. */
Test(api, problem_verify_admits_the_packages_submissions_and_gives_the_table)
{
    start("  native: {languages: [c, cpp], slots: 1, max_queue: 3}\n", NULL, true);
    char tok_setter[100];
    token("setter", "setter", tok_setter);
    kill(api_pid, SIGHUP);   /* the tokens file is read again */
    for (long long end = t_now_ms() + 20000; t_now_ms() < end; t_sleep_ms(100)) {
        struct resp r = http("GET", PROBS, PROBS, tok_setter, NULL, NULL);
        long st = r.status;
        resp_free(&r);
        if (st == 200)
            break;
    }
    sh("mkdir -p %s/vp/data/secret %s/vp/data/sample %s/vp/submissions/accepted %s/vp/submissions/wrong_answer", T_dir,
       T_dir, T_dir, T_dir);
    static const char *files[][2] = {
        {"data/secret/1.in", "1 2\n"}, {"data/secret/1.ans", "3\n"}, {".timelimit", "2\n"},
        {"data/sample/1.in", "5 0\n"}, {"data/sample/1.ans", "5\n"},
        /* wa.c (a-b) is right on the sample, wrong on secret: secret's rule fails */
        {"submissions/submissions.yaml", "wrong_answer/wa.c:\n  sample:\n    permitted: [AC]\n  secret:\n"
                                         "    permitted: [AC]\n"},
        {"problem.yaml", "name: Sum\n"}, {"submissions/accepted/ok.rb", "puts 3\n"},
        {"submissions/accepted/ok.c", "#include <stdio.h>\nint main(void){long a,b;if(scanf(\"%ld %ld\",&a,&b)!=2)"
                                      "return 1;printf(\"%ld\\n\",a+b);return 0;}\n"},
        {"submissions/wrong_answer/wa.c", "#include <stdio.h>\nint main(void){long a,b;if(scanf(\"%ld %ld\",&a,&b)!=2)"
                                          "return 1;printf(\"%ld\\n\",a-b);return 0;}\n"},
        {"submissions/accepted/claims_ac.c", "#include <stdio.h>\nint main(void){long a,b;if(scanf(\"%ld %ld\",&a,&b)!=2)"
                                             "return 1;printf(\"%ld\\n\",a-b);return 0;}\n"},
    };
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char p[600];
        snprintf(p, sizeof p, "%s/vp/%s", T_dir, files[f][0]);
        t_write(p, "%s", files[f][1]);
    }
    sh("tar czf %s/vp.tgz -C %s vp", T_dir, T_dir);
    char tgz[400], version[65], loc[200], path[300];
    snprintf(tgz, sizeof tgz, "%s/vp.tgz", T_dir);
    struct resp r = put_file(PROBS "/vp", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    snprintf(version, sizeof version, "%s", jstr(&r, "version"));
    resp_free(&r);

    expect(http("POST", "/v1/problems/{name}/verify", PROBS "/vp/verify", tok_read, NULL, NULL), 403, NULL,
           "verify needs setter");
    expect(http("POST", "/v1/problems/{name}/verify", PROBS "/nosuch/verify", tok_setter, NULL, NULL), 404, NULL,
           "an unknown problem");
    /* issue 40: verify jobs were normal work, so a few verifies filled
     * max_queue and a contest submission got 503. Paused, nothing is taken:
     * the verify's 3 jobs wait, and a contest submission is still admitted */
    expect(http("POST", "/v1/pools/{name}/{action}", "/v1/pools/native/pause", tok_admin, "", NULL), 200, NULL,
           "pause");
    r = http("POST", "/v1/problems/{name}/verify", PROBS "/vp/verify", tok_setter, NULL, NULL);
    cr_assert_eq(r.status, 202, "%s", r.body);
    char first[200], again[200];
    cr_assert(header(&r, "Location", first, sizeof first));
    resp_free(&r);
    char *contest = sub_body("vp", "c", NULL, "{\"priority\":\"contest\"}");
    expect(http("POST", SUBS, SUBS, tok_submit, contest, NULL), 202, NULL,
           "a contest submission while a verify's jobs wait (max_queue 3)");
    free(contest);
    /* the same version again while it runs: the running one */
    r = http("POST", "/v1/problems/{name}/verify", PROBS "/vp/verify", tok_setter, NULL, NULL);
    cr_assert_eq(r.status, 200, "a second verify of the version: %s", r.body);
    cr_assert(json_is_true(json_object_get(r.json, "running")), "%s", r.body);
    cr_assert(header(&r, "Location", again, sizeof again));
    cr_assert_str_eq(again, first);
    resp_free(&r);
    /* cancelled: its waiting jobs leave the queue, its table says so */
    snprintf(path, sizeof path, "%s/verify/0123456789abcdef0123456789abcdef", PROBS "/vp");
    expect(http("DELETE", "/v1/problems/{name}/verify/{id}", path, tok_setter, NULL, NULL), 404, NULL,
           "cancel an unknown verify");
    expect(http("DELETE", "/v1/problems/{name}/verify/{id}", first, tok_read, NULL, NULL), 403, NULL,
           "cancel needs setter");
    r = http("DELETE", "/v1/problems/{name}/verify/{id}", first, tok_setter, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_eq(json_integer_value(json_object_get(r.json, "cancelled")), 3, "%s", r.body);
    resp_free(&r);
    r = http("GET", "/v1/problems/{name}/verify/{id}", first, tok_setter, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "state"), "cancelled", "%s", r.body);
    resp_free(&r);
    cr_assert_eq(t_int("LLEN %s", "judge:{native}:rejudge"), 0, "the cancelled jobs left the queue");
    expect(http("POST", "/v1/pools/{name}/{action}", "/v1/pools/native/resume", tok_admin, "", NULL), 200, NULL,
           "resume");

    r = http("POST", "/v1/problems/{name}/verify", PROBS "/vp/verify", tok_setter, NULL, NULL);
    cr_assert_eq(r.status, 202, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "version"), version);
    cr_assert(header(&r, "Location", loc, sizeof loc), "a verify has a Location");
    cr_assert_str_neq(loc, first, "a new verify after the cancel");
    json_t *subs = json_object_get(r.json, "submissions"), *s;
    size_t i;
    cr_assert_eq(json_array_size(subs), 4, "%s", r.body);
    int admitted = 0;
    json_array_foreach(subs, i, s) {
        const char *p = json_string_value(json_object_get(s, "path"));
        if (!strcmp(p, "submissions/accepted/ok.rb"))
            cr_assert(json_is_null(json_object_get(s, "submission")) && json_is_string(json_object_get(s, "note")),
                      "%s", r.body);
        else
            admitted += json_is_string(json_object_get(s, "submission"));
    }
    cr_assert_eq(admitted, 3, "%s", r.body);
    resp_free(&r);

    /* judged host A judges them; the table once all are in */
    json_t *table = NULL;
    for (long long end = t_now_ms() + 120000; t_now_ms() < end && !table; t_sleep_ms(200)) {
        r = http("GET", "/v1/problems/{name}/verify/{id}", loc, tok_setter, NULL, NULL);
        cr_assert_eq(r.status, 200, "%s", r.body);
        if (!strcmp(jstr(&r, "state"), "done"))
            table = json_incref(r.json);
        else
            cr_assert(json_is_null(json_object_get(r.json, "ok")), "ok is null while judging: %s", r.body);
        resp_free(&r);
    }
    cr_assert(table, "the verdicts did not come in");
    cr_assert(json_is_false(json_object_get(table, "ok")));
    cr_assert_eq(json_integer_value(json_object_get(table, "mismatches")), 2);
    cr_assert_eq(json_integer_value(json_object_get(table, "not_judged")), 1);
    json_array_foreach(json_object_get(table, "submissions"), i, s) {
        const char *p = json_string_value(json_object_get(s, "path"));
        bool ok = json_is_true(json_object_get(s, "ok"));
        if (!strcmp(p, "submissions/accepted/claims_ac.c")) {
            cr_assert(!ok);
            cr_assert_str_eq(json_string_value(json_object_get(s, "verdict")), "WA");
            cr_assert_str_eq(json_string_value(json_object_get(s, "why")), "WA not permitted");
        } else if (!strcmp(p, "submissions/wrong_answer/wa.c")) {
            cr_assert(!ok);
            cr_assert_str_eq(json_string_value(json_object_get(s, "why")), "secret: WA not permitted");
            cr_assert(strstr(json_string_value(json_object_get(s, "expected")), "; sample: AC; secret: AC"), "%s",
                      json_string_value(json_object_get(s, "expected")));
        } else if (!strcmp(p, "submissions/accepted/ok.c")) {
            cr_assert(ok, "%s", p);
        }
    }
    json_decref(table);
    snprintf(path, sizeof path, "%s/verify/0123456789abcdef0123456789abcdef", PROBS "/vp");
    expect(http("GET", "/v1/problems/{name}/verify/{id}", path, tok_setter, NULL, NULL), 404, NULL, "unknown verify");

    /* a bad expectation: 422 naming file and line, nothing admitted */
    char p[600];
    snprintf(p, sizeof p, "%s/vp/submissions/submissions.yaml", T_dir);
    t_write(p, "accepted/ok.c:\n  permitted: [AC, XX]\n");
    sh("tar czf %s/vp2.tgz -C %s vp", T_dir, T_dir);
    snprintf(tgz, sizeof tgz, "%s/vp2.tgz", T_dir);
    r = put_file(PROBS "/vp2", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    resp_free(&r);
    r = http("POST", "/v1/problems/{name}/verify", PROBS "/vp2/verify", tok_setter, NULL, NULL);
    cr_assert_eq(r.status, 422, "%s", r.body);
    cr_assert(error_line(&r, "submissions/submissions.yaml:2: permitted: unknown verdict 'XX'", NULL), "%s", r.body);
    resp_free(&r);
    check_openapi();
}

/* Issue 43: a CMS task package (tests/judged/cms/duet: task.yaml with old
 * Italian keys, a cor/correttore speaking CMS's protocol, sol/) uploaded
 * unchanged, validated and converted by a judged host, its checker built;
 * POST .../verify judges the official solution (sol/duet.c, converted to
 * submissions/accepted/) and the table is ok. */
Test(api, a_cms_package_uploaded_unchanged_is_stored_and_verified)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", NULL, true);
    char tok_setter[100];
    token("setter", "setter", tok_setter);
    cr_assert(sighup_token(PROBS, tok_setter), "the setter token works after SIGHUP");
    sh("tar czf %s/duet.tgz -C %s/tests/judged/cms duet", T_dir, SRC);
    char tgz[400], loc[200];
    snprintf(tgz, sizeof tgz, "%s/duet.tgz", T_dir);
    struct resp r = put_file(PROBS "/duet", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 201, "%s", r.body);
    cr_assert_str_eq(jstr(&r, "state"), "stored");
    resp_free(&r);
    r = http("POST", "/v1/problems/{name}/verify", PROBS "/duet/verify", tok_setter, NULL, NULL);
    cr_assert_eq(r.status, 202, "%s", r.body);
    cr_assert(header(&r, "Location", loc, sizeof loc));
    cr_assert_eq(json_array_size(json_object_get(r.json, "submissions")), 1, "sol/duet.c: %s", r.body);
    resp_free(&r);
    json_t *table = NULL;
    for (long long end = t_now_ms() + 120000; t_now_ms() < end && !table; t_sleep_ms(200)) {
        r = http("GET", "/v1/problems/{name}/verify/{id}", loc, tok_setter, NULL, NULL);
        cr_assert_eq(r.status, 200, "%s", r.body);
        if (!strcmp(jstr(&r, "state"), "done"))
            table = json_incref(r.json);
        resp_free(&r);
    }
    cr_assert(table, "the verdicts did not come in");
    cr_assert(json_is_true(json_object_get(table, "ok")), "%s", json_dumps(table, 0));
    cr_assert_eq(json_integer_value(json_object_get(table, "mismatches")), 0);
    json_decref(table);

    /* a task whose tests its generator makes (gen/GEN, no input/): judge-api
     * runs no box, so it is refused saying where it can be pushed */
    sh("tar czf %s/gensum.tgz -C %s/tests/judged/cms gensum", T_dir, SRC);
    snprintf(tgz, sizeof tgz, "%s/gensum.tgz", T_dir);
    r = put_file(PROBS "/gensum", tok_setter, tgz, "application/gzip");
    cr_assert_eq(r.status, 422, "%s", r.body);
    cr_assert(error_line(&r, "gen/GEN:0: (generator): the package's tests are made by its generator, which runs in "
                             "the sandbox, and there is none here (judge-api runs none; judgectl needs root and the "
                             "sandbox); push it with `judgectl problem push` as root on a judge host, or put the "
                             "inputs and outputs (input/, output/) in the package", NULL),
              "%s", r.body);
    resp_free(&r);
}

/* A package PUT on a thread (curl, no assertions: the test ends judge-api
 * under it) */
struct put_job {
    const char *path, *token, *file;
};

static void *put_main(void *p)
{
    struct put_job *j = p;
    char url[1024], auth[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", api_port, j->path);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", j->token);
    struct curl_slist *h = curl_slist_append(NULL, auth);
    h = curl_slist_append(h, "Content-Type: application/gzip");
    FILE *f = fopen(j->file, "rb");
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_READDATA, f);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 120L);
    struct resp r = {0};
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_perform(c);
    curl_easy_cleanup(c);
    curl_slist_free_all(h);
    if (f)
        fclose(f);
    free(r.body);
    return NULL;
}

/* Issue 42: libmicrohttpd's pool threads each serve many connections, and
 * a package upload waits up to a minute for a judged host's validator. It
 * runs on a thread of its own, its connection suspended: with one pool
 * thread and no host to validate, judge-api still answers others while
 * the upload waits (it would wait a minute behind it otherwise). */
Test(api, an_upload_waiting_for_its_validator_stops_no_other_request)
{
    start("  native: {languages: [c, cpp], slots: 1}\n", "  threads: 1\n", false);
    char tok_setter[100], tgz[400];
    token("setter", "setter", tok_setter);
    cr_assert(sighup_token(PROBS, tok_setter), "the setter token works after SIGHUP");
    sh("tar czf %s/up.tgz -C %s/testdata aplusb", T_dir, SRC);
    snprintf(tgz, sizeof tgz, "%s/up.tgz", T_dir);
    struct put_job job = {PROBS "/up", tok_setter, tgz};
    pthread_t t;
    pthread_create(&t, NULL, put_main, &job);
    /* staged: it now waits for a validator that no host runs here */
    redisContext *c = t_redis();
    bool staged = false;
    for (long long end = t_now_ms() + 30000; t_now_ms() < end && !staged; t_sleep_ms(50)) {
        redisReply *x = redisCommand(c, "KEYS judge:upload:*");
        staged = x && x->type == REDIS_REPLY_ARRAY && x->elements > 0;
        freeReplyObject(x);
    }
    redisFree(c);
    cr_assert(staged, "the upload was not staged");
    cr_assert_eq(probe_healthz(10), 200, "judge-api did not answer while an upload waited for its validator");
    struct resp r = http("GET", "/v1/whoami", "/v1/whoami", tok_submit, NULL, NULL);
    cr_assert_eq(r.status, 200, "%s", r.body);
    resp_free(&r);
    kill(api_pid, SIGKILL);   /* the upload would wait its minute */
    waitpid(api_pid, NULL, 0);
    t_untrack(api_pid);
    pthread_join(t, NULL);
}
