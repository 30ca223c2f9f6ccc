/* SPDX-License-Identifier: MIT */
/* Unit tests for lib/parse-util.c: every malformed form is refused with -EINVAL or -ERANGE
 * and leaves *ret alone; the good forms give the exact value. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "parse-util.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)
#define TiB (UINT64_C(1) << 40)
#define SENTINEL UINT64_C(0xdeadbeef)

enum fn { SIZE, DURATION, PERCENT, RANGE };

static int
call(enum fn f, const char *s, uint64_t *v)
{
	switch (f) {
	case SIZE:
		return parse_size(s, v);
	case DURATION:
		return parse_duration_ms(s, v);
	case PERCENT:
		return parse_percent(s, v);
	case RANGE:
		return parse_u64_range(s, 0, UINT64_MAX, v);
	}
	return -999;
}

static const char *const fn_names[] = { "parse_size", "parse_duration_ms", "parse_percent",
					"parse_u64_range" };

struct bad {
	const char *s;
	int err;
};

/* Refused by every parser, with the error each gives. */
static const struct bad bad_all[] = {
	{ "", -EINVAL },
	{ "-1", -EINVAL },
	{ "+1", -EINVAL },
	{ " 1", -EINVAL },
	{ "1 ", -EINVAL },
	{ "\t1", -EINVAL },
	{ "0x10", -EINVAL },
	{ "12X", -EINVAL },
	{ "1.", -EINVAL },
	{ "1.x", -EINVAL },
	{ ".5", -EINVAL },
	{ "1..5", -EINVAL },
	{ "1,5", -EINVAL },
	{ "1e3", -EINVAL },
	{ "abc", -EINVAL },
	{ "5 junk", -EINVAL },
	{ "99999999999999999999", -ERANGE },
	{ "18446744073709551616", -ERANGE },
};

static void
test_bad_all(void **state)
{
	(void) state;
	for (int f = SIZE; f <= RANGE; f++)
		for (size_t i = 0; i < sizeof(bad_all) / sizeof(bad_all[0]); i++) {
			uint64_t v = SENTINEL;
			int r = call(f, bad_all[i].s, &v);

			if (r != bad_all[i].err || v != SENTINEL)
				fail_msg("%s(\"%s\") = %d, v=%llu; want %d and *ret untouched",
					 fn_names[f], bad_all[i].s, r, (unsigned long long) v,
					 bad_all[i].err);
		}
}

static void
test_null(void **state)
{
	uint64_t v = SENTINEL;

	(void) state;
	for (int f = SIZE; f <= RANGE; f++)
		assert_int_equal(call(f, NULL, &v), -EINVAL);
	assert_true(v == SENTINEL);
}

struct bad1 {
	enum fn f;
	const char *s;
	int err;
};

static const struct bad1 bad_one[] = {
	{ SIZE, "1.5", -EINVAL },               /* fractional bytes */
	{ SIZE, "1.5B", -EINVAL },
	{ SIZE, "1KK", -EINVAL },
	{ SIZE, "1Ki", -EINVAL },
	{ SIZE, "1P", -EINVAL },                /* no peta unit */
	{ SIZE, "16777216T", -ERANGE },         /* 2^64 */
	{ SIZE, "18446744073709551615K", -ERANGE },
	{ SIZE, "5%", -EINVAL },
	{ SIZE, "1Mb", -EINVAL },               /* a lower-case b means bits */
	{ SIZE, "1mb", -EINVAL },
	{ SIZE, "1Kb", -EINVAL },
	{ SIZE, "2gib", -EINVAL },
	{ SIZE, "12b", -EINVAL },
	{ DURATION, "5d", -EINVAL },
	{ DURATION, "5S", -EINVAL },            /* units are case-sensitive */
	{ DURATION, "1 s", -EINVAL },
	{ DURATION, "18446744073709551615h", -ERANGE },
	{ DURATION, "18446744073709551615", -ERANGE },   /* seconds -> ms overflows */
	{ PERCENT, "50.5%", -EINVAL },
	{ PERCENT, "50%%", -EINVAL },
	{ PERCENT, "%", -EINVAL },
	{ PERCENT, "50 %", -EINVAL },
	{ PERCENT, "1.5", -EINVAL },
	{ RANGE, "1.5", -EINVAL },
	{ RANGE, "1K", -EINVAL },
	{ RANGE, "10%", -EINVAL },
};

static void
test_bad_one(void **state)
{
	(void) state;
	for (size_t i = 0; i < sizeof(bad_one) / sizeof(bad_one[0]); i++) {
		uint64_t v = SENTINEL;
		int r = call(bad_one[i].f, bad_one[i].s, &v);

		if (r != bad_one[i].err || v != SENTINEL)
			fail_msg("%s(\"%s\") = %d; want %d and *ret untouched",
				 fn_names[bad_one[i].f], bad_one[i].s, r, bad_one[i].err);
	}
}

struct good {
	enum fn f;
	const char *s;
	uint64_t v;
};

static const struct good good[] = {
	{ SIZE, "0", 0 },
	{ SIZE, "4096", 4096 },
	{ SIZE, "12B", 12 },
	{ SIZE, "512K", 512 * KiB },
	{ SIZE, "512k", 512 * KiB },
	{ SIZE, "512KB", 512 * KiB },
	{ SIZE, "100MB", 100 * MiB },
	{ SIZE, "1.5G", 3 * GiB / 2 },
	{ SIZE, "2GiB", 2 * GiB },
	{ SIZE, "2giB", 2 * GiB },
	{ SIZE, "1mB", MiB },
	{ SIZE, "1T", TiB },
	{ SIZE, "0.5K", 512 },
	{ SIZE, "1.0001K", 1024 },              /* rounded down to a whole byte */
	{ SIZE, "18446744073709551615", UINT64_MAX },
	{ SIZE, "16777215T", UINT64_C(16777215) * TiB },
	{ DURATION, "0", 0 },
	{ DURATION, "30", 30000 },
	{ DURATION, "250ms", 250 },
	{ DURATION, "1.5s", 1500 },
	{ DURATION, "1.5", 1500 },
	{ DURATION, "5m", 300000 },
	{ DURATION, "1h", 3600000 },
	{ DURATION, "0.0001s", 1 },             /* fractions round up */
	{ DURATION, "1.0001ms", 2 },
	{ PERCENT, "50%", 50 },
	{ PERCENT, "50", 50 },
	{ PERCENT, "250%", 250 },
	{ PERCENT, "0", 0 },
	{ RANGE, "0", 0 },
	{ RANGE, "007", 7 },
	{ RANGE, "18446744073709551615", UINT64_MAX },
};

static void
test_good(void **state)
{
	(void) state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = SENTINEL;
		int r = call(good[i].f, good[i].s, &v);

		if (r != 0 || v != good[i].v)
			fail_msg("%s(\"%s\") = %d, %llu; want 0, %llu", fn_names[good[i].f],
				 good[i].s, r, (unsigned long long) v,
				 (unsigned long long) good[i].v);
	}
}

static void
test_range_bounds(void **state)
{
	uint64_t v = SENTINEL;

	(void) state;
	assert_int_equal(parse_u64_range("0", 1, 10, &v), -ERANGE);
	assert_int_equal(parse_u64_range("11", 1, 10, &v), -ERANGE);
	assert_true(v == SENTINEL);
	assert_int_equal(parse_u64_range("1", 1, 10, &v), 0);
	assert_true(v == 1);
	assert_int_equal(parse_u64_range("10", 1, 10, &v), 0);
	assert_true(v == 10);
}

static void
test_format(void **state)
{
	char b[32];

	(void) state;
	format_size(12, b, sizeof(b));
	assert_string_equal(b, "12 B");
	format_size(256 * MiB, b, sizeof(b));
	assert_string_equal(b, "256 MiB");
	format_size(3 * GiB / 2, b, sizeof(b));
	assert_string_equal(b, "1.5 GiB");
	format_size(UINT64_MAX, b, sizeof(b));
	assert_string_equal(b, "16.0 EiB");
	format_duration_ms(250, b, sizeof(b));
	assert_string_equal(b, "250ms");
	format_duration_ms(1500, b, sizeof(b));
	assert_string_equal(b, "1.5s");
	format_duration_ms(30000, b, sizeof(b));
	assert_string_equal(b, "30s");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_all),
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_bad_one),
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_range_bounds),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
