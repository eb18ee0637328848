/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svctl status: a block per service as systemctl prints it (state, main process, last exit,
 * conditions, dependencies), followed by the last lines of its log; systemctl's exit codes. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "log-lines.h"
#include "options.h"
#include "output.h"
#include "verbs.h"

/* Lines of the log that `status NAME` shows at its end, as systemctl does. */
#define STATUS_LOG_LINES 10

#define ANSI_GREEN "\x1B[0;1;32m"
#define ANSI_RED "\x1B[0;1;31m"
#define ANSI_NORMAL "\x1B[0m"

/* ---- the status block ---- */

/* Type=, sd_notify status, the pending job and the dependencies. */
static void print_status_extra(json_t *s) {
        static const struct {
                const char *key, *label;
        } deps[] = { { "requires", "Requires" }, { "wants", "Wants" }, { "after", "After" }, { "before", "Before" } };
        const char *type = json_get_str(s, "type");
        const char *status_text = json_get_str(s, "statusText");
        const char *job = json_get_str(s, "job");
        int64_t v;

        if (type)
                print_field("Type", "%s", type);
        if (!isempty(status_text)) {
                if (json_get_int(s, "statusErrno", &v))
                        print_field("Status", "\"%s\" (errno %lld)", status_text, (long long) v);
                else
                        print_field("Status", "\"%s\"", status_text);
        }
        if (job)
                print_field("Job", "%s", job);
        for (size_t i = 0; i < ELEMENTSOF(deps); i++) {
                json_t *a = json_object_get(s, deps[i].key), *e;
                size_t k;
                if (!json_is_array(a) || json_array_size(a) == 0)
                        continue;
                _cleanup_free_ char *buf = NULL;
                size_t size = 0;
                FILE *f = open_memstream(&buf, &size);
                if (!f)
                        continue;
                json_array_foreach(a, k, e) {
                        const char *n = json_string_value(e) ?: "?";
                        size_t l = strlen(n);
                        /* A socket unit comes with its suffix: "echo.socket". */
                        bool socket = l > strlen(".socket") && streq(n + l - strlen(".socket"), ".socket");
                        fprintf(f, "%s%s%s", k > 0 ? " " : "", n, socket ? "" : ".service");
                }
                if (fclose(f) != 0)
                        continue;
                print_field(deps[i].label, "%s", buf);
        }
}

/* "Condition: start condition unmet at TIME; AGO" and "└─ X was not met" below, as systemctl. */
static void print_check(json_t *s, const char *label, const char *what, const char *failed_key,
                        const char *usec_key) {
        const char *failed = json_get_str(s, failed_key);
        char ts[128], ago[64];
        int64_t v;

        if (!failed || !json_get_int(s, usec_key, &v))
                return;
        print_field(label, "%s unmet at %s; %s", what, format_timestamp(ts, sizeof(ts), v) ?: "?",
                    format_ago(ago, sizeof(ago), v));
        printf("%13s\u2514\u2500 ", ""); /* └─ */
        fputs_escaped(failed, stdout);
        fputs(" was not met\n", stdout);
}

/* The Condition:, Assert: and Docs: lines (after Active:). */
static void print_status_unit(json_t *s) {
        json_t *docs = json_object_get(s, "documentation"), *e;
        size_t i;

        print_check(s, "Condition", "start condition", "conditionFailed", "conditionUsec");
        print_check(s, "Assert", "start assertion", "assertFailed", "assertUsec");
        /* One URI a line, the label on the first, as systemctl. */
        json_array_foreach(docs, i, e) {
                const char *uri = json_string_value(e);
                if (!uri)
                        continue;
                if (i == 0)
                        print_field("Docs", "%s", uri);
                else {
                        printf("%13s", "");
                        fputs_escaped(uri, stdout);
                        fputc('\n', stdout);
                }
        }
}

static void print_status_block(json_t *s) {
        const char *name = json_get_str(s, "name") ?: "?";
        const char *description = json_get_str(s, "description");
        const char *unit_path = json_get_str(s, "unitPath") ?: "?";
        const char *load_state = json_get_str(s, "loadState") ?: "?";
        const char *load_error = json_get_str(s, "loadError");
        const char *state = json_get_str(s, "state") ?: "?";
        const char *result = json_get_str(s, "result");
        const char *last_error = json_get_str(s, "lastError");
        const char *restart = json_get_str(s, "restart") ?: "?";
        const char *mode = json_get_str(s, "mode");
        /* An svd from before unitFileState sends the bit alone. */
        const char *file_state = json_get_str(s, "unitFileState");
        if (!file_state)
                file_state = json_is_true(json_object_get(s, "enabled")) ? "enabled" : "disabled";
        _cleanup_free_ char *command = join_strings(json_object_get(s, "execStart"), /* exec_quoting= */ true);
        char ts[128], ago[64], buf[128];
        int64_t v;

        const char *on = "", *off = "";
        if (use_colors()) {
                if (streq(state, "running") || streq(state, "reloading") || streq(state, "exited"))
                        on = ANSI_GREEN, off = ANSI_NORMAL;
                else if (streq(state, "failed") || streq(load_state, "error"))
                        on = ANSI_RED, off = ANSI_NORMAL;
        }
        printf("%s\u25CF%s ", on, off); /* ● */
        fputs_escaped(name, stdout);
        fputs(".service", stdout);
        if (!isempty(description)) {
                fputs(" - ", stdout);
                fputs_escaped(description, stdout);
        }
        fputc('\n', stdout);

        print_field("Loaded", "%s (%s; %s)", load_state, unit_path, file_state);
        if (!isempty(load_error))
                print_field("Load error", "%s", load_error);
        /* Everything svd does not apply (notApplied), the sandboxing keys that run unenforced under
         * --allow-unsandboxed among them; an older svd sends the latter only. */
        json_t *sandbox_keys = json_object_get(s, "sandboxNotApplied");
        json_t *all_keys = json_object_get(s, "notApplied");
        _cleanup_free_ char *unsandboxed = join_strings(sandbox_keys, /* exec_quoting= */ false);
        _cleanup_free_ char *not_applied = join_strings(json_is_array(all_keys) ? all_keys : sandbox_keys,
                                                        /* exec_quoting= */ false);
        bool only_sandbox = json_array_size(all_keys) <= json_array_size(sandbox_keys);
        if (!isempty(not_applied))
                print_field("Not applied", "%s (%s)", not_applied,
                            isempty(unsandboxed) ? "svd ignores these, see the warnings at load"
                            : only_sandbox       ? "sandboxing svd does not enforce; --allow-unsandboxed"
                                                 : "svd ignores these; the sandboxing ones are not enforced "
                                                   "under --allow-unsandboxed");

        const char *since = NULL;
        if (json_get_int(s, "stateChangeUsec", &v))
                since = format_timestamp(ts, sizeof(ts), v);
        char result_note[96] = "";
        if (streq(state, "failed") && result && !streq(result, "success"))
                snprintf(result_note, sizeof(result_note), " (Result: %s)", result);
        if (since)
                print_field("Active", "%s%s since %s; %s", state, result_note, since,
                            format_ago(ago, sizeof(ago), v));
        else
                print_field("Active", "%s%s", state, result_note);
        print_status_unit(s);

        if (json_get_int(s, "pid", &v))
                print_field("Main PID", "%lld", (long long) v);
        else
                print_field("Main PID", "-");
        json_t *control = json_object_get(s, "control");
        if (json_is_object(control))
                /* As systemctl's "Cntrl PID:" line, with the key and command. */
                print_field("Control", "%lld (%s=%s)", (long long) json_integer_value(json_object_get(control, "pid")),
                            json_get_str(control, "key") ?: "?", json_get_str(control, "command") ?: "?");
        print_field("Last exit", "%s", format_exit(buf, sizeof(buf), json_object_get(s, "lastExit")));
        if (!json_get_int(s, "restarts", &v))
                v = 0;
        print_field("Restarts", "%lld (Restart=%s)", (long long) v, restart);
        print_field("Mode", "%s", mode ?: "-");
        const char *dies = json_get_str(s, "diesWithSvd");
        if (dies)
                print_field("Dies with svd", "%s",
                            streq(dies, "tree-cgroup")          ? "every process it started (its cgroup, by svd's guard)"
                            : streq(dies, "tree-pid-namespace") ? "every process it started (its PID namespace)"
                            : streq(dies, "main-process")       ? "its main process only (no cgroups, no PrivatePIDs=)"
                                                                : dies);
        print_field("Command", "%s", command ?: "-");
        if (!isempty(last_error))
                print_field("Error", "%s", last_error);
        if (json_get_int(s, "restoredUsec", &v)) {
                const char *when = format_timestamp(ts, sizeof(ts), v);
                print_field("Restored", "yes, started again after svd restarted from a crash%s%s",
                            when ? " at " : "", when ?: "");
        }
        if (json_is_true(json_object_get(s, "reloadPending")))
                print_field("Unit file", "changed at a reload; applies when the service next starts");
        if (json_get_int(s, "logDropped", &v) && v > 0)
                print_field("Log", "%lld lines dropped by the rate limit", (long long) v);
        print_status_extra(s);
}

/* ---- the log tail ---- */

/* The log tail that came with Status (logLines). */
static void show_status_log_lines(json_t *lines) {
        if (json_array_size(lines) == 0)
                return;
        _cleanup_json_ json_t *p = json_pack("{s:O}", "lines", lines);
        if (!p)
                return;
        fputc('\n', stdout);
        print_log_reply(p);
}

/* The last lines of the log, asked for after the status (from an svd that does not know logLines). */
static void show_status_log_tail(VarlinkClient *c, const char *name) {
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

/* ---- status ---- */

/* Status of name, with its log tail when tail. */
static int status_call(VarlinkClient *c, const char *name, bool tail, json_t **ret_reply, const char **ret_error) {
        if (!tail)
                return call(c, METHOD_STATUS, name, ret_reply, ret_error);
        json_t *v = json_string(name);
        if (!v)
                return -EINVAL;
        _cleanup_json_ json_t *parameters = json_pack("{s:o,s:i}", "name", v, "logLines", STATUS_LOG_LINES);
        if (!parameters)
                return -ENOMEM;
        return varlink_client_call(c, METHOD_STATUS, parameters, arg_timeout_usec, ret_reply, ret_error);
}

/* One service: a JSON line, or a status block with a blank line before all but the first. */
static int show_service(json_t *service, bool *first) {
        if (arg_json)
                return print_json(service);

        if (!*first)
                fputc('\n', stdout);
        *first = false;
        print_status_block(service);
        return 0;
}

static int status_all(VarlinkClient *c) {
        _cleanup_json_ json_t *reply = NULL;
        const char *error;
        bool first = true;
        size_t i;
        json_t *s;

        int r = call_list(c, &reply, &error);
        if (r < 0 || error) {
                int k = log_call_failure("list services", NULL, r, error, reply);
                return r < 0 ? r : k;
        }

        json_t *services = json_object_get(reply_parameters(reply), "services");
        if (!json_is_array(services)) {
                log_error("Failed to list services: invalid reply from svd");
                return -EBADMSG;
        }

        json_array_foreach(services, i, s) {
                r = show_service(s, &first);
                if (r < 0)
                        return r;
        }
        return EXIT_SUCCESS;
}

int verb_status(VarlinkClient *c, int argc, char **argv) {
        int ret = EXIT_SUCCESS;
        bool first = true;

        if (argc <= 1)
                return status_all(c);

        for (int i = 1; i < argc; i++) {
                _cleanup_json_ json_t *reply = NULL;
                const char *error;
                int k;

                if (name_is_socket(argv[i])) {
                        k = EXIT_SUCCESS;
                        int r = socket_status(c, argv[i], &k);
                        if (r < 0)
                                return ret != EXIT_SUCCESS ? ret : r;
                        if (ret == EXIT_SUCCESS)
                                ret = k;
                        continue;
                }
                /* With the log tail in the same reply, unless svd is older and does not know logLines. */
                bool tail = !arg_json;
                int r = status_call(c, argv[i], tail, &reply, &error);
                if (r >= 0 && tail && error && streq(error, "org.varlink.service.InvalidParameter")) {
                        json_decref(reply);
                        reply = NULL;
                        tail = false;
                        r = call(c, METHOD_STATUS, argv[i], &reply, &error);
                }
                if (r < 0) {
                        (void) log_call_failure("get status of", argv[i], r, NULL, NULL);
                        return ret != EXIT_SUCCESS ? ret : r;
                }

                if (error) {
                        if (streq(error, ERROR_NO_SUCH_SERVICE)) {
                                /* systemctl's wording, without a program prefix. */
                                fputs("Unit ", stderr);
                                fputs_escaped(argv[i], stderr);
                                fputs(".service could not be found.\n", stderr);
                                k = EXIT_PROGRAM_OR_SERVICES_STATUS_UNKNOWN;
                        } else
                                k = log_call_failure("get status of", argv[i], 0, error, reply);
                        if (ret == EXIT_SUCCESS)
                                ret = k;
                        continue;
                }

                json_t *service = json_object_get(reply_parameters(reply), "service");
                if (!json_is_object(service)) {
                        log_error("Failed to get status of '%s': invalid reply from svd", argv[i]);
                        return ret != EXIT_SUCCESS ? ret : -EBADMSG;
                }

                r = show_service(service, &first);
                if (r < 0)
                        return r;
                const char *withheld = json_get_str(reply_parameters(reply), "logLinesWithheld");
                if (tail && withheld) {
                        /* As systemctl's hint when the journal is not readable: on stderr. */
                        fflush(stdout);
                        fprintf(stderr, "Hint: %s.\n", withheld);
                } else if (tail)
                        show_status_log_lines(json_object_get(reply_parameters(reply), "logLines"));
                else if (!arg_json)
                        show_status_log_tail(c, argv[i]);

                /* The first problem decides the exit code, as in systemctl: 0 for ActiveState=
                 * active (running, or a oneshot's "exited") and reloading, else 3. */
                const char *active = active_state_of(json_get_str(service, "state"));
                if (ret == EXIT_SUCCESS && !streq(active, "active") && !streq(active, "reloading"))
                        ret = EXIT_PROGRAM_NOT_RUNNING;
        }

        return ret;
}
