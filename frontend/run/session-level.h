/* SPDX-License-Identifier: MIT */
/* A session's cgroup level or scope, bound to its id (session-level.c).  A call runs as the
 * user and, without --fs, can rewrite every file of the session's directory; what decides
 * where a call runs is therefore the id on the caller's command line (its mode,
 * session_id_mode()) and what the sandbox cannot forge: the helper's level, named after the
 * id and checked live by the helper when the call joins it, and the user manager's word on
 * the session's scope. */
#pragma once

#include <stddef.h>

#include "run/session-cgroup.h"
#include "run/session-state.h"

/* The keeper, once the helper made the level: rename the session's directory (under
 * rootfd) and its state to the id named after the level (SESSION_ID_CGROUP and the level's
 * first 11 hex digits); s->id becomes it.  -errno with the reason in err. */
int sesscg_adopt_id(int rootfd, int dfd, struct session_state *s, const char *level, char *err,
		    size_t errlen);
/* sesscg_read() of session id's directory, refused (-EPERM, the reason in err) unless the
 * level is the one named after id and the workspace is that level's under the policy's
 * workspace_root. */
int sesscg_read_own(int dfd, const char *id, struct sesscg *g, char *err, size_t errlen);
/* The scope path the "ucg" file gives (scope), checked against the user manager's
 * sandcap-sess-<id>.scope: 0 when they are the same running unit's; -errno, with the
 * reason and the fix in err, when the scope is gone, differs, or the manager cannot be
 * asked. */
int session_scope_check(const char *id, const char *scope, char *err, size_t errlen);
