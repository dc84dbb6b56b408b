/*
 * fuzz_fileset.c - libFuzzer target: a submission of several files as the
 * runner reads it (fileset_unpack: any FCALL client chooses every byte)
 * and an archive as judgectl reads it (fileset_from_archive). Either is
 * refused with a reason, or every file it gives has a name that passes
 * the check and content within the bounds; a set read is packed and read
 * back unchanged. Run with ASan + UBSan; see README.md "Fuzzing".
 */
#include <stdlib.h>
#include <string.h>

#include "fileset.h"

static void check(const struct fileset *fs, size_t max)
{
    char why[300];
    size_t total = 0;
    if (fs->count == 0 || fs->count > FILESET_MAX_FILES)
        abort();
    for (size_t i = 0; i < fs->count; i++) {
        if (fileset_name_check(fs->files[i].name, why, sizeof why) < 0)
            abort();
        total += fs->files[i].len;
    }
    if (total > max)
        abort();
    char *packed;
    size_t len;
    struct fileset back;
    if (fileset_pack(fs, &packed, &len, why, sizeof why) < 0 || fileset_unpack(packed, len, &back, why,
                                                                                 sizeof why) < 0)
        abort();
    if (back.count != fs->count)
        abort();
    for (size_t i = 0; i < fs->count; i++)
        if (strcmp(back.files[i].name, fs->files[i].name) || back.files[i].len != fs->files[i].len ||
            memcmp(back.files[i].data, fs->files[i].data, fs->files[i].len))
            abort();
    fileset_free(&back);
    free(packed);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    struct fileset fs;
    char why[300];
    if (fileset_unpack((const char *)data, size, &fs, why, sizeof why) == 0) {
        check(&fs, size);
        fileset_free(&fs);
    } else if (!why[0]) {
        abort();
    }
    if (fileset_from_archive((const char *)data, size, 1 << 20, &fs, why, sizeof why) == 0) {
        check(&fs, 1 << 20);
        fileset_free(&fs);
    } else if (!why[0]) {
        abort();
    }
    return 0;
}
