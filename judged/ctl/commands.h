/* commands.h - judgectl's subcommands (private to judged/ctl/). Each returns
 * the process exit status of ctl_exit_table (ctl_common.c): 0 success, 1 the
 * answer is no, 3 a judge's IE, sysexits.h's codes for failures (64 bad
 * usage, 65 bad input, 66 not found, 69 unavailable, ...). argv[0] is the
 * subcommand name. */
#ifndef JUDGED_COMMANDS_H
#define JUDGED_COMMANDS_H

/* Local judging, no Redis: cmd_local.c */
int cmd_judge(int argc, char **argv);
int cmd_languages(int argc, char **argv);
int cmd_problem(int argc, char **argv);   /* check here; push, list, ... in cmd_store.c */
int cmd_store(int argc, char **argv);
int cmd_verify(int argc, char **argv);   /* problem verify: cmd_verify.c */

/* Through Redis: admission (cmd_submit.c), results (cmd_results.c) and
 * administration (cmd_admin.c). */
int cmd_submit(int argc, char **argv);
int cmd_result(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_pools(int argc, char **argv);
int cmd_drain(int argc, char **argv);
int cmd_pause(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_dlq(int argc, char **argv);
int cmd_hosts(int argc, char **argv);
int cmd_health(int argc, char **argv);
int cmd_rejudge(int argc, char **argv);   /* cmd_rejudge.c */

/* judge-api's bearer tokens: cmd_tokens.c */
int cmd_tokens(int argc, char **argv);

#endif
