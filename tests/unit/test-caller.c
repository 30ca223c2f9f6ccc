/* SPDX-License-Identifier: MIT */
/* Unit tests for policy/subject.c and frontend/run/caller.c: the caller's names for the policy,
 * failing closed when it is in more groups than can be matched. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "run/caller.h"
#include "group-name.h"

/* Room for every group: the user's name, and its primary group's name first. */
static void
test_names(void **state)
{
	struct policy_caller c;
	struct passwd *pw = getpwuid(getuid());
	struct group *gr;
	int r = caller_lookup(true, POLICY_GROUPS_MAX, &c);

	(void) state;
	if (pw == NULL) {
		assert_int_equal(r, -ENOENT);
		assert_null(c.user);
	} else {
		assert_int_equal(r, 0);
		assert_string_equal(c.user, pw->pw_name);
		gr = getgrgid(pw->pw_gid);
		assert_true(c.ngroups >= 1 || gr == NULL);
		if (gr != NULL)
			assert_string_equal(c.groups[0], gr->gr_name);
	}
	policy_caller_done(&c);
}

/* Fewer places than groups: refused, never a partial list a [group:] deny could miss. */
static void
test_too_many_groups(void **state)
{
	struct policy_caller c;
	int r = caller_lookup(true, 0, &c);

	(void) state;
	assert_int_equal(r, -E2BIG);
	assert_true(c.ngroups == 0);
	policy_caller_done(&c);
}

/* The helper's lookup, by uid: the same refusal past max groups. */
static void
test_too_many_groups_by_uid(void **state)
{
	struct policy_caller c;
	int r = policy_caller_lookup(0, true, 0, &c);

	(void) state;
	if (getpwuid(0) == NULL)
		skip();
	assert_int_equal(r, -E2BIG);
	assert_true(c.ngroups == 0);
	policy_caller_done(&c);
}

/* Without groups wanted the bound does not matter. */
static void
test_no_groups(void **state)
{
	struct policy_caller c;
	int r = caller_lookup(false, 0, &c);

	(void) state;
	assert_true(r == 0 || r == -ENOENT);
	assert_true(c.ngroups == 0);
	policy_caller_done(&c);
}

/* A group that has no name matches nothing and is skipped; its neighbours are kept. */
static void
test_nameless_group(void **state)
{
	struct policy_caller c = {};
	gid_t gids[2] = { 0, 4242421 };

	(void) state;
	if (getgrgid(0) == NULL || getgrgid(4242421) != NULL)
		skip();
	assert_int_equal(policy_caller_add_gids(&c, gids, 2, 2), 0);
	assert_int_equal(c.ngroups, 1);
	assert_string_equal(c.groups[0], getgrgid(0)->gr_name);
	assert_int_equal(policy_caller_add_gids(&c, gids, 2, 2), -E2BIG);
	policy_caller_done(&c);
}

/* A group's name, "no such group" told apart from a name that does not fit. */
static void
test_group_name(void **state)
{
	char name[64], tiny[2];
	struct group *gr = getgrgid(0);

	if (gr != NULL) {
		assert_int_equal(group_name(0, name, sizeof(name)), 0);
		assert_string_equal(name, gr->gr_name);
		assert_int_equal(group_name(0, tiny, sizeof(tiny)), -ENAMETOOLONG);
	}
	if (getgrgid(4242421) == NULL)
		assert_int_equal(group_name(4242421, name, sizeof(name)), -ENOENT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_too_many_groups),
		cmocka_unit_test(test_too_many_groups_by_uid),
		cmocka_unit_test(test_nameless_group),
		cmocka_unit_test(test_no_groups),
		cmocka_unit_test(test_group_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
