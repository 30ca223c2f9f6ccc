/* SPDX-License-Identifier: MIT */
/*
 * policy_read_trusted(): read the policy only if an unprivileged user could not have
 * written it (doas-style checks), and check everything on the fds we actually read from.
 *
 * The path is checked one prefix at a time from "/" with fstatat(AT_SYMLINK_NOFOLLOW):
 * every directory on the way must be a real directory (not a symlink), owned by root and
 * not writable by group or other; the file itself is opened O_NOFOLLOW | O_NONBLOCK (a
 * FIFO must not block us), with openat2(RESOLVE_NO_SYMLINKS), and must be a regular file
 * owned by root, not writable by group or other, and at most POLICY_FILE_MAX bytes.
 *
 * Checking by name is as safe as walking by fd was (#19: 6 system calls less): a name can
 * be changed only through write access to its parent, and every parent was found owned by
 * root and not writable by group or other, down from "/".  So once the checks pass, no
 * unprivileged user can rename, replace or symlink any directory on the path, and the open
 * resolves the directories that were checked.  A check that fails refuses; what changes
 * meanwhile under a directory that was not trustworthy is never read.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "policy.h"

static int trust_fail(char *errbuf, size_t errlen, int r, const char *fmt, ...) _printf_(4, 5);

static int
trust_fail(char *errbuf, size_t errlen, int r, const char *fmt, ...)
{
	va_list ap;

	if (errbuf != NULL && errlen > 0) {
		va_start(ap, fmt);
		(void) vsnprintf(errbuf, errlen, fmt, ap);
		va_end(ap);
	}
	return r;
}

/* strerror(-r), without the message catalogue lookup for the common "no policy" case (every
 * run without one; issue 19): sandcap and its helper never call setlocale(), so strerror()
 * gives these same C-locale words. */
static const char *
errstr(int r)
{
	return r == -ENOENT ? "No such file or directory" : strerror(-r);
}

/* Owned by root and not writable by group or other.  name: the directory checked (its
 * first namelen bytes) for the message, NULL for the file itself. */
static int
check_owner_mode(const struct stat *st, const char *name, int namelen, char *errbuf,
		 size_t errlen)
{
	const char *d = name != NULL ? "directory " : "", *is = name != NULL ? " is " : "";

	if (name == NULL) {
		name = "";
		namelen = 0;
	}
	if (st->st_uid != 0)
		return trust_fail(errbuf, errlen, -EPERM, "%s%.*s%sowned by uid %u, must be owned "
				  "by root", d, namelen, name, is, (unsigned) st->st_uid);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return trust_fail(errbuf, errlen, -EPERM,
				  "%s%.*s%swritable by %s (mode %04o), must not be writable by "
				  "group or other", d, namelen, name, is,
				  (st->st_mode & S_IWGRP) ? ((st->st_mode & S_IWOTH) ?
				  "group and other" : "group") : "other",
				  (unsigned) (st->st_mode & 07777));
	return 0;
}

/* open(2) of a path whose directories were checked, refusing a symlink anywhere in it
 * (ELOOP).  The checks alone make that so (see the top); openat2() makes it so again where
 * the kernel has it (5.6; a seccomp filter may answer ENOSYS). */
static int
open_nosymlinks(const char *abs, int flags)
{
	struct open_how how = {
		.flags = (uint64_t) flags,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int) syscall(SYS_openat2, AT_FDCWD, abs, &how, sizeof(how));

	if (fd < 0 && errno == ENOSYS)
		fd = open(abs, flags);
	return fd;
}

int
policy_read_trusted(const char *path, char **ret_text, size_t *ret_len, char *errbuf,
		    size_t errlen)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -EBADF;
	char abs[PATH_MAX];
	struct stat st;
	char *comp, *next;
	size_t len = 0, plen;

	if (path == NULL || path[0] == '\0')
		return trust_fail(errbuf, errlen, -EINVAL, "empty path");
	/* On the stack, and no message formatted unless a check fails (issue 19: every run
	 * without a policy file went through this walk). */
	if (path[0] == '/') {
		plen = strlen(path);
		if (plen < sizeof(abs))
			memcpy(abs, path, plen + 1);
	} else {
		/* `sandcap policy check ./x.ini`: getcwd() has no symlinks, the walk checks it. */
		_cleanup_free_ char *cwd = getcwd(NULL, 0);

		if (cwd == NULL)
			return trust_fail(errbuf, errlen, neg_errno(), "cannot get the current "
					  "directory: %m");
		int n = snprintf(abs, sizeof(abs), "%s/%s", cwd, path);

		plen = n < 0 ? sizeof(abs) : (size_t) n;
	}
	if (plen >= sizeof(abs))
		return trust_fail(errbuf, errlen, -ENAMETOOLONG, "path too long");

	if (stat("/", &st) < 0)
		return trust_fail(errbuf, errlen, neg_errno(), "cannot stat /: %m");
	if (check_owner_mode(&st, "/", 1, errbuf, errlen) < 0)
		return -EPERM;

	/* Check the parents.  comp is the current component; the last one is the file. */
	comp = abs;
	while (*comp == '/')
		comp++;
	if (*comp == '\0')
		return trust_fail(errbuf, errlen, -EISDIR, "%s is a directory", path);
	for (;;) {
		int r, dlen;

		next = strchr(comp, '/');
		if (next == NULL)
			break;
		*next = '\0';
		if (comp[0] == '\0' || streq(comp, ".")) {
			*next = '/';
			comp = next + 1;
			continue;
		}
		r = fstatat(AT_FDCWD, abs, &st, AT_SYMLINK_NOFOLLOW);
		*next = '/';
		dlen = (int) (next - abs);      /* the path up to and including this component */
		if (r < 0) {
			r = neg_errno();
			return trust_fail(errbuf, errlen, r, "directory %.*s cannot be opened: %s",
					  dlen, abs, errstr(r));
		}
		if (S_ISLNK(st.st_mode))
			return trust_fail(errbuf, errlen, -ELOOP, "directory %.*s is a symbolic link; "
					  "name the real directory", dlen, abs);
		if (!S_ISDIR(st.st_mode))
			return trust_fail(errbuf, errlen, -ENOTDIR, "directory %.*s is not a "
					  "directory", dlen, abs);
		if (check_owner_mode(&st, abs, dlen, errbuf, errlen) < 0)
			return -EPERM;
		comp = next + 1;
	}
	if (comp[0] == '\0' || streq(comp, ".") || streq(comp, ".."))
		return trust_fail(errbuf, errlen, -EISDIR, "%s is a directory", path);

	fd = open_nosymlinks(abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP)
			return trust_fail(errbuf, errlen, -ELOOP, "is a symbolic link; the helper "
					  "opens the policy with O_NOFOLLOW");
		int e = neg_errno();

		return trust_fail(errbuf, errlen, e, "cannot be opened: %s", errstr(e));
	}
	if (fstat(fd, &st) < 0)
		return trust_fail(errbuf, errlen, neg_errno(), "cannot be examined: %m");
	if (!S_ISREG(st.st_mode))
		return trust_fail(errbuf, errlen, -EPERM, "not a regular file");
	if (check_owner_mode(&st, NULL, 0, errbuf, errlen) < 0)
		return -EPERM;
	if (st.st_size > POLICY_FILE_MAX)
		return trust_fail(errbuf, errlen, -EFBIG, "%lld bytes, the limit is %d",
				  (long long) st.st_size, POLICY_FILE_MAX);

	/* Read at most POLICY_FILE_MAX + 1 bytes: the file may grow after fstat(). */
	text = malloc(POLICY_FILE_MAX + 2);
	if (text == NULL)
		return trust_fail(errbuf, errlen, -ENOMEM, "out of memory");
	while (len <= POLICY_FILE_MAX) {
		ssize_t n = read(fd, text + len, POLICY_FILE_MAX + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return trust_fail(errbuf, errlen, neg_errno(), "read failed: %m");
		if (n == 0)
			break;
		len += (size_t) n;
		/* A regular file (checked above) reads short only at its end: no second read
		 * to see it (#19). */
		if ((size_t) n < POLICY_FILE_MAX + 1 - (len - (size_t) n))
			break;
	}
	if (len > POLICY_FILE_MAX)
		return trust_fail(errbuf, errlen, -EFBIG, "more than %d bytes", POLICY_FILE_MAX);
	text[len] = '\0';
	*ret_text = TAKE_PTR(text);
	*ret_len = len;
	return 0;
}
