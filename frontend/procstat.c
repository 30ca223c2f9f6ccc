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
	n = read(fd, buf, sizeof(buf) - 1);     /* generated whole at the first read */
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return procstat_parse(buf, ret);
}
