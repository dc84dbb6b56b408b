/* bench_store - a cold judge host fetching a large problem version from the
 * store (store_fetch: chunks pipelined, every byte hashed, written to a
 * temporary directory and renamed into place) against copying the same
 * bytes out of Redis with redis-cli (HGET of every chunk, commands fed on
 * stdin, output to a file). Also times the push. A program to run, not a
 * test: build/bin/bench_store [MiB [ROUNDS]] (default 100 MiB, 3 rounds).
 * BENCH_TCP=1 uses loopback TCP. */
#include <stdint.h>
#include <sys/random.h>

#include "bench_common.h"
#include "common.h"
#include "store.h"

static void make_package(const char *dir, long mib)
{
    char p[600];
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/problem.yaml", dir);
    b_write_file(p, "name: big\ntime_limit: 1s\nmemory_limit: 256M\nchecker: tokens\n");
    snprintf(p, sizeof p, "%s/tests", dir);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/tests/1.out", dir);
    b_write_file(p, "0\n");
    snprintf(p, sizeof p, "%s/tests/1.in", dir);
    FILE *f = fopen(p, "w");
    char *buf = malloc(1 << 20);
    for (long i = 0; i < mib; i++) {
        for (size_t got = 0; got < (1u << 20);) {   /* incompressible, like real test data at worst */
            ssize_t r = getrandom(buf + got, (1u << 20) - got, 0);
            if (r > 0)
                got += (size_t)r;
        }
        fwrite(buf, 1, 1 << 20, f);
    }
    free(buf);
    fclose(f);
}

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 100;
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    pid_t redis = b_redis();
    char pkg[400], err[1024];
    snprintf(pkg, sizeof pkg, "%s/pkg", B_dir);
    make_package(pkg, mib);
    struct queue_conn k;
    queue_conn_init(&k, B_url, 60000);
    struct store_manifest m;
    double t0 = common_monotonic();
    if (store_manifest_from_dir(pkg, 0, &m, err, sizeof err))
        b_die(err);
    double t_hash = common_monotonic() - t0;
    struct store_push_reply pr;
    t0 = common_monotonic();
    if (store_push(&k, "big", pkg, &m, 0, NULL, &pr, err, sizeof err))
        b_die(err);
    double t_push = common_monotonic() - t0;

    /* the redis-cli side: HGET of every chunk of every blob, one client */
    char cmds[400], out[400];
    snprintf(cmds, sizeof cmds, "%s/cmds", B_dir);
    snprintf(out, sizeof out, "%s/cli.out", B_dir);
    FILE *f = fopen(cmds, "w");
    for (size_t i = 0; i < m.n; i++) {
        long n = (long)((m.files[i].size + STORE_CHUNK - 1) / STORE_CHUNK);
        for (long c = 0; c < (n ? n : 1); c++)
            fprintf(f, "HGET judge:blob:%s c%ld\n", m.files[i].sha, c);
    }
    fclose(f);
    char cli[1400];
    if (getenv("BENCH_TCP"))
        snprintf(cli, sizeof cli, "redis-cli -h 127.0.0.1 -p %s --raw < '%s' > '%s'", strrchr(B_url, ':') + 1,
                 cmds, out);
    else
        snprintf(cli, sizeof cli, "redis-cli -s '%s' --raw < '%s' > '%s'", B_sock, cmds, out);

    double best_fetch = 1e9, best_cli = 1e9;
    for (int r = 0; r < rounds; r++) {
        char tmp[500], fin[500];
        snprintf(tmp, sizeof tmp, "%s/.tmp-%d", B_dir, r);
        snprintf(fin, sizeof fin, "%s/cold-%d", B_dir, r);
        queue_conn_close(&k);   /* a cold host: a new connection too */
        queue_conn_init(&k, B_url, 60000);
        t0 = common_monotonic();
        uint64_t bytes = 0;
        if (store_fetch(&k, m.version, tmp, fin, &bytes, err, sizeof err))
            b_die(err);
        double tf = common_monotonic() - t0;
        store_remove_tree(fin);
        t0 = common_monotonic();
        if (system(cli))
            b_die("redis-cli failed");
        double tc = common_monotonic() - t0;
        struct stat st;
        if (stat(out, &st) || (uint64_t)st.st_size < m.total)
            b_die("redis-cli copied fewer bytes than the package holds");
        unlink(out);
        printf("round %d: fetch %.3f s, redis-cli %.3f s\n", r + 1, tf, tc);
        if (tf < best_fetch)
            best_fetch = tf;
        if (tc < best_cli)
            best_cli = tc;
    }
    printf("\npackage: %zu files, %.1f MiB, version %.12s\n", m.n, (double)m.total / (1 << 20), m.version);
    printf("hash (manifest of the directory)     %.3f s\n", t_hash);
    printf("push (upload + commit)               %.3f s\n", t_push);
    printf("cold fetch (verified, renamed)       %.3f s (best of %d)\n", best_fetch, rounds);
    printf("redis-cli HGET of the same chunks    %.3f s (best of %d)\n", best_cli, rounds);
    printf("fetch / redis-cli                    %.2fx (target < 2x)\n", best_fetch / best_cli);
    store_manifest_free(&m);
    queue_conn_close(&k);
    b_stop(redis);
    b_cleanup();
    return 0;
}
