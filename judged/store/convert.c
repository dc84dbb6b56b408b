/*
 * convert.c - the package formats push understands besides the runner's
 * own, in one table: how each is recognised by its layout and what turns
 * it, in place, into a runner package (problem.yaml in runner/README.md's
 * format, the original files kept). push (judgectl and judge-api), `problem
 * check` and `judge --problem DIR` all come here, so a package is judged
 * the same whichever way it arrives. Formats are tried in order; the first
 * whose layout matches converts.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "cms.h"
#include "convert.h"
#include "store.h"

/* Formats whose conversion runs none of the package's programs. */
static int polygon_no_tools(const char *dir, const char *name, const struct store_tools *tools, char **errors)
{
    (void)tools;
    return polygon_convert(dir, name, errors);
}

static int icpc_no_tools(const char *dir, const char *name, const struct store_tools *tools, char **errors)
{
    (void)tools;
    return icpc_convert(dir, name, errors);
}

static const struct package_format {
    const char *name;
    bool (*detect)(const char *dir);
    int (*convert)(const char *dir, const char *name, const struct store_tools *tools, char **errors);
} formats[] = {
    {"cms", cms_detect, cms_convert},
    {"polygon", polygon_detect, polygon_no_tools},
    {"icpc", icpc_detect, icpc_no_tools},
};

/* The first words of every converter's problem.yaml (icpc.c: "# converted
 * from the ICPC/Kattis package format on push", polygon.c: "# converted from
 * a Polygon package", cms_write.c: "# converted from a CMS task package"). */
#define CONVERTED_MARK "# converted from "

bool store_converted(const char *dir)
{
    char path[4400], line[128] = "";
    snprintf(path, sizeof path, "%s/problem.yaml", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    bool marked = fgets(line, sizeof line, f) && !strncmp(line, CONVERTED_MARK, strlen(CONVERTED_MARK));
    fclose(f);
    return marked;
}

/* A package converted before (what `problem show --converted --to DIR`
 * writes) is the runner's own now: converting it again would read its
 * problem.yaml as the other judge's. */
static const struct package_format *format_of(const char *dir)
{
    if (store_converted(dir))
        return NULL;
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
        if (formats[i].detect(dir))
            return &formats[i];
    return NULL;
}

const char *store_package_format(const char *dir)
{
    const struct package_format *f = format_of(dir);
    return f ? f->name : NULL;
}

int store_convert_tools(const char *dir, const char *name, const struct store_tools *tools, char **errors)
{
    const struct package_format *f = format_of(dir);
    *errors = NULL;
    return f ? f->convert(dir, name, tools, errors) : 0;
}

int store_convert(const char *dir, const char *name, char **errors)
{
    return store_convert_tools(dir, name, NULL, errors);
}

void conv_line(struct conv_errs *e, const char *line)
{
    size_t n = strlen(line);
    char *grown = realloc(e->buf, e->len + n + 2);
    if (!grown) {   /* keep what was said; the count still says it failed */
        e->n++;
        return;
    }
    e->buf = grown;
    memcpy(e->buf + e->len, line, n);
    e->len += n;
    e->buf[e->len++] = '\n';
    e->buf[e->len] = 0;
    e->n++;
}

static void conv_vline(struct conv_errs *e, const char *fmt, va_list ap)
{
    char line[2048];
    vsnprintf(line, sizeof line, fmt, ap);
    conv_line(e, line);
}

void conv_err(struct conv_errs *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    conv_vline(e, fmt, ap);
    va_end(ap);
}

void conv_warn(struct conv_errs *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    conv_vline(e, fmt, ap);
    va_end(ap);
    e->n--;
}

/* The code point of the UTF-8 sequence of len bytes at s. */
static unsigned code_point(const unsigned char *s, size_t len)
{
    static const unsigned lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
    unsigned c = s[0] & lead_mask[len];
    for (size_t i = 1; i < len; i++)
        c = c << 6 | (s[i] & 0x3f);
    return c;
}

/* YAML 1.1's printable set, less what a double-quoted scalar would fold
 * (NEL, LINE and PARAGRAPH SEPARATOR are line breaks there). */
static bool yaml_plain(unsigned c)
{
    return (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff && c != 0x2028 && c != 0x2029) ||
           (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

void conv_yaml_string(FILE *out, const char *s)
{
    fputc('"', out);
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        size_t len = common_utf8_len(s + i, n - i);
        unsigned c = len ? code_point((const unsigned char *)s + i, len) : 0xfffd;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", (char)c);
        else if (len && yaml_plain(c))
            fwrite(s + i, 1, len, out);
        else if (c == '\t' || c == '\n')
            fputs(c == '\t' ? "\\t" : "\\n", out);
        else
            fprintf(out, c < 0x100 ? "\\x%02X" : "\\u%04X", c);
        i += len ? len : 1;
    }
    fputc('"', out);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **conv_sorted_names(const char *path, size_t *count)
{
    *count = 0;
    DIR *d = opendir(path);
    if (!d)
        return NULL;
    char **names = NULL;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.') {
            char **grown = realloc(names, (*count + 1) * sizeof *names);
            if (!grown)
                break;
            names = grown;
            names[(*count)++] = strdup(de->d_name);
        }
    closedir(d);
    if (names)
        qsort(names, *count, sizeof *names, cmp_names);
    return names;
}

void conv_free_names(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}
