/* SPDX-License-Identifier: MIT */
/*
 * Contract: the session's objects and their teardown, and the KILL and DESTROY requests.
 * Trusts only what the session itself created (names, fds).  Teardown order is the reverse of
 * creation: kill, wait for "populated 0", empty, shrink, unmount and remove the workspace,
 * remove the leaf, then the lock file.  The per-user dirs stay (root-owned, empty, the totals
 * in place), shared by the user's next sandboxes.  Whatever cannot be removed stays behind with
 * the lock released, for the next run of the same user to reclaim.  Capabilities: through
 * priv.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "deadline-record.h"
#include "log.h"
#include "macro.h"
#include "priv.h"
#include "session.h"

int
sandbox_remove(struct session *s, const char *id, int ws_fd, char *msg, size_t msglen)
{
	char name[CG_NAME_MAX + 8];
	int r = 0;

	/* Without the per-user dirs the user has no workspace and no leaf.  The workspace is
	 * emptied and shrunk before it is detached: nothing written in the sandbox stays
	 * charged, and a descriptor held from outside cannot refill it. */
	if (s->uiddir_fd >= 0 && s->ucg_fd >= 0)
		r = ws_empty(s->uiddir_fd, id, ws_fd);
	if (r < 0)
		snprintf(msg, msglen,
			 r == -EBUSY ? "workspace %s/%u/%s is held open by a process outside the "
				       "sandbox: kept (with its cgroup) until it is released"
				     : "cannot empty workspace %s/%u/%s: %s",
			 policy_workspace_root(s->policy), (unsigned) s->uid, id, strerror(-r));
	/* Detach the workspace and remove its mount point, remove the leaf (a few bounded
	 * retries: rmdir can report EBUSY briefly after populated 0), then the lock file (never
	 * before the leaf: a leaf never exists without its lock file) and the record.  Each is
	 * a fixed name this session or a dead helper of the user made in a root-owned dir. */
	if (r == 0 && s->uiddir_fd >= 0) {
		r = ws_detach(s->uiddir_fd, id);
		if (r < 0)
			snprintf(msg, msglen, "cannot remove workspace of %s: %s", id,
				 strerror(-r));
	}
	if (r == 0 && s->ucg_fd >= 0) {
		r = cg_remove_tree_at(s->ucg_fd, id);
		if (r < 0)
			snprintf(msg, msglen, "cannot remove cgroup %s: %s", id, strerror(-r));
	}
	/* The temporary of its mount point, which only a helper killed while making it
	 * leaves. */
	(void) snprintf(name, sizeof(name), ".new-%s", id);
	if (r == 0 && ws_fd < 0)
		r = priv_unlinkat(s->lockdir_fd, name, AT_REMOVEDIR);
	(void) snprintf(name, sizeof(name), "%s.lock", id);
	if (r == 0 || r == -ENOENT)
		r = priv_unlinkat(s->lockdir_fd, name, 0);
	if (r == -ENOENT)
		r = 0;
	if (r == 0 && s->deadline_fd >= 0 && deadline_name_is_valid(id))
		(void) priv_unlinkat(s->deadline_fd, id, 0);
	return r;
}

int
session_teardown(struct session *s, char *msg, size_t msglen)
{
	int r = 0;

	/* Only SPAWN puts a process in the leaf. */
	if (s->attached) {
		r = s->killed ? 0 : cg_kill_fd(s->kill_fd);
		if (r == 0)
			r = cg_wait_empty(s->events_fd, 10000);
		if (r < 0)
			snprintf(msg, msglen, "sandbox %s did not empty: %s", s->id, strerror(-r));
	}
	/* Nothing of the sandbox is made before its lock file; the other fds (workspace, leaf,
	 * cgroup.kill, cgroup.events) go when the process exits, right after teardown; the
	 * lock is released here: reclaimable. */
	if (r < 0)
		(void) ws_empty(s->uiddir_fd, s->id, s->ws_fd); /* still uncharge what it wrote */
	else if (s->lock_fd >= 0)
		r = sandbox_remove(s, s->id, s->ws_fd, msg, msglen);
	s->lock_fd = safe_close(s->lock_fd);
	if (s->id[0] != '\0') {
		if (r == 0)
			log_info("uid %u: removed sandbox %s", (unsigned) s->uid, s->id);
		else
			log_warning("uid %u: teardown of %s incomplete: %s", (unsigned) s->uid,
				    s->id, msg);
	}
	return r;
}

int
refuse(char *msg, size_t msglen, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(msg, msglen, fmt, ap);
	va_end(ap);
	return r;
}

void
helper_fatal(struct session *s, const char *fmt, ...)
{
	char buf[256], msg[SESSION_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_warning("uid %u pid %d: protocol violation: %s; ending the session", (unsigned) s->uid,
		    (int) s->peer_pid, buf);
	/* Torn down first: stderr is the user's, and a write to it may block. */
	(void) session_teardown(s, msg, sizeof(msg));
	(void) fprintf(stderr, "sandcap-helper: protocol violation: %s\n", buf);
	exit(EXIT_FAILURE);
}

int
op_kill(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body, char *msg,
	size_t msglen)
{
	int r;

	if (wire_get_end(rd) < 0)
		return -EBADMSG;
	log_info("uid %u: kill %s", (unsigned) s->uid, s->id);
	r = cg_kill_fd(s->kill_fd);
	s->killed = r == 0;
	return r;
}

int
op_destroy(struct session *s, struct wire_rd *rd, const int *fds, struct wire_wr *body, char *msg,
	   size_t msglen)
{
	if (wire_get_end(rd) < 0)
		return -EBADMSG;
	return session_teardown(s, msg, msglen);
}
