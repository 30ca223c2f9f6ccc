/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
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
	ssize_t n = pread(events_fd, buf, sizeof(buf) - 1, 0); /* re-arms the event */
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
		now = mono_ms(); /* the clock only when there is something to wait for */
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

void
cg_name_format(uid_t uid, const uint8_t rnd[8], char *buf, size_t bufsz)
{
	(void) snprintf(buf, bufsz, "%u-%02x%02x%02x%02x%02x%02x%02x%02x", (unsigned) uid, rnd[0],
			rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
}

bool
cg_name_parse(const char *name, uid_t *ret_uid)
{
	const char *dash = strchr(name, '-');
	uint64_t uid = 0;
	size_t n;

	if (dash == NULL || dash == name || dash - name > 10)
		return false;
	if (name[0] == '0' && dash - name > 1) /* canonical decimal only */
		return false;
	for (const char *p = name; p < dash; p++) {
		if (*p < '0' || *p > '9')
			return false;
		uid = uid * 10 + (uint64_t) (*p - '0');
	}
	if (uid >= UINT32_MAX) /* (uid_t) -1 is not a uid */
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
