/* SPDX-License-Identifier: MIT */
/* The control socket of a running `sandcap run`: what `sandcap ps` and `sandcap kill` get
 * (control.h has the protocol). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cgstats.h"
#include "control.h"
#include "fd-util.h"
#include "json.h"
#include "macro.h"
#include "parse-util.h"
#include "run-ctl.h"
#include "supervise.h"

static int
read_u64_at(int dirfd, const char *name, uint64_t *ret)
{
	char buf[64];
	int r;

	if (dirfd < 0)
		return -EBADF;
	r = read_full_at(dirfd, name, buf, sizeof(buf), NULL);
	if (r < 0)
		return r;
	buf[strcspn(buf, "\n")] = '\0';
	return parse_u64_range(buf, 0, UINT64_MAX, ret);
}

static int
ctl_status(void *userdata, char *buf, size_t len)
{
	struct run_ctl *c = userdata;
	struct cg_usage u = {};
	struct json j;
	uint64_t v = 0;
	FILE *f = fmemopen(buf, len, "w");
	char line[1024] = "";
	size_t used = 0;

	if (f == NULL)
		return -errno;
	for (char *const *a = c->argv; *a != NULL && used + 2 < sizeof(line); a++)
		used += (size_t) snprintf(line + used, sizeof(line) - used, "%s%s",
					  a == c->argv ? "" : " ", *a);
	if (c->sess != NULL)
		(void) cgstats_read(c->sess->leaf_fd, c->sess->ws_fd, &u);
	json_init(&j, f);
	json_object_begin(&j);
	json_key(&j, "id"); json_string(&j, c->id);
	json_key(&j, "mode"); json_string(&j, c->mode);
	json_key(&j, "sandcap_pid"); json_uint(&j, (uint64_t) getpid());
	json_key(&j, "command_line"); json_string(&j, line);
	json_key(&j, "age_ms"); json_uint(&j, c->sv != NULL ? sv_age_ms(c->sv) : 0);
	json_key(&j, "limits");
	json_object_begin(&j);
	if (c->sess != NULL) {
		json_key(&j, "memory"); json_uint(&j, c->sess->effective.memory);
		json_key(&j, "cpu_percent"); json_uint(&j, c->sess->effective.cpu_percent);
		json_key(&j, "pids"); json_uint(&j, c->sess->effective.pids);
		json_key(&j, "disk"); json_uint(&j, c->sess->effective.disk);
	}
	if (c->o->has_timeout) {
		json_key(&j, "timeout_ms"); json_uint(&j, c->o->timeout_ms);
	}
	json_object_end(&j);
	json_key(&j, "memory_current");
	if (c->sess != NULL && read_u64_at(c->sess->leaf_fd, "memory.current", &v) == 0)
		json_uint(&j, v);
	else
		json_null(&j);
	json_key(&j, "memory_peak");
	if (u.has_memory_peak) json_uint(&j, u.memory_peak); else json_null(&j);
	json_key(&j, "cpu_ms");
	if (u.has_cpu_stat) json_uint(&j, u.cpu_usage_usec / 1000); else json_null(&j);
	json_key(&j, "pids_current");
	if (c->sess != NULL && read_u64_at(c->sess->leaf_fd, "pids.current", &v) == 0)
		json_uint(&j, v);
	else
		json_null(&j);
	json_key(&j, "disk_used");
	if (u.has_disk_used) json_uint(&j, u.disk_used); else json_null(&j);
	json_object_end(&j);
	if (json_finish(&j) < 0 || fclose(f) != 0)
		return -ENOSPC;
	return 0;
}

static int
ctl_kill(void *userdata, int sig, pid_t pid, uid_t uid)
{
	struct run_ctl *c = userdata;

	if (c->sv == NULL)
		return -ESRCH;
	if (sig == 0)
		return 0;       /* `sandcap kill --signal 0`: it runs */
	sv_request_signal(c->sv, sig, true, pid, uid);
	if (sig == SIGSTOP || sig == SIGTSTP)
		return 0;
	sv_signal(c->sv, SIGCONT);      /* a stopped sandbox must see it */
	return 0;
}

int
run_ctl_open(void *userdata)
{
	struct run_ctl *c = userdata;

	/* The path is known already where a keeper was started (control_path() before the
	 * split, run_plan()). */
	if (c->path[0] != '\0' ? control_listen_at(c->path, &c->listen_fd) == 0 :
	    control_listen(c->id, &c->listen_fd, c->path, sizeof(c->path)) == 0)
		return c->listen_fd;
	c->path[0] = '\0';
	if (!c->o->quiet)
		fprintf(stderr, "sandcap: warning: no control socket (sandcap ps and sandcap kill "
			"will not see this sandbox)\n");
	return -1;
}

void
run_ctl_ready(void *userdata, struct sv_state *sv)
{
	struct run_ctl *c = userdata;
	struct control_ops ops = { ctl_status, ctl_kill, c };

	c->sv = sv;
	(void) control_serve_one(c->listen_fd, &ops);
}


void
run_ctl_closep(struct run_ctl *c)
{
	if (c->listen_fd >= 0) {
		c->listen_fd = safe_close(c->listen_fd);
		control_unlisten(c->path);
	}
}
