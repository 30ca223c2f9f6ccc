/* SPDX-License-Identifier: MIT */
/* frontend/run/trace.c: sandcap trace's suggestions (what is suggested, floors, headroom) and the
 * max/min over several runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "run/trace.h"

#define MiB (UINT64_C(1) << 20)

static void
test_short_run_floors(void **state)
{
	struct trace_figs f = { .cpu_ms = 200, .wall_ms = 300 };
	struct trace_result tr;

	(void) state;
	trace_suggest(25, &f, &tr);
	assert_int_equal(tr.timeout_ms, 2000);          /* not 1 s for a 300 ms run */
	assert_int_equal(tr.cpu_time_ms, 1000);         /* not 300 ms for 200 ms used */
	assert_string_equal(tr.flags, "--cpu-time 1s --timeout 2s");
	assert_false(tr.has_memory || tr.has_pids || tr.has_disk);
}

static void
test_factors_over_headroom(void **state)
{
	struct trace_figs f = { .cpu_ms = 4000, .wall_ms = 10000 };
	struct trace_result tr;

	(void) state;
	trace_suggest(25, &f, &tr);
	assert_int_equal(tr.timeout_ms, 30000);         /* 3x beats +25% */
	assert_int_equal(tr.cpu_time_ms, 8000);         /* 2x beats +25% */
	/* a large headroom beats the factors */
	trace_suggest(300, &f, &tr);
	assert_int_equal(tr.timeout_ms, 40000);
	assert_int_equal(tr.cpu_time_ms, 16000);
	/* rounded up to 100 ms */
	f.wall_ms = 1234;
	trace_suggest(0, &f, &tr);
	assert_int_equal(tr.timeout_ms, 3800);          /* 3702 -> 3800 */
}

static void
test_never_fsize_measured_only(void **state)
{
	struct trace_figs f = { .has_memory = true, .has_pids = true, .has_disk = true,
				.memory_peak = 100 * MiB, .pids_peak = 10, .disk_used = 20 * MiB,
				.largest_file = 20 * MiB, .cpu_ms = 5000, .wall_ms = 5000 };
	struct trace_result tr;

	(void) state;
	trace_suggest(25, &f, &tr);
	assert_true(tr.has_memory && tr.has_pids && tr.has_disk);
	assert_int_equal(tr.memory, 125 * MiB);
	assert_int_equal(tr.pids, 13);
	assert_int_equal(tr.disk, 25 * MiB);
	assert_null(strstr(tr.flags, "--fsize"));       /* RLIMIT_FSIZE applies everywhere */
	assert_string_equal(tr.flags, "--memory 125M --pids 13 --cpu-time 10s --timeout 15s "
			    "--disk 25M");
	/* pids always above the peak, even with 0% headroom */
	trace_suggest(0, &f, &tr);
	assert_int_equal(tr.pids, 11);
}

static void
test_runs_take_the_max(void **state)
{
	struct trace_figs a = { .has_memory = true, .has_pids = true, .memory_peak = 10 * MiB,
				.pids_peak = 3, .cpu_ms = 900, .wall_ms = 1000 };
	struct trace_figs b = { .has_memory = true, .has_pids = true, .memory_peak = 30 * MiB,
				.pids_peak = 2, .cpu_ms = 100, .wall_ms = 4000 };
	struct trace_figs c = a;
	struct trace_acc acc = {};
	struct trace_result tr;

	(void) state;
	c.has_pids = false;     /* not measured in one run: not measured */
	trace_acc_add(&acc, &a);
	trace_acc_add(&acc, &b);
	assert_int_equal(acc.runs, 2);
	assert_int_equal(acc.max.memory_peak, 30 * MiB);
	assert_int_equal(acc.min.memory_peak, 10 * MiB);
	assert_int_equal(acc.max.pids_peak, 3);
	assert_int_equal(acc.min.pids_peak, 2);
	assert_int_equal(acc.max.cpu_ms, 900);
	assert_int_equal(acc.max.wall_ms, 4000);
	assert_int_equal(acc.min.wall_ms, 1000);
	trace_suggest(25, &acc.max, &tr);
	assert_int_equal(tr.timeout_ms, 12000);
	assert_int_equal(tr.memory, 38 * MiB);          /* 37.5 rounded up */
	assert_true(tr.has_pids);
	trace_acc_add(&acc, &c);
	assert_false(acc.max.has_pids);
	assert_true(acc.max.has_memory);
}

static void
test_words(void **state)
{
	char w[32];

	(void) state;
	trace_size_word(3 * (UINT64_C(1) << 30), w, sizeof(w));
	assert_string_equal(w, "3G");
	trace_size_word(5 * MiB, w, sizeof(w));
	assert_string_equal(w, "5M");
	trace_size_word(1500, w, sizeof(w));
	assert_string_equal(w, "2K");
	trace_dur_word(2000, w, sizeof(w));
	assert_string_equal(w, "2s");
	trace_dur_word(1300, w, sizeof(w));
	assert_string_equal(w, "1300ms");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_run_floors),
		cmocka_unit_test(test_factors_over_headroom),
		cmocka_unit_test(test_never_fsize_measured_only),
		cmocka_unit_test(test_runs_take_the_max),
		cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
