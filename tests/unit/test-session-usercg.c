/* SPDX-License-Identifier: MIT */
/* A user-cgroup session's "ucg" file (run/session-usercg.c): what is written reads back the
 * same; a scope path a call could have written that is not the session's own scope below
 * /sys/fs/cgroup, an unknown key or a bad number is refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run/session-usercg.h"

#define ID    "00112233aabb"
#define SCOPE "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/"
#define UNIT  "sandcap-sess-" ID ".scope"

static void
test_round_trip(void **state)
{
	struct session_ucg u = { .scope = SCOPE UNIT,
				 .memory = 64 << 20,
				 .pids = 32,
				 .cpu_percent = 150 },
			   back;
	char buf[8192];
	int n = session_ucg_format(&u, buf, sizeof(buf));

	(void) state;
	assert_true(n > 0);
	assert_int_equal(session_ucg_parse(buf, ID, &back), 0);
	assert_string_equal(back.scope, u.scope);
	assert_int_equal(back.memory, u.memory);
	assert_int_equal(back.pids, 32);
	assert_int_equal(back.cpu_percent, 150);
	assert_int_equal(session_ucg_format(&u, buf, 16), -ENOBUFS);
}

static void
test_refused(void **state)
{
	static const char *const bad[] = {
		"",                                                 /* no scope */
		"memory=1\n",                                       /* no scope */
		"scope=" SCOPE UNIT "\nswap=1\n",                   /* unknown key */
		"scope=" SCOPE UNIT "\nmemory=x\n",                 /* bad number */
		"scope=" SCOPE UNIT "\nmemory=\n",                  /* empty number */
		"scope=" SCOPE UNIT "\nmemory\n",                   /* no '=' */
		"scope=" SCOPE "sandcap-sess-ffffffffffff.scope\n", /* another session's */
		"scope=" SCOPE "other.scope\n",                     /* not a session's */
		"scope=/tmp/" UNIT "\n",                            /* not a cgroup */
		"scope=/sys/fs/cgroup/../../tmp/" UNIT "\n",        /* .. */
		"scope=/sys/fs/cgroup//" UNIT "\n",                 /* // */
		"scope=/sys/fs/cgroup/a/./" UNIT "\n",              /* . */
		"scope=sys/fs/cgroup/" UNIT "\n",                   /* relative */
	};
	struct session_ucg u;

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = session_ucg_parse(bad[i], ID, &u);

		if (r != -EINVAL)
			fail_msg("accepted: \"%s\"", bad[i]);
	}
	assert_int_equal(session_ucg_parse("scope=/sys/fs/cgroup/" UNIT "\n", ID, &u), 0);
}

static void
test_mode(void **state)
{
	struct session_state s = { .mode = "user-cgroup" };

	(void) state;
	assert_true(session_is_usercg(&s));
	snprintf(s.mode, sizeof(s.mode), "rlimit");
	assert_false(session_is_usercg(&s));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_mode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
