/*
 * common.h - the small library beneath sandbox/, runner/ and judged/: what
 * every layer needs and used to write for itself (reading a file, mkdir -p,
 * clocks, size and duration parsing, fd passing, UTF-8 checks, error lists,
 * string sets, log lines). It knows
 * nothing of sandboxes, judging or Redis, allocates only where it says so,
 * and never prints except common_log. Errors: -1 (or NULL) with errno.
 */
#ifndef JUDGED_COMMON_H
#define JUDGED_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- files ---- */

/* mkdir -p: creates PATH and its missing parents with MODE. */
int common_mkdir_p(const char *path, mode_t mode);
/* Reads at most max bytes of fd (or of path; "-" is stdin) into a new
 * NUL-terminated buffer (caller frees), *len its length. If the file is
 * longer: with more != NULL, *more is set and the first max bytes returned;
 * with more == NULL, NULL with errno EFBIG. */
char *common_read_fd(int fd, size_t max, size_t *len, bool *more);
char *common_read_file(const char *path, size_t max, size_t *len, bool *more);
/* Writes all n bytes (restarting after signals and short writes): 0, or -1
 * with errno (a write of 0 bytes counts as EIO). */
int common_write_all(int fd, const void *buf, size_t n);
/* Opens rel beneath the directory dirfd and never outside it (openat2,
 * RESOLVE_BENEATH; no magic link such as /proc/self/fd/N; with no_links,
 * through no symbolic link at all), close-on-exec; "" is dirfd itself. The
 * kernel's EAGAIN (a rename ran during the lookup) is retried. The fd, or
 * -1 with errno (EXDEV: the path leads out; ELOOP: a link, or a loop). */
int common_open_beneath(int dirfd, const char *rel, int flags, bool no_links);

/* ---- directory trees (tree.c) ---- */

struct stat;
enum common_tree_kind {
    COMMON_TREE_DIR,        /* a directory, before what it holds */
    COMMON_TREE_DIR_DONE,   /* the same directory, after what it holds */
    COMMON_TREE_FILE,       /* a regular file */
    COMMON_TREE_LINK,       /* a symbolic link (never followed) */
    COMMON_TREE_OTHER,      /* a FIFO, socket or device */
    COMMON_TREE_DEEP,       /* deeper than max_depth: not read further */
    COMMON_TREE_ERROR,      /* cannot be read or stat'ed: errno in err */
};

struct common_tree_entry {
    enum common_tree_kind kind;
    const char *path;      /* root/rel */
    const char *rel;       /* "" for the root itself */
    int depth;             /* directory levels of rel: "a/b" is 2 */
    const struct stat *st; /* NULL for COMMON_TREE_ERROR */
    int err;
};

/* Calls visit for root and everything under it, parents before children
 * (and again after them: COMMON_TREE_DIR_DONE), with no recursion and no
 * link followed but root itself. Entries deeper than max_depth (0: no
 * limit) come as COMMON_TREE_DEEP and are not entered. A non-zero return
 * from visit ends the walk and is returned; -1 with errno if root cannot
 * be opened. */
typedef int (*common_tree_visit)(const struct common_tree_entry *e, void *ctx);
int common_tree_walk(const char *root, int max_depth, common_tree_visit visit, void *ctx);

/* Copies the package tree at from into to (created; removed again on
 * failure), each symbolic link that stays beneath from replaced by a copy
 * of what it points to; a link leaving it, a loop, a FIFO, socket or device
 * refused naming the entry. Files, directories, depth and bytes of the copy
 * count against STORE_MAX_FILES, STORE_MAX_DEPTH and max_bytes (0: none).
 * Errors name entries as "DISPLAY/REL: ..." or, for an archive,
 * "DISPLAY: entry 'REL': ...". (expand.c) */
int store_expand_tree(const char *from, const char *to, const char *display, bool archive, uint64_t max_bytes,
                      char *err, size_t errlen);

/* ---- clocks ---- */

double common_monotonic(void);   /* CLOCK_MONOTONIC, seconds */
int64_t common_wall_ms(void);    /* CLOCK_REALTIME, ms since the epoch */
void common_sleep_ms(long ms);   /* restarts after signals */

/* ---- retries ---- */

/* A delay of ms with jitter: uniform in [ms/2, ms], so that many clients
 * failing at once do not retry in step. */
long common_jitter_ms(long ms);
/* Exponential backoff: first_ms doubled `doublings` times, at most cap_ms,
 * with common_jitter_ms's jitter. */
long common_backoff_ms(long first_ms, int doublings, long cap_ms);

/* ---- parsing ---- */

/* "4096", "64k", "256M", "1.5MiB", "1G" (binary units, optional i and B). */
int common_parse_size(const char *s, uint64_t *out);
/* A CPU list as the kernel writes one ("0-3,6"): the CPU numbers into out,
 * in order; their count, -1 on a bad list, an empty one, a CPU number of
 * COMMON_MAX_CPUS or more, or more than max CPUs. */
#define COMMON_MAX_CPUS 1024
int common_parse_cpus(const char *s, int *out, int max);
/* "1.5" (seconds), "30s", "500ms", "2m" or "2min", and with hours "1h" (a
 * time limit in hours is a typo; a daemon's lease need not be). */
int common_parse_seconds(const char *s, bool hours, double *out);

/* ---- bounds a problem package may not pass ----
 * Shared by the runner, which refuses a problem.yaml beyond them, and the
 * problem store's converters, which refuse the other judge's file that
 * would give one (naming that file, not the converted problem.yaml). */

/* The largest time limit of a problem, in seconds (CPU and wall alike): an
 * hour per test, far beyond any contest's; a larger one is a typo or a
 * package that would hold a sandbox slot for as long per test. */
#define COMMON_MAX_TIME_LIMIT 3600.0

/* ---- fd passing ---- */

/* One byte with fds attached (SCM_RIGHTS); no allocation, so a clone may
 * call them. recv takes at most max fds (close-on-exec; extra ones are
 * closed) and returns 1, 0 on hang-up, -1 on error; flags are recvmsg's. */
#define COMMON_MAX_PASS_FDS 96
int common_send_fds(int sock, char byte, const int *fds, int n);
int common_recv_fds(int sock, char *byte, int *fds, int max, int *nfds, int flags);

/* ---- text ---- */

/* Length (1 to 4) of the valid UTF-8 sequence at s, reading at most n
 * bytes; 0 when s starts none: a lone continuation byte, an overlong form,
 * a surrogate, a code point past U+10FFFF, or a sequence cut short. A byte
 * below 0x80 is a sequence of its own. */
size_t common_utf8_len(const char *s, size_t n);
/* Whether s is UTF-8 text throughout. */
bool common_utf8_valid(const char *s);
/* A copy of s (NULL: "") that is valid UTF-8: every byte that is not part
 * of a valid sequence becomes '?', valid sequences are kept. For text that
 * need not be UTF-8 (a compiler's message, a file name) headed where only
 * UTF-8 may go (jansson refuses anything else): the line is kept, not
 * lost. Allocates (caller frees); NULL with errno ENOMEM. */
char *common_utf8_dup(const char *s);
/* The same in place: a message cut to a length (inside a character, maybe)
 * or quoting bytes a client sent, made fit for a JSON string. */
void common_utf8_repair(char *s);

/* ---- error lists (errors.c) ---- */

/* Validation (languages, problem packages, configuration) keeps going after
 * the first problem so a user sees every mistake at once. At most
 * COMMON_ERRORS_MAX messages are kept: a hostile file cannot make a million
 * of them; the rest are counted in dropped. */
#define COMMON_ERRORS_MAX 200

struct common_errors {
    char **items;
    size_t count, cap;
    size_t dropped;
};

void common_errors_add(struct common_errors *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* All messages, one per line; caller frees. "" when there are none. */
char *common_errors_join(const struct common_errors *e);
void common_errors_free(struct common_errors *e);
/* Quotes n bytes of untrusted text for a message: control bytes and bytes
 * that are not UTF-8 become \xNN, and the text is cut (ending in "...") to
 * fit cap. Returns out. */
char *common_quote(char *out, size_t cap, const char *s, size_t n);
#define COMMON_QUOTE_CAP 96          /* a quoted value in a message: ~80 bytes shown */

/* ---- string sets (strset.c) ---- */

/* A set of strings with a value each, for finding duplicates in linear
 * time (keys of a YAML mapping, test and subtask names). */
struct common_strset_slot {
    const char *key;               /* not owned */
    const void *value;
    uint64_t hash;
};

struct common_strset {
    struct common_strset_slot *slots;
    size_t cap, count;
    uint64_t key[2];               /* SipHash key, drawn on first use */
    bool keyed;
    size_t probes;                 /* slots looked at by put: the work done */
};

/* Adds key (kept by pointer) with value; returns NULL when it was new, else
 * the value stored with the equal key added earlier (which stays). A value
 * must not be NULL. */
const void *common_strset_put(struct common_strset *s, const char *key, const void *value);
const void *common_strset_get(const struct common_strset *s, const char *key);
void common_strset_free(struct common_strset *s);

/* ---- logging ---- */

/* One line on stderr, whole even when threads log at once:
 * "2026-01-01T12:00:00Z WHO: message". */
void common_log(const char *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void common_vlog(const char *who, const char *fmt, va_list ap);

#endif
