/* SPDX-License-Identifier: MIT */
/* `sandcap kill [--signal SIG] ID`: signal one of the caller's sandboxes through its control
 * socket (control.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "commands.h"
#include "control.h"
#include "macro.h"

static int
parse_signal(const char *s)
{
	static const struct {
		const char *name;
		int sig;
	} sigs[] = {
		{ "KILL", SIGKILL }, { "TERM", SIGTERM }, { "INT", SIGINT }, { "HUP", SIGHUP },
		{ "QUIT", SIGQUIT }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 }, { "STOP", SIGSTOP },
		{ "CONT", SIGCONT },
	};
	char *end;
	long n;

	if (strneq(s, "SIG", 3))
		s += 3;
	for (size_t i = 0; i < ELEMENTSOF(sigs); i++)
		if (strcasecmp(s, sigs[i].name) == 0)
			return sigs[i].sig;
	n = strtol(s, &end, 10);
	/* 0 as kill(1): signal nothing, only tell whether the sandbox runs (exit 0 or 1). */
	if (s[0] >= '0' && s[0] <= '9' && *end == '\0' && n >= 0 && n < NSIG)
		return (int) n;
	return -EINVAL;
}

int
cmd_kill(int argc, char **argv)
{
	const char *id = NULL;
	char reply[CONTROL_MSG_MAX], req[32];
	int sig = SIGKILL, r;

	for (int i = 1; i < argc; i++) {
		if ((streq(argv[i], "--signal") || streq(argv[i], "-s")) && i + 1 < argc) {
			sig = parse_signal(argv[++i]);
			if (sig < 0) {
				fprintf(stderr, "sandcap: kill: --signal: unknown signal '%s' (use a name "
					"like TERM or KILL, or a number)\n", argv[i]);
				return SC_EXIT_FAILURE;
			}
		} else if (streq(argv[i], "--help") || streq(argv[i], "-h")) {
			printf("Usage: sandcap kill [--signal SIG] ID\n\nSignal every process of one of your "
			       "sandboxes (default KILL, which ends it; its sandcap then tears down the "
			       "cgroup and the workspace and writes its report, verdict killed, naming you).  "
			       "--signal 0 signals nothing: exit 0 if the sandbox runs, 1 if not.  "
			       "IDs come from sandcap ps.\n");
			return 0;
		} else if (id == NULL && argv[i][0] != '-') {
			id = argv[i];
		} else {
			fprintf(stderr, "sandcap: kill: unexpected argument '%s' (see sandcap kill --help)\n",
				argv[i]);
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
		fprintf(stderr, "sandcap: kill: no running sandbox '%s' of yours (see sandcap ps)\n", id);
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
