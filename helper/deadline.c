/* SPDX-License-Identifier: MIT */
/*
 * Contract: the deadline records of SC_DEADLINE_DIR (root:root 0700, made by the packages
 * and sandcap-setup, opened at HELLO, checked before a record is written).  Users can neither list nor write it, so a
 * record is only ever written by a helper (or root) and is trusted as the helper wrote
 * it; its paths come from the trust-checked policy and our own leaf fd, never from the
 * client.  The leaf a record names is still checked before it is killed, as the reaper
 * checks it (lib/cgroup-util.h): below /sys/fs/cgroup, named like the record, cgroup2,
 * owned by root (as cg_create_at() leaves it).  Never waits on anything.  Capabilities
 * (through priv.c): CAP_DAC_OVERRIDE to reach the root-only dir, the root-owned 0700 cgroup
 * parent and cgroup.kill; CAP_CHOWN to hand the record to root.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cgroup-util.h"
#include "deadline-record.h"
#include "dir-util.h"
#include "log.h"
#include "macro.h"
#include "priv.h"
#include "session.h"
#include "time-util.h"

int
deadline_record(struct session *s)
{
	_cleanup_close_ int fd = -EBADF;
	struct deadline_record rec = { 0 };
	char text[DEADLINE_TEXT_MAX], link[64];
	struct rlimit fsize;
	size_t len;
	ssize_t n;
	int r;

	if (s->eff.v[POLICY_TIMEOUT] == 0)
		return 0;
	rec.boottime_ms = boottime_ms() + s->eff.v[POLICY_TIMEOUT] + DEADLINE_BACKSTOP_MS;
	/* The leaf's path as the kernel names our fd: whatever layout created it. */
	(void) snprintf(link, sizeof(link), "/proc/self/fd/%d", s->leaf_fd);
	n = readlink(link, rec.cgroup, sizeof(rec.cgroup) - 1);
	if (n <= 0 || (size_t) n >= sizeof(rec.cgroup) - 1)
		return -ENAMETOOLONG; /* rec is zeroed: rec.cgroup stays terminated */
	(void) snprintf(rec.workspace, sizeof(rec.workspace), "%s", s->ws_path);
	(void) snprintf(rec.lock, sizeof(rec.lock), "%s/.locks/%s.lock",
			policy_workspace_root(s->policy), s->id);
	r = deadline_format(&rec, text, sizeof(text), &len);
	/* Refused with the reason rather than killed by SIGXFSZ at the write. */
	if (r == 0 && getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur < len)
		r = -EFBIG;
	if (r == 0)
		r = s->deadline_fd < 0 ? s->deadline_fd : dir_check_root(s->deadline_fd, 0700);
	if (r < 0)
		return r;
	/* Written whole into a file without a name, then linked under the sandbox's id: the
	 * reaper (inotify IN_CREATE) never reads half a record, and a helper killed, or
	 * stopped by RLIMIT_FSIZE's SIGXFSZ, before the link leaves nothing in the directory
	 * (priv_link_fd()). */
	fd = priv_openat(s->deadline_fd, ".", O_TMPFILE | O_WRONLY, 0600);
	if (fd < 0)
		return fd;
	r = priv_fchown(fd, 0, 0);
	if (r == 0 && write(fd, text, len) != (ssize_t) len)
		r = neg_errno();
	return r < 0 ? r : priv_link_fd(fd, s->deadline_fd, s->id);
}

/* cgroup.kill the leaf rec names, if it still is one of ours named name. */
static int
kill_leaf(const struct deadline_record *rec, const char *name)
{
	_cleanup_close_ int leaf = -EBADF, kfd = -EBADF;
	int r;

	if (!cg_leaf_path_ok(rec->cgroup, name))
		return -EINVAL;
	leaf = priv_openat2(AT_FDCWD, rec->cgroup, O_RDONLY | O_DIRECTORY,
			    RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (leaf < 0)
		return leaf;
	r = cg_leaf_fd_ok(leaf);
	if (r < 0)
		return r;
	kfd = priv_openat(leaf, "cgroup.kill", O_WRONLY | O_NOFOLLOW, 0);
	return kfd < 0 ? kfd : cg_kill_fd(kfd);
}

void
deadline_reap_expired(int dfd)
{
	struct dir_iter it = { .fd = dfd }; /* opened at HELLO (open_dirs()), listed once */
	uint64_t now = boottime_ms();
	const char *name;

	if (dfd < 0)
		return; /* no records: nothing has a deadline */
	while ((name = dir_next(&it, NULL)) != NULL) {
		struct deadline_record rec;
		char text[DEADLINE_TEXT_MAX];
		size_t len = 0;
		int r;

		if (!deadline_name_is_valid(name))
			continue;
		r = priv_read_at(dfd, name, text, sizeof(text), &len);
		if (r < 0 || deadline_parse(text, len, &rec) < 0 || rec.boottime_ms > now)
			continue;
		r = kill_leaf(&rec, name);
		if (r == 0)
			log_notice("sandbox %s outlived its policy deadline: killed it", name);
		/* Killed, or gone: either way nothing is left to enforce. */
		if (r == 0 || r == -ENOENT)
			(void) priv_unlinkat(dfd, name, 0);
	}
}
