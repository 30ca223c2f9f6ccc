/* SPDX-License-Identifier: MIT */
/* sandcap: the unprivileged front-end.  Dispatches to one subcommand. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "supervise/control.h"
#include "log.h"
#include "macro.h"
#include "supervise/supervise.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "run", cmd_run, "run a command under enforced limits and report what happened" },
	{ "trace", cmd_trace, "run a command, then print the limits that would fit it" },
	{ "policy", cmd_policy, "check the admin's policy file or show a user's ceilings" },
	{ "profile", cmd_profile, "list named profiles or show one as sandcap run flags" },
	{ "ps", cmd_ps, "list your running sandboxes" },
	{ "kill", cmd_kill, "signal or end one of your sandboxes" },
	{ "session", cmd_session, "start, list or end a session: many runs, one budget" },
	{ "doctor", cmd_doctor, "tell what this host lacks for cgroup mode, and the fixes" },
};

static void
usage(FILE *f)
{
	fprintf(f, "Usage: sandcap COMMAND [OPTIONS] [-- COMMAND ARGS...]\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nRun 'sandcap COMMAND --help' for a command's options; see sandcap(1).\n"
		   "'sandcap --version' prints the version.\n"
		   "Exit status: the command's own; 128+N if it died of signal N; 124 timeout;\n"
		   "125 sandcap failed or refused; 126 not executable; 127 not found.\n");
}

/* What sandcap printed on its standard output must have arrived: a full disk or a closed
 * pipe is a failure (125), never a silent success (real-workload review: doctor, ps and
 * --help into /dev/full exited as if written).  The command's own output is not ours. */
static int
flushed(int status)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "sandcap: cannot write to standard output: %s\n", strerror(errno));
		return SC_EXIT_FAILURE;
	}
	return status;
}

int
main(int argc, char **argv)
{
	/* First, before anything of ours is opened: a closed stdin, stdout or stderr gets
	 * /dev/null, so that no file or socket of sandcap's takes its number. */
	if (sv_note_stdio() < 0)
		return SC_EXIT_FAILURE;
	log_setup("sandcap", LOG_INFO, 0);
	if (argc < 2) {
		usage(stderr);
		return SC_EXIT_FAILURE;
	}
	if (streq(argv[1], "--help") || streq(argv[1], "-h") || streq(argv[1], "help")) {
		usage(stdout);
		return flushed(0);
	}
	if (streq(argv[1], "--version") || streq(argv[1], "-V")) {
		printf("sandcap %s\n", SC_VERSION);
		return flushed(0);
	}
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		if (streq(argv[1], commands[i].name))
			return flushed(commands[i].fn(argc - 1, argv + 1));
	fprintf(stderr, "sandcap: unknown command '%s'; run 'sandcap --help' for the list\n",
		argv[1]);
	return SC_EXIT_FAILURE;
}
