/* test_config.c - pure unit tests of judged's configuration and helpers
 * (also run under ASan + UBSan). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

static char path[64];

static void write_cfg(const char *text)
{
    snprintf(path, sizeof path, "/tmp/jd-config-XXXXXX");
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void expect_error(const char *text, const char *needle)
{
    struct jd_config cfg;
    char err[512];
    write_cfg(text);
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), -1, "accepted: %s", text);
    cr_assert(strstr(err, needle), "error '%s' lacks '%s'", err, needle);
    cr_assert(strstr(err, path), "error '%s' names the file", err);
    jd_config_free(&cfg);
    unlink(path);
}

Test(config, full_example)
{
    struct jd_config cfg;
    char err[512];
    write_cfg("redis: unix:///run/judged/redis.sock\n"
              "state_dir: /var/lib/judged\nproblems: /srv/problems\n"
              "languages: /usr/share/judged/languages\n"
              "lease: 30s\nheartbeat: 10s\nmax_attempts: 3\n"
              "pools:\n"
              "  native: {languages: [c, cpp], slots: 2, max_queue: 10000}\n"
              "  python: {languages: [python3], slots: 2}\n"
              "  java:   {languages: [java], slots: 1}\n");
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(cfg.redis, "unix:///run/judged/redis.sock");
    cr_assert_eq(cfg.lease_ms, 30000);
    cr_assert_eq(cfg.heartbeat_ms, 10000);
    cr_assert_eq(cfg.max_attempts, 3);
    cr_assert_eq(cfg.problem_cache, 2L << 30, "the default problem cache is 2G");
    cr_assert_eq(cfg.max_package, 256L << 20);
    cr_assert_eq(cfg.compile_cache, 256L << 20);
    cr_assert_eq(cfg.package_limits.tests, 0, "no package_limits: the runner's defaults");
    cr_assert_eq(cfg.npools, 3);
    cr_assert_str_eq(cfg.pools[0].name, "native");
    cr_assert_eq(cfg.pools[0].nlanguages, 2);
    cr_assert_eq(cfg.pools[0].max_queue, 10000);
    cr_assert_eq(cfg.pools[1].max_queue, 10000, "a queue has a bound by default");
    cr_assert_str_eq(jd_pool_for_language(&cfg, "cpp")->name, "native");
    cr_assert_str_eq(jd_pool_for_language(&cfg, "java")->name, "java");
    cr_assert_null(jd_pool_for_language(&cfg, "cobol"));
    char url[256];
    jd_redis_url(&cfg, url, sizeof url);
    cr_assert_str_eq(url, "unix:///run/judged/redis.sock");
    jd_config_free(&cfg);
    unlink(path);
}

Test(config, embedded_redis_url_from_state_dir)
{
    struct jd_config cfg;
    char err[512], url[256];
    write_cfg("state_dir: /tmp/x\npools:\n  native: {languages: [c]}\n");
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
    jd_redis_url(&cfg, url, sizeof url);
    cr_assert_str_eq(url, "unix:///tmp/x/redis/redis.sock");
    int cpus[JD_MAX_CPUS];
    cr_assert_eq(cfg.pools[0].slots, jd_config_cpus(&cfg, cpus, JD_MAX_CPUS));
    jd_config_free(&cfg);
    unlink(path);
}

Test(config, errors_name_line_and_key)
{
    expect_error("lease: soon\npools:\n  n: {languages: [c]}\n", ":1: key 'lease'");
    expect_error("pools:\n  n: {languages: [c]}\nbogus: 1\n", ":3: key 'bogus': unknown");
    expect_error("pools:\n  n: {languages: [c], slots: many}\n", ":2: key 'pools.n.slots'");
    expect_error("pools:\n  n: {languages: [c], colour: red}\n", "key 'pools.n.colour'");
    expect_error("pools:\n  n: {slots: 1}\n", "key 'pools.n.languages': missing");
    expect_error("redis: http://x\npools:\n  n: {languages: [c]}\n", ":1: key 'redis'");
    expect_error("state_dir: /x\n", "key 'pools': missing");
    expect_error("pools:\n  a: {languages: [c]}\n  b: {languages: [c]}\n", "two pools");
    expect_error("problem_cache: lots\npools:\n  n: {languages: [c]}\n", ":1: key 'problem_cache'");
    expect_error("pools:\n  n: {languages: [c]}\nstore_quota: -1\n", ":3: key 'store_quota'");
    expect_error("max_package: 0\npools:\n  n: {languages: [c]}\n", ":1: key 'max_package'");
    expect_error("lease: 1s\nheartbeat: 2s\npools:\n  n: {languages: [c]}\n", "key 'heartbeat'");
    expect_error("max_attempts: 0\npools:\n  n: {languages: [c]}\n", ":1: key 'max_attempts'");
    expect_error("pools: [a, b]\n", ":1: key 'pools'");
    expect_error("pools:\n  n: {languages: [c]\n", "did not find expected"); /* YAML syntax */
}

Test(config, durations_and_sizes)
{
    long v;
    cr_assert_eq(jd_parse_duration("30s", &v), 0);
    cr_assert_eq(v, 30000);
    cr_assert_eq(jd_parse_duration("500ms", &v), 0);
    cr_assert_eq(v, 500);
    cr_assert_eq(jd_parse_duration("2m", &v), 0);
    cr_assert_eq(v, 120000);
    cr_assert_eq(jd_parse_duration("1.5", &v), 0);
    cr_assert_eq(v, 1500);
    cr_assert_eq(jd_parse_duration("5 parsecs", &v), -1);
    cr_assert_eq(jd_parse_duration("-1s", &v), -1);
    cr_assert_eq(jd_parse_size("64K", &v), 0);
    cr_assert_eq(v, 65536);
    cr_assert_eq(jd_parse_size("1M", &v), 0);
    cr_assert_eq(v, 1048576);
    cr_assert_eq(jd_parse_size("lots", &v), -1);
}

/* ids are made by judged_admit in judged.lua: POOL-<ms hex>-<seq hex> */
static void new_id(const char *pool, char *buf, size_t len)
{
    snprintf(buf, len, "%s-%011llx-%08x", pool, (unsigned long long)jd_now_ms(), 42u);
}

Test(ids, carry_their_pool)
{
    char id[128], pool[64];
    new_id("native", id, sizeof id);
    cr_assert(queue_id_pool(id, pool, sizeof pool), "%s", id);
    cr_assert_str_eq(pool, "native");
    new_id("py_3.x", id, sizeof id);
    cr_assert(queue_id_pool(id, pool, sizeof pool));
    cr_assert_str_eq(pool, "py_3.x");
    cr_assert_not(queue_id_pool("nodash", pool, sizeof pool));
    cr_assert_not(queue_id_pool("-x-y", pool, sizeof pool));
    char key[128];
    queue_key(key, sizeof key, "native", "q:normal");
    cr_assert_str_eq(key, "judge:{native}:q:normal");
}

Test(config, pool_languages_given_twice)
{
    /* found by fuzz_config: the second list was appended past the end of an
     * array sized for it alone (heap overflow) */
    expect_error("pools:\n  a: {languages: [c], languages: [cpp]}\n",
                 "key 'pools.a.languages': given twice");
}

Test(names, one_rule_for_pools_languages_and_problems)
{
    const char *good[] = {"aplusb", "c", "python3", "A_B-2", "x.y", "_x"};
    const char *bad[] = {"", ".", "..", ".hidden", "-rf", "a/b", "a b", "{x}", "a:b",
                         "x\n", ("0123456789012345678901234567890123456789012345678901234567890123"
                                  "4567890123456789012345678901234567890123456789012345678901234567890")};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        cr_assert(queue_valid_name(good[i]), "%s", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_not(queue_valid_name(bad[i]), "%s", bad[i]);
}

Test(config, api_section_for_judge_api)
{
    struct jd_config cfg;
    char err[512];
    write_cfg("pools:\n  native: {languages: [c]}\n");
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(cfg.api.listen, "127.0.0.1:8080");
    cr_assert_str_eq(cfg.api.tokens, "/etc/judged/tokens");
    cr_assert_eq(cfg.api.max_connections, 512);
    cr_assert_eq(cfg.api.max_connections_per_address, 64, "one address cannot take them all");
    cr_assert_eq(cfg.api.max_streams_per_token, 32);
    cr_assert_eq(cfg.api.rate, 100, "a token has a rate by default");
    cr_assert_eq(cfg.api.burst, 201);
    cr_assert_eq(cfg.api.sse_heartbeat_ms, 15000);
    cr_assert_null(cfg.api.webhook_secret);
    cr_assert_not(cfg.api.webhook_allow_private);
    jd_config_free(&cfg);
    unlink(path);
    write_cfg("pools:\n  native: {languages: [c]}\n"
              "api:\n  listen: '[::1]:0'\n  tokens: /t\n  rate: 50\n  burst: 7\n  sse_heartbeat: 2s\n"
              "  max_connections: 10\n  max_streams_per_token: 3\n"
              "  webhook_secret: s\n  webhook_allow_private: true\n  webhook_retry_for: 10m\n");
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(cfg.api.listen, "[::1]:0");
    cr_assert_eq(cfg.api.rate, 50);
    cr_assert_eq(cfg.api.burst, 7);
    cr_assert_eq(cfg.api.max_connections_per_address, 10, "not above max_connections by default");
    cr_assert_eq(cfg.api.max_streams_per_token, 3);
    cr_assert_eq(cfg.api.sse_heartbeat_ms, 2000);
    cr_assert(cfg.api.webhook_allow_private);
    cr_assert_eq(cfg.api.webhook_retry_for_ms, 600000);
    jd_config_free(&cfg);
    unlink(path);
    expect_error("pools:\n  native: {languages: [c]}\napi:\n  listen: 8080\n", "key 'api.listen'");
    expect_error("pools:\n  native: {languages: [c]}\napi:\n  listen: h:99999\n", "key 'api.listen'");
    expect_error("pools:\n  native: {languages: [c]}\napi:\n  colour: red\n", "key 'api.colour': unknown key");
    expect_error("pools:\n  native: {languages: [c]}\napi:\n  webhook_allow_private: maybe\n",
                 "key 'api.webhook_allow_private'");
    expect_error("pools:\n  native: {languages: [c]}\napi: [1]\n", "key 'api'");
}

/* judged's own metrics server: absent or empty is off; every bad address
 * is refused at load naming the key and what is wrong with it. */
Test(config, metrics_listen_is_off_by_default_and_checked)
{
    struct jd_config cfg;
    char err[512];
    const char *off[] = {"", "metrics_listen:\n", "metrics_listen: ''\n"};
    for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
        char text[256];
        snprintf(text, sizeof text, "%spools:\n  native: {languages: [c]}\n", off[i]);
        write_cfg(text);
        cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
        cr_assert_null(cfg.metrics_listen, "'%s' turns the metrics server off", off[i]);
        jd_config_free(&cfg);
        unlink(path);
    }
    const char *good[] = {"127.0.0.1:9464", "0.0.0.0:9464", "'[::1]:0'", "localhost:9464", "judge-1.lan:80"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        char text[256];
        snprintf(text, sizeof text, "metrics_listen: %s\npools:\n  native: {languages: [c]}\n", good[i]);
        write_cfg(text);
        cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s: %s", good[i], err);
        cr_assert_not_null(cfg.metrics_listen);
        cr_assert_eq(cfg.metrics_listen_line, 1);
        jd_config_free(&cfg);
        unlink(path);
    }
    const struct {
        const char *value, *why;
    } bad[] = {
        {"9464", "expected HOST:PORT"},
        {"127.0.0.1:99999", "[0, 65535]"},
        {"'127.0.0.1:'", "expected HOST:PORT"},
        {"':9464'", "expected HOST:PORT"},
        {"127.0.0.1:94x", "expected HOST:PORT"},
        {"300.1.1.1:9464", "'300.1.1.1' is not an IPv4 address"},
        {"'::1:9464'", "brackets"},
        {"'[::g]:9464'", "not an IPv6 address"},
        {"'host name:9464'", "not a host name"},
        {"[1, 2]", "expected HOST:PORT"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[256], want[128];
        snprintf(text, sizeof text, "pools:\n  native: {languages: [c]}\nmetrics_listen: %s\n", bad[i].value);
        snprintf(want, sizeof want, ":3: key 'metrics_listen': ");
        expect_error(text, want);
        expect_error(text, bad[i].why);
    }
}

Test(config, package_limits_reach_the_runner_settings)
{
    struct jd_config cfg;
    char err[512];
    write_cfg("package_limits: {yaml_size: 2M, package_size: 1G, package_files: 200000, tests: 20000}\n"
              "pools:\n  native: {languages: [c], slots: 1}\n");
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cfg.package_limits.yaml_size, 2L << 20);
    cr_assert_eq(cfg.package_limits.package_size, 1L << 30);
    cr_assert_eq(cfg.package_limits.package_files, 200000);
    cr_assert_eq(cfg.package_limits.tests, 20000);
    jd_config_free(&cfg);
    unlink(path);
}

/* issue 37: one box per core by default. A pool that does not say how
 * many slots gets the host's cpus, shared among such pools; a bad CPU list
 * is named with its line. */
Test(config, slots_default_to_the_hosts_cpus)
{
    struct jd_config cfg;
    char err[512];
    write_cfg("cpus: 0-2,5\npools:\n  native: {languages: [c]}\n");
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
    int cpus[JD_MAX_CPUS];
    cr_assert_eq(jd_config_cpus(&cfg, cpus, JD_MAX_CPUS), 4);
    cr_assert(cpus[0] == 0 && cpus[2] == 2 && cpus[3] == 5);
    cr_assert_eq(cfg.pools[0].slots, 4, "one pool: a slot per CPU");
    jd_config_free(&cfg);
    unlink(path);
    write_cfg("cpus: 0-5\npools:\n  native: {languages: [c]}\n  java: {languages: [java], slots: 2}\n"
              "  python: {languages: [python3]}\n");
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
    cr_assert(cfg.pools[0].slots == 2 && cfg.pools[1].slots == 2 && cfg.pools[2].slots == 2,
              "the CPUs left shared: %d %d %d", cfg.pools[0].slots, cfg.pools[1].slots, cfg.pools[2].slots);
    jd_config_free(&cfg);
    unlink(path);
    write_cfg("pools:\n  native: {languages: [c]}\n");
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cfg.pools[0].slots, jd_config_cpus(&cfg, cpus, JD_MAX_CPUS), "no cpus: judged's own");
    jd_config_free(&cfg);
    unlink(path);
    expect_error("cpus: 0-x\npools:\n  native: {languages: [c]}\n", ":1: key 'cpus': expected a CPU list");
    expect_error("pools:\n  native: {languages: [c]}\ncpus: 3-1\n", ":3: key 'cpus': expected a CPU list");
}

/* issue 40, finding 5 and issue 37: the compile maxima and a helper's
 * build clock reach the runner's settings */
Test(config, compile_maxima_and_helper_clock)
{
    struct jd_config cfg;
    char err[512];
    write_cfg("package_limits: {compile_time_max: 2m, compile_memory_max: 4G, helper_cpu_time: 90s, "
              "helper_wall_time: 10m}\npools:\n  native: {languages: [c], slots: 1}\n");
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cfg.package_limits.compile_time_max_ms, 120000);
    cr_assert_eq(cfg.package_limits.compile_memory_max, 4L << 30);
    cr_assert_eq(cfg.package_limits.compile_output_max, 0, "absent: the runner's default");
    cr_assert_eq(cfg.package_limits.helper_cpu_ms, 90000);
    cr_assert_eq(cfg.package_limits.helper_wall_ms, 600000);
    jd_config_free(&cfg);
    unlink(path);
}

Test(config, bad_package_limits_are_named)
{
    expect_error("package_limits: {files: 10}\npools:\n  native: {languages: [c], slots: 1}\n",
                 "key 'package_limits.files': unknown key (expected yaml_size, package_files, ");
    expect_error("package_limits: {package_size: huge}\npools:\n  native: {languages: [c], slots: 1}\n",
                 "package_size");
    expect_error("package_limits: {tests: 0}\npools:\n  native: {languages: [c], slots: 1}\n",
                 "tests");
    expect_error("package_limits: 5\npools:\n  native: {languages: [c], slots: 1}\n",
                 "package_limits");
}

Test(config, log_format_and_the_lines_judged_names_in_its_refusals)
{
    expect_error("log_format: yaml\npools:\n  n: {languages: [c]}\n", ":1: key 'log_format': expected text or json");
    write_cfg("problems: /srv/p\nlog_format: json\npools:\n  n: {slots: 1,\n      languages: [c]}\n");
    struct jd_config c;
    char err[512];
    cr_assert_eq(jd_config_load(&c, path, err, sizeof err), 0, "%s", err);
    cr_assert(c.log_json);
    cr_assert_eq(c.problems_line, 1);
    cr_assert_eq(c.pools[0].languages_line, 5);
    jd_config_free(&c);
    write_cfg("pools:\n  n: {languages: [c]}\n");
    cr_assert_eq(jd_config_load(&c, path, err, sizeof err), 0, "%s", err);
    cr_assert(!c.log_json, "text by default");
    cr_assert_eq(c.problems_line, 0, "problems: not given");
    jd_config_free(&c);
}

/* What a host adds up before its heartbeat writes judge:{P}:stats: the same
 * buckets judge-api reads (10 ms .. 60 s, +Inf), sums, verdicts by name; a
 * failed write merged back loses nothing. */
/* The key table's defaults are text parsed like the file's: a default
 * that did not parse would leave its field at zero. Each is checked here
 * against its figure. */
Test(config, every_default_of_the_key_table_parses)
{
    struct jd_config cfg;
    char err[512];
    write_cfg("pools:\n  native: {languages: [c]}\n");
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cfg.retention_ms, 14L * 86400 * 1000);
    cr_assert_eq(cfg.idempotency_ttl_ms, 24L * 3600 * 1000);
    cr_assert_eq(cfg.dlq_retention_ms, 30L * 86400 * 1000);
    cr_assert_str_eq(cfg.state_dir, "/var/lib/judged");
    cr_assert_str_eq(cfg.problems, "/srv/problems");
    cr_assert_eq(cfg.problems_line, 0, "not given in the file");
    cr_assert_eq(cfg.lease_ms, 30000);
    cr_assert_eq(cfg.heartbeat_ms, 10000);
    cr_assert_eq(cfg.max_attempts, 3);
    cr_assert_eq(cfg.retry_backoff_ms, 1000);
    cr_assert_eq(cfg.grace_ms, 30000);
    cr_assert_eq(cfg.max_source, 64 * 1024);
    cr_assert_eq(cfg.results_max, 100000);
    cr_assert_eq(cfg.first_slot, 0);
    cr_assert_not(cfg.log_json);
    cr_assert_null(cfg.metrics_listen);
    cr_assert_eq(cfg.problem_cache, 2L << 30);
    cr_assert_eq(cfg.compile_cache, 256L << 20);
    cr_assert_eq(cfg.max_package, 256L << 20);
    cr_assert_eq(cfg.store_quota, 16L << 30);
    cr_assert_eq(cfg.package_limits.tests, 0, "the runner's default");
    int cpus[JD_MAX_CPUS];
    cr_assert_eq(cfg.pools[0].slots, jd_config_cpus(&cfg, cpus, JD_MAX_CPUS), "one pool: a slot per CPU");
    cr_assert_eq(cfg.pools[0].max_queue, 10000);
    cr_assert_eq(cfg.api.webhook_retry_for_ms, 3600 * 1000);
    cr_assert_eq(cfg.api.webhook_timeout_ms, 10000);
    cr_assert_eq(cfg.api.webhook_workers, 8);
    cr_assert_eq(cfg.api.webhook_per_destination, 2);
    cr_assert_eq(cfg.api.sse_buffer, 10000);
    jd_config_free(&cfg);
    unlink(path);
}

/* A key given twice used to win silently over the first; like the
 * runner's YAML reader, judged refuses it naming both lines, at every
 * level of the file. */
Test(config, a_key_given_twice_is_refused_naming_both_lines)
{
    expect_error("lease: 30s\npools:\n  n: {languages: [c]}\nlease: 1s\n",
                 ":4: key 'lease': given twice (first on line 1)");
    expect_error("pools:\n  n: {languages: [c]}\napi:\n  rate: 5\n  rate: 50\n",
                 ":5: key 'api.rate': given twice (first on line 4)");
    expect_error("pools:\n  n:\n    languages: [c]\n    slots: 1\n    slots: 2\n",
                 ":5: key 'pools.n.slots': given twice (first on line 4)");
    expect_error("pools:\n  n: {languages: [c]}\n  n: {languages: [cpp]}\n",
                 ":3: key 'pools': pool 'n' defined twice (first on line 2)");
    expect_error("package_limits:\n  tests: 5\n  tests: 6\npools:\n  n: {languages: [c]}\n",
                 ":3: key 'package_limits.tests': given twice (first on line 2)");
}

static void note_change(const char *key, const char *running, const char *wanted, void *arg)
{
    char *log = arg;
    size_t n = strlen(log);
    snprintf(log + n, 1024 - n, "%s:%s->%s;", key, running, wanted);
}

/* SIGHUP's copy rules come from the table: the restart-only keys keep
 * their running values (a Redis URL shown without its password), every
 * other key takes the file's. */
Test(config, restart_only_keys_keep_their_running_values)
{
    struct jd_config running, next;
    char err[512], log[1024] = "";
    write_cfg("redis: redis://u:secret@127.0.0.1:1\nhost: a\nstate_dir: /s1\nlease: 30s\n"
              "pools:\n  n: {languages: [c]}\n");
    cr_assert_eq(jd_config_load(&running, path, err, sizeof err), 0, "%s", err);
    unlink(path);
    write_cfg("redis: redis://u:other@127.0.0.1:2\nhost: b\nstate_dir: /s1\nlease: 20s\n"
              "metrics_listen: 127.0.0.1:9464\npools:\n  n: {languages: [c]}\n");
    cr_assert_eq(jd_config_load(&next, path, err, sizeof err), 0, "%s", err);
    unlink(path);
    cr_assert_eq(jd_config_keep_restart(&next, &running, note_change, log), 4);
    cr_assert_str_eq(next.redis, "redis://u:secret@127.0.0.1:1");
    cr_assert_str_eq(next.host, "a");
    cr_assert_null(next.metrics_listen);
    cr_assert_eq(next.metrics_listen_line, 0);
    cr_assert_eq(next.lease_ms, 20000, "a reloadable key takes the file's value");
    cr_assert_str_eq(log, "redis:redis://u:***@127.0.0.1:1->redis://u:***@127.0.0.1:2;"
                          "host:a->b;metrics_listen:(not set)->127.0.0.1:9464;");
    cr_assert_null(strstr(log, "secret"));
    jd_config_free(&running);
    jd_config_free(&next);
}

/* judged/DESIGN.md's reference of every key is the table's own rendering:
 * a key added, or a default changed, without the document fails here. */
Test(config, design_md_lists_every_key_of_the_table)
{
    const char *begin = "<!-- config-reference: jd_config_reference's output, checked by test_config -->\n";
    const char *end = "<!-- end of config-reference -->";
    FILE *f = fopen(JUDGED_SOURCE_DIR "/judged/DESIGN.md", "r");
    cr_assert(f);
    static char doc[1 << 20];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = 0;
    char *b = strstr(doc, begin), *e = b ? strstr(b, end) : NULL;
    cr_assert(b && e, "judged/DESIGN.md lacks the config-reference markers");
    b += strlen(begin);
    *e = 0;
    char *want = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&want, &len);
    jd_config_reference(m);
    fclose(m);
    if (strcmp(b, want)) {
        FILE *o = fopen("config-reference.md", "w");
        if (o) {
            fputs(want, o);
            fclose(o);
        }
    }
    cr_assert_str_eq(b, want, "judged/DESIGN.md's key reference differs from the table: the table's "
                              "rendering is in config-reference.md in the test's directory");
    free(want);
}

/* issue 39: a host installed from the Debian package serves every language
 * whose compiler it has, so the shipped configuration's pools list every
 * language file (a new one is served once a pool names it). */
Test(config, the_shipped_judged_yaml_serves_every_language)
{
    FILE *f = fopen(JUDGED_SOURCE_DIR "/packaging/judged.yaml", "r");
    cr_assert(f);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 200, f);
    fclose(f);
    text[n] = 0;
    /* the source tree's files, not the installed ones */
    strcat(text, "languages: " JUDGED_SOURCE_DIR "/languages\n");
    write_cfg(text);
    struct jd_config cfg;
    char err[512];
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
    DIR *d = opendir(JUDGED_SOURCE_DIR "/languages");
    cr_assert(d);
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml"))
            continue;
        char id[256];
        snprintf(id, sizeof id, "%.*s", (int)(len - 5), e->d_name);
        cr_expect(jd_pool_for_language(&cfg, id), "languages/%s is in no pool of packaging/judged.yaml",
                  e->d_name);
        files++;
    }
    closedir(d);
    cr_assert_gt(files, 8);
    jd_config_free(&cfg);
    unlink(path);
}

Test(stats, buckets_sums_and_merge)
{
    struct queue_stats a = {0}, b = {0};
    queue_stats_observe(&a, "AC", 5, 30);
    queue_stats_observe(&a, "WA", -1, 70000);
    queue_stats_observe(&b, "AC", 10, 10);
    queue_stats_merge(&b, &a);
    cr_assert_eq(b.nverdicts, 2);
    cr_assert_str_eq(b.verdict[0], "AC");
    cr_assert_eq(b.vcount[0], 2);
    cr_assert_str_eq(b.verdict[1], "WA");
    cr_assert_eq(b.vcount[1], 1);
    cr_assert_eq(b.wait[0], 2, "5 ms and 10 ms fall in le=10");
    cr_assert_eq(b.wait_sum, 15);
    long long waits = 0;
    for (int i = 0; i < QUEUE_STATS_BUCKETS; i++)
        waits += b.wait[i];
    cr_assert_eq(waits, 2, "a job without a known wait adds no wait observation");
    cr_assert_eq(b.judging[0], 1);
    cr_assert_eq(b.judging[2], 1, "30 ms falls in le=50");
    cr_assert_eq(b.judging[QUEUE_STATS_BUCKETS - 1], 1, "70 s falls in +Inf");
    cr_assert_eq(b.judging_sum, 70040);
}
