/* SPDX-License-Identifier: MIT */
/* How each limit is enforced: cgroup mode (the helper, mode-cgroup.c), user-cgroup mode, or
 * rlimit mode with --fallback's substitutes, and the refusal when none can enforce what was
 * asked. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "cgroup/usercg.h"
#include "macro.h"
#include "policy.h"
#include "report/report.h"
#include "run/args.h"
#include "run/nproc.h"
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
	/* The per-user level's and a session's cgroup's counters before the command: the
	 * verdict counts only what grows while it runs. */
	if (R->cgroup)
		run_levels_read(R, false);
	if (!R->cgroup && !o->no_cgroup) {
		r = try_user_cgroup(o, &R->rep, pol, R->rep.id, &R->ucg, R->err, sizeof(R->err));
		if (r < 0)
			return run_refuse(R, false, "%s", R->err);
		R->ucgroup = r > 0;
		if (R->ucgroup)
			run_levels_read(R, false);
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
