/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ExecStart='s command name looked up in PATH, in the parent, before the spawn. */
#include "spawn-path.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/macros.h"

int spawn_find_executable(const char *name, const char *search_path, char **ret) {
        assert(name);
        assert(ret);

        if (strchr(name, '/')) {
                char *c = strdup(name);
                if (!c)
                        return -ENOMEM;
                *ret = c;
                return 0;
        }
        if (!*name)
                return -ENOENT;

        const char *p = search_path ? search_path : SPAWN_DEFAULT_PATH;
        while (*p) {
                size_t l = strcspn(p, ":");
                if (l > 0) {
                        char *c;
                        if (asprintf(&c, "%.*s/%s", (int) l, p, name) < 0)
                                return -ENOMEM;
                        struct stat st;
                        if (stat(c, &st) == 0 && S_ISREG(st.st_mode) && access(c, X_OK) == 0) {
                                *ret = c;
                                return 0;
                        }
                        free(c);
                }
                p += l;
                if (*p == ':')
                        p++;
        }
        return -ENOENT;
}
