/* SPDX-License-Identifier: MIT */
/* A session's cgroup level or scope, bound to its id (session-level.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgroup/usercg-unit.h"
#include "macro.h"
#include "policy.h"
#include "run/run-int.h"
#include "run/session-io.h"
#include "run/session-level.h"
#include "supervise/control.h"

int
sesscg_adopt_id(int rootfd, int dfd, struct session_state *s, const char *level, char *err,
		size_t errlen)
{
	static struct session_state n; /* the keeper's, once: large for its stack */
	static char text[SESSION_STATE_MAX];
	const char *hex = strchr(level, '-');
	int len, r;

	n = *s;
	if (hex == NULL || strlen(hex + 1) != 16) {
		snprintf(err, errlen, "the helper named the session's level '%s'", level);
		return -EPROTO;
	}
	n.id[0] = SESSION_ID_CGROUP;
	memcpy(n.id + 1, hex + 1, SESSION_ID_LEN - 1);
	n.id[SESSION_ID_LEN] = '\0';
	len = session_state_format(&n, text, sizeof(text));
	if (len < 0) {
		snprintf(err, errlen, "cannot write the session's state: %s", strerror(-len));
		return len;
	}
	if (renameat2(rootfd, s->id, rootfd, n.id, RENAME_NOREPLACE) < 0) {
		r = -errno;
		snprintf(err, errlen, "cannot name the session after its level: %s", strerror(-r));
		return r;
	}
	r = session_write_file(dfd, "state", text, (size_t) len);
	if (r < 0) {
		(void) renameat2(rootfd, n.id, rootfd, s->id, RENAME_NOREPLACE);
		snprintf(err, errlen, "cannot write the session's state: %s", strerror(-r));
		return r;
	}
	memcpy(s->id, n.id, sizeof(s->id));
	return 0;
}

int
sesscg_read_own(int dfd, const char *id, struct sesscg *g, char *err, size_t errlen)
{
	struct policy *p = NULL;
	char want[SESSION_PATH_MAX + 64], msg[512] = "";
	unsigned uid = (unsigned) control_uid();
	int r, fd;

	if (sesscg_read(dfd, g) < 0) {
		snprintf(err, errlen,
			 "session %s: its cgroup record is unreadable (a call may "
			 "have changed it, or its level is gone); end it with sandcap session "
			 "end %s",
			 id, id);
		return -EINVAL;
	}
	if (!session_level_matches(id, g->level, uid)) {
		snprintf(err, errlen,
			 "session %s: its cgroup record names the level %s, not the session's own "
			 "(a call rewrote it); end it with sandcap session end %s",
			 id, g->level, id);
		return -EPERM;
	}
	r = load_policy(&p, msg, sizeof(msg));
	if (r < 0) {
		snprintf(err, errlen, "session %s: %s", id,
			 r == -ENOENT ? "no policy file names the helper's workspace_root, where "
					"its workspace must be"
				      : msg);
		return -EPERM;
	}
	snprintf(want, sizeof(want), "%s/%u/%s", policy_workspace_root(p), uid, g->level);
	policy_free(p);
	if (!streq(g->workspace, want)) {
		snprintf(err, errlen,
			 "session %s: its cgroup record names the workspace %s, not its level's "
			 "%s (a call rewrote it); end it with sandcap session end %s",
			 id, g->workspace, want, id);
		return -EPERM;
	}
	/* The helper removes the level's workspace with the level (its keeper killed, the
	 * TTL): said here with the fix, before the helper refuses the call. */
	fd = open(want, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen,
			 "session %s: its level %s is gone (its keeper was killed, or the TTL "
			 "passed); end it with sandcap session end %s",
			 id, g->level, id);
		return -ENOENT;
	}
	close(fd);
	return 0;
}

int
session_scope_check(const char *id, const char *scope, char *err, size_t errlen)
{
	char unit[64], path[PATH_MAX], why[512];
	int r;

	snprintf(unit, sizeof(unit), "sandcap-sess-%s.scope", id);
	r = usercg_unit_cgroup(unit, path, sizeof(path), why, sizeof(why));
	if (r == -ENOENT)
		snprintf(err, errlen,
			 "its scope %s is gone (the TTL passed, or the keeper was killed and the "
			 "scope emptied); end it with sandcap session end %s",
			 unit, id);
	else if (r < 0)
		snprintf(err, errlen,
			 "cannot ask your systemd user manager whether its scope %s still runs "
			 "(%s), and its calls run only there; try again once the manager answers, "
			 "or end it with sandcap session end %s",
			 unit, why, id);
	else if (!streq(path, scope)) {
		snprintf(err, errlen,
			 "its record names the scope %s, but your user manager's %s is %s (a call "
			 "rewrote the record); end it with sandcap session end %s",
			 scope, unit, path, id);
		r = -EPERM;
	}
	return r;
}
