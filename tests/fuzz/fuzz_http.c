/*
 * fuzz_http.c - libFuzzer target: the bytes a client sends judge-api on one
 * connection (request line, headers, framing, body), against a real
 * judge-api server in this process (api_start: libmicrohttpd, the framing
 * checks, the router, authentication, the handlers) whose Redis is absent,
 * so that every route answers at once. The submit token FUZZ_TOKEN (in the
 * seeds and tests/fuzz/http.dict) opens the authenticated routes.
 *
 * Each input goes out on a new TCP connection, which is then half-closed.
 * What comes back must be nothing (libmicrohttpd may drop what is not HTTP)
 * or responses, each starting "HTTP/1.x DDD "; a 400 for framing ends the
 * connection (nothing after it: what follows was never read as a request);
 * and the server closes the connection within 10 s. Run with ASan + UBSan;
 * see README.md "Fuzzing".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "common.h"
#include "world.h"

#define FUZZ_TOKEN "jdt_fuzz0000000000000000000000000000000000000000000000000000000000"

static struct api a;
static int port;

static void stop_server(void)
{
    api_stop(&a);
    api_tokens_free(&a.tokens);
    api_conf_install(&a, NULL);   /* the first and only snapshot: a.start */
}

static void start_server(void)
{
    char path[256], text[1024], err[1024];
    world_make("http");
    char hash[65];
    api_sha256_hex(FUZZ_TOKEN, strlen(FUZZ_TOKEN), hash);
    snprintf(text, sizeof text, "fuzz submit %s\n", hash);
    world_put("tokens", text);
    snprintf(text, sizeof text,
             "redis: unix:///nonexistent-fuzz-http.sock\nstate_dir: %s/state\nproblems: %s/problems\n"
             "languages: %s/languages\nmax_source: 4K\n"
             "pools:\n  native: {languages: [c], slots: 1}\n"
             "api:\n  listen: 127.0.0.1:0\n  tokens: %s/tokens\n  max_connections: 1000\n"
             "  max_connections_per_address: 1000\n  rate: 0\n",
             world, world, world, world);
    world_put("judged.yaml", text);
    snprintf(path, sizeof path, "%s/judged.yaml", world);
    struct jd_config cfg;
    if (jd_config_load(&cfg, path, err, sizeof err) || api_tokens_load(&a.tokens, cfg.api.tokens, err, sizeof err)) {
        fprintf(stderr, "fuzz_http: %s\n", err);
        abort();
    }
    pthread_mutex_init(&a.conf_lock, NULL);
    a.conf = api_conf_new(&cfg);
    a.start = &a.conf->cfg;
    for (int i = 0; i < a.tokens.n; i++) {
        a.tokens.v[i].bucket = (double)a.start->api.burst;
        a.tokens.v[i].refilled = common_monotonic();
    }
    jd_redis_url(a.start, a.redis_url, sizeof a.redis_url);
    a.openapi = (char *)"openapi: 3.0.3\n";
    a.openapi_len = strlen(a.openapi);
    signal(SIGPIPE, SIG_IGN);
    if (api_start(&a, err, sizeof err)) {
        fprintf(stderr, "fuzz_http: %s\n", err);
        abort();
    }
    port = api_port(&a);
    atexit(stop_server);
}

/* Every abort says why first: a finding must be told from a fault of the
 * harness. */
static void fail(const char *why, const char *buf, size_t len)
{
    fprintf(stderr, "fuzz_http: %s (errno %d); the answer, %zu bytes:\n%.*s\n", why, errno, len,
            (int)(len > 2000 ? 2000 : len), buf ? buf : "");
    abort();
}

/* Responses in what came back: every status line is HTTP/1.x and 3 digits,
 * and nothing follows a framing refusal. */
static void check_answer(const char *buf, size_t len)
{
    if (!len)
        return;
    if (len < 13 || strncmp(buf, "HTTP/1.", 7))
        fail("an answer that is not HTTP", buf, len);
    for (const char *p = buf; p && p < buf + len; p = memmem(p + 1, (size_t)(buf + len - p - 1), "\r\nHTTP/1.", 9)) {
        const char *s = *p == '\r' ? p + 2 : p;
        if ((size_t)(buf + len - s) < 13 || s[8] != ' ' || s[9] < '1' || s[9] > '5' || s[10] < '0' ||
            s[10] > '9' || s[11] < '0' || s[11] > '9' || s[12] != ' ')
            fail("a malformed status line", buf, len);
    }
    const char *refusal = memmem(buf, len, "\"field\":\"headers\"", 17);
    if (refusal && memmem(refusal, (size_t)(buf + len - refusal), "\nHTTP/1.", 8))
        fail("a request was read after a framing refusal", buf, len);
}

/* A connection to the server. libFuzzer's -timeout runs a SIGALRM every
 * second: a connect that waits (a full accept queue retransmits its SYN
 * after a second) returns EINTR and goes on in the kernel, so it is waited
 * for, not retried. That EINTR was the one unexplained abort seen in CI. */
static int connect_server(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (fd < 0)
        fail("no socket", NULL, 0);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
        return fd;
    if (errno != EINTR)
        fail("cannot connect to the server", NULL, 0);
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int err = 0;
    socklen_t len = sizeof err;
    double end = common_monotonic() + 10;
    while (poll(&p, 1, 100) != 1)
        if (common_monotonic() > end)
            fail("a connection not accepted in 10 s", NULL, 0);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
        errno = err;
        fail("cannot connect to the server", NULL, 0);
    }
    return fd;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (!port)
        start_server();
    int fd = connect_server();
    /* what the server takes; it may close early (a refusal), then the rest is not sent */
    for (size_t off = 0; off < size;) {
        ssize_t n = send(fd, data + off, size - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    shutdown(fd, SHUT_WR);
    static char buf[1 << 20];
    size_t len = 0;
    double end = common_monotonic() + 10;
    for (;;) {
        if (common_monotonic() > end)
            fail("a half-closed connection kept open 10 s: a slot held for nothing", buf, len);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, 100) != 1)
            continue;
        ssize_t n = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        if (len == sizeof buf - 1)
            break;
    }
    buf[len] = 0;
    close(fd);
    check_answer(buf, len);
    return 0;
}
