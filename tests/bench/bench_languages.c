/*
 * bench_languages.c - bench_languages: the same algorithm in every language,
 * CPU time per run, from which each language file's time_factor is set.
 *
 * The algorithm is the sieve of Eratosthenes up to N with plain loops
 * (tests/bench/languages/sieve.EXT, Main.java): array writes, compares and
 * integer arithmetic, what a contest's inner loops do. Each language is
 * judged as a submission (its compile and run flags, in the sandbox) on a
 * package of two tests: N = 2 (start-up alone) and N (default 20,000,000).
 * The machine is shared and loaded, so each figure is the MINIMUM CPU time
 * (user + system, as the sandbox's cgroup counts it) over ROUNDS judgings:
 * load only ever adds to a run's CPU time (cache misses, preemption), and
 * the minimum is the run least disturbed. The compile is cached after the
 * first round.
 *
 * Printed per language: start-up CPU (N = 2), the sieve's CPU, and the
 * sieve's CPU over C's (the `c` language): the figure languages/README.md
 * turns into a time_factor ("Time factors, measured").
 *
 *   bench_languages [ROUNDS] [N] [SLOT] [ID...]   (root: the real sandbox)
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "helpers.h"
#include "runner.h"

#define SOURCES JUDGED_SOURCE_DIR "/tests/bench/languages"

static long primes_up_to(long n)
{
    char *composite = calloc((size_t)n + 1, 1);
    long count = 0;
    for (long i = 2; composite && i <= n; i++)
        if (!composite[i]) {
            count++;
            for (long j = i * i; j <= n; j += i)
                composite[j] = 1;
        }
    free(composite);
    return count;
}

static char *make_package(long n)
{
    char *dir = scratch_dir("benchlang");
    put_file(dir, "problem.yaml", "name: sieve\ntime_limit: 120s\nmemory_limit: 1G\nchecker: tokens\n"
             "stop_on_failure: none\n");
    put_file(dir, "tests/1.in", "2\n");
    put_file(dir, "tests/1.out", "1\n");
    put_file(dir, "tests/2.in", "%ld\n", n);
    put_file(dir, "tests/2.out", "%ld\n", primes_up_to(n));
    return dir;
}

/* sieve.EXT (or Main.java) for the first of list's extensions that has one */
static char *source_in(json_t *list)
{
    json_t *e;
    size_t i;
    json_array_foreach(list, i, e) {
        char path[512];
        struct stat st;
        const char *ext = json_string_value(e);
        snprintf(path, sizeof path, "%s/%s%s", SOURCES, strcmp(ext, ".java") ? "sieve" : "Main", ext);
        if (!stat(path, &st))
            return strdup(path);
    }
    return NULL;
}

/* sieve_ID.EXT for the first of list's extensions that has one: a
 * language that shares its extension but not its source language (nasm32's
 * .asm is 32-bit code, nasm's 64-bit) */
static char *own_source_in(const char *id, json_t *list)
{
    json_t *e;
    size_t i;
    json_array_foreach(list, i, e) {
        char path[512];
        struct stat st;
        snprintf(path, sizeof path, "%s/sieve_%s%s", SOURCES, id, json_string_value(e));
        if (!stat(path, &st))
            return strdup(path);
    }
    return NULL;
}

/* the bench source of language id: its own (sieve_ID.EXT), else one of the
 * extensions it is the default for (Prolog's .pro, not Perl's .pl), else of
 * its extensions (PyPy's .py); NULL when there is none */
static char *source_of(struct runner *r, const char *id)
{
    char *text = runner_language_json(r, id);
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;
    char *found = own_source_in(id, json_object_get(o, "extensions"));
    if (!found)
        found = source_in(json_object_get(o, "default_for"));
    if (!found)
        found = source_in(json_object_get(o, "extensions"));
    json_decref(o);
    free(text);
    return found;
}

struct figures {
    double startup, sieve;   /* minimum CPU seconds of test 1 and test 2 */
    char verdict[8];
};

/* judges source as id once; folds its tests' CPU times into f */
static int judge_once(struct runner *r, const char *pkg, const char *id, const char *source, struct figures *f)
{
    size_t len = 0;
    char *src = common_read_file(source, 1 << 20, &len, NULL);
    struct runner_request req = {.problem_dir = pkg, .language = id, .source = src, .source_len = len};
    struct runner_report *rep = NULL;
    enum runner_failure failure;
    char err[1024];
    int rc = runner_judge(r, &req, &rep, &failure, err, sizeof err);
    free(src);
    if (rc < 0)
        return fprintf(stderr, "%s: %s\n", id, err), -1;
    snprintf(f->verdict, sizeof f->verdict, "%s", runner_verdict_name(runner_report_verdict(rep)));
    char *json = runner_report_json(rep);
    json_t *o = json_loads(json, 0, NULL);
    json_t *tests = json_object_get(o, "tests");
    double cpu[2] = {-1, -1};
    for (size_t i = 0; i < 2 && i < json_array_size(tests); i++)
        cpu[i] = json_number_value(json_object_get(json_array_get(tests, i), "cpu_time"));
    if (cpu[0] >= 0 && (f->startup < 0 || cpu[0] < f->startup))
        f->startup = cpu[0];
    if (cpu[1] >= 0 && (f->sieve < 0 || cpu[1] < f->sieve))
        f->sieve = cpu[1];
    json_decref(o);
    free(json);
    runner_report_free(rep);
    return 0;
}

static bool wanted(const char *id, char **ids, int nids)
{
    for (int i = 0; i < nids; i++)
        if (!strcmp(ids[i], id))
            return true;
    return nids == 0;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3, slot = argc > 3 ? atoi(argv[3]) : 960;
    long n = argc > 2 ? atol(argv[2]) : 20000000;
    struct runner_config cfg = {.languages_dir = JUDGED_SOURCE_DIR "/languages",
                                .work_dir = "/tmp/bench-languages-work", .first_slot = slot, .slots = 1};
    struct runner *r = NULL;
    char err[4096];
    if (rounds < 1 || n < 2 || runner_open(&r, &cfg, err, sizeof err) < 0) {
        fprintf(stderr, "usage: bench_languages [ROUNDS] [N] [SLOT] [ID...]%s%s\n", r || rounds < 1 ? "" : ": ",
                r || rounds < 1 ? "" : err);
        return 2;
    }
    char *pkg = make_package(n);
    size_t count = runner_language_count(r);
    struct figures *f = calloc(count, sizeof *f);
    double c_sieve = -1;
    printf("sieve of Eratosthenes to %ld, minimum CPU of %d rounds\n", n, rounds);
    printf("%-14s %-8s %12s %10s %8s\n", "language", "verdict", "start-up ms", "sieve s", "x C");
    for (size_t i = 0; i < count; i++) {
        const char *id = runner_language_id(r, i);
        char *source = wanted(id, argv + 4, argc > 4 ? argc - 4 : 0) ? source_of(r, id) : NULL;
        f[i] = (struct figures){.startup = -1, .sieve = -1};
        for (int k = 0; source && k < rounds; k++)
            if (judge_once(r, pkg, id, source, &f[i]) < 0)
                break;
        free(source);
        if (!strcmp(id, "c"))
            c_sieve = f[i].sieve;
    }
    for (size_t i = 0; i < count; i++)
        if (f[i].sieve >= 0)
            printf("%-14s %-8s %12.1f %10.3f %8.2f\n", runner_language_id(r, i), f[i].verdict, f[i].startup * 1000,
                   f[i].sieve, c_sieve > 0 ? f[i].sieve / c_sieve : 0);
    free(f);
    remove_dir(pkg);
    free(pkg);
    runner_close(r);
    return 0;
}
