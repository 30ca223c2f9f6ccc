/* SPDX-License-Identifier: MIT */
/* sandcap doctor's policy-access check (doctor-access.h).  No I/O. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/doctor-access.h"
#include "macro.h"

static bool
in_list(const char *name, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (streq(list[i], name))
			return true;
	return false;
}

enum doctor_access
doctor_access_check(const struct policy *p, const char *user, const char *const *db_groups,
		    size_t n_db, const char *const *session_groups, size_t n_session, char *what,
		    size_t whatlen, char *fix, size_t fixlen)
{
	struct policy_subject db = { .user = user, .groups = db_groups, .ngroups = n_db };
	struct policy_subject sess = { .user = user,
				       .groups = session_groups,
				       .ngroups = n_session };
	struct policy_resolved r, rs;
	const char *const *allow;
	size_t n_allow = policy_allow_groups(p, &allow);

	fix[0] = '\0';
	policy_resolve(p, &db, &r);
	if (!r.allowed) {
		snprintf(what, whatlen, "the policy does not let user %s run sandboxes: %s", user,
			 r.deny_reason);
		if (n_allow > 0 && !in_list(allow[0], db_groups, n_db))
			snprintf(fix, fixlen,
				 "as root: adduser %s %s (or usermod -aG %s %s); then "
				 "%s logs out and back in, so that the new group applies",
				 user, allow[0], allow[0], user, user);
		else
			snprintf(fix, fixlen,
				 "ask the admin: sandcap policy show --user %s shows "
				 "which section of the policy refuses you",
				 user);
		return DOCTOR_ACCESS_DENIED;
	}
	policy_resolve(p, &sess, &rs);
	if (!rs.allowed) {
		const char *g = "";

		for (size_t i = 0; i < n_allow && g[0] == '\0'; i++)
			if (in_list(allow[i], db_groups, n_db) &&
			    !in_list(allow[i], session_groups, n_session))
				g = allow[i];
		snprintf(what, whatlen,
			 "the policy lets user %s run sandboxes through group %s, "
			 "which this login session does not have yet (added after you logged in)",
			 user, g[0] ? g : "(a new group)");
		snprintf(fix, fixlen,
			 "log out and back in (a new SSH or desktop login), or run "
			 "'newgrp %s' in this shell",
			 g[0] ? g : "GROUP");
		return DOCTOR_ACCESS_RELOGIN;
	}
	snprintf(what, whatlen, "the policy lets user %s run sandboxes", user);
	return DOCTOR_ACCESS_OK;
}
