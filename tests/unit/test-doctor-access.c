/* SPDX-License-Identifier: MIT */
/* Unit tests for frontend/cmd/doctor-access.c (sandcap doctor: does the policy allow me, and
 * does this login session have the group that does?) and lib/deadline-record.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "deadline-record.h"
#include "cmd/doctor-access.h"
#include "policy.h"

static const char pkg_policy[] =
	"[sandcap]\ncgroup_root = /sys/fs/cgroup/sandcap\nworkspace_root = /run/sandcap\n"
	"allow_groups = sandcap\n[limits]\nmemory = 1G\n[user:mallory]\nallow = no\n";

static struct policy *
parse(const char *text)
{
	struct policy *p = NULL;
	char err[POLICY_ERR_MAX];
	unsigned line = 0;

	assert_int_equal(policy_parse_string(text, strlen(text), "t.ini", &p, &line, err,
					     sizeof(err)), 0);
	return p;
}

static enum doctor_access
check(const struct policy *p, const char *user, const char *const *db, size_t ndb,
      const char *const *sess, size_t nsess, char *what, char *fix)
{
	return doctor_access_check(p, user, db, ndb, sess, nsess, what, 512, fix, 512);
}

static void
test_member_in_session_ok(void **state)
{
	static const char *const g[] = { "alice", "sandcap" };
	struct policy *p = parse(pkg_policy);
	char what[512], fix[512];

	(void) state;
	assert_int_equal(check(p, "alice", g, 2, g, 2, what, fix), DOCTOR_ACCESS_OK);
	assert_string_equal(fix, "");
	policy_free(p);
}

static void
test_not_member_denied_with_adduser_fix(void **state)
{
	static const char *const g[] = { "bob" };
	struct policy *p = parse(pkg_policy);
	char what[512], fix[512];

	(void) state;
	assert_int_equal(check(p, "bob", g, 1, g, 1, what, fix), DOCTOR_ACCESS_DENIED);
	assert_non_null(strstr(what, "does not let user bob"));
	assert_non_null(strstr(fix, "adduser bob sandcap"));
	assert_non_null(strstr(fix, "logs out and back in"));
	policy_free(p);
}

static void
test_added_after_login_relogin(void **state)
{
	static const char *const db[] = { "carol", "sandcap" }, *const sess[] = { "carol" };
	struct policy *p = parse(pkg_policy);
	char what[512], fix[512];

	(void) state;
	assert_int_equal(check(p, "carol", db, 2, sess, 1, what, fix), DOCTOR_ACCESS_RELOGIN);
	assert_non_null(strstr(what, "through group sandcap"));
	assert_non_null(strstr(fix, "log out and back in"));
	assert_non_null(strstr(fix, "newgrp sandcap"));
	policy_free(p);
}

static void
test_user_banned_no_adduser_fix(void **state)
{
	static const char *const g[] = { "mallory", "sandcap" };
	struct policy *p = parse(pkg_policy);
	char what[512], fix[512];

	(void) state;
	assert_int_equal(check(p, "mallory", g, 2, g, 2, what, fix), DOCTOR_ACCESS_DENIED);
	assert_null(strstr(fix, "adduser"));
	assert_non_null(strstr(fix, "policy show --user mallory"));
	policy_free(p);
}

static void
test_open_policy_everyone(void **state)
{
	struct policy *p = parse("[sandcap]\ncgroup_root = /sys/fs/cgroup/x\n"
				 "workspace_root = /run/x\n");
	char what[512], fix[512];

	(void) state;
	assert_int_equal(check(p, "dave", NULL, 0, NULL, 0, what, fix), DOCTOR_ACCESS_OK);
	policy_free(p);
}

static const struct deadline_record good_rec = {
	.boottime_ms = 12345,
	.cgroup = "/sys/fs/cgroup/sandcap/1000-0123456789abcdef",
	.workspace = "/run/sandcap/1000/1000-0123456789abcdef",
	.lock = "/run/sandcap/.locks/1000-0123456789abcdef.lock",
};

static void
test_record_roundtrip(void **state)
{
	struct deadline_record r;
	char buf[DEADLINE_TEXT_MAX];
	size_t len;

	(void) state;
	assert_int_equal(deadline_format(&good_rec, buf, sizeof(buf), &len), 0);
	assert_int_equal(deadline_parse(buf, len, &r), 0);
	assert_memory_equal(&r, &good_rec, sizeof(r));
}

/* Every strict prefix, every extension, and single-byte changes fail or parse exactly. */
static void
test_record_truncations_and_junk(void **state)
{
	struct deadline_record r, sentinel;
	char buf[DEADLINE_TEXT_MAX], bad[DEADLINE_TEXT_MAX + 8];
	size_t len;

	(void) state;
	assert_int_equal(deadline_format(&good_rec, buf, sizeof(buf), &len), 0);
	memset(&sentinel, 0x5a, sizeof(sentinel));
	for (size_t n = 0; n < len; n++) {
		r = sentinel;
		assert_int_equal(deadline_parse(buf, n, &r), -EBADMSG);
		assert_memory_equal(&r, &sentinel, sizeof(r));  /* untouched on failure */
	}
	memcpy(bad, buf, len);
	memcpy(bad + len, "x\n", 2);
	assert_int_equal(deadline_parse(bad, len + 2, &r), -EBADMSG);
	for (size_t i = 0; i < len; i++) {             /* control bytes, NULs */
		memcpy(bad, buf, len);
		bad[i] = buf[i] == '\n' ? 'x' : '\001';
		assert_int_equal(deadline_parse(bad, len, &r), -EBADMSG);
	}
	assert_int_equal(deadline_parse("sandcap-deadline 1\nboottime_ms 012\n", 35, &r),
			 -EBADMSG);
}

static void
test_record_names_and_paths(void **state)
{
	struct deadline_record r = good_rec;
	char buf[DEADLINE_TEXT_MAX];

	(void) state;
	assert_true(deadline_name_is_valid("1000-0123456789abcdef"));
	assert_true(deadline_name_is_valid("0-0123456789abcdef"));
	assert_false(deadline_name_is_valid(".new-1000-0123456789abcdef"));
	assert_false(deadline_name_is_valid("01-0123456789abcdef"));
	assert_false(deadline_name_is_valid("1000-0123456789ABCDEF"));
	assert_false(deadline_name_is_valid("1000-0123456789abcde"));
	assert_false(deadline_name_is_valid("12345678901-0123456789abcdef"));
	assert_false(deadline_name_is_valid("-0123456789abcdef"));
	strcpy(r.cgroup, "relative/path");
	assert_int_equal(deadline_format(&r, buf, sizeof(buf), NULL), -EINVAL);
	strcpy(r.cgroup, "/a\nb");
	assert_int_equal(deadline_format(&r, buf, sizeof(buf), NULL), -EINVAL);
	assert_string_equal(deadline_basename(good_rec.cgroup), "1000-0123456789abcdef");
	assert_null(deadline_basename("/x/"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_member_in_session_ok),
		cmocka_unit_test(test_not_member_denied_with_adduser_fix),
		cmocka_unit_test(test_added_after_login_relogin),
		cmocka_unit_test(test_user_banned_no_adduser_fix),
		cmocka_unit_test(test_open_policy_everyone),
		cmocka_unit_test(test_record_roundtrip),
		cmocka_unit_test(test_record_truncations_and_junk),
		cmocka_unit_test(test_record_names_and_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
