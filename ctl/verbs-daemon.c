/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The verbs that concern svd itself rather than a service: info (svd's version,
 * kernel, mode, cgroups), daemon-reload and reload without names (re-read the
 * unit directory) and daemon-reexec (run svd's binary anew). */
#include <stdio.h>
#include <stdlib.h>

#include "call.h"
#include "options.h"
#include "output.h"
#include "verbs.h"

#define METHOD_INFO "io.svd.Manager.Info"
#define METHOD_RELOAD "io.svd.Manager.Reload"
#define METHOD_REEXEC "io.svd.Manager.Reexec"

/* ---- info ---- */

int verb_info(VarlinkClient *c, int argc, char **argv) {
        _cleanup_json_ json_t *reply = NULL;
        int64_t v;

        int r = call_or_fail(c, METHOD_INFO, "get svd's info", &reply);
        if (r != 0)
                return r;

        json_t *p = reply_parameters(reply);
        if (arg_json)
                return print_json(p);

        const char *mode = json_get_str(p, "mode") ?: "-";
        const char *reason = json_get_str(p, "modeReason");
        _cleanup_free_ char *flags = join_strings(json_object_get(p, "flags"), /* exec_quoting= */ false);

        print_info_line("Version", "%s", json_get_str(p, "version") ?: "-");
        print_info_line("Kernel", "%s", json_get_str(p, "kernel") ?: "-");
        print_info_line("Mode", "%s", mode);
        print_info_line("Mode reason", "%s", isempty(reason) ? "-" : reason);
        print_info_line("Flags", "%s", isempty(flags) ? "-" : flags);
        if (json_get_int(p, "pid", &v))
                print_info_line("PID", "%lld", (long long) v);
        else
                print_info_line("PID", "-");
        if (json_get_int(p, "uid", &v))
                print_info_line("UID", "%lld", (long long) v);
        else
                print_info_line("UID", "-");
        print_info_line("Unit directory", "%s", json_get_str(p, "unitDirectory") ?: "-");
        print_info_line("Socket", "%s", json_get_str(p, "socket") ?: "-");
        if (json_get_int(p, "services", &v))
                print_info_line("Services", "%lld", (long long) v);
        else
                print_info_line("Services", "-");
        const char *trees = json_get_str(p, "processTrees");
        if (trees)
                print_info_line("When svd dies", "%s: %s",
                                streq(trees, "whole-trees") ? "every process of every service dies" : "main processes die",
                                json_get_str(p, "processTreesReason") ?: "-");
        if (json_get_int(p, "guardPid", &v))
                print_info_line("Guard", "%lld", (long long) v);
        json_t *cg = json_object_get(p, "cgroup");
        const char *cg_reason = json_get_str(p, "cgroupReason");
        print_info_line("Cgroups", "%s: %s", json_is_true(cg) ? "yes" : "no", isempty(cg_reason) ? "-" : cg_reason);
        /* An older svd does not tell which controllers are missing. */
        _cleanup_free_ char *missing = join_strings(json_object_get(p, "cgroupControllersMissing"),
                                                    /* exec_quoting= */ false);
        if (!isempty(missing)) {
                print_info_line("Missing controllers", "%s (MemoryMax=, TasksMax=, CPUWeight= need memory, pids, "
                                "cpu: not applied without)", missing);
                print_info_line("To get them", "systemd's Delegate=%s for svd.service, on a unified cgroup "
                                "hierarchy (a hybrid or legacy one keeps controllers in cgroup v1: boot with "
                                "systemd.unified_cgroup_hierarchy=1)", missing);
        }
        /* An older svd does not say it. */
        json_t *access = json_object_get(p, "accessLists");
        if (access)
                print_info_line("Access lists", "%s: %s", json_is_true(access) ? "yes" : "no",
                                json_get_str(p, "accessListsReason") ?: "-");
        if (access && !json_is_true(access))
                print_info_line("Refused", "units whose DevicePolicy=, DeviceAllow=, IPAddressAllow=, IPAddressDeny= "
                                "restrict anything (they need the BPF programs on the service's cgroup)");

        return EXIT_SUCCESS;
}

/* ---- daemon-reload, daemon-reexec ---- */

static void print_names(const char *label, json_t *names) {
        size_t i;
        json_t *n;

        if (json_array_size(names) == 0)
                return;
        printf("%s:", label);
        json_array_foreach(names, i, n) {
                fputc(' ', stdout);
                fputs_escaped(json_string_value(n) ?: "?", stdout);
        }
        fputc('\n', stdout);
}

int verb_daemon_reload(VarlinkClient *c, int argc, char **argv) {
        _cleanup_json_ json_t *reply = NULL;

        int r = call_or_fail(c, METHOD_RELOAD, "reload units", &reply);
        if (r != 0)
                return r;
        json_t *p = reply_parameters(reply);
        if (arg_json)
                return print_json(p);
        json_t *added = json_object_get(p, "added"), *changed = json_object_get(p, "changed"),
               *removed = json_object_get(p, "removed");
        if (json_array_size(added) + json_array_size(changed) + json_array_size(removed) == 0) {
                puts("No changes.");
                return EXIT_SUCCESS;
        }
        print_names("Added", added);
        print_names("Changed", changed);
        print_names("Removed", removed);
        return EXIT_SUCCESS;
}

int verb_daemon_reexec(VarlinkClient *c, int argc, char **argv) {
        _cleanup_json_ json_t *reply = NULL;
        int r = call_or_fail(c, METHOD_REEXEC, "re-execute svd", &reply);
        if (r != 0)
                return r;
        json_t *p = reply_parameters(reply);
        if (arg_json)
                return print_json(p);
        printf("svd %s (pid %lld) took over %lld services, %lld processes.\n",
               json_string_value(json_object_get(p, "version")) ?: "?",
               (long long) json_integer_value(json_object_get(p, "pid")),
               (long long) json_integer_value(json_object_get(p, "services")),
               (long long) json_integer_value(json_object_get(p, "processes")));
        return EXIT_SUCCESS;
}
