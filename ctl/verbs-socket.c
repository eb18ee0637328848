/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Socket units in svctl: start and stop of NAME.socket, its status, and its rows in list
 * (io.svd.Manager.StartSocket, StopSocket, SocketStatus, ListSockets). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "options.h"
#include "output.h"
#include "verbs.h"

#define METHOD_START_SOCKET "io.svd.Manager.StartSocket"
#define METHOD_STOP_SOCKET "io.svd.Manager.StopSocket"
#define METHOD_SOCKET_STATUS "io.svd.Manager.SocketStatus"
#define METHOD_LIST_SOCKETS "io.svd.Manager.ListSockets"
#define ERROR_NO_SUCH_SOCKET "io.svd.Manager.NoSuchSocket"

bool name_is_socket(const char *name) {
        size_t n = strlen(name);
        return n > 7 && streq(name + n - 7, ".socket");
}

int socket_change(VarlinkClient *c, const char *verb, const char *name, int *ret) {
        bool start = streq(verb, "start"), restart = streq(verb, "restart");
        if (!start && !restart && !streq(verb, "stop")) {
                fprintf(stderr, "svctl: Failed to %s '", verb);
                fputs_escaped(name, stderr);
                fputs("': socket units only start, stop and restart\n", stderr);
                *ret = EXIT_FAILURE;
                return 0;
        }
        /* Step 0 stops, step 1 starts: restart takes both. */
        for (int step = start ? 1 : 0; step <= (start || restart ? 1 : 0); step++) {
                _cleanup_json_ json_t *reply = NULL;
                const char *error;
                int r = call(c, step ? METHOD_START_SOCKET : METHOD_STOP_SOCKET, name, &reply, &error);
                if (r < 0) {
                        (void) log_call_failure(verb, name, r, NULL, NULL);
                        return r;
                }
                if (error) {
                        *ret = log_call_failure(verb, name, 0, error, reply);
                        return 0;
                }
                if (arg_json && (step == 1 || !restart)) {
                        json_t *p = reply_parameters(reply);
                        r = print_json(json_object_get(p, "socket") ?: p);
                        if (r < 0)
                                return r;
                }
        }
        *ret = EXIT_SUCCESS;
        return 0;
}

static void show_socket(json_t *s) {
        const char *state = json_get_str(s, "state") ?: "?";
        const char *desc = json_get_str(s, "description");
        int64_t triggers = 0;
        size_t i;
        json_t *l;

        fputs("● ", stdout);
        fputs_escaped(json_get_str(s, "name") ?: "?", stdout);
        if (desc) {
                fputs(" - ", stdout);
                fputs_escaped(desc, stdout);
        }
        fputs("\n     Loaded: ", stdout);
        fputs_escaped(json_get_str(s, "path") ?: "?", stdout);
        fputs(json_get_str(s, "loadError") ? " (error)" : "", stdout);
        printf("\n     Active: %s (%s)\n",
               streq(state, "listening") || streq(state, "running")   ? "active"
               : streq(state, "start-pre") || streq(state, "start-post") ? "activating"
               : streq(state, "stop-pre") || streq(state, "stop-post")   ? "deactivating"
                                                                         : state,
               state);
        fputs("    Service: ", stdout);
        fputs_escaped(json_get_str(s, "service") ?: "?", stdout);
        if (json_is_true(json_object_get(s, "accept"))) {
                int64_t accepted = 0, connections = 0, max = 0;
                (void) json_get_int(s, "accepted", &accepted);
                (void) json_get_int(s, "connections", &connections);
                (void) json_get_int(s, "maxConnections", &max);
                printf(" (Accept=yes)\n   Accepted: %lld\nConnections: %lld (at most %lld)\n", (long long) accepted,
                       (long long) connections, (long long) max);
        } else {
                (void) json_get_int(s, "triggers", &triggers);
                printf("\n   Triggers: %lld\n", (long long) triggers);
        }
        json_array_foreach(json_object_get(s, "listen"), i, l) {
                fputs(i == 0 ? "     Listen: " : "             ", stdout);
                fputs_escaped(json_get_str(l, "address") ?: "?", stdout);
                fputs(" (", stdout);
                fputs_escaped(json_get_str(l, "type") ?: "?", stdout);
                fputs(")\n", stdout);
        }
        const char *e = json_get_str(s, "loadError") ?: json_get_str(s, "lastError");
        if (e) {
                fputs("      Error: ", stdout);
                fputs_escaped(e, stdout);
                fputc('\n', stdout);
        }
}

int socket_status(VarlinkClient *c, const char *name, int *ret) {
        _cleanup_json_ json_t *reply = NULL;
        const char *error;

        int r = call(c, METHOD_SOCKET_STATUS, name, &reply, &error);
        if (r < 0) {
                (void) log_call_failure("get status of", name, r, NULL, NULL);
                return r;
        }
        if (error) {
                if (streq(error, ERROR_NO_SUCH_SOCKET)) {
                        fputs("Unit ", stderr);
                        fputs_escaped(name, stderr);
                        fputs(" could not be found.\n", stderr);
                        *ret = EXIT_PROGRAM_OR_SERVICES_STATUS_UNKNOWN;
                } else
                        *ret = log_call_failure("get status of", name, 0, error, reply);
                return 0;
        }
        json_t *s = json_object_get(reply_parameters(reply), "socket");
        if (arg_json)
                r = print_json(s);
        else
                show_socket(s);
        const char *state = json_get_str(s, "state") ?: "";
        *ret = streq(state, "listening") || streq(state, "running") ? EXIT_SUCCESS : EXIT_PROGRAM_NOT_RUNNING;
        return r < 0 ? r : 0;
}

json_t *socket_list(VarlinkClient *c) {
        _cleanup_json_ json_t *reply = NULL;
        const char *error;

        /* An svd without socket units does not know the method: no rows. */
        if (call(c, METHOD_LIST_SOCKETS, NULL, &reply, &error) < 0 || error)
                return NULL;
        return json_incref(json_object_get(reply_parameters(reply), "sockets"));
}
