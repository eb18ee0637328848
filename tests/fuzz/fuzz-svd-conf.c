/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * svd_conf_load_string() (daemon/svd-conf.c) on arbitrary bytes: inih, the reader that feeds it one
 * line at a time, every key's parser and the units' defaults through unit_defaults_set().
 *
 * Checks what svd-conf.h promises besides "no crash, no leak": every message names the file, is
 * bounded and valid UTF-8 (svd logs it), there are at most SVD_CONF_MESSAGES_MAX + 1 of them, the
 * result is 1 or a negative errno, and an error comes with at least one error message; what was
 * read is what the keys allow (absolute paths, a unit name, a level from 0 to 7).
 */
#include <jansson.h>
#include <string.h>
#include <syslog.h>

#include "basic/macros.h"
#include "basic/unit-name.h"
#include "fuzz.h"
#include "svd-conf.h"

#define FUZZ_MESSAGE_MAX 4096U

typedef struct Seen {
        size_t messages;
        size_t errors;
} Seen;

static void on_message(int level, const char *message, void *userdata) {
        Seen *seen = userdata;
        json_t *j = json_string(message);

        fuzz_assert(level == LOG_ERR || level == LOG_WARNING);
        fuzz_assert(strlen(message) < FUZZ_MESSAGE_MAX);
        fuzz_assert(strncmp(message, "fuzz.conf", 9) == 0);
        fuzz_assert(j); /* valid UTF-8 */
        json_decref(j);
        seen->messages++;
        seen->errors += level == LOG_ERR;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(svd_conf_done) SvdConf c = {};
        Seen seen = {};

        svd_conf_init(&c);
        int r = svd_conf_load_string(&c, (const char *) data, size, "fuzz.conf", on_message, &seen);
        fuzz_assert(r == 1 || r < 0);
        fuzz_assert(seen.messages <= SVD_CONF_MESSAGES_MAX + 1);
        /* Every error is reported, unless the flood of messages cut it off. */
        if (r < 0 && seen.messages <= SVD_CONF_MESSAGES_MAX)
                fuzz_assert(seen.errors > 0);
        if (r == 1)
                fuzz_assert(seen.errors == 0);
        if (c.unit_dir)
                fuzz_assert(c.unit_dir[0] == '/');
        if (c.socket_path)
                fuzz_assert(c.socket_path[0] == '/');
        if (c.main_service)
                fuzz_assert(unit_name_is_valid(c.main_service));
        fuzz_assert(c.log_level >= -1 && c.log_level <= 7);
        fuzz_assert(c.forward_output >= LOG_CONSOLE_OFF && c.forward_output <= LOG_CONSOLE_TIME);
        fuzz_assert(!c.unit_defaults.limit_nofile.set ||
                    c.unit_defaults.limit_nofile.soft <= c.unit_defaults.limit_nofile.hard);
        return 0;
}
