/* SPDX-License-Identifier: MIT */
/* The listener a UNIX stream or seqpacket connect() of the sandbox would reach, as the
 * calling thread would find its path, and the process of the sandbox holding it (unixgate.h:
 * decided before anything connects). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "procstat.h"
#include "supervise/rawproc.h"
#include "supervise/unixdiag.h"
#include "supervise/unixgate.h"

/* The sandbox's processes, breadth first from the supervisor's children: scratch for
 * holder().  Static: a run that never asks never touches these pages. */
static pid_t walk_pid[UGATE_PROCS_MAX], walk_par[UGATE_PROCS_MAX];

/* The socket whose inode number is ino, from the descriptor table of process pid (pinned
 * by pfd): a descriptor of ours for that very socket (pidfd_getfd, checked with fstat),
 * -ENOENT when pid holds none, -E2BIG when *budget (descriptors left to look at) ran out. */
static int
take_from(pid_t pid, int pfd, uint32_t ino, unsigned long *budget)
{
	char path[64], want[32], link[32];
	int wl = snprintf(want, sizeof(want), "socket:[%" PRIu32 "]", ino), dfd, r = -ENOENT;
	struct dirent *de;
	DIR *d;

	(void) snprintf(path, sizeof(path), "/proc/%d/fd", (int) pid);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -ENOENT;
	d = fdopendir(dfd);
	if (d == NULL) {
		(void) close(dfd);
		return -ENOENT;
	}
	while (r == -ENOENT && (de = readdir(d)) != NULL) {
		struct stat st;
		ssize_t n;
		long num;
		char *end;
		int s;

		if (de->d_name[0] == '.')
			continue;
		if (*budget == 0) {
			r = -E2BIG;
			break;
		}
		(*budget)--;
		n = readlinkat(dfd, de->d_name, link, sizeof(link));
		if (n != wl || memcmp(link, want, (size_t) wl) != 0)
			continue;
		errno = 0;
		num = strtol(de->d_name, &end, 10);
		if (errno != 0 || *end != '\0' || num < 0 || num > INT_MAX)
			continue;
		/* What is taken is checked, not the number: the sandbox may have put another
		 * file there since.  EPERM: the holder made itself non-dumpable. */
		s = pidfd_getfd(pfd, (int) num, 0);
		if (s < 0)
			continue;
		if (fstat(s, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == ino)
			r = s;
		else
			(void) close(s);
	}
	(void) closedir(d);
	return r;
}

/* The listening socket ino, taken from a process of the sandbox that holds it: any of
 * them, so a listener whose listen()ing process has exited (a daemon that forked and let
 * its parent exit) is still found in the child that kept it.  The sandbox's processes are
 * the supervisor's descendants (it is their subreaper: every process they make stays one)
 * other than the helper; each is pinned with a pidfd, then checked to be the child of the
 * process it was found under, whose children are listed only while its own pidfd shows it
 * alive, as sv_signal_descendants() does.  Descriptor tables of threads that have one of
 * their own (clone without CLONE_FILES) are not looked at: such a holder is not found,
 * and the connect is refused.  The descriptor, -ENOENT (no process of the sandbox holds
 * it: refused), -E2BIG (more than UGATE_FDS_MAX descriptors to look at: refused). */
static int
holder(const struct ugate *g, uint32_t ino)
{
	unsigned long budget = UGATE_FDS_MAX;
	size_t n = rawproc_children(g->self, walk_pid, walk_par, 0, UGATE_PROCS_MAX);

	for (size_t i = 0; i < n; i++) {
		pid_t p = walk_pid[i], par = walk_par[i];
		_cleanup_close_ int pfd = -EBADF;
		struct procstat ps;
		size_t before = n;
		int s;

		if (par == g->self && p == g->exclude)
			continue;
		pfd = pidfd_open(p, 0);
		if (pfd < 0)
			continue;
		/* Our own children cannot be recycled before we reap them; a grandchild's pid
		 * can: it must still be the child of the process it was found under. */
		if (par != g->self && (procstat_read(p, &ps) < 0 || ps.ppid != par))
			continue;
		s = take_from(p, pfd, ino, &budget);
		if (s >= 0 || s == -E2BIG)
			return s;
		n = rawproc_children(p, walk_pid, walk_par, n, UGATE_PROCS_MAX);
		if (syscall(SYS_pidfd_send_signal, pfd, 0, NULL, 0) < 0)
			n = before; /* p ended: the pid may have named another meanwhile */
	}
	return -ENOENT;
}

/* The socket file a pathname names, as thread tid would find it (a relative path from its
 * working directory, its /proc/self as its own), opened O_PATH (symbolic links followed,
 * as connect() follows them): what is checked and what is then connected to (through
 * /proc/thread-self/fd/N) are this one file, whatever the sandbox renames meanwhile.  The
 * descriptor or -errno. */
static int
open_sockfile(const struct ugate *g, uint64_t id, pid_t tid, const struct sockaddr_un *sa,
	      socklen_t len)
{
	struct sockaddr_un re;
	socklen_t re_len = 0;
	char path[sizeof(sa->sun_path) + 1], cwd[64];
	_cleanup_close_ int dir = -EBADF;
	int r = ugate_proc_self(sa, len, tid, &re, &re_len), fd;
	size_t n;

	if (r < 0)
		return r;
	if (r > 0) {
		sa = &re;
		len = re_len;
	}
	n = strnlen(sa->sun_path, len - offsetof(struct sockaddr_un, sun_path));
	memcpy(path, sa->sun_path, n);
	path[n] = '\0';
	if (path[0] != '/') {
		(void) snprintf(cwd, sizeof(cwd), "/proc/%d/cwd", (int) tid);
		dir = open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0 || !ugate_id_valid(g, id))
			return -ENOENT;
	}
	fd = openat(dir >= 0 ? dir : AT_FDCWD, path, O_PATH | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The listening socket a UNIX stream or seqpacket connect() to sa would reach, decided
 * before anything connects: sock_diag names the socket bound to the file (its inode) or
 * to the abstract name, and a process of the sandbox must hold it.  Ours then (a
 * descriptor of it, so it stays bound, to that name and file, until we close it), or
 * -errno: -EACCES when it is not the sandbox's.  For a path, *ret_file is the socket
 * file (O_PATH) to connect through. */
int
ugate_listener_of(struct ugate *g, uint64_t id, pid_t tid, int type, const struct sockaddr_un *sa,
		  socklen_t len, int *ret_file)
{
	struct udiag_key key = { .type = type };
	struct udiag_match m;
	uint32_t fsdev = 0;
	_cleanup_close_ int file = -EBADF;
	size_t n = len - offsetof(struct sockaddr_un, sun_path);
	int r;

	if (sa->sun_path[0] == '\0') {
		key.abstract = true;
		key.name_len = n;
		memcpy(key.name, sa->sun_path, n);
	} else {
		struct stat st;

		file = open_sockfile(g, id, tid, sa, len);
		if (file < 0)
			return file;
		if (fstat(file, &st) < 0)
			return -errno;
		if (!S_ISSOCK(st.st_mode))
			return -ECONNREFUSED;
		key.vfs_ino = (uint32_t) st.st_ino;
		key.vfs_dev = udiag_dev(st.st_dev);
	}
	/* Whatever stopped the lookup (memory, a dump cut short): refused, never connected. */
	if (udiag_lookup(&key, &m) < 0)
		return -EACCES;
	/* Where stat() gives another device than the file system's own (btrfs subvolumes),
	 * the one unix_diag reports is the mount's: looked up again with it. */
	if (m.n == 0 && !key.abstract && udiag_fd_fsdev(file, &fsdev) == 0 &&
	    fsdev != key.vfs_dev) {
		key.vfs_dev = fsdev;
		if (udiag_lookup(&key, &m) < 0)
			return -EACCES;
	}
	if (m.n == 0)
		return -ECONNREFUSED; /* nothing bound there, as connect() would say */
	if (m.n > 1)
		return -EACCES; /* two sockets share the key's 32 bits of inode */
	if (m.type != type)
		return -EPROTOTYPE;
	if (m.state != TCP_LISTEN)
		return -ECONNREFUSED;
	r = holder(g, m.ino);
	if (r < 0)
		return r == -ENOENT || r == -E2BIG ? -EACCES : r;
	*ret_file = TAKE_FD(file);
	return r;
}

/* A path that starts with /proc/self/ or /proc/thread-self/ names the caller's own
 * entries, which we must not resolve as ours: rewritten to /proc/TID/ into *out.  A
 * /proc/self reached through a symbolic link further down still resolves as ours: that
 * fails, or names a socket whose listener is checked like any other.  0, 1 when
 * rewritten, -ENAMETOOLONG. */
int
ugate_proc_self(const struct sockaddr_un *sa, socklen_t len, pid_t tid, struct sockaddr_un *out,
		socklen_t *ret_len)
{
	static const char *const pre[] = { "/proc/self/", "/proc/thread-self/" };
	size_t n = len > offsetof(struct sockaddr_un, sun_path)
			   ? len - offsetof(struct sockaddr_un, sun_path)
			   : 0;

	for (size_t i = 0; i < ELEMENTSOF(pre); i++) {
		size_t pl = strlen(pre[i]), tail;
		char head[32];
		int hl;

		if (n < pl || memcmp(sa->sun_path, pre[i], pl) != 0)
			continue;
		tail = strnlen(sa->sun_path + pl, n - pl);
		hl = snprintf(head, sizeof(head), "/proc/%d/", (int) tid);
		if (hl < 0 || (size_t) hl + tail >= sizeof(out->sun_path))
			return -ENAMETOOLONG;
		memset(out, 0, sizeof(*out));
		out->sun_family = AF_UNIX;
		memcpy(out->sun_path, head, (size_t) hl);
		memcpy(out->sun_path + hl, sa->sun_path + pl, tail);
		*ret_len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + (size_t) hl +
					tail + 1);
		return 1;
	}
	return 0;
}
