/* SPDX-License-Identifier: MIT */
/* libFuzzer target: a session's parsers (frontend/run/session-state.c): the state file, the
 * ledger of calls and a call's figures from its report.  The first byte picks the parser.
 * Checks the invariants, not just the absence of crashes: what parses formats back to
 * something that parses the same. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The frontend's objects are not in the fuzz build: compile the pure file in. */
#include "../../frontend/run/session-state.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
copy_call(const struct session_call *c, void *ud)
{
	*(struct session_call *) ud = *c;
	return 0;
}

static int
check_call(const struct session_call *c, void *ud)
{
	struct session_call d = { .n = 0 };
	char line[256];

	(void) ud;
	if (c->n == 0 || c->exit_code < -1 || c->exit_code > 255)
		abort();
	/* A parsed line formats back to a line that parses to the same call. */
	if (session_call_format(c, line, sizeof(line)) < 0)
		return 0;
	if (session_calls_parse(line, copy_call, &d) != 0 || d.n != c->n ||
	    d.exit_code != c->exit_code || d.wall_ms != c->wall_ms || d.cpu_ms != c->cpu_ms ||
	    strcmp(d.id, c->id) != 0 || strcmp(d.verdict, c->verdict) != 0)
		abort();
	return 0;
}

static void
fuzz_state(const char *text)
{
	struct session_state s, t;
	static char buf[SESSION_STATE_MAX], again[SESSION_STATE_MAX];

	if (session_state_parse(text, &s) < 0)
		return;
	if (!session_id_valid(s.id) || s.mode[0] == '\0')
		abort();
	if (session_state_format(&s, buf, sizeof(buf)) < 0)
		return;
	if (session_state_parse(buf, &t) != 0 || session_state_format(&t, again, sizeof(again)) < 0 ||
	    strcmp(buf, again) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session_call c = { .n = 1 };
	char *text;

	if (size < 1 || size > 65536)
		return 0;
	text = malloc(size);
	if (text == NULL)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 3) {
	case 0:
		fuzz_state(text);
		break;
	case 1:
		(void) session_calls_parse(text, check_call, NULL);
		break;
	default:
		if (session_call_from_report(text, &c) == 0 &&
		    (memchr(c.id, '\0', sizeof(c.id)) == NULL || c.exit_code > 255))
			abort();
		break;
	}
	free(text);
	return 0;
}
