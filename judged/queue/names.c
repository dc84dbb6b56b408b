/*
 * names.c - the names of the queue library: valid pool and id names, a pool's key
 * names (judge:{POOL}:SUFFIX) and the pool of a submission id (queue.h,
 * "names").
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "queue.h"
#include "queue_internal.h"

/* ------------------------------------------------------------- names */

bool queue_valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 128 || s[0] == '.' || s[0] == '-')
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-')
            return false;
    return true;
}

void queue_key(char *buf, size_t len, const char *pool, const char *suffix)
{
    snprintf(buf, len, "judge:{%s}:%s", pool, suffix);
}

void queue_submission_key(char *buf, size_t len, const char *pool, const char *id)
{
    char suffix[300];
    snprintf(suffix, sizeof suffix, SUFFIX_SUB "%s", id);
    queue_key(buf, len, pool, suffix);
}

void queue_result_key(char *buf, size_t len, const char *pool, const char *id)
{
    char suffix[300];
    snprintf(suffix, sizeof suffix, SUFFIX_RES "%s", id);
    queue_key(buf, len, pool, suffix);
}

bool queue_id_pool(const char *id, char *pool, size_t len)
{
    if (strchr(id, '{') || strchr(id, '}') || strchr(id, ':'))
        return false;
    const char *dash = strrchr(id, '-');
    if (!dash || dash == id)
        return false;
    /* ids are POOL-TIME-SEQ: the pool is everything before the second-to-last dash */
    const char *p = dash - 1;
    while (p > id && *p != '-')
        p--;
    if (p == id || (size_t)(p - id) >= len)
        return false;
    memcpy(pool, id, (size_t)(p - id));
    pool[p - id] = 0;
    return true;
}

const char *queue_name(int queue)
{
    return queue == QUEUE_CONTEST ? "contest" : "normal";
}
