/* SPDX-License-Identifier: MIT */
/*
 * Contract: cgroup2 primitives relative to the delegated parent's dirfd.  Trusts: the
 * parent path from the trust-checked policy, and names made by cg_name_new() (clients
 * never name cgroups).  Capabilities (through priv.c): CAP_DAC_OVERRIDE to reach into the
 * root-owned 0700 parent and to write root-owned control files; CAP_CHOWN to hand new
 * leaves to root.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "dir-util.h"
#include "macro.h"
#include "priv.h"

/* The admin's path from the trusted policy (root's 0700: even opening it needs
 * CAP_DAC_OVERRIDE), checked, then a fixed name in it. */
int
cg_open_root(const char *root, int *ret_fd, char *subtree, size_t len)
{
	_cleanup_close_ int fd = priv_openat(AT_FDCWD, root, O_RDONLY | O_DIRECTORY, 0);
	struct statfs sfs;
	struct stat st;
	int r;

	if (fd < 0)
		return fd;
	if (fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (sfs.f_type != CGROUP2_SUPER_MAGIC)
		return -EXDEV;
	/* Only a root-owned parent that others cannot write keeps users out of the leaves
	 * between mkdir and chown (docs/kernel.md 1). */
	if (st.st_uid != 0 || (st.st_mode & 0077) != 0)
		return -EPERM;
	r = priv_read_at(fd, "cgroup.subtree_control", subtree, len, NULL);
	if (r < 0)
		return r == -ENOENT ? -EIO : r;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* Hand the cgroup dir behind fd and every interface file in it to root, mode 0755.  Each
 * chown is of a directory made in this request (or a per-user level a killed helper left
 * half-made, which only helpers could reach since) and held by fd, or of a kernel-made name
 * in it (priv_take_cgroup()).  Read-only files keep the kernel's 0444: readable by all. */
static int
cg_take(int fd)
{
	/* umask 077 made it 0700; the front-end needs search access to read counters.  We
	 * still own it, so this needs no capability (and must come before the chown). */
	if (fchmod(fd, 0755) < 0)
		return -errno;
	/* Before any limit is written, or the user could raise its own limits (docs/kernel.md
	 * 1). */
	return priv_take_cgroup(fd);
}

int
cg_create_at(int parent_fd, const char *name)
{
	if (!cg_name_parse(name, NULL))
		return -EINVAL;
	/* The kernel makes the new dir and its files owned by our fsuid: the user. */
	return priv_mkdirat(parent_fd, name, 0755);
}

int
cg_take_at(int parent_fd, const char *name, int *ret_fd)
{
	_cleanup_close_ int fd = -EBADF;
	int r;

	/* A subdirectory of the per-user level, a subdirectory of the cgroup2 root checked at
	 * HELLO: cgroup2 too (only root could mount something on a name just made). */
	fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = cg_take(fd);
	if (r < 0)
		return r;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int
cg_write_max(int fd, uint64_t memory, uint64_t cpu, uint64_t pids)
{
	char m[24] = "max", c[40] = "max 100000", p[24] = "max";

	if (memory != UINT64_MAX)
		(void) snprintf(m, sizeof(m), "%" PRIu64, memory);
	if (cpu != UINT64_MAX)
		(void) snprintf(c, sizeof(c), "%" PRIu64 " 100000", cpu * 1000);
	if (pids != UINT64_MAX)
		(void) snprintf(p, sizeof(p), "%" PRIu64, pids);
	return cg_write_at(fd, "memory.max", m) ?: cg_write_at(fd, "cpu.max", c)
							  ?: cg_write_at(fd, "pids.max", p);
}

/* Root's files of a cgroup the helper holds by fd: cgroupfs checks the opener's credentials
 * at open, so the write needs nothing. */
int
cg_write_at(int fd, const char *name, const char *value)
{
	_cleanup_close_ int wfd = priv_openat(fd, name, O_WRONLY | O_NOFOLLOW, 0);
	size_t len = strlen(value);
	ssize_t w;

	if (wfd < 0)
		return wfd;
	w = write(wfd, value, len);
	return w == (ssize_t) len ? 0 : w < 0 ? -errno : -EIO;
}

int
cg_user_level(int root_fd, const char *name, int *fdp)
{
	_cleanup_close_ int fd = TAKE_FD(*fdp);
	struct stat st;
	int r;

	/* Not opened yet (open_dirs() found none): the fixed name <uid> in root's 0700
	 * parent, made if missing.  Made by the helpers of uid only, under their per-user
	 * lock (user_lock()); it stays after the user's last sandbox (session.c).  A subdirectory
	 * of the checked cgroup2 root: cgroup2 too (only root could mount anything on it). */
	if (fd < 0) {
		r = priv_mkdirat(root_fd, name, 0755);
		if (r < 0 && r != -EEXIST)
			return r;
		fd = priv_openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
		if (fd < 0)
			return fd;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	/* New, or left half-made by a helper killed mid-way (the 0700 parent kept the user
	 * out of it meanwhile): enable the controllers for the leaves (without them the limit
	 * files do not exist in leaves), then hand it to root.  A level that is root's has
	 * had both. */
	if (st.st_uid != 0 || st.st_gid != 0 || (st.st_mode & 07777) != 0755) {
		r = cg_write_at(fd, "cgroup.subtree_control", "+cpu +memory +pids");
		if (r == 0)
			r = cg_take(fd);
		if (r < 0)
			return r;
	}
	*fdp = TAKE_FD(fd);
	return 0;
}

int
cg_remove_at(int parent_fd, const char *name)
{
	for (int i = 0;; i++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 << (i < 4 ? i : 4) };
		int r = priv_unlinkat(parent_fd, name, AT_REMOVEDIR);

		/* rmdir can report EBUSY briefly after populated 0 (dying tasks, 6.19 window
		 * fixed by 1b164b876c36): a few bounded retries, ~1.5 s in all. */
		if (r != -EBUSY || i >= 5)
			return r == -ENOENT ? 0 : r;
		(void) nanosleep(&ts, NULL);
	}
}

int
cg_remove_tree_at(int parent_fd, const char *name)
{
	struct dir_iter it = { .fd = openat(parent_fd, name,
					    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) };
	unsigned char type;
	const char *child;

	/* A session level's calls, emptied with it (populated 0 counts the whole subtree):
	 * only rmdir is left. */
	while (it.fd >= 0 && (child = dir_next(&it, &type)) != NULL)
		if (type == DT_DIR)
			(void) cg_remove_at(it.fd, child);
	safe_close(it.fd);
	return cg_remove_at(parent_fd, name);
}

int
cg_kill_wait_at(int parent_fd, const char *name)
{
	_cleanup_close_ int leaf = -EBADF, kfd = -EBADF, efd = -EBADF;
	int r;

	leaf = priv_openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
	if (leaf < 0)
		return leaf == -ENOENT ? 0 : leaf;
	/* Two files of a leaf of ours, reached through the fd just opened, both root's. */
	kfd = priv_openat(leaf, "cgroup.kill", O_WRONLY | O_NOFOLLOW, 0);
	if (kfd < 0)
		return kfd;
	efd = priv_openat(leaf, "cgroup.events", O_RDONLY | O_NOFOLLOW, 0);
	if (efd < 0)
		return efd;
	r = cg_kill_fd(kfd);
	return r < 0 ? r : cg_wait_empty(efd, 10000);
}
