/* bench_instr - what a job costs Redis, in instructions (callgrind).
 *
 * Jobs/s and CPU seconds move with the machine: on this kind of VM the
 * same run differs by 2x between a quiet and a busy moment (an idle CPU's
 * wake-up costs more than the work). Instructions do not move: this bench
 * runs a private redis-server under `valgrind --tool=callgrind` and counts
 * the instructions Redis executes for
 *
 *  1. admission: N submissions through judged_admit (queue_admit);
 *  2. the worker's loop: claim one job, then N times judged_finish_claim
 *     (queue_finish_then_claim: the finish of the job, the claim of the
 *     next), exactly the calls a loaded judged makes per job;
 *  3. the raw loop bench_dispatch compares against: XREADGROUP COUNT 1 +
 *     XACK over N entries.
 *
 * Counters are zeroed before and dumped after each phase (callgrind_control),
 * so the setup is not counted; Redis' own timers (serverCron, ~10 Hz) are,
 * and they are a few percent at most. The other benches' Redis, settings
 * and all (b_redis_in_dir: 1 KiB stream nodes, AOF everysec). One client: the figure is
 * per job, not per second. Needs valgrind (Debian package valgrind).
 *
 * usage: bench_instr [N]     (default 2000 jobs; BENCH_KEEP=1 keeps the dumps)
 */
#include "bench_common.h"

#define POOL "native"

static char cg_out[400];
static pid_t cg_pid;

/* the benches' redis-server (b_redis_in_dir), under callgrind */
static void start_redis_under_callgrind(void)
{
    b_dir_make();
    snprintf(cg_out, sizeof cg_out, "%s/callgrind.out", B_dir);
    char outopt[450];
    snprintf(outopt, sizeof outopt, "--callgrind-out-file=%s", cg_out);
    const char *wrap[] = {"valgrind", "--tool=callgrind", outopt, NULL};
    cg_pid = b_redis_in_dir(wrap, 30);
}

static void callgrind_control(const char *what)
{
    char cmd[200];
    snprintf(cmd, sizeof cmd, "callgrind_control %s %d >/dev/null 2>&1", what, (int)cg_pid);
    if (system(cmd))
        b_die("callgrind_control failed");
}

/* Instructions since the last zero: dumps, then reads the dump's summary
 * (callgrind names each dump callgrind.out.N). */
static double instructions(void)
{
    static int dumps;
    callgrind_control("-d");
    char path[450];
    snprintf(path, sizeof path, "%s.%d", cg_out, ++dumps);
    for (int i = 0; i < 200; i++) {
        FILE *f = fopen(path, "r");
        char line[256];
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "summary: ", 9)) {
                fclose(f);
                return atof(line + 9);
            }
        if (f)
            fclose(f);
        jd_sleep_ms(50);
    }
    b_die("no callgrind dump");
    return 0;
}

static void admit(struct queue_conn *k, int n)
{
    /* a real submission's size: a source of ~250 bytes */
    static const char src[] = "#include <stdio.h>\n"
                              "int main(void)\n{\n    long long a, b;\n"
                              "    if (scanf(\"%lld %lld\", &a, &b) != 2)\n        return 1;\n"
                              "    printf(\"%lld\\n\", a + b);\n    return 0;\n}\n"
                              "/* a + b, the classic first problem of every judge */\n";
    for (int i = 0; i < n; i++)
        b_submit(k, POOL, "c", "aplusb", src, sizeof src - 1);
}

/* the worker's loop: one claim, then finish + claim per job */
static int work(struct queue_conn *k, int n)
{
    static const char report[] =
        "{\"verdict\":\"AC\",\"score\":100,\"compile\":{\"status\":\"OK\",\"time\":0.412,"
        "\"output\":\"\"},\"tests\":[{\"test\":1,\"verdict\":\"AC\",\"time\":0.001,\"wall\":0.003,"
        "\"memory\":1456,\"exit\":0,\"signal\":0,\"score\":1,\"message\":\"\"}],\"subtasks\":[],"
        "\"message\":\"\",\"problem_version\":null}";
    char err[512];
    struct queue_claim_args ca = {.pool = POOL, .host = "bench-host", .count = 1, .from = {">", ">"}};
    struct queue_claim_reply cr;
    if (queue_claim(k, &ca, &cr, err, sizeof err))
        b_die(err);
    int done = 0;
    while (cr.njobs == 1 && done < n) {
        struct queue_job *j = &cr.jobs[0];
        struct queue_finish_args fa = {.pool = POOL, .host = "bench-host", .queue = j->queue,
                                       .entry = j->entry, .id = j->id, .verdict = "AC",
                                       .score = 100, .report = report, .results_max = 100000,
                                       .retention_ms = 14L * 86400 * 1000};
        struct queue_finish_reply fr;
        struct queue_claim_reply next;
        enum queue_rc crc;
        if (queue_finish_then_claim(k, &fa, 1, &fr, &ca, &next, &crc, err, sizeof err) || fr.rc ||
            crc)
            b_die(fr.rc ? fr.err : err);
        if (fr.result != QUEUE_FINISH_PUBLISHED)
            b_die("a finish was not published");
        queue_claim_reply_free(&cr);
        cr = next;
        done++;
    }
    queue_claim_reply_free(&cr);
    return done;
}

int main(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: bench_instr [JOBS]\n  instructions Redis runs per job (callgrind; default 2000 jobs):\n"
               "  admission, a worker's finish + next claim, and the raw XREADGROUP+XACK loop\n");
        return 0;
    }
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    if (n < 1)
        b_die("JOBS must be a positive number");
    start_redis_under_callgrind();
    struct queue_conn k;
    queue_conn_init(&k, B_url, 60000);
    char err[512];
    if (queue_conn_ensure(&k) || queue_library_ensure(&k, err, sizeof err) ||
        queue_ensure_groups(&k, POOL, err, sizeof err))
        b_die(k.c ? err : "cannot reach redis");
    freeReplyObject(queue_cmd(&k, "XGROUP CREATE bench:raw g $ MKSTREAM"));
    b_raw_fill(&k, n);

    printf("redis instructions per job (callgrind, %d jobs, one client; deterministic):\n", n);
    callgrind_control("-z");
    admit(&k, n);
    printf("  admission (judged_admit):                             %8.0f\n", instructions() / n);
    callgrind_control("-z");
    int done = work(&k, n - 1);
    double worker = instructions() / done;
    printf("  a worker's finish + next claim (judged_finish_claim): %8.0f\n", worker);
    callgrind_control("-z");
    b_raw_loop(&k, n);
    double raw = instructions() / n;
    printf("  raw XREADGROUP + XACK (bench_dispatch's baseline):   %8.0f\n", raw);
    printf("  ratio: a job costs Redis %.1fx the raw loop's instructions\n", worker / raw);
    queue_conn_close(&k);
    kill(cg_pid, SIGTERM);
    waitpid(cg_pid, NULL, 0);
    if (getenv("BENCH_KEEP"))
        printf("callgrind dumps kept: %s.1 (admission), .2 (worker), .3 (raw); "
               "read them with callgrind_annotate\n", cg_out);
    else
        b_cleanup();
    return 0;
}
