/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dbus-service: a Type=dbus test service on libsystemd's sd-bus.
 *
 *   dbus-service NAME [--gate FIFO] [--release FIFO] [--never]
 *
 * Connects to the system bus ($DBUS_SYSTEM_BUS_ADDRESS, as sd-bus reads it), waits for a line
 * through the gate FIFO when given, requests NAME, and then waits for signals; with --release,
 * once a line came through that FIFO it releases NAME and goes on running. --never: it never
 * requests NAME (a start that times out). SIGTERM ends it (exit 0).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

static int read_line(const char *path) {
        char line[16];
        FILE *f = fopen(path, "re");
        if (!f)
                return -1;
        int r = fgets(line, sizeof(line), f) ? 0 : -1;
        fclose(f);
        return r;
}

int main(int argc, char **argv) {
        const char *name = NULL, *gate = NULL, *release = NULL;
        int never = 0;

        for (int i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--gate") == 0 && i + 1 < argc)
                        gate = argv[++i];
                else if (strcmp(argv[i], "--release") == 0 && i + 1 < argc)
                        release = argv[++i];
                else if (strcmp(argv[i], "--never") == 0)
                        never = 1;
                else if (!name && argv[i][0] != '-')
                        name = argv[i];
                else {
                        fprintf(stderr, "usage: dbus-service NAME [--gate FIFO] [--release FIFO] [--never]\n");
                        return 2;
                }
        }
        if (!name) {
                fprintf(stderr, "dbus-service: no name given\n");
                return 2;
        }
        sd_bus *bus = NULL;
        int r = sd_bus_open_system(&bus);
        if (r < 0) {
                fprintf(stderr, "dbus-service: cannot connect to the system bus: %s\n", strerror(-r));
                return 1;
        }
        if (gate && read_line(gate) < 0) {
                perror("dbus-service: gate");
                return 1;
        }
        if (!never) {
                r = sd_bus_request_name(bus, name, 0);
                if (r < 0) {
                        fprintf(stderr, "dbus-service: cannot acquire '%s': %s\n", name, strerror(-r));
                        return 1;
                }
                printf("acquired %s\n", name);
                fflush(stdout);
        }
        if (release) {
                if (read_line(release) < 0) {
                        perror("dbus-service: release");
                        return 1;
                }
                printf("releasing %s\n", name); /* before: svd stops the service once it is released */
                fflush(stdout);
                r = sd_bus_release_name(bus, name);
                if (r < 0) {
                        fprintf(stderr, "dbus-service: cannot release '%s': %s\n", name, strerror(-r));
                        return 1;
                }
                printf("released %s\n", name);
                fflush(stdout);
        }
        signal(SIGTERM, SIG_DFL);
        for (;;)
                pause();
}
