/* SPDX-License-Identifier: MIT */
/* The JSON writer and the run report: escaping of odd bytes (argv is arbitrary bytes),
 * nesting and commas, and the report's exact shape. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/json.h"
#include "report/report.h"

/* Escape len bytes of s; returns a malloc'ed string. */
static char *
esc(const char *s, size_t len)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	json_write_string(f, s, len);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void
check(const char *in, size_t len, const char *want)
{
	char *got = esc(in, len);

	assert_string_equal(got, want);
	free(got);
}

static void
test_plain_and_quotes(void **state)
{
	(void) state;
	check("", 0, "\"\"");
	check("abc", 3, "\"abc\"");
	check("a\"b\\c/", 6, "\"a\\\"b\\\\c/\"");
}

static void
test_control_bytes(void **state)
{
	(void) state;
	check("a\nb\tc\r", 6, "\"a\\u000ab\\u0009c\\u000d\"");
	check("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"");
	/* An embedded NUL (length-delimited input) is escaped, never truncates. */
	check("a\0b", 3, "\"a\\u0000b\"");
	check("\x1b[31m", 5, "\"\\u001b[31m\"");
}

static void
test_valid_utf8_passes(void **state)
{
	(void) state;
	check("caf\xc3\xa9", 5, "\"caf\xc3\xa9\"");                     /* U+00E9 */
	check("\xe2\x82\xac", 3, "\"\xe2\x82\xac\"");                   /* U+20AC */
	check("\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\"");           /* U+1F600 */
	check("\xf4\x8f\xbf\xbf", 4, "\"\xf4\x8f\xbf\xbf\"");           /* U+10FFFF */
	check("\xef\xbf\xbd", 3, "\"\xef\xbf\xbd\"");                   /* U+FFFD itself */
}

static void
test_invalid_utf8_bytes(void **state)
{
	(void) state;
	check("\x80", 1, "\"\\u0080\"");                                /* stray continuation */
	check("\xff\xfe", 2, "\"\\u00ff\\u00fe\"");
	check("\xc3", 1, "\"\\u00c3\"");                                /* truncated */
	check("\xc3x", 2, "\"\\u00c3x\"");
	check("\xe2\x82", 2, "\"\\u00e2\\u0082\"");
	check("\xc0\xaf", 2, "\"\\u00c0\\u00af\"");                     /* overlong '/' */
	check("\xe0\x80\xaf", 3, "\"\\u00e0\\u0080\\u00af\"");          /* overlong, 3 bytes */
	check("\xf0\x80\x80\xaf", 4, "\"\\u00f0\\u0080\\u0080\\u00af\"");
	check("\xed\xa0\x80", 3, "\"\\u00ed\\u00a0\\u0080\"");          /* surrogate D800 */
	check("\xf4\x90\x80\x80", 4, "\"\\u00f4\\u0090\\u0080\\u0080\""); /* > U+10FFFF */
	check("\xf8\x88\x80\x80\x80", 5, "\"\\u00f8\\u0088\\u0080\\u0080\\u0080\"");
	/* A valid character right after an invalid byte is kept. */
	check("\x80\xc3\xa9", 3, "\"\\u0080\xc3\xa9\"");
}

/* Every output byte of the escaper is printable ASCII or part of valid UTF-8, and no raw
 * control byte or quote leaks, for all 256 single bytes and all 65536 byte pairs. */
static void
test_exhaustive_pairs(void **state)
{
	(void) state;
	for (unsigned a = 0; a < 256; a++) {
		for (unsigned b = 0; b < 256; b++) {
			char in[2] = { (char) a, (char) b };
			char *out = esc(in, 2);
			size_t n = strlen(out);

			assert_true(n >= 2 && out[0] == '"' && out[n - 1] == '"');
			for (size_t i = 1; i + 1 < n; i++) {
				unsigned char c = (unsigned char) out[i];

				assert_true(c >= 0x20 && c != 0x7f);
				if (c == '"')
					assert_int_equal(out[i - 1], '\\');
			}
			free(out);
		}
	}
}

static char *
write_doc(void (*fn)(struct json *j), int *ret_err)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);
	struct json j;

	assert_non_null(f);
	json_init(&j, f);
	fn(&j);
	*ret_err = json_finish(&j);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void
doc_nested(struct json *j)
{
	json_object_begin(j);
	json_key(j, "a");
	json_uint(j, 1);
	json_key(j, "b");
	json_array_begin(j);
	json_uint(j, 2);
	json_string(j, "x");
	json_null(j);
	json_object_begin(j);
	json_object_end(j);
	json_array_end(j);
	json_key(j, "c");
	json_string(j, NULL);
	json_key(j, "d");
	json_array_begin(j);
	json_array_end(j);
	json_object_end(j);
}

static void
doc_unbalanced(struct json *j)
{
	json_object_begin(j);
	json_key(j, "a");
}

static void
test_structure(void **state)
{
	int err;
	char *out = write_doc(doc_nested, &err);

	(void) state;
	assert_int_equal(err, 0);
	assert_string_equal(out, "{\"a\": 1, \"b\": [2, \"x\", null, {}], \"c\": null, "
				 "\"d\": []}");
	free(out);
	out = write_doc(doc_unbalanced, &err);
	assert_int_equal(err, -EINVAL);
	free(out);
}

static void
test_report_shape(void **state)
{
	char *argv[] = { "sh", "-c", "echo \"hi\"\n\x01\xff", NULL };
	char *envv[] = { "PATH=/bin", "SECRET=value-never-written", NULL };
	struct report r = {
		.env = envv,
		.tmpdir_set = true,
		.version = "0.1.0",
		.mode = "rlimit",
		.id = "1000-0123456789ab",
		.argv = argv,
		.v = { .kind = VERDICT_TIMEOUT, .limits_hit = 1u << VERDICT_TIMEOUT,
		       .exit_code = -1, .signal = 15, .sc_exit = 124 },
		.message = "killed after 1s (limit 1s)",
		.wall_ms = 1003, .cpu_user_ms = 1, .cpu_system_ms = 2,
		.max_rss = 1048576, .has_max_rss = true,
	};
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	(void) state;
	report_add_limit(&r, "timeout_ms", 1000);
	report_add_limit(&r, "grace_ms", 5000);
	report_add_enforcement(&r, "timeout", "%s", "sandcap");
	assert_non_null(f);
	assert_int_equal(report_write_json(f, &r), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf,
		"{\"sandcap_report\": 1, \"version\": \"0.1.0\", \"mode\": \"rlimit\", "
		"\"id\": \"1000-0123456789ab\", "
		"\"command\": [\"sh\", \"-c\", \"echo \\\"hi\\\"\\u000a\\u0001\\u00ff\"], "
		"\"verdict\": \"timeout\", \"limits_hit\": [\"timeout\"], \"exit_code\": null, "
		"\"signal\": 15, \"sandcap_exit\": 124, \"message\": \"killed after 1s (limit 1s)\", "
		"\"limits\": {\"timeout_ms\": 1000, \"grace_ms\": 5000}, "
		"\"enforcement\": {\"timeout\": \"sandcap\"}, "
		"\"usage\": {\"wall_ms\": 1003, \"cpu_user_ms\": 1, \"cpu_system_ms\": 2, "
		"\"max_rss\": 1048576, \"memory_peak\": null, \"pids_peak\": null, "
		"\"disk_used\": null, \"oom_kills\": null, \"cpu_throttled_ms\": null, \"output_bytes\": null, "
		"\"output_dropped\": null, \"killed_at_end\": 0, \"unix_refused\": null}, "
		"\"env\": [\"PATH\", \"SECRET\", \"TMPDIR\"], \"killed_by\": null}\n");
	free(buf);
}

static void
test_report_cgroup_counters_and_ok(void **state)
{
	char *argv[] = { "true", NULL };
	struct report r = {
		.version = "0.1.0", .mode = "cgroup", .id = "1-x", .argv = argv,
		.v = { .kind = VERDICT_OK, .exit_code = 0, .sc_exit = 0 },
		.message = "ok",
	};
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	(void) state;
	r.cg.has_memory_peak = true;
	r.cg.memory_peak = 4096;
	r.cg.has_memory_events = true;
	r.cg.oom_kill = 0;
	r.cg.has_cpu_throttled = true;
	r.cg.cpu_throttled_usec = 2500;
	assert_int_equal(report_write_json(f, &r), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "\"limits_hit\": [], \"exit_code\": 0, \"signal\": null"));
	assert_non_null(strstr(buf, "\"max_rss\": null, \"memory_peak\": 4096, \"pids_peak\": "
				    "null, \"disk_used\": null, \"oom_kills\": 0, "
				    "\"cpu_throttled_ms\": 2, \"output_bytes\": null, "
				    "\"output_dropped\": null, \"killed_at_end\": 0, "
				    "\"unix_refused\": null}"));
	assert_non_null(strstr(buf, "\"limits\": {}, \"enforcement\": {}"));
	free(buf);
}

/* A session-memory verdict: the session's verdict name in verdict, limits_hit and the text
 * line, and its evidence last, in oom_at ("max" as null). */
static void
test_report_session_memory(void **state)
{
	char *argv[] = { "x", NULL };
	struct report r = {
		.version = "0.1.0", .mode = "user-cgroup", .id = "1-x", .argv = argv,
		.v = { .kind = VERDICT_SESSION_MEMORY, .limits_hit = 1u << VERDICT_SESSION_MEMORY,
		       .exit_code = -1, .signal = 9, .sc_exit = 137 },
		.message = "the session's memory was reached",
		.oom_at = { .limit = "session-memory", .cgroup = "/sys/fs/cgroup/s.scope",
			    .memory_max = 67108864, .has_memory_max = true, .oom = 1,
			    .oom_kill = 2, .has_oom_kill = true, .read_by = "sandcap" },
	};
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	(void) state;
	assert_int_equal(report_write_json(f, &r), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "\"verdict\": \"session-memory\", \"limits_hit\": "
				    "[\"session-memory\"], \"exit_code\": null, \"signal\": 9, "
				    "\"sandcap_exit\": 137"));
	assert_non_null(strstr(buf, "\"killed_by\": null, \"oom_at\": {\"limit\": "
				    "\"session-memory\", \"cgroup\": \"/sys/fs/cgroup/s.scope\", "
				    "\"memory_max\": 67108864, \"oom\": 1, \"oom_kill\": 2, "
				    "\"read_by\": \"sandcap\"}}\n"));
	free(buf);
	buf = NULL;
	r.oom_at.memory_max = UINT64_MAX;
	r.oom_at.has_oom_kill = false;
	f = open_memstream(&buf, &sz);
	assert_non_null(f);
	assert_int_equal(report_write_json(f, &r), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "\"memory_max\": null, \"oom\": 1, \"oom_kill\": null"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &sz);
	assert_non_null(f);
	report_write_summary(f, &r);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "sandcap: session-memory: the session's memory was reached; "
				    "exit 137\n"));
	free(buf);
}

static void
test_summary_lines(void **state)
{
	char *argv[] = { "x", NULL };
	struct report r = {
		.argv = argv, .message = "killed after 1s (limit 1s)",
		.v = { .kind = VERDICT_TIMEOUT, .sc_exit = 124 },
		.wall_ms = 1000, .cpu_user_ms = 10, .cpu_system_ms = 0,
		.max_rss = 1258291, .has_max_rss = true,
	};
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	(void) state;
	report_write_summary(f, &r);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, "sandcap: timeout: killed after 1s (limit 1s); exit 124\n"
				 "sandcap: usage: wall 1.00s, cpu 0.01s user 0.00s sys, peak rss 1.2 MiB\n");
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_quotes),
		cmocka_unit_test(test_control_bytes),
		cmocka_unit_test(test_valid_utf8_passes),
		cmocka_unit_test(test_invalid_utf8_bytes),
		cmocka_unit_test(test_exhaustive_pairs),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_report_shape),
		cmocka_unit_test(test_report_cgroup_counters_and_ok),
		cmocka_unit_test(test_report_session_memory),
		cmocka_unit_test(test_summary_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
