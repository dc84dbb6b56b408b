/*
 * judgectl - the command-line front of judged.
 *
 * Local subcommands (judge, languages, problem) call runner/ directly and need
 * no Redis; the others talk to the Redis that judged uses (--config FILE).
 * Global options (--config) may come before the subcommand; each subcommand
 * parses its own options and answers --help.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "paths.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"judge", cmd_judge, "judge one source locally against a problem package"},
    {"languages", cmd_languages, "list languages; --check self-tests each"},
    {"problem", cmd_problem, "problem check DIR | push DIR | list | show | versions | rm"},
    {"submit", cmd_submit, "admit a submission to the queue, print its id"},
    {"result", cmd_result, "show (or --wait for) a submission's result"},
    {"events", cmd_events, "print the results stream as JSON lines"},
    {"pools", cmd_pools, "list runner pools with depth and state"},
    {"drain", cmd_drain, "stop claiming in a pool and let it empty"},
    {"pause", cmd_pause, "stop claiming in a pool"},
    {"resume", cmd_resume, "resume claiming in a pool"},
    {"dlq", cmd_dlq, "dead-letter queue: list | requeue ID | drop ID"},
    {"hosts", cmd_hosts, "list judged hosts and their heartbeats"},
    {"rejudge", cmd_rejudge, "queue a problem's submissions again; rejudge status"},
    {"tokens", cmd_tokens, "judge-api tokens: add NAME --role R (prints it once) | list"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: judgectl [--config FILE] COMMAND [OPTIONS] [ARGS]\n\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nThe queue commands read the configuration from --config FILE, else\n"
                 "$JUDGED_CONFIG, else /etc/judged/judged.yaml. judge, languages and problem\n"
                 "need no configuration; their languages directory defaults to\n");
    char dir[4200];
    fprintf(out, "%s.\n", jd_default_languages(dir, sizeof dir));
    fprintf(out, "\n'judgectl COMMAND --help' describes one command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("judgectl %s\n", JUDGED_VERSION);
        return 0;
    }
    /* Global options before the command are handed to the command itself,
     * which sees them again after its name: judgectl --config F submit ... is
     * the same as judgectl submit --config F ... */
    int first = 1;
    while (first < argc && argv[first][0] == '-')
        first += (first + 1 < argc && !strchr(argv[first], '=')) ? 2 : 1;
    if (first >= argc) {
        usage(stderr);
        return 2;
    }
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
    fprintf(stderr, "judgectl: unknown command '%s' (try judgectl --help)\n", argv[first]);
    return 2;
}
