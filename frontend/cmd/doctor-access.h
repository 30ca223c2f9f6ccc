/* SPDX-License-Identifier: MIT */
/* sandcap doctor: does the policy let this user run sandboxes, and does this login session
 * already have the groups that allow it?  Pure (no I/O): unit-tested. */
#pragma once

#include <stddef.h>

#include "policy.h"

enum doctor_access {
	DOCTOR_ACCESS_OK,      /* allowed, and this session has what allows it */
	DOCTOR_ACCESS_DENIED,  /* the policy refuses the user */
	DOCTOR_ACCESS_RELOGIN, /* allowed by a group this session lacks: log in again */
};

/* db_groups: the user's groups in the group database (what sandcap-helper resolves);
 * session_groups: the groups of this process (what a login started with).  Writes one
 * line saying what holds into what and the fix (or "") into fix. */
enum doctor_access doctor_access_check(const struct policy *p, const char *user,
				       const char *const *db_groups, size_t n_db,
				       const char *const *session_groups, size_t n_session,
				       char *what, size_t whatlen, char *fix, size_t fixlen);
