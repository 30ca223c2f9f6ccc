/* SPDX-License-Identifier: MIT */
/* Why the command could not be executed, beyond strerror(): see exec-hint.h. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/exec-hint.h"
#include "fd-util.h"
#include "log.h"
#include "macro.h"

int
exec_hint_shebang(const char *head, size_t len, char *interp, size_t ilen)
{
	size_t i = 2, n = 0;

	if (ilen == 0 || len < 2 || head[0] != '#' || head[1] != '!')
		return -EINVAL;
	while (i < len && (head[i] == ' ' || head[i] == '\t'))
		i++;
	while (i < len && head[i] != ' ' && head[i] != '\t' && head[i] != '\n' && head[i] != '\0') {
		if (n + 1 >= ilen)
			return -ENAMETOOLONG;
		interp[n++] = head[i++];
	}
	interp[n] = '\0';
	return n > 0 ? 0 : -EINVAL;
}

/* The first bytes of path, if it is a regular file we can read: it is opened O_PATH and
 * checked first, so that a device or FIFO put at that name is never opened for reading
 * (no side effect, no block).  Returns the count, or -errno. */
static ssize_t
read_head(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int pfd = open(path, O_PATH | O_CLOEXEC), fd = -EBADF;
	char proc[64];
	struct stat st;
	ssize_t n;

	if (pfd < 0)
		return -errno;
	if (fstat(pfd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len);
	return n < 0 ? -errno : n;
}

void
exec_hint(const char *argv0, const char *dir, int err, enum policy_fs fs, char *buf, size_t len)
{
	char head[256] = "", interp[200], esc[256], path[PATH_MAX];
	ssize_t n;

	buf[0] = '\0';
	if (strchr(argv0, '/') == NULL)
		return; /* found through PATH: where, the child alone knows */
	/* As the child's exec saw it: relative to the directory it changed to. */
	if (argv0[0] != '/' && dir != NULL) {
		if ((size_t) snprintf(path, sizeof(path), "%s/%s", dir, argv0) >= sizeof(path))
			return;
		argv0 = path;
	}
	/* Executable out here, refused in there: Landlock's, most likely. */
	if (err == EACCES && fs == POLICY_FS_STRICT && access(argv0, X_OK) == 0) {
		snprintf(buf, len,
			 " (with --fs strict a program outside the system directories "
			 "needs its directory named: --ro DIR)");
		return;
	}
	/* execve()'s ENOENT for a file that exists: what it names is missing. */
	if (err != ENOENT)
		return;
	n = read_head(argv0, head, sizeof(head));
	if (n < 0)
		return;
	if (exec_hint_shebang(head, (size_t) n, interp, sizeof(interp)) == 0) {
		/* Only an absolute interpreter that is not there is named as missing. */
		if (interp[0] == '/' && access(interp, F_OK) < 0 && errno == ENOENT)
			snprintf(buf, len,
				 " (the file exists; the interpreter its #! line names, "
				 "'%s', does not)",
				 log_escape(interp, esc, sizeof(esc)));
	} else if ((size_t) n >= SELFMAG && memcmp(head, ELFMAG, SELFMAG) == 0) {
		snprintf(buf, len,
			 " (the file exists; the program loader it names, its ELF "
			 "interpreter, does not: built for another system?)");
	}
}
