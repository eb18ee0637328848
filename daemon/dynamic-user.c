/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* DynamicUser=: uids from 61184-65519, one lock file each (see dynamic-user.h). */
#include "dynamic-user.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macros.h"

#define DYNAMIC_UID_COUNT ((unsigned) (DYNAMIC_UID_MAX - DYNAMIC_UID_MIN + 1))
#define DYNAMIC_USER_LINE_MAX 512 /* bytes of a /proc/PID/status line read */
/* systemd's own dynamic users: a file per uid while it is allocated. */
#define SYSTEMD_DYNAMIC_UID_DIR "/run/systemd/dynamic-uid"

bool dynamic_uid_is_valid(uid_t uid) {
        return uid >= DYNAMIC_UID_MIN && uid <= DYNAMIC_UID_MAX;
}

uid_t dynamic_user_hash_uid(const char *name) {
        /* FNV-1a: stable across runs and builds, which is all this needs. */
        uint64_t h = UINT64_C(0xcbf29ce484222325);
        for (const unsigned char *c = (const unsigned char *) name; *c; c++) {
                h ^= *c;
                h *= UINT64_C(0x100000001b3);
        }
        return DYNAMIC_UID_MIN + (uid_t) (h % DYNAMIC_UID_COUNT);
}

bool dynamic_user_ids_in_use(uid_t uid, gid_t gid) {
        _cleanup_(closedirp) DIR *d = opendir("/proc");
        struct dirent *de;

        if (!d)
                return true;
        while ((errno = 0, de = readdir(d))) {
                char path[sizeof(de->d_name) + 16], line[DYNAMIC_USER_LINE_MAX];
                if (de->d_name[0] < '1' || de->d_name[0] > '9')
                        continue;
                (void) snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
                __attribute__((cleanup(fclosep))) FILE *f = fopen(path, "re");
                if (!f)
                        continue; /* gone meanwhile */
                while (fgets(line, sizeof(line), f)) {
                        unsigned long v[4];
                        /* A zombie runs nothing any more: whose it was does not matter. */
                        if (strncmp(line, "State:", 6) == 0 && strpbrk(line + 6, "ZX"))
                                break;
                        bool uids = strncmp(line, "Uid:", 4) == 0;
                        if (!uids && strncmp(line, "Gid:", 4) != 0)
                                continue;
                        int n = sscanf(line + 4, "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]);
                        unsigned long id = uids ? (unsigned long) uid : (unsigned long) gid;
                        for (int i = 0; i < n; i++)
                                if (id != 0 && v[i] == id)
                                        return true;
                        if (!uids)
                                break;
                }
        }
        return errno != 0;
}

/* Whether anything outside the lock directory has uid: the user and group databases, systemd. */
static bool uid_known_elsewhere(uid_t uid) {
        char path[sizeof(SYSTEMD_DYNAMIC_UID_DIR) + 16];

        if (getpwuid(uid) || getgrgid((gid_t) uid))
                return true;
        (void) snprintf(path, sizeof(path), SYSTEMD_DYNAMIC_UID_DIR "/%u", (unsigned) uid);
        return access(path, F_OK) >= 0;
}

/* Takes uid: 1 with *ret_fd, 0 when it is taken, or -errno. */
static int try_lock(int dfd, uid_t uid, const char *name, int *ret_fd) {
        char file[16];

        (void) snprintf(file, sizeof(file), "%u", (unsigned) uid);
        /* A releaser unlinks the file before closing it: one who locked that inode meanwhile
         * finds it unlinked and tries again with a new file. Bounded: each turn follows a
         * release, of which there are finitely many under way. */
        for (unsigned attempt = 0; attempt < 16; attempt++) {
                _cleanup_close_ int fd = openat(dfd, file, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
                struct stat st;
                if (fd < 0)
                        return -errno;
                if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                        return errno == EWOULDBLOCK ? 0 : -errno;
                if (fstat(fd, &st) < 0)
                        return -errno;
                if (st.st_nlink == 0)
                        continue;
                if (!S_ISREG(st.st_mode))
                        return 0;
                /* The name, for whoever looks; a failure here takes nothing away from the lock. */
                if (ftruncate(fd, 0) >= 0 && pwrite(fd, name, strlen(name), 0) < 0)
                        st.st_size = 0; /* nothing to do about it */
                *ret_fd = TAKE_FD(fd);
                return 1;
        }
        return 0;
}

static int mkdir_p(const char *path, mode_t mode) {
        char p[256];

        if (strlen(path) >= sizeof(p))
                return -ENAMETOOLONG;
        strcpy(p, path);
        for (char *slash = strchr(p + 1, '/');; slash = strchr(slash + 1, '/')) {
                if (slash)
                        *slash = '\0';
                if (mkdir(p, mode) < 0 && errno != EEXIST)
                        return -errno;
                if (!slash)
                        return 0;
                *slash = '/';
        }
}

int dynamic_user_acquire(const char *lock_dir, const char *name, uid_t hint, uid_t *ret_uid, int *ret_lock_fd) {
        _cleanup_close_ int dfd = -EBADF;
        uid_t start = dynamic_user_hash_uid(name);
        int r;

        assert(lock_dir);
        assert(name);
        assert(ret_uid);
        assert(ret_lock_fd);

        r = mkdir_p(lock_dir, 0755);
        if (r < 0)
                return r;
        dfd = open(lock_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dfd < 0)
                return -errno;

        /* Turn 0 tries the hint, then the range from the hash's uid on. */
        for (unsigned i = 0; i <= DYNAMIC_UID_COUNT; i++) {
                uid_t uid;
                int fd = -EBADF;
                if (i == 0) {
                        if (!dynamic_uid_is_valid(hint))
                                continue;
                        uid = hint;
                } else
                        uid = DYNAMIC_UID_MIN + (start - DYNAMIC_UID_MIN + (i - 1)) % DYNAMIC_UID_COUNT;
                if (uid_known_elsewhere(uid))
                        continue;
                r = try_lock(dfd, uid, name, &fd);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                if (dynamic_user_ids_in_use(uid, (gid_t) uid)) {
                        (void) dynamic_user_release(lock_dir, uid, fd);
                        continue;
                }
                *ret_uid = uid;
                *ret_lock_fd = fd;
                return 0;
        }
        return -EBUSY;
}

int dynamic_user_release(const char *lock_dir, uid_t uid, int lock_fd) {
        char path[256];

        assert(lock_dir);
        if (lock_fd < 0)
                return -EBADF;
        /* Unlinked while still locked: see try_lock(). */
        if (snprintf(path, sizeof(path), "%s/%u", lock_dir, (unsigned) uid) < (int) sizeof(path))
                (void) unlink(path);
        return safe_close(lock_fd);
}
