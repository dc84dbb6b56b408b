/* cmd_local.c - judgectl judge | languages | problem (runner/, no Redis). */
#include <stdio.h>

#include "commands.h"

int cmd_judge(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "judgectl judge: not yet implemented\n"); return 1; }
int cmd_languages(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "judgectl languages: not yet implemented\n"); return 1; }
int cmd_problem(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "judgectl problem: not yet implemented\n"); return 1; }
