/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Subscribe: every state change streamed to each subscriber, bounded per subscriber. */
#include "varlink-events.h"

#include "basic/list.h"

#include <jansson.h>


struct EventSubscriber {
        EventSubscribers *set;
        VarlinkCall *call;
        uint64_t dropped;
        LIST_FIELDS(EventSubscriber, subscribers);
};

static void subscriber_free(EventSubscriber *sub) {
        EventSubscribers *e = sub->set;
        LIST_REMOVE(subscribers, e->head, sub);
        e->n--;
        free(sub);
}

static void on_subscriber_cancel(VarlinkCall *call, void *userdata) {
        subscriber_free(userdata);
}

void events_subscribe(EventSubscribers *e, VarlinkCall *call) {
        assert(e);
        assert(call);

        if (e->n >= EVENTS_SUBSCRIBERS_MAX) {
                (void) varlink_call_error(call, "io.svd.Manager.TooManySubscribers",
                                          json_pack("{s:i}", "max", EVENTS_SUBSCRIBERS_MAX));
                return;
        }
        EventSubscriber *sub = calloc(1, sizeof(*sub));
        if (!sub) {
                (void) varlink_call_error_errno(call, ENOMEM);
                return;
        }
        *sub = (EventSubscriber){ .set = e, .call = call };
        LIST_PREPEND(subscribers, e->head, sub);
        e->n++;
        varlink_call_set_cancel(call, on_subscriber_cancel, sub);
        (void) varlink_call_notify(call, NULL);
}

void events_emit_state_change(EventSubscribers *e, const Service *s, ServiceState previous) {
        assert(e);
        assert(s);

        if (!e->head)
                return;
        json_t *event = json_pack("{s:s,s:s,s:s,s:s,s:I,s:o}", "name", s->name, "state",
                                  service_state_to_string(s->state), "previousState",
                                  service_state_to_string(previous), "result", service_result_to_string(s->result),
                                  "timeUsec", (json_int_t) s->state_change_usec, "pid",
                                  process_is_set(&s->run.main) ? json_integer(s->run.main.pid) : json_null());
        if (!event)
                return;
        EventSubscriber *sub, *next;
        LIST_FOREACH_SAFE(subscribers, sub, next, e->head) {
                if (varlink_call_output_queued(sub->call) > EVENTS_BACKLOG_MAX) {
                        sub->dropped++;
                        continue;
                }
                json_t *p = json_pack("{s:O}", "event", event);
                if (p && sub->dropped > 0)
                        json_object_set_new(p, "dropped", json_integer((json_int_t) sub->dropped));
                sub->dropped = 0;
                (void) varlink_call_notify(sub->call, p);
        }
        json_decref(event);
}

void events_done(EventSubscribers *e) {
        while (e && e->head) {
                EventSubscriber *sub = e->head;
                VarlinkCall *call = sub->call;
                varlink_call_set_cancel(call, NULL, NULL);
                subscriber_free(sub);
                (void) varlink_call_reply(call, NULL);
        }
}
