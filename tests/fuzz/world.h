/* world.h - the small world the judge-api fuzz targets (fuzz_submission,
 * fuzz_http) judge in: a private temporary directory holding the problem
 * problems/aplusb and the language file languages/c.yaml, plus what a
 * target puts there itself (judged.yaml, tokens); all of it removed at
 * exit. Included by one .c each: its functions are static. */
#ifndef JUDGED_FUZZ_WORLD_H
#define JUDGED_FUZZ_WORLD_H

#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "store.h"

static char world[64];

static void world_remove(void)
{
    store_remove_tree(world);
}

/* world/rel holding text; aborts when it cannot be written */
static void world_put(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", world, rel);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f))
        abort();
}

/* /tmp/fuzz-NAME-XXXXXX with problems/aplusb and languages/c.yaml */
static void world_make(const char *name)
{
    char path[256];
    snprintf(world, sizeof world, "/tmp/fuzz-%s-XXXXXX", name);
    if (!mkdtemp(world))
        abort();
    atexit(world_remove);
    snprintf(path, sizeof path, "%s/problems/aplusb", world);
    if (common_mkdir_p(path, 0700))
        abort();
    snprintf(path, sizeof path, "%s/languages", world);
    if (common_mkdir_p(path, 0700))
        abort();
    world_put("languages/c.yaml", "id: c\n");
}

#endif
