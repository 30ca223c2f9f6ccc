/* SPDX-License-Identifier: MIT */
/*
 * Contract: the only place the helper raises a capability (caps.c holds the sets).  Each
 * function raises the capabilities its system call needs, makes that one call (the tmpfs
 * ones: the short fixed sequence one mount takes) and lowers them before it returns, on
 * every path; what a name or descriptor refers to is its caller's to check, and SECURITY.md
 * says for each why it is safe.  Trusts nothing; keeps no state.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include <unistd.h>

#include "dir-util.h"
#include "priv.h"

/* Raise caps, evaluate the system call expr, lower: its value, or -errno (-EPERM when the
 * raise failed, expr then not evaluated). */
#define PRIV(caps, expr)                         \
	({                                       \
		long _v = -EPERM;                \
		if (caps_raise_set(caps) == 0) { \
			_v = (long) (expr);      \
			if (_v < 0)              \
				_v = -errno;     \
			caps_lower_all();        \
		}                                \
		_v;                              \
	})
#define DAC   CAPS(CAP_DAC_OVERRIDE)
#define ADMIN CAPS(CAP_SYS_ADMIN)

/* The user may not even search them: cgroup_root and .locks are root's 0700.  Limits and
 * totals are root's files (the user must not raise them), as is cgroup.kill, of a leaf or
 * level the helper made and holds by fd: cgroupfs checks the opener's credentials at open,
 * so the writes need nothing. */
int
priv_openat(int dirfd, const char *name, int flags, mode_t mode)
{
	return (int) PRIV(DAC, openat(dirfd, name, flags | O_CLOEXEC, mode));
}

/* The user may chmod 000 what is theirs in a workspace; record paths lie in cgroup_root. */
int
priv_openat2(int dirfd, const char *name, int flags, uint64_t resolve)
{
	struct open_how how = { .flags = (uint64_t) (flags | O_CLOEXEC), .resolve = resolve };

	return (int) PRIV(DAC, syscall(SYS_openat2, dirfd, name, &how, sizeof(how)));
}

/* The subtree_control of the 0700 cgroup_root; deadline records (root 0600 in a 0700 dir). */
int
priv_read_at(int dirfd, const char *name, char *buf, size_t bufsz, size_t *ret_len)
{
	int r = -EPERM;

	if (caps_raise(CAP_DAC_OVERRIDE) == 0) {
		r = read_once_at(dirfd, name, buf, bufsz, ret_len);
		caps_lower_all();
	}
	return r;
}

/* Leaves in the root-owned per-user level; temporaries in root's .locks. */
int
priv_mkdirat(int dirfd, const char *name, mode_t mode)
{
	return (int) PRIV(DAC, mkdirat(dirfd, name, mode));
}

/* Leaves, mount points, lock files and records in root-owned dirs; the user's files in a
 * workspace, whatever mode they gave them. */
int
priv_unlinkat(int dirfd, const char *name, int flags)
{
	return (int) PRIV(DAC, unlinkat(dirfd, name, flags));
}

/* Staged dirs into root-owned parents; deep workspace dirs up to its top. */
int
priv_renameat2(int olddir, const char *old, int newdir, const char *new, unsigned flags)
{
	return (int) PRIV(DAC, renameat2(olddir, old, newdir, new, flags));
}

/* Into root's 0700 deadline dir; also makes the root-owned file a permitted hardlink
 * source under fs.protected_hardlinks (AT_EMPTY_PATH would need CAP_DAC_READ_SEARCH). */
int
priv_link_fd(int fd, int dirfd, const char *name)
{
	char path[64];

	(void) snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return (int) PRIV(DAC, linkat(AT_FDCWD, path, dirfd, name, AT_SYMLINK_FOLLOW));
}

/* The kernel checks the leaf's and the common ancestor's cgroup.procs, root's, against the
 * caller's credentials, as for a write to cgroup.procs. */
pid_t
priv_clone_into_cgroup(struct clone_args *ca)
{
	return (pid_t) PRIV(DAC, syscall(SYS_clone3, ca, sizeof(*ca)));
}

/* mkdir(2) as the user's fsuid makes the user the owner: a new dir goes to root. */
int
priv_fchown(int fd, uid_t uid, gid_t gid)
{
	return (int) PRIV(CAPS(CAP_CHOWN), fchown(fd, uid, gid));
}

/* The kernel makes a new cgroup's files the creator's: every one goes to root before a
 * limit is written, or the user could raise their own.  Only the kernel makes entries in a
 * cgroup dir, and the user cannot reach this one (its parent is root's 0700). */
int
priv_take_cgroup(int fd)
{
	struct dir_iter it = { .fd = fd };
	const char *name;
	int r = 0;

	if (caps_raise(CAP_CHOWN) < 0)
		return -EPERM;
	if (fchown(fd, 0, 0) < 0)
		r = -errno;
	while (r == 0 && (name = dir_next(&it, NULL)) != NULL)
		if (fchownat(fd, name, 0, 0, AT_SYMLINK_NOFOLLOW) < 0)
			r = -errno;
	if (r == 0 && errno != 0)
		r = -errno; /* a listing error: a writable file may be left to the user */
	caps_lower_all();
	return r;
}

/* A new tmpfs superblock. */
int
priv_fsopen_tmpfs(void)
{
	return (int) PRIV(ADMIN, fsopen("tmpfs", FSOPEN_CLOEXEC));
}

/* Creating the superblock, making it a mount and attaching it each need CAP_SYS_ADMIN;
 * attached, not left detached: a cwd in a never-attached mount breaks getcwd(). */
int
priv_tmpfs_attach(int fsfd, int dirfd)
{
	int mfd = -EBADF, r = 0;

	if (caps_raise(CAP_SYS_ADMIN) < 0)
		return -EPERM;
	if (fsconfig(fsfd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (mfd = fsmount(fsfd, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) < 0 ||
	    move_mount(mfd, "", dirfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		r = -errno;
	caps_lower_all();
	if (r < 0 && mfd >= 0)
		(void) close(mfd);
	return r < 0 ? r : mfd;
}

/* Shrinking the workspace's own superblock at teardown: fspick(2) and the reconfiguration
 * need CAP_SYS_ADMIN. */
int
priv_tmpfs_resize(int rootfd, const char *size, const char *inodes)
{
	int fsfd = -EBADF, r = 0;

	if (caps_raise(CAP_SYS_ADMIN) < 0)
		return -EPERM;
	fsfd = fspick(rootfd, "",
		      FSPICK_EMPTY_PATH | FSPICK_CLOEXEC | FSPICK_NO_AUTOMOUNT |
			      FSPICK_SYMLINK_NOFOLLOW);
	if (fsfd < 0 || fsconfig(fsfd, FSCONFIG_SET_STRING, "size", size, 0) < 0 ||
	    fsconfig(fsfd, FSCONFIG_SET_STRING, "nr_inodes", inodes, 0) < 0 ||
	    fsconfig(fsfd, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0) < 0)
		r = -errno;
	caps_lower_all();
	if (fsfd >= 0)
		(void) close(fsfd);
	return r;
}

/* Detaching the workspace at teardown. */
int
priv_umount_detach(const char *path)
{
	return (int) PRIV(ADMIN, umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW));
}

/* Loading a cgroup socket program needs both; attaching it needs CAP_NET_ADMIN. */
int
priv_bpf(int cmd, union bpf_attr *attr)
{
	return (int) PRIV(CAPS(CAP_BPF) | CAPS(CAP_NET_ADMIN),
			  syscall(SYS_bpf, cmd, attr, sizeof(*attr)));
}
