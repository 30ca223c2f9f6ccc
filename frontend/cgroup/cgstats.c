/* SPDX-License-Identifier: MIT */
/* Read a sandbox's counters from the read-only leaf dirfd and the workspace fd. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cgroup/cgstats.h"
#include "fd-util.h"
#include "macro.h"
#include "parse-util.h"

int
cgstats_parse_keyed(const char *text, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);

	for (const char *p = text; p != NULL && *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t linelen = nl != NULL ? (size_t) (nl - p) : strlen(p);

		if (linelen > klen && strneq(p, key, klen) && p[klen] == ' ') {
			char num[32];
			size_t vlen = linelen - klen - 1;

			if (vlen == 0 || vlen >= sizeof(num))
				return -EBADMSG;
			memcpy(num, p + klen + 1, vlen);
			num[vlen] = '\0';
			return parse_u64_range(num, 0, UINT64_MAX, ret) < 0 ? -EBADMSG : 0;
		}
		p = nl != NULL ? nl + 1 : NULL;
	}
	return -ENOENT;
}

/* Read a small cgroup file: 1 if read, 0 if absent, -errno otherwise (-EFBIG: more than
 * bufsz - 1 bytes).  One read() where it comes back short: the kernel generates a cgroup
 * interface file whole on the first read, so a short read is its end (as systemd's
 * read_virtual_file() relies on); only a full buffer is read on to tell EOF from too big
 * (perf: no EOF read per file). */
static int
read_small(int dirfd, const char *name, char *buf, size_t bufsz)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;
	char extra;

	buf[0] = '\0';
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	do
		n = read(fd, buf, bufsz - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if ((size_t) n == bufsz - 1) {
		do
			n = read(fd, &extra, 1);
		while (n < 0 && errno == EINTR);
		if (n != 0)
			return n < 0 ? -errno : -EFBIG;
	}
	return 1;
}

static int
read_single(int dirfd, const char *name, uint64_t *ret)
{
	char buf[64];
	int r = read_small(dirfd, name, buf, sizeof(buf));

	if (r <= 0)
		return r;
	buf[strcspn(buf, "\n")] = '\0';
	if (parse_u64_range(buf, 0, UINT64_MAX, ret) < 0)
		return -EBADMSG;
	return 1;
}

/* A limit file: a number, or "max" (UINT64_MAX). */
static int
read_limit(int dirfd, const char *name, uint64_t *ret)
{
	char buf[64];
	int r = read_small(dirfd, name, buf, sizeof(buf));

	if (r <= 0)
		return r;
	buf[strcspn(buf, "\n")] = '\0';
	if (streq(buf, "max")) {
		*ret = UINT64_MAX;
		return 1;
	}
	if (parse_u64_range(buf, 0, UINT64_MAX - 1, ret) < 0)
		return -EBADMSG;
	return 1;
}

static int
keyed(const char *text, const char *key, uint64_t *ret, bool *has)
{
	int r = cgstats_parse_keyed(text, key, ret);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	if (has != NULL)
		*has = true;
	return 0;
}

int
cgstats_read(int leaf_fd, int ws_fd, struct cg_usage *ret)
{
	struct cg_usage u = {};
	char buf[1024];
	int r = 0;

	if (leaf_fd >= 0) {
		r = read_single(leaf_fd, "memory.peak", &u.memory_peak);
		u.has_memory_peak = r > 0;
		if (r >= 0)
			r = read_single(leaf_fd, "pids.peak", &u.pids_peak);
		u.has_pids_peak = r > 0;
		if (r >= 0 && (r = read_small(leaf_fd, "memory.events", buf, sizeof(buf))) > 0) {
			u.has_memory_events = true;
			r = keyed(buf, "max", &u.memory_max_events, NULL);
			if (r == 0)
				r = keyed(buf, "oom", &u.oom, NULL);
			if (r == 0)
				r = keyed(buf, "oom_kill", &u.oom_kill, NULL);
		}
		if (r >= 0)
			r = read_limit(leaf_fd, "pids.max", &u.pids_max);
		u.has_pids_max = r > 0;
		if (r >= 0 && (r = read_small(leaf_fd, "pids.events", buf, sizeof(buf))) > 0) {
			u.has_pids_events = true;
			r = keyed(buf, "max", &u.pids_max_events, NULL);
		}
		if (r >= 0 && (r = read_small(leaf_fd, "cpu.stat", buf, sizeof(buf))) > 0) {
			u.has_cpu_stat = true;
			r = keyed(buf, "usage_usec", &u.cpu_usage_usec, NULL);
			if (r == 0)
				r = keyed(buf, "user_usec", &u.cpu_user_usec, NULL);
			if (r == 0)
				r = keyed(buf, "system_usec", &u.cpu_system_usec, NULL);
			if (r == 0)
				r = keyed(buf, "throttled_usec", &u.cpu_throttled_usec,
					  &u.has_cpu_throttled);
		}
		if (r < 0) {
			memset(ret, 0, sizeof(*ret));
			return r;
		}
	}
	if (ws_fd >= 0) {
		struct statfs sfs;

		/* fstatfs works on O_PATH fds (open(2), since 3.12). */
		if (fstatfs(ws_fd, &sfs) == 0) {
			u.disk_used =
				(uint64_t) (sfs.f_blocks - sfs.f_bfree) * (uint64_t) sfs.f_bsize;
			u.disk_size = (uint64_t) sfs.f_blocks * (uint64_t) sfs.f_bsize;
			u.disk_inodes = (uint64_t) (sfs.f_files - sfs.f_ffree);
			u.disk_inodes_max = (uint64_t) sfs.f_files;
			/* tmpfs counts inodes only when nr_inodes is set (the helper always sets
			 * it); f_files 0 means unlimited, never exhausted. */
			u.disk_inodes_out = sfs.f_files > 0 && sfs.f_ffree == 0;
			u.has_disk_used = true;
		}
	}
	*ret = u;
	return 0;
}

int
cgstats_read_level(int leaf_fd, struct cg_level *ret)
{
	return cgstats_read_level_at(leaf_fd, "..", ret);
}

int
cgstats_read_level_at(int leaf_fd, const char *up, struct cg_level *ret)
{
	_cleanup_close_ int fd = -EBADF;
	struct cg_level l = {};
	char buf[1024];
	int r, m;

	memset(ret, 0, sizeof(*ret));
	if (leaf_fd < 0)
		return -EBADF;
	fd = openat(leaf_fd, up, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = m = read_limit(fd, "memory.max", &l.memory_max);
	if (r >= 0)
		r = read_limit(fd, "pids.max", &l.pids_max);
	l.has_limits = m > 0 && r > 0;
	if (r >= 0)
		r = read_single(fd, "memory.current", &l.memory_current);
	if (r >= 0)
		r = read_single(fd, "pids.peak", &l.pids_peak);
	l.has_pids_peak = r > 0;
	if (r >= 0 && (r = read_small(fd, "memory.events.local", buf, sizeof(buf))) > 0)
		r = keyed(buf, "oom", &l.oom_local, &l.has_oom_local);
	if (r >= 0 && (r = read_small(fd, "memory.events", buf, sizeof(buf))) > 0)
		r = keyed(buf, "oom_kill", &l.oom_kill, &l.has_oom_kill);
	if (r >= 0 && (r = read_small(fd, "pids.events.local", buf, sizeof(buf))) > 0)
		r = keyed(buf, "max", &l.pids_max_local, &l.has_pids_max_local);
	if (r < 0)
		return r;
	*ret = l;
	return 0;
}
