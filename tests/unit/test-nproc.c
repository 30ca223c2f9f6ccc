/* SPDX-License-Identifier: MIT */
/* nproc_exemption_of(): when RLIMIT_NPROC would not bind the command, from the uid map, the
 * real uid and the permitted capabilities. */
#include <linux/capability.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "run/nproc.h"

#define INITIAL "         0          0 4294967295\n"
#define CAP(c) (1ULL << (c))

static void
test_initial_namespace(void **state)
{
	(void) state;
	/* root: exempt, whatever its capabilities */
	assert_non_null(nproc_exemption_of(INITIAL, 0, 0));
	assert_non_null(strstr(nproc_exemption_of(INITIAL, 0, ~0ULL), "root"));
	/* a user without capabilities: bound */
	assert_null(nproc_exemption_of(INITIAL, 1000, 0));
	assert_null(nproc_exemption_of(INITIAL, 1000, CAP(CAP_NET_ADMIN) | CAP(CAP_CHOWN)));
	/* a user holding either capability (permitted: it may raise it): exempt */
	assert_non_null(nproc_exemption_of(INITIAL, 1000, CAP(CAP_SYS_ADMIN)));
	assert_non_null(strstr(nproc_exemption_of(INITIAL, 1000, CAP(CAP_SYS_RESOURCE)),
			       "CAP_SYS_RESOURCE"));
}

static void
test_user_namespace(void **state)
{
	(void) state;
	/* a rootless container: uid 0 inside is uid 100000 outside; its capabilities count
	 * in its own namespace only */
	assert_null(nproc_exemption_of("0 100000 65536\n", 0, ~0ULL));
	assert_null(nproc_exemption_of("0 1000 1\n1 100000 65535\n", 5, ~0ULL));
	/* a map that gives uid 0 to the parent's uid 0 is root's */
	assert_non_null(nproc_exemption_of("0 0 1\n1 100000 65535\n", 0, 0));
	assert_non_null(nproc_exemption_of("1000 1000 1\n0 0 1\n", 0, 0));
	/* a uid the map does not hold, or a map that cannot be read or parsed: the worst is
	 * assumed for root or a capability, the limit binds for anyone else */
	assert_non_null(nproc_exemption_of("5 100000 1\n", 0, 0));
	assert_non_null(nproc_exemption_of(NULL, 0, 0));
	assert_non_null(nproc_exemption_of(NULL, 1000, CAP(CAP_SYS_ADMIN)));
	assert_null(nproc_exemption_of(NULL, 1000, 0));
	assert_non_null(nproc_exemption_of("garbage", 0, 0));
	assert_non_null(nproc_exemption_of("", 0, 0));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_initial_namespace),
		cmocka_unit_test(test_user_namespace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
