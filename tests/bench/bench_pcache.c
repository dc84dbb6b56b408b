/*
 * bench_pcache.c - what judged's check of a cached problem copy costs per
 * job (issue 22): pcheck.c's metadata check as pcache.c runs it for every
 * job - a compare at acquire, the LRU stamp and the directory's metadata
 * taken again, a compare at release - on a 20-test A+B package (43 files
 * and directories) and on a 1,000-file package, against the hash the old
 * cache paid once per process (and the new one on a change or on
 * schedule). Compare with bench-runner's per-test overhead.
 *
 *   bench_pcache [ROUNDS]     (default 2000; no root, no Redis needed)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "store.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void put(const char *dir, const char *rel, const char *text)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) {
        perror(p);
        exit(1);
    }
}

/* A package of `tests` tests (in and out) in groups of 100, plus `extra`
 * small files in a directory of their own. */
static char *make_package(const char *tag, int tests, int extra)
{
    char *dir = NULL;
    if (asprintf(&dir, "/tmp/bench-pcache-%s-XXXXXX", tag) < 0 || !mkdtemp(dir))
        exit(1);
    put(dir, "problem.yaml", "name: aplusb\ntime_limit: 1s\nmemory_limit: 256M\nchecker: tokens\n");
    char rel[200], text[64];
    for (int i = 1; i <= tests; i++) {
        snprintf(text, sizeof text, "%d %d\n", i * 1000, -i);
        snprintf(rel, sizeof rel, tests > 100 ? "tests/g%d/%d.in" : "tests/%d.in", i / 100, i);
        if (tests <= 100)
            snprintf(rel, sizeof rel, "tests/%d.in", i);
        put(dir, rel, text);
        snprintf(text, sizeof text, "%d\n", i * 1000 - i);
        strcpy(strrchr(rel, '.'), ".out");
        put(dir, rel, text);
    }
    for (int i = 0; i < extra; i++) {
        snprintf(rel, sizeof rel, "attachments/%d.txt", i);
        put(dir, rel, "x\n");
    }
    return dir;
}

/* One job's checks, as pcache_acquire and pcache_release run them. */
static int one_job(const char *dir, struct pnode *nodes, size_t n)
{
    char why[1024];
    if (pcheck_stat(dir, nodes, n, false, why, sizeof why))
        return fprintf(stderr, "bench_pcache: %s\n", why), -1;
    utimensat(AT_FDCWD, dir, NULL, 0);
    pcheck_stat(dir, nodes, 1, true, why, sizeof why);
    if (pcheck_stat(dir, nodes, n, false, why, sizeof why))
        return fprintf(stderr, "bench_pcache: %s\n", why), -1;
    return 0;
}

static int bench(const char *name, const char *dir, int rounds)
{
    struct store_manifest m;
    char err[1024];
    if (store_manifest_from_dir(dir, 0, &m, err, sizeof err))
        return fprintf(stderr, "bench_pcache: %s\n", err), -1;
    struct pnode *nodes;
    size_t n;
    if (pcheck_nodes(&m, &nodes, &n) || pcheck_stat(dir, nodes, n, true, err, sizeof err))
        return fprintf(stderr, "bench_pcache: cannot record %s\n", dir), -1;
    double t0 = now();
    if (store_verify_dir(dir, &m, err, sizeof err))
        return fprintf(stderr, "bench_pcache: %s\n", err), -1;
    double hash = now() - t0;
    double *t = calloc((size_t)rounds, sizeof *t);
    for (int i = 0; i < rounds; i++) {
        double s = now();
        if (one_job(dir, nodes, n))
            return -1;
        t[i] = (now() - s) * 1e6;
    }
    qsort(t, (size_t)rounds, sizeof *t, by_value);
    printf("%-26s %5zu files %5zu nodes: check per job median %7.1f us (p99 %7.1f us); "
           "a full hash %8.1f us\n", name, m.n, n, t[rounds / 2], t[rounds * 99 / 100], hash * 1e6);
    free(t);
    pcheck_free(nodes, n);
    store_manifest_free(&m);
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    if (rounds <= 0 || (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
        fprintf(stderr, "usage: bench_pcache [ROUNDS]\n  the per-job check of a cached problem copy "
                        "(default 2000 rounds)\n");
        return 2;
    }
    char *small = make_package("20", 20, 0), *large = make_package("1000", 400, 199);
    int rc = bench("A+B, 20 tests", small, rounds) || bench("1,000 files", large, rounds);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", small, large);
    if (system(cmd))
        rc = 1;
    return rc ? 1 : 0;
}
