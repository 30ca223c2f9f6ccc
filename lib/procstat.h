/* SPDX-License-Identifier: MIT */
/* /proc/PID/stat, the fields sandcap uses (a helper's progress, a process's parent): the
 * parser is separate from the read, so it can be unit-tested and fuzzed. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

struct procstat {
	char state;                   /* R, S, D, T, t, Z, ... (field 3) */
	pid_t ppid;                   /* field 4 */
	unsigned long long cpu_ticks; /* utime + stime, in clock ticks (fields 14 and 15) */
	/* cutime + cstime (fields 16, 17: its children waited for) and rss (field 24, in
	 * pages), when the text has them (has_rss); 0 otherwise. */
	unsigned long long child_cpu_ticks;
	unsigned long long rss_pages;
	bool has_rss;
};

/* Parse the text of /proc/PID/stat (NUL-terminated).  The name (field 2) may hold any
 * byte, ")" and blanks included: fields are counted from its last ")".  -EINVAL when the
 * text does not have the fields. */
int procstat_parse(const char *buf, struct procstat *ret);

/* Read and parse /proc/PID/stat.  -errno (ENOENT: no such process). */
int procstat_read(pid_t pid, struct procstat *ret);
