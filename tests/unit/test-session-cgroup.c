/* SPDX-License-Identifier: MIT */
/* The cgroup-mode session's records (frontend/run/session-cgroup.c, sesscg_parse()): what
 * the keeper writes is read back; anything else is refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/session-cgroup.h"

static const char cg[] = "level=4201-0123456789abcdef\nworkspace=/run/sandcap/4201/"
			 "4201-0123456789abcdef\nmemory=100663296\ncpu_percent=0\npids=32\n"
			 "disk=33554432\n";

static void
test_roundtrip(void **state)
{
	struct sesscg g;

	(void) state;
	assert_int_equal(sesscg_parse(cg, "", &g), 0);
	assert_string_equal(g.level, "4201-0123456789abcdef");
	assert_string_equal(g.workspace, "/run/sandcap/4201/4201-0123456789abcdef");
	assert_int_equal(g.memory, 100663296);
	assert_int_equal(g.pids, 32);
	assert_int_equal(g.disk, 33554432);
	assert_false(g.has_usage);
	assert_int_equal(sesscg_parse(cg, "cpu_usec=3000123\nmemory_peak=-\npids_peak=7\n"
					  "oom_kill=0\n",
				      &g),
			 0);
	assert_true(g.has_usage);
	assert_int_equal(g.cpu_usec, 3000123);
	assert_false(g.has_memory_peak); /* "-": the kernel keeps none */
	assert_true(g.has_pids_peak);
	assert_int_equal(g.pids_peak, 7);
}

static void
test_refused(void **state)
{
	static const char *const bad_usage[] = {
		"cpu_usec=12x\n", "cpu_usec=-1\n", "unknown=1\n", "cpu_usec\n", "=3\n",
		"cpu_usec=99999999999999999999999\n",
	};
	struct sesscg g;

	(void) state;
	for (size_t i = 0; i < sizeof(bad_usage) / sizeof(bad_usage[0]); i++)
		assert_int_equal(sesscg_parse(cg, bad_usage[i], &g), -EINVAL);
	/* The record must name the level and an absolute workspace. */
	assert_int_equal(sesscg_parse("memory=1\n", "", &g), -EINVAL);
	assert_int_equal(sesscg_parse("level=x\nworkspace=run\n", "", &g), -EINVAL);
	assert_int_equal(sesscg_parse("level=\nworkspace=/w\n", "", &g), -EINVAL);
	assert_int_equal(sesscg_parse("level=x\nworkspace=/w\n", "", &g), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
