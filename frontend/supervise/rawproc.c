/* SPDX-License-Identifier: MIT */
/* Errno-free system calls and process-tree kill for the keeper; see rawproc.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervise/rawproc.h"

#if defined(__x86_64__)
long
rawsys(long nr, long a, long b, long c, long d, long e)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return ret;
}
#else
/* Elsewhere the keeper is a fork (keeper.c) with memory of its own: errno is its own. */
long
rawsys(long nr, long a, long b, long c, long d, long e)
{
	long r = syscall(nr, a, b, c, d, e);

	return r < 0 ? -errno : r;
}
#endif

void
rawpids_feed(struct rawpids *p, const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = buf[i];

		if (c >= '0' && c <= '9') {
			long d = c - '0';

			if (p->cur < 0)
				p->cur = 0;
			/* pids are below 2^22; a longer number is no pid: dropped at its end */
			p->cur = p->cur > (1L << 30) ? (1L << 31) : p->cur * 10 + d;
			continue;
		}
		rawpids_end(p);
	}
}

void
rawpids_end(struct rawpids *p)
{
	if (p->cur > 0 && p->cur <= (long) INT32_MAX && p->n < p->max)
		p->out[p->n++] = (pid_t) p->cur;
	p->cur = -1;
}

pid_t
rawproc_stat_ppid(const char *buf, size_t len)
{
	size_t i, close = len;
	long v = -1;

	for (i = 0; i < len; i++)
		if (buf[i] == ')')
			close = i;
	/* ") S 1234 ...": the state, one character, then the parent. */
	i = close + 1;
	if (close == len || i + 3 > len || buf[i] != ' ' || buf[i + 2] != ' ')
		return -1;
	for (i += 3; i < len && buf[i] >= '0' && buf[i] <= '9'; i++) {
		v = (v < 0 ? 0 : v * 10) + (buf[i] - '0');
		if (v > INT32_MAX)
			return -1;
	}
	if (i == len || buf[i] != ' ')
		return -1;
	return (pid_t) v;
}

char *
rawfmt_u(char *buf, unsigned long v)
{
	char tmp[21];
	size_t n = 0;

	do {
		tmp[n++] = (char) ('0' + v % 10);
		v /= 10;
	} while (v > 0);
	while (n > 0)
		*buf++ = tmp[--n];
	*buf = '\0';
	return buf;
}

static char *
put_s(char *p, const char *s)
{
	while (*s != '\0')
		*p++ = *s++;
	*p = '\0';
	return p;
}

/* Open /proc/PID/LEAF, or /proc/PID/task/TID/LEAF when tid is not 0, read-only. */
static long
open_proc(pid_t pid, pid_t tid, const char *leaf, int extra)
{
	char path[96], *p;
	long fd;

	p = rawfmt_u(put_s(path, "/proc/"), (unsigned long) pid);
	if (tid != 0)
		p = rawfmt_u(put_s(p, "/task/"), (unsigned long) tid);
	(void) put_s(put_s(p, "/"), leaf);
	do
		fd = rawsys(SYS_openat, AT_FDCWD, (long) path, O_RDONLY | O_CLOEXEC | extra, 0, 0);
	while (fd == -EINTR);
	return fd;
}

/* Append the children of thread tid of pid to pv (their parent, pid, to par). */
static size_t
add_task_children(pid_t pid, pid_t tid, pid_t *pv, pid_t *par, size_t n, size_t max)
{
	char buf[1024] = { 0 }; /* zeroed: the analysers cannot see read() fill it */
	struct rawpids rp = { .out = pv + n, .max = max - n, .cur = -1 };
	long fd = open_proc(pid, tid, "children", O_NOFOLLOW), r;

	if (fd < 0)
		return n;
	for (;;) {
		r = rawsys(SYS_read, fd, (long) buf, sizeof(buf), 0, 0);
		if (r == -EINTR)
			continue;
		if (r <= 0)
			break;
		rawpids_feed(&rp, buf, (size_t) r);
	}
	rawpids_end(&rp);
	(void) rawsys(SYS_close, fd, 0, 0, 0, 0);
	for (size_t i = n; i < n + rp.n; i++)
		par[i] = pid;
	return n + rp.n;
}

size_t
rawproc_children(pid_t pid, pid_t *pv, pid_t *par, size_t n, size_t max)
{
	union {
		char b[2048];
		long align;
	} buf = { { 0 } };
	long fd = open_proc(pid, 0, "task", O_DIRECTORY), got;

	if (fd < 0)
		return n;
	while ((got = rawsys(SYS_getdents64, fd, (long) buf.b, sizeof(buf.b), 0, 0)) != 0) {
		if (got == -EINTR)
			continue;
		if (got < 0)
			break;
		for (long off = 0; off < got;) {
			/* struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name */
			const char *de = buf.b + off;
			const char *name = de + offsetof(struct dirent64, d_name);
			unsigned short reclen;

			memcpy(&reclen, de + offsetof(struct dirent64, d_reclen), sizeof(reclen));
			long tid = 0;

			off += reclen;
			if (reclen == 0)
				break;
			for (; *name >= '0' && *name <= '9' && tid <= INT32_MAX; name++)
				tid = tid * 10 + (*name - '0');
			if (*name == '\0' && tid > 0 && tid <= INT32_MAX)
				n = add_task_children(pid, (pid_t) tid, pv, par, n, max);
		}
	}
	(void) rawsys(SYS_close, fd, 0, 0, 0, 0);
	return n;
}

static pid_t
read_ppid(pid_t pid)
{
	char buf[1024] = { 0 };
	long fd = open_proc(pid, 0, "stat", O_NOFOLLOW), r;
	size_t len = 0;

	if (fd < 0)
		return -1;
	while (len < sizeof(buf)) {
		r = rawsys(SYS_read, fd, (long) (buf + len), (long) (sizeof(buf) - len), 0, 0);
		if (r == -EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t) r;
	}
	(void) rawsys(SYS_close, fd, 0, 0, 0, 0);
	return rawproc_stat_ppid(buf, len);
}

#define TREE_MAX 512 /* per round; more are found by the next (one per level reaped) */

/* One round: SIGKILL to the children of self and to every descendant found below them,
 * then wait until each of them is gone (reaping our children), so that the next round
 * neither counts nor kills one twice.  Returns how many were killed. */
static unsigned
kill_round(pid_t self)
{
	pid_t pv[TREE_MAX], par[TREE_MAX], mine[TREE_MAX];
	int pfds[TREE_MAX];
	size_t n = add_task_children(self, self, pv, par, 0, TREE_MAX), n_mine = 0, n_pfd = 0;

	for (size_t i = 0; i < n; i++) {
		pid_t p = pv[i];

		if (par[i] == self) {
			/* Our own child: its pid cannot be recycled before we reap it. */
			if (rawsys(SYS_kill, p, SIGKILL, 0, 0, 0) == 0)
				mine[n_mine++] = p;
		} else {
			/* A grandchild may die and its pid be reused: pin it with a pidfd, then
			 * check it is still the child of the process it was found under. */
			long pfd = rawsys(SYS_pidfd_open, p, 0, 0, 0, 0);
			bool ours;

			if (pfd < 0)
				continue;
			ours = read_ppid(p) == par[i];
			if (ours && rawsys(SYS_pidfd_send_signal, pfd, SIGKILL, 0, 0, 0) == 0)
				pfds[n_pfd++] = (int) pfd;
			else
				(void) rawsys(SYS_close, pfd, 0, 0, 0, 0);
			if (!ours)
				continue;
		}
		n = rawproc_children(p, pv, par, n, TREE_MAX);
	}
	for (size_t i = 0; i < n_mine; i++)
		while (rawsys(SYS_wait4, mine[i], 0, __WALL, 0, 0) == -EINTR)
			;
	for (size_t i = 0; i < n_pfd; i++) {
		/* Readable once the process has exited (a SIGKILL cannot be held off). */
		struct pollfd p = { .fd = pfds[i], .events = POLLIN };

		while (rawsys(SYS_ppoll, (long) &p, 1, 0, 0, 0) == -EINTR)
			;
		(void) rawsys(SYS_close, pfds[i], 0, 0, 0, 0);
	}
	return (unsigned) (n_mine + n_pfd);
}

unsigned
rawproc_kill_tree(pid_t self)
{
	unsigned killed = 0;

	for (;;) {
		unsigned k;
		long w;

		/* The dead, and the orphans that died before they came to us. */
		while ((w = rawsys(SYS_wait4, -1, 0, WNOHANG | __WALL, 0, 0)) > 0)
			;
		if (w == -ECHILD)
			return killed; /* no child at all (a normal end): no round to make */
		k = kill_round(self);
		killed += k;
		if (k == 0) {
			/* Nothing could be killed: wait until a child ends, or none is left. */
			do
				w = rawsys(SYS_wait4, -1, 0, __WALL, 0, 0);
			while (w == -EINTR);
			if (w < 0)
				return killed; /* ECHILD: nothing left */
		}
	}
}
