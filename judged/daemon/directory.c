/* directory.c - what platforms see of the hosts' `problems:` directory
 * (GET /v1/problems). judge-api lists the directory's names itself (what
 * admission accepts) but reads no problem.yaml: that is the runner's. So a
 * host, at start and reload, loads each problem of the directory through
 * the runner (runner_problem_summary: nothing compiled) and publishes the
 * summaries, replacing the last host's (store_publish_directory). A
 * problem that does not load is left out and logged: the list shows it
 * without a summary, and judging it gives IE with the same error. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon.h"
#include "store.h"

/* The directory's problems as admission sees them: directories of a valid
 * name (judge-api's handlers.c). NULL when dir cannot be read. */
static char **problem_names(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    size_t cap = 16;
    char **names = calloc(cap, sizeof *names);
    struct dirent *e;
    *n = 0;
    while (names && (e = readdir(d))) {
        char path[4400];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (!queue_valid_name(e->d_name) || stat(path, &st) || !S_ISDIR(st.st_mode))
            continue;
        if (*n + 1 >= cap) {
            char **grown = realloc(names, (cap *= 2) * sizeof *names);
            if (!grown)
                break;
            names = grown;
        }
        names[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    return names;
}

void directory_publish(struct queue_conn *k, struct runner *catalog, const char *dir)
{
    size_t n = 0, got = 0;
    char **names = dir ? problem_names(dir, &n) : NULL;
    if (!names)   /* no directory here: another host's publication stays */
        return;
    const char **ok = calloc(n + 1, sizeof *ok);
    char **summaries = calloc(n + 1, sizeof *summaries), err[1024];
    for (size_t i = 0; i < n; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (runner_problem_summary(catalog, path, &summaries[got], err, sizeof err))
            logmsg("problems directory: %s has no summary: %s", names[i], err);
        else
            ok[got++] = names[i];
    }
    if (store_publish_directory(k, ok, (const char *const *)summaries, got, err, sizeof err))
        logmsg("problems directory: cannot publish its summaries: %s", err);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    for (size_t i = 0; i < got; i++)
        free(summaries[i]);
    free(names);
    free(summaries);
    free(ok);
}
