/* SPDX-License-Identifier: MIT */
/* probe-cgprotect ROOT: prove the Landlock layer of frontend/isolate/cgprotect.c on a stand-in tree
 * (never the host's own cgroup files).  Builds ROOT/sys/fs/cgroup/leaf/memory.max and
 * siblings, applies the layer with ROOT as "/" and ROOT/sys/fs/cgroup as the cgroup mount,
 * then prints one TAP line per check (numbered from 1, no plan).  Exit 77 when the kernel
 * has no Landlock. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "isolate/cgprotect.h"
#include "isolate/isolate.h"

static int n, failed;
static char root[PATH_MAX];

static void
check(const char *what, int got_errno, int want_errno)
{
	n++;
	if (got_errno == want_errno) {
		printf("ok %d - %s\n", n, what);
	} else {
		failed++;
		printf("not ok %d - %s (errno %d %s, want %d %s)\n", n, what, got_errno,
		       strerror(got_errno), want_errno, strerror(want_errno));
	}
}

static const char *
P(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", root, rel);
	return buf[i];
}

static int
write_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno;
	if (write(fd, "1\n", 2) != 2) {
		close(fd);
		return errno;
	}
	close(fd);
	return 0;
}

static int
read_file(const char *path)
{
	char b[8];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (read(fd, b, sizeof(b)) < 0) {
		close(fd);
		return errno;
	}
	close(fd);
	return 0;
}

static int
rc(int r)
{
	return r < 0 ? errno : 0;
}

int
main(int argc, char **argv)
{
	static const char *const dirs[] = { "sys", "sys/fs", "sys/fs/cgroup", "sys/fs/cgroup/leaf",
					     "sys/fs/other", "sys/kernel", "home", "home/u", NULL };
	char protect[1][PATH_MAX], err[256];
	int abi;

	if (argc != 2 || realpath(argv[1], root) == NULL) {
		fprintf(stderr, "usage: probe-cgprotect EMPTY-DIR\n");
		return 2;
	}
	abi = isolate_landlock_abi();
	if (abi < 1) {
		printf("# no Landlock in this kernel\n");
		return 77;
	}
	for (size_t i = 0; dirs[i] != NULL; i++)
		if (mkdir(P(dirs[i]), 0755) < 0 && errno != EEXIST)
			return perror(dirs[i]), 2;
	if (write_file(P("sys/fs/cgroup/leaf/memory.max")) != 0 || write_file(P("home/u/f")) != 0)
		return perror("setup"), 2;
	snprintf(protect[0], sizeof(protect[0]), "%s", P("sys/fs/cgroup"));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return perror("no_new_privs"), 2;
	if (cgprotect_apply(abi, root, protect, 1, err, sizeof(err)) < 0) {
		printf("not ok 1 - apply the layer: %s\n", err);
		return 1;
	}
	check("writing a limit file under the cgroup mount is refused",
	      write_file(P("sys/fs/cgroup/leaf/memory.max")), EACCES);
	check("creating a cgroup (mkdir) under the mount is refused",
	      rc(mkdir(P("sys/fs/cgroup/leaf/escape"), 0755)), EACCES);
	check("removing a cgroup (rmdir) under the mount is refused",
	      rc(rmdir(P("sys/fs/cgroup/leaf"))), EACCES);
	{
		int e = rc(rename(P("home/u/f"), P("sys/fs/cgroup/leaf/f")));

		/* EXDEV where Landlock refuses a reparenting it cannot express, else EACCES */
		check("moving a file into the mount is refused", e == EXDEV ? EACCES : e, EACCES);
	}
	check("reading a limit file still works", read_file(P("sys/fs/cgroup/leaf/memory.max")), 0);
	check("writing elsewhere still works", write_file(P("home/u/g")), 0);
	check("creating a file beside the mount still works", write_file(P("sys/fs/other/x")), 0);
	check("mkdir in a sibling of an ancestor still works", rc(mkdir(P("sys/kernel/d"), 0755)), 0);
	check("listing an ancestor of the mount still works",
	      rc(access(P("sys/fs"), R_OK | X_OK)), 0);
	/* _exit: nothing at exit may need what the layer now denies (LeakSanitizer reads
	 * /proc/self/task at exit in the sanitizer build). */
	(void) fflush(stdout);
	_exit(failed ? 1 : 0);
}
