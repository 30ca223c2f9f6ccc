/* SPDX-License-Identifier: MIT */
/* The verdict from the run's evidence (report/verdict.c) and the report's one sentence
 * that says it in English; the notes it must not leave out are in message-notes.c. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "cgroup/cgstats.h"
#include "log.h"
#include "macro.h"
#include "parse-util.h"
#include "policy.h"
#include "report/report.h"
#include "report/verdict.h"
#include "run/args.h"
#include "run/exec-hint.h"
#include "run/run-int.h"
#include "run/run.h"
#include "run/usercg-run.h"
#include "supervise/output.h"
#include "supervise/supervise.h"

const char *
strip_sandcap_prefix(const char *s)
{
	return strneq(s, "sandcap: ", 9) ? s + 9 : s;
}

/* What a verdict's sentence is made from, and where it goes. */
struct msg_ctx {
	const struct run_opts *o;
	const struct sv_outcome *out;
	const struct verdict_input *in;
	const struct verdict *v;
	const struct cg_usage *cg;
	const char *const *total_src; /* the policy sections of the user's totals */
	const char *sig;              /* the verdict's signal's name, or NULL */
	char *buf;
	size_t bufsz;
};

/* --timeout fired: how the sandbox ended after SIGTERM. */
static void
timeout_message(const struct msg_ctx *m)
{
	const struct sv_outcome *out = m->out;
	const char *sig = m->sig;
	char *buf = m->buf;
	size_t bufsz = m->bufsz;
	char a[32], b[32], g[32];

	format_duration_ms(out->wall_ms, a, sizeof(a));
	format_duration_ms(m->o->timeout_ms, b, sizeof(b));
	format_duration_ms(m->o->grace_ms, g, sizeof(g));
	if (out->grace_expired && out->exited)
		/* The main process ended on SIGTERM; what it left behind needed the SIGKILL. */
		snprintf(
			buf, bufsz,
			"stopped after %s (limit %s): the command exited with "
			"status %d after SIGTERM; what was left of the sandbox was killed (SIGKILL) "
			"after the %s grace",
			a, b, out->exit_code, g);
	else if (out->grace_expired && out->signaled && out->signal != SIGKILL)
		snprintf(
			buf, bufsz,
			"stopped after %s (limit %s): SIGTERM, the command was "
			"killed by SIG%s; what was left of the sandbox was killed (SIGKILL) after the "
			"%s grace",
			a, b, sig != NULL ? sig : "?", g);
	else if (out->grace_expired)
		snprintf(buf, bufsz,
			 "killed after %s (limit %s): SIGTERM, then SIGKILL "
			 "after the %s grace",
			 a, b, g);
	else if (out->signaled && out->signal != SIGTERM)
		/* Not our SIGKILL (the grace had not expired): say what ended it. */
		snprintf(buf, bufsz,
			 "stopped after %s (limit %s): SIGTERM, then killed by "
			 "SIG%s before the %s grace was over",
			 a, b, sig != NULL ? sig : "?", g);
	else if (out->exited)
		snprintf(buf, bufsz,
			 "stopped after %s (limit %s): exited with status %d "
			 "after SIGTERM",
			 a, b, out->exit_code);
	else
		snprintf(buf, bufsz, "stopped after %s (limit %s): ended on SIGTERM", a, b);
}

/* Ended by a signal sandcap forwarded or by sandcap kill: who asked, and how it ended. */
static void
killed_message(const struct msg_ctx *m)
{
	const struct sv_outcome *out = m->out;
	const struct verdict *v = m->v;
	const char *sig = m->sig;
	char *buf = m->buf;
	size_t bufsz = m->bufsz;
	const char *rs = sigabbrev_np(out->end_request.signal);
	char how[128];

	if (v->signal > 0)
		snprintf(how, sizeof(how), "was killed by signal %d (SIG%s)", v->signal,
			 sig != NULL ? sig : "?");
	else
		snprintf(how, sizeof(how), "exited with status %d", v->exit_code);
	if (out->end_request.keeper_died)
		snprintf(buf, bufsz,
			 "sandcap was killed (its first process, pid %d, which the "
			 "shell waits for), so the sandbox was ended: the command %s",
			 (int) out->end_request.pid, how);
	/* A request, not necessarily the end: the command may handle or ignore it, and the
	 * last part says how it ended. */
	else if (out->end_request.by_control)
		snprintf(buf, bufsz,
			 "'sandcap kill' (SIG%s, from pid %d, uid %u) asked it to end, "
			 "then the command %s",
			 rs != NULL ? rs : "?", (int) out->end_request.pid,
			 (unsigned) out->end_request.uid, how);
	else if (out->end_request.pid == 0)
		snprintf(buf, bufsz,
			 "SIG%s from the kernel (e.g. the terminal hung up), forwarded "
			 "by sandcap, then the command %s",
			 rs != NULL ? rs : "?", how);
	else
		snprintf(buf, bufsz,
			 "SIG%s sent to sandcap by pid %d (uid %u), forwarded, then the "
			 "command %s",
			 rs != NULL ? rs : "?", (int) out->end_request.pid,
			 (unsigned) out->end_request.uid, how);
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

/* A call of a session: the cgroup above its leaf is the session's (cgroup mode: the level,
 * its calls and workspace together; user-cgroup mode: the scope), whose memory or pids were
 * reached, not the call's own limit nor the user's total. */
static void
session_total_message(const struct msg_ctx *m)
{
	const struct cg_level *l = &m->in->session_after;
	bool mem = m->v->kind == VERDICT_SESSION_MEMORY;
	const char *scope = run_usercg_session_scope();
	char t[32], peak[32] = "an unknown part of it", what[PATH_MAX + 64];

	if (mem && l->has_limits && l->memory_max != UINT64_MAX)
		format_size(l->memory_max, t, sizeof(t));
	else if (!mem && l->has_limits && l->pids_max != UINT64_MAX)
		snprintf(t, sizeof(t), "%llu processes", (unsigned long long) l->pids_max);
	else
		snprintf(t, sizeof(t), "its limit");
	if (mem && m->cg->has_memory_peak)
		format_size(m->cg->memory_peak, peak, sizeof(peak));
	else if (!mem && m->cg->has_pids_peak)
		snprintf(peak, sizeof(peak), "%llu", (unsigned long long) m->cg->pids_peak);
	if (run_session_level() != NULL)
		snprintf(what, sizeof(what), "session cgroup %s and its workspace",
			 run_session_level());
	else
		snprintf(what, sizeof(what), "session scope %s", scope != NULL ? scope : "?");
	snprintf(m->buf, m->bufsz,
		 "the session's %s was reached (%s for all of the calls of %s together, set by "
		 "sandcap session start %s): %s, which held at most %s",
		 mem ? "memory" : "pids", t, what, mem ? "--memory" : "--pids",
		 mem ? "the kernel's OOM killer at the session's cgroup (its memory.events) "
		       "ended this call"
		     : "forks were refused in this call",
		 peak);
}

/* The per-user level's limit reached: which total, its value and section, and what this
 * sandbox held of it. */
static void
total_message(const struct msg_ctx *m)
{
	const struct cg_usage *cg = m->cg;
	const char *const *total_src = m->total_src;
	char *buf = m->buf;
	size_t bufsz = m->bufsz;
	const struct cg_level *l = &m->in->level_after;
	char t[32], own[32], peak[32];

	if (m->v->kind == VERDICT_SESSION_MEMORY ||
	    (m->v->kind == VERDICT_TOTAL_PIDS && verdict_pids_at_session(m->in))) {
		session_total_message(m);
		return;
	}
	if (m->v->kind == VERDICT_TOTAL_MEMORY) {
		format_size(l->memory_max, t, sizeof(t));
		format_size(cg->memory_peak, peak, sizeof(peak));
		snprintf(buf, bufsz,
			 "your total_memory was reached (%s for all of your sandboxes "
			 "together, set by %s): the kernel's OOM killer at that level "
			 "(memory.events.local oom of the per-user cgroup) ended this sandbox, "
			 "which held at most %s",
			 l->memory_max != UINT64_MAX ? t : "its limit",
			 total_source(total_src, POLICY_TOTAL_MEMORY),
			 cg->has_memory_peak ? peak : "an unknown part of it");
		return;
	}
	snprintf(t, sizeof(t), "%llu", (unsigned long long) l->pids_max);
	snprintf(own, sizeof(own), "%llu", (unsigned long long) cg->pids_max);
	if (cg->has_pids_events && cg->pids_max_events > 0)
		snprintf(buf, bufsz,
			 "your total_pids was reached (%s processes for all of your "
			 "sandboxes together, set by %s): %llu fork%s refused in this sandbox, "
			 "which had at most %llu of its own limit %s",
			 t, total_source(total_src, POLICY_TOTAL_PIDS),
			 (unsigned long long) cg->pids_max_events,
			 cg->pids_max_events == 1 ? " was" : "s were",
			 (unsigned long long) cg->pids_peak,
			 cg->has_pids_max && cg->pids_max != UINT64_MAX ? own : "(none)");
	else
		snprintf(buf, bufsz,
			 "your total_pids (%s processes for all of your sandboxes "
			 "together, set by %s) refused forks while it ran (pids.events.local of "
			 "the per-user cgroup: of this sandbox or another of yours)",
			 t, total_source(total_src, POLICY_TOTAL_PIDS));
}

/* An OOM kill in the leaf that neither the leaf's limit nor the user's total explains. */
static const char *
outside_oom(const struct verdict_input *in, const struct cg_usage *cg)
{
	if (!cg->has_memory_events || cg->oom_kill == 0 || cg->oom > 0)
		return "";
	if (in->has_session && in->session_after.has_oom_local)
		return ": an OOM kill from outside the sandbox, not its limit nor its session's: "
		       "the host's global OOM killer (the machine ran out of memory) or a memory "
		       "limit above the session's cgroup";
	if (in->has_level && in->level_after.has_oom_local)
		return ": an OOM kill from outside the sandbox, not its limit nor your "
		       "total_memory: the host's global OOM killer (the machine ran out of "
		       "memory) or a memory limit above sandcap's cgroups";
	return ": an OOM kill from outside the sandbox, not its own limit: the host's global "
	       "OOM killer (the machine ran out of memory) or a memory limit of a cgroup above "
	       "the sandbox";
}

static void
exit_message(const struct msg_ctx *m)
{
	const struct cg_usage *cg = m->cg;

	snprintf(m->buf, m->bufsz, "the command exited with status %d%s", m->v->exit_code,
		 cg->has_memory_events && cg->oom > 0 && cg->oom_kill == 0
			 ? " (some allocations failed at the memory limit: memory.events oom > 0, "
			   "nothing was OOM-killed)"
			 : "");
}

static void
signal_message(const struct msg_ctx *m)
{
	/* oom_kill counts kills by any OOM killer; without oom in the leaf or in the
	 * per-user level it came from above them: the kernel does not say to sandcap
	 * whether that was the host's global OOM or a limit above (docs/kernel.md 2). */
	snprintf(m->buf, m->bufsz, "the command was killed by signal %d (SIG%s)%s", m->v->signal,
		 m->sig != NULL ? m->sig : "?", outside_oom(m->in, m->cg));
	rlimit_signal_note(m->o, m->in, m->v->signal, m->buf, m->bufsz);
}

static void
cpu_time_message(const struct msg_ctx *m)
{
	uint64_t asked = m->o->rl[RUN_RL_CPU].value, applied = m->in->cpu_limit_ms;
	char b[32], esc[128];

	if (m->out->cpu_budget_fired) {
		snprintf(m->buf, m->bufsz, "the sandbox's CPU time budget was spent: killed");
		return;
	}
	/* The limit applied, in RLIMIT_CPU's whole seconds, and what was asked if that
	 * was rounded up. */
	format_duration_ms(applied, b, sizeof(b));
	format_duration_ms(asked, esc, sizeof(esc));
	snprintf(m->buf, m->bufsz,
		 "CPU time limit reached (limit %s per process, "
		 "RLIMIT_CPU%s%s%s): killed by SIG%s",
		 b, applied != asked ? ", whole seconds: --cpu-time " : "",
		 applied != asked ? esc : "", applied != asked ? " rounded up" : "",
		 m->sig != NULL ? m->sig : "?");
}

static void
fsize_message(const struct msg_ctx *m)
{
	const struct run_rlimit_req *l = &m->o->rl[RUN_RL_FSIZE];
	char b[32];

	format_size(l->value, b, sizeof(b));
	snprintf(m->buf, m->bufsz,
		 "file size limit reached (limit %s, %s, RLIMIT_FSIZE): "
		 "killed by SIGXFSZ",
		 b, l->source != NULL ? l->source : "--fsize");
}

static void
setup_error_message(const struct msg_ctx *m)
{
	const struct run_opts *o = m->o;
	const char *dir;
	char hint[320], esc[128];

	if (m->out->setup != SV_SETUP_EXEC) {
		snprintf(m->buf, m->bufsz, "%s", strip_sandcap_prefix(m->out->setup_msg));
		return;
	}
	/* The directory the child changed to (run_chdir()). */
	dir = o->chdir != NULL && streq(o->chdir, "@workspace") ? o->iso.workspace : o->chdir;
	exec_hint(o->argv[0], dir, m->out->setup_errno, o->iso.fs, hint, sizeof(hint));
	snprintf(m->buf, m->bufsz, "cannot execute '%s': %s%s",
		 log_escape(o->argv[0], esc, sizeof(esc)), strerror(m->out->setup_errno), hint);
}

static void
memory_message(const struct msg_ctx *m)
{
	uint64_t limit = m->o->memory;
	char b[32];

	/* Not "N processes": memory.events oom_kill counts kill events, and with
	 * memory.oom.group (set by the helper) the chosen victim counts twice, so
	 * one killed process reads 2 (docs/report.md, usage.oom_kills). */
	format_size(limit, b, sizeof(b));
	snprintf(m->buf, m->bufsz,
		 "memory limit hit%s%s%s: the kernel's OOM killer ended the "
		 "sandbox",
		 limit > 0 ? " (limit " : "", limit > 0 ? b : "", limit > 0 ? ")" : "");
	/* The workspace is tmpfs: its files are pages charged to the leaf (no swap), and
	 * they outlive the kill.  A quarter of the limit or more is named, or a full
	 * workspace reads as the command's own appetite. */
	if (limit > 0 && m->cg->has_disk_used && m->cg->disk_used >= limit / 4) {
		size_t n = strlen(m->buf);

		format_size(m->cg->disk_used, b, sizeof(b));
		snprintf(m->buf + n, m->bufsz - n,
			 "; the workspace's files held %s of it: they "
			 "are memory (tmpfs), charged to --memory",
			 b);
	}
}

static void
pids_message(const struct msg_ctx *m)
{
	snprintf(m->buf, m->bufsz, "process limit hit: %llu fork%s refused",
		 (unsigned long long) m->cg->pids_max_events,
		 m->cg->pids_max_events == 1 ? " was" : "s were");
}

static void
disk_message(const struct msg_ctx *m)
{
	const struct cg_usage *cg = m->cg;
	char used[32], limit[32];

	format_size(cg->disk_used, used, sizeof(used));
	format_size(m->in->disk_limit, limit, sizeof(limit));
	if (cg->disk_inodes_out)
		/* Blocks to spare, but no file can be made: say which ran out. */
		snprintf(m->buf, m->bufsz,
			 "the workspace is out of inodes: %llu files, "
			 "directories and links, its most (one per 4 KiB of --disk, 4096 to "
			 "1048576); %s of %s used",
			 (unsigned long long) cg->disk_inodes, used, limit);
	else
		snprintf(m->buf, m->bufsz, "the workspace is full (%s used of %s)", used, limit);
}

static void
output_message(const struct msg_ctx *m)
{
	char b[32];

	format_size(m->o->output_limit, b, sizeof(b));
	snprintf(m->buf, m->bufsz,
		 "output limit reached: %llu bytes of stdout and stderr passed "
		 "(limit %s), then the sandbox was ended",
		 (unsigned long long) m->out->output_bytes, b);
}

/* One sentence per verdict. */
typedef void verdict_message_fn(const struct msg_ctx *m);
static verdict_message_fn *const verdict_messages[_VERDICT_MAX] = {
	[VERDICT_OK] = exit_message,
	[VERDICT_EXIT] = exit_message,
	[VERDICT_SIGNAL] = signal_message,
	[VERDICT_TIMEOUT] = timeout_message,
	[VERDICT_CPU_TIME] = cpu_time_message,
	[VERDICT_MEMORY] = memory_message,
	[VERDICT_PIDS] = pids_message,
	[VERDICT_FSIZE] = fsize_message,
	[VERDICT_DISK] = disk_message,
	[VERDICT_SETUP_ERROR] = setup_error_message,
	[VERDICT_KILLED] = killed_message,
	[VERDICT_OUTPUT] = output_message,
	[VERDICT_TOTAL_MEMORY] = total_message,
	[VERDICT_TOTAL_PIDS] = total_message,
	[VERDICT_SESSION_MEMORY] = total_message,
};

static void
compose_message(const struct run_opts *o, const struct sv_outcome *out,
		const struct verdict_input *in, const struct verdict *v, const struct cg_usage *cg,
		const char *const *total_src, char *buf, size_t bufsz)
{
	const struct msg_ctx m = {
		.o = o,
		.out = out,
		.in = in,
		.v = v,
		.cg = cg,
		.total_src = total_src,
		.sig = v->signal > 0 ? sigabbrev_np(v->signal) : NULL,
		.buf = buf,
		.bufsz = bufsz,
	};

	if ((unsigned) v->kind < _VERDICT_MAX && verdict_messages[v->kind] != NULL)
		verdict_messages[v->kind](&m);
	else
		snprintf(buf, bufsz, "%s limit hit", verdict_name(v->kind));
}

static uint64_t
tv_ms(const struct timeval *tv)
{
	return (uint64_t) tv->tv_sec * 1000 + (uint64_t) tv->tv_usec / 1000;
}

/* The verdict from the evidence (in: the cgroup's part, already filled), its message,
 * and the usage figures, into rep. */
void
run_decide(const struct run_opts *o, const struct sv_outcome *out, const struct output_relay *relay,
	   const char *const *total_src, struct verdict_input *in, struct report *rep,
	   char *message, size_t msglen)
{
	in->setup = out->setup == SV_SETUP_EXEC     ? VERDICT_SETUP_EXEC
		    : out->setup == SV_SETUP_FAILED ? VERDICT_SETUP_FAILED
						    : VERDICT_SETUP_NONE;
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
			report_add_enforcement(rep, "output",
					       "sandcap (stdout and stderr, one "
					       "pipe: %s)",
					       relay->s[0].no_splice ? "read/write" : "splice");
		else
			report_add_enforcement(rep, "output", "sandcap (stdout: %s, stderr: %s)",
					       relay->s[0].no_splice ? "read/write" : "splice",
					       relay->s[1].no_splice ? "read/write" : "splice");
	}
	in->end_requested = out->end_request.requested;
	if (out->end_request.requested) {
		rep->killed_by.set = true;
		rep->killed_by.by = out->end_request.by_control    ? "sandcap kill"
				    : out->end_request.keeper_died ? "sandcap killed"
								   : "signal";
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
