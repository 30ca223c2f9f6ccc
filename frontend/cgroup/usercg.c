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
#include "cgroup-util.h"
#include "time-util.h"

#define BUS_TIMEOUT_USEC (2 * 1000 * 1000) /* one D-Bus round trip */
#define JOB_TIMEOUT_MS   3000              /* the scope's start job */
#define EMPTY_TIMEOUT_MS 5000              /* the leaf emptying after cgroup.kill */

void
usercg_init(struct usercg *u)
{
	*u = (struct usercg){ .scope_fd = -EBADF, .leaf_fd = -EBADF };
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

/* ---- the scope, through the user manager ---- */

struct job_wait {
	const struct sdbus *sd;
	const char *path;       /* our job, once known */
	char seen_path[8][256]; /* JobRemoved signals that came before the reply */
	char seen_result[8][32];
	size_t n_seen;
	char result[32]; /* our job's result, "" until it is removed */
};

static int
on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	struct job_wait *w = userdata;
	const char *path, *unit, *result;
	uint32_t id;

	if (w->sd->bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0)
		return 0;
	if (w->path != NULL) {
		if (streq(path, w->path))
			(void) snprintf(w->result, sizeof(w->result), "%s", result);
	} else if (w->n_seen < ELEMENTSOF(w->seen_path)) {
		(void) snprintf(w->seen_path[w->n_seen], sizeof(w->seen_path[0]), "%s", path);
		(void) snprintf(w->seen_result[w->n_seen], sizeof(w->seen_result[0]), "%s", result);
		w->n_seen++;
	}
	return 0;
}

static bool
is_socket(const char *dir, const char *name)
{
	char path[320];
	struct stat st;

	(void) snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* The caller's runtime directory into dir (256 bytes), if it holds a socket of a user
 * manager; else -ENOENT with why in err.  Without one, no connection is tried: a host with
 * runtime directories but no user manager pays nothing for this mode. */
static int
bus_dir(char *dir, size_t dirlen, char *err, size_t errlen)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	struct stat st;

	if (rt == NULL || rt[0] != '/')
		(void) snprintf(dir, dirlen, "/run/user/%u", (unsigned) getuid());
	else
		(void) snprintf(dir, dirlen, "%s", rt);
	/* A runtime directory that is not ours (or absent) is no way to our manager. */
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 0077) != 0) {
		set_err(err, errlen,
			"no runtime directory of yours at %s (no systemd user "
			"session: log in through PAM/logind, or 'loginctl enable-linger')",
			dir);
		return -ENOENT;
	}
	if (!is_socket(dir, "systemd/private") && !is_socket(dir, "bus")) {
		set_err(err, errlen,
			"cannot reach your systemd user manager in %s: neither "
			"systemd/private nor bus is a socket there",
			dir);
		return -ENOENT;
	}
	return 0;
}

/* The user manager's own socket when it is ours, else the user bus.  libsystemd is loaded
 * only once there is a manager to talk to. */
static int
bus_connect(const struct sdbus **ret_sd, sd_bus **ret, char *err, size_t errlen)
{
	_cleanup_(sdbus_closep) sd_bus *bus = NULL;
	const struct sdbus *sd;
	char dir[256], addr[300], why[512];
	int r;

	r = bus_dir(dir, sizeof(dir), err, errlen);
	if (r < 0)
		return r;
	sd = sdbus_load(why, sizeof(why));
	if (sd == NULL) {
		set_err(err, errlen, "%s (%s, or ask the admin to set up the sandcap helper)", why,
			SDBUS_FIX);
		return -ELIBACC;
	}
	(void) snprintf(addr, sizeof(addr), "unix:path=%s/systemd/private", dir);
	r = sd->bus_new(&bus);
	if (r >= 0)
		r = sd->bus_set_address(bus, addr);
	if (r >= 0)
		r = sd->bus_start(bus);
	if (r < 0) {
		bus = sd->bus_flush_close_unref(bus);
		(void) snprintf(addr, sizeof(addr), "unix:path=%s/bus", dir);
		r = sd->bus_new(&bus);
		if (r >= 0)
			r = sd->bus_set_address(bus, addr);
		if (r >= 0)
			r = sd->bus_set_bus_client(bus, 1);
		if (r >= 0)
			r = sd->bus_start(bus);
	}
	if (r < 0) {
		set_err(err, errlen, "cannot reach your systemd user manager in %s: %s", dir,
			strerror(-r));
		return r;
	}
	(void) sd->bus_set_method_call_timeout(bus, BUS_TIMEOUT_USEC);
	*ret_sd = sd;
	*ret = TAKE_PTR(bus);
	return 0;
}

static int
start_scope(const struct sdbus *sd, sd_bus *bus, const char *unit, uint64_t runtime_max_ms,
	    char *err, size_t errlen)
{
	_cleanup_(sdbus_error_freep) sd_bus_error e = SD_BUS_ERROR_NULL;
	_cleanup_(sdbus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	_cleanup_(sdbus_slot_unrefp) sd_bus_slot *slot = NULL;
	struct job_wait w = { .sd = sd };
	const char *job;
	uint64_t deadline;
	int r;

	r = sd->bus_match_signal(bus, &slot, NULL, "/org/freedesktop/systemd1",
				 "org.freedesktop.systemd1.Manager", "JobRemoved", on_job_removed,
				 &w);
	if (r >= 0)
		r = sd->bus_message_new_method_call(
			bus, &m, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
			"org.freedesktop.systemd1.Manager", "StartTransientUnit");
	if (r >= 0)
		r = sd->bus_message_append(m, "ss", unit, "fail");
	if (r >= 0)
		r = sd->bus_message_open_container(m, 'a', "(sv)");
	if (r >= 0)
		r = sd->bus_message_append(m, "(sv)(sv)(sv)(sv)", "PIDs", "au", 1,
					   (uint32_t) getpid(), "Delegate", "b", 1, "CollectMode",
					   "s", "inactive-or-failed", "Description", "s",
					   "sandcap sandbox");
	if (r >= 0 && runtime_max_ms > 0)
		r = sd->bus_message_append(m, "(sv)", "RuntimeMaxUSec", "t", runtime_max_ms * 1000);
	if (r >= 0)
		r = sd->bus_message_close_container(m);
	if (r >= 0)
		r = sd->bus_message_append(m, "a(sa(sv))", 0);
	if (r < 0) {
		set_err(err, errlen, "cannot build the D-Bus request: %s", strerror(-r));
		return r;
	}
	r = sd->bus_call(bus, m, BUS_TIMEOUT_USEC, &e, &reply);
	if (r < 0) {
		set_err(err, errlen, "your systemd user manager refused the scope %s: %s", unit,
			e.message != NULL ? e.message : strerror(-r));
		return r;
	}
	r = sd->bus_message_read(reply, "o", &job);
	if (r < 0) {
		set_err(err, errlen, "unexpected reply to StartTransientUnit: %s", strerror(-r));
		return r;
	}
	w.path = job;
	for (size_t i = 0; i < w.n_seen; i++)
		if (streq(w.seen_path[i], job))
			(void) snprintf(w.result, sizeof(w.result), "%s", w.seen_result[i]);
	deadline = mono_ms() + JOB_TIMEOUT_MS;
	while (w.result[0] == '\0') {
		uint64_t now = mono_ms();

		r = sd->bus_process(bus, NULL);
		if (r < 0)
			break;
		if (r > 0)
			continue;
		if (now >= deadline) {
			r = -ETIMEDOUT;
			break;
		}
		r = sd->bus_wait(bus, (deadline - now) * 1000);
		if (r < 0)
			break;
	}
	if (r < 0) {
		set_err(err, errlen, "the scope %s did not start: %s", unit, strerror(-r));
		return r;
	}
	if (!streq(w.result, "done")) {
		set_err(err, errlen, "the scope %s did not start (job result '%s')", unit,
			w.result);
		return -ECANCELED;
	}
	return 0;
}

/* Where this process now is: <cgroup2 mount><path from /proc/self/cgroup>. */
static int
own_cgroup(char *ret, size_t retlen, char *err, size_t errlen)
{
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
	r = read_full_at(AT_FDCWD, "/proc/self/cgroup", text, sizeof(text), NULL);
	if (r >= 0)
		r = usercg_parse_self_cgroup(text, rel, sizeof(rel));
	if (r < 0) {
		set_err(err, errlen, "cannot read /proc/self/cgroup: %s", strerror(-r));
		return r;
	}
	if (snprintf(ret, retlen, "%s%s", mnt, rel) >= (int) retlen)
		return -ENAMETOOLONG;
	return 0;
}

int
usercg_open(struct usercg *u, const char *id, uint64_t runtime_max_ms, char *err, size_t errlen)
{
	_cleanup_(sdbus_closep) sd_bus *bus = NULL;
	const struct sdbus *sd;
	_cleanup_close_ int fd = -EBADF;
	struct statfs sfs;
	struct stat st;
	size_t ul;
	int r;

	(void) snprintf(u->unit, sizeof(u->unit), "sandcap-%s.scope", id);
	r = bus_connect(&sd, &bus, err, errlen);
	if (r < 0)
		return r;
	r = start_scope(sd, bus, u->unit, runtime_max_ms, err, errlen);
	if (r < 0)
		return r;
	r = own_cgroup(u->path, sizeof(u->path), err, errlen);
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
	/* The no-internal-process rule: sandcap leaves the scope's own level. */
	if (mkdirat(fd, "supervisor", 0755) < 0 && errno != EEXIST) {
		set_err(err, errlen, "cannot create %s/supervisor: %s", u->path, strerror(errno));
		return -errno;
	}
	r = write_at(fd, "supervisor/cgroup.procs", "0");
	if (r < 0) {
		set_err(err, errlen, "cannot move sandcap into %s/supervisor: %s", u->path,
			strerror(-r));
		return r;
	}
	u->scope_fd = TAKE_FD(fd);
	return 0;
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
	char avail[256];
	const char *missing;
	int r;

	r = read_full_at(u->scope_fd, "cgroup.controllers", avail, sizeof(avail), NULL);
	if (r < 0) {
		set_err(err, errlen, "cannot read %s/cgroup.controllers: %s", u->path,
			strerror(-r));
		return r;
	}
	usercg_controllers(avail, req, u->controllers, sizeof(u->controllers), &missing);
	if (missing != NULL) {
		set_err(err, errlen,
			"your systemd user manager does not delegate the %s "
			"controller (delegated: %s)",
			missing, avail[0] != '\0' ? avail : "none");
		return -ENOTSUP;
	}
	if (u->controllers[0] != '\0') {
		r = write_at(u->scope_fd, "cgroup.subtree_control", u->controllers);
		if (r < 0) {
			set_err(err, errlen, "cannot enable %s in %s: %s", u->controllers, u->path,
				strerror(-r));
			return r;
		}
	}
	if (mkdirat(u->scope_fd, "sandbox", 0755) < 0) {
		set_err(err, errlen, "cannot create %s/sandbox: %s", u->path, strerror(errno));
		return -errno;
	}
	u->leaf_made = true;
	u->leaf_fd =
		openat(u->scope_fd, "sandbox", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (u->leaf_fd < 0) {
		set_err(err, errlen, "cannot open %s/sandbox: %s", u->path, strerror(errno));
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
		fprintf(stderr, "sandcap: cannot move the sandbox into %s/sandbox: %s\n", u->path,
			strerror(-r));
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
	int r = 0;

	if (u->leaf_fd >= 0) {
		usercg_kill(u);
		r = wait_empty(u->leaf_fd);
		if (r < 0)
			set_err(err, errlen, "%s/sandbox did not empty: %s", u->path, strerror(-r));
	}
	u->leaf_fd = safe_close(u->leaf_fd);
	if (r == 0 && u->leaf_made && u->scope_fd >= 0 &&
	    unlinkat(u->scope_fd, "sandbox", AT_REMOVEDIR) < 0) {
		r = -errno;
		set_err(err, errlen, "cannot remove %s/sandbox: %s", u->path, strerror(-r));
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

	r = bus_connect(&sd, &bus, info, len);
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
	if (u->leaf_made && u->scope_fd >= 0)
		(void) usercg_destroy(u, NULL, 0);
	u->leaf_fd = safe_close(u->leaf_fd);
	u->scope_fd = safe_close(u->scope_fd);
}
