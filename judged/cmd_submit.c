/* cmd_submit.c - judgectl submit: admission through the queue library (the
 * judged_admit function), after checking locally what Redis cannot know:
 * that a language file exists for the language and the problem directory
 * exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl.h"
#include "runner.h"

/* The runner's own rule (its catalog, no sandbox): what judged will judge. */
static bool language_known(const char *dir, const char *lang)
{
    struct runner_config rc = {.languages_dir = dir, .catalog_only = true};
    struct runner *r;
    char err[4096];
    if (runner_open(&r, &rc, err, sizeof err)) {
        fprintf(stderr, "judgectl submit: languages: %s\n", err);
        return false;
    }
    bool ok = runner_language_exists(r, lang);
    runner_close(r);
    if (!ok)
        fprintf(stderr, "judgectl submit: unknown language '%s' (no %s/%s.yaml)\n", lang, dir, lang);
    return ok;
}

int cmd_submit(int argc, char **argv)
{
    struct common c = {.cmd = "submit"};
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
    optind = 1;
    while ((o = getopt_long(argc, argv, "c:jhp:l:k:P:", opts, NULL)) != -1) {
        switch (o) {
        case 'c': c.config = optarg; break;
        case 'j': c.json = true; break;
        case 'p': problem = optarg; break;
        case 'l': lang = optarg; break;
        case 'k': key = optarg; break;
        case 'P': priority = optarg; break;
        case 'h':
            printf("usage: judgectl submit --problem P --lang L [--key K] [--priority contest|normal]\n"
                   "                        [--config FILE] [--json] SOURCE\n\n"
                   "Admits SOURCE ('-' for stdin) to the queue of the language's pool and prints\n"
                   "the new submission's id. The same --key returns the existing id and admits\n"
                   "nothing. A pool whose backlog reached max_queue refuses with 'busy' (exit 1).\n");
            return 0;
        default: return 2;
        }
    }
    if (optind != argc - 1) {
        die_usage("submit", "expected exactly one SOURCE%s", "");
        return 2;
    }
    if (!problem || !lang) {
        die_usage("submit", "--problem and --lang are required%s", "");
        return 2;
    }
    if (strcmp(priority, "contest") && strcmp(priority, "normal")) {
        die_usage("submit", "--priority must be contest or normal, not '%s'", priority);
        return 2;
    }
    if (key && (!*key || strlen(key) > 200)) {
        die_usage("submit", "--key must be 1 to 200 characters%s", "");
        return 2;
    }
    char err[1024];
    if (!c.config)
        c.config = jd_default_config();
    if (jd_config_load(&c.cfg, c.config, err, sizeof err)) {
        fprintf(stderr, "judgectl submit: %s\n", err);
        return 1;
    }
    int rc = 1;
    const struct jd_pool_cfg *pool = jd_pool_for_language(&c.cfg, lang);
    char path[4300];
    struct stat st;
    if (!pool) {
        fprintf(stderr, "judgectl submit: unknown language '%s' (no pool serves it)\n", lang);
        jd_config_free(&c.cfg);
        return 1;
    }
    if (!language_known(c.cfg.languages, lang)) {
        jd_config_free(&c.cfg);
        return 1;
    }
    snprintf(path, sizeof path, "%s/%s", c.cfg.problems, problem);
    if (!queue_valid_name(problem) || stat(path, &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "judgectl submit: unknown problem '%s'\n", problem);
        jd_config_free(&c.cfg);
        return 1;
    }
    size_t srclen;
    char *src = jd_read_file(argv[optind], (size_t)c.cfg.max_source, &srclen, err, sizeof err);
    if (!src) {
        fprintf(stderr, "judgectl submit: %s\n", err);
        jd_config_free(&c.cfg);
        return 1;
    }
    if (srclen == 0) {
        fprintf(stderr, "judgectl submit: %s: empty source\n", argv[optind]);
        free(src);
        jd_config_free(&c.cfg);
        return 1;
    }
    c.loaded = true;
    if (setup(&c)) {
        free(src);
        jd_config_free(&c.cfg);
        return 1;
    }
    struct queue_admit_args a = {.pool = pool->name, .lang = lang, .problem = problem,
                                 .source = src, .source_len = srclen, .key = key,
                                 .priority = priority, .max_queue = pool->max_queue,
                                 .max_source = c.cfg.max_source};
    struct queue_admit_reply r;
    char qerr[1024];
    enum queue_rc qrc = queue_admit(&c.conn, &a, &r, qerr, sizeof qerr);
    free(src);
    if (qrc != QUEUE_OK) {
        fprintf(stderr, "judgectl submit: %s\n", qerr);
    } else if (r.result == QUEUE_BUSY) {
        fprintf(stderr, "judgectl submit: busy: pool '%s' has %lld submissions waiting (max_queue %ld); "
                        "try again later\n", pool->name, r.waiting, pool->max_queue);
    } else {
        if (c.json) {
            json_t *j = json_pack("{s:s, s:s, s:b}", "id", r.id, "pool", pool->name, "duplicate",
                                  r.result == QUEUE_DUPLICATE);
            print_json(j);
            json_decref(j);
        } else {
            printf("%s\n", r.id);
        }
        rc = 0;
    }
    teardown(&c);
    return rc;
}

