/* SPDX-License-Identifier: MIT */
/* /proc/PID/stat: state and CPU time.  Contracts in procstat.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "procstat.h"

/* One unsigned field after the blank at *p; *p moves past it.  false if there is none. */
static bool
next_u(const char **p, unsigned long long *ret)
{
	char *end;

	if (**p != ' ' || (*p)[1] < '0' || (*p)[1] > '9')
		return false;
	errno = 0;
	*ret = strtoull(*p + 1, &end, 10);
	if (errno != 0 || (*end != ' ' && *end != '\n' && *end != '\0'))
		return false;
	*p = end;
	return true;
}

/* Fields 16 on, after stime at p: cutime, cstime, then rss (24).  Optional: a shorter text
 * (an older kernel's, a test's) leaves them 0. */
static void
parse_tail(const char *p, struct procstat *ret)
{
	unsigned long long v[9];

	ret->child_cpu_ticks = 0;
	ret->rss_pages = 0;
	ret->has_rss = false;
	for (size_t i = 0; i < ELEMENTSOF(v); i++) {
		/* priority and nice (18, 19) may be negative: any field but the summed ones */
		if (i == 2 || i == 3) {
			p = strchr(p + 1, ' ');
			if (p == NULL)
				return;
			continue;
		}
		if (!next_u(&p, &v[i]))
			return;
		if (i == 1 && v[0] <= ~0ULL - v[1])
			ret->child_cpu_ticks = v[0] + v[1];
	}
	ret->rss_pages = v[8];
	ret->has_rss = true;
}

int
procstat_parse(const char *buf, struct procstat *ret)
{
	const char *p = strrchr(buf, ')');
	unsigned long long f[2];
	char *end;

	if (p == NULL || p[1] != ' ' || p[2] == '\0' || p[3] != ' ')
		return -EINVAL;
	ret->state = p[2];
	p += 3;
	if (sscanf(p, " %d", &ret->ppid) != 1)
		return -EINVAL;
	/* Fields 4 to 13 (ppid ... cmajflt) are skipped: ten blanks to pass. */
	for (int i = 0; i < 10; i++) {
		p = strchr(p + 1, ' ');
		if (p == NULL)
			return -EINVAL;
	}
	for (int i = 0; i < 2; i++) {
		if (*p != ' ' || p[1] < '0' || p[1] > '9')
			return -EINVAL;
		errno = 0;
		f[i] = strtoull(p + 1, &end, 10);
		if (errno != 0 || (*end != ' ' && *end != '\n' && *end != '\0'))
			return -EINVAL;
		p = end;
	}
	if (f[0] > ~0ULL - f[1])
		return -EINVAL;
	ret->cpu_ticks = f[0] + f[1];
	parse_tail(p, ret);
	return 0;
}

int
procstat_read(pid_t pid, struct procstat *ret)
{
	char path[64], buf[1024];
	_cleanup_close_ int fd = -EBADF;
	ssize_t n;

	(void) snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1); /* generated whole at the first read */
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return procstat_parse(buf, ret);
}
