/* cmd_submit.c - judgectl submit: admission through the queue library (the
 * judged_admit function), after checking locally what Redis cannot know:
 * that a language file exists for the language, and the problem: the
 * problem store's current version of it (recorded with the submission, so
 * that a later push does not change what it is judged with), or else a
 * directory under `problems` (development; version ""). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"
#include "runner.h"
#include "store.h"

/* The runner's own rule (its catalog, no sandbox): what judged will judge.
 * 0, or the failure's status (reported). */
static int language_known(struct common *c, const char *dir, const char *lang)
{
    struct runner_config rc = {.languages_dir = dir, .catalog_only = true};
    struct runner *r;
    char err[4096];
    if (runner_open(&r, &rc, err, sizeof err))
        return ctl_fail(c, "config", "languages: %s", err);
    bool ok = runner_language_exists(r, lang);
    runner_close(r);
    return ok ? 0 : ctl_fail(c, "bad_input", "unknown language '%s' (no %s/%s.yaml)", lang, dir, lang);
}

static const char submit_usage[] =
    "usage: judgectl submit --problem P --lang L [--key K] [--priority contest|normal]\n"
    "                        [--config FILE] [--json] SOURCE...\n\n"
    "Admits SOURCE ('-' for stdin) to the queue of the language's pool and prints\n"
    "the new submission's id. Several files, a directory or a .zip/.tar(.gz) are\n"
    "one submission of several files, named by their paths as given (in a\n"
    "directory or archive: below it); the language says which is the entry point\n"
    "(languages/README.md, \"Several files\"). Prints\n"
    "({\"id\", \"pool\", \"duplicate\", \"problem_version\"} with\n"
    "--json). P is a problem of the store (its current version is recorded) or a\n"
    "directory under the configuration's problems. The same --key returns the\n"
    "existing id and admits nothing. A pool whose backlog reached max_queue refuses\n"
    "with 'busy' (exit 75: try again later); an unknown language or a bad or empty\n"
    "source is exit 65, an unknown problem or a missing SOURCE 66.\n";

/* Checks what Redis cannot know; 0, or the failure's status. */
static int check_args(struct common *c, const char *problem, const char *lang, const struct jd_pool_cfg **pool)
{
    *pool = jd_pool_for_language(&c->cfg, lang);
    if (!*pool)
        return ctl_fail(c, "bad_input", "unknown language '%s' (no pool serves it)", lang);
    int rc = language_known(c, c->cfg.languages, lang);
    if (rc)
        return rc;
    if (!queue_valid_name(problem))
        return ctl_fail(c, "bad_input", "bad problem name '%s'", problem);
    return 0;
}

/* The version judged is the store's current one now; a problem the store
 * does not hold is judged from the hosts' problems directory. */
static int problem_version(struct common *c, const char *problem, char version[65], bool *stored)
{
    char err[1024], path[4300];
    struct stat st;
    int src_rc = store_current(&c->conn, problem, version, stored, err, sizeof err);
    if (src_rc)
        return ctl_fail(c, src_rc == STORE_IO ? "unavailable" : "internal", "%s", err);
    snprintf(path, sizeof path, "%s/%s", c->cfg.problems, problem);
    if (!*stored && (stat(path, &st) || !S_ISDIR(st.st_mode)))
        return ctl_fail(c, "not_found", "unknown problem '%s' (not in the problem store, no %s)", problem, path);
    return 0;
}

/* Reads SOURCE and admits it into pool: prints the id (or the JSON
 * document); the exit status. */
static int read_and_admit(struct common *c, const struct jd_pool_cfg *pool, const char *problem,
                          const char *lang, const char *key, const char *priority, char *const *paths, int n)
{
    size_t srclen;
    char err[1024];
    int rc;
    bool missing;
    char *src = ctl_read_submission(paths, n, (size_t)c->cfg.max_source, &srclen, &missing, err, sizeof err);
    if (!src)
        return ctl_fail(c, missing ? "not_found" : "bad_input", "%s", err);
    if (srclen == 0) {
        free(src);
        return ctl_fail(c, "bad_input", "%s: empty source", paths[0]);
    }
    char version[65];
    bool stored;
    if ((rc = setup(c)) || (rc = problem_version(c, problem, version, &stored))) {
        free(src);
        return rc;
    }
    struct queue_admit_args a = {.pool = pool->name, .lang = lang, .problem = problem,
                                 .source = src, .source_len = srclen, .key = key,
                                 .priority = priority, .max_queue = pool->max_queue,
                                 .max_source = c->cfg.max_source, .version = version,
                                 .replicas = c->cfg.admission_durability == JD_DURABLE_REPLICATED ? 1 : 0,
                                 .wait_ms = c->cfg.admission_wait_ms};
    struct queue_admit_reply r;
    enum queue_rc qrc = queue_admit(&c->conn, &a, &r, err, sizeof err);
    free(src);
    if (qrc != QUEUE_OK)   /* the function refuses bad arguments with "ERR judged: ..." */
        return qrc == QUEUE_ERROR && strstr(err, "judged:") ? ctl_fail(c, "bad_input", "%s", err)
                                                           : ctl_queue_fail(c, qrc, err);
    if (r.result == QUEUE_NOT_DURABLE)
        return ctl_fail(c, "busy", "not durable, retry: submission %s reached the primary but no replica "
                                   "confirmed it within %ld ms (admission_durability: replicated)%s",
                        r.id, c->cfg.admission_wait_ms,
                        key ? "; retry with the same --key" : "; retry with --key to be sure of one submission");
    if (r.result == QUEUE_BUSY)
        return ctl_fail(c, "busy", "pool '%s' has %lld submissions waiting (max_queue %ld); try again later",
                        pool->name, r.waiting, pool->max_queue);
    if (c->json) {
        json_t *j = json_pack("{s:s, s:s, s:b, s:s?}", "id", r.id, "pool", pool->name, "duplicate",
                              r.result == QUEUE_DUPLICATE, "problem_version", stored ? version : NULL);
        print_json(j);
        json_decref(j);
    } else {
        printf("%s\n", r.id);
    }
    return 0;
}

int cmd_submit(int argc, char **argv)
{
    struct common c = {0};
    ctl_begin(&c, "submit", argc, argv);
    const char *problem = NULL, *lang = NULL, *key = NULL, *priority = "normal";
    static const struct option opts[] = {
        COMMON_OPTS,
        {"problem", required_argument, NULL, 'p'},
        {"lang", required_argument, NULL, 'l'},
        {"key", required_argument, NULL, 'k'},
        {"priority", required_argument, NULL, 'P'},
        {NULL, 0, NULL, 0},
    };
    int o;
    while ((o = ctl_getopt(&c, argc, argv, "hp:l:k:P:", opts)) != -1) {
        switch (o) {
        case 'p': problem = optarg; break;
        case 'l': lang = optarg; break;
        case 'k': key = optarg; break;
        case 'P': priority = optarg; break;
        case 'h': fputs(submit_usage, stdout); return 0;
        default: return c.status;
        }
    }
    if (optind >= argc)
        return ctl_usage(&c, "expected a SOURCE (or several files)");
    if (!problem || !lang)
        return ctl_usage(&c, "--problem and --lang are required");
    if (strcmp(priority, "contest") && strcmp(priority, "normal"))
        return ctl_usage(&c, "--priority must be contest or normal, not '%s'", priority);
    if (key && (!*key || strlen(key) > 200))
        return ctl_usage(&c, "--key must be 1 to 200 characters");
    const struct jd_pool_cfg *pool;
    int rc = load_config(&c);
    if (rc || (rc = check_args(&c, problem, lang, &pool))) {
        teardown(&c);
        return rc;
    }
    rc = read_and_admit(&c, pool, problem, lang, key, priority, argv + optind, argc - optind);
    teardown(&c);
    return rc;
}
