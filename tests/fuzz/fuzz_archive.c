/*
 * fuzz_archive.c - libFuzzer target: a package archive as a hostile setter
 * (or anyone holding a setter token) uploads it to judge-api, which
 * unpacks it as root.
 *
 * The input is the archive's bytes (tar, tar.gz/bz2/xz, zip: store_unpack
 * reads any of them by content). After each unpack, whether it succeeded
 * or not, the target checks what must hold for hostile input: nothing was
 * written beside the output directory, the output holds only regular files
 * and directories (no link, FIFO or device), at most MAX_BYTES of file
 * data (a bomb is cut off) and no path more than STORE_MAX_DEPTH + 1
 * levels deep (the one more: a top-level directory that is not dropped
 * because something sits beside it). Any violation aborts. Seeds include
 * gzip inside gzip and a tree 70 levels deep. Run with ASan + UBSan;
 * see README.md "Fuzzing".
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store.h"

#define MAX_BYTES (1 << 20)

static char dir[] = "/tmp/fuzz-archive-XXXXXX";

static void remove_dir(void)
{
    store_remove_tree(dir);
}

/* Only regular files and directories under path; returns the bytes. */
static uint64_t check_tree(const char *path, int depth)
{
    DIR *d = opendir(path);
    if (!d)
        abort();
    uint64_t total = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        struct stat st;
        if (lstat(p, &st))
            abort();
        if (depth > STORE_MAX_DEPTH)
            abort();   /* deeper than any reader of the package goes */
        if (S_ISDIR(st.st_mode))
            total += check_tree(p, depth + 1);
        else if (S_ISREG(st.st_mode))
            total += (uint64_t)st.st_size;
        else
            abort();   /* a link, FIFO, socket or device got out of an archive */
    }
    closedir(d);
    return total;
}

/* The private directory holds exactly "in" (and "out" after a success). */
static void check_nothing_beside(bool out_may_exist)
{
    DIR *d = opendir(dir);
    if (!d)
        abort();
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "in") &&
            !(out_may_exist && !strcmp(e->d_name, "out")))
            abort();   /* written outside the output directory */
    closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* made once (a flag, not the template's look: mkdtemp's random name
     * itself ends in 'X' one time in 62) */
    static bool made;
    if (!made) {
        if (!mkdtemp(dir))
            abort();
        made = true;
        atexit(remove_dir);
    }
    char in[64], out[64], err[2048];
    snprintf(in, sizeof in, "%s/in", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    FILE *f = fopen(in, "wb");
    if (!f || fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    int rc = store_unpack(in, out, MAX_BYTES, err, sizeof err);
    struct stat st;
    if (rc && lstat(out, &st) == 0)
        abort();   /* a failed unpack leaves nothing */
    check_nothing_beside(rc == 0);
    if (rc == 0 && check_tree(out, 0) > MAX_BYTES)
        abort();
    store_remove_tree(out);
    unlink(in);
    return 0;
}
