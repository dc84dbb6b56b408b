/* ctl.h - what judgectl's Redis-side commands share (internal to judged/):
 * option parsing, the connection, output helpers. */
#ifndef JUDGED_CTL_H
#define JUDGED_CTL_H

#include <getopt.h>
#include <jansson.h>
#include <stdbool.h>

#include "commands.h"
#include "jd.h"
#include "paths.h"

struct common {
    const char *cmd;
    const char *config;
    bool json;
    bool loaded;
    struct jd_config cfg;
    struct queue_conn conn;
};

/* common options: --config FILE, --json, --help */
#define COMMON_OPTS \
    {"config", required_argument, NULL, 'c'}, {"json", no_argument, NULL, 'j'}, \
    {"help", no_argument, NULL, 'h'}

void die_usage(const char *cmd, const char *fmt, const char *arg);
/* Loads the configuration (unless loaded) and connects. 0 ok, 1 failed (said so). */
int setup(struct common *c);
void teardown(struct common *c);
/* A raw command failed on the Redis side: says so, frees r. */
bool bad_reply(struct common *c, redisReply *r, const char *what);
long long rint_cmd(struct common *c, const char *fmt, const char *key);
void print_json(json_t *o);
/* A stream entry as JSON: "event" (its id) and its fields. */
json_t *entry_obj(const redisReply *e);
/* Parses --config, --json, --help (and --wait[=S] when wait != NULL);
 * returns an exit status to return now, or -1 to go on. */
int simple_opts(struct common *c, int argc, char **argv, const char *usage_text, double *wait,
                bool *has_wait);
/* {name: {host fields..., alive}} */
json_t *load_hosts(struct common *c);
/* runner_problem_check's lines as two JSON arrays: errors, and warnings
 * ("FILE:LINE: KEY: warning: message", which do not fail a check) */
void check_lines_json(const char *lines, json_t **errors, json_t **warnings);

#endif
