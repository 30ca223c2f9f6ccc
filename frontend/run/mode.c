/* SPDX-License-Identifier: MIT */
/* How each limit is enforced: cgroup mode (the helper), user-cgroup mode, or rlimit mode
 * with --fallback's substitutes, and the refusal when none can enforce what was asked. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cgroup/cgstats.h"
#include "cgroup/client.h"
#include "cgroup/usercg.h"
#include "log.h"
#include "macro.h"
#include "parse-util.h"
#include "policy.h"
#include "report/report.h"
#include "run/args.h"
#include "run/nproc.h"
#include "run/opt.h"
#include "run/run-int.h"
#include "run/usercg-run.h"
#include "stage.h"
#include "supervise/supervise.h"

/* The refusal of a cgroup limit (opt) without cgroup mode: the reason that matters and its
 * fix first, then the other reasons (reason is "first; second; ..." from the helper and
 * user-cgroup mode).  --fallback is offered only where it would be accepted: its
 * substitute for --pids, RLIMIT_NPROC, does not bind root (check_nproc_binds()). */
static void
refusal_without_cgroup(const struct run_opts *o, const char *opt, const char *substitute,
		       const char *reason, bool refused, char *buf, size_t bufsz)
{
	/* No cgroup v2 at all: neither the helper nor a user cgroup can work, whatever the
	 * helper's own reason says (a later, secondary step): the cause comes first. */
	bool no_v2 = !refused && !o->no_cgroup && !cgroup2_mounted();
	const char *nproc_why = o->pids > 0 ? nproc_exemption() : NULL;
	const char *rest = NULL;
	char first[512], fallback[256];
	int depth = 0;

	/* The first of the reasons: up to a "; " outside parentheses. */
	for (const char *p = reason; *p != '\0'; p++) {
		depth += *p == '(' ? 1 : *p == ')' && depth > 0 ? -1 : 0;
		if (depth == 0 && p[0] == ';' && p[1] == ' ') {
			rest = p + 2;
			break;
		}
	}
	snprintf(first, sizeof(first), "%.*s",
		 rest != NULL ? (int) (rest - 2 - reason) : (int) strlen(reason), reason);
	if (nproc_why != NULL)
		snprintf(fallback, sizeof(fallback),
			 "; as an unprivileged user, --fallback accepts "
			 "%s%s instead (not here: %s)",
			 substitute, streq(substitute, "RLIMIT_NPROC") ? "" : " and RLIMIT_NPROC",
			 nproc_why);
	else
		snprintf(fallback, sizeof(fallback), ", or pass --fallback to accept %s instead",
			 substitute);
	if (no_v2)
		snprintf(buf, bufsz,
			 "%s needs cgroup v2, which this host does not have at "
			 "/sys/fs/cgroup (cgroup v1 or a hybrid layout): boot with "
			 "systemd.unified_cgroup_hierarchy=1 (see sandcap doctor)%s.  Also: %s",
			 opt, fallback, reason);
	else
		snprintf(buf, bufsz,
			 "%s needs the sandcap helper (cgroup v2), which %s: %s; %s%s%s%s", opt,
			 refused ? "refused you" : "is not available", first,
			 refused        ? "ask the admin (sandcap policy show)"
			 : o->no_cgroup ? "drop --no-cgroup"
					: "install it (see sandcap doctor)",
			 fallback, rest != NULL ? ".  Also: " : "", rest != NULL ? rest : "");
}

/* The cgroup limits cannot be enforced as asked (no helper, the policy's refusal
 * (refused), or --no-cgroup): refuse, or with --fallback substitute rlimits (the caller
 * says so: fallback_warning()).  Returns 0 (nothing to substitute), 1 (substituted), or
 * -EINVAL with the refusal in ret_msg. */
static int
resolve_cgroup_fallback(struct run_opts *o, struct report *rep, const char *reason, bool refused,
			char *ret_msg, size_t msglen)
{
	static const char *const names[] = { "--memory", "--cpu", "--pids", "--disk" };
	const uint64_t vals[] = { o->memory, o->cpu_percent, o->pids, o->disk };
	static const char *const substitutes[] = { "RLIMIT_AS", "no CPU limit", "RLIMIT_NPROC",
						   "RLIMIT_FSIZE" };
	bool any = false;

	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		if (vals[i] == 0)
			continue;
		any = true;
		if (!o->fallback) {
			refusal_without_cgroup(o, names[i], substitutes[i], reason, refused,
					       ret_msg, msglen);
			return -EINVAL;
		}
	}
	if (!any)
		return 0;

	/* Substitutes (documented in sandcap(1) and docs/report.md).  An explicit rlimit of the
	 * same kind is kept if it is tighter. */
	if (o->memory > 0) {
		if (!o->rl[RUN_RL_AS].set || o->rl[RUN_RL_AS].value > o->memory) {
			o->rl[RUN_RL_AS] = (struct run_rlimit_req){ true, o->memory, "--memory" };
		}
		report_add_limit(rep, "memory", o->memory);
		report_add_enforcement(rep, "memory", "rlimit (RLIMIT_AS, --fallback)");
	}
	if (o->cpu_percent > 0) {
		report_add_limit(rep, "cpu_percent", o->cpu_percent);
		report_add_enforcement(rep, "cpu", "none (not enforced)");
	}
	if (o->pids > 0) {
		if (!o->rl[RUN_RL_NPROC].set || o->rl[RUN_RL_NPROC].value > o->pids)
			o->rl[RUN_RL_NPROC] = (struct run_rlimit_req){ true, o->pids, "--pids" };
		report_add_limit(rep, "pids", o->pids);
		report_add_enforcement(rep, "pids", "rlimit (RLIMIT_NPROC, per user, --fallback)");
	}
	if (o->disk > 0) {
		if (!o->rl[RUN_RL_FSIZE].set || o->rl[RUN_RL_FSIZE].value > o->disk)
			o->rl[RUN_RL_FSIZE] = (struct run_rlimit_req){ true, o->disk, "--disk" };
		report_add_limit(rep, "disk", o->disk);
		report_add_enforcement(rep, "disk", "rlimit (RLIMIT_FSIZE, per file, --fallback)");
	}
	return 1;
}

/* resolve_cgroup_fallback() substituted: say so, naming only what was asked. */
static void
fallback_warning(const struct run_opts *o, const char *reason)
{
	const char *sub[] = { o->memory > 0 ? "memory -> RLIMIT_AS" : NULL,
			      o->pids > 0 ? "pids -> RLIMIT_NPROC (per user)" : NULL,
			      o->disk > 0 ? "disk -> RLIMIT_FSIZE (per file)" : NULL,
			      o->cpu_percent > 0 ? "cpu -> not enforced" : NULL };
	const char *sep = " ";

	if (o->quiet)
		return;
	fprintf(stderr, "sandcap: warning: %s; --fallback:", reason);
	for (size_t i = 0; i < ELEMENTSOF(sub); i++)
		if (sub[i] != NULL) {
			fprintf(stderr, "%s%s", sep, sub[i]);
			sep = ", ";
		}
	fputc('\n', stderr);
}

/* RLIMIT_NPROC (--nproc, or --fallback's substitute for --pids) is set only where it
 * binds: for root, or with CAP_SYS_ADMIN or CAP_SYS_RESOURCE, the kernel ignores it, and a
 * fork bomb would run unbounded under a limit the report claims (nproc.h).  Returns 0, or
 * -EPERM with the refusal in err. */
static int
check_nproc_binds(const struct run_opts *o, char *err, size_t errlen)
{
	const struct run_rlimit_req *l = &o->rl[RUN_RL_NPROC];
	bool pids = l->set && l->source != NULL && streq(l->source, "--pids");
	const char *why;

	if (!l->set)
		return 0;
	why = nproc_exemption();
	if (why == NULL)
		return 0;
	snprintf(err, errlen,
		 "%s %llu%s cannot be enforced: %s; run sandcap as an unprivileged "
		 "user%s",
		 pids ? "--pids" : "--nproc", (unsigned long long) l->value,
		 pids ? " with --fallback (RLIMIT_NPROC)" : "", why,
		 pids ? ", or with the sandcap helper (cgroup mode)"
		      : ", or use --pids with the sandcap helper (cgroup mode)");
	return -EPERM;
}

/* ---- cgroup mode: the helper session behind the supervisor's hooks ---- */

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

/* No usable helper: try user-cgroup mode.  Returns 1 when it runs, 0 when it is not
 * available (why_not gets the reason appended), -1 when the run must be refused (why_not
 * then holds the refusal). */
static int
try_user_cgroup(struct run_opts *o, struct report *rep, const struct policy_resolved *pol,
		const char *id, struct usercg *u, char *why_not, size_t len)
{
	char why[512] = "", helper_why[512];
	int r;

	(void) snprintf(helper_why, sizeof(helper_why), "%s", why_not);
	r = run_usercg_setup(o, rep, pol, id, u, why, sizeof(why));
	if (r == -EPERM || r == -EINVAL) {
		(void) snprintf(why_not, len, "%s", why);
		return -1;
	}
	if (r < 0) {
		(void) snprintf(why_not, len, "%s; user-cgroup mode: %s", helper_why, why);
		return 0;
	}
	report_add_enforcement(rep, "helper", "not used: %s", helper_why);
	if (o->disk > 0) { /* --fallback: RLIMIT_FSIZE for --disk, as in rlimit mode */
		struct run_opts keep = *o;

		o->memory = o->cpu_percent = o->pids = 0;
		r = resolve_cgroup_fallback(o, rep, "user-cgroup mode has no workspace", false,
					    why_not, len);
		if (r > 0)
			fallback_warning(o, "user-cgroup mode has no workspace");
		o->memory = keep.memory;
		o->cpu_percent = keep.cpu_percent;
		o->pids = keep.pids;
		if (r < 0)
			return -1;
	}
	return 1;
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
static uint64_t
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

/* The timeout and the rlimits into the report, and the rlimits the child sets into rl
 * (at most _RUN_RL_MAX); returns how many. */
static size_t
plan_rlimits(const struct run_opts *o, struct report *rep, struct stage_rlimit *rl)
{
	size_t n_rl = 0;

	if (o->has_timeout) {
		report_add_limit(rep, "timeout_ms", o->timeout_ms);
		report_add_limit(rep, "grace_ms", o->grace_ms);
		report_add_enforcement(rep, "timeout", "sandcap");
	}
	for (enum run_rlimit l = 0; l < _RUN_RL_MAX; l++) {
		uint64_t v = o->rl[l].value;

		if (!o->rl[l].set)
			continue;
		if (!streq(o->rl[l].source, run_rlimit_option(l)))
			continue; /* a --fallback substitute: reported under its own name */
		report_add_limit(rep, run_rlimit_key(l), v);
		report_add_enforcement(rep, l == RUN_RL_CPU ? "cpu_time" : run_rlimit_key(l),
				       "rlimit");
	}
	for (enum run_rlimit l = 0; l < _RUN_RL_MAX; l++) {
		uint64_t v = o->rl[l].value;

		if (!o->rl[l].set)
			continue;
		rl[n_rl].resource = run_rlimit_resource(l);
		rl[n_rl].option = o->rl[l].source;
		if (l == RUN_RL_CPU) {
			/* Whole seconds, rounded up; SIGXCPU at the soft limit, SIGKILL one
			 * second later if the command ignores it. */
			rl[n_rl].soft = (rlim_t) ((v + 999) / 1000);
			rl[n_rl].hard = rl[n_rl].soft + 1;
		} else {
			rl[n_rl].soft = rl[n_rl].hard =
				v >= (uint64_t) RLIM_INFINITY ? RLIM_INFINITY : (rlim_t) v;
		}
		n_rl++;
	}
	return n_rl;
}

/* Ask the helper for a sandbox, unless --no-cgroup.  R->helper_r is client_open()'s result
 * (open_policy_and_helper() opened it).  Returns 1 (cgroup mode), 0 (rlimit mode; why in
 * R->err, R->refused if the policy said no), or -errno when the helper refused this
 * sandbox (the reason in R->err).  pol: the caller's policy, if readable. */
static int
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

		r = client_create(&R->sess, &req, err, errlen);
		if (r < 0)
			return r;
		/* The per-user level's counters before the command: the verdict counts only
		 * what grows while it runs. */
		R->in.has_level = cgstats_read_level(R->sess.leaf_fd, &R->in.level_before) == 0;
		return 1;
	}
	return 0;
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
static void
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

/* cgroup mode unless --no-cgroup, when the helper is there and takes us; else user-cgroup
 * mode; else rlimit mode, where the policy and the options allow it. */
int
run_choose_mode(struct run *R)
{
	struct run_opts *o = &R->o;
	const struct policy_resolved *pol = R->have_pol ? &R->pol : NULL;
	int r;

	r = open_helper(R, pol);
	if (r < 0)
		return run_refuse(R, false, "the sandcap helper refused the sandbox: %s",
				  R->err[0] != '\0' ? R->err : strerror(-r));
	R->cgroup = r > 0;
	if (!R->cgroup && !o->no_cgroup) {
		r = try_user_cgroup(o, &R->rep, pol, R->rep.id, &R->ucg, R->err, sizeof(R->err));
		if (r < 0)
			return run_refuse(R, false, "%s", R->err);
		R->ucgroup = r > 0;
		if (R->ucgroup && o->rl[RUN_RL_CPU].set) {
			report_add_limit(&R->rep, "cpu_time_ms", o->rl[RUN_RL_CPU].value);
			report_add_enforcement(&R->rep, "cpu_time",
					       "user-cgroup (cpu.stat, whole sandbox)");
			R->cpu_budget_ms = o->rl[RUN_RL_CPU].value;
			o->rl[RUN_RL_CPU].set = false;
		}
	}
	if (R->cgroup) {
		uint64_t req_disk = o->disk, req_memory = o->memory;

		R->cpu_budget_ms = use_cgroup(o, &R->rep, &R->sess);
		warn_disk_over_memory(R, req_disk, req_memory);
	} else if (!R->ucgroup) {
		char why[1024];

		r = resolve_cgroup_fallback(o, &R->rep, R->err, R->refused, why, sizeof(why));
		if (r < 0)
			return run_refuse(R, false, "%s", why);
		if (pol != NULL && policy_timeout(o, pol, why, sizeof(why)) < 0)
			return run_refuse(R, false, "%s", why);
		if (r > 0 && check_nproc_binds(o, why, sizeof(why)) == 0)
			fallback_warning(o, R->err);
	}
	r = check_nproc_binds(o, R->err, sizeof(R->err));
	if (r < 0)
		return run_refuse(R, false, "%s", R->err);
	R->n_rl = plan_rlimits(o, &R->rep, R->rl);
	return RUN_GO;
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
