/* SPDX-License-Identifier: MIT */
/* user-cgroup mode: the transient scope, through the user's own systemd manager over sd-bus
 * (usercg-bus.h), called through sdbus.h's pointers: libsystemd is loaded only here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include "cgroup/sdbus.h"
#include "cgroup/usercg-bus.h"
#include "errbuf.h"
#include "macro.h"
#include "time-util.h"

#define BUS_TIMEOUT_USEC (2 * 1000 * 1000) /* one D-Bus round trip */
#define JOB_TIMEOUT_MS   3000              /* the scope's start job */

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
int
usercg_bus_connect(const struct sdbus **ret_sd, sd_bus **ret, char *err, size_t errlen)
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

/* The unit's own limits, for a session's scope: systemd writes them to the scope's cgroup
 * (and writes them again at every daemon-reload, which limits written by hand would not
 * survive). */
static int
append_limits(const struct sdbus *sd, sd_bus_message *m, const struct sc_request *lim)
{
	int r = 0;

	if (lim == NULL)
		return 0;
	if (lim->memory > 0)
		r = sd->bus_message_append(m, "(sv)(sv)", "MemoryMax", "t", lim->memory,
					   "MemorySwapMax", "t", (uint64_t) 0);
	if (r >= 0 && lim->pids > 0)
		r = sd->bus_message_append(m, "(sv)", "TasksMax", "t", lim->pids);
	if (r >= 0 && lim->cpu_percent > 0) /* microseconds of CPU per second */
		r = sd->bus_message_append(m, "(sv)", "CPUQuotaPerSecUSec", "t",
					   lim->cpu_percent * 10000);
	return r;
}

int
usercg_start_scope(const struct sdbus *sd, sd_bus *bus, const char *unit, pid_t pid,
		   const struct sc_request *lim, uint64_t runtime_max_ms, char *err, size_t errlen)
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
		r = sd->bus_message_append(m, "(sv)(sv)(sv)(sv)", "PIDs", "au", 1, (uint32_t) pid,
					   "Delegate", "b", 1, "CollectMode", "s",
					   "inactive-or-failed", "Description", "s",
					   lim != NULL ? "sandcap session" : "sandcap sandbox");
	if (r >= 0)
		r = append_limits(sd, m, lim);
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
