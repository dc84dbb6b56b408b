/* ctl.h - what judgectl's commands share (internal to judged/): option
 * parsing, the connection, failures and their exit statuses, output. */
#ifndef JUDGED_CTL_H
#define JUDGED_CTL_H

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdbool.h>
#include <sysexits.h>

#include "commands.h"
#include "core.h"

/* judgectl's exit statuses (README "judgectl: exit statuses", and
 * `judgectl --help`): sysexits.h where one fits, so that a script tells a
 * failure to retry from one to fix. */
#define EXIT_NO 1             /* the command worked and the answer is no (health, hosts, a check) */
#define EXIT_PARTLY 2         /* problem verify: no mismatch, but some submissions not judged */
#define EXIT_IE 3             /* judge: the verdict is IE */
/* EX_USAGE 64 bad usage, EX_DATAERR 65 bad input, EX_NOINPUT 66 not found,
 * EX_UNAVAILABLE 69 Redis (or the sandbox) unavailable, EX_SOFTWARE 70
 * internal, EX_TEMPFAIL 75 busy or timed out: try again, EX_CONFIG 78 the
 * configuration file is missing or invalid */

struct common {
    const char *cmd;
    const char *config;
    bool json;
    bool loaded;
    int status;               /* the exit status of the last failure reported */
    struct jd_config cfg;
    struct queue_conn conn;
};

/* common options: --config FILE, --json, --help */
#define COMMON_OPTS \
    {"config", required_argument, NULL, 'c'}, {"json", no_argument, NULL, 'j'}, \
    {"help", no_argument, NULL, 'h'}

/* Starts a command: names it, notes --json anywhere on its command line (so
 * that even a usage error is JSON), resets getopt. */
void ctl_begin(struct common *c, const char *cmd, int argc, char **argv);
/* getopt_long over opts (which include COMMON_OPTS): handles --config and
 * --json itself, reports an unknown option or a missing value (returns '?':
 * the caller returns c->status). shortopts lists the rest ("h" at least). */
int ctl_getopt(struct common *c, int argc, char **argv, const char *shortopts, const struct option *opts);
/* Reports a failure and returns its exit status: with --json one line
 * {"error": {"code": CODE, "message": ..., "status": N}} on stdout, else
 * "judgectl CMD: message" on stderr. CODE: usage, bad_input, not_found,
 * unavailable, internal, busy, timeout, config (the status follows). */
int ctl_fail(struct common *c, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A usage error ("... (try judgectl CMD --help)"): EX_USAGE. */
int ctl_usage(struct common *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A queue library failure: QUEUE_IO is "unavailable", the rest "internal". */
int ctl_queue_fail(struct common *c, enum queue_rc rc, const char *err);
/* --wait, --wait SECONDS, --wait=SECONDS (optional_argument): a bare --wait
 * is *wait = -1 (no limit); a number right after it is its value. 0 ok,
 * else the usage error's status. */
int ctl_wait_opt(struct common *c, int argc, char **argv, double *wait);
/* A number of seconds >= 0 (--wait, ...); 0 ok, else the usage status. */
int ctl_seconds(struct common *c, const char *opt, const char *s, double *out);

/* Loads the configuration (unless loaded) and connects. 0 ok, else the
 * failure's status (reported; nothing is left to tear down). */
int setup(struct common *c);
/* Loads the configuration only. 0 ok, else EX_CONFIG (reported). */
int load_config(struct common *c);
void teardown(struct common *c);
void print_json(json_t *o);
/* A stream entry as JSON: "event" (its id) and its fields. */
json_t *entry_obj(const struct queue_fields *e);
/* Parses --config, --json, --help (and --wait[=S] when wait != NULL);
 * returns an exit status to return now, or -1 to go on. */
int simple_opts(struct common *c, int argc, char **argv, const char *usage_text, double *wait,
                bool *has_wait);
/* {name: {host fields..., alive}}; NULL when Redis failed (reported). */
json_t *load_hosts(struct common *c);
/* runner_problem_check's lines as two JSON arrays: errors, and warnings
 * ("FILE:LINE: KEY: warning: message", which do not fail a check) */
void check_lines_json(const char *lines, json_t **errors, json_t **warnings);
/* Removes every "PREFIX/" from text (temporary paths in error lines). */
void strip_prefix(char *text, const char *prefix);
/* A package in another judge's format (ICPC, DOMjudge) is checked and
 * judged as push stores it: copied into work (made here; pkg is the copy,
 * "" when dir is used in place) and converted. The number of conversion
 * errors, listed in *notes with its warnings (paths as in the package).
 * cmd_local.c. */
struct runner;
struct store_tools;
/* r (NULL: none) runs what the conversion needs run (a CMS task's generator). */
int ctl_convert_copy(const char *dir, struct runner *r, char *work, char *pkg, size_t len, char **notes);
/* What lets a conversion run the package's own programs (a CMS task's
 * generator) in r's boxes (ctl_tools.c). */
struct store_tools ctl_store_tools(struct runner *r);
/* The same with a runner opened (from cfg) only when something must run:
 * push converts every package, and few need a program run. */
#include "runner.h"
struct ctl_lazy_runner {
    struct runner_config cfg;
    struct runner *r;
};
struct store_tools ctl_store_tools_lazy(struct ctl_lazy_runner *lr);
void ctl_lazy_runner_close(struct ctl_lazy_runner *lr);
/* Judges every submission the package at pkg ships (cmd_verify.c): 0 with
 * *report the table as JSON ({"ok", "package", "time_limit", "derived",
 * "submissions", "mismatches", "not_judged"}), else a failure's status
 * (reported). derive: pkg is a writable converted copy whose time limit
 * may be derived (and is then written into its problem.yaml). shown names
 * the package in messages. */
struct runner;
int verify_package(struct common *c, struct runner *r, const char *pkg, const char *shown, bool derive,
                   json_t **report);
/* The table of a report, as `judgectl problem verify` prints it. */
void verify_print(const json_t *report, FILE *out);
/* A conversion's warning of an assumed time limit replaced, in *notes, by
 * one saying what was derived (the report's "derived"). */
void verify_note_derived(char **notes, const json_t *derived);

/* The submission named by paths (ctl_files.c): one file as it is ('-':
 * stdin); a directory, a .zip/.tar/.tar.gz or several files as a file set
 * (fileset.h) packed into one source; at most max bytes. NULL with err
 * (*missing: a path does not exist). */
char *ctl_read_submission(char *const *paths, int n, size_t max, size_t *len, bool *missing, char *err,
                          size_t errlen);

/* The text of `judgectl --help`'s exit status table (also printed by
 * commands that fail in several ways). */
extern const char ctl_exit_table[];

#endif
