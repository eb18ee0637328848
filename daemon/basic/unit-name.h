/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * Unit names. A unit file is NAME.service; svd and svctl call the unit NAME
 * and accept "NAME.service" wherever a name is asked for.
 */

#include <stdbool.h>

#define UNIT_NAME_SUFFIX ".service"
#define UNIT_NAME_MAX 255U /* bytes in NAME of NAME.service */

/* NAME without ".service": 1..UNIT_NAME_MAX bytes of systemd's unit name
 * characters [A-Za-z0-9:_.@\-], not starting with '.' or '-'. */
bool unit_name_is_valid(const char *name);

/* Why name is not valid ("the name contains whitespace"), a static string; NULL when it is. */
const char *unit_name_invalid_reason(const char *name);

/* Whether name is something followed by ".service". */
bool unit_name_has_suffix(const char *name);

/* Cuts a ".service" suffix off name, in place, when something precedes it;
 * returns name. */
char *unit_name_strip_suffix(char *name);

/* "web.service" -> "web"; -EINVAL for names that are not a valid
 * NAME.service (empty, too long, '/' or control characters, leading '.'). */
int unit_name_from_filename(const char *filename, char **ret);

/* Templates (systemd.unit(5)): the file NAME@.service is the template "NAME@" of the instances
 * "NAME@INSTANCE". unit_name_is_template(): name ends in its first '@'. unit_name_template_of():
 * "web@8080" (or "web@8080.service") -> "web@"; -EINVAL when name is no instance. */
bool unit_name_is_template(const char *name);
int unit_name_template_of(const char *name, char **ret);
