/* queue_internal.h - shared between the files of the queue library only. */
#ifndef JUDGED_QUEUE_INTERNAL_H
#define JUDGED_QUEUE_INTERNAL_H

#include "queue.h"


#endif
