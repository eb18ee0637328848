/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Handlers for io.svd.Manager.*: argument checks and lookups here, the
 * decisions in service.c. */
#include "varlink-manager.h"

#include <signal.h>
#include <string.h>
#include <sys/utsname.h>

#include "basic/missing-syscall.h"
#include "basic/strv.h"
#include "svd-log.h"
#include "manager.h"
#include "service.h"
#include "reexec.h"
#include "varlink.h"
#include "version.h"

extern const char varlink_idl_io_svd_manager[];

static json_t *flags_to_json(uint64_t flags) {
        static const struct {
                uint64_t flag;
                const char *name;
        } table[] = {
                { CLONE_AUTOREAP, "CLONE_AUTOREAP" },
                { CLONE_NNP, "CLONE_NNP" },
                { CLONE_PIDFD_AUTOKILL, "CLONE_PIDFD_AUTOKILL" },
        };
        json_t *a = json_array();
        for (size_t i = 0; i < ELEMENTSOF(table); i++)
                if (flags & table[i].flag)
                        json_array_append_new(a, json_string(table[i].name));
        return a;
}

static int method_info(VarlinkCall *call, json_t *parameters, void *userdata) {
        Manager *m = userdata;
        static const VarlinkField fields[] = { {} };
        struct utsname u;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        if (uname(&u) < 0)
                return -errno;
        return varlink_call_reply(
                call, json_pack("{s:s,s:s,s:s,s:s,s:o,s:i,s:i,s:s,s:s,s:I,s:b,s:s}", "version", svd_version,
                                "kernel", u.release, "mode", spawn_mode_to_string(m->probe.mode), "modeReason",
                                m->probe.reason, "flags", flags_to_json(m->probe.flags), "pid", (int) getpid(),
                                "uid", (int) m->uid, "unitDirectory", m->unit_dir, "socket", m->socket_path,
                                "services", (json_int_t) m->n_services, "cgroup", m->cgroup.available,
                                "cgroupReason", m->cgroup.reason));
}

#define LIST_CHUNK 100U

static int method_list(VarlinkCall *call, json_t *parameters, void *userdata) {
        Manager *m = userdata;
        static const VarlinkField fields[] = { {} };

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        /* With "more": chunks of LIST_CHUNK services, so that no message
         * grows with the number of units (a client reads 1 MiB at most in
         * one); without: everything in one reply. */
        size_t chunk = varlink_call_wants_more(call) ? LIST_CHUNK : SIZE_MAX;
        size_t i = 0;
        do {
                json_t *a = json_array();
                if (!a)
                        return -ENOMEM;
                for (size_t k = 0; k < chunk && i < m->n_services; k++, i++)
                        json_array_append_new(a, service_to_json(m->services[i]));
                json_t *p = json_pack("{s:o}", "services", a);
                if (!p)
                        return -ENOMEM;
                if (i >= m->n_services)
                        return varlink_call_reply(call, p);
                int r = varlink_call_notify(call, p);
                if (r < 0)
                        return r == -ENOBUFS ? 0 : r; /* dropped: the connection is going */
        } while (true);
}

/* Looks up the `name` parameter; answers the call itself when that fails. */
static Service *lookup_service(Manager *m, VarlinkCall *call, json_t *parameters) {
        static const VarlinkField fields[] = { { "name", JSON_STRING, true }, {} };

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return NULL;
        const char *name = json_string_value(json_object_get(parameters, "name"));
        Service *s = manager_get_service(m, name);
        if (!s)
                (void) varlink_call_error(call, "io.svd.Manager.NoSuchService", json_pack("{s:s}", "name", name));
        return s;
}

/* Lines of the log tail Status gives at most (svctl status asks for 10). */
#define STATUS_LOG_LINES_MAX 1000

static int method_status(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = { { "name", JSON_STRING, true }, { "logLines", JSON_INTEGER, false }, {} };

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        json_t *n = json_object_get(parameters, "logLines");
        if (n && (json_integer_value(n) < 0 || json_integer_value(n) > STATUS_LOG_LINES_MAX))
                return varlink_call_error_invalid_parameter(call, "logLines");
        const char *name = json_string_value(json_object_get(parameters, "name"));
        Service *s = manager_get_service(userdata, name);
        if (!s)
                return varlink_call_error(call, "io.svd.Manager.NoSuchService", json_pack("{s:s}", "name", name));
        json_t *reply = json_pack("{s:o}", "service", service_to_json(s));
        if (!reply)
                return -ENOMEM;
        /* The log tail in the same reply: one round trip for `svctl status`. */
        if (n && json_object_set_new(reply, "logLines",
                                     service_log_lines_json(s->log, (uint64_t) json_integer_value(n))) < 0) {
                json_decref(reply);
                return -ENOMEM;
        }
        return varlink_call_reply(call, reply);
}

/* A unit whose file was removed at a reload runs on until stopped but is not started again. */
static bool refuse_removed(Service *s, VarlinkCall *call) {
        if (!s->removed)
                return false;
        (void) varlink_call_error(call, "io.svd.Manager.UnitNotLoaded",
                                  json_pack("{s:s,s:s}", "name", s->name, "message",
                                            "the unit file was removed (svctl reload)"));
        return true;
}

static int method_start(VarlinkCall *call, json_t *parameters, void *userdata) {
        Service *s = lookup_service(userdata, call, parameters);
        if (!s || refuse_removed(s, call))
                return 0;
        manager_apply_pending(userdata, s);
        manager_record_wanted(userdata, s, /* start= */ true);
        service_start(s, call);
        return 0;
}

static int method_stop(VarlinkCall *call, json_t *parameters, void *userdata) {
        Service *s = lookup_service(userdata, call, parameters);
        if (!s)
                return 0;
        manager_record_wanted(userdata, s, /* start= */ false);
        service_stop(s, call);
        return 0;
}

static int method_restart(VarlinkCall *call, json_t *parameters, void *userdata) {
        Service *s = lookup_service(userdata, call, parameters);
        if (!s || refuse_removed(s, call))
                return 0;
        manager_apply_pending(userdata, s);
        manager_record_wanted(userdata, s, /* start= */ true);
        service_restart(s, call);
        return 0;
}

static int method_logs(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = {
                { "name", JSON_STRING, true }, { "lines", JSON_INTEGER, false }, { "follow", JSON_TRUE, false }, {}
        };
        Manager *m = userdata;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        const char *name = json_string_value(json_object_get(parameters, "name"));
        json_t *lines = json_object_get(parameters, "lines");
        bool follow = json_is_true(json_object_get(parameters, "follow"));
        if (json_is_integer(lines) && json_integer_value(lines) < 0)
                return varlink_call_error_invalid_parameter(call, "lines");
        if (follow && !varlink_call_wants_more(call))
                return varlink_call_error(call, "org.varlink.service.ExpectedMore", NULL);
        Service *s = manager_get_service(m, name);
        if (!s)
                return varlink_call_error(call, "io.svd.Manager.NoSuchService", json_pack("{s:s}", "name", name));
        service_log_query(s->log, call,
                          json_is_integer(lines) ? (uint64_t) json_integer_value(lines) : UINT64_MAX, follow);
        return 0;
}

static int method_subscribe(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = { {} };
        Manager *m = userdata;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        events_subscribe(&m->events, call);
        return 0;
}

static json_t *strv_to_json(char **l) {
        json_t *a = json_array();
        for (char **i = l; a && i && *i; i++)
                json_array_append_new(a, json_string(*i));
        return a;
}

static int method_reload(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = { {} };
        Manager *m = userdata;
        _cleanup_strv_free_ char **added = NULL, **changed = NULL, **removed = NULL;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        int r = manager_reload(m, &added, &changed, &removed);
        if (r < 0) {
                log_error_errno(r, "Failed to reload units from '%s': %m", m->unit_dir);
                return varlink_call_error(call, "io.svd.Manager.ReloadFailed",
                                          json_pack("{s:s,s:s}", "directory", m->unit_dir, "message", strerror(-r)));
        }
        return varlink_call_reply(call, json_pack("{s:o,s:o,s:o}", "added", strv_to_json(added), "changed",
                                                  strv_to_json(changed), "removed", strv_to_json(removed)));
}

static int method_reexec(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = { {} };
        Manager *m = userdata;
        _cleanup_free_ char *error = NULL;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        log_info("Re-exec requested by uid " UID_FMT ".", varlink_call_peer_uid(call));
        int r = manager_reexec(m, call, &error); /* returns only when it failed */
        log_error_errno(r, "Re-exec failed, carrying on: %s", error ? error : strerror(-r));
        return varlink_call_error(call, "io.svd.Manager.ReexecFailed",
                                  json_pack("{s:s,s:i,s:s}", "message", error ? error : strerror(-r), "errno", -r,
                                            "errnoName", strna(strerrorname_np(-r))));
}

static int method_kill(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = { { "name", JSON_STRING, true }, { "signal", JSON_INTEGER, true }, {} };
        Manager *m = userdata;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        json_int_t sig = json_integer_value(json_object_get(parameters, "signal"));
        if (sig < 1 || sig >= NSIG)
                return varlink_call_error_invalid_parameter(call, "signal");
        const char *name = json_string_value(json_object_get(parameters, "name"));
        Service *s = manager_get_service(m, name);
        if (!s)
                return varlink_call_error(call, "io.svd.Manager.NoSuchService", json_pack("{s:s}", "name", name));
        int r = service_kill(s, (int) sig);
        if (r == -ESRCH)
                return varlink_call_error(call, "io.svd.Manager.NotRunning",
                                          json_pack("{s:s,s:s}", "name", s->name, "message",
                                                    "the service has no process to signal"));
        if (r < 0)
                return varlink_call_error(call, "io.svd.Manager.SpawnFailed",
                                          json_pack("{s:s,s:s}", "name", s->name, "message", strerror(-r)));
        return varlink_call_reply(call, NULL);
}

static int method_reset_failed(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = { { "name", JSON_STRING, false }, {} };
        Manager *m = userdata;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        const char *name = json_string_value(json_object_get(parameters, "name"));
        json_t *reset = json_array();
        if (!reset)
                return -ENOMEM;
        if (name) {
                Service *s = manager_get_service(m, name);
                if (!s) {
                        json_decref(reset);
                        return varlink_call_error(call, "io.svd.Manager.NoSuchService", json_pack("{s:s}", "name", name));
                }
                if (service_reset_failed(s))
                        json_array_append_new(reset, json_string(s->name));
        } else
                for (size_t i = 0; i < m->n_services; i++)
                        if (service_reset_failed(m->services[i]))
                                json_array_append_new(reset, json_string(m->services[i]->name));
        return varlink_call_reply(call, json_pack("{s:o}", "reset", reset));
}

static const VarlinkMethod manager_methods[] = {
        { "Info", method_info, 0 },
        { "List", method_list, 0 },
        { "Status", method_status, 0 },
        { "Start", method_start, VARLINK_METHOD_WRITE },
        { "Stop", method_stop, VARLINK_METHOD_WRITE },
        { "Restart", method_restart, VARLINK_METHOD_WRITE },
        { "Kill", method_kill, VARLINK_METHOD_WRITE },
        { "Logs", method_logs, 0 },
        { "Subscribe", method_subscribe, VARLINK_METHOD_REQUIRES_MORE },
        { "Reload", method_reload, VARLINK_METHOD_WRITE },
        { "Reexec", method_reexec, VARLINK_METHOD_WRITE },
        { "ResetFailed", method_reset_failed, VARLINK_METHOD_WRITE },
        {},
};

int varlink_manager_register(Manager *m, VarlinkServer *server) {
        return varlink_server_add_interface(server, "io.svd.Manager", varlink_idl_io_svd_manager, manager_methods, m);
}
