/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Specifiers in unit files (systemd.unit(5), "Specifiers"), resolved when the unit is loaded, for
 * the unit `name` (svd's name, without ".service"; "web@8080" for an instance of the template
 * web@.service, "web@" for the template itself):
 *
 *   %n  full unit name ("web@8080.service")   %N  the same without the type suffix
 *   %p  prefix, before '@' ("web")            %i  instance, after '@' ("8080"), "" without one
 *   %I  the instance unescaped ("\x2d" a '-', '-' a '/')   %f  "/" and the unescaped instance
 *   (or, without one, the unescaped prefix)   %j  the prefix's last '-'-separated part
 *   %t  runtime directory ("/run", or $XDG_RUNTIME_DIR for svd as another user)
 *   %S  state directory ("/var/lib", or $XDG_STATE_HOME, default ~/.local/state)
 *   %C  cache directory ("/var/cache", or $XDG_CACHE_HOME, default ~/.cache)
 *   %L  logs directory ("/var/log", or the state directory's "log")
 *   %E  configuration directory ("/etc", or $XDG_CONFIG_HOME, default ~/.config)
 *   %h  the home directory, %u the user name, %U the uid of the user svd runs as (systemd's
 *       meaning: the service manager's user, not User=); root is "/root", "root", 0, others take
 *       $HOME and $USER (svd does no user database lookups while it runs)
 *   %m  the machine ID (/etc/machine-id)
 *   %%  a literal '%'
 *
 * Any other specifier, and one whose value is not known (%t without $XDG_RUNTIME_DIR), fails with
 * -EINVAL (-ENXIO for an unknown value) and the specifier's letter in *ret_bad ('\0' for a lone '%'
 * at the end).
 */

int unit_specifier_expand(const char *s, const char *name, char **ret, char *ret_bad);
