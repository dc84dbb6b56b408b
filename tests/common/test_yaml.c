/* test_yaml.c - the one YAML reader (common/yaml/yaml_doc.h), alone: what
 * the runner, judged.yaml and the store's conversion rely on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "yaml_doc.h"

static char *joined(const struct common_errors *e)
{
    static char buf[8192];
    char *s = common_errors_join(e);
    snprintf(buf, sizeof buf, "%s", s ? s : "");
    free(s);
    return buf;
}

Test(yaml, a_key_given_twice_names_both_lines)
{
    const char *text = "a: 1\nb: 2\na: 3\nc:\n  x: 1\n  y: 2\n  x: 3\n";
    struct common_errors errs = {0};
    struct ydoc y;
    cr_assert_eq(ydoc_parse(&y, text, strlen(text), "f.yaml", &errs), 0, "%s", joined(&errs));
    yaml_node_t *root = ydoc_root(&y);
    cr_assert_eq(ydoc_mapping(&y, root, "document"), 0, "recorded, not failed");
    YDOC_FOR_PAIRS(&y, root, k, kn, v) {
        (void)kn;
        if (!strcmp(k, "c"))
            ydoc_mapping(&y, v, "c");
    }
    char *e = joined(&errs);
    cr_assert(strstr(e, "f.yaml:3: a: given twice (also on line 1)\n"), "%s", e);
    cr_assert(strstr(e, "f.yaml:7: x: given twice (also on line 5)\n"), "%s", e);
    cr_assert_eq(errs.count, 2, "%s", e);
    ydoc_free(&y);
    common_errors_free(&errs);
}

/* A reader that words the refusal itself (judged.yaml) asks key by key. */
Test(yaml, keys_met_one_by_one)
{
    const char *text = "lease: 1s\npools: x\nlease: 2s\n";
    struct common_errors errs = {0};
    struct ydoc y;
    cr_assert_eq(ydoc_parse(&y, text, strlen(text), "j.yaml", &errs), 0);
    struct ydoc_keys seen = {0};
    int twice_at = 0, first_at = 0;
    YDOC_FOR_PAIRS(&y, ydoc_root(&y), k, kn, v) {
        (void)k, (void)v;
        const yaml_node_t *first = ydoc_keys_twice(&seen, kn);
        if (first)
            twice_at = ydoc_line(kn), first_at = ydoc_line(first);
    }
    ydoc_keys_free(&y, &seen);
    cr_assert_eq(twice_at, 3);
    cr_assert_eq(first_at, 1);
    cr_assert_gt(y.key_probes, 0, "the probes are counted");
    cr_assert_eq(errs.count, 0, "nothing recorded: the reader words it");
    ydoc_free(&y);
}

static char *parse_error(const char *text, const struct ydoc_how *how)
{
    struct common_errors errs = {0};
    struct ydoc y;
    int rc = how ? ydoc_parse_how(&y, text, strlen(text), "s.yaml", how, &errs)
                 : ydoc_parse(&y, text, strlen(text), "s.yaml", &errs);
    cr_assert_eq(rc, -1, "accepted: %s", text);
    cr_assert_eq(errs.count, 1);
    char *e = strdup(errs.items[0]);
    ydoc_free(&y);
    common_errors_free(&errs);
    return e;
}

Test(yaml, bad_yaml_names_its_line_in_each_readers_words)
{
    const char *bad = "a: 1\nb: [1, 2\nc: 3\n";
    const struct ydoc_how bare = {.syntax_key = NULL}, store = {.syntax_key = "(yaml)"};
    char *runner = parse_error(bad, NULL), *config = parse_error(bad, &bare), *icpc = parse_error(bad, &store);
    cr_assert(!strncmp(runner, "s.yaml:3: syntax: ", 18), "%s", runner);
    cr_assert(!strncmp(config, "s.yaml:3: ", 10) && !strstr(config, "syntax"), "%s", config);
    cr_assert(!strncmp(icpc, "s.yaml:3: (yaml): ", 18), "%s", icpc);
    cr_assert(strstr(runner, "did not find expected"), "libyaml's words kept: %s", runner);
    free(runner), free(config), free(icpc);
}

Test(yaml, an_empty_file_is_refused_unless_the_reader_allows_it)
{
    char *e = parse_error("", NULL);
    cr_assert_str_eq(e, "s.yaml:1: document: the file is empty");
    free(e);
    struct common_errors errs = {0};
    struct ydoc y;
    const struct ydoc_how ok = {.empty_ok = true};
    cr_assert_eq(ydoc_parse_how(&y, "", 0, "s.yaml", &ok, &errs), 0);
    cr_assert_null(ydoc_root(&y));
    cr_assert_eq(errs.count, 0);
    ydoc_free(&y);
}

/* Anchors and aliases are YAML: an alias reads as the node it names (the
 * runner's subtasks use them), with its own line being the anchor's. */
Test(yaml, an_alias_reads_as_its_anchor)
{
    const char *text = "base: &b {time_limit: 2s}\ncopy: *b\n";
    struct common_errors errs = {0};
    struct ydoc y;
    cr_assert_eq(ydoc_parse(&y, text, strlen(text), "a.yaml", &errs), 0, "%s", joined(&errs));
    double t = 0;
    YDOC_FOR_PAIRS(&y, ydoc_root(&y), k, kn, v) {
        (void)kn;
        cr_assert_eq(ydoc_mapping(&y, v, k), 0);
        YDOC_FOR_PAIRS(&y, v, k2, kn2, v2) {
            (void)k2, (void)kn2;
            cr_assert_eq(ydoc_duration(&y, v2, k2, &t), 0, "%s", joined(&errs));
            cr_assert_eq(ydoc_line(v2), 1, "the anchor's line");
        }
    }
    cr_assert_float_eq(t, 2.0, 1e-9);
    cr_assert_eq(errs.count, 0, "%s", joined(&errs));
    ydoc_free(&y);
}

/* Aliases cannot multiply the work: past the budget of node visits a
 * reader gets NULL, and the error is recorded once. */
Test(yaml, aliases_past_the_budget_are_refused_once)
{
    char text[4096];
    int n = snprintf(text, sizeof text, "a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    n += snprintf(text + n, sizeof text - (size_t)n, "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n");
    n += snprintf(text + n, sizeof text - (size_t)n, "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n");
    snprintf(text + n, sizeof text - (size_t)n, "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n");
    struct common_errors errs = {0};
    struct ydoc y;
    cr_assert_eq(ydoc_parse(&y, text, strlen(text), "bomb.yaml", &errs), 0);
    size_t yielded = 0;
    /* a naive walk of every path: 10^4 leaves under d alone */
    int stack[64], top = 0;
    stack[top++] = 1;   /* the root */
    while (top) {
        yaml_node_t *node = ydoc_node(&y, stack[--top]);
        if (!node)
            continue;
        yielded++;
        if (node->type == YAML_MAPPING_NODE)
            for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++)
                if (top < 64)
                    stack[top++] = p->value;
        if (node->type == YAML_SEQUENCE_NODE)
            for (yaml_node_item_t *i = node->data.sequence.items.start; i < node->data.sequence.items.top; i++)
                if (top < 64)
                    stack[top++] = *i;
    }
    cr_assert_leq(yielded, y.budget);
    cr_assert_eq(errs.count, 1, "%s", joined(&errs));
    cr_assert(strstr(errs.items[0], "bomb.yaml:1: document: aliases make it too large to read"), "%s",
              errs.items[0]);
    ydoc_free(&y);
    common_errors_free(&errs);
}

Test(yaml, a_stream_reads_like_text)
{
    const char text[] = "size: 64k\nlist: [a, b]\n";
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    cr_assert_not_null(f);
    struct common_errors errs = {0};
    struct ydoc y;
    const struct ydoc_how how = {.syntax_key = NULL};
    cr_assert_eq(ydoc_read(&y, f, "m.yaml", &how, &errs), 0, "%s", joined(&errs));
    uint64_t size = 0;
    char **list = NULL;
    YDOC_FOR_PAIRS(&y, ydoc_root(&y), k, kn, v) {
        (void)kn;
        if (!strcmp(k, "size"))
            cr_assert_eq(ydoc_size(&y, v, k, &size), 0);
        else
            cr_assert_eq(ydoc_strings(&y, v, k, &list), 0);
    }
    cr_assert_eq(size, 65536);
    cr_assert_str_eq(list[0], "a");
    cr_assert_str_eq(list[1], "b");
    cr_assert_null(list[2]);
    free(list[0]), free(list[1]), free(list);
    ydoc_free(&y);
    fclose(f);
}

Test(yaml, getters_name_file_line_and_key_and_quote_the_value)
{
    const char *text = "n: 1\nt: \"soon\\x01\"\nm: [1]\n";
    struct common_errors errs = {0};
    struct ydoc y;
    cr_assert_eq(ydoc_parse(&y, text, strlen(text), "g.yaml", &errs), 0);
    double d;
    int i;
    YDOC_FOR_PAIRS(&y, ydoc_root(&y), k, kn, v) {
        (void)kn;
        if (!strcmp(k, "n"))
            cr_assert_eq(ydoc_int(&y, v, k, 2, &i), -1);
        else if (!strcmp(k, "t"))
            cr_assert_eq(ydoc_duration(&y, v, k, &d), -1);
        else
            cr_assert_null(ydoc_scalar(&y, v, k));
    }
    char *e = joined(&errs);
    cr_assert(strstr(e, "g.yaml:1: n: bad integer '1' (expected 2 or more)\n"), "%s", e);
    cr_assert(strstr(e, "g.yaml:2: t: bad duration 'soon\\x01'"), "%s", e);
    cr_assert(strstr(e, "g.yaml:3: m: expected a single value, not a list\n"), "%s", e);
    ydoc_free(&y);
    common_errors_free(&errs);
}
