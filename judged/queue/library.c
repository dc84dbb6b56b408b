/*
 * library.c - the Functions libraries: judged.lua embedded, each library
 * loaded and its version checked by one rule (queue.h, "library"), the
 * results moved by an upgrade from before version 13, a call of another
 * library (the store's) and the pools' consumer groups.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

/* ------------------------------------------------------------- library */

const struct queue_library queue_judged_library = {
    .lua = queue_library_lua,
    .version = &queue_library_version,
    .file = "judged.lua",
    .title = "the judged function library",
    .version_fn = "judged_version",
};

/* The loaded version of lib (0: none); QUEUE_OK, or a refusal in err. */
static enum queue_rc loaded_version(struct queue_conn *k, const struct queue_library *lib, long long *have,
                                    char *err, size_t errlen)
{
    redisReply *r = queue_cmd(k, "FCALL %s 0", lib->version_fn);
    if (!r) {
        snprintf(err, errlen, "redis: %s", k->err);
        return QUEUE_IO;
    }
    if (r->type == REDIS_REPLY_ERROR && !queue_is_missing_library(r)) {
        /* NOAUTH, WRONGPASS, NOPERM: say so, not "cannot load the library" */
        snprintf(err, errlen, "redis: %s%s", r->str,
                 strstr(r->str, "NOAUTH") ? " (give the password in the redis URL, in "
                                            "redis_password_file or in $JUDGED_REDIS_PASSWORD)" : "");
        freeReplyObject(r);
        return QUEUE_ERROR;
    }
    *have = r->type == REDIS_REPLY_INTEGER ? r->integer : 0;
    freeReplyObject(r);
    return QUEUE_OK;
}

/* The one loader of both Functions libraries (judged.lua here, store.lua in
 * the store): the same version check and refusal for each, so a host can
 * never load one library by a rule the other does not follow. */
enum queue_rc queue_library_load(struct queue_conn *k, const struct queue_library *lib, char *err, size_t errlen)
{
    int version = *lib->version;
    long long have = 0;
    enum queue_rc rc = loaded_version(k, lib, &have, err, errlen);
    if (rc || have == version)
        return rc;
    if (have > version) {
        snprintf(err, errlen, "redis holds version %lld of %s, this program speaks version %d: upgrade it",
                 have, lib->title, version);
        return QUEUE_ERROR;
    }
    redisReply *r = queue_cmd(k, "FUNCTION LOAD REPLACE %s", lib->lua);
    if (!r) {
        snprintf(err, errlen, "FUNCTION LOAD: redis: %s", k->err);
        return QUEUE_IO;
    }
    rc = r->type == REDIS_REPLY_ERROR ? QUEUE_ERROR : QUEUE_OK;
    if (rc)
        snprintf(err, errlen, "FUNCTION LOAD of %s (needs Redis >= 7.0): %s", lib->file, r->str);
    freeReplyObject(r);
    return rc;
}

/* Library version 13 moved results out of the submission hashes into
 * judge:{P}:res:ID (issue 25). Loaded over an older version, the results
 * of submissions finished before are moved too, one FCALL per submission
 * (judged_migrate_result: idempotent, so two hosts upgrading at once do no
 * harm). Once: a host that loses Redis in the middle leaves the rest
 * unmoved (they read as not judged; DESIGN.md says how to finish it). */
#define RESULTS_KEY_SINCE 13
static enum queue_rc results_migrate(struct queue_conn *k, char *err, size_t errlen)
{
    char cursor[64] = "0";
    do {
        redisReply *r = queue_cmd(k, "SCAN %s MATCH judge:{*}:" SUFFIX_SUB "* COUNT 1000", cursor);
        enum queue_rc rc = queue_check(k, r, REDIS_REPLY_ARRAY, "SCAN", err, errlen);
        if (rc)
            return rc;
        if (r->elements != 2 || !queue_rstr(r->element[0]) || r->element[1]->type != REDIS_REPLY_ARRAY) {
            snprintf(err, errlen, "SCAN: unexpected reply");
            freeReplyObject(r);
            return QUEUE_ERROR;
        }
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        for (size_t i = 0; i < r->element[1]->elements; i++) {
            const char *key = queue_rstr(r->element[1]->element[i]);
            const char *close = key ? strstr(key, "}:" SUFFIX_SUB) : NULL;
            if (!close || strncmp(key, "judge:{", 7))
                continue;
            char pool[160], qkey[400];
            snprintf(pool, sizeof pool, "%.*s", (int)(close - key - 7), key + 7);
            queue_key(qkey, sizeof qkey, pool, SUFFIX_QUEUE(QUEUE_NORMAL));
            const char *argv[] = {"FCALL", "judged_migrate_result", "1", qkey, "pool", pool, "id",
                                  close + 2 + strlen(SUFFIX_SUB)};
            redisReply *m = queue_cmdv(k, 8, argv, NULL);
            rc = queue_check(k, m, -1, "judged_migrate_result", err, errlen);
            if (rc == QUEUE_IO) {
                freeReplyObject(r);
                return rc;
            }
            /* an error reply (a key of no valid pool name, which the
             * platform's user could write) skips that key: it must not
             * stop a host from starting */
            if (rc == QUEUE_OK)
                freeReplyObject(m);
        }
        freeReplyObject(r);
    } while (strcmp(cursor, "0"));
    return QUEUE_OK;
}

enum queue_rc queue_library_ensure(struct queue_conn *k, char *err, size_t errlen)
{
    long long have = 0;
    enum queue_rc rc = loaded_version(k, &queue_judged_library, &have, err, errlen);
    if (rc == QUEUE_OK)
        rc = queue_library_load(k, &queue_judged_library, err, errlen);
    if (rc == QUEUE_OK && have > 0 && have < RESULTS_KEY_SINCE)
        rc = results_migrate(k, err, errlen);
    return rc;
}

redisReply *queue_fcall(struct queue_conn *k, const struct queue_library *lib, int argc, const char **argv,
                        const size_t *lens, char *err, size_t errlen)
{
    bool known = lib == &queue_judged_library;
    for (int i = 0; i < k->nlibs; i++)
        known |= k->libs[i] == lib;
    if (!known && k->nlibs < (int)(sizeof k->libs / sizeof k->libs[0]))
        k->libs[k->nlibs++] = lib;   /* checked again on a new primary (conn.c) */
    redisReply *r = queue_cmdv(k, argc, argv, lens);
    if (queue_is_missing_library(r)) {
        freeReplyObject(r);
        if (queue_library_load(k, lib, err, errlen))
            return NULL;
        r = queue_cmdv(k, argc, argv, lens);
    }
    if (!r)
        snprintf(err, errlen, "redis: %s", k->err);
    return r;
}

enum queue_rc queue_ensure_groups(struct queue_conn *k, const char *pool, char *err, size_t errlen)
{
    for (int i = 0; i < 2; i++) {
        char key[200];
        queue_key(key, sizeof key, pool, SUFFIX_QUEUE(i));
        redisReply *r = queue_cmd(k, "XGROUP CREATE %s %s 0 MKSTREAM", key, QUEUE_GROUP);
        if (!r) {
            snprintf(err, errlen, "XGROUP CREATE: redis: %s", k->err);
            return QUEUE_IO;
        }
        bool ok = r->type != REDIS_REPLY_ERROR || strstr(r->str, "BUSYGROUP");
        if (!ok)
            snprintf(err, errlen, "XGROUP CREATE %s: %s", key, r->str);
        freeReplyObject(r);
        if (!ok)
            return QUEUE_ERROR;
    }
    return QUEUE_OK;
}
