/* SPDX-License-Identifier: MIT */
/* The run shared by `sandcap run` (cmd/run.c) and `sandcap trace` (cmd/trace.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct report;
struct trace_acc;
struct trace_result;
struct trace_opts;

/* Prints sandcap trace's figures after the last run: the human summary on human, the JSON
 * document on json when the report goes somewhere (NULL otherwise). */
typedef void trace_print_fn(FILE *human, FILE *json, const struct trace_opts *t,
			    const struct report *rep, const struct trace_acc *acc,
			    const struct trace_result *tr);

/* sandcap trace's settings; .on = false for sandcap run. */
struct trace_opts {
	bool on;
	uint64_t headroom_percent;
	unsigned runs;         /* --runs N (1 by default) */
	struct trace_acc *acc; /* the figures so far (trace.h) */
	trace_print_fn *print; /* set by the command (cmd/trace.c) */
};

/* Parse argv (argv[0] "run"), run the sandbox, report; returns sandcap's exit status. */
int run_main(int argc, char **argv, const struct trace_opts *trace);

/* The sandbox id the next run_main() uses instead of a random one (a session's call, whose
 * id the session records before it starts): "<uid>-<hex>", at most 63 bytes. */
void run_use_id(const char *id);
/* The next run is a call of the cgroup-mode session whose level the helper named level (its
 * CREATE names it; no rlimit fallback), or NULL. */
void run_use_session(const char *level);
const char *run_session_level(void);
