/*
 * strset.c - a set of strings with a value each, for finding duplicates in
 * linear time (keys of a YAML mapping, test and subtask names).
 *
 * Open addressing over a table kept at most half full. The hash is
 * SipHash-1-3 under a key drawn once per set from getrandom(), so a hostile
 * file cannot choose names that collide and turn the set quadratic again.
 * probes counts the slots looked at: the tests assert on it, the work done,
 * rather than on wall-clock time.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "common.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                 \
    do {                                                                         \
        v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32);                \
        v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                                   \
        v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                                   \
        v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32);                \
    } while (0)

static uint64_t siphash13(const uint64_t key[2], const unsigned char *m, size_t n)
{
    uint64_t v0 = 0x736f6d6570736575ULL ^ key[0], v1 = 0x646f72616e646f6dULL ^ key[1];
    uint64_t v2 = 0x6c7967656e657261ULL ^ key[0], v3 = 0x7465646279746573ULL ^ key[1];
    size_t full = n & ~(size_t)7;
    for (size_t i = 0; i < full; i += 8) {
        uint64_t w;
        memcpy(&w, m + i, 8);
        v3 ^= w;
        SIPROUND;
        v0 ^= w;
    }
    uint64_t last = (uint64_t)n << 56;
    for (size_t i = full; i < n; i++)
        last |= (uint64_t)m[i] << (8 * (i - full));
    v3 ^= last;
    SIPROUND;
    v0 ^= last;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

static int grow(struct common_strset *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64;
    struct common_strset_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->slots[i].key)
            continue;
        size_t j = s->slots[i].hash & (cap - 1);
        while (slots[j].key)
            j = (j + 1) & (cap - 1);
        slots[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return 0;
}

const void *common_strset_put(struct common_strset *s, const char *key, const void *value)
{
    if (!s->keyed) {
        if (getrandom(s->key, sizeof s->key, 0) != sizeof s->key) {
            s->key[0] = (uint64_t)(uintptr_t)s;   /* no entropy: still a valid set */
            s->key[1] = 0x9e3779b97f4a7c15ULL;
        }
        s->keyed = true;
    }
    if ((s->count + 1) * 2 > s->cap && grow(s) < 0)
        return NULL;
    size_t len = strlen(key);
    uint64_t h = siphash13(s->key, (const unsigned char *)key, len);
    for (size_t j = h & (s->cap - 1);; j = (j + 1) & (s->cap - 1)) {
        s->probes++;
        struct common_strset_slot *slot = &s->slots[j];
        if (!slot->key) {
            *slot = (struct common_strset_slot){key, value, h};
            s->count++;
            return NULL;
        }
        if (slot->hash == h && !strcmp(slot->key, key))
            return slot->value;
    }
}

const void *common_strset_get(const struct common_strset *s, const char *key)
{
    if (!s->count)
        return NULL;
    uint64_t h = siphash13(s->key, (const unsigned char *)key, strlen(key));
    for (size_t j = h & (s->cap - 1); s->slots[j].key; j = (j + 1) & (s->cap - 1))
        if (s->slots[j].hash == h && !strcmp(s->slots[j].key, key))
            return s->slots[j].value;
    return NULL;
}

void common_strset_free(struct common_strset *s)
{
    free(s->slots);
    *s = (struct common_strset){0};
}
