/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The version of this build and the newest re-exec state version it writes and reads. */
#include "version.h"

#ifndef SVD_BUILD_VERSION
#define SVD_BUILD_VERSION SVD_VERSION
#endif
#ifndef SVD_BUILD_STATE_VERSION
#define SVD_BUILD_STATE_VERSION 1
#endif

const char svd_version[] = SVD_BUILD_VERSION;
const unsigned svd_state_version = SVD_BUILD_STATE_VERSION;
