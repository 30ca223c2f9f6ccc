/* SPDX-License-Identifier: MIT */
/* Where the JSON report goes, opened before the run and written at its end (report-sink.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "report/report-sink.h"
#include "supervise/supervise.h"

static int
fail(char *err, size_t errlen, int r, const char *what, const char *path)
{
	char esc[256];

	snprintf(err, errlen, "%s '%s': %s", what, log_escape(path, esc, sizeof(esc)),
		 strerror(-r));
	return r;
}

static int
open_file(struct report_sink *s, const char *path, char *err, size_t errlen)
{
	_cleanup_free_ char *dcopy = NULL, *bcopy = NULL, *tmp = NULL, *final = NULL;
	const char *dir;
	struct stat st;
	int fd;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (S_ISDIR(st.st_mode))
			return fail(err, errlen, -EISDIR, "--report: cannot write to", path);
		/* A FIFO or a device (/dev/stderr): nothing to rename; written in place. */
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			return fail(err, errlen, neg_errno(), "--report: cannot open", path);
		s->kind = REPORT_SINK_FD;
		s->fd = fd;
		s->own_fd = true;
		return 0;
	}
	final = strdup(path);
	dcopy = strdup(path);
	bcopy = strdup(path);
	if (final == NULL || dcopy == NULL || bcopy == NULL)
		return -ENOMEM;
	dir = dirname(dcopy);
	/* An unnamed file in FILE's directory (O_TMPFILE): it proves the directory writable
	 * now, and a sandcap killed before the end leaves nothing behind (the kernel frees
	 * it with the last descriptor); it gets a name only when complete. */
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		char proc[64];

		/* It is named through /proc/self/fd at the end: without /proc it never could. */
		(void) snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (faccessat(AT_FDCWD, proc, F_OK, 0) < 0) {
			fd = safe_close(fd);
			errno = EOPNOTSUPP;
		}
	}
	if (fd < 0) {
		/* Refused by the filesystem (EOPNOTSUPP), or a kernel without O_TMPFILE,
		 * which sees O_DIRECTORY | O_WRONLY (EISDIR), or no /proc: a named
		 * temporary instead. */
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
			return fail(err, errlen, neg_errno(),
				    "--report: cannot create a temporary file next to", path);
		if (asprintf(&tmp, "%s/.%s.XXXXXX", dir, basename(bcopy)) < 0) {
			tmp = NULL;
			return -ENOMEM;
		}
		/* Same directory, so the final rename() is atomic; O_EXCL by mkostemp. */
		fd = mkostemp(tmp, O_CLOEXEC);
		if (fd < 0)
			return fail(err, errlen, neg_errno(),
				    "--report: cannot create a temporary file next to", path);
	}
	s->kind = REPORT_SINK_FILE;
	s->fd = fd;
	s->own_fd = true;
	s->path = TAKE_PTR(final);
	s->tmp_path = TAKE_PTR(tmp); /* NULL: the unnamed file */
	return 0;
}

/* Give the complete unnamed file (O_TMPFILE) its name: FILE itself when it does not exist
 * (linkat never replaces; the file appears whole), else a hidden name beside it, renamed
 * over FILE.  Through /proc/self/fd: linkat(fd, "", AT_EMPTY_PATH) needs
 * CAP_DAC_READ_SEARCH.  Returns 0 or -errno. */
static int
link_tmpfile(struct report_sink *s)
{
	_cleanup_free_ char *dcopy = NULL, *bcopy = NULL;
	const char *dir, *base;
	char proc[64];
	int r = -EEXIST;

	(void) snprintf(proc, sizeof(proc), "/proc/self/fd/%d", s->fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, s->path, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != EEXIST)
		return neg_errno();
	dcopy = strdup(s->path);
	bcopy = strdup(s->path);
	if (dcopy == NULL || bcopy == NULL)
		return -ENOMEM;
	dir = dirname(dcopy); /* each may write into its copy: once */
	base = basename(bcopy);
	for (int i = 0; i < 100 && r == -EEXIST; i++) {
		uint64_t rnd = 0;

		if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) < 0)
			rnd = (uint64_t) getpid() << 20; /* i still varies it */
		free(s->tmp_path);
		if (asprintf(&s->tmp_path, "%s/.%s.%06" PRIx64, dir, base,
			     (rnd ^ (uint64_t) i) & 0xffffff) < 0) {
			s->tmp_path = NULL;
			return -ENOMEM;
		}
		r = linkat(AT_FDCWD, proc, AT_FDCWD, s->tmp_path, AT_SYMLINK_FOLLOW) < 0
			    ? neg_errno()
			    : 0;
	}
	if (r == 0 && rename(s->tmp_path, s->path) < 0) {
		r = neg_errno();
		(void) unlink(s->tmp_path);
	}
	free(s->tmp_path); /* on failure not ours (EEXIST) or removed above */
	s->tmp_path = NULL;
	return r;
}

/* 0-2 when path names that descriptor of sandcap's ("-" is standard output, /dev/stdout,
 * /dev/fd/N, /proc/self/fd/N), else -1. */
static int
std_alias(const char *path)
{
	static const char *const names[] = { "/dev/stdin", "/dev/stdout", "/dev/stderr" };
	const char *n = NULL;

	if (streq(path, "-"))
		return STDOUT_FILENO;
	for (int i = 0; i < 3; i++)
		if (streq(path, names[i]))
			return i;
	if (strneq(path, "/dev/fd/", 8))
		n = path + 8;
	else if (strneq(path, "/proc/self/fd/", 14))
		n = path + 14;
	if (n != NULL && n[0] >= '0' && n[0] <= '2' && n[1] == '\0')
		return n[0] - '0';
	return -1;
}

int
report_sink_open(struct report_sink *s, const char *path, int fd, char *err, size_t errlen)
{
	int std;

	*s = (struct report_sink) REPORT_SINK_INIT;
	if (fd >= 0) {
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
			snprintf(err, errlen, "--report-fd: %d is not an open file descriptor: %s",
				 fd, strerror(errno));
			return -EBADF;
		}
		if ((fl & O_ACCMODE) == O_RDONLY) {
			snprintf(err, errlen,
				 "--report-fd: %d is open for reading only; pass a "
				 "descriptor open for writing (e.g. the write end of a pipe)",
				 fd);
			return -EBADF;
		}
		s->kind = REPORT_SINK_FD;
		s->fd = fd;
		return 0;
	}
	if (path == NULL)
		return 0;
	/* A closed 0-2 holds /dev/null (sv_note_stdio()): a report there would be lost. */
	std = std_alias(path);
	if (std >= 0 && std < 3 && sv_stdio_was_closed(std)) {
		static const char *const what[] = { "input", "output", "error" };

		snprintf(
			err, errlen,
			"--report %s: sandcap's standard %s was closed, so the report "
			"would be lost; give --report FILE, or --report-fd N of an open descriptor",
			path, what[std]);
		return -EBADF;
	}
	if (streq(path, "-")) {
		s->kind = REPORT_SINK_STDOUT;
		s->fd = STDOUT_FILENO;
		return 0;
	}
	return open_file(s, path, err, errlen);
}

FILE *
report_sink_stream(struct report_sink *s)
{
	if (s->kind == REPORT_SINK_NONE)
		return NULL;
	if (s->mem == NULL)
		s->mem = open_memstream(&s->buf, &s->len);
	return s->mem;
}

static int
write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return neg_errno();
		p += n;
		len -= (size_t) n;
	}
	return 0;
}

int
report_sink_commit(struct report_sink *s, char *err, size_t errlen)
{
	mode_t mask;
	int r;

	if (s->kind == REPORT_SINK_NONE || s->mem == NULL)
		return 0;
	if (fclose(s->mem) != 0) {
		s->mem = NULL;
		snprintf(err, errlen, "--report: cannot compose the report: %s", strerror(errno));
		return -ENOMEM;
	}
	s->mem = NULL;
	if (s->kind == REPORT_SINK_STDOUT)
		(void) fflush(stdout); /* anything printf'ed before goes first */
	r = write_all(s->fd, s->buf, s->len);
	if (r < 0) {
		snprintf(err, errlen, "--report: cannot write the report: %s", strerror(-r));
		return r;
	}
	if (s->kind != REPORT_SINK_FILE)
		return 0;
	/* The mode open(..., 0644) would have given under the caller's umask. */
	mask = umask(0);
	(void) umask(mask);
	if (fchmod(s->fd, 0644 & ~mask) < 0) {
		r = neg_errno();
		s->fd = safe_close(s->fd);
		return fail(err, errlen, r, "--report: cannot write",
			    s->tmp_path != NULL ? s->tmp_path : s->path);
	}
	if (s->tmp_path == NULL) {
		/* The unnamed file, still open (linked through its fd): name it. */
		r = link_tmpfile(s);
		s->fd = safe_close(s->fd);
		if (r < 0)
			return fail(err, errlen, r, "--report: cannot put the report in place as",
				    s->path);
		return 0;
	}
	r = close(s->fd) < 0 ? neg_errno() : 0;
	s->fd = -1;
	if (r < 0)
		return fail(err, errlen, r, "--report: cannot write", s->tmp_path);
	if (rename(s->tmp_path, s->path) < 0)
		return fail(err, errlen, neg_errno(), "--report: cannot rename the report to",
			    s->path);
	free(s->tmp_path);
	s->tmp_path = NULL;
	return 0;
}

void
report_sink_close(struct report_sink *s)
{
	if (s->mem != NULL)
		(void) fclose(s->mem);
	if (s->own_fd && s->fd >= 0)
		(void) close(s->fd);
	if (s->tmp_path != NULL)
		(void) unlink(s->tmp_path);
	free(s->tmp_path);
	free(s->path);
	free(s->buf);
	*s = (struct report_sink) REPORT_SINK_INIT;
}
