/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The wanted file: the operator's starts and stops, kept crash-safely for a restore after a crash. */
#include "wanted.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "basic/macros.h"
#include "basic/string-table.h"
#include "service.h"

static const char *const wanted_override_table[_WANTED_OVERRIDE_MAX] = {
        [WANTED_DEFAULT] = "default",
        [WANTED_START] = "start",
        [WANTED_STOP] = "stop",
};

DEFINE_STRING_TABLE_LOOKUP(wanted_override, WantedOverride);

int wanted_file_path(const char *socket_path, char **ret) {
        const char *slash = strrchr(socket_path, '/');
        int n = slash ? (int) (slash - socket_path) : 1;
        const char *dir = slash ? socket_path : ".";
        if (slash == socket_path)
                n = 1; /* "/svd.sock": the root directory */
        return asprintf(ret, "%.*s/%s", n, dir, WANTED_FILE_NAME) < 0 ? -ENOMEM : 0;
}

int wanted_file_load(ServiceContext *c, const char *socket_path) {
        _cleanup_free_ char *path = NULL;
        char line[512];
        size_t total = 0;

        int r = wanted_file_path(socket_path, &path);
        if (r < 0)
                return r;
        FILE *f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -errno;
        while (fgets(line, sizeof(line), f)) {
                total += strlen(line);
                if (total > WANTED_FILE_MAX)
                        break;
                line[strcspn(line, "\n")] = '\0';
                if (line[0] == '#' || line[0] == '\0')
                        continue;
                char *sp = strchr(line, ' ');
                if (!sp)
                        continue;
                *sp = '\0';
                WantedOverride w = wanted_override_from_string(line);
                if (w < 0 || w == WANTED_DEFAULT)
                        continue;
                /* An instance started by hand is created again from its template. */
                Service *s = w == WANTED_START ? service_find_or_instantiate(c, sp + 1) : service_find(c, sp + 1);
                if (s)
                        (void) service_set_wanted(s, w);
        }
        fclose(f);
        return 1;
}

static int fsync_directory_of(const char *path) {
        _cleanup_free_ char *dir = strdup(path);
        if (!dir)
                return -ENOMEM;
        char *slash = strrchr(dir, '/');
        if (slash)
                *(slash == dir ? slash + 1 : slash) = '\0';
        _cleanup_close_ int fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fsync(fd) < 0)
                return -errno;
        return 0;
}

int wanted_file_save(ServiceContext *c, const char *socket_path) {
        _cleanup_free_ char *path = NULL, *tmp = NULL;
        int r;

        r = wanted_file_path(socket_path, &path);
        if (r < 0)
                return r;
        if (asprintf(&tmp, "%s.tmp", path) < 0)
                return -ENOMEM;

        _cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
                return -errno;
        FILE *f = fdopen(fd, "w");
        if (!f)
                return -errno;
        fd = -EBADF; /* f owns it now */
        fputs("# svd: operator starts and stops on top of WantedBy=default.target (see wanted.h).\n"
              "# Present only while svd runs; found at start-up, it means svd crashed.\n",
              f);
        for (size_t i = 0; i < c->n_services; i++) {
                Service *s = c->services[i];
                if (s->wanted != WANTED_DEFAULT)
                        fprintf(f, "%s %s\n", wanted_override_to_string(s->wanted), s->name);
        }
        r = fflush(f) != 0 || ferror(f) ? -(errno ?: EIO) : 0;
        if (r == 0 && fsync(fileno(f)) < 0)
                r = -errno;
        if (fclose(f) != 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0) {
                (void) unlink(tmp);
                return r ?: -EIO;
        }
        return fsync_directory_of(path);
}

int wanted_file_remove(const char *socket_path) {
        _cleanup_free_ char *path = NULL;
        int r = wanted_file_path(socket_path, &path);
        if (r < 0)
                return r;
        if (unlink(path) < 0 && errno != ENOENT)
                return -errno;
        return fsync_directory_of(path);
}
