/*
 * proc_status.h - one field of /proc/PID/status, in kB (VmHWM: a process's
 * peak resident memory), for the tests and the benchmarks that bound a
 * daemon's memory. Header-only: test programs link nothing for it.
 */
#ifndef JUDGED_TESTS_PROC_STATUS_H
#define JUDGED_TESTS_PROC_STATUS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* The value of field ("VmHWM:", with its colon) of process pid, or -1. */
static inline long proc_status_kb(pid_t pid, const char *field)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, n))
            kb = atol(line + n);
    if (f)
        fclose(f);
    return kb;
}

#endif
