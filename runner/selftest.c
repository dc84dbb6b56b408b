/*
 * selftest.c - runner_language_selftest, `judgectl languages --check`: does
 * a language work on this host, through the sandbox?
 *
 * The language's version command runs as a compile step would; then a
 * hello-world (the language file's `hello`, else one chosen by the
 * extension of the language's source file) is
 * compiled and run as a submission would be (a problem of one test whose
 * input is the line "hello": a program that does nothing without input,
 * a sed script, still runs), and must print "hello".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct hello {
    const char *ext, *source;
};

static const struct hello hellos[] = {
    {".c", "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n"},
    {".cpp", "#include <iostream>\nint main() { std::cout << \"hello\\n\"; }\n"},
    {".py", "print('hello')\n"},
    {".java", "public class Main { public static void main(String[] a) { "
              "System.out.println(\"hello\"); } }\n"},
    {".rs", "fn main() { println!(\"hello\"); }\n"},
    {".go", "package main\nimport \"fmt\"\nfunc main() { fmt.Println(\"hello\") }\n"},
    {".js", "console.log('hello');\n"},
    {".pas", "program hello; begin writeln('hello') end.\n"},
    {".txt", "hello\n"},   /* answer files (languages/answers.yaml): printed as they are */
};

/* the language file's own `hello`, else the built-in one of its source's
 * extension */
static const char *hello_for(const struct rn_language *l)
{
    if (l->hello)
        return l->hello;
    const char *dot = strrchr(l->source, '.');
    for (size_t i = 0; dot && i < sizeof hellos / sizeof hellos[0]; i++)
        if (!strcmp(dot, hellos[i].ext))
            return hellos[i].source;
    return NULL;
}

static void first_line(const char *text, char *out, size_t outlen)
{
    while (*text == '\n' || *text == ' ')
        text++;
    size_t n = strcspn(text, "\n");
    snprintf(out, outlen, "%.*s", (int)(n < outlen ? n : outlen - 1), text);
}

static int selftest_version(struct rn_job *j, struct runner_selftest *st)
{
    struct rn_language v = *j->lang;          /* the version command as a compile step */
    char **steps[] = {j->lang->version};
    v.compile = steps;
    v.compile_steps = 1;
    if (rn_fresh_dir(j->src, 0777) < 0)
        return rn_job_infra(j, j->src, strerror(errno));
    struct rn_compiled c;
    int rc = rn_compile_in(j, &v, j->src, NULL, &c);
    if (rc == 0)
        first_line(c.output, st->version, sizeof st->version);
    free(c.output);
    return rc;
}

static int selftest_run(struct rn_job *j, struct runner_selftest *st)
{
    /* a problem of one test: its input, a line, in a package of its own */
    char *dir = rn_strdup_printf("%s/selftest-input", j->dir), *in = rn_strdup_printf("%s/hello.in", dir);
    if (rn_fresh_dir(dir, 0755) < 0 || rn_write_file(in, "hello\n", 6, 0644) < 0) {
        int rc = rn_job_infra(j, dir, strerror(errno));
        free(dir), free(in);
        return rc;
    }
    struct rn_problem p = {.dir = dir, .time_limit = 5, .memory_limit = 256ULL << 20,
                           .output_limit = 1 << 20};
    struct rn_test t = {.name = "hello", .input = "hello.in"};
    j->prob = &p;
    struct sandbox_result res;
    double started = rn_now();
    int rc = rn_run_program(j, &t, &res);
    j->prob = NULL;
    rn_remove_tree(dir);
    free(dir), free(in);
    if (rc < 0)
        return -1;
    st->run_time = rn_now() - started;
    char *out = rn_read_file(j->out, 256, NULL);
    if (res.status != SANDBOX_OK)
        snprintf(st->status, sizeof st->status, "%s: %.400s", sandbox_status_name(res.status),
                 res.message);
    else if (!out || strcmp(out, "hello\n"))
        snprintf(st->status, sizeof st->status, "printed '%.40s' instead of 'hello'",
                 out ? out : "");
    else
        st->ok = true, snprintf(st->status, sizeof st->status, "OK");
    free(out);
    return 0;
}

static int selftest_in_slot(struct rn_job *j, struct runner_selftest *st)
{
    const char *src = hello_for(j->lang);
    if (selftest_version(j, st) < 0)
        return -1;
    if (!src)
        return snprintf(st->status, sizeof st->status, "no hello-world for '%s'", j->lang->source), 0;
    if (rn_write_source(j, j->lang, j->src, src, strlen(src)) < 0)
        return -1;
    struct rn_compiled c;
    double started = rn_now();
    if (rn_compile_program(j, j->lang, j->src, NULL, &c) < 0)
        return free(c.output), -1;
    st->compile_time = rn_now() - started;
    if (!c.ok) {
        char line[200];
        first_line(c.output, line, sizeof line);
        snprintf(st->status, sizeof st->status, "CE: %s", line);
        free(c.output);
        return 0;
    }
    free(c.output);
    if (rn_seal_tree(j->src) < 0)
        return rn_job_infra(j, j->src, strerror(errno));
    return selftest_run(j, st);
}

int runner_language_selftest(struct runner *r, const char *id, struct runner_selftest *st,
                             char *err, size_t errlen)
{
    *st = (struct runner_selftest){0};
    if (!r->sb)
        return snprintf(err, errlen, "a catalog-only runner has no sandbox"), -1;
    const struct rn_language *l = rn_find_language(r, id);
    if (!l)
        return snprintf(err, errlen, "unknown language '%s'", id), -1;
    struct runner_request req = {0};
    struct rn_job j = {.slot = -1, .lang = l, .req = &req};
    int rc = rn_job_begin(&j, r);
    if (rc == 0)
        rc = selftest_in_slot(&j, st);
    if (rc < 0)
        snprintf(err, errlen, "%s", j.err);
    rn_job_end(&j);
    return rc;
}
