/* bench_upload - a problem package uploaded through judge-api: PUT
 * /v1/problems/NAME of a tar.gz (one test of random, incompressible bytes:
 * the worst case for gzip and for the store) with a setter token, judge-api
 * in front of a private redis-server and one judged host whose validator
 * checks and stores what judge-api staged (the request waits for it, as a
 * setter's does). A different package each run (the same content would
 * answer 200 "unchanged" at once).
 *
 *   bench_upload [MiB [RUNS]]     (default 100 MiB, 3 runs)
 *
 * Prints one line per run: the request's wall time (body sent to answer),
 * judge-api's CPU seconds and its peak RSS during the run (VmHWM, reset
 * before each run through /proc/PID/clear_refs), and the answer's status.
 * A program to run, not a test: the figures depend on the machine. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "../proc_status.h"
#include "bench_common.h"
#include "common.h"

/* DIR/pkg.tar.gz: problem.yaml, tests/1.in (mib MiB random), tests/1.out */
static void make_archive(const char *dir, long mib, char *tgz, size_t len)
{
    char p[600], cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/pkg' && mkdir -p '%s/pkg/tests'", dir, dir);
    if (system(cmd))
        b_die(cmd);
    snprintf(p, sizeof p, "%s/pkg/problem.yaml", dir);
    b_write_file(p, "name: big\ntime_limit: 1s\nmemory_limit: 256M\nchecker: tokens\n");
    snprintf(p, sizeof p, "%s/pkg/tests/1.out", dir);
    b_write_file(p, "0\n");
    snprintf(p, sizeof p, "%s/pkg/tests/1.in", dir);
    FILE *f = fopen(p, "w");
    if (!f)
        b_die(p);
    char *buf = malloc(1 << 20);
    for (long i = 0; i < mib; i++) {
        for (size_t got = 0; got < (1u << 20);) {
            ssize_t r = getrandom(buf + got, (1u << 20) - got, 0);
            if (r > 0)
                got += (size_t)r;
        }
        fwrite(buf, 1, 1 << 20, f);
    }
    free(buf);
    fclose(f);
    snprintf(tgz, len, "%s/pkg.tar.gz", dir);
    snprintf(cmd, sizeof cmd, "tar -C '%s/pkg' -czf '%s' .", dir, tgz);
    if (system(cmd))
        b_die(cmd);
}

/* judge-api's peak RSS (VmHWM) back to its current RSS */
static void peak_reset(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/clear_refs", (int)pid);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("5", f);   /* "5": reset the peak RSS (Linux >= 4.0) */
        fclose(f);
    }
}

/* judge-api's CPU seconds (utime + stime) */
static double cpu_s(pid_t pid)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')');   /* fields after the command name */
    unsigned long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* PUT the file to 127.0.0.1:port/v1/problems/big; the status, the answer
 * into out */
static int put(int port, const char *token, const char *file, char *out, size_t outlen)
{
    struct stat sb;
    if (stat(file, &sb))
        b_die(file);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa))
        b_die("connect to judge-api");
    char head[600];
    int hl = snprintf(head, sizeof head,
                      "PUT /v1/problems/big HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                      "Content-Type: application/gzip\r\nContent-Length: %lld\r\nConnection: close\r\n\r\n",
                      token, (long long)sb.st_size);
    if (write(fd, head, (size_t)hl) != hl)
        b_die("write");
    int in = open(file, O_RDONLY);
    char *buf = malloc(1 << 20);
    for (ssize_t n; (n = read(in, buf, 1 << 20)) > 0;)
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(fd, buf + off, (size_t)(n - off));
            if (w <= 0)
                b_die("write (judge-api closed the connection?)");
            off += w;
        }
    free(buf);
    close(in);
    size_t got = 0;
    for (ssize_t n; got < outlen - 1 && (n = read(fd, out + got, outlen - 1 - got)) > 0;)
        got += (size_t)n;
    out[got] = 0;
    close(fd);
    int status = 0;
    return sscanf(out, "HTTP/1.%*d %d", &status) == 1 ? status : -1;
}

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 100;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    if (mib < 1 || runs < 1) {
        fprintf(stderr, "usage: bench_upload [MiB [RUNS]]\n");
        return 2;
    }
    pid_t redis = b_redis();
    char cfg[400], tokens[400], log[400], jlog[400], cmd[1200], tok[200] = "", bin[400];
    snprintf(cfg, sizeof cfg, "%s/judged.yaml", B_dir);
    snprintf(tokens, sizeof tokens, "%s/tokens", B_dir);
    snprintf(log, sizeof log, "%s/api.log", B_dir);
    snprintf(jlog, sizeof jlog, "%s/judged.log", B_dir);
    FILE *f = fopen(cfg, "w");
    if (!f)
        b_die(cfg);
    fprintf(f,
            "redis: %s\nstate_dir: %s/state\nlanguages: %s/languages\nhost: bench-upload\nfirst_slot: 730\n"
            "pools:\n  native: {languages: [c], slots: 1}\n"
            "api:\n  listen: 127.0.0.1:0\n  tokens: %s\n  rate: 0\n",
            B_url, B_dir, JUDGED_SOURCE_DIR, tokens);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s/judgectl --config %s tokens add setter --role setter", JUDGED_BIN_DIR, cfg);
    FILE *p = popen(cmd, "r");
    if (!p || !fgets(tok, sizeof tok, p))
        b_die("judgectl tokens add");
    pclose(p);
    tok[strcspn(tok, "\n")] = 0;

    snprintf(bin, sizeof bin, "%s/judged", JUDGED_BIN_DIR);
    pid_t judged = b_judged(bin, cfg, jlog);
    snprintf(bin, sizeof bin, "%s/judge-api", JUDGED_BIN_DIR);
    pid_t api = fork();
    if (api == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2(fd, 1);
        dup2(fd, 2);
        execl(bin, "judge-api", "--config", cfg, (char *)NULL);
        _exit(127);
    }
    int port = 0;
    for (int i = 0; i < 300 && !port; i++) {
        common_sleep_ms(50);
        size_t len;
        bool more;
        char *text = common_read_file(log, 1 << 20, &len, &more);
        const char *q = text ? strstr(text, "listening on port ") : NULL;
        if (q)
            port = atoi(q + 18);
        free(text);
    }
    if (!port)
        b_die("judge-api did not start");
    common_sleep_ms(1000);   /* judged's validator up */

    printf("PUT /v1/problems/big through judge-api (+ redis-server, one judged validating) on one machine:\n");
    for (int r = 1; r <= runs; r++) {
        char tgz[500], out[8192];
        make_archive(B_dir, mib, tgz, sizeof tgz);
        struct stat sb;
        stat(tgz, &sb);
        peak_reset(api);
        double c0 = cpu_s(api), t0 = common_monotonic();
        int st = put(port, tok, tgz, out, sizeof out);
        double el = common_monotonic() - t0, cpu = cpu_s(api) - c0;
        long kb = proc_status_kb(api, "VmHWM:");
        printf("upload %d: %ld MiB package, %.1f MiB tar.gz -> %d in %.2f s; judge-api CPU %.2f s, peak RSS %.1f MiB\n",
               r, mib, sb.st_size / 1048576.0, st, el, cpu, kb / 1024.0);
        if (st != 201 && st != 200) {
            const char *body = strstr(out, "\r\n\r\n");
            fprintf(stderr, "answer: %.600s\n", body ? body + 4 : out);
        }
        fflush(stdout);
    }
    b_stop(api);
    b_stop(judged);
    b_stop(redis);
    b_cleanup();
    return 0;
}
