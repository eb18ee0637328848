/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The wanted file: the operator's starts and stops, kept crash-safely for a restore after a crash. */
#include "wanted.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/file-util.h"
#include "basic/macros.h"
#include "basic/string-table.h"
#include "basic/unit-name.h"
#include "basic/utf8.h"
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

/* Writes data to path crash-safely (a temporary file renamed over it). */
static int write_file_replace(const char *path, const char *data, size_t n) {
        _cleanup_free_ char *tmp = NULL;
        if (asprintf(&tmp, "%s.tmp", path) < 0)
                return -ENOMEM;
        _cleanup_close_ int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return -errno;
        int r = 0;
        for (size_t done = 0; done < n && r == 0;) {
                ssize_t k = write(fd, data + done, n - done);
                if (k < 0 && errno != EINTR)
                        r = -errno;
                else if (k > 0)
                        done += (size_t) k;
        }
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                (void) unlink(tmp);
        return r;
}

/* Why the line (len bytes at p, without its newline) is malformed, or NULL. On NULL, *ret_w and
 * ret_name hold its override, WANTED_DEFAULT for a comment or an empty line. */
static const char *wanted_line_parse(const char *p, size_t len, WantedOverride *ret_w, char ret_name[static WANTED_LINE_MAX]) {
        char line[WANTED_LINE_MAX];

        *ret_w = WANTED_DEFAULT;
        if (len >= WANTED_LINE_MAX)
                return "the line is longer than 511 bytes"; /* WANTED_LINE_MAX - 1 */
        if (memchr(p, '\0', len) || !utf8_is_valid_n(p, len))
                return "the line is not text (a NUL byte or invalid UTF-8)";
        memcpy(line, p, len);
        line[len] = '\0';
        if (line[0] == '#' || line[0] == '\0')
                return NULL;
        char *sp = strchr(line, ' ');
        if (!sp)
                return "the line is not \"start NAME\" or \"stop NAME\"";
        *sp = '\0';
        WantedOverride w = wanted_override_from_string(line);
        if (w < 0 || w == WANTED_DEFAULT)
                return "unknown verb (not \"start\" or \"stop\")";
        if (!unit_name_is_valid(sp + 1))
                return "invalid unit name";
        *ret_w = w;
        strcpy(ret_name, sp + 1);
        return NULL;
}

int wanted_file_load(ServiceContext *c, const char *socket_path, WantedApplyFn other, void *userdata,
                     WantedProblems *ret_problems) {
        _cleanup_free_ char *path = NULL, *buf = NULL;
        WantedProblems *pr = ret_problems;
        _cleanup_close_ int fd = -EBADF;
        size_t size = 0;
        bool cut = false;

        *pr = (WantedProblems){};
        int r = wanted_file_path(socket_path, &path);
        if (r < 0)
                return r;
        r = open_regular_file(path, &fd);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        r = read_fd_prefix(fd, WANTED_FILE_MAX, &buf, &size, &cut);
        if (r < 0)
                return r;

        unsigned n = 0;
        for (size_t off = 0; off < size;) {
                const char *p = buf + off, *nl = memchr(p, '\n', size - off);
                size_t len = nl ? (size_t) (nl - p) : size - off;
                char name[WANTED_LINE_MAX];
                WantedOverride w;
                const char *reason;

                n++;
                off += len + 1;
                if (!nl)
                        /* svd writes whole lines: this one may be cut anywhere, even inside a name. */
                        reason = cut ? "the file is larger than 8 MiB, the rest is ignored" /* WANTED_FILE_MAX */
                                     : "the last line has no newline (the file is cut short)";
                else
                        reason = wanted_line_parse(p, len, &w, name);
                if (reason) {
                        if (pr->bad_lines++ == 0) {
                                pr->first_bad = n;
                                pr->first_bad_reason = reason;
                        }
                        continue;
                }
                if (w == WANTED_DEFAULT)
                        continue;
                /* A unit of another type (NAME.socket) is the caller's. */
                if (other && strchr(name, '.') && other(name, w, userdata) > 0)
                        continue;
                /* An instance started by hand is created again from its template. */
                Service *s = w == WANTED_START ? service_find_or_instantiate(c, name) : service_find(c, name);
                if (s)
                        (void) service_set_wanted(s, w);
                else if (pr->unknown_units++ == 0) {
                        pr->first_unknown = n;
                        strcpy(pr->first_unknown_name, name);
                }
        }
        if (pr->bad_lines > 0) {
                _cleanup_free_ char *copy = NULL;
                if (asprintf(&copy, "%s%s", path, WANTED_CORRUPT_SUFFIX) < 0)
                        pr->kept = -ENOMEM;
                else
                        pr->kept = write_file_replace(copy, buf, size);
        }
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

int wanted_file_save(ServiceContext *c, const char *socket_path, char **other) {
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
        fputs("# svd: operator starts and stops on top of what is enabled (see wanted.h).\n"
              "# Present only while svd runs; found at start-up, it means svd crashed.\n",
              f);
        for (size_t i = 0; i < c->n_services; i++) {
                Service *s = c->services[i];
                if (s->wanted != WANTED_DEFAULT)
                        fprintf(f, "%s %s\n", wanted_override_to_string(s->wanted), s->name);
        }
        for (char **l = other; l && *l; l++)
                fprintf(f, "%s\n", *l);
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
