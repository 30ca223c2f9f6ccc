/* SPDX-License-Identifier: MIT */
/* Unit tests for lib/ini-strict.c, the one INI reader of the policy and the profiles: what
 * reaches the callbacks, with which line and section, and what is refused before. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "ini-strict.h"

/* Every callback as one line of text: "S 1 name", "K 2 name#0 key=value", "E 3 msg". */
struct log {
	char buf[4096];
	int refuse_section;     /* refuse headers named "bad" */
	int refuse_key;         /* refuse keys named "bad" */
};

static void
add(struct log *L, const char *fmt, ...)
{
	size_t o = strlen(L->buf);
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(L->buf + o, sizeof(L->buf) - o, fmt, ap);
	va_end(ap);
}

static int
on_section(void *userdata, unsigned line, const char *name)
{
	struct log *L = userdata;

	add(L, "S %u %s\n", line, name);
	return L->refuse_section && strcmp(name, "bad") == 0 ? -EINVAL : 0;
}

static int
on_key(void *userdata, const struct ini_strict_key *k)
{
	struct log *L = userdata;

	add(L, "K %u %s#%d %s=%s\n", k->line, k->section, (int) k->section_idx, k->key,
	    k->value);
	return L->refuse_key && strcmp(k->key, "bad") == 0 ? -EINVAL : 0;
}

static void
on_error(void *userdata, unsigned line, const char *msg)
{
	add(userdata, "E %u %s\n", line, msg);
}

static const char *
parse(struct log *L, const char *text, int stop, int controls)
{
	struct ini_strict_ops ops = { .section = on_section, .key = on_key, .error = on_error,
				      .stop_at_first = stop, .allow_controls = controls };

	assert_int_equal(ini_strict_parse(text, strlen(text), &ops, L), 0);
	return L->buf;
}

/* Sections are numbered in order; blanks, comments, inline comments and CRLF are not
 * what a key's value holds; a key before any header has section "" and index -1. */
static void
test_keys(void **state)
{
	struct log L = {};

	(void) state;
	assert_string_equal(parse(&L, "\xef\xbb\xbf" "top = 1\n; c\n# c\n[a]\n  ; indented "
				  "comment\nk = v w ; comment\r\n\n[b]\nx=y#z\n", 0, 0),
			    "S 4 a\nS 8 b\nK 1 #-1 top=1\nK 6 a#0 k=v w\nK 9 b#1 x=y#z\n");
}

/* Every refusal, each at its line, and nothing of a line refused reaches a callback. */
static void
test_refusals(void **state)
{
	struct log L = {};

	(void) state;
	assert_string_equal(parse(&L, "[a]\n  k = 1\nk: v\n= 1\n[b\nk = \x01\n", 0, 0),
			    "S 1 a\n"
			    "E 2 indented line: continuation lines are not supported; start "
			    "sections and keys in the first column\n"
			    "E 3 syntax error: expected KEY = VALUE or [SECTION] (the 'KEY: VALUE' "
			    "form is not accepted)\n"
			    "E 4 missing key name before '='\n"
			    "E 5 malformed section header: expected [NAME] alone on the line\n"
			    "E 6 control character 0x01 at column 5\n");
}

/* The keys under a header the callback refused are skipped, not handed on. */
static void
test_refused_section(void **state)
{
	struct log L = { .refuse_section = 1 };

	(void) state;
	assert_string_equal(parse(&L, "[bad]\nk = 1\n[good]\nk = 2\n", 0, 0),
			    "S 1 bad\nS 3 good\nK 4 good#0 k=2\n");
}

/* Stop at the first error: nothing after a refused line is read, and after a refused key
 * no later key is handed on. */
static void
test_stop_at_first(void **state)
{
	struct log L = { .refuse_key = 1 }, M = {};

	(void) state;
	assert_string_equal(parse(&L, "[a]\nk = 1\nbad = 2\nk2 = 3\n", 1, 0),
			    "S 1 a\nK 2 a#0 k=1\nK 3 a#0 bad=2\n");
	assert_string_equal(parse(&M, "[a]\nk = 1\n  x\n[b]\n", 1, 0),
			    "S 1 a\nE 3 indented line: continuation lines are not supported; "
			    "start sections and keys in the first column\nK 2 a#0 k=1\n");
}

/* Control characters: refused, or handed on as they are where allowed (never NUL). */
static void
test_controls(void **state)
{
	struct log L = {};
	char text[] = "[a]\nk = /tmp/\x1b[2J\n";

	(void) state;
	assert_string_equal(parse(&L, text, 0, 1), "S 1 a\nK 2 a#0 k=/tmp/\x1b[2J\n");
}

/* A line over the limit is refused with its length, whatever libinih's buffer. */
static void
test_long_line(void **state)
{
	struct log L = {};
	char text[300] = "[a]\nk = ";

	(void) state;
	memset(text + 8, 'x', 200);
	strcat(text, "\n");
	assert_string_equal(parse(&L, text, 0, 0),
			    "S 1 a\nE 2 line is 204 bytes long; the limit is 196\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_refused_section),
		cmocka_unit_test(test_stop_at_first),
		cmocka_unit_test(test_controls),
		cmocka_unit_test(test_long_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
