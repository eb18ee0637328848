/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The version of this build, and the newest re-exec state version it
 * writes and reads (reexec.h). In version.c, apart from everything else,
 * so that a test build can link svd with other values. */
extern const char svd_version[];
extern const unsigned svd_state_version;
