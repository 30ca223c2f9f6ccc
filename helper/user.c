/* SPDX-License-Identifier: MIT */
/*
 * Contract: the per-user objects shared by one user's concurrent helpers, and the lock that
 * serializes them: .locks/user-<uid>.lock (root-only dir: only helpers can open it), the
 * workspace dir workspace_root/<uid> and the cgroup level cgroup_root/<uid> that carries the
 * user's totals (both made once and kept: session.c).  Everything that counts or creates a
 * user's sandboxes or moves a process into one holds this lock; no client I/O ever happens
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
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "cgroup.h"
#include "dir-util.h"
#include "log.h"
#include "macro.h"
#include "priv.h"
#include "rootdir.h"
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
	/* ulock_fd: opened at HELLO (ws_locks_dir()). */
	int r = flock_bounded(s->ulock_fd, LOCK_EX, USER_LOCK_MS);
	if (r == -ETIMEDOUT) {
		snprintf(msg, msglen,
			 "another sandcap-helper of uid %u has held the per-user lock "
			 "for over %d s (stopped?); resume or kill it and try again",
			 (unsigned) s->uid, USER_LOCK_MS / 1000);
		return -EAGAIN;
	}
	if (r < 0)
		snprintf(msg, msglen, "per-user lock: %s", strerror(-r));
	return r;
}

void
user_unlock(struct session *s)
{
	if (s->ulock_fd >= 0)
		(void) flock(s->ulock_fd, LOCK_UN);
}

/* Enable the controllers for the leaves and write the user's totals to the per-user level
 * (max when the policy sets none): four files of fixed names in the per-user level we hold
 * by fd, root-owned 0755 (checked or made so by cg_user_level()) under root's 0700 parent:
 * nothing the user controls decides what they resolve to. */
static int
write_totals(struct session *s)
{
	const uint64_t *t = s->res.total;
	/* Without the controllers enabled here the limit files do not exist in leaves. */
	int r = priv_write_at(s->ucg_fd, "cgroup.subtree_control", "+cpu +memory +pids");

	return r < 0 ? r
		     : cg_write_max(s->ucg_fd, t[POLICY_TOTAL_MEMORY], t[POLICY_TOTAL_CPU],
				    t[POLICY_TOTAL_PIDS]);
}

/* Lock files of this uid's sandboxes that have no leaf: a helper killed between making its
 * lock and its leaf, or between removing them.  We hold the per-user lock, so no helper of
 * this uid is making one; one being torn down is still locked by its helper (flock). */
static void
sweep_orphan_locks(struct session *s)
{
	struct dir_iter it = { .fd = s->lockdir_fd };
	const char *name;

	if (lseek(s->lockdir_fd, 0, SEEK_SET) < 0)
		return;
	while ((name = dir_next(&it, NULL)) != NULL) {
		_cleanup_close_ int fd = -EBADF;
		char id[CG_NAME_MAX];
		size_t n = strlen(name);
		struct stat st;
		uid_t owner;

		if (n <= 5 || n - 5 >= sizeof(id) || !streq(name + n - 5, ".lock"))
			continue;
		memcpy(id, name, n - 5);
		id[n - 5] = '\0';
		if (!cg_name_parse(id, &owner) || owner != s->uid ||
		    fstatat(s->ucg_fd, id, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
			continue;
		fd = priv_openat(s->lockdir_fd, name, O_RDWR | O_NOFOLLOW, 0);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    priv_unlinkat(s->lockdir_fd, name, 0) == 0)
			log_info("uid %u: removed the lock file of dead sandbox %s",
				 (unsigned) s->uid, id);
	}
}

int
user_prepare(struct session *s, char *msg, size_t msglen)
{
	char uidname[16], prefix[24];
	int r;

	(void) snprintf(uidname, sizeof(uidname), "%u", (unsigned) s->uid);
	/* A helper of ours killed while it made a temporary left it: we hold the lock, so
	 * no live helper of this uid is making one now (the listing is of our fd of .locks:
	 * no capability, and nothing but a match is touched). */
	(void) snprintf(prefix, sizeof(prefix), ".new-%u-", (unsigned) s->uid);
	sweep_temporaries(s->lockdir_fd, prefix);

	if (s->uiddir_fd < 0) {
		r = dir_root_owned(s->wsroot_fd, uidname, 0755, s->lockdir_fd, s->uid,
				   &s->uiddir_fd);
		if (r < 0) {
			snprintf(msg, msglen, "cannot prepare %s/%s (root-owned 0755): %s",
				 policy_workspace_root(s->policy), uidname, strerror(-r));
			return -ENOTSUP;
		}
	}
	r = cg_user_level(s->cgroot_fd, s->uid, &s->ucg_fd);
	if (r < 0) {
		snprintf(msg, msglen, "cannot prepare the per-user cgroup %s/%s: %s",
			 policy_cgroup_root(s->policy), uidname, strerror(-r));
		return r == -ENOENT ? -ENOTSUP : r;
	}
	sweep_orphan_locks(s);
	r = write_totals(s);
	if (r < 0)
		snprintf(msg, msglen, "cannot write the totals of %s/%s: %s",
			 policy_cgroup_root(s->policy), uidname, strerror(-r));
	return r;
}
