/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit files: the reader of systemd's ini syntax and the table of keys that turns each assignment
 * into a field of Unit. */
#include "unit.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <cap-ng.h>
#include <math.h>

#include "basic/extract-word.h"
#include "basic/parse-util.h"
#include "basic/string-table.h"
#include "basic/strv.h"
#include "basic/unit-name.h"
#include "basic/utf8.h"
#include "logfile.h"
#include "unit-specifier.h"

/*
 * unit.c reads unit files: the reader (unit_parse_text()) turns the bytes into logical lines as
 * systemd.syntax(7) says, and each "Key=value" goes through its row in unit_keys[], the table of
 * every key svd knows, to a parser that sets one field of Unit.
 *
 * No ini library: systemd's syntax and inih's (Debian's libinih 55) disagree on inline comments
 * (a ';' after whitespace), indented continuation lines, ':' as a separator, lines longer than
 * 200 bytes (silently cut into several), section names longer than 49 bytes, backslash
 * continuations and line numbers (none in the handler). Every one of those has to be done by our
 * own reader, after which the library would only remember the current section name.
 */

/* Limits on input the parser holds beyond those in unit.h: every size a unit file controls is bounded. */
#define UNIT_KEY_NAME_MAX      64U  /* bytes in a key name */
#define UNIT_SECTION_NAME_MAX  48U  /* bytes in a section name */
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
#define UNIT_RESTART_STEPS_MAX 3600U                               /* RestartSteps= */

#define WHITESPACE " \t\n\r"
#define COMMENTS   "#;"

static const char *const restart_policy_table[_RESTART_POLICY_MAX] = {
        [RESTART_NO] = "no",
        [RESTART_ON_FAILURE] = "on-failure",
        [RESTART_ALWAYS] = "always",
        [RESTART_ON_SUCCESS] = "on-success",
        [RESTART_ON_ABNORMAL] = "on-abnormal",
        [RESTART_ON_WATCHDOG] = "on-watchdog",
        [RESTART_ON_ABORT] = "on-abort",
};

static const char *const service_type_table[_SERVICE_TYPE_MAX] = {
        [SERVICE_TYPE_SIMPLE] = "simple",
        [SERVICE_TYPE_EXEC] = "exec",
        [SERVICE_TYPE_NOTIFY] = "notify",
        [SERVICE_TYPE_ONESHOT] = "oneshot",
        [SERVICE_TYPE_FORKING] = "forking",
        [SERVICE_TYPE_IDLE] = "idle",
        [SERVICE_TYPE_DBUS] = "dbus",
};

DEFINE_STRING_TABLE_LOOKUP(service_type, ServiceType);

static const char *const notify_access_table[_NOTIFY_ACCESS_MAX] = {
        [NOTIFY_ACCESS_NONE] = "none",
        [NOTIFY_ACCESS_MAIN] = "main",
        [NOTIFY_ACCESS_EXEC] = "exec",
        [NOTIFY_ACCESS_ALL] = "all",
};

DEFINE_STRING_TABLE_LOOKUP(notify_access, NotifyAccess);

static const char *const unit_dependency_table[_UNIT_DEPENDENCY_MAX] = {
        [UNIT_REQUIRES] = "Requires",
        [UNIT_WANTS] = "Wants",
        [UNIT_AFTER] = "After",
        [UNIT_BEFORE] = "Before",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(unit_dependency, UnitDependency);
DEFINE_STRING_TABLE_LOOKUP(restart_policy, RestartPolicy);

typedef struct UnitParser {
        const char *path;
        Unit *unit;
        UnitWarningFn warn;
        void *userdata;
        unsigned n_warnings;

        /* Input and the reader's position in it. */
        const char *text;
        size_t size;
        size_t pos;
        unsigned physical_line; /* physical lines consumed so far */

        /* The current logical line; key and value point into it while its key is parsed. */
        char *line_buf;
        size_t line_len;
        unsigned line; /* its first physical line, for messages */
        const char *key;
        const char *value;
        char section[UNIT_SECTION_NAME_MAX + 1]; /* of the last header; "" before the first */

        unsigned exec_start_line;        /* 0: no ExecStart= in force */
        unsigned exec_start_second_line; /* of a second ExecStart= (Type=oneshot only), 0: none */
        unsigned n_env_assignments;
        unsigned n_wanted_by;
        unsigned pam_name_line; /* of PAMName= in force, 0: none */

        int error; /* first error, negative; parsing stops there */
        char *error_message;
} UnitParser;

static void unit_parser_done(UnitParser *p) {
        free(p->line_buf);
        p->line_buf = NULL;
}

/* Bytes a user controls are quoted in messages with control characters escaped and at most
 * UNIT_MESSAGE_VALUE_MAX bytes kept, so that a message is one bounded line on a terminal. Messages
 * end up in JSON, so a value that is not valid UTF-8 has its high bytes escaped as well. */
static char *message_quote(const char *s) {
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
_printf_(4, 5) static int parser_error(UnitParser *p, int error, unsigned line, const char *format, ...) {
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

static int parser_oom(UnitParser *p) {
        return parser_error(p, -ENOMEM, p->line, "Out of memory");
}

/* "PATH:LINE: Invalid value 'VALUE' for KEY=: REASON" */
_printf_(3, 4) static int invalid_value(UnitParser *p, int error, const char *format, ...) {
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

_printf_(2, 3) static void parser_warn(UnitParser *p, const char *format, ...) {
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
static int record_not_applied(UnitParser *p, const char *entry) {
        char ***l = &p->unit->not_applied;

        if (strv_contains(*l, entry) || strv_length(*l) >= UNIT_NOT_APPLIED_MAX)
                return 0;
        return strv_extend(l, entry);
}

static int record_key_not_applied(UnitParser *p) {
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

static bool name_char_is_plain(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
               c == '_' || c == '.';
}

/* Key and section names: short, letters, digits, '-', '_' and '.'. systemd's own names are all
 * letters; "X-Foo" extension names fit as well. */
static bool name_is_plain(const char *s, size_t n, size_t max) {
        if (n == 0 || n > max)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!name_char_is_plain(s[i]))
                        return false;
        return true;
}

static void exec_command_done(ExecCommand *c) {
        c->argv = strv_free(c->argv);
        free(c->argv0);
        c->argv0 = NULL;
}

static void exec_command_list_done(ExecCommandList *l) {
        for (size_t i = 0; i < l->n; i++)
                exec_command_done(&l->commands[i]);
        free(l->commands);
        *l = (ExecCommandList){};
}

Unit *unit_free(Unit *u) {
        if (!u)
                return NULL;
        free(u->name);
        free(u->path);
        free(u->description);
        strv_free(u->documentation);
        for (size_t i = 0; i < _UNIT_EXEC_MAX; i++)
                exec_command_list_done(&u->exec[i]);
        free(u->working_directory);
        strv_free(u->environment);
        strv_free(u->environment_files);
        free(u->user);
        free(u->group);
        strv_free(u->supplementary_groups);
        free(u->source);
        free(u->std_output_path);
        free(u->std_error_path);
        free(u->pid_file);
        free(u->tty_path);
        free(u->bus_name);
        for (size_t i = 0; i < _EXEC_DIRECTORY_TYPE_MAX; i++)
                strv_free(u->exec_directories[i]);
        unit_sandbox_done(&u->sandbox);
        strv_free(u->not_applied);
        unit_conditions_done(&u->conditions);
        for (size_t i = 0; i < _UNIT_DEPENDENCY_MAX; i++)
                strv_free(u->dependencies[i]);
        for (size_t i = 0; i < _UNIT_RELATION_MAX; i++)
                strv_free(u->relations[i]);
        strv_free(u->aliases);
        free(u);
        return NULL;
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
static int parse_string_value(UnitParser *p, char **ret) {
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

/* ---- the keys ----
 *
 * Every key is one row of unit_keys[] below: section, name, parser, the field of Unit it sets,
 * and what that parser needs besides. A parser gets the field's address; it returns 0, or the
 * error of invalid_value() (which records the message), or -ENOMEM alone, which unit_parse_key()
 * reports (the one out-of-memory path). An empty assignment resets the key to its default, which
 * for the scalar fields is their value in unit_defaults.
 */

typedef struct UnitKey UnitKey;
typedef int (*UnitKeyParser)(UnitParser *p, const UnitKey *k, void *field);

struct UnitKey {
        const char *section;
        const char *name;
        UnitKeyParser parse; /* NULL: a systemd key svd does not implement yet */
        size_t offset;       /* of the field in Unit */
        size_t size;         /* of the field */
        unsigned flags;      /* KEY_* */
        uint64_t max;        /* for numbers: the largest accepted */
        size_t aux_offset;   /* a second field of Unit the parser sets */
        const char *expected; /* the reason in "Invalid value ..." messages, where the parser has none */
};

#define UNIT_FIELD(f) .offset = offsetof(Unit, f), .size = sizeof(((Unit *) NULL)->f)
/* A systemd key svd does not implement yet: a warning of its own rather than "Unknown key". */
#define KEY_NOT_YET(s, n) { .section = (s), .name = (n) }

enum {
        KEY_SEC_0_IS_INFINITY = 1U << 0, /* 0 means no timeout, like "infinity" (config_parse_sec_fix_0) */
        KEY_SEC_INFINITY_IS_0 = 1U << 1, /* "infinity" means off, stored as 0 */
        KEY_SEC_NO_INFINITY = 1U << 2,   /* "infinity" is refused */
        KEY_POSITIVE = 1U << 3,          /* numbers: 0 is refused */
        KEY_SIZE_INFINITY_IS_0 = 1U << 4, /* sizes: "infinity" is stored as 0 */
        KEY_BOUNDING_SET = 1U << 5,      /* capabilities: CapabilityBoundingSet= (else ambient) */
        KEY_SANDBOX = 1U << 6,           /* a sandboxing key: never ignored (see KEY_SANDBOX_NOT_YET) */
};

/* A sandboxing key svd does not enforce: the unit records it (UnitSandbox.not_applied) and the
 * manager refuses to run the unit without it, unless svd runs with --allow-unsandboxed. */
#define KEY_SANDBOX_NOT_YET(n) { .section = "Service", .name = (n), .flags = KEY_SANDBOX }
/* A sandboxing key svd enforces (unit-sandbox.c parses it). */
#define KEY_SANDBOXING(n) { .section = "Service", .name = (n), .parse = parse_sandbox, .flags = KEY_SANDBOX }

/* ConditionNAME= and AssertNAME=, two rows (unit-condition.h). */
#define KEY_CONDITION(n)                                                                                      \
        { "Unit", "Condition" n, parse_condition, UNIT_FIELD(conditions) },                                   \
        { "Unit", "Assert" n, parse_condition, UNIT_FIELD(conditions) }

/* What a new unit holds before its file is read, and what an empty assignment of a scalar key
 * goes back to. */
static const Unit unit_defaults = {
        .restart = RESTART_NO,
        .restart_usec = UNIT_RESTART_USEC_DEFAULT,
        .restart_max_delay_usec = USEC_INFINITY,
        .start_limit_interval_usec = UNIT_START_LIMIT_INTERVAL_USEC_DEFAULT,
        .start_limit_burst = UNIT_START_LIMIT_BURST_DEFAULT,
        .type = SERVICE_TYPE_SIMPLE,
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
};

static int key_reset(const UnitKey *k, void *field) {
        memcpy(field, (const uint8_t *) &unit_defaults + k->offset, k->size);
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
static int parse_string(UnitParser *p, const UnitKey *k, void *field) {
        char *s;
        int r;

        if (isempty(p->value)) {
                free_and_replace(field, NULL);
                return 0;
        }
        r = parse_string_value(p, &s);
        if (r < 0)
                return r;
        free_and_replace(field, s);
        return 0;
}

/* Booleans; a field of int size is a tristate whose default (-1) an empty assignment restores. */
static int parse_bool_key(UnitParser *p, const UnitKey *k, void *field) {
        bool b;
        int r;

        if (isempty(p->value))
                return key_reset(k, field);
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
static int parse_sec_key(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t usec;
        int r;

        if (isempty(p->value))
                return key_reset(k, field);
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

static const UnitKey *unit_key_find(const char *section, const char *name);

/* TimeoutSec= sets TimeoutStartSec= and TimeoutStopSec=, as in systemd: through their rows. */
static int parse_timeout_sec(UnitParser *p, const UnitKey *k, void *field) {
        static const char *const keys[] = { "TimeoutStartSec", "TimeoutStopSec" };

        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                const UnitKey *t = unit_key_find("Service", keys[i]);
                assert(t);
                int r = t->parse(p, t, (uint8_t *) p->unit + t->offset);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Numbers from 0 (1 with KEY_POSITIVE) to k->max. */
static int parse_unsigned_key(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t min = (k->flags & KEY_POSITIVE) ? 1 : 0, n;

        if (isempty(p->value))
                return key_reset(k, field);
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
static int parse_size_key(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t v;
        int r;

        if (isempty(p->value))
                return key_reset(k, field);
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
static int parse_tasks_max(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t *v = field, bp;
        int r;

        if (isempty(p->value))
                return key_reset(k, field);
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
static int parse_memory_max(UnitParser *p, const UnitKey *k, void *field) {
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

static int parse_type(UnitParser *p, const UnitKey *k, void *field) {
        static const char *const systemd_types[] = { "notify-reload" };
        ServiceType t;

        if (isempty(p->value))
                return key_reset(k, field);
        t = service_type_from_string(p->value);
        if (t >= 0) {
                *(ServiceType *) field = t;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(systemd_types); i++)
                if (streq(p->value, systemd_types[i]))
                        return invalid_value(p, -EOPNOTSUPP,
                                             "not supported (supported: simple, exec, notify, oneshot, forking, idle, dbus)");
        return invalid_value(p, -EINVAL, "expected simple, exec, notify, oneshot, forking, idle or dbus");
}

static int parse_restart(UnitParser *p, const UnitKey *k, void *field) {
        RestartPolicy r;

        if (isempty(p->value))
                return key_reset(k, field);
        r = restart_policy_from_string(p->value);
        if (r < 0)
                return invalid_value(p, -EINVAL,
                                     "expected one of: no, on-success, on-failure, on-abnormal, on-watchdog, "
                                     "on-abort, always");
        *(RestartPolicy *) field = r;
        return 0;
}

static int parse_signal(UnitParser *p, const UnitKey *k, void *field) {
        int sig, r;

        if (isempty(p->value))
                return key_reset(k, field);
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
static int parse_dependency(UnitParser *p, const UnitKey *k, void *field) {
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
                else if (dot && strv_contains((char **) other_types, dot + 1)) {
                        /* "network.target", "foo.socket": a unit type svd does not have. */
                        _cleanup_free_ char *q = message_quote(name);
                        if (!q)
                                return -ENOMEM;
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
                if (strv_contains(*list, name))
                        continue;
                if (strv_length(*list) >= UNIT_DEPENDENCIES_MAX)
                        return invalid_value(p, -E2BIG, "more than %u names", UNIT_DEPENDENCIES_MAX);
                r = strv_consume(list, TAKE_PTR(name));
                if (r < 0)
                        return r;
        }
}

/* BindsTo=: a relation of its own and, as in systemd, everything Requires= does. */
static int parse_binds_to(UnitParser *p, const UnitKey *k, void *field) {
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

/* Also=: units `systemctl enable` enables with this one. svd has no enabling, so the names have
 * no effect; their quoting and specifiers are checked. */
static int parse_also(UnitParser *p, const UnitKey *k, void *field) {
        const char *v = p->value;

        for (;;) {
                _cleanup_free_ char *name = NULL;
                int r = next_word(p, &v, &name);
                if (r <= 0)
                        return r;
        }
}

/* ExecStart=, ExecStartPre=, ExecStartPost=, ExecReload=, ExecStop=, ExecStopPost=: one command line
 * each, appended to the key's list; an empty assignment empties it (systemd.service(5)). */
static int parse_exec_command(UnitParser *p, const UnitKey *k, void *field) {
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
static int parse_exit_status_set(UnitParser *p, const UnitKey *k, void *field) {
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

static int parse_kill_mode(UnitParser *p, const UnitKey *k, void *field) {
        if (isempty(p->value))
                return key_reset(k, field);
        KillMode m = kill_mode_from_string(p->value);
        if (m < 0)
                return invalid_value(p, -EINVAL, "expected one of: control-group, mixed, process, none");
        *(KillMode *) field = m;
        return 0;
}

/* WorkingDirectory=: an absolute path or "~", "-" in front for "missing is fine". Three fields. */
static int parse_working_directory(UnitParser *p, const UnitKey *k, void *field) {
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
                r = parse_string_value(p, &s);
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

static int parse_environment(UnitParser *p, const UnitKey *k, void *field) {
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
static int parse_environment_file(UnitParser *p, const UnitKey *k, void *field) {
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

static int parse_user_group(UnitParser *p, const UnitKey *k, void *field) {
        char *s;
        int r;

        if (isempty(p->value)) {
                free_and_replace(field, NULL);
                return 0;
        }
        r = parse_string_value(p, &s);
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

static int parse_supplementary_groups(UnitParser *p, const UnitKey *k, void *field) {
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

/* svd has no targets. A unit wanted by default.target, or by multi-user.target (what "the system
 * has started" means for most services, and what `systemctl enable` units usually name), starts
 * when svd starts. */
static int parse_wanted_by(UnitParser *p, const UnitKey *k, void *field) {
        static const char *const default_targets[] = { "default.target", "multi-user.target", NULL };
        bool *wanted_by_default = field;
        const char *v = p->value;
        int r;

        if (isempty(v))
                return key_reset(k, field);

        for (;;) {
                _cleanup_free_ char *word = NULL, *target = NULL;
                char bad;

                /* Counted before the specifiers are looked at, so that the work stays bounded. */
                r = extract_first_word(&v, &word);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return invalid_value(p, r, "unbalanced quotes or invalid escape sequence");
                if (r == 0)
                        return 0;
                if (++p->n_wanted_by > UNIT_WANTED_BY_MAX)
                        return invalid_value(p, -E2BIG, "more than %u targets in this file",
                                             UNIT_WANTED_BY_MAX);
                r = unescape_specifiers_for(p, word, &target, &bad);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        return invalid_specifier(p, r, bad);

                if (strv_contains((char **) default_targets, target))
                        *wanted_by_default = true;
                else {
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
        }
}

/* CapabilityBoundingSet=, AmbientCapabilities=: "CAP_NET_ADMIN cap_chown ~CAP_SYS_TIME", a leading
 * '~' inverting the whole list, as in systemd. Names go through libcap-ng, so that they match the
 * running kernel's list. Several assignments combine as in systemd: positive lists add up (the
 * bounding set's first one replaces "all"), "~" ones take away. */
static int parse_capabilities(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_strv_free_ char **l = NULL;
        uint64_t *set = field, mask = 0;
        const char *v = p->value;
        bool invert = false;
        int r;

        if (isempty(v))
                return key_reset(k, field);
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

static int parse_umask(UnitParser *p, const UnitKey *k, void *field) {
        char *end;

        if (isempty(p->value))
                return key_reset(k, field);
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
static int parse_limit(UnitParser *p, const UnitKey *k, void *field) {
        uint64_t soft, hard;
        int r;

        if (isempty(p->value))
                return key_reset(k, field);
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

static const char *const log_output_table[_LOG_OUTPUT_MAX] = {
        [LOG_OUTPUT_LOG] = "log",       [LOG_OUTPUT_NULL] = "null",     [LOG_OUTPUT_INHERIT] = "inherit",
        [LOG_OUTPUT_FILE] = "file",     [LOG_OUTPUT_APPEND] = "append", [LOG_OUTPUT_TTY] = "tty",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(log_output, LogOutput);

/* StandardOutput=/StandardError=: log (or systemd's journal), null, inherit, file:PATH, append:PATH.
 * The path of file: and append: goes to the field at k->aux_offset. */
static int parse_log_output(UnitParser *p, const UnitKey *k, void *field) {
        static const char *const systemd_only[] = { "socket", "truncate:", "fd:" };
        /* systemd's journal, kernel log and syslog destinations, and those with a copy on the
         * console: svd has one log per service, so they all go there. */
        static const char *const as_log[] = { "journal+console", "kmsg", "kmsg+console", "syslog",
                                              "syslog+console", NULL };
        char **path = (char **) ((uint8_t *) p->unit + k->aux_offset);
        _cleanup_free_ char *s = NULL;
        const char *v = p->value;
        LogOutput o;

        if (isempty(v))
                o = *(const LogOutput *) ((const uint8_t *) &unit_defaults + k->offset);
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
                                                     "file:PATH, append:PATH)");
                return invalid_value(p, -EINVAL,
                                     "expected one of: log, journal, null, inherit, tty, file:PATH, append:PATH");
        }
        free_and_replace(path, TAKE_PTR(s));
        *(LogOutput *) field = o;
        return 0;
}

/* ---- service types and the execution environment ---- */

/* PIDFile=: a path; a relative one is below /run, as systemd.service(5) says. */
static int parse_pid_file(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_free_ char *s = NULL;
        int r;

        if (isempty(p->value)) {
                free_and_replace(field, NULL);
                return 0;
        }
        r = parse_string_value(p, &s);
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
static int parse_notify_access(UnitParser *p, const UnitKey *k, void *field) {
        if (isempty(p->value))
                return key_reset(k, field);
        NotifyAccess a = notify_access_from_string(p->value);
        if (a < 0)
                return invalid_value(p, -EINVAL, "expected none, main, exec or all");
        *(NotifyAccess *) field = a;
        return 0;
}

/* BusName=: a well-known D-Bus name, as the D-Bus specification defines it: two or more elements
 * of [A-Za-z0-9_-] separated by '.', none starting with a digit, at most 255 bytes. */
static int parse_bus_name(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_free_ char *s = NULL;
        int r;

        if (isempty(p->value)) {
                free_and_replace(field, NULL);
                return 0;
        }
        r = parse_string_value(p, &s);
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
static int parse_exec_directories(UnitParser *p, const UnitKey *k, void *field) {
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
static int parse_directory_mode(UnitParser *p, const UnitKey *k, void *field) {
        char *end;

        if (isempty(p->value))
                return key_reset(k, field);
        errno = 0;
        unsigned long m = strtoul(p->value, &end, 8);
        if (errno != 0 || *end || end == p->value || m > 07777 || p->value[0] == '-' || p->value[0] == '+')
                return invalid_value(p, -EINVAL, "expected an octal mode such as '0755'");
        *(int *) field = (int) m;
        return 0;
}

/* StandardInput=: null, tty, tty-force, tty-fail; systemd's data, file:, socket and fd: are refused. */
static int parse_std_input(UnitParser *p, const UnitKey *k, void *field) {
        static const char *const names[_EXEC_INPUT_MAX] = {
                [EXEC_INPUT_NULL] = "null", [EXEC_INPUT_TTY] = "tty", [EXEC_INPUT_TTY_FORCE] = "tty-force",
                [EXEC_INPUT_TTY_FAIL] = "tty-fail",
        };
        static const char *const systemd_only[] = { "data", "file:", "socket", "fd:" };

        if (isempty(p->value))
                return key_reset(k, field);
        for (int i = 0; i < _EXEC_INPUT_MAX; i++)
                if (streq(p->value, names[i])) {
                        *(ExecInput *) field = (ExecInput) i;
                        return 0;
                }
        for (size_t i = 0; i < ELEMENTSOF(systemd_only); i++)
                if (strneq(p->value, systemd_only[i], strlen(systemd_only[i])))
                        return invalid_value(p, -EOPNOTSUPP, "not supported (supported: null, tty, tty-force, tty-fail)");
        return invalid_value(p, -EINVAL, "expected null, tty, tty-force or tty-fail");
}

/* TTYPath=: an absolute path. */
static int parse_tty_path(UnitParser *p, const UnitKey *k, void *field) {
        _cleanup_free_ char *s = NULL;

        if (isempty(p->value)) {
                free_and_replace(field, NULL);
                return 0;
        }
        int r = parse_string_value(p, &s);
        if (r < 0)
                return r;
        if (s[0] != '/' || strlen(s) >= PATH_MAX)
                return invalid_value(p, -EINVAL, "expected an absolute path such as '/dev/tty1'");
        free_and_replace(field, TAKE_PTR(s));
        return 0;
}

static int parse_preserve(UnitParser *p, const UnitKey *k, void *field) {
        if (isempty(p->value))
                return key_reset(k, field);
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

static int record_sandbox_not_applied(UnitParser *p, const UnitKey *k);

/* PAMName=: svd opens no PAM session. The value is kept; unit_check_privileges() decides, once
 * User= is known, whether that makes the unit fail (systemd ignores the key without User=). */
static int parse_pam_name(UnitParser *p, const UnitKey *k, void *field) {
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
static int parse_security_label(UnitParser *p, const UnitKey *k, void *field) {
        (void) field;
        if (isempty(p->value))
                return record_sandbox_not_applied(p, k);
        if (p->value[0] == '-')
                return record_sandbox_not_applied(p, k);
        return parser_error(p, -EOPNOTSUPP, p->line,
                            "%s= asks for a security label, which svd does not apply: refusing to run the "
                            "service without it (a '-' in front of the value lets it run without)",
                            k->name);
}

/* Personality=: the architecture names of systemd's personality_from_string() that this machine
 * runs: its own (no change) and, on a 64-bit one, its 32-bit counterpart (PER_LINUX32). */
static int parse_personality(UnitParser *p, const UnitKey *k, void *field) {
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
                return key_reset(k, field);
        if (arch.native && streq(p->value, arch.native))
                *personality = 0x0000 /* PER_LINUX */;
        else if (arch.compat && streq(p->value, arch.compat))
                *personality = 0x0008 /* PER_LINUX32 */;
        else
                return invalid_value(p, -EOPNOTSUPP, "not an architecture this machine runs (%s%s%s)",
                                     arch.native ?: "none known", arch.compat ? ", " : "", arch.compat ?: "");
        return 0;
}

int unit_dynamic_user_name(const char *name, char **ret) {
        size_t n = strlen(name);
        bool valid = n > 0 && n <= 31 && (name[0] == '_' || (name[0] >= 'a' && name[0] <= 'z') ||
                                         (name[0] >= 'A' && name[0] <= 'Z'));
        for (size_t i = 1; valid && i < n; i++)
                valid = name_char_is_plain(name[i]) && name[i] != '.';
        if (valid) {
                *ret = strdup(name);
                return *ret ? 0 : -ENOMEM;
        }
        /* FNV-1a, 64 bits. */
        uint64_t h = UINT64_C(0xcbf29ce484222325);
        for (size_t i = 0; i < n; i++) {
                h ^= (unsigned char) name[i];
                h *= UINT64_C(0x100000001b3);
        }
        return asprintf(ret, "_du%016" PRIx64, h) < 0 ? -ENOMEM : 0;
}

bool unit_implies_no_new_privileges(const Unit *u) {
        const UnitSandbox *s = &u->sandbox;
        return s->syscall_filter || s->syscall_native_only || s->address_families_set ||
               s->namespaces_allowed != UNIT_NAMESPACES_ALL || s->private_devices || s->protect_kernel_modules ||
               s->protect_kernel_logs || s->protect_kernel_tunables || s->protect_clock || s->protect_hostname ||
               s->memory_deny_write_execute || s->restrict_realtime || s->restrict_suid_sgid || s->lock_personality;
}

/* The sandboxing keys: unit-sandbox.c parses their values. */
static int parse_sandbox(UnitParser *p, const UnitKey *k, void *field) {
        const char *reason = NULL;
        int r = unit_sandbox_parse(&p->unit->sandbox, k->name, p->value, &reason);
        if (r == -ENOMEM || r >= 0)
                return r;
        assert(r != -ENOENT);
        return invalid_value(p, r, "%s", reason ?: "invalid value");
}

/* A sandboxing key svd does not enforce. A value that asks for nothing ("no", "default", empty) is
 * fine; anything else is recorded, so that the unit never runs with less than it asks for
 * unnoticed. An empty assignment takes an earlier one back. */
static int record_sandbox_not_applied(UnitParser *p, const UnitKey *k) {
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
static int parse_documentation(UnitParser *p, const UnitKey *k, void *field) {
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
static int parse_condition(UnitParser *p, const UnitKey *k, void *field) {
        bool assertion = strneq(k->name, "Assert", 6);
        ConditionType t = condition_type_from_string(k->name + (assertion ? 6 : 9));
        _cleanup_free_ char *v = NULL;
        const char *reason = NULL;
        int r;

        assert(t >= 0);
        if (!isempty(p->value)) {
                r = parse_string_value(p, &v);
                if (r < 0)
                        return r;
        }
        r = unit_conditions_add(field, t, assertion, v, &reason);
        if (r == -ENOMEM || r >= 0)
                return r;
        return invalid_value(p, r, "%s", reason ?: "invalid value");
}

/* Every key svd knows, one row each; adding a key is adding a row (and its field in Unit). */
static const UnitKey unit_keys[] = {
        { "Unit", "Description", parse_string, UNIT_FIELD(description) },
        { "Unit", "Documentation", parse_documentation, UNIT_FIELD(documentation) },
        { "Unit", "Requires", parse_dependency, UNIT_FIELD(dependencies[UNIT_REQUIRES]) },
        { "Unit", "Wants", parse_dependency, UNIT_FIELD(dependencies[UNIT_WANTS]) },
        { "Unit", "After", parse_dependency, UNIT_FIELD(dependencies[UNIT_AFTER]) },
        { "Unit", "Before", parse_dependency, UNIT_FIELD(dependencies[UNIT_BEFORE]) },
        { "Unit", "Requisite", parse_dependency, UNIT_FIELD(relations[UNIT_REQUISITE]) },
        { "Unit", "BindsTo", parse_binds_to, UNIT_FIELD(relations[UNIT_BINDS_TO]) },
        { "Unit", "PartOf", parse_dependency, UNIT_FIELD(relations[UNIT_PART_OF]) },
        { "Unit", "Conflicts", parse_dependency, UNIT_FIELD(relations[UNIT_CONFLICTS]) },
        { "Unit", "OnFailure", parse_dependency, UNIT_FIELD(relations[UNIT_ON_FAILURE]) },
        { "Unit", "DefaultDependencies", parse_bool_key, UNIT_FIELD(default_dependencies) },
        KEY_CONDITION("PathExists"),
        KEY_CONDITION("PathExistsGlob"),
        KEY_CONDITION("PathIsDirectory"),
        KEY_CONDITION("PathIsSymbolicLink"),
        KEY_CONDITION("PathIsMountPoint"),
        KEY_CONDITION("PathIsReadWrite"),
        KEY_CONDITION("DirectoryNotEmpty"),
        KEY_CONDITION("FileNotEmpty"),
        KEY_CONDITION("FileIsExecutable"),
        KEY_CONDITION("Virtualization"),
        KEY_CONDITION("Host"),
        KEY_CONDITION("KernelCommandLine"),
        KEY_CONDITION("Security"),
        KEY_CONDITION("Capability"),
        KEY_CONDITION("ACPower"),
        KEY_CONDITION("NeedsUpdate"),
        KEY_CONDITION("FirstBoot"),
        KEY_CONDITION("User"),
        KEY_CONDITION("Group"),
        KEY_CONDITION("Environment"),
        KEY_CONDITION("CPUs"),
        KEY_CONDITION("Architecture"),
        KEY_CONDITION("Credential"),
        { "Unit", "StartLimitIntervalSec", parse_sec_key, UNIT_FIELD(start_limit_interval_usec),
          /* systemd: "infinity" means what it says, 0 switches the limit off */
          .expected = "expected a time span such as '10s', or 0 for no limit" },
        { "Unit", "StartLimitBurst", parse_unsigned_key, UNIT_FIELD(start_limit_burst), .max = UINT_MAX,
          .expected = "expected a number (0: no limit)" },

        { "Service", "Type", parse_type, UNIT_FIELD(type) },
        { "Service", "ExecStart", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_START]) },
        { "Service", "WorkingDirectory", parse_working_directory, UNIT_FIELD(working_directory) },
        { "Service", "Environment", parse_environment, UNIT_FIELD(environment) },
        { "Service", "User", parse_user_group, UNIT_FIELD(user), .expected = "not a valid user name or id" },
        { "Service", "Group", parse_user_group, UNIT_FIELD(group),
          .expected = "not a valid group name or id" },
        { "Service", "Restart", parse_restart, UNIT_FIELD(restart) },
        { "Service", "RestartSec", parse_sec_key, UNIT_FIELD(restart_usec), .flags = KEY_SEC_NO_INFINITY,
          .expected = "expected a time span such as '500ms', '2s' or '1min 30s'" },
        { "Service", "KillSignal", parse_signal, UNIT_FIELD(kill_signal) },
        { "Service", "TimeoutStopSec", parse_sec_key, UNIT_FIELD(timeout_stop_usec),
          .flags = KEY_SEC_0_IS_INFINITY,
          .expected = "expected a time span such as '90s' or '5min', or 'infinity'" },
        { "Service", "NoNewPrivileges", parse_bool_key, UNIT_FIELD(no_new_privileges) },
        { "Service", "DynamicUser", parse_bool_key, UNIT_FIELD(dynamic_user) },
        { .section = "Service", .name = "PAMName", .parse = parse_pam_name },
        { "Service", "Personality", parse_personality, UNIT_FIELD(personality) },
        { "Service", "UMask", parse_umask, UNIT_FIELD(umask) },
        { "Service", "LimitNPROC", parse_limit, UNIT_FIELD(limit_nproc) },
        { "Service", "LimitCORE", parse_limit, UNIT_FIELD(limit_core) },
        { "Service", "PrivatePIDs", parse_bool_key, UNIT_FIELD(private_pids) },
        { "Service", "MemoryMax", parse_memory_max, UNIT_FIELD(memory_max),
          .expected = "expected a size such as '512M' or '2G', a percentage, or 'infinity'" },
        { "Service", "TasksMax", parse_tasks_max, UNIT_FIELD(tasks_max) },
        { "Service", "CPUWeight", parse_unsigned_key, UNIT_FIELD(cpu_weight),
          .flags = KEY_POSITIVE, .max = 10000 },
        { "Service", "SupplementaryGroups", parse_supplementary_groups, UNIT_FIELD(supplementary_groups) },
        { "Service", "CapabilityBoundingSet", parse_capabilities, UNIT_FIELD(capability_bounding_set),
          KEY_BOUNDING_SET },
        { "Service", "AmbientCapabilities", parse_capabilities, UNIT_FIELD(ambient_capabilities) },
        { "Service", "StartLimitIntervalSec", parse_sec_key, UNIT_FIELD(start_limit_interval_usec),
          .expected = "expected a time span such as '10s', or 0 for no limit" },
        { "Service", "StartLimitBurst", parse_unsigned_key, UNIT_FIELD(start_limit_burst), .max = UINT_MAX,
          .expected = "expected a number (0: no limit)" },
        { "Service", "RemainAfterExit", parse_bool_key, UNIT_FIELD(remain_after_exit) },
        { "Service", "IgnoreSIGPIPE", parse_bool_key, UNIT_FIELD(ignore_sigpipe) },
        { "Service", "WatchdogSec", parse_sec_key, UNIT_FIELD(watchdog_usec), .flags = KEY_SEC_INFINITY_IS_0,
          .expected = "expected a time span such as '10s', or 0 to switch it off" },
        { "Service", "RestartSteps", parse_unsigned_key, UNIT_FIELD(restart_steps),
          .max = UNIT_RESTART_STEPS_MAX },
        { "Service", "RestartMaxDelaySec", parse_sec_key, UNIT_FIELD(restart_max_delay_usec),
          .expected = "expected a time span such as '1min', or 'infinity'" },
        { "Service", "StandardOutput", parse_log_output, UNIT_FIELD(std_output),
          .aux_offset = offsetof(Unit, std_output_path) },
        { "Service", "StandardError", parse_log_output, UNIT_FIELD(std_error),
          .aux_offset = offsetof(Unit, std_error_path) },
        { "Service", "LogRotateSize", parse_size_key, UNIT_FIELD(log_rotate_size),
          .flags = KEY_SIZE_INFINITY_IS_0,
          .expected = "expected a size in bytes such as '10M', or 'infinity'" },
        { "Service", "LogRotateKeep", parse_unsigned_key, UNIT_FIELD(log_rotate_keep),
          .max = LOGFILE_ROTATE_KEEP_MAX },
        { "Service", "LimitNOFILE", parse_limit, UNIT_FIELD(limit_nofile) },
        /* The commands around the main one and how a service ends (systemd.service(5), systemd.kill(5)). */
        { "Service", "ExecStartPre", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_START_PRE]) },
        { "Service", "ExecStartPost", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_START_POST]) },
        { "Service", "ExecReload", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_RELOAD]) },
        { "Service", "ExecStop", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_STOP]) },
        { "Service", "ExecStopPost", parse_exec_command, UNIT_FIELD(exec[UNIT_EXEC_STOP_POST]) },
        { "Service", "KillMode", parse_kill_mode, UNIT_FIELD(kill_mode) },
        { "Service", "SuccessExitStatus", parse_exit_status_set, UNIT_FIELD(success_exit_status) },
        { "Service", "RestartPreventExitStatus", parse_exit_status_set, UNIT_FIELD(restart_prevent_exit_status) },
        { "Service", "RestartForceExitStatus", parse_exit_status_set, UNIT_FIELD(restart_force_exit_status) },
        { "Service", "TimeoutStartSec", parse_sec_key, UNIT_FIELD(timeout_start_usec),
          .flags = KEY_SEC_0_IS_INFINITY,
          .expected = "expected a time span such as '90s' or '5min', or 'infinity'" },
        { .section = "Service", .name = "TimeoutSec", .parse = parse_timeout_sec },


        /* Service types and the execution environment. */
        { "Service", "PIDFile", parse_pid_file, UNIT_FIELD(pid_file) },
        { "Service", "NotifyAccess", parse_notify_access, UNIT_FIELD(notify_access) },
        { "Service", "BusName", parse_bus_name, UNIT_FIELD(bus_name) },
        { "Service", "RuntimeDirectory", parse_exec_directories, UNIT_FIELD(exec_directories[EXEC_DIRECTORY_RUNTIME]) },
        { "Service", "StateDirectory", parse_exec_directories, UNIT_FIELD(exec_directories[EXEC_DIRECTORY_STATE]) },
        { "Service", "CacheDirectory", parse_exec_directories, UNIT_FIELD(exec_directories[EXEC_DIRECTORY_CACHE]) },
        { "Service", "LogsDirectory", parse_exec_directories, UNIT_FIELD(exec_directories[EXEC_DIRECTORY_LOGS]) },
        { "Service", "ConfigurationDirectory", parse_exec_directories,
          UNIT_FIELD(exec_directories[EXEC_DIRECTORY_CONFIGURATION]) },
        { "Service", "RuntimeDirectoryMode", parse_directory_mode, UNIT_FIELD(exec_directory_mode[EXEC_DIRECTORY_RUNTIME]) },
        { "Service", "StateDirectoryMode", parse_directory_mode, UNIT_FIELD(exec_directory_mode[EXEC_DIRECTORY_STATE]) },
        { "Service", "CacheDirectoryMode", parse_directory_mode, UNIT_FIELD(exec_directory_mode[EXEC_DIRECTORY_CACHE]) },
        { "Service", "LogsDirectoryMode", parse_directory_mode, UNIT_FIELD(exec_directory_mode[EXEC_DIRECTORY_LOGS]) },
        { "Service", "ConfigurationDirectoryMode", parse_directory_mode,
          UNIT_FIELD(exec_directory_mode[EXEC_DIRECTORY_CONFIGURATION]) },
        { "Service", "RuntimeDirectoryPreserve", parse_preserve, UNIT_FIELD(runtime_directory_preserve) },
        { "Service", "StandardInput", parse_std_input, UNIT_FIELD(std_input) },
        { "Service", "TTYPath", parse_tty_path, UNIT_FIELD(tty_path) },

        /* Keys for units as packages ship them (environment files, specifiers, templates). */
        { "Service", "EnvironmentFile", parse_environment_file, UNIT_FIELD(environment_files) },

        { "Install", "WantedBy", parse_wanted_by, UNIT_FIELD(wanted_by_default) },
        { "Install", "RequiredBy", parse_wanted_by, UNIT_FIELD(wanted_by_default) },
        { "Install", "Alias", parse_dependency, UNIT_FIELD(aliases) },
        { .section = "Install", .name = "Also", .parse = parse_also },

        /* Sandboxing (systemd.exec(5)): enforced, or refused unless svd runs with --allow-unsandboxed. */
        KEY_SANDBOXING("PrivateTmp"),
        KEY_SANDBOXING("ProtectSystem"),
        KEY_SANDBOXING("ProtectHome"),
        KEY_SANDBOXING("PrivateDevices"),
        KEY_SANDBOXING("ProtectKernelTunables"),
        KEY_SANDBOXING("ProtectKernelModules"),
        KEY_SANDBOXING("ProtectKernelLogs"),
        KEY_SANDBOXING("ProtectControlGroups"),
        KEY_SANDBOXING("ReadOnlyPaths"),
        KEY_SANDBOXING("ReadWritePaths"),
        KEY_SANDBOXING("InaccessiblePaths"),
        /* The older names of the three above, still read by systemd (redis-server.service uses one). */
        KEY_SANDBOXING("ReadOnlyDirectories"),
        KEY_SANDBOXING("ReadWriteDirectories"),
        KEY_SANDBOXING("InaccessibleDirectories"),
        KEY_SANDBOXING("TemporaryFileSystem"),
        KEY_SANDBOXING("BindPaths"),
        KEY_SANDBOXING("BindReadOnlyPaths"),
        KEY_SANDBOXING("PrivateNetwork"),
        KEY_SANDBOXING("ProtectHostname"),
        KEY_SANDBOXING("PrivateIPC"),
        KEY_SANDBOXING("ProtectProc"),
        KEY_SANDBOXING("ProcSubset"),
        KEY_SANDBOXING("PrivateUsers"),
        KEY_SANDBOXING("SystemCallFilter"),
        KEY_SANDBOXING("SystemCallErrorNumber"),
        KEY_SANDBOXING("SystemCallArchitectures"),
        KEY_SANDBOXING("RestrictAddressFamilies"),
        KEY_SANDBOXING("RestrictNamespaces"),
        KEY_SANDBOXING("RestrictRealtime"),
        KEY_SANDBOXING("LockPersonality"),
        KEY_SANDBOXING("MemoryDenyWriteExecute"),
        KEY_SANDBOXING("RestrictSUIDSGID"),
        KEY_SANDBOXING("ProtectClock"),
        KEY_SANDBOXING("PrivateMounts"),
        KEY_SANDBOXING("MountFlags"),
        KEY_SANDBOXING("RemoveIPC"),
        KEY_SANDBOXING("KeyringMode"),
        KEY_SANDBOX_NOT_YET("NetworkNamespacePath"),
        KEY_SANDBOX_NOT_YET("IPCNamespacePath"),
        KEY_SANDBOX_NOT_YET("RestrictFileSystems"),
        KEY_SANDBOX_NOT_YET("SystemCallLog"),
        KEY_SANDBOXING("ExecPaths"),
        KEY_SANDBOXING("NoExecPaths"),
        KEY_SANDBOX_NOT_YET("RootDirectory"),
        KEY_SANDBOX_NOT_YET("RootImage"),
        KEY_SANDBOX_NOT_YET("MountAPIVFS"),
        KEY_SANDBOX_NOT_YET("MountImages"),
        KEY_SANDBOX_NOT_YET("ExtensionImages"),
        KEY_SANDBOX_NOT_YET("ExtensionDirectories"),
        KEY_SANDBOX_NOT_YET("MemoryKSM"),
        KEY_SANDBOXING("SecureBits"),
        { "Service", "AppArmorProfile", parse_security_label, .flags = KEY_SANDBOX },
        { "Service", "SELinuxContext", parse_security_label, .flags = KEY_SANDBOX },
        { "Service", "SmackProcessLabel", parse_security_label, .flags = KEY_SANDBOX },
        KEY_SANDBOX_NOT_YET("DevicePolicy"),
        KEY_SANDBOX_NOT_YET("DeviceAllow"),
        KEY_SANDBOX_NOT_YET("IPAddressAllow"),
        KEY_SANDBOX_NOT_YET("IPAddressDeny"),
        KEY_SANDBOX_NOT_YET("RestrictNetworkInterfaces"),
        KEY_SANDBOX_NOT_YET("SocketBindAllow"),
        KEY_SANDBOX_NOT_YET("SocketBindDeny"),
};

static const UnitKey *unit_key_find(const char *section, const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(unit_keys); i++)
                if (streq(section, unit_keys[i].section) && streq(name, unit_keys[i].name))
                        return &unit_keys[i];
        return NULL;
}

static const char *const known_sections[] = { "Unit", "Service", "Install", NULL };

/* systemd ignores sections and keys whose name starts with "X-" (vendor extensions) silently. */
static bool name_is_extension(const char *s) {
        return strneq(s, "X-", 2);
}

/* One assignment, p->key=p->value in p->section. */
static void unit_parse_key(UnitParser *p) {
        const UnitKey *k;
        int r;

        if (p->section[0] == '\0') {
                parser_error(p, -EINVAL, p->line, "Assignment '%s=' outside of a section", p->key);
                return;
        }
        if (!strv_contains((char **) known_sections, p->section))
                return; /* warned about at its header */
        if (name_is_extension(p->key))
                return;

        k = unit_key_find(p->section, p->key);
        if (!k) {
                parser_warn(p, "Unknown key '%s=' in [%s], ignoring.", p->key, p->section);
                if (record_key_not_applied(p) < 0)
                        parser_oom(p);
                return;
        }
        if (!k->parse && (k->flags & KEY_SANDBOX)) {
                if (record_sandbox_not_applied(p, k) < 0)
                        parser_oom(p);
                return;
        }
        if (!k->parse) {
                parser_warn(p, "Key '%s=' in [%s] is not supported yet, ignoring.", p->key, p->section);
                if (record_key_not_applied(p) < 0)
                        parser_oom(p);
                return;
        }
        r = k->parse(p, k, (uint8_t *) p->unit + k->offset);
        /* A parser reports every error but running out of memory itself. */
        if (r < 0 && p->error == 0) {
                assert(r == -ENOMEM);
                parser_oom(p);
        }
}

static void strip(char **s, size_t *n) {
        while (*n > 0 && strchr(WHITESPACE, (*s)[*n - 1]))
                (*n)--;
        while (*n > 0 && strchr(WHITESPACE, **s)) {
                (*s)++;
                (*n)--;
        }
}

/* One logical line from line_buf: blank, a "[Section]" header, or a "Key=value" assignment. */
static int unit_parse_line(UnitParser *p) {
        char *l = p->line_buf, *eq, *k, *v;
        size_t n = p->line_len, kn, vn;

        strip(&l, &n);
        l[n] = '\0';

        if (n == 0)
                return 0;

        if (l[0] == '[') {
                /* systemd: the whole line is the header, "[Name]" with nothing after it. */
                if (l[n - 1] != ']' || !name_is_plain(l + 1, n - 2, UNIT_SECTION_NAME_MAX)) {
                        _cleanup_free_ char *q = message_quote(l);
                        return parser_error(p, -EINVAL, p->line, "Invalid section header '%s'", q ?: "");
                }
                memcpy(p->section, l + 1, n - 2);
                p->section[n - 2] = '\0';
                if (!strv_contains((char **) known_sections, p->section) && !name_is_extension(p->section))
                        parser_warn(p, "Unknown section '%s', ignoring.", p->section);
                return 0;
        }

        eq = strchr(l, '=');
        if (!eq) {
                _cleanup_free_ char *q = message_quote(l);
                return parser_error(p, -EINVAL, p->line, "Missing '=' in '%s'", q ?: "");
        }

        k = l;
        kn = (size_t) (eq - l);
        strip(&k, &kn);
        v = eq + 1;
        vn = n - (size_t) (v - l);
        strip(&v, &vn);
        k[kn] = '\0';
        if (!name_is_plain(k, kn, UNIT_KEY_NAME_MAX)) {
                _cleanup_free_ char *q = message_quote(k);
                return parser_error(p, -EINVAL, p->line, "Invalid key name '%s'", q ?: "");
        }
        v[vn] = '\0';
        p->key = k;
        p->value = v;
        unit_parse_key(p);
        p->key = p->value = NULL;
        return p->error;
}

static int line_buf_append(UnitParser *p, const char *s, size_t n) {
        char *b;

        if (p->line_len + n > UNIT_LINE_MAX)
                return parser_error(p, -ENOBUFS, p->line, "Line too long (more than %u bytes)",
                                    UNIT_LINE_MAX);

        b = realloc(p->line_buf, p->line_len + n + 1);
        if (!b)
                return parser_oom(p);
        memcpy(b + p->line_len, s, n);
        p->line_len += n;
        b[p->line_len] = '\0';
        p->line_buf = b;
        return 0;
}

/* Whether the line ends in a backslash that is not itself escaped ("foo\\" does not continue). */
static bool ends_in_continuation(const char *s, size_t n) {
        size_t k = 0;

        while (k < n && s[n - 1 - k] == '\\')
                k++;
        return k % 2 == 1;
}

/* The whole text, line by line: counts physical lines, enforces the limits, drops comments, joins
 * backslash continuations the way systemd does, and hands each logical line to unit_parse_line().
 * Stops at the first error. */
static int unit_parse_text(UnitParser *p) {
        bool continuation = false;
        int r;

        p->line_len = 0;
        for (;;) {
                if (p->pos >= p->size) {
                        if (!continuation)
                                return 0;
                        /* The file ended after a trailing backslash: take what we have, like systemd. */
                        continuation = false;
                } else {
                        const char *s = p->text + p->pos, *nl, *t;
                        size_t n;

                        nl = memchr(s, '\n', p->size - p->pos);
                        n = nl ? (size_t) (nl - s) : p->size - p->pos;
                        p->pos += n + (nl ? 1 : 0);
                        p->physical_line++;
                        if (!continuation)
                                p->line = p->physical_line;

                        if (n > UNIT_LINE_MAX)
                                return parser_error(p, -ENOBUFS, p->physical_line,
                                                    "Line too long (more than %u bytes)", UNIT_LINE_MAX);
                        if (memchr(s, '\0', n))
                                return parser_error(p, -EINVAL, p->physical_line, "Line contains a NUL byte");
                        if (p->physical_line == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
                                s += 3; /* UTF-8 byte order mark */
                                n -= 3;
                        }
                        if (n > 0 && s[n - 1] == '\r') /* CRLF */
                                n--;

                        /* Comment lines are dropped even inside a continuation, as in systemd. */
                        t = s;
                        while (t < s + n && strchr(WHITESPACE, *t))
                                t++;
                        if (t < s + n && strchr(COMMENTS, *t))
                                continue;

                        r = line_buf_append(p, s, n);
                        if (r < 0)
                                return r;

                        /* A trailing backslash joins the next line, replaced by a space. */
                        continuation = ends_in_continuation(p->line_buf, p->line_len);
                        if (continuation) {
                                p->line_buf[p->line_len - 1] = ' ';
                                continue;
                        }
                }

                r = unit_parse_line(p);
                if (r < 0)
                        return r;
                p->line_len = 0;
        }
}

/* The keys that change who the service runs as, once the whole file is read. */
static int unit_check_privileges(UnitParser *p) {
        Unit *u = p->unit;

        /* systemd.exec(5): a PAM session is opened for User= only. svd opens none, and the session
         * is where pam_limits, pam_namespace and the like restrict the user: without it the service
         * would run with more than its unit gives it. */
        if (p->pam_name_line > 0 && (u->user || u->dynamic_user))
                return parser_error(p, -EOPNOTSUPP, p->pam_name_line,
                                    "PAMName= asks for a PAM session, which svd does not open: refusing to run "
                                    "the service without it");
        if (p->pam_name_line > 0 && record_not_applied(p, "PAMName=") < 0)
                return parser_oom(p);

        /* DynamicUser= (systemd.exec(5)): what it implies cannot be turned off, but ProtectHome=,
         * which it only raises from "no". */
        if (u->dynamic_user) {
                if (!u->user && unit_dynamic_user_name(u->name, &u->user) < 0)
                        return parser_oom(p);
                u->sandbox.protect_system = PROTECT_SYSTEM_STRICT;
                if (u->sandbox.protect_home == PROTECT_HOME_NO)
                        u->sandbox.protect_home = PROTECT_HOME_READ_ONLY;
                u->sandbox.private_tmp = true;
                u->sandbox.remove_ipc = true;
                u->sandbox.restrict_suid_sgid = true;
                u->no_new_privileges = true;
        }
        return 0;
}

static Unit *unit_new(const char *path, const char *name) {
        _cleanup_(unit_freep) Unit *u = NULL;

        u = malloc(sizeof(Unit));
        if (!u)
                return NULL;
        *u = unit_defaults;
        u->name = strdup(name);
        u->path = strdup(path);
        if (!u->name || !u->path)
                return NULL;
        return TAKE_PTR(u);
}

static int fail(UnitParser *p, char **ret_error) {
        assert(p->error < 0);
        if (ret_error)
                *ret_error = TAKE_PTR(p->error_message);
        free(p->error_message);
        p->error_message = NULL;
        return p->error;
}

int unit_load_string(const char *text, size_t len, const char *path, const char *name, UnitWarningFn warn,
                     void *userdata, Unit **ret, char **ret_error) {
        _cleanup_(unit_parser_done) UnitParser p = {
                .path = path,
                .warn = warn,
                .userdata = userdata,
                .text = text,
                .size = len,
        };
        _cleanup_(unit_freep) Unit *u = NULL;

        assert(text || len == 0);
        assert(path);
        assert(name);
        assert(ret);

        if (!unit_name_is_valid(name)) {
                _cleanup_free_ char *q = message_quote(name);
                parser_error(&p, -EINVAL, 0, "Invalid unit name '%s'", q ?: "");
                return fail(&p, ret_error);
        }
        if (len > UNIT_FILE_SIZE_MAX) {
                parser_error(&p, -EFBIG, 0, "File too large (%zu bytes, the limit is %u)", len,
                             UNIT_FILE_SIZE_MAX);
                return fail(&p, ret_error);
        }

        u = unit_new(path, name);
        if (!u) {
                parser_oom(&p);
                return fail(&p, ret_error);
        }
        p.unit = u;
        /* The unit keeps the bytes it is parsed from (a re-exec parses them again). */
        u->source = malloc(len + 1);
        if (!u->source) {
                parser_oom(&p);
                return fail(&p, ret_error);
        }
        if (len > 0)
                memcpy(u->source, text, len);
        u->source[len] = 0;
        u->source_len = len;

        if (unit_parse_text(&p) < 0)
                return fail(&p, ret_error);
        /* The sandboxing keys not enforced join the list (svd refuses them unless told otherwise). */
        for (char **k = u->sandbox.not_applied; k && *k; k++)
                if (record_not_applied(&p, *k) < 0) {
                        parser_oom(&p);
                        return fail(&p, ret_error);
                }

        /* systemd.service(5): Type=oneshot may do without ExecStart= when it has ExecStop= (a unit that
         * only acts when it is stopped). */
        if (u->exec[UNIT_EXEC_START].n == 0 &&
            !(u->type == SERVICE_TYPE_ONESHOT && u->exec[UNIT_EXEC_STOP].n > 0)) {
                parser_error(&p, -EINVAL, 0, "Missing ExecStart= in [Service]");
                return fail(&p, ret_error);
        }
        if (p.exec_start_second_line > 0 && u->type != SERVICE_TYPE_ONESHOT) {
                /* systemd.service(5): several ExecStart= lines are for Type=oneshot only. */
                parser_error(&p, -EINVAL, p.exec_start_second_line,
                             "Several ExecStart= (the first one is on line %u) are allowed with Type=oneshot only",
                             p.exec_start_line);
                return fail(&p, ret_error);
        }
        if (u->exec[UNIT_EXEC_START].n > 0) {
                u->exec_start = u->exec[UNIT_EXEC_START].commands[0].argv;
                u->exec_start_flags = u->exec[UNIT_EXEC_START].commands[0].flags;
                u->exec_argv0 = u->exec[UNIT_EXEC_START].commands[0].argv0;
        }
        if (unit_check_privileges(&p) < 0)
                return fail(&p, ret_error);
        if (u->type == SERVICE_TYPE_DBUS && !u->bus_name) {
                /* As systemd: a D-Bus service is ready once it has its name, so it must have one. */
                parser_error(&p, -EINVAL, 0, "Type=dbus needs BusName=");
                return fail(&p, ret_error);
        }
        if (u->restart_steps > 0 && u->restart_max_delay_usec != USEC_INFINITY &&
            u->restart_max_delay_usec < u->restart_usec) {
                /* As systemd's service_verify(). */
                parser_warn(&p, "RestartMaxDelaySec= is smaller than RestartSec=, using RestartSec= for both.");
                u->restart_max_delay_usec = u->restart_usec;
        }

        *ret = TAKE_PTR(u);
        if (ret_error)
                *ret_error = NULL;
        return 0;
}

int unit_load_file(const char *path, const char *name, UnitWarningFn warn, void *userdata, Unit **ret,
                   char **ret_error) {
        _cleanup_(unit_parser_done) UnitParser p = { .path = path };
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t n = 0;

        assert(path);
        assert(name);
        assert(ret);

        /* O_NONBLOCK: a FIFO planted in the unit directory must not hang svd in open(). */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                parser_error(&p, -errno, 0, "Failed to open unit file: %s", strerror(errno));
                return fail(&p, ret_error);
        }
        if (fstat(fd, &st) < 0) {
                parser_error(&p, -errno, 0, "Failed to stat unit file: %s", strerror(errno));
                return fail(&p, ret_error);
        }
        if (S_ISDIR(st.st_mode)) {
                parser_error(&p, -EISDIR, 0, "Not a regular file but a directory");
                return fail(&p, ret_error);
        }
        if (!S_ISREG(st.st_mode)) {
                parser_error(&p, -EBADFD, 0, "Not a regular file");
                return fail(&p, ret_error);
        }
        if ((uint64_t) st.st_size > UNIT_FILE_SIZE_MAX) {
                parser_error(&p, -EFBIG, 0, "File too large (%jd bytes, the limit is %u)",
                             (intmax_t) st.st_size, UNIT_FILE_SIZE_MAX);
                return fail(&p, ret_error);
        }

        /* Read one byte more than allowed: the file may have grown since fstat(). */
        buf = malloc(UNIT_FILE_SIZE_MAX + 1);
        if (!buf) {
                parser_oom(&p);
                return fail(&p, ret_error);
        }
        while (n < UNIT_FILE_SIZE_MAX + 1) {
                ssize_t k = read(fd, buf + n, UNIT_FILE_SIZE_MAX + 1 - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        parser_error(&p, -errno, 0, "Failed to read unit file: %s", strerror(errno));
                        return fail(&p, ret_error);
                }
                if (k == 0)
                        break;
                n += (size_t) k;
        }

        return unit_load_string(buf, n, path, name, warn, userdata, ret, ret_error);
}

NotifyAccess unit_notify_access(const Unit *u) {
        assert(u);
        if (u->notify_access >= 0)
                return u->notify_access;
        return u->type == SERVICE_TYPE_NOTIFY || u->watchdog_usec > 0 ? NOTIFY_ACCESS_MAIN : NOTIFY_ACCESS_NONE;
}

bool unit_private_pids(const Unit *u) {
        assert(u);
        return u->private_pids > 0 || (u->private_pids < 0 && u->type == SERVICE_TYPE_FORKING);
}

uint64_t unit_restart_delay_usec(const Unit *u, unsigned n_next) {
        assert(u);

        if (n_next <= 1 || u->restart_steps == 0 || u->restart_usec == 0 ||
            u->restart_max_delay_usec == USEC_INFINITY || u->restart_usec >= u->restart_max_delay_usec)
                return u->restart_usec;
        if (n_next > u->restart_steps)
                return u->restart_max_delay_usec;
        /* r_i = r_0 * (r_n / r_0) ^ (i / n), with i = n_next - 1 and n = RestartSteps= */
        return (uint64_t) ((long double) u->restart_usec *
                           powl((long double) u->restart_max_delay_usec / (long double) u->restart_usec,
                                (long double) (n_next - 1) / (long double) u->restart_steps));
}
