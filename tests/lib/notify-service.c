/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * notify-service: a test service that speaks sd_notify(3) through libsystemd,
 * unchanged, as a real Type=notify service would. It carries out its
 * arguments in order:
 *
 *   notify:TEXT     sd_notify(0, TEXT), with "\n" in TEXT standing for a newline
 *   child:TEXT      the same from a forked child (a process that is not the main one),
 *                   which then stays until the main process dies
 *   wait:FIFO       wait for a line on FIFO (the test's way to say "go on")
 *   watchdog        send WATCHDOG=1 every WATCHDOG_USEC/4, forever (sd_watchdog_enabled)
 *   exit:N          exit with status N
 *   pause           sleep until a signal ends it
 *
 * SIGTERM ends it with status 0.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

static char *unescape(const char *s) {
        char *t = strdup(s), *q = t;
        if (!t)
                exit(100);
        for (; *s; s++) {
                if (s[0] == '\\' && s[1] == 'n') {
                        *q++ = '\n';
                        s++;
                } else
                        *q++ = *s;
        }
        *q = '\0';
        return t;
}

static void on_term(int sig) {
        (void)sig;
        _exit(0);
}

/* Until a line comes: an open can meet the previous writer just before it
 * closes, and then sees EOF without data. */
static void wait_fifo(const char *path) {
        for (;;) {
                char buf[64];
                FILE *f = fopen(path, "re");
                if (!f) {
                        fprintf(stderr, "notify-service: open %s: %s\n", path, strerror(errno));
                        exit(101);
                }
                bool got = fgets(buf, sizeof(buf), f) != NULL;
                fclose(f);
                if (got)
                        return;
        }
}

int main(int argc, char *argv[]) {
        signal(SIGTERM, on_term);

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];

                if (strncmp(a, "notify:", 7) == 0) {
                        char *t = unescape(a + 7);
                        int r = sd_notify(0, t);
                        if (r <= 0)
                                fprintf(stderr, "notify-service: sd_notify(\"%s\") = %d\n", t, r);
                        free(t);
                } else if (strncmp(a, "child:", 6) == 0) {
                        pid_t pid = fork();
                        if (pid < 0)
                                exit(102);
                        if (pid == 0) {
                                /* It stays, as a service's worker would: svd checks the sender
                                 * while it exists. It dies with the main process. */
                                (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
                                if (getppid() == 1)
                                        _exit(0);
                                char *t = unescape(a + 6);
                                if (sd_notify(0, t) <= 0)
                                        _exit(1);
                                for (;;)
                                        pause();
                        }
                } else if (strncmp(a, "wait:", 5) == 0)
                        wait_fifo(a + 5);
                else if (strcmp(a, "watchdog") == 0) {
                        uint64_t usec;
                        if (sd_watchdog_enabled(0, &usec) <= 0) {
                                fprintf(stderr, "notify-service: no watchdog\n");
                                exit(103);
                        }
                        for (;;) {
                                (void)sd_notify(0, "WATCHDOG=1");
                                struct timespec ts = {.tv_sec = (time_t)(usec / 4 / 1000000),
                                                      .tv_nsec = (long)(usec / 4 % 1000000) * 1000};
                                nanosleep(&ts, NULL);
                        }
                } else if (strncmp(a, "exit:", 5) == 0)
                        exit(atoi(a + 5));
                else if (strcmp(a, "pause") == 0)
                        for (;;)
                                pause();
                else {
                        fprintf(stderr, "notify-service: unknown action '%s'\n", a);
                        exit(104);
                }
        }
        return 0;
}
