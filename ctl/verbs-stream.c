/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The verbs that read svd's streams: logs (Logs, with "more" for -f),
 * watch (Subscribe), and the log tail that status prints. */
#include "verbs.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define METHOD_LOGS "io.svd.Manager.Logs"
#define METHOD_SUBSCRIBE "io.svd.Manager.Subscribe"

/* Lines of the log that `status NAME` shows at its end, as systemctl does. */
#define STATUS_LOG_LINES 10

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

/* "2026-12-03 08:00:00.123" in local time. */
static const char *format_time(char *buf, size_t l, json_t *usec) {
        if (!json_is_integer(usec))
                return "-";
        int64_t u = (int64_t) json_integer_value(usec);
        time_t t = (time_t) (u / 1000000);
        struct tm tm;
        char s[64];
        if (!localtime_r(&t, &tm) || strftime(s, sizeof(s), "%Y-%m-%d %H:%M:%S", &tm) == 0)
                return "-";
        snprintf(buf, l, "%s.%03lld", s, (long long) ((u % 1000000) / 1000));
        return buf;
}

/* {"dropped": N} as a JSON line. */
static void print_dropped_json(json_t *dropped) {
        _cleanup_json_ json_t *o = json_pack("{s:O}", "dropped", dropped);
        (void) print_json(o);
}

static void print_log_line(json_t *line) {
        char ts[96];
        const char *stream = json_string_value(json_object_get(line, "stream")) ?: "?";
        const char *msg = json_string_value(json_object_get(line, "message")) ?: "";

        if (arg_json) {
                (void) print_json(line);
                return;
        }
        printf("%s %s: ", format_time(ts, sizeof(ts), json_object_get(line, "timeUsec")), stream);
        fputs_escaped(msg, stdout);
        if (json_is_true(json_object_get(line, "split")))
                fputs(" [continued]", stdout);
        fputc('\n', stdout);
}

static void print_log_reply(json_t *p) {
        size_t i;
        json_t *line;
        json_t *dropped = json_object_get(p, "dropped");

        if (json_is_integer(dropped)) {
                if (arg_json)
                        print_dropped_json(dropped);
                else
                        printf("-- %lld lines not shown: svctl read too slowly --\n",
                               (long long) json_integer_value(dropped));
        }
        json_array_foreach(json_object_get(p, "lines"), i, line)
                print_log_line(line);
}

static json_t *logs_parameters(const char *name, int64_t lines, bool follow) {
        json_t *p = json_pack("{s:s}", "name", name);
        if (p && lines >= 0)
                json_object_set_new(p, "lines", json_integer((json_int_t) lines));
        if (p && follow)
                json_object_set_new(p, "follow", json_true());
        return p;
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

void show_status_log_lines(json_t *lines) {
        if (json_array_size(lines) == 0)
                return;
        _cleanup_json_ json_t *p = json_pack("{s:O}", "lines", lines);
        if (!p)
                return;
        fputc('\n', stdout);
        print_log_reply(p);
}

int status_log_lines(void) {
        return STATUS_LOG_LINES;
}

void show_status_log_tail(VarlinkClient *c, const char *name) {
        _cleanup_json_ json_t *parameters = logs_parameters(name, STATUS_LOG_LINES, false);
        _cleanup_json_ json_t *reply = NULL;
        const char *error;

        if (!parameters ||
            varlink_client_call(c, METHOD_LOGS, parameters, arg_timeout_usec, &reply, &error) < 0 || error)
                return; /* the status itself is out; an older svd without Logs is no failure */
        json_t *lines = json_object_get(reply_parameters(reply), "lines");
        if (json_array_size(lines) == 0)
                return;
        fputc('\n', stdout);
        print_log_reply(reply_parameters(reply));
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
