/*
 * judgectl - the command-line front of judged.
 *
 * Local subcommands (judge, languages, problem) call runner/ directly and need
 * no Redis; the others talk to the Redis that judged uses (--config FILE).
 * Global options (--config, --json) may come before or after the
 * subcommand; each subcommand parses its own options and answers --help.
 * Failures and exit statuses are one table for all (ctl.h, ctl_common.c).
 */
#include <stdio.h>
#include <string.h>

#include "ctl.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"judge", cmd_judge, "judge one source locally against a problem (a name or a directory)"},
    {"languages", cmd_languages, "list languages; --check self-tests each"},
    {"problem", cmd_problem, "problem check DIR | verify DIR|NAME | push DIR | list | show | versions | rm"},
    {"submit", cmd_submit, "admit a submission to the queue, print its id"},
    {"result", cmd_result, "show (or --wait for) a submission's result"},
    {"events", cmd_events, "print the results streams as JSON lines (--since, --follow)"},
    {"pools", cmd_pools, "list runner pools with depth, oldest waiting job and state"},
    {"health", cmd_health, "exit 0 when Redis answers and every pool has a live host"},
    {"drain", cmd_drain, "stop claiming in a pool; --wait until nothing runs"},
    {"pause", cmd_pause, "stop claiming in a pool"},
    {"resume", cmd_resume, "resume claiming in a pool"},
    {"dlq", cmd_dlq, "dead-letter queue: list | requeue ID | drop ID"},
    {"hosts", cmd_hosts, "list judged hosts; exit 1 when one is not alive"},
    {"rejudge", cmd_rejudge, "queue a problem's submissions again; rejudge status"},
    {"tokens", cmd_tokens, "judge-api tokens: add NAME --role R (prints it once) | list"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: judgectl [--config FILE] [--json] COMMAND [OPTIONS] [ARGS]\n\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nGlobal options, before or after the command: --config FILE, --json.\n"
                 "Every option with a value takes it as --opt VALUE or --opt=VALUE.\n"
                 "The queue commands read the configuration from --config FILE, else\n"
                 "$JUDGED_CONFIG, else /etc/judged/judged.yaml. judge, languages and problem\n"
                 "check need no queue; their languages directory defaults to\n");
    char dir[4200];
    fprintf(out, "%s.\n\n%s", jd_default_languages(dir, sizeof dir), ctl_exit_table);
    fprintf(out, "\n'judgectl COMMAND --help' describes one command.\n");
}

/* A global option before the command: --json, --config FILE, --config=FILE;
 * how many arguments it takes (0: not one). */
static int global_option(int argc, char **argv, int i)
{
    if (!strcmp(argv[i], "--json") || !strncmp(argv[i], "--config=", 9))
        return 1;
    if (!strcmp(argv[i], "--config") || !strcmp(argv[i], "-c"))
        return i + 1 < argc ? 2 : 0;
    return 0;
}

int main(int argc, char **argv)
{
    struct common c = {0};
    ctl_begin(&c, "", argc, argv);
    c.cmd = "";
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))) {
        usage(stdout);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        printf("judgectl %s\n", JUDGED_VERSION);
        return 0;
    }
    /* Global options before the command are handed to the command itself,
     * which sees them after its name: judgectl --config F --json submit ...
     * is judgectl submit --config F --json ... */
    int first = 1, n;
    while (first < argc && (n = global_option(argc, argv, first)) > 0)
        first += n;
    if (first >= argc) {
        if (!c.json)
            usage(stderr);
        return ctl_fail(&c, "usage", "no command (try judgectl --help)");
    }
    if (argv[first][0] == '-')
        return ctl_fail(&c, "usage", "unknown global option '%s' (try judgectl --help)", argv[first]);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[first], commands[i].name))
            continue;
        /* rotate: COMMAND GLOBALS... REST... */
        char *name = argv[first];
        for (int j = first; j > 1; j--)
            argv[j] = argv[j - 1];
        argv[1] = name;
        return commands[i].run(argc - 1, argv + 1);
    }
    return ctl_fail(&c, "usage", "unknown command '%s' (try judgectl --help)", argv[first]);
}
