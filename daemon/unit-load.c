/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading a unit file (unit.h's unit_load_file()): the reader of systemd's ini syntax, which hands
 * each assignment to its row of the table of keys (unit-keys.h), the checks once the whole file is
 * read, and a Unit's lifetime. */
#include "unit.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/strv.h"
#include "basic/unit-name.h"
#include "unit-keys.h"
#include "unit-parse.h"

/*
 * unit-load.c reads unit files: the reader (unit_parse_text()) turns the bytes into logical lines as
 * systemd.syntax(7) says, and each "Key=value" goes through its row in unit_keys[] (unit-keys.c), the
 * table of every key svd knows, to a parser (unit-parse.c) that sets one field of Unit.
 *
 * No ini library: systemd's syntax and inih's (Debian's libinih 55) disagree on inline comments
 * (a ';' after whitespace), indented continuation lines, ':' as a separator, lines longer than
 * 200 bytes (silently cut into several), section names longer than 49 bytes, backslash
 * continuations and line numbers (none in the handler). Every one of those has to be done by our
 * own reader, after which the library would only remember the current section name.
 */

/* Limits on input the reader holds beyond those in unit.h. */
#define UNIT_KEY_NAME_MAX      64U  /* bytes in a key name */

#define WHITESPACE " \t\n\r"
#define COMMENTS   "#;"

static void unit_parser_done(UnitParser *p) {
        free(p->line_buf);
        p->line_buf = NULL;
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
        unit_access_done(&u->access);
        strv_free(u->not_applied);
        unit_conditions_done(&u->conditions);
        unit_socket_done(&u->socket);
        for (size_t i = 0; i < _UNIT_DEPENDENCY_MAX; i++)
                strv_free(u->dependencies[i]);
        for (size_t i = 0; i < _UNIT_RELATION_MAX; i++)
                strv_free(u->relations[i]);
        strv_free(u->aliases);
        strv_free(u->wanted_by);
        strv_free(u->required_by);
        strv_free(u->also);
        free(u);
        return NULL;
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
        if (!unit_section_is_known(p->kind, p->section))
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
                if (!unit_section_is_known(p->kind, p->section) && !name_is_extension(p->section))
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

/* A socket unit, once the whole file is read: something to listen on, and what svd can do with it. */
static int unit_check_socket(UnitParser *p) {
        const UnitSocket *s = &p->unit->socket;

        if (s->n_listen == 0)
                return parser_error(p, -EINVAL, 0,
                                    "Missing ListenStream=, ListenDatagram=, ListenSequentialPacket= or ListenFIFO= "
                                    "in [Socket]");
        const char *why = unit_socket_options_check(s);
        if (why)
                return parser_error(p, -EINVAL, 0, "%s", why);
        if (!s->accept)
                return 0;
        /* systemd.socket(5): a datagram socket or FIFO has no connections to accept, and each connection
         * starts an instance of NAME@.service, which Service= cannot name. */
        for (size_t i = 0; i < s->n_listen; i++)
                if (!IN_SET(s->listen[i].type, SOCKET_LISTEN_STREAM, SOCKET_LISTEN_SEQPACKET))
                        return parser_error(p, -EINVAL, s->listen[i].line,
                                            "Accept=yes (line %u) takes stream and sequential packet sockets only, "
                                            "not Listen%s=",
                                            s->accept_line, socket_listen_type_to_string(s->listen[i].type));
        if (s->service)
                return parser_error(p, -EINVAL, s->service_line,
                                    "Service= cannot be used with Accept=yes (line %u): each connection starts an "
                                    "instance of %s@.service",
                                    s->accept_line, p->unit->name);
        return 0;
}

static Unit *unit_new(const Unit *base, const char *path, const char *name) {
        _cleanup_(unit_freep) Unit *u = NULL;

        u = malloc(sizeof(Unit));
        if (!u)
                return NULL;
        *u = *base;
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

int unit_load_string(const char *text, size_t len, const char *path, const char *name,
                     const UnitDefaults *defaults, UnitWarningFn warn, void *userdata, Unit **ret,
                     char **ret_error) {
        /* The built-in defaults, and over them the caller's (a shallow copy: they hold no pointer). */
        Unit base = unit_defaults;
        unit_defaults_apply(&base, defaults);
        _cleanup_(unit_parser_done) UnitParser p = {
                .path = path,
                .base = &base,
                .warn = warn,
                .userdata = userdata,
                .text = text,
                .size = len,
                .kind = unit_kind_from_path(path),
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

        u = unit_new(&base, path, name);
        if (!u) {
                parser_oom(&p);
                return fail(&p, ret_error);
        }
        p.unit = u;
        u->kind = p.kind;
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

        if (u->kind == UNIT_KIND_SOCKET) {
                if (unit_check_socket(&p) < 0)
                        return fail(&p, ret_error);
                *ret = TAKE_PTR(u);
                if (ret_error)
                        *ret_error = NULL;
                return 0;
        }

        /* systemd.exec(5): with StandardInput=socket, StandardOutput= defaults to inherit, the socket;
         * StandardError= (inherit) follows it. */
        if (u->std_input == EXEC_INPUT_SOCKET && p.std_output_line == 0)
                u->std_output = LOG_OUTPUT_SOCKET;

        /* systemd.service(5): Type=oneshot may do without ExecStart= when it has ExecStop= (a unit that
         * only acts when it is stopped) or SuccessAction= (one whose start is the action, as
         * systemd-exit.service); without Type=, such a unit is a oneshot. */
        if (u->exec[UNIT_EXEC_START].n == 0) {
                bool acts = u->exec[UNIT_EXEC_STOP].n > 0 || u->success_action != UNIT_ACTION_NONE;
                if (acts && !u->type_set)
                        u->type = SERVICE_TYPE_ONESHOT;
                if (!acts || u->type != SERVICE_TYPE_ONESHOT) {
                        parser_error(&p, -EINVAL, 0,
                                     acts ? "Missing ExecStart= in [Service] (only Type=oneshot may do without it)"
                                          : "Missing ExecStart= in [Service] (or ExecStop= or SuccessAction=)");
                        return fail(&p, ret_error);
                }
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

int unit_load_file(const char *path, const char *name, const UnitDefaults *defaults, UnitWarningFn warn,
                   void *userdata, Unit **ret, char **ret_error) {
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

        return unit_load_string(buf, n, path, name, defaults, warn, userdata, ret, ret_error);
}

