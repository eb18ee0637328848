/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The verbs that read svd's streams: logs (Logs, with "more" for -f) and
 * watch (Subscribe). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "call.h"
#include "log-lines.h"
#include "options.h"
#include "output.h"
#include "time-util.h"
#include "verbs.h"

#define METHOD_SUBSCRIBE "io.svd.Manager.Subscribe"

/* Ctrl-C ends a stream: everything printed so far is out (stdout is line
 * buffered while streaming), so leaving at once is clean. Exit 0, as
 * journalctl -f does. */
static void on_interrupt(int sig) {
        _exit(EXIT_SUCCESS);
}

static void stream_setup(void) {
        struct sigaction sa = { .sa_handler = on_interrupt };
        setvbuf(stdout, NULL, _IOLBF, 0);
        (void) sigaction(SIGINT, &sa, NULL);
        (void) sigaction(SIGTERM, &sa, NULL);
        (void) sigaction(SIGPIPE, &sa, NULL);
}

int verb_logs(VarlinkClient *c, int argc, char **argv) {
        _cleanup_json_ json_t *parameters = logs_parameters(argv[1], arg_lines, arg_follow);
        const char *error;
        int r;

        if (!parameters) {
                log_call_failure("get logs of", argv[1], -EINVAL, NULL, NULL);
                return -EINVAL;
        }
        if (!arg_follow) {
                _cleanup_json_ json_t *reply = NULL;
                r = varlink_client_call(c, "io.svd.Manager.Logs", parameters, arg_timeout_usec, &reply, &error);
                if (r < 0 || error) {
                        int k = log_call_failure("get logs of", argv[1], r, error, reply);
                        return r < 0 ? r : k;
                }
                print_log_reply(reply_parameters(reply));
                return EXIT_SUCCESS;
        }

        stream_setup();
        r = varlink_client_send(c, METHOD_LOGS, parameters, /* more= */ true);
        for (bool first = true;; first = false) {
                _cleanup_json_ json_t *reply = NULL;
                if (r >= 0)
                        r = varlink_client_read(c, first ? arg_timeout_usec : USEC_INFINITY, &reply);
                if (r < 0)
                        return log_call_failure("follow logs of", argv[1], r, NULL, NULL), r;
                error = json_string_value(json_object_get(reply, "error"));
                if (error)
                        return log_call_failure("follow logs of", argv[1], 0, error, reply);
                print_log_reply(reply_parameters(reply));
                if (!json_is_true(json_object_get(reply, "continues")))
                        return EXIT_SUCCESS; /* svd ended the stream: the unit was removed, or svd exits */
        }
}

static void print_event(json_t *e) {
        char ts[96];
        json_t *pid = json_object_get(e, "pid");

        if (arg_json) {
                (void) print_json(e);
                return;
        }
        printf("%s ", format_time(ts, sizeof(ts), json_object_get(e, "timeUsec")));
        fputs_escaped(json_string_value(json_object_get(e, "name")) ?: "?", stdout);
        printf(": %s \u2192 %s (result %s", json_string_value(json_object_get(e, "previousState")) ?: "?",
               json_string_value(json_object_get(e, "state")) ?: "?",
               json_string_value(json_object_get(e, "result")) ?: "?");
        if (json_is_integer(pid))
                printf(", pid %lld", (long long) json_integer_value(pid));
        fputs(")\n", stdout);
}

int verb_watch(VarlinkClient *c, int argc, char **argv) {
        int r;

        stream_setup();
        r = varlink_client_send(c, METHOD_SUBSCRIBE, NULL, /* more= */ true);
        for (bool first = true;; first = false) {
                _cleanup_json_ json_t *reply = NULL;
                if (r >= 0)
                        r = varlink_client_read(c, first ? arg_timeout_usec : USEC_INFINITY, &reply);
                if (r < 0)
                        return log_call_failure("watch state changes", NULL, r, NULL, NULL), r;
                const char *error = json_string_value(json_object_get(reply, "error"));
                if (error)
                        return log_call_failure("watch state changes", NULL, 0, error, reply);
                json_t *p = reply_parameters(reply);
                json_t *dropped = json_object_get(p, "dropped");
                if (json_is_integer(dropped)) {
                        if (arg_json)
                                print_dropped_json(dropped);
                        else
                                printf("-- %lld state changes not shown: svctl read too slowly --\n",
                                       (long long) json_integer_value(dropped));
                }
                json_t *event = json_object_get(p, "event");
                if (json_is_object(event))
                        print_event(event);
                if (first)
                        /* On stderr, so that scripts know the subscription is in place. */
                        fputs("Watching state changes; press Ctrl-C to stop.\n", stderr);
                if (!json_is_true(json_object_get(reply, "continues")))
                        return EXIT_SUCCESS;
        }
}
