/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * unit_load_string() (daemon/unit-load.c) on arbitrary bytes: the whole ini
 * parser, every key's value parser, the warning and error message builders.
 *
 * Checks what unit.h promises besides "no crash, no leak": exactly one of
 * unit and error comes back; the error names the file; warnings and errors
 * are valid UTF-8 (they go out in JSON) and bounded; a loaded unit has an
 * argv within UNIT_ARGV_MAX, an absolute WorkingDirectory= and environment
 * entries of the form K=V.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/macros.h"
#include "fuzz.h"
#include "unit.h"

/* Longest message a unit may produce: quoted values are cut short. */
#define FUZZ_MESSAGE_MAX 8192U

/* The oracle is jansson, not svd's own validator: messages and these values go out as JSON
 * strings, which jansson refuses unless they are valid UTF-8. */
static bool json_accepts_string(const char *s) {
        json_t *j = json_string(s);
        bool ok = j != NULL;
        json_decref(j);
        return ok;
}

static void check_message(const char *m) {
        fuzz_assert(m);
        fuzz_assert(strlen(m) < FUZZ_MESSAGE_MAX);
        fuzz_assert(json_accepts_string(m));
        fuzz_assert(strncmp(m, "fuzz.service", 12) == 0 || strncmp(m, "fuzz.socket", 11) == 0);
}

static void on_warning(const char *message, void *userdata) {
        size_t *n = userdata;
        check_message(message);
        (*n)++;
}

/* The same bytes as a socket unit (NAME.socket): [Socket] and its addresses. */
static void fuzz_socket_unit(const uint8_t *data, size_t size) {
        _cleanup_(unit_freep) Unit *u = NULL;
        _cleanup_free_ char *error = NULL;
        size_t warnings = 0;

        int r = unit_load_string((const char *) data, size, "fuzz.socket", "fuzz", NULL, on_warning, &warnings,
                                 &u, &error);
        if (r < 0) {
                fuzz_assert(!u);
                if (error)
                        check_message(error);
                return;
        }
        fuzz_assert(u && u->kind == UNIT_KIND_SOCKET);
        fuzz_assert(u->socket.n_listen >= 1 && u->socket.n_listen <= UNIT_SOCKET_LISTEN_MAX);
        fuzz_assert(!u->socket.accept);
        for (size_t i = 0; i < u->socket.n_listen; i++) {
                const SocketListen *l = &u->socket.listen[i];
                fuzz_assert(l->address && json_accepts_string(l->address));
                fuzz_assert(!l->path || l->path[0] == '/');
                fuzz_assert(l->type == SOCKET_LISTEN_FIFO ? l->path != NULL : l->sa_len > 0);
        }
        if (u->socket.fd_name)
                fuzz_assert(socket_fd_name_is_valid(u->socket.fd_name));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(unit_freep) Unit *u = NULL;
        _cleanup_free_ char *error = NULL;
        size_t warnings = 0;

        fuzz_socket_unit(data, size);

        int r = unit_load_string((const char *) data, size, "fuzz.service", "fuzz", NULL, on_warning, &warnings,
                                 &u, &error);
        if (r < 0) {
                fuzz_assert(!u);
                if (error)
                        check_message(error);
                return 0;
        }
        fuzz_assert(u);
        fuzz_assert(!error);
        /* Only a Type=oneshot with ExecStop= may do without ExecStart=. */
        fuzz_assert((u->exec_start && u->exec_start[0]) ||
                    (u->type == SERVICE_TYPE_ONESHOT && u->exec[UNIT_EXEC_STOP].n > 0));
        for (size_t k = 0; k < _UNIT_EXEC_MAX; k++) {
                fuzz_assert(u->exec[k].n <= UNIT_EXEC_COMMANDS_MAX);
                for (size_t i = 0; i < u->exec[k].n; i++) {
                        size_t n = 0;
                        fuzz_assert(u->exec[k].commands[i].argv && u->exec[k].commands[i].argv[0]);
                        for (char **a = u->exec[k].commands[i].argv; *a; a++)
                                n++;
                        fuzz_assert(n <= UNIT_ARGV_MAX);
                }
        }
        if (u->working_directory)
                fuzz_assert(u->working_directory[0] == '/');
        for (char **e = u->environment; e && *e; e++)
                fuzz_assert(strchr(*e, '=') && **e != '=');
        if (u->description)
                fuzz_assert(json_accepts_string(u->description));
        if (u->user)
                fuzz_assert(json_accepts_string(u->user));
        if (u->group)
                fuzz_assert(json_accepts_string(u->group));
        fuzz_assert(u->restart >= 0 && u->restart < _RESTART_POLICY_MAX);
        return 0;
}
