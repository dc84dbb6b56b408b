/* cmd_tokens.c - judgectl tokens: the bearer tokens of judge-api. `add`
 * makes a random token, appends its name, roles and SHA-256 to the tokens
 * file (api.tokens; only the hash is stored) and prints the token once;
 * `list` shows names and roles. judge-api reads the file at start and on
 * SIGHUP. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "ctl.h"

static const char *USAGE =
    "usage: judgectl tokens add NAME --role ROLE[,ROLE...] [--config FILE] [--file TOKENS]\n"
    "       judgectl tokens list [--config FILE] [--file TOKENS] [--json]\n\n"
    "add: makes a new bearer token for judge-api, appends NAME, its roles and the\n"
    "token's SHA-256 to the tokens file (the config's api.tokens unless --file) and\n"
    "prints the token once: it is stored nowhere. Roles: submit (create and read its\n"
    "own submissions), read (all results and events), setter, admin (everything),\n"
    "viewer (what the admin's dashboard shows, read only: 403 on every write).\n"
    "judge-api reads the file at start and on SIGHUP.\n";

static int add(struct common *c, const char *file, const char *name, const char *roles)
{
    if (!roles || !api_roles_parse(roles))
        return ctl_usage(c, "--role must be submit, read, setter, admin or viewer (comma-separated)");
    struct api_tokens t;
    char err[1024];
    if (access(file, F_OK) == 0) {
        if (api_tokens_load(&t, file, err, sizeof err))
            return ctl_fail(c, "config", "%s", err);
        for (int i = 0; i < t.n; i++)
            if (!strcmp(t.v[i].name, name)) {
                api_tokens_free(&t);
                return ctl_fail(c, "bad_input", "%s: a token named '%s' exists", file, name);
            }
        api_tokens_free(&t);
    }
    char tok[80], hash[65], line[512];
    if (api_token_new(tok))
        return ctl_fail(c, "internal", "no randomness: %s", strerror(errno));
    api_sha256_hex(tok, strlen(tok), hash);
    int n = snprintf(line, sizeof line, "%s %s %s\n", name, roles, hash);
    int fd = open(file, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0 || write(fd, line, (size_t)n) != n) {
        int rc = ctl_fail(c, "internal", "%s: %s", file, strerror(errno));
        if (fd >= 0)
            close(fd);
        return rc;
    }
    close(fd);
    /* the file must still parse: a bad NAME is refused, and the line removed */
    if (api_tokens_load(&t, file, err, sizeof err)) {
        int rc = ctl_fail(c, "bad_input", "%s", err);
        FILE *f = fopen(file, "r+");
        if (f) {
            fseek(f, 0, SEEK_END);
            if (ftruncate(fileno(f), ftell(f) - n)) {
            }
            fclose(f);
        }
        return rc;
    }
    api_tokens_free(&t);
    printf("%s\n", tok);
    return 0;
}

int cmd_tokens(int argc, char **argv)
{
    struct common c = {0};
    ctl_begin(&c, "tokens", argc, argv);
    const char *file = NULL, *roles = NULL;
    static const struct option opts[] = {
        COMMON_OPTS,
        {"role", required_argument, NULL, 'r'},
        {"file", required_argument, NULL, 'f'},
        {NULL, 0, NULL, 0},
    };
    int o;
    while ((o = ctl_getopt(&c, argc, argv, "hr:f:", opts)) != -1) {
        switch (o) {
        case 'r': roles = optarg; break;
        case 'f': file = optarg; break;
        case 'h': fputs(USAGE, stdout); return 0;
        default: return c.status;
        }
    }
    if (optind >= argc)
        return ctl_usage(&c, "expected add or list");
    const char *sub = argv[optind];
    bool add_ok = !strcmp(sub, "add") && optind + 2 == argc, list_ok = !strcmp(sub, "list") && optind + 1 == argc;
    if (!add_ok && !list_ok)
        return ctl_usage(&c, "expected 'add NAME --role R' or 'list'");
    char err[1024];
    int rc;
    if (!file) {
        if ((rc = load_config(&c)))
            return rc;
        file = c.cfg.api.tokens;
    }
    if (add_ok) {
        rc = add(&c, file, argv[optind + 1], roles);
    } else {
        struct api_tokens t;
        if (api_tokens_load(&t, file, err, sizeof err) == 0) {
            json_t *list = json_array();
            for (int i = 0; i < t.n; i++) {
                json_t *r = json_array();
                for (int b = 0; b < 5; b++)
                    if (t.v[i].roles & (1u << b))
                        json_array_append_new(r, json_string(API_ROLE_NAMES[b]));
                json_array_append_new(list, json_pack("{s:s, s:o}", "name", t.v[i].name, "roles", r));
            }
            if (c.json)
                print_json(list);
            else
                for (int i = 0; i < t.n; i++)
                    printf("%s\n", t.v[i].name);
            json_decref(list);
            api_tokens_free(&t);
            rc = 0;
        } else {
            rc = ctl_fail(&c, access(file, F_OK) ? "not_found" : "config", "%s", err);
        }
    }
    teardown(&c);
    return rc;
}
