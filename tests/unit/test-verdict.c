/* SPDX-License-Identifier: MIT */
/* verdict_decide(): every verdict from its evidence, and the precedence between them. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "report/verdict.h"

static struct verdict
decide(const struct verdict_input *in)
{
	struct verdict v;

	verdict_decide(in, &v);
	return v;
}

static void
test_ok_and_exit(void **state)
{
	struct verdict_input in = { .exited = true, .exit_code = 0 };
	struct verdict v = decide(&in);

	(void) state;
	assert_int_equal(v.kind, VERDICT_OK);
	assert_int_equal(v.sc_exit, 0);
	assert_int_equal(v.exit_code, 0);
	assert_int_equal(v.signal, 0);
	assert_int_equal(v.limits_hit, 0);

	in.exit_code = 3;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_EXIT);
	assert_int_equal(v.sc_exit, 3);
	assert_int_equal(v.exit_code, 3);

	/* The command's own 126/127/124/125 pass through as "exit". */
	in.exit_code = 127;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_EXIT);
	assert_int_equal(v.sc_exit, 127);
}

static void
test_signal(void **state)
{
	struct verdict_input in = { .signaled = true, .signal = SIGSEGV };
	struct verdict v = decide(&in);

	(void) state;
	assert_int_equal(v.kind, VERDICT_SIGNAL);
	assert_int_equal(v.sc_exit, 128 + SIGSEGV);
	assert_int_equal(v.exit_code, -1);
	assert_int_equal(v.signal, SIGSEGV);
	assert_int_equal(v.limits_hit, 0);
}

static void
test_timeout_wins_whatever_the_end(void **state)
{
	struct verdict_input in = { .signaled = true, .signal = SIGTERM, .timeout_fired = true };
	struct verdict v = decide(&in);

	(void) state;
	assert_int_equal(v.kind, VERDICT_TIMEOUT);
	assert_int_equal(v.sc_exit, 124);
	assert_int_equal(v.signal, SIGTERM);
	assert_int_equal(v.limits_hit, 1u << VERDICT_TIMEOUT);

	/* A command that traps SIGTERM and exits 0 still timed out. */
	in = (struct verdict_input) { .exited = true, .exit_code = 0, .timeout_fired = true };
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_TIMEOUT);
	assert_int_equal(v.sc_exit, 124);
	assert_int_equal(v.exit_code, 0);

	/* Timeout beats a CPU limit that the SIGKILL also satisfies. */
	in = (struct verdict_input) { .signaled = true, .signal = SIGKILL, .timeout_fired = true,
				      .cpu_limit_ms = 1000, .main_cpu_ms = 5000 };
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_TIMEOUT);
	assert_true(v.limits_hit & (1u << VERDICT_CPU_TIME));
}

static void
test_cpu_time(void **state)
{
	struct verdict_input in = { .signaled = true, .signal = SIGXCPU, .cpu_limit_ms = 1000,
				    .main_cpu_ms = 1000 };
	struct verdict v = decide(&in);

	(void) state;
	assert_int_equal(v.kind, VERDICT_CPU_TIME);
	assert_int_equal(v.sc_exit, 128 + SIGXCPU);
	assert_int_equal(v.limits_hit, 1u << VERDICT_CPU_TIME);
	/* the kernel decides on tick samples, which rusage's exact run time may read well
	 * under on a loaded host: a SIGXCPU under this run's limit is taken at its word */
	in.main_cpu_ms = 698;
	assert_int_equal(decide(&in).kind, VERDICT_CPU_TIME);

	/* SIGXCPU with no limit of this run's (one inherited from sandcap's caller, or sent by
	 * hand): a plain signal, never a limit the report does not hold. */
	in = (struct verdict_input) { .signaled = true, .signal = SIGXCPU, .main_cpu_ms = 5000 };
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_SIGNAL);
	assert_int_equal(v.limits_hit, 0);

	/* SIGXCPU ignored: the hard limit's SIGKILL, with the CPU time to prove it. */
	in = (struct verdict_input) { .signaled = true, .signal = SIGKILL, .cpu_limit_ms = 2000,
				      .main_cpu_ms = 2000 };
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_CPU_TIME);
	assert_int_equal(v.sc_exit, 137);

	/* A SIGKILL without that evidence is just a signal. */
	in.main_cpu_ms = 1900;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_SIGNAL);
	in = (struct verdict_input) { .signaled = true, .signal = SIGKILL, .main_cpu_ms = 9000 };
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_SIGNAL);

	/* cgroup mode: the budget timer fired. */
	in = (struct verdict_input) { .signaled = true, .signal = SIGKILL, .cpu_budget_fired = true };
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_CPU_TIME);
}

static void
test_fsize(void **state)
{
	struct verdict_input in = { .signaled = true, .signal = SIGXFSZ, .fsize_limit = true };
	struct verdict v = decide(&in);

	(void) state;
	assert_int_equal(v.kind, VERDICT_FSIZE);
	assert_int_equal(v.sc_exit, 128 + SIGXFSZ);
	assert_int_equal(v.limits_hit, 1u << VERDICT_FSIZE);

	/* No RLIMIT_FSIZE of this run's: a SIGXFSZ sent by hand or from a limit sandcap's
	 * caller set is a plain signal, never a limit the report does not hold. */
	in.fsize_limit = false;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_SIGNAL);
	assert_int_equal(v.limits_hit, 0);

	/* A shell reporting 153 for a child is not evidence: no guessing. */
	in = (struct verdict_input) { .exited = true, .exit_code = 128 + SIGXFSZ };
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_EXIT);
}

/* A per-process limit's signal that killed another process (sandcap reaped it): in
 * limits_hit under this run's limit, the verdict staying the main process's. */
static void
test_other_process_hits(void **state)
{
	struct verdict_input in = { .exited = true, .exit_code = 0, .cpu_limit_ms = 1000,
				    .other_sigxcpu = 2 };
	struct verdict v = decide(&in);

	(void) state;
	assert_int_equal(v.kind, VERDICT_OK);
	assert_int_equal(v.sc_exit, 0);
	assert_int_equal(v.limits_hit, 1u << VERDICT_CPU_TIME);
	in = (struct verdict_input) { .exited = true, .exit_code = 1, .fsize_limit = true,
				      .other_sigxfsz = 1 };
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_EXIT);
	assert_int_equal(v.limits_hit, 1u << VERDICT_FSIZE);
	/* Without this run's limit, such a death is no limit of the report's. */
	in = (struct verdict_input) { .exited = true, .other_sigxcpu = 1, .other_sigxfsz = 1 };
	v = decide(&in);
	assert_int_equal(v.limits_hit, 0);
}

static void
test_setup_errors(void **state)
{
	struct verdict_input in = { .setup = VERDICT_SETUP_EXEC, .exec_errno = ENOENT };
	struct verdict v = decide(&in);

	(void) state;
	assert_int_equal(v.kind, VERDICT_SETUP_ERROR);
	assert_int_equal(v.sc_exit, 127);
	assert_int_equal(v.exit_code, -1);
	assert_int_equal(v.signal, 0);

	in.exec_errno = EACCES;
	assert_int_equal(decide(&in).sc_exit, 126);
	in.exec_errno = ENOEXEC;
	assert_int_equal(decide(&in).sc_exit, 126);
	in = (struct verdict_input) { .setup = VERDICT_SETUP_FAILED, .exec_errno = EPERM };
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_SETUP_ERROR);
	assert_int_equal(v.sc_exit, 125);
	/* Set-up failure wins over a timer that fired meanwhile. */
	in.timeout_fired = true;
	assert_int_equal(decide(&in).kind, VERDICT_SETUP_ERROR);
}

static void
test_memory_needs_leaf_oom(void **state)
{
	struct verdict_input in = { .signaled = true, .signal = SIGKILL };
	struct verdict v;

	(void) state;
	in.counters.has_memory_events = true;
	in.counters.oom_kill = 1;
	in.counters.oom = 1;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_MEMORY);
	assert_int_equal(v.sc_exit, 137);
	assert_int_equal(v.limits_hit, 1u << VERDICT_MEMORY);

	/* oom_kill without oom in the leaf: a global OOM, not our limit. */
	in.counters.oom = 0;
	assert_int_equal(decide(&in).kind, VERDICT_SIGNAL);
	/* Counters absent (rlimit mode): never a memory verdict. */
	in.counters.oom = 1;
	in.counters.has_memory_events = false;
	assert_int_equal(decide(&in).kind, VERDICT_SIGNAL);
	/* A child was OOM-killed but the command succeeded: ok, with the hit recorded. */
	in = (struct verdict_input) { .exited = true, .exit_code = 0 };
	in.counters.has_memory_events = true;
	in.counters.oom_kill = 2;
	in.counters.oom = 2;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_OK);
	assert_int_equal(v.limits_hit, 1u << VERDICT_MEMORY);
}

/* The per-user level's OOM (its memory.events.local oom grew during the run) ended the
 * sandbox: total-memory, never memory and never a plain signal. */
static void
test_total_memory(void **state)
{
	struct verdict_input in = { .signaled = true, .signal = SIGKILL, .has_level = true };
	struct verdict v;

	(void) state;
	in.counters.has_memory_events = true;
	in.counters.oom_kill = 2;
	in.level_before.has_oom_local = true;
	in.level_before.oom_local = 3;          /* earlier runs of the user's */
	in.level_after = in.level_before;
	/* No OOM at the level during this run: a kill from above (not ours to name). */
	assert_int_equal(decide(&in).kind, VERDICT_SIGNAL);
	in.level_after.oom_local = 4;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_TOTAL_MEMORY);
	assert_int_equal(v.limits_hit, 1u << VERDICT_TOTAL_MEMORY);
	assert_int_equal(v.sc_exit, 137);
	assert_string_equal(verdict_name(v.kind), "total-memory");
	/* The leaf's own OOM wins: its limit was reached first. */
	in.counters.oom = 1;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_MEMORY);
	assert_int_equal(v.limits_hit, 1u << VERDICT_MEMORY);
	/* No level read (user-cgroup mode): never total-memory. */
	in.counters.oom = 0;
	in.has_level = false;
	assert_int_equal(decide(&in).kind, VERDICT_SIGNAL);
}

/* A call of a session killed at the session's own memory (the OOM counted in the
 * memory.events.local of the leaf's parent, the session's level or scope): session-memory,
 * the same in cgroup and user-cgroup mode, never the call's memory, never the user's
 * total_memory, never a plain signal; and only with the session's counter as evidence. */
static void
test_session_memory(void **state)
{
	struct verdict_input in = { .signaled = true, .signal = SIGKILL, .has_session = true };
	struct verdict v;

	(void) state;
	in.counters.has_memory_events = true;
	in.counters.oom_kill = 2;
	in.session_before.has_oom_local = true;
	in.session_before.oom_local = 1; /* an earlier call of the session */
	in.session_after = in.session_before;
	/* No OOM at the session during this call (a kill from elsewhere): a signal. */
	assert_int_equal(decide(&in).kind, VERDICT_SIGNAL);
	/* User-cgroup mode: the scope's count grew; no per-user level. */
	in.session_after.oom_local = 2;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_SESSION_MEMORY);
	assert_int_equal(v.limits_hit, 1u << VERDICT_SESSION_MEMORY);
	assert_int_equal(v.sc_exit, 128 + SIGKILL);
	assert_int_equal(v.signal, SIGKILL);
	assert_string_equal(verdict_name(v.kind), "session-memory");
	/* Cgroup mode: the per-user level above the session had an OOM as well (another of
	 * the user's sandboxes, or both limits at once): the nearest limit is named. */
	in.has_level = true;
	in.level_before.has_oom_local = in.level_after.has_oom_local = true;
	in.level_after.oom_local = 1;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_SESSION_MEMORY);
	assert_int_equal(v.limits_hit, 1u << VERDICT_SESSION_MEMORY);
	/* The session's count did not grow, the user's did: total-memory. */
	in.session_after.oom_local = 1;
	assert_int_equal(decide(&in).kind, VERDICT_TOTAL_MEMORY);
	in.session_after.oom_local = 2;
	/* The call's own limit reached: its memory wins. */
	in.counters.oom = 1;
	assert_int_equal(decide(&in).kind, VERDICT_MEMORY);
	in.counters.oom = 0;
	/* A call that coped (exit 0): ok, with the session's memory in limits_hit. */
	in.signaled = false;
	in.exited = true;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_OK);
	assert_int_equal(v.limits_hit, 1u << VERDICT_SESSION_MEMORY);
	/* A kernel without memory.events.local, or the scope not read: never guessed. */
	in.signaled = true;
	in.exited = false;
	in.has_level = false;
	in.session_after.has_oom_local = false;
	assert_int_equal(decide(&in).kind, VERDICT_SIGNAL);
	in.session_after.has_oom_local = true;
	in.has_session = false;
	assert_int_equal(decide(&in).kind, VERDICT_SIGNAL);
}

/* A session's level refused the fork (6.13+: its pids.events.local grew): total-pids, said
 * to be the session's. */
static void
test_session_pids(void **state)
{
	struct verdict_input in = { .exited = true, .exit_code = 1, .has_session = true,
				    .has_level = true };

	(void) state;
	in.counters.has_pids_events = true;
	in.counters.pids_max_events = 1;
	in.counters.has_pids_peak = in.counters.has_pids_max = true;
	in.counters.pids_peak = 10;
	in.counters.pids_max = 64;
	in.session_after.has_pids_max_local = in.level_after.has_pids_max_local = true;
	in.session_after.pids_max_local = 1;
	assert_int_equal(decide(&in).kind, VERDICT_TOTAL_PIDS);
	assert_true(verdict_pids_at_session(&in));
	in.session_after.pids_max_local = 0;
	in.level_after.pids_max_local = 1;
	assert_int_equal(decide(&in).kind, VERDICT_TOTAL_PIDS);
	assert_false(verdict_pids_at_session(&in));
}

/* Up to 6.12 the leaf counts forks refused at any level: one refused while the leaf stayed
 * below its own pids.max, with the level at its total, is total-pids. */
static void
test_total_pids(void **state)
{
	struct verdict_input in = { .exited = true, .exit_code = 1, .has_level = true };
	struct verdict v;

	(void) state;
	in.counters.has_pids_events = true;
	in.counters.pids_max_events = 1;
	in.counters.has_pids_peak = in.counters.has_pids_max = true;
	in.counters.pids_peak = 10;
	in.counters.pids_max = 64;
	in.level_after.has_limits = in.level_after.has_pids_peak = true;
	in.level_after.memory_max = UINT64_MAX;
	in.level_after.pids_max = 40;
	in.level_after.pids_peak = 40;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_TOTAL_PIDS);
	assert_int_equal(v.limits_hit, 1u << VERDICT_TOTAL_PIDS);
	assert_string_equal(verdict_name(v.kind), "total-pids");
	/* A command that coped: exit 0, the total in limits_hit only. */
	in.exit_code = 0;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_OK);
	assert_int_equal(v.limits_hit, 1u << VERDICT_TOTAL_PIDS);
	in.exit_code = 1;
	/* The leaf at its own limit: its own pids. */
	in.counters.pids_peak = 64;
	assert_int_equal(decide(&in).kind, VERDICT_PIDS);
	/* Refused above the leaf, but not at the user's level (a limit above sandcap's
	 * cgroups): neither. */
	in.counters.pids_peak = 10;
	in.level_after.pids_peak = 12;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_EXIT);
	assert_int_equal(v.limits_hit, 0);
	/* 6.13+: the level's own counter, which grew during the run. */
	in.counters.pids_max_events = 0;
	in.level_before.has_pids_max_local = in.level_after.has_pids_max_local = true;
	in.level_before.pids_max_local = 5;
	in.level_after.pids_max_local = 7;
	assert_int_equal(decide(&in).kind, VERDICT_TOTAL_PIDS);
	in.level_after.pids_max_local = 5;
	assert_int_equal(decide(&in).kind, VERDICT_EXIT);
}

static void
test_pids_and_disk(void **state)
{
	struct verdict_input in = { .exited = true, .exit_code = 1 };
	struct verdict v;

	(void) state;
	in.counters.has_pids_events = true;
	in.counters.pids_max_events = 4;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_PIDS);
	assert_int_equal(v.sc_exit, 1);

	in = (struct verdict_input) { .exited = true, .exit_code = 1, .disk_limit = 4096 };
	in.counters.has_disk_used = true;
	in.counters.disk_used = 4096;
	assert_int_equal(decide(&in).kind, VERDICT_DISK);
	in.counters.disk_used = 4095;
	assert_int_equal(decide(&in).kind, VERDICT_EXIT);

	/* Out of inodes with blocks to spare (small files in a big workspace): full too. */
	in.disk_limit = 16 << 20;
	in.counters.disk_used = 2 << 20;
	in.counters.disk_inodes_out = true;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_DISK);
	assert_int_equal(v.limits_hit, 1u << VERDICT_DISK);
	in.exit_code = 0;               /* a hit, but the command coped: ok */
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_OK);
	assert_int_equal(v.limits_hit, 1u << VERDICT_DISK);
	in.disk_limit = 0;              /* no --disk: not a limit of this run's */
	assert_int_equal(decide(&in).limits_hit, 0);
}

static void
test_killed_at_a_request(void **state)
{
	struct verdict_input in = { .signaled = true, .signal = SIGKILL, .end_requested = true };
	struct verdict v = decide(&in);

	(void) state;
	assert_int_equal(v.kind, VERDICT_KILLED);
	assert_int_equal(v.sc_exit, 128 + SIGKILL);
	assert_int_equal(v.limits_hit, 0);              /* not a limit */
	/* a TERM handler that exits 3: still killed, with the command's status */
	in = (struct verdict_input) { .exited = true, .exit_code = 3, .end_requested = true };
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_KILLED);
	assert_int_equal(v.sc_exit, 3);
	assert_int_equal(v.exit_code, 3);
	/* without a request the same end is a plain signal */
	in = (struct verdict_input) { .signaled = true, .signal = SIGKILL };
	assert_int_equal(decide(&in).kind, VERDICT_SIGNAL);
	/* a limit with evidence wins over the request */
	in = (struct verdict_input) { .signaled = true, .signal = SIGTERM, .end_requested = true,
				      .timeout_fired = true };
	assert_int_equal(decide(&in).kind, VERDICT_TIMEOUT);
	in = (struct verdict_input) { .signaled = true, .signal = SIGXFSZ, .end_requested = true,
				      .fsize_limit = true };
	assert_int_equal(decide(&in).kind, VERDICT_FSIZE);
}

static void
test_output_limit(void **state)
{
	struct verdict_input in = { .signaled = true, .signal = SIGKILL, .output_limit_hit = true };
	struct verdict v = decide(&in);

	(void) state;
	assert_int_equal(v.kind, VERDICT_OUTPUT);
	assert_int_equal(v.sc_exit, 128 + SIGKILL);
	assert_int_equal(v.limits_hit, 1u << VERDICT_OUTPUT);
	/* the cap fired first and the process exited on its own meanwhile: still output */
	in = (struct verdict_input) { .exited = true, .exit_code = 0, .output_limit_hit = true };
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_OUTPUT);
	/* ... and never a success: what passed the cap is lost (its own 0 stays in exit_code) */
	assert_int_equal(v.sc_exit, 128 + SIGKILL);
	assert_int_equal(v.exit_code, 0);
	in.exit_code = 3;
	assert_int_equal(decide(&in).sc_exit, 128 + SIGKILL);
	in.exit_code = 0;
	/* the timer wins as for every limit; output stays in limits_hit */
	in.timeout_fired = true;
	v = decide(&in);
	assert_int_equal(v.kind, VERDICT_TIMEOUT);
	assert_true(v.limits_hit & (1u << VERDICT_OUTPUT));
	/* over a request to end */
	in = (struct verdict_input) { .signaled = true, .signal = SIGKILL, .output_limit_hit = true,
				      .end_requested = true };
	assert_int_equal(decide(&in).kind, VERDICT_OUTPUT);
}

static void
test_names(void **state)
{
	(void) state;
	assert_string_equal(verdict_name(VERDICT_OK), "ok");
	assert_string_equal(verdict_name(VERDICT_CPU_TIME), "cpu-time");
	assert_string_equal(verdict_name(VERDICT_SETUP_ERROR), "setup-error");
	assert_string_equal(verdict_name(VERDICT_KILLED), "killed");
	assert_string_equal(verdict_name(VERDICT_OUTPUT), "output");
	assert_string_equal(verdict_name(_VERDICT_MAX), "unknown");
	for (int k = 0; k < _VERDICT_MAX; k++)
		assert_string_not_equal(verdict_name((enum verdict_kind) k), "unknown");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok_and_exit),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_timeout_wins_whatever_the_end),
		cmocka_unit_test(test_cpu_time),
		cmocka_unit_test(test_fsize),
		cmocka_unit_test(test_other_process_hits),
		cmocka_unit_test(test_setup_errors),
		cmocka_unit_test(test_memory_needs_leaf_oom),
		cmocka_unit_test(test_total_memory),
		cmocka_unit_test(test_session_memory),
		cmocka_unit_test(test_session_pids),
		cmocka_unit_test(test_total_pids),
		cmocka_unit_test(test_pids_and_disk),
		cmocka_unit_test(test_killed_at_a_request),
		cmocka_unit_test(test_output_limit),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
