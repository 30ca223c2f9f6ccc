/* SPDX-License-Identifier: MIT */
/*
 * Contract: the per-user objects shared by one user's concurrent helpers, and the lock that
 * serializes them: .locks/user-<uid>.lock (root-only dir: only helpers can open it), the
 * workspace dir workspace_root/<uid> and the cgroup level cgroup_root/<uid> that carries the
 * user's totals (both made once and kept: session.c).  It is held only around what must
 * not interleave between them: making those dirs, counting the user's leaves and making the
 * new one (two helpers cannot both pass the sandboxes ceiling).  No client I/O ever happens
 * while it is held (the handlers return before the reply is sent), and waiting for it is
 * bounded (USER_LOCK_MS, then a refusal).  A waiter sleeps in flock(2) until the lock is
 * released or an interval timer ends the wait: no polling, so 200 waiters of one user do
 * not take the CPU from the holder.  Only helpers of the same uid take it, so a user
 * who stops their own helper while it holds it delays nobody but themselves.  No lock is
 * shared between users.  Capabilities (through priv.c): CAP_DAC_OVERRIDE (root-owned dirs
 * and control files), CAP_CHOWN (the per-user cgroup level is handed to root like a leaf).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/time.h>
#include <unistd.h>

#include "cgroup.h"
#include "dir-util.h"
#include "macro.h"
#include "priv.h"
#include "session.h"

static void
on_alarm(int sig)
{
	(void) sig; /* only to interrupt flock(2) (no SA_RESTART) */
}

/* flock(fd, op | LOCK_NB) until it succeeds or timeout_ms passed (-ETIMEDOUT). */
static int
flock_bounded(int fd, int op, int timeout_ms)
{
	/* After the deadline, again every 50 ms: a first SIGALRM that arrived before flock(2)
	 * began to sleep would otherwise leave it sleeping without a deadline. */
	struct itimerval t = { .it_value = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 },
			       .it_interval = { 0, 50 * 1000 } };
	static const struct itimerval off;
	struct sigaction sa = { .sa_handler = on_alarm };
	int r;

	if (flock(fd, op | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK)
		return -errno;
	if (sigaction(SIGALRM, &sa, NULL) < 0 || setitimer(ITIMER_REAL, &t, NULL) < 0)
		return -errno;
	r = flock(fd, op) < 0 ? -errno : 0;
	(void) setitimer(ITIMER_REAL, &off, NULL);
	return r == -EINTR ? -ETIMEDOUT : r;
}

int
user_lock(struct session *s, char *msg, size_t msglen)
{
	/* ulock_fd: opened at HELLO (open_dirs()). */
	int r = flock_bounded(s->ulock_fd, LOCK_EX, USER_LOCK_MS);
	if (r == -ETIMEDOUT)
		return refuse(msg, msglen, -EAGAIN,
			      "another sandcap-helper of uid %u has held the per-user lock "
			      "for over %d s (stopped?); resume or kill it and try again",
			      (unsigned) s->uid, USER_LOCK_MS / 1000);
	if (r < 0)
		snprintf(msg, msglen, "per-user lock: %s", strerror(-r));
	return r;
}

int
user_write_totals(struct session *s, char *msg, size_t msglen)
{
	const uint64_t *t = s->res.total;
	int r = cg_write_max(s->ucg_fd, t[POLICY_TOTAL_MEMORY], t[POLICY_TOTAL_CPU],
			     t[POLICY_TOTAL_PIDS]);

	if (r < 0)
		snprintf(msg, msglen, "cannot write the totals of %s/%u: %s",
			 policy_cgroup_root(s->policy), (unsigned) s->uid, strerror(-r));
	return r;
}

int
user_prepare(struct session *s, char *msg, size_t msglen)
{
	char uidname[16];
	int r;

	(void) snprintf(uidname, sizeof(uidname), "%u", (unsigned) s->uid);
	if (s->uiddir_fd < 0) {
		r = dir_root_owned(s->wsroot_fd, uidname, 0755, s->lockdir_fd, s->uid,
				   &s->uiddir_fd);
		if (r < 0)
			return refuse(msg, msglen, -ENOTSUP,
				      "cannot prepare %s/%s (root-owned 0755): %s",
				      policy_workspace_root(s->policy), uidname, strerror(-r));
	}
	r = cg_user_level(s->cgroot_fd, s->uid, &s->ucg_fd);
	if (r < 0)
		return refuse(msg, msglen, r == -ENOENT ? -ENOTSUP : r,
			      "cannot prepare the per-user cgroup %s/%s: %s",
			      policy_cgroup_root(s->policy), uidname, strerror(-r));
	return 0;
}

int
user_count(struct session *s, unsigned *ret_live)
{
	struct dir_iter it = { .fd = s->ucg_fd };
	unsigned live = 0;
	const char *name;
	uid_t owner;

	/* The per-user level's names: kernel-made, listed through our fd of it (no
	 * capability), from the start.  Each leaf of the user counts, the leftovers that
	 * reclaim_leftovers() could not take back too. */
	if (lseek(s->ucg_fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((name = dir_next(&it, NULL)) != NULL)
		if (cg_name_parse(name, &owner) && owner == s->uid)
			live++;
	*ret_live = live;
	return errno != 0 ? -errno : 0;
}
