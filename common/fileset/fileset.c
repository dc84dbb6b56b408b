/*
 * fileset.c - a submission of several files packed into one source string
 * (FILESET_MARK + tar) and read back, names checked both ways; zips and
 * tars read for judgectl. libarchive does the tar and zip formats.
 */
#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "fileset.h"

bool fileset_is(const char *source, size_t len)
{
    return source && len >= FILESET_MARK_LEN && !memcmp(source, FILESET_MARK, FILESET_MARK_LEN);
}

/* letters, digits, UTF-8 (checked as a whole) and a few marks: what Java,
 * Python, C and answer files are named with, nothing a shell or a
 * compiler's argv reads as something else */
static bool name_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80 ||
           c == '.' || c == '_' || c == '-' || c == '+' || c == '$';
}

static int component_check(const char *c, size_t n, char *why, size_t whylen)
{
    if (n == 0)
        return snprintf(why, whylen, "an empty path component (a leading, doubled or trailing '/')"), -1;
    if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
        return snprintf(why, whylen, "'.' and '..' are not allowed"), -1;
    if (c[0] == '-')
        return snprintf(why, whylen, "a name may not begin with '-'"), -1;
    for (size_t i = 0; i < n; i++)
        if (!name_byte((unsigned char)c[i]))
            return snprintf(why, whylen, "byte 0x%02x is not allowed (letters, digits, UTF-8 and ._-+$ "
                            "are)", (unsigned char)c[i]), -1;
    return 0;
}

int fileset_name_check(const char *name, char *why, size_t whylen)
{
    size_t len = strlen(name);
    if (len == 0)
        return snprintf(why, whylen, "an empty name"), -1;
    if (len > FILESET_MAX_NAME)
        return snprintf(why, whylen, "longer than %d bytes", FILESET_MAX_NAME), -1;
    if (name[0] == '/')
        return snprintf(why, whylen, "an absolute path"), -1;
    if (!common_utf8_valid(name))
        return snprintf(why, whylen, "not valid UTF-8"), -1;
    int depth = 0;
    for (const char *c = name;; depth++) {
        const char *slash = strchr(c, '/');
        size_t n = slash ? (size_t)(slash - c) : strlen(c);
        if (component_check(c, n, why, whylen) < 0)
            return -1;
        if (!slash)
            break;
        c = slash + 1;
    }
    if (depth > FILESET_MAX_DEPTH)
        return snprintf(why, whylen, "more than %d directory levels", FILESET_MAX_DEPTH), -1;
    return 0;
}

/* a is a directory of b ("pkg" of "pkg/A.java") */
static bool is_dir_of(const char *a, const char *b)
{
    size_t n = strlen(a);
    return !strncmp(a, b, n) && b[n] == '/';
}

int fileset_add(struct fileset *fs, const char *name, const char *data, size_t len, char *why, size_t whylen)
{
    char inner[160], q[COMMON_QUOTE_CAP];
    common_quote(q, sizeof q, name, strlen(name));
    if (fileset_name_check(name, inner, sizeof inner) < 0)
        return snprintf(why, whylen, "file name %s: %s", q, inner), -1;
    if (fs->count >= FILESET_MAX_FILES)
        return snprintf(why, whylen, "more than %d files", FILESET_MAX_FILES), -1;
    for (size_t i = 0; i < fs->count; i++) {
        const char *other = fs->files[i].name;
        if (!strcmp(other, name))
            return snprintf(why, whylen, "file name %s: given twice", q), -1;
        if (is_dir_of(other, name) || is_dir_of(name, other))
            return snprintf(why, whylen, "file name %s: a file and a directory of the same name", q), -1;
    }
    struct fileset_file *f = realloc(fs->files, (fs->count + 1) * sizeof *f);
    if (!f)
        return snprintf(why, whylen, "out of memory"), -1;
    fs->files = f;
    char *n = strdup(name), *d = malloc(len + 1);
    if (!n || !d) {
        free(n);
        free(d);
        return snprintf(why, whylen, "out of memory"), -1;
    }
    memcpy(d, data, len);
    d[len] = '\0';
    fs->files[fs->count++] = (struct fileset_file){.name = n, .data = d, .len = len};
    return 0;
}

const struct fileset_file *fileset_find(const struct fileset *fs, const char *name)
{
    for (size_t i = 0; i < fs->count; i++)
        if (!strcmp(fs->files[i].name, name))
            return &fs->files[i];
    return NULL;
}

void fileset_free(struct fileset *fs)
{
    for (size_t i = 0; i < fs->count; i++) {
        free(fs->files[i].name);
        free(fs->files[i].data);
    }
    free(fs->files);
    *fs = (struct fileset){0};
}

/* ---------------------------------------------------------------- pack */

struct sink {
    char *buf;
    size_t len, cap;
};

static la_ssize_t sink_write(struct archive *a, void *arg, const void *data, size_t n)
{
    (void)a;
    struct sink *s = arg;
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + n)
            cap *= 2;
        char *b = realloc(s->buf, cap);
        if (!b)
            return -1;
        s->buf = b, s->cap = cap;
    }
    memcpy(s->buf + s->len, data, n);
    s->len += n;
    return (la_ssize_t)n;
}

static int pack_file(struct archive *a, const struct fileset_file *f)
{
    struct archive_entry *e = archive_entry_new();
    if (!e)
        return -1;
    archive_entry_set_pathname(e, f->name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, (la_int64_t)f->len);
    int rc = archive_write_header(a, e) == ARCHIVE_OK &&
             (f->len == 0 || archive_write_data(a, f->data, f->len) == (la_ssize_t)f->len) ? 0 : -1;
    archive_entry_free(e);
    return rc;
}

int fileset_pack(const struct fileset *fs, char **out, size_t *outlen, char *why, size_t whylen)
{
    *out = NULL;
    if (fs->count == 0)
        return snprintf(why, whylen, "no files"), -1;
    struct sink s = {0};
    if (sink_write(NULL, &s, FILESET_MARK, FILESET_MARK_LEN) < 0)
        return snprintf(why, whylen, "out of memory"), -1;
    struct archive *a = archive_write_new();
    /* names as their bytes (checked UTF-8 already): in the C locale the pax
     * writer's conversion to UTF-8 refuses every byte above 127 */
    int rc = a && archive_write_set_format_pax_restricted(a) == ARCHIVE_OK &&
             archive_write_set_format_option(a, "pax", "hdrcharset", "BINARY") == ARCHIVE_OK &&
             archive_write_set_bytes_in_last_block(a, 1) == ARCHIVE_OK &&
             archive_write_open(a, &s, NULL, sink_write, NULL) == ARCHIVE_OK ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < fs->count; i++)
        rc = pack_file(a, &fs->files[i]);
    if (rc < 0)
        snprintf(why, whylen, "packing the files: %s", a ? archive_error_string(a) : "out of memory");
    if (a && archive_write_close(a) != ARCHIVE_OK && rc == 0)
        rc = -1, snprintf(why, whylen, "packing the files: %s", archive_error_string(a));
    archive_write_free(a);
    if (rc < 0) {
        free(s.buf);
        return -1;
    }
    *out = s.buf;
    *outlen = s.len;
    return 0;
}

/* ---------------------------------------------------------------- read */

/* one entry's content, at most *left bytes of all entries together */
static int read_entry(struct archive *a, struct archive_entry *e, const char *name, size_t *left,
                      struct fileset *fs, char *why, size_t whylen)
{
    char q[COMMON_QUOTE_CAP];
    common_quote(q, sizeof q, name, strlen(name));
    la_int64_t size = archive_entry_size(e);
    if (size < 0 || (uint64_t)size > *left)
        return snprintf(why, whylen, "%s: the files are larger than %zu bytes together", q, *left), -1;
    char *data = malloc((size_t)size + 1);
    if (!data)
        return snprintf(why, whylen, "out of memory"), -1;
    size_t got = 0;
    while (got < (size_t)size) {
        la_ssize_t r = archive_read_data(a, data + got, (size_t)size - got);
        if (r <= 0) {
            free(data);
            return snprintf(why, whylen, "%s: %s", q, r < 0 ? archive_error_string(a) : "truncated"), -1;
        }
        got += (size_t)r;
    }
    *left -= got;
    int rc = fileset_add(fs, name, data, got, why, whylen);
    free(data);
    return rc;
}

/* the regular files of an archive in memory; tar_only: a packed set */
static int read_archive(const char *data, size_t len, size_t max_bytes, bool tar_only, struct fileset *fs,
                        char *why, size_t whylen)
{
    *fs = (struct fileset){0};
    struct archive *a = archive_read_new();
    if (!a)
        return snprintf(why, whylen, "out of memory"), -1;
    if (tar_only)
        archive_read_support_format_tar(a);
    else {
        archive_read_support_format_zip(a);
        archive_read_support_format_tar(a);
        archive_read_support_filter_gzip(a);
    }
    int rc = archive_read_open_memory(a, data, len) == ARCHIVE_OK ? 0 : -1;
    if (rc < 0)
        snprintf(why, whylen, "not a %s: %s", tar_only ? "tar" : "zip or tar archive", archive_error_string(a));
    struct archive_entry *e;
    size_t left = max_bytes;
    while (rc == 0) {
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK) {
            rc = -1, snprintf(why, whylen, "a broken archive: %s", archive_error_string(a));
            break;
        }
        const char *name = archive_entry_pathname_utf8(e);
        if (!name)
            name = archive_entry_pathname(e);
        char q[COMMON_QUOTE_CAP];
        common_quote(q, sizeof q, name ? name : "", name ? strlen(name) : 0);
        mode_t type = archive_entry_filetype(e);
        if (type == AE_IFDIR)
            continue;   /* a directory is implied by its files' names */
        while (name && !strncmp(name, "./", 2))
            name += 2;  /* `tar -C dir -c .` names them so */
        if (!name)
            rc = -1, snprintf(why, whylen, "an entry without a name");
        else if (archive_entry_hardlink(e) || type == AE_IFLNK)
            rc = -1, snprintf(why, whylen, "%s: a link (only regular files are allowed)", q);
        else if (type != AE_IFREG)
            rc = -1, snprintf(why, whylen, "%s: not a regular file", q);
        else
            rc = read_entry(a, e, name, &left, fs, why, whylen);
    }
    archive_read_free(a);
    if (rc == 0 && fs->count == 0)
        rc = -1, snprintf(why, whylen, "no files");
    if (rc < 0)
        fileset_free(fs);
    return rc;
}

int fileset_unpack(const char *source, size_t len, struct fileset *fs, char *why, size_t whylen)
{
    *fs = (struct fileset){0};
    if (!fileset_is(source, len))
        return snprintf(why, whylen, "not a file set (no mark)"), -1;
    return read_archive(source + FILESET_MARK_LEN, len - FILESET_MARK_LEN, len, true, fs, why, whylen);
}

int fileset_from_archive(const char *data, size_t len, size_t max_bytes, struct fileset *fs, char *why,
                         size_t whylen)
{
    return read_archive(data, len, max_bytes, false, fs, why, whylen);
}
