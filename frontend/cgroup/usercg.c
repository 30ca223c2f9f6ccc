/* SPDX-License-Identifier: MIT */
/* user-cgroup mode: a transient delegated scope from the user's own systemd (usercg.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "isolate/cgprotect.h"
#include "errbuf.h"
#include "fd-util.h"
#include "macro.h"
#include "cgroup/sdbus.h"
#include "cgroup/usercg.h"
#include "cgroup/usercg-bus.h"
#include "cgroup-util.h"
#include "time-util.h"

#define EMPTY_TIMEOUT_MS 5000 /* the leaf emptying after cgroup.kill */

void
usercg_init(struct usercg *u)
{
	*u = (struct usercg){ .scope_fd = -EBADF, .leaf_fd = -EBADF, .parent_fd = -EBADF };
	(void) snprintf(u->leaf_name, sizeof(u->leaf_name), "sandbox");
}

bool
cgroup2_mounted(void)
{
	struct statfs sfs;

	return statfs("/sys/fs/cgroup", &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC;
}

int
usercg_parse_self_cgroup(const char *text, char *ret, size_t retlen)
{
	for (const char *s = text; *s != '\0';) {
		const char *e = strchrnul(s, '\n');

		if (strneq(s, "0::", 3)) {
			size_t len = (size_t) (e - s - 3);

			if (len + 1 > retlen)
				return -ENAMETOOLONG;
			memcpy(ret, s + 3, len);
			ret[len] = '\0';
			return 0;
		}
		s = *e != '\0' ? e + 1 : e;
	}
	return -ENOENT;
}

static bool
has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

void
usercg_controllers(const char *available, const struct sc_request *req, char *ret, size_t retlen,
		   const char **ret_missing)
{
	static const char *const names[] = { "memory", "pids", "cpu" };
	const bool needed[] = { req->memory > 0, req->pids > 0, req->cpu_percent > 0 };
	size_t o = 0;

	*ret_missing = NULL;
	ret[0] = '\0';
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		if (!has_word(available, names[i])) {
			if (needed[i] && *ret_missing == NULL)
				*ret_missing = names[i];
			continue;
		}
		if (i == 2 && !needed[i])
			continue; /* cpu only when asked: its accounting is in cpu.stat anyway */
		o += (size_t) snprintf(ret + o, o < retlen ? retlen - o : 0, "%s+%s",
				       o > 0 ? " " : "", names[i]);
	}
}

static int
write_at(int dirfd, const char *file, const char *value)
{
	_cleanup_close_ int fd = openat(dirfd, file, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	size_t n = strlen(value);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, value, n);
	if (w < 0)
		return -errno;
	return (size_t) w == n ? 0 : -EIO;
}

/* ---- the scope, through the user manager (usercg-bus.c) ---- */

/* Where process pid (0: this one) now is: <cgroup2 mount><path from /proc/PID/cgroup>. */
static int
own_cgroup(pid_t pid, char *ret, size_t retlen, char *err, size_t errlen)
{
	char file[64];

	char mounts[CGPROTECT_MAX][PATH_MAX], mnt[PATH_MAX], rel[PATH_MAX], text[4096];
	size_t n;
	int r;

	r = cgprotect_mounts(mounts, ELEMENTSOF(mounts), &n, mnt, sizeof(mnt));
	if (r == 0 && mnt[0] == '\0')
		r = -ENOENT;
	if (r < 0) {
		set_err(err, errlen, "no cgroup v2 filesystem is mounted");
		return r;
	}
	if (pid > 0)
		(void) snprintf(file, sizeof(file), "/proc/%d/cgroup", (int) pid);
	else
		(void) snprintf(file, sizeof(file), "/proc/self/cgroup");
	r = read_full_at(AT_FDCWD, file, text, sizeof(text), NULL);
	if (r >= 0)
		r = usercg_parse_self_cgroup(text, rel, sizeof(rel));
	if (r < 0) {
		set_err(err, errlen, "cannot read %s: %s", file, strerror(-r));
		return r;
	}
	if (snprintf(ret, retlen, "%s%s", mnt, rel) >= (int) retlen)
		return -ENAMETOOLONG;
	return 0;
}

int
usercg_enable_controllers(struct usercg *u, int dirfd, const char *where, const char *avail,
			  const struct sc_request *req, char *err, size_t errlen)
{
	const char *missing;
	int r;

	usercg_controllers(avail, req, u->controllers, sizeof(u->controllers), &missing);
	if (missing != NULL) {
		set_err(err, errlen,
			"your systemd user manager does not delegate the %s "
			"controller (delegated: %s)",
			missing, avail[0] != '\0' ? avail : "none");
		return -ENOTSUP;
	}
	if (u->controllers[0] == '\0')
		return 0;
	r = write_at(dirfd, "cgroup.subtree_control", u->controllers);
	if (r < 0) {
		set_err(err, errlen, "cannot enable %s in %s: %s", u->controllers, where,
			strerror(-r));
		return r;
	}
	return 0;
}

int
usercg_open_scope(struct usercg *u, pid_t pid, const char *sub, const struct sc_request *lim,
		  uint64_t runtime_max_ms, char *err, size_t errlen)
{
	_cleanup_(sdbus_closep) sd_bus *bus = NULL;
	const struct sdbus *sd;
	_cleanup_close_ int fd = -EBADF;
	struct statfs sfs;
	struct stat st;
	char procs[64], pidbuf[32];
	size_t ul;
	int r;

	r = usercg_bus_connect(&sd, &bus, err, errlen);
	if (r < 0)
		return r;
	r = usercg_start_scope(sd, bus, u->unit, pid, lim, runtime_max_ms, err, errlen);
	if (r < 0)
		return r;
	r = own_cgroup(pid == getpid() ? 0 : pid, u->path, sizeof(u->path), err, errlen);
	if (r < 0)
		return r;
	ul = strlen(u->unit);
	if (strlen(u->path) <= ul || !streq(u->path + strlen(u->path) - ul, u->unit)) {
		set_err(err, errlen, "the user manager put sandcap in %s, not in %s", u->path,
			u->unit);
		return -EPROTO;
	}
	fd = open(u->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstatfs(fd, &sfs) < 0 || fstat(fd, &st) < 0) {
		set_err(err, errlen, "cannot open %s: %s", u->path, strerror(errno));
		return -errno;
	}
	if (sfs.f_type != CGROUP2_SUPER_MAGIC || st.st_uid != getuid()) {
		set_err(err, errlen, "%s is not a cgroup v2 directory delegated to you", u->path);
		return -ENOTSUP;
	}
	if (mkdirat(fd, sub, 0755) < 0 && errno != EEXIST) {
		set_err(err, errlen, "cannot create %s/%s: %s", u->path, sub, strerror(errno));
		return -errno;
	}
	(void) snprintf(procs, sizeof(procs), "%s/cgroup.procs", sub);
	(void) snprintf(pidbuf, sizeof(pidbuf), "%d", pid == getpid() ? 0 : (int) pid);
	r = write_at(fd, procs, pidbuf);
	if (r < 0) {
		set_err(err, errlen, "cannot move process %d into %s/%s: %s", (int) pid, u->path,
			sub, strerror(-r));
		return r;
	}
	u->scope_fd = TAKE_FD(fd);
	return 0;
}

int
usercg_open(struct usercg *u, const char *id, uint64_t runtime_max_ms, char *err, size_t errlen)
{
	(void) snprintf(u->unit, sizeof(u->unit), "sandcap-%s.scope", id);
	return usercg_open_scope(u, getpid(), "supervisor", NULL, runtime_max_ms, err, errlen);
}

static int
write_limits(struct usercg *u, const struct sc_request *req, char *err, size_t errlen)
{
	char buf[64];
	int r = 0;

	if (req->memory > 0) {
		(void) snprintf(buf, sizeof(buf), "%" PRIu64, req->memory);
		r = write_at(u->leaf_fd, "memory.max", buf);
		if (r == 0) {
			r = write_at(u->leaf_fd, "memory.swap.max", "0");
			if (r == -ENOENT) {
				(void) snprintf(u->enforcement, sizeof(u->enforcement),
						"swap: not accounted (memory.swap.max absent)");
				r = 0;
			}
		}
		if (r < 0) {
			set_err(err, errlen, "cannot write memory.max: %s", strerror(-r));
			return r;
		}
	}
	if (has_word(u->controllers, "+memory"))
		(void) write_at(u->leaf_fd, "memory.oom.group", "1");
	if (req->cpu_percent > 0) {
		(void) snprintf(buf, sizeof(buf), "%" PRIu64 " 100000", req->cpu_percent * 1000);
		r = write_at(u->leaf_fd, "cpu.max", buf);
		if (r < 0) {
			set_err(err, errlen, "cannot write cpu.max: %s", strerror(-r));
			return r;
		}
	}
	if (req->pids > 0) {
		(void) snprintf(buf, sizeof(buf), "%" PRIu64, req->pids);
		r = write_at(u->leaf_fd, "pids.max", buf);
		if (r < 0) {
			set_err(err, errlen, "cannot write pids.max: %s", strerror(-r));
			return r;
		}
	}
	return 0;
}

int
usercg_create(struct usercg *u, const struct sc_request *req, char *err, size_t errlen)
{
	/* The leaf's parent: the scope, or a session's scope (usercg_use_parent()). */
	int pfd = u->parent_fd >= 0 ? u->parent_fd : u->scope_fd;
	const char *where = u->parent_fd >= 0 ? "the session's scope" : u->path;
	char avail[256];
	int r;

	r = read_full_at(pfd, "cgroup.controllers", avail, sizeof(avail), NULL);
	if (r < 0) {
		set_err(err, errlen, "cannot read cgroup.controllers of %s: %s", where,
			strerror(-r));
		return r;
	}
	r = usercg_enable_controllers(u, pfd, where, avail, req, err, errlen);
	if (r < 0)
		return r;
	if (mkdirat(pfd, u->leaf_name, 0755) < 0) {
		set_err(err, errlen, "cannot create %s/%s: %s", where, u->leaf_name,
			strerror(errno));
		return -errno;
	}
	u->leaf_made = true;
	u->leaf_fd = openat(pfd, u->leaf_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (u->leaf_fd < 0) {
		set_err(err, errlen, "cannot open %s/%s: %s", where, u->leaf_name, strerror(errno));
		return -errno;
	}
	r = write_limits(u, req, err, errlen);
	if (r < 0)
		return r;
	u->effective = *req;
	u->effective.disk = 0;
	return 0;
}

/* The pid behind a pidfd: fdinfo's "Pid:" line. */
static int
pidfd_pid(int pidfd, pid_t *ret)
{
	char path[64], text[2048];
	const char *p;
	int r;

	(void) snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	r = read_full_at(AT_FDCWD, path, text, sizeof(text), NULL);
	if (r < 0)
		return r;
	p = strstr(text, "\nPid:");
	if (p == NULL)
		return -ENOTSUP;
	*ret = (pid_t) strtol(p + 5, NULL, 10);
	return *ret > 0 ? 0 : -ESRCH;
}

int
usercg_attach(int pidfd, void *userdata)
{
	struct usercg *u = userdata;
	char buf[32];
	pid_t pid;
	int r;

	r = pidfd_pid(pidfd, &pid);
	if (r == 0) {
		(void) snprintf(buf, sizeof(buf), "%d", (int) pid);
		r = write_at(u->leaf_fd, "cgroup.procs", buf);
	}
	if (r < 0)
		fprintf(stderr, "sandcap: cannot move the sandbox into its cgroup %s: %s\n",
			u->leaf_name, strerror(-r));
	return r;
}

void
usercg_kill(void *userdata)
{
	struct usercg *u = userdata;

	if (u->leaf_fd >= 0)
		(void) write_at(u->leaf_fd, "cgroup.kill", "1");
}

/* Wait until cgroup.events says "populated 0", at most EMPTY_TIMEOUT_MS. */
static int
wait_empty(int leaf_fd)
{
	_cleanup_close_ int fd = openat(leaf_fd, "cgroup.events", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : cg_wait_empty(fd, EMPTY_TIMEOUT_MS);
}

int
usercg_destroy(struct usercg *u, char *err, size_t errlen)
{
	int pfd = u->parent_fd >= 0 ? u->parent_fd : u->scope_fd; /* the leaf's parent */
	int r = 0;

	if (u->leaf_fd >= 0) {
		usercg_kill(u);
		r = wait_empty(u->leaf_fd);
		if (r < 0)
			set_err(err, errlen, "%s/sandbox did not empty: %s", u->path, strerror(-r));
	}
	u->leaf_fd = safe_close(u->leaf_fd);
	if (r == 0 && u->leaf_made && pfd >= 0 && unlinkat(pfd, u->leaf_name, AT_REMOVEDIR) < 0) {
		r = -errno;
		set_err(err, errlen, "cannot remove the sandbox's cgroup %s: %s", u->leaf_name,
			strerror(-r));
	} else if (r == 0) {
		u->leaf_made = false;
	}
	return r;
}

int
usercg_probe(char *info, size_t len)
{
	_cleanup_(sdbus_closep) sd_bus *bus = NULL;
	_cleanup_(sdbus_error_freep) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_free_ char *version = NULL;
	const struct sdbus *sd;
	char mounts[CGPROTECT_MAX][PATH_MAX], mnt[PATH_MAX], path[PATH_MAX + 128], ctl[256] = "";
	size_t n;
	int r;

	r = usercg_bus_connect(&sd, &bus, info, len);
	if (r < 0)
		return r;
	r = sd->bus_get_property_string(
		bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
		"org.freedesktop.systemd1.Manager", "Version", &e, &version);
	if (r < 0) {
		set_err(info, len, "your systemd user manager does not answer: %s",
			e.message != NULL ? e.message : strerror(-r));
		return r;
	}
	if (cgprotect_mounts(mounts, ELEMENTSOF(mounts), &n, mnt, sizeof(mnt)) == 0 &&
	    mnt[0] != '\0') {
		(void) snprintf(path, sizeof(path), "%s/user.slice/user-%u.slice/user@%u.service",
				mnt, (unsigned) getuid(), (unsigned) getuid());
		char f[PATH_MAX + 160];

		(void) snprintf(f, sizeof(f), "%s/cgroup.controllers", path);
		(void) read_full_at(AT_FDCWD, f, ctl, sizeof(ctl), NULL);
		ctl[strcspn(ctl, "\n")] = '\0';
	}
	set_err(info, len, "systemd %s user manager; controllers: %s", version,
		ctl[0] != '\0' ? ctl : "unknown");
	return 0;
}

void
usercg_close(struct usercg *u)
{
	if (u->leaf_made && (u->scope_fd >= 0 || u->parent_fd >= 0))
		(void) usercg_destroy(u, NULL, 0);
	u->leaf_fd = safe_close(u->leaf_fd);
	u->scope_fd = safe_close(u->scope_fd);
	u->parent_fd = safe_close(u->parent_fd);
}
