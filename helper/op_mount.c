/* SPDX-License-Identifier: MIT */
/*
 * Contract: the per-sandbox tmpfs workspace at workspace_root/<uid>/<id>, the lock dir
 * workspace_root/.locks, and reclaiming a user's dead sandboxes.  Trusts: workspace_root
 * from the trust-checked policy (must be root-owned, not group/other-writable); names made
 * by the helper.  Never follows a user-controlled path: <uid> and .locks are root-owned
 * and verified, the tmpfs contents (owned by the user) are never walked, and unmounting
 * goes through our own dirfd.  Capabilities: CAP_SYS_ADMIN for fsopen/fsmount/
 * move_mount/umount2; CAP_DAC_OVERRIDE and CAP_CHOWN for the root-owned dirs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "caps.h"
#include "deadline.h"
#include "log.h"
#include "macro.h"
#include "rootdir.h"
#include "session.h"
#include "ws_clean.h"

int
ws_prepare_dirs(struct session *s, char *msg, size_t msglen)
{
	const char *root = policy_workspace_root(s->policy);
	_cleanup_close_ int fd = -EBADF;
	struct stat st;
	int r;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		snprintf(msg, msglen, "workspace_root %s: %s; the admin must create it root-owned "
			 "mode 0755 (systemd-tmpfiles --create sandcap.conf)", root, strerror(-r));
		return -ENOTSUP;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_uid != 0 || (st.st_mode & 0022) != 0) {
		snprintf(msg, msglen, "workspace_root %s must be owned by root and not writable "
			 "by group or other (chown root:root, chmod 0755)", root);
		return -ENOTSUP;
	}
	/* Temporaries of .locks itself whose helper died (rootdir.c). */
	(void) sweep_temporaries(fd, ".new-locks-", true);
	r = dir_root_owned(fd, ".locks", 0700, -EBADF, s->uid, &s->lockdir_fd);
	if (r < 0) {
		snprintf(msg, msglen, "cannot prepare %s/.locks (root-owned 0700): %s", root,
			 strerror(-r));
		return -ENOTSUP;
	}
	s->wsroot_fd = TAKE_FD(fd);
	return 0;
}

static int
fs_set(int fsfd, const char *key, const char *value)
{
	return fsconfig(fsfd, FSCONFIG_SET_STRING, key, value, 0) < 0 ? -errno : 0;
}

int
ws_mount(struct session *s, char *msg, size_t msglen)
{
	_cleanup_close_ int dirfd = -EBADF, fsfd = -EBADF, mfd = -EBADF;
	uint64_t disk = s->eff.v[POLICY_DISK];
	char num[32];
	struct statfs sfs;
	int r;

	/* The mount point: made by us in the root-owned <uid> dir, so the user cannot swap
	 * it; made in .locks and handed to root 0700 before it appears (rootdir.c). */
	s->ws_dir_created = true;
	r = dir_root_owned(s->uiddir_fd, s->id, 0700, s->lockdir_fd, s->uid, &dirfd);
	if (r < 0)
		return log_error_errno(r, "workspace mount point %s: %m", s->id);

	fsfd = WITH_CAP(CAP_SYS_ADMIN, fsopen("tmpfs", FSOPEN_CLOEXEC));
	if (fsfd < 0)
		return log_error_errno(-errno, "fsopen tmpfs: %m");
	/* size=0 means unlimited to tmpfs, and tmpfs cannot limit an unlimited mount later,
	 * which teardown must do (ws_shrink()): a 0 (unlimited) disk is tmpfs's default made
	 * explicit, half of RAM, and the reply says so. */
	if (disk > 0) {
		(void) snprintf(num, sizeof(num), "%" PRIu64, disk);
		r = fs_set(fsfd, "size", num);
		(void) snprintf(num, sizeof(num), "%" PRIu64, disk / 16384 < 1024 ? 1024 :
				disk / 16384 > 1048576 ? 1048576 : disk / 16384);
	} else {
		r = fs_set(fsfd, "size", "50%");
		(void) snprintf(num, sizeof(num), "%d", 1048576);
	}
	if (r == 0)
		r = fs_set(fsfd, "nr_inodes", num);
	if (r == 0)
		r = fs_set(fsfd, "mode", "0700");
	(void) snprintf(num, sizeof(num), "%u", (unsigned) s->uid);
	if (r == 0)
		r = fs_set(fsfd, "uid", num);
	(void) snprintf(num, sizeof(num), "%u", (unsigned) s->gid);
	if (r == 0)
		r = fs_set(fsfd, "gid", num);
	if (r == 0 && WITH_CAP(CAP_SYS_ADMIN, fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL,
						       0)) < 0)
		r = -errno;
	if (r < 0)
		return log_error_errno(r, "configure tmpfs for %s: %m", s->id);
	mfd = WITH_CAP(CAP_SYS_ADMIN, fsmount(fsfd, FSMOUNT_CLOEXEC,
					      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV));
	if (mfd < 0)
		return log_error_errno(-errno, "fsmount tmpfs for %s: %m", s->id);
	/* Attached, not left detached: a cwd in a never-attached mount breaks getcwd(). */
	if (WITH_CAP(CAP_SYS_ADMIN, move_mount(mfd, "", dirfd, "",
			MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)) < 0)
		return log_error_errno(-errno, "attach workspace %s: %m", s->id);
	s->ws_mounted = true;
	if (fstatfs(mfd, &sfs) < 0 || sfs.f_type != TMPFS_MAGIC)
		return -EIO;
	(void) snprintf(s->ws_path, sizeof(s->ws_path), "%s/%u/%s",
			policy_workspace_root(s->policy), (unsigned) s->uid, s->id);
	if (disk == 0)
		(void) snprintf(msg, msglen, "disk: tmpfs default size (half of RAM)");
	s->ws_fd = TAKE_FD(mfd);        /* O_PATH fd of the tmpfs root */
	log_info("uid %u: mounted workspace %s", (unsigned) s->uid, s->ws_path);
	return 0;
}

int
ws_teardown(int uiddir_fd, const char *id, int ws_fd)
{
	_cleanup_close_ int root = -EBADF;
	char path[64];
	struct stat st, pst;
	int r = 0;

	if (uiddir_fd < 0)
		return -EBADF;
	/* The mount's root: from our own fd, or (a leftover) by name in the root-owned
	 * <uid> dir; only if it is a mount on that name (a different st_dev). */
	if (ws_fd >= 0)
		root = WITH_CAP(CAP_DAC_OVERRIDE, openat(ws_fd, ".",
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	else
		root = WITH_CAP(CAP_DAC_OVERRIDE, openat(uiddir_fd, id,
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	if (root < 0 && errno == ENOENT)
		return 0;
	if (root >= 0 && fstat(root, &st) == 0 && fstat(uiddir_fd, &pst) == 0 &&
	    st.st_dev != pst.st_dev) {
		r = ws_empty_and_shrink(root);
		if (r < 0)
			return log_warning_errno(r, "workspace %s not emptied: %m", id);
	}
	root = safe_close(root);

	/* Through our own dirfd, so a changed workspace_root path cannot redirect us;
	 * UMOUNT_NOFOLLOW because the last component sits in a dir only root can write. */
	(void) snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", uiddir_fd, id);
	if (WITH_CAP(CAP_SYS_ADMIN, umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW)) < 0 &&
	    errno != EINVAL && errno != ENOENT)
		r = -errno;
	if (r == 0 && WITH_CAP(CAP_DAC_OVERRIDE, unlinkat(uiddir_fd, id, AT_REMOVEDIR)) < 0 &&
	    errno != ENOENT)
		r = -errno;
	return r;
}

/* Tear down a sandbox whose helper is gone. */
static int
reclaim_one(struct session *s, const char *name)
{
	char lock[CG_NAME_MAX + 8];
	int r;

	/* The workspace first: if something outside holds data in it, the leaf (and its
	 * limits) stays and keeps counting against the user's sandboxes. */
	r = ws_teardown(s->uiddir_fd, name, -EBADF);
	if (r == 0)
		r = cg_destroy_at(s->ucg_fd, name, s->uid);
	(void) snprintf(lock, sizeof(lock), "%s.lock", name);
	if (r == 0 && WITH_CAP(CAP_DAC_OVERRIDE, unlinkat(s->lockdir_fd, lock, 0)) < 0 &&
	    errno != ENOENT)
		r = -errno;
	if (r < 0)
		return log_warning_errno(r, "uid %u: cannot reclaim leftover %s: %m",
					 (unsigned) s->uid, name);
	deadline_forget_id(name);       /* or stale records pile up until their deadlines */
	log_info("uid %u: reclaimed leftover sandbox %s", (unsigned) s->uid, name);
	return 0;
}

int
reclaim_and_count(struct session *s, unsigned *ret_live)
{
	unsigned live = 0;
	DIR *d;

	d = fdopendir(WITH_CAP(CAP_DAC_OVERRIDE, openat(s->ucg_fd, ".",
			O_RDONLY | O_DIRECTORY | O_CLOEXEC)));
	if (d == NULL)
		return -errno;
	for (struct dirent *de; (de = readdir(d)) != NULL;) {
		_cleanup_close_ int lfd = -EBADF;
		char lock[CG_NAME_MAX + 8];
		uid_t owner;

		if (!cg_name_parse(de->d_name, &owner) || owner != s->uid || streq(de->d_name, s->id))
			continue;
		(void) snprintf(lock, sizeof(lock), "%s.lock", de->d_name);
		lfd = WITH_CAP(CAP_DAC_OVERRIDE, openat(s->lockdir_fd, lock,
				O_RDWR | O_NOFOLLOW | O_CLOEXEC));
		/* A live helper holds LOCK_EX on its lock for the whole session; getting it
		 * (or finding no lock: it is created before the leaf, removed after) means
		 * the owner is gone. */
		if (lfd >= 0 && flock(lfd, LOCK_EX | LOCK_NB) < 0) {
			if (errno == EWOULDBLOCK)
				live++;
			continue;
		}
		if (lfd < 0 && errno != ENOENT)
			continue;
		if (reclaim_one(s, de->d_name) < 0)
			live++;         /* still there: it keeps counting against the cap */
	}
	(void) closedir(d);
	*ret_live = live;
	return 0;
}
