/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svctl's unit-level verbs as systemctl has them: is-active, is-failed (systemctl's exit codes),
 * cat (the unit file), show (systemd's property names, KEY=VALUE). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call.h"
#include "file-util.h"
#include "options.h"
#include "output.h"
#include "verbs.h"

#define CAT_FILE_MAX (1U << 20) /* bytes of a unit file `cat` prints, svd's own limit */

/* Status of name: 1 and *ret_service, 0 when there is no such service, or the exit code / -errno
 * after the message. */
static int get_service(VarlinkClient *c, const char *action, const char *name, json_t **ret_reply,
                       json_t **ret_service) {
        _cleanup_json_ json_t *parameters = NULL, *reply = NULL;
        const char *error;
        json_t *v = json_string(name);

        if (!v)
                return -EINVAL;
        parameters = json_pack("{s:o}", "name", v);
        if (!parameters)
                return -ENOMEM;
        int r = varlink_client_call(c, METHOD_STATUS, parameters, arg_timeout_usec, &reply, &error);
        if (r < 0) {
                (void) log_call_failure(action, name, r, NULL, NULL);
                return r;
        }
        if (error && streq(error, ERROR_NO_SUCH_SERVICE))
                return 0;
        if (error) {
                int k = log_call_failure(action, name, 0, error, reply);
                return k > 0 ? -k : -EIO;
        }
        json_t *service = json_object_get(reply_parameters(reply), "service");
        if (!json_is_object(service)) {
                log_error("Failed to %s '%s': invalid reply from svd", action, name);
                return -EBADMSG;
        }
        *ret_service = service;
        *ret_reply = TAKE_PTR(reply);
        return 1;
}

/* ---- is-active, is-failed ---- */

/* systemctl's check_unit_generic(): prints each unit's ActiveState= (unless -q), and succeeds when
 * at least one is in one of the states good_a/good_b; a unit that does not exist is "inactive".
 * is-active fails with 3 (LSB "not running"), is-failed with 1. */
static int check_units(VarlinkClient *c, int argc, char **argv, const char *good_a, const char *good_b,
                       int fail_code) {
        bool found = false;

        for (int i = 1; i < argc; i++) {
                _cleanup_json_ json_t *reply = NULL;
                json_t *service = NULL;
                const char *active = "inactive";

                int r = get_service(c, argv[0], argv[i], &reply, &service);
                if (r < 0)
                        return r;
                if (r > 0)
                        active = active_state_of(json_get_str(service, "state"));
                if (streq(active, good_a) || (good_b && streq(active, good_b)))
                        found = true;
                if (!arg_quiet)
                        puts(active);
        }
        return found ? EXIT_SUCCESS : fail_code;
}

int verb_is_active(VarlinkClient *c, int argc, char **argv) {
        return check_units(c, argc, argv, "active", "reloading", EXIT_PROGRAM_NOT_RUNNING);
}

int verb_is_failed(VarlinkClient *c, int argc, char **argv) {
        return check_units(c, argc, argv, "failed", NULL, EXIT_FAILURE);
}

/* ---- cat ---- */

/* The file as it is on disk, read by svctl itself: a unit file may hold secrets, and the file's
 * permissions decide who sees it, as for systemctl cat. */
static int cat_file(const char *path) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        _cleanup_free_ char *buf = NULL;
        size_t n = 0;

        if (fd < 0)
                return -errno;
        int r = read_full_fd(fd, CAT_FILE_MAX, &buf, &n);
        if (r < 0)
                return r;
        printf("# %s\n", path);
        fwrite(buf, 1, n, stdout);
        if (n > 0 && buf[n - 1] != '\n')
                fputc('\n', stdout);
        return 0;
}

int verb_cat(VarlinkClient *c, int argc, char **argv) {
        int ret = EXIT_SUCCESS;

        for (int i = 1; i < argc; i++) {
                _cleanup_json_ json_t *reply = NULL;
                json_t *service = NULL;

                int r = get_service(c, "cat", argv[i], &reply, &service);
                if (r < 0)
                        return r;
                const char *path = r > 0 ? json_get_str(service, "unitPath") : NULL;
                if (isempty(path)) {
                        /* systemctl's words and exit status. */
                        fputs("No files found for ", stderr);
                        fputs_escaped(argv[i], stderr);
                        fputs(".service.\n", stderr);
                        ret = EXIT_FAILURE;
                        continue;
                }
                if (i > 1)
                        fputc('\n', stdout);
                r = cat_file(path);
                if (r < 0) {
                        log_error("Failed to read '%s': %s", path, strerror(-r));
                        ret = EXIT_FAILURE;
                }
        }
        return ret;
}

/* ---- show ---- */

static bool property_wanted(const char *name) {
        if (!arg_properties)
                return true;
        for (char **p = arg_properties; *p; p++)
                if (streq(*p, name))
                        return true;
        return false;
}

/* NAME=VALUE; without -p, empty values are left out, as systemctl show does without --all. */
static void show_property(const char *name, const char *value) {
        if (!property_wanted(name))
                return;
        if (isempty(value) && !arg_properties)
                return;
        if (!arg_value) {
                fputs(name, stdout);
                fputc('=', stdout);
        }
        fputs_escaped(value ?: "", stdout);
        fputc('\n', stdout);
}

_printf_(2, 3) static void show_propertyf(const char *name, const char *format, ...) {
        _cleanup_free_ char *s = NULL;
        va_list ap;

        va_start(ap, format);
        if (vasprintf(&s, format, ap) < 0)
                s = NULL;
        va_end(ap);
        show_property(name, s);
}

static void show_timestamp(const char *name, json_t *o, const char *key) {
        char buf[128];
        int64_t v;

        show_property(name, json_get_int(o, key, &v) ? format_timestamp(buf, sizeof(buf), v) : NULL);
}

/* A list of strings, space-separated; with_suffix adds ".service" to each (dependencies). */
static void show_list(const char *name, json_t *a, bool with_suffix) {
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, i;
        json_t *e;
        FILE *f;

        f = open_memstream(&buf, &size);
        if (!f)
                return;
        json_array_foreach(a, i, e) {
                const char *v = json_string_value(e) ?: "?";
                size_t l = strlen(v);
                /* A socket unit comes with its suffix: "echo.socket". */
                bool socket = l > strlen(".socket") && streq(v + l - strlen(".socket"), ".socket");
                fprintf(f, "%s%s%s", i > 0 ? " " : "", v, with_suffix && !socket ? ".service" : "");
        }
        if (fclose(f) != 0)
                return;
        show_property(name, buf);
}

/* The latest of the times the service entered one of the states. */
static int64_t entered(json_t *s, const char *a, const char *b) {
        json_t *enter = json_object_get(s, "stateEnterUsec");
        int64_t x = 0, y = 0;

        (void) json_get_int(enter, a, &x);
        if (b)
                (void) json_get_int(enter, b, &y);
        return x > y ? x : y;
}

static void show_service_properties(json_t *s) {
        const char *name = json_get_str(s, "name") ?: "?";
        const char *state = json_get_str(s, "state");
        const char *load = json_get_str(s, "loadState") ?: "error";
        json_t *exit_status = json_object_get(s, "lastExit");
        const char *code = json_get_str(exit_status, "code");
        char buf[128];
        int64_t v, pid = 0, status = 0;

        (void) json_get_int(s, "pid", &pid);
        (void) json_get_int(exit_status, "status", &status);

        show_propertyf("Id", "%s.service", name);
        json_t *names = json_object_get(s, "names");
        if (json_is_array(names) && json_array_size(names) > 0)
                show_list("Names", names, /* with_suffix= */ false);
        else
                show_propertyf("Names", "%s.service", name);
        show_property("Description", json_get_str(s, "description"));
        show_list("Documentation", json_object_get(s, "documentation"), false);
        show_property("LoadState", streq(load, "removed") ? "not-found" : load);
        show_property("LoadError", json_get_str(s, "loadError"));
        show_property("ActiveState", active_state_of(state));
        show_property("SubState", sub_state_of(state));
        show_property("FragmentPath", json_get_str(s, "unitPath"));
        const char *file_state = json_get_str(s, "unitFileState"); /* an older svd sends the bit alone */
        show_property("UnitFileState",
                      file_state ?: json_is_true(json_object_get(s, "enabled")) ? "enabled" : "disabled");
        show_property("Type", json_get_str(s, "type"));
        show_property("Restart", json_get_str(s, "restart"));
        show_propertyf("MainPID", "%lld", (long long) pid);
        show_propertyf("ExecMainPID", "%lld", (long long) pid);
        show_timestamp("ExecMainStartTimestamp", s, "activeEnterUsec");
        /* waitid()'s si_code numbers, as systemd shows them: CLD_EXITED 1, CLD_KILLED 2, CLD_DUMPED 3. */
        show_propertyf("ExecMainCode", "%d",
                       !code ? 0 : streq(code, "exited") ? 1 : streq(code, "killed") ? 2 : streq(code, "dumped") ? 3 : 0);
        show_propertyf("ExecMainStatus", "%lld", (long long) status);
        show_property("Result", json_get_str(s, "result"));
        show_propertyf("NRestarts", "%lld", json_get_int(s, "restarts", &v) ? (long long) v : 0LL);
        show_property("StatusText", json_get_str(s, "statusText"));
        show_propertyf("StatusErrno", "%lld", json_get_int(s, "statusErrno", &v) ? (long long) v : 0LL);
        show_list("Requires", json_object_get(s, "requires"), true);
        show_list("Requisite", json_object_get(s, "requisite"), true);
        show_list("Wants", json_object_get(s, "wants"), true);
        show_list("BindsTo", json_object_get(s, "bindsTo"), true);
        show_list("PartOf", json_object_get(s, "partOf"), true);
        show_list("Conflicts", json_object_get(s, "conflicts"), true);
        show_list("OnFailure", json_object_get(s, "onFailure"), true);
        show_list("After", json_object_get(s, "after"), true);
        show_list("Before", json_object_get(s, "before"), true);
        show_property("ConditionResult", json_get_int(s, "conditionUsec", &v) && !json_get_str(s, "conditionFailed")
                                                 ? "yes" : "no");
        show_timestamp("ConditionTimestamp", s, "conditionUsec");
        show_property("AssertResult", json_get_int(s, "assertUsec", &v) && !json_get_str(s, "assertFailed")
                                              ? "yes" : "no");
        show_timestamp("AssertTimestamp", s, "assertUsec");
        show_timestamp("StateChangeTimestamp", s, "stateChangeUsec");
        show_property("ActiveEnterTimestamp", format_timestamp(buf, sizeof(buf), entered(s, "running", "exited")));
        show_property("InactiveEnterTimestamp",
                      format_timestamp(buf, sizeof(buf), entered(s, "inactive", "failed")));
        show_list("NotApplied", json_object_get(s, "notApplied"), false);
}

int verb_show(VarlinkClient *c, int argc, char **argv) {
        int ret = EXIT_SUCCESS;

        for (int i = 1; i < argc; i++) {
                _cleanup_json_ json_t *reply = NULL;
                json_t *service = NULL;

                int r = get_service(c, "show", argv[i], &reply, &service);
                if (r < 0)
                        return r;
                if (i > 1 && !arg_value)
                        fputc('\n', stdout);
                if (r == 0) {
                        /* systemctl show of an unknown unit: its name and "not-found", exit 0. */
                        show_propertyf("Id", "%s.service", argv[i]);
                        show_propertyf("Names", "%s.service", argv[i]);
                        show_property("LoadState", "not-found");
                        show_property("ActiveState", "inactive");
                        show_property("SubState", "dead");
                        continue;
                }
                if (arg_json) {
                        r = print_json(service);
                        if (r < 0)
                                return r;
                        continue;
                }
                show_service_properties(service);
        }
        return ret;
}
