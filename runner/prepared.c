/*
 * prepared.c - files a language builds once per host and reuses in every
 * compile and run: a precompiled <bits/stdc++.h> for C++, a JVM class-data
 * sharing archive for Java. Declared by the language file's `prepare` key
 * (languages/README.md); nothing here knows which compiler it is.
 *
 * Key: sha256 of the language file's bytes (any change of a flag, of the
 * build commands, even of a comment, is another key: prepared files are
 * never shared across definitions), the output of its version command (run
 * in a box once per runner) and the identity (inode, size, mtime) of each
 * path of prepare.inputs (the compiler's binary, the header directories: a
 * package upgrade changes them even where the version string does not).
 *
 * An entry is PREP/ID-KEY/ with files/ (what the build steps left in their
 * box, sealed: root's, read-only) and sums ("SHA256 SIZE MODE PATH" of every
 * file). It is built in the job's own slot, as compile steps with
 * prepare.limits, under a temporary name, then renamed into place; a build
 * that fails leaves PREP/ID-KEY.log and is not tried again for
 * RETRY_AFTER seconds, and compiles go on without it, exactly as without a
 * `prepare` key. Before first use in a runner every file is hashed and
 * compared with sums; the identity of each verified file is then kept, and
 * a file whose identity changed (written to, replaced) is hashed again. An
 * entry that does not match is removed and rebuilt, never used. Entries of
 * the same language under other keys are retired once a new one is in
 * place: renamed to PREP/.retired-TIME-ID-KEY, and removed an hour later.
 * A box started before mounts the entry's directory, which a rename leaves
 * as it is and a removal would empty under it: an old runner's compile in
 * flight during a reload (or another process with another definition of
 * the language on the same host) would lose its precompiled header midway.
 * A runner whose entry was retired finds its path gone at its next use and
 * builds (or goes without) as for a missing entry.
 *
 * files/ is mounted read-only at RN_PREPARED_MOUNT in the language's compile
 * boxes and runs, and an argv element `{prepared}` becomes
 * prepare.compile_flags (compile steps) or prepare.run_flags (runs); with
 * no usable entry the element is dropped and nothing is mounted.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define RETRY_AFTER 600.0   /* seconds before a failed build is tried again */
#define RETIRED_FOR 3600    /* seconds a retired entry stays for the boxes using it */
#define RETIRED_PREFIX ".retired-"

static void sweep_retired(const char *prep);

struct file_sig {
    char *path;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
};

/* one language's entry in a runner, under mu */
struct rn_prepared_state {
    pthread_mutex_t mu;
    char *version;              /* the version command's output; NULL: not run yet */
    char key[65];               /* of the verified entry; "" none */
    struct file_sig *sigs;      /* its files as they were when verified */
    size_t nsigs;
    char failed_key[65];        /* the last key whose build failed, and when */
    double failed_at;
};

int rn_prepared_init(struct runner *r, const char *dir, bool off, char *err, size_t errlen)
{
    r->prepare_off = off;
    r->prep = calloc(r->lang_count ? r->lang_count : 1, sizeof *r->prep);
    if (!r->prep)
        return snprintf(err, errlen, "out of memory"), -1;
    for (size_t i = 0; i < r->lang_count; i++)
        pthread_mutex_init(&r->prep[i].mu, NULL);
    char *want = dir ? strdup(dir) : rn_strdup_printf("%s/prepared", r->work_dir);
    r->prepared_dir = want ? rn_private_dir(want, err, errlen) : NULL;
    free(want);
    if (r->prepared_dir)
        sweep_retired(r->prepared_dir);
    return r->prepared_dir ? 0 : -1;
}

static void free_sigs(struct rn_prepared_state *st)
{
    for (size_t i = 0; i < st->nsigs; i++)
        free(st->sigs[i].path);
    free(st->sigs);
    st->sigs = NULL;
    st->nsigs = 0;
    st->key[0] = 0;
}

void rn_prepared_free(struct runner *r)
{
    for (size_t i = 0; r->prep && i < r->lang_count; i++) {
        free_sigs(&r->prep[i]);
        free(r->prep[i].version);
        pthread_mutex_destroy(&r->prep[i].mu);
    }
    free(r->prep);
    free(r->prepared_dir);
}

static bool same_sig(const struct file_sig *s, const struct stat *st)
{
    return s->dev == st->st_dev && s->ino == st->st_ino && s->size == st->st_size &&
           s->mtime.tv_sec == st->st_mtim.tv_sec && s->mtime.tv_nsec == st->st_mtim.tv_nsec &&
           s->ctime.tv_sec == st->st_ctim.tv_sec && s->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* the verified files are still the same inodes, untouched since */
static bool sigs_hold(const struct rn_prepared_state *st)
{
    for (size_t i = 0; i < st->nsigs; i++) {
        struct stat sb;
        if (lstat(st->sigs[i].path, &sb) || !same_sig(&st->sigs[i], &sb))
            return false;
    }
    return st->nsigs > 0;
}

/* records the identity of every file named in ENTRY/sums */
static int record_sigs(struct rn_prepared_state *st, const char *entry, const char *key)
{
    free_sigs(st);
    char *path = rn_strdup_printf("%s/sums", entry);
    char *text = rn_read_file(path, 1 << 20, NULL);
    free(path);
    int rc = text ? 0 : -1;
    for (char *line = text, *nl; rc == 0 && (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = 0;
        char *name = line;
        for (int field = 0; field < 3 && name; field++)
            name = strchr(name, ' ') ? strchr(name, ' ') + 1 : NULL;
        struct stat sb;
        struct file_sig s = {.path = name ? rn_strdup_printf("%s/files/%s", entry, name) : NULL};
        if (!s.path || lstat(s.path, &sb)) {
            free(s.path);
            rc = -1;
            break;
        }
        s.dev = sb.st_dev, s.ino = sb.st_ino, s.size = sb.st_size;
        s.mtime = sb.st_mtim, s.ctime = sb.st_ctim;
        st->sigs = realloc(st->sigs, (st->nsigs + 1) * sizeof *st->sigs);
        st->sigs[st->nsigs++] = s;
    }
    free(text);
    if (rc == 0)
        snprintf(st->key, sizeof st->key, "%s", key);
    else
        free_sigs(st);
    return rc;
}

/* A compile step of argvs steps with l's environment and mounts, in dir:
 * its output (caller frees) or NULL when it failed; -1 only when the
 * sandbox did (j->err is then cleared: the job goes on without). */
static int box_steps(struct rn_job *j, const struct rn_language *l, char ***steps, size_t n,
                     const struct rn_prepare *limits, const char *dir, char **output)
{
    struct rn_language box = *l;
    box.prepare = NULL;             /* a build never uses what it builds */
    box.compile = steps;
    box.compile_steps = n;
    /* once per host, while compiles of the language wait for it: every
     * CPU shortens the wait (Rust's crates: cargo builds several at once);
     * waits for a core do not count against anyone's wall clock */
    box.compile_unpinned = true;
    if (limits) {
        box.compile_time = limits->time;
        box.compile_memory = limits->memory;
        box.compile_output = limits->output;
        box.compile_procs = limits->procs;
    }
    struct rn_compiled c;
    int rc = rn_compile_in(j, &box, dir, NULL, &c);
    if (rc < 0) {
        j->failure = RUNNER_FAILURE_NONE;
        j->err[0] = 0;
    }
    *output = c.output;
    return rc < 0 ? -1 : c.ok ? 0 : 1;
}

/* the version command's output, run in a box once per runner */
static const char *version_of(struct rn_job *j, const struct rn_language *l,
                              struct rn_prepared_state *st)
{
    if (st->version || !l->version)
        return st->version ? st->version : "";
    char *dir = rn_strdup_printf("%s/prepare-version", j->dir);
    char **steps[] = {l->version};
    char *out = NULL;
    if (rn_fresh_dir(dir, 0777) == 0 && box_steps(j, l, steps, 1, NULL, dir, &out) == 0)
        st->version = out, out = NULL;
    free(out);
    rn_remove_tree(dir);
    free(dir);
    return st->version ? st->version : "";
}

static void key_of(struct rn_job *j, const struct rn_language *l, struct rn_prepared_state *st,
                   char key[65])
{
    const char *version = version_of(j, l, st);
    size_t n = 0;
    for (char **p = l->prepare->inputs; p && *p; p++)
        n++;
    const void **parts = calloc(2 * n + 3, sizeof *parts);
    size_t *lens = calloc(2 * n + 3, sizeof *lens);
    char **ids = calloc(n + 1, sizeof *ids);
    parts[0] = "judged prepared 1", lens[0] = strlen(parts[0]) + 1;
    parts[1] = l->sha, lens[1] = strlen(l->sha) + 1;
    parts[2] = version, lens[2] = strlen(version) + 1;
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        const char *in = l->prepare->inputs[i];
        ids[i] = stat(in, &sb) ? strdup("missing")
                               : rn_strdup_printf("%llu %llu %lld.%09ld",
                                                  (unsigned long long)sb.st_ino,
                                                  (unsigned long long)sb.st_size,
                                                  (long long)sb.st_mtim.tv_sec,
                                                  sb.st_mtim.tv_nsec);
        parts[3 + 2 * i] = in, lens[3 + 2 * i] = strlen(in) + 1;
        parts[4 + 2 * i] = ids[i], lens[4 + 2 * i] = strlen(ids[i]) + 1;
    }
    rn_sha256_hex(parts, lens, 2 * n + 3, key);
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    free(parts);
    free(lens);
}

/* removes retired entries older than RETIRED_FOR (every box that mounted
 * one has ended: no box lives an hour) */
static void sweep_retired(const char *prep)
{
    DIR *d = opendir(prep);
    struct dirent *e;
    time_t now = time(NULL);
    size_t pn = strlen(RETIRED_PREFIX);
    while (d && (e = readdir(d))) {
        char *end;
        if (strncmp(e->d_name, RETIRED_PREFIX, pn))
            continue;
        long long at = strtoll(e->d_name + pn, &end, 10);
        if (*end != '-' || now - at < RETIRED_FOR)
            continue;
        char *path = rn_strdup_printf("%s/%s", prep, e->d_name);
        rn_remove_tree(path);
        free(path);
    }
    if (d)
        closedir(d);
}

/* retires PREP/ID-OTHERKEY entries (their logs are removed): replaced
 * definitions, which boxes started before may still have mounted */
static void retire_stale(const char *prep, const char *id, const char *key)
{
    DIR *d = opendir(prep);
    struct dirent *e;
    size_t idn = strlen(id);
    long long now = (long long)time(NULL);
    while (d && (e = readdir(d))) {
        const char *rest = e->d_name + idn;
        if (strncmp(e->d_name, id, idn) || rest[0] != '-' || strlen(rest + 1) < 64 ||
            !strncmp(rest + 1, key, 64))
            continue;
        char *path = rn_strdup_printf("%s/%s", prep, e->d_name);
        char *retired = rn_strdup_printf("%s/" RETIRED_PREFIX "%lld-%s", prep, now, e->d_name);
        if (strlen(rest + 1) > 64 || rename(path, retired) < 0)
            rn_remove_tree(path);   /* a log, or cannot be renamed: nothing mounts it */
        free(retired);
        free(path);
    }
    if (d)
        closedir(d);
    sweep_retired(prep);
}

/* builds ENTRY in the job's slot: 0 built, 1 the build failed (its log is
 * left as ENTRY.log), -1 the sandbox or the disk failed */
static int build(struct rn_job *j, const struct rn_language *l, const char *entry,
                 const char *key)
{
    char *tmp = rn_strdup_printf("%s/.tmp-%s-%s-%d-%d", j->r->prepared_dir, l->id, key,
                                 (int)getpid(), j->slot);
    char *files = rn_strdup_printf("%s/files", tmp);
    char *sums = rn_strdup_printf("%s/sums", tmp);
    char *out = NULL;
    rn_remove_tree(tmp);
    int rc = rn_mkdir_p(tmp, 0755) < 0 || rn_fresh_dir(files, 0777) < 0 ? -1 : 0;
    if (rc == 0)
        rc = box_steps(j, l, l->prepare->build, l->prepare->build_steps, l->prepare, files, &out);
    /* the box's own dir was the slot's: root's and read-only like the rest */
    if (rc == 0 && (rn_seal_tree(files) < 0 || chown(files, 0, 0) < 0 || chmod(files, 0555) < 0 ||
                    rn_tree_sums_write(files, sums) < 0 || chmod(sums, 0444) < 0))
        rc = -1;
    if (rc == 0 && rename(tmp, entry) < 0 && errno != EEXIST && errno != ENOTEMPTY)
        rc = -1;                    /* else another runner stored it first */
    if (rc == 1) {
        char *log = rn_strdup_printf("%s.log", entry);
        rn_write_file(log, out ? out : "", out ? strlen(out) : 0, 0644);
        free(log);
    }
    rn_remove_tree(tmp);
    free(out);
    free(tmp);
    free(files);
    free(sums);
    return rc;
}

/* makes st hold a verified entry for key (with may_build, building it when
 * missing or damaged; a damaged one is removed either way); 0 ready, -1 not */
static int make_ready(struct rn_job *j, const struct rn_language *l,
                      struct rn_prepared_state *st, const char *key, bool may_build)
{
    char *entry = rn_strdup_printf("%s/%s-%s", j->r->prepared_dir, l->id, key);
    char *files = rn_strdup_printf("%s/files", entry);
    char *sums = rn_strdup_printf("%s/sums", entry);
    struct stat sb;
    int rc = -1;
    if (stat(entry, &sb) == 0 && rn_tree_sums_check(files, sums) == 0)
        rc = record_sigs(st, entry, key);
    else if (!may_build || (!strcmp(st->failed_key, key) && rn_now() - st->failed_at < RETRY_AFTER))
        rn_remove_tree(entry);      /* damaged: never used; failed lately: go without */
    else {
        rn_remove_tree(entry);      /* damaged or half there: never used */
        if (build(j, l, entry, key) == 0 && rn_tree_sums_check(files, sums) == 0)
            rc = record_sigs(st, entry, key);
        if (rc < 0) {
            snprintf(st->failed_key, sizeof st->failed_key, "%s", key);
            st->failed_at = rn_now();
        } else
            retire_stale(j->r->prepared_dir, l->id, key);
    }
    free(entry);
    free(files);
    free(sums);
    return rc;
}

char *rn_prepared_for(struct rn_job *j, const struct rn_language *l, bool may_build)
{
    struct runner *r = j->r;
    if (!l->prepare || r->prepare_off || !r->prep || !r->sb)
        return NULL;
    size_t i = 0;
    while (i < r->lang_count && r->langs[i] != l)
        i++;
    if (i == r->lang_count)
        return NULL;                /* a copy (the self-test's version step) */
    struct rn_prepared_state *st = &r->prep[i];
    pthread_mutex_lock(&st->mu);
    char key[65];
    key_of(j, l, st, key);
    int rc = 0;
    if (strcmp(st->key, key) || !sigs_hold(st)) {
        free_sigs(st);
        rc = make_ready(j, l, st, key, may_build);
    }
    char *dir = rc == 0 ? rn_strdup_printf("%s/%s-%s/files", r->prepared_dir, l->id, key) : NULL;
    pthread_mutex_unlock(&st->mu);
    return dir;
}
