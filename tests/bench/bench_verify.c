/* bench_verify - `judgectl problem verify` of a 40-submission ICPC package
 * (small C programs, each a distinct source so that no compile is reused:
 * 34 accepted, 3 wrong_answer, 2 run_time_error, 1 time_limit_exceeded;
 * 10 secret tests; no time limit, so it is derived: the legacy rule, TLE
 * judged at 2 s). Prints the wall time of the whole verify and per
 * submission; nothing is asserted. Sandbox slots 746..747 (--slot). Run as
 * root from the build tree: bench_verify [SLOT]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[64];

static void put(const char *rel, const char *fmt, int v)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        mkdir(p, 0755);
        *s = '/';
    }
    FILE *f = fopen(p, "w");
    if (!f) {
        perror(p);
        exit(1);
    }
    fprintf(f, fmt, v);
    fclose(f);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *slot = argc > 1 ? argv[1] : "746";
    snprintf(dir, sizeof dir, "/tmp/bench-verify-XXXXXX");
    if (!mkdtemp(dir))
        return perror("mkdtemp"), 1;
    char rel[256];
    for (int i = 1; i <= 10; i++) {
        snprintf(rel, sizeof rel, "data/secret/%02d.in", i);
        put(rel, "%d 5\n", i);
        snprintf(rel, sizeof rel, "data/secret/%02d.ans", i);
        put(rel, "%d\n", i + 5);
    }
    put("problem.yaml", "name: Bench %d\n", 1);
    static const char ac[] = "#include <stdio.h>\n/* variant %d */\nint main(void){long a,b;"
                             "if(scanf(\"%%ld %%ld\",&a,&b)!=2)return 1;printf(\"%%ld\\n\",a+b);return 0;}\n";
    static const char wa[] = "#include <stdio.h>\n/* variant %d */\nint main(void){long a,b;"
                             "if(scanf(\"%%ld %%ld\",&a,&b)!=2)return 1;printf(\"%%ld\\n\",a*b);return 0;}\n";
    static const char re[] = "#include <stdlib.h>\n/* variant %d */\nint main(void){abort();}\n";
    static const char tle[] = "/* variant %d */\nint main(void){volatile unsigned long x=0;for(;;)x++;}\n";
    for (int i = 0; i < 34; i++) {
        snprintf(rel, sizeof rel, "submissions/accepted/ac%02d.c", i);
        put(rel, ac, i);
    }
    for (int i = 0; i < 3; i++) {
        snprintf(rel, sizeof rel, "submissions/wrong_answer/wa%d.c", i);
        put(rel, wa, i);
    }
    for (int i = 0; i < 2; i++) {
        snprintf(rel, sizeof rel, "submissions/run_time_error/re%d.c", i);
        put(rel, re, i);
    }
    put("submissions/time_limit_exceeded/spin.c", tle, 0);

    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/judgectl problem verify %s --slot %s --languages %s/languages --workdir %s/work",
             JUDGED_BIN_DIR, dir, slot, JUDGED_SOURCE_DIR, dir);
    double t0 = now();
    int st = system(cmd);
    double wall = now() - t0;
    printf("bench_verify: 40 submissions (34 AC, 3 WA, 2 RTE, 1 TLE at the 2 s margin), 10 tests: %.2f s wall, "
           "%.0f ms per submission; exit %d\n", wall, wall * 1000 / 40, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) {
    }
    return 0;
}
