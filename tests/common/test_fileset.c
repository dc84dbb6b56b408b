/*
 * test_fileset.c - a submission of several files as one source string
 * (common/fileset): names refused with the reason, sets packed and read
 * back, archives with links or other entries refused.
 */
#include <archive.h>
#include <archive_entry.h>
#include <criterion/criterion.h>
#include <string.h>

#include "fileset.h"

static void refused(const char *name, const char *reason)
{
    char why[300];
    cr_expect_eq(fileset_name_check(name, why, sizeof why), -1, "%s accepted", name);
    cr_expect(strstr(why, reason), "%s: %s (expected %s)", name, why, reason);
}

Test(names, the_unsafe_are_refused_with_the_reason)
{
    refused("", "an empty name");
    refused("/etc/passwd", "an absolute path");
    refused("../x.c", "'.' and '..'");
    refused("a/../../x.c", "'.' and '..'");
    refused("./x.c", "'.' and '..'");
    refused("a//b.c", "an empty path component");
    refused("a/", "an empty path component");
    refused("-o.c", "may not begin with '-'");
    refused("a\\b.c", "byte 0x5c");
    refused("a b.c", "byte 0x20");
    refused("a\nb.c", "byte 0x0a");
    refused("\xff.c", "not valid UTF-8");
    refused("a/b/c/d/e/f/g/h/i/j.c", "more than 8 directory levels");
    char long_name[300];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    refused(long_name, "longer than 255 bytes");
    char why[300];
    const char *ok[] = {"Main.java", "contest/Solver.java", "__main__.py", "output_000.txt", "a-b+c$d.h",
                        "\xc3\x91" "and\xc3\xba.java", ".hidden", NULL};
    for (int i = 0; ok[i]; i++)
        cr_expect_eq(fileset_name_check(ok[i], why, sizeof why), 0, "%s: %s", ok[i], why);
}

Test(sets, a_name_twice_a_file_as_directory_and_too_many_are_refused)
{
    struct fileset fs = {0};
    char why[300];
    cr_assert_eq(fileset_add(&fs, "pkg/A.java", "a", 1, why, sizeof why), 0, "%s", why);
    cr_expect_eq(fileset_add(&fs, "pkg/A.java", "b", 1, why, sizeof why), -1);
    cr_expect(strstr(why, "given twice"), "%s", why);
    cr_expect_eq(fileset_add(&fs, "pkg", "c", 1, why, sizeof why), -1);
    cr_expect(strstr(why, "a file and a directory"), "%s", why);
    cr_expect_eq(fileset_add(&fs, "pkg/A.java/B.java", "c", 1, why, sizeof why), -1);
    cr_expect(strstr(why, "a file and a directory"), "%s", why);
    fileset_free(&fs);
    for (int i = 0; i < FILESET_MAX_FILES; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%d.txt", i);
        cr_assert_eq(fileset_add(&fs, name, "", 0, why, sizeof why), 0, "%s", why);
    }
    cr_expect_eq(fileset_add(&fs, "one-more.txt", "", 0, why, sizeof why), -1);
    cr_expect(strstr(why, "more than 256 files"), "%s", why);
    fileset_free(&fs);
}

Test(sets, packed_and_read_back_byte_for_byte)
{
    struct fileset fs = {0}, back;
    char why[300], *packed;
    size_t len;
    static const char binary[] = {'a', '\0', 'b', '\xff', '\n'};
    cr_assert_eq(fileset_add(&fs, "main.py", "import m\n", 9, why, sizeof why), 0);
    cr_assert_eq(fileset_add(&fs, "pkg/m.py", binary, sizeof binary, why, sizeof why), 0);
    cr_assert_eq(fileset_add(&fs, "empty.txt", "", 0, why, sizeof why), 0);
    /* a UTF-8 name (a Java class Ñandú): the C locale's pax conversion
     * refused it before (fuzz_fileset's first finding) */
    cr_assert_eq(fileset_add(&fs, "pkg/\xc3\x91" "and\xc3\xba.java", "class", 5, why, sizeof why), 0);
    cr_assert_eq(fileset_pack(&fs, &packed, &len, why, sizeof why), 0, "%s", why);
    cr_expect(fileset_is(packed, len));
    cr_expect(!fileset_is("int main() {}", 13));
    cr_assert_eq(fileset_unpack(packed, len, &back, why, sizeof why), 0, "%s", why);
    cr_assert_eq(back.count, 4);
    cr_assert(fileset_find(&back, "pkg/\xc3\x91" "and\xc3\xba.java"));
    const struct fileset_file *m = fileset_find(&back, "pkg/m.py");
    cr_assert(m);
    cr_expect_eq(m->len, sizeof binary);
    cr_expect(!memcmp(m->data, binary, sizeof binary));
    cr_expect_eq(fileset_find(&back, "empty.txt")->len, 0);
    fileset_free(&back);
    /* cut short: refused, not read as fewer files */
    cr_expect_eq(fileset_unpack(packed, len / 2, &back, why, sizeof why), -1);
    free(packed);
    fileset_free(&fs);
    struct fileset none = {0};
    cr_expect_eq(fileset_pack(&none, &packed, &len, why, sizeof why), -1);
}

/* a zip (or the tar after the mark) of one entry of the given type */
static char *archive_with(bool zip, const char *name, unsigned type, const char *link, size_t *len)
{
    static char buf[1 << 16];
    struct archive *a = archive_write_new();
    zip ? archive_write_set_format_zip(a) : archive_write_set_format_pax_restricted(a);
    size_t used = 0;
    archive_write_open_memory(a, buf, sizeof buf, &used);
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, name);
    archive_entry_set_filetype(e, type);
    archive_entry_set_perm(e, 0644);
    if (link)
        archive_entry_set_symlink(e, link);
    archive_entry_set_size(e, type == AE_IFREG ? 3 : 0);
    archive_write_header(a, e);
    if (type == AE_IFREG)
        archive_write_data(a, "abc", 3);
    archive_entry_free(e);
    archive_write_close(a);
    archive_write_free(a);
    char *out = malloc(used + FILESET_MARK_LEN);
    memcpy(out, FILESET_MARK, FILESET_MARK_LEN);
    memcpy(out + FILESET_MARK_LEN, buf, used);
    *len = used;
    return out;
}

Test(archives, links_devices_and_bad_names_are_refused)
{
    struct fileset fs;
    char why[300];
    size_t len;
    char *z = archive_with(true, "main.c", AE_IFLNK, "/etc/passwd", &len);
    cr_expect_eq(fileset_from_archive(z + FILESET_MARK_LEN, len, 1 << 20, &fs, why, sizeof why), -1);
    cr_expect(strstr(why, "a link"), "%s", why);
    free(z);
    z = archive_with(false, "../evil.c", AE_IFREG, NULL, &len);
    cr_expect_eq(fileset_unpack(z, len + FILESET_MARK_LEN, &fs, why, sizeof why), -1);
    cr_expect(strstr(why, "'..'"), "%s", why);
    free(z);
    z = archive_with(false, "fifo", AE_IFIFO, NULL, &len);
    cr_expect_eq(fileset_unpack(z, len + FILESET_MARK_LEN, &fs, why, sizeof why), -1);
    cr_expect(strstr(why, "not a regular file"), "%s", why);
    free(z);
    z = archive_with(true, "./main.c", AE_IFREG, NULL, &len);
    cr_assert_eq(fileset_from_archive(z + FILESET_MARK_LEN, len, 1 << 20, &fs, why, sizeof why), 0, "%s", why);
    cr_expect_str_eq(fs.files[0].name, "main.c");
    fileset_free(&fs);
    cr_expect_eq(fileset_from_archive(z + FILESET_MARK_LEN, len, 2, &fs, why, sizeof why), -1);
    cr_expect(strstr(why, "larger than 2 bytes"), "%s", why);
    free(z);
}
