/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A service's log lines as Logs sends them, and how svctl prints them. */
#include "log-lines.h"

#include <stdio.h>

#include "options.h"
#include "output.h"
#include "varlink-wire.h"

void print_dropped_json(json_t *dropped) {
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

void print_log_reply(json_t *p) {
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

json_t *logs_parameters(const char *name, int64_t lines, bool follow) {
        json_t *p = json_pack("{s:s}", "name", name);
        if (p && lines >= 0)
                json_object_set_new(p, "lines", json_integer((json_int_t) lines));
        if (p && follow)
                json_object_set_new(p, "follow", json_true());
        return p;
}
