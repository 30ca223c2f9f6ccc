/* SPDX-License-Identifier: MIT */
/* The run shared by `sandcap run` (cmd-run.c) and `sandcap trace` (cmd-trace.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct trace_acc;

/* sandcap trace's settings; .on = false for sandcap run. */
struct trace_opts {
	bool on;
	uint64_t headroom_percent;
	unsigned runs;                  /* --runs N (1 by default) */
	struct trace_acc *acc;          /* the figures so far (trace.h) */
};

/* Parse argv (argv[0] "run"), run the sandbox, report; returns sandcap's exit status. */
int run_main(int argc, char **argv, const struct trace_opts *trace);
