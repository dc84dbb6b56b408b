/* config.c - judged's YAML configuration. Every key is checked; errors name
 * the file, the line and the key. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <yaml.h>

#include "common.h"
#include "core.h"

/* The grammars of every layer (common/common.h), in judged's units. */
int jd_parse_duration(const char *s, long *ms)
{
    double v;
    size_t n = s ? strlen(s) : 0;
    if (n > 1 && n < 32 && s[n - 1] == 'd' && isdigit((unsigned char)s[n - 2])) {
        /* days: retention periods (14d); the common grammar stops at hours */
        char num[32];
        snprintf(num, sizeof num, "%.*s", (int)(n - 1), s);
        if (common_parse_seconds(num, false, &v))
            return -1;
        v *= 86400;
    } else if (common_parse_seconds(s, true, &v)) {
        return -1;
    }
    if (v * 1000 > 1e12)
        return -1;
    *ms = (long)llround(v * 1000);
    return 0;
}

int jd_parse_size(const char *s, long *bytes)
{
    uint64_t v;
    if (common_parse_size(s, &v) || v > (1ULL << 40))
        return -1;
    *bytes = (long)v;
    return 0;
}

/* The one grammar of a listening address (api.listen, metrics_listen):
 * HOST:PORT, HOST a name, an IPv4 address or [IPv6], PORT 0..65535 (0: any
 * free port). judge-api and judged both bind through jd_listen_addr. */
int jd_listen_parse(const char *s, char *host, size_t hostlen, char *port, size_t portlen,
                    char *why, size_t whylen)
{
    const char *colon = s ? strrchr(s, ':') : NULL;
    if (!colon || colon == s || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
        strlen(colon + 1) > 5 || atol(colon + 1) > 65535) {
        snprintf(why, whylen, "expected HOST:PORT with a port in [0, 65535], like 127.0.0.1:8080");
        return -1;
    }
    size_t hl = (size_t)(colon - s);
    const char *h = s;
    bool v6 = s[0] == '[';
    if (v6) {
        if (hl < 3 || colon[-1] != ']') {
            snprintf(why, whylen, "an IPv6 address goes in brackets before the port, like [::1]:8080");
            return -1;
        }
        h++;
        hl -= 2;
    }
    if (hl + 1 > hostlen || strlen(colon + 1) + 1 > portlen) {
        snprintf(why, whylen, "the address is too long");
        return -1;
    }
    memcpy(host, h, hl);
    host[hl] = '\0';
    snprintf(port, portlen, "%s", colon + 1);
    unsigned char addr[sizeof(struct in6_addr)];
    if (v6 && inet_pton(AF_INET6, host, addr) != 1) {
        snprintf(why, whylen, "'%s' is not an IPv6 address", host);
        return -1;
    }
    if (!v6 && strchr(host, ':')) {
        snprintf(why, whylen, "an IPv6 address goes in brackets before the port, like [::1]:8080");
        return -1;
    }
    /* only digits and dots: meant as an IPv4 address (getaddrinfo would
     * take "10.1" or "300.1.1.1" as something else, or ask DNS) */
    if (!v6 && strspn(host, "0123456789.") == hl && inet_pton(AF_INET, host, addr) != 1) {
        snprintf(why, whylen, "'%s' is not an IPv4 address", host);
        return -1;
    }
    for (const char *c = host; !v6 && *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-' && *c != '_') {
            snprintf(why, whylen, "'%s' is not a host name or an address", host);
            return -1;
        }
    return 0;
}

int jd_listen_addr(const char *s, struct addrinfo **ai, char *err, size_t errlen)
{
    char host[256], port[8], why[256];
    if (jd_listen_parse(s, host, sizeof host, port, sizeof port, why, sizeof why)) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
    int g = getaddrinfo(host, port, &hints, ai);
    if (g) {
        snprintf(err, errlen, "%s: %s", host, gai_strerror(g));
        return -1;
    }
    return 0;
}

struct ctx {
    const char *path;
    yaml_document_t *doc;
    char *err;
    size_t errlen;
};

static int fail(struct ctx *c, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s:%zu: key '%s': %s", c->path,
             n ? n->start_mark.line + 1 : 0, key, msg);
    return -1;
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int get_str(struct ctx *c, const yaml_node_t *v, const char *key, char **out)
{
    const char *s = scalar(v);
    if (!s || !*s)
        return fail(c, v, key, "expected a non-empty string");
    free(*out);
    *out = strdup(s);
    return 0;
}

static int get_int(struct ctx *c, const yaml_node_t *v, const char *key, long lo, long hi, long *out)
{
    const char *s = scalar(v);
    char *end;
    errno = 0;
    long x = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || errno || *end || x < lo || x > hi)
        return fail(c, v, key, "expected an integer in [%ld, %ld]", lo, hi);
    *out = x;
    return 0;
}

static int get_duration(struct ctx *c, const yaml_node_t *v, const char *key, long *out)
{
    if (jd_parse_duration(scalar(v), out) || *out <= 0)
        return fail(c, v, key, "expected a positive duration like 30s or 500ms");
    return 0;
}

/* A retention period: a duration, or 0 for "keep forever". */
static int get_retention(struct ctx *c, const yaml_node_t *v, const char *key, long *out)
{
    if (jd_parse_duration(scalar(v), out))
        return fail(c, v, key, "expected a duration like 14d, 24h or 30m (0: keep forever)");
    return 0;
}

/* A listening address (jd_listen_parse's grammar), checked at load so that
 * a typo stops judged or judge-api naming the key. */
static int get_listen(struct ctx *c, const yaml_node_t *v, const char *key, const char *s)
{
    char host[256], port[8], why[256];
    if (jd_listen_parse(s, host, sizeof host, port, sizeof port, why, sizeof why))
        return fail(c, v, key, "'%s': %s", s, why);
    return 0;
}

/* redis_password_file: the password alone (one line; a final newline is
 * not part of it). Read at load, so a missing or unreadable file stops
 * judged at start, naming the file; the password itself is never shown. */
static int get_password_file(struct ctx *c, const yaml_node_t *v, const char *key,
                             struct jd_config *cfg)
{
    char *path = NULL;
    if (get_str(c, v, key, &path))
        return -1;
    size_t len = 0;
    bool more = false;
    /* a regular file only: not stdin ("-"), a FIFO or a device to block on */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    char *pw = NULL;
    int rc = 0;
    if (fd < 0 || fstat(fd, &st))
        rc = fail(c, v, key, "%s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = fail(c, v, key, "%s: not a regular file", path);
    else if (!(pw = common_read_fd(fd, 1024, &len, &more)))
        rc = fail(c, v, key, "%s: %s", path, strerror(errno));
    else {
        if (len && pw[len - 1] == '\n')
            pw[--len] = 0;
        if (len && pw[len - 1] == '\r')
            pw[--len] = 0;
        if (more || !len || memchr(pw, '\n', len) || strlen(pw) != len)
            rc = fail(c, v, key, "%s: expected the password alone on one line (1 to 1023 bytes)",
                      path);
    }
    if (fd >= 0)
        close(fd);
    if (rc && pw) {
        explicit_bzero(pw, len);
        free(pw);
        pw = NULL;
    }
    free(cfg->redis_password);
    cfg->redis_password = pw;
    free(path);
    return rc;
}

static bool valid_name(const char *s)
{
    if (!*s || strlen(s) > 48)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
            return false;
    return true;
}

static int parse_pool(struct ctx *c, const char *name, yaml_node_t *m, struct jd_pool_cfg *p)
{
    char key[128];
    p->name = strdup(name);
    p->slots = 1;
    if (m->type != YAML_MAPPING_NODE) {
        snprintf(key, sizeof key, "pools.%s", name);
        return fail(c, m, key, "expected a mapping {languages: [...], slots: N}");
    }
    bool have_langs = false;
    for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, pr->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, pr->value);
        const char *ks = scalar(k);
        snprintf(key, sizeof key, "pools.%s.%s", name, ks ? ks : "?");
        if (!ks)
            return fail(c, k, key, "expected a scalar key");
        if (!strcmp(ks, "languages")) {
            if (have_langs)   /* a second list would overflow the first's array */
                return fail(c, k, key, "given twice");
            p->languages_line = (int)k->start_mark.line + 1;
            if (v->type != YAML_SEQUENCE_NODE)
                return fail(c, v, key, "expected a list of language ids");
            int n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
            if (n == 0)
                return fail(c, v, key, "expected at least one language");
            p->languages = calloc((size_t)n, sizeof *p->languages);
            for (int i = 0; i < n; i++) {
                yaml_node_t *it = yaml_document_get_node(c->doc, v->data.sequence.items.start[i]);
                const char *s = scalar(it);
                if (!s || !valid_name(s))
                    return fail(c, it, key, "expected a language id");
                p->languages[p->nlanguages++] = strdup(s);
            }
            have_langs = true;
        } else if (!strcmp(ks, "slots")) {
            long x;
            if (get_int(c, v, key, 0, 256, &x))
                return -1;
            p->slots = (int)x;
        } else if (!strcmp(ks, "max_queue")) {
            if (get_int(c, v, key, 1, 1000000000, &p->max_queue))
                return -1;
        } else {
            return fail(c, k, key, "unknown key (expected languages, slots, max_queue)");
        }
    }
    if (!have_langs) {
        snprintf(key, sizeof key, "pools.%s.languages", name);
        return fail(c, m, key, "missing");
    }
    return 0;
}

static int parse_api(struct ctx *c, yaml_node_t *m, struct jd_api_cfg *a)
{
    if (m->type != YAML_MAPPING_NODE)
        return fail(c, m, "api", "expected a mapping {listen: HOST:PORT, tokens: FILE, ...}");
    for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, pr->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, pr->value);
        const char *ks = scalar(k);
        char key[128];
        snprintf(key, sizeof key, "api.%s", ks ? ks : "?");
        long x;
        int rc = 0;
        if (!ks)
            return fail(c, k, key, "expected a scalar key");
        if (!strcmp(ks, "listen")) {
            rc = get_str(c, v, key, &a->listen) || get_listen(c, v, key, a->listen);
        } else if (!strcmp(ks, "tokens"))
            rc = get_str(c, v, key, &a->tokens);
        else if (!strcmp(ks, "dashboard"))
            rc = get_str(c, v, key, &a->dashboard);
        else if (!strcmp(ks, "max_connections")) {
            rc = get_int(c, v, key, 1, 100000, &x);
            a->max_connections = (int)x;
        } else if (!strcmp(ks, "max_connections_per_address")) {
            rc = get_int(c, v, key, 1, 100000, &x);
            a->max_connections_per_address = (int)x;
        } else if (!strcmp(ks, "max_streams_per_token")) {
            rc = get_int(c, v, key, 1, 100000, &x);
            a->max_streams_per_token = (int)x;
        } else if (!strcmp(ks, "rate")) {
            rc = get_int(c, v, key, 0, 10000000, &x);
            a->rate = (double)x;
        } else if (!strcmp(ks, "burst"))
            rc = get_int(c, v, key, 1, 10000000, &a->burst);
        else if (!strcmp(ks, "sse_heartbeat"))
            rc = get_duration(c, v, key, &a->sse_heartbeat_ms);
        else if (!strcmp(ks, "sse_buffer"))
            rc = get_int(c, v, key, 1, 1000000, &a->sse_buffer);
        else if (!strcmp(ks, "webhook_secret"))
            rc = get_str(c, v, key, &a->webhook_secret);
        else if (!strcmp(ks, "webhook_retry_for"))
            rc = get_duration(c, v, key, &a->webhook_retry_for_ms);
        else if (!strcmp(ks, "webhook_timeout"))
            rc = get_duration(c, v, key, &a->webhook_timeout_ms);
        else if (!strcmp(ks, "webhook_workers")) {
            rc = get_int(c, v, key, 1, 256, &x);
            a->webhook_workers = (int)x;
        } else if (!strcmp(ks, "webhook_per_destination")) {
            rc = get_int(c, v, key, 1, 256, &x);
            a->webhook_per_destination = (int)x;
        }
        else if (!strcmp(ks, "webhook_allow_private")) {
            const char *b = scalar(v);
            if (!b || (strcmp(b, "true") && strcmp(b, "false")))
                rc = fail(c, v, key, "expected true or false");
            else
                a->webhook_allow_private = !strcmp(b, "true");
        } else
            return fail(c, k, key, "unknown key (expected listen, tokens, max_connections, "
                                   "max_connections_per_address, max_streams_per_token, rate, burst, "
                                   "sse_heartbeat, sse_buffer, dashboard, webhook_secret, webhook_retry_for, "
                                   "webhook_timeout, webhook_workers, webhook_per_destination, "
                                   "webhook_allow_private)");
        if (rc)
            return -1;
    }
    return 0;
}

/* package_limits: {yaml_size: 1M, package_files: 50000, package_size: 16G,
 * tests: 10000}: the runner's limits on what it reads of a problem package
 * (runner/README.md); a key left out keeps the runner's default */
static int parse_package_limits(struct ctx *c, yaml_node_t *m, struct jd_config *cfg)
{
    if (m->type != YAML_MAPPING_NODE)
        return fail(c, m, "package_limits", "expected a mapping like {package_size: 16G, tests: 10000}");
    for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; pr < m->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, pr->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, pr->value);
        const char *ks = scalar(k);
        bool size = ks && (!strcmp(ks, "yaml_size") || !strcmp(ks, "package_size"));
        long *dst = !ks                              ? NULL
                    : !strcmp(ks, "yaml_size")       ? &cfg->package_limits.yaml_size
                    : !strcmp(ks, "package_size")    ? &cfg->package_limits.package_size
                    : !strcmp(ks, "package_files")   ? &cfg->package_limits.package_files
                    : !strcmp(ks, "tests")           ? &cfg->package_limits.tests
                                                     : NULL;
        if (!dst)
            return fail(c, k, ks ? ks : "?", "unknown package limit (yaml_size, package_files, "
                                             "package_size, tests)");
        if (size ? jd_parse_size(scalar(v), dst) || *dst <= 0 : get_int(c, v, ks, 1, 100000000, dst))
            return size ? fail(c, v, ks, "expected a size like 1M or 16G") : -1;
    }
    return 0;
}

static int parse_root(struct ctx *c, yaml_node_t *root, struct jd_config *cfg)
{
    if (!root || root->type != YAML_MAPPING_NODE)
        return fail(c, root, "(top level)", "expected a mapping of settings");
    const yaml_node_t *pools_node = NULL, *redis_node = NULL, *password_node = NULL;
    for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(c->doc, pr->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, pr->value);
        const char *ks = scalar(k);
        if (!ks)
            return fail(c, k, "?", "expected a scalar key");
        long x;
        int rc = 0;
        if (!strcmp(ks, "redis")) {
            char why[1024];
            rc = get_str(c, v, ks, &cfg->redis);
            if (!rc && queue_url_check(cfg->redis, why, sizeof why))
                rc = fail(c, v, ks, "%s", why);
            redis_node = v;
        } else if (!strcmp(ks, "redis_password_file")) {
            rc = get_password_file(c, v, ks, cfg);
            password_node = v;
        } else if (!strcmp(ks, "retention"))
            rc = get_retention(c, v, ks, &cfg->retention_ms);
        else if (!strcmp(ks, "idempotency_ttl"))
            rc = get_retention(c, v, ks, &cfg->idempotency_ttl_ms);
        else if (!strcmp(ks, "dlq_retention"))
            rc = get_retention(c, v, ks, &cfg->dlq_retention_ms);
        else if (!strcmp(ks, "state_dir"))
            rc = get_str(c, v, ks, &cfg->state_dir);
        else if (!strcmp(ks, "problems")) {
            rc = get_str(c, v, ks, &cfg->problems);
            cfg->problems_line = (int)k->start_mark.line + 1;
        } else if (!strcmp(ks, "log_format")) {
            const char *f = scalar(v);
            if (!f || (strcmp(f, "text") && strcmp(f, "json")))
                rc = fail(c, v, ks, "expected text or json");
            else
                cfg->log_json = !strcmp(f, "json");
        }
        else if (!strcmp(ks, "languages"))
            rc = get_str(c, v, ks, &cfg->languages);
        else if (!strcmp(ks, "host")) {
            rc = get_str(c, v, ks, &cfg->host);
            if (!rc && !valid_name(cfg->host) && !strchr(cfg->host, '-'))
                rc = fail(c, v, ks, "expected letters, digits, '_', '.', '-'");
        } else if (!strcmp(ks, "lease"))
            rc = get_duration(c, v, ks, &cfg->lease_ms);
        else if (!strcmp(ks, "heartbeat"))
            rc = get_duration(c, v, ks, &cfg->heartbeat_ms);
        else if (!strcmp(ks, "retry_backoff"))
            rc = get_duration(c, v, ks, &cfg->retry_backoff_ms);
        else if (!strcmp(ks, "grace"))
            rc = get_duration(c, v, ks, &cfg->grace_ms);
        else if (!strcmp(ks, "max_attempts")) {
            rc = get_int(c, v, ks, 1, 100, &x);
            cfg->max_attempts = (int)x;
        } else if (!strcmp(ks, "first_slot")) {
            rc = get_int(c, v, ks, 0, 100000, &x);
            cfg->first_slot = (int)x;
        } else if (!strcmp(ks, "results_max"))
            rc = get_int(c, v, ks, 100, 1000000000, &cfg->results_max);
        else if (!strcmp(ks, "max_source")) {
            if (jd_parse_size(scalar(v), &cfg->max_source) || cfg->max_source <= 0)
                rc = fail(c, v, ks, "expected a size like 65536 or 64K");
        } else if (!strcmp(ks, "problem_cache") || !strcmp(ks, "max_package") ||
                   !strcmp(ks, "store_quota") || !strcmp(ks, "compile_cache")) {
            long *dst = !strcmp(ks, "problem_cache") ? &cfg->problem_cache
                        : !strcmp(ks, "compile_cache") ? &cfg->compile_cache
                        : !strcmp(ks, "max_package") ? &cfg->max_package : &cfg->store_quota;
            if (jd_parse_size(scalar(v), dst) || *dst < 0 || (*dst == 0 && strcmp(ks, "store_quota")))
                rc = fail(c, v, ks, "expected a size like 2G or 512M%s",
                          strcmp(ks, "store_quota") ? "" : " (0: no quota)");
        } else if (!strcmp(ks, "package_limits"))
            rc = parse_package_limits(c, v, cfg);
        else if (!strcmp(ks, "sandbox_run_dir"))
            rc = get_str(c, v, ks, &cfg->sandbox_run_dir);
        else if (!strcmp(ks, "cgroup_parent"))
            rc = get_str(c, v, ks, &cfg->cgroup_parent);
        else if (!strcmp(ks, "api"))
            rc = parse_api(c, v, &cfg->api);
        else if (!strcmp(ks, "metrics_listen")) {
            /* empty (or just the key): no metrics server */
            const char *s = scalar(v);
            free(cfg->metrics_listen);
            cfg->metrics_listen = NULL;
            cfg->metrics_listen_line = (int)k->start_mark.line + 1;
            if (!s)
                rc = fail(c, v, ks, "expected HOST:PORT like 127.0.0.1:9464 (empty: off)");
            else if (*s && !(rc = get_listen(c, v, ks, s)))
                cfg->metrics_listen = strdup(s);
        }
        else if (!strcmp(ks, "pools")) {
            if (v->type != YAML_MAPPING_NODE)
                return fail(c, v, ks, "expected a mapping of pool name to settings");
            pools_node = v;
        } else
            return fail(c, k, ks, "unknown key");
        if (rc)
            return -1;
    }
    if (password_node && !redis_node)
        return fail(c, password_node, "redis_password_file",
                    "needs 'redis:' (the embedded redis-server has no password)");
    if (password_node && queue_url_has_password(cfg->redis))
        return fail(c, password_node, "redis_password_file",
                    "the 'redis' URL holds a password already: give it in one place");
    if (!pools_node)
        return fail(c, root, "pools", "missing: at least one pool is needed");
    int n = (int)(pools_node->data.mapping.pairs.top - pools_node->data.mapping.pairs.start);
    if (n == 0)
        return fail(c, pools_node, "pools", "expected at least one pool");
    cfg->pools = calloc((size_t)n, sizeof *cfg->pools);
    for (int i = 0; i < n; i++) {
        yaml_node_pair_t *pr = &pools_node->data.mapping.pairs.start[i];
        yaml_node_t *k = yaml_document_get_node(c->doc, pr->key);
        yaml_node_t *v = yaml_document_get_node(c->doc, pr->value);
        const char *name = scalar(k);
        if (!name || !valid_name(name))
            return fail(c, k, "pools", "pool name '%s' must be letters, digits, '_' or '.'",
                        name ? name : "?");
        for (int j = 0; j < cfg->npools; j++)
            if (!strcmp(cfg->pools[j].name, name))
                return fail(c, k, "pools", "pool '%s' defined twice", name);
        cfg->npools++;
        if (parse_pool(c, name, v, &cfg->pools[i]))
            return -1;
    }
    /* a language belongs to exactly one pool */
    for (int i = 0; i < cfg->npools; i++)
        for (int a = 0; a < cfg->pools[i].nlanguages; a++)
            for (int j = i; j < cfg->npools; j++)
                for (int b = (j == i ? a + 1 : 0); b < cfg->pools[j].nlanguages; b++)
                    if (!strcmp(cfg->pools[i].languages[a], cfg->pools[j].languages[b]))
                        return fail(c, pools_node, "pools",
                                    "language '%s' is in two pools (%s, %s)",
                                    cfg->pools[i].languages[a], cfg->pools[i].name,
                                    cfg->pools[j].name);
    if (cfg->heartbeat_ms >= cfg->lease_ms)
        return fail(c, root, "heartbeat", "must be shorter than lease (%ldms)", cfg->lease_ms);
    return 0;
}

int jd_config_load(struct jd_config *cfg, const char *path, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->path = strdup(path);
    cfg->lease_ms = 30000;
    cfg->heartbeat_ms = 10000;
    cfg->max_attempts = 3;
    cfg->retry_backoff_ms = 1000;
    cfg->grace_ms = 30000;
    cfg->max_source = 64 * 1024;
    cfg->results_max = 100000;
    cfg->problem_cache = 2L << 30;
    cfg->compile_cache = 256L << 20;
    cfg->max_package = 256L << 20;
    cfg->store_quota = 16L << 30;
    cfg->retention_ms = 14L * 86400 * 1000;
    cfg->idempotency_ttl_ms = 24L * 3600 * 1000;
    cfg->dlq_retention_ms = 30L * 86400 * 1000;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    int rc = -1;
    if (!yaml_parser_load(&parser, &doc)) {
        snprintf(err, errlen, "%s:%zu: %s", path, parser.problem_mark.line + 1,
                 parser.problem ? parser.problem : "YAML syntax error");
        yaml_parser_delete(&parser);
        fclose(f);
        return -1;
    }
    struct ctx c = {path, &doc, err, errlen};
    rc = parse_root(&c, yaml_document_get_root_node(&doc), cfg);
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    fclose(f);
    if (rc)
        return -1;
    if (!cfg->state_dir)
        cfg->state_dir = strdup("/var/lib/judged");
    if (!cfg->problems)
        cfg->problems = strdup("/srv/problems");
    if (!cfg->languages) {
        char dir[4200];
        cfg->languages = strdup(jd_default_languages(dir, sizeof dir));
    }
    if (!cfg->api.listen)
        cfg->api.listen = strdup("127.0.0.1:8080");
    if (!cfg->api.tokens)
        cfg->api.tokens = strdup("/etc/judged/tokens");
    if (!cfg->api.dashboard) {
        char dir[4200];
        cfg->api.dashboard = strdup(jd_default_dashboard(dir, sizeof dir));
    }
    if (!cfg->api.max_connections)
        cfg->api.max_connections = 512;
    if (!cfg->api.max_connections_per_address)   /* one client cannot hold them all */
        cfg->api.max_connections_per_address = cfg->api.max_connections < 64 ? cfg->api.max_connections : 64;
    if (!cfg->api.max_streams_per_token)
        cfg->api.max_streams_per_token = 32;
    if (!cfg->api.burst)
        cfg->api.burst = cfg->api.rate > 0 ? (long)cfg->api.rate * 2 + 1 : 1;
    if (!cfg->api.webhook_retry_for_ms)
        cfg->api.webhook_retry_for_ms = 3600 * 1000;
    if (!cfg->api.webhook_timeout_ms)
        cfg->api.webhook_timeout_ms = 10000;
    if (!cfg->api.webhook_workers)
        cfg->api.webhook_workers = 8;
    if (!cfg->api.webhook_per_destination)
        cfg->api.webhook_per_destination = 2;
    if (!cfg->api.sse_heartbeat_ms)
        cfg->api.sse_heartbeat_ms = 15000;
    if (!cfg->api.sse_buffer)
        cfg->api.sse_buffer = 10000;
    /* the environment's password, for a URL that has none (a platform's
     * script or a systemd unit's Environment=), never for the embedded redis */
    const char *envpw = getenv("JUDGED_REDIS_PASSWORD");
    if (cfg->redis && !cfg->redis_password && envpw && *envpw && !queue_url_has_password(cfg->redis))
        cfg->redis_password = strdup(envpw);
    if (!cfg->host) {
        char h[256] = "localhost";
        gethostname(h, sizeof h - 1);
        cfg->host = strdup(h);
    }
    return 0;
}

void jd_config_free(struct jd_config *cfg)
{
    free(cfg->path);
    free(cfg->redis);
    if (cfg->redis_password)
        explicit_bzero(cfg->redis_password, strlen(cfg->redis_password));
    free(cfg->redis_password);
    free(cfg->state_dir);
    free(cfg->problems);
    free(cfg->languages);
    free(cfg->host);
    free(cfg->sandbox_run_dir);
    free(cfg->cgroup_parent);
    free(cfg->metrics_listen);
    free(cfg->api.listen);
    free(cfg->api.tokens);
    free(cfg->api.dashboard);
    free(cfg->api.webhook_secret);
    for (int i = 0; i < cfg->npools; i++) {
        free(cfg->pools[i].name);
        for (int j = 0; j < cfg->pools[i].nlanguages; j++)
            free(cfg->pools[i].languages[j]);
        free(cfg->pools[i].languages);
    }
    free(cfg->pools);
    memset(cfg, 0, sizeof *cfg);
}

const struct jd_pool_cfg *jd_pool_for_language(const struct jd_config *cfg, const char *lang)
{
    for (int i = 0; i < cfg->npools; i++)
        for (int j = 0; j < cfg->pools[i].nlanguages; j++)
            if (!strcmp(cfg->pools[i].languages[j], lang))
                return &cfg->pools[i];
    return NULL;
}

const struct jd_pool_cfg *jd_pool_by_name(const struct jd_config *cfg, const char *name)
{
    for (int i = 0; i < cfg->npools; i++)
        if (!strcmp(cfg->pools[i].name, name))
            return &cfg->pools[i];
    return NULL;
}

void jd_embedded_socket(const struct jd_config *cfg, char *buf, size_t len)
{
    snprintf(buf, len, "%s/redis/redis.sock", cfg->state_dir);
}

void jd_redis_url(const struct jd_config *cfg, char *buf, size_t len)
{
    /* the password from a file or the environment joins the URL (percent-
     * encoded), so every connection of every thread authenticates alike */
    if (cfg->redis && cfg->redis_password &&
        !queue_url_with_password(cfg->redis, cfg->redis_password, buf, len))
        return;
    if (cfg->redis) {
        snprintf(buf, len, "%s", cfg->redis);
        return;
    }
    char sock[4096];
    jd_embedded_socket(cfg, sock, sizeof sock);
    snprintf(buf, len, "unix://%s", sock);
}
