/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svctl list: a table of the services (name, state, main PID, restarts, since, description), the
 * load errors below it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "options.h"
#include "output.h"
#include "verbs.h"

enum {
        COLUMN_NAME,
        COLUMN_STATE,
        COLUMN_PID,
        COLUMN_RESTARTS,
        COLUMN_SINCE,
        COLUMN_DESCRIPTION,
        _COLUMN_MAX,
};

static const char *const column_header[_COLUMN_MAX] = {
        [COLUMN_NAME] = "NAME",         [COLUMN_STATE] = "STATE", [COLUMN_PID] = "PID",
        [COLUMN_RESTARTS] = "RESTARTS", [COLUMN_SINCE] = "SINCE", [COLUMN_DESCRIPTION] = "DESCRIPTION",
};

typedef struct Row {
        const char *cell[_COLUMN_MAX]; /* borrowed from the reply or from the buffers below */
        char pid[24];
        char restarts[24];
        char since[32];
} Row;

static void row_fill(Row *row, json_t *s) {
        int64_t v;

        const char *load_state = json_get_str(s, "loadState");
        row->cell[COLUMN_NAME] = json_get_str(s, "name") ?: "?";
        row->cell[COLUMN_STATE] = load_state && streq(load_state, "error") ? "load-error"
                                                                          : json_get_str(s, "state") ?: "?";

        if (json_get_int(s, "pid", &v)) {
                snprintf(row->pid, sizeof(row->pid), "%lld", (long long) v);
                row->cell[COLUMN_PID] = row->pid;
        } else
                row->cell[COLUMN_PID] = "-";

        snprintf(row->restarts, sizeof(row->restarts), "%lld",
                 json_get_int(s, "restarts", &v) ? (long long) v : 0LL);
        row->cell[COLUMN_RESTARTS] = row->restarts;

        row->cell[COLUMN_SINCE] = json_get_int(s, "stateChangeUsec", &v)
                                          ? format_ago(row->since, sizeof(row->since), v)
                                          : "-";
        row->cell[COLUMN_DESCRIPTION] = json_get_str(s, "description") ?: "";
}

/* Cells separated by one space, padded to width, without trailing blanks. */
static void print_row(const char *const *cell, const size_t *width) {
        int last = _COLUMN_MAX - 1;

        while (last > 0 && isempty(cell[last]))
                last--;
        for (int i = 0; i <= last; i++) {
                fputs_escaped(cell[i], stdout);
                if (i < last)
                        printf("%*s", (int) (width[i] - escaped_width(cell[i]) + 1), "");
        }
        fputc('\n', stdout);
}

/* A socket unit's row: its state, its triggers in place of restarts. */
static void row_fill_socket(Row *row, json_t *s) {
        int64_t v;
        row->cell[COLUMN_NAME] = json_get_str(s, "name") ?: "?";
        row->cell[COLUMN_STATE] = json_get_str(s, "loadError") ? "load-error" : json_get_str(s, "state") ?: "?";
        row->cell[COLUMN_PID] = "-";
        snprintf(row->restarts, sizeof(row->restarts), "%lld", json_get_int(s, "triggers", &v) ? (long long) v : 0LL);
        row->cell[COLUMN_RESTARTS] = "-";
        row->cell[COLUMN_SINCE] = "-";
        row->cell[COLUMN_DESCRIPTION] = json_get_str(s, "description") ?: "";
}

static void print_table(json_t *services, json_t *sockets) {
        size_t n_services = json_array_size(services), n_sockets = json_array_size(sockets);
        size_t n = n_services + n_sockets;
        size_t width[_COLUMN_MAX];
        size_t i;
        json_t *s;

        _cleanup_free_ Row *rows = calloc(n ?: 1, sizeof(Row));
        if (!rows) {
                log_error("Out of memory.");
                return;
        }

        for (int k = 0; k < _COLUMN_MAX; k++)
                width[k] = strlen(column_header[k]);
        json_array_foreach(services, i, s)
                row_fill(&rows[i], s);
        json_array_foreach(sockets, i, s)
                row_fill_socket(&rows[n_services + i], s);
        for (i = 0; i < n; i++)
                for (int k = 0; k < _COLUMN_MAX; k++) {
                        size_t w = escaped_width(rows[i].cell[k]);
                        if (w > width[k])
                                width[k] = w;
                }

        if (n > 0) {
                print_row(column_header, width);
                for (i = 0; i < n; i++)
                        print_row(rows[i].cell, width);
        }

        /* Load errors name file and line; they do not fit in a column. */
        bool first = true;
        json_array_foreach(services, i, s) {
                const char *load_state = json_get_str(s, "loadState");
                const char *load_error = json_get_str(s, "loadError");

                if (!load_state || !streq(load_state, "error"))
                        continue;
                if (first)
                        fputc('\n', stdout);
                first = false;
                fputs("Failed to load '", stdout);
                fputs_escaped(rows[i].cell[COLUMN_NAME], stdout);
                fputs("': ", stdout);
                fputs_escaped(isempty(load_error) ? "unknown error" : load_error, stdout);
                fputc('\n', stdout);
        }

        json_array_foreach(sockets, i, s) {
                const char *load_error = json_get_str(s, "loadError");
                if (!load_error)
                        continue;
                if (first)
                        fputc('\n', stdout);
                first = false;
                fputs("Failed to load '", stdout);
                fputs_escaped(json_get_str(s, "name") ?: "?", stdout);
                fputs("': ", stdout);
                fputs_escaped(load_error, stdout);
                fputc('\n', stdout);
        }

        if (n > 0)
                fputc('\n', stdout);
        printf("%zu %s listed.\n", n_services, n_services == 1 ? "service" : "services");
        if (n_sockets > 0)
                printf("%zu %s listed.\n", n_sockets, n_sockets == 1 ? "socket" : "sockets");
}

int verb_list(VarlinkClient *c, int argc, char **argv) {
        _cleanup_json_ json_t *reply = NULL;
        const char *error;

        int r = call_list(c, &reply, &error);
        if (r < 0 || error) {
                int k = log_call_failure("list services", NULL, r, error, reply);
                return r < 0 ? r : k;
        }

        json_t *p = reply_parameters(reply);
        json_t *services = json_object_get(p, "services");
        if (!json_is_array(services)) {
                log_error("Failed to list services: invalid reply from svd");
                return -EBADMSG;
        }

        _cleanup_json_ json_t *sockets = socket_list(c);
        if (arg_json) {
                if (sockets && json_object_set(p, "sockets", sockets) < 0)
                        return -ENOMEM;
                return print_json(p);
        }

        print_table(services, sockets);
        return EXIT_SUCCESS;
}
