/* SPDX-License-Identifier: MIT */
/* cgroup mode, the helper's side of the choice mode.c makes: the sandbox asked of the
 * helper, the limits as it applied them into the options and the report, and the
 * supervisor's hooks for the two cgroup modes (the helper's session, or the user cgroup). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cgroup/cgstats.h"
#include "cgroup/client.h"
#include "cgroup/usercg.h"
#include "macro.h"
#include "parse-util.h"
#include "policy.h"
#include "report/report.h"
#include "run/args.h"
#include "run/opt.h"
#include "run/run-int.h"
#include "run/run.h"
#include "supervise/supervise.h"
#include "wire.h"

/* Ask the helper for a sandbox, unless --no-cgroup.  R->helper_r is client_open()'s result
 * (open_policy_and_helper() opened it).  Returns 1 (cgroup mode), 0 (rlimit mode; why in
 * R->err, R->refused if the policy said no), or -errno when the helper refused this
 * sandbox (the reason in R->err).  pol: the caller's policy, if readable. */
int
open_helper(struct run *R, const struct policy_resolved *pol)
{
	const struct run_opts *o = &R->o;
	char *err = R->err;
	size_t errlen = sizeof(R->err);
	int r = R->helper_r;

	if (o->no_cgroup) {
		snprintf(err, errlen, "--no-cgroup was given");
		return 0;
	}
	snprintf(err, errlen, "%s", R->helper_err);
	/* A call of a cgroup-mode session runs in its level or not at all. */
	if (r < 0 && run_session_level() != NULL)
		return r;
	R->refused = r == -EPERM; /* the helper ran: the policy said no */
	/* Installed but unusable, and nothing cgroup-only asked for: rlimit mode, said aloud
	 * (the policy's default limits do not apply).  A missing helper is the normal state of
	 * a host without sandcap's helper: no warning. */
	if (r < 0 && r != -ENOENT && !o->quiet && o->memory == 0 && o->cpu_percent == 0 &&
	    o->pids == 0 && o->disk == 0) {
		/* One short line: the reason up to its details, which sandcap doctor prints
		 * in full with the fix. */
		const char *why = err[0] != '\0' ? err : strerror(-r);
		int n = (int) strcspn(why, ";(");

		while (n > 0 && why[n - 1] == ' ')
			n--;
		fprintf(stderr,
			"sandcap: warning: the helper is unusable: %.*s "
			"(see sandcap doctor)\n",
			n, why);
	}
	if (r == 0) {
		struct sc_request req = {
			.memory = o->memory,
			.cpu_percent = o->cpu_percent,
			.pids = o->pids,
			.disk = o->disk,
			.timeout_ms = o->has_timeout ? o->timeout_ms : 0,
			.net = o->iso.net,
			.fs = o->iso.fs,
			.proxy_port = o->iso.proxy_port,
			.session_role = run_session_level() != NULL ? WIRE_SESSION_CALL : 0,
		};

		/* sandcap trace: as generous as the policy allows, for what was not given. */
		if (R->trace->on && pol != NULL && pol->allowed) {
			uint64_t *f[] = { &req.memory, &req.cpu_percent, &req.pids, &req.disk };
			const enum policy_limit l[] = { POLICY_MEMORY, POLICY_CPU, POLICY_PIDS,
							POLICY_DISK };

			for (size_t i = 0; i < ELEMENTSOF(f); i++)
				if (*f[i] == 0 && pol->ceiling[l[i]] != UINT64_MAX)
					*f[i] = pol->ceiling[l[i]];
		}

		if (run_session_level() != NULL)
			snprintf(req.session, sizeof(req.session), "%s", run_session_level());
		r = client_create(&R->sess, &req, err, errlen);
		if (r < 0)
			return r;
		return 1;
	}
	return 0;
}

/* The helper kills the cgroup 10 s after the timeout: a longer grace would be cut short
 * by it and reported as if honoured.  sandcap kills itself one second before, and says
 * so. */
static void
shorten_grace(struct run_opts *o)
{
	char g[32], b[32];

	if (!o->has_timeout || o->grace_ms < DEADLINE_BACKSTOP_MS)
		return;
	format_duration_ms(o->grace_ms, g, sizeof(g));
	o->grace_ms = DEADLINE_BACKSTOP_MS - 1000;
	format_duration_ms(o->grace_ms, b, sizeof(b));
	if (!o->quiet)
		fprintf(stderr,
			"sandcap: warning: --grace %s: in cgroup mode the helper kills the "
			"sandbox 10s after its timeout; the grace period is %s\n",
			g, b);
}

/* cgroup mode: the limits as the helper applied them, into o and the report.  Returns the
 * whole-sandbox CPU budget (ms; 0 = none), which replaces RLIMIT_CPU. */
uint64_t
use_cgroup(struct run_opts *o, struct report *rep, struct sc_session *sess)
{
	uint64_t budget = 0;
	const struct sc_request *e = &sess->effective;
	struct statfs sfs;

	/* The workspace's size as the kernel applied it: tmpfs rounds its size up to whole
	 * pages (--disk 1K is 4 KiB).  That is the limit reported and judged, or 3 bytes
	 * written (one page) read as 4 KiB used of a 1 KiB limit. */
	if (e->disk > 0 && sess->ws_fd >= 0 && fstatfs(sess->ws_fd, &sfs) == 0 && sfs.f_blocks > 0)
		sess->effective.disk = (uint64_t) sfs.f_blocks * (uint64_t) sfs.f_bsize;
	rep->mode = "cgroup";
	rep->id = sess->id;
	o->iso.cgroup_bpf = o->iso.net != POLICY_NET_HOST; /* the helper attached them */
	o->iso.workspace = sess->ws_path[0] != '\0' ? sess->ws_path : NULL;
	o->memory = e->memory; /* as applied, for the messages */
	if (e->memory > 0) {
		report_add_limit(rep, "memory", e->memory);
		report_add_enforcement(rep, "memory", "cgroup");
	}
	if (e->cpu_percent > 0) {
		report_add_limit(rep, "cpu_percent", e->cpu_percent);
		report_add_enforcement(rep, "cpu", "cgroup");
	}
	if (e->pids > 0) {
		report_add_limit(rep, "pids", e->pids);
		report_add_enforcement(rep, "pids", "cgroup");
	}
	if (e->disk > 0) {
		report_add_limit(rep, "disk", e->disk);
		report_add_enforcement(rep, "disk", "tmpfs");
	}
	if (e->timeout_ms > 0 && !o->has_timeout) {
		/* The policy's default timeout: sandcap enforces it like --timeout. */
		o->has_timeout = true;
		o->timeout_ms = e->timeout_ms;
	}
	shorten_grace(o);
	if (sess->enforcement[0] != '\0')
		report_add_enforcement(rep, "helper_notes", "%s", sess->enforcement);
	if (o->rl[RUN_RL_CPU].set) {
		/* A whole-sandbox budget from cpu.stat instead of RLIMIT_CPU. */
		report_add_limit(rep, "cpu_time_ms", o->rl[RUN_RL_CPU].value);
		report_add_enforcement(rep, "cpu_time", "cgroup (cpu.stat, whole sandbox)");
		budget = o->rl[RUN_RL_CPU].value;
		o->rl[RUN_RL_CPU].set = false;
	}
	return budget;
}

/* Whether the words argv[first..] (options, then the command) hold option opt. */
static bool
args_have_option(int argc, char *const *argv, int first, const char *opt)
{
	const struct opt_def *defs;
	struct opt_iter it;
	size_t n;

	defs = run_args_options(&n);
	opt_init(&it, argc, argv, first, defs, n, 0);
	while (opt_next(&it) > 0)
		if (streq(it.def->name, opt))
			return true;
	return false;
}

/* Where the value of option opt that a warning names came from, for a user who may not
 * have typed it: "" from the command line; " (from profile NAME)"; " (the policy's
 * default, SECTION)" when requested is 0 (not asked for) and the policy gave the value. */
static void
value_origin(const struct run *R, const char *opt, uint64_t requested, enum policy_limit l,
	     char *buf, size_t bufsz)
{
	buf[0] = '\0';
	if (requested == 0) {
		if (R->have_pol && R->pol.dflt_src[l][0] != '\0')
			snprintf(buf, bufsz, " (the policy's default, %s)", R->pol.dflt_src[l]);
		else
			snprintf(buf, bufsz, " (the policy's default)");
		return;
	}
	if (R->pargv == NULL)
		return;
	for (size_t i = 0; i < R->prof.nwords; i++)
		if (streq(R->prof.words[i], opt)) {
			int argc = 0;

			while (R->pargv[argc] != NULL)
				argc++;
			if (!args_have_option(argc, R->pargv, 1 + (int) R->prof.nwords, opt))
				snprintf(buf, bufsz, " (from profile %s)", R->prof.name);
			return;
		}
}

/* The workspace's files are memory: tmpfs pages charged to the leaf, which has no swap.  A
 * workspace bigger than the memory limit fills at that limit, with an OOM kill, before it
 * is full.  req_disk and req_memory are the values asked for (0: the policy's). */
void
warn_disk_over_memory(const struct run *R, uint64_t req_disk, uint64_t req_memory)
{
	const struct sc_request *e = &R->sess.effective;
	char d[32], m[32], dsrc[POLICY_SRC_MAX + 64], msrc[POLICY_SRC_MAX + 64];

	if (R->o.quiet || e->disk <= e->memory || e->memory == 0)
		return;
	format_size(e->disk, d, sizeof(d));
	format_size(e->memory, m, sizeof(m));
	value_origin(R, "--disk", req_disk, POLICY_DISK, dsrc, sizeof(dsrc));
	value_origin(R, "--memory", req_memory, POLICY_MEMORY, msrc, sizeof(msrc));
	fprintf(stderr,
		"sandcap: warning: --disk %s%s is more than --memory %s%s: the "
		"workspace's files are memory (tmpfs, charged to the sandbox's limit), so filling "
		"it ends in an OOM kill at %s\n",
		d, dsrc, m, msrc, m);
}

/* ---- the supervisor's hooks ---- */

/* The hooks' userdata is the run: the session is R->sess, and a failure to start the
 * sandbox's process leaves its reason in R->start_error for the setup-error report
 * (sv_run() and its hooks print their reason too). */
static int
cg_spawn(int stage_sock, pid_t *ret_pid, void *userdata)
{
	struct run *R = userdata;
	char err[CLIENT_ERR_MAX] = "";
	int r = client_spawn(&R->sess, stage_sock, ret_pid, err, sizeof(err));

	if (r < 0) {
		snprintf(R->start_error, sizeof(R->start_error),
			 "cannot start the sandbox's process in its cgroup: %s",
			 err[0] != '\0' ? err : strerror(-r));
		fprintf(stderr, "sandcap: %s\n", R->start_error);
	}
	return r;
}

static void
cg_kill(void *userdata)
{
	struct run *R = userdata;
	struct sc_session *s = &R->sess;
	char err[CLIENT_ERR_MAX] = "";

	if (s->attached && !s->dead && client_kill(s, err, sizeof(err)) == -ETIMEDOUT)
		fprintf(stderr, "sandcap: warning: %s; sandcap kills the processes it can see\n",
			err);
}

static int
cg_cpu_used(void *userdata, uint64_t *ret)
{
	struct run *R = userdata;
	struct cg_usage u;
	int r = cgstats_read(R->sess.leaf_fd, -EBADF, &u);

	if (r < 0)
		return r;
	if (!u.has_cpu_stat)
		return -ENODATA;
	*ret = u.cpu_usage_usec;
	return 0;
}

static int
ucg_cpu_used(void *userdata, uint64_t *ret)
{
	struct usercg *u = userdata;
	struct cg_usage c;
	int r = cgstats_read(u->leaf_fd, -EBADF, &c);

	if (r < 0)
		return r;
	if (!c.has_cpu_stat)
		return -ENODATA;
	*ret = c.cpu_usage_usec;
	return 0;
}

/* The supervisor's hooks for the mode: cgroup (the helper) or user-cgroup. */
void
run_spec_hooks(struct run *R, struct sv_spec *spec)
{
	uint64_t pct;

	if (R->cgroup) {
		spec->tmpdir = R->o.iso.workspace;
		R->rep.tmpdir_set = spec->tmpdir != NULL;
		spec->exclude_pid = R->sess.helper_pid;
		spec->userdata = R;
		spec->spawn = cg_spawn;
		spec->kill_all = cg_kill;
		spec->cpu_used_usec = cg_cpu_used;
		pct = R->sess.effective.cpu_percent;
	} else if (R->ucgroup) {
		spec->userdata = &R->ucg;
		spec->attach = usercg_attach;
		spec->kill_all = usercg_kill;
		spec->cpu_used_usec = ucg_cpu_used;
		pct = R->ucg.effective.cpu_percent;
	} else {
		return;
	}
	/* The budget's check rate: the sandbox's CPU ceiling, else every CPU. */
	spec->cpu_budget_ms = R->cpu_budget_ms;
	spec->cpu_rate_percent = pct > 0 ? pct : (uint64_t) sysconf(_SC_NPROCESSORS_ONLN) * 100;
}
