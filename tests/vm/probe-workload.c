/* SPDX-License-Identifier: MIT */
/* A workload of known shape for `sandcap trace` tests (VM scenario 60):
 *
 *   probe-workload [-m MIB] [-c CHILDREN] [-s MS] [-S FILE] [-w MIB] [-f MIB]
 *
 * In this order: allocate MIB MiB and touch every page (held to the end); fork CHILDREN
 * children that each sleep MS milliseconds (default 300) and exit, all alive at once (with
 * -S, each ends as soon as FILE exists, looked for every 50 ms, at the latest after MS); write
 * -w MIB MiB into $TMPDIR/probe-workload.dat in 1 MiB chunks (kept); -f MIB also writes a
 * second, smaller file $TMPDIR/probe-workload.small of that size.  Then wait for the
 * children and exit 0.  Prints "ready" after the children are forked.
 *
 * Any refusal (malloc, fork, write: ENOMEM, EAGAIN, ENOSPC, EFBIG) is printed as
 * "probe-workload: <step>: <reason>" and ends it with exit 1, so a limit tighter than the
 * workload makes the run fail with a clear cause.  The truth is then: peak pids
 * 1 + CHILDREN; anonymous memory MIB MiB (plus the written MiB in tmpfs pages, which
 * memory.peak counts); workspace bytes -w + -f MiB; largest file max(-w, -f) MiB. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MiB (1024UL * 1024UL)

static int
die(const char *step, int err)
{
	fprintf(stderr, "probe-workload: %s: %s\n", step, strerror(err));
	return 1;
}

static unsigned long
num(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s || v > 1000000) {
		fprintf(stderr, "probe-workload: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

static int
write_file(const char *dir, const char *name, unsigned long mib)
{
	char path[4096], *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	buf = malloc(MiB);
	if (buf == NULL) {
		close(fd);
		return -ENOMEM;
	}
	memset(buf, 'w', MiB);
	for (unsigned long i = 0; i < mib; i++) {
		size_t off = 0;

		while (off < MiB) {
			ssize_t n = write(fd, buf + off, MiB - off);

			if (n < 0) {
				int e = errno;

				free(buf);
				close(fd);
				return -e;
			}
			off += (size_t) n;
		}
	}
	free(buf);
	if (close(fd) < 0)
		return -errno;
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned long mem = 0, children = 0, sleep_ms = 300, wmib = 0, fmib = 0;
	const char *dir = getenv("TMPDIR"), *stop = NULL;
	char *block = NULL;
	int opt, r, failed = 0;

	signal(SIGXFSZ, SIG_IGN);       /* EFBIG instead, reported like the other refusals */
	while ((opt = getopt(argc, argv, "m:c:s:S:w:f:")) != -1) {
		switch (opt) {
		case 'm': mem = num(optarg); break;
		case 'c': children = num(optarg); break;
		case 's': sleep_ms = num(optarg); break;
		case 'S': stop = optarg; break;
		case 'w': wmib = num(optarg); break;
		case 'f': fmib = num(optarg); break;
		default:
			fprintf(stderr, "usage: probe-workload [-m MIB] [-c CHILDREN] [-s MS] "
				"[-S FILE] [-w MIB] [-f MIB]\n");
			return 2;
		}
	}
	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";

	if (mem > 0) {
		long pg = sysconf(_SC_PAGESIZE);

		block = malloc(mem * MiB);
		if (block == NULL)
			return die("malloc", ENOMEM);
		for (unsigned long i = 0; i < mem * MiB; i += (unsigned long) pg)
			block[i] = (char) i;
	}

	for (unsigned long i = 0; i < children; i++) {
		pid_t p = fork();

		if (p < 0)
			return die("fork", errno);
		if (p == 0) {
			struct timespec ts = { (time_t) (sleep_ms / 1000),
					       (long) (sleep_ms % 1000) * 1000000L };

			if (stop != NULL) {
				for (unsigned long t = 0; t < sleep_ms && access(stop, F_OK) < 0;
				     t += 50)
					(void) nanosleep(&(struct timespec) { 0, 50000000L }, NULL);
				_exit(0);
			}
			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
			_exit(0);
		}
	}
	printf("ready\n");
	fflush(stdout);

	if (wmib > 0) {
		r = write_file(dir, "probe-workload.dat", wmib);
		if (r < 0)
			return die("write", -r);
	}
	if (fmib > 0) {
		r = write_file(dir, "probe-workload.small", fmib);
		if (r < 0)
			return die("write", -r);
	}

	for (;;) {
		int st;
		pid_t p = wait(&st);

		if (p < 0)
			break;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed = 1;
	}
	/* keep the block alive (and its contents observable) to the end */
	if (block != NULL && block[0] != 0)
		failed = 1;
	free(block);
	return failed;
}
