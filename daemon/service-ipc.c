/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RemoveIPC= (systemd.exec(5)): when a service with the key has stopped, the System V IPC objects
 * (shared memory, semaphores, message queues) and POSIX shared memory and message queues owned by its
 * user or group are removed, unless something still runs as that user or group (systemd waits for the
 * last unit of the user; svd for the last process, which covers that). Root's objects are never
 * touched. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macros.h"
#include "dynamic-user.h"
#include "service-ipc.h"
#include "svd-log.h"

#define IPC_LINE_MAX 512

#define SHM_DEPTH_MAX 16 /* directories in /dev/shm, bounded */

static bool owned(uid_t uid, gid_t gid, uid_t u, gid_t g) {
        return (uid != 0 && u == uid) || (gid != 0 && g == gid);
}

/* One /proc/sysvipc table: the id in column id_col, the owner's uid and gid in uid_col, uid_col + 1. */
static unsigned remove_sysv(const char *table, unsigned id_col, unsigned uid_col, uid_t uid, gid_t gid,
                            int (*rm)(int id)) {
        char path[64], line[IPC_LINE_MAX];
        unsigned n = 0;
        (void) snprintf(path, sizeof(path), "/proc/sysvipc/%s", table);
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        if (!f)
                return 0; /* no System V IPC in this kernel */
        if (!fgets(line, sizeof(line), f)) /* the header */
                return 0;
        while (fgets(line, sizeof(line), f)) {
                unsigned long col[16];
                unsigned k = 0;
                char *save = NULL;
                for (char *w = strtok_r(line, " \t\n", &save); w && k < ELEMENTSOF(col);
                     w = strtok_r(NULL, " \t\n", &save))
                        col[k++] = strtoul(w, NULL, 10);
                if (k <= uid_col + 1 || k <= id_col)
                        continue;
                if (owned(uid, gid, (uid_t) col[uid_col], (gid_t) col[uid_col + 1]) && rm((int) col[id_col]) >= 0)
                        n++;
        }
        return n;
}

static int rm_shm(int id) {
        return shmctl(id, IPC_RMID, NULL);
}
static int rm_sem(int id) {
        return semctl(id, 0, IPC_RMID);
}
static int rm_msg(int id) {
        return msgctl(id, IPC_RMID, NULL);
}

/* Files (and directories, emptied first) owned by uid or gid below dfd: POSIX shared memory in
 * /dev/shm, message queues in /dev/mqueue (unlinking the file is mq_unlink()). */
static unsigned remove_files(int dfd, uid_t uid, gid_t gid, unsigned depth) {
        _cleanup_(closedirp) DIR *d = fdopendir(dfd);
        unsigned n = 0;
        if (!d) {
                (void) close(dfd);
                return 0;
        }
        struct dirent *de;
        while ((de = readdir(d))) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                struct stat st;
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        int sub = depth < SHM_DEPTH_MAX
                                          ? openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                                          : -1;
                        if (sub >= 0)
                                n += remove_files(sub, uid, gid, depth + 1);
                        if (owned(uid, gid, st.st_uid, st.st_gid) && unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) >= 0)
                                n++;
                } else if (owned(uid, gid, st.st_uid, st.st_gid) && unlinkat(dirfd(d), de->d_name, 0) >= 0)
                        n++;
        }
        return n;
}

void service_remove_ipc(Service *s) {
        assert(s);
        if (!s->def->unit->sandbox.remove_ipc || !s->def->creds.set)
                return;
        uid_t uid = s->def->creds.uid;
        gid_t gid = s->def->creds.gid;
        if (uid == 0 && gid == 0)
                return;
        if (dynamic_user_ids_in_use(uid, gid)) {
                log_info("%s: RemoveIPC=: processes of uid %u or gid %u remain, their IPC objects stay", s->name,
                         (unsigned) uid, (unsigned) gid);
                return;
        }
        /* /proc/sysvipc columns: shm "key shmid perms size cpid lpid nattch uid gid ...", sem "key semid
         * perms nsems uid gid ...", msg "key msqid perms cbytes qnum lspid lrpid uid gid ...". */
        unsigned n = remove_sysv("shm", 1, 7, uid, gid, rm_shm) + remove_sysv("sem", 1, 4, uid, gid, rm_sem) +
                     remove_sysv("msg", 1, 7, uid, gid, rm_msg);
        static const char *const dirs[] = { "/dev/shm", "/dev/mqueue" };
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                int fd = open(dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fd >= 0)
                        n += remove_files(fd, uid, gid, 0);
        }
        if (n > 0)
                log_info("%s: RemoveIPC=: removed %u IPC objects of uid %u/gid %u", s->name, n, (unsigned) uid,
                         (unsigned) gid);
}
