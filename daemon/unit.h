/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Unit files: NAME.service in the unit directory, in systemd's ini syntax
 * with systemd's section and key names (unit-keys.c's table of keys). unit_load_file() turns one file into a
 * Unit or into one error message "FILE:LINE: reason" (a bad value of a known
 * key, an unreadable file, a missing ExecStart=). Unknown sections and keys
 * are warnings "FILE:LINE: Unknown key 'Foo=' in [Service], ignoring." passed
 * to the caller; they never fail the unit. The parser never logs itself.
 *
 * Users and groups are kept as written; they are resolved to numbers by the
 * manager before spawning (never in the child).
 *
 * Syntax as in systemd.syntax(7): '#' and ';' start a comment only at the
 * start of a line (there are no inline comments); a trailing backslash joins
 * the next line; indentation is ignored; a repeated key overrides an earlier
 * one, except Environment= which accumulates; an empty assignment ("Key=")
 * resets a key to its default (Environment= and ExecStart= to empty).
 * Sections and keys starting with "X-" are ignored silently. Lines outside a
 * section, lines without '=' and malformed section headers are errors.
 *
 * Specifiers ("%n", "%i", ...; unit-specifier.h) are resolved at load time; an unknown one fails the
 * unit. In ExecStart= "$NAME", "${NAME}" and "$$" are kept as written: they are substituted from the
 * command's environment each time it starts (env-util.h), as systemd does.
 *
 * Description=, User=, Group= and WorkingDirectory= are valid UTF-8 (they go
 * out in JSON). ExecStart= words and Environment= values may hold any byte
 * but NUL (through \xNN escapes). Messages quote user values with control
 * characters escaped, cut to a bounded length, and are valid UTF-8.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "basic/macros.h"
#include "basic/unit-name.h"
#include "unit-condition.h"
#include "unit-access.h"
#include "unit-sandbox.h"
#include "unit-socket.h"

/* Limits on what a unit file may make svd hold. */
#define UNIT_FILE_SIZE_MAX (1U << 20)  /* bytes in one unit file */
#define UNIT_LINE_MAX 65536U           /* bytes in one logical line */
#define UNIT_ARGV_MAX 4096U            /* words in ExecStart= */
#define UNIT_ENVIRONMENT_FILES_MAX 64U /* EnvironmentFile= paths */
#define UNIT_ENV_MAX 4096U             /* Environment= assignments in one file, overridden ones included */
#define UNIT_NOT_APPLIED_MAX 64U       /* entries of Unit.not_applied; the rest are warned about only */

/* What a unit file describes, told by its name: NAME.service or NAME.socket (unit-socket.h). */
typedef enum UnitKind {
        UNIT_KIND_SERVICE,
        UNIT_KIND_SOCKET,
        _UNIT_KIND_MAX,
        _UNIT_KIND_INVALID = -EINVAL,
} UnitKind;

/* The kind of the unit file at path: a path ending in ".socket" is a socket unit, any other a
 * service. */
UnitKind unit_kind_from_path(const char *path);

typedef enum RestartPolicy {
        RESTART_NO,
        RESTART_ON_FAILURE,
        RESTART_ALWAYS,
        RESTART_ON_SUCCESS,
        RESTART_ON_ABNORMAL,
        RESTART_ON_WATCHDOG,
        RESTART_ON_ABORT,
        _RESTART_POLICY_MAX,
        _RESTART_POLICY_INVALID = -EINVAL,
} RestartPolicy;

const char *restart_policy_to_string(RestartPolicy p);
RestartPolicy restart_policy_from_string(const char *s);

/* Type=, with systemd's meanings (systemd.service(5)): when the start of a
 * service is complete. simple: once the process is created (Start still
 * replies only once it has exec'd); exec: once it has exec'd; notify: once
 * it sends READY=1 on $NOTIFY_SOCKET; oneshot: once it has exited
 * successfully; forking: once the command has exited successfully, leaving
 * its daemon behind, whose pid PIDFile= names or svd guesses (the one
 * process left); idle: as simple, but the command starts only once the other
 * starts and stops under way have been dispatched (at the latest after 5 s); dbus:
 * once it has acquired BusName= on the system bus. */
typedef enum ServiceType {
        SERVICE_TYPE_SIMPLE,
        SERVICE_TYPE_EXEC,
        SERVICE_TYPE_NOTIFY,
        SERVICE_TYPE_ONESHOT,
        SERVICE_TYPE_FORKING,
        SERVICE_TYPE_IDLE,
        SERVICE_TYPE_DBUS,
        _SERVICE_TYPE_MAX,
        _SERVICE_TYPE_INVALID = -EINVAL,
} ServiceType;

const char *service_type_to_string(ServiceType t);
ServiceType service_type_from_string(const char *s);

/* SuccessAction=, FailureAction=, StartLimitAction= (systemd.unit(5)): what svd does when the unit
 * stops and is inactive, fails, or hits its start limit. exit: stop every service and exit with
 * the action's exit status; exit-force: the same without waiting for the services to stop (they
 * are killed). reboot, poweroff, halt: as exit, then reboot(2), with svd as PID 1 only (of the
 * machine or of a container, whose engine sees the PID namespace's init killed by SIGHUP or
 * SIGINT); -force without waiting for the services; -immediate: reboot(2) at once. */
typedef enum UnitAction {
        UNIT_ACTION_NONE,
        UNIT_ACTION_EXIT,
        UNIT_ACTION_EXIT_FORCE,
        UNIT_ACTION_REBOOT,
        UNIT_ACTION_REBOOT_FORCE,
        UNIT_ACTION_REBOOT_IMMEDIATE,
        UNIT_ACTION_POWEROFF,
        UNIT_ACTION_POWEROFF_FORCE,
        UNIT_ACTION_POWEROFF_IMMEDIATE,
        UNIT_ACTION_HALT,
        UNIT_ACTION_HALT_FORCE,
        UNIT_ACTION_HALT_IMMEDIATE,
        _UNIT_ACTION_MAX,
        _UNIT_ACTION_INVALID = -EINVAL,
} UnitAction;

const char *unit_action_to_string(UnitAction a);
UnitAction unit_action_from_string(const char *s);
/* The reboot(2) command of an action (RB_AUTOBOOT, RB_POWER_OFF, RB_HALT_SYSTEM), 0 for none and exit. */
int unit_action_reboot_command(UnitAction a);
bool unit_action_is_force(UnitAction a);
bool unit_action_is_immediate(UnitAction a);

/* NotifyAccess= (systemd.service(5)): whose sd_notify() messages are believed. main: the main
 * process's; exec: the main process's and the command's (svd runs no other command of a service);
 * all: any process of the service; none: nobody's. Unset: main for Type=notify or with
 * WatchdogSec=, none otherwise (unit_notify_access()). */
typedef enum NotifyAccess {
        NOTIFY_ACCESS_NONE,
        NOTIFY_ACCESS_MAIN,
        NOTIFY_ACCESS_EXEC,
        NOTIFY_ACCESS_ALL,
        _NOTIFY_ACCESS_MAX,
        _NOTIFY_ACCESS_INVALID = -EINVAL,
} NotifyAccess;

const char *notify_access_to_string(NotifyAccess a);
NotifyAccess notify_access_from_string(const char *s);

/* RuntimeDirectory=, StateDirectory=, CacheDirectory=, LogsDirectory=, ConfigurationDirectory=
 * (systemd.exec(5)): directories below /run, /var/lib, /var/cache, /var/log, /etc (for a svd that
 * is not root: $XDG_RUNTIME_DIR, $XDG_STATE_HOME, $XDG_CACHE_HOME, $XDG_STATE_HOME/log,
 * $XDG_CONFIG_HOME), created before the service starts (service-dirs.c). */
typedef enum ExecDirectoryType {
        EXEC_DIRECTORY_RUNTIME,
        EXEC_DIRECTORY_STATE,
        EXEC_DIRECTORY_CACHE,
        EXEC_DIRECTORY_LOGS,
        EXEC_DIRECTORY_CONFIGURATION,
        _EXEC_DIRECTORY_TYPE_MAX,
        _EXEC_DIRECTORY_TYPE_INVALID = -EINVAL,
} ExecDirectoryType;

#define UNIT_EXEC_DIRECTORIES_MAX 64U /* names in one directory key */

/* RuntimeDirectoryPreserve=: no (removed when the service's processes are gone, restarts
 * included), yes (kept), restart (kept across restarts, removed when it stops for good). */
typedef enum ExecPreserve {
        EXEC_PRESERVE_NO,
        EXEC_PRESERVE_YES,
        EXEC_PRESERVE_RESTART,
        _EXEC_PRESERVE_MAX,
        _EXEC_PRESERVE_INVALID = -EINVAL,
} ExecPreserve;

/* Dependencies between units, by name (without ".service"). */
typedef enum UnitDependency {
        UNIT_REQUIRES,
        UNIT_WANTS,
        UNIT_AFTER,
        UNIT_BEFORE,
        _UNIT_DEPENDENCY_MAX,
        _UNIT_DEPENDENCY_INVALID = -EINVAL,
} UnitDependency;

const char *unit_dependency_to_string(UnitDependency d); /* "Requires", ... */

#define UNIT_DEPENDENCIES_MAX 256U /* names in all assignments of one dependency key in one file */

/* [Unit] relations that order nothing (deps-unit.c), by name (without ".service"), as in
 * systemd.unit(5): Requisite= must be active when this unit starts; BindsTo= (which implies
 * Requires=, its names are in UNIT_REQUIRES too) stops this unit when that one stops; PartOf=
 * passes that one's stops and restarts on to this unit; Conflicts= starting either stops the
 * other; OnFailure= is started when this unit fails. */
typedef enum UnitRelation {
        UNIT_REQUISITE,
        UNIT_BINDS_TO,
        UNIT_PART_OF,
        UNIT_CONFLICTS,
        UNIT_ON_FAILURE,
        _UNIT_RELATION_MAX,
        _UNIT_RELATION_INVALID = -EINVAL,
} UnitRelation;

/* StandardOutput=/StandardError=. log: pipe into svd (ring buffer, `svctl
 * logs`); file:/append: the same, and svd writes the lines to PATH with
 * size-based rotation (file: truncates at each start); null: /dev/null;
 * inherit: StandardOutput=inherit is svd's own stdout; StandardError=inherit
 * (the default) is whatever stdout gets, as in systemd, and svd's own stderr
 * when that is inherit too. "journal" is taken as "log". socket: the connection of a socket-activated
 * service (StandardInput=socket); the default of StandardOutput= when StandardInput=socket, as in
 * systemd.exec(5). */
typedef enum LogOutput {
        LOG_OUTPUT_LOG,
        LOG_OUTPUT_NULL,
        LOG_OUTPUT_INHERIT,
        LOG_OUTPUT_FILE,
        LOG_OUTPUT_APPEND,
        LOG_OUTPUT_TTY, /* TTYPath= (the child opens it) */
        LOG_OUTPUT_SOCKET, /* the socket of StandardInput=socket (service-exec.c) */
        _LOG_OUTPUT_MAX,
        _LOG_OUTPUT_INVALID = -EINVAL,
} LogOutput;

const char *log_output_to_string(LogOutput o);

/* StandardInput= (systemd.exec(5)): null, or the terminal TTYPath= as the controlling terminal:
 * tty and tty-fail fail the start when another session has it (svd does not wait for it to be
 * released), tty-force takes it away from that session. socket: the connection of an Accept=yes
 * socket unit's instance, or the one listening socket of an Accept=no socket unit that has exactly
 * one; any other start fails. */
typedef enum ExecInput {
        EXEC_INPUT_NULL,
        EXEC_INPUT_TTY,
        EXEC_INPUT_TTY_FORCE,
        EXEC_INPUT_TTY_FAIL,
        EXEC_INPUT_SOCKET,
        _EXEC_INPUT_MAX,
        _EXEC_INPUT_INVALID = -EINVAL,
} ExecInput;

/* ExecStart= prefixes (systemd.service(5), "Command lines"), any combination in front of the path. */
typedef enum ExecFlags {
        EXEC_IGNORE_FAILURE = 1U << 0, /* "-": a failed exit counts as success */
        EXEC_ARGV0 = 1U << 1,          /* "@": the second word is argv[0] (Unit.exec_argv0) */
        EXEC_NO_ENV_EXPAND = 1U << 2,  /* ":": no variable substitution */
        EXEC_PRIVILEGED = 1U << 3,     /* "+": no User=/Group=/SupplementaryGroups=, capability or
                                        * NoNewPrivileges= restriction */
        EXEC_NO_SETUID = 1U << 4,      /* "!": no User=/Group=/SupplementaryGroups= */
        EXEC_AMBIENT_FALLBACK = 1U << 5, /* "!!": as "!" only where ambient capabilities are missing,
                                          * which every kernel svd runs on has: no effect */
} ExecFlags;

/* One command line of an Exec*= key, as ExecStart= is read (prefixes, quoting, specifiers). */
typedef struct ExecCommand {
        char **argv;     /* argv[0] is the path or name as written, prefixes removed; variables not yet
                          * substituted */
        ExecFlags flags;
        char *argv0;     /* with "@": argv[0] for the command, argv[0] above being the path */
} ExecCommand;

/* The command keys of [Service], in the order a start and a stop run them (systemd.service(5)). */
typedef enum UnitExec {
        UNIT_EXEC_START_PRE,
        UNIT_EXEC_START,
        UNIT_EXEC_START_POST,
        UNIT_EXEC_RELOAD,
        UNIT_EXEC_STOP,
        UNIT_EXEC_STOP_POST,
        _UNIT_EXEC_MAX,
        _UNIT_EXEC_INVALID = -EINVAL,
} UnitExec;

const char *unit_exec_to_string(UnitExec e); /* "ExecStartPre", ... */

#define UNIT_EXEC_COMMANDS_MAX 256U /* command lines of one Exec*= key in one file */

typedef struct ExecCommandList {
        ExecCommand *commands;
        size_t n;
} ExecCommandList;

/* SuccessExitStatus=, RestartPreventExitStatus=, RestartForceExitStatus=: exit statuses 0-255 and
 * signals (systemd.service(5)). */
typedef struct ExitStatusSet {
        uint64_t status[4]; /* bit n: exit status n */
        uint64_t signals;   /* bit n: signal n (1-64) - 1 */
} ExitStatusSet;

/* Parses a space-separated list of numbers 0-255 and signal names (with or without "SIG") into set,
 * adding to it; an empty value empties it. -EINVAL with *ret_bad the first word that is neither (the
 * caller frees it). */
int exit_status_set_parse(const char *value, ExitStatusSet *set, char **ret_bad);
bool exit_status_set_has_status(const ExitStatusSet *set, int status);
bool exit_status_set_has_signal(const ExitStatusSet *set, int sig);
bool exit_status_set_is_empty(const ExitStatusSet *set);

/* KillMode= (systemd.kill(5)): which processes a stop signals. */
typedef enum KillMode {
        KILL_MODE_CONTROL_GROUP, /* every process of the service */
        KILL_MODE_MIXED,         /* KillSignal= to the main process, SIGKILL to all at the end */
        KILL_MODE_PROCESS,       /* the main process only */
        KILL_MODE_NONE,          /* none: only ExecStop= stops it */
        _KILL_MODE_MAX,
        _KILL_MODE_INVALID = -EINVAL,
} KillMode;

const char *kill_mode_to_string(KillMode m);
KillMode kill_mode_from_string(const char *s);

typedef struct Unit {
        UnitKind kind;
        char *name;        /* "web" for web.service and web.socket */
        char *path;        /* file it was loaded from */
        char *description; /* may be NULL */
        char **documentation; /* Documentation= URIs, NULL-terminated */

        /* ExecStartPre= ... ExecStopPost=, each a list of commands in the order written. An empty
         * assignment empties a list. */
        ExecCommandList exec[_UNIT_EXEC_MAX];
        /* The first ExecStart= (exec[UNIT_EXEC_START].commands[0]), which is all of it but for
         * Type=oneshot: aliases into that list, not owned. NULL for a Type=oneshot without ExecStart=
         * (it has ExecStop=). */
        char **exec_start;
        ExecFlags exec_start_flags;
        char *exec_argv0;
        char *working_directory; /* absolute path; NULL: "/" (or the home directory, see below) */
        bool working_directory_home; /* WorkingDirectory=~ (working_directory is then NULL) */
        bool working_directory_missing_ok; /* WorkingDirectory=-/path */
        char **environment; /* NULL-terminated "K=V" list, later assignments of a key win */
        char **environment_files; /* EnvironmentFile=: absolute paths, "-/path" when missing is fine */

        char *user;  /* as written: a name or a number; NULL = svd's own (with DynamicUser=: the name
                      * derived from the unit's, see unit_dynamic_user_name()) */
        char *group; /* as written; NULL = the user's primary group */
        /* DynamicUser=: a user allocated for each run (dynamic-user.h) unless User= names a static one;
         * implies ProtectSystem=strict, ProtectHome=read-only (where it was no), PrivateTmp=,
         * RemoveIPC=, NoNewPrivileges=, RestrictSUIDSGID=, set in the fields of those keys at load. */
        bool dynamic_user;
        /* Personality= (personality(2)): UNIT_PERSONALITY_KEEP, or PER_LINUX / PER_LINUX32 for the
         * machine's own architecture and its 32-bit one; others fail the unit. */
        unsigned long personality;

        RestartPolicy restart;
        uint64_t restart_usec;      /* RestartSec=, default 100 ms like systemd */
        unsigned restart_steps;     /* RestartSteps=, 0 = no growing back-off */
        uint64_t restart_max_delay_usec; /* RestartMaxDelaySec=, USEC_INFINITY = unset */
        uint64_t start_limit_interval_usec; /* StartLimitIntervalSec=, default 10 s; 0 = no limit */
        unsigned start_limit_burst;         /* StartLimitBurst=, default 5; 0 = no limit */

        ServiceType type;
        bool type_set;                /* Type= was given (without it and without ExecStart=: oneshot) */
        UnitAction success_action;    /* SuccessAction= */
        UnitAction failure_action;    /* FailureAction= */
        UnitAction start_limit_action; /* StartLimitAction= */
        int success_action_exit_status; /* SuccessActionExitStatus=, -1: the main process's */
        int failure_action_exit_status; /* FailureActionExitStatus=, -1: the main process's */
        bool remain_after_exit;       /* RemainAfterExit= (oneshot: "exited" after success) */
        bool ignore_sigpipe;          /* IgnoreSIGPIPE= (default yes): SIGPIPE ignored in the service */
        char *pid_file;               /* PIDFile=: absolute (a relative path is taken below /run) */
        NotifyAccess notify_access;   /* NotifyAccess=; _NOTIFY_ACCESS_INVALID: unset */
        char *bus_name;               /* BusName=: a well-known D-Bus name (Type=dbus needs it) */
        char **exec_directories[_EXEC_DIRECTORY_TYPE_MAX]; /* RuntimeDirectory= ...: relative paths */
        int exec_directory_mode[_EXEC_DIRECTORY_TYPE_MAX]; /* RuntimeDirectoryMode= ...: default 0755 */
        ExecPreserve runtime_directory_preserve;          /* RuntimeDirectoryPreserve= */
        uint64_t timeout_start_usec;  /* TimeoutStartSec=, default 90 s; USEC_INFINITY for none */
        uint64_t watchdog_usec;       /* WatchdogSec=, 0 = off */
        char **dependencies[_UNIT_DEPENDENCY_MAX]; /* Requires= Wants= After= Before=, NULL-terminated */
        UnitConditions conditions;  /* Condition*= and Assert*=, checked at each start (unit-condition.h) */
        char **relations[_UNIT_RELATION_MAX]; /* Requisite= BindsTo= PartOf= Conflicts= OnFailure= */
        char **aliases;             /* [Install] Alias= names of this unit (without ".service") */
        bool default_dependencies;  /* DefaultDependencies= (svd has no implicit dependencies to add) */
        int kill_signal;            /* KillSignal=, default SIGTERM */
        KillMode kill_mode;         /* KillMode=, default control-group */
        ExitStatusSet success_exit_status;  /* SuccessExitStatus= */
        ExitStatusSet restart_prevent_exit_status; /* RestartPreventExitStatus= */
        ExitStatusSet restart_force_exit_status;   /* RestartForceExitStatus= */
        uint64_t timeout_stop_usec; /* TimeoutStopSec=, default 90 s; USEC_INFINITY for "infinity" */
        bool no_new_privileges;

        bool wanted_by_default; /* [Install] WantedBy= or RequiredBy= default.target or multi-user.target:
                                 * svd has no targets, and for a service both mean "start when the system
                                 * is up" (unit-install.h says what else decides a start at start-up) */
        char **wanted_by;       /* [Install] WantedBy=, RequiredBy=: every target as written, those svd does */
        char **required_by;     /*   not start too (they make `svctl enable` refuse), in order, no repeats */
        char **also;            /* [Install] Also=: units enabled and disabled with this one (without ".service") */

        /* Credentials and sandboxing (all applied in the child, prepared by svd). */
        char **supplementary_groups;      /* SupplementaryGroups=, names or numbers */
        uint64_t capability_bounding_set; /* CapabilityBoundingSet=, bit n = capability n */
        uint64_t ambient_capabilities;    /* AmbientCapabilities= */
        int umask;                        /* UMask=, -1 = 0022 */
        struct rlimit_setting {
                bool set;
                uint64_t soft, hard; /* RLIM_INFINITY for "infinity" */
        } limit_nofile, limit_nproc, limit_core;
        int private_pids; /* PrivatePIDs=: -1 = default (unit_private_pids()), 0, 1 */
        UnitSandbox sandbox; /* the sandboxing keys (unit-sandbox.h) */
        UnitAccess access;   /* the device and IP access lists its cgroup enforces (unit-access.h) */
        /* What of the file svd does not apply, each with its warning at load time: "Key=" for keys
         * svd ignores (unknown ones and those it does not support yet; the sandboxing keys of
         * sandbox.not_applied at the end), "Key=value" for values it ignores ("After=network.target").
         * In order of appearance, without repeats. */
        char **not_applied;

        /* cgroup v2 resource control (when svd has a delegated subtree). */
        uint64_t memory_max; /* MemoryMax=, bytes; UINT64_MAX = unset/infinity */
        uint64_t tasks_max;  /* TasksMax=; UINT64_MAX = unset/infinity */
        uint64_t cpu_weight; /* CPUWeight=, 1..10000; 0 = unset */

        /* StandardOutput=/StandardError= (logstream.h): where the output goes. */
        LogOutput std_output, std_error; /* defaults: log, inherit (= as stdout, as in systemd) */
        char *std_output_path, *std_error_path; /* for file:/append: */
        ExecInput std_input;      /* StandardInput= */
        char *tty_path;           /* TTYPath=; NULL: /dev/console */
        uint64_t log_rotate_size; /* LogRotateSize=, bytes; 0 = never rotate */
        unsigned log_rotate_keep; /* LogRotateKeep=, rotated files kept */

        /* A socket unit's [Socket] (kind UNIT_KIND_SOCKET); a service's [Service] keys are the fields
         * above, which a socket unit leaves at their defaults. */
        UnitSocket socket;

        /* The bytes the unit was parsed from: a re-exec hands them to the next
         * svd (reexec.h), which parses the same definition again rather than
         * a file that may have changed on disk since. */
        char *source;
        size_t source_len;
} Unit;

/*
 * What a unit has for the keys its file does not set, and goes back to on an empty assignment:
 * svd's built-in defaults (systemd's), or others that the manager's configuration gives (svd.conf's
 * Default*= keys, svd(8)). The loader takes them as a parameter and knows nothing of where they
 * came from. Each field is the field of Unit of the same name.
 */
typedef struct UnitDefaults {
        uint64_t timeout_start_usec;        /* TimeoutStartSec=, 90 s */
        uint64_t timeout_stop_usec;         /* TimeoutStopSec=, 90 s */
        uint64_t restart_usec;              /* RestartSec=, 100 ms */
        uint64_t start_limit_interval_usec; /* StartLimitIntervalSec=, 10 s */
        unsigned start_limit_burst;         /* StartLimitBurst=, 5 */
        /* LimitNOFILE=, LimitNPROC=, LimitCORE=: unset (NOFILE: svd's soft 1024 and its hard limit,
         * the others svd's own) */
        struct rlimit_setting limit_nofile, limit_nproc, limit_core;
} UnitDefaults;

/* The built-in defaults. */
void unit_defaults_init(UnitDefaults *d);
/* Whether key (as in a unit file: "TimeoutStopSec") has a default in UnitDefaults. */
bool unit_defaults_has_key(const char *key);
/* Sets the default of unit key `key` ("TimeoutStopSec", "LimitNOFILE", ...; unit_defaults_has_key())
 * from value, parsed as a unit file's value of that key is; an empty value restores the built-in
 * default. On a bad value returns -EINVAL or -ERANGE and, when ret_error is non-NULL, a malloc'd
 * "PATH:LINE: Invalid value 'VALUE' for NAME=: REASON", where NAME is the key as the caller's file
 * names it ("DefaultTimeoutStopSec"). d is unchanged then. */
int unit_defaults_set(UnitDefaults *d, const char *key, const char *value, const char *path, unsigned line,
                      const char *name, char **ret_error);

#define UNIT_CAPABILITIES_ALL UINT64_MAX
#define UNIT_PERSONALITY_KEEP 0xffffffffUL /* personality(2)'s "query": no change */

/* The dynamic user's name for unit `name` when User= gives none (systemd.exec(5), DynamicUser=): the
 * name itself when it is a valid user name (a letter or '_', then letters, digits, '_' and '-', at
 * most 31 bytes), else "_du" and 16 hex digits of a hash of it. */
int unit_dynamic_user_name(const char *name, char **ret);

/* Whether the unit's sandboxing keys make no_new_privs implied for a service that lacks
 * CAP_SYS_ADMIN (systemd.exec(5), NoNewPrivileges=: SystemCallFilter=, SystemCallArchitectures=,
 * RestrictAddressFamilies=, RestrictNamespaces=, PrivateDevices=, ProtectKernelModules=,
 * ProtectKernelLogs=, ProtectKernelTunables=, ProtectClock=, ProtectHostname=,
 * MemoryDenyWriteExecute=, RestrictRealtime=, RestrictSUIDSGID=, LockPersonality=). DynamicUser=
 * sets NoNewPrivileges= itself. */
bool unit_implies_no_new_privileges(const Unit *u);

/* A warning about a unit file; the unit still loads. */
typedef void (*UnitWarningFn)(const char *message, void *userdata);

/* Loads path as unit `name` (the file name without ".service" or ".socket"), with defaults for the
 * keys it does not set (NULL: the built-in ones); the kind is unit_kind_from_path(path): a socket
 * unit has [Socket] in place of [Service] and at least one Listen*= key, a service has [Service] and
 * a command. On success returns 0 and *ret. On failure returns -errno and, when
 * ret_error is non-NULL, a malloc'd message naming file, line and reason
 * (NULL only if memory ran out). Errors: -EINVAL bad syntax or value,
 * -EOPNOTSUPP a systemd value svd does not support, -ENOBUFS a line longer
 * than UNIT_LINE_MAX, -EFBIG a file larger than UNIT_FILE_SIZE_MAX, -E2BIG
 * too many words, -EISDIR/-EBADFD not a regular file, or open()/read() errors.
 * A FIFO or device in the unit directory is refused without blocking. */
int unit_load_file(const char *path, const char *name, const UnitDefaults *defaults, UnitWarningFn warn,
                   void *userdata, Unit **ret, char **ret_error);

/* Same, from memory (tests, fuzzers). `path` is only used in messages. */
int unit_load_string(const char *text, size_t len, const char *path, const char *name,
                     const UnitDefaults *defaults, UnitWarningFn warn, void *userdata, Unit **ret,
                     char **ret_error);

Unit *unit_free(Unit *u);
DEFINE_TRIVIAL_CLEANUP_FUNC(Unit *, unit_free);

/* Whether the service gets a PID namespace of its own: PrivatePIDs=, whose default is yes for
 * Type=forking (so that its daemon, a grandchild, dies with svd: see service-forking.c) and no
 * otherwise. */
bool unit_private_pids(const Unit *u);

/* Whether svd starts what target wants at start-up: default.target, and multi-user.target (what
 * "the system has started" means for most services, and what units usually name). svd has no other
 * targets. */
bool unit_target_is_started(const char *target);

/* NotifyAccess= in force: as set, else main for Type=notify or WatchdogSec=, else none. */
NotifyAccess unit_notify_access(const Unit *u);

/* The delay before automatic restart number n_next (1 for the first) under
 * RestartSec=, RestartSteps= and RestartMaxDelaySec=: systemd's exponential
 * interpolation from RestartSec= to RestartMaxDelaySec= in RestartSteps=
 * steps (service_restart_usec_next() in systemd's service.c). */
uint64_t unit_restart_delay_usec(const Unit *u, unsigned n_next);
