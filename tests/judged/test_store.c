/* test_store.c - the problem store with real parts: a private redis-server,
 * `judgectl problem push` validating through the real runner, two judged
 * hosts with separate state_dirs judging in real sandboxes (slots 960..963
 * for host A, 966..967 for host B, 970..971 for push validation: test_api
 * has 900.., test_queue 860.., test_dispatch 600.., demo.sh and the
 * benchmarks 700..). */
#include <dirent.h>
#include <jansson.h>

#include "harness.h"

#define SLOT_A 960
#define SLOT_B 966
#define SLOT_PUSH "970"

static void setup(void)
{
    t_setup(1);
}

static void teardown(void)
{
    t_teardown();
}

TestSuite(store, .init = setup, .fini = teardown, .timeout = 300);

static bool contains(const char *hay, const char *needle)
{
    return hay && strstr(hay, needle) != NULL;
}

/* An A+B package NAME under T_dir/DIR whose answers are a+b+delta, with an
 * optional extra file of `pad` bytes (to make it large). */
static void make_adder(const char *dir, const char *name, int delta, size_t pad)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", T_dir, dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/%s/problem.yaml", T_dir, dir);
    t_write(p, "name: %s\ntime_limit: 2s\nmemory_limit: 256M\nchecker: tokens\n", name);
    snprintf(p, sizeof p, "%s/%s/tests", T_dir, dir);
    mkdir(p, 0755);
    for (int i = 1; i <= 3; i++) {
        snprintf(p, sizeof p, "%s/%s/tests/%d.in", T_dir, dir, i);
        t_write(p, "%d %d\n", i, 10 * i);
        snprintf(p, sizeof p, "%s/%s/tests/%d.out", T_dir, dir, i);
        t_write(p, "%d\n", 11 * i + delta);
    }
    if (pad) {
        snprintf(p, sizeof p, "%s/%s/statement.txt", T_dir, dir);
        FILE *f = fopen(p, "w");
        cr_assert(f);
        for (size_t i = 0; i < pad; i++)
            fputc('a' + (int)((i * 7 + (size_t)delta) % 26), f);
        fclose(f);
    }
}

/* A C source printing a+b+delta. */
static void make_solution(const char *file, int delta)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", T_dir, file);
    t_write(p, "#include <stdio.h>\nint main(void){long long a,b;if(scanf(\"%%lld %%lld\",&a,&b)!=2)return 1;"
               "printf(\"%%lld\\n\",a+b+%d);return 0;}\n", delta);
}

static void make_solution_cpp(const char *file, int delta)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", T_dir, file);
    t_write(p, "#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b+%d<<\"\\n\";}\n", delta);
}

/* judgectl problem push DIR --name NAME --json; the version in ver. */
static int push(const char *cfg, const char *dir, const char *name, char *out, size_t outlen, char *ver)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", T_dir, dir);
    int rc = t_ctl(out, outlen, cfg, "problem", "push", p, "--name", name, "--json", "--slot", SLOT_PUSH, NULL);
    const char *v = strstr(out, "\"version\":\"");
    if (ver) {
        ver[0] = 0;
        if (v)
            snprintf(ver, 65, "%.64s", v + 11);
    }
    return rc;
}

static char *path_of(const char *fmt, const char *a, const char *b)
{
    static char p[800];
    snprintf(p, sizeof p, fmt, T_dir, a, b);
    return p;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static bool log_has(const char *name, const char *needle)
{
    char p[400], buf[65536];
    snprintf(p, sizeof p, "%s/judged-%s.log", T_dir, name);
    FILE *f = fopen(p, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strstr(buf, needle) != NULL;
}

/* submission id's field, or "" */
static void field(const char *id, const char *name, char *buf, size_t len)
{
    char *v = t_hget(id, name);
    snprintf(buf, len, "%s", v ? v : "");
    free(v);
}

static void submit_ok(const char *cfg, const char *problem, const char *lang, const char *src, char *id)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", T_dir, src);
    cr_assert_eq(t_submit(cfg, problem, lang, p, NULL, NULL, id, 160), 0, "submit %s: %s", src, id);
}

static void expect(const char *id, const char *verdict, const char *version, const char *host)
{
    cr_assert(t_wait_state(id, "done", 60000), "%s judged", id);
    char v[64], pv[80], h[64], rep[4096];
    field(id, "verdict", v, sizeof v);
    field(id, "version", pv, sizeof pv);
    field(id, "host", h, sizeof h);
    field(id, "report", rep, sizeof rep);
    cr_assert_str_eq(v, verdict, "%s: %s (report %s)", id, v, rep);
    cr_assert_str_eq(pv, version, "%s recorded the version current at admission", id);
    if (host)
        cr_assert_str_eq(h, host, "%s judged on host %s", id, h);
    char needle[100];
    snprintf(needle, sizeof needle, "\"problem_version\":\"%s\"", version);
    cr_assert(contains(rep, needle), "the result says which version judged it: %s", rep);
}

/* Push v1, judge; admit under v1, push v2 (other answers), admit under v2:
 * every submission is judged with the version it was admitted with, by
 * either host, each fetching into its own state_dir. Host B serves only the
 * C pool, host A both, so which host judges what is decided by pools, not
 * by timing. */
Test(store, each_submission_is_judged_with_the_version_current_at_its_admission)
{
    char cfa[400], cfb[400], out[8192], v1[65], v2[65];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n  cpp: {languages: [cpp], slots: 1}\n",
             cfa, sizeof cfa);
    t_config("B", SLOT_B, NULL, "  native: {languages: [c], slots: 1}\n", cfb, sizeof cfb);
    make_adder("v1", "adder", 0, 0);
    make_adder("v2", "adder", 1, 0);
    make_solution("sum.c", 0);
    make_solution("sum1.c", 1);
    make_solution_cpp("sum.cpp", 0);
    make_solution_cpp("sum1.cpp", 1);

    cr_assert_eq(push(cfa, "v1", "adder", out, sizeof out, v1), 0, "%s", out);
    cr_assert(contains(out, "\"result\":\"new\""), "%s", out);
    pid_t a = t_judged(cfa, "A");
    cr_assert(t_judged_started("A", 10000));
    char s0[160];
    submit_ok(cfa, "adder", "c", "sum.c", s0);
    expect(s0, "AC", v1, "A");
    cr_assert(exists(path_of("%s/state-%s/problems/%s", "A", v1)), "A cached v1 in its state_dir");

    cr_assert_eq(t_ctl(out, sizeof out, cfa, "pause", "native", NULL), 0);
    cr_assert_eq(t_ctl(out, sizeof out, cfa, "pause", "cpp", NULL), 0);
    char c1[160], c1w[160], x1[160], c2[160], c2w[160], x2[160];
    submit_ok(cfa, "adder", "c", "sum.c", c1);
    submit_ok(cfa, "adder", "c", "sum1.c", c1w);
    submit_ok(cfa, "adder", "cpp", "sum.cpp", x1);
    cr_assert_eq(push(cfa, "v2", "adder", out, sizeof out, v2), 0, "%s", out);
    cr_assert(strcmp(v1, v2), "changed answers make a new version");
    submit_ok(cfa, "adder", "c", "sum.c", c2);
    submit_ok(cfa, "adder", "c", "sum1.c", c2w);
    submit_ok(cfa, "adder", "cpp", "sum1.cpp", x2);

    /* the C pool: host B only (cold: it fetches v1 although v2 is current) */
    cr_assert_eq(t_stop(a, SIGTERM, 30000) >= 0, 1);
    t_judged(cfb, "B");
    cr_assert(t_judged_started("B", 10000));
    cr_assert_eq(t_ctl(out, sizeof out, cfb, "resume", "native", NULL), 0);
    expect(c1, "AC", v1, "B");
    expect(c1w, "WA", v1, "B");
    expect(c2, "WA", v2, "B");
    expect(c2w, "AC", v2, "B");
    cr_assert(exists(path_of("%s/state-%s/problems/%s", "B", v1)));
    cr_assert(exists(path_of("%s/state-%s/problems/%s", "B", v2)));

    /* the C++ pool: host A again, with v1 cached and v2 not */
    cr_assert_eq(t_ctl(out, sizeof out, cfa, "resume", "cpp", NULL), 0);
    t_judged(cfa, "A");
    expect(x1, "AC", v1, "A");
    expect(x2, "AC", v2, "A");

    /* one event each, and the events say which version */
    cr_assert_eq(t_events("native", c2), 1);
    cr_assert_eq(t_ctl(out, sizeof out, cfa, "events", "--json", NULL), 0);
    char needle[200];
    snprintf(needle, sizeof needle, "\"id\":\"%s\",\"verdict\":\"WA\"", c2);
    cr_assert(contains(out, needle), "%s", out);
    snprintf(needle, sizeof needle, "\"problem_version\":\"%s\"", v2);
    cr_assert(contains(out, needle), "%s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfa, "result", c1, "--json", NULL), 0);
    snprintf(needle, sizeof needle, "\"problem_version\":\"%s\"", v1);
    cr_assert(contains(out, needle), "%s", out);
}

/* `problem show --json`'s summary as an object (caller json_decref). */
static json_t *shown_summary(const char *cfg, const char *name)
{
    char out[16384];
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "show", name, "--json", NULL), 0, "%s", out);
    json_t *j = json_loads(out, 0, NULL);
    cr_assert(j, "%s", out);
    json_t *s = json_incref(json_object_get(j, "summary"));
    cr_assert(s, "show --json has a summary (maybe null): %s", out);
    json_decref(j);
    return s;
}

/* What GET /v1/problems shows of a version (issue 28) is recorded by its
 * pusher with the version: show and list print it; a version replaced
 * shows the new one's; a version stored before summaries were recorded
 * shows none until the same content is pushed again; rm takes it away. */
Test(store, a_push_records_the_versions_summary)
{
    char cfg[400], out[8192], v1[65], v2[65], again[65];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_adder("s1", "adder", 0, 0);
    cr_assert_eq(push(cfg, "s1", "sumry", out, sizeof out, v1), 0, "%s", out);
    json_t *s = shown_summary(cfg, "sumry");
    cr_assert_str_eq(json_string_value(json_object_get(s, "title")), "adder", "no title: the name");
    cr_assert_str_eq(json_string_value(json_object_get(s, "type")), "batch");
    cr_assert_str_eq(json_string_value(json_object_get(s, "scoring")), "pass-fail");
    cr_assert_eq(json_number_value(json_object_get(s, "time_limit")), 2.0);
    cr_assert_eq(json_integer_value(json_object_get(s, "memory_limit")), 256LL << 20);
    cr_assert(json_is_null(json_object_get(s, "languages")), "any language");
    cr_assert_eq(json_integer_value(json_object_get(s, "tests")), 3);
    json_decref(s);

    /* replaced: the new version's */
    make_adder("s2", "adder", 1, 0);
    t_write(path_of("%s/%s/%s", "s2", "problem.yaml"), "name: adder\ntitle: Adder, again\ntime_limit: 3s\n"
            "memory_limit: 128M\nsubtasks:\n  - {name: one, points: 40, tests: [1]}\n"
            "  - {name: rest, points: 60, tests: [2-3]}\n");
    cr_assert_eq(push(cfg, "s2", "sumry", out, sizeof out, v2), 0, "%s", out);
    s = shown_summary(cfg, "sumry");
    cr_assert_str_eq(json_string_value(json_object_get(s, "title")), "Adder, again");
    cr_assert_str_eq(json_string_value(json_object_get(s, "scoring")), "score");
    cr_assert_eq(json_number_value(json_object_get(s, "time_limit")), 3.0);
    cr_assert_eq(json_integer_value(json_object_get(s, "memory_limit")), 128LL << 20);
    cr_assert_eq(json_array_size(json_object_get(s, "subtasks")), 2);
    json_decref(s);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "list", NULL), 0);
    cr_assert(contains(out, "'Adder, again' batch score, time 3s, memory 128M, any language"), "%s", out);

    /* a version pushed before summaries were recorded (store.lua version
     * 2 wrote none): null, said so, until the same content is pushed again */
    cr_assert_eq(t_int("HDEL judge:problem:sumry summary:%s", v2), 1);
    s = shown_summary(cfg, "sumry");
    cr_assert(json_is_null(s), "none recorded: null");
    json_decref(s);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "show", "sumry", NULL), 0);
    cr_assert(contains(out, "summary: no summary"), "%s", out);
    cr_assert_eq(push(cfg, "s2", "sumry", out, sizeof out, again), 0, "%s", out);
    cr_assert(contains(out, "\"result\":\"unchanged\""), "%s", out);
    s = shown_summary(cfg, "sumry");
    cr_assert_str_eq(json_string_value(json_object_get(s, "title")), "Adder, again", "recorded by the push again");
    json_decref(s);

    /* a caller of store.lua version 2's commit (blobs among its keys, no
     * token) is refused naming the arguments: version 5 takes no blob key
     * (issue 41; such a program refuses a newer library before it calls) */
    const char *empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "FCALL judged_store_commit 6 judge:problem:old judge:problem:old:versions "
                                 "judge:manifest:%s judge:version:%s:names judge:problems judge:store:bytes "
                                 "old %s %s 0", empty, empty, empty, "");
    cr_assert(r && r->type == REDIS_REPLY_ERROR && strstr(r->str, "bad arguments"), "%s",
              r && r->str ? r->str : "no reply");
    freeReplyObject(r);
    redisFree(c);

    /* a removed version's summary goes with it */
    cr_assert_eq(t_int("HEXISTS judge:problem:sumry summary:%s", v1), 1);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "rm", "sumry", "--version", v1, NULL), 0, "%s", out);
    cr_assert_eq(t_int("HEXISTS judge:problem:sumry summary:%s", v1), 0);
}

/* The same content twice: no new version, nothing stored twice; versions,
 * show, list; rm refuses the current version and frees an old one's blobs. */
Test(store, same_content_is_one_version_and_rm_frees_what_nothing_else_lists)
{
    char cfg[400], out[8192], v1[65], v2[65], again[65];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_adder("p1", "adder", 0, 10000);
    make_adder("p2", "adder", 1, 10000);
    cr_assert_eq(push(cfg, "p1", "adder", out, sizeof out, v1), 0, "%s", out);
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "GET judge:store:bytes");
    long long stored1 = atoll(r->str);
    freeReplyObject(r);
    r = redisCommand(c, "DBSIZE");
    long long keys1 = r->integer;
    freeReplyObject(r);

    cr_assert_eq(push(cfg, "p1", "adder", out, sizeof out, again), 0, "%s", out);
    cr_assert_str_eq(again, v1);
    cr_assert(contains(out, "\"result\":\"unchanged\"") && contains(out, "\"uploaded\":0"), "%s", out);
    /* the same content under another name: the same version, no new blob */
    cr_assert_eq(push(cfg, "p1", "adder2", out, sizeof out, again), 0, "%s", out);
    cr_assert_str_eq(again, v1);
    cr_assert(contains(out, "\"uploaded\":0"), "%s", out);
    r = redisCommand(c, "GET judge:store:bytes");
    cr_assert_eq(atoll(r->str), stored1, "nothing stored twice");
    freeReplyObject(r);

    cr_assert_eq(push(cfg, "p2", "adder", out, sizeof out, v2), 0, "%s", out);
    /* p2 shares the inputs and problem.yaml: only the changed files are sent */
    cr_assert(contains(out, "\"new_blobs\":4"), "3 answers and the statement: %s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "versions", "adder", "--json", NULL), 0);
    cr_assert(contains(out, v1) && contains(out, v2), "%s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "list", NULL), 0);
    cr_assert(contains(out, "adder ") && contains(out, "adder2") && contains(out, v2), "%s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "show", "adder", "--json", NULL), 0);
    cr_assert(contains(out, "\"path\":\"tests/1.out\""), "%s", out);

    /* rm: not the current version; v1 is still listed by adder2 */
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "rm", "adder", "--version", v2, NULL), 65,
                 "the current version is refused: bad input");
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "rm", "adder", "--version", v1, NULL), 0, "%s", out);
    r = redisCommand(c, "EXISTS judge:manifest:%s", v1);
    cr_assert_eq(r->integer, 1, "adder2 still lists v1");
    freeReplyObject(r);
    r = redisCommand(c, "GET judge:store:bytes");
    long long both = atoll(r->str);
    freeReplyObject(r);
    /* make adder2 point elsewhere, then drop v1 from it: v1's own blobs go */
    cr_assert_eq(push(cfg, "p2", "adder2", out, sizeof out, NULL), 0, "%s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "rm", "adder2", "--version", v1, NULL), 0, "%s", out);
    r = redisCommand(c, "EXISTS judge:manifest:%s", v1);
    cr_assert_eq(r->integer, 0);
    freeReplyObject(r);
    r = redisCommand(c, "GET judge:store:bytes");
    long long after = atoll(r->str);
    freeReplyObject(r);
    cr_assert(after < both && after > 0, "v1's own blobs freed (%lld -> %lld), shared ones kept", both, after);
    r = redisCommand(c, "DBSIZE");
    cr_assert(r->integer < keys1 + 10, "no leftovers: %lld keys", r->integer);
    freeReplyObject(r);
    redisFree(c);
    /* what versions list is kept for good; no push left a staging key */
    struct t_blobs b = t_blob_census();
    cr_assert(b.referenced > 0);
    cr_assert_eq(b.referenced_expiring, 0, "a referenced blob never expires");
    cr_assert_eq(b.unreferenced, 0, "v1's own blobs were deleted");
    cr_assert_eq(b.parts, 0, "no staging keys left");
}

/* judge:store:bytes (what the quota limits). */
static long long stored_bytes(void)
{
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "GET judge:store:bytes");
    long long v = r && r->type == REDIS_REPLY_STRING ? atoll(r->str) : -1;
    freeReplyObject(r);
    redisFree(c);
    return v;
}

/* Sum of the `size` of every stored blob (staging keys aside). */
static long long blob_bytes(int *blobs)
{
    redisContext *c = t_redis();
    redisReply *keys = redisCommand(c, "KEYS judge:blob:*");
    long long sum = 0;
    *blobs = 0;
    for (size_t i = 0; keys && i < keys->elements; i++) {
        redisReply *sz = redisCommand(c, "HGET %s size", keys->element[i]->str);
        sum += sz && sz->type == REDIS_REPLY_STRING ? atoll(sz->str) : 0;
        (*blobs)++;
        freeReplyObject(sz);
    }
    freeReplyObject(keys);
    redisFree(c);
    return sum;
}

/* A store written by store.lua version 4 (blob reference counts on the
 * blobs, no store:refs, no pins) keeps working under version 5: a new
 * version sharing its blobs is pushed and counted right, and removing the
 * old version frees exactly the blobs only it listed (issue 41). */
Test(store, a_store_left_by_library_version_4_keeps_working)
{
    char cfg[400], out[8192], v1[65], v2[65];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_adder("p1", "adder", 0, 10000);
    make_adder("p2", "adder", 1, 10000);
    cr_assert_eq(push(cfg, "p1", "adder", out, sizeof out, v1), 0, "%s", out);
    /* what version 4 left: each blob counts the versions listing it (1),
     * no pins, no store:refs; the library is loaded again */
    redisContext *c = t_redis();
    redisReply *keys = redisCommand(c, "KEYS judge:blob:*");
    for (size_t i = 0; i < keys->elements; i++) {
        const char *k = keys->element[i]->str;
        redisReply *f = redisCommand(c, "HKEYS %s", k);
        for (size_t j = 0; j < f->elements; j++)
            if (!strncmp(f->element[j]->str, "p:", 2) || !strcmp(f->element[j]->str, "pins"))
                freeReplyObject(redisCommand(c, "HDEL %s %s", k, f->element[j]->str));
        freeReplyObject(f);
        freeReplyObject(redisCommand(c, "HSET %s refs 1", k));
    }
    freeReplyObject(keys);
    freeReplyObject(redisCommand(c, "DEL judge:store:refs judge:store:pins"));
    freeReplyObject(redisCommand(c, "FUNCTION DELETE judged_store"));
    redisFree(c);
    int blobs1;
    long long bytes1 = blob_bytes(&blobs1);
    cr_assert_eq(t_int("EXISTS judge:store:refs"), 0);

    cr_assert_eq(push(cfg, "p2", "adder", out, sizeof out, v2), 0, "%s", out);
    cr_assert(contains(out, "\"new_blobs\":4"), "only the changed files are sent: %s", out);
    int blobs2;
    long long bytes2 = blob_bytes(&blobs2);
    cr_assert_eq(stored_bytes(), bytes2, "v1's blobs counted once, v2's new ones added (%lld before)", bytes1);
    /* every blob listed by one or both versions is counted in store:refs */
    cr_assert_eq(t_int("HLEN judge:store:refs"), blobs2 + 1, "each blob and the .layout mark");

    /* v1 goes: the blobs only it listed go (version 4's refs released),
     * the shared ones stay held by v2 */
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "rm", "adder", "--version", v1, NULL), 0, "%s", out);
    int blobs3;
    long long bytes3 = blob_bytes(&blobs3);
    cr_assert(blobs3 < blobs2 && blobs3 > 0, "%d -> %d blobs", blobs2, blobs3);
    cr_assert_eq(stored_bytes(), bytes3, "the count is what is stored");
    struct t_blobs b = t_blob_census();
    cr_assert_eq(b.unreferenced, 0, "v1's own blobs were deleted");
    cr_assert_eq(b.referenced_expiring, 0, "a referenced blob never expires");
    cr_assert_eq(b.referenced, blobs3);
    /* and v2 judges: the host fetches it */
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "show", "adder", "--json", NULL), 0, "%s", out);
    cr_assert(contains(out, v2), "%s", out);
}

/* A push validates as `problem check` does and refuses with every error;
 * links, quota and max_package are refused before anything is stored. */
Test(store, a_bad_package_is_refused_with_every_error)
{
    char cfg[400], out[8192], p[600];
    t_config("A", SLOT_A, "max_package: 64K\nstore_quota: 100K\n", "  native: {languages: [c], slots: 1}\n", cfg,
             sizeof cfg);
    make_adder("bad", "bad", 0, 0);
    snprintf(p, sizeof p, "%s/bad/problem.yaml", T_dir);
    t_write(p, "name: bad\ntime_limit: 2s\nmemory_limit: lots\nchecker: {type: custom, source: check.c}\ncolour: red\n");
    snprintf(p, sizeof p, "%s/bad/check.c", T_dir);
    t_write(p, "int main(void) { this is not C }\n");
    cr_assert_eq(push(cfg, "bad", "bad", out, sizeof out, NULL), 65, "%s", out);
    cr_assert(contains(out, "\"ok\":false"), "%s", out);
    cr_assert(contains(out, "problem.yaml:3: memory_limit"), "%s", out);
    cr_assert(contains(out, "problem.yaml:5: colour"), "every error listed: %s", out);
    cr_assert_eq(t_int("EXISTS judge:problem:bad"), 0, "nothing stored");
    cr_assert_eq(t_int("DBSIZE"), 0, "not a single blob");

    /* a checker that does not compile refuses the push */
    snprintf(p, sizeof p, "%s/bad/problem.yaml", T_dir);
    t_write(p, "name: bad\ntime_limit: 2s\nmemory_limit: 64M\nchecker: {type: custom, source: check.c}\n");
    cr_assert_eq(push(cfg, "bad", "bad", out, sizeof out, NULL), 65, "%s", out);
    cr_assert(contains(out, "check"), "the checker's compile error: %s", out);

    /* a link out of the package to a directory (a file out of it is the
     * setter's own, copied: "links_inside_a_package_...") */
    make_adder("linked", "linked", 0, 0);
    snprintf(p, sizeof p, "%s/linked/tests/4.in", T_dir);
    cr_assert_eq(symlink("/etc", p), 0);
    cr_assert_eq(push(cfg, "linked", "linked", out, sizeof out, NULL), 65, "%s", out);
    cr_assert(contains(out, "tests/4.in: a symbolic link to '/etc', which leaves the package to a directory"), "%s",
              out);

    /* max_package */
    make_adder("big", "big", 0, 70000);
    cr_assert_eq(push(cfg, "big", "big", out, sizeof out, NULL), 65, "%s", out);
    cr_assert(contains(out, "max_package"), "%s", out);

    /* the quota counts every stored version */
    make_adder("q1", "q", 0, 60000);
    make_adder("q2", "q", 1, 60000);
    cr_assert_eq(push(cfg, "q1", "q", out, sizeof out, NULL), 0, "%s", out);
    cr_assert_eq(push(cfg, "q2", "q", out, sizeof out, NULL), 65, "%s", out);
    cr_assert(contains(out, "quota exceeded"), "%s", out);
    cr_assert_eq(t_int("ZCARD judge:problem:q:versions"), 1, "the refused version is not stored");

    /* Redis down: the push says so and fails */
    t_kill_redis(SIGKILL);
    cr_assert_eq(push(cfg, "q1", "q", out, sizeof out, NULL), 69, "Redis unavailable: %s", out);
    cr_assert(contains(out, "\"error\":{\"code\":\"unavailable\""), "%s", out);
}

/* The manifest line of PATH in version V: its sha256 into sha. */
static void blob_of(const char *v, const char *path, char *sha)
{
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "GET judge:manifest:%s", v);
    cr_assert(r && r->type == REDIS_REPLY_STRING);
    char needle[300];
    snprintf(needle, sizeof needle, " %s\n", path);
    const char *hit = strstr(r->str, needle);
    cr_assert(hit);
    const char *line = hit;
    while (line > r->str && line[-1] != '\n')
        line--;
    snprintf(sha, 65, "%.64s", line);
    freeReplyObject(r);
    redisFree(c);
}

/* A cached copy changed on disk is found at the next start and fetched
 * again; a blob corrupt in Redis is an infrastructure failure (retried,
 * then dead-lettered), never a verdict. */
Test(store, corrupt_copies_are_refetched_and_never_judged_from)
{
    char cfg[400], out[8192], v1[65], id[160], p[800];
    t_config("A", SLOT_A, "max_attempts: 2\n", "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_adder("v1", "adder", 0, 0);
    make_solution("sum.c", 0);
    cr_assert_eq(push(cfg, "v1", "adder", out, sizeof out, v1), 0, "%s", out);
    pid_t a = t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    submit_ok(cfg, "adder", "c", "sum.c", id);
    expect(id, "AC", v1, "A");
    cr_assert(t_stop(a, SIGTERM, 30000) >= 0);

    /* a wrong answer in the cached copy: judging from it would say WA */
    snprintf(p, sizeof p, "%s/state-A/problems/%s/tests/2.out", T_dir, v1);
    chmod(p, 0644);
    t_write(p, "999\n");
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    submit_ok(cfg, "adder", "c", "sum.c", id);
    expect(id, "AC", v1, "A");
    cr_assert(log_has("A", "cached copy is corrupt"), "the corruption was noticed");

    /* a corrupt blob in Redis, on a host that has not cached the version */
    make_adder("v2", "adder", 5, 0);
    char v2[65], sha[65];
    cr_assert_eq(push(cfg, "v2", "adder", out, sizeof out, v2), 0, "%s", out);
    blob_of(v2, "tests/3.out", sha);
    cr_assert_eq(t_int("HSET judge:blob:%s c0 %s", sha, "39\n"), 0);   /* right size, wrong bytes */
    submit_ok(cfg, "adder", "c", "sum.c", id);
    cr_assert(t_wait_state(id, "done", 60000));
    char v[32], dead[8], hist[4096];
    field(id, "verdict", v, sizeof v);
    field(id, "dead", dead, sizeof dead);
    field(id, "history", hist, sizeof hist);
    cr_assert_str_eq(v, "IE");
    cr_assert_str_eq(dead, "1", "dead-lettered after its retries, not judged");
    cr_assert(contains(hist, "corrupt"), "%s", hist);
    snprintf(p, sizeof p, "%s/state-A/problems/%s", T_dir, v2);
    cr_assert(!exists(p), "no partial copy left in place");
}

static int count_versions(const char *host)
{
    char p[400];
    snprintf(p, sizeof p, "%s/state-%s/problems", T_dir, host);
    DIR *d = opendir(p);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strlen(e->d_name) == 64;
    if (d)
        closedir(d);
    return n;
}

/* problem_cache bounds the cache: the least recently used version goes. */
Test(store, the_cache_evicts_the_least_recently_used_version)
{
    char cfg[400], out[8192], va[65], vb[65], vc[65], id[160];
    t_config("A", SLOT_A, "problem_cache: 250K\n", "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_adder("pa", "pa", 0, 100000);
    make_adder("pb", "pb", 0, 100001);
    make_adder("pc", "pc", 0, 100002);
    make_solution("sum.c", 0);
    cr_assert_eq(push(cfg, "pa", "pa", out, sizeof out, va), 0, "%s", out);
    cr_assert_eq(push(cfg, "pb", "pb", out, sizeof out, vb), 0, "%s", out);
    cr_assert_eq(push(cfg, "pc", "pc", out, sizeof out, vc), 0, "%s", out);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    submit_ok(cfg, "pa", "c", "sum.c", id);
    expect(id, "AC", va, "A");
    submit_ok(cfg, "pb", "c", "sum.c", id);
    expect(id, "AC", vb, "A");
    submit_ok(cfg, "pa", "c", "sum.c", id);   /* pa is now more recent than pb */
    expect(id, "AC", va, "A");
    cr_assert_eq(count_versions("A"), 2);
    submit_ok(cfg, "pc", "c", "sum.c", id);
    expect(id, "AC", vc, "A");
    cr_assert_eq(count_versions("A"), 2, "two versions fit in 250K");
    cr_assert(exists(path_of("%s/state-%s/problems/%s", "A", va)), "pa was used more recently");
    cr_assert(!exists(path_of("%s/state-%s/problems/%s", "A", vb)), "pb was the least recently used");
    cr_assert(log_has("A", "removing version"));
    submit_ok(cfg, "pb", "c", "sum.c", id);   /* fetched again */
    expect(id, "AC", vb, "A");
}

/* `problems:` as a directory still works (no store involved). */
Test(store, a_problem_only_in_the_problems_directory_is_judged_from_there)
{
    char cfg[400], id[160];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    cr_assert_eq(t_submit(cfg, "aplusb", "c", SRC "/testdata/aplusb/solutions/ac.c", NULL, NULL, id, sizeof id), 0);
    cr_assert(t_wait_state(id, "done", 60000));
    char v[32], rep[8192];
    field(id, "verdict", v, sizeof v);
    field(id, "report", rep, sizeof rep);
    cr_assert_str_eq(v, "AC");
    cr_assert(contains(rep, "\"problem_version\":null"), "%s", rep);
    char out[512];
    cr_assert_eq(t_submit(cfg, "nosuch", "c", SRC "/testdata/aplusb/solutions/ac.c", NULL, NULL, out, sizeof out), 66);
}

/* An ICPC/Kattis package as a setter exports it: problem.yaml with the
 * default validator's flags, .timelimit, data/sample and data/secret with
 * groups; written here and packed with tar. */
static void make_icpc(const char *dir, const char *yaml, bool with_answers)
{
    char p[800];
    const char *dirs[] = {"", "/data", "/data/sample", "/data/secret", "/data/secret/small", "/data/secret/large"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(p, sizeof p, "%s/%s%s", T_dir, dir, dirs[i]);
        mkdir(p, 0755);
    }
    snprintf(p, sizeof p, "%s/%s/problem.yaml", T_dir, dir);
    t_write(p, "%s", yaml);
    snprintf(p, sizeof p, "%s/%s/.timelimit", T_dir, dir);
    t_write(p, "2\n");
    const char *tests[][3] = {{"sample/1", "3", "1.0"}, {"secret/small/01", "1", "0.333333"},
                              {"secret/small/02", "2", "0.666667"}, {"secret/large/01", "100", "33.333333"}};
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s/data/%s.in", T_dir, dir, tests[i][0]);
        t_write(p, "%s\n", tests[i][1]);
        if (!with_answers && i == 3)
            continue;
        snprintf(p, sizeof p, "%s/%s/data/%s.ans", T_dir, dir, tests[i][0]);
        t_write(p, "%s\n", tests[i][2]);
    }
}

static void tar(const char *dir, const char *archive)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "tar czf '%s/%s' -C '%s' '%s'", T_dir, archive, T_dir, dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
}

Test(store, an_icpc_archive_is_converted_and_judged_as_its_flags_say)
{
    char cfg[400], out[8192], v[65], id[160], p[800];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_icpc("third", "name: One Third\nsource: NWERC\nvalidation: default\n"
                       "validator_flags: float_absolute_tolerance 1e-3 float_relative_tolerance 1e-3\n"
                       "limits:\n  memory: 256\n", true);
    tar("third", "third.tar.gz");
    snprintf(p, sizeof p, "%s/third.tar.gz", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", p, "--json", "--slot", SLOT_PUSH, NULL), 0, "%s", out);
    cr_assert(contains(out, "\"name\":\"third\""), "named after the archive: %s", out);
    const char *vv = strstr(out, "\"version\":\"");
    cr_assert(vv);
    snprintf(v, sizeof v, "%.64s", vv + 11);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "show", "third", "--json", NULL), 0);
    cr_assert(contains(out, "data/secret/large/01.ans") && contains(out, "problem.icpc.yaml"), "%s", out);

    snprintf(p, sizeof p, "%s/third4.c", T_dir);   /* within 1e-3 */
    t_write(p, "#include <stdio.h>\nint main(void){double n;scanf(\"%%lf\",&n);printf(\"%%.4f\\n\",n/3);}\n");
    snprintf(p, sizeof p, "%s/third1.c", T_dir);   /* 0.3 for 0.333333: outside both tolerances */
    t_write(p, "#include <stdio.h>\nint main(void){double n;scanf(\"%%lf\",&n);printf(\"%%.1f\\n\",n/3);}\n");
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    submit_ok(cfg, "third", "c", "third4.c", id);
    expect(id, "AC", v, "A");
    char rep[8192];
    field(id, "report", rep, sizeof rep);
    cr_assert(contains(rep, "sample-1") && contains(rep, "secret-large-01"), "samples and groups: %s", rep);
    submit_ok(cfg, "third", "c", "third1.c", id);
    expect(id, "WA", v, "A");

    /* an invalid package: every error listed, nothing stored */
    make_icpc("broken", "name: Broken\nvalidation: bogus\nvalidator_flags: float_absolute_tolerance abc\n"
                        "limits:\n  memory: -5\n", false);
    tar("broken", "broken.tar.gz");
    snprintf(p, sizeof p, "%s/broken.tar.gz", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", p, "--json", "--slot", SLOT_PUSH, NULL), 65, "%s", out);
    cr_assert(contains(out, "problem.yaml:2: validation"), "%s", out);
    cr_assert(contains(out, "problem.yaml:3: validator_flags: float_absolute_tolerance needs a number"), "%s", out);
    cr_assert(contains(out, "problem.yaml:5: limits.memory"), "%s", out);
    cr_assert(contains(out, "data/secret/large/01.in:0: data: no matching .ans"), "%s", out);
    cr_assert_eq(t_int("EXISTS judge:problem:broken"), 0);

    /* an archive with a link, or a path leaving the package, is refused */
    snprintf(p, sizeof p, "%s/third/data/secret/small/03.in", T_dir);
    cr_assert_eq(symlink("/etc/shadow", p), 0);
    tar("third", "linked.tar.gz");
    snprintf(p, sizeof p, "%s/linked.tar.gz", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", p, "--json", "--slot", SLOT_PUSH, NULL), 65, "%s", out);
    cr_assert(contains(out, "a link"), "%s", out);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "tar czf '%s/evil.tgz' -C '%s' --transform 's,^third,../escape,' third 2>/dev/null",
             T_dir, T_dir);
    cr_assert_eq(system(cmd), 0);
    snprintf(p, sizeof p, "%s/evil.tgz", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", p, "--json", "--slot", SLOT_PUSH, NULL), 65, "%s", out);
    cr_assert(contains(out, "'..' are refused"), "%s", out);
    snprintf(p, sizeof p, "%s/../escape", T_dir);
    cr_assert(!exists(p), "nothing written outside");
}

/* validation: custom, as a Kattis/DOMjudge archive has it: an output
 * validator in output_validators/ (with a header beside it), called as
 * `validator IN ANS FEEDBACK_DIR tolerance 1e-3 < OUT` (validator_flags).
 * It accepts any number within the tolerance of n/3, computed from the
 * input (not the .ans: many answers are right), and writes why it rejects
 * to judgemessage.txt. Pushed unchanged, it judges AC and WA, with the
 * message in the report. */
Test(store, an_icpc_archive_with_a_custom_output_validator_is_judged_by_it)
{
    char cfg[400], out[8192], v[65], id[160], p[800];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_icpc("thirdv", "name: One Third\nvalidation: custom\nvalidator_flags: tolerance 1e-3\n"
                        "limits:\n  memory: 256\n", true);
    snprintf(p, sizeof p, "%s/thirdv/output_validators", T_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/thirdv/output_validators/third", T_dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/thirdv/output_validators/third/verdict.h", T_dir);
    t_write(p, "#include <stdio.h>\n#include <stdlib.h>\n"
               "static void verdict(const char *dir, int code, const char *msg, double x) {\n"
               "  char path[4096]; snprintf(path, sizeof path, \"%%s/judgemessage.txt\", dir);\n"
               "  FILE *f = fopen(path, \"w\"); if (f) { fprintf(f, msg, x); fclose(f); }\n"
               "  exit(code); }\n");
    snprintf(p, sizeof p, "%s/thirdv/output_validators/third/validate.c", T_dir);
    t_write(p, "#include <math.h>\n#include <string.h>\n#include \"verdict.h\"\n"
               "int main(int argc, char **argv) {\n"
               "  if (argc != 6 || strcmp(argv[4], \"tolerance\")) return 1;\n"
               "  double tol = atof(argv[5]), n, x; FILE *in = fopen(argv[1], \"r\");\n"
               "  if (!in || fscanf(in, \"%%lf\", &n) != 1) return 1;\n"
               "  if (scanf(\"%%lf\", &x) != 1) verdict(argv[3], 43, \"no number%%.0f\", 0);\n"
               "  if (fabs(x - n / 3) > tol) verdict(argv[3], 43, \"%%g is not within the tolerance of n/3\", x);\n"
               "  verdict(argv[3], 42, \"fine: %%g\", x); }\n");
    tar("thirdv", "thirdv.tar.gz");
    snprintf(p, sizeof p, "%s/thirdv.tar.gz", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", p, "--json", "--slot", SLOT_PUSH, NULL), 0, "%s", out);
    const char *vv = strstr(out, "\"version\":\"");
    cr_assert(vv, "%s", out);
    snprintf(v, sizeof v, "%.64s", vv + 11);

    snprintf(p, sizeof p, "%s/third4.c", T_dir);   /* within 1e-3, not the .ans's digits */
    t_write(p, "#include <stdio.h>\nint main(void){double n;scanf(\"%%lf\",&n);printf(\"%%.4f\\n\",n/3);}\n");
    snprintf(p, sizeof p, "%s/third1.c", T_dir);   /* 33.3 for 100/3: off by 0.033 */
    t_write(p, "#include <stdio.h>\nint main(void){double n;scanf(\"%%lf\",&n);printf(\"%%.1f\\n\",n/3);}\n");
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    submit_ok(cfg, "thirdv", "c", "third4.c", id);
    expect(id, "AC", v, "A");
    submit_ok(cfg, "thirdv", "c", "third1.c", id);
    expect(id, "WA", v, "A");
    char rep[8192];
    field(id, "report", rep, sizeof rep);
    cr_assert(contains(rep, "33.3 is not within the tolerance of n/3"), "the judgemessage: %s", rep);
}

/* The same validator as a program of the format (issue 22): a directory
 * whose `build` compiles two files and whose `run` starts the result,
 * neither executable (the store keeps no modes). Pushed as an archive,
 * judged by judged from its fetched copy: AC and WA. A build that fails
 * refuses the push with the build's output, storing nothing. */
Test(store, an_icpc_validator_with_build_and_run_scripts_is_built_on_push_and_judged)
{
    char cfg[400], out[16384], v[65], id[160], p[800];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_icpc("thirdb", "name: One Third\nvalidation: custom\nlimits:\n  memory: 256\n", true);
    const char *dirs[] = {"output_validators", "output_validators/third"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/thirdb/%s", T_dir, dirs[i]);
        mkdir(p, 0755);
    }
    snprintf(p, sizeof p, "%s/thirdb/output_validators/third/near.c", T_dir);
    t_write(p, "#include <math.h>\nint near(double x, double n) { return fabs(x - n / 3) <= 1e-3; }\n");
    snprintf(p, sizeof p, "%s/thirdb/output_validators/third/validate.c", T_dir);
    t_write(p, "#include <stdio.h>\nint near(double x, double n);\n"
               "int main(int argc, char **argv) { double n, x; FILE *in = argc > 3 ? fopen(argv[1], \"r\") : NULL;\n"
               "  if (!in || fscanf(in, \"%%lf\", &n) != 1) return 1;\n"
               "  return scanf(\"%%lf\", &x) == 1 && near(x, n) ? 42 : 43; }\n");
    snprintf(p, sizeof p, "%s/thirdb/output_validators/third/build", T_dir);
    t_write(p, "gcc -O2 -o validate validate.c near.c -lm\n");
    snprintf(p, sizeof p, "%s/thirdb/output_validators/third/run", T_dir);
    t_write(p, "#!/bin/sh\nexec ./validate \"$@\"\n");
    tar("thirdb", "thirdb.tar.gz");
    snprintf(p, sizeof p, "%s/thirdb.tar.gz", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", p, "--json", "--slot", SLOT_PUSH, NULL), 0, "%s", out);
    const char *vv = strstr(out, "\"version\":\"");
    cr_assert(vv, "%s", out);
    snprintf(v, sizeof v, "%.64s", vv + 11);
    snprintf(p, sizeof p, "%s/third4.c", T_dir);   /* within 1e-3 */
    t_write(p, "#include <stdio.h>\nint main(void){double n;scanf(\"%%lf\",&n);printf(\"%%.4f\\n\",n/3);}\n");
    snprintf(p, sizeof p, "%s/third1.c", T_dir);   /* 33.3 for 100/3 */
    t_write(p, "#include <stdio.h>\nint main(void){double n;scanf(\"%%lf\",&n);printf(\"%%.1f\\n\",n/3);}\n");
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    submit_ok(cfg, "thirdb", "c", "third4.c", id);
    expect(id, "AC", v, "A");
    submit_ok(cfg, "thirdb", "c", "third1.c", id);
    expect(id, "WA", v, "A");

    /* a build that fails: the push is refused with its output */
    snprintf(p, sizeof p, "%s/thirdb/output_validators/third/near.c", T_dir);
    t_write(p, "int near(double x, double n) { return x == n / 3 }\n");
    tar("thirdb", "thirdbad.tar.gz");
    snprintf(p, sizeof p, "%s/thirdbad.tar.gz", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", p, "--name", "thirdbad", "--json", "--slot", SLOT_PUSH,
                       NULL), 65, "%s", out);
    cr_assert(contains(out, "the checker's build script failed") && contains(out, "near.c"), "%s", out);
    cr_assert_eq(t_int("EXISTS judge:problem:thirdbad"), 0);
}

static long long ms_field(const char *id, const char *name)
{
    char b[64];
    field(id, name, b, sizeof b);
    return atoll(b);
}

/* A rejudge after new answers: new events with rejudge true, the previous
 * verdict and the version used; on one slot, work admitted later at normal
 * priority is judged before every rejudge. */
Test(store, a_rejudge_uses_the_new_version_and_yields_to_normal_work)
{
    char cfg[400], out[16384], v1[65], v2[65], ids[3][160], late[2][160];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_adder("v1", "adder", 0, 0);
    make_adder("v2", "adder", 1, 0);
    make_solution("sum.c", 0);
    make_solution("sum1.c", 1);
    cr_assert_eq(push(cfg, "v1", "adder", out, sizeof out, v1), 0, "%s", out);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    for (int i = 0; i < 3; i++) {
        submit_ok(cfg, "adder", "c", i == 2 ? "sum1.c" : "sum.c", ids[i]);
        expect(ids[i], i == 2 ? "WA" : "AC", v1, "A");
    }
    cr_assert_eq(push(cfg, "v2", "adder", out, sizeof out, v2), 0, "%s", out);

    cr_assert_eq(t_ctl(out, sizeof out, cfg, "rejudge", "--problem", "adder", "--verdict", "AC", "--dry-run", "--json",
                       NULL), 0, "%s", out);
    cr_assert(contains(out, "\"matched\":2") && contains(out, "\"queued\":0"), "%s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "pause", "native", NULL), 0);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "rejudge", "--problem", "adder", "--json", NULL), 0, "%s", out);
    cr_assert(contains(out, "\"matched\":3") && contains(out, "\"queued\":3"), "%s", out);
    submit_ok(cfg, "adder", "c", "sum1.c", late[0]);
    submit_ok(cfg, "adder", "c", "sum1.c", late[1]);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "resume", "native", NULL), 0);

    expect(ids[0], "WA", v2, "A");
    expect(ids[1], "WA", v2, "A");
    expect(ids[2], "AC", v2, "A");
    expect(late[0], "AC", v2, "A");
    expect(late[1], "AC", v2, "A");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            cr_assert(ms_field(late[j], "finished") <= ms_field(ids[i], "started"),
                      "normal work admitted after the rejudge is judged before it: %s finished %lld, %s started %lld", late[j], ms_field(late[j], "finished"), ids[i], ms_field(ids[i], "started"));

    cr_assert_eq(t_events("native", ids[0]), 2, "a rejudge is a new event");
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "events", "--json", NULL), 0);
    char needle[400];
    snprintf(needle, sizeof needle, "\"id\":\"%s\",\"verdict\":\"WA\"", ids[0]);
    cr_assert(contains(out, needle), "%s", out);
    cr_assert(contains(out, "\"rejudge\":true") && contains(out, "\"previous_verdict\":\"AC\""), "%s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "rejudge", "status", "--json", NULL), 0);
    cr_assert(contains(out, "\"total\":3,\"done\":3") && contains(out, "\"changed\":3"), "%s", out);
}

/* The compile cache: a rejudge or an identical resubmission skips the
 * compile; a cached binary that changed on disk is not used. */
Test(store, a_rejudge_skips_the_compile_and_a_changed_binary_is_not_used)
{
    char cfg[400], out[8192], v1[65], id[160], rep[8192];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_adder("v1", "adder", 0, 0);
    make_solution("sum.c", 0);
    cr_assert_eq(push(cfg, "v1", "adder", out, sizeof out, v1), 0, "%s", out);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    submit_ok(cfg, "adder", "c", "sum.c", id);
    expect(id, "AC", v1, "A");
    field(id, "report", rep, sizeof rep);
    cr_assert(contains(rep, "\"cached\":false"), "%s", rep);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "rejudge", "--problem", "adder", NULL), 0, "%s", out);
    cr_assert(t_wait_state(id, "done", 60000));
    expect(id, "AC", v1, "A");
    field(id, "report", rep, sizeof rep);
    cr_assert(contains(rep, "\"cached\":true"), "the rejudge compiled nothing: %s", rep);

    /* change the cached binary: it is found out and the source compiled again */
    char cmd[800];
    snprintf(cmd, sizeof cmd, "for f in %s/state-A/work/A-native/compiled/*/box/main; do chmod u+w \"$f\"; "
             "printf 'x' | dd of=\"$f\" bs=1 seek=100 conv=notrunc 2>/dev/null; done", T_dir);
    cr_assert_eq(system(cmd), 0);
    submit_ok(cfg, "adder", "c", "sum.c", id);
    expect(id, "AC", v1, "A");
    field(id, "report", rep, sizeof rep);
    cr_assert(contains(rep, "\"cached\":false"), "a changed binary is never run: %s", rep);
}

/* ---- links inside a package (issue 22, slice 1) ---- */

/* An adder package whose tests/ is a directory link to data/, with a
 * fourth test made of file links to the first (as real packages link one
 * group to another's files). */
static void make_linked_adder(const char *dir, const char *name, int delta)
{
    char p[800], q[800];
    make_adder(dir, name, delta, 0);
    snprintf(p, sizeof p, "%s/%s/tests", T_dir, dir);
    snprintf(q, sizeof q, "%s/%s/data", T_dir, dir);
    cr_assert_eq(rename(p, q), 0);
    cr_assert_eq(symlink("data", p), 0);
    snprintf(p, sizeof p, "%s/%s/data/4.in", T_dir, dir);
    cr_assert_eq(symlink("1.in", p), 0);
    snprintf(p, sizeof p, "%s/%s/data/4.out", T_dir, dir);
    cr_assert_eq(symlink("../tests/1.out", p), 0);   /* back in through the directory link */
}

/* Pushed as a directory and as an archive: stored with the links' content
 * as ordinary files (the same version both ways), fetched by a host and
 * judged over 4 tests; a directory's link to a file out of it copied and
 * named (the archive's stays refused: store_unit), one to a directory out
 * of it and a loop refused, each naming the link. */
Test(store, links_inside_a_package_are_stored_as_what_they_point_to)
{
    char cfg[400], out[8192], v[65], v2[65], id[160], p[800];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_linked_adder("lnk", "lnk", 0);
    cr_assert_eq(push(cfg, "lnk", "lnk", out, sizeof out, v), 0, "%s", out);
    cr_assert(contains(out, "\"result\":\"new\"") && contains(out, "\"files\":17"),
              "problem.yaml, data/ and tests/ with 8 files each: %s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "show", "lnk", "--json", NULL), 0);
    cr_assert(contains(out, "\"tests/4.in\"") && contains(out, "\"data/4.out\""), "%s", out);
    tar("lnk", "lnk.tgz");
    snprintf(p, sizeof p, "%s/lnk.tgz", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", p, "--name", "lnk", "--json", "--slot", SLOT_PUSH,
                       NULL), 0, "%s", out);
    const char *vv = strstr(out, "\"version\":\"");
    cr_assert(vv, "%s", out);
    snprintf(v2, sizeof v2, "%.64s", vv + 11);
    cr_assert_str_eq(v2, v, "the archive is the same package: %s", out);
    cr_assert(contains(out, "\"result\":\"unchanged\""), "%s", out);

    make_solution("ok.c", 0);
    make_solution("off.c", 1);
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    submit_ok(cfg, "lnk", "c", "ok.c", id);
    expect(id, "AC", v, "A");
    char rep[16384];
    field(id, "report", rep, sizeof rep);
    cr_assert(contains(rep, "\"name\":\"4\""), "the linked test was judged: %s", rep);
    submit_ok(cfg, "lnk", "c", "off.c", id);
    expect(id, "WA", v, "A");

    /* out of the directory pushed, to a file (a contest repository's shared
     * file beside its packages): the setter's own, copied and named among
     * the warnings */
    make_linked_adder("out", "out", 0);
    snprintf(p, sizeof p, "%s/shared-5.in", T_dir);
    t_write(p, "2 2\n");
    snprintf(p, sizeof p, "%s/out/data/5.in", T_dir);
    cr_assert_eq(symlink("../../shared-5.in", p), 0);
    snprintf(p, sizeof p, "%s/out/data/5.out", T_dir);
    t_write(p, "4\n");
    cr_assert_eq(push(cfg, "out", "out", out, sizeof out, NULL), 0, "%s", out);
    cr_assert(contains(out, "5.in:0: (link): warning: a symbolic link to '../../shared-5.in', which leaves the "
                            "package: pushed as a copy of ") && contains(out, "/shared-5.in"), "%s", out);
    /* an absolute link to the file alike (a checkout whose links were made
     * absolute), named with the file copied */
    make_linked_adder("abs", "abs", 0);
    char shared[900];
    snprintf(shared, sizeof shared, "%s/shared-5.in", T_dir);
    snprintf(p, sizeof p, "%s/abs/data/5.in", T_dir);
    cr_assert_eq(symlink(shared, p), 0);
    snprintf(p, sizeof p, "%s/abs/data/5.out", T_dir);
    t_write(p, "4\n");
    cr_assert_eq(push(cfg, "abs", "abs", out, sizeof out, NULL), 0, "%s", out);
    char said[2000];
    snprintf(said, sizeof said, "5.in:0: (link): warning: a symbolic link to '%s', which leaves the package: pushed "
                                "as a copy of ", shared);
    cr_assert(contains(out, said) && contains(out, "/shared-5.in"), "%s", out);
    /* ...but to a directory out of it, refused naming the link, nothing stored */
    make_linked_adder("outdir", "outdir", 0);
    snprintf(p, sizeof p, "%s/outdir/data/more", T_dir);
    cr_assert_eq(symlink("../../out", p), 0);
    cr_assert_eq(push(cfg, "outdir", "outdir", out, sizeof out, NULL), 65, "%s", out);
    cr_assert(contains(out, "more: a symbolic link to '../../out', which leaves the package to a directory: only a "
                            "file out of it is copied"), "%s", out);
    cr_assert_eq(t_int("EXISTS judge:problem:outdir"), 0);
    /* a loop */
    make_linked_adder("loop", "loop", 0);
    snprintf(p, sizeof p, "%s/loop/data/again", T_dir);
    cr_assert_eq(symlink("../tests", p), 0);
    cr_assert_eq(push(cfg, "loop", "loop", out, sizeof out, NULL), 65, "%s", out);
    cr_assert(contains(out, "again: a symbolic link to '../tests', a directory it is inside: a link loop"), "%s", out);
    cr_assert_eq(t_int("EXISTS judge:problem:loop"), 0);
}

/* ---- a 2023-07 interactive package (issue 22, slices 2 and 4) ---- */

/* A guessing game as the 2023-07 format has it: type interactive, the
 * output validator in output_validator/ run as the interactor (Kattis:
 * `validator input answer feedback_dir`, exit 42 or 43, judgemessage.txt),
 * a sample with its .interaction transcript. */
static void make_guess(const char *dir)
{
    char p[800];
    const char *dirs[] = {"", "/data", "/data/sample", "/data/secret", "/output_validator"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(p, sizeof p, "%s/%s%s", T_dir, dir, dirs[i]);
        mkdir(p, 0755);
    }
    snprintf(p, sizeof p, "%s/%s/problem.yaml", T_dir, dir);
    t_write(p, "problem_format_version: 2023-07-draft\nname: Guess the Number\ntype: interactive\n"
               "limits:\n  time_limit: 2\n  memory: 256\n");
    snprintf(p, sizeof p, "%s/%s/output_validator/guess.c", T_dir, dir);
    t_write(p, "#include <stdio.h>\n#include <stdlib.h>\n"
               "static void done(const char *dir, int code, const char *msg) {\n"
               "  char p[4096]; snprintf(p, sizeof p, \"%%s/judgemessage.txt\", dir);\n"
               "  FILE *f = fopen(p, \"w\"); if (f) { fputs(msg, f); fclose(f); } exit(code); }\n"
               "int main(int argc, char **argv) {\n"
               "  int n, g; FILE *in = argc < 4 ? NULL : fopen(argv[1], \"r\");\n"
               "  if (!in || fscanf(in, \"%%d\", &n) != 1) return 1;\n"
               "  for (int i = 0; i < 10; i++) {\n"
               "    if (scanf(\"%%d\", &g) != 1) done(argv[3], 43, \"no guess\");\n"
               "    if (g == n) { puts(\"correct\"); fflush(stdout); done(argv[3], 42, \"found\"); }\n"
               "    puts(g < n ? \"higher\" : \"lower\"); fflush(stdout); }\n"
               "  done(argv[3], 43, \"more than 10 guesses\"); }\n");
    const char *tests[][2] = {{"sample/1", "7"}, {"secret/1", "500"}, {"secret/2", "1"}, {"secret/3", "1000"}};
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s/data/%s.in", T_dir, dir, tests[i][0]);
        t_write(p, "%s\n", tests[i][1]);
        snprintf(p, sizeof p, "%s/%s/data/%s.ans", T_dir, dir, tests[i][0]);
        t_write(p, "%s", "");
    }
    snprintf(p, sizeof p, "%s/%s/data/sample/1.interaction", T_dir, dir);
    t_write(p, ">500\n<lower\n>250\n<lower\n>7\n<correct\n");
}

Test(store, an_icpc_2023_interactive_package_is_judged_by_its_validator_as_interactor)
{
    char cfg[400], out[8192], v[65], id[160], p[800];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_guess("guess");
    tar("guess", "guess.tgz");
    snprintf(p, sizeof p, "%s/guess.tgz", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", p, "--json", "--slot", SLOT_PUSH, NULL), 0, "%s", out);
    const char *vv = strstr(out, "\"version\":\"");
    cr_assert(vv, "%s", out);
    snprintf(v, sizeof v, "%.64s", vv + 11);

    snprintf(p, sizeof p, "%s/bisect.c", T_dir);   /* at most 10 guesses over 1..1000 */
    t_write(p, "#include <stdio.h>\n#include <string.h>\nint main(void){int lo=1,hi=1000;char r[16];\n"
               "for(;;){int m=(lo+hi)/2;printf(\"%%d\\n\",m);fflush(stdout);if(scanf(\"%%15s\",r)!=1)return 1;\n"
               "if(!strcmp(r,\"correct\"))return 0;if(!strcmp(r,\"higher\"))lo=m+1;else hi=m-1;}}\n");
    snprintf(p, sizeof p, "%s/linear.c", T_dir);   /* 1, 2, 3, ...: too many for 500 */
    t_write(p, "#include <stdio.h>\n#include <string.h>\nint main(void){char r[16];\n"
               "for(int g=1;;g++){printf(\"%%d\\n\",g);fflush(stdout);if(scanf(\"%%15s\",r)!=1)return 0;\n"
               "if(!strcmp(r,\"correct\"))return 0;}}\n");
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    submit_ok(cfg, "guess", "c", "bisect.c", id);
    expect(id, "AC", v, "A");
    submit_ok(cfg, "guess", "c", "linear.c", id);
    expect(id, "WA", v, "A");
    char rep[8192];
    field(id, "report", rep, sizeof rep);
    cr_assert(contains(rep, "more than 10 guesses"), "the judgemessage: %s", rep);
}

/* ---- DOMjudge packages (issue 22, slice 3) ---- */

/* Hello World the way DOMjudge's documentation lays out a problem archive:
 * domjudge-problem.ini (ids, name, timelimit, color), a problem.yaml
 * without memory limits, samples and secret data in the ICPC layout. */
Test(store, a_domjudge_package_is_converted_with_its_time_limit_and_judged)
{
    char cfg[400], out[8192], v[65], id[160], p[800];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    const char *dirs[] = {"hello", "hello/data", "hello/data/sample", "hello/data/secret"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", T_dir, dirs[i]);
        mkdir(p, 0755);
    }
    snprintf(p, sizeof p, "%s/hello/domjudge-problem.ini", T_dir);
    t_write(p, "probid = hello\nexternalid = hello\nname = \"Hello World\"\ntimelimit = 2\ncolor = \"#8b0000\"\n");
    snprintf(p, sizeof p, "%s/hello/problem.yaml", T_dir);
    t_write(p, "name: Hello World\nsource: judged tests\nvalidation: default\n");
    snprintf(p, sizeof p, "%s/hello/data/sample/hello.in", T_dir);
    t_write(p, "%s", "");
    snprintf(p, sizeof p, "%s/hello/data/sample/hello.ans", T_dir);
    t_write(p, "Hello world!\n");
    snprintf(p, sizeof p, "%s/hello/data/secret/hello.in", T_dir);
    t_write(p, "%s", "");
    snprintf(p, sizeof p, "%s/hello/data/secret/hello.ans", T_dir);
    t_write(p, "hello WORLD!\n");   /* the ICPC default validator ignores case */
    /* problem check reads it as push does (it was: "no tests/ directory") */
    snprintf(p, sizeof p, "%s/hello", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "check", p, "--slot", SLOT_PUSH, NULL), 0, "%s", out);
    cr_assert(contains(out, "OK hello: 2 tests") && contains(out, "time 2s"), "%s", out);
    /* and judge --problem DIR judges it unchanged */
    snprintf(p, sizeof p, "%s/hello.c", T_dir);
    t_write(p, "#include <stdio.h>\nint main(void){puts(\"Hello world!\");return 0;}\n");
    char dirp[800];
    snprintf(dirp, sizeof dirp, "%s/hello", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "judge", "--problem", dirp, "--lang", "c", "--slot", SLOT_PUSH, p, NULL),
                 0, "%s", out);
    cr_assert(contains(out, "verdict: AC") && contains(out, "secret-hello"), "%s", out);
    cr_assert_eq(push(cfg, "hello", "hello", out, sizeof out, v), 0, "%s", out);
    cr_assert(contains(out, "\"warnings\":[]"), "the ini gives the time limit: %s", out);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "show", "hello", "--json", NULL), 0);
    cr_assert(contains(out, "domjudge-problem.ini") && contains(out, "problem.icpc.yaml"), "%s", out);

    snprintf(p, sizeof p, "%s/hello.c", T_dir);
    t_write(p, "#include <stdio.h>\nint main(void){puts(\"Hello world!\");return 0;}\n");
    snprintf(p, sizeof p, "%s/bye.c", T_dir);
    t_write(p, "#include <stdio.h>\nint main(void){puts(\"Goodbye world!\");return 0;}\n");
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    submit_ok(cfg, "hello", "c", "hello.c", id);
    expect(id, "AC", v, "A");
    char yaml[4096], cached[900];
    snprintf(cached, sizeof cached, "%s/problem.yaml", path_of("%s/state-%s/problems/%s", "A", v));
    FILE *f = fopen(cached, "r");
    cr_assert(f, "%s", cached);
    yaml[fread(yaml, 1, sizeof yaml - 1, f)] = 0;
    fclose(f);
    cr_assert(contains(yaml, "time_limit: 2.000s") && contains(yaml, "title: \"Hello World\""), "%s", yaml);
    submit_ok(cfg, "hello", "c", "bye.c", id);
    expect(id, "WA", v, "A");

    /* no time limit anywhere: pushed, and the push says which it assumed */
    snprintf(p, sizeof p, "%s/hello/domjudge-problem.ini", T_dir);
    t_write(p, "probid = hello\nname = Hello World\n");
    cr_assert_eq(push(cfg, "hello", "hello2", out, sizeof out, NULL), 0, "%s", out);
    cr_assert(contains(out, "problem.yaml:0: time_limit: warning: the package gives no time limit") &&
              contains(out, "assumed 5 s"), "%s", out);
    /* and a check lists conversion errors as FILE:LINE: KEY like its own */
    snprintf(p, sizeof p, "%s/hello/domjudge-problem.ini", T_dir);
    t_write(p, "probid = hello\nspecial_run = myrun\n");
    snprintf(p, sizeof p, "%s/hello", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "check", p, "--slot", SLOT_PUSH, NULL), 1, "%s", out);
    cr_assert(contains(out, "domjudge-problem.ini:2: special_run: 'myrun' is a run script") &&
              contains(out, "time_limit: warning") && !contains(out, "judgectl-check-"), "%s", out);
}

/* The same game as a legacy package (Kattis problemtools, DOMjudge):
 * validation: custom interactive, the validator in output_validators/NAME/
 * with a header beside it, validator_flags as its arguments. */
Test(store, a_legacy_interactive_package_is_judged_by_its_validator_as_interactor)
{
    char cfg[400], out[8192], v[65], id[160], p[800], q[800];
    t_config("A", SLOT_A, NULL, "  native: {languages: [c], slots: 1}\n", cfg, sizeof cfg);
    make_guess("legacy");
    snprintf(p, sizeof p, "%s/legacy/problem.yaml", T_dir);
    t_write(p, "name: Guess the Number\nvalidation: custom interactive\nvalidator_flags: tries 10\n"
               "limits:\n  memory: 256\n");
    snprintf(p, sizeof p, "%s/legacy/.timelimit", T_dir);
    t_write(p, "2\n");
    snprintf(p, sizeof p, "%s/legacy/output_validator", T_dir);
    snprintf(q, sizeof q, "%s/legacy/output_validators", T_dir);
    cr_assert_eq(mkdir(q, 0755), 0);
    snprintf(q, sizeof q, "%s/legacy/output_validators/guess", T_dir);
    cr_assert_eq(rename(p, q), 0);
    snprintf(p, sizeof p, "%s/legacy/output_validators/guess/tries.h", T_dir);
    t_write(p, "#define TRIES_FLAG \"tries\"\n");
    snprintf(p, sizeof p, "%s/legacy/output_validators/guess/guess.c", T_dir);
    t_write(p, "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include \"tries.h\"\n"
               "static void done(const char *dir, int code, const char *msg) {\n"
               "  char p[4096]; snprintf(p, sizeof p, \"%%s/judgemessage.txt\", dir);\n"
               "  FILE *f = fopen(p, \"w\"); if (f) { fputs(msg, f); fclose(f); } exit(code); }\n"
               "int main(int argc, char **argv) {\n"
               "  int n, g; FILE *in = argc < 6 || strcmp(argv[4], TRIES_FLAG) ? NULL : fopen(argv[1], \"r\");\n"
               "  if (!in || fscanf(in, \"%%d\", &n) != 1) return 1;\n"
               "  for (int i = 0; i < atoi(argv[5]); i++) {\n"
               "    if (scanf(\"%%d\", &g) != 1) done(argv[3], 43, \"no guess\");\n"
               "    if (g == n) { puts(\"correct\"); fflush(stdout); done(argv[3], 42, \"found\"); }\n"
               "    puts(g < n ? \"higher\" : \"lower\"); fflush(stdout); }\n"
               "  done(argv[3], 43, \"too many guesses\"); }\n");
    tar("legacy", "legacy.tgz");
    snprintf(p, sizeof p, "%s/legacy.tgz", T_dir);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "problem", "push", p, "--json", "--slot", SLOT_PUSH, NULL), 0, "%s", out);
    const char *vv = strstr(out, "\"version\":\"");
    cr_assert(vv, "%s", out);
    snprintf(v, sizeof v, "%.64s", vv + 11);
    snprintf(p, sizeof p, "%s/bisect.c", T_dir);
    t_write(p, "#include <stdio.h>\n#include <string.h>\nint main(void){int lo=1,hi=1000;char r[16];\n"
               "for(;;){int m=(lo+hi)/2;printf(\"%%d\\n\",m);fflush(stdout);if(scanf(\"%%15s\",r)!=1)return 1;\n"
               "if(!strcmp(r,\"correct\"))return 0;if(!strcmp(r,\"higher\"))lo=m+1;else hi=m-1;}}\n");
    snprintf(p, sizeof p, "%s/noflush.c", T_dir);   /* never flushes: both wait, the wall clock ends it */
    t_write(p, "#include <stdio.h>\nint main(void){char r[16];printf(\"500\\n\");"
               "if(scanf(\"%%15s\",r)!=1)return 1;return 0;}\n");
    t_judged(cfg, "A");
    cr_assert(t_judged_started("A", 10000));
    submit_ok(cfg, "legacy", "c", "bisect.c", id);
    expect(id, "AC", v, "A");
    submit_ok(cfg, "legacy", "c", "noflush.c", id);
    expect(id, "TLE", v, "A");
}
