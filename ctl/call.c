/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svctl's calls to svd, and what a failed one prints. */
#include "call.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "output.h"
#include "parse-util.h"

#define METHOD_LIST "io.svd.Manager.List"

#define ERROR_CANCELLED "io.svd.Manager.Cancelled"
#define ERROR_UNIT_NOT_LOADED "io.svd.Manager.UnitNotLoaded"
#define ERROR_PERMISSION_DENIED "org.varlink.service.PermissionDenied"
#define ERROR_OUTPUT_DENIED "io.svd.Manager.OutputDenied"
#define ERROR_INVALID_PARAMETER "org.varlink.service.InvalidParameter"
#define ERROR_METHOD_NOT_FOUND "org.varlink.service.MethodNotFound"
#define ERROR_METHOD_NOT_IMPLEMENTED "org.varlink.service.MethodNotImplemented"
#define ERROR_INTERFACE_NOT_FOUND "org.varlink.service.InterfaceNotFound"

int call(VarlinkClient *c, const char *method, const char *name, json_t **ret_reply,
                const char **ret_error) {
        _cleanup_json_ json_t *parameters = NULL;

        if (name) {
                json_t *v = json_string(name);
                if (!v) /* not UTF-8 */
                        return -EINVAL;
                parameters = json_object();
                if (!parameters || json_object_set_new(parameters, "name", v) < 0)
                        return -ENOMEM;
        }

        return varlink_client_call(c, method, parameters, arg_timeout_usec, ret_reply, ret_error);
}

int call_or_fail(VarlinkClient *c, const char *method, const char *action, json_t **ret_reply) {
        _cleanup_json_ json_t *reply = NULL;
        const char *error;

        int r = call(c, method, /* name= */ NULL, &reply, &error);
        if (r < 0 || error) {
                int k = log_call_failure(action, NULL, r, error, reply);
                return r < 0 ? r : k;
        }
        *ret_reply = TAKE_PTR(reply);
        return 0;
}

/* Status of name, with its log tail when tail. */

int call_chunks(VarlinkClient *c, const char *method, const char *key, json_t **ret_all, json_t **ret_error_reply,
                const char **ret_error) {
        _cleanup_json_ json_t *all = json_array();
        if (!all)
                return -ENOMEM;

        int r = varlink_client_send(c, method, NULL, /* more= */ true);
        if (r < 0)
                return r;
        for (;;) {
                json_t *reply = NULL;
                r = varlink_client_read(c, arg_timeout_usec, &reply);
                if (r < 0)
                        return r;
                const char *error = json_string_value(json_object_get(reply, "error"));
                if (error) {
                        *ret_all = NULL;
                        *ret_error_reply = reply;
                        *ret_error = error;
                        return 0;
                }
                json_t *chunk = json_object_get(reply_parameters(reply), key);
                if (!json_is_array(chunk) || json_array_extend(all, chunk) < 0) {
                        json_decref(reply);
                        return -EBADMSG;
                }
                bool more = json_is_true(json_object_get(reply, "continues"));
                json_decref(reply);
                if (!more)
                        break;
        }
        *ret_all = TAKE_PTR(all);
        *ret_error_reply = NULL;
        *ret_error = NULL;
        return 0;
}

/* svd sends the services in chunks (each reply's "services" a slice of the sorted list), so that no
 * single message grows with the number of units. */
int call_list(VarlinkClient *c, json_t **ret_reply, const char **ret_error) {
        _cleanup_json_ json_t *all = NULL;
        json_t *error_reply = NULL;

        int r = call_chunks(c, METHOD_LIST, "services", &all, &error_reply, ret_error);
        if (r < 0)
                return r;
        if (*ret_error) {
                *ret_reply = error_reply;
                return 0;
        }
        *ret_reply = json_pack("{s:{s:O}}", "parameters", "services", all);
        return *ret_reply ? 0 : -ENOMEM;
}

/* A failed call in a few words: a transport error (r < 0) or a varlink error. */
static char *describe_failure(int r, const char *error, json_t *reply, const char *name) {
        char *s = NULL;
        int k;

        if (r < 0) {
                char t[64];

                switch (r) {
                case -ECONNRESET:
                case -EPIPE:
                        return strdup("svd closed the connection");
                case -ETIMEDOUT:
                        k = asprintf(&s, "no reply from svd within %s",
                                     format_timespan(t, sizeof(t), arg_timeout_usec));
                        return k < 0 ? NULL : s;
                case -EBADMSG:
                        return strdup("invalid reply from svd");
                case -EMSGSIZE:
                        return strdup("reply from svd is too large");
                case -ENOTCONN:
                        return strdup("connection to svd lost");
                default:
                        return strdup(strerror(-r));
                }
        }

        json_t *p = reply_parameters(reply);
        const char *message = json_get_str(p, "message");
        if (streq(error, ERROR_OUTPUT_DENIED)) {
                k = asprintf(&s, "Permission denied (%s)", message ?: "?");
                return k < 0 ? NULL : s;
        }
        if (!isempty(message))
                return strdup(message);

        if (streq(error, ERROR_NO_SUCH_SERVICE))
                k = asprintf(&s, "Unit %s.service not found.", name ?: json_get_str(p, "name") ?: "?");
        else if (streq(error, ERROR_PERMISSION_DENIED))
                return strdup("Permission denied");
        else if (streq(error, ERROR_INVALID_PARAMETER))
                k = asprintf(&s, "invalid parameter '%s'", json_get_str(p, "parameter") ?: "?");
        else if (streq(error, ERROR_CANCELLED))
                return strdup(json_get_str(p, "message") ?: "cancelled by a later start or stop of the same service");
        else if (streq(error, ERROR_UNIT_NOT_LOADED))
                return strdup("the unit file could not be loaded");
        else if (streq(error, ERROR_METHOD_NOT_FOUND) || streq(error, ERROR_METHOD_NOT_IMPLEMENTED))
                k = asprintf(&s, "svd does not implement '%s'", json_get_str(p, "method") ?: "?");
        else if (streq(error, ERROR_INTERFACE_NOT_FOUND))
                k = asprintf(&s, "svd does not implement '%s'", json_get_str(p, "interface") ?: "?");
        else
                k = asprintf(&s, "svd replied with error %s", error);
        return k < 0 ? NULL : s;
}

int log_call_failure(const char *action, const char *name, int r, const char *error, json_t *reply) {
        _cleanup_free_ char *reason = describe_failure(r, error, reply, name);

        if (name)
                log_error("Failed to %s '%s': %s", action, name, reason ?: "out of memory");
        else
                log_error("Failed to %s: %s", action, reason ?: "out of memory");

        if (r >= 0 && error && streq(error, ERROR_NO_SUCH_SERVICE))
                return EXIT_PROGRAM_OR_SERVICES_STATUS_UNKNOWN;
        return EXIT_FAILURE;
}
