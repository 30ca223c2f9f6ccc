/* SPDX-License-Identifier: MIT */
/* The verdict of one sandbox run, decided from evidence only (docs/report.md, "Verdicts"): how the
 * main process ended, which of sandcap's timers fired, and (cgroup mode) the leaf's counters.
 * Pure: no I/O, unit-tested in tests/unit/test-verdict.c. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "cgroup/cgstats.h"

enum verdict_kind {
	VERDICT_OK,
	VERDICT_EXIT,
	VERDICT_SIGNAL,
	VERDICT_TIMEOUT,
	VERDICT_CPU_TIME,
	VERDICT_MEMORY,
	VERDICT_PIDS,
	VERDICT_FSIZE,
	VERDICT_DISK,
	VERDICT_SETUP_ERROR,
	VERDICT_KILLED,       /* ended at a request from outside (sandcap kill, a signal) */
	VERDICT_OUTPUT,       /* --output-limit passed: sandcap ended it */
	VERDICT_TOTAL_MEMORY, /* the user's total_memory (the per-user level's OOM) */
	VERDICT_TOTAL_PIDS,   /* the user's total_pids refused a fork */
	/* A call of a session: the session's memory (its level's or scope's OOM). */
	VERDICT_SESSION_MEMORY,
	_VERDICT_MAX,
};

enum verdict_setup {
	VERDICT_SETUP_NONE,   /* the command was executed */
	VERDICT_SETUP_FAILED, /* sandcap or the child's set-up failed before exec: 125 */
	VERDICT_SETUP_EXEC,   /* execvp failed with exec_errno: 127 / 126 */
};

struct verdict_input {
	enum verdict_setup setup;
	int exec_errno; /* VERDICT_SETUP_EXEC: errno of execvp */

	/* How the main process ended (exactly one is true unless setup failed). */
	bool exited;
	int exit_code;
	bool signaled;
	int signal;

	bool timeout_fired;    /* the wall-clock timer fired (SIGTERM was sent) */
	bool cpu_budget_fired; /* cgroup mode: the whole-sandbox CPU budget timer */
	bool output_limit_hit; /* --output-limit was passed; sandcap killed the sandbox */
	bool end_requested;    /* KILL/TERM/INT/HUP/QUIT from outside (sandcap kill or a
					 * signal to sandcap) before the main process ended */

	/* rlimit mode: RLIMIT_CPU's soft limit (SIGXCPU), the hard limit soft + 1 s (SIGKILL).
	 * A SIGXCPU counts as cpu-time when this run set the limit; a SIGKILL when the main
	 * process's CPU time is also at or over cpu_limit_ms; otherwise a plain signal. */
	uint64_t cpu_limit_ms; /* the soft limit as applied (whole seconds); 0 = none */
	uint64_t main_cpu_ms;  /* user + system of the main process (wait4 rusage) */
	bool fsize_limit;      /* this run set RLIMIT_FSIZE (--fsize, --fallback --disk) */
	/* Processes other than the main one that sandcap reaped, dead of SIGXCPU or SIGXFSZ:
	 * under this run's limit, it is in limits_hit (the verdict stays the main process's). */
	unsigned other_sigxcpu, other_sigxfsz;

	/* cgroup mode; has_* false in rlimit mode. */
	struct cg_usage counters;
	uint64_t disk_limit; /* bytes as applied (tmpfs pages), 0 = none: used >=
					 * limit, or no inode left, counts as a disk hit */

	/* cgroup mode with the helper: the per-user level (the policy's total_*) when the
	 * command started and when it ended. */
	bool has_level;
	struct cg_level level_before, level_after;

	/* A call of a session in cgroup or user-cgroup mode: the session's own cgroup, the
	 * leaf's parent (the helper's level cgroup_root/<uid>/<level>, or the user manager's
	 * sandcap-sess-<id>.scope), when the command started and when it ended.  In cgroup
	 * mode the per-user level above it is then level_before/after. */
	bool has_session;
	struct cg_level session_before, session_after;
};

struct verdict {
	enum verdict_kind kind;
	unsigned limits_hit; /* bit (1u << VERDICT_*) for each limit hit */
	int exit_code;       /* -1: none (signal or set-up failure) */
	int signal;          /* 0: none */
	int sc_exit;         /* sandcap's own exit status */
};

void verdict_decide(const struct verdict_input *in, struct verdict *ret);

/* The fork refusal behind a total-pids verdict was at the session's level, not at the
 * user's total_pids (the message names the one that refused). */
bool verdict_pids_at_session(const struct verdict_input *in);

/* "ok", "exit", "signal", "timeout", "cpu-time", "memory", "pids", "fsize", "disk",
 * "setup-error", "killed", "output", "total-memory", "total-pids", "session-memory". */
const char *verdict_name(enum verdict_kind k);
