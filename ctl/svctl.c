/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * svctl: the command-line client of svd. Parses the command line, finds the
 * verb, connects to svd's varlink socket and hands over to the verb. Exit
 * codes follow systemctl: 0 success, 3 a service given to "status" is not
 * running, 4 no such service, 1 anything else (with one line on stderr).
 */

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call.h"
#include "macros.h"
#include "options.h"
#include "parse-util.h"
#include "socket-path.h"
#include "strv.h"
#include "unit-name.h"
#include "varlink-client.h"
#include "verbs.h"


/* start/stop/restart wait for the service: Stop may take TimeoutStopSec=. */
#define TIMEOUT_CHANGE_USEC (90 * USEC_PER_SEC)
#define TIMEOUT_QUERY_USEC (10 * USEC_PER_SEC)

#define VERB_ANY UINT_MAX

const char *arg_socket = NULL;
bool arg_json = false;
int arg_signal = SIGTERM;
uint64_t arg_timeout_usec = 0;
int64_t arg_lines = -1;
bool arg_follow = false;
bool arg_quiet = false;
char **arg_properties = NULL;
bool arg_value = false;
bool arg_now = false;
static bool arg_timeout_set = false;

typedef struct Verb {
        const char *name;
        unsigned min_args; /* names after the verb */
        unsigned max_args;
        bool takes_names;
        uint64_t timeout_usec;
        VerbFunction run;
} Verb;

/* With names, as systemctl reload NAME: the services' ExecReload=; without, as daemon-reload. */
static int verb_reload(VarlinkClient *c, int argc, char **argv) {
        if (argc > 1)
                return verb_reload_services(c, argc, argv);
        return verb_daemon_reload(c, argc, argv);
}

/* --now, as systemctl's: the units are started (stopped) once every one was enabled (disabled). */
static int verb_install_now(VarlinkClient *c, int argc, char **argv, VerbFunction install,
                            VerbFunction change, const char *change_name) {
        int r = install(c, argc, argv);
        if (r != EXIT_SUCCESS || !arg_now)
                return r;
        if (!arg_timeout_set)
                arg_timeout_usec = TIMEOUT_CHANGE_USEC;
        char *verb = argv[0];
        argv[0] = (char *) change_name;
        r = change(c, argc, argv);
        argv[0] = verb;
        return r;
}

static int verb_enable_now(VarlinkClient *c, int argc, char **argv) {
        return verb_install_now(c, argc, argv, verb_enable, verb_start, "start");
}

static int verb_disable_now(VarlinkClient *c, int argc, char **argv) {
        return verb_install_now(c, argc, argv, verb_disable, verb_stop, "stop");
}

static const Verb verbs[] = {
        { "list", 0, 0, false, TIMEOUT_QUERY_USEC, verb_list },
        { "status", 0, VERB_ANY, true, TIMEOUT_QUERY_USEC, verb_status },
        { "start", 1, VERB_ANY, true, TIMEOUT_CHANGE_USEC, verb_start },
        { "stop", 1, VERB_ANY, true, TIMEOUT_CHANGE_USEC, verb_stop },
        { "restart", 1, VERB_ANY, true, TIMEOUT_CHANGE_USEC, verb_restart },
        { "kill", 1, VERB_ANY, true, TIMEOUT_QUERY_USEC, verb_kill },
        { "reset-failed", 0, VERB_ANY, true, TIMEOUT_QUERY_USEC, verb_reset_failed },
        { "info", 0, 0, false, TIMEOUT_QUERY_USEC, verb_info },
        { "logs", 1, 1, true, TIMEOUT_QUERY_USEC, verb_logs },
        { "watch", 0, 0, false, TIMEOUT_QUERY_USEC, verb_watch },
        { "reload", 0, VERB_ANY, true, TIMEOUT_CHANGE_USEC, verb_reload },
        { "daemon-reload", 0, 0, false, TIMEOUT_CHANGE_USEC, verb_daemon_reload },
        { "daemon-reexec", 0, 0, false, TIMEOUT_CHANGE_USEC, verb_daemon_reexec },
        { "is-active", 1, VERB_ANY, true, TIMEOUT_QUERY_USEC, verb_is_active },
        { "is-failed", 1, VERB_ANY, true, TIMEOUT_QUERY_USEC, verb_is_failed },
        { "cat", 1, VERB_ANY, true, TIMEOUT_QUERY_USEC, verb_cat },
        { "show", 1, VERB_ANY, true, TIMEOUT_QUERY_USEC, verb_show },
        { "enable", 1, VERB_ANY, true, TIMEOUT_QUERY_USEC, verb_enable_now },
        { "disable", 1, VERB_ANY, true, TIMEOUT_QUERY_USEC, verb_disable_now },
        { "is-enabled", 1, VERB_ANY, true, TIMEOUT_QUERY_USEC, verb_is_enabled },
        /* Patterns, not names: "web*". */
        { "list-unit-files", 0, VERB_ANY, false, TIMEOUT_QUERY_USEC, verb_list_unit_files },
};

static void help(void) {
        printf("svctl [OPTIONS...] COMMAND [NAME...]\n"
               "\n"
               "Control the svd service supervisor.\n"
               "\n"
               "Commands:\n"
               "  list                 List services (the default command)\n"
               "  status [NAME...]     Show the status of services, of all without NAME\n"
               "  start NAME...        Start services\n"
               "  stop NAME...         Stop services\n"
               "  restart NAME...      Stop services if they run, then start them\n"
               "  kill NAME...         Send a signal (--signal, default SIGTERM) to services\n"
               "  reset-failed [NAME...]\n"
               "                       Forget failures and start limits of services, of all\n"
               "                       without NAME\n"
               "  info                 Show svd's version, kernel and spawn mode\n"
               "  logs NAME            Show a service's output, with time and stream\n"
               "                       (-n N: the last N lines; -f: follow until Ctrl-C)\n"
               "  watch                Print every state change as it happens (Ctrl-C ends)\n"
               "  reload NAME...       Run the services' ExecReload= commands\n"
               "  daemon-reload        Re-read the unit directory; say what was added,\n"
               "                       changed and removed (running services keep running);\n"
               "                       \"reload\" without a NAME does the same\n"
               "  daemon-reexec        Re-execute svd's binary (after an upgrade); every\n"
               "                       service keeps running, untouched\n"
               "  is-active NAME...    Print each service's state as systemd names it; exit 0\n"
               "                       when one is active, else 3\n"
               "  is-failed NAME...    The same; exit 0 when one is failed, else 1\n"
               "  cat NAME...          Show the unit files, each after a line with its path\n"
               "  show NAME...         Show properties with systemd's names, as KEY=VALUE\n"
               "  enable NAME...       Make services start when svd starts (a link in the\n"
               "                       unit directory's default.target.wants/); with --now,\n"
               "                       also start them\n"
               "  disable NAME...      Make services not start when svd starts; with --now,\n"
               "                       also stop them\n"
               "  is-enabled NAME...   Print whether each starts with svd (enabled, disabled,\n"
               "                       static, ...); exit 0 when one is enabled or static\n"
               "  list-unit-files [PATTERN...]\n"
               "                       List unit files and whether they start with svd\n"
               "\n"
               "Options:\n"
               "  -h --help            Show this help\n"
               "     --version         Show the version\n"
               "     --socket=PATH     Talk to svd at PATH (default: $SVD_SOCKET, else\n"
               "                       " SOCKET_PATH_SYSTEM " for root and\n"
               "                       $XDG_RUNTIME_DIR" SOCKET_PATH_USER_SUFFIX " for other users)\n"
               "     --json            Print svd's replies as JSON, one object per line\n"
               "  -s --signal=SIGNAL   Signal for kill, by name or number\n"
               "  -n --lines=N         For logs: show the last N lines (default: all svd keeps)\n"
               "  -f --follow          For logs: keep printing new lines until interrupted\n"
               "  -p --property=NAME   For show: only these properties (repeat it, or NAME,NAME)\n"
               "     --value           For show: print the values without \"NAME=\"\n"
               "  -q --quiet           For is-active, is-failed and is-enabled: print nothing;\n"
               "                       for enable and disable: no list of the links changed\n"
               "     --now             For enable and disable: also start or stop the services\n"
               "     --timeout=SEC     Wait at most SEC for each reply (default: 90s for\n"
               "                       start, stop and restart, 10s otherwise; 0: forever)\n"
               "\n"
               "NAME may be given as \"web\" or \"web.service\".\n"
               "\n"
               "Exit status: 0 on success; 3 when a service given to status is not\n"
               "running; 4 when a service does not exist; 1 on any other failure.\n");
}

/* The socket when --socket is not given; *ret_buf owns the string when one was built. */
static int default_socket(const char **ret, char **ret_buf) {
        const char *e = getenv("SVD_SOCKET");
        int r;

        if (!isempty(e)) {
                *ret = e;
                *ret_buf = NULL;
                return 0;
        }
        r = socket_path_default(geteuid(), ret_buf); /* SO_PEERCRED reports the effective uid */
        if (r < 0)
                return r;
        *ret = *ret_buf;
        return 0;
}

/* Returns > 0 to run a verb, 0 when done (--help, --version), < 0 on a usage error. */
static int parse_argv(int argc, char *argv[]) {
        enum {
                ARG_VERSION = 0x100,
                ARG_SOCKET,
                ARG_JSON,
                ARG_TIMEOUT,
                ARG_VALUE,
                ARG_NOW,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "socket", required_argument, NULL, ARG_SOCKET },
                { "json", no_argument, NULL, ARG_JSON },
                { "timeout", required_argument, NULL, ARG_TIMEOUT },
                { "signal", required_argument, NULL, 's' },
                { "lines", required_argument, NULL, 'n' },
                { "follow", no_argument, NULL, 'f' },
                { "property", required_argument, NULL, 'p' },
                { "value", no_argument, NULL, ARG_VALUE },
                { "quiet", no_argument, NULL, 'q' },
                { "now", no_argument, NULL, ARG_NOW },
                {},
        };
        int c, r;

        /* We print our own one-line messages; getopt's carry argv[0]'s full path. */
        opterr = 0;

        while ((c = getopt_long(argc, argv, ":hs:n:fp:q", options, NULL)) >= 0) {
                switch (c) {
                case 'h':
                        help();
                        return 0;

                case ARG_VERSION:
                        printf("svctl %s\n", SVD_VERSION);
                        return 0;

                case ARG_SOCKET:
                        if (isempty(optarg)) {
                                fprintf(stderr, "svctl: --socket= needs a path.\n");
                                return -EINVAL;
                        }
                        arg_socket = optarg;
                        break;

                case ARG_JSON:
                        arg_json = true;
                        break;

                case 's':
                        r = signal_from_string(optarg, &arg_signal);
                        if (r < 0) {
                                fprintf(stderr, "svctl: Unknown signal '%s'.\n", optarg);
                                return r;
                        }
                        break;

                case 'n': {
                        uint64_t n;
                        if (safe_atou64(optarg, &n) < 0 || n > INT64_MAX) {
                                fprintf(stderr, "svctl: Invalid number of lines '%s'.\n", optarg);
                                return -EINVAL;
                        }
                        arg_lines = (int64_t) n;
                        break;
                }

                case 'f':
                        arg_follow = true;
                        break;

                case 'p': {
                        /* "-p A,B" and "-p A -p B", as systemctl. */
                        const char *p = optarg;
                        for (;;) {
                                size_t n = strcspn(p, ",");
                                if (n > 0) {
                                        char *name = strndup(p, n);
                                        if (!name || strv_consume(&arg_properties, name) < 0) {
                                                fprintf(stderr, "svctl: Out of memory.\n");
                                                return -ENOMEM;
                                        }
                                }
                                if (!p[n])
                                        break;
                                p += n + 1;
                        }
                        if (!arg_properties && !(arg_properties = calloc(1, sizeof(char *)))) {
                                fprintf(stderr, "svctl: Out of memory.\n");
                                return -ENOMEM;
                        }
                        break;
                }

                case ARG_VALUE:
                        arg_value = true;
                        break;

                case 'q':
                        arg_quiet = true;
                        break;

                case ARG_NOW:
                        arg_now = true;
                        break;

                case ARG_TIMEOUT: {
                        uint64_t t;

                        r = parse_sec(optarg, &t);
                        if (r < 0) {
                                fprintf(stderr, "svctl: Failed to parse timeout '%s'.\n", optarg);
                                return r;
                        }
                        arg_timeout_usec = t == 0 ? USEC_INFINITY : t;
                        arg_timeout_set = true;
                        break;
                }

                case ':':
                        fprintf(stderr, "svctl: Option '%s' needs an argument.\n", argv[optind - 1]);
                        return -EINVAL;

                case '?':
                        if (optopt != 0)
                                fprintf(stderr, "svctl: Unknown option '-%c'.\n", optopt);
                        else
                                fprintf(stderr, "svctl: Unknown option '%s'.\n", argv[optind - 1]);
                        return -EINVAL;

                default:
                        assert(!"unexpected option");
                }
        }

        return 1;
}

static const Verb *verb_find(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
                if (streq(verbs[i].name, name))
                        return &verbs[i];
        return NULL;
}

/* "web.service" → "web", in place; refuses names that end up empty. */
static int name_normalize(char *name) {
        unit_name_strip_suffix(name);
        return isempty(name) || streq(name, UNIT_NAME_SUFFIX) ? -EINVAL : 0;
}

static int run(int argc, char *argv[]) {
        static char default_verb[] = "list";
        static char *default_argv[] = { default_verb, NULL };
        _cleanup_(varlink_client_freep) VarlinkClient *client = NULL;
        _cleanup_free_ char *socket_buf = NULL;
        int r;

        /* Like systemctl, no command lists. */
        if (argc == 0) {
                argc = 1;
                argv = default_argv;
        }

        const Verb *verb = verb_find(argv[0]);
        if (!verb) {
                fprintf(stderr, "svctl: Unknown command '%s'. See 'svctl --help'.\n", argv[0]);
                return -EINVAL;
        }

        unsigned n = (unsigned) argc - 1;
        if (n < verb->min_args) {
                fprintf(stderr, "svctl: '%s' needs at least one service name.\n", verb->name);
                return -EINVAL;
        }
        if (n > verb->max_args) {
                fprintf(stderr, "svctl: '%s' takes no arguments.\n", verb->name);
                return -EINVAL;
        }
        if (verb->takes_names)
                for (int i = 1; i < argc; i++)
                        if (name_normalize(argv[i]) < 0) {
                                fprintf(stderr, "svctl: Invalid service name '%s'.\n", argv[i]);
                                return -EINVAL;
                        }

        if (!arg_timeout_set)
                arg_timeout_usec = verb->timeout_usec;

        if (!arg_socket) {
                r = default_socket(&arg_socket, &socket_buf);
                if (r < 0) {
                        fprintf(stderr, "svctl: Out of memory.\n");
                        return r;
                }
        }

        r = varlink_client_connect(arg_socket, &client);
        if (r == -ENOENT || r == -ECONNREFUSED) {
                fprintf(stderr, "svctl: svd is not running at %s\n", arg_socket);
                return r;
        }
        if (r < 0) {
                fprintf(stderr, "svctl: Failed to connect to svd at %s: %s\n", arg_socket, strerror(-r));
                return r;
        }

        return verb->run(client, argc, argv);
}

int main(int argc, char *argv[]) {
        int r;

        /* A fixed hash seed: svctl only parses svd's replies, and reading
         * /dev/urandom for a seed is a measurable part of one `svctl status`. */
        json_object_seed(0x5356444c);
        r = parse_argv(argc, argv);
        if (r <= 0)
                return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;

        r = run(argc - optind, argv + optind);
        arg_properties = strv_free(arg_properties);

        /* A full disk or a closed pipe must not pass for success. */
        if (fflush(stdout) != 0) {
                fprintf(stderr, "svctl: Failed to write output: %s\n", strerror(errno));
                return EXIT_FAILURE;
        }
        if (ferror(stdout)) {
                fprintf(stderr, "svctl: Failed to write output.\n");
                return EXIT_FAILURE;
        }

        return r < 0 ? EXIT_FAILURE : r;
}
