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
 * Checking by name is as safe as walking the path by fd: a name can be changed only through write access to its parent, and every parent was found owned by
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
 * run without one): sandcap and its helper never call setlocale(), so strerror() gives
 * these same C-locale words. */
static const char *
errstr(int r)
{
	return r == -ENOENT ? "No such file or directory" : strerror(-r);
}

/* Owned by root and not writable by group or other.  name: the directory checked (its
 * first namelen bytes) for the message, NULL for the file itself. */
static int
check_owner_mode(const struct stat *st, const char *name, int namelen, char *errbuf, size_t errlen)
{
	const char *d = name != NULL ? "directory " : "", *is = name != NULL ? " is " : "";

	if (name == NULL) {
		name = "";
		namelen = 0;
	}
	if (st->st_uid != 0)
		return trust_fail(errbuf, errlen, -EPERM,
				  "%s%.*s%sowned by uid %u, must be owned "
				  "by root",
				  d, namelen, name, is, (unsigned) st->st_uid);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return trust_fail(errbuf, errlen, -EPERM,
				  "%s%.*s%swritable by %s (mode %04o), must not be writable by "
				  "group or other",
				  d, namelen, name, is,
				  (st->st_mode & S_IWGRP)
					  ? ((st->st_mode & S_IWOTH) ? "group and other" : "group")
					  : "other",
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

/* The absolute form of path in abs (PATH_MAX bytes), relative to the current directory
 * (`sandcap policy check ./x.ini`: getcwd() has no symlinks, and the walk checks it). */
static int
absolute(const char *path, char *abs, char *errbuf, size_t errlen)
{
	_cleanup_free_ char *cwd = NULL;
	int n;

	abs[0] = '\0'; /* clang's analyzer does not see snprintf() write it */
	if (path[0] == '/')
		n = snprintf(abs, PATH_MAX, "%s", path);
	else {
		cwd = getcwd(NULL, 0);
		if (cwd == NULL)
			return trust_fail(errbuf, errlen, neg_errno(),
					  "cannot get the current "
					  "directory: %m");
		n = snprintf(abs, PATH_MAX, "%s/%s", cwd, path);
	}
	if (n < 0 || n >= PATH_MAX)
		return trust_fail(errbuf, errlen, -ENAMETOOLONG, "path too long");
	return 0;
}

/* One directory on the way: abs up to dlen bytes, checked without following a symlink. */
static int
check_dir(const char *abs, int dlen, char *errbuf, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;
	int r;

	memcpy(dir, abs, (size_t) dlen);
	dir[dlen] = '\0';
	if (fstatat(AT_FDCWD, dir, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		r = neg_errno();
		return trust_fail(errbuf, errlen, r, "directory %s cannot be opened: %s", dir,
				  errstr(r));
	}
	if (S_ISLNK(st.st_mode))
		return trust_fail(errbuf, errlen, -ELOOP,
				  "directory %s is a symbolic link; name "
				  "the real directory",
				  dir);
	if (!S_ISDIR(st.st_mode))
		return trust_fail(errbuf, errlen, -ENOTDIR, "directory %s is not a directory", dir);
	return check_owner_mode(&st, dir, dlen, errbuf, errlen);
}

/* "/" and every directory on the way to the file named by abs (see the top); 0, or the
 * first check that failed. */
static int
check_parents(const char *abs, const char *path, char *errbuf, size_t errlen)
{
	const char *comp = abs, *next;
	struct stat st;
	int r;

	if (stat("/", &st) < 0)
		return trust_fail(errbuf, errlen, neg_errno(), "cannot stat /: %m");
	if (check_owner_mode(&st, "/", 1, errbuf, errlen) < 0)
		return -EPERM;
	while (*comp == '/')
		comp++;
	for (; (next = strchr(comp, '/')) != NULL; comp = next + 1) {
		if (next == comp || (next == comp + 1 && comp[0] == '.'))
			continue;
		r = check_dir(abs, (int) (next - abs), errbuf, errlen);
		if (r < 0)
			return r;
	}
	if (comp[0] == '\0' || streq(comp, ".") || streq(comp, ".."))
		return trust_fail(errbuf, errlen, -EISDIR, "%s is a directory", path);
	return 0;
}

/* Open the file whose directories were checked, and check the file on the fd. */
static int
open_checked(const char *abs, char *errbuf, size_t errlen)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;
	int e;

	fd = open_nosymlinks(abs, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP)
		return trust_fail(errbuf, errlen, -ELOOP,
				  "is a symbolic link; the helper opens "
				  "the policy with O_NOFOLLOW");
	if (fd < 0) {
		e = neg_errno();
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
	return TAKE_FD(fd);
}

/* At most POLICY_FILE_MAX bytes of fd, NUL-terminated: the file may grow after fstat(). */
static int
read_capped(int fd, char **ret_text, size_t *ret_len, char *errbuf, size_t errlen)
{
	_cleanup_free_ char *text = malloc(POLICY_FILE_MAX + 2);
	size_t len = 0;
	ssize_t n;

	if (text == NULL)
		return trust_fail(errbuf, errlen, -ENOMEM, "out of memory");
	while (len <= POLICY_FILE_MAX) {
		n = read(fd, text + len, POLICY_FILE_MAX + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return trust_fail(errbuf, errlen, neg_errno(), "read failed: %m");
		if (n == 0)
			break;
		len += (size_t) n;
	}
	if (len > POLICY_FILE_MAX)
		return trust_fail(errbuf, errlen, -EFBIG, "more than %d bytes", POLICY_FILE_MAX);
	text[len] = '\0';
	*ret_text = TAKE_PTR(text);
	*ret_len = len;
	return 0;
}

int
policy_read_trusted(const char *path, char **ret_text, size_t *ret_len, char *errbuf, size_t errlen)
{
	_cleanup_close_ int fd = -EBADF;
	char abs[PATH_MAX];
	int r;

	if (path == NULL || path[0] == '\0')
		return trust_fail(errbuf, errlen, -EINVAL, "empty path");
	r = absolute(path, abs, errbuf, errlen);
	if (r < 0)
		return r;
	r = check_parents(abs, path, errbuf, errlen);
	if (r < 0)
		return r;
	fd = open_checked(abs, errbuf, errlen);
	if (fd < 0)
		return fd;
	return read_capped(fd, ret_text, ret_len, errbuf, errlen);
}

int
policy_load(const char *path, struct policy **ret, enum policy_load_step *ret_step, char *errbuf,
	    size_t errlen)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	unsigned line;
	int r;

	if (errbuf != NULL && errlen > 0)
		errbuf[0] = '\0';
	r = policy_read_trusted(path, &text, &len, errbuf, errlen);
	if (r < 0) {
		*ret_step = r == -ENOENT ? POLICY_LOAD_MISSING : POLICY_LOAD_UNTRUSTED;
		return r;
	}
	r = policy_parse_string(text, len, path, ret, &line, errbuf, errlen);
	*ret_step = r < 0 ? POLICY_LOAD_INVALID : POLICY_LOAD_OK;
	return r;
}
