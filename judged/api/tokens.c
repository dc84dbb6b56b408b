/* tokens.c - the tokens file of judge-api: names, roles and SHA-256 hashes
 * of bearer tokens (the tokens themselves are never stored: a leaked file
 * grants nothing), and making new tokens for `judgectl tokens add`. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/sha.h>

#include "api.h"

void api_sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char h[SHA256_DIGEST_LENGTH];
    SHA256(data, len, h);
    for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
        sprintf(out + 2 * i, "%02x", h[i]);
}

int api_token_new(char out[80])
{
    unsigned char r[32];   /* 256 random bits */
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
        return -1;
    int n = sprintf(out, "jdt_");
    for (size_t i = 0; i < sizeof r; i++)
        n += sprintf(out + n, "%02x", r[i]);
    return 0;
}

/* bit b of a role set is API_ROLE_NAMES[b] (ROLE_SUBMIT is 1 << 0, ...) */
const char *const API_ROLE_NAMES[5] = {"submit", "read", "setter", "admin", "viewer"};

unsigned api_roles_parse(const char *s)
{
    unsigned roles = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        unsigned b = 0;
        while (b < 5 && strcmp(t, API_ROLE_NAMES[b]))
            b++;
        if (b == 5)
            return 0;
        roles |= 1u << b;
    }
    return roles;
}

static bool valid_token_name(const char *s)
{
    if (!*s || strlen(s) > 64)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("_.-@", *s))
            return false;
    return true;
}

static int hex_decode(const char *s, unsigned char out[32])
{
    if (strlen(s) != 64)
        return -1;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (!isxdigit((unsigned char)s[2 * i]) || !isxdigit((unsigned char)s[2 * i + 1]) ||
            sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (unsigned char)v;
    }
    return 0;
}

int api_tokens_load(struct api_tokens *t, const char *path, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    char line[1024];
    int lineno = 0, cap = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *h = strchr(line, '#');
        if (h)
            *h = '\0';
        char name[128], roles[256], hash[128], extra[8];
        int n = sscanf(line, "%127s %255s %127s %7s", name, roles, hash, extra);
        if (n <= 0)
            continue;
        const char *why = n != 3                      ? "expected NAME ROLE[,ROLE] SHA256HEX"
                          : !valid_token_name(name)   ? "bad name (1-64 of A-Za-z0-9_.-@)"
                          : !api_roles_parse(roles)   ? "unknown role (submit, read, setter, admin, viewer)"
                                                      : NULL;
        struct api_token tok = {.roles = api_roles_parse(roles)};
        if (!why && hex_decode(hash, tok.hash))
            why = "the hash must be 64 hex digits (SHA-256 of the token)";
        for (int i = 0; !why && i < t->n; i++)
            if (!strcmp(t->v[i].name, name))
                why = "name defined twice";
        if (why) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
            fclose(f);
            api_tokens_free(t);
            return -1;
        }
        snprintf(tok.name, sizeof tok.name, "%.64s", name);
        if (t->n == cap) {
            cap = cap ? 2 * cap : 8;
            t->v = realloc(t->v, (size_t)cap * sizeof *t->v);
        }
        t->v[t->n++] = tok;
    }
    fclose(f);
    return 0;
}

void api_tokens_free(struct api_tokens *t)
{
    free(t->v);
    memset(t, 0, sizeof *t);
}
