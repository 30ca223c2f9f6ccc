/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/run/caller.c: the caller's names for the policy, failing closed when
 * it is in more groups than can be matched. */
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

static void
free_names(char *user, char **names, size_t n)
{
	free(user);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
}

/* Room for every group: the user's name, and its primary group's name first. */
static void
test_names(void **state)
{
	char *user = NULL, *names[1024];
	size_t n = 0;
	struct passwd *pw = getpwuid(getuid());
	struct group *gr;
	int r = caller_names(true, &user, names, 1024, &n);

	if (pw == NULL) {
		assert_int_equal(r, -ENOENT);
		assert_null(user);
	} else {
		assert_int_equal(r, 0);
		assert_string_equal(user, pw->pw_name);
		gr = getgrgid(pw->pw_gid);
		assert_true(n >= 1 || gr == NULL);
		if (gr != NULL)
			assert_string_equal(names[0], gr->gr_name);
	}
	free_names(user, names, n);
}

/* Fewer places than groups: refused, never a partial list a [group:] deny could miss. */
static void
test_too_many_groups(void **state)
{
	char *user = NULL, *names[1];
	size_t n = 42;
	int r = caller_names(true, &user, names, 0, &n);

	assert_int_equal(r, -E2BIG);
	assert_true(n == 0);
	free(user);
}

/* Without groups wanted the bound does not matter. */
static void
test_no_groups(void **state)
{
	char *user = NULL, *names[1];
	size_t n = 42;
	int r = caller_names(false, &user, names, 0, &n);

	assert_true(r == 0 || r == -ENOENT);
	assert_true(n == 0);
	free(user);
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
		cmocka_unit_test(test_no_groups),
		cmocka_unit_test(test_group_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
