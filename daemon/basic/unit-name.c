/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Unit names: validity and the ".service" suffix. */
#include "unit-name.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macros.h"

static_assert(UNIT_NAME_MAX == 255U, "unit_name_invalid_reason() names the limit");

static bool unit_name_char_is_valid(char c) {
        /* systemd's unit name characters (unit-name.c VALID_CHARS), so that what svd accepts
         * systemd would as well: no '/', no whitespace, no control characters. */
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               strchr("-_.:@\\", c);
}

const char *unit_name_invalid_reason(const char *name) {
        size_t n;

        if (!name)
                return "no name";
        n = strlen(name);
        if (n == 0)
                return "the name is empty";
        if (n > UNIT_NAME_MAX)
                return "the name is longer than 255 bytes"; /* UNIT_NAME_MAX */
        /* No hidden files, nothing that looks like an option to svctl. */
        if (name[0] == '.')
                return "the name starts with '.'";
        if (name[0] == '-')
                return "the name starts with '-'";
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) name[i];
                if (unit_name_char_is_valid(name[i]))
                        continue;
                if (c == ' ' || c == '\t')
                        return "the name contains whitespace";
                if (c < 0x20 || c == 0x7f)
                        return "the name contains a control character";
                if (c >= 0x80)
                        return "the name contains a non-ASCII character";
                return "the name contains a character other than [A-Za-z0-9:_.@\\-]";
        }
        return NULL;
}

bool unit_name_is_valid(const char *name) {
        return !unit_name_invalid_reason(name);
}

bool unit_name_has_suffix(const char *name) {
        size_t l = strlen(name), s = strlen(UNIT_NAME_SUFFIX);

        return l > s && streq(name + l - s, UNIT_NAME_SUFFIX);
}

char *unit_name_strip_suffix(char *name) {
        if (unit_name_has_suffix(name))
                name[strlen(name) - strlen(UNIT_NAME_SUFFIX)] = '\0';
        return name;
}

int unit_name_from_filename(const char *filename, char **ret) {
        _cleanup_free_ char *name = NULL;

        assert(filename);
        assert(ret);

        if (!unit_name_has_suffix(filename))
                return -EINVAL;
        name = strdup(filename);
        if (!name)
                return -ENOMEM;
        if (!unit_name_is_valid(unit_name_strip_suffix(name)))
                return -EINVAL;
        *ret = TAKE_PTR(name);
        return 0;
}

bool unit_name_is_template(const char *name) {
        const char *at = name ? strchr(name, '@') : NULL;

        return at && at > name && at[1] == '\0';
}

int unit_name_template_of(const char *name, char **ret) {
        const char *at;
        char *t;

        assert(name);
        assert(ret);

        at = strchr(name, '@');
        if (!at || at == name || at[1] == '\0' || streq(at + 1, UNIT_NAME_SUFFIX))
                return -EINVAL;
        t = strndup(name, (size_t) (at - name) + 1);
        if (!t)
                return -ENOMEM;
        *ret = t;
        return 0;
}
