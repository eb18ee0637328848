/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* io.svd.Manager on the control socket: argument checks and lookups here,
 * the decisions in service.c and manager.c; outcomes become replies and
 * io.svd.Manager.* errors only here. */
#include "varlink-manager.h"

#include <signal.h>
#include <string.h>
#include <sys/utsname.h>

#include "basic/missing-syscall.h"
#include "basic/socket-path.h"
#include "basic/strv.h"
#include "basic/unit-name.h"
#include "svd-log.h"
#include "manager.h"
#include "reexec.h"
#include "service-control.h"
#include "service-dirs.h"
#include "service.h"
#include "wanted.h"
#include "varlink-access.h"
#include "varlink-events.h"
#include "varlink-logs.h"
#include "varlink.h"
#include "version.h"

extern const char varlink_idl_io_svd_manager[];

/* The protocol's side of the manager. */
typedef struct VarlinkManager {
        Manager *manager;
        VarlinkServer *server;
        EventSubscribers events; /* Subscribe calls */
        VarlinkAccess access;
} VarlinkManager;

/* The uid a service runs as: User=, else svd's own. */
static uid_t service_uid(const VarlinkManager *vm, const Service *s) {
        return s->def->creds.set ? s->def->creds.uid : vm->manager->uid;
}

/* Whether the caller may read the output of s; if not, *ret_hint says who may. */
static int check_output_access(VarlinkManager *vm, VarlinkCall *call, const Service *s, char **ret_hint) {
        uid_t uid = service_uid(vm, s);
        *ret_hint = NULL;
        if (varlink_access_may_read_output(call, uid))
                return 1;
        *ret_hint = varlink_access_output_hint(&vm->access, s->name, vm->manager->uid, uid);
        return *ret_hint ? 0 : -ENOMEM;
}

/* The io.svd.Manager Service type. */
/* What of s dies with svd, as Service.diesWithSvd says. */
static const char *service_dies_with_svd(const Service *s) {
        if (s->ctx->guarded)
                return "tree-cgroup";
        if (s->def->unit && unit_private_pids(s->def->unit))
                return "tree-pid-namespace";
        return "main-process";
}

static json_t *service_to_json(const Service *s) {
        json_t *o = json_object(), *argv = json_array();
        if (!o || !argv) {
                json_decref(o);
                json_decref(argv);
                return NULL;
        }
        for (char **a = s->def->unit ? s->def->unit->exec_start : NULL; a && *a; a++)
                json_array_append_new(argv, json_string(*a));

        json_object_set_new(o, "name", json_string(s->name));
        json_object_set_new(o, "description",
                            json_string(s->def->unit && s->def->unit->description ? s->def->unit->description : ""));
        json_object_set_new(o, "unitPath", json_string(s->def->path));
        json_t *docs = json_array();
        for (char **d = s->def->unit ? s->def->unit->documentation : NULL; d && *d; d++)
                json_array_append_new(docs, json_string(*d));
        json_object_set_new(o, "documentation", docs);
        json_object_set_new(o, "loadState", json_string(s->removed ? "removed" : s->def->unit ? "loaded" : "error"));
        json_object_set_new(o, "loadError", s->def->load_error ? json_string(s->def->load_error) : json_null());
        json_t *not_applied = json_array();
        for (char **k = s->def->unit ? s->def->unit->not_applied : NULL; k && *k; k++)
                json_array_append_new(not_applied, json_string(*k));
        if (s->def->unit) {
                /* The limits svd's cgroup cannot apply: known only once svd knows its cgroup, so
                 * not recorded by the unit's load, but warned about there all the same. */
                const char *keys[CGROUP_LIMIT_KEYS_MAX + 1];
                cgroup_limits_not_applied(s->ctx->cgroup, s->def->unit->memory_max, s->def->unit->tasks_max,
                                          s->def->unit->cpu_weight, keys, /* ret_controllers= */ NULL);
                for (const char **k = keys; *k; k++)
                        if (!strv_contains(s->def->unit->not_applied, *k))
                                json_array_append_new(not_applied, json_string(*k));
        }
        json_object_set_new(o, "notApplied", not_applied);
        if (s->def->unit && s->def->unit->sandbox.not_applied) {
                json_t *keys = json_array();
                for (char **k = s->def->unit->sandbox.not_applied; *k; k++)
                        json_array_append_new(keys, json_string(*k));
                json_object_set_new(o, "sandboxNotApplied", keys);
        }
        json_object_set_new(o, "state", json_string(service_state_to_string(s->state)));
        json_object_set_new(o, "stateChangeUsec", json_integer((json_int_t) s->state_change_usec));
        json_t *enter = json_object();
        for (int i = 0; i < _SERVICE_STATE_MAX; i++)
                if (s->state_enter_usec[i] > 0)
                        json_object_set_new(enter, service_state_to_string(i),
                                            json_integer((json_int_t) s->state_enter_usec[i]));
        json_object_set_new(o, "stateEnterUsec", enter);
        json_object_set_new(o, "activeEnterUsec",
                            process_is_set(&s->run.main) ? json_integer((json_int_t) s->run.active_enter_usec)
                                                     : json_null());
        json_object_set_new(o, "pid", process_is_set(&s->run.main) ? json_integer(service_main_process(s)->pid) : json_null());
        json_object_set_new(o, "result", json_string(service_result_to_string(s->result)));
        json_object_set_new(o, "lastExit",
                            s->have_exit ? json_pack("{s:s,s:i}", "code",
                                                     strna(exit_code_to_string(s->last_exit.code)), "status",
                                                     s->last_exit.status)
                                         : json_null());
        json_object_set_new(o, "lastError", s->last_error ? json_string(s->last_error) : json_null());
        json_object_set_new(o, "restarts", json_integer(s->restarts));
        json_object_set_new(o, "restart",
                            json_string(s->def->unit ? restart_policy_to_string(s->def->unit->restart) : "no"));
        json_object_set_new(o, "enabled", json_boolean(s->file_state == UNIT_FILE_ENABLED));
        json_object_set_new(o, "unitFileState", json_string(unit_file_state_to_string(s->file_state)));
        json_object_set_new(o, "mode", process_is_set(&s->run.main)
                                               ? json_string(spawn_mode_to_string(s->run.main.mode))
                                               : json_null());
        json_object_set_new(o, "execStart", argv);
        json_object_set_new(o, "type", json_string(s->def->unit ? service_type_to_string(s->def->unit->type) : "simple"));
        json_object_set_new(o, "statusText", s->run.status_text ? json_string(s->run.status_text) : json_null());
        json_object_set_new(o, "statusErrno", s->run.status_errno >= 0 ? json_integer(s->run.status_errno) : json_null());
        json_object_set_new(o, "job", s->job != SERVICE_JOB_NONE ? json_string(service_job_to_string(s->job))
                                                                 : json_null());
        static const char *const dep_keys[_UNIT_DEPENDENCY_MAX] = {
                [UNIT_REQUIRES] = "requires",
                [UNIT_WANTS] = "wants",
                [UNIT_AFTER] = "after",
                [UNIT_BEFORE] = "before",
        };
        for (UnitDependency d = 0; d < _UNIT_DEPENDENCY_MAX; d++) {
                json_t *a = json_array();
                for (char **n = s->def->unit ? s->def->unit->dependencies[d] : NULL; n && *n; n++)
                        json_array_append_new(a, json_string(*n));
                json_object_set_new(o, dep_keys[d], a);
        }
        static const char *const rel_keys[_UNIT_RELATION_MAX] = {
                [UNIT_REQUISITE] = "requisite", [UNIT_BINDS_TO] = "bindsTo", [UNIT_PART_OF] = "partOf",
                [UNIT_CONFLICTS] = "conflicts", [UNIT_ON_FAILURE] = "onFailure",
        };
        for (UnitRelation d = 0; d < _UNIT_RELATION_MAX; d++) {
                json_t *a = json_array();
                for (char **n = s->def->unit ? s->def->unit->relations[d] : NULL; n && *n; n++)
                        json_array_append_new(a, json_string(*n));
                json_object_set_new(o, rel_keys[d], a);
        }
        json_t *names = json_array();
        json_array_append_new(names, json_pack("s+", s->name, ".service"));
        for (char **n = s->def->unit ? s->def->unit->aliases : NULL; n && *n; n++)
                json_array_append_new(names, json_pack("s+", *n, ".service"));
        json_object_set_new(o, "names", names);
        json_object_set_new(o, "logDropped", json_integer((json_int_t) (s->log ? s->log->dropped : 0)));
        json_object_set_new(o, "wanted", json_string(wanted_override_to_string(s->wanted)));
        json_object_set_new(o, "restoredUsec",
                            s->restored_usec > 0 ? json_integer((json_int_t) s->restored_usec) : json_null());
        json_object_set_new(o, "reloadPending", json_boolean(s->next != NULL));
        json_object_set_new(o, "diesWithSvd", json_string(service_dies_with_svd(s)));
        _cleanup_strv_free_ char **state_dirs = NULL;
        json_t *sd = json_array();
        if (service_dirs_paths(s, EXEC_DIRECTORY_STATE, &state_dirs) >= 0)
                for (char **d = state_dirs; d && *d; d++)
                        json_array_append_new(sd, json_string(*d));
        json_object_set_new(o, "stateDirectories", sd);
        json_object_set_new(o, "conditionFailed", s->condition_failed ? json_string(s->condition_failed) : json_null());
        json_object_set_new(o, "conditionUsec",
                            s->condition_usec > 0 ? json_integer((json_int_t) s->condition_usec) : json_null());
        json_object_set_new(o, "assertFailed", s->assert_failed ? json_string(s->assert_failed) : json_null());
        json_object_set_new(o, "assertUsec",
                            s->assert_usec > 0 ? json_integer((json_int_t) s->assert_usec) : json_null());
        /* ExecStartPre= ... ExecStopPost=: the command that runs now. */
        Process *control = service_control_process((Service *) s);
        const char *control_command = service_control_command(s);
        if (control && control_command)
                json_object_set_new(o, "control",
                                    json_pack("{s:i,s:s,s:s}", "pid", (int) control->pid, "key",
                                              unit_exec_to_string(s->control.kind), "command", control_command));
        return o;
}

/* ---- jobs: a call waits for the state machine's outcome ---- */

static void on_job_cancel(VarlinkCall *call, void *userdata) {
        service_forget_waiters(userdata, call); /* the peer went away; the call is freed by varlink.c */
}

static void on_job_done(Service *s, const ServiceJobResult *r, void *userdata) {
        VarlinkCall *call = userdata;
        const SpawnFailure *f = r->failure;

        varlink_call_set_cancel(call, NULL, NULL);
        switch (r->outcome) {
        case SERVICE_OUTCOME_DONE:
                (void) varlink_call_reply(call, json_pack("{s:o}", "service", service_to_json(s)));
                return;
        case SERVICE_OUTCOME_CANCELLED:
                (void) varlink_call_error(call, "io.svd.Manager.Cancelled",
                                          r->message ? json_pack("{s:s,s:s}", "name", s->name, "message", r->message)
                                                     : json_pack("{s:s}", "name", s->name));
                return;
        case SERVICE_OUTCOME_NOT_LOADED:
                (void) varlink_call_error(call, "io.svd.Manager.UnitNotLoaded",
                                          json_pack("{s:s,s:s}", "name", s->name, "message", r->message));
                return;
        case SERVICE_OUTCOME_SHUTTING_DOWN:
        case SERVICE_OUTCOME_SPAWN_FAILED:
                (void) varlink_call_error(call, "io.svd.Manager.SpawnFailed",
                                          json_pack("{s:s,s:s}", "name", s->name, "message", r->message));
                return;
        case SERVICE_OUTCOME_EXEC_FAILED:
                (void) varlink_call_error(call, "io.svd.Manager.ExecFailed",
                                          json_pack("{s:s,s:s,s:i,s:s,s:s}", "name", s->name, "stage",
                                                    strna(spawn_stage_to_string(f->stage)), "errno", f->error,
                                                    "errnoName", strna(strerrorname_np(f->error)), "message",
                                                    r->message));
                return;
        case SERVICE_OUTCOME_START_FAILED:
                (void) varlink_call_error(call, "io.svd.Manager.StartFailed",
                                          json_pack("{s:s,s:s,s:s}", "name", s->name, "result",
                                                    strna(service_result_to_string(r->result)), "message",
                                                    r->message));
                return;
        case SERVICE_OUTCOME_RELOAD_FAILED:
                (void) varlink_call_error(call, "io.svd.Manager.ServiceReloadFailed",
                                          json_pack("{s:s,s:s}", "name", s->name, "message", r->message));
                return;
        case SERVICE_OUTCOME_DEPENDENCY_FAILED:
                (void) varlink_call_error(call, "io.svd.Manager.DependencyFailed",
                                          json_pack("{s:s,s:s,s:s}", "name", s->name, "dependency",
                                                    r->dependency, "message", r->message));
                return;
        case SERVICE_OUTCOME_ASSERT_FAILED:
                (void) varlink_call_error(call, "io.svd.Manager.AssertFailed",
                                          json_pack("{s:s,s:s,s:s}", "name", s->name, "assert",
                                                    strna(s->assert_failed), "message", r->message));
                return;
        default:
                assert(!"bad outcome");
        }
}


/* Runs op with the call waiting for its outcome. */
static int service_job(Service *s, VarlinkCall *call, ServiceOpFn op) {
        varlink_call_set_cancel(call, on_job_cancel, s);
        int r = op(s, on_job_done, call);
        if (r < 0) {
                varlink_call_set_cancel(call, NULL, NULL);
                return varlink_call_error_errno(call, -r);
        }
        return 0;
}


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
        Manager *m = ((VarlinkManager *) userdata)->manager;
        static const VarlinkField fields[] = { {} };
        struct utsname u;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        if (uname(&u) < 0)
                return -errno;
        const char *have[CGROUP_LIMIT_KEYS_MAX + 1], *lack[CGROUP_LIMIT_KEYS_MAX + 1];
        cgroup_root_controllers(&m->cgroup, /* enabled= */ true, have);
        cgroup_root_controllers(&m->cgroup, /* enabled= */ false, lack);
        json_t *controllers = json_array(), *missing = json_array();
        for (const char **c = have; *c; c++)
                json_array_append_new(controllers, json_string(*c));
        for (const char **c = lack; *c; c++)
                json_array_append_new(missing, json_string(*c));
        bool access = m->cgroup.available && m->bpf.devices && m->bpf.firewall;
        return varlink_call_reply(
                call, json_pack("{s:s,s:s,s:s,s:s,s:o,s:i,s:i,s:s,s:s,s:I,s:b,s:s,s:o,s:o,s:b,s:s,s:s,s:s,s:o,s:o}",
                                "version", svd_version,
                                "kernel", u.release, "mode", spawn_mode_to_string(m->probe.mode), "modeReason",
                                m->probe.reason, "flags", flags_to_json(m->probe.flags), "pid", (int) getpid(),
                                "uid", (int) m->uid, "unitDirectory", m->unit_dir, "socket", m->socket_path,
                                "services", (json_int_t) m->ctx.n_services, "cgroup", m->cgroup.available,
                                "cgroupReason", m->cgroup.reason, "cgroupControllers", controllers,
                                "cgroupControllersMissing", missing, "accessLists", access, "accessListsReason",
                                m->cgroup.available ? m->bpf.reason : m->cgroup.reason, "processTrees",
                                m->ctx.guarded ? "whole-trees" : "main-processes", "processTreesReason",
                                m->ctx.guarded ? "svd's guard kills every process of the services' cgroups when svd dies"
                                : m->cgroup.available ? "svd's guard could not be started: the main process of each service "
                                                        "dies with svd, its whole tree with PrivatePIDs=yes"
                                                      : "no cgroups: the main process of each service dies with svd, its "
                                                        "whole tree with PrivatePIDs=yes",
                                "guardPid", process_is_set(&m->guard.proc) ? json_integer(m->guard.proc.pid) : json_null(),
                                "notifySocket",
                                m->notify_fd >= 0 && m->notify_path ? json_string(m->notify_path) : json_null()));
}

#define LIST_CHUNK 100U

/* Replies with the items item(m, 0 .. n-1) under key (an item NULL is left out): with "more", in
 * replies of LIST_CHUNK items each, so that no message grows with the number of units; without, in
 * one. */
static int reply_in_chunks(VarlinkCall *call, const char *key, size_t n, json_t *(*item)(Manager *m, size_t i),
                           Manager *m) {
        size_t chunk = varlink_call_wants_more(call) ? LIST_CHUNK : SIZE_MAX;
        size_t i = 0;
        do {
                json_t *a = json_array();
                if (!a)
                        return -ENOMEM;
                for (size_t k = 0; k < chunk && i < n; i++) {
                        json_t *o = item(m, i);
                        if (!o)
                                continue;
                        json_array_append_new(a, o);
                        k++;
                }
                json_t *p = json_pack("{s:o}", key, a);
                if (!p)
                        return -ENOMEM;
                if (i >= n)
                        return varlink_call_reply(call, p);
                int r = varlink_call_notify(call, p);
                if (r < 0)
                        return r == -ENOBUFS ? 0 : r; /* dropped: the connection is going */
        } while (true);
}

static json_t *list_item(Manager *m, size_t i) {
        return service_to_json(m->ctx.services[i]);
}

/* List with "more" over more than a chunk of services: the names as they are at the call, and one
 * chunk built and queued per turn of the event loop at idle priority, so that the services' events
 * and other clients are served between chunks (10 000 services take svd a few hundred ms to put
 * into JSON). A service removed meanwhile is left out. While the reader lags more than
 * VARLINK_OUTPUT_HIGH behind, no chunk is built: the next try is LIST_BACKLOG_RETRY_USEC later. */
#define LIST_BACKLOG_RETRY_USEC (5 * USEC_PER_MSEC)

typedef struct ListCursor {
        VarlinkCall *call;
        Manager *m;
        char **names;
        size_t n, next;
        sd_event_source *source;
} ListCursor;

static ListCursor *list_cursor_free(ListCursor *c) {
        if (!c)
                return NULL;
        sd_event_source_disable_unref(c->source);
        strv_free(c->names);
        free(c);
        return NULL;
}

static void on_list_cancel(VarlinkCall *call, void *userdata) {
        list_cursor_free(userdata); /* the peer went away; the call is freed by varlink.c */
}

/* The next chunk of names, as JSON. */
static json_t *list_cursor_chunk(ListCursor *c) {
        json_t *a = json_array();
        if (!a)
                return NULL;
        for (size_t k = 0; k < LIST_CHUNK && c->next < c->n; c->next++) {
                Service *s = service_lookup(&c->m->ctx, c->names[c->next]);
                json_t *o = s ? service_to_json(s) : NULL;
                if (o && json_array_append_new(a, o) >= 0)
                        k++;
        }
        return json_pack("{s:o}", "services", a);
}

static int list_cursor_arm(ListCursor *c, uint64_t usec) {
        int r = sd_event_source_set_time_relative(c->source, usec);
        if (r >= 0)
                r = sd_event_source_set_enabled(c->source, SD_EVENT_ONESHOT);
        return r;
}

static int on_list_next(sd_event_source *source, uint64_t usec, void *userdata) {
        ListCursor *c = userdata;
        VarlinkCall *call = c->call;
        int r;

        if (varlink_call_output_queued(call) > VARLINK_OUTPUT_HIGH)
                r = list_cursor_arm(c, LIST_BACKLOG_RETRY_USEC);
        else {
                json_t *p = list_cursor_chunk(c);
                if (!p)
                        r = -ENOMEM;
                else if (c->next >= c->n) {
                        varlink_call_set_cancel(call, NULL, NULL);
                        list_cursor_free(c);
                        (void) varlink_call_reply(call, p);
                        return 0;
                } else {
                        r = varlink_call_notify(call, p);
                        if (r == -ENOBUFS) {
                                /* The connection is being dropped; its cancel frees c. */
                                (void) sd_event_source_set_enabled(source, SD_EVENT_OFF);
                                return 0;
                        }
                        if (r >= 0)
                                r = list_cursor_arm(c, 0);
                }
        }
        if (r < 0) {
                varlink_call_set_cancel(call, NULL, NULL);
                list_cursor_free(c);
                (void) varlink_call_error_errno(call, r);
        }
        return 0;
}

static int method_list(VarlinkCall *call, json_t *parameters, void *userdata) {
        Manager *m = ((VarlinkManager *) userdata)->manager;
        static const VarlinkField fields[] = { {} };

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        /* With "more": chunks of LIST_CHUNK services, so that no message
         * grows with the number of units (a client reads 1 MiB at most in
         * one), more than one of them from the event loop; without:
         * everything in one reply. */
        if (!varlink_call_wants_more(call) || m->ctx.n_services <= LIST_CHUNK)
                return reply_in_chunks(call, "services", m->ctx.n_services, list_item, m);

        ListCursor *c = malloc(sizeof(ListCursor));
        if (!c)
                return -ENOMEM;
        *c = (ListCursor){ .call = call, .m = m, .n = m->ctx.n_services };
        c->names = calloc(c->n + 1, sizeof(char *));
        if (!c->names) {
                free(c);
                return -ENOMEM;
        }
        for (size_t i = 0; i < c->n; i++)
                if (!(c->names[i] = strdup(m->ctx.services[i]->name))) {
                        list_cursor_free(c);
                        return -ENOMEM;
                }
        int r = sd_event_add_time_relative(m->event, &c->source, CLOCK_MONOTONIC, 0, /* accuracy= */ 1,
                                           on_list_next, c);
        if (r >= 0)
                r = sd_event_source_set_priority(c->source, SD_EVENT_PRIORITY_IDLE);
        if (r < 0) {
                list_cursor_free(c);
                return r;
        }
        (void) sd_event_source_set_description(c->source, "list");
        varlink_call_set_cancel(call, on_list_cancel, c);
        /* The first chunk now: it is what a terminal shows first. */
        on_list_next(c->source, 0, c);
        return 0;
}

/* Looks up the `name` parameter; answers the call itself when that fails. */
static Service *lookup_service(VarlinkManager *vm, VarlinkCall *call, json_t *parameters) {
        static const VarlinkField fields[] = { { "name", JSON_STRING, true }, {} };

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return NULL;
        const char *name = json_string_value(json_object_get(parameters, "name"));
        Service *s = service_lookup(&vm->manager->ctx, name);
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
        VarlinkManager *vm = userdata;
        const char *name = json_string_value(json_object_get(parameters, "name"));
        Service *s = service_lookup(&vm->manager->ctx, name);
        if (!s)
                return varlink_call_error(call, "io.svd.Manager.NoSuchService", json_pack("{s:s}", "name", name));
        _cleanup_free_ char *hint = NULL;
        int allowed = n ? check_output_access(vm, call, s, &hint) : 0;
        if (allowed < 0)
                return allowed;
        json_t *reply = json_pack("{s:o}", "service", service_to_json(s));
        if (!reply)
                return -ENOMEM;
        /* The log tail in the same reply: one round trip for `svctl status`.
         * Who may not read it gets the state and the reason instead. */
        if (n && json_object_set_new(reply, allowed ? "logLines" : "logLinesWithheld",
                                     allowed ? varlink_log_lines(s->log, (uint64_t) json_integer_value(n))
                                             : json_string(hint)) < 0) {
                json_decref(reply);
                return -ENOMEM;
        }
        return varlink_call_reply(call, reply);
}

/* Start, Stop, Restart: the manager's policy (manager_job_prepare()), its outcome as the reply. */
static int method_job(VarlinkCall *call, json_t *parameters, VarlinkManager *vm, ManagerJob job) {
        static const VarlinkField fields[] = { { "name", JSON_STRING, true }, {} };
        const char *refusal = NULL;
        Service *s = NULL;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        const char *name = json_string_value(json_object_get(parameters, "name"));
        int r = manager_job_prepare(vm->manager, job, name, /* record= */ true, &s, &refusal);
        if (r == -ESRCH)
                return varlink_call_error(call, "io.svd.Manager.NoSuchService", json_pack("{s:s}", "name", name));
        if (r == -EBADR)
                return varlink_call_error(call, "io.svd.Manager.UnitNotLoaded",
                                          json_pack("{s:s,s:s}", "name", s->name, "message", refusal));
        if (r < 0)
                return varlink_call_error_errno(call, -r);
        return service_job(s, call, manager_job_op(job));
}

static int method_start(VarlinkCall *call, json_t *parameters, void *userdata) {
        return method_job(call, parameters, userdata, MANAGER_JOB_START);
}

static int method_stop(VarlinkCall *call, json_t *parameters, void *userdata) {
        return method_job(call, parameters, userdata, MANAGER_JOB_STOP);
}

static int method_restart(VarlinkCall *call, json_t *parameters, void *userdata) {
        return method_job(call, parameters, userdata, MANAGER_JOB_RESTART);
}

static int method_reload_service(VarlinkCall *call, json_t *parameters, void *userdata) {
        VarlinkManager *vm = userdata;
        Service *s = lookup_service(vm, call, parameters);
        if (!s)
                return 0;
        return service_job(s, call, service_reload);
}

static int method_logs(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = {
                { "name", JSON_STRING, true }, { "lines", JSON_INTEGER, false }, { "follow", JSON_TRUE, false }, {}
        };
        VarlinkManager *vm = userdata;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        const char *name = json_string_value(json_object_get(parameters, "name"));
        json_t *lines = json_object_get(parameters, "lines");
        bool follow = json_is_true(json_object_get(parameters, "follow"));
        if (json_is_integer(lines) && json_integer_value(lines) < 0)
                return varlink_call_error_invalid_parameter(call, "lines");
        if (follow && !varlink_call_wants_more(call))
                return varlink_call_error(call, "org.varlink.service.ExpectedMore", NULL);
        Service *s = service_lookup(&vm->manager->ctx, name);
        if (!s)
                return varlink_call_error(call, "io.svd.Manager.NoSuchService", json_pack("{s:s}", "name", name));
        _cleanup_free_ char *hint = NULL;
        int r = check_output_access(vm, call, s, &hint);
        if (r < 0)
                return r;
        if (r == 0)
                return varlink_call_error(call, "io.svd.Manager.OutputDenied",
                                          json_pack("{s:s,s:s}", "name", s->name, "message", hint));
        varlink_log_query(s->log, call,
                          json_is_integer(lines) ? (uint64_t) json_integer_value(lines) : UINT64_MAX, follow);
        return 0;
}

static int method_subscribe(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = { {} };
        VarlinkManager *vm = userdata;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        events_subscribe(&vm->events, call);
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
        Manager *m = ((VarlinkManager *) userdata)->manager;
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
        Manager *m = ((VarlinkManager *) userdata)->manager;
        _cleanup_free_ char *error = NULL;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        /* A re-exec that works answers from the next svd, past the server's log of outcomes. */
        log_info("Reexec {} by uid " UID_FMT " (pid %d): re-executing.", varlink_call_peer_uid(call),
                 (int) varlink_call_peer_pid(call));
        int reply_fd = varlink_call_connection_fd(call);
        if (reply_fd < 0)
                log_notice("The connection that asked for the re-exec cannot be handed over (%s), it closes.",
                           strerror(-reply_fd));
        int r = manager_reexec(m, reply_fd, &error); /* returns only when it failed */
        log_error_errno(r, "Re-exec failed, carrying on: %s", error ? error : strerror(-r));
        return varlink_call_error(call, "io.svd.Manager.ReexecFailed",
                                  json_pack("{s:s,s:i,s:s}", "message", error ? error : strerror(-r), "errno", -r,
                                            "errnoName", strna(strerrorname_np(-r))));
}

static int method_kill(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = { { "name", JSON_STRING, true }, { "signal", JSON_INTEGER, true }, {} };
        Manager *m = ((VarlinkManager *) userdata)->manager;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        json_int_t sig = json_integer_value(json_object_get(parameters, "signal"));
        if (sig < 1 || sig >= NSIG)
                return varlink_call_error_invalid_parameter(call, "signal");
        const char *name = json_string_value(json_object_get(parameters, "name"));
        Service *s = service_lookup(&m->ctx, name);
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
        Manager *m = ((VarlinkManager *) userdata)->manager;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        const char *name = json_string_value(json_object_get(parameters, "name"));
        json_t *reset = json_array();
        if (!reset)
                return -ENOMEM;
        if (name) {
                Service *s = service_lookup(&m->ctx, name);
                if (!s) {
                        json_decref(reset);
                        return varlink_call_error(call, "io.svd.Manager.NoSuchService", json_pack("{s:s}", "name", name));
                }
                if (service_reset_failed(s))
                        json_array_append_new(reset, json_string(s->name));
        } else
                for (size_t i = 0; i < m->ctx.n_services; i++)
                        if (service_reset_failed(m->ctx.services[i]))
                                json_array_append_new(reset, json_string(m->ctx.services[i]->name));
        return varlink_call_reply(call, json_pack("{s:o}", "reset", reset));
}

/* ---- unit files: enabling ---- */

/* name: a service's without ".service", a socket unit's NAME.socket. */
static json_t *unit_file_to_json(const char *name, const char *path, UnitFileState state) {
        return json_pack("{s:s+,s:s,s:s}", "name", name, unit_install_name_is_socket(name) ? "" : UNIT_NAME_SUFFIX,
                         "path", path, "state", unit_file_state_to_string(state));
}

/* The UnitFile of name (as asked for, without ".service") after a change; NULL when out of memory. */
static json_t *unit_file_of_name(Manager *m, const char *name) {
        UnitFileState state;
        const char *path;

        if (manager_unit_file_state(m, name, &state, &path) < 0)
                return NULL;
        return unit_file_to_json(name, path, state);
}

static json_t *changes_to_json(const UnitFileChanges *c) {
        json_t *a = json_array();
        for (size_t i = 0; a && i < c->n; i++)
                json_array_append_new(a, json_pack("{s:s,s:s,s:s?}", "type",
                                                   unit_file_change_type_to_string(c->items[i].type), "path",
                                                   c->items[i].path, "source", c->items[i].source));
        return a;
}

/* EnableUnitFile, DisableUnitFile: the manager's enabling, its outcome as the reply. */
static int method_install(VarlinkCall *call, json_t *parameters, VarlinkManager *vm, bool enable) {
        static const VarlinkField fields[] = { { "name", JSON_STRING, true }, {} };
        _cleanup_(unit_file_changes_done) UnitFileChanges changes = {};
        _cleanup_(manager_install_failure_done) ManagerInstallFailure failure = {};
        _cleanup_free_ char *name = NULL;
        bool carries = false;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        name = strdup(json_string_value(json_object_get(parameters, "name")));
        if (!name)
                return -ENOMEM;
        unit_name_strip_suffix(name);
        int r = manager_install(vm->manager, name, enable, &changes, &carries, &failure);
        switch (r) {
        case 0:
                break;
        case -ENOMEM:
                return r;
        case -ESRCH:
                return varlink_call_error(call, "io.svd.Manager.NoSuchService", json_pack("{s:s}", "name", failure.name));
        case -ENOEXEC:
                return varlink_call_error(call, "io.svd.Manager.UnitNotLoaded",
                                          json_pack("{s:s,s:s}", "name", failure.name, "message", failure.message));
        case -EBADR:
                return varlink_call_error(call, "io.svd.Manager.EnableRefused",
                                          json_pack("{s:s,s:s}", "name", failure.name, "message", failure.message));
        default: {
                _cleanup_free_ char *message = NULL;
                if (asprintf(&message, "cannot write '%s': %s", strna(failure.path), strerror(-r)) < 0)
                        return -ENOMEM;
                return varlink_call_error(call, "io.svd.Manager.UnitFileNotWritable",
                                          json_pack("{s:s,s:s,s:i,s:s,s:s}", "name", failure.name, "path",
                                                    strna(failure.path), "errno", -r, "errnoName",
                                                    strna(strerrorname_np(-r)), "message", message));
        }
        }
        json_t *unit_file = unit_file_of_name(vm->manager, name);
        if (!unit_file)
                return -ENOMEM;
        if (!enable)
                return varlink_call_reply(call, json_pack("{s:o,s:o}", "unitFile", unit_file, "changes",
                                                          changes_to_json(&changes)));
        return varlink_call_reply(call, json_pack("{s:o,s:b,s:o}", "unitFile", unit_file, "carriesInstallInfo",
                                                  carries, "changes", changes_to_json(&changes)));
}

static int method_enable_unit_file(VarlinkCall *call, json_t *parameters, void *userdata) {
        return method_install(call, parameters, userdata, /* enable= */ true);
}

static int method_disable_unit_file(VarlinkCall *call, json_t *parameters, void *userdata) {
        return method_install(call, parameters, userdata, /* enable= */ false);
}

static int method_get_unit_file_state(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = { { "name", JSON_STRING, true }, {} };
        VarlinkManager *vm = userdata;
        _cleanup_free_ char *name = NULL;
        UnitFileState state;
        const char *path;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        name = strdup(json_string_value(json_object_get(parameters, "name")));
        if (!name)
                return -ENOMEM;
        unit_name_strip_suffix(name);
        int r = manager_unit_file_state(vm->manager, name, &state, &path);
        if (r == -ESRCH)
                return varlink_call_error(call, "io.svd.Manager.NoSuchService", json_pack("{s:s}", "name", name));
        if (r < 0)
                return r;
        return varlink_call_reply(call, json_pack("{s:o}", "unitFile", unit_file_to_json(name, path, state)));
}

/* The unit files: no instance (its file is its template's), no unit whose file went; the socket
 * units after the services. */
static json_t *unit_file_item(Manager *m, size_t i) {
        if (i >= m->ctx.n_services) {
                const Socket *so = m->sockets[i - m->ctx.n_services];
                _cleanup_free_ char *name = NULL;
                if (asprintf(&name, "%s%s", so->name, UNIT_INSTALL_SOCKET_SUFFIX) < 0)
                        return NULL;
                return unit_file_to_json(name, so->path, so->file_state);
        }
        const Service *s = m->ctx.services[i];
        if (s->removed || (strchr(s->name, '@') && !unit_name_is_template(s->name)))
                return NULL;
        return unit_file_to_json(s->name, (s->next ?: s->def)->path, s->file_state);
}

static int method_list_unit_files(VarlinkCall *call, json_t *parameters, void *userdata) {
        static const VarlinkField fields[] = { {} };
        Manager *m = ((VarlinkManager *) userdata)->manager;

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        manager_refresh_unit_files(m, /* instantiate= */ false);
        return reply_in_chunks(call, "unitFiles", m->ctx.n_services + m->n_sockets, unit_file_item, m);
}

/* ---- socket units (manager-socket.h) ---- */

static json_t *socket_to_json(const Socket *s) {
        json_t *listen = json_array();
        const UnitSocket *us = s->unit ? &s->unit->socket : NULL;
        for (size_t i = 0; listen && us && i < us->n_listen; i++)
                json_array_append_new(listen, json_pack("{s:s,s:s}", "type",
                                                        socket_listen_type_to_string(us->listen[i].type),
                                                        "address", us->listen[i].address));
        _cleanup_free_ char *name = NULL, *service = NULL;
        bool accept = us && us->accept;
        if (asprintf(&name, "%s.socket", s->name) < 0 ||
            asprintf(&service, "%s%s.service", socket_service_name(s), accept ? "@" : "") < 0) {
                json_decref(listen);
                return NULL;
        }
        return json_pack("{s:s,s:s,s:o,s:s,s:s,s:o,s:I,s:b,s:o,s:o,s:b,s:I,s:I,s:I}", "name", name, "path", s->path ?: "",
                         "description",
                         s->unit && s->unit->description ? json_string(s->unit->description) : json_null(),
                         "service", service, "state", socket_state_to_string(s->state), "listen",
                         listen ?: json_array(), "triggers", (json_int_t) s->n_triggers, "wantedByDefault",
                         s->unit && s->unit->wanted_by_default, "loadError",
                         s->load_error ? json_string(s->load_error) : json_null(), "lastError",
                         s->last_error ? json_string(s->last_error) : json_null(), "accept", accept, "accepted",
                         (json_int_t) s->n_accepted, "connections", (json_int_t) s->n_connections, "maxConnections",
                         (json_int_t) (us ? us->max_connections : 0));
}

static int method_list_sockets(VarlinkCall *call, json_t *parameters, void *userdata) {
        Manager *m = ((VarlinkManager *) userdata)->manager;
        static const VarlinkField fields[] = { {} };

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return 0;
        json_t *a = json_array();
        if (!a)
                return -ENOMEM;
        /* Sorted by name, as List. */
        const Socket *prev = NULL;
        for (size_t k = 0; k < m->n_sockets; k++) {
                const Socket *next = NULL;
                for (size_t i = 0; i < m->n_sockets; i++) {
                        const Socket *s = m->sockets[i];
                        if ((!prev || strcmp(s->name, prev->name) > 0) && (!next || strcmp(s->name, next->name) < 0))
                                next = s;
                }
                if (!next)
                        break;
                json_array_append_new(a, socket_to_json(next));
                prev = next;
        }
        return varlink_call_reply(call, json_pack("{s:o}", "sockets", a));
}

/* Looks up the `name` parameter; answers the call itself when that fails. */
static Socket *lookup_socket(VarlinkManager *vm, VarlinkCall *call, json_t *parameters) {
        static const VarlinkField fields[] = { { "name", JSON_STRING, true }, {} };

        if (varlink_call_check_parameters(call, parameters, fields) < 0)
                return NULL;
        const char *name = json_string_value(json_object_get(parameters, "name"));
        Socket *s = manager_socket_find(vm->manager, name);
        if (!s)
                (void) varlink_call_error(call, "io.svd.Manager.NoSuchSocket", json_pack("{s:s}", "name", name));
        return s;
}

static int reply_socket(VarlinkCall *call, const Socket *s) {
        return varlink_call_reply(call, json_pack("{s:o}", "socket", socket_to_json(s)));
}

static int method_socket_status(VarlinkCall *call, json_t *parameters, void *userdata) {
        Socket *s = lookup_socket(userdata, call, parameters);
        return s ? reply_socket(call, s) : 0;
}

static int reply_socket_failed(VarlinkCall *call, const Socket *s, const char *error) {
        return varlink_call_error(call, "io.svd.Manager.SocketFailed",
                                  json_pack("{s:s,s:s}", "name", s->name, "message", error ?: "failed"));
}

/* A start or stop that waited for the socket unit's commands ended. */
static void on_socket_done(Socket *s, int r, void *userdata) {
        VarlinkCall *call = userdata;
        varlink_call_set_cancel(call, NULL, NULL);
        if (r == -ECANCELED)
                (void) varlink_call_error(call, "io.svd.Manager.Cancelled", json_pack("{s:s}", "name", s->name));
        else if (r < 0)
                (void) reply_socket_failed(call, s, s->last_error);
        else
                (void) reply_socket(call, s);
}

static void on_socket_cancel(VarlinkCall *call, void *userdata) {
        manager_socket_unwait(userdata, call);
}

/* Replies now, or once the socket unit's commands have run. */
static int reply_socket_when_done(VarlinkCall *call, Socket *s) {
        if (!manager_socket_is_busy(s))
                return reply_socket(call, s);
        int r = manager_socket_wait(s, on_socket_done, call);
        if (r < 0)
                return r;
        varlink_call_set_cancel(call, on_socket_cancel, s);
        return 0;
}

static int method_start_socket(VarlinkCall *call, json_t *parameters, void *userdata) {
        Socket *s = lookup_socket(userdata, call, parameters);
        if (!s)
                return 0;
        _cleanup_free_ char *error = NULL;
        int r = manager_socket_start(s, &error);
        /* Listening, it is wanted from now on: bound again after a crash (wanted.h). One that failed
         * is not listening, and is not bound again. */
        if (manager_socket_set_wanted(s, r >= 0 ? WANTED_START : s->wanted == WANTED_START ? WANTED_DEFAULT : s->wanted))
                manager_save_wanted(s->manager);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                log_error("%s.socket: %s", s->name, error ?: strerror(-r));
                return reply_socket_failed(call, s, error ?: strerror(-r));
        }
        return reply_socket_when_done(call, s);
}

static int method_stop_socket(VarlinkCall *call, json_t *parameters, void *userdata) {
        Socket *s = lookup_socket(userdata, call, parameters);
        if (!s)
                return 0;
        if (manager_socket_set_wanted(s, WANTED_STOP))
                manager_save_wanted(s->manager);
        (void) manager_socket_begin_stop(s);
        return reply_socket_when_done(call, s);
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
        { "ReloadService", method_reload_service, VARLINK_METHOD_WRITE },
        /* Runs a binary as svd's user: not for the manage group. */
        { "Reexec", method_reexec, VARLINK_METHOD_WRITE | VARLINK_METHOD_OWNER },
        { "ResetFailed", method_reset_failed, VARLINK_METHOD_WRITE },
        /* Enabling changes what starts with svd: for those who may start and stop services. */
        { "EnableUnitFile", method_enable_unit_file, VARLINK_METHOD_WRITE },
        { "DisableUnitFile", method_disable_unit_file, VARLINK_METHOD_WRITE },
        { "GetUnitFileState", method_get_unit_file_state, 0 },
        { "ListUnitFiles", method_list_unit_files, 0 },
        { "ListSockets", method_list_sockets, 0 },
        { "SocketStatus", method_socket_status, 0 },
        { "StartSocket", method_start_socket, VARLINK_METHOD_WRITE },
        { "StopSocket", method_stop_socket, VARLINK_METHOD_WRITE },
        {},
};

/* ---- the manager's hooks ---- */

static int hook_listen(Manager *m, int listen_fd, void *userdata) {
        VarlinkManager *vm = userdata;
        VarlinkServerInfo info = {
                .vendor = "svd",
                .product = "svd",
                .version = svd_version,
                .url = "https://github.com/svd-project/svd",
        };
        int r;

        if (listen_fd < 0) {
                /* Binding replaces a stale socket on the path: only where
                 * nobody else can put one, or a link, there (socket-path.h). */
                _cleanup_free_ char *reason = NULL;
                r = socket_path_check(m->socket_path, m->uid, &reason);
                if (r < 0)
                        return log_error_errno(r, "Refusing to listen on '%s': %s.", m->socket_path,
                                               reason ? reason : strerror(-r));
        }
        if (listen_fd >= 0)
                r = varlink_server_new_from_fd(m->event, m->socket_path, listen_fd, &info, m->uid, &vm->server);
        else
                r = varlink_server_new(m->event, m->socket_path, &info, m->uid, &vm->server);
        if (r == -EADDRINUSE)
                return log_error_errno(r, "Another svd is already listening on '%s'.", m->socket_path);
        if (r < 0)
                return log_error_errno(r, "Failed to listen on '%s': %m", m->socket_path);
        VarlinkGroups groups = varlink_access_groups(&vm->access);
        varlink_server_set_groups(vm->server, &groups);
        r = varlink_server_add_interface(vm->server, "io.svd.Manager", varlink_idl_io_svd_manager, manager_methods,
                                         vm);
        if (r < 0)
                return log_error_errno(r, "Failed to register io.svd.Manager: %m");
        log_info("Listening on '%s'%s.", m->socket_path, listen_fd >= 0 ? " (handed over)" : "");
        return 0;
}

static int hook_listen_fd(void *userdata) {
        VarlinkManager *vm = userdata;
        return vm->server ? varlink_server_listen_fd(vm->server) : -EBADF;
}

static int hook_answer_reexec(int fd, json_t *parameters, void *userdata) {
        VarlinkManager *vm = userdata;
        if (!vm->server) {
                json_decref(parameters);
                return -ENOTCONN;
        }
        return varlink_server_add_connection_reply(vm->server, fd, parameters);
}

static void hook_state_changed(Service *s, ServiceState previous, void *userdata) {
        VarlinkManager *vm = userdata;
        events_emit_state_change(&vm->events, s, previous);
}

static void hook_free(void *userdata) {
        VarlinkManager *vm = userdata;
        events_done(&vm->events);
        vm->server = varlink_server_free(vm->server);
        varlink_access_done(&vm->access);
        free(vm);
}

static const ManagerHooks varlink_manager_hooks = {
        .listen = hook_listen,
        .listen_fd = hook_listen_fd,
        .answer_reexec = hook_answer_reexec,
        .state_changed = hook_state_changed,
        .free = hook_free,
};

int varlink_manager_attach(Manager *m) {
        assert(m);
        VarlinkManager *vm = calloc(1, sizeof(*vm));
        if (!vm)
                return -ENOMEM;
        vm->manager = m;
        vm->access = (VarlinkAccess){ .output_gid = GID_INVALID, .manage_gid = GID_INVALID };
        manager_set_hooks(m, &varlink_manager_hooks, vm);
        return 0;
}

VarlinkServer *varlink_manager_server(Manager *m) {
        return m->hooks == &varlink_manager_hooks ? ((VarlinkManager *) m->hooks_userdata)->server : NULL;
}

int varlink_manager_set_access(Manager *m, const char *output_group, const char *manage_group) {
        assert(m);
        assert(m->hooks == &varlink_manager_hooks);
        VarlinkManager *vm = m->hooks_userdata;
        const char *which = NULL;

        varlink_access_done(&vm->access);
        int r = varlink_access_resolve(&vm->access, output_group, manage_group, &which);
        if (r == -ESRCH)
                return log_error_errno(r, "Unknown group '%s' for --%s-group (%s= in svd.conf).",
                                       streq(which, "log") ? output_group : manage_group, which,
                                       streq(which, "log") ? "LogGroup" : "ManageGroup");
        if (r < 0)
                return log_error_errno(r, "Failed to resolve the groups of --log-group and --manage-group (LogGroup=, "
                                          "ManageGroup=): %m");
        if (vm->access.output_group)
                log_debug("Group '%s' (gid " GID_FMT ") may read every service's output.", vm->access.output_group,
                          vm->access.output_gid);
        if (vm->access.manage_group)
                log_info("Group '%s' (gid " GID_FMT ") may start, stop, restart, kill, reset, reload, enable and "
                         "disable services.",
                         vm->access.manage_group, vm->access.manage_gid);
        return 0;
}
