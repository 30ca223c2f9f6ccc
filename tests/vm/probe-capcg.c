/* SPDX-License-Identifier: MIT */
/*
 * probe-capcg: a helper-like binary for the VM suite.  Installed in the guest with
 * `setcap cap_dac_override,cap_chown=p`, run by the unprivileged test user, it does what
 * sandcap-helper will do to a cgroup: raise CAP_DAC_OVERRIDE from the permitted set, mkdir a
 * leaf under the root-owned 0700 delegated parent, chown the leaf and every file in it to
 * root (CAP_CHOWN), write memory.max and pids.max and read them back, then rmdir it.
 *
 *   probe-capcg [--no-raise] [PARENT]      (PARENT defaults to /sys/fs/cgroup/sandcap)
 *
 * --no-raise does the same without raising any capability (mkdir must then fail).
 * Prints one line per step, "probe-capcg: STEP: ok" or "probe-capcg: STEP: ERRNAME";
 * exits 0 when every step worked, 1 on the first failure (after removing the leaf).
 */
#include <cap-ng.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "macro.h"

static bool raise_caps = true;

static int
step(const char *what, int r)
{
	if (r < 0)
		printf("probe-capcg: %s: %s\n", what, strerrorname_np(-r) ?: "?");
	else
		printf("probe-capcg: %s: ok\n", what);
	fflush(stdout);
	return r;
}

static int
cap_set(unsigned cap, bool on)
{
	if (!raise_caps)
		return 0;
	if (capng_update(on ? CAPNG_ADD : CAPNG_DROP, CAPNG_EFFECTIVE, cap) < 0)
		return -EINVAL;
	if (capng_apply(CAPNG_SELECT_CAPS) < 0)
		return -EPERM;
	return 0;
}

static int
write_and_check(int dirfd, const char *file, const char *value)
{
	_cleanup_close_ int fd = -EBADF;
	char buf[64] = "";
	ssize_t n;

	fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) != (ssize_t) strlen(value))
		return -errno;
	fd = safe_close(fd);
	fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	buf[strcspn(buf, "\n")] = '\0';
	return streq(buf, value) ? 0 : -EIO;
}

/* chown the leaf and every file in it to root, then verify on a fresh stat. */
static int
chown_all_to_root(int leaf)
{
	_cleanup_close_ int dfd = -EBADF;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int r = 0;

	if (fchownat(leaf, "", 0, 0, AT_EMPTY_PATH) < 0)
		return -errno;
	dfd = openat(leaf, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	d = fdopendir(dfd);
	if (!d)
		return -errno;
	TAKE_FD(dfd);
	while ((de = readdir(d))) {
		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		if (fchownat(leaf, de->d_name, 0, 0, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
			break;
		}
		if (fstatat(leaf, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_uid != 0) {
			r = -EPERM;
			break;
		}
	}
	closedir(d);
	return r;
}

int
main(int argc, char **argv)
{
	const char *parent = "/sys/fs/cgroup/sandcap";
	_cleanup_close_ int pfd = -EBADF, leaf = -EBADF;
	char name[64];
	struct statfs sfs;
	int r;

	for (int i = 1; i < argc; i++) {
		if (streq(argv[i], "--no-raise"))
			raise_caps = false;
		else
			parent = argv[i];
	}

	capng_get_caps_process();
	if (raise_caps &&
	    step("CAP_DAC_OVERRIDE and CAP_CHOWN permitted",
		 capng_have_capability(CAPNG_PERMITTED, CAP_DAC_OVERRIDE) &&
				 capng_have_capability(CAPNG_PERMITTED, CAP_CHOWN)
			 ? 0
			 : -EPERM) < 0)
		return 1;
	/* File caps "=p": nothing effective until the program raises it. */
	if (step("CAP_DAC_OVERRIDE not effective at start",
		 capng_have_capability(CAPNG_EFFECTIVE, CAP_DAC_OVERRIDE) ? -EEXIST : 0) < 0)
		return 1;

	/* O_PATH: needs search permission on the ancestors only, not on the 0700 parent. */
	pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (step("open parent (O_PATH)", pfd < 0 ? -errno : 0) < 0)
		return 1;
	if (step("parent is cgroup2",
		 fstatfs(pfd, &sfs) < 0 ? -errno
		 : sfs.f_type == CGROUP2_SUPER_MAGIC ? 0
						     : -EMEDIUMTYPE) < 0)
		return 1;

	snprintf(name, sizeof(name), "probe-%d", (int) getpid());
	if (step("raise CAP_DAC_OVERRIDE", cap_set(CAP_DAC_OVERRIDE, true)) < 0)
		return 1;
	r = mkdirat(pfd, name, 0755) < 0 ? -errno : 0;
	if (step("mkdir leaf", r) < 0)
		return 1;

	leaf = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	r = leaf < 0 ? -errno : 0;
	if (step("open leaf", r) < 0)
		goto rollback;
	if (step("raise CAP_CHOWN", cap_set(CAP_CHOWN, true)) < 0)
		goto rollback;
	r = chown_all_to_root(leaf);
	if (step("chown leaf and its files to root", r) < 0)
		goto rollback;
	(void) cap_set(CAP_CHOWN, false);
	r = write_and_check(leaf, "memory.max", "33554432");
	if (step("write memory.max", r) < 0)
		goto rollback;
	r = write_and_check(leaf, "pids.max", "16");
	if (step("write pids.max", r) < 0)
		goto rollback;
	leaf = safe_close(leaf);
	r = unlinkat(pfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
	if (step("rmdir leaf", r) < 0)
		return 1;
	(void) cap_set(CAP_DAC_OVERRIDE, false);
	printf("probe-capcg: all steps ok\n");
	return 0;

rollback:
	/* Undo the external side effect: the leaf we created. */
	(void) cap_set(CAP_DAC_OVERRIDE, true);
	(void) unlinkat(pfd, name, AT_REMOVEDIR);
	return 1;
}
