/*
 * fuzz_config.c - libFuzzer target: judged's configuration file.
 *
 * jd_config_load reads a path, so the input is written to a memfd and
 * loaded through /proc/self/fd/N: no file on disk per input, and judged/
 * is fuzzed through its public entry point only. Run with ASan + UBSan;
 * see README.md "Fuzzing".
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"

static int fd = -1;
static char path[64];

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (fd < 0) {
        fd = memfd_create("fuzz-config", MFD_CLOEXEC);
        if (fd < 0)
            abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    struct jd_config cfg;
    char err[512];
    if (jd_config_load(&cfg, path, err, sizeof err) == 0) {
        for (int i = 0; i < cfg.npools; i++)
            for (int j = 0; j < cfg.pools[i].nlanguages; j++)
                if (jd_pool_for_language(&cfg, cfg.pools[i].languages[j]) == NULL)
                    abort();
    }
    jd_config_free(&cfg);
    return 0;
}
