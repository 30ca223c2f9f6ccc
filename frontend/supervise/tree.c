/* SPDX-License-Identifier: MIT */
/* Finding and signalling sandcap's descendants, through /proc/PID/task/TID/children. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "macro.h"
#include "procstat.h"
#include "supervise/rawproc.h"
#include "supervise/sv-internal.h"

_run_data_ pid_t sv_exclude_pid;
_run_data_ pid_t sv_ended_pid;
_run_data_ pid_t sv_self;

/* A list of pids, in inl until it outgrows it (perf: a scan of a sandbox with few
 * processes allocates nothing, and a plain run never starts malloc). */
struct pidvec {
	pid_t *v;
	size_t n, cap;
	pid_t inl[32];
};

static void
pidvec_init(struct pidvec *pv)
{
	pv->v = pv->inl;
	pv->n = 0;
	pv->cap = ELEMENTSOF(pv->inl);
}

static int
pidvec_push(struct pidvec *pv, pid_t p)
{
	if (pv->n == pv->cap) {
		size_t cap = pv->cap * 2;
		pid_t *v = reallocarray(pv->v == pv->inl ? NULL : pv->v, cap, sizeof(pid_t));

		if (v == NULL)
			return -ENOMEM;
		if (pv->v == pv->inl)
			memcpy(v, pv->inl, sizeof(pv->inl));
		pv->v = v;
		pv->cap = cap;
	}
	pv->v[pv->n++] = p;
	return 0;
}

static void
pidvec_free(struct pidvec *pv)
{
	if (pv->v != pv->inl)
		free(pv->v);
}

/* The parent pid from /proc/PID/stat (procstat.c), -1 when it cannot be read. */
static pid_t
proc_ppid(pid_t pid)
{
	struct procstat ps;

	return procstat_read(pid, &ps) < 0 ? -1 : ps.ppid;
}

/* Append the children of thread tid of pid to pv.  The file is read in pieces and parsed
 * across them (rawproc.h), so a pid is never cut in two however many children there are:
 * a cut pid of our own children would be signalled as it was, whichever process had it.
 * -ENOMEM, or -errno when the thread is gone. */
static int
collect_task_children(pid_t pid, pid_t tid, struct pidvec *pv)
{
	char cpath[96], buf[512];
	pid_t got[sizeof(buf) / 2 + 2]; /* "1 2 3 ...", and one carried over */
	struct rawpids rp = { .out = got, .max = ELEMENTSOF(got), .cur = -1 };
	_cleanup_close_ int fd = -EBADF;
	bool end = false;

	snprintf(cpath, sizeof(cpath), "/proc/%d/task/%d/children", (int) pid, (int) tid);
	fd = open(cpath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	while (!end) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		/* perf: the kernel fills the buffer while records (12 bytes at most) remain:
		 * a read that returns less than half of it is the end, and saves the read that
		 * would return 0. */
		end = (size_t) n < sizeof(buf) / 2;
		rawpids_feed(&rp, buf, (size_t) n);
		if (end)
			rawpids_end(&rp);
		for (size_t i = 0; i < rp.n; i++)
			if (pidvec_push(pv, got[i]) < 0)
				return -ENOMEM;
		rp.n = 0;
	}
	return 0;
}

/* Append the children of every thread of pid to pv; self: pid is this process. */
static int
collect_children(pid_t pid, bool self, struct pidvec *pv)
{
	char path[64];
	_cleanup_close_ int fd = -EBADF;
	union {
		struct dirent64 de;
		char b[2048]; /* a process's tasks, 2048 / 24 at a time */
	} buf;

	/* sandcap itself never starts a thread (no pthread_create in it: tools/lint.sh checks
	 * the binary), so its children are those of its one task: read that file, without
	 * listing /proc/self/task. */
	if (self)
		return collect_task_children(pid, pid, pv);
	/* perf: getdents64 into the stack, not opendir()'s 32 KiB heap buffer. */
	snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = getdents64(fd, buf.b, sizeof(buf.b));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0; /* as readdir(): an error ends the listing */
		for (ssize_t off = 0; off < n;) {
			const struct dirent64 *de = (const struct dirent64 *) (buf.b + off);
			long tid;
			char *end;

			off += de->d_reclen;
			if (de->d_name[0] == '.')
				continue;
			errno = 0;
			tid = strtol(de->d_name, &end, 10);
			if (errno != 0 || *end != '\0' || tid <= 0 || tid > INT_MAX)
				continue;
			if (collect_task_children(pid, (pid_t) tid, pv) == -ENOMEM)
				return -ENOMEM;
		}
	}
}

static pid_t
self_pid(void)
{
	return sv_self > 0 ? sv_self : getpid();
}

/* Not a member of group pgrp (0: no group to skip), which a group kill already reached. */
static bool
outside_group(pid_t p, pid_t pgrp)
{
	return pgrp <= 0 || getpgid(p) != pgrp;
}

/* Signal p, found among the children of parent (self: this process): 1 if it was
 * signalled, 0 if not, -1 if p is no longer parent's child (neither it nor its children
 * are ours to walk).  A member of skip_pgrp got the signal from the group kill already. */
static int
signal_one(pid_t p, pid_t parent, pid_t self, int sig, pid_t skip_pgrp)
{
	/* Our own child: its pid cannot be recycled before we reap it. */
	if (parent == self)
		return outside_group(p, skip_pgrp) && kill(p, sig) == 0;
	/* A grandchild may die and its pid be reused at any time: pin it with a pidfd, then
	 * check it is still the child of the process we found it under.  If the pid was
	 * recycled before pidfd_open, the parent check fails (or it is still a descendant);
	 * if after, the pidfd names a dead process and the signal is not delivered.  (Had p
	 * died and its pid been reused since the check, the pidfd names the dead p: no signal
	 * either way.) */
	_cleanup_close_ int pfd = pidfd_open(p, 0);

	if (pfd < 0 || proc_ppid(p) != parent)
		return -1;
	return outside_group(p, skip_pgrp) && pidfd_send_signal(pfd, sig, NULL, 0) == 0;
}

int
sv_signal_descendants(int sig, pid_t skip_pgrp)
{
	/* Breadth first: pv holds (pid) entries; the parent of entry i is recorded in par. */
	struct pidvec pv, par;
	pid_t self = self_pid();
	int count = 0, r;

	pidvec_init(&pv);
	pidvec_init(&par);

	if (collect_children(self, true, &pv) < 0)
		goto out;
	while (par.n < pv.n)
		if (pidvec_push(&par, self) < 0)
			goto out;
	for (size_t i = 0; i < pv.n; i++) {
		pid_t p = pv.v[i];

		if (p == sv_exclude_pid || (p == sv_ended_pid && par.v[i] == self))
			continue;
		r = signal_one(p, par.v[i], self, sig, skip_pgrp);
		if (r < 0)
			continue;
		count += r;
		/* Its children are still walked: they may be in another group. */
		size_t before = pv.n;

		if (collect_children(p, false, &pv) == -ENOMEM)
			goto out;
		for (size_t k = before; k < pv.n; k++)
			if (pidvec_push(&par, p) < 0)
				goto out;
	}
out:
	pidvec_free(&pv);
	pidvec_free(&par);
	return count;
}

size_t
sv_count_children(void)
{
	struct pidvec pv;
	size_t n = 0;

	pidvec_init(&pv);

	if (collect_children(self_pid(), true, &pv) < 0) {
		pidvec_free(&pv);
		return 1; /* unknown: keep waiting for SIGCHLD */
	}
	for (size_t i = 0; i < pv.n; i++)
		if (pv.v[i] != sv_exclude_pid)
			n++;
	pidvec_free(&pv);
	return n;
}
