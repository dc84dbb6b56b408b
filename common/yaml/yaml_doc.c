/*
 * yaml_doc.c - YAML loading, typed getters with line marks, size and duration
 * strings: the one reader of the runner, judged.yaml and the store's
 * package conversion (yaml_doc.h).
 *
 * libyaml's document API keeps a start mark (0-based line) on every node, so
 * each error can name the exact line of the offending value. Sizes use binary
 * units (k, M, G, optional trailing B/iB); durations accept s, ms, or a bare
 * number of seconds (common_parse_size, common_parse_seconds).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "yaml_doc.h"

static const struct ydoc_how runner_words = {.syntax_key = "syntax", .empty_ok = false};

/* The parser is set up with its input; load it and check what a document
 * must be before any reader looks at it. */
static int load(struct ydoc *y, yaml_parser_t *parser, const struct ydoc_how *how)
{
    int ok = yaml_parser_load(parser, &y->doc);
    if (!ok) {
        char why[COMMON_QUOTE_CAP];
        const char *p = parser->problem ? parser->problem : "invalid YAML";
        size_t line = parser->problem_mark.line + 1;
        if (how->syntax_key)
            common_errors_add(y->errs, "%s:%zu: %s: %s", y->file, line, how->syntax_key, YQ(why, p));
        else
            common_errors_add(y->errs, "%s:%zu: %s", y->file, line, YQ(why, p));
    }
    yaml_parser_delete(parser);
    if (!ok)
        return -1;
    y->loaded = true;
    y->budget = 16 * (size_t)(y->doc.nodes.top - y->doc.nodes.start) + 4096;
    if (!ydoc_root(y) && !how->empty_ok) {
        common_errors_add(y->errs, "%s:1: document: the file is empty", y->file);
        return -1;
    }
    return 0;
}

int ydoc_parse_how(struct ydoc *y, const char *text, size_t len, const char *display,
                   const struct ydoc_how *how, struct common_errors *errs)
{
    *y = (struct ydoc){.file = display, .errs = errs};
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    return load(y, &parser, how);
}

int ydoc_parse(struct ydoc *y, const char *text, size_t len, const char *display,
               struct common_errors *errs)
{
    return ydoc_parse_how(y, text, len, display, &runner_words, errs);
}

int ydoc_read(struct ydoc *y, FILE *f, const char *display, const struct ydoc_how *how,
              struct common_errors *errs)
{
    *y = (struct ydoc){.file = display, .errs = errs};
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    return load(y, &parser, how);
}

void ydoc_free(struct ydoc *y)
{
    if (y->loaded)
        yaml_document_delete(&y->doc);
    y->loaded = false;
}

yaml_node_t *ydoc_root(struct ydoc *y)
{
    return y->loaded ? yaml_document_get_root_node(&y->doc) : NULL;
}

yaml_node_t *ydoc_node(struct ydoc *y, int index)
{
    if (y->visits++ == y->budget)
        common_errors_add(y->errs, "%s:1: document: aliases make it too large to read "
                      "(more than %zu node visits)", y->file, y->budget);
    if (y->visits > y->budget)
        return NULL;
    return yaml_document_get_node(&y->doc, index);
}

int ydoc_line(const yaml_node_t *n)
{
    return n ? (int)n->start_mark.line + 1 : 0;
}

void ydoc_error(struct ydoc *y, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    /* key may be a scalar of the file; msg quotes scalars already, bounded */
    char k[COMMON_QUOTE_CAP], m[1024];
    common_quote(k, sizeof k, key, strlen(key));
    common_quote(m, sizeof m, msg ? msg : "?", msg ? strlen(msg) : 1);
    common_errors_add(y->errs, "%s:%d: %s: %s", y->file, ydoc_line(n), k, m);
    free(msg);
}

const yaml_node_t *ydoc_keys_twice(struct ydoc_keys *seen, const yaml_node_t *k)
{
    if (!k || k->type != YAML_SCALAR_NODE)
        return NULL;
    return common_strset_put(&seen->set, (const char *)k->data.scalar.value, k);
}

void ydoc_keys_free(struct ydoc *y, struct ydoc_keys *seen)
{
    if (y)
        y->key_probes += seen->set.probes;
    common_strset_free(&seen->set);
}

/* libyaml accepts a key given twice (the last wins): report it instead. A
 * hash set keeps this linear in the number of keys. */
static void duplicate_keys(struct ydoc *y, yaml_node_t *map)
{
    struct ydoc_keys seen = {0};
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = ydoc_node(y, p->key);
        const yaml_node_t *earlier = ydoc_keys_twice(&seen, k);
        if (earlier)
            ydoc_error(y, k, (const char *)k->data.scalar.value, "given twice (also on line %d)",
                       ydoc_line(earlier));
    }
    ydoc_keys_free(y, &seen);
}

int ydoc_mapping(struct ydoc *y, yaml_node_t *n, const char *key)
{
    if (n && n->type == YAML_MAPPING_NODE) {
        duplicate_keys(y, n);   /* recorded; the loaders fail on any error */
        return 0;
    }
    ydoc_error(y, n, key, "expected a mapping");
    return -1;
}

const char *ydoc_scalar(struct ydoc *y, yaml_node_t *n, const char *key)
{
    if (n && n->type == YAML_SCALAR_NODE)
        return (const char *)n->data.scalar.value;
    ydoc_error(y, n, key, "expected a single value, not a %s",
               n && n->type == YAML_SEQUENCE_NODE ? "list" : "mapping");
    return NULL;
}

int ydoc_string(struct ydoc *y, yaml_node_t *n, const char *key, char **out)
{
    const char *s = ydoc_scalar(y, n, key);
    if (!s)
        return -1;
    if (!*s) {
        ydoc_error(y, n, key, "must not be empty");
        return -1;
    }
    free(*out);
    *out = strdup(s);
    return 0;
}

int ydoc_size(struct ydoc *y, yaml_node_t *n, const char *key, uint64_t *out)
{
    const char *s = ydoc_scalar(y, n, key);
    if (!s)
        return -1;
    if (common_parse_size(s, out) == 0)
        return 0;
    char q[COMMON_QUOTE_CAP];
    ydoc_error(y, n, key, "bad size '%s' (expected e.g. 256M, 64k, 1G or bytes)", YQ(q, s));
    return -1;
}

int ydoc_duration(struct ydoc *y, yaml_node_t *n, const char *key, double *out)
{
    const char *s = ydoc_scalar(y, n, key);
    if (!s)
        return -1;
    if (common_parse_seconds(s, false, out) == 0)
        return 0;
    char q[COMMON_QUOTE_CAP];
    ydoc_error(y, n, key, "bad duration '%s' (expected e.g. 1s, 500ms or 2.5)", YQ(q, s));
    return -1;
}

int ydoc_number(struct ydoc *y, yaml_node_t *n, const char *key, double *out)
{
    const char *s = ydoc_scalar(y, n, key);
    if (!s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < 0) {
        char q[COMMON_QUOTE_CAP];
        ydoc_error(y, n, key, "bad number '%s' (expected a non-negative number)", YQ(q, s));
        return -1;
    }
    *out = v;
    return 0;
}

int ydoc_int(struct ydoc *y, yaml_node_t *n, const char *key, int min, int *out)
{
    const char *s = ydoc_scalar(y, n, key);
    if (!s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < min || v > 1000000) {
        char q[COMMON_QUOTE_CAP];
        ydoc_error(y, n, key, "bad integer '%s' (expected %d or more)", YQ(q, s), min);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static void strings_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

int ydoc_strings(struct ydoc *y, yaml_node_t *n, const char *key, char ***out)
{
    if (!n || n->type != YAML_SEQUENCE_NODE) {
        ydoc_error(y, n, key, "expected a list");
        return -1;
    }
    size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    char **v = calloc(count + 1, sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < count; i++) {
        const char *s = ydoc_scalar(y, ydoc_node(y, n->data.sequence.items.start[i]), key);
        if (!s) {
            strings_free(v);
            return -1;
        }
        v[i] = strdup(s);
    }
    strings_free(*out);
    *out = v;
    return 0;
}
