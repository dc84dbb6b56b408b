/* queue_internal.h - shared between the files of the queue library only. */
#ifndef JUDGED_QUEUE_INTERNAL_H
#define JUDGED_QUEUE_INTERNAL_H

#include "queue.h"

/* Frees a broken context (it reconnects on the next call), keeping errstr. */
void queue_conn_drop(struct queue_conn *k);

#endif
