/* main.c - judge-api --config FILE: loads judged's configuration (its api:
 * section), the tokens file, and serves until SIGTERM/SIGINT. */
#include <curl/curl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "api.h"
#include "common.h"
#include "core.h"

extern const char api_openapi_yaml[];   /* openapi.yaml, embedded at build time */

static void usage(void)
{
    printf("usage: judge-api --config FILE   (default: $JUDGED_CONFIG, else /etc/judged/judged.yaml)\n\n"
           "The HTTP front door of judged: admission, results, events, administration and\n"
           "metrics over HTTP/JSON (the endpoints: GET /v1/openapi.yaml). Reads the same\n"
           "YAML file as judged; its api: section says where to listen and where the\n"
           "tokens file is:\n\n"
           "  api:\n"
           "    listen: 127.0.0.1:8080   # HOST:PORT (port 0: any free port, logged)\n"
           "    tokens: /etc/judged/tokens  # made with: judgectl tokens add NAME --role R\n"
           "    max_connections: 512\n"
           "    threads: 4               # serve every connection (default: 2 x the CPUs)\n"
           "    max_connections_per_address: 64  # one client cannot hold them all\n"
           "    max_streams_per_token: 32        # open event streams per token (more: 429)\n"
           "    rate: 50                 # requests/s per token (0 = unlimited)\n"
           "    burst: 100\n"
           "    sse_heartbeat: 15s\n"
           "    sse_buffer: 10000        # verdict events kept in memory for /v1/events\n"
           "    dashboard: DIR           # the dashboard's files (GET /)\n"
           "    webhook_secret: S        # signs callbacks (HMAC-SHA256); none: no webhooks\n"
           "    webhook_retry_for: 1h    # then the webhook dead-letter list\n"
           "    webhook_timeout: 10s\n"
           "    webhook_workers: 8       # deliveries at once; a tenant gets half at most\n"
           "    webhook_per_destination: 2  # of those, to one host:port\n"
           "    webhook_allow_private: false  # loopback/private callback addresses (SSRF)\n\n"
           "SIGHUP reads the configuration (pools, languages, problems, limits) and the\n"
           "tokens file again; the listener, event streams and webhooks keep their\n"
           "settings until a restart. Stops on SIGTERM or SIGINT.\n");
}

/* The tokens file again (judgectl tokens add), named by the current
 * configuration; a bad file keeps the old tokens. Buckets start full. */
static void reload_tokens(struct api *a)
{
    struct api_conf *c = api_conf_get(a);
    struct api_tokens t;
    char err[1024];
    if (api_tokens_load(&t, c->cfg.api.tokens, err, sizeof err)) {
        fprintf(stderr, "judge-api: SIGHUP: tokens: %s (the old tokens stay)\n", err);
        api_conf_put(c);
        return;
    }
    for (int i = 0; i < t.n; i++) {
        t.v[i].bucket = (double)c->cfg.api.burst;
        t.v[i].refilled = common_monotonic();
    }
    api_conf_put(c);
    pthread_mutex_lock(&a->lock);
    struct api_tokens old = a->tokens;
    a->tokens = t;
    pthread_mutex_unlock(&a->lock);
    api_tokens_free(&old);
    fprintf(stderr, "judge-api: SIGHUP: %d tokens\n", t.n);
}

static void restart_needed(const char *key, const char *running, const char *wanted, void *arg)
{
    (void)arg;
    fprintf(stderr, "judge-api: SIGHUP: %s %s needs a restart; it stays %s\n", key, wanted, running);
}

/* The api keys read once at start (a->start: the listening socket, the
 * events hub, the webhook threads): a new value waits for a restart. */
static void api_restart_needed(const struct jd_api_cfg *now, const struct jd_api_cfg *next)
{
    const char *changed = strcmp(now->listen, next->listen)                      ? "api.listen"
                          : now->max_connections != next->max_connections       ? "api.max_connections"
                          : now->max_connections_per_address != next->max_connections_per_address
                              ? "api.max_connections_per_address"
                          : now->max_streams_per_token != next->max_streams_per_token ? "api.max_streams_per_token"
                          : now->threads != next->threads                       ? "api.threads"
                          : now->sse_buffer != next->sse_buffer                 ? "api.sse_buffer"
                          : now->sse_heartbeat_ms != next->sse_heartbeat_ms     ? "api.sse_heartbeat"
                          : !now->webhook_secret != !next->webhook_secret ||
                                  (now->webhook_secret && strcmp(now->webhook_secret, next->webhook_secret))
                              ? "api.webhook_secret"
                          : now->webhook_workers != next->webhook_workers       ? "api.webhook_workers"
                          : now->webhook_per_destination != next->webhook_per_destination
                              ? "api.webhook_per_destination"
                          : now->webhook_timeout_ms != next->webhook_timeout_ms ? "api.webhook_timeout"
                          : now->webhook_retry_for_ms != next->webhook_retry_for_ms ? "api.webhook_retry_for"
                          : now->webhook_allow_private != next->webhook_allow_private ? "api.webhook_allow_private"
                                                                                      : NULL;
    if (changed)
        fprintf(stderr, "judge-api: SIGHUP: %s (and any other key of the listener, event streams and "
                        "webhooks) changed: it needs a restart; the running value stays\n", changed);
}

/* SIGHUP: the configuration file again, then the tokens file. Pools,
 * languages, problems and the limits a request checks change for the
 * requests that begin after the swap; one already running finishes with the
 * snapshot it began with. A file that does not load changes nothing (the
 * old configuration goes on serving) and says why. */
static void reload(struct api *a, const char *path)
{
    struct jd_config nc;
    char err[4096];
    if (jd_config_load(&nc, path, err, sizeof err)) {
        fprintf(stderr, "judge-api: SIGHUP: configuration not reloaded, the old one stays: %s\n", err);
    } else {
        jd_config_keep_restart(&nc, a->start, restart_needed, NULL);   /* redis and the like */
        api_restart_needed(&a->start->api, &nc.api);
        int npools = nc.npools;
        api_conf_install(a, api_conf_new(&nc));
        fprintf(stderr, "judge-api: SIGHUP: configuration reloaded (%d pool%s)\n", npools, npools == 1 ? "" : "s");
    }
    reload_tokens(a);
}

/* The command line: 0 to go on, else 1 + the exit status (--help,
 * --version, a usage error). */
static int parse_args(int argc, char **argv, const char **config)
{
    static const struct option opts[] = {{"config", required_argument, NULL, 'c'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"version", no_argument, NULL, 'V'},
                                         {NULL, 0, NULL, 0}};
    int o;
    while ((o = getopt_long(argc, argv, "c:hV", opts, NULL)) != -1) {
        switch (o) {
        case 'c': *config = optarg; break;
        case 'h': usage(); return 1;
        case 'V': printf("judge-api %s\n", JUDGED_VERSION); return 1;
        default: fprintf(stderr, "judge-api: try --help\n"); return 1 + 2;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "judge-api: unexpected argument '%s' (try --help)\n", argv[optind]);
        return 1 + 2;
    }
    return 0;
}

/* The configuration (the first snapshot, a->start) and the tokens, each
 * token's bucket full. */
static int load(struct api *a, const char *config)
{
    char err[4096];
    struct jd_config cfg;
    if (jd_config_load(&cfg, config, err, sizeof err)) {
        fprintf(stderr, "judge-api: %s\n", err);
        return -1;
    }
    if (api_tokens_load(&a->tokens, cfg.api.tokens, err, sizeof err)) {
        fprintf(stderr, "judge-api: tokens: %s\n", err);
        jd_config_free(&cfg);
        return -1;
    }
    for (int i = 0; i < a->tokens.n; i++) {
        a->tokens.v[i].bucket = (double)cfg.api.burst;
        a->tokens.v[i].refilled = common_monotonic();
    }
    pthread_mutex_init(&a->conf_lock, NULL);
    api_conf_install(a, api_conf_new(&cfg));
    a->start = &a->conf->cfg;   /* main holds a reference to it until exit */
    jd_redis_url(a->start, a->redis_url, sizeof a->redis_url);
    return 0;
}

/* Two fds per connection (socket, Redis): the soft limit up to the hard one. */
static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* The HTTP server, then the webhook threads; on failure nothing runs. */
static int start(struct api *a)
{
    char err[4096];
    if (api_start(a, err, sizeof err)) {
        fprintf(stderr, "judge-api: %s\n", err);
        return -1;
    }
    if (api_webhooks_start(a, err, sizeof err)) {
        fprintf(stderr, "judge-api: %s\n", err);
        api_stop(a);
        return -1;
    }
    char shown[sizeof a->redis_url];
    queue_url_redact(a->redis_url, shown, sizeof shown);   /* never the password */
    fprintf(stderr, "judge-api: listening on port %d (%s), redis %s, %d tokens (pid %d)\n",
            api_port(a), a->start->api.listen, shown, a->tokens.n, (int)getpid());
    return 0;
}

int main(int argc, char **argv)
{
    const char *config = jd_default_config();
    int rc = parse_args(argc, argv, &config);
    if (rc)
        return rc - 1;
    static struct api a;
    if (load(&a, config))
        return 1;
    struct api_conf *first = api_conf_get(&a);   /* a.start, beyond any SIGHUP */
    curl_global_init(CURL_GLOBAL_DEFAULT);   /* before any thread */
    a.openapi = (char *)api_openapi_yaml;
    a.openapi_len = strlen(api_openapi_yaml);
    raise_nofile();
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGPIPE);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);   /* MHD's threads inherit the mask */
    if (start(&a)) {
        api_tokens_free(&a.tokens);
        api_conf_install(&a, NULL);
        api_conf_put(first);
        return 1;
    }
    sigdelset(&set, SIGPIPE);
    int sig;
    while (sigwait(&set, &sig) || (sig != SIGTERM && sig != SIGINT)) {
        if (sig == SIGHUP)
            reload(&a, config);
    }
    fprintf(stderr, "judge-api: stopping (signal %d)\n", sig);
    api_webhooks_stop(&a);
    api_stop(&a);
    api_tokens_free(&a.tokens);
    api_conf_install(&a, NULL);
    api_conf_put(first);
    curl_global_cleanup();
    return 0;
}
