/* cmd_queue.c - judgectl's Redis-side commands. */
#include <stdio.h>

#include "commands.h"

#define NOT_YET(fn) int fn(int argc, char **argv) { (void)argc; fprintf(stderr, "judgectl %s: not yet implemented\n", argv[0]); return 1; }
NOT_YET(cmd_submit)
NOT_YET(cmd_result)
NOT_YET(cmd_events)
NOT_YET(cmd_pools)
NOT_YET(cmd_drain)
NOT_YET(cmd_pause)
NOT_YET(cmd_resume)
NOT_YET(cmd_dlq)
NOT_YET(cmd_hosts)
