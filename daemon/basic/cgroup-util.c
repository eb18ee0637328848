/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "cgroup-util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest line of /proc/self/mountinfo or /proc/PID/cgroup read. */
#define CGROUP_LINE_MAX 4096

int cgroup2_mount_point(char **ret) {
        FILE *f = fopen("/proc/self/mountinfo", "re");
        char line[CGROUP_LINE_MAX];
        int r = -ENOENT;

        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f)) {
                char *sep = strstr(line, " - ");
                if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
                        continue;
                /* field 5 is the mount point */
                char *p = line;
                for (int i = 0; i < 4 && p; i++) {
                        p = strchr(p, ' ');
                        if (p)
                                p++;
                }
                if (!p)
                        continue;
                *ret = strndup(p, strcspn(p, " "));
                r = *ret ? 0 : -ENOMEM;
                break;
        }
        fclose(f);
        return r;
}

int cgroup_path_of_pid(pid_t pid, char **ret) {
        char path[64], line[CGROUP_LINE_MAX];
        if (pid == 0)
                snprintf(path, sizeof(path), "/proc/self/cgroup");
        else
                snprintf(path, sizeof(path), "/proc/%d/cgroup", (int) pid);
        FILE *f = fopen(path, "re");
        int r = -ENOENT;

        if (!f)
                return -errno;
        while (fgets(line, sizeof(line), f)) {
                if (strncmp(line, "0::", 3) != 0)
                        continue;
                line[strcspn(line, "\n")] = 0;
                *ret = strdup(line + 3);
                r = *ret ? 0 : -ENOMEM;
                break;
        }
        fclose(f);
        return r;
}
