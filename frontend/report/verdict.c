/* SPDX-License-Identifier: MIT */
/* The verdict of one sandbox run, from evidence only (verdict.h). */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "exit.h"
#include "report/verdict.h"

static const char *const verdict_names[_VERDICT_MAX] = {
	[VERDICT_OK] = "ok",
	[VERDICT_EXIT] = "exit",
	[VERDICT_SIGNAL] = "signal",
	[VERDICT_TIMEOUT] = "timeout",
	[VERDICT_CPU_TIME] = "cpu-time",
	[VERDICT_MEMORY] = "memory",
	[VERDICT_PIDS] = "pids",
	[VERDICT_FSIZE] = "fsize",
	[VERDICT_DISK] = "disk",
	[VERDICT_SETUP_ERROR] = "setup-error",
	[VERDICT_KILLED] = "killed",
	[VERDICT_OUTPUT] = "output",
	[VERDICT_TOTAL_MEMORY] = "total-memory",
	[VERDICT_TOTAL_PIDS] = "total-pids",
	[VERDICT_SESSION_MEMORY] = "session-memory",
};

const char *
verdict_name(enum verdict_kind k)
{
	if ((unsigned) k >= _VERDICT_MAX)
		return "unknown";
	return verdict_names[k];
}

#define HIT(k) (1u << (k))

/* A level's own limit made the kernel's OOM killer run while the command ran
 * (memory.events.local "oom" of that level grew: an OOM of a leaf counts in the leaf's,
 * a global one in none). */
static bool
oom_at(bool has, const struct cg_level *a, const struct cg_level *b)
{
	return has && b->has_oom_local && b->oom_local > a->oom_local;
}

static bool
level_oom(const struct verdict_input *in)
{
	return oom_at(in->has_level, &in->level_before, &in->level_after);
}

static bool
session_oom(const struct verdict_input *in)
{
	return oom_at(in->has_session, &in->session_before, &in->session_after);
}

/* A level refused a fork: since 6.13 its pids.events.local "max" counts that; up to 6.12
 * only its pids.peak at its pids.max (the peak never passes the limit) tells, and only
 * together with a leaf whose own limit was not reached. */
static bool
pids_at(bool has, const struct cg_level *a, const struct cg_level *b)
{
	if (!has)
		return false;
	if (b->has_pids_max_local)
		return b->pids_max_local > a->pids_max_local;
	return b->has_limits && b->has_pids_peak && b->pids_max != UINT64_MAX &&
	       b->pids_peak >= b->pids_max;
}

bool
verdict_pids_at_session(const struct verdict_input *in)
{
	return pids_at(in->has_session, &in->session_before, &in->session_after);
}

/* The session's level or the per-user level refused a fork. */
static bool
level_pids(const struct verdict_input *in)
{
	return verdict_pids_at_session(in) ||
	       pids_at(in->has_level, &in->level_before, &in->level_after);
}

/* The leaf's refused forks were refused at a level above it: its own limit was never
 * reached (its pids.peak, which never passes its pids.max, stayed below). */
static bool
pids_refused_above(const struct cg_usage *c)
{
	return c->has_pids_peak && c->has_pids_max && c->pids_peak < c->pids_max;
}

/* The limits the evidence shows were hit, each on its own; the verdict then picks the most
 * specific one. */
static unsigned
limits_hit(const struct verdict_input *in)
{
	const struct cg_usage *c = &in->counters;
	unsigned hit = 0;

	if (in->timeout_fired)
		hit |= HIT(VERDICT_TIMEOUT);
	if (in->output_limit_hit)
		hit |= HIT(VERDICT_OUTPUT);
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
		hit |= HIT(VERDICT_CPU_TIME);
	/* A memory verdict needs oom_kill > 0 with oom > 0 in the leaf (a global OOM kill
	 * also counts in oom_kill but not in the leaf's oom). */
	if (c->has_memory_events && c->oom_kill > 0 && c->oom > 0)
		hit |= HIT(VERDICT_MEMORY);
	/* A kill in the leaf with no OOM of its own, while the session's cgroup (the leaf's
	 * parent) had one: the session's memory, the nearest limit above the call. */
	else if (c->has_memory_events && c->oom_kill > 0 && session_oom(in))
		hit |= HIT(VERDICT_SESSION_MEMORY);
	/* ... while the per-user level had one: the user's total_memory, not the sandbox's
	 * limit and not the host. */
	else if (c->has_memory_events && c->oom_kill > 0 && level_oom(in))
		hit |= HIT(VERDICT_TOTAL_MEMORY);
	/* Up to 6.12 the leaf counts a fork refused at any level; since 6.13 only at its own
	 * (the per-user level's refusals are then in that level's .local counter). */
	if (c->has_pids_events && c->pids_max_events > 0 && !pids_refused_above(c))
		hit |= HIT(VERDICT_PIDS);
	else if ((c->has_pids_events && c->pids_max_events > 0 && level_pids(in)) ||
		 ((in->level_after.has_pids_max_local || in->session_after.has_pids_max_local) &&
		  level_pids(in)))
		hit |= HIT(VERDICT_TOTAL_PIDS);
	/* No evidence but the signal: it counts only when this run set RLIMIT_FSIZE. */
	if (in->signaled && in->signal == SIGXFSZ && in->fsize_limit)
		hit |= HIT(VERDICT_FSIZE);
	/* The workspace is full when its blocks or its inodes are all used: either way
	 * nothing more can be stored in it (ENOSPC). */
	if (c->has_disk_used && in->disk_limit > 0 &&
	    (c->disk_used >= in->disk_limit || c->disk_inodes_out))
		hit |= HIT(VERDICT_DISK);
	return hit;
}

/* The verdict's kind from v->limits_hit and how the main process ended; the timeout and
 * the output limit also set sandcap's exit status. */
static void
pick_kind(const struct verdict_input *in, struct verdict *v)
{
	bool failed = in->signaled || in->exit_code != 0;
	unsigned hit = v->limits_hit;

	if (hit & HIT(VERDICT_TIMEOUT)) {
		/* Whatever the command died of after our SIGTERM, the timer decided. */
		v->kind = VERDICT_TIMEOUT;
		v->sc_exit = SC_EXIT_TIMEOUT;
	} else if (hit & HIT(VERDICT_OUTPUT)) {
		/* sandcap ended it (SIGKILL) for its output, and what it wrote past the cap is
		 * lost: 128+9 also when the main process had exited before the kill, even with
		 * 0, or a script would take a cut output for a success (its own status stays
		 * in exit_code). */
		v->kind = VERDICT_OUTPUT;
		v->sc_exit = 128 + SIGKILL;
	} else if (hit & HIT(VERDICT_CPU_TIME)) {
		v->kind = VERDICT_CPU_TIME;
	} else if (failed && (hit & HIT(VERDICT_MEMORY))) {
		v->kind = VERDICT_MEMORY;
	} else if (failed && (hit & HIT(VERDICT_SESSION_MEMORY))) {
		v->kind = VERDICT_SESSION_MEMORY;
	} else if (failed && (hit & HIT(VERDICT_TOTAL_MEMORY))) {
		v->kind = VERDICT_TOTAL_MEMORY;
	} else if (hit & HIT(VERDICT_FSIZE)) {
		v->kind = VERDICT_FSIZE;
	} else if (failed && (hit & HIT(VERDICT_DISK))) {
		v->kind = VERDICT_DISK;
	} else if (failed && (hit & HIT(VERDICT_PIDS))) {
		v->kind = VERDICT_PIDS;
	} else if (failed && (hit & HIT(VERDICT_TOTAL_PIDS))) {
		v->kind = VERDICT_TOTAL_PIDS;
	} else if (in->end_requested) {
		/* Not a limit: someone asked it to end (not in limits_hit). */
		v->kind = VERDICT_KILLED;
	} else if (in->signaled) {
		v->kind = VERDICT_SIGNAL;
	} else if (in->exit_code != 0) {
		v->kind = VERDICT_EXIT;
	} else {
		v->kind = VERDICT_OK;
	}
}

void
verdict_decide(const struct verdict_input *in, struct verdict *ret)
{
	struct verdict v = { .kind = VERDICT_OK, .exit_code = -1, .signal = 0, .sc_exit = 0 };

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
	v.limits_hit = limits_hit(in);
	pick_kind(in, &v);
	/* The limits are per process: one that killed another process of the sandbox was hit
	 * as well, though the verdict says how the main process ended. */
	if (in->other_sigxcpu > 0 && in->cpu_limit_ms > 0)
		v.limits_hit |= HIT(VERDICT_CPU_TIME);
	if (in->other_sigxfsz > 0 && in->fsize_limit)
		v.limits_hit |= HIT(VERDICT_FSIZE);
	*ret = v;
}
