/* SPDX-License-Identifier: MIT */
/* `sandcap trace`'s suggestions from what a run used: pure, no I/O. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "run/trace.h"

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
trace_figs_from_report(const struct report *rep, uint64_t largest_file, struct trace_figs *ret)
{
	*ret = (struct trace_figs){
		.has_memory = rep->cg.has_memory_peak,
		.has_pids = rep->cg.has_pids_peak,
		.has_disk = rep->cg.has_disk_used,
		.memory_peak = rep->cg.memory_peak,
		.pids_peak = rep->cg.pids_peak,
		.disk_used = rep->cg.disk_used,
		.largest_file = rep->cg.has_disk_used ? largest_file : 0,
		.cpu_ms = rep->cpu_user_ms + rep->cpu_system_ms,
		.wall_ms = rep->wall_ms,
		.max_rss = rep->has_max_rss ? rep->max_rss : 0,
	};
}

#define FOLD(field)                                                                      \
	acc->max.field = first || f->field > acc->max.field ? f->field : acc->max.field; \
	acc->min.field = first || f->field < acc->min.field ? f->field : acc->min.field

void
trace_acc_add(struct trace_acc *acc, const struct trace_figs *f)
{
	bool first = acc->runs == 0;

	FOLD(memory_peak);
	FOLD(pids_peak);
	FOLD(disk_used);
	FOLD(largest_file);
	FOLD(cpu_ms);
	FOLD(wall_ms);
	FOLD(max_rss);
	/* measured only if measured in every run */
	acc->max.has_memory = acc->min.has_memory = f->has_memory && (first || acc->max.has_memory);
	acc->max.has_pids = acc->min.has_pids = f->has_pids && (first || acc->max.has_pids);
	acc->max.has_disk = acc->min.has_disk = f->has_disk && (first || acc->max.has_disk);
	acc->runs++;
}

static uint64_t
max3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a > b ? a : b;

	return m > c ? m : c;
}

void
trace_suggest(uint64_t h, const struct trace_figs *f, struct trace_result *tr)
{
	char w[32];
	size_t n = 0;

	memset(tr, 0, sizeof(*tr));
	if (f->has_memory) {
		tr->has_memory = true;
		tr->memory = trace_with_headroom(f->memory_peak, h, UINT64_C(1) << 20, 1 << 20);
		trace_size_word(tr->memory, w, sizeof(w));
		n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--memory %s ", w);
	}
	if (f->has_pids) {
		tr->has_pids = true;
		tr->pids = trace_with_headroom(f->pids_peak, h, 1, 1);
		if (tr->pids <= f->pids_peak)
			tr->pids = f->pids_peak + 1;
		n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--pids %llu ",
				       (unsigned long long) tr->pids);
	}
	/* Short runs vary most (a cold cache, a busy machine): the measured figure with
	 * headroom, but never under FACTOR times the figure nor under the floor. */
	tr->cpu_time_ms = max3(trace_with_headroom(f->cpu_ms, h, 100, 0),
			       trace_with_headroom(f->cpu_ms * TRACE_CPU_FACTOR, 0, 100, 0),
			       TRACE_CPU_FLOOR_MS);
	trace_dur_word(tr->cpu_time_ms, w, sizeof(w));
	n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--cpu-time %s ", w);
	tr->timeout_ms = max3(trace_with_headroom(f->wall_ms, h, 100, 0),
			      trace_with_headroom(f->wall_ms * TRACE_TIMEOUT_FACTOR, 0, 100, 0),
			      TRACE_TIMEOUT_FLOOR_MS);
	trace_dur_word(tr->timeout_ms, w, sizeof(w));
	n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--timeout %s ", w);
	if (f->has_disk) {
		tr->has_disk = true;
		tr->disk = trace_with_headroom(f->disk_used, h, UINT64_C(1) << 20, 1 << 20);
		trace_size_word(tr->disk, w, sizeof(w));
		n += (size_t) snprintf(tr->flags + n, sizeof(tr->flags) - n, "--disk %s ", w);
	}
	if (n > 0)
		tr->flags[n - 1] = '\0';
}

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
	fd = -EBADF; /* owned by d */
	while ((de = readdir(d)) != NULL) {
		struct stat st;

		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISREG(st.st_mode) && (uint64_t) st.st_size > *max)
			*max = (uint64_t) st.st_size;
		else if (S_ISDIR(st.st_mode)) {
			_cleanup_close_ int sub =
				openat(dirfd(d), de->d_name,
				       O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (sub >= 0)
				trace_largest_file(sub, depth + 1, max);
		}
	}
	closedir(d);
}
