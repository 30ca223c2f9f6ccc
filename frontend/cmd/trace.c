/* SPDX-License-Identifier: MIT */
/* `sandcap trace`: run like `sandcap run` under the caller's ceilings, then print what the run
 * used and the limits that would fit it (the suggestions themselves: trace.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/args.h"
#include "run/run.h"
#include "cmd/cmd.h"
#include "report/json.h"
#include "macro.h"
#include "parse-util.h"
#include "run/trace.h"
#include "report/verdict.h"

/* "12.5 MiB" or, over several runs that differ, "12.5 MiB (runs: 10.1 MiB to 12.5 MiB)". */
static void
size_spread(const struct trace_acc *acc, uint64_t max, uint64_t min, char *buf, size_t len)
{
	char a[32], b[32];

	format_size(max, a, sizeof(a));
	if (acc->runs < 2 || min == max) {
		snprintf(buf, len, "%s", a);
		return;
	}
	format_size(min, b, sizeof(b));
	snprintf(buf, len, "%s (runs: %s to %s)", a, b, a);
}

static void
num_spread(const struct trace_acc *acc, uint64_t max, uint64_t min, const char *unit, char *buf,
	   size_t len)
{
	if (acc->runs < 2 || min == max)
		snprintf(buf, len, "%llu%s", (unsigned long long) max, unit);
	else
		snprintf(buf, len, "%llu%s (runs: %llu%s to %llu%s)", (unsigned long long) max,
			 unit, (unsigned long long) min, unit, (unsigned long long) max, unit);
}

static void
trace_print(FILE *f, const struct trace_opts *t, const struct report *rep,
	    const struct trace_acc *acc, const struct trace_result *tr)
{
	const struct trace_figs *mx = &acc->max, *mn = &acc->min;
	char a[96];

	fprintf(f, "sandcap trace: what the command used (mode: %s", rep->mode);
	if (acc->runs > 1)
		fprintf(f, "; the largest of %u runs", acc->runs);
	fprintf(f, ")\n");
	/* Figures of a run that failed may be far from what the job needs when it works. */
	if (rep->v.kind != VERDICT_OK)
		fprintf(f,
			"sandcap trace: warning: run %u did not end ok (verdict %s: %s); these "
			"figures and the limits below are those of a failed run\n",
			acc->runs, verdict_name(rep->v.kind),
			rep->message != NULL ? rep->message : "");
	if (mx->has_memory) {
		size_spread(acc, mx->memory_peak, mn->memory_peak, a, sizeof(a));
		fprintf(f, "  peak memory       %s (memory.peak: anonymous, page cache, tmpfs)\n",
			a);
	} else {
		size_spread(acc, mx->max_rss, mn->max_rss, a, sizeof(a));
		fprintf(f, "  peak memory       not measured without a cgroup; largest RSS %s\n",
			a);
	}
	if (mx->has_pids) {
		num_spread(acc, mx->pids_peak, mn->pids_peak, "", a, sizeof(a));
		fprintf(f, "  peak pids         %s (pids.peak: processes and threads)\n", a);
	} else {
		fprintf(f, "  peak pids         not measured without a cgroup\n");
	}
	num_spread(acc, mx->cpu_ms, mn->cpu_ms, " ms", a, sizeof(a));
	fprintf(f, "  CPU time          %s (user + system, the whole tree)\n", a);
	num_spread(acc, mx->wall_ms, mn->wall_ms, " ms", a, sizeof(a));
	fprintf(f, "  wall time         %s\n", a);
	if (mx->has_disk) {
		size_spread(acc, mx->disk_used, mn->disk_used, a, sizeof(a));
		fprintf(f, "  workspace         %s at the end\n", a);
		size_spread(acc, mx->largest_file, mn->largest_file, a, sizeof(a));
		fprintf(f,
			"  largest file      %s (in the workspace; files elsewhere are not seen, "
			"so no --fsize is suggested)\n",
			a);
	} else {
		fprintf(f, "  workspace         none (no helper)\n");
	}
	fprintf(f, "  open files peak   not measured (would need polling)\n");
	fprintf(f,
		"\nlimits that fit it, with %llu%% headroom (timeout at least %ds and %dx the "
		"wall time, CPU time at least %ds and %dx; memory, pids and disk only where "
		"measured):\n  sandcap run %s -- ...\n",
		(unsigned long long) t->headroom_percent, TRACE_TIMEOUT_FLOOR_MS / 1000,
		TRACE_TIMEOUT_FACTOR, TRACE_CPU_FLOOR_MS / 1000, TRACE_CPU_FACTOR, tr->flags);
	fprintf(f, "\nas a profile (~/.config/sandcap/profiles.ini):\n  [traced]\n");
	if (tr->has_memory) {
		trace_size_word(tr->memory, a, sizeof(a));
		fprintf(f, "  memory = %s\n", a);
	}
	if (tr->has_pids)
		fprintf(f, "  pids = %llu\n", (unsigned long long) tr->pids);
	trace_dur_word(tr->cpu_time_ms, a, sizeof(a));
	fprintf(f, "  cpu-time = %s\n", a);
	trace_dur_word(tr->timeout_ms, a, sizeof(a));
	fprintf(f, "  timeout = %s\n", a);
	if (tr->has_disk) {
		trace_size_word(tr->disk, a, sizeof(a));
		fprintf(f, "  disk = %s\n", a);
	}
}

static void
write_figs(FILE *f, const char *key, const struct trace_figs *fg)
{
	struct json j;

	fprintf(f, ", \"%s\": ", key);
	json_init(&j, f);
	json_object_begin(&j);
	json_key_opt_uint(&j, "memory_peak", fg->has_memory, fg->memory_peak);
	json_key_opt_uint(&j, "pids_peak", fg->has_pids, fg->pids_peak);
	json_key_opt_uint(&j, "cpu_ms", true, fg->cpu_ms);
	json_key_opt_uint(&j, "wall_ms", true, fg->wall_ms);
	json_key_opt_uint(&j, "disk_used", fg->has_disk, fg->disk_used);
	json_key_opt_uint(&j, "largest_file", fg->has_disk, fg->largest_file);
	json_key(&j, "open_files_peak");
	json_null(&j);
	json_object_end(&j);
	(void) json_finish(&j);
}

static void
trace_write_json(FILE *f, const struct trace_opts *t, const struct report *rep,
		 const struct trace_acc *acc, const struct trace_result *tr)
{
	struct json j;

	fprintf(f, "{\"sandcap_trace\": 1, \"headroom_percent\": %llu, \"runs\": %u, \"run\": ",
		(unsigned long long) t->headroom_percent, acc->runs);
	(void) report_write_json(f, rep);
	write_figs(f, "used", &acc->max);
	write_figs(f, "used_min", &acc->min);
	fprintf(f, ", \"suggested\": ");
	json_init(&j, f);
	json_object_begin(&j);
	if (tr->has_memory) {
		json_key(&j, "memory");
		json_uint(&j, tr->memory);
	}
	if (tr->has_pids) {
		json_key(&j, "pids");
		json_uint(&j, tr->pids);
	}
	json_key(&j, "cpu_time_ms");
	json_uint(&j, tr->cpu_time_ms);
	json_key(&j, "timeout_ms");
	json_uint(&j, tr->timeout_ms);
	if (tr->has_disk) {
		json_key(&j, "disk");
		json_uint(&j, tr->disk);
	}
	json_key(&j, "flags");
	json_string(&j, tr->flags);
	json_object_end(&j);
	(void) json_finish(&j);
	fprintf(f, "}\n");
}

/* sandcap trace [--headroom N%] [sandcap run options] -- COMMAND: run it under the caller's
 * ceilings (or the limits given), then print what it used and the flags that fit it. */
static void
print_figures(FILE *human, FILE *json, const struct trace_opts *t, const struct report *rep,
	      const struct trace_acc *acc, const struct trace_result *tr)
{
	trace_print(human, t, rep, acc, tr);
	if (json != NULL)
		trace_write_json(json, t, rep, acc, tr);
}

int
cmd_trace(int argc, char **argv)
{
	struct trace_acc acc = {};
	struct trace_opts t = {
		.on = true, .headroom_percent = 25, .runs = 1, .acc = &acc, .print = print_figures
	};
	_cleanup_free_ char **nv = NULL;
	int n = 0, r;

	r = trace_args_parse(argc, argv, &t, &nv, &n);
	if (r != 0)
		return r > 0 ? 0 : SC_EXIT_FAILURE;
	/* Each run is a whole sandcap run; run_main() sets acc.done when it has printed the
	 * summary (the last run, or one that did not end ok).  A refusal measures nothing. */
	do {
		unsigned before = acc.runs;

		r = run_main(n, nv, &t);
		if (acc.runs == before)
			break;
	} while (!acc.done);
	return r;
}
