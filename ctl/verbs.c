/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svctl's verbs on services (start, stop, restart, kill, reset-failed, status, list) and info, and
 * the output helpers the verb files share. */
#include "verbs.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parse-util.h"
#include "time-util.h"

/* The contract is daemon/io.svd.Manager.varlink; svctl sees nothing else of svd. */
#define METHOD_INFO "io.svd.Manager.Info"
#define METHOD_LIST "io.svd.Manager.List"
#define METHOD_STATUS "io.svd.Manager.Status"
#define METHOD_START "io.svd.Manager.Start"
#define METHOD_KILL "io.svd.Manager.Kill"
#define METHOD_STOP "io.svd.Manager.Stop"
#define METHOD_RESTART "io.svd.Manager.Restart"
#define METHOD_RELOAD_SERVICE "io.svd.Manager.ReloadService"
#define METHOD_RESET_FAILED "io.svd.Manager.ResetFailed"

#define ERROR_NO_SUCH_SERVICE "io.svd.Manager.NoSuchService"
#define ERROR_CANCELLED "io.svd.Manager.Cancelled"
#define ERROR_UNIT_NOT_LOADED "io.svd.Manager.UnitNotLoaded"
#define ERROR_PERMISSION_DENIED "org.varlink.service.PermissionDenied"
#define ERROR_OUTPUT_DENIED "io.svd.Manager.OutputDenied"
#define ERROR_INVALID_PARAMETER "org.varlink.service.InvalidParameter"
#define ERROR_METHOD_NOT_FOUND "org.varlink.service.MethodNotFound"
#define ERROR_METHOD_NOT_IMPLEMENTED "org.varlink.service.MethodNotImplemented"
#define ERROR_INTERFACE_NOT_FOUND "org.varlink.service.InterfaceNotFound"

#define ANSI_GREEN "\x1B[0;1;32m"
#define ANSI_RED "\x1B[0;1;31m"
#define ANSI_NORMAL "\x1B[0m"

#define USEC_PER_SEC_I ((int64_t) USEC_PER_SEC)

/* ---- output that never lets svd's strings talk to the terminal ---- */

/* Length of the C1 control (U+0080..U+009F, e.g. CSI U+009B) that starts at
 * s in UTF-8, or 0. */
static size_t c1_control_len(const unsigned char *s) {
        return s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f ? 2 : 0;
}

/* Writes s with control characters (C0, DEL, C1) shown as \xNN: a unit's
 * Description= or a peer's error message must not be able to move the
 * cursor or retitle the terminal. */
void fputs_escaped(const char *s, FILE *f) {
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                size_t c1 = c1_control_len(p);
                if (c1 > 0) {
                        fprintf(f, "\\x%02x\\x%02x", p[0], p[1]);
                        p++;
                } else if (*p < 0x20 || *p == 0x7f)
                        fprintf(f, "\\x%02x", *p);
                else
                        fputc(*p, f);
        }
}

/* Columns fputs_escaped() takes for s: one per UTF-8 character, four per escaped byte. */
static size_t escaped_width(const char *s) {
        size_t w = 0;

        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if (c1_control_len(p) > 0) {
                        w += 8;
                        p++;
                } else if (*p < 0x20 || *p == 0x7f)
                        w += 4;
                else if ((*p & 0xc0) != 0x80) /* not a continuation byte */
                        w++;
        }
        return w;
}

_printf_(1, 2) void log_error(const char *format, ...) {
        _cleanup_free_ char *s = NULL;
        va_list ap;

        va_start(ap, format);
        int r = vasprintf(&s, format, ap);
        va_end(ap);

        fputs("svctl: ", stderr);
        if (r < 0) {
                s = NULL; /* undefined after a failure */
                fputs("Out of memory.", stderr);
        } else
                fputs_escaped(s, stderr);
        fputc('\n', stderr);
}

/* "label: value" with the label right-aligned in width columns; the value escaped. */
_printf_(3, 0) static void print_labelled(int width, const char *label, const char *format, va_list ap) {
        _cleanup_free_ char *s = NULL;

        if (vasprintf(&s, format, ap) < 0)
                s = NULL;
        printf("%*s: ", width, label);
        fputs_escaped(s ?: "(out of memory)", stdout);
        fputc('\n', stdout);
}

/* "Label: value", labels right-aligned like systemctl status. */
_printf_(2, 3) void print_field(const char *label, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        print_labelled(11, label, format, ap);
        va_end(ap);
}

static bool use_colors(void) {
        const char *term = getenv("TERM");

        return isatty(STDOUT_FILENO) && isempty(getenv("NO_COLOR")) && !(term && streq(term, "dumb"));
}

int print_json(json_t *v) {
        if (!v) {
                puts("{}");
                return 0;
        }

        _cleanup_free_ char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!s) {
                log_error("Out of memory.");
                return -ENOMEM;
        }
        puts(s);
        return 0;
}

/* ---- reading svd's replies: every field may be missing or mistyped ---- */

const char *json_get_str(json_t *o, const char *key) {
        return json_string_value(json_object_get(o, key));
}

bool json_get_int(json_t *o, const char *key, int64_t *ret) {
        json_t *v = json_object_get(o, key);

        if (!json_is_integer(v))
                return false;
        *ret = (int64_t) json_integer_value(v);
        return true;
}

json_t *reply_parameters(json_t *reply) {
        return json_object_get(reply, "parameters");
}

/* ---- formatting ---- */

/* "5s ago", "3min ago", "2h ago", "4d ago"; "-" for no time. */
const char *format_ago(char *buf, size_t l, int64_t usec) {
        if (usec <= 0)
                return "-";

        int64_t now = (int64_t) now_usec(CLOCK_REALTIME);
        int64_t d = now > usec ? (now - usec) / USEC_PER_SEC_I : 0;

        if (d < 60)
                snprintf(buf, l, "%llds ago", (long long) d);
        else if (d < 60 * 60)
                snprintf(buf, l, "%lldmin ago", (long long) (d / 60));
        else if (d < 24 * 60 * 60)
                snprintf(buf, l, "%lldh ago", (long long) (d / (60 * 60)));
        else
                snprintf(buf, l, "%lldd ago", (long long) (d / (24 * 60 * 60)));
        return buf;
}

/* "Thu 2026-12-03 08:00:00 UTC" in local time, or NULL. */
const char *format_timestamp(char *buf, size_t l, int64_t usec) {
        if (usec <= 0)
                return NULL;

        time_t t = (time_t) (usec / USEC_PER_SEC_I);
        struct tm tm;
        if (!localtime_r(&t, &tm))
                return NULL;
        if (strftime(buf, l, "%a %Y-%m-%d %H:%M:%S %Z", &tm) == 0)
                return NULL;
        return buf;
}

static const char *format_signal(char *buf, size_t l, int64_t sig) {
        const char *abbrev = sig > 0 && sig < INT_MAX ? sigabbrev_np((int) sig) : NULL;

        if (abbrev)
                snprintf(buf, l, "SIG%s", abbrev);
        else
                snprintf(buf, l, "%lld", (long long) sig);
        return buf;
}

/* "exited, status=1", "killed, signal=SIGKILL", "dumped, signal=SIGSEGV", or "-". */
static const char *format_exit(char *buf, size_t l, json_t *exit_status) {
        const char *code = json_get_str(exit_status, "code");
        int64_t status;
        char sig[32];

        if (!code || !json_get_int(exit_status, "status", &status))
                return "-";

        if (streq(code, "killed") || streq(code, "dumped"))
                snprintf(buf, l, "%s, signal=%s", code, format_signal(sig, sizeof(sig), status));
        else
                snprintf(buf, l, "%s, status=%lld", code, (long long) status);
        return buf;
}

/* A word as ExecStart= would take it back (systemd quoting, which
 * extract-word.c parses, and "$$" for a literal '$', as unit.c reads it):
 * plain when safe, else in single quotes with C escapes. */
static void fputs_exec_word(const char *s, FILE *f) {
        static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                    "-_./=:,+@%";

        if (*s && strspn(s, plain) == strlen(s)) {
                fputs(s, f);
                return;
        }

        fputc('\'', f);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                size_t c1 = c1_control_len(p);
                if (*p == '\'' || *p == '\\')
                        fprintf(f, "\\%c", *p);
                else if (*p == '$')
                        fputs("$$", f);
                else if (*p == '\n')
                        fputs("\\n", f);
                else if (*p == '\t')
                        fputs("\\t", f);
                else if (c1 > 0) {
                        fprintf(f, "\\x%02x\\x%02x", p[0], p[1]);
                        p++;
                } else if (*p < 0x20 || *p == 0x7f)
                        fprintf(f, "\\x%02x", *p);
                else
                        fputc(*p, f);
        }
        fputc('\'', f);
}

/* The strings of a JSON array joined by spaces, each quoted as an ExecStart= word when
 * exec_quoting; NULL when there are none (or no memory). */
static char *join_strings(json_t *array, bool exec_quoting) {
        char *buf = NULL;
        size_t size = 0;
        size_t i;
        json_t *a;

        if (!json_is_array(array) || json_array_size(array) == 0)
                return NULL;

        FILE *f = open_memstream(&buf, &size);
        if (!f)
                return NULL;
        json_array_foreach(array, i, a) {
                const char *v = json_string_value(a) ?: "?";
                if (i > 0)
                        fputc(' ', f);
                if (exec_quoting)
                        fputs_exec_word(v, f);
                else
                        fputs(v, f);
        }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

/* ---- errors ---- */

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
                return strdup("cancelled by a later start or stop of the same service");
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

/* Prints "svctl: Failed to <action> ['<name>']: <reason>" and returns the exit code. */
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

/* One call with the timeout in force; name, if any, is the only parameter. */
static int call(VarlinkClient *c, const char *method, const char *name, json_t **ret_reply,
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
static int status_call(VarlinkClient *c, const char *name, bool tail, json_t **ret_reply, const char **ret_error) {
        if (!tail)
                return call(c, METHOD_STATUS, name, ret_reply, ret_error);
        json_t *v = json_string(name);
        if (!v)
                return -EINVAL;
        _cleanup_json_ json_t *parameters = json_pack("{s:o,s:i}", "name", v, "logLines", status_log_lines());
        if (!parameters)
                return -ENOMEM;
        return varlink_client_call(c, METHOD_STATUS, parameters, arg_timeout_usec, ret_reply, ret_error);
}

/* List, streamed: svd sends the services in chunks (each reply's
 * "services" a slice of the sorted list), so that no single message grows
 * with the number of units. Gives a reply as the one-shot call would, with
 * every service, or the error reply. */
static int call_list(VarlinkClient *c, json_t **ret_reply, const char **ret_error) {
        _cleanup_json_ json_t *all = json_array();
        if (!all)
                return -ENOMEM;

        int r = varlink_client_send(c, METHOD_LIST, NULL, /* more= */ true);
        if (r < 0)
                return r;
        for (;;) {
                json_t *reply = NULL;
                r = varlink_client_read(c, arg_timeout_usec, &reply);
                if (r < 0)
                        return r;
                const char *error = json_string_value(json_object_get(reply, "error"));
                if (error) {
                        *ret_reply = reply;
                        *ret_error = error;
                        return 0;
                }
                json_t *chunk = json_object_get(reply_parameters(reply), "services");
                if (!json_is_array(chunk) || json_array_extend(all, chunk) < 0) {
                        json_decref(reply);
                        return -EBADMSG;
                }
                bool more = json_is_true(json_object_get(reply, "continues"));
                json_decref(reply);
                if (!more)
                        break;
        }
        *ret_reply = json_pack("{s:{s:O}}", "parameters", "services", all);
        *ret_error = NULL;
        return *ret_reply ? 0 : -ENOMEM;
}

/* ---- start, stop, restart ---- */

static int verb_change(VarlinkClient *c, int argc, char **argv, const char *method) {
        int ret = EXIT_SUCCESS;

        for (int i = 1; i < argc; i++) {
                _cleanup_json_ json_t *reply = NULL;
                const char *error;

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

/* ---- status ---- */

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
                json_array_foreach(a, k, e)
                        fprintf(f, "%s%s.service", k > 0 ? " " : "", json_string_value(e) ?: "?");
                if (fclose(f) != 0)
                        continue;
                print_field(deps[i].label, "%s", buf);
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
        bool enabled = json_is_true(json_object_get(s, "enabled"));
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

        print_field("Loaded", "%s (%s; %s)", load_state, unit_path, enabled ? "enabled" : "disabled");
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
        print_status_unit(s); /* verbs-unit.c */

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
                        show_status_log_tail(c, argv[i]); /* verbs-stream.c */

                /* The first problem decides the exit code, as in systemctl: 0 for ActiveState=
                 * active (running, or a oneshot's "exited") and reloading, else 3. */
                const char *active = active_state_of(json_get_str(service, "state"));
                if (ret == EXIT_SUCCESS && !streq(active, "active") && !streq(active, "reloading"))
                        ret = EXIT_PROGRAM_NOT_RUNNING;
        }

        return ret;
}

/* ---- list ---- */

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

static void print_table(json_t *services) {
        size_t n = json_array_size(services);
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
        json_array_foreach(services, i, s) {
                row_fill(&rows[i], s);
                for (int k = 0; k < _COLUMN_MAX; k++) {
                        size_t w = escaped_width(rows[i].cell[k]);
                        if (w > width[k])
                                width[k] = w;
                }
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

        if (n > 0)
                fputc('\n', stdout);
        printf("%zu %s listed.\n", n, n == 1 ? "service" : "services");
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

        if (arg_json)
                return print_json(p);

        print_table(services);
        return EXIT_SUCCESS;
}

/* ---- info ---- */

/* "Key: value", unaligned, so that scripts can cut at the first ": ". */
_printf_(2, 3) static void print_info_line(const char *key, const char *format, ...) {
        va_list ap;

        va_start(ap, format);
        print_labelled(/* width= */ 0, key, format, ap);
        va_end(ap);
}

int verb_info(VarlinkClient *c, int argc, char **argv) {
        _cleanup_json_ json_t *reply = NULL;
        int64_t v;

        int r = call_or_fail(c, METHOD_INFO, "get svd's info", &reply);
        if (r != 0)
                return r;

        json_t *p = reply_parameters(reply);
        if (arg_json)
                return print_json(p);

        const char *mode = json_get_str(p, "mode") ?: "-";
        const char *reason = json_get_str(p, "modeReason");
        _cleanup_free_ char *flags = join_strings(json_object_get(p, "flags"), /* exec_quoting= */ false);

        print_info_line("Version", "%s", json_get_str(p, "version") ?: "-");
        print_info_line("Kernel", "%s", json_get_str(p, "kernel") ?: "-");
        print_info_line("Mode", "%s", mode);
        print_info_line("Mode reason", "%s", isempty(reason) ? "-" : reason);
        print_info_line("Flags", "%s", isempty(flags) ? "-" : flags);
        if (json_get_int(p, "pid", &v))
                print_info_line("PID", "%lld", (long long) v);
        else
                print_info_line("PID", "-");
        if (json_get_int(p, "uid", &v))
                print_info_line("UID", "%lld", (long long) v);
        else
                print_info_line("UID", "-");
        print_info_line("Unit directory", "%s", json_get_str(p, "unitDirectory") ?: "-");
        print_info_line("Socket", "%s", json_get_str(p, "socket") ?: "-");
        if (json_get_int(p, "services", &v))
                print_info_line("Services", "%lld", (long long) v);
        else
                print_info_line("Services", "-");
        json_t *cg = json_object_get(p, "cgroup");
        const char *cg_reason = json_get_str(p, "cgroupReason");
        print_info_line("Cgroups", "%s: %s", json_is_true(cg) ? "yes" : "no", isempty(cg_reason) ? "-" : cg_reason);
        /* An older svd does not tell which controllers are missing. */
        _cleanup_free_ char *missing = join_strings(json_object_get(p, "cgroupControllersMissing"),
                                                    /* exec_quoting= */ false);
        if (!isempty(missing)) {
                print_info_line("Missing controllers", "%s (MemoryMax=, TasksMax=, CPUWeight= need memory, pids, "
                                "cpu: not applied without)", missing);
                print_info_line("To get them", "systemd's Delegate=%s for svd.service, on a unified cgroup "
                                "hierarchy (a hybrid or legacy one keeps controllers in cgroup v1: boot with "
                                "systemd.unified_cgroup_hierarchy=1)", missing);
        }

        return EXIT_SUCCESS;
}
