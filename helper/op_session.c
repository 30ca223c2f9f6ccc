/* SPDX-License-Identifier: MIT */
/*
 * Contract: a call's leaf in a session level (PROTOCOL.md 3.2, "Sessions").  The level is
 * found ONLY under the caller's own per-user level (the uid from SO_PEERCRED), by a name
 * whose uid must be the caller's, opened O_NOFOLLOW relative to our fd of that level; it
 * must be root-owned cgroup2 (as cg_create_at() leaves it), have controllers enabled below
 * it (a session level, not a plain sandbox) and its lock held by a live helper.  The call's
 * limits are checked against the level's own limit files, which only a helper writes.
 * Capabilities (through priv.c): CAP_DAC_OVERRIDE for the lock in root's 0700 .locks.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "macro.h"
#include "parse-util.h"
#include "priv.h"
#include "session.h"

/* memory.max or pids.max, or cpu.max as percent of one CPU; 0 for "max". */
static int
level_limit(int fd, const char *file, uint64_t *ret)
{
	unsigned long long q = 0, p = 100000;
	char buf[64];
	size_t n = 0;
	int r = priv_read_at(fd, file, buf, sizeof(buf), &n);

	if (r < 0)
		return r;
	if (strneq(buf, "max", 3))
		q = 0;
	else if (sscanf(buf, "%llu %llu", &q, &p) < 1 || p == 0)
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
	size_t n = 0;
	uid_t owner;
	int fd = -EBADF, r = -ENOENT;

	if (cg_name_parse(s->join, &owner) && owner == s->uid)
		fd = openat(s->ucg_fd, s->join, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		(void) snprintf(lock, sizeof(lock), "%s.lock", s->join);
		lfd = priv_openat(s->lockdir_fd, lock, O_RDWR | O_NOFOLLOW, 0);
		r = cg_leaf_fd_ok(fd);
		if (r == 0)
			r = priv_read_at(fd, "cgroup.subtree_control", buf, sizeof(buf), &n);
		/* Its lock free (or gone): no helper keeps the session, which is a leftover. */
		if (r == 0 &&
		    (!word_in_list(buf, "memory") || lfd < 0 || flock(lfd, LOCK_SH | LOCK_NB) == 0))
			r = -ENOENT;
		safe_close(s->ucg_fd);
		s->ucg_fd = fd;
	}
	if (r < 0) {
		snprintf(msg, msglen, "no live session %s of uid %u", s->join, (unsigned) s->uid);
		return -ENOENT;
	}
	for (size_t i = 0; i < ELEMENTSOF(lim); i++) {
		uint64_t v = 0, *e = &s->eff.v[lim[i]];

		r = level_limit(fd, file[i], &v);
		if (r < 0)
			return r;
		if (v != 0 && req[lim[i]] > v) {
			snprintf(msg, msglen,
				 "%.*s %" PRIu64 "%s is more than session %s has (%" PRIu64
				 "); ask at most that, or nothing (the session's applies)",
				 (int) strcspn(file[i], "."), file[i], req[lim[i]],
				 i == 1 ? "%" : "", s->join, v);
			return -EPERM;
		}
		if (v != 0 && (*e == 0 || *e > v))
			*e = v;
	}
	return 0;
}
