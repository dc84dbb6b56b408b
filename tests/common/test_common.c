/* test_common.c - the helpers beneath every layer: reading files (whole,
 * bounded, truncated), mkdir -p, parsing sizes and durations, fd passing,
 * UTF-8 checks, opens beneath a directory. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

static char dir[64];

static void mk(void)
{
    snprintf(dir, sizeof dir, "/tmp/common-test-XXXXXX");
    cr_assert(mkdtemp(dir));
}

static void rm(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(common, .init = mk, .fini = rm);

Test(common, read_file_whole_bounded_and_truncated)
{
    char path[128];
    snprintf(path, sizeof path, "%s/f", dir);
    FILE *f = fopen(path, "w");
    fputs("0123456789", f);
    fclose(f);
    size_t len = 0;
    bool more = true;
    char *s = common_read_file(path, 100, &len, &more);
    cr_assert(s && len == 10 && !more && !strcmp(s, "0123456789"));
    free(s);
    s = common_read_file(path, 10, &len, NULL);
    cr_assert(s && len == 10, "exactly max bytes is not too large");
    free(s);
    errno = 0;
    cr_assert_null(common_read_file(path, 4, &len, NULL));
    cr_assert_eq(errno, EFBIG);
    s = common_read_file(path, 4, &len, &more);
    cr_assert(s && len == 4 && more && !strcmp(s, "0123"));
    free(s);
    snprintf(path, sizeof path, "%s/missing", dir);
    cr_assert_null(common_read_file(path, 4, &len, NULL));
    cr_assert_eq(errno, ENOENT);
}

Test(common, mkdir_p_makes_parents_and_accepts_existing)
{
    char path[128];
    struct stat st;
    snprintf(path, sizeof path, "%s/a/b/c", dir);
    cr_assert_eq(common_mkdir_p(path, 0755), 0);
    cr_assert(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    cr_assert_eq(common_mkdir_p(path, 0755), 0);
    snprintf(path, sizeof path, "%s/a/b/c/file", dir);
    close(open(path, O_CREAT | O_WRONLY, 0644));
    snprintf(path, sizeof path, "%s/a/b/c/file/x", dir);
    cr_assert_eq(common_mkdir_p(path, 0755), -1, "a file in the way");
}

Test(common, sizes_and_durations)
{
    uint64_t v;
    cr_assert(common_parse_size("64K", &v) == 0 && v == 65536);
    cr_assert(common_parse_size("1.5MiB", &v) == 0 && v == 1572864);
    cr_assert_eq(common_parse_size("lots", &v), -1);
    cr_assert_eq(common_parse_size("-1M", &v), -1);
    double s;
    cr_assert(common_parse_seconds("500ms", false, &s) == 0 && s == 0.5);
    cr_assert(common_parse_seconds("2m", false, &s) == 0 && s == 120);
    cr_assert_eq(common_parse_seconds("1h", false, &s), -1, "no hours in time limits");
    cr_assert(common_parse_seconds("1h", true, &s) == 0 && s == 3600);
    cr_assert_eq(common_parse_seconds("5 parsecs", true, &s), -1);
}

Test(common, fds_pass_through_a_socket)
{
    int sv[2], p[2];
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    cr_assert_eq(pipe(p), 0);
    cr_assert_eq(common_send_fds(sv[0], 'x', &p[1], 1), 0);
    char byte = 0;
    int got[2], n = 0;
    cr_assert_eq(common_recv_fds(sv[1], &byte, got, 2, &n, 0), 1);
    cr_assert(byte == 'x' && n == 1);
    cr_assert_eq(write(got[0], "y", 1), 1);
    char c = 0;
    cr_assert(read(p[0], &c, 1) == 1 && c == 'y', "the passed fd is the pipe");
    close(sv[0]);
    cr_assert_eq(common_recv_fds(sv[1], &byte, got, 2, &n, 0), 0, "hang-up");
}

/* common_utf8_dup's copy must be what jansson accepts, keeping every valid
 * character: each byte outside a valid sequence becomes one '?' */
static void clean_is(const char *in, const char *want)
{
    char *got = common_utf8_dup(in);
    cr_assert_not_null(got);
    cr_assert_str_eq(got, want, "cleaning \"%s\"", in ? in : "(null)");
    free(got);
}

Test(common, utf8_dup_replaces_only_bad_bytes)
{
    clean_is(NULL, "");
    clean_is("", "");
    clean_is("plain ASCII, tabs\tand\nlines", "plain ASCII, tabs\tand\nlines");
    /* valid 2-, 3- and 4-byte characters, the edges included, are kept */
    clean_is("h\xc3\xa9llo \xe2\x82\xac \xf0\x9d\x84\x9e", "h\xc3\xa9llo \xe2\x82\xac \xf0\x9d\x84\x9e");
    clean_is("\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf",
             "\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf");
    /* lone continuation bytes */
    clean_is("\x80" "a\xbf\xbf", "?a??");
    /* overlong forms of '/' (2, 3 and 4 bytes) */
    clean_is("\xc0\xaf|\xc1\xbf|\xe0\x80\xaf|\xf0\x80\x80\xaf", "??|??|???|????");
    /* sequences cut short, at the end and before another character */
    clean_is("ab\xe2\x82", "ab??");
    clean_is("\xe2\x82" "A\xf0\x9f\x98", "??A???");
    clean_is("\xc3 \xc3\xa9", "? \xc3\xa9");
    /* UTF-16 surrogates, past U+10FFFF, bytes that start nothing */
    clean_is("\xed\xa0\x80\xed\xbf\xbf", "??????");
    clean_is("\xf4\x90\x80\x80", "????");
    clean_is("\xf5\x80\x80\x80\xfe\xff", "??????");
    /* a valid character beside bad bytes is kept (a Latin-1 name in a UTF-8 message) */
    clean_is("caf\xe9 \xe2\x80\x94 na\xc3\xafve\xff", "caf? \xe2\x80\x94 na\xc3\xafve?");
}

Test(common, utf8_len_measures_one_sequence)
{
    cr_assert_eq(common_utf8_len("a", 1), 1);
    cr_assert_eq(common_utf8_len("\xc3\xa9", 2), 2);
    cr_assert_eq(common_utf8_len("\xe2\x82\xac", 3), 3);
    cr_assert_eq(common_utf8_len("\xf0\x9d\x84\x9e", 4), 4);
    cr_assert_eq(common_utf8_len("\xf0\x9d\x84\x9e", 3), 0, "n cuts it short");
    cr_assert_eq(common_utf8_len("\xe2\x82\xac", 0), 0);
    cr_assert_eq(common_utf8_len("\x80", 1), 0);
    cr_assert_eq(common_utf8_len("\xe2\x82" "A", 3), 0);
    cr_assert_eq(common_utf8_len("\xe0\x9f\xbf", 3), 0, "overlong U+07FF");
    cr_assert_eq(common_utf8_len("\xed\xa0\x80", 3), 0, "surrogate U+D800");
    cr_assert(common_utf8_valid(""));
    cr_assert(common_utf8_valid("tests/\xc3\xb1" "and\xc3\xba" ".in"));
    cr_assert(!common_utf8_valid("tests/\xf1" "and\xfa" ".in"), "Latin-1");
    cr_assert(!common_utf8_valid("ok\xe2\x82"), "cut short at the end");
}

/* The one safe open of package trees (runner/package.c, store/expand.c,
 * store/package.c): beneath the root or not at all. */
Test(common, open_beneath_stays_beneath)
{
    char p[128];
    snprintf(p, sizeof p, "%s/pkg", dir);
    cr_assert_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/pkg/f", dir);
    cr_assert_eq(close(open(p, O_CREAT | O_WRONLY, 0644)), 0);
    snprintf(p, sizeof p, "%s/pkg/out", dir);
    cr_assert_eq(symlink("/etc/passwd", p), 0);
    snprintf(p, sizeof p, "%s/pkg/in", dir);
    cr_assert_eq(symlink("f", p), 0);
    snprintf(p, sizeof p, "%s/pkg", dir);
    int root = open(p, O_RDONLY | O_DIRECTORY);
    cr_assert_geq(root, 0);
    int fd = common_open_beneath(root, "f", O_RDONLY, false);
    cr_assert_geq(fd, 0);
    cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    close(fd);
    fd = common_open_beneath(root, "in", O_RDONLY, false);
    cr_assert_geq(fd, 0, "a link that stays inside is followed");
    close(fd);
    fd = common_open_beneath(root, "", O_RDONLY | O_DIRECTORY, false);
    cr_assert_geq(fd, 0, "\"\" is the root itself");
    close(fd);
    errno = 0;
    cr_assert_eq(common_open_beneath(root, "out", O_RDONLY, false), -1);
    cr_assert_eq(errno, EXDEV);
    cr_assert_eq(common_open_beneath(root, "../pkg/f", O_RDONLY, false), -1);
    cr_assert_eq(errno, EXDEV);
    cr_assert_eq(common_open_beneath(root, "in", O_RDONLY, true), -1, "no_links: through no link");
    cr_assert_eq(errno, ELOOP);
    close(root);
}
