/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ptyhold: a pseudo-terminal for tests of StandardInput=tty and StandardOutput=tty.
 *
 *   ptyhold PATHFILE OUTFILE
 *
 * Opens a new pseudo-terminal, writes the path of its terminal end (/dev/pts/N) to PATHFILE
 * (complete when it appears: written to PATHFILE.tmp and renamed), keeps that end open itself
 * (without making it its controlling terminal) so that reading never hits the end of it, and
 * appends everything written to the terminal to OUTFILE, until SIGTERM.
 * Plain C11, no project code: the kernel lab builds it on its own.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
        if (argc != 3) {
                fprintf(stderr, "usage: ptyhold PATHFILE OUTFILE\n");
                return 2;
        }
        int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0) {
                perror("ptyhold: posix_openpt");
                return 1;
        }
        const char *name = ptsname(master);
        if (!name) {
                perror("ptyhold: ptsname");
                return 1;
        }
        int slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (slave < 0) {
                perror("ptyhold: open");
                return 1;
        }
        int out = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (out < 0) {
                perror("ptyhold: output file");
                return 1;
        }
        char tmp[4096];
        snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
        FILE *f = fopen(tmp, "we");
        if (!f || fprintf(f, "%s\n", name) < 0 || fclose(f) != 0 || rename(tmp, argv[1]) < 0) {
                perror("ptyhold: path file");
                return 1;
        }
        for (;;) {
                char buf[4096];
                ssize_t n = read(master, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return 0;
                (void) !write(out, buf, (size_t) n);
        }
}
