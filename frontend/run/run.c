/* SPDX-License-Identifier: MIT */
/* `sandcap run`: parse, decide how each limit is enforced, run the sandbox (supervise.c), decide
 * the verdict (verdict.c) and report it (report.c).  docs/design.md, "One run".
 * `sandcap trace` is the same run with trace_opts.on (cmd/trace.c); the control socket's
 * callbacks are in run/ctl.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "run/args.h"
#include "run/caller.h"
#include "cgroup/cgstats.h"
#include "cgroup/client.h"
#include "run/run.h"
#include "supervise/env.h"
#include "run/exec-hint.h"
#include "supervise/output.h"
#include "exit.h"
#include "supervise/control.h"
#include "fd-util.h"
#include "isolate/isolate.h"
#include "report/json.h"
#include "supervise/keeper.h"
#include "log.h"
#include "run/net-run.h"
#include "run/nproc.h"
#include "macro.h"
#include "parse-util.h"
#include "run/opt.h"
#include "policy.h"
#include "run/profile.h"
#include "isolate/protect.h"
#include "supervise/rawproc.h"
#include "report/report.h"
#include "run/usercg-run.h"
#include "report/report-sink.h"
#include "run/ctl.h"
#include "supervise/supervise.h"
#include "run/trace.h"
#include "report/verdict.h"

static void
report_sink_closep_(struct report_sink *s)
{
	report_sink_close(s);
}

/* "<uid>-<12 hex>", chosen by sandcap in rlimit mode.  Formatted by hand (issue 19: with the
 * option names of opt.c and the policy's message, printf before the command's exec cost a
 * run 0.06 ms). */
static void
make_id(char (*buf)[64])
{
	static const char hex[] = "0123456789abcdef";
	uint8_t rnd[6] = {};
	char *p;

	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t) sizeof(rnd)) {
		uint64_t t = (uint64_t) getpid() ^ ((uint64_t) time(NULL) << 16);

		memcpy(rnd, &t, sizeof(rnd));
	}
	p = rawfmt_u(*buf, (unsigned long) (unsigned) control_uid());  /* at most 10 digits */
	*p++ = '-';
	for (size_t i = 0; i < sizeof(rnd); i++) {
		*p++ = hex[rnd[i] >> 4];
		*p++ = hex[rnd[i] & 15];
	}
	*p = '\0';
}

/* In .data, as run_main()'s flag: read before the first write to the run's storage. */
static _run_data_ const char *preset_id;

void
run_use_id(const char *id)
{
	preset_id = id;
}

static const char *
strip_sandcap_prefix(const char *s)
{
	return strneq(s, "sandcap: ", 9) ? s + 9 : s;
}

/* The cgroup limits cannot be enforced as asked (no helper, the policy's refusal
 * (refused), or --no-cgroup): refuse, or with --fallback substitute rlimits (the caller
 * says so: fallback_warning()).  Returns 0 (nothing to substitute), 1 (substituted), or
 * -EINVAL with the refusal in ret_msg. */
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
	snprintf(first, sizeof(first), "%.*s", rest != NULL ? (int) (rest - 2 - reason) :
		 (int) strlen(reason), reason);
	if (nproc_why != NULL)
		snprintf(fallback, sizeof(fallback), "; as an unprivileged user, --fallback accepts "
			 "%s%s instead (not here: %s)", substitute,
			 streq(substitute, "RLIMIT_NPROC") ? "" : " and RLIMIT_NPROC", nproc_why);
	else
		snprintf(fallback, sizeof(fallback), ", or pass --fallback to accept %s instead",
			 substitute);
	if (no_v2)
		snprintf(buf, bufsz, "%s needs cgroup v2, which this host does not have at "
			 "/sys/fs/cgroup (cgroup v1 or a hybrid layout): boot with "
			 "systemd.unified_cgroup_hierarchy=1 (see sandcap doctor)%s.  Also: %s",
			 opt, fallback, reason);
	else
		snprintf(buf, bufsz, "%s needs the sandcap helper (cgroup v2), which %s: %s; %s%s%s%s",
			 opt, refused ? "refused you" : "is not available", first,
			 refused ? "ask the admin (sandcap policy show)" :
			 o->no_cgroup ? "drop --no-cgroup" : "install it (see sandcap doctor)",
			 fallback, rest != NULL ? ".  Also: " : "", rest != NULL ? rest : "");
}

static int
resolve_cgroup_fallback(struct run_opts *o, struct report *rep, const char *reason,
			bool refused, char *ret_msg, size_t msglen)
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
			refusal_without_cgroup(o, names[i], substitutes[i], reason, refused, ret_msg,
					       msglen);
			return -EINVAL;
		}
	}
	if (!any)
		return 0;

	/* Substitutes (documented in sandcap(1) and docs/report.md).  An explicit rlimit of the
	 * same kind is kept if it is tighter. */
	if (o->memory > 0) {
		if (!o->rl[RUN_RL_AS].set || o->rl[RUN_RL_AS].value > o->memory) {
			o->rl[RUN_RL_AS] = (struct run_rlimit_req) { true, o->memory, "--memory" };
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
			o->rl[RUN_RL_NPROC] = (struct run_rlimit_req) { true, o->pids, "--pids" };
		report_add_limit(rep, "pids", o->pids);
		report_add_enforcement(rep, "pids", "rlimit (RLIMIT_NPROC, per user, --fallback)");
	}
	if (o->disk > 0) {
		if (!o->rl[RUN_RL_FSIZE].set || o->rl[RUN_RL_FSIZE].value > o->disk)
			o->rl[RUN_RL_FSIZE] = (struct run_rlimit_req) { true, o->disk, "--disk" };
		report_add_limit(rep, "disk", o->disk);
		report_add_enforcement(rep, "disk", "rlimit (RLIMIT_FSIZE, per file, --fallback)");
	}
	return 1;
}

/* rlimit mode: the policy's timeout ceiling and default, which sandcap enforces itself in
 * every mode (the helper, or user-cgroup mode, apply them in theirs): the same command line
 * gets the same timeout whichever mode runs it.  They bind a user the policy does not allow
 * too: access decides who may use the helper, not which limits bind (sandbox.ini(5)).
 * Returns 0, or -EPERM with the refusal. */
static int
policy_timeout(struct run_opts *o, const struct policy_resolved *pol, char *err, size_t errlen)
{
	char why[POLICY_ERR_MAX];
	uint64_t t;
	int r;

	r = policy_check_ceiling(pol, POLICY_TIMEOUT, o->has_timeout ? o->timeout_ms : 0, why,
				 sizeof(why));
	if (r < 0) {
		(void) snprintf(err, errlen, "--%s: give a shorter --timeout, or ask the admin "
				"(sandcap policy show lists your ceilings)", why);
		return r;
	}
	t = policy_effective(pol, POLICY_TIMEOUT, o->has_timeout ? o->timeout_ms : 0);
	if (!o->has_timeout && t > 0) {
		o->has_timeout = true;
		o->timeout_ms = t;
	}
	return 0;
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
	snprintf(err, errlen, "%s %llu%s cannot be enforced: %s; run sandcap as an unprivileged "
		 "user%s", pids ? "--pids" : "--nproc", (unsigned long long) l->value,
		 pids ? " with --fallback (RLIMIT_NPROC)" : "", why,
		 pids ? ", or with the sandcap helper (cgroup mode)" :
		 ", or use --pids with the sandcap helper (cgroup mode)");
	return -EPERM;
}

/* --timeout fired: how the sandbox ended after SIGTERM. */
static void
timeout_message(const struct run_opts *o, const struct sv_outcome *out, const char *sig,
		char *buf, size_t bufsz)
{
	char a[32], b[32], g[32];

	format_duration_ms(out->wall_ms, a, sizeof(a));
	format_duration_ms(o->timeout_ms, b, sizeof(b));
	format_duration_ms(o->grace_ms, g, sizeof(g));
	if (out->grace_expired && out->exited)
		/* The main process ended on SIGTERM; what it left behind needed the SIGKILL. */
		snprintf(buf, bufsz, "stopped after %s (limit %s): the command exited with "
			 "status %d after SIGTERM; what was left of the sandbox was killed (SIGKILL) "
			 "after the %s grace", a, b, out->exit_code, g);
	else if (out->grace_expired && out->signaled && out->signal != SIGKILL)
		snprintf(buf, bufsz, "stopped after %s (limit %s): SIGTERM, the command was "
			 "killed by SIG%s; what was left of the sandbox was killed (SIGKILL) after the "
			 "%s grace", a, b, sig != NULL ? sig : "?", g);
	else if (out->grace_expired)
		snprintf(buf, bufsz, "killed after %s (limit %s): SIGTERM, then SIGKILL "
			 "after the %s grace", a, b, g);
	else if (out->signaled && out->signal != SIGTERM)
		/* Not our SIGKILL (the grace had not expired): say what ended it. */
		snprintf(buf, bufsz, "stopped after %s (limit %s): SIGTERM, then killed by "
			 "SIG%s before the %s grace was over", a, b, sig != NULL ? sig : "?", g);
	else if (out->exited)
		snprintf(buf, bufsz, "stopped after %s (limit %s): exited with status %d "
			 "after SIGTERM", a, b, out->exit_code);
	else
		snprintf(buf, bufsz, "stopped after %s (limit %s): ended on SIGTERM", a, b);
}

/* Ended by a signal sandcap forwarded or by sandcap kill: who asked, and how it ended. */
static void
killed_message(const struct sv_outcome *out, const struct verdict *v, const char *sig,
	       char *buf, size_t bufsz)
{
	const char *rs = sigabbrev_np(out->end_request.signal);
	char how[128];

	if (v->signal > 0)
		snprintf(how, sizeof(how), "was killed by signal %d (SIG%s)", v->signal,
			 sig != NULL ? sig : "?");
	else
		snprintf(how, sizeof(how), "exited with status %d", v->exit_code);
	if (out->end_request.keeper_died)
		snprintf(buf, bufsz, "sandcap was killed (its first process, pid %d, which the "
			 "shell waits for), so the sandbox was ended: the command %s",
			 (int) out->end_request.pid, how);
	/* A request, not necessarily the end: the command may handle or ignore it, and the
	 * last part says how it ended. */
	else if (out->end_request.by_control)
		snprintf(buf, bufsz, "'sandcap kill' (SIG%s, from pid %d, uid %u) asked it to end, "
			 "then the command %s", rs != NULL ? rs : "?", (int) out->end_request.pid,
			 (unsigned) out->end_request.uid, how);
	else if (out->end_request.pid == 0)
		snprintf(buf, bufsz, "SIG%s from the kernel (e.g. the terminal hung up), forwarded "
			 "by sandcap, then the command %s", rs != NULL ? rs : "?", how);
	else
		snprintf(buf, bufsz, "SIG%s sent to sandcap by pid %d (uid %u), forwarded, then the "
			 "command %s", rs != NULL ? rs : "?", (int) out->end_request.pid,
			 (unsigned) out->end_request.uid, how);
}

/* A SIGXCPU or SIGXFSZ that is not this run's limit (verdict signal): say where it may have
 * come from, so nobody looks for a limit the run did not set. */
static void
rlimit_signal_note(const struct run_opts *o, const struct verdict_input *in, int sig,
		   char *buf, size_t bufsz)
{
	size_t n = strlen(buf);
	struct rlimit lim;
	char b[32];

	if (sig != SIGXCPU && sig != SIGXFSZ)
		return;
	if ((sig == SIGXCPU && in->cpu_limit_ms > 0) || (sig == SIGXFSZ && in->fsize_limit))
		return;         /* not reached: those are verdicts cpu-time and fsize */
	/* Not set by this run: sandcap's own limit is the one the command inherited. */
	if (getrlimit(sig == SIGXCPU ? RLIMIT_CPU : RLIMIT_FSIZE, &lim) < 0 ||
	    lim.rlim_cur == RLIM_INFINITY) {
		snprintf(buf + n, bufsz - n, " (no %s limit of this run's)",
			 sig == SIGXCPU ? "CPU time" : "file size");
		return;
	}
	if (sig == SIGXCPU)
		format_duration_ms((uint64_t) lim.rlim_cur * 1000, b, sizeof(b));
	else
		format_size((uint64_t) lim.rlim_cur, b, sizeof(b));
	snprintf(buf + n, bufsz - n, " (%s %s inherited from sandcap's caller, not a limit of "
		 "this run's)", sig == SIGXCPU ? "RLIMIT_CPU" : "RLIMIT_FSIZE", b);
}

/* The per-process limits (RLIMIT_CPU, _FSIZE, _AS) bind each process alone, so one may kill
 * a process below the main one while the main process ends well.  A death by SIGXCPU or
 * SIGXFSZ that sandcap reaped is named; otherwise the message says once, for the limits
 * set, that they are per process (a process reaped by a parent of its own in the sandbox,
 * or an allocation refused under RLIMIT_AS, cannot be seen from here). */
static void
per_process_note(const struct run_opts *o, const struct verdict_input *in,
		 const struct verdict *v, char *buf, size_t bufsz)
{
	static const struct {
		enum run_rlimit rl;
		const char *name;
	} lims[] = { { RUN_RL_CPU, "RLIMIT_CPU" }, { RUN_RL_FSIZE, "RLIMIT_FSIZE" },
		     { RUN_RL_AS, "RLIMIT_AS" } };
	size_t n = strlen(buf), k = 0;

	if (v->kind == VERDICT_SETUP_ERROR)
		return;
	if (in->other_sigxcpu > 0 && in->cpu_limit_ms > 0)
		n += (size_t) snprintf(buf + n, n < bufsz ? bufsz - n : 0, "; %u other process%s "
				       "killed by SIGXCPU at the CPU time limit (RLIMIT_CPU, per "
				       "process)", in->other_sigxcpu,
				       in->other_sigxcpu == 1 ? " was" : "es were");
	if (in->other_sigxfsz > 0 && in->fsize_limit)
		n += (size_t) snprintf(buf + n, n < bufsz ? bufsz - n : 0, "; %u other process%s "
				       "killed by SIGXFSZ at the file size limit (RLIMIT_FSIZE, per "
				       "process)", in->other_sigxfsz,
				       in->other_sigxfsz == 1 ? " was" : "es were");
	if (v->kind != VERDICT_OK && v->kind != VERDICT_EXIT && v->kind != VERDICT_SIGNAL)
		return;
	for (size_t i = 0; i < ELEMENTSOF(lims); i++) {
		const struct run_rlimit_req *r = &o->rl[lims[i].rl];

		if (!r->set || n + 1 >= bufsz)
			continue;
		n += (size_t) snprintf(buf + n, bufsz - n, "%s%s (%s)", k++ == 0 ?
				       " (per-process limits: " : ", ",
				       r->source != NULL ? r->source : "?", lims[i].name);
	}
	if (k > 0 && n + 1 < bufsz)
		snprintf(buf + n, bufsz - n, "; a process other than the main one that reached "
			 "one is named here only when sandcap reaped it)");
}

/* Which policy section set the user's total t: the helper's word in cgroup mode, else
 * where sandcap resolved the policy itself; else pointed at. */
static const char *
total_source(const char *const *total_src, int t)
{
	if (total_src != NULL && total_src[t] != NULL && total_src[t][0] != '\0')
		return total_src[t];
	return "the policy (see 'sandcap policy show')";
}

/* The per-user level's limit reached: which total, its value and section, and what this
 * sandbox held of it. */
static void
total_message(const struct verdict_input *in, const struct verdict *v,
	      const struct cg_usage *cg, const char *const *total_src, char *buf, size_t bufsz)
{
	const struct cg_level *l = &in->level_after;
	char t[32], own[32], peak[32];

	if (v->kind == VERDICT_TOTAL_MEMORY) {
		format_size(l->memory_max, t, sizeof(t));
		format_size(cg->memory_peak, peak, sizeof(peak));
		snprintf(buf, bufsz, "your total_memory was reached (%s for all of your sandboxes "
			 "together, set by %s): the kernel's OOM killer at that level "
			 "(memory.events.local oom of the per-user cgroup) ended this sandbox, "
			 "which held at most %s", l->memory_max != UINT64_MAX ? t : "its limit",
			 total_source(total_src, POLICY_TOTAL_MEMORY),
			 cg->has_memory_peak ? peak : "an unknown part of it");
		return;
	}
	snprintf(t, sizeof(t), "%llu", (unsigned long long) l->pids_max);
	snprintf(own, sizeof(own), "%llu", (unsigned long long) cg->pids_max);
	if (cg->has_pids_events && cg->pids_max_events > 0)
		snprintf(buf, bufsz, "your total_pids was reached (%s processes for all of your "
			 "sandboxes together, set by %s): %llu fork%s refused in this sandbox, "
			 "which had at most %llu of its own limit %s", t,
			 total_source(total_src, POLICY_TOTAL_PIDS),
			 (unsigned long long) cg->pids_max_events,
			 cg->pids_max_events == 1 ? " was" : "s were",
			 (unsigned long long) cg->pids_peak,
			 cg->has_pids_max && cg->pids_max != UINT64_MAX ? own : "(none)");
	else
		snprintf(buf, bufsz, "your total_pids (%s processes for all of your sandboxes "
			 "together, set by %s) refused forks while it ran (pids.events.local of "
			 "the per-user cgroup: of this sandbox or another of yours)", t,
			 total_source(total_src, POLICY_TOTAL_PIDS));
}

/* An OOM kill in the leaf that neither the leaf's limit nor the user's total explains. */
static const char *
outside_oom(const struct verdict_input *in, const struct cg_usage *cg)
{
	if (!cg->has_memory_events || cg->oom_kill == 0 || cg->oom > 0)
		return "";
	if (in->has_level && in->level_after.has_oom_local)
		return ": an OOM kill from outside the sandbox, not its limit nor your "
		       "total_memory: the host's global OOM killer (the machine ran out of "
		       "memory) or a memory limit above sandcap's cgroups";
	return ": an OOM kill from outside the sandbox, not its own limit: the host's global "
	       "OOM killer (the machine ran out of memory) or a memory limit of a cgroup above "
	       "the sandbox";
}

static void
compose_message(const struct run_opts *o, const struct sv_outcome *out,
		const struct verdict_input *in, const struct verdict *v,
		const struct cg_usage *cg, const char *const *total_src, char *buf,
		size_t bufsz)
{
	char b[32], esc[128];
	const char *sig = v->signal > 0 ? sigabbrev_np(v->signal) : NULL;

	switch (v->kind) {
	case VERDICT_OK:
	case VERDICT_EXIT:
		snprintf(buf, bufsz, "the command exited with status %d%s", v->exit_code,
			 cg->has_memory_events && cg->oom > 0 && cg->oom_kill == 0 ?
			 " (some allocations failed at the memory limit: memory.events oom > 0, "
			 "nothing was OOM-killed)" : "");
		break;
	case VERDICT_SIGNAL:
		/* oom_kill counts kills by any OOM killer; without oom in the leaf or in the
		 * per-user level it came from above them: the kernel does not say to sandcap
		 * whether that was the host's global OOM or a limit above (docs/kernel.md 2). */
		snprintf(buf, bufsz, "the command was killed by signal %d (SIG%s)%s", v->signal,
			 sig != NULL ? sig : "?", outside_oom(in, cg));
		rlimit_signal_note(o, in, v->signal, buf, bufsz);
		break;
	case VERDICT_TIMEOUT:
		timeout_message(o, out, sig, buf, bufsz);
		break;
	case VERDICT_CPU_TIME:
		if (out->cpu_budget_fired) {
			snprintf(buf, bufsz, "the sandbox's CPU time budget was spent: killed");
			break;
		}
		/* The limit applied, in RLIMIT_CPU's whole seconds, and what was asked if that
		 * was rounded up. */
		format_duration_ms(in->cpu_limit_ms, b, sizeof(b));
		format_duration_ms(o->rl[RUN_RL_CPU].value, esc, sizeof(esc));
		snprintf(buf, bufsz, "CPU time limit reached (limit %s per process, RLIMIT_CPU%s%s%s): "
			 "killed by SIG%s", b, in->cpu_limit_ms != o->rl[RUN_RL_CPU].value ?
			 ", whole seconds: --cpu-time " : "",
			 in->cpu_limit_ms != o->rl[RUN_RL_CPU].value ? esc : "",
			 in->cpu_limit_ms != o->rl[RUN_RL_CPU].value ? " rounded up" : "",
			 sig != NULL ? sig : "?");
		break;
	case VERDICT_FSIZE:
		format_size(o->rl[RUN_RL_FSIZE].value, b, sizeof(b));
		snprintf(buf, bufsz, "file size limit reached (limit %s, %s, RLIMIT_FSIZE): killed by "
			 "SIGXFSZ", b, o->rl[RUN_RL_FSIZE].source != NULL ?
			 o->rl[RUN_RL_FSIZE].source : "--fsize");
		break;
	case VERDICT_SETUP_ERROR:
		if (out->setup == SV_SETUP_EXEC) {
			char hint[320];

			/* The directory the child changed to (run_plan()'s chdir_to). */
			const char *dir = o->chdir != NULL && streq(o->chdir, "@workspace") ?
					  o->iso.workspace : o->chdir;

			exec_hint(o->argv[0], dir, out->setup_errno, o->iso.fs, hint, sizeof(hint));
			snprintf(buf, bufsz, "cannot execute '%s': %s%s",
				 log_escape(o->argv[0], esc, sizeof(esc)), strerror(out->setup_errno),
				 hint);
		} else
			snprintf(buf, bufsz, "%s", strip_sandcap_prefix(out->setup_msg));
		break;
	case VERDICT_MEMORY:
		/* Not "N processes": memory.events oom_kill counts kill events, and with
		 * memory.oom.group (set by the helper) the chosen victim counts twice, so
		 * one killed process reads 2 (docs/report.md, usage.oom_kills). */
		format_size(o->memory, b, sizeof(b));
		snprintf(buf, bufsz, "memory limit hit%s%s%s: the kernel's OOM killer ended the "
			 "sandbox", o->memory > 0 ? " (limit " : "", o->memory > 0 ? b : "",
			 o->memory > 0 ? ")" : "");
		/* The workspace is tmpfs: its files are pages charged to the leaf (no swap), and
		 * they outlive the kill.  A quarter of the limit or more is named, or a full
		 * workspace reads as the command's own appetite. */
		if (o->memory > 0 && cg->has_disk_used && cg->disk_used >= o->memory / 4) {
			size_t n = strlen(buf);

			format_size(cg->disk_used, b, sizeof(b));
			snprintf(buf + n, bufsz - n, "; the workspace's files held %s of it: they are "
				 "memory (tmpfs), charged to --memory", b);
		}
		break;
	case VERDICT_PIDS:
		snprintf(buf, bufsz, "process limit hit: %llu fork%s refused",
			 (unsigned long long) cg->pids_max_events,
			 cg->pids_max_events == 1 ? " was" : "s were");
		break;
	case VERDICT_DISK:
		format_size(cg->disk_used, b, sizeof(b));
		format_size(in->disk_limit, esc, sizeof(esc));
		if (cg->disk_inodes_out)
			/* Blocks to spare, but no file can be made: say which ran out. */
			snprintf(buf, bufsz, "the workspace is out of inodes: %llu files, directories "
				 "and links, its most (one per 4 KiB of --disk, 4096 to 1048576); %s "
				 "of %s used", (unsigned long long) cg->disk_inodes, b, esc);
		else
			snprintf(buf, bufsz, "the workspace is full (%s used of %s)", b, esc);
		break;
	case VERDICT_KILLED:
		killed_message(out, v, sig, buf, bufsz);
		break;
	case VERDICT_OUTPUT:
		format_size(o->output_limit, b, sizeof(b));
		snprintf(buf, bufsz, "output limit reached: %llu bytes of stdout and stderr passed "
			 "(limit %s), then the sandbox was ended", (unsigned long long) out->output_bytes,
			 b);
		break;
	case VERDICT_TOTAL_MEMORY:
	case VERDICT_TOTAL_PIDS:
		total_message(in, v, cg, total_src, buf, bufsz);
		break;
	case _VERDICT_MAX:
		snprintf(buf, bufsz, "%s limit hit", verdict_name(v->kind));
		break;
	}
}


/* ---- the caller's policy, read without privilege (the file is normally 0644) ---- */

/* Read and parse the installed policy.  Returns 0 with *ret; -ENOENT when there is no
 * policy file (nothing to apply); any other -errno when the file exists but cannot be
 * trusted, read or parsed, with the refusal in msg: the caller must refuse to run, in every
 * mode, or a typo in the policy would silently drop what it requires. */
static int
load_policy(struct policy **ret, char *msg, size_t msglen)
{
	_cleanup_free_ char *text = NULL;
	char err[POLICY_ERR_MAX] = "";
	unsigned line = 0;
	size_t len = 0;
	int r;

	/* Without a message first, and again with one only to say why a policy cannot be used:
	 * a run without a policy formats no reason it will not print (issue 19). */
	r = policy_read_trusted(SC_POLICY_PATH, &text, &len, NULL, 0);
	if (r == -ENOENT)
		return r;
	if (r < 0)
		(void) policy_read_trusted(SC_POLICY_PATH, &text, &len, err, sizeof(err));
	if (r < 0) {
		snprintf(msg, msglen, "the policy %s cannot be used: %s; refusing to run until the "
			 "admin fixes it (sandcap policy check %s; sandbox.ini(5))", SC_POLICY_PATH,
			 err[0] != '\0' ? err : strerror(-r), SC_POLICY_PATH);
		return r == -ENOENT ? -EACCES : r;
	}
	r = policy_parse_string(text, len, SC_POLICY_PATH, ret, &line, err, sizeof(err));
	if (r < 0) {
		/* err is "FILE:LINE: message". */
		snprintf(msg, msglen, "the policy %s is invalid (%s); refusing to run until the admin "
			 "fixes it: sandcap policy check %s lists every error", SC_POLICY_PATH,
			 err[0] != '\0' ? err : strerror(-r), SC_POLICY_PATH);
		return r == -ENOENT ? -EINVAL : r;
	}
	return 0;
}

static bool
policy_names_ids(const struct policy *p)
{
	return p != NULL && (policy_names_users(p) || policy_names_groups(p));
}

/* Resolve the policy for the calling user (and free it).  Used for early refusals
 * (isolation the policy requires), by rlimit and user-cgroup mode, and by `sandcap trace`
 * (the ceilings); the helper always decides again for itself.  Returns 0; -ENOMEM. */
static int
resolve_policy(struct policy *p, struct policy_resolved *ret)
{
	_cleanup_free_ char *user = NULL;
	/* As many as the helper takes (more: refused, both sides). */
	char *owned[1024] = { NULL };
	struct policy_subject subj;
	size_t ng = 0;
	int r = 0;

	/* As the helper: no section or list names a user or a group, so the name cannot
	 * change the verdict; no NSS lookup (nscd, nsswitch.conf, passwd), and a uid without
	 * a passwd entry is judged like any other.
	 * As the helper, too: no group lookup when no group is named (same result, faster). */
	if (policy_names_ids(p))
		r = caller_names(policy_names_groups(p), &user, owned, ELEMENTSOF(owned), &ng);
	/* A uid without a passwd entry: no [user:] section or list can name it, so it is
	 * judged as a user of its process's groups (never by no policy at all: hostile
	 * review). */
	if (r == -ENOENT)
		r = 0;
	if (r == 0) {
		subj = (struct policy_subject) { .user = user,
						 .groups = (const char *const *) owned,
						 .ngroups = ng };
		policy_resolve(p, &subj, ret);
	}
	for (size_t i = 0; i < ng; i++)
		free(owned[i]);
	policy_free(p);
	return r;
}

/* ---- --profile NAME: its settings become option words before the command line's ---- */

/* If argv has --profile NAME (or --profile=NAME) among its options, load it and build a new
 * argv: argv[0], the profile's words, then argv[1..] (run_args_parse() passes over the
 * --profile there).  *ret_argv is malloc'ed (the words belong to prof).  Returns 0 (no
 * profile: *ret_argv = NULL), or -EINVAL after printing why. */
static int
expand_profile(int argc, char **argv, struct profile *prof, int *ret_argc, char ***ret_argv)
{
	char err[PROFILE_ERR_MAX];
	const char *name = NULL;
	char **nv;
	int n;

	*ret_argv = NULL;
	if (run_args_find_profile(argc, argv, &name) < 0)
		return -EINVAL;
	if (name == NULL)
		return 0;
	if (profile_load(name, prof, err, sizeof(err)) < 0) {
		char esc[256];

		fprintf(stderr, "sandcap: --profile %s: %s\n", log_escape(name, esc, sizeof(esc)), err);
		return -EINVAL;
	}
	nv = calloc((size_t) argc + prof->nwords + 1, sizeof(char *));
	if (nv == NULL) {
		profile_done(prof);
		return -ENOMEM;
	}
	n = 0;
	nv[n++] = argv[0];
	for (size_t i = 0; i < prof->nwords; i++)
		nv[n++] = prof->words[i];
	for (int i = 1; i < argc; i++)
		nv[n++] = argv[i];
	nv[n] = NULL;
	*ret_argc = n;
	*ret_argv = nv;
	return 0;
}

/* ---- cgroup mode: the helper session behind the supervisor's hooks ---- */

/* Why the sandbox could not be started, for the setup-error report (sv_run() and its
 * hooks print their reason; the hooks also leave it here). */
static _run_data_ char start_error[512];

static int
cg_spawn(int stage_sock, pid_t *ret_pid, void *userdata)
{
	struct sc_session *s = userdata;
	char err[CLIENT_ERR_MAX] = "";
	int r = client_spawn(s, stage_sock, ret_pid, err, sizeof(err));

	if (r < 0) {
		snprintf(start_error, sizeof(start_error),
			 "cannot start the sandbox's process in its cgroup: %s",
			 err[0] != '\0' ? err : strerror(-r));
		fprintf(stderr, "sandcap: %s\n", start_error);
	}
	return r;
}

static void
cg_kill(void *userdata)
{
	struct sc_session *s = userdata;
	char err[CLIENT_ERR_MAX] = "";

	if (s->attached && !s->dead && client_kill(s, err, sizeof(err)) == -ETIMEDOUT)
		fprintf(stderr, "sandcap: warning: %s; sandcap kills the processes it can see\n", err);
}

static int
cg_cpu_used(void *userdata, uint64_t *ret)
{
	struct sc_session *s = userdata;
	struct cg_usage u;
	int r = cgstats_read(s->leaf_fd, -EBADF, &u);

	if (r < 0)
		return r;
	if (!u.has_cpu_stat)
		return -ENODATA;
	*ret = u.cpu_usage_usec;
	return 0;
}

static void
session_closep_(struct sc_session *s)
{
	client_close(s);
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

static void
usercg_closep_(struct usercg *u)
{
	usercg_close(u);
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
	if (o->disk > 0) {      /* --fallback: RLIMIT_FSIZE for --disk, as in rlimit mode */
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

static uint64_t
tv_ms(const struct timeval *tv)
{
	return (uint64_t) tv->tv_sec * 1000 + (uint64_t) tv->tv_usec / 1000;
}

/* Deliver what was written to the sink's stream; 0, or -errno after printing why. */
static int
deliver(struct report_sink *sink)
{
	char err[512] = "";
	int r = report_sink_commit(sink, err, sizeof(err));

	if (r < 0)
		fprintf(stderr, "sandcap: %s\n", err);
	return r;
}

/* Write the report (if asked) and the summary (unless -q); returns the exit status. */
static int
finish(const struct run_opts *o, struct report_sink *sink, struct report *rep)
{
	FILE *f = sink != NULL ? report_sink_stream(sink) : NULL;

	if (f != NULL)
		(void) report_write_json(f, rep);
	if (!o->quiet || rep->v.kind == VERDICT_SETUP_ERROR) {
		if (rep->v.kind == VERDICT_SETUP_ERROR && o->quiet)
			fprintf(stderr, "sandcap: %s\n", rep->message);
		else
			report_write_summary(stderr, rep);
	}
	if (sink != NULL && deliver(sink) < 0)
		return SC_EXIT_FAILURE;
	return rep->v.sc_exit;
}

/* A refusal after option parsing (policy, ceilings, helper, isolation): the reason on
 * stderr (unless already printed) and in a setup-error report.  Returns 125. */
static int _printf_(4, 5)
refuse(struct report_sink *sink, struct report *rep, bool printed, const char *fmt, ...)
{
	char msg[1024];
	FILE *f = report_sink_stream(sink);
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!printed)
		fprintf(stderr, "sandcap: %s\n", strip_sandcap_prefix(msg));
	rep->v = (struct verdict) { .kind = VERDICT_SETUP_ERROR, .exit_code = -1,
				    .sc_exit = SC_EXIT_FAILURE };
	/* Nothing was enforced: what the plan had added so far (a --fallback substitute, the
	 * limits of a plan refused later) must not read as a sandbox's (docs/report.md). */
	rep->n_limits = rep->n_enforcement = 0;
	rep->message = strip_sandcap_prefix(msg);
	if (f != NULL) {
		(void) report_write_json(f, rep);
		(void) deliver(sink);
	}
	rep->message = NULL;
	return SC_EXIT_FAILURE;
}

static void
freep_argv_(char ***p)
{
	free(*p);
}

static void
profile_donep_(struct profile *p)
{
	profile_done(p);
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
	o->iso.cgroup_bpf = o->iso.net != POLICY_NET_HOST;     /* the helper attached them */
	o->iso.workspace = sess->ws_path[0] != '\0' ? sess->ws_path : NULL;
	o->memory = e->memory;   /* as applied, for the messages */
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
	if (o->has_timeout && o->grace_ms >= CLIENT_HELPER_BACKSTOP_MS) {
		/* The helper kills the cgroup 10 s after the timeout: a longer grace would be
		 * cut short by it and reported as if honoured.  sandcap kills itself one second
		 * before, and says so (#14 item 13). */
		char g[32], b[32];

		format_duration_ms(o->grace_ms, g, sizeof(g));
		o->grace_ms = CLIENT_HELPER_BACKSTOP_MS - 1000;
		format_duration_ms(o->grace_ms, b, sizeof(b));
		if (!o->quiet)
			fprintf(stderr, "sandcap: warning: --grace %s: in cgroup mode the helper kills "
				"the sandbox 10s after its timeout; the grace period is %s\n", g, b);
	}
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
			continue;       /* a --fallback substitute: reported under its own name */
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
			rl[n_rl].soft = rl[n_rl].hard = v >= (uint64_t) RLIM_INFINITY ?
				RLIM_INFINITY : (rlim_t) v;
		}
		n_rl++;
	}
	return n_rl;
}

/* The verdict from the evidence (in: the cgroup's part, already filled), its message,
 * and the usage figures, into rep. */
static void
decide(const struct run_opts *o, const struct sv_outcome *out, const struct output_relay *relay,
       const char *const *total_src, struct verdict_input *in, struct report *rep,
       char *message, size_t msglen)
{
	in->setup = out->setup == SV_SETUP_EXEC ? VERDICT_SETUP_EXEC :
		   out->setup == SV_SETUP_FAILED ? VERDICT_SETUP_FAILED : VERDICT_SETUP_NONE;
	in->exec_errno = out->setup_errno;
	in->exited = out->exited;
	in->exit_code = out->exit_code;
	in->signaled = out->signaled;
	in->signal = out->signal;
	in->timeout_fired = out->timeout_fired;
	in->output_limit_hit = out->output_limit_hit;
	if (o->output_limit > 0) {
		rep->has_output_bytes = true;
		rep->output_bytes = out->output_bytes;
		rep->output_dropped = out->output_dropped;
		if (relay->shared)
			report_add_enforcement(rep, "output", "sandcap (stdout and stderr, one "
					       "pipe: %s)", relay->s[0].no_splice ?
					       "read/write" : "splice");
		else
			report_add_enforcement(rep, "output", "sandcap (stdout: %s, stderr: %s)",
					       relay->s[0].no_splice ? "read/write" : "splice",
					       relay->s[1].no_splice ? "read/write" : "splice");
	}
	in->end_requested = out->end_request.requested;
	if (out->end_request.requested) {
		rep->killed_by.set = true;
		rep->killed_by.by = out->end_request.by_control ? "sandcap kill" :
				    out->end_request.keeper_died ? "sandcap killed" : "signal";
		rep->killed_by.signal = out->end_request.signal;
		rep->killed_by.pid = out->end_request.pid;
		rep->killed_by.uid = out->end_request.uid;
	}
	in->main_cpu_ms = tv_ms(&out->main_ru.ru_utime) + tv_ms(&out->main_ru.ru_stime);
	if (o->rl[RUN_RL_CPU].set)
		in->cpu_limit_ms = (o->rl[RUN_RL_CPU].value + 999) / 1000 * 1000;
	in->fsize_limit = o->rl[RUN_RL_FSIZE].set;
	in->other_sigxcpu = out->other_sigxcpu;
	in->other_sigxfsz = out->other_sigxfsz;
	verdict_decide(in, &rep->v);
	compose_message(o, out, in, &rep->v, &rep->cg, total_src, message, msglen);
	per_process_note(o, in, &rep->v, message, msglen);

	rep->wall_ms = out->wall_ms;
	rep->cpu_user_ms = tv_ms(&out->tree_ru.ru_utime);
	rep->cpu_system_ms = tv_ms(&out->tree_ru.ru_stime);
	if (rep->cg.has_cpu_stat) {
		rep->cpu_user_ms = rep->cg.cpu_user_usec / 1000;
		rep->cpu_system_ms = rep->cg.cpu_system_usec / 1000;
	}
	rep->max_rss = (uint64_t) out->tree_ru.ru_maxrss * 1024;
	rep->has_max_rss = true;
	rep->killed_at_end = out->killed_at_end;
	rep->unix_refused = out->unix_refused;
}

/* One run of `sandcap run`, from the command line to the report. */
struct run {
	const struct trace_opts *trace;
	struct run_opts o;
	/* What every run writes, together after o (whose end it also writes), and before the
	 * members with large arrays that most runs leave untouched: each page written is a
	 * fault (issue 19: 9 pages of this struct were, now 7). */
	struct report rep;
	struct report_sink sink;
	char **pargv;                   /* the command line with the profile expanded */
	char **envp;                    /* the command's environment (--env ...), or NULL */
	bool have_pol;
	bool cgroup, ucgroup, refused;
	int helper_r;                   /* client_open()'s result (open_policy_and_helper()) */
	int pol_r;                      /* load_policy()'s result (its refusal in err) */
	struct policy *polfile;         /* the policy as parsed, until resolve_policy() */
	uint64_t cpu_budget_ms;         /* whole-sandbox CPU budget (cgroup modes), 0: none */
	struct stage_rlimit rl[_RUN_RL_MAX];
	size_t n_rl;
	const char *chdir_to;
	struct keeper_info keeper;
	struct output_relay relay;
	int drain_end;                  /* output_relay_drain()'s result: why its wait ended */
	int drain_sig;                  /* ... the signal that ended it, if one did */
	bool teardown_failed;           /* run_collect(): why in err */
	struct sv_outcome out;
	struct verdict_input in;
	uint64_t fsize_max;             /* --trace: the largest file left in the workspace */
	char id[64], err[512], message[512];
	char helper_err[CLIENT_ERR_MAX];  /* client_open()'s reason, when it failed */
	struct run_ctl ctl;
	struct net_proxy proxy;         /* --net proxy (its large array last) */
	struct sc_session sess;         /* cgroup mode: the helper */
	struct usercg ucg;              /* user-cgroup mode */
	struct policy_resolved pol;
	struct profile prof;
	struct isolate_plan plan;
};

/* What a step returns to go on; any other value is the exit status. */
#define RUN_GO (-1)

static void
run_close(struct run *R)
{
	run_ctl_closep(&R->ctl);
	output_relay_close(&R->relay);
	freep_argv_(&R->envp);
	freep_argv_(&R->pargv);
	profile_donep_(&R->prof);
	usercg_closep_(&R->ucg);
	session_closep_(&R->sess);
	R->polfile = policy_free(R->polfile);
	report_sink_closep_(&R->sink);
}

/* The policy file and the helper's HELLO, before the report is opened. */
static void
open_policy_and_helper(struct run *R)
{
	R->pol_r = load_policy(&R->polfile, R->err, sizeof(R->err));
	R->helper_r = -ENOENT;
	if (!R->o.no_cgroup)
		R->helper_r = client_open(&R->sess, R->helper_err, sizeof(R->helper_err));
}

/* The command line (with its profile), the report's sink, the environment, the caller's
 * policy and, for --net proxy, the proxy. */
static int
run_prepare(struct run *R, int argc, char **argv, struct net_proxy *proxy)
{
	char rerr[512] = "";
	int pargc = 0, r;

	if (expand_profile(argc, argv, &R->prof, &pargc, &R->pargv) < 0)
		return SC_EXIT_FAILURE;
	if (R->pargv != NULL) {
		argc = pargc;
		argv = R->pargv;
	}
	r = run_args_parse(argc, argv, &R->o);
	if (r != 0)
		return r > 0 ? 0 : SC_EXIT_FAILURE;
	if (preset_id != NULL)
		snprintf(R->id, sizeof(R->id), "%s", preset_id);
	else
		make_id(&R->id);
	R->rep.id = R->id;
	net_run_report_refused(&R->o, proxy, &R->rep);
	R->rep.argv = R->o.argv;
	R->rep.message = R->message;
	R->rep.env = environ;
	open_policy_and_helper(R);

	/* A file size limit sandcap's caller set binds the command, and sandcap's own report
	 * too: past it the write must fail with EFBIG, which sandcap reports, not kill sandcap
	 * with SIGXFSZ and lose the report (the child gets the default disposition back). */
	(void) signal(SIGXFSZ, SIG_IGN);
	/* Likewise a report or summary written to a pipe whose reader went away: EPIPE, said
	 * as an error that cannot write the report, not a supervisor killed by SIGPIPE
	 * (real-workload review). */
	(void) signal(SIGPIPE, SIG_IGN);
	/* A caller that ignores SIGCHLD (or sets SA_NOCLDWAIT) would have the kernel reap our
	 * children unseen: the supervisor would wait forever for an end that waitid() cannot
	 * report, and the keeper for a SIGCHLD never sent (outside review).  The command gets
	 * the default anyway: the child resets every signal that is not (sig_nondefault()). */
	(void) sigaction(SIGCHLD, &(const struct sigaction) { .sa_handler = SIG_DFL }, NULL);

	/* Open the report before anything runs, so a bad path costs nothing. */
	r = report_sink_open(&R->sink, R->o.report_path, R->o.report_fd, rerr, sizeof(rerr));
	if (r < 0) {
		fprintf(stderr, "sandcap: %s\n", rerr[0] != '\0' ? rerr : strerror(-r));
		return SC_EXIT_FAILURE;
	}
	if (env_active(&R->o.env)) {
		if (env_build(&R->o.env, environ, &R->envp) < 0)
			return refuse(&R->sink, &R->rep, false, "cannot build the environment: %s",
				      strerror(ENOMEM));
		R->rep.env = R->envp;
	}

	r = R->pol_r;
	if (r == 0) {
		r = resolve_policy(TAKE_PTR(R->polfile), &R->pol);
		if (r == -E2BIG)
			snprintf(R->err, sizeof(R->err), "cannot resolve the policy %s for you: you "
				 "are in more groups than sandcap matches against its [group:] "
				 "sections (1024); ask the admin", SC_POLICY_PATH);
		else if (r < 0 && r != -ENOENT)
			snprintf(R->err, sizeof(R->err), "cannot resolve the policy %s for you: %s",
				 SC_POLICY_PATH, strerror(-r));
	}
	if (r < 0 && r != -ENOENT) {
		/* Even with --no-cgroup or --fallback: an admin's policy that cannot be read as
		 * written must not fail open (#14 item 10). */
		return refuse(&R->sink, &R->rep, false, "%s", R->err);
	}
	R->have_pol = r == 0;
	if (R->have_pol) {
		/* The front-end refuses what the helper would refuse, with the section named. */
		r = isolate_check_required(&R->o.iso, &R->pol, R->err, sizeof(R->err));
		if (r < 0)
			return refuse(&R->sink, &R->rep, false, "%s", R->err);
	}

	/* --net proxy: the proxy runs (outside the sandbox) before the helper hears its port. */
	/* A refusal like any other after the options: with its report (review). */
	if (net_run_prepare(&R->o, proxy, R->err, sizeof(R->err)) < 0)
		return refuse(&R->sink, &R->rep, false, "%s", R->err[0] != '\0' ? R->err :
			      "--net proxy: cannot start the proxy");
	return RUN_GO;
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
	R->refused = r == -EPERM;          /* the helper ran: the policy said no */
	/* Installed but unusable, and nothing cgroup-only asked for: rlimit mode, said aloud
	 * (the policy's default limits do not apply).  A missing helper is the normal state of
	 * a host without sandcap's helper: no warning. */
	if (r < 0 && r != -ENOENT && !o->quiet && o->memory == 0 && o->cpu_percent == 0 &&
	    o->pids == 0 && o->disk == 0) {
		/* One short line (#14 item 13): the reason up to its details, which sandcap
		 * doctor prints in full with the fix. */
		const char *why = err[0] != '\0' ? err : strerror(-r);
		int n = (int) strcspn(why, ";(");

		while (n > 0 && why[n - 1] == ' ')
			n--;
		fprintf(stderr, "sandcap: warning: the helper is unusable: %.*s "
			"(see sandcap doctor)\n", n, why);
	}
	if (r == 0) {
		struct sc_request req = {
			.memory = o->memory, .cpu_percent = o->cpu_percent, .pids = o->pids,
			.disk = o->disk, .timeout_ms = o->has_timeout ? o->timeout_ms : 0,
			.net = o->iso.net, .fs = o->iso.fs, .proxy_port = o->iso.proxy_port,
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
	fprintf(stderr, "sandcap: warning: --disk %s%s is more than --memory %s%s: the "
		"workspace's files are memory (tmpfs, charged to the sandbox's limit), so filling "
		"it ends in an OOM kill at %s\n", d, dsrc, m, msrc, m);
}

/* cgroup mode unless --no-cgroup, when the helper is there and takes us; else user-cgroup
 * mode; else rlimit mode, where the policy and the options allow it. */
static int
run_choose_mode(struct run *R)
{
	struct run_opts *o = &R->o;
	const struct policy_resolved *pol = R->have_pol ? &R->pol : NULL;
	int r;

	r = open_helper(R, pol);
	if (r < 0)
		return refuse(&R->sink, &R->rep, false, "the sandcap helper refused the sandbox: %s",
			      R->err[0] != '\0' ? R->err : strerror(-r));
	R->cgroup = r > 0;
	if (!R->cgroup && !o->no_cgroup) {
		r = try_user_cgroup(o, &R->rep, pol, R->rep.id, &R->ucg, R->err, sizeof(R->err));
		if (r < 0)
			return refuse(&R->sink, &R->rep, false, "%s", R->err);
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
			return refuse(&R->sink, &R->rep, false, "%s", why);
		if (pol != NULL && policy_timeout(o, pol, why, sizeof(why)) < 0)
			return refuse(&R->sink, &R->rep, false, "%s", why);
		if (r > 0 && check_nproc_binds(o, why, sizeof(why)) == 0)
			fallback_warning(o, R->err);
	}
	r = check_nproc_binds(o, R->err, sizeof(R->err));
	if (r < 0)
		return refuse(&R->sink, &R->rep, false, "%s", R->err);
	R->n_rl = plan_rlimits(o, &R->rep, R->rl);
	return RUN_GO;
}

/* --chdir, --output-limit, the isolation plan (Landlock, seccomp), the proxy's variables
 * and the protection of the supervisors; in rlimit and user-cgroup mode, the keeper. */
static int
run_plan(struct run *R, struct net_proxy *proxy)
{
	struct run_opts *o = &R->o;
	struct report *rep = &R->rep;
	int r;

	R->chdir_to = o->chdir;
	if (o->chdir != NULL && streq(o->chdir, "@workspace")) {
		/* Only the helper's workspace is bounded by --disk; there is none without it. */
		if (o->iso.workspace == NULL)
			return refuse(&R->sink, rep, false, "--chdir @workspace: there is no workspace "
				      "in %s mode (it is the helper's tmpfs, cgroup mode only); give "
				      "--disk and use the sandcap helper, or --chdir a directory",
				      rep->mode);
		R->chdir_to = o->iso.workspace;
	}

	if (o->output_limit > 0) {
		r = output_relay_open(&R->relay, o->output_limit, R->err, sizeof(R->err));
		if (r < 0)
			return refuse(&R->sink, rep, false, "%s", R->err);
		report_add_limit(rep, "output", o->output_limit);
	}

	r = isolate_plan(&o->iso, &R->plan, R->err, sizeof(R->err));
	if (r < 0)
		return refuse(&R->sink, rep, false, "%s", R->err);
	if (R->ucgroup)
		run_usercg_protect(rep, &R->plan);
	if (o->has_fs || o->iso.n_rw > 0 || o->iso.n_ro > 0)
		report_add_enforcement(rep, "fs", "%s", R->plan.fs_enforcement);
	if (o->has_net)
		report_add_enforcement(rep, "net", "%s", R->plan.net_enforcement);
	/* Always: what keeps the user's services (systemd --user, tmux) from working for it. */
	report_add_enforcement(rep, "unix", "%s", R->plan.unix_enforcement);
	rep->has_unix_refused = R->plan.unix_notify;
	r = net_run_environment(o, proxy, &R->envp);
	/* The report lists the command's environment as it gets it (setenv() or env_put()
	 * may have moved the array, also when a later one failed). */
	rep->env = R->envp != NULL ? R->envp : environ;
	if (r < 0)
		return refuse(&R->sink, rep, false, "--net proxy: cannot set the proxy variables: %s",
			      strerror(-r));
	/* The temp dir --fs ro|strict keeps writable is the sandbox's: the workspace in cgroup
	 * mode (run_spec_hooks() points TMPDIR there), else the TMPDIR its environment carries;
	 * sandcap's own TMPDIR would grant a directory the sandbox was never given. */
	o->iso.tmpdir = R->cgroup && o->iso.workspace != NULL ? o->iso.workspace
							      : env_value(rep->env, "TMPDIR");
	if (!R->plan.seccomp && !R->plan.landlock_signal &&
	    (o->has_timeout || R->cpu_budget_ms > 0) && !o->fallback)
		return refuse(&R->sink, rep, false, "--timeout/--cpu-time: this kernel has neither "
			      "seccomp filters nor Landlock ABI 6, so the sandbox could stop sandcap "
			      "and outlive the limit; pass --fallback to run so anyway");

	/* The supervisors (sandcap, its helper, the keeper) are off limits to the sandbox
	 * (protect.h, #14 item 3); not dumpable, so no /proc/PID/mem or ptrace without
	 * CAP_SYS_PTRACE.  Without the helper a keeper holds the tree if sandcap is killed
	 * (keeper.h, #14 item 11); in cgroup mode the helper does. */
	(void) prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (!R->cgroup) {
		/* The socket's name, for the keeper to remove should the supervisor be killed
		 * (else only the user's next sandcap ps would); none is no error here:
		 * run_ctl_open() warns. */
		if (control_path(R->rep.id, R->ctl.path, sizeof(R->ctl.path)) < 0)
			R->ctl.path[0] = '\0';
		r = keeper_start(&R->keeper, R->ctl.path);
		if (r < 0)
			return refuse(&R->sink, rep, false, "cannot start the keeper process: %s",
				      strerror(-r));
		protect_add(&R->plan.protect, R->keeper.keeper);
		R->plan.protect.pgid = R->keeper.home_pgrp;
	} else {
		protect_add(&R->plan.protect, R->sess.helper_pid);
		R->plan.protect.pgid = getpgrp();
	}
	protect_add(&R->plan.protect, getpid());
	/* The plan is final: the child only loads the filter (issue 19).  A build-time
	 * program is copied and patched here (seccomp-tpl.h), in every mode, before the child
	 * starts (it shares our memory until its exec: supervise.c). */
	r = isolate_seccomp_prepare(&R->plan, &o->iso, R->err, sizeof(R->err));
	if (r < 0)
		return refuse(&R->sink, rep, false, "%s", R->err);
	report_add_enforcement(rep, "supervisor", "%s", R->plan.protect_enforcement);
	return RUN_GO;
}

/* The supervisor's hooks for the mode: cgroup (the helper) or user-cgroup. */
static void
run_spec_hooks(struct run *R, struct sv_spec *spec)
{
	uint64_t pct;

	if (R->cgroup) {
		spec->tmpdir = R->o.iso.workspace;
		R->rep.tmpdir_set = spec->tmpdir != NULL;
		spec->exclude_pid = R->sess.helper_pid;
		spec->userdata = &R->sess;
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

/* Run the command under supervision, with its control socket (sandcap ps, sandcap kill). */
static int
run_supervised(struct run *R)
{
	struct run_opts *o = &R->o;
	int r;
	struct sv_spec spec = {
		.argv = o->argv,
		.rl = R->rl,
		.n_rl = R->n_rl,
		.iso = &o->iso,
		.plan = &R->plan,
		.has_timeout = o->has_timeout,
		.timeout_ms = o->timeout_ms,
		.grace_ms = o->grace_ms,
		.keep_fds = o->keep_fds,
		.envp = R->envp,
		.relay = o->output_limit > 0 ? &R->relay : NULL,
		.chdir = R->chdir_to,
		.keeper_pidfd = R->cgroup ? -1 : R->keeper.keeper_pidfd,
		.keeper_pid = R->cgroup ? 0 : R->keeper.keeper,
		/* cgroup mode: our own group, asked once in run_plan() (issue 19). */
		.home_pgrp = R->plan.protect.pgid,
	};

	/* Field by field: a compound literal would write the whole path buffer (issue 19). */
	R->ctl.id = R->rep.id;
	R->ctl.mode = R->rep.mode;
	R->ctl.argv = o->argv;
	R->ctl.sess = R->cgroup ? &R->sess : NULL;
	R->ctl.o = o;
	R->ctl.listen_fd = -EBADF;
	spec.open_extra = run_ctl_open;
	spec.on_extra = run_ctl_ready;
	spec.extra_userdata = &R->ctl;
	run_spec_hooks(R, &spec);
	start_error[0] = '\0';
	r = sv_run(&spec, &R->out);
	if (r < 0)
		return refuse(&R->sink, &R->rep, true, "%s%s", start_error[0] != '\0' ? start_error :
			      "cannot start the sandbox: ", start_error[0] != '\0' ? "" :
			      strerror(-r));
	return RUN_GO;
}

/* The final counters of the sandbox's cgroup, then its teardown. */
static void
run_collect(struct run *R)
{
	int r;

	if (R->ucgroup) {
		r = cgstats_read(R->ucg.leaf_fd, -EBADF, &R->rep.cg);
		if (r < 0)
			fprintf(stderr, "sandcap: warning: cannot read the sandbox's counters: %s\n",
				strerror(-r));
		r = usercg_destroy(&R->ucg, R->err, sizeof(R->err));
		if (r < 0) {
			fprintf(stderr, "sandcap: warning: teardown incomplete: %s\n", R->err);
			R->teardown_failed = true;
		}
		R->in.counters = R->rep.cg;
		R->in.cpu_budget_fired = R->out.cpu_budget_fired;
	}
	if (R->cgroup) {
		/* The final counters, before DESTROY closes the leaf. */
		r = cgstats_read(R->sess.leaf_fd, R->sess.ws_fd, &R->rep.cg);
		if (R->in.has_level)
			R->in.has_level = cgstats_read_level(R->sess.leaf_fd,
							     &R->in.level_after) == 0;
		if (r < 0)
			fprintf(stderr, "sandcap: warning: cannot read the sandbox's counters: %s\n",
				strerror(-r));
		if (R->trace->on && R->sess.ws_fd >= 0)
			trace_largest_file(R->sess.ws_fd, 0, &R->fsize_max);
		r = client_destroy(&R->sess, R->err, sizeof(R->err));
		if (r < 0) {
			if (R->err[0] == '\0')
				(void) strlcpy(R->err, strerror(-r), sizeof(R->err));
			fprintf(stderr, "sandcap: warning: teardown incomplete: %s\n", R->err);
			R->teardown_failed = true;
		}
		R->in.counters = R->rep.cg;
		R->in.disk_limit = R->sess.effective.disk;
		R->in.cpu_budget_fired = R->out.cpu_budget_fired;
	}
}

/* sandcap trace: add this run to the figures; after the last run, suggest limits. */
static int
run_finish_trace(struct run *R)
{
	const struct trace_opts *trace = R->trace;
	struct trace_result tr;
	struct trace_figs figs;
	FILE *f = report_sink_stream(&R->sink);
	int r;

	trace_figs_from_report(&R->rep, R->fsize_max, &figs);
	trace_acc_add(trace->acc, &figs);
	/* --runs N: more to go while every run so far went well. */
	if (trace->acc->runs < trace->runs && R->rep.v.kind == VERDICT_OK)
		return finish(&R->o, NULL, &R->rep);
	trace->acc->done = true;
	trace_suggest(trace->headroom_percent, &trace->acc->max, &tr);
	r = finish(&R->o, NULL, &R->rep);
	/* Human output on stderr: stdout belongs to the command (build.sh > build.log). */
	trace->print(stderr, f, trace, &R->rep, trace->acc, &tr);
	if (f != NULL && deliver(&R->sink) < 0)
		return SC_EXIT_FAILURE;
	return r;
}

/* --output-limit: what the sandbox wrote and the relay still holds goes on once the
 * sandbox is torn down, for as long as the output takes it, as a plain pipe would wait
 * for its reader; a --timeout bounds that wait (what is left of it, at least 5 s), so the
 * run still ends by its deadline, and so does a SIGTERM, SIGINT, SIGHUP or SIGQUIT to
 * sandcap (still blocked, read here through a signalfd) or the keeper's death.  What the
 * output never took is counted as dropped: the message and a warning say so, even with
 * -q (real-workload reviews: a reader that paused lost output while the report said ok;
 * a SIGTERM during the wait went unheard). */
static void
run_drain_output(struct run *R)
{
	const struct run_opts *o = &R->o;
	struct signalfd_siginfo si;
	int64_t wait_ms = -1;
	sigset_t end;
	int stop[2] = { -1, R->cgroup ? -1 : R->keeper.keeper_pidfd };

	if (o->output_limit == 0)
		return;
	sigemptyset(&end);
	for (const int *sig = (const int[]) { SIGTERM, SIGINT, SIGHUP, SIGQUIT, 0 }; *sig; sig++)
		sigaddset(&end, *sig);
	stop[0] = signalfd(-1, &end, SFD_CLOEXEC | SFD_NONBLOCK);
	/* An end asked for during the run (a signal, sandcap kill) bounds the wait as a
	 * timeout that has run out does: 5 s for the reader (review). */
	if (o->has_timeout || R->out.end_request.requested) {
		uint64_t left = o->has_timeout && !R->out.end_request.requested &&
				o->timeout_ms > R->out.wall_ms ? o->timeout_ms - R->out.wall_ms : 0;

		wait_ms = (int64_t) (left > 5000 ? left : 5000);
	}
	R->drain_end = output_relay_drain(&R->relay, wait_ms, stop);
	R->out.output_limit_hit |= R->relay.cap_passed;
	R->out.output_bytes = R->relay.passed;
	R->out.output_dropped = R->relay.dropped;
	if (R->drain_end == 2 && stop[0] >= 0 &&
	    read(stop[0], &si, sizeof(si)) == (ssize_t) sizeof(si))
		R->drain_sig = (int) si.ssi_signo;
	if (stop[0] >= 0)
		(void) close(stop[0]);
}

/* One more part of the report's message, after "; " (run_notes()). */
static void _printf_(2, 3)
add_note(struct run *R, const char *fmt, ...)
{
	size_t n = strlen(R->message);
	va_list ap;

	if (n + 2 >= sizeof(R->message))
		return;
	memcpy(R->message + n, "; ", 3);
	va_start(ap, fmt);
	(void) vsnprintf(R->message + n + 2, sizeof(R->message) - n - 2, fmt, ap);
	va_end(ap);
}

/* What the report's one sentence must not leave out (reviews of real workloads):
 * - work the command left running, ended with it, where it ended by itself (after a
 *   timeout, a kill or the OOM killer the verdict says why everything was ended):
 *   `tool & exit 0` read as a plain success;
 * - output its reader never took (run_drain_output()), and why the wait ended;
 * - limits reached on the way to a verdict that names none (a full workspace the command
 *   coped with, a fork bomb whose top shell exited 0);
 * - a teardown that failed (a helper killed meanwhile). */
static void
run_notes(struct run *R)
{
	const struct sv_outcome *out = &R->out;
	enum verdict_kind v = R->rep.v.kind;
	char what[64], hit[128] = "";

	if (out->killed_at_end > 0 && (v == VERDICT_OK || v == VERDICT_EXIT || v == VERDICT_SIGNAL))
		add_note(R, "%u more process%s ended by SIGKILL after it (what it leaves running "
			 "is killed with it)", out->killed_at_end, out->killed_at_end == 1 ? "" : "es");
	if (out->unix_refused > 0)
		add_note(R, "%lu connection%s to UNIX sockets whose listener is not a live process "
			 "of the sandbox refused (the first: %s; --unix host allows them)",
			 out->unix_refused,
			 out->unix_refused == 1 ? "" : "s", out->unix_refused_first);
	if (out->unix_undumpable > 0)
		add_note(R, "%lu connect() call%s refused (EPERM) because the calling process "
			 "made itself non-dumpable (prctl PR_SET_DUMPABLE 0), which keeps sandcap "
			 "from its socket; --unix host lets it connect by itself",
			 out->unix_undumpable, out->unix_undumpable == 1 ? "" : "s");
	if (out->output_dropped > 0) {
		const char *abbrev = R->drain_sig > 0 ? sigabbrev_np(R->drain_sig) : NULL;

		if (abbrev != NULL)
			snprintf(what, sizeof(what), "when a SIG%s to sandcap ended the wait", abbrev);
		add_note(R, "%llu bytes of its output were dropped: the output had not taken them %s",
			 (unsigned long long) out->output_dropped,
			 abbrev != NULL ? what : R->drain_end == 2 ? "when sandcap's keeper was killed" :
			 out->end_request.requested ? "5 s after the end sandcap was asked for" :
			 "when --timeout ran out");
	}
	for (int k = 0; k < _VERDICT_MAX && (v == VERDICT_OK || v == VERDICT_EXIT); k++)
		if (R->rep.v.limits_hit & (1u << k)) {
			if (hit[0] != '\0')
				(void) strlcat(hit, ", ", sizeof(hit));
			(void) strlcat(hit, verdict_name((enum verdict_kind) k), sizeof(hit));
		}
	if (hit[0] != '\0')
		add_note(R, "limits reached meanwhile: %s", hit);
	if (R->teardown_failed)
		add_note(R, "its teardown was incomplete: %s", R->err);
}

static int
run_steps(struct run *R, int argc, char **argv)
{
	const char *tsrc[3];
	int r;

	r = run_prepare(R, argc, argv, &R->proxy);
	if (r == RUN_GO)
		r = run_choose_mode(R);
	/* The proxy serves only this sandbox: its uid and, where there is one, its cgroup. */
	if (r == RUN_GO) {
		r = net_run_authorize(&R->o, &R->proxy, R->cgroup ? R->sess.leaf_fd :
				      R->ucgroup ? R->ucg.leaf_fd : -EBADF);
		r = r < 0 ? refuse(&R->sink, &R->rep, false, "--net proxy: cannot tell the proxy "
				   "whom to serve: %s", strerror(-r)) : RUN_GO;
	}
	if (r == RUN_GO)
		r = run_plan(R, &R->proxy);
	if (r == RUN_GO)
		r = run_supervised(R);
	if (r != RUN_GO)
		return r;
	run_collect(R);
	run_drain_output(R);
	net_run_report(&R->o, R->plan.net_enforcement, &R->proxy, &R->rep);
	for (int t = 0; t < 3; t++)
		tsrc[t] = R->cgroup ? R->sess.total_src[t] : R->have_pol ? R->pol.total_src[t] :
			  NULL;
	decide(&R->o, &R->out, &R->relay, tsrc, &R->in, &R->rep, R->message,
	       sizeof(R->message));
	run_notes(R);
	if (R->out.output_dropped > 0 && R->o.quiet)
		fprintf(stderr, "sandcap: warning: %llu bytes of the command's output were dropped "
			"(see the report)\n", (unsigned long long) R->out.output_dropped);
	if (R->trace->on)
		return run_finish_trace(R);
	return finish(&R->o, &R->sink, &R->rep);
}

int
run_main(int argc, char **argv, const struct trace_opts *trace)
{
	/* Static, not on the stack (issue 19): struct run is about 100 KiB, mostly arrays a
	 * run never fills; on the stack every page of it was probed and zeroed (25 page
	 * faults per run), here only the pages a run writes are.  Zeroed again only for the
	 * next run of `sandcap trace --runs N`. */
	static struct run storage;
	/* In .data: in .bss beside storage, reading it first mapped that page read-only, and
	 * the first write to storage faulted again (issue 19). */
	static _run_data_ bool used;
	struct run *R = &storage;
	int r;

	if (used)
		memset(R, 0, sizeof(*R));
	used = true;
	R->trace = trace;
	R->rep.version = SC_VERSION;
	R->rep.mode = "rlimit";
	R->sink = (struct report_sink) REPORT_SINK_INIT;
	R->relay.child_fd[0] = R->relay.child_fd[1] = -1;
	for (size_t i = 0; i < ELEMENTSOF(R->relay.s); i++)
		R->relay.s[i].in = R->relay.s[i].out = -1;
	R->keeper.keeper_pidfd = -EBADF;
	R->ctl.listen_fd = -EBADF;
	client_init(&R->sess);
	usercg_init(&R->ucg);
	r = run_steps(R, argc, argv);
	run_close(R);
	return r;
}
