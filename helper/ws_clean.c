/* SPDX-License-Identifier: MIT */
/*
 * Contract: emptying a directory tree the user controls (a workspace tmpfs) without
 * following anything in it, and
 * shrinking a workspace tmpfs so that a descriptor held from outside cannot refill it.
 * Trusts nothing below the dirfd it is given: every step is relative to a dirfd, every open
 * is openat2() with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
 * RESOLVE_NO_XDEV and O_NOFOLLOW, removal is unlinkat() on the parent's dirfd, so a symlink,
 * a mount or a rename planted by the user can only make us fail, never act elsewhere.
 * Regular files are truncated before they are unlinked: a descriptor held from outside
 * would otherwise keep their pages (charged to the sandbox's cgroup, then to its parent).
 * Capabilities (through priv.c): CAP_DAC_OVERRIDE (the user may chmod 000 what is theirs);
 * CAP_SYS_ADMIN for fspick()/fsconfig() of the workspace's own superblock.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "dir-util.h"
#include "macro.h"
#include "priv.h"
#include "ws_clean.h"

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

	for (int pass = 0; pass < PASSES_MAX; pass++) {
		if (empty_at(dirfd, dirfd, 0, &moved) == 0 && dir_is_empty(dirfd))
			return 0;
	}
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

int
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
