/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The verbs that act on svd itself rather than on a service: daemon-reload and
 * reload without names (re-read the unit directory) and daemon-reexec (run
 * svd's binary anew). */
#include "verbs.h"

#include <stdio.h>
#include <stdlib.h>

#define METHOD_RELOAD "io.svd.Manager.Reload"
#define METHOD_REEXEC "io.svd.Manager.Reexec"

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

int verb_reload(VarlinkClient *c, int argc, char **argv) {
        _cleanup_json_ json_t *reply = NULL;

        /* With names, as systemctl reload NAME: the services' ExecReload=. */
        if (argc > 1 && streq(argv[0], "reload"))
                return verb_reload_services(c, argc, argv);
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
