/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "commands.h"
#include "verdict.h"

static const char *const verdict_names[_VERDICT_MAX] = {
	[VERDICT_OK]          = "ok",
	[VERDICT_EXIT]        = "exit",
	[VERDICT_SIGNAL]      = "signal",
	[VERDICT_TIMEOUT]     = "timeout",
	[VERDICT_CPU_TIME]    = "cpu-time",
	[VERDICT_MEMORY]      = "memory",
	[VERDICT_PIDS]        = "pids",
	[VERDICT_FSIZE]       = "fsize",
	[VERDICT_DISK]        = "disk",
	[VERDICT_SETUP_ERROR] = "setup-error",
	[VERDICT_KILLED]      = "killed",
	[VERDICT_OUTPUT]      = "output",
};

const char *
verdict_name(enum verdict_kind k)
{
	if ((unsigned) k >= _VERDICT_MAX)
		return "unknown";
	return verdict_names[k];
}

#define HIT(k) (1u << (k))

void
verdict_decide(const struct verdict_input *in, struct verdict *ret)
{
	const struct cg_usage *c = &in->counters;
	struct verdict v = { .kind = VERDICT_OK, .exit_code = -1, .signal = 0, .sc_exit = 0 };
	bool failed;

	if (in->setup != VERDICT_SETUP_NONE) {
		v.kind = VERDICT_SETUP_ERROR;
		if (in->setup == VERDICT_SETUP_FAILED)
			v.sc_exit = SC_EXIT_FAILURE;
		else if (in->exec_errno == ENOENT)
			v.sc_exit = SC_EXIT_NOTFOUND;
		else
			v.sc_exit = SC_EXIT_NOEXEC;
		*ret = v;
		return;
	}

	if (in->signaled) {
		v.signal = in->signal;
		v.sc_exit = 128 + in->signal;
	} else {
		v.exit_code = in->exit_code;
		v.sc_exit = in->exit_code & 0xff;
	}
	failed = in->signaled || in->exit_code != 0;

	/* Evidence, each on its own; the verdict then picks the most specific one. */
	if (in->timeout_fired)
		v.limits_hit |= HIT(VERDICT_TIMEOUT);
	if (in->output_limit_hit)
		v.limits_hit |= HIT(VERDICT_OUTPUT);
	/* RLIMIT_CPU's signals count only for a limit this run set: a SIGXCPU from a limit
	 * inherited from sandcap's caller (or sent by hand without --cpu-time) is a plain
	 * signal.  A SIGXCPU is taken at its word under --cpu-time: the kernel compares the
	 * limit with its tick samples of CPU time, and rusage's exact run time has read 30%
	 * under them on a loaded host, so the CPU time cannot tell one sent by hand apart.
	 * A SIGKILL needs the CPU time as evidence, for it is what anyone may send. */
	if (in->cpu_budget_fired ||
	    (in->signaled && in->signal == SIGXCPU && in->cpu_limit_ms > 0) ||
	    (in->signaled && in->signal == SIGKILL && in->cpu_limit_ms > 0 &&
	     in->main_cpu_ms >= in->cpu_limit_ms))
		v.limits_hit |= HIT(VERDICT_CPU_TIME);
	/* A memory verdict needs oom_kill > 0 with oom > 0 in the leaf (a global OOM kill
	 * also counts in oom_kill but not in the leaf's oom). */
	if (c->has_memory_events && c->oom_kill > 0 && c->oom > 0)
		v.limits_hit |= HIT(VERDICT_MEMORY);
	if (c->has_pids_events && c->pids_max_events > 0)
		v.limits_hit |= HIT(VERDICT_PIDS);
	/* No evidence but the signal: it counts only when this run set RLIMIT_FSIZE. */
	if (in->signaled && in->signal == SIGXFSZ && in->fsize_limit)
		v.limits_hit |= HIT(VERDICT_FSIZE);
	/* The workspace is full when its blocks or its inodes are all used: either way
	 * nothing more can be stored in it (ENOSPC). */
	if (c->has_disk_used && in->disk_limit > 0 &&
	    (c->disk_used >= in->disk_limit || c->disk_inodes_out))
		v.limits_hit |= HIT(VERDICT_DISK);

	if (v.limits_hit & HIT(VERDICT_TIMEOUT)) {
		/* Whatever the command died of after our SIGTERM, the timer decided. */
		v.kind = VERDICT_TIMEOUT;
		v.sc_exit = SC_EXIT_TIMEOUT;
	} else if (v.limits_hit & HIT(VERDICT_OUTPUT)) {
		/* sandcap ended it (SIGKILL) for its output, and what it wrote past the cap is
		 * lost: 128+9 also when the main process had exited before the kill, even with
		 * 0, or a script would take a cut output for a success (its own status stays
		 * in exit_code). */
		v.kind = VERDICT_OUTPUT;
		v.sc_exit = 128 + SIGKILL;
	} else if (v.limits_hit & HIT(VERDICT_CPU_TIME)) {
		v.kind = VERDICT_CPU_TIME;
	} else if (failed && (v.limits_hit & HIT(VERDICT_MEMORY))) {
		v.kind = VERDICT_MEMORY;
	} else if (v.limits_hit & HIT(VERDICT_FSIZE)) {
		v.kind = VERDICT_FSIZE;
	} else if (failed && (v.limits_hit & HIT(VERDICT_DISK))) {
		v.kind = VERDICT_DISK;
	} else if (failed && (v.limits_hit & HIT(VERDICT_PIDS))) {
		v.kind = VERDICT_PIDS;
	} else if (in->end_requested) {
		/* Not a limit: someone asked it to end (not in limits_hit). */
		v.kind = VERDICT_KILLED;
	} else if (in->signaled) {
		v.kind = VERDICT_SIGNAL;
	} else if (in->exit_code != 0) {
		v.kind = VERDICT_EXIT;
	} else {
		v.kind = VERDICT_OK;
	}
	/* The limits are per process: one that killed another process of the sandbox was hit
	 * as well, though the verdict says how the main process ended. */
	if (in->other_sigxcpu > 0 && in->cpu_limit_ms > 0)
		v.limits_hit |= HIT(VERDICT_CPU_TIME);
	if (in->other_sigxfsz > 0 && in->fsize_limit)
		v.limits_hit |= HIT(VERDICT_FSIZE);
	*ret = v;
}
