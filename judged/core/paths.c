/*
 * paths.c - default paths of an installed judged.
 *
 * The languages directory is found relative to the running executable, not
 * compiled in, so that one build serves every install prefix: an executable
 * in PREFIX/bin uses PREFIX/share/judged/languages, whichever prefix
 * `cmake --install` or the Debian package (/usr) put it under. The build tree
 * has the same shape: build/share/judged/languages is a link to the source
 * tree's languages/ (made when CMake configures), so build/bin/judgectl finds
 * the languages being developed without a compiled-in source path.
 *
 * The configuration has one fixed place, /etc/judged/judged.yaml, which the
 * Debian package ships as a conffile; JUDGED_CONFIG overrides it and --config
 * overrides both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

#define DEFAULT_CONFIG "/etc/judged/judged.yaml"

const char *jd_default_config(void)
{
    const char *env = getenv("JUDGED_CONFIG");
    return env && *env ? env : DEFAULT_CONFIG;
}

/* Cuts the last path component (and its slash) off p; 0 if there was one. */
static int cut_last(char *p)
{
    char *slash = strrchr(p, '/');
    if (!slash || slash == p)
        return -1;
    *slash = '\0';
    return 0;
}

/* PREFIX/share/judged/WHAT for the executable in PREFIX/bin */
static const char *share_dir(const char *what, char *buf, size_t len)
{
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        /* PREFIX/bin/judged -> PREFIX */
        if (cut_last(exe) == 0 && cut_last(exe) == 0) {
            snprintf(buf, len, "%s/share/judged/%s", exe, what);
            return buf;
        }
    }
    /* no /proc: the Debian package's place */
    snprintf(buf, len, "/usr/share/judged/%s", what);
    return buf;
}

const char *jd_default_languages(char *buf, size_t len)
{
    return share_dir("languages", buf, len);
}

const char *jd_default_dashboard(char *buf, size_t len)
{
    return share_dir("www", buf, len);
}
