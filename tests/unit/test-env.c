/* SPDX-License-Identifier: MIT */
/* frontend/supervise/env.c: the command's environment from --env-clear, --env and --env-deny. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "supervise/env.h"

static char *base[] = {
	"PATH=/usr/bin:/bin", "HOME=/home/u", "AWS_SECRET_ACCESS_KEY=s3cr3t", "GITHUB_TOKEN=gh",
	"LC_ALL=C", "LC_TIME=en_GB", "LANG=C.UTF-8", "EDITOR=vi", "TMPDIR=/tmp/u",
	"PATH=/second/ignored", "NOEQUALS", "MY_TOKEN_FILE=/x", NULL,
};

/* The built environment as "A=1 B=2 ..." for one comparison. */
static char *
joined(const struct env_opts *o)
{
	static char buf[1024];
	char **v = NULL;
	int n = env_build(o, base, &v);
	size_t len = 0;

	assert_true(n >= 0);
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		len += (size_t) snprintf(buf + len, sizeof(buf) - len, "%s%s", i ? " " : "", v[i]);
	assert_null(v[n]);
	free(v);
	return buf;
}

static void
test_nothing_asked_passes_all_but_duplicates(void **state)
{
	struct env_opts o = {};

	(void) state;
	assert_false(env_active(&o));
	assert_string_equal(joined(&o), "PATH=/usr/bin:/bin HOME=/home/u AWS_SECRET_ACCESS_KEY=s3cr3t "
			    "GITHUB_TOKEN=gh LC_ALL=C LC_TIME=en_GB LANG=C.UTF-8 EDITOR=vi "
			    "TMPDIR=/tmp/u MY_TOKEN_FILE=/x");
}

static void
test_clear_keeps_the_basic_names(void **state)
{
	struct env_opts o = { .clear = true };

	(void) state;
	assert_true(env_active(&o));
	assert_string_equal(joined(&o), "PATH=/usr/bin:/bin HOME=/home/u LC_ALL=C LC_TIME=en_GB "
			    "LANG=C.UTF-8 TMPDIR=/tmp/u");
}

static void
test_deny_globs(void **state)
{
	struct env_opts o = {};
	char err[256];

	(void) state;
	assert_int_equal(env_add_deny(&o, "*TOKEN*", err, sizeof(err)), 0);
	assert_int_equal(env_add_deny(&o, "AWS_*", err, sizeof(err)), 0);
	assert_string_equal(joined(&o), "PATH=/usr/bin:/bin HOME=/home/u LC_ALL=C LC_TIME=en_GB "
			    "LANG=C.UTF-8 EDITOR=vi TMPDIR=/tmp/u");
	/* a deny glob also applies after --env-clear */
	o.clear = true;
	assert_int_equal(env_add_deny(&o, "LC_*", err, sizeof(err)), 0);
	assert_string_equal(joined(&o), "PATH=/usr/bin:/bin HOME=/home/u LANG=C.UTF-8 TMPDIR=/tmp/u");
}

static void
test_env_pass_and_set(void **state)
{
	struct env_opts o = { .clear = true };
	char err[256];

	(void) state;
	assert_int_equal(env_add(&o, "EDITOR", err, sizeof(err)), 0);
	assert_int_equal(env_add(&o, "NOT_SET_ANYWHERE", err, sizeof(err)), 0);
	assert_int_equal(env_add(&o, "HOME=/sandbox", err, sizeof(err)), 0);
	assert_int_equal(env_add(&o, "NEW=a=b", err, sizeof(err)), 0);
	assert_int_equal(env_add(&o, "EMPTY=", err, sizeof(err)), 0);
	assert_string_equal(joined(&o), "PATH=/usr/bin:/bin HOME=/sandbox LC_ALL=C LC_TIME=en_GB "
			    "LANG=C.UTF-8 TMPDIR=/tmp/u EDITOR=vi NEW=a=b EMPTY=");
}

static void
test_named_beats_deny_and_later_beats_earlier(void **state)
{
	struct env_opts o = {};
	char err[256];

	(void) state;
	assert_int_equal(env_add_deny(&o, "*TOKEN*", err, sizeof(err)), 0);
	assert_int_equal(env_add(&o, "GITHUB_TOKEN", err, sizeof(err)), 0);
	assert_int_equal(env_add(&o, "X=1", err, sizeof(err)), 0);
	assert_int_equal(env_add(&o, "X=2", err, sizeof(err)), 0);
	assert_int_equal(env_add(&o, "PATH", err, sizeof(err)), 0);     /* the first PATH */
	assert_string_equal(joined(&o), "PATH=/usr/bin:/bin HOME=/home/u AWS_SECRET_ACCESS_KEY=s3cr3t "
			    "LC_ALL=C LC_TIME=en_GB LANG=C.UTF-8 EDITOR=vi TMPDIR=/tmp/u "
			    "GITHUB_TOKEN=gh X=2");
}

static void
test_bad_arguments_are_refused(void **state)
{
	static const char *const bad_env[] = { "", "=x", "1ABC", "A-B", "A B=1", "Ü=1", "A.B" };
	static const char *const bad_glob[] = { "", "A=B" };
	struct env_opts o = {};
	char err[256];

	(void) state;
	for (size_t i = 0; i < sizeof(bad_env) / sizeof(bad_env[0]); i++) {
		err[0] = '\0';
		assert_int_equal(env_add(&o, bad_env[i], err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "--env: "));
	}
	for (size_t i = 0; i < sizeof(bad_glob) / sizeof(bad_glob[0]); i++) {
		err[0] = '\0';
		assert_int_equal(env_add_deny(&o, bad_glob[i], err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "--env-deny: "));
	}
	assert_int_equal(o.n_env, 0);
	assert_int_equal(o.n_deny, 0);
	for (size_t i = 0; i < ENV_RULES_MAX; i++)
		assert_int_equal(env_add(&o, "A=1", err, sizeof(err)), 0);
	assert_int_equal(env_add(&o, "A=1", err, sizeof(err)), -E2BIG);
}

static void
test_empty_and_null_base(void **state)
{
	struct env_opts o = { .clear = true };
	char *empty[] = { NULL }, **v = NULL;
	char err[256];

	(void) state;
	assert_int_equal(env_add(&o, "A=1", err, sizeof(err)), 0);
	assert_int_equal(env_build(&o, empty, &v), 1);
	assert_string_equal(v[0], "A=1");
	free(v);
	assert_int_equal(env_build(&o, NULL, &v), 1);
	free(v);
}

/* env_for_exec(): what setenv(NAME, VALUE, 1) did in the child (issue 19). */
static void
test_for_exec(void **state)
{
	char *vars[] = { "A=1", "PWD=/old", "TMPDIR=/tmp", "PWD=/second", "TMPDIR", NULL };
	char *no_pwd[] = { "A=1", "PWDX=1", "PWD", NULL };
	char *empty[] = { NULL };
	char **v = NULL;

	(void) state;
	/* Nothing to change: NULL, use base. */
	assert_int_equal(env_for_exec(vars, NULL, NULL, &v), 0);
	assert_null(v);
	/* PWD is only corrected where it is set ("PWD" without '=' and "PWDX=" are not). */
	assert_int_equal(env_for_exec(no_pwd, "/w", NULL, &v), 0);
	assert_null(v);
	/* The first entry of each name is replaced, the rest stay as they were. */
	assert_int_equal(env_for_exec(vars, "/new", "/ws", &v), 0);
	assert_non_null(v);
	assert_string_equal(v[0], "A=1");
	assert_string_equal(v[1], "PWD=/new");
	assert_string_equal(v[2], "TMPDIR=/ws");
	assert_string_equal(v[3], "PWD=/second");
	assert_string_equal(v[4], "TMPDIR");
	assert_null(v[5]);
	free(v);
	/* TMPDIR is appended when there is none. */
	assert_int_equal(env_for_exec(no_pwd, "/w", "/ws", &v), 0);
	assert_string_equal(v[2], "PWD");
	assert_string_equal(v[3], "TMPDIR=/ws");
	assert_null(v[4]);
	free(v);
	assert_int_equal(env_for_exec(empty, "/w", "/ws", &v), 0);
	assert_string_equal(v[0], "TMPDIR=/ws");
	assert_null(v[1]);
	free(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_asked_passes_all_but_duplicates),
		cmocka_unit_test(test_clear_keeps_the_basic_names),
		cmocka_unit_test(test_deny_globs),
		cmocka_unit_test(test_env_pass_and_set),
		cmocka_unit_test(test_named_beats_deny_and_later_beats_earlier),
		cmocka_unit_test(test_bad_arguments_are_refused),
		cmocka_unit_test(test_empty_and_null_base),
		cmocka_unit_test(test_for_exec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
