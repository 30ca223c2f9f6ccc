/* SPDX-License-Identifier: MIT */
/* Pure helper logic: leaf names (generation and the strict parser reclaim relies on) and
 * the dispatch state machine (which request is allowed when). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cgroup.h"
#include "macro.h"
#include "session.h"

static void
test_name_format_and_parse(void **state)
{
	static const uint8_t rnd[8] = { 0x00, 0x01, 0xab, 0xcd, 0xef, 0x10, 0x99, 0xff };
	char buf[CG_NAME_MAX];
	uid_t uid = 0;

	(void) state;
	cg_name_format(4201, rnd, buf, sizeof(buf));
	assert_string_equal(buf, "4201-0001abcdef1099ff");
	assert_true(cg_name_parse(buf, &uid));
	assert_int_equal(uid, 4201);
	cg_name_format(4294967294U, rnd, buf, sizeof(buf));
	assert_true(strlen(buf) < CG_NAME_MAX);
	assert_true(cg_name_parse(buf, &uid));
	assert_int_equal(uid, 4294967294U);
}

static void
test_name_parse_rejects(void **state)
{
	static const char *const bad[] = {
		"", "-0001abcdef1099ff", "4201", "4201-", "4201-0001abcdef1099f",
		"4201-0001abcdef1099fff", "4201-0001ABCDEF1099FF", "04201-0001abcdef1099ff",
		"+4201-0001abcdef1099ff", "4201-0001abcdef1099f/", "4294967295-0001abcdef1099ff",
		"99999999999-0001abcdef1099ff", "4201--001abcdef1099ff", "4201-0001abcdef1099ff\n",
		"cgroup.procs", "..", "4201 -0001abcdef1099ff", "a201-0001abcdef1099ff",
	};
	uid_t uid = 77;

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (cg_name_parse(bad[i], &uid))
			fail_msg("accepted '%s'", bad[i]);
		assert_int_equal(uid, 77);      /* untouched */
	}
	assert_true(cg_name_parse("0-0000000000000000", &uid));
	assert_int_equal(uid, 0);
}

static void
test_name_new_is_random(void **state)
{
	char a[CG_NAME_MAX], b[CG_NAME_MAX];

	(void) state;
	assert_int_equal(cg_name_new(1000, a, sizeof(a)), 0);
	assert_int_equal(cg_name_new(1000, b, sizeof(b)), 0);
	assert_true(cg_name_parse(a, NULL));
	assert_string_not_equal(a, b);
}

/* Walk the state machine: returns the new state, or fails the test if type is refused
 * when want_ok, or allowed when !want_ok. */
static unsigned
step(unsigned st, uint16_t type, int result, int want_lookup)
{
	const struct op *op = NULL;
	int r = dispatch_lookup(st, type, &op);

	assert_int_equal(r, want_lookup);
	if (r < 0)
		return st;
	assert_int_equal(op->type, type);
	return dispatch_next(st, op, result);
}

static void
test_dispatch_happy_path(void **state)
{
	unsigned st = SESSION_START_PERMITTED;

	(void) state;
	st = step(st, WIRE_REQ_HELLO, 0, 0);
	st = step(st, WIRE_REQ_CREATE, 0, 0);
	st = step(st, WIRE_REQ_SPAWN, 0, 0);
	st = step(st, WIRE_REQ_KILL, 0, 0);
	st = step(st, WIRE_REQ_KILL, 0, 0);             /* KILL is repeatable */
	st = step(st, WIRE_REQ_DESTROY, 0, 0);
	/* After DESTROY nothing is allowed. */
	for (uint16_t t = WIRE_REQ_HELLO; t <= WIRE_REQ_DESTROY; t++)
		(void) step(st, t, 0, -EPERM);
}

static void
test_dispatch_out_of_order(void **state)
{
	unsigned st = SESSION_START_PERMITTED;

	(void) state;
	/* Before HELLO: only HELLO. */
	(void) step(st, WIRE_REQ_CREATE, 0, -EPERM);
	(void) step(st, WIRE_REQ_SPAWN, 0, -EPERM);
	(void) step(st, WIRE_REQ_KILL, 0, -EPERM);
	(void) step(st, WIRE_REQ_DESTROY, 0, -EPERM);
	st = step(st, WIRE_REQ_HELLO, 0, 0);
	(void) step(st, WIRE_REQ_HELLO, 0, -EPERM);     /* HELLO once */
	(void) step(st, WIRE_REQ_SPAWN, 0, -EPERM);    /* no leaf to spawn in yet */
	(void) step(st, WIRE_REQ_KILL, 0, -EPERM);
	(void) step(st, WIRE_REQ_DESTROY, 0, -EPERM);
	st = step(st, WIRE_REQ_CREATE, 0, 0);
	(void) step(st, WIRE_REQ_CREATE, 0, -EPERM);    /* one sandbox per session */
	/* A refused SPAWN may be retried; a successful one may not. */
	st = step(st, WIRE_REQ_SPAWN, -EPERM, 0);
	st = step(st, WIRE_REQ_SPAWN, 0, 0);
	(void) step(st, WIRE_REQ_SPAWN, 0, -EPERM);
	/* DESTROY is allowed without SPAWN too (checked from a fresh CREATE state). */
}

static void
test_dispatch_unknown_types(void **state)
{
	static const uint16_t bad[] = { 0, 6, 0x7fff, WIRE_REPLY, WIRE_REPLY | WIRE_REQ_HELLO,
					0xffff };

	(void) state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		(void) step(~0u, bad[i], 0, -EPROTO);
}

static void
test_dispatch_failed_create_keeps_state(void **state)
{
	unsigned st = SESSION_START_PERMITTED;

	(void) state;
	st = step(st, WIRE_REQ_HELLO, 0, 0);
	st = step(st, WIRE_REQ_CREATE, -EPERM, 0);
	/* (the session ends after a failed CREATE: OP_END_ON_FAIL), but the state machine
	 * itself grants nothing on failure */
	(void) step(st, WIRE_REQ_SPAWN, 0, -EPERM);
	(void) step(st, WIRE_REQ_DESTROY, 0, -EPERM);
}

/* The leaf check the helper's deadline killer and the reaper share: a record's path must
 * lie below /sys/fs/cgroup and end in the record's own name. */
static void
test_leaf_path(void **state)
{
	static const char *const bad[] = {
		"/tmp/4201-0001abcdef1099ff", "/sys/fs/cgroupx/4201-0001abcdef1099ff",
		"sys/fs/cgroup/4201-0001abcdef1099ff", "/sys/fs/cgroup/4201-0001abcdef1099f",
		"/sys/fs/cgroup/../../tmp/4201-0001abcdef1099ff", "/sys/fs/cgroup/", "",
		"/sys/fs/cgroup/sandcap/4201-0001abcdef1099ff/",
	};

	(void) state;
	assert_true(cg_leaf_path_ok("/sys/fs/cgroup/sandcap/4201/4201-0001abcdef1099ff",
				    "4201-0001abcdef1099ff"));
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		if (cg_leaf_path_ok(bad[i], "4201-0001abcdef1099ff"))
			fail_msg("%s accepted", bad[i]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_format_and_parse),
		cmocka_unit_test(test_name_parse_rejects),
		cmocka_unit_test(test_leaf_path),
		cmocka_unit_test(test_name_new_is_random),
		cmocka_unit_test(test_dispatch_happy_path),
		cmocka_unit_test(test_dispatch_out_of_order),
		cmocka_unit_test(test_dispatch_unknown_types),
		cmocka_unit_test(test_dispatch_failed_create_keeps_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
