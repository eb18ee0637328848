/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * svd.conf, svd's own configuration file (svd(8), CONFIGURATION): /etc/svd/svd.conf for root,
 * $XDG_CONFIG_HOME/svd/svd.conf (~/.config/svd/svd.conf) for other users, or the file --config
 * names. Its one section, [Manager], holds what svd's options say (the options override it) and the
 * defaults of the units' keys (Default*=, unit.h's UnitDefaults). main() reads it before anything
 * else, and again at each re-exec, which runs svd with the same options.
 *
 * The syntax is inih's (libinih): "[Section]", "Key=Value" (or "Key: Value"), comments from '#' or
 * ';' at the start of a line and from " ;" (a ';' after whitespace) to the end of it; indentation
 * is ignored; a repeated key overrides an earlier one; an empty value resets a key to its default
 * (for LogGroup= and ManageGroup=: no group, as their options take it). Lines are at most
 * SVD_CONF_LINE_MAX bytes.
 *
 * As for unit files: a bad value of a known key, a line that is neither a section header nor an
 * assignment, an assignment outside a section, a NUL byte and an overlong line are errors, each
 * reported as "FILE:LINE: reason"; the file then fails to load (svd refuses to start). The other
 * lines are still read and applied, so that a re-exec, which must not fail, can carry on with them.
 * Unknown sections and keys are warnings ("FILE:LINE: Unknown key 'Foo=' in [Manager], ignoring.");
 * sections and keys starting with "X-" are ignored silently. A missing file is no error. Nothing
 * here logs: messages go to the caller's SvdConfLogFn.
 */

#include <stdbool.h>
#include <stddef.h>

#include "basic/macros.h"
#include "logstream.h"
#include "unit.h"

#define SVD_CONF_SYSTEM_PATH "/etc/svd/svd.conf"
#define SVD_CONF_USER_SUFFIX "svd/svd.conf"  /* below $XDG_CONFIG_HOME */
#define SVD_CONF_FILE_SIZE_MAX (64U * 1024U) /* bytes in the file */
#define SVD_CONF_LINE_MAX 199U    /* bytes in a line but its newline (inih's buffer is 200) */
#define SVD_CONF_MESSAGES_MAX 32U /* messages for one file; the rest are summarised */

typedef struct SvdConf {
        char *unit_dir;           /* UnitDirectory=, --units; NULL: the default */
        char *socket_path;        /* ControlSocket=, --socket; NULL: the default */
        bool force_fallback;      /* SpawnMode=fallback, --mode=fallback */
        bool allow_unsandboxed;   /* AllowUnsandboxed=, --allow-unsandboxed */
        LogConsoleMode forward_output; /* ForwardOutput=, --forward-output */
        char *main_service;       /* MainService=, --main-service; NULL: none */
        char *log_group;          /* LogGroup=, --log-group; NULL: the default (adm), "": none */
        char *manage_group;       /* ManageGroup=, --manage-group; NULL or "": none */
        int log_level;            /* LogLevel=, --log-level; -1: not set */
        UnitDefaults unit_defaults; /* DefaultTimeoutStopSec= ... */
} SvdConf;

/* A message about the file: level LOG_ERR for an error, LOG_WARNING for a warning. */
typedef void (*SvdConfLogFn)(int level, const char *message, void *userdata);

/* The built-in settings: what svd does without file and options. */
void svd_conf_init(SvdConf *c);
void svd_conf_done(SvdConf *c);

/* The file svd reads when --config names none: /etc/svd/svd.conf for root, else
 * $XDG_CONFIG_HOME/svd/svd.conf or $HOME/.config/svd/svd.conf; -ENXIO when there is neither
 * variable (with an absolute path). */
int svd_conf_default_path(char **ret);

/* Reads path into c, over what c holds. Returns 1 when the file was read without error, 0 when
 * it does not exist (c unchanged), and -errno when it cannot be read (c unchanged; -EISDIR,
 * -EBADFD not a regular file, -EFBIG larger than SVD_CONF_FILE_SIZE_MAX) or has errors (-EINVAL,
 * -ERANGE, -ENOBUFS: c has the good lines). Every message, the one on a file that cannot be read
 * included, goes to log once. */
int svd_conf_load(SvdConf *c, const char *path, SvdConfLogFn log, void *userdata);
/* The same from memory (tests, fuzzers); path is for messages. 1 or -errno. */
int svd_conf_load_string(SvdConf *c, const char *text, size_t len, const char *path, SvdConfLogFn log,
                         void *userdata);

/* What svd's command line said, each NULL or -1 where it said nothing. */
typedef struct SvdConfOptions {
        const char *unit_dir;     /* --units */
        const char *socket_path;  /* --socket */
        int force_fallback;       /* --mode: 1 fallback, 0 auto */
        int allow_unsandboxed;    /* --allow-unsandboxed[=BOOL] */
        int forward_output;       /* --forward-output[=MODE]: a LogConsoleMode */
        const char *main_service; /* --main-service */
        const char *log_group;    /* --log-group ("" for none) */
        const char *manage_group; /* --manage-group */
        int log_level;            /* --log-level, -v */
} SvdConfOptions;

#define SVD_CONF_OPTIONS_NONE                                                                                \
        (SvdConfOptions) {                                                                                   \
                .force_fallback = -1, .allow_unsandboxed = -1, .forward_output = -1, .log_level = -1         \
        }

/* The options override the file: each one given replaces c's value. -ENOMEM or 0. */
int svd_conf_apply_options(SvdConf *c, const SvdConfOptions *o);

/* Values as the keys and options take them (also for the options, so that both say the same). */
int svd_conf_parse_forward_output(const char *s, LogConsoleMode *ret);
int svd_conf_parse_spawn_mode(const char *s, bool *ret_force_fallback);

/* Calls f for every key of [Manager] ("UnitDirectory", ..., "DefaultTimeoutStopSec"), in the order
 * of the table (the man page and the default file are checked against it). */
void svd_conf_foreach_key(void (*f)(const char *key, void *userdata), void *userdata);
