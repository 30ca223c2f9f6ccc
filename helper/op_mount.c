/* SPDX-License-Identifier: MIT */
/*
 * Contract: the per-sandbox tmpfs workspace at workspace_root/<uid>/<id>, emptying and
 * shrinking it, and reclaiming a user's dead sandboxes.  Trusts: workspace_root from the
 * trust-checked policy (root-owned, not group/other-writable); names made by the helper.
 * Never follows a user-controlled path: <uid> and .locks are root-owned and verified, the
 * tmpfs contents (the user's) are walked only as below, and unmounting goes through our
 * own dirfd.  Capabilities (through priv.c): CAP_SYS_ADMIN for fsopen/fsmount/move_mount/
 * umount2/fspick; CAP_DAC_OVERRIDE and CAP_CHOWN for the root-owned dirs and the tree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "dir-util.h"
#include "log.h"
#include "macro.h"
#include "priv.h"
#include "session.h"

int
ws_root_open(struct session *s, char *msg, size_t msglen)
{
	const char *root = policy_workspace_root(s->policy);
	_cleanup_close_ int fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return refuse(
			msg, msglen, -ENOTSUP,
			"workspace_root %s: %m; the admin must create it root-owned mode 0755 "
			"(systemd-tmpfiles --create sandcap.conf)",
			root);
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_uid != 0 || (st.st_mode & 0022) != 0)
		return refuse(msg, msglen, -ENOTSUP,
			      "workspace_root %s must be owned by root and not writable "
			      "by group or other (chown root:root, chmod 0755)",
			      root);
	s->wsroot_fd = TAKE_FD(fd);
	return 0;
}

/* The workspace's inode count (nr_inodes) for a disk limit of disk bytes: one per page of
 * it, so that files of a page or more fill the blocks first (one per 16 KiB ran out at
 * about 500 small files in a 16 MiB workspace), at least WS_INODES_MIN (a small workspace
 * still holds a tree of empty files), at most WS_INODES_MAX.  Safe to be generous: an
 * inode and its dentry (about 1 KiB) are kernel memory charged to the memory cgroup of
 * the process that makes the file, the sandbox's leaf, so they count against --memory
 * like the files' pages (SECURITY.md, "Known limits"). */
#define WS_INODES_MIN UINT64_C(4096)
#define WS_INODES_MAX UINT64_C(1048576)

static uint64_t
ws_inodes(uint64_t disk)
{
	uint64_t n = disk > 0 ? disk / 4096 : WS_INODES_MAX; /* 0: half of RAM */

	return n < WS_INODES_MIN ? WS_INODES_MIN : n > WS_INODES_MAX ? WS_INODES_MAX : n;
}

/* A new tmpfs configured with our own numbers (the effective disk limit, the caller's uid
 * and gid), attached at dirfd, the mount point just made: the mount's root fd, or -errno.
 * Nothing the user controls is read or resolved in it. */
static int
mount_tmpfs(struct session *s, int dirfd, uint64_t disk)
{
	_cleanup_close_ int fsfd = priv_fsopen_tmpfs();
	char size[32] = "50%", inodes[32], uid[16], gid[16];
	const char *const opts[][2] = {
		{ "size", size }, { "nr_inodes", inodes }, { "mode", "0700" },
		{ "uid", uid },   { "gid", gid },
	};

	/* size=0 means unlimited to tmpfs, and tmpfs cannot limit an unlimited mount later,
	 * which teardown must do (ws_shrink()): a 0 (unlimited) disk is tmpfs's default made
	 * explicit, half of RAM, and the reply says so. */
	if (disk > 0)
		(void) snprintf(size, sizeof(size), "%" PRIu64, disk);
	(void) snprintf(inodes, sizeof(inodes), "%" PRIu64, ws_inodes(disk));
	(void) snprintf(uid, sizeof(uid), "%u", (unsigned) s->uid);
	(void) snprintf(gid, sizeof(gid), "%u", (unsigned) s->gid);
	if (fsfd < 0)
		return fsfd;
	for (size_t i = 0; i < ELEMENTSOF(opts); i++)
		if (fsconfig(fsfd, FSCONFIG_SET_STRING, opts[i][0], opts[i][1], 0) < 0)
			return -errno;
	return priv_tmpfs_attach(fsfd, dirfd);
}

int
ws_mount(struct session *s, char *note, size_t notelen)
{
	_cleanup_close_ int dirfd = -EBADF;
	uint64_t disk = s->eff.v[POLICY_DISK];
	char tmp[CG_NAME_MAX + 8];
	int r;

	/* The mount point: made by us in the root-owned <uid> dir, so the user cannot swap
	 * it; made in .locks (as .new-<id>, unique as the id is) and handed to root 0700
	 * before it appears (make_staged()). */
	(void) snprintf(tmp, sizeof(tmp), ".new-%s", s->id);
	r = make_staged(s->lockdir_fd, tmp, s->uiddir_fd, s->id, 0700, &dirfd);
	if (r < 0)
		return r;
	r = mount_tmpfs(s, dirfd, disk);
	if (r < 0)
		return r;
	if (disk == 0)
		(void) snprintf(note, notelen, "disk: tmpfs default size (half of RAM)");
	s->ws_fd = r; /* O_PATH fd of the tmpfs root, tmpfs by making */
	return 0;
}

/* Emptying the workspace (the user's tree) without following anything in it, then
 * shrinking it so that a descriptor held from outside cannot refill it.  Trusts nothing
 * below the dirfd it is given: every step is relative to a dirfd, every open is openat2()
 * with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV and
 * O_NOFOLLOW, removal is unlinkat() on the parent's dirfd: a symlink, a mount or a rename
 * planted by the user can only make us fail.  Regular files are truncated before they are
 * unlinked: a held descriptor would otherwise keep their pages (charged to the sandbox's
 * cgroup).  CAP_DAC_OVERRIDE: the user may chmod 000 what is theirs. */
#define DEPTH_MAX  32 /* deeper dirs are moved up to the top and done later */
#define PASSES_MAX 64 /* whole-tree passes before we give up (user racing us) */

static int
open_beneath(int dirfd, const char *name, int flags)
{
	return priv_openat2(dirfd, name, flags | O_NOFOLLOW | O_NOCTTY,
			    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
				    RESOLVE_NO_XDEV);
}

/* Truncate <dirfd>/<name> if it is a regular file.  O_NONBLOCK: a FIFO must not block
 * us; nodev on the mount: a device node cannot be opened. */
static void
truncate_at(int dirfd, const char *name)
{
	_cleanup_close_ int fd = open_beneath(dirfd, name, O_WRONLY | O_NONBLOCK);
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		(void) !ftruncate(fd, 0); /* best effort: ws_shrink() finds what stays */
}

/* Empty the directory behind dirfd.  Directories deeper than DEPTH_MAX are renamed to
 * <topfd>/.sc-deep-<n> (same filesystem) and left for the next pass.  Returns the number
 * of entries that could not be removed. */
static unsigned
empty_at(int topfd, int dirfd, unsigned depth, unsigned *moved)
{
	_cleanup_free_ struct dir_iter *it = calloc(1, sizeof(*it)); /* not on the stack:
									 * DEPTH_MAX deep */
	_cleanup_close_ int lfd = -EBADF;
	unsigned left = 0;
	unsigned char type;
	const char *n;

	if (it == NULL)
		return 1;
	/* A fresh fd for the listing: getdents64 on it directly. */
	it->fd = lfd = open_beneath(dirfd, ".", O_RDONLY | O_DIRECTORY);
	if (lfd < 0)
		return 1;
	while ((n = dir_next(it, &type)) != NULL) {
		_cleanup_close_ int sub = -EBADF;
		char to[32];
		int r;

		/* A file is truncated first: a held fd or another link would keep its pages.  An
		 * entry replaced meanwhile by one of the other type fails and is counted: the next
		 * pass sees it as it is. */
		if (type != DT_DIR)
			truncate_at(dirfd, n);
		r = priv_unlinkat(dirfd, n, type == DT_DIR ? AT_REMOVEDIR : 0);
		if (r < 0 && r != -ENOENT && type == DT_DIR && depth >= DEPTH_MAX) {
			(void) snprintf(to, sizeof(to), ".sc-deep-%u", (*moved)++);
			r = priv_renameat2(dirfd, n, topfd, to, 0);
		} else if (r < 0 && r != -ENOENT && type == DT_DIR) {
			sub = open_beneath(dirfd, n, O_RDONLY | O_DIRECTORY);
			if (sub >= 0)
				left += empty_at(topfd, sub, depth + 1, moved);
			r = sub < 0 ? sub : priv_unlinkat(dirfd, n, AT_REMOVEDIR);
		}
		if (r < 0 && r != -ENOENT)
			left++;
	}
	return left + (errno != 0); /* a listing error: not known to be empty */
}

/* Whether the directory behind dirfd is known to be empty (. and .. excluded). */
static bool
dir_is_empty(int dirfd)
{
	_cleanup_close_ int fd = open_beneath(dirfd, ".", O_RDONLY | O_DIRECTORY);
	struct dir_iter it = { .fd = fd };

	return fd >= 0 && dir_next(&it, NULL) == NULL && errno == 0;
}

/* Remove everything below dirfd (truncating regular files first).  -ENOTEMPTY when the
 * user kept refilling it through a held descriptor for every pass. */
static int
tree_empty(int dirfd)
{
	unsigned moved = 0;

	for (int pass = 0; pass < PASSES_MAX; pass++)
		if (empty_at(dirfd, dirfd, 0, &moved) == 0 && dir_is_empty(dirfd))
			return 0;
	return -ENOTEMPTY;
}

/* Reconfigure the tmpfs whose root is rootfd to one page and the inodes in use.  -EBUSY
 * while data is still stored in it (an unlinked file held open from outside). */
static int
ws_shrink(int rootfd)
{
	char page[32], inodes[32];
	struct statfs sfs;
	int r;

	if (fstatfs(rootfd, &sfs) < 0)
		return -errno;
	if (sfs.f_type != TMPFS_MAGIC)
		return -EXDEV;
	/* Data still stored after emptying: an unlinked file held open from outside. */
	if (sfs.f_blocks > sfs.f_bfree)
		return -EBUSY;
	/* Inodes in use: the root, and unlinked (now empty) files still held open.  No more
	 * than those: a held directory fd cannot create anything new. */
	(void) snprintf(inodes, sizeof(inodes), "%llu",
			sfs.f_files > sfs.f_ffree ? (unsigned long long) (sfs.f_files - sfs.f_ffree)
						  : 1ULL);
	(void) snprintf(page, sizeof(page), "%ld", sysconf(_SC_PAGESIZE));
	/* The workspace's own superblock, with our own two numbers; fspick() wants the root
	 * of a mount: rootfd is the workspace's own root.  tmpfs refuses (EINVAL) a size below
	 * the blocks in use or an inode count below the inodes in use: something refilled it
	 * meanwhile; the caller empties again. */
	r = priv_tmpfs_resize(rootfd, page, inodes);
	return r == -EINVAL ? -EBUSY : r;
}

/* tree_empty() then ws_shrink(), a few rounds.  0: empty and shrunk. */
static int
ws_empty_and_shrink(int rootfd)
{
	struct statfs sfs;
	int r = -EBUSY;
	/* Only the root inode and no data: nothing to walk (a command that left nothing, the
	 * usual case).  What appears meanwhile meets the shrink, as after a walk: it fails
	 * while data is stored, and leaves no room for more. */
	bool empty = fstatfs(rootfd, &sfs) == 0 && sfs.f_files - sfs.f_ffree <= 1 &&
		     sfs.f_blocks == sfs.f_bfree;

	/* The user may write through a held descriptor while we empty: empty, then shrink,
	 * which fails while anything is still stored; a few rounds, then give up. */
	for (int i = 0; i < 4 && r == -EBUSY; i++) {
		r = i == 0 && empty ? 0 : tree_empty(rootfd);
		if (r == 0 || r == -ENOTEMPTY)
			r = ws_shrink(rootfd);
	}
	return r;
}

int
ws_empty(int uiddir_fd, const char *id, int ws_fd)
{
	_cleanup_close_ int root = -EBADF;
	struct stat st, pst;
	int r;

	if (uiddir_fd < 0)
		return -EBADF;
	/* The mount's root: our own O_PATH fd of it (our tmpfs, checked at mount), which every
	 * step takes as its dirfd, or (a leftover) by name in the root-owned <uid> dir, only if
	 * it is a mount on that name (a different st_dev). */
	if (ws_fd < 0) {
		root = priv_openat(uiddir_fd, id, O_PATH | O_DIRECTORY | O_NOFOLLOW, 0);
		if (root < 0)
			return root == -ENOENT ? 0 : root;
		if (fstat(root, &st) < 0 || fstat(uiddir_fd, &pst) < 0)
			return -errno;
		if (st.st_dev == pst.st_dev)
			return 0; /* not mounted: nothing to empty */
		ws_fd = root;
	}
	r = ws_empty_and_shrink(ws_fd);
	if (r < 0)
		return log_warning_errno(r, "workspace %s not emptied: %m", id);
	return 0;
}

int
ws_detach(int uiddir_fd, const char *id)
{
	char path[64];
	int r;

	/* Through our own dirfd, so a changed workspace_root path cannot redirect us
	 * (UMOUNT_NOFOLLOW: the last component sits in a dir only root can write). */
	(void) snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", uiddir_fd, id);
	r = priv_umount_detach(path);
	if (r < 0 && r != -EINVAL && r != -ENOENT)
		return r;
	r = priv_unlinkat(uiddir_fd, id, AT_REMOVEDIR);
	return r == -ENOENT ? 0 : r;
}

/* Tear down a sandbox whose helper is gone: whatever it holds killed, then what is left of
 * it removed as at teardown. */
static int
reclaim_one(struct session *s, const char *id)
{
	char msg[SESSION_MSG_MAX] = "";
	int r = cg_kill_wait_at(s->ucg_fd, id);

	if (r == 0)
		r = sandbox_remove(s, id, -EBADF, msg, sizeof(msg));
	if (r < 0)
		return log_warning_errno(r, "uid %u: cannot reclaim leftover %s: %m %s",
					 (unsigned) s->uid, id, msg);
	log_info("uid %u: reclaimed leftover sandbox %s", (unsigned) s->uid, id);
	return 0;
}

/* The sandbox id a name in the per-user level (the name itself) or in .locks (<id>.lock,
 * .new-<id>: up to the first dot after the prefix) stands for, if it is one (cut at
 * CG_NAME_MAX, longer than any id). */
static void
name_to_id(const char *name, bool in_locks, char id[static CG_NAME_MAX])
{
	if (in_locks && strneq(name, ".new-", 5))
		name += 5;
	(void) snprintf(id, CG_NAME_MAX, "%.*s", in_locks ? (int) strcspn(name, ".") : CG_NAME_MAX,
			name);
}

/* Reclaim each sandbox of s->uid named in dirfd whose helper is gone: the per-user level
 * lists leaves; .locks lists lock files <id>.lock and mount point temporaries .new-<id>, of
 * which only those without a leaf are looked at (a helper killed between making its lock
 * file and its leaf, or between removing them).  Listed through our fd (no capability). */
static void
reclaim_in(struct session *s, int dirfd)
{
	struct dir_iter it = { .fd = dirfd };
	const char *name;

	if (lseek(dirfd, 0, SEEK_SET) < 0)
		return;
	while ((name = dir_next(&it, NULL)) != NULL) {
		_cleanup_close_ int lfd = -EBADF;
		char id[CG_NAME_MAX], lock[CG_NAME_MAX + 8];
		struct stat st;
		uid_t owner;

		name_to_id(name, dirfd == s->lockdir_fd, id);
		if (!cg_name_parse(id, &owner) || owner != s->uid || streq(id, s->id) ||
		    (dirfd == s->lockdir_fd &&
		     fstatat(s->ucg_fd, id, &st, AT_SYMLINK_NOFOLLOW) == 0))
			continue;
		/* A live helper holds LOCK_EX on its lock file from before the file has a name
		 * (make_lock()) until everything else of its sandbox is gone; getting it, or
		 * finding no lock file, means the owner is gone.  Anything else (the lock held,
		 * or an open or flock that failed, e.g. under a RLIMIT_NOFILE the user lowered
		 * meanwhile) cannot prove it gone: it stays, and its leaf counts against the
		 * cap. */
		(void) snprintf(lock, sizeof(lock), "%s.lock", id);
		lfd = priv_openat(s->lockdir_fd, lock, O_RDWR | O_NOFOLLOW, 0);
		if ((lfd >= 0 && flock(lfd, LOCK_EX | LOCK_NB) == 0) || lfd == -ENOENT)
			(void) reclaim_one(s, id);
	}
}

void
reclaim_leftovers(struct session *s)
{
	/* Without the per-user dirs no sandbox of the user has a leaf or a workspace. */
	if (s->uiddir_fd < 0 || s->ucg_fd < 0)
		return;
	reclaim_in(s, s->ucg_fd);
	reclaim_in(s, s->lockdir_fd);
}
