/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svd: argv, logging, then manager_new → manager_startup → loop. */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "manager.h"

static void help(void) {
        printf("svd [OPTIONS]\n\n"
               "Supervise the services described by the unit files in a directory.\n\n"
               "  -h --help            Show this help\n"
               "     --version         Show the version\n"
               "  -u --units DIR       Unit directory (default /etc/svd/units for root,\n"
               "                       $XDG_CONFIG_HOME/svd/units otherwise)\n"
               "  -s --socket PATH     Control socket (default /run/svd/svd.sock for root,\n"
               "                       $XDG_RUNTIME_DIR/svd/svd.sock otherwise)\n"
               "     --mode=fallback   Do not use CLONE_PIDFD_AUTOKILL even if the kernel has it\n"
               "  -v --verbose         Log debug messages\n");
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
        enum { ARG_VERSION = 0x100, ARG_MODE };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },     { "version", no_argument, NULL, ARG_VERSION },
                { "units", required_argument, NULL, 'u' }, { "socket", required_argument, NULL, 's' },
                { "mode", required_argument, NULL, ARG_MODE }, { "verbose", no_argument, NULL, 'v' },
                {},
        };
        ManagerConfig config = {};
        _cleanup_(manager_freep) Manager *m = NULL;
        int c, r;

        log_open();
        while ((c = getopt_long(argc, argv, "hu:s:v", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return EXIT_SUCCESS;
                case ARG_VERSION:
                        printf("svd %s\n", SVD_VERSION);
                        return EXIT_SUCCESS;
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
                case 'v':
                        log_max_level = LOG_DEBUG;
                        break;
                default:
                        return EXIT_FAILURE;
                }
        if (optind < argc) {
                log_error("Unexpected argument '%s'.", argv[optind]);
                return EXIT_FAILURE;
        }

        r = ensure_std_fds();
        if (r < 0) {
                log_error_errno(r, "Failed to set up standard fds: %m");
                return EXIT_FAILURE;
        }

        r = manager_new(&config, &m);
        if (r < 0) {
                log_error_errno(r, "Failed to create manager: %m");
                return EXIT_FAILURE;
        }
        r = manager_startup(m);
        if (r < 0)
                return EXIT_FAILURE;
        r = manager_run(m);
        return r < 0 ? EXIT_FAILURE : r;
}
