/* test_redis_auth.c - judged, judgectl and Redis with passwords and ACL
 * users, and retention. A real redis-server with requirepass, then the
 * README's ACL SETUSER block applied as it stands (placeholders replaced):
 * judged as `judged`, submissions and results as `judge-platform`,
 * administration and problem push as `judge-admin`; the platform user's
 * writes beyond admission refused; a wrong or missing password, rediss://
 * and a bad password file refused with a clear message that never holds
 * the password; retention, idempotency and dead-letter TTLs set, and an
 * expired submission gone with `result` saying so. Sandbox slots 640..659. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "harness.h"
#include "common.h"

#include <curl/curl.h>

#define AC_C SRC "/testdata/aplusb/solutions/ac.c"
#define SLOT0 640
#define SLOT_PUSH "650"

/* distinctive, so that finding one in a log or a message is no accident */
#define ROOT_PW "root-Zq93kVw"
#define JUDGED_PW "jd-Hk27pWm4"
#define PLATFORM_PW "pl+3Vx/8@Qn:"   /* needs percent-encoding in a URL */
#define ADMIN_PW "adm-5Rt1LcY"
#define API_PW "api-Wd84nQe2"

static bool contains(const char *hay, const char *needle)
{
    return hay && strstr(hay, needle);
}

/* an authenticated connection (retried: a busy machine) */
static redisContext *a_redis(const char *user, const char *pass)
{
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "AUTH %s %s", user, pass);
    cr_assert(r && r->type == REDIS_REPLY_STATUS, "AUTH %s: %s", user, r ? r->str : c->errstr);
    freeReplyObject(r);
    return c;
}

/* the test's own administrator ("default" is switched off by the README) */
static redisContext *a_root(void)
{
    return a_redis("testroot", ROOT_PW);
}

static long long a_int(const char *fmt, const char *arg)
{
    redisContext *c = a_root();
    redisReply *r = redisCommand(c, fmt, arg);
    long long v = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -99;
    if (r)
        freeReplyObject(r);
    redisFree(c);
    return v;
}

/* judgectl ARGS... with $JUDGED_REDIS_PASSWORD = envpw (NULL: unset);
 * stdout and stderr together into out (the messages that must not show a
 * password); the exit status. */
static int a_ctl(char *out, size_t outlen, const char *envpw, const char *const *args)
{
    char env[200];
    snprintf(env, sizeof env, "JUDGED_REDIS_PASSWORD=%s", envpw ? envpw : "");
    struct t_run_opts o = {.err_to_out = true, .env = {envpw ? env : "JUDGED_REDIS_PASSWORD"}};
    return t_ctlv(out, outlen, &o, args);
}

#define CTL(out, envpw, ...) a_ctl(out, sizeof out, envpw, (const char *const[]){__VA_ARGS__, NULL})

/* The README's ACL block: every line starting "ACL SETUSER" in its code
 * blocks, placeholders replaced, fed to redis-cli as the test's root. */
static void apply_readme_acls(void)
{
    size_t len;
    bool more;
    char *md = common_read_file(SRC "/README.md", 1 << 20, &len, &more);
    cr_assert(md, "README.md");
    char path[400], out[8192];
    snprintf(path, sizeof path, "%s/acl.txt", T_dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    int n = 0;
    for (char *line = strtok(md, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "ACL SETUSER ", 12))
            continue;
        char buf[1024] = "";
        const char *ph[][2] = {{"JUDGED_PASSWORD", JUDGED_PW}, {"ADMIN_PASSWORD", ADMIN_PW},
                               {"PLATFORM_PASSWORD", PLATFORM_PW}, {"API_PASSWORD", API_PW},
                               {"{POOL}", "{native}"}};
        for (const char *p = line; *p;) {
            bool hit = false;
            for (size_t i = 0; i < sizeof ph / sizeof ph[0] && !hit; i++)
                if (!strncmp(p, ph[i][0], strlen(ph[i][0]))) {
                    strcat(buf, ph[i][1]);
                    p += strlen(ph[i][0]);
                    hit = true;
                }
            if (!hit)
                strncat(buf, p++, 1);
        }
        fprintf(f, "%s\n", buf);
        n++;
    }
    fclose(f);
    free(md);
    cr_assert_geq(n, 10, "the README's ACL block (%d lines)", n);
    const char *argv[] = {"redis-cli", "-s", T_sock, "--user", "testroot", "--pass", ROOT_PW,
                          "--no-auth-warning", NULL};
    struct t_run_opts o = {.in = path, .err_to_out = true};
    int st = t_run(out, sizeof out, &o, "redis-cli", argv);
    cr_assert(st == 0, "redis-cli: %s", out);
    cr_assert(!contains(out, "ERR"), "the README's ACL lines: %s", out);
}

static void a_setup(void)
{
    t_setup_dir();
    t_start_redis_with(ROOT_PW);
    /* before any ACL: requirepass refuses a client without the password */
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "GET x");
    cr_assert(r && r->type == REDIS_REPLY_ERROR && contains(r->str, "NOAUTH"), "requirepass");
    freeReplyObject(r);
    r = redisCommand(c, "AUTH %s", ROOT_PW);
    freeReplyObject(r);
    r = redisCommand(c, "ACL SETUSER testroot on >%s ~* &* +@all", ROOT_PW);
    cr_assert(r && r->type == REDIS_REPLY_STATUS);
    freeReplyObject(r);
    redisFree(c);
    apply_readme_acls();
    t_make_problems(1);
}

TestSuite(redis_auth, .init = a_setup, .fini = t_teardown, .timeout = 240);

/* NAME.yaml whose redis: is unix://USERINFO/SOCKET, with EXTRA lines */
static void a_config(const char *name, const char *userinfo, const char *extra, char *path, size_t len)
{
    char url[600];
    snprintf(url, sizeof url, "unix://%s%s", userinfo, T_sock);
    snprintf(path, len, "%s/%s.yaml", T_dir, name);
    t_write(path,
            "redis: %s\nstate_dir: %s/state-%s\nproblems: %s/problems\nlanguages: %s/languages\n"
            "host: %s\nfirst_slot: %d\nlease: 2s\nheartbeat: 500ms\nretry_backoff: 200ms\n%s"
            "pools:\n  native: {languages: [c], slots: 1}\n",
            url, T_dir, name, T_dir, SRC, name, SLOT0, extra ? extra : "");
}

static char *a_log(const char *name)
{
    char path[400];
    size_t len;
    bool more;
    snprintf(path, sizeof path, "%s/judged-%s.log", T_dir, name);
    char *s = common_read_file(path, 1 << 20, &len, &more);
    return s ? s : strdup("");
}

static void assert_no_password(const char *what, const char *text)
{
    static const char *pws[] = {ROOT_PW, JUDGED_PW, PLATFORM_PW, ADMIN_PW, API_PW, "pl%2B3Vx", "WRONG-pw-9x"};
    for (size_t i = 0; i < sizeof pws / sizeof pws[0]; i++)
        cr_assert(!contains(text, pws[i]), "%s shows a password: %s", what, text);
}

/* judged as `judged` (password in the URL), a push as `judge-admin`
 * (password in the environment), submissions and results as
 * `judge-platform` (password file): judged fetches the pushed version and
 * judges; the platform user cannot do more than admit and read. */
Test(redis_auth, judged_and_judgectl_work_under_the_readme_acls)
{
    char cj[400], cp[400], ca[400], pwfile[400], id[160], out[65536];
    a_config("A", "judged:" JUDGED_PW "@", NULL, cj, sizeof cj);
    snprintf(pwfile, sizeof pwfile, "%s/platform.pass", T_dir);
    t_write(pwfile, "%s\n", PLATFORM_PW);
    char extra[500];
    snprintf(extra, sizeof extra, "redis_password_file: %s\n", pwfile);
    a_config("platform", "judge-platform@", extra, cp, sizeof cp);
    a_config("admin", "judge-admin@", NULL, ca, sizeof ca);
    pid_t j = t_judged(cj, "A");
    cr_assert(t_judged_started("A", 30000), "judged started as user judged");
    cr_assert_eq(CTL(out, ADMIN_PW, "--config", ca, "problem", "push", SRC "/testdata/aplusb", "--name",
                     "aplusb", "--slot", SLOT_PUSH, "--json"), 0, "push as judge-admin: %s", out);
    /* the platform: admit, read the result and the events */
    cr_assert_eq(CTL(out, NULL, "--config", cp, "submit", "--problem", "aplusb", "--lang", "c", "--key",
                     "k1", AC_C), 0, "%s", out);
    snprintf(id, sizeof id, "%.*s", (int)strcspn(out, "\n"), out);
    cr_assert(!strncmp(id, "native-", 7), "%s", out);
    cr_assert_eq(CTL(out, NULL, "--config", cp, "result", id, "--wait", "90", "--json"), 0, "%s", out);
    cr_assert(contains(out, "\"verdict\":\"AC\""), "%s", out);
    cr_assert(!contains(out, "\"problem_version\":null"), "judged fetched the pushed version: %s", out);
    cr_assert_eq(CTL(out, NULL, "--config", cp, "events"), 0, "%s", out);
    cr_assert(contains(out, id), "%s", out);
    /* ... and nothing more: drain is refused, nothing written */
    cr_assert_neq(CTL(out, NULL, "--config", cp, "drain", "native"), 0, "the platform cannot drain");
    cr_assert(contains(out, "can't") || contains(out, "NOPERM"), "%s", out);
    cr_assert_eq(a_int("EXISTS %s", "judge:{native}:state"), 0, "nothing written");
    redisContext *c = a_redis("judge-platform", PLATFORM_PW);
    static const char *refused[] = {
        "FCALL judged_set_state 1 judge:{native}:q:normal pool native state paused",
        ("FCALL judged_publish_pool 1 judge:{native}:q:normal pool native languages x max_queue 1 "
         "max_source 1"),
        "FCALL judged_claim 1 judge:{native}:q:normal pool native host evil count 1",
        "FCALL judged_progress 1 judge:{native}:q:normal pool native id x stage test",
        "XADD judge:{native}:results * id forged verdict AC",
        "HSET judge:{native}:stats verdict:AC 1000",
        /* issue 40: a pattern's '*' matches '}' too: judge:{*}:sub:* let
         * the platform write the result of a submission whose id held
         * '}:sub:', and every other pool's keys */
        "HSET judge:{native}:res:x}:sub:y verdict AC",
        "SET judge:{native}:res:x}:seq 1",
        "HSET judge:{other}:sub:x verdict AC",
        "DEL judge:hosts",
        "FUNCTION FLUSH",
        "FLUSHALL",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        redisReply *r = redisCommand(c, refused[i]);
        cr_assert(r && r->type == REDIS_REPLY_ERROR, "the platform user may not: %s", refused[i]);
        freeReplyObject(r);
    }
    redisFree(c);
    cr_assert_eq(a_int("EXISTS %s", "judge:{native}:state"), 0);
    cr_assert_eq(a_int("XLEN %s", "judge:{native}:results"), 1, "one event, none forged");
    /* the admin: pools, drain and resume, hosts, dlq */
    cr_assert_eq(CTL(out, ADMIN_PW, "--config", ca, "drain", "native"), 0, "%s", out);
    cr_assert_eq(CTL(out, ADMIN_PW, "--config", ca, "resume", "native"), 0, "%s", out);
    cr_assert_eq(CTL(out, ADMIN_PW, "--config", ca, "pools", "--json"), 0, "%s", out);
    cr_assert_eq(CTL(out, ADMIN_PW, "--config", ca, "dlq", "list", "--json"), 0, "%s", out);
    cr_assert_eq(CTL(out, ADMIN_PW, "--config", ca, "hosts", "--json"), 0, "%s", out);
    cr_assert(contains(out, "\"alive\":true"), "%s", out);
    assert_no_password("judgectl hosts", out);
    /* judged still judges after the admin's drain/resume; its log: no password */
    cr_assert_eq(CTL(out, NULL, "--config", cp, "submit", "--problem", "aplusb", "--lang", "c", AC_C), 0);
    snprintf(id, sizeof id, "%.*s", (int)strcspn(out, "\n"), out);
    cr_assert_eq(CTL(out, NULL, "--config", cp, "result", id, "--wait", "90"), 0, "%s", out);
    cr_assert_eq(t_stop(j, SIGTERM, 30000) >= 0, true);
    char *log = a_log("A");
    cr_assert(contains(log, "redis unix://judged:***@"), "the URL shown redacted: %s", log);
    assert_no_password("judged's log", log);
    free(log);
}

/* A wrong password, none at all, a bad password file: clear errors, fast,
 * without the password. */
Test(redis_auth, a_wrong_or_missing_password_is_refused_without_showing_it)
{
    char cfg[400], out[16384];
    a_config("wrong", "judged:WRONG-pw-9x@", NULL, cfg, sizeof cfg);
    pid_t j = t_judged(cfg, "wrong");
    int st = t_stop(j, 0, 60000);   /* signal 0: only wait for it to give up */
    cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1, "judged exits 1 (status %d)", st);
    char *log = a_log("wrong");
    cr_assert(contains(log, "refused the password of user judged") && contains(log, "WRONGPASS"), "%s", log);
    cr_assert(contains(log, "judged:***@"), "%s", log);
    assert_no_password("judged's error", log);
    free(log);
    cr_assert_eq(CTL(out, NULL, "--config", cfg, "pools"), 78, "78: the configuration's password: %s", out);
    cr_assert(contains(out, "refused the password") && contains(out, "judged:***@"), "%s", out);
    assert_no_password("judgectl's error", out);
    /* the wrong one in the environment: the same */
    a_config("envwrong", "judge-platform@", NULL, cfg, sizeof cfg);
    cr_assert_eq(CTL(out, "WRONG-pw-9x", "--config", cfg, "result", "native-1-1"), 78, "%s", out);
    cr_assert(contains(out, "refused the password of user judge-platform"), "%s", out);
    assert_no_password("judgectl's error", out);
    /* none at all: Redis says NOAUTH, judged says where a password goes */
    a_config("none", "", NULL, cfg, sizeof cfg);
    j = t_judged(cfg, "none");
    st = t_stop(j, 0, 60000);
    cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1, "judged exits 1 (status %d)", st);
    log = a_log("none");
    cr_assert(contains(log, "NOAUTH") && contains(log, "redis_password_file"), "%s", log);
    free(log);
    /* judgectl too, through the queue and through the store (issue 26: it
     * read "store: NOAUTH Authentication required.", exit 70) */
    cr_assert_eq(CTL(out, NULL, "--config", cfg, "pools"), 78, "%s", out);
    cr_assert(contains(out, "redis_password_file") && contains(out, "JUDGED_REDIS_PASSWORD"), "%s", out);
    cr_assert_eq(CTL(out, NULL, "--config", cfg, "problem", "list"), 78, "%s", out);
    cr_assert(contains(out, "redis_password_file") && contains(out, "JUDGED_REDIS_PASSWORD"), "%s", out);
    /* a password file judged cannot use: named, with its key */
    char extra[500];
    snprintf(extra, sizeof extra, "redis_password_file: %s/no-such.pass\n", T_dir);
    a_config("nofile", "judged@", extra, cfg, sizeof cfg);
    cr_assert_eq(CTL(out, NULL, "--config", cfg, "pools"), 78, "%s", out);
    cr_assert(contains(out, "redis_password_file") && contains(out, "no-such.pass"), "%s", out);
}

Test(redis_auth, rediss_is_refused_with_the_explanation)
{
    char cfg[400], out[16384];
    snprintf(cfg, sizeof cfg, "%s/tls.yaml", T_dir);
    t_write(cfg, "redis: rediss://judged:%s@redis.example:6380/0\nproblems: %s/problems\n"
                 "pools:\n  native: {languages: [c]}\n", JUDGED_PW, T_dir);
    pid_t j = t_judged(cfg, "tls");
    int st = t_stop(j, 0, 30000);
    cr_assert(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 1, "judged refuses (status %d)", st);
    char *log = a_log("tls");
    cr_assert(contains(log, "tls.yaml:1: key 'redis'") && contains(log, "TLS"), "%s", log);
    cr_assert(contains(log, "stunnel") && contains(log, "WireGuard") && contains(log, "private network"),
              "%s", log);
    assert_no_password("judged's refusal", log);
    free(log);
    cr_assert_eq(CTL(out, NULL, "--config", cfg, "pools"), 78, "%s", out);
    cr_assert(contains(out, "hiredis 0.14 has no TLS"), "%s", out);
    assert_no_password("judgectl's refusal", out);
}

/* Retention: the TTLs are set (defaults, then tiny ones), an expired
 * submission is gone and `result` says it may have expired, its key admits
 * anew, dead letters go after dlq_retention. */
Test(redis_auth, finished_submissions_keys_and_dead_letters_expire)
{
    char cfg[400], cp[400], out[16384], id[160], id2[160];
    a_config("A", "judged:" JUDGED_PW "@", NULL, cfg, sizeof cfg);
    a_config("platform", "judge-platform:" "pl%2B3Vx%2F8%40Qn%3A" "@", NULL, cp, sizeof cp);
    pid_t j = t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 30000));
    cr_assert_eq(CTL(out, NULL, "--config", cp, "submit", "--problem", "aplusb", "--lang", "c", "--key",
                     "r1", AC_C), 0, "%s", out);
    snprintf(id, sizeof id, "%.*s", (int)strcspn(out, "\n"), out);
    cr_assert_eq(CTL(out, NULL, "--config", cp, "result", id, "--wait", "90"), 0, "%s", out);
    char sub[300];
    snprintf(sub, sizeof sub, "judge:{native}:sub:%s", id);
    long long ttl = a_int("PTTL %s", sub);
    cr_assert(ttl > 13LL * 86400 * 1000 && ttl <= 14LL * 86400 * 1000, "retention 14d: PTTL %lld", ttl);
    ttl = a_int("PTTL %s", "judge:{native}:idem:r1");
    cr_assert(ttl > 23LL * 3600 * 1000 && ttl <= 24LL * 3600 * 1000, "idempotency 24h: PTTL %lld", ttl);
    cr_assert_eq(t_stop(j, SIGTERM, 30000) >= 0, true);

    /* tiny periods */
    a_config("B", "judged:" JUDGED_PW "@", "retention: 2s\nidempotency_ttl: 1h\ndlq_retention: 3s\n", cfg,
             sizeof cfg);
    j = t_judged(cfg, "B");
    cr_assert(t_judged_started("B", 30000));
    cr_assert_eq(CTL(out, NULL, "--config", cp, "submit", "--problem", "aplusb", "--lang", "c", "--key",
                     "r2", AC_C), 0, "%s", out);
    snprintf(id, sizeof id, "%.*s", (int)strcspn(out, "\n"), out);
    cr_assert_eq(CTL(out, NULL, "--config", cp, "result", id, "--wait", "90"), 0, "%s", out);
    snprintf(sub, sizeof sub, "judge:{native}:sub:%s", id);
    ttl = a_int("PTTL %s", sub);
    cr_assert(ttl == -2 || (ttl > 0 && ttl <= 2000), "retention 2s: PTTL %lld", ttl);
    ttl = a_int("PTTL %s", "judge:{native}:idem:r2");
    cr_assert(ttl > 3000000 && ttl <= 3600000, "idempotency_ttl 1h: PTTL %lld", ttl);
    long long end = t_now_ms() + 30000;
    while (t_now_ms() < end && a_int("EXISTS %s", sub) != 0)
        t_sleep_ms(100);
    cr_assert_eq(a_int("EXISTS %s", sub), 0, "expired");
    cr_assert_eq(CTL(out, NULL, "--config", cp, "result", id), 66, "%s", out);
    cr_assert(contains(out, "no such submission") && contains(out, "expired"), "%s", out);
    /* its idempotency key outlived it: a new admission, not the dead id */
    cr_assert_eq(CTL(out, NULL, "--config", cp, "submit", "--problem", "aplusb", "--lang", "c", "--key",
                     "r2", AC_C), 0, "%s", out);
    snprintf(id2, sizeof id2, "%.*s", (int)strcspn(out, "\n"), out);
    cr_assert_str_neq(id2, id, "the key admits anew");
    cr_assert_eq(CTL(out, NULL, "--config", cp, "result", id2, "--wait", "90"), 0, "%s", out);
    /* a dead letter: the DLQ expires dlq_retention after its newest entry */
    redisContext *c = a_root();
    freeReplyObject(redisCommand(c, "XADD judge:{native}:q:normal * foo bar"));
    redisFree(c);
    end = t_now_ms() + 30000;
    while (t_now_ms() < end && a_int("XLEN %s", "judge:{native}:dlq") < 1)
        t_sleep_ms(50);
    ttl = a_int("PTTL %s", "judge:{native}:dlq");
    cr_assert(ttl == -2 || (ttl > 0 && ttl <= 3000), "dlq_retention 3s: PTTL %lld", ttl);
    end = t_now_ms() + 30000;
    while (t_now_ms() < end && a_int("EXISTS %s", "judge:{native}:dlq") != 0)
        t_sleep_ms(100);
    cr_assert_eq(a_int("EXISTS %s", "judge:{native}:dlq"), 0, "dead letters gone");
    cr_assert_eq(t_stop(j, SIGTERM, 30000) >= 0, true);
}

/* ------------------------------------------------------------ judge-api */

struct body {
    char buf[16384];
    size_t n;
};

static size_t collect(char *p, size_t sz, size_t nm, void *u)
{
    struct body *b = u;
    size_t k = sz * nm;
    size_t room = sizeof b->buf - 1 - b->n;
    memcpy(b->buf + b->n, p, k < room ? k : room);
    b->n += k < room ? k : room;
    b->buf[b->n] = 0;
    return k;
}

/* METHOD http://127.0.0.1:PORT/PATH with the bearer token; the status */
static long http(int port, const char *method, const char *path, const char *token, const char *json,
                 struct body *out)
{
    CURL *c = curl_easy_init();
    char url[300], auth[200];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", token);
    struct curl_slist *h = curl_slist_append(NULL, auth);
    h = curl_slist_append(h, "Content-Type: application/json");
    out->n = 0;
    out->buf[0] = 0;
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (json)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 90L);
    long status = 0;
    cr_assert_eq(curl_easy_perform(c), CURLE_OK, "%s %s", method, path);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return status;
}

static void api_token(const char *cfg, const char *name, const char *role, char *tok, size_t len)
{
    char out[512];
    cr_assert_eq(CTL(out, NULL, "--config", cfg, "tokens", "add", name, "--role", role), 0, "%s", out);
    snprintf(tok, len, "%.*s", (int)strcspn(out, "\n"), out);
    cr_assert(!strncmp(tok, "jdt_", 4), "%s", out);
}

/* judge-api --config cfg, its log in T_dir/api.log; its port */
static int start_api(const char *cfg)
{
    char log[400];
    snprintf(log, sizeof log, "%s/api.log", T_dir);
    pid_t pid = t_fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        unsetenv("JUDGED_REDIS_PASSWORD");
        execl(BIN "/judge-api", "judge-api", "--config", cfg, (char *)NULL);
        _exit(127);
    }
    t_track(pid);
    int port = t_api_port(log);
    char *text = t_read_log(log);
    cr_assert(port > 0, "judge-api did not start: %s", text);
    cr_assert(contains(text, "redis unix://judge-api:***@"), "%s", text);
    assert_no_password("judge-api's log", text);
    free(text);
    return port;
}

/* the configuration of judge-api as the README's `judge-api` user
 * (password file), with webhooks */
static void api_config(char *cfg, size_t len)
{
    char pwfile[400], extra[1200];
    snprintf(pwfile, sizeof pwfile, "%s/api.pass", T_dir);
    t_write(pwfile, "%s\n", API_PW);
    snprintf(extra, sizeof extra,
             "redis_password_file: %s\napi:\n  listen: 127.0.0.1:0\n  tokens: %s/tokens\n"
             "  webhook_secret: s\n  webhook_allow_private: true\n",
             pwfile, T_dir);
    a_config("api", "judge-api@", extra, cfg, len);
}

/* POST /v1/submissions of FILE (aplusb, c) with token tok, callback url cb
 * (NULL: none); the id into id */
static void api_submit(int port, const char *tok, const char *file, const char *cb, char *id, size_t idlen)
{
    size_t srclen;
    bool more;
    char *src = common_read_file(file, 65536, &srclen, &more);
    cr_assert(src, "%s", file);
    char *esc = calloc(1, 4 * srclen + 1), *q = esc;
    for (const char *p = src; *p; p++) {
        if (*p == '"' || *p == '\\')
            *q++ = '\\';
        if (*p == '\n') {
            *q++ = '\\';
            *q++ = 'n';
        } else
            *q++ = *p;
    }
    char *json = malloc(strlen(esc) + 512);
    if (cb)
        sprintf(json, "{\"problem\":\"aplusb\",\"language\":\"c\",\"callback_url\":\"%s\",\"source\":\"%s\"}",
                cb, esc);
    else
        sprintf(json, "{\"problem\":\"aplusb\",\"language\":\"c\",\"source\":\"%s\"}", esc);
    struct body b;
    long st = http(port, "POST", "/v1/submissions", tok, json, &b);
    cr_assert_eq(st, 202, "%ld %s", st, b.buf);
    const char *p = strstr(b.buf, "\"id\":\"");
    cr_assert(p, "%s", b.buf);
    snprintf(id, idlen, "%.*s", (int)strcspn(p + 6, "\""), p + 6);
    free(src);
    free(esc);
    free(json);
}

/* GET /v1/submissions/ID with tok until it is done; its body into b */
static void api_wait_done(int port, const char *tok, const char *id, struct body *b)
{
    char path[300];
    snprintf(path, sizeof path, "/v1/submissions/%s?wait=30", id);
    b->buf[0] = 0;
    for (int i = 0; i < 4 && !contains(b->buf, "\"state\":\"done\""); i++)
        cr_assert_eq(http(port, "GET", path, tok, NULL, b), 200, "%s", b->buf);
    cr_assert(contains(b->buf, "\"state\":\"done\""), "%s", b->buf);
}

Test(redis_auth, judge_api_serves_the_platform_as_its_own_user)
{
    char cj[400], cp[400], tok[128], atok[128], id[160];
    a_config("A", "judged:" JUDGED_PW "@", NULL, cj, sizeof cj);
    api_config(cp, sizeof cp);
    api_token(cp, "platform", "submit", tok, sizeof tok);
    api_token(cp, "ops", "admin", atok, sizeof atok);
    t_judged(cj, "A");
    cr_assert(t_judged_started("A", 30000));
    int port = start_api(cp);
    /* admission with a webhook, the result by long-poll */
    struct body b;
    api_submit(port, tok, AC_C, "http://127.0.0.1:9/hook", id, sizeof id);
    api_wait_done(port, tok, id, &b);
    cr_assert(contains(b.buf, "\"verdict\":\"AC\""), "%s", b.buf);
    /* its webhook delivery (to a closed port) is scheduled: judge-api wrote it */
    long long end = t_now_ms() + 30000;
    while (t_now_ms() < end && a_int("EXISTS %s", "judge:{native}:webhook:retry") != 1)
        t_sleep_ms(100);
    cr_assert_eq(a_int("EXISTS %s", "judge:{native}:webhook:retry"), 1, "the webhook retry is recorded");
    /* an admin token cannot make judge-api's user an admin */
    long st = http(port, "POST", "/v1/pools/native/pause", atok, NULL, &b);
    cr_assert(st >= 500, "pause through the judge-api user: %ld %s", st, b.buf);
    assert_no_password("judge-api's answer", b.buf);
    cr_assert_eq(a_int("EXISTS %s", "judge:{native}:state"), 0, "nothing written");
}

/* Issue 25: under the README's ACL the platform's user could rewrite
 * another owner's finished verdict (HSET of its submission hash: the API
 * then served it), delete the webhook dead letters and plant deliveries.
 * Each write refused now, or, where admission needs the key (the
 * submission hash), without effect: the API serves the true verdict. */
Test(redis_auth, the_platform_user_cannot_rewrite_verdicts_or_webhooks)
{
    char cj[400], cp[400], alice[128], bob[128], id[160], id2[160], out[65536], cmd[1200];
    a_config("A", "judged:" JUDGED_PW "@", NULL, cj, sizeof cj);
    api_config(cp, sizeof cp);
    api_token(cp, "alice", "submit", alice, sizeof alice);
    api_token(cp, "bob", "submit", bob, sizeof bob);
    char pc[400];
    a_config("platform", "judge-platform:" "pl%2B3Vx%2F8%40Qn%3A" "@", NULL, pc, sizeof pc);
    t_judged(cj, "A");
    cr_assert(t_judged_started("A", 30000));
    int port = start_api(cp);
    /* alice's wrong answer, judged */
    struct body b;
    api_submit(port, alice, SRC "/testdata/aplusb/solutions/wa_int32.c", NULL, id, sizeof id);
    api_wait_done(port, alice, id, &b);
    cr_assert(contains(b.buf, "\"verdict\":\"WA\""), "%s", b.buf);
    long long events = a_int("XLEN %s", "judge:{native}:results");

    redisContext *c = a_redis("judge-platform", PLATFORM_PW);
    /* the old attack: her submission hash rewritten to AC 100 (its fields
     * are admission's, the platform's to write; accepted or not, ignored) */
    freeReplyObject(redisCommand(c, "HSET judge:{native}:sub:%s state done verdict AC score 100 "
                                    "report {\"verdict\":\"AC\",\"score\":100,\"tests\":[]} finished 1",
                                 id));
    /* everything else: refused */
    const char *refused[] = {
        "HSET judge:{native}:res:%s verdict AC score 100",
        "HDEL judge:{native}:res:%s verdict",
        "DEL judge:{native}:res:%s",
        "XADD judge:{native}:results * id %s verdict AC score 100 pool native",
        "DEL judge:{native}:webhook:dlq",
        "XADD judge:{native}:webhook:dlq * event 1-1 id %s url http://203.0.113.7/ attempts 1",
        "XDEL judge:{native}:webhook:dlq 0-1",
        "HSET judge:{native}:webhook:1-1 id %s url http://203.0.113.7/hook attempts 0 first 0",
        "ZADD judge:{native}:webhook:retry 0 1-1",
        "XGROUP CREATE judge:{native}:results evil 0",
        "XREADGROUP GROUP webhooks evil COUNT 1 STREAMS judge:{native}:results 0",
        "XAUTOCLAIM judge:{native}:results webhooks evil 0 0-0",
        "XREADGROUP GROUP judged evil COUNT 1 STREAMS judge:{native}:q:normal >",
        ("FCALL judged_rejudge 1 judge:{native}:q:normal pool native id %s version '' "
         "rejudge_id r1"),
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(cmd, sizeof cmd, refused[i], id);
        redisReply *r = redisCommand(c, cmd);
        cr_assert(r && r->type == REDIS_REPLY_ERROR, "the platform user may not: %s (%s)", cmd,
                  r && r->str ? r->str : "no error");
        freeReplyObject(r);
    }
    /* the API and judgectl still serve the true verdict */
    api_wait_done(port, alice, id, &b);
    cr_assert(contains(b.buf, "\"verdict\":\"WA\"") && !contains(b.buf, "\"score\":100"),
              "the API serves the judged verdict: %s", b.buf);
    cr_assert_eq(CTL(out, NULL, "--config", pc, "result", id, "--json"), 0, "%s", out);
    cr_assert(contains(out, "\"verdict\":\"WA\""), "judgectl: %s", out);
    cr_assert_eq(a_int("XLEN %s", "judge:{native}:results"), events, "no event forged");
    cr_assert_eq(a_int("EXISTS %s", "judge:{native}:webhook:1-1"), 0, "no delivery planted");
    cr_assert_eq(a_int("EXISTS %s", "judge:{native}:webhook:retry"), 0, "no delivery planted");

    /* the finishing function called directly, on an entry the platform
     * user holds (its claim made for it: it may not claim): refused at
     * its first write, the result */
    redisContext *root = a_root();
    freeReplyObject(redisCommand(root, "SET judge:{native}:state paused"));
    api_submit(port, bob, AC_C, NULL, id2, sizeof id2);
    redisReply *r = redisCommand(root, "XREADGROUP GROUP judged evil COUNT 1 STREAMS judge:{native}:q:normal >");
    cr_assert(r && r->type == REDIS_REPLY_ARRAY && r->elements == 1, "the entry held for the platform");
    char entry[64];
    snprintf(entry, sizeof entry, "%s", r->element[0]->element[1]->element[0]->element[0]->str);
    freeReplyObject(r);
    /* planted into bob's waiting submission, then "migrated" to a result */
    freeReplyObject(redisCommand(c, "HSET judge:{native}:sub:%s state done verdict WA score 0", id2));
    snprintf(cmd, sizeof cmd, "FCALL judged_migrate_result 1 judge:{native}:q:normal pool native id %s", id2);
    r = redisCommand(c, cmd);
    cr_assert(r && r->type == REDIS_REPLY_ERROR, "the platform user may not: %s", cmd);
    freeReplyObject(r);
    const char *fin[] = {
        ("FCALL judged_finish 1 judge:{native}:q:normal pool native host evil queue normal entry %s "
         "id %s verdict WA score 0 report {}"),
        ("FCALL judged_finish_claim 1 judge:{native}:q:normal pool native host evil queue normal "
         "entry %s id %s verdict WA score 0 report {} count 1"),
        ("FCALL judged_dead_letter 1 judge:{native}:q:normal pool native host evil queue normal "
         "entry %s id %s reason forged"),
        ("FCALL judged_retry 1 judge:{native}:q:normal pool native host evil queue normal "
         "entry %s id %s reason forged max_attempts 1 delay 0"),
    };
    for (size_t i = 0; i < sizeof fin / sizeof fin[0]; i++) {
        snprintf(cmd, sizeof cmd, fin[i], entry, id2);
        r = redisCommand(c, cmd);
        cr_assert(r && r->type == REDIS_REPLY_ERROR, "the platform user may not: %s", cmd);
        freeReplyObject(r);
    }
    redisFree(c);
    snprintf(cmd, sizeof cmd, "judge:{native}:res:%s", id2);
    cr_assert_eq(a_int("EXISTS %s", cmd), 0, "no result written for bob's submission");
    cr_assert_eq(a_int("XLEN %s", "judge:{native}:results"), events, "no event forged");
    cr_assert_eq(a_int("XLEN %s", "judge:{native}:dlq"), 0, "no dead letter");
    /* resumed, judged takes the entry over (lease 2 s) and judges it */
    freeReplyObject(redisCommand(root, "DEL judge:{native}:state"));
    redisFree(root);
    api_wait_done(port, bob, id2, &b);
    cr_assert(contains(b.buf, "\"verdict\":\"AC\""), "bob's true verdict: %s", b.buf);
}
