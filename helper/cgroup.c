/* SPDX-License-Identifier: MIT */
/*
 * Contract: cgroup2 primitives relative to the delegated parent's dirfd.  Trusts: the
 * parent path from the trust-checked policy, and names made by cg_name_new() (clients
 * never name cgroups).  Capabilities: CAP_DAC_OVERRIDE to reach into the root-owned 0700
 * parent and to write root-owned control files; CAP_CHOWN to hand new leaves to root.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "caps.h"
#include "dir-util.h"
#include "cgroup.h"
#include "macro.h"
#include "parse-util.h"

void
cg_name_format(uid_t uid, const uint8_t rnd[8], char *buf, size_t bufsz)
{
	(void) snprintf(buf, bufsz, "%u-%02x%02x%02x%02x%02x%02x%02x%02x", (unsigned) uid,
			rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
}

bool
cg_name_parse(const char *name, uid_t *ret_uid)
{
	const char *dash = strchr(name, '-');
	uint64_t uid = 0;
	size_t n;

	if (dash == NULL || dash == name || dash - name > 10)
		return false;
	if (name[0] == '0' && dash - name > 1)          /* canonical decimal only */
		return false;
	for (const char *p = name; p < dash; p++) {
		if (*p < '0' || *p > '9')
			return false;
		uid = uid * 10 + (uint64_t) (*p - '0');
	}
	if (uid >= UINT32_MAX)                          /* (uid_t) -1 is not a uid */
		return false;
	n = strlen(dash + 1);
	if (n != 16 || strspn(dash + 1, "0123456789abcdef") != 16)
		return false;
	if (ret_uid != NULL)
		*ret_uid = (uid_t) uid;
	return true;
}

int
cg_name_new(uid_t uid, char *buf, size_t bufsz)
{
	uint8_t rnd[8];

	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -EIO;
	cg_name_format(uid, rnd, buf, bufsz);
	return 0;
}

/* Inside a CAP_DAC_OVERRIDE bracket (open_dirs()): the admin's path from
 * the trusted policy (0700 root: even opening it needs DAC override), checked, then a fixed
 * name in it. */
int
cg_open_root_raised(const char *root, int *ret_fd, char *subtree, size_t len)
{
	_cleanup_close_ int fd = -EBADF;
	struct statfs sfs;
	struct stat st;
	int r;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (sfs.f_type != CGROUP2_SUPER_MAGIC)
		return -EXDEV;
	/* Only a root-owned parent that others cannot write keeps users out of the leaves
	 * between mkdir and chown (docs/kernel.md 1). */
	if (st.st_uid != 0 || (st.st_mode & 0077) != 0)
		return -EPERM;
	r = read_once_at(fd, "cgroup.subtree_control", subtree, len, NULL);
	if (r < 0)
		return r == -ENOENT ? -EIO : r;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/* Interface files that no kernel makes writable: they have no write method, so a write(2)
 * to one fails with EINVAL whoever owns it and whatever its mode (cgroup_file_write()).  A
 * leaf's copies of these stay the user's (#19: 13 of 38 fchownat): owning one lets its owner
 * chmod it or set user xattrs on it, nothing else, and only through a path to the leaf,
 * which nobody but root, the helpers and sandcap has (the parent is root's 0700; sandcap
 * is not dumpable, so its descriptor of the leaf cannot be reached through /proc; a file
 * of its evidence found unreadable is made 0444 again and read, frontend/cgroup/cgstats.c;
 * SECURITY.md "Savings of issue 19").  A name not on this list is
 * chowned, as every file was before: a kernel that adds a file, or makes one of these
 * writable (as 6.12 did memory.peak, which is therefore not here), only costs a chown.
 * tests/vm 25-helper-protect checks that no file left to the user has a write bit. */
static const char *const cg_read_only[] = {
	"cgroup.controllers", "cgroup.events", "cgroup.stat", "cpu.stat", "cpu.stat.local",
	"memory.current", "memory.events", "memory.events.local", "memory.numa_stat",
	"memory.stat", "memory.swap.current", "memory.swap.events", "memory.zswap.current",
	"pids.current", "pids.events", "pids.events.local", "io.stat",
};

bool
cg_file_read_only(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(cg_read_only); i++)
		if (streq(name, cg_read_only[i]))
			return true;
	return false;
}

/* Hand the cgroup dir behind fd and its interface files to root, mode 0755: every file
 * (all), or every file but those of cg_file_read_only() (a leaf).  The caller holds
 * CAP_CHOWN raised (a leaf: cg_create_at_raised(); a per-user level: cg_user_level()).
 *
 * Every chown here is of a directory we created in this request (or a per-user level a
 * killed helper left half-made, which only helpers could reach since) and hold by fd, or
 * of a name inside it resolved relative to that fd with AT_SYMLINK_NOFOLLOW.  The user
 * cannot reach the directory at all (the delegated parent is root's 0700) and cannot add a
 * name to it (only the kernel makes entries in a cgroup dir; a subcgroup needs write access
 * to it), so no name in the loop can lead anywhere but into this cgroup.  The listing is
 * getdents64 on that fd; an error in it fails the whole step (a writable file left to the
 * user would let them raise a limit).  A level's fd is left at offset 0.  The per-user
 * level's files are all chowned: it is made once per user and stays, so skipping buys
 * nothing there. */
static int
cg_take_raised(int fd, bool all)
{
	struct dir_iter it = { .fd = fd };
	const char *name;
	int r = 0;

	/* umask 077 made it 0700; the front-end needs search access to read counters.  We
	 * still own it, so this needs no capability (and must come before the chown). */
	if (fchmod(fd, 0755) < 0 || fchown(fd, 0, 0) < 0)
		return -errno;
	/* Before any limit is written, or the user could raise its own limits (docs/kernel.md
	 * 1). */
	while ((name = dir_next(&it, NULL)) != NULL)
		if ((all || !cg_file_read_only(name)) &&
		    fchownat(fd, name, 0, 0, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
	if (errno != 0)
		r = -errno;
	/* The level is listed again (reclaim_and_count()); the leaf is not: sandcap only
	 * opens names in it (#19: one lseek less). */
	if (all && lseek(fd, 0, SEEK_SET) < 0 && r == 0)
		r = -errno;
	return r;
}

int
cg_create_at_raised(int parent_fd, const char *name, int *ret_fd)
{
	_cleanup_close_ int fd = -EBADF;
	int r;

	if (!cg_name_parse(name, NULL))
		return -EINVAL;
	/* The kernel makes the new dir and its files owned by our fsuid: the user. */
	if (mkdirat(parent_fd, name, 0755) < 0)
		return -errno;
	/* A subdirectory of the per-user level, a subdirectory of the cgroup2 root checked at
	 * HELLO: cgroup2 too (only root could mount something on a name just made). */
	fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = cg_take_raised(fd, false);
	if (r < 0)
		return r;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

int
cg_user_level(int root_fd, uid_t uid, int *fdp, bool *ret_subdirs)
{
	_cleanup_close_ int fd = TAKE_FD(*fdp);
	char name[16];
	struct stat st;
	int r;

	(void) snprintf(name, sizeof(name), "%u", (unsigned) uid);
	/* Not opened yet (open_dirs() found none): one bracket for the fixed name <uid> in
	 * root's 0700 parent, opened, or made and opened.  Made by the helpers of uid only,
	 * under their per-user lock (user.c); it stays after the user's last sandbox
	 * (session.c).  A subdirectory of the checked cgroup2 root: cgroup2 too (only root
	 * could mount anything on it). */
	if (fd < 0) {
		if (caps_raise(CAP_DAC_OVERRIDE) < 0)
			return -EPERM;
		fd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT &&
		    (mkdirat(root_fd, name, 0755) == 0 || errno == EEXIST))
			fd = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		caps_lower_all();
		if (fd < 0)
			return -errno;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	*ret_subdirs = st.st_nlink != 2;        /* kernfs: 2 + subdirectories */
	/* New, or left half-made by a helper killed mid-way (the 0700 parent kept the user
	 * out of it meanwhile): hand it to root. */
	if (st.st_uid != 0 || st.st_gid != 0 || (st.st_mode & 07777) != 0755) {
		if (caps_raise(CAP_CHOWN) < 0)
			return -EPERM;
		r = cg_take_raised(fd, true);
		caps_lower_all();
		if (r < 0)
			return r;
	}
	*fdp = TAKE_FD(fd);
	return 0;
}

static int
write_fd(int fd, const char *value)
{
	size_t n = strlen(value);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, value, n);
	if (w < 0)
		return -errno;
	return (size_t) w == n ? 0 : -EIO;
}

int
cg_write_at_raised(int leaf_fd, const char *file, const char *value)
{
	_cleanup_close_ int fd = openat(leaf_fd, file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);

	return write_fd(fd, value);
}

int
cg_write_batch_raised(struct cg_batch *b, int dir_fd, const char *file, const char *value)
{
	int fd = openat(dir_fd, file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	int r = write_fd(fd, value);

	if (fd >= 0)
		cg_batch_add(b, fd);    /* closed with the others: cg_batch_close() */
	return r;
}

void
cg_batch_add(struct cg_batch *b, int fd)
{
	if (b->n < ELEMENTSOF(b->fd))
		b->fd[b->n++] = fd;
	else
		(void) safe_close(fd);
}

void
cg_batch_close(struct cg_batch *b)
{
	int lo = INT_MAX, hi = -1;

	for (unsigned i = 0; i < b->n; i++) {
		lo = b->fd[i] < lo ? b->fd[i] : lo;
		hi = b->fd[i] > hi ? b->fd[i] : hi;
	}
	/* All open at once, so n distinct numbers: when they span exactly n numbers, the
	 * range holds ours and nothing else, and one close_range(2) (5.9) closes them (#19).
	 * Otherwise (a lower number was free while they were opened) one close(2) each. */
	if (b->n > 0 && hi - lo + 1 == (int) b->n &&
	    syscall(SYS_close_range, (unsigned) lo, (unsigned) hi, 0U) == 0) {
		b->n = 0;
		return;
	}
	for (unsigned i = 0; i < b->n; i++)
		(void) safe_close(b->fd[i]);
	b->n = 0;
}

int
cg_kill_fd(int kill_fd)
{
	if (kill_fd < 0)
		return -EBADF;
	if (pwrite(kill_fd, "1", 1, 0) != 1)
		return -errno;
	return 0;
}

int
cg_populated(int events_fd)
{
	char buf[256];
	ssize_t n = pread(events_fd, buf, sizeof(buf) - 1, 0);    /* re-arms the event */
	const char *p;

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	p = strstr(buf, "populated ");
	if (p == NULL || (p != buf && p[-1] != '\n'))
		return -EBADMSG;
	return p[10] == '1';
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
cg_wait_empty(int events_fd, int timeout_ms)
{
	int64_t end = -1;

	for (;;) {
		struct pollfd p = { .fd = events_fd, .events = POLLPRI };
		int64_t left;
		int r = cg_populated(events_fd);

		if (r <= 0)
			return r;
		if (end < 0)    /* the clock only when there is something to wait for */
			end = now_ms() + timeout_ms;
		left = end - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		/* kernfs reports a change as POLLPRI|POLLERR; POLLIN is always set, so it
		 * cannot be what we wait for (docs/kernel.md 2). */
		if (poll(&p, 1, (int) left) < 0 && errno != EINTR)
			return -errno;
	}
}

int
cg_remove_at(int parent_fd, const char *name)
{
	for (int i = 0;; i++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 << (i < 4 ? i : 4) };

		if (WITH_CAP(CAP_DAC_OVERRIDE, unlinkat(parent_fd, name, AT_REMOVEDIR)) == 0)
			return 0;
		/* rmdir can report EBUSY briefly after populated 0 (dying tasks, 6.19 window
		 * fixed by 1b164b876c36): a few bounded retries, ~1.5 s in all. */
		if (errno != EBUSY || i >= 5)
			return errno == ENOENT ? 0 : -errno;
		(void) nanosleep(&ts, NULL);
	}
}

int
cg_destroy_at(int parent_fd, const char *name)
{
	_cleanup_close_ int leaf = -EBADF, kfd = -EBADF, efd = -EBADF;
	int r;

	leaf = WITH_CAP(CAP_DAC_OVERRIDE, openat(parent_fd, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	if (leaf < 0)
		return errno == ENOENT ? 0 : -errno;
	/* One bracket for two files of a leaf of ours, reached through the fd just opened:
	 * cgroup.kill is root's; cgroup.events stays the user's (cg_file_read_only()), who may
	 * have made it unreadable to keep this leftover from being reclaimed. */
	if (caps_raise(CAP_DAC_OVERRIDE) < 0)
		return -EPERM;
	kfd = openat(leaf, "cgroup.kill", O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (kfd >= 0)
		efd = openat(leaf, "cgroup.events", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	caps_lower_all();
	if (kfd < 0 || efd < 0)
		return -errno;
	r = cg_kill_fd(kfd);
	if (r == 0)
		r = cg_wait_empty(efd, 10000);
	if (r == 0)
		r = cg_remove_at(parent_fd, name);
	return r;
}

