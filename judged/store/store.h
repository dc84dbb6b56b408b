/*
 * store.h - the problem store: versioned problem packages kept in Redis,
 * content-addressed. Every file is a blob named by its sha256; a version is
 * the sha256 of the package's manifest (one line per file, sorted by path:
 * "SHA256 SIZE PATH"). The same content pushed twice makes no new version
 * and stores nothing twice. Used by judgectl (push, list, show, versions,
 * rm), by judged (fetch into its cache) and by any other front (an HTTP
 * API). Knows Redis (through the queue library's connection) and files;
 * nothing of the runner or the sandbox: validating a package is the
 * caller's business (runner_problem_check) before store_push.
 *
 * Key layout (judged/DESIGN.md, "Problem store"):
 *   judge:blob:SHA            hash: size, n (chunks), refs, c0..c(n-1) (<= 1 MiB each)
 *   judge:manifest:V          string: the manifest whose sha256 is V
 *   judge:version:V:names     set: the problems that list version V
 *   judge:problem:NAME        hash: current, updated (ms)
 *   judge:problem:NAME:versions  zset: version -> time it was last made current
 *   judge:problems            set of problem names
 *   judge:store:bytes         bytes of all referenced blobs (the quota counts these)
 *
 * Errors: -1 with err; STORE_IO when Redis could not be reached (retry).
 */
#ifndef JUDGED_STORE_H
#define JUDGED_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "queue.h"

#define STORE_CHUNK (1024 * 1024)
#define STORE_MAX_FILES 100000

enum { STORE_OK = 0, STORE_ERR = -1, STORE_IO = -2 };

struct store_file {
    char *path;              /* relative, '/'-separated, no '.', '..' or empty parts */
    uint64_t size;
    char sha[65];
};

struct store_manifest {
    struct store_file *files;   /* sorted by path (strcmp) */
    size_t n;
    uint64_t total;          /* sum of sizes */
    char version[65];        /* sha256 of the manifest text */
};

/* Reads a package directory: regular files and directories only (a symbolic
 * link, FIFO, socket or device is refused, so nothing outside DIR is ever
 * read), every file hashed; refused past max_bytes (0 = no limit) in total
 * or STORE_MAX_FILES files. */
int store_manifest_from_dir(const char *dir, uint64_t max_bytes, struct store_manifest *m, char *err,
                            size_t errlen);
/* The manifest's canonical text (caller frees). */
char *store_manifest_text(const struct store_manifest *m, size_t *len);
/* Parses a manifest text and checks that its sha256 is `version` (NULL: no
 * check; the version is then computed). Paths are checked as above. */
int store_manifest_parse(const char *text, size_t len, const char *version, struct store_manifest *m,
                         char *err, size_t errlen);
void store_manifest_free(struct store_manifest *m);

/* sha256 of a file's contents as hex; -1 with errno. */
int store_sha256_file(const char *path, char out[65], uint64_t *size);
bool store_valid_version(const char *v);   /* 64 lowercase hex digits */

/* Does `dir` hold exactly the files of m with their hashes? 0 yes; -1 with
 * err naming the first difference. */
int store_verify_dir(const char *dir, const struct store_manifest *m, char *err, size_t errlen);

/* ------------------------------------------------------------------ push */

enum store_push_result {
    STORE_PUSH_NEW,          /* a new version, now current */
    STORE_PUSH_CURRENT,      /* the same content is already current: nothing changed */
    STORE_PUSH_REVIVED,      /* a version stored before is current again */
};
struct store_push_reply {
    enum store_push_result result;
    char version[65];
    char previous[65];       /* the version current before ('' if none) */
    uint64_t uploaded;       /* bytes of blobs sent (0 when all were stored) */
    int new_blobs;
};
/* Uploads the blobs of m that Redis lacks (read from dir, hashed again while
 * sent: a file that changed meanwhile is refused), then makes m's version
 * NAME's current one in one atomic step (a Redis function), refused when
 * the store's referenced bytes would pass quota (0 = no limit). */
int store_push(struct queue_conn *k, const char *name, const char *dir, const struct store_manifest *m,
               uint64_t quota, struct store_push_reply *out, char *err, size_t errlen);

/* ----------------------------------------------------------------- reads */

/* NAME's current version ('' and *found false when NAME is not stored). */
int store_current(struct queue_conn *k, const char *name, char version[65], bool *found, char *err,
                  size_t errlen);

struct store_version_info {
    char version[65];
    long long time;          /* ms: when it was last made current */
    bool current;
    uint64_t size;           /* package bytes */
    size_t files;
};
struct store_problem_info {
    char name[130];
    char current[65];
    long long updated;
    struct store_version_info *versions;   /* newest first */
    size_t nversions;
};
/* All problem names, sorted (caller frees each and the array). */
int store_list(struct queue_conn *k, char ***names, size_t *n, char *err, size_t errlen);
/* *found false for an unknown problem. */
int store_info(struct queue_conn *k, const char *name, struct store_problem_info *out, bool *found,
               char *err, size_t errlen);
void store_problem_info_free(struct store_problem_info *p);
/* The manifest of version V, verified against V. */
int store_get_manifest(struct queue_conn *k, const char *version, struct store_manifest *m, char *err,
                       size_t errlen);
/* Total referenced bytes (what the quota limits). */
int store_bytes(struct queue_conn *k, uint64_t *bytes, char *err, size_t errlen);

/* Removes version V from NAME (not the current one: push another first).
 * Blobs no other stored version lists are deleted. */
int store_remove(struct queue_conn *k, const char *name, const char *version, char *err, size_t errlen);

/* ----------------------------------------------------------------- fetch */

/* Writes version V into a new directory `tmp_dir` (must not exist; made with
 * mode 0755, files 0444), verifying every file's hash and size as it is
 * written. Then renames tmp_dir to final_dir. On any failure tmp_dir is
 * removed and final_dir untouched. *bytes (may be NULL) gets the size. */
int store_fetch(struct queue_conn *k, const char *version, const char *tmp_dir, const char *final_dir,
                uint64_t *bytes, char *err, size_t errlen);

/* --------------------------------------------------- package.c: before a push */

/* Unpacks a tar (optionally gz/bz2/xz) or zip archive into dst (created):
 * regular files and directories only; links, devices, FIFOs, absolute
 * paths and '..' are refused naming the entry; at most max_bytes (0 = no
 * limit) unpacked. One top-level directory holding everything is dropped.
 * On failure dst is removed. */
int store_unpack(const char *archive, const char *dst, uint64_t max_bytes, char *err, size_t errlen);
/* Copies a package directory (regular files and directories only). */
int store_copy_tree(const char *from, const char *to, uint64_t max_bytes, char *err, size_t errlen);
/* An ICPC/Kattis package: data/secret/ and no tests/. */
bool store_is_icpc(const char *dir);
/* Converts the ICPC package in dir IN PLACE into the runner's format
 * (problem.yaml written, the original kept as problem.icpc.yaml). Returns
 * the number of errors, listed in *errors as "FILE:LINE: KEY: message"
 * lines (caller frees; NULL when none). */
int store_convert_icpc(const char *dir, const char *name, char **errors);

/* rm -rf (no symlinks followed); 0 ok. */
int store_remove_tree(const char *path);

#endif
