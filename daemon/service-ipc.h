/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * RemoveIPC= (service-ipc.c).
 */

#include "service-def.h"

/* RemoveIPC=: once s has no process left, removes the IPC objects of its user and group (not root's),
 * unless a process still runs with either. Logs what it did. */
void service_remove_ipc(Service *s);
