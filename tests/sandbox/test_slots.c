/*
 * test_slots.c - box slots: concurrent runs in different slots do not
 * disturb each other; a second run in a busy slot is refused, not mixed in.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../host_load.h"
#include "sandbox.h"

struct run_args {
    struct sandbox *sb;
    int slot;
    const char *script;
    double cpu_time;
    struct sandbox_result res;
    int rc;
};

static void *run_thread(void *p)
{
    struct run_args *a = p;
    struct sandbox_job job = SANDBOX_JOB_INIT;
    job.slot = a->slot;
    job.argv = (const char *const[]){"/bin/sh", "-c", a->script, NULL};
    job.limits.cpu_time = a->cpu_time;
    job.limits.wall_time = 10;
    job.limits.memory = 64ULL << 20;
    a->rc = sandbox_run(a->sb, &job, &a->res);
    return NULL;
}

static struct sandbox *open_sandbox(void)
{
    struct sandbox_config cfg = SANDBOX_CONFIG_INIT;
    cfg.run_dir = "/run/judge-sandbox-test-slots";
    cfg.cgroup_parent = "judge-sandbox-test-slots";
    struct sandbox *sb;
    char err[512];
    cr_assert_eq(sandbox_open(&sb, &cfg, err, sizeof err), 0, "%s", err);
    return sb;
}

/* Two CPU burners side by side on two cores: each is billed its own time,
 * not its neighbour's, and each sees only itself (its keeper is hidden). */
Test(slots, concurrent_runs_are_measured_apart)
{
    struct sandbox *sb = open_sandbox();
    struct run_args a = {sb, 810, "set -- /proc/[0-9]*; n=$#; "
                                  "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; "
                                  "[ $n -eq 1 ]", 0, {0}, 0};
    struct run_args b = a;
    b.slot = 811;
    pthread_t ta, tb;
    pthread_create(&ta, NULL, run_thread, &a);
    pthread_create(&tb, NULL, run_thread, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    cr_assert_eq(a.rc, 0, "%s", a.res.message);
    cr_assert_eq(b.rc, 0, "%s", b.res.message);
    cr_expect_eq(a.res.status, SANDBOX_OK, "a: %s %s", sandbox_status_name(a.res.status), a.res.message);
    cr_expect_eq(b.res.status, SANDBOX_OK, "b: %s %s", sandbox_status_name(b.res.status), b.res.message);
    /* each burnt CPU of its own; neither was billed for both */
    cr_expect_gt(a.res.cpu_time, 0.05);
    cr_expect_gt(b.res.cpu_time, 0.05);
    cr_expect_lt(a.res.cpu_time, a.res.wall_time * 1.2 + 0.05);
    cr_expect_lt(b.res.cpu_time, b.res.wall_time * 1.2 + 0.05);
    sandbox_close(sb);
}

Test(slots, a_busy_slot_refuses_a_second_run)
{
    struct sandbox *sb = open_sandbox();
    struct run_args a = {sb, 812, "sleep 1", 0, {0}, 0};
    struct run_args b = {sb, 812, "exit 0", 0, {0}, 0};
    pthread_t ta;
    pthread_create(&ta, NULL, run_thread, &a);
    usleep(300 * 1000);
    run_thread(&b);
    pthread_join(ta, NULL);
    cr_expect_eq(a.res.status, SANDBOX_OK, "first: %s", a.res.message);
    cr_expect_eq(b.rc, -1);
    cr_expect_eq(b.res.status, SANDBOX_IE);
    cr_expect(strstr(b.res.message, "busy"), "message: %s", b.res.message);
    sandbox_close(sb);
}

struct loop_args {
    struct sandbox *sb;
    int slot;
    int failures;
    char last_error[512];
};

static void *run_many(void *p)
{
    struct loop_args *a = p;
    for (int i = 0; i < 60; i++) {
        struct sandbox_job job = SANDBOX_JOB_INIT;
        job.slot = a->slot;
        job.argv = (const char *const[]){"/bin/true", NULL};
        struct sandbox_result res;
        if (sandbox_run(a->sb, &job, &res) < 0 || res.status != SANDBOX_OK) {
            a->failures++;
            snprintf(a->last_error, sizeof a->last_error, "%s", res.message);
        }
    }
    return NULL;
}

/* A slot is free again the moment its run returns, even while another
 * thread is cloning a box of its own (which briefly holds copies of every
 * fd of this process). */
Test(slots, back_to_back_runs_in_two_threads_never_look_busy)
{
    struct sandbox *sb = open_sandbox();
    struct loop_args a = {sb, 813, 0, ""}, b = {sb, 814, 0, ""};
    pthread_t ta, tb;
    pthread_create(&ta, NULL, run_many, &a);
    pthread_create(&tb, NULL, run_many, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    cr_expect_eq(a.failures, 0, "slot 813: %d failures, last: %s", a.failures, a.last_error);
    cr_expect_eq(b.failures, 0, "slot 814: %d failures, last: %s", b.failures, b.last_error);
    sandbox_close(sb);
}

static struct sandbox_result run_with_memory(struct sandbox *sb, int slot, uint64_t memory,
                                             const char *script)
{
    struct sandbox_job job = SANDBOX_JOB_INIT;
    job.slot = slot;
    job.argv = (const char *const[]){"/bin/sh", "-c", script, NULL};
    job.limits.wall_time = 10;
    job.limits.memory = memory;
    struct sandbox_result res;
    sandbox_run(sb, &job, &res);
    return res;
}

#define TOUCH_100M "exec /usr/bin/python3 -c 'b = bytearray(100 << 20); print(len(b))'"

/* A slot's cgroup keeps its limits between runs and a run writes only
 * those that changed: a new limit still takes effect, and so does the
 * caller's own limit after another process (here another handle) used the
 * slot with a larger one. */
Test(slots, each_run_gets_its_own_memory_limit, .timeout = 60)
{
    struct sandbox *a = open_sandbox(), *b = open_sandbox();
    struct sandbox_result r = run_with_memory(a, 815, 512 << 20, TOUCH_100M);
    cr_expect_eq(r.status, SANDBOX_OK, "512 MiB: %s", r.message);
    r = run_with_memory(a, 815, 64 << 20, TOUCH_100M);
    cr_expect_eq(r.status, SANDBOX_MLE, "64 MiB after 512 MiB: %s %s",
                 sandbox_status_name(r.status), r.message);
    r = run_with_memory(b, 815, 512 << 20, TOUCH_100M);
    cr_expect_eq(r.status, SANDBOX_OK, "another handle, 512 MiB: %s", r.message);
    r = run_with_memory(a, 815, 64 << 20, TOUCH_100M);
    cr_expect_eq(r.status, SANDBOX_MLE, "64 MiB again after the other handle: %s %s",
                 sandbox_status_name(r.status), r.message);
    sandbox_close(a);
    sandbox_close(b);
}

/* CPU time (ticks) used so far by the children of this process: the
 * sandbox's keepers, the only children a test here has between runs. */
static long children_ticks(void)
{
    long total = 0;
    DIR *tasks = opendir("/proc/self/task");
    cr_assert(tasks);
    for (struct dirent *t; (t = readdir(tasks));) {
        char path[300], list[4096];
        snprintf(path, sizeof path, "/proc/self/task/%s/children", t->d_name);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        size_t n = fread(list, 1, sizeof list - 1, f);
        fclose(f);
        list[n] = '\0';
        char *p = list, *end;
        for (long pid; (pid = strtol(p, &end, 10)), end != p; p = end) {
            snprintf(path, sizeof path, "/proc/%ld/stat", pid);
            FILE *st = fopen(path, "re");
            if (!st)
                continue;
            unsigned long utime = 0, stime = 0;
            /* after "(comm)": state ppid pgrp session tty tpgid flags minflt
             * cminflt majflt cmajflt utime stime */
            if (fscanf(st, "%*d (%*[^)]) %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                       &utime, &stime) == 2)
                total += (long)(utime + stime);
            fclose(st);
        }
    }
    closedir(tasks);
    return total;
}

/* The keeper waits for its program without burning CPU: with both on one
 * CPU, a keeper that spun while its program exited (it once polled a
 * hung-up seccomp listener) used a scheduler tick of CPU per run. */
Test(slots, the_keeper_does_not_spin, .timeout = 60)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
    struct sandbox *sb = open_sandbox();
    struct sandbox_job job = SANDBOX_JOB_INIT;
    job.slot = 816;
    job.argv = (const char *const[]){"/bin/true", NULL};
    struct sandbox_result res;
    cr_assert_eq(sandbox_run(sb, &job, &res), 0, "%s", res.message);  /* starts the keeper */
    long before = children_ticks();
    for (int i = 0; i < 60; i++)
        cr_assert_eq(sandbox_run(sb, &job, &res), 0, "%s", res.message);
    long used = children_ticks() - before;
    long hz = sysconf(_SC_CLK_TCK);
    /* a spinning keeper: ~60 runs x 2.5 ms = 150 ms; a sleeping one: ~5 ms */
    cr_expect_lt(used * 1000 / hz, 60, "the keeper used %ld ms of CPU for 60 runs",
                 used * 1000 / hz);
    sandbox_close(sb);
}

/* A program that computes 0.3 s while four spinning processes per core crowd
 * every core (it gets a fifth of whichever core it is on, so ~1.5 s pass)
 * is not stopped by a 0.8 s wall clock: its waits for a core do not count
 * (issue 42: an accepted Java submission judged TLE at load 19). A program
 * that sleeps is still stopped by it, crowded or not. The spinners crowd
 * every core rather than one the box is pinned to: a cpuset the box cannot
 * get (a chroot's cgroupfs, another box's) would leave it a free core. */
Test(slots, a_crowded_core_does_not_spend_the_wall_clock, .timeout = 120)
{
    struct sandbox *sb = open_sandbox();
    pid_t hogs[HOST_LOAD_MAX_SPINNERS];
    int nhogs = host_load_crowd(hogs);
    cr_assert_gt(nhogs, 0, "fork: %s", strerror(errno));
    const char *scripts[] = {
        "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3:\n    pass\n",
        "import time\ntime.sleep(3)\n"};
    struct sandbox_result res[2];
    for (int k = 0; k < 2; k++) {
        struct sandbox_job job = SANDBOX_JOB_INIT;
        job.slot = 817;
        job.argv = (const char *const[]){"/usr/bin/python3", "-c", scripts[k], NULL};
        job.limits.cpu_time = 5;
        job.limits.wall_time = 0.8;
        job.limits.memory = 256ULL << 20;
        cr_expect_eq(sandbox_run(sb, &job, &res[k]), 0, "%s", res[k].message);   /* the spinners end first */
    }
    host_load_uncrowd(hogs, nhogs);
    cr_expect_eq(res[0].status, SANDBOX_OK, "the crowded program: %s (cpu %.3f s, wall %.3f s)", res[0].message,
                 res[0].cpu_time, res[0].wall_time);
    cr_expect_gt(res[0].wall_time, 0.8, "not crowded (wall %.3f s)", res[0].wall_time);
    cr_expect_eq(res[1].status, SANDBOX_TLE, "the sleeper: %s", res[1].message);
    cr_expect(res[1].tle_wall);
    sandbox_close(sb);
}
