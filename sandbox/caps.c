/*
 * caps.c - leave the program with no capability at all.
 *
 * The bounding set is emptied while still root (that needs CAP_SETPCAP), so
 * no later execve of a file with capabilities or setuid root can give any
 * back. The keeper narrows it to what it needs once, when its box is built,
 * so each program only has a handful left to drop. After the switch to the
 * slot's uid the remaining sets are cleared.
 * Runs in the box child between clone and exec, where malloc is off limits
 * (another thread may have held its lock at clone time), so the empty
 * capability state is built by caps_empty() beforehand.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "internal.h"

/* What a keeper still needs once its box is built: mounts (SYS_ADMIN),
 * mount points in a work directory the slot's uid owns (DAC_*, FOWNER),
 * signals to the slot's uid (KILL), and what its programs need before they
 * drop the rest: raising a hard rlimit (SYS_RESOURCE, where root has it),
 * changing ids (SETUID, SETGID) and the bounding set (SETPCAP). */
static const cap_value_t keeper_caps[] = {
    CAP_SYS_ADMIN, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_KILL,
    CAP_SYS_RESOURCE, CAP_SETUID, CAP_SETGID, CAP_SETPCAP,
};
#define KEEPER_CAPS (sizeof keeper_caps / sizeof *keeper_caps)

static bool kept_by_keeper(cap_value_t c)
{
    for (size_t i = 0; i < KEEPER_CAPS; i++)
        if (keeper_caps[i] == c)
            return true;
    return false;
}

int caps_keeper_bounding(void)
{
    for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++)
        if (!kept_by_keeper(c) && cap_drop_bound(c) < 0 && errno != EINVAL)
            return -1;
    return 0;
}

/* The program's bounding set is the keeper's: a few calls empty it. */
int caps_drop_bounding(void)
{
    for (size_t i = 0; i < KEEPER_CAPS; i++)
        if (cap_drop_bound(keeper_caps[i]) < 0 && errno != EINVAL)
            return -1;
    return 0;
}

void *caps_empty(void)
{
    return cap_init();   /* all three sets empty */
}

void caps_free(void *caps)
{
    if (caps)
        cap_free(caps);
}

int caps_clear_all(void *empty)
{
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
        return -1;
    return cap_set_proc((cap_t)empty);
}
