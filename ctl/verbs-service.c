/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svctl's verbs that act on services: start, stop, restart, reload NAME (ExecReload=), kill and
 * reset-failed. Each name is tried in turn; the first failure decides the exit code, as in
 * systemctl. */
#include <stdio.h>
#include <stdlib.h>

#include "call.h"
#include "options.h"
#include "output.h"
#include "verbs.h"

#define METHOD_START "io.svd.Manager.Start"
#define METHOD_KILL "io.svd.Manager.Kill"
#define METHOD_STOP "io.svd.Manager.Stop"
#define METHOD_RESTART "io.svd.Manager.Restart"
#define METHOD_RELOAD_SERVICE "io.svd.Manager.ReloadService"
#define METHOD_RESET_FAILED "io.svd.Manager.ResetFailed"

/* ---- start, stop, restart, reload NAME ---- */

static int verb_change(VarlinkClient *c, int argc, char **argv, const char *method) {
        int ret = EXIT_SUCCESS;

        for (int i = 1; i < argc; i++) {
                _cleanup_json_ json_t *reply = NULL;
                const char *error;

                if (name_is_socket(argv[i])) {
                        int k = EXIT_SUCCESS;
                        int r = socket_change(c, argv[0], argv[i], &k);
                        if (r < 0)
                                return ret != EXIT_SUCCESS ? ret : r;
                        if (ret == EXIT_SUCCESS)
                                ret = k;
                        continue;
                }
                int r = call(c, method, argv[i], &reply, &error);
                if (r < 0) {
                        /* The connection is gone; the rest cannot be tried. */
                        (void) log_call_failure(argv[0], argv[i], r, NULL, NULL);
                        return ret != EXIT_SUCCESS ? ret : r;
                }
                if (error) {
                        /* Like systemctl: report, go on with the others, exit with the first failure. */
                        int k = log_call_failure(argv[0], argv[i], 0, error, reply);
                        if (ret == EXIT_SUCCESS)
                                ret = k;
                        continue;
                }

                if (arg_json) {
                        json_t *p = reply_parameters(reply);
                        json_t *service = json_object_get(p, "service");
                        r = print_json(service ?: p);
                        if (r < 0)
                                return r;
                }
        }

        return ret;
}

int verb_start(VarlinkClient *c, int argc, char **argv) {
        return verb_change(c, argc, argv, METHOD_START);
}

int verb_stop(VarlinkClient *c, int argc, char **argv) {
        return verb_change(c, argc, argv, METHOD_STOP);
}

int verb_restart(VarlinkClient *c, int argc, char **argv) {
        return verb_change(c, argc, argv, METHOD_RESTART);
}

int verb_reload_services(VarlinkClient *c, int argc, char **argv) {
        return verb_change(c, argc, argv, METHOD_RELOAD_SERVICE);
}

/* ---- kill ---- */

int verb_kill(VarlinkClient *c, int argc, char **argv) {
        int ret = EXIT_SUCCESS;

        for (int i = 1; i < argc; i++) {
                _cleanup_json_ json_t *reply = NULL, *parameters = NULL;
                const char *error;

                parameters = json_pack("{s:s,s:i}", "name", argv[i], "signal", arg_signal);
                if (!parameters) {
                        log_error("Failed to kill '%s': invalid name", argv[i]);
                        ret = EXIT_FAILURE;
                        continue;
                }
                int r = varlink_client_call(c, METHOD_KILL, parameters, arg_timeout_usec, &reply, &error);
                if (r < 0) {
                        (void) log_call_failure("kill", argv[i], r, NULL, NULL);
                        return ret != EXIT_SUCCESS ? ret : r;
                }
                if (error) {
                        int k = log_call_failure("kill", argv[i], 0, error, reply);
                        if (ret == EXIT_SUCCESS)
                                ret = k;
                }
        }
        return ret;
}

/* ---- reset-failed ---- */

int verb_reset_failed(VarlinkClient *c, int argc, char **argv) {
        int ret = EXIT_SUCCESS;

        for (int i = argc > 1 ? 1 : 0; i < argc; i++) {
                _cleanup_json_ json_t *reply = NULL;
                const char *name = i > 0 ? argv[i] : NULL, *error;

                int r = call(c, METHOD_RESET_FAILED, name, &reply, &error);
                if (r < 0) {
                        (void) log_call_failure("reset-failed", name, r, NULL, NULL);
                        return ret != EXIT_SUCCESS ? ret : r;
                }
                if (error) {
                        int k = log_call_failure("reset-failed", name, 0, error, reply);
                        if (ret == EXIT_SUCCESS)
                                ret = k;
                        continue;
                }
                if (arg_json) {
                        r = print_json(reply_parameters(reply));
                        if (r < 0)
                                return r;
                }
        }
        return ret;
}
