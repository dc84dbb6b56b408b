/*
 * ctl_tools.c - the problem store's store_tools over the runner's
 * runner_tool_*: how push runs a package's own programs (a CMS task's
 * generator, validator and official solution) in the sandbox while the
 * store, which knows no sandbox, converts it. judge-api has no runner and
 * gives none: such a package is refused there, saying to push it here.
 */
#include "ctl.h"
#include "runner.h"
#include "store.h"

static int tool_build(void *ctx, const char *dir, const char *source, const char *what, void **tool, char *msg,
                      size_t msglen)
{
    struct runner_tool *t = NULL;
    int rc = runner_tool_build(ctx, dir, source, what, &t, msg, msglen);
    *tool = t;
    return rc;
}

/* The runner opened at the first build: a package that needs nothing run
 * (most) costs no runner, and one that does says why there is none. */
static int lazy_build(void *ctx, const char *dir, const char *source, const char *what, void **tool, char *msg,
                      size_t msglen)
{
    struct ctl_lazy_runner *lr = ctx;
    char err[1024];
    if (!lr->r && runner_open(&lr->r, &lr->cfg, err, sizeof err)) {
        lr->r = NULL;
        *tool = NULL;
        return snprintf(msg, msglen, "no sandbox here (judgectl needs root on a judge host): %s", err), -1;
    }
    return tool_build(lr->r, dir, source, what, tool, msg, msglen);
}

static int tool_run(void *ctx, void *tool, char *const *args, const char *in_path, const char *in_name,
                    const char *out_path, const char *out_name, const struct store_tool_limits *lim, char *msg,
                    size_t msglen)
{
    (void)ctx;
    struct runner_tool_limits l = {.cpu_time = lim->cpu_time, .memory = lim->memory, .output = lim->output,
                                   .submission = lim->submission};
    return runner_tool_run(tool, args, in_path, in_name, out_path, out_name, &l, msg, msglen);
}

static void tool_release(void *ctx, void *tool)
{
    (void)ctx;
    runner_tool_free(tool);
}

struct store_tools ctl_store_tools(struct runner *r)
{
    return (struct store_tools){.ctx = r, .build = tool_build, .run = tool_run, .release = tool_release};
}

struct store_tools ctl_store_tools_lazy(struct ctl_lazy_runner *lr)
{
    return (struct store_tools){.ctx = lr, .build = lazy_build, .run = tool_run, .release = tool_release};
}

void ctl_lazy_runner_close(struct ctl_lazy_runner *lr)
{
    if (lr->r)
        runner_close(lr->r);
    lr->r = NULL;
}
