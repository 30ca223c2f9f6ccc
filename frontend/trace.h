/* SPDX-License-Identifier: MIT */
/* `sandcap trace`: the limits that would fit what a run used (trace.c, pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd-run.h"
#include "report.h"

struct trace_result {
	bool has_memory, has_pids, has_disk, has_fsize;
	uint64_t memory, pids, cpu_ms, wall_ms, disk, fsize;
	char flags[512];
};

/* v plus percent, rounded up to a multiple of round_to, at least min. */
uint64_t trace_with_headroom(uint64_t v, uint64_t percent, uint64_t round_to, uint64_t min);
/* "12M", "3G", "17K": a size as a sandcap run option value. */
void trace_size_word(uint64_t v, char *buf, size_t len);
/* "2s", "1500ms". */
void trace_dur_word(uint64_t ms, char *buf, size_t len);

/* The suggestions for the run in rep (fsize_max: the largest file in the workspace). */
void trace_suggest(const struct trace_opts *t, const struct report *rep, uint64_t fsize_max,
		   bool cgroup, struct trace_result *tr);

/* The largest regular file under dir_fd (the workspace), depth-limited (cmd-trace.c). */
void trace_largest_file(int dir_fd, unsigned depth, uint64_t *max);
/* The human summary and the JSON of `sandcap trace` (cmd-trace.c). */
void trace_print(FILE *f, const struct trace_opts *t, const struct report *rep,
		 uint64_t fsize_max, const struct trace_result *tr);
void trace_write_json(FILE *f, const struct trace_opts *t, const struct report *rep,
		      uint64_t fsize_max, const struct trace_result *tr);
