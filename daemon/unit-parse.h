/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Private to the files that load a unit (unit.h's unit_load_file()): the reader (unit-load.c), the table
 * of keys (unit-keys.c) and the parsers of values (unit-parse.c), which this header is the contract of.
 *
 * UnitParser is where the reader stands in a file; the parsers read the current assignment from it and
 * report through it. Every message names the file and the line: parser_error() records the first error,
 * after which parsing stops; parser_warn() passes a warning to the caller's UnitWarningFn. Nothing here
 * logs.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/macros.h"
#include "unit.h"

#define UNIT_SECTION_NAME_MAX  48U  /* bytes in a section name */

typedef struct UnitParser {
        const char *path;
        Unit *unit;
        const Unit *base; /* what the unit holds before its file is read: defaults, and empty assignments */
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
        unsigned std_output_line; /* of StandardOutput= in force, 0: none (its default depends on StandardInput=) */
        UnitKind kind;          /* from the file name: which sections the file may have */

        int error; /* first error, negative; parsing stops there */
        char *error_message;
} UnitParser;

/* Records the first error as "PATH:LINE: MESSAGE" (or "PATH: MESSAGE" for line 0) and returns it. */
_printf_(4, 5) int parser_error(UnitParser *p, int error, unsigned line, const char *format, ...);
int parser_oom(UnitParser *p);
/* "PATH:LINE: Invalid value 'VALUE' for KEY=: REASON" */
_printf_(3, 4) int invalid_value(UnitParser *p, int error, const char *format, ...);
/* "PATH:LINE: MESSAGE" to the caller's UnitWarningFn; past a bound, one line says the rest is suppressed. */
_printf_(2, 3) void parser_warn(UnitParser *p, const char *format, ...);
/* A value a user controls, as it may be quoted in a message: control characters escaped, bounded,
 * valid UTF-8. NULL when memory ran out. */
char *message_quote(const char *s);

/* The current value as a single-valued string key takes it: specifiers resolved, valid UTF-8. 0, the
 * error of invalid_value(), or -ENOMEM. */
int unit_parse_string_value(UnitParser *p, char **ret);

/* Records entry ("Key=" or "Key=value") in Unit.not_applied, once. */
int record_not_applied(UnitParser *p, const char *entry);
/* Records the current key as "Key=", or takes it back on an empty assignment. */
int record_key_not_applied(UnitParser *p);

/* ---- the keys ----
 *
 * Every key is one row of unit_keys[] (unit-keys.c): section, name, parser, the field of Unit it sets,
 * and what that parser needs besides. A parser gets the field's address; it returns 0, or the
 * error of invalid_value() (which records the message), or -ENOMEM alone, which unit_parse_key()
 * reports (the one out-of-memory path). An empty assignment resets the key to its default, which
 * for the scalar fields is their value in UnitParser.base (unit_defaults and the UnitDefaults the
 * loader was given).
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

enum {
        KEY_SEC_0_IS_INFINITY = 1U << 0, /* 0 means no timeout, like "infinity" (config_parse_sec_fix_0) */
        KEY_SEC_INFINITY_IS_0 = 1U << 1, /* "infinity" means off, stored as 0 */
        KEY_SEC_NO_INFINITY = 1U << 2,   /* "infinity" is refused */
        KEY_POSITIVE = 1U << 3,          /* numbers: 0 is refused */
        KEY_SIZE_INFINITY_IS_0 = 1U << 4, /* sizes: "infinity" is stored as 0 */
        KEY_BOUNDING_SET = 1U << 5,      /* capabilities: CapabilityBoundingSet= (else ambient) */
        KEY_SANDBOX = 1U << 6,           /* a sandboxing key: never ignored (see KEY_SANDBOX_NOT_YET) */
};

/* A new unit before its file is read, with the built-in defaults (unit-parse.c). */
extern const Unit unit_defaults;
/* Sets u's fields of UnitDefaults from d (unit-defaults.c); nothing for NULL. */
void unit_defaults_apply(Unit *u, const UnitDefaults *d);

/* Frees the commands of an Exec*= key and empties the list. */
void exec_command_list_done(ExecCommandList *l);

/* A sandboxing key svd does not enforce: recorded in UnitSandbox.not_applied unless its value asks
 * for nothing. */
int record_sandbox_not_applied(UnitParser *p, const UnitKey *k);

/* The parsers, one per kind of value; unit-keys.c names one in each row. */
int parse_access(UnitParser *p, const UnitKey *k, void *field);
/* [Socket] (unit-socket.c). */
int parse_socket_listen(UnitParser *p, const UnitKey *k, void *field);
int parse_bind_ipv6_only(UnitParser *p, const UnitKey *k, void *field);
int parse_socket_service(UnitParser *p, const UnitKey *k, void *field);
int parse_socket_accept(UnitParser *p, const UnitKey *k, void *field);
int parse_fd_name(UnitParser *p, const UnitKey *k, void *field);
int parse_socket_refused(UnitParser *p, const UnitKey *k, void *field);
/* The socket options of [Socket] (unit-socket-options.c). */
int parse_socket_sec(UnitParser *p, const UnitKey *k, void *field);
int parse_socket_int(UnitParser *p, const UnitKey *k, void *field);
int parse_socket_ip_tos(UnitParser *p, const UnitKey *k, void *field);
int parse_socket_size(UnitParser *p, const UnitKey *k, void *field);
int parse_socket_protocol(UnitParser *p, const UnitKey *k, void *field);
int parse_tcp_congestion(UnitParser *p, const UnitKey *k, void *field);
int parse_timestamping(UnitParser *p, const UnitKey *k, void *field);
int parse_socket_symlinks(UnitParser *p, const UnitKey *k, void *field);
int parse_socket_writable(UnitParser *p, const UnitKey *k, void *field);
int parse_size_key(UnitParser *p, const UnitKey *k, void *field);
int parse_binds_to(UnitParser *p, const UnitKey *k, void *field);
int parse_bool_key(UnitParser *p, const UnitKey *k, void *field);
int parse_bus_name(UnitParser *p, const UnitKey *k, void *field);
int parse_capabilities(UnitParser *p, const UnitKey *k, void *field);
int parse_condition(UnitParser *p, const UnitKey *k, void *field);
int parse_dependency(UnitParser *p, const UnitKey *k, void *field);
int parse_directory_mode(UnitParser *p, const UnitKey *k, void *field);
int parse_documentation(UnitParser *p, const UnitKey *k, void *field);
int parse_environment(UnitParser *p, const UnitKey *k, void *field);
int parse_environment_file(UnitParser *p, const UnitKey *k, void *field);
int parse_exec_command(UnitParser *p, const UnitKey *k, void *field);
int parse_exec_directories(UnitParser *p, const UnitKey *k, void *field);
int parse_exit_status_set(UnitParser *p, const UnitKey *k, void *field);
int parse_kill_mode(UnitParser *p, const UnitKey *k, void *field);
int parse_limit(UnitParser *p, const UnitKey *k, void *field);
int parse_log_output(UnitParser *p, const UnitKey *k, void *field);
int parse_memory_max(UnitParser *p, const UnitKey *k, void *field);
int parse_notify_access(UnitParser *p, const UnitKey *k, void *field);
int parse_pam_name(UnitParser *p, const UnitKey *k, void *field);
int parse_personality(UnitParser *p, const UnitKey *k, void *field);
int parse_pid_file(UnitParser *p, const UnitKey *k, void *field);
int parse_preserve(UnitParser *p, const UnitKey *k, void *field);
int parse_restart(UnitParser *p, const UnitKey *k, void *field);
int parse_sandbox(UnitParser *p, const UnitKey *k, void *field);
int parse_sec_key(UnitParser *p, const UnitKey *k, void *field);
int parse_security_label(UnitParser *p, const UnitKey *k, void *field);
int parse_signal(UnitParser *p, const UnitKey *k, void *field);
int parse_size_key(UnitParser *p, const UnitKey *k, void *field);
int parse_std_input(UnitParser *p, const UnitKey *k, void *field);
int parse_string(UnitParser *p, const UnitKey *k, void *field);
int parse_supplementary_groups(UnitParser *p, const UnitKey *k, void *field);
int parse_tasks_max(UnitParser *p, const UnitKey *k, void *field);
int parse_tty_path(UnitParser *p, const UnitKey *k, void *field);
int parse_type(UnitParser *p, const UnitKey *k, void *field);
int parse_unit_action(UnitParser *p, const UnitKey *k, void *field);       /* SuccessAction= and the like */
int parse_action_exit_status(UnitParser *p, const UnitKey *k, void *field); /* 0 to 255 */
int parse_umask(UnitParser *p, const UnitKey *k, void *field);
int parse_unsigned_key(UnitParser *p, const UnitKey *k, void *field);
int parse_user_group(UnitParser *p, const UnitKey *k, void *field);
int parse_wanted_by(UnitParser *p, const UnitKey *k, void *field);
int parse_working_directory(UnitParser *p, const UnitKey *k, void *field);
