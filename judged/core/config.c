/* config.c - judged's YAML configuration. Every key is checked; errors name
 * the file, the line and the key. The file is read by the one YAML reader
 * of every layer (common/yaml/yaml_doc.h); the first error stops the load. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include "common.h"
#include "core.h"
#include "yaml_doc.h"

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

/* ------------------------------------------------------- the key table
 *
 * Every key of judged.yaml is one row of a table (nginx's way): its name,
 * its type (which says how it is parsed and freed), where it lands in
 * struct jd_config, its range, its default as it would be written in the
 * file, whether a SIGHUP may change it, and one line of documentation. The
 * parser, the defaults, jd_config_free, reload's copy rules
 * (jd_config_keep_restart) and the reference in judged/DESIGN.md
 * (jd_config_reference, checked by test_config) all read it, so a new key
 * is one row and one struct field.
 */

enum key_type {
    KT_STRING,        /* char *, non-empty */
    KT_HOST,          /* char *, a consumer name */
    KT_REDIS_URL,     /* char *, queue_url_check's grammar */
    KT_PASSWORD_FILE, /* char *redis_password, read from the file named */
    KT_LOG_FORMAT,    /* bool log_json: text or json */
    KT_DURATION,      /* long ms, positive */
    KT_RETENTION,     /* long ms, 0: keep forever */
    KT_INT,           /* int in [lo, hi] */
    KT_LONG,          /* long in [lo, hi] */
    KT_RATE,          /* double, an integer in [lo, hi] */
    KT_SIZE,          /* long bytes, positive */
    KT_SIZE_OR_0,     /* long bytes, 0 allowed */
    KT_BOOL,          /* bool: true or false */
    KT_LISTEN,        /* char *, HOST:PORT */
    KT_LISTEN_OR_OFF, /* char *, HOST:PORT; empty: NULL (off) */
    KT_SECTION,       /* a mapping read with its own table */
    KT_POOLS,         /* pools: name -> pool table */
    KT_LANGUAGES,     /* a pool's list of language ids */
    KT_DURABILITY,    /* enum jd_durability: local or replicated */
};

struct key_table;

struct key_def {
    const char *name;
    enum key_type type;
    size_t off;                     /* of the value in the section's struct */
    long lo, hi;                    /* KT_INT, KT_LONG, KT_RATE */
    const char *dflt;               /* as written in the file; NULL: none or derived */
    bool restart;                   /* judged keeps its running value on SIGHUP */
    int line_off;                   /* of an int that records the key's line; -1: none */
    const struct key_table *section;
    const char *doc;
};

struct key_table {
    const char *prefix;             /* "" or "api." ... */
    const struct key_def *keys;
    size_t n;
};

#define CF(field) offsetof(struct jd_config, field)
#define AF(field) offsetof(struct jd_api_cfg, field)
#define PF(field) offsetof(struct jd_pool_cfg, field)
#define LF(field) (offsetof(struct jd_config, package_limits.field) - offsetof(struct jd_config, package_limits))
#define TABLE(prefix, keys) {prefix, keys, sizeof keys / sizeof keys[0]}

static const struct key_def api_keys[] = {
    {"listen", KT_LISTEN, AF(listen), 0, 0, "127.0.0.1:8080", false, -1, NULL,
     "HOST:PORT judge-api listens on (port 0: any free port)"},
    {"tokens", KT_STRING, AF(tokens), 0, 0, "/etc/judged/tokens", false, -1, NULL,
     "the tokens file (judgectl tokens add writes it)"},
    {"dashboard", KT_STRING, AF(dashboard), 0, 0, NULL, false, -1, NULL,
     "the dashboard's files (default: share/judged/www beside the binary)"},
    {"max_connections", KT_INT, AF(max_connections), 1, 100000, "512", false, -1, NULL,
     "concurrent connections; more wait to be accepted"},
    {"max_connections_per_address", KT_INT, AF(max_connections_per_address), 1, 100000, NULL, false,
     -1, NULL, "of those, from one client address (default: 64, at most max_connections)"},
    {"threads", KT_INT, AF(threads), 1, 1024, NULL, false, -1, NULL,
     "threads serving connections, each any number of them (default: 2 x the host's CPUs)"},
    {"max_streams_per_token", KT_INT, AF(max_streams_per_token), 1, 100000, "32", false, -1, NULL,
     "event streams one token may hold open (more: 429)"},
    {"rate", KT_RATE, AF(rate), 0, 10000000, "100", false, -1, NULL,
     "requests per second per token, a token bucket (0: unlimited)"},
    {"burst", KT_LONG, AF(burst), 1, 10000000, NULL, false, -1, NULL,
     "a token's bucket (default: 2 x rate + 1)"},
    {"sse_heartbeat", KT_DURATION, AF(sse_heartbeat_ms), 0, 0, "15s", false, -1, NULL,
     "a comment line on an idle event stream this often"},
    {"sse_buffer", KT_LONG, AF(sse_buffer), 1, 1000000, "10000", false, -1, NULL,
     "verdict events kept in memory for GET /v1/events"},
    {"webhook_secret", KT_STRING, AF(webhook_secret), 0, 0, NULL, false, -1, NULL,
     "HMAC-SHA256 key of webhook signatures (absent: no webhooks)"},
    {"webhook_retry_for", KT_DURATION, AF(webhook_retry_for_ms), 0, 0, "1h", false, -1, NULL,
     "keep retrying a failing callback this long"},
    {"webhook_timeout", KT_DURATION, AF(webhook_timeout_ms), 0, 0, "10s", false, -1, NULL,
     "one delivery attempt"},
    {"webhook_workers", KT_INT, AF(webhook_workers), 1, 256, "8", false, -1, NULL,
     "deliveries in flight at once, per judge-api process"},
    {"webhook_per_destination", KT_INT, AF(webhook_per_destination), 1, 256, "2", false, -1, NULL,
     "of those, to one host:port"},
    {"webhook_allow_private", KT_BOOL, AF(webhook_allow_private), 0, 0, "false", false, -1, NULL,
     "allow callbacks to loopback and private addresses"},
};

static const struct key_def package_limit_keys[] = {
    {"yaml_size", KT_SIZE, LF(yaml_size), 0, 0, NULL, false, -1, NULL,
     "the largest YAML file of a package (default: the runner's, 1M)"},
    {"package_files", KT_LONG, LF(package_files), 1, 100000000, NULL, false, -1, NULL,
     "files in a package (default: the runner's, 50000)"},
    {"package_size", KT_SIZE, LF(package_size), 0, 0, NULL, false, -1, NULL,
     "bytes in a package (default: the runner's, 16G)"},
    {"tests", KT_LONG, LF(tests), 1, 100000000, NULL, false, -1, NULL,
     "tests in a problem (default: the runner's, 10000)"},
    {"compile_time_max", KT_DURATION, LF(compile_time_max_ms), 0, 0, NULL, false, -1, NULL,
     "the most a problem's compile_limits.time (or ICPC compilation_time) gets (default: 60s)"},
    {"compile_memory_max", KT_SIZE, LF(compile_memory_max), 0, 0, NULL, false, -1, NULL,
     "the most a problem's compile_limits.memory gets (default: 2G)"},
    {"compile_output_max", KT_SIZE, LF(compile_output_max), 0, 0, NULL, false, -1, NULL,
     "the most a problem's compile_limits.output gets (default: 1G)"},
    {"helper_cpu_time", KT_DURATION, LF(helper_cpu_ms), 0, 0, NULL, false, -1, NULL,
     "CPU time of a checker's, interactor's or validator's build (default: 60s)"},
    {"helper_wall_time", KT_DURATION, LF(helper_wall_ms), 0, 0, NULL, false, -1, NULL,
     "wall clock of such a build; out of it with CPU left: retried, never IE (default: 300s)"},
};

static const struct key_def pool_keys[] = {
    {"languages", KT_LANGUAGES, PF(languages), 0, 0, NULL, false, PF(languages_line), NULL,
     "the language ids this pool judges (required; a language is in one pool)"},
    {"slots", KT_INT, PF(slots), 0, 256, NULL, false, PF(slots_line), NULL,
     "submissions judged at once on this host, 2 sandbox slots each (default: the host's cpus shared "
     "among the pools that do not say, at least 1)"},
    {"max_queue", KT_LONG, PF(max_queue), 0, 1000000000, "10000", false, -1, NULL,
     "admission answers busy beyond this many waiting jobs (0: unlimited)"},
};

static const struct key_table api_table = TABLE("api.", api_keys);
static const struct key_table package_limits_table = TABLE("package_limits.", package_limit_keys);
static const struct key_table pool_table = TABLE("pools.NAME.", pool_keys);

static const struct key_def root_keys[] = {
    {"redis", KT_REDIS_URL, CF(redis), 0, 0, NULL, true, -1, NULL,
     "redis://[USER[:PASSWORD]@]HOST[:PORT][/DB], unix://[USER[:PASSWORD]@]/PATH[?db=N], "
     "sentinel://[USER[:PASSWORD]@]HOST:PORT[,HOST:PORT...]/MASTER_NAME[?db=N] or "
     "redis-cluster://[USER[:PASSWORD]@]HOST:PORT[,HOST:PORT...] "
     "(absent: judged starts its own redis-server under state_dir)"},
    {"redis_password_file", KT_PASSWORD_FILE, CF(redis_password), 0, 0, NULL, false, -1, NULL,
     "a file holding the Redis password alone (else $JUDGED_REDIS_PASSWORD)"},
    {"admission_durability", KT_DURABILITY, CF(admission_durability), 0, 0, NULL, false, -1, NULL,
     "replicated: an admission answers only once a replica has it (WAIT 1), else 503 \"not durable, "
     "retry\"; local: once the primary has it (default: replicated for a sentinel:// or redis-cluster:// "
     "URL, else local)"},
    {"admission_wait", KT_DURATION, CF(admission_wait_ms), 0, 0, "2s", false, -1, NULL,
     "replicated admissions: how long to wait for a replica's confirmation (WAIT's timeout)"},
    {"retention", KT_RETENTION, CF(retention_ms), 0, 0, "14d", false, -1, NULL,
     "a finished submission expires this long after its verdict (0: kept)"},
    {"idempotency_ttl", KT_RETENTION, CF(idempotency_ttl_ms), 0, 0, "24h", false, -1, NULL,
     "an idempotency key expires this long after its admission (0: kept)"},
    {"dlq_retention", KT_RETENTION, CF(dlq_retention_ms), 0, 0, "30d", false, -1, NULL,
     "a dead letter is kept this long (0: kept)"},
    {"state_dir", KT_STRING, CF(state_dir), 0, 0, "/var/lib/judged", true, -1, NULL,
     "embedded Redis data, box work directories, the problem cache"},
    {"problems", KT_STRING, CF(problems), 0, 0, "/srv/problems", false, CF(problems_line), NULL,
     "problem packages by name"},
    {"languages", KT_STRING, CF(languages), 0, 0, NULL, false, -1, NULL,
     "the language files (default: share/judged/languages beside the binary)"},
    {"host", KT_HOST, CF(host), 0, 0, NULL, true, -1, NULL,
     "consumer name (default: the hostname); keep it stable across restarts"},
    {"lease", KT_DURATION, CF(lease_ms), 0, 0, "30s", false, -1, NULL,
     "a held job not heartbeated for this long is taken over by another host"},
    {"heartbeat", KT_DURATION, CF(heartbeat_ms), 0, 0, "10s", false, -1, NULL,
     "how often a host renews its leases (shorter than lease)"},
    {"max_attempts", KT_INT, CF(max_attempts), 1, 100, "3", false, -1, NULL,
     "infrastructure failures before a job is dead-lettered with verdict IE"},
    {"retry_backoff", KT_DURATION, CF(retry_backoff_ms), 0, 0, "1s", false, -1, NULL,
     "first retry delay; doubled per attempt, with jitter (x0.5..1)"},
    {"grace", KT_DURATION, CF(grace_ms), 0, 0, "30s", false, -1, NULL,
     "SIGTERM: how long running jobs may finish before they are given back"},
    {"max_source", KT_SIZE, CF(max_source), 0, 0, "64K", false, -1, NULL,
     "the largest source admitted"},
    {"results_max", KT_LONG, CF(results_max), 100, 1000000000, "100000", false, -1, NULL,
     "approximate length kept in each results stream"},
    {"first_slot", KT_INT, CF(first_slot), 0, 100000, "0", false, -1, NULL,
     "this host's sandbox slots start here (several judged on one machine)"},
    {"log_format", KT_LOG_FORMAT, CF(log_json), 0, 0, "text", false, -1, NULL,
     "text, or json: every log line one JSON object"},
    {"metrics_listen", KT_LISTEN_OR_OFF, CF(metrics_listen), 0, 0, NULL, true, CF(metrics_listen_line),
     NULL, "HOST:PORT of this host's GET /metrics (Prometheus); absent or empty: off"},
    {"problem_cache", KT_SIZE, CF(problem_cache), 0, 0, "2G", false, -1, NULL,
     "fetched problem versions kept under state_dir/problems (LRU)"},
    {"problem_cache_rehash", KT_DURATION, CF(problem_cache_rehash_ms), 0, 0, "1h", false, -1, NULL,
     "a cached version in use is hashed again this long after its last hash (every use checks "
     "sizes, times and inodes)"},
    {"compile_cache", KT_SIZE, CF(compile_cache), 0, 0, "256M", false, -1, NULL,
     "successful compiles kept per pool (LRU; runner/README.md)"},
    {"helper_cache", KT_SIZE, CF(helper_cache), 0, 0, "1G", false, -1, NULL,
     "built checkers, interactors and validators kept under state_dir/checkers, one build for all the "
     "host's pools (LRU, none used in the last 30 minutes removed; runner/README.md)"},
    {"prepare", KT_BOOL, CF(prepare), 0, 0, "true", false, -1, NULL,
     "languages' prepared files (precompiled headers, JVM archive) under state_dir/prepared; "
     "false: off"},
    {"warm_up", KT_BOOL, CF(warm_up), 0, 0, "true", false, -1, NULL,
     "build them when judged starts, a slot of the pool at a time, before a submission needs them; "
     "then fetch the 64 problems last pushed to the store and build their checkers and interactors, and "
     "those of the problems directory's 64 newest"},
    {"max_package", KT_SIZE, CF(max_package), 0, 0, "256M", false, -1, NULL,
     "the largest package a push accepts (unpacked)"},
    {"store_quota", KT_SIZE_OR_0, CF(store_quota), 0, 0, "16G", false, -1, NULL,
     "all stored blobs together (0: no quota)"},
    {"max_staged", KT_SIZE_OR_0, CF(max_staged), 0, 0, "1G", false, -1, NULL,
     "what one token's uploads waiting for validation stage in Redis together (0: no bound)"},
    {"package_limits", KT_SECTION, CF(package_limits), 0, 0, NULL, false, -1, &package_limits_table,
     "what the runner reads of a package (runner/README.md)"},
    {"sandbox_run_dir", KT_STRING, CF(sandbox_run_dir), 0, 0, NULL, false, -1, NULL,
     "passed to the runner (optional)"},
    {"cgroup_parent", KT_STRING, CF(cgroup_parent), 0, 0, NULL, false, -1, NULL,
     "passed to the runner (optional)"},
    {"cpus", KT_STRING, CF(cpus), 0, 0, NULL, false, CF(cpus_line), NULL,
     "the CPUs this host's boxes run on, as a list like 0-3,6: each slot's box pinned to one "
     "(default: every CPU judged may run on)"},
    {"oversubscribe", KT_BOOL, CF(oversubscribe), 0, 0, "false", false, -1, NULL,
     "allow more slots (all pools) than cpus: boxes then share cores, and a CPU-bound program may "
     "TLE by the wall clock on a busy host (judged refuses to start otherwise, unless no pool says "
     "`slots`: then each gets one, warned)"},
    {"api", KT_SECTION, CF(api), 0, 0, NULL, false, -1, &api_table,
     "judge-api's settings (judged ignores them; judge-api reads them at start)"},
    {"pools", KT_POOLS, 0, 0, 0, NULL, false, -1, &pool_table,
     "pool name -> {languages, slots, max_queue} (required)"},
};

static const struct key_table root_table = TABLE("", root_keys);

struct ctx {
    const char *path;
    struct ydoc *y;
    char *err;
    size_t errlen;
};

static int fail(struct ctx *c, const yaml_node_t *n, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct ctx *c, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "%s:%d: key '%s': %s", c->path, ydoc_line(n), key, msg);
    return -1;
}

/* What the reader found before the keys were looked at: a syntax error,
 * or aliases past its budget (a node it no longer yields). */
static int reader_error(struct ctx *c)
{
    const struct common_errors *e = c->y->errs;
    snprintf(c->err, c->errlen, "%s", e->count ? e->items[0] : "unreadable YAML");
    return -1;
}

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static void *at(void *base, size_t off)
{
    return (char *)base + off;
}

static int set_str(struct ctx *c, const yaml_node_t *v, const char *key, const char *s, char **out)
{
    if (!s || !*s)
        return fail(c, v, key, "expected a non-empty string");
    free(*out);
    *out = strdup(s);
    return 0;
}

static int set_int(struct ctx *c, const yaml_node_t *v, const char *key, const char *s,
                   const struct key_def *d, long *out)
{
    char *end;
    errno = 0;
    long x = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || errno || *end || x < d->lo || x > d->hi)
        return fail(c, v, key, "expected an integer in [%ld, %ld]", d->lo, d->hi);
    *out = x;
    return 0;
}

/* A listening address (jd_listen_parse's grammar), checked at load so that
 * a typo stops judged or judge-api naming the key. */
static int check_listen(struct ctx *c, const yaml_node_t *v, const char *key, const char *s)
{
    char host[256], port[8], why[256];
    if (jd_listen_parse(s, host, sizeof host, port, sizeof port, why, sizeof why))
        return fail(c, v, key, "'%s': %s", s, why);
    return 0;
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

/* redis_password_file: the password alone (one line; a final newline is
 * not part of it). Read at load, so a missing or unreadable file stops
 * judged at start, naming the file; the password itself is never shown. */
static int set_password_file(struct ctx *c, const yaml_node_t *v, const char *key, const char *path,
                             char **out)
{
    if (!path || !*path)
        return fail(c, v, key, "expected a non-empty string");
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
    free(*out);
    *out = pw;
    return rc;
}

/* Sizes and durations: the grammar and what the key allows, in one message. */
static int set_measure(struct ctx *c, const yaml_node_t *v, const char *key, const char *s,
                       enum key_type t, long *out)
{
    switch (t) {
    case KT_DURATION:
        if (jd_parse_duration(s, out) || *out <= 0)
            return fail(c, v, key, "expected a positive duration like 30s or 500ms");
        return 0;
    case KT_RETENTION:
        if (jd_parse_duration(s, out))
            return fail(c, v, key, "expected a duration like 14d, 24h or 30m (0: keep forever)");
        return 0;
    case KT_SIZE:
        if (jd_parse_size(s, out) || *out <= 0)
            return fail(c, v, key, "expected a size like 64K, 512M or 2G");
        return 0;
    default: /* KT_SIZE_OR_0 */
        if (jd_parse_size(s, out) || *out < 0)
            return fail(c, v, key, "expected a size like 2G or 512M (0: none)");
        return 0;
    }
}

static int set_choice(struct ctx *c, const yaml_node_t *v, const char *key, const char *s,
                      const char *yes, const char *no, bool *out)
{
    if (!s || (strcmp(s, yes) && strcmp(s, no)))
        return fail(c, v, key, "expected %s or %s", no, yes);
    *out = !strcmp(s, yes);
    return 0;
}

/* One scalar value into its field. s is the file's text (or the table's
 * default, with v NULL). */
static int set_scalar(struct ctx *c, const struct key_def *d, const yaml_node_t *v, const char *key,
                      const char *s, void *base)
{
    void *f = at(base, d->off);
    long x = 0;
    char why[1024];
    switch (d->type) {
    case KT_STRING:
        return set_str(c, v, key, s, f);
    case KT_HOST:
        if (set_str(c, v, key, s, f))
            return -1;
        if (!valid_name(s) && !strchr(s, '-'))
            return fail(c, v, key, "expected letters, digits, '_', '.', '-'");
        return 0;
    case KT_REDIS_URL:
        if (set_str(c, v, key, s, f))
            return -1;
        return queue_url_check(s, why, sizeof why) ? fail(c, v, key, "%s", why) : 0;
    case KT_PASSWORD_FILE:
        return set_password_file(c, v, key, s, f);
    case KT_LOG_FORMAT:
        return set_choice(c, v, key, s, "json", "text", f);
    case KT_DURABILITY: {
        bool replicated = true; /* set_choice sets it on success; gcc -O2 cannot see that */
        if (set_choice(c, v, key, s, "replicated", "local", &replicated))
            return -1;
        *(enum jd_durability *)f = replicated ? JD_DURABLE_REPLICATED : JD_DURABLE_LOCAL;
        return 0;
    }
    case KT_BOOL:
        return set_choice(c, v, key, s, "true", "false", f);
    case KT_DURATION:
    case KT_RETENTION:
    case KT_SIZE:
    case KT_SIZE_OR_0:
        return set_measure(c, v, key, s, d->type, f);
    case KT_INT:
    case KT_RATE:
        if (set_int(c, v, key, s, d, &x))
            return -1;
        if (d->type == KT_INT)
            *(int *)f = (int)x;
        else
            *(double *)f = (double)x;
        return 0;
    case KT_LONG:
        return set_int(c, v, key, s, d, f);
    case KT_LISTEN:
        return set_str(c, v, key, s, f) || check_listen(c, v, key, s) ? -1 : 0;
    case KT_LISTEN_OR_OFF: /* empty (or just the key): no server */
        free(*(char **)f);
        *(char **)f = NULL;
        if (!s)
            return fail(c, v, key, "expected HOST:PORT like 127.0.0.1:9464 (empty: off)");
        if (*s && check_listen(c, v, key, s))
            return -1;
        *(char **)f = *s ? strdup(s) : NULL;
        return 0;
    default:
        return fail(c, v, key, "internal error: not a scalar key");
    }
}

static int parse_table(struct ctx *c, const struct key_table *t, yaml_node_t *m, const char *prefix,
                       void *base);
static int parse_pools(struct ctx *c, yaml_node_t *v, struct jd_config *cfg);

static int parse_languages(struct ctx *c, yaml_node_t *v, const char *key, struct jd_pool_cfg *p)
{
    if (v->type != YAML_SEQUENCE_NODE)
        return fail(c, v, key, "expected a list of language ids");
    int n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
    if (n == 0)
        return fail(c, v, key, "expected at least one language");
    p->languages = calloc((size_t)n, sizeof *p->languages);
    for (int i = 0; i < n; i++) {
        yaml_node_t *it = ydoc_node(c->y, v->data.sequence.items.start[i]);
        if (!it)
            return reader_error(c);
        const char *s = scalar(it);
        if (!s || !valid_name(s))
            return fail(c, it, key, "expected a language id");
        p->languages[p->nlanguages++] = strdup(s);
    }
    return 0;
}

/* One key of a mapping, found in its table, into base. */
static int parse_key(struct ctx *c, const struct key_def *d, yaml_node_t *k, yaml_node_t *v,
                     const char *key, void *base)
{
    if (d->line_off >= 0)
        *(int *)at(base, (size_t)d->line_off) = ydoc_line(k);
    switch (d->type) {
    case KT_SECTION: {
        char prefix[300];
        snprintf(prefix, sizeof prefix, "%s.", key);
        return parse_table(c, d->section, v, prefix, at(base, d->off));
    }
    case KT_POOLS:
        return parse_pools(c, v, base);
    case KT_LANGUAGES:
        return parse_languages(c, v, key, base);
    default:
        return set_scalar(c, d, v, key, scalar(v), base);
    }
}

static const struct key_def *find_key(const struct key_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->keys[i].name, name))
            return &t->keys[i];
    return NULL;
}

/* "unknown key (expected a, b, c)" from the table; the top level has too
 * many keys for one line, so it points to their reference. */
static int fail_unknown(struct ctx *c, const struct key_table *t, yaml_node_t *k, const char *key)
{
    if (t == &root_table)
        return fail(c, k, key, "unknown key (judged/DESIGN.md, \"Configuration\", lists every key)");
    char list[1024] = "";
    size_t used = 0;
    for (size_t i = 0; i < t->n && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                 t->keys[i].name);
    return fail(c, k, key, "unknown key (expected %s)", list);
}

/* A key given twice would silently win over the first: refused, naming
 * both lines (as the runner's files are, by the same reader). */
static int check_twice(struct ctx *c, struct ydoc_keys *seen, yaml_node_t *k, const char *key)
{
    const yaml_node_t *first = ydoc_keys_twice(seen, k);
    return first ? fail(c, k, key, "given twice (first on line %d)", ydoc_line(first)) : 0;
}

/* One pair of a mapping read by t. */
static int parse_pair(struct ctx *c, const struct key_table *t, struct ydoc_keys *seen,
                      const yaml_node_pair_t *pr, const char *prefix, void *base)
{
    yaml_node_t *k = ydoc_node(c->y, pr->key);
    yaml_node_t *v = ydoc_node(c->y, pr->value);
    if (!k || !v)
        return reader_error(c);
    const char *ks = scalar(k);
    char key[256];
    snprintf(key, sizeof key, "%s%s", prefix, ks ? ks : "?");
    if (!ks)
        return fail(c, k, key, "expected a scalar key");
    const struct key_def *d = find_key(t, ks);
    if (!d)
        return fail_unknown(c, t, k, key);
    if (check_twice(c, seen, k, key) || parse_key(c, d, k, v, key, base))
        return -1;
    return 0;
}

static int parse_table(struct ctx *c, const struct key_table *t, yaml_node_t *m, const char *prefix,
                       void *base)
{
    if (m->type != YAML_MAPPING_NODE) {
        char key[128];
        snprintf(key, sizeof key, "%.*s", (int)strlen(prefix) - 1, prefix);
        return fail(c, m, key, "expected a mapping of settings");
    }
    struct ydoc_keys seen = {0};
    int rc = 0;
    for (yaml_node_pair_t *pr = m->data.mapping.pairs.start; rc == 0 && pr < m->data.mapping.pairs.top; pr++)
        rc = parse_pair(c, t, &seen, pr, prefix, base);
    ydoc_keys_free(c->y, &seen);
    return rc;
}

/* The table's defaults, parsed like the file's text; derived ones later. */
static void apply_defaults(const struct key_table *t, void *base)
{
    char err[256];
    struct ctx c = {"(default)", NULL, err, sizeof err};
    for (size_t i = 0; i < t->n; i++) {
        const struct key_def *d = &t->keys[i];
        if (d->type == KT_SECTION)
            apply_defaults(d->section, at(base, d->off));
        else if (d->dflt && d->type != KT_POOLS)
            (void)set_scalar(&c, d, NULL, d->name, d->dflt, base); /* checked by test_config */
    }
}

static int parse_pool(struct ctx *c, const char *name, yaml_node_t *m, struct jd_pool_cfg *p)
{
    char prefix[128];
    p->name = strdup(name);
    apply_defaults(&pool_table, p);
    snprintf(prefix, sizeof prefix, "pools.%s.", name);
    if (m->type != YAML_MAPPING_NODE) {
        snprintf(prefix, sizeof prefix, "pools.%s", name);
        return fail(c, m, prefix, "expected a mapping {languages: [...], slots: N}");
    }
    if (parse_table(c, &pool_table, m, prefix, p))
        return -1;
    if (!p->languages) {
        snprintf(prefix, sizeof prefix, "pools.%s.languages", name);
        return fail(c, m, prefix, "missing");
    }
    return 0;
}

/* A language belongs to exactly one pool. */
static int check_pool_languages(struct ctx *c, yaml_node_t *pools, const struct jd_config *cfg)
{
    for (int i = 0; i < cfg->npools; i++)
        for (int a = 0; a < cfg->pools[i].nlanguages; a++)
            for (int j = i; j < cfg->npools; j++)
                for (int b = (j == i ? a + 1 : 0); b < cfg->pools[j].nlanguages; b++)
                    if (!strcmp(cfg->pools[i].languages[a], cfg->pools[j].languages[b]))
                        return fail(c, pools, "pools", "language '%s' is in two pools (%s, %s)",
                                    cfg->pools[i].languages[a], cfg->pools[i].name,
                                    cfg->pools[j].name);
    return 0;
}

/* One pool: its name checked and met once, its settings. */
static int parse_pool_pair(struct ctx *c, struct ydoc_keys *seen, const yaml_node_pair_t *pr,
                           struct jd_config *cfg)
{
    yaml_node_t *k = ydoc_node(c->y, pr->key), *v = ydoc_node(c->y, pr->value);
    if (!k || !v)
        return reader_error(c);
    const char *name = scalar(k);
    if (!name || !valid_name(name))
        return fail(c, k, "pools", "pool name '%s' must be letters, digits, '_' or '.'",
                    name ? name : "?");
    const yaml_node_t *first = ydoc_keys_twice(seen, k);
    if (first)
        return fail(c, k, "pools", "pool '%s' defined twice (first on line %d)", name,
                    ydoc_line(first));
    return parse_pool(c, name, v, &cfg->pools[cfg->npools++]);
}

static int parse_pools(struct ctx *c, yaml_node_t *v, struct jd_config *cfg)
{
    if (v->type != YAML_MAPPING_NODE)
        return fail(c, v, "pools", "expected a mapping of pool name to settings");
    int n = (int)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
    if (n == 0)
        return fail(c, v, "pools", "expected at least one pool");
    cfg->pools = calloc((size_t)n, sizeof *cfg->pools);
    struct ydoc_keys seen = {0};
    int rc = 0;
    for (int i = 0; rc == 0 && i < n; i++)
        rc = parse_pool_pair(c, &seen, &v->data.mapping.pairs.start[i], cfg);
    ydoc_keys_free(c->y, &seen);
    return rc ? rc : check_pool_languages(c, v, cfg);
}

/* What no single key can check: keys that depend on one another. */
static int check_root(struct ctx *c, yaml_node_t *root, struct jd_config *cfg)
{
    yaml_node_t *password = NULL;
    for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = ydoc_node(c->y, pr->key);
        if (!k)
            return reader_error(c);
        if (!strcmp(scalar(k), "redis_password_file"))
            password = ydoc_node(c->y, pr->value);
    }
    if (password && !cfg->redis)
        return fail(c, password, "redis_password_file",
                    "needs 'redis:' (the embedded redis-server has no password)");
    if (password && queue_url_has_password(cfg->redis))
        return fail(c, password, "redis_password_file",
                    "the 'redis' URL holds a password already: give it in one place");
    if (!cfg->pools)
        return fail(c, root, "pools", "missing: at least one pool is needed");
    if (!cfg->redis && cfg->admission_durability == JD_DURABLE_REPLICATED)
        return fail(c, root, "admission_durability",
                    "replicated needs 'redis:' with a replica (the embedded redis-server has none)");
    if (cfg->heartbeat_ms >= cfg->lease_ms)
        return fail(c, root, "heartbeat", "must be shorter than lease (%ldms)", cfg->lease_ms);
    return 0;
}

static int parse_root(struct ctx *c, yaml_node_t *root, struct jd_config *cfg)
{
    if (!root || root->type != YAML_MAPPING_NODE)
        return fail(c, root, "(top level)", "expected a mapping of settings");
    if (parse_table(c, &root_table, root, "", cfg))
        return -1;
    return check_root(c, root, cfg);
}

/* Defaults that depend on the machine or on other keys. */
int jd_config_cpus(const struct jd_config *cfg, int *out, int max)
{
    if (cfg->cpus)
        return common_parse_cpus(cfg->cpus, out, max);
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) < 0)
        return out[0] = 0, 1;
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &set))
            out[n++] = c;
    return n > 0 ? n : (out[0] = 0, 1);
}

/* A pool that does not say how many slots: the host's cpus shared among
 * such pools (at least one each): one box per core by default. */
static void default_slots(struct jd_config *cfg)
{
    int cpus[JD_MAX_CPUS];
    int n = jd_config_cpus(cfg, cpus, JD_MAX_CPUS), given = 0, unset = 0;
    for (int i = 0; i < cfg->npools; i++)
        cfg->pools[i].slots_line ? (given += cfg->pools[i].slots) : unset++;
    int share = unset && n - given > unset ? (n - given) / unset : 1;
    if (share > 256)
        share = 256;   /* the key's own bound */
    for (int i = 0; i < cfg->npools; i++)
        if (!cfg->pools[i].slots_line)
            cfg->pools[i].slots = share;
}

static void derive_defaults(struct jd_config *cfg)
{
    default_slots(cfg);
    char dir[4200];
    if (!cfg->languages)
        cfg->languages = strdup(jd_default_languages(dir, sizeof dir));
    if (!cfg->api.dashboard)
        cfg->api.dashboard = strdup(jd_default_dashboard(dir, sizeof dir));
    if (!cfg->api.max_connections_per_address)   /* one client cannot hold them all */
        cfg->api.max_connections_per_address = cfg->api.max_connections < 64 ? cfg->api.max_connections : 64;
    if (!cfg->api.burst)
        cfg->api.burst = cfg->api.rate > 0 ? (long)cfg->api.rate * 2 + 1 : 1;
    /* the environment's password, for a URL that has none (a platform's
     * script or a systemd unit's Environment=), never for the embedded redis */
    const char *envpw = getenv("JUDGED_REDIS_PASSWORD");
    if (cfg->redis && !cfg->redis_password && envpw && *envpw && !queue_url_has_password(cfg->redis))
        cfg->redis_password = strdup(envpw);
    if (cfg->admission_durability == JD_DURABLE_DEFAULT)
        cfg->admission_durability =
            cfg->redis && (!strncmp(cfg->redis, "sentinel://", 11) || queue_url_is_cluster(cfg->redis))
                ? JD_DURABLE_REPLICATED : JD_DURABLE_LOCAL;
    if (!cfg->host) {
        char h[256] = "localhost";
        gethostname(h, sizeof h - 1);
        cfg->host = strdup(h);
    }
}

/* judged.yaml's words: a syntax error is "FILE:LINE: why"; an empty file
 * is refused by parse_root (no pools). */
static const struct ydoc_how config_words = {.syntax_key = NULL, .empty_ok = true};

static int load_document(struct ctx *c, FILE *f, struct jd_config *cfg)
{
    struct common_errors errs = {0};
    struct ydoc y;
    c->y = &y;
    int rc = ydoc_read(&y, f, c->path, &config_words, &errs) ? reader_error(c)
                                                               : parse_root(c, ydoc_root(&y), cfg);
    ydoc_free(&y);
    common_errors_free(&errs);
    c->y = NULL;
    return rc;
}

int jd_config_load(struct jd_config *cfg, const char *path, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->path = strdup(path);
    apply_defaults(&root_table, cfg);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct ctx c = {path, NULL, err, errlen};
    int rc = load_document(&c, f, cfg);
    fclose(f);
    if (rc)
        return -1;
    int cpus[JD_MAX_CPUS];
    if (cfg->cpus && jd_config_cpus(cfg, cpus, JD_MAX_CPUS) < 0) {
        snprintf(err, errlen, "%s:%d: key 'cpus': expected a CPU list like 0-3,6 (numbers below %d)", path,
                 cfg->cpus_line, JD_MAX_CPUS);
        return -1;
    }
    derive_defaults(cfg);
    return 0;
}

static bool is_string(enum key_type t)
{
    return t == KT_STRING || t == KT_HOST || t == KT_REDIS_URL || t == KT_PASSWORD_FILE ||
           t == KT_LISTEN || t == KT_LISTEN_OR_OFF;
}

static void free_table(const struct key_table *t, void *base)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct key_def *d = &t->keys[i];
        char **s = at(base, d->off);
        if (d->type == KT_SECTION)
            free_table(d->section, at(base, d->off));
        else if (is_string(d->type) && *s) {
            if (d->type == KT_PASSWORD_FILE)
                explicit_bzero(*s, strlen(*s));
            free(*s);
        }
    }
}

void jd_config_free(struct jd_config *cfg)
{
    free(cfg->path);
    free_table(&root_table, cfg);
    for (int i = 0; i < cfg->npools; i++) {
        free(cfg->pools[i].name);
        for (int j = 0; j < cfg->pools[i].nlanguages; j++)
            free(cfg->pools[i].languages[j]);
        free(cfg->pools[i].languages);
    }
    free(cfg->pools);
    memset(cfg, 0, sizeof *cfg);
}

static size_t value_size(enum key_type t)
{
    return is_string(t) ? sizeof(char *)
           : t == KT_INT ? sizeof(int)
           : t == KT_RATE ? sizeof(double)
           : t == KT_BOOL || t == KT_LOG_FORMAT ? sizeof(bool)
           : t == KT_DURABILITY ? sizeof(enum jd_durability)
                                                : sizeof(long);
}

/* A value as a log line may show it: a Redis URL without its password. */
static const char *shown(const struct key_def *d, const char *v, char *buf, size_t len)
{
    if (!v)
        return "(not set)";
    if (d->type != KT_REDIS_URL)
        return v;
    queue_url_redact(v, buf, len);
    return buf;
}

int jd_config_keep_restart(struct jd_config *next, const struct jd_config *running,
                           jd_config_changed_fn *changed, void *arg)
{
    int kept = 0;
    for (size_t i = 0; i < root_table.n; i++) {
        const struct key_def *d = &root_table.keys[i];
        if (!d->restart)
            continue;
        void *to = at(next, d->off);
        const void *from = at((void *)running, d->off);
        if (is_string(d->type)) {
            const char *was = *(char *const *)from, *wanted = *(char **)to;
            char b1[1024], b2[1024];
            if (changed && (was ? !wanted || strcmp(was, wanted) : wanted != NULL))
                changed(d->name, shown(d, was, b1, sizeof b1), shown(d, wanted, b2, sizeof b2), arg);
            free(*(char **)to);
            *(char **)to = was ? strdup(was) : NULL;
        } else {
            memcpy(to, from, value_size(d->type));
        }
        if (d->line_off >= 0)
            *(int *)at(next, (size_t)d->line_off) = *(const int *)at((void *)running, (size_t)d->line_off);
        kept++;
    }
    return kept;
}

static const char *type_doc(enum key_type t)
{
    static const char *const names[] = {
        [KT_STRING] = "string", [KT_HOST] = "name", [KT_REDIS_URL] = "Redis URL",
        [KT_PASSWORD_FILE] = "file", [KT_LOG_FORMAT] = "text or json", [KT_DURATION] = "duration",
        [KT_RETENTION] = "duration, 0: kept", [KT_INT] = "integer", [KT_LONG] = "integer",
        [KT_RATE] = "integer", [KT_SIZE] = "size", [KT_SIZE_OR_0] = "size, 0: none",
        [KT_BOOL] = "true or false", [KT_LISTEN] = "HOST:PORT", [KT_LISTEN_OR_OFF] = "HOST:PORT",
        [KT_SECTION] = "mapping", [KT_POOLS] = "mapping", [KT_LANGUAGES] = "list of language ids",
        [KT_DURABILITY] = "replicated or local",
    };
    return names[t];
}

static void reference_table(FILE *out, const struct key_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct key_def *d = &t->keys[i];
        char type[64];
        if (d->type == KT_INT || d->type == KT_LONG || d->type == KT_RATE)
            snprintf(type, sizeof type, "integer in [%ld, %ld]", d->lo, d->hi);
        else
            snprintf(type, sizeof type, "%s", type_doc(d->type));
        fprintf(out, "| `%s%s` | %s | %s | %s | %s |\n", t->prefix, d->name, type,
                d->dflt ? d->dflt : "-", d->restart ? "restart" : "reload", d->doc);
    }
    for (size_t i = 0; i < t->n; i++)
        if (t->keys[i].section)
            reference_table(out, t->keys[i].section);
}

void jd_config_reference(FILE *out)
{
    fprintf(out, "| key | type | default | on SIGHUP | what |\n| --- | --- | --- | --- | --- |\n");
    reference_table(out, &root_table);
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
