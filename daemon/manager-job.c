/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The operator's start, stop and restart: what a name means, what is refused, and what is recorded. */
#include "manager.h"

#include "basic/string-table.h"
#include "basic/unit-name.h"
#include "deps.h"

static const char *const manager_job_table[_MANAGER_JOB_MAX] = {
        [MANAGER_JOB_START] = "start",
        [MANAGER_JOB_STOP] = "stop",
        [MANAGER_JOB_RESTART] = "restart",
};

DEFINE_STRING_TABLE_LOOKUP(manager_job, ManagerJob);

int manager_job_prepare(Manager *m, ManagerJob job, const char *name, bool record, Service **ret,
                        const char **ret_refusal) {
        bool starts = job != MANAGER_JOB_STOP;
        Service *s;

        assert(m);
        assert(ret);
        assert(ret_refusal);

        s = service_lookup(&m->ctx, name);
        /* A start makes an instance of a template ("web@8080" of web@.service). */
        if (!s && starts)
                s = manager_instantiate(m, name);
        if (!s)
                return -ESRCH;
        *ret = s;
        if (starts) {
                /* systemd refuses to start a template itself. */
                if (unit_name_is_template(s->name)) {
                        *ret_refusal = "a template is started as an instance, NAME@INSTANCE";
                        return -EBADR;
                }
                /* A unit whose file a reload removed runs on until stopped, but does not start again. */
                if (s->removed) {
                        *ret_refusal = "the unit file was removed (svctl reload)";
                        return -EBADR;
                }
                /* A settled service takes the definition a reload left pending for it. */
                manager_apply_pending(m, s);
        }
        if (record)
                manager_record_wanted(m, s, starts);
        return 0;
}

ServiceOpFn manager_job_op(ManagerJob job) {
        static const ServiceOpFn ops[_MANAGER_JOB_MAX] = {
                [MANAGER_JOB_START] = deps_start,
                [MANAGER_JOB_STOP] = deps_stop,
                [MANAGER_JOB_RESTART] = deps_restart,
        };
        assert(job >= 0 && job < _MANAGER_JOB_MAX);
        return ops[job];
}
