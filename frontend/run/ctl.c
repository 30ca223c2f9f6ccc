/* SPDX-License-Identifier: MIT */
/* The control socket of a running `sandcap run`: what `sandcap ps` and `sandcap kill` get
 * (control.h has the protocol). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cgroup/cgstats.h"
#include "supervise/control.h"
#include "fd-util.h"
#include "report/json.h"
#include "macro.h"
#include "log.h"
#include "parse-util.h"
#include "run/profile.h"
#include "procstat.h"
#include "supervise/rawproc.h"
#include "run/ctl.h"
#include "supervise/supervise.h"

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

/* The command as one line a POSIX shell would read back into the same words (quoted as
 * `sandcap profile show` quotes), cut to bufsz; a word with a newline, which no shell word
 * on one line can hold, is shown escaped ("\n") in quotes. */
static void
command_line(char *const *argv, char *buf, size_t bufsz)
{
	size_t used = 0;

	buf[0] = '\0';
	for (char *const *a = argv; *a != NULL && used + 2 < bufsz; a++) {
		_cleanup_free_ char *q = NULL;
		char esc[256];

		if (profile_shell_quote(*a, &q) < 0)
			snprintf(esc, sizeof(esc), "'%s'", log_escape(*a, (char[240]){}, 240));
		used += (size_t) snprintf(buf + used, bufsz - used, "%s%s", a == argv ? "" : " ",
					  q != NULL ? q : esc);
	}
}

/* Without a cgroup to read (rlimit mode): the sandbox's figures from /proc.  Its processes
 * are this supervisor's descendants (a subreaper: the orphaned ones come to it).  CPU: each one's utime + stime and its waited-for
 * children's, plus what this process has reaped (RUSAGE_CHILDREN); memory: the sum of
 * their resident sets (pages shared between them counted in each).  A process that starts
 * or ends during the walk may be missed: the figures are a snapshot, as ps(1)'s are. */
struct proc_usage {
	uint64_t cpu_ms, rss, n;
};

static void
proc_usage_read(struct proc_usage *ret)
{
	enum { MAX = 4096 };
	static pid_t pv[MAX], par[MAX];
	unsigned long long ticks = 0, pages = 0;
	long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
	struct rusage ru;
	size_t n;

	*ret = (struct proc_usage){};
	n = rawproc_children(getpid(), pv, par, 0, MAX);
	for (size_t i = 0; i < n; i++) {
		struct procstat ps;

		n = rawproc_children(pv[i], pv, par, n, MAX);
		if (procstat_read(pv[i], &ps) < 0 || ps.state == 'Z')
			continue;
		ticks += ps.cpu_ticks + ps.child_cpu_ticks;
		pages += ps.rss_pages;
		ret->n++;
	}
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
		ret->cpu_ms = (uint64_t) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
			      (uint64_t) (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
	if (hz > 0)
		ret->cpu_ms += ticks * 1000 / (unsigned long long) hz;
	if (page > 0)
		ret->rss = pages * (unsigned long long) page;
}

static int
ctl_status(void *userdata, char *buf, size_t len)
{
	struct run_ctl *c = userdata;
	struct cg_usage u = {};
	struct proc_usage pu = {};
	struct json j;
	uint64_t v = 0;
	FILE *f = fmemopen(buf, len, "w");
	char line[1024] = "";

	if (f == NULL)
		return -errno;
	command_line(c->argv, line, sizeof(line));
	if (c->sess != NULL)
		(void) cgstats_read(c->sess->leaf_fd, c->sess->ws_fd, &u);
	else
		proc_usage_read(&pu);
	json_init(&j, f);
	json_object_begin(&j);
	json_key(&j, "id");
	json_string(&j, c->id);
	json_key(&j, "mode");
	json_string(&j, c->mode);
	json_key(&j, "sandcap_pid");
	json_uint(&j, (uint64_t) getpid());
	json_key(&j, "command_line");
	json_string(&j, line);
	json_key(&j, "age_ms");
	json_uint(&j, c->sv != NULL ? sv_age_ms(c->sv) : 0);
	json_key(&j, "limits");
	json_object_begin(&j);
	if (c->sess != NULL) {
		json_key(&j, "memory");
		json_uint(&j, c->sess->effective.memory);
		json_key(&j, "cpu_percent");
		json_uint(&j, c->sess->effective.cpu_percent);
		json_key(&j, "pids");
		json_uint(&j, c->sess->effective.pids);
		json_key(&j, "disk");
		json_uint(&j, c->sess->effective.disk);
	}
	if (c->o->has_timeout) {
		json_key(&j, "timeout_ms");
		json_uint(&j, c->o->timeout_ms);
	}
	json_object_end(&j);
	/* "cgroup": the figures are the sandbox cgroup's; "proc": summed from /proc. */
	json_key(&j, "usage_from");
	json_string(&j, c->sess != NULL ? "cgroup" : "proc");
	json_key(&j, "memory_current");
	if (c->sess != NULL && read_u64_at(c->sess->leaf_fd, "memory.current", &v) == 0)
		json_uint(&j, v);
	else if (c->sess == NULL)
		json_uint(&j, pu.rss);
	else
		json_null(&j);
	json_key(&j, "memory_peak");
	if (u.has_memory_peak)
		json_uint(&j, u.memory_peak);
	else
		json_null(&j);
	json_key(&j, "cpu_ms");
	if (u.has_cpu_stat)
		json_uint(&j, u.cpu_usage_usec / 1000);
	else if (c->sess == NULL)
		json_uint(&j, pu.cpu_ms);
	else
		json_null(&j);
	json_key(&j, "pids_current");
	if (c->sess != NULL && read_u64_at(c->sess->leaf_fd, "pids.current", &v) == 0)
		json_uint(&j, v);
	else if (c->sess == NULL)
		json_uint(&j, pu.n);
	else
		json_null(&j);
	json_key(&j, "disk_used");
	if (u.has_disk_used)
		json_uint(&j, u.disk_used);
	else
		json_null(&j);
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
		return 0; /* `sandcap kill --signal 0`: it runs */
	sv_request_signal(c->sv, sig, true, pid, uid);
	if (sig == SIGSTOP || sig == SIGTSTP)
		return 0;
	sv_signal(c->sv, SIGCONT); /* a stopped sandbox must see it */
	return 0;
}

int
run_ctl_open(void *userdata)
{
	struct run_ctl *c = userdata;

	/* The path is known already where a keeper was started (control_path() before the
	 * split, run_plan()). */
	if (c->path[0] != '\0'
		    ? control_listen_at(c->path, &c->listen_fd) == 0
		    : control_listen(c->id, &c->listen_fd, c->path, sizeof(c->path)) == 0)
		return c->listen_fd;
	c->path[0] = '\0';
	if (c->required) {
		char dir[CONTROL_PATH_MAX] = "$XDG_RUNTIME_DIR/sandcap";

		(void) control_rundir(dir, sizeof(dir), 0);
		snprintf(c->error, c->errlen,
			 "a session's call needs a control socket (its end and TTL stop it "
			 "through it), and none can be made in %s (a sandboxed command may have "
			 "changed its mode): the command was not started; check that everything "
			 "in it is yours, chmod 0700 %s and run the call again",
			 dir, dir);
		fprintf(stderr, "sandcap: %s\n", c->error);
		return -EACCES;
	}
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
