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
 *
 * Also a call's leaf in one of the user's session levels (PROTOCOL.md 3.2, "Sessions").
 * The level is found ONLY under the caller's own per-user level (the uid from SO_PEERCRED), by a name whose uid must
 * be the caller's, opened O_NOFOLLOW relative to our fd of that level; it must be root-owned
 * cgroup2 (as cg_create_at() leaves it), have controllers enabled below it (a session level,
 * not a plain sandbox) and its lock held by a live helper.  The call's limits are checked
 * against the level's own limit files, which only a helper writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "cgroup.h"
#include "dir-util.h"
#include "macro.h"
#include "parse-util.h"
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
		r = dir_root_owned(s->wsroot_fd, uidname, 0755, s->lockdir_fd, &s->uiddir_fd);
		if (r < 0)
			return refuse(msg, msglen, -ENOTSUP,
				      "cannot prepare %s/%s (root-owned 0755): %s",
				      policy_workspace_root(s->policy), uidname, strerror(-r));
	}
	r = cg_user_level(s->cgroot_fd, uidname, &s->ucg_fd);
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

/* memory.max or pids.max, or cpu.max as percent of one CPU; 0 for "max". */
static int
level_limit(int fd, const char *file, uint64_t *ret)
{
	unsigned long long q = 0, p = 100000;
	char buf[64];
	int r = priv_read_at(fd, file, buf, sizeof(buf), NULL);

	if (r < 0)
		return r;
	if (!strneq(buf, "max", 3) && (sscanf(buf, "%llu %llu", &q, &p) < 1 || p == 0))
		return -EINVAL;
	*ret = streq(file, "cpu.max") ? q * 100 / p : q;
	return 0;
}

/* The call's own limits: what it asked (req) may not pass the level's; what it did not ask
 * is at most the level's.  The leaf is then made in the level: s->ucg_fd is its fd. */
int
session_join(struct session *s, const uint64_t *req, char *msg, size_t msglen)
{
	static const enum policy_limit lim[] = { POLICY_MEMORY, POLICY_CPU, POLICY_PIDS };
	static const char *const file[] = { "memory.max", "cpu.max", "pids.max" };
	_cleanup_close_ int lfd = -EBADF;
	char buf[128] = "", lock[CG_NAME_MAX + 8];
	uid_t owner;
	int fd = -EBADF, r = -ENOENT;

	if (cg_name_parse(s->join, &owner) && owner == s->uid)
		fd = openat(s->ucg_fd, s->join, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		(void) snprintf(lock, sizeof(lock), "%s.lock", s->join);
		lfd = priv_openat(s->lockdir_fd, lock, O_RDWR | O_NOFOLLOW, 0);
		r = cg_leaf_fd_ok(fd);
		if (r == 0)
			r = priv_read_at(fd, "cgroup.subtree_control", buf, sizeof(buf), NULL);
		/* Its lock free (or gone): no helper keeps the session, which is a leftover. */
		if (r == 0 &&
		    (!word_in_list(buf, "memory") || lfd < 0 || flock(lfd, LOCK_SH | LOCK_NB) == 0))
			r = -ENOENT;
		safe_close(s->ucg_fd);
		s->ucg_fd = fd;
	}
	if (r < 0)
		return refuse(msg, msglen, -ENOENT, "no live session %s of uid %u", s->join,
			      (unsigned) s->uid);
	for (size_t i = 0; i < ELEMENTSOF(lim); i++) {
		uint64_t v = 0, *e = &s->eff.v[lim[i]];

		r = level_limit(fd, file[i], &v);
		if (r < 0)
			return r;
		if (v != 0 && req[lim[i]] > v)
			return refuse(msg, msglen, -EPERM,
				      "%.*s %" PRIu64 "%s is more than session %s has (%" PRIu64
				      "); ask at most that, or nothing (the session's applies)",
				      (int) strcspn(file[i], "."), file[i], req[lim[i]],
				      i == 1 ? "%" : "", s->join, v);
		if (v != 0 && (*e == 0 || *e > v))
			*e = v;
	}
	return 0;
}

/*
 * The root-owned directories the helper makes in workspace_root (<uid>, the mount
 * points <uid>/<id>).  The helper runs with the user's fsuid, so mkdir(2) makes a directory
 * the user owns until we chown it.  To leave the user no window on it (chmod, symlinks,
 * ACLs, files inside), a directory is made under a temporary name (.new-...) inside the
 * staging dir .locks (root 0700: the user cannot even look up a name in it), given its
 * mode, chowned to root, and only then renamed into place (RENAME_NOREPLACE).  Nobody but
 * the helpers can reach it in .locks, so nothing can be planted in it, no ACL set and no
 * mode changed there: it needs no checks (make_staged()).  .locks itself and the deadline
 * dir are never made here: the packages and sandcap-setup make them (a helper that finds
 * one missing refuses).  Temporaries of a helper killed mid-way are removed by the next
 * helper of that uid: .new-<uid>-dir before it makes that dir again, under its per-user
 * lock, and a mount point's .new-<id> with the rest of that dead sandbox
 * (reclaim_leftovers()).
 * Capabilities (through priv.c): CAP_DAC_OVERRIDE (root-owned parents), CAP_CHOWN.
 */

int
make_staged(int stage_fd, const char *tmp, int parent_fd, const char *name, mode_t mode,
	    int *ret_fd)
{
	_cleanup_close_ int fd = -EBADF;
	int r = priv_mkdirat(stage_fd, tmp, 0700);

	if (r < 0)
		return r;
	fd = priv_openat(stage_fd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	/* Mode while we still own it (after the chown it would need CAP_FOWNER). */
	r = fd < 0                                 ? fd
	    : mode != 0700 && fchmod(fd, mode) < 0 ? neg_errno()
						   : priv_fchown(fd, 0, 0);
	if (r == 0)
		r = priv_renameat2(stage_fd, tmp, parent_fd, name, RENAME_NOREPLACE);
	if (r < 0) {
		(void) priv_unlinkat(stage_fd, tmp, AT_REMOVEDIR);
		return r;
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int
dir_check_root(int fd, mode_t mode)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	return st.st_uid == 0 && st.st_gid == 0 && (st.st_mode & 07777) == mode ? 0 : -EPERM;
}

int
dir_root_owned(int parent_fd, const char *name, mode_t mode, int stage_fd, int *ret_fd)
{
	const int dir = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	_cleanup_close_ int fd = openat(parent_fd, name, dir);
	char tmp[32];
	int r;

	/* Under uid's per-user lock: no other helper is making it, so a temporary of that
	 * name is a killed helper's (empty: nobody else can reach into .locks). */
	if (fd < 0 && errno == ENOENT) {
		(void) snprintf(tmp, sizeof(tmp), ".new-%s-dir", name);
		(void) priv_unlinkat(stage_fd, tmp, AT_REMOVEDIR);
		r = make_staged(stage_fd, tmp, parent_fd, name, mode, &fd);
		if (r < 0)
			return r;
	}
	if (fd < 0)
		return -errno;
	r = dir_check_root(fd, mode);
	if (r == 0)
		*ret_fd = TAKE_FD(fd);
	return r;
}
