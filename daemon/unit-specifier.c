/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Specifiers ("%n", "%i", ...) in unit files, resolved at load time. */
#include "unit-specifier.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "basic/macros.h"
#include "basic/unit-name.h"

/* systemd's unit name unescaping: "\xNN" is that byte, '-' is '/'. A "\x00" stays as it is. */
static char *name_unescape(const char *s, size_t n) {
        char *t = malloc(n + 1), *q = t;

        if (!t)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                if (s[i] == '-')
                        *q++ = '/';
                else if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' && isxdigit((unsigned char) s[i + 2]) &&
                         isxdigit((unsigned char) s[i + 3]) && (s[i + 2] != '0' || s[i + 3] != '0')) {
                        char hex[3] = { s[i + 2], s[i + 3], 0 };
                        *q++ = (char) strtoul(hex, NULL, 16);
                        i += 3;
                } else
                        *q++ = s[i];
        }
        *q = '\0';
        return t;
}

static bool is_root(void) {
        return getuid() == 0;
}

/* A directory from $XDG_* or from $HOME and a default below it (svd as another user). */
static char *xdg_dir(const char *var, const char *home_default, const char *sub) {
        const char *v = getenv(var), *home;
        char *s;

        if (v && v[0] == '/')
                return asprintf(&s, "%s%s", v, sub) < 0 ? NULL : s;
        home = getenv("HOME");
        if (!home || home[0] != '/' || !home_default) {
                errno = ENXIO;
                return NULL;
        }
        return asprintf(&s, "%s/%s%s", home, home_default, sub) < 0 ? NULL : s;
}

/* %m: the machine ID, 32 lower-case hex digits from /etc/machine-id (machine-id(5)). */
static char *machine_id(void) {
        char buf[64] = "";
        FILE *f = fopen("/etc/machine-id", "re");
        if (!f || !fgets(buf, sizeof(buf), f)) {
                if (f)
                        fclose(f);
                errno = ENXIO;
                return NULL;
        }
        fclose(f);
        buf[strcspn(buf, "\n")] = 0;
        bool ok = strlen(buf) == 32;
        for (size_t i = 0; ok && i < 32; i++)
                ok = isxdigit((unsigned char) buf[i]);
        if (!ok) {
                errno = ENXIO;
                return NULL;
        }
        return strdup(buf);
}

/* The value of %c for unit `name`, or NULL with errno (EINVAL: unknown specifier). */
static char *specifier_value(char c, const char *name) {
        const char *at = strchr(name, '@');
        size_t prefix_len = at ? (size_t) (at - name) : strlen(name);
        const char *instance = at ? at + 1 : "";
        char *s;

        switch (c) {
        case 'n':
                return asprintf(&s, "%s%s", name, UNIT_NAME_SUFFIX) < 0 ? NULL : s;
        case 'N':
                return strdup(name);
        case 'p':
                return strndup(name, prefix_len);
        case 'i':
                return strdup(instance);
        case 'I':
                return name_unescape(instance, strlen(instance));
        case 'f': {
                _cleanup_free_ char *u = at && *instance ? name_unescape(instance, strlen(instance)) :
                                                           name_unescape(name, prefix_len);
                if (!u)
                        return NULL;
                return asprintf(&s, "/%s", u[0] == '/' ? u + 1 : u) < 0 ? NULL : s;
        }
        case 'j': {
                const char *dash = memrchr(name, '-', prefix_len);
                return dash ? strndup(dash + 1, prefix_len - (size_t) (dash + 1 - name)) :
                              strndup(name, prefix_len);
        }
        case 't':
                if (is_root())
                        return strdup("/run");
                return xdg_dir("XDG_RUNTIME_DIR", NULL, "");
        case 'S':
                return is_root() ? strdup("/var/lib") : xdg_dir("XDG_STATE_HOME", ".local/state", "");
        case 'C':
                return is_root() ? strdup("/var/cache") : xdg_dir("XDG_CACHE_HOME", ".cache", "");
        case 'L':
                return is_root() ? strdup("/var/log") : xdg_dir("XDG_STATE_HOME", ".local/state", "/log");
        case 'E':
                return is_root() ? strdup("/etc") : xdg_dir("XDG_CONFIG_HOME", ".config", "");
        case 'h':
                if (is_root())
                        return strdup("/root");
                if (!getenv("HOME") || getenv("HOME")[0] != '/') {
                        errno = ENXIO;
                        return NULL;
                }
                return strdup(getenv("HOME"));
        case 'u':
                if (is_root())
                        return strdup("root");
                if (!getenv("USER") || !*getenv("USER"))
                        return asprintf(&s, "%ju", (uintmax_t) getuid()) < 0 ? NULL : s;
                return strdup(getenv("USER"));
        case 'U':
                return asprintf(&s, "%ju", (uintmax_t) getuid()) < 0 ? NULL : s;
        case 'm':
                return machine_id();
        case '%':
                return strdup("%");
        default:
                errno = EINVAL;
                return NULL;
        }
}

int unit_specifier_expand(const char *s, const char *name, char **ret, char *ret_bad) {
        char *t = NULL;
        size_t n = 0, size = 0;

        assert(s);
        assert(name);
        assert(ret);
        assert(ret_bad);

        for (;;) {
                const char *pct = strchr(s, '%');
                size_t plain = pct ? (size_t) (pct - s) : strlen(s);
                _cleanup_free_ char *v = NULL;
                size_t vn = 0;

                if (pct) {
                        if (pct[1] == '\0') {
                                free(t);
                                *ret_bad = '\0';
                                return -EINVAL;
                        }
                        errno = 0;
                        v = specifier_value(pct[1], name);
                        if (!v) {
                                int e = errno == 0 ? ENOMEM : errno;
                                free(t);
                                *ret_bad = pct[1];
                                return -e;
                        }
                        vn = strlen(v);
                }
                if (n + plain + vn + 1 > size) {
                        size_t want = (n + plain + vn + 1) * 2;
                        char *q = realloc(t, want);
                        if (!q) {
                                free(t);
                                return -ENOMEM;
                        }
                        t = q;
                        size = want;
                }
                memcpy(t + n, s, plain);
                n += plain;
                if (vn > 0)
                        memcpy(t + n, v, vn);
                n += vn;
                t[n] = '\0';
                if (!pct)
                        break;
                s = pct + 2;
        }
        *ret = t;
        return 0;
}
