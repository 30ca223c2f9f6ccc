/* SPDX-License-Identifier: MIT */
/*
 * Contract: the root-owned directories the helper makes in workspace_root (.locks, <uid>,
 * the mount points <uid>/<id>).  The helper runs with the user's fsuid, so mkdir(2) makes a
 * directory the user owns until we chown it.  To leave the user no window on it (chmod,
 * symlinks, ACLs, files inside), a directory is made under an unpredictable name
 * (getrandom) inside the staging dir .locks (root 0700: the user cannot even look up a
 * name in it), given its mode, chowned to root, and only then renamed into place
 * (RENAME_NOREPLACE).  Nobody but the helpers can reach it in .locks, so nothing can be
 * planted in it, no ACL set and no mode changed there: it needs no checks
 * (make_staged()).  .locks
 * itself has no staging dir: it is made in workspace_root, where a window exists; it is
 * closed by checking mode and ACLs after root owns it (when the user can no longer change
 * them; a mismatch means we take it back and redo it) and by emptying (without following)
 * anything planted; the packages create .locks at boot (tmpfiles.d), so this path only
 * runs on hosts without it.  Stale temporaries (a helper killed mid-way) are removed:
 * .new-<uid>-* in .locks by the next helper of that uid under its per-user lock, and
 * .new-locks-* in the parent when older than a minute, by the next helper that has to make
 * .locks (or the deadline dir) again: only then can new ones appear.
 * Capabilities (through priv.c): CAP_DAC_OVERRIDE (root-owned parents), CAP_CHOWN.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "dir-util.h"
#include "macro.h"
#include "priv.h"
#include "rootdir.h"
#include "ws_clean.h"

#define STALE_S 60

static int
tmp_name(char *buf, size_t len, const char *prefix)
{
	uint8_t rnd[8];

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -EIO;
	(void) snprintf(buf, len, ".new-%s-%02x%02x%02x%02x%02x%02x%02x%02x", prefix, rnd[0],
			rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
	return 0;
}

static bool
has_acl(int fd)
{
	return fgetxattr(fd, "system.posix_acl_access", NULL, 0) >= 0 ||
	       fgetxattr(fd, "system.posix_acl_default", NULL, 0) >= 0;
}

/* Make <where>/<tmp>: root-owned, mode, no ACL, empty.  Returns an fd, or -errno (the
 * temporary is then removed or, if that fails, left root-owned for the stale sweep).
 * Mode and ACLs are set while we own it (changing them afterwards would need CAP_FOWNER),
 * then root takes it, then everything is checked on the root-owned directory, which the
 * user can no longer change: a user who raced us (only possible for .locks itself) makes
 * us hand it back and do it again, a few times at most. */
static int
make_tmp(int where_fd, const char *tmp, mode_t mode, uid_t uid)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;
	int r = priv_mkdirat(where_fd, tmp, 0700);

	if (r < 0)
		return r;
	fd = priv_openat(where_fd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	if (fd < 0)
		return fd;
	r = -EPERM;
	for (int i = 0; i < 8 && r == -EPERM; i++) {
		if (i > 0 && priv_fchown(fd, uid, (gid_t) -1) < 0)
			break;
		(void) fremovexattr(fd, "system.posix_acl_access");
		(void) fremovexattr(fd, "system.posix_acl_default");
		r = fchmod(fd, mode) < 0 ? neg_errno() : priv_fchown(fd, 0, 0);
		if (r < 0 || fstat(fd, &st) < 0) {
			r = r < 0 ? r : neg_errno();
			break;
		}
		r = -EPERM;
		if (st.st_uid == 0 && st.st_gid == 0 && (st.st_mode & 07777) == mode &&
		    !has_acl(fd))
			r = 0;
	}
	/* Anything planted while it was the user's goes (never followed). */
	if (r == 0 && dir_entries(fd) != 0)
		r = tree_empty(fd) < 0 ? -EPERM : 0;
	if (r < 0) {
		fd = safe_close(fd);
		(void) tree_remove_at(where_fd, tmp);
		return r;
	}
	return TAKE_FD(fd);
}

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
	r = fd < 0 ? fd : mode != 0700 && fchmod(fd, mode) < 0 ? neg_errno() :
	    priv_fchown(fd, 0, 0);
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
dir_root_owned(int parent_fd, const char *name, mode_t mode, int stage_fd, uid_t uid,
	       int *ret_fd)
{
	const int dir = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	_cleanup_close_ int fd = -EBADF;
	struct stat st;
	char tmp[64], prefix[16];
	int r;

	/* Readable and searchable by all (0755): no capability is needed to open it. */
	if ((mode & 05) != 05)
		fd = priv_openat(parent_fd, name, dir, 0);
	else if ((fd = openat(parent_fd, name, dir)) < 0)
		fd = -errno;
	if (fd == -ENOENT && stage_fd >= 0) {
		(void) snprintf(prefix, sizeof(prefix), "%u", (unsigned) uid);
		r = tmp_name(tmp, sizeof(tmp), prefix);
		if (r == 0)
			r = make_staged(stage_fd, tmp, parent_fd, name, mode, &fd);
		if (r == -EEXIST)       /* lost the race: use the winner's */
			fd = priv_openat(parent_fd, name, dir, 0);
		else if (r < 0)
			return r;
	} else if (fd == -ENOENT) {
		/* Temporaries of this dir itself whose helper died: only made here. */
		(void) sweep_temporaries(parent_fd, ".new-locks-", true);
		r = tmp_name(tmp, sizeof(tmp), "locks");
		if (r < 0)
			return r;
		fd = make_tmp(parent_fd, tmp, mode, uid);
		if (fd < 0)
			return fd;
		r = priv_renameat2(parent_fd, tmp, parent_fd, name, RENAME_NOREPLACE);
		if (r < 0) {
			(void) priv_unlinkat(parent_fd, tmp, AT_REMOVEDIR);
			if (r != -EEXIST)
				return r;
			fd = safe_close(fd);    /* lost the race: use the winner's */
			fd = priv_openat(parent_fd, name, dir, 0);
		}
	}
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_uid != 0 || st.st_gid != 0 || (st.st_mode & 07777) != mode)
		return -EPERM;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

static bool
has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

int
sweep_temporaries(int dir_fd, const char *prefix, bool only_old)
{
	struct dir_iter it = { .fd = dir_fd };
	time_t now = only_old ? time(NULL) : 0;
	const char *name;
	int n = 0;

	/* Listed through dir_fd itself (we hold it, opened with the capability it needed):
	 * no capability for the listing, which moves dir_fd's offset (rewound first). */
	if (lseek(dir_fd, 0, SEEK_SET) < 0)
		return -errno;
	while ((name = dir_next(&it, NULL)) != NULL) {
		struct stat st;

		if (!has_prefix(name, prefix))
			continue;
		if (only_old && (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
				 st.st_ctime > now - STALE_S))
			continue;
		/* A directory the user still owns: take it first, so it cannot be refilled
		 * through a new path while we empty it. */
		(void) priv_fchownat_root(dir_fd, name);
		if (priv_unlinkat(dir_fd, name, 0) == 0 ||
		    tree_remove_at(dir_fd, name) == 0)
			n++;
	}
	return n;
}
