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
           "SIGHUP reads the tokens file again. Stops on SIGTERM or SIGINT.\n");
}

/* SIGHUP: the tokens file again (judgectl tokens add); a bad file keeps the
 * old tokens. Buckets start full. */
static void reload_tokens(struct api *a)
{
    struct api_tokens t;
    char err[1024];
    if (api_tokens_load(&t, a->cfg.api.tokens, err, sizeof err)) {
        fprintf(stderr, "judge-api: SIGHUP: tokens: %s (the old tokens stay)\n", err);
        return;
    }
    for (int i = 0; i < t.n; i++) {
        t.v[i].bucket = (double)a->cfg.api.burst;
        t.v[i].refilled = common_monotonic();
    }
    pthread_mutex_lock(&a->lock);
    struct api_tokens old = a->tokens;
    a->tokens = t;
    pthread_mutex_unlock(&a->lock);
    api_tokens_free(&old);
    fprintf(stderr, "judge-api: SIGHUP: %d tokens\n", t.n);
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

/* The configuration and the tokens, each token's bucket full. */
static int load(struct api *a, const char *config)
{
    char err[4096];
    if (jd_config_load(&a->cfg, config, err, sizeof err)) {
        fprintf(stderr, "judge-api: %s\n", err);
        return -1;
    }
    if (api_tokens_load(&a->tokens, a->cfg.api.tokens, err, sizeof err)) {
        fprintf(stderr, "judge-api: tokens: %s\n", err);
        jd_config_free(&a->cfg);
        return -1;
    }
    for (int i = 0; i < a->tokens.n; i++) {
        a->tokens.v[i].bucket = (double)a->cfg.api.burst;
        a->tokens.v[i].refilled = common_monotonic();
    }
    jd_redis_url(&a->cfg, a->redis_url, sizeof a->redis_url);
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
            api_port(a), a->cfg.api.listen, shown, a->tokens.n, (int)getpid());
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
        jd_config_free(&a.cfg);
        return 1;
    }
    sigdelset(&set, SIGPIPE);
    int sig;
    while (sigwait(&set, &sig) || (sig != SIGTERM && sig != SIGINT)) {
        if (sig == SIGHUP)
            reload_tokens(&a);
    }
    fprintf(stderr, "judge-api: stopping (signal %d)\n", sig);
    api_webhooks_stop(&a);
    api_stop(&a);
    api_tokens_free(&a.tokens);
    jd_config_free(&a.cfg);
    curl_global_cleanup();
    return 0;
}
