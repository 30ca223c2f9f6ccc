/* SPDX-License-Identifier: MIT */
/* The Landlock layer that keeps the cgroup filesystem unwritable (cgprotect.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "isolate/cgprotect.h"
#include "errbuf.h"
#include "fd-util.h"
#include "isolate/isolate.h"
#include "isolate/landlock-compat.h"
#include "macro.h"

/* Rights that a rule on a non-directory may carry (landlock_add_rule refuses the others). */
#define CG_FS_FILE                                                    \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define CG_FS_READ \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

/* Decode mountinfo's octal escapes (\040 space, \011 tab, \012 newline, \134 backslash). */
static void
unescape(const char *s, size_t len, char *out, size_t outlen)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 1 < outlen; i++) {
		if (s[i] == '\\' && i + 3 < len && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			out[o++] = (char) ((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
					   (s[i + 3] - '0'));
			i += 3;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
}

/* Field k (0-based, space-separated) of line [s, e): its start and length. */
static const char *
field(const char *s, const char *e, unsigned k, size_t *len)
{
	const char *p = s;

	for (unsigned i = 0;; i++) {
		const char *q;

		while (p < e && *p == ' ')
			p++;
		if (p >= e)
			return NULL;
		q = memchr(p, ' ', (size_t) (e - p));
		if (q == NULL)
			q = e;
		if (i == k) {
			*len = (size_t) (q - p);
			return p;
		}
		p = q;
	}
}

size_t
cgprotect_parse_mountinfo(const char *text, char (*ret)[PATH_MAX], size_t max, char *cgroup2_first,
			  size_t cgroup2_len)
{
	size_t n = 0;

	if (cgroup2_first != NULL && cgroup2_len > 0)
		cgroup2_first[0] = '\0';
	for (const char *s = text; *s != '\0';) {
		const char *e = strchrnul(s, '\n'), *mp, *sep, *fs;
		size_t mplen, fslen;

		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER" */
		mp = field(s, e, 4, &mplen);
		sep = memmem(s, (size_t) (e - s), " - ", 3);
		if (mp != NULL && sep != NULL && (fs = field(sep + 3, e, 0, &fslen)) != NULL) {
			bool v2 = fslen == 7 && strneq(fs, "cgroup2", 7);
			bool v1 = fslen == 6 && strneq(fs, "cgroup", 6);

			if (v2 && cgroup2_first != NULL && cgroup2_len > 0 &&
			    cgroup2_first[0] == '\0')
				unescape(mp, mplen, cgroup2_first, cgroup2_len);
			if ((v1 || v2) && n < max)
				unescape(mp, mplen, ret[n++], PATH_MAX);
		}
		s = *e != '\0' ? e + 1 : e;
	}
	return n;
}

int
cgprotect_mounts(char (*ret)[PATH_MAX], size_t max, size_t *ret_n, char *cgroup2_first,
		 size_t cgroup2_len)
{
	static char buf[256 * 1024];
	_cleanup_close_ int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	r = read_full_fd(fd, buf, sizeof(buf), NULL);
	if (r < 0)
		return r;
	*ret_n = cgprotect_parse_mountinfo(buf, ret, max, cgroup2_first, cgroup2_len);
	return 0;
}

static int
add_rule_fd(int ruleset, int fd, uint64_t access, uint64_t handled)
{
	struct landlock_path_beneath_attr pb = { .parent_fd = fd };
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	pb.allowed_access = access & handled & (S_ISDIR(st.st_mode) ? ~(uint64_t) 0 : CG_FS_FILE);
	if (pb.allowed_access == 0)
		return 0;
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
		return -errno;
	return 0;
}

/* Is a (absolute, no trailing slash) equal to or an ancestor of b? */
static bool
is_prefix_dir(const char *a, const char *b)
{
	size_t la = strlen(a);

	if (la == 1 && a[0] == '/')
		return b[0] == '/';
	return strneq(a, b, la) && (b[la] == '\0' || b[la] == '/');
}

/* dir is an ancestor of some protected path (or root itself): read rights on it, all
 * rights on every entry that neither is nor contains a protected path, and recurse into
 * the entries that contain one. */
static int
protect_dir(int ruleset, uint64_t handled, const char *dir, const char (*protect)[PATH_MAX],
	    size_t n, unsigned depth, char *err, size_t errlen)
{
	_cleanup_close_ int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (dfd < 0 || depth > 32) {
		set_err(err, errlen, "cannot open %s: %s", dir, strerror(dfd < 0 ? errno : ELOOP));
		return dfd < 0 ? -errno : -ELOOP;
	}
	r = add_rule_fd(ruleset, dfd, CG_FS_READ, handled);
	if (r < 0) {
		set_err(err, errlen, "Landlock rule for %s: %s", dir, strerror(-r));
		return r;
	}
	d = opendir(dir);
	if (d == NULL) {
		set_err(err, errlen, "cannot list %s: %s", dir, strerror(errno));
		return -errno;
	}
	while (r == 0 && (de = readdir(d)) != NULL) {
		char path[PATH_MAX];
		bool inside = false, exact = false;
		int fd;

		if (streq(de->d_name, ".") || streq(de->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s%s%s", dir, streq(dir, "/") ? "" : "/",
			     de->d_name) >= (int) sizeof(path))
			continue;
		for (size_t i = 0; i < n; i++) {
			exact |= streq(path, protect[i]);
			inside |= is_prefix_dir(path, protect[i]);
		}
		if (exact)
			continue; /* read only, through dir's rule */
		if (inside) {
			r = protect_dir(ruleset, handled, path, protect, n, depth + 1, err, errlen);
			continue;
		}
		fd = openat(dirfd(d), de->d_name, O_PATH | O_CLOEXEC);
		if (fd < 0)
			continue; /* not ours to reach anyway (e.g. /root 0700) */
		r = add_rule_fd(ruleset, fd, ~(uint64_t) 0, handled);
		close(fd);
		if (r < 0)
			set_err(err, errlen, "Landlock rule for %s: %s", path, strerror(-r));
	}
	closedir(d);
	return r;
}

int
cgprotect_ruleset(int abi, const char *root, const char (*protect)[PATH_MAX], size_t n, char *err,
		  size_t errlen)
{
	struct {
		uint64_t handled_access_fs;
	} attr = { isolate_landlock_fs_mask(abi) };
	_cleanup_close_ int ruleset = -EBADF;
	char inside[CGPROTECT_MAX][PATH_MAX];
	size_t m = 0;
	int r;

	if (abi < 1) {
		set_err(err, errlen, "Landlock is not available");
		return -EOPNOTSUPP;
	}
	/* Only the protected paths under root count (a stand-in root in tests). */
	for (size_t i = 0; i < n && m < ELEMENTSOF(inside); i++)
		if (is_prefix_dir(root, protect[i]) && !streq(root, protect[i]))
			(void) snprintf(inside[m++], PATH_MAX, "%s", protect[i]);
	if (m == 0)
		return -ENODATA;
	ruleset = (int) syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (ruleset < 0) {
		r = -errno;
		set_err(err, errlen, "Landlock: cannot create the ruleset (ABI %d): %s", abi,
			strerror(-r));
		return r;
	}
	r = protect_dir(ruleset, attr.handled_access_fs, root, inside, m, 0, err, errlen);
	if (r < 0)
		return r;
	return TAKE_FD(ruleset);
}

int
landlock_restrict(int ruleset, char *err, size_t errlen)
{
	_cleanup_close_ int fd = ruleset;
	int r;

	if (syscall(SYS_landlock_restrict_self, fd, 0) < 0) {
		r = -errno;
		set_err(err, errlen, "Landlock: cannot restrict the sandbox: %s%s", strerror(-r),
			r == -EPERM ? " (no_new_privs not set)" : "");
		return r;
	}
	return 0;
}

int
cgprotect_apply(int abi, const char *root, const char (*protect)[PATH_MAX], size_t n, char *err,
		size_t errlen)
{
	int ruleset = cgprotect_ruleset(abi, root, protect, n, err, errlen);

	if (ruleset < 0)
		return ruleset == -ENODATA ? 0 : ruleset;
	return landlock_restrict(ruleset, err, errlen);
}
