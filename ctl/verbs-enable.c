/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* svctl's verbs of enabling, as systemctl has them: enable, disable (svd makes the links in its unit
 * directory), is-enabled and list-unit-files, with systemctl's messages and exit codes. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"
#include "options.h"
#include "output.h"
#include "verbs.h"

#define METHOD_ENABLE_UNIT_FILE "io.svd.Manager.EnableUnitFile"
#define METHOD_DISABLE_UNIT_FILE "io.svd.Manager.DisableUnitFile"
#define METHOD_GET_UNIT_FILE_STATE "io.svd.Manager.GetUnitFileState"
#define METHOD_LIST_UNIT_FILES "io.svd.Manager.ListUnitFiles"

/* ---- enable, disable ---- */

/* systemctl's words for a unit without [Install], adapted to svd (which has no activation). */
static void print_static_hint(void) {
        fputs("The unit files have no installation config (WantedBy=, RequiredBy=, Also=\n"
              "settings in the [Install] section). This means they are not meant to be\n"
              "enabled or disabled using svctl.\n"
              " \n"
              "Possible reasons for having this kind of units are:\n"
              "\u2022 A unit may be statically enabled by being symlinked from the\n"
              "  default.target.wants/ directory of the unit directory.\n"
              "\u2022 A unit's purpose may be to act as a helper for some other unit which has\n"
              "  a requirement dependency on it.\n"
              "\u2022 In case of template units, the unit is meant to be enabled with some\n"
              "  instance name specified.\n",
              stderr);
}

/* "Created symlink PATH → SOURCE." and "Removed "PATH".", as systemctl reports its changes. */
static void print_changes(json_t *changes) {
        size_t i;
        json_t *c;

        json_array_foreach(changes, i, c) {
                const char *type = json_get_str(c, "type"), *path = json_get_str(c, "path") ?: "?";
                if (type && streq(type, "symlink")) {
                        fputs("Created symlink ", stderr);
                        fputs_escaped(path, stderr);
                        fputs(" \u2192 ", stderr);
                        fputs_escaped(json_get_str(c, "source") ?: "?", stderr);
                        fputs(".\n", stderr);
                } else if (type && streq(type, "unlink")) {
                        fputs("Removed \"", stderr);
                        fputs_escaped(path, stderr);
                        fputs("\".\n", stderr);
                }
        }
}

/* A unit that Also= names, not the one asked for, is what a failure may be about: say so. */
static int install_failure(const char *action, const char *name, const char *error, json_t *reply) {
        const char *other = json_get_str(reply_parameters(reply), "name");

        if (other && !streq(other, name) && streq(error, ERROR_NO_SUCH_SERVICE)) {
                log_error("Failed to %s '%s': Unit %s.service (of its Also=) not found.", action, name,
                          other);
                return EXIT_PROGRAM_OR_SERVICES_STATUS_UNKNOWN;
        }
        return log_call_failure(action, name, 0, error, reply);
}

static int verb_install(VarlinkClient *c, int argc, char **argv, const char *method, const char *action) {
        bool static_units = false;
        int ret = EXIT_SUCCESS;

        for (int i = 1; i < argc; i++) {
                _cleanup_json_ json_t *reply = NULL;
                const char *error;

                int r = call(c, method, argv[i], &reply, &error);
                if (r < 0) {
                        (void) log_call_failure(action, argv[i], r, NULL, NULL);
                        return ret != EXIT_SUCCESS ? ret : r;
                }
                if (error) {
                        /* As start: report, go on with the others, exit with the first failure. */
                        int k = install_failure(action, argv[i], error, reply);
                        if (ret == EXIT_SUCCESS)
                                ret = k;
                        continue;
                }
                json_t *p = reply_parameters(reply);
                if (arg_json) {
                        r = print_json(p);
                        if (r < 0)
                                return r;
                } else if (!arg_quiet)
                        print_changes(json_object_get(p, "changes"));
                if (json_is_false(json_object_get(p, "carriesInstallInfo")))
                        static_units = true;
        }
        if (static_units && !arg_quiet && !arg_json)
                print_static_hint();
        return ret;
}

int verb_enable(VarlinkClient *c, int argc, char **argv) {
        return verb_install(c, argc, argv, METHOD_ENABLE_UNIT_FILE, "enable");
}

int verb_disable(VarlinkClient *c, int argc, char **argv) {
        return verb_install(c, argc, argv, METHOD_DISABLE_UNIT_FILE, "disable");
}

/* ---- is-enabled ---- */

/* systemctl is-enabled: each state on its own line (unless -q); 0 when one of the units is enabled,
 * static, indirect or an alias (their exit code 0 in systemctl(1)'s table), else 1; 4 when none is
 * and a name is no unit, as svctl's other verbs say "no such unit". */
int verb_is_enabled(VarlinkClient *c, int argc, char **argv) {
        bool enabled = false, not_found = false;

        for (int i = 1; i < argc; i++) {
                _cleanup_json_ json_t *reply = NULL;
                const char *error, *state = "not-found";

                int r = call(c, METHOD_GET_UNIT_FILE_STATE, argv[i], &reply, &error);
                if (r < 0) {
                        (void) log_call_failure("get unit file state for", argv[i], r, NULL, NULL);
                        return r;
                }
                if (error && !streq(error, ERROR_NO_SUCH_SERVICE)) {
                        int k = log_call_failure("get unit file state for", argv[i], 0, error, reply);
                        return k > 0 ? -k : -EIO;
                }
                json_t *unit_file = json_object_get(reply_parameters(reply), "unitFile");
                if (error)
                        not_found = true;
                else
                        state = json_get_str(unit_file, "state") ?: "?";
                if (streq(state, "enabled") || streq(state, "static") || streq(state, "indirect") ||
                    streq(state, "alias"))
                        enabled = true;
                if (arg_json) {
                        _cleanup_json_ json_t *missing = NULL;
                        if (!unit_file)
                                unit_file = missing = json_pack("{s:s+,s:s}", "name", argv[i], ".service",
                                                                "state", state);
                        if (!unit_file)
                                return -ENOMEM;
                        r = print_json(unit_file);
                        if (r < 0)
                                return r;
                } else if (!arg_quiet)
                        puts(state);
        }
        if (enabled)
                return EXIT_SUCCESS;
        return not_found ? EXIT_PROGRAM_OR_SERVICES_STATUS_UNKNOWN : EXIT_FAILURE;
}

/* ---- list-unit-files ---- */

/* Whether the file's name matches one of the patterns (all match without any), as systemctl's
 * list-unit-files PATTERN... */
static bool matches(const char *file, int argc, char **argv) {
        if (argc <= 1)
                return true;
        for (int i = 1; i < argc; i++) {
                _cleanup_free_ char *with_suffix = NULL;
                if (fnmatch(argv[i], file, 0) == 0)
                        return true;
                /* "web*" as "web*.service", as names are taken without the suffix elsewhere. */
                if (asprintf(&with_suffix, "%s.service", argv[i]) >= 0 && fnmatch(with_suffix, file, 0) == 0)
                        return true;
        }
        return false;
}

int verb_list_unit_files(VarlinkClient *c, int argc, char **argv) {
        _cleanup_json_ json_t *files = NULL, *error_reply = NULL;
        const char *error = NULL;
        size_t i, n = 0, width = strlen("UNIT FILE");
        json_t *f;

        int r = call_chunks(c, METHOD_LIST_UNIT_FILES, "unitFiles", &files, &error_reply, &error);
        if (r < 0 || error) {
                int k = log_call_failure("list unit files", NULL, r, error, error_reply);
                return r < 0 ? r : k;
        }
        json_array_foreach(files, i, f) {
                const char *name = json_get_str(f, "name") ?: "?";
                if (!matches(name, argc, argv))
                        continue;
                n++;
                if (escaped_width(name) > width)
                        width = escaped_width(name);
        }
        if (!arg_json)
                printf("%-*s STATE\n", (int) width, "UNIT FILE");
        json_array_foreach(files, i, f) {
                const char *name = json_get_str(f, "name") ?: "?";
                if (!matches(name, argc, argv))
                        continue;
                if (arg_json) {
                        r = print_json(f);
                        if (r < 0)
                                return r;
                        continue;
                }
                fputs_escaped(name, stdout);
                printf("%*s ", (int) (width - escaped_width(name)), "");
                fputs_escaped(json_get_str(f, "state") ?: "?", stdout);
                fputc('\n', stdout);
        }
        if (!arg_json)
                printf("\n%zu unit files listed.\n", n);
        return EXIT_SUCCESS;
}
