/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svd: argv, logging, then manager_new → manager_startup → loop. */
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "basic/socket-path.h"
#include "basic/strv.h"
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
               "  -u --units DIR       Unit directory (default /etc/svd/units for root,\n"
               "                       $XDG_CONFIG_HOME/svd/units otherwise)\n"
               "  -s --socket PATH     Control socket (default " SOCKET_PATH_SYSTEM " for root,\n"
               "                       $XDG_RUNTIME_DIR" SOCKET_PATH_USER_SUFFIX " otherwise)\n"
               "     --mode=fallback   Do not use CLONE_PIDFD_AUTOKILL even if the kernel has it\n"
               "     --log-group=GROUP Members may read every service's output (default: adm,\n"
               "                       where it exists; empty: none)\n"
               "     --manage-group=GROUP  Members may start, stop, restart, kill, reset-failed\n"
               "                       and reload (default: none)\n"
               "     --allow-unsandboxed\n"
               "                       Run units whose sandboxing keys svd does not enforce,\n"
               "                       with a warning (default: such a unit fails to load)\n"
               "     --forward-output  Also write services' output to svd's stdout/stderr,\n"
               "                       one 'NAME: LINE' each (=time: the time first)\n"
               "     --main-service=NAME\n"
               "                       Start NAME; when it has ended for good, stop the others\n"
               "                       and exit with its exit status (a container's entrypoint)\n"
               "  -v --verbose         Log debug messages\n"
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
        };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },     { "version", no_argument, NULL, ARG_VERSION },
                { "units", required_argument, NULL, 'u' }, { "socket", required_argument, NULL, 's' },
                { "mode", required_argument, NULL, ARG_MODE }, { "verbose", no_argument, NULL, 'v' },
                { "state-version", no_argument, NULL, ARG_STATE_VERSION },
                { "deserialize", required_argument, NULL, ARG_DESERIALIZE },
                { "log-group", required_argument, NULL, ARG_LOG_GROUP },
                { "manage-group", required_argument, NULL, ARG_MANAGE_GROUP },
                { "allow-unsandboxed", no_argument, NULL, ARG_ALLOW_UNSANDBOXED },
                { "main-service", required_argument, NULL, ARG_MAIN_SERVICE },
                { "forward-output", optional_argument, NULL, ARG_FORWARD },
                {},
        };
        ManagerConfig config = {};
        const char *log_group = NULL, *manage_group = NULL;
        _cleanup_strv_free_ char **args = NULL;
        _cleanup_free_ char *exe = NULL;
        _cleanup_(manager_freep) Manager *m = NULL;
        int c, r;

        log_open();
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
                case 'u':
                        config.unit_dir = optarg;
                        break;
                case 's':
                        config.socket_path = optarg;
                        break;
                case ARG_MODE:
                        if (streq(optarg, "fallback"))
                                config.force_fallback = true;
                        else if (!streq(optarg, "auto")) {
                                log_error("Unknown --mode '%s' (expected 'auto' or 'fallback').", optarg);
                                return EXIT_FAILURE;
                        }
                        break;
                case ARG_ALLOW_UNSANDBOXED:
                        config.allow_unsandboxed = true;
                        break;
                case 'v':
                        log_max_level = LOG_DEBUG;
                        break;
                case ARG_LOG_GROUP:
                        log_group = optarg;
                        break;
                case ARG_MANAGE_GROUP:
                        manage_group = optarg;
                        break;
                case ARG_MAIN_SERVICE:
                        config.main_service = optarg;
                        break;
                case ARG_FORWARD:
                        if (!optarg || streq(optarg, "plain"))
                                config.console = LOG_CONSOLE_PLAIN;
                        else if (streq(optarg, "time"))
                                config.console = LOG_CONSOLE_TIME;
                        else {
                                log_error("Unknown --forward-output '%s' (expected 'plain' or 'time').", optarg);
                                return EXIT_FAILURE;
                        }
                        break;
                default:
                        return EXIT_FAILURE;
                }
        if (optind < argc) {
                log_error("Unexpected argument '%s'.", argv[optind]);
                return EXIT_FAILURE;
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
        if (varlink_manager_set_access(m, log_group, manage_group) < 0)
                return EXIT_FAILURE;
        r = manager_startup(m);
        if (r < 0)
                return EXIT_FAILURE;
        r = manager_run(m);
        return r < 0 ? EXIT_FAILURE : r;
}
