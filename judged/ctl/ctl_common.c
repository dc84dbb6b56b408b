/* ctl_common.c - judgectl's shared plumbing: options, failures and their
 * exit statuses, the connection, output helpers. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

const char ctl_exit_table[] =
    "exit status:\n"
    "   0  success\n"
    "   1  the command worked and the answer is no (health: unhealthy; hosts: a\n"
    "      host is not alive; languages --check: a language failed; problem check:\n"
    "      the package has errors; problem verify: a submission did not earn what\n"
    "      its package expects)\n"
    "   2  problem verify: no submission missed, but some were not judged (a language\n"
    "      this machine has not, a program of several files)\n"
    "   3  judge: the verdict is IE (the problem package or its checker is broken)\n"
    "  64  bad usage (unknown option, missing or malformed argument)\n"
    "  65  bad input (unknown language, bad problem name, empty source, a package\n"
    "      that fails validation)\n"
    "  66  not found (no such submission, pool, dead letter, problem or file)\n"
    "  69  unavailable: Redis does not answer (or, for local commands, no sandbox)\n"
    "  70  internal error (an unexpected reply, an error from Redis)\n"
    "  75  busy or timed out: try again later (max_queue reached, --wait expired,\n"
    "      a judge that failed for an infrastructure reason, an admission no replica\n"
    "      confirmed under admission_durability: replicated)\n"
    "  78  the configuration file is missing or invalid, or Redis refuses its password\n"
    "With --json a failure is one line on stdout:\n"
    "  {\"error\": {\"code\": CODE, \"message\": TEXT, \"status\": N}}\n"
    "CODE is usage, bad_input, not_found, unavailable, internal, busy, timeout or\n"
    "config; without --json the message is one line on stderr.\n";

static const struct {
    const char *code;
    int status;
} codes[] = {
    {"usage", EX_USAGE},          {"bad_input", EX_DATAERR}, {"not_found", EX_NOINPUT},
    {"unavailable", EX_UNAVAILABLE}, {"internal", EX_SOFTWARE}, {"busy", EX_TEMPFAIL},
    {"timeout", EX_TEMPFAIL},     {"config", EX_CONFIG},
};

void ctl_begin(struct common *c, const char *cmd, int argc, char **argv)
{
    c->cmd = cmd;
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--json"))
            c->json = true;
    optind = 1;
    opterr = 0;
}

static int vfail(struct common *c, const char *code, const char *suffix, const char *fmt, va_list ap)
{
    char msg[4096];
    vsnprintf(msg, sizeof msg, fmt, ap);
    int status = EX_SOFTWARE;
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (!strcmp(code, codes[i].code))
            status = codes[i].status;
    if (c->json) {
        json_t *o = json_pack("{s:{s:s, s:s, s:i}}", "error", "code", code, "message", msg, "status", status);
        print_json(o);
        json_decref(o);
        fflush(stdout);
    } else {
        fprintf(stderr, "judgectl%s%s: %s%s\n", *c->cmd ? " " : "", c->cmd, msg, suffix);
    }
    c->status = status;
    return status;
}

int ctl_fail(struct common *c, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int st = vfail(c, code, "", fmt, ap);
    va_end(ap);
    return st;
}

int ctl_usage(struct common *c, const char *fmt, ...)
{
    char hint[200];
    snprintf(hint, sizeof hint, " (try judgectl %s --help)", c->cmd);
    va_list ap;
    va_start(ap, fmt);
    int st = vfail(c, "usage", hint, fmt, ap);
    va_end(ap);
    return st;
}

int ctl_queue_fail(struct common *c, enum queue_rc rc, const char *err)
{
    return ctl_fail(c, rc == QUEUE_IO ? "unavailable" : "internal", "%s", err);
}

int ctl_getopt(struct common *c, int argc, char **argv, const char *shortopts, const struct option *opts)
{
    char spec[64];
    snprintf(spec, sizeof spec, ":%s", shortopts);   /* ':' tells a missing value apart */
    for (;;) {
        int prev = optind;
        int o = getopt_long(argc, argv, spec, opts, NULL);
        if (o == 'c') {
            c->config = optarg;
        } else if (o == 'j') {
            c->json = true;
        } else if (o == ':') {
            ctl_usage(c, "option '%s' needs a value", argv[optind - 1]);
            return '?';
        } else if (o == '?') {
            const char *bad = optind > prev ? argv[optind - 1] : argv[prev];
            if (optopt && bad[0] == '-' && bad[1] == '-' && strchr(bad, '='))
                ctl_usage(c, "option '%.*s' takes no value", (int)(strchr(bad, '=') - bad), bad);
            else if (optopt && !(bad[0] == '-' && bad[1] == '-'))
                ctl_usage(c, "unknown option '-%c'", optopt);
            else
                ctl_usage(c, "unknown option '%s'", bad);
            return '?';
        } else {
            return o;
        }
    }
}

int ctl_seconds(struct common *c, const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !isfinite(v) || v < 0)
        return ctl_usage(c, "%s: '%s' is not a number of seconds", opt, s);
    *out = v;
    return 0;
}

/* "5", "0.5": what may follow a bare --wait as its value */
static bool is_number(const char *s)
{
    char *end;
    strtod(s, &end);
    return *s && !*end && (*s == '.' || (*s >= '0' && *s <= '9'));
}

int ctl_wait_opt(struct common *c, int argc, char **argv, double *wait)
{
    if (optarg)
        return ctl_seconds(c, "--wait", optarg, wait);
    if (optind < argc && is_number(argv[optind]))
        return ctl_seconds(c, "--wait", argv[optind++], wait);
    *wait = -1;
    return 0;
}

int load_config(struct common *c)
{
    char err[1024];
    if (c->loaded)
        return 0;
    if (!c->config)
        c->config = jd_default_config();
    if (jd_config_load(&c->cfg, c->config, err, sizeof err)) {
        jd_config_free(&c->cfg);   /* what the load kept before it failed */
        return ctl_fail(c, "config", "%s", err);
    }
    c->loaded = true;
    return 0;
}

int setup(struct common *c)
{
    char url[4200];
    int rc = load_config(c);
    if (rc)
        return rc;
    jd_redis_url(&c->cfg, url, sizeof url);
    queue_conn_init(&c->conn, url, 5000);
    if (queue_conn_ensure(&c->conn)) {
        /* a refused password or a bad URL is the configuration's fault:
         * retrying (69) would not help */
        rc = ctl_fail(c, c->conn.refused ? "config" : "unavailable", "%s%s", c->conn.err,
                      c->cfg.redis ? "" : " (is judged running? it starts the embedded redis)");
        teardown(c);   /* the caller has nothing to undo */
    }
    return rc;
}

void teardown(struct common *c)
{
    queue_conn_close(&c->conn);
    if (c->loaded)
        jd_config_free(&c->cfg);
    c->loaded = false;
}

void print_json(json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT);
    puts(s);
    free(s);
}

json_t *entry_obj(const struct queue_fields *e)
{
    json_t *o = json_object();
    if (!e->entry[0])
        return o;
    json_object_set_new(o, "event", json_string(e->entry));
    for (size_t i = 0; i < e->n; i++) {
        const char *k = e->kv[2 * i], *v = e->kv[2 * i + 1];
        if (!strcmp(k, "score"))
            json_object_set_new(o, k, json_real(atof(v)));
        else if (!strcmp(k, "time") || !strcmp(k, "attempts"))
            json_object_set_new(o, k, json_integer(atoll(v)));
        else if (!strcmp(k, "history") || !strcmp(k, "fields")) {
            json_t *x = json_loads(v, 0, NULL);
            json_object_set_new(o, k, x ? x : json_string(v));
        } else
            json_object_set_new(o, k, json_string(v));
    }
    return o;
}

json_t *load_hosts(struct common *c)
{
    struct queue_hosts hs;
    char err[512];
    enum queue_rc rc = queue_hosts(&c->conn, &hs, err, sizeof err);
    if (rc) {
        ctl_queue_fail(c, rc, err);
        return NULL;
    }
    json_t *out = queue_hosts_json(&hs);
    queue_hosts_free(&hs);
    return out;
}

int simple_opts(struct common *c, int argc, char **argv, const char *usage_text, double *wait,
                bool *has_wait)
{
    static const struct option opts[] = {
        COMMON_OPTS,
        {"wait", optional_argument, NULL, 'w'},
        {NULL, 0, NULL, 0},
    };
    int o;
    while ((o = ctl_getopt(c, argc, argv, "h", opts)) != -1) {
        switch (o) {
        case 'w':
            if (!wait)
                return ctl_usage(c, "unknown option '--wait'");
            *has_wait = true;
            if (ctl_wait_opt(c, argc, argv, wait))
                return c->status;
            break;
        case 'h': fputs(usage_text, stdout); return 0;
        default: return c->status;
        }
    }
    return -1;
}


void check_lines_json(const char *lines, json_t **errors, json_t **warnings)
{
    *errors = json_array();
    *warnings = json_array();
    for (const char *p = lines; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = strndup(p, len);
        if (len && line)
            json_array_append_new(strstr(line, ": warning: ") ? *warnings : *errors,
                                  json_stringn(line, len));
        free(line);
        p += len + (nl ? 1 : 0);
    }
}

/* Removes every "PREFIX/" from text (temporary paths in error lines). */
void strip_prefix(char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (char *p; text && (p = strstr(text, prefix)) && p[n] == '/';)
        memmove(p, p + n + 1, strlen(p + n + 1) + 1);
}
