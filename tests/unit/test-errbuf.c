/* SPDX-License-Identifier: MIT */
/* Unit tests for lib/errbuf.c: set_err() formats, truncates, and ignores a NULL buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "errbuf.h"

static void
test_formats(void **state)
{
	char err[64];

	(void) state;
	set_err(err, sizeof(err), "--%s %d: %s", "memory", 12, "too small");
	assert_string_equal(err, "--memory 12: too small");
}

/* A reason longer than the buffer is cut, never written past it, always terminated. */
static void
test_truncates(void **state)
{
	char buf[16];

	(void) state;
	memset(buf, 'x', sizeof(buf));
	set_err(buf, 8, "%s", "0123456789");
	assert_string_equal(buf, "0123456");
	assert_int_equal(buf[8], 'x');
}

/* Callers that do not want the reason pass NULL, 0; a zero length touches nothing. */
static void
test_no_buffer(void **state)
{
	char buf[4] = "abc";

	(void) state;
	set_err(NULL, 0, "%s", "ignored");
	set_err(buf, 0, "%s", "ignored");
	assert_string_equal(buf, "abc");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_truncates),
		cmocka_unit_test(test_no_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
