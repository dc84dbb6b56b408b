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
 *   judge:blob:SHA            hash: size, n (chunks), c0..c(n-1) (<= 1 MiB each), the pins
 *                             of pushes (p:TOKEN, pins; refs of store.lua 4); expires
 *                             (STORE_UPLOAD_TTL) while nothing holds it; any slot
 *   judge:part:{judge:blob:SHA}:TOKEN  the chunks one push is sending (renamed to the
 *                             blob once whole; the blob's slot)
 *   judge:manifest:V          string: the manifest whose sha256 is V
 *   judge:version:V:names     set: the problems that list version V
 *   judge:problem:NAME        hash: current, updated (ms), summary:V (version V's summary:
 *                             runner_problem_summary's JSON, recorded by its pusher)
 *   judge:problem:NAME:versions  zset: version -> time it was last made current
 *   judge:problems            set of problem names
 *   judge:store:bytes         bytes of all referenced blobs (the quota counts these)
 *   judge:directory           hash: the hosts' problems directory, NAME -> summary
 *   judge:store:refs, judge:store:pins  the blobs' counts, each version's pinning push
 * From judge:manifest to here (and the staged uploads) the metadata: on a
 * Redis Cluster judge:{store}:manifest:V and so on, one slot (keys.h).
 *
 * Errors: the queue library's one convention (queue.h, enum queue_rc):
 * STORE_OK (0); STORE_ERR (-1, QUEUE_ERROR) with err, retrying will not
 * help; STORE_IO (-2, QUEUE_IO) when Redis could not be reached: retry.
 * The functions of files alone (manifests, unpacking) return 0 or -1.
 */
#ifndef JUDGED_STORE_H
#define JUDGED_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "queue.h"

#define STORE_CHUNK (1024 * 1024)
#define STORE_MAX_FILES 100000
/* Directory levels of a package path ("data/secret/g1/1.in" is 4); deeper
 * is refused wherever a tree is read. Real packages use a handful; the
 * runner refuses past the same depth (runner/package.c). */
#define STORE_MAX_DEPTH 64

enum { STORE_OK = QUEUE_OK, STORE_ERR = QUEUE_ERROR, STORE_IO = QUEUE_IO };

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
 * read: a package with links inside is pushed from store_copy_tree's copy),
 * every file hashed; refused past max_bytes (0 = no limit) in total
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
/* nbytes (<= 32) random bytes as 2*nbytes lowercase hex digits and a NUL
 * into out: ids and tokens; -1 with errno set if getrandom failed */
int store_random_hex(char *out, size_t nbytes);

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
 * the store's referenced bytes would pass quota (0 = no limit). summary
 * (the pusher's runner_problem_summary of dir; NULL: none) is recorded
 * with the version in the same step, also when it was current already. */
int store_push(struct queue_conn *k, const char *name, const char *dir, const struct store_manifest *m,
               uint64_t quota, const char *summary, struct store_push_reply *out, char *err, size_t errlen);

/* Sends the blobs of m that Redis lacks (read from dir, hashed again while
 * sent), committing nothing: the first half of store_push. */
int store_send_blobs(struct queue_conn *k, const char *dir, const struct store_manifest *m, uint64_t *uploaded,
                     int *new_blobs, char *err, size_t errlen);

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
    char *summary;           /* the current version's summary (JSON text); NULL:
                                none recorded (pushed before there were any) */
};
/* All problem names, sorted (caller frees each and the array). */
int store_list(struct queue_conn *k, char ***names, size_t *n, char *err, size_t errlen);
/* *found false for an unknown problem. */
int store_info(struct queue_conn *k, const char *name, struct store_problem_info *out, bool *found,
               char *err, size_t errlen);
void store_problem_info_free(struct store_problem_info *p);
/* p's versions as the JSON array `judgectl store versions --json` prints
 * and GET /v1/problems/NAME/versions answers (one shape for every front):
 * [{"version", "time", "current", "size", "files"}, ...], newest first.
 * A new reference (a jansson json_t; NULL when out of memory). */
struct json_t *store_versions_json(const struct store_problem_info *p);
/* m's files as both fronts show them: [{"path", "size", "sha256"}, ...]. */
struct json_t *store_files_json(const struct store_manifest *m);
/* The manifest of version V, verified against V. */
int store_get_manifest(struct queue_conn *k, const char *version, struct store_manifest *m, char *err,
                       size_t errlen);
/* Version V's summary as NAME's pusher recorded it (JSON text, caller
 * frees; *json NULL when none was: pushed before store.lua version 3). */
int store_summary(struct queue_conn *k, const char *name, const char *version, char **json, char *err,
                  size_t errlen);
/* A recorded summary (store_summary's JSON text, or NULL) as both fronts
 * show it: the object, or JSON null when none was recorded or it does not
 * read as one. A new reference. */
struct json_t *store_summary_json(const char *text);
/* The hosts' problems directory as platforms see it (GET /v1/problems):
 * each host publishes NAME -> summary (runner_problem_summary's JSON) of
 * the problems it has at start and reload, replacing what was there at
 * once (RENAME; n 0: deleted). */
int store_publish_directory(struct queue_conn *k, const char *const *names, const char *const *summaries,
                            size_t n, char *err, size_t errlen);
/* The same read back: *out an object NAME -> summary object (caller
 * json_decref), empty when no host has published. */
int store_directory(struct queue_conn *k, struct json_t **out, char *err, size_t errlen);
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

/* store_fetch of a manifest the caller holds (a staged upload's). */
int store_fetch_manifest(struct queue_conn *k, const struct store_manifest *m, const char *tmp_dir,
                         const char *final_dir, uint64_t *bytes, char *err, size_t errlen);

/* ------------------------------------------------ upload.c: staged uploads */

/* A front that cannot validate a package (judge-api links no runner) stages
 * it: its blobs are sent, and an upload record waits in judge:uploads until
 * a judged host validates it as `problem check` does (with the sandbox) and
 * pushes it, or refuses it with every error. Keys:
 *   judge:upload:ID        hash: name, version, manifest, owner, created,
 *                          state (pending|validating|stored|refused|failed),
 *                          host, finished, result (new|unchanged|current
 *                          again), previous, errors (JSON array of lines)
 *   judge:uploads          list of pending IDs (LPUSH; taken from the right)
 *   judge:uploads:host:H   list: the IDs host H took and has not settled
 *   judge:upload:ID:done   list: one element once settled (a waiter's BLPOP)
 * Records expire STORE_UPLOAD_TTL seconds after they are settled. */
#define STORE_UPLOAD_TTL (7 * 24 * 3600)

struct store_upload {
    char id[33];
    char name[130];
    char version[65];
    char state[16];
    char owner[65];
    char host[256];
    char result[24];
    char previous[65];
    long long created, finished;
    char *manifest;          /* text (caller frees) */
    char *errors;            /* JSON array text or NULL (caller frees) */
};
void store_upload_free(struct store_upload *u);
/* The bytes the uploads of owner waiting for a host have staged (one
 * HMGET per waiting upload: the list is short unless hosts are away). */
int store_staged_by(struct queue_conn *k, const char *owner, uint64_t *bytes, char *err, size_t errlen);
/* Deletes the blobs of m that no version references (a refused upload's). */
int store_unstage(struct queue_conn *k, const struct store_manifest *m, char *err, size_t errlen);

/* Sends dir's blobs (manifest m) and queues an upload of NAME; id gets its
 * 32-hex-digit name. The record keeps the bytes staged (m->total). */
int store_stage(struct queue_conn *k, const char *name, const char *dir, const struct store_manifest *m,
                const char *owner, char id[33], char *err, size_t errlen);
/* Takes the oldest pending upload into host's list, waiting up to
 * timeout_s (>= 1): *got false when none came. Marks it validating by host. */
int store_upload_take(struct queue_conn *k, int timeout_s, const char *host, struct store_upload *u, bool *got,
                      char *err, size_t errlen);
/* Settles an upload host took: state stored (result, previous), refused
 * (errors: a JSON array text) or failed (errors: why); wakes its waiter. */
int store_upload_settle(struct queue_conn *k, const char *host, const char *id, const char *state,
                        const char *result, const char *previous, const char *errors, char *err, size_t errlen);
/* Gives an upload host took back to the queue, first in line. */
int store_upload_release(struct queue_conn *k, const char *host, const char *id, char *err, size_t errlen);
/* Gives back every upload host took and did not settle (it died); *n of them. */
int store_upload_recover(struct queue_conn *k, const char *host, int *n, char *err, size_t errlen);
/* Reads an upload (*found false if unknown or expired). */
int store_upload_get(struct queue_conn *k, const char *id, struct store_upload *u, bool *found, char *err,
                     size_t errlen);
/* Waits up to timeout_ms for the upload to be settled (1 s blocking
 * slices); *settled tells. */
int store_upload_wait(struct queue_conn *k, const char *id, long timeout_ms, bool *settled, char *err,
                      size_t errlen);

/* ------------------------------------------------------ rejudge.c: rejudges */

/* Which submissions to judge again: those of problem (NULL: any) in pools,
 * judged (state done), optionally by verdict ("WA,TLE", NULL: any) and
 * admission time (ms, -1: any); or, with nids, just the listed ids (still
 * filtered by problem, verdicts and since). version: NULL = each problem's
 * current one, "local" = the hosts' problems directory. */
struct store_rejudge_args {
    const char *problem, *version, *verdicts;
    long long since;
    const char *const *pools;
    size_t npools;
    const char *const *ids;
    size_t nids;
    bool dry;                /* find them, queue nothing */
};
struct store_rejudge_item {
    char id[192];
    char problem[130];
    char verdict[16];        /* before the rejudge */
    char result[32];         /* queued, or why not (queue_rejudge's answer, "not judged yet", "unknown", ...) */
};
struct store_rejudge_reply {
    char id[64];             /* judge:rejudge:ID; '' when nothing was queued (or dry) */
    char version[65];        /* the problem's version used ('' local or several problems) */
    struct store_rejudge_item *items;   /* sorted by id */
    size_t n, matched, queued;
};
/* Finds, records and queues a rejudge (store.h's header comment, rejudge.c). */
int store_rejudge(struct queue_conn *k, const struct store_rejudge_args *a, struct store_rejudge_reply *out,
                  char *err, size_t errlen);
void store_rejudge_free(struct store_rejudge_reply *r);

/* The ids of the newest max rejudges, newest first (free each and the array). */
int store_rejudge_ids(struct queue_conn *k, size_t max, char ***ids, size_t *n, char *err, size_t errlen);
/* How far rejudge rid got (`judgectl rejudge status`): its record and its
 * submissions counted by their state (*found false for an unknown id). */
struct store_rejudge_status {
    char id[64];
    char problem[130];
    char version[65];
    long long created;       /* ms */
    long total;              /* submissions queued */
    long done, waiting;      /* of those still carrying this rejudge */
    long changed;            /* done with a verdict other than before */
};
int store_rejudge_status(struct queue_conn *k, const char *rid, struct store_rejudge_status *out, bool *found,
                         char *err, size_t errlen);

/* --------------------------------------------------- package.c: before a push */

/* Unpacks a tar (optionally gz/bz2/xz, once) or zip archive into dst
 * (created; it must not exist) as regular files and directories: a link
 * (symbolic or hard) to an entry inside the package becomes a copy of it;
 * a link leaving it or looping, devices, FIFOs, absolute paths, '..' and
 * paths deeper than STORE_MAX_DEPTH are refused naming the entry; at most
 * max_bytes (0 = no limit) unpacked, copies of links counted, and about as
 * much decompressed. One top-level directory holding everything is
 * dropped. On failure nothing is left at dst. */
int store_unpack(const char *archive, const char *dst, uint64_t max_bytes, char *err, size_t errlen);
/* Copies a package directory as regular files and directories, each
 * symbolic link that stays inside it replaced by a copy of its target (one
 * leaving it, a loop, a FIFO, socket or device refused naming it); at most
 * STORE_MAX_FILES entries, STORE_MAX_DEPTH deep and max_bytes in all,
 * counted on the copy. On failure nothing is left at to. */
int store_copy_tree(const char *from, const char *to, uint64_t max_bytes, char *err, size_t errlen);
/* The same for a setter's own directory (judgectl problem push DIR): a
 * relative link to a file outside it (a contest repository's shared
 * validation.h) is copied too, and named in *resolved, one warning line
 * each ("REL:0: (link): warning: ..."; NULL when none). An absolute link
 * out, or one to a directory, is still refused. Never for an uploaded
 * archive. */
int store_copy_tree_resolving(const char *from, const char *to, uint64_t max_bytes, char **resolved, char *err,
                              size_t errlen);
/* Whether the tree at dir holds a symbolic link (then push copies it). */
bool store_has_links(const char *dir);
/* The format of the package at dir when it is another judge's ("polygon":
 * Codeforces Polygon, by problem.xml and no problem.yaml; "icpc":
 * ICPC/Kattis or DOMjudge, by data/secret/, data/sample/ or
 * domjudge-problem.ini and no tests/), NULL for the runner's own. */
const char *store_package_format(const char *dir);
/* Converts the package in dir IN PLACE into the runner's format when it is
 * another judge's (problem.yaml written, the original kept, e.g. as
 * problem.icpc.yaml; a Polygon package's problem.xml stays as it is);
 * nothing is done to a runner package. Returns the
 * number of errors, listed in *errors as "FILE:LINE: KEY: message" lines
 * (caller frees; NULL when none); *errors may also hold warnings
 * ("FILE:LINE: KEY: warning: ...", not counted, such as the time limit
 * assumed for a package that gives none) for the caller to show. */
int store_convert(const char *dir, const char *name, char **errors);

/* A package's own programs run by the conversion: a CMS task whose tests
 * its generator makes (gen/GEN; cms_gen.c). store/ knows no sandbox: the
 * caller that has one (judgectl, through the runner's runner_tool_*) gives
 * these; without them such a package is refused, saying where it can be
 * pushed. Each call: 0 done; 1 the package's fault (msg says why); -1 the
 * host's (msg). */
struct store_tool_limits {
    double cpu_time;      /* seconds (the wall clock: 2 x + 1) */
    uint64_t memory;      /* bytes */
    uint64_t output;      /* bytes of stdout */
    bool submission;      /* as a submission's: x its language's time_factor, + its extra_memory */
};
struct store_tools {
    void *ctx;
    /* builds source (relative to dir); what names it ("generator") */
    int (*build)(void *ctx, const char *dir, const char *source, const char *what, void **tool, char *msg,
                 size_t msglen);
    /* runs tool with args, stdin in_path (NULL: empty), stdout into
     * out_path; in_name: the input also as that file in its working dir;
     * out_name: its output is the file of that name it leaves there */
    int (*run)(void *ctx, void *tool, char *const *args, const char *in_path, const char *in_name,
               const char *out_path, const char *out_name, const struct store_tool_limits *lim, char *msg,
               size_t msglen);
    void (*release)(void *ctx, void *tool);
    /* the generator's and validator's limits per run; 0s: the defaults
     * (STORE_GEN_*) */
    struct store_tool_limits generator;
};
#define STORE_GEN_CPU_TIME 30.0
#define STORE_GEN_MEMORY (1ULL << 30)
#define STORE_GEN_OUTPUT (256ULL << 20)
/* The official solution making the outputs: the task's time limit x this,
 * its memory limit, STORE_GEN_OUTPUT. */
#define STORE_GEN_SOLUTION_MARGIN 2.0
/* store_convert with the programs a package may need run (NULL: none). */
int store_convert_tools(const char *dir, const char *name, const struct store_tools *tools, char **errors);

/* Whether dir holds a package this project converted already (its
 * problem.yaml says so in its first line): it is not converted again, so
 * pushing what `problem show --converted --to DIR` wrote back gives the
 * same version. */
bool store_converted(const char *dir);

/* ------------------------- verify.c: what a package's own submissions earn */

/* Verdicts as sets: the ICPC spec's per test AC, WA, TLE, RTE (RTE holding
 * the runner's RE, MLE, SV and OLE), and what DOMjudge names apart. */
enum {
    STORE_V_AC = 1, STORE_V_WA = 2, STORE_V_TLE = 4, STORE_V_RTE = 8, STORE_V_CE = 16, STORE_V_OLE = 32,
    STORE_V_IE = 64,
};
/* The runner's verdict name ("AC", "RE", ...) as a set bit; 0 SKIPPED. */
unsigned store_verdict_bit(const char *verdict);

/* Which bound of a derived time limit a submission gives. */
enum { STORE_TIME_NONE = 0, STORE_TIME_LOWER, STORE_TIME_UPPER };

/* Every test's verdict in permitted; at least one in required. */
struct store_expect_rule {
    unsigned permitted, required;
};
/* A rule for some test groups only (submissions.yaml: a test group glob
 * under a submission's key, e.g. secret/group1): the runner's names of the
 * tests it covers, sorted. */
struct store_group_expect {
    char group[256];           /* the glob as written */
    struct store_expect_rule rule;
    char message[256];         /* in one of these tests' judge messages ("" none) */
    char **tests;
    size_t ntests;
};
struct store_expected {
    char path[1100];           /* submissions/accepted/sol.c (below the package) */
    char language[64];         /* submissions.yaml's language, else problemtools' for an ICPC
                                  package's .pl (prolog); "" = by extension */
    bool program_dir;          /* a program of several files: one submission (store_program_files) */
    struct store_expect_rule rules[8];   /* all must hold (folder default, globs) */
    size_t nrules;
    unsigned final;            /* DOMjudge: the final verdict is one of these (then no rules) */
    bool has_score;
    double score_lo, score_hi;
    char message[256];         /* must appear in a judge message ("" none) */
    int time_use;              /* STORE_TIME_* (group rules never bound it) */
    char expected[160];        /* as a table shows it */
    struct store_group_expect *groups;   /* owned (store_expected_release) */
    size_t ngroups;
    bool partial;              /* partially_accepted: the verdict AC, the score below the most */
};
/* What a package's submissions/ asks (verify.c's header: verdict folders,
 * submissions/submissions.yaml, @EXPECTED_RESULTS@), sorted by path. The
 * number of errors, each "FILE:LINE: KEY: message" in *errors (caller
 * frees; NULL none); a program with an error is left out of *out. */
int store_expected_results(const char *dir, struct store_expected **out, size_t *n, char **errors);
/* The same, bounded and stoppable as judge-api needs it: the keys' {a,b}
 * groups are bounded (groups, alternatives, expansion) and refused past
 * that naming file, line and key; all the matching of one reading is
 * bounded; and stop(arg), when given, is asked every few thousand
 * comparisons (judge-api: has the client left?): when it says true the
 * reading ends with an error. */
int store_expected_results_until(const char *dir, bool (*stop)(void *), void *arg, struct store_expected **out,
                                 size_t *n, char **errors);
void store_expected_free(struct store_expected *x, size_t n);
/* What one expectation owns (its group rules), the struct itself kept. */
void store_expected_release(struct store_expected *x);
void store_expected_text(const struct store_expected *x, char *out, size_t len);
/* What one judging gave: the set of its tests' verdicts (CE alone when it
 * did not compile), the final verdict's bit, the score, the judge
 * messages joined. */
struct store_test_seen {
    char *name;                /* the runner's name of the test */
    unsigned bit;              /* its verdict (0: not run) */
    char *message;             /* its judge message, or NULL */
};
struct store_verify_seen {
    unsigned tests, overall;
    double score;
    const char *messages;
    const struct store_test_seen *per_test;   /* in test order: group rules read them */
    size_t ntests;
    double max_score;          /* the most the problem gives (the report's max_score) */
};
/* The ending of the language source file a package's program at path is
 * judged as: ".cpp" for C++'s other endings (.cc, .cxx, .c++, .C, .cp),
 * else path's own (NULL when it has none). Both verify front ends pick
 * the language whose `source` ends so. */
const char *store_source_ending(const char *path);
/* A package's program directory (submissions/accepted/NAME/, x->program_dir)
 * as one submission of several files: its regular files below it, packed
 * as judge-api packs `files` (common/fileset/fileset.h) into *source
 * (caller frees), and the ending its sources share (".java"; headers and
 * files without an ending, or ending .txt or .md, ignored), for the
 * language as store_source_ending gives it for one file. At most max bytes
 * packed. -1 with why (a link, a bad name, sources of two endings, none). */
int store_program_files(const char *pkg, const char *rel, size_t max, char **source, size_t *len, char ending[16],
                        char *why, size_t whylen);
/* Whether x holds for s; why not in why. */
bool store_expected_met(const struct store_expected *x, const struct store_verify_seen *s, char *why, size_t len);

/* The time limit a package leaves to the judge (Kattis' rule, runner/README.md
 * "Time limits derived"): time_limit 0 when it gives none (.timelimit,
 * domjudge-problem.ini, limits.time_limit); the factors with the spec's
 * defaults (legacy time_multiplier 5, time_safety_margin 2; 2023-07+
 * ac_to_time_limit 2.0, time_limit_to_tle 1.5, time_resolution 1 s). */
struct store_time_rule {
    double time_limit;
    bool elsewhere;            /* a Polygon package: problem.xml gives it (never left to the judge) */
    bool modern;               /* problem_format_version 2023-07 or later */
    double ac_factor, tle_factor, resolution;
    double ac_factor_legacy, tle_factor_legacy;   /* as read, before defaults */
};
int store_time_rule(const char *dir, struct store_time_rule *r, char **errors);
/* From the slowest test of the lower-bound submissions (CPU s): the limit,
 * and the one the upper-bound (TLE) submissions must still exceed. */
void store_time_derive(const struct store_time_rule *r, double slowest, double *limit, double *tle_limit);
/* One judging of a package's submission, from the runner's JSON report
 * (`judgectl judge --json`'s object, a result's report): its tests'
 * verdicts as a set and as text, the slowest test (CPU s), the messages. */
struct store_verify_outcome {
    struct store_verify_seen seen;
    char verdict[16];
    char tests[128];
    double max_time;
    bool judged;
    char note[512];            /* why not judged, or the problem's error */
    char *messages;            /* store_verify_outcome_free */
    struct store_test_seen *per_test;   /* store_verify_outcome_free */
    size_t ntests;
};
void store_verify_read_report(const char *report, struct store_verify_outcome *o);
void store_verify_outcome_free(struct store_verify_outcome *o);
/* A row of the verify table, one shape for judgectl and judge-api:
 * {"path", "language", "expected", "verdict", "tests", "max_time",
 * "score", "judged", "ok", "why"}. */
struct json_t *store_verify_row(const struct store_expected *x, const char *lang,
                                const struct store_verify_outcome *o);
/* An expectation as JSON and back (judge-api keeps them with the ids it
 * admitted until the verdicts are in); from_json -1 on a bad object. */
struct json_t *store_expected_json(const struct store_expected *x);
int store_expected_from_json(struct json_t *o, struct store_expected *x);
/* judge:verify:ID, a JSON record kept STORE_UPLOAD_TTL seconds. */
int store_verify_save(struct queue_conn *k, const char *id, const char *record, char *err, size_t errlen);
int store_verify_load(struct queue_conn *k, const char *id, char **record, bool *found, char *err, size_t errlen);
/* Makes id the running verify of problem name's version when none is
 * recorded or the recorded one is `expected` (one the caller found
 * finished); holder: the one recorded now (id when it was made so). */
int store_verify_claim(struct queue_conn *k, const char *name, const char *version, const char *id,
                       const char *expected, char holder[33], char *err, size_t errlen);
/* Sets the converted problem.yaml's time_limit (a writable copy); 0 ok. */
int store_set_time_limit(const char *dir, double seconds, char *err, size_t errlen);

/* rm -rf (no symlinks followed); 0 ok. */
int store_remove_tree(const char *path);

#endif
