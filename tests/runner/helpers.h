/* helpers.h - scratch packages and files for the runner tests. */
#ifndef JUDGED_TESTS_RUNNER_HELPERS_H
#define JUDGED_TESTS_RUNNER_HELPERS_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first slot of a group of WIDTH sandbox slots in [first, first +
 * groups * width) that no other test process holds: each group has a lock
 * file in a root-only directory, taken here and held until the process ends
 * (criterion forks one process per test, so a test keeps its group for its
 * life). Picking by pid alone let two tests running at once share a box
 * ("box N is busy", a compile's directory removed under it). The result is
 * kept per process, so repeated calls name the same group. */
static inline int test_slot_group(int first, int groups, int width)
{
    static pid_t owner;
    static int taken = -1;
    if (taken >= 0 && owner == getpid())
        return taken;
    mkdir("/run/judged-tests", 0700);
    for (int i = 0; i < groups; i++) {
        int slot = first + ((int)(getpid() % groups) + i) % groups * width;
        char path[64];
        snprintf(path, sizeof path, "/run/judged-tests/slots-%d.lock", slot);
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
            abort();
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            owner = getpid();
            return taken = slot;    /* fd stays open: the lock lives with the process */
        }
        close(fd);
    }
    fprintf(stderr, "no free group of %d slots from %d\n", width, first);
    abort();
}

/* a fresh directory under /tmp; caller frees */
static inline char *scratch_dir(const char *tag)
{
    char *path = NULL;
    if (asprintf(&path, "/tmp/runner-test-%s-XXXXXX", tag) < 0 || !mkdtemp(path))
        abort();
    chmod(path, 0755);
    return path;
}

/* writes dir/rel (creating parent dirs), contents printf-style */
static inline void put_file(const char *dir, const char *rel, const char *fmt, ...)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, rel) < 0)
        abort();
    for (char *p = path + strlen(dir) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
    free(path);
}

static inline void remove_dir(const char *dir)
{
    char *cmd = NULL;
    if (asprintf(&cmd, "rm -rf '%s'", dir) >= 0 && system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    free(cmd);
}

#endif
