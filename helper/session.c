/* SPDX-License-Identifier: MIT */
/*
 * Contract: the session's objects and their teardown.  Trusts only what the session
 * itself created (names, fds).  Teardown order is the reverse of creation: kill, wait for
 * "populated 0", empty, shrink, unmount and remove the workspace, remove the leaf, then the
 * lock file.  The per-user dirs stay (root-owned, empty, the totals in place), shared by
 * the user's next sandboxes.  Whatever cannot be removed stays behind with the lock
 * released, for the next run of the same user to reclaim.  Capabilities: through priv.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deadline.h"
#include "log.h"
#include "macro.h"
#include "priv.h"
#include "session.h"

void
session_init(struct session *s, int sock)
{
	memset(s, 0, sizeof(*s));
	s->sock = sock;
	s->permitted = SESSION_START_PERMITTED;
	s->seq = 1;
	s->cgroot_fd = s->wsroot_fd = s->lockdir_fd = s->uiddir_fd = -EBADF;
	s->lock_fd = s->leaf_fd = s->kill_fd = s->events_fd = s->ws_fd = -EBADF;
	s->ucg_fd = s->ulock_fd = s->deadline_fd = -EBADF;
}

int
session_teardown(struct session *s, char *msg, size_t msglen)
{
	char lock[CG_NAME_MAX + 8];
	int r = 0, q;

	/* Only SPAWN puts a process in the leaf. */
	if (s->leaf_created && s->attached) {
		r = s->killed ? 0 : cg_kill_fd(s->kill_fd);
		if (r == 0)
			r = cg_wait_empty(s->events_fd, 10000);
		if (r < 0)
			snprintf(msg, msglen, "sandbox %s did not empty: %s", s->id, strerror(-r));
	}
	if (s->ws_dir_created) {
		/* Emptied and shrunk before it is detached: nothing written in the sandbox
		 * stays charged, and a descriptor held from outside cannot refill it. */
		q = ws_empty(s->uiddir_fd, s->id, s->ws_fd);
		if (q < 0 && r == 0) {
			r = q;
			snprintf(
				msg, msglen,
				q == -EBUSY
					? "workspace %s is held open by a process "
					  "outside the sandbox: kept (with its cgroup) until it is released"
					: "cannot empty workspace %s: %s",
				s->ws_path, strerror(-q));
		}
	}
	/* Detach the workspace and remove its mount point, remove the leaf (a few bounded
	 * retries: rmdir can report EBUSY briefly after populated 0), then its lock file
	 * (never before the leaf: a leaf never exists without its lock file).  Each is an
	 * object this session made and reaches through an fd it holds. */
	if (r == 0 && s->ws_dir_created) {
		r = ws_detach(s->uiddir_fd, s->id);
		if (r < 0)
			snprintf(msg, msglen, "cannot remove workspace %s: %s", s->ws_path,
				 strerror(-r));
		else
			s->ws_dir_created = false;
	}
	if (r == 0 && s->leaf_created) {
		r = cg_remove_at(s->ucg_fd, s->id);
		if (r < 0)
			snprintf(msg, msglen, "cannot remove cgroup %s: %s", s->id, strerror(-r));
		s->leaf_created = r < 0;
	}
	(void) snprintf(lock, sizeof(lock), "%s.lock", s->id);
	if (r == 0 && s->lock_fd >= 0)
		(void) priv_unlinkat(s->lockdir_fd, lock, 0);
	if (r == 0)
		deadline_forget(s->deadline_fd, s->id);
	/* The other fds (workspace, leaf, cgroup.kill, cgroup.events) go when the process
	 * exits, right after teardown; the lock is released here: reclaimable. */
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
