/* SPDX-License-Identifier: MIT */
/* Why the command could not be executed, beyond strerror(): see exec-hint.h. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec-hint.h"
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
	while (i < len && head[i] != ' ' && head[i] != '\t' && head[i] != '\n' &&
	       head[i] != '\0') {
		if (n + 1 >= ilen)
			return -ENAMETOOLONG;
		interp[n++] = head[i++];
	}
	interp[n] = '\0';
	return n > 0 ? 0 : -EINVAL;
}

/* The first bytes of path, if it is a regular file we can read (never blocks: O_NONBLOCK
 * for a FIFO put at that name).  Returns the count, or -errno. */
static ssize_t
read_head(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	n = read(fd, buf, len);
	return n < 0 ? -errno : n;
}

void
exec_hint(const char *argv0, int err, enum policy_fs fs, char *buf, size_t len)
{
	char head[256], interp[200], esc[256];
	ssize_t n;

	buf[0] = '\0';
	if (err == EACCES && fs == POLICY_FS_STRICT) {
		snprintf(buf, len, " (with --fs strict a program outside the system directories "
			 "needs its directory named: --ro DIR)");
		return;
	}
	/* execve()'s ENOENT for a file that exists: what it names is missing. */
	if (err != ENOENT || strchr(argv0, '/') == NULL)
		return;
	n = read_head(argv0, head, sizeof(head));
	if (n < 0)
		return;
	if (exec_hint_shebang(head, (size_t) n, interp, sizeof(interp)) == 0)
		snprintf(buf, len, " (the file exists; the interpreter its #! line names, '%s', "
			 "does not)", log_escape(interp, esc, sizeof(esc)));
	else if ((size_t) n >= SELFMAG && memcmp(head, ELFMAG, SELFMAG) == 0)
		snprintf(buf, len, " (the file exists; the program loader it names, its ELF "
			 "interpreter, does not: built for another system?)");
}
