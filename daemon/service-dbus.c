/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Type=dbus (systemd.service(5)): the start is complete once the service has acquired BusName= on
 * the system bus; a service that releases the name is stopped. svd keeps one connection to the
 * system bus (sd-bus from libsystemd, attached to svd's loop, never a blocking call), opened when a
 * Type=dbus service first starts and opened again after it was lost. Per service it adds a match
 * on NameOwnerChanged for its name, then asks GetNameOwner: the bus handles both in order, so no
 * change slips between them. When there is no bus to connect to, the start fails at once saying
 * so; when the connection is lost while a service waits for its name, that start fails too.
 * $DBUS_SYSTEM_BUS_ADDRESS, as sd-bus reads it, names another bus. This file connects, watches
 * and reads the bus's messages; what they mean for the service, the state machine (service.c)
 * decides in the handlers it passes.
 */
#include <stdio.h>
#include <string.h>

#include "service-dbus.h"
#include "svd-log.h"

#define DBUS_SERVICE "org.freedesktop.DBus"
#define DBUS_PATH "/org/freedesktop/DBus"
#define DBUS_INTERFACE "org.freedesktop.DBus"

int service_dbus_read_owner_changed(Service *s, sd_bus_message *m, const char **ret_owner) {
        const char *name, *old_owner, *new_owner;

        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || !streq(name, s->def->unit->bus_name))
                return 0;
        *ret_owner = new_owner;
        return 1;
}

int service_dbus_read_owner_reply(Service *s, sd_bus_message *m, const char **ret_owner) {
        s->run.bus_call = sd_bus_slot_unref(s->run.bus_call);
        if (sd_bus_message_is_method_error(m, NULL)) {
                const sd_bus_error *e = sd_bus_message_get_error(m);
                if (e && !sd_bus_error_has_name(e, "org.freedesktop.DBus.Error.NameHasNoOwner"))
                        log_debug("%s: GetNameOwner('%s'): %s", s->name, s->def->unit->bus_name, e->message);
                return 0; /* not yet: NameOwnerChanged tells */
        }
        return sd_bus_message_read(m, "s", ret_owner) >= 0;
}

bool service_dbus_forget(Service *s) {
        if (!s->run.bus_match)
                return false;
        s->run.bus_match = sd_bus_slot_unref(s->run.bus_match);
        s->run.bus_call = sd_bus_slot_unref(s->run.bus_call);
        return true;
}

void service_dbus_disconnect(ServiceContext *c) {
        c->bus_disconnected = sd_bus_slot_unref(c->bus_disconnected);
        c->bus = sd_bus_flush_close_unref(c->bus);
}

int service_dbus_connect(ServiceContext *c, sd_bus_message_handler_t on_disconnected, char **ret_error) {
        _cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
        int r;

        if (c->bus && sd_bus_is_open(c->bus) > 0)
                return 0;
        service_dbus_disconnect(c);

        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_attach_event(bus, c->event, SD_EVENT_PRIORITY_NORMAL);
        if (r >= 0)
                r = sd_bus_match_signal(bus, &c->bus_disconnected, "org.freedesktop.DBus.Local", NULL,
                                        "org.freedesktop.DBus.Local", "Disconnected", on_disconnected, c);
        if (r < 0) {
                const char *address = getenv("DBUS_SYSTEM_BUS_ADDRESS");
                if (ret_error && asprintf(ret_error, "Type=dbus: cannot connect to the system bus (%s): %s",
                                          address ? address : "unix:path=/run/dbus/system_bus_socket",
                                          strerror(-r)) < 0)
                        *ret_error = NULL;
                return r;
        }
        c->bus = TAKE_PTR(bus);
        return 0;
}

int service_dbus_watch(Service *s, sd_bus_message_handler_t on_owner_changed, sd_bus_message_handler_t on_owner_reply) {
        ServiceContext *c = s->ctx;
        _cleanup_free_ char *match = NULL;
        int r;

        if (!c->bus)
                return -ENOTCONN;
        s->run.bus_match = sd_bus_slot_unref(s->run.bus_match);
        s->run.bus_call = sd_bus_slot_unref(s->run.bus_call);
        if (asprintf(&match,
                     "type='signal',sender='" DBUS_SERVICE "',path='" DBUS_PATH "',interface='" DBUS_INTERFACE
                     "',member='NameOwnerChanged',arg0='%s'",
                     s->def->unit->bus_name) < 0)
                return -ENOMEM;
        r = sd_bus_add_match_async(c->bus, &s->run.bus_match, match, on_owner_changed, NULL, s);
        if (r < 0)
                return r;
        r = sd_bus_call_method_async(c->bus, &s->run.bus_call, DBUS_SERVICE, DBUS_PATH, DBUS_INTERFACE, "GetNameOwner",
                                     on_owner_reply, s, "s", s->def->unit->bus_name);
        if (r < 0) {
                s->run.bus_match = sd_bus_slot_unref(s->run.bus_match);
                return r;
        }
        return 0;
}
