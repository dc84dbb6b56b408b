/* test_paths.c - where judged and judgectl look when not told (judged/core/paths.c):
 * the configuration file and the languages directory. Pure; also run under
 * ASan + UBSan. The installed layout itself is checked by tests/package. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

Test(paths, config_is_etc_unless_JUDGED_CONFIG_says)
{
    unsetenv("JUDGED_CONFIG");
    cr_assert_str_eq(jd_default_config(), "/etc/judged/judged.yaml");
    setenv("JUDGED_CONFIG", "/srv/judge/judged.yaml", 1);
    cr_assert_str_eq(jd_default_config(), "/srv/judge/judged.yaml");
    setenv("JUDGED_CONFIG", "", 1);   /* set but empty: as if unset */
    cr_assert_str_eq(jd_default_config(), "/etc/judged/judged.yaml");
    unsetenv("JUDGED_CONFIG");
}

/* This test program runs from build/bin, so its default languages directory
 * is build/share/judged/languages: the source tree's languages/. */
Test(paths, languages_are_beside_the_executables_bin)
{
    char exe[PATH_MAX], want[PATH_MAX + 64], dir[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    cr_assert(n > 0);
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';                       /* .../bin */
    *strrchr(exe, '/') = '\0';                       /* ... */
    snprintf(want, sizeof want, "%s/share/judged/languages", exe);
    cr_assert_str_eq(jd_default_languages(dir, sizeof dir), want);

    char *real = realpath(dir, NULL), *src = realpath(JUDGED_SOURCE_DIR "/languages", NULL);
    cr_assert_not_null(real, "%s does not exist in the build tree", dir);
    cr_assert_str_eq(real, src);
    free(real);
    free(src);
}

Test(paths, config_without_languages_uses_the_default)
{
    char path[] = "/tmp/jd-paths-XXXXXX", err[512], dir[PATH_MAX + 64];
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char text[] = "pools:\n  native: {languages: [c]}\n";
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)sizeof text - 1);
    close(fd);
    struct jd_config cfg;
    cr_assert_eq(jd_config_load(&cfg, path, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(cfg.languages, jd_default_languages(dir, sizeof dir));
    jd_config_free(&cfg);
    unlink(path);
}
