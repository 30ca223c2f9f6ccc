/* SPDX-License-Identifier: MIT */
/*
 * Contract: the session's objects and their teardown.  Trusts only what the session
 * itself created (names, fds).  Teardown order is the reverse of creation: kill, wait for
 * "populated 0", unmount and remove the workspace, remove the leaf, then the lock file;
 * whatever cannot be removed stays behind with the lock released, for the next run of
 * the same user to reclaim.  Capabilities: via cgroup.c and op_mount.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <dirent.h>
#include <fcntl.h>

#include "caps.h"
#include "deadline.h"
#include "log.h"
#include "macro.h"
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
}

/* workspace_root/.locks and workspace_root/<uid> are shared by concurrent helpers: every
 * helper holds LOCK_SH on the delegated parent (root 0700: users cannot lock it) for its
 * whole session, and only a helper that can take LOCK_EX, i.e. the last one, removes
 * the dirs that are empty.  A new helper waits for LOCK_SH before it makes them again. */
static void
tidy_dirs(struct session *s)
{
	DIR *d;

	if (s->cgroot_fd < 0 || s->wsroot_fd < 0 || flock(s->cgroot_fd, LOCK_EX | LOCK_NB) < 0)
		return;
	s->lockdir_fd = safe_close(s->lockdir_fd);
	s->uiddir_fd = safe_close(s->uiddir_fd);
	d = fdopendir(openat(s->wsroot_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (d == NULL)
		return;
	for (struct dirent *de; (de = readdir(d)) != NULL;)
		/* Only our own names: ".locks" and decimal uids.  ENOTEMPTY keeps the rest. */
		if (streq(de->d_name, ".locks") || (de->d_name[0] != '\0' &&
		    strspn(de->d_name, "0123456789") == strlen(de->d_name)))
			(void) WITH_CAP(CAP_DAC_OVERRIDE, unlinkat(s->wsroot_fd, de->d_name,
								   AT_REMOVEDIR));
	(void) closedir(d);
}

int
session_teardown(struct session *s, char *msg, size_t msglen)
{
	char lock[CG_NAME_MAX + 8];
	int r = 0, q;

	s->ws_fd = safe_close(s->ws_fd);
	if (s->leaf_created && !s->poisoned) {
		r = cg_kill_fd(s->kill_fd);
		if (r == 0)
			r = cg_wait_empty(s->events_fd, 10000);
		if (r < 0)
			snprintf(msg, msglen, "sandbox %s did not empty: %s", s->id, strerror(-r));
	} else if (s->poisoned && cg_wait_empty(s->events_fd, 0) != 0) {
		/* Not killed: it may hold a stranger.  An empty leaf can only be refilled by a
		 * helper writing its root-owned cgroup.procs, so an empty one is removed. */
		r = -EBUSY;
		snprintf(msg, msglen, "sandbox %s left in place (ATTACH race)", s->id);
	}
	if (s->ws_dir_created) {
		q = ws_unmount(s->uiddir_fd, s->id);
		if (q < 0 && r == 0) {
			r = q;
			snprintf(msg, msglen, "cannot remove workspace %s: %s", s->ws_path,
				 strerror(-q));
		}
		if (q == 0)
			s->ws_dir_created = s->ws_mounted = false;
	}
	s->kill_fd = safe_close(s->kill_fd);
	s->events_fd = safe_close(s->events_fd);
	s->leaf_fd = safe_close(s->leaf_fd);
	if (s->leaf_created && r == 0) {
		r = cg_remove_at(s->cgroot_fd, s->id);
		if (r < 0)
			snprintf(msg, msglen, "cannot remove cgroup %s: %s", s->id, strerror(-r));
		else {
			s->leaf_created = false;
			deadline_forget(s);
		}
	}
	if (s->lock_fd >= 0 && r == 0) {
		(void) snprintf(lock, sizeof(lock), "%s.lock", s->id);
		(void) WITH_CAP(CAP_DAC_OVERRIDE, unlinkat(s->lockdir_fd, lock, 0));
	}
	s->lock_fd = safe_close(s->lock_fd);    /* releases the flock: reclaimable */
	if (r == 0)
		tidy_dirs(s);
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
	log_warning("uid %u pid %d: protocol violation: %s; ending the session",
		    (unsigned) s->uid, (int) s->peer_pid, buf);
	(void) fprintf(stderr, "sandcap-helper: protocol violation: %s\n", buf);
	(void) session_teardown(s, msg, sizeof(msg));
	exit(EXIT_FAILURE);
}
