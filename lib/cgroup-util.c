/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cgroup-util.h"
#include "time-util.h"

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

int
cg_wait_empty(int events_fd, int timeout_ms)
{
	uint64_t end = 0, now;

	for (;;) {
		struct pollfd p = { .fd = events_fd, .events = POLLPRI };
		int r = cg_populated(events_fd);

		if (r <= 0)
			return r;
		now = mono_ms();        /* the clock only when there is something to wait for */
		if (end == 0)
			end = now + (uint64_t) timeout_ms;
		if (now >= end)
			return -ETIMEDOUT;
		/* kernfs reports a change as POLLPRI|POLLERR; POLLIN is always set, so it
		 * cannot be what we wait for (docs/kernel.md 2). */
		if (poll(&p, 1, (int) (end - now)) < 0 && errno != EINTR)
			return -errno;
	}
}

bool
cg_leaf_path_ok(const char *path, const char *name)
{
	const char *base = strrchr(path, '/');

	return strncmp(path, CG_MOUNT "/", sizeof(CG_MOUNT)) == 0 && base != NULL &&
	       strcmp(base + 1, name) == 0 && strstr(path, "/../") == NULL;
}

int
cg_leaf_fd_ok(int leaf_fd)
{
	struct statfs sfs;
	struct stat st;

	if (fstatfs(leaf_fd, &sfs) < 0 || fstat(leaf_fd, &st) < 0)
		return -errno;
	return sfs.f_type == CGROUP2_SUPER_MAGIC && st.st_uid == 0 ? 0 : -EPERM;
}
