/* SPDX-License-Identifier: MIT */
/* `sandcap kill [-s|--signal SIG] ID`: signal one of the caller's sandboxes through its control
 * socket (control.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmd.h"
#include "supervise/control.h"
#include "log.h"
#include "macro.h"
#include "run/opt.h"

static const struct opt_def kill_options[] = {
	{ "--signal", 's', true, 1, 0 },
	{ "--help", 'h', false, 2, 0 },
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: sandcap kill [-s|--signal SIG] ID\n\nSignal every process of one of your "
		"sandboxes (default KILL, which ends it; its sandcap then tears down the cgroup and "
		"the workspace and writes its report, verdict killed, naming you).  SIG: %s.  "
		"--signal 0 signals nothing: exit 0 if the sandbox runs, 1 if not.  IDs come from "
		"sandcap ps.\nExit status: 0 signalled, 1 no such sandbox of yours (or it refused), "
		"125 usage or failure.\n",
		opt_signal_forms);
}

int
cmd_kill(int argc, char **argv)
{
	const char *id = NULL;
	char reply[CONTROL_MSG_MAX], req[32], msg[128], esc[64];
	struct opt_iter it;
	int sig = SIGKILL, c, r;

	opt_init(&it, argc, argv, 1, kill_options, ELEMENTSOF(kill_options), 0);
	/* Options may come before or after the ID, as they always could; none after "--". */
	for (bool ended = false;;) {
		c = ended ? 0 : opt_next(&it);
		if (c == 0 && !ended && it.i > 1 && streq(argv[it.i - 1], "--"))
			ended = true;
		if (c == 0 && it.i >= argc)
			break;
		if (c == 0 && id == NULL) {
			id = argv[it.i++];
			continue;
		}
		if (c == 0) {
			fprintf(stderr,
				"sandcap: kill: unexpected argument '%s' after the ID (one "
				"sandbox at a time; see sandcap kill --help)\n",
				log_escape(argv[it.i], esc, sizeof(esc)));
			return SC_EXIT_FAILURE;
		}
		if (c < 0) {
			opt_error(&it, c, msg, sizeof(msg));
			fprintf(stderr, "sandcap: kill: %s; see 'sandcap kill --help'\n", msg);
			return SC_EXIT_FAILURE;
		}
		if (c == 2) {
			usage(stdout);
			return 0;
		}
		r = opt_parse_signal(it.value, &sig);
		if (r < 0) {
			fprintf(stderr, "sandcap: kill: --signal: %s '%s': expected %s\n",
				r == -ERANGE ? "no signal numbered" : "unknown signal",
				log_escape(it.value, esc, sizeof(esc)), opt_signal_forms);
			return SC_EXIT_FAILURE;
		}
	}
	if (id == NULL) {
		fprintf(stderr, "sandcap: kill: which sandbox? give an ID from sandcap ps\n");
		return SC_EXIT_FAILURE;
	}
	snprintf(req, sizeof(req), "kill %d", sig);
	r = control_request(id, req, reply, sizeof(reply));
	if (r == -ENOENT || r == -ECONNREFUSED || r == -EINVAL) {
		fprintf(stderr,
			"sandcap: kill: no running sandbox '%s' of yours (see sandcap ps)\n", id);
		return 1;
	}
	if (r < 0) {
		fprintf(stderr, "sandcap: kill: %s: %s\n", id, strerror(-r));
		return SC_EXIT_FAILURE;
	}
	if (!streq(reply, "ok")) {
		fprintf(stderr, "sandcap: kill: %s: %s\n", id, reply);
		return 1;
	}
	return 0;
}
