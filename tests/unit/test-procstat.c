/* SPDX-License-Identifier: MIT */
/* Unit tests for lib/procstat.c: the /proc/PID/stat parser sandcap judges a slow
 * helper by (state, utime + stime), with hostile process names. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "procstat.h"

static void
test_parse(void **state)
{
	struct procstat ps = { 0 };

	(void) state;
	assert_int_equal(procstat_parse("4242 (sandcap-helper) R 4241 4241 100 34816 4241 "
					"4194560 120 0 0 0 17 5 0 0 20 0 1 0 9999 2412544 300 "
					"18446744073709551615\n", &ps), 0);
	assert_int_equal(ps.state, 'R');
	assert_int_equal(ps.ppid, 4241);
	assert_true(ps.cpu_ticks == 22);
	assert_true(ps.has_rss);
	assert_true(ps.rss_pages == 300);
	assert_true(ps.child_cpu_ticks == 0);
	/* Children's CPU time (fields 16, 17), a negative nice (19), rss (24). */
	assert_int_equal(procstat_parse("9 (sh) S 1 9 9 0 -1 4194560 1 2 0 0 10 20 30 40 39 -19 "
					"1 0 77 8192 12\n", &ps), 0);
	assert_true(ps.cpu_ticks == 30 && ps.child_cpu_ticks == 70 && ps.rss_pages == 12);
	/* A name with ")", blanks and digits: fields count from the last ")". */
	assert_int_equal(procstat_parse("7 (a) S 1 2 3 ) T 9 9 9 9 9 9 9 9 9 9 3 4 0 0\n", &ps), 0);
	assert_int_equal(ps.state, 'T');
	assert_true(ps.cpu_ticks == 7);
	assert_false(ps.has_rss);               /* a text that ends before field 24 */
}

static void
test_reject(void **state)
{
	static const char *const bad[] = {
		"",
		"12 (name",
		"12 (x) R",
		"12 (x) R 1 2 3 4 5 6 7 8 9 10",                 /* no utime */
		"12 (x) R 1 2 3 4 5 6 7 8 9 10 11",              /* no stime */
		"12 (x) R 1 2 3 4 5 6 7 8 9 10 -1 2",            /* negative */
		"12 (x) R 1 2 3 4 5 6 7 8 9 10 1x 2",            /* not a number */
		"12 (x) R 1 2 3 4 5 6 7 8 9 10 99999999999999999999999 2",
		"12 (x) R 1 2 3 4 5 6 7 8 9 10 18446744073709551615 1",   /* sum overflows */
		"12 (x)R 1 2 3 4 5 6 7 8 9 10 1 2",
	};
	struct procstat ps;

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(procstat_parse(bad[i], &ps), -EINVAL);
}

static void
test_read_self(void **state)
{
	struct procstat ps = { 0 };

	(void) state;
	assert_int_equal(procstat_read(getpid(), &ps), 0);
	assert_int_equal(ps.state, 'R');        /* reading its own stat: running */
	assert_int_equal(procstat_read(-1, &ps), -ENOENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_reject),
		cmocka_unit_test(test_read_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
