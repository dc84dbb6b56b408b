/* test_redis_config.c - pure unit tests (also under ASan + UBSan) of how
 * judged reaches Redis: the URL grammar (user, password, database, unix
 * sockets, IPv6), rediss:// refused with the explanation, redaction (a
 * password never appears in a message), the password from
 * redis_password_file or $JUDGED_REDIS_PASSWORD, and the retention keys. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"

static char dir[64], cfgpath[128], pwpath[128];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/jd-redis-XXXXXX");
    cr_assert(mkdtemp(dir));
    snprintf(cfgpath, sizeof cfgpath, "%s/judged.yaml", dir);
    snprintf(pwpath, sizeof pwpath, "%s/redis.pass", dir);
    unsetenv("JUDGED_REDIS_PASSWORD");
}

static void teardown(void)
{
    unlink(cfgpath);
    unlink(pwpath);
    rmdir(dir);
    unsetenv("JUDGED_REDIS_PASSWORD");
}

TestSuite(redis_config, .init = setup, .fini = teardown);

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

#define POOLS "pools:\n  native: {languages: [c]}\n"

/* loads cfgpath holding TEXT (then the pools); 0 or -1 with err */
static int load(struct jd_config *cfg, const char *text, char *err, size_t errlen)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s" POOLS, text);
    write_file(cfgpath, buf);
    return jd_config_load(cfg, cfgpath, err, errlen);
}

static void expect_refused(const char *text, const char *needle, const char *secret)
{
    struct jd_config cfg;
    char err[1024];
    cr_assert_eq(load(&cfg, text, err, sizeof err), -1, "accepted: %s", text);
    cr_assert(strstr(err, needle), "error '%s' lacks '%s'", err, needle);
    cr_assert(strstr(err, cfgpath), "error '%s' names the file", err);
    if (secret)
        cr_assert(!strstr(err, secret), "error '%s' shows the password", err);
    jd_config_free(&cfg);
}

Test(redis_config, urls_of_every_form_are_accepted)
{
    static const char *ok[] = {
        "unix:///run/judged/redis.sock",
        "unix://judged:s3cret@/run/judged/redis.sock",
        "unix://judged:s3cret@/run/judged/redis.sock?db=2",
        "unix://:s3cret@/run/judged/redis.sock",
        "redis://10.0.0.5",
        "redis://10.0.0.5:6380/3",
        "redis://judged:p%40ss%3Aword@redis.internal:6379/0",
        "redis://judged@redis.internal",
        "redis://:only-a-password@[::1]:6379",
        "redis://[fd00::5]/1",
    };
    char err[512];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_assert_eq(queue_url_check(ok[i], err, sizeof err), 0, "%s: %s", ok[i], err);
    cr_assert(queue_url_has_password("redis://judged:p%40ss@h"));
    cr_assert(!queue_url_has_password("redis://judged@h"));
    cr_assert(!queue_url_has_password("unix:///a@b/sock"), "an '@' in a socket path is no password");
}

Test(redis_config, bad_urls_are_refused_without_quoting_the_password)
{
    static const char *bad[][2] = {
        {"http://judged:s3cret@host", "expected redis://"},
        {"redis://judged:s3cret@host:99999", "port"},
        {"redis://judged:s3cret@host:6379/zero", "database"},
        {"redis://judged:s3cret@", "no host"},
        {"unix://judged:s3cret@relative/sock", "ABSOLUTE"},
        {"redis://judged:s3cr%zzet@host", "percent-encoding"},
        {"redis://judged:s3cret@host?user=x", "db=N"},
    };
    char err[512];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(queue_url_check(bad[i][0], err, sizeof err), -1, "accepted %s", bad[i][0]);
        cr_assert(strstr(err, bad[i][1]), "'%s': '%s' lacks '%s'", bad[i][0], err, bad[i][1]);
        cr_assert(!strstr(err, "s3cr"), "'%s' shows the password", err);
        cr_assert(strstr(err, "***"), "'%s' shows the URL redacted", err);
    }
}

Test(redis_config, rediss_is_refused_with_the_way_to_run_across_hosts)
{
    char err[512];
    cr_assert_eq(queue_url_check("rediss://judged:s3cret@redis.example:6380/0", err, sizeof err), -1);
    cr_assert(strstr(err, "TLS") && strstr(err, "hiredis 0.14"), "%s", err);
    cr_assert(strstr(err, "stunnel") && strstr(err, "WireGuard") && strstr(err, "private network"),
              "%s", err);
    cr_assert(!strstr(err, "s3cret"), "%s", err);
    expect_refused("redis: rediss://judged:s3cret@redis.example:6380\n", "stunnel", "s3cret");
    /* and a connection given such a URL by a program refuses it for good */
    struct queue_conn k;
    queue_conn_init(&k, "rediss://judged:s3cret@127.0.0.1:1", 200);
    cr_assert_eq(queue_conn_ensure(&k), -1);
    cr_assert(k.refused, "not worth retrying");
    cr_assert(strstr(k.err, "TLS") && !strstr(k.err, "s3cret"), "%s", k.err);
    queue_conn_close(&k);
}

Test(redis_config, redaction_hides_the_password_of_any_url)
{
    static const char *cases[][2] = {
        {"redis://judged:s3cret@host:6379/0", "redis://judged:***@host:6379/0"},
        {"unix://judged:s3cret@/run/r.sock?db=1", "unix://judged:***@/run/r.sock?db=1"},
        {"redis://:s3cret@host", "redis://:***@host"},
        {"redis://judged@host", "redis://judged@host"},
        {"unix:///run/redis.sock", "unix:///run/redis.sock"},
        /* malformed (a '/' and an '@' in the password): still hidden */
        {"redis://judged:s3/cr@et@host", "redis://judged:***@host"},
    };
    char buf[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        queue_url_redact(cases[i][0], buf, sizeof buf);
        cr_assert_str_eq(buf, cases[i][1]);
    }
}

Test(redis_config, a_refused_connection_names_the_url_redacted)
{
    struct queue_conn k;
    char url[200];
    snprintf(url, sizeof url, "unix://judged:s3cret@%s/no-such.sock", dir);
    queue_conn_init(&k, url, 200);
    cr_assert_eq(queue_conn_ensure(&k), -1);
    cr_assert(strstr(k.err, "judged:***@") && !strstr(k.err, "s3cret"), "%s", k.err);
    cr_assert(!k.refused, "a missing socket may appear: retried");
    queue_conn_close(&k);
}

Test(redis_config, a_long_connection_error_is_cut_with_an_ellipsis)
{
    /* what a caller's err (a finish reply's is 160 bytes) shows of a
     * connection error that does not fit it */
    struct queue_conn k;
    queue_conn_init(&k, "unix:///nowhere.sock", 200);
    memset(k.err, 'e', sizeof k.err - 1);
    k.err[sizeof k.err - 1] = 0;
    char err[160];
    queue_io_err(&k, "finish", err, sizeof err);
    cr_assert_eq(strlen(err), sizeof err - 1);
    cr_assert(!strncmp(err, "finish: redis: eee", 18), "%s", err);
    cr_assert_str_eq(err + sizeof err - 4, "...");
    k.err[0] = 0;
    queue_io_err(&k, "finish", err, sizeof err);
    cr_assert_str_eq(err, "finish: redis: connection lost");
    k.err[0] = 'x';
    k.err[1] = 0;
    queue_io_err(&k, "claim", err, sizeof err);
    cr_assert_str_eq(err, "claim: redis: x", "a message that fits is whole");
    queue_conn_close(&k);
}

Test(redis_config, password_file_joins_the_url_percent_encoded)
{
    struct jd_config cfg;
    char err[1024], url[512];
    write_file(pwpath, "p@ss:w/rd%\n");
    char text[512];
    snprintf(text, sizeof text, "redis: redis://judged@10.0.0.5:6379/2\nredis_password_file: %s\n", pwpath);
    cr_assert_eq(load(&cfg, text, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(cfg.redis_password, "p@ss:w/rd%", "the final newline is not part of it");
    jd_redis_url(&cfg, url, sizeof url);
    cr_assert_str_eq(url, "redis://judged:p%40ss%3Aw%2Frd%25@10.0.0.5:6379/2");
    cr_assert_eq(queue_url_check(url, err, sizeof err), 0, "%s", err);
    queue_url_redact(url, err, sizeof err);
    cr_assert_str_eq(err, "redis://judged:***@10.0.0.5:6379/2");
    jd_config_free(&cfg);
    /* no user: the default user (requirepass); a unix socket */
    snprintf(text, sizeof text, "redis: unix:///run/r.sock\nredis_password_file: %s\n", pwpath);
    cr_assert_eq(load(&cfg, text, err, sizeof err), 0, "%s", err);
    jd_redis_url(&cfg, url, sizeof url);
    cr_assert_str_eq(url, "unix://:p%40ss%3Aw%2Frd%25@/run/r.sock");
    jd_config_free(&cfg);
}

Test(redis_config, password_file_errors_name_the_file_and_key)
{
    char text[512];
    snprintf(text, sizeof text, "redis: redis://judged@h\nredis_password_file: %s/missing\n", dir);
    expect_refused(text, "redis_password_file", NULL);
    expect_refused(text, "No such file", NULL);
    write_file(pwpath, "");
    snprintf(text, sizeof text, "redis: redis://judged@h\nredis_password_file: %s\n", pwpath);
    expect_refused(text, "alone on one line", NULL);
    write_file(pwpath, "s3cret\nsecond line\n");
    expect_refused(text, "alone on one line", "s3cret");
    write_file(pwpath, "s3cret\n");
    snprintf(text, sizeof text, "redis: redis://judged:other@h\nredis_password_file: %s\n", pwpath);
    expect_refused(text, "in one place", "s3cret");
    snprintf(text, sizeof text, "redis_password_file: %s\n", pwpath);
    expect_refused(text, "needs 'redis:'", "s3cret");
    /* never stdin, a FIFO or a device (nothing to block on) */
    expect_refused("redis: redis://judged@h\nredis_password_file: /dev/null\n", "not a regular file", NULL);
    expect_refused("redis: redis://judged@h\nredis_password_file: \"-\"\n", "-: No such file", NULL);
    snprintf(text, sizeof text, "%s/fifo", dir);
    cr_assert_eq(mkfifo(text, 0600), 0);
    char t2[1024];
    snprintf(t2, sizeof t2, "redis: redis://judged@h\nredis_password_file: %s\n", text);
    expect_refused(t2, "not a regular file", NULL);
    unlink(text);
}

Test(redis_config, environment_password_is_used_when_the_config_has_none)
{
    struct jd_config cfg;
    char err[1024], url[512];
    setenv("JUDGED_REDIS_PASSWORD", "from-env", 1);
    cr_assert_eq(load(&cfg, "redis: redis://platform@h:6379\n", err, sizeof err), 0, "%s", err);
    jd_redis_url(&cfg, url, sizeof url);
    cr_assert_str_eq(url, "redis://platform:from-env@h:6379");
    jd_config_free(&cfg);
    /* the URL's own password wins; the embedded redis gets none */
    cr_assert_eq(load(&cfg, "redis: redis://platform:in-url@h\n", err, sizeof err), 0, "%s", err);
    jd_redis_url(&cfg, url, sizeof url);
    cr_assert_str_eq(url, "redis://platform:in-url@h");
    jd_config_free(&cfg);
    cr_assert_eq(load(&cfg, "state_dir: /tmp/x\n", err, sizeof err), 0, "%s", err);
    jd_redis_url(&cfg, url, sizeof url);
    cr_assert_str_eq(url, "unix:///tmp/x/redis/redis.sock");
    jd_config_free(&cfg);
}

Test(redis_config, retention_keys)
{
    struct jd_config cfg;
    char err[1024];
    cr_assert_eq(load(&cfg, "", err, sizeof err), 0, "%s", err);
    cr_assert_eq(cfg.retention_ms, 14L * 86400 * 1000, "retention: 14d by default");
    cr_assert_eq(cfg.idempotency_ttl_ms, 24L * 3600 * 1000, "idempotency_ttl: 24h by default");
    cr_assert_eq(cfg.dlq_retention_ms, 30L * 86400 * 1000, "dlq_retention: 30d by default");
    jd_config_free(&cfg);
    cr_assert_eq(load(&cfg, "retention: 0\nidempotency_ttl: 90m\ndlq_retention: 1.5d\n", err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(cfg.retention_ms, 0, "0 keeps finished submissions");
    cr_assert_eq(cfg.idempotency_ttl_ms, 90L * 60 * 1000);
    cr_assert_eq(cfg.dlq_retention_ms, 36L * 3600 * 1000);
    jd_config_free(&cfg);
    expect_refused("retention: two weeks\n", "retention", NULL);
    expect_refused("dlq_retention: -1d\n", "dlq_retention", NULL);
    expect_refused("idempotency_ttl: 1y\n", "idempotency_ttl", NULL);
}

Test(redis_config, a_long_password_with_every_kind_of_byte_survives_the_url)
{
    struct jd_config cfg;
    char err[1024], url[4200], pw[901], text[512];
    for (int i = 0; i < 900; i++)
        pw[i] = (char)(33 + i % 94);   /* every printable but space: '@', ':', '/', '%', '?' ... */
    pw[900] = 0;
    write_file(pwpath, pw);
    snprintf(text, sizeof text, "redis: redis://judged@h/1\nredis_password_file: %s\n", pwpath);
    cr_assert_eq(load(&cfg, text, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(cfg.redis_password, pw);
    jd_redis_url(&cfg, url, sizeof url);
    cr_assert(queue_url_has_password(url), "%s", url);
    cr_assert_eq(queue_url_check(url, err, sizeof err), 0, "%s", err);
    queue_url_redact(url, err, sizeof err);
    cr_assert_str_eq(err, "redis://judged:***@h/1");
    jd_config_free(&cfg);
}

/* issue 26: sentinel://, its password and admission_durability's default */
Test(redis_config, sentinel_urls)
{
    static const char *ok[] = {
        "sentinel://10.0.0.1:26379,10.0.0.2:26379/judged",
        "sentinel://10.0.0.1,10.0.0.2:26380,[fd00::3]:26379/judged?db=2",
        "sentinel://judged:s3cret@a:26379,b:26379,c:26379/mymaster",
    };
    char err[512];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_assert_eq(queue_url_check(ok[i], err, sizeof err), 0, "%s: %s", ok[i], err);
    static const char *bad[][2] = {
        {"sentinel://judged:s3cret@a:26379", "MASTER_NAME"},
        {"sentinel://judged:s3cret@a:26379/", "MASTER_NAME"},
        {"sentinel://judged:s3cret@a:26379,/m", "','"},
        {"sentinel://judged:s3cret@a:99999/m", "port"},
        {"sentinel://judged:s3cret@a:1/m%20x", "master name"},
        {"sentinel://judged:s3cret@a:1,b,c,d,e,f,g,h,i/m", "at most"},
        /* issue 40: what one Sentinel names is confirmed by a second */
        {"sentinel://judged:s3cret@10.0.0.1:26379/judged", "a second Sentinel confirms it"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(queue_url_check(bad[i][0], err, sizeof err), -1, "accepted %s", bad[i][0]);
        cr_assert(strstr(err, bad[i][1]), "'%s': '%s' lacks '%s'", bad[i][0], err, bad[i][1]);
        cr_assert(!strstr(err, "s3cr"), "'%s' shows the password", err);
    }
    char url[512];
    cr_assert_eq(queue_url_with_password("sentinel://judged@a:1,b:2/m?db=1", "p@ss", url, sizeof url), 0);
    cr_assert_str_eq(url, "sentinel://judged:p%40ss@a:1,b:2/m?db=1");
    cr_assert(queue_url_has_password(url));
    queue_url_redact(url, err, sizeof err);
    cr_assert_str_eq(err, "sentinel://judged:***@a:1,b:2/m?db=1");

    struct jd_config cfg;
    cr_assert_eq(load(&cfg, "redis: sentinel://127.0.0.1:26379,127.0.0.1:26380/judged\n", err, sizeof err), 0, "%s", err);
    cr_assert_eq(cfg.admission_durability, JD_DURABLE_REPLICATED, "sentinel://: replicated by default");
    cr_assert_eq(cfg.admission_wait_ms, 2000);
    jd_config_free(&cfg);
    cr_assert_eq(load(&cfg, "redis: redis://127.0.0.1\n", err, sizeof err), 0, "%s", err);
    cr_assert_eq(cfg.admission_durability, JD_DURABLE_LOCAL, "one Redis: local by default");
    jd_config_free(&cfg);
    cr_assert_eq(load(&cfg, "redis: redis://127.0.0.1\nadmission_durability: replicated\nadmission_wait: 250ms\n",
                      err, sizeof err), 0, "%s", err);
    cr_assert_eq(cfg.admission_durability, JD_DURABLE_REPLICATED);
    cr_assert_eq(cfg.admission_wait_ms, 250);
    jd_config_free(&cfg);
    expect_refused("redis: sentinel://127.0.0.1:26379,127.0.0.1:26380/judged\nadmission_durability: quorum\n",
                   "expected local or replicated", NULL);
    expect_refused("admission_durability: replicated\n", "embedded", NULL);
}

/* issue 41: redis-cluster://, its seeds, password and durability's default */
Test(redis_config, cluster_urls)
{
    static const char *ok[] = {
        "redis-cluster://10.0.0.1:7001",
        "redis-cluster://10.0.0.1:7001,10.0.0.2:7002,[fd00::3]:7003",
        "redis-cluster://judged:s3cret@a:7001,b?db=0",
    };
    char err[512];
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        cr_assert_eq(queue_url_check(ok[i], err, sizeof err), 0, "%s: %s", ok[i], err);
    static const char *bad[][2] = {
        {"redis-cluster://judged:s3cret@", "no host"},
        {"redis-cluster://judged:s3cret@a:7001,", "','"},
        {"redis-cluster://judged:s3cret@a:99999", "port"},
        {"redis-cluster://judged:s3cret@a:7001?db=2", "only database 0"},
        {"redis-cluster://judged:s3cret@a:7001/3", "only database 0"},
        {"redis-cluster://judged:s3cret@a,b,c,d,e,f,g,h,i", "at most"},
        {"redis-cluster://judged:s3cret@a:7001?x=1", "?db=N"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(queue_url_check(bad[i][0], err, sizeof err), -1, "accepted %s", bad[i][0]);
        cr_assert(strstr(err, bad[i][1]), "'%s': '%s' lacks '%s'", bad[i][0], err, bad[i][1]);
        cr_assert(!strstr(err, "s3cr"), "'%s' shows the password", err);
    }
    char url[512];
    cr_assert_eq(queue_url_with_password("redis-cluster://judged@a:1,b:2", "p@ss", url, sizeof url), 0);
    cr_assert_str_eq(url, "redis-cluster://judged:p%40ss@a:1,b:2");
    queue_url_redact(url, err, sizeof err);
    cr_assert_str_eq(err, "redis-cluster://judged:***@a:1,b:2");

    struct jd_config cfg;
    cr_assert_eq(load(&cfg, "redis: redis-cluster://127.0.0.1:7001,127.0.0.1:7002\n", err, sizeof err), 0, "%s",
                 err);
    cr_assert_eq(cfg.admission_durability, JD_DURABLE_REPLICATED, "redis-cluster://: replicated by default");
    jd_config_free(&cfg);
}

/* nobody answers: the cluster's error names the node (redacted), and retrying may help */
Test(redis_config, no_cluster_node_answers)
{
    struct queue_conn k;
    queue_conn_init(&k, "redis-cluster://judged:s3cret@127.0.0.1:1,127.0.0.1:2", 200);
    cr_assert_eq(queue_conn_ensure(&k), -1);
    cr_assert(strstr(k.err, "127.0.0.1:2"), "%s", k.err);
    cr_assert(!strstr(k.err, "s3cr"), "%s", k.err);
    cr_assert(!k.refused, "no answer is worth retrying");
    queue_conn_close(&k);
}

/* nobody answers: the error names the Sentinels (redacted), and retrying may help */
Test(redis_config, no_sentinel_answers)
{
    struct queue_conn k;
    queue_conn_init(&k, "sentinel://judged:s3cret@127.0.0.1:1,127.0.0.1:2/judged", 200);
    cr_assert_eq(queue_conn_ensure(&k), -1);
    cr_assert(strstr(k.err, "no Sentinel") && strstr(k.err, "judged:***@") && !strstr(k.err, "s3cret"), "%s",
              k.err);
    cr_assert(!k.refused, "Sentinels may come back: retried");
    queue_conn_close(&k);
}
