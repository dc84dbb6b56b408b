/* packages.h - hostile problem packages for the runner tests (issue 15).
 *
 * A secret is a root-only file (mode 0600 in a 0700 directory outside every
 * package) holding a marker; a hostile package links to it in some way. The
 * runner runs as root, so permissions do not stop it: only never following
 * the link does, and the tests assert the marker appears in no output. */
#ifndef JUDGED_TESTS_RUNNER_PACKAGES_H
#define JUDGED_TESTS_RUNNER_PACKAGES_H

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

struct secret {
    char *dir;             /* 0700 */
    char *path;            /* 0600, holds marker */
    char marker[64];
};

/* The file's first line is "MARKER: 1" so that a YAML reader following a
 * link to it would quote the marker in an "unknown key" error, a tokens
 * checker in its "expected" message, a compiler in its error. */
static inline struct secret secret_make(void)
{
    struct secret s = {.dir = scratch_dir("secret")};
    chmod(s.dir, 0700);
    snprintf(s.marker, sizeof s.marker, "SECRETMARKER%dX%ld", (int)getpid(), (long)rand());
    if (asprintf(&s.path, "%s/shadow", s.dir) < 0)
        abort();
    FILE *f = fopen(s.path, "w");
    if (!f)
        abort();
    fprintf(f, "%s: 1\n%s\n", s.marker, s.marker);
    fclose(f);
    chmod(s.path, 0600);
    return s;
}

static inline void secret_free(struct secret *s)
{
    remove_dir(s->dir);
    free(s->dir);
    free(s->path);
}

/* dir/rel as a symbolic link to target */
static inline void put_link(const char *dir, const char *rel, const char *target)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, rel) < 0)
        abort();
    unlink(path);
    if (symlink(target, path) < 0)
        abort();
    free(path);
}

static inline void put_fifo(const char *dir, const char *rel)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, rel) < 0)
        abort();
    unlink(path);
    if (mkfifo(path, 0644) < 0)
        abort();
    free(path);
}

/* dir/rel: head, then a hole up to size bytes (costs no disk) */
static inline void put_sparse(const char *dir, const char *rel, const char *head, off_t size)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, rel) < 0)
        abort();
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, head, strlen(head)) != (ssize_t)strlen(head) ||
        ftruncate(fd, size) < 0)
        abort();
    close(fd);
    free(path);
}

#define PKG_BASE "name: hostile\ntime_limit: 1s\nmemory_limit: 64M\n"

/* the A+B package of one test: tests/1.in "1 2", tests/1.out "3" */
static inline char *aplusb_package(const char *extra_yaml)
{
    char *dir = scratch_dir("hostile");
    put_file(dir, "problem.yaml", PKG_BASE "%s", extra_yaml);
    put_file(dir, "tests/1.in", "1 2\n");
    put_file(dir, "tests/1.out", "3\n");
    return dir;
}

#endif
