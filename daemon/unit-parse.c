/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The values of unit file keys (unit-parse.h): one parser per kind of value, each setting one field of
 * Unit, and the messages they and the reader report. */
#include "unit-parse.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cap-ng.h>

#include "basic/extract-word.h"
#include "basic/parse-util.h"
#include "basic/strv.h"
#include "basic/unit-name.h"
#include "basic/utf8.h"
#include "logfile.h"
#include "unit-specifier.h"

/* Limits on input the parsers hold beyond those in unit.h: every size a unit file controls is bounded. */
#define UNIT_WANTED_BY_MAX     64U  /* words in all WantedBy= of one file */
#define UNIT_USER_NAME_MAX     255U /* bytes in User=/Group= (LOGIN_NAME_MAX less the NUL) */
#define UNIT_GROUPS_MAX        64U  /* SupplementaryGroups= entries */
#define UNIT_WARNINGS_MAX      32U  /* warnings reported for one file; the rest are summarised */
#define UNIT_MESSAGE_VALUE_MAX 80U  /* bytes of a value quoted in a message */

#define UNIT_RESTART_USEC_DEFAULT      (100 * USEC_PER_MSEC)
#define UNIT_TIMEOUT_STOP_USEC_DEFAULT (90 * USEC_PER_SEC)
#define UNIT_TIMEOUT_START_USEC_DEFAULT (90 * USEC_PER_SEC)
#define UNIT_START_LIMIT_INTERVAL_USEC_DEFAULT (10 * USEC_PER_SEC) /* systemd's DefaultStartLimitIntervalSec= */
#define UNIT_START_LIMIT_BURST_DEFAULT 5U                          /* systemd's DefaultStartLimitBurst= */

/* Bytes a user controls are quoted in messages with control characters escaped and at most
 * UNIT_MESSAGE_VALUE_MAX bytes kept, so that a message is one bounded line on a terminal. Messages
 * end up in JSON, so a value that is not valid UTF-8 has its high bytes escaped as well. */
char *message_quote(const char *s) {
        _cleanup_free_ char *head = NULL;
        size_t n = strlen(s);
        bool truncated = n > UNIT_MESSAGE_VALUE_MAX, escape_high;
        char *q, *t;

        if (truncated) {
                n = UNIT_MESSAGE_VALUE_MAX;
                /* Do not cut a UTF-8 sequence in half. */
                while (n > 0 && ((unsigned char) s[n] & 0xC0) == 0x80)
                        n--;
        }
        head = strndup(s, n);
        if (!head)
                return NULL;
        escape_high = !utf8_is_valid(head);

        q = t = malloc(n * 4 + strlen("...") + 1);
        if (!q)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) head[i];

                if (c < 0x20 || c == 0x7F || (escape_high && c >= 0x80))
                        t += sprintf(t, "\\x%02x", c);
                else
                        *t++ = (char) c;
        }
        if (truncated)
                t = stpcpy(t, "...");
        *t = '\0';
        return q;
}

/* Records the first error as "PATH:LINE: MESSAGE" (or "PATH: MESSAGE" for line 0) and returns it. */
_printf_(4, 5) int parser_error(UnitParser *p, int error, unsigned line, const char *format, ...) {
        _cleanup_free_ char *m = NULL;
        va_list ap;
        int k;

        assert(p);
        assert(error < 0);

        if (p->error < 0)
                return p->error;
        p->error = error;

        va_start(ap, format);
        k = vasprintf(&m, format, ap);
        va_end(ap);
        if (k < 0)
                return error; /* the message is lost, the error is not */

        if (line > 0)
                k = asprintf(&p->error_message, "%s:%u: %s", p->path, line, m);
        else
                k = asprintf(&p->error_message, "%s: %s", p->path, m);
        if (k < 0)
                p->error_message = NULL;
        return error;
}

int parser_oom(UnitParser *p) {
        return parser_error(p, -ENOMEM, p->line, "Out of memory");
}

/* "PATH:LINE: Invalid value 'VALUE' for KEY=: REASON" */
_printf_(3, 4) int invalid_value(UnitParser *p, int error, const char *format, ...) {
        _cleanup_free_ char *reason = NULL, *v = NULL;
        va_list ap;
        int k;

        va_start(ap, format);
        k = vasprintf(&reason, format, ap);
        va_end(ap);
        if (k < 0)
                return parser_oom(p);
        v = message_quote(p->value);
        if (!v)
                return parser_oom(p);

        return parser_error(p, error, p->line, "Invalid value '%s' for %s=: %s", v, p->key, reason);
}

_printf_(2, 3) void parser_warn(UnitParser *p, const char *format, ...) {
        _cleanup_free_ char *m = NULL, *full = NULL;
        va_list ap;
        int k;

        assert(p);

        if (!p->warn)
                return;

        /* A hostile file full of unknown keys must not flood the log. */
        p->n_warnings++;
        if (p->n_warnings > UNIT_WARNINGS_MAX + 1)
                return;
        if (p->n_warnings == UNIT_WARNINGS_MAX + 1) {
                if (asprintf(&full, "%s: Too many warnings, suppressing the rest.", p->path) >= 0)
                        p->warn(full, p->userdata);
                return;
        }

        va_start(ap, format);
        k = vasprintf(&m, format, ap);
        va_end(ap);
        if (k < 0)
                return;
        if (asprintf(&full, "%s:%u: %s", p->path, p->line, m) < 0)
                return;
        p->warn(full, p->userdata);
}


/* Records entry ("Key=" or "Key=value") in Unit.not_applied, once; past UNIT_NOT_APPLIED_MAX the
 * warning alone tells. An empty assignment of a key takes "Key=" back (see unit_parse_key). */
int record_not_applied(UnitParser *p, const char *entry) {
        char ***l = &p->unit->not_applied;

        if (strv_contains(*l, entry) || strv_length(*l) >= UNIT_NOT_APPLIED_MAX)
                return 0;
        return strv_extend(l, entry);
}

int record_key_not_applied(UnitParser *p) {
        _cleanup_free_ char *entry = NULL;
        char ***l = &p->unit->not_applied;

        if (asprintf(&entry, "%s=", p->key) < 0)
                return -ENOMEM;
        if (!isempty(p->value))
                return record_not_applied(p, entry);
        /* "Key=" resets the key: nothing of it is left to apply. */
        size_t j = 0;
        for (size_t i = 0; *l && (*l)[i]; i++)
                if (streq((*l)[i], entry))
                        free((*l)[i]);
                else
                        (*l)[j++] = (*l)[i];
        if (*l)
                (*l)[j] = NULL;
        return 0;
}

static void exec_command_done(ExecCommand *c) {
        c->argv = strv_free(c->argv);
        free(c->argv0);
        c->argv0 = NULL;
}

void exec_command_list_done(ExecCommandList *l) {
        for (size_t i = 0; i < l->n; i++)
                exec_command_done(&l->commands[i]);
        free(l->commands);
        *l = (ExecCommandList){};
}

/* Specifiers (unit-specifier.h) are resolved at load time, as systemd does: after unquoting, word by
 * word, for ExecStart=, Environment= and the list keys, and on the whole value for the other string
 * keys. */
static int unescape_specifiers_for(UnitParser *p, const char *s, char **ret, char *ret_bad) {
        return unit_specifier_expand(s, p->unit->name, ret, ret_bad);
}

static int invalid_specifier(UnitParser *p, int r, char bad) {
        if (r == -ENXIO)
                return invalid_value(p, -EINVAL, "specifier '%%%c' has no value for svd's user", bad);
        if (bad == '\0')
                return invalid_value(p, -EINVAL, "a lone '%%' at the end; write '%%%%' for a literal '%%'");
        if ((unsigned char) bad < 0x20 || (unsigned char) bad >= 0x7F)
                return invalid_value(p, -EINVAL,
                                     "specifiers are not supported; write '%%%%' for a literal '%%'");
        return invalid_value(p, -EINVAL,
                             "specifier '%%%c' is not supported; write '%%%%' for a literal '%%'", bad);
}

/* For the single-valued string keys: "%%" unescaped, valid UTF-8 (these end up in JSON). */
int unit_parse_string_value(UnitParser *p, char **ret) {
        _cleanup_free_ char *s = NULL;
        char bad;
        int r;

        r = unescape_specifiers_for(p, p->value, &s, &bad);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return invalid_specifier(p, r, bad);
        if (!utf8_is_valid(s))
                return invalid_value(p, -EINVAL, "not valid UTF-8");
        *ret = TAKE_PTR(s);
        return 0;
}

/* Values of the form "word word ...", with "%%" unescaped in each word. */
static int unescape_words(UnitParser *p, char **words) {
        for (char **w = words; *w; w++) {
                char *s, bad;
                int r;

                if (!strchr(*w, '%'))
                        continue;
                r = unescape_specifiers_for(p, *w, &s, &bad);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return invalid_specifier(p, r, bad);
                free(*w);
                *w = s;
        }
        return 0;
}

/* What a new unit holds before its file is read, and what an empty assignment of a scalar key
 * goes back to. */
const Unit unit_defaults = {
        .restart = RESTART_NO,
        .restart_usec = UNIT_RESTART_USEC_DEFAULT,
        .restart_max_delay_usec = USEC_INFINITY,
        .start_limit_interval_usec = UNIT_START_LIMIT_INTERVAL_USEC_DEFAULT,
        .start_limit_burst = UNIT_START_LIMIT_BURST_DEFAULT,
        .type = SERVICE_TYPE_SIMPLE,
        .success_action_exit_status = -1,
        .failure_action_exit_status = -1,
        .timeout_start_usec = UNIT_TIMEOUT_START_USEC_DEFAULT,
        .kill_signal = SIGTERM,
        .timeout_stop_usec = UNIT_TIMEOUT_STOP_USEC_DEFAULT,
        .capability_bounding_set = UNIT_CAPABILITIES_ALL,
        .umask = -1,
        .private_pids = -1,
        .ignore_sigpipe = true,
        .notify_access = _NOTIFY_ACCESS_INVALID,
        .exec_directory_mode = { 0755, 0755, 0755, 0755, 0755 },
        .runtime_directory_preserve = EXEC_PRESERVE_NO,
        .memory_max = UINT64_MAX,
        .tasks_max = UINT64_MAX,
        .std_output = LOG_OUTPUT_LOG,
        .std_error = LOG_OUTPUT_INHERIT,
        .log_rotate_size = LOGFILE_ROTATE_SIZE_DEFAULT,
        .log_rotate_keep = LOGFILE_ROTATE_KEEP_DEFAULT,
        .sandbox = UNIT_SANDBOX_DEFAULTS,
        .default_dependencies = true,
        .personality = UNIT_PERSONALITY_KEEP,
        .socket = UNIT_SOCKET_DEFAULTS,
};

static int key_reset(UnitParser *p, const UnitKey *k, void *field) {
        memcpy(field, (const uint8_t *) p->base + k->offset, k->size);
        return 0;
}

/* Stores v in an unsigned field of k->size bytes. */
static void key_store_unsigned(const UnitKey *k, void *field, uint64_t v) {
        if (k->size == sizeof(uint64_t))
                *(uint64_t *) field = v;
        else {
                assert(k->size == sizeof(unsigned) && v <= UINT_MAX);
                *(unsigned *) field = (unsigned) v;
        }
}

static void free_and_replace(char **field, char *s) {
        free(*field);
        *field = s;
}

/* Description=: "%%" unescaped, valid UTF-8. */
int parse_string(UnitParser *p, const UnitKey *k, void *field) {
        char *s;
        int r;

        if (isempty(p->value)) {
                free_and_replace(field, NULL);
                return 0;
        }
        r = unit_parse_string_value(p, &s);
        if (r < 0)
                return r;
        free_and_replace(field, s);
        return 0;
}

/* Booleans; a field of int size is a tristate whose default (-1) an empty assignment restores. */
int parse_bool_key(UnitParser *p, const UnitKey *k, void *field) {
        bool b;
        int r;

        if (isempty(p->value))
                return key_reset(p, k, field);
        r = parse_boolean(p->value, &b);
        if (r < 0)
                return invalid_value(p, r, "expected a boolean (yes/no, true/false, on/off, 1/0)");
        if (k->size == sizeof(int))
                *(int *) field = b;
        else
                *(bool *) field = b;
        return 0;
}

/* Time spans, as systemd's config_parse_sec() and its variants (k->flags). */
int parse_sec_key(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t usec;
        int r;

        if (isempty(p->value))
                return key_reset(p, k, field);
        r = parse_sec(p->value, &usec);
        if (r < 0)
                return invalid_value(p, r, "%s", k->expected);
        if ((k->flags & KEY_SEC_NO_INFINITY) && usec == USEC_INFINITY)
                /* systemd takes "infinity" for RestartSec= and then never restarts; say Restart=no. */
                return invalid_value(p, -ERANGE, "'infinity' is not allowed, use Restart=no");
        if ((k->flags & KEY_SEC_0_IS_INFINITY) && usec == 0)
                usec = USEC_INFINITY;
        else if ((k->flags & KEY_SEC_INFINITY_IS_0) && usec == USEC_INFINITY)
                usec = 0;
        *(uint64_t *) field = usec;
        return 0;
}

/* Numbers from 0 (1 with KEY_POSITIVE) to k->max. */
int parse_unsigned_key(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t min = (k->flags & KEY_POSITIVE) ? 1 : 0, n;

        if (isempty(p->value))
                return key_reset(p, k, field);
        if (safe_atou64(p->value, &n) < 0 || n < min || n > k->max) {
                if (k->expected)
                        return invalid_value(p, -ERANGE, "%s", k->expected);
                return invalid_value(p, -ERANGE, "expected a number from %" PRIu64 " to %" PRIu64, min,
                                     k->max);
        }
        key_store_unsigned(k, field, n);
        return 0;
}

/* Bytes with an optional K, M, G, T suffix (base 1024), or "infinity". */
static int parse_size_or_infinity(const char *s, uint64_t *ret) {
        uint64_t v, mult = 1;
        size_t n = strlen(s);
        int r;

        if (streq(s, "infinity")) {
                *ret = UINT64_MAX;
                return 0;
        }
        if (n == 0)
                return -EINVAL;
        switch (s[n - 1]) {
        case 'K': mult = UINT64_C(1) << 10; break;
        case 'M': mult = UINT64_C(1) << 20; break;
        case 'G': mult = UINT64_C(1) << 30; break;
        case 'T': mult = UINT64_C(1) << 40; break;
        default: break;
        }
        _cleanup_free_ char *num = strndup(s, mult == 1 ? n : n - 1);
        if (!num)
                return -ENOMEM;
        r = safe_atou64(num, &v);
        if (r < 0)
                return r;
        if (v > UINT64_MAX / mult)
                return -ERANGE;
        *ret = v * mult;
        return 0;
}

/* MemoryMax=, LogRotateSize=: sizes, "infinity" as UINT64_MAX (or 0 with KEY_SIZE_INFINITY_IS_0). */
int parse_size_key(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t v;
        int r;

        if (isempty(p->value))
                return key_reset(p, k, field);
        r = parse_size_or_infinity(p->value, &v);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return invalid_value(p, r, "%s", k->expected);
        if ((k->flags & KEY_SIZE_INFINITY_IS_0) && v == UINT64_MAX)
                v = 0;
        *(uint64_t *) field = v;
        return 0;
}

/* "N%" (0 < N <= 100, decimals allowed): 1 and N in per-ten-thousand, 0 when s is no percentage,
 * -EINVAL when it is a bad one. */
static int parse_percent_bp(const char *s, uint64_t *ret) {
        size_t n = strlen(s);
        if (n < 2 || s[n - 1] != '%')
                return 0;
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (errno != 0 || end != s + n - 1 || !(v > 0) || v > 100 || s[0] == '-' || s[0] == '+' || s[0] == ' ')
                return -EINVAL;
        *ret = (uint64_t) (v * 100 + 0.5);
        return *ret > 0 ? 1 : -EINVAL;
}

/* What a percentage of TasksMax= is of, as systemd's system_tasks_max(): the lower of
 * kernel.pid_max and kernel.threads-max (read when the unit is loaded). */
static uint64_t system_tasks_max(void) {
        static const char *const files[] = { "/proc/sys/kernel/pid_max", "/proc/sys/kernel/threads-max" };
        uint64_t m = UINT64_MAX;
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                char buf[32] = "";
                FILE *f = fopen(files[i], "re");
                if (!f)
                        continue;
                uint64_t v;
                if (fgets(buf, sizeof(buf), f)) {
                        buf[strcspn(buf, "\n")] = 0;
                        if (safe_atou64(buf, &v) >= 0 && v > 0 && v < m)
                                m = v;
                }
                fclose(f);
        }
        return m == UINT64_MAX ? 4194304 /* PID_MAX_LIMIT */ : m;
}

/* TasksMax=: a positive number, a percentage of the system's limit on tasks, or "infinity". */
int parse_tasks_max(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t *v = field, bp;
        int r;

        if (isempty(p->value))
                return key_reset(p, k, field);
        r = parse_percent_bp(p->value, &bp);
        if (r > 0) {
                uint64_t t = system_tasks_max() * bp / 10000;
                *v = t > 0 ? t : 1;
                return 0;
        }
        if (r == 0)
                r = streq(p->value, "infinity") ? (*v = UINT64_MAX, 0) : safe_atou64(p->value, v);
        if (r < 0 || *v == 0)
                return invalid_value(p, r < 0 ? r : -EINVAL, "expected a positive number, a percentage or 'infinity'");
        return 0;
}

/* MemoryMax=: a size, a percentage of the physical memory (as systemd, read when the unit is
 * loaded), or "infinity". */
int parse_memory_max(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t bp;
        int r = isempty(p->value) ? 0 : parse_percent_bp(p->value, &bp);
        if (r < 0)
                return invalid_value(p, r, "expected a size such as '512M' or '2G', a percentage, or 'infinity'");
        if (r == 0)
                return parse_size_key(p, k, field);
        long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        if (pages <= 0 || size <= 0)
                return invalid_value(p, -ENXIO, "the size of the physical memory is not known");
        *(uint64_t *) field = (uint64_t) pages * (uint64_t) size / 10000 * bp;
        return 0;
}

int parse_type(UnitParser *p, const UnitKey *k, void *field) {
        static const char *const systemd_types[] = { "notify-reload" };
        ServiceType t;

        if (isempty(p->value))
                return key_reset(p, k, field);
        t = service_type_from_string(p->value);
        if (t >= 0) {
                *(ServiceType *) field = t;
                p->unit->type_set = true;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(systemd_types); i++)
                if (streq(p->value, systemd_types[i]))
                        return invalid_value(p, -EOPNOTSUPP,
                                             "not supported (supported: simple, exec, notify, oneshot, forking, idle, dbus)");
        return invalid_value(p, -EINVAL, "expected simple, exec, notify, oneshot, forking, idle or dbus");
}

int parse_unit_action(UnitParser *p, const UnitKey *k, void *field) {
        static const char *const systemd_actions[] = { "kexec", "kexec-force", "kexec-immediate", "soft-reboot",
                                                        "soft-reboot-force" };
        if (isempty(p->value))
                return key_reset(p, k, field);
        UnitAction a = unit_action_from_string(p->value);
        if (a < 0) {
                for (size_t i = 0; i < ELEMENTSOF(systemd_actions); i++)
                        if (streq(p->value, systemd_actions[i]))
                                return invalid_value(p, -EOPNOTSUPP,
                                                     "not supported (svd knows none, exit, exit-force, reboot, "
                                                     "poweroff and halt, with -force and -immediate)");
                return invalid_value(p, -EINVAL,
                                     "expected none, exit, exit-force, reboot, poweroff or halt (with -force or "
                                     "-immediate)");
        }
        /* Only an init may reboot or power off what it runs on. */
        if (unit_action_reboot_command(a) != 0 && getpid() != 1)
                return invalid_value(p, -EPERM, "needs svd to run as PID 1 (of the machine or of a container)");
        *(UnitAction *) field = a;
        return 0;
}

int parse_action_exit_status(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t v;
        if (isempty(p->value))
                return key_reset(p, k, field);
        if (safe_atou64(p->value, &v) < 0 || v > 255)
                return invalid_value(p, -EINVAL, "expected an exit status from 0 to 255, or nothing");
        *(int *) field = (int) v;
        return 0;
}

int parse_restart(UnitParser *p, const UnitKey *k, void *field) {
        RestartPolicy r;

        if (isempty(p->value))
                return key_reset(p, k, field);
        r = restart_policy_from_string(p->value);
        if (r < 0)
                return invalid_value(p, -EINVAL,
                                     "expected one of: no, on-success, on-failure, on-abnormal, on-watchdog, "
                                     "on-abort, always");
        *(RestartPolicy *) field = r;
        return 0;
}

int parse_signal(UnitParser *p, const UnitKey *k, void *field) {
        int sig, r;

        if (isempty(p->value))
                return key_reset(p, k, field);
        r = signal_from_string(p->value, &sig);
        if (r < 0)
                return invalid_value(p, r, "expected a signal name such as 'SIGTERM' or 'INT', or a number");
        *(int *) field = sig;
        return 0;
}

/* One word of a list value: the next word with "%%" unescaped in *ret; 0 at the end. */
static int next_word(UnitParser *p, const char **v, char **ret) {
        _cleanup_free_ char *word = NULL;
        char bad;
        int r;

        r = extract_first_word(v, &word);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return invalid_value(p, r, "unbalanced quotes or invalid escape sequence");
        if (r == 0)
                return 0;
        r = unescape_specifiers_for(p, word, ret, &bad);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return invalid_specifier(p, r, bad);
        return 1;
}

/* Requires= Wants= After= Before=: space-separated unit names, with or without ".service"; an empty
 * assignment resets the list. Other unit types (targets, sockets, ...) do not exist in svd: a
 * warning, as systemd's ordering against a unit that is not loaded is a no-op. */
/* The keys that may name a socket unit: Requires= and Wants= start it before the service, After=
 * waits for its start (deps.c); Also= enables it with the unit. */
static bool dependency_takes_sockets(const char *key) {
        return streq(key, "Also") || streq(key, "Requires") || streq(key, "Wants") || streq(key, "After");
}

/* Adds *name (taken) to the list once, within UNIT_DEPENDENCIES_MAX names. */
static int dependency_add(UnitParser *p, char ***list, char **name) {
        if (strv_contains(*list, *name))
                return 0;
        if (strv_length(*list) >= UNIT_DEPENDENCIES_MAX)
                return invalid_value(p, -E2BIG, "more than %u names", UNIT_DEPENDENCIES_MAX);
        return strv_consume(list, TAKE_PTR(*name));
}

int parse_dependency(UnitParser *p, const UnitKey *k, void *field) {
        static const char *const other_types[] = { "target", "socket", "mount",     "automount", "swap", "timer",
                                                   "path",   "slice",  "scope",     "device",    NULL };
        char ***list = field;
        const char *v = p->value;
        int r;

        if (isempty(v)) {
                *list = strv_free(*list);
                return 0;
        }
        for (;;) {
                _cleanup_free_ char *name = NULL;

                r = next_word(p, &v, &name);
                if (r <= 0)
                        return r;

                const char *dot = strrchr(name, '.');
                if (streq(name, "shutdown.target") && (streq(k->name, "Conflicts") || streq(k->name, "Before")))
                        /* What DefaultDependencies= adds: stopped before the system goes down, which
                         * is what svd does with every service when it stops. */
                        continue;
                if (unit_name_has_suffix(name))
                        unit_name_strip_suffix(name);
                else if (dot && streq(dot + 1, "socket") && dependency_takes_sockets(k->name) &&
                         !memchr(name, '@', (size_t) (dot - name))) {
                        /* A socket unit, kept as NAME.socket (manager-socket.h). Those of a template
                         * (NAME@INSTANCE.socket) are warned about below: svd has none. */
                        _cleanup_free_ char *stem = strndup(name, (size_t) (dot - name));
                        if (!stem)
                                return -ENOMEM;
                        if (!unit_name_is_valid(stem)) {
                                _cleanup_free_ char *q = message_quote(name);
                                return invalid_value(p, -EINVAL, "'%s' is not a valid socket unit name", q ?: "");
                        }
                        r = dependency_add(p, list, &name);
                        if (r < 0)
                                return r;
                        continue;
                } else if (dot && strv_contains((char **) other_types, dot + 1)) {
                        /* "network.target", "foo.socket": a unit type svd does not have. */
                        _cleanup_free_ char *q = message_quote(name);
                        if (!q)
                                return -ENOMEM;
                        if (streq(dot + 1, "socket") && dependency_takes_sockets(k->name))
                                parser_warn(p, "%s=%s: svd has no socket unit templates, ignoring.", k->name, q);
                        else if (streq(dot + 1, "socket"))
                                parser_warn(p, "%s=%s: svd relates services to socket units only with "
                                            "Requires=, Wants= and After=, ignoring.", k->name, q);
                        else
                                parser_warn(p, "%s=%s: svd has only services, ignoring.", k->name, q);
                        _cleanup_free_ char *entry = NULL;
                        if (asprintf(&entry, "%s=%s", k->name, name) < 0 || record_not_applied(p, entry) < 0)
                                return -ENOMEM;
                        continue;
                }
                if (!unit_name_is_valid(name)) {
                        _cleanup_free_ char *q = message_quote(name);
                        return invalid_value(p, -EINVAL, "'%s' is not a valid unit name", q ?: "");
                }
                r = dependency_add(p, list, &name);
                if (r < 0)
                        return r;
        }
}

/* BindsTo=: a relation of its own and, as in systemd, everything Requires= does. */
int parse_binds_to(UnitParser *p, const UnitKey *k, void *field) {
        char ***requires = &p->unit->dependencies[UNIT_REQUIRES];
        int r = parse_dependency(p, k, field);
        if (r < 0)
                return r;
        for (char **n = *(char ***) field; n && *n; n++) {
                if (strv_contains(*requires, *n))
                        continue;
                if (strv_length(*requires) >= UNIT_DEPENDENCIES_MAX)
                        return invalid_value(p, -E2BIG, "more than %u names", UNIT_DEPENDENCIES_MAX);
                r = strv_extend(requires, *n);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ExecStart=, ExecStartPre=, ExecStartPost=, ExecReload=, ExecStop=, ExecStopPost=: one command line
 * each, appended to the key's list; an empty assignment empties it (systemd.service(5)). */
int parse_exec_command(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_strv_free_ char **argv = NULL;
        ExecCommandList *list = field;
        bool start = field == &p->unit->exec[UNIT_EXEC_START];
        const char *cmd;
        int r;

        if (isempty(p->value)) {
                exec_command_list_done(list);
                if (start)
                        p->exec_start_line = p->exec_start_second_line = 0;
                return 0;
        }
        if (list->n >= UNIT_EXEC_COMMANDS_MAX)
                return invalid_value(p, -E2BIG, "more than %u commands", UNIT_EXEC_COMMANDS_MAX);

        r = split_exec_line(p->value, UNIT_ARGV_MAX, &argv);
        if (r == -ENOMEM)
                return r;
        if (r == -E2BIG)
                return invalid_value(p, r, "more than %u words", UNIT_ARGV_MAX);
        if (r == -EOPNOTSUPP)
                return invalid_value(p, r,
                                     "several commands separated by ';' are not supported; "
                                     "write '\\;' for a literal ';'");
        if (r < 0)
                return invalid_value(p, r, "unbalanced quotes or invalid escape sequence");

        r = unescape_words(p, argv);
        if (r < 0)
                return r;
        /* "$NAME", "${NAME}" and "$$" stay as written: they are substituted each time the command
         * runs, with its environment (EnvironmentFile= is read then), as systemd does. */

        cmd = argv[0];
        if (!cmd)
                return invalid_value(p, -EINVAL, "no command");
        /* systemd's prefixes, in any order and combination; "|" (a login shell) is not supported. */
        ExecFlags flags = 0;
        size_t n_prefix = 0;
        for (;; n_prefix++) {
                char c = cmd[n_prefix];
                ExecFlags f;
                if (c == '-')
                        f = EXEC_IGNORE_FAILURE;
                else if (c == '@')
                        f = EXEC_ARGV0;
                else if (c == ':')
                        f = EXEC_NO_ENV_EXPAND;
                else if (c == '+')
                        f = EXEC_PRIVILEGED;
                else if (c == '!' && cmd[n_prefix + 1] == '!') {
                        f = EXEC_AMBIENT_FALLBACK;
                        n_prefix++;
                } else if (c == '!')
                        f = EXEC_NO_SETUID;
                else if (c == '|')
                        return invalid_value(p, -EOPNOTSUPP, "the prefix '|' is not supported");
                else
                        break;
                if (flags & f)
                        return invalid_value(p, -EINVAL, "a prefix is repeated");
                flags |= f;
        }
        /* As systemd: "+" excludes "!" and "!!", and those each other. */
        if (__builtin_popcount(flags & (EXEC_PRIVILEGED | EXEC_NO_SETUID | EXEC_AMBIENT_FALLBACK)) > 1)
                return invalid_value(p, -EINVAL, "the prefixes '+', '!' and '!!' exclude each other");
        if (n_prefix > 0)
                memmove(argv[0], argv[0] + n_prefix, strlen(argv[0] + n_prefix) + 1);
        cmd = argv[0];
        _cleanup_free_ char *argv0 = NULL;
        if (flags & EXEC_ARGV0) {
                /* "@/bin/x name args": path /bin/x, argv name args. */
                if (!argv[1])
                        return invalid_value(p, -EINVAL, "'@' needs argv[0] after the command");
                argv0 = argv[1];
                memmove(argv + 1, argv + 2, strv_length(argv + 2) * sizeof(char *) + sizeof(char *));
        }
        if (cmd[0] == '\0' || streq(cmd, ".") || streq(cmd, ".."))
                return invalid_value(p, -EINVAL,
                                     "the command must be an absolute path or a plain file name");
        /* A plain name is looked up in $PATH by the manager; a relative path would depend on svd's
         * working directory. */
        if (strchr(cmd, '/') && cmd[0] != '/')
                return invalid_value(p, -EINVAL,
                                     "the command must be an absolute path or a plain file name");
        if (strlen(cmd) >= PATH_MAX)
                return invalid_value(p, -ENAMETOOLONG, "the command path is too long");

        ExecCommand *a = reallocarray(list->commands, list->n + 1, sizeof(ExecCommand));
        if (!a)
                return parser_oom(p);
        list->commands = a;
        list->commands[list->n++] = (ExecCommand){ .argv = TAKE_PTR(argv), .flags = flags, .argv0 = TAKE_PTR(argv0) };
        if (start && p->exec_start_line == 0)
                p->exec_start_line = p->line;
        else if (start && p->exec_start_second_line == 0)
                p->exec_start_second_line = p->line;
        return 0;
}

/* SuccessExitStatus=, RestartPreventExitStatus=, RestartForceExitStatus=: assignments add up, an empty
 * one empties the set. */
int parse_exit_status_set(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_free_ char *bad = NULL;
        int r = exit_status_set_parse(p->value, field, &bad);
        if (r == -ENOMEM)
                return parser_oom(p);
        if (r < 0) {
                _cleanup_free_ char *q = bad ? message_quote(bad) : NULL;
                return invalid_value(p, r, "'%s' is neither an exit status (0-255 or a name such as 'TEMPFAIL') "
                                     "nor a signal name", q ?: "");
        }
        return 0;
}

int parse_kill_mode(UnitParser *p, const UnitKey *k, void *field) {
        if (isempty(p->value))
                return key_reset(p, k, field);
        KillMode m = kill_mode_from_string(p->value);
        if (m < 0)
                return invalid_value(p, -EINVAL, "expected one of: control-group, mixed, process, none");
        *(KillMode *) field = m;
        return 0;
}

/* WorkingDirectory=: an absolute path or "~", "-" in front for "missing is fine". Three fields. */
int parse_working_directory(UnitParser *p, const UnitKey *k, void *field) {
        Unit *u = p->unit;
        _cleanup_free_ char *s = NULL;
        const char *v = p->value;
        bool missing_ok = false, home = false;
        int r;

        if (!isempty(v) && v[0] == '-') {
                missing_ok = true;
                v++;
        }
        if (isempty(p->value))
                missing_ok = false;
        else if (streq(v, "~"))
                home = true;
        else {
                r = unit_parse_string_value(p, &s);
                if (r < 0)
                        return r;
                if (missing_ok)
                        memmove(s, s + 1, strlen(s)); /* the '-' is no specifier, so it is still first */
                if (s[0] != '/')
                        return invalid_value(p, -EINVAL, "expected an absolute path or '~'");
                if (strlen(s) >= PATH_MAX)
                        return invalid_value(p, -ENAMETOOLONG, "the path is too long");
        }
        free_and_replace(field, TAKE_PTR(s));
        u->working_directory_home = home;
        u->working_directory_missing_ok = missing_ok;
        return 0;
}

int parse_environment(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_strv_free_ char **l = NULL;
        char ***environment = field;
        int r;

        /* An empty assignment drops everything set so far. */
        if (isempty(p->value)) {
                *environment = strv_free(*environment);
                return 0;
        }

        /* Counted over the whole file, overridden ones included, so that the work stays bounded. */
        r = split_env_assignments(p->value, UNIT_ENV_MAX - p->n_env_assignments, &l);
        if (r == -ENOMEM)
                return r;
        if (r == -E2BIG)
                return invalid_value(p, r, "more than %u assignments in this file", UNIT_ENV_MAX);
        if (r < 0)
                return invalid_value(p, r,
                                     "expected NAME=VALUE assignments separated by spaces, NAME made of "
                                     "letters, digits and '_', values quoted as in systemd");
        p->n_env_assignments += (unsigned) strv_length(l);

        r = unescape_words(p, l);
        if (r < 0)
                return r;

        for (char **a = l; *a; a++) {
                r = strv_env_replace_consume(environment, TAKE_PTR(*a));
                if (r < 0)
                        return r;
        }
        return 0;
}

/* EnvironmentFile=: absolute paths, '-' in front for "missing is fine", several per line and
 * accumulating; an empty assignment resets the list. The files are read when a command starts. */
int parse_environment_file(UnitParser *p, const UnitKey *k, void *field) {
        char ***files = field;
        const char *v = p->value;
        int r;

        if (isempty(v)) {
                *files = strv_free(*files);
                return 0;
        }
        for (;;) {
                _cleanup_free_ char *f = NULL;

                r = next_word(p, &v, &f);
                if (r <= 0)
                        return r;
                const char *path = f[0] == '-' ? f + 1 : f;
                if (path[0] != '/' || !utf8_is_valid(path))
                        return invalid_value(p, -EINVAL, "expected absolute paths, '-' in front for optional ones");
                if (strlen(path) >= PATH_MAX)
                        return invalid_value(p, -ENAMETOOLONG, "the path is too long");
                if (strv_length(*files) >= UNIT_ENVIRONMENT_FILES_MAX)
                        return invalid_value(p, -E2BIG, "more than %u files", UNIT_ENVIRONMENT_FILES_MAX);
                r = strv_consume(files, TAKE_PTR(f));
                if (r < 0)
                        return r;
        }
}

/* systemd's valid_user_group_name() in its relaxed mode, or a number. */
static bool user_group_name_is_valid(const char *s) {
        size_t n = strlen(s);
        uid_t id;

        if (parse_uid(s, &id) >= 0)
                return true;

        if (n == 0 || n > UNIT_USER_NAME_MAX)
                return false;
        if (s[0] == ' ' || s[n - 1] == ' ')
                return false;
        if (streq(s, ".") || streq(s, ".."))
                return false;
        /* ':' separates /etc/passwd fields and '/' would make a path of a home directory. */
        if (strpbrk(s, ":/"))
                return false;
        for (const char *c = s; *c; c++)
                if ((unsigned char) *c < 0x20 || *c == 0x7F)
                        return false;
        /* Numbers that are no valid id (65535, -1, too large) must not pass as names. */
        if (strspn(s, "0123456789") == n)
                return false;
        if (s[0] == '-' && strspn(s + 1, "0123456789") == n - 1)
                return false;
        return utf8_is_valid(s);
}

/* User=, Group=: a name or a number, kept as written (resolved before spawning). */
/* A template never runs itself, only its instances do; a value that only an instance gives (User=%i,
 * empty in the template) is checked in each instance. */
static bool parsing_template(const UnitParser *p) {
        const char *at = p->unit->name ? strrchr(p->unit->name, '@') : NULL;
        return at && (at[1] == '\0' || streq(at + 1, ".service"));
}

int parse_user_group(UnitParser *p, const UnitKey *k, void *field) {
        char *s;
        int r;

        if (isempty(p->value)) {
                free_and_replace(field, NULL);
                return 0;
        }
        r = unit_parse_string_value(p, &s);
        if (r < 0)
                return r;
        if (isempty(s) && parsing_template(p)) {
                free(s);
                free_and_replace(field, NULL);
                return 0;
        }
        if (!user_group_name_is_valid(s)) {
                free(s);
                return invalid_value(p, -EINVAL, "%s", k->expected);
        }
        free_and_replace(field, s);
        return 0;
}

int parse_supplementary_groups(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_strv_free_ char **l = NULL;
        char ***groups = field;
        int r;

        if (isempty(p->value)) {
                *groups = strv_free(*groups);
                return 0;
        }
        r = split_exec_line(p->value, UNIT_GROUPS_MAX, &l);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return invalid_value(p, r, "expected group names or numbers separated by spaces");
        for (char **g = l; *g; g++) {
                if (!user_group_name_is_valid(*g))
                        return invalid_value(p, -EINVAL, "not a valid group name or id");
                r = strv_extend(groups, *g);
                if (r < 0)
                        return r;
        }
        if (strv_length(*groups) > UNIT_GROUPS_MAX)
                return invalid_value(p, -E2BIG, "more than %u groups", UNIT_GROUPS_MAX);
        return 0;
}

static bool targets_started(const UnitParser *p, char **l) {
        for (char **t = l; t && *t; t++)
                if (unit_target_is_started(*t) || (p->kind == UNIT_KIND_SOCKET && streq(*t, "sockets.target")))
                        return true;
        return false;
}

/* WantedBy=, RequiredBy=: svd has no targets. Every target is kept as written (`svctl enable` links
 * the unit into their .wants/ and .requires/ directories, and refuses when none is one svd starts);
 * one that svd does not start is a warning. An empty assignment resets the key's list. */
int parse_wanted_by(UnitParser *p, const UnitKey *k, void *field) {
        char ***list = field;
        const char *v = p->value;
        int r;

        if (isempty(v))
                *list = strv_free(*list);

        for (;;) {
                _cleanup_free_ char *word = NULL, *target = NULL;
                char bad;

                /* Counted before the specifiers are looked at, so that the work stays bounded. */
                r = extract_first_word(&v, &word);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return invalid_value(p, r, "unbalanced quotes or invalid escape sequence");
                if (r == 0) {
                        p->unit->wanted_by_default = targets_started(p, p->unit->wanted_by) ||
                                                     targets_started(p, p->unit->required_by);
                        return 0;
                }
                if (++p->n_wanted_by > UNIT_WANTED_BY_MAX)
                        return invalid_value(p, -E2BIG, "more than %u targets in this file",
                                             UNIT_WANTED_BY_MAX);
                r = unescape_specifiers_for(p, word, &target, &bad);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return invalid_specifier(p, r, bad);
                /* A socket unit is started with the sockets, before the services: at svd's start. */
                if (!unit_target_is_started(target) &&
                    !(p->kind == UNIT_KIND_SOCKET && streq(target, "sockets.target"))) {
                        _cleanup_free_ char *q = message_quote(target);
                        if (!q)
                                return -ENOMEM;
                        parser_warn(p,
                                    "Target '%s' in %s= is not supported (only default.target and "
                                    "multi-user.target), ignoring.",
                                    q, k->name);
                        _cleanup_free_ char *entry = NULL;
                        if (asprintf(&entry, "%s=%s", k->name, target) < 0 || record_not_applied(p, entry) < 0)
                                return -ENOMEM;
                }
                if (strv_contains(*list, target))
                        continue;
                r = strv_consume(list, TAKE_PTR(target));
                if (r < 0)
                        return r;
        }
}

/* CapabilityBoundingSet=, AmbientCapabilities=: "CAP_NET_ADMIN cap_chown ~CAP_SYS_TIME", a leading
 * '~' inverting the whole list, as in systemd. Names go through libcap-ng, so that they match the
 * running kernel's list. Several assignments combine as in systemd: positive lists add up (the
 * bounding set's first one replaces "all"), "~" ones take away. */
int parse_capabilities(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_strv_free_ char **l = NULL;
        uint64_t *set = field, mask = 0;
        const char *v = p->value;
        bool invert = false;
        int r;

        if (isempty(v))
                return key_reset(p, k, field);
        if (*v == '~') {
                invert = true;
                v++;
        }
        r = split_exec_line(v, 64, &l);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return invalid_value(p, r, "expected capability names such as 'CAP_NET_BIND_SERVICE'");
        for (char **c = l; *c; c++) {
                const char *name = *c;
                if (strncasecmp(name, "cap_", 4) == 0)
                        name += 4;
                int cap = capng_name_to_capability(name);
                if (cap < 0 || cap >= 64)
                        return invalid_value(p, -EINVAL, "unknown capability");
                mask |= UINT64_C(1) << cap;
        }
        if (invert)
                *set &= ~mask;
        else if ((k->flags & KEY_BOUNDING_SET) && *set == UNIT_CAPABILITIES_ALL)
                *set = mask;
        else
                *set |= mask;
        return 0;
}

int parse_umask(UnitParser *p, const UnitKey *k, void *field) {
        char *end;

        if (isempty(p->value))
                return key_reset(p, k, field);
        errno = 0;
        unsigned long m = strtoul(p->value, &end, 8);
        if (errno != 0 || *end || end == p->value || m > 0777 || p->value[0] == '-' || p->value[0] == '+')
                return invalid_value(p, -EINVAL, "expected an octal mode such as '0027'");
        *(int *) field = (int) m;
        return 0;
}

static int parse_rlimit_value(const char *s, uint64_t *ret) {
        if (streq(s, "infinity")) {
                *ret = RLIM_INFINITY;
                return 0;
        }
        return safe_atou64(s, ret);
}

/* LimitNOFILE= and the like: "N", "SOFT:HARD" or "infinity", as in systemd. */
int parse_limit(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t soft, hard;
        int r;

        if (isempty(p->value))
                return key_reset(p, k, field);
        const char *colon = strchr(p->value, ':');
        if (colon) {
                _cleanup_free_ char *a = strndup(p->value, (size_t) (colon - p->value));
                if (!a)
                        return -ENOMEM;
                r = parse_rlimit_value(a, &soft);
                if (r >= 0)
                        r = parse_rlimit_value(colon + 1, &hard);
        } else {
                r = parse_rlimit_value(p->value, &soft);
                hard = soft;
        }
        if (r < 0)
                return invalid_value(p, r, "expected a number, 'infinity' or 'SOFT:HARD'");
        if (soft > hard)
                return invalid_value(p, -EINVAL, "the soft limit is above the hard limit");
        *(struct rlimit_setting *) field = (struct rlimit_setting){ .set = true, .soft = soft, .hard = hard };
        return 0;
}

/* StandardOutput=/StandardError=: log (or systemd's journal), null, inherit, file:PATH, append:PATH.
 * The path of file: and append: goes to the field at k->aux_offset. */
int parse_log_output(UnitParser *p, const UnitKey *k, void *field) {
        static const char *const systemd_only[] = { "truncate:", "fd:" };
        /* systemd's journal, kernel log and syslog destinations, and those with a copy on the
         * console: svd has one log per service, so they all go there. */
        static const char *const as_log[] = { "journal+console", "kmsg", "kmsg+console", "syslog",
                                              "syslog+console", NULL };
        char **path = (char **) ((uint8_t *) p->unit + k->aux_offset);
        _cleanup_free_ char *s = NULL;
        const char *v = p->value;
        LogOutput o;

        if (isempty(v))
                o = *(const LogOutput *) ((const uint8_t *) p->base + k->offset);
        else if (streq(v, "log") || streq(v, "journal"))
                o = LOG_OUTPUT_LOG;
        else if (strv_contains((char **) as_log, v)) {
                parser_warn(p, "%s=%s: svd has no console, kernel log or syslog output; the service's log "
                               "(svctl logs) gets it.", k->name, v);
                o = LOG_OUTPUT_LOG;
        } else if (streq(v, "null"))
                o = LOG_OUTPUT_NULL;
        else if (streq(v, "inherit"))
                o = LOG_OUTPUT_INHERIT;
        else if (streq(v, "tty"))
                o = LOG_OUTPUT_TTY;
        else if (streq(v, "socket"))
                o = LOG_OUTPUT_SOCKET;
        else if (strneq(v, "file:", 5) || strneq(v, "append:", 7)) {
                bool append = v[0] == 'a';
                char bad;
                int r = unescape_specifiers_for(p, v + (append ? 7 : 5), &s, &bad);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return invalid_specifier(p, r, bad);
                if (s[0] != '/' || !utf8_is_valid(s))
                        return invalid_value(p, -EINVAL, "expected an absolute path after '%s'",
                                             append ? "append:" : "file:");
                if (strlen(s) + 8 >= PATH_MAX) /* room for ".N" of the rotated files */
                        return invalid_value(p, -ENAMETOOLONG, "the path is too long");
                o = append ? LOG_OUTPUT_APPEND : LOG_OUTPUT_FILE;
        } else {
                for (size_t i = 0; i < ELEMENTSOF(systemd_only); i++)
                        if (strneq(v, systemd_only[i], strlen(systemd_only[i])))
                                return invalid_value(p, -EOPNOTSUPP,
                                                     "not supported (supported: log, journal, null, inherit, tty, "
                                                     "socket, file:PATH, append:PATH)");
                return invalid_value(p, -EINVAL,
                                     "expected one of: log, journal, null, inherit, tty, socket, file:PATH, "
                                     "append:PATH");
        }
        free_and_replace(path, TAKE_PTR(s));
        *(LogOutput *) field = o;
        if (streq(k->name, "StandardOutput"))
                p->std_output_line = isempty(v) ? 0 : p->line;
        return 0;
}

/* ---- service types and the execution environment ---- */

/* PIDFile=: a path; a relative one is below /run, as systemd.service(5) says. */
int parse_pid_file(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_free_ char *s = NULL;
        int r;

        if (isempty(p->value)) {
                free_and_replace(field, NULL);
                return 0;
        }
        r = unit_parse_string_value(p, &s);
        if (r < 0)
                return r;
        if (s[0] != '/') {
                char *a;
                if (asprintf(&a, "/run/%s", s) < 0)
                        return -ENOMEM;
                free_and_replace(&s, a);
        }
        if (strlen(s) >= PATH_MAX)
                return invalid_value(p, -ENAMETOOLONG, "the path is too long");
        free_and_replace(field, TAKE_PTR(s));
        return 0;
}

/* NotifyAccess=none|main|exec|all. */
int parse_notify_access(UnitParser *p, const UnitKey *k, void *field) {
        if (isempty(p->value))
                return key_reset(p, k, field);
        NotifyAccess a = notify_access_from_string(p->value);
        if (a < 0)
                return invalid_value(p, -EINVAL, "expected none, main, exec or all");
        *(NotifyAccess *) field = a;
        return 0;
}

/* BusName=: a well-known D-Bus name, as the D-Bus specification defines it: two or more elements
 * of [A-Za-z0-9_-] separated by '.', none starting with a digit, at most 255 bytes. */
int parse_bus_name(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_free_ char *s = NULL;
        int r;

        if (isempty(p->value)) {
                free_and_replace(field, NULL);
                return 0;
        }
        r = unit_parse_string_value(p, &s);
        if (r < 0)
                return r;
        size_t n = strlen(s), elements = 1;
        bool ok = n > 0 && n <= 255 && s[0] != '.' && s[n - 1] != '.';
        for (size_t i = 0; ok && i < n; i++) {
                char c = s[i];
                if (c == '.') {
                        ok = s[i + 1] != '.' && !(s[i + 1] >= '0' && s[i + 1] <= '9');
                        elements++;
                } else
                        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                             c == '-';
        }
        if (!ok || elements < 2 || (s[0] >= '0' && s[0] <= '9'))
                return invalid_value(p, -EINVAL, "expected a well-known D-Bus name such as 'org.example.Foo'");
        free_and_replace(field, TAKE_PTR(s));
        return 0;
}

/* RuntimeDirectory= and the other directory keys: relative paths without "." or ".." elements,
 * separated by spaces, accumulating; empty resets. systemd's "NAME:LINK" form is refused. */
int parse_exec_directories(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_strv_free_ char **l = NULL;
        char ***dirs = field;
        int r;

        if (isempty(p->value)) {
                *dirs = strv_free(*dirs);
                return 0;
        }
        r = split_exec_line(p->value, UNIT_EXEC_DIRECTORIES_MAX, &l);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return invalid_value(p, r, "expected relative paths separated by spaces");
        r = unescape_words(p, l);
        if (r < 0)
                return r;
        for (char **d = l; *d; d++) {
                if (strchr(*d, ':'))
                        return invalid_value(p, -EOPNOTSUPP, "the form 'NAME:LINK' is not supported");
                bool ok = (*d)[0] != '/' && (*d)[0] != 0 && strlen(*d) < PATH_MAX && utf8_is_valid(*d);
                for (const char *e = *d; ok && *e;) {
                        size_t n = strcspn(e, "/");
                        ok = n > 0 && !(n == 1 && e[0] == '.') && !(n == 2 && e[0] == '.' && e[1] == '.');
                        e += n;
                        if (*e == '/')
                                e++;
                }
                if (!ok)
                        return invalid_value(p, -EINVAL, "expected a relative path without '.' or '..' elements");
                r = strv_extend(dirs, *d);
                if (r < 0)
                        return r;
        }
        if (strv_length(*dirs) > UNIT_EXEC_DIRECTORIES_MAX)
                return invalid_value(p, -E2BIG, "more than %u directories", UNIT_EXEC_DIRECTORIES_MAX);
        return 0;
}

/* RuntimeDirectoryMode= and the others: an octal mode, set-id and sticky bits included (redis
 * uses 2755). */
int parse_directory_mode(UnitParser *p, const UnitKey *k, void *field) {
        char *end;

        if (isempty(p->value))
                return key_reset(p, k, field);
        errno = 0;
        unsigned long m = strtoul(p->value, &end, 8);
        if (errno != 0 || *end || end == p->value || m > 07777 || p->value[0] == '-' || p->value[0] == '+')
                return invalid_value(p, -EINVAL, "expected an octal mode such as '0755'");
        *(int *) field = (int) m;
        return 0;
}

/* StandardInput=: null, tty, tty-force, tty-fail, socket; systemd's data, file: and fd: are refused. */
int parse_std_input(UnitParser *p, const UnitKey *k, void *field) {
        static const char *const names[_EXEC_INPUT_MAX] = {
                [EXEC_INPUT_NULL] = "null", [EXEC_INPUT_TTY] = "tty", [EXEC_INPUT_TTY_FORCE] = "tty-force",
                [EXEC_INPUT_TTY_FAIL] = "tty-fail", [EXEC_INPUT_SOCKET] = "socket",
        };
        static const char *const systemd_only[] = { "data", "file:", "fd:" };

        if (isempty(p->value))
                return key_reset(p, k, field);
        for (int i = 0; i < _EXEC_INPUT_MAX; i++)
                if (streq(p->value, names[i])) {
                        *(ExecInput *) field = (ExecInput) i;
                        return 0;
                }
        for (size_t i = 0; i < ELEMENTSOF(systemd_only); i++)
                if (strneq(p->value, systemd_only[i], strlen(systemd_only[i])))
                        return invalid_value(p, -EOPNOTSUPP,
                                             "not supported (supported: null, tty, tty-force, tty-fail, socket)");
        return invalid_value(p, -EINVAL, "expected null, tty, tty-force, tty-fail or socket");
}

/* TTYPath=: an absolute path. */
int parse_tty_path(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_free_ char *s = NULL;

        if (isempty(p->value)) {
                free_and_replace(field, NULL);
                return 0;
        }
        int r = unit_parse_string_value(p, &s);
        if (r < 0)
                return r;
        if (s[0] != '/' || strlen(s) >= PATH_MAX)
                return invalid_value(p, -EINVAL, "expected an absolute path such as '/dev/tty1'");
        free_and_replace(field, TAKE_PTR(s));
        return 0;
}

int parse_preserve(UnitParser *p, const UnitKey *k, void *field) {
        if (isempty(p->value))
                return key_reset(p, k, field);
        if (streq(p->value, "restart")) {
                *(ExecPreserve *) field = EXEC_PRESERVE_RESTART;
                return 0;
        }
                bool b;
        if (parse_boolean(p->value, &b) < 0)
                return invalid_value(p, -EINVAL, "expected a boolean or 'restart'");
        *(ExecPreserve *) field = b ? EXEC_PRESERVE_YES : EXEC_PRESERVE_NO;
        return 0;
}

/* PAMName=: svd opens no PAM session. The value is kept; unit_check_privileges() decides, once
 * User= is known, whether that makes the unit fail (systemd ignores the key without User=). */
int parse_pam_name(UnitParser *p, const UnitKey *k, void *field) {
        if (isempty(p->value)) {
                p->pam_name_line = 0;
                return 0;
        }
        (void) k;
        (void) field;
        p->pam_name_line = p->line;
        return 0;
}

/* SELinuxContext=, AppArmorProfile=, SmackProcessLabel=: a security label the service is to run
 * under, confining it. svd applies none. Run without it, the service would have more than its unit
 * gives it, so the unit fails to load; with the '-' prefix ("failing to apply it is fine") it is a
 * sandboxing key svd does not enforce, refused unless svd runs with --allow-unsandboxed. */
/* Whether this kernel enforces AppArmor: /sys/module/apparmor/parameters/enabled says Y. */
static bool apparmor_enabled(void) {
        char c = 0;
        int fd = open("/sys/module/apparmor/parameters/enabled", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        ssize_t n = read(fd, &c, 1);
        (void) close(fd);
        return n == 1 && c == 'Y';
}

int parse_security_label(UnitParser *p, const UnitKey *k, void *field) {
        (void) field;
        if (isempty(p->value))
                return record_sandbox_not_applied(p, k);
        /* systemd.exec(5): with '-', a profile that cannot be applied is ignored. Where the kernel
         * has no AppArmor, systemd runs the service without it, and so does svd, saying so; where it
         * has, systemd would apply it and svd cannot, so the key is not applied. */
        if (p->value[0] == '-' && streq(k->name, "AppArmorProfile") && !apparmor_enabled()) {
                parser_warn(p, "%s=%s: AppArmor is not enabled in this kernel, the service runs without the "
                               "profile (as under systemd)",
                            k->name, p->value);
                return 0;
        }
        if (p->value[0] == '-')
                return record_sandbox_not_applied(p, k);
        return parser_error(p, -EOPNOTSUPP, p->line,
                            "%s= asks for a security label, which svd does not apply: refusing to run the "
                            "service without it (a '-' in front of the value lets it run without)",
                            k->name);
}

/* Personality=: the architecture names of systemd's personality_from_string() that this machine
 * runs: its own (no change) and, on a 64-bit one, its 32-bit counterpart (PER_LINUX32). */
int parse_personality(UnitParser *p, const UnitKey *k, void *field) {
        static const struct {
                const char *native, *compat;
        } arch =
#if defined(__x86_64__)
                { "x86-64", "x86" };
#elif defined(__i386__)
                { "x86", NULL };
#elif defined(__aarch64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                { "arm64", "arm" };
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                { "ppc64-le", NULL };
#elif defined(__s390x__)
                { "s390x", "s390" };
#elif defined(__riscv) && __riscv_xlen == 64
                { "riscv64", NULL };
#else
                { NULL, NULL };
#endif
        unsigned long *personality = field;

        if (isempty(p->value))
                return key_reset(p, k, field);
        if (arch.native && streq(p->value, arch.native))
                *personality = 0x0000 /* PER_LINUX */;
        else if (arch.compat && streq(p->value, arch.compat))
                *personality = 0x0008 /* PER_LINUX32 */;
        else
                return invalid_value(p, -EOPNOTSUPP, "not an architecture this machine runs (%s%s%s)",
                                     arch.native ?: "none known", arch.compat ? ", " : "", arch.compat ?: "");
        return 0;
}

/* The sandboxing keys: unit-sandbox.c parses their values. */
int parse_sandbox(UnitParser *p, const UnitKey *k, void *field) {
        const char *reason = NULL;
        int r = unit_sandbox_parse(&p->unit->sandbox, k->name, p->value, &reason);
        if (r == -ENOMEM || r >= 0)
                return r;
        assert(r != -ENOENT);
        return invalid_value(p, r, "%s", reason ?: "invalid value");
}

/* DevicePolicy=, DeviceAllow=, IPAddressAllow=, IPAddressDeny=: unit-access.c parses their values;
 * specifiers in a DeviceAllow= path are resolved first, as systemd does. The line of the first
 * assignment that may restrict the service (not IPAddressAllow=, not DevicePolicy=auto, not a reset)
 * is kept for the load error where svd cannot enforce them. */
int parse_access(UnitParser *p, const UnitKey *k, void *field) {
        UnitAccess *a = &p->unit->access;
        _cleanup_free_ char *value = NULL;
        const char *reason = NULL;
        int r;

        (void) field;
        if (streq(k->name, "DeviceAllow") && !isempty(p->value)) {
                r = unit_parse_string_value(p, &value);
                if (r < 0)
                        return r;
        }
        r = unit_access_parse(a, k->name, value ?: p->value, &reason);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                assert(r != -ENOENT);
                return invalid_value(p, r, "%s", reason ?: "invalid value");
        }
        if (a->line == 0 && !isempty(p->value) && !streq(k->name, "IPAddressAllow") &&
            !(streq(k->name, "DevicePolicy") && a->device_policy == DEVICE_POLICY_AUTO))
                a->line = p->line;
        return 0;
}

/* A sandboxing key svd does not enforce. A value that asks for nothing ("no", "default", empty) is
 * fine; anything else is recorded, so that the unit never runs with less than it asks for
 * unnoticed. An empty assignment takes an earlier one back. */
int record_sandbox_not_applied(UnitParser *p, const UnitKey *k) {
        static const char *const nothing[] = { "default", "all", "auto", "inherit", NULL };
        _cleanup_free_ char *name = NULL;
        char ***l = &p->unit->sandbox.not_applied;
        bool b;

        if (asprintf(&name, "%s=", k->name) < 0)
                return -ENOMEM;
        bool no_effect = isempty(p->value) || (parse_boolean(p->value, &b) >= 0 && !b) ||
                         strv_contains((char **) nothing, p->value);
        bool listed = strv_contains(*l, name);
        if (no_effect && listed && isempty(p->value)) {
                size_t j = 0;
                for (size_t i = 0; (*l)[i]; i++)
                        if (streq((*l)[i], name))
                                free((*l)[i]);
                        else
                                (*l)[j++] = (*l)[i];
                (*l)[j] = NULL;
                if (j == 0)
                        *l = strv_free(*l);
        }
        if (no_effect || listed)
                return 0;
        if (!*l)
                p->unit->sandbox.not_applied_line = p->line;
        return strv_extend(l, name);
}

/* Documentation=: URIs of the kinds systemd accepts (http:, https:, file:, info:, man:), several per
 * line and accumulating; others are ignored with a warning, as systemd does. */
int parse_documentation(UnitParser *p, const UnitKey *k, void *field) {
        static const char *const schemes[] = { "http://", "https://", "file:", "info:", "man:" };
        char ***list = field;
        const char *v = p->value;
        int r;

        if (isempty(v)) {
                *list = strv_free(*list);
                return 0;
        }
        for (;;) {
                _cleanup_free_ char *uri = NULL;
                bool valid = false;

                r = next_word(p, &v, &uri);
                if (r <= 0)
                        return r;
                for (size_t i = 0; i < ELEMENTSOF(schemes); i++)
                        if (strneq(uri, schemes[i], strlen(schemes[i])) && uri[strlen(schemes[i])])
                                valid = true;
                if (!valid || !utf8_is_valid(uri)) {
                        _cleanup_free_ char *q = message_quote(uri);
                        if (!q)
                                return -ENOMEM;
                        parser_warn(p, "Not a valid documentation URI '%s', ignoring.", q);
                        continue;
                }
                if (strv_contains(*list, uri))
                        continue;
                if (strv_length(*list) >= UNIT_DEPENDENCIES_MAX)
                        return invalid_value(p, -E2BIG, "more than %u URIs", UNIT_DEPENDENCIES_MAX);
                r = strv_consume(list, TAKE_PTR(uri));
                if (r < 0)
                        return r;
        }
}

/* Condition*=, Assert*=: "[|][!]PARAMETER", specifiers resolved; unit-condition.c checks the
 * parameter of each kind. */
int parse_condition(UnitParser *p, const UnitKey *k, void *field) {
        bool assertion = strneq(k->name, "Assert", 6);
        ConditionType t = condition_type_from_string(k->name + (assertion ? 6 : 9));
        _cleanup_free_ char *v = NULL;
        const char *reason = NULL;
        int r;

        assert(t >= 0);
        if (!isempty(p->value)) {
                r = unit_parse_string_value(p, &v);
                if (r < 0)
                        return r;
        }
        r = unit_conditions_add(field, t, assertion, v, &reason);
        if (r == -ENOMEM || r >= 0)
                return r;
        return invalid_value(p, r, "%s", reason ?: "invalid value");
}

