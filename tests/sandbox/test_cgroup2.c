/*
 * test_cgroup2.c - the cgroup v2 code path, run against a fake cgroupfs.
 *
 * This machine mounts memory, pids and cpuacct as v1, while production hosts
 * run v2. These tests point the sandbox at a directory tree shaped like a v2
 * hierarchy (cgroup_root = the fake tree, mode V2) and run real programs in
 * real boxes: the sandbox writes its limits into the fake files, the program
 * "joins" by writing 0 to the fake cgroup.procs, and the test plays the
 * kernel by rewriting memory.peak, memory.events and cpu.stat while the
 * program runs. What the result says about limits must come from those
 * files; the memory figure is the program's peak RSS, whatever memory.peak
 * says (the cgroup's peak depends on what earlier runs left charged).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox.h"

#define RUN_DIR "/run/judge-sandbox-test-v2"

struct fake {
    char root[128];
    char box[256];
};

static void put(const char *dir, const char *file, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

static char *get(const char *dir, const char *file)
{
    static char buf[4][256];
    static int next;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot read %s", path);
    char *b = buf[next++ % 4];
    size_t n = fread(b, 1, 255, f);
    b[n] = '\0';
    fclose(f);
    return b;
}

/* A v2 hierarchy as the kernel would show it, with the slot already made
 * (mkdir on a plain filesystem does not create the control files). */
static void make_fake(struct fake *fk, int slot)
{
    snprintf(fk->root, sizeof fk->root, "/tmp/fake-cgroup2-XXXXXX");
    cr_assert_not_null(mkdtemp(fk->root));
    put(fk->root, "cgroup.controllers", "cpuset cpu io memory pids\n");
    put(fk->root, "cgroup.subtree_control", "");
    snprintf(fk->box, sizeof fk->box, "%s/judge/box-%d", fk->root, slot);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", fk->box);
    cr_assert_eq(system(cmd), 0);
    static const char *const files[][2] = {
        /* limit files start empty: the kernel replaces, a plain file overwrites */
        {"memory.max", ""}, {"memory.swap.max", ""}, {"memory.oom.group", ""},
        {"pids.max", ""}, {"memory.peak", ""}, {"memory.current", "4096\n"},
        {"memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n"},
        {"cpu.stat", "usage_usec 1000\nuser_usec 600\nsystem_usec 400\n"},
        {"cgroup.procs", ""}, {"cgroup.kill", ""}, {"cgroup.subtree_control", ""}, {"cpuset.cpus", ""}};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        put(fk->box, files[i][0], files[i][1]);
}

static void remove_fake(struct fake *fk)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", fk->root);
    cr_expect_eq(system(cmd), 0, "%s failed: the next run finds its fake tree", cmd);
}

static struct sandbox *open_v2(struct fake *fk)
{
    struct sandbox_config cfg = SANDBOX_CONFIG_INIT;
    cfg.run_dir = RUN_DIR;
    cfg.cgroup_mode = SANDBOX_CGROUP_V2;
    cfg.cgroup_root = fk->root;
    cfg.cgroup_parent = "judge";
    struct sandbox *sb;
    char err[512];
    cr_assert_eq(sandbox_open(&sb, &cfg, err, sizeof err), 0, "sandbox_open: %s", err);
    cr_assert_str_eq(sandbox_cgroup_version(sb), "v2");
    return sb;
}

struct run_args {
    struct sandbox *sb;
    const char *argv[4];
    struct sandbox_job job;
    struct sandbox_result res;
    int rc;
};

static void *run_thread(void *p)
{
    struct run_args *a = p;
    a->rc = sandbox_run(a->sb, &a->job, &a->res);
    return NULL;
}

static void start(struct run_args *a, struct sandbox *sb, int slot, const char *script,
                  double cpu_time, pthread_t *th)
{
    memset(a, 0, sizeof *a);
    a->sb = sb;
    a->argv[0] = "/bin/sh";
    a->argv[1] = "-c";
    a->argv[2] = script;
    struct sandbox_job job = SANDBOX_JOB_INIT;
    a->job = job;
    a->job.slot = slot;
    a->job.argv = a->argv;
    a->job.limits.memory = 256ULL << 20;
    a->job.limits.procs = 17;
    a->job.limits.wall_time = 5;
    a->job.limits.cpu_time = cpu_time;
    cr_assert_eq(pthread_create(th, NULL, run_thread, a), 0);
}

Test(cgroup2, limits_are_written_and_program_joins)
{
    struct fake fk;
    make_fake(&fk, 900);
    struct sandbox *sb = open_v2(&fk);
    struct run_args a;
    pthread_t th;
    start(&a, sb, 900, "exit 0", 0, &th);
    pthread_join(th, NULL);
    cr_assert_eq(a.rc, 0, "run failed: %s", a.res.message);
    cr_expect_eq(a.res.status, SANDBOX_OK, "status %s: %s", sandbox_status_name(a.res.status),
                 a.res.message);
    cr_expect_str_eq(get(fk.box, "memory.max"), "268435456");
    cr_expect_str_eq(get(fk.box, "memory.swap.max"), "0");
    cr_expect_str_eq(get(fk.box, "pids.max"), "17");
    cr_expect_eq(get(fk.box, "memory.oom.group")[0], '1');
    /* the program wrote 0 ("me") into the slot's cgroup.procs before exec */
    cr_expect_eq(get(fk.box, "cgroup.procs")[0], '0');
    cr_expect_eq(a.res.degraded, false);
    sandbox_close(sb);
    remove_fake(&fk);
}

/* one run of script in slot, pinned to cpus (NULL: not), in this thread */
static void run_pinned(struct run_args *a, struct sandbox *sb, int slot, const char *script, const char *cpus)
{
    memset(a, 0, sizeof *a);
    a->sb = sb;
    a->argv[0] = "/bin/sh", a->argv[1] = "-c", a->argv[2] = script;
    a->job = (struct sandbox_job)SANDBOX_JOB_INIT;
    a->job.slot = slot, a->job.argv = a->argv, a->job.cpus = cpus;
    a->job.limits = (struct sandbox_limits){.memory = 256ULL << 20, .procs = 17, .wall_time = 5};
    run_thread(a);
}

/* issue 37, one box per core: the job's cpus become the slot's
 * cpuset.cpus and the program's affinity (a CPU it may use here: the last
 * of this process's own); a later run that is not pinned gives the slot its
 * parent's CPUs back (empty); a bad list is refused. */
Test(cgroup2, cpus_pin_the_slot_cpuset)
{
    struct fake fk;
    make_fake(&fk, 903);
    struct sandbox *sb = open_v2(&fk);
    cpu_set_t mine;
    cr_assert_eq(sched_getaffinity(0, sizeof mine, &mine), 0);
    int cpu = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mine))
            cpu = c;
    char want[16], script[128];
    snprintf(want, sizeof want, "%d", cpu);
    snprintf(script, sizeof script, "grep -q '^Cpus_allowed_list:[[:space:]]*%d$' /proc/self/status", cpu);
    struct run_args a;
    run_pinned(&a, sb, 903, script, want);
    cr_assert_eq(a.rc, 0, "run failed: %s", a.res.message);
    cr_expect_eq(a.res.status, SANDBOX_OK, "the program runs on CPU %s only: %s", want, a.res.message);
    cr_expect_str_eq(get(fk.box, "cpuset.cpus"), want);
    run_pinned(&a, sb, 903, "exit 0", NULL);
    cr_assert_eq(a.rc, 0, "run failed: %s", a.res.message);
    cr_expect_eq(get(fk.box, "cpuset.cpus")[0], '\n', "not pinned: the parent's CPUs (empty)");
    run_pinned(&a, sb, 903, "exit 0", "1-x");
    cr_expect_eq(a.rc, -1, "a bad CPU list is refused");
    cr_expect(strstr(a.res.message, "cpus: expected a CPU list"), "%s", a.res.message);
    sandbox_close(sb);
    remove_fake(&fk);
}

/* While the program sleeps, the "kernel" reports an OOM kill and a peak
 * below the limit: MLE, and the memory reported is at least the limit. */
Test(cgroup2, oom_kill_in_memory_events_is_mle_at_the_limit)
{
    struct fake fk;
    make_fake(&fk, 901);
    struct sandbox *sb = open_v2(&fk);
    struct run_args a;
    pthread_t th;
    start(&a, sb, 901, "sleep 0.6; kill -9 $$", 0, &th);
    usleep(250 * 1000);
    put(fk.box, "memory.peak", "104861696\n");  /* 100 MiB + 4096 baseline */
    put(fk.box, "memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\noom_group_kill 1\n");
    pthread_join(th, NULL);
    cr_assert_eq(a.rc, 0, "run failed: %s", a.res.message);
    cr_expect_eq(a.res.status, SANDBOX_MLE, "status %s: %s", sandbox_status_name(a.res.status),
                 a.res.message);
    cr_expect_eq(a.res.memory, 256ULL << 20, "memory %llu", (unsigned long long)a.res.memory);
    sandbox_close(sb);
    remove_fake(&fk);
}

/* A charge of 200 MiB left in the cgroup by "earlier runs" does not show:
 * a shell that exits reports its own peak RSS, more than 0, a few MiB. */
Test(cgroup2, memory_is_peak_rss_not_the_cgroup_peak)
{
    struct fake fk;
    make_fake(&fk, 906);
    put(fk.box, "memory.current", "209715200\n");
    struct sandbox *sb = open_v2(&fk);
    struct run_args a;
    pthread_t th;
    start(&a, sb, 906, "sleep 0.3", 0, &th);
    usleep(100 * 1000);
    put(fk.box, "memory.peak", "230686720\n");
    pthread_join(th, NULL);
    cr_assert_eq(a.rc, 0, "run failed: %s", a.res.message);
    cr_expect_eq(a.res.status, SANDBOX_OK, "status %s: %s", sandbox_status_name(a.res.status),
                 a.res.message);
    cr_expect(a.res.memory > 0 && a.res.memory < (16ULL << 20), "memory %llu",
              (unsigned long long)a.res.memory);
    sandbox_close(sb);
    remove_fake(&fk);
}

/* cpu.stat is polled during the run: passing the limit there is a CPU TLE. */
Test(cgroup2, cpu_stat_usage_over_limit_is_cpu_tle)
{
    struct fake fk;
    make_fake(&fk, 902);
    struct sandbox *sb = open_v2(&fk);
    struct run_args a;
    pthread_t th;
    start(&a, sb, 902, "sleep 3", 1.0, &th);
    usleep(200 * 1000);
    put(fk.box, "cpu.stat", "usage_usec 2501000\nuser_usec 2500000\nsystem_usec 1000\n");
    pthread_join(th, NULL);
    cr_assert_eq(a.rc, 0, "run failed: %s", a.res.message);
    cr_expect_eq(a.res.status, SANDBOX_TLE, "status %s: %s", sandbox_status_name(a.res.status),
                 a.res.message);
    cr_expect_eq(a.res.tle_wall, false);
    cr_expect_float_eq(a.res.cpu_time, 2.5, 0.001, "cpu %.6f", a.res.cpu_time);
    cr_expect_lt(a.res.wall_time, 2.0);
    sandbox_close(sb);
    remove_fake(&fk);
}

Test(cgroup2, missing_control_files_are_an_internal_error_naming_the_path)
{
    struct fake fk;
    make_fake(&fk, 903);
    char path[400];
    snprintf(path, sizeof path, "%s/pids.max", fk.box);
    unlink(path);
    struct sandbox *sb = open_v2(&fk);
    struct run_args a;
    pthread_t th;
    start(&a, sb, 903, "exit 0", 0, &th);
    pthread_join(th, NULL);
    cr_expect_eq(a.rc, -1);
    cr_expect_eq(a.res.status, SANDBOX_IE);
    cr_expect(strstr(a.res.message, "cgroup v2") && strstr(a.res.message, fk.box),
              "message: %s", a.res.message);
    sandbox_close(sb);
    remove_fake(&fk);
}

Test(cgroup_detect, none_mode_is_degraded_and_says_so)
{
    struct sandbox_config cfg = SANDBOX_CONFIG_INIT;
    cfg.run_dir = RUN_DIR;
    cfg.cgroup_mode = SANDBOX_CGROUP_NONE;
    struct sandbox *sb;
    char err[512];
    cr_assert_eq(sandbox_open(&sb, &cfg, err, sizeof err), 0, "%s", err);
    cr_expect_str_eq(sandbox_cgroup_version(sb), "none");
    struct sandbox_job job = SANDBOX_JOB_INIT;
    job.slot = 904;
    job.argv = (const char *const[]){"/bin/true", NULL};
    struct sandbox_result res;
    cr_assert_eq(sandbox_run(sb, &job, &res), 0, "%s", res.message);
    cr_expect_eq(res.status, SANDBOX_OK);
    cr_expect_eq(res.degraded, true);
    sandbox_close(sb);
}

Test(parse, sizes)
{
    uint64_t v;
    cr_expect_eq(sandbox_parse_size("256M", &v), 0);
    cr_expect_eq(v, 256ULL << 20);
    cr_expect_eq(sandbox_parse_size("1G", &v), 0);
    cr_expect_eq(v, 1ULL << 30);
    cr_expect_eq(sandbox_parse_size("64k", &v), 0);
    cr_expect_eq(v, 64ULL << 10);
    cr_expect_eq(sandbox_parse_size("1.5MiB", &v), 0);
    cr_expect_eq(v, 3ULL << 19);
    cr_expect_eq(sandbox_parse_size("4096", &v), 0);
    cr_expect_eq(v, 4096);
    cr_expect_eq(sandbox_parse_size("12Q", &v), -1);
    cr_expect_eq(sandbox_parse_size("-1M", &v), -1);
    cr_expect_eq(sandbox_parse_size("", &v), -1);
    cr_expect_eq(sandbox_parse_size("M", &v), -1);
}

Test(parse, seconds)
{
    double v;
    cr_expect_eq(sandbox_parse_seconds("1.5", &v), 0);
    cr_expect_float_eq(v, 1.5, 1e-9);
    cr_expect_eq(sandbox_parse_seconds("2s", &v), 0);
    cr_expect_float_eq(v, 2.0, 1e-9);
    cr_expect_eq(sandbox_parse_seconds("500ms", &v), 0);
    cr_expect_float_eq(v, 0.5, 1e-9);
    cr_expect_eq(sandbox_parse_seconds("3h", &v), -1);
    cr_expect_eq(sandbox_parse_seconds("fast", &v), -1);
}

/* Degraded, RLIMIT_DATA bounds memory and counts each thread's stack
 * reservation: the default stack must leave room for threads. */
Test(cgroup_detect, degraded_mode_still_runs_threads)
{
    struct sandbox_config cfg = SANDBOX_CONFIG_INIT;
    cfg.run_dir = RUN_DIR;
    cfg.cgroup_mode = SANDBOX_CGROUP_NONE;
    struct sandbox *sb;
    char err[512];
    cr_assert_eq(sandbox_open(&sb, &cfg, err, sizeof err), 0, "%s", err);
    struct sandbox_job job = SANDBOX_JOB_INIT;
    job.slot = 905;
    job.argv = (const char *const[]){"/usr/bin/python3", "-c",
                                     "import threading\n"
                                     "ts = [threading.Thread(target=len, args=('x',)) for _ in range(4)]\n"
                                     "[t.start() for t in ts]; [t.join() for t in ts]", NULL};
    job.limits.memory = 256ULL << 20;
    job.limits.procs = 16;
    job.limits.wall_time = 10;
    struct sandbox_result res;
    cr_assert_eq(sandbox_run(sb, &job, &res), 0, "%s", res.message);
    cr_expect_eq(res.status, SANDBOX_OK, "%s: %s", sandbox_status_name(res.status), res.message);
    cr_expect_eq(res.degraded, true);
    sandbox_close(sb);
}
