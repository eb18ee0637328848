/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Subscriptions to state changes (varlink Subscribe, with "more"). Every
 * state change of every service, as the manager passes it on, goes out
 * as one streamed reply {"event": {name, state, previousState, result,
 * timeUsec, pid}} to each subscriber. The first reply of a subscription has
 * no event: it says the subscription is in place, so a client can act
 * after it without missing the change it caused.
 *
 * A subscriber that reads too slowly (more than EVENTS_BACKLOG_MAX bytes
 * queued on its connection) misses events: they are skipped and counted,
 * and its next reply carries `dropped` with the number. svd never queues
 * more than that for it.
 */

#include <stddef.h>

#include "service.h"
#include "varlink.h"

/* Output queued for a subscriber beyond which its events are skipped. */
#define EVENTS_BACKLOG_MAX (256U << 10)
/* Subscriptions in all. */
#define EVENTS_SUBSCRIBERS_MAX 256U

typedef struct EventSubscriber EventSubscriber;

typedef struct EventSubscribers {
        EventSubscriber *head;
        size_t n;
} EventSubscribers;

/* Takes the call (answered with the first reply here, kept open after). */
void events_subscribe(EventSubscribers *e, VarlinkCall *call);
/* One state change of s, from `previous`. */
void events_emit_state_change(EventSubscribers *e, const Service *s, ServiceState previous);
/* Ends every subscription with a final reply (svd is exiting). */
void events_done(EventSubscribers *e);
