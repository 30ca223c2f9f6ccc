/* SPDX-License-Identifier: MIT */
/* `sandcap trace`: the limits that would fit what a run used (trace.c, pure).
 *
 * A limit is suggested only where the measurement covers everything the limit applies to:
 * memory from memory.peak and pids from pids.peak (the whole cgroup), --disk from the
 * workspace (what --disk bounds), CPU time from the whole tree, the timeout from the wall
 * time.  --fsize is never suggested: RLIMIT_FSIZE applies to every file the command
 * writes, anywhere, and only the workspace's files are seen.  Short runs get floors, so a
 * cold cache does not fail the next run: the timeout is at least 2 s and 3x the measured
 * wall time, the CPU time at least 1 s and 2x the measured.  With --runs N each figure is
 * the largest of the N runs, and the smallest is reported beside it (the spread). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "run/run.h"
#include "report/report.h"

#define TRACE_TIMEOUT_FLOOR_MS 2000
#define TRACE_TIMEOUT_FACTOR   3
#define TRACE_CPU_FLOOR_MS     1000
#define TRACE_CPU_FACTOR       2
#define TRACE_RUNS_MAX         100

/* What one run used (or, accumulated, the largest / smallest over runs). */
struct trace_figs {
	bool has_memory, has_pids, has_disk; /* measured (cgroup mode) */
	uint64_t memory_peak, pids_peak, disk_used, largest_file;
	uint64_t cpu_ms, wall_ms, max_rss;
};

/* Accumulated over the runs of one `sandcap trace --runs N`. */
struct trace_acc {
	unsigned runs; /* runs measured so far */
	bool done;     /* the summary was printed: stop */
	struct trace_figs max, min;
};

struct trace_result {
	bool has_memory, has_pids, has_disk;
	uint64_t memory, pids, cpu_time_ms, timeout_ms, disk;
	char flags[512];
};

/* v plus percent, rounded up to a multiple of round_to, at least min. */
uint64_t trace_with_headroom(uint64_t v, uint64_t percent, uint64_t round_to, uint64_t min);
/* "12M", "3G", "17K": a size as a sandcap run option value. */
void trace_size_word(uint64_t v, char *buf, size_t len);
/* "2s", "1500ms". */
void trace_dur_word(uint64_t ms, char *buf, size_t len);

/* The figures of one run (largest_file: the largest file in the workspace at the end). */
void trace_figs_from_report(const struct report *rep, uint64_t largest_file,
			    struct trace_figs *ret);
/* Fold one run's figures into acc (max and min). */
void trace_acc_add(struct trace_acc *acc, const struct trace_figs *f);

/* The suggestions for figures f with headroom_percent. */
void trace_suggest(uint64_t headroom_percent, const struct trace_figs *f, struct trace_result *tr);

/* The largest regular file under dir_fd (the workspace), depth-limited. */
void trace_largest_file(int dir_fd, unsigned depth, uint64_t *max);
