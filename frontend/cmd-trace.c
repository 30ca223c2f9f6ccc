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

#include "cmd-run.h"
#include "commands.h"
#include "json.h"
#include "macro.h"
#include "parse-util.h"
#include "trace.h"

/* The largest regular file under dirfd (the workspace), depth-limited. */
void
trace_largest_file(int dir_fd, unsigned depth, uint64_t *max)
{
	_cleanup_close_ int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;

	if (fd < 0 || depth > 32)
		return;
	d = fdopendir(fd);
	if (d == NULL)
		return;
	fd = -EBADF;    /* owned by d */
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode) && (uint64_t) st.st_size > *max)
			*max = (uint64_t) st.st_size;
		else if (S_ISDIR(st.st_mode)) {
			_cleanup_close_ int sub = openat(dirfd(d), de->d_name,
							 O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				trace_largest_file(sub, depth + 1, max);
		}
	}
	closedir(d);
}

void
trace_print(FILE *f, const struct trace_opts *t, const struct report *rep, uint64_t fsize_max,
	    const struct trace_result *tr)
{
	char a[32];

	fprintf(f, "sandcap trace: what the command used (mode: %s)\n", rep->mode);
	if (rep->cg.has_memory_peak) {
		format_size(rep->cg.memory_peak, a, sizeof(a));
		fprintf(f, "  peak memory       %s (memory.peak: anonymous, page cache, tmpfs)\n", a);
	} else {
		format_size(rep->max_rss, a, sizeof(a));
		fprintf(f, "  peak memory       not measured without a cgroup; largest RSS %s\n", a);
	}
	if (rep->cg.has_pids_peak)
		fprintf(f, "  peak pids         %llu (pids.peak: processes and threads)\n",
			(unsigned long long) rep->cg.pids_peak);
	else
		fprintf(f, "  peak pids         not measured without a cgroup\n");
	fprintf(f, "  CPU time          %llu ms (%llu user + %llu system)\n",
		(unsigned long long) rep->cpu_user_ms + (unsigned long long) rep->cpu_system_ms,
		(unsigned long long) rep->cpu_user_ms, (unsigned long long) rep->cpu_system_ms);
	fprintf(f, "  wall time         %llu ms\n", (unsigned long long) rep->wall_ms);
	if (rep->cg.has_disk_used) {
		format_size(rep->cg.disk_used, a, sizeof(a));
		fprintf(f, "  workspace         %s at the end\n", a);
		format_size(fsize_max, a, sizeof(a));
		fprintf(f, "  largest file      %s (in the workspace)\n", a);
	} else {
		fprintf(f, "  workspace         none (no helper)\n");
	}
	fprintf(f, "  open files peak   not measured (would need polling)\n");
	fprintf(f, "\nlimits that fit it, with %llu%% headroom:\n  sandcap run %s -- ...\n",
		(unsigned long long) t->headroom_percent, tr->flags);
	fprintf(f, "\nas a profile (~/.config/sandcap/profiles.ini):\n  [traced]\n");
	if (tr->has_memory) {
		trace_size_word(tr->memory, a, sizeof(a));
		fprintf(f, "  memory = %s\n", a);
	}
	if (tr->has_pids)
		fprintf(f, "  pids = %llu\n", (unsigned long long) tr->pids);
	trace_dur_word(trace_with_headroom(tr->cpu_ms, t->headroom_percent, 100, 100), a, sizeof(a));
	fprintf(f, "  cpu-time = %s\n", a);
	trace_dur_word(trace_with_headroom(tr->wall_ms, t->headroom_percent, 100, 1000), a, sizeof(a));
	fprintf(f, "  timeout = %s\n", a);
	if (tr->has_disk) {
		trace_size_word(tr->disk, a, sizeof(a));
		fprintf(f, "  disk = %s\n", a);
	}
	if (tr->has_fsize) {
		trace_size_word(tr->fsize, a, sizeof(a));
		fprintf(f, "  fsize = %s\n", a);
	}
}


void
trace_write_json(FILE *f, const struct trace_opts *t, const struct report *rep,
		 uint64_t fsize_max, const struct trace_result *tr)
{
	struct json j;

	fprintf(f, "{\"sandcap_trace\": 1, \"headroom_percent\": %llu, \"run\": ",
		(unsigned long long) t->headroom_percent);
	(void) report_write_json(f, rep);
	fprintf(f, ", \"used\": ");
	json_init(&j, f);
	json_object_begin(&j);
	json_key(&j, "memory_peak");
	if (rep->cg.has_memory_peak)
		json_uint(&j, rep->cg.memory_peak);
	else
		json_null(&j);
	json_key(&j, "pids_peak");
	if (rep->cg.has_pids_peak)
		json_uint(&j, rep->cg.pids_peak);
	else
		json_null(&j);
	json_key(&j, "cpu_ms");
	json_uint(&j, tr->cpu_ms);
	json_key(&j, "wall_ms");
	json_uint(&j, tr->wall_ms);
	json_key(&j, "disk_used");
	if (rep->cg.has_disk_used)
		json_uint(&j, rep->cg.disk_used);
	else
		json_null(&j);
	json_key(&j, "largest_file");
	if (rep->cg.has_disk_used)
		json_uint(&j, fsize_max);
	else
		json_null(&j);
	json_key(&j, "open_files_peak");
	json_null(&j);
	json_object_end(&j);
	(void) json_finish(&j);
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
	json_uint(&j, trace_with_headroom(tr->cpu_ms, t->headroom_percent, 100, 100));
	json_key(&j, "timeout_ms");
	json_uint(&j, trace_with_headroom(tr->wall_ms, t->headroom_percent, 100, 1000));
	if (tr->has_disk) {
		json_key(&j, "disk");
		json_uint(&j, tr->disk);
	}
	if (tr->has_fsize) {
		json_key(&j, "fsize");
		json_uint(&j, tr->fsize);
	}
	json_key(&j, "flags");
	json_string(&j, tr->flags);
	json_object_end(&j);
	(void) json_finish(&j);
	fprintf(f, "}\n");
}


/* sandcap trace [--headroom N%] [sandcap run options] -- COMMAND: run it under the caller's
 * ceilings (or the limits given), then print what it used and the flags that fit it. */
int
cmd_trace(int argc, char **argv)
{
	struct trace_opts t = { .on = true, .headroom_percent = 25 };
	_cleanup_free_ char **nv = calloc((size_t) argc + 1, sizeof(char *));
	int n = 0;

	if (nv == NULL)
		return SC_EXIT_FAILURE;
	nv[n++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;

		if (streq(argv[i], "--") || argv[i][0] != '-') {
			/* the command and its arguments: passed on untouched */
			for (; i < argc; i++)
				nv[n++] = argv[i];
			break;
		}
		if (streq(argv[i], "--help") || streq(argv[i], "-h")) {
			printf("Usage: sandcap trace [--headroom PERCENT] [sandcap run OPTIONS] -- COMMAND "
			       "[ARG...]\n\nRun COMMAND under your ceilings from the policy (or the "
			       "limits given), then print what it used (peak memory and pids, CPU and "
			       "wall time, workspace bytes, largest file) and the sandcap run flags and "
			       "profile that fit it with PERCENT headroom (default 25%%).  --report FILE "
			       "writes the same as JSON.  See sandcap(1).\n");
			return 0;
		}
		if (streq(argv[i], "--headroom") && i + 1 < argc)
			v = argv[++i];
		else if (strneq(argv[i], "--headroom=", 11))
			v = argv[i] + 11;
		if (v != NULL) {
			if (parse_percent(v, &t.headroom_percent) < 0 || t.headroom_percent > 1000) {
				fprintf(stderr, "sandcap: --headroom: invalid percentage '%s': expected a "
					"whole percentage from 0%% to 1000%%, e.g. 25%%\n", v);
				return SC_EXIT_FAILURE;
			}
			continue;
		}
		nv[n++] = argv[i];
		/* an option's value (--memory 1G) goes with it, even if it does not start with - */
		/* NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker): argv[i], i < argc */
		if (!run_option_is_flag(argv[i]) && strchr(argv[i], '=') == NULL && i + 1 < argc)
			nv[n++] = argv[++i];
	}
	nv[n] = NULL;
	return run_main(n, nv, &t);
}
