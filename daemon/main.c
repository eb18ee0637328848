/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svd: argv, logging, then manager_new → manager_startup → loop. */
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/parse-util.h"
#include "basic/socket-path.h"
#include "basic/strv.h"
#include "svd-conf.h"
#include "svd-log.h"
#include "manager.h"
#include "spawn.h"
#include "varlink-manager.h"
#include "version.h"

static void help(void) {
        printf("svd [OPTIONS]\n\n"
               "Supervise the services described by the unit files in a directory.\n\n"
               "  -h --help            Show this help\n"
               "     --version         Show the version\n"
               "     --config=PATH     Read the configuration from PATH (default " SVD_CONF_SYSTEM_PATH "\n"
               "                       for root, $XDG_CONFIG_HOME/" SVD_CONF_USER_SUFFIX " otherwise;\n"
               "                       its [Manager] keys are in svd(8); the options override it)\n"
               "     --no-config       Read no configuration file\n"
               "  -u --units DIR       Unit directory (default /etc/svd/units for root,\n"
               "                       $XDG_CONFIG_HOME/svd/units otherwise)\n"
               "  -s --socket PATH     Control socket (default " SOCKET_PATH_SYSTEM " for root,\n"
               "                       $XDG_RUNTIME_DIR" SOCKET_PATH_USER_SUFFIX " otherwise)\n"
               "     --mode=fallback   Do not use CLONE_PIDFD_AUTOKILL even if the kernel has it\n"
               "                       (=auto: use it where the kernel has it, the default)\n"
               "     --log-group=GROUP Members may read every service's output (default: adm,\n"
               "                       where it exists; empty: none)\n"
               "     --manage-group=GROUP  Members may start, stop, restart, kill, reset-failed,\n"
               "                       reload, enable and disable (default: none)\n"
               "     --allow-unsandboxed\n"
               "                       Run units whose sandboxing keys svd does not enforce,\n"
               "                       with a warning (default: such a unit fails to load; =no)\n"
               "     --forward-output  Also write services' output to svd's stdout/stderr,\n"
               "                       one 'NAME: LINE' each (=time: the time first; =no: not)\n"
               "     --main-service=NAME\n"
               "                       Start NAME; when it has ended for good, stop the others\n"
               "                       and exit with its exit status (a container's entrypoint)\n"
               "     --log-level=LEVEL Log up to LEVEL: emerg ... info (the default), debug\n"
               "  -v --verbose         Log debug messages (--log-level=debug)\n"
               "     --state-version   Show the newest re-exec state version this svd reads\n");
}

/* The binary this process runs, as a path on disk: a re-exec runs the file
 * there now, which after an upgrade is the new one. */
static char *exe_path(void) {
        char buf[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
        if (n <= 0)
                return NULL;
        buf[n] = 0;
        return strdup(buf);
}

/* Makes sure fds 0-2 are open, so that no pipe or socket of svd's ever
 * lands on them and gets handed to a service as its stdio. */
static int ensure_std_fds(void) {
        for (int fd = 0; fd < 3; fd++) {
                if (fcntl(fd, F_GETFD) >= 0)
                        continue;
                int n = open("/dev/null", O_RDWR);
                if (n < 0)
                        return -errno;
                if (n != fd)
                        return -EBADF;
        }
        return 0;
}

static void on_conf_message(int level, const char *message, void *userdata) {
        log_full(level, "%s", message);
}

/* Reads the configuration file into conf: --config's, else the default one (where there is one).
 * 0, or -errno after its messages were logged. */
static int conf_load(SvdConf *conf, const char *path) {
        _cleanup_free_ char *def = NULL;
        int r;

        if (!path) {
                r = svd_conf_default_path(&def);
                if (r == -ENXIO) {
                        log_debug("Neither $XDG_CONFIG_HOME nor $HOME is set: no configuration file.");
                        return 0;
                }
                if (r < 0)
                        return log_oom();
                path = def;
        }
        r = svd_conf_load(conf, path, on_conf_message, NULL);
        if (r == 0) {
                /* A missing file is no error, but one that --config names is. */
                if (!def)
                        return log_error_errno(ENOENT, "Failed to read '%s': %m", path);
                log_debug("No configuration file '%s'.", path);
        } else if (r > 0)
                log_debug("Read the configuration file '%s'.", path);
        return r < 0 ? r : 0;
}

/* The configuration as the new svd of a re-exec will read it (ManagerConfig.reexec_check): its
 * first error refuses the re-exec. Warnings are the new svd's to log. */
typedef struct ConfCheck {
        const char *path; /* --config's; NULL: the default */
        char *first_error;
} ConfCheck;

static void on_conf_check_message(int level, const char *message, void *userdata) {
        ConfCheck *check = userdata;
        if (level == LOG_ERR && !check->first_error)
                check->first_error = strdup(message);
}

static int conf_check(char **ret_error, void *userdata) {
        ConfCheck *check = userdata;
        _cleanup_free_ char *def = NULL;
        const char *path = check->path;
        SvdConf conf;
        int r;

        if (!path) {
                r = svd_conf_default_path(&def);
                if (r == -ENXIO)
                        return 0;
                if (r < 0)
                        return r;
                path = def;
        }
        svd_conf_init(&conf);
        check->first_error = NULL;
        r = svd_conf_load(&conf, path, on_conf_check_message, check);
        svd_conf_done(&conf);
        if (r == 0 && !def)
                r = -ENOENT;
        if (r >= 0)
                return 0;
        if (check->first_error)
                r = asprintf(ret_error, "%s (the new svd would not start with it)", check->first_error) < 0
                            ? -ENOMEM
                            : r;
        else if (asprintf(ret_error, "Failed to read '%s': %s", path, strerror(-r)) < 0)
                r = -ENOMEM;
        free(check->first_error);
        check->first_error = NULL;
        return r;
}

int main(int argc, char *argv[]) {
        /* svd's guard (guard.h), started by svd itself: nothing of the rest runs in it. */
        if (argc == 2 && streq(argv[1], "--guard"))
                return guard_main();

        enum {
                ARG_VERSION = 0x100,
                ARG_MODE,
                ARG_STATE_VERSION,
                ARG_DESERIALIZE,
                ARG_LOG_GROUP,
                ARG_MANAGE_GROUP,
                ARG_ALLOW_UNSANDBOXED,
                ARG_MAIN_SERVICE,
                ARG_FORWARD,
                ARG_CONFIG,
                ARG_NO_CONFIG,
                ARG_LOG_LEVEL,
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },     { "version", no_argument, NULL, ARG_VERSION },
                { "units", required_argument, NULL, 'u' }, { "socket", required_argument, NULL, 's' },
                { "mode", required_argument, NULL, ARG_MODE }, { "verbose", no_argument, NULL, 'v' },
                { "state-version", no_argument, NULL, ARG_STATE_VERSION },
                { "deserialize", required_argument, NULL, ARG_DESERIALIZE },
                { "log-group", required_argument, NULL, ARG_LOG_GROUP },
                { "manage-group", required_argument, NULL, ARG_MANAGE_GROUP },
                { "allow-unsandboxed", optional_argument, NULL, ARG_ALLOW_UNSANDBOXED },
                { "main-service", required_argument, NULL, ARG_MAIN_SERVICE },
                { "forward-output", optional_argument, NULL, ARG_FORWARD },
                { "config", required_argument, NULL, ARG_CONFIG },
                { "no-config", no_argument, NULL, ARG_NO_CONFIG },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                {},
        };
        ManagerConfig config = {};
        SvdConfOptions opts = SVD_CONF_OPTIONS_NONE;
        _cleanup_(svd_conf_done) SvdConf conf = {};
        ConfCheck check = {};
        const char *conf_path = NULL;
        bool no_conf = false;
        _cleanup_strv_free_ char **args = NULL;
        _cleanup_free_ char *exe = NULL;
        _cleanup_(manager_freep) Manager *m = NULL;
        int c, r;

        log_open();
        svd_conf_init(&conf);
        while ((c = getopt_long(argc, argv, "hu:s:v", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return EXIT_SUCCESS;
                case ARG_VERSION:
                        printf("svd %s\n", svd_version);
                        return EXIT_SUCCESS;
                case ARG_STATE_VERSION:
                        printf("%u\n", svd_state_version);
                        return EXIT_SUCCESS;
                case ARG_DESERIALIZE: {
                        char *end;
                        errno = 0;
                        long fd = strtol(optarg, &end, 10);
                        if (errno != 0 || *end || fd < 3 || fd > INT_MAX || fcntl((int) fd, F_GETFD) < 0) {
                                log_error("Invalid --deserialize '%s': not an open fd.", optarg);
                                return EXIT_FAILURE;
                        }
                        config.state_fd = (int) fd;
                        break;
                }
                /* The last of --config and --no-config wins. */
                case ARG_CONFIG:
                        conf_path = optarg;
                        no_conf = false;
                        break;
                case ARG_NO_CONFIG:
                        conf_path = NULL;
                        no_conf = true;
                        break;
                case 'u':
                        opts.unit_dir = optarg;
                        break;
                case 's':
                        opts.socket_path = optarg;
                        break;
                case ARG_MODE: {
                        bool fallback;
                        if (svd_conf_parse_spawn_mode(optarg, &fallback) < 0) {
                                log_error("Unknown --mode '%s' (expected 'auto' or 'fallback').", optarg);
                                return EXIT_FAILURE;
                        }
                        opts.force_fallback = fallback;
                        break;
                }
                case ARG_ALLOW_UNSANDBOXED: {
                        bool b = true;
                        if (optarg && parse_boolean(optarg, &b) < 0) {
                                log_error("Invalid --allow-unsandboxed '%s' (expected a boolean).", optarg);
                                return EXIT_FAILURE;
                        }
                        opts.allow_unsandboxed = b;
                        break;
                }
                case 'v':
                        opts.log_level = LOG_DEBUG;
                        break;
                case ARG_LOG_LEVEL:
                        opts.log_level = log_level_from_string(optarg);
                        if (opts.log_level < 0) {
                                log_error("Unknown --log-level '%s' (expected emerg, alert, crit, err, warning, "
                                          "notice, info or debug).", optarg);
                                return EXIT_FAILURE;
                        }
                        break;
                case ARG_LOG_GROUP:
                        opts.log_group = optarg;
                        break;
                case ARG_MANAGE_GROUP:
                        opts.manage_group = optarg;
                        break;
                case ARG_MAIN_SERVICE:
                        opts.main_service = optarg;
                        break;
                case ARG_FORWARD: {
                        LogConsoleMode mode = LOG_CONSOLE_PLAIN;
                        if (optarg && svd_conf_parse_forward_output(optarg, &mode) < 0) {
                                log_error("Unknown --forward-output '%s' (expected 'plain', 'time' or 'no').",
                                          optarg);
                                return EXIT_FAILURE;
                        }
                        opts.forward_output = (int) mode;
                        break;
                }
                default:
                        return EXIT_FAILURE;
                }
        if (optind < argc) {
                log_error("Unexpected argument '%s'.", argv[optind]);
                return EXIT_FAILURE;
        }

        /* The file, then the options over it. A re-exec reads it again (it runs svd with the same
         * options); it cannot refuse it without ending every service, so there its errors leave the
         * bad lines out. The running svd checked it before the exec (conf_check()). */
        if (!no_conf) {
                r = conf_load(&conf, conf_path);
                if (r < 0 && config.state_fd > 0)
                        log_error("Carrying on with what of the configuration could be read: stopping in a "
                                  "re-exec would end every service.");
                else if (r < 0) {
                        if (r != -ENOENT)
                                log_error("Refusing to start with the configuration's errors (svd(8), "
                                          "CONFIGURATION).");
                        return EXIT_FAILURE;
                }
        }
        int file_level = conf.log_level;
        if (svd_conf_apply_options(&conf, &opts) < 0)
                return log_oom(), EXIT_FAILURE;
        /* --log-level and -v, then $SVD_LOG_LEVEL (log_open()), then LogLevel=. */
        if (opts.log_level >= 0)
                log_max_level = opts.log_level;
        else if (file_level >= 0 && log_level_from_string(getenv("SVD_LOG_LEVEL")) < 0)
                log_max_level = file_level;

        config.unit_dir = conf.unit_dir;
        config.socket_path = conf.socket_path;
        config.force_fallback = conf.force_fallback;
        config.allow_unsandboxed = conf.allow_unsandboxed;
        config.main_service = conf.main_service;
        config.console = conf.forward_output;
        config.unit_defaults = &conf.unit_defaults;
        if (!no_conf) {
                check.path = conf_path;
                config.reexec_check = conf_check;
                config.reexec_check_userdata = &check;
        }

        /* What a re-exec passes on: the options, less --deserialize. */
        for (int i = 1; i < optind; i++) {
                if (strneq(argv[i], "--deserialize", 13)) {
                        if (!strchr(argv[i], '=') && i + 1 < optind)
                                i++;
                        continue;
                }
                if (strv_extend(&args, argv[i]) < 0)
                        return log_oom(), EXIT_FAILURE;
        }
        exe = exe_path();
        config.exe_path = exe;
        config.argv = args;

        r = ensure_std_fds();
        if (r < 0) {
                log_error_errno(r, "Failed to set up standard fds: %m");
                return EXIT_FAILURE;
        }
        /* While the low fds are free (spawn.h). */
        r = spawn_reserve_fds();
        if (r < 0)
                log_warning_errno(r, "Failed to reserve fds for spawning, spawning fork-like: %m");

        r = manager_new(&config, &m);
        if (r < 0) {
                log_error_errno(r, "Failed to create manager: %m");
                return EXIT_FAILURE;
        }
        r = varlink_manager_attach(m);
        if (r < 0) {
                log_error_errno(r, "Failed to set up io.svd.Manager: %m");
                return EXIT_FAILURE;
        }
        if (varlink_manager_set_access(m, conf.log_group, conf.manage_group) < 0)
                return EXIT_FAILURE;
        r = manager_startup(m);
        if (r < 0)
                return EXIT_FAILURE;
        r = manager_run(m);
        return r < 0 ? EXIT_FAILURE : r;
}
