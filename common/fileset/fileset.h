/*
 * fileset.h - a submission of several files, carried as one string.
 *
 * judged's queue, its result document and the runner all hold a
 * submission as one `source` string. A submission of several files (a Java
 * package, Python modules, C++ with a header, a set of answer files) is
 * packed into that string as FILESET_MARK followed by a POSIX tar (ustar or
 * pax) of regular files, and unpacked in the runner. The mark begins with
 * a NUL byte, which no source text begins with, and judge-api and judgectl
 * refuse a one-file source that begins with the mark, so a file set is
 * never mistaken for a program nor the other way round. Anyone may build
 * one (FCALL clients: the mark, then `tar --format=ustar -c FILES`).
 *
 * Names are checked wherever a set is made or read: relative paths of at
 * most FILESET_MAX_DEPTH directories, components of letters, digits,
 * UTF-8 and `._-+$`, none "." or ".." nor beginning with '-' (an argv
 * option to a compiler); no links, devices or directories-as-entries; at most
 * FILESET_MAX_FILES files; no name twice, no name both a file and a
 * directory. Sizes are bounded by the caller (max_source covers the blob).
 */
#ifndef JUDGED_FILESET_H
#define JUDGED_FILESET_H

#include <stdbool.h>
#include <stddef.h>

#define FILESET_MARK "\0judged-files/1\n"
#define FILESET_MARK_LEN 16
#define FILESET_MAX_FILES 256
#define FILESET_MAX_NAME 255
#define FILESET_MAX_DEPTH 8

struct fileset_file {
    char *name;         /* "pkg/Main.java" */
    char *data;         /* NUL-terminated after len bytes */
    size_t len;
};

struct fileset {
    struct fileset_file *files;
    size_t count;
};

/* Does this source carry a file set (begins with FILESET_MARK)? */
bool fileset_is(const char *source, size_t len);

/* 0 when name may be a file's name in a set; -1 with why. */
int fileset_name_check(const char *name, char *why, size_t whylen);

/* Adds a copy of one file after checking its name, that it is new, that
 * it is no directory of another (nor another one of it), and the count.
 * -1 with why ("pkg/A.java: ..."). */
int fileset_add(struct fileset *fs, const char *name, const char *data, size_t len,
                char *why, size_t whylen);

/* The set as one source string (FILESET_MARK + tar); caller frees *out.
 * -1 with why (an empty set, out of memory). */
int fileset_pack(const struct fileset *fs, char **out, size_t *outlen, char *why, size_t whylen);

/* A packed set read back, every name checked again (the string may come
 * from any FCALL client). -1 with why. */
int fileset_unpack(const char *source, size_t len, struct fileset *fs, char *why, size_t whylen);

/* The regular files of a zip or tar archive (judgectl submit FILE.zip):
 * directories skipped, a link or any other entry refused, at most max_bytes
 * of content. -1 with why. */
int fileset_from_archive(const char *data, size_t len, size_t max_bytes, struct fileset *fs,
                         char *why, size_t whylen);

/* The file named name, or NULL. */
const struct fileset_file *fileset_find(const struct fileset *fs, const char *name);

void fileset_free(struct fileset *fs);

#endif
