/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svd.conf (svd-conf.h): inih reads the lines, a table of keys turns each into a field of SvdConf. */
#include "svd-conf.h"

#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "basic/parse-util.h"
#include "basic/unit-name.h"
#include "basic/utf8.h"
#include "svd-log.h"

#define SVD_CONF_SECTION "Manager"
#define SVD_CONF_NAME_MAX 64U    /* bytes in a key name */
#define SVD_CONF_SECTION_NAME_MAX 48U /* bytes in a section name (inih keeps 49) */
#define SVD_CONF_GROUP_MAX 255U  /* bytes in LogGroup=/ManageGroup= (LOGIN_NAME_MAX less the NUL) */
#define SVD_CONF_PATH_MAX 4095U  /* bytes in UnitDirectory=/ControlSocket= (PATH_MAX less the NUL) */

/*
 * Why inih reads the lines and our reader feeds it: inih's handler gets no line number, cuts lines
 * longer than its buffer into several without a word, and takes an indented line after an
 * assignment as more of its value. The reader (conf_reader()) hands inih one line at a time, so
 * that the line inih works on is always the one it read last: it counts them, refuses a line that
 * would not fit and one with a NUL byte, and drops the indentation (indentation is ignored, as in
 * unit files). inih reports a syntax error by its line number only, and only the first: the reader
 * checks each line it handed over for a header or an assignment that inih would have refused, so
 * that every bad line is named with its reason.
 */

typedef struct ConfParser {
        SvdConf *conf;
        const char *path;
        SvdConfLogFn log;
        void *userdata;

        const char *text;
        size_t size;
        size_t pos;
        unsigned line;          /* of the line inih works on */
        bool line_is_assignment; /* ... which inih must hand to the handler */
        bool line_handled;      /* ... and did */
        bool line_bad;          /* ... which was reported already */
        bool section_bad;       /* below a bad section header: its assignments are ignored */

        char unknown_section[64]; /* the unknown section warned about last */
        unsigned n_messages;
        int error;              /* the first error, negative; 0 */
} ConfParser;

/* Counts the error (the first one is the result) and passes full, which names file and line, on. */
static void conf_report(ConfParser *p, int level, int error, const char *full) {
        if (level == LOG_ERR) {
                p->line_bad = true;
                if (p->error == 0)
                        p->error = error;
        }
        if (!p->log)
                return;
        /* A hostile file full of bad lines must not flood the log. */
        p->n_messages++;
        if (p->n_messages > SVD_CONF_MESSAGES_MAX + 1)
                return;
        if (p->n_messages == SVD_CONF_MESSAGES_MAX + 1) {
                _cleanup_free_ char *m = NULL;
                if (asprintf(&m, "%s: Too many messages, suppressing the rest.", p->path) >= 0)
                        p->log(LOG_WARNING, m, p->userdata);
                return;
        }
        p->log(level, full, p->userdata);
}

/* "PATH:LINE: MESSAGE" (or "PATH: MESSAGE" outside any line). */
_printf_(4, 5) static void conf_message(ConfParser *p, int level, int error, const char *format, ...) {
        _cleanup_free_ char *m = NULL, *full = NULL;
        va_list ap;

        va_start(ap, format);
        int k = vasprintf(&m, format, ap);
        va_end(ap);
        if (k < 0 || (p->line > 0 ? asprintf(&full, "%s:%u: %s", p->path, p->line, m)
                                  : asprintf(&full, "%s: %s", p->path, m)) < 0)
                full = NULL;
        conf_report(p, level, error, full ?: "Out of memory");
}

#define conf_error(p, error, ...) conf_message((p), LOG_ERR, (error), __VA_ARGS__)
#define conf_warn(p, ...) conf_message((p), LOG_WARNING, 0, __VA_ARGS__)

/* "Invalid value 'VALUE' for KEY=: REASON", with the control characters of the value escaped. */
static int conf_invalid(ConfParser *p, const char *key, const char *value, int error, const char *reason) {
        _cleanup_free_ char *q = utf8_escape_for_log(value);
        if (!q)
                return -ENOMEM;
        conf_error(p, error, "Invalid value '%s' for %s=: %s", q, key, reason);
        return 0;
}

/* Key and section names: short, letters, digits, '-', '_' and '.', as in unit files. */
static bool name_is_plain(const char *s, size_t n, size_t max) {
        if (n == 0 || n > max)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                      (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_' || s[i] == '.'))
                        return false;
        return true;
}

static int set_string(char **field, const char *value) {
        char *s = NULL;
        if (value && !(s = strdup(value)))
                return -ENOMEM;
        free(*field);
        *field = s;
        return 0;
}

/* ---- the keys: each parser sets its field, or reports the value as invalid and returns 0;
 * -ENOMEM is the one error it returns itself. An empty value resets the key (value "" here). ---- */

typedef struct ConfKey ConfKey;
typedef int (*ConfKeyParser)(ConfParser *p, const ConfKey *k, const char *value);

struct ConfKey {
        const char *name;
        ConfKeyParser parse;
        size_t offset;         /* of the field in SvdConf, where the parser has one */
        const char *unit_key;  /* Default*=: the unit key whose default it sets */
};

#define CONF_FIELD(f) .offset = offsetof(SvdConf, f)

static void *conf_field(ConfParser *p, const ConfKey *k) {
        return (uint8_t *) p->conf + k->offset;
}

/* UnitDirectory=, ControlSocket=: an absolute path. */
static int parse_path(ConfParser *p, const ConfKey *k, const char *value) {
        if (isempty(value))
                return set_string(conf_field(p, k), NULL);
        if (value[0] != '/' || strlen(value) > SVD_CONF_PATH_MAX || !utf8_is_valid(value))
                return conf_invalid(p, k->name, value, -EINVAL, "expected an absolute path");
        return set_string(conf_field(p, k), value);
}

/* SpawnMode=: auto or fallback. */
static int parse_spawn_mode(ConfParser *p, const ConfKey *k, const char *value) {
        bool *field = conf_field(p, k);
        if (isempty(value)) {
                *field = false;
                return 0;
        }
        if (svd_conf_parse_spawn_mode(value, field) < 0)
                return conf_invalid(p, k->name, value, -EINVAL, "expected 'auto' or 'fallback'");
        return 0;
}

static int parse_bool(ConfParser *p, const ConfKey *k, const char *value) {
        bool *field = conf_field(p, k);
        if (isempty(value)) {
                *field = false;
                return 0;
        }
        if (parse_boolean(value, field) < 0)
                return conf_invalid(p, k->name, value, -EINVAL,
                                    "expected a boolean (yes/no, true/false, on/off, 1/0)");
        return 0;
}

/* ForwardOutput=: no, yes (plain), plain or time. */
static int parse_forward_output(ConfParser *p, const ConfKey *k, const char *value) {
        LogConsoleMode *field = conf_field(p, k);
        if (isempty(value)) {
                *field = LOG_CONSOLE_OFF;
                return 0;
        }
        if (svd_conf_parse_forward_output(value, field) < 0)
                return conf_invalid(p, k->name, value, -EINVAL, "expected 'no', 'yes', 'plain' or 'time'");
        return 0;
}

/* MainService=: a unit's name, with or without ".service". */
static int parse_main_service(ConfParser *p, const ConfKey *k, const char *value) {
        _cleanup_free_ char *name = NULL;
        if (isempty(value))
                return set_string(conf_field(p, k), NULL);
        name = strdup(value);
        if (!name)
                return -ENOMEM;
        unit_name_strip_suffix(name);
        const char *why = unit_name_invalid_reason(name);
        if (why) {
                _cleanup_free_ char *reason = NULL;
                if (asprintf(&reason, "not a unit name (%s)", why) < 0)
                        return -ENOMEM;
                return conf_invalid(p, k->name, value, -EINVAL, reason);
        }
        return set_string(conf_field(p, k), name);
}

/* LogGroup=, ManageGroup=: a group's name or number, resolved when svd starts; empty for none (as
 * the options take it). */
static int parse_group(ConfParser *p, const ConfKey *k, const char *value) {
        if (strlen(value) > SVD_CONF_GROUP_MAX || !utf8_is_valid(value) || strpbrk(value, " \t:/"))
                return conf_invalid(p, k->name, value, -EINVAL, "expected a group name or number");
        for (const char *c = value; *c; c++)
                if ((unsigned char) *c < 0x20 || *c == 0x7F)
                        return conf_invalid(p, k->name, value, -EINVAL, "expected a group name or number");
        return set_string(conf_field(p, k), value);
}

/* LogLevel=: emerg ... debug, or 0-7. */
static int parse_log_level(ConfParser *p, const ConfKey *k, const char *value) {
        int *field = conf_field(p, k);
        if (isempty(value)) {
                *field = -1;
                return 0;
        }
        int level = log_level_from_string(value);
        if (level < 0)
                return conf_invalid(p, k->name, value, -EINVAL,
                                    "expected emerg, alert, crit, err, warning, notice, info or debug");
        *field = level;
        return 0;
}

/* Default*=: parsed by the unit key's own parser (unit.h's unit_defaults_set()). */
static int parse_unit_default(ConfParser *p, const ConfKey *k, const char *value) {
        _cleanup_free_ char *error = NULL;
        int r = unit_defaults_set(&p->conf->unit_defaults, k->unit_key, value, p->path, p->line, k->name,
                                  &error);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                conf_report(p, LOG_ERR, r, error ?: "Invalid value"); /* it names file and line */
        return 0;
}

#define DEFAULT_KEY(n) { "Default" n, parse_unit_default, .unit_key = n }

/* Every key of [Manager], one row each; the man page (svd(8)) and the default file (contrib/svd.conf)
 * list them in this order. */
static const ConfKey conf_keys[] = {
        { "UnitDirectory", parse_path, CONF_FIELD(unit_dir) },
        { "ControlSocket", parse_path, CONF_FIELD(socket_path) },
        { "SpawnMode", parse_spawn_mode, CONF_FIELD(force_fallback) },
        { "AllowUnsandboxed", parse_bool, CONF_FIELD(allow_unsandboxed) },
        { "ForwardOutput", parse_forward_output, CONF_FIELD(forward_output) },
        { "MainService", parse_main_service, CONF_FIELD(main_service) },
        { "LogGroup", parse_group, CONF_FIELD(log_group) },
        { "ManageGroup", parse_group, CONF_FIELD(manage_group) },
        { "LogLevel", parse_log_level, CONF_FIELD(log_level) },
        DEFAULT_KEY("TimeoutStartSec"),
        DEFAULT_KEY("TimeoutStopSec"),
        DEFAULT_KEY("RestartSec"),
        DEFAULT_KEY("StartLimitIntervalSec"),
        DEFAULT_KEY("StartLimitBurst"),
        DEFAULT_KEY("LimitNOFILE"),
        DEFAULT_KEY("LimitNPROC"),
        DEFAULT_KEY("LimitCORE"),
};

void svd_conf_foreach_key(void (*f)(const char *key, void *userdata), void *userdata) {
        for (size_t i = 0; i < ELEMENTSOF(conf_keys); i++)
                f(conf_keys[i].name, userdata);
}

static const ConfKey *conf_key_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(conf_keys); i++)
                if (streq(conf_keys[i].name, name))
                        return &conf_keys[i];
        return NULL;
}

/* inih's handler: one assignment. Always 1: errors are ours to report (conf_message()). */
static int conf_handler(void *userdata, const char *section, const char *name, const char *value) {
        ConfParser *p = userdata;
        const ConfKey *k;

        p->line_handled = true;
        if (p->line_bad)
                return 1; /* reported by the reader */
        if (p->section_bad)
                return 1; /* below a header that was reported */
        if (!name_is_plain(name, strlen(name), SVD_CONF_NAME_MAX)) {
                _cleanup_free_ char *q = utf8_escape_for_log(name);
                conf_error(p, -EINVAL, "Invalid key name '%s'", q ?: "");
                return 1;
        }
        if (section[0] == '\0') {
                conf_error(p, -EINVAL, "Assignment '%s=' outside of a section", name);
                return 1;
        }
        if (strneq(section, "X-", 2) || strneq(name, "X-", 2))
                return 1;
        if (!streq(section, SVD_CONF_SECTION)) {
                /* inih says nothing of a header: the first assignment in the section warns. */
                if (!streq(section, p->unknown_section)) {
                        _cleanup_free_ char *q = utf8_escape_for_log(section);
                        conf_warn(p, "Unknown section '%s', ignoring.", q ?: "");
                        (void) snprintf(p->unknown_section, sizeof(p->unknown_section), "%s", section);
                }
                return 1;
        }
        k = conf_key_find(name);
        if (!k) {
                conf_warn(p, "Unknown key '%s=' in [%s], ignoring.", name, section);
                return 1;
        }
        if (k->parse(p, k, value) < 0) {
                /* Out of memory: the file did not load. */
                conf_error(p, -ENOMEM, "Out of memory");
                return 1;
        }
        return 1;
}

/* inih's reader, fgets() as inih calls it: the next line, without its newline and indentation, in
 * str of num bytes; NULL at the end. Before it the previous line's check: an assignment inih did not
 * hand to the handler was one it refused. */
static char *conf_reader(char *str, int num, void *stream) {
        ConfParser *p = stream;
        size_t max = MIN((size_t) SVD_CONF_LINE_MAX, num > 1 ? (size_t) num - 1 : 0);

        if (p->line > 0 && p->line_is_assignment && !p->line_handled && !p->line_bad)
                conf_error(p, -EINVAL, "Expected '[Section]' or 'Key=Value'");
        if (p->pos >= p->size)
                return NULL;

        const char *s = p->text + p->pos, *nl;
        size_t n;
        nl = memchr(s, '\n', p->size - p->pos);
        n = nl ? (size_t) (nl - s) : p->size - p->pos;
        p->pos += n + (nl ? 1 : 0);
        p->line++;
        p->line_is_assignment = p->line_handled = p->line_bad = false;
        str[0] = '\0';

        if (n > max) {
                conf_error(p, -ENOBUFS, "Line too long (more than %zu bytes)", max);
                return str;
        }
        if (memchr(s, '\0', n)) {
                conf_error(p, -EINVAL, "Line contains a NUL byte");
                return str;
        }
        while (n > 0 && strchr(" \t\r", s[n - 1]))
                n--;
        while (n > 0 && strchr(" \t", *s)) {
                s++;
                n--;
        }
        memcpy(str, s, n);
        str[n] = '\0';

        /* What inih does with the line (its ini_parse_stream()): blank, a comment from ';' or '#', a
         * header "[name]" (inih takes up to the first ']', and warns of nothing after it), or an
         * assignment, whose handler call tells that inih took it. */
        const char *t = str;
        if (p->line == 1 && strneq(t, "\xEF\xBB\xBF", 3))
                t += 3; /* UTF-8 byte order mark */
        if (*t == '\0' || *t == ';' || *t == '#')
                return str;
        if (*t == '[') {
                /* "[Name]", then nothing but a comment. */
                const char *end = strchr(t, ']'), *rest = end ? end + 1 : NULL;
                if (rest)
                        rest += strspn(rest, " \t");
                p->section_bad = !end ||
                                 !name_is_plain(t + 1, (size_t) (end - t - 1), SVD_CONF_SECTION_NAME_MAX) ||
                                 (*rest != '\0' && !(*rest == ';' && rest > end + 1));
                if (p->section_bad) {
                        _cleanup_free_ char *q = utf8_escape_for_log(t);
                        conf_error(p, -EINVAL, "Invalid section header '%s'", q ?: "");
                        str[0] = '\0';
                }
                return str;
        }
        p->line_is_assignment = true;
        return str;
}

void svd_conf_init(SvdConf *c) {
        assert(c);
        *c = (SvdConf){ .log_level = -1, .forward_output = LOG_CONSOLE_OFF };
        unit_defaults_init(&c->unit_defaults);
}

void svd_conf_done(SvdConf *c) {
        if (!c)
                return;
        free(c->unit_dir);
        free(c->socket_path);
        free(c->main_service);
        free(c->log_group);
        free(c->manage_group);
        svd_conf_init(c);
}

int svd_conf_default_path(char **ret) {
        const char *e;

        assert(ret);
        if (getuid() == 0) {
                *ret = strdup(SVD_CONF_SYSTEM_PATH);
                return *ret ? 0 : -ENOMEM;
        }
        e = getenv("XDG_CONFIG_HOME");
        if (e && e[0] == '/')
                return asprintf(ret, "%s/" SVD_CONF_USER_SUFFIX, e) < 0 ? -ENOMEM : 0;
        e = getenv("HOME");
        if (e && e[0] == '/')
                return asprintf(ret, "%s/.config/" SVD_CONF_USER_SUFFIX, e) < 0 ? -ENOMEM : 0;
        return -ENXIO;
}

int svd_conf_apply_options(SvdConf *c, const SvdConfOptions *o) {
        assert(c);
        assert(o);

        const struct {
                char **field;
                const char *value;
        } strings[] = {
                { &c->unit_dir, o->unit_dir },         { &c->socket_path, o->socket_path },
                { &c->main_service, o->main_service }, { &c->log_group, o->log_group },
                { &c->manage_group, o->manage_group },
        };
        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                if (strings[i].value && set_string(strings[i].field, strings[i].value) < 0)
                        return -ENOMEM;
        if (o->force_fallback >= 0)
                c->force_fallback = o->force_fallback;
        if (o->allow_unsandboxed >= 0)
                c->allow_unsandboxed = o->allow_unsandboxed;
        if (o->forward_output >= 0)
                c->forward_output = (LogConsoleMode) o->forward_output;
        if (o->log_level >= 0)
                c->log_level = o->log_level;
        return 0;
}

int svd_conf_parse_forward_output(const char *s, LogConsoleMode *ret) {
        bool b;
        if (streq(s, "plain"))
                *ret = LOG_CONSOLE_PLAIN;
        else if (streq(s, "time"))
                *ret = LOG_CONSOLE_TIME;
        else if (parse_boolean(s, &b) >= 0)
                *ret = b ? LOG_CONSOLE_PLAIN : LOG_CONSOLE_OFF;
        else
                return -EINVAL;
        return 0;
}

int svd_conf_parse_spawn_mode(const char *s, bool *ret_force_fallback) {
        if (streq(s, "fallback"))
                *ret_force_fallback = true;
        else if (streq(s, "auto"))
                *ret_force_fallback = false;
        else
                return -EINVAL;
        return 0;
}

int svd_conf_load_string(SvdConf *c, const char *text, size_t len, const char *path, SvdConfLogFn log,
                         void *userdata) {
        ConfParser p = {
                .conf = c,
                .path = path,
                .log = log,
                .userdata = userdata,
                .text = text,
                .size = len,
        };

        assert(c);
        assert(text || len == 0);
        assert(path);

        if (len > SVD_CONF_FILE_SIZE_MAX) {
                conf_error(&p, -EFBIG, "File too large (%zu bytes, the limit is %u)", len,
                           SVD_CONF_FILE_SIZE_MAX);
                return p.error;
        }
        int r = ini_parse_stream(conf_reader, &p, conf_handler, &p);
        if (r > 0 && p.error == 0) {
                /* A line inih refused that the reader's checks let through. */
                p.line = (unsigned) r;
                conf_error(&p, -EINVAL, "Syntax error");
        } else if (r < 0 && p.error == 0) {
                p.line = 0;
                conf_error(&p, -ENOMEM, "Out of memory");
        }
        return p.error < 0 ? p.error : 1;
}

int svd_conf_load(SvdConf *c, const char *path, SvdConfLogFn log, void *userdata) {
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *buf = NULL;
        ConfParser p = { .path = path, .log = log, .userdata = userdata };
        struct stat st;
        size_t n = 0;

        assert(c);
        assert(path);

        /* O_NONBLOCK: a FIFO in its place must not hang svd in open(). */
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                if (errno == ENOENT)
                        return 0;
                conf_error(&p, -errno, "Failed to open: %s", strerror(errno));
                return p.error;
        }
        if (fstat(fd, &st) < 0) {
                conf_error(&p, -errno, "Failed to stat: %s", strerror(errno));
                return p.error;
        }
        if (S_ISDIR(st.st_mode)) {
                conf_error(&p, -EISDIR, "Not a regular file but a directory");
                return p.error;
        }
        if (!S_ISREG(st.st_mode)) {
                conf_error(&p, -EBADFD, "Not a regular file");
                return p.error;
        }
        if ((uint64_t) st.st_size > SVD_CONF_FILE_SIZE_MAX) {
                conf_error(&p, -EFBIG, "File too large (%jd bytes, the limit is %u)", (intmax_t) st.st_size,
                           SVD_CONF_FILE_SIZE_MAX);
                return p.error;
        }
        /* One byte more than allowed: the file may have grown since fstat(). */
        buf = malloc(SVD_CONF_FILE_SIZE_MAX + 1);
        if (!buf)
                return -ENOMEM;
        while (n < SVD_CONF_FILE_SIZE_MAX + 1) {
                ssize_t k = read(fd, buf + n, SVD_CONF_FILE_SIZE_MAX + 1 - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        conf_error(&p, -errno, "Failed to read: %s", strerror(errno));
                        return p.error;
                }
                if (k == 0)
                        break;
                n += (size_t) k;
        }
        return svd_conf_load_string(c, buf, n, path, log, userdata);
}
