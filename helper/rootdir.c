/* SPDX-License-Identifier: MIT */
/*
 * Contract: the root-owned directories the helper makes in workspace_root (<uid>, the mount
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
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "priv.h"
#include "session.h"

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
dir_root_owned(int parent_fd, const char *name, mode_t mode, int stage_fd, uid_t uid, int *ret_fd)
{
	const int dir = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	_cleanup_close_ int fd = openat(parent_fd, name, dir);
	char tmp[32];
	int r;

	/* Under uid's per-user lock: no other helper is making it, so a temporary of that
	 * name is a killed helper's (empty: nobody else can reach into .locks). */
	if (fd < 0 && errno == ENOENT) {
		(void) snprintf(tmp, sizeof(tmp), ".new-%u-dir", (unsigned) uid);
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
