/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The values of the command and exit-status keys of [Service] that are not command lines: the names of
 * the Exec*= keys, exit-status sets (SuccessExitStatus= and the Restart*ExitStatus= keys) and
 * KillMode= (unit.h). */
#include <string.h>

#include "basic/extract-word.h"
#include "basic/macros.h"
#include "basic/parse-util.h"
#include "basic/string-table.h"
#include "unit.h"

static const char *const unit_exec_table[_UNIT_EXEC_MAX] = {
        [UNIT_EXEC_START_PRE] = "ExecStartPre", [UNIT_EXEC_START] = "ExecStart",
        [UNIT_EXEC_START_POST] = "ExecStartPost", [UNIT_EXEC_RELOAD] = "ExecReload",
        [UNIT_EXEC_STOP] = "ExecStop",          [UNIT_EXEC_STOP_POST] = "ExecStopPost",
};

DEFINE_STRING_TABLE_LOOKUP_TO_STRING(unit_exec, UnitExec);

static const char *const kill_mode_table[_KILL_MODE_MAX] = {
        [KILL_MODE_CONTROL_GROUP] = "control-group",
        [KILL_MODE_MIXED] = "mixed",
        [KILL_MODE_PROCESS] = "process",
        [KILL_MODE_NONE] = "none",
};

DEFINE_STRING_TABLE_LOOKUP(kill_mode, KillMode);

/* The exit status names systemd accepts besides numbers (systemd.exec(5), "Process Exit Codes"): the
 * LSB init script codes and the BSD sysexits.h codes. */
static const struct {
        const char *name;
        int status;
} exit_status_names[] = {
        { "INVALIDARGUMENT", 2 }, { "NOTIMPLEMENTED", 3 }, { "NOPERMISSION", 4 }, { "NOTINSTALLED", 5 },
        { "NOTCONFIGURED", 6 },   { "NOTRUNNING", 7 },     { "USAGE", 64 },       { "DATAERR", 65 },
        { "NOINPUT", 66 },        { "NOUSER", 67 },        { "NOHOST", 68 },      { "UNAVAILABLE", 69 },
        { "SOFTWARE", 70 },       { "OSERR", 71 },         { "OSFILE", 72 },      { "CANTCREAT", 73 },
        { "IOERR", 74 },          { "TEMPFAIL", 75 },      { "PROTOCOL", 76 },    { "NOPERM", 77 },
        { "CONFIG", 78 },
};

static int exit_status_from_word(const char *w) {
        uint64_t v;

        if (safe_atou64(w, &v) >= 0)
                return v <= 255 ? (int) v : -ERANGE;
        for (size_t i = 0; i < ELEMENTSOF(exit_status_names); i++)
                if (streq(w, exit_status_names[i].name))
                        return exit_status_names[i].status;
        return -EINVAL;
}

int exit_status_set_parse(const char *value, ExitStatusSet *set, char **ret_bad) {
        const char *p = value;
        ExitStatusSet add = *set;

        if (!value || !*value) {
                *set = (ExitStatusSet){};
                return 0;
        }
        for (;;) {
                _cleanup_free_ char *w = NULL;
                int r = extract_first_word(&p, &w);
                if (r < 0)
                        return r;
                if (r == 0)
                        break;
                int status = exit_status_from_word(w), sig;
                if (status >= 0)
                        add.status[status / 64] |= UINT64_C(1) << (status % 64);
                else if (!strchr("0123456789", w[0]) && signal_from_string(w, &sig) >= 0 && sig >= 1 && sig <= 64)
                        add.signals |= UINT64_C(1) << (sig - 1);
                else {
                        if (ret_bad)
                                *ret_bad = TAKE_PTR(w);
                        return -EINVAL;
                }
        }
        *set = add;
        return 0;
}

bool exit_status_set_has_status(const ExitStatusSet *set, int status) {
        return status >= 0 && status <= 255 && (set->status[status / 64] & (UINT64_C(1) << (status % 64)));
}

bool exit_status_set_has_signal(const ExitStatusSet *set, int sig) {
        return sig >= 1 && sig <= 64 && (set->signals & (UINT64_C(1) << (sig - 1)));
}

bool exit_status_set_is_empty(const ExitStatusSet *set) {
        return !set->status[0] && !set->status[1] && !set->status[2] && !set->status[3] && !set->signals;
}
