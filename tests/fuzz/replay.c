/*
 * replay.c - runs a fuzz target's inputs once, without libFuzzer.
 *
 * Linked with a fuzz_*.c target in the ordinary (gcc) builds, so the seed
 * corpus and every input that once crashed (regressions/) are replayed by
 * the unit tests, under ASan + UBSan in .ci/run's sanitizer build too.
 * Arguments: files or directories of inputs.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, len = 0, n;
    unsigned char *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0)
        if ((len += n) == cap)
            buf = realloc(buf, cap *= 2);
    fclose(f);
    if (!buf)
        return -1;
    /* an exact-size copy, so ASan sees a read past the input's end */
    unsigned char *data = malloc(len ? len : 1);
    memcpy(data, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

static int run_path(const char *path, int *count)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return (*count)++, run_file(path);
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort), rc = n < 0 ? -1 : 0;
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.') {
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
            rc |= run_path(sub, count);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    int rc = 0, count = 0;
    for (int i = 1; i < argc; i++)
        rc |= run_path(argv[i], &count);
    printf("replayed %d inputs\n", count);
    return rc ? 1 : 0;
}
