/* SPDX-License-Identifier: MIT */
/* A fork that runs out of memory half-way through copying its parent (VM scenario
 * 04-oom-fork), as a sandbox at its memory limit that forks does:
 *
 *   probe-forkoom CGROUP [MAPPINGS]
 *
 * Maps MAPPINGS (default 4000) one-page anonymous regions that cannot merge (alternating
 * protections, each writable one touched, so fork copies its page), writes CGROUP's
 * memory.max as what the cgroup uses now plus 64 KiB, then forks until it is killed; each
 * child exits at once.  Copying that many mappings needs far more than 64 KiB of kernel
 * memory and nothing in the cgroup can be reclaimed, so the charge fails inside the fork's
 * copy of the mappings, the memcg OOM killer kills this process (the largest), and the
 * kernel tears down a half-copied address space.  Exit 137 (SIGKILL) is the expected end;
 * "probe-forkoom: STEP: REASON" and exit 1 when a step fails otherwise, exit 2 when every
 * fork succeeded (the limit did not bind: nothing was exercised). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define FORKS 1000

static int
die(const char *step, int err)
{
	fprintf(stderr, "probe-forkoom: %s: %s\n", step, strerror(err));
	return 1;
}

static int
read_ulong(const char *path, unsigned long *v)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	*v = strtoul(buf, NULL, 10);
	return 0;
}

static int
write_ulong(const char *path, unsigned long v)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%lu", v);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, buf, (size_t)len);
	close(fd);
	return n == len ? 0 : -1;
}

int
main(int argc, char **argv)
{
	char current[4096], max[4096];
	unsigned long nmaps = 4000, used, i;
	long page = sysconf(_SC_PAGESIZE);
	int forks;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: probe-forkoom CGROUP [MAPPINGS]\n");
		return 1;
	}
	if (argc == 3)
		nmaps = strtoul(argv[2], NULL, 10);
	snprintf(current, sizeof(current), "%s/memory.current", argv[1]);
	snprintf(max, sizeof(max), "%s/memory.max", argv[1]);

	for (i = 0; i < nmaps; i++) {
		int prot = i % 2 ? PROT_READ : PROT_READ | PROT_WRITE;
		char *p = mmap(NULL, (size_t)page, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return die("mmap", errno);
		if (prot & PROT_WRITE)
			p[0] = 1;
	}
	if (read_ulong(current, &used) < 0)
		return die(current, errno);
	if (write_ulong(max, used + 65536) < 0)
		return die(max, errno);
	printf("forking: %lu mappings, memory.max %lu\n", nmaps, used + 65536);
	fflush(stdout);

	for (forks = 0; forks < FORKS; forks++) {
		pid_t pid = fork();

		if (pid < 0) {
			/* Refused without a kill (ENOMEM): the same teardown ran; try again. */
			printf("fork %d: %s\n", forks, strerror(errno));
			fflush(stdout);
			continue;
		}
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, NULL, 0) < 0)
			return die("waitpid", errno);
	}
	printf("probe-forkoom: %d forks succeeded at the limit\n", FORKS);
	return 2;
}
