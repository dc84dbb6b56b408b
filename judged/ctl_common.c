/* ctl_common.c - judgectl's shared plumbing for the Redis-side commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

void die_usage(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "judgectl %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (try judgectl %s --help)\n", cmd);
}

int setup(struct common *c)
{
    char err[1024], url[4200];
    if (!c->config)
        c->config = jd_default_config();
    if (!c->loaded && jd_config_load(&c->cfg, c->config, err, sizeof err)) {
        fprintf(stderr, "judgectl %s: %s\n", c->cmd, err);
        return 1;
    }
    c->loaded = true;
    jd_redis_url(&c->cfg, url, sizeof url);
    queue_conn_init(&c->conn, url, 5000);
    if (queue_conn_ensure(&c->conn)) {
        fprintf(stderr, "judgectl %s: %s%s\n", c->cmd, c->conn.err,
                c->cfg.redis ? "" : " (is judged running? it starts the embedded redis)");
        return 1;
    }
    return 0;
}

void teardown(struct common *c)
{
    queue_conn_close(&c->conn);
    jd_config_free(&c->cfg);
}

bool bad_reply(struct common *c, redisReply *r, const char *what)
{
    if (!r) {
        fprintf(stderr, "judgectl %s: %s: redis: %s\n", c->cmd, what, c->conn.err);
        return true;
    }
    if (r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "judgectl %s: %s: %s\n", c->cmd, what, r->str);
        freeReplyObject(r);
        return true;
    }
    return false;
}

long long rint_cmd(struct common *c, const char *fmt, const char *key)
{
    redisReply *r = queue_cmd(&c->conn, fmt, key);
    long long v = r && r->type == REDIS_REPLY_INTEGER ? r->integer : 0;
    if (r)
        freeReplyObject(r);
    return v;
}

void print_json(json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT);
    puts(s);
    free(s);
}

json_t *entry_obj(const redisReply *e)
{
    json_t *o = json_object();
    if (e->type != REDIS_REPLY_ARRAY || e->elements < 2)
        return o;
    json_object_set_new(o, "event", json_string(e->element[0]->str));
    const redisReply *f = e->element[1];
    if (f->type == REDIS_REPLY_ARRAY)
        for (size_t i = 0; i + 1 < f->elements; i += 2) {
            const char *k = queue_rstr(f->element[i]), *v = queue_rstr(f->element[i + 1]);
            if (!k || !v)
                continue;
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

/* {name: {host fields..., alive}} */
json_t *load_hosts(struct common *c)
{
    json_t *out = json_object();
    redisReply *r = queue_cmd(&c->conn, "HGETALL judge:hosts");
    if (r && r->type == REDIS_REPLY_ARRAY)
        for (size_t i = 0; i + 1 < r->elements; i += 2) {
            json_t *h = json_loads(r->element[i + 1]->str, 0, NULL);
            if (!json_is_object(h)) {
                json_decref(h);
                continue;
            }
            redisReply *ex = queue_cmd(&c->conn, "PTTL judge:host:%s", r->element[i]->str);
            bool alive = ex && ex->type == REDIS_REPLY_INTEGER && ex->integer > 0;
            if (ex)
                freeReplyObject(ex);
            json_object_set_new(h, "alive", json_boolean(alive));
            json_object_set_new(out, r->element[i]->str, h);
        }
    if (r)
        freeReplyObject(r);
    return out;
}

int simple_opts(struct common *c, int argc, char **argv, const char *usage_text,
                       double *wait, bool *has_wait)
{
    static const struct option opts[] = {
        COMMON_OPTS,
        {"wait", optional_argument, NULL, 'w'},
        {NULL, 0, NULL, 0},
    };
    int o;
    optind = 1;
    while ((o = getopt_long(argc, argv, "c:jh", opts, NULL)) != -1) {
        switch (o) {
        case 'c': c->config = optarg; break;
        case 'j': c->json = true; break;
        case 'w':
            if (!wait) {
                die_usage(c->cmd, "unknown option --wait%s", "");
                return 2;
            }
            *has_wait = true;
            *wait = optarg ? atof(optarg) : 0;
            break;
        case 'h': fputs(usage_text, stdout); return 0;
        default: return 2;
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
