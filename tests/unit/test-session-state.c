/* SPDX-License-Identifier: MIT */
/* The session's state, ledger and report figures (run/session-state.c): what is written
 * reads back the same, anything else is refused, and a hostile command's argv cannot fake
 * a call's figures. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "run/session-state.h"

static void
test_ids_and_names(void **state)
{
	(void) state;
	assert_true(session_id_valid("0123456789ab"));
	assert_false(session_id_valid("0123456789aB"));
	assert_false(session_id_valid("0123456789a"));
	assert_false(session_id_valid("0123456789abc"));
	assert_false(session_id_valid("../../etc/xx"));
	assert_false(session_id_valid(""));
	assert_true(session_name_valid("agent-1.task_2"));
	assert_false(session_name_valid("-x"));
	assert_false(session_name_valid(".."));
	assert_false(session_name_valid("a/b"));
	assert_false(session_name_valid("a b"));
	assert_false(session_name_valid(""));
}

static void
test_state_round_trip(void **state)
{
	struct session_state s = {
		.id = "00112233aabb", .name = "task", .mode = "rlimit", .created_s = 17,
		.expires_ms = 123456, .ttl_ms = 3600000, .cpu_budget_ms = 10000,
		.timeout_ms = 60000, .as = 1 << 30, .fs = "ro", .net = "none",
		.report = "/home/u/r.json", .rw = { "/home/u/out", "/srv/a b" }, .n_rw = 2,
	}, t;
	char buf[8192];

	(void) state;
	assert_true(session_state_format(&s, buf, sizeof(buf)) > 0);
	assert_int_equal(session_state_parse(buf, &t), 0);
	assert_string_equal(t.id, s.id);
	assert_string_equal(t.name, "task");
	assert_string_equal(t.report, s.report);
	assert_int_equal(t.cpu_budget_ms, 10000);
	assert_int_equal(t.expires_ms, 123456);
	assert_int_equal(t.as, 1 << 30);
	assert_int_equal(t.n_rw, 2);
	assert_string_equal(t.rw[1], "/srv/a b");
	assert_int_equal(session_state_format(&s, buf, 10), -ENOBUFS);
	strcpy(s.rw[0], "relative");
	assert_int_equal(session_state_format(&s, buf, sizeof(buf)), -EINVAL);
	strcpy(s.rw[0], "/x\nid=ffffffffffff");
	assert_int_equal(session_state_format(&s, buf, sizeof(buf)), -EINVAL);
	strcpy(s.rw[0], "/home/u/out");
	strcpy(s.name, "a\nid=ffffffffffff");
	assert_int_equal(session_state_format(&s, buf, sizeof(buf)), -EINVAL);
}

static void
test_state_refused(void **state)
{
	struct session_state t;

	(void) state;
	assert_int_equal(session_state_parse("id=00112233aabb\n", &t), -EINVAL);    /* no mode */
	assert_int_equal(session_state_parse("id=00112233aabb\nmode=rlimit", &t), -EINVAL);
	assert_int_equal(session_state_parse("id=00112233aabb\nmode=rlimit\nx=1\n", &t), -EINVAL);
	assert_int_equal(session_state_parse("id=../x\nmode=rlimit\n", &t), -EINVAL);
	assert_int_equal(session_state_parse("id=00112233aabb\nmode=rlimit\nas=-1\n", &t),
			 -EINVAL);
	assert_int_equal(session_state_parse("id=00112233aabb\nmode=rlimit\nname=a b\n", &t),
			 -EINVAL);
	assert_int_equal(session_state_parse("id=00112233aabb\nmode=rlimit\nrw=x\n", &t), -EINVAL);
	assert_int_equal(session_state_parse("id=00112233aabb\nmode=rlimit\nrw=/1\nrw=/2\nrw=/3\n"
					     "rw=/4\nrw=/5\nrw=/6\nrw=/7\nrw=/8\nrw=/9\n",
					     &t),
			 -EINVAL); /* more than SESSION_RW_MAX */
	assert_int_equal(session_state_parse("id=00112233aabb\nmode=rlimit\nas=5\n", &t), 0);
	assert_int_equal(t.as, 5);
}

struct sum { unsigned n; uint64_t cpu; int last_exit; };

static int
add(const struct session_call *c, void *ud)
{
	struct sum *s = ud;

	s->n++;
	s->cpu += c->cpu_ms;
	s->last_exit = c->exit_code;
	return 0;
}

static void
test_ledger(void **state)
{
	struct session_call c = { .n = 2, .id = "1000-abcdef012345", .verdict = "timeout",
				  .exit_code = -1, .wall_ms = 5000, .cpu_ms = 1500 };
	char line[256], all[512];
	struct sum s = {};

	(void) state;
	assert_true(session_call_format(&c, line, sizeof(line)) > 0);
	assert_string_equal(line, "2 1000-abcdef012345 timeout - 5000 1500\n");
	snprintf(all, sizeof(all), "1 1000-a ok 0 10 3\n%s", line);
	assert_int_equal(session_calls_parse(all, add, &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.cpu, 1503);
	assert_int_equal(s.last_exit, -1);
	assert_int_equal(session_calls_parse("1 x ok 0 10\n", add, &s), -EINVAL);
	assert_int_equal(session_calls_parse("1 x ok 0 10 3 9\n", add, &s), -EINVAL);
	assert_int_equal(session_calls_parse("1 x ok 0 10 3", add, &s), -EINVAL);
	assert_int_equal(session_calls_parse("0 x ok 0 10 3\n", add, &s), -EINVAL);
	assert_int_equal(session_calls_parse("1 x ok 256 10 3\n", add, &s), -EINVAL);
}

static void
test_from_report(void **state)
{
	/* A command whose argv imitates the keys: escaped by the report, so never matched. */
	const char *rep = "{\"sandcap_report\": 1, \"mode\": \"rlimit\", \"id\": \"0-0a0b0c0d0e0f\", "
		"\"command\": [\"echo\", \"\\\"verdict\\\": \\\"ok\\\", \\\"cpu_user_ms\\\": 0\"], "
		"\"verdict\": \"cpu-time\", \"limits_hit\": [\"cpu-time\"], \"exit_code\": null, "
		"\"usage\": {\"wall_ms\": 1023, \"cpu_user_ms\": 955, \"cpu_system_ms\": 3}, "
		"\"killed_by\": {\"pid\": 1}}";
	struct session_call c = { .n = 4 };

	(void) state;
	assert_int_equal(session_call_from_report(rep, &c), 0);
	assert_int_equal(c.n, 4);
	assert_string_equal(c.id, "0-0a0b0c0d0e0f");
	assert_string_equal(c.verdict, "cpu-time");
	assert_int_equal(c.exit_code, -1);
	assert_int_equal(c.wall_ms, 1023);
	assert_int_equal(c.cpu_ms, 958);
	assert_int_equal(session_call_from_report("{\"verdict\": \"ok\"}", &c), -EINVAL);
	assert_int_equal(session_call_from_report("{\"id\": \"x\", \"verdict\": \"ok\", "
		"\"exit_code\": 0, \"usage\": {\"wall_ms\": 1, \"cpu_user_ms\": 2, "
		"\"cpu_system_ms\": 3}}", &c), 0);
	assert_int_equal(c.exit_code, 0);
	assert_int_equal(c.cpu_ms, 5);
}

static void
test_cap(void **state)
{
	(void) state;
	assert_int_equal(session_cap(0, 0), 0);
	assert_int_equal(session_cap(5, 0), 5);
	assert_int_equal(session_cap(0, 7), 7);
	assert_int_equal(session_cap(5, 7), 5);
	assert_int_equal(session_cap(9, 7), 7);
}

/* The mode is the id's: a call that rewrites the state cannot change it, nor name another
 * level than the one the session was named after. */
static void
test_id_mode_and_level(void **state)
{
	(void) state;
	assert_string_equal(session_id_mode("c0123456789a"), "cgroup");
	assert_string_equal(session_id_mode("d0123456789a"), "user-cgroup");
	assert_string_equal(session_id_mode("00123456789a"), "rlimit");
	assert_string_equal(session_id_mode("e0123456789a"), "rlimit");
	assert_true(session_level_matches("c0123456789a", "1000-0123456789a00000", 1000));
	assert_true(session_level_matches("c0123456789a", "1000-0123456789affff0", 1000));
	/* another uid, another session's level, a level of another form, an rlimit id */
	assert_false(session_level_matches("c0123456789a", "1001-0123456789a00000", 1000));
	assert_false(session_level_matches("c0123456789a", "1000-1123456789a00000", 1000));
	assert_false(session_level_matches("c0123456789a", "1000-0123456789a0000", 1000));
	assert_false(session_level_matches("c0123456789a", "1000-0123456789a000000", 1000));
	assert_false(session_level_matches("c0123456789a", "1000-0123456789a0000/", 1000));
	assert_false(session_level_matches("c0123456789a", "1000-0123456789a0000G", 1000));
	assert_false(session_level_matches("00123456789a", "1000-0123456789a00000", 1000));
	assert_false(session_level_matches("c0123", "1000-0123456789a00000", 1000));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_and_names),
		cmocka_unit_test(test_state_round_trip),
		cmocka_unit_test(test_state_refused),
		cmocka_unit_test(test_ledger),
		cmocka_unit_test(test_from_report),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_id_mode_and_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
