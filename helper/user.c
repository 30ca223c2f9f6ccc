/* SPDX-License-Identifier: MIT */
/*
 * Contract: the per-user objects shared by one user's concurrent helpers, and the lock that
 * serializes them: .locks/user-<uid>.lock (root-only dir: only helpers can open it), the
 * workspace dir workspace_root/<uid> and the cgroup level cgroup_root/<uid> that carries the
 * user's totals.  Everything that counts or creates a user's sandboxes, moves a process
 * into one, or removes the per-user dirs holds this lock; no client I/O ever happens while
 * it is held (the handlers return before the reply is sent), and waiting for it is bounded
 * (USER_LOCK_MS, then a refusal; 1 s for the optional tidying at teardown).  Only helpers of the same uid take it, so a user who stops
 * their own helper while it holds it delays nobody but themselves.  No lock is shared
 * between users.  Capabilities: CAP_DAC_OVERRIDE (root-owned dirs and control files),
 * CAP_CHOWN (the per-user cgroup level is handed to root like a leaf).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "cgroup.h"
#include "log.h"
#include "macro.h"
#include "rootdir.h"
#include "session.h"

static int64_t
now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
flock_bounded(int fd, int op, int timeout_ms)
{
	int64_t end = now_ms() + timeout_ms;

	for (unsigned i = 0;; i++) {
		struct timespec ts = { 0, (i < 10 ? 1 : 10) * 1000 * 1000 };

		if (flock(fd, op | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (now_ms() >= end)
			return -ETIMEDOUT;
		(void) nanosleep(&ts, NULL);
	}
}

static int
user_lock_within(struct session *s, int timeout_ms, char *msg, size_t msglen)
{
	char name[32];
	int r;

	if (s->ulock_fd < 0) {
		(void) snprintf(name, sizeof(name), "user-%u.lock", (unsigned) s->uid);
		s->ulock_fd = WITH_CAP(CAP_DAC_OVERRIDE, openat(s->lockdir_fd, name,
				O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
		if (s->ulock_fd < 0) {
			r = -errno;
			snprintf(msg, msglen, "cannot open the per-user lock: %s", strerror(-r));
			return r;
		}
	}
	r = flock_bounded(s->ulock_fd, LOCK_EX, timeout_ms);
	if (r == -ETIMEDOUT) {
		snprintf(msg, msglen, "another sandcap-helper of uid %u has held the per-user lock "
			 "for over %d s (stopped?); resume or kill it and try again",
			 (unsigned) s->uid, timeout_ms / 1000);
		return -EAGAIN;
	}
	if (r < 0)
		snprintf(msg, msglen, "per-user lock: %s", strerror(-r));
	return r;
}

int
user_lock(struct session *s, char *msg, size_t msglen)
{
	return user_lock_within(s, USER_LOCK_MS, msg, msglen);
}

void
user_unlock(struct session *s)
{
	if (s->ulock_fd >= 0)
		(void) flock(s->ulock_fd, LOCK_UN);
}

/* Write the user's totals to the per-user level (max when the policy sets none).  Called
 * inside one CAP_DAC_OVERRIDE bracket (write_totals()): three opens of fixed names in the
 * per-user level we hold by fd, root-owned 0755 (checked or made so by cg_user_level())
 * under root's 0700 parent: nothing the user controls decides what they resolve to. */
static int
write_totals_raised(struct session *s)
{
	const struct policy_resolved *res = &s->res;
	char buf[64];
	int r;

	if (res->total[POLICY_TOTAL_MEMORY] != UINT64_MAX)
		(void) snprintf(buf, sizeof(buf), "%" PRIu64, res->total[POLICY_TOTAL_MEMORY]);
	else
		(void) snprintf(buf, sizeof(buf), "max");
	r = cg_write_at_raised(s->ucg_fd, "memory.max", buf);
	if (r == 0) {
		if (res->total[POLICY_TOTAL_CPU] != UINT64_MAX)
			(void) snprintf(buf, sizeof(buf), "%" PRIu64 " 100000",
					res->total[POLICY_TOTAL_CPU] * 1000);
		else
			(void) snprintf(buf, sizeof(buf), "max 100000");
		r = cg_write_at_raised(s->ucg_fd, "cpu.max", buf);
	}
	if (r == 0) {
		if (res->total[POLICY_TOTAL_PIDS] != UINT64_MAX)
			(void) snprintf(buf, sizeof(buf), "%" PRIu64, res->total[POLICY_TOTAL_PIDS]);
		else
			(void) snprintf(buf, sizeof(buf), "max");
		r = cg_write_at_raised(s->ucg_fd, "pids.max", buf);
	}
	return r;
}

static int
write_totals(struct session *s)
{
	int r;

	if (caps_raise(CAP_DAC_OVERRIDE) < 0)
		return -EPERM;
	r = write_totals_raised(s);
	caps_lower(CAP_DAC_OVERRIDE);
	return r;
}

int
user_prepare(struct session *s, char *msg, size_t msglen)
{
	char uidname[16], prefix[24];
	int r;

	(void) snprintf(uidname, sizeof(uidname), "%u", (unsigned) s->uid);
	/* A helper of ours killed while it made a temporary left it: we hold the lock, so
	 * no live helper of this uid is making one now. */
	(void) snprintf(prefix, sizeof(prefix), ".new-%u-", (unsigned) s->uid);
	(void) sweep_temporaries(s->lockdir_fd, prefix, false);

	if (s->uiddir_fd < 0) {
		r = dir_root_owned(s->wsroot_fd, uidname, 0755, s->lockdir_fd, s->uid,
				   &s->uiddir_fd);
		if (r < 0) {
			snprintf(msg, msglen, "cannot prepare %s/%s (root-owned 0755): %s",
				 policy_workspace_root(s->policy), uidname, strerror(-r));
			return -ENOTSUP;
		}
	}
	if (s->ucg_fd < 0) {
		r = cg_user_level(s->cgroot_fd, s->uid, &s->ucg_fd);
		if (r < 0) {
			snprintf(msg, msglen, "cannot prepare the per-user cgroup %s/%s: %s",
				 policy_cgroup_root(s->policy), uidname, strerror(-r));
			return r == -ENOENT ? -ENOTSUP : r;
		}
	}
	r = write_totals(s);
	if (r < 0)
		snprintf(msg, msglen, "cannot write the totals of %s/%s: %s",
			 policy_cgroup_root(s->policy), uidname, strerror(-r));
	return r;
}

void
user_tidy(struct session *s)
{
	char uidname[16], msg[128];

	if (s->lockdir_fd < 0 || s->wsroot_fd < 0 || s->cgroot_fd < 0)
		return;
	/* Optional tidying: a short wait, then leave them for the next helper of this uid. */
	if (user_lock_within(s, 1000, msg, sizeof(msg)) < 0)
		return;
	(void) snprintf(uidname, sizeof(uidname), "%u", (unsigned) s->uid);
	s->uiddir_fd = safe_close(s->uiddir_fd);
	s->ucg_fd = safe_close(s->ucg_fd);
	/* Only when empty (ENOTEMPTY/EBUSY keep them for the user's other sandboxes). */
	(void) WITH_CAP(CAP_DAC_OVERRIDE, unlinkat(s->wsroot_fd, uidname, AT_REMOVEDIR));
	(void) WITH_CAP(CAP_DAC_OVERRIDE, unlinkat(s->cgroot_fd, uidname, AT_REMOVEDIR));
	user_unlock(s);
}
