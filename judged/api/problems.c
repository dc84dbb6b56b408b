/*
 * problems.c - the problem store over HTTP (store/store.h): upload
 * (PUT /v1/problems/NAME), list, show, versions, remove, and the staged
 * upload's record (GET /v1/uploads/ID).
 *
 * An upload is untrusted input handled by a process that may run as root:
 * the body (at most max_package bytes, 413 past it) is written to a private
 * temporary directory and unpacked by store_unpack (regular files and
 * directories, links inside the package made copies of what they point to;
 * absolute paths, '..', links leaving it, loops, devices refused naming the
 * entry; unpacked bytes, copies counted, bounded by max_package, entries
 * by STORE_MAX_FILES, counted as they are written). An ICPC/Kattis or Polygon package is converted as
 * `judgectl problem push` does. Then judge-api, which links no runner,
 * cannot validate the package itself (a custom checker must compile in the
 * sandbox): it stages it (store_stage: blobs sent, nothing committed) and
 * waits up to UPLOAD_WAIT_MS for a judged host's validator (judged/
 * validator.c) to push it or refuse it with every error. Past the wait the
 * answer is 202 with the upload's Location, to poll. The same content as
 * the current version answers 200 "unchanged" at once: it was validated
 * when it was pushed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"
#include "common.h"
#include "store.h"

#define UPLOAD_WAIT_MS 60000L

static enum MHD_Result store_failure(struct req *r, int rc, const char *err)
{
    if (rc == STORE_IO)
        return api_error_retry(r, 503, 1, "%s", err);
    return api_error(r, 500, NULL, "%s", err);
}

/* Removes every "PREFIX/" from text (the temporary directory in messages). */
static void strip_prefix(char *text, const char *prefix)
{
    size_t n = strlen(prefix);
    for (char *p; (p = strstr(text, prefix)) && p[n] == '/';)
        memmove(p, p + n + 1, strlen(p + n + 1) + 1);
}

static json_t *lines_json(const char *text)
{
    json_t *arr = json_array();
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len)
            json_array_append_new(arr, json_stringn(p, len));
        p += len + (nl ? 1 : 0);
    }
    return arr;
}

/* 400/422 with every error line (the same shape as the validator's). */
static enum MHD_Result refusal(struct req *r, unsigned status, const char *name, json_t *errors /* stolen */)
{
    size_t n = json_array_size(errors);
    char msg[300];
    snprintf(msg, sizeof msg, "%zu error%s in the package; '%s' was not stored", n, n == 1 ? "" : "s", name);
    return api_json(r, status, json_pack("{s:s, s:s, s:o}", "error", msg, "field", "body", "errors", errors));
}

static json_t *upload_json(const struct store_upload *u)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:I}", "id", u->id, "name", u->name, "version", u->version,
                          "state", u->state, "created", (json_int_t)u->created);
    if (u->owner[0])
        json_object_set_new(j, "owner", json_string(u->owner));
    if (u->host[0])
        json_object_set_new(j, "host", json_string(u->host));
    if (u->finished)
        json_object_set_new(j, "finished", json_integer(u->finished));
    if (u->result[0])
        json_object_set_new(j, "result", json_string(u->result));
    if (u->previous[0])
        json_object_set_new(j, "previous", json_string(u->previous));
    json_t *errs = u->errors ? json_loads(u->errors, 0, NULL) : NULL;
    if (json_is_array(errs) && json_array_size(errs))
        json_object_set(j, "errors", errs);
    json_decref(errs);
    return j;
}

/* The answer for a settled upload, or 202 while it waits. */
static enum MHD_Result upload_answer(struct req *r, const struct store_upload *u, const char *notes)
{
    char loc[80];
    snprintf(loc, sizeof loc, "/v1/uploads/%s", u->id);
    json_t *j = upload_json(u);
    if (notes && *notes)   /* the conversion's warnings (a time limit assumed): said, not stored */
        json_object_set_new(j, "warnings", lines_json(notes));
    if (!strcmp(u->state, "stored"))
        return api_json_h(r, !strcmp(u->result, "new") ? 201 : 200, j, "Location", loc, NULL);
    if (!strcmp(u->state, "refused")) {
        json_t *errs = json_object_get(j, "errors");
        json_t *out = json_pack("{s:s, s:s, s:s, s:O}", "error", "the package was refused; nothing was stored",
                                "field", "body", "upload", u->id, "errors", errs ? errs : json_array());
        json_decref(j);
        return api_json(r, 422, out);
    }
    if (!strcmp(u->state, "failed")) {
        json_object_set_new(j, "error", json_string("the upload could not be validated (infrastructure); "
                                                    "nothing was stored: upload again"));
        return api_json(r, 503, j);
    }
    return api_json_h(r, 202, j, "Location", loc, NULL);
}

/* The body, already in WORK/upload (server.c wrote it as it arrived),
 * unpacked into WORK/pkg (converted if ICPC or Polygon). 0, or a response was queued
 * into *ret. */
static int unpack_body(struct req *r, const char *name, const char *work, char *pkg, size_t pkglen, char **notes,
                       enum MHD_Result *ret)
{
    char file[4200], err[2048];
    snprintf(file, sizeof file, "%s/upload", work);
    snprintf(pkg, pkglen, "%s/pkg", work);
    if (r->upload_errno || close(r->upload_fd)) {
        r->upload_fd = -1;
        *ret = api_error(r, 500, NULL, "cannot keep the upload: %s", strerror(r->upload_errno ? r->upload_errno
                                                                                                : errno));
        return -1;
    }
    r->upload_fd = -1;
    if (store_unpack(file, pkg, (uint64_t)r->cfg->max_package, err, sizeof err)) {
        strip_prefix(err, work);
        bool big = strstr(err, "larger than max_package") != NULL;
        *ret = big ? api_error(r, 413, "body", "%s", err) : refusal(r, 400, name, lines_json(err));
        return -1;
    }
    if (store_package_format(pkg)) {
        char *errors = NULL;
        int n = store_convert(pkg, name, &errors);
        if (n) {
            strip_prefix(errors, pkg);
            *ret = refusal(r, 422, name, lines_json(errors));
            free(errors);
            return -1;
        }
        *notes = errors;
    }
    return 0;
}

static bool archive_type(const char *ct)
{
    static const char *ok[] = {"application/gzip", "application/x-gzip", "application/zip",
                               "application/x-zip-compressed", "application/x-tar", "application/octet-stream"};
    if (!ct)
        return false;
    size_t n = strcspn(ct, "; ");
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (strlen(ok[i]) == n && !strncasecmp(ct, ok[i], n))
            return true;
    return false;
}

/* Stages pkg (after the unchanged shortcut) and waits for its validation. */
static enum MHD_Result stage_and_wait(struct req *r, struct queue_conn *k, const char *name, const char *pkg,
                                      const char *work, const char *notes)
{
    char err[2048];
    struct store_manifest m;
    if (store_manifest_from_dir(pkg, (uint64_t)r->cfg->max_package, &m, err, sizeof err)) {
        strip_prefix(err, work);
        return strstr(err, "max_package") ? api_error(r, 413, "body", "%s", err)
                                          : refusal(r, 400, name, lines_json(err));
    }
    char current[65], id[33], *summary = NULL;
    bool found;
    int rc = store_current(k, name, current, &found, err, sizeof err);
    bool same = rc == 0 && found && !strcmp(current, m.version);
    if (same)
        rc = store_summary(k, name, current, &summary, err, sizeof err);
    /* a version stored before summaries were recorded goes through a host,
     * which records its summary (and answers "unchanged") */
    if (rc == 0 && same && summary) {
        free(summary);
        store_manifest_free(&m);
        return api_json(r, 200, json_pack("{s:s, s:s, s:s}", "name", name, "version", current, "result",
                                           "unchanged"));
    }
    uint64_t staged = 0;
    if (rc == 0 && r->cfg->max_staged > 0)
        rc = store_staged_by(k, r->tok_name, &staged, err, sizeof err);
    if (rc == 0 && r->cfg->max_staged > 0 && staged + m.total > (uint64_t)r->cfg->max_staged) {
        /* what waits for a host sits in Redis' memory: one token must not
         * fill it (a full Redis refuses every admission and verdict) */
        uint64_t total = m.total;
        store_manifest_free(&m);
        return api_error(r, 413, "body",
                         "the package unpacks to %" PRIu64 " bytes and token '%s' has %" PRIu64 " bytes of uploads "
                         "waiting for validation: together past max_staged (%ld bytes); wait for them to settle",
                         total, r->tok_name, staged, r->cfg->max_staged);
    }
    if (rc == 0)
        rc = store_stage(k, name, pkg, &m, r->tok_name, id, err, sizeof err);
    store_manifest_free(&m);
    if (rc)
        return store_failure(r, rc, err);
    bool settled;
    struct store_upload u;
    bool there = false;
    rc = store_upload_wait(k, id, UPLOAD_WAIT_MS, &settled, err, sizeof err);
    if (rc == 0)
        rc = store_upload_get(k, id, &u, &there, err, sizeof err);
    if (rc)
        return store_failure(r, rc, err);
    enum MHD_Result ret = there ? upload_answer(r, &u, notes) : api_error(r, 500, NULL, "upload %s vanished", id);
    store_upload_free(&u);
    return ret;
}

enum MHD_Result api_problem_put(struct req *r, const char *name)
{
    if (!queue_valid_name(name))
        return api_error(r, 400, "name", "bad problem name '%s' (1-128 of A-Za-z0-9_.-, not starting with . or -)",
                         name);
    const char *ct = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Content-Type");
    if (!archive_type(ct))
        return api_error(r, 415, "Content-Type", "send the package as application/gzip (tar.gz) or "
                                                 "application/zip, not %s", ct ? ct : "nothing");
    if (!r->len)
        return api_error(r, 400, "body", "empty body: send the package as a tar.gz or zip archive");
    const char *work = r->upload_dir;   /* made when its headers came (server.c) */
    char pkg[4200];
    enum MHD_Result ret;
    char *notes = NULL;
    if (unpack_body(r, name, work, pkg, sizeof pkg, &notes, &ret) == 0) {
        struct queue_conn *k = api_conn_get(r->api);
        ret = stage_and_wait(r, k, name, pkg, work, notes);
        api_conn_put(r->api, k);
    }
    free(notes);
    return ret;   /* work is removed with the request (server.c) */
}

/* ----------------------------------------------------------------- reads */

static int by_name(const void *a, const void *b)
{
    return strcmp(json_string_value(json_object_get(*(json_t *const *)a, "name")),
                  json_string_value(json_object_get(*(json_t *const *)b, "name")));
}

static bool listed(json_t *arr, const char *name)
{
    size_t i;
    json_t *p;
    json_array_foreach(arr, i, p) if (!strcmp(json_string_value(json_object_get(p, "name")), name)) return true;
    return false;
}

/* Is NAME a problem of the hosts' problems directory, as admission sees
 * it (handlers.c): a directory of a valid name? */
static bool directory_problem(const char *dir, const char *name)
{
    char path[4400];
    struct stat st;
    if (!dir || !queue_valid_name(name))
        return false;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The hosts' problems directory (as admission sees it: a directory of a
 * valid name), after the store's, each name once: a submission may name
 * either (issue 28: a read token saw an empty list while these were
 * accepted). Each with the summary a host published (summaries: NAME ->
 * object), null until one has. */
static void add_directory_problems(json_t *arr, const char *dir, json_t *summaries)
{
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *e;
    json_t *found = json_array();
    while (d && (e = readdir(d))) {
        if (directory_problem(dir, e->d_name) && !listed(arr, e->d_name)) {
            json_t *sum = json_object_get(summaries, e->d_name);
            json_array_append_new(found, json_pack("{s:s, s:s, s:n, s:i, s:n, s:O}", "name", e->d_name, "source",
                                                   "directory", "current", "versions", 0, "updated", "summary",
                                                   sum ? sum : json_null()));
        }
    }
    if (d)
        closedir(d);
    /* in name order (readdir's is the file system's) */
    size_t n = json_array_size(found);
    json_t **v = calloc(n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = json_array_get(found, i);
    qsort(v, n, sizeof *v, by_name);
    for (size_t i = 0; i < n; i++)
        json_array_append(arr, v[i]);
    free(v);
    json_decref(found);
}

enum MHD_Result api_problems_list(struct req *r)
{
    struct queue_conn *k = api_conn_get(r->api);
    char **names, err[1024];
    size_t n;
    int rc = store_list(k, &names, &n, err, sizeof err);
    if (rc) {
        api_conn_put(r->api, k);
        return store_failure(r, rc, err);
    }
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        struct store_problem_info p = {0};
        bool found;
        if (rc == 0 && (rc = store_info(k, names[i], &p, &found, err, sizeof err)) == 0 && found)
            json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:I, s:I, s:o}", "name", p.name, "source",
                                                 "store", "current", p.current,
                                                 "versions", (json_int_t)p.nversions, "updated",
                                                 (json_int_t)p.updated, "summary", store_summary_json(p.summary)));
        store_problem_info_free(&p);
        free(names[i]);
    }
    free(names);
    json_t *summaries = NULL;
    if (rc == 0)
        rc = store_directory(k, &summaries, err, sizeof err);
    api_conn_put(r->api, k);
    if (rc) {
        json_decref(summaries);
        json_decref(arr);
        return store_failure(r, rc, err);
    }
    add_directory_problems(arr, r->cfg->problems, summaries);
    json_decref(summaries);
    return api_json(r, 200, json_pack("{s:o}", "problems", arr));
}

/* A problem of the hosts' problems directory as GET /v1/problems/NAME
 * shows it: no versions, the summary a host published (null before). */
static int directory_problem_json(struct queue_conn *k, const char *name, json_t **out, char *err, size_t errlen)
{
    json_t *summaries = NULL;
    int rc = store_directory(k, &summaries, err, errlen);
    if (rc == 0) {
        json_t *sum = json_object_get(summaries, name);
        *out = json_pack("{s:s, s:s, s:n, s:[], s:n, s:O}", "name", name, "source", "directory", "current",
                         "versions", "updated", "summary", sum ? sum : json_null());
    }
    json_decref(summaries);
    return rc;
}

enum MHD_Result api_problem_get(struct req *r, const char *name, bool only_versions)
{
    struct queue_conn *k = api_conn_get(r->api);
    struct store_problem_info p;
    bool found;
    char err[1024];
    int rc = store_info(k, name, &p, &found, err, sizeof err);
    json_t *j = NULL;
    if (rc == 0 && found) {
        j = json_pack("{s:s, s:s, s:s, s:o}", "name", p.name, "source", "store", "current", p.current,
                      "versions", store_versions_json(&p));
        if (!only_versions) {
            json_object_set_new(j, "updated", json_integer(p.updated));
            json_object_set_new(j, "summary", store_summary_json(p.summary));
        }
        /* the files' hashes and sizes only for setters: a hidden answer's
         * SHA-256 lets a read token recover a small answer by guessing */
        if (!only_versions && api_has_role(r, ROLE_SETTER)) {
            struct store_manifest m;
            if ((rc = store_get_manifest(k, p.current, &m, err, sizeof err)) == 0) {
                json_object_set_new(j, "files", store_files_json(&m));
                store_manifest_free(&m);
            }
        }
    }
    store_problem_info_free(&p);
    if (rc == 0 && !found && !only_versions && directory_problem(r->cfg->problems, name))
        rc = directory_problem_json(k, name, &j, err, sizeof err);
    api_conn_put(r->api, k);
    if (rc) {
        json_decref(j);
        return store_failure(r, rc, err);
    }
    if (!j)
        return api_error(r, 404, NULL, "no problem '%s' in the store%s", name,
                         only_versions ? "" : " or the problems directory");
    return api_json(r, 200, j);
}

enum MHD_Result api_problem_delete(struct req *r, const char *name)
{
    const char *v = api_arg(r, "version");
    if (!v || !store_valid_version(v))
        return api_error(r, 400, "version", "?version=V (64 hex digits, one of GET /v1/problems/%s/versions) "
                                            "is required", name);
    struct queue_conn *k = api_conn_get(r->api);
    struct store_problem_info p;
    bool found, listed = false;
    char err[1024];
    int rc = store_info(k, name, &p, &found, err, sizeof err);
    for (size_t i = 0; rc == 0 && found && i < p.nversions; i++)
        listed |= !strcmp(p.versions[i].version, v);
    bool current = rc == 0 && found && !strcmp(p.current, v);
    store_problem_info_free(&p);
    if (rc == 0 && listed && !current)
        rc = store_remove(k, name, v, err, sizeof err);
    api_conn_put(r->api, k);
    if (rc)
        return store_failure(r, rc, err);
    if (!found)
        return api_error(r, 404, NULL, "no problem '%s' in the store", name);
    if (!listed)
        return api_error(r, 404, "version", "'%s' has no version %s", name, v);
    if (current)
        return api_error(r, 409, "version", "%s is the current version of '%s': upload another first", v, name);
    return api_json(r, 200, json_pack("{s:s, s:s}", "name", name, "removed", v));
}

enum MHD_Result api_upload_get(struct req *r, const char *id)
{
    struct queue_conn *k = api_conn_get(r->api);
    struct store_upload u;
    bool found;
    char err[1024];
    int rc = store_upload_get(k, id, &u, &found, err, sizeof err);
    api_conn_put(r->api, k);
    if (rc)
        return store_failure(r, rc, err);
    if (!found)
        return api_error(r, 404, NULL, "no upload %s (unknown, or settled more than 7 days ago)", id);
    json_t *j = upload_json(&u);
    store_upload_free(&u);
    return api_json(r, 200, j);
}
