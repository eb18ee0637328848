/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Type=dbus: the system bus and BusName= (service-dbus.c).
 */

#include "service-def.h"

/* Connects c to the system bus unless it is (on_disconnected, userdata c, runs when it is lost):
 * 0, or -errno with *ret_error saying which bus. */
int service_dbus_connect(ServiceContext *c, sd_bus_message_handler_t on_disconnected, char **ret_error);
/* Closes c's connection. */
void service_dbus_disconnect(ServiceContext *c);
/* Watches BusName= of s (userdata s): on_owner_changed gets NameOwnerChanged for it, then
 * on_owner_reply the answer to GetNameOwner. */
int service_dbus_watch(Service *s, sd_bus_message_handler_t on_owner_changed, sd_bus_message_handler_t on_owner_reply);
/* Reads those two messages: 1 and the owner ("" for none) when m tells it, 0 when it does not. */
int service_dbus_read_owner_changed(Service *s, sd_bus_message *m, const char **ret_owner);
int service_dbus_read_owner_reply(Service *s, sd_bus_message *m, const char **ret_owner);
/* Stops watching s's name: whether it was watched. */
bool service_dbus_forget(Service *s);
/* service.c: after a re-exec (the connection is not carried over), watch again. */
int service_dbus_resume(Service *s);
