/*
 * cli_server.c - the judge-sandbox server: theory of operation.
 *
 * Why. A judge-sandbox that opens the sandbox itself pays, every time, for
 * exec of a larger program, sandbox_open, the seccomp programs and a fresh
 * box. A process that stays keeps all of that (and the library keeps more
 * per slot as it grows), so the CLI hands its job to one: the server.
 *
 * Processes. One server per run directory. A client that finds none
 * starts one (cli_server_start): it forks, the child calls setsid, forks the
 * server and exits, so the server is nobody's child and has no terminal. The
 * server puts /dev/null on its stdio, closes every fd it inherited (a harness
 * reading the client's stdout until EOF must see EOF when the client exits)
 * and execs `judge-sandbox --serve` with the client's settings, so that ps
 * shows a server rather than the job of whoever started it. It tells its
 * starter through a pipe (its fd in JUDGE_SANDBOX_READY_FD) that it listens,
 * that another server is there, or why it cannot serve (sandbox_open failed:
 * the client prints that as IE). Run by hand, or by systemd, `--serve` is the
 * same server in the foreground, with one line per error on stderr.
 *
 * Files in the run directory. server.lock: a POSIX lock held for the
 * server's life decides which of two racing starters serves (the other exits
 * quietly); server.pid: the holder's pid; server.sock: the SOCK_SEQPACKET
 * listening socket, bound only by the lock holder, which first removes a dead
 * server's. The messages are in cli_proto.h.
 *
 * Threads. A pool of workers, started with the server, each blocks in
 * accept() on the listening socket, so a connection wakes one worker and
 * costs no thread creation. A worker checks the peer is root (SO_PEERCRED),
 * sends the hello and reads the command line with the client's stdin,
 * stdout, stderr and cwd. It parses it with the core's own parser
 * (cli_parse; getopt is serialized by a lock), refuses settings other than
 * its own, and runs it as the core runs --no-server (cli_run_job: the
 * files opened relative to the client's cwd, sandbox_run, which is
 * thread-safe for distinct slots and answers IE "busy" for a slot in use),
 * with what the core would print captured in memory (open_memstream). It
 * closes the fds it received and only then replies with the exit status and
 * those bytes, so the client's pipes are free when it exits. Both clients,
 * the thin one and the core, send the same command and write out the same
 * reply (cli_proto.h): one protocol. A command line that is not for a
 * server (--help, --serve, --no-server, another run directory) gets the
 * answer "run the core", which the thin client execs with the same argv. A
 * peer that is not root gets, without a hello, an IE reply saying why. The
 * connection is the job's cancel_fd: a client that dies hangs up, and
 * sandbox_run kills its box. A worker that takes a connection when no
 * other one waits starts another (up to one per slot and a few), so a job
 * never waits behind another; one that finishes while enough others wait
 * leaves. The main thread only keeps the idle timer and watches a
 * self-pipe written by the SIGTERM/SIGINT handler.
 *
 * Lifetime. After `idle` seconds without a connection (never if 0), or on
 * SIGTERM/SIGINT, the server unlinks its socket (a client arriving later
 * starts a new server), shuts it down, which wakes the waiting workers and
 * refuses new connections, drops the connections not yet taken (their
 * clients got no hello and retry), releases the lock, waits for the running
 * jobs and exits. A second SIGTERM/SIGINT kills it at once, and the
 * boxes of its running jobs die with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define LOCK_WAIT_MS 2000      /* for a server that is starting or exiting */
#define START_WAIT_MS 10000    /* for a new server to say whether it serves */
#define REQUEST_TIMEOUT_S 10   /* a client sends its command right after connect */
#define REFUSAL_WAIT_MS 1000   /* ... so a non-root one does not hold a worker longer */
#define READY_FD_ENV "JUDGE_SANDBOX_READY_FD"
#define POOL_SPARE 4           /* workers kept waiting in accept */
#define POOL_MAX (SANDBOX_MAX_SLOTS + POOL_SPARE)  /* a job per slot, and refusals */

struct server {
    const struct cli_server_opts *opts;
    struct sandbox *sb;
    char run_dir[PATH_MAX];   /* canonical: each request's is compared to it */
    int listen_fd, lock_fd;
    int wake[2];              /* self-pipe: written by the stop signals' handler */
    pthread_mutex_t mu;
    pthread_cond_t gone;      /* workers went down */
    int workers;              /* threads in the pool */
    int waiting;              /* of them, not serving a connection */
    int active;               /* connections being served */
    bool stopping;            /* workers take no more connections */
    double last_ended;        /* the idle timer starts there */
};

/* The signal handler's only way to the main loop: the write end of the
 * self-pipe, set while a server runs. */
static volatile int stop_fd = -1;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One line per error. A started server's stderr is /dev/null; --serve's is
 * the journal. */
static void server_log(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "judge-sandbox server: %s\n", line);
}

/* ---- starting ------------------------------------------------------------ */

/* 1: the lock is ours. 0: another server holds it (err says which). A holder
 * that does not answer is starting or exiting: wait for it a little. */
static int take_lock(struct server *s, char *err, size_t len)
{
    char path[PATH_MAX];
    cli_fmt(path, sizeof path, "%s/%s", s->run_dir, CLI_LOCK_NAME);
    if ((s->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0) {
        cli_fmt(err, len, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    for (int waited = 0;; waited += 2) {
        if (fcntl(s->lock_fd, F_SETLK, &whole) == 0)
            return 1;
        if (errno != EAGAIN && errno != EACCES) {
            cli_fmt(err, len, "cannot lock %s: %s", path, strerror(errno));
            return -1;
        }
        int fd = cli_connect(s->run_dir);
        if (fd >= 0 || waited >= LOCK_WAIT_MS) {
            if (fd >= 0)
                close(fd);
            struct flock holder = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
            fcntl(s->lock_fd, F_GETLK, &holder);
            cli_fmt(err, len, "a judge-sandbox server (pid %d) already serves %s",
                     (int)holder.l_pid, s->run_dir);
            return 0;
        }
        usleep(2000);
    }
}

static int write_pid(const struct server *s, char *err, size_t len)
{
    char path[PATH_MAX];
    cli_fmt(path, sizeof path, "%s/%s", s->run_dir, CLI_PID_NAME);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || dprintf(fd, "%d\n", (int)getpid()) < 0) {
        cli_fmt(err, len, "cannot write %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

static void on_stop(int sig)
{
    (void)sig;
    int saved = errno;
    if (stop_fd >= 0 && write(stop_fd, "T", 1) < 0) {
        /* the pipe is full: a wake-up is already pending */
    }
    errno = saved;
}

static void handle_stop_signals(struct server *s, bool on)
{
    stop_fd = on ? s->wake[1] : -1;
    struct sigaction sa = {.sa_handler = on ? on_stop : SIG_DFL, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
}

/* ---- one connection ------------------------------------------------------- */

/* What judge-sandbox writes to its stdout and stderr, in memory: the
 * reply's bytes. */
struct capture {
    FILE *out, *err;
    char *outbuf, *errbuf;
    size_t outlen, errlen;
};

static int capture_open(struct capture *c)
{
    *c = (struct capture){0};
    c->out = open_memstream(&c->outbuf, &c->outlen);
    c->err = c->out ? open_memstream(&c->errbuf, &c->errlen) : NULL;
    return c->err ? 0 : -1;
}

static void capture_close(struct capture *c)
{
    if (c->out)
        fclose(c->out);
    if (c->err)
        fclose(c->err);
    c->out = c->err = NULL;
}

/* Sends the exit status and the captured bytes, and frees them. */
static void reply(int fd, int status, struct capture *c)
{
    capture_close(c);
    size_t len;
    char *msg = cli_encode_reply(status, c->outbuf, c->outlen, c->errbuf, c->errlen, &len);
    if (!msg)
        server_log("cannot reply: out of memory");
    else if (cli_send(fd, msg, len, NULL, 0) < 0 && errno != EPIPE && errno != ECONNRESET)
        server_log("cannot reply: %s", strerror(errno));
    free(msg);
    free(c->outbuf);
    free(c->errbuf);
}

static int peer_uid(int fd)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ? -1 : (int)cred.uid;
}

/* The client sends its command right after connect, so it is nearly always
 * there already: only when it is not does the worker wait, wait_ms at most
 * (no timeout to set on every connection). >0: a message; 0: the client
 * left without one (a starting server's probe does that); -1 with errno. */
static long recv_command(int fd, char **buf, int *fds, int *nfds, int wait_ms)
{
    long n = cli_recv(fd, buf, CLI_MAX_REQUEST, fds, CLI_MAX_FDS, nfds, MSG_DONTWAIT);
    if (n >= 0 || errno != EAGAIN)
        return n < 0 && errno == ECONNRESET ? 0 : n;
    struct pollfd p = {fd, POLLIN, 0};
    while (poll(&p, 1, wait_ms) < 0 && errno == EINTR)
        ;
    n = cli_recv(fd, buf, CLI_MAX_REQUEST, fds, CLI_MAX_FDS, nfds, MSG_DONTWAIT);
    return n < 0 && errno == ECONNRESET ? 0 : n;
}

/* The server's own run dir when theirs names it; canon is theirs made
 * canonical. */
static bool same_run_dir(const struct server *s, const char *theirs, char *canon)
{
    if (!strcmp(theirs, s->opts->config.run_dir))
        cli_fmt(canon, PATH_MAX, "%s", s->run_dir);  /* the usual case, no lookups */
    else if (!realpath(theirs, canon))
        cli_fmt(canon, PATH_MAX, "%s", theirs);
    return !strcmp(canon, s->run_dir);
}

/* 0 when the command's settings are the server's; else err says what
 * differs. */
static int check_settings(const struct server *s, const struct sandbox_config *cfg, char *err,
                          size_t len)
{
    char canon[PATH_MAX], what[2 * PATH_MAX];
    if (!same_run_dir(s, cfg->run_dir, canon))
        cli_fmt(what, sizeof what, "--run-dir %s there, %s here", s->run_dir, canon);
    else if (!cli_config_differs(&s->opts->config, cfg, what, sizeof what))
        return 0;
    cli_fmt(err, len, "a judge-sandbox server with other settings (%s) serves %s; "
             "use another --run-dir or --no-server", what, cfg->run_dir);
    return -1;
}

static void close_fds(int *fds, int *nfds)
{
    while (*nfds > 0)
        close(fds[--*nfds]);
}

/* The client's cwd as a path (a relative --cgroup-root is made absolute
 * against it), or NULL. */
static const char *cwd_path(int cwd_fd, char *buf, size_t len)
{
    char link[64];
    cli_fmt(link, sizeof link, "/proc/self/fd/%d", cwd_fd);
    ssize_t n = cwd_fd >= 0 ? readlink(link, buf, len - 1) : -1;
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return buf;
}

/* Parses argv as the core does and runs its job; fds are the client's
 * stdin, stdout, stderr and maybe its cwd. What is not for a server
 * (--help, --serve, --no-server, another run directory: the thin client
 * guessed it from argv alone) goes back to the client, which runs the core
 * with it. The exit status. */
static int run_command(struct server *s, int fd, char **argv, int argc, const int *fds,
                       int nfds, FILE *out, FILE *err)
{
    char cwd[PATH_MAX], canon[PATH_MAX];
    int cwd_fd = nfds > CLI_STDIO_FDS ? fds[CLI_STDIO_FDS] : -1;
    struct cli_args a;
    cli_args_init(&a);
    int rc = cli_parse(&a, argc, argv, cwd_path(cwd_fd, cwd, sizeof cwd), err);
    if (rc == 1 || (rc == 0 && (a.serve || a.no_server ||
                                !same_run_dir(s, a.config.run_dir, canon)))) {
        rc = CLI_RUN_CORE;
    } else if (rc < 0) {
        rc = 2;
    } else {
        struct cli_reply r;
        cli_set_ie(&r, "%s", "");
        if (check_settings(s, &a.config, r.res.message, sizeof r.res.message) == 0) {
            rc = cli_run_job(s->sb, &a, fds, cwd_fd, fd, out, err);
        } else {
            server_log("refused: %s", r.res.message);
            cli_print(&a, &r, out, err);  /* what the core prints when we refuse it */
            rc = 1;
        }
    }
    cli_args_free(&a);
    return rc;
}

/* A root client's message. The exit status. */
static int serve_command(struct server *s, int fd, const char *buf, long n, const int *fds,
                         int nfds, FILE *out, FILE *err)
{
    char why[256];
    char **argv = NULL;
    int argc, rc;
    if (n < 0)
        cli_fmt(why, sizeof why, "%s", errno == EMSGSIZE ? "too large" : strerror(errno));
    else if (nfds < CLI_STDIO_FDS)
        cli_fmt(why, sizeof why, "a command without its stdin, stdout and stderr");
    if (n < 0 || nfds < CLI_STDIO_FDS ||
        cli_decode_command(buf, (size_t)n, &argv, &argc, why, sizeof why) < 0) {
        server_log("refused: %s", why);
        fprintf(err, "judge-sandbox: the judge-sandbox server at %s cannot take the command: "
                "%s\n", s->run_dir, why);
        return 1;
    }
    rc = run_command(s, fd, argv, argc, fds, nfds, out, err);
    free(argv);
    return rc;
}

/* A peer that is not root is told why it is refused, as an IE in the form
 * its command line asks for (--json); nothing of its command is run, and
 * the fds it sent are closed unused. */
static int refusal(const struct server *s, int uid, const char *buf, long n, FILE *out,
                   FILE *err)
{
    struct cli_reply r;
    cli_set_ie(&r, "the judge-sandbox server at %s serves root only (you are uid %d)",
               s->run_dir, uid);
    server_log("refused: %s", r.res.message);
    struct cli_args a;
    cli_args_init(&a);
    char **argv, why[128];
    int argc;
    FILE *sink = fopen("/dev/null", "we");  /* its argument errors are not the point */
    if (n > 0 && sink && cli_decode_command(buf, (size_t)n, &argv, &argc, why, sizeof why) == 0) {
        cli_parse(&a, argc, argv, NULL, sink);
        free(argv);
    }
    if (sink)
        fclose(sink);
    cli_print(&a, &r, out, err);
    cli_args_free(&a);
    return 1;
}

static void serve_conn(struct server *s, int fd)
{
    int fds[CLI_MAX_FDS], nfds = 0, uid = peer_uid(fd);
    bool root = uid == 0;
    char *buf = NULL;
    struct capture c;
    /* the hello says the job is taken; a refusal comes without one */
    if (root && cli_send(fd, CLI_HELLO_TAG, 4, NULL, 0) < 0)
        return;  /* the client went away */
    long n = recv_command(fd, &buf, fds, &nfds, root ? REQUEST_TIMEOUT_S * 1000 : REFUSAL_WAIT_MS);
    if (!root)
        close_fds(fds, &nfds);
    if (n == 0 && root)
        return;
    if (capture_open(&c) < 0) {
        server_log("out of memory");
        capture_close(&c);
    } else {
        int status = root ? serve_command(s, fd, buf, n, fds, nfds, c.out, c.err)
                          : refusal(s, uid, buf, n, c.out, c.err);
        /* before the reply: once it has it, the client exits, and whoever
         * reads its stdout waits for every copy of it to close */
        close_fds(fds, &nfds);
        reply(fd, status, &c);
    }
    close_fds(fds, &nfds);
    free(buf);
}

/* ---- the workers ------------------------------------------------------------ */

static void *worker_main(void *arg);

/* Starts a worker already counted in workers and waiting (the caller
 * reserved it under the lock, so that two workers never both grow the pool
 * for one need); takes it back if it cannot. */
static int start_worker(struct server *s, char *err, size_t len)
{
    pthread_attr_t attr;
    pthread_t tid;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&tid, &attr, worker_main, s);
    pthread_attr_destroy(&attr);
    if (!rc)
        return 0;
    pthread_mutex_lock(&s->mu);
    s->workers--;
    s->waiting--;
    pthread_cond_broadcast(&s->gone);
    pthread_mutex_unlock(&s->mu);
    cli_fmt(err, len, "cannot start a thread: %s", strerror(rc));
    return -1;
}

/* Counts a connection a worker accepted, and starts another worker if none
 * is left waiting. false when the server stops: a connection not greeted
 * yet is dropped, and its client retries. */
static bool take_conn(struct server *s, int fd)
{
    pthread_mutex_lock(&s->mu);
    bool stopping = s->stopping, grow = false;
    if (!stopping && fd >= 0) {
        s->waiting--;
        s->active++;
        grow = s->waiting == 0 && s->workers < POOL_MAX;
        if (grow) {
            s->workers++;
            s->waiting++;
        }
    }
    pthread_mutex_unlock(&s->mu);
    char err[128];
    if (grow && start_worker(s, err, sizeof err) < 0)
        server_log("%s", err);  /* the connections wait for a worker instead */
    if (stopping && fd >= 0)
        close(fd);
    return !stopping;
}

/* A connection ended: the idle timer restarts. false when enough other
 * workers wait: this one leaves the pool. */
static bool conn_done(struct server *s)
{
    pthread_mutex_lock(&s->mu);
    s->active--;
    s->last_ended = now();
    bool stay = s->waiting < POOL_SPARE && !s->stopping;
    if (stay)
        s->waiting++;
    pthread_mutex_unlock(&s->mu);
    return stay;
}

/* A failed accept that is not the server stopping: rather than spin while
 * the backlog waits, pause a little. */
static void accept_failed(void)
{
    if (errno == EINTR || errno == ECONNABORTED)
        return;
    server_log("cannot accept: %s", strerror(errno));
    usleep(10000);
}

/* Under the lock, so that server_close, once it sees no worker, knows no
 * thread touches the server any more. */
static void worker_exit(struct server *s, bool waiting)
{
    pthread_mutex_lock(&s->mu);
    s->workers--;
    s->waiting -= waiting;
    pthread_cond_broadcast(&s->gone);
    pthread_mutex_unlock(&s->mu);
}

static void *worker_main(void *arg)
{
    struct server *s = arg;
    bool waiting = true;
    for (;;) {
        int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (!take_conn(s, fd))
            break;
        if (fd < 0) {
            accept_failed();
            continue;
        }
        serve_conn(s, fd);
        close(fd);
        if (!(waiting = conn_done(s)))
            break;
    }
    worker_exit(s, waiting);
    return NULL;
}

static int start_pool(struct server *s, char *err, size_t len)
{
    for (int i = 0; i < POOL_SPARE; i++) {
        pthread_mutex_lock(&s->mu);
        s->workers++;
        s->waiting++;
        pthread_mutex_unlock(&s->mu);
        if (start_worker(s, err, len) < 0) {
            if (i == 0)
                return -1;
            server_log("%s", err);  /* fewer spare workers, but it serves */
        }
    }
    return 0;
}

/* Wakes the workers waiting in accept (shutdown fails their accept and
 * refuses new connections), drops the connections not taken yet and waits
 * for the jobs still running. */
static void stop_pool(struct server *s)
{
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    pthread_mutex_unlock(&s->mu);
    shutdown(s->listen_fd, SHUT_RDWR);
    int fd;
    while ((fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0 || errno == EINTR)
        if (fd >= 0)
            close(fd);
}

/* ---- the main thread -------------------------------------------------------- */

/* Milliseconds until the server has been idle long enough; -1: never. While
 * connections are served it cannot be idle before a whole period has passed,
 * so the main thread looks again then rather than be woken by each one. */
static int idle_left_ms(struct server *s)
{
    if (s->opts->idle <= 0)
        return -1;
    pthread_mutex_lock(&s->mu);
    double left = s->active > 0 ? s->opts->idle : s->opts->idle - (now() - s->last_ended);
    pthread_mutex_unlock(&s->mu);
    return left <= 0 ? 0 : (int)ceil(left * 1000);
}

static void serve_loop(struct server *s)
{
    struct pollfd p = {s->wake[0], POLLIN, 0};
    for (;;) {
        int timeout = idle_left_ms(s);
        if (timeout == 0)
            return;
        int rc = poll(&p, 1, timeout);
        if (rc < 0 && errno != EINTR) {
            server_log("poll: %s", strerror(errno));
            return;
        }
        if (rc > 0)
            return;  /* a stop signal */
    }
}

/* 1: serving. 0: another server serves this run dir (err says which). -1:
 * cannot serve (err says why). server_close releases what it got either way. */
static int server_open(struct server *s, const struct cli_server_opts *opts, char *err,
                       size_t len)
{
    *s = (struct server){.opts = opts, .listen_fd = -1, .lock_fd = -1, .wake = {-1, -1}};
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->gone, NULL);
    s->last_ended = now();
    struct sandbox_config cfg = opts->config;
    cfg.pin_netns = false;  /* this process keeps each slot's namespace itself */
    if (sandbox_open(&s->sb, &cfg, err, len) < 0)
        return -1;
    if (!realpath(cfg.run_dir, s->run_dir)) {
        cli_fmt(err, len, "cannot resolve %s: %s", cfg.run_dir, strerror(errno));
        return -1;
    }
    if (pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
        cli_fmt(err, len, "cannot make a pipe: %s", strerror(errno));
        return -1;
    }
    int locked = take_lock(s, err, len);
    if (locked <= 0)
        return locked;
    if (write_pid(s, err, len) < 0 || (s->listen_fd = cli_listen(s->run_dir, err, len)) < 0 ||
        start_pool(s, err, len) < 0)
        return -1;
    handle_stop_signals(s, true);
    return 1;
}

/* Stops taking connections, gives the run dir to the next server and waits
 * for the jobs still running. */
static void server_close(struct server *s)
{
    if (s->listen_fd >= 0) {
        handle_stop_signals(s, false);
        cli_unlink_socket(s->run_dir);
        stop_pool(s);
        char path[PATH_MAX];
        cli_fmt(path, sizeof path, "%s/%s", s->run_dir, CLI_PID_NAME);
        unlink(path);
    }
    if (s->lock_fd >= 0)
        close(s->lock_fd);  /* releases the lock */
    pthread_mutex_lock(&s->mu);
    while (s->workers > 0)
        pthread_cond_wait(&s->gone, &s->mu);
    pthread_mutex_unlock(&s->mu);
    if (s->listen_fd >= 0)
        close(s->listen_fd);  /* only now: no worker is in accept on it */
    sandbox_close(s->sb);
    for (int i = 0; i < 2; i++)
        if (s->wake[i] >= 0)
            close(s->wake[i]);
    pthread_cond_destroy(&s->gone);
    pthread_mutex_destroy(&s->mu);
}

/* Whether it serves or not, the server says so once on report_fd (a
 * starting client's pipe) or, in the foreground, on stderr. */
static int serve(const struct cli_server_opts *opts, int report_fd)
{
    struct server s;
    char err[1024] = "";
    int state = server_open(&s, opts, err, sizeof err);
    if (report_fd >= 0) {
        if (state < 0)
            dprintf(report_fd, "-%s", err);
        else
            dprintf(report_fd, "+");  /* ours, or another server's: connect */
        close(report_fd);
    } else if (state <= 0) {
        server_log("%s", err);
    }
    if (state > 0)
        serve_loop(&s);
    server_close(&s);
    return state < 0 || (state == 0 && report_fd < 0) ? 1 : 0;
}

/* Signals ignored by whoever started us would stay ignored in every box's
 * program (exec keeps SIG_IGN), and a blocked mask would be inherited too. */
static void reset_signals(void)
{
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction old;
        if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            signal(sig, SIG_DFL);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The daemon keeps nothing of its starter's but report_fd: not its terminal
 * or pipes, not its cwd (which could hold a mount busy). */
static void detach(int report_fd)
{
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int i = 0; i < 3 && null >= 0; i++)
        dup2(null, i);
    close_range(3, (unsigned)report_fd - 1, 0);
    close_range((unsigned)report_fd + 1, ~0U, 0);
    if (chdir("/") < 0) {
        /* "/" is always there */
    }
    umask(022);
    reset_signals();
}

/* Becomes `judge-sandbox --serve` with opts, reporting on report_fd. The
 * same binary (/proc/self/exe stays the client's even if the file has been
 * replaced meanwhile), so client and server speak the same protocol. */
static void exec_server(const struct cli_server_opts *opts, int report_fd)
{
    const struct sandbox_config *c = &opts->config;
    char idle[32], fd[16];
    snprintf(idle, sizeof idle, "%.17g", opts->idle);
    snprintf(fd, sizeof fd, "%d", report_fd);
    const char *argv[16] = {"judge-sandbox", "--serve", "--run-dir", c->run_dir, "--cgroup",
                            cli_cgroup_mode_name(c->cgroup_mode), "--server-idle", idle};
    int n = 8;
    if (c->cgroup_root) {
        argv[n++] = "--cgroup-root";
        argv[n++] = c->cgroup_root;
    }
    if (c->cgroup_parent) {
        argv[n++] = "--cgroup-parent";
        argv[n++] = c->cgroup_parent;
    }
    if (setenv(READY_FD_ENV, fd, 1) == 0 && fcntl(report_fd, F_SETFD, 0) == 0)
        execv("/proc/self/exe", (char *const *)argv);
    dprintf(report_fd, "-cannot run the judge-sandbox server (/proc/self/exe): %s",
            strerror(errno));
    _exit(1);
}

/* The middle process of the double fork. */
static void start_child(const struct cli_server_opts *opts, int report_fd)
{
    int fd = fcntl(report_fd, F_DUPFD_CLOEXEC, 3);  /* above the stdio it replaces */
    if (fd < 0 || setsid() < 0)
        _exit(1);
    pid_t pid = fork();
    if (pid != 0)
        _exit(pid < 0);
    detach(fd);
    exec_server(opts, fd);
}

/* The server's one message: "+" or "-" and why not. */
static int read_report(int fd, const char *run_dir, char *err, size_t len)
{
    char msg[1100];
    size_t got = 0;
    struct pollfd p = {fd, POLLIN, 0};
    while (got < sizeof msg - 1 && poll(&p, 1, START_WAIT_MS) > 0) {
        ssize_t n = read(fd, msg + got, sizeof msg - 1 - got);
        if (n <= 0 && !(n < 0 && errno == EINTR))
            break;
        got += n > 0 ? (size_t)n : 0;
    }
    msg[got] = '\0';
    if (msg[0] == '+')
        return 0;
    if (msg[0] == '-')
        cli_fmt(err, len, "%s", msg + 1);
    else
        cli_fmt(err, len, "the judge-sandbox server for %s did not start", run_dir);
    return -1;
}

int cli_server_start(const struct cli_server_opts *opts, char *err, size_t len)
{
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) < 0) {
        cli_fmt(err, len, "cannot make a pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        start_child(opts, ready[1]);
    }
    close(ready[1]);
    if (pid < 0) {
        cli_fmt(err, len, "cannot start a server: %s", strerror(errno));
        close(ready[0]);
        return -1;
    }
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    int rc = read_report(ready[0], opts->config.run_dir, err, len);
    close(ready[0]);
    return rc;
}

/* The starter's pipe, when a client started us; else -1 (foreground). */
static int ready_fd(void)
{
    const char *env = getenv(READY_FD_ENV);
    char *end;
    long fd = env ? strtol(env, &end, 10) : -1;
    if (env && (*end || fd < 3 || fd > INT_MAX || fcntl((int)fd, F_SETFD, FD_CLOEXEC) < 0))
        fd = -1;
    unsetenv(READY_FD_ENV);
    return (int)fd;
}

int cli_server_serve(const struct cli_server_opts *opts)
{
    int report_fd = ready_fd();
    reset_signals();
    return serve(opts, report_fd);
}
