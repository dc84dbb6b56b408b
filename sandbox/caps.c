/*
 * caps.c - leave the program with no capability at all.
 *
 * The bounding set is emptied while still root (that needs CAP_SETPCAP), so
 * no later execve of a file with capabilities or setuid root can give any
 * back; after the switch to the slot's uid the remaining sets are cleared.
 * Runs in the box child between clone and exec, where malloc is off limits
 * (another thread may have held its lock at clone time), so the empty
 * capability state is built by caps_empty() beforehand.
 */
#include <errno.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "internal.h"

int caps_drop_bounding(void)
{
    for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++)
        if (cap_drop_bound(c) < 0 && errno != EINVAL)
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
