/* SPDX-License-Identifier: MIT */
/* sandcap run: the options, the run and its report are the run engine's (run/run.c). */
#include "cmd/cmd.h"
#include "run/run.h"
#include "run/session.h"

int
cmd_run(int argc, char **argv)
{
	const struct trace_opts t = { .on = false };

	if (session_call_wanted(argc, argv))
		return session_call(argc, argv);

	return run_main(argc, argv, &t);
}
