/* helpers.h - scratch packages and files for the runner tests. */
#ifndef JUDGED_TESTS_RUNNER_HELPERS_H
#define JUDGED_TESTS_RUNNER_HELPERS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
