/* SPDX-License-Identifier: MIT */
/* The notes the report's one sentence must not leave out, after the verdict's words
 * (message.c): where a SIGXCPU or SIGXFSZ came from, the per-process limits, work left
 * running, dropped output, limits reached on the way, a failed teardown. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "macro.h"
#include "parse-util.h"
#include "report/verdict.h"
#include "run/args.h"
#include "run/run-int.h"
#include "supervise/supervise.h"

/* A SIGXCPU or SIGXFSZ that is not this run's limit (verdict signal): say where it may have
 * come from, so nobody looks for a limit the run did not set. */
void
rlimit_signal_note(const struct run_opts *o, const struct verdict_input *in, int sig, char *buf,
		   size_t bufsz)
{
	size_t n = strlen(buf);
	struct rlimit lim;
	char b[32];

	if (sig != SIGXCPU && sig != SIGXFSZ)
		return;
	if ((sig == SIGXCPU && in->cpu_limit_ms > 0) || (sig == SIGXFSZ && in->fsize_limit))
		return; /* not reached: those are verdicts cpu-time and fsize */
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
	snprintf(buf + n, bufsz - n,
		 " (%s %s inherited from sandcap's caller, not a limit of "
		 "this run's)",
		 sig == SIGXCPU ? "RLIMIT_CPU" : "RLIMIT_FSIZE", b);
}

/* The per-process limits (RLIMIT_CPU, _FSIZE, _AS) bind each process alone, so one may kill
 * a process below the main one while the main process ends well.  A death by SIGXCPU or
 * SIGXFSZ that sandcap reaped is named; otherwise the message says once, for the limits
 * set, that they are per process (a process reaped by a parent of its own in the sandbox,
 * or an allocation refused under RLIMIT_AS, cannot be seen from here). */
void
per_process_note(const struct run_opts *o, const struct verdict_input *in, const struct verdict *v,
		 char *buf, size_t bufsz)
{
	static const struct {
		enum run_rlimit rl;
		const char *name;
	} lims[] = { { RUN_RL_CPU, "RLIMIT_CPU" },
		     { RUN_RL_FSIZE, "RLIMIT_FSIZE" },
		     { RUN_RL_AS, "RLIMIT_AS" } };
	size_t n = strlen(buf), k = 0;

	if (v->kind == VERDICT_SETUP_ERROR)
		return;
	if (in->other_sigxcpu > 0 && in->cpu_limit_ms > 0)
		n += (size_t) snprintf(buf + n, n < bufsz ? bufsz - n : 0,
				       "; %u other process%s "
				       "killed by SIGXCPU at the CPU time limit (RLIMIT_CPU, per "
				       "process)",
				       in->other_sigxcpu,
				       in->other_sigxcpu == 1 ? " was" : "es were");
	if (in->other_sigxfsz > 0 && in->fsize_limit)
		n += (size_t) snprintf(
			buf + n, n < bufsz ? bufsz - n : 0,
			"; %u other process%s "
			"killed by SIGXFSZ at the file size limit (RLIMIT_FSIZE, per "
			"process)",
			in->other_sigxfsz, in->other_sigxfsz == 1 ? " was" : "es were");
	if (v->kind != VERDICT_OK && v->kind != VERDICT_EXIT && v->kind != VERDICT_SIGNAL)
		return;
	for (size_t i = 0; i < ELEMENTSOF(lims); i++) {
		const struct run_rlimit_req *r = &o->rl[lims[i].rl];

		if (!r->set || n + 1 >= bufsz)
			continue;
		n += (size_t) snprintf(buf + n, bufsz - n, "%s%s (%s)",
				       k++ == 0 ? " (per-process limits: " : ", ",
				       r->source != NULL ? r->source : "?", lims[i].name);
	}
	if (k > 0 && n + 1 < bufsz)
		snprintf(buf + n, bufsz - n,
			 "; a process other than the main one that reached "
			 "one is named here only when sandcap reaped it)");
}

/* One more part of the report's message, after "; " (run_notes()). */
static void _printf_(2, 3) add_note(struct run *R, const char *fmt, ...)
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

/* What the report's one sentence must not leave out:
 * - work the command left running, ended with it, where it ended by itself (after a
 *   timeout, a kill or the OOM killer the verdict says why everything was ended):
 *   `tool & exit 0` read as a plain success;
 * - output its reader never took (run_drain_output()), and why the wait ended;
 * - limits reached on the way to a verdict that names none (a full workspace the command
 *   coped with, a fork bomb whose top shell exited 0);
 * - a teardown that failed (a helper killed meanwhile). */
void
run_notes(struct run *R)
{
	const struct sv_outcome *out = &R->out;
	enum verdict_kind v = R->rep.v.kind;
	char what[64], hit[128] = "";

	if (out->killed_at_end > 0 && (v == VERDICT_OK || v == VERDICT_EXIT || v == VERDICT_SIGNAL))
		add_note(R,
			 "%u more process%s ended by SIGKILL after it (what it leaves running "
			 "is killed with it)",
			 out->killed_at_end, out->killed_at_end == 1 ? "" : "es");
	if (out->unix_refused > 0)
		add_note(R,
			 "%lu connection%s to UNIX sockets no process of the sandbox holds "
			 "refused (the first: %s; --unix host allows them)",
			 out->unix_refused, out->unix_refused == 1 ? "" : "s",
			 out->unix_refused_first);
	if (out->unix_undumpable > 0)
		add_note(R,
			 "%lu connect() call%s refused (EPERM) because the calling process "
			 "made itself non-dumpable (prctl PR_SET_DUMPABLE 0), which keeps sandcap "
			 "from its socket; --unix host lets it connect by itself",
			 out->unix_undumpable, out->unix_undumpable == 1 ? "" : "s");
	if (out->output_dropped > 0) {
		const char *abbrev = R->drain_sig > 0 ? sigabbrev_np(R->drain_sig) : NULL;

		if (abbrev != NULL)
			snprintf(what, sizeof(what), "when a SIG%s to sandcap ended the wait",
				 abbrev);
		add_note(R,
			 "%llu bytes of its output were dropped: the output had not taken them %s",
			 (unsigned long long) out->output_dropped,
			 abbrev != NULL               ? what
			 : R->drain_end == 2          ? "when sandcap's keeper was killed"
			 : out->end_request.requested ? "5 s after the end sandcap was asked for"
						      : "when --timeout ran out");
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
