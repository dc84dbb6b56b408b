/*
 * package.c - a problem package on disk, read as untrusted input.
 *
 * Theory. A package is a tree of regular files and directories, plus
 * symbolic links that stay inside it (ICPC packages link one test group to
 * another's files). It is unpacked and read as root, so a link to
 * /etc/shadow, a FIFO that blocks a reader forever or a device must never be
 * read through. Two layers enforce that:
 *
 *   every open  resolves the path beneath the package's root with openat2
 *               (common_open_beneath, common.h, the kernel's EAGAIN retried)
 *               and RESOLVE_BENEATH: an absolute link, a ".." above the root
 *               or a link that leads out through another link fails in the
 *               kernel (EXDEV), at the moment of the open, so swapping a file
 *               for a link after a check gains nothing. The file is first
 *               opened O_PATH (no side effect even on a device), must be a
 *               regular file (or a directory when one is asked for), and is
 *               then reopened for reading; both opens must reach one inode.
 *   the walk    (rn_pkg_walk) visits every entry once, without following
 *               links, and names each one that is neither a regular file, a
 *               directory nor a link staying inside, saying what it is; it
 *               also counts files and bytes against the package limits and
 *               stops as soon as one is exceeded, so a package of a million
 *               files costs no more than the limit.
 *
 * The walk guards what no open of ours sees: a custom checker reads the
 * package mounted in its sandbox, where a link would resolve on its own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "sandbox.h"

#define WALK_MAX_DEPTH 64       /* directory levels; deeper is refused */
#define WALK_PATH_MAX 1024      /* a relative path inside a package */

void rn_limits_fill(struct runner_limits *out, const struct runner_limits *in)
{
    *out = (struct runner_limits){
        .yaml_size = RUNNER_DEFAULT_YAML_SIZE,
        .package_files = RUNNER_DEFAULT_PACKAGE_FILES,
        .package_size = RUNNER_DEFAULT_PACKAGE_SIZE,
        .tests = RUNNER_DEFAULT_TESTS,
        .compile_time_max_ms = RUNNER_DEFAULT_COMPILE_TIME_MAX_MS,
        .compile_memory_max = RUNNER_DEFAULT_COMPILE_MEMORY_MAX,
        .compile_output_max = RUNNER_DEFAULT_COMPILE_OUTPUT_MAX,
        .helper_cpu_ms = RUNNER_DEFAULT_HELPER_CPU_MS,
        .helper_wall_ms = RUNNER_DEFAULT_HELPER_WALL_MS,
    };
    if (!in)
        return;
    if (in->yaml_size)
        out->yaml_size = in->yaml_size;
    if (in->package_files)
        out->package_files = in->package_files;
    if (in->package_size)
        out->package_size = in->package_size;
    if (in->tests)
        out->tests = in->tests;
    if (in->compile_time_max_ms)
        out->compile_time_max_ms = in->compile_time_max_ms;
    if (in->compile_memory_max)
        out->compile_memory_max = in->compile_memory_max;
    if (in->compile_output_max)
        out->compile_output_max = in->compile_output_max;
    if (in->helper_cpu_ms)
        out->helper_cpu_ms = in->helper_cpu_ms;
    if (in->helper_wall_ms)
        out->helper_wall_ms = in->helper_wall_ms;
}

enum limit_kind { LIMIT_COUNT, LIMIT_SIZE, LIMIT_MS };

/* one value of runner_limits_set; false when it is not a positive one */
static bool parse_limit(enum limit_kind kind, const char *text, uint64_t *v)
{
    char *end = NULL;
    double s = 0;
    errno = 0;
    switch (kind) {
    case LIMIT_SIZE:
        return sandbox_parse_size(text, v) == 0 && *v > 0;
    case LIMIT_MS:
        if (sandbox_parse_seconds(text, &s) < 0 || !(s >= 0.001) || s > 1e9)
            return false;
        *v = (uint64_t)(s * 1000 + 0.5);
        return true;
    default:
        *v = strtoull(text, &end, 10);
        return !errno && end != text && !*end && *v > 0;
    }
}

int runner_limits_set(struct runner_limits *l, const char *setting, char *err, size_t errlen)
{
    static const struct { const char *key; size_t off; enum limit_kind kind; } keys[] = {
        {"yaml_size", offsetof(struct runner_limits, yaml_size), LIMIT_SIZE},
        {"package_files", offsetof(struct runner_limits, package_files), LIMIT_COUNT},
        {"package_size", offsetof(struct runner_limits, package_size), LIMIT_SIZE},
        {"tests", offsetof(struct runner_limits, tests), LIMIT_COUNT},
        {"compile_time_max", offsetof(struct runner_limits, compile_time_max_ms), LIMIT_MS},
        {"compile_memory_max", offsetof(struct runner_limits, compile_memory_max), LIMIT_SIZE},
        {"compile_output_max", offsetof(struct runner_limits, compile_output_max), LIMIT_SIZE},
        {"helper_cpu_time", offsetof(struct runner_limits, helper_cpu_ms), LIMIT_MS},
        {"helper_wall_time", offsetof(struct runner_limits, helper_wall_ms), LIMIT_MS},
    };
    static const char *const expected[] = {[LIMIT_COUNT] = "number", [LIMIT_SIZE] = "size (e.g. 1M, 16G)",
                                           [LIMIT_MS] = "duration (e.g. 90s, 5m)"};
    const char *eq = strchr(setting, '=');
    for (size_t i = 0; eq && i < sizeof keys / sizeof keys[0]; i++) {
        if (strlen(keys[i].key) != (size_t)(eq - setting) ||
            strncmp(setting, keys[i].key, (size_t)(eq - setting)))
            continue;
        uint64_t v = 0;
        if (!parse_limit(keys[i].kind, eq + 1, &v)) {
            snprintf(err, errlen, "%s: expected a positive %s", setting, expected[keys[i].kind]);
            return -1;
        }
        *(uint64_t *)((char *)l + keys[i].off) = v;
        return 0;
    }
    snprintf(err, errlen, "%s: expected KEY=VALUE, KEY one of yaml_size, package_files, "
             "package_size, tests, compile_time_max, compile_memory_max, compile_output_max, "
             "helper_cpu_time, helper_wall_time", setting);
    return -1;
}

const char *rn_kind_name(mode_t mode)
{
    if (S_ISREG(mode))
        return "a regular file";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISLNK(mode))
        return "a symbolic link";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    return "a special file";
}

static void explain_errno(int err, char *why, size_t whylen)
{
    const char *s = err == EXDEV ? "a symbolic link on its path leads out of the package"
                  : err == ELOOP ? "symbolic links on its path loop (or nest too deep)"
                  : err == ENOENT ? "does not exist"
                  : err == ENOTDIR ? "a part of its path is not a directory"
                  : NULL;
    if (s)
        snprintf(why, whylen, "%s", s);
    else
        snprintf(why, whylen, "cannot open: %s", strerror(err));
}

/* an O_PATH fd of rel beneath root, of the kind wanted (no side effect,
 * even on a device or a FIFO) */
static int open_path(int root, const char *rel, bool want_dir, struct stat *st, char *why,
                     size_t whylen)
{
    int path = common_open_beneath(root, rel, O_PATH, false);
    if (path < 0) {
        int e = errno;
        explain_errno(e, why, whylen);
        errno = e;
        return -1;
    }
    if (fstat(path, st) == 0 && (want_dir ? S_ISDIR(st->st_mode) : S_ISREG(st->st_mode)))
        return path;
    snprintf(why, whylen, "%s, not %s", rn_kind_name(st->st_mode),
             want_dir ? "a directory" : "a regular file");
    close(path);
    errno = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
    return -1;
}

int rn_pkg_kind(int root, const char *rel, bool want_dir, char *why, size_t whylen)
{
    struct stat st;
    int path = open_path(root, rel, want_dir, &st, why, whylen);
    if (path < 0)
        return -1;
    close(path);
    return 0;
}

int rn_pkg_open(int root, const char *rel, bool want_dir, struct stat *st, char *why,
                size_t whylen)
{
    struct stat tmp;
    st = st ? st : &tmp;
    int path = open_path(root, rel, want_dir, st, why, whylen);
    if (path < 0)
        return -1;
    /* reopen for reading (O_NONBLOCK, O_NOCTTY: in case of a swap to a FIFO
     * or a tty; on the regular file reached it changes nothing); a swap
     * between the two opens must not go unseen */
    int fd = common_open_beneath(root, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY | (want_dir ? O_DIRECTORY : 0),
                                 false);
    struct stat again;
    if (fd < 0 || fstat(fd, &again) < 0 || again.st_ino != st->st_ino ||
        again.st_dev != st->st_dev) {
        int e = fd < 0 ? errno : EAGAIN;
        if (fd >= 0)
            close(fd);
        close(path);
        if (e == EAGAIN)
            snprintf(why, whylen, "changed while it was being opened");
        else
            explain_errno(e, why, whylen);
        errno = e;
        return -1;
    }
    close(path);
    return fd;
}

int rn_pkg_root(const char *dir, char *why, size_t whylen)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        snprintf(why, whylen, "%s", errno == ENOTDIR ? "not a directory" : strerror(errno));
    return fd;
}

char *rn_fd_read(int fd, size_t max, size_t *len, bool *too_big)
{
    size_t cap = 4096, used = 0;
    char *buf = malloc(cap + 1);
    *too_big = false;
    for (;;) {
        if (!buf)
            return NULL;
        if (used == cap) {
            if (cap > max)
                break;
            cap = cap * 2 > max + 1 ? max + 1 : cap * 2;   /* room to see one byte too many */
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                return NULL;
            }
            buf = nb;
        }
        ssize_t n = read(fd, buf + used, cap - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(buf);
            return NULL;
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    if (used > max) {
        *too_big = true;
        free(buf);
        return NULL;
    }
    buf[used] = '\0';
    *len = used;
    return buf;
}

char *rn_pkg_read(int root, const char *rel, size_t max, size_t *len, char *why, size_t whylen)
{
    struct stat st;
    int fd = rn_pkg_open(root, rel, false, &st, why, whylen);
    if (fd < 0)
        return NULL;
    bool too_big = (uint64_t)st.st_size > max;
    char *text = too_big ? NULL : rn_fd_read(fd, max, len, &too_big);
    if (too_big)
        snprintf(why, whylen, "larger than the limit of %zu bytes", max);
    else if (!text)
        snprintf(why, whylen, "cannot read: %s", strerror(errno));
    close(fd);
    return text;
}

/* ---- the walk ------------------------------------------------------------ */

struct walk {
    int root;
    const char *display;            /* the package dir, for messages */
    const struct runner_limits *lim;
    struct common_errors *errs;
    uint64_t files, bytes;
    bool over;                      /* a limit was exceeded: stop */
    char path[WALK_PATH_MAX];       /* the entry being visited, relative */
};

static void walk_error(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void walk_error(struct walk *w, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char shown[256];
    common_quote(shown, sizeof shown, w->path, strlen(w->path));
    common_errors_add(w->errs, "%s%s%s:0: package: %s", w->display, *shown ? "/" : "", shown, msg);
}

/* a link must resolve, beneath the root, to a file or a directory */
static void check_link(struct walk *w, int dir, const char *name)
{
    char target[256], shown[128], why[128];
    ssize_t n = readlinkat(dir, name, target, sizeof target - 1);
    common_quote(shown, sizeof shown, n > 0 ? target : "?", n > 0 ? (size_t)n : 1);
    int fd = common_open_beneath(w->root, w->path, O_PATH, false);
    struct stat st;
    if (fd < 0) {
        explain_errno(errno, why, sizeof why);
        if (errno == EXDEV)
            walk_error(w, "a symbolic link to '%s', which leaves the package (a link must "
                       "stay inside it)", shown);
        else
            walk_error(w, "a symbolic link to '%s': %s", shown, why);
        return;
    }
    if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        walk_error(w, "a symbolic link to '%s', which is %s (only regular files and "
                   "directories belong in a package)", shown, rn_kind_name(st.st_mode));
    close(fd);
}

static void walk_dir(struct walk *w, int dir, size_t len, int depth);

static void walk_entry(struct walk *w, int dir, const char *name, size_t len, int depth)
{
    size_t n = strlen(name);
    if (len + n + 2 > sizeof w->path) {
        walk_error(w, "a path longer than %d bytes below it", WALK_PATH_MAX);
        return;
    }
    if (len)
        w->path[len++] = '/';
    memcpy(w->path + len, name, n + 1);
    struct stat st;
    if (++w->files > w->lim->package_files) {
        w->path[0] = '\0';
        walk_error(w, "more than %llu files and directories (the package_files limit)",
                   (unsigned long long)w->lim->package_files);
        w->over = true;
        return;
    }
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        walk_error(w, "cannot stat: %s", strerror(errno));
        return;
    }
    if (S_ISLNK(st.st_mode))
        check_link(w, dir, name);
    else if (S_ISREG(st.st_mode)) {
        w->bytes += (uint64_t)st.st_size;
        if (w->bytes > w->lim->package_size) {
            w->path[0] = '\0';
            walk_error(w, "more than %llu bytes of files (the package_size limit)",
                       (unsigned long long)w->lim->package_size);
            w->over = true;
        }
    } else if (S_ISDIR(st.st_mode)) {
        if (depth >= WALK_MAX_DEPTH) {
            walk_error(w, "directories nested deeper than %d levels", WALK_MAX_DEPTH);
            return;
        }
        int sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0)
            walk_error(w, "cannot open the directory: %s", strerror(errno));
        else
            walk_dir(w, sub, len + n, depth + 1);   /* closes sub */
    } else
        walk_error(w, "%s (only regular files, directories and links inside the package "
                   "belong in a package)", rn_kind_name(st.st_mode));
}

static void walk_dir(struct walk *w, int dir, size_t len, int depth)
{
    DIR *d = fdopendir(dir);
    if (!d) {
        close(dir);
        return;
    }
    struct dirent *e;
    while (!w->over && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            walk_entry(w, dirfd(d), e->d_name, len, depth);
            w->path[len] = '\0';
        }
    closedir(d);
}

int rn_pkg_walk(int root, const char *display, const struct runner_limits *lim,
                struct common_errors *errs)
{
    size_t before = errs->count + errs->dropped;
    struct walk w = {.root = root, .display = display, .lim = lim, .errs = errs};
    int dir = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) {
        common_errors_add(errs, "%s:0: package: cannot open: %s", display, strerror(errno));
        return -1;
    }
    walk_dir(&w, dir, 0, 0);
    if (w.over)
        return -2;
    return errs->count + errs->dropped > before ? -1 : 0;
}
