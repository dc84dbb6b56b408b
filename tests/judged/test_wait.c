/* test_wait.c - "about N submissions ahead of yours, about this long":
 * judgectl pools --json's expected_wait_ms and verdicts_per_min (the same
 * queue_pool_status judge-api's /v1/pools serves) with a real judged, a
 * real redis-server and real compiles. The pace is the pool's recent
 * verdicts (its results stream), so the test judges a few submissions,
 * pauses the pool, queues more and checks the estimate against the
 * verdicts Redis holds, with no timing margin. Sandbox slots 120..139. */
/* the harness is shared with the other process-level suites */
#pragma GCC diagnostic ignored "-Wunused-function"
#include <jansson.h>

#include "harness.h"

#define FIRST_SLOT 120   /* this file's slots: 120..139 */

static char cfg[400];

static void setup(void)
{
    t_setup(0);
    t_config("w1", FIRST_SLOT, NULL, "  native: {languages: [c, cpp], slots: 2}\n", cfg, sizeof cfg);
}

TestSuite(wait, .init = setup, .fini = t_teardown, .timeout = 400);

/* The pool's object of `judgectl pools --json` (the caller decrefs). */
static json_t *pool(const char *name)
{
    char out[16384];
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "pools", "--json", NULL), 0, "%s", out);
    json_error_t je;
    json_t *list = json_loads(out, 0, &je), *p;
    cr_assert(list, "not JSON: %s", out);
    size_t i;
    json_array_foreach(list, i, p) if (!strcmp(json_string_value(json_object_get(p, "name")), name))
    {
        json_incref(p);
        json_decref(list);
        return p;
    }
    cr_assert_fail("no pool %s in %s", name, out);
    return NULL;
}

/* The ms part of the ids of the pool's results events (its verdicts), oldest first. */
static int verdict_times(long long *t, int max)
{
    redisContext *c = t_redis();
    redisReply *r = redisCommand(c, "XRANGE judge:{native}:results - +");
    cr_assert(r && r->type == REDIS_REPLY_ARRAY);
    int n = 0;
    for (size_t i = 0; i < r->elements && n < max; i++)
        t[n++] = atoll(r->element[i]->element[0]->str);
    freeReplyObject(r);
    redisFree(c);
    return n;
}

Test(wait, expected_wait_from_the_recent_pace)
{
    char src[400], id[8][128], out[4096];
    snprintf(src, sizeof src, "%s/testdata/aplusb/solutions/ac.c", SRC);
    t_judged(cfg, "w1");
    cr_assert(t_judged_started("w1", 60000));

    /* nothing judged yet: nothing waits (0), then one waits on a paused
     * pool and there is no pace to tell its wait by (null, not 0) */
    json_t *p = pool("native");
    cr_assert_eq(json_integer_value(json_object_get(p, "expected_wait_ms")), 0, "nothing waits");
    cr_assert(json_is_integer(json_object_get(p, "expected_wait_ms")));
    cr_assert(json_is_null(json_object_get(p, "verdicts_per_min")));
    json_decref(p);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "pause", "native", NULL), 0, "%s", out);
    cr_assert_eq(t_submit(cfg, "aplusb", "c", src, NULL, NULL, id[0], sizeof id[0]), 0, "%s", id[0]);
    p = pool("native");
    cr_assert_eq(json_integer_value(json_object_get(p, "depth")), 1);
    cr_assert(json_is_null(json_object_get(p, "expected_wait_ms")), "no verdict yet: unknown");
    json_decref(p);

    /* judge four */
    for (int i = 1; i < 4; i++)
        cr_assert_eq(t_submit(cfg, "aplusb", "c", src, NULL, NULL, id[i], sizeof id[i]), 0, "%s", id[i]);
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "resume", "native", NULL), 0, "%s", out);
    for (int i = 0; i < 4; i++)
        cr_assert(t_wait_state(id[i], "done", 240000), "%s not judged", id[i]);

    /* then pause and queue six more: six ahead of the next one */
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "pause", "native", NULL), 0, "%s", out);
    for (int i = 0; i < 6; i++)
        cr_assert_eq(t_submit(cfg, "aplusb", "c", src, NULL, NULL, id[4], sizeof id[4]), 0, "%s", id[4]);
    long long t[16];
    int n = verdict_times(t, 16);
    cr_assert_eq(n, 4, "four verdicts in the results stream");
    p = pool("native");
    cr_assert_eq(json_integer_value(json_object_get(p, "depth")), 6);
    json_t *rate = json_object_get(p, "verdicts_per_min"), *wait = json_object_get(p, "expected_wait_ms");
    cr_assert(json_is_number(rate) && json_is_integer(wait), "no estimate: %s", json_dumps(p, 0));
    /* the pace of those four verdicts: three gaps between the first and the last */
    double want = 3 * 60000.0 / (double)(t[3] > t[0] ? t[3] - t[0] : 1);
    cr_assert_float_eq(json_number_value(rate), want, want * 1e-9, "pace %f, the verdicts say %f",
                       json_number_value(rate), want);
    long long w = json_integer_value(wait), expect = (long long)(6 * 60000.0 / want);
    cr_assert(w >= expect - 1 && w <= expect + 1, "six ahead at %f a minute: %lld ms, got %lld", want, expect, w);
    cr_assert_gt(w, 0);
    json_decref(p);

    /* the text form shows it too (WAIT) */
    cr_assert_eq(t_ctl(out, sizeof out, cfg, "pools", NULL), 0, "%s", out);
    cr_assert(strstr(out, "WAIT"), "%s", out);
}
