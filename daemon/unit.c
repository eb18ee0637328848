/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "unit.h"

#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
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

/*
 * How the parser uses inih, and why it does not leave more to it.
 *
 * systemd's unit file syntax (systemd.syntax(7)) and inih's defaults disagree, and Debian's libinih
 * 55 is built with those defaults: a ';' after whitespace starts an inline comment (so
 * `ExecStart=/bin/sh -c "a ; b"` would lose everything from " ;"), an indented line continues the previous
 * value (systemd just strips the indentation), ':' separates a key as well as '=', a line longer
 * than INI_MAX_LINE (200 bytes) is silently cut into several "lines" (the rest turning into
 * parse errors with shifted line numbers), section names are cut at 49 bytes, a trailing
 * backslash is no continuation, and the handler gets no line number (no INI_HANDLER_LINENO).
 * Duplicate keys are simply passed on one by one, which is what we want.
 *
 * So unit_reader() does the line-level work: it counts lines, enforces the limits, drops
 * comments and blank lines, joins backslash continuations the way systemd does, and checks that
 * each logical line is a "[Section]" header or a "Key=value" assignment. It hands inih only a
 * normalised line, "[Section]" or "Key=", whose names it has checked to be short and plain, so
 * inih parses them exactly. inih tracks the section and calls unit_handler() once per
 * assignment; the handler takes the value, untouched, from the reader's copy of the line.
 */

/* Limits on input the parser holds beyond those in unit.h: every size a unit file controls is bounded. */
#define UNIT_KEY_NAME_MAX      64U  /* bytes in a key name */
#define UNIT_SECTION_NAME_MAX  48U  /* bytes in a section name; inih keeps at most 49 */
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
};

DEFINE_STRING_TABLE_LOOKUP(service_type, ServiceType);

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

        /* The current logical line; key and value point into it while the handler runs. */
        char *line_buf;
        size_t line_len;
        unsigned line; /* its first physical line, for messages */
        const char *key;
        const char *value;

        unsigned exec_start_line; /* 0: no ExecStart= in force */
        unsigned n_env_assignments;
        unsigned n_wanted_by;

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

/* "PATH:LINE: Invalid value 'VALUE' for KEY=: REASON" */
_printf_(3, 4) static int invalid_value(UnitParser *p, int error, const char *format, ...) {
        _cleanup_free_ char *reason = NULL, *v = NULL;
        va_list ap;
        int k;

        va_start(ap, format);
        k = vasprintf(&reason, format, ap);
        va_end(ap);
        if (k < 0)
                return parser_error(p, -ENOMEM, p->line, "Out of memory");

        v = message_quote(p->value);
        if (!v)
                return parser_error(p, -ENOMEM, p->line, "Out of memory");

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


static bool name_char_is_plain(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
               c == '_' || c == '.';
}

/* Key and section names: short and made of characters inih treats as plain text. systemd's own
 * names are all letters; "X-Foo" extension names fit as well. */
static bool ini_name_is_plain(const char *s, size_t n, size_t max) {
        if (n == 0 || n > max)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!name_char_is_plain(s[i]))
                        return false;
        return true;
}

Unit *unit_free(Unit *u) {
        if (!u)
                return NULL;
        free(u->name);
        free(u->path);
        free(u->description);
        strv_free(u->exec_start);
        free(u->working_directory);
        strv_free(u->environment);
        free(u->user);
        free(u->group);
        strv_free(u->supplementary_groups);
        free(u->source);
        free(u->std_output_path);
        free(u->std_error_path);
        for (size_t i = 0; i < _UNIT_DEPENDENCY_MAX; i++)
                strv_free(u->dependencies[i]);
        free(u);
        return NULL;
}

/*
 * Specifiers. svd expands none, but a unit written for systemd writes "%%" for a literal '%' and
 * may use "%n", "%h" and so on, which systemd would replace. Passing either on unchanged would
 * make the same file do something different under svd, so "%%" becomes '%' and any other
 * specifier is refused. systemd expands specifiers after unquoting, word by word, for ExecStart=,
 * Environment= and WantedBy=, and on the whole value for the other string keys.
 */
static int unescape_specifiers(const char *s, char **ret, char *ret_bad) {
        char *t, *q;

        t = q = malloc(strlen(s) + 1);
        if (!t)
                return -ENOMEM;
        for (; *s; s++) {
                if (*s != '%') {
                        *q++ = *s;
                        continue;
                }
                if (s[1] != '%') {
                        *ret_bad = s[1];
                        free(t);
                        return -EINVAL;
                }
                *q++ = '%';
                s++;
        }
        *q = '\0';
        *ret = t;
        return 0;
}

static int invalid_specifier(UnitParser *p, char bad) {
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

        r = unescape_specifiers(p->value, &s, &bad);
        if (r == -ENOMEM)
                return parser_error(p, r, p->line, "Out of memory");
        if (r < 0)
                return invalid_specifier(p, bad);
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
                r = unescape_specifiers(*w, &s, &bad);
                if (r == -ENOMEM)
                        return parser_error(p, r, p->line, "Out of memory");
                if (r < 0)
                        return invalid_specifier(p, bad);
                free(*w);
                *w = s;
        }
        return 0;
}

/*
 * Variables in ExecStart=. When systemd starts the command it replaces a word of its own that starts
 * with '$' ("$OPTS", split at whitespace), "${NAME}" anywhere in a word, and "$$" with '$'
 * (replace_env_argv() in env-util.c). svd does not substitute yet; running "${HOME}" literally where
 * systemd would put in the value is a silent difference, so "$$" becomes '$' and the substitution
 * forms are refused. A '$' anywhere else ("sh -c 'echo $HOME'", "$(date)" inside a word) is left
 * alone by systemd as well and passes unchanged.
 */
static int unescape_dollars(UnitParser *p, char **words) {
        static const char reason[] = "substituting variables ('$NAME', '${NAME}') is not supported yet; "
                                     "write '$$' for a literal '$'";

        for (char **w = words; *w; w++) {
                char *s = *w, *q;

                if (!strchr(s, '$'))
                        continue;
                if (s[0] == '$' && s[1] != '{' && s[1] != '$')
                        return invalid_value(p, -EOPNOTSUPP, "%s", reason);

                for (q = s; *s; s++) {
                        if (s[0] == '$' && s[1] == '$') {
                                *q++ = '$';
                                s++;
                        } else if (s[0] == '$' && s[1] == '{' && strchr(s + 2, '}'))
                                return invalid_value(p, -EOPNOTSUPP, "%s", reason);
                        else
                                *q++ = *s;
                }
                *q = '\0';
        }
        return 0;
}

static int parse_description(UnitParser *p) {
        char *s;
        int r;

        if (isempty(p->value)) {
                free(p->unit->description);
                p->unit->description = NULL;
                return 0;
        }
        r = parse_string_value(p, &s);
        if (r < 0)
                return r;
        free(p->unit->description);
        p->unit->description = s;
        return 0;
}

static int parse_type(UnitParser *p) {
        static const char *const systemd_types[] = { "forking", "dbus", "notify-reload", "idle" };
        ServiceType t;

        if (isempty(p->value)) {
                p->unit->type = SERVICE_TYPE_SIMPLE;
                return 0;
        }
        t = service_type_from_string(p->value);
        if (t >= 0) {
                p->unit->type = t;
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(systemd_types); i++)
                if (streq(p->value, systemd_types[i]))
                        return invalid_value(p, -EOPNOTSUPP,
                                             "not supported (supported: simple, exec, notify, oneshot)");
        return invalid_value(p, -EINVAL, "expected simple, exec, notify or oneshot");
}

static int parse_bool_key(UnitParser *p, bool *field, bool dflt) {
        bool b;
        int r;

        if (isempty(p->value)) {
                *field = dflt;
                return 0;
        }
        r = parse_boolean(p->value, &b);
        if (r < 0)
                return invalid_value(p, r, "expected a boolean (yes/no, true/false, on/off, 1/0)");
        *field = b;
        return 0;
}

static int parse_remain_after_exit(UnitParser *p) {
        return parse_bool_key(p, &p->unit->remain_after_exit, false);
}

/* A time span where 0 and "infinity" both mean "no timeout" (systemd's config_parse_sec_fix_0). */
static int parse_timeout(UnitParser *p, uint64_t *field, uint64_t dflt) {
        uint64_t usec;
        int r;

        if (isempty(p->value)) {
                *field = dflt;
                return 0;
        }
        r = parse_sec(p->value, &usec);
        if (r < 0)
                return invalid_value(p, r, "expected a time span such as '90s' or '5min', or 'infinity'");
        *field = usec == 0 ? USEC_INFINITY : usec;
        return 0;
}

static int parse_timeout_start_sec(UnitParser *p) {
        return parse_timeout(p, &p->unit->timeout_start_usec, UNIT_TIMEOUT_START_USEC_DEFAULT);
}

/* TimeoutSec= sets both, as in systemd. */
static int parse_timeout_sec(UnitParser *p) {
        int r = parse_timeout(p, &p->unit->timeout_start_usec, UNIT_TIMEOUT_START_USEC_DEFAULT);
        if (r < 0)
                return r;
        return parse_timeout(p, &p->unit->timeout_stop_usec, UNIT_TIMEOUT_STOP_USEC_DEFAULT);
}

static int parse_watchdog_sec(UnitParser *p) {
        uint64_t usec;
        int r;

        if (isempty(p->value)) {
                p->unit->watchdog_usec = 0;
                return 0;
        }
        r = parse_sec(p->value, &usec);
        if (r < 0)
                return invalid_value(p, r, "expected a time span such as '10s', or 0 to switch it off");
        p->unit->watchdog_usec = usec == USEC_INFINITY ? 0 : usec;
        return 0;
}

static int parse_restart_steps(UnitParser *p) {
        uint64_t n;

        if (isempty(p->value)) {
                p->unit->restart_steps = 0;
                return 0;
        }
        if (safe_atou64(p->value, &n) < 0 || n > UNIT_RESTART_STEPS_MAX)
                return invalid_value(p, -ERANGE, "expected a number from 0 to %u", UNIT_RESTART_STEPS_MAX);
        p->unit->restart_steps = (unsigned) n;
        return 0;
}

static int parse_restart_max_delay_sec(UnitParser *p) {
        uint64_t usec;
        int r;

        if (isempty(p->value)) {
                p->unit->restart_max_delay_usec = USEC_INFINITY;
                return 0;
        }
        r = parse_sec(p->value, &usec);
        if (r < 0)
                return invalid_value(p, r, "expected a time span such as '1min', or 'infinity'");
        p->unit->restart_max_delay_usec = usec;
        return 0;
}

static int parse_start_limit_interval_sec(UnitParser *p) {
        uint64_t usec;
        int r;

        if (isempty(p->value)) {
                p->unit->start_limit_interval_usec = UNIT_START_LIMIT_INTERVAL_USEC_DEFAULT;
                return 0;
        }
        r = parse_sec(p->value, &usec);
        if (r < 0)
                return invalid_value(p, r, "expected a time span such as '10s', or 0 for no limit");
        /* systemd: "infinity" is accepted and means what it says, 0 switches the limit off. */
        p->unit->start_limit_interval_usec = usec;
        return 0;
}

static int parse_start_limit_burst(UnitParser *p) {
        uint64_t n;

        if (isempty(p->value)) {
                p->unit->start_limit_burst = UNIT_START_LIMIT_BURST_DEFAULT;
                return 0;
        }
        if (safe_atou64(p->value, &n) < 0 || n > UINT_MAX)
                return invalid_value(p, -ERANGE, "expected a number (0: no limit)");
        p->unit->start_limit_burst = (unsigned) n;
        return 0;
}

/* Requires= Wants= After= Before=: space-separated unit names, with or without ".service"; an empty
 * assignment resets the list. Other unit types (targets, sockets, ...) do not exist in svd: a
 * warning, as systemd's ordering against a unit that is not loaded is a no-op. */
static int parse_dependency(UnitParser *p, UnitDependency d) {
        static const char *const other_types[] = { "target", "socket", "mount",     "automount", "swap", "timer",
                                                   "path",   "slice",  "scope",     "device",    NULL };
        char ***list = &p->unit->dependencies[d];
        const char *v = p->value;
        int r;

        if (isempty(v)) {
                *list = strv_free(*list);
                return 0;
        }
        for (;;) {
                _cleanup_free_ char *word = NULL, *name = NULL;
                char bad;

                r = extract_first_word(&v, &word);
                if (r == -ENOMEM)
                        return parser_error(p, r, p->line, "Out of memory");
                if (r < 0)
                        return invalid_value(p, r, "unbalanced quotes or invalid escape sequence");
                if (r == 0)
                        break;
                r = unescape_specifiers(word, &name, &bad);
                if (r == -ENOMEM)
                        return parser_error(p, r, p->line, "Out of memory");
                if (r < 0)
                        return invalid_specifier(p, bad);

                const char *dot = strrchr(name, '.');
                if (unit_name_has_suffix(name))
                        unit_name_strip_suffix(name);
                else if (dot && strv_contains((char **) other_types, dot + 1)) {
                        /* "network.target", "foo.socket": a unit type svd does not have. */
                        _cleanup_free_ char *q = message_quote(name);
                        if (!q)
                                return parser_error(p, -ENOMEM, p->line, "Out of memory");
                        parser_warn(p, "%s=%s: svd has only services, ignoring.", unit_dependency_to_string(d),
                                    q);
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
                        return parser_error(p, r, p->line, "Out of memory");
        }
        return 0;
}

static int parse_requires(UnitParser *p) {
        return parse_dependency(p, UNIT_REQUIRES);
}

static int parse_wants(UnitParser *p) {
        return parse_dependency(p, UNIT_WANTS);
}

static int parse_after(UnitParser *p) {
        return parse_dependency(p, UNIT_AFTER);
}

static int parse_before(UnitParser *p) {
        return parse_dependency(p, UNIT_BEFORE);
}

static int parse_exec_start(UnitParser *p) {
        _cleanup_strv_free_ char **argv = NULL;
        const char *cmd;
        int r;

        /* An empty assignment resets the list, as in systemd (useful after an earlier one). */
        if (isempty(p->value)) {
                p->unit->exec_start = strv_free(p->unit->exec_start);
                p->exec_start_line = 0;
                return 0;
        }

        /* systemd allows several only for Type=oneshot; svd runs exactly one command. */
        if (p->exec_start_line > 0)
                return parser_error(
                        p, -EINVAL, p->line,
                        "Duplicate ExecStart= (the first one is on line %u); only one is allowed",
                        p->exec_start_line);

        r = split_exec_line(p->value, UNIT_ARGV_MAX, &argv);
        if (r == -ENOMEM)
                return parser_error(p, r, p->line, "Out of memory");
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
        r = unescape_dollars(p, argv);
        if (r < 0)
                return r;

        cmd = argv[0];
        if (!cmd)
                return invalid_value(p, -EINVAL, "no command");
        /* systemd's prefixes ("-", "@", ":", "+", "!", "|") change how the command runs; running the
         * command without that meaning would be wrong, so they are refused until supported. */
        if (cmd[0] != '\0' && strchr("-@:+!|", cmd[0]))
                return invalid_value(p, -EOPNOTSUPP, "the prefix '%c' is not supported", cmd[0]);
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

        p->unit->exec_start = TAKE_PTR(argv);
        p->exec_start_line = p->line;
        return 0;
}

static int parse_working_directory(UnitParser *p) {
        Unit *u = p->unit;
        _cleanup_free_ char *s = NULL;
        const char *v = p->value;
        bool missing_ok = false;
        int r;

        if (isempty(v)) {
                free(u->working_directory);
                u->working_directory = NULL;
                u->working_directory_home = false;
                u->working_directory_missing_ok = false;
                return 0;
        }

        if (v[0] == '-') {
                missing_ok = true;
                v++;
        }

        if (streq(v, "~")) {
                free(u->working_directory);
                u->working_directory = NULL;
                u->working_directory_home = true;
                u->working_directory_missing_ok = missing_ok;
                return 0;
        }

        r = parse_string_value(p, &s);
        if (r < 0)
                return r;
        if (missing_ok)
                memmove(s, s + 1, strlen(s)); /* the '-' is no specifier, so it is still first */
        if (s[0] != '/')
                return invalid_value(p, -EINVAL, "expected an absolute path or '~'");
        if (strlen(s) >= PATH_MAX)
                return invalid_value(p, -ENAMETOOLONG, "the path is too long");

        free(u->working_directory);
        u->working_directory = TAKE_PTR(s);
        u->working_directory_home = false;
        u->working_directory_missing_ok = missing_ok;
        return 0;
}

static int parse_environment(UnitParser *p) {
        _cleanup_strv_free_ char **l = NULL;
        int r;

        /* An empty assignment drops everything set so far. */
        if (isempty(p->value)) {
                p->unit->environment = strv_free(p->unit->environment);
                return 0;
        }

        /* Counted over the whole file, overridden ones included, so that the work stays bounded. */
        r = split_env_assignments(p->value, UNIT_ENV_MAX - p->n_env_assignments, &l);
        if (r == -ENOMEM)
                return parser_error(p, r, p->line, "Out of memory");
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
                r = strv_env_replace_consume(&p->unit->environment, TAKE_PTR(*a));
                if (r < 0)
                        return parser_error(p, r, p->line, "Out of memory");
        }
        return 0;
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

static int parse_user_or_group(UnitParser *p, char **field) {
        _cleanup_free_ char *s = NULL;
        int r;

        if (isempty(p->value)) {
                free(*field);
                *field = NULL;
                return 0;
        }
        r = parse_string_value(p, &s);
        if (r < 0)
                return r;
        if (!user_group_name_is_valid(s))
                return invalid_value(p, -EINVAL, "not a valid %s name or id",
                                     field == &p->unit->user ? "user" : "group");
        free(*field);
        *field = TAKE_PTR(s);
        return 0;
}

static int parse_user(UnitParser *p) {
        return parse_user_or_group(p, &p->unit->user);
}

static int parse_group(UnitParser *p) {
        return parse_user_or_group(p, &p->unit->group);
}

static int parse_restart(UnitParser *p) {
        RestartPolicy r;

        if (isempty(p->value)) {
                p->unit->restart = RESTART_NO;
                return 0;
        }
        r = restart_policy_from_string(p->value);
        if (r < 0)
                return invalid_value(p, -EINVAL,
                                     "expected one of: no, on-success, on-failure, on-abnormal, on-watchdog, "
                                     "on-abort, always");
        p->unit->restart = r;
        return 0;
}

static int parse_restart_sec(UnitParser *p) {
        uint64_t usec;
        int r;

        if (isempty(p->value)) {
                p->unit->restart_usec = UNIT_RESTART_USEC_DEFAULT;
                return 0;
        }
        r = parse_sec(p->value, &usec);
        if (r < 0)
                return invalid_value(p, r, "expected a time span such as '500ms', '2s' or '1min 30s'");
        /* systemd takes "infinity" and then never restarts; say Restart=no for that. */
        if (usec == USEC_INFINITY)
                return invalid_value(p, -ERANGE, "'infinity' is not allowed, use Restart=no");
        p->unit->restart_usec = usec;
        return 0;
}

static int parse_kill_signal(UnitParser *p) {
        int sig, r;

        if (isempty(p->value)) {
                p->unit->kill_signal = SIGTERM;
                return 0;
        }
        r = signal_from_string(p->value, &sig);
        if (r < 0)
                return invalid_value(p, r, "expected a signal name such as 'SIGTERM' or 'INT', or a number");
        p->unit->kill_signal = sig;
        return 0;
}

static int parse_timeout_stop_sec(UnitParser *p) {
        uint64_t usec;
        int r;

        if (isempty(p->value)) {
                p->unit->timeout_stop_usec = UNIT_TIMEOUT_STOP_USEC_DEFAULT;
                return 0;
        }
        r = parse_sec(p->value, &usec);
        if (r < 0)
                return invalid_value(p, r, "expected a time span such as '90s' or '5min', or 'infinity'");
        /* As in systemd (config_parse_sec_fix_0), 0 disables the timeout like "infinity". */
        p->unit->timeout_stop_usec = usec == 0 ? USEC_INFINITY : usec;
        return 0;
}

static int parse_no_new_privileges(UnitParser *p) {
        bool b;
        int r;

        if (isempty(p->value)) {
                p->unit->no_new_privileges = false;
                return 0;
        }
        r = parse_boolean(p->value, &b);
        if (r < 0)
                return invalid_value(p, r, "expected a boolean (yes/no, true/false, on/off, 1/0)");
        p->unit->no_new_privileges = b;
        return 0;
}

/* svd has no targets. A unit wanted by default.target, or by multi-user.target (what "the system
 * has started" means for most services, and what `systemctl enable` units usually name), starts
 * when svd starts. */
static int parse_wanted_by(UnitParser *p) {
        static const char *const default_targets[] = { "default.target", "multi-user.target" };
        const char *v = p->value;
        int r;

        if (isempty(v)) {
                p->unit->wanted_by_default = false;
                return 0;
        }

        for (;;) {
                _cleanup_free_ char *word = NULL, *target = NULL;
                bool is_default = false;
                char bad;

                r = extract_first_word(&v, &word);
                if (r == -ENOMEM)
                        return parser_error(p, r, p->line, "Out of memory");
                if (r < 0)
                        return invalid_value(p, r, "unbalanced quotes or invalid escape sequence");
                if (r == 0)
                        break;
                if (++p->n_wanted_by > UNIT_WANTED_BY_MAX)
                        return invalid_value(p, -E2BIG, "more than %u targets in this file",
                                             UNIT_WANTED_BY_MAX);

                r = unescape_specifiers(word, &target, &bad);
                if (r == -ENOMEM)
                        return parser_error(p, r, p->line, "Out of memory");
                if (r < 0)
                        return invalid_specifier(p, bad);

                for (size_t i = 0; i < ELEMENTSOF(default_targets); i++)
                        if (streq(target, default_targets[i]))
                                is_default = true;
                if (is_default)
                        p->unit->wanted_by_default = true;
                else {
                        _cleanup_free_ char *q = message_quote(target);
                        if (!q)
                                return parser_error(p, -ENOMEM, p->line, "Out of memory");
                        parser_warn(p,
                                    "Target '%s' in WantedBy= is not supported (only default.target and "
                                    "multi-user.target), ignoring.",
                                    q);
                }
        }
        return 0;
}

static int parse_supplementary_groups(UnitParser *p) {
        _cleanup_strv_free_ char **l = NULL;
        int r;

        if (isempty(p->value)) {
                p->unit->supplementary_groups = strv_free(p->unit->supplementary_groups);
                return 0;
        }
        r = split_exec_line(p->value, UNIT_GROUPS_MAX, &l);
        if (r == -ENOMEM)
                return parser_error(p, r, p->line, "Out of memory");
        if (r < 0)
                return invalid_value(p, r, "expected group names or numbers separated by spaces");
        for (char **g = l; *g; g++) {
                if (!user_group_name_is_valid(*g))
                        return invalid_value(p, -EINVAL, "not a valid group name or id");
                r = strv_extend(&p->unit->supplementary_groups, *g);
                if (r < 0)
                        return parser_error(p, r, p->line, "Out of memory");
        }
        if (strv_length(p->unit->supplementary_groups) > UNIT_GROUPS_MAX)
                return invalid_value(p, -E2BIG, "more than %u groups", UNIT_GROUPS_MAX);
        return 0;
}

/* "CAP_NET_ADMIN cap_chown ~CAP_SYS_TIME": a leading '~' inverts the whole list, as in systemd.
 * Names go through libcap-ng, so that they match the running kernel's list. */
static int parse_capability_list(UnitParser *p, uint64_t *ret, bool *ret_invert) {
        _cleanup_strv_free_ char **l = NULL;
        const char *v = p->value;
        bool invert = false;
        uint64_t mask = 0;
        int r;

        if (*v == '~') {
                invert = true;
                v++;
        }
        r = split_exec_line(v, 64, &l);
        if (r == -ENOMEM)
                return parser_error(p, r, p->line, "Out of memory");
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
        *ret = mask;
        *ret_invert = invert;
        return 0;
}

static int parse_capability_bounding_set(UnitParser *p) {
        uint64_t mask;
        bool invert;
        int r;

        if (isempty(p->value)) {
                p->unit->capability_bounding_set = UNIT_CAPABILITIES_ALL;
                return 0;
        }
        r = parse_capability_list(p, &mask, &invert);
        if (r < 0)
                return r;
        /* Several assignments combine as in systemd: positive lists add up, "~" ones take away. */
        if (invert)
                p->unit->capability_bounding_set &= ~mask;
        else if (p->unit->capability_bounding_set == UNIT_CAPABILITIES_ALL)
                p->unit->capability_bounding_set = mask;
        else
                p->unit->capability_bounding_set |= mask;
        return 0;
}

static int parse_ambient_capabilities(UnitParser *p) {
        uint64_t mask;
        bool invert;
        int r;

        if (isempty(p->value)) {
                p->unit->ambient_capabilities = 0;
                return 0;
        }
        r = parse_capability_list(p, &mask, &invert);
        if (r < 0)
                return r;
        if (invert)
                p->unit->ambient_capabilities &= ~mask;
        else
                p->unit->ambient_capabilities |= mask;
        return 0;
}

static int parse_umask(UnitParser *p) {
        char *end;

        if (isempty(p->value)) {
                p->unit->umask = -1;
                return 0;
        }
        errno = 0;
        unsigned long m = strtoul(p->value, &end, 8);
        if (errno != 0 || *end || end == p->value || m > 0777 || p->value[0] == '-' || p->value[0] == '+')
                return invalid_value(p, -EINVAL, "expected an octal mode such as '0027'");
        p->unit->umask = (int) m;
        return 0;
}

static int parse_rlimit_value(const char *s, uint64_t *ret) {
        if (streq(s, "infinity")) {
                *ret = RLIM_INFINITY;
                return 0;
        }
        return safe_atou64(s, ret);
}

/* "N", "soft:hard" or "infinity", as systemd's LimitXXX=. */
static int parse_limit(UnitParser *p, struct rlimit_setting *l) {
        uint64_t soft, hard;
        int r;

        if (isempty(p->value)) {
                *l = (struct rlimit_setting){};
                return 0;
        }
        const char *colon = strchr(p->value, ':');
        if (colon) {
                _cleanup_free_ char *a = strndup(p->value, (size_t) (colon - p->value));
                if (!a)
                        return parser_error(p, -ENOMEM, p->line, "Out of memory");
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
        *l = (struct rlimit_setting){ .set = true, .soft = soft, .hard = hard };
        return 0;
}

static int parse_limit_nofile(UnitParser *p) {
        return parse_limit(p, &p->unit->limit_nofile);
}

static int parse_limit_nproc(UnitParser *p) {
        return parse_limit(p, &p->unit->limit_nproc);
}

static int parse_limit_core(UnitParser *p) {
        return parse_limit(p, &p->unit->limit_core);
}

static int parse_private_pids(UnitParser *p) {
        bool b;
        int r;

        if (isempty(p->value)) {
                p->unit->private_pids = -1;
                return 0;
        }
        r = parse_boolean(p->value, &b);
        if (r < 0)
                return invalid_value(p, r, "expected a boolean (yes/no, true/false, on/off, 1/0)");
        p->unit->private_pids = b;
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

static int parse_memory_max(UnitParser *p) {
        int r;
        if (isempty(p->value)) {
                p->unit->memory_max = UINT64_MAX;
                return 0;
        }
        r = parse_size_or_infinity(p->value, &p->unit->memory_max);
        if (r < 0)
                return invalid_value(p, r, "expected a size such as '512M' or '2G', or 'infinity'");
        return 0;
}

static int parse_tasks_max(UnitParser *p) {
        int r;
        if (isempty(p->value)) {
                p->unit->tasks_max = UINT64_MAX;
                return 0;
        }
        r = streq(p->value, "infinity") ? (p->unit->tasks_max = UINT64_MAX, 0)
                                        : safe_atou64(p->value, &p->unit->tasks_max);
        if (r < 0 || p->unit->tasks_max == 0)
                return invalid_value(p, r < 0 ? r : -EINVAL, "expected a positive number or 'infinity'");
        return 0;
}

static int parse_cpu_weight(UnitParser *p) {
        uint64_t w;
        if (isempty(p->value)) {
                p->unit->cpu_weight = 0;
                return 0;
        }
        if (safe_atou64(p->value, &w) < 0 || w < 1 || w > 10000)
                return invalid_value(p, -ERANGE, "expected a number from 1 to 10000");
        p->unit->cpu_weight = w;
        return 0;
}

static const char *const log_output_table[_LOG_OUTPUT_MAX] = {
        [LOG_OUTPUT_LOG] = "log",       [LOG_OUTPUT_NULL] = "null",     [LOG_OUTPUT_INHERIT] = "inherit",
        [LOG_OUTPUT_FILE] = "file",     [LOG_OUTPUT_APPEND] = "append",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(log_output, LogOutput);

/* StandardOutput=/StandardError=: log (or systemd's journal), null, inherit, file:PATH, append:PATH. */
static int parse_log_output(UnitParser *p, LogOutput *output, char **path) {
        static const char *const systemd_only[] = { "tty", "kmsg", "journal+console", "kmsg+console", "syslog",
                                                    "syslog+console", "socket", "truncate:", "fd:" };
        const char *v = p->value;
        LogOutput o;

        if (isempty(v))
                o = output == &p->unit->std_error ? LOG_OUTPUT_INHERIT : LOG_OUTPUT_LOG;
        else if (streq(v, "log") || streq(v, "journal"))
                o = LOG_OUTPUT_LOG;
        else if (streq(v, "null"))
                o = LOG_OUTPUT_NULL;
        else if (streq(v, "inherit"))
                o = LOG_OUTPUT_INHERIT;
        else if (strneq(v, "file:", 5) || strneq(v, "append:", 7)) {
                _cleanup_free_ char *s = NULL;
                bool append = v[0] == 'a';
                char bad;
                int r = unescape_specifiers(v + (append ? 7 : 5), &s, &bad);
                if (r == -ENOMEM)
                        return parser_error(p, r, p->line, "Out of memory");
                if (r < 0)
                        return invalid_specifier(p, bad);
                if (s[0] != '/' || !utf8_is_valid(s))
                        return invalid_value(p, -EINVAL, "expected an absolute path after '%s'",
                                             append ? "append:" : "file:");
                if (strlen(s) + 8 >= PATH_MAX) /* room for ".N" of the rotated files */
                        return invalid_value(p, -ENAMETOOLONG, "the path is too long");
                free(*path);
                *path = TAKE_PTR(s);
                *output = append ? LOG_OUTPUT_APPEND : LOG_OUTPUT_FILE;
                return 0;
        } else {
                for (size_t i = 0; i < ELEMENTSOF(systemd_only); i++)
                        if (strneq(v, systemd_only[i], strlen(systemd_only[i])))
                                return invalid_value(p, -EOPNOTSUPP,
                                                     "not supported (supported: log, journal, null, inherit, "
                                                     "file:PATH, append:PATH)");
                return invalid_value(p, -EINVAL,
                                     "expected one of: log, journal, null, inherit, file:PATH, append:PATH");
        }
        free(*path);
        *path = NULL;
        *output = o;
        return 0;
}

static int parse_standard_output(UnitParser *p) {
        return parse_log_output(p, &p->unit->std_output, &p->unit->std_output_path);
}

static int parse_standard_error(UnitParser *p) {
        return parse_log_output(p, &p->unit->std_error, &p->unit->std_error_path);
}

static int parse_log_rotate_size(UnitParser *p) {
        uint64_t v;

        if (isempty(p->value)) {
                p->unit->log_rotate_size = LOGFILE_ROTATE_SIZE_DEFAULT;
                return 0;
        }
        if (parse_size_or_infinity(p->value, &v) < 0)
                return invalid_value(p, -EINVAL, "expected a size in bytes such as '10M', or 'infinity'");
        p->unit->log_rotate_size = v == UINT64_MAX ? 0 : v;
        return 0;
}

static int parse_log_rotate_keep(UnitParser *p) {
        uint64_t v;

        if (isempty(p->value)) {
                p->unit->log_rotate_keep = LOGFILE_ROTATE_KEEP_DEFAULT;
                return 0;
        }
        if (safe_atou64(p->value, &v) < 0 || v > LOGFILE_ROTATE_KEEP_MAX)
                return invalid_value(p, -ERANGE, "expected a number from 0 to %u", LOGFILE_ROTATE_KEEP_MAX);
        p->unit->log_rotate_keep = (unsigned) v;
        return 0;
}

typedef int (*KeyParser)(UnitParser *p);

/* Every key svd knows. A NULL parser marks a systemd key that svd does not implement yet: it gets
 * a warning of its own rather than "Unknown key". */
static const struct {
        const char *section;
        const char *key;
        KeyParser parse;
} key_table[] = {
        { "Unit", "Description", parse_description },
        { "Unit", "Documentation", NULL },
        { "Unit", "Requires", parse_requires },
        { "Unit", "Wants", parse_wants },
        { "Unit", "After", parse_after },
        { "Unit", "Before", parse_before },
        { "Unit", "BindsTo", NULL },
        { "Unit", "PartOf", NULL },
        { "Unit", "Conflicts", NULL },
        { "Unit", "StartLimitIntervalSec", parse_start_limit_interval_sec },
        { "Unit", "StartLimitBurst", parse_start_limit_burst },

        { "Service", "Type", parse_type },
        { "Service", "ExecStart", parse_exec_start },
        { "Service", "WorkingDirectory", parse_working_directory },
        { "Service", "Environment", parse_environment },
        { "Service", "User", parse_user },
        { "Service", "Group", parse_group },
        { "Service", "Restart", parse_restart },
        { "Service", "RestartSec", parse_restart_sec },
        { "Service", "KillSignal", parse_kill_signal },
        { "Service", "TimeoutStopSec", parse_timeout_stop_sec },
        { "Service", "NoNewPrivileges", parse_no_new_privileges },
        { "Service", "EnvironmentFile", NULL },
        { "Service", "UMask", parse_umask },
        { "Service", "LimitNPROC", parse_limit_nproc },
        { "Service", "LimitCORE", parse_limit_core },
        { "Service", "PrivatePIDs", parse_private_pids },
        { "Service", "MemoryMax", parse_memory_max },
        { "Service", "TasksMax", parse_tasks_max },
        { "Service", "CPUWeight", parse_cpu_weight },
        { "Service", "SupplementaryGroups", parse_supplementary_groups },
        { "Service", "CapabilityBoundingSet", parse_capability_bounding_set },
        { "Service", "AmbientCapabilities", parse_ambient_capabilities },
        { "Service", "StartLimitIntervalSec", parse_start_limit_interval_sec },
        { "Service", "StartLimitBurst", parse_start_limit_burst },
        { "Service", "RemainAfterExit", parse_remain_after_exit },
        { "Service", "WatchdogSec", parse_watchdog_sec },
        { "Service", "RestartSteps", parse_restart_steps },
        { "Service", "RestartMaxDelaySec", parse_restart_max_delay_sec },
        { "Service", "StandardOutput", parse_standard_output },
        { "Service", "StandardError", parse_standard_error },
        { "Service", "LogRotateSize", parse_log_rotate_size },
        { "Service", "LogRotateKeep", parse_log_rotate_keep },
        { "Service", "LimitNOFILE", parse_limit_nofile },
        { "Service", "ExecStartPre", NULL },
        { "Service", "ExecStartPost", NULL },
        { "Service", "ExecStop", NULL },
        { "Service", "ExecReload", NULL },
        { "Service", "KillMode", NULL },
        { "Service", "TimeoutStartSec", parse_timeout_start_sec },
        { "Service", "TimeoutSec", parse_timeout_sec },

        { "Install", "WantedBy", parse_wanted_by },
        { "Install", "RequiredBy", NULL },
        { "Install", "Alias", NULL },
        { "Install", "Also", NULL },
};

static const char *const known_sections[] = { "Unit", "Service", "Install" };

static bool section_is_known(const char *section) {
        for (size_t i = 0; i < ELEMENTSOF(known_sections); i++)
                if (streq(section, known_sections[i]))
                        return true;
        return false;
}

/* systemd ignores sections and keys whose name starts with "X-" (vendor extensions) silently. */
static bool name_is_extension(const char *s) {
        return strneq(s, "X-", 2);
}

static int unit_handler(void *user, const char *section, const char *name, const char *value) {
        UnitParser *p = user;

        assert(p);
        assert(section);
        assert(name);

        /* After an error, inih still calls us for the line in hand; nothing more is looked at. */
        if (p->error < 0)
                return 1;

        /* inih's value may be cut at " ;" or at its 200-byte buffer; the reader kept the whole one. */
        (void) value;
        assert(p->value);

        if (section[0] == '\0') {
                parser_error(p, -EINVAL, p->line, "Assignment '%s=' outside of a section", name);
                return 1;
        }
        if (!section_is_known(section))
                return 1; /* warned about at its header */
        if (name_is_extension(name))
                return 1;

        for (size_t i = 0; i < ELEMENTSOF(key_table); i++) {
                if (!streq(section, key_table[i].section) || !streq(name, key_table[i].key))
                        continue;
                if (key_table[i].parse)
                        (void) key_table[i].parse(p);
                else
                        parser_warn(p, "Key '%s=' in [%s] is not supported yet, ignoring.", name, section);
                return 1;
        }

        parser_warn(p, "Unknown key '%s=' in [%s], ignoring.", name, section);
        return 1;
}

static void strip(char **s, size_t *n) {
        while (*n > 0 && strchr(WHITESPACE, (*s)[*n - 1]))
                (*n)--;
        while (*n > 0 && strchr(WHITESPACE, **s)) {
                (*s)++;
                (*n)--;
        }
}

/* Hands inih the normalised form of a checked logical line (see the top of this file). */
static char *reader_emit(UnitParser *p, char *str, int num, const char *a, size_t an, const char *b,
                         size_t bn, const char *c) {
        size_t cn = strlen(c);

        /* Our names are short by construction; an inih built with a tiny INI_MAX_LINE is our problem. */
        if (num < 0 || an + bn + cn + 2 > (size_t) num) {
                parser_error(p, -ENOBUFS, p->line, "Line does not fit inih's buffer of %d bytes", num);
                return NULL;
        }
        memcpy(str, a, an);
        memcpy(str + an, b, bn);
        memcpy(str + an + bn, c, cn);
        str[an + bn + cn] = '\n';
        str[an + bn + cn + 1] = '\0';
        return str;
}

/* Classifies the logical line in line_buf; returns NULL with p->error set, or a line for inih, or
 * sets *skip for a blank line. */
static char *reader_classify(UnitParser *p, char *str, int num, bool *skip) {
        char *l = p->line_buf, *eq, *k, *v;
        size_t n = p->line_len, kn, vn;

        strip(&l, &n);
        l[n] = '\0';

        if (n == 0) {
                *skip = true;
                return NULL;
        }

        if (l[0] == '[') {
                /* systemd: the whole line is the header, "[Name]" with nothing after it. */
                if (l[n - 1] != ']' || !ini_name_is_plain(l + 1, n - 2, UNIT_SECTION_NAME_MAX)) {
                        _cleanup_free_ char *q = message_quote(l);
                        parser_error(p, -EINVAL, p->line, "Invalid section header '%s'", q ?: "");
                        return NULL;
                }
                l[n - 1] = '\0';
                if (!section_is_known(l + 1) && !name_is_extension(l + 1))
                        parser_warn(p, "Unknown section '%s', ignoring.", l + 1);
                return reader_emit(p, str, num, "[", 1, l + 1, n - 2, "]");
        }

        eq = strchr(l, '=');
        if (!eq) {
                _cleanup_free_ char *q = message_quote(l);
                parser_error(p, -EINVAL, p->line, "Missing '=' in '%s'", q ?: "");
                return NULL;
        }

        k = l;
        kn = (size_t) (eq - l);
        strip(&k, &kn);
        v = eq + 1;
        vn = n - (size_t) (v - l);
        strip(&v, &vn);
        if (!ini_name_is_plain(k, kn, UNIT_KEY_NAME_MAX)) {
                k[kn] = '\0';
                _cleanup_free_ char *q = message_quote(k);
                parser_error(p, -EINVAL, p->line, "Invalid key name '%s'", q ?: "");
                return NULL;
        }
        k[kn] = '\0';
        v[vn] = '\0';
        p->key = k;
        p->value = v;
        return reader_emit(p, str, num, k, kn, "=", 1, "");
}

static int line_buf_append(UnitParser *p, const char *s, size_t n) {
        char *b;

        if (p->line_len + n > UNIT_LINE_MAX)
                return parser_error(p, -ENOBUFS, p->line, "Line too long (more than %u bytes)",
                                    UNIT_LINE_MAX);

        b = realloc(p->line_buf, p->line_len + n + 1);
        if (!b)
                return parser_error(p, -ENOMEM, p->line, "Out of memory");
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

/* inih's fgets()-like reader: returns the next meaningful line, normalised, or NULL at the end or on
 * an error (inih then stops and p->error tells which). */
static char *unit_reader(char *str, int num, void *stream) {
        UnitParser *p = stream;
        bool continuation = false;

        assert(p);

        if (p->error < 0)
                return NULL;

        p->key = p->value = NULL;
        p->line_len = 0;

        for (;;) {
                const char *s, *nl, *t;
                size_t n;
                bool skip = false;
                char *ret;

                if (p->pos >= p->size) {
                        if (!continuation)
                                return NULL;
                        /* The file ended after a trailing backslash: take what we have, like systemd. */
                        continuation = false;
                } else {
                        s = p->text + p->pos;
                        nl = memchr(s, '\n', p->size - p->pos);
                        n = nl ? (size_t) (nl - s) : p->size - p->pos;
                        p->pos += n + (nl ? 1 : 0);
                        p->physical_line++;
                        if (!continuation)
                                p->line = p->physical_line;

                        if (n > UNIT_LINE_MAX) {
                                parser_error(p, -ENOBUFS, p->physical_line,
                                             "Line too long (more than %u bytes)", UNIT_LINE_MAX);
                                return NULL;
                        }
                        if (memchr(s, '\0', n)) {
                                parser_error(p, -EINVAL, p->physical_line, "Line contains a NUL byte");
                                return NULL;
                        }
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

                        if (line_buf_append(p, s, n) < 0)
                                return NULL;

                        /* A trailing backslash joins the next line, replaced by a space. */
                        continuation = ends_in_continuation(p->line_buf, p->line_len);
                        if (continuation) {
                                p->line_buf[p->line_len - 1] = ' ';
                                continue;
                        }
                }

                ret = reader_classify(p, str, num, &skip);
                if (!skip)
                        return ret;
                p->line_len = 0;
        }
}

static Unit *unit_new(const char *path, const char *name) {
        _cleanup_(unit_freep) Unit *u = NULL;

        u = calloc(1, sizeof(Unit));
        if (!u)
                return NULL;
        u->name = strdup(name);
        u->path = strdup(path);
        if (!u->name || !u->path)
                return NULL;
        u->restart = RESTART_NO;
        u->restart_usec = UNIT_RESTART_USEC_DEFAULT;
        u->kill_signal = SIGTERM;
        u->timeout_stop_usec = UNIT_TIMEOUT_STOP_USEC_DEFAULT;
        u->timeout_start_usec = UNIT_TIMEOUT_START_USEC_DEFAULT;
        u->restart_max_delay_usec = USEC_INFINITY;
        u->start_limit_interval_usec = UNIT_START_LIMIT_INTERVAL_USEC_DEFAULT;
        u->start_limit_burst = UNIT_START_LIMIT_BURST_DEFAULT;
        u->capability_bounding_set = UNIT_CAPABILITIES_ALL;
        u->umask = -1;
        u->private_pids = -1;
        u->memory_max = UINT64_MAX;
        u->tasks_max = UINT64_MAX;
        u->std_output = LOG_OUTPUT_LOG;
        u->std_error = LOG_OUTPUT_INHERIT;
        u->log_rotate_size = LOGFILE_ROTATE_SIZE_DEFAULT;
        u->log_rotate_keep = LOGFILE_ROTATE_KEEP_DEFAULT;
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
        int r;

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
                parser_error(&p, -ENOMEM, 0, "Out of memory");
                return fail(&p, ret_error);
        }
        p.unit = u;

        r = ini_parse_stream(unit_reader, &p, unit_handler, &p);
        if (p.error < 0)
                return fail(&p, ret_error);
        if (r == -2) {
                parser_error(&p, -ENOMEM, 0, "Out of memory");
                return fail(&p, ret_error);
        }
        if (r != 0) {
                /* inih disagreed with a line the reader had checked: our bug, but never take svd
                 * down for it. inih's number counts the lines it was handed, not the file's. */
                parser_error(&p, -EINVAL, 0, "Failed to parse (inih error on its line %d)", r);
                return fail(&p, ret_error);
        }

        if (!u->exec_start) {
                parser_error(&p, -EINVAL, 0, "Missing ExecStart= in [Service]");
                return fail(&p, ret_error);
        }
        if (u->remain_after_exit && u->type != SERVICE_TYPE_ONESHOT) {
                /* systemd keeps such a unit "active (exited)" after any type's exit; svd only for oneshot. */
                parser_error(&p, -EOPNOTSUPP, 0, "RemainAfterExit=yes is supported with Type=oneshot only");
                return fail(&p, ret_error);
        }
        if (u->restart_steps > 0 && u->restart_max_delay_usec != USEC_INFINITY &&
            u->restart_max_delay_usec < u->restart_usec) {
                /* As systemd's service_verify(). */
                parser_warn(&p, "RestartMaxDelaySec= is smaller than RestartSec=, using RestartSec= for both.");
                u->restart_max_delay_usec = u->restart_usec;
        }
        u->source = malloc(len + 1);
        if (!u->source) {
                parser_error(&p, -ENOMEM, 0, "Out of memory");
                return fail(&p, ret_error);
        }
        if (len > 0)
                memcpy(u->source, text, len);
        u->source[len] = 0;
        u->source_len = len;

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
                parser_error(&p, -ENOMEM, 0, "Out of memory");
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
