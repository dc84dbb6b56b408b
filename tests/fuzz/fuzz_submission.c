/*
 * fuzz_submission.c - libFuzzer target: the body of POST /v1/submissions,
 * as judge-api parses and checks it (api_submission_parse, handlers.c).
 *
 * The body is the one input of the HTTP front door that reaches Redis: a
 * platform, or anyone holding a submit token, chooses every byte of it.
 * Once per process a small world is made in a temporary directory: a
 * configuration with max_source 4 KiB, a pool serving c and python3 (only
 * c has its language file), the problem "aplusb" on disk and "stored" in a
 * pretend store. Then each input must either be refused with a field and a
 * message, or give an admission whose every part holds what admission
 * promises (several files: packed so that they unpack unchanged). Run with ASan + UBSan; see README.md "Fuzzing".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "common.h"
#include "fileset.h"
#include "world.h"

static struct jd_config cfg;
static bool ready;

static void make_world(void)
{
    char path[256], yaml[1024];
    world_make("submission");
    snprintf(yaml, sizeof yaml,
             "redis: unix:///nonexistent.sock\nstate_dir: %s/state\nproblems: %s/problems\n"
             "languages: %s/languages\nmax_source: 4K\n"
             "pools:\n  native: {languages: [c, python3], slots: 1, max_queue: 5}\n",
             world, world, world);
    world_put("judged.yaml", yaml);
    snprintf(path, sizeof path, "%s/judged.yaml", world);
    char err[512];
    if (jd_config_load(&cfg, path, err, sizeof err)) {
        fprintf(stderr, "fuzz_submission: %s\n", err);
        abort();
    }
    ready = true;
}

static bool in_store(void *arg, const char *name)
{
    (void)arg;
    return !strcmp(name, "stored");
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (!ready)
        make_world();
    struct api_submission s;
    char field[256], msg[512];
    field[0] = msg[0] = 0;
    int rc = api_submission_parse(&s, (const char *)data, size, &cfg, in_store, NULL, field,
                                  sizeof field, msg, sizeof msg);
    if (rc) {
        /* every refusal names its field and says why, in UTF-8 (or the
         * error document cannot be built, and the client gets no answer) */
        json_t *f = json_string(field), *m = json_string(msg);
        if (!field[0] || !msg[0] || !f || !m)
            abort();
        json_decref(f);
        json_decref(m);
    } else {
        /* what admission relies on */
        if (!s.pool || strcmp(s.pool->name, "native") || strcmp(s.language, "c"))
            abort();
        if (strcmp(s.problem, "aplusb") && strcmp(s.problem, "stored"))
            abort();
        if (!s.source || s.source_len == 0 || (long)s.source_len > cfg.max_source)
            abort();
        if (strcmp(s.priority, "normal") && strcmp(s.priority, "contest"))
            abort();
        if (s.callback && strncmp(s.callback, "http://", 7) && strncmp(s.callback, "https://", 8))
            abort();
        if (s.metadata && strlen(s.metadata) > 4096)
            abort();
        /* the names and the URL are what the body says, not a prefix of it
         * cut at a NUL (only the source may hold NULs) */
        const char *names[] = {"problem", "language", "priority", "callback_url"};
        for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
            json_t *v = json_object_get(s.json, names[i]);
            if (v && strlen(json_string_value(v)) != json_string_length(v))
                abort();
        }
        /* files: packed so that the runner reads back every one of them,
         * byte for byte; a one-file source never reads as a set */
        json_t *files = json_object_get(s.json, "files");
        if (files != NULL) {
            struct fileset fs;
            char why[300];
            if (fileset_unpack(s.source, s.source_len, &fs, why, sizeof why) < 0 ||
                fs.count != json_array_size(files))
                abort();
            for (size_t i = 0; i < fs.count; i++) {
                json_t *f = json_array_get(files, i), *c = json_object_get(f, "content");
                if (strcmp(fs.files[i].name, json_string_value(json_object_get(f, "name"))) ||
                    fs.files[i].len != json_string_length(c) || memcmp(fs.files[i].data, json_string_value(c),
                                                                        fs.files[i].len))
                    abort();
            }
            fileset_free(&fs);
        } else if (fileset_is(s.source, s.source_len)) {
            abort();
        }
    }
    api_submission_free(&s);
    return 0;
}
