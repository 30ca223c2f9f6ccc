/* SPDX-License-Identifier: MIT */
/* `sandcap trace`'s suggestions from what a run used: pure, no I/O. */
#include <stdio.h>
#include <string.h>

#include "trace.h"

uint64_t
trace_with_headroom(uint64_t v, uint64_t percent, uint64_t round_to, uint64_t min)
{
	unsigned __int128 x = (unsigned __int128) v * (100 + percent);
	uint64_t r = (uint64_t) ((x + 99) / 100);

	if (round_to > 1)
		r = (r + round_to - 1) / round_to * round_to;
	return r < min ? min : r;
}

void
trace_size_word(uint64_t v, char *buf, size_t len)
{
	if (v % (UINT64_C(1) << 30) == 0)
		snprintf(buf, len, "%lluG", (unsigned long long) (v >> 30));
	else if (v % (UINT64_C(1) << 20) == 0)
		snprintf(buf, len, "%lluM", (unsigned long long) (v >> 20));
	else
		snprintf(buf, len, "%lluK", (unsigned long long) ((v + 1023) >> 10));
}

void
trace_dur_word(uint64_t ms, char *buf, size_t len)
{
	if (ms % 1000 == 0)
		snprintf(buf, len, "%llus", (unsigned long long) (ms / 1000));
	else
		snprintf(buf, len, "%llums", (unsigned long long) ms);
}

void
trace_suggest(const struct trace_opts *t, const struct report *rep, uint64_t fsize_max,
	      bool cgroup, struct trace_result *tr)
{
	uint64_t h = t->headroom_percent;
	char w[32];
	size_t n = 0;

	memset(tr, 0, sizeof(*tr));
	tr->cpu_ms = rep->cpu_user_ms + rep->cpu_system_ms;
	tr->wall_ms = rep->wall_ms;
	if (cgroup && rep->cg.has_memory_peak) {
		tr->has_memory = true;
		tr->memory = trace_with_headroom(rep->cg.memory_peak, h, UINT64_C(1) << 20, 1 << 20);
		trace_size_word(tr->memory, w, sizeof(w));
		n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--memory %s ", w);
	}
	if (cgroup && rep->cg.has_pids_peak) {
		tr->has_pids = true;
		tr->pids = trace_with_headroom(rep->cg.pids_peak, h, 1, 1);
		if (tr->pids <= rep->cg.pids_peak)
			tr->pids = rep->cg.pids_peak + 1;
		n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--pids %llu ",
				       (unsigned long long) tr->pids);
	}
	trace_dur_word(trace_with_headroom(tr->cpu_ms, h, 100, 100), w, sizeof(w));
	n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--cpu-time %s ", w);
	trace_dur_word(trace_with_headroom(tr->wall_ms, h, 100, 1000), w, sizeof(w));
	n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--timeout %s ", w);
	if (cgroup && rep->cg.has_disk_used) {
		tr->has_disk = true;
		tr->disk = trace_with_headroom(rep->cg.disk_used, h, UINT64_C(1) << 20, 1 << 20);
		trace_size_word(tr->disk, w, sizeof(w));
		n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--disk %s ", w);
	}
	if (cgroup && rep->cg.has_disk_used) {
		tr->has_fsize = true;
		tr->fsize = trace_with_headroom(fsize_max, h, UINT64_C(1) << 20, 1 << 20);
		trace_size_word(tr->fsize, w, sizeof(w));
		n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--fsize %s ", w);
	}
	if (n > 0)
		tr->flags[n - 1] = '\0';
}
